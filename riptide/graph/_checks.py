"""Argument checks shared by the algorithms: NetworkX's ``not_implemented_for`` and the graph type."""

from __future__ import annotations

from typing import Any

from riptide.graph.exceptions import NetworkXNotImplemented

__all__ = ["as_riptide_graph", "require_undirected", "require_directed", "require_not_multigraph"]


def as_riptide_graph(G: Any) -> Any:
    """``G`` itself when it is a riptide graph; a NetworkX graph is converted (once per call)."""
    from riptide.graph.classes import Graph, from_networkx

    if isinstance(G, Graph):
        return G
    if hasattr(G, "adj") and hasattr(G, "is_directed"):
        return from_networkx(G)
    raise TypeError(f"expected a riptide.graph or networkx graph, got {type(G).__name__}")


def require_undirected(G: Any) -> None:
    if G.is_directed():
        raise NetworkXNotImplemented("not implemented for directed type")


def require_directed(G: Any) -> None:
    if not G.is_directed():
        raise NetworkXNotImplemented("not implemented for undirected type")


def require_not_multigraph(G: Any) -> None:
    if G.is_multigraph():
        raise NetworkXNotImplemented("not implemented for multigraph type")
