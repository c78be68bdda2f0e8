"""Operations within groups whose result has one value per row: scans, shifts, fills, ranks, and the
per-group moments behind ``corr`` / ``cov``.

Every function takes a column and a :class:`~riptide.core.ops.grouping.Groups` (a group number per row,
-1 for a row dropped because its key is missing) and works on one layout, :class:`Segments`: the rows
ordered by group with a stable sort, so each group is a contiguous run that keeps its rows' original
order. On that layout

* a running count is ``position - start of the group`` (cumcount, head/tail/nth);
* a shift is a gather from ``position - periods`` when it stays inside the group;
* forward/backward fill needs no segmented scan at all: the nearest valid row is found with one global
  ``cumsum`` over the valid flags, and rejected when it lies outside the row's group;
* integer cumsum is one global ``cumsum`` minus its value just before the group starts (exact, in
  wrapping integer arithmetic); the other scans (float cumsum, cumprod, cummin, cummax) use a segmented
  doubling scan — ``ceil(log2(largest group))`` elementwise passes that restart at group boundaries (one
  fused kernel per pass on the GPU);
* rank sorts once more by (group, value) and reads ties as runs of equal keys.

The results are then scattered back to the original row order. Nothing loops over rows or groups in
Python; the only host reads size an output or decide a dtype, and are commented where they happen.

Missing values follow pandas: scans skip them (the row stays missing, the running value carries on) or,
with ``skipna=False``, poison the rest of the group; rows whose key was dropped come out missing (which
turns an int column into float64, as in pandas).

>>> import numpy as np
>>> from riptide.core.column import as_column
>>> from riptide.core.ops.grouping import group_rows
>>> g = group_rows([as_column(np.array([1, 2, 1, 1]))])
>>> cumulative(as_column(np.array([1, 10, 2, 3])), g, "cumsum").data.tolist()
[1, 10, 3, 6]
>>> cumcount(g).tolist()
[0, 0, 1, 2]
"""

from __future__ import annotations

import functools
import types
import warnings
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn
from riptide.core.kernels.factorize import factorize
from riptide.core.kernels.sort import stable_argsort
from riptide.core.ops.grouping import Groups

__all__ = [
    "Segments",
    "segments",
    "cumcount",
    "cumulative",
    "shift",
    "fill",
    "rank",
    "pair_moments",
    "GROUP_SCANS",
    "RANK_METHODS",
]

GROUP_SCANS = ("cumsum", "cumprod", "cummin", "cummax")
RANK_METHODS = ("average", "min", "max", "first", "dense")


# --- the layout ---------------------------------------------------------------------------------------------


@dataclass
class Segments:
    """Rows ordered by group (stable): each group a contiguous run, dropped rows last.

    ``order[i]`` is the row at sorted position i; ``ids[i]`` its group (``n_groups`` for a dropped row);
    ``starts[g]`` / ``sizes[g]`` the first sorted position and the row count of group g (entry
    ``n_groups`` describes the dropped rows).
    """

    order: Any
    ids: Any
    starts: Any
    sizes: Any
    n_groups: int
    xp: types.ModuleType

    @property
    def n(self) -> int:
        return int(self.order.shape[0])

    @cached_property
    def position(self) -> Any:
        """Position of each sorted row within its group (0 for the group's first row)."""
        xp = self.xp
        return xp.arange(self.n, dtype=np.int64) - self.starts[self.ids]

    @cached_property
    def row_sizes(self) -> Any:
        """Size of the group of each sorted row."""
        return self.sizes[self.ids]

    @cached_property
    def kept(self) -> Any:
        """True for sorted rows that belong to a group (their key was not dropped)."""
        return self.ids < self.n_groups

    @cached_property
    def max_size(self) -> int:
        """Rows in the largest group (how far a scan must reach)."""
        # one scalar read: it sets the number of doubling passes
        return int(self.sizes[: self.n_groups].max()) if self.n_groups else 0

    @cached_property
    def has_dropped(self) -> bool:
        # one scalar read: whether rows without a group exist decides the result dtype (int -> float64)
        return bool(self.sizes[self.n_groups] > 0) if self.n else False

    @cached_property
    def dropped_rows(self) -> Any:
        """Bool per original row: its key was dropped."""
        return self.scatter(~self.kept)

    def scatter(self, sorted_values: Any) -> Any:
        """Values given in sorted order, put back in original row order."""
        out = self.xp.empty(sorted_values.shape[0], dtype=sorted_values.dtype)
        out[self.order] = sorted_values
        return out


