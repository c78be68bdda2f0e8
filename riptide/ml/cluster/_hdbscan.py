"""HDBSCAN (``sklearn.cluster.HDBSCAN``): core distances and the mutual-reachability MST on the device.

scikit-learn's HDBSCAN has two expensive parts and a cheap tail:

1. **Core distances**: each point's distance to its ``min_samples``-th nearest neighbour (itself included).
   Here :func:`~riptide.ml.cluster._neighbourhood.core_distances`: on the GPU one CUDA pass over all pairs (each
   thread keeps its row's ``k`` smallest squared distances, ``k <= 64``, ``d <= 32``); otherwise blocked GEMM
   distances, the ``k`` nearest candidates per row by ``argpartition``, their distances recomputed exactly from
   the differences (the same sums, in the same order, as the kernel's).
2. **The minimum spanning tree of the mutual-reachability graph** ``max(core_i, core_j, d(i, j) / alpha)``, which
   scikit-learn builds with Prim's algorithm (``n`` sequential passes over all points, O(n^2 d) on one core).
   Here Boruvka's algorithm (:func:`~riptide.ml.cluster._neighbourhood.mutual_reachability_mst`): every round,
   every component takes its lightest outgoing edge; components are merged by hooking and pointer jumping; about
   ``log2 n`` rounds. Each row's lightest edge to another component is one CUDA pass over all pairs on the GPU
   (exact distances, the other rows streamed through shared memory) and blocked GEMMs in the xp twin; neither
   holds O(n^2) memory. Ties go to the least ``(weight, min(i, j), max(i, j))``, a strict total order, so no
   round can close a cycle (a SciPy MST over the few collected edges is the safety net should GEMM rounding make
   two choices disagree).
3. **The tail**, O(n log n) on an ``n - 1``-edge tree: the edges sorted by weight (stable), the single-linkage
   tree (a union-find over the sorted edges), the condensed tree, the stability-based selection (``'eom'`` or
   ``'leaf'``, ``cluster_selection_epsilon``, ``max_cluster_size``, ``allow_single_cluster``) and the labels and
   probabilities. These are inherently sequential tree walks; they run on the host in scikit-learn's own compiled
   routines (``make_single_linkage``, ``tree_to_labels``, ``labelling_at_cut``), which also makes their
   tie-breaking scikit-learn's. The edges are first oriented as Prim's algorithm from point 0 records them (a
   breadth-first walk of the tree), which gives the clusters scikit-learn's numbering. Measured on the 2-core
   development host for an MST of 1e5 points in 10 dimensions: 0.48 s for the orientation, sort and single-linkage
   tree, 0.48 s for the condensed tree, selection and labels (no Python loop over points or merges).

Results equal scikit-learn's (labels with the same numbering, the same noise set, probabilities) whenever the
MST is unique, e.g. ``min_samples <= 2`` on continuous data. Mutual reachability creates exact ties (edges
weighing the same core distance); any MST then gives the same merge heights, but the order of merges at one
height, which the condensed tree sees, may differ from scikit-learn's Prim order, so a point at such a tie may
join the other of two clusters, and small leaf clusters may form differently (tests/ml/test_hdbscan.py measures
the agreement).

Rows with NaN or infinite values are set aside as scikit-learn does (labels -3 and -2); a device input (CuPy, a
riptide frame) with an infinite value is refused by riptide's device validation (scikit-learn's "Input X contains
infinity") rather than set aside. Metrics other than
euclidean, sparse input and ``metric='precomputed'`` run scikit-learn's HDBSCAN on a host copy (its results and
errors); ``algorithm='brute'`` keeps scikit-learn's brute-force semantics (distances divided by ``alpha`` before
the core distances are taken).
"""

from __future__ import annotations

