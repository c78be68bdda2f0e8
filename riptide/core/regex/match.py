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

The xp twins are NumPy's path, so they are written for the host's costs: per step as few whole-array passes as
possible over the rows still walking. State numbers are pre-multiplied by the row width of the table (a step is
one add and one gather); the finditer scan classifies the whole buffer once and handles the few rows whose search
ended in a step on their own indices; finished rows leave the arrays in batches.
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


def _walk_tables(program: Program, xp: types.ModuleType) -> tuple[Any, Any]:
    """The table and start states with every state number replaced by its row's offset in the flat table
    (``state * n_symbols``): a step is then ``table[state + symbol]``, one add and one gather."""
    _, _, table, start = program.arrays(xp)
    n_symbols = program.n_symbols
    walk = ((table >> 2) * n_symbols) << 2 | (table & 3)
    return walk.astype(np.int32), (start * n_symbols).astype(np.int32)


def _byte_symbols(chars: Any, offsets: Any, bytemap: Any, program: Program, xp: types.ModuleType, pad: int = 1) -> Any:
    """The symbol of every byte of the column, computed once per walk instead of once per step: the byte's class,
    ``FINAL_NL`` for a newline that ends its row; then ``pad`` ``EOT`` entries (positions at the buffer's end).

    A position at its row's end still reads ``EOT`` by a comparison in the walk (the next row's first byte is there).
    """
    size = chars.shape[0]
    symbols = xp.full(size + pad, program.eot, dtype=np.int16)  # n_symbols <= 258
    if size:
        symbols[:size] = bytemap[chars]
        last = offsets[1:] - 1
        ends_nl = (last >= offsets[:-1]) & (chars[xp.clip(last, 0, size - 1)] == 10)
        symbols[last[ends_nl]] = program.final_nl
    return symbols


def _newline_matters(program: Program) -> bool:
    """Whether a newline that ends its row (``FINAL_NL``) walks differently from any other newline."""
    return bool((program.table[:, program.final_nl] != program.table[:, int(program.bytemap[10])]).any())


def _read_symbols(chars: Any, position: Any, bytemap: Any, row_end: Any, program: Program, newline: bool,
                  xp: types.ModuleType, inside: bool = False) -> Any:  # fmt: skip
    """The symbol at each position, read from the bytes (for walks that stop early, where classifying the whole
    buffer first would cost more than the walk); positions at or past their row's end read ``EOT``.

    ``newline``: whether a final newline must be told apart (else ``row_end`` is only compared with); ``inside``:
    every position is known to be before its row's end (``row_end`` then only serves ``newline``).
    """
    size = chars.shape[0]
    if size == 0:
        return xp.full(position.shape[0], program.eot, dtype=np.int32)
    byte = chars[position if inside else xp.minimum(position, size - 1)]
    symbol = bytemap[byte]
    if newline:
        symbol = xp.where((byte == 10) & (position == row_end - 1), program.final_nl, symbol)
    return symbol if inside else xp.where(position >= row_end, program.eot, symbol)


def _first_match_xp(chars: Any, offsets: Any, rows: Any, program: Program, xp: types.ModuleType) -> Any:
    bytemap, _, _, _ = program.arrays(xp)
    table, start = _walk_tables(program, xp)
    newline = _newline_matters(program)
    n = offsets.shape[0] - 1
    found = xp.zeros(n, dtype=bool)
    position, row_end = offsets[:-1][rows], offsets[1:][rows]
    state = xp.full(rows.shape[0], int(program.start[BOUND, 0]) * program.n_symbols, dtype=np.int32)
    while rows.shape[0]:  # one scalar read (a shape) per step: whether any row is left (the CPU twin)
        entry = table[state + _read_symbols(chars, position, bytemap, row_end, program, newline, xp)]
        hit = (entry & 3) != 0
        found[rows[hit]] = True
        state = entry >> 2
        # a row stops at its first flag, when its state dies, or after reading its end
        keep = xp.flatnonzero(~(hit | (position >= row_end) | (state == 0)))
        rows, row_end, state, position = rows[keep], row_end[keep], state[keep], position[keep] + 1
    return found


_PARK_STEPS = 64  # steps a finished row may stay parked in the arrays before a compaction drops it


