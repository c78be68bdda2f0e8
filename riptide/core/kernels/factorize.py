"""Factorize a column: dense integer codes in sorted order of the distinct values.

``factorize(column) -> (codes, n_distinct)``: ``codes[i]`` is the rank of row i's value
among the distinct non-missing values, -1 for missing rows. Strings are ordered by
packing their UTF-8 bytes into big-endian uint64 words and sorting those words (plus
the length, which separates ``"a"`` from ``"a\\x00"``) with a lexicographic sort: the
same order as Python's ``str`` comparison, with no per-row loop.

On NumPy a string column is factorized by pyarrow instead (a CPU-specific fast path, chosen by the namespace):
Arrow's hash-based ``dictionary_encode`` over the column's own buffers (no copy) finds the distinct values in
one pass, and sorting only those (Arrow compares binary values byte by byte, the same order) turns the
dictionary indices into ranks. The word-by-word sort builds several int64 arrays per byte, which on the host
costs far more than the hash table; on the GPU it stays, since it has no host round trip.

>>> import numpy as np
>>> from riptide.core.column import NumericColumn
>>> codes, n = factorize(NumericColumn(np.array([3.0, 1.0, np.nan, 3.0])))
>>> codes.tolist(), n
([1, 0, -1, 1], 2)
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

from riptide.core.kernels.scatter import scatter_add
from riptide.core.kernels.segments import row_of_each_element
from riptide.core.kernels.sort import lexsort

__all__ = ["factorize", "string_sort_keys", "sorted_group_codes", "rank_distinct_strings"]


def factorize(column: Any) -> tuple[Any, int]:
    """Codes (int64, -1 for missing) and the number of distinct non-missing values."""
    from riptide.core.column import CategoricalColumn, NumericColumn, StringColumn

    xp = column.xp
    if xp is np and isinstance(column, StringColumn):
        return _factorize_strings_host(column)
    missing = column.isna() if column.can_hold_missing() else None
    if isinstance(column, CategoricalColumn):
        keys = [column.codes.astype(np.int64)]
    elif isinstance(column, StringColumn):
        keys = string_sort_keys(column, xp)
    else:
        assert isinstance(column, NumericColumn)
        keys = [column.data]
    if missing is None or not bool(missing.any()):
        return sorted_group_codes(keys, xp)
    keep = xp.flatnonzero(~missing)
    codes_valid, n = sorted_group_codes([k[keep] for k in keys], xp)
    codes = xp.full(column.size, -1, dtype=np.int64)
    codes[keep] = codes_valid
    return codes, n


def _factorize_strings_host(column: Any) -> tuple[Any, int]:
    """:func:`factorize` of a NumPy-backed StringColumn by pyarrow: hash the rows, sort the distinct values."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = column.size
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    validity, null_count = None, 0
    if column.mask is not None:
        null_count = n - int(np.count_nonzero(column.mask))
        if null_count:
            validity = pa.py_buffer(np.packbits(column.mask, bitorder="little"))
    offsets = np.ascontiguousarray(column.offsets, dtype=np.int64)
    binary = pa.Array.from_buffers(pa.large_binary(), n,
                                   [validity, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(column.chars))],
                                   null_count)  # fmt: skip
    encoded = pc.dictionary_encode(binary)
    n_distinct = len(encoded.dictionary)
    rank = np.empty(n_distinct + 1, dtype=np.int64)
    order = pc.array_sort_indices(encoded.dictionary).to_numpy()  # byte-wise order: Python's str order
    rank[order] = np.arange(n_distinct, dtype=np.int64)
    rank[n_distinct] = -1  # a missing row's index is filled with n_distinct: its code is -1
    indices = pc.fill_null(encoded.indices, n_distinct).to_numpy()
    return rank[indices], n_distinct


def sorted_group_codes(keys: list[Any], xp: types.ModuleType) -> tuple[Any, int]:
    """Dense codes of the rows of ``keys`` (most significant key first), in sorted key order."""
    n = keys[0].shape[0]
    if n == 0:
        return xp.zeros(0, dtype=np.int64), 0
    if len(keys) == 1:
        if xp is np and keys[0].dtype.kind in "iub":
            dense = _dense_codes_host(keys[0])
            if dense is not None:
                return dense
        uniques, inverse = xp.unique(keys[0], return_inverse=True)
        return inverse.astype(np.int64, copy=False).reshape(-1), int(uniques.shape[0])
    order = lexsort(keys, xp)
    starts = xp.zeros(n, dtype=bool)
    starts[0] = True
    for key in keys:
        ordered = key[order]
        starts[1:] |= ordered[1:] != ordered[:-1]
    group_of_sorted = xp.cumsum(starts) - 1
    codes = xp.empty(n, dtype=np.int64)
    codes[order] = group_of_sorted
    return codes, int(group_of_sorted[-1]) + 1


