"""Neighbourhood searches and graph passes shared by the density and hierarchical clusterers, with no O(n^2) memory.

Everything here works on whole arrays in ``xp`` (NumPy or CuPy) and bounds its temporaries by a *budget* of
elements, so that a search over ``n`` points never materializes an ``n x n`` matrix:

* :func:`radius_pairs` yields, chunk by chunk, every unordered pair ``{i, j}`` of distinct points with
  ``dist(x_i, x_j) <= eps`` once (scikit-learn's ``radius_neighbors`` lists both orders and each point itself; the
  symmetry halves the work).

  - **Low dimension (d <= 3), translation-invariant metrics**: a uniform grid of cell side ``eps``. Points are
    sorted by cell key; a point's neighbours lie in the ``3^d`` cells around its own, found as ranges of the sorted
    keys by ``searchsorted``. The candidate pairs are expanded from those ranges (segment arithmetic, no Python
    loop over points) and the exact distance decides. Work is proportional to the candidates, about
    ``3^d / volume-of-the-unit-ball`` times the true pairs; only half of the cells are visited (a pair of cells
    from the one with the smaller key, and within a cell the points after the query).
  - **Otherwise**: blocked brute force. A block of query rows against all points: for euclidean and cosine a GEMM
    (with a small slack for its rounding, then the exact distance of the few candidates near the border), for the
    other metrics the distances accumulated feature by feature (a ``block x n`` matrix, never ``block x n x d``).

  Distances compare as scikit-learn's trees do: ``sum (x - y)^2 <= eps^2`` for euclidean, ``sum |x - y|^p <=
  eps^p`` for minkowski, from the coordinates' differences (exact for the border cases in integer data).
* :func:`core_distances` (each row's distance to its ``k``-th nearest row) and :func:`mutual_reachability_mst`
  (Boruvka's algorithm on ``max(core_i, core_j, d / alpha)``; zero cores give the euclidean MST of single
  linkage) are all-pairs passes: on the GPU two CUDA kernels (:data:`PAIRS_SOURCE`: one thread per row, the other
  rows streamed through shared memory, exact distances), elsewhere blocked GEMMs (the xp twins). Both hold O(n)
  memory.
* connected components come from :func:`riptide.core.kernels.union_find.component_roots` (each vertex's root is
  the smallest vertex id of its component).
* :func:`prim_orientation` orients a tree's edges as scikit-learn's Prim's algorithm from sample 0 records them
  (host arrays), for the single-linkage tails of HDBSCAN and AgglomerativeClustering.
"""

from __future__ import annotations

import functools
import itertools
import types
from collections.abc import Iterator
from typing import Any

import numpy as np

from riptide import _device
from riptide.core.kernels.segments import row_of_each_element
from riptide.core.kernels.union_find import component_roots
from riptide.ml import _kernels as ml_kernels

__all__ = ["BUDGET", "DEVICE_METRICS", "Metric", "prim_orientation", "resolve_metric", "radius_pairs"]

BUDGET = 1 << 23  # candidate pairs (or block x n distances) held at once: about 0.5 GiB of temporaries
GRID_MAX_DIM = 3  # the grid scans 3^d cells per point: 27 at d = 3; beyond, blocked brute force wins
_GEMM_SLACK = 1e-9  # relative slack on GEMM distances before the exact check (float64 rounding is ~1e-16 |x|^2)

#: Metrics computed on the device, by their scikit-learn names (aliases resolved by :func:`resolve_metric`).
DEVICE_METRICS = {"euclidean": "euclidean", "l2": "euclidean", "manhattan": "manhattan", "l1": "manhattan",
                  "cityblock": "manhattan", "chebyshev": "chebyshev", "infinity": "chebyshev",
                  "minkowski": "minkowski", "cosine": "cosine", "precomputed": "precomputed"}  # fmt: skip


class Metric:
    """A resolved metric: ``name`` in euclidean, manhattan, chebyshev, minkowski, cosine, precomputed; ``p`` for
    minkowski."""

    def __init__(self, name: str, p: float | None = None) -> None:
        self.name, self.p = name, p

    def __repr__(self) -> str:
        return f"Metric({self.name!r}, p={self.p!r})"

    @property
    def grid_ok(self) -> bool:
        """Whether each coordinate difference is at most the distance (a grid of cell ``eps`` finds all pairs)."""
        return self.name in ("euclidean", "manhattan", "chebyshev", "minkowski")


