"""``Series.dt.strftime`` / ``day_name`` / ``month_name`` vs pandas: every device directive, literals (unicode,
``%%``), naive and tz-aware values (``%Z`` / ``%z`` from the zone's intervals, LMT offsets with seconds), units
s/ms/us/ns, NaT, empty; unsupported directives fall back to pandas with one warning."""

from __future__ import annotations

import datetime as dt
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_series_equal
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.core.ops import format_datetime
from riptide.frame import datetime_accessor

NAT = np.iinfo(np.int64).min
UNITS = ["s", "ms", "us", "ns"]
PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
MAX_SECONDS = 9_223_372_035 - 2 * 86_400
DIRECTIVES = sorted(format_datetime.SUPPORTED)
ZONES = [None, "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC",
         dt.timezone(dt.timedelta(hours=-9, minutes=-30))]  # fmt: skip
LITERALS = ["-", " ", ":", "T", "é", "中", "😀", "%%", "date ", "/", ""]


@st.composite
def datetimes_st(draw, max_size: int = 40) -> pd.Series:
    unit = draw(st.sampled_from(UNITS))
    zone = draw(st.sampled_from(ZONES))
    n = draw(st.one_of(st.integers(0, 3), st.integers(0, max_size)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    ticks = rng.integers(-MAX_SECONDS, MAX_SECONDS, n) * PER_SECOND[unit] + rng.integers(0, PER_SECOND[unit], n)
    ticks[rng.random(n) < draw(st.sampled_from([0.0, 0.2, 1.0]))] = NAT
    naive = pd.Series(ticks.view(f"M8[{unit}]"), index=rng.permutation(n), name="t")
    return naive if zone is None else naive.dt.tz_localize("UTC").dt.tz_convert(zone)


@st.composite
def formats_st(draw) -> str:
    parts = draw(st.lists(st.one_of(st.sampled_from(DIRECTIVES).map(lambda c: "%" + c), st.sampled_from(LITERALS)),
                          min_size=0, max_size=8))  # fmt: skip
    return "".join(parts)


@settings(max_examples=150, deadline=None)
@given(datetimes_st(), formats_st())
def test_strftime_matches_pandas(p, date_format):
    assert_series_equal(rt.Series(p).dt.strftime(date_format), p.dt.strftime(date_format))


@settings(max_examples=40, deadline=None)
@given(datetimes_st())
def test_names_match_pandas(p):
    s = rt.Series(p)
    assert_series_equal(s.dt.day_name(), p.dt.day_name())
    assert_series_equal(s.dt.month_name(), p.dt.month_name())


@pytest.mark.parametrize("code", DIRECTIVES)
@pytest.mark.parametrize("unit", UNITS)
def test_each_directive(code, unit):
    p = pd.Series(pd.to_datetime(["2024-02-29 13:05:09.123456", "1999-12-31 00:00:00", None, "1970-01-01 12:00:00",
                                  "2000-01-09 23:59:59.999999"], format="ISO8601")).astype(f"M8[{unit}]")  # fmt: skip
    assert_series_equal(rt.Series(p).dt.strftime(f"<%{code}>"), p.dt.strftime(f"<%{code}>"))
    aware = p.dt.tz_localize("Europe/Berlin")
    assert_series_equal(rt.Series(aware).dt.strftime(f"<%{code}>"), aware.dt.strftime(f"<%{code}>"))


def test_zone_names_and_offsets():
    p = pd.Series(pd.to_datetime(["1850-01-01", "1916-05-01", "2020-10-25 00:30", "2020-10-25 01:30", None],
                                 format="ISO8601")).dt.tz_localize("UTC")  # fmt: skip
    for zone in ("Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata", "UTC", dt.timezone.utc,
                 dt.timezone(dt.timedelta(hours=5, minutes=45))):  # fmt: skip
        aware = p.dt.tz_convert(zone)
        assert_series_equal(rt.Series(aware).dt.strftime("%Y-%m-%d %H:%M:%S %Z %z"),
                            aware.dt.strftime("%Y-%m-%d %H:%M:%S %Z %z"))


def test_empty_all_nat_and_examples():
    for unit in UNITS:
        empty = pd.Series([], dtype=f"M8[{unit}]")
        assert_series_equal(rt.Series(empty).dt.strftime("%Y"), empty.dt.strftime("%Y"))
        assert_series_equal(rt.Series(empty).dt.day_name(), empty.dt.day_name())
        nat = pd.Series(np.full(2, NAT).view(f"M8[{unit}]"))
        assert_series_equal(rt.Series(nat).dt.strftime("%Y %B"), nat.dt.strftime("%Y %B"))
        assert_series_equal(rt.Series(nat).dt.month_name(), nat.dt.month_name())
    s = rt.Series(pd.to_datetime(["2024-02-29 13:05:09"]))
    assert s.dt.strftime("%A %e %B %Y, %I:%M %p %%").tolist() == ["Thursday 29 February 2024, 01:05 PM %"]
    assert s.dt.strftime("").tolist() == [""]


def test_unsupported_directives_fall_back_with_one_warning():
    p = pd.Series(pd.to_datetime(["2024-02-29 13:05:09", None]))
    s = rt.Series(p)
    datetime_accessor._WARNED.discard("%U")
    with pytest.warns(UserWarning, match="%U"):
        got = s.dt.strftime("%U week %Y")
    assert_series_equal(got, p.dt.strftime("%U week %Y"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_series_equal(s.dt.strftime("%U"), p.dt.strftime("%U"))  # warned once already
    datetime_accessor._WARNED.discard("a trailing '%'")
    with pytest.warns(UserWarning):
        assert_series_equal(s.dt.strftime("%Y%"), p.dt.strftime("%Y%"))


@pytest.mark.parametrize("unit", ["s", "ms", "us"])
def test_years_outside_four_digits_go_to_pandas(unit):
    p = pd.Series(np.array(["0500-03-04T05:06:07", "2020-10-25T01:30:00", "NaT"], dtype=f"M8[{unit}]"))
    datetime_accessor._WARNED.discard("years outside 1000-9999")
    with pytest.warns(UserWarning, match="years outside"):
        got = rt.Series(p).dt.strftime("%Y|%y|%j")
    assert_series_equal(got, p.dt.strftime("%Y|%y|%j"))


def test_bad_input_raises_like_pandas():
    s = rt.Series(pd.to_datetime(["2024-02-29"]))
    with pytest.raises(TypeError):
        s.dt.strftime(5)
    with pytest.raises(AttributeError, match="Can only use .dt accessor with datetimelike values"):
        rt.Series([1, 2]).dt.strftime("%Y")
