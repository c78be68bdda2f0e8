"""``isin``: which rows of a column hold one of a set of values.

Numbers use a sorted search on the device; strings and categoricals are factorized
together with the values, so the set may be as large as the column.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn, as_column

__all__ = ["isin"]


def isin(column: Column, values: Any) -> NumericColumn:
    """Bool column: True where the row's value is in ``values`` (missing rows match a missing value).

    >>> isin(NumericColumn(np.array([1, 2, 3])), [3, 1]).data.tolist()
    [True, False, True]
    """
    from riptide.core.ops.cast import decode_categorical

    xp = column.xp
    if isinstance(column, CategoricalColumn):
        column = decode_categorical(column)
    wanted = _values_column(values, xp, text=isinstance(column, StringColumn))
    if isinstance(wanted, CategoricalColumn):
        wanted = decode_categorical(wanted)
    if column.size == 0:
        return NumericColumn(xp.zeros(0, dtype=bool))
    if wanted.size == 0:
        return NumericColumn(xp.zeros(column.size, dtype=bool))
    column_missing = column.isna()
    wanted_has_missing = _wants_missing(column, values, wanted)
    if isinstance(column, StringColumn) != isinstance(wanted, StringColumn):
        # Strings never equal numbers; only missing can match missing.
        return NumericColumn(column_missing & wanted_has_missing)
    if isinstance(column, StringColumn):
        found = _isin_by_codes(column, wanted, xp)
    else:
        found = _isin_numeric(column, wanted, xp)
    found = xp.where(column_missing, wanted_has_missing, found)
    if dtypes.is_masked(column.dtype):
        # pandas: a masked column's isin is "boolean"; a missing row is False unless NA is wanted (then True)
        return NumericColumn(found, dtypes.to_masked(np.dtype(bool)), None)
    return NumericColumn(found)


def _wants_missing(column: Column, values: Any, wanted: Column) -> bool:
    """Whether missing rows match, with pandas' rules for which missing marker counts per dtype."""
    if dtypes.is_datetimelike(column.dtype):
        # pandas matches NaT with pd.NaT, or with the missing values of values it reads as datetimes (timedeltas) of
        # the column's kind: [Timestamp, NaN] matches, [NaN] or [None] alone does not
        if isinstance(values, list | tuple | set | frozenset) and any(v is pd.NaT for v in values):
            return True
        return _same_time_kind(column.dtype, wanted.dtype) and bool(wanted.isna().any())
    if not isinstance(values, list | tuple | set | frozenset):
        return bool(wanted.isna().any())
    if dtypes.is_masked(column.dtype):
        return any(v is pd.NA for v in values)  # only NA matches NA; None and NaN do not
    if isinstance(column, NumericColumn) and column.kind == "f":
        return any(isinstance(v, float | np.floating) and np.isnan(v) for v in values)  # NaN, not None
    return any(v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and np.isnan(v)) for v in values)


def _values_column(values: Any, xp: Any, text: bool) -> Column:
    """The wanted values as one column; a mixed list keeps the values of the column's kind (text or not)."""
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    if isinstance(values, Series):
        return values._column
    if isinstance(values, Index):
        return values._as_column()
    if isinstance(values, set | frozenset | dict):
        values = list(values)
    try:
        return as_column(values, xp=xp)
    except TypeError:
        # Mixed kinds (pandas' isin([1, "y"])): a row can only equal values of its own kind.
        same_kind = [v for v in values if isinstance(v, str) == text]
        return as_column(same_kind, xp=xp)


def _isin_numeric(column: NumericColumn, wanted: Column, xp: Any) -> Any:
    if not isinstance(wanted, NumericColumn):
        return xp.zeros(column.size, dtype=bool)
    if dtypes.is_datetimelike(column.dtype) != dtypes.is_datetimelike(wanted.dtype):
        return xp.zeros(column.size, dtype=bool)
    keep = ~wanted.isna()
    table = wanted.data[keep] if wanted.can_hold_missing() else wanted.data
    data = column.data
    if dtypes.is_datetimelike(column.dtype):
        if not _same_time_kind(column.dtype, wanted.dtype):  # datetimes never equal timedeltas, naive never aware
            return xp.zeros(column.size, dtype=bool)
        mine, theirs = dtypes.to_numpy_dtype(column.dtype), dtypes.to_numpy_dtype(wanted.dtype)
        if mine != theirs:  # compare in the finer unit (a coarser one would truncate the finer values)
            from riptide.core.ops.cast import astype

            finer = np.result_type(mine, theirs)  # of two datetime64 (timedelta64) dtypes: the finer unit
            data = data if mine == finer else astype(NumericColumn(data, mine), finer).data
            table = table if theirs == finer else astype(NumericColumn(table, theirs), finer).data
    elif column.data.dtype.kind in "iu" and table.dtype.kind == "f":
        # Integers against floats compare exactly, as pandas does: only integral floats inside the column's range
        # can match, and they are compared as integers (promoting the column to float64 instead would round
        # 2**53 + 1 to 2**53, and NumPy and CuPy differ in whether they do).
        info = np.iinfo(column.data.dtype)
        exact = (table == xp.floor(table)) & (table >= float(info.min)) & (table < float(info.max) + 1.0)
        table = table[exact].astype(column.data.dtype)
    return xp.isin(data, table)


def _same_time_kind(column_dtype: Any, wanted_dtype: Any) -> bool:
    """Both datetimes (both naive or both tz-aware) or both timedeltas."""
    if not dtypes.is_datetimelike(wanted_dtype):
        return False
    if dtypes.to_numpy_dtype(column_dtype).kind != dtypes.to_numpy_dtype(wanted_dtype).kind:
        return False
    return (getattr(column_dtype, "tz", None) is None) == (getattr(wanted_dtype, "tz", None) is None)


def _isin_by_codes(column: Column, wanted: Column, xp: Any) -> Any:
    from riptide.core.column.build import concat_columns
    from riptide.core.kernels.factorize import factorize

    codes, n = factorize(concat_columns([column, wanted]))
    own, theirs = codes[: column.size], codes[column.size :]
    present = xp.zeros(n + 1, dtype=bool)
    present[theirs[theirs >= 0]] = True
    return present[xp.where(own >= 0, own, n)]
