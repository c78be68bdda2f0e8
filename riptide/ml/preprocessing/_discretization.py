"""KBinsDiscretizer: bin edges from device statistics, binning by ``searchsorted`` on the device.

The class is scikit-learn's (a subclass): parameters, ``n_bins`` validation, warnings and feature names are its
own. The per-row work runs where the data lives:

* ``'uniform'``: each column's minimum and maximum (one read of ``2 x n_features`` numbers), ``linspace`` on the
  host.
* ``'quantile'``: the columns are sorted once on the device. For the quantile methods scikit-learn offers by
  default (``'averaged_inverted_cdf'``, ``'inverted_cdf'``, ``'linear'``) the order statistics NumPy would read
  depend only on the sample count, so they are worked out on the host, gathered from the sorted columns (a few
  rows) and interpolated with NumPy's own formula: the same edges as ``numpy.percentile``. Other quantile methods
  and weighted quantiles (``sample_weight``) are computed by NumPy/scikit-learn on a host copy of the (subsampled)
  data.
* ``'kmeans'``: riptide's :class:`~riptide.ml.cluster.KMeans` on each column, started from the same uniform
  centers as scikit-learn's.
* ``subsample``: the rows are drawn by scikit-learn's ``resample`` on the host (same draws for the same
  ``random_state``) and gathered on the device.
* ``transform``: ``searchsorted(edges[1:-1], column, side='right')`` per column; ``encode='onehot'`` then uses
  riptide's :class:`OneHotEncoder` (CSR for ``'onehot'``, dense for ``'onehot-dense'``).
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np
from sklearn import preprocessing as _skp
from sklearn.base import _fit_context
from sklearn.utils import resample
from sklearn.utils.stats import _weighted_percentile
from sklearn.utils.validation import check_is_fitted

from riptide import _device
from riptide.core.ops.quantile import _lerp
from riptide.ml import _kernels as ml_kernels
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import check_input, check_sample_weight, validate_data

__all__ = ["KBinsDiscretizer"]

_GATHERED_METHODS = ("linear", "inverted_cdf", "averaged_inverted_cdf")


def _order_statistics(n: int, levels: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sorted positions ``(below, above)`` and weights ``t`` with which ``numpy.percentile(a, levels,
    method=method)`` interpolates ``a_sorted[below] .. a_sorted[above]`` for ``len(a) == n``."""
    q = np.asarray(levels, dtype=np.float64) / 100.0
    if method == "inverted_cdf":
        virtual = n * q - 1
        below = np.floor(virtual)
        index = np.where(virtual - below == 0, below, below + 1).astype(np.intp)
        index[index < 0] = 0
        return index, index, np.zeros(q.shape)
    virtual = (n - 1) * q if method == "linear" else n * q - 1
    below = np.floor(virtual)
    t = virtual - below
    if method == "averaged_inverted_cdf":
        t = np.where(t == 0, 0.5, 1.0)
    above = below + 1
    beyond = virtual >= n - 1
    below[beyond] = above[beyond] = n - 1
    before = virtual < 0
    below[before] = above[before] = 0
    return below.astype(np.intp), above.astype(np.intp), t


