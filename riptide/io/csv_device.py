"""CSV parsed on the device: the file's bytes go to the GPU in one buffer and whole-array passes find the rows,
the fields and their values. Written once against ``xp``: the same code runs on NumPy (tests) and CuPy.

The structure of the file, without a loop over bytes or rows
-------------------------------------------------------------
1. *Quotes.* A byte is inside a quoted field when an odd number of quote bytes precede it. Rather than a running
   count over every byte, the positions of the quote bytes are listed once (``flatnonzero``) and a candidate
   separator or newline at position ``p`` is inside quotes when ``searchsorted(quotes, p)`` is odd. A doubled quote
   ``""`` inside a quoted field closes and reopens the quotes, so the parity stays right. The k-th quote *opens*
   when k is even, and pandas' grammar is checked on that list: an opening quote starts a field (it follows a
   separator, a newline or the start of the file) or is the second half of a doubled quote; a closing quote ends a
   field or is followed by the second half. A file that breaks this (a quote in the middle of an unquoted field,
   which pandas keeps as a literal character) is handed to the pyarrow/pandas path.
2. *Fields.* Separators and newlines outside quotes are the field boundaries (one ``flatnonzero``); a boundary
   that is a newline ends a record. Field ``k`` spans ``(boundary[k-1], boundary[k])``, less a ``\\r`` before a
   ``\\n`` (CRLF files). A last line without a newline gets a virtual boundary at the end of the file. A record's
   field count is the distance between its first and last boundary.
3. *Records.* ``skiprows`` drops raw records (blank lines count, as in pandas), then blank records (empty or
   only spaces/tabs) are dropped as ``skip_blank_lines=True`` does, then the header record, then ``nrows``.
4. *Unquoting.* Only when the file has quotes: every quote byte is dropped except the second of a doubled
   ``""``, by one compaction of the buffer; a field's bounds move to ``searchsorted(kept, bound)``, the count of
   kept bytes before it.
5. *Columns.* Field ``(row, col)`` is ``first_field[row] + col``, missing when the row is shorter (pandas'
   NaN). Each column's text is gathered into a :class:`~riptide.core.column.StringColumn` (the ``large_string``
   layout needs each column's bytes contiguous, so this is one copy of the file's bytes in all).

Types, as pandas infers them
----------------------------
Missing-value strings (pandas' default list plus ``na_values``) are matched byte-wise at each field's start, one
vector comparison per letter. A column whose other fields are all ``True``/``False`` spellings is ``bool``; one
whose fields all parse as numbers is ``int64``, or ``float64`` when it has missing values or a non-integer;
anything else stays text (pandas 3 ``str``); a first byte that cannot start a number settles that without parsing.
Numbers are read in two tiers: :func:`fast_numbers` reads plain decimals (``[+-]digits[.digits]``, at most 18
digits) straight from the file's buffer, one vector pass per byte position of the widest field; the other fields
only (exponents, ``inf``, spaces, long mantissas) are gathered and parsed by
:func:`riptide.core.ops.parse_number.parse_numbers`. Both are correctly rounded (as pyarrow): the fast tier
divides an exact mantissa ``<= 2**53`` by an exact ``10**f`` (Clinger's fast path), ``parse_numbers`` uses the
same fast path and Python's ``float()`` on the host for the rest (17-digit ``repr`` output: a host loop over those
rows, the place for an Eisel-Lemire device kernel). ``parse_dates`` columns go through :func:`riptide.to_datetime`.

Engine selection (:func:`riptide.io.csv.read_csv`): the default on a GPU, ``engine="riptide"`` on NumPy (there
pyarrow's multithreaded C++ parser is faster than whole-array NumPy passes, so it stays the CPU default).

What is not covered here goes to the pyarrow path of :mod:`riptide.io.csv` (which itself falls back to pandas), so
the answer is the same whichever engine reads the file: options other than the ones below, a BOM or another
encoding, a lone ``\\r`` line end, misplaced quotes, an unterminated quote, a row with more fields than the header
(pandas' ``ParserError`` or its implicit index), integers beyond int64 (pandas' uint64 / object), a ``bool``
column with missing values, duplicated header names, and files without data rows (empty: ``EmptyDataError``;
header only: ``object`` columns).
"""

from __future__ import annotations

import functools
import os
import types
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core.kernels import segments
from riptide.io._device_read import read_file
from riptide.io.csv import _FALSE, _TRUE

__all__ = ["read_csv_device"]

_NL, _CR, _SPACE, _TAB = 10, 13, 32, 9

# Options the device parser reads; any other option left at a non-default value sends the file to pyarrow.
_OPTIONS = {
    "sep", "delimiter", "header", "names", "index_col", "usecols", "dtype", "skiprows", "nrows", "na_values",
    "keep_default_na", "na_filter", "parse_dates", "date_format", "quotechar", "encoding", "compression",
    "low_memory", "memory_map", "engine", "storage_options", "skip_blank_lines", "quoting", "doublequote",
    "decimal", "true_values", "false_values", "thousands", "escapechar", "comment",
}  # fmt: skip


class Fields(NamedTuple):
    """The parsed structure: text bounds of every field kept, and which fields each kept record has."""

    chars: Any  # the (unquoted) bytes the bounds index into
    starts: Any  # per field: first byte
    ends: Any  # per field: one past the last byte
    first: Any  # per record (blank lines included): index of its first field
    count: Any  # per record: its number of fields
    blank: Any  # per record: a blank line (empty or only spaces and tabs), which pandas skips


