"""pivot, pivot_table and crosstab: spreading the values of one column over the labels of others.

All three are compositions, as in pandas, so they inherit the device work of their parts:

* ``pivot`` = index the values by (index keys, column keys), then ``unstack`` the column keys
  (:mod:`riptide.frame.stacking`: two groupings and one scatter on the device); a repeated
  (index, column) pair cannot be placed and raises ValueError, as pandas does.
* ``pivot_table`` = ``groupby(index + columns).agg(aggfunc)`` (:mod:`riptide.frame.groupby`), then ``unstack`` of
  the column keys, then pandas' clean-ups (empty rows/columns dropped with ``dropna``, ``fill_value``, column
  labels sorted with ``sort``, margins).
* ``crosstab`` = ``pivot_table`` of a frame built from the given arrays (counts when no values are given), then the
  optional normalization.

Column labels (host metadata) are sorted and relabelled on the host; the rows never leave the device.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import Column
from riptide.core.ops.cast import astype

__all__ = ["pivot", "pivot_table", "crosstab", "FramePivotMethods"]

_NO_DEFAULT = object()


class FramePivotMethods:
    """``DataFrame.pivot`` and ``DataFrame.pivot_table`` (mixed into ``DataFrame`` through the stacking mixin)."""

    __slots__ = ()

    def pivot(self, *, columns: Any, index: Any = _NO_DEFAULT, values: Any = _NO_DEFAULT) -> Any:
        """See :func:`pivot`."""
        return pivot(self, columns=columns, index=index, values=values)

    def pivot_table(self, values: Any = None, index: Any = None, columns: Any = None, aggfunc: Any = "mean",
                    fill_value: Any = None, margins: bool = False, dropna: bool = True, margins_name: Hashable = "All",
                    observed: bool = True, sort: bool = True, **kwargs: Any) -> Any:  # fmt: skip
        """See :func:`pivot_table`."""
        return pivot_table(self, values=values, index=index, columns=columns, aggfunc=aggfunc,
                           fill_value=fill_value, margins=margins, dropna=dropna, margins_name=margins_name,
                           observed=observed, sort=sort, **kwargs)  # fmt: skip


def _as_list(keys: Any) -> list[Any]:
    """A key or list of keys as a list (a tuple is one label, as in pandas)."""
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    if keys is None or keys is _NO_DEFAULT:
        return []
    if isinstance(keys, list):
        return list(keys)
    if isinstance(keys, np.ndarray | pd.Index | Index) and not isinstance(keys, Series):
        return list(keys.tolist())
    return [keys]


# --------------------------------------------------------------------------- pivot


def pivot(data: Any, *, columns: Any, index: Any = _NO_DEFAULT, values: Any = _NO_DEFAULT) -> Any:
    """A DataFrame indexed by ``index`` with one column per distinct value of ``columns``, holding ``values``.

    Without ``index`` the frame's index is used; without ``values`` every other column is spread (the column
    labels are then tuples ``(value column, label)``). A repeated (index, columns) pair raises ValueError.

    >>> import riptide as rt
    >>> df = rt.DataFrame({"day": [1, 1, 2], "city": ["x", "y", "x"], "t": [10.0, 20.0, 30.0]})
    >>> rt.pivot(df, index="day", columns="city", values="t").to_pandas()
    city     x     y
    day             
    1     10.0  20.0
    2     30.0   NaN
    """
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.multi_index import MultiIndex
    from riptide.frame.series import Series

    columns_list = _as_list(columns)
    if not columns_list:
        raise TypeError("pivot() missing required argument: 'columns'")
    if values is _NO_DEFAULT:
        keys = _as_list(index) if index is not _NO_DEFAULT else []
        indexed = data.set_index(keys + columns_list, append=index is _NO_DEFAULT)
    else:
        if index is _NO_DEFAULT:
            level_columns, names = data.index._key_columns(), list(data.index.names)
        else:
            keys = [data[k] if not isinstance(k, Series) else k for k in _as_list(index)]
            level_columns, names = [k._column for k in keys], [k.name for k in keys]
        for key in columns_list:
            series = data[key] if not isinstance(key, Series) else key
            level_columns.append(series._column)
            names.append(series.name)
        rows = MultiIndex._from_columns(level_columns, names)
        if isinstance(values, list | np.ndarray | pd.Index):
            labels = list(values)
            columns_of = {label: data[label]._column for label in labels}
            # pandas takes the values as one 2-D array: plain numbers share their common dtype (int next to
            # float becomes float).
            kinds = [c.dtype for c in columns_of.values()]
            if all(isinstance(d, np.dtype) and d.kind in "biuf" for d in kinds) and len(set(kinds)) > 1:
                common = np.result_type(*kinds)
                columns_of = {label: astype(c, common) for label, c in columns_of.items()}
            indexed = DataFrame._from_columns(columns_of, rows)
        else:
            indexed = Series._from_column(data[values]._column, rows, values)
    n_levels = indexed.index.nlevels
    # Unstack by position: the column keys are the last levels (their names may repeat or be None).
    return indexed.unstack(list(range(n_levels - len(columns_list), n_levels)))


# --------------------------------------------------------------------------- pivot_table


def pivot_table(data: Any, values: Any = None, index: Any = None, columns: Any = None, aggfunc: Any = "mean",
                fill_value: Any = None, margins: bool = False, dropna: bool = True, margins_name: Hashable = "All",
                observed: bool = True, sort: bool = True, **kwargs: Any) -> Any:  # fmt: skip
    """A spreadsheet-style table: ``values`` aggregated (``aggfunc``) per ``index`` group (rows) and ``columns``
    group (columns).

    >>> import riptide as rt
    >>> df = rt.DataFrame({"k": ["a", "a", "b"], "c": ["x", "x", "y"], "v": [1.0, 3.0, 5.0]})
    >>> rt.pivot_table(df, values="v", index="k", columns="c", aggfunc="sum").to_pandas()
    c    x    y
    k          
    a  4.0  NaN
    b  NaN  5.0
    """
    if kwargs:
        raise TypeError(f"pivot_table() got unexpected keyword arguments {sorted(kwargs)} (aggfunc arguments are "
                        "not supported; use a function of one argument)")  # fmt: skip
    if isinstance(aggfunc, list):
        pieces, names = [], []
        for func in aggfunc:
            pieces.append(_pivot_table(data, values, index, columns, func, fill_value, margins, dropna, margins_name,
                                       observed, sort))  # fmt: skip
            names.append(func if isinstance(func, str) else getattr(func, "__name__", func))
        return _concat_columns(pieces, names)
    return _pivot_table(data, values, index, columns, aggfunc, fill_value, margins, dropna, margins_name, observed,
                        sort)  # fmt: skip


def _pivot_table(data: Any, values: Any, index: Any, columns: Any, aggfunc: Any, fill_value: Any, margins: bool,
                 dropna: bool, margins_name: Hashable, observed: bool, sort: bool) -> Any:  # fmt: skip
    index_keys, column_keys = _as_list(index), _as_list(columns)
    keys = index_keys + column_keys
    if not keys:
        raise ValueError("No group keys passed!")
    label_keys = [k for k in keys if _is_label(k) and k in data._data]
    values_passed = values is not None
    if values_passed:
        values_multi = isinstance(values, list | np.ndarray | pd.Index)
        values_list = list(values) if values_multi else [values]
        for value in values_list:
            if value not in data._data:
                raise KeyError(value)
        keep = label_keys + [v for v in values_list if v not in label_keys]
        data = data[keep]
    else:
        values_multi = True
        values_list = [label for label in data._data if label not in label_keys]

    grouped = data.groupby(keys, observed=observed, sort=sort, dropna=dropna)
    if aggfunc is len:
        aggfunc = "size"  # pandas calls len on each group's values: the group's size, missing values included
    if isinstance(aggfunc, dict):
        agged = grouped.agg(aggfunc)
    else:
        agged = grouped.agg({label: aggfunc for label in values_list}) if values_list else grouped.size().to_frame()
    if dropna and agged.shape[1]:
        agged = agged.dropna(how="all")

    table = agged
    if table.index.nlevels > 1 and index_keys and column_keys:
        # sort=False: pandas' levels keep the groups' order of appearance, so its unstack keeps it too.
        table = agged.unstack(list(range(len(index_keys), len(keys))), fill_value=fill_value, sort=sort)

    if not dropna:
        table = _complete_product(table, fill_value, sort)

    if sort is True:
        table = _sort_column_labels(table)

    if fill_value is not None:
        table = table.fillna(fill_value)

    if margins:
        table = _add_margins(table, data, values_list, index_keys, column_keys, aggfunc, observed, margins_name,
                             dropna, fill_value)  # fmt: skip

    if values_passed and not values_multi and table.columns.nlevels > 1:
        table = _drop_top_label(table)
    if not index_keys and column_keys:
        table = _transpose(table)
    if dropna:
        table = table.dropna(how="all", axis=1)
    return table


def _is_label(key: Any) -> bool:
    try:
        hash(key)
    except TypeError:
        return False
    return True


def _depth(frame: Any) -> int:
    labels = list(frame._data)
    if labels and all(isinstance(t, tuple) for t in labels) and len({len(t) for t in labels}) == 1:
        return len(labels[0])
    return 1


def _relabel(frame: Any, axis: pd.Index, columns: list[Column] | None = None) -> Any:
    """``frame``'s columns (or ``columns``) under the labels of the pandas Index ``axis`` (dtypes and names)."""
    from riptide.frame.dataframe import DataFrame

    values = list(frame._data.values()) if columns is None else columns
    result = DataFrame._from_columns(dict(zip(axis.tolist(), values)), frame.index)
    result._set_column_axis(axis)
    return result


