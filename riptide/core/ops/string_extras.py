"""More element-wise string methods of ``Series.str``: the ones built from the pieces of
:mod:`riptide.core.ops.string_ops` (code-point bounds, byte pieces gathered at once) rather than new ideas.

* ``slice_replace`` and ``removeprefix`` / ``removesuffix`` cut each row into byte pieces (text before, the
  replacement, text after) and join them with one segmented gather (:func:`string_ops._join_pieces`).
* ``translate`` maps every code point through a table, the way the case mappings do: the table (built on the
  host from the user's dict: it is a scalar argument, not data) is a sorted array of code points and the UTF-8
  bytes of their images; on the device a ``searchsorted`` finds each code point's entry and one gather copies
  either the code point's own bytes or its image (an empty image deletes it).
* ``get_dummies`` splits every row at the separator (the pieces of ``str.split``), numbers the distinct pieces in
  sorted order with :func:`riptide.core.ops.grouping.group_rows`, and scatters a 1 at (row, token number).
* ``normalize`` leaves pure-ASCII rows alone (every normalization form maps ASCII to itself) and normalizes only
  the other rows, with Python's ``unicodedata`` (what pandas uses: some pyarrow builds' ``utf8_normalize`` skips
  the composition step of NFC/NFKC) on a host copy of just those rows: Unicode normalization needs the composition tables of the Unicode database, which riptide does not carry
  to the device. The normalized rows are put back in place with one gather.

Results follow pandas 3 with its default ``str`` dtype (see :mod:`riptide.core.ops.string_ops`).
"""

from __future__ import annotations

import types
import unicodedata
from typing import Any

import numpy as np
import pyarrow as pa

from riptide.core.column import NumericColumn, StringColumn
from riptide.core.kernels.segments import row_of_each_element
from riptide.core.ops import string_ops as so

__all__ = ["slice_replace", "remove_affix", "translate", "translation_table", "get_dummies", "normalize",
           "non_ascii_rows", "NORMALIZATION_FORMS"]  # fmt: skip

NORMALIZATION_FORMS = ("NFC", "NFD", "NFKC", "NFKD")


def _check_bound(value: Any, name: str) -> None:
    if value is not None and (not isinstance(value, (int, np.integer)) or isinstance(value, bool)):
        raise TypeError(f"slice {name} must be an integer or None, not {type(value).__name__}")


def _three_pieces(column: StringColumn, cut_lo: Any, cut_hi: Any, middle: bytes) -> StringColumn:
    """Row i becomes ``bytes[row_start:cut_lo] + middle + bytes[cut_hi:row_end]`` (absolute byte positions)."""
    xp = column.xp
    n = column.size
    middle_bytes = xp.asarray(np.frombuffer(middle, dtype=np.uint8))
    buffer = xp.concatenate([column.chars, middle_bytes])
    starts = xp.zeros((n, 3), dtype=np.int64)
    lengths = xp.zeros((n, 3), dtype=np.int64)
    starts[:, 0], lengths[:, 0] = column.offsets[:-1], cut_lo - column.offsets[:-1]
    starts[:, 1], lengths[:, 1] = column.chars.shape[0], len(middle)
    starts[:, 2], lengths[:, 2] = cut_hi, column.offsets[1:] - cut_hi
    per_row = xp.full(n, 3, dtype=np.int64)
    return so._join_pieces(buffer, starts.reshape(-1), lengths.reshape(-1), per_row, column.mask, xp)


def slice_replace(column: StringColumn, start: Any = None, stop: Any = None, repl: Any = None) -> StringColumn:
    """Each row with its code points ``[start:stop]`` replaced by ``repl`` (inserted at ``start`` when that slice
    is empty or inverted), as pandas' ``str.slice_replace``.

    >>> import pyarrow as pa
    >>> col = StringColumn.from_arrow(pa.array(["abcdef", "hé", None]), np)
    >>> slice_replace(col, 1, 3, "XY").to_arrow().to_pylist(), slice_replace(col, -1, 0, "!").to_arrow().to_pylist()
    (['aXYdef', 'hXY', None], ['abcde!f', 'h!é', None])
    """
    xp = column.xp
    _check_bound(start, "start")
    _check_bound(stop, "stop")
    if repl is None:
        repl = ""
    if not isinstance(repl, str):
        raise TypeError(f"expected bytes, {type(repl).__name__} found")
    cps = so._CodePoints(column)
    n_cp = cps.lengths

    def position(value: Any, default: Any) -> Any:
        if value is None:
            return default
        v = xp.zeros(column.size, dtype=np.int64) + int(value)
        return xp.clip(xp.where(v < 0, v + n_cp, v), 0, n_cp)

    lo = position(start, xp.zeros(column.size, dtype=np.int64))
    hi = xp.maximum(position(stop, n_cp), lo)
    base = cps.offsets[:-1]
    return _three_pieces(column, cps.bounds[base + lo], cps.bounds[base + hi], repl.encode("utf-8"))


