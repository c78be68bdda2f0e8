"""Scalers: StandardScaler, MinMaxScaler, MaxAbsScaler, RobustScaler and Normalizer, statistics on the device.

Both are a handful of column reductions followed by one elementwise pass, so they are written directly against
``xp``. Statistics accumulate in float64 whatever the input dtype (as scikit-learn's ``_safe_accumulator_op``), and
``transform`` keeps float32 input float32. NaN is allowed, as in scikit-learn: ignored by ``fit``, kept by
``transform``. riptide never modifies its input in place; ``copy`` is accepted for compatibility.

RobustScaler's median and quantiles come from one column-wise sort on the device (NaN sorts last, so each column's
valid values are its first ``n_j`` entries) and NumPy's ``'linear'`` interpolation between the two neighbouring
order statistics, as ``numpy.nanpercentile``; no per-column host call. Sparse input is not accepted by these
scalers (scikit-learn's sparse paths are not implemented): a TypeError from scikit-learn's validation.
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from riptide.core.ops.quantile import _lerp
from riptide.ml import _kernels as ml_kernels
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import FLOAT_DTYPES, check_input, check_sample_weight, to_output, validate_data

__all__ = ["MaxAbsScaler", "MinMaxScaler", "Normalizer", "RobustScaler", "StandardScaler", "normalize"]


def _incremental_mean_and_var(X: Any, xp: types.ModuleType, last_mean: Any, last_var: Any, last_n: Any,
                              sample_weight: Any, with_var: bool) -> tuple[Any, Any, Any]:
    """Merge the NaN-ignoring (weighted) mean and variance of X's columns into running ones (Chan, Golub and
    LeVeque's pairwise update, as scikit-learn), all in float64."""
    f64 = xp.float64
    nan = xp.isnan(X)
    has_nan = bool(nan.any())  # one scalar read: skips the masked passes for NaN-free data
    Xz = xp.where(nan, 0, X) if has_nan else X
    if sample_weight is None:
        new_sum = ml_kernels.column_totals(Xz, xp)
        new_n = X.shape[0] - (ml_kernels.column_counts(nan, xp).astype(f64) if has_nan
                              else xp.zeros(X.shape[1], dtype=f64))  # fmt: skip
    else:
        w = sample_weight.astype(f64)
        new_sum = w @ Xz.astype(f64)
        new_n = w @ (~nan).astype(f64)
    n = last_n + new_n
    mean = (last_mean * last_n + new_sum) / n
    if not with_var:
        return mean, None, n
    with np.errstate(divide="ignore", invalid="ignore"):
        T = new_sum / new_n
        temp = X.astype(f64) - T
        if has_nan:
            temp = xp.where(nan, 0, temp)
        if sample_weight is None:
            correction = ml_kernels.column_totals(temp, xp)
            new_unnormalized = ml_kernels.column_totals(temp * temp, xp)
        else:
            correction = w @ temp
            new_unnormalized = w @ (temp * temp)
        new_unnormalized = new_unnormalized - correction**2 / new_n
        last_sum = last_mean * last_n
        ratio = last_n / new_n
        merged = last_var * last_n + new_unnormalized + ratio / n * (last_sum / ratio - new_sum) ** 2
    merged = xp.where(last_n == 0, new_unnormalized, merged)
    return mean, merged / n, n


def _center_scale(est: Any, X: Any, center: str | None, scale: str | None) -> Any:
    """transform of the centring scalers: ``(X - center) / scale`` with the named fitted arrays (None: step skipped)."""
    check_is_fitted(est)
    A, xp = validate_data(est, X, reset=False, dtype=FLOAT_DTYPES, allow_nan=True)
    if center:
        A = A - est._fitted(center, xp).astype(A.dtype)
    if scale:
        A = A / est._fitted(scale, xp).astype(A.dtype)
    return est._output(A, X)


def _uncenter_unscale(est: Any, X: Any, center: str | None, scale: str | None) -> Any:
    """inverse_transform of the centring scalers: ``X * scale + center`` (None: step skipped)."""
    check_is_fitted(est)
    A, xp = check_input(X, dtype=FLOAT_DTYPES, allow_nan=True)
    if scale:
        A = A * est._fitted(scale, xp).astype(A.dtype)
    if center:
        A = A + est._fitted(center, xp).astype(A.dtype)
    return est._output(A, X, method="inverse_transform")


