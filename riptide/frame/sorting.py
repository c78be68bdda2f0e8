"""Sorting: sort_values, sort_index, argsort, nlargest, nsmallest and rank of Series and DataFrame.

The methods live on mixins that ``Series`` and ``DataFrame`` inherit, so this capability stays in one module.
They validate their arguments the way pandas does (same exception types, messages naming the argument),
turn labels into key columns, and hand the work to :mod:`riptide.core.ops.sorting`, where every sort is a
stable sort on the device.

**riptide always sorts stably.** pandas' default ``kind="quicksort"`` may put equal values in any order;
riptide accepts every ``kind`` pandas accepts and always keeps tied rows in their original order (also
when sorting in descending order, as pandas' ``kind="stable"`` does). The result equals pandas' with
``kind="stable"``.

Deliberate differences from pandas 3.1, each where pandas' own answer is accidental:

* ``DataFrame.nlargest`` / ``nsmallest`` over several columns return ``n`` rows even when a leading column
  has missing values at the border (pandas can return more rows, or none for masked dtypes): missing
  values tie with each other and later columns break the tie.
* ``rank`` of a DataFrame ranks each column exactly in its own dtype (pandas ranks a mix of int and float
  columns as float64, tying integers beyond 2**53). Across columns (``axis=1``) riptide compares values in
  the columns' common dtype, where pandas compares Python objects when a column is masked (the same
  ranks, except for integers beyond 2**53 next to floats).
* ``sort_index(ascending=[False])`` on a flat index sorts descending (pandas reads the list as "true").
* ``inplace=True`` does not warn (pandas 3.1 deprecates it with a ``Pandas4Warning``).

Sorting the columns (``sort_index(axis=1)``, ``sort_values(axis=1)``) works on host metadata: the column
labels, or the few rows named by ``by``, are ordered by pandas itself, so a ``key`` there receives pandas
objects; everywhere else ``key`` receives a riptide Series (or Index), as pandas hands it its own.

>>> import riptide as rt
>>> s = rt.Series([3, 1, None, 2], index=["a", "b", "c", "d"])
>>> s.sort_values(ascending=False).index.tolist()
['a', 'd', 'b', 'c']
>>> s.rank().tolist()
[3.0, 1.0, nan, 2.0]
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn, as_column, concat_columns
from riptide.core.ops import cast
from riptide.core.ops.sorting import (
    RANK_METHODS,
    argsort_columns,
    rank_column,
    select_top,
    sort_column,
    sort_digits,
)
from riptide.frame.index import Index, RangeIndex, default_index
from riptide.frame.indexing import take_composing, take_index_composing

__all__ = ["SeriesSortingMethods", "FrameSortingMethods", "searchsorted"]

_KEEP_OPTIONS = ("first", "last", "all")
_NA_OPTIONS = ("keep", "top", "bottom")


class SeriesSortingMethods:
    """Mixed into ``Series``: sort_values, sort_index, argsort, nlargest, nsmallest, rank."""

    __slots__ = ()

    def sort_values(self, *, axis: Any = 0, ascending: Any = True, inplace: bool = False, kind: str = "quicksort",
                    na_position: str = "last", ignore_index: bool = False, key: Any = None) -> Any:  # fmt: skip
        """The Series sorted by its values (a stable sort: equal values keep their order).

        ``na_position`` puts NaN / null / NaT first or last; ``key`` maps the Series before sorting;
        categoricals sort in category order, strings by code point.

        >>> import riptide as rt
        >>> rt.Series([2, None, 1, 2]).sort_values(na_position="first").tolist()
        [nan, 1.0, 2.0, 2.0]
        """
        _series_axis(axis)
        ascending = _series_ascending(ascending)
        _check_kind(kind)
        _check_na_position(na_position)
        if key is None:
            order, ordered = sort_column(self._column, ascending, na_position)  # the sort yields the values too
            return _finish_series(self, order, None, ignore_index, inplace, ordered)
        order = argsort_columns([_key_mapped(key, self, self._column)], [ascending], na_position)
        return _finish_series(self, order, None, ignore_index, inplace)

    def sort_index(self, *, axis: Any = 0, level: Any = None, ascending: Any = True, inplace: bool = False,
                   kind: str = "quicksort", na_position: str = "last", sort_remaining: bool = True,
                   ignore_index: bool = False, key: Any = None) -> Any:  # fmt: skip
        """The Series sorted by its index labels (per level, for a MultiIndex).

        >>> import riptide as rt
        >>> rt.Series([1, 2, 3], index=["b", "c", "a"]).sort_index().tolist()
        [3, 1, 2]
        """
        _series_axis(axis)
        _check_kind(kind)
        _check_na_position(na_position)
        order, index = _index_order(self._index, level, ascending, na_position, sort_remaining, key)
        return _finish_series(self, order, index, ignore_index, inplace)

    def argsort(self, axis: Any = 0, kind: str = "quicksort", order: Any = None, stable: Any = None) -> Any:
        """Positions that sort the values (missing values last), labelled like the Series.

        >>> import riptide as rt
        >>> rt.Series([3.0, None, 1.0]).argsort().tolist()
        [2, 0, 1]
        """
        from riptide.frame.series import Series

        _series_axis(axis)
        _check_kind(kind)
        positions = argsort_columns([self._column], [True], "last")
        return Series._from_column(NumericColumn(positions), self._index, self.name)

    def nlargest(self, n: int = 5, keep: str = "first") -> Any:
        """The ``n`` largest values, largest first (``keep`` says which of tied values to take).

        >>> import riptide as rt
        >>> rt.Series([1, 5, 3, 5], index=list("abcd")).nlargest(2, keep="last").index.tolist()
        ['d', 'b']
        """
        return _series_top(self, n, keep, largest=True)

    def nsmallest(self, n: int = 5, keep: str = "first") -> Any:
        """The ``n`` smallest values, smallest first (``keep`` says which of tied values to take).

        >>> import riptide as rt
        >>> rt.Series([4, 1, None, 1]).nsmallest(3).tolist()
        [1.0, 1.0, 4.0]
        """
        return _series_top(self, n, keep, largest=False)

    def rank(self, axis: Any = 0, method: str = "average", numeric_only: bool = False, na_option: str = "keep",
             ascending: bool = True, pct: bool = False) -> Any:  # fmt: skip
        """Rank of each value (1 = smallest), ties resolved by ``method``.

        float64 like pandas; masked dtypes give ``Float64`` (average or ``pct``) or ``UInt64`` ranks.

        >>> import riptide as rt
        >>> rt.Series([10, 30, 20, 30]).rank(method="min").tolist()
        [1.0, 3.0, 2.0, 3.0]
        """
        from riptide.frame.series import Series

        _series_axis(axis)
        _check_rank_options(method, na_option)
        if numeric_only and not _is_numeric(self._column):
            raise TypeError("Series.rank does not allow numeric_only=True with non-numeric dtype.")
        ranks, missing = rank_column(self._column, method, bool(ascending), na_option, bool(pct))
        if dtypes.is_masked(self.dtype):
            mask = None if missing is None else ~missing
            if method == "average" or pct:
                column = NumericColumn(ranks.astype(np.float64, copy=False), pd.Float64Dtype(), mask)
            else:
                column = NumericColumn(ranks.astype(np.uint64), pd.UInt64Dtype(), mask)
        else:
            column = _float_ranks(ranks, missing)
        return Series._from_column(column, self._index, self.name)


    def searchsorted(self, value: Any, side: str = "left", sorter: Any = None) -> Any:
        """Positions where ``value`` (a scalar or list-like) would be inserted to keep this sorted Series sorted:
        an integer for a scalar, else an integer array on the Series' device.

        >>> import riptide as rt
        >>> s = rt.Series(["b", "d", "f"])
        >>> int(s.searchsorted("d")), s.searchsorted(["a", "d", "z"], side="right").tolist()
        (1, [0, 2, 3])
        """
        return searchsorted(self._column, value, side, sorter)


class FrameSortingMethods:
    """Mixed into ``DataFrame``: sort_values, sort_index, nlargest, nsmallest, rank."""

    __slots__ = ()

    def sort_values(self, by: Any, *, axis: Any = 0, ascending: Any = True, inplace: bool = False,
                    kind: str = "quicksort", na_position: str = "last", ignore_index: bool = False,
                    key: Any = None) -> Any:  # fmt: skip
        """Rows sorted by the columns (or index levels) ``by``, stably; ``ascending`` may be one bool per key.

        >>> import riptide as rt
        >>> df = rt.DataFrame({"a": [2, 1, 2], "b": ["x", "y", "z"]})
        >>> df.sort_values(["a", "b"], ascending=[True, False])["b"].tolist()
        ['y', 'z', 'x']
        """
        axis = _frame_axis(axis)
        labels = list(by) if isinstance(by, list) else [by]  # a tuple is one label, as in pandas
        _check_kind(kind)
        _check_na_position(na_position)
        ascending = _ascending_list(ascending, len(labels))
        if axis == 1:
            return _sort_columns_by_rows(self, labels, ascending, kind, na_position, ignore_index, key, inplace)
        if not labels:
            return _finish_frame(self, None, None, ignore_index, inplace)
        columns = [_key_mapped(key, self, _by_column(self, label), label) for label in labels]
        if len(labels) == 1 and key is None and labels[0] in self._data:
            order, ordered = sort_column(columns[0], ascending[0], na_position)
            return _finish_frame(self, order, None, ignore_index, inplace, {labels[0]: ordered})
        order = argsort_columns(columns, ascending, na_position)
        return _finish_frame(self, order, None, ignore_index, inplace)

    def sort_index(self, *, axis: Any = 0, level: Any = None, ascending: Any = True, inplace: bool = False,
                   kind: str = "quicksort", na_position: str = "last", sort_remaining: bool = True,
                   ignore_index: bool = False, key: Any = None) -> Any:  # fmt: skip
        """Rows sorted by the index labels (``axis=1``: columns sorted by their labels).

        >>> import riptide as rt
        >>> rt.DataFrame({"v": [1, 2, 3]}, index=[3, 1, 2]).sort_index()["v"].tolist()
        [2, 3, 1]
        """
        axis = _frame_axis(axis)
        _check_kind(kind)
        _check_na_position(na_position)
        if axis == 1:
            labels = pd.Series(np.arange(len(self._data)), index=self.columns)
            ordered = labels.sort_index(level=level, ascending=ascending, kind=kind, na_position=na_position,
                                        sort_remaining=sort_remaining, key=key)  # fmt: skip
            return _reorder_columns(self, ordered.to_numpy().tolist(), ignore_index, inplace)
        order, index = _index_order(self._index, level, ascending, na_position, sort_remaining, key)
        return _finish_frame(self, order, index, ignore_index, inplace)

    def nlargest(self, n: int, columns: Any, keep: str = "first") -> Any:
        """The ``n`` rows with the largest values in ``columns`` (later columns break ties), largest first.

        >>> import riptide as rt
        >>> df = rt.DataFrame({"a": [1, 3, 3, 2], "b": [9, 1, 2, 8]})
        >>> df.nlargest(2, ["a", "b"]).index.tolist()
        [2, 1]
        """
        return _frame_top(self, n, columns, keep, largest=True)

    def nsmallest(self, n: int, columns: Any, keep: str = "first") -> Any:
        """The ``n`` rows with the smallest values in ``columns`` (later columns break ties), smallest first.

        >>> import riptide as rt
        >>> rt.DataFrame({"a": [1, 3, 0, 2]}).nsmallest(2, "a")["a"].tolist()
        [0, 1]
        """
        return _frame_top(self, n, columns, keep, largest=False)

    def rank(self, axis: Any = 0, method: str = "average", numeric_only: bool = False, na_option: str = "keep",
             ascending: bool = True, pct: bool = False) -> Any:  # fmt: skip
        """Rank of each value within its column (``axis=1``: within its row), float64 as pandas ranks a DataFrame.

        >>> import riptide as rt
        >>> rt.DataFrame({"a": [3, 1, 3], "b": ["x", "z", "y"]}).rank()["a"].tolist()
        [2.5, 1.0, 2.5]
        """
        from riptide.frame.dataframe import DataFrame

        axis = _frame_axis(axis)
        _check_rank_options(method, na_option)
        columns = {label: c for label, c in self._data.items() if not numeric_only or _is_numeric(c)}
        if axis == 1:
            return DataFrame._from_columns(_ranks_across(columns, len(self), method, bool(ascending), na_option,
                                                         bool(pct), self._index._namespace), self._index)  # fmt: skip
        out = {}
        for label, column in columns.items():
            # pandas ranks a frame's values as objects: categories by value, even ordered ones.
            ranks, missing = rank_column(column, method, bool(ascending), na_option, bool(pct), category_order="values")
            out[label] = _float_ranks(ranks, missing)
        return DataFrame._from_columns(out, self._index)


# --------------------------------------------------------------------------- argument checks


def searchsorted(column: Column, value: Any, side: str = "left", sorter: Any = None) -> Any:
    """``searchsorted`` of a sorted column (``Series`` / ``Index``), for every sortable dtype.

    The column and the searched values are ranked together (one sorted grouping of both, in their common dtype),
    so strings, datetimes and categoricals need no search of their own: a NumPy/CuPy ``searchsorted`` of the
    ranks does it. Missing values rank last, where NumPy's search puts NaN.
    """
    from riptide.core.ops.grouping import group_rows
    from riptide.frame.concat import concat_promoted
    from riptide.frame.series import Series

    if side not in ("left", "right"):
        raise ValueError(f"search side must be 'left' or 'right' (got {side!r})")
    xp = column.xp
    if sorter is not None:
        column = column.take(_device.to_device(sorter, xp).astype(np.int64, copy=False))
    if isinstance(column, StringColumn) and column.can_hold_missing() and bool(column.isna().any()):
        # one scalar read: pandas' text arrays refuse the search when they hold missing values
        raise ValueError("searchsorted requires array to be sorted, which is impossible with NAs present.")
    scalar = pd.api.types.is_scalar(value) or getattr(value, "ndim", None) == 0
    if isinstance(value, Series):
        searched = value._column
    elif isinstance(value, Index):
        searched = value._as_column()
    else:
        searched = Series([value] if scalar else value)._column
    searched = searched.to_device(xp)
    if searched.size == 0:
        return xp.zeros(0, dtype=np.intp)
    both = concat_promoted([column, searched])
    ranks = group_rows([both], sort=True, dropna=False).ids
    found = xp.searchsorted(ranks[: column.size], ranks[column.size:], side=side)
    return np.intp(int(found[0])) if scalar else found  # one scalar read for a scalar value


def _series_axis(axis: Any) -> None:
    if axis not in (0, "index", "rows", None):
        raise ValueError(f"No axis named {axis} for object type Series")


def _frame_axis(axis: Any) -> int:
    if axis in (0, "index", "rows", None):
        return 0
    if axis in (1, "columns"):
        return 1
    raise ValueError(f"No axis named {axis} for object type DataFrame")


def _check_kind(kind: Any) -> None:
    """Every kind NumPy accepts is accepted (and ignored: riptide's sorts are always stable)."""
    if kind is None:
        return
    if not isinstance(kind, str) or not kind or kind[0].lower() not in "qhms":
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")


def _check_na_position(na_position: Any) -> None:
    if na_position not in ("first", "last"):
        raise ValueError(f"invalid na_position: {na_position}")


def _as_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool | np.bool_ | int | np.integer):
        return bool(value)
    raise ValueError(f'For argument "{name}" expected type bool, received type {type(value).__name__}.')


