"""riptide.ml.neighbors: scikit-learn's nearest neighbours, an exact brute force in blocks on the GPU.

``NearestNeighbors``, ``KNeighborsClassifier``, ``KNeighborsRegressor`` and the graph functions have
scikit-learn's names, parameters and results; how the search works is described in
:mod:`riptide.ml.neighbors._brute` (distances, blocks, ties) and :mod:`riptide.ml.neighbors._kernels` (the GPU
selection kernel), what the estimators share in :mod:`riptide.ml.neighbors._base`.

>>> from riptide.ml.neighbors import NearestNeighbors
>>> NearestNeighbors(n_neighbors=1).fit([[0.0], [2.0]]).kneighbors([[1.5]])[1].tolist()
[[1]]
"""

from riptide.ml.neighbors._classification import KNeighborsClassifier
from riptide.ml.neighbors._graph import kneighbors_graph, radius_neighbors_graph
from riptide.ml.neighbors._regression import KNeighborsRegressor
from riptide.ml.neighbors._unsupervised import NearestNeighbors

__all__ = ["NearestNeighbors", "KNeighborsClassifier", "KNeighborsRegressor", "kneighbors_graph",
           "radius_neighbors_graph"]  # fmt: skip
