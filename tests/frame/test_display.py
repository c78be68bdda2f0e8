"""repr / _repr_html_ / info / describe / memory_usage vs pandas."""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pandas as pd
import pytest
from conftest import (ALL_DTYPES, MASKED_DTYPES, assert_frame_equal, assert_series_equal, frame_st, make_values,
                      series_st)
from hypothesis import given, settings

import riptide as rt

BUGS = {
    "MU2": "riptide bug: memory_usage() of an Int64/Float64/boolean column without missing values counts no mask "
           "(riptide allocates none); pandas always counts its 1-byte-per-row mask (9 bytes per Int64 value)",
}

_OPTIONS = ["display.max_rows", "display.min_rows", "display.max_columns", "display.width"]


@pytest.fixture(autouse=True)
def _same_display_options():
    """pandas' display options set to riptide's (pandas auto-sizes to the terminal when max_columns is 0)."""
    with pd.option_context(*[x for name in _OPTIONS for x in (name, rt.get_option(name))]):
        yield


@contextlib.contextmanager
def _options(**values):
    """The same display options in riptide and pandas: _options(max_rows=10, width=None)."""
    with contextlib.ExitStack() as stack:
        for name, value in values.items():
            stack.enter_context(rt.option_context(f"display.{name}", value))
            stack.enter_context(pd.option_context(f"display.{name}", value))
        yield


# --------------------------------------------------------------------------- repr


@settings(max_examples=25)
@given(series_st(max_size=150))
def test_series_repr_matches_pandas(s):
    assert repr(rt.from_pandas(s)) == repr(s)


@settings(max_examples=25)
@given(frame_st(max_cols=5, max_size=150))
def test_frame_repr_matches_pandas(df):
    assert repr(rt.from_pandas(df)) == repr(df)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("n", [0, 1, 5, 60, 61, 100, 1000])
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


@pytest.mark.parametrize("n", [3, 100])
def test_wide_frame_repr(n):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({dtype: make_values(rng, dtype, n, 0.2) for dtype in ALL_DTYPES})
    assert repr(rt.from_pandas(df)) == repr(df)
    for width in [40, 200, None]:
        with _options(width=width):
            assert repr(rt.from_pandas(df)) == repr(df)
    with _options(max_columns=None):
        assert repr(rt.from_pandas(df)) == repr(df)


def test_frame_repr_many_columns():
    df = pd.DataFrame({f"c{i}": np.arange(5) * i for i in range(30)})
    with _options(width=1000):  # no wrapping: only the max_columns elision is compared
        assert repr(rt.from_pandas(df)) == repr(df)


@pytest.mark.parametrize("max_columns", [1, 2, 3, 4, 29, 30, 31, None])
def test_frame_repr_max_columns(max_columns):
    df = pd.DataFrame({f"c{i}": np.arange(70) * i for i in range(30)})
    with _options(max_columns=max_columns):
        assert repr(rt.from_pandas(df)) == repr(df)
        assert rt.from_pandas(df)._repr_html_() == df._repr_html_()


@pytest.mark.parametrize(("max_rows", "min_rows"), [(10, 10), (10, 4), (10, 5), (10, 1), (10, 2), (10, 30), (1, 1),
                                                     (2, None), (5, None), (None, 10), (61, 10), (100, 7)])  # fmt: skip
@pytest.mark.parametrize("n", [0, 1, 2, 9, 10, 11, 12, 61, 200])
def test_repr_follows_row_options(max_rows, min_rows, n):
    rng = np.random.default_rng(n)
    s = make_values(rng, "float64", n, 0.2)
    s.name = "x"
    df = pd.DataFrame({"a": s, "c": make_values(rng, "category", n, 0.2)})
    with _options(max_rows=max_rows, min_rows=min_rows):
        assert repr(rt.from_pandas(s)) == repr(s)
        assert repr(rt.from_pandas(df["c"])) == repr(df["c"])
        assert repr(rt.from_pandas(df)) == repr(df)
        assert rt.from_pandas(df)._repr_html_() == df._repr_html_()


def test_repr_fetches_only_the_rows_shown(monkeypatch):
    """A long table's repr copies the rows shown to the host (plus one at each end), not the whole table."""
    sizes = []
    for cls in (rt.Series, rt.DataFrame):
        original = cls.to_pandas
        monkeypatch.setattr(cls, "to_pandas", lambda self, _f=original: sizes.append(self.shape) or _f(self))
    df = rt.from_pandas(pd.DataFrame({f"c{i}": np.arange(10_000) for i in range(50)}))
    repr(df["c0"])
    repr(df)
    df._repr_html_()
    assert sizes == [(12,), (12, 22), (12, 22)]


