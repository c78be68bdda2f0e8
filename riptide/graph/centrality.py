"""Centrality measures on the device: degree, betweenness (node and edge), closeness, Katz and eigenvector.

**Betweenness (Brandes), many sources at once.** NetworkX runs one search per source and walks its stack back.
Here a batch of B sources is searched together over a *state space* of B x n (source b, vertex v) -> ``b * n + v``:

1. distances from every source of the batch at once, by frontier relaxation over the states (the arcs of state
   ``(b, v)`` are v's CSR row, shifted to batch b); with unit weights every state improves once, so this is a
   breadth-first search, level by level;
2. the **tight arcs** ``(b, u) -> (b, v)`` with ``dist[u] + w == dist[v]`` (the shortest-path DAG of each source),
   grouped by tail state;
3. path counts ``sigma`` forward over that DAG in topological rounds (Kahn: a state is ready once all its tight
   in-arcs are done): ``sigma[v] += sigma[u]`` per tight arc, a scatter-add per round. Without weights the rounds
   are the BFS levels, so steps 1-3 are one breadth-first search that counts paths as it goes
   (:func:`_brandes_levels`, no tight-arc list);
4. dependencies backwards, rounds in reverse: ``delta[u] = sigma[u] * sum over tight arcs u->v of
   (1 + delta[v]) / sigma[v]``, a segmented sum over each tail's tight arcs (no atomics); the edge version adds
   ``sigma[u] * (1 + delta[v]) / sigma[v]`` to the arc's edge.

The batch size keeps ``B x max(n, arcs)`` within a state budget (device memory), so large graphs run in several
batches. The loops run once per round (a few scalar reads each), never per vertex, edge or source. Results are
NetworkX's sums in another order (equal within rounding). Zero-weight arcs can make the tight arcs cyclic (an
undirected zero-weight edge is tight both ways); such an arc is kept only where the breadth-first hop count over the
tight arcs grows (:func:`_fewer_hops`), which makes them a DAG again; NetworkX's heap counts paths on zero-weight
cycles inconsistently, so results agree where its counts are path counts (documented deviation for zero weights).
Negative weights: distances are relaxed until they settle (true shortest paths on a directed graph without a
negative cycle); a negative cycle, which every undirected negative edge is, raises Dijkstra's ValueError, where the
relaxation would never end.

**Multigraphs.** NetworkX's betweenness reads a multigraph through ``G[v]``: parallel edges are one neighbour,
at the least weight of the pair (its multigraph weight function), so they add no paths. The searches here run over
that view (:func:`_neighbour_csr`: one arc per (tail, head) pair, carrying the pair's first edge), and an edge
pair's betweenness is then split as NetworkX's ``_add_edge_keys`` does: evenly among the pair's edges of least
weight (all of them without weights), 0 for the others, keyed ``(u, v, key)``.

**k-sampled betweenness.** NetworkX draws the sources with ``seed.sample(list(G), k)`` (``py_random_state``); the
same call is made here on the host with the same random state (the node list is host data), so the sampled
sources, and therefore the results, equal NetworkX's for the same ``seed``.

**Closeness** needs the distances from every node (to every node, for a directed graph: the reverse graph's
searches): the same batched relaxation, B sources per batch, with per-source sums of the reached distances.

**Katz and eigenvector** are NetworkX's power iterations as sparse products over the arcs (one weighted bincount
of the arc targets per step), with its start vectors, stopping rules and normalizations; one scalar read per step.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from riptide import _device
from riptide.core.kernels.scatter import scatter_add, scatter_min
from riptide.core.kernels.sort import stable_argsort_with_values
from riptide.graph._arrays import bincount
from riptide.graph._checks import as_riptide_graph, require_not_multigraph
from riptide.graph.exceptions import NetworkXError, NetworkXPointlessConcept, NodeNotFound, \
    PowerIterationFailedConvergence  # fmt: skip
from riptide.graph.shortest_paths import _csr, dijkstra_distances, has_negative
from riptide.graph.traversal import find_node, gather_rows

__all__ = ["degree_centrality", "betweenness_centrality", "edge_betweenness_centrality", "closeness_centrality",
           "katz_centrality", "eigenvector_centrality"]  # fmt: skip

def degree_centrality(G: Any) -> Any:
    """Each node's degree divided by ``n - 1`` (in + out degree for a directed graph), as NetworkX.

    The answer is a :class:`~riptide.graph.results.NodeMap` (a dict-like mapping whose values stay on the device
    until read).

    >>> from riptide.graph import from_edgelist
    >>> degree_centrality(from_edgelist([(0, 1), (0, 2)]))
    {0: 1.0, 1: 0.5, 2: 0.5}
    """
    G = as_riptide_graph(G)
    n = G.number_of_nodes()
    if n <= 1:  # NetworkX: {node: 1} (an int) for the one-node graph, {} for the null graph
        return G._result_dict(G.xp.ones(n, dtype=np.int64))
    return G._result_dict(G._degrees("both") * (1.0 / (n - 1.0)))


# ---------------------------------------------------------------------- batched searches


def _state_budget(xp: Any) -> int:
    """States (and gathered arcs) one batch may hold: a few arrays of this many 8-byte values."""
    return 1 << (26 if xp is not np else 22)


def _batch_size(G: Any, k: int) -> int:
    per_source = max(G.number_of_nodes(), G._indices.shape[0], 1)
    return max(1, min(k, _state_budget(G.xp) // per_source))


def _arc_weights(G: Any, weight: Any, csr: tuple) -> Any:
    """float64 weight per arc of ``csr`` (None: every arc counts 1)."""
    if weight is None:
        return None
    if callable(weight):
        raise TypeError("riptide.graph takes weight as an edge attribute name; weight functions are not supported")
    return G._edge_weights(weight)[csr[2]]


def _neighbour_csr(G: Any, weight: Any) -> tuple[tuple, Any, Any]:
    """``(csr, arc weights, shares)``: the out-arcs as NetworkX's betweenness sees them, and per edge the share
    of its arc's edge score it gets (None: every edge has its own arc).

    A multigraph's parallel edges are one neighbour in NetworkX's ``G[v]`` (breadth-first search and Dijkstra
    alike), at the least weight of the pair; counting each parallel arc would count one path per edge. So the
    arcs are collapsed to one per (tail, head) pair: the arcs of each pair's first edge (both ends of an
    undirected pair, its row order kept), weighted with the pair's least weight. Edge scores land on that first
    edge; an edge's share of it is NetworkX's ``_add_edge_keys``: ``1 / (edges of least weight)`` for an edge of
    least weight (every edge, without weights), 0 for the others.
    """
    csr = _csr(G)
    if not G.is_multigraph() or G._src.shape[0] == 0 or callable(weight):  # (a weight function is refused there)
        return csr, _arc_weights(G, weight, csr), None
    xp, n, m = G.xp, G.number_of_nodes(), G._src.shape[0]
    # the edges' pairs (src <= dst when undirected, so both directions of a pair are one): a stable sort puts a
    # pair's edges side by side, its first edge (lowest id) at the start of its run
    order, keys = stable_argsort_with_values(G._src * max(n, 1) + G._dst, xp)
    starts = xp.ones(m, dtype=bool)
    starts[1:] = keys[1:] != keys[:-1]
    pair = xp.empty(m, dtype=np.int64)
    pair[order] = xp.cumsum(starts) - 1
    starts = xp.flatnonzero(starts)
    lead = order[starts][pair]  # per edge: its pair's first edge
    w = G._edge_weights(weight)  # 1 for every edge without weights
    least = xp.full(starts.shape[0], np.inf)
    scatter_min(least, pair, w, xp)
    ties = w == least[pair]
    shares = ties / bincount(pair, starts.shape[0], xp, weights=ties.astype(np.float64))[pair]
    _, targets, arc_edge = csr
    keep = arc_edge == lead[arc_edge]  # a leading edge's arcs: one per (tail, head) pair, in row order
    counts = xp.zeros(n + 1, dtype=np.int64)
    counts[1:] = bincount(G._arc_src[keep], n, xp)
    collapsed = (xp.cumsum(counts), targets[keep], arc_edge[keep])
    arc_weights = None if weight is None else least[pair[collapsed[2]]]
    return collapsed, arc_weights, (lead, shares)


def _brandes_levels(G: Any, sources: Any, csr: tuple, edge_scores: Any = None) -> tuple[Any, Any]:
    """Unweighted :func:`_brandes_batch`: the topological rounds are the BFS levels, so the path counts are
    summed while the search runs and no tight-arc list is kept (each level's arcs are gathered once forward and
    once backward)."""
    xp = G.xp
    n = G.number_of_nodes()
    offsets, targets, arc_edge = csr
    B = sources.shape[0]
    size = B * n
    states = xp.arange(B, dtype=np.int64) * n + sources
    level = xp.full(size, -1, dtype=np.int32)
    level[states] = 0
    sigma = xp.zeros(size, dtype=np.float64)
    sigma[states] = 1.0
    owner = xp.empty(size, dtype=np.int64)  # dedupes the states reached by several arcs (no sort)
    levels = [states]
    depth = 0
    frontier = states
    while True:
        vertex = frontier % n
        rows, positions = gather_rows(offsets, vertex, xp)
        heads = (frontier - vertex)[rows] + targets[positions]
        new = heads[level[heads] < 0]
        level[new] = depth + 1
        tight = xp.flatnonzero(level[heads] == depth + 1)
        scatter_add(sigma, heads[tight], sigma[frontier][rows[tight]], xp)
        order = xp.arange(new.shape[0], dtype=np.int64)
        owner[new] = order
        frontier = new[owner[new] == order]
        if frontier.shape[0] == 0:  # one scalar read per level
            break
        levels.append(frontier)
        depth += 1
    delta = xp.zeros(size, dtype=np.float64)
    for depth in range(len(levels) - 2, -1, -1):  # the deepest level has no successors: its delta is 0
        frontier = levels[depth]
        vertex = frontier % n
        rows, positions = gather_rows(offsets, vertex, xp)
        heads = (frontier - vertex)[rows] + targets[positions]
        tight = xp.flatnonzero(level[heads] == depth + 1)
        h, r = heads[tight], rows[tight]
        coeff = (1.0 + delta[h]) / sigma[h]
        delta[frontier] = sigma[frontier] * bincount(r, frontier.shape[0], xp, weights=coeff)
        if edge_scores is not None:
            scatter_add(edge_scores, arc_edge[positions[tight]], sigma[frontier][r] * coeff, xp)
    delta[states] = 0.0
    return delta, level >= 0


def _brandes_batch(G: Any, sources: Any, csr: tuple, arc_weights: Any, edge_scores: Any = None,
                   negative: bool = False) -> tuple[Any, Any]:  # fmt: skip
    """``(delta, reached)`` over the states of one batch (see the module docstring); adds the edge dependencies
    to ``edge_scores`` (per edge id) when given."""
    if arc_weights is None:
        return _brandes_levels(G, sources, csr, edge_scores)
    xp = G.xp
    n = G.number_of_nodes()
    offsets, targets, arc_edge = csr
    B = sources.shape[0]
    size = B * n
    states = xp.arange(B, dtype=np.int64) * n + sources
    dist = dijkstra_distances(G, sources, csr, arc_weights, negative=negative)

    # the tight arcs, grouped by tail state (reached states in increasing order)
    reached = xp.flatnonzero(xp.isfinite(dist))
    vertex = reached % n
    rows, positions = gather_rows(offsets, vertex, xp)
    heads = (reached - vertex)[rows] + targets[positions]
    step = 1.0 if arc_weights is None else arc_weights[positions]
    tight = xp.flatnonzero((dist[reached][rows] + step == dist[heads]) & (heads != reached[rows]))
    t_rows, t_heads, t_arcs = rows[tight], heads[tight], positions[tight]
    t_offsets = xp.zeros(reached.shape[0] + 1, dtype=np.int64)
    xp.cumsum(bincount(t_rows, reached.shape[0], xp), out=t_offsets[1:])
    level_arcs = dist[reached[t_rows]] == dist[t_heads]  # zero-weight tight arcs: they can close cycles
    if bool(level_arcs.any()):  # one scalar read per batch (only graphs with zero weights get here)
        keep = ~level_arcs | _fewer_hops(reached, states, t_offsets, t_rows, t_heads, xp)
        t_rows, t_heads, t_arcs = t_rows[keep], t_heads[keep], t_arcs[keep]
        t_offsets = xp.zeros(reached.shape[0] + 1, dtype=np.int64)
        xp.cumsum(bincount(t_rows, reached.shape[0], xp), out=t_offsets[1:])

    # path counts, forward in topological rounds
    waiting = bincount(t_heads, size, xp)
    sigma = xp.zeros(size, dtype=np.float64)
    sigma[states] = 1.0
    owner = xp.empty(size, dtype=np.int64)  # dedupes the states made ready by several arcs (no sort)
    rounds = []
    frontier = xp.searchsorted(reached, states)  # rows of ``reached``
    while frontier.shape[0]:  # one scalar read per round
        rounds.append(frontier)
        f_rows, f_arcs = gather_rows(t_offsets, frontier, xp)
        if f_arcs.shape[0] == 0:  # one scalar read: nothing leaves this round
            break
        h = t_heads[f_arcs]
        scatter_add(sigma, h, sigma[reached[frontier]][f_rows], xp)
        scatter_add(waiting, h, xp.full(h.shape[0], -1, dtype=np.int64), xp)
        ready = h[waiting[h] == 0]
        # one arc per ready state: each writes its position and the one whose write landed keeps the state
        positions = xp.arange(ready.shape[0], dtype=np.int64)
        owner[ready] = positions
        ready = ready[owner[ready] == positions]
        frontier = xp.searchsorted(reached, ready)

    # dependencies, backwards
    delta = xp.zeros(size, dtype=np.float64)
    for frontier in reversed(rounds):
        f_rows, f_arcs = gather_rows(t_offsets, frontier, xp)
        h = t_heads[f_arcs]
        coeff = (1.0 + delta[h]) / sigma[h]
        tails = reached[frontier]
        delta[tails] = sigma[tails] * bincount(f_rows, frontier.shape[0], xp, weights=coeff)
        if edge_scores is not None:
            scatter_add(edge_scores, arc_edge[t_arcs[f_arcs]], sigma[tails][f_rows] * coeff, xp)
    delta[states] = 0.0
    return delta, xp.isfinite(dist)


def _fewer_hops(reached: Any, states: Any, t_offsets: Any, t_rows: Any, t_heads: Any, xp: Any) -> Any:
    """Per tight arc, whether its tail is fewer tight arcs from the source than its head (breadth-first levels
    over the tight arcs, batched like the rest).

    Zero-weight arcs join vertices at the same distance, and an undirected one is a tight arc both ways: a cycle
    that no topological round can order. Keeping a zero-weight tight arc only where the hop count grows makes the
    shortest-path graph a DAG again (each zero-weight stretch of a path counted once, in the direction it was
    first reached); positive arcs are all kept. Along zero-weight stretches this counts the paths of fewest hops,
    which is NetworkX's answer with every zero weight made a tiny positive one (tested). NetworkX's own heap counts
    on zero-weight cycles are not path counts (its settled vertices keep gaining predecessors): where they are (a
    zero-weight edge between two endpoints) the results agree.
    """
    head_rows = xp.searchsorted(reached, t_heads)  # each tight arc's head among the reached states, once
    hops = xp.full(reached.shape[0], -1, dtype=np.int64)
    owner = xp.empty(reached.shape[0], dtype=np.int64)
    frontier = xp.searchsorted(reached, states)
    hops[frontier] = 0
    depth = 0
    while frontier.shape[0]:  # one scalar read per level
        _, f_arcs = gather_rows(t_offsets, frontier, xp)
        nxt = head_rows[f_arcs]
        nxt = nxt[hops[nxt] < 0]
        depth += 1
        hops[nxt] = depth
        # the level's distinct states, in O(level) (a scan of every state per level would be O(levels x states)):
        # of the arcs reaching a state, the one whose write to ``owner`` won keeps it
        order = xp.arange(nxt.shape[0], dtype=np.int64)
        owner[nxt] = order
        frontier = nxt[owner[nxt] == order]
    return hops[t_rows] < hops[head_rows]


def _sources(G: Any, k: Any, seed: Any) -> tuple[list | None, Any]:
    """``(sampled nodes or None, their dense ids)``: every node, or NetworkX's ``seed.sample(list(G), k)``."""
    xp = G.xp
    n = G.number_of_nodes()
    if k is None or k == n:
        return None, xp.arange(n, dtype=np.int64)
    rng = _py_random_state(seed)
    nodes = rng.sample(list(G), k)  # NetworkX's own draw, on the host, from the same random state
    index = G._index()
    return nodes, _device.to_device(np.asarray([index[v] for v in nodes], dtype=np.int64), xp)


