"""tz-aware datetimes vs pandas: round trips, ``.dt`` fields / rounding on wall time, ``tz_localize`` with every
``ambiguous`` / ``nonexistent`` option around real DST transitions, ``tz_convert``, comparisons, arithmetic,
sorting, grouping and the errors pandas raises. Zones: Europe/Berlin, America/New_York, Australia/Lord_Howe
(30-minute DST), Asia/Kolkata, UTC and fixed offsets; units s/ms/us/ns; NaT, empty and all-NaT Series."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import assert_series_equal, check_same_outcome
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.core.ops import datetime_fields, timezones

NAT = np.iinfo(np.int64).min
UNITS = ["s", "ms", "us", "ns"]
PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
MAX_SECONDS = 9_223_372_035 - 2 * 86_400  # inside datetime64[ns] after any offset
ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC",
         dt.timezone(dt.timedelta(hours=-3, minutes=-30)), dt.timezone(dt.timedelta(hours=5, minutes=45))]  # fmt: skip
DST_ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe"]
FIELDS = list(datetime_fields.INT_FIELDS + datetime_fields.BOOL_FIELDS)


def _transitions(zone) -> np.ndarray:
    """UTC seconds of the zone's transitions that datetime64[ns] can hold (from riptide's table)."""
    table = timezones.zone_table(pd.DatetimeTZDtype("ns", zone).tz)
    starts = table.starts
    return starts[np.abs(starts) < MAX_SECONDS - 86_400]


def _seconds_near(rng: np.random.Generator, zone, n: int) -> np.ndarray:
    """Instants (UTC seconds) half near the zone's transitions (within +-3h on a 15-minute grid, +-1s), half
    anywhere in the datetime64[ns] range."""
    near = _transitions(zone)
    anywhere = rng.integers(-MAX_SECONDS, MAX_SECONDS, n)
    if near.shape[0] == 0:
        return anywhere
    close = rng.choice(near, n) + rng.integers(-12, 13, n) * 900 + rng.choice([0, 0, 0, 1, -1], n)
    return np.where(rng.random(n) < 0.6, close, anywhere)


@st.composite
def aware_st(draw, zones=ZONES, max_size: int = 40) -> pd.Series:
    """A pandas tz-aware Series: random zone and unit, instants near transitions, some NaT."""
    zone = draw(st.sampled_from(zones))
    unit = draw(st.sampled_from(UNITS))
    n = draw(st.one_of(st.integers(0, 3), st.integers(0, max_size)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    ticks = _seconds_near(rng, zone, n) * PER_SECOND[unit] + rng.integers(0, PER_SECOND[unit], n)
    ticks[rng.random(n) < draw(st.sampled_from([0.0, 0.2, 1.0]))] = NAT
    naive = pd.Series(ticks.view(f"M8[{unit}]"), index=rng.permutation(n), name="when")
    return naive.dt.tz_localize("UTC").dt.tz_convert(zone)


# --- round trips -----------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(aware_st())
def test_round_trip_repr_and_arrow(p):
    s = rt.Series(p)
    assert s.dtype == p.dtype
    assert_series_equal(s, p)
    assert repr(s) == repr(p)
    assert s.to_arrow().equals(pa.array(p.array))
    assert_series_equal(rt.Series(pa.array(p.array)), p.reset_index(drop=True).rename(None))
    assert_series_equal(s.isna(), p.isna())


def test_constructors_and_frames():
    p = pd.Series(pd.date_range("2024-03-31", periods=4, freq="h", tz="Europe/Berlin"), name="t")
    assert_series_equal(rt.Series(list(p), name="t"), p)
    frame = pd.DataFrame({"t": p, "v": range(4)})
    out = rt.DataFrame(frame)
    assert out.dtypes["t"] == p.dtype
    pd.testing.assert_frame_equal(out.to_pandas(), frame)
    assert repr(out) == repr(frame)


# --- .dt on wall time --------------------------------------------------------------------------------------
@settings(max_examples=50, deadline=None)
@given(aware_st())
def test_fields_match_pandas(p):
    s = rt.Series(p)
    for name in FIELDS:
        assert_series_equal(getattr(s.dt, name), getattr(p.dt, name), obj=name)
    assert s.dt.tz == p.dt.tz
    assert_series_equal(s.dt.tz_localize(None), p.dt.tz_localize(None))
    assert_series_equal(s.dt.tz_convert(None), p.dt.tz_convert(None))
    for zone in ("Asia/Kolkata", "UTC", dt.timezone(dt.timedelta(hours=-11))):
        assert_series_equal(s.dt.tz_convert(zone), p.dt.tz_convert(zone))
    assert_series_equal(s.dt.day_name(), p.dt.day_name())
    assert_series_equal(s.dt.month_name(), p.dt.month_name())


@settings(max_examples=50, deadline=None)
@given(aware_st(), st.sampled_from(["h", "30min", "D", "s", "15min"]), st.sampled_from(["floor", "ceil", "round"]),
       st.sampled_from(["raise", "NaT"]), st.sampled_from(["raise", "NaT", "shift_forward", "shift_backward"]))
def test_rounding_matches_pandas(p, freq, how, ambiguous, nonexistent):
    s = rt.Series(p)

    def compare(got, expected):
        assert_series_equal(got, expected)

    check_same_outcome(lambda: getattr(s.dt, how)(freq, ambiguous=ambiguous, nonexistent=nonexistent),
                       lambda: getattr(p.dt, how)(freq, ambiguous=ambiguous, nonexistent=nonexistent), compare)
    check_same_outcome(lambda: s.dt.normalize(), lambda: p.dt.normalize(), compare)


# --- tz_localize around transitions ----------------------------------------------------------------------
AMBIGUOUS = ["raise", "NaT", True, False, "infer", "array"]
NONEXISTENT = ["raise", "NaT", "shift_forward", "shift_backward", pd.Timedelta("1h"), pd.Timedelta("-2h"),
               dt.timedelta(minutes=30), pd.Timedelta("10min")]  # fmt: skip


@st.composite
def walls_st(draw) -> tuple[pd.Series, object]:
    """Naive wall times on both sides of DST transitions (gaps and overlaps), sometimes sorted."""
    zone = draw(st.sampled_from(DST_ZONES))
    unit = draw(st.sampled_from(UNITS))
    n = draw(st.integers(1, 14))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    table = timezones.zone_table(pd.DatetimeTZDtype("ns", zone).tz)
    # before 2100: pandas' own transition table ends there, which changes its timedelta shifts (see report)
    near = _transitions(zone)
    near = near[near < 4_102_444_800 - 86_400]
    picked = rng.choice(near, n)
    local = picked + table.offsets[np.searchsorted(table.starts, picked, side="right")]
    wall = (local + rng.integers(-6, 7, n) * 900 + rng.choice([0, 0, 1, -1], n)) * PER_SECOND[unit]
    if draw(st.booleans()):
        wall = np.sort(wall)
    wall[rng.random(n) < 0.1] = NAT
    return pd.Series(wall.view(f"M8[{unit}]")), zone


@settings(max_examples=120, deadline=None)
@given(walls_st(), st.sampled_from(AMBIGUOUS), st.sampled_from(NONEXISTENT), st.integers(0, 2**16))
def test_tz_localize_matches_pandas(walls, ambiguous, nonexistent, seed):
    p, zone = walls
    if ambiguous == "array":
        ambiguous = np.random.default_rng(seed).random(len(p)) < 0.5
    s = rt.Series(p)

    def compare(got, expected):
        assert_series_equal(got, expected)

    def messages_match():
        try:
            p.dt.tz_localize(zone, ambiguous=ambiguous, nonexistent=nonexistent)
        except ValueError as expected:
            with pytest.raises(ValueError) as got:
                s.dt.tz_localize(zone, ambiguous=ambiguous, nonexistent=nonexistent)
            assert str(got.value) == str(expected)

    check_same_outcome(lambda: s.dt.tz_localize(zone, ambiguous=ambiguous, nonexistent=nonexistent),
                       lambda: p.dt.tz_localize(zone, ambiguous=ambiguous, nonexistent=nonexistent), compare)
    messages_match()


@settings(max_examples=40, deadline=None)
@given(aware_st(zones=ZONES))
def test_localize_of_wall_time_round_trips(p):
    """Every wall time pandas shows localizes back to its instant except the second reading of an overlap."""
    naive = p.dt.tz_localize(None)
    zone = p.dt.tz
    s = rt.Series(naive)
    check_same_outcome(lambda: s.dt.tz_localize(zone, ambiguous="NaT", nonexistent="NaT"),
                       lambda: naive.dt.tz_localize(zone, ambiguous="NaT", nonexistent="NaT"),
                       lambda got, expected: assert_series_equal(got, expected))


def test_localize_examples():
    walls = pd.Series(pd.to_datetime(["2020-10-25 01:30", "2020-10-25 02:00", "2020-10-25 02:30", "2020-10-25 02:00",
                                      "2020-10-25 02:30", "2020-10-25 03:00"]))  # fmt: skip
    s = rt.Series(walls)
    for ambiguous in ("infer", "NaT", True, False, [True, False, True, False, True, False]):
        assert_series_equal(s.dt.tz_localize("Europe/Berlin", ambiguous=ambiguous),
                            walls.dt.tz_localize("Europe/Berlin", ambiguous=ambiguous))
    with pytest.raises(ValueError, match="Cannot infer dst time from 2020-10-25 02:00:00"):
        s.dt.tz_localize("Europe/Berlin")
    with pytest.raises(ValueError, match="There are 2 dst switches"):
        rt.Series(walls[[0, 1, 3, 2, 4, 5]]).dt.tz_localize("Europe/Berlin", ambiguous="infer")
    with pytest.raises(ValueError, match="no repeated times"):
        rt.Series(walls[2:3]).dt.tz_localize("Europe/Berlin", ambiguous="infer")
    with pytest.raises(ValueError, match="Length of ambiguous bool-array"):
        s.dt.tz_localize("Europe/Berlin", ambiguous=[True])
    gap = pd.Series(pd.to_datetime(["2020-10-04 02:10:00", "2020-10-04 02:29:59"]))  # Lord Howe jumps 2:00 -> 2:30
    for nonexistent in ("shift_forward", "shift_backward", pd.Timedelta("1h"), "NaT"):
        assert_series_equal(rt.Series(gap).dt.tz_localize("Australia/Lord_Howe", nonexistent=nonexistent),
                            gap.dt.tz_localize("Australia/Lord_Howe", nonexistent=nonexistent))
    with pytest.raises(ValueError, match="is a nonexistent time due to daylight savings time"):
        rt.Series(gap).dt.tz_localize("Australia/Lord_Howe")
    with pytest.raises(ValueError, match="will relocalize on a nonexistent time"):
        rt.Series(gap).dt.tz_localize("Australia/Lord_Howe", nonexistent=pd.Timedelta("20min"))
    with pytest.raises(ValueError, match="The nonexistent argument must be one of"):
        s.dt.tz_localize("Europe/Berlin", nonexistent="bogus")


@pytest.mark.parametrize("unit", ["s", "ms"])
def test_far_future_and_far_past_follow_the_rules(unit):
    """Beyond datetime64[ns] (years 1000..9999 in s / ms) the zone's rule repeats every 400 years."""
    walls = pd.Series(pd.to_datetime(["1850-01-01 00:00", "2400-10-31 02:30", "3000-03-30 02:30", "3001-10-26 02:30",
                                      "9999-06-01 12:00", "1000-01-01"], format="ISO8601")).astype(f"M8[{unit}]")  # fmt: skip
    s = rt.Series(walls)
    for zone in DST_ZONES:
        expected = walls.dt.tz_localize(zone, ambiguous="NaT", nonexistent="NaT")
        got = s.dt.tz_localize(zone, ambiguous="NaT", nonexistent="NaT")
        assert_series_equal(got, expected)
        assert_series_equal(got.dt.hour, expected.dt.hour)


