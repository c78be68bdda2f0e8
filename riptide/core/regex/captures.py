"""Capture groups on the device: a Pike VM run over each match's known span, one CUDA thread per match.

The DFA walks of :mod:`riptide.core.regex.match` already find every match's span ``[start, end)`` (the
forward scan gives the end, the reverse DFA the start). What is left is *which path* Python's backtracking
engine takes through the pattern inside that span, i.e. the groups. That is what a Pike VM computes: it runs the
NFA's threads in lockstep over the span's bytes, each thread carrying its own capture registers, the threads kept
in priority order (the order the backtracking engine would try them) and a thread dropped when a higher-priority
one already holds the same NFA state (the lower one can only do the same from here on). The highest-priority
thread that reaches the match node *exactly at* ``end`` carries the groups of ``re.search`` / ``re.finditer``: the
overall highest-priority path ends at ``end`` (that is how ``end`` was found), so it is also the best among those.
A thread that reaches the match node earlier cuts every lower-priority thread (as the DFA's construction does);
the winning thread, having a higher priority, lives on. The one exception is an empty match at ``start`` when
``end > start``: Python only takes such a match after refusing the empty one (after an empty match at the same
place, its must-advance rule), so that one is skipped, cutting nothing.

**The program.** Threads live on *kernel* nodes (the entry and every node a byte edge leads to). The epsilon
closure of a kernel node (through splits, loops, group boundaries and assertions) depends only on the kinds of
the characters on either side of the position (``parse.KINDS``), so it is tabulated on the host once per
pattern: for each kernel node ``k``, kind before ``p`` and symbol ``x`` (the byte's class, ``FINAL_NL`` or
``EOT``, as in the DFA), the ordered list of what the thread becomes: ``(next kernel node, tags)`` for each byte
edge the closure reaches that reads ``x``, or ``(MATCH, tags)`` where it reaches the match node. ``tags`` is a
bit mask of the group boundaries crossed on the way (bit ``2(g-1)`` the start of group g, ``2(g-1)+1`` its end);
every one of them is set to the current position. A step is then a table look-up per thread, no graph walk.

Threads of one step that reach the same next kernel node keep the first (highest-priority) one. Taking each
thread's closure on its own (instead of with one visited set for the whole step, as a textbook Pike VM does)
gives the same threads: a node that an earlier thread's closure visited leads only to next nodes that earlier
thread already claimed. Patterns with a repeated body that can match the empty string are left to the host (as
for spans: Python's engine then takes paths an automaton does not reproduce).

**The walks.** The CUDA kernel holds one match per thread, its thread lists and registers in local memory
(kernel nodes x 2 x groups int32, compiled per size); the xp twin runs all matches at once (in chunks), a Python
loop over byte positions and over list slots, arrays ``[matches, slots]`` and ``[matches, slots, 2 x groups]``
sized by the longest list so far. Patterns with too many kernel nodes for the kernel's local memory (Unicode
classes on non-ASCII text) run the twin on the device too. Both return each group's absolute byte span, ``-1``
where the group did not take part.

On top of the spans: :func:`extract_columns` (``str.extract``), :func:`extractall_columns`, :func:`replace`
with a template (``\\1``, ``\\g<name>``, escapes: Python's ``re.sub``, or RE2's rewrite rules where pandas uses
them) and :func:`split_pieces` with the groups' text between the pieces (``re.split``).
"""

from __future__ import annotations

import functools
import re
import types
from typing import Any

import numpy as np

from riptide.core.column import StringColumn
from riptide.core.kernels.segments import row_of_each_element
from riptide.core.ops import string_ops as _s
from riptide.core.regex import dfa as _dfa
from riptide.core.regex import nfa as _nfa
from riptide.core.regex import ops as _ops
from riptide.core.regex import parse as _parse
from riptide.core.regex import match
from riptide.core.regex.match import _is_numpy, _kinds_before, _launch, _symbols
from riptide.core.regex.parse import KINDS, Unsupported

__all__ = ["CaptureProgram", "compile_captures", "group_spans", "captures", "extract_columns",
           "extractall_columns", "parse_template", "replace", "split_pieces"]

MAX_GROUPS = 31  # the tags of a closure step are one int64 bit mask
MAX_TABLE = 4_000_000  # entries of the closure table
KERNEL_LOCAL_INTS = 2048  # local-memory registers per CUDA thread; beyond, the xp twin runs (on the device too)


