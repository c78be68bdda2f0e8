"""Row-ordered operations: cumulative sums/products/extrema, shift, diff, forward/backward fill.

Cumulative operations skip missing values as pandas does: the missing row stays missing
and the running value carries over it (``skipna=True``); with ``skipna=False`` every
row after the first missing one is missing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn
from riptide.core.kernels.scan import running

__all__ = ["cumulative", "shift", "diff", "fill_direction", "CUMULATIVE"]

CUMULATIVE = ("cumsum", "cumprod", "cummin", "cummax")
_NEUTRAL = {"cumsum": 0, "cumprod": 1}


def cumulative(column: Column, op: str, skipna: bool = True) -> Column:
    """``cumsum`` / ``cumprod`` / ``cummin`` / ``cummax`` of a numeric or datetime column."""
    if op not in CUMULATIVE:
        raise ValueError(f"unknown cumulative operation {op!r}; expected one of {', '.join(CUMULATIVE)}")
    if not isinstance(column, NumericColumn):
        raise TypeError(f"{op} is not supported for dtype {column.dtype}")
    xp = column.xp
    if dtypes.is_datetimelike(column.dtype) and op not in ("cummin", "cummax") and not (
            op == "cumsum" and column.dtype.kind == "m"):  # fmt: skip
        raise TypeError(f"{op} is not supported for dtype {column.dtype}")
    missing = column.isna() if column.can_hold_missing() else None
    if missing is not None and not bool(missing.any()):  # one scalar read: skip the filling passes
        missing = None
    data = column.data
    if column.kind == "b" and op in _NEUTRAL:
        data = data.astype(np.int64)
    if missing is not None:
        filler = _NEUTRAL[op] if op in _NEUTRAL else _extreme(data.dtype, largest=(op == "cummin"))
        data = xp.where(missing, filler, data)
    values = running(op, data, xp)
    result_dtype = _scan_dtype(column.dtype, values.dtype, op)
    values = values.astype(dtypes.storage_dtype(result_dtype), copy=False)
    if missing is None:
        return NumericColumn(values, result_dtype, None)
    if not skipna:
        # Everything from the first missing row on is missing.
        missing = running("cummax", missing.astype(np.int8), xp).astype(bool)
    if dtypes.is_masked(result_dtype):
        return NumericColumn(values, result_dtype, ~missing)
    return NumericColumn(values, result_dtype).set_missing(missing)


def _scan_dtype(source: Any, values: np.dtype, op: str) -> Any:
    """pandas' dtype for a scan: sums and products widen small ints as NumPy does (int8 -> int64)."""
    if op not in _NEUTRAL or dtypes.is_datetimelike(source):
        return source
    return dtypes.to_masked(values) if dtypes.is_masked(source) else values


def _extreme(dtype: np.dtype, largest: bool) -> Any:
    if dtype.kind == "f":
        return np.inf if largest else -np.inf
    if dtype.kind == "b":
        return largest
    info = np.iinfo(dtype)
    return info.max if largest else info.min


def shift(column: Column, periods: int, fill_value: Any = None) -> Column:
    """Rows moved down by ``periods`` (up when negative); vacated rows missing or ``fill_value``."""
    xp = column.xp
    n = column.size
    positions = xp.arange(n, dtype=np.int64) - periods
    outside = (positions < 0) | (positions >= n)
    if fill_value is None:
        if periods != 0 and not column.can_hold_missing():
            # pandas upcasts int64 (to float64) for any non-zero shift, even when no row is vacated (empty)
            return column.take(xp.clip(positions, 0, max(n - 1, 0))).set_missing(outside)
        return column.take_or_missing(xp.where(outside, -1, positions))
    from riptide.core.ops.missing import fill_where

    shifted = column.take(xp.clip(positions, 0, max(n - 1, 0))) if n else column
    return fill_where(shifted, outside, fill_value)


def fill_direction(column: Column, forward: bool, limit: int | None = None) -> Column:
    """ffill (``forward=True``) or bfill: each missing row takes the nearest valid row's value."""
    xp = column.xp
    n = column.size
    missing = column.isna()
    positions = xp.arange(n, dtype=np.int64)
    if forward:
        source = running("cummax", xp.where(missing, -1, positions), xp)
    else:
        source = running("cummin", xp.where(missing, n, positions)[::-1], xp)[::-1]
        source = xp.where(source == n, -1, source)
    if limit is not None:
        too_far = xp.abs(positions - source) > limit
        source = xp.where(too_far & missing, -1, source)
    source = xp.where(missing, source, positions)
    return column.take_or_missing(source) if column.can_hold_missing() else column


def diff(column: Column, periods: int = 1) -> Column:
    """``column - column.shift(periods)`` with pandas' dtypes.

    Integers subtract in their own dtype (wrapping, as pandas does) and then become float
    (float32 for int8/int16, float64 otherwise, unsigned included); masked dtypes stay masked; datetimes give
    timedeltas; bool gives "differs from the previous row" (pandas: object, riptide: boolean).
    """
    if not isinstance(column, NumericColumn):
        raise TypeError(f"unsupported operand type(s) for -: '{column.dtype}' and '{column.dtype}'")
    xp = column.xp
    n = column.size
    positions = xp.arange(n, dtype=np.int64) - periods
    outside = (positions < 0) | (positions >= n)
    source = xp.clip(positions, 0, max(n - 1, 0))
    data = column.data
    previous = data[source] if n else data
    kind = column.kind
    if kind == "b":
        values = data != previous
        result_dtype: Any = dtypes.to_masked(np.dtype(bool))
    elif dtypes.is_datetimelike(column.dtype):
        unit = dtypes.datetime_unit(column.dtype)
        values = data - previous
        nat = (data == dtypes.NAT) | (previous == dtypes.NAT)
        return NumericColumn(xp.where(nat | outside, dtypes.NAT, values), np.dtype(f"m8[{unit}]"))
    else:
        values = data - previous  # in the column's own dtype: integers wrap exactly as pandas' do
        result_dtype = column.dtype
        if kind in "iu" and not dtypes.is_masked(column.dtype):
            result_dtype = np.dtype(np.float32 if kind == "i" and values.dtype.itemsize <= 2 else np.float64)
            values = values.astype(result_dtype)
    if dtypes.is_masked(result_dtype):
        valid = ~outside
        if column.mask is not None:
            valid &= column.mask & (column.mask[source] if n else column.mask)
        return NumericColumn(values.astype(dtypes.storage_dtype(result_dtype), copy=False), result_dtype, valid)
    return NumericColumn(values).set_missing(outside)