def _is_list_like(value: Any) -> bool:
    return isinstance(value, list | tuple | np.ndarray | pd.Index | pd.Series)


def _series_ascending(ascending: Any) -> bool:
    if _is_list_like(ascending):
        values = list(ascending)
        if len(values) != 1:
            raise ValueError(f"Length of ascending ({len(values)}) must be 1 for Series")
        return _as_bool(values[0], "ascending")
    return _as_bool(ascending, "ascending")


def _ascending_list(ascending: Any, n_keys: int) -> list[bool]:
    if _is_list_like(ascending):
        values = list(ascending)
        if len(values) != n_keys:
            raise ValueError(f"Length of ascending ({len(values)}) != length of by ({n_keys})")
        return [_as_bool(v, "ascending") for v in values]
    return [_as_bool(ascending, "ascending")] * n_keys


def _check_keep(keep: Any) -> None:
    if keep not in _KEEP_OPTIONS:
        raise ValueError('keep must be either "first", "last" or "all"')


def _check_rank_options(method: Any, na_option: Any) -> None:
    if method not in RANK_METHODS:
        raise KeyError(method)  # pandas raises KeyError naming the method
    if na_option not in _NA_OPTIONS:
        raise ValueError("na_option must be one of 'keep', 'top', or 'bottom'")


