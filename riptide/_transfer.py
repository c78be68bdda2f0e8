"""Fast copies of large arrays between host (NumPy) and GPU (CuPy) memory.

:mod:`riptide._device` calls :func:`host_to_device` and :func:`device_to_host`;
everything else here is machinery and knobs for the benchmark probe
(``python -m riptide.benchmarks.transfer_probe``).

Why not just ``cupy.asarray`` / ``.get()``
------------------------------------------
The GPU's copy engines move data over PCIe only from or to *page-locked*
("pinned") host memory. A copy from ordinary (pageable) NumPy memory is in
effect one CPU thread copying the data into pinned memory, then the DMA, one
after the other; a copy into pageable memory lands in pinned memory and is
copied out by one thread, while the fresh NumPy result is page-faulted in on
first touch. A single thread's memcpy (about 10 GB/s) in series with the DMA
is far below the link (about 54 GB/s measured on our H200 host, PCIe Gen5):
``cupy.asarray`` moved 8 GB/s and ``.get()`` 3 GB/s there.

What we do instead
------------------
Arrays under ``small_bytes`` (8 MiB) take the plain CuPy path: there fixed
costs dominate and CuPy was as fast or faster (measured). Larger arrays go
through one of the strategies below (``H2D_STRATEGIES`` /
``D2H_STRATEGIES``, each a plain module-level function), so that the probe
can time them all on the real machine and the default is picked by
measurement, not by belief:

host to device
    ``cupy``            ``cupy.asarray`` (the baseline).
    ``staged``          one non-blocking stream and ``n_buffers`` pinned staging
                        chunks: all ``n_threads`` threads fill chunk *k* together
                        (``np.copyto`` releases the GIL) while the copy engine
                        moves chunk *k-1*; a CUDA event per chunk says when it may
                        be overwritten. Pays a thread hand-off per chunk, so it
                        needs big chunks (32 MiB).
    ``staged_threads``  the array is cut into up to ``n_threads`` contiguous
                        ranges (at least 8 MiB each) and each thread runs its own
                        two-chunk pipeline on its own stream: fill one chunk while
                        the other is in flight, no barrier between threads.
                        Chunks of ~1/4 of a range, between 1 MiB and
                        ``chunk_bytes``. **Default.**
    ``registered``      ``cudaHostRegister`` the source in place, one DMA, then
                        unregister: no host copy at all, but page-locking costs
                        time per page.

device to host
    ``cupy``            ``ndarray.get()`` (the baseline).
    ``pinned_result``   the result NumPy array itself lives in pinned memory
                        (from a private ``cupy.cuda.PinnedMemoryPool``), so one DMA
                        at full link speed fills it and no host copy follows.
                        Fastest once the pool holds a block of the right size,
                        but the first call of each size pays ``cudaHostAlloc``
                        (about 2.5 GB/s), and freed results stay pinned in the
                        pool until :func:`release_pinned_memory`.
    ``staged``          mirror of the H2D one: DMA into pinned chunks, all
                        threads copy each chunk into an ordinary ``np.empty``
                        result.
    ``staged_threads``  mirror of the H2D one; the threads also share the page
                        faults of the fresh result, which bound it. **Default.**
    ``registered``      ``cudaHostRegister`` the fresh result, one DMA, unregister.

Measured on the H200 host (16 cores; ``transfer_probe``, median of 5, two
float64 columns of 1e8 rows = 1.6 GB; ms, first call of the process in
brackets, which includes allocating the pinned staging chunks):

    ==========================  ===========  ============
    strategy                    to device    to host
    ==========================  ===========  ============
    cupy                        196 (211)    614 (579)
    staged (32 MiB chunks)       66 (110)    117 (173)
    staged_threads               34 (94)      74 (130)
    registered                  111 (109)    402 (403)
    pinned_result                   -         30 (1099)
    ==========================  ===========  ============

So ``staged_threads`` is the default both ways: 46 GB/s to the device, and
22 GB/s back, where the page faults of a fresh result array are the limit
(the host memcpies into fresh memory at about 22 GB/s on 12 threads, against
31 GB/s into touched memory). ``pinned_result`` is 2.5x faster back in steady
state but costs a second on the first call of each array size and keeps
pinned memory; select it with ``configure(d2h="pinned_result")`` where the same
sizes come back again and again. Defaults: 12 threads, 4 MiB chunks, which
keeps 2 x 12 x 4 MiB = 96 MiB of pinned staging memory once the first large
transfer made it.

A host array that is already pinned (e.g. one returned by ``pinned_result``)
is sent to the device with a single DMA whatever the strategy.

Correctness rules every strategy keeps
--------------------------------------
* Our copies run on our own non-blocking streams, which do not order
  themselves after the caller's stream. So each transfer first makes its
  streams wait for an event recorded on the caller's current stream: the
  source may still be being written there (D2H), and CuPy's memory pool may
  hand us a destination block whose previous user still runs there (H2D).
* Every large transfer synchronizes its streams before returning (also on
  error): the caller may free or overwrite the source the moment we return,
  and the staging chunks go back to the pool for the next transfer. A small
  host-to-device copy is queued on the current stream without a wait (CuPy
  stages pageable sources in its pinned pool; see ``host_to_device``).
* Bytes are copied verbatim, so any dtype CuPy can hold works (bool, ints,
  floats, complex; datetimes travel as their int64 view, which the column
  layer stores anyway). Empty and 0-d arrays work. Non-contiguous host input
  is gathered by the staging copy itself (1-D) or made contiguous first (N-d);
  non-contiguous device input is made contiguous on the device (fast).
  C- and F-contiguous arrays keep their layout.

CuPy is imported inside the functions: this module imports on a machine
without CuPy or without a GPU (and is then never called).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import os
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

__all__ = [
    "host_to_device",
    "device_to_host",
    "H2D_STRATEGIES",
    "D2H_STRATEGIES",
    "TransferSettings",
    "get_settings",
    "configure",
    "settings",
    "release_pinned_memory",
]

_MiB = 1 << 20
# Per-thread pipelines (``staged_threads``), tuned on an H200 host with 16 cores:
_MIN_STEP_BYTES = 1 * _MiB  # smallest chunk: each chunk costs ~10-50 us of Python and CUDA calls
_MIN_PART_BYTES = 8 * _MiB  # least work per thread: measured, more threads slow mid-sized copies
_CHUNKS_PER_THREAD = 4  # target chunks per thread, so each thread overlaps its copies with its DMAs


@dataclasses.dataclass(frozen=True)
class TransferSettings:
    """Knobs of the large-array transfer paths (see the module docstring)."""

    small_bytes: int = 8 * _MiB  # below this, plain CuPy copies
    chunk_bytes: int = 4 * _MiB  # size of one pinned staging chunk (the most one DMA moves)
    n_buffers: int = 3  # staging chunks of the single-stream ``staged`` pipeline
    n_threads: int = max(1, min(12, os.cpu_count() or 1))  # host copy threads
    h2d: str = "staged_threads"  # default host-to-device strategy
    d2h: str = "staged_threads"  # default device-to-host strategy


_settings = TransferSettings()


def get_settings() -> TransferSettings:
    """The settings in force."""
    return _settings


def configure(**changes: Any) -> TransferSettings:
    """Change settings (fields of :class:`TransferSettings`); returns the previous ones."""
    global _settings
    old = _settings
    new = dataclasses.replace(old, **changes)
    for name in ("small_bytes", "chunk_bytes", "n_buffers", "n_threads"):
        value = getattr(new, name)
        lowest = 0 if name == "small_bytes" else 1
        if not isinstance(value, int) or isinstance(value, bool) or value < lowest:
            raise ValueError(f"transfer setting {name!r} must be an int >= {lowest}, got {value!r}")
    if new.n_buffers < 2:
        raise ValueError("transfer setting 'n_buffers' must be at least 2 (one filling, one in flight)")
    if new.h2d not in H2D_STRATEGIES:
        raise ValueError(f"unknown host-to-device strategy {new.h2d!r}; choose from {sorted(H2D_STRATEGIES)}")
    if new.d2h not in D2H_STRATEGIES:
        raise ValueError(f"unknown device-to-host strategy {new.d2h!r}; choose from {sorted(D2H_STRATEGIES)}")
    _settings = new
    return old


@contextlib.contextmanager
def settings(**changes: Any) -> Iterator[TransferSettings]:
    """Context manager: :func:`configure` for the ``with`` block, then restore."""
    old = configure(**changes)
    try:
        yield _settings
    finally:
        configure(**dataclasses.asdict(old))


# --------------------------------------------------------------------------- helpers


def _cupy() -> types.ModuleType:
    import cupy

    return cupy


def _chunk_elems(itemsize: int) -> int:
    return max(1, _settings.chunk_bytes // itemsize)


def _ranges(n: int, step: int, start: int = 0) -> list[tuple[int, int]]:
    """[start, start+n) cut into consecutive (lo, hi) pieces of at most ``step``."""
    return [(lo, min(lo + step, start + n)) for lo in range(start, start + n, step)]


def _split(n: int, parts: int, align: int = 1) -> list[tuple[int, int]]:
    """[0, n) cut into at most ``parts`` near-equal (lo, hi) pieces, boundaries multiples of ``align``."""
    size = -(-n // max(1, parts))
    size = -(-size // align) * align
    return _ranges(n, max(1, size))


_executor_lock = threading.Lock()
_executor: concurrent.futures.ThreadPoolExecutor | None = None
_executor_size = 0


def _pool(n_threads: int) -> concurrent.futures.ThreadPoolExecutor:
    """Shared worker threads (kept alive: starting threads per call would cost more than it saves)."""
    global _executor, _executor_size
    with _executor_lock:
        if _executor is None or _executor_size < n_threads:
            if _executor is not None:
                _executor.shutdown(wait=False)
            _executor = concurrent.futures.ThreadPoolExecutor(max_workers=n_threads, thread_name_prefix="riptide-transfer")
            _executor_size = n_threads
        return _executor


def _wait_all(futures: list[concurrent.futures.Future]) -> None:
    """Wait for every future (even after one fails, so no thread still touches our buffers), then re-raise."""
    concurrent.futures.wait(futures)
    for f in futures:
        f.result()


def _parallel_copyto(dst: np.ndarray, src: np.ndarray) -> None:
    """``np.copyto`` of two equal-length 1-D arrays, split over the worker threads."""
    n_threads = _settings.n_threads
    min_piece = max(1, _MiB // max(1, dst.itemsize))  # below ~1 MiB a thread hand-off costs more than it gains
    pieces = _split(len(dst), min(n_threads, max(1, len(dst) // min_piece)), align=64)
    if len(pieces) <= 1:
        np.copyto(dst, src)
        return
    futures = [_pool(n_threads).submit(np.copyto, dst[lo:hi], src[lo:hi]) for lo, hi in pieces[1:]]
    try:
        lo, hi = pieces[0]
        np.copyto(dst[lo:hi], src[lo:hi])  # the calling thread takes a share too
    finally:
        _wait_all(futures)


class _PinnedChunk:
    """One page-locked staging buffer, with a typed-view helper."""

    def __init__(self, nbytes: int):
        cupy = _cupy()
        # Portable: usable as pinned memory from every device's context.
        mem = cupy.cuda.PinnedMemory(nbytes, cupy.cuda.runtime.hostAllocPortable)
        self.mem = cupy.cuda.PinnedMemoryPointer(mem, 0)
        self.ptr = self.mem.ptr
        self.nbytes = nbytes
        self.bytes = np.ndarray((nbytes,), dtype=np.uint8, buffer=self.mem)

    def view(self, dtype: np.dtype, count: int) -> np.ndarray:
        return self.bytes[: count * dtype.itemsize].view(dtype)


class _StagingPool:
    """Pinned staging chunks, allocated once (``cudaHostAlloc`` is slow) and reused.

    A transfer leases the chunks it needs and holds the pool's lock until it
    has synchronized, so two transfers never share a chunk.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._chunks: list[_PinnedChunk] = []

    @contextlib.contextmanager
    def lease(self, count: int, nbytes: int) -> Iterator[list[_PinnedChunk]]:
        """``count`` chunks of at least ``nbytes`` each, for the duration of the ``with`` block."""
        # Chunks are made at the configured size even when a transfer asks for
        # less, so mid-sized and large transfers share them without reallocating.
        size = max(nbytes, _settings.chunk_bytes)
        with self._lock:
            if self._chunks and self._chunks[0].nbytes < nbytes:
                self._chunks.clear()  # too small (chunk_bytes was raised): reallocate
            while len(self._chunks) < count:
                self._chunks.append(_PinnedChunk(max(size, self._chunks[0].nbytes if self._chunks else 0)))
            yield self._chunks[:count]

    def clear(self) -> None:
        with self._lock:
            self._chunks.clear()