class CaptureProgram:
    """The tabulated Pike VM of one pattern.

    ``targets[k, kind_before, symbol, l]``: the l-th thread kernel node ``k`` becomes (``-1`` ends the list,
    ``match_id`` the match), ``tags[...]`` the group boundaries set on the way; ``bytemap`` / ``kindmap`` /
    ``final_nl`` / ``eot`` as in :class:`riptide.core.regex.dfa.Program`; kernel node 0 is the entry.
    """

    def __init__(self, targets: np.ndarray, tags: np.ndarray, bytemap: np.ndarray, kindmap: np.ndarray,
                 n_groups: int) -> None:  # fmt: skip
        self.targets = targets
        self.tags = tags
        self.bytemap = bytemap
        self.kindmap = kindmap
        self.n_groups = n_groups
        self.n_kernel, _, self.n_symbols, self.width = targets.shape
        self.match_id = self.n_kernel
        self.final_nl = self.n_symbols - 2
        self.eot = self.n_symbols - 1
        self._device: dict = {}

    def arrays(self, xp: Any) -> tuple:
        """(bytemap, kindmap, flat targets, flat tags) as arrays of ``xp``, copied once per device."""
        return _dfa.per_device(self._device, (self.bytemap, self.kindmap, self.targets.ravel(), self.tags.ravel()), xp)


def _build(ast: tuple, n_groups: int, ascii_text: bool) -> CaptureProgram:
    if n_groups > MAX_GROUPS:
        raise Unsupported(f"more than {MAX_GROUPS} capturing groups")
    automaton = _nfa.build(ast, search=False, ascii_text=ascii_text)
    nodes = automaton.nodes
    bytemap, representative, kindmap, symbol_kind = _dfa.byte_symbols(nodes)
    n_symbols = len(representative) + 2
    newline_class = int(bytemap[10])
    kernel = [automaton.start]
    for node in nodes:
        if node is not None and node[0] == "byte":
            kernel.extend(target for _, _, target in node[1])
    kernel = list(dict.fromkeys(kernel))
    kernel_id = {node: i for i, node in enumerate(kernel)}
    match_id = len(kernel)

    def byte_target(i: int, cls: int) -> int:
        byte = representative[cls]
        for lo, hi, target in nodes[i][1]:
            if lo <= byte <= hi:
                return target
        return -1

    def closure(root: int, prev: int, nxt: int) -> list:
        """(byte node or -1 for the match, tags) in priority order."""
        visited: set = set()
        out: list = []
        stack = [(root, 0)]
        while stack:
            i, mask = stack.pop()
            node = nodes[i]
            kind = node[0]
            if kind == "loop":
                if i in visited:  # an empty iteration ends the loop (as the DFA's construction)
                    stack.append((node[2], mask))
                    continue
                visited.add(i)
                first, second = (node[2], node[1]) if node[3] else (node[1], node[2])
                stack.extend(((first, mask), (second, mask)))
                continue
            if i in visited:
                continue
            visited.add(i)
            if kind == "byte":
                out.append((i, mask))
            elif kind == "split":
                stack.extend((child, mask) for child in reversed(node[1]))
            elif kind == "eps":
                tag = node[2]
                if tag is not None:
                    mask |= 1 << (2 * (tag[0] - 1) + tag[1])
                stack.append((node[1], mask))
            elif kind == "assert":
                if (prev, nxt) in node[1]:
                    stack.append((node[2], mask))
            elif kind == "match":
                out.append((-1, mask))  # kept going: an empty match at the walk's start does not cut (below)
        return out

    rows: dict = {}
    width = 1
    for k, root in enumerate(kernel):
        for prev in KINDS:
            closures: dict = {}
            for symbol in range(n_symbols):
                nxt = symbol_kind[symbol]
                if nxt not in closures:
                    closures[nxt] = closure(root, prev, nxt)
                entries, seen = [], set()
                for i, mask in closures[nxt]:
                    if i < 0:
                        entries.append((match_id, mask))
                        continue
                    if symbol == n_symbols - 1:
                        continue  # the end of the text: no byte to read
                    target = byte_target(i, newline_class if symbol == n_symbols - 2 else symbol)
                    if target >= 0 and kernel_id[target] not in seen:
                        seen.add(kernel_id[target])
                        entries.append((kernel_id[target], mask))
                if entries:
                    rows[k, prev, symbol] = entries
                    width = max(width, len(entries))
    if len(kernel) * len(KINDS) * n_symbols * width > MAX_TABLE:
        raise Unsupported("a pattern whose capture tables are this large")
    targets = np.full((len(kernel), len(KINDS), n_symbols, width), -1, dtype=np.int32)
    tags = np.zeros((len(kernel), len(KINDS), n_symbols, width), dtype=np.int64)
    for (k, prev, symbol), entries in rows.items():
        for slot, (target, mask) in enumerate(entries):
            targets[k, prev, symbol, slot] = target
            tags[k, prev, symbol, slot] = mask
    return CaptureProgram(targets, tags, bytemap, kindmap, n_groups)