def _is_numeric(column: Column) -> bool:
    """pandas' is_numeric_dtype: numbers and bool (masked too), not datetimes, strings or categoricals."""
    return isinstance(column, NumericColumn) and column.kind in "biuf"


# --------------------------------------------------------------------------- keys


def _key_mapped(key: Any, owner: Any, column: Column, label: Any = None) -> Column:
    """``key`` applied to the sort key (as a Series named like it): the column to sort by instead."""
    from riptide.frame.series import Series

    if key is None:
        return column
    name = owner.name if label is None and isinstance(owner, Series) else label
    mapped = key(Series._from_column(column, owner.index, name))
    return _key_result(mapped, column)


def _key_result(mapped: Any, column: Column) -> Column:
    from riptide.frame.series import Series

    if isinstance(mapped, Series):
        result = mapped._column
    elif isinstance(mapped, Index):
        result = mapped._as_column()
    else:
        result = as_column(mapped, xp=column.xp)
    if result.size != column.size:
        raise ValueError("User-provided `key` function must not change the shape of the array.")
    return result


def _by_column(frame: Any, label: Hashable) -> Column:
    """The column a ``by`` label names: a column label, else an index level name (never both)."""
    in_columns = label in frame._data
    names = frame._index.names
    in_levels = label is not None and any(_same_label(label, name) for name in names)
    if in_columns and in_levels:
        raise ValueError(f"{label!r} is both an index level and a column label, which is ambiguous.")
    if in_columns:
        return frame._data[label]
    if in_levels:
        position = next(i for i, name in enumerate(names) if _same_label(label, name))
        return frame._index._key_columns()[position]
    raise KeyError(label)


