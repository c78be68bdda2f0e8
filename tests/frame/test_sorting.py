"""Sorting vs pandas: sort_values, sort_index, argsort, nlargest, nsmallest and rank.

riptide always sorts stably, so wherever equal keys can occur the oracle is pandas with ``kind="stable"``
(pandas' multi-column sorts are stable anyway). Keys of every dtype in ``ALL_DTYPES``, with NaN, null, NaT,
-0.0, infinities, integer extremes, unicode and categoricals in category order.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import (
    ALL_DTYPES,
    assert_frame_equal,
    assert_index_equal,
    assert_series_equal,
    frame_st,
    make_values,
    pandas_result,
    series_st,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.core.column import NumericColumn, as_column
from riptide.core.ops import sorting as core_sorting

SELECTABLE = [d for d in ALL_DTYPES if d not in ("str", "category")]
NUMERIC_ONLY = ["int8", "int64", "uint64", "float32", "float64", "bool", "Int64", "Float64", "boolean"]


def _base_error(error: BaseException) -> type[BaseException]:
    for base in (KeyError, IndexError, TypeError, ValueError, NotImplementedError):
        if isinstance(error, base):
            return base
    return type(error)


def same_outcome(rt_obj: Any, pd_obj: Any, fn: Any, **kwargs: Any) -> None:
    """``fn`` gives equal results on both (or raises the same exception type)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas 3.1 deprecates inplace=
        expected, error = pandas_result(lambda: fn(pd_obj))
    if error is not None:
        with pytest.raises(_base_error(error)):
            fn(rt_obj)
        return
    got = fn(rt_obj)
    if isinstance(expected, pd.DataFrame):
        assert_frame_equal(got, expected, **kwargs)
    elif isinstance(expected, pd.Series):
        assert_series_equal(got, expected, **kwargs)
    elif isinstance(expected, pd.Index):
        assert_index_equal(got, expected, **kwargs)
    else:
        assert got == expected, f"riptide {got!r}, pandas {expected!r}"


def frame_of(columns: dict[str, pd.Series], index: Any = None) -> pd.DataFrame:
    frame = pd.DataFrame(columns)
    if index is not None:
        frame.index = index
    return frame


# --------------------------------------------------------------------------- Series.sort_values


@settings(max_examples=60)
@given(series_st(), st.booleans(), st.sampled_from(["first", "last"]))
def test_series_sort_values_matches_stable_pandas(s, ascending, na_position):
    r = rt.from_pandas(s)
    got = r.sort_values(ascending=ascending, na_position=na_position)
    assert_series_equal(got, s.sort_values(ascending=ascending, na_position=na_position, kind="stable"))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("ascending", [True, False])
def test_series_sort_values_every_dtype_with_ties_and_missing(dtype, ascending):
    rng = np.random.default_rng(7)
    s = make_values(rng, dtype, 300, null_frac=0.2, small=True)
    r = rt.from_pandas(s)
    for na_position in ("first", "last"):
        expected = s.sort_values(ascending=ascending, na_position=na_position, kind="stable")
        assert_series_equal(r.sort_values(ascending=ascending, na_position=na_position), expected)


def test_descending_ties_keep_original_order():
    s = pd.Series([1, 2, 1, 2, 1], index=list("abcde"))
    got = rt.from_pandas(s).sort_values(ascending=False)
    assert got.index.tolist() == ["b", "d", "a", "c", "e"]
    assert_series_equal(got, s.sort_values(ascending=False, kind="stable"))


@pytest.mark.parametrize("values", [
    [0.0, -0.0, 1.0, -0.0, 0.0, np.nan, -np.inf, np.inf, -1.5, np.nan],
    [np.nan, np.nan, np.nan],
    [np.inf, -np.inf, 1e-45, -1e-45, 3.4e38, -3.4e38, 0.0],
])
@pytest.mark.parametrize("dtype", ["float64", "float32", "Float64"])
def test_float_specials(values, dtype):
    s = pd.Series(values, dtype="float64").astype(dtype)
    r = rt.from_pandas(s)
    for ascending in (True, False):
        for na_position in ("first", "last"):
            got = r.sort_values(ascending=ascending, na_position=na_position)
            expected = s.sort_values(ascending=ascending, na_position=na_position, kind="stable")
            assert_series_equal(got, expected)
            # -0.0 and 0.0 tie, so they keep their original order: the sign of each zero is preserved
            assert np.array_equal(np.signbit(got.to_numpy(dtype="float64", na_value=np.nan)),
                                  np.signbit(expected.to_numpy(dtype="float64", na_value=np.nan)))  # fmt: skip


