"""Zero-copy interop: DLPack, ``__cuda_array_interface__`` and the Arrow PyCapsule interface.

Handing a column to PyTorch, CuPy, JAX or an Arrow consumer should not copy it: a riptide column already *is* an
Arrow-layout buffer on the device (values, int64 string offsets + bytes, dictionary codes).

* **DLPack** (``__dlpack__`` / ``__dlpack_device__``, :func:`from_dlpack`): a numeric Series exports its value buffer
  itself (CuPy's or NumPy's DLPack export of ``column.data``), so the consumer sees the same pointer. DLPack has no
  validity mask, so a column with missing values (a masked dtype with nulls) raises BufferError, and non-numeric
  dtypes (text, categories, datetimes, which DLPack cannot describe) raise TypeError, as cuDF refuses them.
* **CUDA array interface** on a numeric GPU Series (CuPy's own dict for the buffer); on the CPU the attribute does
  not exist (AttributeError), so ``hasattr(s, "__cuda_array_interface__")`` tells a GPU column from a host one.
* **Arrow PyCapsules.** ``__arrow_c_array__`` / ``__arrow_c_stream__`` are the host interface: pyarrow builds
  them from ``to_arrow()`` (a copy to the host). ``__arrow_c_device_array__`` / ``__arrow_c_device_stream__`` are
  the device interface and copy nothing: an ``ArrowDeviceArray`` struct is built with ctypes whose buffer pointers
  are the column's own buffers (device type CUDA = 2 on the GPU, CPU = 1 on the host). Only the validity bitmap
  is new memory: riptide keeps one bool per row, Arrow one bit. The schema capsule comes from pyarrow (types are
  host metadata). The struct's ``release`` callback drops the references that kept the buffers alive.
* :func:`from_arrow` accepts pyarrow objects and anything exposing these capsules (polars, DuckDB results); device
  arrays are imported without a copy by the inverse of the exporter (primitive, string, dictionary and struct
  layouts), host ones through pyarrow.

A DataFrame exports its columns as one struct array (``__arrow_c_device_array__``) or a stream of one batch;
``to_dlpack`` stacks numeric columns into a 2-D array first (a copy: the frame's columns are separate buffers).
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes

__all__ = ["FrameInteropMethods", "SeriesInteropMethods", "from_arrow", "from_dlpack"]

_CPU, _CUDA = 1, 2


# --------------------------------------------------------------------------- DLPack / CUDA array interface


def _dlpack_buffer(column: Any) -> Any:
    """The value buffer a Series exports through DLPack / the CUDA array interface, or an error saying why not."""
    from riptide.core.column import NumericColumn

    if not isinstance(column, NumericColumn) or column.kind in "mM":
        raise TypeError(f"a column of dtype {column.dtype} cannot be exported through DLPack; only numeric "
                        "(int, uint, float, bool) columns can")  # fmt: skip
    if column.mask is not None and not bool(column.mask.all()):  # one scalar read: DLPack has no validity mask
        raise BufferError(f"a column of dtype {column.dtype} with missing values cannot be exported through DLPack "
                          "(it has no validity mask); fill them first, e.g. s.fillna(0)")  # fmt: skip
    return column.data


class SeriesInteropMethods:
    """DLPack / CUDA array interface / Arrow capsules of :class:`riptide.Series`."""

    __slots__ = ()

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:  # fmt: skip
        """A DLPack capsule of the values (no copy).

        >>> import riptide as rt
        >>> rt.Series([1.5, 2.5]).__dlpack_device__()[0] in (1, 2)  # 1: CPU memory, 2: CUDA memory
        True
        """
        data = _dlpack_buffer(self._column)
        kwargs = {k: v for k, v in dict(stream=stream, max_version=max_version, dl_device=dl_device,
                                         copy=copy).items() if v is not None}  # fmt: skip
        return data.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._column._primary_buffer().__dlpack_device__()

    @property
    def __cuda_array_interface__(self) -> dict:
        """The CUDA array interface of the values of a numeric GPU Series (no copy)."""
        column = self._column
        if column.xp is np:
            raise AttributeError("a Series on the CPU has no __cuda_array_interface__ (its data is in host memory)")
        try:
            data = _dlpack_buffer(column)
        except (TypeError, BufferError) as exc:
            raise AttributeError(f"no __cuda_array_interface__: {exc}") from None
        return data.__cuda_array_interface__

    def __arrow_c_array__(self, requested_schema: Any = None) -> tuple[Any, Any]:
        """The Arrow PyCapsules (schema, array) of the values, on the host."""
        return self._column.to_arrow().__arrow_c_array__(requested_schema)

    def __arrow_array__(self, type: Any = None) -> Any:
        """``pyarrow.array(series)``: a host pyarrow array. pyarrow asks for this before the device capsule, which
        it could only import when built with CUDA.

        >>> import pyarrow as pa, riptide as rt
        >>> pa.array(rt.Series([1, None], dtype="Int64")).to_pylist()
        [1, None]
        """
        array = self._column.to_arrow()
        return array if type is None or array.type == type else array.cast(type)

    def __arrow_c_device_array__(self, requested_schema: Any = None, **kwargs: Any) -> tuple[Any, Any]:
        """The Arrow device PyCapsules (schema, device array) of the column's own buffers (no copy)."""
        _check_device_kwargs(kwargs)
        array, arrow_type = _export_column(self._column)
        schema = _fit_schema(arrow_type, requested_schema)
        return schema.__arrow_c_schema__(), _device_capsule(array, self._column.xp)

    def to_dlpack(self) -> Any:
        """A DLPack capsule of the values (cuDF's name), as ``__dlpack__()``."""
        return self.__dlpack__()


