"""Connected components (undirected) and weakly connected components (directed) by hooking and pointer jumping.

Every vertex starts as its own root. Each round, every edge whose endpoints have different roots hooks the larger
root under the smaller one (a scatter-min into the parent array, so a root takes the smallest root offered), then
pointer jumping (``parent = parent[parent]``) flattens every tree until each vertex points at its root. Roots only
ever move to smaller ids, so no cycle can form, and a component's final root is its smallest vertex id. Edges
whose endpoints already share a root are dropped from later rounds. Rounds are loops over iterations (a few
scalar reads each: "did anything change?"), never over vertices or edges.

Because dense ids follow NetworkX's node order, sorting components by root gives them in the order NetworkX
yields them (by their first node).

**Strongly connected components** (directed) alternate two steps until every vertex is labelled:

* *trimming*: a vertex with no in-arc or no out-arc from the unlabelled part is an SCC of its own (repeated,
  which settles every acyclic part, chains included, without colouring rounds);
* *colouring* (forward-backward by colours): every unlabelled vertex takes the smallest id among the vertices
  that reach it (min-label propagation along the arcs, a scatter-min per round until nothing changes); a vertex
  whose colour is its own id is a root, and the vertices of its colour that reach it backwards (a sweep over the
  arcs whose ends share a colour, until nothing changes) are exactly its SCC. Each SCC is labelled by its smallest
  dense id.

NetworkX yields SCCs in the order its depth-first search completes them; riptide yields the same sets ordered by
their first node in node order (as the connected components), so ``set(map(frozenset, ...))`` agrees, not the
generator's order.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from riptide import _device
from riptide.core.kernels import union_find
from riptide.core.kernels.scatter import scatter_min
from riptide.graph._checks import as_riptide_graph, require_directed, require_undirected
from riptide.graph.exceptions import NetworkXPointlessConcept

__all__ = ["connected_components", "number_connected_components", "is_connected", "weakly_connected_components",
           "number_weakly_connected_components", "is_weakly_connected", "component_roots",
           "strongly_connected_components", "number_strongly_connected_components", "is_strongly_connected",
           "strong_component_roots"]  # fmt: skip


def component_roots(G: Any) -> Any:
    """Per vertex, the smallest dense id in its (weakly) connected component (int64, on the device).

    >>> from riptide.graph import from_edgelist
    >>> component_roots(from_edgelist([(0, 1), (2, 3), (3, 1), (4, 5)])).tolist()
    [0, 0, 0, 0, 4, 4]
    """
    return union_find.component_roots(G.number_of_nodes(), G._src, G._dst, G.xp)


def _components(G: Any, roots: Any = None) -> Iterator[set]:
    """The sets of nodes sharing a root (the connected components by default), ordered by root."""
    roots = _device.to_host(component_roots(G) if roots is None else roots)  # one transfer: the answer is sets
    order = np.argsort(roots, kind="stable")
    sorted_roots = roots[order]
    cuts = np.flatnonzero(sorted_roots[1:] != sorted_roots[:-1]) + 1
    labels = G._host_labels()
    label_array = np.empty(len(labels), dtype=object)
    label_array[:] = labels
    for members in np.split(order, cuts) if len(order) else []:
        yield set(label_array[members].tolist())


def _count(G: Any, roots: Any = None) -> int:
    roots = component_roots(G) if roots is None else roots
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


# ---------------------------------------------------------------------- strongly connected components


def strong_component_roots(G: Any) -> Any:
    """Per vertex of a directed graph, the smallest dense id in its strongly connected component (int64, on the
    device); see the module docstring.

    >>> from riptide.graph import from_edgelist, DiGraph
    >>> strong_component_roots(from_edgelist([(0, 1), (1, 0), (1, 2), (2, 3), (3, 2)], create_using=DiGraph)).tolist()
    [0, 0, 2, 2]
    """
    xp = G.xp
    n = G.number_of_nodes()
    ids = xp.arange(n, dtype=np.int64)
    label = xp.full(n, -1, dtype=np.int64)
    loops = G._src == G._dst
    src, dst = G._src[~loops], G._dst[~loops]  # a self loop joins nothing
    while True:
        # trimming: no in-arc or no out-arc left -> an SCC of its own
        while True:
            open_ = label < 0
            has_in = xp.zeros(n, dtype=bool)
            has_out = xp.zeros(n, dtype=bool)
            has_in[dst] = True
            has_out[src] = True
            alone = xp.flatnonzero(open_ & ~(has_in & has_out))
            if alone.shape[0] == 0:  # one scalar read per trimming round
                break
            label[alone] = alone
            keep = (label[src] < 0) & (label[dst] < 0)
            src, dst = src[keep], dst[keep]
        if src.shape[0] == 0:  # one scalar read: every vertex left has been labelled by trimming
            break
        # colouring: the smallest id reaching each vertex
        color = xp.where(label < 0, ids, -1)
        while True:
            offered = color[src]
            better = xp.flatnonzero(offered < color[dst])
            if better.shape[0] == 0:  # one scalar read per propagation round
                break
            scatter_min(color, dst[better], offered[better], xp)
        # each root's SCC: the vertices of its colour that reach it
        inside = (color == ids) & (label < 0)
        same = color[src] == color[dst]
        csrc, cdst = src[same], dst[same]
        while True:
            grow = xp.flatnonzero(inside[cdst] & ~inside[csrc])
            if grow.shape[0] == 0:  # one scalar read per backward round
                break
            inside[csrc[grow]] = True
        label[inside] = color[inside]
        keep = (label[src] < 0) & (label[dst] < 0)
        src, dst = src[keep], dst[keep]
    return label


def strongly_connected_components(G: Any) -> Iterator[set]:
    """The strongly connected components of a directed graph, as sets of nodes (a generator; ordered by each
    component's first node, see the module docstring).

    >>> from riptide.graph import from_edgelist, DiGraph
    >>> list(strongly_connected_components(from_edgelist([(1, 2), (2, 1), (2, 3)], create_using=DiGraph)))
    [{1, 2}, {3}]
    """
    G = _checked(G, directed=True)
    return _components(G, strong_component_roots(G))


def number_strongly_connected_components(G: Any) -> int:
    """The number of strongly connected components of a directed graph."""
    G = _checked(G, directed=True)
    return _count(G, strong_component_roots(G))


def is_strongly_connected(G: Any) -> bool:
    """Whether every node of a directed graph reaches every other (NetworkXPointlessConcept for the null graph)."""
    G = _checked(G, directed=True)
    if G.number_of_nodes() == 0:
        raise NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return _count(G, strong_component_roots(G)) == 1
