"""Sending riptide objects between Dask workers: distributed's ``dask_serialize`` / ``cuda_serialize`` families,
plain pickling, and dask-cuda's device-object hooks.

A riptide DataFrame is a tree of small Python objects (labels, dtypes, index, column objects) holding a few large
arrays (values, masks, string offsets and bytes, codes), NumPy on the CPU and CuPy on the GPU. Serialization keeps
the two apart: the tree is pickled into the header with a ``persistent_id`` hook that takes every array out as a
separate frame (no copy for contiguous host arrays), and loading puts the arrays back where they came from. One
mechanism covers every column layout, index type and future column class.

* ``dask_serialize`` (TCP comms, spilling to disk): frames are host memory; CuPy buffers are copied to the host and
  back onto the device when loaded (on a worker without CuPy they stay NumPy, as riptide's CPU mode expects).
* ``cuda_serialize`` (UCX / NVLink comms): CuPy buffers are the frames themselves, device memory to device memory.
* plain pickle works on every riptide object (``RangeIndex.__reduce__`` rebuilds a range index from its three
  integers): Dask pickles task results nested in containers (a shuffle's dict of pieces).
* dask-cuda's ``is_device_object`` says whether a partition lives in device memory (what its spilling counts);
  registered only when dask_cuda is importable.

Spilling copies a partition to the host once. dask-cuda's spilling moves a partition between its device and host
stores: read back, it is deserialized onto the device and its host copy dropped; evicted again, it is serialized
again, a second copy to the host of bytes that the host just had. riptide partitions are never written in place
(every operation makes new arrays), so the object brought onto the device keeps the host frames it came from
(:data:`KEEP_HOST_COPIES`), and serializing it again hands those frames back when it still holds the same arrays
under the same tree: a second eviction copies nothing (an 8 GB device limit over 32 GB of data spilled at 5.6-7.8
GB/s with both copies). The frames live as long as the device object, so host memory holds the spilled
partitions plus those brought back.
"""

from __future__ import annotations

import importlib
import io
import pickle
import types
import weakref
from typing import Any

import numpy as np

from riptide import _device
from riptide.frame import DataFrame, Index, Series

__all__ = ["serialize_riptide", "deserialize_riptide", "register_dask_cuda"]

_RIPTIDE_TYPES = (DataFrame, Series, Index)

#: Whether an object deserialized onto the device keeps its host frames, for its next serialization to the host.
KEEP_HOST_COPIES = True

# id(object) -> (a weak reference to it, its header and host frames, its layout when they were made)
_host_copies: dict[int, tuple[Any, dict, list[Any], tuple]] = {}


# --------------------------------------------------------------------------- tree + frames


def _is_cupy(array: Any) -> bool:
    return type(array).__module__.startswith("cupy")


def _host_frame(array: np.ndarray) -> memoryview:
    return memoryview(np.ascontiguousarray(array).reshape(-1).view(np.uint8))


class _Pickler(pickle.Pickler):
    def __init__(self, file: Any, device_frames: bool):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.device_frames = device_frames
        self.frames: list[Any] = []
        self.arrays: list[tuple] = []

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, types.ModuleType):
            return ("module", obj.__name__)
        on_device = _is_cupy(obj)
        if not (on_device or isinstance(obj, np.ndarray)) or obj.dtype.kind == "O":
            return None
        if on_device:
            import cupy

            flat = cupy.ascontiguousarray(obj).reshape(-1).view(np.uint8)
            frame = flat if self.device_frames else memoryview(_device.to_host(flat))
        else:
            frame = _host_frame(obj)
        self.frames.append(frame)
        self.arrays.append((obj.dtype.str, tuple(obj.shape), on_device))
        return ("array", len(self.frames) - 1)


def _cupy_or_none() -> Any:
    try:
        import cupy
    except ImportError:  # pragma: no cover - depends on the machine
        return None
    return cupy


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: Any, frames: list[Any], arrays: list[tuple]):
        super().__init__(file)
        self.frames = frames
        self.arrays = arrays
        self.copied_to_device = False  # whether a host frame became a device array

    def persistent_load(self, pid: Any) -> Any:
        kind, value = pid
        if kind == "module":
            if value.startswith("cupy") and _cupy_or_none() is None:
                return np  # device data arriving on a host-only worker stays on the host
            return importlib.import_module(value)
        dtype_str, shape, on_device = self.arrays[value]
        frame = self.frames[value]
        dtype = np.dtype(dtype_str)
        cupy = _cupy_or_none() if on_device else None
        if cupy is not None and hasattr(frame, "__cuda_array_interface__"):
            return cupy.asarray(frame).view(dtype).reshape(shape)
        host = np.frombuffer(frame, dtype=np.uint8).view(dtype).reshape(shape)
        if cupy is not None:
            # riptide's pinned, multi-threaded copy: a spilled or received partition comes back at the link's
            # rate, where cupy.asarray of pageable memory is one thread's memcpy (4 GB/s of spilling measured)
            # (and waited for: the task that uses it may run on another thread's stream)
            device = _device.to_device(host, cupy)
            cupy.cuda.get_current_stream().synchronize()
            self.copied_to_device = True
            return device
        # riptide never writes in place, but a NumPy consumer might
        return host if host.flags.writeable else host.copy()


