"""``rt.date_range``: a fixed-frequency datetime Index generated on the device, with pandas' bounds and rules.

pandas decides a date range from a handful of scalars (the endpoints, rolled onto the frequency's anchor, the
number of points, the unit) and then fills in the values. riptide splits the work the same way:

* **Scalars on the host, by pandas' own scalar objects.** Validation, the frequency (``to_offset``, so every
  alias pandas 3 accepts or rejects -- ``"M"`` is an error, ``"ME"`` is month end -- behaves identically), the
  endpoints (``Timestamp``), the unit inference, ``normalize`` and the rolling of an endpoint onto an anchored
  offset (``offset.rollforward`` / ``rollback``) use pandas scalars, so the edge rules are pandas' by
  construction. None of this touches data.
* **Values on the device.** Every point of a supported frequency is ``f(k)`` for consecutive integers ``k``:
  ``anchor + k * stride`` for fixed frequencies (``D``, ``h``, ``min``, ``s``, ``ms``, ``us``, ``ns`` and their
  multiples) and weekly anchored ones (``W``, ``W-MON`` ...), and, for the calendar frequencies (``MS``/``ME``,
  ``QS``/``QE``, ``YS``/``YE`` with their ``-JAN`` ... anchors and multiples), a month number ``m0 + k * step``
  turned into a day count by :func:`~riptide.core.ops.datetime_fields.days_from_civil` (first day or last day of
  the month) plus the anchor's time of day. ``xp.arange(k0, k1)`` and integer arithmetic; no loop over rows.
  The number of points is found on the host by evaluating ``f`` at the few ``k`` near the end bound.
* ``freq=None`` (start, end and periods given) is pandas' ``linspace`` of the tick span, with ``xp.linspace``.
* Other offsets (business days, semi-month, ``DateOffset(...)``) run through pandas on the host, with a one-time
  warning naming the reason.
* ``tz=`` (or tz-aware endpoints): the same naive range of the UTC endpoints for fixed frequencies (absolute time),
  or of the local endpoints then localized on the device for calendar ones (wall-clock time), as pandas does.

The result is a riptide :class:`~riptide.frame.index.Index` of dtype ``datetime64[unit]`` (``datetime64[unit, tz]``);
it does not carry pandas' ``freq`` attribute.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from pandas.tseries import offsets as pd_offsets
from pandas.tseries.frequencies import to_offset

from riptide import _device
from riptide.core.column import NumericColumn
from riptide.core.ops.datetime_fields import TICKS_PER_SECOND, days_from_civil
from riptide.errors import warn_host_fallback

__all__ = ["date_range"]

_UNITS = ("s", "ms", "us", "ns")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
# Month offsets: (class, months per n, day of month is the last day?)
_MONTHLY = (
    (pd_offsets.MonthBegin, 1, False),
    (pd_offsets.MonthEnd, 1, True),
    (pd_offsets.QuarterBegin, 3, False),
    (pd_offsets.QuarterEnd, 3, True),
    (pd_offsets.YearBegin, 12, False),
    (pd_offsets.YearEnd, 12, True),
)


def date_range(start: Any = None, end: Any = None, periods: int | None = None, freq: Any = None,
               tz: Any = None, normalize: bool = False, name: Any = None, inclusive: str = "both", *,
               unit: str | None = None) -> Any:  # fmt: skip
    """A fixed-frequency datetime Index, as ``pandas.date_range`` (time-zone-naive only).

    >>> import riptide as rt
    >>> rt.date_range("2020-01-30", periods=3, freq="ME").to_pandas().strftime("%Y-%m-%d").tolist()
    ['2020-01-31', '2020-02-29', '2020-03-31']
    >>> idx = rt.date_range("2020-01-01", "2020-01-02", freq="12h", inclusive="left")
    >>> len(idx), str(idx.dtype)
    (2, 'datetime64[us]')
    """
    if periods is not None and not pd.api.types.is_integer(periods):
        raise TypeError(f"periods must be an integer, got {periods}")
    if freq is None and (periods is None or start is None or end is None):
        freq = "D"
    if freq is not None:
        freq = to_offset(freq)
    if start is pd.NaT or end is pd.NaT:
        raise ValueError("Neither `start` nor `end` can be NaT")
    if sum(x is not None for x in (start, end, periods, freq)) != 3:
        raise ValueError("Of the four parameters: start, end, periods, and freq, exactly three must be specified")
    start = None if start is None else pd.Timestamp(start)
    end = None if end is None else pd.Timestamp(end)
    if start is pd.NaT or end is pd.NaT:
        raise ValueError("Neither `start` nor `end` can be NaT")
    if tz is not None or any(t is not None and t.tz is not None for t in (start, end)):
        return _zoned(start, end, periods, freq, tz, normalize, name, inclusive, unit)
    if not _generated_here(freq):
        return _host(start, end, periods, freq, unit, inclusive, name, normalize, warn=True)
    if unit is None:
        unit = _inferred_unit(start, end, freq)
    elif unit not in _UNITS:
        raise ValueError("'unit' must be one of 's', 'ms', 'us', 'ns'")
    if inclusive not in ("both", "neither", "left", "right"):
        raise ValueError("Inclusive has to be either 'both', 'neither', 'left' or 'right'")
    start = None if start is None else start.as_unit(unit, round_ok=False)
    end = None if end is None else end.as_unit(unit, round_ok=False)
    if normalize:
        start = None if start is None else start.normalize()
        end = None if end is None else end.normalize()

    plan = _plan(start, end, periods, freq, unit)
    if plan is None:  # out of bounds: pandas raises its error
        return _host(start, end, periods, freq, unit, inclusive, name)
    f, k0, count = plan
    # pandas trims an endpoint equal to the bound it excludes; a missing bound is the generated endpoint itself.
    left, right = inclusive in ("both", "left"), inclusive in ("both", "right")
    if start is not None and end is not None and start == end:
        if not (left and right):
            k0, count = k0 + 1, count - 2
    elif count > 0:
        first, last = f(k0), f(k0 + count - 1)
        if not left and first == (first if start is None else start._value):
            k0, count = k0 + 1, count - 1
        if not right and count > 0 and last == (last if end is None else end._value):
            count -= 1
    count = max(count, 0)
    xp = _device.xp()
    ticks = f(k0 + xp.arange(count, dtype=np.int64), xp)
    from riptide.frame.index import Index

    return Index._from_column(NumericColumn(ticks.astype(np.int64), np.dtype(f"M8[{unit}]")), name)


def _zoned(start: Any, end: Any, periods: Any, freq: Any, tz: Any, normalize: bool, name: Any, inclusive: str,
           unit: Any) -> Any:  # fmt: skip
    """A time-zone-aware range, as pandas makes it: the endpoints localized to (or converted into) the zone; a fixed
    frequency steps through absolute time (the naive range of the UTC endpoints, then labelled with the zone), a
    calendar one through wall-clock time (the naive range of the local endpoints, then localized: a wall time that
    does not exist, or exists twice, raises as in pandas)."""
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    zones = {str(t.tz) for t in (start, end) if t is not None and t.tz is not None}
    mixed = zones and any(t is not None and t.tz is None for t in (start, end))  # one naive endpoint, one aware
    if len(zones) > 1 or mixed or (tz is not None and zones and zones != {str(pd.Timestamp(0, tz=tz).tz)}):
        return _host(start, end, periods, freq, unit, inclusive, name, normalize, tz=tz)  # pandas' error or answer
    zone = tz if tz is not None else next(t.tz for t in (start, end) if t is not None and t.tz is not None)
    start, end = (None if t is None else t.tz_localize(zone) if t.tz is None else t for t in (start, end))
    if normalize:
        start, end = (None if t is None else t.normalize() for t in (start, end))
    fixed = freq is None or isinstance(freq, pd_offsets.Tick)
    if fixed:
        naive = (None if t is None else t.tz_convert("UTC").tz_localize(None) for t in (start, end))
    else:
        naive = (None if t is None else t.tz_localize(None) for t in (start, end))
    first, last = naive
    wall = date_range(first, last, periods, freq, None, False, name, inclusive, unit=unit)
    column = wall._as_column()
    if fixed:
        aware = NumericColumn(column.data, pd.DatetimeTZDtype(np.datetime_data(column.dtype)[0], zone))
        return Index._from_column(aware, name)
    localized = Series._from_column(column, wall, name).dt.tz_localize(zone)
    return Index._from_column(localized._column, name)


def _inferred_unit(start: Any, end: Any, freq: Any) -> str:
    """pandas' unit of a range without ``unit=``: the finer endpoint's, or the frequency's when it is finer."""
    unit = max((t.unit for t in (start, end) if t is not None), key=_UNITS.index)
    base = freq.base.freqstr if isinstance(freq, pd_offsets.Tick) else None
    if base in _UNITS and _UNITS.index(base) > _UNITS.index(unit):  # e.g. freq="ms" with second endpoints
        unit = base
    return unit


