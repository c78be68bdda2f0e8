"""Clustering (``sklearn.cluster``)."""

from riptide.ml.cluster._agglomerative import AgglomerativeClustering
from riptide.ml.cluster._dbscan import DBSCAN
from riptide.ml.cluster._hdbscan import HDBSCAN
from riptide.ml.cluster._kmeans import KMeans
from riptide.ml.cluster._minibatch_kmeans import MiniBatchKMeans

__all__ = ["AgglomerativeClustering", "DBSCAN", "HDBSCAN", "KMeans", "MiniBatchKMeans"]