def _fallback(reason: str) -> Exception:
    from riptide.io.csv import _Fallback

    return _Fallback(f"device CSV parser: {reason}")


# --------------------------------------------------------------------------- bytes to the device


def _head_and_tail(source: Any) -> tuple[bytes, bytes]:
    """The first three bytes and the last byte of ``source`` (what :func:`riptide.io.csv._source_bytes` gives: a
    local path or a BytesIO), read without reading the rest."""
    if isinstance(source, str):
        with open(source, "rb") as handle:
            head = handle.read(3)
            if not head:
                return b"", b""
            handle.seek(-1, os.SEEK_END)
            return head, handle.read(1)
    data = source.getbuffer()
    return bytes(data[:3]), bytes(data[-1:])


def bytes_to_device(source: Any, xp: types.ModuleType) -> Any:
    """The file's bytes in one device buffer. A path is read by parallel reads into pinned memory, each piece copied
    to the device as it lands (:func:`riptide.io._device_read.read_file`); a BytesIO is copied once.

    Hook for a chunked pipeline: parsing chunk *k* while chunk *k+1* is read only changes this function and steps
    1-2 of :func:`find_fields` (chunk boundaries need the quote parity carried from the previous chunk, i.e. the
    count of its quotes).
    """
    if isinstance(source, str):
        return read_file(source, xp)
    source.seek(0)
    return _device.to_device(np.frombuffer(source.getbuffer(), dtype=np.uint8).copy(), xp)


# --------------------------------------------------------------------------- structure


_UTF8_WINDOW = 1 << 24  # bytes looked at together: the positions of a window's non-ASCII bytes are int64s


def valid_utf8(buf: Any, xp: types.ModuleType) -> bool:
    """Whether the bytes ``buf`` are well-formed UTF-8 (as Python's strict decoder, which pandas uses, decides).

    An ASCII file (no byte >= 0x80: one pass) needs nothing else. Otherwise only the non-ASCII bytes are looked at,
    a window of the buffer at a time (their positions cost 8 bytes each): each lead byte (``C2..F4``) announces 1-3
    continuation bytes (``80..BF``), which must follow it, with the second byte's narrower ranges after
    ``E0``/``ED``/``F0``/``F4`` (no overlong forms, surrogates or code points past U+10FFFF); the continuation
    bytes different leads claim cannot overlap, so every continuation byte has a lead exactly when their counts
    agree over the whole buffer. ``C0``, ``C1`` and ``F5..FF`` never occur.

    >>> import numpy as np
    >>> texts = (b"ab", "é€".encode(), "été".encode("latin-1"), b"\\xc3")
    >>> [valid_utf8(np.frombuffer(t, dtype=np.uint8), np) for t in texts]
    [True, True, False, False]
    """
    size = buf.shape[0]
    if size == 0 or not bool(buf.max() >= 0x80):  # one scalar read: ASCII (a reduction, no temporary array)
        return True
    bad = xp.zeros((), dtype=bool)
    balance = xp.zeros((), dtype=np.int64)  # continuation bytes claimed by leads less those present
    for start in range(0, size, _UTF8_WINDOW):  # a loop over windows of the buffer, not over bytes
        high = xp.flatnonzero(buf[start : start + _UTF8_WINDOW] >= 0x80) + start
        lead = buf[high]
        length = ((lead >= 0xC2) & (lead <= 0xDF)).astype(np.int8) * 2 + ((lead >= 0xE0) & (lead <= 0xEF)).astype(
            np.int8) * 3 + ((lead >= 0xF0) & (lead <= 0xF4)).astype(np.int8) * 4  # fmt: skip
        continuation = (lead >= 0x80) & (lead <= 0xBF)
        bad |= ((length == 0) & ~continuation).any()  # C0, C1, F5..FF
        for k in (1, 2, 3):  # the k-th byte after each lead that announces more than k bytes
            follower = buf[xp.minimum(high + k, size - 1)]
            ok = (high + k < size) & (follower >= 0x80) & (follower <= 0xBF)
            if k == 1:  # the second byte's narrower ranges
                ok &= ~((lead == 0xE0) & (follower < 0xA0)) & ~((lead == 0xED) & (follower > 0x9F))
                ok &= ~((lead == 0xF0) & (follower < 0x90)) & ~((lead == 0xF4) & (follower > 0x8F))
            bad |= ((length > k) & ~ok).any()
        balance += xp.maximum(length.astype(np.int64) - 1, 0).sum() - continuation.sum()
    # one scalar read: a malformed sequence, or a continuation byte no lead claims
    return not bool(bad | (balance != 0))


