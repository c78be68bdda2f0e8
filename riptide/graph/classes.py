"""Graph, DiGraph, MultiGraph and MultiDiGraph: NetworkX's graph classes over a device CSR.

A graph is built once from an edge list and is then read-only (the algorithms' input, not an editing structure).
Building it:

1. **renumber** the endpoints to dense ids 0..n-1 (:mod:`riptide.graph.renumber`); vertex ``k``'s original id is
   ``labels[k]``, and every result maps back through it;
2. **collapse repeated edges** as NetworkX's Graph/DiGraph do: one edge per (u, v) pair (per unordered pair for
   Graph), whose attributes are those of its *last* occurrence (``add_edge`` updates the edge's data dict). A
   stable sort of the pair keys ``u * n + v`` puts repeats side by side; the last of each run survives, and the
   first of each run is the edge's **rank**, its place in NetworkX's adjacency dicts. A **multigraph** keeps every
   row as its own edge, with NetworkX's edge keys: without given keys, the ``k``-th edge of a pair (in row order)
   gets key ``k`` (``add_edge``'s ``new_edge_key`` on a list of additions); with given keys, rows repeating a
   (pair, key) collapse as above (the last row's attributes, the first row's place);
3. the surviving edges, sorted by (source, rank) (and, within a multigraph's pair, by first appearance), become
   the **CSR**: ``offsets`` is the prefix sum of the out-degrees (a ``bincount`` of the sources), ``indices`` the
   targets. An undirected graph stores each non-loop edge as two arcs (a self loop once, as NetworkX's adjacency
   does) and sorts the arcs by (source, rank) again. ``arc_edge`` maps each arc to its edge, so edge attributes
   (weights) and keys are stored once per edge. Each CSR row is thus in NetworkX's adjacency order, so
   ``edges()``, ``neighbors`` and breadth-first discovery order come out as NetworkX's for a graph built from an
   edge list (and for a NetworkX DiGraph; an undirected NetworkX graph's later-inserted neighbours can be in
   another order, as one rank per edge cannot describe both of its endpoints' dicts). A multigraph's parallel
   arcs are adjacent in their row (they share the pair's rank).

A DiGraph also builds the reverse CSR (in-arcs) on first use. Everything is xp arrays; only results handed back
to Python (dicts keyed by the original ids, edge lists) go to the host.

**Views.** ``G.nodes`` is a list of the nodes (NetworkX's order) that is also callable as NetworkX's NodeView
(``G.nodes(data=True)``); riptide graphs hold no node attributes, so ``G.nodes[i]`` stays list indexing.
``G.edges`` is NetworkX's EdgeView: iterable (pairs; ``(u, v, key)`` triples for a multigraph), ``len``, ``in``,
``G.edges[u, v]`` for the data dict, and callable with ``nbunch``, ``data``, ``default`` and ``keys``; calling
it returns a list. ``subgraph`` and ``edge_subgraph`` return new (read-only) graphs, not views: there is nothing
to stay in sync with.

>>> import pandas as pd
>>> G = from_pandas_edgelist(pd.DataFrame({"source": ["a", "b", "b"], "target": ["b", "c", "a"]}))
>>> G.number_of_nodes(), G.number_of_edges(), dict(G.degree)
(3, 2, {'a': 1, 'b': 2, 'c': 1})
>>> M = from_pandas_edgelist(pd.DataFrame({"source": ["a", "b", "b"], "target": ["b", "c", "a"]}),
...                          create_using=MultiGraph)
>>> M.number_of_edges(), list(M.edges), M.number_of_edges("a", "b")
(3, [('a', 'b', 0), ('a', 'b', 1), ('b', 'c', 0)], 2)
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import numpy as np

from riptide import _device
from riptide.core.column import NumericColumn, as_column
from riptide.core.kernels.segments import gather_segments, take_offsets
from riptide.core.kernels.sort import (
    lexsort,
    stable_argsort,
    stable_argsort_with_values,
)
from riptide.graph._arrays import bincount
from riptide.graph.exceptions import NetworkXError
from riptide.graph.renumber import combine_id_columns, number_interleaved, renumber_nodes_and_edges

__all__ = [
    "DegreeView",
    "DiGraph",
    "EdgeView",
    "Graph",
    "MultiDiGraph",
    "MultiGraph",
    "NodeView",
    "from_edgelist",
    "from_networkx",
    "from_pandas_edgelist",
    "from_scipy_sparse_array",
    "to_cupyx_sparse_array",
    "to_networkx",
    "to_pandas_edgelist",
    "to_scipy_sparse_array",
]  # fmt: skip


class Graph:
    """An undirected graph (NetworkX's ``Graph``: no parallel edges, self loops allowed) over a device CSR.

    Build one with :func:`from_pandas_edgelist`, :func:`from_edgelist`, :func:`from_networkx` or
    :func:`from_scipy_sparse_array`; ``Graph()`` is the empty graph.

    >>> G = from_edgelist([(1, 2), (2, 1), (2, 2)])
    >>> G.number_of_edges(), G.degree[2], G.has_edge(1, 2)
    (2, 3, True)
    """

    __networkx_backend__ = "riptide"  # NetworkX's dispatcher reads this to route calls on riptide graphs

    def __init__(self, incoming_graph_data: Any = None) -> None:
        if incoming_graph_data is not None:
            built = _build_from_any(incoming_graph_data, type(self))
            self.__dict__.update(built.__dict__)
            return
        xp = _device.xp()
        self._setup(xp, 0, xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=np.int64), {}, None, [])

    # ------------------------------------------------------------------ construction

    def _setup(self, xp: types.ModuleType, n: int, src: Any, dst: Any, edge_attrs: dict[str, Any],
               labels: Any, label_list: list | None, edge_keys: Any = None,
               key_labels: list | None = None) -> None:  # fmt: skip
        """Collapse repeated edges, then build the CSR. ``src``/``dst`` are dense ids (int64), one per input edge;
        ``edge_attrs`` maps attribute name -> Column aligned with the input edges. ``edge_keys`` (multigraphs
        only; a Column aligned with the input edges, or None for NetworkX's default keys 0, 1, ... per pair) are
        codes into ``key_labels`` when that list is given (keys of mixed Python types)."""
        self.xp = xp
        self._n = n
        self._labels = labels  # Column of original ids in dense order (None when only label_list is known)
        self._label_list = label_list  # the same ids as Python objects (built on first use)
        self._label_index: dict | None = None
        self.graph: dict = {}
        src = src.astype(np.int64, copy=False)
        dst = dst.astype(np.int64, copy=False)
        if not self.is_directed():
            src, dst = xp.minimum(src, dst), xp.maximum(src, dst)
        self._rank_bound = max(src.shape[0], 1)
        # Edges in NetworkX's adjacency order: by source, then by the pair's first appearance (add_edge puts a new
        # neighbour last in the adjacency dict; a repeat updates the data in place).
        rows, self._edge_rank, self._edge_keys = self._select_edges(src, dst, n, edge_keys, xp)
        self._key_labels = key_labels
        self._src = src[rows]  # one edge per (src, dst) pair (src <= dst when undirected); per key in a multigraph
        self._dst = dst[rows]
        self._edge_attrs = {name: column.take(rows) for name, column in edge_attrs.items()}
        m = self._src.shape[0]
        if self.is_directed():
            arc_src, arc_dst, arc_edge = self._src, self._dst, xp.arange(m, dtype=np.int64)
        else:
            # Each non-loop edge is an arc both ways; a self loop is one arc (NetworkX's adjacency holds it once).
            # Both arcs of an edge take its rank: each endpoint met the other when the pair first appeared.
            other = xp.flatnonzero(self._src != self._dst)
            arc_src = xp.concatenate([self._src, self._dst[other]])
            arc_dst = xp.concatenate([self._dst, self._src[other]])
            arc_edge = xp.concatenate([xp.arange(m, dtype=np.int64), other.astype(np.int64)])
            order = stable_argsort(arc_src * self._rank_bound + self._edge_rank[arc_edge], xp)
            arc_src, arc_dst, arc_edge = arc_src[order], arc_dst[order], arc_edge[order]
        self._arc_src, self._indices, self._arc_edge = arc_src, arc_dst, arc_edge
        self._offsets = _offsets_of(arc_src, n, xp)
        self._in_csr: tuple[Any, Any] | None = None

    def _select_edges(self, src: Any, dst: Any, n: int, edge_keys: Any, xp: types.ModuleType) -> tuple:
        """``(rows, ranks, keys)``: the input rows that become edges, in edge order, each edge's rank (the row
        where its pair first appeared) and the edge keys (None: not a multigraph)."""
        keep, key, first = _last_of_each_pair(src, dst, n, xp)
        order = stable_argsort(src[keep] * self._rank_bound + first, xp) if key.shape[0] else key
        return keep[order], first[order], None

    # ------------------------------------------------------------------ NetworkX's graph protocol

    def is_directed(self) -> bool:
        return False

    def is_multigraph(self) -> bool:
        return False

    def number_of_nodes(self) -> int:
        return self._n

    def order(self) -> int:
        return self._n

    def __len__(self) -> int:
        return self._n

    def number_of_edges(self, u: Any = None, v: Any = None) -> int:
        if u is None and v is None:
            return int(self._src.shape[0])
        return int(self.has_edge(u, v))

    def size(self, weight: str | None = None) -> int | float:
        """The number of edges, or the sum of the ``weight`` attribute over them (missing counts as 1)."""
        if weight is None:
            return self.number_of_edges()
        return float(self._edge_weights(weight).sum())  # one scalar read: the result

    @property
    def nodes(self) -> NodeView:
        """The nodes (original ids) in NetworkX's order: listed nodes first, then edge endpoints as met.

        A list that is also callable as NetworkX's NodeView: ``G.nodes(data=True)`` gives ``(node, {})`` pairs
        (riptide graphs hold no node attributes).
        """
        return NodeView(self)

    def __iter__(self) -> Iterator:
        return iter(self._host_labels())

    def __contains__(self, node: Any) -> bool:
        return self.has_node(node)

    def has_node(self, node: Any) -> bool:
        return self._find(node) is not None

    def has_edge(self, u: Any, v: Any) -> bool:
        i, j = self._find(u), self._find(v)
        if i is None or j is None:
            return False
        return bool((_csr_row(self._offsets, self._indices, i) == j).any())  # one scalar read: the answer

    def get_edge_data(self, u: Any, v: Any, default: Any = None) -> Any:
        """The attribute dict of edge (u, v), or ``default`` when there is no such edge (NetworkX's method)."""
        found = self._edge_ids_between(u, v)
        if found is None or found.shape[0] == 0:
            return default
        return self._edge_dicts(found)[0]

    @property
    def edges(self) -> EdgeView:
        """NetworkX's EdgeView: iterate for ``(u, v)`` pairs (each undirected edge once), call it for lists with
        data (``G.edges(data=True)``, ``G.edges(nbunch, data="weight", default=1)``), ``G.edges[u, v]`` for an
        edge's attributes."""
        return EdgeView(self)

    @property
    def degree(self) -> DegreeView:
        """Degrees as NetworkX's DegreeView: ``G.degree[n]``, ``dict(G.degree)``, ``G.degree(nbunch, weight)``.
        A self loop adds 2 to its node's degree in an undirected graph."""
        return DegreeView(self, "both")

    def neighbors(self, node: Any) -> Iterator:
        return iter(self._labels_of(_distinct_runs(_csr_row(self._offsets, self._indices, self._id_of(node)),
                                                   self.xp)))  # fmt: skip

    def to_networkx(self) -> Any:
        """This graph as a ``networkx.Graph`` (or ``DiGraph``, ...), nodes in the same order, edge attributes
        kept."""
        return to_networkx(self)

    def to_directed(self) -> DiGraph:
        """A DiGraph with both arcs of each edge (NetworkX's ``to_directed``)."""
        edge_attrs = {k: c.take(self._arc_edge) for k, c in self._edge_attrs.items()}
        keys = None if self._edge_keys is None else self._edge_keys.take(self._arc_edge)
        out = self._directed_class().__new__(self._directed_class())
        out._setup(self.xp, self._n, self._arc_src, self._indices, edge_attrs, self._labels, self._label_list,
                   keys, self._key_labels)  # fmt: skip
        out.graph.update(self.graph)
        return out

    def to_undirected(self, as_view: bool = False) -> Graph:
        """An undirected graph is its own undirected version: a copy (NetworkX's ``to_undirected``)."""
        return self.copy()

    def _directed_class(self) -> type[Graph]:
        return DiGraph

    def _undirected_class(self) -> type[Graph]:
        return Graph

    def copy(self, as_view: bool = False) -> Graph:
        """An independent graph object with the same nodes, edges and attributes (the device arrays are shared:
        riptide graphs never modify them)."""
        out = type(self).__new__(type(self))
        out.__dict__.update(self.__dict__)
        out.graph = dict(self.graph)
        return out

    def subgraph(self, nodes: Any) -> Graph:
        """The graph induced on ``nodes`` (ids not in the graph are ignored), as NetworkX's ``subgraph``, but a new
        graph rather than a view. Nodes keep this graph's order; edges keep their attributes and keys. ``nodes``
        may be a riptide Series or a NumPy/CuPy array of ids: then they are matched on the device.

        >>> sorted(from_edgelist([(1, 2), (2, 3), (3, 1), (3, 4)]).subgraph([1, 3, 4, 99]).edges())
        [(1, 3), (3, 4)]
        """
        xp = self.xp
        column = _device_id_column(nodes, xp)
        if column is not None:  # a Series or array of ids: matched on the device
            ids = self._ids_of_column(column)
            ids = ids[ids >= 0]
        else:
            ids = self._ids_of_present(nodes)
        keep_node = xp.zeros(self._n, dtype=bool)
        keep_node[ids] = True
        keep_edge = keep_node[self._src] & keep_node[self._dst] if self._n else xp.zeros(0, dtype=bool)
        return self._induced(keep_node, xp.flatnonzero(keep_edge))

    def edge_subgraph(self, edges: Any) -> Graph:
        """The graph of the listed edges and their endpoints (NetworkX's ``edge_subgraph``, as a new graph).
        ``edges`` are ``(u, v)`` pairs, or ``(u, v, key)`` triples for a multigraph; edges not in the graph are
        ignored, but their endpoints that are nodes are kept, as in NetworkX.

        >>> sorted(from_edgelist([(1, 2), (2, 3), (3, 4)]).edge_subgraph([(3, 2), (5, 6)]).edges())
        [(2, 3)]
        """
        xp = self.xp
        edge_ids, endpoints = self._edge_ids_of(list(edges))
        keep_node = xp.zeros(self._n, dtype=bool)
        keep_node[endpoints] = True  # NetworkX keeps the endpoints of every listed tuple that are nodes
        keep_edge = xp.zeros(self._src.shape[0], dtype=bool)
        keep_edge[edge_ids] = True
        return self._induced(keep_node, xp.flatnonzero(keep_edge))

    def _induced(self, keep_node: Any, edge_ids: Any) -> Graph:
        """A graph of the same class over the nodes in ``keep_node`` and the edges ``edge_ids``."""
        xp = self.xp
        new_id = xp.cumsum(keep_node.astype(np.int64)) - 1
        kept = xp.flatnonzero(keep_node)
        # Re-add the edges in their original insertion order (by rank, then edge order within a pair), so that
        # adjacency order and the collapse rules give NetworkX's structure again.
        edge_ids = edge_ids[stable_argsort(self._edge_rank[edge_ids], xp)]
        if self._labels is not None:
            labels, label_list = self._labels.take(kept), None
        else:
            host = self._host_labels()
            labels, label_list = None, [host[i] for i in _device.to_host(kept).tolist()]
        attrs = {name: column.take(edge_ids) for name, column in self._edge_attrs.items()}
        keys = None if self._edge_keys is None else self._edge_keys.take(edge_ids)
        out = type(self).__new__(type(self))
        out._setup(xp, int(kept.shape[0]), new_id[self._src[edge_ids]], new_id[self._dst[edge_ids]], attrs,
                   labels, label_list, keys, self._key_labels)  # fmt: skip
        out.graph.update(self.graph)
        return out

    def __repr__(self) -> str:
        return f"riptide.graph.{type(self).__name__} with {self._n} nodes and {self.number_of_edges()} edges"

    # ------------------------------------------------------------------ internals shared with the algorithms

    def _host_labels(self) -> list:
        if self._label_list is None:
            self._label_list = [] if self._labels is None else self._labels.to_arrow().to_pylist()
        return self._label_list

    def _labels_of(self, ids: Any) -> list:
        """The original ids of a device array of dense ids (one transfer)."""
        labels = self._host_labels()
        return [labels[i] for i in _device.to_host(ids).tolist()]

    def _label_column(self) -> Any:
        """The original ids as one column (built from the host list for host-numbered ids of one type)."""
        if self._labels is None:
            labels = self._host_labels()
            kind = _common_kind(labels)
            if kind is None:
                raise TypeError("the graph's node ids have mixed Python types; they cannot form one column")
            self._labels = as_column(labels, dtype=_KIND_DTYPES[kind], xp=self.xp)
        return self._labels

    def _index(self) -> dict:
        """Original id -> dense id (built on the host on first use: look-ups of user-given nodes)."""
        if self._label_index is None:
            self._label_index = {label: i for i, label in enumerate(self._host_labels())}
        return self._label_index

    def _id_of(self, node: Any) -> int:
        found = self._find(node)
        if found is None:
            raise NetworkXError(f"The node {node} is not in the graph.")
        return found

    def _find(self, node: Any) -> int | None:
        """The dense id of one original id, or None. Without the host index (built only for many look-ups) this is
        one comparison over the labels on the device and one scalar read, not a dictionary of every node."""
        try:
            hash(node)
        except TypeError:  # unhashable: never a node, as in NetworkX
            return None
        if self._label_index is not None:
            return self._label_index.get(node)
        if self._labels is None or self._n == 0:
            if self._labels is None and self._n:
                return self._index().get(node)
            return None
        from riptide.core.ops.binary import binary_op

        try:
            equal = binary_op(self._labels, node, "eq")
        except (TypeError, ValueError):  # a value the labels cannot compare with: not a node
            return None
        hits = self.xp.flatnonzero(equal.data)[:1]
        found = _device.to_host(hits)  # one scalar read: the node's dense id, if any
        return int(found[0]) if found.shape[0] else None

    def _ids_of_column(self, column: Any) -> Any:
        """Dense ids (device int64) of a column of original ids, -1 where an id is not a node, found on the device:
        the graph's labels and the ids are grouped together, and as the labels are distinct and come first, an
        id's group number is its dense id."""
        from riptide.core.ops.grouping import group_rows
        from riptide.graph.renumber import combine_id_columns

        xp, n = self.xp, self._n
        try:
            combined = combine_id_columns([self._label_column(), column])
        except TypeError:  # ids of another type than the graph's (or mixed-type labels): no id is a node
            return xp.full(column.size, -1, dtype=np.int64)
        ids = group_rows([combined], sort=False, dropna=False).ids[n:]
        return xp.where((ids >= 0) & (ids < n), ids, -1)

    def _ids_of_present(self, nodes: Any) -> Any:
        """Dense ids (device int64) of the listed nodes that are in the graph, in the given order, first
        occurrences only (NetworkX's ``nbunch_iter`` over a container); a single node counts as a list of one."""
        if nodes is not None and not isinstance(nodes, str | bytes) and self.has_node(nodes):
            nodes = [nodes]
        elif nodes is None or isinstance(nodes, str | bytes) or not hasattr(nodes, "__iter__"):
            if nodes is not None and not self.has_node(nodes):
                raise NetworkXError(f"Node {nodes} in sequence nbunch is not a valid node.")
            nodes = [] if nodes is None else [nodes]
        return self._ids_of_listed(nodes)

    def _ids_of_listed(self, nodes: Any) -> Any:
        """Dense ids (device int64) of the nodes of an iterable that are in the graph, in order, first occurrences
        only; an unhashable item raises NetworkXError."""
        index = self._index()
        seen: dict[int, None] = {}
        for node in nodes:  # the user's list, on the host
            try:
                i = index.get(node)
            except TypeError:
                raise NetworkXError(f"Node {node} in sequence nbunch is not a valid node.") from None
            if i is not None:
                seen.setdefault(i, None)
        return _device.to_device(np.fromiter(seen, dtype=np.int64, count=len(seen)), self.xp)

    def _edge_ids_between(self, u: Any, v: Any) -> Any:
        """Edge ids (device) of the edges from u to v (either way when undirected), in edge order; None when u or
        v is not a node."""
        i, j = self._find(u), self._find(v)
        if i is None or j is None:
            return None
        start, stop = (int(x) for x in _device.to_host(self._offsets[i:i + 2]))  # one small read: row bounds
        hits = self.xp.flatnonzero(self._indices[start:stop] == j)
        return self._arc_edge[start + hits]

    def _edge_ids_of(self, edges: list) -> tuple[Any, Any]:
        """``(edge ids, endpoint ids)`` (device): the edges of this graph among the given ``(u, v)`` pairs
        (``(u, v, key)`` triples for a multigraph), in no particular order, possibly repeated, and the dense ids of
        the tuples' endpoints that are nodes. The ids are looked up on the host (the
        user's list); the edges are found on the device, by a ``searchsorted`` of the pairs' keys ``u * n + v``
        among the edges' (and, in a multigraph, by grouping the (pair, key) rows of edges and queries together)."""
        xp = self.xp
        index = self._index()
        multi = self.is_multigraph()
        us, vs, keys = [], [], []
        endpoints: list[int] = []
        for edge in edges:  # the user's list, on the host
            if multi:
                u, v, key = edge
            else:
                u, v = edge[:2]
                key = None
            endpoints.extend(index[x] for x in (u, v) if _hashable(x) and x in index)
            if _hashable(u) and _hashable(v) and u in index and v in index:
                us.append(index[u])
                vs.append(index[v])
                keys.append(key)
        n, m = max(self._n, 1), int(self._src.shape[0])
        empty = xp.zeros(0, dtype=np.int64)
        nodes = _device.to_device(np.asarray(endpoints, dtype=np.int64), xp)
        if not us or m == 0:
            return empty, nodes
        a = _device.to_device(np.asarray(us, dtype=np.int64), xp)
        b = _device.to_device(np.asarray(vs, dtype=np.int64), xp)
        if not self.is_directed():
            a, b = xp.minimum(a, b), xp.maximum(a, b)
        query, pairs = a * n + b, self._src * n + self._dst
        if not multi:
            order = stable_argsort(pairs, xp)
            ordered = pairs[order]
            at = xp.minimum(xp.searchsorted(ordered, query), m - 1)
            return order[at[ordered[at] == query]], nodes
        from riptide.core.column import concat_columns
        from riptide.core.ops.grouping import group_rows

        if self._key_labels is not None:  # keys of mixed types: codes into the host list
            code_of = {k: i for i, k in enumerate(self._key_labels)}
            codes = [code_of.get(k, -1) if _hashable(k) else -1 for k in keys]
            key_column = as_column(np.asarray(codes, dtype=np.int64), xp=xp)
        else:  # keys of one type: a query key of another type matches no edge
            if isinstance(self._edge_keys, NumericColumn):
                kind = float if self._edge_keys.data.dtype.kind == "f" else int
            else:
                kind = str
            usable, values = [], []
            for i, k in enumerate(keys):  # dict semantics: 7 == 7.0 (and a number never equals a string)
                number = isinstance(k, int | float | np.number) and not isinstance(k, bool)
                if kind is str and isinstance(k, str):
                    usable.append(i)
                    values.append(k)
                elif kind is not str and number and (kind is float or float(k).is_integer()):
                    usable.append(i)
                    values.append(kind(k))
            if not usable:
                return empty, nodes
            query = query[_device.to_device(np.asarray(usable, dtype=np.int64), xp)]
            key_column = as_column(values, dtype=_KIND_DTYPES[kind], xp=xp)
        both_keys = concat_columns([self._edge_keys, key_column])
        groups = group_rows([NumericColumn(xp.concatenate([pairs, query])), both_keys], sort=False, dropna=False)
        edge_of_group = xp.full(groups.n_groups, -1, dtype=np.int64)
        edge_of_group[groups.ids[:m]] = xp.arange(m, dtype=np.int64)  # (pair, key) rows are distinct edges
        found = edge_of_group[groups.ids[m:]]
        return found[found >= 0], nodes

    def _host_keys(self, edge_ids: Any) -> list:
        """The keys of the edges ``edge_ids`` as Python objects (multigraphs)."""
        keys = _pylist(self._edge_keys.take(edge_ids))
        if self._key_labels is not None:
            return [self._key_labels[k] for k in keys]
        return keys

    def _edge_dicts(self, edge_ids: Any) -> list[dict]:
        """The attribute dicts of the edges ``edge_ids`` (missing values left out, as NetworkX's data dicts)."""
        names = list(self._edge_attrs)
        count = int(edge_ids.shape[0])
        if not names:
            return [{} for _ in range(count)]
        columns = [_pylist(self._edge_attrs[name].take(edge_ids)) for name in names]
        return [{k: v for k, v in zip(names, row) if v is not None} for row in zip(*columns)]

    def _incident_arcs(self, nbunch: Any) -> tuple[Any, Any, Any]:
        """``(u, v, edge)`` device arrays of the edges NetworkX's ``G.edges(nbunch)`` lists: each node's adjacency in
        nbunch order (out-arcs for a directed graph), an undirected edge once, from the first listed endpoint."""
        xp = self.xp
        ids = self._ids_of_present(nbunch)
        starts, new_offsets = take_offsets(self._offsets, ids, xp)
        positions = xp.arange(int(self._indices.shape[0]), dtype=np.int64)  # arc numbers, gathered per row
        arcs = gather_segments(positions, starts, new_offsets, xp)
        u, v = self._arc_src[arcs], self._indices[arcs]
        if not self.is_directed():
            # NetworkX skips a neighbour whose own adjacency was listed before (its ``seen`` set).
            order = xp.full(self._n, np.iinfo(np.int64).max, dtype=np.int64)
            order[ids] = xp.arange(ids.shape[0], dtype=np.int64)
            keep = order[v] >= order[u]
            arcs, u, v = arcs[keep], u[keep], v[keep]
        return u, v, self._arc_edge[arcs]

    def _vector_from_dict(self, values: dict) -> Any:
        """A float64 vector over the dense ids from a dict keyed by original ids (0 for nodes not in it; keys not in
        the graph ignored)."""
        index = self._index()
        ids, vals = [], []
        for key, value in values.items():  # the user's dict, on the host
            i = index.get(key)
            if i is not None:
                ids.append(i)
                vals.append(value)
        host = np.zeros(self._n, dtype=np.float64)
        host[np.asarray(ids, dtype=np.int64)] = np.asarray(vals, dtype=np.float64)
        return _device.to_device(host, self.xp)

    def _result_dict(self, values: Any) -> Any:
        """``{original id: value}`` from a per-vertex device array, as a :class:`~riptide.graph.results.NodeMap`:
        the values stay on the device until the answer is read as a dict."""
        from riptide.graph.results import NodeMap

        return NodeMap.over_nodes(self, values)

    def _edge_weights(self, weight: str | None) -> Any:
        """float64 weight per edge: the ``weight`` attribute, 1 where it is missing or when ``weight`` is None
        or not an attribute of this graph (NetworkX's ``d.get(weight, 1)``)."""
        xp = self.xp
        m = self._src.shape[0]
        column = self._edge_attrs.get(weight) if weight is not None else None
        if column is None:
            return xp.ones(m, dtype=np.float64)
        if not isinstance(column, NumericColumn):
            raise TypeError(f"edge attribute {weight!r} is not numeric ({column.dtype})")
        values = column.data.astype(np.float64)
        if column.mask is not None:
            values = xp.where(column.mask, values, 1.0)
        return values

    def _arc_weights(self, weight: str | None) -> Any:
        return self._edge_weights(weight)[self._arc_edge]

    def _in_arcs(self) -> tuple[Any, Any]:
        """The reverse CSR: ``(offsets, sources)`` of the arcs sorted by target."""
        if self._in_csr is None:
            xp = self.xp
            # predecessors in the order the arcs first appeared, as NetworkX's pred dicts
            order = stable_argsort(self._indices * self._rank_bound + self._edge_rank[self._arc_edge], xp)
            self._in_csr = (_offsets_of(self._indices[order], self._n, xp), self._arc_src[order])
        return self._in_csr

    def _degrees(self, kind: str, weight: str | None = None) -> Any:
        """Per-vertex degree (int64, or float64 when weighted): ``kind`` is "out", "in" or "both"."""
        xp, n = self.xp, self._n
        if weight is None:
            out = xp.diff(self._offsets)  # the CSR row lengths: no scatter over the edges
            if self.is_directed():
                return out if kind == "out" else (bincount(self._dst, n, xp) + (out if kind == "both" else 0))
            loops = self._src == self._dst  # undirected rows hold each edge once per end; a self loop counts twice
            return out + bincount(self._src[loops], n, xp)
        w = self._edge_weights(weight)
        out, in_ = bincount(self._src, n, xp, weights=w), bincount(self._dst, n, xp, weights=w)
        if self.is_directed():
            return {"out": out, "in": in_, "both": out + in_}[kind]
        return out + in_  # an undirected edge adds its weight at both ends; a self loop twice at its node


class DiGraph(Graph):
    """A directed graph (NetworkX's ``DiGraph``) over a device CSR of out-arcs (and in-arcs, built on first use).

    >>> G = from_edgelist([("a", "b"), ("a", "b"), ("b", "a")], create_using=DiGraph)
    >>> G.number_of_edges(), dict(G.out_degree), dict(G.in_degree)
    (2, {'a': 1, 'b': 1}, {'a': 1, 'b': 1})
    """

    def is_directed(self) -> bool:
        return True

    @property
    def out_degree(self) -> DegreeView:
        return DegreeView(self, "out")

    @property
    def in_degree(self) -> DegreeView:
        return DegreeView(self, "in")

    def successors(self, node: Any) -> Iterator:
        return self.neighbors(node)

    def predecessors(self, node: Any) -> Iterator:
        i = self._id_of(node)
        offsets, sources = self._in_arcs()
        return iter(self._labels_of(_distinct_runs(_csr_row(offsets, sources, i), self.xp)))

    def to_undirected(self, reciprocal: bool = False, as_view: bool = False) -> Graph:
        """The undirected graph with one edge per connected pair (per (pair, key) in a multigraph); attributes of
        the later edge win, as in NetworkX. ``reciprocal=True`` keeps only pairs joined both ways."""
        xp = self.xp
        rows = xp.arange(self._src.shape[0], dtype=np.int64)
        if reciprocal:
            rows = xp.flatnonzero(self._reciprocated())
        attrs = {name: column.take(rows) for name, column in self._edge_attrs.items()}
        keys = None if self._edge_keys is None else self._edge_keys.take(rows)
        cls = self._undirected_class()
        out = cls.__new__(cls)
        out._setup(xp, self._n, self._src[rows], self._dst[rows], attrs, self._labels, self._label_list, keys,
                   self._key_labels)  # fmt: skip
        out.graph.update(self.graph)
        return out

    def _reciprocated(self) -> Any:
        """Per edge: whether the reverse arc (v, u) exists too, with the same key in a multigraph (a self loop is
        its own reverse). The forward and reversed (pair, key) rows are grouped together; an edge is reciprocated
        when its reversed row falls in a group holding a forward row."""
        from riptide.core.column import concat_columns
        from riptide.core.ops.grouping import group_rows

        xp = self.xp
        n, m = max(self._n, 1), int(self._src.shape[0])
        if m == 0:
            return xp.zeros(0, dtype=bool)
        columns = [NumericColumn(xp.concatenate([self._src * n + self._dst, self._dst * n + self._src]))]
        if self._edge_keys is not None:
            columns.append(concat_columns([self._edge_keys, self._edge_keys]))
        groups = group_rows(columns, sort=False, dropna=False)
        present = xp.zeros(groups.n_groups, dtype=bool)
        present[groups.ids[:m]] = True
        return present[groups.ids[m:]]

    def _undirected_class(self) -> type[Graph]:
        return Graph

    def reverse(self, copy: bool = True) -> DiGraph:
        """The graph with every edge reversed (NetworkX's ``reverse``), keys and attributes kept."""
        out = type(self).__new__(type(self))
        out._setup(self.xp, self._n, self._dst, self._src, dict(self._edge_attrs), self._labels, self._label_list,
                   self._edge_keys, self._key_labels)  # fmt: skip
        out.graph.update(self.graph)
        return out


class MultiGraph(Graph):
    """An undirected multigraph (NetworkX's ``MultiGraph``): parallel edges, each with a key and its own
    attributes.

    Without given keys, a pair's edges get keys 0, 1, 2, ... in the order they were added, as
    ``MultiGraph.add_edge`` assigns them; ``from_pandas_edgelist(..., edge_key="k")`` takes them from a column
    (rows repeating a pair and a key collapse to the last row's attributes, as NetworkX updates that edge).

    >>> M = from_edgelist([(1, 2), (2, 1), (1, 1)], create_using=MultiGraph)
    >>> list(M.edges(keys=True)), dict(M.degree), list(M.neighbors(1))
    ([(1, 2, 0), (1, 2, 1), (1, 1, 0)], {1: 4, 2: 2}, [2, 1])
    """

    def is_multigraph(self) -> bool:
        return True

    def _select_edges(self, src: Any, dst: Any, n: int, edge_keys: Any, xp: types.ModuleType) -> tuple:
        m = src.shape[0]
        if m == 0:
            empty = xp.zeros(0, dtype=np.int64)
            return empty, empty, NumericColumn(empty) if edge_keys is None else edge_keys.take(empty)
        pair = src * max(n, 1) + dst
        if edge_keys is None:
            # Every row is an edge; the k-th row of a pair (in row order) has key k.
            order, sorted_pairs = stable_argsort_with_values(pair, xp)
            is_first = xp.concatenate([xp.ones(1, dtype=bool), sorted_pairs[1:] != sorted_pairs[:-1]])
            run = xp.cumsum(is_first) - 1
            run_start = xp.flatnonzero(is_first)
            pair_first = order[run_start][run]  # the stable sort puts the pair's first row at its run's start
            position = xp.arange(m, dtype=np.int64) - run_start[run]
            final = stable_argsort(src[order] * self._rank_bound + pair_first, xp)  # stable: row order per pair
            return order[final], pair_first[final], NumericColumn(position[final])
        # Given keys: one edge per (pair, key); the last row's attributes, the first row's place in the pair.
        from riptide.core.ops.grouping import group_rows

        codes = group_rows([edge_keys], sort=False, dropna=False).ids
        order = lexsort([pair, codes], xp)  # stable: rows of one (pair, key) in row order
        sorted_pairs, sorted_codes = pair[order], codes[order]
        new_pair = sorted_pairs[1:] != sorted_pairs[:-1]
        new_edge = new_pair | (sorted_codes[1:] != sorted_codes[:-1])
        true = xp.ones(1, dtype=bool)
        edge_start = xp.flatnonzero(xp.concatenate([true, new_edge]))
        edge_end = xp.flatnonzero(xp.concatenate([new_edge, true]))
        edge_first = order[edge_start]  # the row that added the edge
        pair_of_edge = xp.cumsum(xp.concatenate([true, new_pair])[edge_start]) - 1
        n_pairs = int(pair_of_edge[-1]) + 1  # one scalar read: the number of pairs
        from riptide.core.kernels.scatter import scatter_min

        pair_first = xp.full(n_pairs, np.iinfo(np.int64).max, dtype=np.int64)
        scatter_min(pair_first, pair_of_edge, edge_first, xp)
        pair_first = pair_first[pair_of_edge]
        rows = order[edge_end]
        final = lexsort([src[rows] * self._rank_bound + pair_first, edge_first], xp)
        return rows[final], pair_first[final], edge_keys.take(rows[final])

    def number_of_edges(self, u: Any = None, v: Any = None) -> int:
        if u is None and v is None:
            return int(self._src.shape[0])
        found = self._edge_ids_between(u, v)
        return 0 if found is None else int(found.shape[0])

    def has_edge(self, u: Any, v: Any, key: Any = None) -> bool:
        found = self._edge_ids_between(u, v)
        if found is None or found.shape[0] == 0:
            return False
        return key is None or key in self._host_keys(found)

    def get_edge_data(self, u: Any, v: Any, key: Any = None, default: Any = None) -> Any:
        """``{key: attribute dict}`` of the edges between u and v, or one edge's dict when ``key`` is given;
        ``default`` when there is none."""
        found = self._edge_ids_between(u, v)
        if found is None or found.shape[0] == 0:
            return default
        keyed = dict(zip(self._host_keys(found), self._edge_dicts(found)))
        if key is None:
            return keyed
        return keyed.get(key, default)

    @property
    def edges(self) -> EdgeView:
        """NetworkX's MultiEdgeView: iterate for ``(u, v, key)`` triples; ``G.edges(keys=True, data=True)``..."""
        return EdgeView(self)

    def _directed_class(self) -> type[Graph]:
        return MultiDiGraph

    def _undirected_class(self) -> type[Graph]:
        return MultiGraph


class MultiDiGraph(MultiGraph, DiGraph):
    """A directed multigraph (NetworkX's ``MultiDiGraph``).

    >>> M = from_edgelist([("a", "b"), ("a", "b"), ("b", "a")], create_using=MultiDiGraph)
    >>> M.number_of_edges(), dict(M.out_degree), M.number_of_edges("a", "b")
    (3, {'a': 2, 'b': 1}, 2)
    """

    def is_directed(self) -> bool:
        return True

    def _undirected_class(self) -> type[Graph]:
        return MultiGraph


class DegreeView:
    """NetworkX's DegreeView over a riptide graph: ``view[node]`` is a degree, iterating gives ``(node, degree)``
    pairs in node order (so ``dict(view)`` works), ``view(nbunch=None, weight=None)`` narrows or weights it.
    Values are computed on the device once and read to the host on first access."""

    def __init__(self, graph: Graph, kind: str, weight: str | None = None, nbunch: Any = None) -> None:
        self._graph, self._kind, self._weight, self._nbunch = graph, kind, weight, nbunch
        self._host: list | None = None

    def __call__(self, nbunch: Any = None, weight: str | None = None) -> Any:
        if nbunch is not None and self._graph.has_node(nbunch):
            return DegreeView(self._graph, self._kind, weight)[nbunch]
        return DegreeView(self._graph, self._kind, weight, nbunch)

    def _values(self) -> list:
        if self._host is None:
            self._host = _device.to_host(self._graph._degrees(self._kind, self._weight)).tolist()
        return self._host

    def __getitem__(self, node: Any) -> int | float:
        found = self._graph._find(node)
        if found is None:
            raise KeyError(node)  # NetworkX's DegreeView is a dict look-up
        return self._values()[found]

    def __iter__(self) -> Iterator[tuple[Any, int | float]]:
        labels = self._graph._host_labels()
        values = self._values()
        if self._nbunch is None:
            return iter(zip(labels, values))
        index = self._graph._index()
        return iter([(node, values[index[node]]) for node in self._nbunch if node in index])

    def __len__(self) -> int:
        return self._graph.number_of_nodes() if self._nbunch is None else sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self)})"


