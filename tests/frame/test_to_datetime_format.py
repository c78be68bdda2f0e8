"""``rt.to_datetime`` with strptime formats vs ``pandas.to_datetime``: random timestamps written by ``strftime``
in random formats (names, 12-hour clocks, two-digit years, day of year, fractions, ``%z``/``%Z``, stripped
leading zeros, changed case) mixed with bad and missing rows, parsed back with ``errors``, ``utc`` and ``exact``;
inferred formats with ``dayfirst``; ``format="ISO8601"``; ``origin=``; edge cases and pandas' errors."""

from __future__ import annotations

import datetime
import random
import re
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from conftest import assert_series_equal, check_same_outcome_exactly
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt

DATES = ["%d/%m/%Y", "%m-%d-%y", "%Y/%m/%d", "%d %b %Y", "%B %d, %Y", "%a %d %b %Y", "%Y %j", "%d%m%Y", "%Y%m%d",
         "%A, %B %d %Y", "%y%m%d", "%Y-%m-%d"]  # fmt: skip
TIMES = ["", " %H:%M", " %H:%M:%S", " %I:%M %p", " %H:%M:%S.%f", "T%H%M%S", " %I%p", "  %H:%M:%S", "T%H:%M:%S"]
ZONES = ["", " %z", "%z", " %Z"]
BAD = ["x", "", "NaT", "nan", "31/02/2020", "2020-13-45", "٢٠٢٠", "  ", "12:00 XM", "2020/02/30", "29/02/2019",
       "2020-01-02 25:00"]  # fmt: skip


def _check(values: list, **kwargs) -> None:
    source = pd.Series(values, dtype="str", name="when", index=pd.RangeIndex(len(values)) * 3)
    rt_source = rt.from_pandas(source)
    check_same_outcome_exactly(lambda: rt.to_datetime(rt_source, **kwargs), lambda: pd.to_datetime(source, **kwargs))


def _values(rng: random.Random, fmt: str, n: int) -> list:
    values: list = []
    for _ in range(n):
        r = rng.random()
        if r < 0.1:
            values.append(None)
            continue
        if r < 0.2:
            values.append(rng.choice(BAD))
            continue
        stamp = datetime.datetime(1970, 1, 1) + datetime.timedelta(
            seconds=rng.randint(-2_208_988_800, 4_102_444_800), microseconds=rng.randint(0, 999_999)
        )
        if "%z" in fmt:
            minutes = rng.choice([0, 60, -330, 345, 600]) if rng.random() < 0.5 else 60
            stamp = stamp.replace(tzinfo=datetime.timezone(datetime.timedelta(minutes=minutes)))
        elif "%Z" in fmt:
            stamp = stamp.replace(tzinfo=datetime.timezone.utc)
        text = stamp.strftime(fmt)
        if rng.random() < 0.3:
            text = re.sub(r"\b0(\d)", r"\1", text)  # one-digit fields
        if rng.random() < 0.2:
            text = text.upper() if rng.random() < 0.5 else text.lower()
        if "%f" in fmt and rng.random() < 0.4:  # 1..9 fraction digits
            text = re.sub(r"\.(\d{6})", lambda m: "." + m.group(1)[: rng.randint(1, 6)] + "123" * (rng.random() < 0.3), text)
        values.append(text)
    return values


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), date=st.sampled_from(DATES), time=st.sampled_from(TIMES),
       zone=st.sampled_from(ZONES), n=st.integers(0, 8), errors=st.sampled_from(["raise", "coerce"]),
       utc=st.booleans(), exact=st.sampled_from([True, True, False]))  # fmt: skip
def test_random_formats_round_trip(seed, date, time, zone, n, errors, utc, exact):
    rng = random.Random(seed)
    fmt = date + time + zone
    kwargs = {"format": fmt, "errors": errors}
    if utc:
        kwargs["utc"] = True
    if not exact:
        kwargs["exact"] = False
    _check(_values(rng, fmt, n), **kwargs)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), date=st.sampled_from(DATES), time=st.sampled_from(TIMES),
       zone=st.sampled_from(["", " %z"]), n=st.integers(1, 8), errors=st.sampled_from(["raise", "coerce"]),
       how=st.sampled_from(["infer", "dayfirst", "ISO8601"]))  # fmt: skip
def test_inferred_and_iso8601_formats(seed, date, time, zone, n, errors, how):
    rng = random.Random(seed)
    kwargs: dict = {"errors": errors}
    if how == "dayfirst":
        kwargs["dayfirst"] = True
    elif how == "ISO8601":
        kwargs["format"] = "ISO8601"
    _check(_values(rng, date + time + zone, n), **kwargs)