@functools.lru_cache(maxsize=128)
def compile_captures(pattern: str, flags: int, ascii_text: bool = False) -> CaptureProgram:
    """The cached capture program of a Python pattern (``re.error`` if invalid, :class:`Unsupported` beyond
    the engine).

    >>> p = compile_captures(r"(a+)(b)?", 0)
    >>> p.n_groups, p.n_kernel > 1
    (2, True)
    """
    ast, n_groups, _ = _parse.parse(pattern, flags)
    if _parse.has_empty_loop(ast):
        raise Unsupported("a repeated group that can match the empty string")
    if ascii_text:
        ast = _dfa._ascii_only(ast)
    return _build(ast, n_groups, ascii_text)


# --- the walks ------------------------------------------------------------------------------------------------------
def _captures_xp(chars: Any, offsets: Any, rows: Any, starts: Any, ends: Any, program: CaptureProgram,
                 xp: types.ModuleType) -> Any:  # fmt: skip
    m = rows.shape[0]
    if m <= _CHUNK:
        return _captures_chunk(chars, offsets, rows, starts, ends, program, xp)
    parts = [_captures_chunk(chars, offsets, rows[i : i + _CHUNK], starts[i : i + _CHUNK], ends[i : i + _CHUNK],
                             program, xp) for i in range(0, m, _CHUNK)]  # fmt: skip  # bounded memory
    return xp.concatenate(parts)


_CHUNK = 1 << 20  # matches walked at once by the xp twin (its arrays are [matches, live threads, registers])


def _captures_chunk(chars: Any, offsets: Any, rows: Any, starts: Any, ends: Any, program: CaptureProgram,
                    xp: types.ModuleType) -> Any:  # fmt: skip
    bytemap, kindmap, targets, tags = program.arrays(xp)
    m = rows.shape[0]
    n_reg = 2 * program.n_groups
    out = xp.full((m, n_reg), -1, dtype=np.int64)
    if m == 0:
        return out
    row_start, row_end = offsets[:-1][rows], offsets[1:][rows]
    # the thread lists: kernel node per slot in priority order (-1: empty) and registers (row-relative, -1 unset);
    # as many slots as the longest list so far (not one per kernel node: few threads are alive at once)
    slots = xp.zeros((m, 1), dtype=np.int32)
    regs = xp.full((m, 1, n_reg), -1, dtype=np.int32)
    bits = xp.arange(n_reg, dtype=np.int64)
    index = xp.arange(m, dtype=np.int64)
    steps = int((ends - starts).max()) + 1  # one scalar read: the longest match (the number of steps)
    stride_sym = program.width
    stride_prev = program.n_symbols * stride_sym
    stride_k = len(KINDS) * stride_prev
    for t in range(steps):  # one step per byte position of the spans
        position = starts + t
        live = position <= ends
        symbol = _symbols(chars, position, row_end, bytemap, program, xp)
        prev = _kinds_before(chars, position, row_start, row_end, kindmap, xp)
        relative = (position - row_start).astype(np.int32)[:, None]
        width = slots.shape[1]
        cap = min(program.n_kernel, width * program.width)
        new_slots = xp.full((m, cap), -1, dtype=np.int32)
        new_regs = xp.full((m, cap, n_reg), -1, dtype=np.int32)
        count = xp.zeros(m, dtype=np.int64)
        cut = ~live
        for j in range(width):  # the thread list, in priority order
            k = slots[:, j]
            active = (k >= 0) & ~cut
            base = xp.maximum(k, 0).astype(np.int64) * stride_k + prev * stride_prev + symbol * stride_sym
            for slot in range(program.width):
                target = xp.where(active, targets[base + slot], -1)
                ok = target >= 0
                setting = ((tags[base + slot][:, None] >> bits) & 1).astype(bool)
                here = xp.where(setting, relative, regs[:, j, :])
                is_match = ok & (target == program.match_id)
                done = is_match & (position == ends)
                found = here[done].astype(np.int64)
                out[index[done]] = xp.where(found >= 0, found + row_start[done][:, None], -1)
                # a match before the end cuts the lower-priority threads, except an empty one at the start: Python
                # takes this non-empty match there only after refusing that one (its must-advance rule)
                stops = is_match & ((position > starts) | done)
                cut = cut | stops
                active = active & ~stops
                # a kernel node already claimed by a higher-priority thread of this step keeps that thread
                claimed = (new_slots == target[:, None]).any(axis=1)
                add = ok & ~is_match & ~claimed
                at = xp.flatnonzero(add)
                new_slots[at, count[at]] = target[at]
                new_regs[at, count[at]] = here[at]
                count = count + add
        used = max(int(count.max()), 1)  # one scalar read per step (the twin): the longest thread list
        slots, regs = new_slots[:, :used], new_regs[:, :used]
    return out