class NodeView(list):
    """The nodes in NetworkX's order: a list (``G.nodes[i]`` is the ``i``-th node: riptide graphs hold no node
    attributes for NetworkX's ``G.nodes[n]`` data dict) that is also NetworkX's NodeView where that is cheap:
    ``node in G.nodes`` is a hash lookup and ``G.nodes(data=True)`` lists ``(node, {})`` pairs.

    >>> G = from_edgelist([("a", "b")])
    >>> G.nodes, "a" in G.nodes, G.nodes(data=True), G.nodes(data="color", default="red")
    (['a', 'b'], True, [('a', {}), ('b', {})], [('a', 'red'), ('b', 'red')])
    """

    def __init__(self, graph: Graph) -> None:
        super().__init__(graph._host_labels())
        self._graph = graph

    def __call__(self, data: Any = False, default: Any = None) -> list:
        if data is False:
            return list(self)
        if data is True:
            return [(node, {}) for node in self]
        return [(node, default) for node in self]

    def __contains__(self, node: Any) -> bool:
        return self._graph.has_node(node)

    def data(self, data: Any = True, default: Any = None) -> list:
        return self(data=data, default=default)


class EdgeView:
    """NetworkX's EdgeView (MultiEdgeView for a multigraph) over a riptide graph.

    Iterating gives ``(u, v)`` pairs (``(u, v, key)`` triples for a multigraph) in NetworkX's order; ``len`` and
    ``(u, v) in G.edges`` need no edge list on the host; ``G.edges[u, v]`` (``[u, v, key]``) is an edge's
    attribute dict. Calling the view, ``G.edges(nbunch=None, data=False, default=None, keys=False)``, returns a
    list of ``(u, v)``, ``(u, v, data)``, ``(u, v, key)`` or ``(u, v, key, data)`` tuples, where ``data`` is the
    attribute dict (``data=True``) or one attribute's value (``data="weight"``, ``default`` where missing).
    The lists are host output: one transfer of the edge arrays, then Python tuples.

    >>> G = from_edgelist([(1, 2, {"weight": 3}), (2, 3)])
    >>> list(G.edges), G.edges(data="weight", default=1), G.edges[1, 2], (3, 2) in G.edges
    ([(1, 2), (2, 3)], [(1, 2, 3), (2, 3, 1)], {'weight': 3}, True)
    """

    def __init__(self, graph: Graph) -> None:
        self._graph = graph

    def __call__(self, nbunch: Any = None, data: Any = False, *, default: Any = None, keys: bool = False) -> list:
        G = self._graph
        if nbunch is None:
            u, v, ids = G._src, G._dst, None
        else:
            u, v, ids = G._incident_arcs(nbunch)
        return _edge_tuples(G, u, v, ids, data, default, keys and G.is_multigraph())

    def data(self, data: Any = True, default: Any = None, nbunch: Any = None, keys: bool = False) -> list:
        return self(nbunch, data, default=default, keys=keys)

    def __iter__(self) -> Iterator[tuple]:
        return iter(self(keys=True))

    def __len__(self) -> int:
        return self._graph.number_of_edges()

    def __contains__(self, edge: Any) -> bool:
        try:
            return self._graph.has_edge(*edge)
        except TypeError:
            return False

    def __getitem__(self, edge: tuple) -> dict:
        G = self._graph
        if isinstance(edge, slice):
            raise NetworkXError(f"{type(self).__name__} does not support slicing, try list(G.edges)[{edge.start}:"
                                f"{edge.stop}:{edge.step}]")  # fmt: skip
        if G.is_multigraph():
            u, v, key = edge
            found = G.get_edge_data(u, v, key)
        else:
            u, v = edge
            found = G.get_edge_data(u, v)
        if found is None:
            raise KeyError(edge)
        return found

    def __eq__(self, other: object) -> bool:
        try:
            return set(self) == set(other)  # type: ignore[arg-type]  # NetworkX's EdgeView is set-like
        except TypeError:
            return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{'Multi' if self._graph.is_multigraph() else ''}EdgeView({list(self)})"


