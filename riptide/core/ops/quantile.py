"""Quantiles of a numeric column (pandas' ``Series.quantile`` interpolation methods).

pandas computes ``np.quantile`` over the non-missing values and then picks the result dtype
by rules that depend on the column's kind, so this module does the same in two steps:

* ``_interpolate`` reproduces NumPy's arithmetic on the sorted values (the same virtual
  indexes, the same ``_lerp`` formula, the difference taken in the values' own dtype), so
  values agree bit for bit: between two equal infinities the result is NaN, and int8
  differences wrap, exactly as pandas' results do;
* ``_finish`` gives the result the dtype pandas gives it (see its table).

Everything stays on the device; the host learns one count (how many values are missing)
and, for the scalars, the ``len(qs)`` results.

Quantiles of many segments at once (groupby, rolling windows) follow pandas' per-group rule
instead, in float64: :func:`interpolate_sorted` is that rule, shared by both callers.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn

__all__ = ["INTERPOLATIONS", "interpolate_sorted", "quantile", "quantile_column"]

INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")
_DISCRETE = {"lower": "floor", "higher": "ceil", "nearest": "around"}  # NumPy's index rule of each method


def quantile(column: Column, qs: list[float], interpolation: str = "linear") -> list[Any]:
    """The ``qs`` quantiles of the non-missing values, boxed as pandas' scalars.

    >>> quantile(NumericColumn(np.array([1.0, 2.0, 3.0, 4.0])), [0.5])
    [np.float64(2.5)]
    """
    return _boxed(quantile_column(column, qs, interpolation))


def quantile_column(column: Column, qs: list[float], interpolation: str = "linear") -> NumericColumn:
    """The ``qs`` quantiles as a column of the dtype pandas' ``Series.quantile(qs)`` has."""
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"interpolation must be one of {', '.join(INTERPOLATIONS)}, got {interpolation!r}")
    for q in qs:
        if not 0 <= q <= 1:
            raise ValueError("percentiles should all be in the interval [0, 1]")
    if not isinstance(column, NumericColumn):
        raise TypeError(f"quantile is not supported for dtype {column.dtype}")
    xp = column.xp
    missing = column.isna() if column.can_hold_missing() else None
    has_missing = missing is not None and bool(missing.any())  # the one sync: the size of the valid values
    values = column.data[~missing] if has_missing else column.data
    raw = None
    if values.shape[0]:
        raw = _interpolate(xp.sort(values), xp.asarray(qs, dtype=np.float64), interpolation, column.dtype, xp)
    return _finish(column, raw, has_missing, len(qs), xp)


def interpolate_sorted(at: Any, counts: Any, q: float, interpolation: str, xp: Any) -> Any:
    """The ``q`` quantile of each segment of sorted float values; ``at(offsets)`` gathers each segment's value at
    an offset into it (one offset per segment). pandas' per-group rule: the position is ``q * (count - 1)``;
    ``nearest`` rounds it half to even. A segment with no values gives whatever ``at`` gives: mask it after.

    >>> ordered = np.array([1.0, 2.0, 4.0, 10.0, 20.0])  # segments [1, 2, 4] and [10, 20]
    >>> starts, counts = np.array([0, 3]), np.array([3, 2])
    >>> interpolate_sorted(lambda offset: ordered[starts + offset], counts, 0.75, "linear", np).tolist()
    [3.0, 17.5]
    """
    top = xp.maximum(counts - 1, 0)
    position = q * top.astype(np.float64)
    low = xp.floor(position).astype(np.int64)
    fraction = position - low
    high = xp.minimum(low + 1, top)
    below, above = at(low), at(high)
    with np.errstate(all="ignore"):  # inf - inf beyond a segment's values: the caller masks those
        if interpolation == "lower":
            return below
        if interpolation == "higher":
            return xp.where(fraction > 0, above, below)
        if interpolation == "nearest":
            return at(xp.around(position).astype(np.int64))  # half to even, as pandas
        if interpolation == "midpoint":
            return xp.where(fraction > 0, (below + above) / 2, below)
        return xp.where(fraction > 0, below + (above - below) * fraction, below)


