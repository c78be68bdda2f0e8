"""``astype`` between strings and numbers against pandas: device formatting of integers, device parsing of text."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.core.ops import cast
from tests.conftest import INT_DTYPES, UINT_DTYPES, assert_series_equal, check_same_outcome, pandas_result

_INT_TARGETS = INT_DTYPES + UINT_DTYPES
_SPACES = st.sampled_from(["", "", " ", "  ", "\t", "\n ", "\u3000"])
_INT_TEXT = st.builds(lambda a, sign, n, b: f"{a}{sign}{n}{b}", _SPACES, st.sampled_from(["", "", "+", "-"]),
                      st.one_of(st.integers(0, 2**65), st.integers(0, 300)), _SPACES)  # fmt: skip
_FLOAT_TEXT = st.one_of(
    _INT_TEXT,
    st.floats(allow_nan=True, allow_infinity=True, width=64).map(repr),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(str),
    st.builds(lambda a, m, e, b: f"{a}{m}e{e}{b}", _SPACES, st.integers(-(10**20), 10**20), st.integers(-400, 400),
              _SPACES),  # fmt: skip
    st.sampled_from([" 1.5E-3 ", "+.5", "5.", "-0", "-0.0", "inf", "-Infinity", " inf ", "nan", "NaN", "1_000",
                     "１２", "1e400", "-1e-400", "3.4028236e38", "0.1", "123456789012345678901234567890"]),
)  # fmt: skip
_BAD_TEXT = st.sampled_from(["x", "", " ", "1.0.0", "1e", "--1", "0x10", "1,5", "abc", "1 2"])


def _no_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the host fallback fail, so that a test proves the device path decided."""

    def refuse(column, dtype):  # noqa: ANN001, ANN202
        raise AssertionError("took the host path")

    monkeypatch.setattr(cast, "_through_host", refuse)


def _check(s: pd.Series, dtype: str) -> None:
    expected, error = pandas_result(lambda: s.astype(dtype))
    if error is not None:
        with pytest.raises(type(error).__mro__[1] if type(error).__name__ == "IntCastingNaNError" else type(error)) as got:
            rt.Series(s).astype(dtype)
        assert str(got.value) == str(error)
        return
    assert_series_equal(rt.Series(s).astype(dtype), expected)


# --- numbers to text -------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(_INT_TARGETS + ["bool"]), st.lists(st.integers(-(2**64), 2**64), max_size=60))
def test_integers_to_str_match_pandas_on_the_device(dtype: str, numbers: list[int]) -> None:
    info = np.iinfo(dtype) if dtype != "bool" else None
    values = [bool(n % 2) for n in numbers] if info is None else [min(max(n, info.min), info.max) for n in numbers]
    s = pd.Series(np.array(values, dtype=dtype), name="v")
    with pytest.MonkeyPatch.context() as mp:
        _no_host(mp)
        got = rt.Series(s).astype("str")
    assert_series_equal(got, s.astype("str"))


@pytest.mark.parametrize("dtype", _INT_TARGETS)
def test_integer_extremes_and_zero_to_str(dtype: str) -> None:
    info = np.iinfo(dtype)
    s = pd.Series(np.array([info.min, info.max, 0, info.max - 1, 9, 10, 99, 100], dtype=dtype))
    assert_series_equal(rt.Series(s).astype(str), s.astype(str))


@pytest.mark.parametrize("dtype", ["Int64", "boolean", "Int8", "UInt64"])
def test_nullable_to_str_keeps_missing(dtype: str) -> None:
    values = [True, None, False] if dtype == "boolean" else [1, None, 0]
    s = pd.Series(values, dtype=dtype)
    with pytest.MonkeyPatch.context() as mp:
        _no_host(mp)
        got = rt.Series(s).astype("str")
    assert_series_equal(got, s.astype("str"))
    assert_series_equal(rt.Series(pd.Series([None, None], dtype=dtype)).astype("str"),
                        pd.Series([None, None], dtype=dtype).astype("str"))  # fmt: skip


@pytest.mark.parametrize("values", [[], [-5], [10**18]])
def test_empty_and_one_row_to_str(values: list[int]) -> None:
    s = pd.Series(values, dtype="int64")
    assert_series_equal(rt.Series(s).astype("str"), s.astype("str"))


def test_floats_and_datetimes_to_str_still_match_on_the_host() -> None:
    s = pd.Series([0.1, 1e300, -0.0, np.nan, 2.5e-8, 1 / 3])
    assert_series_equal(rt.Series(s).astype("str"), s.astype("str"))
    d = pd.Series(pd.to_datetime(["2020-01-01", None]))
    assert_series_equal(rt.Series(d).astype("str"), d.astype("str"))


# --- text to numbers -------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_INT_TARGETS), st.lists(_INT_TEXT, max_size=40))
def test_integer_text_matches_pandas(dtype: str, texts: list[str]) -> None:
    _check(pd.Series(texts, dtype="str", name="t"), dtype)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["float64", "float32"]), st.lists(st.one_of(st.none(), _FLOAT_TEXT), max_size=40))
