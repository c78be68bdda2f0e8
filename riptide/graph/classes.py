"""Graph and DiGraph: NetworkX's graph classes over a device CSR.

A graph is built once from an edge list and is then read-only (the algorithms' input, not an editing structure).
Building it:

1. **renumber** the endpoints to dense ids 0..n-1 (:mod:`riptide.graph.renumber`); vertex ``k``'s original id is
   ``labels[k]``, and every result maps back through it;
2. **collapse repeated edges** as NetworkX's Graph/DiGraph do: one edge per (u, v) pair (per unordered pair for
   Graph), whose attributes are those of its *last* occurrence (``add_edge`` updates the edge's data dict). A
   stable sort of the pair keys ``u * n + v`` puts repeats side by side; the last of each run survives, and the
   first of each run is the edge's **rank**, its place in NetworkX's adjacency dicts;
3. the surviving edges, sorted by (source, rank), become the **CSR**: ``offsets`` is the prefix sum of the
   out-degrees (a ``bincount`` of the sources), ``indices`` the targets. An undirected graph stores each
   non-loop edge as two arcs (a self loop once, as NetworkX's adjacency does) and sorts the arcs by (source,
   rank) again. ``arc_edge`` maps each arc to its edge, so edge attributes (weights) are stored once per edge.
   Each CSR row is thus in NetworkX's adjacency order, so ``edges()``, ``neighbors`` and breadth-first
   discovery order come out as NetworkX's for a graph built from an edge list (and for a NetworkX DiGraph; an
   undirected NetworkX graph's later-inserted neighbours can be in another order, as one rank per edge cannot
   describe both of its endpoints' dicts).

A DiGraph also builds the reverse CSR (in-arcs) on first use. Everything is xp arrays; only results handed back
to Python (dicts keyed by the original ids) go to the host.

>>> import pandas as pd
>>> G = from_pandas_edgelist(pd.DataFrame({"source": ["a", "b", "b"], "target": ["b", "c", "a"]}))
>>> G.number_of_nodes(), G.number_of_edges(), dict(G.degree)
(3, 2, {'a': 1, 'b': 2, 'c': 1})
"""

from __future__ import annotations

import types
from typing import Any, Iterator

import numpy as np

from riptide import _device
from riptide.core.column import NumericColumn, as_column
from riptide.core.kernels.sort import stable_argsort, stable_argsort_with_values
from riptide.graph._arrays import bincount
from riptide.graph.exceptions import NetworkXError, NetworkXNotImplemented
from riptide.graph.renumber import renumber_nodes_and_edges

__all__ = ["Graph", "DiGraph", "DegreeView", "from_pandas_edgelist", "from_edgelist", "from_networkx",
           "to_networkx"]  # fmt: skip


class Graph:
    """An undirected graph (NetworkX's ``Graph``: no parallel edges, self loops allowed) over a device CSR.

    Build one with :func:`from_pandas_edgelist`, :func:`from_edgelist` or :func:`from_networkx`;
    ``Graph()`` is the empty graph.

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
               labels: Any, label_list: list | None) -> None:  # fmt: skip
        """Collapse repeated edges, then build the CSR. ``src``/``dst`` are dense ids (int64), one per input edge;
        ``edge_attrs`` maps attribute name -> Column aligned with the input edges."""
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
        keep, key, first = _last_of_each_pair(src, dst, n, xp)
        # Edges in NetworkX's adjacency order: by source, then by the pair's first appearance (add_edge puts a new
        # neighbour last in the adjacency dict; a repeat updates the data in place). The key is unique per edge.
        self._rank_bound = max(src.shape[0], 1)
        order = stable_argsort((key // max(n, 1)) * self._rank_bound + first, xp) if key.shape[0] else key
        key, keep, self._edge_rank = key[order], keep[order], first[order]
        self._src = key // max(n, 1)  # one edge per (src, dst) pair; per unordered pair (src <= dst) when undirected
        self._dst = key % max(n, 1)
        self._edge_attrs = {name: column.take(keep) for name, column in edge_attrs.items()}
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
    def nodes(self) -> list:
        """The nodes (original ids) in NetworkX's order: listed nodes first, then edge endpoints as met."""
        return list(self._host_labels())

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

    def edges(self) -> list[tuple]:
        """The edges as ``(u, v)`` pairs of original ids (each undirected edge once)."""
        labels = self._host_labels()
        return [(labels[a], labels[b]) for a, b in zip(_device.to_host(self._src).tolist(),
                                                      _device.to_host(self._dst).tolist())]  # fmt: skip

    @property
    def degree(self) -> DegreeView:
        """Degrees as NetworkX's DegreeView: ``G.degree[n]``, ``dict(G.degree)``, ``G.degree(nbunch, weight)``.
        A self loop adds 2 to its node's degree in an undirected graph."""
        return DegreeView(self, "both")

    def neighbors(self, node: Any) -> Iterator:
        return iter(self._labels_of(_csr_row(self._offsets, self._indices, self._id_of(node))))

    def to_networkx(self) -> Any:
        """This graph as a ``networkx.Graph`` (or ``DiGraph``), nodes in the same order, edge attributes kept."""
        return to_networkx(self)

    def to_directed(self) -> DiGraph:
        """A DiGraph with both arcs of each edge (NetworkX's ``to_directed``)."""
        edge_attrs = {k: c.take(self._arc_edge) for k, c in self._edge_attrs.items()}
        out = DiGraph.__new__(DiGraph)
        out._setup(self.xp, self._n, self._arc_src, self._indices, edge_attrs, self._labels, self._label_list)
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
            return None
        from riptide.core.ops.binary import binary_op

        try:
            equal = binary_op(self._labels, node, "eq")
        except (TypeError, ValueError):  # a value the labels cannot compare with: not a node
            return None
        hits = self.xp.flatnonzero(equal.data)[:1]
        found = _device.to_host(hits)  # one scalar read: the node's dense id, if any
        return int(found[0]) if found.shape[0] else None

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
        return iter(self._labels_of(_csr_row(offsets, sources, i)))

    def to_undirected(self) -> Graph:
        """The Graph with one edge per connected pair (attributes of the later edge win, as in NetworkX)."""
        out = Graph.__new__(Graph)
        out._setup(self.xp, self._n, self._src, self._dst, dict(self._edge_attrs), self._labels, self._label_list)
        return out

    def reverse(self) -> DiGraph:
        out = DiGraph.__new__(DiGraph)
        out._setup(self.xp, self._n, self._dst, self._src, dict(self._edge_attrs), self._labels, self._label_list)
        return out


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
        return self._values()[self._graph._id_of(node)]

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
    if probe.is_multigraph():
        raise NetworkXNotImplemented("riptide.graph has no MultiGraph/MultiDiGraph yet")
    return DiGraph if probe.is_directed() else Graph