def _drop_top_label(frame: Any) -> Any:
    """Column labels without their first level (pandas discards the values level for one ``values``)."""
    return _relabel(frame, frame.columns.droplevel(0))


def _sort_column_labels(frame: Any) -> Any:
    """The columns in sorted label order (pandas' ``sort_index(axis=1)``), sorted on the host: labels are
    metadata."""
    labels = list(frame._data)
    if len(labels) < 2:
        return frame
    axis = frame.columns
    order = axis.argsort()
    if list(order) == list(range(len(labels))):
        return frame
    return _relabel(frame, axis[order], [frame._data[labels[i]] for i in order])


def _complete_product(table: Any, fill_value: Any, sort: bool = True) -> Any:
    """dropna=False: every combination of the row levels' values and of the column levels' values."""
    from riptide.core.kernels.sort import stable_argsort
    from riptide.frame.multi_index import MultiIndex

    if isinstance(table.index, MultiIndex):
        levels = [_with_missing(level, column) for level, column in zip(table.index.levels,
                                                                        table.index._key_columns())]  # fmt: skip
        full = MultiIndex.from_product([level.to_pandas() for level in levels], names=table.index.names)
        if len(full) != len(table) or not full.equals(table.index):
            table = table.reindex(full, fill_value=fill_value)
    elif sort and len(table):
        # unstack sorts a missing row label first (pandas' code -1); the groups pandas unstacks hold the missing key
        # as a level value, which sorts last: move that row to the end.
        missing = table.index._as_column().isna()
        if bool(missing.any()):  # one scalar read: whether a row label is missing
            order = stable_argsort(missing.astype(np.int8), table._xp())
            table = table._with_columns({label: column.take(order) for label, column in table._data.items()},
                                        table.index.take(order))  # fmt: skip
    if _depth(table) > 1:
        labels = table.columns
        # The levels as unstack made them: each level's distinct labels, a missing one last.
        levels = [_distinct_missing_last(labels.get_level_values(i)) for i in range(labels.nlevels)]
        full_labels = pd.MultiIndex.from_product(levels, names=labels.names)
        if len(full_labels) != len(labels):
            reindexed = table.reindex(columns=full_labels.tolist(), fill_value=fill_value)
            table = _relabel(reindexed, full_labels)
    return table