def test_float_text_matches_pandas(dtype: str, texts: list[str | None]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # float32 overflow, as pandas warns too
        _check(pd.Series(texts, dtype="str"), dtype)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["int64", "int8", "uint64", "float64", "float32"]),
       st.lists(st.one_of(_INT_TEXT, _BAD_TEXT, st.none()), max_size=20))  # fmt: skip
def test_bad_text_and_missing_raise_as_pandas(dtype: str, texts: list[str | None]) -> None:
    _check(pd.Series(texts, dtype="str"), dtype)


@pytest.mark.parametrize(
    ("texts", "dtype", "error", "message"),
    [
        (["a"], int, ValueError, "invalid literal for int() with base 10: 'a'"),
        (["1", "a"], float, ValueError, "could not convert string to float: 'a'"),
        ([""], float, ValueError, "could not convert string to float: ''"),
        (["1.0"], "int64", ValueError, "invalid literal for int() with base 10: '1.0'"),
        (["1", None], "int64", ValueError, "cannot convert float NaN to integer"),
        (["300"], "int8", OverflowError, "out of bounds for int8"),
        (["-1"], "uint64", OverflowError, "out of bounds for uint64"),
        (["9223372036854775808"], "int64", OverflowError, "too large"),
    ],
)  # fmt: skip
def test_invalid_text_errors(texts: list, dtype: object, error: type, message: str) -> None:
    s = pd.Series(texts, dtype="str")
    with pytest.raises(error) as pd_error:
        s.astype(dtype)
    assert message in str(pd_error.value)
    with pytest.raises(error) as rt_error:
        rt.Series(s).astype(dtype)
    assert str(rt_error.value) == str(pd_error.value)


def test_clean_text_parses_on_the_device(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_host(monkeypatch)
    s = pd.Series([" 12", "-3", "+0", "127", "-128"], dtype="str")
    assert_series_equal(rt.Series(s).astype("int8"), s.astype("int8"))
    f = pd.Series(["1.5", None, " -2e3 ", "inf", "nan", "1_0", "0.1", "1e-320"], dtype="str")
    assert_series_equal(rt.Series(f).astype("float64"), f.astype("float64"))
    big = pd.Series(["18446744073709551615", "0"], dtype="str")
    assert_series_equal(rt.Series(big).astype("uint64"), big.astype("uint64"))


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float64", "float32"])
def test_empty_one_row_and_all_missing_text(dtype: str) -> None:
    for texts in ([], ["7"], [None, None]):
        s = pd.Series(texts, dtype="str")
        check_same_outcome(lambda s=s: rt.Series(s).astype(dtype), lambda s=s: s.astype(dtype), assert_series_equal)


def test_other_targets_keep_the_host_path() -> None:
    s = pd.Series(["1", None, "3"], dtype="str")
    for dtype in ["Int64", "Float64", "bool"]:
        assert_series_equal(rt.Series(s).astype(dtype), s.astype(dtype))


def test_frame_astype_mixes_directions() -> None:
    df = pd.DataFrame({"a": pd.Series(["1", "2"], dtype="str"), "b": [3, -4], "c": [0.5, 1.5]})
    spec = {"a": "int32", "b": "str", "c": "str"}
    got = rt.DataFrame(df).astype(spec).to_pandas()
    pd.testing.assert_frame_equal(got, df.astype(spec))


# --------------------------------------------------------------------------- datetimes to text, on the device


@settings(max_examples=80, deadline=None)
@given(
    seconds=st.lists(st.integers(-30_000_000_000, 200_000_000_000), max_size=12),
    fraction=st.sampled_from([0, 500_000_000, 123_000_000, 1_000, 1, 86_399_000_000_000]),
    unit=st.sampled_from(["s", "ms", "us", "ns"]),
    midnights=st.booleans(),
    with_nat=st.booleans(),
)
def test_datetimes_astype_str_match_pandas(seconds, fraction, unit, midnights, with_nat):
    ns = np.array(seconds, dtype=np.int64) // 86_400 * 86_400 * 10**9 if midnights else (
        np.array(seconds, dtype=np.int64) * 10**9 + fraction)  # fmt: skip
    if unit == "ns":
        ns = np.clip(ns, -(2**62), 2**62)
    values = pd.Series(ns.astype("datetime64[ns]") if unit == "ns" else (ns // 10**9).astype("datetime64[s]"))
    values = values.astype(f"datetime64[{unit}]") if unit != "ns" else values
    if unit in ("ms", "us") and not midnights:  # keep the sub-second part the unit can hold
        values = pd.Series((ns // (10**9 // {"ms": 10**3, "us": 10**6}[unit])).astype(f"datetime64[{unit}]"))
    if with_nat and len(values):
        values.iloc[0] = pd.NaT
    got = rt.Series(values).astype(str)
    assert_series_equal(got, values.astype(str))
