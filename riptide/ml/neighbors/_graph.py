"""kneighbors_graph and radius_neighbors_graph: scikit-learn's module-level graph functions."""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions, validate_params
from sklearn.utils.validation import check_is_fitted

from riptide.ml.neighbors._base import (
    _ALL_METRICS,
    KNeighborsMixin,
    RadiusNeighborsMixin,
)
from riptide.ml.neighbors._unsupervised import NearestNeighbors

__all__ = ["kneighbors_graph", "radius_neighbors_graph"]


def _check_params(estimator, metric, p, metric_params):
    """A fitted estimator passed as X must have been fitted with the same metric parameters."""
    given = estimator.get_params()
    for name, value in (("metric", metric), ("p", p), ("metric_params", metric_params)):
        if value != given[name]:
            raise ValueError(f"Got {value} for {name}, while the estimator has {given[name]} for the same "
                             "parameter.")  # fmt: skip


def _query(X, fitted, include_self, mode):
    """scikit-learn's rule: the rows themselves are queried (each its own first neighbour) only with
    ``include_self`` ('auto': for connectivity); else ``None`` (each row is not its own neighbour)."""
    if include_self == "auto":
        include_self = mode == "connectivity"
    if not include_self:
        return None
    return fitted._fit_X if X is fitted else X


_COMMON = {"mode": [StrOptions({"connectivity", "distance"})], "metric": [StrOptions(_ALL_METRICS), callable],
           "p": [Interval(Real, 0, None, closed="right"), None], "metric_params": [dict, None],
           "include_self": ["boolean", StrOptions({"auto"})], "n_jobs": [Integral, None]}  # fmt: skip


def _fitted(X, mixin, metric, p, metric_params, n_jobs, **size):
    """X itself when it is a fitted estimator of ``mixin`` (its metric checked), else NearestNeighbors fitted on X."""
    if not isinstance(X, mixin):
        return NearestNeighbors(**size, metric=metric, p=p, metric_params=metric_params, n_jobs=n_jobs).fit(X)
    check_is_fitted(X)
    _check_params(X, metric, p, metric_params)
    return X


@validate_params({"X": ["array-like", KNeighborsMixin], "n_neighbors": [Interval(Integral, 1, None, closed="left")],
                  **_COMMON}, prefer_skip_nested_validation=False)  # fmt: skip
def kneighbors_graph(X, n_neighbors, *, mode="connectivity", metric="minkowski", p=2, metric_params=None,
                     include_self=False, n_jobs=None):  # fmt: skip
    """The graph of the k nearest neighbours of each row of X (a CSR matrix, ``(n_samples, n_samples)``).

    >>> from riptide.ml.neighbors import kneighbors_graph
    >>> kneighbors_graph([[0], [3], [1]], 2, mode="connectivity", include_self=True).toarray()
    array([[1., 0., 1.],
           [0., 1., 1.],
           [1., 0., 1.]])
    """
    fitted = _fitted(X, KNeighborsMixin, metric, p, metric_params, n_jobs, n_neighbors=n_neighbors)
    return fitted.kneighbors_graph(X=_query(X, fitted, include_self, mode), n_neighbors=n_neighbors, mode=mode)


@validate_params({"X": ["array-like", RadiusNeighborsMixin], "radius": [Interval(Real, 0, None, closed="both")],
                  **_COMMON}, prefer_skip_nested_validation=False)  # fmt: skip
def radius_neighbors_graph(X, radius, *, mode="connectivity", metric="minkowski", p=2, metric_params=None,
                           include_self=False, n_jobs=None):  # fmt: skip
    """The graph of the neighbours within ``radius`` of each row of X (a CSR matrix, ``(n_samples, n_samples)``).

    >>> from riptide.ml.neighbors import radius_neighbors_graph
    >>> radius_neighbors_graph([[0], [3], [1]], 1.5, mode="connectivity", include_self=True).toarray()
    array([[1., 0., 1.],
           [0., 1., 0.],
           [1., 0., 1.]])
    """
    fitted = _fitted(X, RadiusNeighborsMixin, metric, p, metric_params, n_jobs, radius=radius)
    return fitted.radius_neighbors_graph(_query(X, fitted, include_self, mode), radius, mode)