def segments(groups: Groups, rows: Any = None) -> Segments:
    """The sorted layout of ``groups``; with a bool ``rows``, only those rows take part (others dropped).

    >>> import numpy as np
    >>> from riptide.core.ops.grouping import Groups
    >>> s = segments(Groups(ids=np.array([1, 0, 1, -1]), n_groups=2, xp=np))
    >>> s.order.tolist(), s.starts.tolist(), s.sizes.tolist()
    ([1, 0, 2, 3], [0, 1, 3], [1, 2, 1])
    """
    xp = groups.xp
    ids = groups.ids
    if rows is not None:
        ids = xp.where(rows, ids, -1)
    kept_ids = xp.where(ids < 0, groups.n_groups, ids)
    sizes = xp.bincount(kept_ids, minlength=groups.n_groups + 1).astype(np.int64) if ids.shape[0] else (
        xp.zeros(groups.n_groups + 1, dtype=np.int64))  # fmt: skip
    starts = xp.cumsum(sizes) - sizes
    order = stable_argsort(kept_ids, xp)
    return Segments(order=order, ids=kept_ids[order], starts=starts, sizes=sizes, n_groups=groups.n_groups, xp=xp)


def _layout(groups: Groups | Segments) -> Segments:
    return groups if isinstance(groups, Segments) else segments(groups)


# --- counting ------------------------------------------------------------------------------------------------


def cumcount(groups: Groups | Segments, ascending: bool = True) -> Any:
    """Number of each row within its group (0, 1, ...; counted from the end when not ``ascending``).

    Rows without a group get their number among the dropped rows; callers mark them missing.
    """
    seg = _layout(groups)
    position = seg.position if ascending else seg.row_sizes - 1 - seg.position
    return seg.scatter(position)


# --- cumulative scans ----------------------------------------------------------------------------------------


def cumulative(column: Column, groups: Groups | Segments, op: str, skipna: bool = True) -> Column:
    """cumsum / cumprod / cummin / cummax of ``column`` within each group, pandas' dtypes and missing rules."""
    if op not in GROUP_SCANS:
        raise ValueError(f"unknown group scan {op!r}; expected one of {', '.join(GROUP_SCANS)}")
    _check_scannable(column, op)
    seg = _layout(groups)
    xp = seg.xp
    assert isinstance(column, NumericColumn)
    kind = column.kind
    missing = column.isna() if column.can_hold_missing() else None
    values = column.data
    if op in ("cumsum", "cumprod"):
        accumulator = np.dtype(np.float64) if kind == "f" else np.dtype(np.uint64 if kind == "u" else np.int64)
        if kind in "biu" and not dtypes.is_masked(column.dtype) and seg.has_dropped:
            # the result gains missing rows, so pandas accumulates these ints as float64 (no wrapping)
            accumulator = np.dtype(np.float64)
    else:
        accumulator = np.dtype(np.int8) if kind == "b" else values.dtype
    values = values.astype(accumulator, copy=False)
    if missing is not None:
        values = xp.where(missing, _identity(op, accumulator), values)
    ordered = values[seg.order]
    if op == "cumsum" and accumulator.kind in "iu":
        scanned = _segmented_integer_sum(ordered, seg)
    else:
        name = {"cumsum": "add", "cumprod": "multiply", "cummin": "minimum", "cummax": "maximum"}[op]
        scanned = segmented_scan(name, ordered, seg)
    result = seg.scatter(scanned)
    dtype = _scan_dtype(column.dtype, op)
    if accumulator.kind == "f" and kind in "biu" and not dtypes.is_masked(column.dtype):
        dtype = np.dtype(np.float64)  # rows without a group make it float64 anyway
    elif op in ("cumsum", "cumprod") and kind in "iu" and values.dtype != dtypes.storage_dtype(dtype):
        # pandas computes narrow ints in 64 bits and keeps the input dtype only when every result fits it
        present = ~seg.dropped_rows if missing is None else (~missing & ~seg.dropped_rows)
        if not _fits(result, present, dtypes.storage_dtype(dtype), xp):
            dtype = pd.Int64Dtype() if dtypes.is_masked(dtype) and kind == "i" else (
                pd.UInt64Dtype() if dtypes.is_masked(dtype) else accumulator)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        data = result.astype(dtypes.storage_dtype(dtype), copy=False)
    missing_out = None
    if missing is not None:
        if not skipna:
            # Every row from a group's first missing value on is missing.
            missing_out = seg.scatter(segmented_scan("maximum", missing[seg.order].astype(np.int8), seg) > 0)
        else:
            missing_out = missing
    if dtypes.is_masked(dtype):
        out: Column = NumericColumn(data, dtype, None if missing_out is None else ~missing_out)
    else:
        out = NumericColumn(data, dtype)
        if missing_out is not None:
            out = out.set_missing(missing_out)
    return mark_dropped(out, seg, numeric=True)


