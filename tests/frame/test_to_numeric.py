"""``rt.to_numeric`` against pandas: numeric input unchanged on the device, strings and downcasts as pandas."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import assert_series_equal, check_same_outcome, pandas_result, series_st

_NUMBER_TEXT = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", " 1", "1e5", "-1.5E-3", "+7", ".5", "5.", "inf", "-Inf", "nan", "NaN", "x", "1_0", "٣",
                     "0x10", "1,5", "１２"]),
)  # fmt: skip


@pytest.fixture(autouse=True)
def _quiet_host_warning():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="rt.to_numeric")
        yield


def _compare(got: rt.Series, expected: pd.Series) -> None:
    assert_series_equal(got, expected)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), _NUMBER_TEXT), max_size=30), st.sampled_from(["raise", "coerce"]),
       st.sampled_from([None, "integer", "signed", "unsigned", "float"]))  # fmt: skip
def test_strings_match_pandas(texts: list, errors: str, downcast: str | None) -> None:
    s = pd.Series(texts, dtype="str", name="t")
    expected, error = pandas_result(lambda: pd.to_numeric(s, errors=errors, downcast=downcast))
    if error is None and expected.dtype == object:  # integers beyond 64 bits: Python ints, no riptide column
        with pytest.raises(TypeError, match="too large"):
            rt.to_numeric(rt.Series(s), errors=errors, downcast=downcast)
        return
    check_same_outcome(lambda: rt.to_numeric(rt.Series(s), errors=errors, downcast=downcast),
                       lambda: pd.to_numeric(s, errors=errors, downcast=downcast), _compare)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(series_st(dtypes=["int8", "int64", "uint32", "float32", "float64", "bool", "Int64", "Float64", "boolean",
                         "datetime64[ns]"], max_size=100),
       st.sampled_from([None, "integer", "signed", "unsigned", "float"]))  # fmt: skip
def test_numeric_matches_pandas(s: pd.Series, downcast: str | None) -> None:
    _compare(rt.to_numeric(rt.Series(s), downcast=downcast), pd.to_numeric(s, downcast=downcast))


def test_numeric_input_stays_on_the_device_without_a_copy() -> None:
    s = rt.Series([1.5, 2.0], name="v")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no host warning: nothing leaves the device
        got = rt.to_numeric(s)
    assert got._column is s._column and got.name == "v"


def test_strings_warn_once_naming_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    from riptide.frame import to_numeric as module

    monkeypatch.setattr(module, "_WARNED", set())
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        with pytest.warns(UserWarning, match="parsing str values"):  # integers beyond int64: pandas decides
            rt.to_numeric(rt.Series(["18446744073709551615"]))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            rt.to_numeric(rt.Series(["18446744073709551614"]))  # the second call is quiet


def test_strings_parse_on_the_device_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = rt.to_numeric(rt.Series([" 1", "2.5e3", None, "-inf"], name="v"), errors="raise")
    _compare(got, pd.to_numeric(pd.Series([" 1", "2.5e3", None, "-inf"], dtype="str", name="v")))


@pytest.mark.parametrize("texts", [[], ["5"], [None], ["1", "2", None], ["1.0", "2"], ["-3", "1e3"], ["日本"]])
@pytest.mark.parametrize("errors", ["raise", "coerce"])
def test_edge_cases(texts: list, errors: str) -> None:
    s = pd.Series(texts, dtype="str")
    check_same_outcome(lambda: rt.to_numeric(rt.Series(s), errors=errors),
                       lambda: pd.to_numeric(s, errors=errors), _compare)  # fmt: skip


def test_integers_beyond_64_bits_raise() -> None:
    with pytest.raises(TypeError, match="too large"):
        rt.to_numeric(rt.Series(["-9223372036854775809"]))
    _compare(rt.to_numeric(rt.Series(["18446744073709551615"])), pd.to_numeric(pd.Series(["18446744073709551615"])))


def test_bad_string_raises_pandas_error() -> None:
    with pytest.raises(ValueError, match="Unable to parse string"):
        rt.to_numeric(rt.Series(["1", "apple"]))


def test_bad_options_raise() -> None:
    with pytest.raises(ValueError, match="invalid error value"):
        rt.to_numeric(rt.Series([1]), errors="ignore")
    with pytest.raises(ValueError, match="invalid downcasting"):
        rt.to_numeric(rt.Series([1]), downcast="x")


def test_pandas_series_scalars_and_lists() -> None:
    got = rt.to_numeric(pd.Series(["1", "2"], name="p"))
    _compare(got, pd.to_numeric(pd.Series(["1", "2"], name="p")))
    assert rt.to_numeric("3.5") == 3.5
    np.testing.assert_array_equal(rt.to_numeric(["1", "2"]), np.array([1, 2]))
    idx = rt.to_numeric(rt.Index(["1", "2"]))
    pd.testing.assert_index_equal(idx.to_pandas(), pd.to_numeric(pd.Index(["1", "2"])))


# --- the device parser against pandas ------------------------------------------------------------------------

_FINITE = st.floats(allow_nan=False, allow_infinity=False)
_DEVICE_TEXT = st.one_of(
    st.integers(-(2**63), 2**63 - 1).map(str),
    _FINITE.map(repr),
    _FINITE.map(lambda x: "%e" % x),
    _FINITE.map(lambda x: "%.17g" % x),
    _FINITE.map(lambda x: "%.3f" % x),
    st.builds(lambda m, e, c: f"{m}{c}{e:+d}", st.integers(-(10**20), 10**20), st.integers(-400, 400),
              st.sampled_from("eE")),
    st.builds(lambda d, f: f"{d}.{f}", st.integers(-999, 999), st.text("0123456789", max_size=25)),
    st.sampled_from(["inf", "-inf", "+Inf", "INFINITY", "-Infinity", "iNf", " inf", "inf ", "nan", "NaN", "-nan",
                     "", " ", "\t", "1.", ".5", "-.5", "+.5e-3", ".", "-", "+", "1e", "1e+", "e5", ".e5", "1.2.3",
                     "1e5.5", "--1", "+-1", "1_0", "0x10", "1,5", "1 2", "٣", "１２", "\xa01", "1d5", "00012",
                     "-0", "-0.0", "0e999999999999", "1e99999999999999999999", "1e-99999999999999999999",
                     "0.000000000000000000000000000001", "123456789012345678901234567890",
                     "4.9406564584124654e-324", "2.4703282292062328e-324", "1.7976931348623157e308",
                     "1.7976931348623159e308", "9007199254740993", "9007199254740993.0"]),
)  # fmt: skip
_SPACES = st.sampled_from(["", " ", "  ", "\t", "\n", "\x0b", "\x0c", "\r"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.none(), st.builds(lambda a, x, b: a + x + b, _SPACES, _DEVICE_TEXT, _SPACES)),
                max_size=25), st.sampled_from(["raise", "coerce"]))  # fmt: skip
def test_device_parser_matches_pandas(texts: list, errors: str) -> None:
    s = pd.Series(texts, dtype="str", name="t")
    try:
        expected = pd.to_numeric(s, errors=errors)
    except (TypeError, ValueError):
        expected = None
    if expected is not None and expected.dtype == object:  # integers beyond uint64: documented refusal
        with pytest.raises(TypeError, match="object column"):
            rt.to_numeric(rt.Series(s), errors=errors)
        return
    check_same_outcome(lambda: rt.to_numeric(rt.Series(s), errors=errors),
                       lambda: pd.to_numeric(s, errors=errors), _compare)  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(st.lists(_FINITE, min_size=1, max_size=20))
def test_device_floats_are_correctly_rounded(values: list) -> None:
    """repr round-trips, and every other spelling gives what Python's float() gives."""
    texts = [repr(v) for v in values] + ["%.17g" % v for v in values] + ["%.6e" % v for v in values]
    got = rt.to_numeric(rt.Series(texts)).to_pandas().to_numpy()
    np.testing.assert_array_equal(got, np.array([float(t) for t in texts]))
    assert [np.signbit(g) for g in got] == [np.signbit(float(t)) for t in texts]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=30))