def remove_affix(column: StringColumn, affix: Any, at_end: bool) -> StringColumn:
    """``str.removeprefix`` (``at_end`` False) / ``str.removesuffix``: drop ``affix`` where a row has it there.

    >>> import pyarrow as pa
    >>> col = StringColumn.from_arrow(pa.array(["abc", "xab", "ab"]), np)
    >>> remove_affix(col, "ab", False).to_arrow().to_pylist(), remove_affix(col, "ab", True).to_arrow().to_pylist()
    (['c', 'xab', ''], ['abc', 'x', ''])
    """
    xp = column.xp
    if not isinstance(affix, str):
        raise TypeError(f"expected bytes, {type(affix).__name__} found")
    has = so._affix_matches(column, affix, at_end, xp)
    cut = xp.where(has, len(affix.encode("utf-8")), 0)
    first = column.offsets[:-1] + (0 if at_end else cut)
    stop = column.offsets[1:] - (cut if at_end else 0)
    return so._substrings(column, first, stop, column.mask)


# --- translate ------------------------------------------------------------------------------------------------------
def translation_table(table: dict) -> Any:
    """The host table of a ``str.translate`` mapping (a dict of code point -> str / code point / None), in the
    layout of the case tables: sorted ``keys`` and the UTF-8 ``data`` of their images cut by ``offsets``.

    Python's ``str.translate`` looks a code point up by its int value, so keys that are not ints never match
    and are left out; an image is checked as Python checks it.

    >>> t = translation_table({ord("a"): "xy", ord("b"): None, "c": "never"})
    >>> t.keys.tolist(), t.offsets.tolist(), bytes(t.data)
    ([97, 98], [0, 2, 2], b'xy')
    """
    keys, images = [], []
    for key, value in table.items():  # host loop over the (small) table, not over rows
        if not isinstance(key, (int, np.integer)) or isinstance(key, bool) or not 0 <= key < 0x110000:
            continue
        if 0xD800 <= key < 0xE000:
            continue  # a surrogate cannot occur in UTF-8 text
        if value is None:
            image = ""
        elif isinstance(value, str):
            image = value
        elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            if not 0 <= value < 0x110000:
                raise ValueError("character mapping must be in range(0x110000)")
            image = chr(value)
        else:
            raise TypeError("character mapping must return integer, None or str")
        keys.append(int(key))
        images.append(image)
    order = np.argsort(np.array(keys, dtype=np.int64), kind="stable")
    sorted_keys = np.array(keys, dtype=np.int64)[order]
    encoded = [images[i].encode("utf-8") for i in order.tolist()]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    data = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
    # An ASCII table whose images are single ASCII bytes maps an ASCII column byte for byte (``byte_map``).
    byte_map = None
    if all(key < 0x80 for key in keys) and all(len(e) == 1 and e[0] < 0x80 for e in encoded):
        byte_map = np.arange(256, dtype=np.uint8)
        byte_map[sorted_keys] = data
    return types.SimpleNamespace(keys=sorted_keys, offsets=offsets, data=data, byte_map=byte_map)


def translate(column: StringColumn, table: Any) -> StringColumn:
    """Every code point mapped through ``table`` (see :func:`translation_table`), as Python's ``str.translate``.

    >>> import pyarrow as pa
    >>> col = StringColumn.from_arrow(pa.array(["abcé", None, ""]), np)
    >>> translate(col, translation_table({ord("a"): "A", ord("é"): "e", ord("b"): None})).to_arrow().to_pylist()
    ['Ace', None, '']
    """
    xp = column.xp
    if table.keys.shape[0] == 0 or column.chars.shape[0] == 0:
        return StringColumn(column.offsets, column.chars, column.mask)
    if table.byte_map is not None and so._is_ascii(column):  # one byte to one byte: the offsets stay
        return StringColumn(column.offsets, xp.asarray(table.byte_map)[column.chars], column.mask)
    cps = so._CodePoints(column)
    values = cps.values(column)
    at, hit = so._in_sorted(values, xp.asarray(table.keys), xp)
    image_offsets = xp.asarray(table.offsets)
    width = cps.bounds[1:] - cps.bounds[:-1]
    # The images sit after the column's bytes in one buffer, so one gather copies kept and mapped bytes alike.
    starts = xp.where(hit, image_offsets[at] + column.chars.shape[0], cps.starts)
    cp_offsets = so._offsets_of(xp.where(hit, image_offsets[at + 1] - image_offsets[at], width), xp)
    chars = so.gather_segments(xp.concatenate([column.chars, xp.asarray(table.data)]), starts, cp_offsets, xp)
    return StringColumn(cp_offsets[cps.offsets], chars, column.mask)


