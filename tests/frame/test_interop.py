"""DLPack, CUDA array interface and Arrow PyCapsules: round trips, zero copy (same pointer) and refusals."""

from __future__ import annotations

import ctypes
import gc

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import assume, given, settings

import riptide as rt
from riptide import _device
from riptide.frame import interop
from tests.conftest import ALL_DTYPES, NUMPY_NUMERIC_DTYPES, frame_st, series_st


def _no_empty_categories(pdf) -> bool:
    """Categoricals with no categories at all are left out: riptide keeps their categories as an empty
    float64 column, so the categories' dtype is object instead of pandas' str (a core limitation, reported)."""
    return not any(isinstance(d, pd.CategoricalDtype) and len(d.categories) == 0 for d in pdf.dtypes)

cpu_only = pytest.mark.skipif(_device.is_gpu(), reason="host-memory pointers: the CPU path")


def _pointer(array):
    return array.ctypes.data if isinstance(array, np.ndarray) else array.data.ptr


@cpu_only
@pytest.mark.parametrize("dtype", NUMPY_NUMERIC_DTYPES + ["bool"])
def test_dlpack_round_trip_is_zero_copy(dtype):
    s = rt.from_pandas(pd.Series(np.arange(5).astype(dtype)))
    out = np.from_dlpack(s)
    assert out.dtype == np.dtype(dtype)
    assert out.ctypes.data == _pointer(s._column.data)
    back = rt.from_dlpack(out)
    assert _pointer(back._column.data) == out.ctypes.data
    pd.testing.assert_series_equal(back.to_pandas(), s.to_pandas())
    assert s.__dlpack_device__() == (1, 0)


def test_from_dlpack_two_dimensional():
    array = np.arange(6.0).reshape(3, 2)
    frame = rt.from_dlpack(array)
    pd.testing.assert_frame_equal(frame.to_pandas(), pd.DataFrame(array))


def test_dlpack_refusals():
    with pytest.raises(BufferError, match="missing values"):
        rt.Series([1, None], dtype="Int64").__dlpack__()
    with pytest.raises(TypeError, match="str"):
        rt.Series(["a"]).__dlpack__()
    with pytest.raises(TypeError, match="datetime"):
        rt.Series(pd.to_datetime(["2020"])).__dlpack__()
    xp = _device.xp()  # a GPU tensor is imported by CuPy; NumPy refuses CUDA memory
    np.testing.assert_array_equal(_device.to_host(xp.from_dlpack(rt.Series([1, 2], dtype="Int64"))), [1, 2])
    with pytest.raises(TypeError, match="__dlpack__"):
        rt.from_dlpack([1, 2])


@cpu_only
def test_no_cuda_array_interface_on_the_cpu():
    s = rt.Series([1.0, 2.0])
    assert not hasattr(s, "__cuda_array_interface__")


@pytest.mark.gpu
def test_cuda_array_interface_on_the_gpu():
    s = rt.Series([1.0, 2.0, 3.0])
    interface = s.__cuda_array_interface__
    assert interface["data"][0] == s._column.data.data.ptr
    assert not hasattr(rt.Series(["a"]), "__cuda_array_interface__")


def test_frame_to_dlpack_and_to_numpy():
    pdf = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    frame = rt.from_pandas(pdf)
    np.testing.assert_array_equal(np.from_dlpack(frame), pdf.to_numpy()) if not _device.is_gpu() else None
    assert frame.to_dlpack() is not None
    np.testing.assert_array_equal(frame.to_numpy(), pdf.to_numpy())


@settings(max_examples=30)
@given(series_st(dtypes=ALL_DTYPES))
def test_arrow_c_array_round_trip(ps):
    s = rt.from_pandas(ps)
    array = pa.array(s)  # through __arrow_c_array__
    assert array.type == s.to_arrow().type
    pd.testing.assert_series_equal(rt.from_arrow(array).to_pandas(), rt.Series(s.to_arrow()).to_pandas())


@settings(max_examples=30)
@given(frame_st(dtypes=ALL_DTYPES, min_cols=1, max_cols=4, index="range"))
def test_arrow_c_stream_round_trip(pdf):
    assume(_no_empty_categories(pdf))
    frame = rt.from_pandas(pdf)
    table = pa.table(frame)
    pd.testing.assert_frame_equal(table.to_pandas(), pdf)  # the host stream carries pandas' metadata


def _device_array_to_pyarrow(obj):
    schema, array = obj.__arrow_c_device_array__()
    if hasattr(obj, "_data"):
        return pa.RecordBatch._import_from_c_device_capsule(schema, array)
    return pa.Array._import_from_c_device_capsule(schema, array)


@cpu_only
@settings(max_examples=30)
@given(frame_st(dtypes=[d for d in ALL_DTYPES], min_cols=1, max_cols=5, index="range"))
def test_arrow_device_array_export_matches_host_export(pdf):
    assume(_no_empty_categories(pdf))
    frame = rt.from_pandas(pdf)
    batch = _device_array_to_pyarrow(frame)
    expected = pa.RecordBatch.from_arrays([c.to_arrow() for c in frame._data.values()], names=list(frame.columns))
    pd.testing.assert_frame_equal(batch.to_pandas(), expected.to_pandas())


