"""Exact brute-force neighbour search in blocks: scikit-learn's distances, the k smallest per query, radius sets.

**Blocks.** The ``queries x fitted rows`` distance matrix is never materialised whole (1e4 x 2e5 is 16 GB in
float64): the fitted rows are walked in *index blocks* of at most :data:`_INDEX_BLOCK` rows and the queries in
*query blocks* sized so that one block of distances (and the selection's temporaries) fits
:func:`block_elements` -- a share of the free device memory on the GPU, a cache-friendly size on the CPU, or the
module knob :data:`_MAX_BLOCK_ELEMENTS` (tests force tiny blocks with it). A problem larger than device memory is
therefore processed block by block, never refused.

**Distances are scikit-learn's**, operation for operation where it matters for ties and tiny distances:

* euclidean / sqeuclidean (scikit-learn's ``EuclideanArgKmin``) for ranking and radius tests: float64 row norms
  (float32 data is upcast, as scikit-learn upcasts its chunks), the dot products by one GEMM per block (cuBLAS on
  the GPU), and ``max(0, (|q|^2 + (-2 q.x)) + |x|^2)`` in that order; euclidean distances are the square roots at
  the end.
  Ranking uses the squared value (scikit-learn's *surrogate* distance) and so does the radius test (``<= r^2``).
* manhattan / chebyshev / minkowski (scikit-learn's ``DistanceMetric``): per-feature differences in the data's
  type (float32 stays float32, as scikit-learn's 32-bit metric subtracts), accumulated in float64 in feature
  order; minkowski ranks on ``sum w |x - y|^p`` and takes the ``1/p`` power at the end (radius test ``<= r^p``).
* cosine (scikit-learn's ``cosine_distances``, computed in the data's type -- float32 when both sides are
  float32): rows scaled to unit norm (zero rows left as they are), ``1 - q.x`` clipped to ``[0, 2]``.

**Selection** (the xp twin, NumPy and CuPy): per block, the k smallest by ``(distance, index)`` -- the k-th value
by ``partition``, everything below it, and the lowest-indexed ties at it (a cumulative count), then a stable sort
of the k; merged with the running best k the same way. On the GPU, for ``k <= KMAX``,
:mod:`riptide.ml.neighbors._kernels` merges each GEMM block into the running best k in one pass.

**Euclidean ranking in float32, answers in float64.** For k-neighbours, a GEMM only *ranks*: the
``k + max(k, 24)`` best candidates (at most ``KMAX``) are found on float32 copies of the rows, centred on the
fitted rows' mean, by one GEMM of augmented rows whose product is ``|x|^2 - 2 q.x`` (:class:`RankingSide`): the
squared distance less ``|q|^2``, which ranks a query's fitted rows as the distance does, so the selection reads
plain values (no norms, no float64 arithmetic per entry). On the GPU that GEMM runs on tensor cores (TF32
inputs). The candidates are then re-ranked by exact float64 distances and *certified* against a bound of the
ranking's rounding; a query whose certificate fails (near-ties at the boundary, or data whose spread is tiny
against the bound) is searched again by a float64 GEMM, and failing that, by exact differences. The answer is
therefore the exact one whatever the ranking precision (``_APPROX_FLOAT32 = False`` starts at the float64 GEMM).

**Ties.** scikit-learn leaves them unspecified: its heap keeps an arbitrary member of a tie at the k-th place and
returns a tie in heap order, and its euclidean GEMM identity rounds the distances of duplicated rows apart (either
way). riptide's answer is defined: the k smallest by ``(distance, index)``, in that order, with the euclidean
candidates re-ranked by exact distances (:func:`_rerank`), so duplicates tie exactly and tiny distances are exact
(where scikit-learn reports the identity's rounding noise, about ``sqrt(d eps) |x|``).
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any

import numpy as np

from riptide.core.kernels import sort as sort_kernels
from riptide.ml import _kernels as ml_kernels
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
_RERANK_MARGIN = 24  # euclidean: at least this many candidates beyond k are re-ranked exactly (a gap that
# the ranking's rounding rarely closes: fewer queries go on to the float64 ranking)
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
    (float64, or the common type for cosine and the per-feature metrics) and squared row norms (GEMM metrics).
    A euclidean side also has ``approx``: the :class:`RankingSide` its candidates are ranked on."""

    def __init__(self, A: Any, metric: Metric, dtype: Any, xp: types.ModuleType, center: Any = None) -> None:
        self.n = A.shape[0]
        self.norms = None
        self.approx = None
        if metric.kind in _GEMM:
            self.values = A.astype(xp.float64, copy=False)
            self.norms = (self.values * self.values).sum(axis=1)
            if _APPROX_FLOAT32:
                # centered on the fitted rows' mean, so that the norms, which bound the ranking's rounding, are
                # those of the spread and not of the offset from the origin
                self.center = ml_kernels.column_means(self.values, xp) if center is None else center
                self.approx = RankingSide(self.values - self.center, xp)
        elif metric.kind == "cosine":
            values = A.astype(dtype, copy=False)
            norms = xp.sqrt((values * values).sum(axis=1))
            norms = xp.where(norms == 0, xp.ones_like(norms), norms)  # scikit-learn's normalize leaves zero rows
            self.values = values / norms[:, None]
        else:
            self.values = A.astype(dtype, copy=False)

    def take(self, rows: Any) -> Side:
        """The side of the rows ``rows`` (a euclidean side, without its ranking copy)."""
        part = Side.__new__(Side)
        part.n, part.values, part.approx = rows.shape[0], self.values[rows], None
        part.norms = None if self.norms is None else self.norms[rows]
        return part


