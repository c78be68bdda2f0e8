"""The ``.dt`` accessor of a datetime / timedelta Series, computed on the column's device.

``series.dt`` returns :class:`DatetimeProperties` for a datetime64 Series and :class:`TimedeltaProperties` for a
timedelta64 one; any other Series raises pandas' ``AttributeError`` (so ``hasattr(s, "dt")`` is False, as in
pandas). The work happens in :mod:`riptide.core.ops.datetime_fields` on the int64 ticks (NaT = INT64_MIN); this
module only picks pandas' result dtype and wraps the result with the Series' index and name.

pandas' rules followed here:

* integer fields (``year`` ... ``days_in_month``) are int32, timedelta ``days`` int64, but float64 with NaN once a
  value is NaT (deciding that is one scalar read); boolean fields are bool, False at NaT;
* ``floor`` / ``ceil`` / ``round`` take a fixed frequency (``"15min"``, ``"h"``, ``pd.Timedelta``...); pandas'
  own parser checks it on the host (a frequency is a scalar, not data) and gives pandas' ``ValueError`` for a
  non-fixed or unknown one, or one that is not a whole number of the column's unit;
* the aliases ``dayofweek``, ``weekday``, ``dayofyear``, ``daysinmonth`` warn as pandas 3.1 does.

Time zones: a tz-aware Series (``datetime64[unit, tz]``) holds UTC ticks; its fields, ``strftime`` and rounding
are computed on the wall-clock ticks (:func:`riptide.core.ops.timezones.to_wall`, one ``searchsorted`` into the
zone's transition table and a gather), as pandas computes them. ``floor`` / ``ceil`` / ``round`` / ``normalize``
round the wall time and localize it again with ``ambiguous`` / ``nonexistent`` (pandas' rules and errors).
``tz_localize`` / ``tz_convert`` / ``tz`` follow pandas; ``tz_convert`` only changes the dtype.

``strftime`` / ``day_name`` / ``month_name`` build the strings on the device
(:mod:`riptide.core.ops.format_datetime`); a directive it does not know goes to pandas on the host, with a
warning naming it (once per directive).

``isocalendar`` (ISO year / week / weekday from the Thursday of each week), ``components`` (floored days, the rest
non-negative) and ``as_unit`` (a coarser unit floors) are computed on the device too.

Not yet: ``.dt`` of a categorical of datetimes, a ``locale`` for the names. Not supported (``NotImplementedError``):
``date`` / ``time`` / ``timetz`` / ``to_pydatetime`` / ``to_pytimedelta`` (pandas returns Python objects, which
riptide cannot hold) and ``to_period`` (riptide has no period dtype).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import NumericColumn
from riptide.core.ops import datetime_fields as fields
from riptide.core.ops import format_datetime, timezones

__all__ = ["DatetimeProperties", "SeriesDatetimeAccessorMethods", "TimedeltaProperties"]

# NumPy's datetime unit codes (NPY_DATETIMEUNIT), which pandas' frequency converter takes.
_NPY_UNIT_CODE = {"s": 7, "ms": 8, "us": 9, "ns": 10}


class SeriesDatetimeAccessorMethods:
    """Mixin of Series: the ``dt`` accessor."""

    @property
    def dt(self) -> DatetimeProperties | TimedeltaProperties:
        """Datetime / timedelta fields and rounding of this Series' values.

        >>> import riptide as rt, pandas as pd
        >>> s = rt.Series(pd.to_datetime(["2024-02-29 13:45", None]))
        >>> s.dt.month.to_pandas().tolist(), s.dt.is_leap_year.to_pandas().tolist()
        ([2.0, nan], [True, False])
        """
        dtype = self.dtype
        if dtypes.is_categorical(dtype) and dtypes.is_datetimelike(getattr(dtype.categories, "dtype", None)):
            raise NotImplementedError("the .dt accessor of a categorical of datetimes (not supported yet)")
        if dtypes.is_datetimelike(dtype):
            return DatetimeProperties(self) if dtypes.is_datetime(dtype) else TimedeltaProperties(self)
        raise AttributeError("Can only use .dt accessor with datetimelike values")


class _Properties:
    """What the datetime and timedelta accessors share: the ticks, the unit and rounding."""

    __slots__ = ("_series", "_unit")

    def __init__(self, series: Any):
        self._series = series
        self._unit = dtypes.datetime_unit(series.dtype)
        if self._unit not in fields.TICKS_PER_SECOND:
            raise NotImplementedError(f"the .dt accessor of unit {self._unit!r} (riptide supports s, ms, us, ns)")

    @property
    def _ticks(self) -> Any:
        return self._series._column.data

    @property
    def _xp(self) -> Any:
        return self._series._column.xp

    @property
    def _tz(self) -> Any:
        dtype = self._series.dtype
        return dtype.tz if dtypes.is_datetime_tz(dtype) else None

    @property
    def _wall(self) -> Any:
        """The wall-clock ticks: the ticks themselves when naive, UTC ticks moved into the zone when tz-aware."""
        if self._tz is None:
            return self._ticks
        return timezones.to_wall(self._ticks, self._tz, self._unit, self._xp)

    def _relocalize(self, wall: Any, ambiguous: Any, nonexistent: Any) -> Any:
        """Wall-clock ticks back as a Series of this one's dtype (tz-aware: localized again, pandas' rules)."""
        if self._tz is None:
            return self._wrap(wall, self._series.dtype)
        utc = timezones.localize(wall, self._tz, self._unit, self._xp, ambiguous, nonexistent)
        return self._wrap(utc, self._series.dtype)

    def _wrap(self, data: Any, dtype: Any = None) -> Any:
        column = NumericColumn(data, dtype=data.dtype if dtype is None else dtype)
        return self._series._with_column(column)

    def _field(self, values: Any, int_dtype: Any = np.int32) -> Any:
        nat = self._ticks == dtypes.NAT
        # one scalar read: pandas' result dtype (int vs float64) depends on whether any value is NaT
        any_nat = values.dtype != np.bool_ and bool(nat.any())
        return self._wrap(fields.field_result(values, nat, any_nat, int_dtype))

    @property
    def unit(self) -> str:
        """The resolution of the values: ``"s"``, ``"ms"``, ``"us"`` or ``"ns"``."""
        return self._unit

    def as_unit(self, unit: str, round_ok: bool = True) -> Any:
        """The values in resolution ``unit`` (``"s"``, ``"ms"``, ``"us"``, ``"ns"``); a coarser unit floors (with
        ``round_ok=False`` a value that would change raises ``ValueError``), a finer one that overflows raises
        pandas' ``OutOfBoundsDatetime`` / ``OutOfBoundsTimedelta``.

        >>> import riptide as rt, pandas as pd
        >>> rt.Series(pd.to_datetime(["2024-01-01 00:00:01.9"])).dt.as_unit("s").to_pandas().tolist()
        [Timestamp('2024-01-01 00:00:01')]
        """
        if unit not in fields.TICKS_PER_SECOND:
            raise ValueError("Supported units are 's', 'ms', 'us', 'ns'")
        dtype = self._series.dtype
        if dtypes.is_datetime_tz(dtype):
            new_dtype = pd.DatetimeTZDtype(unit, dtype.tz)
        else:
            new_dtype = np.dtype(f"{dtype.kind}8[{unit}]")
        try:
            ticks = fields.change_unit(self._ticks, self._unit, unit, self._xp)
        except OverflowError:
            error = pd.errors.OutOfBoundsDatetime if dtype.kind == "M" else pd.errors.OutOfBoundsTimedelta
            raise error(f"Cannot cast values of unit {self._unit!r} to unit {unit!r} without overflow") from None
        if not round_ok and fields.TICKS_PER_SECOND[unit] < fields.TICKS_PER_SECOND[self._unit]:
            back = fields.change_unit(ticks, unit, self._unit, self._xp)
            if bool((back != self._ticks).any()):  # one scalar read: a lossy conversion must raise
                raise ValueError("Cannot losslessly cast to a coarser unit")
        return self._wrap(ticks, new_dtype)

    def _not_on_device(self, name: str, what: str) -> Any:
        raise NotImplementedError(f".dt.{name}: pandas returns {what}, which riptide cannot hold")

    def _round(self, freq: Any, mode: str, ambiguous: Any = "raise", nonexistent: Any = "raise") -> Any:
        from pandas._libs.tslibs.timedeltas import get_unit_for_round

        # pandas' own frequency parser, on the host: the frequency is a scalar, and this gives pandas' exact
        # ValueError for a non-fixed, unknown or (for this unit) fractional frequency.
        step = int(get_unit_for_round(freq, _NPY_UNIT_CODE[self._unit]))
        rounded = fields.round_ticks(self._wall, step, mode, self._xp)
        return self._relocalize(rounded, ambiguous, nonexistent)

    def floor(self, freq: Any, ambiguous: Any = "raise", nonexistent: Any = "raise") -> Any:
        """Round each value down to a multiple of the fixed frequency ``freq`` (NaT stays NaT).

        >>> import riptide as rt, pandas as pd
        >>> s = rt.Series(pd.to_datetime(["1969-12-31 23:59:59"]))
        >>> s.dt.floor("15min").to_pandas().tolist()
        [Timestamp('1969-12-31 23:45:00')]
        """
        return self._round(freq, "floor", ambiguous, nonexistent)

    def ceil(self, freq: Any, ambiguous: Any = "raise", nonexistent: Any = "raise") -> Any:
        """Round each value up to a multiple of the fixed frequency ``freq`` (NaT stays NaT).

        >>> import riptide as rt, pandas as pd
        >>> rt.Series(pd.to_timedelta(["61s"])).dt.ceil("min").to_pandas().tolist()
        [Timedelta('0 days 00:02:00')]
        """
        return self._round(freq, "ceil", ambiguous, nonexistent)

    def round(self, freq: Any, ambiguous: Any = "raise", nonexistent: Any = "raise") -> Any:
        """Round each value to the nearest multiple of ``freq``, ties to the even multiple (as pandas).

        >>> import riptide as rt, pandas as pd
        >>> rt.Series(pd.to_datetime(["2024-01-01 00:30", "2024-01-01 01:30"])).dt.round("h").to_pandas().tolist()
        [Timestamp('2024-01-01 00:00:00'), Timestamp('2024-01-01 02:00:00')]
        """
        return self._round(freq, "round", ambiguous, nonexistent)


def _date_field(name: str, doc: str) -> property:
    def getter(self: DatetimeProperties) -> Any:
        return self._wrap(fields.date_field_values(self._wall, self._unit, name, self._xp))  # one pass on the GPU

    getter.__name__ = name
    getter.__doc__ = doc
    return property(getter)


def _deprecated_alias(alias: str, name: str) -> property:
    def getter(self: DatetimeProperties) -> Any:
        warnings.warn(f"Series.dt.{alias} is deprecated and will be removed in a future version. "
                      f"Use Series.dt.{name} instead.", pd.errors.Pandas4Warning, stacklevel=2)  # fmt: skip
        return getattr(self, name)

    getter.__name__ = alias
    getter.__doc__ = f"Deprecated alias of ``{name}`` (pandas 3.1 warns)."
    return property(getter)


class DatetimeProperties(_Properties):
    """``Series.dt`` of a datetime64 Series: calendar fields, rounding and ``normalize``.

    >>> import riptide as rt, pandas as pd
    >>> s = rt.Series(pd.to_datetime(["1900-02-28 06:30", "2000-02-29 00:00"]))
    >>> s.dt.year.to_pandas().tolist(), s.dt.day_of_week.to_pandas().tolist()
    ([1900, 2000], [2, 1])
    """

    __slots__ = ()

    year = _date_field("year", "The year.")
    month = _date_field("month", "The month, January = 1.")
    day = _date_field("day", "The day of the month.")
    hour = _date_field("hour", "The hour.")
    minute = _date_field("minute", "The minute.")
    second = _date_field("second", "The second.")
    microsecond = _date_field("microsecond", "The microseconds within the second.")
    nanosecond = _date_field("nanosecond", "The nanoseconds within the microsecond.")
    day_of_week = _date_field("day_of_week", "The day of the week, Monday = 0 to Sunday = 6.")
    day_of_year = _date_field("day_of_year", "The day of the year, 1 to 366.")
    quarter = _date_field("quarter", "The quarter of the year, 1 to 4.")
    days_in_month = _date_field("days_in_month", "The number of days in the month.")
    is_leap_year = _date_field("is_leap_year", "Whether the year is a leap year.")
    is_month_start = _date_field("is_month_start", "Whether the day is the first of its month.")
    is_month_end = _date_field("is_month_end", "Whether the day is the last of its month.")
    is_quarter_start = _date_field("is_quarter_start", "Whether the day is the first of its quarter.")
    is_quarter_end = _date_field("is_quarter_end", "Whether the day is the last of its quarter.")
    is_year_start = _date_field("is_year_start", "Whether the day is January 1st.")
    is_year_end = _date_field("is_year_end", "Whether the day is December 31st.")

    dayofweek = _deprecated_alias("dayofweek", "day_of_week")
    weekday = _deprecated_alias("weekday", "day_of_week")
    dayofyear = _deprecated_alias("dayofyear", "day_of_year")
    daysinmonth = _deprecated_alias("daysinmonth", "days_in_month")

    def normalize(self) -> Any:
        """Each value at midnight of its day (the time part set to zero; NaT stays NaT).

        >>> import riptide as rt, pandas as pd
        >>> rt.Series(pd.to_datetime(["1969-12-31 23:59"])).dt.normalize().to_pandas().tolist()
        [Timestamp('1969-12-31 00:00:00')]
        """
        step = 86_400 * fields.TICKS_PER_SECOND[self._unit]
        try:
            midnight = fields.round_ticks(self._wall, step, "floor", self._xp)
        except OverflowError:  # a time on the int64 range's first day: pandas' message
            raise ValueError("Cannot normalize Timestamp without integer overflow") from None
        return self._relocalize(midnight, "raise", "raise")

    def isocalendar(self) -> Any:
        """The ISO 8601 calendar of each value: a DataFrame with columns year (Int32), week and day (UInt32, Monday
        = 1), <NA> at NaT.

        >>> import riptide as rt, pandas as pd
        >>> rt.Series(pd.to_datetime(["2024-12-30", None])).dt.isocalendar().to_pandas().values.tolist()
        [[2025, 1, 1], [<NA>, <NA>, <NA>]]
        """
        from riptide.frame.dataframe import DataFrame

        year, week, day = fields.iso_calendar(self._wall, self._unit, self._xp)
        valid = self._ticks != dtypes.NAT
        columns = {}
        for name, values, dtype in (("year", year, pd.Int32Dtype()), ("week", week, pd.UInt32Dtype()),
                                    ("day", day, pd.UInt32Dtype())):  # fmt: skip
            data = self._xp.where(valid, values, 0).astype(dtype.numpy_dtype)
            columns[name] = NumericColumn(data, dtype=dtype, mask=valid)
        return DataFrame._from_columns(columns, self._series.index)

    @property
    def date(self) -> Any:
        """Not supported: pandas returns an object column of ``datetime.date``; use ``dt.normalize()`` or
        ``dt.floor("D")`` for the dates as datetimes."""
        return self._not_on_device("date", "an object column of datetime.date (use dt.normalize() for datetimes)")

    @property
    def time(self) -> Any:
        """Not supported: pandas returns an object column of ``datetime.time``."""
        return self._not_on_device("time", "an object column of datetime.time (use dt.hour / dt.minute ... instead)")

    @property
    def timetz(self) -> Any:
        """Not supported: pandas returns an object column of ``datetime.time``."""
        return self._not_on_device("timetz", "an object column of datetime.time")

    def to_pydatetime(self) -> Any:
        """Not supported: pandas returns Python ``datetime`` objects; use ``to_pandas()`` and call it there."""
        return self._not_on_device("to_pydatetime", "Python datetime objects")

    def to_period(self, freq: Any = None) -> Any:
        """Not supported: riptide has no period dtype."""
        raise NotImplementedError(".dt.to_period: riptide has no period dtype")

    # --- time zones ------------------------------------------------------------------------------------------
    @property
    def tz(self) -> Any:
        """The time zone (a tzinfo), None for naive values.

        >>> import riptide as rt, pandas as pd
        >>> rt.Series(pd.to_datetime(["2024-01-01"])).dt.tz_localize("Europe/Berlin").dt.tz
        zoneinfo.ZoneInfo(key='Europe/Berlin')
        """
        return self._tz

    def tz_localize(self, tz: Any, ambiguous: Any = "raise", nonexistent: Any = "raise") -> Any:
        """Read naive values as wall-clock times of ``tz`` (or drop the zone of tz-aware ones with ``None``).

        ``ambiguous`` ("raise", "NaT", "infer", a bool or a bool array: True = the DST reading) settles wall times
        that occur twice; ``nonexistent`` ("raise", "NaT", "shift_forward", "shift_backward" or a timedelta)
        those skipped by a DST jump, as pandas does.

        >>> import riptide as rt, pandas as pd
        >>> s = rt.Series(pd.to_datetime(["2024-03-31 02:30", "2024-07-01 12:00"]))
        >>> s.dt.tz_localize("Europe/Berlin", nonexistent="shift_forward").to_pandas().tolist()
        [Timestamp('2024-03-31 03:00:00+0200', tz='Europe/Berlin'), Timestamp('2024-07-01 12:00:00+0200', tz='Europe/Berlin')]
        """
        if self._tz is not None:
            if tz is not None:
                raise TypeError("Already tz-aware, use tz_convert to convert.")
            wall = timezones.to_wall(self._ticks, self._tz, self._unit, self._xp)
            return self._wrap(wall, np.dtype(f"M8[{self._unit}]"))
        if tz is None:
            return self._wrap(self._ticks.copy(), self._series.dtype)
        dtype = timezones.resolve_tz(tz, self._unit)
        if timezones.zone_table(dtype.tz).is_fixed:  # pandas checks no argument for a fixed offset
            utc = timezones.localize(self._ticks, dtype.tz, self._unit, self._xp)
        else:
            utc = timezones.localize(self._ticks, dtype.tz, self._unit, self._xp, ambiguous, nonexistent)
        return self._wrap(utc, dtype)

    def tz_convert(self, tz: Any) -> Any:
        """The same instants shown in zone ``tz`` (``None``: naive UTC). Only the dtype changes.

        >>> import riptide as rt, pandas as pd
        >>> s = rt.Series(pd.to_datetime(["2024-01-01 12:00"])).dt.tz_localize("UTC")
        >>> s.dt.tz_convert("Asia/Kolkata").to_pandas().tolist()
        [Timestamp('2024-01-01 17:30:00+0530', tz='Asia/Kolkata')]
        """
        if self._tz is None:
            raise TypeError("Cannot convert tz-naive timestamps, use tz_localize to localize")
        dtype = np.dtype(f"M8[{self._unit}]") if tz is None else timezones.resolve_tz(tz, self._unit)
        return self._wrap(self._ticks, dtype)

    # --- text ------------------------------------------------------------------------------------------------
    def strftime(self, date_format: str) -> Any:
        """Each value formatted with ``date_format`` (C ``strftime`` directives); NaT gives a missing value.

        ``%Y %m %d %H %M %S %f %y %j %I %e %b %B %a %A %p %Z %z %%`` are formatted on the device; any other
        directive goes to pandas on the host (with a warning naming it).

        >>> import riptide as rt, pandas as pd
        >>> s = rt.Series(pd.to_datetime(["2024-02-29 13:05:09", None]))
        >>> s.dt.strftime("%a %d %B %Y, %I:%M %p").to_pandas().tolist()
        ['Thu 29 February 2024, 01:05 PM', nan]
        """
        if not isinstance(date_format, str):
            raise TypeError(f"date_format must be a string, not {type(date_format).__name__}")
        pieces, reason = format_datetime.plan(date_format)
        if reason is None and self._unit != "ns":
            # %Y of years before 1000 or after 9999 is not zero-padded by C's strftime: leave those to pandas.
            year = fields.date_field(self._wall, self._unit, "year", self._xp)
            nat = self._ticks == dtypes.NAT
            outside = ~nat & ((year < 1000) | (year > 9999))
            if bool(outside.any()):  # one scalar read: whether the device formatting applies
                reason = "years outside 1000-9999"
        if reason is not None:
            return self._on_host(lambda host: host.dt.strftime(date_format), reason)
        return self._strings(format_datetime.format_wall(self._wall, self._unit, pieces, self._zone_pieces(pieces)))

    def day_name(self, locale: Any = None) -> Any:
        """The English name of each value's weekday (``str``; NaT gives a missing value).

        >>> import riptide as rt, pandas as pd
        >>> rt.Series(pd.to_datetime(["2024-02-29"])).dt.day_name().to_pandas().tolist()
        ['Thursday']
        """
        if locale is not None:
            return self._on_host(lambda host: host.dt.day_name(locale=locale), "a locale")
        return self._strings(format_datetime.names(self._wall, self._unit, "day"))

    def month_name(self, locale: Any = None) -> Any:
        """The English name of each value's month (``str``; NaT gives a missing value).

        >>> import riptide as rt, pandas as pd
        >>> rt.Series(pd.to_datetime(["2024-02-29"])).dt.month_name().to_pandas().tolist()
        ['February']
        """
        if locale is not None:
            return self._on_host(lambda host: host.dt.month_name(locale=locale), "a locale")
        return self._strings(format_datetime.names(self._wall, self._unit, "month"))

    def _zone_pieces(self, pieces: list[tuple[str, str]]) -> Any:
        if self._tz is None or not any(p == ("code", "Z") or p == ("code", "z") for p in pieces):
            return None
        table = timezones.zone_table(self._tz)
        return table, timezones.interval_index(self._ticks, self._tz, self._unit, self._xp)

    def _strings(self, column: Any) -> Any:
        return self._series._with_column(column)

    def _on_host(self, compute: Any, reason: str) -> Any:
        from riptide.core.column import as_column

        if reason not in _WARNED:
            _WARNED.add(reason)
            warnings.warn(f"riptide formats datetimes with {reason} through pandas on the host (a copy of the "
                          "column to the CPU and back)", UserWarning, stacklevel=3)  # fmt: skip
        host = compute(self._series.to_pandas())
        return self._series._with_column(as_column(host, xp=self._xp))


#: The host-fallback reasons already warned about (one warning per reason per process).
_WARNED: set[str] = set()


def _timedelta_field(name: str, doc: str) -> property:
    def getter(self: TimedeltaProperties) -> Any:
        return self._wrap(fields.timedelta_component_values(self._ticks, self._unit, name, self._xp))

    getter.__name__ = name
    getter.__doc__ = doc
    return property(getter)


class TimedeltaProperties(_Properties):
    """``Series.dt`` of a timedelta64 Series: components, ``total_seconds`` and rounding.

    >>> import riptide as rt, pandas as pd
    >>> s = rt.Series(pd.to_timedelta(["-1 days +00:00:01.5"]))
    >>> s.dt.days.to_pandas().tolist(), s.dt.seconds.to_pandas().tolist(), s.dt.total_seconds().to_pandas().tolist()
    ([-1], [1], [-86398.5])
    """

    __slots__ = ()

    days = _timedelta_field("days", "Whole days (floored: ``-1 days +00:00:01`` has days = -1).")
    seconds = _timedelta_field("seconds", "Seconds past the whole days, 0 to 86399.")
    microseconds = _timedelta_field("microseconds", "Microseconds past the whole seconds.")
    nanoseconds = _timedelta_field("nanoseconds", "Nanoseconds past the whole microseconds.")

    def total_seconds(self) -> Any:
        """Each duration in seconds, float64 (NaN at NaT).

        >>> import riptide as rt, pandas as pd
        >>> rt.Series(pd.to_timedelta(["1min 30s", None])).dt.total_seconds().to_pandas().tolist()
        [90.0, nan]
        """
        return self._wrap(fields.total_seconds(self._ticks, self._unit, self._xp))

    @property
    def components(self) -> Any:
        """The parts of each duration: a DataFrame with columns days, hours, minutes, seconds, milliseconds,
        microseconds, nanoseconds (days floored, the rest non-negative), int64, or float64 with NaN once a value is
        NaT.

        >>> import riptide as rt, pandas as pd
        >>> rt.Series(pd.to_timedelta(["1 days 02:03:04.005"])).dt.components.to_pandas().values.tolist()
        [[1, 2, 3, 4, 5, 0, 0]]
        """
        from riptide.frame.dataframe import DataFrame

        parts = fields.timedelta_components(self._ticks, self._unit, self._xp)
        nat = self._ticks == dtypes.NAT
        any_nat = bool(nat.any())  # one scalar read: int64, or float64 with NaN at NaT
        columns = {name: NumericColumn(fields.field_result(parts[name], nat, any_nat, np.int64))
                   for name in fields.TIMEDELTA_COMPONENTS}  # fmt: skip
        return DataFrame._from_columns(columns, self._series.index)

    def to_pytimedelta(self) -> Any:
        """Not supported: pandas returns Python ``timedelta`` objects; use ``to_pandas()`` and call it there."""
        return self._not_on_device("to_pytimedelta", "Python timedelta objects")
