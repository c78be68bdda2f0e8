"""Adding pandas date offsets (``pd.offsets.*``, ``pd.DateOffset(...)``) to datetime ticks, on the device.

``s + pd.offsets.MonthEnd()`` or ``s - pd.DateOffset(months=1, days=2)`` is arithmetic on the calendar, not on
a fixed length of time, so it cannot ride the timedelta path. Here every supported offset becomes array
arithmetic on int64 ticks: split the ticks into (day number, time of day), turn the day number into
(year, month, day) with :func:`~riptide.core.ops.datetime_fields.civil_from_days`, move, and join them back.
No Python loop over rows; the same code runs on NumPy and CuPy.

Offsets and pandas' rules, as applied here (``n`` is the offset's multiple, negated for subtraction):

* **Fixed lengths** - ``Hour``, ``Minute``, ``Second``, ``Milli``, ``Micro``, ``Nano`` (pandas' ``Tick``s), ``Day``
  and ``Week()`` without a weekday: ``n`` times their length.
* **Calendar offsets** - ``DateOffset(years=, months=, weeks=, days=, hours=, minutes=, seconds=, milliseconds=,
  microseconds=, nanoseconds=)`` (plural: relative) and ``year=, month=, day=, hour=, minute=, second=``
  (singular: replace that field first): fields are replaced, then years and months are
  added (the day clipped to the new month's length, as ``dateutil.relativedelta`` does), then the rest as a
  length of time.
* **Anchored offsets** - ``MonthBegin/End``, ``QuarterBegin/End(startingMonth=)``, ``YearBegin/End(month=)``:
  the anchors are the first or last day of every month, quarter or year. pandas' roll convention: a date before
  the anchor of its own period counts that anchor as the first of ``n > 0`` steps; a date after it counts it as
  the first of ``n <= 0`` steps. The time of day is kept. ``Week(weekday=k)``: roll forward to the next weekday
  ``k`` (that roll counts as one step of ``n > 0``), then whole weeks.
* ``normalize=True`` sets the time of day to midnight after moving. NaT stays NaT.
* The result's unit is the finer of the column's and the offset's (``Nano`` makes ns, ``DateOffset(microseconds=)``
  us; the others keep the column's unit), as in pandas.

Everything else (business days, ``SemiMonthEnd``, ``Easter``, ``DateOffset(weekday=)``, ``DateOffset(microsecond=)`` ...) is
:data:`UNSUPPORTED`: callers fall back to pandas for it.

>>> import numpy as np, pandas as pd
>>> ticks = np.array(["2024-01-31T10:00", "2024-02-10T00:00"], "datetime64[s]").view(np.int64)
>>> out, unit = add_offset(ticks, "s", pd.offsets.MonthEnd(), np)
>>> out.view("datetime64[s]").tolist()[0].isoformat(), unit
('2024-02-29T10:00:00', 's')
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.ops.datetime_fields import TICKS_PER_SECOND, civil_from_days, days_from_civil, split_ticks

__all__ = ["add_offset", "is_date_offset", "supports", "UNSUPPORTED"]

NAT = dtypes.NAT
_UNITS = ("s", "ms", "us", "ns")  # coarse to fine
_NS_PER = {"weeks": 7 * 86_400 * 10**9, "days": 86_400 * 10**9, "hours": 3_600 * 10**9, "minutes": 60 * 10**9,
           "seconds": 10**9, "milliseconds": 10**6, "microseconds": 10**3, "nanoseconds": 1}  # fmt: skip
_FIXED = {pd.offsets.Day: "days", pd.offsets.Hour: "hours", pd.offsets.Minute: "minutes",
          pd.offsets.Second: "seconds", pd.offsets.Milli: "milliseconds", pd.offsets.Micro: "microseconds",
          pd.offsets.Nano: "nanoseconds"}  # fmt: skip
_RELATIVE = ("years", "months", "weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds",
             "nanoseconds")  # fmt: skip
# microsecond= / nanosecond= are left to pandas, whose handling depends on the column's unit in ways of its own
_ABSOLUTE = ("year", "month", "day", "hour", "minute", "second")
# anchored offsets: (months per period, the anchor's day: "first" or "last", the attribute naming its month)
_ANCHORED = {
    pd.offsets.MonthBegin: (1, "first", None), pd.offsets.MonthEnd: (1, "last", None),
    pd.offsets.QuarterBegin: (3, "first", "startingMonth"), pd.offsets.QuarterEnd: (3, "last", "startingMonth"),
    pd.offsets.YearBegin: (12, "first", "month"), pd.offsets.YearEnd: (12, "last", "month"),
}  # fmt: skip
UNSUPPORTED = "this date offset is not computed on the device (business days, semi-month, Easter, weekday=, microsecond=...)"


def is_date_offset(value: Any) -> bool:
    """True for a pandas date offset (``pd.offsets.*``, ``pd.DateOffset``)."""
    return isinstance(value, pd.offsets.BaseOffset)


def supports(offset: Any) -> bool:
    """Whether :func:`add_offset` computes ``offset`` (else the caller falls back to pandas).

    >>> supports(pd.offsets.MonthEnd(2)), supports(pd.offsets.BusinessDay())
    (True, False)
    """
    kind = type(offset)
    if kind in _FIXED or kind in _ANCHORED:
        return True
    if kind is pd.offsets.Week:
        return True
    if kind is pd.DateOffset:
        return set(offset.kwds) <= set(_RELATIVE) | set(_ABSOLUTE)
    return False


def add_offset(ticks: Any, unit: str, offset: Any, xp: Any, sign: int = 1) -> tuple[Any, str]:
    """``ticks + sign * offset`` for int64 datetime ticks in ``unit``: (the new ticks, their unit).

    NaT (INT64_MIN) rows stay NaT. Raise ``NotImplementedError`` for an offset :func:`supports` refuses.

    >>> t = np.array(["2024-03-15"], "datetime64[s]").view(np.int64)
    >>> [add_offset(t, "s", o, np)[0].view("datetime64[s]")[0].item().isoformat()
    ...  for o in (pd.offsets.QuarterEnd(), pd.DateOffset(months=-1, day=31), pd.offsets.Week(weekday=0))]
    ['2024-03-31T00:00:00', '2024-02-29T00:00:00', '2024-03-18T00:00:00']
    """
    if not supports(offset):
        raise NotImplementedError(f"{offset!r}: {UNSUPPORTED}")
    n = sign * int(offset.n)
    target = _result_unit(unit, offset)
    if target != unit:
        scale = TICKS_PER_SECOND[target] // TICKS_PER_SECOND[unit]
        ticks = xp.where(ticks == NAT, NAT, ticks * scale)
        unit = target
    nat = ticks == NAT
    kind = type(offset)
    if kind in _FIXED:
        moved = _checked_add(ticks, n * _ticks_of_ns(_NS_PER[_FIXED[kind]], unit), nat, xp)
    elif kind is pd.offsets.Week:
        moved = _weekly(ticks, unit, n, offset.weekday, nat, xp)
    elif kind is pd.DateOffset:
        moved = _relative(ticks, unit, n, offset.kwds, nat, xp)
    else:
        period, day_rule, month_attribute = _ANCHORED[kind]
        anchor_month = getattr(offset, month_attribute) if month_attribute else 1
        if kind is pd.offsets.QuarterEnd or kind is pd.offsets.QuarterBegin:
            anchor_month = anchor_month or 3
        moved = _anchored(ticks, unit, n, period, anchor_month, day_rule, nat, xp)
    if getattr(offset, "normalize", False):
        days, _ = split_ticks(moved, unit, xp)
        moved = days * _ticks_per_day(unit)
    return xp.where(nat, NAT, moved), unit


# --- units --------------------------------------------------------------------------------------------------


def _ticks_per_day(unit: str) -> int:
    return 86_400 * TICKS_PER_SECOND[unit]


def _ticks_of_ns(ns: int, unit: str) -> int:
    per_tick = 10**9 // TICKS_PER_SECOND[unit]
    return ns // per_tick


def _finest_needed(ns_amounts: list[int]) -> str:
    """The coarsest unit in which every one of these nanosecond amounts is a whole number of ticks."""
    for unit in _UNITS:
        per_tick = 10**9 // TICKS_PER_SECOND[unit]
        if all(amount % per_tick == 0 for amount in ns_amounts):
            return unit
    return "ns"


def _result_unit(unit: str, offset: Any) -> str:
    kind = type(offset)
    if kind in _FIXED:
        needed = _finest_needed([_NS_PER[_FIXED[kind]]])
    elif kind is pd.DateOffset:
        kwds = offset.kwds
        amounts = [int(kwds[k]) * _NS_PER[k] for k in _RELATIVE if k in kwds and k in _NS_PER]
        needed = _finest_needed(amounts)
    else:
        needed = "s"
    return max(unit, needed, key=_UNITS.index)


# --- calendar moves -------------------------------------------------------------------------------------------


def _days_in_month(year: Any, month: Any, xp: Any) -> Any:
    """Length of each (year, month), from the next month's first day."""
    next_year = year + (month == 12)
    next_month = month % 12 + 1
    first = days_from_civil(year, month, xp.ones_like(month), xp)
    return days_from_civil(next_year, next_month, xp.ones_like(month), xp) - first


