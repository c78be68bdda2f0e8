"""DataFrame reductions: ``df.sum()``, ``df.mean(axis=1)``, ... with pandas' result dtypes.

Column-wise (axis=0) reductions reduce each column on the device and combine the scalars
into a Series of their common dtype; row-wise (axis=1) ones stack the numeric columns
into one 2-D device array and reduce along its rows.

pandas reduces rows of masked columns (Int64, Float64, boolean) through groupby, so those
results are masked too (Int64 sums, boolean any/all, NA for a row with nothing to reduce);
rows of plain NumPy columns go through its nan-functions in the columns' common dtype.

NumPy's functions hand a Series to its own method (``np.sum(s)`` calls ``s.sum(axis=None, out=None)``), so
Series reductions take NumPy's keyword arguments as pandas' do: :func:`check_numpy_arguments` accepts each at its
NumPy default and names the ones pandas does not support.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn, as_column, full
from riptide.core.ops import reduce
from riptide.frame.series import Series

__all__ = ["check_numpy_arguments", "combine_scalars", "quantile_frame", "reduce_frame", "reduce_rows"]

_FLOAT_OPS = ("mean", "median", "std", "var", "sem")
#: The dtype of a reduction over no columns at all (pandas: float64 unless the op says otherwise).
_EMPTY_DTYPES = {"count": np.int64, "any": bool, "all": bool}


_STAT_DEFAULTS = {"dtype": None, "out": None, "keepdims": False}
#: The NumPy keyword arguments each Series reduction accepts (at these defaults only), as pandas' validators.
NUMPY_DEFAULTS: dict[str, dict[str, Any]] = {
    "sum": {**_STAT_DEFAULTS, "initial": None},
    "prod": {**_STAT_DEFAULTS, "initial": None},
    "mean": {**_STAT_DEFAULTS, "initial": None},
    "median": {**_STAT_DEFAULTS, "overwrite_input": False},
    "min": dict(_STAT_DEFAULTS),
    "max": dict(_STAT_DEFAULTS),
    "std": dict(_STAT_DEFAULTS),
    "var": dict(_STAT_DEFAULTS),
    "sem": dict(_STAT_DEFAULTS),
    "any": {"out": None, "keepdims": False},
    "all": {"out": None, "keepdims": False},
}


def check_numpy_arguments(op: str, axis: Any, kwargs: dict[str, Any]) -> None:
    """Validate a Series reduction's ``axis`` and the NumPy keyword arguments NumPy's functions pass on.

    Each is accepted at its NumPy default (``np.sum(s)`` passes ``out=None``); another value raises
    ValueError, an argument NumPy's function would not pass raises TypeError, with pandas' messages.

    >>> check_numpy_arguments("sum", None, {"out": None, "keepdims": False})
    >>> check_numpy_arguments("sum", None, {"keepdims": True})
    Traceback (most recent call last):
    ...
    ValueError: the 'keepdims' parameter is not supported in the pandas implementation of sum()
    """
    if axis not in (None, 0, "index"):
        raise ValueError(f"No axis named {axis} for object type Series")
    defaults = NUMPY_DEFAULTS.get(op, {})
    for key, value in kwargs.items():
        if key not in defaults:
            raise TypeError(f"{op}() got an unexpected keyword argument '{key}'")
        if not _is_default(value, defaults[key]):
            raise ValueError(f"the '{key}' parameter is not supported in the pandas implementation of {op}()")


def _is_default(value: Any, default: Any) -> bool:
    if value is default:
        return True
    if default is None or value is None:
        return False
    try:
        return bool(value == default) and type(value) in (bool, np.bool_)
    except (TypeError, ValueError):
        return False


def _is_numeric_column(column: Column) -> bool:
    """What pandas' ``numeric_only=True`` keeps: numbers and bools (masked or not), not datetimes."""
    return isinstance(column, NumericColumn) and not dtypes.is_datetimelike(column.dtype)


def _keeps(column: Column, numeric_only: bool, bool_only: bool) -> bool:
    if bool_only:  # any/all(bool_only=True): pandas keeps NumPy bool columns only
        return column.dtype == np.dtype(bool)
    return not numeric_only or _is_numeric_column(column)