@settings(max_examples=40)
@given(frame_st(dtypes=["float64", "float32", "Float64", "Int64", "str"], min_cols=2, max_cols=4),
       st.integers(0, 2**32 - 1), st.booleans(), st.sampled_from(["first", "last"]))  # fmt: skip
def test_sort_of_a_filtered_frame_by_a_float_column(frame, seed, ascending, na_position):
    """A filter keeping most rows leaves its columns pending (gathered on first read): the sort reads the float
    key from the unfiltered column, decodes the sorted floats from the key, and the other columns and the index
    gather through the composed positions (db-benchmark q8 with missing values)."""
    rng = np.random.default_rng(seed)
    frame["f"] = make_values(rng, "float64", len(frame), 0.2)
    frame.loc[rng.random(len(frame)) < 0.2, "f"] = -0.0
    keep = rng.random(len(frame)) < 0.9
    r = rt.from_pandas(frame)
    got = r[keep].sort_values("f", ascending=ascending, na_position=na_position)
    expected = frame[keep].sort_values("f", ascending=ascending, na_position=na_position, kind="stable")
    assert_frame_equal(got, expected)
    assert np.array_equal(np.signbit(got["f"].to_numpy()), np.signbit(expected["f"].to_numpy()))
    assert_frame_equal(got.reset_index(drop=True), expected.reset_index(drop=True))


def test_negative_nan_bit_pattern_is_missing():
    negative_nan = np.array([0xFFF8000000000001], dtype=np.uint64).view(np.float64)[0]
    s = pd.Series([1.0, negative_nan, -2.0, np.nan])
    r = rt.from_pandas(s)
    assert r.sort_values().index.tolist() == [2, 0, 1, 3]
    assert r.sort_values(na_position="first").index.tolist() == [1, 3, 2, 0]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_integer_extremes(dtype):
    info = np.iinfo(dtype)
    s = pd.Series([info.max, info.min, 0, info.max, 1, info.min], dtype=dtype)
    r = rt.from_pandas(s)
    for ascending in (True, False):
        assert_series_equal(r.sort_values(ascending=ascending), s.sort_values(ascending=ascending, kind="stable"))
    masked = s.astype(dtype.replace("u", "U").replace("i", "I"))
    masked[2] = pd.NA
    rm = rt.from_pandas(masked)
    for ascending in (True, False):
        for na_position in ("first", "last"):
            assert_series_equal(rm.sort_values(ascending=ascending, na_position=na_position),
                                masked.sort_values(ascending=ascending, na_position=na_position, kind="stable"))  # fmt: skip


@pytest.mark.parametrize("dtype", ["datetime64[ns]", "timedelta64[ns]"])
def test_temporal_extremes_and_nat(dtype):
    ints = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, np.iinfo(np.int64).min + 1, 0, -5,
                     np.iinfo(np.int64).max, np.iinfo(np.int64).min], dtype=np.int64)  # fmt: skip
    s = pd.Series(ints.view(dtype))
    r = rt.from_pandas(s)
    for ascending in (True, False):
        for na_position in ("first", "last"):
            assert_series_equal(r.sort_values(ascending=ascending, na_position=na_position),
                                s.sort_values(ascending=ascending, na_position=na_position, kind="stable"))  # fmt: skip


def test_strings_code_point_order():
    values = ["b", "a", "", "a\x00", "ab", "é", "Z", "😀", None, "中文", "a", "ß", "éa", "abcdefghij", "abcdefghi"]
    s = pd.Series(values, dtype="str")
    r = rt.from_pandas(s)
    for ascending in (True, False):
        for na_position in ("first", "last"):
            assert_series_equal(r.sort_values(ascending=ascending, na_position=na_position),
                                s.sort_values(ascending=ascending, na_position=na_position, kind="stable"))  # fmt: skip


def test_categorical_sorts_by_category_order():
    s = pd.Series(pd.Categorical(["b", "a", None, "c", "a"], categories=["c", "b", "a", "unused"]))
    r = rt.from_pandas(s)
    for ascending in (True, False):
        for na_position in ("first", "last"):
            assert_series_equal(r.sort_values(ascending=ascending, na_position=na_position),
                                s.sort_values(ascending=ascending, na_position=na_position, kind="stable"))  # fmt: skip
    assert r.sort_values().tolist()[:4] == ["c", "b", "a", "a"]


def test_series_sort_values_options():
    s = pd.Series([3.0, 1.0, np.nan, 2.0], index=[10, 20, 30, 40], name="x")
    r = rt.from_pandas(s)
    assert_series_equal(r.sort_values(ignore_index=True), s.sort_values(ignore_index=True))
    assert_series_equal(r.sort_values(key=lambda v: -v), s.sort_values(key=lambda v: -v, kind="stable"))
    assert_series_equal(r.sort_values(ascending=[False]), s.sort_values(ascending=[False]))
    assert_series_equal(r.sort_values(kind="mergesort"), s.sort_values(kind="mergesort"))
    assert_series_equal(r.sort_values(axis="index"), s.sort_values(axis="index"))
    same = r.sort_values(inplace=True)
    assert same is None
    assert_series_equal(r, s.sort_values())