_staging = _StagingPool()
_result_pool: Any = None  # cupy.cuda.PinnedMemoryPool for ``pinned_result``, made on first use


def release_pinned_memory() -> None:
    """Free the pinned staging chunks and the idle blocks of the pinned-result pool."""
    _staging.clear()
    if _result_pool is not None:
        _result_pool.free_all_blocks()


_thread_local = threading.local()


def _thread_stream(cupy: types.ModuleType, n_events: int = 0, after: Any = None) -> tuple[Any, list[Any]]:
    """This thread's non-blocking stream on the current device, and ``n_events`` events for it.

    Made once per thread and device, then reused, so that a transfer creates
    and destroys no CUDA objects in each of its threads. Reuse is safe
    because every transfer waits for the streams it used before it returns
    (a file read waits once for all its pieces' copies).
    The stream is first made to wait for event ``after``, by default one
    recorded now on the caller's current stream.
    """
    if after is None:
        after = cupy.cuda.get_current_stream().record()
    per_device = _thread_local.__dict__.setdefault("streams", {})
    device_id = cupy.cuda.runtime.getDevice()
    if device_id not in per_device:
        per_device[device_id] = (cupy.cuda.Stream(non_blocking=True), [])
    stream, events = per_device[device_id]
    while len(events) < n_events:
        events.append(cupy.cuda.Event(disable_timing=True))
    stream.wait_event(after)
    return stream, events[:n_events]


