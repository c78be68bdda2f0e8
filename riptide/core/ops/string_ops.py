"""Element-wise string methods (the first part of ``Series.str``) on the Arrow string layout, for NumPy or CuPy.

Every function takes a :class:`~riptide.core.column.StringColumn` and works on its UTF-8 bytes and int64 offsets
as whole arrays: no loop over rows, no copy of the data to the host. Three ideas carry all of them:

* **Code points from bytes.** A byte starts a code point unless it is a continuation byte ``0b10xxxxxx``, so the
  code-point starts of the whole column are ``flatnonzero`` of that test, and a row's code-point range is a
  ``searchsorted`` of its byte offsets among them (:class:`_CodePoints`). Lengths, ``find`` positions and
  slice bounds count code points, as Python's ``str`` (and pandas) do.
* **Segmented sums by cumsum.** "How many flagged bytes / code points in each row" is a difference of one
  inclusive prefix sum at the row bounds (:func:`_segment_sum`); "is this code point before the first
  non-whitespace of its row" is the same prefix sum compared with its value at the row start.
* **Build by output position.** A new string column is made by computing its offsets first (a cumsum of the new
  lengths) and then, for every output byte, which input byte or fill byte it is (:func:`_assemble`,
  :func:`_take_code_points`): one gather.

Literal search (``contains``, ``count``, ``find``) compares a window of ``len(pattern)`` bytes at every byte
position, one vectorised comparison per pattern byte: O(total bytes * pattern length), fine for the short
patterns people use. A match can only begin on a code-point start, because a valid UTF-8 pattern begins with one.

On CuPy the hottest of these run one CUDA kernel each instead (:mod:`riptide.core.kernels.strings`), with the
missing rows folded in: ``contains`` (a literal), ``startswith`` / ``endswith``, the ASCII test that picks the
byte paths, and ``lower`` / ``upper`` / ``swapcase`` / ``casefold`` of an ASCII column (mapped in the same pass
that proves it ASCII). The whole-array code stays the CPU path and the reference.

``replace`` and ``split`` act on the greedy non-overlapping occurrences ("aa" in "aaa" is replaced once, at 0;
``rsplit`` scans from the right, so at 1). Which occurrences the greedy scan keeps is found without a scan: each
occurrence points to the next one that starts after it ends, and pointer jumping gives every occurrence's rank on
its row's chain (:func:`_greedy_ranks`). Their outputs are lists of byte pieces gathered at once
(:func:`_join_pieces`).

Results follow pandas 3 with its default ``str`` dtype (backed by pyarrow's kernels): integer results are int64,
or float64 with NaN once a row is missing; boolean results are False at missing rows (or ``na``); string results
keep the missing rows missing.

The ``is*`` predicates are computed on the device for ASCII data. Unicode character classes (which letters are
"alpha", which digits "digit") need the Unicode database, so when a column holds any non-ASCII byte the whole
column is classified on the host by pyarrow's ``utf8_is_*`` kernels, which are what pandas itself uses (one
device-to-host copy, documented and deliberate).
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

from riptide import _device
from riptide.core.column import NumericColumn, StringColumn
from riptide.core.kernels import strings as _kernels
from riptide.core.kernels.segments import gather_segments, row_of_each_element, take_pieces_host

__all__ = [
    "length", "startswith", "endswith", "contains", "count", "find", "rfind", "slice_strings", "get",
    "strip", "lstrip", "rstrip", "classify", "repeat", "pad", "zfill", "replace", "split_pieces", "piece_columns",
    "partition", "concat_rows", "join_all", "change_case",
]  # fmt: skip

# The code points Python's str.strip() and pyarrow's utf8_trim_whitespace both treat as whitespace.
WHITESPACE = (
    [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x85, 0xA0, 0x1680]
    + list(range(0x2000, 0x200B))
    + [0x2028, 0x2029, 0x202F, 0x205F, 0x3000]
)
_REGEX_SPECIAL = set(".^$*+?{}[]\\|()")


# --- small building blocks ----------------------------------------------------------------------------------------
def _bytes_of(text: str, xp: types.ModuleType) -> Any:
    return xp.asarray(np.frombuffer(text.encode("utf-8"), dtype=np.uint8))


def _segment_sum(values: Any, offsets: Any, xp: types.ModuleType) -> Any:
    """Sum of ``values`` over each segment ``offsets[i]:offsets[i+1]`` (int64).

    >>> _segment_sum(np.array([1, 1, 0, 1]), np.array([0, 2, 2, 4]), np).tolist()
    [2, 0, 1]
    """
    prefix = xp.zeros(values.shape[0] + 1, dtype=np.int64)
    if values.shape[0]:
        xp.cumsum(values, out=prefix[1:])
    return prefix[offsets[1:]] - prefix[offsets[:-1]]


def _offsets_of(lengths: Any, xp: types.ModuleType) -> Any:
    offsets = xp.zeros(lengths.shape[0] + 1, dtype=np.int64)
    if lengths.shape[0]:
        xp.cumsum(lengths, out=offsets[1:])
    return offsets


class _CodePoints:
    """Where the code points of a column are: their byte starts and each row's code-point range."""

    __slots__ = ("ascii", "starts", "bounds", "offsets", "lengths")

    def __init__(self, column: StringColumn):
        xp = column.xp
        chars = column.chars
        self.ascii = _is_ascii(column)
        if self.ascii:  # one byte, one code point: the byte positions are the code-point positions
            self.starts = xp.arange(chars.shape[0], dtype=np.int64)
            self.bounds = xp.arange(chars.shape[0] + 1, dtype=np.int64)
            self.offsets = column.offsets.astype(np.int64, copy=False)
        else:
            # Every byte that is not a continuation byte (0b10xxxxxx) starts a code point.
            self.starts = xp.flatnonzero((chars & 0xC0) != 0x80).astype(np.int64)
            # bounds[j]:bounds[j+1] are the bytes of code point j (a final sentinel closes the last one).
            self.bounds = xp.concatenate([self.starts, column.offsets[-1:]])
            # Row offsets always fall on code-point starts, so their rank among the starts is the code-point offset.
            self.offsets = xp.searchsorted(self.starts, column.offsets, side="left").astype(np.int64)
        self.lengths = self.offsets[1:] - self.offsets[:-1]

    def values(self, column: StringColumn) -> Any:
        """The Unicode scalar value of every code point (decoded from its 1 to 4 UTF-8 bytes)."""
        xp = column.xp
        chars = column.chars
        if self.ascii:
            return chars.astype(np.int64)
        if self.starts.shape[0] == 0:
            return xp.zeros(0, dtype=np.int64)
        lead = chars[self.starts].astype(np.int64)
        width = self.bounds[1:] - self.bounds[:-1]
        value = xp.where(width == 1, lead, xp.where(width == 2, lead & 0x1F, xp.where(width == 3, lead & 0x0F,
                                                                                      lead & 0x07)))  # fmt: skip
        last = chars.shape[0] - 1
        for k in (1, 2, 3):
            more = chars[xp.minimum(self.starts + k, last)].astype(np.int64) & 0x3F
            value = xp.where(k < width, (value << 6) | more, value)
        return value


def _int_result(values: Any, column: StringColumn) -> NumericColumn:
    """int64, or float64 with NaN at missing rows once there is one (pandas' rule for its string methods)."""
    xp = column.xp
    values = values.astype(np.int64, copy=False)
    if column.mask is None:
        return NumericColumn(values)
    # one scalar read: the result dtype (int64 vs float64) depends on whether any row is missing
    if bool(column.mask.all()):
        return NumericColumn(values)
    return NumericColumn(xp.where(column.mask, values.astype(np.float64), np.nan))


def _na_fill(na: Any) -> bool:
    """What a missing row gives in a boolean result: ``na`` when it is a bool, else False (pandas' ``str`` dtype)."""
    return bool(na) if isinstance(na, (bool, np.bool_)) else False


def _bool_result(values: Any, column: StringColumn, na: Any = None) -> NumericColumn:
    """bool; missing rows give ``na`` (pandas' default for the ``str`` dtype: False)."""
    xp = column.xp
    if column.mask is not None:
        values = xp.where(column.mask, values, _na_fill(na))
    return NumericColumn(values.astype(bool, copy=False))


