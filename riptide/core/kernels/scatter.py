"""Scatter-reduce: ``target[indices[i]] op= values[i]`` for repeated indices, on NumPy and CuPy alike.

Both namespaces spell it ``ufunc.at`` (atomics on the device). When the target is small (a few
thousand slots: a groupby with few groups), millions of rows hitting the same few addresses
serialize on the device's atomics; :func:`scatter_add` then accumulates each thread block's rows in
shared memory first and adds one partial sum per block and slot to the target.

>>> t = np.zeros(3, dtype=np.int64)
>>> scatter_add(t, np.array([0, 2, 2]), np.array([1, 5, 6]), np)
>>> t.tolist()
[1, 0, 11]
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

__all__ = ["scatter_add", "scatter_min", "scatter_max", "next_rows"]

_SHARED_SLOTS = 4096  # slots a block can keep in shared memory (8 bytes each: 32 KiB)
_SHARED_TYPES = {np.dtype(np.float64): "double", np.dtype(np.int64): "unsigned long long",
                 np.dtype(np.uint64): "unsigned long long", np.dtype(np.float32): "float",
                 np.dtype(np.int32): "int"}  # fmt: skip


def scatter_add(target: Any, indices: Any, values: Any, xp: types.ModuleType) -> None:
    """``target[indices] += values``, accumulating repeated indices (``values`` may be a scalar-like array)."""
    if xp is not np and target.shape[0] <= _SHARED_SLOTS and target.dtype in _SHARED_TYPES:
        _privatized_add(target, indices, values, xp)
        return
    if xp is np:
        target, indices, values = (_numpy_own_dtype(a) for a in (target, indices, values))  # views: target is written
    xp.add.at(target, indices, values)


def _numpy_own_dtype(array: Any) -> Any:
    """``array`` viewed with NumPy's own instance of its dtype.

    NumPy's ``ufunc.at`` runs a slow, buffered loop (30x measured) when an operand's dtype is an equal but distinct
    instance, which is what unpickling gives: the columns of a partition a Dask worker received.
    """
    if not isinstance(array, np.ndarray) or array.dtype.kind not in "biuf":
        return array
    own = np.dtype(array.dtype.str)
    return array if array.dtype is own else array.view(own)


def scatter_min(target: Any, indices: Any, values: Any, xp: types.ModuleType) -> None:
    """``target[indices] = minimum(target[indices], values)``, over repeated indices (no NaN among ``values``)."""
    _scatter_extreme(xp.minimum, target, indices, values, xp)


def scatter_max(target: Any, indices: Any, values: Any, xp: types.ModuleType) -> None:
    """``target[indices] = maximum(target[indices], values)``, over repeated indices (no NaN among ``values``)."""
    _scatter_extreme(xp.maximum, target, indices, values, xp)


def _scatter_extreme(ufunc: Any, target: Any, indices: Any, values: Any, xp: types.ModuleType) -> None:
    if xp is np:
        ufunc.at(*(_numpy_own_dtype(a) for a in (target, indices, values)))  # views: target is written
        return
    if target.dtype.kind in "biu" and target.dtype.itemsize < 4:
        # CuPy's min/max-at takes 32- and 64-bit types only: widen, reduce, narrow back (values fit by construction).
        wide = target.astype(np.int32)
        ufunc.at(wide, indices, xp.asarray(values).astype(np.int32))
        target[...] = wide.astype(target.dtype)
        return
    if target.dtype.kind != "f":
        ufunc.at(target, indices, values)
        return
    # CuPy's float64 min/max-at loses precision (measured on CuPy 14: results rounded to float32). Floats order
    # like their bit patterns once negative ones have their magnitude bits flipped: do it in exact int64 atomics.
    keys = ordered_int(target.astype(np.float64), xp)
    ufunc.at(keys, indices, ordered_int(xp.asarray(values, dtype=np.float64), xp))
    target[...] = from_ordered_int(keys, xp).astype(target.dtype)


def ordered_int(floats: Any, xp: types.ModuleType) -> Any:
    """float64 values as int64 words that order as the floats do (negative ones get their magnitude bits flipped)."""
    bits = floats.view(np.int64)
    return bits ^ ((bits >> 63) & np.int64(0x7FFFFFFFFFFFFFFF))


def from_ordered_int(keys: Any, xp: types.ModuleType) -> Any:
    """The float64 values back from :func:`ordered_int` words."""
    bits = keys ^ ((keys >> 63) & np.int64(0x7FFFFFFFFFFFFFFF))
    return bits.view(np.float64)


@functools.cache
def _privatized_kernel(value_type: str, index_type: str) -> Any:
    import cupy as cp

    source = f"""
