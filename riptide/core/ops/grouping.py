"""Group the rows of key columns: one dense group number per row.

:func:`group_rows` is the one primitive behind groupby, drop_duplicates, value_counts, pivot_table
and the key matching of joins. It returns :class:`Groups`: ``ids[i]`` is the group of row i,
numbered ``0 .. n_groups-1`` in output order (sorted by key when ``sort=True``, else by first
appearance), and -1 for rows dropped because a key is missing (``dropna=True``). With
``dropna=False`` a missing key is a value of its own that sorts last, as in pandas.

On the GPU, keys are matched in a hash table (:mod:`riptide.core.kernels.hashing`); only the
distinct keys are sorted. Integer keys of a small range skip the hashing: their values address a dense
table (:class:`~riptide.core.kernels.hash_aggregate.DenseLayout`) whose slots are already in key order.
The NumPy path factorizes each key column and combines the codes.

>>> import numpy as np
>>> from riptide.core.column import as_column
>>> g = group_rows([as_column(np.array([5, 3, 5, 9]))])
>>> g.ids.tolist(), g.n_groups, g.first_rows.tolist()
([1, 0, 1, 2], 3, [1, 0, 3])
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

from riptide.core.kernels import hashing
from riptide.core.column import NumericColumn, StringColumn
from riptide.core.kernels.factorize import factorize, rank_distinct_strings, sorted_group_codes
from riptide.core.kernels.scatter import scatter_add, scatter_min
from riptide.core.kernels.segments import gather_segments
from riptide.core.kernels.sort import inverse_permutation, stable_argsort

__all__ = ["Groups", "group_rows", "group_rows_aggregating", "aggregates_while_grouping", "first_row_of_each"]

_MAX_COMBINED = 2**62  # mixed-radix combined codes stay below this; beyond it they are re-densified first


class Groups:
    """Row -> group mapping: ``ids`` (int64 per row, -1 = dropped row) and ``n_groups``.

    ``first_rows`` (the first row of each group, in group order) is computed on first use when the
    grouping did not produce it; ``representatives`` is any one row of each group, for reading the
    group keys without that extra pass. A grouping that aggregated while it grouped (the GPU's
    :func:`group_rows_aggregating`) computes ``ids`` only on first use too, and carries its
    per-group results as *partials* (see :meth:`partial`); when its table was addressed by the keys
    themselves it knows the group keys without any row of theirs (``key_values``: one column per key).
    """

    def __init__(self, ids: Any, n_groups: int, xp: types.ModuleType, first_rows: Any = None,
                 representatives: Any = None, ids_source: Any = None, key_values: list[Any] | None = None):  # fmt: skip
        self._ids = ids
        self.key_values = key_values
        self._ids_source = ids_source  # a callable giving ``ids`` when they were not computed up front
        self.n_groups = n_groups
        self.xp = xp
        self._first_rows = first_rows
        self._representatives = representatives
        self._partials: dict[tuple[int, str], tuple[Any, Any]] = {}
        self._sizes = None

    @property
    def ids(self) -> Any:
        if self._ids is None:
            self._ids = self._ids_source()
            self._ids_source = None
        return self._ids

    def partial(self, column: Any, kind: str) -> Any:
        """A per-group result computed while grouping (``None`` when there is none): ``kind`` is one of
        ``PARTIAL_KINDS``, ``column`` the value column it was computed from (by identity)."""
        found = self._partials.get((id(column), kind))
        return found[1] if found is not None and found[0] is column else None

    def set_partial(self, column: Any, kind: str, values: Any) -> None:
        self._partials[(id(column), kind)] = (column, values)  # the column is kept: its id stays its own

    @property
    def first_rows(self) -> Any:
        if self._first_rows is None:
            self._first_rows = first_row_of_each(self.ids, self.n_groups, self.xp)
        return self._first_rows

    @property
    def representatives(self) -> Any:
        """One row of each group (its first row when that is known already): take() it to get the group keys."""
        return self.first_rows if self._representatives is None else self._representatives

    def sizes(self) -> Any:
        """Rows per group (int64)."""
        if self._sizes is None:
            counts = self.xp.zeros(self.n_groups + 1, dtype=np.int64)
            scatter_add(counts, self.kept_ids(), self.xp.ones(self.ids.shape[0], dtype=np.int64), self.xp)
            self._sizes = counts[: self.n_groups]
        return self._sizes

    def kept_ids(self) -> Any:
        """``ids`` with dropped rows sent to the extra bin ``n_groups`` (scatter targets need no -1)."""
        return self.xp.where(self.ids < 0, self.n_groups, self.ids)

    def order(self) -> Any:
        """Row positions sorted by group, stable within a group; dropped rows last."""
        return stable_argsort(self.kept_ids(), self.xp)


_HASH_MIN_ROWS = 1 << 14  # below this the sort-based path's few small kernels are as fast as the hash table


def group_rows(columns: list[Any], *, sort: bool = True, dropna: bool = True) -> Groups:
    """Group rows that are equal in every column of ``columns`` (same length, same namespace)."""
    if not columns:
        raise ValueError("No group keys passed!")
    xp = columns[0].xp
    if xp is not np and _HASH_MIN_ROWS <= columns[0].size <= hashing.MAX_ROWS:
        return _group_rows_hashed(columns, sort=sort, dropna=dropna)
    return _group_rows_sorted(columns, sort=sort, dropna=dropna)


def _group_rows_hashed(columns: list[Any], *, sort: bool, dropna: bool) -> Groups:
    """GPU: a hash table finds the distinct keys in one pass; only those (not the rows) are then sorted. Integer
    keys of a small range need no hashing (:func:`_group_rows_dense`)."""
    from riptide.core.kernels import hash_aggregate

    xp = columns[0].xp
    keys = hashing.key_words(columns, dropna)
    layout = hash_aggregate.dense_layout(keys)
    if layout is not None:
        return _group_rows_dense(columns, keys, layout, sort)
    row_slot, owners, slot_group, n_groups = hashing.hash_group(keys)
    if n_groups == 0:
        return Groups(ids=xp.full(columns[0].size, -1, dtype=np.int64), n_groups=0, xp=xp,
                      first_rows=xp.zeros(0, dtype=np.int64))  # fmt: skip
    # Number groups by first appearance (sort=False): the first row of each slot needs one pass over the rows.
    first_of_slot = None if sort else _first_row_of_slots(row_slot, slot_group, n_groups)
    rank, first_rows, representatives = _number_distinct_keys(columns, owners, first_of_slot, xp)
    # Slot -> output group, with one extra trailing -1 so that a left-out row (slot -1) maps to -1 in the same gather.
    slot_to_id = xp.concatenate([xp.where(slot_group < 0, -1, rank.take(xp.maximum(slot_group, 0))),
                                 xp.full(1, -1, dtype=np.int64)])  # fmt: skip
    return Groups(ids=slot_to_id.take(row_slot), n_groups=n_groups, xp=xp, first_rows=first_rows,
                  representatives=representatives)  # fmt: skip


def _group_rows_dense(columns: list[Any], keys: Any, layout: Any, sort: bool) -> Groups:
    """GPU: the rows' first appearances in a dense table (one pass of atomic minima: its occupied slots are the
    groups, already in key order), then each row's group number (a second pass); the slots give the keys back."""
    from riptide.core.kernels import hash_aggregate

    xp = columns[0].xp
    aggregated = hash_aggregate.aggregate_rows(keys, [(None, "first_row", None)], layout)
    slot_of_group, _ = aggregated.occupied_slots()
    (first_rows,) = aggregated.at_slots(slot_of_group)
    if not sort:  # number the groups by first appearance
        order = stable_argsort(first_rows, xp)
        slot_of_group, first_rows = slot_of_group.take(order), first_rows.take(order)
    ids = aggregated.lookup(keys, _slot_to_group(slot_of_group, layout.n_slots, xp))
    return Groups(ids=ids, n_groups=aggregated.n_distinct, xp=xp, first_rows=first_rows,
                  key_values=_dense_key_values(columns, layout, slot_of_group))  # fmt: skip