def test_sort_values_empty_and_one_row():
    for s in [pd.Series([], dtype="float64"), pd.Series([5], index=["z"]), pd.Series([None], dtype="str"),
              pd.Series([], dtype="str"), pd.Series(pd.Categorical([], categories=["a"]))]:  # fmt: skip
        r = rt.from_pandas(s)
        assert_series_equal(r.sort_values(), s.sort_values())
        assert_series_equal(r.sort_values(ascending=False, na_position="first"),
                            s.sort_values(ascending=False, na_position="first"))  # fmt: skip


@pytest.mark.parametrize("kwargs", [
    {"na_position": "middle"}, {"ascending": [True, False]}, {"ascending": []}, {"ascending": "yes"},
    {"ascending": None}, {"axis": 1}, {"kind": "radix"}, {"key": lambda v: v[:1]},
])
def test_series_sort_values_bad_input(kwargs):
    s = pd.Series([3, 1, 2])
    same_outcome(rt.from_pandas(s), s, lambda obj: obj.sort_values(**kwargs))


# --------------------------------------------------------------------------- DataFrame.sort_values


@st.composite
def frame_and_keys(draw: Any, dtypes: list[str] | None = None) -> tuple[pd.DataFrame, list[str], list[bool]]:
    frame = draw(frame_st(dtypes=dtypes, min_cols=1, max_cols=4))
    labels = list(frame.columns)
    by = draw(st.lists(st.sampled_from(labels), min_size=1, max_size=len(labels), unique=True))
    ascending = draw(st.lists(st.booleans(), min_size=len(by), max_size=len(by)))
    return frame, by, ascending


@settings(max_examples=60)
@given(frame_and_keys(), st.sampled_from(["first", "last"]))
def test_frame_sort_values_matches_pandas(case, na_position):
    frame, by, ascending = case
    r = rt.from_pandas(frame)
    got = r.sort_values(by, ascending=ascending, na_position=na_position)
    if len(by) > 1 and na_position == "first" and _has_nan_and_inf(frame[by]):
        expected = _chained_stable_sorts(frame, by, ascending, na_position)  # pandas' own sort misplaces them
    else:
        expected = frame.sort_values(by, ascending=ascending, na_position=na_position, kind="stable")
    assert_frame_equal(got, expected)


def _has_nan_and_inf(keys: pd.DataFrame) -> bool:
    for _, column in keys.items():
        if column.dtype.kind == "f":
            values = column.to_numpy()
            if np.isnan(values).any() and np.isinf(values).any():
                return True
    return False


def _chained_stable_sorts(frame: pd.DataFrame, by: list, ascending: Any, na_position: str) -> pd.DataFrame:
    """The lexicographic order as successive stable single-key sorts, last key first."""
    ascending = [ascending] * len(by) if isinstance(ascending, bool) else ascending
    for key, up in reversed(list(zip(by, ascending))):
        frame = frame.sort_values(key, ascending=up, na_position=na_position, kind="stable")
    return frame


def test_multi_key_sort_with_nan_and_inf_first():
    """pandas 3.1's multi-key sort with na_position="first" puts a float key's infinities among its NaN rows
    ([nan, inf, nan] descending gives rows 0, 1, 2); riptide keeps every NaN first, as single-key sorts do."""
    frame = pd.DataFrame({"c0": [np.nan, np.inf, np.nan, 1.0, -np.inf], "c1": [127, 105, -8, 3, 4]})
    for up in (True, False):
        got = rt.from_pandas(frame).sort_values(["c0", "c1"], ascending=up, na_position="first")
        assert_frame_equal(got, _chained_stable_sorts(frame, ["c0", "c1"], up, "first"))
    pandas_order = frame.sort_values(["c0", "c1"], ascending=False, na_position="first").index.tolist()
    assert pandas_order in ([0, 1, 2, 3, 4], [0, 2, 1, 3, 4])  # the defect, or its fix in a later pandas


@settings(max_examples=25)
@given(frame_and_keys(dtypes=["int8", "uint8", "bool", "boolean", "category", "Int64", "int16"]),
       st.sampled_from(["first", "last"]))  # fmt: skip
def test_frame_sort_values_packed_small_keys(case, na_position):
    """Small-range keys are packed into one integer per sort pass: same order as pandas."""
    frame, by, ascending = case
    r = rt.from_pandas(frame)
    got = r.sort_values(by, ascending=ascending, na_position=na_position)
    assert_frame_equal(got, frame.sort_values(by, ascending=ascending, na_position=na_position, kind="stable"))


