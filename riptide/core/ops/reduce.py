"""Reductions of one column to a scalar, with pandas' ``skipna`` / ``min_count`` / ``ddof`` rules.

Each returns what pandas returns: NumPy scalars (``np.int64``, ``np.float64``, ``np.bool_``),
``pd.Timestamp`` / ``pd.Timedelta`` for datetimes, ``pd.NA`` for a masked result that is
missing, NaN for an empty or all-missing numeric result.

Reading the result is the only device-to-host transfer: one scalar.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn

__all__ = ["REDUCTIONS", "argreduce", "nunique", "reduce"]

REDUCTIONS = ("sum", "prod", "mean", "min", "max", "count", "std", "var", "median", "any", "all", "sem")


def reduce(column: Column, op: str, *, skipna: bool = True, min_count: int = 0, ddof: int = 1) -> Any:
    """``column.<op>()`` as pandas computes it.

    >>> reduce(NumericColumn(np.array([1.0, np.nan, 3.0])), "sum")
    np.float64(4.0)
    """
    if op not in REDUCTIONS:
        raise ValueError(f"unknown reduction {op!r}; expected one of {', '.join(REDUCTIONS)}")
    if op == "count":
        return np.int64(column.size - int(column.isna().sum()))
    if isinstance(column, CategoricalColumn):
        return _categorical(column, op, skipna)
    if isinstance(column, StringColumn):
        return _strings(column, op, skipna, min_count)
    assert isinstance(column, NumericColumn)
    if dtypes.is_datetimelike(column.dtype):
        return _temporal(column, op, skipna, min_count, ddof)
    return _numeric(column, op, skipna, min_count, ddof)


_NAN_AWARE = {"sum": "nansum", "prod": "nanprod", "mean": "nanmean", "min": "nanmin", "max": "nanmax",
              "median": "nanmedian", "var": "nanvar", "std": "nanstd"}  # fmt: skip


def _numeric(column: NumericColumn, op: str, skipna: bool, min_count: int, ddof: int) -> Any:
    xp = column.xp
    masked = dtypes.is_masked(column.dtype)
    if column.kind == "f" and not masked and op in _NAN_AWARE and min_count == 0:
        return _float_fast_path(column, op, skipna, ddof)
    missing = column.isna() if column.can_hold_missing() else None
    data = column.data
    if missing is not None and not skipna and bool(missing.any()):
        if op in ("any", "all") and masked:
            return _kleene_any_all(column, op)
        if op in ("any", "all"):
            return _any_all(data, op, None, xp)
        return pd.NA if masked else data.dtype.type(np.nan)  # float: the column's width, as pandas
    n_valid = column.size if missing is None else column.size - int(missing.sum())
    if op in ("any", "all"):
        return _any_all(data, op, missing, xp)
    if _undefined(op, n_valid, min_count, ddof, masked):
        return pd.NA if masked else _nan_like(data, op)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # inf - inf, n - ddof <= 0: NaN/inf as pandas
        result = _to_scalar(_compute(data, missing, op, n_valid, ddof, xp))
    # pandas' masked arrays read a NaN result (inf - inf, 0 / 0) as missing.
    return pd.NA if masked and isinstance(result, np.floating) and np.isnan(result) else result


def _nan_like(data: Any, op: str) -> Any:
    """pandas' missing result of a NumPy column: NaN of a float column's width (float64 for an empty one, but
    for sum/prod), else float64 NaN."""
    keeps_width = data.dtype.kind == "f" and (data.shape[0] > 0 or op in ("sum", "prod"))
    return (data.dtype.type if keeps_width else np.float64)(np.nan)


def _undefined(op: str, n_valid: int, min_count: int, ddof: int, masked: bool) -> bool:
    """Whether pandas gives a missing result without computing one (too few values)."""
    if op in ("sum", "prod"):
        return n_valid < min_count
    if op in ("var", "std") and masked:  # masked arrays divide by max(n - ddof, 0) as NumPy: inf, or NaN -> NA
        return n_valid == 0
    if op in ("std", "var", "sem"):
        return n_valid - ddof <= 0
    return n_valid == 0  # mean, min, max, median


def _compute(data: Any, missing: Any, op: str, n_valid: int, ddof: int, xp: Any) -> Any:
    """The reduction of the non-missing values (at least one, except for sum/prod), as a 0-d device array."""
    if data.dtype.kind == "b" and op not in ("min", "max"):
        data = data.astype(np.int64 if op in ("sum", "prod") else np.float64)
    if op in ("sum", "prod"):
        neutral = 0 if op == "sum" else 1
        values = data if missing is None else xp.where(missing, neutral, data)
        acc = values.dtype if values.dtype.kind == "f" else (np.uint64 if values.dtype.kind == "u" else np.int64)
        return (xp.sum if op == "sum" else xp.prod)(values, dtype=acc)
    values = data if missing is None else data[~missing]
    if op in ("min", "max"):
        return (xp.min if op == "min" else xp.max)(values)
    values = values.astype(np.float64) if values.dtype.kind != "f" else values
    if op in ("mean", "median"):
        return (xp.mean if op == "mean" else xp.median)(values)
    if op in ("var", "std"):
        # Written out rather than xp.var: NumPy divides by max(n - ddof, 0), giving inf (pandas' masked answer
        # at ddof == n), where CuPy's var gives NaN.
        squares = ((values - values.mean()) ** 2).sum()
        variance = squares / max(n_valid - ddof, 0)
        return variance if op == "var" else xp.sqrt(variance)
    # sem; a Python float divisor keeps a float32 result float32, as pandas'
    return xp.std(values, ddof=ddof) / math.sqrt(n_valid)


def _float_fast_path(column: NumericColumn, op: str, skipna: bool, ddof: int) -> Any:
    """NaN-aware reductions of a plain float column in one pass over the data (no mask, no count)."""
    xp = column.xp
    width = column.data.dtype.type
    if column.size == 0:  # pandas: the sum/prod of nothing keeps the float width, the rest is NaN
        return width({"sum": 0, "prod": 1}[op]) if op in ("sum", "prod") else np.float64(np.nan)
    if not skipna and op in ("var", "std") and column.size <= ddof:
        return width(np.nan)  # NumPy divides by n - ddof <= 0 (inf); pandas gives NaN (size known: no sync)
    kwargs = {"ddof": ddof} if op in ("var", "std") else {}
    name = _NAN_AWARE[op] if skipna else op
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices: pandas returns NaN silently
        result = getattr(xp, name)(column.data, **kwargs)
    return _to_scalar(result)


def _any_all(data: Any, op: str, missing: Any, xp: Any) -> np.bool_:
    values = data if missing is None else xp.where(missing, op == "all", data)
    return np.bool_(bool((xp.any if op == "any" else xp.all)(values)))


def _kleene_any_all(column: NumericColumn, op: str) -> Any:
    xp = column.xp
    valid = column.mask
    truthy = column.data.astype(bool)
    if op == "any":
        return np.bool_(True) if bool(xp.any(truthy & valid)) else pd.NA
    return np.bool_(False) if bool(xp.any(~truthy & valid)) else pd.NA


#: What pandas computes for each temporal kind; any other reduction raises TypeError (even when empty).
_TEMPORAL_OPS = {"M": ("min", "max", "mean", "median", "std"),
                 "m": ("min", "max", "mean", "median", "std", "sum", "any", "all")}  # fmt: skip


def _temporal(column: NumericColumn, op: str, skipna: bool, min_count: int, ddof: int) -> Any:
    xp = column.xp
    _check_temporal_op(column.dtype, op)
    missing = column.data == dtypes.NAT
    if op in ("any", "all"):  # timedelta truthiness; NaT is truthy unless skipped (pandas)
        return _any_all(column.data != 0, op, missing if skipna else None, xp)
    box = functools.partial(dtypes.box_datetime, dtype=column.dtype)  # one scalar read per call (the result)
    n_missing = int(missing.sum())
    if n_missing and not skipna:
        return pd.NaT
    n_valid = column.size - n_missing
    if op == "sum":
        total = xp.sum(xp.where(missing, 0, column.data))
        return box(total) if n_valid >= max(min_count, 1) else (pd.NaT if min_count else box(0))
    if n_valid == 0:
        return pd.NaT
    if op in ("min", "max"):
        return box((xp.min if op == "min" else xp.max)(column.data[~missing] if n_missing else column.data))
    if op == "median":  # in float64, truncated toward zero (int()), as pandas
        return box(xp.median(column.data[~missing].astype(np.float64) if n_missing else column.data))
    # mean and std in float64 over every row, missing ones as 0, as pandas' nanops: the same rounding
    zeroed = xp.where(missing, 0, column.data)
    mean = zeroed.sum(dtype=np.float64) / n_valid
    if op == "mean":
        return box(mean)
    if n_valid - ddof <= 0:
        return pd.NaT
    squares = xp.where(missing, 0.0, (mean - zeroed) ** 2)
    std = xp.sqrt(squares.sum(dtype=np.float64) / (n_valid - ddof))
    return pd.Timedelta(np.timedelta64(int(float(std)), dtypes.datetime_unit(column.dtype)))  # truncated, as pandas


def _check_temporal_op(dtype: np.dtype, op: str) -> None:
    if op in _TEMPORAL_OPS[dtype.kind]:
        return
    if op in ("any", "all"):
        raise TypeError(f"'{op}' with datetime64 dtypes is not supported. Use (obj != pd.Timestamp(0)).{op}() "
                        "instead.")  # fmt: skip
    array = "DatetimeArray" if dtype.kind == "M" else "TimedeltaArray"
    raise TypeError(f"'{array}' with dtype {dtype} does not support operation '{op}'")


def _strings(column: StringColumn, op: str, skipna: bool, min_count: int = 0) -> Any:
    if op in ("any", "all"):
        return _string_truthiness(column, op, skipna)
    if op not in ("min", "max", "sum"):
        raise TypeError(f"Cannot perform reduction '{op}' with string dtype")
    from riptide.core.kernels import strings as string_kernels

    xp = column.xp
    keep = column.notna()
    n_valid = int(keep.sum())
    if n_valid < column.size and not skipna:
        return np.nan
    if n_valid == 0 or n_valid < min_count:
        return np.nan if op != "sum" or min_count else ""
    valid = column.filter(keep) if n_valid < column.size else column
    if op == "sum":
        return bytes(_host(valid.chars)).decode()
    # Tournament over rows: halve the candidates each round with the row-wise compare kernel.
    candidates = valid
    while candidates.size > 1:
        half = candidates.size // 2
        a = candidates.slice(0, half)
        b = candidates.slice(half, 2 * half)
        order = string_kernels.compare(a, b, xp)
        pick_b = order > 0 if op == "min" else order < 0
        winners = xp.where(pick_b, xp.arange(half, 2 * half), xp.arange(half))
        if candidates.size % 2:
            winners = xp.concatenate([winners, xp.asarray([candidates.size - 1])])
        candidates = candidates.take(winners)
    return bytes(_host(candidates.chars)).decode()


def _string_truthiness(column: StringColumn, op: str, skipna: bool) -> bool:
    """any/all of the strings' truthiness (non-empty is True), from the offsets alone (a Python bool, as pandas).

    A missing string is skipped with ``skipna``; without it, it counts as True (pandas' NaN is truthy).
    """
    xp = column.xp
    non_empty = column.offsets[1:] != column.offsets[:-1]
    values = xp.where(column.isna(), op == "all" or not skipna, non_empty)
    return bool((xp.any if op == "any" else xp.all)(values))


def _categorical(column: CategoricalColumn, op: str, skipna: bool) -> Any:
    if op not in ("min", "max"):
        raise TypeError(f"'Categorical' with dtype category does not support operation '{op}'")
    if not column.ordered:
        raise TypeError(f"Categorical is not ordered for operation {op}\nyou can use .as_ordered() to change the "
                        "Categorical to an ordered one")  # fmt: skip
    xp = column.xp
    codes = column.codes
    valid = codes >= 0
    if not bool(valid.all()) and not skipna or not bool(valid.any()):
        return np.nan
    code = int((xp.min if op == "min" else xp.max)(codes[valid]))
    return column.dtype.categories[code]


def argreduce(column: Column, op: str, *, skipna: bool = True) -> np.int64:
    """Position of the first minimum (``op="argmin"``) or maximum (``"argmax"``), as pandas' idxmin/idxmax.

    Strings and categoricals compare by their codes (sorted order for strings, the categories'
    order for categoricals, as pandas), so every dtype reduces one integer or float array.
    """
    xp = column.xp
    if column.size == 0:
        raise ValueError(f"attempt to get {op} of an empty sequence")
    keys, missing = _order_keys(column)
    if missing is None:
        return np.int64(int((xp.argmin if op == "argmin" else xp.argmax)(keys)))
    n_missing = int(missing.sum())
    if n_missing == column.size:
        raise ValueError("Encountered all NA values")
    if n_missing and not skipna:
        raise ValueError("Encountered an NA value with skipna=False")
    if not n_missing:
        return np.int64(int((xp.argmin if op == "argmin" else xp.argmax)(keys)))
    if keys.dtype.kind == "f":
        fill = np.inf if op == "argmin" else -np.inf
    else:
        info = np.iinfo(keys.dtype)
        fill = info.max if op == "argmin" else info.min
    filled = xp.where(missing, fill, keys)
    # A fill equal to a real extreme would tie with it: take the first valid row holding the extreme.
    target = (xp.min if op == "argmin" else xp.max)(filled)
    return np.int64(int(xp.argmax((filled == target) & ~missing)))


def _order_keys(column: Column) -> tuple[Any, Any]:
    """An array ordered as the column's values, and the missing rows (None when there can be none)."""
    if isinstance(column, CategoricalColumn):
        return column.codes, column.codes < 0
    if isinstance(column, StringColumn):
        from riptide.core.kernels.factorize import factorize

        codes, _ = factorize(column)  # ranks in sorted order; -1 for missing rows
        return codes, codes < 0
    assert isinstance(column, NumericColumn)
    data = column.data.view(np.uint8) if column.data.dtype.kind == "b" else column.data
    return data, column.isna() if column.can_hold_missing() else None


def nunique(column: Column, dropna: bool = True) -> int:
    """Number of distinct values (missing values count once when ``dropna=False``)."""
    from riptide.core.kernels.factorize import factorize

    _, n_groups = factorize(column)
    has_missing = bool(column.isna().any()) if column.can_hold_missing() else False
    return n_groups + (1 if has_missing and not dropna else 0)


def _to_scalar(value: Any) -> Any:
    host = value.item() if hasattr(value, "item") else value
    dtype = getattr(value, "dtype", None)
    return dtype.type(host) if dtype is not None else host


def _host(array: Any) -> np.ndarray:
    from riptide import _device

    return _device.to_host(array)
