"""Exact brute-force neighbour search in blocks: scikit-learn's distances, the k smallest per query, radius sets.

**Blocks.** The ``queries x fitted rows`` distance matrix is never materialised whole (1e4 x 2e5 is 16 GB in
float64): the fitted rows are walked in *index blocks* of at most :data:`_INDEX_BLOCK` rows and the queries in
*query blocks* sized so that one block of distances (and the selection's temporaries) fits
:func:`block_elements` -- a share of the free device memory on the GPU, a cache-friendly size on the CPU, or the
module knob :data:`_MAX_BLOCK_ELEMENTS` (tests force tiny blocks with it). A problem larger than device memory is
therefore processed block by block, never refused.

**Distances are scikit-learn's**, operation for operation where it matters for ties and tiny distances:

* euclidean / sqeuclidean (scikit-learn's ``EuclideanArgKmin``) for ranking and radius tests: float64 row norms (float32 data is upcast, as
  scikit-learn upcasts its chunks), the dot products by one GEMM per block (cuBLAS on the GPU), and
  ``max(0, (|q|^2 + (-2 q.x)) + |x|^2)`` in that order; euclidean distances are the square roots at the end.
  Ranking uses the squared value (scikit-learn's *surrogate* distance) and so does the radius test (``<= r^2``).
* manhattan / chebyshev / minkowski (scikit-learn's ``DistanceMetric``): per-feature differences in the data's
  type (float32 stays float32, as scikit-learn's 32-bit metric subtracts), accumulated in float64 in feature
  order; minkowski ranks on ``sum w |x - y|^p`` and takes the ``1/p`` power at the end (radius test ``<= r^p``).
* cosine (scikit-learn's ``cosine_distances``, computed in the data's type -- float32 when both sides are
  float32): rows scaled to unit norm (zero rows left as they are), ``1 - q.x`` clipped to ``[0, 2]``.

**Selection** (the xp twin, NumPy and CuPy): per block, the k smallest by ``(distance, index)`` -- the k-th value
by ``partition``, everything below it, and the lowest-indexed ties at it (a cumulative count), then a stable sort
of the k; merged with the running best k the same way. On the GPU, for ``k <= KMAX``,
:mod:`riptide.ml.neighbors._kernels` fuses the euclidean distance and the merge into one pass over each GEMM block.

**Euclidean ranking in float32, answers in float64.** For k-neighbours, the GEMM identity only *ranks*: the
``k + max(k, 8)`` best candidates (at most ``KMAX``) are found on float32 copies of the rows, centred on the fitted
rows' mean (a float32 GEMM output is half the bytes to write and read, and the pass over it is the search's cost),
then re-ranked by exact float64 distances and *certified* against a bound of the float32 rounding; a query whose
certificate fails (near-ties at the boundary, or data whose spread is tiny against the bound) is searched again
exactly. The answer is therefore the exact one whatever the ranking precision (``_APPROX_FLOAT32 = False``
ranks in float64; so does ``CUPY_TF32=1``, whose tensor-core products are outside the bound).

**Ties.** scikit-learn leaves them unspecified: its heap keeps an arbitrary member of a tie at the k-th place and
returns a tie in heap order, and its euclidean GEMM identity rounds the distances of duplicated rows apart (either
way). riptide's answer is defined: the k smallest by ``(distance, index)``, in that order, with the euclidean
candidates re-ranked by exact distances (:func:`_rerank`), so duplicates tie exactly and tiny distances are exact
(where scikit-learn reports the identity's rounding noise, about ``sqrt(d eps) |x|``).
"""

from __future__ import annotations

import os
import types
from dataclasses import dataclass
from typing import Any

import numpy as np

from riptide.core.kernels import sort as sort_kernels
from riptide.ml.neighbors import _kernels

__all__ = ["Metric", "Side", "block_elements", "kneighbors", "radius_neighbors", "finish", "to_surrogate"]

_INDEX_BLOCK = 16384  # fitted rows per index block (the GEMM's width; one block per ~0.3 ms GEMM on an H200)
_MAX_BLOCK_ELEMENTS: int | None = None  # knob: distance entries per block (None: chosen from free memory)
_HOST_BLOCK_ELEMENTS = 1 << 22  # on the CPU: 32 MiB of float64 distances per block
_DEVICE_SHARE = 32  # on the GPU: a block takes 1/32 of the free memory in float64 (temporaries included)
_DEVICE_MAX_ELEMENTS = 1 << 28  # and at most 2 GiB of float64 distances