class FrameInteropMethods:
    """DLPack / Arrow capsules of :class:`riptide.DataFrame`."""

    __slots__ = ()

    def to_dlpack(self) -> Any:
        """A DLPack capsule of a 2-D (rows x columns) array of the numeric columns (stacked: one copy)."""
        columns = list(self._data.values())
        buffers = [_dlpack_buffer(c) for c in columns]
        xp = columns[0].xp if columns else _device.xp()
        if not buffers:
            return xp.zeros((len(self), 0)).__dlpack__()
        return xp.stack(buffers, axis=1).__dlpack__()

    def __dlpack__(self, **kwargs: Any) -> Any:
        columns = list(self._data.values())
        buffers = [_dlpack_buffer(c) for c in columns]
        xp = columns[0].xp if columns else _device.xp()
        return xp.stack(buffers, axis=1).__dlpack__(**{k: v for k, v in kwargs.items() if v is not None})

    def __dlpack_device__(self) -> tuple[int, int]:
        columns = list(self._data.values())
        if columns:
            return columns[0]._primary_buffer().__dlpack_device__()
        return (_CPU, 0) if _device.xp() is np else (_CUDA, 0)

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """An Arrow C stream PyCapsule of the frame (host; the index is stored as pandas stores it)."""
        from riptide.io._arrow import table_from_frame

        return table_from_frame(self, None).__arrow_c_stream__(requested_schema)

    def __arrow_c_array__(self, requested_schema: Any = None) -> tuple[Any, Any]:
        """Arrow PyCapsules (schema, struct array) of the frame's columns, on the host."""
        import pyarrow as pa

        batch = pa.RecordBatch.from_arrays([c.to_arrow() for c in self._data.values()],
                                           names=[str(label) for label in self._data])  # fmt: skip
        return batch.__arrow_c_array__(requested_schema)

    def __arrow_c_device_array__(self, requested_schema: Any = None, **kwargs: Any) -> tuple[Any, Any]:
        """Arrow device PyCapsules (schema, struct device array) of the columns' own buffers (no copy)."""
        _check_device_kwargs(kwargs)
        array, schema = _export_frame(self)
        schema = _fit_schema(schema, requested_schema)
        return schema.__arrow_c_schema__(), _device_capsule(array, _frame_xp(self))

    def __arrow_c_device_stream__(self, requested_schema: Any = None, **kwargs: Any) -> Any:
        """An Arrow device stream PyCapsule yielding the frame as one struct device array (no copy)."""
        _check_device_kwargs(kwargs)
        array, schema = _export_frame(self)
        schema = _fit_schema(schema, requested_schema)
        return _device_stream_capsule(schema, array, _frame_xp(self))


