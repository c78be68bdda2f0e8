"""DBSCAN (``sklearn.cluster.DBSCAN``): eps-neighbourhoods, core points and their components on the device.

scikit-learn lists every point's eps-neighbourhood (a tree query per point, all neighbourhoods held at once), marks
as *core* the points whose neighbourhood weighs at least ``min_samples``, and then walks the points by index: from
each core point not yet labelled, a depth-first search labels everything reachable through core points with the
next cluster number, stopping at (and labelling) non-core *border* points. Two consequences make that walk a pair of
whole-array passes here, with exactly scikit-learn's labels:

* A cluster is a connected component of the graph of core points within ``eps`` of each other, and clusters are
  numbered in the order of their smallest core point. Components come from hooking and pointer jumping
  (:func:`~riptide.core.kernels.union_find.component_roots`), whose root is the smallest vertex of each component:
  the rank of a core point's root among the roots is its cluster number.
* A cluster's search runs to completion before the next starts, so a border point reachable from several clusters
  keeps the first: the smallest cluster number among its core neighbours (a scatter-min). Points with no core
  neighbour are noise (-1).

The neighbour pairs come from :func:`~riptide.ml.cluster._neighbourhood.radius_pairs` (a grid of cell ``eps`` for
d <= 3, blocked brute force above) in chunks of bounded size: a first pass sums each point's neighbour weights, a
second keeps the core-core edges and the border-core pairs (the first pass's pairs are reused when they fitted in
one budget). Memory is O(n + pairs), never O(n^2). Metrics other than euclidean, manhattan, chebyshev, minkowski
(p >= 1), cosine and precomputed, a callable, or ``metric_params`` beyond ``p`` have their neighbourhoods found
on the host by scikit-learn's ``NearestNeighbors`` (its own warnings and errors), and the rest runs as above.
``algorithm`` and ``leaf_size`` choose scikit-learn's tree on that host path only; ``n_jobs`` is accepted. Sparse
input (features, or a precomputed sparse neighbourhood graph, possibly asymmetric) is clustered by scikit-learn's
DBSCAN on the host.
"""

from __future__ import annotations

import types
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.metrics.pairwise import _VALID_METRICS
from sklearn.utils._param_validation import Interval, StrOptions

from riptide import _device
from riptide.core.kernels.scatter import scatter_min
from riptide.core.kernels.union_find import component_roots
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import check_sample_weight, host_form, validate_data
from riptide.ml.cluster._neighbourhood import BUDGET, radius_pairs, resolve_metric

__all__ = ["DBSCAN", "dbscan_labels"]


def _host_pairs(estimator: Any, X: Any, xp: types.ModuleType) -> list[tuple[Any, Any]]:
    """Neighbour pairs found by scikit-learn's ``NearestNeighbors`` on a host copy (its own errors)."""
    from sklearn.neighbors import NearestNeighbors

    Xh = _device.to_host(X)
    model = NearestNeighbors(radius=estimator.eps, algorithm=estimator.algorithm, leaf_size=estimator.leaf_size,
                             metric=estimator.metric, metric_params=estimator.metric_params, p=estimator.p,
                             n_jobs=estimator.n_jobs).fit(Xh)  # fmt: skip
    neighbourhoods = model.radius_neighbors(Xh, return_distance=False)
    lengths = np.array([len(nb) for nb in neighbourhoods], dtype=np.int64)
    i = np.repeat(np.arange(len(neighbourhoods), dtype=np.int64), lengths)
    j = np.concatenate(list(neighbourhoods)).astype(np.int64) if len(neighbourhoods) else np.empty(0, np.int64)
    once = i < j  # each unordered pair once; the point itself is added by the caller
    return [(_device.to_device(i[once], xp), _device.to_device(j[once], xp))]


def _check_precomputed(X: Any, xp: types.ModuleType) -> bool:
    """Whether a precomputed distance matrix is one the device path takes (square, no negative distance)."""
    return X.shape[0] == X.shape[1] and not bool((X < 0).any())  # one scalar read: the matrix's validity


def dbscan_labels(pairs: Any, n: int, weight: Any, min_samples: float, xp: types.ModuleType) -> tuple[Any, Any]:
    """scikit-learn's DBSCAN labels and core mask from ``pairs()``, which yields the chunks of neighbour pairs
    (each unordered pair of distinct points once, see :func:`radius_pairs`) and may be called twice.

    >>> from riptide.ml.cluster._neighbourhood import Metric
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0], [3.1]])
    >>> chunks = list(radius_pairs(X, 1.0, Metric("euclidean"), np))
    >>> labels, core = dbscan_labels(lambda: chunks, 5, np.ones(5), 3, np)
    >>> labels.tolist(), core.tolist()
    ([0, 0, 0, -1, -1], [False, True, False, False, False])
    """
    counts = weight.astype(xp.float64)  # a point is its own neighbour
    kept, stored = [], 0
    for i, j in pairs():
        counts += xp.bincount(i, weights=weight[j], minlength=n) + xp.bincount(j, weights=weight[i], minlength=n)
        stored += i.shape[0]
        if kept is not None and stored <= BUDGET:
            kept.append((i, j))
        else:
            kept = None
    core = counts >= min_samples
    edges_u, edges_v, border_i, border_j = [], [], [], []
    for i, j in kept if kept is not None else pairs():
        ci, cj = core[i], core[j]
        both = xp.flatnonzero(ci & cj)
        edges_u.append(i[both])
        edges_v.append(j[both])
        for b, c, border in ((i, j, ~ci & cj), (j, i, ci & ~cj)):
            border = xp.flatnonzero(border)
            border_i.append(b[border])
            border_j.append(c[border])
    empty = xp.empty(0, dtype=xp.int64)
    u = xp.concatenate(edges_u) if edges_u else empty
    v = xp.concatenate(edges_v) if edges_v else empty
    roots = component_roots(n, u, v, xp)
    ids = xp.arange(n, dtype=xp.int64)
    is_root = core & (roots == ids)
    rank = xp.cumsum(is_root.astype(xp.int64)) - 1  # clusters numbered by their smallest core point
    labels = xp.where(core, rank[roots], -1)
    bi = xp.concatenate(border_i) if border_i else empty
    bj = xp.concatenate(border_j) if border_j else empty
    if bi.shape[0]:
        nearest = xp.full(n, n, dtype=xp.int64)
        scatter_min(nearest, bi, labels[bj], xp)  # the first cluster to reach a border point keeps it
        labels = xp.where(~core & (nearest < n), nearest, labels)
    return labels.astype(xp.int64), core