def _with_missing(level: Any, column: Column) -> Any:
    """A level's distinct values, with a missing value last when the level has one (pandas' unstacked levels)."""
    from riptide.core.column import concat_columns, full
    from riptide.frame.index import Index

    if not (column.can_hold_missing() and bool(column.isna().any())):  # one scalar read: whether a level has NaN
        return level
    return Index._from_column(concat_columns([level._as_column(), full(1, None, column.dtype, xp=column.xp)]),
                              level.name)  # fmt: skip


def _distinct_missing_last(labels: pd.Index) -> pd.Index:
    distinct = labels.unique()
    return distinct.dropna().sort_values().append(distinct[distinct.isna()])


def _concat_columns(pieces: list[Any], keys: list[Any]) -> Any:
    """Frames side by side, each one's labels under its key (pandas' ``concat(pieces, keys=keys, axis=1)``)."""
    from riptide.frame.dataframe import DataFrame

    index = pieces[0].index
    for piece in pieces[1:]:
        if not piece.index.equals(index):
            index = index.union(piece.index)
    columns: dict[Hashable, Column] = {}
    for key, piece in zip(keys, pieces):
        if not piece.index.equals(index):
            piece = piece.reindex(index)
        for label, column in piece._data.items():
            columns[(key, *label) if isinstance(label, tuple) else (key, label)] = column
    result = DataFrame._from_columns(columns, index)
    names = pieces[0]._column_axis_names()
    result._column_names = [None, *(names or [None] * _depth(pieces[0]))]
    return result


