"""pandas vs riptide on the inputs that steer the fused CUDA kernels (datetime fields and rounding, literal and
affix search, ASCII case mapping): on the GPU host these run the kernels, on the CPU their xp twins.

The cases aim at the kernels' branches: far years in unit ``s`` (the 64-bit calendar path beside the 32-bit one),
NaT next to values (the int32 / float64 choice), times before 1970, leap days; rows longer than the warp-per-row
threshold, patterns of 1, 8 and 9+ bytes (the sliding-word search and its fallback), empty rows and patterns,
multi-byte UTF-8, missing rows with each ``na``, and a column whose bytes start off a word boundary.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import assert_series_equal

import riptide as rt

# --- datetimes ---------------------------------------------------------------------------------------------------
_STAMPS = ["1970-01-01", "1969-12-31 23:59:59.999999", "2000-02-29 12:00", "1900-03-01", "2024-12-31 23:00",
           "1677-09-22", "2262-04-10", "1600-02-29 01:02:03.456789", "2023-06-30 15:30", None]  # fmt: skip
_FAR_SECONDS = [-(10**13), -62_135_596_800, -12_219_292_800, 253_402_300_799, 10**12, 32_503_680_000,
                -1_099_511_627_776, 86_399]  # year ~ -315000 .. 33000, 0001-01-01, 1582, 9999, ...  # fmt: skip
_FIELDS = ["year", "month", "day", "hour", "minute", "second", "microsecond", "nanosecond", "day_of_week",
           "day_of_year", "quarter", "days_in_month", "is_leap_year", "is_month_start", "is_month_end",
           "is_quarter_start", "is_quarter_end", "is_year_start", "is_year_end"]  # fmt: skip


def _datetimes(unit: str, with_nat: bool) -> pd.Series:
    stamps = []
    for text in _STAMPS:
        if text is None:
            if with_nat:
                stamps.append(np.datetime64("NaT", unit))
            continue
        try:
            stamps.append(pd.Timestamp(text).as_unit(unit).asm8)
        except (OverflowError, pd.errors.OutOfBoundsDatetime):  # before 1677 in ns
            pass
    values = pd.Series(np.array(stamps, dtype=f"M8[{unit}]"))
    if unit == "s":
        far = pd.Series(np.array(_FAR_SECONDS, dtype=np.int64).view("M8[s]"))
        values = pd.concat([values, far], ignore_index=True)
    return values


@pytest.mark.parametrize("with_nat", [False, True])
@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_datetime_fields(unit, with_nat):
    expected = _datetimes(unit, with_nat)
    s = rt.Series(expected)
    for name in _FIELDS:
        assert_series_equal(getattr(s.dt, name), getattr(expected.dt, name))


@pytest.mark.parametrize("unit", ["s", "ns"])
def test_timedelta_components(unit):
    expected = pd.Series(pd.to_timedelta(["-1 days +00:00:01.5", "0s", "3 days 04:05:06.000007", None, "-1ns"
                                          if unit == "ns" else "-1s"])).astype(f"m8[{unit}]")  # fmt: skip
    s = rt.Series(expected)
    for name in ("days", "seconds", "microseconds", "nanoseconds"):
        assert_series_equal(getattr(s.dt, name), getattr(expected.dt, name))
        assert_series_equal(getattr(s.dropna().dt, name), getattr(expected.dropna().dt, name))


@pytest.mark.parametrize("freq", ["h", "15min", "s", "7s", "D", "3D", "1500ms", "us"])
@pytest.mark.parametrize("method", ["floor", "ceil", "round"])
def test_rounding(method, freq):
    expected = _datetimes("ns", True)
    expected = expected[expected.isna() | expected.between("1678", "2262")]  # (int64's ends: see below)
    s = rt.Series(expected)
    assert_series_equal(getattr(s.dt, method)(freq), getattr(expected.dt, method)(freq))


def test_rounding_overflow_raises_like_pandas():
    expected = pd.Series(pd.to_datetime(["2262-04-11 23:47:16.854775807"]))
    with pytest.raises(OverflowError):
        expected.dt.ceil("D")
    with pytest.raises(OverflowError):
        rt.Series(expected).dt.ceil("D")


# --- strings -----------------------------------------------------------------------------------------------------
_ROWS = ["", "a", "ab", "xaby", "ba", None, "aaaa", "héllo wörld", "中文ab😀", "AbC dEf", "abcdefgh", "zabcdefghiz",
         "\n", "ab\nab", "b" * 150 + "ab", "éé"]  # fmt: skip
_PATTERNS = ["a", "ab", "é", "😀", "abcdefgh", "abcdefghi", "bcdefghiz", "b" * 12, "中文", "\n", "zz", "abcdefghijklm"]


def _strings(values: list) -> pd.Series:
    return pd.Series(values, dtype="str")


@pytest.mark.parametrize("rows", ["short", "long"])
def test_contains_literal(rows):
    values = _ROWS if rows == "short" else [None if v is None else v * 12 for v in _ROWS]  # long: a warp per row
    expected = _strings(values)
    s = rt.Series(expected)
    for pattern in _PATTERNS + [""]:
        assert_series_equal(s.str.contains(pattern, regex=False), expected.str.contains(pattern, regex=False))
    for na in (True, False):
        assert_series_equal(s.str.contains("ab", regex=False, na=na), expected.str.contains("ab", regex=False, na=na))


def test_startswith_endswith():
    expected = _strings(_ROWS)
    s = rt.Series(expected)
    for pat in ["a", "ab", "", ("a", "x"), ("", "zz"), ("中", "b" * 151), "é", ("abcdefghijk",)]:
        for na in (None, True):
            kw = {} if na is None else {"na": na}
            assert_series_equal(s.str.startswith(pat, **kw), expected.str.startswith(pat, **kw))
            assert_series_equal(s.str.endswith(pat, **kw), expected.str.endswith(pat, **kw))


@pytest.mark.parametrize("method", ["lower", "upper", "swapcase", "casefold"])
def test_case_mapping(method):
    ascii_rows = _strings(["AbC dEf", "", None, "x1Y2", "HELLO world" * 3, "~@[`{"])
    assert_series_equal(getattr(rt.Series(ascii_rows).str, method)(), getattr(ascii_rows.str, method)())
    mixed = _strings(_ROWS + ["ÀB", "straße", "ΑΣ"])
    assert_series_equal(getattr(rt.Series(mixed).str, method)(), getattr(mixed.str, method)())
    # a slice whose bytes start off a word boundary
    sliced = rt.Series(ascii_rows).iloc[3:]
    assert_series_equal(getattr(sliced.str, method)(), getattr(ascii_rows.iloc[3:].str, method)())


def test_email_regex_contains():
    expected = _strings(["ab@cd.com", "x ab@cde.com!", "no", None, "Q@R.COM", "a@b.co", "héllo@wörld.com", "",
                         "zz@yy.com\n"])  # fmt: skip
    s = rt.Series(expected)
    for pattern in (r"[a-z]+@[a-z]+\.com", r"com$", r"^[a-z]"):
        assert_series_equal(s.str.contains(pattern), expected.str.contains(pattern))
