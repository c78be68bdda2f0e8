"""Sets of rows and values: duplicated, drop_duplicates, unique, value_counts, mode.

All four group equal rows once with :func:`riptide.core.ops.grouping.group_rows` (missing values equal
to each other, as pandas treats them here) and then read per-group facts: a row is a duplicate when it is
not its group's kept row; ``value_counts`` is the group sizes. Groups are numbered by first appearance,
which is the order pandas reports unique values in and breaks ties between equal counts. ``mode`` groups
with ``sort=True`` instead, so the groups of the largest size are already in pandas' sorted order.

>>> import riptide as rt
>>> s = rt.Series(["b", "a", "b", None])
>>> s.value_counts().to_pandas().to_dict()
{'b': 2, 'a': 1}
>>> s.duplicated().tolist()
[False, False, True, False]
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn
from riptide.core.kernels.scatter import scatter_add, scatter_max
from riptide.core.kernels.sort import stable_argsort
from riptide.core.ops.grouping import Groups, group_rows
from riptide.frame.window import _is_numeric_dtype  # pandas' numeric_only: numbers and bools, not datetimes

__all__ = ["SeriesDuplicatesMethods", "FrameDuplicatesMethods"]

_KEEP = ("first", "last", False)


class SeriesDuplicatesMethods:
    """Mixed into ``Series``."""

    __slots__ = ()

    def duplicated(self, keep: Any = "first") -> Any:
        """True for each value seen before (``keep="first"``), after (``"last"``), or seen more than once (False)."""
        from riptide.frame.series import Series

        return Series._from_column(NumericColumn(_duplicated([self._column], keep)), self.index, self.name)

    def drop_duplicates(self, *, keep: Any = "first", inplace: bool = False, ignore_index: bool = False) -> Any:
        """The Series without repeated values (the first, last, or no occurrence kept).

        >>> import riptide as rt
        >>> rt.Series([3, 1, 3]).drop_duplicates().tolist()
        [3, 1]
        """
        result = self._take(_kept_rows([self._column], keep))
        if ignore_index:
            result = result.reset_index(drop=True)
        return self._finish_inplace(result, inplace)

    def unique(self) -> Any:
        """The distinct values in order of appearance, missing included once.

        A device array for NumPy dtypes (as ``Series.values``), else pandas' array type, as in pandas.

        >>> import riptide as rt
        >>> rt.Series([2, 1, 2]).unique().tolist()
        [2, 1]
        """
        groups = group_rows([self._column], sort=False, dropna=False)
        column = self._column.take(groups.first_rows)
        if isinstance(column, NumericColumn) and not dtypes.is_masked(column.dtype) and column.kind not in "mM":
            return column.data
        values = column.to_pandas_array()
        return pd.array(values) if isinstance(values, np.ndarray) else values  # datetimes: pandas' DatetimeArray

    def value_counts(self, normalize: bool = False, sort: bool = True, ascending: bool = False, bins: Any = None,
                     dropna: bool = True) -> Any:  # fmt: skip
        """How often each distinct value occurs (``normalize=True``: the share of rows), most frequent first.

        >>> import riptide as rt
        >>> rt.Series([1, 2, 2]).value_counts().tolist()
        [2, 1]
        """
        from riptide.frame.index import Index
        from riptide.frame.series import Series

        if bins is not None:
            from riptide.frame.binning import cut

            binned = cut(self, bins, include_lowest=True)
            counted = binned.value_counts(normalize=normalize, sort=sort, ascending=ascending, dropna=dropna)
            counted.index.name = None  # pandas' bins are an unnamed IntervalIndex (here the categorical of them)
            return counted
        values, counts = _counts([self._column], normalize, sort, ascending, dropna)
        index = Index._from_column(values[0], self.name)
        return Series._from_column(counts, index, "proportion" if normalize else "count")

    def mode(self, dropna: bool = True) -> Any:
        """The most frequent value(s), sorted, in a Series with a fresh RangeIndex (missing values count
        with ``dropna=False`` and then sort last).

        >>> import riptide as rt
        >>> rt.Series([3, 1, 3, 1, 2], name="x").mode().tolist()
        [1, 3]
        """
        from riptide.frame.index import default_index
        from riptide.frame.series import Series

        column = _mode_column(self._column, dropna)
        return Series._from_column(column, default_index(column.size, column.xp), self.name)


class FrameDuplicatesMethods:
    """Mixed into ``DataFrame``."""

    __slots__ = ()

    def duplicated(self, subset: Any = None, keep: Any = "first") -> Any:
        """True for each row whose ``subset`` columns repeat an earlier row (``keep="first"``)."""
        from riptide.frame.series import Series

        flags = _duplicated(_subset_columns(self, subset), keep) if self._data else self._xp().zeros(len(self), bool)
        return Series._from_column(NumericColumn(flags), self.index)

    def drop_duplicates(self, subset: Any = None, *, keep: Any = "first", inplace: bool = False,
                        ignore_index: bool = False) -> Any:  # fmt: skip
        """The frame without rows that repeat another row in the ``subset`` columns.

        >>> import riptide as rt
        >>> rt.DataFrame({"a": [1, 1, 2], "b": ["x", "x", "y"]}).drop_duplicates().shape
        (2, 2)
        """
        if not self._data:
            result = self.copy()
        else:
            result = _take_rows(self, _kept_rows(_subset_columns(self, subset), keep))
        if ignore_index:
            result = result.reset_index(drop=True)
        return self._finish_inplace(result, inplace)

    def value_counts(self, subset: Any = None, normalize: bool = False, sort: bool = True, ascending: bool = False,
                     dropna: bool = True) -> Any:  # fmt: skip
        """How often each distinct row occurs, indexed by the rows' values (a MultiIndex, as in pandas)."""
        from riptide.frame.multi_index import MultiIndex
        from riptide.frame.series import Series

        labels = list(self._data) if subset is None else _subset_labels(self, subset)
        values, counts = _counts([self._data[k] for k in labels], normalize, sort, ascending, dropna)
        if subset is not None and not pd.api.types.is_list_like(subset):  # one label: pandas gives a flat Index
            from riptide.frame.index import Index

            index = Index._from_column(values[0], labels[0])
        else:
            index = MultiIndex._from_columns(values, labels)
        return Series._from_column(counts, index, "proportion" if normalize else "count")

    def mode(self, axis: Any = 0, numeric_only: bool = False, dropna: bool = True) -> Any:
        """Each column's most frequent value(s), sorted; a column with fewer modes than the longest list is
        padded with missing values (an int column then becomes float64, as in pandas).

        >>> import riptide as rt
        >>> rt.DataFrame({"a": [1, 1, 2, 2], "b": ["x", "y", "y", "z"]}).mode().to_pandas().to_dict("list")
        {'a': [1, 2], 'b': ['y', nan]}
        """
        from riptide.frame.index import default_index

        if axis not in (0, "index"):
            if axis in (1, "columns"):
                raise NotImplementedError("DataFrame.mode(axis=1) is not supported yet; transpose the frame first")
            raise ValueError(f"No axis named {axis} for object type DataFrame")
        labels = [label for label, column in self._data.items()
                  if not numeric_only or _is_numeric_dtype(column)]  # fmt: skip
        modes = {label: _mode_column(self._data[label], dropna) for label in labels}
        n = max((column.size for column in modes.values()), default=0)
        xp = self._xp()
        positions = xp.arange(n, dtype=np.int64)
        padded = {label: column if column.size == n else column.take_or_missing(xp.where(positions < column.size,
                                                                                         positions, -1))
                  for label, column in modes.items()}  # fmt: skip
        return self._with_columns(padded, default_index(n, xp))


