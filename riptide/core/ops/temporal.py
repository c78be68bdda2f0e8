"""datetime64 / timedelta64 operators, on int64 storage (NaT = INT64_MIN), with pandas' rules.

:func:`riptide.core.ops.binary.binary_op` hands an operation here when either side is a
datetime or timedelta column, or a temporal scalar (``pd.Timestamp``, ``pd.Timedelta``, their
NumPy and ``datetime`` twins, ``pd.NaT``). pandas' rules, as riptide applies them:

* ``datetime ± timedelta`` is a datetime, ``datetime - datetime`` and ``timedelta ± timedelta`` a
  timedelta, in the finer of the two units (a scalar brings its own unit: ``pd.Timedelta("1h")`` is
  in us, ``np.timedelta64(3, "s")`` in s). ``pd.NaT`` is whichever kind makes ``+`` / ``-`` work.
* ``timedelta * number`` and ``timedelta / number`` (and ``//``, ``%``) are timedeltas, truncated
  toward zero; division by zero and NaN give NaT. ``timedelta / timedelta`` is float64,
  ``timedelta // timedelta`` int64 (float64 when a NaT is involved), ``timedelta % timedelta`` a timedelta.
* Comparing values of different kinds (a datetime with a timedelta, a number, None): ``==`` is all
  False, ``!=`` all True, ``<`` raises TypeError. Comparisons with NaT are False (``!=`` True).
* Time zones: tz-aware values are UTC ticks, so two tz-aware operands compare and subtract on their ticks
  whatever their zones; ``± timedelta`` keeps the zone. A tz-aware operand against a naive one compares like
  different kinds (``<`` raises pandas' "Invalid comparison"), and subtracting them raises pandas' TypeError.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.kernels import numpy_compat
from riptide.core.column import Column, NumericColumn
from riptide.core.ops import binary, date_offsets
from riptide.core.ops.missing import is_missing_scalar

__all__ = ["binary_op", "involves"]

NAT = dtypes.NAT
_UNIT_ORDER = ("D", "h", "m", "s", "ms", "us", "ns")
_SUPPORTED_UNITS = ("s", "ms", "us", "ns")  # what pandas stores; a NaT scalar of another unit becomes "s"


class _Side:
    """One operand: ``kind`` is "M" (datetime), "m" (timedelta), "NaT" (``pd.NaT``, either of them),
    "num" (a number), "bool" or "other"; ``values`` are int64 in ``unit`` for M / m (NaT rows hold NAT);
    ``missing`` marks rows that are NaT / NA (``True`` for a missing scalar), None when there are none."""

    __slots__ = ("kind", "masked", "missing", "source", "tz", "unit", "values")

    def __init__(self, kind: str, values: Any, unit: str | None, missing: Any, source: Any, masked: bool = False,
                 tz: Any = None):  # fmt: skip
        self.kind, self.values, self.unit, self.missing, self.source = kind, values, unit, missing, source
        self.masked = masked
        self.tz = tz  # the zone of a tz-aware datetime (its values are UTC ticks), else None


def involves(left: Any, right: Any) -> bool:
    """True when ``left <op> right`` is a temporal operation (either side datetime / timedelta)."""
    return _is_temporal_column(left) or _is_temporal_column(right) or _is_temporal_scalar(right)


def _is_temporal_column(value: Any) -> bool:
    return isinstance(value, NumericColumn) and dtypes.is_datetimelike(value.dtype)


def _is_temporal_scalar(value: Any) -> bool:
    return value is pd.NaT or isinstance(value, np.datetime64 | np.timedelta64 | _dt.datetime | _dt.timedelta)


def _side(value: Any, xp: Any) -> _Side:
    if isinstance(value, NumericColumn):
        if dtypes.is_datetimelike(value.dtype):
            kind, unit = value.dtype.kind, dtypes.datetime_unit(value.dtype)
            tz = value.dtype.tz if dtypes.is_datetime_tz(value.dtype) else None
            return _Side(kind, value.data, unit, value.data == NAT, value, tz=tz)
        masked = dtypes.is_masked(value.dtype)
        missing = (None if value.mask is None else ~value.mask) if masked else (
            xp.isnan(value.data) if value.kind == "f" else None)  # fmt: skip
        return _Side("bool" if value.kind == "b" else "num", value.data, None, missing, value, masked)
    if isinstance(value, Column):
        return _Side("other", None, None, None, value)
    if value is pd.NaT:
        return _Side("NaT", NAT, None, True, value)
    if isinstance(value, np.datetime64 | np.timedelta64) and np.isnat(value):
        unit = np.datetime_data(value.dtype)[0]
        return _Side(value.dtype.kind, NAT, unit if unit in _SUPPORTED_UNITS else "s", True, value)
    if isinstance(value, np.datetime64 | _dt.datetime):
        stamp = pd.Timestamp(value)  # asm8 of a tz-aware stamp is its UTC instant
        return _Side("M", int(stamp.asm8.view(np.int64)), stamp.unit, None, value, tz=stamp.tz)
    if isinstance(value, np.timedelta64 | _dt.timedelta):
        delta = pd.Timedelta(value)
        return _Side("m", int(delta.asm8.view(np.int64)), delta.unit, None, value)
    if isinstance(value, bool | np.bool_):
        return _Side("bool", value, None, None, value)
    if isinstance(value, int | float | np.number):
        return _Side("num", value, None, None, value)
    return _Side("other", value, None, True if is_missing_scalar(value) else None, value)


def binary_op(left: NumericColumn, right: Any, op: str, reflected: bool) -> Column:
    """``left <op> right`` (``right <op> left`` when ``reflected``) where one side is temporal."""
    xp = left.xp
    if date_offsets.is_date_offset(right):
        return _offset_op(left, right, op, reflected)
    if isinstance(right, str) and op in binary.COMPARISON and dtypes.is_datetimelike(left.dtype):
        right = _parsed_scalar(right, left.dtype)
    a, b = _side(left, xp), _side(right, xp)
    if reflected:
        a, b = b, a
    if op in binary.COMPARISON:
        return _compare(a, b, op, xp, left.size)
    if op in binary.LOGICAL or op == "pow":
        raise binary.unsupported(left, right, op, reflected)
    with binary.quiet(xp):
        return _arithmetic(a, b, op, xp, left.size, left, right, reflected)


def _parsed_scalar(text: str, dtype: Any) -> Any:
    """A string compared with a datetime (timedelta) column is read as a Timestamp (Timedelta), as pandas reads it;
    a naive one in the zone of a tz-aware column. Text that does not parse stays text (then ``==`` is all False
    and ``<`` raises, as for any other kind)."""
    try:
        if dtypes.is_datetime(dtype):
            stamp = pd.Timestamp(text)
            if stamp is not pd.NaT and dtypes.is_datetime_tz(dtype) and stamp.tz is None:
                stamp = stamp.tz_localize(dtype.tz)
            return stamp
        return pd.Timedelta(text)
    except ValueError:
        return text


# --- date offsets -----------------------------------------------------------------------------
def _offset_op(column: NumericColumn, offset: Any, op: str, reflected: bool) -> Column:
    """``column ± offset`` (or ``offset + column``): calendar arithmetic on the device where
    :mod:`~riptide.core.ops.date_offsets` covers the offset, else pandas on a host copy (warned once)."""
    naive_datetime = dtypes.is_datetime(column.dtype) and not dtypes.is_datetime_tz(column.dtype)
    if op in ("add", "sub") and not (op == "sub" and reflected) and naive_datetime and date_offsets.supports(offset):
        unit = dtypes.datetime_unit(column.dtype)
        ticks, unit = date_offsets.add_offset(column.data, unit, offset, column.xp, -1 if op == "sub" else 1)
        return NumericColumn(ticks, np.dtype(f"datetime64[{unit}]"))
    is_timedelta = isinstance(column.dtype, np.dtype) and column.dtype.kind == "m"
    if op in ("add", "sub") and is_timedelta and isinstance(offset, pd.offsets.Tick):
        return binary_op(column, pd.Timedelta(offset), op, reflected)
    from riptide.core.column.build import as_column
    from riptide.errors import warn_host_fallback

    values = pd.Series(column.to_pandas_array(), copy=False)
    method = getattr(values, f"__{'r' if reflected else ''}{op}__", None)
    if method is None or op not in ("add", "sub", "eq", "ne"):
        raise binary.unsupported(column, offset, op, reflected)
    result = method(offset)  # pandas raises its own error for what it refuses (a MonthEnd added to timedeltas)
    if result is NotImplemented:
        raise binary.unsupported(column, offset, op, reflected)
    reason = date_offsets.UNSUPPORTED if naive_datetime else f"offsets on {column.dtype} are applied by pandas"
    warn_host_fallback(f"{column.dtype} {binary.SYMBOLS[op]} {type(offset).__name__}", reason)
    return as_column(result.array, xp=column.xp)


# --- comparisons ------------------------------------------------------------------------------
def _compare(a: _Side, b: _Side, op: str, xp: Any, size: int) -> Column:
    kinds = {a.kind, b.kind}
    if "NaT" in kinds and kinds <= {"NaT", "M", "m"}:  # pd.NaT compares False with every datetime / timedelta
        return NumericColumn(xp.full(size, op == "ne"))
    if a.kind == b.kind and a.kind in ("M", "m") and (a.tz is None) == (b.tz is None):
        unit = _finer(a.unit, b.unit)
        values = getattr(xp, binary.UFUNC_NAMES[op])(_in_unit(a, unit, xp), _in_unit(b, unit, xp))
        missing = _either(a.missing, b.missing)
        if missing is not None:
            values = numpy_compat.where(xp, missing, op == "ne", values)
        return NumericColumn(_full(values, size, xp, bool))
    # Different kinds never compare equal. A masked number on the left (pandas' dispatching side) keeps its
    # missing rows, and the other side's NaT rows, as a boolean result.
    missing = None
    if a.masked:
        missing = _either(a.missing, b.missing if b.kind in ("M", "m") else None)
        missing = xp.zeros(size, dtype=bool) if missing is None else _full(missing, size, xp, bool)
    return binary.invalid_comparison(a.source, b.source, op, xp, size, missing)


# --- arithmetic -------------------------------------------------------------------------------
def _arithmetic(a: _Side, b: _Side, op: str, xp: Any, size: int, left: Any, right: Any, reflected: bool) -> Column:
    a, b = _resolve_nat(a, b, op, left, right, reflected)
    ka, kb = a.kind, b.kind
    if "bool" in (ka, kb) and "m" in (ka, kb):
        unit = a.unit if ka == "m" else b.unit
        raise TypeError(f"Cannot {'multiply' if op == 'mul' else 'divide'} 'timedelta64[{unit}]' by bool, explicitly "
                        "cast to integers instead")  # fmt: skip
    if op in ("add", "sub") and "num" in (ka, kb) and ({ka, kb} & {"M", "m"}):
        name = "DatetimeArray" if "M" in (ka, kb) else "TimedeltaArray"
        raise TypeError(f"Addition/subtraction of integers and integer-arrays with {name} is no longer "
                        "supported. Instead of adding/subtracting `n`, use `n * obj.freq`")  # fmt: skip
    if ka in ("M", "m") and kb in ("M", "m"):
        return _temporal_pair(a, b, op, xp, size, left, right, reflected)
    if ka == "m" and kb == "num" and op in ("mul", "truediv", "floordiv", "mod"):
        return _timedelta_by_number(a, b, op, xp, size)
    if ka == "num" and kb == "m" and op == "mul":
        return _timedelta_by_number(b, a, op, xp, size)
    if kb == "m" and ka == "num" and op in ("truediv", "floordiv", "mod"):
        raise TypeError(f"Cannot divide {binary.describe(a.source)} by TimedeltaArray")
    raise binary.unsupported(left, right, op, reflected)


def _resolve_nat(a: _Side, b: _Side, op: str, left: Any, right: Any, reflected: bool) -> tuple[_Side, _Side]:
    """``pd.NaT`` takes the kind that makes the operation valid: a timedelta next to a timedelta or in
    ``datetime + NaT``, a datetime in ``datetime - NaT``. It only adds and subtracts."""
    if "NaT" not in (a.kind, b.kind):
        return a, b
    nat, other = (a, b) if a.kind == "NaT" else (b, a)
    if op not in ("add", "sub") or other.kind not in ("M", "m"):
        raise binary.unsupported(left, right, op, reflected)
    kind = "M" if (other.kind == "M" and op == "sub") else "m"
    resolved = _Side(kind, NAT, other.unit, True, nat.source, tz=other.tz if kind == "M" else None)
    return (resolved, b) if a is nat else (a, resolved)


def _temporal_pair(a: _Side, b: _Side, op: str, xp: Any, size: int, left: Any, right: Any, reflected: bool) -> Column:
    ka, kb = a.kind, b.kind
    unit = _finer(a.unit, b.unit)
    av, bv = _in_unit(a, unit, xp), _in_unit(b, unit, xp)
    missing = _either(a.missing, b.missing)
    if op == "add" and {ka, kb} == {"M", "m"}:
        return _temporal_result(_checked(av, bv, op, missing, xp), "M", unit, missing, xp, size,
                                a.tz if ka == "M" else b.tz)  # fmt: skip
    if op == "add" and ka == kb == "m":
        return _temporal_result(_checked(av, bv, op, missing, xp), "m", unit, missing, xp, size)
    if op == "sub" and kb == "m":
        return _temporal_result(_checked(av, bv, op, missing, xp), ka, unit, missing, xp, size, a.tz)
    if op == "sub" and ka == kb == "M":
        if (a.tz is None) != (b.tz is None):
            raise TypeError("Cannot subtract tz-naive and tz-aware datetime-like objects")
        return _temporal_result(_checked(av, bv, op, missing, xp), "m", unit, missing, xp, size)
    if ka != "m" or kb != "m":
        if op == "sub" and ka == "m":
            raise TypeError("cannot subtract a datelike from a TimedeltaArray")
        if op == "add":
            raise TypeError("cannot add DatetimeArray and DatetimeArray")
        raise binary.unsupported(left, right, op, reflected)
    if op not in ("truediv", "floordiv", "mod"):
        raise binary.unsupported(left, right, op, reflected)
    # timedelta with timedelta: / // %
    if op == "truediv":
        values = _full(xp.asarray(av).astype(np.float64) / xp.asarray(bv).astype(np.float64), size, xp, np.float64)
        return NumericColumn(values if missing is None else numpy_compat.where(xp, missing, xp.nan, values))
    quotient = _full(xp.floor_divide(av, bv), size, xp, np.int64)  # x // 0 is 0, as NumPy's timedelta64 gives
    if op == "mod":
        return _temporal_result(av - quotient * bv, "m", unit, missing, xp, size)
    if missing is True or (missing is not None and bool(xp.any(missing))):  # one scalar read: NaT makes it float
        return NumericColumn(numpy_compat.where(xp, missing, xp.nan, quotient.astype(np.float64)))
    return NumericColumn(quotient)


def _checked(av: Any, bv: Any, op: str, missing: Any, xp: Any) -> Any:
    """``av + bv`` or ``av - bv`` in int64 ticks; pandas raises OverflowError where a (non-missing) row wraps."""
    a, b = xp.asarray(av), xp.asarray(bv)
    result = a + b if op == "add" else a - b
    wrapped = date_offsets.wrapped_int64(a, b, result, op)
    if missing is not None and missing is not False:
        wrapped = wrapped & ~xp.asarray(missing)
    if missing is not True and bool(xp.any(wrapped)):  # one scalar read: pandas refuses results out of range
        raise OverflowError(f"Overflow in int64 {'addition' if op == 'add' else 'subtraction'}")
    return result


def _timedelta_by_number(td: _Side, number: _Side, op: str, xp: Any, size: int) -> Column:
    """``timedelta * number`` / ``// number`` / ``/ number`` / ``% number``, truncated toward zero like NumPy's
    timedelta64 loops; a zero divisor, NaN or a missing number gives NaT."""
    t, n = td.values, number.values
    missing = _either(td.missing, number.missing)
    if op == "mod":  # pandas: td - (td // n) * n
        quotient = _scaled(t, n, "floordiv", xp)
        bad = _either(missing, quotient[1])
        values = xp.asarray(t) - _scaled(quotient[0], n, "mul", xp)[0]
    else:
        values, bad = _scaled(t, n, op, xp)
        if op == "mul":
            _check_product(t, n, values, missing, xp)
        bad = _either(missing, bad)
    return _temporal_result(values, "m", td.unit, bad, xp, size)


def _check_product(t: Any, n: Any, product: Any, missing: Any, xp: Any) -> None:
    """pandas' OutOfBoundsTimedelta where ``timedelta * number`` leaves the int64 ticks of the unit: an int
    product that wrapped (or landed on NaT's value), a float product beyond +-2**63, an infinite factor. Rows
    already missing (NaT, a missing or NaN factor) never raise."""
    if missing is True:
        return
    t = xp.asarray(t)
    integer = binary.kind_of(n) in "iu"
    if integer:
        factor = xp.asarray(n).astype(np.int64)
        safe = numpy_compat.where(xp, factor == 0, 1, factor)
        with np.errstate(all="ignore"):  # INT64_MIN // -1 wraps: t is NaT there, a missing row
            overflow = ((factor != 0) & (product // safe != t)) | (product == NAT)
    else:
        factor = xp.asarray(n, dtype=np.float64)
        with np.errstate(all="ignore"):
            exact = t.astype(np.float64) * factor
            overflow = xp.isinf(factor) | (xp.isfinite(exact) & ((exact >= 2.0**63) | (exact <= -(2.0**63))))
    if missing is not None and missing is not False:
        overflow = overflow & ~xp.asarray(missing)
    if bool(xp.any(overflow)):  # one scalar read: pandas refuses a product out of range
        scalar = factor.ndim == 0
        if integer or (scalar and float(n).is_integer()):  # pandas multiplies by a whole float as by an int
            raise pd.errors.OutOfBoundsTimedelta("Overflow in int64 multiplication")
        raise pd.errors.OutOfBoundsTimedelta("Overflow in timedelta multiplication")


def _scaled(t: Any, n: Any, op: str, xp: Any) -> tuple[Any, Any]:
    """(int64 values, rows that are not representable) of ``t * n`` or ``t / n`` (truncated)."""
    if binary.kind_of(n) in "iu":
        n = xp.asarray(n).astype(np.int64)
        if op == "mul":
            return xp.asarray(t) * n, None
        zero = n == 0
        safe = numpy_compat.where(xp, zero, 1, n)
        quotient = xp.floor_divide(t, safe)
        # floor -> truncation: step back toward zero where the division was inexact and the signs differ
        inexact = (quotient * safe != t) & ((xp.asarray(t) < 0) != (safe < 0))
        return quotient + inexact, zero
    product = xp.asarray(t).astype(np.float64) * n if op == "mul" else xp.asarray(t).astype(np.float64) / n
    bad = ~xp.isfinite(product)
    return numpy_compat.where(xp, bad, 0, xp.trunc(product)).astype(np.int64), bad


def _temporal_result(values: Any, kind: str, unit: str, missing: Any, xp: Any, size: int, tz: Any = None
                     ) -> NumericColumn:  # fmt: skip
    values = _full(values, size, xp, np.int64)
    if missing is not None:
        values = numpy_compat.where(xp, missing, NAT, values)
    dtype = pd.DatetimeTZDtype(unit, tz) if tz is not None else np.dtype(f"{kind}8[{unit}]")
    return NumericColumn(values.astype(np.int64, copy=False), dtype)


# --- helpers ----------------------------------------------------------------------------------
def _either(a: Any, b: Any) -> Any:
    if a is None or b is True:
        return b
    if b is None or a is True:
        return a
    return a | b


def _full(values: Any, size: int, xp: Any, dtype: Any) -> Any:
    """``values`` as a column-length array (a scalar result broadcasts)."""
    if hasattr(values, "shape") and values.shape == (size,):
        return values
    return xp.full(size, values, dtype=dtype)


def _finer(a: str | None, b: str | None) -> str:
    if a is None:
        return b  # type: ignore[return-value]
    if b is None:
        return a
    return a if _UNIT_ORDER.index(a) >= _UNIT_ORDER.index(b) else b


def _in_unit(side: _Side, unit: str, xp: Any) -> Any:
    """The side's int64 values in ``unit`` (NaT stays NaT)."""
    if side.unit == unit or side.unit is None:
        return side.values
    factor = int(np.timedelta64(1, side.unit).astype(f"m8[{unit}]").view(np.int64))
    if not hasattr(side.values, "shape"):
        return side.values if side.values == NAT else side.values * factor
    scaled = side.values * factor
    return scaled if side.missing is None else numpy_compat.where(xp, side.missing, NAT, scaled)
