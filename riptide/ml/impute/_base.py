"""SimpleImputer: column statistics of the observed values and the fill, on the device.

The class is scikit-learn's (a subclass): parameters, validation messages, ``get_feature_names_out`` and the
fitted ``indicator_`` (a ``MissingIndicator``) are its own. For numeric input the row-wise work runs on the device:

* the missing mask is ``isnan(X)`` (``missing_values=np.nan``) or ``X == missing_values``;
* ``'mean'``: masked column sums over counts; ``'median'``: the missing cells become NaN and the column medians
  come from one column-wise sort (:func:`riptide.ml.preprocessing._data.nan_quantiles`); ``'most_frequent'``: per
  column, a sort of the observed values and the longest run (ties go to the smallest value, as scikit-learn);
  ``'constant'``: ``fill_value``;
* ``transform`` is one ``where`` per call, columns without any observed value dropped (with scikit-learn's
  warning) unless ``keep_empty_features``; ``add_indicator`` appends the mask of the features that had missing
  values in fit. ``indicator_`` is fitted by scikit-learn on the one-row summary "has a missing value" per
  feature, which is all that ``MissingIndicator(features='missing-only')`` keeps.

Object/string input (pandas object or mixed frames, string arrays, lists), ``pd.NA`` as ``missing_values``, a
callable ``strategy`` and sparse input go through scikit-learn's own code on the host.
"""

from __future__ import annotations

import numbers
import types
import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn import impute as _ski
from sklearn.base import _fit_context
from sklearn.utils.validation import check_is_fitted

from riptide import _device
from riptide.ml import _kernels as ml_kernels
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import FLOAT_DTYPES, _plain_numeric, host_form, input_namespace, validate_data
from riptide.ml.preprocessing._data import nan_quantiles

__all__ = ["SimpleImputer"]


def _numeric_input(X: Any) -> bool:
    """Can X be validated as a numeric matrix without going through object dtype?"""
    from riptide.frame import DataFrame

    if isinstance(X, DataFrame):
        return all(_plain_numeric(c) for c in X._data.values())
    if input_namespace(X) is not None:
        return X.dtype.kind in "biuf"
    if isinstance(X, np.ndarray):
        return X.dtype.kind in "biuf"
    if isinstance(X, pd.DataFrame):
        return all(isinstance(d, np.dtype) and d.kind in "biuf" for d in X.dtypes)
    return False