def _add_months(year: Any, month: Any, months: Any) -> tuple[Any, Any]:
    index = year * 12 + (month - 1) + months
    return index // 12, index % 12 + 1


def _join(days: Any, time_of_day: Any, unit: str) -> Any:
    return days * _ticks_per_day(unit) + time_of_day


# --- the range of int64 ticks ----------------------------------------------------------------------------------
# A moved date outside the int64 ticks of its unit would wrap around silently: pandas raises instead.
# ``OutOfBoundsDatetime`` (a ValueError) for calendar moves, naming the first such date; ``OverflowError`` for
# fixed lengths of time (Day, Hour, ..., Week, DateOffset(days=) without months or years), as its int64
# addition does. NaT rows never raise.

_UNIT_NAMES = {"s": "second", "ms": "millisecond", "us": "microsecond", "ns": "nanosecond"}


def wrapped_int64(a: Any, b: Any, result: Any, op: str = "add") -> Any:
    """Where ``result`` = ``a + b`` (``a - b`` for ``op="sub"``) wrapped around in int64.

    Two's complement: a sum wrapped where the result's sign differs from both operands'; a difference where the
    operands' signs differ and the result's differs from ``a``'s.

    >>> wrapped_int64(np.array([2**62, 1]), np.array([2**62, 1]), np.array([2**62, 1]) * 2)
    array([ True, False])
    """
    return (((a ^ result) & (b ^ result)) < 0) if op == "add" else (((a ^ b) & (a ^ result)) < 0)