def _kernel_buffers(column: StringColumn) -> tuple[Any, Any, Any]:
    """(offsets int64, chars uint8, mask or None), contiguous, as the CUDA kernels read them."""
    xp = column.xp
    offsets = xp.ascontiguousarray(column.offsets, dtype=np.int64)
    chars = xp.ascontiguousarray(column.chars, dtype=np.uint8)
    mask = None if column.mask is None else xp.ascontiguousarray(column.mask, dtype=bool)
    return offsets, chars, mask


def _check_pattern(pat: Any, what: str = "a string object") -> str:
    if not isinstance(pat, str):
        raise TypeError(f"expected {what}, not {type(pat).__name__}")
    return pat


def _window_matches(column: StringColumn, pattern: bytes, xp: types.ModuleType) -> Any:
    """Per byte position: does ``pattern`` (non-empty, host bytes) occur there, wholly inside that byte's row?"""
    chars = column.chars
    total = chars.shape[0]
    m = len(pattern)
    if total == 0:
        return xp.zeros(0, dtype=bool)
    rows = row_of_each_element(column.offsets, xp)
    position = xp.arange(total, dtype=np.int64)
    hit = position + m <= column.offsets[1:][rows]
    last = total - 1
    for k in range(m):  # loop over the pattern's bytes, not over rows
        hit &= chars[xp.minimum(position + k, last)] == pattern[k]
    return hit


def _affix_matches(column: StringColumn, text: str, at_end: bool, xp: types.ModuleType) -> Any:
    pattern = text.encode("utf-8")  # stays on the host: each byte is a scalar operand below
    m = len(pattern)
    lengths = column.lengths()
    result = lengths >= m
    if m == 0 or column.chars.shape[0] == 0:
        return result
    base = column.offsets[1:] - m if at_end else column.offsets[:-1]
    last = column.chars.shape[0] - 1
    for k in range(m):
        result &= column.chars[xp.clip(base + k, 0, last)] == pattern[k]
    return result


# --- length and search ----------------------------------------------------------------------------------------------
def length(column: StringColumn) -> NumericColumn:
    """Number of code points per row.

    >>> import pyarrow as pa
    >>> length(StringColumn.from_arrow(pa.array(["aé", "", "中文😀"]), np)).data.tolist()
    [2, 0, 3]
    """
    offsets = column.offsets
    lengths = offsets[1:] - offsets[:-1]
    if not _is_ascii(column):  # a code point is one byte that is not a continuation byte (0b10xxxxxx)
        lengths = lengths - _segment_sum((column.chars & 0xC0) == 0x80, offsets, column.xp)
    return _int_result(lengths.astype(np.int64, copy=False), column)


def _affix(column: StringColumn, pat: Any, na: Any, at_end: bool) -> NumericColumn:
    xp = column.xp
    if isinstance(pat, str):
        patterns: tuple = (pat,)
    elif isinstance(pat, tuple):
        for p in pat:
            if not isinstance(p, str):
                raise TypeError(f"expected bytes, {type(p).__name__} found")
        patterns = pat
    else:
        raise TypeError(f"expected a string or tuple, not {type(pat).__name__}")
    if xp is not np:  # CuPy: one kernel for every pattern, the missing rows folded in
        offsets, chars, mask = _kernel_buffers(column)
        encoded = tuple(p.encode("utf-8") for p in patterns)
        return NumericColumn(_kernels.match_affixes(offsets, chars, mask, encoded, at_end, _na_fill(na), xp))
    result = xp.zeros(column.size, dtype=bool)
    for p in patterns:
        result |= _affix_matches(column, p, at_end, xp)
    return _bool_result(result, column, na)


def startswith(column: StringColumn, pat: Any, na: Any = None) -> NumericColumn:
    """Does each row start with ``pat`` (a str or a tuple of str)?

    >>> import pyarrow as pa
    >>> startswith(StringColumn.from_arrow(pa.array(["ab", "b", None]), np), ("a", "c")).data.tolist()
    [True, False, False]
    """
    return _affix(column, pat, na, at_end=False)


def endswith(column: StringColumn, pat: Any, na: Any = None) -> NumericColumn:
    """Does each row end with ``pat`` (a str or a tuple of str)?"""
    return _affix(column, pat, na, at_end=True)


def is_literal_regex(pat: str) -> bool:
    """Whether a regular expression has no special character, so that it matches only itself."""
    return not any(c in _REGEX_SPECIAL for c in pat)


def contains(column: StringColumn, pat: str, na: Any = None) -> NumericColumn:
    """Does ``pat`` occur (literally) in each row?

    >>> import pyarrow as pa
    >>> contains(StringColumn.from_arrow(pa.array(["xaby", "ba", ""]), np), "ab").data.tolist()
    [True, False, False]
    """
    xp = column.xp
    pattern = pat.encode("utf-8")
    if not pattern:
        return _bool_result(xp.ones(column.size, dtype=bool), column, na)
    if xp is not np:  # CuPy: one kernel, each row scanned by its own thread (or warp), the missing rows folded in
        offsets, chars, mask = _kernel_buffers(column)
        return NumericColumn(_kernels.find_literal(offsets, chars, mask, pattern, _na_fill(na), xp))
    hits = _segment_sum(_window_matches(column, pattern, xp), column.offsets, xp)
    return _bool_result(hits > 0, column, na)


def _self_overlaps(pat: str) -> bool:
    """Whether two occurrences of ``pat`` can overlap (a proper prefix of it is also a suffix)."""
    data = pat.encode("utf-8")
    return any(data[:k] == data[-k:] for k in range(1, len(data)))


def count(column: StringColumn, pat: str) -> NumericColumn:
    """Non-overlapping occurrences of ``pat`` per row, counted left to right as Python's ``str.count``.

    >>> import pyarrow as pa
    >>> count(StringColumn.from_arrow(pa.array(["aaaa", "aba", ""]), np), "aa").data.tolist()
    [2, 0, 0]
    """
    xp = column.xp
    pattern = pat.encode("utf-8")
    m = len(pattern)
    if m == 0:
        # pandas counts the empty pattern with pyarrow's regex kernel, which finds it at every *byte* boundary
        # (Python's str.count would count code points + 1); riptide follows pandas.
        return _int_result(column.lengths() + 1, column)
    hits = _window_matches(column, pattern, xp)
    if not _self_overlaps(pat):  # occurrences cannot overlap: every one counts
        return _int_result(_segment_sum(hits, column.offsets, xp), column)
    # Occurrences may overlap ("aa" in "aaa"): only the greedy chain from each row's first occurrence counts.
    # next[j] is the first occurrence starting at or after occurrence j ends; the chain length from each row's
    # first occurrence is found by pointer jumping (log2 rounds of whole-array gathers).
    where = xp.flatnonzero(hits).astype(np.int64)
    k = where.shape[0]  # one scalar read (a shape): the number of occurrences sizes the work below
    if k == 0:
        return _int_result(xp.zeros(column.size, dtype=np.int64), column)
    rows = row_of_each_element(column.offsets, xp)[where]
    nxt = xp.searchsorted(where, where + m, side="left").astype(np.int64)
    same_row = nxt < k
    same_row[same_row] = rows[nxt[same_row]] == rows[same_row]
    nxt = xp.where(same_row, nxt, k)  # k is a sentinel that points to itself and counts 0
    pointer = xp.concatenate([nxt, xp.asarray([k], dtype=np.int64)])
    chain = xp.concatenate([xp.ones(k, dtype=np.int64), xp.zeros(1, dtype=np.int64)])
    for _ in range(max(1, int(k).bit_length())):  # loop over doubling rounds, not rows
        chain = chain + chain[pointer]
        pointer = pointer[pointer]
    first = xp.ones(k, dtype=bool)
    first[1:] = rows[1:] != rows[:-1]
    counts = xp.zeros(column.size, dtype=np.int64)
    counts[rows[first]] = chain[:k][first]
    return _int_result(counts, column)


def _bounds(start: Any, stop: Any, lengths: Any, xp: types.ModuleType) -> tuple[Any, Any]:
    """Python's ``str.find`` window ``[start, stop)`` per row (negative counts from the end, then clipped)."""

    def normalise(value: Any, default: Any) -> Any:
        if value is None:
            return default
        v = xp.full(lengths.shape[0], int(value), dtype=np.int64)
        return xp.maximum(xp.where(v < 0, v + lengths, v), 0)

    lo = normalise(start, xp.zeros(lengths.shape[0], dtype=np.int64))
    hi = xp.minimum(normalise(stop, lengths), lengths)
    return lo, hi