def _stream_after_current(cupy: types.ModuleType) -> Any:
    """A non-blocking stream ordered after all work queued so far on the caller's stream."""
    return _thread_stream(cupy)[0]


def _is_page_locked(cupy: types.ModuleType, ptr: int) -> bool:
    """True when host address ``ptr`` is pinned (cudaHostAlloc'ed or cudaHostRegister'ed)."""
    try:
        attrs = cupy.cuda.runtime.pointerGetAttributes(ptr)
    except cupy.cuda.runtime.CUDARuntimeError:
        return False
    return attrs.type == cupy.cuda.runtime.memoryTypeHost


def _host_source(array: Any) -> tuple[np.ndarray, np.ndarray, str]:
    """(array, 1-D view of its elements in memory order, order for the device copy).

    The 1-D view may be strided (a strided 1-D input): the staging copy gathers
    it for free. Other non-contiguous inputs are made contiguous here.
    """
    array = np.asarray(array)
    if not array.dtype.isnative:  # the device only knows native byte order
        array = array.astype(array.dtype.newbyteorder("="))
    if array.flags.c_contiguous:
        return array, array.reshape(-1), "C"
    if array.flags.f_contiguous:
        return array, array.reshape(-1, order="F"), "F"
    if array.ndim == 1:
        return array, array, "C"
    array = np.ascontiguousarray(array)
    return array, array.reshape(-1), "C"


