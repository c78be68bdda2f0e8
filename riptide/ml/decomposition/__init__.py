"""Matrix decompositions (``sklearn.decomposition``)."""

from riptide.ml.decomposition._pca import PCA

__all__ = ["PCA"]
