"""Reductions per group: ``groupby(...).<op>()`` of one column, with pandas' dtype rules.

Every reduction takes a column and a :class:`~riptide.core.ops.grouping.Groups` (a dense group
number per row, -1 for a row whose key was dropped) and returns a column with one row per group.
Three shapes of algorithm cover them all, none of them a loop over rows or groups:

* **scatter** (sum, count, mean, var/std/sem, min/max, any/all, first/last, idxmin/idxmax): each row
  adds (or min/max-es) its value into its group's slot — atomics on the GPU, ``ufunc.at`` on NumPy.
  Rows that do not take part (missing values, dropped keys) go to one extra discard slot instead of
  being compacted away. var/std take two passes (group means, then squared deviations), which keeps
  the digits a sum of squares would lose; skew adds the cubed deviations in the same second pass.
* **sorted segments** (median, quantile, prod): rows ordered by (group, value) make each group's
  values one contiguous run; a product is a segmented scan over that run.
* **pairs** (nunique): the distinct (group, value) pairs are themselves a grouping; count them per group.

What pandas decides and riptide copies (pandas 3.1, checked against it by tests/frame/test_groupby.py):

* result dtypes (:func:`_result_dtype`): means, medians and variances of ints and bools are float64,
  of float32 stay float32 (quantile gives float64); masked dtypes give masked results; datetimes give
  datetimes (timedeltas for std/sem);
* integer sums and products are computed in 64 bits (wrapping like NumPy) and handed back in the
  input's dtype when every group's result fits it, in int64/uint64 otherwise — pandas'
  ``maybe_downcast_to_dtype``, which a DataFrame applies to a block of same-dtype columns at once
  (:func:`narrow_together`); bool sums are int64; the same cast gives an int column's skews back in
  its dtype when all of them are whole numbers (:func:`whole_numbers`);
* a group without a value gives NaN / NaT / <NA> (an int or bool result becomes float64), except sum
  (0, or "" for strings) and prod (1) unless ``min_count`` asks for more values;
* ``skipna=False`` makes a group with a missing value missing (first/last then take the first/last
  row as it is; any/all treat the missing value as True, with Kleene logic for masked dtypes);
* means, medians and quantiles of datetimes go through float64 and truncate to the nanosecond.

>>> import numpy as np
>>> from riptide.core.column import as_column
>>> from riptide.core.ops.grouping import group_rows
>>> g = group_rows([as_column(np.array([1, 1, 2]))])
>>> group_reduce(as_column(np.array([1.0, 2.0, 5.0])), g, "mean").data.tolist()
[1.5, 5.0]
"""

from __future__ import annotations

import functools
import types
import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn
from riptide.core.kernels.factorize import factorize
from riptide.core.kernels.scatter import scatter_add, scatter_max, scatter_min
from riptide.core.kernels.sort import stable_argsort
from riptide.core.ops.grouping import Groups, first_row_of_each, group_rows
from riptide.core.ops.quantile import interpolate_sorted

__all__ = ["GROUP_REDUCTIONS", "group_reduce", "group_positions", "check_supported", "narrow_together", "partial_kinds",
           "whole_numbers", "cast_back_together"]

GROUP_REDUCTIONS = ("sum", "prod", "mean", "median", "min", "max", "std", "var", "sem", "skew", "count", "size",
                    "first", "last", "nunique", "any", "all", "quantile", "idxmin", "idxmax")  # fmt: skip
INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")

# Which reductions each layout supports (the rest raise TypeError, as pandas does).
_STRING_OPS = {"sum", "min", "max", "first", "last", "any", "all", "count", "size", "nunique", "idxmin", "idxmax"}
_CATEGORICAL_OPS = {"min", "max", "first", "last", "any", "all", "count", "size", "nunique", "idxmin", "idxmax"}


