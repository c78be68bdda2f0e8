"""Random walks on the device: uniform, weight-biased and node2vec (second order), named as in cuGraph.

NetworkX has no random-walk functions; :func:`random_walks` and :func:`node2vec` follow cuGraph's names,
parameters and (legacy) results: ``(vertex_paths, edge_weights, sizes)``, three riptide Series, the paths
concatenated in walk order with **original node ids**, the weights of the edges walked, and each path's number of
vertices. ``max_depth`` is the most vertices a path holds (the start included); a walk ends early at a vertex with
no way out (no out-arcs, or only zero-weight ones when biased). With ``use_padding=True`` (``compress_result=False``
for node2vec) every path takes ``max_depth`` slots (``max_depth - 1`` for weights), the unused ones missing.

**Device work.** All walkers advance together, one step per loop iteration (``max_depth - 1`` iterations, each a
few whole-array passes; no per-walker Python). A uniform step draws ``floor(r * degree)`` within the walker's CSR
row; a biased step draws ``r`` times the row's total weight and finds the arc by a ``searchsorted`` in the
prefix sums of the arc weights (so zero-weight arcs are never taken). node2vec (Grover & Leskovec) biases the step
from ``v`` (having come from ``t``) to ``x`` by ``w(v, x) * alpha``, ``alpha = 1/p`` if ``x == t``, ``1`` if
``t -> x`` is an arc, ``1/q`` otherwise; it samples by **rejection** (as KnightKing and cuGraph do): propose ``x``
with probability proportional to ``w(v, x)``, accept with probability ``alpha / max(1/p, 1, 1/q)``, and redraw
the rejected walkers only; the arc test is a ``searchsorted`` in the sorted arc keys ``t * n + x``. After
``MAX_REJECTION_ROUNDS`` rounds (a vanishing chance) a still-rejected walker keeps its last proposal.

**Randomness.** ``seed`` (an int, or None) seeds ``xp.random.RandomState``: the same seed gives the same walks
on one device kind; NumPy and CuPy draw different streams, so "the same" across devices means the same
distribution (each step uniform over the out-arcs, or proportional to the weights / node2vec biases), which the
tests check statistically.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide import _device
from riptide.graph._checks import as_riptide_graph
from riptide.graph.exceptions import NodeNotFound

__all__ = ["node2vec", "random_walks"]

MAX_REJECTION_ROUNDS = 200


def random_walks(G: Any, random_walks_type: str = "uniform", start_vertices: Any = None, max_depth: int | None = None,
                 use_padding: bool = False, legacy_result_type: bool = True, *, weight: str | None = "weight",
                 seed: int | None = None) -> tuple[Any, Any, Any]:  # fmt: skip
    """Random walks from ``start_vertices`` (cuGraph's ``random_walks``): ``(vertex_paths, edge_weights, sizes)``.

    ``random_walks_type``: "uniform" (each out-arc equally likely) or "biased" (proportional to the ``weight``
    attribute, 1 where missing). ``start_vertices``: node ids (a list, array or Series; None: every node once),
    repeats allowed. ``sizes`` is None with ``use_padding=True``, as in cuGraph.

    >>> from riptide.graph import from_edgelist, DiGraph
    >>> paths, weights, sizes = random_walks(from_edgelist([("a", "b"), ("b", "c")], create_using=DiGraph),
    ...                                      start_vertices=["a", "c"], max_depth=4, seed=0)
    >>> paths.to_pandas().tolist(), weights.to_pandas().tolist(), sizes.to_pandas().tolist()
    (['a', 'b', 'c', 'c'], [1.0, 1.0], [3, 1])
    """
    if random_walks_type not in ("uniform", "biased"):
        raise ValueError(f"random_walks_type must be 'uniform' or 'biased', got {random_walks_type!r} "
                         "(node2vec walks: riptide.graph.node2vec)")  # fmt: skip
    G = as_riptide_graph(G)
    depth = _checked_depth(max_depth)
    walker = _Walker(G, weight, seed)
    starts = _start_ids(G, start_vertices)
    steps = walker.walk(starts, depth, biased=random_walks_type == "biased")
    return _results(G, *steps, depth, use_padding)


def node2vec(G: Any, start_vertices: Any, max_depth: int = 1, compress_result: bool = True, p: float = 1.0,
             q: float = 1.0, *, weight: str | None = "weight",
             seed: int | None = None) -> tuple[Any, Any, Any]:  # fmt: skip
    """node2vec walks (cuGraph's ``node2vec``): ``(vertex_paths, edge_weights, vertex_path_sizes)``.

    ``p`` (return) and ``q`` (in-out) bias each step after the first as described in the module notes; steps
    are also proportional to the ``weight`` attribute (1 where missing; ``weight=None`` ignores it).
    ``compress_result=False`` pads every path to ``max_depth`` slots.

    >>> from riptide.graph import from_edgelist
    >>> paths, _, sizes = node2vec(from_edgelist([(0, 1)]), [0], max_depth=3, p=0.5, q=2.0, seed=1)
    >>> paths.to_pandas().tolist(), sizes.to_pandas().tolist()
    ([0, 1, 0], [3])
    """
    if not p > 0 or not q > 0:
        raise ValueError(f"p and q must be positive, got p={p}, q={q}")
    G = as_riptide_graph(G)
    depth = _checked_depth(max_depth)
    walker = _Walker(G, weight, seed)
    starts = _start_ids(G, start_vertices)
    steps = walker.walk(starts, depth, biased=True, p=p, q=q)
    return _results(G, *steps, depth, not compress_result)


def _checked_depth(max_depth: Any) -> int:
    if max_depth is None:
        raise TypeError("max_depth must be given (the most vertices a path holds)")
    if int(max_depth) < 1:
        raise ValueError(f"max_depth must be at least 1, got {max_depth}")
    return int(max_depth)


def _start_ids(G: Any, start_vertices: Any) -> Any:
    """Dense ids of the start vertices (every node when None); NodeNotFound for an id not in the graph."""
    xp = G.xp
    if start_vertices is None:
        return xp.arange(G.number_of_nodes(), dtype=np.int64)
    column = _as_id_column(start_vertices, xp)
    if column is not None:  # an array or Series of ids: matched on the device
        ids = G._ids_of_column(column)
        missing = xp.flatnonzero(ids < 0)[:1]
        if missing.shape[0]:  # one scalar read: whether some id is not a node
            bad = column.take(missing).to_arrow().to_pylist()[0]
            raise NodeNotFound(f"Node {bad} not in G.")
        return ids
    if not isinstance(start_vertices, list | tuple):
        start_vertices = list(start_vertices) if hasattr(start_vertices, "__iter__") and \
            not isinstance(start_vertices, str) else [start_vertices]  # fmt: skip
    index = G._index()
    ids = []
    for node in start_vertices:  # the user's ids, looked up on the host
        i = index.get(node)
        if i is None:
            raise NodeNotFound(f"Node {node} not in G.")
        ids.append(i)
    return _device.to_device(np.asarray(ids, dtype=np.int64), xp)


def _as_id_column(values: Any, xp: Any) -> Any:
    """A column of the ids in a riptide/pandas Series or a NumPy/CuPy array; None for other containers."""
    import pandas as pd

    from riptide.core.column import as_column
    from riptide.frame.series import Series

    if isinstance(values, Series):
        return values._column
    if isinstance(values, pd.Series | pd.Index) or _device.is_device_array(values) or \
            isinstance(values, np.ndarray):  # fmt: skip
        return as_column(values, xp=xp)
    return None


class _Walker:
    """The graph's CSR, arc weights and their prefix sums, and the random stream, for stepping walkers."""

    def __init__(self, G: Any, weight: str | None, seed: int | None) -> None:
        xp = self.xp = G.xp
        self.G = G
        self.offsets, self.indices = G._offsets, G._indices
        self.arc_weight = G._arc_weights(weight)
        self.cumulative = xp.concatenate([xp.zeros(1), xp.cumsum(self.arc_weight)])
        self.random = xp.random.RandomState(seed)
        self._keys: Any = None

    def uniform_step(self, v: Any) -> tuple[Any, Any]:
        """``(arc, moved)`` for walkers at ``v``: a uniformly drawn out-arc, and whether there was one."""
        xp = self.xp
        start, degree = self.offsets[v], self.offsets[v + 1] - self.offsets[v]
        pick = xp.minimum((self.random.random_sample(v.shape[0]) * degree).astype(np.int64),
                          xp.maximum(degree - 1, 0))  # fmt: skip
        return start + pick, degree > 0

    def check_weights(self) -> None:
        """Weights are probabilities for biased and node2vec steps: they must be >= 0 (and not NaN)."""
        if bool((~(self.arc_weight >= 0)).any()):  # one scalar read, once per walk
            raise ValueError("biased random walks need non-negative edge weights (no NaN)")

    def biased_step(self, v: Any) -> tuple[Any, Any]:
        """``(arc, moved)``: an out-arc drawn proportionally to the arc weights."""
        xp = self.xp
        lo, hi = self.offsets[v], self.offsets[v + 1]
        base, total = self.cumulative[lo], self.cumulative[hi] - self.cumulative[lo]
        target = base + self.random.random_sample(v.shape[0]) * total
        arc = xp.searchsorted(self.cumulative, target, side="right") - 1
        arc = xp.minimum(xp.maximum(arc, lo), xp.maximum(hi - 1, lo))
        return arc, total > 0

    def has_arc(self, a: Any, b: Any) -> Any:
        xp, n = self.xp, max(self.G.number_of_nodes(), 1)
        if self._keys is None:
            self._keys = xp.sort(self.G._arc_src * n + self.indices)
        if self._keys.shape[0] == 0:
            return xp.zeros(a.shape[0], dtype=bool)
        query = a * n + b
        at = xp.minimum(xp.searchsorted(self._keys, query), self._keys.shape[0] - 1)
        return self._keys[at] == query

    def node2vec_step(self, v: Any, prev: Any, p: float, q: float) -> tuple[Any, Any]:
        """``(arc, moved)``: node2vec's second-order step from ``v`` having come from ``prev``, by rejection."""
        xp = self.xp
        bound = max(1.0 / p, 1.0, 1.0 / q)
        arc, moved = self.biased_step(v)
        pending = xp.flatnonzero(moved)
        for _ in range(MAX_REJECTION_ROUNDS):
            x = self.indices[arc[pending]]
            t = prev[pending]
            alpha = xp.where(x == t, 1.0 / p, xp.where(self.has_arc(t, x), 1.0, 1.0 / q))
            rejected = self.random.random_sample(pending.shape[0]) * bound >= alpha
            pending = pending[rejected]
            if pending.shape[0] == 0:  # one scalar read per round: every walker accepted its proposal
                break
            arc[pending] = self.biased_step(v[pending])[0]
        return arc, moved

    def walk(self, starts: Any, depth: int, biased: bool, p: float | None = None,
             q: float | None = None) -> tuple[Any, Any]:  # fmt: skip
        """``(vertices, weights)``: (walkers x depth) dense ids, -1 after a path ends, and (walkers x depth - 1)
        edge weights (meaningful where the vertex slot after them is used)."""
        xp = self.xp
        if biased:
            self.check_weights()
        k = starts.shape[0]
        vertices = xp.full((k, depth), -1, dtype=np.int64)
        weights = xp.zeros((k, max(depth - 1, 0)))
        vertices[:, 0] = starts
        current, previous = starts, None
        alive = xp.arange(k, dtype=np.int64)
        for step in range(1, depth):
            if alive.shape[0] == 0:  # one scalar read per step: walkers left
                break
            if p is not None and previous is not None:
                arc, moved = self.node2vec_step(current, previous, p, q)
            elif biased:
                arc, moved = self.biased_step(current)
            else:
                arc, moved = self.uniform_step(current)
            alive, arc, previous = alive[moved], arc[moved], current[moved]
            current = self.indices[arc]
            vertices[alive, step] = current
            weights[alive, step - 1] = self.arc_weight[arc]
        return vertices, weights


def _results(G: Any, vertices: Any, weights: Any, depth: int, padded: bool) -> tuple[Any, Any, Any]:
    """The three Series: paths in original ids, edge weights, sizes (None when padded)."""
    from riptide.core import dtypes
    from riptide.core.column import NumericColumn
    from riptide.frame.index import default_index
    from riptide.frame.series import Series

    xp = G.xp
    valid = vertices >= 0
    sizes = valid.sum(axis=1).astype(np.int64)
    labels = G._label_column()
    flat = vertices.ravel()
    flat_weights = weights.ravel()
    walked = valid[:, 1:].ravel()  # an edge slot is used when the vertex it leads to is
    if padded:
        path_column = labels.take_or_missing(flat)
        weight_column = NumericColumn(xp.where(walked, flat_weights, 0.0), dtype=dtypes.normalize("Float64"),
                                      mask=walked)  # fmt: skip
    else:
        path_column = labels.take(flat[valid.ravel()])
        weight_column = NumericColumn(flat_weights[walked])

    def series(column: Any, name: str) -> Any:
        return Series._from_column(column, default_index(column.size, xp), name)

    paths = series(path_column, "vertex_paths")
    edge_weights = series(weight_column, "edge_weights")
    return paths, edge_weights, None if padded else series(NumericColumn(sizes), "sizes")