def _new_graph(cls: type[Graph], xp: types.ModuleType, n: int, src: Any, dst: Any, attrs: dict, labels: Any,
               label_list: list | None) -> Graph:  # fmt: skip
    graph = cls.__new__(cls)
    graph._setup(xp, n, src, dst, attrs, labels, label_list)
    return graph


def _build_from_any(data: Any, cls: type[Graph]) -> Graph:
    if isinstance(data, Graph):
        return _new_graph(cls, data.xp, data._n, data._src, data._dst, dict(data._edge_attrs), data._labels,
                          data._label_list)  # fmt: skip
    if hasattr(data, "adj") and hasattr(data, "is_directed"):
        return from_networkx(data, create_using=cls)
    return from_edgelist(data, create_using=cls)


# ---------------------------------------------------------------------- constructors


def from_pandas_edgelist(df: Any, source: str = "source", target: str = "target", edge_attr: Any = None,
                         create_using: Any = None, edge_key: Any = None) -> Graph:  # fmt: skip
    """A graph from the edge list in a riptide or pandas DataFrame (NetworkX's ``from_pandas_edgelist``).

    ``edge_attr``: None, True (all other columns), a column name or a list of them. Vertex ids may be ints of any
    range or strings; they are renumbered on the device. Repeated edges collapse to one whose attributes are the
    last row's, as in NetworkX.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"source": [10**12, 5], "target": [5, 7], "weight": [2.0, 3.0]})
    >>> G = from_pandas_edgelist(df, edge_attr="weight")
    >>> G.nodes, G.degree(5, weight="weight")
    ([1000000000000, 5, 7], 5.0)
    """
    if edge_key is not None:
        raise NetworkXNotImplemented("edge_key needs a MultiGraph, which riptide.graph does not have yet")
    cls = _graph_class(create_using)
    frame = _as_riptide_frame(df)
    data = frame._data
    for name in (source, target):
        if name not in data:
            raise KeyError(name)
    if edge_attr is True:
        attr_names = [c for c in data if c not in (source, target)]
    elif edge_attr is None or edge_attr is False:
        attr_names = []
    elif isinstance(edge_attr, list | tuple):
        attr_names = list(edge_attr)
    else:
        attr_names = [edge_attr]
    for name in attr_names:
        if name not in data:
            raise KeyError(name)  # NetworkX raises KeyError from df[name] as well
    src_col, dst_col = data[source], data[target]
    xp = src_col.xp
    src, dst, labels = renumber_nodes_and_edges(None, src_col, dst_col)
    return _new_graph(cls, xp, labels.size, src, dst, {name: data[name] for name in attr_names}, labels, None)


def _as_riptide_frame(df: Any) -> Any:
    import pandas as pd

    from riptide.frame.dataframe import DataFrame

    if isinstance(df, DataFrame):
        return df
    if isinstance(df, pd.DataFrame):
        return DataFrame(df)
    raise TypeError(f"expected a riptide or pandas DataFrame, got {type(df).__name__}")