def group_reduce(column: Column, groups: Groups, op: str, *, skipna: bool = True, min_count: int = 0,
                 ddof: int = 1, q: float = 0.5, interpolation: str = "linear", dropna: bool = True,
                 narrow: bool = True) -> Column:  # fmt: skip
    """One value per group of ``column`` reduced with ``op`` (one of ``GROUP_REDUCTIONS``).

    ``min_count``: a group with fewer non-missing values gives a missing value (sum, prod, min, max,
    first, last). ``dropna`` is nunique's (count a missing value as one more distinct value when False).
    ``narrow=False`` leaves an int sum or product in 64 bits (see :func:`narrow_together`).

    >>> import numpy as np
    >>> from riptide.core.column import as_column
    >>> from riptide.core.ops.grouping import group_rows
    >>> g = group_rows([as_column(np.array(["b", "a", "b"], dtype=object))])
    >>> group_reduce(as_column(np.array([1, 2, 3], dtype=np.int8)), g, "sum").data.tolist()
    [2, 4]
    """
    if op not in GROUP_REDUCTIONS:
        raise ValueError(f"unknown aggregation {op!r}; expected one of {', '.join(GROUP_REDUCTIONS)}")
    if op in ("idxmin", "idxmax"):
        raise ValueError(f"{op} gives row positions: use group_positions")
    if op == "quantile" and interpolation not in INTERPOLATIONS:
        raise ValueError(f"interpolation must be one of {', '.join(INTERPOLATIONS)}, got {interpolation!r}")
    xp = groups.xp
    if op == "size":
        return NumericColumn(groups.sizes())
    check_supported(column, op)
    rows = _Rows(column, groups)
    if op == "count":
        counts = rows.counts
        if dtypes.is_masked(column.dtype):
            return NumericColumn(counts, dtype=pd.Int64Dtype(), mask=xp.ones(groups.n_groups, dtype=bool))
        return NumericColumn(counts)
    if op == "nunique":
        return NumericColumn(_nunique(column, groups, dropna))
    if op in ("first", "last"):
        return _first_last(column, rows, op, skipna, min_count)
    if op in ("any", "all"):
        return _any_all(column, rows, op, skipna)
    if isinstance(column, StringColumn):
        return _strings(column, rows, op, skipna, min_count)
    if isinstance(column, CategoricalColumn):  # min / max of an ordered categorical
        return _by_code_extreme(column, column.codes.astype(np.int64), rows, op, skipna, min_count)
    assert isinstance(column, NumericColumn)
    return _numeric(column, rows, op, skipna, min_count, ddof, q, interpolation, narrow)


def check_supported(column: Column, op: str) -> None:
    """Raise pandas' TypeError when ``op`` is not defined for the column's dtype."""
    if isinstance(column, StringColumn):
        if op not in _STRING_OPS:
            raise TypeError(f"dtype 'str' does not support operation '{op}'")
        return
    if isinstance(column, CategoricalColumn):
        if op in ("sum", "prod", "skew"):
            raise TypeError(f"category type does not support {op} operations")
        if op in ("min", "max", "idxmin", "idxmax") and not column.dtype.ordered:
            raise TypeError(f"Cannot perform {op} with non-ordered Categorical")
        if op not in _CATEGORICAL_OPS:
            raise TypeError(f"category dtype does not support aggregation '{op}'")
        return
    kind = column.kind
    if kind == "M":
        if op in ("sum", "prod", "var", "skew"):
            raise TypeError(f"datetime64 type does not support operation '{op}'")
        if op in ("any", "all"):
            raise TypeError(f"'{op}' with datetime64 dtypes is not supported. "
                            f"Use (obj != pd.Timestamp(0)).{op}() instead.")  # fmt: skip
    elif kind == "m" and op in ("prod", "var", "skew"):
        raise TypeError(f"timedelta64 type does not support {op} operations")
    elif kind == "b" and op == "quantile" and not dtypes.is_masked(column.dtype):
        raise TypeError("Cannot use quantile with bool dtype")


def group_positions(column: Column, groups: Groups, op: str, skipna: bool = True) -> Any:
    """Row position of each group's minimum (``idxmin``) or maximum (``idxmax``); -1 for a group without one.

    The first such row wins a tie, as in pandas. With ``skipna=False`` a group holding a missing
    value has no position either (pandas raises for both; the caller decides).
    """
    check_supported(column, op)
    xp = groups.xp
    rows = _Rows(column, groups)
    keys = _order_keys(column)
    best = _extreme(keys, rows.valid, groups, "min" if op == "idxmin" else "max", rows.targets)
    padded = xp.concatenate([best, xp.zeros(1, dtype=best.dtype)])  # the discard slot's row never matches
    positions = _first_row_where(rows.valid & (keys == padded[rows.targets]), groups)
    if not skipna:
        positions = xp.where(rows.has_missing(), -1, positions)
    return positions


# --- the rows taking part --------------------------------------------------------------------------------------