def _check_scannable(column: Column, op: str) -> None:
    if isinstance(column, StringColumn):
        if op in ("cummin", "cummax"):
            raise TypeError(f"{op} is not supported for str dtype")
        raise TypeError(f"dtype 'str' does not support operation '{op}'")
    if isinstance(column, CategoricalColumn):
        raise TypeError(f"category type does not support {op} operations")
    dtype = column.dtype
    if dtypes.is_datetimelike(dtype):
        if dtype.kind == "M" and op in ("cumsum", "cumprod"):
            raise TypeError(f"datetime64 type does not support operation '{op}'")
        if dtype.kind == "m" and op == "cumprod":
            raise TypeError("timedelta64 type does not support cumprod operations")


def _identity(op: str, dtype: np.dtype) -> Any:
    """The value a missing row contributes: it leaves the running value unchanged."""
    if op == "cumsum":
        return dtype.type(0)
    if op == "cumprod":
        return dtype.type(1)
    if dtype.kind == "f":
        return dtype.type(np.inf if op == "cummin" else -np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.max if op == "cummin" else info.min)


def _scan_dtype(dtype: Any, op: str) -> Any:
    """pandas' groupby scan dtypes: the input dtype, except that sums and products of bools count in int64."""
    if op in ("cumsum", "cumprod") and dtypes.to_numpy_dtype(dtype).kind == "b":
        return pd.Int64Dtype() if dtypes.is_masked(dtype) else np.dtype(np.int64)
    return dtype


def _fits(values: Any, present: Any, dtype: np.dtype, xp: types.ModuleType) -> bool:
    """Whether every ``present`` value lies in the range of the integer ``dtype``."""
    if values.shape[0] == 0:
        return True
    info = np.iinfo(dtype)
    outside = (values < values.dtype.type(max(info.min, np.iinfo(values.dtype).min))) | (
        values > values.dtype.type(min(info.max, np.iinfo(values.dtype).max)))  # fmt: skip
    return not bool((outside & present).any())  # one scalar read: the result dtype depends on the values


def _segmented_integer_sum(ordered: Any, seg: Segments) -> Any:
    """Running sums within groups of sorted integers: a global cumsum minus its value before the group.

    Wrapping integer arithmetic makes the difference exact even when the global sum overflows.
    """
    if seg.n == 0:
        return ordered
    with np.errstate(over="ignore"):
        total = seg.xp.cumsum(ordered, dtype=ordered.dtype)
        before = total - ordered  # exclusive prefix
        return total - before[seg.starts[seg.ids]]


_SCAN_OPS = ("add", "multiply", "minimum", "maximum")
# NumPy's semantics: a NaN operand wins minimum / maximum (``b != b`` is false for integers)
_SCAN_EXPRESSIONS = {"add": "a + b", "multiply": "a * b", "minimum": "((b < a || b != b) ? b : a)",
                     "maximum": "((b > a || b != b) ? b : a)"}  # fmt: skip


def segmented_scan(op: str, ordered: Any, seg: Segments) -> Any:
    """Inclusive scan with ``op`` (add, multiply, minimum, maximum) of values in sorted order, restarting at each
    group. The values hold no NaN (missing values were replaced by the operation's identity).

    Hillis-Steele doubling: after the pass with step s every row combines the 2s values ending at it, as long as
    they are in its group (its position in the group says how far back that reaches); ``ceil(log2(largest
    group))`` passes. On the GPU each pass is one fused kernel; the NumPy twin below is the CPU path and oracle.
    """
    xp = seg.xp
    if op not in _SCAN_OPS:
        raise ValueError(f"unknown scan operation {op!r}; expected one of {', '.join(_SCAN_OPS)}")
    if xp is not np:
        return _segmented_scan_cupy(op, ordered, seg)
    ufunc = getattr(np, op)
    result = ordered.copy()
    position = seg.position
    step = 1
    with np.errstate(over="ignore", invalid="ignore"):
        while step < seg.max_size:
            reach = position[step:] >= step
            combined = ufunc(result[step:], result[:-step])
            result[step:] = np.where(reach, combined, result[step:])
            step *= 2
    return result