def _interpolate(ordered: Any, q: Any, method: str, dtype: Any, xp: Any) -> Any:
    """``np.quantile(ordered, q, method=method)`` of sorted values, as NumPy computes it."""
    n = ordered.shape[0]
    position = q * (n - 1)
    if method in _DISCRETE:  # a value of the column itself: its dtype is kept
        return ordered[getattr(xp, _DISCRETE[method])(position).astype(np.int64)]
    if ordered.dtype.kind == "b":
        raise TypeError(f"quantile(interpolation={method!r}) of dtype {dtype} would interpolate between booleans; "
                        "use interpolation='lower', 'higher' or 'nearest', or cast to a number first")  # fmt: skip
    virtual = position if method == "linear" else 0.5 * (xp.floor(position) + xp.ceil(position))
    # NumPy addresses the last value as -1 at and beyond the end, and its gamma is measured from there.
    above = virtual >= n - 1
    previous = xp.where(above, -1.0, xp.floor(virtual))
    following = xp.where(above, -1.0, previous + 1)
    gamma = virtual - previous if method == "linear" else xp.where(virtual % 1 == 0, 0.0, 0.5)
    return _lerp(ordered[previous.astype(np.int64)], ordered[following.astype(np.int64)], gamma, xp)


def _lerp(a: Any, b: Any, t: Any, xp: Any) -> Any:
    """NumPy's ``_lerp``: the difference in the values' dtype, then a + d*t (t < 0.5) or b - d*(1-t)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # inf - inf is NaN, as in pandas' result
        diff = b - a
        return xp.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


def _finish(column: NumericColumn, raw: Any, has_missing: bool, n_qs: int, xp: Any) -> NumericColumn:
    """The dtype pandas gives (``raw`` is None when there is no value to take a quantile of).

    =================  ====================  ==================================  ===========================
    column             empty                 all missing                         otherwise
    =================  ====================  ==================================  ===========================
    datetime/timedelta NaT                   NaT                                 float results truncated
    int, uint, bool    float64 NaN           (cannot be missing)                 NumPy's dtype
    float32/64         float64 NaN           NaN of the column's dtype           NumPy's; column's if NaN
    Int*, UInt*        Float64 NA            NA of the column's dtype            see ``_masked``
    Float32/64         Float64 NA            NA of the column's dtype            see ``_masked``
    boolean            Float64 NA            Float64 NA                          boolean
    =================  ====================  ==================================  ===========================
    """
    dtype = column.dtype
    storage = dtypes.storage_dtype(dtype)
    if dtypes.is_datetimelike(dtype):
        ints = xp.full(n_qs, dtypes.NAT, dtype=np.int64) if raw is None else raw.astype(np.int64)
        return NumericColumn(ints, dtype)
    if dtypes.is_masked(dtype):
        return _masked(raw, has_missing, storage, n_qs, xp)
    if raw is None:  # an all-NaN float column keeps its width; an empty column of any kind is float64
        return NumericColumn(xp.full(n_qs, np.nan, dtype=storage if has_missing else np.float64))
    # pandas restores the width of a float column that had NaNs (float32 stays float32 then only).
    return NumericColumn(raw.astype(storage) if has_missing else raw)


def _masked(raw: Any, has_missing: bool, storage: np.dtype, n_qs: int, xp: Any) -> NumericColumn:
    """A masked column's quantiles: NumPy's dtype, cast back to the column's when pandas does.

    With missing values pandas casts float results back to the column's width, and int results
    of an interpolation back to the int dtype when every one of them is a whole number.
    NaN results are missing (pandas' masked arrays treat NaN as NA).
    """
    if raw is None:
        all_na_dtype = storage if has_missing and storage.kind in "iuf" else np.dtype(np.float64)
        return NumericColumn(xp.zeros(n_qs, dtype=all_na_dtype), dtypes.to_masked(all_na_dtype),
                             xp.zeros(n_qs, dtype=bool))  # fmt: skip
    if has_missing and raw.dtype != storage and (storage.kind == "f" or bool(xp.all(raw == raw.astype(storage)))):
        raw = raw.astype(storage)
    valid = ~xp.isnan(raw) if raw.dtype.kind == "f" else None
    return NumericColumn(raw, dtypes.to_masked(raw.dtype), valid)


def _boxed(column: NumericColumn) -> list[Any]:
    """The results as pandas' scalars (np.float64, np.int8, np.bool_, pd.NA, Timestamp, NaT)."""
    values = column.to_pandas_array()  # the len(qs) results: the only transfer
    if dtypes.is_datetimelike(column.dtype):
        box = pd.Timestamp if column.dtype.kind == "M" else pd.Timedelta
        return [box(v) for v in values]
    return [values[i] for i in range(len(values))]
