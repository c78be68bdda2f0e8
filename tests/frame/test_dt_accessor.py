"""``Series.dt`` vs pandas: every field and method, over units s/ms/us/ns, 1677..2262, NaT, empty and one-row
Series, leap days, month ends and times before 1970; results must match in values, dtype, index and name."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_series_equal
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.core.ops import datetime_fields

NAT = np.iinfo(np.int64).min
UNITS = ["s", "ms", "us", "ns"]
PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
# Whole seconds a datetime64[ns] can hold (1677-09-21 .. 2262-04-11): the range every unit is drawn from.
MAX_SECONDS = 9_223_372_035

DATE_FIELDS = list(datetime_fields.INT_FIELDS + datetime_fields.BOOL_FIELDS)
DEPRECATED = {"dayofweek": "day_of_week", "weekday": "day_of_week", "dayofyear": "day_of_year",
              "daysinmonth": "days_in_month"}  # fmt: skip
FREQS = ["ns", "us", "ms", "s", "min", "h", "D", "15min", "2h", "7s", "3D", "250ms", "10us", "5ns", "1500ms"]

# Days worth hitting on purpose: leap days, month / quarter / year ends and starts, the epoch, century years.
_SPECIAL_DAYS = [
    "1970-01-01", "1969-12-31", "1969-03-01", "1900-02-28", "1900-03-01", "2000-02-29", "2000-03-01",
    "2004-02-29", "2100-02-28", "2100-03-01", "1700-02-28", "1700-03-01", "1800-12-31", "2024-12-31",
    "2024-01-01", "2023-03-31", "2023-04-01", "2023-06-30", "2023-09-30", "2023-10-01", "1677-09-22",
    "2262-04-10", "1904-02-29", "1968-02-29", "1600-03-01",
]  # fmt: skip
_SPECIAL_SECONDS = [int(pd.Timestamp(d).as_unit("s")._value) for d in _SPECIAL_DAYS if d >= "1677-09-22"]


@st.composite
def ticks_st(draw, unit: str, margin: int = 0, max_size: int = 60) -> np.ndarray:
    """int64 ticks of ``unit``: random instants, special days at random times of day, and NaT."""
    per_second = PER_SECOND[unit]
    limit = MAX_SECONDS - margin
    second = st.one_of(
        st.integers(-limit, limit),
        st.sampled_from(_SPECIAL_SECONDS).flatmap(
            lambda s: st.sampled_from([0, 1, 86_399, 43_200]).map(lambda t, s=s: s + t)),
        st.integers(-100_000, 100_000),
    )
    fraction = st.one_of(st.just(0), st.integers(0, per_second - 1), st.sampled_from([per_second // 2]))
    value = st.one_of(st.tuples(second, fraction).map(lambda p: p[0] * per_second + p[1]), st.just(NAT))
    values = draw(st.lists(value, max_size=max_size))
    return np.array(values, dtype=np.int64)


def _pair(ticks: np.ndarray, kind: str, unit: str) -> tuple[rt.Series, pd.Series]:
    """The same Series in riptide and pandas, with a non-default index and a name."""
    index = pd.Index(np.arange(len(ticks), dtype=np.int64)[::-1] * 3)
    expected = pd.Series(ticks.view(f"{kind}8[{unit}]"), index=index, name="when")
    return rt.Series(expected), expected


# --------------------------------------------------------------------------- datetime fields


@settings(max_examples=150, deadline=None)
@given(data=st.data(), unit=st.sampled_from(UNITS))
def test_datetime_fields_match_pandas(data, unit):
    got, expected = _pair(data.draw(ticks_st(unit)), "M", unit)
    for field in DATE_FIELDS:
        assert_series_equal(getattr(got.dt, field), getattr(expected.dt, field), obj=field)


@pytest.mark.parametrize("unit", UNITS)
def test_datetime_fields_of_special_days_all_units(unit):
    seconds = np.array([s + t for s in _SPECIAL_SECONDS for t in (0, 86_399)], dtype=np.int64)
    got, expected = _pair(seconds * PER_SECOND[unit] + PER_SECOND[unit] - 1, "M", unit)
    for field in DATE_FIELDS:
        assert_series_equal(getattr(got.dt, field), getattr(expected.dt, field), obj=field)


def test_every_day_of_four_centuries_matches_pandas():
    # 400 years is one full Gregorian cycle: every (year type, month, day) combination, before and after 1970.
    days = np.arange(-146_097, 146_097, dtype=np.int64)
    got, expected = _pair(days * 86_400, "M", "s")
    for field in DATE_FIELDS:
        assert_series_equal(getattr(got.dt, field), getattr(expected.dt, field), obj=field)


@pytest.mark.parametrize("ticks", [[], [NAT], [NAT, NAT], [0], [-1]], ids=["empty", "nat", "all-nat", "epoch", "-1"])
@pytest.mark.parametrize("unit", ["s", "ns"])
def test_datetime_fields_edge_sizes(ticks, unit):
    got, expected = _pair(np.array(ticks, dtype=np.int64), "M", unit)
    for field in DATE_FIELDS:
        assert_series_equal(getattr(got.dt, field), getattr(expected.dt, field), obj=field)


def test_int_fields_are_int32_without_nat_and_float64_with_it():
    got, _ = _pair(np.array([0, 1], dtype=np.int64), "M", "s")
    assert got.dt.year.dtype == np.int32
    got, _ = _pair(np.array([0, NAT], dtype=np.int64), "M", "s")
    assert got.dt.year.dtype == np.float64
    assert got.dt.is_month_start.to_pandas().tolist() == [True, False]


@pytest.mark.parametrize("alias", sorted(DEPRECATED))
def test_deprecated_aliases_warn_and_match(alias):
    got, expected = _pair(np.array([0, 86_400 * 59, NAT], dtype=np.int64), "M", "s")
    with pytest.warns(pd.errors.Pandas4Warning, match=DEPRECATED[alias]):
        result = getattr(got.dt, alias)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pd.errors.Pandas4Warning)
        assert_series_equal(result, getattr(expected.dt, alias))


def test_unit_property():
    for unit in UNITS:
        got, expected = _pair(np.array([0], dtype=np.int64), "M", unit)
        assert got.dt.unit == expected.dt.unit == unit


# --------------------------------------------------------------------------- rounding


def _check_rounding(got: rt.Series, expected: pd.Series, method: str, freq: str) -> None:
    try:
        want = getattr(expected.dt, method)(freq)
    except (ValueError, OverflowError) as error:
        key = str(error).split(".")[0][:30]
        with pytest.raises(type(error), match=key.replace("*", r"\*").replace("(", r"\(")):
            getattr(got.dt, method)(freq)
        return
    assert_series_equal(getattr(got.dt, method)(freq), want, obj=f"{method}({freq})")


# Keep three days from the ends so ceil / round to at most 3D cannot leave datetime64[ns]'s range.
@settings(max_examples=150, deadline=None)
@given(data=st.data(), unit=st.sampled_from(UNITS), kind=st.sampled_from(["M", "m"]),
       method=st.sampled_from(["floor", "ceil", "round"]), freq=st.sampled_from(FREQS))  # fmt: skip
def test_rounding_matches_pandas(data, unit, kind, method, freq):
    got, expected = _pair(data.draw(ticks_st(unit, margin=4 * 86_400)), kind, unit)
    _check_rounding(got, expected, method, freq)


@pytest.mark.parametrize("method", ["floor", "ceil", "round"])
@pytest.mark.parametrize("kind", ["M", "m"])
def test_rounding_ties_and_negatives(method, kind):
    # Exact halves (ties go to the even multiple), just either side of them, before and after the epoch.
    base = np.array([-90, -45, -44, -46, -30, -15, -1, 0, 1, 15, 30, 44, 45, 46, 90, 135, NAT], dtype=np.int64)
    for unit in ("s", "ns"):
        got, expected = _pair(np.where(base == NAT, NAT, base * PER_SECOND[unit]), kind, unit)
        for freq in ("30s", "45s", "min", "7s", "90s"):
            _check_rounding(got, expected, method, freq)


@pytest.mark.parametrize("freq", ["MS", "ME", "W", "YE", "bogus", "1500ms", "0min", "-1h", pd.Timedelta("2h"),
                                  "us"])  # fmt: skip
def test_rounding_frequency_edge_cases(freq):
    got, expected = _pair(np.array([1_000_000_000, -1, NAT], dtype=np.int64), "M", "s")
    for method in ("floor", "ceil", "round"):
        _check_rounding(got, expected, method, freq)


@pytest.mark.parametrize("kind", ["M", "m"])
@pytest.mark.parametrize(("tick", "method", "freq"), [
    (np.iinfo(np.int64).max - 5, "ceil", "D"), (np.iinfo(np.int64).max - 5, "round", "D"),
    (NAT + 5, "floor", "D"), (NAT + 1, "round", "7ns"),
    (NAT + 5, "round", "D"),
])  # fmt: skip
def test_rounding_out_of_range_raises_overflow(kind, tick, method, freq):
    got, expected = _pair(np.array([0, tick, NAT], dtype=np.int64), kind, "ns")
    with pytest.raises(OverflowError, match="value too large"):
        getattr(expected.dt, method)(freq)
    with pytest.raises(OverflowError, match="value too large"):
        getattr(got.dt, method)(freq)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), unit=st.sampled_from(UNITS))
def test_normalize_matches_pandas(data, unit):
    got, expected = _pair(data.draw(ticks_st(unit)), "M", unit)
    try:
        normalized = expected.dt.normalize()
    except ValueError as error:  # a time on the first day of the int64 range
        with pytest.raises(ValueError, match="without integer overflow"):
            got.dt.normalize()
        assert "overflow" in str(error)
        return
    assert_series_equal(got.dt.normalize(), normalized)


def test_normalize_at_the_start_of_the_range_raises_as_pandas():
    values = np.array([-9223286401000000000]).view("datetime64[ns]")
    with pytest.raises(ValueError, match="Cannot normalize Timestamp without integer overflow"):
        rt.Series(values).dt.normalize()


# --------------------------------------------------------------------------- timedeltas


@settings(max_examples=150, deadline=None)
@given(data=st.data(), unit=st.sampled_from(UNITS))
def test_timedelta_components_match_pandas(data, unit):
    got, expected = _pair(data.draw(ticks_st(unit)), "m", unit)
    for field in datetime_fields.TIMEDELTA_FIELDS:
        assert_series_equal(getattr(got.dt, field), getattr(expected.dt, field), obj=field)
    assert_series_equal(got.dt.total_seconds(), expected.dt.total_seconds())


@pytest.mark.parametrize("ticks", [[], [NAT], [0], [-1], [1, -86_400, 86_399, NAT]])
@pytest.mark.parametrize("unit", UNITS)
def test_timedelta_components_edges(ticks, unit):
    got, expected = _pair(np.array(ticks, dtype=np.int64), "m", unit)
    for field in datetime_fields.TIMEDELTA_FIELDS:
        assert_series_equal(getattr(got.dt, field), getattr(expected.dt, field), obj=field)
    assert_series_equal(got.dt.total_seconds(), expected.dt.total_seconds())


def test_datetime_and_timedelta_accessors_have_their_own_attributes():
    dt_got, dt_expected = _pair(np.array([0], dtype=np.int64), "M", "s")
    td_got, td_expected = _pair(np.array([0], dtype=np.int64), "m", "s")
    for name in ("days", "total_seconds", "seconds"):
        assert hasattr(dt_got.dt, name) == hasattr(dt_expected.dt, name)
    for name in ("year", "normalize", "is_leap_year", "day_of_week"):
        assert hasattr(td_got.dt, name) == hasattr(td_expected.dt, name)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("values", [[1, 2], [1.5], ["a"], [True]])
def test_non_datetimelike_raises_attribute_error(values):
    expected = pd.Series(values)
    with pytest.raises(AttributeError, match="Can only use .dt accessor with datetimelike values"):
        expected.dt  # noqa: B018 - pandas' behaviour, checked so the test tracks it
    with pytest.raises(AttributeError, match="Can only use .dt accessor with datetimelike values"):
        rt.Series(expected).dt  # noqa: B018
    assert not hasattr(rt.Series(expected), "dt")


@pytest.mark.parametrize("kind", ["M", "m"])
def test_rounding_next_to_the_range_ends_matches_pandas(kind):
    top, bottom = np.iinfo(np.int64).max, NAT + 1
    ticks = np.array([top, top - 3, top - 5, bottom, bottom + 3, NAT], dtype=np.int64)
    got, expected = _pair(ticks, kind, "ns")
    for method in ("floor", "ceil", "round"):
        for freq in ("ns", "2ns", "3ns", "7ns"):
            _check_rounding(got, expected, method, freq)


@pytest.mark.xfail(strict=True, reason="the .dt accessor of a categorical of datetimes is not supported yet")
def test_categorical_of_datetimes_matches_pandas():
    expected = pd.Series(pd.to_datetime(["2020-01-31", "2021-06-01", "2020-01-31"])).astype("category")
    assert_series_equal(rt.Series(expected).dt.month, expected.dt.month)


def test_categorical_of_datetimes_names_the_missing_feature():
    expected = pd.Series(pd.to_datetime(["2020-01-31"])).astype("category")
    with pytest.raises(NotImplementedError, match="categorical of datetimes"):
        rt.Series(expected).dt  # noqa: B018
