"""Triangles and clustering: ``triangles``, ``clustering``, ``average_clustering``, ``transitivity``,
``square_clustering``.

Everything rests on one **triangle enumeration** over the graph's *support*: its distinct non-loop vertex pairs
(self loops never close a triangle in NetworkX; a directed graph's arcs u->v and v->u are one pair here).

1. **orient** each pair from the endpoint of lower (degree, id) to the higher one; vertices are renumbered by
   that rank, so every vertex keeps at most ~sqrt(2m) out-arcs (hubs point at few vertices);
2. sort the oriented arcs by (tail, head): a CSR in rank space whose rows are sorted, and a sorted array of keys
   ``tail * n + head`` to look arcs up in;
3. **wedges**: for each arc (u, v) at position p of u's row, the arcs (u, w) after it in the row
   (``rank v < rank w``) form the wedges v-u-w; a wedge closes a triangle when the arc (v, w) exists, found by a
   binary search (``searchsorted``) of ``v * n + w`` among the keys. Each triangle is found exactly once, at its
   lowest vertex. Wedges are generated in batches of at most ``_WEDGE_BATCH`` (the per-arc wedge counts' prefix
   sum gives the cut points), so memory stays bounded on graphs with billions of wedges.

Per-node results are then scatter-adds of a per-triangle value to its three vertices: 1 for ``triangles``; for
``clustering`` NetworkX's ``t``, the product over the triangle's three pairs of a per-pair factor (1 unweighted;
the cube root of the weight divided by the largest weight when weighted; for a directed graph the number of
arcs between the pair, or the sum of the two arcs' cube roots when weighted: NetworkX's sum over the eight
in/out combinations factors that way), doubled because NetworkX counts both orders of the other two vertices.

Degrees count distinct non-loop neighbours, as NetworkX's ``set(G[v]) - {v}``. ``transitivity`` of a directed
graph counts, per support triangle, the orders (v, w, x) of its corners with arcs v->w, v->x, w->x (NetworkX's
count over out-neighbours). ``square_clustering`` counts common neighbours per pair from the paths v-u-x (see its
docstring).
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from riptide import _device
from riptide.core.kernels.segments import row_of_each_element
from riptide.core.kernels.sort import inverse_permutation, stable_argsort, stable_argsort_with_values
from riptide.graph._arrays import bincount
from riptide.graph._checks import as_riptide_graph, require_undirected
from riptide.graph.exceptions import NetworkXError, NetworkXNotImplemented

__all__ = ["triangles", "clustering", "average_clustering", "transitivity", "square_clustering",
           "enumerate_triangles"]  # fmt: skip

_WEDGE_BATCH = 1 << 26  # wedges checked per batch (a few int64 arrays of this length at a time)


# ---------------------------------------------------------------------- the support graph and its triangles


class _Support:
    """The distinct non-loop pairs ``a < b`` of a graph (dense ids), with per pair the arcs a->b and b->a it
    has (a directed graph) and their weights."""

    def __init__(self, G: Any, weight: str | None) -> None:
        xp, n = G.xp, G.number_of_nodes()
        self.xp, self.n, self.directed = xp, n, G.is_directed()
        src, dst = G._src, G._dst
        w = G._edge_weights(weight) if weight is not None else None
        keep = xp.flatnonzero(src != dst)
        src, dst = src[keep], dst[keep]
        if w is not None:
            w = w[keep]
        forward = src < dst
        a, b = xp.minimum(src, dst), xp.maximum(src, dst)
        if self.directed or G.is_multigraph():  # one pair for u->v, v->u and parallel edges: keep each pair once
            order, keys = stable_argsort_with_values(a * max(n, 1) + b, xp)
            first = xp.ones(keys.shape[0], dtype=bool)
            first[1:] = keys[1:] != keys[:-1]
            pair = xp.cumsum(first) - 1
            k = int(first.sum())  # one scalar read: the number of pairs
            self.has_ab = xp.zeros(k, dtype=bool)
            self.has_ba = xp.zeros(k, dtype=bool)
            self.has_ab[pair[forward[order]]] = True
            self.has_ba[pair[~forward[order]]] = True
            self.pair_of_edge = xp.empty(keys.shape[0], dtype=np.int64)
            self.pair_of_edge[order] = pair
            keys = keys[first]
            a, b = keys // max(n, 1), keys % max(n, 1)
        self.a, self.b = a, b
        self.weights = w  # per kept edge (directed: per arc, see pair_of_edge)
        self.forward = forward

    def degrees(self) -> Any:
        """Distinct non-loop neighbours per vertex."""
        xp, n = self.xp, self.n
        return bincount(self.a, n, xp) + bincount(self.b, n, xp)

    def factor(self, weight: str | None, max_weight: float) -> Any:
        """NetworkX's per-pair factor of a triangle's contribution (see the module docstring), or None for 1."""
        xp = self.xp
        if not self.directed:
            return None if weight is None else xp.cbrt(self.weights / max_weight)
        if weight is None:
            return self.has_ab.astype(np.float64) + self.has_ba.astype(np.float64)
        return bincount(self.pair_of_edge, self.a.shape[0], xp, weights=xp.cbrt(self.weights / max_weight))


def enumerate_triangles(n: int, a: Any, b: Any, xp: types.ModuleType) -> Any:
    """The triangles of the simple undirected graph with distinct pairs ``(a[i], b[i])``, ``a < b``, as batches
    ``(x, y, z, pair_xy, pair_xz, pair_yz)`` of vertex ids and pair indices (a generator; each triangle once).

    >>> batches = list(enumerate_triangles(4, np.array([0, 0, 1, 2, 1]), np.array([1, 2, 2, 3, 3]), np))
    >>> sorted(sorted(t) for t in zip(*(x.tolist() for x in batches[0][:3])))
    [[0, 1, 2], [1, 2, 3]]
    """
    m = a.shape[0]
    if m == 0 or n == 0:
        return
    degree = bincount(a, n, xp) + bincount(b, n, xp)
    order = stable_argsort(degree, xp)  # by degree, then id (a stable sort)
    rank = inverse_permutation(order, xp)
    ra, rb = rank[a], rank[b]
    tail, head = xp.minimum(ra, rb), xp.maximum(ra, rb)
    arc_pair, keys = stable_argsort_with_values(tail * n + head, xp)
    tail, head = keys // n, keys % n
    offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(bincount(tail, n, xp), out=offsets[1:])
    positions = xp.arange(m, dtype=np.int64)
    later = offsets[1:][tail] - positions - 1  # the arcs after each arc in its row: its wedges
    cumulative = xp.cumsum(later)
    total = int(cumulative[-1])  # one scalar read: the number of wedges
    if total == 0:
        return
    # Batches of whole arcs, each holding at most _WEDGE_BATCH wedges (or one arc, if it alone holds more).
    cuts = [0]
    while cuts[-1] < m:
        done = int(cumulative[cuts[-1] - 1]) if cuts[-1] else 0  # one scalar read per batch
        bound = xp.asarray(np.array([done + _WEDGE_BATCH], dtype=np.int64))
        nxt = int(xp.searchsorted(cumulative, bound, side="right")[0])  # one scalar read per batch
        cuts.append(min(max(nxt, cuts[-1] + 1), m))
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        counts = later[lo:hi]
        new_offsets = xp.zeros(hi - lo + 1, dtype=np.int64)
        xp.cumsum(counts, out=new_offsets[1:])
        if int(new_offsets[-1]) == 0:  # one scalar read per batch: no wedge in it
            continue
        row = row_of_each_element(new_offsets, xp)
        p = lo + row  # the wedge's first arc (u, v)
        q = p + 1 + (xp.arange(row.shape[0], dtype=np.int64) - new_offsets[row])  # its second arc (u, w), later
        v, w = head[p], head[q]
        wanted = v * n + w
        found = xp.minimum(xp.searchsorted(keys, wanted), m - 1)
        closed = xp.flatnonzero(keys[found] == wanted)
        p, q, found = p[closed], q[closed], found[closed]
        yield (order[tail[p]], order[head[p]], order[head[q]], arc_pair[p], arc_pair[q], arc_pair[found])


def _triangle_sums(support: _Support, factor: Any) -> Any:
    """Per vertex, the sum over its triangles of the product of the three pairs' factors (count if None)."""
    xp, n = support.xp, support.n
    total = xp.zeros(n, dtype=np.float64 if factor is not None else np.int64)
    for x, y, z, e_xy, e_xz, e_yz in enumerate_triangles(n, support.a, support.b, xp):
        value = None if factor is None else factor[e_xy] * factor[e_xz] * factor[e_yz]
        for vertex in (x, y, z):
            total += bincount(vertex, n, xp, weights=value)
    return total


