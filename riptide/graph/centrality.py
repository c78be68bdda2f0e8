"""Centrality measures computed from per-vertex device arrays (degree today; more to come)."""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide.graph._checks import as_riptide_graph

__all__ = ["degree_centrality"]


def degree_centrality(G: Any) -> Any:
    """Each node's degree divided by ``n - 1`` (in + out degree for a directed graph), as NetworkX.

    The answer is a :class:`~riptide.graph.results.NodeMap` (a dict-like mapping whose values stay on the device
    until read).

    >>> from riptide.graph import from_edgelist
    >>> degree_centrality(from_edgelist([(0, 1), (0, 2)]))
    {0: 1.0, 1: 0.5, 2: 0.5}
    """
    G = as_riptide_graph(G)
    n = G.number_of_nodes()
    if n <= 1:  # NetworkX: {node: 1} (an int) for the one-node graph, {} for the null graph
        return G._result_dict(G.xp.ones(n, dtype=np.int64))
    return G._result_dict(G._degrees("both") * (1.0 / (n - 1.0)))