def test_repr_with_index_and_names():
    df = pd.DataFrame({"a": [1.5, np.nan], "s": pd.Series(["x", None], dtype="str")},
                      index=pd.Index(["r0", "r1"], name="key"))  # fmt: skip
    assert repr(rt.from_pandas(df)) == repr(df)
    s = pd.Series([1, 2], index=pd.Index([10, 20], name="k"), name="v")
    assert repr(rt.from_pandas(s)) == repr(s)
    long = pd.Series(np.arange(100.0), index=pd.Index(np.arange(100) * 3, name="k"), name="Length: 100, dtype: ")
    assert repr(rt.from_pandas(long)) == repr(long)


@pytest.mark.parametrize("n", [61, 101, 150])
def test_no_columns_many_rows_repr(n):
    df = pd.DataFrame(index=pd.RangeIndex(n))
    assert repr(rt.from_pandas(df)) == repr(df)
    assert rt.from_pandas(df)._repr_html_() == df._repr_html_()
    df = pd.DataFrame(index=pd.Index(np.arange(n) * 2))
    assert repr(rt.from_pandas(df)) == repr(df)


def test_empty_frames_repr():
    for df in [pd.DataFrame(), pd.DataFrame({"a": pd.Series([], dtype="int64")}), pd.DataFrame(index=[1, 2]),
               pd.DataFrame({f"c{i}": pd.Series([], dtype="float64") for i in range(130)})]:  # fmt: skip
        assert repr(rt.from_pandas(df)) == repr(df)
        assert rt.from_pandas(df)._repr_html_() == df._repr_html_()


def test_display_options_validate():
    with pytest.raises(ValueError):
        rt.set_option("display.width", 0)
    with pytest.raises(ValueError):
        rt.set_option("display.max_rows", "10")
    assert rt.get_option("display.width") == 80 == pd.get_option("display.width")


def test_index_repr():
    for index in [pd.Index([1, 2, 3], name="k"), pd.Index(["a", "b"], dtype="str"), pd.RangeIndex(2, 10, 2)]:
        assert repr(rt.from_pandas(index)) == repr(index)


# --------------------------------------------------------------------------- HTML


@pytest.mark.parametrize(("rows", "cols"), [(0, 0), (3, 2), (100, 3), (5, 30), (100, 30), (61, 1)])
def test_repr_html_matches_pandas(rows, cols):
    df = pd.DataFrame({f"c{i}": np.arange(rows, dtype=np.float64) for i in range(cols)}, index=pd.RangeIndex(rows))
    html = rt.from_pandas(df)._repr_html_()
    assert html == df._repr_html_()
    if rows > 60 or cols > 20:
        assert html.endswith(f"</table>\n<p>{rows} rows × {cols} columns</p>\n</div>")


def test_repr_html_values_match_pandas():
    df = pd.DataFrame({"a": [1.5, np.nan, 3.0], "s": pd.Series(["x", None, "<é>"], dtype="str")})
    assert rt.from_pandas(df)._repr_html_() == df._repr_html_()


@settings(max_examples=15)
@given(frame_st(max_cols=4, max_size=150))
def test_repr_html_random_frames(df):
    assert rt.from_pandas(df)._repr_html_() == df._repr_html_()


# --------------------------------------------------------------------------- info


def _info(obj) -> str:
    buf = io.StringIO()
    obj.info(buf=buf)
    return buf.getvalue()


def _pandas_info(obj) -> str:
    """pandas' info text as riptide writes it: riptide's class, then a line saying where the data lives."""
    where = "device" if rt._device.is_gpu() else "host"
    return _info(obj).replace("<class 'pandas.", "<class 'riptide.") + f"data on: {where}\n"


