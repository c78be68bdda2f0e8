"""NumPy ufuncs applied to a Series or DataFrame: ``np.log(s)``, ``np.float64(2) * s``, ``np.maximum(s, 0)``.

NumPy hands the call to ``__array_ufunc__``. Binary ufuncs that are operators route to the
operator (so alignment and pandas' dtype rules apply); other ufuncs of one numeric input run
the same-named CuPy/NumPy ufunc on the column's values, on the device, keeping its mask.
Anything else (``out=``, ``reduce``, several frames) is declined with ``NotImplemented``,
which makes NumPy raise ``TypeError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide.core import dtypes
from riptide.core.column import NumericColumn

__all__ = ["apply_ufunc"]

_OPERATORS = {
    np.add: "add", np.subtract: "sub", np.multiply: "mul", np.true_divide: "truediv",
    np.floor_divide: "floordiv", np.remainder: "mod", np.power: "pow", np.equal: "eq", np.not_equal: "ne",
    np.less: "lt", np.less_equal: "le", np.greater: "gt", np.greater_equal: "ge", np.bitwise_and: "and",
    np.bitwise_or: "or", np.bitwise_xor: "xor",
}  # fmt: skip


def apply_ufunc(obj: Any, ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``ufunc(*inputs)`` where ``obj`` (a Series or DataFrame) is one of the inputs."""
    if method != "__call__" or kwargs:
        return NotImplemented
    # NumPy may hand a scalar operand over as a 0-d array: take the scalar back out (keeps datetime units).
    inputs = tuple(x[()] if isinstance(x, np.ndarray) and x.ndim == 0 else x for x in inputs)
    if len(inputs) == 2 and ufunc in _OPERATORS:
        left, right = inputs
        if left is obj:
            return obj._binary(right, _OPERATORS[ufunc])
        return obj._binary(left, _OPERATORS[ufunc], reflected=True)
    if len(inputs) == 2 and ufunc.nin == 2 and all(_is_plain_operand(x, obj) for x in inputs):
        from riptide.frame.series import Series

        if isinstance(obj, Series):
            return obj._with_column(_binary(obj._column, ufunc, inputs, obj))
    if len(inputs) == 1 and inputs[0] is obj:
        from riptide.frame.dataframe import DataFrame

        if isinstance(obj, DataFrame):
            return obj._map_labels(lambda label, series: apply_ufunc(series, ufunc, method, (series,), kwargs))
        return obj._with_column(_unary(obj._column, ufunc))
    return NotImplemented


def _is_plain_operand(value: Any, obj: Any) -> bool:
    return value is obj or isinstance(value, int | float | np.number) and not isinstance(value, bool)


def _binary(column: Any, ufunc: np.ufunc, inputs: tuple[Any, ...], obj: Any) -> NumericColumn:
    """A two-input ufunc (``np.maximum(s, 0)``) of a numeric column and a number."""
    if not isinstance(column, NumericColumn) or dtypes.is_datetimelike(column.dtype):
        raise TypeError(f"ufunc '{ufunc.__name__}' is not supported for dtype {column.dtype}")
    function = getattr(column.xp, ufunc.__name__)
    with np.errstate(all="ignore"):
        values = function(*[column.data if x is obj else x for x in inputs])
    return _like(column, values)


def _unary(column: Any, ufunc: np.ufunc) -> NumericColumn:
    if not isinstance(column, NumericColumn) or dtypes.is_datetimelike(column.dtype):
        raise TypeError(f"ufunc '{ufunc.__name__}' is not supported for dtype {column.dtype}")
    xp = column.xp
    function = getattr(xp, ufunc.__name__, None)
    if function is None:
        raise TypeError(f"ufunc '{ufunc.__name__}' has no {xp.__name__} implementation")
    with np.errstate(all="ignore"):
        values = function(column.data)
    return _like(column, values)


def _like(column: NumericColumn, values: Any) -> NumericColumn:
    """The ufunc's values as a column, keeping the input's missing rows (masked dtypes stay masked)."""
    if dtypes.is_masked(column.dtype):
        return NumericColumn(values, dtypes.to_masked(values.dtype), column.mask)
    return NumericColumn(values)
