"""Binary operators on columns: arithmetic, comparison and logical, with pandas' dtype rules.

``binary_op(left, right, "add")`` takes two equal-length columns, or a column and a
scalar; ``reflected=True`` computes ``right <op> left`` (for ``2 - s``). Missing values
propagate the way pandas propagates them for each dtype:

* numpy dtypes: NaN / NaT flow through the arithmetic; comparisons with them are False
  (``!=`` is True);
* masked dtypes (Int64, Float64, boolean): the result is masked where either side is,
  except Kleene logic for ``&`` / ``|`` (``True | NA`` is True);
* ``str``: comparisons with a missing value are False (``!=`` True); ``+`` concatenates.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn
from riptide.core.kernels import strings as string_kernels
from riptide.core.ops import fusion

__all__ = ["binary_op", "ARITHMETIC", "COMPARISON", "LOGICAL", "SYMBOLS"]

ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow")
COMPARISON = ("eq", "ne", "lt", "le", "gt", "ge")
LOGICAL = ("and", "or", "xor")
SYMBOLS = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
    "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "and": "&", "or": "|", "xor": "^",
}  # fmt: skip

_UFUNC_NAMES = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide", "floordiv": "floor_divide",
    "mod": "remainder", "pow": "power", "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
    "gt": "greater", "ge": "greater_equal", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
}  # fmt: skip
_SWAPPED_COMPARISON = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def binary_op(left: Column, right: Any, op: str, reflected: bool = False) -> Column:
    """``left <op> right`` (or ``right <op> left`` when ``reflected``) as a new column."""
    if op not in _UFUNC_NAMES:
        raise ValueError(f"unknown operator {op!r}; expected one of {', '.join(_UFUNC_NAMES)}")
    if reflected and op in COMPARISON:
        op, reflected = _SWAPPED_COMPARISON[op], False
    if isinstance(left, CategoricalColumn) or isinstance(right, CategoricalColumn):
        return _categorical(left, right, op, reflected)
    if isinstance(left, StringColumn) or isinstance(right, StringColumn) or isinstance(right, str):
        return _string(left, right, op, reflected)
    deferred = fusion.try_defer(left, right, op, reflected)  # GPU: chains of operators become one kernel
    if deferred is not None:
        return deferred
    return _numeric(left, right, op, reflected)


# --- errors ------------------------------------------------------------------------------
def _describe(operand: Any) -> str:
    if isinstance(operand, Column):
        return f"dtype '{operand.dtype}'"
    return f"object of type {type(operand).__name__!r}"


def _unsupported(left: Any, right: Any, op: str, reflected: bool) -> TypeError:
    a, b = (right, left) if reflected else (left, right)
    return TypeError(f"unsupported operand for {SYMBOLS[op]}: {_describe(a)} and {_describe(b)}")


# --- numbers and datetimes ----------------------------------------------------------------
class _Operand:
    """A column or scalar seen as (values, numpy dtype, missing-or-None, masked?)."""

    __slots__ = ("values", "dtype", "missing", "masked", "is_scalar")

    def __init__(self, values: Any, dtype: np.dtype, missing: Any, masked: bool, is_scalar: bool):
        self.values, self.dtype, self.missing, self.masked, self.is_scalar = values, dtype, missing, masked, is_scalar


def _as_operand(value: Any, other: NumericColumn, op: str) -> _Operand:
    if isinstance(value, NumericColumn):
        masked = dtypes.is_masked(value.dtype)
        missing = None
        if masked and value.mask is not None:
            missing = ~value.mask
        elif dtypes.is_datetimelike(value.dtype):
            missing = value.data == dtypes.NAT
        return _Operand(value.data, dtypes.to_numpy_dtype(value.dtype), missing, masked, False)
    if value is pd.NA:
        return _Operand(0, np.dtype(np.int64) if other.kind != "b" else np.dtype(bool), True, True, True)
    if value is None:
        raise TypeError(f"unsupported operand for {SYMBOLS[op]}: {_describe(other)} and None")
    if isinstance(value, pd.Timestamp | np.datetime64 | _dt.datetime | pd.Timedelta | np.timedelta64 | _dt.timedelta):
        temporal = np.datetime64(value) if isinstance(value, pd.Timestamp | np.datetime64 | _dt.datetime) else (
            np.timedelta64(pd.Timedelta(value)))  # fmt: skip
        if isinstance(value, pd.Timestamp) and value.tz is not None:
            raise TypeError("time-zone-aware timestamps arrive with issue 4")
        if np.isnat(temporal):
            return _Operand(dtypes.NAT, temporal.dtype, True, False, True)
        return _Operand(temporal.astype(np.int64).item(), temporal.dtype, None, False, True)
    if isinstance(value, bool | int | float | np.number | np.bool_):
        return _Operand(value, np.result_type(value) if not isinstance(value, bool | int | float) else None,
                        None, False, True)  # fmt: skip
    raise TypeError(f"unsupported operand for {SYMBOLS[op]}: {_describe(other)} and {_describe(value)}")


def _numeric(left: NumericColumn, right: Any, op: str, reflected: bool) -> Column:
    if isinstance(right, Column) and not isinstance(right, NumericColumn):
        raise _unsupported(left, right, op, reflected)
    xp = left.xp
    lhs = _as_operand(left, left, op)
    rhs = _as_operand(right, left, op)
    a, b = (rhs, lhs) if reflected else (lhs, rhs)
    if (a.dtype is not None and a.dtype.kind in "mM") or (b.dtype is not None and b.dtype.kind in "mM"):
        return _temporal(a, b, op, xp, left, right, reflected)

    masked = a.masked or b.masked
    with _quiet(xp):
        try:
            values = _apply(op, a.values, b.values, xp)
        except TypeError as exc:
            raise _unsupported(left, right, op, reflected) from exc
    if not isinstance(values, type(left.data)):
        values = xp.full(left.size, values)  # scalar op scalar cannot happen, but keep shapes safe
    if op in ("floordiv", "mod") and not masked and values.dtype.kind in "iu":
        values = _integer_division_by_zero(a, b, op, values, xp)
    if not masked:
        return NumericColumn(values)

    missing = _merge_missing(a.missing, b.missing, xp, left.size)
    if op in ("and", "or") and values.dtype.kind == "b":
        missing = _kleene(a, b, op, missing, xp)
    elif op == "pow":
        missing = _pow_known(a, b, missing, xp)
    if isinstance(missing, bool):
        missing = xp.full(left.size, missing)
    result_dtype = dtypes.to_masked(values.dtype)
    return NumericColumn(values, result_dtype, None if missing is None else ~missing)


def _kind(value: Any) -> str:
    """NumPy kind of an array or a scalar operand."""
    dtype = getattr(value, "dtype", None)
    return (dtype if dtype is not None else np.result_type(value)).kind


def _apply(op: str, a: Any, b: Any, xp: Any) -> Any:
    if op in LOGICAL and (_kind(a) not in "biu" or _kind(b) not in "biu"):
        raise TypeError("logical operators need bool or integer operands")
    if op == "pow" and _kind(a) in "iu" and _kind(b) in "iu":
        if bool(xp.any(xp.asarray(b) < 0)):
            raise ValueError("Integers to negative integer powers are not allowed.")
    if op == "sub" and getattr(a, "dtype", None) == np.bool_ and getattr(b, "dtype", None) == np.bool_:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use `^` instead")
    return getattr(xp, _UFUNC_NAMES[op])(a, b)


def _integer_division_by_zero(a: _Operand, b: _Operand, op: str, values: Any, xp: Any) -> Any:
    """pandas turns integer ``x // 0`` into +-inf / NaN and ``x % 0`` into NaN (float64)."""
    zero = b.values == 0
    if not bool(xp.any(zero)):  # one scalar read: the result dtype depends on it
        return values
    numerator = xp.asarray(a.values).astype(np.float64)
    result = values.astype(np.float64)
    if op == "floordiv":
        special = xp.where(numerator > 0, xp.inf, xp.where(numerator < 0, -xp.inf, xp.nan))
    else:
        special = xp.nan
    return xp.where(zero, special, result)


