"""Python regular expressions to riptide's small regex AST (the device engine's input).

Python's own parser (``re._parser``, formerly ``sre_parse``) reads the pattern, so the syntax, the flags and the
error messages are exactly Python's. Its tree is then translated into a few node kinds:

* ``("set", ranges)``: one code point from ``ranges`` (sorted, disjoint ``(lo, hi)`` pairs, inclusive). Every
  single-character construct becomes one: literals, ``.``, ``[...]`` with ranges, negation and ``\\d \\w \\s``, under
  IGNORECASE / DOTALL / ASCII. Its code points are found by letting Python's ``re`` itself run the one-character
  pattern over a string of every code point (once per class and flags, cached), so Unicode classes and case
  folding are Python's to the letter, with no table of ours to drift from it.
* ``("cat", [nodes])``, ``("alt", [nodes])`` (in priority order), ``("rep", min, max | None, greedy, node)``,
  ``("group", index | None, name | None, node)``, ``("empty",)``;
* ``("assert", pairs)``: a zero-width test on the kinds of the characters before and after the position (see
  :data:`KINDS`). ``pairs`` is the frozenset of ``(before, after)`` kind pairs where it holds, which makes every
  anchor (``^ $ \\A \\Z \\b \\B``, with or without MULTILINE) one shape and reversing a pattern a swap.

Anything else (lookaround, backreferences, conditionals, atomic groups, possessive repeats) raises
:class:`Unsupported` with the reason, and the caller computes that pattern on the host instead.
"""

from __future__ import annotations

import functools
import re
import sys
from typing import Any

__all__ = ["Unsupported", "parse", "KINDS", "reverse", "uses_word_boundary", "can_be_empty", "has_empty_loop", "group_info", "walk"]

try:  # Python >= 3.11 names it re._parser; older versions sre_parse
    from re import _parser as _sre  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_parse as _sre  # type: ignore[no-redef]

_c = _sre  # the opcode constants live on the parser module (re._constants re-exported)
MAXREPEAT = _c.MAXREPEAT


class Unsupported(Exception):
    """A construct the device engine does not run; ``str(exc)`` is the reason shown in the fallback warning."""


# Kinds of the character on either side of a position, for the zero-width assertions.
BOUND, NL, FINAL_NL, WORD, OTHER = range(5)
KINDS = (BOUND, NL, FINAL_NL, WORD, OTHER)
_ALL_PAIRS = [(p, n) for p in KINDS for n in KINDS]
# Python 3.14 made \B match the empty string; before, it never matches there.
_NON_BOUNDARY_MATCHES_EMPTY = sys.version_info >= (3, 14)


def _pairs(test: Any) -> frozenset:
    return frozenset(pair for pair in _ALL_PAIRS if test(*pair))


def _assertion(at: Any, flags: int) -> frozenset:
    multiline = bool(flags & re.MULTILINE)
    line_starts = {BOUND, NL, FINAL_NL}
    if at in (_c.AT_BEGINNING_STRING,) or (at == _c.AT_BEGINNING and not multiline):
        return _pairs(lambda p, n: p == BOUND)
    if at == _c.AT_BEGINNING:  # ^ under MULTILINE: at the start or after any newline
        return _pairs(lambda p, n: p in line_starts)
    if at == _c.AT_END_STRING:  # \Z
        return _pairs(lambda p, n: n == BOUND)
    if at == _c.AT_END and not multiline:  # $: at the end or before a newline that ends the string
        return _pairs(lambda p, n: n in (BOUND, FINAL_NL))
    if at == _c.AT_END:
        return _pairs(lambda p, n: n in line_starts)
    if at == _c.AT_BOUNDARY:
        return _pairs(lambda p, n: (p == WORD) != (n == WORD))
    if at == _c.AT_NON_BOUNDARY:
        return _pairs(lambda p, n: (p == WORD) == (n == WORD)
                      and (_NON_BOUNDARY_MATCHES_EMPTY or not (p == BOUND and n == BOUND)))  # fmt: skip
    raise Unsupported(f"the assertion {at}")


# --- character classes --------------------------------------------------------------------------------------------
_CATEGORY_TEXT = {
    _c.CATEGORY_DIGIT: r"\d", _c.CATEGORY_NOT_DIGIT: r"\D", _c.CATEGORY_WORD: r"\w", _c.CATEGORY_NOT_WORD: r"\W",
    _c.CATEGORY_SPACE: r"\s", _c.CATEGORY_NOT_SPACE: r"\S",
}  # fmt: skip
_CLASS_FLAGS = re.IGNORECASE | re.DOTALL | re.ASCII
_SURROGATES = (0xD800, 0xDFFF)


