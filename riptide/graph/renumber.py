"""Renumbering: any vertex ids (ints of any range, floats, strings) to dense ids 0..n-1, on the device.

Graph kernels index arrays by vertex, so every graph is built over dense ids. The ids of the endpoints are
grouped with :func:`riptide.core.ops.grouping.group_rows` (a hash table on the GPU, a sort on the CPU), numbered
by **first appearance** so that vertex ``k`` is the ``k``-th vertex NetworkX would have added: listed nodes first,
then the endpoints of each edge in edge order, source before target (NetworkX's ``add_edges_from`` order). The
distinct ids themselves (a column, in dense-id order) map results back to the caller's ids.

>>> import numpy as np
>>> from riptide.core.column import as_column
>>> ids, labels = renumber([as_column(np.array([30, 10])), as_column(np.array([10, 99]))])
>>> [i.tolist() for i in ids], labels.to_arrow().to_pylist()
([[0, 1], [1, 2]], [30, 10, 99])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide.core.column import NumericColumn, concat_columns
from riptide.core.ops.grouping import group_rows

__all__ = ["renumber", "renumber_nodes_and_edges", "combine_id_columns", "number_interleaved"]


def _decoded(column: Any) -> Any:
    """A categorical id column as its values (its categories gathered by its codes; -1 stays missing): the source
    and target columns of an edge list rarely share one set of categories, and the ids are the values."""
    from riptide.core.column import CategoricalColumn

    if isinstance(column, CategoricalColumn):
        return column.categories.take_or_missing(column.codes.astype(np.int64))
    return column


def combine_id_columns(columns: list[Any]) -> Any:
    """The rows of several vertex-id columns as one column (ints of different widths widen to one dtype;
    categorical columns count as their values)."""
    columns = [_decoded(c) for c in columns]
    if all(isinstance(c, NumericColumn) and c.mask is None for c in columns) and len(columns) > 1:
        xp = columns[0].xp
        common = np.result_type(*[c.data.dtype for c in columns])
        if common.kind in "iubf":
            return NumericColumn(xp.concatenate([c.data.astype(common, copy=False) for c in columns]))
    kinds = {type(c).__name__ for c in columns}
    if len(kinds) > 1 or (kinds == {"NumericColumn"} and len({str(c.dtype) for c in columns}) > 1):
        raise TypeError("vertex ids must have one type in the source and target columns; got "
                        f"{', '.join(str(c.dtype) for c in columns)} (convert them first, e.g. .astype(str))")
    return concat_columns(columns)


def number_interleaved(parts: list[Any], k: int, rows: int) -> tuple[list[Any], list[Any]]:
    """Dense ids by first appearance over the **interleaved** rows of ``k`` id columns of ``rows`` rows each (row 0
    of each column, then row 1 of each, ...): ``(ids per column, each part's value per dense id)``.

    An id may span several columns (a composite id): each of ``parts`` is one of its fields, the ``k`` columns'
    values of that field concatenated (see :func:`combine_id_columns`).

    >>> from riptide.core.column import as_column
    >>> ids, (labels,) = number_interleaved([as_column(np.array([30, 10, 10, 99]))], 2, 2)
    >>> [i.tolist() for i in ids], labels.to_arrow().to_pylist()
    ([[0, 1], [1, 2]], [30, 10, 99])
    """
    xp = parts[0].xp
    # Interleave: row r of column j sits at r * k + j, so first appearance is NetworkX's edge order.
    order = (xp.arange(rows, dtype=np.int64)[:, None] + xp.arange(k, dtype=np.int64)[None, :] * rows).ravel()
    interleaved = [part.take(order) for part in parts]
    groups = group_rows(interleaved, sort=False, dropna=False)
    ids = groups.ids.reshape(rows, k)
    return [xp.ascontiguousarray(ids[:, j]) for j in range(k)], [part.take(groups.first_rows) for part in interleaved]


def renumber(columns: list[Any], interleave: bool = True) -> tuple[list[Any], Any]:
    """Dense vertex ids for the rows of ``columns`` (one array per column) and the distinct ids in dense order.

    Rows are numbered by first appearance in the **interleaved** order of the columns (row 0 of each column, then
    row 1 of each, ...; columns of one length), or with ``interleave=False`` column after column.
    """
    sizes = [c.size for c in columns]
    combined = combine_id_columns(columns)
    if interleave and len(columns) > 1 and len(set(sizes)) == 1:
        per_column, (labels,) = number_interleaved([combined], len(columns), sizes[0])
        return per_column, labels
    groups = group_rows([combined], sort=False, dropna=False)
    starts = np.cumsum([0] + sizes)
    per_column = [groups.ids[starts[j]:starts[j + 1]] for j in range(len(columns))]
    return per_column, combined.take(groups.first_rows)


def renumber_nodes_and_edges(nodes: Any, sources: Any, targets: Any) -> tuple[Any, Any, Any]:
    """``(source ids, target ids, labels)``: listed ``nodes`` (a column or None) come first, then edge endpoints."""
    if nodes is None or nodes.size == 0:
        (src, dst), labels = renumber([sources, targets])
        return src, dst, labels
    (edge_src, edge_dst), edge_labels = renumber([sources, targets])
    # Nodes first: renumber the node list followed by the edge endpoints' own first-appearance order.
    (_, label_ids), labels = renumber([nodes, edge_labels], interleave=False)
    return label_ids[edge_src], label_ids[edge_dst], labels
