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

__all__ = ["cumulative", "shift", "fill_direction", "CUMULATIVE"]

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
    data = column.data
    if column.kind == "b":
        data = data.astype(np.int64) if op in ("cumsum", "cumprod") else data
    if missing is None:
        return NumericColumn(running(op, data, xp), column.dtype if column.kind != "b" or op in (
            "cummin", "cummax") else np.dtype(np.int64))  # fmt: skip
    if op in _NEUTRAL:
        filler = _NEUTRAL[op]
    else:
        filler = _extreme(data.dtype, largest=(op == "cummin"))
    values = running(op, xp.where(missing, filler, data), xp)
    if not skipna:
        # Everything from the first missing row on is missing.
        missing = running("cummax", missing.astype(np.int8), xp).astype(bool)
    result_dtype = column.dtype
    if column.kind == "b" and op in _NEUTRAL:
        result_dtype = dtypes.to_masked(np.dtype(np.int64)) if dtypes.is_masked(column.dtype) else np.dtype(np.int64)
    values = values.astype(dtypes.storage_dtype(result_dtype), copy=False)
    if dtypes.is_masked(result_dtype):
        return NumericColumn(values, result_dtype, ~missing)
    return NumericColumn(values, result_dtype).set_missing(missing)


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