class StandardScaler(DeviceEstimatorMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Standardize features by removing the mean and scaling to unit variance (``sklearn.preprocessing.StandardScaler``).

    Parameters
    ----------
    copy : bool, default=True
        Accepted for compatibility; riptide never scales in place.
    with_mean : bool, default=True
        Center the data before scaling.
    with_std : bool, default=True
        Scale the data to unit variance.

    Attributes
    ----------
    scale_ : array of shape (n_features,) or None
    mean_ : array of shape (n_features,) or None
    var_ : array of shape (n_features,) or None
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
    n_samples_seen_ : float or array of shape (n_features,)

    Examples
    --------
    >>> from riptide.ml.preprocessing import StandardScaler
    >>> scaler = StandardScaler().fit([[0, 0], [0, 0], [1, 1], [1, 1]])
    >>> scaler.mean_.tolist()
    [0.5, 0.5]
    >>> scaler.transform([[2, 2]]).tolist()
    [[3.0, 3.0]]
    """

    _parameter_constraints: dict = {"copy": ["boolean"], "with_mean": ["boolean"], "with_std": ["boolean"]}

    def __init__(self, *, copy=True, with_mean=True, with_std=True):
        self.with_mean = with_mean
        self.with_std = with_std
        self.copy = copy

    def _reset(self) -> None:
        for name in ("scale_", "n_samples_seen_", "mean_", "var_"):
            if hasattr(self, name):
                delattr(self, name)

    def fit(self, X, y=None, sample_weight=None):
        """Compute the mean and standard deviation of each feature."""
        self._reset()
        return self.partial_fit(X, y, sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None, sample_weight=None):
        """Update the mean and standard deviation with one more batch of samples."""
        X_given = X
        first_call = not hasattr(self, "n_samples_seen_")
        X, xp = validate_data(self, X, reset=first_call, dtype=FLOAT_DTYPES, allow_nan=True)
        n_features = X.shape[1]
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X.shape[0], X.dtype, xp)
        f64 = xp.float64
        last_n = xp.zeros(n_features, dtype=f64) if first_call else xp.broadcast_to(
            xp.asarray(self._fitted("n_samples_seen_", xp), dtype=f64), (n_features,))  # fmt: skip
        if not self.with_mean and not self.with_std:
            self.mean_ = self.var_ = None
            # scikit-learn counts non-NaN values here even when weighted (only the count's dtype changes)
            count_dtype = xp.int64 if sample_weight is None else X.dtype
            seen = (last_n + (X.shape[0] - ml_kernels.column_counts(xp.isnan(X), xp))).astype(count_dtype)
        else:
            last_mean = 0.0 if first_call else self._fitted("mean_", xp)
            last_var = 0.0 if first_call or self.var_ is None else self._fitted("var_", xp)
            self.mean_, self.var_, seen = _incremental_mean_and_var(X, xp, last_mean, last_var, last_n,
                                                                    sample_weight, self.with_std)  # fmt: skip
        if bool(seen.max() == seen.min()):  # one scalar read: a common count is stored as a scalar, as sklearn
            seen = np.dtype(seen.dtype).type(seen[0].item())
        self.n_samples_seen_ = seen
        if self.with_std:
            var, mean = self.var_, self.mean_
            eps = np.finfo(np.float64).eps
            n = xp.asarray(seen, dtype=f64)
            constant = var <= n * eps * var + (n * mean * eps) ** 2
            self.scale_ = xp.where(constant, 1.0, xp.sqrt(var))
        else:
            self.scale_ = None
        return self._publish(X_given)

    def transform(self, X, copy=None):
        """Center and scale X with the fitted statistics."""
        return _center_scale(self, X, "mean_" if self.with_mean else None, "scale_" if self.with_std else None)

    def inverse_transform(self, X, copy=None):
        """Scale back to the original representation."""
        return _uncenter_unscale(self, X, "mean_" if self.with_mean else None, "scale_" if self.with_std else None)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


class MinMaxScaler(DeviceEstimatorMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Scale each feature to a given range (``sklearn.preprocessing.MinMaxScaler``).

    Parameters
    ----------
    feature_range : tuple (min, max), default=(0, 1)
    copy : bool, default=True
        Accepted for compatibility; riptide never scales in place.
    clip : bool, default=False
        Clip transformed values of held-out data to ``feature_range``.

    Attributes
    ----------
    min_, scale_, data_min_, data_max_, data_range_ : arrays of shape (n_features,)
    n_samples_seen_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> from riptide.ml.preprocessing import MinMaxScaler
    >>> scaler = MinMaxScaler().fit([[-1, 2], [-0.5, 6], [0, 10], [1, 18]])
    >>> scaler.data_max_.tolist()
    [1.0, 18.0]
    >>> scaler.transform([[2, 2]]).tolist()
    [[1.5, 0.0]]
    """

    _parameter_constraints: dict = {"feature_range": [tuple], "copy": ["boolean"], "clip": ["boolean"]}

    def __init__(self, feature_range=(0, 1), *, copy=True, clip=False):
        self.feature_range = feature_range
        self.copy = copy
        self.clip = clip

    def _reset(self) -> None:
        for name in ("scale_", "min_", "n_samples_seen_", "data_min_", "data_max_", "data_range_"):
            if hasattr(self, name):
                delattr(self, name)

    def fit(self, X, y=None):
        """Compute each feature's minimum and maximum."""
        self._reset()
        return self.partial_fit(X, y)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Update the minimum and maximum with one more batch of samples."""
        low, high = self.feature_range
        if low >= high:
            raise ValueError("Minimum of desired feature range must be smaller than maximum. Got %s."
                             % str(self.feature_range))  # fmt: skip
        X_given = X
        first_pass = not hasattr(self, "n_samples_seen_")
        X, xp = validate_data(self, X, reset=first_pass, dtype=FLOAT_DTYPES, allow_nan=True)
        with np.errstate(invalid="ignore"):
            data_min, data_max = ml_kernels.column_extrema(X, xp, skipna=True)  # one coalesced pass on the GPU
        if first_pass:
            self.n_samples_seen_ = X.shape[0]
        else:
            data_min = xp.minimum(self._fitted("data_min_", xp), data_min)
            data_max = xp.maximum(self._fitted("data_max_", xp), data_max)
            self.n_samples_seen_ += X.shape[0]
        data_range = data_max - data_min
        safe_range = _zeros_to_one(data_range, xp).astype(X.dtype)
        self.scale_ = (X.dtype.type(high) - X.dtype.type(low)) / safe_range
        self.min_ = X.dtype.type(low) - data_min * self.scale_
        self.data_min_ = data_min
        self.data_max_ = data_max
        self.data_range_ = data_range
        return self._publish(X_given)

    def transform(self, X):
        """Scale X to ``feature_range``."""
        check_is_fitted(self)
        A, xp = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES, allow_nan=True)
        A = A * self._fitted("scale_", xp).astype(A.dtype) + self._fitted("min_", xp).astype(A.dtype)
        if self.clip:
            A = xp.clip(A, A.dtype.type(self.feature_range[0]), A.dtype.type(self.feature_range[1]))
        return self._output(A, X)

    def inverse_transform(self, X):
        """Undo the scaling."""
        check_is_fitted(self)
        A, xp = check_input(X, dtype=FLOAT_DTYPES, allow_nan=True)
        A = (A - self._fitted("min_", xp).astype(A.dtype)) / self._fitted("scale_", xp).astype(A.dtype)
        return self._output(A, X, method="inverse_transform")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def _zeros_to_one(scale: Any, xp: types.ModuleType) -> Any:
    """scikit-learn's ``_handle_zeros_in_scale``: scales below 10 eps (near-constant features) become 1."""
    return xp.where(scale < 10 * np.finfo(scale.dtype).eps, scale.dtype.type(1), scale)


def nan_quantiles(X: Any, qs: list[float], xp: types.ModuleType) -> list[Any]:
    """Column-wise ``numpy.nanquantile(X, q, axis=0)`` ('linear') for each q in qs, from one sort on the device.

    >>> [q.tolist() for q in nan_quantiles(np.array([[1.0, np.nan], [3.0, 2.0], [2.0, np.nan]]), [0.5, 1.0], np)]
    [[2.0, 2.0], [3.0, 2.0]]
    """
    ordered = xp.sort(X, axis=0)  # NaN last in NumPy and CuPy
    n_valid = X.shape[0] - ml_kernels.column_counts(xp.isnan(X), xp) if X.dtype.kind == "f" \
        else xp.full(X.shape[1], X.shape[0])  # fmt: skip
    last = xp.maximum(n_valid - 1, 0)
    out = []
    for q in qs:
        position = q * last.astype(np.float64)
        below = xp.floor(position).astype(np.int64)
        above = xp.minimum(below + 1, last)
        t = (position - below).astype(X.dtype)
        a = xp.take_along_axis(ordered, below[None, :], axis=0)[0]
        b = xp.take_along_axis(ordered, above[None, :], axis=0)[0]
        value = _lerp(a, b, t, xp)
        out.append(xp.where(n_valid == 0, xp.asarray(np.nan, dtype=X.dtype), value))
    return out


class MaxAbsScaler(DeviceEstimatorMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Scale each feature by its maximum absolute value (``sklearn.preprocessing.MaxAbsScaler``).

    Attributes
    ----------
    scale_, max_abs_ : arrays of shape (n_features,)
    n_samples_seen_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> from riptide.ml.preprocessing import MaxAbsScaler
    >>> MaxAbsScaler().fit_transform([[1.0, -4.0], [-2.0, 2.0]]).tolist()
    [[0.5, -1.0], [-1.0, 0.5]]
    """

    _parameter_constraints: dict = {"copy": ["boolean"]}

    def __init__(self, *, copy=True):
        self.copy = copy

    def _reset(self) -> None:
        for name in ("scale_", "n_samples_seen_", "max_abs_"):
            if hasattr(self, name):
                delattr(self, name)

    def fit(self, X, y=None):
        """Compute each feature's maximum absolute value."""
        self._reset()
        return self.partial_fit(X, y)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Update the maximum absolute values with one more batch of samples."""
        X_given = X
        first_pass = not hasattr(self, "n_samples_seen_")
        X, xp = validate_data(self, X, reset=first_pass, dtype=FLOAT_DTYPES, allow_nan=True)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column has a NaN maximum, as sklearn
            max_abs = ml_kernels.column_extrema(xp.abs(X), xp, skipna=True)[1]
        if first_pass:
            self.n_samples_seen_ = X.shape[0]
        else:
            max_abs = xp.maximum(self._fitted("max_abs_", xp), max_abs)
            self.n_samples_seen_ += X.shape[0]
        self.max_abs_ = max_abs
        self.scale_ = _zeros_to_one(max_abs, xp)
        return self._publish(X_given)

    def transform(self, X):
        """Scale X by the fitted maximum absolute values."""
        return _center_scale(self, X, None, "scale_")

    def inverse_transform(self, X):
        """Scale back to the original representation."""
        return _uncenter_unscale(self, X, None, "scale_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


class RobustScaler(DeviceEstimatorMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Scale features with statistics robust to outliers: median and interquantile range
    (``sklearn.preprocessing.RobustScaler``). The quantiles are computed on the device (module docstring).

    Attributes
    ----------
    center_ : array of shape (n_features,) or None
    scale_ : array of shape (n_features,) or None
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> from riptide.ml.preprocessing import RobustScaler
    >>> scaler = RobustScaler().fit([[1.0], [2.0], [3.0], [4.0], [100.0]])
    >>> scaler.center_.tolist(), scaler.scale_.tolist()
    ([3.0], [2.0])
    """

    _parameter_constraints: dict = {
        "with_centering": ["boolean"],
        "with_scaling": ["boolean"],
        "quantile_range": [tuple],
        "copy": ["boolean"],
        "unit_variance": ["boolean"],
    }

    def __init__(self, *, with_centering=True, with_scaling=True, quantile_range=(25.0, 75.0), copy=True,
                 unit_variance=False):  # fmt: skip
        self.with_centering = with_centering
        self.with_scaling = with_scaling
        self.quantile_range = quantile_range
        self.unit_variance = unit_variance
        self.copy = copy

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the median and the quantile range of each feature."""
        X_given = X
        X, xp = validate_data(self, X, reset=True, dtype=FLOAT_DTYPES, allow_nan=True)
        q_min, q_max = self.quantile_range
        if not 0 <= q_min <= q_max <= 100:
            raise ValueError("Invalid quantile range: %s" % str(self.quantile_range))
        self.center_ = nan_quantiles(X, [0.5], xp)[0] if self.with_centering else None
        if self.with_scaling:
            # numpy.nanpercentile with float64 percentiles promotes float32 data: scale_ is float64, as sklearn's
            low, high = nan_quantiles(X.astype(np.float64), [q_min / 100.0, q_max / 100.0], xp)
            if X.dtype == np.float32 and bool(xp.isnan(X).all()):  # one scalar read: NumPy's all-NaN quirk
                low, high = low.astype(np.float32), high.astype(np.float32)  # (an all-NaN slice keeps float32)
            self.scale_ = _zeros_to_one(high - low, xp)
            if self.unit_variance:
                from scipy import stats

                adjust = stats.norm.ppf(q_max / 100.0) - stats.norm.ppf(q_min / 100.0)
                self.scale_ = self.scale_ / adjust
        else:
            self.scale_ = None
        return self._publish(X_given)

    def transform(self, X):
        """Center and scale X."""
        return _center_scale(self, X, "center_" if self.with_centering else None,
                             "scale_" if self.with_scaling else None)  # fmt: skip

    def inverse_transform(self, X):
        """Scale back to the original representation."""
        return _uncenter_unscale(self, X, "center_" if self.with_centering else None,
                                 "scale_" if self.with_scaling else None)  # fmt: skip

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def _normalize_rows(A: Any, norm: str, xp: types.ModuleType) -> tuple[Any, Any]:
    if norm == "l1":
        norms = xp.abs(A).sum(axis=1)
    elif norm == "l2":
        norms = xp.sqrt((A * A).sum(axis=1))
    else:
        norms = xp.abs(A).max(axis=1) if A.shape[1] else xp.zeros(A.shape[0], dtype=A.dtype)
    norms = _zeros_to_one(norms, xp)
    return A / norms[:, None], norms


def normalize(X, norm="l2", *, axis=1, copy=True, return_norm=False):
    """Scale samples (``axis=1``) or features (``axis=0``) to unit norm (``sklearn.preprocessing.normalize``).

    >>> normalize([[3.0, 4.0]]).tolist()
    [[0.6, 0.8]]
    """
    if norm not in ("l1", "l2", "max"):
        raise ValueError(f"The 'norm' parameter of normalize must be a str among {{'l1', 'l2', 'max'}}. "
                         f"Got {norm!r} instead.")  # fmt: skip
    if axis not in (0, 1):
        raise ValueError(f"The 'axis' parameter of normalize must be an int among {{0, 1}}. Got {axis!r} instead.")
    A, xp = check_input(X, dtype=FLOAT_DTYPES, estimator="the normalize function")
    out, norms = _normalize_rows(A.T if axis == 0 else A, norm, xp)
    out = to_output(out.T if axis == 0 else out, X)
    return (out, to_output(norms, X)) if return_norm else out


class Normalizer(DeviceEstimatorMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Scale each sample to unit norm (``sklearn.preprocessing.Normalizer``).

    Examples
    --------
    >>> from riptide.ml.preprocessing import Normalizer
    >>> Normalizer(norm="l1").fit_transform([[1.0, 3.0], [0.0, 0.0]]).tolist()
    [[0.25, 0.75], [0.0, 0.0]]
    """

    _parameter_constraints: dict = {"norm": [StrOptions({"l1", "l2", "max"})], "copy": ["boolean"]}

    def __init__(self, norm="l2", *, copy=True):
        self.norm = norm
        self.copy = copy

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Validate X (the transformer is stateless)."""
        validate_data(self, X, reset=True, dtype=FLOAT_DTYPES)
        return self

    def transform(self, X, copy=None):
        """Scale each row of X to unit norm."""
        A, xp = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES)
        return self._output(_normalize_rows(A, self.norm, xp)[0], X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = False
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