def _number_distinct_keys(columns: list[Any], owners: Any, first_of_slot: Any, xp: Any) -> tuple[Any, Any, Any]:
    """Output numbers of the distinct keys a hash table found (one owner row each, in slot order).

    Sorted by key when ``first_of_slot`` is None (only the distinct keys are sorted, by the sort-based
    path), else by first appearance. Returns ``(rank, first_rows, representatives)``: each slot's group
    number, the first row of each group when known (else None), and one row of each group.
    """
    n_groups = owners.shape[0]
    if first_of_slot is None:
        rank = _rank_distinct_keys(columns, owners)
        representatives = xp.empty(n_groups, dtype=np.int64)
        representatives.put(rank, owners)
        return rank, None, representatives
    order = stable_argsort(first_of_slot, xp)  # the slots in group order
    return inverse_permutation(order, xp), first_of_slot.take(order), owners.take(order)


def _rank_distinct_keys(columns: list[Any], owners: Any) -> Any:
    """The rank (int64) of each owner row's key among the keys of ``owners`` (rows holding distinct keys): only the
    distinct keys are sorted."""
    if len(columns) == 1 and isinstance(columns[0], StringColumn):
        rank = rank_distinct_strings(columns[0], owners)  # a few strings: one kernel
        if rank is not None:
            return rank
    return _group_rows_sorted([c.take(owners) for c in columns], sort=True, dropna=False).ids


