"""Community detection: Louvain, Leiden, label propagation and modularity, with whole-array work per sweep.

**Louvain** (NetworkX's ``louvain_communities`` / ``louvain_partitions``). NetworkX visits the nodes one at a time
in a shuffled order, moving each into the neighbouring community of largest modularity gain. Here every vertex
decides at once (a *sweep*), from the graph of the current level held as an edge list:

1. each arc ``u -> v`` (both directions of every non-loop edge) names the candidate community ``com[v]``; one sort
   of the keys ``u * n + com[v]`` and a segmented sum give ``w(u, C)``, the weight from ``u`` into each
   neighbouring community (the sorted arcs are scored as they are, each one standing for its (u, C) pair: a
   compacted list of pairs would cost the device a sync per compaction);
2. each (u, C) pair is scored with NetworkX's gain formula (``w(u, C) / m - resolution * Stot[C] * k_u / 2m^2``,
   or the directed form of Dugué and Perez); a scatter-max per vertex finds the best score, a scatter-min the
   smallest community reaching it (the tie rule), and the vertex moves when the best beats staying (NetworkX's
   ``gain > 0``);
3. **conflict rules**: all vertices moving together can undo one another (two singletons swapping forever, many
   vertices piling into a community whose ``Stot`` was read before they arrived). In each sweep only a
   pseudo-random half of the vertices may move (a hash of the vertex, the seed and the draw; only their arcs are
   sorted); on levels of more than 1000 vertices the next sweep moves its complement, then a new half is drawn,
   so that every vertex has its chance every two sweeps. A singleton joins another singleton only if that one
   has the smaller id, so two vertices never trade places. On small levels (<= 64 vertices) every vertex
   decides, the drawn half moves (its complement where the drawn half has no move: no sweep is spent finding
   that) and at most one vertex joins each community per sweep. A sweep that lowers modularity anyway is undone.
   (Measured on the test graphs: moving half the vertices reaches NetworkX's modularity; moving to smaller /
   larger ids on alternate sweeps fell 0.02 short on a Barabasi-Albert graph; letting every vertex move at once
   stalls at a poor partition; one joiner per community on large levels costs 4x the sweeps for lower
   modularity. Complementary halves on large levels: on the 1e6-edge power-law bench graph 12% fewer sweeps and
   the same modularity on average over seeds.)

A level ends when two sweeps together gain less than 2e-4 modularity (the tail of tiny gains costs sweeps that
the next level's coarser moves make up for: on the bench graph 2e-4 rather than 1e-4 saves a tenth of the
device sweeps for no loss on average; levels of <= 64 vertices sweep to the end), when both halves of one draw
move nothing (every vertex has had its chance: converged), or after three undone sweeps in a row. The
communities then become the vertices of the next level (**aggregation**: communities renumbered densely in label
order, edges mapped to their communities' ids, coalesced by a sort and a segmented sum, internal weight kept as
self loops, exactly NetworkX's ``_gen_graph``). Levels repeat until a level's modularity gain is ``<= threshold``
or no vertex moved, as NetworkX's loop. A multigraph's parallel edges simply add up, as NetworkX's conversion
sums them. Vertex ids of a level are int32 where they fit (1e8 edges: 3e8 ids in the edge list and arcs), sort
keys int64.

*Costs on a GPU.* A device sweep costs about the same few milliseconds of launches, a sort and syncs whatever
the level's size, so the count of sweeps is the cost. Each sweep computes the new partition's modularity from
the community totals the next sweep starts from, and reads it back together with the number of moves: one read
per sweep (and one sync for the size of the active arcs). A level's starting modularity is the previous
level's final one (aggregation keeps it). The last levels, of at most ``2**15`` arcs (a few hundred vertices;
every level of a small graph), run on the host with NumPy, where a sweep costs a fraction of a millisecond: the
level's edges are copied to the host once, and each level's labels come back (a small transfer).

*What "same result" means.* The sequential algorithm's answer depends on its random visiting order; this one is
deterministic for a given ``seed`` (which picks the halves of vertices allowed to move; ``None`` is seed 0; a
``random.Random``, as NetworkX's dispatch passes, gives one draw of it). Results are the same type (a list of
sets of the original nodes, each node in exactly one set), and the partition's modularity is within a small
margin of NetworkX's (tested: >= NetworkX's mean over seeds - 0.01 on the karate club, Les Miserables, planted
partitions, Barabasi-Albert and power-law graphs). Communities are listed in NetworkX's way: by label, a
community's label being the id of the vertex whose singleton community it grew from (at the first level; the
communities of a level are numbered in label order to become the next level's vertices).

**Leiden** (NetworkX >= 3.5 declares ``leiden_communities``; NetworkX itself has no implementation): per level,
local moving (from the previous level's communities), communities cut into their connected pieces (Leiden's
guarantee: every community returned is connected), then the *refinement*: local moving again from singletons,
each vertex confined to its community; the refined communities become the next level's vertices, each starting
in its parent community.

**Label propagation** (``label_propagation_communities``, semi-synchronous, Cordasco and Gargano): NetworkX colours
the graph greedily (nodes by decreasing degree), then updates one colour class at a time. Nodes of one colour are
never adjacent, so updating a whole class at once is exactly NetworkX's sequential loop: each node takes the most
frequent label among its neighbours (one sort of ``(node, label)`` pairs and a segmented count), keeping its own
label on a tie when it is among the most frequent, else the largest (Prec-Max). The greedy colouring is computed
in parallel rounds (Jones-Plassmann with the greedy order as priority, which gives exactly the sequential greedy
colouring), so the result is NetworkX's. (A graph whose degree order makes long chains, such as a long path,
needs as many colouring rounds as the chain is long.)

**asyn_lpa_communities** (random in NetworkX) updates colour classes in a random order with random tie-breaking;
see its docstring for what matches.

**modularity** (NetworkX's ``modularity``): per-community internal weight and degree sums from one pass over the
edges, with NetworkX's ``NotAPartition`` check.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import numpy as np

from riptide import _device
from riptide.core.kernels.numpy_compat import where
from riptide.core.kernels.scan import running
from riptide.core.kernels.scatter import scatter_max, scatter_min
from riptide.core.kernels.sort import inverse_permutation, stable_argsort, stable_argsort_with_values
from riptide.graph._arrays import bincount
from riptide.graph._checks import as_riptide_graph, require_undirected
from riptide.graph.components import _components
from riptide.graph.exceptions import NetworkXError, NetworkXNotImplemented

__all__ = ["louvain_communities", "louvain_partitions", "leiden_communities", "leiden_partitions",
           "label_propagation_communities", "asyn_lpa_communities", "modularity", "NotAPartition"]  # fmt: skip

try:
    from networkx.algorithms.community.quality import NotAPartition
except ImportError:  # pragma: no cover - networkx is installed wherever the tests run

    class NotAPartition(NetworkXError):  # type: ignore[no-redef]
        """Raised if a given collection is not a partition."""

        def __init__(self, G: Any, collection: Any) -> None:
            super().__init__(f"{collection} is not a valid partition of the graph {G}")


_MAX_SWEEPS = 500  # sweeps per level; each sweep must raise modularity, so this is a safety net only
_SMALL_LEVEL = 64  # levels of at most this many vertices let one vertex join each community per sweep
_UNDONE_SWEEPS = 3  # sweeps in a row whose moves were all undone end a level
_SWEEP_GAIN = 2e-4  # two sweeps gaining less end a level
_PAIRED_HALVES = 1000  # levels of more vertices move a draw's half, then its complement
_HOST_ARCS = 1 << 15  # a device graph's levels of at most this many arcs run on the host (NumPy)
_LPA_WHOLE_CLASS_ROUNDS = 4  # asyn_lpa rounds that update whole colour classes before classes are also halved


# ---------------------------------------------------------------------- the graph of one level


class _Level:
    """One level's graph: an edge list (loops included, each edge once; undirected edges with ``src <= dst``),
    the arcs every vertex reads its neighbours from (non-loop edges both ways), and the weighted degrees."""

    def __init__(self, xp: types.ModuleType, n: int, src: Any, dst: Any, w: Any, directed: bool) -> None:
        self.xp, self.n, self.directed = xp, n, directed
        # Vertex ids in int32 where they fit: the edge list and its arcs are the bulk of the memory (1e8 edges:
        # 3e8 ids); sort keys and community ids stay int64.
        ids = np.int32 if n < np.iinfo(np.int32).max else np.int64
        src, dst = src.astype(ids, copy=False), dst.astype(ids, copy=False)
        self.src, self.dst, self.w = src, dst, w
        other = xp.flatnonzero(src != dst)
        self.arc_u = xp.concatenate([src[other], dst[other]])
        self.arc_v = xp.concatenate([dst[other], src[other]])
        self.arc_w = xp.concatenate([w[other], w[other]])
        self.k_out = bincount(src, n, xp, weights=w)
        self.k_in = bincount(dst, n, xp, weights=w)
        if not directed:  # an undirected edge adds its weight at both ends (a self loop twice at its node)
            self.k_out = self.k_in = self.k_out + self.k_in

    def modularity(self, com: Any, m: float, resolution: float) -> float:
        """The modularity of the partition ``com`` (community per vertex) with NetworkX's formula."""
        inside = self.w[com[self.src] == com[self.dst]].sum()
        return float(self.quality(inside, self.totals(com), m, resolution))  # one scalar read: the modularity

    def totals(self, com: Any) -> tuple[Any, Any]:
        """Each community's total out- and in-degree (the same array twice for an undirected graph)."""
        xp, n = self.xp, self.n
        s_out = bincount(com, n, xp, weights=self.k_out)
        return s_out, (s_out if not self.directed else bincount(com, n, xp, weights=self.k_in))

    def quality(self, inside: Any, totals: tuple[Any, Any], m: float, resolution: float) -> Any:
        """NetworkX's modularity from the weight inside communities and the communities' ``totals`` (not read)."""
        norm = 1.0 / (m * m) if self.directed else 1.0 / (4.0 * m * m)
        return inside / m - resolution * (totals[0] * totals[1]).sum() * norm

    def aggregate(self, com: Any) -> tuple[_Level, Any]:
        """The graph of the communities (NetworkX's ``_gen_graph``) and each vertex's new dense id."""
        xp, n = self.xp, self.n
        present = xp.zeros(n, dtype=bool)
        present[com] = True
        new_id = xp.cumsum(present) - 1
        n2 = int(new_id[-1]) + 1 if n else 0  # one scalar read: the number of communities
        vertex_to_new = new_id[com]
        cs, cd = vertex_to_new[self.src], vertex_to_new[self.dst]
        if not self.directed:
            cs, cd = xp.minimum(cs, cd), xp.maximum(cs, cd)
        runs, weights = _sum_by_key(cs * n2 + cd, self.w, xp)
        return _Level(xp, n2, runs // n2, runs % n2, weights, self.directed), vertex_to_new


def _sum_by_key(keys: Any, weights: Any, xp: types.ModuleType) -> tuple[Any, Any]:
    """``(distinct keys in increasing order, the sum of ``weights`` per key)``: one sort and a segmented sum."""
    order, keys = stable_argsort_with_values(keys, xp)
    first = xp.ones(keys.shape[0], dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    distinct = keys[first]
    # one scalar read (the number of distinct keys, behind the boolean mask)
    return distinct, bincount(xp.cumsum(first) - 1, int(distinct.shape[0]), xp, weights=weights[order])


def _base_level(G: Any, weight: str | None) -> tuple[_Level, float]:
    xp = G.xp
    w = G._edge_weights(weight)
    level = _Level(xp, G.number_of_nodes(), G._src, G._dst, w, G.is_directed())
    return level, float(w.sum())  # one scalar read: m, the graph's total weight


# ---------------------------------------------------------------------- local moving


def _active(n: int, salt: int, other_half: bool, xp: types.ModuleType) -> Any:
    """A pseudo-random half of the vertices, another one for each ``salt`` (``other_half``: its complement)."""
    x = (xp.arange(n, dtype=np.int64) + np.int64(salt)) * np.int64(0x9E3779B1)
    x = x ^ (x >> 17)
    x = x * np.int64(0x85EBCA6B)
    return ((x >> 29) & 1) == (1 if other_half else 0)


def _sweep(level: _Level, com: Any, totals: tuple[Any, Any], m: float, resolution: float, salt: int,
           other_half: bool, parent: Any = None) -> tuple[Any, int, float, tuple[Any, Any]]:  # fmt: skip
    """One parallel local-moving sweep from the partition ``com`` (its community totals: ``totals``):
    ``(new communities, number of moves, their modularity, their totals)``; ``salt`` and ``other_half`` draw the
    vertices allowed to move in this sweep; with ``parent`` (a community per vertex) a vertex may only join a
    community inside its own parent community (Leiden's refinement)."""
    xp, n = level.xp, level.n
    if level.arc_u.shape[0] == 0:
        return com, 0, np.nan, totals
    s_out, s_in = totals
    # w(u, C): the arcs' weights summed per (active vertex, neighbouring community); only the arcs of the
    # vertices allowed to move this sweep are sorted. A small level decides for every vertex, then moves the drawn
    # half, or its complement where the drawn half has no move: no sweep is spent finding that a half is done.
    half = _active(n, salt, other_half, xp)
    both = n <= _SMALL_LEVEL
    active = xp.ones(n, dtype=bool) if both else half
    chosen = xp.flatnonzero(active[level.arc_u])  # (a sync on the device: the number of active arcs)
    keys = level.arc_u[chosen].astype(np.int64) * n + com[level.arc_v[chosen]]
    order, keys = stable_argsort_with_values(keys, xp, overwrite=True)  # the keys are a temporary: sorted in place
    # The sorted arcs stay as they are, each arc standing for its (u, C) pair: the arcs of one pair carry the
    # same values, so maxima and minima over them are the pair's, and no pair list is compacted (each
    # compaction is a sync on the device).
    first = xp.ones(keys.shape[0], dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    run = xp.cumsum(first) - 1
    w_uc = bincount(run, keys.shape[0], xp, weights=level.arc_w[chosen][order])[run]
    u, c = keys // n, keys % n
    own = c == com[u]
    k_out, k_in = level.k_out[u], level.k_in[u]
    # The community totals without u itself where C is u's community (NetworkX removes u before scoring).
    t_in = s_in[c] - where(xp, own, k_in, 0.0)
    t_out = s_out[c] - where(xp, own, k_out, 0.0)
    if level.directed:
        score = w_uc / m - resolution * (k_out * t_in + k_in * t_out) / (m * m)
    else:
        score = w_uc / m - resolution * t_in * k_out / (2.0 * m * m)
    # Staying: u's own community's score, the same formula with w(u, own community) (0 without an arc into it).
    k_out_all, k_in_all = level.k_out, level.k_in
    w_own = xp.zeros(n + 1)  # a plain scatter (the arcs of u's own pair all carry w(u, own)); others to slot n
    w_own[where(xp, own, u, n)] = w_uc
    w_own = w_own[:n]
    if level.directed:
        stay = w_own / m - resolution * (k_out_all * (s_in[com] - k_in_all) + k_in_all * (s_out[com] - k_out_all)) / (
            m * m)  # fmt: skip
    else:
        stay = w_own / m - resolution * (s_in[com] - k_in_all) * k_out_all / (2.0 * m * m)
    # Conflict rules: a vertex alone in its community joins another singleton only if that one has the smaller
    # id (two singletons never swap), and only half the vertices may move at all (see _local_moving).
    size = bincount(com, n, xp)
    swap = (size[com[u]] == 1) & (size[c] == 1) & (c > com[u])
    allowed = ~own & ~swap
    if parent is not None:  # a community's label is one of its vertices, whose parent is the community's
        allowed &= parent[c] == parent[u]
    best = xp.full(n, -np.inf)
    scatter_max(best, u, where(xp, allowed, score, -np.inf), xp)
    hit = allowed & (score == best[u])
    best_c = xp.full(n, n, dtype=np.int64)
    scatter_min(best_c, u, where(xp, hit, c, n), xp)
    # NetworkX moves on a strictly positive gain; a gain within rounding of zero is not a move (no ping-pong).
    gain = best - stay
    move = gain > 1e-12 * (xp.abs(stay) + 1e-300) + 1e-15 / m
    if both:
        move &= where(xp, (move & half).any(), half, ~half)
        # On a small level at most one vertex joins each community per sweep (the one of largest gain, then
        # smallest id): a crowd joining at once would each have counted on the community as it was, and on a
        # small graph one such move weighs a lot. (On large levels the rule costs many more sweeps and, measured,
        # lower modularity: the gain-based end of a level comes too early.)
        target = where(xp, move, best_c, 0)
        top = xp.full(n, -np.inf)
        scatter_max(top, target, where(xp, move, gain, -np.inf), xp)
        tied = move & (gain == top[target])
        ids = xp.arange(n, dtype=np.int64)
        joiner = xp.full(n, n, dtype=np.int64)
        scatter_min(joiner, target, where(xp, tied, ids, n), xp)
        move = tied & (joiner[target] == ids)
    # The new partition's modularity (_Level.modularity's, its inside weight summed without a compaction) comes
    # back with the number of moves: one read per sweep; the next sweep starts from these totals.
    new_com = where(xp, move, best_c, com)
    new_totals = level.totals(new_com)
    inside = where(xp, new_com[level.src] == new_com[level.dst], level.w, 0.0).sum()
    quality = level.quality(inside, new_totals, m, resolution)
    moves, quality = _device.to_host(xp.stack([move.sum().astype(np.float64), quality])).tolist()  # one read
    return new_com, int(moves), quality, new_totals


def _local_moving(level: _Level, m: float, resolution: float, salt: int, start: Any = None, parent: Any = None,
                  quality: float | None = None) -> tuple[Any, bool, float]:  # fmt: skip
    """Sweeps, each over a random half of the vertices (on levels of more than ``_PAIRED_HALVES`` vertices a
    drawn half, then its complement), until both halves of one draw move nothing (every vertex has had its
    chance: converged), a few sweeps in a row are undone, or two sweeps gain little. Starts from singletons (or
    ``start``), whose modularity is ``quality`` when the caller knows it; ``parent`` confines the moves (see
    :func:`_sweep`). Returns ``(communities, whether any vertex moved, their modularity)``."""
    xp = level.xp
    com = xp.arange(level.n, dtype=np.int64) if start is None else start
    if quality is None:
        quality = level.modularity(com, m, resolution)
    totals = level.totals(com)
    moved = False
    undone = 0
    draw, other_half, idle_half = salt * 7919, False, False
    gains = (np.inf, np.inf)  # the modularity gained by the last two sweeps that moved
    small = level.n <= _SMALL_LEVEL
    for _ in range(_MAX_SWEEPS):
        new_com, moves, new_quality, new_totals = _sweep(level, com, totals, m, resolution, draw, other_half, parent)
        if small:  # one sweep decides for both halves (see _sweep)
            if moves == 0:
                break
            draw += 104729
        elif not other_half and (moves == 0 or level.n > _PAIRED_HALVES):
            other_half, idle_half = True, moves == 0  # next: this draw's complement
        elif not other_half:
            draw += 104729  # a level of at most _PAIRED_HALVES vertices that moved: a fresh draw
        else:
            if moves == 0 and idle_half:  # neither half of this draw has a move left
                break
            draw, other_half = draw + 104729, False
        if moves == 0:
            continue
        if new_quality <= quality:  # simultaneous moves spoiled one another: keep the partition before them
            undone += 1
            if undone >= _UNDONE_SWEEPS:
                break
            continue
        undone = 0
        gains = (new_quality - quality, gains[0])
        com, totals, quality, moved = new_com, new_totals, new_quality, True
        if gains[0] + gains[1] < _SWEEP_GAIN and not small:  # converged enough: aggregation does
            break  # better from here (small levels sweep to convergence: their sweeps cost next to nothing)
    return com, moved, quality


def _partition_sets(G: Any, node_com: Any) -> list[set]:
    """The communities as sets of original nodes, listed by community label (see :func:`_levels`)."""
    return list(_components(G, node_com))  # the nodes grouped by label, in label order: one transfer


def _salt_of(seed: Any) -> int:
    """An int from NetworkX's ``seed`` forms: None, an int, a ``random.Random`` or NumPy generator."""
    if seed is None:
        return 0
    if isinstance(seed, (int, np.integer)):
        return int(seed) % (1 << 31)
    for method in ("getrandbits", "integers", "randint"):
        draw = getattr(seed, method, None)
        if draw is not None:
            return int(draw(31) if method == "getrandbits" else draw(0, 1 << 31))
    raise ValueError(f"{seed} cannot be used to generate a numpy.random.RandomState instance")


def _levels(G: Any, weight: str | None, resolution: float, threshold: float, seed: Any,
            leiden: bool = False) -> Iterator[Any]:  # fmt: skip
    """Louvain's levels, each as the community label of every node (a device array): the sets are made only for
    the levels the caller keeps (see :func:`_last`).

    With ``leiden``, Leiden's levels: local moving (from the previous level's communities), communities cut into
    connected pieces, then the *refinement* (:func:`_refined_level`) whose finer communities become the next
    level's vertices, starting in their parent community."""
    salt = _salt_of(seed)
    xp, n = G.xp, G.number_of_nodes()
    node_to_vertex = xp.arange(n, dtype=np.int64)
    if G.number_of_edges() == 0:
        yield node_to_vertex
        return
    level, m = _base_level(G, weight)
    quality = level.modularity(node_to_vertex, m, resolution)  # later levels start at the last one's (kept)
    start, first = None, True
    while True:
        if level.xp is not np and level.arc_u.shape[0] <= _HOST_ARCS:
            # A small level's sweeps cost the device its fixed launch and sync overheads and next to no work: the
            # last levels (a few hundred vertices) run on the host, from a copy of their edges (one transfer),
            # and each level's labels come back (one small transfer each).
            level = _Level(np, level.n, _device.to_host(level.src), _device.to_host(level.dst),
                           _device.to_host(level.w), level.directed)  # fmt: skip
            start = None if start is None else _device.to_host(start)
        com, moved, level_quality = _local_moving(level, m, resolution, salt, start, quality=quality)
        salt += 1
        if leiden:
            com = _split_disconnected(level, com)
        if not moved and not first:
            return
        first = False
        # Communities are listed by label, as NetworkX lists them: a community's label is the id of the vertex
        # whose singleton it grew from, and the next level numbers the communities in label order.
        yield _device.to_device(com, xp)[node_to_vertex]
        if leiden:  # splitting communities changes the modularity
            level_quality = level.modularity(com, m, resolution)
        if level_quality - quality <= threshold:
            return
        quality = level_quality
        if leiden:
            level, vertex_to_new, start = _refined_level(level, com, m, resolution, salt + 7777)
        else:
            level, vertex_to_new = level.aggregate(com)
        node_to_vertex = _device.to_device(vertex_to_new, xp)[node_to_vertex]


def _refined_level(level: _Level, com: Any, m: float, resolution: float, salt: int) -> tuple[_Level, Any, Any]:
    """Leiden's next level: local moving from singletons, each vertex confined to its community in ``com``; the
    refined communities are aggregated. Returns ``(next level, each vertex's new id, the next level's start)``,
    the start putting each refined vertex in its parent community, labelled by the community's smallest new
    vertex."""
    xp = level.xp
    refined, _, _ = _local_moving(level, m, resolution, salt, None, com)
    refined = _split_disconnected(level, refined)  # still inside the communities: splitting only cuts
    new_level, vertex_to_new = level.aggregate(refined)
    parent = xp.zeros(new_level.n, dtype=np.int64)
    parent[vertex_to_new] = com
    representative = xp.full(level.n, new_level.n, dtype=np.int64)
    scatter_min(representative, parent, xp.arange(new_level.n, dtype=np.int64), xp)
    return new_level, vertex_to_new, representative[parent]


def _split_disconnected(level: _Level, com: Any) -> Any:
    """Leiden's refinement guarantee: each community cut into its connected pieces (label = smallest vertex of
    the piece), by hooking and pointer jumping over the edges inside communities."""
    from riptide.core.kernels.union_find import component_roots

    inside = com[level.src] == com[level.dst]
    return component_roots(level.n, level.src[inside], level.dst[inside], level.xp)


def _check_max_level(max_level: int | None) -> None:
    if max_level is not None and max_level <= 0:
        raise ValueError("max_level argument must be a positive integer or None")


def _as_sets(G: Any, levels: Iterator[Any]) -> Iterator[list]:
    """Each level's partition as NetworkX lists it: sets of nodes."""
    for node_com in levels:
        yield _partition_sets(G, node_com)


def _last(G: Any, levels: Iterator[Any], max_level: int | None) -> list:
    """The partition of the last level (or of level ``max_level``): only that one becomes Python sets."""
    result = None
    for i, node_com in enumerate(levels):
        result = node_com
        if max_level is not None and i + 1 >= max_level:
            break
    return _partition_sets(G, result) if result is not None else []


def louvain_partitions(G: Any, weight: str | None = "weight", resolution: float = 1, threshold: float = 0.0000001,
                       seed: Any = None) -> Iterator[list]:  # fmt: skip
    """The partition after each level of the Louvain algorithm (a generator of lists of sets of nodes).

    ``seed`` (an int, a ``random.Random`` or None) picks which vertices may move in each parallel sweep; the
    result is deterministic for a given seed.

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    >>> [[sorted(c) for c in p] for p in louvain_partitions(G)]
    [[[0, 1, 2], [3, 4, 5]]]
    """
    G = as_riptide_graph(G)  # a generator function, as NetworkX's: nothing runs until the first level is asked for
    yield from _as_sets(G, _levels(G, weight, resolution, threshold, seed))


def louvain_communities(G: Any, weight: str | None = "weight", resolution: float = 1, threshold: float = 0.0000001,
                        max_level: int | None = None, seed: Any = None) -> list:  # fmt: skip
    """The communities of the Louvain algorithm's last level (NetworkX's ``louvain_communities``): a list of
    sets of nodes, each node in one set. See the module docstring for how results compare with NetworkX's.

    >>> from riptide.graph import from_edgelist
    >>> G = from_edgelist([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    >>> louvain_communities(G, seed=1)
    [{0, 1, 2}, {3, 4, 5}]
    """
    _check_max_level(max_level)
    G = as_riptide_graph(G)
    return _last(G, _levels(G, weight, resolution, threshold, seed), max_level)


def leiden_partitions(G: Any, weight: str | None = "weight", resolution: float = 1,
                      seed: Any = None) -> Iterator[list]:  # fmt: skip
    """The partition after each level of the Leiden algorithm (a generator; NetworkX's ``leiden_partitions``).
    Not implemented for directed graphs, as NetworkX declares."""
    G = as_riptide_graph(G)
    require_undirected(G)
    return _as_sets(G, _levels(G, weight, resolution, 0.0000001, seed, leiden=True))


def leiden_communities(G: Any, weight: str | None = "weight", resolution: float = 1, max_level: int | None = None,
                       seed: Any = None) -> list:  # fmt: skip
    """The communities of the Leiden algorithm (NetworkX's ``leiden_communities``): a list of sets of nodes, each
    community connected. Undirected graphs only, as NetworkX.

    >>> from riptide.graph import from_edgelist
    >>> leiden_communities(from_edgelist([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)]))
    [{0, 1, 2}, {3, 4, 5}]
    """
    _check_max_level(max_level)
    G = as_riptide_graph(G)
    require_undirected(G)
    return _last(G, _levels(G, weight, resolution, 0.0000001, seed, leiden=True), max_level)


# ---------------------------------------------------------------------- modularity


def modularity(G: Any, communities: Any, weight: str | None = "weight", resolution: float = 1) -> float:
    """The modularity of a partition of ``G`` (NetworkX's ``modularity``; ``NotAPartition`` if ``communities``
    is not a partition of the nodes).

    >>> from riptide.graph import from_edgelist
    >>> round(modularity(from_edgelist([(0, 1), (2, 3)]), [{0, 1}, {2, 3}]), 6)
    0.5
    """
    from riptide.graph.classes import _hashable

    G_in = G
    if not isinstance(communities, list):
        communities = list(communities)
    G = as_riptide_graph(G)
    index = G._index()
    ids: list[int] = []
    labels: list[int] = []
    total = 0
    for k, community in enumerate(communities):  # the caller's sets, on the host
        for node in community:
            total += 1
            i = index.get(node) if _hashable(node) else None
            if i is not None:
                ids.append(i)
                labels.append(k)
    n = G.number_of_nodes()
    if not (n == len(set(ids)) == total):
        raise NotAPartition(G_in, communities)
    xp = G.xp
    com_host = np.empty(n, dtype=np.int64)
    com_host[np.asarray(ids, dtype=np.int64)] = np.asarray(labels, dtype=np.int64)
    com = _device.to_device(com_host, xp)
    level, m = _base_level(G, weight)
    if m == 0:  # NetworkX divides by zero here
        raise ZeroDivisionError("division by zero")
    return level.modularity(com, m, resolution)


# ---------------------------------------------------------------------- label propagation


def label_propagation_communities(G: Any) -> Any:
    """Communities by semi-synchronous label propagation (NetworkX's ``label_propagation_communities``: the same
    sets, in the same order, as a ``dict_values`` of sets). Undirected graphs only.

    >>> from riptide.graph import from_edgelist
    >>> sorted(sorted(c) for c in label_propagation_communities(from_edgelist([(0, 1), (1, 2), (3, 4)])))
    [[0, 1, 2], [3, 4]]
    """
    G = as_riptide_graph(G)
    require_undirected(G)
    if G.is_multigraph():  # NetworkX counts each neighbour once; the CSR here would repeat parallel edges
        raise NetworkXNotImplemented("not implemented for multigraph type")
    xp, n = G.xp, G.number_of_nodes()
    if n == 0:
        return {}.values()
    colour = _greedy_colouring(G)
    n_colours = int(colour.max()) + 1  # one scalar read: the number of colour classes
    label = xp.arange(n, dtype=np.int64)
    arc_u, arc_v = G._arc_src, G._indices
    has_neighbours = xp.diff(G._offsets) > 0
    best, keeps = _most_frequent(arc_u, label[arc_v], label, n, xp)
    # one scalar read per round: every node holds a most frequent label
    while not bool((keeps | ~has_neighbours).all()):
        for k in range(n_colours):  # one colour class at a time: its nodes are never adjacent
            update = (colour == k) & has_neighbours & ~keeps
            label = where(xp, update, best, label)
            best, keeps = _most_frequent(arc_u, label[arc_v], label, n, xp)  # after the last class: the check
    return _groups_in_node_order(G, label).values()


def asyn_lpa_communities(G: Any, weight: str | None = None, seed: Any = None) -> Iterator[set]:
    """Communities by asynchronous label propagation (NetworkX's ``asyn_lpa_communities``; a generator of sets).

    NetworkX visits the nodes in a random order, each taking one of its neighbours' most frequent labels (summing
    ``weight``) at random unless it holds one already, until no node changes. Here the nodes are visited one
    colour class of a greedy colouring at a time (the classes in a random order): a class's nodes are never
    adjacent, so updating them together is one of NetworkX's sequential orders. Ties are broken at random (a
    hash of ``seed``, the round and the label). The answer is random, as NetworkX's: what is the same is the
    kind of result, a partition in which every node holds one of its neighbours' most frequent labels, listed in
    order of each community's first node. Directed graphs read out-neighbours, as NetworkX does.

    >>> from riptide.graph import from_edgelist
    >>> sorted(sorted(c) for c in asyn_lpa_communities(from_edgelist([(0, 1), (1, 2), (2, 0), (3, 4)]), seed=1))
    [[0, 1, 2], [3, 4]]
    """
    G = as_riptide_graph(G)
    if G.is_multigraph():
        raise NetworkXNotImplemented("not implemented for multigraph type")
    salt = _salt_of(seed)
    xp, n = G.xp, G.number_of_nodes()
    if n == 0:
        return iter([])
    colour = _greedy_colouring(G.to_undirected() if G.is_directed() else G)
    n_colours = int(colour.max()) + 1  # one scalar read: the number of colour classes
    label = xp.arange(n, dtype=np.int64)
    arc_u, arc_v = G._arc_src, G._indices
    arc_w = G._arc_weights(weight) if weight is not None else None
    has_neighbours = xp.diff(G._offsets) > 0
    rng = np.random.default_rng(salt)
    for round_ in range(1 << 20):  # until every node holds a most frequent label (each round changes labels)
        _, keeps = _most_frequent(arc_u, label[arc_v], label, n, xp, arc_w)
        if bool((keeps | ~has_neighbours).all()):  # one scalar read per round
            break
        # After a few rounds each class is also cut in two random halves and all the halves are shuffled: the
        # class-by-class orders alone can cycle for ever (a directed 4-cycle, 2-coloured, swaps two labels round
        # after round: its merge needs a node of the other class updated between two of one class), while
        # NetworkX's random orders end with probability one. A half of an independent set is independent, so
        # each order is still one of NetworkX's.
        halves = 2 if round_ >= _LPA_WHOLE_CLASS_ROUNDS else 1
        half = _active(n, salt + 104729 * round_, False, xp) if halves == 2 else None
        for part in rng.permutation(n_colours * halves).tolist():  # the (halves of) classes in a random order
            k, h = divmod(part, halves)
            pick, keeps = _most_frequent(arc_u, label[arc_v], label, n, xp, arc_w, salt + 7919 * round_ + part)
            update = (colour == k) & has_neighbours & ~keeps
            if half is not None:
                update &= half if h == 0 else ~half
            label = where(xp, update, pick, label)
    return iter(_groups_in_node_order(G, label).values())


def _most_frequent(arc_u: Any, arc_label: Any, label: Any, n: int, xp: types.ModuleType, arc_w: Any = None,
                   salt: int | None = None) -> tuple[Any, Any]:  # fmt: skip
    """Per node: the largest of its neighbours' most frequent labels (with ``salt``: a pseudo-random one of them),
    and whether its own label is among them. ``arc_w`` weighs the arcs (None: each counts 1)."""
    order, keys = stable_argsort_with_values(arc_u * n + arc_label, xp)
    first = xp.ones(keys.shape[0], dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    starts = xp.flatnonzero(first)
    if arc_w is None:
        ends = xp.concatenate([starts[1:], xp.asarray(np.array([keys.shape[0]], dtype=np.int64))])
        counts = ends - starts
        top = xp.zeros(n, dtype=np.int64)
    else:
        counts = bincount(xp.cumsum(first) - 1, int(starts.shape[0]), xp, weights=arc_w[order])
        top = xp.full(n, -np.inf)
    pairs = keys[starts]
    u, lab = pairs // n, pairs % n
    scatter_max(top, u, counts, xp)
    is_top = counts == top[u]
    best = xp.full(n, -1, dtype=np.int64)
    if salt is None:
        scatter_max(best, u[is_top], lab[is_top], xp)
    else:  # a pseudo-random top label: the one of largest hash, then read back from the hash's winner
        x = (lab + np.int64(salt)) * np.int64(0x9E3779B1)
        x = (x ^ (x >> 17)) * np.int64(0x85EBCA6B)
        draw = ((x >> 11) & np.int64((1 << 40) - 1)) * np.int64(1 << 22) + lab  # unique per label of a node
        winner = xp.full(n, -1, dtype=np.int64)
        scatter_max(winner, u[is_top], draw[is_top], xp)
        chosen = is_top & (draw == winner[u])
        best[u[chosen]] = lab[chosen]
    keeps = xp.zeros(n, dtype=bool)
    mine = is_top & (lab == label[u])
    keeps[u[mine]] = True
    return best, keeps


def _greedy_colouring(G: Any) -> Any:
    """NetworkX's ``greedy_color`` (strategy largest_first) as parallel rounds: a node is coloured once every
    neighbour before it in the greedy order is, with the smallest colour none of those neighbours has."""
    xp, n = G.xp, G.number_of_nodes()
    degree = G._degrees("both")
    # Greedy order: decreasing degree, ties in node order (Python's stable sort with reverse=True).
    order = stable_argsort(-degree, xp)
    rank = inverse_permutation(order, xp)
    u, v = G._arc_src, G._indices
    earlier = rank[v] < rank[u]  # the arcs from a node to the neighbours coloured before it
    u, v = u[earlier], v[earlier]
    colour = xp.full(n, -1, dtype=np.int64)
    waiting = bincount(u, n, xp)  # neighbours before it not coloured yet
    pending_u, pending_v = u, v
    while True:
        ready = (colour < 0) & (waiting == 0)
        if not bool(ready.any()):  # one scalar read per round
            break
        # Smallest colour missing among each ready node's earlier neighbours: sort distinct (node, colour) pairs.
        take = ready[pending_u]
        ru, rc = pending_u[take], colour[pending_v[take]]
        mex = _smallest_missing(ru, rc, n, xp)
        colour = where(xp, ready, mex, colour)
        # The arcs of newly coloured nodes no longer block anyone: count them off their later neighbours.
        done = ready[v]
        waiting = waiting - bincount(u[done], n, xp)
        v_keep = ~take
        pending_u, pending_v = pending_u[v_keep], pending_v[v_keep]
        u, v = u[~done], v[~done]
    return colour


def _smallest_missing(u: Any, c: Any, n: int, xp: types.ModuleType) -> Any:
    """Per node, the smallest non-negative int not among the ``c`` of its pairs (0 for nodes without pairs)."""
    out = xp.zeros(n, dtype=np.int64)
    if u.shape[0] == 0:
        return out
    _, keys = stable_argsort_with_values(u * (n + 1) + c, xp)
    first = xp.ones(keys.shape[0], dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    keys = keys[first]
    ku, kc = keys // (n + 1), keys % (n + 1)
    # rank of each distinct colour within its node's run: colour == rank while no gap yet
    run_start = xp.ones(keys.shape[0], dtype=bool)
    run_start[1:] = ku[1:] != ku[:-1]
    position = xp.arange(keys.shape[0], dtype=np.int64)
    start_pos = xp.zeros(keys.shape[0], dtype=np.int64)
    start_pos[run_start] = position[run_start]
    start_pos = running("cummax", start_pos, xp)
    rank = position - start_pos
    gap = kc != rank
    big = np.iinfo(np.int64).max
    first_gap = xp.full(n, big, dtype=np.int64)
    scatter_min(first_gap, ku[gap], rank[gap], xp)
    count = bincount(ku, n, xp)
    return where(xp, first_gap == big, count, first_gap)


def _groups_in_node_order(G: Any, label: Any) -> dict:
    """``{label: set of nodes}`` with labels in order of their first node (NetworkX's defaultdict order)."""
    host = _device.to_host(label)  # one transfer: the answer is Python sets
    nodes = G._host_labels()
    clusters: dict = {}
    for node, lab in zip(nodes, host.tolist()):
        clusters.setdefault(lab, set()).add(node)
    return clusters
