"""``astype`` between strings and numbers on the device: integer formatting and parsed-text casts.

**Numbers to text.** Integers (all widths, signed and unsigned, plain or nullable) and booleans become their
decimal text as pandas writes it (``str(int)``, ``"True"``/``"False"``). The digits are produced without a loop
over rows: each row's length comes from comparisons of its magnitude with the powers of ten, the offsets are an
exclusive ``cumsum`` of the lengths, and every output byte finds its row (``row_of_each_element``) and its digit
rank, so the digit is ``magnitude // 10**rank % 10``, a gather. The magnitude is computed in uint64, so
``int64`` min and ``uint64`` max are exact. Floats are formatted by :mod:`riptide.core.ops.format_float`
(Python's ``repr``, the shortest text that round-trips, needs its own algorithm).

**Text to numbers.** pandas' ``astype`` applies Python's ``int()``/``float()`` to every string, whose grammar is
wider than ``to_numeric``'s (underscores, non-ASCII digits and spaces, ``nan``). The device parser
(:func:`riptide.core.ops.parse_number.parse_numbers`) decides the common rows; the rows it rejects or cannot
represent (``invalid``, the empty string, integers beyond int64) are few, so just their text is copied to the
host and given to ``int()``/``float()`` there. When anything would make pandas raise (text that is not a number,
a value out of range, a missing value into a plain integer dtype), :func:`parse_to_numbers` returns ``None`` and
the caller repeats the cast on the host, so the exception is exactly pandas' own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide.core import dtypes
from riptide.core.column import NumericColumn, StringColumn
from riptide.core.kernels import segments
from riptide.core.ops.parse_number import parse_numbers

__all__ = ["can_format", "can_parse_to", "format_integers", "parse_to_numbers"]

_POW10_U64 = np.array([10**k for k in range(20)], dtype=np.uint64)
_BOOL_TEXT = np.frombuffer(b"TrueFalse", dtype=np.uint8)  # "True" at 0, "False" at 4


def can_format(column: Any) -> bool:
    """Whether :func:`format_integers` handles ``column`` (integers and booleans, plain or nullable)."""
    return isinstance(column, NumericColumn) and column.kind in "iub"


def can_parse_to(dtype: Any) -> bool:
    """Whether :func:`parse_to_numbers` handles the target ``dtype`` (plain NumPy integers and floats)."""
    return isinstance(dtype, np.dtype) and dtype.kind in "iuf"


def format_integers(column: NumericColumn) -> StringColumn:
    """The decimal text of an integer or boolean column, as pandas' ``astype(str)`` writes it.

    >>> col = format_integers(NumericColumn(np.array([0, -7, 120], dtype=np.int8)))
    >>> col.offsets.tolist(), bytes(col.chars)
    ([0, 1, 3, 6], b'0-7120')
    >>> bytes(format_integers(NumericColumn(np.array([True, False]))).chars)
    b'TrueFalse'
    """
    xp = column.xp
    data = column.data
    valid = column.mask if dtypes.is_masked(column.dtype) else None
    if column.kind == "b":
        truth = data.astype(bool, copy=False)
        lengths = xp.where(truth, 4, 5).astype(np.int64)
        template_start = xp.where(truth, 0, 4).astype(np.int64)
        negative = magnitude = None
    else:
        if column.kind == "u":
            magnitude = data.astype(np.uint64)
            negative = xp.zeros(data.shape[0], dtype=bool)
        else:
            signed = data.astype(np.int64)
            negative = signed < 0
            as_unsigned = signed.astype(np.uint64)
            # Two's complement negation in uint64: exact for every int64, including its minimum.
            magnitude = xp.where(negative, ~as_unsigned + np.uint64(1), as_unsigned)
        lengths = xp.ones(data.shape[0], dtype=np.int64) + negative
        for k in range(1, 20):  # a loop over the 19 powers of ten, not over rows
            lengths += magnitude >= np.uint64(10**k)
    if valid is not None:
        lengths = xp.where(valid, lengths, 0)  # missing rows: no text (the mask says they are missing)
    offsets = xp.zeros(data.shape[0] + 1, dtype=np.int64)
    xp.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])  # one scalar read: the size of the character buffer
    row = segments.row_of_each_element(offsets, xp)
    within = xp.arange(total, dtype=np.int64) - offsets[:-1][row]
    if magnitude is None:
        chars = xp.asarray(_BOOL_TEXT)[template_start[row] + within]
    else:
        rank = xp.clip(lengths[row] - 1 - within, 0, 19)  # digits to the right of this byte
        digit = (magnitude[row] // xp.asarray(_POW10_U64)[rank]) % np.uint64(10)
        chars = xp.where(negative[row] & (within == 0), 45, digit.astype(np.int64) + 48).astype(np.uint8)
    mask = None if valid is None else valid.copy()
    return StringColumn(offsets, chars, mask)


def parse_to_numbers(column: StringColumn, dtype: np.dtype) -> NumericColumn | None:
    """``column``'s text as numbers of the plain NumPy ``dtype``, or ``None`` when pandas would raise.

    ``None`` tells the caller to repeat the cast on the host, where pandas' own exception arises.

    >>> import pyarrow as pa
    >>> col = StringColumn.from_arrow(pa.array([" 12", "-3", "1_0"]), np)
    >>> parse_to_numbers(col, np.dtype(np.int16)).data.tolist()
    [12, -3, 10]
    >>> parse_to_numbers(StringColumn.from_arrow(pa.array(["1.5", None, "nan"]), np), np.dtype(np.float64)).data
    array([1.5, nan, nan])
    >>> parse_to_numbers(StringColumn.from_arrow(pa.array(["x"]), np), np.dtype(np.int64)) is None
    True
    """
    xp = column.xp
    parsed = parse_numbers(column.offsets, column.chars, xp)
    missing = column.isna()
    if dtype.kind == "f":
        undecided = (parsed.invalid | parsed.empty) & ~missing
        values = _settle_on_host(parsed.floats, undecided, column, float, np.float64)
        if values is None:
            return None
        values = xp.where(missing, np.nan, values)
        return NumericColumn(values.astype(dtype, copy=False))

    if bool(missing.any()):  # one scalar read: a missing value makes pandas raise for integers
        return None
    info = np.iinfo(dtype)
    in_range = parsed.ints >= max(info.min, -(2**63))
    if info.max < 2**63 - 1:
        in_range &= parsed.ints <= info.max
    if bool((parsed.is_int & ~in_range).any()):  # one scalar read: out of range makes pandas raise
        return None
    ints = xp.where(parsed.is_int, parsed.ints, 0).astype(dtype)
    values = _settle_on_host(ints, ~parsed.is_int, column, int, dtype, (info.min, info.max))
    return None if values is None else NumericColumn(values)


def _settle_on_host(values: Any, rows_flag: Any, column: StringColumn, convert: Any, dtype: Any,
                    bounds: tuple[int, int] | None = None) -> Any:  # fmt: skip
    """``values`` with the flagged rows replaced by ``convert(text)`` computed on the host; None if one fails."""
    xp = column.xp
    rows = xp.flatnonzero(rows_flag)
    if rows.shape[0] == 0:
        return values
    texts = segments.pieces_to_host(column.chars, column.offsets[:-1][rows], column.offsets[1:][rows], xp)
    converted = []
    # A deliberate host loop over the rows the device parser leaves (rare spellings, errors, huge integers).
    for raw in texts:
        text = raw.decode("utf-8")
        try:
            number = convert(text)
        except (ValueError, TypeError):
            return None
        if bounds is not None and not bounds[0] <= number <= bounds[1]:
            return None
        converted.append(number)
    out = values.copy()
    out[rows] = xp.asarray(np.array(converted, dtype=dtype))
    return out