class _Rows:
    """Which rows of ``column`` take part in a reduction: kept keys, and of those the non-missing values.

    Everything is computed on first use: a reduction whose results the grouping already computed
    (:meth:`partial`) never touches the rows.
    """

    def __init__(self, column: Column, groups: Groups):
        self.column = column
        self.groups = groups
        self.xp: types.ModuleType = groups.xp

    @functools.cached_property
    def kept(self) -> Any:
        return self.groups.ids >= 0

    @functools.cached_property
    def missing(self) -> Any:
        return self.column.isna() if self.column.can_hold_missing() else None

    @functools.cached_property
    def valid(self) -> Any:
        return self.kept if self.missing is None else self.kept & ~self.missing

    @functools.cached_property
    def targets(self) -> Any:
        """:func:`_targets` of ``valid`` (which holds only where the key is kept)."""
        return self.xp.where(self.valid, self.groups.ids, self.groups.n_groups)

    @functools.cached_property
    def counts(self) -> Any:
        """Non-missing values per group (int64)."""
        counts = self.partial("count")
        return counts if counts is not None else _count_targets(self.targets, self.groups)

    def partial(self, kind: str) -> Any:
        """This column's per-group ``kind`` result if the grouping computed it (see :func:`partial_kinds`)."""
        return self.groups.partial(self.column, kind)

    def has_missing(self) -> Any:
        """Per group: whether one of its rows holds a missing value."""
        if self.missing is None:
            return self.xp.zeros(self.groups.n_groups, dtype=bool)
        return _count_where(self.kept & self.missing, self.groups) > 0


def partial_kinds(column: Column | None, op: str, skipna: bool = True, min_count: int = 0) -> tuple[str, ...] | None:
    """The per-group partials from which :func:`group_reduce` can finish ``op`` of ``column`` without reading its
    rows (:func:`~riptide.core.ops.grouping.group_rows_aggregating` computes them); None when ``op`` needs the rows.

    >>> import numpy as np
    >>> from riptide.core.column import as_column
    >>> partial_kinds(as_column(np.array([1.5])), "mean")
    ('fsum', 'count')
    """
    if op == "size":
        return ("size",)
    if not isinstance(column, NumericColumn) or column.kind not in "biuf":
        return None
    if not skipna and (column.kind == "f" or dtypes.is_masked(column.dtype)):
        return None  # a group holding a missing value becomes missing: that needs the rows
    if op == "count":
        return ("count",)
    if op == "sum":
        return ("sum", "count") if min_count > 0 else ("sum",)
    if op == "mean":
        return ("fsum", "count")
    if op in ("min", "max"):
        return (op, "count")
    return None


# --- the numeric family (ints, floats, bool, datetimes, masked) -------------------------------------------------


def _numeric(column: NumericColumn, rows: _Rows, op: str, skipna: bool, min_count: int, ddof: int, q: float,
             interpolation: str, narrow: bool = True) -> Column:  # fmt: skip
    xp = rows.xp
    groups = rows.groups
    kind = column.kind
    values = column.data.view(np.int8) if kind == "b" else column.data
    missing = None  # groups whose result is missing
    if op in ("min", "max"):
        result = rows.partial(op)
        if result is None:
            result = _extreme(values, rows.valid, groups, op, rows.targets)
        else:  # columns are never written in place: the partial itself may back the result
            result = result.astype(values.dtype, copy=False)
        missing = rows.counts < max(min_count, 1)
    elif op in ("sum", "prod"):
        result = rows.partial("sum") if op == "sum" else None
        if result is None:
            result = _sum(values, rows, kind) if op == "sum" else _prod(values, rows, kind)
        missing = rows.counts < min_count if min_count > 0 else None
    elif op == "mean":
        sums = rows.partial("fsum")
        with np.errstate(all="ignore"):
            result = (_sum(values.astype(np.float64), rows, "f") if sums is None else sums) / rows.counts
        # A group without a value is missing: its sum is 0 and 0 / 0 is NaN, which _finish reads as missing
        # (NaN in a float result, <NA> in a masked one, NaT in a datetime one) with no mask of its own.
    elif op in ("var", "std", "sem"):
        result = _variance(values.astype(np.float64), rows, ddof)
        with np.errstate(all="ignore"):
            if op != "var":
                result = xp.sqrt(result)
            if op == "sem":
                result = result / xp.sqrt(rows.counts.astype(np.float64))
        missing = rows.counts - ddof <= 0
    elif op == "skew":
        result, missing = _skew(values, rows)
    else:  # median, quantile
        result = _quantile(values, rows, 0.5 if op == "median" else q, "median" if op == "median" else interpolation)
        missing = rows.counts == 0
    if not skipna and rows.missing is not None:
        missing = rows.has_missing() if missing is None else missing | rows.has_missing()
    dtype = _result_dtype(column.dtype, op, interpolation)
    if op in ("sum", "prod") and kind in "iu" and narrow:
        dtype = _downcast_if_lossless(result, column.dtype, dtype, missing)
    if op == "skew" and kind in "iu" and narrow and bool(whole_numbers(result, missing, column.dtype).all()):
        # one scalar read: pandas hands an int column's skews back in its dtype when every one is a whole number
        dtype = column.dtype
    return _finish(result, dtype, missing, xp)