def _scan_xp(chars: Any, offsets: Any, rows: Any, program: Program, limit: int, want: bool, xp: types.ModuleType
             ) -> tuple[Any, Any]:  # fmt: skip
    """The finditer walk, vectorised over the rows still searching. Each step reads one symbol per row; only the
    rows whose search ended in this step (at a dead state or their end) do more, on their own (few) indices:
    record the match, restart after it or finish.

    A finished row is *parked* rather than removed at once (dropping it means gathering every per-row array):
    its end becomes -1, so it reads ``EOT`` in the dead state, which flags nothing. The arrays are compacted when
    a quarter of their rows are parked, or every ``_PARK_STEPS`` steps (a parked row's position still advances;
    the symbols are padded that far with ``EOT``).
    """
    bytemap, kindmap, _, _ = program.arrays(xp)
    table, start = _walk_tables(program, xp)
    symbols = _byte_symbols(chars, offsets, bytemap, program, xp, pad=_PARK_STEPS + 1)
    eot = program.eot
    # whether the start state depends on the character before the search position (assertions), per suppress
    start_by_kind = bool((program.start != program.start[:1]).any())
    n = offsets.shape[0] - 1
    counts = xp.zeros(n, dtype=np.int64)
    records: list = []
    if limit == 0:
        return counts, records
    row_end = offsets[1:][rows]
    begin = offsets[:-1][rows]  # where the current search began
    position = begin.copy()
    state = xp.full(rows.shape[0], int(start[BOUND * 2]), dtype=np.int32)
    last = xp.full(rows.shape[0], -1, dtype=np.int64)  # the last flagged end << 2 | its flag, -1 for none
    parked, since_compaction = 0, 0
    while rows.shape[0]:  # one scalar read (a shape) per step: whether any row is still searching
        at_end = position >= row_end
        entry = table[state + xp.where(at_end, eot, symbols[position])]
        flag = entry & 3
        hit = xp.flatnonzero(flag)
        last[hit] = position[hit] << 2 | flag[hit]
        state = entry >> 2
        ended = xp.flatnonzero(at_end | (state == 0))
        position += 1
        since_compaction += 1
        if ended.shape[0] > parked:  # one scalar read (a shape) per step (CPU twin): some search ended
            ended = ended[row_end[ended] >= 0]  # not the parked rows
            is_found = last[ended] >= 0
            restarts = is_found
            found = ended[is_found]
            if found.shape[0]:
                found_rows = rows[found]
                if want:
                    records.append((found_rows, begin[found], last[found] >> 2))
                counts[found_rows] += 1  # rows are distinct within a step
                if limit > 0:
                    restarts = is_found.copy()
                    restarts[is_found] = counts[found_rows] < limit
            restart = ended[restarts]
            if restart.shape[0]:  # the next search starts at the match's end (no empty match there after an empty one)
                at = last[restart]
                restart_pos = at >> 2
                suppress = ((at & 3) == 2).astype(np.int32)
                if start_by_kind:
                    kinds = _kinds_before(chars, restart_pos, offsets[:-1][rows[restart]], row_end[restart], kindmap,
                                          xp)  # fmt: skip
                    state[restart] = start[kinds * 2 + suppress]
                else:
                    state[restart] = start[suppress]
                begin[restart] = restart_pos
                position[restart] = restart_pos
                last[restart] = -1
            finished = ended[~restarts]
            if finished.shape[0]:
                row_end[finished] = -1  # parked: reads EOT in the dead state from now on
                parked += finished.shape[0]
        if parked and (4 * parked > rows.shape[0] or since_compaction >= _PARK_STEPS):
            keep = xp.flatnonzero(row_end >= 0)
            rows, row_end, begin, position, state, last = (a[keep] for a in (rows, row_end, begin, position, state,
                                                                             last))  # fmt: skip
            parked, since_compaction = 0, 0
        elif not parked:
            since_compaction = 0
    return counts, records


def _match_starts_xp(chars: Any, offsets: Any, rows: Any, begin: Any, end: Any, program: Program,
                     xp: types.ModuleType) -> Any:  # fmt: skip
    bytemap, kindmap, _, _ = program.arrays(xp)
    table, start = _walk_tables(program, xp)
    newline = _newline_matters(program)
    eot = program.eot
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
        # past the search position only the character before it is looked at (for assertions), not consumed
        symbol = _read_symbols(chars, xp.maximum(position, 0), bytemap, row_end, program, newline, xp, inside=True)
        entry = table[state + xp.where(position < row_start, eot, symbol)]
        hit = (entry & 3) != 0
        out[index[hit]] = (position + 1)[hit]
        state = entry >> 2
        keep = xp.flatnonzero((position >= begin) & (state != 0))
        index, state, position, begin, row_start = (a[keep] for a in (index, state, position - 1, begin, row_start))
        if newline:  # the row's end is only needed to tell a final newline
            row_end = row_end[keep]
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
        // The row's bytes are read four at a time from aligned words (each holds a byte of the buffer), and a
        // word's four symbols are looked up before the walk needs them: the walk's dependent chain is then one
        // table lookup per byte. A newline that is the row's last byte reads FINAL_NL.
        const unsigned int* word = (const unsigned int*)((size_t)(chars + b) & ~(size_t)3);
        int skip = (int)((size_t)(chars + b) & 3);
        i64 left = e - b;
        int state = start;
        bool hit = false;
        while (left > 0) {
            const unsigned int w = __ldg(word++);
            int symbol[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) symbol[j] = bytemap[(w >> (8 * j)) & 0xFF];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                if (j < skip || left <= 0) continue;
                const int s = (left == 1 && ((w >> (8 * j)) & 0xFF) == 10) ? final_nl : symbol[j];
                const int entry = table[state * n_symbols + s];
                if (entry & 3) { hit = true; goto done; }
                state = entry >> 2;
                if (state == 0) goto done;  // dead: no match can follow
                --left;
            }
            skip = 0;
        }
        hit = (table[state * n_symbols + eot] & 3) != 0;  // the end of the row
    done:
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