@functools.cache
def _scan_pass_kernel(op: str) -> Any:
    """One doubling pass on the GPU: ``y[i] = x[i - step] (op) x[i]`` where row i reaches that far into its group."""
    import cupy

    return cupy.ElementwiseKernel(
        "raw T x, raw int64 position, int64 step", "T y",
        f"const T a = x[i]; if (position[i] >= step) {{ const T b = x[i - step]; y = {_SCAN_EXPRESSIONS[op]}; }} "
        "else { y = a; }",
        f"riptide_group_scan_pass_{op}",
    )  # fmt: skip


def _segmented_scan_cupy(op: str, ordered: Any, seg: Segments) -> Any:
    kernel = _scan_pass_kernel(op)
    source = ordered.copy()
    target = seg.xp.empty_like(source)
    position = seg.position
    step = 1
    while step < seg.max_size:
        kernel(source, position, step, target)
        source, target = target, source
        step *= 2
    return source


def mark_dropped(column: Column, seg: Segments, numeric: bool = False) -> Column:
    """Rows whose key was dropped made missing (int becomes float64; with ``numeric``, bool too, as pandas'
    numeric kernels give it)."""
    if not seg.has_dropped:
        return column
    if numeric and isinstance(column, NumericColumn) and column.dtype == np.dtype(bool):
        column = NumericColumn(column.data.astype(np.float64))
    return column.set_missing(seg.dropped_rows)


# --- shift and fill -------------------------------------------------------------------------------------------


def shift_sources(groups: Groups | Segments, periods: int) -> Any:
    """For each row, the row ``periods`` earlier in its group (later when negative); -1 where there is none.

    Rows without a group get -1.
    """
    seg = _layout(groups)
    xp = seg.xp
    n = seg.n
    target = seg.position - periods
    inside = (target >= 0) & (target < seg.row_sizes) & seg.kept
    source = xp.arange(n, dtype=np.int64) - periods
    rows = xp.where(inside, seg.order[xp.clip(source, 0, max(n - 1, 0))], -1) if n else seg.order
    return seg.scatter(rows)


def shift(column: Column, groups: Groups | Segments, periods: int, fill_value: Any = None) -> Column:
    """Each row takes the value ``periods`` rows earlier in its group; vacated rows (and rows without a
    group) are missing or ``fill_value``. ``periods == 0`` returns the column unchanged, as pandas does."""
    if periods == 0 or column.size == 0:
        return column  # pandas: nothing moves, so the dtype stays (even an empty int column stays int)
    xp = column.xp
    n = column.size
    sources = shift_sources(groups, periods)
    vacated = sources < 0
    gathered = column.take(xp.clip(sources, 0, max(n - 1, 0))) if n else column
    if fill_value is None:
        return gathered.set_missing(vacated)
    from riptide.core.ops.missing import fill_where

    return fill_where(gathered, vacated, fill_value)


def fill(column: Column, groups: Groups | Segments, forward: bool, limit: int | None = None) -> Column:
    """ffill (``forward``) / bfill within groups: a missing row takes the nearest valid value of its group.

    The nearest valid row in sorted order is found from one cumsum over the valid flags; it is used only
    when it lies inside the row's group (and within ``limit`` rows).
    """
    seg = _layout(groups)
    xp = seg.xp
    n = seg.n
    if not column.can_hold_missing() or n == 0:
        return mark_dropped(column, seg)
    valid = ~column.isna()[seg.order]
    valid_positions = xp.flatnonzero(valid)
    n_valid = valid_positions.shape[0]
    here = xp.arange(n, dtype=np.int64)
    counts = xp.cumsum(valid.astype(np.int64))
    if n_valid == 0:
        source = xp.full(n, -1, dtype=np.int64)
    elif forward:
        # The last valid row at or before each row.
        source = xp.where(counts > 0, valid_positions[xp.maximum(counts - 1, 0)], -1)
        source = xp.where(source >= seg.starts[seg.ids], source, -1)
    else:
        before = counts - valid.astype(np.int64)  # valid rows strictly before
        source = xp.where(before < n_valid, valid_positions[xp.minimum(before, n_valid - 1)], -1)
        source = xp.where((source >= 0) & (source < seg.starts[seg.ids] + seg.row_sizes), source, -1)
    if limit is not None:
        source = xp.where(xp.abs(here - source) > limit, -1, source)
    source = xp.where(valid, here, source)
    source = xp.where(seg.kept, source, -1)
    rows = xp.where(source >= 0, seg.order[xp.maximum(source, 0)], -1)
    return column.take_or_missing(seg.scatter(rows))


