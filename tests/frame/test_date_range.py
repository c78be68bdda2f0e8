"""rt.date_range and rt.to_timedelta against pandas: random ranges of every supported frequency, and errors."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt

FREQS = ["D", "3D", "h", "5h", "min", "s", "ms", "us", "ns", "W", "W-MON", "2W-WED", "MS", "ME", "2MS", "3ME",
         "QS", "QE", "QS-FEB", "QE-NOV", "YS", "YE", "YS-MAR", "2YE-JUN", "-1D", "-2ME", "-1MS", "-1W", "-1QE"]
SPAN_S = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1, "min": 60, "h": 3600, "5h": 3600}


def _same(kwargs, may_fall_back=False):
    """The same range as pandas (or the same exception type); unless ``may_fall_back``, without a warning (supported
    arguments never fall back to pandas)."""
    try:
        expected = pd.date_range(**kwargs)
    except Exception as err:  # noqa: BLE001 - the same exception type is the contract
        with warnings.catch_warnings(), pytest.raises(type(err)):
            warnings.simplefilter("ignore")
            rt.date_range(**kwargs)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore" if may_fall_back else "error")
        got = rt.date_range(**kwargs).to_pandas()
    assert got.dtype == expected.dtype
    assert got.name == expected.name
    np.testing.assert_array_equal(got.asi8, expected.asi8)


@settings(max_examples=300, deadline=None)
@given(freq=st.sampled_from(FREQS), start_s=st.integers(0, 4_102_444_800), tod=st.booleans(),
       span=st.floats(-0.3, 1.0), mode=st.sampled_from(["start-end", "start", "end"]), periods=st.integers(0, 50),
       inclusive=st.sampled_from(["both", "neither", "left", "right"]), normalize=st.booleans())
def test_date_range_matches_pandas(freq, start_s, tod, span, mode, periods, inclusive, normalize):
    start = pd.Timestamp(start_s if tod else start_s // 86_400 * 86_400, unit="s")
    step = pd.tseries.frequencies.to_offset(freq)
    unit_s = SPAN_S.get(freq, 40 * 86_400 if freq.endswith("D") or "W" in freq else 200 * 86_400)
    end = start + pd.Timedelta(seconds=span * 50 * unit_s * abs(step.n))
    if step.n < 0:
        start, end = end, start
    kwargs = {"start": str(start), "end": str(end), "periods": None, "freq": freq, "inclusive": inclusive,
              "normalize": normalize, "name": "when"}
    if mode != "start-end":
        kwargs["periods"] = periods
        kwargs["end" if mode == "start" else "start"] = None
    _same(kwargs)


@pytest.mark.parametrize("kwargs", [
    {"start": "2020-01-01", "end": "2020-01-01", "inclusive": "neither"},
    {"start": "2020-01-01", "end": "2020-01-01", "inclusive": "left"},
    {"start": "2020-01-01", "end": "2020-01-01 00:00:00.5", "periods": 7},  # freq=None: linspace
    {"start": "2020-01-01", "end": "2021-01-01", "periods": 5, "unit": "s"},
    {"start": "2020-01-01", "periods": 3, "freq": "D", "unit": "ms"},
    {"start": pd.Timestamp("2020-01-01").as_unit("s"), "periods": 3, "freq": "ms"},
    {"start": "1969-12-31 10:00", "periods": 4, "freq": "ME"},
    {"start": "2020-01-15 10:30", "end": "2019-01-01", "freq": "MS"},
    {"end": "2020-05-17", "periods": 3, "freq": "QS"},
    {"start": "2020-01-01", "periods": 0, "freq": "YE"},
])
def test_date_range_edges(kwargs):
    _same(kwargs)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"start": "2020-01-01", "periods": 3, "freq": "M"}, ValueError, "ME"),
    ({"start": "2020-01-01", "periods": 3, "freq": "H"}, ValueError, "h"),
    ({"start": "2020-01-01"}, ValueError, "exactly three"),
    ({"start": "2020-01-01", "end": "2020-02-01", "periods": 3, "freq": "D"}, ValueError, "exactly three"),
    ({"start": pd.NaT, "periods": 3}, ValueError, "NaT"),
    ({"start": "2020-01-01", "periods": 1.5}, TypeError, "periods must be an integer"),
    ({"start": "2020-01-01", "periods": 3, "unit": "h"}, ValueError, "'unit' must be one of"),
    ({"start": "2020-01-01", "periods": 3, "inclusive": "both!"}, ValueError, "Inclusive has to be"),
    ({"start": "2020-01-01", "periods": 3, "freq": "ms", "unit": "s"}, ValueError, "incompatible"),
])
def test_date_range_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        pd.date_range(**kwargs)
    with pytest.raises(error, match=match):
        rt.date_range(**kwargs)


_ZONED = [
    dict(start="2021-03-13", periods=6), dict(start="2021-11-06 22:00", end="2021-11-08"),
    dict(end="2021-03-15", periods=5), dict(start="2021-03-14 01:30", periods=4),
    dict(start="2021-03-14 02:30", periods=4), dict(start="2021-11-07 01:30", periods=4),
    dict(start="2021-03-13 10:00", periods=3, normalize=True),
    dict(start="2021-01-01", end="2021-01-03", inclusive="neither"),
    dict(start="2021-01-01", end="2021-01-03", unit="s", name="x"),
]  # fmt: skip


@pytest.mark.parametrize("tz", ["America/New_York", "UTC", "Australia/Lord_Howe"])
@pytest.mark.parametrize("freq", ["h", "30min", "D", "24h", "ME", "W", "QE"])
@pytest.mark.parametrize("kwargs", _ZONED)
def test_date_range_with_a_time_zone(kwargs, freq, tz):
    """tz=: fixed frequencies step through absolute time (across DST), calendar ones through wall-clock time; a wall
    time that does not exist or is ambiguous raises as in pandas."""
    _same(dict(kwargs, freq=freq, tz=tz))


@pytest.mark.parametrize("kwargs", [
    dict(start=pd.Timestamp("2021-03-13", tz="America/New_York"), periods=4, freq="D"),
    dict(start=pd.Timestamp("2021-03-13", tz="America/New_York"), end=pd.Timestamp("2021-03-16", tz="America/New_York")),
    dict(start=pd.Timestamp("2021-03-13", tz="America/New_York"), end="2021-03-16", periods=4),
    dict(start=pd.Timestamp("2021-03-13", tz="UTC"), periods=3, tz="UTC"),
    dict(start=pd.Timestamp("2021-03-13", tz="America/New_York"), end=pd.Timestamp("2021-03-16", tz="UTC")),
    dict(start="2021-03-13", periods=3, tz="Foo/Bar"),
])  # fmt: skip
def test_date_range_with_tz_aware_endpoints(kwargs):
    _same(kwargs, may_fall_back=True)  # zones that disagree go to pandas (its error)


def test_date_range_other_offsets_via_pandas():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = rt.date_range("2020-01-01", periods=10, freq="B", name="b").to_pandas()
    pd.testing.assert_index_equal(got, pd.date_range("2020-01-01", periods=10, freq="B", name="b"), exact=False, check_freq=False,
                                  check_exact=True)
    assert got.dtype == "datetime64[us]"


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.one_of(st.integers(-10**4, 10**4), st.floats(-1e3, 1e3), st.none()), min_size=1, max_size=20),
       unit=st.sampled_from([None, "W", "D", "h", "min", "m", "s", "ms", "us", "ns"]), as_float=st.booleans())
def test_to_timedelta_numbers(values, unit, as_float):
    dtype = "float64" if as_float or any(v is None or isinstance(v, float) for v in values) else "int64"
    host = pd.Series([np.nan if v is None else v for v in values], dtype=dtype, name="x")
    expected = pd.to_timedelta(host, unit=unit)
    got = rt.to_timedelta(rt.Series(host), unit=unit).to_pandas()
    pd.testing.assert_series_equal(got, expected)


def test_to_timedelta_strings_via_pandas_and_errors():
    values = ["1 days 02:03:04.5", "1h30min", "00:01:00", None]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # parsed on the device: no host fallback
        got = rt.to_timedelta(rt.Series(values)).to_pandas()
    pd.testing.assert_series_equal(got, pd.to_timedelta(pd.Series(values)))
    with pytest.raises(ValueError, match="errors must be one of"):
        rt.to_timedelta(rt.Series([1]), errors="ignore")
    with pytest.raises(ValueError, match="unit abbreviation"):
        pd.to_timedelta(pd.Series([1]), unit="bogus")
    with pytest.raises(ValueError, match="unit abbreviation"):
        rt.to_timedelta(rt.Series([1]), unit="bogus")
    assert rt.to_timedelta(5, unit="s") == pd.Timedelta(seconds=5)
