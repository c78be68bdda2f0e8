"""rt.concat against pd.concat: random Series and frames of every dtype, both axes, both joins, plus edge cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import (
    ALL_DTYPES,
    NUMERIC_DTYPES,
    _error_family,
    documented,
    frame_st,
    pandas_result,
    series_st,
)

# --------------------------------------------------------------------------- helpers


def _has_object(result: pd.Series | pd.DataFrame) -> bool:
    """pandas' result holds an object column or index (which riptide cannot build: it raises TypeError)."""
    indexes = [result.index]
    if isinstance(result, pd.DataFrame):
        dtypes = list(result.dtypes)
    else:
        dtypes = [result.dtype]
    for index in indexes:
        if isinstance(index, pd.MultiIndex):
            dtypes += [index.get_level_values(i).dtype for i in range(index.nlevels)]
        else:
            dtypes.append(index.dtype)
    return any(d == object for d in dtypes)


def _to_rt(obj):
    if isinstance(obj, pd.Series | pd.DataFrame):
        return rt.from_pandas(obj)
    return obj


def check_concat(pd_objs, **kwargs):
    """rt.concat of the riptide twins equals pd.concat (with riptide's documented dtype differences), raises the
    same kind of error, or raises TypeError where pandas had to make an object column."""
    rt_objs = {k: _to_rt(v) for k, v in pd_objs.items()} if isinstance(pd_objs, dict) else [_to_rt(o) for o in pd_objs]
    expected, error = pandas_result(lambda: pd.concat(pd_objs, **kwargs))
    if error is not None:
        with pytest.raises(_error_family(error)):
            rt.concat(rt_objs, **kwargs)
        return
    try:
        got = rt.concat(rt_objs, **kwargs)
    except TypeError as exc:
        assert _has_object(expected), f"riptide raised {exc!r}, pandas' result has no object dtype"
        return
    except ValueError as exc:
        # riptide keeps unique column labels; pandas may make duplicates side by side.
        assert "unique column labels" in str(exc) and isinstance(expected, pd.DataFrame)
        assert expected.columns.has_duplicates
        return
    expected = _documented_bools(documented(expected), got)
    if isinstance(expected, pd.Series):
        assert isinstance(got, rt.Series)
        pdt.assert_series_equal(got.to_pandas(), expected)
    else:
        assert isinstance(got, rt.DataFrame)
        pdt.assert_frame_equal(got.to_pandas(), expected, check_column_type=False)


def _documented_bools(expected, got):
    """A pandas object column of bools and missing values (empty ones too) is riptide's ``boolean``."""
    if isinstance(expected, pd.DataFrame):
        for i, label in enumerate(expected.columns):
            column = expected.iloc[:, i]
            if column.dtype in (object, np.float64) and got._data[label].dtype == "boolean" and all(
                    isinstance(v, bool | np.bool_) for v in column.dropna()):  # fmt: skip
                expected.isetitem(i, column.astype("boolean"))
    return expected


def _unique_names(series: list[pd.Series]) -> list[pd.Series]:
    return [s.rename(f"s{i}") for i, s in enumerate(series)]


# --------------------------------------------------------------------------- random inputs


@settings(max_examples=40)
@given(st.data())
def test_series_along_rows_same_dtype(data):
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    kind = data.draw(st.sampled_from(["range", "int", "str"]))
    series = data.draw(st.lists(series_st(dtypes=[dtype], max_size=60, index=kind), min_size=1, max_size=4))
    check_concat(series, ignore_index=data.draw(st.booleans()))


@settings(max_examples=40)
@given(st.lists(series_st(max_size=60), min_size=1, max_size=4), st.booleans())
def test_series_along_rows_mixed_dtypes(series, ignore_index):
    check_concat(series, ignore_index=ignore_index)


@settings(max_examples=25)
@given(st.lists(series_st(dtypes=NUMERIC_DTYPES + ["bool", "boolean"], max_size=40), min_size=2, max_size=3))
def test_numeric_promotion(series):
    check_concat(series)


@settings(max_examples=40)
@given(st.data())
def test_frames_along_rows(data):
    kind = data.draw(st.sampled_from(["range", "int", "str"]))
    frames = data.draw(st.lists(frame_st(max_cols=3, max_size=60, index=kind), min_size=1, max_size=3))
    join = data.draw(st.sampled_from(["outer", "inner"]))
    check_concat(frames, join=join, sort=data.draw(st.booleans()), ignore_index=data.draw(st.booleans()))