_INFO_FRAMES = {
    "mixed": pd.DataFrame({"a": [1, 2, 3], "b": [1.5, np.nan, 2.5], "s": pd.Series(["x", None, None], dtype="str"),
                           "n": pd.array([1, None, 3], dtype="Int64")}),
    "long labels": pd.DataFrame({"a_rather_long_column_label": np.arange(3.0), "t": pd.to_timedelta([1, 2, None])}),
    "no columns": pd.DataFrame(index=pd.RangeIndex(3)),
    "no rows": pd.DataFrame({"a": pd.Series([], dtype="float64")}),
    "label index": pd.DataFrame({"a": [1.0, 2.0]}, index=pd.Index(["x", "y"], dtype="str")),
    "int index": pd.DataFrame({"a": [True, False, True]}, index=pd.Index([5, 7, 9])),
    "many columns": pd.DataFrame({f"c{i}": [i] for i in range(101)}),
    "twelve columns": pd.DataFrame({f"c{i}": pd.Series([1.0, None], dtype="Float64") for i in range(12)}),
    "categories": pd.DataFrame({"c": pd.Categorical(["a", "b", None]), "d": pd.to_datetime([1, 2, 3])}),
}


def _same_info(obj) -> None:
    got, expected = _info(rt.from_pandas(obj)), _pandas_info(obj)
    frame = obj.to_frame() if isinstance(obj, pd.Series) else obj
    strings = any(str(d) in ("str", "category") for d in [*frame.dtypes, frame.index.dtype])  # not laid out as arrow
    unmasked = any(str(d) in MASKED_DTYPES and not frame[c].hasnans for c, d in frame.dtypes.items())  # MU2
    if strings or unmasked:
        got, expected = [re.sub(r"memory usage: .*", "", text) for text in (got, expected)]
    assert got == expected


@pytest.mark.parametrize("name", list(_INFO_FRAMES))
def test_info_matches_pandas(name):
    _same_info(_INFO_FRAMES[name])


@settings(max_examples=25)
@given(frame_st(max_cols=5, max_size=150))
def test_info_random_frames(df):
    _same_info(df)


def test_info_without_counts_beyond_max_info_rows():
    df = pd.DataFrame({"a": [1.0, None, 3.0], "b": [1, 2, 3]})
    with pd.option_context("display.max_info_rows", 2):
        _same_info(df)
        assert "non-null" not in _info(rt.from_pandas(df))


@pytest.mark.parametrize("s", [pd.Series([1.0, np.nan], index=["a", "b"], name="v"), pd.Series([], dtype="int8"),
                               pd.Series(pd.array([True, None], dtype="boolean"), name=3)])  # fmt: skip
def test_info_of_series_matches_pandas(s):
    _same_info(s)


# --------------------------------------------------------------------------- describe


# small values: pandas' own quantile overflows on int64 extremes (its 25% of [2**63-1, -4e18] is below the min)
@given(frame_st(dtypes=["int64", "int8", "float64", "float32", "uint8", "Int64", "Float64"], min_cols=1, max_cols=4,
                small=True))  # fmt: skip
def test_describe_numeric_matches_pandas(df):
    expected = df.describe()
    got = rt.from_pandas(df).describe()
    rtol = 1e-5 if any(d == np.float32 for d in df.dtypes) else 1e-9  # pandas' float32 std is float32-precise
    assert_frame_equal(got, expected, check_exact=False, rtol=rtol, atol=1e-9)


