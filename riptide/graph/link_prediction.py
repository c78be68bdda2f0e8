"""Link prediction: neighbourhood scores of node pairs (NetworkX's ``jaccard_coefficient``, ``adamic_adar_index``,
``resource_allocation_index``, ``preferential_attachment``, ``common_neighbor_centrality``; cuGraph's overlap and
Sorensen coefficients).

Every score but preferential attachment is a sum over the **common neighbours** of a pair. All pairs are scored at
once on the device: each pair ``(u, v)`` lists the CSR row of its endpoint of smaller degree, and each listed
neighbour ``w`` is looked up in the other endpoint's neighbour set by one ``searchsorted`` into the sorted arc keys
``source * n + target`` (built once per graph). The hits give, per pair, the size of the neighbourhood
intersection and the sums of ``1 / deg(w)`` or ``1 / log(deg(w))`` (a weighted ``bincount`` over the pairs). The
work is the sum over pairs of the smaller degree; pairs are processed in batches whose expansion fits a fixed
budget of elements, so memory stays bounded for any ``ebunch``.

NetworkX's conventions are kept: common neighbours exclude ``u`` and ``v`` themselves (``nx.common_neighbors``),
the Jaccard union is over the full neighbour sets (so it counts ``u``/``v`` when they are adjacent), degrees count
a self loop twice, and a pair without common neighbours scores the int ``0`` where NetworkX's empty ``sum`` does.

``ebunch=None`` scores every **non-edge** (NetworkX's ``nx.non_edges``), n(n-1)/2 - m pairs: quadratic, as in
NetworkX. They are generated block by block on the device (pairs ``u < v`` in node order; NetworkX yields them
in a Python set's order, so the same triples come in another order) and a ``RuntimeWarning`` is issued above
``NON_EDGE_WARNING`` pairs. As NetworkX, the functions return generators of ``(u, v, score)``; nodes in
``ebunch`` are checked when the function is called (``NodeNotFound``), the scores computed when the generator is
first advanced (for ``ebunch=None``, one block at a time).

**Pairs on the device.** Beyond NetworkX, ``ebunch`` may be a riptide (or pandas) DataFrame whose first two
columns hold the pairs' node ids (cuGraph's ``vertex_pair``): the ids are matched to the graph's on the device and
the answer is a riptide DataFrame ``(first, second, <score>)``, the score column named as cuGraph names it
(``jaccard_coeff``, ``overlap_coeff``, ``sorensen_coeff``) or after the function. Nothing goes through Python per
pair, which is what scoring millions of pairs needs.

>>> import riptide as rt
>>> from riptide.graph import from_edgelist
>>> G = from_edgelist([(0, 1), (1, 2), (2, 3), (3, 0)])
>>> jaccard_coefficient(G, rt.DataFrame({"u": [0, 1], "v": [2, 2]})).to_pandas()
   first  second  jaccard_coeff
0      0       2            1.0
1      1       2            0.0
"""

from __future__ import annotations

import itertools
import types
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from riptide import _device
from riptide.core.kernels.segments import row_of_each_element, segment_positions
from riptide.graph._arrays import bincount
from riptide.graph._checks import as_riptide_graph, require_undirected
from riptide.graph.exceptions import NetworkXNotImplemented, NodeNotFound

__all__ = [
    "adamic_adar_index",
    "common_neighbor_centrality",
    "jaccard_coefficient",
    "overlap_coefficient",
    "preferential_attachment",
    "resource_allocation_index",
    "sorensen_coefficient",
]  # fmt: skip

BATCH_ELEMENTS = 1 << 24  # neighbour look-ups per batch (a few hundred MB of temporaries at most)
NON_EDGE_BLOCK = 1 << 22  # candidate pairs per block when ebunch=None
NON_EDGE_WARNING = 10**8  # warn when ebunch=None means more non-edges than this


def _checked(G: Any) -> Any:
    """NetworkX's ``not_implemented_for("directed")`` and ``("multigraph")``, in its order."""
    G = as_riptide_graph(G)
    require_undirected(G)
    if G.is_multigraph():
        raise NetworkXNotImplemented("not implemented for multigraph type")
    return G


