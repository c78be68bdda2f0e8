"""Reductions of one column to a scalar, with pandas' ``skipna`` / ``min_count`` / ``ddof`` rules.

Each returns what pandas returns: NumPy scalars (``np.int64``, ``np.float64``, ``np.bool_``),
``pd.Timestamp`` / ``pd.Timedelta`` for datetimes, ``pd.NA`` for a masked result that is
missing, NaN for an empty or all-missing numeric result.

Reading the result is the only device-to-host transfer: one scalar.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn

__all__ = ["reduce", "REDUCTIONS", "argreduce", "nunique"]

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
        return _strings(column, op, skipna)
    assert isinstance(column, NumericColumn)
    if dtypes.is_datetimelike(column.dtype):
        return _temporal(column, op, skipna, ddof)
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
    kind = column.kind
    if missing is not None and not skipna and bool(missing.any()):
        if op in ("any", "all") and masked:
            return _kleene_any_all(column, op)
        return pd.NA if masked else (np.nan if op not in ("any", "all") else _any_all(data, op, None, xp))
    n_valid = column.size if missing is None else column.size - int(missing.sum())
    if op in ("any", "all"):
        return _any_all(data, op, missing, xp)
    if op in ("sum", "prod") and n_valid < min_count:
        return pd.NA if masked else np.float64(np.nan)
    if op in ("mean", "min", "max", "median") and n_valid == 0:
        return pd.NA if masked else np.float64(np.nan)
    if op in ("std", "var", "sem") and n_valid - ddof <= 0:
        return pd.NA if masked else np.float64(np.nan)

    if kind == "b":
        data = data.astype(np.int64) if op in ("sum", "prod") else data.astype(np.float64) if op not in (
            "min", "max") else data  # fmt: skip
    if op in ("sum", "prod"):
        neutral = 0 if op == "sum" else 1
        values = data if missing is None else xp.where(missing, neutral, data)
        acc = values.dtype if values.dtype.kind == "f" else (np.uint64 if values.dtype.kind == "u" else np.int64)
        result = (xp.sum if op == "sum" else xp.prod)(values, dtype=acc)
    elif op in ("min", "max"):
        if missing is None:
            result = (xp.min if op == "min" else xp.max)(data)
        else:
            valid = data[~missing]
            result = (xp.min if op == "min" else xp.max)(valid)
    else:
        values = data.astype(np.float64) if data.dtype.kind != "f" else data
        if missing is not None:
            values = values[~missing]
        if op == "mean":
            result = xp.mean(values)
        elif op == "median":
            result = xp.median(values)
        elif op == "var":
            result = xp.var(values, ddof=ddof)
        elif op == "std":
            result = xp.std(values, ddof=ddof)
        else:  # sem
            result = xp.std(values, ddof=ddof) / np.sqrt(n_valid)
    return _to_scalar(result)


def _float_fast_path(column: NumericColumn, op: str, skipna: bool, ddof: int) -> Any:
    """NaN-aware reductions of a plain float column in one pass over the data (no mask, no count)."""
    xp = column.xp
    if column.size == 0:
        return np.float64({"sum": 0.0, "prod": 1.0}.get(op, np.nan))
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


def _temporal(column: NumericColumn, op: str, skipna: bool, ddof: int) -> Any:
    xp = column.xp
    missing = column.data == dtypes.NAT
    unit = np.datetime_data(column.dtype)[0]
    is_datetime = column.dtype.kind == "M"
    box = (lambda v: pd.Timestamp(np.datetime64(int(v), unit))) if is_datetime else (
        lambda v: pd.Timedelta(np.timedelta64(int(v), unit)))  # fmt: skip
    if op in ("any", "all"):
        return _any_all(column.data != 0, op, missing, xp)
    has_missing = bool(missing.any())
    if has_missing and not skipna:
        return pd.NaT
    values = column.data[~missing] if has_missing else column.data
    if values.shape[0] == 0:
        return pd.NaT if op != "sum" else pd.Timedelta(0)
    if op in ("min", "max"):
        return box((xp.min if op == "min" else xp.max)(values))
    if op == "sum" and not is_datetime:
        return box(xp.sum(values))
    if op == "mean":
        return box(xp.mean(values.astype(np.float64)).round())
    if op == "median":
        return box(xp.median(values.astype(np.float64)).round())
    if op in ("std", "var") and not is_datetime or op == "std":
        if values.shape[0] - ddof <= 0:
            return pd.NaT
        std = xp.std(values.astype(np.float64), ddof=ddof)
        if op == "std":
            return pd.Timedelta(np.timedelta64(int(float(std)), unit))  # truncated, as pandas does
    raise TypeError(f"{op} is not supported for dtype {column.dtype}")


def _strings(column: StringColumn, op: str, skipna: bool) -> Any:
    if op not in ("min", "max", "sum"):
        raise TypeError(f"Cannot perform reduction '{op}' with string dtype")
    from riptide.core.kernels import strings as string_kernels

    xp = column.xp
    keep = column.notna()
    n_valid = int(keep.sum())
    if n_valid < column.size and not skipna:
        return np.nan
    if n_valid == 0:
        return np.nan if op != "sum" else ""
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


def argreduce(column: Column, op: str, *, skipna: bool = True) -> int:
    """Position of the first minimum (``op="argmin"``) or maximum (``"argmax"``), as pandas' idxmin/idxmax."""
    xp = column.xp
    if not isinstance(column, NumericColumn):
        raise TypeError(f"reduction operation '{op}' not allowed for this dtype ({column.dtype})")
    if column.size == 0:
        raise ValueError(f"attempt to get {op} of an empty sequence")
    missing = column.isna() if column.can_hold_missing() else None
    if missing is not None:
        n_missing = int(missing.sum())
        if n_missing == column.size:
            raise ValueError(f"Encountered all NA values")
        if n_missing and not skipna:
            raise ValueError("Encountered an NA value with skipna=False")
    data = column.data.astype(np.int8) if column.kind == "b" else column.data
    if missing is not None:
        if data.dtype.kind == "f":
            fill = np.inf if op == "argmin" else -np.inf
        else:
            info = np.iinfo(data.dtype)
            fill = info.max if op == "argmin" else info.min
        data = xp.where(missing, fill, data)
        # A fill equal to a real extreme would tie; the first real one still wins only if it comes first,
        # so resolve ties by preferring valid rows.
        target = (xp.min if op == "argmin" else xp.max)(data)
        candidates = (data == target) & ~missing
        return int(xp.argmax(candidates))
    return int((xp.argmin if op == "argmin" else xp.argmax)(data))


def nunique(column: Column, dropna: bool = True) -> int:
    """Number of distinct values (missing values count once when ``dropna=False``)."""
    from riptide.core.kernels.factorize import factorize

    codes, n_groups = factorize(column)
    has_missing = bool(column.isna().any()) if column.can_hold_missing() else False
    return n_groups + (1 if has_missing and not dropna else 0)


def _to_scalar(value: Any) -> Any:
    host = value.item() if hasattr(value, "item") else value
    dtype = getattr(value, "dtype", None)
    return dtype.type(host) if dtype is not None else host


def _host(array: Any) -> np.ndarray:
    from riptide import _device

    return _device.to_host(array)
