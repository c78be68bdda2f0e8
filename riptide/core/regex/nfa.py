"""A Thompson NFA over UTF-8 bytes, built from the AST of :mod:`riptide.core.regex.parse`.

The device walks bytes, so a set of code points becomes a small byte automaton: each code-point range is cut into
ranges whose UTF-8 encodings differ only in trailing bytes that span the whole continuation range (Russ Cox's
``utf8ranges``), and those byte-range sequences are merged into a trie. ``[à-ÿ]`` is one two-byte path; ``\\w``
a few hundred short ones.

Nodes (``NFA.nodes[i]``, tuples so that the subset construction can hash them):

* ``("byte", ((lo, hi, next), ...))``: consume one byte in one of the disjoint ranges;
* ``("split", (a, b, ...))``: epsilon moves in priority order (alternation, ``?``);
* ``("loop", body, exit, greedy)``: the head of a ``*`` / ``+`` / ``{m,}``; reaching it again with no byte consumed
  (an empty iteration) goes on to ``exit``, which is how Python's engine stops a loop whose body matched nothing;
* ``("assert", pairs, next)``: a zero-width test (see ``parse.KINDS``);
* ``("eps", next, tag)``: an epsilon move (group boundaries: ``tag`` is ``(group, 0 | 1)``; ``None`` otherwise);
* ``("match",)``.

The construction is in continuation-passing style: each node is compiled knowing where it continues, so no
patch lists are needed. Bounded repeats are expanded (``x{2,4}`` is ``xx(x(x)?)?``); the size is capped.
"""

from __future__ import annotations

from typing import Any

from riptide.core.regex.parse import Unsupported

__all__ = ["NFA", "build", "utf8_sequences", "MAX_NODES"]

MAX_NODES = 50_000
_MAX_CP = 0x10FFFF


def _encode(cp: int) -> bytes:
    return chr(cp).encode("utf-8", "surrogatepass")


def utf8_sequences(lo: int, hi: int) -> list[list[tuple[int, int]]]:
    """Byte-range sequences whose union of encodings is exactly the code points ``lo..hi`` (surrogates excluded).

    >>> utf8_sequences(0x61, 0x7A), utf8_sequences(0xE0, 0xFF)
    ([[(97, 122)]], [[(195, 195), (160, 191)]])
    """
    out: list = []
    stack = [(lo, hi)]
    while stack:
        a, b = stack.pop()
        if a > b:
            continue
        if a <= 0xDFFF and b >= 0xD800:  # cut the surrogates out
            stack.append((0xE000, b))
            stack.append((a, 0xD7FF))
            continue
        # split at the encoded-length boundaries
        split = False
        for limit in (0x7F, 0x7FF, 0xFFFF):
            if a <= limit < b:
                stack.append((limit + 1, b))
                stack.append((a, limit))
                split = True
                break
        if split:
            continue
        if b < 0x80:
            out.append([(a, b)])
            continue
        # align to continuation boundaries: a..b must share all but whole trailing-byte ranges
        n = len(_encode(a))
        for i in range(1, n):
            m = (1 << (6 * i)) - 1
            if (a & ~m) != (b & ~m):
                if a & m:
                    stack.append(((a | m) + 1, b))
                    stack.append((a, a | m))
                    split = True
                    break
                if (b & m) != m:
                    stack.append((b & ~m, b))
                    stack.append((a, (b & ~m) - 1))
                    split = True
                    break
        if split:
            continue
        ea, eb = _encode(a), _encode(b)
        out.append([(ea[k], eb[k]) for k in range(n)])
    out.sort()
    return out


class NFA:
    """The nodes, the entry node and the first node of each group (for the capture engine)."""

    __slots__ = ("nodes", "start", "fresh")

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.start = -1
        self.fresh: frozenset = frozenset()

    def add(self, node: Any) -> int:
        self.nodes.append(node)
        if len(self.nodes) > MAX_NODES:
            raise Unsupported(f"a pattern this large (more than {MAX_NODES} automaton states)")
        return len(self.nodes) - 1

    def set(self, index: int, node: Any) -> None:
        self.nodes[index] = node