class KBinsDiscretizer(DeviceEstimatorMixin, _skp.KBinsDiscretizer):
    """Bin continuous data into intervals (``sklearn.preprocessing.KBinsDiscretizer``).

    ``bin_edges_`` is a NumPy object array of host edge arrays, as scikit-learn's (a few numbers per feature).

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.preprocessing import KBinsDiscretizer
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> kb = KBinsDiscretizer(n_bins=2, encode="ordinal", strategy="uniform").fit(X)
    >>> kb.bin_edges_[0].tolist(), kb.transform(X).ravel().tolist()
    ([0.0, 1.5, 3.0], [0.0, 0.0, 1.0, 1.0])
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Compute the bin edges of each feature."""
        A, xp = validate_data(self, X, reset=True, dtype="numeric")
        output_dtype = self.dtype if self.dtype in (np.float64, np.float32) else A.dtype
        n_samples, n_features = A.shape
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, n_samples, A.dtype, xp)
        if self.subsample is not None and n_samples > self.subsample:
            rows = resample(np.arange(n_samples), replace=True, n_samples=self.subsample,
                            random_state=self.random_state,
                            sample_weight=None if sample_weight is None else _device.to_host(sample_weight))
            A = A[_device.to_device(rows, xp)]
            sample_weight = None
        n_bins = self._validate_n_bins(n_features)
        method = self.quantile_method
        if self.strategy == "quantile" and method not in ("inverted_cdf", "averaged_inverted_cdf") \
                and sample_weight is not None:  # fmt: skip
            raise ValueError("When fitting with strategy='quantile' and sample weights, quantile_method should "
                             "either be set to 'averaged_inverted_cdf' or 'inverted_cdf', got "
                             f"quantile_method='{method}' instead.")  # fmt: skip
        if self.strategy != "quantile" and sample_weight is not None:
            considered = A[sample_weight != 0]
        else:
            considered = A
        low_high = _device.to_host(xp.stack(ml_kernels.column_extrema(considered, xp)))  # one small read
        edges = np.zeros(n_features, dtype=object)
        ordered = None
        for jj in range(n_features):
            col_min, col_max = low_high[0, jj], low_high[1, jj]
            if col_min == col_max:
                warnings.warn("Feature %d is constant and will be replaced with 0." % jj)
                n_bins[jj] = 1
                edges[jj] = np.array([-np.inf, np.inf])
                continue
            if self.strategy == "uniform":
                edges[jj] = np.linspace(col_min, col_max, n_bins[jj] + 1)
            elif self.strategy == "quantile":
                levels = np.linspace(0, 100, n_bins[jj] + 1)
                if sample_weight is not None:
                    edges[jj] = _weighted_percentile(_device.to_host(A[:, jj]), _device.to_host(sample_weight), levels,
                                                     average=method == "averaged_inverted_cdf")  # fmt: skip
                elif method in _GATHERED_METHODS:
                    if ordered is None:
                        ordered = xp.sort(A, axis=0)  # one sort for all the columns
                    below, above, t = _order_statistics(A.shape[0], levels, method)
                    a = _device.to_host(ordered[_device.to_device(below, xp), jj]).astype(np.float64)
                    b = _device.to_host(ordered[_device.to_device(above, xp), jj]).astype(np.float64)
                    edges[jj] = np.asarray(_lerp(a, b, t, np), dtype=np.float64)
                else:
                    edges[jj] = np.asarray(np.percentile(_device.to_host(A[:, jj]), levels, method=method),
                                           dtype=np.float64)  # fmt: skip
            else:
                edges[jj] = self._kmeans_edges(A[:, jj], sample_weight, n_bins[jj], col_min, col_max, xp)
            if self.strategy in ("quantile", "kmeans"):
                keep = np.ediff1d(edges[jj], to_begin=np.inf) > 1e-8
                edges[jj] = edges[jj][keep]
                if len(edges[jj]) - 1 != n_bins[jj]:
                    warnings.warn("Bins whose width are too small (i.e., <= 1e-8) in feature %d are removed. "
                                  "Consider decreasing the number of bins." % jj)  # fmt: skip
                    n_bins[jj] = len(edges[jj]) - 1
        self.bin_edges_ = edges
        self.n_bins_ = n_bins
        if "onehot" in self.encode:
            from riptide.ml.preprocessing._encoders import OneHotEncoder

            self._encoder = OneHotEncoder(categories=[np.arange(i) for i in self.n_bins_],
                                          sparse_output=self.encode == "onehot", dtype=output_dtype)  # fmt: skip
            self._encoder.fit(np.zeros((1, len(self.n_bins_))))
        return self

    @staticmethod
    def _kmeans_edges(column: Any, sample_weight: Any, k: int, col_min: float, col_max: float,
                      xp: types.ModuleType) -> np.ndarray:  # fmt: skip
        from riptide.ml.cluster import KMeans

        uniform = np.linspace(col_min, col_max, k + 1)
        init = (uniform[1:] + uniform[:-1])[:, None] * 0.5
        km = KMeans(n_clusters=k, init=_device.to_device(init, xp), n_init=1)
        centers = np.sort(_device.to_host(km.fit(column[:, None], sample_weight=sample_weight).cluster_centers_[:, 0]))
        return np.r_[col_min, (centers[1:] + centers[:-1]) * 0.5, col_max]

    def transform(self, X):
        """The bin number of each value (one-hot encoded unless ``encode='ordinal'``)."""
        check_is_fitted(self)
        dtype = (np.float64, np.float32) if self.dtype is None else self.dtype
        A, xp = validate_data(self, X, reset=False, dtype=dtype)
        columns = []
        for jj in range(A.shape[1]):
            inner = _device.to_device(np.ascontiguousarray(self.bin_edges_[jj][1:-1]), xp)
            columns.append(xp.searchsorted(inner, A[:, jj], side="right").astype(A.dtype))
        binned = xp.stack(columns, axis=1) if columns else A
        if self.encode == "ordinal":
            return self._output(binned, X)
        saved = self._encoder.dtype
        self._encoder.dtype = binned.dtype
        try:
            encoded = self._encoder.transform(binned)
        finally:
            self._encoder.dtype = saved
        if self.encode == "onehot":
            if _device.is_device_array(binned) and _is_host_input(X):
                return _device.sparse_to_host(encoded) if hasattr(encoded, "get") else _device.to_host(encoded)
            return encoded
        return self._output(encoded, X)

    def inverse_transform(self, X):
        """The center of each value's bin."""
        check_is_fitted(self)
        if "onehot" in self.encode:
            X = self._encoder.inverse_transform(X)
        A, xp = check_input(X, dtype=(np.float64, np.float32))
        n_features = self.n_bins_.shape[0]
        if A.shape[1] != n_features:
            raise ValueError(f"Incorrect number of features. Expecting {n_features}, received {A.shape[1]}.")
        columns = []
        for jj in range(n_features):
            edges = self.bin_edges_[jj]
            centers = _device.to_device((edges[1:] + edges[:-1]) * 0.5, xp).astype(A.dtype)
            columns.append(centers[A[:, jj].astype(np.int64)])
        return self._output(xp.stack(columns, axis=1), X, method="inverse_transform")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


def _is_host_input(X: Any) -> bool:
    from riptide.ml._validation import input_namespace

    return input_namespace(X) is None
