"""Calendar fields, rounding and timedelta components of int64 ticks, computed with xp integer arithmetic.

riptide stores datetime64 / timedelta64 columns as int64 counts of their unit (``s``, ``ms``, ``us`` or ``ns``)
since the Unix epoch, with NaT as INT64_MIN (:data:`riptide.core.dtypes.NAT`), because CuPy has no datetime
dtype. Everything here works on those int64 buffers with element-wise integer operations only, so the same code
runs on NumPy and CuPy: no loops over rows, no host round trips, no pandas on the data.

* The calendar date of a day count comes from Howard Hinnant's ``civil_from_days`` algorithm (proleptic
  Gregorian calendar, 400-year eras of 146097 days), written with floor division so days before 1970 (negative
  counts) are right. Field values of NaT rows are garbage here; callers mask them (:func:`field_result`).
* ``floor`` / ``ceil`` / ``round`` use pandas' formulas (``v - v % u``, ``ceil`` from it, round half to even
  via ``divmod``) with Python's floor-division semantics, which NumPy and CuPy integer ``floor_divide`` /
  ``remainder`` share; so they agree with pandas even for pandas' own odd cases (a negative frequency).
* A field is int32 in pandas (timedelta ``days`` int64), but float64 with NaN as soon as one value is NaT; that
  choice needs one scalar read (is any value NaT?). Boolean fields are False at NaT.

On the GPU each of those element-wise operations would be a pass over the column (``year`` takes about twenty), so
when ``xp`` is CuPy the fields, the timedelta components and ``floor`` / ``ceil`` / ``round`` by a positive step run
one fused CUDA kernel each (:mod:`riptide.core.kernels.datetime_kernels`): the ticks are read once and the result
written once. :func:`date_field_values` / :func:`timedelta_component_values` go further and give pandas' result
array directly (int32 out of the kernel, the NaT test folded in as a device flag), 12 bytes a row. The NumPy code
below is the CPU path and the reference those kernels are tested against.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide.core import dtypes
from riptide.core.kernels import datetime_kernels

__all__ = [
    "BOOL_FIELDS",
    "INT_FIELDS",
    "TICKS_PER_SECOND",
    "TIMEDELTA_FIELDS",
    "TIMEDELTA_COMPONENTS",
    "change_unit",
    "civil_from_days",
    "date_field",
    "date_field_values",
    "iso_calendar",
    "days_from_civil",
    "field_result",
    "round_ticks",
    "split_ticks",
    "timedelta_component",
    "timedelta_component_values",
    "timedelta_components",
    "total_seconds",
]

NAT = dtypes.NAT

#: ticks of each supported unit in one second.
TICKS_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}

_SECONDS_PER_DAY = 86_400
# Days before the 1st of each month in a common year, and the length of each month.
_CUMULATIVE_DAYS = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

#: Integer fields of a datetime (pandas' names).
INT_FIELDS = ("year", "month", "day", "hour", "minute", "second", "microsecond", "nanosecond",
              "day_of_week", "day_of_year", "quarter", "days_in_month")  # fmt: skip
#: Boolean fields of a datetime.
BOOL_FIELDS = ("is_leap_year", "is_month_start", "is_month_end", "is_quarter_start", "is_quarter_end",
               "is_year_start", "is_year_end")  # fmt: skip
#: Components of a timedelta (pandas' names).
TIMEDELTA_FIELDS = ("days", "seconds", "microseconds", "nanoseconds")
#: The columns of ``TimedeltaProperties.components`` (pandas' names and order).
TIMEDELTA_COMPONENTS = ("days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds")


def _ticks_per_second(unit: str) -> int:
    try:
        return TICKS_PER_SECOND[unit]
    except KeyError:
        raise NotImplementedError(f"datetime fields of unit {unit!r} (riptide supports s, ms, us, ns)") from None


def civil_from_days(days: Any, xp: Any) -> tuple[Any, Any, Any]:
    """(year, month, day) int64 arrays of day counts since 1970-01-01 (proleptic Gregorian calendar).

    >>> import numpy as np
    >>> [a.tolist() for a in civil_from_days(np.array([0, 18321, -1, -719468]), np)]
    [[1970, 2020, 1969, 0], [1, 2, 12, 3], [1, 29, 31, 1]]
    """
    z = days.astype(np.int64) + 719_468  # days since 0000-03-01
    era = xp.floor_divide(z, 146_097)
    doe = z - era * 146_097  # day of era, 0..146096
    yoe = (doe - doe // 1_460 + doe // 36_524 - doe // 146_096) // 365  # year of era, 0..399
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)  # day of the March-based year, 0..365
    mp = (5 * doy + 2) // 153  # March = 0 .. February = 11
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 - 12 * (mp >= 10)
    year = yoe + era * 400 + (month <= 2)
    return year, month, day


def days_from_civil(year: Any, month: Any, day: Any, xp: Any) -> Any:
    """Day count since 1970-01-01 of (year, month, day) int arrays; the inverse of :func:`civil_from_days`.

    >>> import numpy as np
    >>> days_from_civil(np.array([1970, 2020, 1969]), np.array([1, 2, 12]), np.array([1, 29, 31]), np).tolist()
    [0, 18321, -1]
    """
    year = year.astype(np.int64) - (month <= 2)
    era = xp.floor_divide(year, 400)
    yoe = year - era * 400
    mp = month.astype(np.int64) + 9 - 12 * (month > 2)  # March = 0
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def _is_leap(year: Any) -> Any:
    return (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))


def split_ticks(ticks: Any, unit: str, xp: Any) -> tuple[Any, Any]:
    """(days since the epoch, ticks since midnight) of int64 ticks, floor-divided so times before 1970 are right.

    >>> import numpy as np
    >>> [a.tolist() for a in split_ticks(np.array([90_000, -1]), "s", np)]
    [[1, -1], [3600, 86399]]
    """
    per_day = _SECONDS_PER_DAY * _ticks_per_second(unit)
    days = xp.floor_divide(ticks, per_day)
    return days, ticks - days * per_day


def date_field(ticks: Any, unit: str, field: str, xp: Any) -> Any:
    """One calendar field (pandas' name, e.g. ``"year"``, ``"is_month_end"``) of int64 ticks, per row.

    Integer fields come back as int64 and boolean fields as bool; values at NaT rows are meaningless (see
    :func:`field_result`).

    >>> import numpy as np
    >>> ticks = np.array([951_782_400, -1])  # 2000-02-29 00:00:00, 1969-12-31 23:59:59
    >>> date_field(ticks, "s", "day_of_year", np).tolist(), date_field(ticks, "s", "is_year_end", np).tolist()
    ([60, 365], [False, True])
    """
    per_second = _ticks_per_second(unit)
    if field not in INT_FIELDS and field not in BOOL_FIELDS:
        raise ValueError(f"unknown datetime field {field!r}")
    if xp is not np:  # CuPy: one fused kernel
        out_dtype = np.bool_ if field in BOOL_FIELDS else np.int64
        return datetime_kernels.field(ticks, per_second, field, out_dtype, xp, want_nat=False)[0]
    days, tod = split_ticks(ticks, unit, xp)
    if field == "hour":
        return tod // (3_600 * per_second)
    if field == "minute":
        return tod // (60 * per_second) % 60
    if field == "second":
        return tod // per_second % 60
    if field == "microsecond":
        return tod % per_second * 1_000_000 // per_second
    if field == "nanosecond":
        return tod % 1_000 if unit == "ns" else xp.zeros_like(tod)
    if field == "day_of_week":  # Monday = 0; 1970-01-01 was a Thursday
        return xp.remainder(days + 3, 7)
    year, month, day = civil_from_days(days, xp)
    if field == "year":
        return year
    if field == "month":
        return month
    if field == "day":
        return day
    if field == "quarter":
        return (month - 1) // 3 + 1
    leap = _is_leap(year)
    if field == "is_leap_year":
        return leap
    if field == "day_of_year":
        cumulative = xp.asarray(np.array(_CUMULATIVE_DAYS, dtype=np.int64))
        return cumulative[month - 1] + day + (leap & (month > 2))
    month_days = xp.asarray(np.array(_MONTH_DAYS, dtype=np.int64))[month - 1] + (leap & (month == 2))
    if field == "days_in_month":
        return month_days
    if field == "is_month_start":
        return day == 1
    if field == "is_month_end":
        return day == month_days
    if field == "is_quarter_start":
        return (day == 1) & (month % 3 == 1)
    if field == "is_quarter_end":
        return (day == month_days) & (month % 3 == 0)
    if field == "is_year_start":
        return (day == 1) & (month == 1)
    if field == "is_year_end":
        return (day == 31) & (month == 12)
    raise ValueError(f"unknown datetime field {field!r}")


def timedelta_component(ticks: Any, unit: str, field: str, xp: Any) -> Any:
    """``days`` / ``seconds`` / ``microseconds`` / ``nanoseconds`` of int64 timedelta ticks (days floored, the
    rest non-negative, as ``pd.Timedelta.components``).

    >>> import numpy as np
    >>> ticks = np.array([-86_398_500_000_000])  # -1 days +00:00:01.500000
    >>> [timedelta_component(ticks, "ns", f, np).tolist() for f in ("days", "seconds", "microseconds")]
    [[-1], [1], [500000]]
    """
    per_second = _ticks_per_second(unit)
    if field not in TIMEDELTA_FIELDS:
        raise ValueError(f"unknown timedelta component {field!r}")
    if xp is not np:  # CuPy: one fused kernel
        return datetime_kernels.field(ticks, per_second, f"td_{field}", np.int64, xp, want_nat=False)[0]
    days, rest = split_ticks(ticks, unit, xp)
    if field == "days":
        return days
    if field == "seconds":
        return rest // per_second
    if field == "microseconds":
        return rest % per_second * 1_000_000 // per_second
    if field == "nanoseconds":
        return rest % 1_000 if unit == "ns" else xp.zeros_like(rest)
    raise ValueError(f"unknown timedelta component {field!r}")


def total_seconds(ticks: Any, unit: str, xp: Any) -> Any:
    """float64 seconds of int64 timedelta ticks, NaN at NaT (pandas divides by the ticks per second).

    >>> import numpy as np
    >>> total_seconds(np.array([1_500, NAT]), "ms", np).tolist()
    [1.5, nan]
    """
    seconds = ticks / float(_ticks_per_second(unit))
    return xp.where(ticks == NAT, np.nan, seconds)


def field_result(values: Any, nat: Any, any_nat: bool, int_dtype: Any = np.int32) -> Any:
    """pandas' dtype of a field: bool stays bool (False at NaT); integers are ``int_dtype``, or float64 with
    NaN at NaT rows when ``any_nat``.

    >>> import numpy as np
    >>> field_result(np.array([3, 7]), np.array([False, True]), True).tolist()
    [3.0, nan]
    """
    if values.dtype == np.bool_:
        return values & ~nat
    if any_nat:
        out = values.astype(np.float64)
        out[nat] = np.nan  # boolean-mask assignment: the same on NumPy and CuPy
        return out
    return values.astype(int_dtype, copy=False)


def date_field_values(ticks: Any, unit: str, field: str, xp: Any) -> Any:
    """pandas' result array of the datetime field ``field`` of int64 ticks: int32, or float64 with NaN at NaT once
    a value is NaT; bool (False at NaT) for the ``is_*`` fields. :func:`date_field` and :func:`field_result` in one
    step: on CuPy one kernel pass in the common case (no NaT), a second one when a NaT calls for float64.

    >>> import numpy as np
    >>> date_field_values(np.array([951_782_400, NAT]), "s", "month", np).tolist()
    [2.0, nan]
    """
    if field not in INT_FIELDS and field not in BOOL_FIELDS:
        raise ValueError(f"unknown datetime field {field!r}")
    return _values(ticks, unit, field, field, xp, np.int32)


def timedelta_component_values(ticks: Any, unit: str, field: str, xp: Any) -> Any:
    """pandas' result array of the timedelta component ``field`` (``days`` int64, the others int32; float64 with
    NaN at NaT once a value is NaT).

    >>> import numpy as np
    >>> timedelta_component_values(np.array([-86_398_500]), "ms", "days", np).dtype
    dtype('int64')
    """
    if field not in TIMEDELTA_FIELDS:
        raise ValueError(f"unknown timedelta component {field!r}")
    return _values(ticks, unit, field, f"td_{field}", xp, np.int64 if field == "days" else np.int32)


def _values(ticks: Any, unit: str, field: str, code_name: str, xp: Any, int_dtype: Any) -> Any:
    is_bool = field in BOOL_FIELDS
    if xp is np:
        values = timedelta_component(ticks, unit, field, xp) if code_name.startswith("td_") else (
            date_field(ticks, unit, field, xp))  # fmt: skip
        nat = ticks == NAT
        return field_result(values, nat, not is_bool and bool(nat.any()), int_dtype)
    per_second = _ticks_per_second(unit)
    if is_bool:  # False at NaT, whatever the other rows
        return datetime_kernels.field(ticks, per_second, code_name, np.bool_, xp, want_nat=False)[0]
    values, saw_nat = datetime_kernels.field(ticks, per_second, code_name, int_dtype, xp)
    if bool(saw_nat[0]):  # one scalar read: pandas' result dtype (int vs float64) depends on whether any value is NaT
        values = datetime_kernels.field(ticks, per_second, code_name, np.float64, xp, want_nat=False)[0]
    return values


def round_ticks(ticks: Any, step: int, mode: str, xp: Any) -> Any:
    """``floor`` / ``ceil`` / ``round`` (half to even) int64 ticks to multiples of ``step`` ticks; NaT stays NaT.

    ``step`` is pandas' rounding unit already converted to the column's unit (``0`` means no change, as in
    pandas). A result beyond int64 raises ``OverflowError`` as pandas does.

    >>> import numpy as np
    >>> v = np.array([-15, -5, 5, 15, 14, NAT])
    >>> [round_ticks(v, 10, m, np)[:5].tolist() for m in ("floor", "ceil", "round")]
    [[-20, -10, 0, 10, 10], [-10, 0, 10, 20, 20], [-20, 0, 0, 20, 10]]
    """
    if step == 0:
        return ticks.copy()
    if mode not in datetime_kernels.ROUND_MODES:
        raise ValueError(f"unknown rounding mode {mode!r}")
    if xp is not np and step > 0:  # CuPy: one fused kernel (a negative step, pandas' odd case, stays below)
        out, overflow = datetime_kernels.round_ticks(ticks, step, mode, xp)
        if bool(overflow[0]):  # one scalar read: an overflow must raise, as in pandas
            raise OverflowError("value too large")
        return out
    nat = ticks == NAT
    if mode == "floor":
        out = ticks - xp.remainder(ticks, step)
    elif mode == "ceil":
        out = _ceil(ticks, step, xp)
    elif mode == "round":
        if step % 2:  # an odd step has no ties: round half down is exact
            out = _ceil(ticks - step // 2, step, xp)
        else:
            quotient = xp.floor_divide(ticks, step)
            remainder = ticks - quotient * step
            half = step // 2
            up = (remainder > half) | ((remainder == half) & (xp.remainder(quotient, 2) == 1))
            out = (quotient + up) * step
    else:
        raise ValueError(f"unknown rounding mode {mode!r}")
    # A true result lies within one step of its value; one that wrapped around int64 lands at the other end:
    # pandas raises OverflowError for those. (A result of exactly INT64_MIN reads as NaT, as in pandas.)
    reach = abs(step)
    wrapped = ~nat & (((ticks >= 0) & (out < ticks - reach)) | ((ticks < 0) & (out > ticks + reach)))
    if bool(wrapped.any()):  # one scalar read: an overflow must raise, as in pandas
        raise OverflowError("value too large")
    return xp.where(nat, np.int64(NAT), out)


def _ceil(ticks: Any, step: int, xp: Any) -> Any:
    remainder = xp.remainder(ticks, step)
    return xp.where(remainder == 0, ticks, ticks + (step - remainder))


def timedelta_components(ticks: Any, unit: str, xp: Any) -> dict[str, Any]:
    """The parts of int64 timedelta ticks as ``pd.Timedelta.components`` gives them (days floored, every other
    part non-negative), int64 arrays named as :data:`TIMEDELTA_COMPONENTS`; values at NaT are meaningless.

    >>> import numpy as np
    >>> parts = timedelta_components(np.array([-86_398_500, 93_784_005]), "ms", np)
    >>> [parts[name].tolist() for name in TIMEDELTA_COMPONENTS]
    [[-1, 1], [0, 2], [0, 3], [1, 4], [500, 5], [0, 0], [0, 0]]
    """
    per_second = _ticks_per_second(unit)
    days, rest = split_ticks(ticks, unit, xp)
    seconds, fraction = rest // per_second, rest % per_second
    nanos = fraction * (1_000_000_000 // per_second)  # the fraction of a second in nanoseconds (exact)
    return {
        "days": days,
        "hours": seconds // 3_600,
        "minutes": seconds // 60 % 60,
        "seconds": seconds % 60,
        "milliseconds": nanos // 1_000_000,
        "microseconds": nanos // 1_000 % 1_000,
        "nanoseconds": nanos % 1_000,
    }


def iso_calendar(ticks: Any, unit: str, xp: Any) -> tuple[Any, Any, Any]:
    """ISO 8601 (year, week, weekday) int64 arrays of int64 ticks: weeks start on Monday (weekday 1) and week 1
    is the week holding the year's first Thursday, so a week belongs to the year of its Thursday.

    >>> import numpy as np
    >>> days = np.array([20087, 18630, 18627])  # 2024-12-30, 2021-01-03, 2020-12-31
    >>> [a.tolist() for a in iso_calendar(days * 86_400, "s", np)]
    [[2025, 2020, 2020], [1, 53, 53], [1, 7, 4]]
    """
    days, _ = split_ticks(ticks, unit, xp)
    weekday = xp.remainder(days + 3, 7)  # Monday = 0
    thursday = days - weekday + 3
    year, _, _ = civil_from_days(thursday, xp)
    january_first = days_from_civil(year, xp.ones_like(year), xp.ones_like(year), xp)
    week = (thursday - january_first) // 7 + 1
    return year, week, weekday + 1


def change_unit(ticks: Any, unit: str, new_unit: str, xp: Any) -> Any:
    """int64 ticks of ``unit`` as ticks of ``new_unit`` (a coarser unit floors, as pandas' ``as_unit``); NaT stays
    NaT, and a value beyond int64 in the finer unit raises ``OverflowError``.

    >>> import numpy as np
    >>> change_unit(np.array([-1_500, 1_999, NAT]), "ms", "s", np).tolist()[:2], change_unit(np.array([2]), "s", "ms", np).tolist()
    ([-2, 1], [2000])
    """
    old, new = _ticks_per_second(unit), _ticks_per_second(new_unit)
    nat = ticks == NAT
    if new == old:
        return ticks.copy()
    if new < old:
        out = xp.floor_divide(ticks, old // new)
    else:
        factor = new // old
        limit = np.iinfo(np.int64).max // factor
        if bool((~nat & ((ticks > limit) | (ticks < -limit))).any()):  # one scalar read: overflow must raise
            raise OverflowError(f"Cannot cast to unit {new_unit!r} without overflow")
        out = ticks * factor
    return xp.where(nat, np.int64(NAT), out)
