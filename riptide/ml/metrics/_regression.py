"""Regression metrics: R^2, mean squared error, mean absolute error.

One pass on the device gives a few numbers per output (weighted sums of squared or absolute residuals, and of
squared deviations from the weighted mean); scikit-learn's own rules then combine those ``n_outputs`` numbers
(``multioutput``, ``force_finite``), so the special cases (constant targets, one sample) are scikit-learn's.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn import metrics as _skm
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics._regression import _assemble_fraction_of_explained_deviance, _check_reg_targets
from sklearn.utils._param_validation import StrOptions, validate_params

from riptide import _device
from riptide._device import namespace_of
from riptide.ml import _kernels as ml_kernels
from riptide.ml.metrics._common import device_values, fallback, on_device, result_array, weights

__all__ = ["r2_score", "mean_squared_error", "mean_absolute_error"]

_PARAMS = {
    "y_true": ["array-like"],
    "y_pred": ["array-like"],
    "sample_weight": ["array-like", None],
    "multioutput": [StrOptions({"raw_values", "uniform_average"}), "array-like"],
}


def _reg_targets(y_true, y_pred, sample_weight, multioutput) -> tuple | None:
    """(xp, out, Y_true, Y_pred (2-D float64), weights or None, multioutput) or None for the host path."""
    out = on_device(y_true, y_pred, sample_weight)
    if out is None:
        _, yt, yp, sw, multioutput = _check_reg_targets(y_true, y_pred, sample_weight, multioutput)
        xp = _device.xp()
        w = None if sample_weight is None else _device.to_device(np.asarray(sw, dtype=np.float64), xp)
        return (xp, None, _device.to_device(yt, xp).astype(xp.float64), _device.to_device(yp, xp).astype(xp.float64),
                w, multioutput)  # fmt: skip
    xp = out
    yt, yp = device_values(y_true, xp), device_values(y_pred, xp)
    if yt is None or yp is None or yt.ndim not in (1, 2) or yp.ndim not in (1, 2) or yt.shape[0] == 0:
        return None
    yt = yt.reshape(yt.shape[0], -1).astype(xp.float64)
    yp = yp.reshape(yp.shape[0], -1).astype(xp.float64)
    if yt.shape != yp.shape:
        return None
    w = weights(sample_weight, yt.shape[0], xp)
    if w is False:
        return None
    if not isinstance(multioutput, str):
        multioutput = np.asarray(_device.to_host(multioutput) if _device.is_device_array(multioutput) else multioutput)
        if yt.shape[1] == 1 or multioutput.shape != (yt.shape[1],):
            return None
    finite = xp.isfinite(yt).all() & xp.isfinite(yp).all()
    if w is not None:
        finite &= xp.isfinite(w).all()
    if not bool(finite):  # one scalar read: scikit-learn's NaN/inf error comes from the host path
        return None
    return xp, out, yt, yp, w, multioutput


def _weighted_sum(values: Any, w: Any) -> Any:
    return ml_kernels.column_totals(values, namespace_of(values)) if w is None else w @ values


def _mean_error(sk_metric: Any, residual: Any, y_true, y_pred, sample_weight, multioutput) -> Any:
    """The (weighted) mean of ``residual(y_true - y_pred)`` per output, combined by ``multioutput``."""
    t = _reg_targets(y_true, y_pred, sample_weight, multioutput)
    if t is None:
        return fallback(sk_metric, y_true, y_pred, sample_weight=sample_weight, multioutput=multioutput)
    xp, out, yt, yp, w, multioutput = t
    errors = residual(yt - yp, xp)
    if w is None:
        per_output = _device.to_host(ml_kernels.column_means(errors, xp))  # one read of n_outputs numbers
    else:
        sums = _device.to_host(xp.concatenate([w @ errors, w.sum()[None]]))  # one read: n_outputs sums, the total
        per_output = sums[:-1] / float(sums[-1])
    if isinstance(multioutput, str):
        if multioutput == "raw_values":
            return result_array(per_output, out)
        return float(np.average(per_output))
    return float(np.average(per_output, weights=multioutput))


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
def mean_squared_error(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"):
    """Mean squared error (``sklearn.metrics.mean_squared_error``).

    >>> mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.375
    """
    return _mean_error(_skm.mean_squared_error, lambda diff, xp: diff**2, y_true, y_pred, sample_weight,
                       multioutput)  # fmt: skip


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
def mean_absolute_error(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"):
    """Mean absolute error (``sklearn.metrics.mean_absolute_error``).

    >>> mean_absolute_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """
    return _mean_error(_skm.mean_absolute_error, lambda diff, xp: xp.abs(diff), y_true, y_pred, sample_weight,
                       multioutput)  # fmt: skip


@validate_params({**_PARAMS, "multioutput": [StrOptions({"raw_values", "uniform_average", "variance_weighted"}),
                                              "array-like", None], "force_finite": ["boolean"]},
                 prefer_skip_nested_validation=True)  # fmt: skip
def r2_score(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average", force_finite=True):
    """Coefficient of determination R^2 (``sklearn.metrics.r2_score``).

    >>> r2_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.9486081370449679
    """
    t = _reg_targets(y_true, y_pred, sample_weight, multioutput)
    if t is None:
        return fallback(_skm.r2_score, y_true, y_pred, sample_weight=sample_weight, multioutput=multioutput,
                        force_finite=force_finite)  # fmt: skip
    xp, out, yt, yp, w, multioutput = t
    if yt.shape[0] < 2:
        warnings.warn("R^2 score is not well-defined with less than two samples.", UndefinedMetricWarning)
        return float("nan")
    mean = ml_kernels.column_means(yt, xp) if w is None else (w @ yt) / w.sum()
    sums = xp.stack([_weighted_sum((yt - yp) ** 2, w), _weighted_sum((yt - mean) ** 2, w)])
    numerator, denominator = _device.to_host(sums)  # one read of 2 x n_outputs numbers
    result = _assemble_fraction_of_explained_deviance(numerator=numerator, denominator=denominator,
                                                      n_outputs=yt.shape[1], multioutput=multioutput,
                                                      force_finite=force_finite, xp=np, device="cpu")  # fmt: skip
    return result_array(result, out) if isinstance(result, np.ndarray) else float(result)