def _py_random_state(seed: Any) -> Any:
    try:
        from networkx.utils import create_py_random_state
    except ImportError:  # pragma: no cover - networkx is installed wherever the tests run
        import random

        if seed is None or seed is random:
            return random._inst
        return seed if isinstance(seed, random.Random) else random.Random(seed)
    return create_py_random_state(seed)


def _rescale_factors(n: int, normalized: bool, directed: bool, endpoints: bool, k: int | None
                     ) -> tuple[float, float] | None:  # fmt: skip
    """NetworkX's ``_rescale``: ``(factor for sampled sources, factor for the other nodes)``, or None (as is)."""
    N = n if endpoints else n - 1
    if N < 2:
        return None
    K = N if k is None else k
    if k is None or endpoints:
        if normalized:
            scale = 1 / (K * (N - 1))
        else:
            scale = N / (K * (1 if directed else 2))
        return scale, scale
    if normalized:
        source = 1 / ((K - 1) * (N - 1)) if K > 1 else math.nan
        return source, 1 / (K * (N - 1))
    correction = 1 if directed else 2
    return (N / ((K - 1) * correction) if K > 1 else math.nan), N / (K * correction)


def _batches(G: Any, ids: Any):
    step = _batch_size(G, int(ids.shape[0]))
    for start in range(0, int(ids.shape[0]), step):
        yield ids[start:start + step]


