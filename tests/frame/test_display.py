"""repr / _repr_html_ / info / describe / memory_usage vs pandas."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest
from conftest import ALL_DTYPES, assert_frame_equal, assert_series_equal, frame_st, make_values, series_st
from hypothesis import assume, given, settings

import riptide as rt

BUGS = {
    "DP1": "riptide bug: a truncated Series repr (> display.max_rows rows) shows 6 head and 6 tail rows and no '..' "
           "row; pandas shows 5, '..', 5",
    "DP2": "riptide bug: a categorical Series repr puts the 'Categories (...)' line before 'Name: ..., dtype: "
           "category'; pandas puts it last",
    "DP3": "riptide bug: a frame wider than display.width is printed on one long line; pandas wraps the columns "
           "into blocks (expand_frame_repr) or elides them",
    "DP4": "riptide bug: DataFrame._repr_html_() raises TypeError (DataFrame.to_html() got an unexpected keyword "
           "argument 'min_rows'), so notebooks cannot show a frame",
    "DP5": "riptide bug: the repr of a frame with no columns and more than display.max_rows rows lists only the "
           "shown rows' labels (Index: [0, ..., 5, 55, ..., 60]); pandas lists every label and '[61 rows x 0 columns]'",
    "DS1": "riptide bug: describe(percentiles=[0.1, 0.9]) adds a 50% row; pandas 3 shows only the percentiles asked for",
    "DS2": "riptide bug: describe() of an Int64/Float64 column is float64; pandas returns Float64",
    "MU1": "riptide bug: memory_usage() reports 24 bytes for a RangeIndex; pandas 3 reports 132 (RangeIndex.memory_usage())",
}


@pytest.fixture(autouse=True)
def _same_display_options():
    """pandas' display options set to riptide's (pandas auto-sizes to the terminal when max_columns is 0)."""
    with pd.option_context("display.max_columns", rt.get_option("display.max_columns"),
                           "display.max_rows", rt.get_option("display.max_rows"),
                           "display.min_rows", rt.get_option("display.min_rows")):  # fmt: skip
        yield


def _wide(df: pd.DataFrame) -> bool:
    """Whether pandas wraps the frame's columns into blocks (lines ending in a backslash)."""
    return any(line.endswith("\\") for line in repr(df).splitlines())


def _series_bug(s: pd.Series) -> str | None:
    if len(s) > rt.get_option("display.max_rows"):
        return "DP1"
    if isinstance(s.dtype, pd.CategoricalDtype):
        return "DP2"
    return None


# --------------------------------------------------------------------------- repr


@settings(max_examples=25)
@given(series_st(max_size=150))
def test_series_repr_matches_pandas(s):
    assume(_series_bug(s) is None)  # the xfail cases below
    assert repr(rt.from_pandas(s)) == repr(s)


@settings(max_examples=25)
@given(frame_st(max_cols=5, max_size=150))
def test_frame_repr_matches_pandas(df):
    assume(not _wide(df))  # DP3
    assume(not (df.shape[1] == 0 and len(df) > rt.get_option("display.max_rows")))  # DP5
    assert repr(rt.from_pandas(df)) == repr(df)


def _series_cases() -> list:
    cases = []
    for dtype in ALL_DTYPES:
        for n in [0, 1, 5, 60, 61, 100, 1000]:
            s = make_values(np.random.default_rng(n), dtype, n, 0.2)
            bug = _series_bug(s)
            marks = [pytest.mark.xfail(strict=True, reason=BUGS[bug])] if bug else []
            cases.append(pytest.param(dtype, n, marks=marks, id=f"{dtype}-{n}"))
    return cases


@pytest.mark.parametrize(("dtype", "n"), _series_cases())
def test_series_repr_short_and_long(dtype, n):
    s = make_values(np.random.default_rng(n), dtype, n, 0.2)
    s.name = "col"
    assert repr(rt.from_pandas(s)) == repr(s)


@pytest.mark.parametrize("n", [0, 1, 10, 60, 61, 250])
def test_frame_repr_short_and_long(n):
    rng = np.random.default_rng(n)
    df = pd.DataFrame({dtype: make_values(rng, dtype, n, 0.2, small=True) for dtype in
                       ["int8", "int64", "float64", "bool", "Int64", "str"]})  # fmt: skip
    assert repr(rt.from_pandas(df)) == repr(df)


@pytest.mark.xfail(strict=True, reason=BUGS["DP3"])
def test_wide_frame_repr():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({dtype: make_values(rng, dtype, 3, 0.2) for dtype in ALL_DTYPES})
    assert repr(rt.from_pandas(df)) == repr(df)


def test_frame_repr_many_columns():
    df = pd.DataFrame({f"c{i}": np.arange(5) * i for i in range(30)})
    with pd.option_context("display.width", 1000):  # no wrapping: only the max_columns elision is compared
        assert repr(rt.from_pandas(df)) == repr(df)