def _checked_add(ticks: Any, delta: Any, nat: Any, xp: Any) -> Any:
    """``ticks + delta`` (delta a Python int or an int64 array); OverflowError where a non-NaT row wraps or lands
    on NaT's value."""
    moved = ticks + delta
    wrapped = wrapped_int64(ticks, delta, moved) | (moved == NAT)
    if bool((wrapped & ~nat).any()):  # one scalar read: pandas refuses it
        raise OverflowError("Overflow in int64 addition")
    return moved


def _checked_join(days: Any, time_of_day: Any, unit: str, nat: Any, xp: Any, extra: int = 0,
                  singular: bool = False) -> Any:  # fmt: skip
    """Ticks of (day number, time of day) plus ``extra`` ticks; pandas' OutOfBoundsDatetime where a non-NaT row
    falls outside the int64 ticks of ``unit`` (``singular``: the message of a DateOffset that replaces fields)."""
    per_day = _ticks_per_day(unit)
    high_day, high_time = divmod(2**63 - 1 - extra, per_day)  # the last representable tick, before ``extra``
    low_day, low_time = divmod(-(2**63) + 1 - extra, per_day)  # the first (INT64_MIN is NaT)
    outside = (days > high_day) | ((days == high_day) & (time_of_day > high_time)) | (days < low_day) | (
        (days == low_day) & (time_of_day < low_time))  # fmt: skip
    outside &= ~nat
    if bool(outside.any()):  # one scalar read: pandas refuses a date its unit cannot hold
        row = int(xp.argmax(outside))  # one scalar read (error path): the first such date names the error
        _raise_out_of_bounds(int(days[row]), int(time_of_day[row]) + extra, unit, singular, midnight=extra != 0)
    return _join(days, time_of_day, unit) + extra


def _raise_out_of_bounds(day: int, ticks_of_day: int, unit: str, singular: bool, midnight: bool) -> None:
    """pandas' OutOfBoundsDatetime naming the date (exact Python ints: it has no int64 ticks); pandas names a
    date moved by months and a length of time at midnight (``midnight``)."""
    per_day = _ticks_per_day(unit)
    extra_days, ticks_of_day = divmod(ticks_of_day, per_day)
    year, month, day_of_month = (int(v[0]) for v in civil_from_days(np.array([day + extra_days]), np))
    seconds = 0 if midnight else ticks_of_day // TICKS_PER_SECOND[unit]
    text = (f"{year:04d}-{month:02d}-{day_of_month:02d} {seconds // 3600:02d}:{seconds // 60 % 60:02d}:"
            f"{seconds % 60:02d}")  # fmt: skip
    if singular:
        raise pd.errors.OutOfBoundsDatetime(f"Cannot cast {text} to unit='{unit}' without overflow.")
    raise pd.errors.OutOfBoundsDatetime(f"Out of bounds {_UNIT_NAMES[unit]} timestamp: {text}")