class _Scores:
    """Per-pair neighbourhood statistics on the device for one graph: sorted arc keys and degrees."""

    def __init__(self, G: Any) -> None:
        xp = self.xp = G.xp
        self.G = G
        self.n = max(G.number_of_nodes(), 1)
        self.keys = xp.sort(G._arc_src * self.n + G._indices)  # arc (a, b) as a * n + b, sorted
        self.row_length = xp.diff(G._offsets)  # distinct neighbours (a self loop once)
        self.degree = G._degrees("both")  # NetworkX's degree (a self loop twice)

    def has_arc(self, a: Any, b: Any) -> Any:
        query = a * self.n + b
        if self.keys.shape[0] == 0:
            return self.xp.zeros(query.shape[0], dtype=bool)
        at = self.xp.minimum(self.xp.searchsorted(self.keys, query), self.keys.shape[0] - 1)
        return self.keys[at] == query

    def common(self, u: Any, v: Any, per_neighbour: Any = None) -> tuple[Any, Any, Any]:
        """``(|N(u) & N(v)|, |N(u) & N(v) - {u, v}|, sum of per_neighbour[w] over the latter)`` per pair."""
        xp = self.xp
        p = u.shape[0]
        full = xp.zeros(p, dtype=np.int64)
        common = xp.zeros(p, dtype=np.int64)
        total = xp.zeros(p, dtype=np.float64) if per_neighbour is not None else None
        if p == 0:
            return full, common, total
        swap = self.row_length[u] > self.row_length[v]
        a, b = xp.where(swap, v, u), xp.where(swap, u, v)  # list the shorter row, look up in the longer
        lengths = self.row_length[a]
        ends = xp.cumsum(lengths)
        # Batches of whole pairs whose listed neighbours fit BATCH_ELEMENTS (host reads: the batch bounds).
        cuts = _batch_cuts(ends, BATCH_ELEMENTS, xp)
        for lo, hi in itertools.pairwise(cuts):
            starts = self.G._offsets[a[lo:hi]]
            offsets = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(lengths[lo:hi])])
            pair = row_of_each_element(offsets, xp)
            w = self.G._indices[segment_positions(starts, offsets, xp)]
            hit = self.has_arc(b[lo:hi][pair], w)
            shared = hit & (w != u[lo:hi][pair]) & (w != v[lo:hi][pair])
            count = hi - lo
            full[lo:hi] = bincount(pair[hit], count, xp)
            common[lo:hi] = bincount(pair[shared], count, xp)
            if per_neighbour is not None:
                total[lo:hi] = bincount(pair[shared], count, xp, weights=per_neighbour[w[shared]])
        return full, common, total


def _batch_cuts(ends: Any, budget: int, xp: types.ModuleType) -> list[int]:
    """Pair indices cutting ``ends`` (inclusive prefix sums of per-pair sizes) into batches of about ``budget``."""
    p = int(ends.shape[0])
    total = int(ends[-1])  # one scalar read: the expansion's size
    if total <= budget:
        return [0, p]
    marks = xp.arange(budget, total, budget, dtype=np.int64)
    inner = _device.to_host(xp.searchsorted(ends, marks, side="right")).tolist()  # a few bounds
    return sorted({0, p, *[c for c in inner if 0 < c < p]})


def _pairs_of(G: Any, ebunch: Any) -> tuple[list, list, Any, Any]:
    """``(us, vs, u ids, v ids)`` of a user's ebunch, NodeNotFound for a node not in G (NetworkX's check)."""
    pairs = list(ebunch)  # the user's iterable, on the host
    index = G._index()
    us, vs, ui, vi = [], [], [], []
    for u, v in pairs:
        for node in (u, v):
            try:
                found = node in index
            except TypeError:
                found = False
            if not found:
                raise NodeNotFound(f"Node {node} not in G.")
        us.append(u)
        vs.append(v)
        ui.append(index[u])
        vi.append(index[v])
    to = lambda ids: _device.to_device(np.asarray(ids, dtype=np.int64), G.xp)
    return us, vs, to(ui), to(vi)


