"""groupby: split rows by key, reduce each group, combine — pandas' GroupBy on device columns.

``df.groupby(by)`` returns a :class:`DataFrameGroupBy` (``series.groupby`` a :class:`SeriesGroupBy`).
Nothing is computed until a method is called; then the keys are grouped once (a dense group number
per row, cached on the object as ``_grouping``) and every aggregation is a per-group reduction of one
column (:mod:`riptide.core.ops.group_reduce`): scatter and segmented kernels, no loop over rows or
groups. Transformations (cumsum, shift, rank, head, filter, apply, ...) live in
:mod:`riptide.frame.group_transform` and share the same grouping.

``by`` may be column labels, index level names, Series (aligned on the index), arrays, functions or
dicts of index labels, or a list mixing them; ``level=`` groups by index levels. ``as_index``,
``sort``, ``dropna`` and ``observed`` mean what they mean in pandas 3:

* ``sort=True`` orders groups by key (categoricals by category order, missing keys last);
  ``sort=False`` by first appearance.
* ``observed=False`` with categorical keys: the result has every category (and, with several keys,
  every combination of the categorical keys' categories with the observed values of the others),
  in pandas' order — see :func:`_unobserved_grouping`.
* ``as_index=False`` puts the keys in columns before the results (unnamed keys become ``index`` or
  ``level_<i>``; a key whose name is already a result column is left out).

``agg`` takes a name, a callable, a list of them, a ``{column: ...}`` dict or named aggregations
(``agg(total=("v", "sum"))``). NumPy reductions (``np.sum``, ``np.mean``, ...) run as the named
aggregation; any other callable (a lambda, ``len``, builtin ``sum``) runs once per group on the host,
as pandas 3 runs it, and its results take pandas' dtype inference.

>>> import riptide as rt
>>> df = rt.DataFrame({"k": ["b", "a", "b"], "v": [1, 2, 3]})
>>> df.groupby("k").v.sum().to_pandas().to_dict()
{'a': 2, 'b': 4}
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, as_column
from riptide.core.kernels.sort import lexsort, stable_argsort
from riptide.core.kernels.factorize import factorize
from riptide.core.ops import group_reduce as gr
from riptide.core.ops.grouping import (Groups, aggregates_while_grouping, first_row_of_each, group_rows,
                                        group_rows_aggregating, keys_show_first_rows)  # fmt: skip
from riptide.frame.group_transform import GroupTransformMethods

__all__ = ["SeriesGroupByMethods", "FrameGroupByMethods", "GroupBy", "SeriesGroupBy", "DataFrameGroupBy"]

#: The reductions ``agg`` accepts by name (each is a method of GroupBy).
AGGREGATIONS = ("sum", "prod", "mean", "median", "min", "max", "std", "var", "sem", "skew", "count", "size",
                "first", "last", "nunique", "any", "all", "quantile", "idxmin", "idxmax")  # fmt: skip

#: NumPy reductions that ``agg`` runs as the named aggregation instead of once per group: pandas 3 calls
#: them per group, and they call the Series method (skipna, NumPy's ddof=0 for std/var), which gives the
#: named aggregation's result wherever every group has rows. (np.median and the np.nan* functions go
#: through a NumPy array instead, with NumPy's NaN rules: they run per group.)
_NUMPY_REDUCTIONS: dict[Any, tuple[str, dict[str, Any]]] = {
    np.sum: ("sum", {}), np.prod: ("prod", {}), np.mean: ("mean", {}), np.min: ("min", {}), np.max: ("max", {}),
    np.amin: ("min", {}), np.amax: ("max", {}), np.std: ("std", {"ddof": 0}), np.var: ("var", {"ddof": 0}),
}  # fmt: skip


class SeriesGroupByMethods:
    """``Series.groupby``."""

    __slots__ = ()

    def groupby(self, by: Any = None, level: Any = None, *, as_index: bool = True, sort: bool = True,
                group_keys: bool = True, observed: bool = True, dropna: bool = True) -> SeriesGroupBy:  # fmt: skip
        """Group the Series by ``by`` (Series, arrays, functions of the index, index level names) or index ``level``.

        >>> import riptide as rt
        >>> rt.Series([1, 2, 3], index=["x", "y", "x"]).groupby(level=0).sum().tolist()
        [4, 2]
        """
        if not as_index:
            raise TypeError("as_index=False only valid with DataFrame")
        keys = _resolve_keys(self, by, level)
        sort = sort if keys.sort is None else keys.sort
        grouped = self if keys.obj is None else keys.obj
        return SeriesGroupBy(grouped, keys, sort=sort, group_keys=group_keys, observed=observed, dropna=dropna)


class FrameGroupByMethods:
    """``DataFrame.groupby``."""

    __slots__ = ()

    def groupby(self, by: Any = None, level: Any = None, *, as_index: bool = True, sort: bool = True,
                group_keys: bool = True, observed: bool = True, dropna: bool = True) -> DataFrameGroupBy:  # fmt: skip
        """Group rows by columns, index levels, Series, arrays or functions of the index.

        >>> import riptide as rt
        >>> df = rt.DataFrame({"k": [1, 1, 2], "v": [1.0, 3.0, 5.0]})
        >>> df.groupby("k").mean()["v"].tolist()
        [2.0, 5.0]
        """
        keys = _resolve_keys(self, by, level)
        sort = sort if keys.sort is None else keys.sort
        grouped = self if keys.obj is None else keys.obj
        return DataFrameGroupBy(grouped, keys, as_index=as_index, sort=sort, group_keys=group_keys,
                                observed=observed, dropna=dropna)  # fmt: skip


# --- keys ---------------------------------------------------------------------------------------------------------


@dataclass
class _Keys:
    """The resolved group keys: one column per key, its name, and whether it is a column of the frame.

    ``listed``: the keys were given as a list (then a group's name is a tuple even for one key).
    """

    columns: list[Column]
    names: list[Hashable]
    from_frame: list[bool]  # True where the key is a column of the grouped frame (excluded from the values)
    listed: bool = False
    #: A grouping fixed by the key itself, empty groups included: the time bins of one ``pd.Grouper(freq=...)``
    #: (:mod:`riptide.frame.resample`), as ``(Groups, key values)``. None: group the key columns.
    grouping: Any = None
    #: The order the key imposes (one plain ``pd.Grouper`` brings its own ``sort``); None: the caller's ``sort``.
    sort: bool | None = None
    #: The object to group in place of the caller's: a lone time grouper groups the rows in time order, as pandas
    #: does (None: the caller's object).
    obj: Any = None


def _resolve_keys(obj: Any, by: Any, level: Any) -> _Keys:
    """Turn ``by`` / ``level`` into key columns, with pandas' rules and errors."""
    if by is None and level is None:
        raise TypeError("You have to supply one of 'by' and 'level'")
    if level is not None:
        return _level_keys(obj.index, level)
    is_frame = hasattr(obj, "_data")
    n = len(obj)
    if isinstance(by, pd.Grouper):
        return _grouper_keys(obj, by, is_frame, n)
    if isinstance(by, list):
        if not by:
            raise ValueError("No group keys passed!")
        if len(by) == 1 and isinstance(by[0], pd.Grouper) and by[0].freq is not None:
            # pandas: a list of one time grouper keeps its empty bins too (but not the time order of a lone one)
            from riptide.frame.resample import binned_keys

            return binned_keys(obj, by[0], in_time_order=False, listed=True)
        # pandas: a list of scalars as long as the object is one key of values, unless every scalar
        # names a column or an index level.
        if (len(by) == n and all(_is_label_like(k) for k in by) and not any(isinstance(k, pd.Grouper) for k in by)
                and not all(_names_column_or_level(obj, k, is_frame) for k in by)):  # fmt: skip
            return _Keys([_values_key(obj, by, n)], [None], [False], False)
        items, listed = by, True
    else:
        items, listed = [by], False
    columns: list[Column] = []
    names: list[Hashable] = []
    from_frame: list[bool] = []
    for key in items:
        column, name, own = _one_key(obj, key, is_frame, n)
        columns.append(column)
        names.append(name)
        from_frame.append(own)
    return _Keys(columns, names, from_frame, listed)


def _one_key(obj: Any, key: Any, is_frame: bool, n: int) -> tuple[Column, Hashable, bool]:
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    if isinstance(key, pd.Grouper):  # in a list of keys: time bins are one more key (empty bins dropped)
        if key.freq is not None:
            from riptide.frame.resample import binned_key

            return binned_key(obj, key)
        keys = _grouper_keys(obj, key, is_frame, n)
        return keys.columns[0], keys.names[0], keys.from_frame[0]
    if isinstance(key, pd.Series):
        key = Series(key)
    if isinstance(key, Series):
        # A column of the frame itself (df.groupby(df["k"])) is a key "in the axis", as in pandas.
        own = is_frame and _hashable(key.name) and key.name in obj._data and obj._data[key.name] is key._column
        aligned = key if key.index.equals(obj.index) else key.reindex(obj.index)
        return aligned._column.to_device(_namespace(obj)), key.name, bool(own)
    if isinstance(key, Index | pd.Index):
        _check_key_length(len(key), n)
        column = key._as_column() if isinstance(key, Index) else as_column(key, xp=_namespace(obj))
        return column, key.name, False
    if isinstance(key, np.ndarray | list) or _device.is_device_array(key):
        return _values_key(obj, key, n), None, False
    if callable(key) or isinstance(key, dict):
        # A function (or mapping) of the index labels: evaluated label by label on the host, as pandas does.
        mapped = obj.index.to_pandas().map(key)
        return as_column(mapped, xp=_namespace(obj)), obj.index.name if obj.index.nlevels == 1 else None, False
    if is_frame and _hashable(key) and key in obj._data:
        return _column_key(obj, key)
    if _hashable(key) and key is not None and key in obj.index.names:
        position = obj.index.names.index(key)
        return obj.index._key_columns()[position], key, False
    raise KeyError(key)


def _column_key(obj: Any, label: Hashable) -> tuple[Column, Hashable, bool]:
    """The key of a frame's column ``label`` (pandas refuses a label that also names an index level)."""
    if label in obj.index.names:
        raise ValueError(f"'{label}' is both an index level and a column label, which is ambiguous.")
    return obj._data[label], label, True


def _grouper_keys(obj: Any, grouper: Any, is_frame: bool, n: int) -> _Keys:
    """The key of one ``pd.Grouper``: time bins with ``freq`` (every bin between the first and the last, as
    resample gives them), else its ``key`` column or index ``level``, in the Grouper's own ``sort`` order."""
    if grouper.freq is not None:
        from riptide.frame.resample import binned_keys

        return binned_keys(obj, grouper)
    if grouper.key is not None:
        if not _names_column_or_level(obj, grouper.key, is_frame):
            raise KeyError(f"The grouper name {grouper.key} is not found")
        column, name, own = _one_key(obj, grouper.key, is_frame, n)
        return _Keys([column], [name], [own], sort=bool(grouper.sort))
    if grouper.level is not None:
        keys = _level_keys(obj.index, grouper.level)
        keys.sort = bool(grouper.sort)
        return keys
    raise TypeError("pd.Grouper() needs a key, a level or a freq to group by")


def _values_key(obj: Any, values: Any, n: int) -> Column:
    _check_key_length(len(values), n)
    return as_column(values, xp=_namespace(obj))


def _level_keys(index: Any, level: Any) -> _Keys:
    """Keys for ``level=`` (a level name or number, or a list of them)."""
    levels = list(level) if isinstance(level, list | tuple) else [level]
    if index.nlevels == 1:
        # pandas' rules for a flat index: one level, named by the index name or as 0 / -1.
        if len(levels) > 1:
            raise ValueError("multiple levels only valid with MultiIndex")
        if not levels:
            raise ValueError("No group keys passed!")
        (lvl,) = levels
        if isinstance(lvl, str) and lvl != index.name:
            raise ValueError(f"level name {lvl} is not the name of the index")
        if not isinstance(lvl, str) and lvl != index.name and (lvl > 0 or lvl < -1):
            raise ValueError("level > 0 or level < -1 only valid with MultiIndex")
        return _Keys([index._key_columns()[0]], [index.name], [False], isinstance(level, list | tuple))
    positions = [index._level_number(lvl) for lvl in levels]
    return _Keys([index._key_columns()[p] for p in positions], [index.names[p] for p in positions],
                 [False] * len(positions), isinstance(level, list | tuple))  # fmt: skip


def _is_label_like(key: Any) -> bool:
    """Not an array, Series, function or mapping: something that could name a column."""
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    return not (callable(key) or isinstance(key, dict | list | tuple | np.ndarray | Series | Index | pd.Series
                                                | pd.Index) or _device.is_device_array(key))  # fmt: skip


def _names_column_or_level(obj: Any, key: Any, is_frame: bool) -> bool:
    if not _hashable(key):
        return False
    return (is_frame and key in obj._data) or key in obj.index.names


def _check_key_length(got: int, expected: int) -> None:
    if got != expected:
        raise ValueError(f"Grouper and axis must be same length (the key has {got} values, the object {expected} "
                         "rows)")  # fmt: skip


def _hashable(key: Any) -> bool:
    try:
        hash(key)
    except TypeError:
        return False
    return True


def _namespace(obj: Any) -> Any:
    return obj.index._namespace


# --- the grouping -------------------------------------------------------------------------------------------------


def _unobserved_grouping(columns: list[Column], sort: bool, dropna: bool) -> tuple[Groups, list[Column]]:
    """``observed=False``: every category of the categorical keys, as pandas 3 builds it.

    Each categorical key contributes all its categories (a "level"): in category order with
    ``sort=True``, else in order of first appearance followed by the unseen categories; a missing key
    (``dropna=False``) is one more value, last (sort) or where it first appears. The other keys
    contribute their observed combinations (``group_rows``). The result is every (observed
    combination, category combination) pair, numbered observed-major; then ``sort=True`` sorts the
    pairs by key, and ``sort=False`` moves the pairs that occur to the front, in order of appearance.
    With categorical keys only, the pairs stay in level order (no reordering, as in pandas).
    """
    xp = columns[0].xp
    n = columns[0].size
    categorical = [i for i, c in enumerate(columns) if isinstance(c, CategoricalColumn)]
    others = [i for i in range(len(columns)) if i not in categorical]
    # The product of the categorical levels: a mixed-radix number per row.
    levels = [_category_level(columns[i], sort, dropna) for i in categorical]
    product_ids = xp.zeros(n, dtype=np.int64)
    product_size = 1
    for codes, _, size in levels:
        product_ids = xp.where((product_ids < 0) | (codes < 0), -1, product_ids * size + codes)
        product_size *= size
    combo = xp.arange(product_size, dtype=np.int64)
    product_values: list[Column] = []
    stride = product_size
    for _, values, size in levels:
        if product_size == 0:  # a key without categories: no combination at all
            product_values.append(values.take(combo))
            continue
        stride //= size
        product_values.append(values.take((combo // stride) % size))
    if not others:
        ids, n_groups, key_values = product_ids, product_size, product_values
        keys_by_position = dict(zip(categorical, key_values, strict=True))
        return _groups_with_first_rows(ids, n_groups, n, xp), [keys_by_position[i] for i in range(len(columns))]
    observed = group_rows([columns[i] for i in others], sort=sort, dropna=dropna)
    observed_values = [columns[i].take(observed.first_rows) for i in others]
    n_groups = observed.n_groups * product_size
    ids = xp.where((observed.ids < 0) | (product_ids < 0), -1, observed.ids * product_size + product_ids)
    pair = xp.arange(n_groups, dtype=np.int64)
    keys_by_position: dict[int, Column] = {}
    for i, values in zip(others, observed_values, strict=True):
        keys_by_position[i] = values.take(pair // product_size) if product_size else values.take(pair)
    for i, values in zip(categorical, product_values, strict=True):
        keys_by_position[i] = values.take(pair % product_size) if product_size else values.take(pair)
    if sort:
        # Sort the pairs by each key in turn: the observed keys by value (missing last), the categorical
        # ones by level position (already category order, missing last).
        ranks = []
        for i in range(len(columns)):
            if i in others:
                codes, count = factorize(observed_values[others.index(i)])
                codes = xp.where(codes < 0, count, codes)
                ranks.append(codes[pair // product_size] if product_size else codes[pair])
            else:
                ranks.append(_level_positions(pair, levels, categorical.index(i), product_size))
        permutation = lexsort(ranks, xp) if n_groups else pair
    else:
        # Pairs that occur first (by first row), then the others in pair order.
        first = first_row_of_each(ids, n_groups, xp)
        permutation = stable_argsort(xp.where(first < n, first, n + pair), xp)
    rank = xp.empty(n_groups, dtype=np.int64)
    rank[permutation] = pair
    ids = xp.where(ids < 0, -1, rank[xp.maximum(ids, 0)]) if n_groups else ids
    key_values = [keys_by_position[i].take(permutation) for i in range(len(columns))]
    return _groups_with_first_rows(ids, n_groups, n, xp), key_values


def _level_positions(pair: Any, levels: list, which: int, product_size: int) -> Any:
    """Position in its categorical level of each pair's ``which``-th categorical key."""
    stride = product_size
    for _, _, size in levels[: which + 1]:
        stride //= size
    return (pair % product_size) // stride % levels[which][2] if product_size else pair


def _category_level(column: CategoricalColumn, sort: bool, dropna: bool) -> tuple[Any, Column, int]:
    """One categorical key's level for ``observed=False``: (level position per row or -1, level values, size)."""
    xp = column.xp
    n = column.size
    codes = column.codes.astype(np.int64)
    count = len(column.dtype.categories)
    category = xp.arange(count, dtype=np.int64)
    if sort:
        by_position = category
        positions = codes
    else:
        # pandas recodes the categories by first appearance, the unseen ones after them in category order.
        first = first_row_of_each(codes, count, xp)
        by_position = stable_argsort(xp.where(first < n, first, n + category), xp)
        position_of = xp.empty(count, dtype=np.int64)
        position_of[by_position] = category
        positions = xp.where(codes < 0, -1, position_of[xp.maximum(codes, 0)]) if count else codes
    values = CategoricalColumn(by_position.astype(column.codes.dtype), column.categories,
                               ordered=column.dtype.ordered)  # fmt: skip
    missing = codes < 0
    if dropna or not bool(missing.any()):  # one scalar read: whether a missing-key group exists
        return positions, values, count
    if sort:
        at = xp.full(1, count, dtype=np.int64)
    else:
        # The missing key goes where it first appears: after the categories seen before it.
        first_missing = xp.argmax(missing)
        seen_before = xp.zeros(1, dtype=np.int64) + ((first < first_missing) & (first < n)).sum()
        at = seen_before
    positions = xp.where(missing, at, xp.where(positions >= at, positions + 1, positions))
    slots = xp.arange(count + 1, dtype=np.int64)
    source = xp.where(slots < at, slots, xp.where(slots == at, -1, slots - 1))
    return positions, values.take_or_missing(source), count + 1


def _key_values(columns: list[Column], groups: Groups) -> list[Column]:
    """The key values of each group: any row of a group holds them, except that float keys take the first row
    (0.0 and -0.0 are one key; pandas shows the first one seen). A grouping may know them already."""
    if groups.key_values is not None:
        return groups.key_values
    rows = groups.first_rows if keys_show_first_rows(columns) else groups.representatives
    return [c.take(rows) for c in columns]


def _groups_with_first_rows(ids: Any, n_groups: int, n: int, xp: Any) -> Groups:
    """Groups whose ``first_rows`` hold -1 for a group no row belongs to (an unobserved category)."""
    first = first_row_of_each(ids, n_groups, xp)
    return Groups(ids=ids, n_groups=n_groups, first_rows=xp.where(first == n, -1, first), xp=xp)


# --- the GroupBy objects ----------------------------------------------------------------------------------------


class GroupBy(GroupTransformMethods):
    """Shared machinery of SeriesGroupBy and DataFrameGroupBy: the grouping, the result index and wrapping."""

    def __init__(self, obj: Any, keys: _Keys, *, as_index: bool = True, sort: bool = True, group_keys: bool = True,
                 observed: bool = True, dropna: bool = True, selection: Any = None):  # fmt: skip
        self._obj = obj
        self._keys = keys
        self._as_index = as_index
        self._sort = sort
        self._group_keys = group_keys
        self._observed = observed
        self._dropna = dropna
        self._selection = selection

    def _options(self) -> dict[str, Any]:
        return dict(as_index=self._as_index, sort=self._sort, group_keys=self._group_keys, observed=self._observed,
                    dropna=self._dropna)  # fmt: skip

    def _share_grouping(self, other: GroupBy) -> GroupBy:
        """Hand this object's grouping (if computed) to a narrower GroupBy over the same rows."""
        if "_grouping" in self.__dict__:
            other.__dict__["_grouping"] = self.__dict__["_grouping"]
        return other

    def _indexed(self) -> GroupBy:
        """This GroupBy with as_index=True (same grouping): for results assembled before the keys are placed."""
        if self._as_index:
            return self
        clone = type(self)(self._obj, self._keys, **{**self._options(), "as_index": True}, selection=self._selection)
        clone.__dict__["_grouping"] = self._grouping
        return clone

    @property
    def obj(self) -> Any:
        """The grouped Series or DataFrame (before any column selection)."""
        return self._obj

    # --- the grouping ----------------------------------------------------------------------------------------
    @cached_property
    def _grouping(self) -> tuple[Groups, list[Column]]:
        """The row -> group mapping and the key values of each group (one column per key)."""
        if self._keys.grouping is not None:  # time bins: the key decided the groups, empty bins included
            return self._keys.grouping
        columns = self._keys.columns
        if not self._observed and any(isinstance(c, CategoricalColumn) for c in columns):
            return _unobserved_grouping(columns, self._sort, self._dropna)
        groups = group_rows(columns, sort=self._sort, dropna=self._dropna)
        return groups, _key_values(columns, groups)

    def _aggregate_while_grouping(self, requests: list[tuple[Column | None, str, dict]]) -> None:
        """Group and compute these (column, aggregation name, options) requests in one pass, when the grouping is
        not known yet and the GPU kernel can (:func:`~riptide.core.ops.grouping.group_rows_aggregating`).

        The reductions then find their per-group results in the grouping and finish them as usual; nothing
        changes when this does not apply.
        """
        if "_grouping" in self.__dict__ or not requests or self._keys.grouping is not None:
            return
        columns = self._keys.columns
        if not aggregates_while_grouping(columns):  # the NumPy path, or a row count the hash table does not take
            return
        if not self._observed and any(isinstance(c, CategoricalColumn) for c in columns):
            return
        wanted: dict[tuple[int, str], tuple[Column | None, str]] = {}
        for column, op, options in requests:
            kinds = gr.partial_kinds(column, op, skipna=options.get("skipna", True),
                                     min_count=options.get("min_count", 0))  # fmt: skip
            if kinds is None:
                return
            wanted.update({(id(column), kind): (column, kind) for kind in kinds})
        groups = group_rows_aggregating(columns, list(wanted.values()), sort=self._sort, dropna=self._dropna)
        if groups is not None:
            self.__dict__["_grouping"] = (groups, _key_values(columns, groups))

    @property
    def _groups(self) -> Groups:
        return self._grouping[0]

    @property
    def ngroups(self) -> int:
        return self._groups.n_groups

    def __len__(self) -> int:
        return self.ngroups

    def _result_index(self) -> Any:
        """The index of an aggregation: the group keys (a MultiIndex for several keys)."""
        from riptide.frame.index import Index

        key_values = self._grouping[1]
        if len(key_values) == 1:
            return Index._from_column(key_values[0], self._keys.names[0])
        from riptide.frame.multi_index import MultiIndex

        return MultiIndex._from_columns(key_values, list(self._keys.names))

    def _key_label(self, name: Any) -> Any:
        return tuple(name) if self._keys.listed and not isinstance(name, tuple) else name

    @property
    def groups(self) -> dict[Any, Any]:
        """{group key: index labels of its rows} (built on the host: meant for inspection)."""
        from riptide.frame.index import as_index

        labels = self._obj.index.to_pandas()
        ids = _host(self._groups.ids)
        keys = self._result_index().to_pandas()
        return {keys[g]: as_index(labels[ids == g]) for g in range(self.ngroups)}

    @property
    def indices(self) -> dict[Any, np.ndarray]:
        """{group key: row positions} (NumPy arrays, as pandas gives them)."""
        ids = _host(self._groups.ids)
        keys = self._result_index().to_pandas()
        positions = {keys[g]: np.flatnonzero(ids == g) for g in range(self.ngroups)}
        if len(self._keys.columns) > 1:  # pandas lists the empty groups of one key only
            positions = {key: rows for key, rows in positions.items() if rows.shape[0]}
        return positions

    def get_group(self, name: Any) -> Any:
        """The rows of one group, as the grouped object's type."""
        keys = self._result_index().to_pandas()
        lookup = name
        if self._keys.listed and len(self._keys.columns) == 1:
            # Grouped by a list of one key: the group names are 1-tuples.
            if not (isinstance(name, tuple) and len(name) == 1):
                raise KeyError(name)
            lookup = name[0]
        try:
            g = keys.get_loc(lookup)
        except (KeyError, TypeError):
            raise KeyError(name) from None
        if not isinstance(g, int | np.integer):
            raise KeyError(name)
        xp = self._groups.xp
        rows = xp.flatnonzero(self._groups.ids == int(g))
        return _take_rows(self._selected_obj(), rows)

    def __iter__(self):
        """(group key, rows) pairs, one sub-object per group with rows: for inspection, not a data path."""
        keys = self._result_index().to_pandas()
        xp = self._groups.xp
        order = self._groups.order()
        sizes = _host(self._groups.sizes())
        starts = np.concatenate([[0], np.cumsum(sizes)])
        obj = self._selected_obj()
        for g in range(self.ngroups):  # an unobserved category gives an empty object, as in pandas
            rows = order[int(starts[g]) : int(starts[g + 1])]
            yield self._key_label(keys[g]), _take_rows(obj, xp.sort(rows))

    # --- what the subclasses provide ---------------------------------------------------------------------------
    def _selected_obj(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _value_items(self) -> list[tuple[Hashable, Column]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _wrap(self, columns: dict[Hashable, Column], op: str | None = None) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    # --- wrapping results ------------------------------------------------------------------------------------------
    def _frame(self, columns: dict[Hashable, Column], index: Any = None) -> Any:
        """A DataFrame of one row per group: the group index, or (as_index=False) the keys as leading columns."""
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.index import default_index

        if self._as_index:
            return DataFrame._from_columns(columns, self._result_index() if index is None else index)
        keys = self._key_columns(list(columns))
        return DataFrame._from_columns({**keys, **columns}, default_index(self.ngroups, self._groups.xp))

    def _key_columns(self, labels: list[Hashable]) -> dict[Hashable, Column]:
        """pandas' as_index=False key columns: each key unless a result column has its name already."""
        n_keys = len(self._keys.columns)
        depth = max((len(label) for label in labels if isinstance(label, tuple)), default=0)
        taken = set(labels)
        keys: dict[Hashable, Column] = {}
        for position in reversed(range(n_keys)):
            name = self._keys.names[position]
            if name is None:
                name = "index" if n_keys == 1 else f"level_{position}"
            if depth and not isinstance(name, tuple):
                name = (name,) + ("",) * (depth - 1)  # pad to the column labels' depth, as pandas does
            if name in taken:
                continue
            taken.add(name)
            keys = {name: self._grouping[1][position], **keys}
        return keys

    # --- aggregations --------------------------------------------------------------------------------------------
    def _aggregate(self, op: str, numeric_only: bool = False, **kwargs: Any) -> Any:
        if not isinstance(numeric_only, bool | np.bool_):
            raise ValueError("numeric_only accepts only Boolean values")
        items = self._value_items()
        if numeric_only:
            if isinstance(self, SeriesGroupBy) and not _is_numeric(items[0][1]):
                raise TypeError(f"Cannot use numeric_only=True with SeriesGroupBy.{op} and non-numeric dtypes.")
            items = [(label, column) for label, column in items if _is_numeric(column)]
        if op in ("idxmin", "idxmax"):
            self._check_idx(op, items, kwargs.get("skipna", True))
            for _, column in items:  # pandas refuses every unsupported column before any all-missing group
                gr.check_supported(column, op)
        self._aggregate_while_grouping([(column, op, kwargs) for _, column in items])
        if op in ("sum", "prod", "skew") and isinstance(self, DataFrameGroupBy):
            return self._wrap(self._sum_blocks(op, items, kwargs), op)
        results = {label: self._reduce_column(column, op, label, **kwargs) for label, column in items}
        return self._wrap(results, op)

    def _sum_blocks(self, op: str, items: list[tuple[Hashable, Column]], kwargs: dict) -> dict[Hashable, Column]:
        """A DataFrame's int sums/products/skews, settled block by block as pandas settles them.

        pandas computes sums and products in 64 bits per 2-D block of same-dtype columns and narrows a block
        back to its dtype only when every result of every column fits (``gr.narrow_together``); it casts a
        block's float skews back to the int dtype only when every skew of every column is a whole number
        (``gr.cast_back_together``; blocks of any int width, a masked column decides alone). Which columns
        share a block: ``_narrow_int_blocks``.
        """
        # The blocks of the frame's value columns (group_transform's rule, shared with cumsum/cumprod); numeric_only
        # drops columns after pandas made the blocks, so a block keeps only the items still reduced.
        place = {label: i for i, (label, _) in enumerate(items)}
        blocks = [[place[label] for label in block if label in place]
                  for block in self._narrow_int_blocks(wide=op == "skew")]  # fmt: skip
        blocks = [block for block in blocks if block]
        in_block = {i for block in blocks for i in block}
        results = [self._reduce_column(column, op, label, narrow=i not in in_block, **kwargs)
                   for i, (label, column) in enumerate(items)]  # fmt: skip
        settle = gr.cast_back_together if op == "skew" else gr.narrow_together
        for block in blocks:
            narrowed = settle([results[i] for i in block], items[block[0]][1].dtype)
            for i, column in zip(block, narrowed, strict=True):
                results[i] = column
        return {label: results[i] for i, (label, _) in enumerate(items)}

    def _reduce_column(self, column: Column, op: str, label: Any = None, **kwargs: Any) -> Column:
        """One column reduced per group (idxmin/idxmax give the index labels of the chosen rows)."""
        groups = self._groups
        if op in ("idxmin", "idxmax"):
            skipna = kwargs.get("skipna", True)
            positions = gr.group_positions(column, groups, op, skipna=skipna)
            if bool((positions < 0).any()):  # one scalar read: pandas refuses a group without a value
                raise ValueError(f"{op} with skipna=True encountered all NA values in a group." if skipna else
                                 f"{op} with skipna=False encountered an NA value.")  # fmt: skip
            return self._obj.index._as_column().take(positions)
        if op == "size":
            return gr.group_reduce(column, groups, "size")
        return gr.group_reduce(column, groups, op, **kwargs)

    def _check_idx(self, op: str, items: list[tuple[Hashable, Column]], skipna: bool) -> None:
        """pandas' up-front checks of idxmin/idxmax (before any column is reduced).

        An unobserved category is an error when there is a column to reduce; with skipna=False a missing
        value in any selected column is (numeric_only or not: pandas looks before it filters).
        """
        if not self._observed and any(isinstance(c, CategoricalColumn) for c in self._keys.columns):
            if items and bool((self._groups.sizes() == 0).any()):  # one scalar read: a category without rows
                raise ValueError(f"Can't get {op} of an empty group due to unobserved categories. "
                                 "Specify observed=True in groupby instead.")  # fmt: skip
        elif not skipna:
            for _, column in self._value_items():
                if column.can_hold_missing() and bool(column.isna().any()):  # one scalar read per column
                    raise ValueError(f"{op} with skipna=False encountered an NA value.")

    def sum(self, numeric_only: bool = False, min_count: int = 0, skipna: bool = True, engine: Any = None,
            engine_kwargs: Any = None) -> Any:  # fmt: skip
        """Sum of each group (strings concatenate; ints wrap in 64 bits).

        >>> import riptide as rt
        >>> rt.Series([1, 2, 3]).groupby([0, 0, 1]).sum().tolist()
        [3, 3]
        """
        return self._aggregate("sum", numeric_only, min_count=min_count, skipna=skipna)

    def prod(self, numeric_only: bool = False, min_count: int = 0, skipna: bool = True) -> Any:
        return self._aggregate("prod", numeric_only, min_count=min_count, skipna=skipna)

    def mean(self, numeric_only: bool = False, skipna: bool = True, engine: Any = None,
             engine_kwargs: Any = None) -> Any:  # fmt: skip
        return self._aggregate("mean", numeric_only, skipna=skipna)

    def median(self, numeric_only: bool = False, skipna: bool = True) -> Any:
        return self._aggregate("median", numeric_only, skipna=skipna)

    def min(self, numeric_only: bool = False, min_count: int = -1, skipna: bool = True, engine: Any = None,
            engine_kwargs: Any = None) -> Any:  # fmt: skip
        return self._aggregate("min", numeric_only, min_count=min_count, skipna=skipna)

    def max(self, numeric_only: bool = False, min_count: int = -1, skipna: bool = True, engine: Any = None,
            engine_kwargs: Any = None) -> Any:  # fmt: skip
        return self._aggregate("max", numeric_only, min_count=min_count, skipna=skipna)

    def std(self, ddof: int = 1, engine: Any = None, engine_kwargs: Any = None, numeric_only: bool = False,
            skipna: bool = True) -> Any:  # fmt: skip
        return self._aggregate("std", numeric_only, ddof=ddof, skipna=skipna)

    def var(self, ddof: int = 1, engine: Any = None, engine_kwargs: Any = None, numeric_only: bool = False,
            skipna: bool = True) -> Any:  # fmt: skip
        return self._aggregate("var", numeric_only, ddof=ddof, skipna=skipna)

    def sem(self, ddof: int = 1, numeric_only: bool = False, skipna: bool = True) -> Any:
        return self._aggregate("sem", numeric_only, ddof=ddof, skipna=skipna)

    def skew(self, skipna: bool = True, numeric_only: bool = False, **kwargs: Any) -> Any:
        """Unbiased (bias-corrected) skewness of each group's values, as pandas 3 computes it: NaN for a group
        with fewer than 3 values or with all its values equal; ``skipna=False`` makes a group holding a missing
        value NaN. Floats keep their width, ints and bools give float64 (masked dtypes Float64), except that
        pandas hands an int column's skews back in its own dtype when all of them are whole numbers.

        >>> import riptide as rt
        >>> rt.Series([1.0, 2.0, 4.0, 8.0, 1.0]).groupby([0, 0, 0, 0, 1]).skew().round(6).tolist()
        [1.137624, nan]
        """
        if kwargs:
            raise TypeError(f"skew() got unexpected keyword arguments: {', '.join(sorted(kwargs))}")
        return self._aggregate("skew", numeric_only, skipna=skipna)

    def count(self) -> Any:
        return self._aggregate("count")

    def first(self, numeric_only: bool = False, min_count: int = -1, skipna: bool = True) -> Any:
        return self._aggregate("first", numeric_only, min_count=min_count, skipna=skipna)

    def last(self, numeric_only: bool = False, min_count: int = -1, skipna: bool = True) -> Any:
        return self._aggregate("last", numeric_only, min_count=min_count, skipna=skipna)

    def nunique(self, dropna: bool = True) -> Any:
        return self._aggregate("nunique", dropna=dropna)

    def any(self, skipna: bool = True) -> Any:
        return self._aggregate("any", skipna=skipna)

    def all(self, skipna: bool = True) -> Any:
        return self._aggregate("all", skipna=skipna)

    def quantile(self, q: Any = 0.5, interpolation: str = "linear", numeric_only: bool = False) -> Any:
        """The q-quantile of each group; a list of q adds an inner index level holding q.

        >>> import riptide as rt
        >>> rt.Series([1.0, 2.0, 3.0, 4.0]).groupby([0, 0, 0, 1]).quantile(0.25).tolist()
        [1.5, 4.0]
        """
        if interpolation not in gr.INTERPOLATIONS:
            raise KeyError(f"interpolation {interpolation!r} is not one of {', '.join(gr.INTERPOLATIONS)}")
        qs = [q] if np.isscalar(q) else list(np.asarray(_host(q) if not isinstance(q, list) else q, dtype=float))
        for value in qs:
            if not 0 <= value <= 1:
                raise ValueError(f"Each 'q' must be between 0 and 1. Got '{value}' instead")
        if np.isscalar(q):
            return self._aggregate("quantile", numeric_only, q=float(q), interpolation=interpolation)
        return self._quantiles(qs, interpolation, numeric_only)

    def _quantiles(self, qs: list[float], interpolation: str, numeric_only: bool) -> Any:
        """Several quantiles: one result per q, interleaved group-major under an extra index level of q."""
        from riptide.core.column import concat_columns
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.index import default_index
        from riptide.frame.multi_index import MultiIndex

        xp = self._groups.xp
        indexed = self._indexed()
        parts = [indexed._aggregate("quantile", numeric_only, q=value, interpolation=interpolation) for value in qs]
        n_groups, n_q = self.ngroups, len(qs)
        # Row r of the result is group r // n_q, quantile r % n_q.
        rows = xp.arange(n_groups * n_q, dtype=np.int64)
        order = (rows % n_q) * n_groups + rows // n_q
        q_level = NumericColumn(xp.asarray(np.tile(np.asarray(qs, dtype=np.float64), n_groups)))
        key_levels = [values.take(rows // n_q) for values in self._grouping[1]]
        if isinstance(self, SeriesGroupBy):
            columns = {self._obj.name: concat_columns([part._column for part in parts]).take(order)}
        else:
            columns = {label: concat_columns([part._data[label] for part in parts]).take(order)
                       for label in parts[0]._data}  # fmt: skip
        if self._as_index:
            index = MultiIndex._from_columns(key_levels + [q_level], list(self._keys.names) + [None])
            if isinstance(self, SeriesGroupBy):
                return self._series_result(columns[self._obj.name], index)
            return DataFrame._from_columns(columns, index)
        n_keys = len(key_levels)
        leading = {f"level_{n_keys}": q_level}
        for position in reversed(range(n_keys)):
            name = self._keys.names[position]
            name = f"level_{position}" if name is None else name
            if name not in columns and name not in leading:
                leading = {name: key_levels[position], **leading}
        return DataFrame._from_columns({**leading, **columns}, default_index(n_groups * n_q, xp))

    def _series_result(self, column: Column, index: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def idxmin(self, skipna: bool = True, numeric_only: bool = False) -> Any:
        return self._aggregate("idxmin", numeric_only, skipna=skipna)

    def idxmax(self, skipna: bool = True, numeric_only: bool = False) -> Any:
        return self._aggregate("idxmax", numeric_only, skipna=skipna)

    def size(self) -> Any:
        """Rows per group (an int64 Series; a DataFrame with a "size" column when as_index=False)."""
        from riptide.frame.series import Series

        self._aggregate_while_grouping([(None, "size", {})])
        sizes = NumericColumn(self._groups.sizes())
        if isinstance(self, SeriesGroupBy) and dtypes.is_masked(self._obj.dtype):
            # pandas: the size of a masked Series' groups is Int64 (a DataFrame's is int64).
            sizes = NumericColumn(sizes.data, dtype=pd.Int64Dtype(), mask=self._groups.xp.ones(self.ngroups, bool))
        if self._as_index:
            name = self._obj.name if isinstance(self, SeriesGroupBy) else None
            return Series._from_column(sizes, self._result_index(), name)
        return self._frame({"size": sizes})

    def ohlc(self) -> Any:
        """Open (first), high (max), low (min) and close (last) of each group: four columns, under each
        column's label for a DataFrameGroupBy (a numeric column only, as pandas).

        >>> import riptide as rt
        >>> rt.Series([3, 5, 1, 4]).groupby([0, 0, 0, 1]).ohlc().to_pandas().values.tolist()
        [[3, 5, 1, 1], [4, 4, 4, 4]]
        """
        items = self._value_items()
        if not items or any(not dtypes.is_numeric_or_bool(column.dtype) for _, column in items):
            raise pd.errors.DataError("No numeric types to aggregate")
        parts = (("open", "first"), ("high", "max"), ("low", "min"), ("close", "last"))
        self._aggregate_while_grouping([(column, op, {}) for _, column in items for _, op in parts])
        columns: dict[Hashable, Column] = {}
        for label, column in items:
            for part, op in parts:
                columns[part if isinstance(self, SeriesGroupBy) else (label, part)] = self._reduce_column(column, op)
        return self._frame(columns)

    def describe(self, percentiles: Any = None, include: Any = None, exclude: Any = None) -> Any:
        """count, mean, std, min, the percentiles (25%, 50%, 75% by default) and max of each numeric column per group
        (float64, Float64 for a nullable column), as pandas.

        >>> import riptide as rt
        >>> rt.Series([1.0, 3.0, 5.0]).groupby([0, 0, 1]).describe()["mean"].tolist()
        [2.0, 5.0]
        """
        from riptide.core.ops.cast import astype

        if include is not None or exclude is not None:
            raise NotImplementedError("GroupBy.describe with include= or exclude= (numeric columns only)")
        qs = [0.25, 0.5, 0.75] if percentiles is None else sorted({float(p) for p in percentiles})
        for q in qs:
            if not 0 <= q <= 1:
                raise ValueError("percentiles should all be in the interval [0, 1].")
        items = [(label, column) for label, column in self._value_items() if _describes_as_number(column)]
        if not items:
            raise NotImplementedError("GroupBy.describe of non-numeric columns (count/unique/top/freq per group)")
        self._aggregate_while_grouping([(column, op, {}) for _, column in items for op in ("count", "mean", "std",
                                                                                            "min", "max")])  # fmt: skip
        columns: dict[Hashable, Column] = {}
        for label, column in items:
            target = pd.Float64Dtype() if dtypes.is_masked(column.dtype) else np.dtype(np.float64)
            stats = [("count", self._reduce_column(column, "count")), ("mean", self._reduce_column(column, "mean")),
                     ("std", self._reduce_column(column, "std", ddof=1)), ("min", self._reduce_column(column, "min"))]
            stats += [(f"{q * 100:g}%", self._reduce_column(column, "quantile", q=q, interpolation="linear"))
                      for q in qs]  # fmt: skip
            stats.append(("max", self._reduce_column(column, "max")))
            for stat, values in stats:
                values = values if values.dtype == target else astype(values, target)
                columns[stat if isinstance(self, SeriesGroupBy) else (label, stat)] = values
        return self._frame(columns)

    def _value_counts(self, items: list[tuple[Hashable, Column]], normalize: bool, sort: bool, ascending: bool,
                      dropna: bool) -> Any:  # fmt: skip
        """Rows per distinct (group, values) combination, as pandas counts them: the combinations in order of first
        appearance, stably sorted by count (``sort``), then by group (groupby's ``sort``); ``normalize`` gives each
        count's share of its group."""
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.index import default_index
        from riptide.frame.multi_index import MultiIndex
        from riptide.frame.series import Series

        if not self._observed and any(isinstance(c, CategoricalColumn) for c in self._keys.columns + [
                column for _, column in items]):  # fmt: skip
            raise NotImplementedError("GroupBy.value_counts with observed=False and categorical keys or values")
        groups, key_values = self._grouping
        xp = groups.xp
        ids = groups.ids.astype(np.int64, copy=False)
        columns: dict[Hashable, Column] = {0: NumericColumn(ids)}
        columns.update({position + 1: column for position, (_, column) in enumerate(items)})
        frame = DataFrame._from_columns(columns, default_index(ids.shape[0], xp))
        kept = ids >= 0  # rows of a dropped (missing) key belong to no group
        if not bool(kept.all()):  # one scalar read: whether any row is dropped
            kept_columns = {label: column.filter(kept) for label, column in columns.items()}
            # the kept row count is the filtered columns' size: no second read of kept.sum()
            frame = frame._with_columns(kept_columns, default_index(kept_columns[0].size, xp))
        counted = frame.groupby(list(columns), sort=False, dropna=dropna).size()
        levels = counted.index._key_columns()
        group = levels[0].data
        counts = counted._column.data
        order = None
        if sort:
            order = stable_argsort(counts if ascending else -counts, xp)
        if self._sort:
            by_group = stable_argsort(group if order is None else group[order], xp)
            order = by_group if order is None else order[by_group]
        if order is not None:
            group, counts, levels = group[order], counts[order], [level.take(order) for level in levels]
        name = "proportion" if normalize else "count"
        values = NumericColumn(counts)
        if normalize:
            totals = xp.bincount(group, weights=counts.astype(np.float64), minlength=groups.n_groups)
            values = NumericColumn(counts / totals[group])
        level_columns = [key.take(group) for key in key_values] + levels[1:]
        names = list(self._keys.names) + [label for label, _ in items]
        if self._as_index:
            return Series._from_column(values, MultiIndex._from_columns(level_columns, names), name)
        labels = [f"level_{i}" if label is None else label for i, label in enumerate(names)]
        if name in labels:
            raise ValueError(f"Column label '{name}' is duplicate of result column")
        if len(set(labels)) < len(labels):
            raise ValueError(f"riptide DataFrames need unique column labels; {labels} repeat one")
        return DataFrame._from_columns({**dict(zip(labels, level_columns)), name: values},
                                       default_index(values.size, xp))  # fmt: skip

    # --- agg ------------------------------------------------------------------------------------------------------
    def agg(self, func: Any = None, *args: Any, engine: Any = None, engine_kwargs: Any = None, **kwargs: Any) -> Any:
        """Aggregate with a name, a callable, a list of them, a {column: ...} dict, or named aggregations.

        >>> import riptide as rt
        >>> df = rt.DataFrame({"k": [1, 1, 2], "v": [1.0, 3.0, 5.0]})
        >>> df.groupby("k").agg(lo=("v", "min"), hi=("v", "max")).to_pandas().values.tolist()
        [[1.0, 3.0], [5.0, 5.0]]
        """
        self._aggregate_while_grouping(self._named_requests(func, kwargs))
        if func is None:
            if not kwargs:
                raise TypeError("Must provide 'func' or tuples of '(column, aggfunc).")
            return self._named_agg(kwargs)
        if isinstance(func, dict):
            return self._dict_agg(func)
        if isinstance(func, list | tuple):
            return self._list_agg(list(func))
        return self._one_agg(func, *args, **kwargs)

    aggregate = agg

    def _named_requests(self, func: Any, kwargs: dict) -> list[tuple[Column | None, str, dict]]:
        """The (column, aggregation name) pairs an ``agg`` spec asks for by name, to compute them while grouping
        (other specs, and callables, are left to the usual path)."""
        data = self._obj._data if isinstance(self, DataFrameGroupBy) else None
        pairs: list[tuple[Any, Any]] = []  # (column label or None for every value column, function)
        if func is None:
            pairs = [(spec[0], spec[1]) for spec in kwargs.values() if isinstance(spec, tuple) and len(spec) == 2]
        elif isinstance(func, dict):
            pairs = [(label, f) for label, funcs in func.items()
                     for f in (funcs if isinstance(funcs, list | tuple) else [funcs])]  # fmt: skip
        elif isinstance(func, list | tuple):
            pairs = [(None, f) for f in func]
        requests = []
        for label, f in pairs:
            if not isinstance(f, str):
                continue
            if label is None:
                requests += [(column, f, {}) for _, column in self._value_items()]
            elif data is not None and _hashable(label) and label in data:
                requests.append((data[label], f, {}))
        return requests

    def _one_agg(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(func, str):
            method = getattr(type(self), func, None) if not func.startswith("_") else None
            if func not in AGGREGATIONS and not callable(method):
                raise AttributeError(f"'{func}' is not a valid function for '{type(self).__name__}' object; "
                                     f"the aggregations are {', '.join(AGGREGATIONS)}")  # fmt: skip
            return getattr(self, func)(*args, **kwargs)
        if not callable(func):
            raise TypeError(f"'{type(func).__name__}' object is not callable")
        if func in _NUMPY_REDUCTIONS and not args and not kwargs and self.ngroups and not self._may_have_empty_groups():
            return self._numpy_agg(func)
        return self._python_agg(func, *args, **kwargs)

    def _numpy_agg(self, func: Any) -> Any:
        """A NumPy reduction as its named aggregation, typed as pandas types per-group results (column by column)."""
        name, options = _NUMPY_REDUCTIONS[func]
        results = {}
        for label, column in self._value_items():
            result = self._reduce_column(column, name, label, **options)
            if result.can_hold_missing() and bool(result.isna().all()):
                # one scalar read: pandas types per-group results that are all missing by their sentinel
                # (NaN, NaT, <NA>) rather than by the reduction; let the per-group path type them.
                grouped = self if isinstance(self, SeriesGroupBy) else self._as_series_group(label)
                result = _python_reduce(grouped, func, (), {})
            results[label] = result
        return self._wrap(results)

    def _may_have_empty_groups(self) -> bool:
        """Whether a group may have no row (an unobserved category): only then do per-group calls of a NumPy
        reduction and the named aggregation type their results differently."""
        if self._keys.grouping is not None:  # time bins without rows
            return True
        return not self._observed and any(isinstance(c, CategoricalColumn) for c in self._keys.columns)

    def _python_agg(self, func: Callable, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _named_agg(self, spec: dict[str, Any]) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _dict_agg(self, spec: dict[Any, Any]) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _list_agg(self, funcs: list[Any]) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def pipe(self, func: Callable, *args: Any, **kwargs: Any) -> Any:
        return func(self, *args, **kwargs)


class SeriesGroupBy(GroupBy):
    """A Series grouped by keys (``series.groupby(...)``, or ``df.groupby(...)["col"]``).

    >>> import riptide as rt
    >>> rt.Series([1.0, 2.0, 4.0]).groupby([0, 1, 1]).mean().tolist()
    [1.0, 3.0]
    """

    def _selected_obj(self) -> Any:
        return self._obj

    def _value_items(self) -> list[tuple[Hashable, Column]]:
        return [(self._obj.name, self._obj._column)]

    def _wrap(self, columns: dict[Hashable, Column], op: str | None = None) -> Any:
        from riptide.frame.series import Series

        (column,) = columns.values()
        if self._as_index:
            return Series._from_column(column, self._result_index(), self._obj.name)
        return self._frame({self._obj.name: column})

    def _series_result(self, column: Column, index: Any) -> Any:
        from riptide.frame.series import Series

        return Series._from_column(column, index, self._obj.name)

    def unique(self) -> Any:
        """Each group's distinct values in order of first appearance, as a list per group (missing values count
        as one value). pandas holds NumPy arrays in an object column; riptide a list column.

        >>> import riptide as rt
        >>> rt.Series([5, 6, 5, 7]).groupby([1, 2, 1, 1]).unique().tolist()
        [[5, 7], [6]]
        """
        from riptide.core.column.list import ListColumn
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.index import default_index

        groups, _ = self._grouping
        xp = groups.xp
        ids = groups.ids.astype(np.int64, copy=False)
        # the first row of each (group, value) pair, in row order; then the pairs ordered by group, stably
        pairs = DataFrame._from_columns({0: NumericColumn(ids), 1: self._obj._column},
                                        default_index(ids.shape[0], xp)).drop_duplicates()  # fmt: skip
        group = pairs._data[0].data
        kept = group >= 0  # rows of dropped (missing) keys belong to no group
        values, group = pairs._data[1].filter(kept), group[kept]
        order = stable_argsort(group, xp)
        counts = (xp.bincount(group, minlength=groups.n_groups)[: groups.n_groups] if group.shape[0] else
                  xp.zeros(groups.n_groups, dtype=np.int64))  # fmt: skip
        offsets = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts).astype(np.int64)])
        return self._wrap({self._obj.name: ListColumn(offsets, values.take(order))})

    def value_counts(self, normalize: bool = False, sort: bool = True, ascending: bool = False, bins: Any = None,
                     dropna: bool = True) -> Any:  # fmt: skip
        """Occurrences of each value within each group (a Series named "count", or "proportion" with
        ``normalize``), most frequent first within a group, as pandas.

        >>> import riptide as rt
        >>> rt.Series(["x", "y", "x", "x"]).groupby([1, 1, 1, 2]).value_counts().tolist()
        [2, 1, 1]
        """
        column = self._obj._column
        if bins is not None or isinstance(column, CategoricalColumn):
            if bins is not None and np.iterable(bins):
                raise NotImplementedError("SeriesGroupBy.value_counts with a sequence of bins")
            # pandas runs Series.value_counts on each group here (every category, or bin, in each group's result)
            counted = self.apply(lambda part: part.value_counts(normalize=normalize, sort=sort, ascending=ascending,
                                                                bins=bins, dropna=dropna))  # fmt: skip
            counted.name = "proportion" if normalize else "count"
            counted.index.names = list(self._keys.names) + [self._obj.name]
            return counted
        return self._value_counts([(self._obj.name, column)], normalize, sort, ascending, dropna)

    def nlargest(self, n: int = 5, keep: str = "first") -> Any:
        """The ``n`` largest values of each group, largest first (as ``Series.nlargest`` per group), indexed by the
        group keys and the rows' labels.

        >>> import riptide as rt
        >>> rt.Series([1, 5, 3, 4]).groupby([0, 0, 0, 1]).nlargest(2).tolist()
        [5, 3, 4]
        """
        return self._top(n, keep, largest=True)

    def nsmallest(self, n: int = 5, keep: str = "first") -> Any:
        """The ``n`` smallest values of each group, smallest first (as ``Series.nsmallest`` per group).

        >>> import riptide as rt
        >>> rt.Series([1, 5, 3, 4]).groupby([0, 0, 0, 1]).nsmallest(1).tolist()
        [1, 4]
        """
        return self._top(n, keep, largest=False)

    def _top(self, n: int, keep: str, largest: bool) -> Any:
        """Each group's rows ordered by value (missing values last, ties by row order -- reversed for
        ``keep="last"``), the first ``n`` of each kept: one sort of (group, value, position), no loop over groups."""
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.index import Index, default_index
        from riptide.frame.multi_index import MultiIndex
        from riptide.frame.series import Series

        if keep not in ("first", "last", "all"):
            raise ValueError('keep must be either "first", "last" or "all"')
        name = "nlargest" if largest else "nsmallest"
        if keep == "all" or not (isinstance(self._obj._column, NumericColumn) and
                                 dtypes.is_numeric_or_bool(self._obj.dtype)):  # fmt: skip
            # ties kept at the cut (a variable number of rows per group), or values Series.nlargest refuses
            keyed = type(self)(self._obj, self._keys, **{**self._options(), "group_keys": True, "as_index": True})
            keyed.__dict__["_grouping"] = self._grouping
            result = keyed.apply(lambda part: getattr(part, name)(n, keep=keep))
            if self._group_keys and self._as_index or not isinstance(result.index, MultiIndex):
                return result
            levels = result.index._key_columns()[len(self._keys.columns):]  # the rows' own labels only
            names = list(result.index.names)[len(self._keys.columns):]
            if len(levels) > 1:
                index = MultiIndex._from_columns(levels, names)
            else:
                index = Index._from_column(levels[0], names[0])
            return Series._from_column(result._column, index, result.name)
        groups, key_values = self._grouping
        xp = groups.xp
        column = self._obj._column
        ids = groups.ids.astype(np.int64, copy=False)
        positions = xp.arange(ids.shape[0], dtype=np.int64)
        if keep == "last":
            # later rows first among equal values (missing values stay in row order) -- except in a group of at most
            # n rows, which pandas sorts whole, keeping row order among equal values
            sizes = groups.sizes()
            whole = sizes[xp.maximum(ids, 0)] <= int(n)
            positions = xp.where(column.isna() | whole, positions, -positions)
        frame = DataFrame._from_columns({0: NumericColumn(ids), 1: column, 2: NumericColumn(positions)},
                                        default_index(ids.shape[0], xp))  # fmt: skip
        ordered = frame.sort_values([0, 1, 2], ascending=[True, not largest, True], na_position="last")
        rows = ordered.index._as_column().data  # the sorted frame's labels are the row positions
        group = ids[rows]
        rank = xp.arange(rows.shape[0], dtype=np.int64) - xp.searchsorted(group, group, side="left")
        chosen = rows[(group >= 0) & (rank < int(n))]
        values = column.take(chosen)
        labels = self._obj.index.take(chosen)
        if not (self._group_keys and self._as_index):
            return Series._from_column(values, labels, self._obj.name)
        levels = [key.take(ids[chosen]) for key in key_values] + list(
            labels._key_columns() if isinstance(labels, MultiIndex) else [labels._as_column()])  # fmt: skip
        names = list(self._keys.names) + list(labels.names)
        return Series._from_column(values, MultiIndex._from_columns(levels, names), self._obj.name)

    def _list_agg(self, funcs: list[Any]) -> Any:
        if not funcs:
            raise ValueError("No objects to concatenate")
        columns: dict[Hashable, Column] = {}
        for label, func in _labelled(funcs):
            if label in columns:
                raise pd.errors.SpecificationError(
                    f"Function names must be unique if there is no new column names assigned: {label!r} repeats "
                    "(riptide columns cannot share a label)")  # fmt: skip
            columns[label] = _single_column(self._indexed()._one_agg(func))
        return self._frame(columns)

    def _named_agg(self, spec: dict[str, Any]) -> Any:
        columns = {label: _single_column(self._indexed()._one_agg(func)) for label, func in spec.items()}
        return self._frame(columns)

    def _dict_agg(self, spec: dict[Any, Any]) -> Any:
        raise pd.errors.SpecificationError("nested renamer is not supported")

    def _python_agg(self, func: Callable, *args: Any, **kwargs: Any) -> Any:
        """``func`` called on each group's rows (a riptide Series), results typed as pandas types them."""
        column = _python_reduce(self, func, args, kwargs)
        return self._wrap({self._obj.name: column})


class DataFrameGroupBy(GroupBy):
    """A DataFrame grouped by keys; ``gb["col"]`` (or ``gb.col``) selects a SeriesGroupBy, ``gb[["a", "b"]]``
    a narrower DataFrameGroupBy."""

    def __getitem__(self, key: Any) -> GroupBy:
        frame = self._obj
        if isinstance(key, pd.Index | np.ndarray) or _is_riptide_labels(key):
            key = key.tolist()  # list-likes of labels select several columns, as a list does
        if isinstance(key, tuple) and key not in frame._data and len(key) > 1:
            raise ValueError("Cannot subset columns with a tuple with more than one element. Use a list instead.")
        if isinstance(key, list | tuple) and not (isinstance(key, tuple) and key in frame._data):
            missing = [k for k in key if k not in frame._data]
            if missing:
                raise KeyError(f"Columns not found: {', '.join(repr(k) for k in missing)}")
            return self._share_grouping(DataFrameGroupBy(frame, self._keys, selection=list(key), **self._options()))
        if not _hashable(key) or key not in frame._data:
            raise KeyError(f"Column not found: {key}")
        return self._series_group(key)

    def _series_group(self, label: Hashable) -> SeriesGroupBy:
        """The SeriesGroupBy of column ``label``, sharing this object's options and grouping (if computed)."""
        from riptide.frame.series import Series

        series = Series._from_column(self._obj._data[label], self._obj._index, label)
        return self._share_grouping(SeriesGroupBy(series, self._keys, **self._options()))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._obj._data:
            return self[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _selected_obj(self) -> Any:
        if self._selection is None:
            return self._obj
        return self._obj[self._selection]

    def _value_items(self) -> list[tuple[Hashable, Column]]:
        frame = self._obj
        if self._selection is not None:
            return [(label, frame._data[label]) for label in self._selection]
        excluded = {name for name, own in zip(self._keys.names, self._keys.from_frame, strict=True) if own}
        return [(label, column) for label, column in frame._data.items() if label not in excluded]

    def _wrap(self, columns: dict[Hashable, Column], op: str | None = None) -> Any:
        return self._frame(columns)

    def _series_result(self, column: Column, index: Any) -> Any:  # pragma: no cover - DataFrame results only
        raise NotImplementedError

    def _as_series_group(self, label: Hashable) -> SeriesGroupBy:
        from riptide.frame.series import Series

        series = Series._from_column(self._obj._data[label], self._obj.index, label)
        options = {**self._options(), "as_index": True}
        grouped = SeriesGroupBy(series, self._keys, **options)
        grouped.__dict__["_grouping"] = self._grouping
        return grouped

    def value_counts(self, subset: Any = None, normalize: bool = False, sort: bool = True, ascending: bool = False,
                     dropna: bool = True) -> Any:  # fmt: skip
        """Occurrences of each distinct row of the value columns (or ``subset``) within each group, as pandas.

        >>> import riptide as rt
        >>> df = rt.DataFrame({"k": [1, 1, 1], "v": ["x", "y", "x"]})
        >>> df.groupby("k").value_counts().tolist()
        [2, 1]
        """
        items = self._value_items()
        if subset is not None:
            wanted = list(subset) if isinstance(subset, list | tuple) else [subset]
            clashing = {label for label in wanted if label in self._keys.names}
            if clashing:
                raise ValueError(f"Keys {clashing} in subset cannot be in the groupby column keys.")
            absent = {label for label in wanted if label not in self._obj._data}
            if absent:
                raise ValueError(f"Keys {absent} in subset do not exist in the DataFrame.")
            items = [(label, column) for label, column in items if label in wanted]
        return self._value_counts(items, normalize, sort, ascending, dropna)

    def _column_agg(self, label: Hashable, func: Any, *args: Any, **kwargs: Any) -> Column:
        """One column aggregated with one func (a name, a NumPy reduction or any callable)."""
        return _single_column(self._as_series_group(label)._one_agg(func, *args, **kwargs))

    def _list_agg(self, funcs: list[Any]) -> Any:
        if not funcs:
            raise ValueError("No objects to concatenate")
        labelled = _labelled(funcs)
        names = [label for label, _ in labelled]
        if len(set(names)) < len(names):
            raise pd.errors.SpecificationError("Function names must be unique if there is no new column names "
                                               "assigned")  # fmt: skip
        columns: dict[Hashable, Column] = {}
        for label, _ in self._value_items():
            for name, func in labelled:
                columns[(label, name)] = self._column_agg(label, func)
        return self._wrap(columns)

    def _dict_agg(self, spec: dict[Any, Any]) -> Any:
        missing = [label for label in spec if label not in self._obj._data]
        if missing:
            raise KeyError(f"Label(s) {missing} do not exist")
        nested = any(isinstance(f, list | tuple) for f in spec.values())
        columns: dict[Hashable, Column] = {}
        for label, funcs in spec.items():
            if isinstance(funcs, list | tuple):
                for name, func in _labelled(list(funcs)):
                    columns[(label, name)] = self._column_agg(label, func)
            else:
                columns[(label, _aggregation_label(funcs)) if nested else label] = self._column_agg(label, funcs)
        return self._wrap(columns)

    def _named_agg(self, spec: dict[str, Any]) -> Any:
        columns: dict[Hashable, Column] = {}
        for new_label, pair in spec.items():
            if hasattr(pair, "column") and hasattr(pair, "aggfunc"):  # pd.NamedAgg(column, aggfunc, *args, **kwargs)
                label, func = pair.column, pair.aggfunc
                args, kwargs = tuple(getattr(pair, "args", ())), dict(getattr(pair, "kwargs", {}))
            elif isinstance(pair, tuple) and len(pair) == 2:
                (label, func), args, kwargs = pair, (), {}
            else:
                raise TypeError("Must provide 'func' or tuples of '(column, aggfunc).")
            if label not in self._obj._data:
                raise KeyError(f"Label(s) [{label!r}] do not exist")
            columns[new_label] = self._column_agg(label, func, *args, **kwargs)
        return self._wrap(columns)

    def _python_agg(self, func: Callable, *args: Any, **kwargs: Any) -> Any:
        columns = {label: _python_reduce(self._as_series_group(label), func, args, kwargs)
                   for label, _ in self._value_items()}  # fmt: skip
        return self._wrap(columns)


# --- helpers ------------------------------------------------------------------------------------------------------


def _python_reduce(grouped: SeriesGroupBy, func: Callable, args: tuple, kwargs: dict) -> Column:
    """``func`` of each group's rows, on the host (a user function is Python); pandas' dtype inference."""
    from riptide.frame.series import Series

    series = grouped._obj
    groups = grouped._groups
    xp = groups.xp
    if groups.n_groups == 0:
        return series._column.take(xp.zeros(0, dtype=np.int64))  # pandas keeps the column's dtype
    order = groups.order()
    sizes = _host(groups.sizes())
    starts = np.concatenate([[0], np.cumsum(sizes)])
    if func in _NUMPY_REDUCTIONS:
        # np.sum(series) calls series.sum(axis=None, dtype=None, out=None): call the method itself.
        name, options = _NUMPY_REDUCTIONS[func]
        func = lambda part, *_, **__: getattr(part, name)(**options)  # noqa: E731
    results = []
    for g in range(groups.n_groups):  # one call per group: the user's function is Python
        rows = xp.sort(order[int(starts[g]) : int(starts[g + 1])])
        part = Series._from_column(series._column.take(rows), series.index.take(rows), series.name)
        value = func(part, *args, **kwargs)
        if isinstance(value, Series | pd.Series | np.ndarray | list) or _device.is_device_array(value):
            raise ValueError("Must produce aggregated value")
        results.append(value)
    # pandas types the results from the column's own array (_cast_pointwise_result): e.g. ints that fit
    # the column's int8 stay int8, masked columns give masked results.
    template = pd.Series(series._column.take(xp.zeros(0, dtype=np.int64)).to_pandas_array()).array
    values = np.empty(len(results), dtype=object)
    values[:] = results
    typed = template._cast_pointwise_result(values)
    if isinstance(typed, pd.arrays.NumpyExtensionArray):
        typed = typed.to_numpy()
    final = pd.Series(typed, copy=False)  # pandas then builds a Series of them, inferring again (NaT: datetime)
    if final.dtype == object:
        return as_column(_without_objects(final.to_numpy()), xp=xp)
    return as_column(final, xp=xp)


def _without_objects(values: np.ndarray) -> Any:
    """riptide's documented stand-ins for pandas' object results: bools with missing values are ``boolean``,
    nothing but missing values is float64 NaN; anything else cannot be a riptide column."""
    missing = pd.isna(values)
    present = values[~missing]
    if present.shape[0] == 0:
        return np.full(values.shape[0], np.nan)
    if all(isinstance(v, bool | np.bool_) for v in present):
        return pd.array([None if m else bool(v) for v, m in zip(values, missing, strict=True)], dtype="boolean")
    raise TypeError("riptide columns cannot hold Python objects: the function's results mix types "
                    f"({sorted({type(v).__name__ for v in present})})")


def _labelled(funcs: list[Any]) -> list[tuple[Hashable, Any]]:
    """(column label, func) for a list of aggregations: names, ``(label, func)`` pairs, and lambdas numbered
    ``<lambda_0>``, ``<lambda_1>``, ... when the list has several funcs (pandas' naming)."""
    out = []
    lambdas = 0
    for func in funcs:
        if isinstance(func, tuple) and len(func) == 2:
            out.append((func[0], func[1]))
            continue
        label = _aggregation_label(func)
        if label == "<lambda>" and len(funcs) > 1:
            label = f"<lambda_{lambdas}>"
            lambdas += 1
        out.append((label, func))
    return out


def _aggregation_label(func: Any) -> Hashable:
    """The column label pandas gives an aggregation in a list: its name, or the function's __name__."""
    if isinstance(func, str):
        return func
    return getattr(func, "__name__", None) or type(func).__name__


def _single_column(result: Any) -> Column:
    """The values of a one-column aggregation result (a Series, or a one-column DataFrame)."""
    if hasattr(result, "_column"):
        return result._column
    (column,) = result._data.values()
    return column


def _is_numeric(column: Column) -> bool:
    return dtypes.is_numeric_or_bool(column.dtype)


def _host(array: Any) -> np.ndarray:
    from riptide import _device

    return _device.to_host(array)


def _take_rows(obj: Any, rows: Any) -> Any:
    """Rows of a Series or DataFrame by position."""
    if hasattr(obj, "_data"):
        from riptide.frame import indexing

        return obj._select_rows(indexing.RowSelection(positions=rows))
    return obj._take(rows)


def _is_riptide_labels(key: Any) -> bool:
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    return isinstance(key, Index | Series)


def _describes_as_number(column: Column) -> bool:
    """What describe() summarises with count/mean/std/quantiles: numbers (not bools, text or times)."""
    if not dtypes.is_numeric_or_bool(column.dtype) or dtypes.is_datetimelike(column.dtype):
        return False
    return dtypes.to_numpy_dtype(column.dtype).kind in "iuf"