def _edge_tuples(G: Graph, u: Any, v: Any, edge_ids: Any, data: Any, default: Any, keys: bool) -> list[tuple]:
    """Host tuples ``(u, v[, key][, data])`` of the edges (dense endpoints ``u``, ``v``; ``edge_ids`` None: every
    edge in edge order)."""
    labels = G._host_labels()
    us = [labels[i] for i in _device.to_host(u).tolist()]
    vs = [labels[i] for i in _device.to_host(v).tolist()]
    ids = G.xp.arange(G._src.shape[0], dtype=np.int64) if edge_ids is None else edge_ids
    parts: list[list] = [us, vs]
    if keys:
        parts.append(G._host_keys(ids))
    if data is True:
        parts.append(G._edge_dicts(ids))
    elif data is not False:
        column = G._edge_attrs.get(data)
        if column is None:
            parts.append([default] * len(us))
        else:
            values = _pylist(column.take(ids))
            parts.append([default if x is None else x for x in values])
    return list(zip(*parts))


# ---------------------------------------------------------------------- building blocks


def _offsets_of(sorted_sources: Any, n: int, xp: types.ModuleType) -> Any:
    """CSR row offsets: the prefix sum of the per-vertex arc counts."""
    offsets = xp.zeros(n + 1, dtype=np.int64)
    if n:
        xp.cumsum(bincount(sorted_sources, n, xp), out=offsets[1:])
    return offsets