def _escape(cp: int) -> str:
    return "\\U%08x" % cp


def _class_text(op: Any, av: Any) -> str:
    """A stand-alone Python pattern for one single-character node."""
    if op == _c.LITERAL:
        return _escape(av)
    if op == _c.NOT_LITERAL:
        return "[^" + _escape(av) + "]"
    if op == _c.ANY:
        return "."
    if op == _c.IN:
        parts = []
        negate = False
        for item_op, item_av in av:
            if item_op == _c.NEGATE:
                negate = True
            elif item_op == _c.LITERAL:
                parts.append(_escape(item_av))
            elif item_op == _c.RANGE:
                parts.append(_escape(item_av[0]) + "-" + _escape(item_av[1]))
            elif item_op == _c.CATEGORY:
                if item_av not in _CATEGORY_TEXT:
                    raise Unsupported(f"the character category {item_av}")
                parts.append(_CATEGORY_TEXT[item_av])
            else:
                raise Unsupported(f"the class item {item_op}")
        return "[" + ("^" if negate else "") + "".join(parts) + "]"
    raise Unsupported(f"the node {op}")


@functools.cache
def _all_code_points() -> str:
    return "".join(map(chr, range(0x110000)))


@functools.lru_cache(maxsize=4096)
def class_ranges(text: str, flags: int) -> tuple:
    """The code points (ranges, surrogates excluded) that the one-character pattern ``text`` matches under ``flags``.

    >>> class_ranges("[a-c]", 0), class_ranges("\\\\U0000006b", re.IGNORECASE)
    (((97, 99),), ((75, 75), (107, 107), (8490, 8490)))
    """
    compiled = re.compile("(?:" + text + ")+", flags & _CLASS_FLAGS)
    out = []
    for m in compiled.finditer(_all_code_points()):
        lo, hi = m.start(), m.end() - 1
        # drop the surrogates (they never occur in UTF-8 text)
        if hi < _SURROGATES[0] or lo > _SURROGATES[1]:
            out.append((lo, hi))
        else:
            if lo < _SURROGATES[0]:
                out.append((lo, _SURROGATES[0] - 1))
            if hi > _SURROGATES[1]:
                out.append((_SURROGATES[1] + 1, hi))
    return tuple(out)


def _simple_ranges(op: Any, av: Any, flags: int) -> tuple | None:
    """The common cases without a scan of all code points: literals and plain ranges, case-sensitive."""
    if flags & re.IGNORECASE:
        return None
    if op == _c.LITERAL:
        return ((av, av),) if not (_SURROGATES[0] <= av <= _SURROGATES[1]) else ()
    if op == _c.IN:
        ranges = []
        for item_op, item_av in av:
            if item_op == _c.LITERAL:
                ranges.append((item_av, item_av))
            elif item_op == _c.RANGE:
                ranges.append(tuple(item_av))
            else:
                return None
        return _normalize(ranges)
    return None


def _normalize(ranges: list) -> tuple:
    out: list = []
    for lo, hi in sorted(ranges):
        if hi >= _SURROGATES[0] and lo <= _SURROGATES[1]:
            return None  # type: ignore[return-value]  # let the general path cut the surrogates out
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def _set_node(op: Any, av: Any, flags: int) -> tuple:
    ranges = _simple_ranges(op, av, flags)
    if ranges is None:
        ranges = class_ranges(_class_text(op, av), flags & _CLASS_FLAGS)
    return ("set", ranges)


# --- the tree ------------------------------------------------------------------------------------------------------
def _translate(subpattern: Any, flags: int) -> tuple:
    items = [_node(op, av, flags) for op, av in subpattern]
    if not items:
        return ("empty",)
    return items[0] if len(items) == 1 else ("cat", items)


def _node(op: Any, av: Any, flags: int) -> tuple:
    if op in (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN):
        return _set_node(op, av, flags)
    if op == _c.BRANCH:
        return ("alt", [_translate(branch, flags) for branch in av[1]])
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
        lo, hi, item = av
        return ("rep", lo, None if hi == MAXREPEAT else hi, op == _c.MAX_REPEAT, _translate(item, flags))
    if op == _c.SUBPATTERN:
        group, add_flags, del_flags, item = av
        return ("group", group, None, _translate(item, (flags | add_flags) & ~del_flags))
    if op == _c.AT:
        return ("assert", _assertion(av, flags))
    names = {
        _c.ASSERT: "lookahead/lookbehind assertions", _c.ASSERT_NOT: "negative lookaround assertions",
        _c.GROUPREF: "backreferences", _c.GROUPREF_EXISTS: "conditional groups",
    }  # fmt: skip
    for name in ("ATOMIC_GROUP", "POSSESSIVE_REPEAT"):
        if hasattr(_c, name) and op == getattr(_c, name):
            raise Unsupported(name.lower().replace("_", " ") + "s")
    raise Unsupported(names.get(op, f"the regex construct {op}"))