def _non_edge_blocks(G: Any, scores: _Scores) -> Iterator[tuple[Any, Any]]:
    """Dense ``(u, v)`` of every non-edge ``u < v`` (no self pairs), in blocks of at most ~NON_EDGE_BLOCK."""
    xp, n = G.xp, G.number_of_nodes()
    pairs = n * (n - 1) // 2 - G.number_of_edges() + int(xp.count_nonzero(G._src == G._dst))  # one scalar read
    if pairs > NON_EDGE_WARNING:
        message = (f"ebunch=None scores all {pairs} non-edges of the graph (quadratic in the number of nodes, as in "
                   "NetworkX); pass the pairs of interest as ebunch")
        warnings.warn(message, RuntimeWarning, stacklevel=3)
    u = 0
    while u < n - 1:
        # rows u..stop-1 hold (n - 1 - k) candidates each; take rows until the block is full (host arithmetic)
        stop, count = u, 0
        while stop < n - 1 and (count == 0 or count + (n - 1 - stop) <= NON_EDGE_BLOCK):
            count += n - 1 - stop
            stop += 1
        rows = xp.arange(u, stop, dtype=np.int64)
        offsets = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(n - 1 - rows)])
        row = row_of_each_element(offsets, xp)
        first = rows[row]
        second = first + 1 + (xp.arange(count, dtype=np.int64) - offsets[:-1][row])
        keep = ~scores.has_arc(first, second)
        yield first[keep], second[keep]
        u = stop


def _predict(G: Any, ebunch: Any, score: Callable[[_Scores, Any, Any], tuple[Any, Any]], name: str) -> Any:
    """The generator of ``(u, v, score)``: ``score(stats, u ids, v ids)`` gives ``(values, use_int_zero)`` device
    arrays (``use_int_zero``: pairs where NetworkX returns the int 0). A DataFrame ``ebunch`` gives a DataFrame
    (``first``, ``second``, ``name``), computed on the device."""
    if ebunch is None:
        return _predict_non_edges(G, score)
    if _is_frame(ebunch):
        return _predict_frame(G, ebunch, score, name)
    us, vs, ui, vi = _pairs_of(G, ebunch)
    return _predict_pairs(G, us, vs, ui, vi, score)


def _is_frame(obj: Any) -> bool:
    import pandas as pd

    from riptide.frame.dataframe import DataFrame

    return isinstance(obj, DataFrame | pd.DataFrame)


def _predict_frame(G: Any, frame: Any, score: Callable, name: str) -> Any:
    """Scores of the pairs in the first two columns of ``frame`` (original ids), as a riptide DataFrame
    ``(first, second, name)``; the ids are matched to dense ids on the device."""
    from riptide.core.column import NumericColumn
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import default_index
    from riptide.graph.classes import _as_riptide_frame

    frame = _as_riptide_frame(frame)
    columns = list(frame._data.values())
    if len(columns) < 2:
        raise ValueError("an ebunch DataFrame needs two columns of node ids (the pairs' first and second nodes)")
    first, second = columns[0], columns[1]
    xp, p = G.xp, first.size
    ui, vi = G._ids_of_column(first), G._ids_of_column(second)
    missing = xp.flatnonzero((ui < 0) | (vi < 0))[:1]
    if missing.shape[0]:  # one scalar read: whether some id is not a node
        row = int(_device.to_host(missing)[0])
        bad = first if int(_device.to_host(ui[row:row + 1])[0]) < 0 else second
        raise NodeNotFound(f"Node {bad.take(xp.asarray([row])).to_arrow().to_pylist()[0]} not in G.")
    values, _ = score(_Scores(G), ui, vi)
    data = {"first": first, "second": second, name: NumericColumn(values)}
    return DataFrame._from_columns(data, default_index(p, xp))


def _predict_pairs(G: Any, us: list, vs: list, ui: Any, vi: Any, score: Callable) -> Iterator[tuple]:
    values, int_zero = score(_Scores(G), ui, vi)
    yield from _triples(us, vs, values, int_zero)


def _predict_non_edges(G: Any, score: Callable) -> Iterator[tuple]:
    stats = _Scores(G)
    for ui, vi in _non_edge_blocks(G, stats):
        values, int_zero = score(stats, ui, vi)
        yield from _triples(G._labels_of(ui), G._labels_of(vi), values, int_zero)


def _triples(us: list, vs: list, values: Any, int_zero: Any) -> Iterator[tuple]:
    host = _device.to_host(values).tolist()  # one transfer per batch: the answer becomes Python numbers
    zero = _device.to_host(int_zero).tolist() if int_zero is not None else None
    if zero is not None:
        host = [0 if z else x for x, z in zip(host, zero)]
    return zip(us, vs, host)