# --- the shared algorithms ------------------------------------------------------------------------------------


def _check_keep(keep: Any) -> None:
    if not any(keep is k or (isinstance(k, str) and keep == k) for k in _KEEP):
        raise ValueError("keep must be either 'first', 'last' or False")


def _duplicated(columns: list[Column], keep: Any) -> Any:
    _check_keep(keep)
    groups = group_rows(columns, sort=False, dropna=False)
    xp = groups.xp
    n = columns[0].size
    if keep is False:
        return groups.sizes()[groups.ids] > 1
    kept = _kept_row_of_each_group(groups, keep, n)
    return kept[groups.ids] != xp.arange(n, dtype=np.int64)


def _kept_row_of_each_group(groups: Groups, keep: Any, n: int) -> Any:
    if keep == "first":
        return groups.first_rows
    xp = groups.xp
    last = xp.full(groups.n_groups, -1, dtype=np.int64)
    scatter_max(last, groups.ids, xp.arange(n, dtype=np.int64), xp)
    return last


def _kept_rows(columns: list[Column], keep: Any) -> Any:
    """Positions of the rows drop_duplicates keeps, in row order."""
    _check_keep(keep)
    if not columns or columns[0].size == 0:
        return (columns[0].xp if columns else np).zeros(0, dtype=np.int64)
    return columns[0].xp.flatnonzero(~_duplicated(columns, keep))