def _csr_row(offsets: Any, values: Any, i: int) -> Any:
    """Row ``i`` of a CSR (``values[offsets[i]:offsets[i + 1]]``), still on the device."""
    start, stop = (int(x) for x in _device.to_host(offsets[i:i + 2]))  # one small read: the row's bounds
    return values[start:stop]


def _distinct_runs(values: Any, xp: types.ModuleType) -> Any:
    """``values`` without consecutive repeats (a multigraph's parallel arcs are adjacent in their CSR row)."""
    if values.shape[0] < 2:
        return values
    return values[xp.concatenate([xp.ones(1, dtype=bool), values[1:] != values[:-1]])]


def _last_of_each_pair(src: Any, dst: Any, n: int, xp: types.ModuleType) -> tuple[Any, Any, Any]:
    """``(rows kept, their pair keys, first rows)``: per distinct (src, dst) pair, sorted by the key
    ``src * n + dst``, its last row (whose attributes NetworkX keeps) and its first row (which placed it in the
    adjacency)."""
    if src.shape[0] == 0:
        empty = xp.zeros(0, dtype=np.int64)
        return empty, empty, empty
    order, keys = stable_argsort_with_values(src * max(n, 1) + dst, xp)
    change = keys[1:] != keys[:-1]
    is_last = xp.concatenate([change, xp.ones(1, dtype=bool)])
    is_first = xp.concatenate([xp.ones(1, dtype=bool), change])
    return order[is_last], keys[is_last], order[is_first]


