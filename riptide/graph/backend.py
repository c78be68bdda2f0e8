"""riptide as a NetworkX backend: ``nx.pagerank(G, backend="riptide")``, or every call with
``NETWORKX_BACKEND_PRIORITY=riptide``.

NetworkX finds backends through two entry points (see pyproject.toml): ``networkx.backends`` names
:class:`BackendInterface` (loaded when a call is dispatched here) and ``networkx.backend_info`` names
:func:`riptide_nx_info.get_info` (called while NetworkX imports, so it lists function names without
importing this module). For a dispatched call NetworkX converts each graph argument with ``convert_from_nx``
(caching the result on the NetworkX graph), calls the function of the same name here with the call's arguments,
and hands the result through ``convert_to_nx``. ``can_run`` turns down what riptide cannot do yet (multigraphs),
so NetworkX falls back to its own implementation when allowed.

Per-node answers: riptide's functions return a :class:`~riptide.graph.results.NodeMap` (values kept on the
device until read); a dispatched NetworkX call returns what NetworkX's contract says, a plain ``dict``, as other
backends do, so switching the backend on changes no result type (``isinstance(pr, dict)``, ``json.dumps(pr)``).
``convert_to_nx`` turns a NodeMap into a dict as well, for NetworkX's test-suite path.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from riptide.graph import centrality, components, link_analysis, traversal
from riptide_nx_info import FUNCTIONS
from riptide.graph.classes import Graph, from_networkx
from riptide.graph.results import NodeMap

__all__ = ["BackendInterface"]


def _returning_dict(func: Callable) -> Callable:
    """``func`` with a NodeMap answer handed back as a plain dict (NetworkX's result type)."""

    @functools.wraps(func)  # keeps NetworkX's signature visible to inspect.signature
    def call(*args: Any, **kwargs: Any) -> Any:
        result = func(*args, **kwargs)
        return result._dict() if isinstance(result, NodeMap) else result  # the host dict itself, no copy

    return call


class BackendInterface:
    """The object NetworkX loads for the "riptide" backend: conversions, run checks and the algorithms."""

    pagerank = staticmethod(_returning_dict(link_analysis.pagerank))
    connected_components = staticmethod(components.connected_components)
    number_connected_components = staticmethod(components.number_connected_components)
    is_connected = staticmethod(components.is_connected)
    weakly_connected_components = staticmethod(components.weakly_connected_components)
    number_weakly_connected_components = staticmethod(components.number_weakly_connected_components)
    is_weakly_connected = staticmethod(components.is_weakly_connected)
    single_source_shortest_path_length = staticmethod(_returning_dict(traversal.single_source_shortest_path_length))
    bfs_layers = staticmethod(traversal.bfs_layers)
    degree_centrality = staticmethod(_returning_dict(centrality.degree_centrality))

    @staticmethod
    def convert_from_nx(G: Any, edge_attrs: Any = None, node_attrs: Any = None, preserve_edge_attrs: bool = False,
                        preserve_node_attrs: bool = False, preserve_graph_attrs: bool = False, name: str | None = None,
                        graph_name: str | None = None) -> Graph:  # fmt: skip
        """A riptide graph from a NetworkX graph, keeping the edge attributes the call needs.

        ``edge_attrs`` is None or ``{attribute: default}`` (NetworkX passes e.g. ``{"weight": 1}`` for pagerank);
        node attributes are not used by the algorithms here.
        """
        if isinstance(G, Graph):
            return G
        if isinstance(edge_attrs, str):
            edge_attrs = {edge_attrs: None}
        graph = from_networkx(G, edge_attrs=edge_attrs, preserve_edge_attrs=bool(preserve_edge_attrs is True))
        if preserve_graph_attrs:
            graph.graph.update(G.graph)
        return graph

    @staticmethod
    def convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
        """Results are plain Python (dicts, sets, generators; a NodeMap becomes a dict); riptide graphs become
        NetworkX graphs."""
        if isinstance(obj, Graph):
            return obj.to_networkx()
        if isinstance(obj, NodeMap):
            return obj._dict()
        return obj

    @staticmethod
    def can_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        if name not in FUNCTIONS:
            return f"riptide does not implement {name}"
        graph = args[0] if args else kwargs.get("G")
        if graph is not None and getattr(graph, "is_multigraph", lambda: False)():
            return "riptide.graph has no MultiGraph/MultiDiGraph yet"
        weight = kwargs.get("weight", args[6] if name == "pagerank" and len(args) > 6 else None)
        if callable(weight):
            return "a weight function (not an attribute name) is not supported"
        return True

    @staticmethod
    def should_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        return True
