"""The DFA the device walks: subset construction on the host, with Python's leftmost-first priority.

A DFA state is an *ordered* list of NFA threads (RE2's construction): threads keep the priority Python's
backtracking engine would try them in, and when the epsilon closure reaches the match node every lower-priority
thread is cut. Walking such a DFA, the last position where a match was flagged before the state dies is the end of
the leftmost-first match, the one ``re.search`` returns.

**Symbols.** Bytes are grouped into equivalence classes (bytes no range boundary separates). Two extra symbols:
``FINAL_NL`` (a newline that is the last byte of its row: where Python's ``$`` also matches) and ``EOT`` (the end of
the row). The device computes each position's symbol from the byte and the position, so the table needs no
look-ahead.

**Assertions and the delayed match.** ``^ $ \\A \\Z \\b \\B`` depend on the characters on both sides of a position.
A DFA state therefore remembers the *kind* of the previous symbol (``parse.KINDS``), and its epsilon closure is
taken when the next symbol is read: the transition on symbol ``x`` first closes the state's threads knowing both
neighbours, notes whether the match node was reached (a match that *ends before* ``x``), then consumes ``x``. Every
table entry is ``next_state << 2 | flag``, flag 0 (no match), 1 (a match ending here) or 2 (an *empty* match here:
one whose thread started at this position, which the ``count`` / ``replace`` iteration needs to know, as Python
then forbids another empty match at the same place). State 0 is the dead state.

**Modes.** ``search``: a lazy any-code-point loop runs in front of the pattern (threads start only at code-point
boundaries). ``anchored``: matches must start where the walk starts (``str.match``; ``fullmatch`` appends ``\\Z``).
``reverse``: the reversed pattern, anchored, with no cut, walked backwards from a match's end: the last flag is the
leftmost start, i.e. the start of the leftmost-first match (its start is the leftmost position from which the
pattern can reach that end; no position between the search start and it can, or the search would have matched
there).

Start states are tabulated per kind of the previous character and per "suppress": the start state used right after
an empty match ignores a match at its first position (Python's must-advance rule).

**Hopeless states.** A state from which no flagged transition can be reached is replaced by the dead state in the
table (:func:`_prune_hopeless`): walks stop there instead of reading on to the row's end, with the same answers.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from riptide.core.regex import nfa as _nfa
from riptide.core.regex import parse as _parse
from riptide.core.regex.parse import BOUND, FINAL_NL, KINDS, NL, OTHER, WORD, Unsupported

__all__ = ["Program", "compile_program", "MAX_STATES"]

MAX_STATES = 4000
_WORD_BYTES = [(48, 57), (65, 90), (95, 95), (97, 122)]
_END_STRING = frozenset((p, n) for p in KINDS for n in KINDS if n == BOUND)


class Program:
    """One compiled DFA: host tables (NumPy) and their per-device copies.

    ``bytemap[b]``: the class of byte b; ``kindmap[b]``: its kind (NL, WORD or OTHER);
    ``table[state, symbol]``: ``next << 2 | flag``; ``start[kind_before, suppress]``: the start state;
    ``final_nl`` and ``eot``: the two extra symbols.
    """

    def __init__(self, bytemap: np.ndarray, kindmap: np.ndarray, table: np.ndarray, start: np.ndarray,
                 mode: str) -> None:  # fmt: skip
        self.bytemap = bytemap
        self.kindmap = kindmap
        self.table = table
        self.start = start
        self.mode = mode
        self.n_symbols = int(table.shape[1])
        self.final_nl = self.n_symbols - 2
        self.eot = self.n_symbols - 1
        self._device: dict = {}

    @property
    def n_states(self) -> int:
        return int(self.table.shape[0])

    def arrays(self, xp: Any) -> tuple:
        """(bytemap, kindmap, flat table, flat start) as arrays of ``xp``, copied once per device."""
        return per_device(self._device, (self.bytemap, self.kindmap, self.table.ravel(), self.start.ravel()), xp)


def per_device(copies: dict, arrays: tuple, xp: Any) -> tuple:
    """Host ``arrays`` as arrays of ``xp``: themselves on NumPy, else copied once per device (kept in ``copies``)."""
    if xp is np:
        return arrays
    key = (xp.__name__, int(xp.cuda.runtime.getDevice()))
    found = copies.get(key)
    if found is None:
        found = copies[key] = tuple(xp.asarray(a) for a in arrays)
    return found


def byte_symbols(nodes: list) -> tuple[np.ndarray, list, np.ndarray, list]:
    """``(bytemap, representative, kindmap, symbol_kind)`` of an NFA's nodes: the class of every byte, one byte
    of each class, the kind of every byte, and the kind of every symbol (the classes, then FINAL_NL and BOUND; the
    classes never mix kinds, as newline and word bytes are class boundaries)."""
    bytemap = _byte_classes(nodes)
    representative = [int(np.flatnonzero(bytemap == c)[0]) for c in range(int(bytemap.max()) + 1)]
    kindmap = _kind_of_byte()
    symbol_kind = [int(kindmap[r]) for r in representative] + [FINAL_NL, BOUND]
    return bytemap, representative, kindmap, symbol_kind


def _byte_classes(nodes: list) -> np.ndarray:
    cut = np.zeros(257, dtype=bool)
    cut[0] = True
    for node in nodes:
        if node is not None and node[0] == "byte":
            for lo, hi, _ in node[1]:
                cut[lo] = cut[hi + 1] = True
    for lo, hi in _WORD_BYTES + [(10, 10)]:
        cut[lo] = cut[hi + 1] = True
    return (np.cumsum(cut[:256]) - 1).astype(np.int32)


def _kind_of_byte() -> np.ndarray:
    kinds = np.full(256, OTHER, dtype=np.int32)
    for lo, hi in _WORD_BYTES:
        kinds[lo : hi + 1] = WORD
    kinds[10] = NL
    return kinds


class _Builder:
    def __init__(self, nfa: Any, cut: bool, assertions: list) -> None:
        self.nfa = nfa
        self.nodes = nfa.nodes
        self.cut = cut
        self.bytemap, self.representative, self.kindmap, self.symbol_kind = byte_symbols(nfa.nodes)
        self.n_classes = len(self.representative)
        # previous kinds no assertion tells apart share one canonical kind (fewer states)
        signature = {k: tuple((k, n) in pairs for pairs in assertions for n in KINDS) for k in KINDS}
        self.canonical = {k: min(j for j in KINDS if signature[j] == signature[k]) for k in KINDS}
        self.transitions: dict = {}
        self.states: list = [((), 0, False)]
        self.index: dict = {self.states[0]: 0}

    def _byte_targets(self, i: int) -> list:
        found = self.transitions.get(i)
        if found is None:
            found = [-1] * self.n_classes
            for lo, hi, target in self.nodes[i][1]:
                for c in range(self.n_classes):
                    if lo <= self.representative[c] <= hi:
                        found[c] = target
            self.transitions[i] = found
        return found

    def state(self, kernel: tuple, prev: int, suppress: bool) -> int:
        if not kernel:
            return 0
        key = (kernel, self.canonical[prev], suppress)
        found = self.index.get(key)
        if found is None:
            found = len(self.states)
            if found >= MAX_STATES:
                raise Unsupported(f"a pattern whose automaton needs more than {MAX_STATES} states")
            self.states.append(key)
            self.index[key] = found
        return found

    def closure(self, kernel: tuple, prev: int, nxt: int, suppress: bool) -> tuple[list, int]:
        nodes, fresh_roots = self.nodes, self.nfa.fresh
        visited: set = set()
        out: list = []
        flag = 0
        for root in kernel:
            fresh = root in fresh_roots
            stack = [root]
            while stack:
                i = stack.pop()
                node = nodes[i]
                kind = node[0]
                if kind == "loop":
                    if i in visited:  # back to the loop head with no byte consumed: an empty iteration ends it
                        stack.append(node[2])
                        continue
                    visited.add(i)
                    stack.extend((node[2], node[1]) if node[3] else (node[1], node[2]))
                    continue
                if i in visited:
                    continue
                visited.add(i)
                if kind == "byte":
                    out.append(i)
                elif kind == "split":
                    stack.extend(reversed(node[1]))
                elif kind == "eps":
                    stack.append(node[1])
                elif kind == "assert":
                    if (prev, nxt) in node[1]:
                        stack.append(node[2])
                elif kind == "match" and not suppress:
                    flag = flag or (2 if fresh else 1)
                    if self.cut:  # leftmost-first: the threads after the match are never preferred
                        return out, flag
        return out, flag

    def step(self, threads: list, cls: int) -> tuple:
        seen: set = set()
        kernel = []
        for i in threads:
            target = self._byte_targets(i)[cls]
            if target >= 0 and target not in seen:
                seen.add(target)
                kernel.append(target)
        return tuple(kernel)

    def run(self) -> tuple[np.ndarray, np.ndarray]:
        n_symbols = self.n_classes + 2
        start = np.zeros((len(KINDS), 2), dtype=np.int32)
        for k in KINDS:
            for suppress in (0, 1):
                start[k, suppress] = self.state((self.nfa.start,), k, bool(suppress))
        rows: list = [[0] * n_symbols]
        newline_class = int(self.bytemap[10])
        done = 1
        while done < len(self.states):
            kernel, prev, suppress = self.states[done]
            row = []
            closures: dict = {}
            for symbol in range(n_symbols):
                nxt_kind = self.symbol_kind[symbol]
                if nxt_kind not in closures:
                    closures[nxt_kind] = self.closure(kernel, prev, nxt_kind, suppress)
                threads, flag = closures[nxt_kind]
                if symbol == n_symbols - 1:  # end of text: only the flag matters
                    row.append(flag)
                    continue
                cls = symbol if symbol < self.n_classes else newline_class
                target = self.state(self.step(threads, cls), nxt_kind, False)
                row.append(target << 2 | flag)
            rows.append(row)
            done += 1
        return np.asarray(rows, dtype=np.int32).reshape(-1, n_symbols), start


def _assertions(ast: tuple) -> list:
    found = {node[1] for node in _parse.walk(ast) if node[0] == "assert"}
    return sorted(found, key=sorted)


def build_program(ast: tuple, mode: str, ascii_text: bool = False) -> Program:
    """The DFA of an AST in ``mode`` ("search", "anchored", "fullmatch" or "reverse")."""
    if mode == "fullmatch":
        ast = ("cat", [ast, ("assert", _END_STRING)])
    if mode == "reverse":
        ast = _parse.reverse(ast)
    automaton = _nfa.build(ast, search=mode == "search", backwards=mode == "reverse", ascii_text=ascii_text)
    builder = _Builder(automaton, cut=mode != "reverse", assertions=_assertions(ast))
    table, start = builder.run()
    return Program(builder.bytemap, builder.kindmap, _prune_hopeless(table), start, mode)


def _prune_hopeless(table: np.ndarray) -> np.ndarray:
    """The table with every transition into a *hopeless* state (one from which no flagged transition can be
    reached) sent to the dead state instead.

    A walk keeps the last flag it saw before its state dies; from a hopeless state it sees none, so ending there
    changes no answer, only stops the walk sooner. It matters for patterns such as ``^abc`` in search mode: the
    search loop's thread lives on at every later position, but ``^`` can never hold again, so after the first byte
    the state is hopeless and each row stops there instead of walking to its end.
    """
    n_states = table.shape[0]
    useful = (table & 3).any(axis=1)
    targets = table >> 2
    # the distinct edges (source -> target), then a backward search from the states with a flag, a level at a time
    edges = np.unique(np.arange(n_states, dtype=np.int64)[:, None] * n_states + targets)
    source, target = edges // n_states, edges % n_states
    frontier = useful.copy()
    while True:
        reached = np.zeros(n_states, dtype=bool)
        reached[source[frontier[target]]] = True
        frontier = reached & ~useful
        if not frontier.any():
            break
        useful |= frontier
    useful[0] = False
    if (useful[targets] | (targets == 0)).all():
        return table
    return (np.where(useful[targets], targets, 0) << 2 | (table & 3)).astype(np.int32)


def _ascii_only(node: tuple) -> tuple:
    """The AST with every set cut to ASCII: the same answers on ASCII text, and a far smaller DFA for Unicode
    classes such as ``\\w`` (on text known to be ASCII, the only kind it is used for)."""
    kind = node[0]
    if kind == "set":
        return ("set", tuple((lo, min(hi, 0x7F)) for lo, hi in node[1] if lo <= 0x7F))
    if kind in ("cat", "alt"):
        return (kind, [_ascii_only(child) for child in node[1]])
    if kind == "rep":
        return node[:4] + (_ascii_only(node[4]),)
    if kind == "group":
        return node[:3] + (_ascii_only(node[3]),)
    return node


@functools.lru_cache(maxsize=256)
def compile_program(pattern: str, flags: int, mode: str, ascii_text: bool = False) -> Program:
    """The cached DFA of a Python pattern (``re.error`` if invalid, :class:`Unsupported` beyond the engine);
    ``ascii_text``: for text known to hold only ASCII.

    >>> p = compile_program("ab|b", 0, "search")
    >>> p.mode, p.n_states > 1
    ('search', True)
    """
    ast = _parse.parse(pattern, flags)[0]
    if ascii_text:
        ast = _ascii_only(ast)
    return build_program(ast, mode, ascii_text)


def simulate(program: Program, data: bytes, pos: int = 0, suppress: bool = False, stop_at_first: bool = False
             ) -> tuple[int, int]:  # fmt: skip
    """Host reference walk of one string from byte ``pos``: ``(end, flag)`` of the last match flagged before
    the state dies (the first one with ``stop_at_first``), ``(-1, 0)`` if none. For tests and doctests.

    >>> simulate(compile_program("a+", 0, "search"), b"xaay")
    (3, 1)
    """
    prev = BOUND if pos == 0 else _kind_at(program, data, pos - 1)
    state = int(program.start[prev, int(suppress)])
    last = (-1, 0)
    p = pos
    while True:
        symbol = _symbol_at(program, data, p)
        entry = int(program.table[state, symbol])
        flag = entry & 3
        if flag:
            last = (p, flag)
            if stop_at_first:
                return last
        state = entry >> 2
        if symbol == program.eot or state == 0:
            return last
        p += 1


def _symbol_at(program: Program, data: bytes, p: int) -> int:
    if p >= len(data):
        return program.eot
    if data[p] == 10 and p == len(data) - 1:
        return program.final_nl
    return int(program.bytemap[data[p]])


def _kind_at(program: Program, data: bytes, p: int) -> int:
    if p < 0 or p >= len(data):
        return BOUND
    if data[p] == 10 and p == len(data) - 1:
        return FINAL_NL
    return int(program.kindmap[data[p]])