@settings(max_examples=30)
@given(st.data())
def test_frames_side_by_side(data):
    kind = data.draw(st.sampled_from(["range", "int", "str"]))
    frames = data.draw(st.lists(frame_st(max_cols=3, max_size=60, index=kind), min_size=1, max_size=3))
    frames = [f.add_prefix(f"f{i}_") for i, f in enumerate(frames)]
    join = data.draw(st.sampled_from(["outer", "inner"]))
    check_concat(frames, axis=1, join=join, sort=data.draw(st.booleans()))


@settings(max_examples=30)
@given(st.data())
def test_series_side_by_side(data):
    kind = data.draw(st.sampled_from(["range", "int", "str"]))
    series = data.draw(st.lists(series_st(max_size=60, index=kind), min_size=1, max_size=4))
    series = _unique_names(series) if data.draw(st.booleans()) else [s.rename(None) for s in series]
    join = data.draw(st.sampled_from(["outer", "inner"]))
    check_concat(series, axis=1, join=join, sort=data.draw(st.booleans()), ignore_index=data.draw(st.booleans()))


@settings(max_examples=20)
@given(st.data())
def test_mixed_series_and_frames(data):
    frames = data.draw(st.lists(frame_st(max_cols=2, max_size=30, index="range"), min_size=1, max_size=2))
    series = data.draw(st.lists(series_st(max_size=30, index="range"), min_size=1, max_size=2))
    axis = data.draw(st.sampled_from([0, 1]))
    objs = frames + series
    if axis == 1:
        objs = [f.add_prefix(f"f{i}_") for i, f in enumerate(frames)] + [s.rename(None) for s in series]
    order = data.draw(st.permutations(range(len(objs))))
    check_concat([objs[i] for i in order], axis=axis)


@settings(max_examples=20)
@given(st.data())
def test_keys(data):
    kind = data.draw(st.sampled_from(["range", "int", "str"]))
    series = data.draw(st.lists(series_st(max_size=30, index=kind), min_size=1, max_size=3))
    keys = [f"k{i}" for i in range(len(series))]
    check_concat(_unique_names(series), axis=data.draw(st.sampled_from([0, 1])), keys=keys)


# --------------------------------------------------------------------------- edge cases


def test_empty_and_none():
    for objs in ([], [None, None]):
        with pytest.raises(ValueError):
            rt.concat(objs)
    s = rt.Series([1, 2])
    got = rt.concat([None, s, None])
    pdt.assert_series_equal(got.to_pandas(), pd.Series([1, 2]))


@pytest.mark.parametrize("bad", [5, "abc", pd.Series([1]), rt.Series([1])])
def test_first_argument_must_be_iterable_of_objects(bad):
    with pytest.raises(TypeError, match="iterable"):
        rt.concat(bad)


def test_bad_arguments():
    s = rt.Series([1])
    with pytest.raises(TypeError, match="only Series and DataFrame"):
        rt.concat([s, 5])
    with pytest.raises(ValueError, match="inner .* or outer"):
        rt.concat([s, s], join="left")
    with pytest.raises(ValueError, match="No axis named 2"):
        rt.concat([s, s], axis=2)
    with pytest.raises(ValueError, match="ignore_index"):
        rt.concat([s, s], ignore_index=True, keys=["a", "b"])
    with pytest.raises(ValueError, match="length of the keys"):
        rt.concat([s, s], keys=["a"])
    with pytest.raises(ValueError, match="sort"):
        rt.concat([s, s], sort="yes")
    with pytest.raises(ValueError, match="levels"):
        rt.concat([s, s], levels=[["a"]])


def test_object_result_raises_type_error():
    # pandas makes object columns here; riptide has none (a deliberate difference, see the module docstring)
    with pytest.raises(TypeError, match="object"):
        rt.concat([rt.Series([True]), rt.Series([1])])
    with pytest.raises(TypeError, match="object"):
        rt.concat([rt.Series(["a"]), rt.Series([1.5])])
    with pytest.raises(TypeError, match="object"):
        rt.concat([rt.Series([1]), rt.Series([2], index=["a"])])