def _same_label(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------------------------- index order


def _index_order(index: Index, level: Any, ascending: Any, na_position: str, sort_remaining: bool,
                 key: Any) -> tuple[Any, Index | None]:  # fmt: skip
    """Positions that sort ``index`` (None: already sorted) and the sorted index when cheaper than a take."""
    from riptide.frame.multi_index import MultiIndex

    if isinstance(index, MultiIndex):
        return _multi_index_order(index, level, ascending, na_position, sort_remaining, key), None
    if _is_list_like(ascending):
        values = list(ascending)
        if len(values) != 1:
            raise ValueError(f"Length of ascending ({len(values)}) != number of index levels (1)")
        ascending = values[0]
    ascending = _as_bool(ascending, "ascending")
    if isinstance(index, RangeIndex) and key is None:
        # A range is sorted one way or the other: keep it, or reverse it (still a RangeIndex, as pandas).
        step = index.step
        if len(index) <= 1 or (step > 0) == ascending:
            return None, index
        xp = index._namespace
        reversed_range = RangeIndex._from_range(index._range[::-1], index.name, xp)
        return xp.arange(len(index) - 1, -1, -1, dtype=np.int64), reversed_range
    column = index._as_column()
    if key is not None:
        column = _key_result(key(Index._from_column(column, index.name)), column)
    return argsort_columns([column], [ascending], na_position), None


def _multi_index_order(index: Any, level: Any, ascending: Any, na_position: str, sort_remaining: bool,
                       key: Any) -> Any:  # fmt: skip
    columns = index._key_columns()
    names = index.names
    if level is None:
        keys = list(range(len(columns)))
        directions = _ascending_list(ascending, len(keys)) if _is_list_like(ascending) else (
            [_as_bool(ascending, "ascending")] * len(keys))  # fmt: skip
        if len(directions) != len(keys):
            raise ValueError(f"Length of ascending ({len(directions)}) != number of index levels ({len(keys)})")
    else:
        levels = list(level) if _is_list_like(level) else [level]
        keys = [index._level_number(lev) for lev in levels]
        mapped_levels = set(keys)
        if _is_list_like(ascending):
            directions = [_as_bool(a, "ascending") for a in ascending]
            if len(directions) != len(keys):
                raise ValueError("level must have same length as ascending")
        else:
            if sort_remaining:
                keys += [i for i in range(len(columns)) if i not in keys]
            directions = [_as_bool(ascending, "ascending")] * len(keys)
    if key is not None:
        if level is None:
            mapped_levels = set(range(len(columns)))
        columns = [_key_result(key(Index._from_column(c, names[i])), c) if i in mapped_levels else c
                   for i, c in enumerate(columns)]  # fmt: skip
    return argsort_columns([columns[i] for i in keys], directions, na_position)


# --------------------------------------------------------------------------- results


def _finish_series(series: Any, order: Any, index: Index | None, ignore_index: bool, inplace: bool,
                   ordered: Column | None = None) -> Any:  # fmt: skip
    """Rows of ``series`` in ``order`` (None: as they are), relabelled by ``index`` or ``index.take(order)``.

    ``ordered`` is the column already in that order, when the sort produced it."""
    from riptide.frame.series import Series

    if ordered is not None:
        column = ordered
    else:
        column = series._column if order is None else series._column.take(order)
    if ignore_index:
        index = default_index(column.size, column.xp)
    elif index is None:
        index = series._index if order is None else series._index.take(order)
    if inplace:
        series._column, series._index = column, index
        return None
    return Series._from_column(column, index, series.name)


def _finish_frame(frame: Any, order: Any, index: Index | None, ignore_index: bool, inplace: bool,
                  ordered: dict[Hashable, Column] | None = None) -> Any:  # fmt: skip
    """Rows of ``frame`` in ``order``; ``ordered`` holds columns the sort already put in that order."""
    from riptide.frame.dataframe import DataFrame

    ordered = ordered or {}
    # A filtered frame's columns (still pending) and its labels gather through the filter's positions composed
    # with the order once, and stay pending until read (db-benchmark q8 sorts a filtered frame of 95M rows: one
    # composition, 0.76 GB, where the index and each column made their own).
    composed: dict[int, Any] = {}
    if order is None:
        data = dict(frame._data)
    else:
        data = {label: ordered[label] if label in ordered else take_composing(c, order, composed)
                for label, c in frame._data.items()}  # fmt: skip
    if ignore_index:
        index = default_index(len(frame) if order is None else int(order.shape[0]), frame._index._namespace)
    elif index is None:
        index = frame._index if order is None else take_index_composing(frame._index, order, composed)
    if inplace:
        frame._data, frame._index = data, index
        return None
    return DataFrame._from_columns(data, index)


def _reorder_columns(frame: Any, positions: list[int], ignore_index: bool, inplace: bool) -> Any:
    """The frame with its columns in the order ``positions`` (relabelled 0..k-1 with ``ignore_index``)."""
    from riptide.frame.dataframe import DataFrame

    items = list(frame._data.items())
    data = {(i if ignore_index else items[p][0]): items[p][1] for i, p in enumerate(positions)}
    if inplace:
        frame._data = data
        return None
    return DataFrame._from_columns(data, frame._index)


def _sort_columns_by_rows(frame: Any, labels: list[Any], ascending: list[bool], kind: str, na_position: str,
                          ignore_index: bool, key: Any, inplace: bool) -> Any:  # fmt: skip
    """``sort_values(axis=1)``: order the columns by the values of the rows ``labels``.

    Only those few rows travel to the host, where pandas orders the column positions (the values of one row
    mix dtypes, which pandas compares as Python objects).
    """
    from riptide.frame.dataframe import DataFrame

    if not labels:
        return _reorder_columns(frame, list(range(len(frame._data))), ignore_index, inplace)
    positions = frame._index._positions_of_labels(labels)
    rows = DataFrame._from_columns({i: c.take(positions) for i, c in enumerate(frame._data.values())},
                                   frame._index.take(positions)).to_pandas()  # fmt: skip
    ordered = rows.sort_values(labels, axis=1, ascending=ascending, kind=kind, na_position=na_position, key=key)
    return _reorder_columns(frame, [int(p) for p in ordered.columns], ignore_index, inplace)


def _ranks_across(columns: dict[Hashable, Column], n: int, method: str, ascending: bool, na_option: str, pct: bool,
                  xp: Any) -> dict[Hashable, Column]:  # fmt: skip
    """``rank(axis=1)``: each row's values ranked among themselves.

    The columns are cast to one dtype (as pandas' 2-D ``values`` would hold them) and laid end to end; the
    row number is the most significant sort key, so one sort ranks every row at once.
    """
    if not columns:
        return {}
    decoded = [_category_values(c) for c in columns.values()]
    if all(isinstance(c, NumericColumn) for c in decoded):
        kinds = {dtypes.is_datetimelike(c.dtype) for c in decoded}
        if kinds == {False}:
            common = dtypes.result_type(*(c.dtype for c in decoded))
            decoded = [c if c.dtype == common else cast.astype(c, common) for c in decoded]
        elif len({str(c.dtype) for c in decoded}) > 1:
            raise TypeError(f"cannot rank across columns of dtypes {[str(c.dtype) for c in decoded]}")
    elif not all(isinstance(c, StringColumn) for c in decoded):
        raise TypeError(f"'<' not supported between the values of columns of dtypes "
                        f"{[str(c.dtype) for c in decoded]}")  # fmt: skip
    flat = concat_columns(decoded)
    k = len(decoded)
    row_of = xp.arange(n * k, dtype=np.int64) % max(n, 1)
    ranks, missing = rank_column(flat, method, ascending, na_option, pct, segments=(row_of, n))
    values = _float_ranks(ranks, missing).data
    return {label: NumericColumn(values[i * n:(i + 1) * n]) for i, label in enumerate(columns)}


def _category_values(column: Column) -> Column:
    """A categorical's values as a plain column (pandas compares them as objects across columns)."""
    if isinstance(column, CategoricalColumn):
        return column.categories.take_or_missing(column.codes.astype(np.int64))
    return column


def _float_ranks(ranks: Any, missing: Any) -> NumericColumn:
    """float64 ranks with NaN where the rank is missing."""
    xp = _device.namespace_of(ranks)
    values = ranks.astype(np.float64, copy=False)
    if missing is not None:
        values = xp.where(missing, np.nan, values)
    return NumericColumn(values)


# --------------------------------------------------------------------------- nlargest / nsmallest


def _check_selectable(column: Column, method: str, label: Any = None) -> None:
    if isinstance(column, NumericColumn):  # numbers, bool, datetimes and timedeltas (masked too)
        return
    if label is None:
        raise TypeError(f"Cannot use method '{method}' with dtype {column.dtype}")
    raise TypeError(f"Column {label!r} has dtype {column.dtype}, cannot use method {method!r} with this dtype")


def _series_top(series: Any, n: int, keep: str, largest: bool) -> Any:
    from riptide.frame.series import Series

    _check_keep(keep)
    _check_selectable(series._column, "nlargest" if largest else "nsmallest")
    positions = select_top(series._column, int(n), largest, keep)
    return Series._from_column(series._column.take(positions), series._index.take(positions), series.name)


def _frame_top(frame: Any, n: int, columns: Any, keep: str, largest: bool) -> Any:
    """pandas' column-by-column selection: each column picks its top rows (keeping all ties) and only the
    rows tied at the border go on to the next column, which breaks their ties; the last column applies
    ``keep``. Then the chosen rows are sorted by all the columns (stably)."""
    method = "nlargest" if largest else "nsmallest"
    _check_keep(keep)
    labels = list(columns) if _is_list_like(columns) and not isinstance(columns, tuple) else [columns]
    for label in labels:
        if label not in frame._data:
            raise KeyError(label)
    for label in labels:
        _check_selectable(frame._data[label], method, label)
    n = int(n)
    xp = frame._index._namespace
    chosen: list[Any] = []  # position arrays, in pandas' order: nlargest puts later finds in front
    count = 0
    current = None  # rows still competing (None: all of them)
    for i, label in enumerate(labels):
        column = frame._data[label] if current is None else frame._data[label].take(current)
        last = i == len(labels) - 1
        picked = select_top(column, n - count, largest, keep if last else "all")
        rows = picked if current is None else current[picked]
        if last or int(picked.shape[0]) <= n - count:
            chosen = [rows] + chosen if largest else chosen + [rows]
            break
        border = _ties_with_last(column.take(picked), xp)
        settled = rows[~border]
        chosen = [settled] + chosen if largest else chosen + [settled]
        count += int(settled.shape[0])  # one scalar read per column: how many rows are still to pick
        current = rows[border]
    indexer = xp.concatenate(chosen) if chosen else xp.zeros(0, dtype=np.int64)
    result = _finish_frame(frame, indexer, None, False, False)
    if len(labels) > 1:
        result = result.sort_values(labels, ascending=not largest, kind="stable")
    return result


def _ties_with_last(values: Column, xp: Any) -> Any:
    """True where a value equals the last one (missing values tie with each other, -0.0 with 0.0)."""
    equal = None
    for digit in sort_digits(values, True, "last"):
        same = digit.values == digit.values[-1]
        equal = same if equal is None else equal & same
    return equal