# --- get_dummies ----------------------------------------------------------------------------------------------------
def get_dummies(column: StringColumn, sep: str) -> tuple[list[NumericColumn], list[str]]:
    """One int64 0/1 column per distinct piece of the rows split at ``sep`` (sorted by code point, the empty
    piece included), and those pieces: pandas' ``str.get_dummies`` of the ``str`` dtype. A missing row has none.

    >>> import pyarrow as pa
    >>> cols, names = get_dummies(StringColumn.from_arrow(pa.array(["b|a", None, "a||"]), np), "|")
    >>> names, [c.data.tolist() for c in cols]
    (['', 'a', 'b'], [[0, 0, 1], [1, 0, 1], [1, 0, 0]])
    """
    from riptide.core.ops.grouping import group_rows

    xp = column.xp
    begin, end, per_row = so.split_pieces(column, sep, -1, False)
    pieces = so._substrings(column, begin, end, None)
    if pieces.size == 0:
        return [], []
    groups = group_rows([pieces], sort=True, dropna=True)
    n_tokens = groups.n_groups
    # one deliberate device-to-host copy: the distinct tokens become the column labels (metadata)
    names = pieces.take(groups.first_rows).to_arrow().to_pylist()
    rows = row_of_each_element(so._offsets_of(per_row, xp), xp)
    flat = xp.zeros(column.size * n_tokens, dtype=np.int64)
    flat[rows * n_tokens + groups.ids] = 1  # a repeated token writes the same 1 twice
    matrix = flat.reshape(column.size, n_tokens)
    return [NumericColumn(xp.ascontiguousarray(matrix[:, t])) for t in range(n_tokens)], names


# --- normalize ------------------------------------------------------------------------------------------------------
def non_ascii_rows(column: StringColumn) -> Any:
    """Per row: does it hold a byte >= 0x80 (missing rows: False)?"""
    xp = column.xp
    flags = so._segment_sum(column.chars >= 0x80, column.offsets, xp) > 0
    return flags if column.mask is None else flags & column.mask


def normalize(column: StringColumn, form: str) -> StringColumn:
    """Unicode normalization ``form`` (NFC, NFD, NFKC, NFKD) of every row; only non-ASCII rows change, and they are
    normalized by Python's unicodedata on a host copy of just those rows (see the module docstring).

    >>> import pyarrow as pa
    >>> normalize(StringColumn.from_arrow(pa.array(["ab", "e\\u0301", None]), np), "NFC").to_arrow().to_pylist()
    ['ab', 'é', None]
    """
    xp = column.xp
    if form not in NORMALIZATION_FORMS:
        raise ValueError("invalid normalization form")
    changed = non_ascii_rows(column)
    where = xp.flatnonzero(changed)
    if where.shape[0] == 0:  # one scalar read (a shape): a pure-ASCII column is its own normal form
        return StringColumn(column.offsets, column.chars, column.mask)
    from riptide.errors import warn_host_fallback

    warn_host_fallback("Series.str.normalize", "the non-ASCII rows are normalized by Python on a host copy of "
                       "those rows (the Unicode composition tables are not on the device)")  # fmt: skip
    # Python's unicodedata, as pandas uses: pyarrow's utf8_normalize depends on how pyarrow was built (one build
    # on the GPU host returned its input unchanged).
    rows = column.take(where).to_arrow().to_pylist()
    done = StringColumn.from_arrow(pa.array([unicodedata.normalize(form, text) for text in rows], pa.string()),
                                   np).to_device(xp)  # fmt: skip
    # Row i comes from the normalized rows (its rank among them) or stays as it is: one gather of byte pieces.
    rank = xp.cumsum(changed) - 1
    source_start = xp.where(changed, done.offsets[:-1][xp.maximum(rank, 0)] + column.chars.shape[0],
                            column.offsets[:-1])  # fmt: skip
    lengths = xp.where(changed, done.lengths()[xp.maximum(rank, 0)], column.lengths())
    buffer = xp.concatenate([column.chars, done.chars])
    return so._join_pieces(buffer, source_start, lengths, xp.ones(column.size, dtype=np.int64), column.mask, xp)