def serialize_riptide(obj: Any, device_frames: bool = False) -> tuple[dict, list[Any]]:
    """``(header, frames)`` of a riptide DataFrame/Series/Index: the pickled object tree in the header, one frame
    per array (host memory, or device memory with ``device_frames``).

    >>> import riptide as rt
    >>> df = rt.DataFrame({"a": [1, 2], "b": ["x", None]})
    >>> header, frames = serialize_riptide(df)
    >>> len(frames) > 0, deserialize_riptide(header, frames).to_pandas().equals(df.to_pandas())
    (True, True)
    """
    if not device_frames:
        kept = _kept_host_copy(obj)
        if kept is not None:
            return kept
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, device_frames)
    pickler.dump(obj)
    header = {"tree": buffer.getvalue(), "arrays": pickler.arrays}
    return header, pickler.frames


def deserialize_riptide(header: dict, frames: list[Any]) -> Any:
    """The object :func:`serialize_riptide` took apart, its arrays back on the device they came from."""
    arrays = [tuple(a) for a in header["arrays"]]
    unpickler = _Unpickler(io.BytesIO(header["tree"]), list(frames), arrays)
    obj = unpickler.load()
    if KEEP_HOST_COPIES and unpickler.copied_to_device:
        _keep_host_copy(obj, header, frames)
    return obj


def _layout(obj: Any) -> tuple:
    """What an object's serialization depends on: its tree (pickled with the arrays left out) and the identity of
    each array (address, size, type, shape, strides). riptide writes no array in place, so an object whose layout
    is unchanged still holds the values it had."""
    collector = _ArrayCollector()
    collector.dump(obj)
    return collector.tree(), tuple(_identity(array) for array in collector.all_arrays)


def _identity(array: Any) -> tuple:
    address = array.data.ptr if _is_cupy(array) else array.__array_interface__["data"][0]
    return address, array.nbytes, array.dtype.str, tuple(array.shape), tuple(array.strides)


def _keep_host_copy(obj: Any, header: dict, frames: list[Any]) -> None:
    key = id(obj)
    try:
        alive = weakref.ref(obj, lambda _, key=key: _host_copies.pop(key, None))
    except TypeError:  # (an object that takes no weak reference keeps nothing)
        return
    _host_copies[key] = (alive, header, list(frames), _layout(obj))


def _kept_host_copy(obj: Any) -> tuple[dict, list[Any]] | None:
    """The header and host frames ``obj`` was deserialized from, if it still holds the same arrays."""
    kept = _host_copies.get(id(obj))
    if kept is None or kept[0]() is not obj:
        return None
    alive, header, frames, layout = kept
    if _layout(obj) != layout:
        del _host_copies[id(obj)]
        return None
    return dict(header), list(frames)  # (copies: distributed adds its own keys to a header)


def _register_distributed() -> None:
    try:
        from distributed.protocol import dask_deserialize, dask_serialize
        from distributed.protocol.cuda import cuda_deserialize, cuda_serialize
    except ImportError:  # pragma: no cover - distributed is optional
        return
    for cls in (DataFrame, Series, Index):
        dask_serialize.register(cls)(lambda obj: serialize_riptide(obj, device_frames=False))
        dask_deserialize.register(cls)(deserialize_riptide)
        cuda_serialize.register(cls)(lambda obj: serialize_riptide(obj, device_frames=True))
        cuda_deserialize.register(cls)(deserialize_riptide)


class _ArrayCollector(pickle.Pickler):
    """Walks an object tree as pickling would, keeping the arrays it meets (CuPy ones apart) and writing the tree
    without them."""

    def __init__(self) -> None:
        self._file = io.BytesIO()
        super().__init__(self._file, protocol=pickle.HIGHEST_PROTOCOL)
        self.arrays: list[Any] = []  # the CuPy arrays
        self.all_arrays: list[Any] = []

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, types.ModuleType):
            return obj.__name__
        if _is_cupy(obj) or isinstance(obj, np.ndarray):
            if _is_cupy(obj):
                self.arrays.append(obj)
            self.all_arrays.append(obj)
            return len(self.all_arrays)
        return None

    def tree(self) -> bytes:
        return self._file.getvalue()


def _device_arrays(obj: Any) -> list[Any]:
    collector = _ArrayCollector()
    collector.dump(obj)
    return collector.arrays


def _on_device(obj: Any) -> bool:
    if isinstance(obj, DataFrame):
        return any(_is_cupy(column._primary_buffer()) for column in obj._data.values())
    column = obj._column if isinstance(obj, Series) else obj._as_column()
    return _is_cupy(column._primary_buffer())


def register_dask_cuda() -> bool:
    """Tell dask-cuda which riptide objects hold device memory (for its device-memory accounting and spilling).
    Returns False when dask_cuda is not installed."""
    try:
        from dask_cuda.is_device_object import is_device_object
    except ImportError:
        return False
    is_device_object.register(_RIPTIDE_TYPES)(_on_device)
    try:
        from dask_cuda.get_device_memory_objects import dispatch as device_memory_objects
    except ImportError:  # pragma: no cover - depends on the dask-cuda version
        return True

    @device_memory_objects.register(_RIPTIDE_TYPES)
    def _device_buffers(obj: Any) -> list:
        # whatever this dask-cuda version reports for a CuPy array, for each of the partition's arrays
        return [item for array in _device_arrays(obj) for item in device_memory_objects(array)]

    return True


_register_distributed()
register_dask_cuda()