def betweenness_centrality(G: Any, k: Any = None, normalized: bool = True, weight: Any = None,
                           endpoints: bool = False, seed: Any = None) -> Any:  # fmt: skip
    """The fraction of shortest paths through each node (NetworkX's ``betweenness_centrality``), exact or over
    ``k`` sampled sources (the same sample as NetworkX for the same ``seed``).

    >>> from riptide.graph import from_edgelist
    >>> betweenness_centrality(from_edgelist([(0, 1), (1, 2), (2, 3)]))
    {0: 0.0, 1: 0.6666666666666666, 2: 0.6666666666666666, 3: 0.0}
    """
    G = as_riptide_graph(G)
    xp = G.xp
    n = G.number_of_nodes()
    csr, arc_weights, _ = _neighbour_csr(G, weight)
    negative = has_negative(arc_weights)  # one scalar read per call (not per batch)
    sampled, ids = _sources(G, k, seed)
    scores = xp.zeros(n, dtype=np.float64)
    for batch in _batches(G, ids):
        delta, reached = _brandes_batch(G, batch, csr, arc_weights, negative=negative)
        B = batch.shape[0]
        scores += delta.reshape(B, n).sum(axis=0)
        if endpoints:
            reached = reached.reshape(B, n)
            scores += reached.sum(axis=0)  # +1 per reached node, the sources' own counted once too many below
            scatter_add(scores, batch, (reached.sum(axis=1) - 2).astype(np.float64), xp)
    factors = _rescale_factors(n, normalized, G.is_directed(), endpoints, None if sampled is None else len(ids))
    if factors is not None:
        source_scale, other_scale = factors
        if source_scale == other_scale:
            scores = scores * source_scale
        else:
            scale = xp.full(n, other_scale)
            scale[ids] = source_scale
            scores = scores * scale
    return G._result_dict(scores)