def resolve_metric(metric: Any, p: float | None, metric_params: dict | None) -> Metric | None:
    """scikit-learn's ``NearestNeighbors`` metric resolution for the metrics computed here, or None when the
    host (scikit-learn itself) must find the neighbours: callables, other metrics, metric parameters other than
    ``p``, and minkowski with ``p < 1`` (scikit-learn's own warnings and errors then apply).

    >>> resolve_metric("minkowski", 1, None), resolve_metric("l2", None, None), resolve_metric("haversine", None, None)
    (Metric('manhattan', p=None), Metric('euclidean', p=None), None)
    """
    if not isinstance(metric, str) or metric not in DEVICE_METRICS:
        return None
    params = dict(metric_params or {})
    if params.keys() - {"p"}:
        return None
    name = DEVICE_METRICS[metric]
    if name != "minkowski":
        return Metric(name)
    p = params.get("p", p)
    p = 2 if p is None else p
    if p < 1:
        return None
    if p == 1:
        return Metric("manhattan")
    if p == 2:
        return Metric("euclidean")
    if np.isinf(p):
        return Metric("chebyshev")
    return Metric("minkowski", float(p))


# --------------------------------------------------------------------------- distances of given pairs


def _accumulate(acc: Any, diff: Any, metric: Metric, xp: types.ModuleType) -> None:
    """Adds one feature's absolute differences ``diff`` into the running (surrogate) distances ``acc``, in place
    (an overflow to inf is a distance over eps, as it is)."""
    if metric.name == "euclidean":
        with np.errstate(over="ignore"):
            acc += diff * diff
    elif metric.name == "manhattan":
        acc += diff
    elif metric.name == "chebyshev":
        xp.maximum(acc, diff, out=acc)
    else:
        acc += diff**metric.p


def _pair_within(X: Any, i: Any, j: Any, eps: float, metric: Metric, xp: types.ModuleType) -> Any:
    """Whether each pair ``(X[i], X[j])`` is within ``eps``, from the coordinates' differences (feature loop)."""
    acc = xp.zeros(i.shape[0], dtype=xp.float64)
    for k in range(X.shape[1]):  # a loop over features
        column = X[:, k]
        _accumulate(acc, xp.abs(column[i] - column[j]), metric, xp)
    return acc <= _threshold(eps, metric)


def _threshold(eps: float, metric: Metric) -> float:
    if metric.name == "euclidean":
        return eps * eps
    if metric.name == "minkowski":
        return eps**metric.p
    return eps


# --------------------------------------------------------------------------- the grid (low dimension)


def _grid_shape(X: Any, eps: float, xp: types.ModuleType) -> tuple[Any, list[int]] | None:
    """Cells per dimension (with a margin of one on each side) or None when the keys would overflow int64."""
    lo, hi = ml_kernels.column_extrema(X, xp)
    with np.errstate(over="ignore", invalid="ignore"):
        span = _device.to_host((hi - lo) / eps)  # one small read: the grid's shape (d floats)
        if not np.isfinite(span).all() or float(np.prod(span + 3)) >= 2.0**62:
            return None
    extent = [int(s) + 3 for s in span]  # cells 1 .. floor(span) + 1, and an empty cell each side
    return lo, extent