def _generated_here(freq: Any) -> bool:
    """Whether riptide generates this frequency on the device (else pandas does, on the host)."""
    if freq is None or isinstance(freq, pd_offsets.Tick | pd_offsets.Day):
        return True
    if freq.n == 0 or freq.normalize:
        return False
    return (type(freq) is pd_offsets.Week and freq.weekday is not None) or _monthly(freq) is not None


def _monthly(freq: Any) -> tuple[int, bool] | None:
    for cls, months, last_day in _MONTHLY:
        if type(freq) is cls:
            return months, last_day
    return None


def _plan(start: Any, end: Any, periods: int | None, freq: Any, unit: str) -> tuple[Any, int, int] | None:
    """(f, k0, count): the points are ``f(k)`` for ``k0 <= k < k0 + count`` before trimming; None: not supported."""
    if freq is None:
        return _linspace(start, end, periods)
    if isinstance(freq, pd_offsets.Tick | pd_offsets.Day):
        return _regular(start, end, periods, freq, unit)
    # Anchored offsets: roll the endpoints onto the anchor as pandas does, then count steps from the anchor.
    if end is not None and periods is not None and not freq.is_on_offset(end):
        end = freq.rollback(end) if freq.n >= 0 else freq.rollforward(end)
    if start is not None and not freq.is_on_offset(start):
        start = freq.rollback(start) if freq.n < 0 else freq.rollforward(start)
    anchor = start if start is not None else end
    f = _weekly(anchor, freq, unit) if type(freq) is pd_offsets.Week else _calendar(anchor, freq, unit)
    if periods is not None:
        return (f, 0, periods) if start is not None else (f, 1 - periods, periods)
    if end < start and freq.n >= 0:
        return f, 0, 0
    # f is monotone: the count is one more than the last k whose point is within the end bound.
    within = (lambda t: t <= end._value) if freq.n > 0 else (lambda t: t >= end._value)
    guess = (_month_number(end) - _month_number(start)) // (_monthly(freq)[0] * freq.n) if f.monthly else \
        (end._value - start._value) // f.stride  # fmt: skip
    for k in range(max(guess + 2, 0), -1, -1):  # a few candidates at most: the guess is off by one at most
        if within(f(k)):
            return f, 0, k + 1
    return f, 0, 0