def _merge_missing(a: Any, b: Any, xp: Any, size: int) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, bool) or isinstance(b, bool):
        return True if (a is True or b is True) else (a if isinstance(b, bool) else b)
    return a | b


def _kleene(a: _Operand, b: _Operand, op: str, missing: Any, xp: Any) -> Any:
    """``True | NA`` is True and ``False & NA`` is False: only undecided rows stay missing."""
    if missing is None:
        return None
    decided = True if op == "or" else False

    def known_value(operand: _Operand) -> Any:
        known = True if operand.missing is None else (~operand.missing if not isinstance(operand.missing, bool) else not operand.missing)
        return xp.logical_and(known, xp.asarray(operand.values) == decided)

    return xp.logical_and(missing, xp.logical_not(xp.logical_or(known_value(a), known_value(b))))


def _pow_known(a: _Operand, b: _Operand, missing: Any, xp: Any) -> Any:
    """``1 ** NA`` and ``NA ** 0`` are 1 in pandas."""
    if missing is None:
        return None
    one_base = xp.asarray(a.values) == 1
    zero_exp = xp.asarray(b.values) == 0
    if a.missing is not None and not isinstance(a.missing, bool):
        one_base = one_base & ~a.missing
    if b.missing is not None and not isinstance(b.missing, bool):
        zero_exp = zero_exp & ~b.missing
    return xp.logical_and(missing, xp.logical_not(xp.logical_or(one_base, zero_exp)))