# the byte and boundary helpers are the span kernels' (match._PRELUDE); the Pike VM follows them
_CAPTURES = match._PRELUDE + r"""
#define N_KINDS 5

extern "C" __global__ void regex_captures(const i64* __restrict__ offsets, const unsigned char* __restrict__ chars,
        const int* __restrict__ bytemap, const int* __restrict__ kindmap, const int* __restrict__ targets,
        const i64* __restrict__ tags, const int n_symbols, const int width, const int final_nl, const int eot,
        const i64* __restrict__ rows, const i64* __restrict__ starts, const i64* __restrict__ ends, const i64 m,
        i64* out) {
    // One match per thread: its thread lists (kernel nodes in priority order) and their registers
    // (row-relative byte positions, -1 unset) in local memory, two generations swapped each step.
    int list[2][KMAX];
    int regs[2][KMAX][NREG > 0 ? NREG : 1];
    bool seen[KMAX];
    for (i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x; j < m; j += (i64)gridDim.x * blockDim.x) {
        const i64 row = rows[j];
        const i64 b = offsets[row], e = offsets[row + 1];
        const i64 s = starts[j], stop = ends[j];
        int cur = 0, n_cur = 1;
        list[0][0] = 0;
        for (int r = 0; r < NREG; ++r) regs[0][0][r] = -1;
        bool found = false;
        for (i64 p = s; p <= stop && n_cur > 0 && !found; ++p) {
            const int symbol = symbol_at(chars, bytemap, p, e, final_nl, eot);
            const int prev = kind_before(chars, kindmap, p, b, e);
            const int nxt = cur ^ 1;
            int n_next = 0;
            for (int k = 0; k < KMAX; ++k) seen[k] = false;
            const int here = (int)(p - b);
            bool cut = false;
            for (int t = 0; t < n_cur && !cut; ++t) {
                const int k = list[cur][t];
                const i64 base = (((i64)k * N_KINDS + prev) * n_symbols + symbol) * width;
                for (int l = 0; l < width; ++l) {
                    const int target = targets[base + l];
                    if (target < 0) break;
                    const i64 mask = tags[base + l];
                    if (target == KMAX) {  // the match node: a match ending here; lower threads are cut
                        if (p == stop) {
                            for (int r = 0; r < NREG; ++r) {
                                const int v = ((mask >> r) & 1) ? here : regs[cur][t][r];
                                out[j * NREG + r] = v < 0 ? -1 : b + v;
                            }
                            found = true;
                        }
                        if (p == s && !found) continue;  // an empty match at the start cuts nothing (must-advance)
                        cut = true;
                        break;
                    }
                    if (seen[target]) continue;
                    seen[target] = true;
                    list[nxt][n_next] = target;
                    for (int r = 0; r < NREG; ++r) regs[nxt][n_next][r] = ((mask >> r) & 1) ? here : regs[cur][t][r];
                    ++n_next;
                }
            }
            cur = nxt;
            n_cur = n_next;
        }
        if (!found)
            for (int r = 0; r < NREG; ++r) out[j * NREG + r] = -1;
    }
}
"""