@pytest.mark.parametrize("fmt", ["%d/%m/%Y %H:%M:%S", "%b %d %Y %I:%M %p", "%d.%m.%y", "%Y %j", "%A %B %d %Y",
                                 "%d/%m/%Y %H:%M:%S.%f %z"])  # fmt: skip
def test_decisive_formats_never_call_pandas(fmt):
    """Valid, missing and bad rows of a format without backtracking are all settled on the device."""
    rng = random.Random(7)
    values = _values(rng, fmt, 40)
    values = [v for v in values if v is None or v.isascii()]  # non-ASCII rows are asked of pandas by design
    source = pd.Series(values, dtype="str")
    utc = "%z" in fmt
    expected = pd.to_datetime(source, format=fmt, errors="coerce", utc=utc)
    rt_source = rt.from_pandas(source)
    with mock.patch.object(pd, "to_datetime", side_effect=AssertionError("host parse")):
        got = rt.to_datetime(rt_source, format=fmt, errors="coerce", utc=utc)
    assert_series_equal(got, expected)


EDGES = [
    (["29/02/2000", "29/02/1900"], {"format": "%d/%m/%Y"}),  # invalid day for the month: pandas' ValueError
    (["29/02/2000", "29/02/1900", "31/04/2020"], {"format": "%d/%m/%Y", "errors": "coerce"}),
    (["2/1/69", "1/1/68", "1/1/00", "1/1/99"], {"format": "%d/%m/%y"}),  # the 1969-2068 pivot
    (["12:00 AM", "12:00 PM", "1:00 am", "11:59 pm", "12:30 Am"], {"format": "%I:%M %p"}),
    (["13:00 PM"], {"format": "%I:%M %p"}),
    (["12:00"], {"format": "%I:%M"}),
    (["2/1/2020 "], {"format": "%d/%m/%Y"}),  # unconverted data remains
    ([" 2/1/2020", "  2/1/2020"], {"format": "%d/%m/%Y"}),
    (["2020\t01", "2020\x1c01", "2020   01"], {"format": "%Y %m"}),
    (["2020\u200101"], {"format": "%Y %m"}),  # unicode whitespace: pandas' \s
    (["٢٠٢٠-01"], {"format": "%Y-%m"}),  # unicode digits: pandas' \d
    (["2020年1月2日", "1999年12月31日"], {"format": "%Y年%m月%d日"}),
    (["2020T01"], {"format": "%Yt%m"}),  # the format regex ignores case
    (["Jan 5 2020", "february 29 2020"], {"format": "%b %d %Y"}),
    (["Jan 5 2020", "february 29 2020"], {"format": "%b %d %Y", "errors": "coerce"}),
    (["2020 001", "2020 366", "2019 366", "2020 0", "2020 367"], {"format": "%Y %j", "errors": "coerce"}),
    (["100%2020"], {"format": "100%%%Y"}),
    ([""], {"format": "%Y"}),
    ([], {"format": "%d/%m/%Y"}),
    ([None, None], {"format": "%d/%m/%Y"}),
    (["NaT", "nan", "", None, "2020"], {"format": "%Y"}),
    (["12345"], {"format": "%Y"}),
    (["0000", "9999"], {"format": "%Y"}),
    (["10:10:60", "23:59:61"], {"format": "%H:%M:%S"}),  # pandas rolls leap seconds over
    (["02/01/2020 10:11:12.123456789", "02/01/2020 10:11:12.5"], {"format": "%d/%m/%Y %H:%M:%S.%f"}),
    (["02/01/2020 10:11:12.1234567891"], {"format": "%d/%m/%Y %H:%M:%S.%f"}),
    (["02/01/2020 10:11:12.123456789", "01/01/1500 00:00:00"], {"format": "%d/%m/%Y %H:%M:%S.%f"}),
    (["02/01/2020 10:11:12.123456789", "01/01/1500 00:00:00"], {"format": "%d/%m/%Y %H:%M:%S.%f", "errors": "coerce"}),
    (["202011", "2020111", "20201231"], {"format": "%Y%m%d"}),
    (["1030", "930", "0930"], {"format": "%H%M"}),  # backtracking: pandas parses what the greedy walk cannot
    (["2020-01-02 +0100", "2020-01-02 -0530"], {"format": "%Y-%m-%d %z"}),  # mixed offsets need utc=True
    (["2020-01-02 +0100", "2020-01-02 -0530"], {"format": "%Y-%m-%d %z", "errors": "coerce"}),
    (["2020-01-02 +0100", "2020-01-02 -0530", None], {"format": "%Y-%m-%d %z", "utc": True}),
    (["02/01/2020 +01:00", "02/01/2020 +0100", "02/01/2020 +01:00:30"], {"format": "%d/%m/%Y %z"}),
    (["02/01/2020 Z", "02/01/2020 +0000"], {"format": "%d/%m/%Y %z"}),
    (["02/01/2020 +01:0030"], {"format": "%d/%m/%Y %z"}),
    (["02/01/2020 +2500"], {"format": "%d/%m/%Y %z"}),
    (["2020-01-02 UTC", "2020-01-02 GMT"], {"format": "%Y-%m-%d %Z"}),
    (["2020-01-02 EST", "2020-01-02 utc"], {"format": "%Y-%m-%d %Z", "errors": "coerce"}),
    (["2020-01-02T03:04:05+01:00", "2020-01-02T03:04:05Z"], {"utc": True}),
    (["2020-01-02T03:04:05+01:00", "2020-01-02T03:04:05+01:00"], {}),
    (["2020-01-02T03:04:05+01:00", "2020-01-02T03:04:05Z"], {}),
    (["2020-01-02", "2020-01-02 03:04"], {"utc": True}),
    (["2020-01-02", "2020-01-02T03:04:05.5"], {"format": "ISO8601"}),
    (["2020-01-02", "2020-01-02T03:04:05.5+01:00"], {"format": "ISO8601"}),
    (["2020-01-02", "2020-01-13"], {"dayfirst": True}),  # pandas guesses %Y-%d-%m from the first row
    (["1/2/2020", "13/2/2020"], {"dayfirst": True}),
    (["13/1/2020", "1/2/2020"], {}),
    (["Jan 5 2020 10:00 PM", "Feb 29 2020 1:00 AM"], {}),
    (["x05/01/2020y", "05/01/2020", "a 5/1/2020"], {"format": "%d/%m/%Y", "exact": False}),
    (["x2020-01-05y"], {"format": "%Y-%m-%d", "exact": False}),
    (["2020"], {"format": "%q"}),  # a bad directive: pandas' ValueError
    (["2020"], {"format": "%Y", "exact": False}),
    (["2020"], {"format": "mixed", "exact": False}),
]