def _counts(columns: list[Column], normalize: bool, sort: bool, ascending: bool,
            dropna: bool) -> tuple[list[Column], Column]:  # fmt: skip
    """The distinct rows (one column per key) and their counts (or shares), in value_counts' order."""
    if len(columns) == 1 and isinstance(columns[0], CategoricalColumn):
        values, counts = _category_counts(columns[0], dropna)
    else:
        groups = group_rows(columns, sort=False, dropna=dropna)
        first_rows, counts = groups.first_rows, groups.sizes()
        if len(columns) == 1 and dtypes.is_masked(columns[0].dtype) and not dropna:
            # pandas counts a masked column's <NA> after its values, whatever row it first appears in.
            order = stable_argsort(columns[0].isna()[first_rows], groups.xp)
            first_rows, counts = first_rows[order], counts[order]
        values = [c.take(first_rows) for c in columns]
    xp = _device.namespace_of(counts)
    if sort:
        order = stable_argsort(counts if ascending else -counts, xp)
        values = [v.take(order) for v in values]
        counts = counts[order]
    if normalize:
        with np.errstate(invalid="ignore", divide="ignore"):
            counts = counts / counts.sum()
    if len(columns) == 1 and dtypes.is_masked(columns[0].dtype):  # pandas counts a masked column in a masked dtype
        dtype = pd.Float64Dtype() if normalize else pd.Int64Dtype()
        return values, NumericColumn(counts, dtype=dtype, mask=xp.ones(counts.shape[0], dtype=bool))
    return values, NumericColumn(counts)


def _category_counts(column: CategoricalColumn, dropna: bool) -> tuple[list[Column], Any]:
    """Every category counts, observed or not, in category order; missing last."""
    xp = column.xp
    n_categories = len(column.dtype.categories)
    codes = column.codes.astype(np.int64)
    counts = xp.zeros(n_categories + 1, dtype=np.int64)
    scatter_add(counts, xp.where(codes < 0, n_categories, codes), xp.ones(codes.shape[0], dtype=np.int64), xp)
    slots = xp.arange(n_categories + 1, dtype=np.int64)
    if dropna or not bool(counts[n_categories] > 0):  # one scalar read: whether a missing row is there to count
        counts, slots = counts[:n_categories], slots[:n_categories]
    values = CategoricalColumn(xp.where(slots == n_categories, -1, slots).astype(column.codes.dtype),
                               column.categories, ordered=column.dtype.ordered)  # fmt: skip
    return [values], counts


def _mode_column(column: Column, dropna: bool) -> Column:
    """The values occurring most often, in sorted order, via one sorted grouping (a missing value, counted with
    ``dropna=False``, sorts last, but first for categoricals and datetimes as in pandas)."""
    xp = column.xp
    if column.size == 0:
        return column.take(xp.zeros(0, dtype=np.int64))
    groups = group_rows([column], sort=True, dropna=bool(dropna))
    if groups.n_groups == 0:  # every value missing and dropped
        return column.take(xp.zeros(0, dtype=np.int64))
    sizes = groups.sizes()
    modes = column.take(groups.first_rows[xp.flatnonzero(sizes == sizes.max())])
    if not dropna and (isinstance(column, CategoricalColumn) or dtypes.is_datetimelike(column.dtype)):
        # pandas sorts these by their codes / ticks, where the missing marker (-1, NaT) is the smallest: first
        modes = modes.take(stable_argsort(modes.notna().astype(np.int8), xp))
    return modes


def _take_rows(frame: Any, positions: Any) -> Any:
    from riptide.frame import indexing

    return frame._select_rows(indexing.RowSelection(positions=positions))


def _subset_labels(frame: Any, subset: Any) -> list[Hashable]:
    if subset is None:
        return list(frame._data)
    labels = [subset] if isinstance(subset, str) or not isinstance(subset, list | tuple) else list(subset)
    missing = [label for label in labels if label not in frame._data]
    if missing:
        raise KeyError(f"Index({missing!r}, dtype='str')" if all(isinstance(m, str) for m in missing) else missing)
    return labels


def _subset_columns(frame: Any, subset: Any) -> list[Column]:
    return [frame._data[label] for label in _subset_labels(frame, subset)]