def _grid_pairs(X: Any, eps: float, metric: Metric, xp: types.ModuleType, budget: int,
                shape: tuple[Any, list[int]]) -> Iterator[tuple[Any, Any]]:  # fmt: skip
    n, d = X.shape
    lo, extent = shape
    strides = [1]
    for e in extent[:-1]:
        strides.append(strides[-1] * e)
    key = xp.zeros(n, dtype=xp.int64)
    for k in range(d):  # a loop over features
        cell = xp.floor((X[:, k] - lo[k]) / eps).astype(xp.int64) + 1
        key += cell * strides[k]
    order = xp.argsort(key)
    sorted_key = key[order]
    Xs = X[order]  # rows in cell order: the candidates of a point are near each other in memory
    # half of the 3^d neighbouring cells (a pair of cells is visited from the one with the smaller key) as key
    # offsets, ascending; within its own cell a point pairs with the points after it in the sorted order
    deltas = sorted(sum(o * s for o, s in zip(offset, strides, strict=True))
                    for offset in itertools.product((-1, 0, 1), repeat=d))  # fmt: skip
    deltas = xp.asarray([delta for delta in deltas if delta >= 0], dtype=xp.int64)
    m = deltas.shape[0]
    rows = max(1, budget // (4 * m))  # queries whose cell ranges are held at once
    for q0 in range(0, n, rows):
        q1 = min(n, q0 + rows)
        wanted = (sorted_key[q0:q1, None] + deltas[None, :]).ravel()
        starts = xp.searchsorted(sorted_key, wanted, side="left")
        stops = xp.searchsorted(sorted_key, wanted, side="right")
        own = xp.arange(q0, q1, dtype=xp.int64) + 1  # the points after the query in its own cell (delta 0)
        starts[0::m] = own
        lengths = xp.maximum(stops - starts, 0)
        ends = xp.cumsum(lengths)
        total = int(ends[-1])  # one scalar read: the chunk's candidate count
        if total <= budget:
            cuts = [0, lengths.shape[0]]
        else:  # split the ranges so that each piece expands to at most `budget` candidates (a range may exceed it)
            marks = xp.arange(budget, total, budget, dtype=xp.int64)
            inner = _device.to_host(xp.searchsorted(ends, marks, side="left"))  # one small read: the cut points
            cuts = sorted({0, lengths.shape[0], *(int(c) for c in inner)})
        for a, b in itertools.pairwise(cuts):
            if a == b:
                continue
            seg_len = lengths[a:b]
            offsets = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(seg_len)])
            seg = row_of_each_element(offsets, xp)
            if seg.shape[0] == 0:
                continue
            pos = xp.arange(seg.shape[0], dtype=xp.int64) - offsets[seg]
            jpos = starts[a:b][seg] + pos
            qpos = q0 + (a + seg) // m
            keep = _pair_within(Xs, qpos, jpos, eps, metric, xp)
            yield order[qpos[keep]], order[jpos[keep]]


# --------------------------------------------------------------------------- blocked brute force


def _column_means(X: Any, xp: types.ModuleType) -> Any:
    """``X.mean(axis=0)`` in X's float dtype, by one coalesced pass on the GPU (CuPy's axis-0 reduction gives each
    column to one block)."""
    mean = ml_kernels.column_means(X, xp)
    return mean.astype(X.dtype) if X.dtype.kind == "f" else mean


