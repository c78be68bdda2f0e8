"""riptide.graph: NetworkX's graph classes and algorithms over a device CSR (CuPy on the GPU, NumPy elsewhere).

Graphs are built from edge lists (a riptide or pandas DataFrame, Python tuples, a NetworkX graph); vertex ids of
any type are renumbered to dense ids on the device, and every result comes back keyed by the original ids. The
algorithms keep NetworkX's names, signatures and results; ``nx.pagerank(G, backend="riptide")`` reaches them
through NetworkX's backend dispatch (:mod:`riptide.graph.backend`).

Names are loaded on first use, so that NetworkX's backend discovery (which imports
:mod:`riptide_nx_info`) stays cheap.

>>> import riptide.graph as rg
>>> G = rg.from_edgelist([(1, 2), (2, 3), (4, 5)])
>>> rg.number_connected_components(G)
2
"""

from __future__ import annotations

from typing import Any

from riptide_nx_info import ALGORITHMS

# Everything riptide.graph exports, name -> module. The algorithms NetworkX can dispatch to are registered once, in
# riptide_nx_info.ALGORITHMS (which the backend reads as well); the rest (graph classes, constructors, and
# functions NetworkX has no name for) are listed here.
_LAZY_EXPORTS = {
    "Graph": "riptide.graph.classes",
    "DiGraph": "riptide.graph.classes",
    "from_pandas_edgelist": "riptide.graph.classes",
    "from_edgelist": "riptide.graph.classes",
    "from_networkx": "riptide.graph.classes",
    "to_networkx": "riptide.graph.classes",
    "MultiGraph": "riptide.graph.classes",
    "MultiDiGraph": "riptide.graph.classes",
    "to_pandas_edgelist": "riptide.graph.classes",
    "from_scipy_sparse_array": "riptide.graph.classes",
    "to_cupyx_sparse_array": "riptide.graph.classes",
    "overlap_coefficient": "riptide.graph.link_prediction",
    "sorensen_coefficient": "riptide.graph.link_prediction",
    "random_walks": "riptide.graph.walks",
    "node2vec": "riptide.graph.walks",
    **{name: f"riptide.graph.{module}" for name, module in ALGORITHMS.items()},
}

__all__ = list(_LAZY_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _LAZY_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'riptide.graph' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