def reduce_frame(self: Any, op: str, axis: Any = 0, skipna: bool = True, numeric_only: bool = False,
                 bool_only: bool = False, **kwargs: Any) -> Series:  # fmt: skip
    """``df.<op>(axis=...)``: one result per column (axis=0) or per row (axis=1), as pandas."""
    if axis in (1, "columns"):
        return reduce_rows(self, op, skipna, numeric_only, bool_only, **kwargs)
    if axis not in (0, "index", None):
        raise ValueError(f"No axis named {axis} for object type DataFrame")
    labels = [k for k, c in self._data.items() if _keeps(c, numeric_only, bool_only)]
    results = [_reduce_column(self, label, op, skipna, kwargs) for label in labels]
    if not labels:  # pandas keeps the (empty) columns' label dtype; a frame without columns has a RangeIndex
        index = pd.Index(list(self._data))[:0] if self._data else pd.RangeIndex(0)
        # idxmin/idxmax would hold row labels: the row index's dtype
        dtype = self._index.dtype if op in ("idxmin", "idxmax") else _EMPTY_DTYPES.get(op, np.float64)
        return Series(pd.Series([], index=index, dtype=dtype))
    index = pd.Index(labels)
    result_dtypes = [_result_dtype(self._data[k], op, r) for k, r in zip(labels, results)]
    return Series(combine_scalars(results, result_dtypes, index, op))