def _dense_codes_host(key: np.ndarray) -> tuple[np.ndarray, int] | None:
    """NumPy only: dense sorted codes of integer (or bool) ``key`` whose values span a small range (at most
    ``max(2 * len, 2**16)`` values), by counting instead of sorting: mark the values present, number them with a
    prefix sum, read each row's number. The codes ``unique(..., return_inverse=True)`` gives; None for a wide range.
    """
    n = key.shape[0]
    if key.dtype.kind == "b":
        key = key.view(np.uint8)
    low, high = int(key.min()), int(key.max())
    span = high - low + 1
    if span > max(2 * n, 1 << 16):
        return None
    # the differences are below span, so they fit whatever the key's type (signed keys are widened first)
    wide = key.astype(np.int64, copy=False) if key.dtype.kind == "i" else key
    shifted = (wide - wide.dtype.type(low) if low else wide).astype(np.intp, copy=False)
    present = np.bincount(shifted, minlength=span) > 0
    rank = np.cumsum(present) - 1
    return rank[shifted].astype(np.int64, copy=False), int(rank[-1]) + 1


def string_sort_keys(column: Any, xp: types.ModuleType) -> list[Any]:
    """uint64 words (8 bytes each, big-endian, zero-padded) of every row, then the byte length.

    Comparing the returned keys in order compares the strings as Python does.
    """
    n = column.size
    lengths = column.offsets[1:] - column.offsets[:-1]
    max_len = int(lengths.max()) if n else 0  # one scalar read: the number of key words
    n_words = max(1, -(-max_len // 8))
    words = xp.zeros(n_words * n, dtype=np.uint64)
    if column.chars.shape[0]:
        rows = row_of_each_element(column.offsets, xp)
        position = xp.arange(rows.shape[0], dtype=np.int64) - column.offsets[:-1][rows]
        shift = (56 - 8 * (position % 8)).astype(np.uint64)
        contribution = column.chars[: rows.shape[0]].astype(np.uint64) << shift
        slot = (position // 8) * n + rows
        # Bits of different bytes never overlap, so adding them is OR-ing them.
        scatter_add(words, slot, contribution, xp)
    keys = [words[w * n : (w + 1) * n] for w in range(n_words)]
    keys.append(lengths.astype(np.int64))
    return keys



# At most this many distinct strings are ranked by comparing every pair in one kernel (a few million byte-string
# comparisons): for the keys of a groupby with few groups that beats the word-by-word sort's dozens of launches.
_PAIRWISE_MAX = 2048

_RANK_STRINGS = r"""
extern "C" __global__ void rank_distinct_strings(const long long* offsets, const unsigned char* chars,
        const bool* valid, const long long* rows, const long long d, long long* rank) {
    // One block per string i: its threads compare it with the others (strided), then sum their counts.
    const long long i = blockIdx.x;
    const long long ri = rows[i];
    const bool missing_i = valid != nullptr && !valid[ri];
    const unsigned char* a = chars + offsets[ri];
    const long long la = offsets[ri + 1] - offsets[ri];
    long long before = 0;
    for (long long j = threadIdx.x; j < d; j += blockDim.x) {
        const long long rj = rows[j];
        if (j == i || (valid != nullptr && !valid[rj])) continue;  // a missing value sorts last
        if (missing_i) { ++before; continue; }
        const unsigned char* b = chars + offsets[rj];
        const long long lb = offsets[rj + 1] - offsets[rj];
        const long long common = la < lb ? la : lb;
        long long k = 0;
        while (k < common && a[k] == b[k]) ++k;
        before += (k < common) ? (b[k] < a[k]) : (lb < la);
    }
    for (int delta = 16; delta > 0; delta /= 2) before += __shfl_down_sync(0xffffffffu, before, delta);
    __shared__ long long warp_counts[32];
    if ((threadIdx.x & 31) == 0) warp_counts[threadIdx.x / 32] = before;
    __syncthreads();
    if (threadIdx.x == 0) {
        long long total = 0;
        for (unsigned int w = 0; w < blockDim.x / 32; ++w) total += warp_counts[w];
        rank[i] = total;
    }
}
"""


def rank_distinct_strings(column: Any, rows: Any) -> Any:
    """The rank (int64) of each of ``rows`` among them, for rows of a StringColumn that hold distinct values (at
    most one missing, which ranks last): the sorted order of a hash table's distinct keys, by one pairwise kernel
    (a block per row, so that a few hundred rows still fill the GPU).

    None where that kernel does not apply (the NumPy path, or more than ``_PAIRWISE_MAX`` rows): sort instead.
    """
    xp = column.xp
    d = int(rows.shape[0])
    if xp is np or d > _PAIRWISE_MAX or d == 0:
        return None
    kernel = _rank_strings_kernel()
    rank = xp.empty(d, dtype=np.int64)
    valid = column.mask if column.mask is not None else np.uint64(0)  # a null pointer: no missing values
    threads = 128  # a multiple of 32 (the kernel sums per warp)
    kernel((d,), (threads,),
           (column.offsets, column.chars, valid, rows.astype(np.int64, copy=False), np.int64(d), rank))  # fmt: skip
    return rank


@functools.cache
def _rank_strings_kernel() -> Any:
    import cupy as cp

    return cp.RawKernel(_RANK_STRINGS, "rank_distinct_strings")
