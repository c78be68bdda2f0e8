"""Segmented layouts (strings, lists): map bytes to rows and gather variable-length rows.

A segmented buffer is ``values`` cut by ``offsets`` (n+1 non-decreasing ints):
row ``i`` is ``values[offsets[i]:offsets[i+1]]``.
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

from riptide import _device

__all__ = ["row_of_each_element", "take_offsets", "segment_positions", "gather_segments", "take_pieces_host",
           "run_end", "pieces_to_host"]


def row_of_each_element(offsets: Any, xp: types.ModuleType) -> Any:
    """For a segmented buffer of ``offsets[-1]`` elements, the row each element belongs to.

    >>> row_of_each_element(np.array([0, 2, 2, 5]), np).tolist()
    [0, 0, 2, 2, 2]
    """
    if xp is np:  # NumPy repeats by per-row counts directly; CuPy's repeat takes no array of counts
        return np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int64), np.diff(offsets))
    total = int(offsets[-1])  # one scalar read: the output size
    positions = xp.arange(total, dtype=np.int64)
    # side="right" skips empty rows: element k belongs to the last row starting at or before k.
    return xp.searchsorted(offsets[1:], positions, side="right")


def take_offsets(offsets: Any, indices: Any, xp: types.ModuleType) -> tuple[Any, Any]:
    """For rows ``indices`` of a segmented buffer: each row's start in the old buffer and the new offsets.

    >>> [a.tolist() for a in take_offsets(np.array([0, 2, 2, 5]), np.array([2, 0]), np)]
    [[2, 0], [0, 3, 5]]
    """
    if xp is np:
        new_offsets = np.zeros(indices.shape[0] + 1, dtype=np.int64)
        indices = indices.astype(np.int64, copy=False)
        starts = offsets[:-1][indices]
        np.cumsum(offsets[1:][indices] - starts, out=new_offsets[1:])
        return starts, new_offsets
    m = indices.shape[0]
    offsets, indices = xp.ascontiguousarray(offsets, dtype=np.int64), xp.ascontiguousarray(indices, dtype=np.int64)
    if m <= _SMALL_TAKE:  # one block finds the spans and sums them up: one launch where the general path takes six
        starts, new_offsets = xp.empty(m, dtype=np.int64), xp.empty(m + 1, dtype=np.int64)
        _small_take_kernel()((1,), (_SMALL_TAKE_THREADS,),
                             (offsets, np.int64(offsets.shape[0] - 1), indices, np.int64(m), starts, new_offsets))
        return starts, new_offsets
    # One pass for the starts and lengths, where slicing, gathering and subtracting take five.
    starts, lengths = xp.empty(m, dtype=np.int64), xp.empty(m, dtype=np.int64)
    new_offsets = xp.zeros(m + 1, dtype=np.int64)
    _launch(_spans_kernel(), m, (offsets, np.int64(offsets.shape[0] - 1), indices, np.int64(m), starts, lengths))
    xp.cumsum(lengths, out=new_offsets[1:])
    return starts, new_offsets


def segment_positions(starts: Any, new_offsets: Any, xp: types.ModuleType) -> Any:
    """Position in the old buffer of every element of the gathered rows (see :func:`take_offsets`).

    >>> segment_positions(np.array([2, 0]), np.array([0, 3, 5]), np).tolist()
    [2, 3, 4, 0, 1]
    """
    if xp is np:
        # Each output element's source is its output position shifted by its row's (start - new offset).
        shift = np.repeat(starts - new_offsets[:-1], np.diff(new_offsets))
        return shift + np.arange(shift.shape[0], dtype=np.int64)
    rows = row_of_each_element(new_offsets, xp)
    return starts[rows] + (xp.arange(rows.shape[0], dtype=np.int64) - new_offsets[:-1][rows])


def gather_segments(values: Any, starts: Any, new_offsets: Any, xp: types.ModuleType, total: int | None = None) -> Any:
    """Concatenate ``values[starts[r] : starts[r] + len_r]`` for each output row r.

    ``new_offsets`` (n+1) are the output offsets, so ``len_r = new_offsets[r+1] - new_offsets[r]``; ``total``, when
    the caller knows it, is ``new_offsets[-1]`` (else it is read from the device).

    >>> gather_segments(np.frombuffer(b"abcdef", np.uint8), np.array([4, 0]), np.array([0, 2, 5]), np).tobytes()
    b'efabc'
    """
    if total is None:
        total = int(new_offsets[-1])  # one scalar read: the output size
    if total == 0:
        return xp.zeros(0, dtype=values.dtype)
    if xp is np:
        return values[segment_positions(starts, new_offsets, xp)]
    # One kernel copies each row's segment: ``lanes`` threads per row, more for longer rows (coalesced copies).
    n_rows = new_offsets.shape[0] - 1
    average = total // max(n_rows, 1)
    lanes = 1 if average <= 16 else 8 if average <= 128 else 32
    values = xp.ascontiguousarray(values)
    out = xp.empty(total, dtype=values.dtype)
    _launch(_gather_kernel(values.dtype.itemsize), n_rows * lanes,
            (values, xp.ascontiguousarray(starts, dtype=np.int64), xp.ascontiguousarray(new_offsets, dtype=np.int64),
             np.int64(n_rows), np.int32(lanes), out))  # fmt: skip
    return out


def _launch(kernel: Any, work: int, args: tuple) -> None:
    from riptide.core.kernels.hashing import launch

    launch(kernel, work, args)


_GATHER_SEGMENTS = r"""
extern "C" __global__ void riptide_gather_segments(const SEGMENT_T* __restrict__ values, const long long* __restrict__ starts,
        const long long* __restrict__ new_offsets, const long long n_rows, const int lanes, SEGMENT_T* __restrict__ out) {
    const long long work = n_rows * lanes;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < work; t += (long long)gridDim.x * blockDim.x) {
        const long long row = t / lanes;
        const long long begin = new_offsets[row], length = new_offsets[row + 1] - begin;
        const SEGMENT_T* source = values + starts[row];
        for (long long k = t % lanes; k < length; k += lanes) out[begin + k] = source[k];
    }
}
"""
_BIT_TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}


@functools.cache
def _gather_kernel(itemsize: int) -> Any:
    """The segment copy for elements of ``itemsize`` bytes (copied as bits, whatever their dtype)."""
    import cupy as cp

    return cp.RawKernel(f"typedef {_BIT_TYPES[itemsize]} SEGMENT_T;\n" + _GATHER_SEGMENTS, "riptide_gather_segments")


_TAKE_SPANS = r"""
extern "C" __global__ void riptide_take_spans(const long long* __restrict__ offsets, const long long n,
        const long long* __restrict__ indices, const long long m, long long* __restrict__ starts,
        long long* __restrict__ lengths) {
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += (long long)gridDim.x * blockDim.x) {
        const long long row = indices[r] < 0 ? indices[r] + n : indices[r];  // from the end, as NumPy's take
        starts[r] = offsets[row];
        lengths[r] = offsets[row + 1] - starts[r];
    }
}
"""


# Takes of at most this many rows (a groupby's keys, a head) run in one block of _SMALL_TAKE_THREADS threads, each
# summing a run of _SMALL_TAKE / _SMALL_TAKE_THREADS consecutive rows before the block's scan of the runs.
_SMALL_TAKE_THREADS = 256
_SMALL_TAKE = 16 * _SMALL_TAKE_THREADS

SMALL_TAKE_SOURCE = r"""
extern "C" __global__ void riptide_take_spans_small(const long long* __restrict__ offsets, const long long n,
        const long long* __restrict__ indices, const long long m, long long* __restrict__ starts,
        long long* __restrict__ new_offsets) {
    // new_offsets[0] = 0, new_offsets[r + 1] = the lengths of rows 0..r; blockDim.x threads, one run of rows each.
    __shared__ long long run_total[1024];
    const long long per_thread = (m + blockDim.x - 1) / blockDim.x;
    const long long first = threadIdx.x * per_thread, last = first + per_thread < m ? first + per_thread : m;
    long long total = 0;
    for (long long r = first; r < last; ++r) {
        const long long row = indices[r] < 0 ? indices[r] + n : indices[r];  // from the end, as NumPy's take
        starts[r] = offsets[row];
        total += offsets[row + 1] - starts[r];
    }
    run_total[threadIdx.x] = total;
    __syncthreads();
    for (unsigned int step = 1; step < blockDim.x; step <<= 1) {  // inclusive scan of the runs' totals
        const long long before = threadIdx.x >= step ? run_total[threadIdx.x - step] : 0;
        __syncthreads();
        run_total[threadIdx.x] += before;
        __syncthreads();
    }
    long long position = run_total[threadIdx.x] - total;
    if (threadIdx.x == 0) new_offsets[0] = 0;
    for (long long r = first; r < last; ++r) {
        const long long row = indices[r] < 0 ? indices[r] + n : indices[r];
        position += offsets[row + 1] - starts[r];
        new_offsets[r + 1] = position;
    }
}
"""


@functools.cache
def _small_take_kernel() -> Any:
    import cupy as cp

    return cp.RawKernel(SMALL_TAKE_SOURCE, "riptide_take_spans_small")


@functools.cache
def _spans_kernel() -> Any:
    """Start and length of each taken row."""
    import cupy as cp

    return cp.RawKernel(_TAKE_SPANS, "riptide_take_spans")


def take_pieces_host(buffer: np.ndarray, cuts: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """NumPy only: the pieces ``buffer[cuts[j] : cuts[j + 1]]`` for ``j`` in ``indices``, concatenated; returns their
    offsets (``len(indices) + 1``, from 0) and bytes. ``cuts`` must be non-decreasing (consecutive pieces of the
    buffer, a layout Arrow accepts as a binary array).

    A CPU-specific fast path, chosen by callers on NumPy: Arrow's binary ``take`` copies each piece with one
    ``memcpy``, where :func:`gather_segments` first builds an int64 source position for every output byte (the
    formulation that suits the GPU).

    >>> buffer = np.frombuffer(b"abcdef", np.uint8)
    >>> [a.tolist() for a in take_pieces_host(buffer, np.array([0, 2, 5, 6]), np.array([2, 0]))]
    [[0, 1, 3], [102, 97, 98]]
    """
    import pyarrow as pa

    n_pieces = cuts.shape[0] - 1
    cuts = np.ascontiguousarray(cuts, dtype=np.int64)
    buffer = np.ascontiguousarray(buffer, dtype=np.uint8)
    source = pa.Array.from_buffers(pa.large_binary(), n_pieces, [None, pa.py_buffer(cuts), pa.py_buffer(buffer)])
    taken = source.take(pa.array(np.asarray(indices, dtype=np.int64)))
    n = len(taken)
    _, offsets_buf, chars_buf = taken.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int64, count=n + 1, offset=taken.offset * 8)
    first, last = int(offsets[0]), int(offsets[-1])
    if first:
        offsets = offsets - first
    chars = (np.frombuffer(chars_buf, dtype=np.uint8)[first:last] if chars_buf is not None and last > first
             else np.zeros(0, dtype=np.uint8))  # fmt: skip
    return offsets, chars


def run_end(flags: Any, pos: Any, ends: Any, xp: types.ModuleType) -> Any:
    """Per row, the first position at or after ``pos`` whose element is not flagged, at most the row's end
    ``ends`` (``flags`` covers the whole buffer): the end of a run of digits, blanks, ... starting at ``pos``.

    >>> is_digit = np.frombuffer(b"12a345", np.uint8) < 58
    >>> run_end(is_digit, np.array([0, 3]), np.array([3, 6]), np).tolist()
    [2, 6]
    """
    total = flags.shape[0]
    stops = xp.concatenate([xp.flatnonzero(~flags), xp.asarray(np.array([total], dtype=np.int64))])
    nxt = stops[xp.searchsorted(stops, xp.clip(pos, 0, total), side="left")]
    return xp.minimum(nxt, xp.maximum(ends, pos))


def pieces_to_host(values: Any, starts: Any, ends: Any, xp: types.ModuleType) -> list[bytes]:
    """The pieces ``values[starts[i] : ends[i]]`` of a uint8 buffer as Python ``bytes`` on the host: one gather on
    the device, then one copy of just those bytes and their bounds (for the few rows a device parser leaves to
    Python).

    >>> pieces_to_host(np.frombuffer(b"abcdef", np.uint8), np.array([4, 0]), np.array([6, 2]), np)
    [b'ef', b'ab']
    """
    new_offsets = xp.zeros(starts.shape[0] + 1, dtype=np.int64)
    xp.cumsum(ends - starts, out=new_offsets[1:])
    data = _device.to_host(gather_segments(values, starts, new_offsets, xp)).tobytes()
    bounds = _device.to_host(new_offsets).tolist()
    return [data[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1)]