import types
from numbers import Integral, Real
from typing import Any
from warnings import warn

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.cluster._hdbscan._linkage import MST_edge_dtype, make_single_linkage
from sklearn.cluster._hdbscan._tree import labelling_at_cut, tree_to_labels
from sklearn.cluster._hdbscan.hdbscan import _OUTLIER_ENCODING, FAST_METRICS, remap_single_linkage_tree
from sklearn.metrics.pairwise import _VALID_METRICS
from sklearn.utils._param_validation import Hidden, Interval, StrOptions
from sklearn.utils.validation import validate_data as _sk_validate_data

from riptide import _device
from riptide.ml import _kernels as ml_kernels
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import host_form, input_namespace, validate_data
from riptide.ml.cluster._neighbourhood import core_distances, mutual_reachability_mst, prim_orientation

__all__ = ["HDBSCAN"]

_HOST_ATTRIBUTES = ("labels_", "probabilities_", "centroids_", "medoids_", "_single_linkage_tree_")


def _single_linkage(u: Any, v: Any, w: Any) -> np.ndarray:
    """scikit-learn's single-linkage tree from MST edges (host arrays), sorted stably by weight, each edge first
    oriented as Prim's algorithm records it (:func:`prim_orientation`: the numbering of the clusters)."""
    u, v = prim_orientation(u, v, u.shape[0] + 1)
    mst = np.empty(u.shape[0], dtype=MST_edge_dtype)
    mst["current_node"], mst["next_node"], mst["distance"] = u, v, w
    mst = mst[np.argsort(w, kind="stable")]
    return make_single_linkage(mst)