def _result_dtype(dtype: Any, op: str, interpolation: str = "linear") -> Any:
    """pandas' result dtype of ``groupby(...).<op>()`` on a numeric column of ``dtype``.

    Integer sums and products are int64/uint64 here; :func:`_downcast_if_lossless` narrows them.
    """
    masked = dtypes.is_masked(dtype)
    np_dtype = dtypes.to_numpy_dtype(dtype)
    kind = np_dtype.kind
    if op in ("min", "max", "first", "last"):
        return dtype
    if op in ("sum", "prod"):
        wide = np.dtype(np.uint64 if kind == "u" else np.int64) if kind in "iub" else np_dtype
        return dtypes.to_masked(wide) if masked else wide
    if kind in "mM":
        return np.dtype(f"m8[{dtypes.datetime_unit(dtype)}]") if op in ("std", "sem") else dtype
    if op == "quantile" and interpolation in ("lower", "higher", "nearest") and kind in "iub":
        return dtype if masked else np.dtype(np.int64)
    if masked:
        return pd.Float32Dtype() if np_dtype == np.float32 else pd.Float64Dtype()
    if kind == "f" and op != "quantile":
        return dtype
    return np.dtype(np.float64)


def _downcast_if_lossless(result: Any, dtype: Any, wide: Any, missing: Any) -> Any:
    """``dtype`` (the input's) when every group's 64-bit integer result fits it, else ``wide``.

    pandas computes integer sums and products in 64 bits and narrows the result back
    (``maybe_downcast_to_dtype``) only when no value changes: an int8 sum of 300 is int64.
    """
    narrow = dtypes.to_numpy_dtype(dtype)
    if narrow.itemsize == 8:
        return wide
    info = np.iinfo(narrow)
    fits = (result >= info.min) & (result <= info.max)
    if missing is not None:
        fits |= missing
    if bool(fits.all()):  # one scalar read: the result dtype depends on the sums' range, as in pandas
        return dtype
    return wide


def narrow_together(results: list[Column], dtype: Any) -> list[Column]:
    """int64/uint64 sums (or products) of columns of one narrow int ``dtype``, narrowed to it together.

    pandas keeps a DataFrame's columns of one dtype in one 2-D block and narrows a block's sums only
    when every value of every column fits, so one overflowing column keeps its neighbours in 64 bits.
    Results that became float64 (a missing group) stay as they are.
    """
    wide = [i for i, r in enumerate(results) if isinstance(r, NumericColumn) and r.mask is None and r.kind in "iu"]
    if not wide:
        return results
    narrow = np.dtype(dtype)
    info = np.iinfo(narrow)
    xp = results[wide[0]].xp
    fits = xp.ones(1, dtype=bool)
    for i in wide:
        data = results[i].data
        fits = fits & ((data >= info.min) & (data <= info.max)).all()
    if not bool(fits[0]):  # one scalar read: the block's dtype depends on its sums' range, as in pandas
        return results
    out = list(results)
    for i in wide:
        out[i] = NumericColumn(results[i].data.astype(narrow))
    return out


def cast_back_together(results: list[Column], dtype: Any) -> list[Column]:
    """Float skews of one block of same-dtype int columns, cast back to ``dtype`` together when every value of
    every column is a whole number (:func:`whole_numbers`; pandas decides per block, as :func:`narrow_together`).
    """
    xp = results[0].xp
    whole = xp.ones(1, dtype=bool)
    for r in results:
        whole = whole & whole_numbers(r.data, None, dtype).all()
    if not bool(whole[0]):  # one scalar read: the block's dtype depends on its values, as in pandas
        return results
    return [NumericColumn(r.data.astype(dtype)) for r in results]