class RankingSide:
    """A euclidean side's float32 copy (centered) in the two forms of the ranking GEMM: a query row ``q`` as
    ``[-2 q, 1, 1]`` and a fitted row ``x`` as ``[x, hi, lo]`` (``hi + lo = |x|^2``, ``hi`` exact in TF32), whose
    product is ``|x|^2 - 2 q.x``: the squared distance less ``|q|^2``, the same for every fitted row of a query, so
    it ranks them as the distance does (see :func:`kneighbors`). ``|x|^2`` is split so that a tensor core's TF32
    inputs keep it to about ``2**-20`` instead of ``2**-10``: it is the largest term. The rows are padded with zeros
    to a multiple of 8 floats (aligned GEMM operands)."""

    def __init__(self, centered: Any, xp: types.ModuleType) -> None:
        self.n, d = centered.shape
        self.xp = xp
        self.values = centered.astype(xp.float32)
        wide = self.values.astype(xp.float64)
        self.norms = (wide * wide).sum(axis=1)  # |x|^2 of the float32 rows, in float64
        self.width = -(-(d + 2) // 8) * 8
        self._query = self._fitted = None

    def _padded(self, first: Any, *last: Any) -> Any:
        out = self.xp.zeros((self.n, self.width), dtype=self.xp.float32)
        out[:, : first.shape[1]] = first
        for j, column in enumerate(last):
            out[:, first.shape[1] + j] = column
        return out

    @property
    def as_query(self) -> Any:
        if self._query is None:
            self._query = self._padded(-2 * self.values, 1, 1)
        return self._query

    @property
    def as_fitted(self) -> Any:
        if self._fitted is None:
            hi = tf32_truncated(self.norms.astype(self.xp.float32))
            self._fitted = self._padded(self.values, hi, (self.norms - hi).astype(self.xp.float32))
        return self._fitted


def tf32_truncated(a: Any) -> Any:
    """float32 values with the mantissa bits TF32 lacks cleared (exact as tensor-core inputs)."""
    return (a.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


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
    if metric.kind == "ranking":  # |x|^2 - 2 q.x of the float32 copies (see RankingSide)
        return ranking_products(q.as_query[a:b], y.as_fitted[c:e], xp)
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
    sorted by ``(distance, index)``. Euclidean searches are ranked, then re-ranked exactly (see :func:`_rerank`)."""
    if metric.kind in _GEMM and k < y.n:
        return _ranked_then_exact(q, y, k, metric, xp)
    return _kneighbors_blocks(q, y, k, metric, dtype, xp)


def _ranked_then_exact(q: Side, y: Side, k: int, metric: Metric, xp: types.ModuleType) -> tuple[Any, Any]:
    """Euclidean k-neighbours: the ``wide`` best candidates by a fast ranking, re-ranked by exact distances and
    certified against the ranking's rounding bound; the queries whose certificate fails go to the next, more
    precise ranking: float32 copies (on tensor cores on the GPU) -> float64 GEMM -> exact differences."""
    wide = min(y.n, k + max(k, _RERANK_MARGIN))
    if k <= _kernels.KMAX:
        wide = max(k, min(wide, _kernels.KMAX))  # stay on the kernel
    d = q.values.shape[1]
    if q.approx is not None and y.approx is not None:
        ranked, cand = _kneighbors_blocks(q.approx, y.approx, wide, _RANKING, np.dtype(np.float32), xp)
        widest = q.approx.norms + ranked[:, wide - 1].astype(xp.float64)  # the ranking adds |q|^2 back
        bound = _ranking_bound(q.approx, y.approx, d, ranking_input_rounding(xp), xp)
    else:
        ranked, cand = _kneighbors_blocks(q, y, wide, metric, np.dtype(np.float64), xp)
        widest = ranked[:, wide - 1]
        bound = _gemm_bound(q, y, d)
    out_d, out_i, uncertain = _rerank(q, y, k, cand, None if wide == y.n else widest, bound, xp)
    redo = xp.nonzero(uncertain)[0]
    if redo.shape[0]:  # one scalar read: are there uncertain queries (rare: near-ties at the boundary)
        part = q.take(redo)
        if q.approx is not None and y.approx is not None:  # the float64 GEMM ranking next
            out_d[redo], out_i[redo] = _ranked_then_exact(part, y, k, metric, xp)
        else:  # exact distances over every fitted row
            exact_y = Side(y.values, Metric("sqdiff"), np.float64, xp)
            out_d[redo], out_i[redo] = _kneighbors_blocks(part, exact_y, k, Metric("sqdiff"), np.dtype(np.float64),
                                                          xp)  # fmt: skip
    return out_d, out_i


_RANKING = Metric("ranking")  # the ranking GEMM of the float32 copies (see RankingSide)
_CUBLAS_COMPUTE_32F_FAST_TF32 = 77  # cublasComputeType_t: float32 data, tensor-core products of TF32 inputs
_TF32_ROUNDING = 2.0**-10  # a TF32 input's relative error (10 stored mantissa bits; truncated: below one ulp)


def ranking_products(A: Any, B: Any, xp: types.ModuleType) -> Any:
    """``A @ B.T`` of float32 matrices in float32. On the GPU through cuBLAS on tensor cores (TF32 inputs, float32
    accumulation; :func:`_ranking_bound` covers the inputs' rounding): the ranking GEMM is most of a search."""
    if xp is np:
        return A @ B.T
    from cupy.cuda import cublas, device

    m, width = A.shape
    n = B.shape[0]
    out = xp.empty((m, n), dtype=xp.float32)
    if m and n:
        one, zero = np.ones(1, np.float32), np.zeros(1, np.float32)
        # column-major view: out^T (n x m) = B (width x n)^T . A^T (width x m); CUDA_R_32F is 0, the algo -1
        cublas.gemmEx(device.get_cublas_handle(), cublas.CUBLAS_OP_T, cublas.CUBLAS_OP_N, n, m, width,
                      one.ctypes.data, B.data.ptr, 0, width, A.data.ptr, 0, width, zero.ctypes.data, out.data.ptr,
                      0, n, _CUBLAS_COMPUTE_32F_FAST_TF32, -1)  # fmt: skip
    return out


def ranking_input_rounding(xp: types.ModuleType) -> float:
    """The relative error of an input of :func:`ranking_products`: TF32's on the GPU, none on the CPU."""
    return 0.0 if xp is np else _TF32_ROUNDING


def _gemm_bound(q: Side, y: Side, d: int) -> Any:
    """Per query, a bound on the rounding of a squared distance from the float64 GEMM identity (any fitted row)."""
    return 2 * (d + 4) * float(np.finfo(np.float64).eps) * (q.norms + y.norms.max())


def _ranking_bound(q: RankingSide, y: RankingSide, d: int, u: float, xp: types.ModuleType) -> Any:
    """Per query, a bound on ``|ranked - exact|`` of a squared distance ranked on the float32 copies, over every
    fitted row. The GEMM's terms ``-2 q_i x_i`` sum in absolute value to at most ``2 |q| |x|``, and ``lo`` is at
    most ``2**-10 |x|^2`` (``hi`` is exact); tensor-core inputs are rounded to TF32 (each product off by
    ``2 u + u^2``, counted twice over; ``u`` is the inputs' relative error); the float32 accumulation of
    ``d + 2`` terms, the storage, the copies' rounding and the float64 norms stay within
    ``4 (d + 6) eps32 (|q|^2 + 2 |q| |x| + |x|^2)``."""
    eps32 = float(np.finfo(np.float32).eps)
    x2 = y.norms.max()
    cross = 2 * xp.sqrt(q.norms * x2)
    return 2 * (2 * u + u * u) * (cross + 2.0**-9 * x2) + 4 * (d + 6) * eps32 * (q.norms + cross + x2)


def _rerank(q: Side, y: Side, k: int, cand: Any, widest: Any, bound: Any,
            xp: types.ModuleType) -> tuple[Any, Any, Any]:  # fmt: skip
    """The exact k nearest among each query's candidates ``cand`` (its ``wide`` best by a ranking), and which
    queries are not certified (``widest``: the ranking's ``wide``-th distance per query, None when the candidates
    are every fitted row; ``bound``: the ranking's rounding per query).

    The ranking's rounding (about ``d eps (|q|^2 + |x|^2)``) can order two duplicated rows either way and turns
    tiny distances into noise; so the candidates' squared distances are recomputed from the differences (exact
    ties for duplicates, exact small distances) and the k best taken by ``(distance, index)``. The candidates are
    *certified*: a row not among them has a ranked distance at least the widest candidate's, so its exact
    distance is at least that minus the rounding bound; when that exceeds the k-th exact distance nothing outside
    could enter. On the GPU one kernel does it all (:func:`riptide.ml.neighbors._kernels.rerank`).
    """
    nq, wide = cand.shape
    d = q.values.shape[1]
    slack = 1 + 2 * (d + 4) * float(np.finfo(np.float64).eps)  # the exact sums' own rounding
    out_d = xp.empty((nq, k), dtype=xp.float64)
    out_i = xp.empty((nq, k), dtype=xp.int64)
    if xp is not np and wide <= _kernels.RERANK_MAX:
        uncertain = xp.zeros(nq, dtype=xp.bool_)
        widest, bound = (None if a is None else xp.ascontiguousarray(a) for a in (widest, bound))  # (column views)
        _kernels.rerank(xp.ascontiguousarray(q.values), xp.ascontiguousarray(y.values), xp.ascontiguousarray(cand),
                        k, widest, bound, slack, out_d, out_i, uncertain)  # fmt: skip
        return out_d, out_i, uncertain
    qb = max(1, block_elements(xp) // max(1, wide * d))
    for a in range(0, nq, qb):
        b = min(a + qb, nq)
        cand_i = cand[a:b]
        by_index = _sorted_rows(cand_i, xp)  # select() wants equal distances in increasing index order
        cand_i = xp.take_along_axis(cand_i, by_index, axis=1)
        diff = q.values[a:b, None, :] - y.values[cand_i]
        exact = (diff * diff).sum(axis=2)
        out_d[a:b], out_i[a:b] = select(exact, cand_i, k, xp)
    if widest is None:
        return out_d, out_i, xp.zeros(nq, dtype=xp.bool_)
    return out_d, out_i, ~(out_d[:, k - 1] * slack < widest - bound)


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