def _find(column: StringColumn, sub: Any, start: Any, end: Any, last: bool) -> NumericColumn:
    xp = column.xp
    sub = _check_pattern(sub)
    for name, value in (("start", start), ("end", end)):
        if value is not None and not isinstance(value, (int, np.integer)):
            raise TypeError(f"slice indices must be integers or None, not {type(value).__name__} ({name})")
    cps = _CodePoints(column)
    lo, hi = _bounds(start, end, cps.lengths, xp)
    m_cp = len(sub)
    if m_cp == 0:  # the empty string is found at the window's edge, if the window is not inverted
        found = xp.where((lo <= hi) & (lo <= cps.lengths), hi if last else lo, -1)
        return _int_result(found, column)
    where = xp.flatnonzero(_window_matches(column, sub.encode("utf-8"), xp)).astype(np.int64)
    result = xp.full(column.size, -1, dtype=np.int64)
    if where.shape[0] == 0:
        return _int_result(result, column)
    rows = row_of_each_element(column.offsets, xp)[where]
    # The code-point index (within its row) of each occurrence; keep those wholly inside [lo, hi).
    position = xp.searchsorted(cps.starts, where, side="left") - cps.offsets[:-1][rows]
    keep = (position >= lo[rows]) & (position + m_cp <= hi[rows])
    rows, position = rows[keep], position[keep]
    if rows.shape[0] == 0:
        return _int_result(result, column)
    # Occurrences are in ascending order: a row's first (last) one is where its row number starts (ends) a run.
    edge = xp.ones(rows.shape[0], dtype=bool)
    if last:
        edge[:-1] = rows[1:] != rows[:-1]
    else:
        edge[1:] = rows[1:] != rows[:-1]
    result[rows[edge]] = position[edge]
    return _int_result(result, column)


def find(column: StringColumn, sub: str, start: int = 0, end: int | None = None) -> NumericColumn:
    """Lowest code-point index of ``sub`` in each row's ``[start:end]``, or -1.

    >>> import pyarrow as pa
    >>> find(StringColumn.from_arrow(pa.array(["éab", "b"]), np), "b").data.tolist()
    [2, 0]
    """
    return _find(column, sub, start, end, last=False)


def rfind(column: StringColumn, sub: str, start: int = 0, end: int | None = None) -> NumericColumn:
    """Highest code-point index of ``sub`` in each row's ``[start:end]``, or -1."""
    return _find(column, sub, start, end, last=True)


# --- building new strings -------------------------------------------------------------------------------------------
def _substrings(column: StringColumn, first: Any, stop: Any, mask: Any) -> StringColumn:
    """Row i becomes its bytes ``first[i]:stop[i]`` (absolute positions in ``column.chars``; there may be more or
    fewer output rows than the column has)."""
    xp = column.xp
    if xp is np and first.shape[0] == column.size:
        # CPU fast path (see take_pieces_host): cut each row at first and stop and take the middle pieces, when
        # every [first, stop) lies within its own row (the cuts then never go backwards)
        row_start, row_end = column.offsets[:-1], column.offsets[1:]
        if bool(((row_start <= first) & (first <= stop) & (stop <= row_end)).all()):
            n = column.size
            cuts = np.empty(3 * n + 1, dtype=np.int64)
            cuts[0:-1:3], cuts[1::3], cuts[2::3] = row_start, first, stop
            cuts[-1] = column.offsets[-1]
            offsets, chars = take_pieces_host(column.chars, cuts, np.arange(1, 3 * n, 3, dtype=np.int64))
            return StringColumn(offsets, chars, mask)
    offsets = _offsets_of(stop - first, xp)
    chars = gather_segments(column.chars, first, offsets, xp)
    return StringColumn(offsets, chars, mask)


def _take_code_points(column: StringColumn, cps: _CodePoints, source: Any, counts: Any, mask: Any) -> StringColumn:
    """A column whose row i is the code points ``source[o_i : o_i + counts[i]]`` (global code-point indices)."""
    xp = column.xp
    widths = cps.bounds[1:][source] - cps.bounds[:-1][source]
    point_offsets = _offsets_of(widths, xp)
    chars = gather_segments(column.chars, cps.bounds[:-1][source], point_offsets, xp)
    offsets = point_offsets[_offsets_of(counts, xp)]
    return StringColumn(offsets, chars, mask)


def _check_index(value: Any, name: str) -> None:
    if value is not None and not isinstance(value, (int, np.integer)):
        raise TypeError(f"slice {name} must be an integer or None, not {type(value).__name__}")