def _finish(result: Any, dtype: Any, missing: Any, xp: types.ModuleType) -> Column:
    """``result`` (one value per group) as a column of ``dtype``, with ``missing`` groups made missing.

    A float result headed for int or datetime storage (a quantile of ints, a mean of datetimes)
    truncates toward zero, as pandas' ``astype`` does; its NaN groups become missing.
    """
    storage = dtypes.storage_dtype(dtype)
    masked = dtypes.is_masked(dtype)
    kind = storage.kind if not dtypes.is_datetimelike(dtype) else dtype.kind
    if result.dtype.kind == "f" and storage.kind != "f":
        nan = xp.isnan(result)
        missing = nan if missing is None else missing | nan
        result = xp.where(nan, 0, result)
    if result.dtype == storage:
        data = result  # what astype(copy=False) would give, without its warnings guard
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            data = result.astype(storage, copy=False)
    if masked:
        if storage.kind == "f":
            nan = xp.isnan(data)  # pandas 3 reads a NaN of a masked float (0/0) as <NA>
            valid = ~(nan if missing is None else missing | nan)
        else:
            valid = xp.ones(data.shape[0], dtype=bool) if missing is None else ~missing
        return NumericColumn(data, dtype=dtype, mask=valid)
    if missing is None:
        return NumericColumn(data, dtype=dtype)
    if kind == "f":
        return NumericColumn(xp.where(missing, xp.nan, data).astype(storage, copy=False))
    if kind in "mM":
        return NumericColumn(xp.where(missing, dtypes.NAT, data), dtype=dtype)
    if not bool(missing.any()):  # one scalar read: a missing group turns an int or bool result into float64
        return NumericColumn(data, dtype=dtype)
    return NumericColumn(xp.where(missing, np.nan, data.astype(np.float64)))


def _sum(values: Any, rows: _Rows, kind: str) -> Any:
    """Per-group sums: floats in float64, ints and bools in int64 (uint64 for uints), wrapping as NumPy does."""
    xp = rows.xp
    accumulator = np.float64 if kind == "f" else (np.uint64 if kind == "u" else np.int64)
    sums = xp.zeros(rows.groups.n_groups + 1, dtype=accumulator)
    scatter_add(sums, rows.targets, values.astype(accumulator, copy=False), xp)
    return sums[: rows.groups.n_groups]


def _prod(values: Any, rows: _Rows, kind: str) -> Any:
    """Per-group products over each group's contiguous run of rows, by a segmented doubling scan."""
    xp = rows.xp
    groups = rows.groups
    accumulator = np.float64 if kind == "f" else (np.uint64 if kind == "u" else np.int64)
    factors = xp.where(rows.valid, values.astype(accumulator, copy=False), accumulator(1))
    order = stable_argsort(rows.targets, xp)
    run = _segmented_scan(xp.multiply, factors[order], rows.targets[order], xp)
    sizes = rows.counts  # each group's run of valid rows (the discarded rows come last)
    ends = xp.cumsum(sizes) - 1
    if run.shape[0] == 0:
        return xp.ones(groups.n_groups, dtype=accumulator)
    return xp.where(sizes > 0, run[xp.maximum(ends, 0)], accumulator(1))


def _variance(values: Any, rows: _Rows, ddof: int) -> Any:
    """Per-group variance: group means first, then the mean squared deviation (two passes)."""
    xp = rows.xp
    n_groups = rows.groups.n_groups
    counts = rows.counts
    with np.errstate(all="ignore"):
        means = _sum(values, rows, "f") / counts
        centred = values - xp.concatenate([means, xp.zeros(1)])[rows.targets]
        squares = xp.zeros(n_groups + 1, dtype=np.float64)
        scatter_add(squares, rows.targets, xp.where(rows.valid, centred * centred, 0.0), xp)
        return squares[:n_groups] / (counts - ddof)