# --- edge cases ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("zone", ZONES)
def test_empty_all_nat_and_bounds(unit, zone):
    empty = pd.Series([], dtype=f"M8[{unit}]")
    assert_series_equal(rt.Series(empty).dt.tz_localize(zone), empty.dt.tz_localize(zone))
    nat = pd.Series(np.full(3, NAT).view(f"M8[{unit}]"))
    assert_series_equal(rt.Series(nat).dt.tz_localize(zone), nat.dt.tz_localize(zone))
    aware_nat = nat.dt.tz_localize(zone)
    assert_series_equal(rt.Series(aware_nat).dt.hour, aware_nat.dt.hour)
    assert_series_equal(rt.Series(aware_nat).dt.strftime("%Y %Z"), aware_nat.dt.strftime("%Y %Z"))
    bounds = pd.Series(pd.to_datetime(["1970-01-01", "1677-09-23", "2262-04-10 12:00"], format="ISO8601")).astype(f"M8[{unit}]")
    expected = bounds.dt.tz_localize(zone)
    got = rt.Series(bounds).dt.tz_localize(zone)
    assert_series_equal(got, expected)
    for name in ("year", "day", "hour", "minute"):
        assert_series_equal(getattr(got.dt, name), getattr(expected.dt, name))


def test_utc_and_fixed_offsets_ignore_dst_options():
    walls = pd.Series(pd.to_datetime(["2020-10-25 02:30", "2020-03-29 02:30"]))
    for zone in ("UTC", dt.timezone(dt.timedelta(hours=2)), zoneinfo.ZoneInfo("UTC")):
        assert_series_equal(rt.Series(walls).dt.tz_localize(zone, ambiguous="bogus"),
                            walls.dt.tz_localize(zone, ambiguous="bogus"))