_CLASSES = {(False, False): Graph, (True, False): DiGraph, (False, True): MultiGraph, (True, True): MultiDiGraph}
_KIND_DTYPES = {str: "str", float: "float64", int: "int64"}


def _graph_class(create_using: Any) -> type[Graph]:
    """riptide's class for ``create_using`` (None, a riptide or NetworkX class, or an instance of one)."""
    if create_using is None:
        return Graph
    cls = create_using if isinstance(create_using, type) else type(create_using)
    if issubclass(cls, Graph):
        return cls
    multigraph = getattr(cls, "is_multigraph", None)
    directed = getattr(cls, "is_directed", None)
    if multigraph is None or directed is None:
        raise TypeError(f"create_using is not a valid graph type: {create_using!r}")
    probe = cls()
    return _CLASSES[(bool(probe.is_directed()), bool(probe.is_multigraph()))]


def _new_graph(cls: type[Graph], xp: types.ModuleType, n: int, src: Any, dst: Any, attrs: dict, labels: Any,
               label_list: list | None, edge_keys: Any = None, key_labels: list | None = None) -> Graph:  # fmt: skip
    graph = cls.__new__(cls)
    graph._setup(xp, n, src, dst, attrs, labels, label_list, edge_keys, key_labels)
    return graph


def _build_from_any(data: Any, cls: type[Graph]) -> Graph:
    if isinstance(data, Graph):
        both_multi = data.is_multigraph() and cls.is_multigraph(cls.__new__(cls))
        return _new_graph(cls, data.xp, data._n, data._src, data._dst, dict(data._edge_attrs), data._labels,
                          data._label_list, data._edge_keys if both_multi else None,
                          data._key_labels if both_multi else None)  # fmt: skip
    if hasattr(data, "adj") and hasattr(data, "is_directed"):
        return from_networkx(data, create_using=cls)
    if hasattr(data, "tocoo") and hasattr(data, "shape"):
        return from_scipy_sparse_array(data, create_using=cls)
    return from_edgelist(data, create_using=cls)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _device_id_column(values: Any, xp: types.ModuleType) -> Any:
    """A column of the ids in a riptide Series or a NumPy/CuPy array (None for other containers)."""
    from riptide.frame.series import Series

    if isinstance(values, Series):
        return values._column
    if isinstance(values, np.ndarray) or _device.is_device_array(values):
        return as_column(values, xp=xp)
    return None