def test_device_integers_stay_int64(values: list) -> None:
    s = pd.Series([str(v) for v in values], dtype="str")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no host fallback
        got = rt.to_numeric(rt.Series(s))
    assert got.dtype == np.dtype("int64")
    _compare(got, pd.to_numeric(s))


@pytest.mark.parametrize("texts, position", [(["1", "x", "y"], 1), (["nan"], 0), (["a'b"], 0), (['2', 'a"b'], 1),
                                             (["1", " inf "], 1), (["\xa01"], 0), (["  "], 0)])  # fmt: skip
def test_device_errors_name_value_and_position(texts: list, position: int) -> None:
    s = pd.Series(texts, dtype="str")
    with pytest.raises(ValueError) as expected:
        pd.to_numeric(s)
    with pytest.raises(ValueError) as got:
        rt.to_numeric(rt.Series(s))
    assert str(got.value) == str(expected.value) and f"position {position}" in str(got.value)


@pytest.mark.parametrize("texts", [["9223372036854775807"], ["-9223372036854775808"], ["9223372036854775808"],
                                   ["9223372036854775808", "-1"], ["9223372036854775808", None],
                                   ["18446744073709551616", "1.5"], ["-9223372036854775809", "x"],
                                   ["1" * 30, "2"]])  # fmt: skip
@pytest.mark.parametrize("errors", ["raise", "coerce"])
def test_int64_overflow_text(texts: list, errors: str) -> None:
    s = pd.Series(texts, dtype="str")
    expected, error = pandas_result(lambda: pd.to_numeric(s, errors=errors))
    if error is None and expected.dtype == object:
        with pytest.raises(TypeError, match="too large"):
            rt.to_numeric(rt.Series(s), errors=errors)
        return
    check_same_outcome(lambda: rt.to_numeric(rt.Series(s), errors=errors),
                       lambda: pd.to_numeric(s, errors=errors), _compare)  # fmt: skip


def test_device_parser_keeps_index_and_name() -> None:
    s = pd.Series(["3", None, "x"], index=[10, 5, 7], dtype="str", name="n")
    _compare(rt.to_numeric(rt.Series(s), errors="coerce"), pd.to_numeric(s, errors="coerce"))
