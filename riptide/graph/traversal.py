"""Breadth-first search, level-synchronous: one frontier of vertices per level, expanded all at once.

A level gathers the CSR rows of the frontier (the out-neighbours; both directions are in an undirected graph's
CSR), keeps the neighbours not reached yet, and makes their distinct ids the next frontier. The loop runs once per
level (one scalar read each: is the frontier empty?), never once per vertex or edge. Within a level vertices come
in dense-id order (NetworkX lists them in discovery order): the same sets, possibly in another order.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from riptide import _device
from riptide.core.kernels.segments import gather_segments
from riptide.graph._checks import as_riptide_graph
from riptide.graph.exceptions import NetworkXError, NodeNotFound

__all__ = ["single_source_shortest_path_length", "bfs_layers", "bfs_frontiers"]


def bfs_frontiers(G: Any, sources: Any, cutoff: float | None = None) -> Iterator[Any]:
    """The dense ids at distance 0, 1, 2, ... from ``sources`` (an int64 device array), one array per level."""
    xp = G.xp
    offsets, indices = G._offsets, G._indices
    reached = xp.zeros(G.number_of_nodes(), dtype=bool)
    frontier = xp.unique(sources)
    reached[frontier] = True
    level = 0
    while frontier.shape[0]:  # one scalar read per level (the frontier's size)
        yield frontier
        if cutoff is not None and level >= cutoff:
            return
        starts = offsets[frontier]
        new_offsets = xp.zeros(frontier.shape[0] + 1, dtype=np.int64)
        xp.cumsum(offsets[frontier + 1] - starts, out=new_offsets[1:])
        neighbours = gather_segments(indices, starts, new_offsets, xp)
        neighbours = neighbours[~reached[neighbours]]
        frontier = xp.unique(neighbours)
        reached[frontier] = True
        level += 1


def single_source_shortest_path_length(G: Any, source: Any, cutoff: float | None = None) -> dict:
    """``{node: hops from source}`` for the nodes reachable within ``cutoff`` hops (NetworkX's function).

    >>> from riptide.graph import from_edgelist
    >>> single_source_shortest_path_length(from_edgelist([(0, 1), (1, 2), (2, 3)]), 0, cutoff=2)
    {0: 0, 1: 1, 2: 2}
    """
    G = as_riptide_graph(G)
    if not G.has_node(source):
        raise NodeNotFound(f"Source {source} is not in G")
    xp = G.xp
    start = xp.asarray([G._id_of(source)], dtype=np.int64)
    labels = G._host_labels()
    result: dict = {}
    for level, frontier in enumerate(bfs_frontiers(G, start, cutoff)):
        for i in _device.to_host(frontier).tolist():  # building the Python answer: one transfer per level
            result[labels[i]] = level
    return result


def bfs_layers(G: Any, sources: Any) -> Iterator[list]:
    """Lists of nodes at distance 0, 1, 2, ... from ``sources`` (a node or an iterable of nodes); a generator.

    >>> from riptide.graph import from_edgelist
    >>> list(bfs_layers(from_edgelist([(0, 1), (0, 2), (1, 3)]), 0))
    [[0], [1, 2], [3]]
    """
    G = as_riptide_graph(G)
    if G.has_node(sources):
        sources = [sources]
    first = list(dict.fromkeys(sources))  # NetworkX's first layer: the distinct sources
    for source in first:
        if not G.has_node(source):
            raise NetworkXError(f"The node {source} is not in the graph.")
    return _layers(G, first)


def _layers(G: Any, first: list) -> Iterator[list]:
    labels = G._host_labels()
    start = _device.to_device(np.asarray([G._id_of(s) for s in first], dtype=np.int64), G.xp)
    for level, frontier in enumerate(bfs_frontiers(G, start)):
        yield first if level == 0 else [labels[i] for i in _device.to_host(frontier).tolist()]
