"""The exceptions riptide.graph raises are NetworkX's own classes, so ``except nx.NodeNotFound`` catches them.

NetworkX is an optional dependency (``riptide[graph]``); without it, stand-ins with the same names and the same
hierarchy are defined here.
"""

from __future__ import annotations

__all__ = ["NetworkXException", "NetworkXError", "NetworkXNotImplemented", "NetworkXPointlessConcept", "NetworkXNoPath",
           "NetworkXUnbounded", "NodeNotFound", "PowerIterationFailedConvergence"]  # fmt: skip

try:
    from networkx.exception import (
        NetworkXError,
        NetworkXException,
        NetworkXNoPath,
        NetworkXNotImplemented,
        NetworkXPointlessConcept,
        NetworkXUnbounded,
        NodeNotFound,
        PowerIterationFailedConvergence,
    )
except ImportError:  # pragma: no cover - networkx is installed wherever the tests run

    class NetworkXException(Exception):
        """Base class for graph errors."""

    class NetworkXError(NetworkXException):
        """A serious error in a graph operation."""

    class NetworkXPointlessConcept(NetworkXException):
        """The question has no meaningful answer for this graph (e.g. the null graph)."""

    class NetworkXNotImplemented(NetworkXException):
        """The algorithm is not implemented for this kind of graph (directed/undirected)."""

    class NodeNotFound(NetworkXException):
        """A requested node is not in the graph."""

    class NetworkXNoPath(NetworkXException):
        """No path joins the two nodes."""

    class NetworkXUnbounded(NetworkXException):
        """The objective is unbounded (a negative cycle)."""

    class PowerIterationFailedConvergence(NetworkXException):
        """A power iteration did not converge within its iteration budget."""

        def __init__(self, num_iterations: int, *args: object) -> None:
            msg = f"power iteration failed to converge within {num_iterations} iterations"
            super().__init__(msg, *args)