def test_frame_sort_values_many_keys_overflow_one_word():
    """Keys whose ranges multiply past 2**64 are split into several sort passes."""
    rng = np.random.default_rng(3)
    n = 500
    frame = pd.DataFrame({
        "a": rng.integers(-(2**40), 2**40, n), "b": rng.integers(0, 3, n), "c": rng.integers(-(2**40), 2**40, n),
        "d": pd.array(rng.integers(0, 2, n), dtype="Int64"), "e": rng.integers(0, 2**62, n).astype("uint64"),
        "f": make_values(rng, "str", n, 0.1, small=True), "g": make_values(rng, "float64", n, 0.1, small=True),
    })  # fmt: skip
    frame.loc[frame.index[::7], "d"] = pd.NA
    r = rt.from_pandas(frame)
    for by in (["b", "d", "a"], ["d", "b", "f", "g"], ["e", "b"], ["f", "b", "d", "g", "a", "c"]):
        for ascending in (True, False, [True, False] * 3):
            asc = ascending if not isinstance(ascending, list) else ascending[: len(by)]
            assert_frame_equal(r.sort_values(by, ascending=asc), frame.sort_values(by, ascending=asc, kind="stable"))


def test_frame_sort_values_options():
    frame = pd.DataFrame({"a": [2, 1, 2, 1], "b": ["x", "y", "z", "w"], "c": [0.5, np.nan, 0.1, 0.2]},
                         index=pd.Index([5, 6, 7, 8], name="i"))  # fmt: skip
    r = rt.from_pandas(frame)
    same_outcome(r, frame, lambda d: d.sort_values("a", kind="stable"))
    same_outcome(r, frame, lambda d: d.sort_values(["a", "i"], ascending=[True, False]))
    same_outcome(r, frame, lambda d: d.sort_values("c", ignore_index=True))
    same_outcome(r, frame, lambda d: d.sort_values(["a", "b"], key=lambda s: -s if s.name == "a" else s))
    same_outcome(r, frame, lambda d: d.sort_values(by=[]))
    same_outcome(r, frame, lambda d: d.sort_values(("a", "b"), ascending=(False, True)))
    copy = r.copy()
    assert copy.sort_values("c", inplace=True) is None
    assert_frame_equal(copy, frame.sort_values("c"))


@pytest.mark.parametrize("call", [
    lambda d: d.sort_values("zz"),
    lambda d: d.sort_values(["a", "zz"]),
    lambda d: d.sort_values("a", na_position="middle"),
    lambda d: d.sort_values(["a", "b"], ascending=[True]),
    lambda d: d.sort_values("a", ascending=[True, False]),
    lambda d: d.sort_values("a", ascending="yes"),
    lambda d: d.sort_values("a", axis=2),
    lambda d: d.sort_values("a", kind="radix"),
    lambda d: d.sort_values("zz", axis=1),
])
def test_frame_sort_values_bad_input(call):
    frame = pd.DataFrame({"a": [2, 1, 2, 1], "b": ["x", "y", "z", "w"]})
    same_outcome(rt.from_pandas(frame), frame, call)


def test_missing_by_key_error_names_the_label():
    r = rt.DataFrame({"a": [1, 2]})
    with pytest.raises(KeyError, match="zz"):
        r.sort_values("zz")


def test_by_both_level_and_column_is_ambiguous():
    frame = pd.DataFrame({"a": [2, 1]}, index=pd.Index([1, 2], name="a"))
    with pytest.raises(ValueError, match="ambiguous"):
        rt.from_pandas(frame).sort_values("a")


def test_frame_sort_values_axis_1():
    frame = pd.DataFrame({"x": [3, 1], "y": [1, 2], "z": [2, 0]}, index=["r", "s"])
    r = rt.from_pandas(frame)
    same_outcome(r, frame, lambda d: d.sort_values("r", axis=1))
    same_outcome(r, frame, lambda d: d.sort_values(["r", "s"], axis=1, ascending=False))
    same_outcome(r, frame, lambda d: d.sort_values("s", axis="columns", ignore_index=True))


# --------------------------------------------------------------------------- sort_index


@settings(max_examples=40)
@given(series_st(index="int"), st.booleans(), st.sampled_from(["first", "last"]))
def test_series_sort_index_int_labels(s, ascending, na_position):
    r = rt.from_pandas(s)
    assert_series_equal(r.sort_index(ascending=ascending, na_position=na_position),
                        s.sort_index(ascending=ascending, na_position=na_position, kind="stable"))  # fmt: skip


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sort_index_of_every_dtype(dtype):
    rng = np.random.default_rng(11)
    labels = make_values(rng, dtype, 80, null_frac=0.15, small=True)
    s = pd.Series(np.arange(80), index=pd.Index(labels))
    r = rt.from_pandas(s)
    for ascending in (True, False):
        for na_position in ("first", "last"):
            assert_series_equal(r.sort_index(ascending=ascending, na_position=na_position),
                                s.sort_index(ascending=ascending, na_position=na_position, kind="stable"))  # fmt: skip