# --- rank -----------------------------------------------------------------------------------------------------


def rank(column: Column, groups: Groups | Segments, method: str = "average", ascending: bool = True,
         na_option: str = "keep", pct: bool = False) -> Column:  # fmt: skip
    """Rank of each row's value within its group (float64; Float64 for masked inputs).

    Ties share a rank as ``method`` says; missing values stay missing (``keep``) or rank before (``top``) or
    after (``bottom``) every value, tied among themselves. ``pct`` divides by the group's number of ranked
    rows (of distinct values for ``dense``).

    >>> import numpy as np
    >>> from riptide.core.column import as_column
    >>> from riptide.core.ops.grouping import group_rows
    >>> g = group_rows([as_column(np.array([0, 0, 0, 1]))])
    >>> rank(as_column(np.array([5.0, 3.0, 5.0, 1.0])), g).data.tolist()
    [2.5, 1.0, 2.5, 1.0]
    """
    if method not in RANK_METHODS:
        raise ValueError(f"method must be one of {', '.join(RANK_METHODS)}, got {method!r}")
    if na_option not in ("keep", "top", "bottom"):
        raise ValueError("na_option must be one of 'keep', 'top', or 'bottom'")
    if isinstance(column, CategoricalColumn) and not column.ordered:
        raise TypeError("Cannot perform rank with non-ordered Categorical")
    seg = _layout(groups)
    xp = seg.xp
    n = seg.n
    codes, n_distinct = factorize(column)
    missing = codes < 0
    key = codes if ascending else (n_distinct - 1) - codes
    nan_key = -1 if na_option == "top" else n_distinct  # 'keep' parks missing rows last, out of the way
    key = xp.where(missing, nan_key, key) + 1  # 0 .. n_distinct + 1
    kept_ids = seg.scatter(seg.ids)
    combined = kept_ids * (n_distinct + 2) + key
    order = stable_argsort(combined, xp)
    sorted_ids = kept_ids[order]
    sorted_key = key[order]
    here = xp.arange(n, dtype=np.int64)
    if n == 0:
        return NumericColumn(xp.zeros(0, dtype=np.float64), pd.Float64Dtype() if dtypes.is_masked(column.dtype)
                             else None)  # fmt: skip
    new_run = xp.ones(n, dtype=bool)
    new_run[1:] = (sorted_ids[1:] != sorted_ids[:-1]) | (sorted_key[1:] != sorted_key[:-1])
    run_id = xp.cumsum(new_run) - 1
    run_first = xp.flatnonzero(new_run)
    run_last = xp.concatenate([run_first[1:], xp.full(1, n, dtype=run_first.dtype)]) - 1
    group_start = seg.starts[sorted_ids]
    if method == "first":
        ranks = (here - group_start + 1).astype(np.float64)
    elif method == "min":
        ranks = (run_first[run_id] - group_start + 1).astype(np.float64)
    elif method == "max":
        ranks = (run_last[run_id] - group_start + 1).astype(np.float64)
    elif method == "average":
        ranks = (run_first[run_id] + run_last[run_id]).astype(np.float64) / 2.0 - group_start + 1
    else:  # dense
        ranks = (run_id - run_id[xp.minimum(group_start, n - 1)] + 1).astype(np.float64)
    sorted_missing = missing[order]
    if pct:
        counted = ~sorted_missing if na_option == "keep" else xp.ones(n, dtype=bool)
        if method == "dense":
            counted = counted & new_run
        totals = xp.bincount(sorted_ids, weights=counted.astype(np.float64), minlength=seg.n_groups + 1)
        with np.errstate(all="ignore"):
            ranks = ranks / totals[sorted_ids]
    out = xp.empty(n, dtype=np.float64)
    out[order] = ranks
    unranked = seg.dropped_rows
    if na_option == "keep":
        unranked = unranked | missing
    if dtypes.is_masked(column.dtype):
        return NumericColumn(out, pd.Float64Dtype(), ~unranked)
    return NumericColumn(xp.where(unranked, np.nan, out))