def test_errors_match_pandas():
    naive = rt.Series(pd.to_datetime(["2020-01-01"]))
    aware = naive.dt.tz_localize("Europe/Berlin")
    with pytest.raises(TypeError, match="Cannot convert tz-naive timestamps, use tz_localize"):
        naive.dt.tz_convert("UTC")
    with pytest.raises(TypeError, match="Already tz-aware, use tz_convert to convert"):
        aware.dt.tz_localize("UTC")
    with pytest.raises(zoneinfo.ZoneInfoNotFoundError):
        naive.dt.tz_localize("Foo/Bar")
    with pytest.raises(KeyError):
        naive.dt.tz_localize("Mars/Olympus_Mons")
    with pytest.raises(TypeError, match="Invalid comparison"):
        aware < naive
    with pytest.raises(TypeError, match="Invalid comparison"):
        aware < pd.Timestamp("2020-01-01")
    with pytest.raises(TypeError, match="Invalid comparison"):
        naive < pd.Timestamp("2020-01-01", tz="UTC")
    with pytest.raises(TypeError, match="Cannot subtract tz-naive and tz-aware"):
        aware - naive
    with pytest.raises(TypeError, match="Cannot subtract tz-naive and tz-aware"):
        aware - pd.Timestamp("2020-01-01")
    with pytest.raises(TypeError, match="cannot add"):
        aware + aware
    assert not (aware == naive).any()
    assert (aware != naive).all()