def _skew(values: Any, rows: _Rows) -> tuple[Any, Any]:
    """Per-group bias-corrected skewness, pandas' ``n * sqrt(n - 1) / (n - 2) * m3 / m2 ** 1.5`` (m2, m3: centred
    sums of squares and cubes), and the groups it leaves missing: fewer than 3 values, or no spread (pandas 3).

    The values are centred on their group's mean before they are raised to powers (no cancellation of large
    offsets), and the sums are corrected for the digits the mean itself lost (``d - mean(d)`` expanded, the
    "corrected two-pass" moments). A constant group is found by its min and max, not by m2 == 0: its mean may
    differ from its value in the last bit, which would leave a tiny, meaningless spread.
    """
    xp = rows.xp
    groups = rows.groups
    n_groups = groups.n_groups
    counts = rows.counts
    targets = rows.targets
    floats = values.astype(np.float64)
    with np.errstate(all="ignore"):
        n = counts.astype(np.float64)
        means = _sum(floats, rows, "f") / n
        d = xp.where(rows.valid, floats - xp.concatenate([means, xp.zeros(1)])[targets], 0.0)
        sums = []
        power = d
        for _ in range(3):  # sums of d, d**2, d**3 per group (the discard slot takes the other rows' zeros)
            total = xp.zeros(n_groups + 1, dtype=np.float64)
            scatter_add(total, targets, power, xp)
            sums.append(total[:n_groups])
            power = power * d
        s1, s2, s3 = sums
        shift = s1 / n
        m2 = s2 - n * shift * shift
        m3 = s3 - 3.0 * shift * s2 + 2.0 * n * shift * shift * shift
        result = n * xp.sqrt(n - 1.0) / (n - 2.0) * (m3 / m2**1.5)
    low = _extreme(floats, rows.valid, groups, "min", targets)
    high = _extreme(floats, rows.valid, groups, "max", targets)
    missing = (counts < 3) | (low == high) | (m2 == 0)
    return result, missing


def whole_numbers(result: Any, missing: Any, dtype: Any) -> Any:
    """Per group: whether pandas would hand this float result back in the int ``dtype`` of its column.

    pandas casts a float reduction of an int column back to that dtype (``maybe_downcast_to_dtype``) when every
    value casts (truncating) to an int of the dtype's range that is within 1e-8 of it and none is missing; a
    DataFrame decides for each block of same-dtype columns at once (``.all()`` over all of them).
    """
    from riptide._device import namespace_of

    xp = namespace_of(result)
    info = np.iinfo(dtypes.to_numpy_dtype(dtype))
    with np.errstate(all="ignore"):
        inside = (result >= np.float64(info.min)) & (result < np.float64(int(info.max) + 1))
        close = xp.abs(xp.trunc(xp.where(inside, result, 0.0)) - result) <= 1e-8
    ok = inside & close
    return ok if missing is None else ok & ~missing


def _quantile(values: Any, rows: _Rows, q: float, interpolation: str) -> Any:
    """The q-quantile of each group's non-missing values, in float64 (NaN for an empty group).

    Positions follow pandas: ``q * (count - 1)``; "nearest" rounds half to even; "median" is the
    middle value or the mean of the two middle values, ``(a + b) / 2``, as pandas' median computes it.
    """
    xp = rows.xp
    counts = rows.counts
    n_groups = rows.groups.n_groups
    # Group by group (missing values last, in the discard slot), ascending within a group.
    by_value = stable_argsort(values, xp)
    order = by_value[stable_argsort(rows.targets[by_value], xp)]
    ordered = values[order].astype(np.float64)
    if ordered.shape[0] == 0:
        return xp.full(n_groups, np.nan)
    starts = xp.cumsum(counts) - counts
    last_row = ordered.shape[0] - 1

    def at(offset: Any) -> Any:
        return ordered[xp.clip(starts + offset, 0, last_row)]

    top = xp.maximum(counts - 1, 0)
    if interpolation == "median":
        low, high = top // 2, (counts // 2)
        with np.errstate(all="ignore"):
            result = xp.where(low == high, at(low), (at(low) + at(high)) / 2)
        return xp.where(counts > 0, result, np.nan)
    return xp.where(counts > 0, interpolate_sorted(at, counts, q, interpolation, xp), np.nan)


# --- first / last / any / all (every layout) -----------------------------------------------------------------


def _first_last(column: Column, rows: _Rows, op: str, skipna: bool, min_count: int) -> Column:
    """The first (last) non-missing value of each group; with ``skipna=False`` the first (last) row as it is."""
    xp = rows.xp
    groups = rows.groups
    flags = rows.valid if skipna else rows.kept
    if op == "first":
        positions = _first_row_where(flags, groups)
    else:
        positions = _last_row_where(flags, groups)
    # min_count counts the rows first/last choose from: the values (skipna) or every row.
    available = rows.counts if skipna else _count_where(rows.kept, groups)
    missing = (positions < 0) | (available < max(min_count, 1))
    if isinstance(column, NumericColumn) and not dtypes.is_masked(column.dtype):
        # Gather the values and let _finish turn an int/bool result with missing groups into float64.
        data = column.data[xp.maximum(positions, 0)] if column.size else xp.zeros(groups.n_groups, column.data.dtype)
        return _finish(data, column.dtype, missing, xp)
    picked = column.take_or_missing(xp.where(missing, -1, positions))
    return picked