def _frame_xp(frame: Any) -> Any:
    columns = list(frame._data.values())
    return columns[0].xp if columns else _device.xp()


def _check_device_kwargs(kwargs: dict) -> None:
    # The protocol reserves keyword arguments for the future; an unknown one with a value must be refused.
    unknown = {k: v for k, v in kwargs.items() if v is not None}
    if unknown:
        raise NotImplementedError(f"unsupported keyword arguments: {sorted(unknown)}")


def _fit_schema(schema: Any, requested: Any) -> Any:
    if requested is None:
        return schema
    import pyarrow as pa

    wanted = pa.Schema._import_from_c_capsule(requested) if isinstance(schema, pa.Schema) else (
        pa.DataType._import_from_c_capsule(requested))  # fmt: skip
    if wanted != schema:
        raise NotImplementedError(f"riptide exports {schema} without a cast; {wanted} was requested")
    return schema


# --------------------------------------------------------------------------- the Arrow C structs


class _ArrowArray(ctypes.Structure):
    pass


_RELEASE_ARRAY = ctypes.CFUNCTYPE(None, ctypes.POINTER(_ArrowArray))
_ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(_ArrowArray))),
    ("dictionary", ctypes.POINTER(_ArrowArray)),
    ("release", _RELEASE_ARRAY),
    ("private_data", ctypes.c_void_p),
]


class _ArrowDeviceArray(ctypes.Structure):
    _fields_ = [
        ("array", _ArrowArray),
        ("device_id", ctypes.c_int64),
        ("device_type", ctypes.c_int32),
        ("sync_event", ctypes.c_void_p),
        ("reserved", ctypes.c_int64 * 3),
    ]


# What keeps exported buffers alive: private_data holds a key into this table; the release callback pops it.
_LIVE: dict[int, list] = {}
_KEYS = itertools.count(1)
_LOCK = threading.Lock()


def _keep(objects: list) -> int:
    with _LOCK:
        key = next(_KEYS)
        _LIVE[key] = objects
    return key


@_RELEASE_ARRAY
def _release_array(array_ptr: Any) -> None:
    array = array_ptr.contents
    if not array.release:
        return
    for i in range(array.n_children):  # a child not moved out by the consumer is released with its parent
        child = array.children[i]
        if child and child.contents.release:
            child.contents.release(child)
    if array.dictionary and array.dictionary.contents.release:
        array.dictionary.contents.release(array.dictionary)
    with _LOCK:
        _LIVE.pop(array.private_data or 0, None)
    array.release = _RELEASE_ARRAY()


def _pointer(buffer: Any) -> int:
    """The address of a NumPy / CuPy buffer (0 for None)."""
    if buffer is None:
        return 0
    if isinstance(buffer, np.ndarray):
        return int(buffer.ctypes.data)
    return int(buffer.data.ptr)