def find_fields(buf: Any, sep: int, quote: int | None, xp: types.ModuleType, *, ends_with_newline: bool) -> Fields:
    """Records and fields of the CSV bytes ``buf`` (see the module docstring); raises ``_Fallback`` for files whose
    quoting or line ends the device parser leaves to pyarrow/pandas.

    >>> import numpy as np
    >>> f = find_fields(np.frombuffer(b'a,"x,""y"" z"\\r\\n\\n1,2', np.uint8), 44, 34, np, ends_with_newline=False)
    >>> [bytes(f.chars[s:e]) for s, e in zip(f.starts, f.ends)], f.first.tolist(), f.count.tolist()
    ([b'a', b'x,"y" z', b'', b'1', b'2'], [0, 2, 3], [2, 1, 2])
    """
    n = buf.shape[0]
    quotes = xp.flatnonzero(buf == quote) if quote is not None else xp.zeros(0, dtype=np.int64)
    n_quotes = int(quotes.shape[0])  # one scalar read (a shape): whether the file has quotes at all
    if n_quotes % 2:
        raise _fallback("a quoted field is not closed")
    padded = xp.concatenate([xp.zeros(1, dtype=np.uint8), buf, xp.zeros(1, dtype=np.uint8)])  # padded[i + 1] == buf[i]

    def outside(positions: Any) -> Any:  # whether each position is outside quotes (an even count of quotes before)
        if not n_quotes:
            return xp.ones(positions.shape[0], dtype=bool)
        return (xp.searchsorted(quotes, positions) % 2) == 0

    if n_quotes:
        k = xp.arange(n_quotes, dtype=np.int64)
        before, after = padded[quotes], padded[quotes + 2]
        adjacent_prev = xp.concatenate([xp.zeros(1, dtype=bool), quotes[1:] == quotes[:-1] + 1])
        adjacent_next = xp.concatenate([quotes[1:] == quotes[:-1] + 1, xp.zeros(1, dtype=bool)])
        opening = k % 2 == 0
        opens_ok = (quotes == 0) | (before == sep) | (before == _NL) | adjacent_prev
        closes_ok = (quotes == n - 1) | (after == sep) | (after == _NL) | (after == _CR) | adjacent_next
        bad = xp.where(opening, ~opens_ok, ~closes_ok)
        if bool(bad.any()):  # one scalar read: whether pandas would read some quote as a literal character
            raise _fallback("a quote character inside an unquoted field")
    crs = xp.flatnonzero(buf == _CR)
    if int(crs.shape[0]):  # one scalar read (a shape): CRLF line ends are checked only when there are CRs
        lone = outside(crs) & (padded[crs + 2] != _NL)
        if bool(lone.any()):  # one scalar read: '\r' alone ends a line for pandas
            raise _fallback("a line ends with '\\r' alone")

    candidates = xp.flatnonzero((buf == sep) | (buf == _NL))
    bounds = candidates[outside(candidates)] if n_quotes else candidates
    if not ends_with_newline:  # the last line has no newline: a virtual one at the end of the file
        bounds = xp.concatenate([bounds, xp.full(1, n, dtype=bounds.dtype)])
    bounds = bounds.astype(np.int64, copy=False)
    ends_record = padded[bounds + 1] != sep  # a newline, or the virtual one (padded[n + 1] == 0)
    starts = xp.concatenate([xp.zeros(1, dtype=np.int64), bounds[:-1] + 1])
    ends = bounds - (ends_record & (padded[bounds] == _CR))  # CRLF: the '\r' is part of the line end
    last = xp.flatnonzero(ends_record)
    first = xp.concatenate([xp.zeros(1, dtype=np.int64), last[:-1] + 1])
    count = last - first + 1
    blank = _blank_records(buf, starts, ends, first, count, xp)

    chars = buf
    if n_quotes:  # unquote: drop every quote byte but the second of a doubled one, and move the bounds
        keep_quote = (xp.arange(n_quotes) % 2 == 0) & xp.concatenate(
            [xp.zeros(1, dtype=bool), quotes[1:] == quotes[:-1] + 1])  # fmt: skip
        drop = xp.ones(n, dtype=bool)
        drop[quotes] = ~keep_quote
        drop &= buf == quote
        kept_positions = xp.flatnonzero(~drop)
        chars = buf[kept_positions]
        starts = xp.searchsorted(kept_positions, starts)
        ends = xp.searchsorted(kept_positions, ends)
    return Fields(chars, starts, ends, first, count, blank)


def _blank_records(buf: Any, starts: Any, ends: Any, first: Any, count: Any, xp: types.ModuleType) -> Any:
    """Records pandas skips as blank lines: one field, empty or only spaces and tabs (raw bounds: not quoted)."""
    one = count == 1
    lo, hi = starts[first], ends[first]
    blank = one & (lo == hi)
    padded = xp.concatenate([buf, xp.zeros(1, dtype=np.uint8)])
    first_byte = padded[lo]
    maybe = one & (hi > lo) & ((first_byte == _SPACE) | (first_byte == _TAB))
    if bool(maybe.any()):  # one scalar read: only files with whitespace-led one-field lines pay for the count
        other = (buf != _SPACE) & (buf != _TAB)
        run = xp.zeros(buf.shape[0] + 1, dtype=np.int64)
        xp.cumsum(other, out=run[1:])
        blank |= maybe & (run[hi] == run[lo])
    return blank


# --------------------------------------------------------------------------- byte-wise matching


_MATCH_WORDS = r"""
extern "C" __global__ void csv_match_words(const unsigned char* text, const long long* starts,
                                           const long long* lengths, const unsigned char* words,
                                           const long long* word_offsets, int n_words, bool* out, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned char* field = text + starts[i];
    long long length = lengths[i];
    bool hit = false;
    for (int w = 0; w < n_words && !hit; ++w) {
        long long lo = word_offsets[w];
        if (word_offsets[w + 1] - lo != length) continue;
        bool same = true;
        for (long long j = 0; j < length && same; ++j) same = field[j] == words[lo + j];
        hit = same;
    }
    out[i] = hit;
}
"""


@functools.cache
def _match_words_kernel() -> Any:
    import cupy as cp

    return cp.RawKernel(_MATCH_WORDS, "csv_match_words")