def _brute_pairs(X: Any, eps: float, metric: Metric, xp: types.ModuleType,
                 budget: int) -> Iterator[tuple[Any, Any]]:  # fmt: skip
    n = X.shape[0]
    rows = max(1, budget // max(n, 1))
    if metric.name == "euclidean":
        with np.errstate(over="ignore", invalid="ignore"):
            Xc = X - _column_means(X, xp)  # centred for the GEMM: smaller norms, smaller rounding (X decides)
            sq = (Xc * Xc).sum(axis=1)
    elif metric.name == "cosine":
        norms = xp.sqrt((X * X).sum(axis=1))
        U = X / xp.where(norms == 0, 1, norms)[:, None]  # scikit-learn's normalize leaves zero rows at zero
    threshold = _threshold(eps, metric)
    for r0 in range(0, n, rows):
        r1 = min(n, r0 + rows)
        block = slice(r0, r1)
        exact = True
        if metric.name == "precomputed":
            close = X[block] <= eps
        elif metric.name == "euclidean":
            with np.errstate(over="ignore", invalid="ignore"):  # huge values: NaN/inf candidates, checked exactly
                d2 = sq[block, None] + sq[None, :] - 2 * (Xc[block] @ Xc.T)
                close = ~(d2 > threshold + _GEMM_SLACK * (sq[block, None] + sq[None, :] + threshold))
            exact = False
        elif metric.name == "cosine":
            dist = xp.clip(1 - U[block] @ U.T, 0, 2)
            dist[xp.arange(r1 - r0), xp.arange(r0, r1)] = 0  # scikit-learn zeroes a point's distance to itself
            close = dist <= eps
        else:
            acc = xp.zeros((r1 - r0, n), dtype=xp.float64)
            for k in range(X.shape[1]):  # a loop over features
                _accumulate(acc, xp.abs(X[block, k][:, None] - X[None, :, k]), metric, xp)
            close = acc <= threshold
        close &= xp.arange(n)[None, :] > xp.arange(r0, r1)[:, None]  # each unordered pair once
        i, j = xp.nonzero(close)
        i = i.astype(xp.int64) + r0
        j = j.astype(xp.int64)
        if not exact:
            keep = _pair_within(X, i, j, eps, metric, xp)
            i, j = i[keep], j[keep]
        yield i, j


def radius_pairs(X: Any, eps: float, metric: Metric, xp: types.ModuleType,
                 budget: int = BUDGET) -> Iterator[tuple[Any, Any]]:  # fmt: skip
    """Chunks ``(i, j)`` (int64) of the pairs of distinct rows within ``eps`` of each other, each unordered pair
    once, in either orientation (``X`` float64; for ``precomputed``, the square distance matrix). A point is its
    own neighbour too, which the caller adds.

    >>> X = np.array([[0.0], [1.0], [5.0], [2.0]])
    >>> pairs = [tuple(sorted((int(a), int(b)))) for i, j in radius_pairs(X, 1.0, Metric("euclidean"), np)
    ...          for a, b in zip(i, j)]
    >>> sorted(pairs)
    [(0, 1), (1, 3)]
    """
    if metric.grid_ok and X.shape[1] <= GRID_MAX_DIM:
        shape = _grid_shape(X, eps, xp)
        if shape is not None:
            yield from _grid_pairs(X, eps, metric, xp, budget, shape)
            return
    yield from _brute_pairs(X, eps, metric, xp, budget)


# --------------------------------------------------------------------------- CUDA kernels (CuPy only)

#: Exact all-pairs passes for the GPU, one thread per query row, the other rows streamed through shared memory in
#: tiles of ``TILE`` (the query row stays in registers, ``d <= MAX_FEATURES``). Distances are accumulated feature by
#: feature in order with explicit round-to-nearest operations (no fused multiply-add), exactly as
#: :func:`_exact_distances` sums them, so both paths give bitwise the same distances. ``riptide_knn_kth``: the
#: ``k``-th smallest squared distance of each row (an insertion-sorted list of ``k <= MAX_K``).
#: ``riptide_boruvka_rowmin``: for each row, its least mutual-reachability edge to another component (ties to the
#: smaller column), which the NumPy twin finds with GEMM distances (equal up to rounding-level near-ties).
PAIRS_SOURCE = r"""
#ifndef MAX_FEATURES
#define MAX_FEATURES 32
#endif
#ifndef MAX_K
#define MAX_K 64
#endif
#ifndef TILE
#define TILE 128
#endif
typedef long long i64;
#define RIPTIDE_INF __longlong_as_double(0x7ff0000000000000LL)

__device__ __forceinline__ void load_tile(const double* __restrict__ X, const i64 n, const int d, const i64 j0,
                                          double* tile) {
    const int count = (int)min((i64)TILE, n - j0);
    for (int t = threadIdx.x; t < count * d; t += blockDim.x) {
        tile[t] = X[j0 * d + t];
    }
}

__device__ __forceinline__ double squared_distance(const double* xi, const double* xj, const int d) {
    double acc = 0.0;
#pragma unroll
    for (int k = 0; k < MAX_FEATURES; ++k) {
        if (k < d) {
            const double diff = __dsub_rn(xi[k], xj[k]);
            acc = __dadd_rn(acc, __dmul_rn(diff, diff));
        }
    }
    return acc;
}

extern "C" __global__ void riptide_knn_kth(const double* __restrict__ X, const i64 n, const int d, const int k,
                                           double* __restrict__ kth) {
    __shared__ double tile[TILE * MAX_FEATURES];
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    double xi[MAX_FEATURES];
#pragma unroll
    for (int f = 0; f < MAX_FEATURES; ++f) xi[f] = (i < n && f < d) ? X[i * d + f] : 0.0;
    double best[MAX_K];
    for (int t = 0; t < MAX_K; ++t) best[t] = RIPTIDE_INF;
    for (i64 j0 = 0; j0 < n; j0 += TILE) {
        __syncthreads();
        load_tile(X, n, d, j0, tile);
        __syncthreads();
        const int count = (int)min((i64)TILE, n - j0);
        if (i >= n) continue;
        for (int c = 0; c < count; ++c) {
            const double dist = squared_distance(xi, tile + c * d, d);
            if (dist < best[k - 1]) {  // insert, keeping best[0..k) ascending
                int t = k - 1;
                while (t > 0 && best[t - 1] > dist) {
                    best[t] = best[t - 1];
                    --t;
                }
                best[t] = dist;
            }
        }
    }
    if (i < n) kth[i] = best[k - 1];
}

extern "C" __global__ void riptide_boruvka_rowmin(const double* __restrict__ X, const i64 n, const int d,
                                                  const double* __restrict__ core, const i64* __restrict__ comp,
                                                  const double alpha, double* __restrict__ best_w,
                                                  i64* __restrict__ best_j) {
    __shared__ double tile[TILE * MAX_FEATURES];
    __shared__ double tile_core[TILE];
    __shared__ i64 tile_comp[TILE];
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    double xi[MAX_FEATURES];
#pragma unroll
    for (int f = 0; f < MAX_FEATURES; ++f) xi[f] = (i < n && f < d) ? X[i * d + f] : 0.0;
    const double core_i = i < n ? core[i] : 0.0;
    const i64 comp_i = i < n ? comp[i] : -1;
    double best = RIPTIDE_INF;
    i64 arg = 0;
    for (i64 j0 = 0; j0 < n; j0 += TILE) {
        __syncthreads();
        load_tile(X, n, d, j0, tile);
        const int count = (int)min((i64)TILE, n - j0);
        for (int t = threadIdx.x; t < count; t += blockDim.x) {
            tile_core[t] = core[j0 + t];
            tile_comp[t] = comp[j0 + t];
        }
        __syncthreads();
        if (i >= n) continue;
        for (int c = 0; c < count; ++c) {
            if (tile_comp[c] == comp_i) continue;  // an edge inside the component
            const double cores = fmax(core_i, tile_core[c]);
            if (!(cores < best)) continue;  // the reach is at least `cores`: it cannot win (exact, ties included)
            const double reach = fmax(__ddiv_rn(sqrt(squared_distance(xi, tile + c * d, d)), alpha), cores);
            if (reach < best) {  // strict: ties keep the smaller column
                best = reach;
                arg = j0 + c;
            }
        }
    }
    if (i < n) {
        best_w[i] = best;
        best_j[i] = arg;
    }
}
"""
MAX_FEATURES, MAX_K, TILE = 32, 64, 128


def _pairs_kernel(name: str) -> Any:
    return _pairs_module().get_function(name)


@functools.cache
def _pairs_module() -> Any:
    import cupy as cp

    options = (f"-DMAX_FEATURES={MAX_FEATURES}", f"-DMAX_K={MAX_K}", f"-DTILE={TILE}")
    return cp.RawModule(code=PAIRS_SOURCE, options=options)


def _kernels_apply(X: Any, xp: types.ModuleType) -> bool:
    """Whether the CUDA passes take this X (on the GPU, float64, at most ``MAX_FEATURES`` features)."""
    return xp is not np and X.shape[1] <= MAX_FEATURES


def _knn_kth_device(X: Any, k: int, xp: types.ModuleType) -> Any:
    X = xp.ascontiguousarray(X, dtype=xp.float64)
    n, d = X.shape
    kth = xp.empty(n, dtype=xp.float64)
    _pairs_kernel("riptide_knn_kth")((-(-n // TILE),), (TILE,), (X, np.int64(n), np.int32(d), np.int32(k), kth))
    return xp.sqrt(kth)


def _boruvka_rowmin_device(X: Any, core: Any, comp: Any, alpha: float, xp: types.ModuleType) -> tuple[Any, Any]:
    n, d = X.shape
    best_w = xp.empty(n, dtype=xp.float64)
    best_j = xp.empty(n, dtype=xp.int64)
    _pairs_kernel("riptide_boruvka_rowmin")((-(-n // TILE),), (TILE,),
                                            (X, np.int64(n), np.int32(d), xp.ascontiguousarray(core, xp.float64),
                                             xp.ascontiguousarray(comp, xp.int64), np.float64(alpha), best_w,
                                             best_j))  # fmt: skip
    return best_w, best_j


# --------------------------------------------------------------------------- k nearest neighbours, MST


def _exact_distances(X: Any, i: Any, j: Any, xp: types.ModuleType) -> Any:
    """Euclidean distances of the pairs ``(X[i], X[j])`` from the coordinates' differences (any shapes)."""
    acc = xp.zeros(i.shape, dtype=xp.float64)
    for k in range(X.shape[1]):  # a loop over features
        column = X[:, k]
        diff = column[i] - column[j]
        acc += diff * diff
    return xp.sqrt(acc)


def _gemm_sq(Xc: Any, sq: Any, block: slice, xp: types.ModuleType) -> Any:
    """Squared euclidean distances of the rows ``block`` to all rows by GEMM (rounded; clipped at 0)."""
    return xp.maximum(sq[block, None] + sq[None, :] - 2 * (Xc[block] @ Xc.T), 0)


def core_distances(X: Any, k: int, xp: types.ModuleType, budget: int = BUDGET) -> Any:
    """Each row's distance to its ``k``-th nearest row, itself included (scikit-learn's HDBSCAN core distance).

    Blocked GEMM: the ``k`` nearest candidates of each row of a block are selected on GEMM distances and their
    distances recomputed from the differences, so rounding cannot turn a duplicate's zero into ``1e-8``.

    >>> core_distances(np.array([[0.0], [1.0], [3.0], [7.0]]), 2, np).tolist()
    [1.0, 1.0, 2.0, 4.0]
    """
    n = X.shape[0]
    if _kernels_apply(X, xp) and k <= MAX_K:
        return _knn_kth_device(X, k, xp)
    Xc = X - _column_means(X, xp)
    sq = (Xc * Xc).sum(axis=1)
    out = xp.empty(n, dtype=xp.float64)
    rows = max(1, budget // max(n, 1))
    for r0 in range(0, n, rows):
        block = slice(r0, min(n, r0 + rows))
        d2 = _gemm_sq(Xc, sq, block, xp)
        nearest = xp.argpartition(d2, k - 1, axis=1)[:, :k] if k < n else xp.broadcast_to(xp.arange(n), d2.shape)
        own = xp.arange(block.start, block.stop)[:, None]
        out[block] = _exact_distances(X, xp.broadcast_to(own, nearest.shape), nearest, xp).max(axis=1)
    return out


def _pick_per_component(comp: Any, weight: Any, i: Any, j: Any, xp: types.ModuleType) -> tuple[Any, Any, Any]:
    """For each component, its candidate of least ``(weight, min(i, j), max(i, j))`` (a strict total order, so
    Boruvka's choices never close a cycle)."""
    from riptide.core.kernels.sort import lexsort

    lo, hi = xp.minimum(i, j), xp.maximum(i, j)
    order = lexsort([comp, weight, lo, hi], xp)  # by component, then the edge order
    comp_sorted = comp[order]
    first = xp.concatenate([xp.ones(1, dtype=bool), comp_sorted[1:] != comp_sorted[:-1]])
    chosen = order[first]
    return weight[chosen], lo[chosen], hi[chosen]


def mutual_reachability_mst(X: Any, core: Any, alpha: float, xp: types.ModuleType,
                            budget: int = 8 * BUDGET) -> tuple[Any, Any, Any]:  # fmt: skip
    """The minimum spanning tree of the mutual reachability graph ``max(core_i, core_j, |x_i - x_j| / alpha)``
    by Boruvka's algorithm: each round every component takes its lightest outgoing edge, found by blocked brute
    force (a ``block x n`` GEMM per block of rows, never ``n x n``); about ``log2 n`` rounds. Returns the
    ``n - 1`` edges ``(u, v, weight)``; weights are recomputed from the coordinates' differences.

    >>> u, v, w = mutual_reachability_mst(np.array([[0.0], [1.0], [3.0], [7.0]]), np.zeros(4), 1.0, np)
    >>> sorted(zip(u.tolist(), v.tolist(), w.tolist()))
    [(0, 1, 1.0), (1, 2, 2.0), (2, 3, 4.0)]
    """
    n = X.shape[0]
    fused = _kernels_apply(X, xp)
    if fused:
        Xd = xp.ascontiguousarray(X, dtype=xp.float64)
    else:
        Xc = X - _column_means(X, xp)
        sq = (Xc * Xc).sum(axis=1)
        rows = max(1, budget // max(n, 1))
    edges_u, edges_v = [], []
    comp = xp.arange(n, dtype=xp.int64)
    ids = xp.arange(n, dtype=xp.int64)
    components = n
    while components > 1:
        if fused:
            best_w, best_j = _boruvka_rowmin_device(Xd, core, comp, alpha, xp)
        else:
            best_w, best_j = _boruvka_rowmin_twin(Xc, sq, core, comp, alpha, rows, xp)
        _, lo, hi = _pick_per_component(comp, best_w, ids, best_j, xp)
        pair = lo * n + hi  # two components that chose the same edge add it once
        order = xp.argsort(pair)
        pair_sorted = pair[order]
        keep = order[xp.concatenate([xp.ones(1, dtype=bool), pair_sorted[1:] != pair_sorted[:-1]])]
        edges_u.append(lo[keep])
        edges_v.append(hi[keep])
        comp = component_roots(n, xp.concatenate(edges_u), xp.concatenate(edges_v), xp)
        components = int((comp == ids).sum())  # one scalar read per round: the components left
    u = xp.concatenate(edges_u) if edges_u else xp.empty(0, dtype=xp.int64)
    v = xp.concatenate(edges_v) if edges_v else xp.empty(0, dtype=xp.int64)
    w = xp.maximum(_exact_distances(X, u, v, xp) / alpha, xp.maximum(core[u], core[v]))
    if u.shape[0] > n - 1:  # GEMM rounding made two choices disagree and closed a cycle (near-ties only)
        u, v, w = _prune_to_tree(n, u, v, w, xp)
    return u, v, w


def _boruvka_rowmin_twin(Xc: Any, sq: Any, core: Any, comp: Any, alpha: float, rows: int,
                         xp: types.ModuleType) -> tuple[Any, Any]:  # fmt: skip
    """Each row's least mutual-reachability edge to another component (GEMM distances; ties to the smaller
    column, which is also the least ``(min(i, j), max(i, j))``): the xp twin of ``riptide_boruvka_rowmin``."""
    n = Xc.shape[0]
    best_w = xp.empty(n, dtype=xp.float64)
    best_j = xp.empty(n, dtype=xp.int64)
    for r0 in range(0, n, rows):
        block = slice(r0, min(n, r0 + rows))
        mr = xp.sqrt(_gemm_sq(Xc, sq, block, xp)) / alpha
        mr = xp.maximum(mr, xp.maximum(core[block, None], core[None, :]))
        mr[comp[block, None] == comp[None, :]] = xp.inf  # edges inside a component are not candidates
        j = xp.argmin(mr, axis=1)
        best_j[block] = j
        best_w[block] = mr[xp.arange(j.shape[0]), j]
    return best_w, best_j


def _prune_to_tree(n: int, u: Any, v: Any, w: Any, xp: types.ModuleType) -> tuple[Any, Any, Any]:
    """The minimum spanning tree of a connected sparse graph of about ``n`` edges (host, SciPy): a safety net."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree

    uh, vh, wh = (_device.to_host(a) for a in (u, v, w))
    # weights shifted by one so that zero-weight edges are kept (SciPy drops explicit zeros)
    tree = minimum_spanning_tree(coo_matrix((wh + 1.0, (uh, vh)), shape=(n, n)).tocsr()).tocoo()
    return (_device.to_device(tree.row.astype(np.int64), xp), _device.to_device(tree.col.astype(np.int64), xp),
            _device.to_device(tree.data - 1.0, xp))  # fmt: skip


def prim_orientation(u: np.ndarray, v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The edges ``(u, v)`` of a spanning tree of ``n`` vertices (host arrays) oriented as Prim's algorithm from
    vertex 0 (scikit-learn's) records them: from the end nearer to vertex 0 in the tree to the other (found by a
    breadth-first walk). The orientation decides which child of a single-linkage merge is the left one.

    >>> [a.tolist() for a in prim_orientation(np.array([1, 1]), np.array([0, 2]), 3)]
    [[0, 1], [1, 2]]
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order

    graph = coo_matrix((np.ones(u.shape[0]), (u, v)), shape=(n, n)).tocsr()
    _, parent = breadth_first_order(graph, 0, directed=False, return_predecessors=True)
    flip = parent[u] == v  # v is u's parent: the edge runs v -> u
    return np.where(flip, v, u), np.where(flip, u, v)