class _MissingColumn(NetworkXError, KeyError):
    """A column named in ``edge_attr``/``edge_key`` is not in the frame: NetworkX raises NetworkXError (from
    the KeyError of ``df[name]``); catching either works."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


# ---------------------------------------------------------------------- constructors


def from_pandas_edgelist(df: Any, source: str = "source", target: str = "target", edge_attr: Any = None,
                         create_using: Any = None, edge_key: Any = None) -> Graph:  # fmt: skip
    """A graph from the edge list in a riptide or pandas DataFrame (NetworkX's ``from_pandas_edgelist``).

    ``edge_attr``: None, True (all other columns), a column name or a list of them. Vertex ids may be ints of any
    range, strings or categoricals; they are renumbered on the device. ``source`` and ``target`` may each name a
    list of columns (ids spanning several columns): each vertex is then the tuple of its values, and
    ``to_pandas_edgelist(G, source=[...], target=[...])`` splits them back. Repeated edges collapse to one whose
    attributes are the last row's, as in NetworkX, unless ``create_using`` is a multigraph class: then every row
    is an edge, keyed 0, 1, ... per pair, or by the ``edge_key`` column.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"source": [10**12, 5], "target": [5, 7], "weight": [2.0, 3.0]})
    >>> G = from_pandas_edgelist(df, edge_attr="weight")
    >>> G.nodes, G.degree(5, weight="weight")
    ([1000000000000, 5, 7], 5.0)
    """
    cls = _graph_class(create_using)
    frame = _as_riptide_frame(df)
    data = frame._data
    multi = cls.is_multigraph(cls.__new__(cls))
    id_names = _id_column_names(source, data) + _id_column_names(target, data)
    if edge_attr is None or edge_attr is False:  # NetworkX reads the id (and key) columns first: KeyError
        for name in id_names + ([edge_key] if multi and edge_key is not None else []):
            if name not in data:
                raise KeyError(name)
    reserved = id_names + ([edge_key] if multi and edge_key is not None else [])
    if edge_attr is True:
        attr_names = [c for c in data if c not in reserved]
    elif edge_attr is None or edge_attr is False:
        attr_names = []
    elif isinstance(edge_attr, list | tuple):
        attr_names = list(edge_attr)
    else:
        attr_names = [edge_attr]
    if edge_attr is not None and edge_attr is not False and not attr_names:
        raise NetworkXError(f"Invalid edge_attr argument: No columns found with name: {attr_names}")
    for name in attr_names:
        if name not in data:
            raise _MissingColumn(f"Invalid edge_attr argument: {edge_attr}")
    keys = None
    if multi and edge_key is not None:
        if edge_key not in data:
            raise _MissingColumn(f"Invalid edge_key argument: {edge_key}")
        keys = data[edge_key]
    for name in id_names:
        if name not in data:
            raise KeyError(name)
    attrs = {name: data[name] for name in attr_names}
    if len(id_names) > 2 or not (source in data and target in data):
        return _from_composite_ids(cls, data, _id_column_names(source, data), _id_column_names(target, data), attrs,
                                   keys)  # fmt: skip
    src_col, dst_col = data[source], data[target]
    xp = src_col.xp
    src, dst, labels = renumber_nodes_and_edges(None, src_col, dst_col)
    return _new_graph(cls, xp, labels.size, src, dst, attrs, labels, None, keys)


def _id_column_names(ids: Any, data: dict) -> list:
    """The columns holding a vertex id: one label, or a list of labels (a tuple that is not itself a label)."""
    if isinstance(ids, list) or (isinstance(ids, tuple) and ids not in data):
        return list(ids)
    return [ids]


def _from_composite_ids(cls: type[Graph], data: dict, source: list, target: list, attrs: dict, keys: Any) -> Graph:
    """A graph whose vertex ids span several columns (``source=["city", "zone"]``): each vertex is the tuple of
    its columns' values, as a NetworkX user would key such a node. The rows are renumbered together on the device
    (:func:`riptide.graph.renumber.number_interleaved` over the id columns, the endpoints of each edge interleaved
    so that the dense ids follow NetworkX's order of first appearance); only the distinct tuples go to the host."""
    if len(source) != len(target) or not source:
        raise NetworkXError(f"source and target must name as many id columns; got {source} and {target}")
    xp = data[source[0]].xp
    (src, dst), parts = number_interleaved([combine_id_columns([data[s], data[t]]) for s, t in zip(source, target)],
                                           2, data[source[0]].size)  # fmt: skip
    labels = list(zip(*[part.to_arrow().to_pylist() for part in parts]))  # host: one tuple per vertex (results' keys)
    return _new_graph(cls, xp, len(labels), src, dst, attrs, None, labels, keys)


def _as_riptide_frame(df: Any) -> Any:
    import pandas as pd

    from riptide.frame.dataframe import DataFrame

    if isinstance(df, DataFrame):
        return df
    if isinstance(df, pd.DataFrame):
        return DataFrame(df)
    raise TypeError(f"expected a riptide or pandas DataFrame, got {type(df).__name__}")


def from_edgelist(edgelist: Any, create_using: Any = None) -> Graph:
    """A graph from an iterable of ``(u, v)`` or ``(u, v, attr_dict)`` tuples (NetworkX's ``from_edgelist``);
    for a multigraph also ``(u, v, key)`` and ``(u, v, key, attr_dict)``.

    >>> sorted(from_edgelist([("x", "y"), ("y", "z", {"weight": 2})]).edges())
    [('x', 'y'), ('y', 'z')]
    """
    cls = _graph_class(create_using)
    multi = cls.is_multigraph(cls.__new__(cls))
    edges = list(edgelist)  # a Python iterable: read on the host once
    us = [e[0] for e in edges]
    vs = [e[1] for e in edges]
    dicts: list[dict] = []
    given_keys: list = []
    for e in edges:
        data, key = {}, None
        if len(e) == 3:
            if isinstance(e[2], dict):
                data = e[2]
            elif multi:
                key = e[2]
            else:
                raise NetworkXError(f"Edge tuple {e} must be a 2-tuple or 3-tuple.")
        elif len(e) == 4 and multi:
            key, data = e[2], e[3]
        elif len(e) != 2:
            raise NetworkXError(f"Edge tuple {e} must be a 2-tuple or 3-tuple.")
        dicts.append(data)
        given_keys.append(key)
    names: dict[str, None] = {}
    for d in dicts:
        names.update(dict.fromkeys(d))
    attrs = {name: [d.get(name) for d in dicts] for name in names}
    keys = None
    if multi and any(k is not None for k in given_keys):
        keys = _assign_keys(us, vs, given_keys, cls.is_directed(cls.__new__(cls)))
    return _from_host_lists(cls, None, us, vs, attrs, keys)


def _assign_keys(us: list, vs: list, keys: list, directed: bool) -> list:
    """NetworkX's keys for a list of multigraph additions where some keys are given and some are not (None):
    ``new_edge_key`` picks the pair's edge count, stepped past keys in use."""
    used: dict[Any, set] = {}
    out = []
    for u, v, key in zip(us, vs, keys):  # host lists the caller gave
        pair = (u, v) if directed else frozenset((u, v))
        taken = used.setdefault(pair, set())
        if key is None:
            key = len(taken)
            while key in taken:
                key += 1
        taken.add(key)
        out.append(key)
    return out


def _from_host_lists(cls: type[Graph], nodes: list | None, us: list, vs: list, attrs: dict[str, list],
                     keys: list | None = None) -> Graph:  # fmt: skip
    """A graph from Python lists: ids go to the device as one column when they share a type (ints or strings),
    else they are numbered on the host (any hashable ids, as NetworkX allows). ``keys``: a multigraph's edge
    keys (None: NetworkX's default keys)."""
    xp = _device.xp()
    columns = _attr_columns(attrs, len(us), xp)
    key_column, key_labels = _key_column(keys, xp) if keys is not None else (None, None)
    nodes = nodes or []
    kind = _common_kind(nodes + us + vs)
    if kind is not None:
        dtype = _KIND_DTYPES[kind]
        node_col = as_column(nodes, dtype=dtype, xp=xp) if nodes else None
        src, dst, labels = renumber_nodes_and_edges(node_col, as_column(us, dtype=dtype, xp=xp),
                                                    as_column(vs, dtype=dtype, xp=xp))  # fmt: skip
        return _new_graph(cls, xp, labels.size, src, dst, columns, labels, None, key_column, key_labels)
    index: dict = {}
    for node in nodes + [x for pair in zip(us, vs) for x in pair]:
        index.setdefault(node, len(index))
    src = _device.to_device(np.asarray([index[u] for u in us], dtype=np.int64), xp)
    dst = _device.to_device(np.asarray([index[v] for v in vs], dtype=np.int64), xp)
    return _new_graph(cls, xp, len(index), src, dst, columns, None, list(index), key_column, key_labels)


def _key_column(keys: list, xp: types.ModuleType) -> tuple[Any, list | None]:
    """Edge keys as a column of the keys themselves (one type) or of codes into a host list of them."""
    kind = _common_kind(keys)
    if kind is not None:
        return as_column(keys, dtype=_KIND_DTYPES[kind], xp=xp), None
    index: dict = {}
    codes = [index.setdefault(k, len(index)) for k in keys]
    return as_column(np.asarray(codes, dtype=np.int64), xp=xp), list(index)


def _common_kind(values: list) -> type | None:
    """int, float or str when every id has that exact type (bools and mixed types: None, numbered on the host)."""
    kinds = {type(v) for v in values}
    if len(kinds) == 1:
        (kind,) = kinds
        if kind in (int, str, float):
            if kind is int and values and not (-(2**63) <= min(values) and max(values) < 2**63):
                return None
            return kind
    return None


def _attr_columns(attrs: dict[str, list], m: int, xp: types.ModuleType) -> dict[str, Any]:
    """Edge attributes as columns (missing values masked): numbers (Python or NumPy) as numeric columns, strings as
    a string column, booleans as a boolean column; any other values are kept on the host (:class:`_ObjectColumn`):
    the algorithms here read numbers only, but conversions back to NetworkX keep every attribute."""
    columns: dict[str, Any] = {}
    for name, values in attrs.items():
        present = [v for v in values if v is not None]
        if not present:
            continue
        complete = len(present) == m
        if all(isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool | np.bool_)
               for v in present):  # fmt: skip
            dtype = "Float64" if any(isinstance(v, float | np.floating) for v in present) else "Int64"
            if complete:
                dtype = dtype.lower()  # no missing values: a plain NumPy dtype
            host = [v.item() if isinstance(v, np.generic) else v for v in values]
            if dtype in ("int64", "Int64") and not all(-(2**63) <= v < 2**63 for v in present):
                columns[name] = _ObjectColumn(xp.arange(m, dtype=np.int64), values)  # beyond int64: on the host
                continue
            columns[name] = as_column(host, dtype=dtype, xp=xp)
        elif all(isinstance(v, str) for v in present):
            columns[name] = as_column(values, dtype="str", xp=xp)
        elif all(isinstance(v, bool | np.bool_) for v in present):
            columns[name] = as_column([None if v is None else bool(v) for v in values],
                                      dtype="bool" if complete else "boolean", xp=xp)  # fmt: skip
        else:
            columns[name] = _ObjectColumn(xp.arange(m, dtype=np.int64), values)
    return columns