def parse(pattern: str, flags: int = 0) -> tuple[tuple, int, dict]:
    """``(ast, number of groups, {name: index})`` of a Python pattern; ``re.error`` for an invalid one,
    :class:`Unsupported` for one beyond the device engine.

    >>> parse("a|b.")[0][0], parse("(?P<x>a)b")[1:]
    ('alt', (1, {'x': 1}))
    """
    if not isinstance(pattern, str):
        raise Unsupported("a bytes pattern")
    if flags & re.LOCALE:
        raise Unsupported("the LOCALE flag")
    tree = _sre.parse(pattern, flags)
    state = tree.state
    flags = state.flags
    ast = _translate(tree, flags)
    names = dict(state.groupdict)
    n_groups = state.groups - 1
    if names:
        ast = _name_groups(ast, {index: name for name, index in names.items()})
    return ast, n_groups, names


def _name_groups(node: tuple, by_index: dict) -> tuple:
    kind = node[0]
    if kind == "group":
        return ("group", node[1], by_index.get(node[1]), _name_groups(node[3], by_index))
    if kind in ("cat", "alt"):
        return (kind, [_name_groups(child, by_index) for child in node[1]])
    if kind == "rep":
        return node[:4] + (_name_groups(node[4], by_index),)
    return node


def reverse(node: tuple) -> tuple:
    """The AST matching the reversed strings (concatenations reversed, assertions' sides swapped).

    >>> reverse(("cat", [("set", ((97, 97),)), ("set", ((98, 98),))]))
    ('cat', [('set', ((98, 98),)), ('set', ((97, 97),))])
    """
    kind = node[0]
    if kind == "cat":
        return ("cat", [reverse(child) for child in reversed(node[1])])
    if kind == "alt":
        return ("alt", [reverse(child) for child in node[1]])
    if kind == "rep":
        return node[:4] + (reverse(node[4]),)
    if kind == "group":
        return node[:3] + (reverse(node[3]),)
    if kind == "assert":
        return ("assert", frozenset((n, p) for p, n in node[1]))
    return node


def walk(node: tuple):
    """Every node of the AST (pre-order)."""
    yield node
    kind = node[0]
    if kind in ("cat", "alt"):
        for child in node[1]:
            yield from walk(child)
    elif kind == "rep":
        yield from walk(node[4])
    elif kind == "group":
        yield from walk(node[3])


def uses_word_boundary(node: tuple) -> bool:
    """Whether an assertion looks at the word-ness of a character (\\b, \\B): only right for ASCII text here."""
    for n in walk(node):
        if n[0] == "assert":
            pairs = n[1]
            for p, q in _ALL_PAIRS:
                inside = (p, q) in pairs
                if p == WORD and ((OTHER, q) in pairs) != inside:
                    return True
                if q == WORD and ((p, OTHER) in pairs) != inside:
                    return True
    return False


def can_be_empty(node: tuple) -> bool:
    """Whether the node can match the empty string (ignoring assertions' conditions)."""
    kind = node[0]
    if kind == "set":
        return False
    if kind == "cat":
        return all(can_be_empty(child) for child in node[1])
    if kind == "alt":
        return any(can_be_empty(child) for child in node[1])
    if kind == "rep":
        return node[1] == 0 or can_be_empty(node[4])
    if kind == "group":
        return can_be_empty(node[3])
    return True


def has_empty_loop(node: tuple) -> bool:
    """Whether a repeat that may run more than once has a body that can match the empty string (``(a|)*``):
    there Python's backtracking engine picks matches an automaton cannot reproduce exactly, so spans and counts of
    such patterns are computed on the host."""
    return any(n[0] == "rep" and (n[2] is None or n[2] > 1) and can_be_empty(n[4]) for n in walk(node))


def group_info(node: tuple) -> list:
    """``(index, name)`` of every capturing group, in index order."""
    found = {n[1]: n[2] for n in walk(node) if n[0] == "group" and n[1] is not None}
    return sorted(found.items())
