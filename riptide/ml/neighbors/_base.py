"""What every riptide neighbours estimator shares: fitting (validation, metric resolution), k-neighbours and
radius searches, and their sparse graphs.

scikit-learn's ``NeighborsBase`` chooses a KD tree or a ball tree for low-dimensional data; on a GPU an exact brute
force over blocks (:mod:`riptide.ml.neighbors._brute`) is faster for any dimension, so every ``algorithm``
(``'auto'``, ``'brute'``, ``'kd_tree'``, ``'ball_tree'``) is accepted, validated as scikit-learn validates it (a
metric a tree does not support is still an error) and runs the brute force: the neighbours are the same exact
ones (the order inside a tie of equal distances is by index; a tree's tie order is its own). ``leaf_size`` and
``n_jobs`` are accepted and have no effect.

Results follow the input (see :mod:`riptide.ml._validation`): a query on the device gives CuPy arrays and
``cupyx.scipy.sparse`` CSR graphs; host queries give NumPy arrays and ``scipy.sparse`` CSR graphs, as
scikit-learn. ``X=None`` queries the fitted rows themselves and answers in the form of the data given to ``fit``.
``radius_neighbors`` returns scikit-learn's ragged result, a NumPy object array of one array per query (an object
array cannot live on the device: for device queries it holds CuPy views of one device array); the graph form
(``radius_neighbors_graph``) is the efficient one on the GPU.
"""

from __future__ import annotations

import numbers
import types
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, MultiOutputMixin
from sklearn.neighbors import VALID_METRICS
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from riptide import _device
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import FLOAT_DTYPES, input_namespace, validate_data
from riptide.ml.neighbors import _brute

__all__ = ["NeighborsBase", "KNeighborsMixin", "RadiusNeighborsMixin"]

_ALL_METRICS = set().union(*VALID_METRICS.values())
_CACHE = "_riptide_neighbors_cache"  # the fitted rows prepared for the metric: device arrays, never pickled