@functools.lru_cache(maxsize=64)
def _kernel(n_kernel: int, n_reg: int) -> Any:
    import cupy as cp

    return cp.RawKernel(_CAPTURES, "regex_captures", options=(f"-DKMAX={n_kernel}", f"-DNREG={n_reg}"))


def captures(chars: Any, offsets: Any, rows: Any, starts: Any, ends: Any, program: CaptureProgram,
             xp: types.ModuleType) -> Any:  # fmt: skip
    """``[matches, 2 * groups]`` absolute byte positions (start, end per group; -1 where a group took no part)
    of the matches ``[starts, ends)`` of rows ``rows``.

    >>> chars = np.frombuffer(b"xab", np.uint8); offsets = np.array([0, 3])
    >>> program = compile_captures("(a)|(b)", 0)
    >>> captures(chars, offsets, np.array([0, 0]), np.array([1, 2]), np.array([2, 3]), program, np).tolist()
    [[1, 2, -1, -1], [-1, -1, 2, 3]]
    """
    m = rows.shape[0]
    n_reg = 2 * program.n_groups
    if _is_numpy(xp) or m == 0 or program.n_kernel * (2 * n_reg + 1) > KERNEL_LOCAL_INTS:
        return _captures_xp(chars, offsets, rows, starts, ends, program, xp)
    bytemap, kindmap, targets, tags = program.arrays(xp)
    rows, starts, ends = (xp.ascontiguousarray(a, dtype=np.int64) for a in (rows, starts, ends))
    out = xp.empty((m, n_reg), dtype=np.int64)
    _launch(_kernel(program.n_kernel, n_reg), m,
            (offsets, chars, bytemap, kindmap, targets, tags, np.int32(program.n_symbols), np.int32(program.width),
             np.int32(program.final_nl), np.int32(program.eot), rows, starts, ends, np.int64(m), out))  # fmt: skip
    return out


# --- column operations ----------------------------------------------------------------------------------------------


def group_spans(column: StringColumn, pattern: str, flags: int = 0, limit: int = -1) -> tuple:
    """Like :func:`riptide.core.regex.ops.spans`, plus each match's groups: ``(counts, rows, starts, ends,
    groups)`` with ``groups[match, 2g]`` / ``[match, 2g + 1]`` the start / end of group g + 1 (-1: no part).

    >>> import pyarrow as pa
    >>> col = StringColumn.from_arrow(pa.array(["x a1 b2"]), np)
    >>> group_spans(col, r"([a-z])(\\d)")[4].tolist()
    [[2, 3, 3, 4], [5, 6, 6, 7]]
    """
    ascii_text = _s._is_ascii(column)  # (one scalar read) ASCII text gets the smaller tables
    _ops.check_pattern(pattern, flags, ascii_text, need_spans=False)
    program = compile_captures(pattern, flags, ascii_text)
    counts, rows, starts, ends = _ops.spans(column, pattern, flags, limit, ascii_text)
    groups = captures(column.chars, column.offsets, rows, starts, ends, program, column.xp)
    return counts, rows, starts, ends, groups


def _group_column(column: StringColumn, rows: Any, groups: Any, g: int, size: int, empty_missing: bool
                  ) -> StringColumn:  # fmt: skip
    """Group g (0-based) of each match as a column of ``size`` rows (the matches' rows or the matches)."""
    xp = column.xp
    lo_m, hi_m = groups[:, 2 * g], groups[:, 2 * g + 1]
    took_part = lo_m >= 0
    if empty_missing:
        took_part &= hi_m > lo_m
    if rows is None:  # one output row per match
        lo, hi, valid = lo_m, hi_m, took_part
    else:
        lo = xp.zeros(size, dtype=np.int64)
        hi = xp.zeros(size, dtype=np.int64)
        valid = xp.zeros(size, dtype=bool)
        lo[rows] = lo_m
        hi[rows] = hi_m
        valid[rows] = took_part
    lo = xp.where(valid, lo, 0)
    hi = xp.where(valid, hi, 0)
    return _s._substrings(column, lo, hi, valid)