@cpu_only
@settings(max_examples=30)
@given(frame_st(dtypes=ALL_DTYPES, min_cols=1, max_cols=5, index="range"))
def test_from_arrow_device_round_trip(pdf):
    assume(_no_empty_categories(pdf))
    frame = rt.from_pandas(pdf)
    back = rt.from_arrow(frame)  # through __arrow_c_device_array__: no copy
    # the same frame as the host import of the same Arrow data (Arrow cannot say "Int64 without nulls")
    host = rt.DataFrame(pa.RecordBatch.from_arrays([c.to_arrow() for c in frame._data.values()],
                                                   names=list(frame.columns)))  # fmt: skip
    pd.testing.assert_frame_equal(back.to_pandas(), host.to_pandas())


@cpu_only
def test_device_array_is_zero_copy_and_released():
    gc.collect()
    live_before = len(interop._LIVE)
    s = rt.Series(np.arange(1000, dtype=np.int64))
    text = rt.Series(["ab", None, "c"])
    array = _device_array_to_pyarrow(s)
    assert array.buffers()[1].address == _pointer(s._column.data)
    strings = _device_array_to_pyarrow(text)
    assert strings.buffers()[2].address == _pointer(text._column.chars)
    back = rt.from_arrow(text)
    assert _pointer(back._column.chars) == _pointer(text._column.chars)
    del array, strings, back
    gc.collect()
    assert len(interop._LIVE) == live_before and not interop._OWNED  # every export released its buffers
    capsules = s.__arrow_c_device_array__()
    del capsules
    gc.collect()
    assert len(interop._LIVE) == live_before  # an unconsumed capsule releases on destruction


def _consume_device_stream(capsule):
    """A minimal C-stream consumer (pyarrow has no device-stream import): every batch through pyarrow."""
    address = interop._PyCapsule_GetPointer(id(capsule), b"arrow_device_array_stream")
    stream = ctypes.cast(address, ctypes.POINTER(interop._ArrowDeviceArrayStream))
    schema_buffer = ctypes.create_string_buffer(256)
    assert stream.contents.get_schema(stream, ctypes.addressof(schema_buffer)) == 0
    schema = pa.Schema._import_from_c(ctypes.addressof(schema_buffer))
    batches = []
    while True:
        out = interop._ArrowDeviceArray()
        assert stream.contents.get_next(stream, ctypes.pointer(out)) == 0
        if not out.array.release:
            break
        assert out.device_type == 1
        batches.append(pa.RecordBatch._import_from_c_device(ctypes.addressof(out), schema))
    stream.contents.release(stream)
    return pa.Table.from_batches(batches, schema)


@cpu_only
def test_device_stream():
    pdf = pd.DataFrame({"a": [1, None, 3], "s": ["x", None, "é"], "c": pd.Categorical(["u", "v", None])})
    frame = rt.from_pandas(pdf)
    table = _consume_device_stream(frame.__arrow_c_device_stream__())
    pd.testing.assert_frame_equal(table.to_pandas(), pdf)
    del table
    gc.collect()
    assert not interop._STREAMS


def test_from_arrow_accepts_capsule_objects():
    class OnlyStream:
        def __init__(self, table):
            self.table = table

        def __arrow_c_stream__(self, requested_schema=None):
            return self.table.__arrow_c_stream__(requested_schema)

    class OnlyArray:
        def __arrow_c_array__(self, requested_schema=None):
            return pa.array([1, None, 3]).__arrow_c_array__(requested_schema)

    frame = rt.from_arrow(OnlyStream(pa.table({"a": [1, 2]})))
    assert frame["a"].tolist() == [1, 2]
    assert rt.from_arrow(OnlyArray()).tolist() == [1, pd.NA, 3]
    assert rt.from_arrow(OnlyStream(pa.chunked_array([[1, 2], [3]]))).tolist() == [1, 2, 3]
    with pytest.raises(TypeError, match="from_arrow"):
        rt.from_arrow(object())


def test_requested_schema_must_match():
    s = rt.Series([1, 2])
    with pytest.raises(NotImplementedError):
        s.__arrow_c_device_array__(pa.float32().__arrow_c_schema__())
    schema, _ = s.__arrow_c_device_array__(pa.int64().__arrow_c_schema__())
    assert schema is not None


@pytest.mark.parametrize("index_type", [pa.uint8(), pa.uint32(), pa.int16(), pa.int32()])
def test_from_arrow_dictionary_of_any_index_type(index_type):
    """polars hands its categoricals over with uint32 indices; a missing index is a missing row, as in pandas."""
    array = pa.DictionaryArray.from_arrays(pa.array([2, None, 0, 2], index_type), pa.array(["x", "y", "é"]))
    table = pa.table({"k": array, "v": [1, 2, 3, 4]})
    pd.testing.assert_frame_equal(rt.from_arrow(table).to_pandas(), table.to_pandas())
