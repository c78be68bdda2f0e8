"""Series.mode / DataFrame.mode against pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import ALL_DTYPES, assert_frame_equal, assert_series_equal, frame_st, make_values, series_st


def _series_expected(s: pd.Series, dropna: bool = True) -> pd.Series:
    """pandas' answer; pandas 3.1 crashes on a ``boolean`` column's mode with ``dropna=False`` when <NA> is
    among the rows (BooleanArray built from int values), so that one is computed through Int64."""
    if s.dtype == "boolean" and not dropna and s.isna().any():
        return s.astype("Int64").mode(dropna=False).astype("boolean")
    return s.mode(dropna=dropna)


def _frame_expected(df: pd.DataFrame, **kwargs) -> pd.DataFrame:
    """pandas' answer, with the one documented deviation: a bool column padded with missing values is
    pandas' ``object``; riptide (no object dtype) gives the nullable ``boolean``."""
    if any(df[c].dtype == "boolean" for c in df.columns) and not kwargs.get("dropna", True):
        modes = {c: _series_expected(df[c], False) for c in df.columns
                 if not kwargs.get("numeric_only") or pd.api.types.is_numeric_dtype(df[c].dtype)}
        n = max((len(m) for m in modes.values()), default=0)
        expected = pd.DataFrame({c: m.reindex(pd.RangeIndex(n)) for c, m in modes.items()}, index=pd.RangeIndex(n))
        expected.columns = expected.columns.astype(df.columns.dtype)
    else:
        expected = df.mode(**kwargs)
    for label in expected.columns:
        if expected[label].dtype == object and df[label].dtype == bool:
            expected[label] = expected[label].astype("boolean")
    return expected


@settings(max_examples=150, deadline=None)
@given(s=series_st(max_size=60, small=True), dropna=st.booleans())
def test_series_mode_matches_pandas(s, dropna):
    assert_series_equal(rt.Series(s).mode(dropna=dropna), _series_expected(s, dropna))


@settings(max_examples=60, deadline=None)
@given(df=frame_st(max_cols=4, max_size=40, small=True), dropna=st.booleans(), numeric_only=st.booleans())
def test_frame_mode_matches_pandas(df, dropna, numeric_only):
    got = rt.DataFrame(df).mode(dropna=dropna, numeric_only=numeric_only)
    expected = _frame_expected(df, dropna=dropna, numeric_only=numeric_only)
    # a frame left with no columns has RangeIndex columns in riptide (as ``df[[]]`` does), pandas' keep their type
    assert_frame_equal(got, expected, check_column_type=expected.shape[1] > 0)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("null_frac", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("dropna", [True, False])
def test_series_mode_each_dtype(dtype, null_frac, dropna):
    s = make_values(np.random.default_rng(11), dtype, 50, null_frac=null_frac, small=True).rename("m")
    s.index = pd.RangeIndex(100, 150)
    assert_series_equal(rt.Series(s).mode(dropna=dropna), _series_expected(s, dropna))


@pytest.mark.parametrize("values,dtype", [
    ([3, 1, 3, 1, 2], "int64"),
    ([], "int64"),
    ([np.nan, np.nan], "float64"),
    ([np.nan, 1.0], "float64"),
    ([np.nan, np.nan, 1.0], "float64"),
    (["b", "a", None, None], "str"),
    (["中文", "😀", "😀", "中文", "ß"], "str"),
    ([True, False], "bool"),
    ([1, None, None], "Int64"),
    ([7], "int8"),
])  # fmt: skip
@pytest.mark.parametrize("dropna", [True, False])
def test_series_mode_edges(values, dtype, dropna):
    s = pd.Series(values, dtype=dtype, name="x")
    assert_series_equal(rt.Series(s).mode(dropna=dropna), _series_expected(s, dropna))


def test_categorical_mode_in_category_order():
    s = pd.Series(["b", "a", "b", "a", None], dtype=pd.CategoricalDtype(["z", "b", "a"]))
    for dropna in (True, False):
        assert_series_equal(rt.Series(s).mode(dropna=dropna), _series_expected(s, dropna))


def test_datetime_mode():
    s = pd.Series(pd.to_datetime(["2020", "2019", None, "2019", "2020"]))
    assert_series_equal(rt.Series(s).mode(), s.mode())
    assert_series_equal(rt.Series(s).mode(dropna=False), s.mode(dropna=False))


def test_frame_mode_padding():
    df = pd.DataFrame({"a": [1, 1, 2, 2], "b": ["x", "y", "y", "z"], "d": [1.5, 2.5, 3.5, 4.5],
                       "t": pd.to_datetime(["2020", "2020", "2021", "2022"]),
                       "k": pd.Categorical(["p", "p", "q", "q"]), "i": pd.array([1, 1, 2, 3], dtype="Int64")})
    assert_frame_equal(rt.DataFrame(df).mode(), df.mode())
    assert_frame_equal(rt.DataFrame(df).mode(numeric_only=True), df.mode(numeric_only=True))
    assert_frame_equal(rt.DataFrame(df[["a", "k"]]).mode(), df[["a", "k"]].mode())


def test_frame_mode_bool_padding_is_boolean():
    df = pd.DataFrame({"a": [1, 1, 2, 2], "c": [True, True, False, True]})
    got = rt.DataFrame(df).mode().to_pandas()
    assert str(got["c"].dtype) == "boolean"  # pandas: object
    assert got["c"].tolist()[0] is True and got["c"].isna().tolist() == [False, True]
    assert_frame_equal(rt.DataFrame(df).mode(), _frame_expected(df))


def test_frame_mode_empty_and_all_null():
    for df in [pd.DataFrame({"a": pd.Series([], dtype=int)}), pd.DataFrame(),
               pd.DataFrame({"a": [1, 2], "t": [np.nan, np.nan]}), pd.DataFrame({"a": [np.nan, np.nan]})]:
        for dropna in (True, False):
            assert_frame_equal(rt.DataFrame(df).mode(dropna=dropna), df.mode(dropna=dropna))


def test_frame_mode_keeps_column_labels():
    df = pd.DataFrame({"a": [1, 1, 2], "b": [3, 4, 4]}, index=["p", "q", "r"])
    df.columns.name = "cols"
    assert_frame_equal(rt.DataFrame(df).mode(), df.mode())


def test_frame_mode_axis():
    df = rt.DataFrame({"a": [1.0, 2.0], "b": [1.0, 3.0]})
    with pytest.raises(NotImplementedError):
        df.mode(axis=1)
    with pytest.raises(ValueError):
        df.mode(axis=2)
    assert_frame_equal(df.mode(axis="index"), df.to_pandas().mode(axis="index"))
