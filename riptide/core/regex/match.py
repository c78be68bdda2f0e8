"""Walking the DFA tables over a string column: one CUDA thread per row, or its xp twin.

Three walks, each with a RawKernel (CuPy) and an xp twin (vectorised over rows, one Python step per byte
position; the CPU path and the reference):

* :func:`first_match`: per row, whether any match is flagged (``contains`` / ``match`` / ``fullmatch``); a row stops
  at its first flag.
* :func:`scan`: Python's ``finditer`` iteration per row: walk from the search position until the state dies (or the
  row ends), the last flag is the match's end; the next search starts there, and after an *empty* match with the
  "suppress" start state (no empty match at the same place again). Gives the count per row and, when asked, each
  match's search position and end (byte positions), at most ``limit`` per row. The kernel runs it twice when the
  matches are wanted: once to count (sizing the output), once to write.
* :func:`match_starts`: each match's start, by walking the reverse DFA from its end back towards its search
  position (see :mod:`riptide.core.regex.dfa`).

Every walk reads a position's *symbol*: the byte's class, except a newline that ends its row (``FINAL_NL``) and
the end of the row (``EOT``); and the *kind* of the character before the start (for the start state).
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

from riptide.core.kernels.segments import row_of_each_element
from riptide.core.kernels.sort import stable_argsort
from riptide.core.regex.dfa import Program
from riptide.core.regex.parse import BOUND, FINAL_NL

__all__ = ["first_match", "scan", "match_starts"]


def _is_numpy(xp: types.ModuleType) -> bool:
    return xp is np


# --- the xp twins --------------------------------------------------------------------------------------------------
def _symbols(chars: Any, absolute: Any, row_end: Any, bytemap: Any, program: Program, xp: types.ModuleType) -> Any:
    """The symbol at each absolute byte position (``EOT`` at or past the row's end)."""
    last = chars.shape[0] - 1
    if last < 0:
        return xp.full(absolute.shape[0], program.eot, dtype=np.int32)
    byte = chars[xp.clip(absolute, 0, last)]
    symbol = bytemap[byte]
    symbol = xp.where((byte == 10) & (absolute == row_end - 1), program.final_nl, symbol)
    return xp.where(absolute >= row_end, program.eot, symbol)


def _kinds_before(chars: Any, absolute: Any, row_start: Any, row_end: Any, kindmap: Any, xp: types.ModuleType) -> Any:
    """The kind of the character before each absolute position (``BOUND`` at a row start)."""
    last = chars.shape[0] - 1
    if last < 0:
        return xp.full(absolute.shape[0], BOUND, dtype=np.int32)
    before = absolute - 1
    byte = chars[xp.clip(before, 0, last)]
    kind = xp.where((byte == 10) & (before == row_end - 1), FINAL_NL, kindmap[byte])
    return xp.where(absolute <= row_start, BOUND, kind).astype(np.int32)


def _first_match_xp(chars: Any, offsets: Any, rows: Any, program: Program, xp: types.ModuleType) -> Any:
    bytemap, _, table, start = program.arrays(xp)
    n_symbols = program.n_symbols
    n = offsets.shape[0] - 1
    found = xp.zeros(n, dtype=bool)
    row_start, row_end = offsets[:-1][rows], offsets[1:][rows]
    state = xp.full(rows.shape[0], int(program.start[BOUND, 0]), dtype=np.int32)
    position = row_start.copy()
    while rows.shape[0]:  # one scalar read (a shape) per step: whether any row is left (the CPU twin)
        symbol = _symbols(chars, position, row_end, bytemap, program, xp)
        entry = table[state * n_symbols + symbol]
        hit = (entry & 3) != 0
        found[rows[hit]] = True
        state = entry >> 2
        alive = ~hit & (state != 0) & (position < row_end)
        keep = xp.flatnonzero(alive)
        rows, row_start, row_end, state, position = (a[keep] for a in (rows, row_start, row_end, state, position + 1))
    return found


def _scan_xp(chars: Any, offsets: Any, rows: Any, program: Program, limit: int, want: bool, xp: types.ModuleType
             ) -> tuple[Any, Any]:  # fmt: skip
    bytemap, kindmap, table, start = program.arrays(xp)
    n_symbols = program.n_symbols
    n = offsets.shape[0] - 1
    counts = xp.zeros(n, dtype=np.int64)
    records: list = []
    if limit == 0:
        return counts, records
    row_start, row_end = offsets[:-1][rows], offsets[1:][rows]
    begin = row_start.copy()  # where the current search began
    position = row_start.copy()
    state = xp.full(rows.shape[0], int(program.start[BOUND, 0]), dtype=np.int32)
    last = xp.full(rows.shape[0], -1, dtype=np.int64)
    last_flag = xp.zeros(rows.shape[0], dtype=np.int32)
    count = xp.zeros(rows.shape[0], dtype=np.int64)
    while rows.shape[0]:  # one scalar read (a shape) per step: whether any row is still searching
        symbol = _symbols(chars, position, row_end, bytemap, program, xp)
        entry = table[state * n_symbols + symbol]
        flag = entry & 3
        hit = flag != 0
        last = xp.where(hit, position, last)
        last_flag = xp.where(hit, flag, last_flag)
        state = entry >> 2
        ended = (position >= row_end) | (state == 0)
        found = ended & (last >= 0)
        if want:
            at = xp.flatnonzero(found)
            records.append((rows[at], begin[at], last[at]))
        count = count + found
        alive = ~ended | found
        if limit > 0:
            alive &= count < limit
        # rows that found a match search again from its end (suppressing an empty match there after an empty one)
        restart = found & alive
        begin = xp.where(restart, last, begin)
        position = xp.where(restart, last, position + 1)
        suppress = (last_flag == 2).astype(np.int32)
        kinds = _kinds_before(chars, last, row_start, row_end, kindmap, xp)
        state = xp.where(restart, start[kinds * 2 + suppress], state)
        last = xp.where(restart, -1, last)
        done = ~alive
        if bool(done.any()):  # one scalar read per step (CPU twin): drop the finished rows
            counts[rows[done]] = count[done]
            keep = xp.flatnonzero(alive)
            rows, row_start, row_end, begin, position, state, last, last_flag, count = (
                a[keep] for a in (rows, row_start, row_end, begin, position, state, last, last_flag, count))
    return counts, records


def _match_starts_xp(chars: Any, offsets: Any, rows: Any, begin: Any, end: Any, program: Program,
                     xp: types.ModuleType) -> Any:  # fmt: skip
    bytemap, kindmap, table, start = program.arrays(xp)
    n_symbols = program.n_symbols
    k = rows.shape[0]
    out = end.copy()
    row_start, row_end = offsets[:-1][rows], offsets[1:][rows]
    # the reverse walk's "previous" character is the one after the match (BOUND at the row's end)
    kinds = _kinds_before(chars, end + 1, row_start, row_end, kindmap, xp)
    kinds = xp.where(end >= row_end, BOUND, kinds)
    state = start[kinds * 2]
    index = xp.arange(k, dtype=np.int64)
    position = end - 1  # the byte read next (backwards)
    while index.shape[0]:  # one scalar read (a shape) per step
        inside = position >= begin
        # past the search position only the character before it is looked at (for assertions), not consumed
        symbol = _symbols(chars, position, row_end, bytemap, program, xp)
        symbol = xp.where(position < row_start, program.eot, symbol)
        entry = table[state * n_symbols + symbol]
        hit = (entry & 3) != 0
        out[index[hit]] = (position + 1)[hit]
        state = entry >> 2
        alive = inside & (state != 0)
        keep = xp.flatnonzero(alive)
        index, state, position, begin, row_start, row_end = (
            a[keep] for a in (index, state, position - 1, begin, row_start, row_end))
    return out


# --- the CUDA kernels ----------------------------------------------------------------------------------------------
_PRELUDE = r"""
typedef long long i64;
#define BOUND 0
#define FINAL_NL 2

__device__ __forceinline__ int symbol_at(const unsigned char* chars, const int* bytemap, i64 p, i64 e,
                                         int final_nl, int eot) {
    if (p >= e) return eot;
    const unsigned char c = chars[p];
    return (c == 10 && p == e - 1) ? final_nl : bytemap[c];
}

__device__ __forceinline__ int kind_before(const unsigned char* chars, const int* kindmap, i64 p, i64 b, i64 e) {
    if (p <= b) return BOUND;
    const unsigned char c = chars[p - 1];
    return (c == 10 && p - 1 == e - 1) ? FINAL_NL : kindmap[c];
}
"""

_FIRST = _PRELUDE + r"""
extern "C" __global__ void regex_first(const i64* __restrict__ offsets, const unsigned char* __restrict__ chars,
        const int* __restrict__ bytemap_g, const int* __restrict__ table_g, const int start, const int n_symbols,
        const int final_nl, const int eot, const int table_size, const int shared, const i64 n, bool* out) {
    // The byte map and (when it fits) the table are copied to shared memory once per block.
    extern __shared__ int cache[];
    int* bytemap = cache;
    for (int k = threadIdx.x; k < 256; k += blockDim.x) bytemap[k] = bytemap_g[k];
    const int* table = table_g;
    if (shared) {
        for (int k = threadIdx.x; k < table_size; k += blockDim.x) cache[256 + k] = table_g[k];
        table = cache + 256;
    }
    __syncthreads();
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
        const i64 b = offsets[i], e = offsets[i + 1];
        int state = start;
        bool hit = false;
        for (i64 p = b;; ++p) {
            const int entry = table[state * n_symbols + symbol_at(chars, bytemap, p, e, final_nl, eot)];
            if (entry & 3) { hit = true; break; }
            state = entry >> 2;
            if (p >= e || state == 0) break;
        }
        out[i] = hit;
    }
}
"""

_SCAN = _PRELUDE + r"""
extern "C" __global__ void regex_scan(const i64* __restrict__ offsets, const unsigned char* __restrict__ chars,
        const int* __restrict__ bytemap, const int* __restrict__ kindmap, const int* __restrict__ table,
        const int* __restrict__ start, const int n_symbols, const int final_nl, const int eot, const i64 limit,
        const bool* __restrict__ valid, const i64 n, i64* counts, const i64* __restrict__ out_offsets,
        i64* out_begin, i64* out_end) {
    // valid == NULL: every row is valid. out_offsets == NULL: only count; else write each match's search
    // position and end at out_offsets[row] + k.
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
        if (valid != NULL && !valid[i]) { counts[i] = 0; continue; }
        const i64 b = offsets[i], e = offsets[i + 1];
        i64 pos = b, count = 0;
        int suppress = 0;
        while (limit < 0 || count < limit) {
            int state = start[kind_before(chars, kindmap, pos, b, e) * 2 + suppress];
            i64 last = -1;
            int last_flag = 0;
            for (i64 p = pos;; ++p) {
                const int entry = table[state * n_symbols + symbol_at(chars, bytemap, p, e, final_nl, eot)];
                if (entry & 3) { last = p; last_flag = entry & 3; }
                state = entry >> 2;
                if (p >= e || state == 0) break;
            }
            if (last < 0) break;
            if (out_offsets != NULL) {
                const i64 k = out_offsets[i] + count;
                out_begin[k] = pos;
                out_end[k] = last;
            }
            ++count;
            suppress = (last_flag == 2);
            pos = last;
        }
        counts[i] = count;
    }
}
"""

_STARTS = _PRELUDE + r"""
extern "C" __global__ void regex_starts(const i64* __restrict__ offsets, const unsigned char* __restrict__ chars,
        const int* __restrict__ bytemap, const int* __restrict__ kindmap, const int* __restrict__ table,
        const int* __restrict__ start, const int n_symbols, const int final_nl, const int eot,
        const i64* __restrict__ rows, const i64* __restrict__ begin, const i64* __restrict__ end, const i64 k,
        i64* out) {
    for (i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x; j < k; j += (i64)gridDim.x * blockDim.x) {
        const i64 row = rows[j];
        const i64 b = offsets[row], e = offsets[row + 1];
        const i64 from = begin[j], stop = end[j];
        // the reverse walk starts after the match: its "previous" character is the one at stop
        const int kind = stop >= e ? BOUND : kind_before(chars, kindmap, stop + 1, b, e);
        int state = start[kind * 2];
        i64 found = stop;
        for (i64 p = stop - 1;; --p) {
            const int symbol = p < b ? eot : symbol_at(chars, bytemap, p, e, final_nl, eot);
            const int entry = table[state * n_symbols + symbol];
            if (entry & 3) found = p + 1;
            state = entry >> 2;
            if (p < from || state == 0) break;
        }
        out[j] = found;
    }
}
"""


@functools.cache
def _kernel(name: str) -> Any:
    import cupy as cp

    source = {"regex_first": _FIRST, "regex_scan": _SCAN, "regex_starts": _STARTS}[name]
    return cp.RawKernel(source, name)


def _launch(kernel: Any, n: int, args: tuple, shared_mem: int = 0) -> None:
    from riptide.core.kernels.hashing import launch

    launch(kernel, n, args, shared_mem=shared_mem)


_SHARED_LIMIT = 40 * 1024  # bytes of dynamic shared memory the first-match kernel may use for its table


# --- public walks --------------------------------------------------------------------------------------------------
def first_match(chars: Any, offsets: Any, program: Program, xp: types.ModuleType) -> Any:
    """Per row (bool): whether the walk from the row's start flags a match (any row; the caller masks).

    >>> from riptide.core.regex.dfa import compile_program
    >>> chars = np.frombuffer(b"xaby", np.uint8); offsets = np.array([0, 2, 2, 4])
    >>> first_match(chars, offsets, compile_program("a|y", 0, "search"), np).tolist()
    [True, False, True]
    """
    n = offsets.shape[0] - 1
    if _is_numpy(xp) or n == 0:
        return _first_match_xp(chars, offsets, xp.arange(n, dtype=np.int64), program, xp)
    bytemap, _, table, _ = program.arrays(xp)
    out = xp.empty(n, dtype=bool)
    table_size = int(program.table.size)
    shared = (256 + table_size) * 4 <= _SHARED_LIMIT
    _launch(_kernel("regex_first"), n,
            (offsets, chars, bytemap, table, np.int32(program.start[BOUND, 0]), np.int32(program.n_symbols),
             np.int32(program.final_nl), np.int32(program.eot), np.int32(table_size), np.int32(shared), np.int64(n),
             out), shared_mem=(256 + (table_size if shared else 0)) * 4)  # fmt: skip
    return out


def scan(chars: Any, offsets: Any, valid: Any, program: Program, limit: int, want: bool, xp: types.ModuleType
         ) -> tuple[Any, Any, Any, Any]:  # fmt: skip
    """Python's non-overlapping iteration over each valid row with the search DFA ``program``.

    Returns ``(counts, rows, begins, ends)``: matches per row (at most ``limit`` when ``limit >= 0``) and, when
    ``want``, every match's row, search position and end (absolute byte positions), row after row, in order.

    >>> from riptide.core.regex.dfa import compile_program
    >>> chars = np.frombuffer(b"aaba", np.uint8); offsets = np.array([0, 4])
    >>> [a.tolist() for a in scan(chars, offsets, None, compile_program("a*", 0, "search"), -1, True, np)]
    [[4], [0, 0, 0, 0], [0, 2, 2, 4], [2, 2, 4, 4]]
    """
    n = offsets.shape[0] - 1
    rows = xp.arange(n, dtype=np.int64) if valid is None else xp.flatnonzero(valid).astype(np.int64)
    if _is_numpy(xp) or n == 0:
        counts, records = _scan_xp(chars, offsets, rows, program, limit, want, xp)
        if not want:
            return counts, None, None, None
        if records:
            match_rows = xp.concatenate([r[0] for r in records])
            begins = xp.concatenate([r[1] for r in records])
            ends = xp.concatenate([r[2] for r in records])
            order = stable_argsort(match_rows, xp)
            return counts, match_rows[order], begins[order], ends[order]
        empty = xp.zeros(0, dtype=np.int64)
        return counts, empty, empty, empty
    bytemap, kindmap, table, start = program.arrays(xp)
    kernel = _kernel("regex_scan")
    counts = xp.empty(n, dtype=np.int64)
    common = (offsets, chars, bytemap, kindmap, table, start, np.int32(program.n_symbols), np.int32(program.final_nl),
              np.int32(program.eot), np.int64(limit), np.uint64(0) if valid is None else valid, np.int64(n))  # fmt: skip
    _launch(kernel, n, common + (counts, np.uint64(0), np.uint64(0), np.uint64(0)))
    if not want:
        return counts, None, None, None
    out_offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(counts, out=out_offsets[1:])
    total = int(out_offsets[-1])  # one scalar read: the number of matches (the output size)
    begins = xp.empty(max(total, 1), dtype=np.int64)
    ends = xp.empty(max(total, 1), dtype=np.int64)
    _launch(kernel, n, common + (xp.empty(n, dtype=np.int64), out_offsets, begins, ends))
    match_rows = row_of_each_element(out_offsets, xp)
    return counts, match_rows, begins[:total], ends[:total]


def match_starts(chars: Any, offsets: Any, rows: Any, begins: Any, ends: Any, program: Program,
                 xp: types.ModuleType) -> Any:  # fmt: skip
    """The start of each match from its row, search position and end, walking the reverse DFA ``program``.

    >>> from riptide.core.regex.dfa import compile_program
    >>> chars = np.frombuffer(b"xaab", np.uint8); offsets = np.array([0, 4])
    >>> rev = compile_program("a+b", 0, "reverse")
    >>> match_starts(chars, offsets, np.array([0]), np.array([0]), np.array([4]), rev, np).tolist()
    [1]
    """
    k = rows.shape[0]
    if _is_numpy(xp) or k == 0:
        return _match_starts_xp(chars, offsets, rows, begins, ends, program, xp)
    bytemap, kindmap, table, start = program.arrays(xp)
    out = xp.empty(k, dtype=np.int64)
    _launch(_kernel("regex_starts"), k,
            (offsets, chars, bytemap, kindmap, table, start, np.int32(program.n_symbols), np.int32(program.final_nl),
             np.int32(program.eot), rows, begins, ends, np.int64(k), out))  # fmt: skip
    return out
