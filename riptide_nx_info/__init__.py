"""What NetworkX learns about the "riptide" backend without importing it (the ``networkx.backend_info`` entry point).

NetworkX calls :func:`get_info` while it is itself being imported, for every installed backend. This is a separate
top-level package so that it imports nothing of riptide (not even ``riptide/__init__``, which imports pandas):
``import networkx`` stays as fast as without riptide installed. The functions listed here are only names;
:mod:`riptide.graph.backend` implements one each.
"""

from __future__ import annotations

__all__ = ["get_info", "FUNCTIONS"]

# NetworkX dispatch names of the functions riptide's backend implements (riptide.graph.backend has one each).
FUNCTIONS = (
    "pagerank",
    "connected_components",
    "number_connected_components",
    "is_connected",
    "weakly_connected_components",
    "number_weakly_connected_components",
    "is_weakly_connected",
    "single_source_shortest_path_length",
    "bfs_layers",
    "degree_centrality",
)


def get_info() -> dict:
    """The backend's metadata for NetworkX (names, summary, and the functions it can run).

    >>> info = get_info()
    >>> info["backend_name"], "pagerank" in info["functions"]
    ('riptide', True)
    """
    return {
        "backend_name": "riptide",
        "project": "riptide",
        "package": "riptide",
        "short_summary": "GPU graph analytics over a device CSR (CuPy), with a NumPy fallback.",
        "functions": {name: {} for name in FUNCTIONS},
        "default_config": {},
    }