# ---------------------------------------------------------------------- nodes=: NetworkX's nbunch


def _simple(G: Any) -> Any:
    """``G`` as a riptide graph; NetworkX's clustering functions are not implemented for multigraphs."""
    G = as_riptide_graph(G)
    if G.is_multigraph():
        raise NetworkXNotImplemented("not implemented for multigraph type")
    return G


def _selection(G: Any, nodes: Any) -> tuple[str, Any]:
    """``("all", None)``, ``("one", dense id)`` or ``("some", device ids in nbunch order, distinct)``."""
    if nodes is None:
        return "all", None
    found = G._find(nodes)
    if found is not None:
        return "one", found
    try:
        items = iter(nodes)
    except TypeError:
        raise NetworkXError("nbunch is not a node or a sequence of nodes.") from None
    return "some", G._ids_of_listed(items)


def _answer(G: Any, values: Any, nodes: Any) -> Any:
    from riptide.graph.results import NodeMap

    kind, chosen = _selection(G, nodes)
    if kind == "all":
        return NodeMap.over_nodes(G, values)
    if kind == "one":
        return _device.to_host(values[chosen : chosen + 1]).tolist()[0]  # one scalar read: the answer
    return NodeMap.over_ids(G, chosen, values[chosen])


# ---------------------------------------------------------------------- the functions