def slice_strings(column: StringColumn, start: Any = None, stop: Any = None, step: Any = None) -> StringColumn:
    """Each row's ``[start:stop:step]`` by code points, as Python slices a str.

    >>> import pyarrow as pa
    >>> slice_strings(StringColumn.from_arrow(pa.array(["héllo", "ab"]), np), -4, None, 2).to_arrow().to_pylist()
    ['él', 'a']
    """
    xp = column.xp
    for name, value in (("start", start), ("stop", stop), ("step", step)):
        _check_index(value, name)
    step = 1 if step is None else int(step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    cps = _CodePoints(column)
    n_cp = cps.lengths
    zeros = xp.zeros(column.size, dtype=np.int64)

    def bound(value: Any, default: Any, low: int, high_offset: int) -> Any:
        # Python's slice.indices per row: negative counts from the end, then clip to [low, len + high_offset].
        if value is None:
            return default
        v = zeros + int(value)
        v = xp.where(v < 0, v + n_cp, v)
        return xp.maximum(xp.minimum(v, n_cp + high_offset), low)

    if step > 0:
        lo = bound(start, zeros, 0, 0)
        hi = bound(stop, n_cp, 0, 0)
        counts = xp.maximum((hi - lo + step - 1) // step, 0)
    else:
        lo = bound(start, n_cp - 1, -1, -1)
        hi = bound(stop, zeros - 1, -1, -1)
        counts = xp.maximum((lo - hi + (-step) - 1) // (-step), 0)
    if step == 1:  # a contiguous run of code points: a byte range per row
        lo = xp.minimum(lo, hi)
        first = cps.bounds[cps.offsets[:-1] + lo]
        stop_byte = cps.bounds[cps.offsets[:-1] + xp.maximum(hi, lo)]
        return _substrings(column, first, stop_byte, column.mask)
    out_offsets = _offsets_of(counts, xp)
    total = int(out_offsets[-1])  # one scalar read: the number of output code points
    rows = row_of_each_element(out_offsets, xp)
    k = xp.arange(total, dtype=np.int64) - out_offsets[:-1][rows]
    source = cps.offsets[:-1][rows] + lo[rows] + k * step
    return _take_code_points(column, cps, source, counts, column.mask)


def get(column: StringColumn, i: Any) -> StringColumn:
    """The code point at position ``i`` of each row (negative from the end); missing where out of range.

    >>> import pyarrow as pa
    >>> get(StringColumn.from_arrow(pa.array(["aé", "b"]), np), -2).to_arrow().to_pylist()
    ['a', None]
    """
    xp = column.xp
    if not isinstance(i, (int, np.integer)):
        raise TypeError(f"get() index must be an integer, not {type(i).__name__}")
    i = int(i)
    cps = _CodePoints(column)
    position = cps.lengths + i if i < 0 else xp.zeros(column.size, dtype=np.int64) + i
    inside = (position >= 0) & (position < cps.lengths)
    position = xp.where(inside, position, 0)
    first = xp.where(inside, cps.bounds[xp.minimum(cps.offsets[:-1] + position, cps.bounds.shape[0] - 1)], 0)
    stop = xp.where(inside, cps.bounds[xp.minimum(cps.offsets[:-1] + position + 1, cps.bounds.shape[0] - 1)], 0)
    mask = inside if column.mask is None else inside & column.mask
    return _substrings(column, first, stop, mask)


def _in_small_set(values: Any, members: Any, xp: types.ModuleType) -> Any:
    """``isin`` for a small set of non-negative code points: one lookup in a table as long as the largest member
    (sort-free, unlike ``xp.isin``).

    >>> _in_small_set(np.array([32, 97, 12288, 70000]), np.array([32, 12288]), np).tolist()
    [True, False, True, False]
    """
    if members.shape[0] == 0:
        return xp.zeros(values.shape, dtype=bool)
    top = int(members.max())  # one scalar read of a handful of members (host-built)
    table = xp.zeros(top + 1, dtype=bool)
    table[members] = True
    return (values <= top) & table[xp.minimum(values, top)]


def _strip(column: StringColumn, to_strip: Any, left: bool, right: bool) -> StringColumn:
    xp = column.xp
    if to_strip is None:
        strip_set = xp.asarray(np.array(WHITESPACE, dtype=np.int64))
    elif isinstance(to_strip, str):
        strip_set = xp.asarray(np.array(sorted({ord(c) for c in to_strip}), dtype=np.int64))
    else:
        raise TypeError(f"expected bytes, {type(to_strip).__name__} found")
    if xp is np and _is_ascii(column):
        return _strip_ascii_host(column, strip_set, left, right)
    cps = _CodePoints(column)
    keep = ~_in_small_set(cps.values(column), strip_set, xp)  # code points that stop the stripping
    prefix = xp.zeros(keep.shape[0] + 1, dtype=np.int64)
    if keep.shape[0]:
        xp.cumsum(keep, out=prefix[1:])
    n = cps.lengths
    rows = row_of_each_element(cps.offsets, xp)
    lo = xp.zeros(column.size, dtype=np.int64)
    hi = n
    if left:  # leading code points with no kept code point at or before them
        leading = (prefix[1:] - prefix[cps.offsets[:-1]][rows]) == 0
        lo = _segment_sum(leading, cps.offsets, xp)
    if right:  # trailing code points with no kept code point at or after them
        trailing = (prefix[cps.offsets[1:]][rows] - prefix[:-1]) == 0
        hi = n - _segment_sum(trailing, cps.offsets, xp)
    hi = xp.maximum(hi, lo)
    first = cps.bounds[cps.offsets[:-1] + lo]
    stop = cps.bounds[cps.offsets[:-1] + hi]
    return _substrings(column, first, stop, column.mask)


def _in_byte_ranges(chars: Any, lookup: np.ndarray) -> Any:
    """``lookup[chars]`` for a host table of 256 bools, as one comparison per run of set bytes (the byte sets
    strip uses are a few runs; a gather by uint8 indices first widens every byte to an index)."""
    edges = np.flatnonzero(np.diff(np.concatenate([[False], lookup, [False]]).astype(np.int8)))
    out = np.zeros(chars.shape[0], dtype=bool)
    for lo, hi in zip(edges[0::2].tolist(), (edges[1::2] - 1).tolist()):  # a loop over byte runs, not rows
        out |= (chars - np.uint8(lo)) <= np.uint8(hi - lo)
    return out


def _strip_ascii_host(column: StringColumn, strip_set: Any, left: bool, right: bool) -> StringColumn:
    """:func:`_strip` of an ASCII column on NumPy (a CPU-specific path: the code-point formulation builds several
    int64 arrays per byte, which the host pays for in memory traffic). One byte is one code point. Only the
    positions of the bytes to strip are listed (usually few), cut into runs of consecutive positions: a row that
    starts with such a byte keeps from the end of that byte's run, one that ends with one up to its run's start
    (a run may span rows; the row's bounds clip it)."""
    lookup = np.zeros(256, dtype=bool)
    members = np.asarray(strip_set)
    lookup[members[members < 128]] = True  # ASCII text holds no byte >= 128
    chars = column.chars
    row_start, row_end = column.offsets[:-1], column.offsets[1:]
    first, stop = row_start, row_end
    stripped = np.flatnonzero(_in_byte_ranges(chars, lookup))
    if stripped.shape[0]:
        nonempty = row_end > row_start
        step = np.diff(stripped) != 1  # a run ends where the next listed position is not the next byte
        if left:
            run_last = np.flatnonzero(np.concatenate([step, [True]]))
            rows = np.flatnonzero(nonempty & lookup[chars[np.minimum(row_start, chars.shape[0] - 1)]])
            at = np.searchsorted(stripped, row_start[rows])  # the row's first byte, in the list
            end = stripped[run_last[np.searchsorted(run_last, at)]] + 1
            first = row_start.copy()
            first[rows] = np.minimum(end, row_end[rows])
        if right:
            run_first = np.flatnonzero(np.concatenate([[True], step]))
            rows = np.flatnonzero(nonempty & lookup[chars[np.maximum(row_end - 1, 0)]])
            at = np.searchsorted(stripped, row_end[rows] - 1)  # the row's last byte, in the list
            begin = stripped[run_first[np.searchsorted(run_first, at, side="right") - 1]]
            stop = row_end.copy()
            stop[rows] = np.maximum(begin, row_start[rows])
        nothing_kept = stop <= first  # every byte stripped
        first = np.where(nothing_kept, row_start, first)
        stop = np.where(nothing_kept, row_start, stop)
    return _substrings(column, first, stop, column.mask)


def strip(column: StringColumn, to_strip: Any = None) -> StringColumn:
    """Remove leading and trailing whitespace (or the characters of ``to_strip``).

    >>> import pyarrow as pa
    >>> strip(StringColumn.from_arrow(pa.array([" a\\u00a0", "xyx"]), np)).to_arrow().to_pylist()
    ['a', 'xyx']
    """
    return _strip(column, to_strip, True, True)


def lstrip(column: StringColumn, to_strip: Any = None) -> StringColumn:
    """Remove leading whitespace (or the characters of ``to_strip``)."""
    return _strip(column, to_strip, True, False)


def rstrip(column: StringColumn, to_strip: Any = None) -> StringColumn:
    """Remove trailing whitespace (or the characters of ``to_strip``)."""
    return _strip(column, to_strip, False, True)


def _assemble(column: StringColumn, head: Any, left: Any, right: Any, fill: str) -> StringColumn:
    """Row i becomes ``row[:head] + fill * left + row[head:] + fill * right`` (``head`` in bytes)."""
    xp = column.xp
    fill_bytes = _bytes_of(fill, xp)
    fb = fill_bytes.shape[0]
    size = column.lengths()
    offsets = _offsets_of(size + (left + right) * fb, xp)
    total = int(offsets[-1])  # one scalar read: the output size
    if total == 0:
        return StringColumn(offsets, xp.zeros(0, dtype=np.uint8), column.mask)
    rows = row_of_each_element(offsets, xp)
    q = xp.arange(total, dtype=np.int64) - offsets[:-1][rows]
    h, lf = head[rows], left[rows] * fb
    in_head = q < h
    in_left = ~in_head & (q < h + lf)
    in_body = ~in_head & ~in_left & (q < size[rows] + lf)
    source = column.offsets[:-1][rows] + xp.where(in_head, q, q - lf)
    last = max(column.chars.shape[0] - 1, 0)
    body = column.chars[xp.clip(source, 0, last)] if column.chars.shape[0] else xp.zeros(total, dtype=np.uint8)
    fill_at = xp.where(in_left, q - h, q - h - lf - (size[rows] - h)) % fb
    chars = xp.where(in_head | in_body, body, fill_bytes[fill_at]).astype(np.uint8)
    return StringColumn(offsets, chars, column.mask)


def _check_width(width: Any) -> int:
    if not isinstance(width, (int, np.integer)) or isinstance(width, bool):
        raise TypeError(f"width must be of integer type, not {type(width).__name__}")
    return int(width)


def pad(column: StringColumn, width: Any, side: str = "left", fillchar: Any = " ") -> StringColumn:
    """Pad each row to ``width`` code points with ``fillchar`` on the ``side`` given (or both).

    >>> import pyarrow as pa
    >>> pad(StringColumn.from_arrow(pa.array(["ab", "abcd"]), np), 5, "both", "*").to_arrow().to_pylist()
    ['**ab*', '*abcd']
    """
    xp = column.xp
    width = _check_width(width)
    if not isinstance(fillchar, str):
        raise TypeError(f"fillchar must be a character, not {type(fillchar).__name__}")
    if len(fillchar) != 1:
        raise TypeError("fillchar must be a character, not str")
    if side not in ("left", "right", "both"):
        raise ValueError(f"Invalid side: {side}. Side must be one of 'left', 'right', 'both'")
    missing = xp.maximum(width - _CodePoints(column).lengths, 0)
    zeros = xp.zeros(column.size, dtype=np.int64)
    if side == "left":
        left, right = missing, zeros
    elif side == "right":
        left, right = zeros, missing
    else:  # Python's str.center: the odd one out goes left when the width is odd
        left = missing // 2 + (missing & width & 1)
        right = missing - left
    return _assemble(column, zeros, left, right, fillchar)


def zfill(column: StringColumn, width: Any) -> StringColumn:
    """Pad with ``"0"`` on the left to ``width`` code points, after a leading ``+`` / ``-`` sign.

    >>> import pyarrow as pa
    >>> zfill(StringColumn.from_arrow(pa.array(["-1", "ab"]), np), 4).to_arrow().to_pylist()
    ['-001', '00ab']
    """
    xp = column.xp
    width = _check_width(width)
    missing = xp.maximum(width - _CodePoints(column).lengths, 0)
    chars = column.chars
    if chars.shape[0]:
        lead = chars[xp.minimum(column.offsets[:-1], chars.shape[0] - 1)]
        signed = ((lead == ord("+")) | (lead == ord("-"))) & (column.lengths() > 0)
    else:
        signed = xp.zeros(column.size, dtype=bool)
    head = signed.astype(np.int64)
    return _assemble(column, head, missing, xp.zeros(column.size, dtype=np.int64), "0")


def repeat(column: StringColumn, repeats: Any) -> StringColumn:
    """Each row repeated ``repeats`` times: one int for every row, or an int64 array of one count per row
    (a negative count gives an empty string, as pandas).

    >>> import pyarrow as pa
    >>> repeat(StringColumn.from_arrow(pa.array(["ab", ""]), np), 2).to_arrow().to_pylist()
    ['abab', '']
    >>> repeat(StringColumn.from_arrow(pa.array(["ab", "c"]), np), np.array([1, 3])).to_arrow().to_pylist()
    ['ab', 'ccc']
    """
    xp = column.xp
    if isinstance(repeats, (int, np.integer)) and not isinstance(repeats, bool):
        if repeats < 0:
            raise ValueError("Repeat count must be a non-negative integer")
        counts: Any = int(repeats)
    elif isinstance(repeats, xp.ndarray) and repeats.dtype.kind in "iu":
        counts = xp.maximum(repeats.astype(np.int64, copy=False), 0)
    else:
        raise TypeError(f"repeats must be an integer, not {type(repeats).__name__}")
    size = column.lengths()
    offsets = _offsets_of(size * counts, xp)
    total = int(offsets[-1])  # one scalar read: the output size
    if total == 0:
        return StringColumn(offsets, xp.zeros(0, dtype=np.uint8), column.mask)
    rows = row_of_each_element(offsets, xp)
    q = xp.arange(total, dtype=np.int64) - offsets[:-1][rows]
    chars = column.chars[column.offsets[:-1][rows] + q % size[rows]]
    return StringColumn(offsets, chars, column.mask)


# --- character classes ------------------------------------------------------------------------------------------
def _ascii_classes(chars: Any, xp: types.ModuleType) -> dict[str, Any]:
    digit = (chars >= ord("0")) & (chars <= ord("9"))
    lower = (chars >= ord("a")) & (chars <= ord("z"))
    upper = (chars >= ord("A")) & (chars <= ord("Z"))
    space = ((chars >= 0x09) & (chars <= 0x0D)) | ((chars >= 0x1C) & (chars <= 0x20))
    return {"digit": digit, "lower": lower, "upper": upper, "space": space}


def classify(column: StringColumn, kind: str) -> NumericColumn:
    """``str.is<kind>()`` per row for kind in digit, alpha, alnum, space, lower, upper, decimal, numeric.

    Pure-ASCII columns compare bytes; others decode their code points and look each up in the sorted set of code
    points the class holds (:func:`_class_code_points`, read once from the engine pandas uses), all on the device.

    >>> import pyarrow as pa
    >>> classify(StringColumn.from_arrow(pa.array(["12", "", "a1", "١٢"]), np), "digit").data.tolist()
    [True, False, False, True]
    """
    if kind not in ("digit", "alpha", "alnum", "space", "lower", "upper", "decimal", "numeric"):
        raise ValueError(f"unknown character class {kind!r}")
    xp = column.xp
    if _is_ascii(column):
        flags, offsets = _ascii_classes(column.chars, xp), column.offsets
        if kind in ("decimal", "numeric"):
            kind = "digit"  # the same set of ASCII characters
        flags["alpha"] = flags["lower"] | flags["upper"]
        flags["alnum"] = flags["alpha"] | flags["digit"]
        flags["title"] = xp.zeros_like(flags["lower"])  # no ASCII character is title case only
    else:
        cps = _CodePoints(column)
        values, offsets = cps.values(column), cps.offsets
        wanted = ("lower", "upper", "title") if kind in ("lower", "upper") else (kind,)
        flags = {name: _in_sorted(values, xp.asarray(_class_code_points(name)), xp)[1] for name in wanted}
    size = offsets[1:] - offsets[:-1]

    def per_row(name: str) -> Any:
        return _segment_sum(flags[name], offsets, xp)

    if kind in ("lower", "upper"):
        # pandas (pyarrow): some character of that case, and no cased character of another case
        other = "upper" if kind == "lower" else "lower"
        result = (per_row(kind) > 0) & (per_row(other) == 0) & (per_row("title") == 0)
    else:
        result = (per_row(kind) == size) & (size > 0)
    return _bool_result(result, column)


@functools.cache
def _class_code_points(kind: str) -> np.ndarray:
    """The sorted code points (int64) of one character class, as the engine pandas uses decides it for a string of
    that one character: pyarrow's ``utf8_is_<kind>``; "title" is the cased code points that are neither lower nor
    upper case (title-case letters such as 'ǅ').

    >>> [chr(c) in "١a" for c in _class_code_points("digit")[:12].tolist()].count(True), 0x661 in _class_code_points("digit")
    (0, True)
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    code_points = _all_code_points()
    if kind == "title":
        cased = _cased_code_points()
        return np.setdiff1d(cased, np.union1d(_class_code_points("lower"), _class_code_points("upper")))
    # Every code point as a one-character string, in one Arrow array (offsets over the UTF-8 of the whole alphabet).
    encoded = code_points.tobytes().decode("utf-32-le").encode("utf-8")
    widths = 1 + (code_points >= 0x80) + (code_points >= 0x800) + (code_points >= 0x10000)
    offsets = np.zeros(code_points.shape[0] + 1, dtype=np.int32)
    np.cumsum(widths, out=offsets[1:])
    strings = pa.StringArray.from_buffers(code_points.shape[0], pa.py_buffer(offsets), pa.py_buffer(encoded))
    holds = getattr(pc, f"utf8_is_{kind}")(strings).to_numpy(zero_copy_only=False)
    return code_points[holds].astype(np.int64)


# --- replace, split, partition, cat -------------------------------------------------------------------------------
# These four share one idea: an output row is a run of *pieces*, each a byte range of some source buffer (the
# column's own bytes, the replacement, a separator...). All sources are laid end to end in one buffer, every piece
# is a (start, length) in it, and one segmented gather (:func:`gather_segments`) writes all output bytes at once.
def _join_pieces(buffer: Any, starts: Any, lengths: Any, pieces_per_row: Any, mask: Any, xp: types.ModuleType
                 ) -> StringColumn:  # fmt: skip
    """Row i is the concatenation of its pieces (consecutive in ``starts`` / ``lengths``, row after row)."""
    piece_offsets = _offsets_of(lengths, xp)
    chars = gather_segments(buffer, starts, piece_offsets, xp)
    offsets = piece_offsets[_offsets_of(pieces_per_row, xp)]
    return StringColumn(offsets, chars, mask)


class _Matches:
    """The occurrences of a literal pattern that ``str.replace`` / ``str.split`` act on, greedy and non-overlapping.

    ``starts`` are byte positions (ascending), ``rows`` their rows and ``per_row`` how many each row has, after the
    ``n`` limit. Scanning from the right (``rsplit``) picks other occurrences of a self-overlapping pattern:
    ``"aaa".rsplit("aa")`` splits at 1, ``"aaa".split("aa")`` at 0.
    """

    __slots__ = ("starts", "rows", "per_row")

    def __init__(self, column: StringColumn, pat: str, limit: int, from_right: bool):
        xp = column.xp
        pattern = pat.encode("utf-8")
        m = len(pattern)
        where = xp.flatnonzero(_window_matches(column, pattern, xp)).astype(np.int64)
        rows = row_of_each_element(column.offsets, xp)[where]
        if from_right:  # mirror: the rightmost occurrence becomes the first one of an ascending scan
            where, rows = -where[::-1] - m, rows[::-1]
        rank = _greedy_ranks(where, rows, m, _self_overlaps(pat), xp)
        keep = rank >= 0
        if limit >= 0:
            keep &= rank < limit
        if from_right:
            where, rows, keep = -(where[::-1] + m), rows[::-1], keep[::-1]
        self.starts, self.rows = where[keep], rows[keep]
        self.per_row = _count_per_row(self.rows, column.size, xp)


def _count_per_row(rows: Any, size: int, xp: types.ModuleType) -> Any:
    """How many of the (ascending) ``rows`` are each row 0..size-1."""
    bounds = xp.searchsorted(rows, xp.arange(size + 1, dtype=np.int64), side="left")
    return (bounds[1:] - bounds[:-1]).astype(np.int64)


def _greedy_ranks(where: Any, rows: Any, m: int, overlaps: bool, xp: types.ModuleType) -> Any:
    """For occurrences ``where`` (ascending, grouped by ``rows``) of a pattern of ``m`` bytes: the rank of each in
    its row's greedy left-to-right chain of non-overlapping occurrences, or -1 when the chain skips it."""
    k = where.shape[0]  # one scalar read (a shape): the number of occurrences
    if k == 0:
        return xp.zeros(0, dtype=np.int64)
    first = xp.ones(k, dtype=bool)
    first[1:] = rows[1:] != rows[:-1]
    # The index of each occurrence's row's first occurrence (rows come grouped, ascending or mirrored).
    group_start = xp.flatnonzero(first).astype(np.int64)[xp.cumsum(first) - 1]
    if not overlaps:  # occurrences never overlap: all are taken, in order
        return xp.arange(k, dtype=np.int64) - group_start
    # next[j]: the first occurrence of the same row starting where occurrence j ends or later (k: none).
    nxt = xp.searchsorted(where, where + m, side="left").astype(np.int64)
    same_row = nxt < k
    same_row[same_row] = rows[nxt[same_row]] == rows[same_row]
    nxt = xp.where(same_row, nxt, k)
    # chain[j]: occurrences on the greedy chain from j to the row's end, by pointer jumping (log2 k rounds).
    pointer = xp.concatenate([nxt, xp.asarray([k], dtype=np.int64)])
    chain = xp.concatenate([xp.ones(k, dtype=np.int64), xp.zeros(1, dtype=np.int64)])
    rounds = max(1, int(k).bit_length())
    for _ in range(rounds):  # loop over doubling rounds, not rows
        chain = chain + chain[pointer]
        pointer = pointer[pointer]
    # j is on its row's chain iff walking (chain[first] - chain[j]) steps from the row's first occurrence lands on
    # j; the walk is done by binary lifting, one power-of-two jump table at a time (jumps commute).
    steps = chain[group_start] - chain[:k]
    position = group_start
    jump = xp.concatenate([nxt, xp.asarray([k], dtype=np.int64)])
    for bit in range(rounds):
        take = ((steps >> bit) & 1) == 1
        position = xp.where(take, jump[position], position)
        jump = jump[jump]
    on_chain = (position == xp.arange(k, dtype=np.int64)) & (steps >= 0)
    return xp.where(on_chain, steps, -1)


def replace(column: StringColumn, pat: str, repl: str, n: int = -1) -> StringColumn:
    """Replace the first ``n`` (all when ``n < 0``) non-overlapping occurrences of ``pat`` with ``repl``.

    >>> import pyarrow as pa
    >>> replace(StringColumn.from_arrow(pa.array(["aaa", "中a中", None]), np), "a", "-", 2).to_arrow().to_pylist()
    ['--a', '中-中', None]
    """
    xp = column.xp
    if not pat:
        raise NotImplementedError("str.replace with an empty pattern (not supported yet)")
    m = len(pat.encode("utf-8"))
    found = _Matches(column, pat, n, from_right=False)
    repl_bytes = _bytes_of(repl, xp)
    buffer = xp.concatenate([column.chars, repl_bytes])
    # Row i has 2 * c_i + 1 pieces: kept text, then (replacement, kept text) per occurrence.
    pieces = 2 * found.per_row + 1
    base = _offsets_of(pieces, xp)[:-1]
    total = 2 * found.starts.shape[0] + column.size
    starts = xp.zeros(total, dtype=np.int64)
    lengths = xp.zeros(total, dtype=np.int64)
    row_start, row_end = column.offsets[:-1], column.offsets[1:]
    k = found.starts.shape[0]
    rank = xp.arange(k, dtype=np.int64) - _offsets_of(found.per_row, xp)[found.rows]
    # The text after occurrence j ends at the next occurrence of its row, or at the row's end.
    after_end = row_end[found.rows].copy()
    if k > 1:
        later = found.rows[1:] == found.rows[:-1]
        after_end[:-1] = xp.where(later, found.starts[1:], after_end[:-1])
    first_end = row_end.copy()
    has = found.per_row > 0
    first_of_row = _offsets_of(found.per_row, xp)[:-1]
    first_end[has] = found.starts[first_of_row[has]]
    starts[base] = row_start
    lengths[base] = first_end - row_start
    slot = base[found.rows] + 2 * rank
    starts[slot + 1] = column.chars.shape[0]
    lengths[slot + 1] = len(repl.encode("utf-8"))
    starts[slot + 2] = found.starts + m
    lengths[slot + 2] = after_end - (found.starts + m)
    return _join_pieces(buffer, starts, lengths, pieces, column.mask, xp)


def _whitespace_tokens(column: StringColumn) -> tuple[Any, Any, Any]:
    """Runs of non-whitespace code points: their byte starts, byte ends and rows (ascending)."""
    xp = column.xp
    cps = _CodePoints(column)
    solid = ~xp.isin(cps.values(column), xp.asarray(np.array(WHITESPACE, dtype=np.int64)))
    rows = row_of_each_element(cps.offsets, xp)
    k = solid.shape[0]
    previous_solid = xp.zeros(k, dtype=bool)
    next_solid = xp.zeros(k, dtype=bool)
    if k > 1:
        previous_solid[1:] = solid[:-1] & (rows[1:] == rows[:-1])
        next_solid[:-1] = solid[1:] & (rows[1:] == rows[:-1])
    begin = xp.flatnonzero(solid & ~previous_solid)
    end = xp.flatnonzero(solid & ~next_solid)
    return cps.bounds[begin], cps.bounds[end + 1], rows[begin]


def split_pieces(column: StringColumn, pat: Any, n: int, from_right: bool) -> tuple[Any, Any, Any]:
    """Where each row's pieces of ``str.split`` / ``str.rsplit`` are: byte ``starts``, ``ends`` (ascending, row after
    row) and the count per row (0 for a missing row). ``n < 0``: no limit."""
    xp = column.xp
    row_start, row_end = column.offsets[:-1], column.offsets[1:]
    valid = xp.ones(column.size, dtype=bool) if column.mask is None else column.mask
    if pat is None:
        begin, end, rows = _whitespace_tokens(column)
        in_valid = valid[rows]  # a missing row may keep bytes: its tokens are dropped
        begin, end, rows = begin[in_valid], end[in_valid], rows[in_valid]
        per_row = _count_per_row(rows, column.size, xp)
        first = _offsets_of(per_row, xp)
        rank = xp.arange(rows.shape[0], dtype=np.int64) - first[:-1][rows]
        if n >= 0:
            # Only n splits: the last piece (first, from the right) runs on to the row's end (start).
            if from_right:
                rank_r = per_row[rows] - 1 - rank
                keep = rank_r <= n
                begin = xp.where(rank_r == n, row_start[rows], begin)
            else:
                keep = rank <= n
                end = xp.where(rank == n, row_end[rows], end)
            begin, end, rows = begin[keep], end[keep], rows[keep]
            per_row = xp.minimum(per_row, n + 1)
        return begin, end, xp.where(valid, per_row, 0)
    m = len(pat.encode("utf-8"))
    found = _Matches(column, pat, n, from_right)
    per_row = found.per_row + 1
    # Pieces: each row's start, then one after every occurrence; each ends at the next occurrence or the row end.
    base = _offsets_of(per_row, xp)[:-1]
    k = found.starts.shape[0]
    rank = xp.arange(k, dtype=np.int64) - _offsets_of(found.per_row, xp)[found.rows]
    total = column.size + k
    begin = xp.zeros(total, dtype=np.int64)
    end = xp.zeros(total, dtype=np.int64)
    begin[base] = row_start
    begin[base[found.rows] + rank + 1] = found.starts + m
    end[base + per_row - 1] = row_end
    end[base[found.rows] + rank] = found.starts
    keep_rows = valid[row_of_each_element(_offsets_of(per_row, xp), xp)]
    return begin[keep_rows], end[keep_rows], xp.where(valid, per_row, 0)


def piece_columns(column: StringColumn, begin: Any, end: Any, per_row: Any, n_columns: int) -> list[StringColumn]:
    """Column t holds every row's t-th piece, missing where the row has fewer pieces."""
    xp = column.xp
    first = _offsets_of(per_row, xp)[:-1]
    last = max(begin.shape[0] - 1, 0)
    out = []
    for t in range(n_columns):  # loop over output columns
        has = per_row > t
        at = xp.minimum(first + t, last)
        lo = xp.where(has, begin[at] if begin.shape[0] else 0, 0)
        hi = xp.where(has, end[at] if end.shape[0] else 0, 0)
        out.append(_substrings(column, lo, hi, has))
    return out


def partition(column: StringColumn, sep: str, from_right: bool) -> list[StringColumn]:
    """The three columns of ``str.partition`` (``str.rpartition``): before, the separator, after.

    >>> import pyarrow as pa
    >>> cols = partition(StringColumn.from_arrow(pa.array(["a-b-c", "x"]), np), "-", True)
    >>> [c.to_arrow().to_pylist() for c in cols]
    [['a-b', ''], ['-', ''], ['c', 'x']]
    """
    xp = column.xp
    m = len(sep.encode("utf-8"))
    where = xp.flatnonzero(_window_matches(column, sep.encode("utf-8"), xp)).astype(np.int64)
    rows = row_of_each_element(column.offsets, xp)[where]
    at = xp.full(column.size, -1, dtype=np.int64)
    if where.shape[0]:
        edge = xp.ones(rows.shape[0], dtype=bool)
        if from_right:  # the last occurrence of each row (any occurrence, overlapping or not, as Python's)
            edge[:-1] = rows[1:] != rows[:-1]
        else:
            edge[1:] = rows[1:] != rows[:-1]
        at[rows[edge]] = where[edge]
    row_start, row_end = column.offsets[:-1], column.offsets[1:]
    found = at >= 0
    miss = row_end if not from_right else row_start  # where the split is when sep is absent
    cut = xp.where(found, at, miss)
    cut_end = xp.where(found, at + m, miss)
    before = _substrings(column, row_start, cut, column.mask)
    middle = _substrings(column, cut, cut_end, column.mask)
    after = _substrings(column, cut_end, row_end, column.mask)
    return [before, middle, after]


def concat_rows(columns: list[StringColumn], sep: str, na_rep: Any) -> StringColumn:
    """Row-wise ``c0 + sep + c1 + sep + ...``; missing where any input is, unless ``na_rep`` stands in for them.

    >>> import pyarrow as pa
    >>> a = StringColumn.from_arrow(pa.array(["a", None, "中"]), np)
    >>> concat_rows([a, a], "-", None).to_arrow().to_pylist(), concat_rows([a, a], "", "?").to_arrow().to_pylist()
    (['a-a', None, '中-中'], ['aa', '??', '中中'])
    """
    xp = columns[0].xp
    size = columns[0].size
    sep_bytes = _bytes_of(sep, xp)
    rep_bytes = _bytes_of(na_rep if na_rep is not None else "", xp)
    buffers, bases, position = [], [], 0
    for col in columns:
        buffers.append(col.chars)
        bases.append(position)
        position += col.chars.shape[0]  # one scalar read per column (a shape)
    sep_at, rep_at = position, position + sep_bytes.shape[0]
    buffer = xp.concatenate(buffers + [sep_bytes, rep_bytes])
    width = 2 * len(columns) - 1  # pieces per row: c0, sep, c1, sep, ...
    starts = xp.zeros((size, width), dtype=np.int64)
    lengths = xp.zeros((size, width), dtype=np.int64)
    mask = None
    for j, col in enumerate(columns):  # loop over the input columns
        start, length = col.offsets[:-1] + bases[j], col.lengths()
        if col.mask is not None:
            if na_rep is None:
                mask = col.mask if mask is None else mask & col.mask
            else:
                start = xp.where(col.mask, start, rep_at)
                length = xp.where(col.mask, length, rep_bytes.shape[0])
        starts[:, 2 * j], lengths[:, 2 * j] = start, length
        if j:
            starts[:, 2 * j - 1], lengths[:, 2 * j - 1] = sep_at, sep_bytes.shape[0]
    per_row = xp.full(size, width, dtype=np.int64)
    return _join_pieces(buffer, starts.reshape(-1), lengths.reshape(-1), per_row, mask, xp)


def join_all(column: StringColumn, sep: str, na_rep: Any) -> str:
    """Every row joined with ``sep`` into one Python str (missing rows skipped, or written as ``na_rep``).

    >>> import pyarrow as pa
    >>> join_all(StringColumn.from_arrow(pa.array(["a", None, "é"]), np), ", ", None)
    'a, é'
    """
    xp = column.xp
    if column.mask is not None and na_rep is None:
        column = column.filter(column.mask)
    if column.size == 0:
        return ""
    sep_bytes = _bytes_of(sep, xp)
    rep_bytes = _bytes_of(na_rep if na_rep is not None else "", xp)
    total_chars = column.chars.shape[0]
    buffer = xp.concatenate([column.chars, sep_bytes, rep_bytes])
    size = column.size
    starts = xp.full(2 * size - 1, total_chars, dtype=np.int64)  # odd pieces: the separator
    lengths = xp.full(2 * size - 1, sep_bytes.shape[0], dtype=np.int64)
    start, length = column.offsets[:-1], column.lengths()
    if column.mask is not None:
        start = xp.where(column.mask, start, total_chars + sep_bytes.shape[0])
        length = xp.where(column.mask, length, rep_bytes.shape[0])
    starts[0::2], lengths[0::2] = start, length
    joined = _join_pieces(buffer, starts, lengths, xp.asarray(np.array([2 * size - 1], dtype=np.int64)), None, xp)
    # one deliberate device-to-host copy: the result is a single Python str
    return bytes(_device.to_host(joined.chars)).decode("utf-8")


# --- case mapping: lower, upper, casefold, swapcase, capitalize, title ------------------------------------------------
# pandas 3 (``str`` dtype) maps case with pyarrow's ``utf8_lower`` / ``utf8_upper`` / ``utf8_swapcase`` /
# ``utf8_capitalize`` / ``utf8_title`` (utf8proc's one-to-one simple mappings: 'ß'.upper() is 'ẞ', no final sigma,
# 'ǆ' capitalizes to 'Ǆ') and ``casefold`` with Python's ``str.casefold`` (full folding: 'ß' -> 'ss'). Every one
# of them maps each code point on its own, except that ``capitalize`` upper-cases a row's first code point and
# lower-cases the rest, and ``title`` upper-cases a cased code point that follows an uncased one (or starts the
# row) and lower-cases the other cased ones. So a mapping is a table, built once on the host by running the engine
# itself over every code point (:func:`_case_table`): the sorted code points whose image differs, and the UTF-8
# bytes of their images. On the device, a code point's entry is found by ``searchsorted``; the new byte length of
# every code point gives the new offsets by a cumsum, and one segmented gather copies each code point's bytes
# either from the column or from the table. A pure-ASCII column skips all that: its images are ASCII too
# (checked when the table is built), so one gather through a 256-entry byte map does it, offsets unchanged.
_SIMPLE_CASE_ENGINES = {"lower": "utf8_lower", "upper": "utf8_upper", "swapcase": "utf8_swapcase"}


class _CaseTable(types.SimpleNamespace):
    """A host table of one case mapping: ``keys`` (sorted int64 code points whose image differs), ``offsets``
    (int64, len(keys) + 1) into ``data`` (uint8, the UTF-8 images), and ``byte_map`` (uint8[256], the images of
    the ASCII bytes; bytes >= 0x80 map to themselves and are never looked up)."""


def _all_code_points() -> np.ndarray:
    """Every Unicode scalar value (surrogates cannot occur in UTF-8), as uint32."""
    return np.concatenate([np.arange(0, 0xD800), np.arange(0xE000, 0x110000)]).astype(np.uint32)


def _utf32(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)


def _table_from_images(keys: np.ndarray, images: list[str]) -> _CaseTable:
    encoded = [image.encode("utf-8") for image in images]  # host table building: one entry per changed code point
    lengths = np.array([len(e) for e in encoded], dtype=np.int64)
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
    byte_map = np.arange(256, dtype=np.uint8)
    for key, image in zip(keys.tolist(), encoded):
        if key < 0x80:
            # the ASCII fast path relies on ASCII staying one ASCII byte (true for every engine used here)
            assert len(image) == 1 and image[0] < 0x80, (key, image)
            byte_map[key] = image[0]
    return _CaseTable(keys=keys.astype(np.int64), offsets=offsets, data=data, byte_map=byte_map)


@functools.cache
def _case_table(kind: str) -> _CaseTable:
    """The table of ``kind`` ("lower", "upper", "swapcase", "casefold"), from the engine pandas uses for it.

    >>> t = _case_table("casefold")
    >>> i = int(np.searchsorted(t.keys, ord("ß")))
    >>> bytes(t.data[t.offsets[i]:t.offsets[i + 1]]).decode(), chr(t.byte_map[ord("A")])
    ('ss', 'a')
    """
    code_points = _all_code_points()
    everything = code_points.tobytes().decode("utf-32-le")
    if kind == "casefold":
        # Python's str.casefold folds each code point on its own (no context); NUL folds to itself, so joining
        # the others with it and splitting the folded text gives every code point's image at C speed.
        code_points = code_points[1:]
        images = "\x00".join(everything[1:]).casefold().split("\x00")
        assert len(images) == code_points.shape[0]
        changed = np.array([image != chr(c) for c, image in zip(code_points.tolist(), images)], dtype=bool)
        keys = code_points[changed]
        return _table_from_images(keys, [images[i] for i in np.flatnonzero(changed).tolist()])
    import pyarrow as pa
    import pyarrow.compute as pc

    # pyarrow's case kernels map code point by code point, one to one: the whole alphabet in one string.
    mapped = _utf32(getattr(pc, _SIMPLE_CASE_ENGINES[kind])(pa.array([everything])).to_pylist()[0])
    assert mapped.shape == code_points.shape
    changed = mapped != code_points
    return _table_from_images(code_points[changed], [chr(c) for c in mapped[changed].tolist()])


@functools.cache
def _cased_code_points() -> np.ndarray:
    """The sorted code points pyarrow's ``utf8_title`` treats as cased (those that continue a word).

    Found from the engine itself: in ``c + "a"`` the "a" stays lower case exactly when ``c`` is cased.

    >>> [int(c) in set(_cased_code_points().tolist()) for c in b"a1 Z"]
    [True, False, False, True]
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    code_points = _all_code_points()
    pairs = np.empty(2 * code_points.shape[0], dtype=np.uint32)
    pairs[0::2], pairs[1::2] = code_points, ord("a")
    titled = _utf32(pc.utf8_title(pa.array([pairs.tobytes().decode("utf-32-le")])).to_pylist()[0])
    assert titled.shape == pairs.shape
    cased = code_points[titled[1::2] == ord("a")].astype(np.int64)
    # title() only touches cased code points, so lower and upper must leave every other one as it is
    for kind in ("lower", "upper"):
        assert np.isin(_case_table(kind).keys, cased).all()
    return cased


def _is_ascii(column: StringColumn) -> bool:
    xp = column.xp
    if xp is not np:  # CuPy: one pass, eight bytes at a time, no temporary
        return not _kernels.has_non_ascii(xp.ascontiguousarray(column.chars, dtype=np.uint8), xp)
    # one scalar read: a pure-ASCII column takes the byte-map path
    return not (column.chars.shape[0] and bool((column.chars >= 0x80).any()))


def _row_starts(offsets: Any, n: int, xp: types.ModuleType) -> Any:
    """Per element of a buffer of ``n`` elements cut by ``offsets``: does it start its row?"""
    first = xp.zeros(n, dtype=bool)
    begins = offsets[:-1]
    first[begins[begins < offsets[1:]]] = True  # empty rows start nothing
    return first


def _in_sorted(values: Any, keys: Any, xp: types.ModuleType) -> tuple[Any, Any]:
    """For every value: its index in the sorted ``keys`` (clipped) and whether it is there."""
    k = keys.shape[0]
    if k == 0:
        return xp.zeros(values.shape[0], dtype=np.int64), xp.zeros(values.shape[0], dtype=bool)
    at = xp.minimum(xp.searchsorted(keys, values), k - 1)
    return at, keys[at] == values


def _upper_here(column: StringColumn, values: Any, offsets: Any, kind: str) -> Any:
    """capitalize / title: which code points (or ASCII bytes) take the upper-case map (the rest take lower)."""
    xp = column.xp
    first = _row_starts(offsets, values.shape[0], xp)
    if kind == "capitalize":
        return first
    _, cased = _in_sorted(values, xp.asarray(_cased_code_points()), xp)
    follows_cased = xp.zeros(values.shape[0], dtype=bool)
    follows_cased[1:] = cased[:-1]
    return ~(follows_cased & ~first)


def _map_ascii(column: StringColumn, kind: str) -> StringColumn:
    xp = column.xp
    chars = column.chars
    if kind in ("capitalize", "title"):
        upper = xp.asarray(_case_table("upper").byte_map)[chars]
        lower = xp.asarray(_case_table("lower").byte_map)[chars]
        chars = xp.where(_upper_here(column, chars.astype(np.int64), column.offsets, kind), upper, lower)
    else:
        chars = xp.asarray(_case_table(kind).byte_map)[chars]
    return StringColumn(column.offsets, chars.astype(np.uint8, copy=False), column.mask)


def _map_code_points(column: StringColumn, kind: str) -> StringColumn:
    xp = column.xp
    cps = _CodePoints(column)
    values = cps.values(column)
    if kind in ("capitalize", "title"):
        tables = [_case_table("upper"), _case_table("lower")]
        use_first = _upper_here(column, values, cps.offsets, kind)
    else:
        tables = [_case_table(kind)]
        use_first = None
    # Table images sit after the column's bytes in one buffer, so one gather copies kept and mapped bytes alike.
    buffers, base = [column.chars], column.chars.shape[0]
    hit = image_start = image_length = None
    for t, table in enumerate(tables):  # one or two tables, not rows
        offsets = xp.asarray(table.offsets)
        at, found = _in_sorted(values, xp.asarray(table.keys), xp)
        start, length = offsets[at] + base, offsets[at + 1] - offsets[at]
        if t == 0:
            hit, image_start, image_length = found, start, length
        else:
            hit = xp.where(use_first, hit, found)
            image_start = xp.where(use_first, image_start, start)
            image_length = xp.where(use_first, image_length, length)
        buffers.append(xp.asarray(table.data))
        base += table.data.shape[0]
    width = cps.bounds[1:] - cps.bounds[:-1]
    starts = xp.where(hit, image_start, cps.starts)
    cp_offsets = _offsets_of(xp.where(hit, image_length, width), xp)
    chars = gather_segments(xp.concatenate(buffers), starts, cp_offsets, xp)
    return StringColumn(cp_offsets[cps.offsets], chars, column.mask)


def change_case(column: StringColumn, kind: str) -> StringColumn:
    """``str.<kind>()`` for kind in lower, upper, casefold, swapcase, capitalize, title (pandas' results).

    >>> import pyarrow as pa
    >>> col = StringColumn.from_arrow(pa.array(["straße", None, "ǆemal İz", "ΑΣ a1b"]), np)
    >>> for kind in ("upper", "casefold", "title"):
    ...     print(change_case(col, kind).to_arrow().to_pylist())
    ['STRAẞE', None, 'ǄEMAL İZ', 'ΑΣ A1B']
    ['strasse', None, 'ǆemal i̇z', 'ασ a1b']
    ['Straße', None, 'Ǆemal İz', 'Ασ A1B']
    """
    if kind not in ("lower", "upper", "casefold", "swapcase", "capitalize", "title"):
        raise ValueError(f"unknown case mapping {kind!r}")
    xp = column.xp
    if xp is not np and kind not in ("capitalize", "title"):
        # CuPy: map the bytes and test for ASCII in one pass; a non-ASCII column discards the bytes
        chars = xp.ascontiguousarray(column.chars, dtype=np.uint8)
        mapped = _kernels.map_ascii_bytes(chars, _case_table(kind).byte_map, xp)
        if mapped is not None:
            return StringColumn(column.offsets, mapped, column.mask)
        return _map_code_points(column, kind)
    if _is_ascii(column):
        return _map_ascii(column, kind)
    return _map_code_points(column, kind)