# --- operations on tz-aware columns ---------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(aware_st(zones=["Europe/Berlin", "Australia/Lord_Howe", "UTC"]), st.sampled_from(["Asia/Kolkata", "UTC"]))
def test_operations_match_pandas(p, other_zone):
    s = rt.Series(p)
    assert_series_equal(s.sort_values(), p.sort_values())
    assert_series_equal(s.sort_values(ascending=False, na_position="first"),
                        p.sort_values(ascending=False, na_position="first"))
    assert_series_equal(s[s.notna()], p[p.notna()])
    assert_series_equal(s.iloc[::-2], p.iloc[::-2])
    assert_series_equal(s.shift(1), p.shift(1))
    # the same instants 30 minutes earlier, every other row moved later: differences stay far inside int64
    # (riptide does not check datetime arithmetic for int64 overflow, where pandas raises OverflowError)
    shift = pd.Series(np.where(np.arange(len(p)) % 2, 1, -1), index=p.index) * pd.Timedelta("30min")
    other = p.dt.tz_convert(other_zone) + shift
    o = rt.Series(other)
    for op in ("lt", "le", "eq", "ne", "gt", "ge"):
        assert_series_equal(getattr(s, op)(o), getattr(p, op)(other))
    stamp = pd.Timestamp("1970-01-01 01:46:40", tz="Australia/Lord_Howe")
    assert_series_equal(s < stamp, p < stamp)
    assert_series_equal(s == stamp, p == stamp)
    assert_series_equal(s - o, p - other)
    assert_series_equal(s - stamp, p - stamp)
    for delta in (pd.Timedelta("1h"), pd.Timedelta("90min"), np.timedelta64(1, "D")):
        assert_series_equal(s + delta, p + delta)
        assert_series_equal(s - delta, p - delta)
        assert_series_equal(delta + s, delta + p)
    assert_series_equal(s - pd.NaT, p - pd.NaT)
    both = rt.concat([s, s.iloc[:3]])
    assert_series_equal(both, pd.concat([p, p.iloc[:3]]))
    assert_series_equal(s.astype(str), p.astype(str))