# ---------------------------------------------------------------------- the scores


def jaccard_coefficient(G: Any, ebunch: Any = None) -> Iterator[tuple]:
    """``(u, v, |common neighbours| / |N(u) | N(v)|)`` for each pair of ``ebunch`` (NetworkX's function).

    >>> from riptide.graph import from_edgelist
    >>> list(jaccard_coefficient(from_edgelist([(0, 1), (1, 2), (2, 3), (3, 0)]), [(0, 2), (1, 3)]))
    [(0, 2, 1.0), (1, 3, 1.0)]
    """
    G = _checked(G)

    def score(stats: _Scores, u: Any, v: Any) -> tuple[Any, Any]:
        full, common, _ = stats.common(u, v)
        union = stats.row_length[u] + stats.row_length[v] - full
        empty = union == 0
        return common / stats.xp.where(empty, 1, union), empty

    return _predict(G, ebunch, score, "jaccard_coeff")


def resource_allocation_index(G: Any, ebunch: Any = None) -> Iterator[tuple]:
    """``(u, v, sum of 1 / deg(w) over common neighbours w)`` (NetworkX's function).

    >>> from riptide.graph import from_edgelist
    >>> list(resource_allocation_index(from_edgelist([(0, 1), (1, 2), (2, 3), (3, 0)]), [(0, 2)]))
    [(0, 2, 1.0)]
    """
    G = _checked(G)

    def score(stats: _Scores, u: Any, v: Any) -> tuple[Any, Any]:
        inverse = 1.0 / stats.xp.maximum(stats.degree, 1)
        _, common, total = stats.common(u, v, inverse)
        return total, common == 0

    return _predict(G, ebunch, score, "resource_allocation_index")


def adamic_adar_index(G: Any, ebunch: Any = None) -> Iterator[tuple]:
    """``(u, v, sum of 1 / log(deg(w)) over common neighbours w)`` (NetworkX's function).

    A common neighbour of degree 1 (only possible for ``u == v``) divides by ``log(1) = 0``: ZeroDivisionError,
    as in NetworkX.

    >>> from riptide.graph import from_edgelist
    >>> [(u, v, round(p, 6)) for u, v, p in adamic_adar_index(from_edgelist([(0, 1), (1, 2)]), [(0, 2)])]
    [(0, 2, 1.442695)]
    """
    G = _checked(G)

    def score(stats: _Scores, u: Any, v: Any) -> tuple[Any, Any]:
        xp = stats.xp
        logs = xp.log(xp.maximum(stats.degree, 1).astype(np.float64))
        inverse = xp.where(logs == 0, np.inf, 1.0 / xp.where(logs == 0, 1.0, logs))  # degree 1: 1 / log(1)
        _, common, total = stats.common(u, v, inverse)
        if bool(xp.isinf(total).any()):  # one scalar read: a degree-1 common neighbour, as NetworkX's division
            raise ZeroDivisionError("float division by zero")
        return total, common == 0

    return _predict(G, ebunch, score, "adamic_adar_index")


def preferential_attachment(G: Any, ebunch: Any = None) -> Iterator[tuple]:
    """``(u, v, deg(u) * deg(v))`` (NetworkX's function).

    >>> from riptide.graph import from_edgelist
    >>> list(preferential_attachment(from_edgelist([(0, 1), (1, 2)]), [(0, 2), (1, 1)]))
    [(0, 2, 1), (1, 1, 4)]
    """
    G = _checked(G)

    def score(stats: _Scores, u: Any, v: Any) -> tuple[Any, Any]:
        return stats.degree[u] * stats.degree[v], None

    return _predict(G, ebunch, score, "preferential_attachment")