# --- moments of column pairs (corr / cov) ------------------------------------------------------------------------


# Rows per block of pair_moments: its float64 temporaries are a block's, never a whole column's.
_MOMENT_BLOCK_ROWS = 1 << 24


def pair_moments(x: Any, x_valid: Any, y: Any, y_valid: Any, groups: Groups) -> tuple[Any, Any, Any, Any]:
    """Per group, over the rows where both ``x`` and ``y`` are valid: count, centred sums of squares of x
    and y, and the centred sum of cross products (float64 arrays of ``n_groups``).

    ``x`` and ``y`` are numeric arrays of any dtype (read as float64); ``x_valid`` / ``y_valid`` bool arrays, or
    None where every row is valid. The values of other rows are never read into a sum (they go to a spare bin).

    Two passes — means first, then sums of products of deviations — so that correlations near ±1 and
    large offsets keep their digits (a one-pass sum of squares would cancel them away). Both run a block of
    rows at a time, in place where they can: the memory they add is a few float64 arrays of one block.

    >>> from riptide.core.ops.grouping import Groups
    >>> g = Groups(ids=np.array([0, 0, 0, 1, 1]), n_groups=2, xp=np)
    >>> [a.tolist() for a in pair_moments(np.array([1, 2, 3, 5, 5]), None, np.array([1.0, 3, 5, 0, 2]), None, g)]
    [[3.0, 2.0], [2.0, 0.0], [8.0, 2.0], [4.0, 0.0]]
    """
    from riptide.core.kernels.scatter import scatter_add

    xp = groups.xp
    n_groups = groups.n_groups
    ids = groups.ids
    n = int(ids.shape[0])
    blocks = [slice(start, min(start + _MOMENT_BLOCK_ROWS, n)) for start in range(0, n, _MOMENT_BLOCK_ROWS)]

    def block_slots(rows: slice) -> Any:
        """The group of each row of the block where both values are valid, else the spare bin ``n_groups``."""
        block_ids = ids[rows]
        keep = block_ids >= 0
        for valid in (x_valid, y_valid):
            if valid is not None:
                keep &= valid[rows]
        return xp.where(keep, block_ids, n_groups)

    only = block_slots(blocks[0]) if len(blocks) == 1 else None  # one block: its slots serve both passes

    def slots(rows: slice) -> Any:
        return only if only is not None else block_slots(rows)

    counts = xp.zeros(n_groups + 1, dtype=np.int64)
    sum_x, sum_y = xp.zeros(n_groups + 1), xp.zeros(n_groups + 1)
    for rows in blocks:
        slot = slots(rows)
        counts += xp.bincount(slot, minlength=n_groups + 1)
        scatter_add(sum_x, slot, x[rows].astype(np.float64, copy=False), xp)
        scatter_add(sum_y, slot, y[rows].astype(np.float64, copy=False), xp)
    counts = counts[:n_groups].astype(np.float64)
    with np.errstate(all="ignore"):
        # the spare bin's mean is 0: its rows' deviations are never read
        mean_x = xp.concatenate([sum_x[:n_groups] / counts, xp.zeros(1)])
        mean_y = xp.concatenate([sum_y[:n_groups] / counts, xp.zeros(1)])
        sxx, syy, sxy = xp.zeros(n_groups + 1), xp.zeros(n_groups + 1), xp.zeros(n_groups + 1)
        for rows in blocks:
            slot = slots(rows)
            dx = mean_x[slot]
            xp.subtract(x[rows], dx, out=dx)
            dy = mean_y[slot]
            xp.subtract(y[rows], dy, out=dy)
            scatter_add(sxy, slot, dx * dy, xp)
            scatter_add(sxx, slot, xp.multiply(dx, dx, out=dx), xp)
            scatter_add(syy, slot, xp.multiply(dy, dy, out=dy), xp)
    return counts, sxx[:n_groups], syy[:n_groups], sxy[:n_groups]
