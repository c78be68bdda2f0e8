"""``.dt`` extras vs pandas 3: timedelta ``components``, ``isocalendar``, ``as_unit``, and the object-valued
properties riptide refuses (``date``, ``time``, ``to_pytimedelta``...)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import assert_frame_equal, assert_series_equal, check_same_outcome
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt

UNITS = ["s", "ms", "us", "ns"]
# ticks within pandas' ns range for every unit (about +-290 years around 1970, in ns)
_TICKS = st.integers(-(2**62), 2**62)


@st.composite
def ticks_series(draw, kind: str) -> pd.Series:
    unit = draw(st.sampled_from(UNITS))
    values = draw(st.lists(st.one_of(_TICKS, st.integers(-10**6, 10**6), st.none()), max_size=20))
    scale = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}[unit]
    raw = np.array([np.iinfo(np.int64).min if v is None else v // scale for v in values], dtype=np.int64)
    s = pd.Series(raw.view(f"{kind}8[{unit}]"), name=draw(st.sampled_from([None, "t"])))
    if draw(st.booleans()) and len(s):
        s.index = pd.RangeIndex(5, 5 + len(s))
    return s


@settings(max_examples=60, deadline=None)
@given(ticks_series("m"))
def test_components(s):
    assert_frame_equal(rt.Series(s).dt.components, s.dt.components)


@settings(max_examples=60, deadline=None)
@given(ticks_series("M"))
def test_isocalendar(s):
    assert_frame_equal(rt.Series(s).dt.isocalendar(), s.dt.isocalendar())


def test_isocalendar_edges_and_tz():
    s = pd.Series(pd.to_datetime(["2024-12-30", None, "2021-01-03", "2020-12-31", "2005-01-01", "2008-12-29"]))
    assert_frame_equal(rt.Series(s).dt.isocalendar(), s.dt.isocalendar())
    aware = pd.Series(pd.to_datetime(["2024-12-29 23:30", "2021-01-03 23:00"]).tz_localize("UTC"))
    aware = aware.dt.tz_convert("Asia/Tokyo")  # the wall-clock day decides, as in pandas
    assert_frame_equal(rt.Series(aware).dt.isocalendar(), aware.dt.isocalendar())


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["M", "m"]).flatmap(ticks_series), st.sampled_from(UNITS))
def test_as_unit(s, unit):
    check_same_outcome(lambda: rt.Series(s).dt.as_unit(unit), lambda: s.dt.as_unit(unit), assert_series_equal)


def test_as_unit_tz_and_errors():
    s = pd.Series(pd.to_datetime(["2024-03-10 12:00:00.123", None]).tz_localize("America/New_York"))  # a canonical zone: every tz database has it
    assert_series_equal(rt.Series(s).dt.as_unit("s"), s.dt.as_unit("s"))
    for bad in ("D", "xx"):
        with pytest.raises(ValueError, match="Supported units"):
            rt.Series(s).dt.as_unit(bad)
    far = pd.Series(pd.to_datetime(["3000-01-01"]).as_unit("s"))
    with pytest.raises(pd.errors.OutOfBoundsDatetime):
        rt.Series(far).dt.as_unit("ns")
    long = pd.Series(pd.to_timedelta([300_000 * 86_400], unit="s").as_unit("s"))
    with pytest.raises(pd.errors.OutOfBoundsTimedelta):
        rt.Series(long).dt.as_unit("ns")
    half = pd.Series(pd.to_datetime(["2024-01-01 00:00:00.5"]))
    with pytest.raises(ValueError):
        rt.Series(half).dt.as_unit("s", round_ok=False)


def test_days_in_month_and_object_properties():
    s = pd.Series(pd.to_datetime(["2024-02-10", None]))
    assert_series_equal(rt.Series(s).dt.days_in_month, s.dt.days_in_month)
    dt = rt.Series(s).dt
    for name in ("date", "time", "timetz"):
        with pytest.raises(NotImplementedError, match="object"):
            getattr(dt, name)
    with pytest.raises(NotImplementedError):
        dt.to_pydatetime()
    with pytest.raises(NotImplementedError, match="period"):
        dt.to_period("D")
    with pytest.raises(NotImplementedError):
        rt.Series(pd.Series(pd.to_timedelta(["1s"]))).dt.to_pytimedelta()
    with pytest.raises(AttributeError):
        rt.Series(pd.Series(pd.to_timedelta(["1s"]))).dt.isocalendar()
    with pytest.raises(AttributeError):
        rt.Series(s).dt.components