def _set_trie(nfa: NFA, ranges: tuple, nxt: int, backwards: bool = False) -> int:
    """A byte automaton for the code points ``ranges`` that continues at ``nxt`` (reading each code point's bytes
    last to first with ``backwards``: then the sequences' prefixes may overlap, so each is its own chain)."""
    if backwards:
        chains = []
        for lo, hi in ranges:
            for seq in utf8_sequences(lo, hi):
                target = nxt
                for rng in seq:  # the first byte is read last
                    target = nfa.add(("byte", ((rng[0], rng[1], target),)))
                chains.append(target)
        return chains[0] if len(chains) == 1 else nfa.add(("split", tuple(chains)))
    trie: dict = {}
    for lo, hi in ranges:
        for seq in utf8_sequences(lo, hi):
            node = trie
            for k, rng in enumerate(seq):
                last = k == len(seq) - 1
                if last:
                    node[rng] = None
                else:
                    node = node.setdefault(rng, {})
    return _emit_trie(nfa, trie, nxt)


def _emit_trie(nfa: NFA, trie: dict, nxt: int) -> int:
    # Prefix ranges of different sequences may overlap only when equal (utf8_sequences aligns them), except for
    # leaves; keep ranges sorted and disjoint by construction.
    edges = []
    for (lo, hi), child in sorted(trie.items()):
        target = nxt if child is None else _emit_trie(nfa, child, nxt)
        if edges and lo <= edges[-1][1]:  # never expected: utf8_sequences gives equal or disjoint prefixes
            raise Unsupported("an overlapping UTF-8 byte range")
        edges.append((lo, hi, target))
    return nfa.add(("byte", tuple(edges)))


def build(ast: tuple, search: bool, backwards: bool = False, ascii_text: bool = False) -> NFA:
    """The NFA of ``ast``; with ``search`` a lazy any-character loop in front finds matches anywhere.

    ``nfa.start`` is the entry; ``nfa.fresh`` (node ids) are the entries through which a thread starts a new
    match attempt at the current position (so a match reached from them is an empty match).
    """
    nfa = NFA()
    match = nfa.add(("match",))
    entry = _compile(nfa, ast, match, backwards)
    fresh = nfa.add(("eps", entry, None))
    if search:
        loop = nfa.add(None)
        any_char = _set_trie(nfa, ((0, 0x7F if ascii_text else _MAX_CP),), loop)
        nfa.set(loop, ("split", (fresh, any_char)))
        nfa.start = loop
        nfa.fresh = frozenset((loop, fresh))
    else:
        nfa.start = fresh
        nfa.fresh = frozenset((fresh,))
    return nfa


def _compile(nfa: NFA, node: tuple, nxt: int, backwards: bool) -> int:
    kind = node[0]
    if kind == "set":
        if not node[1]:
            return nfa.add(("byte", ()))  # matches nothing
        return _set_trie(nfa, node[1], nxt, backwards)
    if kind == "empty":
        return nxt
    if kind == "cat":
        for child in reversed(node[1]):
            nxt = _compile(nfa, child, nxt, backwards)
        return nxt
    if kind == "alt":
        return nfa.add(("split", tuple(_compile(nfa, child, nxt, backwards) for child in node[1])))
    if kind == "group":
        group = node[1]
        if group is None:
            return _compile(nfa, node[3], nxt, backwards)
        close = nfa.add(("eps", nxt, (group, 1)))
        inner = _compile(nfa, node[3], close, backwards)
        return nfa.add(("eps", inner, (group, 0)))
    if kind == "assert":
        return nfa.add(("assert", node[1], nxt))
    if kind == "rep":
        _, lo, hi, greedy, body = node
        if hi is not None and hi < lo:
            return nfa.add(("byte", ()))
        if lo > 1000 or (hi is not None and hi > 1000):
            raise Unsupported("a repeat count above 1000")
        if hi is None:
            loop = nfa.add(None)
            body_entry = _compile(nfa, body, loop, backwards)
            nfa.set(loop, ("loop", body_entry, nxt, greedy))
            tail = loop
        else:
            tail = nxt
            for _ in range(hi - lo):  # optional copies, innermost first
                body_entry = _compile(nfa, body, tail, backwards)
                tail = nfa.add(("split", (body_entry, nxt) if greedy else (nxt, body_entry)))
        for _ in range(lo):  # mandatory copies
            tail = _compile(nfa, body, tail, backwards)
        return tail
    raise Unsupported(f"the node {kind}")
