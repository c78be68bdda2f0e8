"""Series / DataFrame / Index / RangeIndex construction, compared with the same call in pandas."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import assert_frame_equal, assert_index_equal, assert_series_equal, documented, frame_st, series_st
from hypothesis import given

import riptide as rt

# --------------------------------------------------------------------------- Series

SERIES_INPUTS = {
    "ints": [1, 2, 3],
    "floats": [1.5, None, 3.0],
    "floats_nan": [1.0, np.nan],
    "int_and_float": [1, 2.5],
    "int_and_none": [1, None, 3],
    "bools": [True, False, True],
    "strings": ["a", "bé", "", None],
    "datetimes": [pd.Timestamp("2020-01-01"), pd.NaT, pd.Timestamp("2021-06-30 12:00")],
    "py_datetimes": [dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 2)],
    "timedeltas": [pd.Timedelta("1D"), pd.NaT, pd.Timedelta("-3h")],
    "numpy_scalars": [np.int32(1), np.int32(5)],
    "big_uint": [2**63, 1],
}


@pytest.mark.parametrize("key", list(SERIES_INPUTS))
def test_series_from_list(key):
    data = SERIES_INPUTS[key]
    assert_series_equal(rt.Series(data), pd.Series(data))


@pytest.mark.parametrize("key", list(SERIES_INPUTS))
def test_series_from_list_with_name_and_index(key):
    data = SERIES_INPUTS[key]
    index = [f"i{k}" for k in range(len(data))]
    assert_series_equal(rt.Series(data, index=index, name="v"), pd.Series(data, index=index, name="v"))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "float32", "float64", "Int64", "Float64", "str",
                                   "category", "boolean"])  # fmt: skip
def test_series_dtype_argument(dtype):
    data = [1, 0, 1] if dtype != "str" else ["1", "0", "1"]
    if dtype == "boolean":
        data = [True, False, True]
    assert_series_equal(rt.Series(data, dtype=dtype), pd.Series(data, dtype=dtype))


@pytest.mark.parametrize(("data", "dtype"), [([1.0, None], "Int64"), ([1, 2], "float32"), ([1, 2], "str"),
                                             (["2020-01-01", None], "datetime64[ns]"), ([1, None], "Float64"),
                                             (["a", None, "a"], "category"), ([0, 1], "bool")])  # fmt: skip
def test_series_dtype_argument_conversions(data, dtype):
    assert_series_equal(rt.Series(data, dtype=dtype), pd.Series(data, dtype=dtype))


@pytest.mark.parametrize("make", [lambda: rt.Series([]), lambda: rt.Series(), lambda: rt.Series({}),
                                  lambda: rt.Index([])], ids=["list", "none", "dict", "index"])
def test_empty_without_dtype(make):
    # pandas gives object dtype, which riptide cannot hold; riptide must still make an empty float64 object,
    # as pd.DataFrame({"a": []}) does for its columns.
    result = make()
    assert len(result) == 0
    assert result.dtype == np.dtype("float64")


@pytest.mark.parametrize("array", [np.arange(5, dtype=np.int16), np.linspace(0, 1, 7), np.array([True, False]),
                                   np.array(["2020-01-01", "NaT"], dtype="datetime64[ns]"),
                                   np.array([1, -2], dtype="timedelta64[ns]"), np.array([], dtype=np.float32),
                                   np.array([2**64 - 1, 0], dtype=np.uint64)])  # fmt: skip
def test_series_from_numpy(array):
    assert_series_equal(rt.Series(array), pd.Series(array))
    assert_series_equal(rt.Series(array, name="n"), pd.Series(array, name="n"))


def test_series_from_numpy_does_not_alias_pandas_semantics_on_mutation():
    array = np.arange(4.0)
    s = rt.Series(array, copy=True)
    array[0] = 99.0
    assert s.tolist() == [0.0, 1.0, 2.0, 3.0]


@given(series_st())
def test_series_from_pandas(s):
    assert_series_equal(rt.Series(s), s)


@given(series_st(index="str"))
def test_series_from_pandas_with_new_index_reindexes(s):
    labels = list(s.index[::2]) + ["absent"]
    # documented: bool rows made missing give 'boolean' (pandas: object)
    source = s.astype("boolean") if s.dtype == bool else s
    assert_series_equal(rt.Series(s, index=labels), pd.Series(source, index=labels))


def test_series_from_pandas_rename():
    s = pd.Series([1, 2], name="a")
    assert_series_equal(rt.Series(s, name="b"), pd.Series(s, name="b"))


def test_series_from_riptide_series():
    s = rt.Series([1, 2, 3], name="a", index=["x", "y", "z"])
    assert_series_equal(rt.Series(s), pd.Series([1, 2, 3], name="a", index=["x", "y", "z"]))
    assert_series_equal(rt.Series(s, dtype="float64"), pd.Series([1.0, 2.0, 3.0], name="a", index=["x", "y", "z"]))


@pytest.mark.parametrize("typ", [pa.int32(), pa.float64(), pa.large_string(), pa.string(), pa.bool_(),
                                 pa.timestamp("ns")])  # fmt: skip
def test_series_from_arrow(typ):
    values = {pa.int32(): [1, 2, 3], pa.float64(): [1.5, 2.5, 0.0], pa.large_string(): ["a", "b", "é"],
              pa.string(): ["a", "", "c"], pa.bool_(): [True, False, True],
              pa.timestamp("ns"): [0, 10**18, 5]}[typ]  # fmt: skip
    array = pa.array(values, type=typ)
    expected = array.to_pandas()
    if pa.types.is_string(typ) or pa.types.is_large_string(typ):
        expected = expected.astype("str")
    assert_series_equal(rt.Series(array), expected)


def test_series_from_dict():
    data = {"b": 1, "a": 2, "c": None}
    assert_series_equal(rt.Series(data), pd.Series(data))
    assert_series_equal(rt.Series(data, index=["a", "z", "b"]), pd.Series(data, index=["a", "z", "b"]))


def test_series_no_data_with_dtype():
    assert_series_equal(rt.Series(dtype="int64"), pd.Series(dtype="int64"))


def test_series_empty_with_dtype():
    assert_series_equal(rt.Series([], dtype="str"), pd.Series([], dtype="str"))
    assert_series_equal(rt.Series([], dtype="int8"), pd.Series([], dtype="int8"))
    assert_series_equal(rt.Series(dtype="float32"), pd.Series(dtype="float32"))


@pytest.mark.parametrize("value", [5, 2.5, "s", True, None, np.nan, pd.Timestamp("2020-01-01"),
                                   pd.Timedelta("1h"), np.int8(3)])  # fmt: skip
def test_series_from_scalar_and_index(value):
    index = ["a", "b", "c"]
    assert_series_equal(rt.Series(value, index=index), pd.Series(value, index=index))
    assert_series_equal(rt.Series(value, index=index, name="n"), pd.Series(value, index=index, name="n"))


def test_series_from_scalar_with_dtype():
    assert_series_equal(rt.Series(1, index=range(3), dtype="float32"), pd.Series(1, index=range(3), dtype="float32"))
    assert_series_equal(rt.Series(None, index=range(2), dtype="Int64"), pd.Series(None, index=range(2), dtype="Int64"))


def test_series_from_scalar_without_index():
    assert_series_equal(rt.Series(7), pd.Series(7))


def test_series_from_riptide_index_keeps_name():
    idx = rt.Index([1, 2, 3], name="k")
    assert_series_equal(rt.Series(idx), pd.Series(pd.Index([1, 2, 3], name="k")))


def test_series_from_range():
    assert_series_equal(rt.Series(range(5)), pd.Series(range(5)))


def test_series_with_range_index_argument():
    assert_series_equal(rt.Series([1, 2], index=rt.RangeIndex(5, 7)), pd.Series([1, 2], index=pd.RangeIndex(5, 7)))


def test_series_properties():
    p = pd.Series([1.0, None, 3.0], name="x", index=["a", "b", "c"])
    s = rt.Series(p)
    assert s.shape == p.shape and s.size == p.size and len(s) == len(p) and s.ndim == p.ndim
    assert s.empty == p.empty and s.name == p.name and s.dtype == p.dtype
    assert s.hasnans == p.hasnans
    assert s.tolist() == pytest.approx(p.tolist(), nan_ok=True)
    assert_index_equal(s.index, p.index)
    assert rt.Series([], dtype="float64").empty


# --------------------------------------------------------------------------- Series bad input


def test_series_length_mismatch_with_index():
    with pytest.raises(ValueError):
        pd.Series([1, 2, 3], index=["a", "b"])
    with pytest.raises(ValueError, match="3|2"):
        rt.Series([1, 2, 3], index=["a", "b"])


@pytest.mark.parametrize("data", [[1, "a"], [{"a": 1}, {"b": 2}], [object(), object()], [1, b"x"]])
def test_series_object_data_raises_type_error(data):
    with pytest.raises(TypeError):
        rt.Series(data)


def test_series_object_dtype_raises_type_error():
    with pytest.raises(TypeError):
        rt.Series([1, 2], dtype=object)


def test_series_from_object_pandas_raises_type_error():
    with pytest.raises(TypeError):
        rt.Series(pd.Series([1, "a"], dtype=object))


def test_series_unknown_dtype_raises_type_error():
    with pytest.raises(TypeError):
        pd.Series([1], dtype="nonsense")
    with pytest.raises(TypeError):
        rt.Series([1], dtype="nonsense")


def test_series_two_dimensional_raises():
    with pytest.raises(ValueError):
        rt.Series(np.zeros((2, 2)))


def test_series_uncastable_dtype_raises_like_pandas():
    with pytest.raises(ValueError):
        pd.Series(["a", "b"], dtype="int64")
    with pytest.raises(ValueError):
        rt.Series(["a", "b"], dtype="int64")


def test_series_set_index_length_mismatch():
    s = rt.Series([1, 2, 3])
    with pytest.raises(ValueError):
        s.index = [1, 2]
    assert s.index.tolist() == [0, 1, 2]


# --------------------------------------------------------------------------- DataFrame


FRAME_DICTS = {
    "mixed": {"a": [1, 2, 3], "b": [1.5, None, 3.0], "c": ["x", None, "é"], "d": [True, False, True]},
    "datetimes": {"t": pd.to_datetime(["2020-01-01", None, "2021-01-01"]), "d": pd.to_timedelta([1, 2, None], "s")},
    "nullable": {"i": pd.array([1, None, 3], dtype="Int64"), "f": pd.array([None, 1.5, 2], dtype="Float64"),
                 "b": pd.array([True, None, False], dtype="boolean")},
    "categorical": {"k": pd.Categorical(["a", "b", "a"])},
    "empty_lists": {"a": [], "b": []},
    "int_labels": {0: [1, 2], 1: [3, 4]},
}


@pytest.mark.parametrize("data", list(FRAME_DICTS.values()), ids=list(FRAME_DICTS))
def test_frame_from_dict(data):
    assert_frame_equal(rt.DataFrame(data), pd.DataFrame(data))


@pytest.mark.parametrize("key", ["mixed", "datetimes", "nullable", "categorical"])
def test_frame_from_dict_with_index_and_columns(key):
    data = FRAME_DICTS[key]
    index = ["r0", "r1", "r2"]
    columns = list(data)[::-1]
    assert_frame_equal(rt.DataFrame(data, index=index), pd.DataFrame(data, index=index))
    assert_frame_equal(rt.DataFrame(data, columns=columns), pd.DataFrame(data, columns=columns))


def test_frame_from_dict_with_absent_column_selected():
    data = {"a": [1, 2]}
    # pandas makes the absent column object (all NaN); riptide has no object dtype: float64 NaN
    assert_frame_equal(rt.DataFrame(data, columns=["a", "zz"]), documented(pd.DataFrame(data, columns=["a", "zz"])))


def test_frame_from_dict_of_series_aligns():
    data = {"a": pd.Series([1, 2, 3], index=["x", "y", "z"]), "b": pd.Series([10.0, 20.0], index=["y", "z"])}
    rt_data = {k: rt.Series(v) for k, v in data.items()}
    assert_frame_equal(rt.DataFrame(rt_data), pd.DataFrame(data))


def test_frame_from_dict_of_pandas_series():
    data = {"a": pd.Series([1, 2, 3], index=["x", "y", "z"]), "b": pd.Series([10.0, 20.0, 30.0], index=["x", "y", "z"])}
    assert_frame_equal(rt.DataFrame(data), pd.DataFrame(data))


def test_frame_from_dict_with_scalars():
    data = {"a": [1, 2, 3], "b": 5, "c": "s"}
    assert_frame_equal(rt.DataFrame(data), pd.DataFrame(data))


def test_frame_from_all_scalars_with_index():
    data = {"a": 1, "b": 2.5}
    assert_frame_equal(rt.DataFrame(data, index=[0, 1]), pd.DataFrame(data, index=[0, 1]))


def test_frame_from_all_scalars_without_index_raises():
    with pytest.raises(ValueError):
        pd.DataFrame({"a": 1})
    with pytest.raises(ValueError):
        rt.DataFrame({"a": 1})


def test_frame_from_list_of_dicts():
    data = [{"a": 1, "b": "x"}, {"a": 2, "b": None}, {"a": 3}]
    assert_frame_equal(rt.DataFrame(data), pd.DataFrame(data))


def test_frame_from_list_of_lists():
    data = [[1, 2.5], [3, 4.5]]
    assert_frame_equal(rt.DataFrame(data), pd.DataFrame(data))
    assert_frame_equal(rt.DataFrame(data, columns=["a", "b"]), pd.DataFrame(data, columns=["a", "b"]))


@pytest.mark.parametrize("array", [np.arange(12).reshape(4, 3), np.ones((3, 2), dtype=np.float32),
                                   pytest.param(np.zeros((0, 2)), marks=pytest.mark.xfail(strict=True, reason=(
                                       "riptide bug: DataFrame(np.zeros((0, 2)), index=[]) has an empty float64 index; "
                                       "pandas gives an empty object Index"))),
                                   np.array([[True], [False]])])  # fmt: skip
def test_frame_from_2d_numpy(array):
    assert_frame_equal(rt.DataFrame(array), pd.DataFrame(array))
    cols = [f"c{i}" for i in range(array.shape[1])]
    idx = [f"r{i}" for i in range(array.shape[0])]
    assert_frame_equal(rt.DataFrame(array, columns=cols, index=idx), pd.DataFrame(array, columns=cols, index=idx))


@given(frame_st())
def test_frame_from_pandas(df):
    assert_frame_equal(rt.DataFrame(df), df)


def test_frame_from_pandas_selecting_columns():
    df = pd.DataFrame({"a": [1, 2], "b": [3.0, 4.0], "c": ["x", "y"]})
    assert_frame_equal(rt.DataFrame(df, columns=["c", "a"]), pd.DataFrame(df, columns=["c", "a"]))


def test_frame_from_pandas_with_new_index_reindexes():
    df = pd.DataFrame({"a": [1, 2, 3]}, index=["x", "y", "z"])
    assert_frame_equal(rt.DataFrame(df, index=["z", "q"]), pd.DataFrame(df, index=["z", "q"]))


def test_frame_from_arrow_table():
    table = pa.table({"a": [1, 2, 3], "s": pa.array(["x", None, "z"], type=pa.large_string()),
                      "f": [0.5, None, 1.5]})  # fmt: skip
    result = rt.DataFrame(table)
    expected = pd.DataFrame({"a": [1, 2, 3], "s": pd.Series(["x", None, "z"], dtype="str"),
                             "f": pd.array([0.5, None, 1.5], dtype="Float64")})  # fmt: skip
    assert_frame_equal(result, expected)


def test_frame_from_riptide_frame_and_series():
    f = rt.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    assert_frame_equal(rt.DataFrame(f), pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}))
    s = rt.Series([1.0, 2.0], name="v")
    assert_frame_equal(rt.DataFrame(s), pd.DataFrame(pd.Series([1.0, 2.0], name="v")))
    assert_frame_equal(rt.Series([1, 2]).to_frame(), pd.Series([1, 2]).to_frame())
    assert_frame_equal(rt.Series([1, 2], name="q").to_frame("w"), pd.Series([1, 2], name="q").to_frame("w"))


@pytest.mark.parametrize("dtype", ["float64", "int32", "str", "Int64"])
def test_frame_dtype_argument(dtype):
    data = {"a": [1, 2], "b": [3, 4]}
    assert_frame_equal(rt.DataFrame(data, dtype=dtype), pd.DataFrame(data, dtype=dtype))


def test_empty_frames():
    assert_frame_equal(rt.DataFrame(), pd.DataFrame())
    assert_frame_equal(rt.DataFrame(columns=["a", "b"]), pd.DataFrame(columns=["a", "b"]).astype("float64"))
    assert_frame_equal(rt.DataFrame(index=[1, 2]), pd.DataFrame(index=[1, 2]))


def test_frame_properties():
    p = pd.DataFrame({"a": [1, 2, 3], "b": ["x", None, "z"]}, index=[5, 6, 7])
    f = rt.DataFrame(p)
    assert f.shape == p.shape and f.size == p.size and len(f) == len(p) and f.ndim == p.ndim
    assert f.empty == p.empty
    pd.testing.assert_index_equal(f.columns, p.columns)
    pd.testing.assert_series_equal(f.dtypes, p.dtypes)
    assert_index_equal(f.index, p.index)
    assert list(f) == list(p)
    assert ("a" in f) == ("a" in p)
    assert rt.DataFrame().empty and rt.DataFrame({"a": []}, dtype="int64").empty


# --------------------------------------------------------------------------- DataFrame bad input


def test_frame_mismatched_lengths_raise_value_error():
    with pytest.raises(ValueError):
        pd.DataFrame({"a": [1, 2, 3], "b": [1, 2]})
    with pytest.raises(ValueError):
        rt.DataFrame({"a": [1, 2, 3], "b": [1, 2]})


def test_frame_index_length_mismatch_raises_value_error():
    with pytest.raises(ValueError):
        pd.DataFrame({"a": [1, 2, 3]}, index=[0, 1])
    with pytest.raises(ValueError):
        rt.DataFrame({"a": [1, 2, 3]}, index=[0, 1])


def test_frame_columns_length_mismatch_raises_value_error():
    with pytest.raises(ValueError):
        rt.DataFrame(np.zeros((2, 3)), columns=["a", "b"])


@pytest.mark.parametrize("column", [[1, "a"], [{"k": 1}, {"k": 2}], [object(), object()]])
def test_frame_object_column_raises_type_error(column):
    with pytest.raises(TypeError):
        rt.DataFrame({"a": column})


def test_frame_from_object_pandas_column_raises_type_error():
    with pytest.raises(TypeError, match=r"(?i)object|mixed"):
        rt.DataFrame(pd.DataFrame({"ok": [1, 2], "bad": pd.Series([1, "x"], dtype=object)}))


def test_frame_set_columns_length_mismatch():
    f = rt.DataFrame({"a": [1], "b": [2]})
    with pytest.raises(ValueError):
        f.columns = ["x"]
    assert list(f.columns) == ["a", "b"]


# --------------------------------------------------------------------------- Index / RangeIndex


@pytest.mark.parametrize("data", [[1, 2, 3], [1.5, None], ["a", "é", None], [True, False],
                                  pd.to_datetime(["2020-01-01", None])])  # fmt: skip
def test_index_from_list(data):
    assert_index_equal(rt.Index(data), pd.Index(data))
    assert_index_equal(rt.Index(data, name="k"), pd.Index(data, name="k"))


def test_index_from_numpy_pandas_and_series():
    assert_index_equal(rt.Index(np.arange(4, dtype=np.int32)), pd.Index(np.arange(4, dtype=np.int32)))
    assert_index_equal(rt.Index(pd.Index(["x", "y"], name="n")), pd.Index(["x", "y"], name="n"))
    assert_index_equal(rt.Index(rt.Series([1, 2], name="s")), pd.Index(pd.Series([1, 2], name="s")))
    assert_index_equal(rt.Index([1, 2], dtype="float64"), pd.Index([1, 2], dtype="float64"))


@pytest.mark.parametrize("args", [(5,), (0,), (2, 10), (2, 10, 3), (10, 0, -2), (3, 3)])
def test_range_index(args):
    result = rt.RangeIndex(*args)
    expected = pd.RangeIndex(*args)
    assert_index_equal(result, expected)
    assert len(result) == len(expected)
    assert result.start == expected.start and result.stop == expected.stop and result.step == expected.step


def test_range_index_name_and_from_range():
    assert_index_equal(rt.RangeIndex(3, name="i"), pd.RangeIndex(3, name="i"))
    assert_index_equal(rt.RangeIndex(range(1, 7, 2)), pd.RangeIndex(range(1, 7, 2)))


def test_range_index_zero_step_raises():
    with pytest.raises(ValueError):
        rt.RangeIndex(0, 10, 0)


def test_index_get_loc():
    idx = rt.Index(["a", "b", "c"])
    assert idx.get_loc("b") == pd.Index(["a", "b", "c"]).get_loc("b")
    with pytest.raises(KeyError):
        idx.get_loc("zz")
    assert rt.RangeIndex(0, 10, 2).get_loc(4) == pd.RangeIndex(0, 10, 2).get_loc(4)
    with pytest.raises(KeyError):
        rt.RangeIndex(0, 10, 2).get_loc(3)


def test_default_index_is_range_index():
    assert isinstance(rt.Series([1, 2]).index, rt.RangeIndex)
    assert isinstance(rt.DataFrame({"a": [1, 2]}).index, rt.RangeIndex)
