"""Centrality measures computed from per-vertex device arrays (degree today; more to come)."""

from __future__ import annotations

from typing import Any

from riptide.graph._checks import as_riptide_graph

__all__ = ["degree_centrality"]


def degree_centrality(G: Any) -> dict:
    """Each node's degree divided by ``n - 1`` (in + out degree for a directed graph), as NetworkX.

    >>> from riptide.graph import from_edgelist
    >>> degree_centrality(from_edgelist([(0, 1), (0, 2)]))
    {0: 1.0, 1: 0.5, 2: 0.5}
    """
    G = as_riptide_graph(G)
    n = G.number_of_nodes()
    if n <= 1:
        return {node: 1 for node in G}
    return G._result_dict(G._degrees("both") * (1.0 / (n - 1.0)))
