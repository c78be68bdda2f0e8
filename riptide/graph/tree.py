"""Minimum and maximum spanning trees (forests) by Boruvka's algorithm on the device.

**Which tree.** Ties make a minimum spanning tree non-unique; NetworkX's default (Kruskal) takes the edges in a
*stable* sort by weight of ``G.edges(data=True)`` (``reverse=True`` for the maximum, also stable), i.e. the
unique minimum spanning forest under the total order (weight, position in ``G.edges``). Here every edge gets its
rank in that same stable order (one sort), and Boruvka runs on the ranks: distinct keys make the answer unique,
so it is exactly Kruskal's forest, whatever ``algorithm`` is asked for ("prim" and "boruvka" may pick other,
equally light, edges among ties in NetworkX; the total weight is the same). The result's edges are added in rank
order, as Kruskal adds them, so the tree's adjacency order is NetworkX's too.

**Boruvka, whole-array.** Each round, every component takes the lowest-rank edge leaving it (a scatter-min of the
ranks of the crossing edges onto both endpoints' components); those edges join the forest and each component
hooks onto the component across its edge. With distinct ranks, the only cycles are pairs of components that chose
the same edge; the smaller id of such a pair becomes the root. Pointer jumping then flattens the forest of
components. Components at least halve per round, so there are O(log n) rounds of a few whole-array passes, and one
scalar read per round ("does any edge still cross?") and per jump.

NaN weights: ``ignore_nan=True`` drops those edges; otherwise ValueError naming the first such edge, as NetworkX.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from riptide import _device
from riptide.core.kernels.scatter import scatter_min
from riptide.core.kernels.sort import stable_argsort
from riptide.graph._checks import as_riptide_graph, require_undirected

__all__ = ["maximum_spanning_edges", "maximum_spanning_tree", "minimum_spanning_edges", "minimum_spanning_tree"]

ALGORITHMS = ("boruvka", "borůvka", "kruskal", "prim")  # NetworkX accepts both spellings of Borůvka


def _check_algorithm(G: Any, algorithm: str) -> None:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"{algorithm} is not a valid choice for an algorithm.")
    if algorithm in ("boruvka", "borůvka") and G.is_multigraph():  # NetworkX's boruvka_mst_edges refuses multigraphs
        from riptide.graph.exceptions import NetworkXNotImplemented

        raise NetworkXNotImplemented("not implemented for multigraph type")


def spanning_forest_edges(G: Any, minimum: bool = True, weight: str | None = "weight",
                          ignore_nan: bool = False) -> Any:  # fmt: skip
    """Edge ids (device int64) of the minimum (or maximum) spanning forest of the undirected riptide graph ``G``,
    in Kruskal's order (by weight, ties in edge order).

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([(0, 1, {"weight": 3}), (1, 2, {"weight": 1}), (0, 2, {"weight": 2})])
    >>> G.edges(), spanning_forest_edges(G).tolist()
    ([(0, 1), (0, 2), (1, 2)], [2, 1])
    """
    xp = G.xp
    n, m = G.number_of_nodes(), int(G._src.shape[0])
    w = G._edge_weights(weight)
    nan = xp.isnan(w)
    if bool(nan.any()):  # one scalar read: NaN weights are dropped or refused
        if not ignore_nan:
            first = int(_device.to_host(xp.flatnonzero(nan)[:1])[0])  # one scalar read: the edge to name
            raise ValueError(f"NaN found as an edge weight. Edge {_edge_tuple(G, first)}")
        usable = xp.flatnonzero(~nan)
    else:
        usable = xp.arange(m, dtype=np.int64)
    # Kruskal's order: a stable sort of the weights (negated for the maximum: Python's reverse sort is stable too)
    by_rank = usable[stable_argsort(w[usable] if minimum else -w[usable], xp)]
    rank = xp.full(m, np.iinfo(np.int64).max, dtype=np.int64)
    rank[by_rank] = xp.arange(by_rank.shape[0], dtype=np.int64)
    u, v, r = G._src[by_rank], G._dst[by_rank], rank[by_rank]
    chosen = xp.zeros(m, dtype=bool)
    comp = xp.arange(n, dtype=np.int64)
    none = np.iinfo(np.int64).max
    while u.shape[0]:
        cu, cv = comp[u], comp[v]
        crossing = xp.flatnonzero(cu != cv)
        if crossing.shape[0] == 0:  # one scalar read per round: no edge leaves a component
            break
        u, v, r, cu, cv = u[crossing], v[crossing], r[crossing], cu[crossing], cv[crossing]
        best = xp.full(n, none, dtype=np.int64)
        scatter_min(best, cu, r, xp)
        scatter_min(best, cv, r, xp)
        roots = xp.flatnonzero(best != none)
        edge = by_rank[best[roots]]
        chosen[edge] = True
        a, b = comp[G._src[edge]], comp[G._dst[edge]]
        other = xp.where(a == roots, b, a)
        parent = xp.arange(n, dtype=np.int64)
        parent[roots] = other
        # two components that picked the same edge point at each other: the smaller id stays a root
        mutual = (parent[other] == roots) & (roots < other)
        parent[roots[mutual]] = roots[mutual]
        while True:
            grand = parent[parent]
            if not bool((grand != parent).any()):  # one scalar read per jump: every vertex points at its root
                break
            parent = grand
        comp = parent[comp]
    picked = xp.flatnonzero(chosen)
    return picked[stable_argsort(rank[picked], xp)]


def _edge_tuple(G: Any, edge: int) -> tuple:
    """Edge ``edge`` as NetworkX prints it in its NaN message: ``(u, v, data)`` or ``(u, v, key, data)``."""
    ids = G.xp.asarray([edge], dtype=np.int64)
    labels = G._host_labels()
    u, v = int(_device.to_host(G._src[ids])[0]), int(_device.to_host(G._dst[ids])[0])
    data = G._edge_dicts(ids)[0]
    if G.is_multigraph():
        return (labels[u], labels[v], G._host_keys(ids)[0], data)
    return (labels[u], labels[v], data)


def _tree(G: Any, edges: Any) -> Any:
    """A graph of ``G``'s class with all of its nodes and the edges ``edges`` (ids, in insertion order)."""
    out = type(G).__new__(type(G))
    attrs = {name: column.take(edges) for name, column in G._edge_attrs.items()}
    keys = None if G._edge_keys is None else G._edge_keys.take(edges)
    out._setup(G.xp, G.number_of_nodes(), G._src[edges], G._dst[edges], attrs, G._labels, G._label_list, keys,
               G._key_labels)  # fmt: skip
    out.graph.update(G.graph)
    return out