def test_frame_repr_with_index_and_names():
    df = pd.DataFrame({"a": [1.5, np.nan], "s": pd.Series(["x", None], dtype="str")},
                      index=pd.Index(["r0", "r1"], name="key"))  # fmt: skip
    assert repr(rt.from_pandas(df)) == repr(df)
    s = pd.Series([1, 2], index=pd.Index([10, 20], name="k"), name="v")
    assert repr(rt.from_pandas(s)) == repr(s)


@pytest.mark.xfail(strict=True, reason=BUGS["DP5"])
def test_no_columns_many_rows_repr():
    df = pd.DataFrame(index=pd.RangeIndex(61))
    assert repr(rt.from_pandas(df)) == repr(df)


def test_empty_frames_repr():
    for df in [pd.DataFrame(), pd.DataFrame({"a": pd.Series([], dtype="int64")}), pd.DataFrame(index=[1, 2])]:
        assert repr(rt.from_pandas(df)) == repr(df)


def test_repr_follows_display_options():
    df = pd.DataFrame({"a": np.arange(30)})
    with rt.option_context("display.max_rows", 10), pd.option_context("display.max_rows", 10):
        assert repr(rt.from_pandas(df)) == repr(df)


def test_index_repr():
    for index in [pd.Index([1, 2, 3], name="k"), pd.Index(["a", "b"], dtype="str"), pd.RangeIndex(2, 10, 2)]:
        assert repr(rt.from_pandas(index)) == repr(index)


# --------------------------------------------------------------------------- HTML


@pytest.mark.xfail(strict=True, reason=BUGS["DP4"])
@pytest.mark.parametrize(("rows", "cols"), [(0, 0), (3, 2), (100, 3), (5, 30)])
def test_repr_html_contains_dimensions(rows, cols):
    df = pd.DataFrame({f"c{i}": np.arange(rows, dtype=np.float64) for i in range(cols)}, index=pd.RangeIndex(rows))
    html = rt.from_pandas(df)._repr_html_()
    assert isinstance(html, str) and "<table" in html
    assert f"{rows} rows × {cols} columns" in html
    shown = re.findall(r"<th>c\d+</th>", html)
    assert len(shown) == min(cols, rt.get_option("display.max_columns") + 1 if cols > 20 else cols) or cols > 20


@pytest.mark.xfail(strict=True, reason=BUGS["DP4"])
def test_repr_html_values_match_pandas():
    df = pd.DataFrame({"a": [1.5, np.nan, 3.0], "s": pd.Series(["x", None, "é"], dtype="str")})
    html = rt.from_pandas(df)._repr_html_()
    expected = df.to_html(notebook=True)
    for cell in re.findall(r"<td>(.*?)</td>", expected):
        assert f"<td>{cell}</td>" in html


# --------------------------------------------------------------------------- info


def _info(obj) -> str:
    buf = io.StringIO()
    obj.info(buf=buf)
    return buf.getvalue()


def test_info_lists_columns_counts_and_dtypes():
    df = pd.DataFrame({"a": [1, 2, 3], "b": [1.5, np.nan, 2.5], "s": pd.Series(["x", None, None], dtype="str"),
                       "n": pd.array([1, None, 3], dtype="Int64")})  # fmt: skip
    text = _info(rt.from_pandas(df))
    expected = _info(df)
    assert "RangeIndex: 3 entries, 0 to 2" in text
    assert "Data columns (total 4 columns):" in text
    for label in df.columns:
        count = int(df[label].notna().sum())
        assert re.search(rf"\b{label}\s+{count} non-null\s+{re.escape(str(df[label].dtype))}", text), text
    dtypes_line = next(line for line in expected.splitlines() if line.startswith("dtypes:"))
    assert dtypes_line in text
    assert "memory usage:" in text


def test_info_of_series_and_non_range_index():
    s = pd.Series([1.0, np.nan], index=["a", "b"], name="v")
    text = _info(rt.from_pandas(s))
    assert "Index: 2 entries" in text
    assert "1 non-null" in text and "float64" in text


def test_info_empty_frame():
    text = _info(rt.from_pandas(pd.DataFrame({"a": pd.Series([], dtype="float64")})))
    assert "0 entries" in text and "0 non-null" in text


# --------------------------------------------------------------------------- describe


# small values: pandas' own quantile overflows on int64 extremes (its 25% of [2**63-1, -4e18] is below the min)
@given(frame_st(dtypes=["int64", "int8", "float64", "float32", "uint8", "Int64", "Float64"], min_cols=1, max_cols=4,
                small=True))  # fmt: skip
def test_describe_numeric_matches_pandas(df):
    assume(not any(str(d) in ("Int64", "Float64") for d in df.dtypes))  # DS2
    expected = df.describe()
    got = rt.from_pandas(df).describe()
    rtol = 1e-5 if any(d == np.float32 for d in df.dtypes) else 1e-9  # pandas' float32 std is float32-precise
    assert_frame_equal(got, expected, check_exact=False, rtol=rtol, atol=1e-9)


