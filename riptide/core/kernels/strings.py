"""Whole-column string kernels: compare and concatenate (written against ``xp``), and CUDA search / case kernels.

They work byte-wise over the Arrow layout (offsets + UTF-8 bytes): comparing bytes of
UTF-8 gives the same order as comparing code points, which is Python's ``str`` order.

The CUDA kernels (CuPy only; :mod:`riptide.core.ops.string_ops` keeps the xp formulation as the CPU path and the
reference) replace whole-array formulations that materialise per-byte int64 arrays, ten to twenty passes over the
column, by one pass that reads each byte once and writes the result directly:

* :func:`find_literal` (``contains`` without a regex): one thread per row slides a window of the last 8 bytes
  (a ``uint64``) over the row, read four aligned bytes at a time, and compares it with the pattern under a mask;
  a longer pattern compares its first byte, then the rest. Rows longer than ``_WARP_ROW_BYTES`` on average take a
  warp per row instead (32 positions at a time, coalesced, a warp vote to stop at the first hit).
* :func:`match_affixes` (``startswith`` / ``endswith`` with one pattern or a tuple): one thread per row compares the
  row's first (last) bytes with each pattern.
* :func:`has_non_ascii` and :func:`map_ascii_bytes`: one pass over the bytes, eight (four) at a time, raising a device
  flag on a byte >= 0x80; the second also writes every byte through a 256-entry map (ASCII case mapping), so a
  pure-ASCII column is converted in the same pass that proves it ASCII.

Missing rows are folded in: a row whose ``valid`` entry is False gets ``fill``. Every aligned word the kernels read
holds at least one byte of the buffer, so it lies inside the (512-byte granular) allocation.
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

from riptide.core.kernels.segments import row_of_each_element

__all__ = ["compare", "concatenate", "find_literal", "match_affixes", "has_non_ascii", "map_ascii_bytes",
           "SEARCH_SOURCE", "BYTES_SOURCE"]


def _as_bytes(value: str, xp: types.ModuleType) -> Any:
    return xp.asarray(np.frombuffer(value.encode(), dtype=np.uint8))


def compare(left: Any, right: Any, xp: types.ModuleType) -> Any:
    """Per row -1 / 0 / 1 as ``left`` sorts before / equal to / after ``right`` (a StringColumn or str).

    Missing rows are compared by their stored bytes; callers apply the mask.

    >>> from riptide.core.column import StringColumn
    >>> import pyarrow as pa
    >>> col = StringColumn.from_arrow(pa.array(["a", "b", "ab", ""]), np)
    >>> compare(col, "ab", np).tolist()
    [-1, 1, 0, -1]
    """
    if xp is np:
        return _compare_host(left, right)
    n = left.size
    left_len = left.offsets[1:] - left.offsets[:-1]
    if isinstance(right, str):
        right_bytes = _as_bytes(right, xp)
        right_len = xp.full(n, right_bytes.shape[0], dtype=np.int64)
        right_start = xp.zeros(n, dtype=np.int64)
        right_chars = right_bytes
    else:
        right_len = right.offsets[1:] - right.offsets[:-1]
        right_start = right.offsets[:-1]
        right_chars = right.chars
    common = xp.minimum(left_len, right_len)
    common_offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(common, out=common_offsets[1:])
    # Start from the length comparison; rows with a differing common byte override it below.
    order = xp.sign(left_len - right_len).astype(np.int8)
    if n == 0 or int(common_offsets[-1]) == 0:
        return order
    rows = row_of_each_element(common_offsets, xp)
    position = xp.arange(rows.shape[0], dtype=np.int64) - common_offsets[:-1][rows]
    a = left.chars[left.offsets[:-1][rows] + position]
    b = right_chars[right_start[rows] + position]
    differs = a != b
    diff_at = xp.flatnonzero(differs)
    if diff_at.shape[0] == 0:
        return order
    # diff_at is ascending, so a row's first differing byte is its first entry in rows[diff_at].
    diff_rows = rows[diff_at]
    leading = xp.ones(diff_rows.shape[0], dtype=bool)
    leading[1:] = diff_rows[1:] != diff_rows[:-1]
    first = xp.zeros(n, dtype=np.int64)
    has_diff = xp.zeros(n, dtype=bool)
    first[diff_rows[leading]] = diff_at[leading]
    has_diff[diff_rows[leading]] = True
    at = first
    byte_order = xp.sign(a[at].astype(np.int16) - b[at].astype(np.int16)).astype(np.int8)
    return xp.where(has_diff, byte_order, order)


def _compare_host(left: Any, right: Any) -> Any:
    """:func:`compare` on NumPy by Arrow's binary comparison kernels over the columns' own buffers (a CPU-specific
    fast path, chosen by the namespace: one ``memcmp`` per row, where the xp formulation builds int64 positions for
    every byte). Arrow orders binary values byte by byte, a prefix first: the same order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def binary(column: Any) -> Any:  # every row, the missing ones by their stored bytes
        return pa.Array.from_buffers(pa.large_binary(), column.size,
                                     [None, pa.py_buffer(np.ascontiguousarray(column.offsets, dtype=np.int64)),
                                      pa.py_buffer(np.ascontiguousarray(column.chars))])  # fmt: skip

    a = binary(left)
    b = pa.scalar(right.encode(), pa.large_binary()) if isinstance(right, str) else binary(right)
    before = pc.less(a, b).to_numpy(zero_copy_only=False)
    after = pc.greater(a, b).to_numpy(zero_copy_only=False)
    return after.astype(np.int8) - before.astype(np.int8)