extern "C" __global__ void scatter_add_shared(const {index_type}* __restrict__ indices,
        const {value_type}* __restrict__ values, const long long n, {value_type}* target, const int slots) {{
    extern __shared__ unsigned char raw[];
    {value_type}* partial = ({value_type}*)raw;
    for (int s = threadIdx.x; s < slots; s += blockDim.x) partial[s] = 0;
    __syncthreads();
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        atomicAdd(&partial[indices[i]], values[i]);
    __syncthreads();
    for (int s = threadIdx.x; s < slots; s += blockDim.x)
        if (partial[s] != 0) atomicAdd(&target[s], partial[s]);
}}
"""
    return cp.RawKernel(source, "scatter_add_shared")


def _privatized_add(target: Any, indices: Any, values: Any, xp: types.ModuleType) -> None:
    n = indices.shape[0]
    if n == 0:
        return
    values = xp.broadcast_to(xp.asarray(values, dtype=target.dtype), (n,))
    values = xp.ascontiguousarray(values)
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(np.int64)
    indices = xp.ascontiguousarray(indices)
    value_type = _SHARED_TYPES[target.dtype]
    index_type = "int" if indices.dtype == np.int32 else "long long"
    kernel = _privatized_kernel(value_type, index_type)
    as_unsigned = target.view(np.uint64) if target.dtype == np.int64 else target  # int64 adds as two's complement
    values = values.view(np.uint64) if values.dtype == np.int64 else values
    threads = 256
    blocks = min(max(1, (n + threads - 1) // threads), 2 * 132 * 4)
    kernel((blocks,), (threads,), (indices, values, np.int64(n), as_unsigned, np.int32(target.shape[0])),
           shared_mem=target.shape[0] * target.dtype.itemsize)  # fmt: skip


# --------------------------------------------------------------------------- next row of each group


def next_rows(ids: Any, n_groups: int, previous: Any, from_end: bool, xp: types.ModuleType) -> Any:
    """Per group ``g``: the first row number ``r`` (``from_end``: the last) with ``ids[r] == g`` after (before)
    ``previous[g]``; ``n`` (-1) when there is none. ``previous`` None: no bound. Rows with ``ids < 0`` are skipped.

    Called with the previous answer, it walks every group's rows from either end, one scatter pass per step,
    reading the row numbers where it needs them instead of from an array of them.

    >>> ids = np.array([1, 0, 1, -1, 1])
    >>> first = next_rows(ids, 2, None, False, np)
    >>> first.tolist(), next_rows(ids, 2, first, False, np).tolist()
    ([1, 0], [5, 2])
    """
    n = int(ids.shape[0])
    best = xp.full(n_groups, -1 if from_end else n, dtype=np.int64)
    if n == 0 or n_groups == 0:
        return best
    if xp is not np:
        bound = best if previous is None else previous  # (a placeholder the kernel does not read when unbounded)
        _next_rows_kernel()(ids, bound, previous is not None, from_end, best)
        return best
    rows = np.arange(n, dtype=np.int64)
    keep = ids >= 0
    if previous is not None:
        bound = previous[np.where(keep, ids, 0)]
        keep &= (rows < bound) if from_end else (rows > bound)
    (np.maximum if from_end else np.minimum).at(best, ids[keep], rows[keep])
    return best


@functools.cache
def _next_rows_kernel() -> Any:
    import cupy as cp

    return cp.ElementwiseKernel(
        "S slot, raw int64 previous, bool bounded, bool from_end", "raw int64 best",
        """
        if (slot >= 0) {
            const long long row = i;
            if (from_end) {
                if (!bounded || row < previous[slot]) atomicMax(&best[slot], row);
            } else if (!bounded || row > previous[slot]) {
                atomicMin(&best[slot], row);
            }
        }
        """,
        "riptide_next_rows",
    )  # fmt: skip
