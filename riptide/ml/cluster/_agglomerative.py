"""Agglomerative clustering (``sklearn.cluster.AgglomerativeClustering``); single linkage's tree on the device.

**Single linkage** (euclidean, no connectivity constraint) is the minimum spanning tree's dendrogram: the tree is
built on the device by Boruvka's algorithm (:func:`~riptide.ml.cluster._neighbourhood.mutual_reachability_mst`
with zero core distances: a CUDA pass over all pairs per round on the GPU, blocked GEMMs in the xp twin, O(n)
memory, about ``log2 n`` rounds), which is where all the O(n^2 d) work is. The ``n - 1`` edges then come to the host, are oriented as scikit-learn's Prim's algorithm from sample 0
records them (a breadth-first walk, which decides the left/right order of ``children_``), sorted stably by
weight, and turned into the merge list by scikit-learn's own union-find (``single_linkage_label``); the flat
labels are scikit-learn's ``_hc_cut``. ``children_``, ``distances_`` and ``labels_`` equal scikit-learn's when
the MST is unique (no two pairs at exactly the same distance); with ties the merges at one height may come in
another order (same heights, same clusters below and above them).

**Ward, complete and average linkage**, a connectivity constraint, other metrics and ``memory`` run scikit-learn's
own ``AgglomerativeClustering`` on a host copy: their merge loops are sequential (nearest-neighbour chain, one
Lance-Williams update per merge) and a device version would be a chain of ``n`` small kernels with a host round
trip each, no faster than SciPy's compiled loop for the moderate sizes these methods are used at.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.cluster._agglomerative import _TREE_BUILDERS, _hc_cut
from sklearn.metrics.pairwise import _VALID_METRICS
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from riptide import _device
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import host_form, validate_data
from riptide.ml.cluster._neighbourhood import mutual_reachability_mst, prim_orientation

__all__ = ["AgglomerativeClustering"]

_FITTED = ("n_features_in_", "feature_names_in_", "children_", "n_connected_components_", "n_leaves_",
           "distances_", "n_clusters_", "labels_")  # fmt: skip


def _single_linkage_merges(u: np.ndarray, v: np.ndarray, w: np.ndarray, n: int) -> np.ndarray:
    """scikit-learn's single-linkage merge list ``(a, b, distance, size)`` from the MST edges (host arrays)."""
    from sklearn.cluster._hierarchical_fast import single_linkage_label

    u, v = prim_orientation(u, v, n)  # as scikit-learn's Prim's algorithm from sample 0 records the edges
    mst = np.column_stack([u, v, w]).astype(np.float64)
    mst = mst[np.argsort(mst[:, 2], kind="mergesort")]
    return single_linkage_label(mst)


class AgglomerativeClustering(DeviceEstimatorMixin, ClusterMixin, BaseEstimator):
    """Agglomerative clustering (``sklearn.cluster.AgglomerativeClustering``).

    Parameters
    ----------
    n_clusters : int or None, default=2
    metric : str or callable, default='euclidean'
    memory : str or object with the joblib.Memory interface, default=None
    connectivity : array-like, sparse matrix or callable, default=None
    compute_full_tree : 'auto' or bool, default='auto'
    linkage : {'ward', 'complete', 'average', 'single'}, default='ward'
        'single' with the euclidean metric and no connectivity builds its tree on the device; the others run
        scikit-learn on the host (see the module docstring).
    distance_threshold : float, default=None
    compute_distances : bool, default=False

    Attributes
    ----------
    n_clusters_ : int
    labels_ : ndarray of shape (n_samples,)
    n_leaves_ : int
    n_connected_components_ : int
    children_ : ndarray of shape (n_samples - 1, 2)
    distances_ : ndarray of shape (n_samples - 1,), with ``distance_threshold`` or ``compute_distances``
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.cluster import AgglomerativeClustering
    >>> X = np.array([[1, 2], [1, 4], [1, 0], [4, 2], [4, 4], [4, 0]])
    >>> AgglomerativeClustering(linkage="single").fit(X).labels_.tolist()
    [1, 1, 1, 0, 0, 0]
    """

    _parameter_constraints: dict = {
        "n_clusters": [Interval(Integral, 1, None, closed="left"), None],
        "metric": [StrOptions(set(_VALID_METRICS) | {"precomputed"}), callable],
        "memory": [str, HasMethods("cache"), None],
        "connectivity": ["array-like", "sparse matrix", callable, None],
        "compute_full_tree": [StrOptions({"auto"}), "boolean"],
        "linkage": [StrOptions(set(_TREE_BUILDERS.keys()))],
        "distance_threshold": [Interval(Real, 0, None, closed="left"), None],
        "compute_distances": ["boolean"],
    }

    def __init__(self, n_clusters=2, *, metric="euclidean", memory=None, connectivity=None, compute_full_tree="auto",
                 linkage="ward", distance_threshold=None, compute_distances=False):  # fmt: skip
        self.n_clusters = n_clusters
        self.distance_threshold = distance_threshold
        self.memory = memory
        self.connectivity = connectivity
        self.compute_full_tree = compute_full_tree
        self.linkage = linkage
        self.metric = metric
        self.compute_distances = compute_distances

    def _on_device(self) -> bool:
        return (self.linkage == "single" and self.connectivity is None and self.memory is None
                and isinstance(self.metric, str) and self.metric in ("euclidean", "l2"))  # fmt: skip

    def _fit_on_host(self, X: Any) -> None:
        from sklearn.cluster import AgglomerativeClustering as SkAgglomerativeClustering

        model = SkAgglomerativeClustering(**self.get_params()).fit(host_form(X))
        for name in _FITTED:
            if hasattr(model, name):
                setattr(self, name, getattr(model, name))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the hierarchical clustering from features, or a distance matrix (``metric='precomputed'``)."""
        X_given = X
        if not self._on_device():
            self._fit_on_host(X)
            return self
        X, xp = validate_data(self, X, reset=True, ensure_min_samples=2)
        if not ((self.n_clusters is None) ^ (self.distance_threshold is None)):
            raise ValueError("Exactly one of n_clusters and distance_threshold has to be set, and the other needs "
                             "to be None.")  # fmt: skip
        if self.distance_threshold is not None and not self.compute_full_tree:
            raise ValueError("compute_full_tree must be True if distance_threshold is set.")
        n = X.shape[0]
        X = X.astype(xp.float64, copy=False)
        u, v, w = mutual_reachability_mst(X, xp.zeros(n, dtype=xp.float64), 1.0, xp)
        merges = _single_linkage_merges(*(_device.to_host(a) for a in (u, v, w)), n)  # one transfer: n - 1 edges
        self.children_ = merges[:, :2].astype(int, copy=False)
        self.n_connected_components_, self.n_leaves_ = 1, n
        if self.distance_threshold is not None or self.compute_distances:
            self.distances_ = merges[:, 2]
        if self.distance_threshold is not None:
            self.n_clusters_ = int(np.count_nonzero(self.distances_ >= self.distance_threshold)) + 1
        else:
            self.n_clusters_ = self.n_clusters
        self.labels_ = _device.to_device(_hc_cut(self.n_clusters_, self.children_, self.n_leaves_), xp)
        return self._publish(X_given)

    def fit_predict(self, X, y=None):
        """Fit and return each sample's cluster."""
        return self._output(self.fit(X).labels_, X, method="predict")