def extract_columns(column: StringColumn, pattern: str, flags: int = 0) -> list[StringColumn]:
    """``str.extract``: one column per group with the first match's group text, missing where the row does not
    match or the group takes no part.

    >>> import pyarrow as pa
    >>> col = StringColumn.from_arrow(pa.array(["joe@site.com", "none", None]), np)
    >>> [c.to_arrow().to_pylist() for c in extract_columns(col, r"([a-z]+)@([a-z]+)\\.com")]
    [['joe', None, None], ['site', None, None]]
    """
    counts, rows, starts, ends, groups = group_spans(column, pattern, flags, 1)
    n_groups = groups.shape[1] // 2
    return [_group_column(column, rows, groups, g, column.size, False) for g in range(n_groups)]


def extractall_columns(column: StringColumn, pattern: str, flags: int = 0) -> tuple[Any, Any, list]:
    """``str.extractall``: ``(rows, match number, columns)``, one output row per match (every match of every row,
    in order), a group's text missing where it took no part or is empty (pandas goes through ``re.findall``).

    >>> import pyarrow as pa
    >>> rows, number, cols = extractall_columns(StringColumn.from_arrow(pa.array(["a1a", "b2"]), np), r"([ab])(\\d)?")
    >>> rows.tolist(), number.tolist(), [c.to_arrow().to_pylist() for c in cols]
    ([0, 0, 1], [0, 1, 0], [['a', 'a', 'b'], ['1', None, '2']])
    """
    xp = column.xp
    counts, rows, starts, ends, groups = group_spans(column, pattern, flags, -1)
    number = xp.arange(rows.shape[0], dtype=np.int64) - _s._offsets_of(counts, xp)[rows]
    n_groups = groups.shape[1] // 2
    return rows, number, [_group_column(column, None, groups, g, 0, True) for g in range(n_groups)]


# --- replacement templates ------------------------------------------------------------------------------------------
def parse_template(repl: str, pattern: str, flags: int, re2: bool) -> list:
    """The replacement template as a list of ``str`` (literal text) and ``int`` (a group number, 0 the whole
    match): Python's ``re.sub`` rules (its own parser: ``\\1``, ``\\g<name>``, ``\\n``...), or with ``re2`` the
    rewrite rules of RE2 (``\\0``-``\\9`` and ``\\\\``) that pandas' pyarrow route follows. Raises
    :class:`Unsupported` where RE2 would reject it (pandas then gives its own error) and ``re.error`` where Python
    does.

    >>> parse_template(r"<\\1>\\n", "(a)", 0, False), parse_template(r"\\12", "(a)", 0, True)
    (['<', 1, '>\\n'], [1, '2'])
    """
    compiled = re.compile(pattern, flags)
    if re2:
        out: list = []
        i = 0
        while i < len(repl):
            c = repl[i]
            if c != "\\":
                out.append(c)
                i += 1
                continue
            nxt = repl[i + 1] if i + 1 < len(repl) else ""
            if nxt == "\\":
                out.append("\\")
            elif nxt.isdigit() and nxt.isascii():
                if int(nxt) > compiled.groups:
                    raise Unsupported("a group reference beyond the pattern's groups (RE2 rejects it)")
                out.append(int(nxt))
            else:
                raise Unsupported("an escape RE2's rewrite rules reject")
            i += 2
        return _merge_literals(out)
    parsed = _parse._sre.parse_template(repl, compiled)
    if isinstance(parsed, tuple):  # Python <= 3.11: (groups, literals)
        group_refs, literals = parsed
        literals = list(literals)
        for index, group in group_refs:
            literals[index] = group
        items = literals
    else:  # Python >= 3.12: literal, group, literal, ...
        items = [item for item in parsed]
    return _merge_literals([item for item in items if item is not None and item != ""])


def _merge_literals(items: list) -> list:
    out: list = []
    for item in items:
        if isinstance(item, str) and out and isinstance(out[-1], str):
            out[-1] += item
        else:
            out.append(item)
    return [item for item in out if item != ""]


