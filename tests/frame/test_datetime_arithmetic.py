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
from conftest import assert_series_equal, check_same_outcome, stable_id
from riptide.errors import HostFallbackWarning

DEVICE_OFFSETS = [pd.offsets.MonthEnd(), pd.offsets.MonthBegin(-2), pd.offsets.QuarterEnd(), pd.offsets.YearBegin(),
                  pd.offsets.Week(weekday=3), pd.offsets.Hour(5), pd.offsets.Day(2), pd.offsets.Nano(7),
                  pd.DateOffset(months=1, days=2), pd.DateOffset(years=-1, day=31)]  # fmt: skip
HOST_OFFSETS = [pd.offsets.BusinessDay(2), pd.offsets.SemiMonthEnd(), pd.offsets.Easter()]


@st.composite
def datetime_series(draw):
    unit = draw(st.sampled_from(["s", "ms", "us", "ns"]))
    seconds = draw(st.lists(st.integers(-1_000_000_000, 3_000_000_000), max_size=20))
    values = np.array(seconds, np.int64).astype(f"datetime64[s]").astype(f"datetime64[{unit}]")
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