class _Points:
    """``f(k)``: the k-th point's ticks, for a Python int (host, exact) or an xp int64 array (device)."""

    monthly = False

    def __call__(self, k: Any, xp: Any = None) -> Any:
        if xp is None:
            return int(self._eval(np.array([k], dtype=np.int64), np)[0])
        return self._eval(k, xp)


class _Linear(_Points):
    def __init__(self, anchor: int, stride: int):
        self.anchor, self.stride = anchor, stride

    def __call__(self, k: Any, xp: Any = None) -> Any:
        return self.anchor + k * self.stride  # exact Python ints on the host, int64 arrays on the device


def _weekly(anchor: Any, freq: Any, unit: str) -> _Points:
    per_day = 86_400 * TICKS_PER_SECOND[unit]
    return _Linear(anchor._value, 7 * freq.n * per_day)


class _Monthly(_Points):
    monthly = True

    def __init__(self, month0: int, step: int, last_day: bool, time_of_day: int, per_day: int):
        self.month0, self.step, self.last_day = month0, step, last_day
        self.time_of_day, self.per_day = time_of_day, per_day

    def _eval(self, k: Any, xp: Any) -> Any:
        months = self.month0 + k * self.step  # months since year 0
        year, month = xp.floor_divide(months, 12), months % 12 + 1
        if self.last_day:  # the day before the 1st of the next month
            days = days_from_civil(year + (month == 12), month % 12 + 1, xp.ones_like(month), xp) - 1
        else:
            days = days_from_civil(year, month, xp.ones_like(month), xp)
        return days * self.per_day + self.time_of_day


