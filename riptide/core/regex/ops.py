"""Regular-expression operations on a :class:`~riptide.core.column.StringColumn`, on its device.

Each function takes a Python pattern and flags, compiles them (cached) to the DFA tables of
:mod:`riptide.core.regex.dfa` and walks the column with :mod:`riptide.core.regex.match`. A pattern the engine does
not run raises :class:`~riptide.core.regex.parse.Unsupported` (the caller computes it on the host instead), and an
invalid one ``re.error``.

* ``contains`` / ``match`` / ``fullmatch``: one walk, each row stopping at its first flagged match.
* ``count``: the finditer walk, counting.
* ``spans``: the finditer walk keeping each match's end, then the reverse DFA for its start. ``replace`` and
  ``split`` build their output from these byte spans (the pieces between matches, gathered at once).

Python's iteration rules hold (``re.finditer`` / ``re.sub`` / ``re.split`` since Python 3.7): an empty match may
directly follow a non-empty one, and no empty match is taken where the previous match ended empty.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import numpy as np

from riptide.core.column import NumericColumn, StringColumn
from riptide.core.kernels.segments import row_of_each_element, take_pieces_host
from riptide.core.ops import string_ops as _s
from riptide.core.regex import dfa as _dfa
from riptide.core.regex import match as _match
from riptide.core.regex import parse as _parse
from riptide.core.regex.parse import Unsupported

__all__ = ["contains", "match", "fullmatch", "count", "spans", "replace", "split_pieces", "Unsupported"]


def check_pattern(pattern: str, flags: int, ascii_text: bool, need_spans: bool) -> None:
    """Raise :class:`Unsupported` for what the engines cannot answer exactly on this text (``ascii_text``: it
    holds only ASCII), ``re.error`` for an invalid pattern."""
    ast = _parse_cached(pattern, flags)
    if not (flags & re.ASCII) and _parse.uses_word_boundary(ast) and not ascii_text:
        raise Unsupported("\\b / \\B on non-ASCII text (Unicode word boundaries)")
    if need_spans and _parse.has_empty_loop(ast):
        raise Unsupported("a repeated group that can match the empty string")


def _program(pattern: str, flags: int, ascii_text: bool, mode: str, need_spans: bool) -> Any:
    """The DFA for ``mode``, or :class:`Unsupported` for what the tables cannot answer exactly on this text."""
    check_pattern(pattern, flags, ascii_text, need_spans)
    return _dfa.compile_program(pattern, flags, mode, ascii_text)


@functools.lru_cache(maxsize=512)
def _parse_cached(pattern: str, flags: int) -> tuple:
    return _parse.parse(pattern, flags)[0]


def _first(column: StringColumn, pattern: str, flags: int, na: Any, mode: str) -> NumericColumn:
    # (one scalar read: ASCII text gets the smaller tables)
    program = _program(pattern, flags, _s._is_ascii(column), mode, need_spans=False)
    found = _match.first_match(column.chars, column.offsets, program, column.xp)
    return _s._bool_result(found, column, na)


def contains(column: StringColumn, pattern: str, flags: int = 0, na: Any = None) -> NumericColumn:
    """Whether ``pattern`` matches anywhere in each row (``re.search``); missing rows give ``na`` (else False).

    >>> import pyarrow as pa
    >>> col = StringColumn.from_arrow(pa.array(["a1", "b", None, "中2"]), np)
    >>> contains(col, r"\\d").data.tolist()
    [True, False, False, True]
    """
    return _first(column, pattern, flags, na, "search")


def match(column: StringColumn, pattern: str, flags: int = 0, na: Any = None) -> NumericColumn:
    """Whether ``pattern`` matches at the start of each row (``re.match``)."""
    return _first(column, pattern, flags, na, "anchored")


def fullmatch(column: StringColumn, pattern: str, flags: int = 0, na: Any = None) -> NumericColumn:
    """Whether ``pattern`` matches each whole row (``re.fullmatch``)."""
    return _first(column, pattern, flags, na, "fullmatch")


def count(column: StringColumn, pattern: str, flags: int = 0) -> NumericColumn:
    """Non-overlapping matches per row (``len(re.findall(...))``): int64, float64 with NaN at missing rows.

    >>> import pyarrow as pa
    >>> count(StringColumn.from_arrow(pa.array(["banana", "", "é"]), np), "a|x*").data.tolist()
    [7, 1, 2]
    """
    program = _program(pattern, flags, _s._is_ascii(column), "search", need_spans=True)  # (one scalar read)
    counts = _match.scan(column.chars, column.offsets, column.mask, program, -1, False, column.xp)[0]
    return _s._int_result(counts, column)


def spans(column: StringColumn, pattern: str, flags: int = 0, limit: int = -1, ascii_text: bool | None = None
          ) -> tuple[Any, Any, Any, Any]:  # fmt: skip
    """The first ``limit`` (all when < 0) non-overlapping matches of each valid row, in order:
    ``(counts per row, rows, starts, ends)`` with absolute byte positions into ``column.chars``. ``ascii_text``:
    whether the column is pure ASCII, when the caller knows it already.

    >>> import pyarrow as pa
    >>> [a.tolist() for a in spans(StringColumn.from_arrow(pa.array(["xaab", "ab"]), np), "a+b")]
    [[1, 1], [0, 1], [1, 4], [4, 6]]
    """
    xp = column.xp
    if ascii_text is None:
        ascii_text = _s._is_ascii(column)  # one scalar read: ASCII text gets the smaller tables
    forward = _program(pattern, flags, ascii_text, "search", need_spans=True)
    counts, rows, begins, ends = _match.scan(column.chars, column.offsets, column.mask, forward, limit, True, xp)
    backward = _program(pattern, flags, ascii_text, "reverse", need_spans=True)
    starts = _match.match_starts(column.chars, column.offsets, rows, begins, ends, backward, xp)
    return counts, rows, starts, ends


def replace(column: StringColumn, pattern: str, repl: str, n: int = -1, flags: int = 0) -> StringColumn:
    """Each row with its first ``n`` (all when < 0) matches replaced by the literal ``repl``.

    >>> import pyarrow as pa
    >>> replace(StringColumn.from_arrow(pa.array(["a1b22", None]), np), r"\\d+", "#").to_arrow().to_pylist()
    ['a#b#', None]
    """
    xp = column.xp
    counts, rows, starts, ends = spans(column, pattern, flags, n)
    repl_bytes = _s._bytes_of(repl, xp)
    if xp is np:
        return _replace_host(column, counts, rows, starts, ends, repl_bytes)
    buffer = xp.concatenate([column.chars, repl_bytes])
    pieces, piece_start, piece_length, first = rewrite_layout(column, counts, rows, starts, ends, 1)
    piece_start[first] = column.chars.shape[0]
    piece_length[first] = repl_bytes.shape[0]
    return _s._join_pieces(buffer, piece_start, piece_length, pieces, column.mask, xp)


def rewrite_layout(column: StringColumn, counts: Any, rows: Any, starts: Any, ends: Any, per_match: int
                   ) -> tuple[Any, Any, Any, Any]:  # fmt: skip
    """The pieces of a column rewritten with ``per_match`` pieces in place of each match (a replacement, or the
    parts of a template): per row the text before its first match, then per match its pieces and the text after it
    (up to the next match or the row's end). Returns (pieces per row, start and length of every piece in the
    column's bytes, the index of each match's first piece); the caller fills those ``per_match`` pieces.
    """
    xp = column.xp
    k = starts.shape[0]
    pieces = counts * (per_match + 1) + 1
    base = _s._offsets_of(pieces, xp)[:-1]
    piece_start = xp.zeros(k * (per_match + 1) + column.size, dtype=np.int64)
    piece_length = xp.zeros_like(piece_start)
    row_start, row_end = column.offsets[:-1], column.offsets[1:]
    match_offsets = _s._offsets_of(counts, xp)
    rank = xp.arange(k, dtype=np.int64) - match_offsets[rows]
    first_end = row_end.copy()
    has = counts > 0
    first_end[has] = starts[match_offsets[:-1][has]]
    piece_start[base] = row_start
    piece_length[base] = first_end - row_start
    after_end = row_end[rows].copy()
    if k > 1:
        same_row = rows[1:] == rows[:-1]
        after_end[:-1] = xp.where(same_row, starts[1:], after_end[:-1])
    first = base[rows] + (per_match + 1) * rank + 1
    piece_start[first + per_match] = ends
    piece_length[first + per_match] = after_end - ends
    return pieces, piece_start, piece_length, first


def _replace_host(column: StringColumn, counts: Any, rows: Any, starts: Any, ends: Any, repl_bytes: Any
                  ) -> StringColumn:  # fmt: skip
    """:func:`replace` on NumPy (a CPU-specific fast path, see
    :func:`~riptide.core.kernels.segments.take_pieces_host`): the column's bytes are cut at every row start and
    match start and end, which never go backwards, and the replacement is one more piece after them; the output
    takes, per row, its text pieces with the replacement in place of each matched one. Same pieces as the xp path.
    """
    k = starts.shape[0]
    size = int(column.offsets[-1])
    pieces = 2 * counts + 1  # per row: text, (match, text) per match
    base = _s._offsets_of(pieces, np)
    n_pieces = int(base[-1])
    cuts = np.empty(n_pieces + 2, dtype=np.int64)
    cuts[base[:-1]] = column.offsets[:-1]
    slot = base[:-1][rows] + 2 * (np.arange(k, dtype=np.int64) - _s._offsets_of(counts, np)[:-1][rows])
    cuts[slot + 1] = starts
    cuts[slot + 2] = ends
    cuts[n_pieces] = size
    cuts[n_pieces + 1] = size + repl_bytes.shape[0]
    take = np.arange(n_pieces, dtype=np.int64)
    take[slot + 1] = n_pieces  # each matched piece becomes the replacement
    buffer = np.concatenate([column.chars[:size], repl_bytes])
    piece_offsets, chars = take_pieces_host(buffer, cuts, take)
    return StringColumn(piece_offsets[base], chars, column.mask)


def split_pieces(column: StringColumn, pattern: str, n: int = -1, flags: int = 0) -> tuple[Any, Any, Any]:
    """``re.split``'s pieces of each row (at most ``n`` splits when ``n >= 0``): byte ``begin`` / ``end`` (row after
    row) and the count per row (0 for a missing row), as :func:`riptide.core.ops.string_ops.split_pieces`."""
    xp = column.xp
    counts, rows, starts, ends = spans(column, pattern, flags, n)
    row_start, row_end = column.offsets[:-1], column.offsets[1:]
    valid = xp.ones(column.size, dtype=bool) if column.mask is None else column.mask
    per_row = counts + 1
    piece_offsets = _s._offsets_of(per_row, xp)
    base = piece_offsets[:-1]
    k = starts.shape[0]
    rank = xp.arange(k, dtype=np.int64) - _s._offsets_of(counts, xp)[rows]
    total = column.size + k
    begin = xp.zeros(total, dtype=np.int64)
    end = xp.zeros(total, dtype=np.int64)
    begin[base] = row_start
    begin[base[rows] + rank + 1] = ends
    end[base + per_row - 1] = row_end
    end[base[rows] + rank] = starts
    keep_rows = valid[row_of_each_element(piece_offsets, xp)]
    return begin[keep_rows], end[keep_rows], xp.where(valid, per_row, 0)