def group_rows_aggregating(columns: list[Any], requests: list[tuple[Any, str]], *, sort: bool = True,
                           dropna: bool = True) -> Groups | None:  # fmt: skip
    """:func:`group_rows`, computing per-group partial results while it groups (GPU only; else None).

    ``requests`` are pairs of a value column (a NumericColumn, masked or not) and a kind of
    :data:`riptide.core.kernels.hash_aggregate.KINDS` (``"size"`` ignores its column, which may be None).
    The returned :class:`Groups` holds them (:meth:`Groups.partial`, ``sizes()``) and computes ``ids``
    only when asked. None when the rows or values do not suit the GPU kernel: group the usual way then.
    """
    from riptide.core.kernels import hash_aggregate

    if not columns:
        raise ValueError("No group keys passed!")
    if not aggregates_while_grouping(columns):
        return None
    xp = columns[0].xp
    n = columns[0].size
    arrays = []
    for column, kind in requests:
        if kind == "size":
            arrays.append((None, kind, None))  # reads no values
            continue
        if not hash_aggregate.supports(column.data, kind) or column.size != n:
            return None
        arrays.append((column.data, kind, column.mask))
    if not sort:
        arrays.append((None, "first_row", None))
    keys = hashing.key_words(columns, dropna)
    aggregated = hash_aggregate.aggregate_rows(keys, arrays, hash_aggregate.dense_layout(keys), sort_strings=sort)
    n_groups = aggregated.n_distinct
    if n_groups == 0:
        groups = Groups(ids=xp.full(n, -1, dtype=np.int64), n_groups=0, xp=xp, first_rows=xp.zeros(0, dtype=np.int64))
        _hand_partials(groups, requests, aggregated.at_slots(groups.first_rows))
        return groups
    # The groups' slots in output order. A hash table's occupied slots come in any order: number them from their
    # keys (sort) or their first rows; a dense table's ascend with the keys.
    representatives = key_values = None
    numbered = aggregated.sorted_string_groups()
    if numbered is not None:  # a small table of one string key: its groups numbered in key order on the device
        slot_of_group, representatives, results, starts, key_offsets = numbered
        key_values = [_string_keys(columns[0], starts, key_offsets, aggregated.key_bytes[0])]
    elif sort and not aggregated.dense:  # rank the keys, then place the groups' slots, owners and results at once
        occupied, owners = aggregated.occupied_slots()
        ranked = aggregated.packed_key_rank(occupied)  # one string key of short values: ranked by the table's words
        rank = ranked[0] if ranked is not None else _rank_distinct_keys(columns, owners)
        slot_of_group, representatives, results = aggregated.in_group_order(occupied, owners, rank)
        if ranked is not None and (dropna or columns[0].mask is None):  # (a kept missing key is no packed key)
            # the keys from the table's words, in group order: no read of the key column at the owner rows
            key_values = [columns[0]._like(*aggregated.packed_keys(slot_of_group, ranked[1]), None)]
    else:
        # The slots only: the owners beside them share one buffer, which goes once the slots are reordered (at
        # 1e8 groups, 1.6 GB that db-benchmark q10 held through its key gathers, past 3x its inputs).
        occupied = aggregated.occupied_slots()[0]
        if not sort:
            slot_of_group = occupied.take(stable_argsort(aggregated.raw(len(arrays) - 1).take(occupied), xp))
        else:
            slot_of_group = occupied
        del occupied
        results = aggregated.at_slots(slot_of_group)  # every accumulator, and the first rows (sort=False), per group

    def ids() -> Any:  # the rows' slots, looked up again in the finished table
        return aggregated.lookup(keys, _slot_to_group(slot_of_group, aggregated.words.shape[1], xp))

    # A dense table's slots give the keys back (it knows no row of each group); a hash table's owners are rows.
    if aggregated.dense:
        key_values = _dense_key_values(columns, aggregated.table, slot_of_group)
    elif key_values is None:
        if representatives is None:
            representatives = aggregated.owners.take(slot_of_group)
        key_values = _owner_key_values(columns, representatives, aggregated.key_bytes, dropna)
    groups = Groups(ids=None, ids_source=ids, n_groups=n_groups, xp=xp, first_rows=None if sort else results[-1],
                    representatives=representatives, key_values=key_values)
    _hand_partials(groups, requests, results)
    return groups