class HDBSCAN(DeviceEstimatorMixin, ClusterMixin, BaseEstimator):
    """Hierarchical density-based clustering (``sklearn.cluster.HDBSCAN``).

    Parameters
    ----------
    min_cluster_size : int, default=5
    min_samples : int, default=None
    cluster_selection_epsilon : float, default=0.0
    max_cluster_size : int, default=None
    metric : str or callable, default='euclidean'
        euclidean runs on the device; other metrics run scikit-learn's HDBSCAN on the host.
    metric_params : dict, default=None
    alpha : float, default=1.0
    algorithm : {'auto', 'brute', 'kd_tree', 'ball_tree'}, default='auto'
    leaf_size : int, default=40
    n_jobs : int, default=None
    cluster_selection_method : {'eom', 'leaf'}, default='eom'
    allow_single_cluster : bool, default=False
    store_centers : {None, 'centroid', 'medoid', 'both'}, default=None
    copy : bool, default='warn'
        riptide never writes into X; the FutureWarning of scikit-learn 1.9 is repeated when it is not set.

    Attributes
    ----------
    labels_ : array of shape (n_samples,)
    probabilities_ : array of shape (n_samples,)
    centroids_, medoids_ : array of shape (n_clusters, n_features), with ``store_centers``
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.cluster import HDBSCAN
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [0.5, 0.5], [8, 8], [8, 9], [9, 8], [9, 9], [8.5, 8.5],
    ...               [30, -30]])
    >>> HDBSCAN(min_cluster_size=3, copy=False).fit(X).labels_.tolist()
    [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, -1]
    """

    _parameter_constraints = {
        "min_cluster_size": [Interval(Integral, left=2, right=None, closed="left")],
        "min_samples": [Interval(Integral, left=1, right=None, closed="left"), None],
        "cluster_selection_epsilon": [Interval(Real, left=0, right=None, closed="left")],
        "max_cluster_size": [None, Interval(Integral, left=1, right=None, closed="left")],
        "metric": [StrOptions(FAST_METRICS | set(_VALID_METRICS) | {"precomputed"}), callable],
        "metric_params": [dict, None],
        "alpha": [Interval(Real, left=0, right=None, closed="neither")],
        "algorithm": [StrOptions({"auto", "brute", "kd_tree", "ball_tree"})],
        "leaf_size": [Interval(Integral, left=1, right=None, closed="left")],
        "n_jobs": [Integral, None],
        "cluster_selection_method": [StrOptions({"eom", "leaf"})],
        "allow_single_cluster": ["boolean"],
        "store_centers": [None, StrOptions({"centroid", "medoid", "both"})],
        "copy": ["boolean", Hidden(StrOptions({"warn"}))],
    }

    def __init__(self, min_cluster_size=5, min_samples=None, cluster_selection_epsilon=0.0, max_cluster_size=None,
                 metric="euclidean", metric_params=None, alpha=1.0, algorithm="auto", leaf_size=40, n_jobs=None,
                 cluster_selection_method="eom", allow_single_cluster=False, store_centers=None,
                 copy="warn"):  # fmt: skip
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.alpha = alpha
        self.max_cluster_size = max_cluster_size
        self.cluster_selection_epsilon = cluster_selection_epsilon
        self.metric = metric
        self.metric_params = metric_params
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.n_jobs = n_jobs
        self.cluster_selection_method = cluster_selection_method
        self.allow_single_cluster = allow_single_cluster
        self.store_centers = store_centers
        self.copy = copy

    def _on_device(self, X: Any) -> bool:
        from scipy.sparse import issparse

        params = self.metric_params or {}
        return self.metric == "euclidean" and not issparse(X) and not (params.keys() - {"p"})

    def _fit_on_host(self, X: Any) -> None:
        """scikit-learn's HDBSCAN on a host copy: its results, warnings and errors."""
        from sklearn.cluster import HDBSCAN as SkHDBSCAN

        params = {**self.get_params(), "copy": True if self.copy == "warn" else self.copy}
        model = SkHDBSCAN(**params).fit(host_form(X))
        for name in ("n_features_in_", "feature_names_in_", "_min_samples", "_metric_params", *_HOST_ATTRIBUTES):
            if hasattr(model, name):
                setattr(self, name, getattr(model, name))

    def _validated(self, X: Any) -> tuple[Any, types.ModuleType]:
        """X as float64 in its compute namespace, NaN and infinite values allowed (scikit-learn's rule here)."""
        if input_namespace(X) is None:
            A = _sk_validate_data(self, X, ensure_all_finite=False, dtype=np.float64)
            xp = _device.xp()
            return _device.to_device(A, xp), xp
        A, xp = validate_data(self, X, reset=True, dtype=np.float64, allow_nan=True)
        return A, xp

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Find clusters based on hierarchical density-based clustering."""
        X_given = X
        if self.copy == "warn":
            warn("The default value of `copy` will change from False to True in 1.10. Explicitly set a value for "
                 "`copy` to silence this warning.", FutureWarning)  # fmt: skip
        if self.metric == "precomputed" and self.store_centers is not None:
            raise ValueError("Cannot store centers when using a precomputed distance matrix.")
        if not self._on_device(X):
            self._fit_on_host(X)
            return self
        self._metric_params = self.metric_params or {}
        X, xp = self._validated(X)
        n_all = X.shape[0]
        row_sums = X.sum(axis=1)
        finite = xp.isfinite(row_sums)
        all_finite = bool(finite.all())  # one scalar read: rows set aside or not
        if not all_finite:
            finite_index = xp.flatnonzero(finite)
            missing_index = xp.flatnonzero(xp.isnan(row_sums))
            infinite_index = xp.flatnonzero(xp.isinf(row_sums))
            X = X[finite_index]
        if X.shape[0] == 1:
            raise ValueError("n_samples=1 while HDBSCAN requires more than one sample")
        self._min_samples = self.min_cluster_size if self.min_samples is None else self.min_samples
        if self._min_samples > X.shape[0]:
            raise ValueError(f"min_samples ({self._min_samples}) must be at most the number of samples in X "
                             f"({X.shape[0]})")  # fmt: skip
        core = core_distances(X, self._min_samples, xp)
        if self.algorithm == "brute":  # scikit-learn divides the distance matrix by alpha before taking cores
            core = core / self.alpha
        u, v, w = mutual_reachability_mst(X, core, float(self.alpha), xp)
        tree = _single_linkage(*(_device.to_host(a) for a in (u, v, w)))  # one transfer: the n - 1 edges
        labels, probabilities = tree_to_labels(tree, self.min_cluster_size, self.cluster_selection_method,
                                               self.allow_single_cluster, self.cluster_selection_epsilon,
                                               self.max_cluster_size)  # fmt: skip
        if not all_finite:
            finite_host, infinite_host, missing_host = (_device.to_host(a) for a in (finite_index, infinite_index,
                                                                                      missing_index))  # fmt: skip
            tree = remap_single_linkage_tree(tree, dict(enumerate(finite_host.tolist())),
                                             non_finite=set(np.hstack([infinite_host, missing_host]).tolist()))
            new_labels = np.empty(n_all, dtype=np.int32)
            new_labels[finite_host] = labels
            new_labels[infinite_host] = _OUTLIER_ENCODING["infinite"]["label"]
            new_labels[missing_host] = _OUTLIER_ENCODING["missing"]["label"]
            new_probabilities = np.zeros(n_all, dtype=np.float64)
            new_probabilities[finite_host] = probabilities
            new_probabilities[infinite_host] = _OUTLIER_ENCODING["infinite"]["prob"]
            new_probabilities[missing_host] = _OUTLIER_ENCODING["missing"]["prob"]
            labels, probabilities = new_labels, new_probabilities
        self._single_linkage_tree_ = tree
        self.labels_ = _device.to_device(labels, xp)
        self.probabilities_ = _device.to_device(probabilities, xp)
        if self.store_centers:
            self._weighted_cluster_center(X, labels if all_finite else labels[finite_host],
                                          probabilities if all_finite else
                                          probabilities[finite_host], xp)  # fmt: skip
        return self._publish(X_given)

    def _weighted_cluster_center(self, X: Any, labels: np.ndarray, probabilities: np.ndarray,
                                 xp: types.ModuleType) -> None:  # fmt: skip
        """Centroids (probability-weighted means) and medoids of each cluster, on the device."""
        n_clusters = len(set(labels.tolist()) - {-1, -2})
        labels_d = _device.to_device(labels, xp)
        strength = _device.to_device(probabilities, xp)
        if self.store_centers in ("centroid", "both"):
            in_cluster = labels_d >= 0
            one_hot = (labels_d[:, None] == xp.arange(n_clusters)[None, :]) * strength[:, None] * in_cluster[:, None]
            self.centroids_ = (one_hot.T @ X) / ml_kernels.column_totals(one_hot, xp)[:, None]
        if self.store_centers in ("medoid", "both"):
            medoids = xp.empty((n_clusters, X.shape[1]), dtype=xp.float64)
            for idx in range(n_clusters):  # a loop over clusters (scikit-learn holds each cluster's distances too)
                rows = xp.flatnonzero(labels_d == idx)
                data = X[rows]
                sq = (data * data).sum(axis=1)
                dist = xp.sqrt(xp.maximum(sq[:, None] + sq[None, :] - 2 * (data @ data.T), 0))
                medoids[idx] = data[xp.argmin((dist * strength[rows][None, :]).sum(axis=1))]
            self.medoids_ = medoids

    def fit_predict(self, X, y=None):
        """Cluster X and return the cluster labels (-1 noise, -2 infinite rows, -3 rows with NaN)."""
        self.fit(X)
        return self._output(self.labels_, X, method="predict")

    def dbscan_clustering(self, cut_distance, min_cluster_size=5):
        """The DBSCAN* labels at a mutual-reachability ``cut_distance`` (scikit-learn's, from the fitted tree)."""
        labels = labelling_at_cut(self._single_linkage_tree_, cut_distance, min_cluster_size)
        fitted = _device.to_host(self.labels_)
        for kind in ("infinite", "missing"):
            labels[fitted == _OUTLIER_ENCODING[kind]["label"]] = _OUTLIER_ENCODING[kind]["label"]
        return labels if not _device.is_device_array(self.labels_) else _device.to_device(labels)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = self.metric != "precomputed"
        return tags