def _transpose(frame: Any) -> Any:
    """Rows and columns swapped (pivot_table without index keys): the columns must share one kind of dtype."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import as_index
    from riptide.frame.stacking import _common_columns

    labels = list(frame._data)
    n, k = len(frame), len(labels)
    xp = frame._xp()
    if k == 0:
        return frame
    values = _common_columns(list(frame._data.values()))
    new_labels = frame.index.tolist()
    rows = xp.arange(k, dtype=np.int64) * n
    columns = {label: values.take(rows + g) for g, label in enumerate(new_labels)}
    axis = frame.columns
    index = as_index(axis)
    if _depth(frame) == 1:
        index.name = axis.name
    result = DataFrame._from_columns(columns, index)
    result._set_column_axis(frame.index.to_pandas())  # the group keys: few labels, now column labels
    return result


def _add_margins(table: Any, data: Any, values: list[Any], index_keys: list[Any], column_keys: list[Any],
                 aggfunc: Any, observed: bool, margins_name: Hashable, dropna: bool, fill_value: Any) -> Any:  # fmt: skip
    """Row and column totals labelled ``margins_name``: each aggregate recomputed over the wider group."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.multi_index import MultiIndex
    from riptide.frame.series import Series

    if not all(_is_label(k) for k in index_keys + column_keys):
        raise NotImplementedError("margins with keys given as arrays: put them in the frame as columns first")
    if isinstance(aggfunc, dict):
        raise NotImplementedError("margins with an aggfunc per column")
    if dropna:
        keep = data.notna().all(axis=1) if hasattr(data, "notna") else None
        if keep is not None:
            data = data[keep]
    if len(index_keys) > 1 or len(column_keys) > 1:
        raise NotImplementedError("margins with several index or column keys")
    for key in index_keys + column_keys:
        if margins_name in set(data[key].unique().tolist()):
            raise ValueError(f"Conflicting name \"{margins_name}\" in margins")
    depth = _depth(table)
    names = table._column_axis_names()
    multi_values = depth > 1 and column_keys
    columns = dict(table._data)
    # The margin column: each value aggregated per index group only, after that value's columns.
    if column_keys and index_keys:
        by_row = data.groupby(index_keys, observed=observed, sort=True, dropna=dropna).agg(
            {v: aggfunc for v in values})  # fmt: skip
        by_row = by_row.reindex(table.index)
        ordered: dict[Hashable, Column] = {}
        for v in values:
            if multi_values:
                ordered.update({label: c for label, c in columns.items() if label[0] == v})
                ordered[(v, margins_name)] = by_row._data[v]
            else:
                ordered.update(columns)
                ordered[margins_name] = by_row._data[v]
        columns = ordered
    result = DataFrame._from_columns(columns, table.index)
    result._column_names = names
    # The margin row: each column's aggregate over the column groups only (and the grand total).
    if column_keys:
        by_col = data.groupby(column_keys, observed=observed, sort=True, dropna=dropna).agg(
            {v: aggfunc for v in values})  # fmt: skip
        grand = {v: _aggregate_all(data[v], aggfunc) for v in values}
        row = {}
        for label in result._data:
            value_label, column_label = (label[0], label[-1]) if multi_values else (values[0], label)
            if column_label == margins_name:
                row[label] = grand[value_label]
            else:
                row[label] = by_col._data[value_label].take(
                    by_col.index.get_indexer([column_label])) if len(by_col) else None
    else:
        row = {label: _aggregate_all(data[label], aggfunc) for label in result._data}
    margin = {}
    xp = result._xp()
    for label, column in result._data.items():
        value = row[label]
        margin[label] = value if isinstance(value, Column) else Series([value])._column.to_device(xp)
    # pandas builds the margin row as one Series: the group columns' totals share one dtype (ints next to floats
    # become floats), which the appended row then gives those columns; the margin columns keep theirs.
    inner = [label for label in margin if (label[-1] if isinstance(label, tuple) else label) != margins_name]
    if column_keys and inner and all(dtypes.is_numeric_or_bool(margin[label].dtype) for label in inner):
        common = dtypes.result_type(*[margin[label].dtype for label in inner])
        margin.update({label: astype(margin[label], common) for label in inner})
    margin_index = _margin_index(result.index, margins_name)
    frame = DataFrame._from_columns(margin, margin_index)
    from riptide.core.ops.cast import concat_common

    combined = {label: concat_common(column, margin[label]) for label, column in result._data.items()}
    index = result.index.append(margin_index) if isinstance(result.index, MultiIndex) else _append_flat(
        result.index, frame.index)  # fmt: skip
    out = DataFrame._from_columns(combined, index)
    out._column_names = names
    return out


