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
        with pytest.warns(UserWarning, match="parsing str values"):
            rt.to_numeric(rt.Series(["1"]))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            rt.to_numeric(rt.Series(["2"]))  # the second call is quiet


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