class _ObjectColumn:
    """Edge attribute values of any Python type, kept on the host: a device array of codes into a host list (a
    code per edge, so that ``take`` follows the edges through every rebuild like a real column). Not numeric: an
    algorithm asking for it as a weight gets TypeError, as NetworkX would fail on such values."""

    dtype = np.dtype(object)
    mask = None

    def __init__(self, codes: Any, values: list) -> None:
        self.codes, self.values = codes, values

    @property
    def size(self) -> int:
        return int(self.codes.shape[0])

    def take(self, indices: Any) -> _ObjectColumn:
        return _ObjectColumn(self.codes[indices], self.values)

    def to_pylist(self) -> list:
        return [self.values[i] for i in _device.to_host(self.codes).tolist()]


def _pylist(column: Any) -> list:
    """A column's values as Python objects (None where missing)."""
    if isinstance(column, _ObjectColumn):
        return column.to_pylist()
    return column.to_arrow().to_pylist()


def from_networkx(G: Any, create_using: Any = None, edge_attrs: dict | None = None,
                  preserve_edge_attrs: bool = True) -> Graph:  # fmt: skip
    """A riptide graph from a NetworkX graph of any of the four classes (nodes in the same order, isolated ones
    kept, a multigraph's edge keys kept).

    ``edge_attrs`` maps attribute names to the default for edges without them (None: leave them missing);
    ``preserve_edge_attrs`` keeps every numeric attribute. Reading a NetworkX graph walks its Python dicts on the
    host; everything after that runs on the device.

    >>> import networkx as nx
    >>> H = from_networkx(nx.path_graph(3))
    >>> type(H).__name__, H.number_of_edges()
    ('Graph', 2)
    """
    if create_using is not None:
        cls = _graph_class(create_using)
    else:
        cls = _CLASSES[(bool(G.is_directed()), bool(G.is_multigraph()))]
    nodes = list(G)
    multi_source = G.is_multigraph()
    edges = list(G.edges(keys=True, data=True)) if multi_source else list(G.edges(data=True))
    us = [e[0] for e in edges]
    vs = [e[1] for e in edges]
    datas = [e[-1] for e in edges]
    wanted: dict[str, Any] = dict(edge_attrs or {})
    if preserve_edge_attrs:
        for data in datas:
            for key in data:
                wanted.setdefault(key, None)
    attrs = {name: [d.get(name, default) for d in datas] for name, default in wanted.items()}
    keys = [e[2] for e in edges] if multi_source and cls.is_multigraph(cls.__new__(cls)) else None
    return _from_host_lists(cls, nodes, us, vs, attrs, keys)


def to_networkx(G: Graph) -> Any:
    """A NetworkX graph of the same class with the same nodes (same order), edges (and keys) and numeric edge
    attributes.

    >>> to_networkx(from_edgelist([(1, 2)])).edges()
    EdgeView([(1, 2)])
    """
    import networkx as nx

    classes = {Graph: nx.Graph, DiGraph: nx.DiGraph, MultiGraph: nx.MultiGraph, MultiDiGraph: nx.MultiDiGraph}
    out = classes[_CLASSES[(G.is_directed(), G.is_multigraph())]]()
    out.graph.update(G.graph)
    out.add_nodes_from(G._host_labels())
    parts = [G.edges(data=True, keys=True)] if G.is_multigraph() else [G.edges(data=True)]
    out.add_edges_from(parts[0])
    return out