def _matches(starts: Any, lengths: Any, padded: Any, words: list[bytes], xp: types.ModuleType) -> Any:
    """Whether each field (``starts``, ``lengths`` into ``padded``) equals one of ``words``.

    On the GPU one thread per field compares it with the few words (one launch; the NA list has ~20 words). The
    NumPy twin compares, per word length, only the fields of that length (gathered first), one letter at a time.
    """
    if xp is not np:
        n = starts.shape[0]
        hit = xp.empty(n, dtype=bool)
        if n and words:
            blob = np.frombuffer(b"".join(words), dtype=np.uint8) if any(words) else np.zeros(1, np.uint8)
            offsets = np.concatenate([[0], np.cumsum([len(w) for w in words])]).astype(np.int64)
            _match_words_kernel()(((n + 255) // 256,), (256,), (
                padded, xp.ascontiguousarray(starts, dtype=np.int64), xp.ascontiguousarray(lengths, dtype=np.int64),
                xp.asarray(blob), xp.asarray(offsets), np.int32(len(words)), hit, np.int64(n)))  # fmt: skip
        else:
            hit[...] = False
        return hit
    hit = xp.zeros(starts.shape[0], dtype=bool)
    by_length: dict[int, list[bytes]] = {}
    for word in words:
        by_length.setdefault(len(word), []).append(word)
    for length, group in by_length.items():  # a loop over the few word lengths and letters, not over rows
        if length == 0:
            hit |= lengths == 0
            continue
        rows = xp.flatnonzero(lengths == length)
        at = starts[rows]
        letters = [padded[at + j] for j in range(length)]
        found = xp.zeros(rows.shape[0], dtype=bool)
        for word in group:
            match = letters[0] == word[0]
            for j in range(1, length):
                match &= letters[j] == word[j]
            found |= match
        hit[rows] = found
    return hit


class FastNumbers(NamedTuple):
    """Per field: the plain decimals ``[+-]digits[.digits]`` (at most 18 digits) parsed in one pass per byte column."""

    ok: Any  # the field is such a decimal
    is_int: Any  # ... without a '.'
    ints: Any  # its value as int64 (the digits, signed)
    floats: Any  # its correctly rounded float64 value, where ``float_ok``
    float_ok: Any  # the mantissa is at most 2**53, so ``ints / 10**fraction`` is one correctly rounded division


_FAST_DIGITS = 18  # 10**18 < 2**63: the digits accumulate in int64 without overflow
_PROBE_ROWS = 1024  # fields the general parser tries first when many are left to it (one text value decides)
_POW10 = np.array([10.0**k for k in range(_FAST_DIGITS + 1)])


def fast_numbers(starts: Any, lengths: Any, padded: Any, width: int, xp: types.ModuleType) -> FastNumbers:
    """Parse the fields of at most ``width`` bytes that are plain decimals, a loop over byte positions (not rows).

    This is the common case of a CSV file (``12``, ``-3.25``), read straight from the file's buffer without
    gathering the column; every other spelling (exponents, spaces, inf, more digits) is left to
    :func:`riptide.core.ops.parse_number.parse_numbers`. A float is ``M / 10**f`` with ``M <= 2**53`` and
    ``f <= 18``: both exact in float64, so the division is correctly rounded (Clinger's fast path).

    >>> import numpy as np
    >>> buf = np.frombuffer(b"12-3.25+0.1x", np.uint8)
    >>> r = fast_numbers(np.array([0, 2, 7, 11]), np.array([2, 5, 4, 1]), np.append(buf, 0), 5, np)
    >>> r.ok.tolist(), r.is_int.tolist(), r.ints.tolist()[:2], r.floats.tolist()[:3]
    ([True, True, True, False], [True, False, False, False], [12, -325], [12.0, -3.25, 0.1])
    """
    n = starts.shape[0]
    if xp is not np:
        return _fast_numbers_kernel(starts, lengths, padded, width, xp)
    first = padded[starts]
    negative = first == 45
    signed = negative | (first == 43)
    ok = lengths > signed
    acc = xp.zeros(n, dtype=np.int64)
    digits = xp.zeros(n, dtype=np.int64)
    fraction = xp.zeros(n, dtype=np.int64)
    dot = xp.zeros(n, dtype=bool)
    limit = padded.shape[0] - 1  # bytes past a field's end are masked by `inside`; the clip keeps them in bounds
    for j in range(width):  # a loop over byte positions within a field
        c = padded[xp.minimum(starts + j, limit)]
        inside = lengths > j
        if j == 0:
            inside = inside & ~signed
        is_digit = inside & (c >= 48) & (c <= 57)
        is_dot = inside & (c == 46)
        ok &= ~inside | is_digit | (is_dot & ~dot)
        fraction += is_digit & dot
        dot |= is_dot
        acc = xp.where(is_digit, acc * 10 + (c.astype(np.int64) - 48), acc)
        digits += is_digit
    ok &= (digits >= 1) & (digits <= _FAST_DIGITS)
    acc = xp.where(ok, acc, 0)
    float_ok = ok & (acc <= 2**53)
    magnitude = acc.astype(np.float64) / xp.asarray(_POW10)[xp.clip(fraction, 0, _FAST_DIGITS)]
    floats = xp.where(negative, -magnitude, magnitude)
    return FastNumbers(ok, ok & ~dot, xp.where(negative, -acc, acc), floats, float_ok)