def common_neighbor_centrality(G: Any, ebunch: Any = None, alpha: float = 0.8) -> Iterator[tuple]:
    """``(u, v, alpha * |common neighbours| + (1 - alpha) * n / dist(u, v))`` (NetworkX's CCPA score).

    Distances come from one breadth-first search per distinct ``u`` of the pairs, on the device (NetworkX computes
    all pairs' distances first). ``u == v`` raises NetworkXAlgorithmError ("Self loops are not supported").

    >>> from riptide.graph import from_edgelist
    >>> list(common_neighbor_centrality(from_edgelist([(0, 1), (1, 2), (2, 3)]), [(0, 2), (0, 3)], alpha=0.5))
    [(0, 2, 1.5), (0, 3, 0.6666666666666666)]
    """
    from networkx.exception import NetworkXAlgorithmError

    G = _checked(G)
    n = G.number_of_nodes()

    def score(stats: _Scores, u: Any, v: Any) -> tuple[Any, Any]:
        xp = stats.xp
        if bool((u == v).any()):  # one scalar read: NetworkX refuses self pairs
            raise NetworkXAlgorithmError("Self loops are not supported")
        _, common, _ = stats.common(u, v)
        if alpha == 1:
            return common, None
        distance = _pair_distances(G, u, v)
        closeness = xp.where(distance > 0, n / xp.where(distance > 0, distance, 1.0), 0.0)  # inf distance -> 0
        return alpha * common + (1 - alpha) * closeness, None

    return _predict(G, ebunch, score, "common_neighbor_centrality")


def _pair_distances(G: Any, u: Any, v: Any) -> Any:
    """Hop distance of each pair (inf where unreachable): one BFS per distinct first endpoint."""
    from riptide.graph.traversal import bfs_frontiers

    xp = G.xp
    out = xp.full(u.shape[0], np.inf)
    sources = _device.to_host(xp.unique(u)).tolist()  # host loop over distinct sources (one BFS each)
    for s in sources:
        dist = xp.full(G.number_of_nodes(), np.inf)
        for level, frontier in enumerate(bfs_frontiers(G, xp.asarray([s], dtype=np.int64))):
            dist[frontier] = level
        mine = xp.flatnonzero(u == s)
        out[mine] = dist[v[mine]]
    return out


def overlap_coefficient(G: Any, ebunch: Any = None) -> Iterator[tuple]:
    """``(u, v, |common neighbours| / min(|N(u)|, |N(v)|))``: cuGraph's *overlap* coefficient (NetworkX has none).

    Named as in cuGraph (``cugraph.overlap``) and returned as NetworkX's link predictors return: a generator of
    triples over ``ebunch`` (every non-edge when None). Common neighbours and neighbour sets are those of
    :func:`jaccard_coefficient` (common neighbours exclude ``u`` and ``v``); 0 when a node has no neighbours.

    >>> from riptide.graph import from_edgelist
    >>> list(overlap_coefficient(from_edgelist([(0, 1), (1, 2), (2, 3), (0, 4)]), [(0, 2), (1, 3)]))
    [(0, 2, 0.5), (1, 3, 1.0)]
    """
    G = _checked(G)

    def score(stats: _Scores, u: Any, v: Any) -> tuple[Any, Any]:
        xp = stats.xp
        _, common, _ = stats.common(u, v)
        smaller = xp.minimum(stats.row_length[u], stats.row_length[v])
        empty = smaller == 0
        return common / xp.where(empty, 1, smaller), empty

    return _predict(G, ebunch, score, "overlap_coeff")


def sorensen_coefficient(G: Any, ebunch: Any = None) -> Iterator[tuple]:
    """``(u, v, 2 |common neighbours| / (|N(u)| + |N(v)|))``: cuGraph's *Sorensen* (Dice) coefficient.

    Named as in cuGraph (``cugraph.sorensen``), returned as NetworkX's link predictors return (a generator of
    triples; every non-edge when ``ebunch`` is None); neighbour sets as :func:`jaccard_coefficient`'s.

    >>> from riptide.graph import from_edgelist
    >>> list(sorensen_coefficient(from_edgelist([(0, 1), (1, 2), (2, 3), (0, 4)]), [(0, 2)]))
    [(0, 2, 0.5)]
    """
    G = _checked(G)

    def score(stats: _Scores, u: Any, v: Any) -> tuple[Any, Any]:
        xp = stats.xp
        _, common, _ = stats.common(u, v)
        size = stats.row_length[u] + stats.row_length[v]
        empty = size == 0
        return 2.0 * common / xp.where(empty, 1, size), empty

    return _predict(G, ebunch, score, "sorensen_coeff")