def edge_betweenness_centrality(G: Any, k: Any = None, normalized: bool = True, weight: Any = None,
                                seed: Any = None) -> dict:  # fmt: skip
    """The fraction of shortest paths through each edge, ``{(u, v): value}`` over ``G.edges()`` (a dict; keyed
    ``(u, v, key)`` for a multigraph, a pair's value split among its edges of least weight, as NetworkX).

    >>> from riptide.graph import MultiGraph, from_edgelist
    >>> edge_betweenness_centrality(from_edgelist([(0, 1), (1, 2)]), normalized=False)
    {(0, 1): 2.0, (1, 2): 2.0}
    >>> edge_betweenness_centrality(from_edgelist([(0, 1), (0, 1), (1, 2)], create_using=MultiGraph),
    ...                             normalized=False)
    {(0, 1, 0): 1.0, (0, 1, 1): 1.0, (1, 2, 0): 2.0}
    """
    G = as_riptide_graph(G)
    xp = G.xp
    n = G.number_of_nodes()
    csr, arc_weights, shares = _neighbour_csr(G, weight)
    negative = has_negative(arc_weights)  # one scalar read per call (not per batch)
    sampled, ids = _sources(G, k, seed)
    scores = xp.zeros(G.number_of_edges(), dtype=np.float64)
    for batch in _batches(G, ids):
        _brandes_batch(G, batch, csr, arc_weights, scores, negative)
    factors = _rescale_factors(n, normalized, G.is_directed(), True, None if sampled is None else len(ids))
    if factors is not None:
        scores = scores * factors[0]
    if shares is not None:  # a multigraph: each pair's score (on its first edge) split among its edges
        lead, share = shares
        scores = scores[lead] * share
    return dict(zip(G.edges(keys=True), _device.to_host(scores).tolist()))  # (u, v[, key]) in G.edges order