def concatenate(first: Any, second: Any, xp: types.ModuleType) -> Any:
    """Row-wise ``first + second`` where either side may be a StringColumn or a str."""
    from riptide.core.column import StringColumn

    column = first if isinstance(first, StringColumn) else second
    n = column.size

    def parts(side: Any) -> tuple[Any, Any, Any]:
        if isinstance(side, str):
            data = _as_bytes(side, xp)
            return data, xp.zeros(n, dtype=np.int64), xp.full(n, data.shape[0], dtype=np.int64)
        return side.chars, side.offsets[:-1], side.offsets[1:] - side.offsets[:-1]

    a_chars, a_start, a_len = parts(first)
    b_chars, b_start, b_len = parts(second)
    offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(a_len + b_len, out=offsets[1:])
    total = int(offsets[-1])
    masks = [side.mask for side in (first, second) if isinstance(side, StringColumn) and side.mask is not None]
    mask = None if not masks else (masks[0] if len(masks) == 1 else masks[0] & masks[1])
    if total == 0:
        return StringColumn(offsets, xp.zeros(0, dtype=np.uint8), mask)
    rows = row_of_each_element(offsets, xp)
    position = xp.arange(total, dtype=np.int64) - offsets[:-1][rows]
    in_first = position < a_len[rows]
    from_a = a_chars[xp.where(in_first, a_start[rows] + position, 0)] if a_chars.shape[0] else 0
    b_pos = xp.where(in_first, 0, b_start[rows] + position - a_len[rows])
    from_b = b_chars[b_pos] if b_chars.shape[0] else 0
    chars = xp.where(in_first, from_a, from_b).astype(np.uint8)
    return StringColumn(offsets, chars, mask)