_FAST_NUMBERS = r"""
__constant__ double POW10[19] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
                                 1e15, 1e16, 1e17, 1e18};

extern "C" __global__ void csv_fast_numbers(const unsigned char* text, const long long* starts,
                                            const long long* lengths, long long width, long long n, bool* ok_out,
                                            bool* is_int_out, long long* ints_out, double* floats_out,
                                            bool* float_ok_out) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned char* field = text + starts[i];
    long long length = lengths[i];
    unsigned char first = field[0];
    bool negative = first == '-';
    int signed_ = (negative || first == '+') ? 1 : 0;
    bool ok = length > signed_;
    unsigned long long acc = 0;  // wraps beyond 19 digits like the twin's int64; such fields are not ok anyway
    int digits = 0, fraction = 0;
    bool dot = false;
    long long end = length < width ? length : width;
    for (long long j = signed_; j < end; ++j) {
        unsigned char c = field[j];
        bool is_digit = c >= '0' && c <= '9';
        bool is_dot = c == '.';
        if (!(is_digit || (is_dot && !dot))) ok = false;
        if (is_digit) {
            fraction += dot;
            acc = acc * 10ULL + (unsigned long long)(c - '0');
            ++digits;
        }
        dot |= is_dot;
    }
    ok = ok && digits >= 1 && digits <= 18;
    if (!ok) acc = 0;
    long long value = (long long)acc;
    double magnitude = (double)value / POW10[fraction < 0 ? 0 : (fraction > 18 ? 18 : fraction)];
    ok_out[i] = ok;
    is_int_out[i] = ok && !dot;
    ints_out[i] = negative ? -value : value;
    floats_out[i] = negative ? -magnitude : magnitude;
    float_ok_out[i] = ok && acc <= (1ULL << 53);
}
"""


@functools.cache
def _fast_numbers_module() -> Any:
    import cupy as cp

    return cp.RawKernel(_FAST_NUMBERS, "csv_fast_numbers")


def _fast_numbers_kernel(starts: Any, lengths: Any, padded: Any, width: int, xp: types.ModuleType) -> FastNumbers:
    """:func:`fast_numbers` on the GPU: one thread parses one field (the twin needs ~6 whole-array passes per byte
    position: 41 ms for the six numeric columns of the db-benchmark file, against well under 1 ms here)."""
    n = starts.shape[0]
    ok, is_int, float_ok = (xp.empty(n, dtype=bool) for _ in range(3))
    ints, floats = xp.empty(n, dtype=np.int64), xp.empty(n, dtype=np.float64)
    if n:
        _fast_numbers_module()(((n + 255) // 256,), (256,), (
            padded, xp.ascontiguousarray(starts, dtype=np.int64), xp.ascontiguousarray(lengths, dtype=np.int64),
            np.int64(width), np.int64(n), ok, is_int, ints, floats, float_ok))  # fmt: skip
    return FastNumbers(ok, is_int, ints, floats, float_ok)


# --------------------------------------------------------------------------- the reader


def _options(o: dict) -> tuple[int, int | None]:
    from riptide.io.csv import _NO_DEFAULT, _is_default

    sep = o["delimiter"] if o["delimiter"] is not None else (o["sep"] if o["sep"] is not _NO_DEFAULT else ",")
    quote = o["quotechar"]
    unsupported = {
        "sep": not isinstance(sep, str) or len(sep) != 1 or ord(sep) > 127 or sep in "\n\r \"",
        "quotechar": not isinstance(quote, str) or len(quote) != 1 or ord(quote) > 127 or quote == sep,
        "quoting": o["quoting"] not in (0, 3),
        "doublequote": not o["doublequote"],
        "escapechar": o["escapechar"] is not None,
        "comment": o["comment"] is not None,
        "thousands": o["thousands"] is not None,
        "decimal": o["decimal"] != ".",
        "true_values": bool(o["true_values"]),
        "false_values": bool(o["false_values"]),
        "skip_blank_lines": not o["skip_blank_lines"],
        "skiprows": o["skiprows"] is not None and not isinstance(o["skiprows"], int | np.integer),
        "header": not (o["header"] in ("infer", None) or isinstance(o["header"], int | np.integer)),
        # a number among na_values also hides its other spellings in float columns (" 1", "1.0"): pyarrow path
        "na_values": isinstance(o["na_values"], dict) or _has_numeric_na(o["na_values"]),
        "encoding": o["encoding"] is not None and o["encoding"].lower().replace("_", "-") not in ("utf-8", "utf8"),
        "parse_dates": o["parse_dates"] is True or isinstance(o["parse_dates"], dict),
        "date_format": isinstance(o["date_format"], dict),
        "nrows": o["nrows"] is not None and (not isinstance(o["nrows"], int | np.integer) or o["nrows"] < 0),
    }
    extra = sorted(k for k, v in o.items() if k not in _OPTIONS and not _is_default(v))
    reasons = [k for k, bad in unsupported.items() if bad] + extra
    if reasons:
        raise _fallback(f"option {', '.join(reasons)}")
    return ord(sep), (None if o["quoting"] == 3 else ord(quote))


