"""stack / unstack: moving one level between the row index and the column labels.

``unstack`` groups the rows twice on the device (:func:`riptide.core.ops.grouping.group_rows`): by the index
levels that stay (one output row per distinct combination) and by the level that moves (one output column per
distinct label). Row ``i`` then belongs in cell ``(row_group[i], column_group[i])``; one scatter of the row
positions into that grid gives, for every output column, the rows to gather (-1 for an empty cell). Only the
distinct labels of the moved level travel to the host, because they become column labels.

``stack`` is the inverse and needs no grouping: the output has ``rows x stacked labels`` rows, and output row
``i * k + j`` is row ``i`` of the ``j``-th source column, which one gather from the columns laid end to end
produces. It follows pandas 3's ``stack`` (the ``future_stack`` implementation): missing values are kept, and
the stacked labels and the new columns come in order of appearance.

The methods live on mixins that ``Series`` and ``DataFrame`` inherit, so this capability stays in one module.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import reduce
from typing import Any

import numpy as np
import pandas as pd

from riptide.core.column import Column
from riptide.core.kernels.scatter import scatter_add
from riptide.frame.pivot import FramePivotMethods

__all__ = ["SeriesStackingMethods", "FrameStackingMethods"]


class SeriesStackingMethods:
    """Mixed into ``Series``."""

    __slots__ = ()

    def unstack(self, level: Any = -1, fill_value: Any = None, sort: bool = True) -> Any:
        """A DataFrame with one column per label of index level ``level`` and one row per combination of the
        other levels; empty cells are missing (or ``fill_value``).

        >>> import riptide as rt
        >>> s = rt.Series([1, 2, 3], index=rt.MultiIndex.from_arrays([["a", "a", "b"], ["x", "y", "x"]]))
        >>> s.unstack().to_pandas()
             x    y
        a  1.0  2.0
        b  3.0  NaN
        """
        from riptide.frame.dataframe import DataFrame

        columns, index, axis = _unstack(self.index, level, {None: self._column}, fill_value, sort)
        result = DataFrame._from_columns(columns, index)
        result._set_column_axis(axis)
        return result


class FrameStackingMethods(FramePivotMethods):
    """Mixed into ``DataFrame`` (with ``pivot`` and ``pivot_table`` from :mod:`riptide.frame.pivot`)."""

    __slots__ = ()

    def unstack(self, level: Any = -1, fill_value: Any = None, sort: bool = True) -> Any:
        """Index level ``level`` moved to the innermost level of the column labels (tuples ``(column, label)``).

        With a flat row index, every column is stacked under the column labels instead and a Series comes back,
        as in pandas.

        >>> import riptide as rt
        >>> df = rt.DataFrame({"v": [1, 2]}, index=rt.MultiIndex.from_arrays([["a", "b"], ["x", "y"]]))
        >>> df.unstack().columns.tolist()
        [('v', 'x'), ('v', 'y')]
        """
        from riptide.frame.dataframe import DataFrame

        if self.index.nlevels == 1:
            self.index._level_number(level)  # the one level, or pandas' error
            return _stack_flat(self, transpose=True)
        if isinstance(level, list | tuple) and len(level) > 1 and _label_depth(list(self._data)) > 1:
            # Tuple column labels: pandas unstacks the levels one at a time (every combination becomes a column).
            numbers = [self.index._level_number(lev) for lev in level]
            result = self
            while numbers:
                number = numbers.pop(0)
                result = result.unstack(number, fill_value=fill_value, sort=sort)
                numbers = [v if v < number else v - 1 for v in numbers]
            return result
        columns, index, axis = _unstack(self.index, level, self._data, fill_value, sort, self.columns)
        result = DataFrame._from_columns(columns, index)
        result._set_column_axis(axis)
        return result

    def stack(self, level: Any = -1, dropna: Any = None, sort: Any = None, future_stack: bool = True) -> Any:
        """The innermost level of the column labels (or ``level``) moved to the innermost level of the row index.

        Flat column labels give a Series; tuple labels give a DataFrame labelled by the remaining levels. As pandas
        3, missing values are kept and the new labels come in order of appearance.

        >>> import riptide as rt
        >>> rt.DataFrame({"a": [1, 2], "b": [3, 4]}).stack().tolist()
        [1, 3, 2, 4]
        """
        if dropna is not None or sort is not None or not future_stack:
            raise ValueError("dropna and sort are not supported with pandas 3's stack (future_stack=True); use "
                             "dropna() or sort_index() on the result")  # fmt: skip
        labels = list(self._data)
        depth = _label_depth(labels)
        names = self._column_axis_names() or [None] * depth
        levels = [level] if not isinstance(level, list | tuple) else list(level)
        if len(levels) != 1:
            raise NotImplementedError("stack of several levels at once: stack them one at a time")
        number = _column_level_number(levels[0], names, depth)
        if depth == 1:
            return _stack_flat(self, transpose=False, name=names[0])
        return _stack_level(self, number, depth, names)


# --------------------------------------------------------------------------- unstack


def _unstack(index: Any, level: Any, columns: dict[Hashable, Column], fill_value: Any, sort: bool,
             column_axis: pd.Index | None = None) -> tuple[dict[Hashable, Column], Any, pd.Index]:  # fmt: skip
    """The new columns, their index, and the pandas Index of their labels (the moved level's dtype and name
    included) of unstacking ``columns`` (labelled by ``index``; ``column_axis``: their labels as pandas').

    A label of ``None`` stands for a Series' one column: its new labels are the moved level's labels alone.
    """
    from riptide.core.ops.missing import where
    from riptide.frame.index import Index

    if index.nlevels == 1:
        raise ValueError(f"index must be a MultiIndex to unstack, {type(index)} was passed")
    levels = list(level) if isinstance(level, list | tuple) else [level]
    moved = [index._level_number(lev) for lev in levels]
    keys = index._key_columns()
    kept = [i for i in range(index.nlevels) if i not in moved]
    if not kept:
        raise ValueError("cannot unstack every level of the index: at least one must stay in the rows")
    xp = keys[0].xp
    n = len(index)

    rows = _group_levels([keys[i] for i in kept], sort=sort)
    # Several moved levels become one axis of their observed combinations, as pandas' multi-level unstack; pandas
    # numbers those combinations in order of appearance and keeps that order.
    cols = _group_levels([keys[i] for i in moved], sort=sort and len(moved) == 1)
    n_rows, n_cols = rows.n_groups, cols.n_groups
    # Each row's cell in the (new row, new column) grid; two rows in one cell cannot be reshaped.
    cell = rows.ids * n_cols + cols.ids
    occupancy = xp.zeros(n_rows * n_cols, dtype=np.int64)
    scatter_add(occupancy, cell, xp.ones(n, dtype=np.int64), xp)
    if n and bool((occupancy > 1).any()):  # one scalar read: whether the reshape is possible
        raise ValueError("Index contains duplicate entries, cannot reshape")
    source = xp.full(n_rows * n_cols, -1, dtype=np.int64)
    source[cell] = xp.arange(n, dtype=np.int64)
    grid = source.reshape(n_rows, n_cols)
    has_empty = n < n_rows * n_cols  # every row fills one cell, so empty cells exist exactly when fewer rows

    # The new column labels: one label (or tuple, for several moved levels) per distinct combination.
    if len(moved) == 1:
        moved_axis = Index._from_column(keys[moved[0]].take(cols.first_rows), index.names[moved[0]]).to_pandas()
    else:
        from riptide.frame.multi_index import MultiIndex

        moved_axis = MultiIndex._from_columns([keys[i].take(cols.first_rows) for i in moved],
                                              [index.names[i] for i in moved]).to_pandas()  # fmt: skip
    moved_labels = moved_axis.tolist()
    result: dict[Hashable, Column] = {}
    for label, column in columns.items():
        for j, new_label in enumerate(moved_labels):
            rows_of = xp.ascontiguousarray(grid[:, j])
            if not has_empty:
                values = column.take(rows_of)
            elif column.size == 0:
                values = column
            else:
                empty = rows_of < 0
                gathered = column.take(xp.where(empty, 0, rows_of))
                # pandas makes every new column able to hold the missing cells, not only those that have some.
                values = gathered.set_missing(empty) if fill_value is None else where(gathered, ~empty, fill_value)
            prefix = () if label is None else label if isinstance(label, tuple) else (label,)
            suffix = new_label if len(moved) > 1 else (new_label,)
            key = (*prefix, *suffix)
            result[key[0] if len(key) == 1 else key] = values
    new_index = index._keep_levels(kept).take(rows.first_rows)
    if None in columns:
        return result, new_index, moved_axis
    # Each old label once per moved label, with the labels' dtypes and names (pandas' MultiIndex of the columns).
    k, m = len(columns), len(moved_labels)
    old = column_axis if column_axis is not None else pd.Index(list(columns))
    outer = old[np.repeat(np.arange(k), m)]
    inner = moved_axis[np.tile(np.arange(m), k)]
    arrays = [outer.get_level_values(i) for i in range(old.nlevels)] + [
        inner.get_level_values(i) for i in range(moved_axis.nlevels)]  # fmt: skip
    return result, new_index, pd.MultiIndex.from_arrays(arrays, names=[*old.names, *moved_axis.names])


def _group_levels(columns: list[Column], sort: bool) -> Any:
    """Groups of the rows by these index levels, missing labels included: sorted with a missing label first in
    each level (pandas sorts a MultiIndex by its codes, where missing is -1), else in order of appearance."""
    from riptide.core.kernels.factorize import factorize, sorted_group_codes
    from riptide.core.ops.grouping import Groups, group_rows

    if not sort:
        return group_rows(columns, sort=False, dropna=False)
    xp = columns[0].xp
    codes = [factorize(column)[0] + 1 for column in columns]  # missing (-1) becomes 0: first
    ids, n_groups = sorted_group_codes(codes, xp)
    return Groups(ids=ids, n_groups=n_groups, xp=xp)


# --------------------------------------------------------------------------- stack


def _label_depth(labels: list[Hashable]) -> int:
    if labels and all(isinstance(label, tuple) for label in labels) and len({len(t) for t in labels}) == 1:
        return len(labels[0])
    return 1


def _column_level_number(level: Any, names: list[Any], depth: int) -> int:
    if names.count(level) == 1:
        return names.index(level)
    if isinstance(level, int | np.integer) and not isinstance(level, bool):
        if not -depth <= level < depth:
            raise IndexError(f"Too many levels: Index has only {depth} level{'s' if depth > 1 else ''}, not "
                             f"{level + 1}")  # fmt: skip
        return int(level) % depth
    raise KeyError(f"Level {level} not found")


def _common_columns(columns: list[Column]) -> Column:
    """The columns end to end, cast to one dtype as pandas' stack casts them (numbers to their common type)."""
    from riptide.core import dtypes
    from riptide.core.ops.cast import concat_common

    kinds = {("str" if dtypes.is_string(c.dtype) else "category" if dtypes.is_categorical(c.dtype) else
              "bool" if getattr(c, "kind", "") == "b" else "temporal" if dtypes.is_datetimelike(c.dtype) else "number")
             for c in columns}  # fmt: skip
    if len(kinds) > 1 or ("temporal" in kinds and len({c.dtype for c in columns}) > 1) or (
            "category" in kinds and len({c.dtype for c in columns}) > 1):  # fmt: skip
        shown = sorted({str(c.dtype) for c in columns})
        raise TypeError(f"stack needs columns of one kind ({', '.join(shown)} given): pandas would make an object "
                        "column, which riptide does not have; cast the columns to one dtype first")  # fmt: skip
    if len(columns) == 1:
        return columns[0]
    return reduce(concat_common, columns)


def _stacked_rows(n: int, k: int, slots: Any, xp: Any) -> tuple[Any, Any, Any]:
    """For ``n`` rows and ``k`` stacked labels: each output row's source row, its label number, and its position
    in the source columns laid end to end (``slots[j]``: where label ``j``'s column starts, -1 when absent)."""
    out = xp.arange(n * k, dtype=np.int64)
    row, j = out // k, out % k
    start = slots[j]
    return row, j, xp.where(start < 0, -1, start + row)


def _gather(column: Column, positions: Any, any_absent: bool) -> Column:
    if not any_absent:
        return column.take(positions)
    absent = positions < 0
    if column.size == 0:
        return column.take_or_missing(positions)
    return column.take(column.xp.where(absent, 0, positions)).set_missing(absent)


def _stack_flat(frame: Any, transpose: bool, name: Any = None) -> Any:
    """A Series of all cells: row-major (each row's columns in turn, for stack) or column-major (unstack of a
    flat index), labelled by (row label, column label) or (column label, row label)."""
    from riptide.core.column import as_column
    from riptide.frame.multi_index import MultiIndex
    from riptide.frame.series import Series

    labels = list(frame._data)
    xp = frame._xp()
    n, k = len(frame), len(labels)
    if k == 0:  # pandas: an empty float64 Series
        empty = as_column(np.zeros(0), xp=xp)
        keys = [c.take(xp.zeros(0, dtype=np.int64)) for c in frame.index._key_columns()]
        return Series._from_column(empty, MultiIndex._from_columns([*keys, empty], [*frame.index.names, name]))
    values = _common_columns(list(frame._data.values()))
    depth = _label_depth(labels)
    axis = frame.columns  # the labels as pandas holds them: each level keeps its dtype
    if depth == 1:
        label_columns, label_names = [as_column(axis, xp=xp)], [name]
    else:  # tuple labels: one index level per position in the tuples
        label_columns = [as_column(axis.get_level_values(i), xp=xp) for i in range(depth)]
        label_names = list(frame._column_axis_names() or [None] * depth)
    if transpose:  # column j's rows one after another: the values are already in that order
        out = xp.arange(n * k, dtype=np.int64)
        column_of, row_of = out // max(n, 1), out % max(n, 1)
        row_keys = [c.take(row_of) for c in frame.index._key_columns()]
        index = MultiIndex._from_columns([*[c.take(column_of) for c in label_columns], *row_keys],
                                         [*label_names, *frame.index.names])  # fmt: skip
        return Series._from_column(values, index)
    slots = xp.arange(k, dtype=np.int64) * n
    row, j, positions = _stacked_rows(n, k, slots, xp)
    row_keys = [c.take(row) for c in frame.index._key_columns()]
    index = MultiIndex._from_columns([*row_keys, *[c.take(j) for c in label_columns]],
                                     [*frame.index.names, *label_names])  # fmt: skip
    return Series._from_column(values.take(positions), index)


def _stack_level(frame: Any, number: int, depth: int, names: list[Any]) -> Any:
    """Stack level ``number`` of ``depth``-level tuple column labels: a DataFrame labelled by the other levels."""
    from riptide.core.column import as_column
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.multi_index import MultiIndex

    xp = frame._xp()
    n = len(frame)
    stacked: list[Any] = []  # the moved level's labels, in order of appearance
    rests: list[Any] = []  # the new column labels (the other levels), in order of appearance
    sources: dict[tuple[Any, Any], Hashable] = {}
    for label in frame._data:
        value = label[number]
        rest = label[:number] + label[number + 1 :]
        rest = rest[0] if len(rest) == 1 else rest
        if value not in stacked:
            stacked.append(value)
        if rest not in rests:
            rests.append(rest)
        sources[(rest, value)] = label
    k = len(stacked)
    columns: dict[Hashable, Column] = {}
    row = None
    for rest in rests:
        present = [sources.get((rest, value)) for value in stacked]
        available = [frame._data[label] for label in present if label is not None]
        slot_list, at = [], 0
        for label in present:
            slot_list.append(-1 if label is None else at)
            at += 0 if label is None else n
        slots = xp.asarray(np.asarray(slot_list, dtype=np.int64))
        row, j, positions = _stacked_rows(n, k, slots, xp)
        columns[rest] = _gather(_common_columns(available), positions, any_absent=len(available) < k)
    if row is None:
        row = xp.zeros(0, dtype=np.int64)
        j = row
    row_keys = [c.take(row) for c in frame.index._key_columns()]
    level_values = frame.columns.get_level_values(number)
    level_column = as_column(level_values.unique(), xp=xp).take(j)  # in order of appearance, with its dtype
    index = MultiIndex._from_columns([*row_keys, level_column], [*frame.index.names, names[number]])
    result = DataFrame._from_columns(columns, index)
    # The new labels as pandas holds them (each level's dtype), in order of appearance like `rests`.
    axis = frame.columns.droplevel(number).unique()
    if len(axis) == len(rests):
        result._set_column_axis(axis)
    return result