def closeness_centrality(G: Any, u: Any = None, distance: Any = None, wf_improved: bool = True) -> Any:
    """Closeness of each node (or of ``u``): reached nodes - 1 over the sum of their distances *to* the node,
    scaled by the reached share when ``wf_improved`` (Wasserman-Faust), as NetworkX.

    >>> from riptide.graph import from_edgelist
    >>> closeness_centrality(from_edgelist([(0, 1), (1, 2)]))
    {0: 0.6666666666666666, 1: 1.0, 2: 0.6666666666666666}
    """
    G = as_riptide_graph(G)
    xp = G.xp
    n = G.number_of_nodes()
    csr = _csr(G, reverse=True)  # distances to the node: searches over the reverse graph
    arc_weights = _arc_weights(G, distance, csr)
    if u is not None:
        found = find_node(G, u)
        if found is None:
            raise NodeNotFound(f"Node {u} not found in graph" if distance is not None else f"Source {u} is not in G")
        ids = xp.asarray([found], dtype=np.int64)
    else:
        ids = xp.arange(n, dtype=np.int64)
    values = []
    negative = has_negative(arc_weights)  # one scalar read per call (not per batch)
    for batch in _batches(G, ids):
        dist = dijkstra_distances(G, batch, csr, arc_weights, negative=negative).reshape(batch.shape[0], n)
        finite = xp.isfinite(dist)
        total = xp.where(finite, dist, 0.0).sum(axis=1)
        others = finite.sum(axis=1) - 1.0
        ok = (total > 0) & (n > 1)
        value = xp.where(ok, others / xp.where(ok, total, 1.0), 0.0)
        if wf_improved and n > 1:
            value = value * (others / (n - 1))
        values.append(value)
    result = xp.concatenate(values) if values else xp.zeros(0, dtype=np.float64)
    if u is not None:
        return float(_device.to_host(result)[0])  # one scalar read: the answer
    return G._result_dict(result)