class NeighborsBase(DeviceEstimatorMixin, MultiOutputMixin, BaseEstimator):
    """Fitting and metric resolution shared by the neighbours estimators."""

    _parameter_constraints: dict = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left"), None],
        "radius": [Interval(Real, 0, None, closed="both"), None],
        "algorithm": [StrOptions({"auto", "ball_tree", "kd_tree", "brute"})],
        "leaf_size": [Interval(Integral, 1, None, closed="left")],
        "p": [Interval(Real, 0, None, closed="right"), None],
        "metric": [StrOptions(_ALL_METRICS), callable],
        "metric_params": [dict, None],
        "n_jobs": [Integral, None],
    }

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state.pop(_CACHE, None)
        return state

    # ------------------------------------------------------------------ fit

    def _check_algorithm_metric(self) -> None:
        """scikit-learn's checks of the metric against the algorithm, then riptide's supported metrics."""
        if callable(self.metric):
            if self.algorithm == "kd_tree":
                raise ValueError(f"kd_tree does not support callable metric '{self.metric}'Function call overhead "
                                 "will resultin very poor performance.")  # fmt: skip
            raise NotImplementedError("riptide.ml.neighbors does not support a callable metric; use "
                                      "sklearn.neighbors")  # fmt: skip
        if self.algorithm == "auto":
            alg_check = "brute" if self.metric == "precomputed" or self.metric not in VALID_METRICS["ball_tree"] \
                else "ball_tree"  # fmt: skip
        else:
            alg_check = self.algorithm
        if self.metric not in VALID_METRICS[alg_check]:
            raise ValueError(f"Metric '{self.metric}' not valid. Use sorted(sklearn.neighbors.VALID_METRICS"
                             f"['{alg_check}']) to get valid options. Metric can also be a callable function.")
        if self.metric not in _brute.CANONICAL:
            raise NotImplementedError(f"metric={self.metric!r} is not supported by riptide.ml.neighbors (supported: "
                                      f"{sorted(_brute.CANONICAL)}); use sklearn.neighbors")  # fmt: skip
        if self.metric_params is not None and "p" in self.metric_params and self.p is not None:
            warnings.warn("Parameter p is found in metric_params. The corresponding parameter from __init__ is "
                          "ignored.", SyntaxWarning, stacklevel=3)  # fmt: skip

    def _resolve_metric(self) -> None:
        """``effective_metric_`` and ``effective_metric_params_`` as scikit-learn sets them."""
        params = {} if self.metric_params is None else dict(self.metric_params)
        effective_p = params.get("p", self.p)
        if self.metric == "minkowski":
            params["p"] = effective_p
        metric = self.metric
        if self.metric == "minkowski":
            p = params.pop("p", 2)
            w = params.pop("w", None)
            if p == 1 and w is None:
                metric = "manhattan"
            elif p == 2 and w is None:
                metric = "euclidean"
            elif p == np.inf and w is None:
                metric = "chebyshev"
            else:
                params["p"] = p
                params["w"] = w
        self.effective_metric_ = metric
        self.effective_metric_params_ = params
        if metric == "minkowski" and params["p"] < 1:
            if self.algorithm in ("kd_tree", "ball_tree"):
                raise ValueError(f'algorithm="{self.algorithm}" does not support 0 < p < 1 for the Minkowski '
                                 'metric. To resolve this problem either set p >= 1 or algorithm="brute".')
            warnings.warn("Mind that for 0 < p < 1, Minkowski metrics are not distance metrics. Continuing the "
                          "execution with `algorithm='brute'`.")  # fmt: skip
        if metric == "minkowski" and params.get("w") is not None and self.algorithm == "kd_tree":
            raise ValueError("algorithm='kd_tree' is not valid for metric='minkowski' with a weight parameter 'w': "
                             "try algorithm='ball_tree' or algorithm='brute' instead.")  # fmt: skip

    def _fit_rows(self, X_given: Any, X: Any) -> None:
        """Keep the validated fitted rows (``X``, in the compute namespace)."""
        self._check_algorithm_metric()
        self._resolve_metric()
        self._metric = _brute.Metric.from_effective(self.effective_metric_, self.effective_metric_params_)
        self._fit_X = X
        self._fit_method = "brute"
        self._fit_on_device = input_namespace(X_given) is not None
        self.n_samples_fit_ = X.shape[0]
        # the fitted rows prepared for queries of their own type (norms, scaled rows), made once here so that a
        # query does not change the estimator; other queries prepare them on the fly
        xp = _device.namespace_of(X)
        dtype = _brute.common_dtype(X.dtype, X.dtype, self._metric)
        self.__dict__[_CACHE] = {(dtype.name, xp.__name__): _brute.Side(X, self._metric, dtype, xp)}

    # ------------------------------------------------------------------ queries

    def _fitted_rows(self, xp: types.ModuleType) -> Any:
        return _device.to_device(self._fit_X, xp)

    def _query(self, X: Any) -> tuple[Any, bool, types.ModuleType]:
        """Validated queries (the fitted rows for ``X=None``), whether they are the fitted rows, and xp."""
        check_is_fitted(self)
        if X is None:
            xp = _device.namespace_of(self._fit_X)
            return self._fit_X, True, xp
        A, xp = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES)
        return A, False, xp

    def _sides(self, Q: Any, xp: types.ModuleType) -> tuple[_brute.Side, _brute.Side, np.dtype]:
        """The prepared queries and fitted rows (cached per metric and type), and the distances' type."""
        Y = self._fitted_rows(xp)
        metric = self._metric
        dtype = _brute.common_dtype(Q.dtype, Y.dtype, metric)
        fitted = self.__dict__.get(_CACHE, {}).get((dtype.name, xp.__name__))
        if fitted is None:  # another type or device than the fitted rows', or an unpickled estimator
            fitted = _brute.Side(Y, metric, dtype, xp)
        queries = fitted if Q is self._fit_X else _brute.Side(Q, metric, dtype, xp, getattr(fitted, "center", None))
        return queries, fitted, _brute.result_dtype(Q.dtype, Y.dtype, metric)

    def _out(self, result: Any, X: Any) -> Any:
        """A result in the form the caller expects (``X=None``: the form of the data given to ``fit``)."""
        if X is None:
            return result if self._fit_on_device else _device.to_host(result)
        return self._output(result, X, method="kneighbors")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.input_tags.pairwise = self.metric == "precomputed"
        return tags