def _any_all(column: Column, rows: _Rows, op: str, skipna: bool) -> Column:
    """any/all of each group's truth values; an empty group gives False / True.

    With ``skipna=False`` a missing value counts as True (NaN is truthy), except for masked dtypes,
    whose result follows Kleene logic: <NA> where the missing value could decide it.
    """
    xp = rows.xp
    groups = rows.groups
    truthy = _truthy(column)
    masked = dtypes.is_masked(column.dtype)
    taking_part = rows.valid if (skipna or masked) else rows.kept
    decisive = truthy if op == "any" else ~truthy  # a True decides any, a False decides all
    decided = _count_where(taking_part & decisive, groups) > 0
    result = decided if op == "any" else ~decided
    if not masked:
        return NumericColumn(result)
    unknown = rows.has_missing() & ~decided if not skipna else xp.zeros(groups.n_groups, dtype=bool)
    return NumericColumn(result, dtype=pd.BooleanDtype(), mask=~unknown)


def _truthy(column: Column) -> Any:
    """bool per row: the value's truth (a missing value reads as True, as NaN does)."""
    xp = column.xp
    if isinstance(column, StringColumn):
        truthy = column.lengths() > 0
    elif isinstance(column, CategoricalColumn):
        by_category = _truthy(column.categories)
        codes = column.codes.astype(np.int64)
        if by_category.shape[0] == 0:
            return xp.ones(column.size, dtype=bool)
        truthy = by_category[xp.maximum(codes, 0)]
        return xp.where(codes < 0, True, truthy)
    else:
        truthy = column.data != 0
        if column.kind in "mM":
            return truthy  # NaT is a nonzero int64
    if column.can_hold_missing():
        truthy = truthy | column.isna()
    return truthy


# --- strings and ordered categoricals --------------------------------------------------------------------------


def _strings(column: StringColumn, rows: _Rows, op: str, skipna: bool, min_count: int) -> Column:
    if op in ("min", "max"):
        codes, _ = factorize(column)
        return _by_code_extreme(column, codes, rows, op, skipna, min_count)
    assert op == "sum"
    out = _concatenate_per_group(column, rows)
    missing = rows.counts < min_count if min_count > 0 else None
    if not skipna:
        missing = rows.has_missing() if missing is None else missing | rows.has_missing()
    return out if missing is None else out.set_missing(missing)


def _concatenate_per_group(column: StringColumn, rows: _Rows) -> StringColumn:
    """pandas sums strings by concatenating them in row order; a group without a value gives ""."""
    xp = rows.xp
    n_groups = rows.groups.n_groups
    order = stable_argsort(rows.targets, xp)  # group by group, row order within a group, discarded rows last
    pieces = column.take(order)
    lengths = xp.zeros(n_groups + 1, dtype=np.int64)
    scatter_add(lengths, rows.targets, xp.where(rows.valid, column.lengths(), 0), xp)
    offsets = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(lengths[:n_groups])])
    # The valid rows' bytes come first in ``pieces``; a discarded row sorts after them.
    # Missing rows are discarded too, so their (masked-out) bytes never land in a group.
    total = offsets[-1:]
    chars = pieces.chars[: int(total[0])] if n_groups else pieces.chars[:0]  # one scalar read: the output size
    return StringColumn(offsets, chars, None, column.arrow_type)


def _by_code_extreme(column: Column, codes: Any, rows: _Rows, op: str, skipna: bool = True,
                     min_count: int = 0) -> Column:  # fmt: skip
    """min/max through order-preserving integer codes; the row holding the winning code supplies the value."""
    xp = rows.xp
    groups = rows.groups
    best = _extreme(codes, rows.valid, groups, op, rows.targets)
    padded = xp.concatenate([best, xp.full(1, -2, dtype=best.dtype)])
    positions = _first_row_where(rows.valid & (codes == padded[rows.targets]), groups)
    missing = rows.counts < max(min_count, 1)
    if not skipna:
        missing = missing | rows.has_missing()
    return column.take_or_missing(xp.where(missing, -1, positions))


