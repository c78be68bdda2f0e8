"""riptide as a NetworkX backend: ``nx.pagerank(G, backend="riptide")``, or every call with
``NETWORKX_BACKEND_PRIORITY=riptide``.

NetworkX finds backends through two entry points (see pyproject.toml): ``networkx.backends`` names
:class:`BackendInterface` (loaded when a call is dispatched here) and ``networkx.backend_info`` names
:func:`riptide_nx_info.get_info` (called while NetworkX imports, so it lists function names without
importing this module). For a dispatched call NetworkX converts each graph argument with ``convert_from_nx``
(caching the result on the NetworkX graph), calls the function of the same name here with the call's arguments,
and hands the result through ``convert_to_nx``. ``can_run`` turns down what riptide cannot do yet (multigraphs,
except for the algorithms in :data:`riptide_nx_info.MULTIGRAPH_ALGORITHMS`, and weight functions), so NetworkX
falls back to its own implementation when allowed.

**One registry.** The algorithms are not listed here: ``BackendInterface.<name>`` is resolved on first access from
:data:`riptide_nx_info.ALGORITHMS` (name -> module of :mod:`riptide.graph`), wrapped by :func:`_as_networkx_result`
and cached on the class. Adding an algorithm to the backend is one entry in that registry.

**Result types.** riptide's functions return a :class:`~riptide.graph.results.NodeMap` for per-node answers
(values kept on the device until read) and riptide graphs for graph answers; a dispatched NetworkX call returns
what NetworkX's contract says, as other backends do, so switching the backend on changes no result type
(``isinstance(pr, dict)``, ``json.dumps(pr)``, ``nx.bfs_tree(...)`` a ``networkx.DiGraph``). The wrapper converts
every NodeMap to its dict and every riptide graph to a NetworkX graph, inside tuples and lists (``hits``,
``single_source_dijkstra``) and lazily inside generators (``all_pairs_shortest_path_length``).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import types
from collections.abc import Callable
from typing import Any

from riptide_nx_info import ALGORITHMS, FUNCTIONS, MULTIGRAPH_ALGORITHMS, UNDIRECTED_ALGORITHMS
from riptide.graph.classes import Graph, from_networkx
from riptide.graph.results import NodeMap

__all__ = ["BackendInterface"]

# Parameters through which NetworkX accepts a function instead of an edge attribute name.
_WEIGHT_PARAMETERS = ("weight", "distance")


def _as_networkx_result(value: Any) -> Any:
    """``value`` with NodeMaps as dicts and riptide graphs as NetworkX graphs (in tuples, lists and generators)."""
    if isinstance(value, NodeMap):
        return value._dict()  # the host dict itself, no copy
    if isinstance(value, Graph):
        return value.to_networkx()
    if isinstance(value, tuple | list):
        return type(value)(_as_networkx_result(item) for item in value)
    if isinstance(value, types.GeneratorType):
        return (_as_networkx_result(item) for item in value)
    return value


def _networkx_function(name: str) -> Callable:
    """riptide.graph's ``name``, returning NetworkX's result types."""
    func = getattr(importlib.import_module(f"riptide.graph.{ALGORITHMS[name]}"), name)

    @functools.wraps(func)  # keeps NetworkX's signature visible to inspect.signature
    def call(*args: Any, **kwargs: Any) -> Any:
        return _as_networkx_result(func(*args, **kwargs))

    return call


class _ResolvesAlgorithms(type):
    """Looks up ``BackendInterface.<algorithm>`` in the registry on first access (then cached on the class)."""

    def __getattr__(cls, name: str) -> Any:
        if name not in ALGORITHMS:
            raise AttributeError(f"riptide's NetworkX backend has no {name!r}")
        method = staticmethod(_networkx_function(name))
        setattr(cls, name, method)
        return getattr(cls, name)

    def __dir__(cls) -> list[str]:
        return sorted(set(super().__dir__()) | set(FUNCTIONS))


class BackendInterface(metaclass=_ResolvesAlgorithms):
    """The object NetworkX loads for the "riptide" backend: conversions, run checks and (resolved from
    :data:`riptide_nx_info.ALGORITHMS`) the algorithms."""

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
        if name not in ALGORITHMS:
            return f"riptide does not implement {name}"
        graph = args[0] if args else kwargs.get("G")
        if name not in MULTIGRAPH_ALGORITHMS and getattr(graph, "is_multigraph", lambda: False)():
            return f"riptide's {name} does not take a MultiGraph/MultiDiGraph"
        if name in UNDIRECTED_ALGORITHMS and getattr(graph, "is_directed", lambda: False)():
            return f"riptide's {name} takes undirected graphs only"
        try:
            bound = inspect.signature(getattr(BackendInterface, name)).bind_partial(*args, **kwargs).arguments
        except TypeError:
            return True  # NetworkX reports the bad call itself
        if any(callable(bound.get(param)) for param in _WEIGHT_PARAMETERS):
            return "a weight function (not an attribute name) is not supported"
        return True

    @staticmethod
    def should_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        return True