@pytest.mark.parametrize("values, kwargs", EDGES)
def test_edge_cases(values, kwargs):
    _check(values, **kwargs)


def test_mixed_format_falls_back_with_a_warning():
    values = ["2020-01-02", "5 Jan 2021 10:00", None]
    source = pd.Series(values, dtype="str")
    rt.frame.to_datetime._WARNED.discard("format='mixed'")
    with pytest.warns(UserWarning, match="mixed"):
        got = rt.to_datetime(rt.from_pandas(source), format="mixed")
    assert_series_equal(got, pd.to_datetime(source, format="mixed"))


def test_bad_value_message_names_the_value():
    source = rt.Series(["02/01/2020", "31/13/2020", "x"])
    with pytest.raises(ValueError, match='time data "31/13/2020" doesn\'t match format "%d/%m/%Y"'):
        rt.to_datetime(source, format="%d/%m/%Y")
    with pytest.raises(ValueError, match="day is out of range for month"):
        rt.to_datetime(rt.Series(["30/02/2020"]), format="%d/%m/%Y")


@pytest.mark.parametrize("values", [[1, 2, None], [1.5, np.nan], [2451545, 2451546.5]])
@pytest.mark.parametrize("kwargs", [{"unit": "D", "origin": "1960-01-01"}, {"unit": "s", "origin": "1960-01-01"},
                                    {"unit": "D", "origin": "julian"}, {"unit": "s", "origin": 100},
                                    {"unit": "s", "origin": pd.Timestamp("2000-01-01", tz="UTC")},
                                    {"unit": "ms", "utc": True}, {"unit": "s", "origin": "julian"}])  # fmt: skip
def test_epochs_with_origin_and_utc(values, kwargs):
    source = pd.Series(values, dtype="float64" if None in values or np.nan in values else None)
    check_same_outcome_exactly(lambda: rt.to_datetime(rt.from_pandas(source), **kwargs), lambda: pd.to_datetime(source, **kwargs))


def test_index_input_keeps_the_zone():
    index = pd.Index(["2020-01-02 +0100", "2021-03-04 +0100"], dtype="str", name="t")
    got = rt.to_datetime(rt.Index(index), format="%Y-%m-%d %z")
    expected = pd.to_datetime(index, format="%Y-%m-%d %z")
    pd.testing.assert_index_equal(got.to_pandas(), expected)