def from_edgelist(edgelist: Any, create_using: Any = None) -> Graph:
    """A graph from an iterable of ``(u, v)`` or ``(u, v, attr_dict)`` tuples (NetworkX's ``from_edgelist``).

    >>> sorted(from_edgelist([("x", "y"), ("y", "z", {"weight": 2})]).edges())
    [('x', 'y'), ('y', 'z')]
    """
    cls = _graph_class(create_using)
    edges = list(edgelist)  # a Python iterable: read on the host once
    us = [e[0] for e in edges]
    vs = [e[1] for e in edges]
    names: dict[str, None] = {}
    for e in edges:
        if len(e) == 3:
            names.update(dict.fromkeys(e[2]))
        elif len(e) != 2:
            raise NetworkXError(f"Edge tuple {e} must be a 2-tuple or 3-tuple.")
    attrs = {name: [e[2].get(name) if len(e) == 3 else None for e in edges] for name in names}
    return _from_host_lists(cls, None, us, vs, attrs)


def _from_host_lists(cls: type[Graph], nodes: list | None, us: list, vs: list, attrs: dict[str, list]) -> Graph:
    """A graph from Python lists: ids go to the device as one column when they share a type (ints or strings),
    else they are numbered on the host (any hashable ids, as NetworkX allows)."""
    xp = _device.xp()
    columns = _attr_columns(attrs, len(us), xp)
    nodes = nodes or []
    kind = _common_kind(nodes + us + vs)
    if kind is not None:
        dtype = "str" if kind is str else ("float64" if kind is float else "int64")
        node_col = as_column(nodes, dtype=dtype, xp=xp) if nodes else None
        src, dst, labels = renumber_nodes_and_edges(node_col, as_column(us, dtype=dtype, xp=xp),
                                                    as_column(vs, dtype=dtype, xp=xp))  # fmt: skip
        return _new_graph(cls, xp, labels.size, src, dst, columns, labels, None)
    index: dict = {}
    for node in nodes + [x for pair in zip(us, vs) for x in pair]:
        index.setdefault(node, len(index))
    src = _device.to_device(np.asarray([index[u] for u in us], dtype=np.int64), xp)
    dst = _device.to_device(np.asarray([index[v] for v in vs], dtype=np.int64), xp)
    return _new_graph(cls, xp, len(index), src, dst, columns, None, list(index))


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
    """Numeric edge attributes as columns (missing values masked); non-numeric ones are skipped."""
    columns = {}
    for name, values in attrs.items():
        present = [v for v in values if v is not None]
        if not present or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
            continue  # non-numeric attributes stay in NetworkX's world; algorithms here read numbers only
        dtype = "float64" if any(isinstance(v, float) for v in present) else "Int64"
        if dtype == "Int64" and len(present) == m:
            dtype = "int64"
        columns[name] = as_column(values, dtype=dtype, xp=xp)
    return columns


def from_networkx(G: Any, create_using: Any = None, edge_attrs: dict | None = None,
                  preserve_edge_attrs: bool = True) -> Graph:  # fmt: skip
    """A riptide graph from a ``networkx.Graph``/``DiGraph`` (nodes in the same order, isolated ones kept).

    ``edge_attrs`` maps attribute names to the default for edges without them (None: leave them missing);
    ``preserve_edge_attrs`` keeps every numeric attribute. Reading a NetworkX graph walks its Python dicts on the
    host; everything after that runs on the device.

    >>> import networkx as nx
    >>> H = from_networkx(nx.path_graph(3))
    >>> type(H).__name__, H.number_of_edges()
    ('Graph', 2)
    """
    if G.is_multigraph():
        raise NetworkXNotImplemented("riptide.graph has no MultiGraph/MultiDiGraph yet")
    cls = _graph_class(create_using) if create_using is not None else (DiGraph if G.is_directed() else Graph)
    nodes = list(G)
    edges = list(G.edges(data=True))
    us = [e[0] for e in edges]
    vs = [e[1] for e in edges]
    wanted: dict[str, Any] = dict(edge_attrs or {})
    if preserve_edge_attrs:
        for _, _, data in edges:
            for key in data:
                wanted.setdefault(key, None)
    attrs = {name: [d.get(name, default) for _, _, d in edges] for name, default in wanted.items()}
    return _from_host_lists(cls, nodes, us, vs, attrs)


def to_networkx(G: Graph) -> Any:
    """A ``networkx.Graph``/``DiGraph`` with the same nodes (same order), edges and numeric edge attributes.

    >>> to_networkx(from_edgelist([(1, 2)])).edges()
    EdgeView([(1, 2)])
    """
    import networkx as nx

    out = nx.DiGraph() if G.is_directed() else nx.Graph()
    out.graph.update(G.graph)
    labels = G._host_labels()
    out.add_nodes_from(labels)
    src = _device.to_host(G._src).tolist()
    dst = _device.to_host(G._dst).tolist()
    names = list(G._edge_attrs)
    values = [G._edge_attrs[name].to_arrow().to_pylist() for name in names]
    if names:
        rows = zip(*values)
        out.add_edges_from((labels[a], labels[b], {k: v for k, v in zip(names, row) if v is not None})
                           for a, b, row in zip(src, dst, rows))  # fmt: skip
    else:
        out.add_edges_from((labels[a], labels[b]) for a, b in zip(src, dst))
    return out
