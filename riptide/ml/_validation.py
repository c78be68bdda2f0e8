"""Input validation for riptide.ml: scikit-learn's ``check_array`` semantics for host and device inputs.

scikit-learn is the specification, so the simplest way to match its validation exactly is to *be* it where the
data is on the host: NumPy arrays, pandas objects and lists go through ``sklearn.utils.validation.validate_data``
unchanged (dtype rules, NaN/inf messages, 1-D vs 2-D, feature count and feature names), and the validated NumPy
array then moves to the compute device.

Device inputs (CuPy arrays, riptide DataFrames and Series) cannot go through scikit-learn without a copy to the
host, so their happy path is checked here on the device: shape, dtype (float32/float64 kept, everything else
becomes float64) and finiteness (one scalar read). Only when a check *fails* is the input copied to the host and
handed to scikit-learn, so that the exception raised is scikit-learn's own, word for word. A riptide DataFrame
with columns that are not plain numbers (nullable ``Int64``, text, categories) takes the host path as a whole,
through ``to_pandas()``, because that is what scikit-learn would see.

Where the work runs (the *compute namespace*):

* a CuPy array or a riptide object on the GPU: on the GPU, and results come back as CuPy arrays;
* a riptide object on the CPU: NumPy;
* NumPy, pandas, lists: on riptide's current device (``riptide._device.xp()``), and array results are copied
  back to NumPy, so host code sees host arrays, as with scikit-learn.

>>> import numpy as np
>>> from sklearn.base import BaseEstimator
>>> est = BaseEstimator()
>>> X, xp = validate_data(est, [[1, 2], [3, 4]], reset=True, dtype=FLOAT_DTYPES)
>>> X.dtype, est.n_features_in_
(dtype('float64'), 2)
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils import check_array as _sk_check_array
from sklearn.utils import get_tags
from sklearn.utils.validation import _check_feature_names, _check_n_features, _check_sample_weight, _check_y
from sklearn.utils.validation import validate_data as _sk_validate_data

from riptide import _device

__all__ = [
    "FLOAT_DTYPES",
    "input_namespace",
    "on_device",
    "compute_namespace",
    "check_input",
    "validate_data",
    "check_sample_weight",
    "to_output",
    "host_form",
]

FLOAT_DTYPES = (np.float64, np.float32)
_NO_VALIDATION = "no_validation"


def _riptide_types() -> tuple[type, type]:
    from riptide.frame import DataFrame, Series

    return DataFrame, Series


def input_namespace(obj: Any) -> types.ModuleType | None:
    """The namespace a device-resident input lives in (CuPy, or NumPy for a riptide object on the CPU), or None
    for host inputs (NumPy, pandas, lists, scalars)."""
    DataFrame, Series = _riptide_types()
    if isinstance(obj, DataFrame):
        columns = list(obj._data.values())
        return columns[0].xp if columns else _device.xp()
    if isinstance(obj, Series):
        return obj._column.xp
    if _device.is_device_array(obj):
        return _device.namespace_of(obj)
    return None


def on_device(*objs: Any) -> types.ModuleType | None:
    """The namespace of the first device-resident input, or None when all are host objects."""
    for obj in objs:
        ns = input_namespace(obj)
        if ns is not None:
            return ns
    return None


def compute_namespace(*objs: Any) -> types.ModuleType:
    """Where the work on these inputs runs: the namespace of the first device-resident one, else riptide's
    current device."""
    return on_device(*objs) or _device.xp()


def to_output(result: Any, *inputs: Any) -> Any:
    """An array result in the form the caller expects: NumPy when every input is a host object, else as computed
    (CuPy on the GPU, NumPy for a riptide object on the CPU)."""
    return _device.to_host(result) if on_device(*inputs) is None else result


# --------------------------------------------------------------------------- device-resident inputs


def _plain_numeric(column: Any) -> bool:
    from riptide.core import dtypes
    from riptide.core.column import NumericColumn

    return (isinstance(column, NumericColumn) and not dtypes.is_masked(column.dtype)
            and not dtypes.is_datetimelike(column.dtype))  # fmt: skip


def _as_array(obj: Any, xp: types.ModuleType) -> Any:
    """The values of a device-resident input as an xp array without leaving the device, or None when only the
    host path can convert them (riptide columns that are not plain numbers, a frame without columns)."""
    DataFrame, Series = _riptide_types()
    if isinstance(obj, DataFrame):
        columns = list(obj._data.values())
        if not columns or not all(_plain_numeric(c) for c in columns):
            return None
        dtype = np.result_type(*[c.data.dtype for c in columns])
        return xp.stack([xp.asarray(c.data, dtype=dtype) for c in columns], axis=1)
    if isinstance(obj, Series):
        return obj._column.data if _plain_numeric(obj._column) else None
    return xp.asarray(obj)


def host_form(obj: Any) -> Any:
    """What scikit-learn is shown of an input: pandas for riptide objects, NumPy for device arrays, host inputs
    (and None) as they are."""
    DataFrame, Series = _riptide_types()
    if isinstance(obj, DataFrame | Series):
        return obj.to_pandas()
    return _device.to_host(obj) if _device.is_device_array(obj) else obj


def _target_dtype(dtype_now: np.dtype, dtype: Any) -> np.dtype | None:
    """check_array's dtype rule: a list of accepted dtypes keeps a listed dtype and else takes the first one;
    'numeric' and None keep numeric dtypes."""
    if isinstance(dtype, list | tuple):
        return None if any(dtype_now == np.dtype(d) for d in dtype) else np.dtype(dtype[0])
    if dtype is None or (isinstance(dtype, str) and dtype == "numeric"):
        return None
    return np.dtype(dtype)


def _all_finite(A: Any, xp: types.ModuleType, allow_nan: bool) -> bool:
    if A.dtype.kind not in "fc" or A.size == 0:
        return True
    if allow_nan:
        return not bool(xp.isinf(A).any())  # one scalar read: +-inf is an error even where NaN is allowed
    # scikit-learn's fast path: the sum is finite iff every value is, unless it overflows (then look closer)
    with np.errstate(over="ignore", invalid="ignore"):
        if bool(xp.isfinite(A.sum())):  # one scalar read: the finiteness verdict
            return True
    return bool(xp.isfinite(A).all())  # one scalar read: the verdict after an overflowing sum


def check_input(X: Any, *, dtype: Any = "numeric", allow_nan: bool = False, ensure_2d: bool = True,
                ensure_min_samples: int = 1, ensure_min_features: int = 1, estimator: Any = None,
                input_name: str = "X", xp: types.ModuleType | None = None) -> tuple[Any, types.ModuleType]:
    """``sklearn.utils.check_array`` for any input: the validated array in the compute namespace, and that namespace.

    >>> import numpy as np
    >>> A, xp = check_input(np.array([[1, 2]], dtype=np.int32), dtype=FLOAT_DTYPES)
    >>> A.dtype.name, A.shape  # xp is NumPy, or CuPy when riptide computes on a GPU
    ('float64', (1, 2))
    >>> check_input(np.array([1.0, 2.0]))
    Traceback (most recent call last):
    ...
    ValueError: Expected 2D array, got 1D array instead:...
    """
    kwargs = dict(dtype=dtype, ensure_all_finite="allow-nan" if allow_nan else True, ensure_2d=ensure_2d,
                  ensure_min_samples=ensure_min_samples, ensure_min_features=ensure_min_features,
                  estimator=estimator, input_name=input_name)  # fmt: skip
    ns = input_namespace(X)
    xp = xp or ns or _device.xp()
    if ns is None:
        return _device.to_device(_sk_check_array(X, **kwargs), xp), xp
    A = _as_array(X, xp)
    if A is None:  # riptide columns only the host path can convert: scikit-learn converts or raises
        return _device.to_device(_sk_check_array(host_form(X), **kwargs), xp), xp
    shape_ok = (A.ndim == 2 if ensure_2d else A.ndim <= 2) and A.dtype.kind in "biuf"
    shape_ok = shape_ok and (A.ndim == 0 or A.shape[0] >= ensure_min_samples)
    shape_ok = shape_ok and (A.ndim != 2 or A.shape[1] >= ensure_min_features)
    if shape_ok:
        target = _target_dtype(A.dtype, dtype)
        if target is not None:
            A = A.astype(target)
        if _all_finite(A, xp, allow_nan):
            return A, xp
    # a check failed: scikit-learn raises its own exception on the host copy
    checked = _sk_check_array(host_form(X), **kwargs)
    return _device.to_device(checked, xp), xp  # (reached only if scikit-learn accepts what we did not)


def _check_target(y: Any, xp: types.ModuleType, *, multi_output: bool, y_numeric: bool, estimator: Any) -> Any:
    if input_namespace(y) is None:
        return _device.to_device(_check_y(y, multi_output=multi_output, y_numeric=y_numeric,
                                          estimator=estimator), xp)  # fmt: skip
    Y = _as_array(y, xp)
    if Y is not None and Y.dtype.kind in "biuf" and (Y.ndim == 1 or (multi_output and Y.ndim == 2)):
        if _all_finite(Y, xp, allow_nan=False):
            return Y
    # a column vector (warned about and raveled) or an error: scikit-learn decides on the host copy
    return _device.to_device(_check_y(host_form(y), multi_output=multi_output, y_numeric=y_numeric,
                                      estimator=estimator), xp)  # fmt: skip


def validate_data(estimator: Any, X: Any, y: Any = _NO_VALIDATION, *, reset: bool, dtype: Any = "numeric",
                  allow_nan: bool = False, ensure_min_samples: int = 1, ensure_min_features: int = 1,
                  y_numeric: bool = False, multi_output: bool = False) -> tuple:
    """``sklearn.utils.validation.validate_data`` for any input: sets or checks ``n_features_in_`` and
    ``feature_names_in_``; returns ``(X, xp)`` or ``(X, y, xp)`` with arrays in the compute namespace ``xp``."""
    with_y = not (isinstance(y, str) and y == _NO_VALIDATION)
    kwargs = dict(dtype=dtype, ensure_all_finite="allow-nan" if allow_nan else True,
                  ensure_min_samples=ensure_min_samples, ensure_min_features=ensure_min_features)  # fmt: skip
    if input_namespace(X) is None and (not with_y or y is None or input_namespace(y) is None):
        xp = _device.xp()
        if not with_y:
            return _device.to_device(_sk_validate_data(estimator, X, reset=reset, **kwargs), xp), xp
        out = _sk_validate_data(estimator, X, y, reset=reset, y_numeric=y_numeric, multi_output=multi_output,
                                **kwargs)  # fmt: skip
        if y is None:  # an estimator that does not need y
            return _device.to_device(out, xp), None, xp
        return _device.to_device(out[0], xp), _device.to_device(out[1], xp), xp

    xp = compute_namespace(X, None if not with_y else y)
    DataFrame, _ = _riptide_types()
    if isinstance(X, DataFrame):
        names = pd.DataFrame(columns=X.columns)  # the column labels, without the data
    else:
        names = X if input_namespace(X) is None else None
    _check_feature_names(estimator, names, reset=reset)
    if with_y and y is None and get_tags(estimator).target_tags.required:
        raise ValueError(f"This {type(estimator).__name__} estimator requires y to be passed, but the target y "
                         "is None.")  # fmt: skip
    A, xp = check_input(X, allow_nan=allow_nan, estimator=estimator, xp=xp, dtype=dtype,
                        ensure_min_samples=ensure_min_samples, ensure_min_features=ensure_min_features)  # fmt: skip
    _check_n_features(estimator, A, reset=reset)
    if not with_y:
        return A, xp
    if y is None:
        return A, None, xp
    Y = _check_target(y, xp, multi_output=multi_output, y_numeric=y_numeric, estimator=estimator)
    if A.shape[0] != Y.shape[0]:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: {[A.shape[0], Y.shape[0]]}")
    return A, Y, xp


def check_sample_weight(sample_weight: Any, n_samples: int, dtype: Any, xp: types.ModuleType, *,
                        ensure_non_negative: bool = False) -> Any:
    """``sklearn.utils.validation._check_sample_weight``: an xp vector of ``n_samples`` weights (ones for None, a
    scalar repeated), with scikit-learn's errors for a wrong shape, non-finite, negative or all-zero weights.

    >>> check_sample_weight(None, 3, np.float64, np).tolist()
    [1.0, 1.0, 1.0]
    """
    dtype = np.dtype(dtype) if np.dtype(dtype) in (np.float32, np.float64) else np.dtype(np.float64)
    if sample_weight is None:
        return xp.ones(n_samples, dtype=dtype)
    if input_namespace(sample_weight) is not None:
        w = _as_array(sample_weight, xp)
        if w is not None and w.ndim == 1 and w.shape[0] == n_samples and w.dtype.kind in "biuf":
            w = w.astype(dtype if w.dtype.kind != "f" else w.dtype, copy=False)
            ok = xp.isfinite(w).all() & (w != 0).any()
            if ensure_non_negative:
                ok &= (w >= 0).all()
            if bool(ok):  # one scalar read: the weights' validity
                return w
        sample_weight = host_form(sample_weight)  # scikit-learn raises its own error on the host copy
    proxy = np.empty((n_samples, 0), dtype=dtype)  # scikit-learn reads only the sample count and dtype of X
    checked = _check_sample_weight(sample_weight, proxy, dtype=dtype, ensure_non_negative=ensure_non_negative)
    return _device.to_device(checked, xp)