@pytest.mark.parametrize("index", [pd.RangeIndex(5), pd.RangeIndex(10, 0, -2), pd.RangeIndex(0), pd.RangeIndex(3, 4)])
def test_sort_index_of_a_range(index):
    s = pd.Series(np.arange(len(index)) * 1.5, index=index)
    r = rt.from_pandas(s)
    for ascending in (True, False):
        got = r.sort_index(ascending=ascending)
        expected = s.sort_index(ascending=ascending)
        assert_series_equal(got, expected)
        assert type(got.index.to_pandas()) is type(expected.index)


def test_sort_index_options():
    frame = pd.DataFrame({"v": [1, 2, 3, 4]}, index=pd.Index(["b", "A", "c", "a"], name="k"))
    r = rt.from_pandas(frame)
    same_outcome(r, frame, lambda d: d.sort_index(key=lower, kind="stable"))
    same_outcome(r, frame, lambda d: d.sort_index(ignore_index=True))
    same_outcome(r, frame, lambda d: d.sort_index(ascending=False))
    same_outcome(r, frame, lambda d: d.sort_index(level=0))
    same_outcome(r["v"], frame["v"], lambda s: s.sort_index(ascending=False, kind="heapsort"))
    copy = r.copy()
    assert copy.sort_index(inplace=True) is None
    assert_frame_equal(copy, frame.sort_index())


def test_sort_index_axis_1():
    frame = pd.DataFrame({"b": [1, 2], "c": [3, 4], "a": [5, 6]})
    r = rt.from_pandas(frame)
    same_outcome(r, frame, lambda d: d.sort_index(axis=1))
    same_outcome(r, frame, lambda d: d.sort_index(axis="columns", ascending=False))
    same_outcome(r, frame, lambda d: d.sort_index(axis=1, ignore_index=True))


def test_sort_index_flat_ascending_list_sorts_descending():
    """Deliberate difference: pandas reads ``ascending=[False]`` on a flat index as true (ascending)."""
    r = rt.Series([1, 2, 3], index=[2, 1, 3])
    assert r.sort_index(ascending=[False]).index.tolist() == [3, 2, 1]
    with pytest.raises(ValueError, match="ascending"):
        r.sort_index(ascending=[True, False])


@pytest.mark.parametrize("kwargs", [{"na_position": "x"}, {"ascending": "x"}, {"axis": 1}, {"kind": "zz"}])
def test_sort_index_bad_input(kwargs):
    s = pd.Series([1, 2, 3], index=[2, 1, 3])
    same_outcome(rt.from_pandas(s), s, lambda obj: obj.sort_index(**kwargs))


def lower(labels: Any) -> Any:
    """A sort key that works on a pandas and on a riptide Index (riptide's Index has no .str yet)."""
    if isinstance(labels, pd.Index):
        return labels.str.lower()
    return rt.Index(labels.to_pandas().str.lower())


def _multi_series() -> pd.Series:
    rng = np.random.default_rng(5)
    n = 60
    first = pd.Series(rng.integers(0, 4, n)).astype("float64")
    first[rng.random(n) < 0.1] = np.nan
    second = make_values(rng, "str", n, 0.1, small=True)
    third = pd.Series(pd.Categorical(rng.choice(["x", "y", "z"], n), categories=["z", "x", "y"]))
    index = pd.MultiIndex.from_arrays([first, second, third], names=["n", "s", "c"])
    return pd.Series(np.arange(n), index=index, name="v")


@pytest.mark.parametrize("kwargs", [
    {}, {"ascending": False}, {"ascending": [True, False, True]}, {"na_position": "first"},
    {"level": 1}, {"level": "c"}, {"level": -1, "ascending": False}, {"level": [2, 0]},
    {"level": ["s", "n"], "ascending": [False, True]}, {"level": 1, "sort_remaining": False},
    {"level": 0, "na_position": "first", "ascending": False}, {"ignore_index": True},
    {"level": 3}, {"level": "zz"}, {"level": [0, 1], "ascending": [True]}, {"ascending": [True]},
])
def test_multi_index_sort_index(kwargs):
    s = _multi_series()
    r = rt.from_pandas(s)
    same_outcome(r, s, lambda obj: obj.sort_index(**kwargs))
    frame = s.to_frame()
    same_outcome(rt.from_pandas(frame), frame, lambda obj: obj.sort_index(**kwargs))