def _pack_bits(valid: Any) -> Any:
    """Arrow's little-endian validity bitmap of a bool array, on the array's own device (no host round trip)."""
    xp = _device.namespace_of(valid)
    n = int(valid.shape[0])
    padded = xp.zeros(((n + 7) // 8) * 8, dtype=np.uint8)
    padded[:n] = valid
    weights = xp.asarray(np.array([1, 2, 4, 8, 16, 32, 64, 128], dtype=np.uint8))
    return (padded.reshape(-1, 8) * weights).sum(axis=1, dtype=np.uint8)


def _unpack_bits(bits: Any, offset: int, n: int) -> Any:
    xp = _device.namespace_of(bits)
    positions = xp.arange(offset, offset + n, dtype=np.int64)
    return ((bits[positions >> 3] >> (positions & 7).astype(np.uint8)) & 1).astype(bool)


def _make_array(length: int, null_count: int, buffers: list, keep: list, children: list | None = None,
                dictionary: Any = None) -> _ArrowArray:  # fmt: skip
    """One ArrowArray over ``buffers`` (arrays or None); ``keep`` are the Python objects that must outlive it."""
    children = children or []
    pointers = (ctypes.c_void_p * max(len(buffers), 1))(*[_pointer(b) for b in buffers])
    child_ptrs = (ctypes.POINTER(_ArrowArray) * max(len(children), 1))(
        *[ctypes.pointer(c) for c in children])  # fmt: skip
    array = _ArrowArray()
    array.length = length
    array.null_count = null_count
    array.offset = 0
    array.n_buffers = len(buffers)
    array.n_children = len(children)
    array.buffers = ctypes.cast(pointers, ctypes.POINTER(ctypes.c_void_p))
    array.children = ctypes.cast(child_ptrs, ctypes.POINTER(ctypes.POINTER(_ArrowArray)))
    array.dictionary = ctypes.pointer(dictionary) if dictionary is not None else ctypes.POINTER(_ArrowArray)()
    array.release = _release_array
    array.private_data = _keep([pointers, child_ptrs, children, dictionary, buffers, keep])
    return array


def _validity(column: Any, missing: Any = None) -> tuple[Any, int]:
    """(bitmap or None, null count) of a column: from its mask, or from ``missing`` (NaT rows)."""
    valid = column.mask if missing is None else ~missing
    if valid is None:
        return None, 0
    nulls = int(column.size - int(valid.sum()))  # one scalar read: Arrow's null_count
    return (_pack_bits(valid) if nulls else None), nulls


def _export_column(column: Any) -> tuple[_ArrowArray, Any]:
    """(ArrowArray over the column's buffers, its Arrow type)."""
    import pyarrow as pa

    from riptide.core.column import CategoricalColumn, NumericColumn, StringColumn

    n = column.size
    if isinstance(column, StringColumn):
        bitmap, nulls = _validity(column)
        return _make_array(n, nulls, [bitmap, column.offsets, column.chars], []), pa.large_string()
    if isinstance(column, CategoricalColumn):
        categories, value_type = _export_column(column.categories)
        missing = column.codes < 0
        bitmap, nulls = _validity(column, missing)
        codes = column.codes
        index_type = pa.from_numpy_dtype(codes.dtype)
        array = _make_array(n, nulls, [bitmap, codes], [], dictionary=categories)
        return array, pa.dictionary(index_type, value_type, column.ordered)
    if isinstance(column, NumericColumn):
        dtype = column.dtype
        if column.kind in "mM":
            tz = getattr(dtype, "tz", None)
            unit = np.datetime_data(dtypes.to_numpy_dtype(dtype) if tz is None else np.dtype(f"M8[{dtype.unit}]"))[0]
            arrow_type = pa.timestamp(unit, tz=str(tz) if tz is not None else None) if column.kind == "M" else (
                pa.duration(unit))  # fmt: skip
            bitmap, nulls = _validity(column, column.data == dtypes.NAT)
            return _make_array(n, nulls, [bitmap, column.data], []), arrow_type
        bitmap, nulls = _validity(column)
        if column.kind == "b":  # Arrow booleans are bits: the one layout that must be packed (a copy)
            return _make_array(n, nulls, [bitmap, _pack_bits(column.data)], []), pa.bool_()
        return _make_array(n, nulls, [bitmap, column.data], []), pa.from_numpy_dtype(column.data.dtype)
    raise TypeError(f"a column of dtype {column.dtype} has no Arrow device export")


def _export_frame(frame: Any) -> tuple[_ArrowArray, Any]:
    import pyarrow as pa

    children, fields = [], []
    for label, column in frame._data.items():
        child, arrow_type = _export_column(column)
        children.append(child)
        fields.append(pa.field(str(label), arrow_type))
    return _make_array(len(frame), 0, [None], [], children=children), pa.schema(fields)


# --------------------------------------------------------------------------- capsules

_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_DEVICE_ARRAY_NAME = b"arrow_device_array"
_DEVICE_STREAM_NAME = b"arrow_device_array_stream"
_OWNED: dict[int, Any] = {}  # capsule payload address -> the ctypes struct it points to


# Private prototypes of the CPython capsule API (not ctypes.pythonapi's shared function objects, whose argtypes
# other code may set): the capsule is returned as an address and taken over without a reference leak.
_PyCapsule_New = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR)(
    ("PyCapsule_New", ctypes.pythonapi))  # fmt: skip
_PyCapsule_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))  # fmt: skip
_Py_DecRef = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)(("Py_DecRef", ctypes.pythonapi))


