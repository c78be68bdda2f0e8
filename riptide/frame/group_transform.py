"""Group transformations, filters and apply: the GroupBy methods whose result is not one row per group.

They live on :class:`GroupTransformMethods`, which :class:`riptide.frame.groupby.GroupBy` inherits, and share
its cached grouping (``self._groups``: a group number per row, -1 where the key was dropped). On top of it
they keep one more cached layout, :class:`riptide.core.ops.group_scan.Segments` — the rows sorted by group,
each group a contiguous run in original order — from which everything here is computed on the device:

* **scans and shifts** (cumsum/cumprod/cummin/cummax, cumcount, shift, diff, pct_change, ffill/bfill, rank):
  :mod:`riptide.core.ops.group_scan`, then the result keeps the original index and row order;
* **positional filters** (head, tail, nth): a row's position in its group (counted from either end) decides,
  so the kept rows stay in their original order with their original labels, as in pandas 3;
* **transform** with an aggregation name broadcasts the per-group result back to the rows (a gather by group
  number), with a transformation name calls it;
* **corr / cov** between columns (and ``corrwith`` another Series or DataFrame): per group and per column pair,
  sums of centred products over the rows where both values are present (two passes, no loop over groups);
* **sample**: one random key per row and one sort by (group, key) for all groups; each group keeps its ``n``
  best keys (weighted: Efraimidis-Spirakis keys), or with ``replace`` draws positions within its run of rows;
* **apply / filter / transform with a Python function**: correct for any function, so they call it once per
  group on a riptide sub-object (a Python loop over *groups*, never over rows; the object is permuted into
  group order once so each group is a zero-copy slice) and combine the results as pandas does. ``apply`` of a
  NumPy reduction (``np.sum``, ``np.mean``, ``len``, ...) on a numeric Series group goes to the aggregation
  directly where the answer is provably the same.

>>> import riptide as rt
>>> df = rt.DataFrame({"k": ["a", "b", "a", "b"], "v": [1, 2, 3, 4]})
>>> df.groupby("k").v.cumsum().tolist()
[1, 2, 4, 6]
>>> df.groupby("k").head(1).index.tolist()
[0, 1]
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn, as_column, full, is_scalar
from riptide.core.column.build import concat_columns
from riptide.core.kernels.scan import exclusive_cumsum
from riptide.core.kernels.segments import row_of_each_element
from riptide.core.kernels.sort import stable_argsort
from riptide.core.ops import group_scan
from riptide.core.ops.group_scan import Segments
from riptide.frame.traced_apply import trace_apply

__all__ = ["GroupTransformMethods", "TRANSFORM_REDUCTIONS", "TRANSFORM_KERNELS"]

#: Names transform() broadcasts back to the rows (pandas' reduction kernels).
TRANSFORM_REDUCTIONS = ("all", "any", "corrwith", "count", "first", "idxmax", "idxmin", "last", "max", "mean",
                        "median", "min", "nunique", "prod", "quantile", "sem", "size", "skew", "kurt", "std", "sum",
                        "var")  # fmt: skip
#: Names transform() calls as they are (pandas' transformation kernels).
TRANSFORM_KERNELS = ("bfill", "cumcount", "cummax", "cummin", "cumprod", "cumsum", "diff", "ffill", "ngroup",
                     "pct_change", "rank", "shift")  # fmt: skip

# NumPy / builtin reductions whose result on a group of a plain int64 / float64 Series is exactly the
# GroupBy aggregation of that name (np.sum(series) is series.sum(), which skips NaN as groupby sum does).
# (np.median is not among them: it reads the values as an array, so a NaN makes it NaN.)
_SAME_AS_AGGREGATION = {np.sum: "sum", np.nansum: "sum", np.mean: "mean", np.nanmean: "mean", np.nanmedian: "median",
                        np.min: "min", np.nanmin: "min", np.max: "max", np.nanmax: "max", np.prod: "prod",
                        np.nanprod: "prod"}  # fmt: skip
# NumPy reductions that a pandas Series answers with its own method (NumPy calls ``series.sum(axis=None,
# dtype=None, out=None)``): called the same way on a riptide Series group.
_SERIES_METHOD_OF = {np.sum: ("sum", {}), np.mean: ("mean", {}), np.min: ("min", {}), np.max: ("max", {}),
                     np.prod: ("prod", {}), np.std: ("std", {"ddof": 0}), np.var: ("var", {"ddof": 0})}  # fmt: skip
_NO_DEFAULT = object()


class GroupTransformMethods:
    """Mixed into GroupBy: transformations, positional filters, filter, apply, corr/cov, rolling."""

    # --- shared machinery -----------------------------------------------------------------------------------------
    @cached_property
    def _segments(self) -> Segments:
        """Rows sorted by group (cached: every method here starts from it)."""
        return group_scan.segments(self._groups)

    @property
    def _is_frame(self) -> bool:
        return hasattr(self._obj, "_data")

    def _row_result(self, columns: dict[Hashable, Column]) -> Any:
        """Columns with one value per row of the grouped object: a Series or a DataFrame on the original index."""
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.series import Series

        if not self._is_frame:
            (column,) = columns.values()
            return Series._from_column(column, self._obj.index, self._obj.name)
        return DataFrame._from_columns(columns, self._obj.index)

    def _map_values(self, fn: Callable[[Column], Column], numeric_only: bool = False) -> Any:
        """``fn`` applied to every value column (the key columns left out), as a row-shaped result."""
        results: dict[Hashable, Column] = {}
        for label, column in self._value_items():
            if numeric_only and not _is_numeric(column):
                continue
            results[label] = fn(column)
        return self._row_result(results)

    def _numbered_rows(self, values: Any) -> Any:
        """An int64 Series on the original index (no name); rows without a group missing (float64)."""
        from riptide.frame.series import Series

        column = group_scan.mark_dropped(NumericColumn(values), self._segments)
        return Series._from_column(column, self._obj.index, None)

    # --- numbering ------------------------------------------------------------------------------------------------
    def cumcount(self, ascending: bool = True) -> Any:
        """Number each row within its group, from 0 (from the group's end when not ``ascending``).

        >>> import riptide as rt
        >>> rt.Series([5, 6, 7]).groupby([1, 2, 1]).cumcount().tolist()
        [0, 0, 1]
        """
        return self._numbered_rows(group_scan.cumcount(self._segments, ascending))

    def ngroup(self, ascending: bool = True) -> Any:
        """The number of each row's group (in the order of the groups; reversed when not ``ascending``).

        >>> import riptide as rt
        >>> rt.Series([5, 6, 7]).groupby(["b", "a", "b"]).ngroup().tolist()
        [1, 0, 1]
        """
        ids = self._groups.ids
        if not self._observed_only:
            # pandas numbers only the groups that have rows here (while ngroups counts the empty ones too)
            xp = self._groups.xp
            observed = xp.cumsum(self._segments.sizes[: self.ngroups] > 0) - 1
            ids = xp.where(ids < 0, -1, observed[xp.maximum(ids, 0)]) if self.ngroups else ids
        if not ascending:
            ids = (self.ngroups - 1) - ids
        return self._numbered_rows(ids)

    # --- cumulative scans -----------------------------------------------------------------------------------------
    def _scan(self, op: str, numeric_only: bool, skipna: bool) -> Any:
        seg = self._segments
        results = {label: group_scan.cumulative(column, seg, op, skipna) for label, column in self._value_items()
                   if not numeric_only or _is_numeric(column)}  # fmt: skip
        if op in ("cumsum", "cumprod") and self._is_frame:
            self._widen_blocks(results)
        return self._row_result(results)

    def _narrow_int_blocks(self, wide: bool = False) -> list[list[Hashable]]:
        """The labels of the value columns that pandas holds in one 2-D block, for the plain narrow int columns
        (int8/16/32, uint8/16/32; masked and 64-bit columns need no block rule for sums); ``wide=True`` takes
        int64/uint64 columns too (skew's cast back to the column dtype is decided per block of any width).

        A frame built in one go keeps all its columns of a dtype in one block, in column order; grouped by
        keys that are not its columns, or with an explicit selection (``df.groupby(k)[[...]]``, a copy),
        pandas scans whole blocks. Dropping the key columns slices the blocks instead: each run of adjacent
        value columns of one dtype stays one block when its places in the original block are evenly spaced
        (a slice: [0, 1], [0, 2], [1, 3, 5]), and falls apart into one block per column otherwise ([0, 1, 3]).
        """
        items = self._value_items()

        def narrow(column: Column) -> bool:
            dtype = column.dtype
            return isinstance(dtype, np.dtype) and dtype.kind in "iu" and (wide or dtype.itemsize < 8)

        if self._selection is not None or not any(self._keys.from_frame):
            by_dtype: dict[np.dtype, list[Hashable]] = {}
            for label, column in items:
                if narrow(column):
                    by_dtype.setdefault(column.dtype, []).append(label)
            return list(by_dtype.values())
        place: dict[Hashable, int] = {}  # a column's place in its dtype's block of the whole frame
        taken: dict[np.dtype, int] = {}
        for label, column in self._obj._data.items():
            if narrow(column):
                place[label] = taken.get(column.dtype, 0)
                taken[column.dtype] = place[label] + 1
        runs: list[list[Hashable]] = []
        previous: Column | None = None
        for label, column in items:
            if narrow(column):
                if previous is not None and narrow(previous) and previous.dtype == column.dtype:
                    runs[-1].append(label)
                else:
                    runs.append([label])
            previous = column
        blocks: list[list[Hashable]] = []
        for run in runs:
            steps = {place[b] - place[a] for a, b in zip(run, run[1:], strict=False)}
            if len(steps) <= 1 and 0 not in steps:
                blocks.append(run)
            else:
                blocks.extend([label] for label in run)
        return blocks

    def _widen_blocks(self, results: dict[Hashable, Column]) -> None:
        """pandas' frame cumsum/cumprod of narrow ints: computed in 64 bits and narrowed back to the input
        dtype only when every value of every column of the block fits, so one column whose running sums
        leave the dtype keeps its block neighbours in 64 bits too (``results`` is updated in place).
        Columns that became float64 (rows without a group) are left as they are."""
        for block in self._narrow_int_blocks():
            scanned = [label for label in block if label in results and isinstance(results[label], NumericColumn)
                       and results[label].mask is None and results[label].dtype.kind in "iu"]  # fmt: skip
            wide = {results[label].dtype for label in scanned if results[label].dtype.itemsize == 8}
            if len(wide) != 1 or len(scanned) < 2:
                continue
            (wide_dtype,) = wide
            for label in scanned:
                column = results[label]
                if column.dtype != wide_dtype:
                    results[label] = NumericColumn(column.data.astype(wide_dtype))

    def cumsum(self, numeric_only: bool = False, skipna: bool = True, *args: Any, **kwargs: Any) -> Any:
        """Running sum within each group (missing values skipped, their rows missing).

        >>> import riptide as rt
        >>> rt.Series([1, 2, 3]).groupby(["a", "b", "a"]).cumsum().tolist()
        [1, 2, 4]
        """
        return self._scan("cumsum", numeric_only, skipna)

    def cumprod(self, numeric_only: bool = False, skipna: bool = True, *args: Any, **kwargs: Any) -> Any:
        """Running product within each group."""
        return self._scan("cumprod", numeric_only, skipna)

    def cummin(self, numeric_only: bool = False, skipna: bool = True, **kwargs: Any) -> Any:
        """Running minimum within each group."""
        return self._scan("cummin", numeric_only, skipna)

    def cummax(self, numeric_only: bool = False, skipna: bool = True, **kwargs: Any) -> Any:
        """Running maximum within each group."""
        return self._scan("cummax", numeric_only, skipna)

    # --- shifts -----------------------------------------------------------------------------------------------------
    def shift(self, periods: Any = 1, freq: Any = None, fill_value: Any = _NO_DEFAULT, suffix: str | None = None) -> Any:
        """Each row takes the value ``periods`` rows earlier in its group; vacated rows missing (or ``fill_value``).

        A list of periods gives one column per period, labelled ``<label>[suffix]_<period>``.

        >>> import riptide as rt
        >>> rt.Series([1.0, 2.0, 3.0]).groupby(["a", "b", "a"]).shift().tolist()
        [nan, nan, 1.0]
        """
        if freq is not None:
            raise NotImplementedError("groupby shift(freq=) is not supported; shift the index's dates instead")
        fill = None if fill_value is _NO_DEFAULT else fill_value
        seg = self._segments
        if isinstance(periods, list | tuple | range) or (hasattr(periods, "__iter__") and not isinstance(periods, str)):
            periods = list(periods)
            if not periods:
                raise ValueError("If `periods` is an iterable, it cannot be empty.")
            columns: dict[Hashable, Column] = {}
            for p in periods:
                _check_periods(p)
                for label, column in self._value_items():
                    columns[f"{label}{suffix or ''}_{int(p)}"] = group_scan.shift(column, seg, int(p), fill)
            from riptide.frame.dataframe import DataFrame

            return DataFrame._from_columns(columns, self._obj.index)
        _check_periods(periods)
        return self._map_values(lambda column: group_scan.shift(column, seg, int(periods), fill))

    def diff(self, periods: int = 1) -> Any:
        """Difference with the value ``periods`` rows earlier in the group (pandas' dtypes: ints give floats).

        >>> import riptide as rt
        >>> rt.Series([1, 5, 4]).groupby(["a", "a", "b"]).diff().tolist()
        [nan, 4.0, nan]
        """
        _check_periods(periods)
        seg = self._segments
        return self._map_values(lambda column: _diff(column, seg, int(periods)))

    def pct_change(self, periods: int = 1, fill_method: None = None, freq: Any = None) -> Any:
        """Fractional change from the value ``periods`` rows earlier in the group."""
        if fill_method is not None:
            raise ValueError(f"fill_method must be None; got fill_method={fill_method!r}.")
        if freq is not None:
            raise NotImplementedError("groupby pct_change(freq=) is not supported")
        _check_periods(periods)
        seg = self._segments
        return self._map_values(lambda column: _pct_change(column, seg, int(periods)))

    def ffill(self, limit: int | None = None) -> Any:
        """Fill missing values with the last valid value of the same group."""
        seg = self._segments
        return self._map_values(lambda column: group_scan.fill(column, seg, True, limit))

    def bfill(self, limit: int | None = None) -> Any:
        """Fill missing values with the next valid value of the same group."""
        seg = self._segments
        return self._map_values(lambda column: group_scan.fill(column, seg, False, limit))

    def rank(self, method: str = "average", ascending: bool = True, na_option: str = "keep", pct: bool = False) -> Any:
        """Rank of each value within its group (float64; ties by ``method``).

        >>> import riptide as rt
        >>> rt.Series([3, 1, 3, 2]).groupby([0, 0, 0, 1]).rank().tolist()
        [2.5, 1.0, 2.5, 1.0]
        """
        if method not in group_scan.RANK_METHODS:
            raise KeyError(f"{method!r}: method must be one of {', '.join(group_scan.RANK_METHODS)}")
        if na_option not in ("keep", "top", "bottom"):
            raise ValueError("na_option must be one of 'keep', 'top', or 'bottom'")
        seg = self._segments
        return self._map_values(lambda column: group_scan.rank(column, seg, method, ascending, na_option, pct))

    # --- transform --------------------------------------------------------------------------------------------
    def transform(self, func: Any = None, *args: Any, engine: Any = None, engine_kwargs: Any = None,
                  **kwargs: Any) -> Any:  # fmt: skip
        """A result like the grouped object: an aggregation broadcast to every row of its group
        (``"sum"``, ``"mean"``, ...), a transformation (``"cumsum"``, ``"rank"``, ...), or a function
        called on each group that returns a scalar or something indexed like the group.

        >>> import riptide as rt
        >>> df = rt.DataFrame({"k": ["a", "b", "a"], "v": [1.0, 2.0, 5.0]})
        >>> df.groupby("k").v.transform("mean").tolist()
        [3.0, 2.0, 3.0]
        >>> df.groupby("k").v.transform(lambda s: s - s.min()).tolist()
        [0.0, 0.0, 4.0]
        """
        if engine not in (None, "cython", "python"):
            raise NotImplementedError(f"engine={engine!r} is not supported")
        if isinstance(func, str):
            if func in TRANSFORM_REDUCTIONS:
                return self._broadcast_reduction(func, *args, **kwargs)
            if func in TRANSFORM_KERNELS:
                return getattr(self, func)(*args, **kwargs)
            raise ValueError(f"'{func}' is not a valid function name for transform(name)")
        if isinstance(func, list | dict | tuple):
            raise NotImplementedError(f"Passing a {type(func).__name__} to GroupBy.transform is not supported "
                                      "(pandas does not support it either); call transform once per function")  # fmt: skip
        if not callable(func):
            raise TypeError(f"transform needs a function or a function name, got {type(func).__name__}")
        fast = self._aggregation_equivalent(func) if not args and not kwargs and self.ngroups else None
        if fast is not None:
            return self._broadcast_reduction(fast)
        return self._python_transform(func, *args, **kwargs)

    def _broadcast_reduction(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """The aggregation ``name`` of each group, repeated on each of the group's rows (missing where the key
        was dropped)."""
        from riptide.frame.series import Series

        if not self._observed_only:
            # pandas reduces the observed groups only (an empty category would turn ints into floats)
            observed = type(self)(self._obj, self._keys, as_index=True, sort=self._sort, group_keys=self._group_keys,
                                  observed=True, dropna=self._dropna, selection=self._selection)  # fmt: skip
            return observed._broadcast_reduction(name, *args, **kwargs)
        ids = self._groups.ids
        if name == "size":
            sizes = NumericColumn(self._groups.sizes())
            if not self._is_frame and dtypes.is_masked(self._obj.dtype):  # pandas counts a masked Series in Int64
                sizes = NumericColumn(sizes.data, pd.Int64Dtype(), None)
            return Series._from_column(sizes.take_or_missing(ids), self._obj.index,
                                       None if self._is_frame else self._obj.name)  # fmt: skip
        reduce = getattr(self, name, None)
        if reduce is None or not callable(reduce):
            raise NotImplementedError(f"transform({name!r}) needs GroupBy.{name}, which riptide does not have yet")
        result = reduce(*args, **kwargs)
        if not self._is_frame:
            return self._row_result({self._obj.name: result._column.take_or_missing(ids)})
        if not hasattr(result, "_data"):  # a reduction that returns one Series for a frame (size-like)
            return Series._from_column(result._column.take_or_missing(ids), self._obj.index, None)
        labels = [label for label, _ in self._value_items() if label in result._data]
        return self._row_result({label: result._data[label].take_or_missing(ids) for label in labels})

    def _aggregation_equivalent(self, func: Any) -> str | None:
        """The aggregation that provably gives what ``func`` gives on every group of a Series, or None."""
        if self._is_frame or len(self._obj) == 0:
            return None
        if func is len:
            # len() counts in int64; GroupBy.size counts a masked Series in Int64
            return None if dtypes.is_masked(self._obj.dtype) else "size"
        name = _SAME_AS_AGGREGATION.get(func)
        if name is None or not self._observed_only:
            return None
        dtype = self._obj.dtype
        if isinstance(dtype, np.dtype) and dtype in (np.dtype(np.int64), np.dtype(np.float64)):
            return name
        return None

    @property
    def _observed_only(self) -> bool:
        """No group without rows (only categorical keys with observed=False create such groups)."""
        return self._observed or not any(isinstance(c, CategoricalColumn) for c in self._keys.columns)

    def _python_transform(self, func: Callable, *args: Any, **kwargs: Any) -> Any:
        """transform with a Python function: called once per group, results aligned to the group's rows.

        When every group gives a scalar (a Series group), the scalars are read as one column first, so their
        common dtype is inferred as pandas infers it (ints and pd.NA: Int64), then repeated on each group's rows.
        """
        results, groups_done, row_blocks = [], [], []
        func = _series_callable(func, self._is_frame, args, kwargs)
        data = self._values_obj()
        for g, _, rows, group in self._each_group(data, include_empty=False):
            results.append((_as_riptide(func(group, *args, **kwargs)), group))
            groups_done.append(g)
            row_blocks.append(rows)
        xp = self._groups.xp
        n = len(self._obj)
        if not results:  # no group: what pandas returns when it has nothing to concatenate
            if self._is_frame:
                raise ValueError("No objects to concatenate")
            from riptide.frame.series import Series

            return Series._from_column(full(0, None, np.float64, xp=xp), _empty_index(xp), self._obj.name)
        if not self._is_frame and all(is_scalar(r) for r, _ in results):
            values = _scalars_column([r for r, _ in results], xp)
            slot = np.full(self.ngroups + 1, -1, dtype=np.int64)
            slot[groups_done] = np.arange(len(groups_done))
            ids = self._groups.ids
            position = _device.to_device(slot, xp)[xp.where(ids < 0, self.ngroups, ids)]
            return self._row_result({self._obj.name: values.take_or_missing(position)})
        pieces: dict[Hashable, list[Column]] = {}
        value_labels = [label for label, _ in self._value_items()]
        for result, group in results:
            if self._is_frame:
                for label, column in _frame_transform_piece(result, group, value_labels).items():
                    pieces.setdefault(label, []).append(column)
            else:
                pieces.setdefault(self._obj.name, []).append(_series_transform_piece(result, group))
        rows = xp.concatenate(row_blocks)
        # Where each original row's value sits in the concatenated results (-1: a row without a group).
        where = xp.full(n, -1, dtype=np.int64)
        where[rows] = xp.arange(rows.shape[0], dtype=np.int64)
        columns = {label: _concat_columns(parts).take_or_missing(where) for label, parts in pieces.items()}
        return self._row_result(columns)

    # --- positional filters -----------------------------------------------------------------------------------
    def head(self, n: int = 5) -> Any:
        """The first ``n`` rows of each group (all but the last ``-n`` when negative), in original order.

        >>> import riptide as rt
        >>> rt.Series([1, 2, 3, 4]).groupby([0, 1, 0, 0]).head(2).tolist()
        [1, 2, 3]
        """
        return self._take_positions(slice(None, n))

    def tail(self, n: int = 5) -> Any:
        """The last ``n`` rows of each group (all but the first ``-n`` when negative), in original order."""
        return self._take_positions(slice(-n, None) if n else [])

    def nth(self, n: Any, dropna: str | None = None) -> Any:
        """The rows at positions ``n`` (an int, a list of ints, a slice, or a tuple of them) of each group,
        in original order with their labels (pandas 3: a filter, not a reduction).

        >>> import riptide as rt
        >>> rt.Series([1, 2, 3, 4]).groupby([0, 1, 0, 0]).nth(-1).tolist()
        [2, 4]
        """
        if not dropna:
            return self._take_positions(n)
        if not isinstance(n, int | np.integer) or isinstance(n, bool):
            raise ValueError("dropna option only supported for an integer argument")
        if dropna not in ("any", "all"):
            raise ValueError("For a DataFrame or Series groupby.nth, dropna must be either None, 'any' or 'all', "
                             f"(was passed {dropna}).")  # fmt: skip
        obj = self._selected_obj()
        missing = [column.isna() for column in (obj._data.values() if self._is_frame else [obj._column])]
        xp = self._groups.xp
        if not missing:
            complete = xp.ones(len(obj), dtype=bool)
        elif dropna == "any":
            complete = ~_reduce_flags(missing, "or")
        else:
            complete = ~_reduce_flags(missing, "and")
        seg = group_scan.segments(self._groups, rows=complete)
        return self._take_positions(n, seg)

    def _take_positions(self, spec: Any, seg: Segments | None = None) -> Any:
        near_end = _near_end(spec) if seg is None else None
        if near_end is not None:
            rows = _rows_near_end(self._groups, *near_end)
        else:
            seg = self._segments if seg is None else seg
            rows = self._groups.xp.flatnonzero(_position_mask(spec, seg))
        return _take_rows(self._selected_obj(), rows)

    # --- sample -------------------------------------------------------------------------------------------------
    def sample(self, n: int | None = None, frac: float | None = None, replace: bool = False, weights: Any = None,
               random_state: Any = None) -> Any:  # fmt: skip
        """A random sample of each group's rows: ``n`` rows per group, or ``round(frac * size)``; groups in group
        order, each group's rows in the order drawn, labels kept (pandas' layout and errors).

        The draw differs from pandas' (which calls ``RandomState.choice`` once per group): every row gets one
        random key and each group keeps its ``n`` best keys, one sort for all groups (weighted: the key
        ``log(u) / weight``, Efraimidis-Spirakis, the same distribution as successive weighted draws); with
        ``replace`` each drawn row is a uniform (or weighted, by bisection of the group's running weights)
        pick within its group. The uniform numbers come from ``random_state`` read as pandas reads it, on the
        host, so a seed gives the same rows on the CPU and the GPU.

        >>> import riptide as rt
        >>> s = rt.Series([1, 2, 3, 4, 5], index=list("abcde"))
        >>> s.groupby([0, 1, 0, 1, 0]).sample(n=1, random_state=0).index.tolist()
        ['c', 'b']
        """
        from riptide.frame.reshape import _random_state, _sampling_size, _sampling_weights

        obj = self._selected_obj()
        if obj.empty:  # pandas hands back the (empty) object before looking at the arguments
            return obj
        size = _sampling_size(n, frac, replace)
        if n is not None and (isinstance(n, bool | np.bool_) or not isinstance(n, int | np.integer)):
            raise TypeError(f"expected a sequence of integers or a single integer, got '{n}'")
        xp = self._groups.xp
        w = None
        if weights is not None:
            w = _sampling_weights(obj, weights, 0, len(obj), xp)
        rs = _random_state(random_state)
        seg = self._segments
        sizes = seg.sizes[: seg.n_groups]
        if size is None:
            take = xp.around(float(frac) * sizes.astype(np.float64)).astype(np.int64)  # round half to even
        else:
            take = xp.full(seg.n_groups, size, dtype=np.int64)
        weighted = None if w is None else w[seg.order]
        _check_sample(sizes, take, weighted, seg, replace)
        if not replace:
            rows = _sample_without_replacement(seg, take, weighted, rs)
        else:
            rows = _sample_with_replacement(seg, take, weighted, rs)
        return _take_rows(obj, rows)

    # --- filter ---------------------------------------------------------------------------------------------------
    def filter(self, func: Callable, dropna: bool = True, *args: Any, **kwargs: Any) -> Any:
        """The rows of the groups for which ``func(group)`` is True (all rows, the others missing, when
        ``dropna=False``), in original order.

        >>> import riptide as rt
        >>> df = rt.DataFrame({"k": ["a", "b", "a"], "v": [1, 2, 3]})
        >>> df.groupby("k").filter(lambda g: len(g) > 1).v.tolist()
        [1, 3]
        """
        xp = self._groups.xp
        obj = self._selected_obj()
        chosen = np.zeros(self.ngroups, dtype=bool)
        for g, _, _, group in self._each_group(obj, include_empty=False):
            chosen[g] = self._filter_verdict(func(group, *args, **kwargs))
        ids = self._groups.ids
        chosen_device = _device.to_device(np.concatenate([chosen, [False]]), xp)
        keep = chosen_device[xp.where(ids < 0, self.ngroups, ids)]
        if dropna:
            return _take_rows(obj, xp.flatnonzero(keep))
        drop = ~keep
        if not bool(drop.any()):  # one scalar read: with nothing blanked out, pandas keeps every dtype
            return obj
        if self._is_frame:
            from riptide.frame.dataframe import DataFrame

            return DataFrame._from_columns({label: c.set_missing(drop) for label, c in obj._data.items()}, obj.index)
        return obj._with_column(obj._column.set_missing(drop))

    def _filter_verdict(self, result: Any) -> bool:
        if self._is_frame:
            value = _squeeze(result)
            if isinstance(value, bool | np.bool_):
                return bool(value)
            if is_scalar(value) and pd.isna(value):
                return False
            raise TypeError(f"filter function returned a {type(value).__name__}, but expected a scalar bool")
        try:
            return bool(not _is_missing(result) and result)
        except (TypeError, ValueError) as error:
            raise TypeError("the filter must return a boolean result") from error

    # --- apply ----------------------------------------------------------------------------------------------------
    def apply(self, func: Any, *args: Any, include_groups: bool = False, **kwargs: Any) -> Any:
        """Call ``func`` on each group and combine the results as pandas does: scalars give one value per group,
        Series give a DataFrame (or a stacked Series when their indexes differ), frames are concatenated with
        the group keys in front of their index (``group_keys=True``).

        >>> import riptide as rt
        >>> df = rt.DataFrame({"k": ["a", "b", "a"], "v": [1, 2, 3]})
        >>> df.groupby("k").apply(lambda g: int(g.v.max() - g.v.min())).tolist()
        [2, 0]
        """
        if include_groups:
            raise ValueError("include_groups=True is no longer allowed.")
        if isinstance(func, str):
            method = getattr(self, func, None)
            if method is None:
                raise TypeError(f"apply func should be callable, not '{func}'")
            if callable(method):
                return method(*args, **kwargs)
            if args or kwargs:
                raise ValueError(f"Cannot pass arguments to property {func}")
            return method
        if not callable(func):
            raise TypeError(f"apply func should be callable, not {type(func).__name__}")
        fast = self._aggregation_equivalent(func) if not args and not kwargs and self.ngroups else None
        if func is len and self._is_frame and self._as_index and not args and not kwargs and self.ngroups:
            fast = "size"  # len(group frame) is its row count
        if fast is not None:
            return self.size() if fast == "size" else getattr(self, fast)()
        traced = trace_apply(self, func, args, kwargs)  # one call for all groups when func only reduces columns
        if traced is not None:
            return self._wrap_scalars(traced)
        data = self._values_obj()
        func = _series_callable(func, self._is_frame, args, kwargs)
        values, groups_of_values, mutated = [], [], False
        for g, _, _, group in self._each_group(data, include_empty=True):
            result = _as_riptide(func(group, *args, **kwargs))
            if not mutated and not _indexed_like(result, group):
                mutated = True
            values.append(result)
            groups_of_values.append(g)
        return self._wrap_applied(data, values, groups_of_values, mutated)

    def _wrap_applied(self, data: Any, values: list[Any], group_numbers: list[int], not_indexed_same: bool) -> Any:
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.series import Series

        if not values:
            return self._empty_applied(data)
        if not self._is_frame:
            first = values[0]
            if isinstance(first, dict):
                raise NotImplementedError("apply returning dicts is not supported; return a Series instead")
            if isinstance(first, Series | DataFrame):
                result = self._concat_applied(values, group_numbers, not_indexed_same)
                if isinstance(result, Series):
                    result.name = self._obj.name
                return result
            return self._wrap_scalars(_scalars_column(values, self._groups.xp))
        first = next((v for v in values if v is not None), None)
        if first is None:
            return DataFrame._from_columns({label: c.slice(0, 0) for label, c in data._data.items()},
                                           _empty_index(self._groups.xp))  # fmt: skip
        if isinstance(first, DataFrame):
            return self._concat_applied(values, group_numbers, not_indexed_same)
        if isinstance(first, Series):
            return self._wrap_series_values(values, group_numbers, first)
        return self._wrap_scalars(_scalars_column(values, self._groups.xp))

    def _wrap_scalars(self, column: Column) -> Any:
        """apply's result when ``func`` gave one scalar per group (``column``, in group order)."""
        from riptide.frame.series import Series

        if not self._is_frame:
            if not self._as_index:  # df.groupby(k, as_index=False)["a"].apply(f): the keys and an "a" column
                return self._with_key_columns({self._obj.name: column})
            return Series._from_column(column, self._result_index(), self._obj.name)
        if self._as_index:
            return Series._from_column(column, self._result_index(), None)
        result = self._with_key_columns({_selection_name(self): column})
        if _selection_name(self) is None:  # a None label: pandas' column axis is then an object Index
            result._set_column_axis(pd.Index(list(result._data), dtype=object))
        return result

    def _empty_applied(self, data: Any) -> Any:
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.series import Series

        xp = self._groups.xp
        index = self._result_index() if self._group_keys and self._as_index else _empty_index(xp)
        if not self._is_frame:
            return Series._from_column(data._column.slice(0, 0), index, self._obj.name)
        return DataFrame._from_columns({label: c.slice(0, 0) for label, c in data._data.items()}, index)

    def _concat_applied(self, values: list[Any], group_numbers: list[int], not_indexed_same: bool) -> Any:
        """Concatenate Series/DataFrame results: keys in front (group_keys), original order (like-indexed
        results without keys), or as they come."""
        present = [(v, g) for v, g in zip(values, group_numbers, strict=True) if v is not None]
        objects = [v for v, _ in present]
        if not objects:
            return None
        if self._group_keys:
            result = _concat_objects(objects)
            if self._as_index:
                result = self._with_group_key_levels(result, [g for _, g in present], [len(v) for v in objects])
        elif not not_indexed_same:
            # Results indexed like their groups: put the rows back in the order of the grouped object.
            result = _concat_objects(objects)
            xp = self._groups.xp
            starts = _host(self._segments.starts)
            blocks = [self._segments.order[int(starts[g]) : int(starts[g]) + len(v)] for v, g in present]
            original = xp.concatenate(blocks) if blocks else xp.zeros(0, dtype=np.int64)
            result = _take_rows(result, stable_argsort(original, xp))
        else:
            result = _concat_objects(objects)
        name = self._obj.name if not self._is_frame else None
        if name is not None and not hasattr(result, "_data"):
            result.name = name
        return result

    def _with_group_key_levels(self, result: Any, group_numbers: list[int], lengths: list[int]) -> Any:
        """``result`` (concatenated per-group pieces) with each piece's group key as leading index levels."""
        from riptide.frame.multi_index import MultiIndex

        xp = self._groups.xp
        counts = np.asarray(lengths, dtype=np.int64)
        offsets = _device.to_device(np.concatenate([[0], np.cumsum(counts)]), xp)
        piece_of_row = row_of_each_element(offsets, xp)
        group_of_row = _device.to_device(np.asarray(group_numbers, dtype=np.int64), xp)[piece_of_row]
        key_levels = [values.take(group_of_row) for values in self._grouping[1]]
        inner = result.index
        levels = key_levels + list(inner._key_columns())
        names = list(self._keys.names) + list(inner.names)
        index = MultiIndex._from_columns(levels, names)
        return _with_index(result, index)

    def _wrap_series_values(self, values: list[Any], group_numbers: list[int], first: Any) -> Any:
        """apply on a DataFrameGroupBy returned Series: one row per group when all share one index, else a
        stacked Series."""
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.series import Series

        filled = [v if v is not None else Series._from_column(full(len(first), None, first.dtype,
                  xp=self._groups.xp), first.index, first.name) for v in values]  # fmt: skip
        if not all(v.index.equals(first.index) and len(v) == len(first) for v in filled):
            return self._concat_applied(values, group_numbers, True)
        xp = self._groups.xp
        n_values, width = len(filled), len(first)
        stacked = _concat_columns([v._column for v in filled])
        labels = list(first.index.to_pandas())
        columns = {label: stacked.take(xp.arange(n_values, dtype=np.int64) * width + j) for j, label in
                   enumerate(labels)}  # fmt: skip
        if not self._as_index:
            return self._with_key_columns(columns)
        frame = DataFrame._from_columns(columns, self._result_index())
        names = {v.name for v in filled}
        if first.index.name is not None:
            frame._column_names = [first.index.name]
        elif len(names) == 1 and next(iter(names)) is not None:
            frame._column_names = [next(iter(names))]
        return frame

    def _with_key_columns(self, columns: dict[Hashable, Column]) -> Any:
        """as_index=False: the group keys as leading columns (named like reset_index names them)."""
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.index import default_index

        names = list(self._keys.names)
        keys: dict[Hashable, Column] = {}
        for level, (name, values) in enumerate(zip(names, self._grouping[1], strict=True)):
            if name is None:
                name = "index" if len(names) == 1 else f"level_{level}"
            if name not in columns and name not in keys:
                keys[name] = values
        return DataFrame._from_columns({**keys, **columns}, default_index(self.ngroups, self._groups.xp))

    # --- the loop over groups ---------------------------------------------------------------------------------
    def _values_obj(self) -> Any:
        """What apply / transform hand to the function: the selected values without the key columns."""
        if not self._is_frame:
            return self._obj
        from riptide.frame.dataframe import DataFrame

        return DataFrame._from_columns(dict(self._value_items()), self._obj.index)

    def _each_group(self, obj: Any, include_empty: bool):
        """Yield (group number, key, row positions, sub-object) per group, in group order.

        ``obj`` is permuted into group order once; each group is then a slice of it. A Series group is named
        after its key, as pandas names it.
        """
        seg = self._segments
        ordered = _take_rows(obj, seg.order)
        starts = _host(seg.starts)
        sizes = _host(seg.sizes)
        keys = self._result_index().to_pandas()
        for g in range(self.ngroups):  # a loop over groups (each calls user code), never over rows
            start, size = int(starts[g]), int(sizes[g])
            if size == 0 and not include_empty:
                continue
            key = keys[g]
            group = _slice_rows(ordered, start, start + size)
            if not self._is_frame:
                group.name = key
            yield g, key, seg.order[start : start + size], group

    # --- corr / cov ---------------------------------------------------------------------------------------------
    def corr(self, *args: Any, **kwargs: Any) -> Any:
        """Correlation per group: between the value columns (``DataFrameGroupBy.corr(method="pearson",
        min_periods=1, numeric_only=False)``, a (group key..., column) x column frame) or with another Series
        (``SeriesGroupBy.corr(other, method="pearson", min_periods=None)``, one value per group).

        >>> import riptide as rt
        >>> df = rt.DataFrame({"k": [1, 1, 1, 2, 2], "x": [1.0, 2, 3, 1, 2], "y": [2.0, 4, 7, 1, 0]})
        >>> round(float(df.groupby("k").x.corr(df.y).iloc[0]), 6)
        0.993399
        """
        return (self._frame_corr if self._is_frame else self._series_corr)(*args, **kwargs)

    def cov(self, *args: Any, **kwargs: Any) -> Any:
        """Covariance per group: between the value columns (``DataFrameGroupBy.cov(min_periods=None, ddof=1,
        numeric_only=False)``) or with another Series (``SeriesGroupBy.cov(other, min_periods=None, ddof=1)``).
        """
        return (self._frame_cov if self._is_frame else self._series_cov)(*args, **kwargs)

    def corrwith(self, other: Any, drop: bool = False, method: Any = "pearson", numeric_only: bool = False) -> Any:
        """Per group, the correlation of each value column with ``other`` (a Series, aligned on the index) or with
        the same-named column of ``other`` (a DataFrame): one row per group (``DataFrameGroupBy.corrwith``,
        deprecated by pandas 3, which warns as pandas does).

        With a DataFrame, the columns found in only one of the two come after the shared ones as NaN (sorted),
        unless ``drop``. Pearson or Spearman, per group over the rows where both values are present.

        >>> import riptide as rt, warnings
        >>> df = rt.DataFrame({"k": [1, 1, 1, 2, 2, 2], "a": [1.0, 2, 4, 1, 5, 2]})
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     df.groupby("k").corrwith(rt.Series([1.0, 3, 4, 2, 1, 0]))["a"].round(6).tolist()
        [0.928571, -0.240192]
        """
        import warnings

        from riptide.frame.dataframe import DataFrame
        from riptide.frame.series import Series

        if not self._is_frame:
            raise AttributeError("'SeriesGroupBy' object has no attribute 'corrwith'")
        warnings.warn("DataFrameGroupBy.corrwith is deprecated", pd.errors.Pandas4Warning, stacklevel=2)
        _check_corr_method(method)
        if isinstance(other, pd.Series | pd.DataFrame):
            other = (Series if isinstance(other, pd.Series) else DataFrame)(other)
        if not isinstance(other, Series | DataFrame):
            raise TypeError(f"corrwith needs a Series or a DataFrame, got {type(other).__name__}")
        index = self._obj.index
        items = [(label, column) for label, column in self._value_items() if not numeric_only or _is_numeric(column)]
        xp = self._groups.xp
        if self.ngroups == 0:  # pandas: the empty result of apply, the value columns in their own dtypes
            return self._frame({label: column.slice(0, 0) for label, column in items})
        if isinstance(other, Series):
            aligned = other if other.index.equals(index) and len(other) == len(index) else other.reindex(index)
            pairs = [(label, column, aligned._column) for label, column in items]
            labels = [label for label, _ in items]
        else:
            own = dict(items)
            theirs = other._data
            if numeric_only:
                theirs = {label: column for label, column in theirs.items() if _is_numeric(column)}
            shared = [label for label in own if label in theirs]
            aligned = other if other.index.equals(index) and len(other) == len(index) else other.reindex(index)
            pairs = [(label, own[label], aligned._data[label]) for label in shared]
            labels = list(shared)
            if not drop:
                rest = [label for label in list(own) + [x for x in theirs if x not in own] if label not in shared]
                try:
                    rest = sorted(rest)  # pandas appends them in the union's (sorted) order
                except TypeError:
                    pass
                labels += rest
        results: dict[Hashable, Column] = {}
        for label, column, partner in pairs:
            x, x_valid = _numeric_values(column, label)
            y, y_valid = _numeric_values(partner, label)
            results[label] = NumericColumn(_correlation(x, x_valid, y, y_valid, self._groups, method, 1))
        nothing = NumericColumn(xp.full(self.ngroups, np.nan))
        return self._frame({label: results.get(label, nothing) for label in labels})

    def _series_corr(self, other: Any, method: str = "pearson", min_periods: int | None = None) -> Any:
        _check_corr_method(method)
        return self._series_moments(other, "corr", method, min_periods, 1)

    def _series_cov(self, other: Any, min_periods: int | None = None, ddof: int | None = 1) -> Any:
        return self._series_moments(other, "cov", "pearson", min_periods, 1 if ddof is None else ddof)

    def _frame_corr(self, method: Any = "pearson", min_periods: int = 1, numeric_only: bool = False) -> Any:
        _check_corr_method(method)
        return self._frame_moments("corr", method, min_periods, 1, numeric_only)

    def _frame_cov(self, min_periods: int | None = None, ddof: int | None = 1, numeric_only: bool = False) -> Any:
        if any(dtypes.is_datetimelike(c.dtype) for _, c in self._value_items()):
            raise TypeError("DataFrame contains columns with dtype datetime64 or timedelta64, which are not "
                            "supported for cov.")  # fmt: skip
        return self._frame_moments("cov", "pearson", min_periods, 1 if ddof is None else ddof, numeric_only)

    def _series_moments(self, other: Any, kind: str, method: str, min_periods: int | None, ddof: int) -> Any:
        """corr / cov of the grouped Series with ``other`` (aligned on the index), one value per group."""
        from riptide.frame.series import Series

        if isinstance(other, pd.Series):
            other = Series(other)
        if not isinstance(other, Series):
            raise TypeError(f"{kind} needs another Series, got {type(other).__name__}")
        obj = self._obj
        if not other.index.equals(obj.index) or len(other) != len(obj):
            other = other.reindex(obj.index)
        x, x_valid = _numeric_values(obj._column, obj.name)
        y, y_valid = _numeric_values(other._column, other.name)
        minimum = 1 if min_periods is None else min_periods
        if self.ngroups == 0:  # pandas: the empty result of apply, in the Series' own dtype
            return Series._from_column(obj._column.slice(0, 0), self._result_index(), obj.name)
        if kind == "corr":
            values = _correlation(x, x_valid, y, y_valid, self._groups, method, minimum)
        else:
            values = _covariance(x, x_valid, y, y_valid, self._groups, minimum, ddof)
        return Series._from_column(NumericColumn(values), self._result_index(), obj.name)

    def _frame_moments(self, kind: str, method: str, min_periods: int | None, ddof: int, numeric_only: bool) -> Any:
        """corr / cov between every pair of value columns, per group: a (keys..., label) x label frame."""
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.index import Index

        minimum = 1 if min_periods is None else min_periods
        items = []
        for label, column in self._value_items():
            if numeric_only and not _is_numeric(column):
                continue
            items.append((label, *_float_values(column, label)))
        xp = self._groups.xp
        groups = self._groups
        n_groups = groups.n_groups
        labels = [label for label, _, _ in items]
        width = len(labels)
        finite = [present & xp.isfinite(values) for _, values, present in items]
        if kind == "cov":
            # pandas: a group without a missing value gets NumPy's cov (ddof honoured, inf propagates); a group
            # with one gets the pairwise-complete kernel (non-finite values left out, ddof fixed at 1).
            any_missing = _reduce_flags([~present for _, _, present in items], "or") if items else None
            has_missing = _any_per_group(any_missing, groups) if items else xp.zeros(n_groups, dtype=bool)
            row_mode = xp.concatenate([has_missing, xp.zeros(1, dtype=bool)])[xp.where(groups.ids < 0, n_groups,
                                                                                          groups.ids)]  # fmt: skip
            valid = [xp.where(row_mode, f, True) for f in finite]
            ddof_per_group = xp.where(has_missing, 1, ddof)
        else:
            valid = finite
            ddof_per_group = None
        cache: dict[int, tuple[Any, Any, Any]] = {}
        complete = [bool(v.all()) for v in valid]  # one scalar read per column: shared moments when complete
        results: dict[tuple[int, int], Any] = {}
        for i in range(width):
            for j in range(i, width):
                x, y = items[i][1], items[j][1]
                if kind == "corr":
                    results[(i, j)] = _correlation(x, valid[i], y, valid[j], groups, method, minimum,
                                                   cache=cache if complete[i] and complete[j] else None, pair=(i, j))
                else:
                    results[(i, j)] = _covariance(x, valid[i], y, valid[j], groups, minimum, ddof_per_group,
                                                  cache=cache if complete[i] and complete[j] else None, pair=(i, j))
        columns: dict[Hashable, Column] = {}
        for j, label in enumerate(labels):
            # row g * width + i of column j holds the (i, j) value of group g
            stacked = xp.stack([results[(min(i, j), max(i, j))] for i in range(width)], axis=1)
            columns[label] = NumericColumn(stacked.reshape(-1))
        group_of_row = xp.repeat(xp.arange(n_groups, dtype=np.int64), width)
        label_column = as_column(pd.Index(labels) if labels else pd.Index([], dtype="float64"), xp=xp)
        label_of_row = label_column.take(xp.tile(xp.arange(width, dtype=np.int64), n_groups))
        if not self._as_index:
            return DataFrame._from_columns(columns, Index._from_column(label_of_row, None))
        if n_groups == 0:  # pandas: the empty result of apply (the columns' own dtypes), indexed by the group keys
            originals = dict(self._value_items())
            return DataFrame._from_columns({label: originals[label].slice(0, 0) for label in labels},
                                           self._result_index())  # fmt: skip
        from riptide.frame.multi_index import MultiIndex

        levels = [values.take(group_of_row) for values in self._grouping[1]] + [label_of_row]
        index = MultiIndex._from_columns(levels, list(self._keys.names) + [None])
        return DataFrame._from_columns(columns, index)

    # --- windows ----------------------------------------------------------------------------------------------
    def rolling(self, window: Any, min_periods: int | None = None, center: bool = False, win_type: str | None = None,
                on: Any = None, closed: str | None = None, method: str = "single") -> Any:  # fmt: skip
        """Rolling windows within each group (:class:`riptide.frame.window.RollingGroupby`).

        >>> import riptide as rt
        >>> df = rt.DataFrame({"k": ["a", "a", "b", "a"], "v": [1.0, 2.0, 3.0, 4.0]})
        >>> df.groupby("k").v.rolling(2).sum().tolist()
        [nan, 3.0, 6.0, nan]
        """
        return _window_groupby(self, "rolling", (window,), dict(min_periods=min_periods, center=center,
                               win_type=win_type, on=on, closed=closed, method=method))  # fmt: skip

    def expanding(self, min_periods: int = 1, method: str = "single") -> Any:
        """Expanding windows within each group (:class:`riptide.frame.window.ExpandingGroupby`)."""
        return _window_groupby(self, "expanding", (), dict(min_periods=min_periods, method=method))

    def ewm(self, com: float | None = None, span: float | None = None, halflife: Any = None,
            alpha: float | None = None, min_periods: int | None = 0, adjust: bool = True, ignore_na: bool = False,
            times: Any = None, method: str = "single") -> Any:  # fmt: skip
        """Exponentially weighted windows within each group (:func:`riptide.frame.ewm.grouped_ewm`).

        >>> import riptide as rt
        >>> df = rt.DataFrame({"k": ["a", "a", "b", "a"], "v": [1.0, 2.0, 3.0, 4.0]})
        >>> [round(x, 4) for x in df.groupby("k").v.ewm(alpha=0.5).mean().tolist()]
        [1.0, 1.6667, 3.0, 3.0]
        """
        from riptide.frame.ewm import grouped_ewm

        return grouped_ewm(self, com=com, span=span, halflife=halflife, alpha=alpha, min_periods=min_periods,
                           adjust=adjust, ignore_na=ignore_na, times=times, method=method)  # fmt: skip


# --- scans that need pandas' operator semantics ---------------------------------------------------------------------


def _check_periods(periods: Any) -> None:
    if not isinstance(periods, int | np.integer) or isinstance(periods, bool):
        raise TypeError(f"Periods must be integer, but {periods} is {type(periods)}.")


def _diff(column: Column, seg: Segments, periods: int) -> Column:
    """``column - column.shift(periods)`` within groups, as pandas computes it: int8/int16 as float32, other
    ints (and bools) against the float64 shift, so the difference is a float and never wraps."""
    from riptide.core.ops.binary import binary_op
    from riptide.core.ops.cast import astype

    if isinstance(column, StringColumn):
        raise TypeError("operation 'sub' not supported for dtype 'str' with dtype 'str'")
    if isinstance(column, CategoricalColumn):
        raise TypeError("unsupported operand type(s) for -: 'Categorical' and 'Categorical'")
    if column.dtype == pd.BooleanDtype():
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` "
                        "operator, or the logical_xor function instead.")  # fmt: skip
    if isinstance(column.dtype, np.dtype) and column.dtype.kind == "b":
        if periods == 0 or column.size == 0:  # nothing vacated: pandas subtracts two bool arrays, which NumPy refuses
            raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the "
                            "`^` operator, or the logical_xor function instead.")  # fmt: skip
        column = astype(column, np.float64)  # pandas: an object column of ints; riptide: float64 (no objects)
    if isinstance(column.dtype, np.dtype) and column.dtype in (np.dtype(np.int8), np.dtype(np.int16)):
        column = astype(column, np.float32)
    shifted = group_scan.shift(column, seg, periods)
    return binary_op(column, shifted, "sub")


def _pct_change(column: Column, seg: Segments, periods: int) -> Column:
    from riptide.core.ops.binary import binary_op

    if not isinstance(column, NumericColumn) or dtypes.is_datetimelike(column.dtype) and column.dtype.kind == "M":
        raise TypeError(f"pct_change is not supported for dtype {column.dtype}")
    if dtypes.to_numpy_dtype(column.dtype).kind == "b":
        raise TypeError(f"pct_change is not supported for dtype {column.dtype}")
    filled = group_scan.mark_dropped(column, seg)  # pandas divides the ffill(limit=0) copy: no-group rows missing
    shifted = group_scan.shift(filled, seg, periods)
    return binary_op(binary_op(filled, shifted, "truediv"), 1, "sub")


# --- positions ------------------------------------------------------------------------------------------------------


# head(n) / tail(n) / nth(k) for n, |k| up to this many rows: one scatter pass per row position instead of a sort.
_NEAR_END_ROWS = 8


def _near_end(spec: Any) -> tuple[bool, int, int] | None:
    """A position spec that keeps rows near one end of every group, as ``(from_end, lo, hi)``: the rows whose
    position counted from the group's first row (from its last row when ``from_end``, 0 being the last) is in
    ``lo .. hi-1``, with ``hi <= _NEAR_END_ROWS``. None for any other spec (it takes the general path).

    >>> _near_end(slice(None, 2)), _near_end(slice(-3, None)), _near_end(-1), _near_end(slice(None, -2))
    ((False, 0, 2), (True, 0, 3), (True, 0, 1), None)
    """
    if isinstance(spec, int | np.integer) and not isinstance(spec, bool | np.bool_):
        k = int(spec)
        found = (False, k, k + 1) if k >= 0 else (True, -k - 1, -k)
    elif isinstance(spec, slice) and spec.step in (None, 1) and all(
            bound is None or (isinstance(bound, int | np.integer) and not isinstance(bound, bool | np.bool_))
            for bound in (spec.start, spec.stop)):  # fmt: skip
        start, stop = spec.start, spec.stop
        if (start is None or start >= 0) and stop is not None and stop >= 0:
            found = (False, int(start or 0), int(stop))
        elif start is not None and start < 0 and (stop is None or stop < 0):
            found = (True, 0 if stop is None else -int(stop), -int(start))
        else:
            return None
    else:
        return None
    return found if found[2] <= _NEAR_END_ROWS else None


def _rows_near_end(groups: Any, from_end: bool, lo: int, hi: int) -> Any:
    """Positions (ascending: original order) of the rows :func:`_near_end` describes.

    Round ``r`` finds the ``r``-th row of every group as its first (last, from the end) row after (before) the
    one round ``r - 1`` found, by one scatter-min (max) over the rows (:func:`next_rows`). No sort, and nothing
    the length of the rows besides the group numbers: the memory of a head(2) is that of its result.
    """
    from riptide.core.kernels.scatter import next_rows

    xp = groups.xp
    ids, n_groups = groups.ids, groups.n_groups
    n = int(ids.shape[0])
    if hi <= lo or n == 0 or n_groups == 0:
        return xp.zeros(0, dtype=np.int64)
    found, previous = [], None
    for r in range(hi):
        previous = next_rows(ids, n_groups, previous, from_end, xp)
        if r >= lo:
            found.append(previous)
    rows = xp.concatenate(found) if len(found) > 1 else found[0]
    return xp.sort(rows[(rows >= 0) & (rows < n)])


def _position_mask(spec: Any, seg: Segments) -> Any:
    """Rows (original order) whose position in their group matches ``spec``: an int (negative counts from the
    end), a slice (Python's slicing of the group's rows), or a list / tuple of them."""
    xp = seg.xp
    position = group_scan.cumcount(seg, True)
    size = seg.scatter(seg.row_sizes)
    kept = ~seg.dropped_rows
    return _match_positions(spec, position, size, xp) & kept


def _match_positions(spec: Any, position: Any, size: Any, xp: Any) -> Any:
    if isinstance(spec, int | np.integer) and not isinstance(spec, bool):
        n = int(spec)
        return position == (n if n >= 0 else size + n)
    if isinstance(spec, slice):
        return _slice_mask(spec, position, size, xp)
    if isinstance(spec, list | tuple | range | np.ndarray):
        mask = xp.zeros(position.shape[0], dtype=bool)
        for item in spec:
            if isinstance(item, slice) and not isinstance(spec, tuple):
                raise TypeError(f"Invalid index {type(spec)}. Must be integer, list-like, slice or a tuple of "
                                "integers and slices")  # fmt: skip
            mask |= _match_positions(item.item() if isinstance(item, np.generic) else item, position, size, xp)
        return mask
    raise TypeError(f"Invalid index {type(spec)}. Must be integer, list-like, slice or a tuple of integers and "
                    "slices")  # fmt: skip


def _slice_mask(spec: slice, position: Any, size: Any, xp: Any) -> Any:
    """Rows whose position p satisfies ``p in range(size)[spec]`` (per group size), with a positive step."""
    step = 1 if spec.step is None else spec.step
    if step < 0:
        raise ValueError(f"Invalid step {step}. Must be non-negative")
    if step == 0:
        raise ValueError("slice step cannot be zero")
    for bound in (spec.start, spec.stop):
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int | np.integer | float)):
            raise TypeError(f"slice indices must be integers or None, got {type(bound).__name__}")

    def resolve(bound: Any, default: Any) -> Any:
        if bound is None:
            return default
        # Python's slicing: a negative bound counts from the end, and both stay within 0 .. size
        return xp.maximum(size + bound, 0) if bound < 0 else xp.minimum(size, bound)

    start = resolve(spec.start, xp.zeros_like(size))
    stop = resolve(spec.stop, size)
    mask = (position >= start) & (position < stop)
    if step > 1:
        mask &= ((position - start) % step) == 0
    return mask


# --- sampling -----------------------------------------------------------------------------------------------------

#: pandas' errors for a group, in the order pandas checks them (its weights, then NumPy's ``RandomState.choice``).
_SAMPLE_ERRORS = ("Invalid weights: weights sum to zero",
                  "Weighted sampling cannot be achieved with replace=False. Either set replace=True or use smaller "
                  "weights. See the docstring of sample for details.",
                  "a must be greater than 0 unless no samples are taken",
                  "Cannot take a larger sample than population when 'replace=False'")  # fmt: skip


def _check_sample(sizes: Any, take: Any, weighted: Any, seg: Segments, replace: bool) -> None:
    """Raise pandas' ValueError for the first group (in group order) that cannot give its sample."""
    from riptide.core.kernels.scatter import scatter_add, scatter_max

    xp = seg.xp
    n_groups = seg.n_groups
    errors = []
    if weighted is not None:
        totals = xp.zeros(n_groups + 1, dtype=np.float64)
        scatter_add(totals, seg.ids, weighted, xp)
        largest = xp.zeros(n_groups + 1, dtype=np.float64)
        scatter_max(largest, seg.ids, weighted, xp)
        totals, largest = totals[:n_groups], largest[:n_groups]
        errors.append(totals == 0)
        with np.errstate(all="ignore"):
            errors.append((take * (largest / totals) > 1) if not replace else xp.zeros(n_groups, dtype=bool))
    else:
        errors += [xp.zeros(n_groups, dtype=bool)] * 2
    errors.append((sizes == 0) & (take > 0))
    errors.append((take > sizes) if not replace else xp.zeros(n_groups, dtype=bool))
    failing = errors[0] | errors[1] | errors[2] | errors[3]
    if n_groups and bool(failing.any()):  # one scalar read: pandas refuses the sample
        first = int(xp.argmax(failing))  # one scalar read (error path): the first failing group names the error
        for message, flags in zip(_SAMPLE_ERRORS, errors, strict=True):
            if bool(flags[first]):  # scalar reads on the error path only
                raise ValueError(message)


def _uniform(rs: Any, count: int, xp: Any) -> Any:
    """``count`` uniform numbers in [0, 1) from pandas' reading of ``random_state`` (drawn on the host)."""
    return xp.asarray(rs.random(count)) if count else xp.zeros(0, dtype=np.float64)


def _sample_without_replacement(seg: Segments, take: Any, weighted: Any, rs: Any) -> Any:
    """Row positions: each group's ``take`` rows of largest random key, group by group, best key first."""
    from riptide.core.kernels.sort import lexsort

    xp = seg.xp
    u = _uniform(rs, seg.n, xp)
    if weighted is None:
        keys = u
    else:
        with np.errstate(all="ignore"):  # a zero weight makes -inf: never drawn before a row of positive weight
            keys = xp.log(u) / weighted
    # sorted rows are already grouped: order each group's rows by descending key, keeping the groups together
    order = lexsort([seg.ids, -keys], xp)
    position = seg.position  # the groups' starts do not move: position within the group after the sort
    chosen = seg.kept & (position < xp.concatenate([take, xp.zeros(1, dtype=np.int64)])[seg.ids])
    return seg.order[order[chosen]]


def _sample_with_replacement(seg: Segments, take: Any, weighted: Any, rs: Any) -> Any:
    """Row positions: ``take`` independent draws per group, group by group."""
    xp = seg.xp
    offsets = exclusive_cumsum(take, xp)
    group = row_of_each_element(offsets, xp)  # the group of each drawn row
    u = _uniform(rs, int(group.shape[0]), xp)
    starts, sizes = seg.starts[group], seg.sizes[group]
    if weighted is None:
        pick = xp.minimum((u * sizes).astype(np.int64), sizes - 1)
        return seg.order[starts + pick]
    # weighted: the first row of the group whose running weight exceeds u * (the group's total weight)
    running = group_scan.segmented_scan("add", xp.where(seg.ids < seg.n_groups, weighted, 0.0), seg)
    last_positive = xp.full(seg.n_groups + 1, -1, dtype=np.int64)
    from riptide.core.kernels.scatter import scatter_max

    scatter_max(last_positive, xp.where(weighted > 0, seg.ids, seg.n_groups), xp.arange(seg.n, dtype=np.int64), xp)
    low, high = starts, last_positive[group]
    target = u * running[xp.maximum(starts + sizes - 1, 0)]
    for _ in range(max(int(seg.max_size), 1).bit_length()):  # bisection: log2(largest group) elementwise passes
        middle = (low + high) // 2
        right = running[middle] <= target
        low = xp.where(right & (low < high), middle + 1, low)
        high = xp.where(~right & (low < high), middle, high)
    return seg.order[low]


# --- corr / cov kernels -------------------------------------------------------------------------------------------


def _check_corr_method(method: Any) -> None:
    if callable(method) or method == "kendall":
        raise NotImplementedError(f"groupby corr with method={method!r} is not supported; use 'pearson' or "
                                  "'spearman'")  # fmt: skip
    if method not in ("pearson", "spearman"):
        raise ValueError("method must be either 'pearson', 'spearman', 'kendall', or a callable, "
                         f"'{method}' was supplied")  # fmt: skip


def _numeric_values(column: Column, label: Any) -> tuple[Any, Any]:
    """A column's values as they are stored (any numeric dtype, read as float64 by the moments) and a bool
    "present" flag per row, None when no row can be missing: no copy of the values (refusing what pandas cannot
    make a float)."""
    if isinstance(column, StringColumn | CategoricalColumn):
        raise ValueError(f"could not convert column {label!r} of dtype {column.dtype} to float; pass "
                         "numeric_only=True to leave it out")  # fmt: skip
    assert isinstance(column, NumericColumn)
    if dtypes.is_datetimelike(column.dtype):
        raise TypeError(f"cannot correlate column {label!r} of dtype {column.dtype}; convert it to numbers first")
    return column.data, (~column.isna() if column.can_hold_missing() else None)


def _float_values(column: Column, label: Any) -> tuple[Any, Any]:
    """A column as float64 values (NaN where missing) and a bool "present" flag per row; a float64 column without
    a mask is its own values (NaN marks its missing rows already)."""
    values, present = _numeric_values(column, label)
    xp = column.xp
    if present is None:
        return values.astype(np.float64), xp.ones(column.size, dtype=bool)
    if column.mask is None and values.dtype == np.float64:
        return values, present
    return xp.where(present, values, np.nan), present


def _moments(x: Any, x_valid: Any, y: Any, y_valid: Any, groups: Any, cache: dict | None, pair: tuple[int, int]
             ) -> tuple[Any, Any, Any, Any]:  # fmt: skip
    """(count, sxx, syy, sxy) per group; with a cache, columns without missing rows share their own moments."""
    if cache is None:
        return group_scan.pair_moments(x, x_valid, y, y_valid, groups)
    from riptide.core.kernels.scatter import scatter_add

    xp = groups.xp
    n_groups = groups.n_groups
    slot = xp.where(groups.ids < 0, n_groups, groups.ids)

    def own(k: int, values: Any) -> tuple[Any, Any, Any]:
        if k not in cache:
            counts = xp.bincount(slot, minlength=n_groups + 1).astype(np.float64)[:n_groups] if slot.shape[0] else (
                xp.zeros(n_groups))  # fmt: skip
            sums = xp.zeros(n_groups + 1)
            scatter_add(sums, slot, values, xp)
            with np.errstate(all="ignore"):
                mean = sums[:n_groups] / counts
            deviation = values - xp.concatenate([mean, xp.zeros(1)])[slot]
            squares = xp.zeros(n_groups + 1)
            scatter_add(squares, slot, deviation * deviation, xp)
            cache[k] = (counts, deviation, squares[:n_groups])
        return cache[k]

    i, j = pair
    counts, dx, sxx = own(i, x)
    _, dy, syy = own(j, y)
    if i == j:
        return counts, sxx, syy, sxx
    products = xp.zeros(n_groups + 1)
    scatter_add(products, slot, dx * dy, xp)
    return counts, sxx, syy, products[:n_groups]


def _correlation(x: Any, x_valid: Any, y: Any, y_valid: Any, groups: Any, method: str, minimum: int,
                 cache: dict | None = None, pair: tuple[int, int] = (0, 1)) -> Any:  # fmt: skip
    xp = groups.xp
    if method == "spearman":
        both = _both_present(x_valid, y_valid, x.shape[0], xp)
        x = _ranks_where(x, both, groups)
        y = _ranks_where(y, both, groups)
        x_valid = y_valid = both
        cache = None
    counts, sxx, syy, sxy = _moments(x, x_valid, y, y_valid, groups, cache, pair)
    with np.errstate(all="ignore"):
        divisor = xp.sqrt(sxx * syy)
        result = sxy / divisor
    return xp.where((counts < minimum) | (divisor == 0) | (counts == 0), np.nan, result)


def _covariance(x: Any, x_valid: Any, y: Any, y_valid: Any, groups: Any, minimum: int, ddof: Any,
                cache: dict | None = None, pair: tuple[int, int] = (0, 1)) -> Any:  # fmt: skip
    xp = groups.xp
    counts, _, _, sxy = _moments(x, x_valid, y, y_valid, groups, cache, pair)
    with np.errstate(all="ignore"):
        denominator = counts - ddof
        # NumPy's cov: a non-positive denominator is treated as 0 (x/0: inf, 0/0: NaN).
        result = sxy / xp.maximum(denominator, 0)
    return xp.where((counts < minimum) | (counts == 0), np.nan, result)


def _both_present(x_valid: Any, y_valid: Any, n: int, xp: Any) -> Any:
    """Rows where both values are present (a flag of None: every row)."""
    if x_valid is None and y_valid is None:
        return xp.ones(n, dtype=bool)
    if x_valid is None or y_valid is None:
        return y_valid if x_valid is None else x_valid
    return x_valid & y_valid


def _ranks_where(values: Any, rows: Any, groups: Any) -> Any:
    """Average ranks of ``values`` within groups over ``rows`` (NaN elsewhere): spearman's inputs."""
    xp = groups.xp
    column = NumericColumn(xp.where(rows, values, np.nan))
    ranked = group_scan.rank(column, groups, "average", True, "keep", False)
    return ranked.data


def _any_per_group(flags: Any, groups: Any) -> Any:
    xp = groups.xp
    slot = xp.where(flags & (groups.ids >= 0), groups.ids, groups.n_groups)
    if slot.shape[0] == 0:
        return xp.zeros(groups.n_groups, dtype=bool)
    return xp.bincount(slot, minlength=groups.n_groups + 1)[: groups.n_groups] > 0


# --- building results -----------------------------------------------------------------------------------------------


def _is_numeric(column: Column) -> bool:
    return dtypes.is_numeric_or_bool(column.dtype)


def _host(array: Any) -> np.ndarray:
    return _device.to_host(array)


def _reduce_flags(flags: list[Any], how: str) -> Any:
    out = flags[0]
    for f in flags[1:]:
        out = (out | f) if how == "or" else (out & f)
    return out


def _empty_index(xp: Any) -> Any:
    from riptide.frame.index import default_index

    return default_index(0, xp)


def _take_rows(obj: Any, positions: Any) -> Any:
    """Rows at ``positions`` of a Series or DataFrame, labels included."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    index = obj.index.take(positions)
    if isinstance(obj, Series):
        return Series._from_column(obj._column.take(positions), index, obj.name)
    result = DataFrame._from_columns({label: c.take(positions) for label, c in obj._data.items()}, index)
    names = obj._column_axis_names() if hasattr(obj, "_column_axis_names") else None
    if names is not None:
        result._column_names = names
    return result


def _slice_rows(obj: Any, start: int, stop: int) -> Any:
    """Rows ``start:stop`` (a view where the layout allows)."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    index = obj.index._slice(start, stop, 1)
    if isinstance(obj, Series):
        return Series._from_column(obj._column.slice(start, stop), index, obj.name)
    return DataFrame._from_columns({label: c.slice(start, stop) for label, c in obj._data.items()}, index)


def _with_index(obj: Any, index: Any) -> Any:
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    if isinstance(obj, Series):
        return Series._from_column(obj._column, index, obj.name)
    return DataFrame._from_columns(obj._data, index)


def _series_callable(func: Callable, is_frame: bool, args: tuple, kwargs: dict) -> Callable:
    """``func`` to call on a Series group: a NumPy reduction becomes the Series method NumPy would call."""
    if is_frame or args or kwargs or func not in _SERIES_METHOD_OF:
        return func
    name, options = _SERIES_METHOD_OF[func]
    return lambda group: getattr(group, name)(**options)


def _as_riptide(value: Any) -> Any:
    """pandas results (a user function may build them) as riptide objects; anything else unchanged."""
    if isinstance(value, pd.DataFrame):
        from riptide.frame.dataframe import DataFrame

        return DataFrame(value)
    if isinstance(value, pd.Series):
        from riptide.frame.series import Series

        return Series(value)
    return value


def _indexed_like(result: Any, group: Any) -> bool:
    """pandas' test for a transform-like apply result: same index as the group (a Series only for a Series)."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    if isinstance(result, Series):
        return isinstance(group, Series) and result.index.equals(group.index) and len(result) == len(group)
    if isinstance(result, DataFrame):
        return result.index.equals(group.index) and len(result) == len(group)
    return False


def _squeeze(value: Any) -> Any:
    """A one-element Series / DataFrame as its scalar (pandas' squeeze), anything else unchanged."""
    if hasattr(value, "_data") and value.shape == (1, 1):
        return next(iter(value.items()))[1].iloc[0]
    if hasattr(value, "_column") and len(value) == 1:
        return value.iloc[0]
    return value


def _is_missing(value: Any) -> bool:
    if hasattr(value, "_column") or hasattr(value, "_data"):
        return False
    try:
        return bool(is_scalar(value) and pd.isna(value))
    except (TypeError, ValueError):
        return False


def _selection_name(grouped: Any) -> Any:
    selection = grouped._selection
    if isinstance(selection, list) and len(selection) == 1:
        return selection[0]
    return None


def _scalars_column(values: list[Any], xp: Any) -> Column:
    """One value per group (host scalars from user code) as a column, inferred as pandas infers a list."""
    # 0-d arrays are scalars; a CuPy one (``g.values.sum()`` on the GPU: one scalar read per group) becomes the NumPy
    # scalar of its dtype, as pandas' own result there would be
    values = [v.item() if isinstance(v, np.ndarray) and v.ndim == 0
              else _device.to_host(v)[()] if _device.is_device_array(v) and v.ndim == 0 else v
              for v in values]  # fmt: skip
    try:
        return as_column(pd.Series(values), xp=xp)
    except TypeError as error:
        raise TypeError(f"apply results must be scalars of one kind riptide can hold in a column: {error}") from None


def _series_transform_piece(result: Any, group: Any) -> Column:
    """A transform result for one Series group, as a column aligned with the group's rows."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    n = len(group)
    if isinstance(result, Series):
        if len(result) == n and result.index.equals(group.index):
            return result._column
        return result.reindex(group.index)._column
    if isinstance(result, DataFrame):
        raise TypeError("transform function returned a DataFrame for a Series group; return a Series or a scalar")
    if is_scalar(result):
        return full(n, result, xp=group._column.xp)
    column = as_column(result, xp=group._column.xp)
    if column.size != n:
        raise ValueError(f"transform function returned {column.size} values for a group of {n} rows")
    return column


def _frame_transform_piece(result: Any, group: Any, labels: list[Hashable]) -> dict[Hashable, Column]:
    """A transform result for one DataFrame group as columns aligned with the group's rows."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    n = len(group)
    xp = group.index._namespace
    if isinstance(result, DataFrame):
        if not (len(result) == n and result.index.equals(group.index)):
            result = result.reindex(group.index)
        return dict(result._data)
    if isinstance(result, Series):
        if len(result) == len(labels) and list(result.index.to_pandas()) == list(labels):
            # One value per column (e.g. g.sum()): repeated on every row of the group.
            return {label: result._column.take(xp.full(n, j, dtype=np.int64)) for j, label in enumerate(labels)}
        if len(result) == n and result.index.equals(group.index):
            return {label: result._column for label in labels}
        raise ValueError("transform function returned a Series indexed neither like the group's rows nor like its "
                         "columns")  # fmt: skip
    if is_scalar(result):
        return {label: full(n, result, xp=xp) for label in labels}
    raise TypeError(f"transform function returned a {type(result).__name__}; return a DataFrame, a Series or a "
                    "scalar")  # fmt: skip


def _concat_columns(columns: list[Column]) -> Column:
    """Columns one after another, numbers cast to their common dtype first (pandas' concat)."""
    if len(columns) == 1:
        return columns[0]
    from riptide.core.ops.cast import astype, decode_categorical

    if any(isinstance(c, CategoricalColumn) for c in columns) and len({str(c.dtype) for c in columns}) > 1:
        columns = [decode_categorical(c) if isinstance(c, CategoricalColumn) else c for c in columns]
    if all(isinstance(c, NumericColumn) for c in columns):
        kinds = {c.dtype for c in columns}
        if len(kinds) > 1 and not any(dtypes.is_datetimelike(d) for d in kinds):
            common = dtypes.result_type(*kinds)
            columns = [astype(c, common) if c.dtype != common else c for c in columns]
        elif len(kinds) > 1:
            non_empty = {c.dtype for c in columns if c.size}
            if len(non_empty) == 1:
                (only,) = non_empty
                columns = [c if c.dtype == only else full(0, None, only, xp=c.xp) for c in columns]
    try:
        return concat_columns(columns)
    except TypeError as error:
        raise TypeError(f"cannot combine the results into one column: {error} (riptide has no object columns)"
                        ) from None  # fmt: skip


def _concat_indexes(indexes: list[Any]) -> Any:
    from riptide.frame.index import Index

    nlevels = {i.nlevels for i in indexes}
    if len(nlevels) > 1:
        raise ValueError("cannot combine results whose indexes have different numbers of levels")
    if nlevels == {1}:
        names = {i.name for i in indexes}
        return Index._from_column(_concat_columns([i._as_column() for i in indexes]),
                                  next(iter(names)) if len(names) == 1 else None)  # fmt: skip
    from riptide.frame.multi_index import MultiIndex

    levels = [_concat_columns([i._key_columns()[k] for i in indexes]) for k in range(indexes[0].nlevels)]
    names = [n if all(i.names[k] == n for i in indexes) else None for k, n in enumerate(indexes[0].names)]
    return MultiIndex._from_columns(levels, names)


def _concat_objects(objects: list[Any]) -> Any:
    """Series or DataFrames stacked vertically (pandas' concat along rows: columns united in order of appearance,
    a column missing from a piece is missing there)."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    kinds = {type(o) for o in objects}
    if len(kinds) > 1 and not all(isinstance(o, Series | DataFrame) for o in objects):
        bad = next(o for o in objects if not isinstance(o, Series | DataFrame))
        raise TypeError(f"cannot concatenate object of type '{type(bad)}'; only Series and DataFrame objs are valid")
    index = _concat_indexes([o.index for o in objects])
    if all(isinstance(o, Series) for o in objects):
        names = {o.name for o in objects}
        return Series._from_column(_concat_columns([o._column for o in objects]), index,
                                   next(iter(names)) if len(names) == 1 else None)  # fmt: skip
    frames = [o.to_frame() if isinstance(o, Series) else o for o in objects]
    labels: list[Hashable] = []
    for frame in frames:
        labels.extend(label for label in frame._data if label not in labels)
    columns: dict[Hashable, Column] = {}
    for label in labels:
        template = next(f._data[label] for f in frames if label in f._data)
        parts = [f._data[label] if label in f._data else full(len(f), None, template.dtype, xp=template.xp)
                 for f in frames]  # fmt: skip
        columns[label] = _concat_columns(parts)
    return DataFrame._from_columns(columns, index)


def _window_groupby(grouped: Any, kind: str, args: tuple, kwargs: dict) -> Any:
    """Hand ``grouped.rolling(...)`` / ``.expanding(...)`` to the window module's group-aware classes."""
    from riptide.frame import window

    maker = getattr(window, f"grouped_{kind}", None)
    if maker is None:
        raise NotImplementedError(f"groupby().{kind}() needs the windows of riptide.frame.window, which are not "
                                  "available yet")  # fmt: skip
    return maker(grouped, *args, **kwargs)