def minimum_spanning_tree(G: Any, weight: str | None = "weight", algorithm: str = "kruskal",
                          ignore_nan: bool = False) -> Any:  # fmt: skip
    """A minimum spanning tree (a forest when ``G`` is not connected) as a graph of ``G``'s class with all of its
    nodes (NetworkX's ``minimum_spanning_tree``); edges keep their attributes (and keys in a multigraph).

    The edges are Kruskal's (see the module notes) for every ``algorithm``; the computation is Boruvka's on the
    device.

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([("a", "b", {"weight": 3}), ("b", "c", {"weight": 1}), ("a", "c", {"weight": 2})])
    >>> T = minimum_spanning_tree(G)
    >>> T.edges(data=True), T.size(weight="weight")
    ([('a', 'c', {'weight': 2}), ('b', 'c', {'weight': 1})], 3.0)
    """
    G = as_riptide_graph(G)
    require_undirected(G)
    _check_algorithm(G, algorithm)
    return _tree(G, spanning_forest_edges(G, True, weight, ignore_nan))


def maximum_spanning_tree(G: Any, weight: str | None = "weight", algorithm: str = "kruskal",
                          ignore_nan: bool = False) -> Any:  # fmt: skip
    """A maximum spanning tree (forest) of ``G`` (NetworkX's ``maximum_spanning_tree``), as
    :func:`minimum_spanning_tree` with the weight order reversed.

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([("a", "b", {"weight": 3}), ("b", "c", {"weight": 1}), ("a", "c", {"weight": 2})])
    >>> sorted(maximum_spanning_tree(G).edges())
    [('a', 'b'), ('a', 'c')]
    """
    G = as_riptide_graph(G)
    require_undirected(G)
    _check_algorithm(G, algorithm)
    return _tree(G, spanning_forest_edges(G, False, weight, ignore_nan))


def _edges_generator(G: Any, minimum: bool, algorithm: str, weight: str | None, keys: bool, data: bool,
                     ignore_nan: bool) -> Iterator[tuple]:  # fmt: skip
    G = as_riptide_graph(G)
    require_undirected(G)
    _check_algorithm(G, algorithm)
    return _yield_edges(G, minimum, weight, keys, data, ignore_nan)


def _yield_edges(G: Any, minimum: bool, weight: str | None, keys: bool, data: bool,
                 ignore_nan: bool) -> Iterator[tuple]:  # fmt: skip
    from riptide.graph.classes import _edge_tuples

    edges = spanning_forest_edges(G, minimum, weight, ignore_nan)
    tuples = _edge_tuples(G, G._src[edges], G._dst[edges], edges, data, None, keys and G.is_multigraph())
    yield from tuples


def minimum_spanning_edges(G: Any, algorithm: str = "kruskal", weight: str | None = "weight", keys: bool = True,
                           data: bool = True, ignore_nan: bool = False) -> Iterator[tuple]:  # fmt: skip
    """The edges of a minimum spanning forest, in Kruskal's order (NetworkX's ``minimum_spanning_edges``): a
    generator of ``(u, v, data)`` (``(u, v)`` with ``data=False``; ``(u, v, key, ...)`` for a multigraph with
    ``keys=True``).

    >>> from riptide.graph import from_edgelist
    >>> list(minimum_spanning_edges(from_edgelist([(0, 1, {"weight": 2}), (1, 2, {"weight": 1})]), data=False))
    [(1, 2), (0, 1)]
    """
    return _edges_generator(G, True, algorithm, weight, keys, data, ignore_nan)


def maximum_spanning_edges(G: Any, algorithm: str = "kruskal", weight: str | None = "weight", keys: bool = True,
                           data: bool = True, ignore_nan: bool = False) -> Iterator[tuple]:  # fmt: skip
    """The edges of a maximum spanning forest, in Kruskal's order (NetworkX's ``maximum_spanning_edges``).

    >>> from riptide.graph import from_edgelist
    >>> list(maximum_spanning_edges(from_edgelist([(0, 1, {"weight": 2}), (1, 2, {"weight": 1})]), data=False))
    [(0, 1), (1, 2)]
    """
    return _edges_generator(G, False, algorithm, weight, keys, data, ignore_nan)