# --- shared pieces --------------------------------------------------------------------------------------------


def _targets(flags: Any, groups: Groups) -> Any:
    """Scatter slot of each row: its group where ``flags`` holds (and the key is kept), else the discard slot."""
    return groups.xp.where(flags & (groups.ids >= 0), groups.ids, groups.n_groups)


def _count_where(flags: Any, groups: Groups) -> Any:
    return _count_targets(_targets(flags, groups), groups)


def _count_targets(targets: Any, groups: Groups) -> Any:
    """Rows per group of scatter slots ``targets`` (the discard slot not counted)."""
    xp = groups.xp
    counts = xp.zeros(groups.n_groups + 1, dtype=np.int64)
    scatter_add(counts, targets, xp.ones(targets.shape[0], dtype=np.int64), xp)
    return counts[: groups.n_groups]


def _extreme(values: Any, valid: Any, groups: Groups, op: str, targets: Any = None) -> Any:
    """Per-group min or max of ``values`` over ``valid`` rows (the identity where a group has none); ``targets``:
    :func:`_targets` of ``valid`` when known."""
    xp = groups.xp
    original = values.dtype
    if original.kind in "iu" and original.itemsize < 4:
        # GPU atomics compare 32- and 64-bit words only: widen (order and values are unchanged).
        values = values.astype(np.int32 if original.kind == "i" else np.uint32)
    if values.dtype.kind == "f":
        identity = np.inf if op == "min" else -np.inf
    else:
        info = np.iinfo(values.dtype)
        identity = info.max if op == "min" else info.min
    result = xp.full(groups.n_groups + 1, identity, dtype=values.dtype)
    # Rows that do not take part carry the identity, so a NaN among them never reaches a comparison.
    contributions = xp.where(valid, values, values.dtype.type(identity))
    if targets is None:
        targets = _targets(valid, groups)
    (scatter_min if op == "min" else scatter_max)(result, targets, contributions, xp)
    return result[: groups.n_groups].astype(original, copy=False)


def _first_row_where(flags: Any, groups: Groups) -> Any:
    """First row of each group where ``flags`` holds; -1 where none does."""
    xp = groups.xp
    n = flags.shape[0]
    first = first_row_of_each(xp.where(flags, groups.ids, -1), groups.n_groups, xp)
    return xp.where(first == n, -1, first)


def _last_row_where(flags: Any, groups: Groups) -> Any:
    """Last row of each group where ``flags`` holds; -1 where none does."""
    xp = groups.xp
    n = flags.shape[0]
    last = xp.full(groups.n_groups + 1, -1, dtype=np.int64)
    scatter_max(last, _targets(flags, groups), xp.arange(n, dtype=np.int64), xp)
    return last[: groups.n_groups]


def _order_keys(column: Column) -> Any:
    """Numbers that order like the column's values (idxmin/idxmax compare these)."""
    if isinstance(column, NumericColumn):
        return column.data.view(np.int8) if column.kind == "b" else column.data
    if isinstance(column, CategoricalColumn):
        return column.codes.astype(np.int64)
    return factorize(column)[0]


def _nunique(column: Column, groups: Groups, dropna: bool) -> Any:
    """Distinct values per group: the (group, value) pairs form groups of their own; count them per group."""
    xp = groups.xp
    pairs = group_rows([NumericColumn(groups.ids), column], sort=True, dropna=dropna)
    # A dropped key (-1) is a value for group_rows: its pairs go to the discard slot.
    pair_groups = groups.ids[pairs.first_rows]
    slots = xp.where(pair_groups < 0, groups.n_groups, pair_groups)
    counts = xp.zeros(groups.n_groups + 1, dtype=np.int64)
    scatter_add(counts, slots, xp.ones(slots.shape[0], dtype=np.int64), xp)
    return counts[: groups.n_groups]


def _segmented_scan(ufunc: Any, values: Any, segment: Any, xp: types.ModuleType) -> Any:
    """Inclusive scan of ``values`` with ``ufunc``, restarting where ``segment`` changes (log2 n passes)."""
    result = values.copy()
    n = result.shape[0]
    step = 1
    with np.errstate(all="ignore"):  # float products may overflow to inf, as pandas' do (silently)
        while step < n:
            same = segment[step:] == segment[:-step]
            combined = ufunc(result[step:], result[:-step])
            result[step:] = xp.where(same, combined, result[step:])
            step *= 2
    return result