def _new_capsule(address: int, name: bytes, destructor: Any) -> Any:
    """A PyCapsule of ``address`` (``name`` must be a module constant: the capsule keeps its pointer)."""
    raw = _PyCapsule_New(address, name, destructor)
    if not raw:
        raise MemoryError("PyCapsule_New failed")
    capsule = ctypes.cast(raw, ctypes.py_object).value  # takes a second reference ...
    _Py_DecRef(raw)  # ... and gives back the one PyCapsule_New returned
    return capsule


@_CAPSULE_DESTRUCTOR
def _destroy_device_array(capsule: int) -> None:
    address = _PyCapsule_GetPointer(capsule, _DEVICE_ARRAY_NAME)
    if address:
        device_array = ctypes.cast(address, ctypes.POINTER(_ArrowDeviceArray)).contents
        if device_array.array.release:  # not moved out by a consumer: release it here
            device_array.array.release(ctypes.pointer(device_array.array))
        _OWNED.pop(address, None)


def _device_of(xp: Any) -> tuple[int, int]:
    if xp is np:
        return _CPU, 0
    return _CUDA, int(xp.cuda.Device().id)


def _device_capsule(array: _ArrowArray, xp: Any) -> Any:
    device_type, device_id = _device_of(xp)
    device_array = _ArrowDeviceArray()
    device_array.array = array
    device_array.device_id = device_id
    device_array.device_type = device_type
    device_array.sync_event = None  # riptide's work is on the current stream; consumers synchronize as CuPy does
    if xp is not np:
        xp.cuda.get_current_stream().synchronize()  # buffers are complete before a consumer on another stream reads
    address = ctypes.addressof(device_array)
    _OWNED[address] = device_array
    return _new_capsule(address, _DEVICE_ARRAY_NAME, _destroy_device_array)


class _ArrowSchema(ctypes.Structure):
    pass


class _ArrowDeviceArrayStream(ctypes.Structure):
    pass


_GET_SCHEMA = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(_ArrowDeviceArrayStream), ctypes.c_void_p)
_GET_NEXT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(_ArrowDeviceArrayStream), ctypes.POINTER(_ArrowDeviceArray))
_GET_LAST_ERROR = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(_ArrowDeviceArrayStream))
_RELEASE_STREAM = ctypes.CFUNCTYPE(None, ctypes.POINTER(_ArrowDeviceArrayStream))
_ArrowDeviceArrayStream._fields_ = [
    ("device_type", ctypes.c_int32),
    ("get_schema", _GET_SCHEMA),
    ("get_next", _GET_NEXT),
    ("get_last_error", _GET_LAST_ERROR),
    ("release", _RELEASE_STREAM),
    ("private_data", ctypes.c_void_p),
]
_STREAMS: dict[int, dict] = {}  # private_data key -> {"schema": pa.Schema, "batches": [ArrowArray], "device": ...}