def triangles(G: Any, nodes: Any = None) -> Any:
    """The number of triangles at each node (NetworkX's ``triangles``): an int for one node, else a
    :class:`~riptide.graph.results.NodeMap` (dict-like). Undirected graphs only.

    >>> from riptide.graph import from_edgelist
    >>> triangles(from_edgelist([(0, 1), (1, 2), (2, 0), (2, 3)]))
    {0: 1, 1: 1, 2: 1, 3: 0}
    >>> triangles(from_edgelist([(0, 1), (1, 2), (2, 0), (2, 3)]), 2)
    1
    """
    G = as_riptide_graph(G)
    require_undirected(G)
    if nodes is not None:  # NetworkX counts a multigraph's triangles for all nodes only
        _simple(G)
    _selection(G, nodes)  # NetworkX's errors for a bad nbunch before any work
    return _answer(G, _triangle_sums(_Support(G, None), None), nodes)


def _clustering_values(G: Any, weight: str | None) -> Any:
    xp = G.xp
    if weight is not None and G.number_of_edges():
        max_weight = float(G._edge_weights(weight).max())  # one scalar read: NetworkX normalizes by it
    else:
        max_weight = 1.0
    support = _Support(G, weight)
    t = 2.0 * _triangle_sums(support, support.factor(weight, max_weight))
    if G.is_directed():
        mutual = support.has_ab & support.has_ba  # reciprocated pairs: NetworkX's ``len(ipreds & isuccs)``
        both = (bincount(support.a[mutual], support.n, xp) + bincount(support.b[mutual], support.n, xp)).astype(float)
        total = _directed_total_degree(G)
        denominator = 2.0 * (total * (total - 1.0) - 2.0 * both)
    else:
        degree = support.degrees().astype(np.float64)
        denominator = degree * (degree - 1.0)
    safe = xp.where(t == 0, 1.0, denominator)
    return xp.where(t == 0, 0.0, t / safe)