def _reduce_column(self: Any, label: Any, op: str, skipna: bool, kwargs: dict[str, Any]) -> Any:
    column = self._data[label]
    try:
        if op in ("idxmin", "idxmax"):
            position = reduce.argreduce(column, "argmin" if op == "idxmin" else "argmax", skipna=skipna)
            return self._index[position]
        if op == "nunique":
            return reduce.nunique(column, dropna=skipna)
        return reduce.reduce(column, op, skipna=skipna, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{exc} (column {label!r}); pass numeric_only=True to skip non-numeric columns") from None


def _result_dtype(column: Column, op: str, value: Any) -> Any:
    """The dtype pandas gives one column's result (None: the value's own type decides).

    A masked column's results are masked (boolean for any/all); a datetime column's keep its
    unit (a NaT alone would not tell it).
    """
    if op in ("count", "nunique", "idxmin", "idxmax"):
        return None
    if dtypes.is_datetimelike(column.dtype):
        if op in ("min", "max", "mean", "median"):
            return column.dtype
        return np.dtype(f"m8[{dtypes.datetime_unit(column.dtype)}]") if op in ("std", "sum") else None
    if not dtypes.is_masked(column.dtype):
        return None
    if value is not pd.NA:
        return dtypes.to_masked(np.asarray(value).dtype)
    base = column.dtype.numpy_dtype
    if op in ("any", "all"):
        return pd.BooleanDtype()
    if op in ("min", "max"):
        return column.dtype
    if op in _FLOAT_OPS:
        return dtypes.to_masked(base if base.kind == "f" else np.dtype(np.float64))
    return dtypes.to_masked(base if base.kind in "fu" else np.dtype(np.int64))  # sum, prod


def _is_number(value: Any) -> bool:
    return isinstance(value, np.number | np.bool_ | int | float) and not isinstance(value, pd.Timestamp | pd.Timedelta)


def combine_scalars(results: list[Any], result_dtypes: list[Any], index: pd.Index, op: str) -> pd.Series:
    """One scalar per column as a host Series with the dtype pandas gives (the common dtype of the results).

    ``result_dtypes`` holds each column's result dtype where the value alone does not tell it (else None).
    """
    if not results:
        return pd.Series([], index=index, dtype=_EMPTY_DTYPES.get(op, np.float64))
    if all(_is_number(r) or (r is pd.NA and d is not None) for r, d in zip(results, result_dtypes)):
        common = dtypes.result_type(*[d if d is not None else np.asarray(r).dtype
                                      for r, d in zip(results, result_dtypes)])  # fmt: skip
        return pd.Series(pd.array(results, dtype=common) if dtypes.is_masked(common) else np.array(
            results, dtype=common), index=index)  # fmt: skip
    temporal = {d.kind for d in result_dtypes if isinstance(d, np.dtype) and d.kind in "mM"}
    if len(temporal) == 1 and all(isinstance(d, np.dtype) and d.kind in temporal for d in result_dtypes):
        return pd.Series(results, index=index, dtype=np.result_type(*result_dtypes))  # the finest unit, as pandas
    if all(isinstance(r, str) or (isinstance(r, float) and np.isnan(r)) for r in results):
        return pd.Series(results, index=index, dtype=dtypes.STRING)
    host = pd.Series(results, index=index).infer_objects()
    if host.dtype == object:
        kinds = ", ".join(sorted({type(r).__name__ for r in results}))
        raise TypeError(f"the {op} of columns of different kinds ({kinds}) has no common dtype in riptide; "
                        "select columns of one kind (or pass numeric_only=True) first")  # fmt: skip
    return host


# --------------------------------------------------------------------------- axis=1


_NAN_FUNCTIONS = {"sum": "nansum", "mean": "nanmean", "min": "nanmin", "max": "nanmax", "prod": "nanprod",
                  "std": "nanstd", "var": "nanvar", "median": "nanmedian"}  # fmt: skip
#: Row-wise result over no columns at all (pandas: sum 0, prod 1, any False, all True, else NaN).
_EMPTY_ROW = {"sum": 0.0, "prod": 1.0, "any": False, "all": True}


def reduce_rows(self: Any, op: str, skipna: bool, numeric_only: bool, bool_only: bool = False,
                **kwargs: Any) -> Series:  # fmt: skip
    """Row-wise reduction of numeric columns (stacked into one 2-D device array)."""
    columns = [c for c in self._data.values() if _is_numeric_column(c) and _keeps(c, numeric_only, bool_only)]
    if len(columns) != len(self._data) and not (numeric_only or bool_only):
        raise TypeError(f"row-wise {op} needs numeric columns; pass numeric_only=True to skip the others")
    xp = self._xp()
    if op == "count":
        counts = sum((c.notna().astype(np.int64) for c in self._data.values()), xp.zeros(len(self), np.int64))
        return Series._from_column(NumericColumn(counts), self._index)
    if op not in _NAN_FUNCTIONS and op not in ("any", "all", "sem"):
        raise ValueError(f"row-wise {op} is not supported")
    if not columns:
        fill = np.nan if kwargs.get("min_count", 0) > 0 else _EMPTY_ROW.get(op, np.nan)
        return Series._from_column(full(len(self), fill, dtype=np.dtype(type(fill)), xp=xp), self._index)
    if len(self) == 0:  # pandas reduces the columns instead (axis=0) and keeps that result's dtype
        dtype = reduce_frame(self, op, 0, skipna, numeric_only, bool_only, **kwargs).dtype
        return Series._from_column(as_column([], dtype=dtype, xp=xp), self._index)
    if any(dtypes.is_masked(c.dtype) for c in columns):
        result = _masked_rows(columns, op, skipna, kwargs, xp)
    else:
        result = _plain_rows(columns, op, skipna, kwargs, xp)
    return Series._from_column(result, self._index)


def _plain_rows(columns: list[NumericColumn], op: str, skipna: bool, kwargs: dict[str, Any], xp: Any) -> Column:
    """Rows of NumPy columns, in their common dtype (float32 columns give float32, as pandas)."""
    common = np.result_type(*[c.dtype for c in columns])
    if common.kind in "iub" and op in ("sum", "prod", "min", "max") and kwargs.get("min_count", 0) <= len(columns):
        # Integers stay integers (as pandas): a float64 detour would round values above 2**53.
        target = common if op in ("min", "max") else np.dtype(np.uint64 if common.kind == "u" else np.int64)
        stacked_int = xp.stack([c.data.astype(target) for c in columns], axis=1)
        return NumericColumn(getattr(xp, op)(stacked_int, axis=1).astype(target, copy=False))
    work = common if common.kind == "f" else np.dtype(np.float64)
    stacked = xp.stack([c.data.astype(work) for c in columns], axis=1)
    if op in ("any", "all"):  # NaN is skipped with skipna, else truthy (NaN != 0)
        truthy = stacked != 0 if not skipna else xp.where(xp.isnan(stacked), op == "all", stacked != 0)
        return NumericColumn(getattr(xp, op)(truthy, axis=1))
    ddof = kwargs.get("ddof", 1)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: NaN, silently (pandas)
        name = "std" if op == "sem" else op
        extra = {"ddof": ddof} if name in ("std", "var") else {}
        result = getattr(xp, _NAN_FUNCTIONS[name] if skipna else name)(stacked, axis=1, **extra)
        count = (~xp.isnan(stacked)).sum(axis=1) if skipna else xp.full(len(result), len(columns))
        if op == "sem":
            result = result / xp.sqrt(count.astype(work))
    undefined = _undefined_rows(op, count, kwargs, ddof)
    if undefined is not None:  # min_count not met, or n - ddof <= 0 (NumPy's var would be inf there)
        result = xp.where(undefined, np.nan, result)
    return NumericColumn(result.astype(work, copy=False))


def _undefined_rows(op: str, count: Any, kwargs: dict[str, Any], ddof: int) -> Any:
    if op in ("sum", "prod") and kwargs.get("min_count", 0) > 0:
        return count < kwargs["min_count"]
    if op in ("std", "var", "sem"):
        return count - ddof <= 0
    return None


def _masked_rows(columns: list[NumericColumn], op: str, skipna: bool, kwargs: dict[str, Any], xp: Any) -> Column:
    """Rows of masked (and NumPy) columns as pandas' groupby reduces them: masked results, NA for no values."""
    base = np.result_type(*[dtypes.to_numpy_dtype(c.dtype) for c in columns])
    values = xp.stack([c.data.astype(base) for c in columns], axis=1)
    valid = xp.stack([c.notna() for c in columns], axis=1)
    count = valid.sum(axis=1)
    incomplete = count < len(columns)  # with skipna=False one missing value makes the row's result NA
    if op in ("any", "all"):
        if len({c.kind == "b" for c in columns}) > 1:
            return _object_any_all(columns, values, valid, op, skipna, xp)
        return _kleene_rows(values != 0, valid, incomplete, op, skipna, xp)
    if op in ("sum", "prod"):
        data, defined = _masked_sum_prod(values, valid, count, op, base, kwargs, xp)
    elif op in ("min", "max"):
        data, defined = _masked_min_max(values, valid, op, base, xp), count > 0
    else:
        data, defined = _masked_float_op(values, valid, count, op, base, kwargs, xp)
    if not skipna:
        defined &= ~incomplete
    if data.dtype.kind == "f":  # a NaN result (inf - inf) is missing in a masked float column
        defined &= ~xp.isnan(data)
    return NumericColumn(data, dtypes.to_masked(data.dtype), defined)


def _object_any_all(columns: list[NumericColumn], values: Any, valid: Any, op: str, skipna: bool, xp: Any) -> Column:
    """Bools beside numbers have no common masked dtype in pandas: it reduces them as objects, to plain bools.

    Missing values are skipped with ``skipna``; without it NaN is truthy and NA has no truth value (TypeError).
    """
    if skipna:
        truthy = xp.where(valid, values != 0, op == "all")
    elif any(dtypes.is_masked(c.dtype) and bool(c.isna().any()) for c in columns):
        raise TypeError(f"row-wise {op}(skipna=False) over bool and number columns with missing values: "
                        "boolean value of NA is ambiguous")  # fmt: skip
    else:
        truthy = values != 0  # NaN != 0: truthy
    return NumericColumn(getattr(xp, op)(truthy, axis=1))


def _kleene_rows(truthy: Any, valid: Any, incomplete: Any, op: str, skipna: bool, xp: Any) -> Column:
    if op == "any":
        decided = (truthy & valid).any(axis=1)  # one True decides any()
        result = decided
    else:
        decided = (~truthy & valid).any(axis=1)  # one False decides all()
        result = ~decided
    defined = xp.ones_like(result) if skipna else decided | ~incomplete
    return NumericColumn(result, pd.BooleanDtype(), defined)


def _masked_sum_prod(values: Any, valid: Any, count: Any, op: str, base: np.dtype, kwargs: dict[str, Any],
                     xp: Any) -> tuple[Any, Any]:  # fmt: skip
    # pandas' groupby keeps the int width (Int32 sums are Int32); bools add up as Int64.
    acc = np.dtype(np.int64) if base.kind == "b" else base
    neutral = 0 if op == "sum" else 1
    data = getattr(xp, op)(xp.where(valid, values.astype(acc), neutral), axis=1).astype(acc, copy=False)
    return data, count >= kwargs.get("min_count", 0)


def _masked_min_max(values: Any, valid: Any, op: str, base: np.dtype, xp: Any) -> Any:
    if base.kind == "b":
        return (values | ~valid).all(axis=1) if op == "min" else (values & valid).any(axis=1)
    if base.kind == "f":
        fill = np.inf if op == "min" else -np.inf
    else:
        info = np.iinfo(base)
        fill = info.max if op == "min" else info.min
    return getattr(xp, op)(xp.where(valid, values, fill), axis=1)


def _masked_float_op(values: Any, valid: Any, count: Any, op: str, base: np.dtype, kwargs: dict[str, Any],
                     xp: Any) -> tuple[Any, Any]:  # fmt: skip
    work = base if base.kind == "f" else np.dtype(np.float64)
    ddof = kwargs.get("ddof", 1)
    floats = xp.where(valid, values.astype(work), np.nan)
    name = "std" if op == "sem" else op
    extra = {"ddof": ddof} if name in ("std", "var") else {}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # rows with nothing to reduce are NA below
        data = getattr(xp, _NAN_FUNCTIONS[name])(floats, axis=1, **extra)
        if op == "sem":
            data = data / xp.sqrt(count.astype(work))
    defined = count - ddof > 0 if op in ("std", "var", "sem") else count > 0
    return xp.where(defined, data, 0).astype(work, copy=False), defined


# --------------------------------------------------------------------------- quantile

#: method="table": how each interpolation rounds a quantile's rank (NumPy's rules for these methods)
_TABLE_INTERPOLATIONS = {"nearest": np.around, "higher": np.ceil, "lower": np.floor}


def quantile_frame(frame: Any, q: Any = 0.5, axis: Any = 0, numeric_only: bool = False,
                   interpolation: str = "linear", method: str = "single") -> Any:  # fmt: skip
    """``DataFrame.quantile``: a Series over the columns for a scalar ``q`` (named ``q``), a DataFrame indexed
    by the quantiles for a list.

    ``method="single"`` takes each column's quantiles (``Series.quantile``; a scalar ``q`` gives the columns'
    common dtype, where pandas would make an object Series for mixed kinds riptide raises TypeError).
    ``method="table"`` sorts the rows by all columns (missing values last) and takes whole rows at the
    quantiles' ranks, so every column keeps its dtype and text columns work too.
    """
    from riptide.core.ops.quantile import quantile_column
    from riptide.frame.concat import concat_promoted
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import as_index

    if axis not in (0, "index", "rows"):
        raise NotImplementedError("DataFrame.quantile(axis=1) is not supported")
    if method not in ("single", "table"):
        raise ValueError(f"Invalid method: {method}. Method must be in {{'single', 'table'}}")
    scalar = pd.api.types.is_scalar(q)
    qs = [float(q)] if scalar else [float(v) for v in q]
    for value in qs:
        if not 0 <= value <= 1:
            raise ValueError("percentiles should all be in the interval [0, 1]")
    data = frame._data
    if numeric_only:
        data = {label: column for label, column in data.items()
                if dtypes.is_numeric_or_bool(column.dtype) and not dtypes.is_datetimelike(column.dtype)}  # fmt: skip
    labels = list(data)
    q_index = as_index(pd.Index(qs, dtype=np.float64))
    if method == "table":
        if interpolation not in _TABLE_INTERPOLATIONS:
            raise ValueError(f"Invalid interpolation: {interpolation}. Interpolation must be in "
                             f"{set(_TABLE_INTERPOLATIONS)}")  # fmt: skip
        columns = _table_quantile_rows(list(data.values()), len(frame), qs, interpolation)
        result = DataFrame._from_columns(dict(zip(labels, columns)), q_index)
        return result.iloc[0] if scalar else result
    if scalar:
        if not labels:
            return Series([], dtype=np.float64, name=qs[0])
        pieces = [quantile_column(column, qs, interpolation) for column in data.values()]
        return Series._from_column(concat_promoted(pieces), as_index(pd.Index(labels)), qs[0])
    columns = {label: quantile_column(column, qs, interpolation) for label, column in data.items()}
    return DataFrame._from_columns(columns, q_index)


def _table_quantile_rows(columns: list[Column], n: int, qs: list[float], interpolation: str) -> list[Column]:
    """The rows at the quantiles' ranks of the rows sorted by all ``columns`` (pandas' ``method="table"``)."""
    from riptide.core.ops.sorting import argsort_columns

    if not columns:
        return []
    xp = columns[0].xp
    if n == 0:
        missing = xp.full(len(qs), -1, dtype=np.int64)
        return [column.take_or_missing(missing) for column in columns]
    order = argsort_columns(columns, na_position="last")
    # np.quantile(np.arange(n), qs, method=interpolation) without the n positions: its virtual index, rounded
    ranks = _TABLE_INTERPOLATIONS[interpolation]((n - 1) * np.asarray(qs, dtype=np.float64)).astype(np.int64)
    rows = order[_device.to_device(ranks, xp)]
    return [column.take(rows) for column in columns]