def _device_source(array: Any) -> tuple[Any, str]:
    """(contiguous device array, its order 'C' or 'F'); copies on the device only if needed."""
    cupy = _cupy()
    if not isinstance(array, cupy.ndarray):
        array = cupy.asarray(array)  # e.g. __cuda_array_interface__ objects: zero-copy view
    if array.flags.c_contiguous:
        return array, "C"
    if array.flags.f_contiguous:
        return array, "F"
    return cupy.ascontiguousarray(array), "C"


def _flat(array: np.ndarray, order: str) -> np.ndarray:
    flat = array.reshape(-1, order=order)
    assert flat.size == 0 or flat.ctypes.data == array.ctypes.data  # a view, never a copy
    return flat


# --------------------------------------------------------------------------- pipelines
#
# One pipeline moves elements [lo, hi) of a flat array, ``step`` elements at a
# time, through a few pinned chunks on one stream, with one event per chunk.
# ``copy`` is the host-side copy (np.copyto, or the threaded _parallel_copyto);
# the DMA side is cudaMemcpyAsync.


def _pipeline_h2d(src: np.ndarray, dst_ptr: int, lo: int, hi: int, step: int, chunks: list[_PinnedChunk], stream: Any, events: list[Any], copy: Callable) -> None:
    runtime = _cupy().cuda.runtime
    itemsize = src.dtype.itemsize
    in_flight = [False] * len(chunks)
    try:
        for k, (a, b) in enumerate(_ranges(hi - lo, step, lo)):
            i = k % len(chunks)
            if in_flight[i]:
                events[i].synchronize()  # its previous DMA has read it: safe to overwrite
            copy(chunks[i].view(src.dtype, b - a), src[a:b])
            runtime.memcpyAsync(dst_ptr + a * itemsize, chunks[i].ptr, (b - a) * itemsize, runtime.memcpyHostToDevice, stream.ptr)
            events[i].record(stream)
            in_flight[i] = True
    finally:
        stream.synchronize()


