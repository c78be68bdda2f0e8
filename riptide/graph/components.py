"""Connected components (undirected) and weakly connected components (directed) by hooking and pointer jumping.

Every vertex starts as its own root. Each round, every edge whose endpoints have different roots hooks the larger
root under the smaller one (a scatter-min into the parent array, so a root takes the smallest root offered), then
pointer jumping (``parent = parent[parent]``) flattens every tree until each vertex points at its root. Roots only
ever move to smaller ids, so no cycle can form, and a component's final root is its smallest vertex id. Edges
whose endpoints already share a root are dropped from later rounds. Rounds are loops over iterations (a few
scalar reads each: "did anything change?"), never over vertices or edges.

Because dense ids follow NetworkX's node order, sorting components by root gives them in the order NetworkX
yields them (by their first node).
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from riptide import _device
from riptide.core.kernels.scatter import scatter_min
from riptide.graph._checks import as_riptide_graph, require_directed, require_undirected
from riptide.graph.exceptions import NetworkXPointlessConcept

__all__ = ["connected_components", "number_connected_components", "is_connected", "weakly_connected_components",
           "number_weakly_connected_components", "is_weakly_connected", "component_roots"]  # fmt: skip


def component_roots(G: Any) -> Any:
    """Per vertex, the smallest dense id in its (weakly) connected component (int64, on the device).

    >>> from riptide.graph import from_edgelist
    >>> component_roots(from_edgelist([(0, 1), (2, 3), (3, 1), (4, 5)])).tolist()
    [0, 0, 0, 0, 4, 4]
    """
    xp = G.xp
    parent = xp.arange(G.number_of_nodes(), dtype=np.int64)
    u, v = G._src, G._dst
    while u.shape[0]:
        pu, pv = parent[u], parent[v]
        differ = xp.flatnonzero(pu != pv)
        if differ.shape[0] == 0:  # one scalar read (the size): no edge joins two trees any more
            break
        u, v, pu, pv = u[differ], v[differ], pu[differ], pv[differ]
        scatter_min(parent, xp.maximum(pu, pv), xp.minimum(pu, pv), xp)
        while True:
            grand = parent[parent]
            if not bool((grand != parent).any()):  # one scalar read: every vertex points at its root
                break
            parent = grand
    return parent


def _components(G: Any) -> Iterator[set]:
    roots = _device.to_host(component_roots(G))  # one transfer: the answer is Python sets
    order = np.argsort(roots, kind="stable")
    sorted_roots = roots[order]
    cuts = np.flatnonzero(sorted_roots[1:] != sorted_roots[:-1]) + 1
    labels = G._host_labels()
    label_array = np.empty(len(labels), dtype=object)
    label_array[:] = labels
    for members in np.split(order, cuts) if len(order) else []:
        yield set(label_array[members].tolist())


def _count(G: Any) -> int:
    roots = component_roots(G)
    xp = G.xp
    return int((roots == xp.arange(roots.shape[0])).sum())  # one scalar read: the result


def _checked(G: Any, directed: bool) -> Any:
    """``G`` as a riptide graph, after NetworkX's ``not_implemented_for`` check of its direction."""
    G = as_riptide_graph(G)
    (require_directed if directed else require_undirected)(G)
    return G


def _is_connected(G: Any) -> bool:
    if G.number_of_nodes() == 0:
        raise NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return _count(G) == 1


def connected_components(G: Any) -> Iterator[set]:
    """The connected components of an undirected graph, as sets of nodes (a generator, in NetworkX's order).

    >>> from riptide.graph import from_edgelist
    >>> [sorted(c) for c in connected_components(from_edgelist([("a", "b"), ("c", "d"), ("b", "e")]))]
    [['a', 'b', 'e'], ['c', 'd']]
    """
    return _components(_checked(G, directed=False))


def number_connected_components(G: Any) -> int:
    """The number of connected components of an undirected graph."""
    return _count(_checked(G, directed=False))


def is_connected(G: Any) -> bool:
    """Whether an undirected graph is connected (NetworkXPointlessConcept for the null graph, as NetworkX)."""
    return _is_connected(_checked(G, directed=False))


def weakly_connected_components(G: Any) -> Iterator[set]:
    """The weakly connected components of a directed graph, as sets of nodes (a generator).

    >>> from riptide.graph import from_edgelist, DiGraph
    >>> list(weakly_connected_components(from_edgelist([(1, 2), (3, 2), (4, 5)], create_using=DiGraph)))
    [{1, 2, 3}, {4, 5}]
    """
    return _components(_checked(G, directed=True))


def number_weakly_connected_components(G: Any) -> int:
    """The number of weakly connected components of a directed graph."""
    return _count(_checked(G, directed=True))


def is_weakly_connected(G: Any) -> bool:
    """Whether a directed graph is weakly connected (NetworkXPointlessConcept for the null graph)."""
    return _is_connected(_checked(G, directed=True))