# ---------------------------------------------------------------------- power iterations


def _spread(G: Any, x: Any, arc_weights: Any) -> Any:
    """``y[v] = sum over arcs u -> v of x[u] * w``: NetworkX's ``x[nbr] += xlast[n] * w`` over ``G[n]``."""
    return bincount(G._indices, G.number_of_nodes(), G.xp, weights=x[G._arc_src] * arc_weights)


def katz_centrality(G: Any, alpha: float = 0.1, beta: Any = 1.0, max_iter: int = 1000, tol: float = 1.0e-6,
                    nstart: dict | None = None, normalized: bool = True, weight: Any = None) -> Any:  # fmt: skip
    """Katz centrality by NetworkX's power iteration ``x <- alpha * A^T x + beta``.

    >>> from riptide.graph import from_edgelist
    >>> {k: round(v, 6) for k, v in katz_centrality(from_edgelist([(0, 1), (1, 2)])).items()}
    {0: 0.559885, 1: 0.610784, 2: 0.559885}
    """
    G = as_riptide_graph(G)
    require_not_multigraph(G)
    n = G.number_of_nodes()
    xp = G.xp
    if n == 0:
        return {}
    try:
        b = xp.full(n, float(beta))
    except (TypeError, ValueError, AttributeError) as err:
        if set(beta) != set(G):
            raise NetworkXError("beta dictionary must have a value for every node") from err
        b = G._vector_from_dict(beta)
    x = xp.zeros(n, dtype=np.float64) if nstart is None else G._vector_from_dict(nstart)
    arc_weights = G._arc_weights(weight)
    for _ in range(max_iter):
        xlast = x
        x = alpha * _spread(G, xlast, arc_weights) + b
        if float(xp.absolute(x - xlast).sum()) < n * tol:  # one scalar read per iteration
            if normalized:
                norm = float(xp.sqrt((x * x).sum()))  # one scalar read
                x = x * (1.0 / norm if norm else 1.0)
            return G._result_dict(x)
    raise PowerIterationFailedConvergence(max_iter)