def test_multi_index_sort_index_with_key():
    s = _multi_series()
    r = rt.from_pandas(s)
    got = r.sort_index(level="s", key=lower)
    expected = s.sort_index(level="s", key=lower)
    assert_series_equal(got, expected)


def test_sort_values_by_multi_index_level():
    frame = _multi_series().to_frame()
    r = rt.from_pandas(frame)
    same_outcome(r, frame, lambda d: d.sort_values(["s", "v"], ascending=[False, True]))
    same_outcome(r, frame, lambda d: d.sort_values(["c", "n"], na_position="first"))


# --------------------------------------------------------------------------- argsort


@settings(max_examples=50)
@given(series_st())
def test_argsort_matches_stable_pandas(s):
    r = rt.from_pandas(s)
    assert_series_equal(r.argsort(), s.argsort(kind="stable"))


def test_argsort_missing_last_and_labels_kept():
    s = pd.Series([3, np.nan, 1, 2, np.nan], index=list("abcde"), name="q")
    assert_series_equal(rt.from_pandas(s).argsort(), s.argsort())
    with pytest.raises(ValueError):
        rt.from_pandas(s).argsort(kind="radix")


# --------------------------------------------------------------------------- nlargest / nsmallest


def _expected_top(s: pd.Series, method: str, n: int, keep: str) -> pd.Series:
    if n >= len(s) and n > 0:
        # pandas sorts everything with its unstable default here; riptide's ties keep their order
        return s.sort_values(ascending=method == "nsmallest", kind="stable").head(n)
    return getattr(s, method)(n, keep=keep)


@settings(max_examples=80)
@given(series_st(dtypes=SELECTABLE), st.data())
def test_series_nlargest_nsmallest(s, data):
    r = rt.from_pandas(s)
    n = data.draw(st.one_of(st.integers(0, 6), st.integers(0, len(s) + 2)))
    keep = data.draw(st.sampled_from(["first", "last", "all"]))
    method = data.draw(st.sampled_from(["nlargest", "nsmallest"]))
    assert_series_equal(getattr(r, method)(n, keep=keep), _expected_top(s, method, n, keep))


@pytest.mark.parametrize("dtype", SELECTABLE)
@pytest.mark.parametrize("keep", ["first", "last", "all"])
def test_top_n_with_many_ties_uses_partition(dtype, keep):
    """n much smaller than the length: the partition path, exact on ties at the border."""
    rng = np.random.default_rng(13)
    s = make_values(rng, dtype, 1000, null_frac=0.1, small=True)
    r = rt.from_pandas(s)
    for n in (1, 3, 40, 120):
        for method in ("nlargest", "nsmallest"):
            assert_series_equal(getattr(r, method)(n, keep=keep), getattr(s, method)(n, keep=keep))


def test_top_n_missing_values_fill_and_keep_all():
    s = pd.Series([1, np.nan, np.nan, np.nan, 0])
    r = rt.from_pandas(s)
    for n in range(0, 6):
        for keep in ("first", "last", "all"):
            for method in ("nlargest", "nsmallest"):
                assert_series_equal(getattr(r, method)(n, keep=keep), _expected_top(s, method, n, keep))
    zeros = pd.Series([1.0, -0.0, 0.0, 0.0, -0.0])
    for keep in ("first", "last", "all"):
        got = rt.from_pandas(zeros).nsmallest(2, keep=keep)
        assert_series_equal(got, zeros.nsmallest(2, keep=keep))


@pytest.mark.parametrize("call", [
    lambda s: s.nlargest(2, keep="x"),
    lambda s: s.astype("str").nlargest(2),
    lambda s: s.astype("category").nsmallest(2),
])
def test_series_top_bad_input(call):
    s = pd.Series([3, 1, 2])
    same_outcome(rt.from_pandas(s), s, call)


@st.composite
def top_frame(draw: Any) -> tuple[pd.DataFrame, list[str]]:
    """Frames whose non-last key columns have no missing values (pandas' own result is exact there)."""
    frame = draw(frame_st(dtypes=SELECTABLE, min_cols=1, max_cols=3, nulls=False, small=True))
    labels = list(frame.columns)
    columns = draw(st.lists(st.sampled_from(labels), min_size=1, max_size=len(labels), unique=True))
    if draw(st.booleans()):
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        last = columns[-1]
        frame[last] = make_values(rng, str(frame[last].dtype) if frame[last].dtype != bool else "boolean", len(frame),
                                  0.3, small=True)  # fmt: skip
    return frame, columns


