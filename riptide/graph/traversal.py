"""Breadth-first search, level-synchronous: one frontier of vertices per level, expanded all at once.

A level gathers the CSR rows of the frontier (the out-neighbours; both directions are in an undirected graph's
CSR) in frontier order, drops the neighbours reached already, and keeps the **first occurrence** of each of the
rest: a scatter-min of positions claims each vertex for its earliest position, so the next frontier lists vertices
in discovery order. That is NetworkX's order (it scans the frontier in order and each adjacency dict in insertion
order, and CSR rows follow that order, see :mod:`riptide.graph.classes`), with no sort and the same result on
NumPy and CuPy (a minimum does not depend on which thread writes first). The loop runs once per level (a few
scalar reads each: the frontier's size, the gathered size), never once per vertex or edge.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from riptide import _device
from riptide.core.kernels.scatter import scatter_min
from riptide.core.kernels.segments import gather_segments, take_offsets
from riptide.graph._checks import as_riptide_graph
from riptide.graph.exceptions import NetworkXError, NodeNotFound

__all__ = ["single_source_shortest_path_length", "bfs_layers", "bfs_frontiers"]


def bfs_frontiers(G: Any, sources: Any, cutoff: float | None = None) -> Iterator[Any]:
    """The dense ids at distance 0, 1, 2, ... from ``sources`` (an int64 device array), one array per level,
    each in discovery order (``sources``' first occurrences, in their order, at level 0).

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([(5, 3), (5, 1), (1, 2), (3, 2), (2, 4)])
    >>> [[G.nodes[i] for i in f.tolist()] for f in bfs_frontiers(G, G.xp.asarray([0]))]
    [[5], [3, 1], [2], [4]]
    """
    xp = G.xp
    offsets, indices = G._offsets, G._indices
    reached = xp.zeros(G.number_of_nodes(), dtype=bool)
    claim = xp.full(G.number_of_nodes(), np.iinfo(np.int64).max, dtype=np.int64)  # earliest position per vertex
    frontier = _first_occurrences(sources.astype(np.int64, copy=False), claim, xp)
    reached[frontier] = True
    level = 0
    while frontier.shape[0]:  # one scalar read per level (the frontier's size)
        yield frontier
        if cutoff is not None and level >= cutoff:
            return
        starts, new_offsets = take_offsets(offsets, frontier, xp)  # the frontier's CSR rows, gathered in order
        neighbours = gather_segments(indices, starts, new_offsets, xp)
        neighbours = neighbours[~reached[neighbours]]
        frontier = _first_occurrences(neighbours, claim, xp)
        reached[frontier] = True
        level += 1


def _first_occurrences(ids: Any, claim: Any, xp: Any) -> Any:
    """The distinct values of ``ids`` in order of first occurrence. ``claim`` (int64 max at every id not claimed
    before) is left holding each id's position; callers never pass an id twice across calls."""
    positions = xp.arange(ids.shape[0], dtype=np.int64)
    scatter_min(claim, ids, positions, xp)
    return ids[claim[ids] == positions]


def single_source_shortest_path_length(G: Any, source: Any, cutoff: float | None = None) -> Any:
    """``{node: hops from source}`` for the nodes reachable within ``cutoff`` hops (NetworkX's function).

    The answer is a :class:`~riptide.graph.results.NodeMap` built from the frontiers on the device (nothing is
    read back per level but the frontier's size); it lists nodes level by level, as NetworkX does.

    >>> from riptide.graph import from_edgelist
    >>> single_source_shortest_path_length(from_edgelist([(0, 1), (1, 2), (2, 3)]), 0, cutoff=2)
    {0: 0, 1: 1, 2: 2}
    """
    from riptide.graph.results import NodeMap

    G = as_riptide_graph(G)
    found = G._find(source)
    if found is None:
        raise NodeNotFound(f"Source {source} is not in G")
    xp = G.xp
    start = xp.asarray([found], dtype=np.int64)
    ids, hops = [], []
    for level, frontier in enumerate(bfs_frontiers(G, start, cutoff)):
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
    if G.has_node(sources):
        sources = [sources]
    first = list(set(sources))  # NetworkX's first layer: the distinct sources, in a Python set's order as there
    for source in first:
        if not G.has_node(source):
            raise NetworkXError(f"The node {source} is not in the graph.")
    return _layers(G, first)


def _layers(G: Any, first: list) -> Iterator[list]:
    start = _device.to_device(np.asarray([G._id_of(s) for s in first], dtype=np.int64), G.xp)
    for level, frontier in enumerate(bfs_frontiers(G, start)):
        yield first if level == 0 else G._labels_of(frontier)