@_GET_SCHEMA
def _stream_get_schema(stream_ptr: Any, out: int) -> int:
    state = _STREAMS.get(stream_ptr.contents.private_data or 0)
    if state is None:
        return 22  # EINVAL
    state["schema"]._export_to_c(out)
    return 0


@_GET_NEXT
def _stream_get_next(stream_ptr: Any, out_ptr: Any) -> int:
    state = _STREAMS.get(stream_ptr.contents.private_data or 0)
    if state is None:
        return 22
    out = out_ptr.contents
    if state["batches"]:
        array = state["batches"].pop(0)
        ctypes.memmove(ctypes.addressof(out.array), ctypes.addressof(array), ctypes.sizeof(_ArrowArray))
        array.release = _RELEASE_ARRAY()  # moved: the consumer's copy owns it now
        state["moved"].append(array)
    else:
        ctypes.memset(ctypes.addressof(out.array), 0, ctypes.sizeof(_ArrowArray))  # release == NULL: end of stream
    out.device_type, out.device_id = state["device"]
    out.sync_event = None
    return 0


@_GET_LAST_ERROR
def _stream_get_last_error(stream_ptr: Any) -> Any:
    return None


@_RELEASE_STREAM
def _stream_release(stream_ptr: Any) -> None:
    stream = stream_ptr.contents
    if not stream.release:
        return
    state = _STREAMS.pop(stream.private_data or 0, None)
    for array in (state or {}).get("batches", []):
        if array.release:
            array.release(ctypes.pointer(array))
    stream.release = _RELEASE_STREAM()


@_CAPSULE_DESTRUCTOR
def _destroy_device_stream(capsule: int) -> None:
    address = _PyCapsule_GetPointer(capsule, _DEVICE_STREAM_NAME)
    if address:
        stream = ctypes.cast(address, ctypes.POINTER(_ArrowDeviceArrayStream)).contents
        if stream.release:
            stream.release(ctypes.pointer(stream))
        _OWNED.pop(address, None)


def _device_stream_capsule(schema: Any, array: _ArrowArray, xp: Any) -> Any:
    device = _device_of(xp)
    if xp is not np:
        xp.cuda.get_current_stream().synchronize()
    with _LOCK:
        key = next(_KEYS)
    _STREAMS[key] = {"schema": schema, "batches": [array], "moved": [], "device": device}
    stream = _ArrowDeviceArrayStream()
    stream.device_type = device[0]
    stream.get_schema = _stream_get_schema
    stream.get_next = _stream_get_next
    stream.get_last_error = _stream_get_last_error
    stream.release = _stream_release
    stream.private_data = key
    address = ctypes.addressof(stream)
    _OWNED[address] = stream
    return _new_capsule(address, _DEVICE_STREAM_NAME, _destroy_device_stream)


# --------------------------------------------------------------------------- import


class _HostView:
    """A NumPy view of foreign host memory that keeps the memory's owner (the capsule) alive."""

    def __init__(self, address: int, nbytes: int, owner: Any):
        self.__array_interface__ = {"data": (address, False), "shape": (nbytes,), "typestr": "|u1", "version": 3}
        self.owner = owner


def _foreign_bytes(address: int, nbytes: int, owner: Any, xp: Any) -> Any:
    """``nbytes`` bytes at ``address`` as a uint8 array of ``xp`` without a copy (``owner`` kept alive)."""
    if xp is np:
        if nbytes == 0:
            return np.zeros(0, dtype=np.uint8)
        return np.asarray(_HostView(address, nbytes, owner))
    memory = xp.cuda.UnownedMemory(address, nbytes, owner)
    return xp.ndarray((nbytes,), dtype=np.uint8, memptr=xp.cuda.MemoryPointer(memory, 0))


