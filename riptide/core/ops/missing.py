"""Choosing between values row by row: ``where``, and the missing-value fills built on it.

``where(column, keep, other)`` keeps ``column`` where ``keep`` is True and takes ``other``
(a scalar, a column, or None for "missing") elsewhere; the result dtype follows pandas
(int64 filled with 1.5 becomes float64, with NaN becomes float64, masked stays masked).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn, full, is_scalar
from riptide.core.column.build import concat_columns

__all__ = ["where", "fill_where", "fillna", "is_missing_scalar"]


def is_missing_scalar(value: Any) -> bool:
    """None, NaN, pd.NA or NaT."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    try:
        return bool(is_scalar(value) and not isinstance(value, str) and pd.isna(value))
    except (TypeError, ValueError):
        return False


def where(column: Column, keep: Any, other: Any = None) -> Column:
    """Rows of ``column`` where ``keep`` is True, ``other`` elsewhere (None: missing)."""
    xp = column.xp
    if isinstance(other, Column) and other.size != column.size:
        raise ValueError(f"cannot fill {column.size} rows from {other.size} values")
    if bool(keep.all()):  # one scalar read: nothing replaced keeps the dtype (pandas does not upcast then)
        return column
    if isinstance(column, NumericColumn) and dtypes.is_masked(column.dtype) and column.kind in "iu" and (
            not isinstance(other, Column)):  # fmt: skip
        from riptide.core.ops.cast import settable_scalar

        other = settable_scalar(column, other)  # Int64 takes 3.0 as 3 and refuses 2.5, as pandas does
    if not isinstance(other, Column) and is_missing_scalar(other):
        if isinstance(column, NumericColumn) and column.kind == "f" and not dtypes.is_masked(column.dtype):
            return NumericColumn(xp.where(keep, column.data, xp.nan).astype(column.data.dtype, copy=False))
        return column.set_missing(~keep)
    if isinstance(column, StringColumn | CategoricalColumn) or isinstance(other, StringColumn | CategoricalColumn):
        return _choose_by_concat(column, keep, other)
    if isinstance(other, str):
        raise TypeError(f"cannot fill a column of dtype {column.dtype} with the string {other!r}")
    assert isinstance(column, NumericColumn)
    if dtypes.is_datetimelike(column.dtype):
        return _temporal_where(column, keep, other)
    if isinstance(other, NumericColumn):
        other_values, other_mask = other.data, other.mask
        masked = dtypes.is_masked(column.dtype) or dtypes.is_masked(other.dtype)
        if dtypes.is_datetimelike(other.dtype):
            raise TypeError(f"cannot mix {column.dtype} and {other.dtype} values in one column")
    else:
        if not isinstance(other, bool | int | float | np.number | np.bool_):
            raise TypeError(f"cannot fill a column of dtype {column.dtype} with {type(other).__name__}")
        other_values, other_mask, masked = other, None, dtypes.is_masked(column.dtype)
    values = xp.where(keep, column.data, other_values)
    if column.kind == "b" and values.dtype.kind != "b" and not isinstance(other, Column):
        # pandas keeps bool + non-bool scalar as object; riptide has no object columns
        raise TypeError(f"cannot fill a bool column with {other!r}; cast the column first")
    if not masked:
        return NumericColumn(values)
    mask = _select_mask(keep, column.mask, other_mask, xp)
    return NumericColumn(values, dtypes.to_masked(values.dtype), mask)


def _select_mask(keep: Any, left_mask: Any, right_mask: Any, xp: Any) -> Any:
    if left_mask is None and right_mask is None:
        return None
    left = True if left_mask is None else left_mask
    right = True if right_mask is None else right_mask
    return xp.where(keep, left, right)


def _temporal_where(column: NumericColumn, keep: Any, other: Any) -> Column:
    xp = column.xp
    if isinstance(other, NumericColumn):
        if other.dtype != column.dtype:
            raise TypeError(f"cannot fill {column.dtype} values with {other.dtype}")
        value = other.data
    else:
        if not isinstance(other, pd.Timestamp | np.datetime64 | _dt.datetime | pd.Timedelta | np.timedelta64 |
                          _dt.timedelta | str):  # fmt: skip
            raise TypeError(f"cannot fill {column.dtype} values with {type(other).__name__}")
        value = dtypes.datetime_ticks(other, column.dtype)
    return NumericColumn(xp.where(keep, column.data, value), column.dtype)


def _choose_by_concat(column: Column, keep: Any, other: Any) -> Column:
    """Variable-width or dictionary layouts: gather from ``[column, other]`` stacked end to end."""
    xp = column.xp
    n = column.size
    if isinstance(column, CategoricalColumn) and not isinstance(other, Column):
        categories = column.dtype.categories
        if other not in categories:
            raise TypeError(f"Cannot setitem on a Categorical with a new category ({other}), set the categories first")
        codes = xp.where(keep, column.codes, int(categories.get_loc(other))).astype(column.codes.dtype)
        return CategoricalColumn(codes, column.categories, column.ordered)
    if not isinstance(other, Column):
        other = full(n, other, column.dtype, xp=xp)
    if type(other) is not type(column):
        raise TypeError(f"cannot mix {column.dtype} and {other.dtype} values in one column")
    positions = xp.arange(n, dtype=np.int64)
    return concat_columns([column, other]).take(xp.where(keep, positions, positions + n))


def fill_where(column: Column, fill: Any, value: Any) -> Column:
    """``column`` with the rows where ``fill`` is True set to ``value``."""
    return where(column, ~fill, value)


def fillna(column: Column, value: Any) -> Column:
    """Missing rows replaced by ``value`` (a scalar or an aligned column)."""
    if not column.can_hold_missing():
        return column
    missing = column.isna()
    if isinstance(value, Column):
        return where(column, ~missing, value)
    from riptide.core.ops.cast import settable_scalar

    if not bool(missing.any()):  # nothing to fill: pandas returns the column as it is, whatever the value
        return column
    if isinstance(column, CategoricalColumn) and value not in column.dtype.categories:
        raise TypeError(f"Cannot setitem on a Categorical with a new category ({value}), set the categories first")
    return where(column, ~missing, settable_scalar(column, value))
