"""Clustering (``sklearn.cluster``)."""

from riptide.ml.cluster._kmeans import KMeans

__all__ = ["KMeans"]