def _aggregate_all(series: Any, aggfunc: Any) -> Any:
    name = aggfunc if isinstance(aggfunc, str) else {len: "size"}.get(aggfunc, getattr(aggfunc, "__name__", None))
    if name == "size":
        return len(series)
    if name in ("sum", "mean", "min", "max", "count", "median", "std", "var", "prod", "nunique"):
        return getattr(series, name)()
    return aggfunc(series)


def _margin_index(index: Any, margins_name: Hashable) -> Any:
    from riptide.frame.index import Index
    from riptide.frame.multi_index import MultiIndex

    if isinstance(index, MultiIndex):
        return MultiIndex.from_tuples([(margins_name,) + ("",) * (index.nlevels - 1)], names=index.names)
    return Index([margins_name], name=index.name)


def _append_flat(index: Any, other: Any) -> Any:
    from riptide.core.ops.cast import concat_common
    from riptide.frame.index import Index

    try:
        return Index._from_column(concat_common(index._as_column(), other._as_column()), index.name)
    except TypeError:
        raise TypeError(f"margins add the label {other[0]!r} to labels of dtype {index.dtype}: pandas makes an object "
                        "index, which riptide does not have; use string keys") from None


# --------------------------------------------------------------------------- crosstab


def crosstab(index: Any, columns: Any, values: Any = None, rownames: Any = None, colnames: Any = None,
             aggfunc: Any = None, margins: bool = False, margins_name: Hashable = "All", dropna: bool = True,
             normalize: Any = False) -> Any:  # fmt: skip
    """A table of how often each (index, columns) pair occurs, or ``aggfunc`` of ``values`` per pair.

    >>> import riptide as rt
    >>> a = rt.Series(["x", "x", "y"], name="a")
    >>> b = rt.Series([1, 2, 1], name="b")
    >>> rt.crosstab(a, b).to_pandas()
    b  1  2
    a      
    x  1  1
    y  1  0
    """
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import default_index
    from riptide.frame.series import Series

    if values is None and aggfunc is not None:
        raise ValueError("aggfunc cannot be used without values.")
    if values is not None and aggfunc is None:
        raise ValueError("values cannot be used without an aggfunc.")
    row_keys = _key_arrays(index)
    col_keys = _key_arrays(columns)
    row_names = _key_names(row_keys, rownames, "row")
    col_names = _key_names(col_keys, colnames, "col")
    common = None
    for key in row_keys + col_keys:
        if isinstance(key, Series):
            common = key.index if common is None else common
    lengths = {len(k) for k in row_keys + col_keys}
    if len(lengths) > 1:
        raise ValueError("All arrays must be of the same length")
    n = lengths.pop()
    frame_columns: dict[Hashable, Column] = {}
    for name, key in zip(row_names + col_names, row_keys + col_keys):
        if name in frame_columns:
            raise ValueError(f"duplicate names in crosstab keys: {name!r}; pass rownames/colnames")
        if isinstance(key, Series) and common is not None and not key.index.equals(common):
            key = key.reindex(common)
        frame_columns[name] = key._column if isinstance(key, Series) else Series(key)._column
    frame = DataFrame._from_columns(frame_columns, common if common is not None else default_index(n))
    if values is None:
        frame["__dummy__"] = 0
        table = pivot_table(frame, "__dummy__", index=row_names, columns=col_names, aggfunc="size", fill_value=0,
                            margins=margins, margins_name=margins_name, dropna=dropna, observed=dropna)  # fmt: skip
    else:
        frame["__dummy__"] = values
        table = pivot_table(frame, "__dummy__", index=row_names, columns=col_names, aggfunc=aggfunc,
                            margins=margins, margins_name=margins_name, dropna=dropna, observed=dropna)  # fmt: skip
    if normalize is not False:
        table = _normalize(table, normalize, margins, margins_name)
    return table