class KNeighborsMixin:
    """k-nearest-neighbour searches and their graph."""

    def _kneighbors(self, X: Any, n_neighbors: Any, return_distance: bool) -> tuple[Any, Any, Any]:
        """``(distances or None, indices, xp)`` in the compute namespace; scikit-learn's checks and its handling
        of ``X=None`` (each fitted row is not its own neighbour)."""
        check_is_fitted(self)
        if n_neighbors is None:
            n_neighbors = self.n_neighbors
        elif n_neighbors <= 0:
            raise ValueError("Expected n_neighbors > 0. Got %d" % n_neighbors)
        elif not isinstance(n_neighbors, numbers.Integral):
            raise TypeError("n_neighbors does not take %s value, enter integer value" % type(n_neighbors))
        Q, query_is_train, xp = self._query(X)
        if query_is_train:
            n_neighbors += 1  # the row itself comes back and is removed below
        n_samples_fit = self.n_samples_fit_
        if n_neighbors > n_samples_fit:
            if query_is_train:
                n_neighbors -= 1
                inequality = "n_neighbors < n_samples_fit"
            else:
                inequality = "n_neighbors <= n_samples_fit"
            raise ValueError(f"Expected {inequality}, but n_neighbors = {n_neighbors}, n_samples_fit = "
                             f"{n_samples_fit}, n_samples = {Q.shape[0]}")  # fmt: skip
        queries, fitted, dtype = self._sides(Q, xp)
        surrogate, ind = _brute.kneighbors(queries, fitted, int(n_neighbors), self._metric, dtype, xp)
        if query_is_train:
            # scikit-learn's rule: drop the row itself; when duplicates fill all k + 1 places, drop the first
            n_queries = Q.shape[0]
            keep = ind != xp.arange(n_queries, dtype=ind.dtype)[:, None]
            no_self = keep.all(axis=1)
            keep[:, 0] &= ~no_self
            cols = xp.nonzero(keep)[1].reshape(n_queries, n_neighbors - 1)
            ind = xp.take_along_axis(ind, cols, axis=1)
            surrogate = xp.take_along_axis(surrogate, cols, axis=1)
        dist = _brute.finish(surrogate, self._metric, xp) if return_distance else None
        return dist, ind, xp

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """The k nearest fitted rows of each query: ``(distances, indices)``, or the indices alone.

        >>> from riptide.ml.neighbors import NearestNeighbors
        >>> nn = NearestNeighbors(n_neighbors=1).fit([[0.0, 0.0, 0.0], [0.0, 0.5, 0.0], [1.0, 1.0, 0.5]])
        >>> dist, ind = nn.kneighbors([[1.0, 1.0, 1.0]])
        >>> dist.tolist(), ind.tolist()
        ([[0.5]], [[2]])
        """
        dist, ind, _ = self._kneighbors(X, n_neighbors, return_distance)
        if return_distance:
            return self._out(dist, X), self._out(ind, X)
        return self._out(ind, X)

    def kneighbors_graph(self, X=None, n_neighbors=None, mode="connectivity"):
        """The k-neighbours graph: a CSR matrix ``(n_queries, n_samples_fit)`` of ones or distances.

        >>> from riptide.ml.neighbors import NearestNeighbors
        >>> NearestNeighbors(n_neighbors=2).fit([[0], [3], [1]]).kneighbors_graph([[0], [3], [1]]).toarray()
        array([[1., 0., 1.],
               [0., 1., 1.],
               [1., 0., 1.]])
        """
        check_is_fitted(self)
        if n_neighbors is None:
            n_neighbors = self.n_neighbors
        if mode not in ("connectivity", "distance"):
            raise ValueError('Unsupported mode, must be one of "connectivity", or "distance" but got '
                             f'"{mode}" instead')  # fmt: skip
        dist, ind, xp = self._kneighbors(X, n_neighbors, mode == "distance")
        n_queries, k = ind.shape
        data = xp.ones(n_queries * k, dtype=xp.float64) if dist is None else dist.ravel()
        indptr = xp.arange(0, n_queries * k + 1, k, dtype=xp.int64)
        return _csr(data, ind.ravel(), indptr, (n_queries, self.n_samples_fit_), self._device_result(X, xp))

    def _device_result(self, X: Any, xp: types.ModuleType) -> bool:
        if xp is np:
            return False
        return self._fit_on_device if X is None else input_namespace(X) is not None