def _directed_total_degree(G: Any) -> Any:
    """In + out degree without self loops (NetworkX's ``len(ipreds) + len(isuccs)``)."""
    xp, n = G.xp, G.number_of_nodes()
    keep = G._src != G._dst
    return (bincount(G._src[keep], n, xp) + bincount(G._dst[keep], n, xp)).astype(np.float64)


def clustering(G: Any, nodes: Any = None, weight: str | None = None) -> Any:
    """The clustering coefficient of each node (NetworkX's ``clustering``: unweighted or weighted, undirected or
    directed): a float for one node, else a :class:`~riptide.graph.results.NodeMap`.

    >>> from riptide.graph import from_edgelist
    >>> clustering(from_edgelist([(0, 1), (1, 2), (2, 0), (2, 3)]))
    {0: 1.0, 1: 1.0, 2: 0.3333333333333333, 3: 0.0}
    """
    G = _simple(G)
    _selection(G, nodes)
    return _answer(G, _clustering_values(G, weight), nodes)


def average_clustering(G: Any, nodes: Any = None, weight: str | None = None, count_zeros: bool = True) -> float:
    """The mean clustering coefficient over ``nodes`` (all by default); ``count_zeros=False`` leaves out the
    nodes whose coefficient is zero (NetworkX's ``average_clustering``; ZeroDivisionError when none is left).

    >>> from riptide.graph import from_edgelist
    >>> round(average_clustering(from_edgelist([(0, 1), (1, 2), (2, 0), (2, 3)])), 6)
    0.583333
    """
    G = _simple(G)
    kind, chosen = _selection(G, nodes)
    values = _clustering_values(G, weight)
    if kind == "one":
        values = values[chosen : chosen + 1]
    elif kind == "some":
        values = values[chosen]
    if not count_zeros:
        values = values[G.xp.abs(values) > 0]
    count = int(values.shape[0])
    if count == 0:
        raise ZeroDivisionError("division by zero")
    return float(values.sum()) / count  # one scalar read: the answer


def transitivity(G: Any) -> float:
    """The fraction of all possible triangles present: ``3 * triangles / connected triples`` (NetworkX's
    ``transitivity``; for a directed graph NetworkX's own count over out-neighbours).

    >>> from riptide.graph import from_edgelist
    >>> round(transitivity(from_edgelist([(0, 1), (1, 2), (2, 0), (2, 3)])), 6)
    0.6
    """
    G = _simple(G)
    xp = G.xp
    support = _Support(G, None)
    if G.is_directed():
        # NetworkX: per v, the pairs (w, x) of distinct out-neighbours of v with the arc w -> x, over the
        # possible d_out * (d_out - 1). Each support triangle holds such triples for some orders of its corners.
        keep = G._src != G._dst
        d = bincount(G._src[keep], G.number_of_nodes(), xp).astype(np.float64)
        closed = _directed_transitive_triples(support)
    else:
        d = support.degrees().astype(np.float64)
        closed = 6.0 * float(_triangle_sums(support, None).sum()) / 3.0
    possible = float((d * (d - 1.0)).sum())  # one scalar read: the denominator
    if closed == 0:
        return 0
    return closed / possible


def _directed_transitive_triples(support: _Support) -> float:
    """The number of ordered (v, w, x) with arcs v->w, v->x and w->x (NetworkX's directed triangle count)."""
    xp = support.xp
    total = 0.0
    for x, y, z, e_xy, e_xz, e_yz in enumerate_triangles(support.n, support.a, support.b, xp):
        corner = {"x": x, "y": y, "z": z}
        pair = {frozenset("xy"): e_xy, frozenset("xz"): e_xz, frozenset("yz"): e_yz}

        def arc(p: str, q: str) -> Any:
            """Whether the arc corner p -> corner q exists (a pair stores a < b: has_ab is a->b, has_ba b->a)."""
            e = pair[frozenset(p + q)]
            return xp.where(corner[p] < corner[q], support.has_ab[e], support.has_ba[e])

        for v, w, u in ("xyz", "xzy", "yxz", "yzx", "zxy", "zyx"):  # every order of the three corners
            total += float((arc(v, w) & arc(v, u) & arc(w, u)).sum())  # one scalar read per order and batch
    return total


