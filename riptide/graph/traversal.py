"""Breadth-first search, level-synchronous: one frontier of vertices per level, expanded all at once.

A level gathers the CSR rows of the frontier (the out-neighbours; both directions are in an undirected graph's
CSR) in frontier order, drops the neighbours reached already, and keeps the **first occurrence** of each of the
rest: a scatter-min of positions claims each vertex for its earliest position, so the next frontier lists vertices
in discovery order (on the GPU the same level runs in three kernels over the frontier's rows,
:mod:`riptide.graph._frontier`, without the arc-sized arrays). That is NetworkX's order (it scans the frontier in order and each adjacency dict in insertion
order, and CSR rows follow that order, see :mod:`riptide.graph.classes`), with no sort and the same result on
NumPy and CuPy (a minimum does not depend on which thread writes first). The loop runs once per level (a few
scalar reads each: the frontier's size, the gathered size), never once per vertex or edge.

The first occurrence of a vertex also names its **BFS parent**: the frontier vertex whose row held it, i.e. the
first vertex of the previous level (in discovery order) adjacent to it, which is the parent NetworkX's
``bfs_edges`` reports. :func:`bfs_tree_levels` yields ``(frontier, parents)`` per level; ``bfs_edges``,
``bfs_tree``, ``bfs_predecessors``/``bfs_successors`` and the unweighted shortest paths
(:mod:`riptide.graph.shortest_paths`) are read off those arrays, read to the host once.

``sort_neighbors`` (NetworkX calls it on each visited node's neighbour iterator) is applied **once** to all the
nodes, and each CSR row is then re-sorted by the resulting rank on the device: that equals NetworkX's per-node
call for any order that depends on the nodes alone (``sorted``, ``sorted(..., key=..., reverse=...)``), which is
what the parameter is for; a function whose order depends on the row it is given is not supported.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from riptide import _device
from riptide.core.kernels.scatter import scatter_min
from riptide.core.kernels.segments import row_of_each_element, take_offsets
from riptide.core.kernels.sort import stable_argsort
from riptide.graph._checks import as_riptide_graph
from riptide.graph._frontier import expand_frontier
from riptide.graph.exceptions import NetworkXError, NodeNotFound

__all__ = ["single_source_shortest_path_length", "bfs_layers", "bfs_frontiers", "bfs_tree_levels", "bfs_edges",
           "bfs_tree", "bfs_predecessors", "bfs_successors", "descendants_at_distance", "gather_rows", "search_csr",
           "find_node", "path_lengths"]  # fmt: skip


def bfs_frontiers(G: Any, sources: Any, cutoff: float | None = None, csr: tuple[Any, Any] | None = None
                  ) -> Iterator[Any]:  # fmt: skip
    """The dense ids at distance 0, 1, 2, ... from ``sources`` (an int64 device array), one array per level,
    each in discovery order (``sources``' first occurrences, in their order, at level 0). ``csr`` is
    ``(offsets, indices)`` to walk instead of ``G``'s out-arcs (the in-arcs, for a reverse search).

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([(5, 3), (5, 1), (1, 2), (3, 2), (2, 4)])
    >>> [[G.nodes[i] for i in f.tolist()] for f in bfs_frontiers(G, G.xp.asarray([0]))]
    [[5], [3, 1], [2], [4]]
    """
    for frontier, _ in _levels(G, sources, cutoff, csr, with_parents=False):
        yield frontier


def bfs_tree_levels(G: Any, sources: Any, cutoff: float | None = None, csr: tuple[Any, Any] | None = None
                    ) -> Iterator[tuple[Any, Any]]:  # fmt: skip
    """As :func:`bfs_frontiers`, with each level's BFS parents: ``(frontier, parents)``, ``parents[i]`` the dense
    id of the vertex that discovered ``frontier[i]`` (-1 at level 0).

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([(0, 1), (0, 2), (1, 3), (2, 3)])
    >>> [(f.tolist(), p.tolist()) for f, p in bfs_tree_levels(G, G.xp.asarray([0]))]
    [([0], [-1]), ([1, 2], [0, 0]), ([3], [1])]
    """
    return _levels(G, sources, cutoff, csr, with_parents=True)


def _levels(G: Any, sources: Any, cutoff: float | None, csr: tuple[Any, Any] | None,
            with_parents: bool) -> Iterator[tuple[Any, Any]]:  # fmt: skip
    xp = G.xp
    offsets, indices = csr if csr is not None else (G._offsets, G._indices)
    n = G.number_of_nodes()
    reached = xp.zeros(n, dtype=bool)
    claim = xp.full(n, np.iinfo(np.int64).max, dtype=np.int64)  # earliest position per vertex
    sources = sources.astype(np.int64, copy=False)
    first = _first_occurrences(sources, claim, xp)
    frontier = sources[first]
    parents = xp.full(frontier.shape[0], -1, dtype=np.int64) if with_parents else None
    reached[frontier] = True
    level = 0
    while frontier.shape[0]:  # one scalar read per level (the frontier's size)
        yield frontier, parents
        if cutoff is not None and level >= cutoff:
            return
        expand = expand_frontier if xp is not np else _expand_on_host  # the GPU's: no arc-sized arrays
        frontier, parents = expand(offsets, indices, frontier, reached, claim, with_parents)
        level += 1


def _expand_on_host(offsets: Any, indices: Any, frontier: Any, reached: Any, claim: Any,
                    with_parents: bool) -> tuple[Any, Any]:  # fmt: skip
    """:func:`~riptide.graph._frontier.expand_frontier` on NumPy: the frontier's rows gathered, the neighbours not
    reached yet kept at their first occurrence."""
    rows, positions = gather_rows(offsets, frontier, np)
    neighbours = indices[positions]
    fresh = ~reached[neighbours]
    neighbours = neighbours[fresh]
    first = _first_occurrences(neighbours, claim, np)
    # the row that held a vertex's first occurrence is its parent
    parents = frontier[rows[fresh][first]] if with_parents else None
    following = neighbours[first]
    reached[following] = True
    return following, parents


def gather_rows(offsets: Any, frontier: Any, xp: Any) -> tuple[Any, Any]:
    """The CSR rows of ``frontier``, gathered in order: ``(rows, positions)``, element k being arc
    ``positions[k]`` of row ``frontier[rows[k]]``. One scalar read on the device (the gathered size).

    >>> [a.tolist() for a in gather_rows(np.array([0, 2, 2, 5]), np.array([2, 0]), np)]
    [[0, 0, 0, 1, 1], [2, 3, 4, 0, 1]]
    """
    starts, new_offsets = take_offsets(offsets, frontier, xp)
    rows = row_of_each_element(new_offsets, xp)
    positions = starts[rows] + (xp.arange(rows.shape[0], dtype=np.int64) - new_offsets[:-1][rows])
    return rows, positions


def _first_occurrences(ids: Any, claim: Any, xp: Any) -> Any:
    """A mask of the first occurrence of each value of ``ids``. ``claim`` (int64 max at every id not claimed
    before) is left holding each id's position; callers never pass an id twice across calls."""
    positions = xp.arange(ids.shape[0], dtype=np.int64)
    scatter_min(claim, ids, positions, xp)
    return claim[ids] == positions


def find_node(G: Any, node: Any) -> int | None:
    """The dense id of ``node`` or None (``G._find``: it also covers graphs numbered on the host, whose labels
    live only in a Python list, and unhashable nodes)."""
    return G._find(node)


def search_csr(G: Any, reverse: bool = False, sort_neighbors: Any = None) -> tuple[Any, Any]:
    """``(offsets, indices)`` a search walks: the out-arcs, or the in-arcs of a DiGraph when ``reverse``; each
    row re-sorted by ``sort_neighbors`` (applied once to all nodes, see the module docstring) when given."""
    if reverse and G.is_directed():
        offsets, indices = G._in_arcs()
    else:
        offsets, indices = G._offsets, G._indices
    if sort_neighbors is None:
        return offsets, indices
    from riptide.graph.classes import _offsets_of

    xp, n = G.xp, G.number_of_nodes()
    index = G._index()
    ranked = [index[node] for node in sort_neighbors(iter(G._host_labels())) if node in index]  # host: the order
    rank_host = np.full(n, n, dtype=np.int64)  # nodes the function leaves out rank n: their arcs are dropped
    rank_host[np.asarray(ranked, dtype=np.int64)] = np.arange(len(ranked), dtype=np.int64)
    rank = _device.to_device(rank_host, xp)
    rows = row_of_each_element(offsets, xp)
    order = stable_argsort(rows * (n + 1) + rank[indices], xp)
    rows, indices = rows[order], indices[order]
    keep = rank[indices] < n
    rows, indices = rows[keep], indices[keep]
    return _offsets_of(rows, n, xp), indices


def _tree_arrays(G: Any, source: Any, reverse: bool, depth_limit: Any, sort_neighbors: Any,
                 missing: str = "graph") -> tuple[Any, Any]:  # fmt: skip
    """``(vertices, parents)``: the BFS tree from ``source`` as two device arrays in discovery order (the source
    first, with parent -1)."""
    found = find_node(G, source)
    if found is None:
        raise NetworkXError(f"The node {source} is not in the {missing}.")
    xp = G.xp
    csr = search_csr(G, reverse, sort_neighbors)
    start = xp.asarray([found], dtype=np.int64)
    cutoff = len(G) if depth_limit is None else depth_limit
    levels = list(bfs_tree_levels(G, start, cutoff, csr))
    return xp.concatenate([f for f, _ in levels]), xp.concatenate([p for _, p in levels])


def _edge_pairs(G: Any, source: Any, reverse: bool, depth_limit: Any, sort_neighbors: Any) -> list[tuple]:
    missing = "digraph" if G.is_directed() else "graph"
    vertices, parents = _tree_arrays(G, source, reverse, depth_limit, sort_neighbors, missing)
    return list(zip(G._labels_of(parents[1:]), G._labels_of(vertices[1:])))  # two transfers: the answer


def bfs_edges(G: Any, source: Any, reverse: bool = False, depth_limit: Any = None,
              sort_neighbors: Any = None) -> Iterator[tuple]:  # fmt: skip
    """The edges ``(parent, child)`` of a breadth-first search from ``source``, in discovery order (a generator,
    as NetworkX's: a missing source raises on the first ``next``).

    ``reverse=True`` follows a DiGraph's arcs backwards; ``depth_limit`` bounds the depth of the children.

    >>> from riptide.graph import from_edgelist
    >>> list(bfs_edges(from_edgelist([(0, 1), (1, 2), (0, 3), (3, 2)]), 0))
    [(0, 1), (0, 3), (1, 2)]
    """
    G = as_riptide_graph(G)
    yield from _edge_pairs(G, source, reverse, depth_limit, sort_neighbors)


def bfs_tree(G: Any, source: Any, reverse: bool = False, depth_limit: Any = None, sort_neighbors: Any = None) -> Any:
    """The breadth-first search tree from ``source`` as a riptide DiGraph (nodes in discovery order).

    >>> from riptide.graph import from_edgelist
    >>> T = bfs_tree(from_edgelist([(0, 1), (1, 2), (0, 3), (3, 2)]), 0)
    >>> list(T), T.edges()
    ([0, 1, 3, 2], [(0, 1), (0, 3), (1, 2)])
    """
    from riptide.graph.classes import DiGraph, _new_graph

    G = as_riptide_graph(G)
    missing = "digraph" if G.is_directed() else "graph"
    vertices, parents = _tree_arrays(G, source, reverse, depth_limit, sort_neighbors, missing)
    xp = G.xp
    k = vertices.shape[0]
    local = xp.full(G.number_of_nodes(), -1, dtype=np.int64)  # dense id in G -> dense id in the tree
    local[vertices] = xp.arange(k, dtype=np.int64)
    src, dst = local[parents[1:]], xp.arange(1, k, dtype=np.int64)
    if G._labels is not None:
        return _new_graph(DiGraph, xp, k, src, dst, {}, G._labels.take(vertices), None)
    return _new_graph(DiGraph, xp, k, src, dst, {}, None, G._labels_of(vertices))


def bfs_predecessors(G: Any, source: Any, depth_limit: Any = None, sort_neighbors: Any = None) -> Iterator[tuple]:
    """``(node, its BFS parent)`` for each node the search from ``source`` reaches (a generator).

    >>> from riptide.graph import from_edgelist
    >>> dict(bfs_predecessors(from_edgelist([(0, 1), (1, 2), (0, 3)]), 0))
    {1: 0, 3: 0, 2: 1}
    """
    G = as_riptide_graph(G)
    for parent, child in _edge_pairs(G, source, False, depth_limit, sort_neighbors):
        yield child, parent


def bfs_successors(G: Any, source: Any, depth_limit: Any = None, sort_neighbors: Any = None) -> Iterator[tuple]:
    """``(node, [its BFS children])`` per node with children, in discovery order (a generator; the source comes
    with an empty list when it has no children, as in NetworkX).

    >>> from riptide.graph import from_edgelist
    >>> dict(bfs_successors(from_edgelist([(0, 1), (1, 2), (0, 3)]), 0))
    {0: [1, 3], 1: [2]}
    """
    G = as_riptide_graph(G)
    parent, children = source, []
    for p, c in _edge_pairs(G, source, False, depth_limit, sort_neighbors):  # runs of one parent, on the host
        if p == parent:
            children.append(c)
            continue
        yield parent, children
        parent, children = p, [c]
    yield parent, children


def descendants_at_distance(G: Any, source: Any, distance: int) -> set:
    """The set of nodes at exactly ``distance`` hops from ``source``.

    >>> from riptide.graph import from_edgelist
    >>> sorted(descendants_at_distance(from_edgelist([(0, 1), (1, 2), (0, 3), (3, 4)]), 0, 2))
    [2, 4]
    """
    G = as_riptide_graph(G)
    found = find_node(G, source)
    if found is None:
        raise NetworkXError(f"The node {source} is not in the graph.")
    start = G.xp.asarray([found], dtype=np.int64)
    for level, frontier in enumerate(bfs_frontiers(G, start, distance)):
        if level == distance:
            return set(G._labels_of(frontier))
    return set()


def single_source_shortest_path_length(G: Any, source: Any, cutoff: float | None = None) -> Any:
    """``{node: hops from source}`` for the nodes reachable within ``cutoff`` hops (NetworkX's function).

    The answer is a :class:`~riptide.graph.results.NodeMap` built from the frontiers on the device (nothing is
    read back per level but the frontier's size); it lists nodes level by level, as NetworkX does.

    >>> from riptide.graph import from_edgelist
    >>> single_source_shortest_path_length(from_edgelist([(0, 1), (1, 2), (2, 3)]), 0, cutoff=2)
    {0: 0, 1: 1, 2: 2}
    """
    G = as_riptide_graph(G)
    found = find_node(G, source)
    if found is None:
        raise NodeNotFound(f"Source {source} is not in G")
    return path_lengths(G, found, cutoff)


def path_lengths(G: Any, found: int, cutoff: Any = None, csr: tuple[Any, Any] | None = None) -> Any:
    """The hop counts from dense id ``found`` as a NodeMap in discovery order (``csr``: see bfs_frontiers)."""
    from riptide.graph.results import NodeMap

    xp = G.xp
    start = xp.asarray([found], dtype=np.int64)
    ids, hops = [], []
    for level, frontier in enumerate(bfs_frontiers(G, start, cutoff, csr)):
        ids.append(frontier)
        hops.append(xp.full(frontier.shape[0], level, dtype=np.int64))
    return NodeMap.over_ids(G, xp.concatenate(ids), xp.concatenate(hops))


def bfs_layers(G: Any, sources: Any) -> Iterator[list]:
    """Lists of nodes at distance 0, 1, 2, ... from ``sources`` (a node or an iterable of nodes); a generator.

    >>> from riptide.graph import from_edgelist
    >>> list(bfs_layers(from_edgelist([(0, 1), (0, 2), (1, 3)]), 0))
    [[0], [1, 2], [3]]
    """
    G = as_riptide_graph(G)
    if find_node(G, sources) is not None:
        sources = [sources]
    first = list(set(sources))  # NetworkX's first layer: the distinct sources, in a Python set's order as there
    ids = [find_node(G, source) for source in first]
    for source, found in zip(first, ids):
        if found is None:
            raise NetworkXError(f"The node {source} is not in the graph.")
    return _layers(G, first, ids)


def _layers(G: Any, first: list, ids: list) -> Iterator[list]:
    start = _device.to_device(np.asarray(ids, dtype=np.int64), G.xp)
    for level, frontier in enumerate(bfs_frontiers(G, start)):
        yield first if level == 0 else G._labels_of(frontier)
