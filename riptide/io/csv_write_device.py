"""``to_csv`` formatted where the data lives: every field's text is made by array code, then the rows are assembled.

pandas formats each cell in Python and hands the rows to the ``csv`` module; this writer produces the same bytes
without a loop over rows, in three steps:

1. **Fields.** Each output column (index levels first, then the frame's columns) becomes UTF-8 text with int64
   offsets, as pandas writes it: integers and booleans by :func:`~riptide.core.ops.format_number.format_integers`,
   floats by the shortest round-trip text (:mod:`riptide.core.ops.format_float`; pandas' ``float_format=None``
   writes NumPy's ``str``), naive datetimes in the one layout the whole column needs
   (:func:`~riptide.core.ops.format_datetime.iso_text`), strings as they are, categoricals as their values.
   Missing values become ``na_rep``.
2. **Quoting** as ``csv.QUOTE_MINIMAL``: a field holding the separator, the quote character or a character of the
   line terminator (and whatever else this Python's ``csv`` module quotes, found by asking it once) is wrapped in
   quotes with its quotes doubled; when a row has only one field, an empty one is written ``""``, as the ``csv``
   module does to tell it from an empty line. Number columns are checked only when the separator could occur in
   their text (``sep="."``).
3. **Rows.** Each row's length is the sum of its fields, separators and line terminator; an exclusive ``cumsum``
   places the rows, and each field's bytes are scattered to ``row start + bytes of the fields before it``, one
   gather/scatter per column. The header line comes from pandas itself, given an empty frame with the same
   column labels and index names (labels are few, and their formatting rules are pandas').

The bytes are copied to the host once. On NumPy the rows are processed in blocks, so that the per-byte position
arrays stay small. Anything this does not cover (other quoting modes, ``float_format``, ``date_format``,
``decimal=","``, timedeltas, tz-aware datetimes, object labels, MultiIndex columns, frames without columns) is
reported by :func:`device_writable` and left to pandas.
"""

from __future__ import annotations

import csv
import functools
import io
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, NumericColumn, StringColumn
from riptide.core.kernels import segments

__all__ = ["NotCovered", "device_writable", "frame_csv_bytes"]


class NotCovered(Exception):
    """Raised while formatting when the data turns out to need pandas' writer (the caller falls back)."""

_ROW_BLOCK = 1 << 18  # NumPy: rows per block
# Characters that number/boolean/datetime text can contain: a separator among them makes quoting checks needed.
_NUMBER_ALPHABET = frozenset(b"0123456789+-.eETrueFalsinf :")


def device_writable(frame: Any) -> str | None:
    """None when :func:`frame_csv_bytes` can write ``frame``; else the reason (for the fallback warning)."""
    from riptide.frame.multi_index import MultiIndex

    if not frame._data:
        return "a frame without columns"
    if isinstance(frame.columns, pd.MultiIndex):
        return "MultiIndex columns"
    from riptide.frame.index import RangeIndex

    index = frame._index
    if not isinstance(index, MultiIndex) and index._host_labels() is not None:
        return "object index labels"
    columns = list(frame._data.values())
    if not isinstance(index, RangeIndex):
        columns += index._key_columns()
    for column in columns:
        if _formatter(column) is None:
            return f"columns of dtype {column.dtype}"
    return None


def _formatter(column: Any) -> Any:
    """The function that makes ``column``'s text (offsets, chars, missing-or-None), or None if not covered."""
    if isinstance(column, CategoricalColumn):
        inner = _formatter(column.categories)
        return None if inner is None else _categorical_text
    if isinstance(column, StringColumn):
        return _string_text
    if not isinstance(column, NumericColumn) or not isinstance(dtypes.to_numpy_dtype(column.dtype), np.dtype):
        return None
    kind = column.kind
    if kind in "iub":
        return _integer_text
    if kind == "f" and dtypes.to_numpy_dtype(column.dtype).itemsize in (4, 8):
        return _float_text
    if kind == "M" and isinstance(column.dtype, np.dtype):  # naive datetimes only
        return _datetime_text
    return None


def _string_text(column: StringColumn) -> tuple:
    return column.offsets, column.chars, None if column.mask is None else ~column.mask


def _integer_text(column: NumericColumn) -> tuple:
    from riptide.core.ops.format_number import format_integers

    text = format_integers(column)
    return text.offsets, text.chars, None if text.mask is None else ~text.mask


def _float_text(column: NumericColumn) -> tuple:
    from riptide.core.ops.format_float import float_text

    offsets, chars = float_text(column.data)
    return offsets, chars, column.isna()  # NaN (and masked rows) are written as na_rep


def _datetime_text(column: NumericColumn) -> tuple:
    from riptide.core.ops.format_datetime import iso_text

    text = iso_text(column.data, dtypes.datetime_unit(column.dtype))
    if text is None:
        raise NotCovered("datetimes outside the years 1-9999")
    return text.offsets, text.chars, None if text.mask is None else ~text.mask