def _relative(ticks: Any, unit: str, n: int, kwds: dict, nat: Any, xp: Any) -> Any:
    """``DateOffset(**kwds)`` times ``n``: replace the singular fields, add months (day clipped), add the rest."""
    months = n * (12 * int(kwds.get("years", 0)) + int(kwds.get("months", 0)))
    fixed = n * _ticks_of_ns(sum(int(kwds.get(k, 0)) * _NS_PER[k] for k in _NS_PER), unit)
    singular = any(k in kwds for k in _ABSOLUTE)
    if not months and not singular:  # a length of time only: pandas adds it as a timedelta
        return _checked_add(ticks, fixed, nat, xp)
    days, time_of_day = split_ticks(ticks, unit, xp)
    year, month, day = civil_from_days(days, xp)
    if "year" in kwds:
        year = xp.full_like(year, int(kwds["year"]))
    if "month" in kwds:
        month = xp.full_like(month, int(kwds["month"]))
    if "day" in kwds:
        day = xp.full_like(day, int(kwds["day"]))
    per_second = TICKS_PER_SECOND[unit]
    if any(k in kwds for k in ("hour", "minute", "second")):
        seconds, fraction = time_of_day // per_second, time_of_day % per_second
        hour = int(kwds["hour"]) if "hour" in kwds else seconds // 3600
        minute = int(kwds["minute"]) if "minute" in kwds else seconds // 60 % 60
        second = int(kwds["second"]) if "second" in kwds else seconds % 60
        time_of_day = (hour * 3600 + minute * 60 + second) * per_second + fraction
    if months:
        year, month = _add_months(year, month, months)
    day = xp.minimum(day, _days_in_month(year, month, xp))  # relativedelta clips the day to the month
    return _checked_join(days_from_civil(year, month, day, xp), time_of_day, unit, nat, xp, fixed, singular)


def _anchored(ticks: Any, unit: str, n: int, period: int, anchor_month: int, day_rule: str, nat: Any,
              xp: Any) -> Any:  # fmt: skip
    """Month/quarter/year begin or end: step ``n`` anchors with pandas' roll convention, keeping the time."""
    days, time_of_day = split_ticks(ticks, unit, xp)
    year, month, day = civil_from_days(days, xp)
    month_index = year * 12 + (month - 1)
    offset = (anchor_month - 1) % period  # anchors sit at month_index = offset (mod period)
    if day_rule == "first":  # the anchor of a date's own period is at or before its month
        period_number = (month_index - offset) // period
    else:  # ... at or after its month
        period_number = -((offset - month_index) // period)
    anchor_index = period_number * period + offset
    anchor_year, anchor_month_ = anchor_index // 12, anchor_index % 12 + 1
    anchor_day = xp.ones_like(day) if day_rule == "first" else _days_in_month(anchor_year, anchor_month_, xp)
    # lexicographic (month, day) comparison of the date with its period's anchor; the time of day is ignored
    before = (month_index < anchor_index) | ((month_index == anchor_index) & (day < anchor_day))
    after = (month_index > anchor_index) | ((month_index == anchor_index) & (day > anchor_day))
    steps = n - before.astype(np.int64) if n > 0 else n + after.astype(np.int64)
    target = (period_number + steps) * period + offset
    target_year, target_month = target // 12, target % 12 + 1
    target_day = xp.ones_like(day) if day_rule == "first" else _days_in_month(target_year, target_month, xp)
    return _checked_join(days_from_civil(target_year, target_month, target_day, xp), time_of_day, unit, nat, xp)


def _weekly(ticks: Any, unit: str, n: int, weekday: int | None, nat: Any, xp: Any) -> Any:
    """``Week(n, weekday=)``: n weeks; with a weekday, first roll forward to it (counting as a step when n > 0)."""
    per_week = 7 * _ticks_per_day(unit)
    if weekday is None:
        return _checked_add(ticks, n * per_week, nat, xp)
    days, _ = split_ticks(ticks, unit, xp)
    own_weekday = (days + 3) % 7  # 1970-01-01 was a Thursday (Monday = 0)
    roll = (weekday - own_weekday) % 7
    steps = n - (roll != 0).astype(np.int64) if n > 0 else xp.full_like(roll, n)
    # a move of at most |n| + 1 weeks: its length in ticks fits in int64 for any n a calendar can use
    return _checked_add(ticks, roll * _ticks_per_day(unit) + steps * per_week, nat, xp)
