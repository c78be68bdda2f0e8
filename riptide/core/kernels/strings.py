"""Whole-column string kernels written against ``xp`` (NumPy or CuPy): compare and concatenate.

They work byte-wise over the Arrow layout (offsets + UTF-8 bytes): comparing bytes of
UTF-8 gives the same order as comparing code points, which is Python's ``str`` order.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from riptide.core.kernels.segments import row_of_each_element

__all__ = ["compare", "concatenate"]


def _as_bytes(value: str, xp: types.ModuleType) -> Any:
    return xp.asarray(np.frombuffer(value.encode(), dtype=np.uint8))


def compare(left: Any, right: Any, xp: types.ModuleType) -> Any:
    """Per row -1 / 0 / 1 as ``left`` sorts before / equal to / after ``right`` (a StringColumn or str).

    Missing rows are compared by their stored bytes; callers apply the mask.

    >>> from riptide.core.column import StringColumn
    >>> import pyarrow as pa
    >>> col = StringColumn.from_arrow(pa.array(["a", "b", "ab", ""]), np)
    >>> compare(col, "ab", np).tolist()
    [-1, 1, 0, -1]
    """
    if xp is np:
        return _compare_host(left, right)
    n = left.size
    left_len = left.offsets[1:] - left.offsets[:-1]
    if isinstance(right, str):
        right_bytes = _as_bytes(right, xp)
        right_len = xp.full(n, right_bytes.shape[0], dtype=np.int64)
        right_start = xp.zeros(n, dtype=np.int64)
        right_chars = right_bytes
    else:
        right_len = right.offsets[1:] - right.offsets[:-1]
        right_start = right.offsets[:-1]
        right_chars = right.chars
    common = xp.minimum(left_len, right_len)
    common_offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(common, out=common_offsets[1:])
    # Start from the length comparison; rows with a differing common byte override it below.
    order = xp.sign(left_len - right_len).astype(np.int8)
    if n == 0 or int(common_offsets[-1]) == 0:
        return order
    rows = row_of_each_element(common_offsets, xp)
    position = xp.arange(rows.shape[0], dtype=np.int64) - common_offsets[:-1][rows]
    a = left.chars[left.offsets[:-1][rows] + position]
    b = right_chars[right_start[rows] + position]
    differs = a != b
    diff_at = xp.flatnonzero(differs)
    if diff_at.shape[0] == 0:
        return order
    # diff_at is ascending, so a row's first differing byte is its first entry in rows[diff_at].
    diff_rows = rows[diff_at]
    leading = xp.ones(diff_rows.shape[0], dtype=bool)
    leading[1:] = diff_rows[1:] != diff_rows[:-1]
    first = xp.zeros(n, dtype=np.int64)
    has_diff = xp.zeros(n, dtype=bool)
    first[diff_rows[leading]] = diff_at[leading]
    has_diff[diff_rows[leading]] = True
    at = first
    byte_order = xp.sign(a[at].astype(np.int16) - b[at].astype(np.int16)).astype(np.int8)
    return xp.where(has_diff, byte_order, order)


def _compare_host(left: Any, right: Any) -> Any:
    """:func:`compare` on NumPy by Arrow's binary comparison kernels over the columns' own buffers (a CPU-specific
    fast path, chosen by the namespace: one ``memcmp`` per row, where the xp formulation builds int64 positions for
    every byte). Arrow orders binary values byte by byte, a prefix first: the same order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def binary(column: Any) -> Any:  # every row, the missing ones by their stored bytes
        return pa.Array.from_buffers(pa.large_binary(), column.size,
                                     [None, pa.py_buffer(np.ascontiguousarray(column.offsets, dtype=np.int64)),
                                      pa.py_buffer(np.ascontiguousarray(column.chars))])  # fmt: skip

    a = binary(left)
    b = pa.scalar(right.encode(), pa.large_binary()) if isinstance(right, str) else binary(right)
    before = pc.less(a, b).to_numpy(zero_copy_only=False)
    after = pc.greater(a, b).to_numpy(zero_copy_only=False)
    return after.astype(np.int8) - before.astype(np.int8)


def concatenate(first: Any, second: Any, xp: types.ModuleType) -> Any:
    """Row-wise ``first + second`` where either side may be a StringColumn or a str."""
    from riptide.core.column import StringColumn

    column = first if isinstance(first, StringColumn) else second
    n = column.size

    def parts(side: Any) -> tuple[Any, Any, Any]:
        if isinstance(side, str):
            data = _as_bytes(side, xp)
            return data, xp.zeros(n, dtype=np.int64), xp.full(n, data.shape[0], dtype=np.int64)
        return side.chars, side.offsets[:-1], side.offsets[1:] - side.offsets[:-1]

    a_chars, a_start, a_len = parts(first)
    b_chars, b_start, b_len = parts(second)
    offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(a_len + b_len, out=offsets[1:])
    total = int(offsets[-1])
    masks = [side.mask for side in (first, second) if isinstance(side, StringColumn) and side.mask is not None]
    mask = None if not masks else (masks[0] if len(masks) == 1 else masks[0] & masks[1])
    if total == 0:
        return StringColumn(offsets, xp.zeros(0, dtype=np.uint8), mask)
    rows = row_of_each_element(offsets, xp)
    position = xp.arange(total, dtype=np.int64) - offsets[:-1][rows]
    in_first = position < a_len[rows]
    from_a = a_chars[xp.where(in_first, a_start[rows] + position, 0)] if a_chars.shape[0] else 0
    b_pos = xp.where(in_first, 0, b_start[rows] + position - a_len[rows])
    from_b = b_chars[b_pos] if b_chars.shape[0] else 0
    chars = xp.where(in_first, from_a, from_b).astype(np.uint8)
    return StringColumn(offsets, chars, mask)