# --- CUDA kernels (CuPy only) ---------------------------------------------------------------------------------------
SEARCH_SOURCE = r"""
typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned char u8;
#ifndef LANES
#define LANES 32  // threads that share a row in the warp-per-row kernel (1 when emulated on a CPU)
#endif

__device__ __forceinline__ bool same_bytes(const u8* __restrict__ a, const u8* __restrict__ b, int m) {
    for (int k = 0; k < m; ++k)
        if (a[k] != b[k]) return false;
    return true;
}

// Does pattern (m >= 1 bytes) occur in chars[b, e)? Patterns of up to 8 bytes are compared as a sliding uint64
// window (pattern_word: the pattern's bytes, first byte most significant; window_mask: its low 8 * m bits set).
__device__ __forceinline__ bool occurs(const u8* __restrict__ chars, i64 b, i64 e, const u8* __restrict__ pattern,
                                       int m, u64 pattern_word, u64 window_mask) {
    if (e - b < m) return false;
    if (m <= 8) {
        const u8* at = chars + b;
        const u32* word = (const u32*)((size_t)at & ~(size_t)3);  // aligned words holding the row's bytes
        int k = (int)((size_t)at & 3);
        i64 left = e - b;
        u64 window = 0;
        int filled = 0;  // bytes in the window, up to m
        while (left > 0) {
            const u32 w = __ldg(word++);
            for (; k < 4 && left > 0; ++k, --left) {
                window = (window << 8) | ((w >> (8 * k)) & 0xFF);
                if (filled < m) ++filled;
                if (filled == m && (window & window_mask) == pattern_word) return true;
            }
            k = 0;
        }
        return false;
    }
    const u8 first = pattern[0];
    for (i64 p = b; p <= e - m; ++p)
        if (chars[p] == first && same_bytes(chars + p + 1, pattern + 1, m - 1)) return true;
    return false;
}

extern "C" __global__ void riptide_str_contains(const i64* __restrict__ offsets, const u8* __restrict__ chars,
        const u8* __restrict__ pattern, const int m, const u64 pattern_word, const u64 window_mask,
        const bool* __restrict__ valid, const int fill, const i64 n, bool* __restrict__ out) {
    // valid == NULL: every row is valid; an invalid row gets fill.
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
        if (valid != NULL && !valid[i]) { out[i] = fill != 0; continue; }
        out[i] = occurs(chars, offsets[i], offsets[i + 1], pattern, m, pattern_word, window_mask);
    }
}

extern "C" __global__ void riptide_str_contains_warp(const i64* __restrict__ offsets, const u8* __restrict__ chars,
        const u8* __restrict__ pattern, const int m, const bool* __restrict__ valid, const int fill, const i64 n,
        bool* __restrict__ out) {
    // LANES consecutive threads (a warp; blockDim is a multiple of it) search one row: lane j tests the start
    // positions j, j + LANES, ..., and the warp stops at the first round with a hit anywhere.
    const int lane = threadIdx.x % LANES;
    const i64 warps = ((i64)gridDim.x * blockDim.x) / LANES;
    const u8 first = pattern[0];
    for (i64 i = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / LANES; i < n; i += warps) {
        if (valid != NULL && !valid[i]) {  // the same branch for the whole warp
            if (lane == 0) out[i] = fill != 0;
            continue;
        }
        const i64 last = offsets[i + 1] - m;  // the last start position
        bool hit = false;
        for (i64 s = offsets[i]; s <= last; s += LANES) {  // the same trip count for the whole warp
            const i64 p = s + lane;
            const bool here = p <= last && chars[p] == first && same_bytes(chars + p + 1, pattern + 1, m - 1);
            if (__any_sync(0xffffffffu, here)) { hit = true; break; }
        }
        if (lane == 0) out[i] = hit;
    }
}

extern "C" __global__ void riptide_str_affixes(const i64* __restrict__ offsets, const u8* __restrict__ chars,
        const u8* __restrict__ patterns, const i64* __restrict__ pattern_offsets, const int n_patterns,
        const int at_end, const bool* __restrict__ valid, const int fill, const i64 n, bool* __restrict__ out) {
    // Does each row start (at_end: end) with any of the patterns patterns[pattern_offsets[k], [k + 1])?
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
        if (valid != NULL && !valid[i]) { out[i] = fill != 0; continue; }
        const i64 b = offsets[i], e = offsets[i + 1];
        bool hit = false;
        for (int k = 0; k < n_patterns && !hit; ++k) {
            const i64 m = pattern_offsets[k + 1] - pattern_offsets[k];
            hit = m <= e - b && same_bytes(chars + (at_end ? e - m : b), patterns + pattern_offsets[k], (int)m);
        }
        out[i] = hit;
    }
}
"""

BYTES_SOURCE = r"""
typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned char u8;

extern "C" __global__ void riptide_any_high_byte(const u8* __restrict__ chars, const i64 size, int* flag) {
    // flag = 1 when a byte is >= 0x80 (a benign race: every writer writes 1). Aligned 8-byte words in the middle,
    // single bytes before and after them.
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x, stride = (i64)gridDim.x * blockDim.x;
    i64 head = (i64)((8 - ((size_t)chars & 7)) & 7);
    if (head > size) head = size;
    const i64 n_words = (size - head) / 8;
    const u64* words = (const u64*)(chars + head);
    u64 high = 0;
    for (i64 j = tid; j < n_words; j += stride) high |= __ldg(words + j);
    high &= 0x8080808080808080ULL;
    for (i64 j = tid; j < head; j += stride) high |= chars[j] & 0x80;
    for (i64 j = head + 8 * n_words + tid; j < size; j += stride) high |= chars[j] & 0x80;
    if (high) *flag = 1;
}

extern "C" __global__ void riptide_ascii_case_map(const u8* __restrict__ chars, const i64 size,
        const u8* __restrict__ byte_map, u8* __restrict__ out, int* flag) {
    // out[j] = byte_map[chars[j]]; flag = 1 when a byte is >= 0x80 (then the caller discards out). Four bytes a
    // step when both buffers are 4-byte aligned.
    __shared__ u8 table[256];
    for (int k = threadIdx.x; k < 256; k += blockDim.x) table[k] = byte_map[k];
    __syncthreads();
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x, stride = (i64)gridDim.x * blockDim.x;
    u32 high = 0;
    i64 done = 0;
    if ((((size_t)chars | (size_t)out) & 3) == 0) {
        const i64 n_words = size / 4;
        const u32* in_words = (const u32*)chars;
        u32* out_words = (u32*)out;
        for (i64 j = tid; j < n_words; j += stride) {
            const u32 w = __ldg(in_words + j);
            high |= w;
            out_words[j] = (u32)table[w & 0xFF] | ((u32)table[(w >> 8) & 0xFF] << 8)
                | ((u32)table[(w >> 16) & 0xFF] << 16) | ((u32)table[w >> 24] << 24);
        }
        high &= 0x80808080u;
        done = 4 * n_words;
    }
    for (i64 j = done + tid; j < size; j += stride) {
        const u8 c = chars[j];
        high |= c & 0x80;
        out[j] = table[c];
    }
    if (high) *flag = 1;
}
"""