@given(series_st(dtypes=["int64", "float64", "uint8", "int8"], small=True))
def test_series_describe_matches_pandas(s):
    assert_series_equal(rt.from_pandas(s).describe(), s.describe(), check_exact=False, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("values", [[1, 2, None], [None, None], [5], []])
@pytest.mark.parametrize("dtype", ["Int64", "Float64"])
def test_describe_masked_is_float64_masked(values, dtype):
    s = pd.Series(values, dtype=dtype)
    assert_series_equal(rt.from_pandas(s).describe(), s.describe(), check_exact=False, rtol=1e-9)


@pytest.mark.parametrize("percentiles", [[0.1, 0.9], [0.9, 0.1], [], [0.5], [0.01999, 0.02001, 0.666666, 1], [0]])
def test_describe_percentiles(percentiles):
    s = pd.Series(np.random.default_rng(0).standard_normal(100))
    expected = s.describe(percentiles=percentiles)
    assert_series_equal(rt.from_pandas(s).describe(percentiles=percentiles), expected, check_exact=False, rtol=1e-9)
    df = pd.DataFrame({"a": s, "b": pd.Series(np.arange(100), dtype="Int64")})
    got = rt.from_pandas(df).describe(percentiles=percentiles)
    assert_frame_equal(got, df.describe(percentiles=percentiles), check_exact=False, rtol=1e-9)


@pytest.mark.parametrize("dtype", ["str", "category", "bool", "boolean"])
def test_describe_strings_is_a_pandas_object(dtype):
    # Documented: a text summary mixes ints and strings, so it stays a (small) pandas object.
    s = make_values(np.random.default_rng(0), dtype, 50, 0.2)
    got = rt.from_pandas(s).describe()
    assert isinstance(got, pd.Series)
    pd.testing.assert_series_equal(got, s.describe())


def test_describe_top_of_tied_values_is_the_first_seen():
    # pandas sorts value_counts stably: of the most frequent values, the first seen (the first category) wins
    for s in [pd.Series(["b", "a", "a", "b", "c"], dtype="str"), pd.Series([True, False]),
              pd.Series(pd.Categorical(["b", "a", "a", "b"], categories=["c", "b", "a"]))]:  # fmt: skip
        pd.testing.assert_series_equal(rt.from_pandas(s).describe(), s.describe())


def test_describe_temporal_matches_pandas():
    s = pd.Series(pd.to_timedelta([1, 5, None, 9], unit="h"), name="t")
    pd.testing.assert_series_equal(rt.from_pandas(s).describe(), s.describe())
    d = pd.Series(pd.to_datetime(["2020-01-01", None, "2020-01-05"]))
    pd.testing.assert_series_equal(rt.from_pandas(d).describe(), d.describe())


def test_describe_mixed_frame_include_all():
    df = pd.DataFrame({"a": [1, 2, 3, 4], "s": pd.Series(["x", "y", "x", None], dtype="str"),
                       "t": pd.to_timedelta([1, 2, 3, 4], unit="D"), "b": [True, False, True, True]})  # fmt: skip
    got = rt.from_pandas(df).describe(include="all")
    assert isinstance(got, pd.DataFrame)
    pd.testing.assert_frame_equal(got, df.describe(include="all"))
    got = rt.from_pandas(df).describe()
    pd.testing.assert_frame_equal(got, df.describe())


def test_describe_default_skips_non_numeric():
    df = pd.DataFrame({"a": [1.0, 2.0, 4.0], "s": pd.Series(["x", "y", None], dtype="str")})
    assert_frame_equal(rt.from_pandas(df).describe(), df.describe(), check_exact=False, rtol=1e-9)


def test_describe_bad_percentiles_raise():
    for bad in ([1.5], [0.2, 0.2], [np.nan]):
        with pytest.raises(ValueError):
            pd.Series([1.0]).describe(percentiles=bad)
        with pytest.raises(ValueError):
            rt.Series([1.0]).describe(percentiles=bad)
    with pytest.raises(ValueError, match="without columns"):
        rt.from_pandas(pd.DataFrame(index=[1])).describe()


# --------------------------------------------------------------------------- memory_usage


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
    for index in [pd.RangeIndex(0), pd.RangeIndex(5, 2**40, 3)]:
        assert rt.from_pandas(index).memory_usage() == index.memory_usage()


def test_memory_usage_of_columns_like_pandas():
    df = pd.DataFrame({"a": np.arange(100, dtype=np.int64), "b": np.zeros(100, dtype=np.float32),
                       "c": np.zeros(100, dtype=bool)}, index=pd.Index(np.arange(100) * 2))  # fmt: skip
    pd.testing.assert_series_equal(rt.from_pandas(df).memory_usage(), df.memory_usage())
    pd.testing.assert_series_equal(rt.from_pandas(df).memory_usage(index=False), df.memory_usage(index=False))
    s = df["a"]
    assert rt.from_pandas(s).memory_usage() == s.memory_usage()


@pytest.mark.xfail(strict=True, reason=BUGS["MU2"])
def test_memory_usage_masked_without_missing():
    df = pd.DataFrame({"n": pd.array([1, 2], dtype="Int64")})
    pd.testing.assert_series_equal(rt.from_pandas(df).memory_usage(), df.memory_usage())


def test_memory_usage_masked_and_strings_are_positive():
    df = pd.DataFrame({"n": pd.array([1, None], dtype="Int64"), "s": pd.Series(["abc", None], dtype="str")})
    usage = rt.from_pandas(df).memory_usage()
    assert list(usage.index) == ["Index", "n", "s"]
    assert (usage.iloc[1:] > 0).all()
    assert usage["n"] == df.memory_usage()["n"]  # 8 bytes per value + 1 byte per mask entry, as pandas