class RadiusNeighborsMixin:
    """Searches for the neighbours within a radius, and their graph."""

    def _radius(self, X: Any, radius: Any, sort_results: bool) -> tuple[Any, Any, Any, Any, bool]:
        """``(rows, indices, distances, xp, query_is_train)`` of every pair within the radius, row by row."""
        Q, query_is_train, xp = self._query(X)
        if radius is None:
            radius = self.radius
        queries, fitted, dtype = self._sides(Q, xp)
        r_surrogate = _brute.to_surrogate(float(radius), self._metric)
        rows, cols, surrogate = _brute.radius_neighbors(queries, fitted, r_surrogate, self._metric, dtype, xp,
                                                        sort_results)  # fmt: skip
        if query_is_train:  # each fitted row is not its own neighbour
            keep = cols != rows
            rows, cols, surrogate = rows[keep], cols[keep], surrogate[keep]
        return rows, cols, _brute.finish(surrogate, self._metric, xp), xp, Q.shape[0]

    def radius_neighbors(self, X=None, radius=None, return_distance=True, sort_results=False):
        """The fitted rows within ``radius`` of each query (boundary included): ``(distances, indices)`` as
        object arrays of one array per query, or the indices alone; by increasing index unless ``sort_results``.

        >>> from riptide.ml.neighbors import NearestNeighbors
        >>> nn = NearestNeighbors(radius=1.6).fit([[0.0, 0.0, 0.0], [0.0, 0.5, 0.0], [1.0, 1.0, 0.5]])
        >>> dist, ind = nn.radius_neighbors([[1.0, 1.0, 1.0]])
        >>> dist[0].tolist(), ind[0].tolist()
        ([1.5, 0.5], [1, 2])
        """
        check_is_fitted(self)
        if sort_results and not return_distance:
            raise ValueError("return_distance must be True if sort_results is True.")
        rows, cols, dist, xp, n_queries = self._radius(X, radius, sort_results)
        indptr = _brute.indptr_of(rows, n_queries, xp)
        on_device = self._device_result(X, xp)
        ind = _ragged(cols, indptr, on_device)
        if return_distance:
            return _ragged(dist, indptr, on_device), ind
        return ind

    def radius_neighbors_graph(self, X=None, radius=None, mode="connectivity", sort_results=False):
        """The radius-neighbours graph: a CSR matrix ``(n_queries, n_samples_fit)`` of ones or distances.

        >>> from riptide.ml.neighbors import NearestNeighbors
        >>> NearestNeighbors(radius=1.5).fit([[0], [3], [1]]).radius_neighbors_graph([[0], [3], [1]]).toarray()
        array([[1., 0., 1.],
               [0., 1., 0.],
               [1., 0., 1.]])
        """
        check_is_fitted(self)
        if mode not in ("connectivity", "distance"):
            raise ValueError('Unsupported mode, must be one of "connectivity", or "distance" but got '
                             f'"{mode}" instead')  # fmt: skip
        rows, cols, dist, xp, n_queries = self._radius(X, radius, sort_results and mode == "distance")
        data = dist if mode == "distance" else xp.ones(cols.shape[0], dtype=xp.float64)
        indptr = _brute.indptr_of(rows, n_queries, xp)
        return _csr(data, cols, indptr, (n_queries, self.n_samples_fit_), self._device_result(X, xp))


def _ragged(values: Any, indptr: Any, on_device: bool) -> np.ndarray:
    """scikit-learn's ragged result: a NumPy object array holding one array per row (CuPy views on the device)."""
    bounds = _device.to_host(indptr)  # one small read: the row boundaries define the Python-level result
    if not on_device:
        values = _device.to_host(values)
    out = np.empty(bounds.shape[0] - 1, dtype=object)
    for i in range(out.shape[0]):  # the ragged API is one array per query: unavoidable
        out[i] = values[bounds[i] : bounds[i + 1]]
    return out


def _csr(data: Any, indices: Any, indptr: Any, shape: tuple[int, int], on_device: bool) -> Any:
    """A CSR matrix: ``cupyx.scipy.sparse`` for device results, else scikit-learn's host form."""
    if on_device:
        from cupyx.scipy import sparse as device_sparse

        # cupyx's CSR holds int32 indices and row pointers
        return device_sparse.csr_matrix((data, indices.astype(np.int32), indptr.astype(np.int32)), shape=shape)
    from scipy.sparse import csr_array
    from sklearn.utils._sparse import _align_api_if_sparse

    host = _device.to_host
    return _align_api_if_sparse(csr_array((host(data), host(indices), host(indptr)), shape=shape))
