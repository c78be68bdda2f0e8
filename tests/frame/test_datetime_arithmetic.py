"""Series of datetimes with date offsets and date strings, against pandas: ``s + pd.offsets.MonthEnd()``,
``s - pd.DateOffset(months=1)``, ``s > "2024-01-15"``, ``s.between("2024-01-01", "2024-06-30")``."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from conftest import assert_series_equal, check_same_outcome, check_same_outcome_exactly, stable_id
from riptide.errors import HostFallbackWarning

DEVICE_OFFSETS = [pd.offsets.MonthEnd(), pd.offsets.MonthBegin(-2), pd.offsets.QuarterEnd(), pd.offsets.YearBegin(),
                  pd.offsets.Week(weekday=3), pd.offsets.Hour(5), pd.offsets.Day(2), pd.offsets.Nano(7),
                  pd.DateOffset(months=1, days=2), pd.DateOffset(years=-1, day=31)]  # fmt: skip
HOST_OFFSETS = [pd.offsets.BusinessDay(2), pd.offsets.SemiMonthEnd(), pd.offsets.Easter()]


@st.composite
def datetime_series(draw):
    unit = draw(st.sampled_from(["s", "ms", "us", "ns"]))
    seconds = draw(st.lists(st.integers(-1_000_000_000, 3_000_000_000), max_size=20))
    values = np.array(seconds, np.int64).astype("datetime64[s]").astype(f"datetime64[{unit}]")
    s = pd.Series(values)
    if len(s) and draw(st.booleans()):
        s.iloc[draw(st.integers(0, len(s) - 1))] = pd.NaT
    return s


def _both(s: pd.Series, fn) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HostFallbackWarning)
        check_same_outcome(lambda: fn(rt.Series(s)), lambda: fn(s), assert_series_equal)


@settings(max_examples=60, deadline=None)
@given(s=datetime_series(), offset=st.sampled_from(DEVICE_OFFSETS))
def test_offsets_on_the_device_match_pandas(s, offset):
    _both(s, lambda x: x + offset)
    _both(s, lambda x: x - offset)
    _both(s, lambda x: offset + x)


def test_device_offsets_do_not_warn():
    s = rt.Series(pd.to_datetime(["2024-01-31", None]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", HostFallbackWarning)
        s + pd.offsets.MonthEnd()


@pytest.mark.parametrize("offset", HOST_OFFSETS, ids=stable_id)
def test_other_offsets_run_through_pandas_with_a_warning(offset):
    s = pd.Series(pd.to_datetime(["2024-01-31 10:00", None, "2024-03-08"], format="mixed"))
    with pytest.warns(HostFallbackWarning, match=type(offset).__name__):
        got = rt.Series(s) + offset
    assert_series_equal(got, s + offset)
    _both(s, lambda x: x - offset)


@pytest.mark.parametrize("fn", [
    lambda x: pd.offsets.MonthEnd() - x,  # pandas: cannot subtract DatetimeArray from MonthEnd
    lambda x: x * pd.offsets.Day(),
])  # fmt: skip
def test_refused_offset_operations_raise_as_pandas(fn):
    _both(pd.Series(pd.to_datetime(["2024-01-31", None])), fn)


def test_timedeltas_with_offsets():
    td = pd.Series(pd.to_timedelta(["1h", None, "-3min"]))
    _both(td, lambda x: x + pd.offsets.Hour(2))
    _both(td, lambda x: x - pd.offsets.Minute(1))
    _both(td, lambda x: x + pd.offsets.MonthEnd())  # TypeError in both


def test_tz_aware_offsets_match_pandas():
    s = pd.Series(pd.to_datetime(["2024-03-30 12:00", None, "2024-10-26 23:30"], format="mixed"))
    s = s.dt.tz_localize("Europe/Berlin")
    _both(s, lambda x: x + pd.offsets.Day(1))
    _both(s, lambda x: x + pd.DateOffset(months=1))


@pytest.mark.parametrize("text", ["2024-01-15", "2024-01-31 10:00:00", "2023", "garbage", "", "NaT"])
@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparisons_with_date_strings(text, op):
    s = pd.Series(pd.to_datetime(["2024-01-31 10:00", None, "2023-12-31", "2024-01-15"], format="mixed"))
    _both(s, lambda x: getattr(x, f"__{op}__")(text))
    _both(s.dt.tz_localize("Asia/Kolkata"), lambda x: getattr(x, f"__{op}__")(text))


def test_between_date_strings_and_timedelta_strings():
    s = pd.Series(pd.to_datetime(["2024-01-31 10:00", None, "2023-12-31", "2024-07-01"], format="mixed"))
    _both(s, lambda x: x.between("2024-01-01", "2024-06-30"))
    td = pd.Series(pd.to_timedelta(["1h", None, "3 days"]))
    _both(td, lambda x: x > "2h")
    _both(td, lambda x: x == "1h")


_NEAR_BOUNDS = pd.Series(pd.to_datetime(["1677-09-22", "2020-01-01", None, "2262-04-10"])).dt.as_unit("ns")
_LONG = pd.Series(pd.to_timedelta(["100000 days", "1 days", None, "-1 days"]))


@pytest.mark.parametrize("fn", [
    lambda s: s - pd.Timedelta("1D"), lambda s: s + pd.Timedelta("1D"), lambda s: s + pd.Timedelta("-1000D"),
    lambda s: s + _LONG.to_numpy() if isinstance(s, pd.Series) else s + rt.from_pandas(_LONG),
    lambda s: s - s.iloc[::-1].reset_index(drop=True), lambda s: s - pd.Timestamp("1677-09-22"),
    lambda s: pd.Timestamp("1677-09-22") - s, lambda s: s.dt.as_unit("us") - pd.Timedelta("1D"), lambda s: s + pd.NaT,
    lambda s: (s - s) + (s - s), lambda s: s - pd.offsets.Day(2), lambda s: s + pd.offsets.Hour(-1),
    lambda s: s + pd.offsets.Minute(5),
])  # fmt: skip
def test_datetime_arithmetic_out_of_range_raises_overflow_error(fn):
    """A datetime or timedelta result outside int64 ticks raises pandas' OverflowError instead of wrapping around
    (missing rows never count)."""
    _both(_NEAR_BOUNDS, fn)


# --- calendar offsets and timedelta products past the int64 ticks: pandas' exception type and message ---------------

_HIGH = pd.Series(pd.to_datetime(["2000-01-01 00:00:00", "2262-04-01 05:06:07", "2262-03-20 00:00:00", None]))
_HIGH = _HIGH.dt.as_unit("ns")
_LOW = pd.Series(pd.to_datetime(["2000-01-01 00:00:00", "1677-09-25 01:02:03", None])).dt.as_unit("ns")
_EDGE_OFFSETS = [
    pd.offsets.MonthEnd(), pd.offsets.MonthEnd(-1), pd.offsets.MonthEnd(0), pd.offsets.MonthBegin(),
    pd.offsets.MonthBegin(-1), pd.offsets.QuarterEnd(), pd.offsets.QuarterBegin(-1), pd.offsets.YearEnd(),
    pd.offsets.YearBegin(-1), pd.offsets.MonthEnd(normalize=True), pd.offsets.Week(3), pd.offsets.Week(weekday=0),
    pd.offsets.Week(-1, weekday=0), pd.offsets.Day(30), pd.DateOffset(months=1), pd.DateOffset(months=-1),
    pd.DateOffset(years=1), pd.DateOffset(days=30), pd.DateOffset(days=-30), pd.DateOffset(weeks=5),
    pd.DateOffset(months=1, days=30), pd.DateOffset(months=-1, hours=-1), pd.DateOffset(day=31),
    pd.DateOffset(day=1), pd.DateOffset(year=2263), pd.DateOffset(days=9, months=0),
]  # fmt: skip


@pytest.mark.parametrize("offset", _EDGE_OFFSETS, ids=stable_id)
@pytest.mark.parametrize("side", ["high", "low"])
@pytest.mark.parametrize("sign", [1, -1])
def test_offsets_past_the_datetime64_range_raise_as_pandas(offset, side, sign):
    """OutOfBoundsDatetime naming the first date out of range for calendar moves, OverflowError for lengths of
    time (as pandas' int64 addition), instead of wrapping around; NaT rows never raise."""
    s = _HIGH if side == "high" else _LOW
    check_same_outcome_exactly(lambda: rt.Series(s) + offset if sign > 0 else rt.Series(s) - offset,
                          lambda: s + offset if sign > 0 else s - offset)  # fmt: skip


@given(day=st.one_of(st.integers(105_700, 106_751), st.integers(-106_752, -105_700)), seconds=st.integers(0, 86_399), months=st.integers(-30, 30),
       anchored=st.sampled_from([pd.offsets.MonthEnd, pd.offsets.MonthBegin, pd.offsets.YearEnd,
                                 pd.offsets.QuarterBegin]))  # fmt: skip
@settings(max_examples=80, deadline=None)
def test_offsets_near_the_bounds_match_pandas(day, seconds, months, anchored):
    ticks = np.array([min(max((day * 86_400 + seconds) * 10**9, -(2**63) + 1), 2**63 - 1)], dtype=np.int64)
    s = pd.Series(ticks.view("datetime64[ns]"))
    check_same_outcome_exactly(lambda: rt.Series(s) + pd.DateOffset(months=months), lambda: s + pd.DateOffset(months=months))
    check_same_outcome_exactly(lambda: rt.Series(s) + anchored(months // 3), lambda: s + anchored(months // 3))


_DURATIONS = [pd.Series(pd.to_timedelta([100_000 * 86_400 * 10**9, 86_400 * 10**9, None], unit="ns")),
              pd.Series(pd.to_timedelta([-(2**62), 1, None], unit="ns")),
              pd.Series(pd.to_timedelta([100_000 * 86_400, 86_400, None], unit="s")).dt.as_unit("s")]  # fmt: skip
_FACTORS = [2, 3, -3, np.int64(10**6), 10**6, 1e6, 2.5, np.inf, -np.inf, np.nan, 0, -(2**40), 2**62,
            pd.Series([1, 10**6, 1]), pd.Series([10**6, 1, 1]), pd.Series([1e6, 1.0, 1.0]), pd.Series([1.0, 1.0, 1e300]),
            pd.Series([np.inf, 1.0, 1.0]), pd.Series([1, 2, 3], dtype="Int64"), pd.Series([10**6, 2, 3], dtype="Int64"),
            pd.Series([1e6, 2, None], dtype="Float64"), pd.Series([1, 2, 10**18]), pd.Series([2.0, np.nan, 3.0]),
            True]  # fmt: skip


@pytest.mark.parametrize("factor", _FACTORS, ids=stable_id)
@pytest.mark.parametrize("durations", range(len(_DURATIONS)))
@pytest.mark.parametrize("reflected", [False, True])
def test_timedelta_products_out_of_range_raise_as_pandas(factor, durations, reflected):
    """pandas' OutOfBoundsTimedelta ("Overflow in int64 multiplication" for whole factors, "... in timedelta
    multiplication" otherwise) where a product leaves the int64 ticks; a NaN factor gives NaT."""
    td = _DURATIONS[durations]
    other = rt.from_pandas(factor) if isinstance(factor, pd.Series) else factor
    check_same_outcome_exactly(lambda: other * rt.Series(td) if reflected else rt.Series(td) * other,
                          lambda: factor * td if reflected else td * factor)  # fmt: skip