def test_missing_column_upcasts():
    a = pd.DataFrame({"i": np.array([1, 2], dtype="int8"), "f": np.array([1.5, 2.5], dtype="float32"),
                      "s": ["x", "y"], "b": [True, False], "I": pd.array([1, None], dtype="Int64"),
                      "d": pd.to_datetime(["2020-01-01", "2021-01-01"]),
                      "c": pd.Categorical(["p", "q"])})  # fmt: skip
    b = pd.DataFrame({"z": [1]})
    check_concat([a, b])
    check_concat([b, a], ignore_index=True)
    got = rt.concat([rt.from_pandas(a), rt.from_pandas(b)])
    assert got["b"].dtype == "boolean"  # pandas: object (riptide's documented choice for bools with missing values)


def test_categoricals():
    a = pd.Series(pd.Categorical(["a", "b", None]))
    b = pd.Series(pd.Categorical(["b", "a"], categories=["b", "a"]))
    c = pd.Series(pd.Categorical(["z"]))
    check_concat([a, b])  # same categories in another order: recoded, stays categorical
    check_concat([a, c])  # other categories: their values, as str
    check_concat([a, pd.Series(["q"])])
    check_concat([pd.Series(pd.Categorical([1, 2])), pd.Series(pd.Categorical([2.5]))])
    ordered = pd.Series(pd.Categorical(["a"], categories=["b", "a"], ordered=True))
    check_concat([ordered, ordered])
    check_concat([ordered, a])


def test_temporal_units_and_missing():
    s = pd.Series(pd.to_datetime(["2020-01-01", None]).as_unit("s"))
    ns = pd.Series(pd.to_datetime(["2021-01-01"]).as_unit("ns"))
    check_concat([s, ns])
    check_concat([pd.Series(pd.to_timedelta([1, None], unit="s")), pd.Series(pd.to_timedelta([2], unit="h"))])
    check_concat([s.to_frame("d"), pd.DataFrame({"e": [1]})])


def test_nan_vs_null_and_unicode():
    check_concat([pd.Series([1.0, np.nan]), pd.Series([1], dtype="Int64"), pd.Series(pd.array([None], "Float64"))])
    check_concat([pd.Series(["é", None, "中文😀"], dtype="str"), pd.Series(["", "ß"], dtype="str")])


def test_empty_pieces():
    check_concat([pd.Series([], dtype="int64"), pd.Series([1.5])])
    check_concat([pd.Series([], dtype="float64"), pd.Series([1.0], index=["a"])])
    check_concat([pd.DataFrame({"a": [1]}), pd.DataFrame()])
    check_concat([pd.DataFrame({"a": [1]}), pd.DataFrame(index=[5, 6])])
    check_concat([pd.DataFrame({"a": [1]}), pd.DataFrame({"a": pd.Series([], dtype="float32")})])
    check_concat([pd.Series([], dtype=float), pd.Series([1, 2], index=["a", "b"])], axis=1)
    check_concat([pd.DataFrame(), pd.DataFrame()])


def test_range_index_continues():
    got = rt.concat([rt.Series([1, 2]), rt.Series([3], index=rt.RangeIndex(2, 3))])
    assert isinstance(got.index, rt.RangeIndex) and list(got.index) == [0, 1, 2]
    got = rt.concat([rt.Series([1, 2], index=rt.RangeIndex(0, 4, 2)), rt.Series([3, 4], index=[4, 6])])
    assert isinstance(got.index, rt.RangeIndex) and got.index.step == 2
    got = rt.concat([rt.Series([1, 2]), rt.Series([3, 4])])
    assert not isinstance(got.index, rt.RangeIndex)
    pdt.assert_index_equal(got.index.to_pandas(), pd.Index([0, 1, 0, 1]))


def test_index_names():
    a = pd.Series([1, 2], index=pd.RangeIndex(2, name="r"))
    check_concat([a, pd.Series([3], index=pd.Index([5], name="q"))])  # pandas keeps the RangeIndex's name
    check_concat([pd.Series([3], index=pd.Index([5], name="q")), a])
    check_concat([a, pd.Series([3], index=pd.Index([5], name="r"))], axis=1)
    check_concat([a, pd.Series([3], index=pd.Index([5], name="q"))], axis=1)
    check_concat([pd.Series([1], name="x"), pd.Series([2], name="y")])