def _temporal(a: _Operand, b: _Operand, op: str, xp: Any, left: Any, right: Any, reflected: bool) -> Column:
    """datetime64 / timedelta64 arithmetic on int64 storage, NaT-aware."""
    ka = a.dtype.kind if a.dtype is not None else "i"
    kb = b.dtype.kind if b.dtype is not None else "i"
    unit_dtype = None
    if ka in "mM" and kb in "mM":
        unit = _finer_unit(a.dtype, b.dtype)
        av, bv = _to_unit(a, unit, xp), _to_unit(b, unit, xp)
    else:
        av, bv = a.values, b.values
        unit = np.datetime_data(a.dtype if ka in "mM" else b.dtype)[0]
    missing = _merge_missing(a.missing, b.missing, xp, left.size)
    if op in COMPARISON:
        if ka in "mM" and kb in "mM" and (ka == kb):
            values = getattr(xp, _UFUNC_NAMES[op])(av, bv)
            if missing is not None:
                values = xp.where(missing, op == "ne", values)
            return NumericColumn(values if not isinstance(values, bool) else xp.full(left.size, values))
        raise _unsupported(left, right, op, reflected)
    if op == "sub" and ka == "M" and kb == "M":
        values, unit_dtype = av - bv, np.dtype(f"m8[{unit}]")
    elif op in ("add", "sub") and {ka, kb} == {"M", "m"} and not (op == "sub" and ka == "m"):
        values, unit_dtype = (av + bv if op == "add" else av - bv), np.dtype(f"M8[{unit}]")
    elif op in ("add", "sub") and ka == "m" and kb == "m":
        values, unit_dtype = (av + bv if op == "add" else av - bv), np.dtype(f"m8[{unit}]")
    elif op == "truediv" and ka == "m" and kb == "m":
        values = xp.asarray(av).astype(np.float64) / xp.asarray(bv).astype(np.float64)
        if missing is not None:
            values = xp.where(missing, xp.nan, values)
        return NumericColumn(values)
    elif op in ("mul", "truediv", "floordiv") and ka == "m" and kb in "iuf" and not (op != "mul" and reflected):
        raw = {"mul": xp.multiply, "truediv": xp.true_divide, "floordiv": xp.floor_divide}[op](av, bv)
        values, unit_dtype = xp.asarray(raw).astype(np.int64), np.dtype(f"m8[{unit}]")
    elif op == "mul" and kb == "m" and ka in "iuf":
        values, unit_dtype = xp.asarray(av * bv).astype(np.int64), np.dtype(f"m8[{unit}]")
    else:
        raise _unsupported(left, right, op, reflected)
    if not hasattr(values, "shape") or values.shape == ():
        values = xp.full(left.size, values, dtype=np.int64)
    if missing is not None:
        values = xp.where(missing, dtypes.NAT, values)
    return NumericColumn(values.astype(np.int64, copy=False), unit_dtype)


