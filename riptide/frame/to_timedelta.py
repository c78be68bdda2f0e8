"""``rt.to_timedelta``: numbers (with ``unit=``) and duration strings to ``timedelta64`` on the device.

* Integers: ``n`` units become ``n * ticks-per-unit`` int64 ticks by integer arithmetic on the device, in pandas
  3's unit: ``us`` for ``s``/``ms``/``us`` and coarser units, ``ns`` for ``unit="ns"`` (the default).
* Floats: nanosecond ticks, ``value * ns-per-unit`` rounded to the nearest integer as pandas does; NaN -> NaT.
* Strings: the clock spelling (``"1 days 02:03:04.5"``, ``"-00:01:02"``) and unit-suffixed pieces (``"3h"``,
  ``"1h30min"``, ``"-5min"``, ``"1.5 days"``) are parsed on the device (:mod:`riptide.core.ops.parse_timedelta`)
  into pandas 3's ``us`` unit. Rows the device parser leaves (ISO 8601 ``"P1DT2H"``, nanosecond values,
  deprecated or rare spellings, bad values) are few by design: only they are copied to the host and converted by
  pandas, which also raises its own error for a bad value under ``errors="raise"``. A column where pandas' answer
  for those rows is in ``ns`` is converted by pandas as a whole.
* Anything else runs through pandas on the host, with a one-time warning naming the reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import NumericColumn, StringColumn
from riptide.core.ops.parse_timedelta import parse_timedeltas
from riptide.errors import warn_host_fallback

__all__ = ["to_timedelta"]

# nanoseconds per unit, under pandas' unit spellings
_NS_PER_UNIT = {"W": 7 * 86_400 * 10**9, "D": 86_400 * 10**9, "days": 86_400 * 10**9, "day": 86_400 * 10**9,
                "h": 3_600 * 10**9, "hours": 3_600 * 10**9, "hour": 3_600 * 10**9, "hr": 3_600 * 10**9,
                "m": 60 * 10**9, "min": 60 * 10**9, "minute": 60 * 10**9, "minutes": 60 * 10**9,
                "s": 10**9, "seconds": 10**9, "sec": 10**9, "second": 10**9,
                "ms": 10**6, "milliseconds": 10**6, "millisecond": 10**6, "milli": 10**6, "millis": 10**6,
                "us": 10**3, "microseconds": 10**3, "microsecond": 10**3, "micro": 10**3, "micros": 10**3,
                "ns": 1, "nanoseconds": 1, "nanosecond": 1, "nano": 1, "nanos": 1}  # fmt: skip


def to_timedelta(arg: Any, unit: str | None = None, errors: str = "raise") -> Any:
    """Convert numbers (counts of ``unit``) or duration strings to ``timedelta64``, as ``pandas.to_timedelta``.

    >>> import riptide as rt
    >>> td = rt.to_timedelta(rt.Series([1, 90]), unit="s")
    >>> str(td.dtype), td.tolist()
    ('timedelta64[us]', [Timedelta('0 days 00:00:01'), Timedelta('0 days 00:01:30')])
    >>> rt.to_timedelta(rt.Series(["1 days 02:00:00", "1h30min", None])).tolist()
    [Timedelta('1 days 02:00:00'), Timedelta('0 days 01:30:00'), NaT]
    """
    from riptide.core.column.build import is_scalar
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    if errors not in ("raise", "coerce"):
        raise ValueError("errors must be one of 'raise', or 'coerce'.")
    if is_scalar(arg) or isinstance(arg, str):
        return pd.to_timedelta(arg, unit=unit, errors=errors)
    if isinstance(arg, pd.Series | pd.Index):
        arg = Series(arg) if isinstance(arg, pd.Series) else Index(arg)
    wrap_index = isinstance(arg, Index)
    if not isinstance(arg, Series | Index):
        try:
            arg = Index(arg)
            wrap_index = True
        except (TypeError, ValueError):
            return _host(arg, unit, errors, f"input of {type(arg).__name__} riptide cannot hold")
    column = arg._column
    if isinstance(column, StringColumn) and unit is None:
        result = _strings(column, arg.to_pandas, errors)
        if not isinstance(result, NumericColumn):
            return result
    else:
        result = _numbers(column, unit) if isinstance(column, NumericColumn) else None
    if result is None:
        return _host(arg.to_pandas(), unit, errors, f"to_timedelta of {column.dtype} values")
    if wrap_index:
        return Index._from_column(result, arg.name)
    return Series._from_column(result, arg.index, arg.name)


def _numbers(column: NumericColumn, unit: str | None) -> NumericColumn | None:
    """The timedelta column of integer / float counts of ``unit``; None where riptide leaves it to pandas."""
    dtype = column.dtype
    if dtypes.is_datetimelike(dtype) or dtypes.is_masked(dtype) or dtype.kind not in "iuf":
        return None
    if unit is not None and unit not in _NS_PER_UNIT:
        return None  # pandas names the bad unit in its error
    ns = _NS_PER_UNIT[unit or "ns"]
    xp = column.xp
    data = column.data
    if dtype.kind in "iu":
        if ns == 1:
            return NumericColumn(data.astype(np.int64), np.dtype("m8[ns]"))
        # pandas 3 keeps integer counts of coarser units in microseconds
        ticks = data.astype(np.int64) * (ns // 1_000)
        return NumericColumn(ticks, np.dtype("m8[us]"))
    # floats: nanoseconds, rounded to the nearest tick; NaN -> NaT
    missing = xp.isnan(data)
    values = xp.where(missing, 0.0, data.astype(np.float64))
    # pandas treats floats that are all whole numbers as integers (microseconds for units coarser than ns)
    if ns > 1 and bool(xp.all(values == xp.trunc(values))):  # one scalar read: the result's unit depends on it
        ticks = values.astype(np.int64) * (ns // 1_000)
        return NumericColumn(xp.where(missing, dtypes.NAT, ticks), np.dtype("m8[us]"))
    # pandas' arithmetic: whole units exactly in integers, the fraction rounded to log10(ns) decimals, then
    # scaled and truncated (so the last nanoseconds match pandas, not the exact product)
    whole = values.astype(np.int64)  # truncates toward zero
    if ns == 1:  # nanoseconds: pandas truncates
        ticks = whole
    else:
        fraction = xp.round(values - whole, len(str(ns)) - 1)
        ticks = whole * ns + (fraction * ns).astype(np.int64)
    return NumericColumn(xp.where(missing, dtypes.NAT, ticks), np.dtype("m8[ns]"))


def _strings(column: StringColumn, host: Any, errors: str) -> Any:
    """Duration strings parsed on the device; the rows it leaves go to pandas (see the module docstring)."""
    from riptide.frame.series import Series

    xp = column.xp
    n = column.size
    valid = column.notna()
    parsed = parse_timedeltas(column.offsets, column.chars, valid, xp)
    leftover = xp.nonzero(valid & ~parsed.ok & ~parsed.null)[0]
    n_left = int(leftover.shape[0])  # one scalar read: rows for pandas (usually none)
    ticks = xp.where(parsed.ok, parsed.nanos // 1_000, dtypes.NAT)
    any_parsed = bool(parsed.ok.any())  # one scalar read: all-NaT results are timedelta64[s]
    if n_left:
        subset = Series._from_column(column.take(leftover)).to_pandas()
        try:
            left = pd.to_timedelta(subset, errors=errors)
        except (ValueError, OverflowError):
            return _host(host(), None, errors, None)  # pandas raises its own error for the first bad value
        left_values = np.asarray(left.to_numpy().view(np.int64))
        left_unit = np.datetime_data(left.dtype)[0]
        if (left_values == dtypes.NAT).all():
            left_unit = None
        if left_unit not in (None, "us"):  # e.g. nanoseconds: pandas' unit for the whole column
            return _host(host(), None, errors, None)
        ticks[leftover] = xp.asarray(left_values)
        any_parsed = any_parsed or left_unit is not None
    if not any_parsed:
        return NumericColumn(xp.full(n, dtypes.NAT, dtype=np.int64), np.dtype("m8[s]"))
    return NumericColumn(ticks, np.dtype("m8[us]"))


def _host(host: Any, unit: Any, errors: str, reason: str | None) -> Any:
    """pandas' answer, as a riptide Series/Index, with a one-time warning naming the reason (when given)."""
    import riptide as rt

    if reason is not None:
        warn_host_fallback("to_timedelta", f"{reason} is converted by pandas")
    result = pd.to_timedelta(host, unit=unit, errors=errors)
    return rt.from_pandas(result) if isinstance(result, pd.Series | pd.Index) else result