def _mode_of_column(values: Any, xp: types.ModuleType) -> Any:
    """The most frequent of ``values`` (the smallest among ties) as a 0-d array; NaN for no values."""
    if values.shape[0] == 0:
        return xp.asarray(np.nan)
    ordered = xp.sort(values)
    starts = xp.ones(ordered.shape[0], dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    run = xp.cumsum(starts) - 1
    counts = xp.bincount(run)
    best = xp.argmax(counts)  # the first longest run: the smallest value among ties
    first_of_run = xp.flatnonzero(starts)
    return ordered[first_of_run[best]].astype(np.float64)


class SimpleImputer(DeviceEstimatorMixin, _ski.SimpleImputer):
    """Replace missing values with a per-column statistic or a constant (``sklearn.impute.SimpleImputer``).

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.impute import SimpleImputer
    >>> imp = SimpleImputer(strategy="mean").fit(np.array([[1.0, np.nan], [3.0, 4.0]]))
    >>> imp.statistics_.tolist(), imp.transform(np.array([[np.nan, np.nan]])).tolist()
    ([2.0, 4.0], [[2.0, 4.0]])
    """

    def _device_path(self, X: Any) -> bool:
        if callable(self.strategy) or not _numeric_input(X):
            return False
        return not (self.missing_values is pd.NA or self.missing_values is None)

    def _validate_device(self, X: Any, in_fit: bool) -> tuple[Any, types.ModuleType]:
        nan_missing = isinstance(self.missing_values, float) and np.isnan(self.missing_values)
        dtype = FLOAT_DTYPES if self.strategy in ("mean", "median") else None
        A, xp = validate_data(self, X, reset=in_fit, dtype=dtype, allow_nan=nan_missing)
        if in_fit:
            self._fit_dtype = A.dtype
        if not isinstance(self.missing_values, numbers.Real):
            raise ValueError("'X' and 'missing_values' types are expected to be both numerical. Got "
                             f"X.dtype={A.dtype} and  type(missing_values)={type(self.missing_values)}.")  # fmt: skip
        if self.strategy == "constant":
            if in_fit and self.fill_value is not None:
                source = type(self.fill_value)
                message = (f"fill_value={self.fill_value!r} (of type {source!r}) cannot be cast to the input data "
                           f"that is {A.dtype!r}. If fill_value is a Python scalar, instead pass  a numpy scalar "
                           "(e.g. fill_value=np.uint8(0) if your data is of type np.uint8). Make sure that both "
                           "dtypes are of the same kind.")  # fmt: skip
            elif not in_fit:
                source = self._fill_dtype
                message = (f"The dtype of the filling value (i.e. {source!r}) cannot be cast to the input data "
                           f"that is {A.dtype!r}. Make sure that the dtypes of the input data are of the same "
                           "kind between fit and transform.")  # fmt: skip
            else:
                source, message = A.dtype, ""
            if not np.can_cast(source, A.dtype, casting="same_kind"):
                raise ValueError(message)
        return A, xp

    def _missing(self, A: Any, xp: types.ModuleType) -> Any:
        if isinstance(self.missing_values, float) and np.isnan(self.missing_values):
            return xp.isnan(A) if A.dtype.kind == "f" else xp.zeros(A.shape, dtype=bool)
        return A == self.missing_values

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the fill value of each column."""
        if not self._device_path(X):
            self._host_input = True
            return super().fit(host_form(X))
        self._host_input = False
        X_given = X
        A, xp = self._validate_device(X, in_fit=True)
        fill_value = 0 if self.fill_value is None else self.fill_value
        self._fill_dtype = A.dtype
        missing = self._missing(A, xp)
        n_missing = ml_kernels.column_counts(missing, xp)  # one coalesced pass on the GPU
        if self.add_indicator:
            self.indicator_ = _ski.MissingIndicator(missing_values=self.missing_values, error_on_new=False)
            summary = _device.to_host(n_missing > 0)[None, :]  # one row: which features have missing values
            self.indicator_._fit(summary, precomputed=True)
        else:
            self.indicator_ = None
        n_observed = A.shape[0] - n_missing
        empty_fill = 0.0 if self.keep_empty_features else np.nan
        if self.strategy == "mean":
            sums = ml_kernels.column_totals(xp.where(missing, 0, A), xp)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = sums / n_observed
            self.statistics_ = xp.where(n_observed == 0, empty_fill, mean)  # float64, as scikit-learn's
        elif self.strategy == "median":
            masked = xp.where(missing, xp.asarray(np.nan, dtype=A.dtype), A)
            median = nan_quantiles(masked, [0.5], xp)[0]
            self.statistics_ = xp.where(n_observed == 0, A.dtype.type(empty_fill), median)
        elif self.strategy == "most_frequent":
            observed = ~missing
            modes = [_mode_of_column(A[:, j][observed[:, j]], xp) for j in range(A.shape[1])]
            stats = xp.stack(modes) if modes else xp.zeros(0, dtype=np.float64)
            self.statistics_ = xp.where(n_observed == 0, empty_fill, stats)
        else:
            statistics = np.full(A.shape[1], fill_value, dtype=object)
            if not self.keep_empty_features:
                statistics[_device.to_host(n_observed == 0)] = np.nan
            self.statistics_ = statistics
        return self._publish(X_given)

    def transform(self, X):
        """Fill the missing values of X (and append the missing indicator)."""
        check_is_fitted(self)
        if getattr(self, "_host_input", True) or not self._device_path(X):
            return _to_namespace(super().transform(host_form(X)), X)
        A, xp = self._validate_device(X, in_fit=False)
        missing = self._missing(A, xp)
        statistics = self.statistics_
        if statistics.dtype == object:  # 'constant': a host object array of the fill value (and NaN)
            empty = np.array([isinstance(v, float) and np.isnan(v) for v in statistics], dtype=bool)
            values = np.where(empty, 0, statistics)
            stats = _device.to_device(values.astype(self._fill_dtype), xp)
        else:
            stats = self._fitted("statistics_", xp)
            empty = _device.to_host(xp.isnan(stats)) if stats.dtype.kind == "f" else np.zeros(stats.shape, bool)
            stats = xp.where(xp.isnan(stats), 0, stats).astype(self._fill_dtype)
        filled = xp.where(missing, stats[None, :].astype(A.dtype), A)
        if not self.keep_empty_features and empty.any():
            invalid = np.flatnonzero(empty)
            if hasattr(self, "feature_names_in_"):
                invalid = self.feature_names_in_[invalid]
            warnings.warn(f"Skipping features without any observed values: {invalid}. At least one non-missing "
                          f"value is needed for imputation with strategy='{self.strategy}'.")  # fmt: skip
            filled = filled[:, _device.to_device(np.flatnonzero(~empty), xp)]
        if self.add_indicator:
            features = self.indicator_.features_
            indicator = missing[:, _device.to_device(features, xp)] if features.size < A.shape[1] else missing
            filled = xp.concatenate([filled, indicator.astype(filled.dtype)], axis=1)
        return self._output(filled, X)

    def fit_transform(self, X, y=None, **fit_params):
        """Fit, then fill the missing values of X."""
        return self.fit(X, y).transform(X)

    def get_feature_names_out(self, input_features=None):
        """Output feature names: the kept input features, then the indicator's (from host copies)."""
        from sklearn.utils._mask import _get_mask
        from sklearn.utils.validation import _check_feature_names_in

        check_is_fitted(self, "n_features_in_")
        input_features = _check_feature_names_in(self, input_features)
        names = input_features[np.logical_not(_get_mask(_device.to_host(self.statistics_), np.nan))]
        return self._concatenate_indicator_feature_names_out(names, input_features)

    def inverse_transform(self, X):
        """Put the missing values back where the indicator says (on the host, with host copies of the fit)."""
        check_is_fitted(self)
        twin = _ski.SimpleImputer(**self.get_params())
        for name, value in vars(self).items():
            setattr(twin, name, _device.to_host(value) if _device.is_device_array(value) else value)
        return _to_namespace(twin.inverse_transform(host_form(X)), X)


def _to_namespace(result: Any, X: Any) -> Any:
    xp = input_namespace(X)
    if xp is None or xp is np or not isinstance(result, np.ndarray) or result.dtype == object:
        return result
    return _device.to_device(result, xp)
