"""NearestNeighbors: scikit-learn's unsupervised neighbour search, exact brute force on the device."""

from __future__ import annotations

from sklearn.base import _fit_context

from riptide.ml import _dask
from riptide.ml._validation import FLOAT_DTYPES, validate_data
from riptide.ml.neighbors._base import (
    KNeighborsMixin,
    NeighborsBase,
    RadiusNeighborsMixin,
)

__all__ = ["NearestNeighbors"]


class NearestNeighbors(KNeighborsMixin, RadiusNeighborsMixin, NeighborsBase):
    """Unsupervised learner for neighbour searches (scikit-learn's ``NearestNeighbors``).

    Parameters
    ----------
    n_neighbors : int, default=5
    radius : float, default=1.0
    algorithm : {'auto', 'ball_tree', 'kd_tree', 'brute'}, default='auto'
        Accepted and validated as scikit-learn does; every choice runs the exact brute force (see
        :mod:`riptide.ml.neighbors._base`).
    leaf_size : int, default=30
        Accepted; no effect.
    metric : str, default='minkowski'
        euclidean (l2), sqeuclidean, cosine, manhattan (cityblock, l1), chebyshev (infinity), minkowski.
    p : float, default=2
    metric_params : dict, default=None
        ``p`` and ``w`` (feature weights) for minkowski.
    n_jobs : int, default=None
        Accepted; no effect.

    Attributes
    ----------
    effective_metric_ : str
    effective_metric_params_ : dict
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
    n_samples_fit_ : int

    Examples
    --------
    >>> from riptide.ml.neighbors import NearestNeighbors
    >>> nn = NearestNeighbors(n_neighbors=2).fit([[0.0], [1.0], [3.0]])
    >>> nn.kneighbors([[0.9]], return_distance=False).tolist()
    [[1, 0]]
    >>> nn.kneighbors(return_distance=False).tolist()  # X=None: each row's neighbours other than itself
    [[1, 2], [0, 2], [1, 0]]
    """

    def __init__(self, *, n_neighbors=5, radius=1.0, algorithm="auto", leaf_size=30, metric="minkowski", p=2,
                 metric_params=None, n_jobs=None):  # fmt: skip
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.metric = metric
        self.p = p
        self.metric_params = metric_params
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Fit the nearest neighbours estimator from the training dataset."""
        if _dask.is_dask_collection(X):  # the collection is kept; queries search it block by block
            return _dask.fit_nearest_neighbors(self, X)
        X_given = X
        X, _ = validate_data(self, X, reset=True, dtype=FLOAT_DTYPES)
        self._fit_rows(X_given, X)
        return self._publish(X_given)

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """The k nearest fitted rows of each query (see ``KNeighborsMixin.kneighbors``); a Dask query gives lazy
        Dask arrays, and a model fitted on a Dask collection merges each fitted block's top-k."""
        if _dask.is_dask_collection(X) or getattr(self, "_fit_X", 0) is None:
            return _dask.kneighbors(self, X, n_neighbors, return_distance)
        return super().kneighbors(X, n_neighbors, return_distance)
