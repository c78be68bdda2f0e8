"""k-cores and k-trusses: ``core_number``, ``k_core``, ``k_shell``, ``k_crust``, ``k_corona``, ``k_truss``,
``onion_layers``.

**core_number** by level-synchronous peeling. The core number of v is the largest k such that v belongs to a
subgraph in which every vertex has degree >= k. Peeling finds it without NetworkX's bucket queue: keep the current
level k (the smallest degree among the remaining vertices, never decreasing); every remaining vertex of degree
<= k is removed *at once* with core number k, and each of its arcs takes one off its neighbour's degree (a
bincount of the removed vertices' CSR rows); repeat at the same k until no vertex of degree <= k remains, then
raise k. Removing a batch of vertices of degree <= k together gives the same numbers as removing them one by one:
none of them can end up in the (k+1)-core. Each round costs work proportional to the removed vertices' arcs plus
one scalar read (is anything left at this level?). A directed graph peels the in- and out-arcs together (NetworkX's
``all_neighbors``: a reciprocated pair counts twice).

**k_truss** removes, round after round, every edge that closes fewer than ``k - 2`` triangles in the current graph
(edge supports from :func:`riptide.graph.cluster.enumerate_triangles`), then the isolated nodes, as NetworkX does.

**onion_layers** (Hébert-Dufresne et al.) peels as core_number does, numbering each removal round as a layer.

The subgraph functions return riptide graphs (NetworkX returns copies of induced subgraphs), in the input's node
order with edge attributes kept.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from riptide.core.kernels.segments import gather_segments, take_offsets
from riptide.graph._arrays import bincount
from riptide.graph._checks import as_riptide_graph, require_undirected
from riptide.graph.exceptions import NetworkXNotImplemented

__all__ = ["core_number", "k_core", "k_shell", "k_crust", "k_corona", "k_truss", "onion_layers"]

_SELF_LOOPS = ("Input graph has self loops which is not permitted; Consider using "
               "G.remove_edges_from(nx.selfloop_edges(G)).")  # fmt: skip


def _checked(G: Any, directed_ok: bool = True, loops_message: str = _SELF_LOOPS) -> Any:
    G = as_riptide_graph(G)
    if G.is_multigraph():
        raise NetworkXNotImplemented("not implemented for multigraph type")
    if not directed_ok:
        require_undirected(G)
    if bool((G._src == G._dst).any()):  # one scalar read: NetworkX refuses self loops
        raise NetworkXNotImplemented(loops_message)
    return G


def _rows(G: Any) -> list[tuple[Any, Any]]:
    """The CSRs whose rows list each vertex's neighbours: out-arcs, and in-arcs for a directed graph."""
    csr = [(G._offsets, G._indices)]
    if G.is_directed():
        csr.append(G._in_arcs())
    return csr


def _neighbours_of(csrs: list[tuple[Any, Any]], vertices: Any, xp: types.ModuleType) -> Any:
    """The neighbours of ``vertices`` (with repeats: one per arc), from every CSR."""
    parts = []
    for offsets, indices in csrs:
        starts, new_offsets = take_offsets(offsets, vertices, xp)
        parts.append(gather_segments(indices, starts, new_offsets, xp))
    return parts[0] if len(parts) == 1 else xp.concatenate(parts)


def _peel(G: Any) -> tuple[Any, Any]:
    """``(core number, removal round)`` per vertex by level-synchronous peeling (see the module docstring)."""
    xp, n = G.xp, G.number_of_nodes()
    degree = G._degrees("both").astype(np.int64)
    core = xp.zeros(n, dtype=np.int64)
    layer = xp.zeros(n, dtype=np.int64)
    alive = xp.ones(n, dtype=bool)
    csrs = _rows(G)
    big = np.iinfo(np.int64).max
    k, remaining, round_ = 0, n, 0
    while remaining:
        k = max(k, int(xp.where(alive, degree, big).min()))  # one scalar read per level: the smallest degree
        while True:
            peeled = xp.flatnonzero(alive & (degree <= k))
            count = int(peeled.shape[0])  # one scalar read per round: the removed vertices
            if count == 0:
                break
            round_ += 1
            core[peeled] = k
            layer[peeled] = round_
            alive[peeled] = False
            remaining -= count
            degree = degree - bincount(_neighbours_of(csrs, peeled, xp), n, xp)
    return core, layer


def core_number(G: Any) -> Any:
    """The core number of each node (NetworkX's ``core_number``): a :class:`~riptide.graph.results.NodeMap`.
    Graphs with self loops raise NetworkXNotImplemented, as in NetworkX.

    >>> from riptide.graph import from_edgelist
    >>> core_number(from_edgelist([(0, 1), (1, 2), (2, 0), (2, 3)]))
    {0: 2, 1: 2, 2: 2, 3: 1}
    """
    G = _checked(G)
    return G._result_dict(_peel(G)[0])


def _core_values(G: Any, core_number: Any) -> Any:
    if core_number is None:
        return _peel(G)[0]
    return G._vector_from_dict(dict(core_number)).astype(np.int64)


def _subgraph(G: Any, keep_node: Any) -> Any:
    xp = G.xp
    keep_edge = keep_node[G._src] & keep_node[G._dst] if G.number_of_nodes() else xp.zeros(0, dtype=bool)
    return G._induced(keep_node, xp.flatnonzero(keep_edge))