def read_csv_device(source: Any, options: dict) -> Any:
    """Read CSV ``source`` (a local path or a BytesIO) with :func:`riptide.read_csv`'s ``options`` on the device.

    Raises ``riptide.io.csv._Fallback`` when the options or the file need the pyarrow/pandas path.

    >>> import io
    >>> from riptide.io.csv import read_csv
    >>> read_csv(io.StringIO('a,b,c\\n1,"x,y",true\\n2,,false\\n'), engine="riptide").dtypes.astype(str).tolist()
    ['int64', 'str', 'bool']
    """
    o = options
    sep, quote = _options(o)
    xp = _device.xp()
    head, tail = _head_and_tail(source)
    if not head:
        raise _fallback("empty file")
    if head.startswith(b"\xef\xbb\xbf"):
        raise _fallback("a byte-order mark")
    buf = bytes_to_device(source, xp)
    if not valid_utf8(buf, xp):
        raise _fallback("bytes that are not UTF-8 (pandas raises UnicodeDecodeError)")
    fields = find_fields(buf, sep, quote, xp, ends_with_newline=tail == b"\n")

    # Records: skiprows (raw records), blank lines, header, nrows.
    n_records = int(fields.first.shape[0])  # one scalar read (a shape)
    keep = xp.ones(n_records, dtype=bool)
    skip = int(o["skiprows"] or 0)
    if skip:
        keep[: min(skip, n_records)] = False
    keep &= ~fields.blank
    kept = xp.flatnonzero(keep)
    first, count = fields.first[kept], fields.count[kept]
    n_kept = int(kept.shape[0])  # one scalar read (a shape)

    names = list(o["names"]) if o["names"] is not None else None
    if names is not None and len(set(names)) != len(names):
        raise ValueError("Duplicate names are not allowed.")
    header = o["header"]
    if header == "infer":
        header = None if names is not None else 0
    header_row = None if header is None else int(header)
    n_before = 0 if header_row is None else header_row + 1
    if n_kept <= n_before:
        raise _fallback("no data rows")
    data_first, data_count = first[n_before:], count[n_before:]
    if o["nrows"] is not None:
        data_first, data_count = data_first[: int(o["nrows"])], data_count[: int(o["nrows"])]
    n_rows = int(data_first.shape[0])  # one scalar read (a shape)
    if n_rows == 0:
        raise _fallback("no data rows")

    unnamed: set[Any] = set()
    header_names = None
    if header_row is not None:
        header_names = _record_text(fields, first[header_row], count[header_row], xp)
    if names is not None:
        labels: list[Any] = names
    elif header_names is not None:
        labels = []
        for i, name in enumerate(header_names):
            if name == "":
                name = f"Unnamed: {i}"
                unnamed.add(name)
            labels.append(name)
        if len(set(labels)) != len(labels):
            raise _fallback("duplicated header names (pandas renames them)")
    else:
        labels = list(range(int(data_count[0])))  # one scalar read: the first row's field count sets the width
    n_cols = len(labels)
    widest = int(data_count.max())  # one scalar read: a row with more fields than labels
    if widest > n_cols or (header_names is not None and len(header_names) > n_cols):
        raise _fallback("a row with more fields than the header (pandas' ParserError or implicit index)")

    selected = _select(labels, o["usecols"], names is not None)
    requested = _requested(o["dtype"], labels, selected)
    date_labels = _date_labels(o["parse_dates"], labels)
    na_words = _na_words(o)
    padded = xp.concatenate([fields.chars, xp.zeros(1, dtype=np.uint8)])

    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import default_index

    columns = {}
    for label in selected:  # a loop over columns
        position = labels.index(label)
        present = position < data_count
        field = xp.where(present, data_first + position, 0)
        starts = xp.where(present, fields.starts[field], 0)
        lengths = xp.where(present, fields.ends[field] - fields.starts[field], 0)
        if o["na_filter"]:
            # a field the row lacks reads as "" (pandas pads short rows), missing only when "" is a missing value
            missing = _matches(starts, lengths, padded, na_words, xp)
        else:
            missing = xp.zeros(n_rows, dtype=bool)
        text = _Text(fields.chars, starts, lengths, xp)
        if label in date_labels:
            column = _dates(text, missing, o["date_format"])
        elif label in requested:
            column = _as_requested(text, starts, lengths, padded, missing, requested[label], label, xp)
        else:
            column = _inferred(text, starts, lengths, padded, missing, xp)
        columns[label] = column
    frame = DataFrame._from_columns(columns, default_index(n_rows if selected else 0, xp))  # usecols=[]: no rows
    from riptide.io.csv import with_index_col

    return with_index_col(frame, o["index_col"], selected, columns, unnamed)


def _record_text(fields: Fields, first: Any, count: Any, xp: types.ModuleType) -> list[str]:
    """The text of one record's fields on the host (the header: a few bytes)."""
    k = int(count)  # one scalar read: the header's width
    index = int(first)  # one scalar read: the header's first field
    starts = _device.to_host(fields.starts[index : index + k])
    ends = _device.to_host(fields.ends[index : index + k])
    lo, hi = int(starts[0]), int(ends[-1])
    raw = _device.to_host(fields.chars[lo:hi]).tobytes()
    return [raw[s - lo : e - lo].decode("utf-8") for s, e in zip(starts.tolist(), ends.tolist())]


class _Text:
    """A column's fields as a StringColumn, gathered from the file's buffer the first time it is needed
    (a column the fast number path reads never is)."""

    def __init__(self, chars: Any, starts: Any, lengths: Any, xp: types.ModuleType):
        self._args = (chars, starts, lengths, xp)
        self._column: Any = None

    def __getattr__(self, name: str) -> Any:  # offsets, chars
        return getattr(self.column, name)

    @property
    def column(self) -> Any:
        if self._column is None:
            from riptide.core.column import StringColumn

            chars, starts, lengths, xp = self._args
            offsets = xp.zeros(starts.shape[0] + 1, dtype=np.int64)
            xp.cumsum(lengths, out=offsets[1:])
            self._column = StringColumn(offsets, segments.gather_segments(chars, starts, offsets, xp))
        return self._column