def _slot_to_group(slot_of_group: Any, n_slots: int, xp: Any) -> Any:
    """Each slot's group number (-1: no group), and a trailing -1 that rows left out of the table read."""
    slot_to_id = xp.full(n_slots + 1, -1, dtype=np.int64)
    slot_to_id.put(slot_of_group, xp.arange(slot_of_group.shape[0], dtype=np.int64))
    return slot_to_id


def _dense_key_values(columns: list[Any], layout: Any, slot_of_group: Any) -> list[Any]:
    """The key columns' values of each group, from their slots in a dense table (columns of the keys' dtypes)."""
    values = layout.key_values(slot_of_group)
    return [NumericColumn(v.astype(c.data.dtype), dtype=c.dtype) for v, c in zip(values, columns, strict=True)]


def keys_show_first_rows(columns: list[Any]) -> bool:
    """Whether a group's key values must be read at its first row, not at any row of it: float keys, where ``0.0``
    and ``-0.0`` are one key and pandas shows the first one seen."""
    return any(isinstance(c, NumericColumn) and c.kind in "fc" for c in columns)


def _string_keys(column: StringColumn, starts: Any, key_offsets: Any, n_bytes: int) -> StringColumn:
    """The groups' keys of a string key column: the segments at ``starts``, laid out by ``key_offsets`` (owner rows,
    so none is missing)."""
    return column._like(key_offsets, gather_segments(column.chars, starts, key_offsets, column.xp, total=n_bytes), None)


def _owner_key_values(columns: list[Any], owners: Any, key_bytes: tuple[int, ...], dropna: bool) -> list[Any] | None:
    """The key columns' values at each group's owner row, a string key's bytes taken at the size the table counted
    while its rows claimed slots (``key_bytes``, one per string key in order, or none: then the size is read); None
    when a key is a float (pandas shows a float group's first row, which ``-0.0`` and ``0.0`` may not share with the
    owner).

    A missing owner's bytes were counted as none (``key_words`` empties missing strings kept as keys): a masked
    string key kept with ``dropna=False`` reads its size instead."""
    if keys_show_first_rows(columns):
        return None
    string_bytes = iter(key_bytes)  # (none when the table did not count them)
    values = []
    for column in columns:
        if isinstance(column, StringColumn):
            counted = next(string_bytes, None)
            values.append(column.take(owners, n_bytes=counted if dropna or column.mask is None else None))
        else:
            values.append(column.take(owners))
    return values


def _hand_partials(groups: Groups, requests: list[tuple[Any, str]], results: list[Any]) -> None:
    """Give ``groups`` the per-group results of ``requests`` (in order; a trailing first_row result is not one)."""
    for (column, kind), result in zip(requests, results, strict=False):
        if kind == "size":
            groups._sizes = result
        else:
            groups.set_partial(column, kind, result)