def _pipeline_d2h(src_ptr: int, dst: np.ndarray, lo: int, hi: int, step: int, chunks: list[_PinnedChunk], stream: Any, events: list[Any], copy: Callable) -> None:
    runtime = _cupy().cuda.runtime
    itemsize = dst.dtype.itemsize
    pieces = _ranges(hi - lo, step, lo)
    ahead = len(chunks) - 1  # DMAs queued ahead of the one being drained

    def issue(k: int) -> None:
        a, b = pieces[k]
        i = k % len(chunks)
        runtime.memcpyAsync(chunks[i].ptr, src_ptr + a * itemsize, (b - a) * itemsize, runtime.memcpyDeviceToHost, stream.ptr)
        events[i].record(stream)

    try:
        for k in range(min(ahead, len(pieces))):
            issue(k)
        for k, (a, b) in enumerate(pieces):
            if k + ahead < len(pieces):
                issue(k + ahead)  # reuses the chunk drained in the previous iteration
            i = k % len(chunks)
            events[i].synchronize()
            copy(dst[a:b], chunks[i].view(dst.dtype, b - a))
    finally:
        stream.synchronize()


def _run_per_thread(work: Callable[..., None], n: int, itemsize: int, device_id: int) -> None:
    """Cut [0, n) into one range per thread; each runs ``work(lo, hi, step, its two chunks, its stream, its events)``.

    Each thread gets at least ``_MIN_PART_BYTES`` (measured: a 32 MB copy is
    fastest on 4 threads and twice as slow on 12). The step adapts to the
    range: about four chunks per thread, so that every thread overlaps its
    own host copies with its own DMAs even for a mid-sized array, but never
    above ``chunk_bytes`` (staging memory) nor below 1 MiB (per-chunk
    overhead). Both floors shrink with ``chunk_bytes`` so that tests with
    tiny chunks still run many threads.
    """
    cupy = _cupy()
    chunk_bytes = _settings.chunk_bytes
    max_step = _chunk_elems(itemsize)
    min_step = max(1, min(chunk_bytes, _MIN_STEP_BYTES) // itemsize)
    min_part = max(1, min(2 * chunk_bytes, _MIN_PART_BYTES) // itemsize)
    parts = _split(n, min(_settings.n_threads, -(-n // min_part)), align=max(1, 4096 // itemsize))
    step = min(max_step, max(min_step, -(-(parts[0][1] - parts[0][0]) // _CHUNKS_PER_THREAD)))
    start = cupy.cuda.get_current_stream().record()

    def thread_main(lo: int, hi: int, chunks: list[_PinnedChunk]) -> None:
        with cupy.cuda.Device(device_id):  # the current device is per thread in CUDA
            stream, events = _thread_stream(cupy, len(chunks), after=start)
            work(lo, hi, step, chunks, stream, events)

    with _staging.lease(2 * len(parts), step * itemsize) as chunks:
        if len(parts) == 1:  # one range: no hand-off to a worker
            thread_main(*parts[0], chunks)
            return
        executor = _pool(_settings.n_threads)
        futures = [executor.submit(thread_main, lo, hi, chunks[2 * j : 2 * j + 2]) for j, (lo, hi) in enumerate(parts)]
        _wait_all(futures)


def _h2d_direct(host: np.ndarray, order: str) -> Any:
    """One DMA from an already pinned, contiguous host array."""
    cupy = _cupy()
    out = cupy.empty(host.shape, host.dtype, order=order)
    stream = _stream_after_current(cupy)
    try:
        runtime = cupy.cuda.runtime
        runtime.memcpyAsync(out.data.ptr, host.ctypes.data, host.nbytes, runtime.memcpyHostToDevice, stream.ptr)
    finally:
        stream.synchronize()
    return out


# --------------------------------------------------------------------------- H2D strategies


def h2d_cupy(array: np.ndarray) -> Any:
    """Plain ``cupy.asarray`` and a wait (the ``cupy`` strategy for large arrays; small ones take ``cupy.asarray``
    without the wait, see :func:`host_to_device`)."""
    cupy = _cupy()
    out = cupy.asarray(array)
    # cupy.asarray may return before its DMA finished; keep the "done on return" contract.
    cupy.cuda.get_current_stream().synchronize()
    return out


def h2d_staged(array: np.ndarray) -> Any:
    """Single-stream pipeline; every chunk is filled by all threads together."""
    cupy = _cupy()
    host, flat, order = _host_source(array)
    out = cupy.empty(host.shape, host.dtype, order=order)
    if flat.size == 0:
        return out
    chunk = _chunk_elems(flat.itemsize)
    with _staging.lease(_settings.n_buffers, chunk * flat.itemsize) as chunks:
        stream, events = _thread_stream(cupy, len(chunks))
        _pipeline_h2d(flat, out.data.ptr, 0, flat.size, chunk, chunks, stream, events, _parallel_copyto)
    return out


def h2d_staged_threads(array: np.ndarray) -> Any:
    """One independent two-chunk pipeline (and stream) per thread, each on its own range."""
    cupy = _cupy()
    host, flat, order = _host_source(array)
    out = cupy.empty(host.shape, host.dtype, order=order)
    if flat.size == 0:
        return out
    dst_ptr = out.data.ptr

    def work(lo: int, hi: int, step: int, chunks: list[_PinnedChunk], stream: Any, events: list[Any]) -> None:
        _pipeline_h2d(flat, dst_ptr, lo, hi, step, chunks, stream, events, np.copyto)

    _run_per_thread(work, flat.size, flat.itemsize, out.device.id)
    return out


def h2d_registered(array: np.ndarray) -> Any:
    """Page-lock the source in place (``cudaHostRegister``), one DMA, unlock."""
    cupy = _cupy()
    runtime = cupy.cuda.runtime
    host, _, order = _host_source(array)
    if not (host.flags.c_contiguous or host.flags.f_contiguous):
        host = np.ascontiguousarray(host)
        order = "C"
    out = cupy.empty(host.shape, host.dtype, order=order)
    if host.nbytes == 0:
        return out
    _registered_copy(cupy, host.ctypes.data, out.data.ptr, host.ctypes.data, host.nbytes, runtime.memcpyHostToDevice)
    return out


def _registered_copy(cupy: types.ModuleType, host_ptr: int, dst: int, src: int, nbytes: int, kind: int) -> None:
    """One DMA between device memory and host memory page-locked in place for the copy."""
    runtime = cupy.cuda.runtime
    try:
        runtime.hostRegister(host_ptr, nbytes, 0)
        registered = True
    except runtime.CUDARuntimeError:
        # Already pinned, read-only memory, ...: the same DMA from pageable memory is still correct.
        registered = False
    try:
        stream = _stream_after_current(cupy)
        try:
            runtime.memcpyAsync(dst, src, nbytes, kind, stream.ptr)
        finally:
            stream.synchronize()
    finally:
        if registered:
            runtime.hostUnregister(host_ptr)


H2D_STRATEGIES: dict[str, Callable[[np.ndarray], Any]] = {
    "cupy": h2d_cupy,
    "staged": h2d_staged,
    "staged_threads": h2d_staged_threads,
    "registered": h2d_registered,
}


# --------------------------------------------------------------------------- D2H strategies


def d2h_cupy(array: Any) -> np.ndarray:
    """Plain ``ndarray.get()`` into pageable memory (baseline; also the path for small arrays)."""
    cupy = _cupy()
    if not isinstance(array, cupy.ndarray):
        array = cupy.asarray(array)
    return array.get()  # blocking: returns once the data is on the host


def d2h_pinned_result(array: Any) -> np.ndarray:
    """One DMA straight into a result array backed by pooled pinned memory."""
    global _result_pool
    cupy = _cupy()
    src, order = _device_source(array)
    if _result_pool is None:
        _result_pool = cupy.cuda.PinnedMemoryPool()
    mem = _result_pool.malloc(max(src.nbytes, 1))
    out = np.ndarray(src.shape, dtype=src.dtype, buffer=mem, order=order)
    if src.nbytes:
        stream = _stream_after_current(cupy)
        try:
            runtime = cupy.cuda.runtime
            runtime.memcpyAsync(out.ctypes.data, src.data.ptr, src.nbytes, runtime.memcpyDeviceToHost, stream.ptr)
        finally:
            stream.synchronize()
    return out


def d2h_staged(array: Any) -> np.ndarray:
    """Single-stream pipeline through pinned chunks; every chunk is drained by all threads together."""
    cupy = _cupy()
    src, order = _device_source(array)
    out = np.empty(src.shape, dtype=src.dtype, order=order)
    if src.size == 0:
        return out
    flat = _flat(out, order)
    chunk = _chunk_elems(flat.itemsize)
    with _staging.lease(_settings.n_buffers, chunk * flat.itemsize) as chunks:
        stream, events = _thread_stream(cupy, len(chunks))
        _pipeline_d2h(src.data.ptr, flat, 0, flat.size, chunk, chunks, stream, events, _parallel_copyto)
    return out


def d2h_staged_threads(array: Any) -> np.ndarray:
    """One independent two-chunk pipeline (and stream) per thread, each on its own range."""
    src, order = _device_source(array)
    out = np.empty(src.shape, dtype=src.dtype, order=order)
    if src.size == 0:
        return out
    flat = _flat(out, order)
    src_ptr = src.data.ptr

    def work(lo: int, hi: int, step: int, chunks: list[_PinnedChunk], stream: Any, events: list[Any]) -> None:
        _pipeline_d2h(src_ptr, flat, lo, hi, step, chunks, stream, events, np.copyto)

    _run_per_thread(work, flat.size, flat.itemsize, src.device.id)
    return out


def d2h_registered(array: Any) -> np.ndarray:
    """Page-lock a fresh ``np.empty`` result in place, one DMA, unlock."""
    cupy = _cupy()
    runtime = cupy.cuda.runtime
    src, order = _device_source(array)
    out = np.empty(src.shape, dtype=src.dtype, order=order)
    if src.nbytes == 0:
        return out
    _registered_copy(cupy, out.ctypes.data, out.ctypes.data, src.data.ptr, src.nbytes, runtime.memcpyDeviceToHost)
    return out


D2H_STRATEGIES: dict[str, Callable[[Any], np.ndarray]] = {
    "cupy": d2h_cupy,
    "pinned_result": d2h_pinned_result,
    "staged": d2h_staged,
    "staged_threads": d2h_staged_threads,
    "registered": d2h_registered,
}


# --------------------------------------------------------------------------- entry points


def host_to_device(array: np.ndarray, strategy: str | None = None) -> Any:
    """Copy a NumPy array to the current GPU; returns a ``cupy.ndarray`` whose data is there for any work queued
    after it on the current stream (and the host array may be reused at once: a small pageable one is staged, a
    small pinned one waited for).

    ``strategy`` (a key of ``H2D_STRATEGIES``) overrides the configured default
    for large arrays; arrays under ``small_bytes`` always use ``cupy.asarray``,
    without waiting: CuPy stages them in its pinned pool and queues the DMA on
    the current stream. Waiting there would also wait for every kernel already
    queued, and the small uploads between a reader's or a groupby's kernels
    would each stall the host until the GPU drains (read_parquet of G1 1e7 spent
    6.8 ms of its 23 ms so).
    """
    array = np.asarray(array)
    if array.nbytes < _settings.small_bytes:
        cupy = _cupy()
        out = cupy.asarray(array)
        if array.nbytes and _is_page_locked(cupy, array.ctypes.data):
            # a pinned source is copied from in place, not staged: its owner may overwrite it once we return
            cupy.cuda.get_current_stream().synchronize()
        return out
    if array.flags.c_contiguous or array.flags.f_contiguous:
        if _is_page_locked(_cupy(), array.ctypes.data):
            return _h2d_direct(array, "C" if array.flags.c_contiguous else "F")
    return H2D_STRATEGIES[strategy or _settings.h2d](array)


def device_to_host(array: Any, strategy: str | None = None) -> np.ndarray:
    """Copy a CuPy array (or ``__cuda_array_interface__`` object) into a new NumPy array.

    ``strategy`` (a key of ``D2H_STRATEGIES``) overrides the configured default
    for large arrays; arrays under ``small_bytes`` always use ``.get()``.
    """
    cupy = _cupy()
    if not isinstance(array, cupy.ndarray):
        array = cupy.asarray(array)
    if array.nbytes < _settings.small_bytes:
        return d2h_cupy(array)
    with array.device:  # streams and copies on the array's own GPU
        return D2H_STRATEGIES[strategy or _settings.d2h](array)