#: scikit-learn's metric names -> riptide's computation
CANONICAL = {"euclidean": "euclidean", "l2": "euclidean", "sqeuclidean": "sqeuclidean", "cosine": "cosine",
             "manhattan": "manhattan", "cityblock": "manhattan", "l1": "manhattan", "chebyshev": "chebyshev",
             "infinity": "chebyshev", "minkowski": "minkowski", "p": "minkowski"}  # fmt: skip
_GEMM = {"euclidean", "sqeuclidean"}
_RERANK_MARGIN = 8  # euclidean: at least this many candidates beyond k are re-ranked exactly
_APPROX_FLOAT32 = True  # euclidean candidates ranked on float32 copies (then re-ranked exactly in float64)
_NO_INDEX = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Metric:
    """A supported metric: its computation (a value of :data:`CANONICAL`), ``p`` and weights ``w`` (minkowski)."""

    kind: str
    p: float = 2.0
    w: Any = None  # host array or None

    @classmethod
    def from_effective(cls, name: str, params: dict) -> Metric:
        kind = CANONICAL[name]
        if kind != "minkowski":
            return cls(kind)
        w = params.get("w")
        return cls(kind, float(params.get("p", 2)), None if w is None else np.asarray(w, dtype=np.float64))


def block_elements(xp: types.ModuleType) -> int:
    """How many distance entries one block may hold (see the module docstring)."""
    if _MAX_BLOCK_ELEMENTS is not None:
        return max(1, int(_MAX_BLOCK_ELEMENTS))
    if xp is np:
        return _HOST_BLOCK_ELEMENTS
    import cupy

    pool = cupy.get_default_memory_pool()
    free = cupy.cuda.runtime.memGetInfo()[0] + pool.free_bytes()
    limit = pool.get_limit()
    if limit:
        free = min(free, max(0, limit - pool.used_bytes()))
    return int(max(1 << 16, min(free // (8 * _DEVICE_SHARE), _DEVICE_MAX_ELEMENTS)))


class Side:
    """One side of the search (queries or fitted rows) prepared for a metric: the values to compute with
    (float64, or the common type for cosine and the per-feature metrics) and squared row norms (GEMM metrics)."""

    def __init__(self, A: Any, metric: Metric, dtype: Any, xp: types.ModuleType, center: Any = None) -> None:
        self.n = A.shape[0]
        self.norms = None
        self.approx = None
        if metric.kind in _GEMM:
            self.values = A.astype(xp.float64, copy=False)
            self.norms = (self.values * self.values).sum(axis=1)
            if _approx_float32():
                # the float32 ranking copy (see kneighbors): centered on the fitted rows' mean, so that the norms,
                # which bound its rounding, are those of the spread and not of the offset from the origin
                self.center = self.values.mean(axis=0) if center is None else center
                approx = Side.__new__(Side)
                approx.n, approx.approx = self.n, None
                approx.values = (self.values - self.center).astype(xp.float32)
                wide = approx.values.astype(xp.float64)
                approx.norms = (wide * wide).sum(axis=1)
                self.approx = approx
        elif metric.kind == "cosine":
            values = A.astype(dtype, copy=False)
            norms = xp.sqrt((values * values).sum(axis=1))
            norms = xp.where(norms == 0, xp.ones_like(norms), norms)  # scikit-learn's normalize leaves zero rows
            self.values = values / norms[:, None]
        else:
            self.values = A.astype(dtype, copy=False)


def common_dtype(a: Any, b: Any, metric: Metric) -> np.dtype:
    """The type distances are computed in (before the float64 accumulation of the per-feature metrics)."""
    if metric.kind in _GEMM:
        return np.dtype(np.float64)
    both32 = np.dtype(a) == np.float32 and np.dtype(b) == np.float32
    return np.dtype(np.float32 if both32 else np.float64)


def result_dtype(a: Any, b: Any, metric: Metric) -> np.dtype:
    """The distances' type: float64, except cosine between two float32 inputs (as scikit-learn)."""
    if metric.kind == "cosine":
        return common_dtype(a, b, metric)
    return np.dtype(np.float64)


def surrogate_block(q: Side, a: int, b: int, y: Side, c: int, e: int, metric: Metric,
                    xp: types.ModuleType) -> Any:  # fmt: skip
    """The ``(b - a) x (e - c)`` block of surrogate distances (squared euclidean, minkowski without the root)."""
    Q, Y = q.values[a:b], y.values[c:e]
    if metric.kind in _GEMM:  # (|q|^2 + (-2 q.x)) + |x|^2 in float64, in place (addition commutes exactly)
        block = (Q @ Y.T).astype(xp.float64, copy=False)  # (the float32 ranking copy: float32 dot products)
        block *= -2.0
        block += q.norms[a:b, None]
        block += y.norms[None, c:e]
        return xp.maximum(block, 0.0, out=block)  # rounding can make it negative: scikit-learn clamps at 0
    if metric.kind == "cosine":
        block = Q @ Y.T
        block *= -1
        block += 1
        return xp.clip(block, 0, 2, out=block)
    acc = xp.zeros((b - a, e - c), dtype=xp.float64)
    w = None if metric.w is None else xp.asarray(metric.w)
    for j in range(Q.shape[1]):  # a loop over features, each step whole-block
        diff = xp.abs(Q[:, j, None] - Y[None, :, j]).astype(xp.float64)
        if metric.kind == "manhattan":
            acc += diff
        elif metric.kind == "sqdiff":  # exact squared euclidean (the re-ranking's fallback)
            acc += diff * diff
        elif metric.kind == "chebyshev":
            xp.maximum(acc, diff, out=acc)
        else:
            term = diff**metric.p
            acc += term if w is None else w[j] * term
    return acc


def finish(surrogate: Any, metric: Metric, xp: types.ModuleType) -> Any:
    """Distances from surrogate distances."""
    if metric.kind == "euclidean":
        return xp.sqrt(surrogate)
    if metric.kind == "minkowski":
        return surrogate ** (1.0 / metric.p)
    return surrogate


def to_surrogate(radius: float, metric: Metric) -> float:
    """A radius in surrogate units (scikit-learn's ``_dist_to_rdist``)."""
    if metric.kind == "euclidean":
        return radius * radius
    if metric.kind == "minkowski":
        return radius**metric.p
    return radius


def _sorted_rows(values: Any, xp: types.ModuleType) -> Any:
    """Per row, the stable order of ``values`` (equal values keep their column order)."""
    return np.argsort(values, axis=1, kind="stable") if xp is np else xp.argsort(values, axis=1)


def select(D: Any, I: Any, k: int, xp: types.ModuleType) -> tuple[Any, Any]:
    """The k smallest entries of each row of D by ``(value, I)``, sorted, with their I. Requires that equal
    values in a row appear in increasing I from left to right (true of blocks and of the merges below)."""
    rows, m = D.shape
    if m > k:
        kth = xp.partition(D, k - 1, axis=1)[:, k - 1 : k]
        chosen = D <= kth
        if bool((chosen.sum(axis=1) != k).any()):  # one scalar read: ties at the k-th value (rare)
            below = D < kth
            tie = D == kth
            need = k - below.sum(axis=1, keepdims=True)
            chosen = below | (tie & (xp.cumsum(tie, axis=1) <= need))  # the lowest-indexed ties at the k-th value
        cols = xp.nonzero(chosen)[1].reshape(rows, k)  # row-major: increasing columns in each row
        D = xp.take_along_axis(D, cols, axis=1)
        I = xp.take_along_axis(I, cols, axis=1)
    order = _sorted_rows(D, xp)
    return xp.take_along_axis(D, order, axis=1), xp.take_along_axis(I, order, axis=1)


def _blocks(nq: int, n: int, per_row_extra: int, xp: types.ModuleType) -> tuple[int, int]:
    budget = block_elements(xp)
    ib = max(1, min(n, _INDEX_BLOCK, budget))
    qb = max(1, budget // (ib + per_row_extra))
    return qb, ib


def kneighbors(q: Side, y: Side, k: int, metric: Metric, dtype: Any, xp: types.ModuleType) -> tuple[Any, Any]:
    """Surrogate distances ``(nq, k)`` (type ``dtype``) and int64 indices of every query's k nearest fitted rows,
    sorted by ``(distance, index)``. Euclidean searches are re-ranked exactly (see :func:`_rerank`)."""
    if metric.kind in _GEMM and k < y.n:
        wide = min(y.n, k + max(k, _RERANK_MARGIN))
        if k <= _kernels.KMAX:
            wide = max(k, min(wide, _kernels.KMAX))  # stay on the kernel
        d = q.values.shape[1]
        if q.approx is not None and y.approx is not None:
            # rank on the float32 copies (half the GEMM output to write and read), with a rounding bound of
            # float32 inputs, float32 dot products and float32 storage (generous: a factor of about 8 over it)
            approx_d, approx_i = _kneighbors_blocks(q.approx, y.approx, wide, metric, np.dtype(np.float32), xp)
            bound = 4 * (d + 4) * float(np.finfo(np.float32).eps) * (q.approx.norms + y.approx.norms.max())
        else:
            approx_d, approx_i = _kneighbors_blocks(q, y, wide, metric, dtype, xp)
            bound = 2 * (d + 4) * float(np.finfo(np.float64).eps) * (q.norms + y.norms.max())
        return _rerank(q, y, k, approx_d, approx_i, bound, xp)
    return _kneighbors_blocks(q, y, k, metric, dtype, xp)


def _approx_float32() -> bool:
    """Rank euclidean candidates on float32 copies (:data:`_APPROX_FLOAT32`), unless CuPy's float32 GEMMs run on
    TF32 tensor cores (``CUPY_TF32=1``: 10-bit products, outside the rounding bound used)."""
    return _APPROX_FLOAT32 and os.environ.get("CUPY_TF32", "0") in ("", "0")


def _rerank(q: Side, y: Side, k: int, approx_d: Any, approx_i: Any, bound: Any,
            xp: types.ModuleType) -> tuple[Any, Any]:  # fmt: skip
    """The exact k nearest from the ``wide`` nearest by the GEMM identity (``bound``: its rounding per query).

    The identity's rounding (about ``d eps (|q|^2 + |x|^2)``) can order two duplicated rows either way and turns
    tiny distances into noise; so the candidates' squared distances are recomputed from the differences (exact
    ties for duplicates, exact small distances) and the k best taken by ``(distance, index)``. The candidates are
    *certified*: a row not among them has an identity distance at least the widest candidate's, so its exact
    distance is at least that minus the rounding bound; when that exceeds the k-th exact distance nothing outside
    could enter. Queries that fail the test (more equal distances at the boundary than the margin, or distances
    closer than the bound) are searched again with exact distances over all fitted rows.
    """
    nq, wide = approx_i.shape
    d = q.values.shape[1]
    out_d = xp.empty((nq, k), dtype=xp.float64)
    out_i = xp.empty((nq, k), dtype=xp.int64)
    qb = max(1, block_elements(xp) // max(1, wide * d))
    for a in range(0, nq, qb):
        b = min(a + qb, nq)
        cand_i = approx_i[a:b]
        by_index = _sorted_rows(cand_i, xp)  # select() wants equal distances in increasing index order
        cand_i = xp.take_along_axis(cand_i, by_index, axis=1)
        diff = q.values[a:b, None, :] - y.values[cand_i]
        exact = (diff * diff).sum(axis=2)
        out_d[a:b], out_i[a:b] = select(exact, cand_i, k, xp)
    if wide == y.n:
        return out_d, out_i
    widest = approx_d[:, wide - 1].astype(xp.float64)
    certain = out_d[:, k - 1] * (1 + 2 * (d + 4) * float(np.finfo(np.float64).eps)) < widest - bound
    redo = xp.nonzero(~certain)[0]
    if redo.shape[0]:  # one scalar read: are there uncertain queries (rare: massive ties at the boundary)
        exact_q = Side(q.values[redo], Metric("sqdiff"), np.float64, xp)
        exact_y = Side(y.values, Metric("sqdiff"), np.float64, xp)
        out_d[redo], out_i[redo] = _kneighbors_blocks(exact_q, exact_y, k, Metric("sqdiff"), np.dtype(np.float64),
                                                      xp)  # fmt: skip
    return out_d, out_i


def _kneighbors_blocks(q: Side, y: Side, k: int, metric: Metric, dtype: Any,
                       xp: types.ModuleType) -> tuple[Any, Any]:  # fmt: skip
    """The k smallest surrogate distances of each query over the index blocks (kernel or xp twin)."""
    nq, n = q.n, y.n
    qb, ib = _blocks(nq, n, 2 * k, xp)
    out_d = xp.empty((nq, k), dtype=dtype)
    out_i = xp.empty((nq, k), dtype=xp.int64)
    on_kernel = _kernels.usable(k, dtype, xp)
    for a in range(0, nq, qb):
        b = min(a + qb, nq)
        if on_kernel:
            best_d = xp.full((b - a, k), np.inf, dtype=dtype)
            best_i = xp.full((b - a, k), _NO_INDEX, dtype=xp.int64)
        else:
            best_d = best_i = None
        for c in range(0, n, ib):
            e = min(c + ib, n)
            if on_kernel:
                if metric.kind in _GEMM:  # the kernel turns the dot products into scikit-learn's distances
                    block = q.values[a:b] @ y.values[c:e].T
                    mode = 1
                else:
                    block = surrogate_block(q, a, b, y, c, e, metric, xp)
                    mode = 0
                block = xp.ascontiguousarray(block, dtype=dtype)
                _kernels.select(block, a, c, mode, q.norms, y.norms, best_d, best_i)
                continue
            block = surrogate_block(q, a, b, y, c, e, metric, xp).astype(dtype, copy=False)
            cols = xp.broadcast_to(xp.arange(c, e, dtype=xp.int64)[None, :], block.shape)
            block_d, block_i = select(block, cols, k, xp)
            if best_d is None:
                best_d, best_i = block_d, block_i
            else:  # earlier blocks hold lower indices: ties stay in index order left to right
                best_d, best_i = select(xp.concatenate([best_d, block_d], axis=1),
                                        xp.concatenate([best_i, block_i], axis=1), k, xp)  # fmt: skip
        out_d[a:b] = best_d
        out_i[a:b] = best_i
    return out_d, out_i


def radius_neighbors(q: Side, y: Side, r_surrogate: float, metric: Metric, dtype: Any, xp: types.ModuleType,
                     sort_results: bool) -> tuple[Any, Any, Any]:  # fmt: skip
    """Every ``(query, fitted row)`` pair within the radius (surrogate units, boundary included), as
    ``(rows, indices, surrogate distances)`` in row order; inside a row by increasing index, or by
    ``(distance, index)`` with ``sort_results``."""
    nq, n = q.n, y.n
    qb, ib = _blocks(nq, n, 0, xp)
    rows_parts, cols_parts, dist_parts = [], [], []
    for a in range(0, nq, qb):
        b = min(a + qb, nq)
        block_rows, block_cols, block_dist = [], [], []
        for c in range(0, n, ib):
            e = min(c + ib, n)
            block = surrogate_block(q, a, b, y, c, e, metric, xp).astype(dtype, copy=False)
            r, j = xp.nonzero(block <= r_surrogate)
            block_rows.append(r)
            block_cols.append(j + c)
            block_dist.append(block[r, j])
        r, j, d = (xp.concatenate(part) for part in (block_rows, block_cols, block_dist))
        if len(block_rows) > 1:  # index blocks in order: a stable sort by row keeps increasing indices
            order = sort_sorted_rows(r, xp)
            r, j, d = r[order], j[order], d[order]
        rows_parts.append(r + a)
        cols_parts.append(j)
        dist_parts.append(d)
    rows = xp.concatenate(rows_parts).astype(xp.int64, copy=False)
    cols = xp.concatenate(cols_parts).astype(xp.int64, copy=False)
    dist = xp.concatenate(dist_parts)
    if sort_results and rows.shape[0]:
        order = sort_kernels.lexsort([rows, dist], xp)  # ties keep increasing indices (the stable sorts)
        rows, cols, dist = rows[order], cols[order], dist[order]
    return rows, cols, dist


def sort_sorted_rows(rows: Any, xp: types.ModuleType) -> Any:
    """The stable order of the row numbers ``rows``."""
    return sort_kernels.stable_argsort(rows, xp)


def indptr_of(rows: Any, n_rows: int, xp: types.ModuleType) -> Any:
    """CSR row pointers of row-ordered row numbers."""
    counts = xp.bincount(rows, minlength=n_rows) if rows.shape[0] else xp.zeros(n_rows, dtype=xp.int64)
    indptr = xp.zeros(n_rows + 1, dtype=xp.int64)
    indptr[1:] = xp.cumsum(counts)
    return indptr
