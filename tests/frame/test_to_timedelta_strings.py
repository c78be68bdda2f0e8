"""``rt.to_timedelta`` of duration strings vs ``pandas.to_timedelta``: random clock (``"-1 days +02:03:04.5"``)
and unit-suffixed (``"1h30min"``, ``"-5 minutes 3s"``) spellings with missing and bad rows under both ``errors``;
rows left to pandas (ISO 8601 durations, fractions of units, nanoseconds, deprecated units); pandas' errors."""

from __future__ import annotations

import random
import warnings
from unittest import mock

import pandas as pd
import pytest
from conftest import assert_series_equal
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt

UNITS = ["W", "D", "day", "days", "h", "hour", "hours", "m", "min", "minute", "minutes", "s", "sec", "second",
         "seconds", "ms", "us", "ns", "d", "H", "T", "hr", "Days"]  # fmt: skip
ODD = ["", "NaT", "x", "P1DT2H", "3", "1h30", "--1h", "nan", "1 day, 2:00:00", " 1h", "1h ", "- 1h", "10:00",
       "1:60:00", "99:00:00", "1e3s", "1.5h", "1µs", "1 days 00:00:00.1234567"]  # fmt: skip


def _compare(values: list, **kwargs) -> None:
    source = pd.Series(values, dtype="str", name="d", index=pd.RangeIndex(len(values)) * 2)
    rt_source = rt.from_pandas(source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = pd.to_timedelta(source, **kwargs)
        except Exception as error:  # noqa: BLE001 - the oracle's error is the expectation
            with pytest.raises(type(error)) as caught:
                rt.to_timedelta(rt_source, **kwargs)
            assert str(caught.value) == str(error)
            return
        got = rt.to_timedelta(rt_source, **kwargs)
    assert_series_equal(got, expected)


def _clock(rng: random.Random) -> str:
    text = rng.choice(["", "-", "+"])
    if rng.random() < 0.5:
        text += f"{rng.randint(0, 1000)} {rng.choice(['days', 'day'])}{rng.choice([' ', ', '])}{rng.choice(['', '+'])}"
    text += f"{rng.randint(0, 30):0{rng.choice([1, 2])}d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
    if rng.random() < 0.5:
        text += "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 9)))
    return text


def _units(rng: random.Random) -> str:
    def piece() -> str:
        number = str(rng.randint(0, 400))
        if rng.random() < 0.15:
            number += "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 4)))
        return number + rng.choice(["", " "]) + rng.choice(UNITS)

    return rng.choice(["", "-", "+"]) + rng.choice(["", " "]).join(piece() for _ in range(rng.randint(1, 3)))


def _value(rng: random.Random):
    r = rng.random()
    if r < 0.08:
        return None
    if r < 0.15:
        return rng.choice(ODD)
    return _clock(rng) if r < 0.55 else _units(rng)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 8), errors=st.sampled_from(["raise", "coerce"]))
def test_random_duration_strings(seed, n, errors):
    rng = random.Random(seed)
    _compare([_value(rng) for _ in range(n)], errors=errors)


@pytest.mark.parametrize(
    "values",
    [
        ["1 days 02:03:04.5", "3h", "1h30min", "-5min", "00:01:02", "1 day, 2:00:00", None],
        ["-1 days +02:00:00", "-1 days 02:00:00", "-00:01:02", "+1h", "1h1h", "1D2h", "2 hours 3 minutes"],
        ["1 days", "2d", "1 W", "1 minute", "1 second", "10 ms", "7us", "5 ns", "24:00:00", "1:60:00"],
    ],
)
def test_common_spellings_stay_on_the_device(values):
    values = [v for v in values if v not in ("2d", "5 ns")]  # deprecated 'd'; a nanosecond result
    source = pd.Series(values, dtype="str")
    expected = pd.to_timedelta(source)
    rt_source = rt.from_pandas(source)
    with mock.patch.object(pd, "to_timedelta", side_effect=AssertionError("host parse")):
        got = rt.to_timedelta(rt_source)
    assert_series_equal(got, expected)


@pytest.mark.parametrize(
    "values",
    [[], [None], ["", "NaT", None], ["P1DT2H", "1h"], ["1.5h", "2h"], ["3", "1h"], ["1.123456789s", "1h"],
     ["100000000 days"], ["1 days 00:00:00.1234567"], ["1µs"], ["٣h"], ["1h", "x", "y"], ["10:00"], ["--1h"],
     ["1h30"], ["1e3s"]],  # fmt: skip
)
@pytest.mark.parametrize("errors", ["raise", "coerce"])
def test_edge_strings(values, errors):
    _compare(values, errors=errors)


def test_bad_value_error_names_it():
    with pytest.raises(ValueError, match="Could not convert 'x' to NumPy timedelta"):
        rt.to_timedelta(rt.Series(["1h", "x", "2h"]))


def test_index_input():
    index = pd.Index(["1h", "2 days 00:00:01", None], dtype="str", name="i")
    got = rt.to_timedelta(rt.Index(index))
    pd.testing.assert_index_equal(got.to_pandas(), pd.to_timedelta(index))