def _select(labels: list, usecols: Any, named: bool = False) -> list:
    """The labels ``usecols`` keeps, in file order (pandas' rules and messages); ``named``: the labels are the
    caller's ``names``."""
    if usecols is None:
        return labels
    if callable(usecols):
        return [lab for lab in labels if usecols(lab)]
    wanted = [usecols] if isinstance(usecols, str) else list(usecols)
    if all(isinstance(u, int | np.integer) and not isinstance(u, bool) for u in wanted):
        if named and len(labels) == len(wanted) and any(u >= len(labels) for u in wanted):
            raise _fallback("names for the usecols positions of a wider file")
        if any(u >= len(labels) or u < -len(labels) for u in wanted):
            raise pd.errors.ParserError("Defining usecols with out-of-bounds indices is not allowed. "
                                        f"{[u for u in wanted if u >= len(labels)]} are out-of-bounds.")
        positions = {int(u) % len(labels) for u in wanted}
        return [lab for i, lab in enumerate(labels) if i in positions]
    missing = [u for u in wanted if u not in labels]
    if missing:
        raise ValueError(f"Usecols do not match columns, columns expected but not found: {missing}")
    return [lab for lab in labels if lab in set(wanted)]


def _requested(dtype: Any, labels: list, selected: list) -> dict:
    from riptide.io.csv import requested_dtypes

    return {} if dtype is None else requested_dtypes(dtype, labels, selected)


def _date_labels(parse_dates: Any, labels: list) -> list:
    if parse_dates in (None, False):
        return []
    out = []
    for item in parse_dates if isinstance(parse_dates, list | tuple) else [parse_dates]:
        if isinstance(item, int | np.integer) and item not in labels:
            if not -len(labels) <= item < len(labels):
                raise _fallback(f"parse_dates={parse_dates!r}")
            item = labels[int(item)]
        if isinstance(item, list | tuple) or item not in labels:
            raise _fallback(f"parse_dates={parse_dates!r}")
        out.append(item)
    return out


def _na_words(o: dict) -> list[bytes]:
    from riptide.io.csv import DEFAULT_NA_VALUES

    extra = o["na_values"]
    extra = [] if extra is None else ([extra] if isinstance(extra, str) else list(extra))
    words = (list(DEFAULT_NA_VALUES) if o["keep_default_na"] else []) + [str(v) for v in extra]
    return sorted({w.encode("utf-8") for w in words})


def _has_numeric_na(na_values: Any) -> bool:
    if na_values is None or isinstance(na_values, dict):
        return False
    for value in [na_values] if isinstance(na_values, str) else list(na_values):
        try:
            float(value)
        except (TypeError, ValueError):
            continue
        return True
    return False


# ``true`` / ``false`` in every mix of upper and lower case (pandas reads ``tRuE`` as True), as the pyarrow path
# spells them
_TRUE_WORDS = sorted(w.encode("ascii") for w in _TRUE)
_FALSE_WORDS = sorted(w.encode("ascii") for w in _FALSE)


def _numeric(data: Any) -> Any:
    from riptide.core.column import NumericColumn

    return NumericColumn(data)


def _inferred(text: Any, starts: Any, lengths: Any, padded: Any, missing: Any, xp: types.ModuleType) -> Any:
    """The column pandas' parser infers: bool, int64, float64 (int with missing values too) or str."""
    valid = ~missing
    n_valid = int(xp.count_nonzero(valid))  # one scalar read: an all-missing column is float64
    n_missing = int(missing.shape[0]) - n_valid
    if n_valid == 0:
        return _numeric(xp.full(missing.shape[0], np.nan))
    first = padded[starts] | 0x20  # lower case
    if not bool((valid & (first != ord("t")) & (first != ord("f"))).any()):  # one scalar read: bool candidates
        is_true = _matches(starts, lengths, padded, _TRUE_WORDS, xp)
        is_false = _matches(starts, lengths, padded, _FALSE_WORDS, xp)
        if not bool((valid & ~is_true & ~is_false).any()):  # one scalar read: every value is a bool spelling
            if n_missing:
                raise _fallback("a bool column with missing values")
            return _numeric(is_true)
    if _surely_text(starts, lengths, padded, valid, xp):
        return _text(text, missing)
    width = int(xp.max(xp.where(valid, lengths, 0)))  # one scalar read: the widest value
    n = missing.shape[0]
    if width <= _FAST_DIGITS + 2:
        fast = fast_numbers(starts, lengths, padded, width, xp)
        ints, is_int, floats = fast.ints, fast.is_int, fast.floats
        rest = xp.flatnonzero(valid & ~(fast.ok & fast.float_ok))
    else:
        ints, is_int = xp.zeros(n, dtype=np.int64), xp.zeros(n, dtype=bool)
        floats, rest = xp.zeros(n, dtype=np.float64), xp.flatnonzero(valid)
    if int(rest.shape[0]):  # one scalar read (a shape): values the fast path leaves to the general parser
        if rest.shape[0] > _PROBE_ROWS and _some_not_number(padded, starts[rest[:_PROBE_ROWS]],
                                                            lengths[rest[:_PROBE_ROWS]], xp):  # fmt: skip
            return _text(text, missing)  # e.g. timestamps: they start with a digit, and one text value decides
        p = _parse_fields(padded, starts[rest], lengths[rest], xp)
        # one scalar read: some value is not a number (text), some integer is beyond int64 (pyarrow path)
        not_number, big = (bool(flag) for flag in _device.to_host(xp.stack([
            (p.invalid | p.empty).any(), p.big_int.any()])))  # fmt: skip
        if not_number:
            return _text(text, missing)
        if big:
            raise _fallback("integers beyond int64 (pandas reads them as uint64 or object)")
        ints, is_int, floats = ints.copy(), is_int.copy(), floats.copy()
        ints[rest], is_int[rest], floats[rest] = p.ints, p.is_int, p.floats
    if not n_missing and not bool((~is_int).any()):  # one scalar read: every value is an int64
        return _numeric(ints)
    return _numeric(xp.where(missing, np.nan, floats))