def square_clustering(G: Any, nodes: Any = None) -> Any:
    """The squares clustering coefficient of each node (NetworkX's ``square_clustering``, Lind et al.): a float
    for one node, else a :class:`~riptide.graph.results.NodeMap`. Undirected graphs (see below).

    With ``c(v, x)`` the number of common neighbours of v and x (self loops ignored), NetworkX's count of squares
    at v is ``sum over x != v of c(v, x) * (c(v, x) - 1) / 2`` and its denominator
    ``sum over u in N(v) of (deg u - 1) * (deg v - 1) - deg v * (deg v - 1) - 2 * triangles(v) - squares``
    (written in NetworkX as ``uw_degrees - uw_count - triangles - squares``). All ``c(v, x) > 0`` come from the
    paths v-u-x: one gather of the neighbours' CSR rows, one sort of the ``(v, x)`` keys, run lengths. Memory
    grows with the number of such paths, ``sum of deg(u)**2``: hubs make it large.

    A directed graph raises NetworkXNotImplemented here (NetworkX reads successor sets there, a different count
    this function does not reproduce). An undirected multigraph is read as its simple graph: NetworkX's sets of
    neighbours do not see parallel edges.

    >>> from riptide.graph import from_edgelist
    >>> square_clustering(from_edgelist([(0, 1), (1, 2), (2, 3), (3, 0)]))
    {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0}
    """
    G = as_riptide_graph(G)
    if G.is_multigraph() and not G.is_directed():
        from riptide.graph.classes import Graph

        G = Graph(G)  # parallel edges collapse; nodes and their order stay
    G = _simple(G)
    if G.is_directed():
        raise NetworkXNotImplemented("riptide's square_clustering is not implemented for directed type")
    _selection(G, nodes)
    return _answer(G, _square_values(G), nodes)


def _square_values(G: Any) -> Any:
    from riptide.core.kernels.segments import gather_segments, take_offsets

    xp, n = G.xp, G.number_of_nodes()
    keep = G._arc_src != G._indices  # arcs without self loops: N(v) as NetworkX's ``set(G[v]) - {v}``
    arc_v, arc_u = G._arc_src[keep], G._indices[keep]
    degree = bincount(arc_v, n, xp)
    offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(degree, out=offsets[1:])
    # paths v-u-x: for each arc (v, u), the row of u (the arcs are sorted by source, so ``arc_u`` is a CSR)
    starts, new_offsets = take_offsets(offsets, arc_u, xp)
    x = gather_segments(arc_u, starts, new_offsets, xp)
    v = arc_v[row_of_each_element(new_offsets, xp)] if x.shape[0] else x
    other = x != v
    _, keys = stable_argsort_with_values(v[other] * max(n, 1) + x[other], xp)
    first = xp.ones(keys.shape[0], dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    starts_k = xp.flatnonzero(first)
    ends_k = xp.concatenate([starts_k[1:], xp.asarray(np.array([keys.shape[0]], dtype=np.int64))])
    common = ends_k - starts_k
    owner = keys[starts_k] // max(n, 1)
    squares = bincount(owner, n, xp, weights=(common * (common - 1)).astype(np.float64)) / 2.0
    d = degree.astype(np.float64)
    uw_degrees = bincount(arc_v, n, xp, weights=d[arc_u]) * (d - 1.0)
    triangles2 = 2.0 * _triangle_sums(_Support(G, None), None).astype(np.float64)
    potential = uw_degrees - d * (d - 1.0) - triangles2 - squares
    ok = (potential > 0) & (d > 1)
    return xp.where(ok, squares / xp.where(ok, potential, 1.0), 0.0)