@settings(max_examples=60)
@given(top_frame(), st.data())
def test_frame_nlargest_nsmallest(case, data):
    frame, columns = case
    r = rt.from_pandas(frame)
    n = data.draw(st.one_of(st.integers(0, 5), st.integers(0, len(frame) + 2)))
    keep = data.draw(st.sampled_from(["first", "last", "all"]))
    method = data.draw(st.sampled_from(["nlargest", "nsmallest"]))
    expected = getattr(frame, method)(n, columns, keep=keep)
    if n >= len(frame) and len(columns) == 1 and n > 0:
        expected = frame.sort_values(columns, ascending=method == "nsmallest", kind="stable").head(n)
    assert_frame_equal(getattr(r, method)(n, columns, keep=keep), expected)


def test_frame_top_missing_at_the_border_gives_n_rows():
    """Deliberate difference: pandas returns every missing row here (or none, for masked dtypes)."""
    for dtype in ("float64", "Int64"):
        frame = pd.DataFrame({"a": pd.array([3, None, None, None, 1], dtype=dtype), "b": [1, 2, 3, 4, 0]})
        r = rt.from_pandas(frame)
        got = r.nlargest(3, ["a", "b"])
        assert got.index.tolist() == [0, 4, 3]
        expected = frame.sort_values(["a", "b"], ascending=False, kind="stable").head(3)
        assert_frame_equal(got, expected)
        assert r.nsmallest(2, ["a", "b"], keep="all").index.tolist() == [4, 0]


@pytest.mark.parametrize("call", [
    lambda d: d.nlargest(1, "b"), lambda d: d.nlargest(1, "zz"), lambda d: d.nsmallest(1, ["a", "zz"]),
    lambda d: d.nlargest(1, "a", keep="q"),
])
def test_frame_top_bad_input(call):
    frame = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    same_outcome(rt.from_pandas(frame), frame, call)


# --------------------------------------------------------------------------- rank


@settings(max_examples=80)
@given(series_st(), st.sampled_from(["average", "min", "max", "first", "dense"]),
       st.sampled_from(["keep", "top", "bottom"]), st.booleans(), st.booleans())  # fmt: skip
def test_series_rank(s, method, na_option, ascending, pct):
    r = rt.from_pandas(s)
    got = r.rank(method=method, na_option=na_option, ascending=ascending, pct=pct)
    expected = s.rank(method=method, na_option=na_option, ascending=ascending, pct=pct)
    assert_series_equal(got, expected, check_exact=False, rtol=1e-12)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("method", ["average", "min", "max", "first", "dense"])
def test_rank_every_dtype_with_ties(dtype, method):
    rng = np.random.default_rng(17)
    s = make_values(rng, dtype, 200, null_frac=0.15, small=True)
    r = rt.from_pandas(s)
    for na_option in ("keep", "top", "bottom"):
        for ascending in (True, False):
            for pct in (False, True):
                expected = s.rank(method=method, na_option=na_option, ascending=ascending, pct=pct)
                got = r.rank(method=method, na_option=na_option, ascending=ascending, pct=pct)
                assert_series_equal(got, expected, check_exact=False, rtol=1e-12)


def test_rank_unordered_categorical_ranks_by_value_ordered_by_code():
    values = ["b", None, "b", "a", "c"]
    for ordered in (False, True):
        s = pd.Series(pd.Categorical(values, categories=["c", "b", "a"], ordered=ordered))
        assert_series_equal(rt.from_pandas(s).rank(), s.rank())
        # a DataFrame ranks its values as objects: by category value even when ordered
        frame = s.to_frame("x")
        assert_frame_equal(rt.from_pandas(frame).rank(method="dense"), frame.rank(method="dense"))


@settings(max_examples=30)
@given(frame_st(max_cols=4), st.sampled_from(["average", "min", "dense", "first"]), st.booleans(),
       st.sampled_from(["keep", "bottom"]))  # fmt: skip
def test_frame_rank(frame, method, numeric_only, na_option):
    r = rt.from_pandas(frame)
    # pandas ranks the frame's 2-D values: one float64 block when every column is numeric (exact per column
    # only for float64/small ints); compare column by column, where pandas' own answer is exact.
    got = r.rank(method=method, numeric_only=numeric_only, na_option=na_option)
    kept = [c for c in frame.columns if not numeric_only or pd.api.types.is_numeric_dtype(frame[c].dtype)]
    assert list(got.columns) == kept
    for label in kept:
        expected = frame[label].rank(method=method, na_option=na_option).astype("float64")
        assert_series_equal(got[label], expected, check_exact=False, rtol=1e-12)