def _categorical_text(column: CategoricalColumn) -> tuple:
    from riptide.core.ops.cast import decode_categorical

    values = decode_categorical(column)
    return _formatter(values)(values)


@functools.cache
def _always_quoted() -> frozenset:
    """Characters this Python's ``csv`` module quotes whatever the line terminator (``\\r``/``\\n`` since 3.12)."""
    found = set()
    for ch in "\r\n":
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="|").writerow([f"a{ch}b", "c"])
        if buffer.getvalue().startswith('"'):
            found.add(ord(ch))
    return frozenset(found)


def _quote_bytes(text: bytes, special: frozenset, quote: int) -> bytes:
    """One field's bytes as the csv module writes them (a host-side helper for ``na_rep``)."""
    if any(b in special for b in text):
        q = bytes([quote])
        return q + text.replace(q, q + q) + q
    return text


class _Layout:
    """The options that shape every row: separator, terminator, quoting, na_rep (all as bytes)."""

    def __init__(self, sep: str, na_rep: str, lineterminator: str, quotechar: str):
        self.sep = sep.encode("utf-8")
        self.terminator = lineterminator.encode("utf-8")
        self.quote = quotechar.encode("utf-8")[0]
        special = set(self.sep) | {self.quote} | set(self.terminator) | set(_always_quoted())
        self.special = frozenset(special)
        self.na_rep = _quote_bytes(na_rep.encode("utf-8"), self.special, self.quote)


def frame_csv_bytes(frame: Any, *, sep: str, na_rep: str, header: Any, index: bool, index_label: Any,
                    lineterminator: str, quotechar: str) -> bytes:  # fmt: skip
    """The CSV text of ``frame`` (checked by :func:`device_writable`) as UTF-8 bytes, byte-identical to pandas.

    >>> import riptide as rt
    >>> frame_csv_bytes(rt.DataFrame({"a": [1.5, None], "b": ["x,y", "z"]}), sep=",", na_rep="", header=True,
    ...                 index=True, index_label=None, lineterminator="\\n", quotechar='"')
    b',a,b\\n0,1.5,"x,y"\\n1,,z\\n'
    """
    layout = _Layout(sep, na_rep, lineterminator, quotechar)
    head = _header_bytes(frame, sep=sep, na_rep=na_rep, header=header, index=index, index_label=index_label,
                         lineterminator=lineterminator, quotechar=quotechar)  # fmt: skip
    columns = list(frame._data.values())
    index_columns = _index_columns(frame) if index else []
    n = len(frame)
    if n == 0:
        return head
    xp = columns[0].xp
    fields = index_columns + columns
    if xp is np and n > _ROW_BLOCK:
        parts = [head]
        for start in range(0, n, _ROW_BLOCK):  # NumPy: blocks of rows, each vectorised (bounded temporaries)
            stop = min(start + _ROW_BLOCK, n)
            parts.append(_rows_bytes([_slice(f, start, stop) for f in fields], layout, xp))
        return b"".join(parts)
    return head + _rows_bytes(fields, layout, xp)


def _slice(field: Any, start: int, stop: int) -> Any:
    if isinstance(field, tuple):  # a RangeIndex: (first, step, rows)
        first, step, _ = field
        return (first + start * step, step, stop - start)
    return field.slice(start, stop)


def _index_columns(frame: Any) -> list:
    from riptide.frame.index import RangeIndex

    index = frame._index
    if isinstance(index, RangeIndex):
        return [(index.start, index.step, len(index))]  # formatted from its arithmetic, never materialised
    return list(index._key_columns())


def _header_bytes(frame: Any, **options: Any) -> bytes:
    """The header line(s), written by pandas for an empty frame with the same labels and index names."""
    names = frame._index.names
    if len(names) > 1:
        empty_index = pd.MultiIndex.from_arrays([[] for _ in names], names=names)
    else:
        empty_index = pd.Index([], name=names[0])
    empty = pd.DataFrame(index=empty_index, columns=frame.columns)
    return empty.to_csv(None, **options).encode("utf-8")


def _field_text(field: Any, xp: Any) -> tuple:
    """(offsets, chars, missing-or-None) of one output column."""
    if isinstance(field, tuple):
        from riptide.core.ops.format_number import format_integers

        first, step, rows = field
        numbers = xp.arange(rows, dtype=np.int64) * step + first
        text = format_integers(NumericColumn(numbers))
        return text.offsets, text.chars, None
    return _formatter(field)(field)


def _fill_missing(offsets: Any, chars: Any, missing: Any, na: bytes, xp: Any) -> tuple[Any, Any]:
    """The text with ``na`` in place of every missing row."""
    n = offsets.shape[0] - 1
    lengths = xp.where(missing, len(na), offsets[1:] - offsets[:-1])
    new_offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(lengths, out=new_offsets[1:])
    total = int(new_offsets[-1])  # one scalar read: the size of the new character buffer
    if total == 0:
        return new_offsets, xp.zeros(0, dtype=np.uint8)
    row = segments.row_of_each_element(new_offsets, xp)
    within = xp.arange(total, dtype=np.int64) - new_offsets[:-1][row]
    source = xp.concatenate([chars, xp.asarray(np.frombuffer(na, dtype=np.uint8)) if na else xp.zeros(0, np.uint8)])
    position = xp.where(missing[row], chars.shape[0] + within, offsets[:-1][row] + within)
    return new_offsets, source[position]