def test_grouping_on_tz_keys():
    p = pd.Series(pd.date_range("2020-10-24 22:00", periods=8, freq="30min", tz="Europe/Berlin")).repeat(2)
    p = p.reset_index(drop=True)
    p.iloc[3] = pd.NaT
    frame = pd.DataFrame({"k": p, "v": np.arange(len(p))})
    got = rt.DataFrame(frame).groupby("k").v.sum()
    assert_series_equal(got, frame.groupby("k").v.sum())
    assert_series_equal(rt.Series(p).value_counts(), p.value_counts())
    assert rt.Series(p).nunique() == p.nunique()
    assert_series_equal(rt.Series(p).drop_duplicates(), p.drop_duplicates())


def test_dt_on_tz_aware_examples():
    p = pd.Series(pd.to_datetime(["2024-03-31 00:59:59.5", "2024-10-27 00:30", None], format="ISO8601").tz_localize("UTC"))
    p = p.dt.tz_convert("Europe/Berlin")
    s = rt.Series(p)
    assert_series_equal(s.dt.hour, p.dt.hour)
    # pandas localizes the rounded wall time again: even an unchanged ambiguous time needs ``ambiguous``
    assert_series_equal(s.dt.floor("h", ambiguous=True), p.dt.floor("h", ambiguous=True))
    assert_series_equal(s.dt.ceil("h", ambiguous=False, nonexistent="shift_forward"),
                        p.dt.ceil("h", ambiguous=False, nonexistent="shift_forward"))
    assert_series_equal(s.dt.normalize(), p.dt.normalize())
    with pytest.raises(ValueError, match="Cannot infer dst time from 2024-10-27 02:30:00"):
        s.dt.floor("s")
    with pytest.raises(ValueError, match="2024-03-31 02:00:00 is a nonexistent time"):
        s.dt.round("h", ambiguous="NaT")


# --- known gaps outside this module's files (see the report): remove the mark when fixed -----------------
_aware = pd.Series(pd.to_datetime(["2020-01-01", None, "2020-06-01"])).dt.tz_localize("Europe/Berlin")


def test_merge_on_tz_keys():
    left = pd.DataFrame({"k": _aware, "a": [1, 2, 3]})
    right = pd.DataFrame({"k": _aware.iloc[::-1], "b": [4, 5, 6]})
    pd.testing.assert_frame_equal(rt.DataFrame(left).merge(rt.DataFrame(right), on="k").to_pandas(),
                                  left.merge(right, on="k"))


def test_min_max_of_tz_aware():
    assert rt.Series(_aware).min() == _aware.min()


def test_scalar_of_tz_aware():
    assert rt.Series(_aware).iloc[0] == _aware.iloc[0]


def test_astype_between_zones():
    assert_series_equal(rt.Series(_aware).astype("datetime64[s, UTC]"), _aware.astype("datetime64[s, UTC]"))


def test_fillna_of_tz_aware():
    stamp = pd.Timestamp("2021-01-01", tz="Europe/Berlin")
    assert_series_equal(rt.Series(_aware).fillna(stamp), _aware.fillna(stamp))


def test_astype_hook_in_timezones():
    """timezones.astype (for cast.py to call) already follows pandas."""
    from riptide.core.column import as_column

    column = as_column(_aware)
    got = timezones.astype(column, pd.DatetimeTZDtype("s", "UTC"))
    assert_series_equal(rt.Series._from_column(got, rt.RangeIndex(3), None), _aware.astype("datetime64[s, UTC]"))
    assert timezones.astype(column, np.dtype("int64")).data.tolist() == _aware.astype("int64").tolist()
    for target, pattern in ((np.dtype("M8[ns]"), "timezone-aware dtype to timezone-naive"),
                            (np.dtype("int32"), "is not supported"), (np.dtype("float64"), "Cannot cast")):  # fmt: skip
        with pytest.raises(TypeError, match=pattern):
            timezones.astype(column, target)
    with pytest.raises(TypeError, match="timezone-naive dtype to timezone-aware"):
        timezones.astype(as_column(_aware.dt.tz_localize(None)), _aware.dtype)