def test_frame_rank_matches_pandas_on_plain_frames():
    frame = pd.DataFrame({"a": [3, 1, 3, 2], "b": [0.5, np.nan, 0.5, -1.0], "c": ["x", "z", None, "x"],
                          "d": pd.array([1, None, 1, 0], dtype="Int64")})  # fmt: skip
    r = rt.from_pandas(frame)
    for method in ("average", "min", "max", "first", "dense"):
        same_outcome(r, frame, lambda d: d.rank(method=method))
        same_outcome(r, frame, lambda d: d.rank(method=method, pct=True, ascending=False))
        same_outcome(r, frame, lambda d: d.rank(method=method, numeric_only=True, na_option="top"))


@pytest.mark.parametrize("call", [
    lambda s: s.rank(method="foo"), lambda s: s.rank(na_option="foo"),
    lambda s: s.astype("str").rank(numeric_only=True), lambda s: s.rank(numeric_only=True), lambda s: s.rank(axis=1),
])
def test_rank_bad_input(call):
    s = pd.Series([2, 1, 2])
    same_outcome(rt.from_pandas(s), s, call)


def test_frame_rank_bad_input():
    frame = pd.DataFrame({"a": [2, 1]})
    same_outcome(rt.from_pandas(frame), frame, lambda d: d.rank(method="foo"))
    same_outcome(rt.from_pandas(frame), frame, lambda d: d.rank(na_option="x"))
    same_outcome(rt.from_pandas(frame), frame, lambda d: d.rank(axis=2))


@settings(max_examples=40)
@given(frame_st(dtypes=NUMERIC_ONLY, min_cols=1, max_cols=4, small=True), st.sampled_from(["average", "min", "max",
       "first", "dense"]), st.sampled_from(["keep", "top", "bottom"]), st.booleans(), st.booleans())  # fmt: skip
def test_frame_rank_across_columns(frame, method, na_option, ascending, pct):
    r = rt.from_pandas(frame)
    same_outcome(r, frame, lambda d: d.rank(axis=1, method=method, na_option=na_option, ascending=ascending,
                                            pct=pct), check_exact=False, rtol=1e-12)  # fmt: skip


@pytest.mark.parametrize("frame", [
    pd.DataFrame({"a": ["x", "y", "z"], "b": ["y", None, "a"]}),
    pd.DataFrame({"a": pd.Categorical(["x", "y"]), "b": pd.Categorical(["y", "x"], categories=["y", "x"])}),
    pd.DataFrame({"a": pd.to_datetime(["2020", None]), "b": pd.to_datetime(["2019", "2021"])}),
    pd.DataFrame({"a": ["x", "y", "z"], "b": [1, 2, 3]}),
    pd.DataFrame({"a": [1.0, np.nan], "b": pd.array([2, None], dtype="Int64"), "c": [True, False]}),
])
def test_frame_rank_across_columns_of_other_dtypes(frame):
    r = rt.from_pandas(frame)
    for kwargs in ({}, {"method": "dense", "pct": True}, {"na_option": "top", "ascending": False}):
        same_outcome(r, frame, lambda d: d.rank(axis="columns", **kwargs))
    numeric = frame.rank(axis=1, numeric_only=True)
    got = r.rank(axis=1, numeric_only=True)
    assert_frame_equal(got, numeric, check_column_type=False)


# --------------------------------------------------------------------------- core algorithms


def test_single_numeric_key_is_one_sort_of_the_raw_data(monkeypatch):
    """The fast path: one int64 key, no missing values: exactly one argsort, on the data itself."""
    calls = []
    original = core_sorting.stable_argsort

    def counting(values, xp):
        calls.append(values)
        return original(values, xp)

    monkeypatch.setattr(core_sorting, "stable_argsort", counting)
    data = np.array([5, -1, 3, 3, 9], dtype=np.int64)
    order = core_sorting.argsort_columns([NumericColumn(data)], [True])
    assert order.tolist() == [1, 2, 3, 0, 4]
    assert len(calls) == 1 and calls[0] is data


def test_packing_combines_small_keys_into_one_sort(monkeypatch):
    calls = []
    original = core_sorting.stable_argsort
    monkeypatch.setattr(core_sorting, "stable_argsort", lambda v, xp: calls.append(v.dtype) or original(v, xp))
    columns = [as_column(pd.Series([True, False, True, False])), as_column(pd.Series([3, 1, 2, 1], dtype="int8")),
               as_column(pd.Categorical(["a", "b", None, "a"]))]  # fmt: skip
    order = core_sorting.argsort_columns(columns, [True, False, True], "first")
    assert order.tolist() == [3, 1, 0, 2]
    assert calls == [np.dtype(np.uint16)]  # 2 * 256 * 4 values: one 16-bit key


def test_rank_core_returns_integer_ranks_for_min():
    ranks, missing = core_sorting.rank_column(NumericColumn(np.array([2, 2, 1])), "min")
    assert ranks.dtype == np.int64 and ranks.tolist() == [2, 2, 1] and missing is None
