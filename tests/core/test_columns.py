"""Round trips: pandas -> riptide -> pandas and pyarrow -> riptide -> pyarrow are exact, nulls included."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import ALL_DTYPES, assert_frame_equal, assert_series_equal, frame_st, make_values, series_st
from hypothesis import given

import riptide as rt

# --------------------------------------------------------------------------- pandas round trips


@given(series_st())
def test_series_pandas_round_trip(s):
    assert_series_equal(rt.from_pandas(s), s, check_index_type=True, check_exact=True)


@given(frame_st())
def test_frame_pandas_round_trip(df):
    result = rt.from_pandas(df)
    assert isinstance(result, rt.DataFrame)
    assert_frame_equal(result, df, check_index_type=True, check_column_type=True, check_exact=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("case", ["empty", "one", "one_null", "all_null", "mixed"])
def test_series_edge_cases_round_trip(dtype, case):
    rng = np.random.default_rng(7)
    n, null_frac = {"empty": (0, 0.0), "one": (1, 0.0), "one_null": (1, 1.0), "all_null": (25, 1.0),
                    "mixed": (25, 0.5)}[case]  # fmt: skip
    s = make_values(rng, dtype, n, null_frac)
    s.name = "col"
    result = rt.from_pandas(s)
    assert result.dtype == s.dtype
    assert len(result) == n
    assert_series_equal(result, s, check_exact=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_dtype_reported_like_pandas(dtype):
    s = make_values(np.random.default_rng(0), dtype, 10, 0.3)
    r = rt.from_pandas(s)
    assert r.dtype == s.dtype
    assert str(r.dtype) == str(s.dtype)
    frame = rt.from_pandas(pd.DataFrame({"a": s}))
    pd.testing.assert_series_equal(frame.dtypes, pd.DataFrame({"a": s}).dtypes)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_round_trip(dtype):
    s = make_values(np.random.default_rng(1), dtype, 12, 0.25)
    index = pd.Index(s, name="idx")
    result = rt.from_pandas(index)
    assert isinstance(result, rt.Index)
    pd.testing.assert_index_equal(result.to_pandas(), index, exact=True)


@pytest.mark.parametrize("index", [pd.RangeIndex(0), pd.RangeIndex(3, 30, 3, name="r"), pd.RangeIndex(10, 0, -2)])
def test_range_index_round_trip(index):
    result = rt.from_pandas(index)
    assert isinstance(result, rt.RangeIndex)
    pd.testing.assert_index_equal(result.to_pandas(), index, exact=True)


def test_frame_round_trip_keeps_index_and_names():
    df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", None, "z"]}, index=pd.Index([10, 20, 30], name="k"))
    assert_frame_equal(rt.from_pandas(df), df)


def test_empty_frame_round_trips():
    for df in [pd.DataFrame(), pd.DataFrame({"a": pd.Series([], dtype="int64")}),
               pd.DataFrame(index=pd.RangeIndex(3))]:  # fmt: skip
        assert_frame_equal(rt.from_pandas(df), df)


def test_unicode_strings_round_trip_exactly():
    values = ["", "a", "é", "日本語", "😀🚀", "a\u0000b", None, "\u00a0", "x" * 1000]
    s = pd.Series(values, dtype="str")
    assert_series_equal(rt.from_pandas(s), s, check_exact=True)


def test_ordered_categorical_round_trip():
    s = pd.Series(pd.Categorical(["lo", "hi", None, "mid"], categories=["lo", "mid", "hi"], ordered=True))
    assert_series_equal(rt.from_pandas(s), s)


def test_integer_categories_round_trip():
    s = pd.Series(pd.Categorical([3, 1, None, 3]))
    assert_series_equal(rt.from_pandas(s), s)


def test_unused_categories_kept():
    s = pd.Series(pd.Categorical(["a", "a"], categories=["a", "b", "c"]))
    assert_series_equal(rt.from_pandas(s), s)


def test_float_nan_and_negative_zero_kept():
    s = pd.Series([np.nan, -0.0, np.inf, -np.inf, 1e-310], dtype="float64")
    back = rt.from_pandas(s).to_pandas()
    assert np.array_equal(np.signbit(back.to_numpy()), np.signbit(s.to_numpy()))
    pd.testing.assert_series_equal(back, s)


def test_int_extremes_round_trip():
    for dtype in ["int64", "uint64", "int8", "uint8"]:
        info = np.iinfo(dtype)
        s = pd.Series([info.min, 0, info.max], dtype=dtype)
        assert_series_equal(rt.from_pandas(s), s, check_exact=True)


def test_to_numpy_matches_pandas():
    for dtype in ["int32", "float64", "datetime64[ns]", "bool"]:
        s = make_values(np.random.default_rng(3), dtype, 20, 0.2 if dtype != "bool" else 0)
        np.testing.assert_array_equal(rt.from_pandas(s).to_numpy(), s.to_numpy())


def test_bool_with_missing_is_boolean():
    # Documented difference: pandas gives object dtype, riptide the nullable 'boolean'.
    s = rt.Series([True, None, False])
    assert s.dtype == pd.BooleanDtype()
    assert_series_equal(s, pd.Series([True, None, False], dtype="boolean"))


# --------------------------------------------------------------------------- pyarrow round trips

_ARROW_TYPES = [
    pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64(),
    pa.float32(), pa.float64(), pa.bool_(), pa.timestamp("ns"), pa.duration("ns"), pa.large_string(),
]  # fmt: skip


def _arrow_array(typ: pa.DataType, n: int, null_frac: float, seed: int = 0) -> pa.Array:
    rng = np.random.default_rng(seed)
    mask = rng.random(n) < null_frac
    if pa.types.is_timestamp(typ):
        values = make_values(rng, "datetime64[ns]", n).to_numpy()
    elif pa.types.is_duration(typ):
        values = make_values(rng, "timedelta64[ns]", n).to_numpy()
    elif pa.types.is_boolean(typ):
        values = rng.random(n) < 0.5
    elif pa.types.is_floating(typ):
        values = make_values(rng, str(typ.to_pandas_dtype().__name__), n).to_numpy()
    elif pa.types.is_integer(typ):
        values = make_values(rng, np.dtype(typ.to_pandas_dtype()).name, n).to_numpy()
    else:
        values = np.array(make_values(rng, "str", n).to_numpy(na_value=""), dtype=object)
    return pa.array(values, type=typ, mask=mask if null_frac else None)


@pytest.mark.parametrize("typ", _ARROW_TYPES, ids=str)
@pytest.mark.parametrize(("n", "null_frac"), [(0, 0.0), (1, 0.0), (1, 1.0), (30, 0.0), (30, 0.4), (30, 1.0), (1000, 0.1)])
def test_arrow_array_round_trip(typ, n, null_frac):
    array = _arrow_array(typ, n, null_frac)
    result = rt.from_arrow(array)
    assert isinstance(result, rt.Series)
    back = result.to_arrow()
    assert back.type == array.type, f"{array.type} came back as {back.type}"
    assert back.null_count == array.null_count
    assert back.equals(array)


@pytest.mark.parametrize("typ", _ARROW_TYPES, ids=str)
def test_arrow_chunked_array_round_trip(typ):
    chunks = [_arrow_array(typ, 7, 0.3, seed=1), _arrow_array(typ, 0, 0.0), _arrow_array(typ, 5, 0.3, seed=2)]
    chunked = pa.chunked_array(chunks, type=typ)
    back = rt.from_arrow(chunked).to_arrow()
    assert back.equals(chunked.combine_chunks())


@pytest.mark.parametrize("typ", _ARROW_TYPES, ids=str)
def test_arrow_sliced_array_round_trip(typ):
    array = _arrow_array(typ, 40, 0.3, seed=5).slice(7, 20)  # non-zero offset into the buffers
    back = rt.from_arrow(array).to_arrow()
    assert back.equals(array)


def test_arrow_small_string_round_trip_keeps_type():
    array = pa.array(["a", None, "é", ""], type=pa.string())
    back = rt.from_arrow(array).to_arrow()
    assert back.type == pa.string()


def test_arrow_small_string_round_trip_values():
    array = pa.array(["a", None, "é", "", "😀"], type=pa.string())
    back = rt.from_arrow(array).to_arrow()
    assert back.cast(pa.string()).equals(array)


@pytest.mark.parametrize("index_type", [pa.int8(), pa.int16(), pa.int32()])
def test_arrow_dictionary_round_trip(index_type):
    indices = pa.array([0, 1, None, 2, 0], type=index_type)
    dictionary = pa.array(["x", "yé", "z"], type=pa.large_string())
    array = pa.DictionaryArray.from_arrays(indices, dictionary)
    back = rt.from_arrow(array).to_arrow()
    assert back.equals(array) or (back.type.value_type == array.type.value_type
                                  and back.to_pylist() == array.to_pylist()
                                  and back.null_count == array.null_count)  # fmt: skip
    assert back.to_pylist() == array.to_pylist()


def test_arrow_nulls_become_masked_dtypes():
    cases = {pa.int64(): "Int64", pa.int8(): "Int8", pa.uint32(): "UInt32", pa.float64(): "Float64",
             pa.bool_(): "boolean"}  # fmt: skip
    for typ, expected in cases.items():
        values = [True, None, False] if typ == pa.bool_() else [1, None, 0]
        s = rt.from_arrow(pa.array(values, type=typ))
        assert str(s.dtype) == expected
        assert s.isna().tolist() == [False, True, False]


def test_arrow_without_nulls_become_numpy_dtypes():
    for typ in [pa.int64(), pa.int8(), pa.uint32(), pa.float64(), pa.bool_()]:
        s = rt.from_arrow(pa.array([True, False, True] if typ == pa.bool_() else [1, 0, 1], type=typ))
        assert s.dtype == np.dtype(typ.to_pandas_dtype())


def test_arrow_table_round_trip():
    table = pa.table({name: _arrow_array(typ, 50, 0.2, seed=i) for i, (name, typ) in
                      enumerate((str(t), t) for t in _ARROW_TYPES)})  # fmt: skip
    frame = rt.from_arrow(table)
    assert isinstance(frame, rt.DataFrame)
    assert frame.shape == (50, len(_ARROW_TYPES))
    back = frame.to_arrow()
    assert back.column_names == table.column_names
    assert back.equals(table)


def test_arrow_empty_table_round_trip():
    table = pa.table({"a": pa.array([], type=pa.int64()), "s": pa.array([], type=pa.large_string())})
    back = rt.from_arrow(table).to_arrow()
    assert back.equals(table)


def test_pandas_to_arrow_matches_pyarrow_values():
    df = pd.DataFrame({"i": [1, 2, 3], "s": pd.Series(["a", None, "c"], dtype="str"),
                       "n": pd.array([1, None, 3], dtype="Int64")})  # fmt: skip
    table = rt.from_pandas(df).to_arrow()
    assert table.to_pydict() == {"i": [1, 2, 3], "s": ["a", None, "c"], "n": [1, None, 3]}


def test_from_pandas_rejects_other_objects():
    with pytest.raises(TypeError):
        rt.from_pandas([1, 2, 3])
    with pytest.raises(TypeError):
        rt.from_arrow([1, 2, 3])


# --------------------------------------------------------------------------- GPU only


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_columns_live_on_the_device(dtype):
    import cupy

    s = rt.from_pandas(make_values(np.random.default_rng(0), dtype, 50, 0.2))
    column = s._column
    buffers = [getattr(column, name, None) for name in ("data", "offsets", "codes", "mask")]
    assert any(isinstance(b, cupy.ndarray) for b in buffers if b is not None)
    assert all(isinstance(b, cupy.ndarray) for b in buffers if b is not None)
    assert_series_equal(s, make_values(np.random.default_rng(0), dtype, 50, 0.2))


@pytest.mark.gpu
def test_basic_operations_copy_no_column_data_to_host(monkeypatch):
    """Arithmetic, comparison, filtering, reductions, fillna and scans move at most a few scalars to the host."""
    import cupy

    from riptide import _device, _transfer

    n = 100_000
    df = rt.DataFrame({"a": cupy.arange(n, dtype=cupy.float64), "b": cupy.ones(n, dtype=cupy.float64)})
    copied: list[int] = []
    real_to_host, real_d2h = _device.to_host, _transfer.device_to_host

    def to_host(array):
        copied.append(int(getattr(array, "size", 1)))
        return real_to_host(array)

    def device_to_host(array, *args, **kwargs):
        copied.append(int(getattr(array, "size", 1)))
        return real_d2h(array, *args, **kwargs)

    monkeypatch.setattr(_device, "to_host", to_host)
    monkeypatch.setattr(_transfer, "device_to_host", device_to_host)
    a, b = df["a"], df["b"]
    results = [a * b + a, a > 500.0, (a > 10) & (b < 2), df[a > 500.0], a.where(a > 5), a.fillna(0.0),
               a.cumsum(), a.shift(1), a.isna(), abs(-a), a.clip(1, 10)]  # fmt: skip
    scalars = [a.sum(), a.mean(), a.min(), a.max(), a.std(), df.sum(), len(df[a > 500.0])]
    assert results and scalars
    assert all(size <= 16 for size in copied), f"column data copied to the host: {sorted(copied)[-5:]}"
    assert isinstance((a * b)._column.data, cupy.ndarray)