def eigenvector_centrality(G: Any, max_iter: int = 100, tol: float = 1.0e-6, nstart: dict | None = None,
                           weight: Any = None) -> Any:  # fmt: skip
    """Eigenvector centrality by NetworkX's power iteration on ``A + I`` (in-edges for a directed graph).

    >>> from riptide.graph import from_edgelist
    >>> {k: round(v, 6) for k, v in eigenvector_centrality(from_edgelist([(0, 1), (1, 2)])).items()}
    {0: 0.5, 1: 0.707107, 2: 0.5}
    """
    G = as_riptide_graph(G)
    require_not_multigraph(G)
    n = G.number_of_nodes()
    xp = G.xp
    if n == 0:
        raise NetworkXPointlessConcept("cannot compute centrality for the null graph")
    if nstart is None:
        x = xp.ones(n, dtype=np.float64)
    else:
        if all(v == 0 for v in nstart.values()):
            raise NetworkXError("initial vector cannot have all zero values")
        x = G._vector_from_dict(nstart)
    x = x / x.sum()
    arc_weights = G._arc_weights(weight) if weight else xp.ones(G._indices.shape[0], dtype=np.float64)
    for _ in range(max_iter):
        xlast = x
        x = xlast + _spread(G, xlast, arc_weights)
        norm = xp.sqrt((x * x).sum())  # stays on the device: a zero norm divides by 1
        x = x / xp.where(norm == 0, 1.0, norm)
        if float(xp.absolute(x - xlast).sum()) < n * tol:  # one scalar read per iteration
            return G._result_dict(x)
    raise PowerIterationFailedConvergence(max_iter)