def _month_number(t: Any) -> int:
    return t.year * 12 + t.month - 1


def _calendar(anchor: Any, freq: Any, unit: str) -> _Points:
    months, last_day = _monthly(freq)
    per_day = 86_400 * TICKS_PER_SECOND[unit]
    return _Monthly(_month_number(anchor), months * freq.n, last_day, anchor._value % per_day, per_day)


def _regular(start: Any, end: Any, periods: int | None, freq: Any, unit: str) -> tuple[Any, int, int] | None:
    """Fixed strides, with pandas' end bound (``end`` is included when it lies within half a stride)."""
    td = pd.Timedelta(days=freq.n) if isinstance(freq, pd_offsets.Day) else pd.Timedelta(freq)
    try:
        stride = int(td.as_unit(unit, round_ok=False)._value)
    except ValueError as err:
        raise ValueError(f"freq={freq} is incompatible with unit={unit}. "
                         "Use a lower freq or a higher unit instead.") from err  # fmt: skip
    if start is not None and end is not None:
        b = start._value
        e = b + (end._value - b) // stride * stride + stride // 2 + 1
    elif start is not None:
        b = start._value
        e = b + periods * stride
    elif end is not None:
        e = end._value + stride
        b = e - periods * stride
    else:
        raise ValueError("at least 'start' or 'end' should be specified if a 'period' is given.")
    count = len(range(b, e, stride))
    if count and not (_INT64_MIN < min(b, b + (count - 1) * stride) and max(b, b + (count - 1) * stride) <= _INT64_MAX):
        return None  # out of bounds: pandas raises its own error
    return _Linear(b, stride), 0, count


class _Spaced(_Points):
    def __init__(self, start: int, end: int, periods: int):
        self.start, self.end, self.periods = start, end, periods

    def __call__(self, k: Any, xp: Any = None) -> Any:
        if xp is None:  # only the endpoints are asked for on the host
            return self.start if k == 0 else self.end
        # pandas: linspace over the span in float64, truncated to int64, then shifted by start
        return xp.linspace(0, self.end - self.start, self.periods, dtype=np.int64)[k] + self.start


def _linspace(start: Any, end: Any, periods: int) -> tuple[Any, int, int]:
    return _Spaced(start._value, end._value, periods), 0, periods


def _host(start: Any, end: Any, periods: Any, freq: Any, unit: Any, inclusive: str, name: Any,
          normalize: bool = False, warn: bool = False, tz: Any = None) -> Any:  # fmt: skip
    """pandas' range (offsets riptide does not generate itself), as a riptide Index."""
    from riptide.frame.index import as_index

    if warn:
        warn_host_fallback("date_range", f"freq={freq.freqstr!r} is generated by pandas, then copied to the device")
    result = pd.date_range(start=start, end=end, periods=periods, freq=freq, inclusive=inclusive, unit=unit,
                           normalize=normalize, name=name, tz=tz)  # fmt: skip
    index = as_index(result)
    index.name = name
    return index