def test_alignment_with_missing_labels():
    check_concat([pd.Series([1, 2], index=[np.nan, 1.0]), pd.Series([1, 2], index=[1.0, np.nan])], axis=1)
    check_concat([pd.Series([1, 2], index=[np.nan, 1.0]), pd.Series([1, 2], index=[2.0, np.nan])], axis=1,
                 sort=True)  # fmt: skip
    check_concat([pd.Series([1], index=[1]), pd.Series([1, 2], index=[1.5, 1.0])], axis=1)
    check_concat([pd.Series([1], index=["x"]), pd.Series([1, 2], index=["a", "b"])], axis=1, join="inner")
    frame = pd.DataFrame({"a": [1, 2]}, index=[2, 1])
    check_concat([frame, frame.rename(columns={"a": "b"})], axis=1, sort=True)


def test_duplicate_labels():
    dup = pd.Series([1, 1], index=[0, 0])
    check_concat([dup, pd.Series([2], index=[0])], axis=1)  # both raise: reindexing duplicates
    check_concat([dup, pd.Series([2, 3], index=[0, 0])], axis=1)  # same index: no reindexing
    with pytest.raises(ValueError, match="unique column labels"):
        rt.concat([rt.DataFrame({"a": [1]}), rt.DataFrame({"a": [2]})], axis=1)


def test_verify_integrity():
    with pytest.raises(ValueError, match="overlapping values"):
        rt.concat([rt.Series([1], index=["a"]), rt.Series([2], index=["a"])], verify_integrity=True)
    check_concat([pd.Series([1], index=["a"]), pd.Series([2], index=["b"])], verify_integrity=True)
    with pytest.raises(ValueError, match="overlapping values"):
        rt.concat([rt.DataFrame({"a": [1]}), rt.DataFrame({"a": [2]})], axis=1, verify_integrity=True)


def test_keys_and_names():
    a, b = pd.Series([1, 2], name="v"), pd.Series([3], name="v")
    check_concat([a, b], keys=["a", "b"])
    check_concat([a, b], keys=["a", "b"], names=["k", "i"])
    check_concat([a, b], keys=[("a", 1), ("b", 2)], names=["k1", "k2", "i"])
    check_concat({"a": a, "b": b})
    check_concat({"a": a, "b": b}, keys=["b"])
    check_concat([a, None, b], keys=["x", "y", "z"])
    check_concat([a.to_frame(), b.to_frame()], keys=["p", "q"], names=["key"])
    check_concat([a.to_frame(), b.to_frame("w")], axis=1, keys=["p", "q"])
    check_concat([a, b], axis=1, keys=["p", "q"])
    got = rt.concat([rt.from_pandas(a), rt.from_pandas(b)], keys=["a", "b"])
    assert isinstance(got.index, rt.MultiIndex) and got.index.names == [None, None]


def test_multiindex_rows():
    mi = pd.MultiIndex.from_arrays([["a", "b"], [1, 2]], names=["k", "n"])
    s = pd.Series([1.0, 2.0], index=mi)
    t = pd.Series([3.0], index=pd.MultiIndex.from_arrays([["c"], [3]], names=["k", "n"]))
    check_concat([s, t])
    check_concat([s, t], axis=1)
    check_concat([s, t], keys=["x", "y"])


def test_pandas_objects_are_accepted():
    got = rt.concat([pd.Series([1]), rt.Series([2])], ignore_index=True)
    pdt.assert_series_equal(got.to_pandas(), pd.Series([1, 2]))


def test_inner_join_of_columns_keeps_first_order():
    a = pd.DataFrame({"b": [1], "a": [2], "c": [3]})
    b = pd.DataFrame({"c": [1.5], "b": [3]})
    check_concat([a, b], join="inner")
    check_concat([a, b], join="inner", sort=True)
    check_concat([a, b], sort=True)


def test_union_with_empty_indexes():
    empty_str = pd.Series([], index=pd.Index([], dtype="str"), dtype="int8")
    check_concat([pd.Series([], dtype="int8"), empty_str], axis=1)  # an empty RangeIndex takes no part
    check_concat([empty_str, pd.Series([], dtype="int8")], axis=1)
    check_concat([pd.Series([1]), empty_str], axis=1)  # pandas: object labels; riptide: TypeError
    check_concat([pd.Series([1], index=[1]), pd.Series([2], index=pd.Index([2], dtype="uint64"))], axis=1)
    check_concat([pd.Series([1.0]), pd.Series([], dtype="float64")], axis=1, join="inner")