@given(series_st(dtypes=["int64", "float64", "uint8", "int8"], small=True))
def test_series_describe_matches_pandas(s):
    assert_series_equal(rt.from_pandas(s).describe(), s.describe(), check_exact=False, rtol=1e-9, atol=1e-9)


@pytest.mark.xfail(strict=True, reason=BUGS["DS2"])
def test_describe_masked_is_float64_masked():
    s = pd.Series([1, 2, None], dtype="Int64")
    assert_series_equal(rt.from_pandas(s).describe(), s.describe(), check_exact=False, rtol=1e-9)


@pytest.mark.xfail(strict=True, reason=BUGS["DS1"])
def test_describe_percentiles():
    s = pd.Series(np.random.default_rng(0).standard_normal(100))
    expected = s.describe(percentiles=[0.1, 0.9])
    assert_series_equal(rt.from_pandas(s).describe(percentiles=[0.1, 0.9]), expected, check_exact=False, rtol=1e-9)


@pytest.mark.parametrize("dtype", ["str", "category"])
def test_describe_strings_is_a_pandas_object(dtype):
    # Documented: a text summary mixes ints and strings, so it stays a (small) pandas object.
    s = make_values(np.random.default_rng(0), dtype, 50, 0.2)
    got = rt.from_pandas(s).describe()
    expected = s.describe()
    assert isinstance(got, pd.Series)
    assert got["count"] == expected["count"]
    assert got["unique"] == expected["unique"]
    assert got["freq"] == expected["freq"]
    assert s.value_counts()[got["top"]] == expected["freq"]


def test_describe_mixed_frame_include_all():
    df = pd.DataFrame({"a": [1, 2, 3, 4], "s": pd.Series(["x", "y", "x", None], dtype="str")})
    got = rt.from_pandas(df).describe(include="all")
    expected = df.describe(include="all")
    assert isinstance(got, pd.DataFrame)
    assert list(got.columns) == list(expected.columns)
    assert float(got.loc["mean", "a"]) == pytest.approx(float(expected.loc["mean", "a"]))
    assert got.loc["unique", "s"] == expected.loc["unique", "s"]


def test_describe_default_skips_non_numeric():
    df = pd.DataFrame({"a": [1.0, 2.0, 4.0], "s": pd.Series(["x", "y", None], dtype="str")})
    assert_frame_equal(rt.from_pandas(df).describe(), df.describe(), check_exact=False, rtol=1e-9)


def test_describe_bad_percentile_raises():
    with pytest.raises(ValueError):
        pd.Series([1.0]).describe(percentiles=[1.5])
    with pytest.raises(ValueError):
        rt.Series([1.0]).describe(percentiles=[1.5])


# --------------------------------------------------------------------------- memory_usage


@pytest.mark.xfail(strict=True, reason=BUGS["MU1"])
def test_memory_usage_like_pandas():
    df = pd.DataFrame({"a": np.arange(100, dtype=np.int64), "b": np.zeros(100, dtype=np.float32),
                       "c": np.zeros(100, dtype=bool)})  # fmt: skip
    got = rt.from_pandas(df).memory_usage()
    expected = df.memory_usage()
    pd.testing.assert_series_equal(got, expected)
    pd.testing.assert_series_equal(rt.from_pandas(df).memory_usage(index=False), df.memory_usage(index=False))
    s = df["a"]
    assert rt.from_pandas(s).memory_usage() == s.memory_usage()
    assert rt.from_pandas(s).memory_usage(index=False) == s.memory_usage(index=False)


def test_memory_usage_of_columns_like_pandas():
    df = pd.DataFrame({"a": np.arange(100, dtype=np.int64), "b": np.zeros(100, dtype=np.float32),
                       "c": np.zeros(100, dtype=bool)}, index=pd.Index(np.arange(100) * 2))  # fmt: skip
    pd.testing.assert_series_equal(rt.from_pandas(df).memory_usage(), df.memory_usage())
    pd.testing.assert_series_equal(rt.from_pandas(df).memory_usage(index=False), df.memory_usage(index=False))
    s = df["a"]
    assert rt.from_pandas(s).memory_usage() == s.memory_usage()


def test_memory_usage_masked_and_strings_are_positive():
    df = pd.DataFrame({"n": pd.array([1, None], dtype="Int64"), "s": pd.Series(["abc", None], dtype="str")})
    usage = rt.from_pandas(df).memory_usage()
    assert list(usage.index) == ["Index", "n", "s"]
    assert (usage.iloc[1:] > 0).all()
    assert usage["n"] == df.memory_usage()["n"]  # 8 bytes per value + 1 byte per mask entry, as pandas