def to_pandas_edgelist(G: Graph, source: str = "source", target: str = "target", nodelist: Any = None,
                       dtype: Any = None, edge_key: str | None = None) -> Any:  # fmt: skip
    """The edges as a **riptide** DataFrame (NetworkX's ``to_pandas_edgelist``, kept on the device): source and
    target columns of the original ids, the edge key column for a multigraph when ``edge_key`` names it, then one
    column per edge attribute (NaN where an edge lacks it, as NetworkX). ``.to_pandas()`` gives the
    pandas frame. ``nodelist`` keeps the edges incident to those nodes, as ``G.edges(nodelist)``.

    >>> G = from_edgelist([("a", "b", {"w": 1.5}), ("b", "c", {})])
    >>> to_pandas_edgelist(G).to_pandas()
      source target    w
    0      a      b  1.5
    1      b      c  NaN
    """
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import default_index

    names = list(G._edge_attrs)
    for name, what in ((source, "Source"), (target, "Target")):
        if not isinstance(name, list) and name in names:
            raise NetworkXError(f"{what} name {name!r} is an edge attr name")
    if nodelist is None:
        u, v, ids = G._src, G._dst, G.xp.arange(G._src.shape[0], dtype=np.int64)
    else:
        u, v, ids = G._incident_arcs(nodelist)
    if isinstance(source, list) or isinstance(target, list):
        # tuple ids (e.g. from from_pandas_edgelist(source=[...], target=[...])): one column per part
        parts = _id_part_columns(G, len(source) if isinstance(source, list) else 1)
        if not (isinstance(source, list) and isinstance(target, list) and len(source) == len(target) == len(parts)):
            raise NetworkXError(f"source and target must be lists of {len(parts)} names, one per part of the ids")
        columns = {name: part.take(u) for name, part in zip(source, parts)}
        columns.update({name: part.take(v) for name, part in zip(target, parts)})
    else:
        labels = G._label_column()
        columns = {source: labels.take(u), target: labels.take(v)}
    if G.is_multigraph() and edge_key is not None:
        if edge_key in names:
            raise NetworkXError(f"Edge key name {edge_key!r} is an edge attr name")
        if G._key_labels is not None:
            columns[edge_key] = as_column(G._host_keys(ids), xp=G.xp)
        else:
            columns[edge_key] = G._edge_keys.take(ids)
    for name in sorted(names, key=str):
        column = G._edge_attrs[name].take(ids)
        if isinstance(column, _ObjectColumn):  # values of any Python type: a column when they share one
            column = as_column(column.to_pylist(), xp=G.xp)
        if isinstance(column, NumericColumn) and column.mask is not None:  # NetworkX fills missing with NaN
            column = NumericColumn(G.xp.where(column.mask, column.data.astype(np.float64), np.nan))
        columns[name] = column
    frame = DataFrame._from_columns(columns, default_index(int(ids.shape[0]), G.xp))
    return frame.astype(dtype) if dtype is not None else frame


def _id_part_columns(G: Graph, k: int) -> list:
    """The ``k`` parts of a graph's tuple vertex ids as ``k`` columns in dense-id order (host labels)."""
    labels = G._host_labels()
    if not all(isinstance(label, tuple) and len(label) == k for label in labels):
        raise NetworkXError(f"the graph's nodes are not tuples of {k} values; name one source and one target column")
    parts = list(zip(*labels)) if labels else [()] * k
    return [as_column(list(part), xp=G.xp) for part in parts]


def from_scipy_sparse_array(A: Any, parallel_edges: bool = False, create_using: Any = None,
                            edge_attribute: str = "weight") -> Graph:  # fmt: skip
    """A graph from a square SciPy (or CuPy ``cupyx.scipy.sparse``) sparse adjacency matrix, nodes ``0..n-1``
    (NetworkX's ``from_scipy_sparse_array``): one edge per stored entry with the entry as its ``edge_attribute``;
    an undirected multigraph reads the upper triangle only, and with ``parallel_edges=True`` an integer entry
    ``k`` becomes ``k`` parallel edges of weight 1. A CuPy matrix is read without leaving the device.

    >>> import scipy.sparse as sp
    >>> G = from_scipy_sparse_array(sp.csr_array(np.array([[0, 2], [2, 1]])))
    >>> G.edges(data=True)
    [(0, 1, {'weight': 2}), (1, 1, {'weight': 1})]
    """
    cls = _graph_class(create_using)
    n, m = A.shape
    if n != m:
        raise NetworkXError(f"Adjacency matrix not square: nx,ny={A.shape}")
    xp = _device.xp()
    coo = A.tocoo()  # keeps the storage order (row-major for CSR, column-major for CSC), as NetworkX iterates
    row = _device.to_device(coo.row, xp).astype(np.int64)
    col = _device.to_device(coo.col, xp).astype(np.int64)
    data = _device.to_device(coo.data, xp)
    probe = cls.__new__(cls)
    if data.dtype.kind in "iu" and probe.is_multigraph() and parallel_edges:
        from riptide.core.kernels.segments import row_of_each_element

        counts = xp.maximum(data.astype(np.int64), 0)
        offsets = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts)])
        entry = row_of_each_element(offsets, xp)
        row, col, data = row[entry], col[entry], xp.ones(entry.shape[0], dtype=np.int64)
    if probe.is_multigraph() and not probe.is_directed():
        upper = xp.flatnonzero(row <= col)
        row, col, data = row[upper], col[upper], data[upper]
    if data.dtype.kind == "b":
        data = data.astype(np.int64)
    labels = NumericColumn(xp.arange(n, dtype=np.int64))
    return _new_graph(cls, xp, n, row, col, {edge_attribute: NumericColumn(data)}, labels, None)


def _adjacency_coo(G: Graph, nodelist: Any, dtype: Any, weight: str | None) -> tuple[Any, Any, Any, int]:
    """``(rows, cols, values, size)`` of NetworkX's ``to_scipy_sparse_array`` COO entries, on the device."""
    xp = G.xp
    if G.number_of_nodes() == 0:
        raise NetworkXError("Graph has no nodes or edges")
    src, dst = G._src, G._dst
    column = G._edge_attrs.get(weight) if weight is not None else None
    if column is None:
        values = xp.ones(src.shape[0], dtype=np.int64)
    else:
        values = column.data if column.mask is None else xp.where(column.mask, column.data, 1)
        if values.dtype.kind == "b":
            values = values.astype(np.int64)
    size = G._n
    if nodelist is not None:
        nodelist = list(nodelist)
        if not nodelist:
            raise NetworkXError("nodelist has no nodes")
        index = G._index()
        for node in nodelist:
            if node not in index:
                raise NetworkXError(f"Node {node} in nodelist is not in G")
        if len(set(nodelist)) != len(nodelist):
            raise NetworkXError("nodelist contains duplicates.")
        position = np.full(G._n, -1, dtype=np.int64)
        position[[index[node] for node in nodelist]] = np.arange(len(nodelist))
        position = _device.to_device(position, xp)
        keep = (position[src] >= 0) & (position[dst] >= 0)
        src, dst, values = position[src[keep]], position[dst[keep]], values[keep]
        size = len(nodelist)
    if G.is_directed():
        rows, cols, data = src, dst, values
    else:
        loops = xp.flatnonzero(src == dst)  # symmetrized, a self loop's entry is counted once
        rows = xp.concatenate([src, dst, src[loops]])
        cols = xp.concatenate([dst, src, src[loops]])
        data = xp.concatenate([values, values, -values[loops]])
    if dtype is not None:
        data = data.astype(dtype)
    return rows, cols, data, size


def to_scipy_sparse_array(G: Graph, nodelist: Any = None, dtype: Any = None, weight: str | None = "weight",
                          format: str = "csr") -> Any:  # fmt: skip
    """The adjacency matrix as a SciPy sparse array (NetworkX's ``to_scipy_sparse_array``): entry (i, j) is the
    ``weight`` of the edge (1 where missing or ``weight=None``), parallel edges summed, both entries of an
    undirected edge set, a self loop's once; rows follow ``nodelist`` (default: the node order).

    >>> to_scipy_sparse_array(from_edgelist([(1, 2), (2, 2)])).toarray().tolist()
    [[0, 1], [1, 1]]
    """
    import scipy.sparse as sp

    rows, cols, data, size = _adjacency_coo(G, nodelist, dtype, weight)
    host = [_device.to_host(a) for a in (rows, cols, data)]
    A = sp.coo_array((host[2], (host[0], host[1])), shape=(size, size))
    try:
        return A.asformat(format)
    except ValueError as err:
        raise NetworkXError(f"Unknown sparse matrix format: {format}") from err


def to_cupyx_sparse_array(G: Graph, nodelist: Any = None, dtype: Any = None, weight: str | None = "weight",
                          format: str = "csr") -> Any:  # fmt: skip
    """:func:`to_scipy_sparse_array`, built on the device: a ``cupyx.scipy.sparse`` matrix on the GPU (float64
    values where the weights are integers: cupyx holds floats only), a SciPy array where riptide runs on NumPy.
    Not a NetworkX function.

    >>> to_cupyx_sparse_array(from_edgelist([(1, 2)]), format="coo").nnz
    2
    """
    rows, cols, data, size = _adjacency_coo(G, nodelist, dtype, weight)
    if G.xp is np:
        return to_scipy_sparse_array(G, nodelist, dtype, weight, format)
    import cupyx.scipy.sparse as csp

    if data.dtype.kind not in "fc":  # cupyx sparse matrices hold floats (and complex) only
        data = data.astype(np.float64)
    A = csp.coo_matrix((data, (rows, cols)), shape=(size, size))
    try:
        return A.asformat(format)
    except (ValueError, NotImplementedError) as err:
        raise NetworkXError(f"Unknown sparse matrix format: {format}") from err