def _max_core(G: Any, core: Any) -> int:
    return int(core.max()) if core.shape[0] else 0  # one scalar read: the default k


def _core_input(G: Any, core_number: Any) -> tuple[Any, Any]:
    """The graph (self loops refused only when the core numbers are computed here) and the core numbers."""
    G = as_riptide_graph(G)
    if G.is_multigraph():
        raise NetworkXNotImplemented("not implemented for multigraph type")
    if core_number is None:
        G = _checked(G)
    return G, _core_values(G, core_number)


def k_core(G: Any, k: int | None = None, core_number: dict | None = None) -> Any:
    """The k-core: the subgraph of the nodes of core number >= ``k`` (the largest core by default).

    >>> from riptide.graph import from_edgelist
    >>> sorted(k_core(from_edgelist([(0, 1), (1, 2), (2, 0), (2, 3)])).nodes)
    [0, 1, 2]
    """
    G, core = _core_input(G, core_number)
    if k is None:
        if G.number_of_nodes() == 0:
            raise ValueError("max() arg is an empty sequence")
        k = _max_core(G, core)
    return _subgraph(G, core >= k)


def k_shell(G: Any, k: int | None = None, core_number: dict | None = None) -> Any:
    """The k-shell: the subgraph of the nodes of core number exactly ``k`` (the largest by default).

    >>> from riptide.graph import from_edgelist
    >>> sorted(k_shell(from_edgelist([(0, 1), (1, 2), (2, 0), (2, 3)]), 1).nodes)
    [3]
    """
    G, core = _core_input(G, core_number)
    if k is None:
        if G.number_of_nodes() == 0:
            raise ValueError("max() arg is an empty sequence")
        k = _max_core(G, core)
    return _subgraph(G, core == k)


def k_crust(G: Any, k: int | None = None, core_number: dict | None = None) -> Any:
    """The k-crust: the subgraph of the nodes of core number <= ``k`` (one below the largest by default).

    >>> from riptide.graph import from_edgelist
    >>> sorted(k_crust(from_edgelist([(0, 1), (1, 2), (2, 0), (2, 3)])).nodes)
    [3]
    """
    G, core = _core_input(G, core_number)
    if k is None:
        if G.number_of_nodes() == 0:
            raise ValueError("max() arg is an empty sequence")
        k = _max_core(G, core) - 1
    return _subgraph(G, core <= k)


def k_corona(G: Any, k: int, core_number: dict | None = None) -> Any:
    """The k-corona: the nodes of the k-core with exactly ``k`` neighbours in it.

    >>> from riptide.graph import from_edgelist
    >>> sorted(k_corona(from_edgelist([(0, 1), (1, 2), (2, 0), (2, 3)]), 2).nodes)
    [0, 1, 2]
    """
    G, core = _core_input(G, core_number)
    xp, n = G.xp, G.number_of_nodes()
    in_core = core >= k
    # per node, the neighbours (NetworkX's G[v]: successors in a directed graph) whose core number is >= k
    arc_ok = in_core[G._indices]
    count = bincount(G._arc_src[arc_ok], n, xp)
    return _subgraph(G, (core == k) & (count == k))


def k_truss(G: Any, k: int) -> Any:
    """The k-truss: the largest subgraph in which every edge closes at least ``k - 2`` triangles (NetworkX's
    ``k_truss``: undirected graphs without self loops; isolated nodes are dropped).

    >>> from riptide.graph import from_edgelist
    >>> sorted(k_truss(from_edgelist([(0, 1), (1, 2), (2, 0), (2, 3)]), 3).edges())
    [(0, 1), (0, 2), (1, 2)]
    """
    from riptide.graph.cluster import enumerate_triangles

    G = _checked(G, directed_ok=False)
    xp, n = G.xp, G.number_of_nodes()
    edges = xp.arange(G._src.shape[0], dtype=np.int64)  # the surviving edges (G's edge ids; src < dst)
    while True:
        a, b = G._src[edges], G._dst[edges]
        support = xp.zeros(edges.shape[0], dtype=np.int64)
        for _, _, _, e1, e2, e3 in enumerate_triangles(n, a, b, xp):
            for e in (e1, e2, e3):
                support += bincount(e, edges.shape[0], xp)
        keep = support >= k - 2
        dropped = int((~keep).sum())  # one scalar read per round: did any edge go?
        edges = edges[keep]
        if dropped == 0:
            break
    keep_node = xp.zeros(n, dtype=bool)
    keep_node[G._src[edges]] = True
    keep_node[G._dst[edges]] = True
    return G._induced(keep_node, edges)


def onion_layers(G: Any) -> Any:
    """The onion decomposition layer of each node (NetworkX's ``onion_layers``): a
    :class:`~riptide.graph.results.NodeMap`. Undirected graphs without self loops.

    >>> from riptide.graph import from_edgelist
    >>> onion_layers(from_edgelist([(0, 1), (1, 2), (2, 0), (2, 3)]))
    {0: 2, 1: 2, 2: 2, 3: 1}
    """
    G = _checked(G, directed_ok=False, loops_message=_SELF_LOOPS.replace("has self loops", "contains self loops"))
    # A peeling round is an onion layer. NetworkX puts the isolated nodes alone in layer 1: so does peeling (the
    # first round, at k = 0, removes exactly the degree-0 nodes, and removing them changes no other degree).
    return G._result_dict(_peel(G)[1])