def _quote_rows(offsets: Any, chars: Any, needs: Any, quote: int, xp: Any) -> tuple[Any, Any]:
    """Rows flagged by ``needs`` wrapped in quotes, their quote characters doubled."""
    n = offsets.shape[0] - 1
    row = segments.row_of_each_element(offsets, xp)
    doubled = (chars == quote) & needs[row]
    seen = xp.zeros(chars.shape[0] + 1, dtype=np.int64)
    xp.cumsum(doubled, out=seen[1:])
    per_row = seen[offsets[1:]] - seen[offsets[:-1]]
    lengths = offsets[1:] - offsets[:-1] + xp.where(needs, 2 + per_row, 0)
    new_offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(lengths, out=new_offsets[1:])
    total = int(new_offsets[-1])  # one scalar read: the size of the quoted buffer
    out = xp.full(total, quote, dtype=np.uint8)  # the added quotes are already in place
    # each byte moves right by its row's shift, the opening quote and the quotes doubled before it in the row
    within = xp.arange(chars.shape[0], dtype=np.int64) - offsets[:-1][row]
    before = seen[:-1] - seen[offsets[:-1]][row]
    position = new_offsets[:-1][row] + needs[row] + within + before
    out[position] = chars
    return new_offsets, out  # a doubled quote's second copy is the pre-filled quote after it


def _needs_quotes(offsets: Any, chars: Any, special: frozenset, xp: Any) -> Any | None:
    """Per row: does it hold a special character? None when no row does."""
    hit = xp.zeros(chars.shape[0], dtype=bool)
    for byte in special:  # a loop over the few special characters
        hit |= chars == byte
    if not bool(hit.any()):  # one scalar read: most columns need no quoting at all
        return None
    seen = xp.zeros(chars.shape[0] + 1, dtype=np.int64)
    xp.cumsum(hit, out=seen[1:])
    return (seen[offsets[1:]] - seen[offsets[:-1]]) > 0


def _final_field(field: Any, layout: _Layout, single: bool, xp: Any) -> tuple[Any, Any]:
    """One output column's bytes as written: na_rep filled in, quoted where needed."""
    offsets, chars, missing = _field_text(field, xp)
    is_text = not isinstance(field, tuple | NumericColumn) and not (
        isinstance(field, CategoricalColumn) and not isinstance(field.categories, StringColumn))  # fmt: skip
    needs = None
    if is_text or not layout.special.isdisjoint(_NUMBER_ALPHABET):
        needs = _needs_quotes(offsets, chars, layout.special, xp)
    if single:  # a row of one empty field is written '""' (missing rows: see na below)
        empty = (offsets[1:] - offsets[:-1]) == 0
        needs = empty if needs is None else needs | empty
    if needs is not None:
        if missing is not None:
            needs = needs & ~missing  # na_rep carries its own quoting
        offsets, chars = _quote_rows(offsets, chars, needs, layout.quote, xp)
    if missing is not None and bool(missing.any()):  # one scalar read: fill only when something is missing
        na = layout.na_rep if not (single and layout.na_rep == b"") else b'""'
        offsets, chars = _fill_missing(offsets, chars, missing, na, xp)
    return offsets, chars


def _rows_bytes(fields: list, layout: _Layout, xp: Any) -> bytes:
    """All rows of ``fields`` assembled: fields joined by the separator, each row ended by the terminator."""
    single = len(fields) == 1
    texts = [_final_field(f, layout, single, xp) for f in fields]
    n = texts[0][0].shape[0] - 1
    sep, term = layout.sep, layout.terminator
    lengths = xp.full(n, (len(fields) - 1) * len(sep) + len(term), dtype=np.int64)
    for offsets, _ in texts:
        lengths += offsets[1:] - offsets[:-1]
    row_start = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(lengths, out=row_start[1:])
    total = int(row_start[-1])  # one scalar read: the size of the output
    out = xp.empty(total, dtype=np.uint8)
    at = row_start[:-1].copy()  # where the next field of each row starts
    for j, (offsets, chars) in enumerate(texts):  # a loop over columns
        size = chars.shape[0]
        if size:
            row = segments.row_of_each_element(offsets, xp)
            out[(at - offsets[:-1])[row] + xp.arange(size, dtype=np.int64)] = chars
        at = at + (offsets[1:] - offsets[:-1])
        ends = sep if j < len(texts) - 1 else term
        for b, byte in enumerate(ends):  # a loop over the separator's / terminator's bytes
            out[at + b] = byte
        at = at + len(ends)
    return _device.to_host(out).tobytes()
