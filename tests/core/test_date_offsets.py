"""Date offsets added to datetime ticks (riptide/core/ops/date_offsets.py) against pandas' own offset arithmetic."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import stable_id
from riptide.core.ops.date_offsets import add_offset, supports

UNITS = ["s", "ms", "us", "ns"]

OFFSETS = [
    pd.offsets.Day(), pd.offsets.Day(3), pd.offsets.Hour(5), pd.offsets.Minute(-7), pd.offsets.Second(90),
    pd.offsets.Milli(3), pd.offsets.Micro(2), pd.offsets.Nano(1),
    pd.offsets.MonthEnd(), pd.offsets.MonthEnd(0), pd.offsets.MonthEnd(-2), pd.offsets.MonthEnd(3),
    pd.offsets.MonthBegin(), pd.offsets.MonthBegin(0), pd.offsets.MonthBegin(-1), pd.offsets.MonthBegin(2),
    pd.offsets.QuarterEnd(), pd.offsets.QuarterEnd(startingMonth=2), pd.offsets.QuarterEnd(-1, startingMonth=1),
    pd.offsets.QuarterBegin(), pd.offsets.QuarterBegin(0, startingMonth=1), pd.offsets.QuarterBegin(-2),
    pd.offsets.YearEnd(), pd.offsets.YearEnd(0), pd.offsets.YearEnd(month=6), pd.offsets.YearEnd(-1, month=3),
    pd.offsets.YearBegin(), pd.offsets.YearBegin(0), pd.offsets.YearBegin(2, month=7), pd.offsets.YearBegin(-1),
    pd.offsets.Week(), pd.offsets.Week(2), pd.offsets.Week(weekday=0), pd.offsets.Week(0, weekday=4),
    pd.offsets.Week(-1, weekday=6), pd.offsets.Week(3, weekday=2),
    pd.offsets.MonthEnd(normalize=True), pd.offsets.Week(weekday=2, normalize=True),
    pd.DateOffset(days=2), pd.DateOffset(months=1), pd.DateOffset(months=-13, days=3), pd.DateOffset(years=1),
    pd.DateOffset(weeks=1, hours=-5, minutes=30), pd.DateOffset(day=31), pd.DateOffset(months=1, day=31),
    pd.DateOffset(year=2020, month=2), pd.DateOffset(hour=0, minute=0), pd.DateOffset(microseconds=7),
    pd.DateOffset(nanoseconds=5), pd.DateOffset(2, months=1), pd.DateOffset(seconds=1, second=3),
    pd.DateOffset(milliseconds=250),
]  # fmt: skip

# instants around month, quarter and year ends, leap days, before 1970, with times of day
BASE = pd.to_datetime(format="ISO8601", arg=[
    "2024-01-31 10:00", "2024-02-29 23:59:59.5", "2024-03-01", "2023-12-31 12:00", "2024-06-30", "2024-07-01 00:00:01",
    "1969-12-31 23:00", "1900-02-28", "2000-02-29 06:30", "2024-03-15", "2024-03-31", "2024-01-01", "2025-11-30",
])  # fmt: skip


def _expected(ticks: np.ndarray, unit: str, offset, sign: int) -> pd.Series:
    s = pd.Series(ticks.view(f"datetime64[{unit}]"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas' PerformanceWarning for non-vectorised offsets
        return s + offset if sign > 0 else s - offset


def _check(ticks: np.ndarray, unit: str, offset, sign: int) -> None:
    want = _expected(ticks, unit, offset, sign)
    got, got_unit = add_offset(ticks, unit, offset, np, sign)
    assert got_unit == np.datetime_data(want.dtype)[0], (offset, unit)
    np.testing.assert_array_equal(got.view(f"datetime64[{got_unit}]"), want.to_numpy(), err_msg=f"{offset!r} {sign}")


@pytest.mark.parametrize("offset", OFFSETS, ids=stable_id)
@pytest.mark.parametrize("sign", [1, -1])
def test_fixed_dates_match_pandas(offset, sign):
    for unit in ("s", "ns"):
        ticks = BASE.as_unit(unit).asi8.copy()
        ticks[3] = np.iinfo(np.int64).min  # NaT stays NaT
        _check(ticks, unit, offset, sign)


@settings(max_examples=150, deadline=None)
@given(
    seconds=st.lists(st.integers(-2_000_000_000, 4_000_000_000), min_size=0, max_size=30),
    fraction=st.integers(0, 999_999_999),
    unit=st.sampled_from(UNITS),
    offset=st.sampled_from(OFFSETS),
    sign=st.sampled_from([1, -1]),
)
def test_random_instants_match_pandas(seconds, fraction, unit, offset, sign):
    ns = np.array(seconds, np.int64) * 10**9 + fraction
    ticks = ns // (10**9 // {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[unit])
    _check(ticks, unit, offset, sign)


def test_every_weekday_and_day_of_month():
    ticks = pd.date_range("2023-12-01", "2025-03-10", freq="D").as_unit("s").asi8
    for offset in [pd.offsets.Week(weekday=k) for k in range(7)] + [pd.offsets.QuarterBegin(0, startingMonth=2),
                                                                    pd.offsets.YearEnd(0, month=2)]:  # fmt: skip
        for sign in (1, -1):
            _check(ticks, "s", offset, sign)


def test_unsupported_offsets_are_named():
    assert not supports(pd.offsets.BusinessDay())
    assert not supports(pd.DateOffset(weekday=1)) and not supports(pd.DateOffset(microsecond=3))
    with pytest.raises(NotImplementedError, match="BusinessDay"):
        add_offset(np.zeros(1, np.int64), "s", pd.offsets.BusinessDay(), np)
