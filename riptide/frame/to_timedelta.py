"""``rt.to_timedelta``: numbers (with ``unit=``) to ``timedelta64`` on the device; strings through pandas.

* Integers: ``n`` units become ``n * ticks-per-unit`` int64 ticks by integer arithmetic on the device, in pandas
  3's unit: ``us`` for ``s``/``ms``/``us`` and coarser units, ``ns`` for ``unit="ns"`` (the default).
* Floats: nanosecond ticks, ``value * ns-per-unit`` rounded to the nearest integer as pandas does; NaN -> NaT.
* Strings (``"1 days 02:03:04.5"``, ``"1h30min"``, ``"00:01:00"``) and anything else run through pandas on the
  host, with a one-time warning naming the reason (a device parser for them is future work).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import NumericColumn

__all__ = ["to_timedelta"]

_WARNED: set[str] = set()
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


def _host(host: Any, unit: Any, errors: str, reason: str) -> Any:
    """pandas' answer, as a riptide Series/Index, with a one-time warning naming the reason."""
    import riptide as rt

    if reason not in _WARNED:
        _WARNED.add(reason)
        warnings.warn(f"riptide: {reason} is converted by pandas on the host", UserWarning, stacklevel=3)
    result = pd.to_timedelta(host, unit=unit, errors=errors)
    return rt.from_pandas(result) if isinstance(result, pd.Series | pd.Index) else result