def _parse_fields(padded: Any, starts: Any, lengths: Any, xp: types.ModuleType) -> Any:
    """These fields through the general number parser (:func:`riptide.core.ops.parse_number.parse_numbers`)."""
    from riptide.core.ops.parse_number import parse_numbers

    sub = _Text(padded, starts, lengths, xp)
    return parse_numbers(sub.offsets, sub.chars, xp)


def _some_not_number(padded: Any, starts: Any, lengths: Any, xp: types.ModuleType) -> bool:
    """Whether one of these fields does not parse as a number (a few rows parsed before all of them: a column
    with one such value is text, so a text column that looks numeric at first byte is settled cheaply)."""
    p = _parse_fields(padded, starts, lengths, xp)
    return bool((p.invalid | p.empty).any())  # one scalar read


def _surely_text(starts: Any, lengths: Any, padded: Any, valid: Any, xp: types.ModuleType) -> bool:
    """Whether some value cannot start a number (so the column is text without parsing it): a number starts with
    a digit, a sign, a '.', whitespace or 'in' (inf)."""
    limit = padded.shape[0] - 1
    first = padded[starts]
    second = padded[xp.minimum(starts + 1, limit)] | 0x20
    digit = (first >= 48) & (first <= 57)
    starts_number = (digit | (first == 43) | (first == 45) | (first == 46) | (first == 32) | ((first >= 9) & (first <= 13))
                     | (((first | 0x20) == ord("i")) & (second == ord("n")) & (lengths >= 2)))  # fmt: skip
    return bool((valid & ~starts_number).any())  # one scalar read: a value that is not a number


def _text(text: Any, missing: Any) -> Any:
    from riptide.core.column import StringColumn

    if not bool(missing.any()):  # one scalar read: a mask only when something is missing
        return text.column
    return StringColumn(text.offsets, text.chars, ~missing)


def _first_bad(text: Any, bad: Any) -> tuple[int, str]:
    """Row and text of the first ``bad`` row (error path only)."""
    rows = _device.to_host(bad).nonzero()[0]
    row = int(rows[0])
    offsets = _device.to_host(text.offsets[row : row + 2])
    return row, _device.to_host(text.chars[int(offsets[0]) : int(offsets[1])]).tobytes().decode("utf-8", "replace")


def _as_requested(text: Any, starts: Any, lengths: Any, padded: Any, missing: Any, wanted: Any, label: Any,
                  xp: types.ModuleType) -> Any:  # fmt: skip
    """The column read as the ``dtype=`` it was given (str, numpy bool/int/float); others go to pyarrow."""
    from riptide.core.ops.cast import astype
    from riptide.core.ops.parse_number import parse_numbers

    if wanted in (str, "str", object, "object"):
        return _text(text, missing)
    if isinstance(wanted, str) and wanted == "string":
        return astype(_text(text, missing), pd.StringDtype())
    try:
        dtype = pd.api.types.pandas_dtype(wanted)
    except TypeError:
        raise _fallback(f"dtype {wanted!r}") from None
    if not isinstance(dtype, np.dtype) or dtype.kind not in "iufb":
        raise _fallback(f"dtype {wanted!r}")
    any_missing = bool(missing.any())  # one scalar read
    if dtype.kind == "b":
        if any_missing:
            raise _fallback("a bool column with missing values")
        is_true = _matches(starts, lengths, padded, _TRUE_WORDS, xp)
        bad = ~is_true & ~_matches(starts, lengths, padded, _FALSE_WORDS, xp)
        if bool(bad.any()):  # one scalar read: a value that is not a bool spelling
            row, value = _first_bad(text, bad)
            raise ValueError(f"Unable to parse {value!r} as {dtype} in column {label!r} at row {row}")
        return _numeric(is_true)
    p = parse_numbers(text.offsets, text.chars, xp)
    usable = (p.is_int | (p.big_int & (dtype.kind == "u"))) if dtype.kind in "iu" else (~p.invalid & ~p.empty)
    bad = ~missing & ~usable
    if bool(bad.any()):  # one scalar read: a value that does not parse as the dtype
        row, value = _first_bad(text, bad)
        raise ValueError(f"Unable to parse {value!r} as {dtype} in column {label!r} at row {row}")
    if dtype.kind in "iu":
        if any_missing:
            raise ValueError(f"Integer column has NA values in column {label!r}")
        if dtype.kind == "u" or dtype.itemsize < 8:
            if bool((p.big_int).any()):  # one scalar read: uint64 beyond int64 is left to pyarrow
                raise _fallback("unsigned integers beyond int64")
            info = np.iinfo(dtype)
            if bool(((p.ints < info.min) | (p.ints > info.max)).any()):  # one scalar read: out of range
                row, value = _first_bad(text, (p.ints < info.min) | (p.ints > info.max))
                raise ValueError(f"Unable to parse {value!r} as {dtype} in column {label!r} at row {row}")
        return _numeric(p.ints.astype(dtype))
    return _numeric(xp.where(missing, np.nan, p.floats).astype(dtype))


def _dates(text: Any, missing: Any, date_format: Any) -> Any:
    """A ``parse_dates`` column: :func:`riptide.to_datetime` of its text (kept as text when it does not parse)."""
    from riptide.frame.series import Series
    from riptide.frame.to_datetime import to_datetime

    column = _text(text, missing)
    try:
        return to_datetime(Series._from_column(column), format=date_format)._column
    except (ValueError, TypeError):
        return column  # pandas 3 keeps a column it cannot parse as its text
