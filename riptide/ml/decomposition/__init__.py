"""Matrix decompositions (``sklearn.decomposition``)."""

from riptide.ml.decomposition._incremental_pca import IncrementalPCA
from riptide.ml.decomposition._pca import PCA
from riptide.ml.decomposition._truncated_svd import TruncatedSVD

__all__ = ["PCA", "IncrementalPCA", "TruncatedSVD"]
