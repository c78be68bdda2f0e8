"""Shortest paths: unweighted (breadth-first) and weighted (Dijkstra's results), with NetworkX's functions.

**Weighted distances on the device.** Dijkstra's priority queue is sequential; the device runs a frontier
relaxation instead (Bellman-Ford restricted to the vertices improved in the previous round): every round gathers
the CSR rows of the improved vertices, offers ``dist[u] + w`` to each arc's target, and keeps the minimum with a
scatter-min. Distances are kept as int64 words that order as the floats do (:func:`ordered_int`), so the
scatter-min is an exact integer atomic on CuPy. With non-negative weights it ends when no vertex improves (at most
as many rounds as the longest shortest path has arcs, re-relaxations included); one scalar read per round (the
number of improved vertices). The distances are the sums NetworkX forms along the shortest paths, so equal up to
the order of the additions.

**NetworkX's paths and key order.** Where several shortest paths tie, NetworkX's answer is the one its heap finds
first: a vertex's path goes through the *first popped* predecessor that reaches its final distance, and vertices
pop in the order (distance, push count), the push count following the order in which their predecessors popped
and the predecessors' adjacency order. :func:`_pop_order` recomputes that order on the device as a fixed point:
rank the reached vertices by (distance, key), the key of a vertex being (rank of its earliest-ranked tight
predecessor, position of that arc), and repeat until the ranks stop changing (each round fixes one more level of
the shortest-path tree, so the rounds are bounded by its depth). The paths and the distance dict of
``single_source_dijkstra`` come out as NetworkX's, keys in NetworkX's order. ``single_source_dijkstra_path_length``
(distances only, the fast path) lists its keys by distance, equal distances in node order, where NetworkX lists
them in heap order: the same dict, possibly in another order among equal distances.

Unweighted paths follow the breadth-first tree of :mod:`riptide.graph.traversal` (NetworkX's discovery order).
``shortest_path(G, s, t)`` without weights is NetworkX's bidirectional breadth-first search, level-synchronous
(:func:`_bidirectional_path`: the same path as NetworkX). A weighted source-target pair, which NetworkX answers
with a bidirectional Dijkstra, takes the path of the single-source search here: a shortest path too, possibly
another one among ties (documented deviation).

Paths are Python lists, host output: the dict of paths is built by one Python step per reached node (each path is
its predecessor's plus one node, as NetworkX builds them); everything before that is device work.

Negative weights: NetworkX's Dijkstra raises ValueError ("Contradictory paths found") when its search finds a
shorter path to a node it has already settled; when it does not, its distances are the true shortest ones (every
arc between settled nodes then satisfies ``d[u] <= d[v] + w``). riptide's relaxation does not depend on a search
order: with negative weights it runs until the distances settle and returns them (the paths are then the
breadth-first tree of the tight arcs), and raises NetworkX's ValueError when they never settle, i.e. for a
negative cycle reachable from the source, where NetworkX always raises. So riptide raises exactly when NetworkX
must; on graphs with negative edges but no negative cycle, where NetworkX raises or not depending on its heap
order, riptide answers with the true distances (deviation). Bellman-Ford's functions raise NetworkXUnbounded on a
negative cycle, as NetworkX.

Weights are edge attribute names (missing: 1, as NetworkX); weight functions are not supported (the NetworkX
backend leaves them to NetworkX).
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from riptide import _device
from riptide.core.kernels.scatter import from_ordered_int, ordered_int, scatter_min
from riptide.core.kernels.segments import row_of_each_element
from riptide.core.kernels.sort import lexsort, stable_argsort
from riptide.graph._checks import as_riptide_graph
from riptide.graph._frontier import relax_frontier
from riptide.graph.exceptions import NetworkXNoPath, NetworkXUnbounded, NodeNotFound
from riptide.graph.traversal import _first_occurrences, bfs_tree_levels, find_node, gather_rows, path_lengths

__all__ = ["single_source_shortest_path", "all_pairs_shortest_path", "all_pairs_shortest_path_length",
           "single_source_dijkstra", "single_source_dijkstra_path", "single_source_dijkstra_path_length",
           "dijkstra_path", "dijkstra_path_length", "all_pairs_dijkstra_path", "all_pairs_dijkstra_path_length",
           "bellman_ford_path_length", "bellman_ford_path", "single_source_bellman_ford_path",
           "single_source_bellman_ford_path_length", "bidirectional_shortest_path", "shortest_path",
           "shortest_path_length", "has_path", "sssp_distances"]  # fmt: skip

_INF_KEY = int(ordered_int(np.array([np.inf]), np)[0])


# ---------------------------------------------------------------------- device building blocks


def _csr(G: Any, reverse: bool = False) -> tuple[Any, Any, Any]:
    """``(offsets, targets, edge ids)`` of the out-arcs, or of the in-arcs of a DiGraph when ``reverse`` (rows
    in NetworkX's pred-dict order, as ``G._in_arcs``)."""
    if not (reverse and G.is_directed()):
        return G._offsets, G._indices, G._arc_edge
    xp = G.xp
    order = stable_argsort(G._indices * G._rank_bound + G._edge_rank[G._arc_edge], xp)
    offsets, _ = G._in_arcs()
    return offsets, G._arc_src[order], G._arc_edge[order]


def _edge_weights(G: Any, weight: Any) -> tuple[Any, bool]:
    """``(float64 weight per edge, whether every weight is an integer)``: NetworkX's ``d.get(weight, 1)``."""
    if callable(weight):
        raise TypeError("riptide.graph takes weight as an edge attribute name; weight functions are not supported")
    column = G._edge_attrs.get(weight) if weight is not None else None
    integral = column is None or column.dtype.kind in "iub"
    return G._edge_weights(weight), integral


def sssp_distances(G: Any, source: int, arc_weights: Any, cutoff: Any = None, csr: tuple | None = None,
                   negative: bool = False) -> Any:  # fmt: skip
    """float64 distance from dense id ``source`` to every vertex (inf: not reached within ``cutoff``), by
    frontier relaxation over ``csr`` (``(offsets, targets)``; G's out-arcs by default). ``negative=True``
    allows negative weights and raises NetworkXUnbounded when the relaxation does not settle (a negative cycle).

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([(0, 1, {"weight": 4}), (0, 2, {"weight": 1}), (2, 1, {"weight": 2})])
    >>> sssp_distances(G, 0, G._arc_weights("weight")).tolist()
    [0.0, 3.0, 1.0]
    """
    offsets, targets = csr[:2] if csr is not None else (G._offsets, G._indices)
    return _batched_distances(G, G.xp.asarray([source], dtype=np.int64), (offsets, targets), arc_weights, cutoff,
                              negative)  # fmt: skip


def has_negative(arc_weights: Any) -> bool:
    """Whether any arc weight is negative (None: every arc counts 1)."""
    # one scalar read per call: the search must know whether it may settle
    return arc_weights is not None and bool(arc_weights.shape[0]) and bool((arc_weights < 0).any())


def dijkstra_distances(G: Any, sources: Any, csr: tuple, arc_weights: Any, cutoff: Any = None,
                       negative: bool = False) -> Any:  # fmt: skip
    """:func:`_batched_distances`, raising NetworkX's Dijkstra ValueError when negative weights leave no shortest
    paths (a negative cycle, e.g. any undirected negative edge: the relaxation would never settle)."""
    try:
        return _batched_distances(G, sources, csr, arc_weights, cutoff, negative)
    except NetworkXUnbounded:
        raise ValueError("Contradictory paths found:", "negative weights?") from None


def _batched_distances(G: Any, sources: Any, csr: tuple, arc_weights: Any, cutoff: Any = None,
                       negative: bool = False) -> Any:  # fmt: skip
    """float64 distances over the states ``b * n + v`` (source ``sources[b]``, vertex v; inf: unreached) by
    frontier relaxation over ``csr`` (``(offsets, targets, ...)``), breadth-first when ``arc_weights`` is None
    (every arc counts 1); ``cutoff`` and ``negative`` as in :func:`sssp_distances`."""
    xp = G.xp
    n = G.number_of_nodes()
    offsets, targets = csr[0], csr[1]
    B = sources.shape[0]
    states = xp.arange(B, dtype=np.int64) * n + sources
    keys = xp.full(B * n, _INF_KEY, dtype=np.int64)  # ordered_int(distance): exact int64 atomics for the minimum
    keys[states] = 0  # ordered_int(0.0)
    improved = xp.zeros(B * n, dtype=bool)
    frontier = states
    rounds = 0
    while frontier.shape[0]:  # one scalar read per round: the number of improved states
        relax = relax_frontier if xp is not np else _relax_on_host  # the GPU's: one kernel, no arc-sized arrays
        relax(offsets, targets, arc_weights, frontier, n, cutoff, keys, improved)
        frontier = xp.flatnonzero(improved)
        improved[frontier] = False
        rounds += 1
        if negative and rounds > n:
            raise NetworkXUnbounded("Negative cycle detected.")
    return from_ordered_int(keys, xp)


def _relax_on_host(offsets: Any, targets: Any, arc_weights: Any, frontier: Any, n: int, cutoff: Any, keys: Any,
                   improved: Any) -> None:  # fmt: skip
    """:func:`~riptide.graph._frontier.relax_frontier` on NumPy: the frontier's arcs gathered, each head lowered to
    the least distance offered (a scatter-min of order-preserving int64 words)."""
    vertex = frontier % n
    rows, positions = gather_rows(offsets, vertex, np)
    heads = (frontier - vertex)[rows] + targets[positions]
    step = 1.0 if arc_weights is None else arc_weights[positions]
    offered = from_ordered_int(keys[frontier], np)[rows] + step
    if cutoff is not None:
        within = offered <= cutoff
        heads, offered = heads[within], offered[within]
    offered_keys = ordered_int(offered, np)
    better = offered_keys < keys[heads]
    heads, offered_keys = heads[better], offered_keys[better]
    scatter_min(keys, heads, offered_keys, np)
    improved[heads] = True


def _pop_order(G: Any, source: int, dist: Any, arc_weights: Any, csr: tuple) -> tuple[Any, Any]:
    """``(reached dense ids in NetworkX's heap-pop order, each one's predecessor on its path)`` (-1 for the
    source); see the module docstring. NetworkX lists both its distances and its paths in pop order."""
    xp = G.xp
    n = G.number_of_nodes()
    offsets, targets = csr[0], csr[1]
    arcs = targets.shape[0]
    tails = row_of_each_element(offsets, xp)
    reached = xp.isfinite(dist)
    tight = xp.flatnonzero(reached[tails] & (dist[tails] + arc_weights == dist[targets]) & (targets != source))
    t_tail, t_head = tails[tight], targets[tight]
    ids = xp.flatnonzero(reached)
    order = ids[stable_argsort(dist[ids], xp)]
    rank = xp.full(n, -1, dtype=np.int64)
    positions = xp.arange(order.shape[0], dtype=np.int64)
    rank[order] = positions
    biggest = np.iinfo(np.int64).max
    for _ in range(n + 1):
        usable = rank[t_tail] < rank[t_head]  # a predecessor pops before the vertex (zero weights: same distance)
        key = xp.full(n, biggest, dtype=np.int64)
        scatter_min(key, t_head[usable], rank[t_tail[usable]] * max(arcs, 1) + tight[usable], xp)
        key[source] = -1
        new_order = ids[lexsort([dist[ids], key[ids]], xp)]
        if bool((new_order == order).all()):  # one scalar read per round: the order is settled
            break
        order = new_order
        rank[order] = positions
    if arcs == 0:  # a graph without edges: the source alone, with no predecessor
        return order, xp.full(order.shape[0], -1, dtype=np.int64)
    pred_arc = key[order] % arcs
    pred = xp.where(order == source, -1, tails[pred_arc])
    return order, pred


def _paths(G: Any, order: Any, pred: Any) -> dict:
    """``{node: [path from the source]}`` from vertices in an order where each predecessor comes first (the
    keys in that order)."""
    labels = G._host_labels()
    by_id: dict[int, list] = {}
    # One Python step per reached node: the answer is one Python list per node, each its predecessor's plus one.
    for v, p in zip(_device.to_host(order).tolist(), _device.to_host(pred).tolist()):
        by_id[v] = [labels[v]] if p < 0 else by_id[p] + [labels[v]]
    return {labels[v]: path for v, path in by_id.items()}


def _checked_source(G: Any, source: Any, message: str) -> int:
    found = find_node(G, source)
    if found is None:
        raise NodeNotFound(message.format(source=source))
    return found


def _distances_map(G: Any, ids: Any, dist: Any, integral: bool) -> Any:
    from riptide.graph.results import NodeMap

    values = dist[ids]
    return NodeMap.over_ids(G, ids, values.astype(np.int64) if integral else values)


def _dijkstra_run(G: Any, found: int, weight: Any, cutoff: Any, reverse: bool = False,
                  bellman_ford: bool = False) -> tuple[Any, Any, tuple, bool, bool]:  # fmt: skip
    """``(dist, arc weights, csr, integral, has negative weights)`` of a weighted search from dense id ``found``.

    Negative weights: the relaxation runs until it settles; a negative cycle reachable from the source raises
    NetworkXUnbounded for Bellman-Ford's functions and, for Dijkstra's, NetworkX's ValueError (see the module
    docstring)."""
    csr = _csr(G, reverse)
    weights, integral = _edge_weights(G, weight)
    arc_weights = weights[csr[2]]
    negative = has_negative(arc_weights)
    if bellman_ford:  # NetworkXUnbounded on a negative cycle, as NetworkX's Bellman-Ford
        dist = sssp_distances(G, found, arc_weights, cutoff, csr[:2], negative)
    else:
        dist = dijkstra_distances(G, G.xp.asarray([found], dtype=np.int64), csr[:2], arc_weights, cutoff, negative)
    return dist, arc_weights, csr, integral, negative


def _dijkstra_lengths(G: Any, found: int, weight: Any, cutoff: Any = None, reverse: bool = False,
                      bellman_ford: bool = False) -> Any:  # fmt: skip
    dist, _, _, integral, _ = _dijkstra_run(G, found, weight, cutoff, reverse, bellman_ford)
    xp = G.xp
    ids = xp.flatnonzero(xp.isfinite(dist))
    ids = ids[stable_argsort(dist[ids], xp)]
    return _distances_map(G, ids, dist, integral)


def _dijkstra_paths(G: Any, found: int, weight: Any, cutoff: Any = None, reverse: bool = False
                    ) -> tuple[Any, dict]:  # fmt: skip
    dist, arc_weights, csr, integral, negative = _dijkstra_run(G, found, weight, cutoff, reverse)
    if negative:
        order, pred = _tight_tree(G, found, dist, arc_weights, csr)
    else:
        order, pred = _pop_order(G, found, dist, arc_weights, csr)
    return _distances_map(G, order, dist, integral), _paths(G, order, pred)


def _tight_tree(G: Any, found: int, dist: Any, arc_weights: Any, csr: tuple) -> tuple[Any, Any]:
    """``(vertices, parents)`` of the breadth-first tree of the tight arcs (``dist[u] + w == dist[v]``): every
    path in it is a shortest one, also with negative weights, where NetworkX's heap order has no meaning."""
    from riptide.graph.classes import _offsets_of

    xp = G.xp
    offsets, targets = csr[0], csr[1]
    tails = row_of_each_element(offsets, xp)
    tight = xp.flatnonzero(xp.isfinite(dist[tails]) & (dist[tails] + arc_weights == dist[targets]))
    tight_csr = (_offsets_of(tails[tight], G.number_of_nodes(), xp), targets[tight])
    levels = list(bfs_tree_levels(G, xp.asarray([found], dtype=np.int64), None, tight_csr))
    return xp.concatenate([f for f, _ in levels]), xp.concatenate([p for _, p in levels])


def _bellman_ford_paths(G: Any, found: int, weight: Any, reverse: bool = False) -> dict:
    """Shortest weighted paths with negative weights allowed (the tight-arc tree, see :func:`_tight_tree`)."""
    dist, arc_weights, csr, _, _ = _dijkstra_run(G, found, weight, None, reverse, bellman_ford=True)
    return _paths(G, *_tight_tree(G, found, dist, arc_weights, csr))


def _bfs_paths(G: Any, found: int, cutoff: Any = None, reverse: bool = False) -> dict:
    xp = G.xp
    csr = _csr(G, reverse)[:2]
    levels = list(bfs_tree_levels(G, xp.asarray([found], dtype=np.int64), cutoff, csr))
    return _paths(G, xp.concatenate([f for f, _ in levels]), xp.concatenate([p for _, p in levels]))


# ---------------------------------------------------------------------- unweighted


def single_source_shortest_path(G: Any, source: Any, cutoff: Any = None) -> dict:
    """``{node: shortest path from source}`` (fewest edges), in breadth-first discovery order, as NetworkX.

    >>> from riptide.graph import from_edgelist
    >>> single_source_shortest_path(from_edgelist([(0, 1), (1, 2), (0, 3)]), 0)
    {0: [0], 1: [0, 1], 3: [0, 3], 2: [0, 1, 2]}
    """
    G = as_riptide_graph(G)
    return _bfs_paths(G, _checked_source(G, source, "Source {source} not in G"), cutoff)


def all_pairs_shortest_path(G: Any, cutoff: Any = None) -> Iterator[tuple[Any, dict]]:
    """``(node, single_source_shortest_path(G, node))`` for every node, in node order (a generator)."""
    G = as_riptide_graph(G)
    for node in list(G):
        yield node, single_source_shortest_path(G, node, cutoff)


def all_pairs_shortest_path_length(G: Any, cutoff: Any = None) -> Iterator[tuple[Any, Any]]:
    """``(node, {other: hops})`` for every node, in node order (a generator; one search on the device per node,
    meant for small graphs as NetworkX's).

    >>> from riptide.graph import from_edgelist
    >>> dict(all_pairs_shortest_path_length(from_edgelist([(0, 1), (1, 2)])))[2]
    {2: 0, 1: 1, 0: 2}
    """
    G = as_riptide_graph(G)
    for found, node in enumerate(list(G)):
        yield node, path_lengths(G, found, cutoff)


# ---------------------------------------------------------------------- weighted


def single_source_dijkstra(G: Any, source: Any, target: Any = None, cutoff: Any = None,
                           weight: Any = "weight") -> tuple[Any, Any]:  # fmt: skip
    """``(distances, paths)`` from ``source`` (both dicts, keys in NetworkX's order), or ``(distance, path)`` to
    ``target``.

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([(0, 1, {"weight": 4}), (0, 2, {"weight": 1}), (2, 1, {"weight": 2})])
    >>> single_source_dijkstra(G, 0)
    ({0: 0, 2: 1, 1: 3}, {0: [0], 2: [0, 2], 1: [0, 2, 1]})
    >>> single_source_dijkstra(G, 0, 1)
    (3, [0, 2, 1])
    """
    G = as_riptide_graph(G)
    found = _checked_source(G, source, "Node {source} not found in graph")
    if target is not None and target == source:
        return 0, [target]
    dist, paths = _dijkstra_paths(G, found, weight, cutoff)
    if target is None:
        return dist, paths
    if target not in paths:
        raise NetworkXNoPath(f"No path to {target}.")
    return dist[target], paths[target]


def single_source_dijkstra_path(G: Any, source: Any, cutoff: Any = None, weight: Any = "weight") -> dict:
    """``{node: shortest weighted path from source}``."""
    return single_source_dijkstra(G, source, cutoff=cutoff, weight=weight)[1]


def single_source_dijkstra_path_length(G: Any, source: Any, cutoff: Any = None, weight: Any = "weight") -> Any:
    """``{node: weighted distance from source}`` for the nodes within ``cutoff``, as a NodeMap (keys by
    distance; ties in node order, see the module docstring). Ints when the weights are ints, as NetworkX.

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([(0, 1, {"weight": 4}), (0, 2, {"weight": 1.5}), (2, 1, {"weight": 2})])
    >>> single_source_dijkstra_path_length(G, 0)
    {0: 0.0, 2: 1.5, 1: 3.5}
    """
    G = as_riptide_graph(G)
    return _dijkstra_lengths(G, _checked_source(G, source, "Node {source} not found in graph"), weight, cutoff)


def dijkstra_path(G: Any, source: Any, target: Any, weight: Any = "weight") -> list:
    """The shortest weighted path from ``source`` to ``target`` (NetworkXNoPath when there is none)."""
    return single_source_dijkstra(G, source, target=target, weight=weight)[1]


def dijkstra_path_length(G: Any, source: Any, target: Any, weight: Any = "weight") -> Any:
    """The weighted distance from ``source`` to ``target``.

    >>> from riptide.graph import from_edgelist
    >>> dijkstra_path_length(from_edgelist([(0, 1, {"weight": 4}), (0, 2, {"weight": 1}), (2, 1, {"weight": 2})]),
    ...                      0, 1)
    3
    """
    G = as_riptide_graph(G)
    found = _checked_source(G, source, "Node {source} not found in graph")
    if source == target:
        return 0
    lengths = _dijkstra_lengths(G, found, weight)
    if target not in lengths:
        raise NetworkXNoPath(f"Node {target} not reachable from {source}")
    return lengths[target]


def bellman_ford_path_length(G: Any, source: Any, target: Any, weight: Any = "weight") -> Any:
    """The weighted distance from ``source`` to ``target``; negative weights allowed (NetworkXUnbounded on a
    negative cycle reachable from ``source``; an undirected negative edge is one).

    >>> from riptide.graph import from_edgelist, DiGraph
    >>> bellman_ford_path_length(from_edgelist([(0, 1, {"weight": 4}), (0, 2, {"weight": 5}),
    ...                                         (2, 1, {"weight": -3})], create_using=DiGraph), 0, 1)
    2
    """
    G = as_riptide_graph(G)
    if source == target:
        if find_node(G, source) is None:
            raise NodeNotFound(f"Node {source} not found in graph")
        return 0
    found = _checked_source(G, source, "Node {source} is not found in the graph")
    dist, _, _, integral, _ = _dijkstra_run(G, found, weight, None, bellman_ford=True)
    target_id = find_node(G, target)
    value = None if target_id is None else float(_device.to_host(dist[target_id:target_id + 1])[0])  # one read
    if value is None or not np.isfinite(value):
        raise NetworkXNoPath(f"node {target} not reachable from {source}")
    return int(value) if integral else value


def single_source_bellman_ford_path_length(G: Any, source: Any, weight: Any = "weight") -> Any:
    """``{node: weighted distance from source}``, negative weights allowed (NetworkXUnbounded on a negative
    cycle); keys by distance, as :func:`single_source_dijkstra_path_length`."""
    G = as_riptide_graph(G)
    found = _checked_source(G, source, "Source {source} not in G")
    return _dijkstra_lengths(G, found, weight, bellman_ford=True)


def single_source_bellman_ford_path(G: Any, source: Any, weight: Any = "weight") -> dict:
    """``{node: a shortest weighted path from source}``, negative weights allowed (among tied paths, the one with
    the fewest edges found first: possibly another than NetworkX's).

    >>> from riptide.graph import from_edgelist, DiGraph
    >>> single_source_bellman_ford_path(from_edgelist([(0, 1, {"weight": 4}), (0, 2, {"weight": 5}),
    ...                                                (2, 1, {"weight": -3})], create_using=DiGraph), 0)
    {0: [0], 2: [0, 2], 1: [0, 2, 1]}
    """
    G = as_riptide_graph(G)
    return _bellman_ford_paths(G, _checked_source(G, source, "Source {source} not in G"), weight)


def bellman_ford_path(G: Any, source: Any, target: Any, weight: Any = "weight") -> list:
    """A shortest weighted path from ``source`` to ``target``, negative weights allowed."""
    G = as_riptide_graph(G)
    if source == target:
        if find_node(G, source) is None:
            raise NodeNotFound(f"Node {source} is not found in the graph")
        return [source]
    paths = _bellman_ford_paths(G, _checked_source(G, source, "Source {source} not in G"), weight)
    if target not in paths:
        raise NetworkXNoPath(f"Node {target} not reachable from {source}")
    return paths[target]


def bidirectional_shortest_path(G: Any, source: Any, target: Any) -> list:
    """The path with fewest edges from ``source`` to ``target``, found as NetworkX finds it (a breadth-first
    search from both ends, see :func:`_bidirectional_path`).

    >>> from riptide.graph import from_edgelist
    >>> bidirectional_shortest_path(from_edgelist([(0, 1), (1, 2), (2, 3), (0, 4), (4, 3)]), 0, 3)
    [0, 4, 3]
    """
    G = as_riptide_graph(G)
    found, target_id = find_node(G, source), find_node(G, target)
    if found is None:
        raise NodeNotFound(f"Source {source} is not in G")
    if target_id is None:
        raise NodeNotFound(f"Target {target} is not in G")
    path = _bidirectional_path(G, found, target_id)
    if path is None:
        raise NetworkXNoPath(f"No path between {source} and {target}.")
    return path


def all_pairs_dijkstra_path(G: Any, cutoff: Any = None, weight: Any = "weight") -> Iterator[tuple[Any, dict]]:
    """``(node, single_source_dijkstra_path(G, node))`` for every node (a generator)."""
    G = as_riptide_graph(G)
    for node in list(G):
        yield node, single_source_dijkstra_path(G, node, cutoff, weight)


def all_pairs_dijkstra_path_length(G: Any, cutoff: Any = None, weight: Any = "weight") -> Iterator[tuple[Any, Any]]:
    """``(node, {other: weighted distance})`` for every node, in node order (a generator, one device search per
    node: for small graphs, as NetworkX's)."""
    G = as_riptide_graph(G)
    for found, node in enumerate(list(G)):
        yield node, _dijkstra_lengths(G, found, weight, cutoff)


# ---------------------------------------------------------------------- NetworkX's generic entry points


def _method(weight: Any, method: str) -> str:
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    return "unweighted" if weight is None else method


def shortest_path(G: Any, source: Any = None, target: Any = None, weight: Any = None,
                  method: str = "dijkstra") -> Any:  # fmt: skip
    """Shortest paths as NetworkX's ``shortest_path``: a path (source and target), a dict of paths (one of them),
    or a generator of ``(node, paths)`` (neither). ``weight=None`` counts edges; ``method`` is "dijkstra" or
    "bellman-ford" (negative weights allowed; among tied paths, riptide's choice may differ from NetworkX's).

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([(0, 1), (1, 2), (2, 3)])
    >>> shortest_path(G, 0, 3), shortest_path(G, target=2)
    ([0, 1, 2, 3], {2: [2], 1: [1, 2], 3: [3, 2], 0: [0, 1, 2]})
    """
    G = as_riptide_graph(G)
    method = _method(weight, method)
    if source is None and target is None:
        if method == "unweighted":
            return all_pairs_shortest_path(G)
        if method == "dijkstra":
            return all_pairs_dijkstra_path(G, weight=weight)
        return ((node, _bellman_ford_paths(G, found, weight)) for found, node in enumerate(list(G)))
    if source is None:  # paths from every node that reaches the target, reversed
        found = _checked_source(G, target, "Source {source} not in G" if method == "unweighted"
                                else "Node {source} not found in graph")  # fmt: skip
        paths = _method_paths(G, found, weight, method, reverse=True)
        return {node: path[::-1] for node, path in paths.items()}
    if target is None:
        if method == "unweighted":
            return single_source_shortest_path(G, source)
        if method == "dijkstra":
            return single_source_dijkstra_path(G, source, weight=weight)
        return _method_paths(G, _checked_source(G, source, "Node {source} not found in graph"), weight, method)
    found = find_node(G, source)
    if found is None or find_node(G, target) is None:
        missing, which = (source, "Source") if found is None else (target, "Target")
        raise NodeNotFound(f"{which} {missing} is not in G")
    if method == "unweighted":
        return bidirectional_shortest_path(G, source, target)
    paths = _method_paths(G, found, weight, method)
    if target not in paths:
        raise NetworkXNoPath(f"No path between {source} and {target}.")
    return paths[target]


def _bidirectional_path(G: Any, source: int, target: int) -> list | None:
    """NetworkX's ``bidirectional_shortest_path`` (dense ids in, original ids out; None: no path).

    NetworkX grows a forward fringe from the source and a backward one from the target, a whole level at a time,
    always the smaller fringe (the forward one on a tie), recording each newly reached node's parent, and stops at
    the first neighbour (in scan order) that the other side has reached. The same levels run here on the device:
    a level's CSR rows gathered in fringe order, new nodes kept at their first occurrence (their parent is the
    row that held it), and the meeting node is the first gathered neighbour the other side holds."""
    xp = G.xp
    n = G.number_of_nodes()
    if source == target:
        return G._labels_of(xp.asarray([source], dtype=np.int64))
    unseen, biggest = -2, np.iinfo(np.int64).max
    pred = xp.full(n, unseen, dtype=np.int64)
    succ = xp.full(n, unseen, dtype=np.int64)
    pred[source], succ[target] = -1, -1
    claim = xp.full(n, biggest, dtype=np.int64)
    fringes = [xp.asarray([source], dtype=np.int64), xp.asarray([target], dtype=np.int64)]
    csrs = [(G._offsets, G._indices), _csr(G, reverse=True)[:2]]
    parents = [pred, succ]
    while fringes[0].shape[0] and fringes[1].shape[0]:  # the fringes' sizes: known without a device read
        side = 0 if fringes[0].shape[0] <= fringes[1].shape[0] else 1
        frontier, (offsets, targets), mine, other = fringes[side], csrs[side], parents[side], parents[1 - side]
        rows, positions = gather_rows(offsets, frontier, xp)
        neighbours = targets[positions]
        fresh = xp.flatnonzero(mine[neighbours] == unseen)
        fresh_ids = neighbours[fresh]
        first = fresh[_first_occurrences(fresh_ids, claim, xp)]
        claim[fresh_ids] = biggest  # the other side may claim these vertices later
        mine[neighbours[first]] = frontier[rows[first]]
        hits = _device.to_host(neighbours[xp.flatnonzero(other[neighbours] != unseen)[:1]])  # one small read per level
        if hits.shape[0]:
            meet = int(hits[0])
            return _walk(G, pred, meet)[::-1] + _walk(G, succ, meet)[1:]
        fringes[side] = neighbours[first]
    return None


def _walk(G: Any, parents: Any, start: int) -> list:
    """The original ids along ``parents`` from dense id ``start`` to the end of its chain (-1)."""
    host = []
    node = start
    while node >= 0:  # one scalar read per step of a path (a path is short; the parent array is not read whole)
        host.append(node)
        node = int(_device.to_host(parents[node:node + 1])[0])
    labels = G._host_labels()
    return [labels[i] for i in host]


def _method_paths(G: Any, found: int, weight: Any, method: str, reverse: bool = False) -> dict:
    if method == "unweighted":
        return _bfs_paths(G, found, reverse=reverse)
    if method == "dijkstra":
        return _dijkstra_paths(G, found, weight, reverse=reverse)[1]
    return _bellman_ford_paths(G, found, weight, reverse)


def shortest_path_length(G: Any, source: Any = None, target: Any = None, weight: Any = None,
                         method: str = "dijkstra") -> Any:  # fmt: skip
    """Shortest path lengths as NetworkX's ``shortest_path_length``: a number (source and target), a dict (one of
    them; lengths *to* the target when only it is given), or a generator of ``(node, lengths)`` (neither).

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([(0, 1), (1, 2), (2, 3)])
    >>> shortest_path_length(G, 0, 3), shortest_path_length(G, 1)
    (3, {1: 0, 0: 1, 2: 1, 3: 2})
    """
    G = as_riptide_graph(G)
    method = _method(weight, method)
    if source is None and target is None:
        if method == "unweighted":
            return all_pairs_shortest_path_length(G)
        return all_pairs_dijkstra_path_length(G, weight=weight) if method == "dijkstra" else \
            _all_pairs_bellman_ford_lengths(G, weight)  # fmt: skip
    if source is None:
        found = _checked_source(G, target, "Source {source} is not in G" if method == "unweighted"
                                else "Node {source} not found in graph")  # fmt: skip
        if method == "unweighted":
            return path_lengths(G, found, None, _csr(G, reverse=True)[:2])
        return _dijkstra_lengths(G, found, weight, reverse=True) if method == "dijkstra" else \
            _bellman_ford_lengths(G, found, weight, reverse=True)  # fmt: skip
    if target is None:
        if method == "unweighted":
            G_found = _checked_source(G, source, "Source {source} is not in G")
            return path_lengths(G, G_found)
        found = _checked_source(G, source, "Node {source} not found in graph")
        return _dijkstra_lengths(G, found, weight) if method == "dijkstra" else _bellman_ford_lengths(G, found, weight)
    if method == "unweighted":
        return len(shortest_path(G, source, target)) - 1
    if method == "dijkstra":
        return dijkstra_path_length(G, source, target, weight)
    return bellman_ford_path_length(G, source, target, weight)


def _bellman_ford_lengths(G: Any, found: int, weight: Any, reverse: bool = False) -> Any:
    return _dijkstra_lengths(G, found, weight, None, reverse, bellman_ford=True)


def _all_pairs_bellman_ford_lengths(G: Any, weight: Any) -> Iterator[tuple[Any, Any]]:
    for found, node in enumerate(list(G)):
        yield node, _bellman_ford_lengths(G, found, weight)


def has_path(G: Any, source: Any, target: Any) -> bool:
    """Whether a path leads from ``source`` to ``target`` (NodeNotFound for a missing node, as NetworkX).

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([(0, 1), (2, 3)])
    >>> has_path(G, 0, 1), has_path(G, 0, 3)
    (True, False)
    """
    try:
        shortest_path(G, source, target)
    except NetworkXNoPath:
        return False
    return True
