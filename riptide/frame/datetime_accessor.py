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

Not yet: time zones (a tz-aware dtype raises ``NotImplementedError``), ``.dt`` of a categorical of datetimes,
``strftime``, ``day_name`` / ``month_name``, ``date`` / ``time``, ``isocalendar``, ``to_period``, ``components``,
``as_unit``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import NumericColumn
from riptide.core.ops import datetime_fields as fields

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
        if isinstance(dtype, pd.DatetimeTZDtype):
            raise NotImplementedError("the .dt accessor of tz-aware datetimes (time zones are not supported yet)")
        if dtypes.is_categorical(dtype) and dtypes.is_datetimelike(getattr(dtype.categories, "dtype", None)):
            raise NotImplementedError("the .dt accessor of a categorical of datetimes (not supported yet)")
        if dtypes.is_datetimelike(dtype):
            return DatetimeProperties(self) if dtype.kind == "M" else TimedeltaProperties(self)
        raise AttributeError("Can only use .dt accessor with datetimelike values")


class _Properties:
    """What the datetime and timedelta accessors share: the ticks, the unit and rounding."""

    __slots__ = ("_series", "_unit")

    def __init__(self, series: Any):
        self._series = series
        self._unit = np.datetime_data(series.dtype)[0]
        if self._unit not in fields.TICKS_PER_SECOND:
            raise NotImplementedError(f"the .dt accessor of unit {self._unit!r} (riptide supports s, ms, us, ns)")

    @property
    def _ticks(self) -> Any:
        return self._series._column.data

    @property
    def _xp(self) -> Any:
        return self._series._column.xp

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

    def _round(self, freq: Any, mode: str) -> Any:
        from pandas._libs.tslibs.timedeltas import get_unit_for_round

        # pandas' own frequency parser, on the host: the frequency is a scalar, and this gives pandas' exact
        # ValueError for a non-fixed, unknown or (for this unit) fractional frequency.
        step = int(get_unit_for_round(freq, _NPY_UNIT_CODE[self._unit]))
        return self._wrap(fields.round_ticks(self._ticks, step, mode, self._xp), self._series.dtype)

    def floor(self, freq: Any, ambiguous: Any = "raise", nonexistent: Any = "raise") -> Any:
        """Round each value down to a multiple of the fixed frequency ``freq`` (NaT stays NaT).

        >>> import riptide as rt, pandas as pd
        >>> s = rt.Series(pd.to_datetime(["1969-12-31 23:59:59"]))
        >>> s.dt.floor("15min").to_pandas().tolist()
        [Timestamp('1969-12-31 23:45:00')]
        """
        return self._round(freq, "floor")

    def ceil(self, freq: Any, ambiguous: Any = "raise", nonexistent: Any = "raise") -> Any:
        """Round each value up to a multiple of the fixed frequency ``freq`` (NaT stays NaT).

        >>> import riptide as rt, pandas as pd
        >>> rt.Series(pd.to_timedelta(["61s"])).dt.ceil("min").to_pandas().tolist()
        [Timedelta('0 days 00:02:00')]
        """
        return self._round(freq, "ceil")

    def round(self, freq: Any, ambiguous: Any = "raise", nonexistent: Any = "raise") -> Any:
        """Round each value to the nearest multiple of ``freq``, ties to the even multiple (as pandas).

        >>> import riptide as rt, pandas as pd
        >>> rt.Series(pd.to_datetime(["2024-01-01 00:30", "2024-01-01 01:30"])).dt.round("h").to_pandas().tolist()
        [Timestamp('2024-01-01 00:00:00'), Timestamp('2024-01-01 02:00:00')]
        """
        return self._round(freq, "round")


def _date_field(name: str, doc: str) -> property:
    def getter(self: DatetimeProperties) -> Any:
        return self._field(fields.date_field(self._ticks, self._unit, name, self._xp))

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
            midnight = fields.round_ticks(self._ticks, step, "floor", self._xp)
        except OverflowError:  # a time on the int64 range's first day: pandas' message
            raise ValueError("Cannot normalize Timestamp without integer overflow") from None
        return self._wrap(midnight, self._series.dtype)


def _timedelta_field(name: str, doc: str) -> property:
    def getter(self: TimedeltaProperties) -> Any:
        values = fields.timedelta_component(self._ticks, self._unit, name, self._xp)
        return self._field(values, np.int64 if name == "days" else np.int32)

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