def _finer_unit(a: np.dtype, b: np.dtype) -> str:
    ua, ub = np.datetime_data(a)[0], np.datetime_data(b)[0]
    order = ["D", "h", "m", "s", "ms", "us", "ns"]
    return ua if order.index(ua) >= order.index(ub) else ub


def _to_unit(operand: _Operand, unit: str, xp: Any) -> Any:
    current = np.datetime_data(operand.dtype)[0]
    if current == unit:
        return operand.values
    factor = int(np.timedelta64(1, current).astype(f"m8[{unit}]").view(np.int64))
    if operand.is_scalar:
        return operand.values if operand.values == dtypes.NAT else operand.values * factor
    return xp.where(operand.missing, dtypes.NAT, operand.values * factor) if operand.missing is not None else (
        operand.values * factor)  # fmt: skip


@contextlib.contextmanager
def _quiet(xp: Any):
    """NumPy warns on division by zero and NaN comparisons; pandas does not, and neither does CuPy."""
    if xp is np:
        with np.errstate(all="ignore"):
            yield
    else:
        yield


# --- strings ------------------------------------------------------------------------------
def _string(left: Any, right: Any, op: str, reflected: bool) -> Column:
    if not isinstance(left, StringColumn) or not (isinstance(right, StringColumn | str) or right is None or (
            isinstance(right, float) and np.isnan(right))):  # fmt: skip
        raise _unsupported(left, right, op, reflected)
    xp = left.xp
    if right is None or isinstance(right, float):  # comparison with a missing scalar
        if op in COMPARISON:
            return NumericColumn(xp.full(left.size, op == "ne"))
        raise _unsupported(left, right, op, reflected)
    if op == "add":
        first, second = (right, left) if reflected else (left, right)
        return string_kernels.concatenate(first, second, xp)
    if op not in COMPARISON:
        raise _unsupported(left, right, op, reflected)
    order = string_kernels.compare(left, right, xp)  # -1, 0, 1 per row
    values = getattr(xp, _UFUNC_NAMES[op])(order, 0)
    missing = left.isna() if left.mask is not None else None
    if isinstance(right, StringColumn) and right.mask is not None:
        missing = right.isna() if missing is None else missing | right.isna()
    if missing is not None:
        values = xp.where(missing, op == "ne", values)
    return NumericColumn(values)


# --- categoricals ---------------------------------------------------------------------------
def _categorical(left: Any, right: Any, op: str, reflected: bool) -> Column:
    from riptide.core.ops.cast import decode_categorical

    if op not in COMPARISON:
        raise TypeError(f"Series cannot perform the operation {SYMBOLS[op]} on a categorical")
    if isinstance(left, CategoricalColumn) and isinstance(right, CategoricalColumn):
        if left.dtype != right.dtype:
            raise TypeError("Categoricals can only be compared if 'categories' are the same.")
    for side in (left, right):
        if isinstance(side, CategoricalColumn) and not side.ordered and op not in ("eq", "ne"):
            raise TypeError("Unordered Categoricals can only compare equality or not")
    if isinstance(left, CategoricalColumn) and left.ordered and op not in ("eq", "ne"):
        return _ordered_categorical(left, right, op)
    plain_left = decode_categorical(left) if isinstance(left, CategoricalColumn) else left
    plain_right = decode_categorical(right) if isinstance(right, CategoricalColumn) else right
    return binary_op(plain_left, plain_right, op, reflected)


def _ordered_categorical(left: CategoricalColumn, right: Any, op: str) -> Column:
    xp = left.xp
    if isinstance(right, CategoricalColumn):
        right_codes = right.codes
    else:
        categories = left.dtype.categories
        if right not in categories:
            raise TypeError(f"Invalid comparison between dtype=category and {type(right).__name__}")
        right_codes = int(categories.get_loc(right))
    values = getattr(xp, _UFUNC_NAMES[op])(left.codes, right_codes)
    missing = left.codes < 0
    if isinstance(right, CategoricalColumn):
        missing = missing | (right.codes < 0)
    return NumericColumn(xp.where(missing, False, values))