def _import_column(array: _ArrowArray, arrow_type: Any, owner: Any, xp: Any) -> Any:
    """A riptide column over the buffers of ``array`` (device memory of ``xp``), without copying them."""
    import pyarrow as pa

    from riptide.core.column import CategoricalColumn, NumericColumn, StringColumn
    from riptide.core.column.categorical import codes_dtype_for

    n, offset = int(array.length), int(array.offset)

    def buffer(i: int, itemsize: int, count: int) -> Any:
        address = array.buffers[i]
        if not address:
            return None
        return _foreign_bytes(address, itemsize * count, owner, xp)

    def valid() -> Any:
        if array.null_count == 0 or array.n_buffers == 0 or not array.buffers[0]:
            return None
        return _unpack_bits(buffer(0, 1, (offset + n + 7) // 8), offset, n)

    if pa.types.is_large_string(arrow_type) or pa.types.is_string(arrow_type):
        width = 8 if pa.types.is_large_string(arrow_type) else 4
        offsets = buffer(1, width, offset + n + 1).view(np.int64 if width == 8 else np.int32)[offset:]
        offsets = offsets.astype(np.int64)
        first, last = (int(v) for v in _device.to_host(offsets[[0, -1]]))  # two scalar reads: the byte range
        chars = buffer(2, 1, last)[first:last] if last > first else xp.zeros(0, dtype=np.uint8)
        return StringColumn(offsets - first, chars, valid())
    if pa.types.is_dictionary(arrow_type):
        codes = buffer(1, arrow_type.index_type.byte_width, offset + n).view(arrow_type.index_type.to_pandas_dtype())
        codes = codes[offset:]
        mask = valid()
        categories = _import_column(array.dictionary.contents, arrow_type.value_type, owner, xp)
        codes = codes.astype(codes_dtype_for(categories.size))
        if mask is not None:
            codes = xp.where(mask, codes, -1).astype(codes.dtype)
        return CategoricalColumn(codes, categories, arrow_type.ordered)
    if pa.types.is_boolean(arrow_type):
        values = _unpack_bits(buffer(1, 1, (offset + n + 7) // 8), offset, n)
        mask = valid()
        return NumericColumn(values, pd.BooleanDtype(), mask) if mask is not None else NumericColumn(values)
    if pa.types.is_timestamp(arrow_type) or pa.types.is_duration(arrow_type):
        ticks = buffer(1, 8, offset + n).view(np.int64)[offset:]
        mask = valid()
        if mask is not None:
            ticks = xp.where(mask, ticks, dtypes.NAT)
        return NumericColumn(ticks, arrow_type.to_pandas_dtype())
    if pa.types.is_integer(arrow_type) or pa.types.is_floating(arrow_type):
        np_dtype = np.dtype(arrow_type.to_pandas_dtype())
        values = buffer(1, np_dtype.itemsize, offset + n).view(np_dtype)[offset:]
        mask = valid()
        return NumericColumn(values, dtypes.to_masked(np_dtype), mask) if mask is not None else NumericColumn(values)
    raise TypeError(f"riptide cannot import an Arrow device array of type {arrow_type} without a copy")


def _import_device_array(obj: Any) -> Any:
    """A Series or DataFrame over the buffers of an object with ``__arrow_c_device_array__`` (no copy)."""
    import pyarrow as pa

    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import default_index
    from riptide.frame.series import Series

    schema_capsule, array_capsule = obj.__arrow_c_device_array__()
    address = _PyCapsule_GetPointer(id(array_capsule), _DEVICE_ARRAY_NAME)  # id(): the object's address
    device_array = ctypes.cast(address, ctypes.POINTER(_ArrowDeviceArray)).contents
    schema_field = pa.Field._import_from_c_capsule(schema_capsule)
    device_type = int(device_array.device_type)
    if device_type == _CPU and _device.xp() is np:
        xp = np
    elif device_type == _CUDA and _device.xp() is not np:
        xp = _device.xp()
        if device_array.sync_event:  # the producer's work must be done before ours reads the buffers
            event = ctypes.c_void_p.from_address(device_array.sync_event).value
            xp.cuda.runtime.streamWaitEvent(xp.cuda.get_current_stream().ptr, event)
    else:  # the other side of the bus: import where it lives, then move (one copy)
        return None
    array = device_array.array
    arrow_type = schema_field.type
    if pa.types.is_struct(arrow_type):
        columns = {}
        for i in range(arrow_type.num_fields):
            field = arrow_type.field(i)
            columns[field.name] = _import_column(array.children[i].contents, field.type, array_capsule, xp)
        return DataFrame._from_columns(columns, default_index(int(array.length), xp))
    name = schema_field.name or None
    return Series._from_column(_import_column(array, arrow_type, array_capsule, xp), default_index(int(array.length),
                                                                                                   xp), name)  # fmt: skip


def from_arrow(obj: Any) -> Any:
    """A DataFrame (tables, record batches, streams, struct arrays) or Series (arrays) from any Arrow object.

    Accepts pyarrow objects and anything exposing the Arrow PyCapsule interface: ``__arrow_c_device_array__``
    (imported without a copy when it lives where riptide computes), ``__arrow_c_stream__``, ``__arrow_c_array__``.

    >>> import pyarrow as pa
    >>> from_arrow(pa.table({"a": [1, 2]}))["a"].tolist()
    [1, 2]
    """
    import pyarrow as pa

    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    if isinstance(obj, pa.Array | pa.ChunkedArray):
        return Series(obj)
    if isinstance(obj, pa.Table | pa.RecordBatch):
        return DataFrame(obj)
    if hasattr(obj, "__arrow_c_device_array__"):
        try:
            imported = _import_device_array(obj)
        except TypeError:
            imported = None
        if imported is not None:
            return imported
    if hasattr(obj, "__arrow_c_stream__"):
        try:
            return DataFrame(pa.table(obj))
        except pa.ArrowInvalid:  # a stream of plain arrays, not of record batches
            return Series(pa.chunked_array(obj))
    if hasattr(obj, "__arrow_c_array__"):
        array = pa.array(obj) if not isinstance(obj, pa.RecordBatch) else obj
        if isinstance(array, pa.StructArray):
            return DataFrame(pa.RecordBatch.from_struct_array(array))
        return Series(array)
    if hasattr(obj, "__arrow_c_device_array__"):  # on the other device: a copy through pyarrow (CPU arrays)
        return from_arrow(pa.array(obj))
    raise TypeError(f"from_arrow expects a pyarrow Table/Array or an Arrow PyCapsule object, got {type(obj).__name__}")


def from_dlpack(obj: Any) -> Any:
    """A Series (1-D) or DataFrame (2-D, columns 0..k-1) over the memory of a DLPack producer, without a copy.

    Accepts anything with ``__dlpack__`` (PyTorch, CuPy, JAX, NumPy). Memory on the other side of the bus from
    riptide's device is copied once.

    >>> import numpy as np, riptide as rt
    >>> rt.from_dlpack(np.arange(3.0)).tolist()
    [0.0, 1.0, 2.0]
    """
    from riptide.core.column import NumericColumn
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import default_index
    from riptide.frame.series import Series

    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"from_dlpack expects an object with __dlpack__, got {type(obj).__name__}")
    device_type = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else _CPU
    xp = _device.xp()
    if device_type == _CPU:
        array = np.from_dlpack(obj)
    else:
        import cupy

        array = cupy.from_dlpack(obj)
    array = _device.to_device(array, xp) if _device.namespace_of(array) is not xp else array
    if array.dtype.kind not in "biuf":
        raise TypeError(f"riptide has no column type for DLPack dtype {array.dtype}")
    if array.ndim == 1:
        return Series._from_column(NumericColumn(xp.ascontiguousarray(array)), default_index(array.shape[0], xp))
    if array.ndim == 2:
        columns = {i: NumericColumn(xp.ascontiguousarray(array[:, i])) for i in range(array.shape[1])}
        return DataFrame._from_columns(columns, default_index(array.shape[0], xp))
    raise ValueError(f"from_dlpack needs a 1-D or 2-D array, got shape {array.shape}")
