"""A local file's bytes straight to the device: parallel reads into pinned memory, each piece copied as it lands.

``np.fromfile`` reads a file on one thread (about 3.5 GB/s from the page cache on the GPU host: 147 ms for the
0.5 GB db-benchmark CSV), and a pageable buffer then needs a second, staged copy to the device. Here the file is
split into pieces of :data:`PIECE` bytes; a thread pool reads them with ``os.preadv`` into one reusable pinned
buffer, and each thread queues its piece's copy to the device on its own stream as soon as it is read and reads on,
so reading and the host-to-device copies overlap and the copy engine never waits for the whole file.

On the CPU (NumPy) the same pieces are read in parallel into a plain array.

>>> import os, tempfile
>>> handle, path = tempfile.mkstemp(); os.write(handle, b"a,b\\n1,2\\n"); os.close(handle)
8
>>> bytes(read_file(path, np))
b'a,b\\n1,2\\n'
>>> os.remove(path)
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
import types
from typing import Any

import numpy as np

from riptide import _transfer

__all__ = ["PIECE", "PendingRead", "read_file", "read_ranges", "start_read_ranges"]

PIECE = 8 << 20  # bytes per parallel read (and per copy to the device)

_pool_lock = threading.Lock()
_pool: list[Any] = [None]  # see _reader_pool
_pinned_lock = threading.Lock()
_pinned: list[Any] = [None]  # the reusable pinned staging buffer (grows; allocating pinned memory is slow)


def read_file(path: str, xp: types.ModuleType) -> Any:
    """The whole file ``path`` as one uint8 array in ``xp`` (device memory for CuPy)."""
    size = os.path.getsize(path)
    return read_ranges(path, np.array([[0, size]], dtype=np.int64), size, xp)


def read_ranges(path: str, ranges: np.ndarray, total: int, xp: types.ModuleType) -> Any:
    """The bytes of ``ranges`` ([k, 2]: file offset, length), back to back, as one uint8 array of ``total`` bytes
    in ``xp``."""
    return start_read_ranges(path, ranges, total, xp).result()


class PendingRead:
    """A read started by :func:`start_read_ranges`; :meth:`result` waits for it and gives the bytes.

    Until then the reader threads hold the shared pinned buffer: every started read must have ``result()`` called
    (also when the caller has no use for the bytes any more), in a ``finally`` if anything can raise in between.
    """

    def __init__(self, finish: Any):
        self._finish = finish
        self._swap = threading.Lock()  # one caller runs finish(), however many threads call result()

    def result(self) -> Any:
        """The bytes, to the first caller (None to later ones: holding them here would keep the file's copy alive)."""
        with self._swap:
            finish, self._finish = self._finish, None
        return finish() if finish is not None else None


def start_read_ranges(path: str, ranges: np.ndarray, total: int, xp: types.ModuleType) -> PendingRead:
    """:func:`read_ranges`, started: the reads and copies run on the reader threads while the caller goes on (the
    Parquet decoder plans its columns meanwhile). The caller must not start another device read before calling
    the result's ``result()``: the reader threads' pinned buffer is held until then."""
    pieces = []  # (file offset, length, offset in the output)
    at = 0
    for offset, length in ranges.tolist():
        for lo in range(0, length, PIECE):
            pieces.append((offset + lo, min(PIECE, length - lo), at + lo))
        at += length
    if xp is np:
        host = np.empty(total, dtype=np.uint8)
        _pread_all(path, pieces, host, None).result()
        return PendingRead(lambda: host)
    import cupy as cp
    import cupyx

    device = cp.empty(max(total, 1), dtype=np.uint8)[:total]
    # The copies run on other streams: the memory pool may have handed out a block that kernels still queued on
    # this stream used before it was freed.
    caller = cp.cuda.get_current_stream()
    caller.synchronize()
    ready = caller.record()  # (already complete: the worker threads' streams wait on nothing more)
    streams: set = set()  # the worker threads' streams that copied a piece

    def release() -> None:  # every copy is done before the pinned buffer is let go (or the bytes are used)
        try:
            _synchronize_all(list(streams))
        finally:
            _pinned_lock.release()

    _pinned_lock.acquire()  # released by the PendingRead's result()
    try:
        if _pinned[0] is None or _pinned[0].size < total:
            grown = max(total, 1, 2 * (0 if _pinned[0] is None else _pinned[0].size))
            _pinned[0] = None
            _pinned[0] = cupyx.empty_pinned(grown, dtype=np.uint8)
        host = _pinned[0]

        def to_device(lo: int, n: int) -> None:
            # Queued, not waited for: the thread goes on to its next read while the copy runs (each piece has its own
            # bytes of the pinned buffer, which no one writes again before the copies below are done).
            stream = _transfer._thread_stream(cp, after=ready)[0]  # this worker thread's non-blocking stream
            cp.cuda.runtime.memcpyAsync(device.data.ptr + lo, host.ctypes.data + lo, n,
                                        cp.cuda.runtime.memcpyHostToDevice, stream.ptr)  # fmt: skip
            streams.add(stream)

        reads = _pread_all(path, pieces, host, to_device)
    except BaseException:
        release()  # (copies already queued read the pinned buffer)
        raise

    def finish() -> Any:
        try:
            reads.result()
        finally:
            release()
        return device

    return PendingRead(finish)


def _synchronize_all(streams: list) -> None:
    """Wait for every stream, even when waiting for one fails (the first failure is raised after)."""
    failure = None
    for stream in streams:
        try:
            stream.synchronize()
        except Exception as error:  # noqa: BLE001 - re-raised below, once all are waited for
            failure = failure or error
    if failure is not None:
        raise failure


def _reader_pool() -> concurrent.futures.ThreadPoolExecutor:
    """The readers' long-lived threads (new ones per call cost milliseconds and, on the GPU, a CUDA stream each)."""
    with _pool_lock:
        if _pool[0] is None:
            _pool[0] = concurrent.futures.ThreadPoolExecutor(min(16, os.cpu_count() or 1),
                                                             thread_name_prefix="riptide-read")  # fmt: skip
        return _pool[0]


def _pread_all(path: str, pieces: list, host: np.ndarray, then: Any) -> PendingRead:
    """The pieces read into ``host`` on the reader threads (``then(at, length)`` after each); the PendingRead's
    ``result()`` waits for them all, then closes the file."""
    fd = os.open(path, os.O_RDONLY)

    def read(piece: tuple[int, int, int]) -> None:
        offset, length, at = piece
        view = memoryview(host[at : at + length])
        done = 0
        while done < length:
            got = os.preadv(fd, [view[done:]], offset + done)
            if got <= 0:
                raise OSError(f"short read of {path}")
            done += got
        if then is not None:
            then(at, length)

    futures: list = []

    def finish() -> None:
        try:
            _transfer._wait_all(futures)  # every submitted read is done before the file is closed
        finally:
            os.close(fd)

    try:
        if len(pieces) <= 1:
            for piece in pieces:
                read(piece)
        else:
            pool = _reader_pool()
            for piece in pieces:
                futures.append(pool.submit(read, piece))
    except BaseException:
        finish()
        raise
    return PendingRead(finish)