def _key_arrays(keys: Any) -> list[Any]:
    from riptide.frame.series import Series

    if isinstance(keys, list) and keys and not all(np.ndim(k) == 0 for k in keys if not isinstance(k, Series)):
        return list(keys)
    if isinstance(keys, list | tuple) and keys and all(isinstance(k, Series | np.ndarray | pd.Series | list)
                                                        for k in keys):  # fmt: skip
        return list(keys)
    return [keys]


def _key_names(keys: list[Any], given: Any, prefix: str) -> list[Hashable]:
    if given is not None:
        names = list(given)
        if len(names) != len(keys):
            raise AssertionError("arrays and names must have the same length")
        return names
    return [getattr(k, "name", None) if getattr(k, "name", None) is not None else f"{prefix}_{i}"
            for i, k in enumerate(keys)]  # fmt: skip


def _normalize(table: Any, normalize: Any, margins: bool, margins_name: Hashable = "All") -> Any:
    """Shares instead of counts: of the whole table (True/"all"), of each row ("index") or column ("columns");
    0 where a row or column has no count at all, as pandas."""
    from riptide.frame.series import Series

    if normalize is True or normalize == "all":
        how = "all"
    elif normalize in ("index", "columns") or (isinstance(normalize, int) and not isinstance(normalize, bool)
                                               and normalize in (0, 1)):  # fmt: skip
        how = {0: "index", 1: "columns"}.get(normalize, normalize)
    else:
        raise ValueError("Not a valid normalize argument")
    if margins:
        return _normalize_with_margins(table, how, margins_name)
    columns = {label: Series._from_column(column, table.index) for label, column in table._data.items()}
    if how == "all":
        total = sum(float(s.sum()) for s in columns.values())  # one scalar read per column
        scaled = {label: s / total for label, s in columns.items()}
    elif how == "columns":
        scaled = {label: s / s.sum() for label, s in columns.items()}
    else:
        row_total = None
        for s in columns.values():  # pandas' row sums skip missing values
            row_total = s.fillna(0) if row_total is None else row_total + s.fillna(0)
        scaled = {label: s / row_total for label, s in columns.items()}
    return table._with_columns({label: s.fillna(0.0)._column for label, s in scaled.items()})


def _normalize_with_margins(table: Any, how: str, margins_name: Hashable) -> Any:
    """pandas' shares of a table with margins: the body normalized as without margins; the margin column (row
    totals) kept as shares of the grand total for "columns" and "all", the margin row (column totals) for "index"
    and "all" (with 1.0 in the corner)."""
    from riptide.core.column import concat_columns, full
    from riptide.frame.index import default_index
    from riptide.frame.series import Series

    labels = list(table._data)
    last, last_row = labels[-1], table.index.to_pandas()[-1]  # labels are metadata, read on the host
    for label in (last, last_row):
        if not (label == margins_name or (isinstance(label, tuple) and margins_name in label)):
            raise ValueError(f"{margins_name} not in pivoted DataFrame")
    n = len(table) - 1
    rows, margin_row = table.iloc[:n], table.iloc[n:]
    body = _normalize(rows._with_columns({label: rows._data[label] for label in labels[:-1]}), how, False)
    xp = table._xp()

    def shares(column: Column, total: float | None = None) -> Column:
        values = Series._from_column(column, default_index(len(column), xp))
        return (values / (values.sum() if total is None else total)).fillna(0.0)._column

    if how == "columns":
        result = dict(body._data)
    else:  # the margin row: each column's total as a share of the grand total
        total = sum(float(margin_row._column_series(label).sum()) for label in labels[:-1])  # one read per column
        result = {label: concat_columns([body._data[label], shares(margin_row._data[label], total)])
                  for label in labels[:-1]}  # fmt: skip
    if how in ("columns", "all"):  # the margin column: each row's total as a share of the grand total
        margin = shares(rows._data[last])
        result[last] = concat_columns([margin, full(1, 1.0, np.float64, xp)]) if how == "all" else margin
    return table._with_columns(result, rows.index if how == "columns" else table.index)