def replace(column: StringColumn, pattern: str, template: list, n: int = -1, flags: int = 0) -> StringColumn:
    """Each row with its first ``n`` (all when < 0) matches replaced by the expanded ``template`` (see
    :func:`parse_template`; a group that took no part expands to nothing, as in Python >= 3.5).

    >>> import pyarrow as pa
    >>> col = StringColumn.from_arrow(pa.array(["a1b22", None]), np)
    >>> replace(col, r"([a-z])(\\d+)", [2, "-", 1], -1).to_arrow().to_pylist()
    ['1-a22-b', None]
    """
    xp = column.xp
    refs = [item for item in template if isinstance(item, int) and item > 0]
    if refs:
        counts, rows, starts, ends, groups = group_spans(column, pattern, flags, n)
    else:
        counts, rows, starts, ends = _ops.spans(column, pattern, flags, n)
        groups = xp.zeros((rows.shape[0], 0), dtype=np.int64)
    literal = "".join(item for item in template if isinstance(item, str))
    literal_bytes = _s._bytes_of(literal, xp)
    buffer = xp.concatenate([column.chars, literal_bytes])
    # the template's pieces stand in place of each match
    pieces, piece_start, piece_length, slot = _ops.rewrite_layout(column, counts, rows, starts, ends, len(template))
    offset = column.chars.shape[0]
    for i, item in enumerate(template):  # loop over the template's pieces
        if isinstance(item, str):
            size = len(item.encode("utf-8"))
            piece_start[slot + i] = offset
            piece_length[slot + i] = size
            offset += size
        elif item == 0:
            piece_start[slot + i] = starts
            piece_length[slot + i] = ends - starts
        else:
            lo, hi = groups[:, 2 * item - 2], groups[:, 2 * item - 1]
            piece_start[slot + i] = xp.maximum(lo, 0)
            piece_length[slot + i] = xp.where(lo >= 0, hi - lo, 0)
    return _s._join_pieces(buffer, piece_start, piece_length, pieces, column.mask, xp)


def split_pieces(column: StringColumn, pattern: str, n: int = -1, flags: int = 0) -> tuple[Any, Any, Any, Any]:
    """``re.split`` with capturing groups: the pieces between matches with every group's text after each match.
    ``(begin, end, valid, per_row)``: byte ranges row after row, whether each piece exists (a group that took no
    part is ``None`` in ``re.split``) and the pieces per row (0 for a missing row)."""
    xp = column.xp
    counts, rows, starts, ends, groups = group_spans(column, pattern, flags, n)
    n_groups = groups.shape[1] // 2
    row_start, row_end = column.offsets[:-1], column.offsets[1:]
    valid_rows = xp.ones(column.size, dtype=bool) if column.mask is None else column.mask
    per_match = n_groups + 1
    per_row = counts * per_match + 1
    base = _s._offsets_of(per_row, xp)[:-1]
    k = rows.shape[0]
    rank = xp.arange(k, dtype=np.int64) - _s._offsets_of(counts, xp)[rows]
    total = column.size + k * per_match
    begin = xp.zeros(total, dtype=np.int64)
    end = xp.zeros(total, dtype=np.int64)
    valid = xp.ones(total, dtype=bool)
    begin[base] = row_start
    end[base + per_row - 1] = row_end
    slot = base[rows] + per_match * rank
    end[slot] = starts
    for g in range(n_groups):  # loop over the groups
        lo, hi = groups[:, 2 * g], groups[:, 2 * g + 1]
        begin[slot + 1 + g] = xp.maximum(lo, 0)
        end[slot + 1 + g] = xp.maximum(hi, 0)
        valid[slot + 1 + g] = lo >= 0
    begin[slot + per_match] = ends
    keep = valid_rows[row_of_each_element(_s._offsets_of(per_row, xp), xp)]
    return begin[keep], end[keep], valid[keep], xp.where(valid_rows, per_row, 0)


def piece_columns(column: StringColumn, begin: Any, end: Any, valid: Any, per_row: Any, n_columns: int
                  ) -> list[StringColumn]:  # fmt: skip
    """Column t holds every row's t-th piece, missing where the row has fewer pieces or the piece is missing."""
    xp = column.xp
    first = _s._offsets_of(per_row, xp)[:-1]
    last = max(begin.shape[0] - 1, 0)
    out = []
    for t in range(n_columns):  # loop over output columns
        at = xp.minimum(first + t, last)
        has = per_row > t
        if begin.shape[0]:
            has = has & valid[at]
        lo = xp.where(has, begin[at] if begin.shape[0] else 0, 0)
        hi = xp.where(has, end[at] if end.shape[0] else 0, 0)
        out.append(_s._substrings(column, lo, hi, has))
    return out