class DBSCAN(DeviceEstimatorMixin, ClusterMixin, BaseEstimator):
    """Density-based clustering (``sklearn.cluster.DBSCAN``): clusters of core points, border points, noise (-1).

    Parameters
    ----------
    eps : float, default=0.5
    min_samples : int, default=5
    metric : str or callable, default='euclidean'
        euclidean, manhattan, chebyshev, minkowski, cosine and precomputed (and their aliases) run on the device;
        other metrics find the neighbourhoods on the host with scikit-learn.
    metric_params : dict, default=None
    algorithm : {'auto', 'ball_tree', 'kd_tree', 'brute'}, default='auto'
        Accepted; the device chooses its own search (see the module docstring).
    leaf_size : int, default=30
    p : float, default=None
        Power of the minkowski metric (2 when None).
    n_jobs : int, default=None
        Accepted for compatibility.

    Attributes
    ----------
    core_sample_indices_ : array of shape (n_core_samples,)
    components_ : array of shape (n_core_samples, n_features)
    labels_ : array of shape (n_samples,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.cluster import DBSCAN
    >>> X = np.array([[1, 2], [2, 2], [2, 3], [8, 7], [8, 8], [25, 80]])
    >>> clustering = DBSCAN(eps=3, min_samples=2).fit(X)
    >>> clustering.labels_.tolist()
    [0, 0, 0, 1, 1, -1]
    """

    _parameter_constraints: dict = {
        "eps": [Interval(Real, 0.0, None, closed="neither")],
        "min_samples": [Interval(Integral, 1, None, closed="left")],
        "metric": [StrOptions(set(_VALID_METRICS) | {"precomputed"}), callable],
        "metric_params": [dict, None],
        "algorithm": [StrOptions({"auto", "ball_tree", "kd_tree", "brute"})],
        "leaf_size": [Interval(Integral, 1, None, closed="left")],
        "p": [Interval(Real, 0.0, None, closed="left"), None],
        "n_jobs": [Integral, None],
    }

    def __init__(self, eps=0.5, *, min_samples=5, metric="euclidean", metric_params=None, algorithm="auto",
                 leaf_size=30, p=None, n_jobs=None):  # fmt: skip
        self.eps = eps
        self.min_samples = min_samples
        self.metric = metric
        self.metric_params = metric_params
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.p = p
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None, sample_weight=None):
        """Perform DBSCAN clustering from features, or a distance matrix (``metric='precomputed'``)."""
        X_given = X
        from scipy.sparse import issparse

        if issparse(X):  # sparse features or a sparse precomputed graph: scikit-learn's DBSCAN on the host
            return self._fit_on_host(X, sample_weight)
        X, xp = validate_data(self, X, reset=True)
        weight = check_sample_weight(sample_weight, X.shape[0], np.float64, xp)
        metric = resolve_metric(self.metric, self.p, self.metric_params)
        Xf = X.astype(xp.float64, copy=False)
        if metric is not None and metric.name == "precomputed" and not _check_precomputed(Xf, xp):
            metric = None  # scikit-learn raises its own error for this matrix
        if metric is None:
            host = _host_pairs(self, host_form(X), xp)
            pairs = lambda: host  # noqa: E731
        else:
            pairs = lambda: radius_pairs(Xf, float(self.eps), metric, xp)  # noqa: E731
        labels, core = dbscan_labels(pairs, X.shape[0], weight, self.min_samples, xp)
        self.core_sample_indices_ = xp.flatnonzero(core).astype(xp.int64)
        self.labels_ = labels
        if self.core_sample_indices_.shape[0]:
            self.components_ = X[self.core_sample_indices_].copy()
        else:
            self.components_ = xp.empty((0, X.shape[1]))
        return self._publish(X_given)

    def _fit_on_host(self, X: Any, sample_weight: Any) -> DBSCAN:
        from sklearn.cluster import DBSCAN as SkDBSCAN

        model = SkDBSCAN(**self.get_params()).fit(X, sample_weight=host_form(sample_weight))
        for name in ("n_features_in_", "feature_names_in_", "core_sample_indices_", "components_", "labels_"):
            if hasattr(model, name):
                setattr(self, name, getattr(model, name))
        return self

    def fit_predict(self, X, y=None, sample_weight=None):
        """Compute the clustering and return each sample's cluster (-1 for noise)."""
        return self._output(self.fit(X, sample_weight=sample_weight).labels_, X, method="predict")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.sparse = True
        return tags