#: Average row length (bytes) above which ``contains`` takes a warp per row.
_WARP_ROW_BYTES = 96


@functools.cache
def _kernel(source_name: str, name: str) -> Any:
    import cupy as cp

    return cp.RawKernel({"search": SEARCH_SOURCE, "bytes": BYTES_SOURCE}[source_name], name)


def _launch(kernel: Any, n: int, args: tuple) -> None:
    from riptide.core.kernels.hashing import launch

    launch(kernel, n, args)


def _valid_and_fill(mask: Any, fill: bool) -> tuple[Any, np.int32]:
    return (np.uint64(0) if mask is None else mask), np.int32(bool(fill))


def find_literal(offsets: Any, chars: Any, mask: Any, pattern: bytes, fill: bool, xp: types.ModuleType) -> Any:
    """Per row (bool): does the non-empty ``pattern`` occur in the row's bytes? Rows where ``mask`` (None: all
    valid) is False get ``fill``. CuPy only."""
    n = int(offsets.shape[0]) - 1
    out = xp.empty(n, dtype=bool)
    if n == 0:
        return out
    m = len(pattern)
    device_pattern = _as_bytes_raw(pattern, xp)
    valid, fill32 = _valid_and_fill(mask, fill)
    total = int(offsets[-1] - offsets[0])  # one scalar read: the average row length picks the kernel
    if total > _WARP_ROW_BYTES * n:
        _launch(_kernel("search", "riptide_str_contains_warp"), 32 * n,
                (offsets, chars, device_pattern, np.int32(m), valid, fill32, np.int64(n), out))  # fmt: skip
        return out
    word = int.from_bytes(pattern[:8], "big") if m <= 8 else 0
    mask64 = (1 << (8 * m)) - 1 if m <= 8 else 0
    _launch(_kernel("search", "riptide_str_contains"), n,
            (offsets, chars, device_pattern, np.int32(m), np.uint64(word), np.uint64(mask64), valid, fill32,
             np.int64(n), out))  # fmt: skip
    return out


def match_affixes(offsets: Any, chars: Any, mask: Any, patterns: tuple[bytes, ...], at_end: bool, fill: bool,
                  xp: types.ModuleType) -> Any:  # fmt: skip
    """Per row (bool): does the row start (``at_end``: end) with any of ``patterns``? Rows where ``mask`` is False get
    ``fill``. CuPy only."""
    n = int(offsets.shape[0]) - 1
    out = xp.empty(n, dtype=bool)
    if n == 0:
        return out
    pattern_offsets = np.zeros(len(patterns) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in patterns], out=pattern_offsets[1:])
    valid, fill32 = _valid_and_fill(mask, fill)
    _launch(_kernel("search", "riptide_str_affixes"), n,
            (offsets, chars, _as_bytes_raw(b"".join(patterns), xp), xp.asarray(pattern_offsets),
             np.int32(len(patterns)), np.int32(bool(at_end)), valid, fill32, np.int64(n), out))  # fmt: skip
    return out


def has_non_ascii(chars: Any, xp: types.ModuleType) -> bool:
    """Whether any byte of ``chars`` is >= 0x80 (one pass, one scalar read). CuPy only."""
    size = int(chars.shape[0])
    if size == 0:
        return False
    flag = xp.zeros(1, dtype=np.int32)
    _launch(_kernel("bytes", "riptide_any_high_byte"), max(1, size // 8), (chars, np.int64(size), flag))
    return bool(flag[0])  # one scalar read: the answer


def map_ascii_bytes(chars: Any, byte_map: np.ndarray, xp: types.ModuleType) -> Any:
    """``byte_map[chars]`` (uint8), or None when a byte is >= 0x80 (the column is not ASCII). CuPy only."""
    size = int(chars.shape[0])
    out = xp.empty(size, dtype=np.uint8)
    if size == 0:
        return out
    flag = xp.zeros(1, dtype=np.int32)
    _launch(_kernel("bytes", "riptide_ascii_case_map"), max(1, size // 4),
            (chars, np.int64(size), xp.asarray(byte_map), out, flag))  # fmt: skip
    if bool(flag[0]):  # one scalar read: a non-ASCII byte sends the caller to the code-point path
        return None
    return out


def _as_bytes_raw(data: bytes, xp: types.ModuleType) -> Any:
    """Host bytes as a uint8 array of ``xp``, at least one element long (a kernel argument needs a buffer)."""
    return xp.asarray(np.frombuffer(data or b"\0", dtype=np.uint8))