def aggregates_while_grouping(columns: list[Any]) -> bool:
    """Whether :func:`group_rows_aggregating` may take rows of these key columns: on the GPU, and a row count
    the hash table is worth it for (it may still decline for the values' dtypes)."""
    first = columns[0]
    return first.xp is not np and _HASH_MIN_ROWS <= first.size <= hashing.MAX_ROWS


def _first_row_of_slots(row_slot: Any, slot_group: Any, n_groups: int) -> Any:
    """The first row of each group (groups in slot order; CuPy only): :func:`first_row_of_each` of the rows'
    groups ``slot_group[row_slot]``, in one pass that builds no array per row (an atomic minimum per row)."""
    import cupy as cp

    first = cp.full(n_groups, row_slot.shape[0], dtype=np.int64)
    _first_row_kernel()(row_slot, slot_group, first)
    return first


@functools.cache
def _first_row_kernel() -> Any:
    import cupy as cp

    # ``first`` is an output (raw: indexed by group, not by row), so the kernel may write it.
    return cp.ElementwiseKernel(
        "int32 slot, raw int64 slot_group", "raw int64 first",
        "if (slot >= 0) { const long long g = slot_group[slot]; if (g >= 0) atomicMin(&first[g], (long long)i); }",
        "riptide_first_row_of_slots",
    )


def _group_rows_sorted(columns: list[Any], *, sort: bool, dropna: bool) -> Groups:
    """Factorize each key (a sort) and combine the codes; the NumPy path, and the GPU path for small inputs."""
    xp = columns[0].xp
    combined, cardinality = None, 1
    for column in columns:
        codes, n_distinct = factorize(column)
        if not dropna:
            codes, n_distinct = _missing_as_last_code(codes, n_distinct, xp)
        if combined is None:
            combined, cardinality = codes, n_distinct
            continue
        if cardinality * max(n_distinct, 1) >= _MAX_COMBINED:
            combined, cardinality = _densify(combined, xp)
        dropped = (combined < 0) | (codes < 0)
        combined = xp.where(dropped, -1, combined * n_distinct + codes)
        cardinality *= max(n_distinct, 1)
    if len(columns) > 1 or combined is None:
        combined, cardinality = _densify(combined, xp)
    ids, n_groups = combined, cardinality
    first_rows = first_row_of_each(ids, n_groups, xp)
    if not sort and n_groups > 1:
        # Number groups by first appearance: rank the groups' first rows.
        by_appearance = stable_argsort(first_rows, xp)
        rank = xp.empty(n_groups, dtype=np.int64)
        rank[by_appearance] = xp.arange(n_groups, dtype=np.int64)
        ids = xp.where(ids < 0, -1, rank[xp.maximum(ids, 0)])
        first_rows = first_rows[by_appearance]
    return Groups(ids=ids, n_groups=n_groups, xp=xp, first_rows=first_rows)


def _missing_as_last_code(codes: Any, n_distinct: int, xp: types.ModuleType) -> tuple[Any, int]:
    missing = codes < 0
    if not bool(missing.any()):  # one scalar read: whether a missing-key group exists
        return codes, n_distinct
    return xp.where(missing, n_distinct, codes), n_distinct + 1


def _densify(combined: Any, xp: types.ModuleType) -> tuple[Any, int]:
    """Dense sorted codes of the non-negative values of ``combined``; -1 stays -1."""
    valid = combined >= 0
    if bool(valid.all()):  # one scalar read: skip the compaction when no row is dropped
        return sorted_group_codes([combined], xp)
    keep = xp.flatnonzero(valid)
    dense, count = sorted_group_codes([combined[keep]], xp)
    out = xp.full(combined.shape[0], -1, dtype=np.int64)
    out[keep] = dense
    return out, count


def first_row_of_each(codes: Any, n_codes: int, xp: types.ModuleType) -> Any:
    """For codes in 0..n_codes-1 (and -1 for none), the first row holding each code; ``len(codes)`` where no row does.

    >>> first_row_of_each(np.array([2, -1, 0, 2]), 4, np).tolist()
    [2, 4, 0, 4]
    """
    n = codes.shape[0]
    first = xp.full(n_codes + 1, n, dtype=np.int64)
    scatter_min(first, xp.where(codes < 0, n_codes, codes), xp.arange(n, dtype=np.int64), xp)
    return first[:n_codes]
