"""CUDA kernels for exact k-nearest neighbours: a per-row filter of a distance block against the best k, and the
exact re-ranking of each query's candidates.

The brute-force search (:mod:`riptide.ml.neighbors._brute`) walks the fitted rows in *index blocks*. For the
euclidean metric a block is one cuBLAS GEMM (the dot products of a block of queries with a block of fitted rows);
this kernel then reads that block **once**, turns each dot product into scikit-learn's squared distance
``max(0, (|q|^2 + (-2 q.x)) + |x|^2)`` (the same float64 operations in the same order as scikit-learn's
``EuclideanArgKmin``), and merges the block's candidates into the query's running best ``k`` (kept in global
memory between blocks, sorted). So the ``queries x fitted rows`` matrix is never materialised whole: only one
block, written by the GEMM and read by this kernel. That read bounds the pass (a block of 1e4 x 16384 float32 is
655 MB), so the common case is kept to a load and a comparison per column: the kernel is a *filter*, not a merge.

* **A warp per query row** (:data:`THREADS` / 32 rows per CUDA block, a grid-stride loop over rows; warp votes
  instead of block barriers). The row's best ``k`` sits in the warp's shared memory and its k-th pair ``tau`` is
  the filter: the lanes read the row coalesced, :data:`LOAD_BYTES` per lane per round (all loads issued before
  any is used, so that the bytes in flight cover the memory latency even with few resident warps), and a column
  that does not come before ``tau`` costs a comparison. After the first index block ``tau`` is tight: the b-th
  block of unordered data holds about ``k / b`` candidates per row, so a warp rarely leaves the filter loop.
  Mode 1 compares the float64 value with the float64 successor of ``tau`` before rounding it to ``VAL_T``
  (rounding is monotone: a larger value cannot round to a value before ``tau``).
* **Candidates** go to the warp's shared buffer of :data:`BUFFER` pairs; a ballot gives each passing lane its
  slot, so the warp knows *before* writing whether they fit. When they do not, it merges the buffer first, which
  tightens ``tau``, and tests the round's remaining passes again against the new ``tau``. Nothing is dropped and
  no column is buffered twice. A buffered distance is formed again from the block (just read: cached) rather than
  kept in registers through a merge, which keeps the hot loop's register count down.
* **Merge** (the warp alone): the best ``k`` of the list and the buffer, by *ranks*. A candidate's rank is the
  number of list pairs before it (a binary search: the list is sorted) plus the number of candidates before it; a
  list pair's rank is its position plus the candidates before it. Pairs are compared as ``(distance, index)``, a
  total order on distinct indices (a column is a candidate at most once; the list's ``(inf, NO_INDEX)`` padding
  comes after every candidate and keeps its positions), so the ranks are a permutation: each pair of rank below
  ``k`` is written to that place of the warp's *other* list (two lists, swapped per merge) and the result is
  sorted. The row's last merge writes straight to its best arrays in global memory.
* **The first index block** (``tau = (inf, NO_INDEX)``: every column passes) takes the same path: the buffer fills
  in the first round, the first merge makes ``tau`` the k-th best of ``BUFFER`` columns, and every later merge
  comes after ``BUFFER`` more passes at a falling rate, so a 16384-column row takes a handful of merges. A row
  whose distances fall along the index (every column passes) costs a merge per ``BUFFER`` columns: slower, exact.
* **Ties** are broken by the fitted row's index: the result does not depend on scheduling and equals the xp twin's
  (scikit-learn keeps the lowest indices among equal distances at the k-th place; the order inside a tie is its
  heap's, undefined: riptide's is by index). A **NaN** distance comes before nothing, so it never passes the
  filter: a row keeps ``(inf, NO_INDEX)`` pairs where it has fewer than ``k`` non-NaN distances (mode 1 clamps
  at 0 as the twin's ``maximum`` does: a NaN stays NaN).
* ``mode`` 0 reads the block as distances already (other metrics, computed by the xp code); ``mode`` 1 as dot
  products (euclidean: the distance is formed in double from them and the double norms, stored as ``VAL_T``).
  ``VAL_T`` is the block's type: float for the euclidean ranking (float32 copies, re-ranked exactly afterwards,
  see :mod:`riptide.ml.neighbors._brute`) and for cosine on float32 data, double otherwise. :data:`KMAX` bounds
  ``k`` (larger ``k`` takes the xp twin).

Mode 0 also has a kernel of its own, ``riptide_knn_select_values``: the euclidean search's main pass (the float32
ranking values of :class:`riptide.ml.neighbors._brute.RankingSide`) then gets a register count of its own, not
mode 1's (whose float64 arithmetic per column needs about 96 registers a thread: a third of an SM's warps).

**Re-ranking** (``riptide_knn_rerank``): a warp per query takes its ``wide`` candidates (at most
:data:`RERANK_MAX`), sums their exact squared distances over the float64 features in order, places each by the
candidates before it in ``(distance, index)`` order (the k first are written, sorted) and checks the certificate
of :func:`riptide.ml.neighbors._brute._rerank` -- one launch for what the xp twin does in a dozen passes.

Shared memory: ``(2 k + BUFFER) * (8 + itemsize)`` bytes per warp (12 KiB per CUDA block at ``k = KMAX`` in
double). Per-lane arrays are indexed only by unrolled constants, so nothing lives in local memory.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

__all__ = ["SELECT_SOURCE", "RERANK_SOURCE", "KMAX", "RERANK_MAX", "THREADS", "BUFFER", "LOAD_BYTES", "usable",
           "select", "rerank"]

KMAX = 64  # the largest k the kernel takes (its shared memory and merges grow with k); larger k: the xp twin
THREADS = 128  # threads per CUDA block: four warps, four query rows at a time (a multiple of 32)
BUFFER = 64  # candidates a warp buffers before it merges (at least 32: one ballot's worth)
LOAD_BYTES = 32  # bytes each lane loads per round (8 float32 / 4 float64 columns; 64 B: more registers, slower)

SELECT_SOURCE = r"""
#ifndef VAL_T
#define VAL_T double
#endif
#ifndef BUFFER
#define BUFFER 64
#endif
#ifndef RIPTIDE_INF
#define RIPTIDE_INF __longlong_as_double(0x7FF0000000000000LL)  // +inf (NVRTC has no math.h INFINITY)
#endif
#ifndef RIPTIDE_DYNAMIC_SHARED
#define RIPTIDE_DYNAMIC_SHARED(name) extern __shared__ double name[]
#endif
typedef VAL_T val_t;
typedef long long i64;
#define RIPTIDE_NO_INDEX 0x7FFFFFFFFFFFFFFFLL
#define RIPTIDE_FULL_WARP 0xFFFFFFFFu
#ifndef LOAD_BYTES
#define LOAD_BYTES 32
#endif
#define RIPTIDE_UNROLL (LOAD_BYTES / (int)sizeof(val_t))  // columns a lane loads per round (at most 32: a bit mask)

// (d1, i1) comes strictly before (d2, i2): by distance, then by index (a NaN distance never comes first)
__device__ __forceinline__ bool riptide_knn_before(const val_t d1, const i64 i1, const val_t d2, const i64 i2) {
    return d1 < d2 || (d1 == d2 && i1 < i2);
}

// The successor of t in val_t, as a double: a double above it rounds to a value after t (rounding is monotone).
// t is finite.
__device__ __forceinline__ double riptide_knn_above(const val_t t) {
    return sizeof(val_t) == 4 ? (double)nextafterf((float)t, (float)RIPTIDE_INF)
                              : nextafter((double)t, (double)RIPTIDE_INF);
}

// How many of the n pairs (d, ix) come before (x_d, x_i). Every lane reads the same pair: a shared broadcast.
__device__ __forceinline__ int riptide_knn_count_before(const val_t* d, const i64* ix, const int n, const val_t x_d,
                                                        const i64 x_i) {
    int count = 0;
    for (int t = 0; t < n; ++t) count += riptide_knn_before(d[t], ix[t], x_d, x_i);
    return count;
}

// The warp's merge: the best k of its sorted list (ld, li) and its n buffered candidates (cd, ci), sorted, into
// the other list (od, oi), by ranks (see the module doc). Every lane of the warp calls it; it ends with the new
// list visible to all. Each lane ranks and places its own pairs one at a time (nothing indexed in registers).
__device__ __forceinline__ void riptide_knn_merge(const val_t* ld, const i64* li, const val_t* cd, const i64* ci,
                                                  const int n, const int k, const int lane, val_t* od, i64* oi) {
    __syncwarp();  // the buffer's writes are visible
    for (int j = lane; j < n; j += 32) {  // a candidate: the list pairs before it (a binary search) + candidates
        const val_t x_d = cd[j];
        const i64 x_i = ci[j];
        int lo = 0, hi = k;
        while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            if (riptide_knn_before(ld[mid], li[mid], x_d, x_i)) lo = mid + 1; else hi = mid;
        }
        const int rank = lo + riptide_knn_count_before(cd, ci, n, x_d, x_i);
        if (rank < k) {
            od[rank] = x_d;
            oi[rank] = x_i;
        }
    }
    for (int p = lane; p < k; p += 32) {  // a list pair: its position + the candidates before it
        const val_t x_d = ld[p];
        const i64 x_i = li[p];
        const int rank = p + riptide_knn_count_before(cd, ci, n, x_d, x_i);
        if (rank < k) {
            od[rank] = x_d;
            oi[rank] = x_i;
        }
    }
    __syncwarp();  // the new list is visible (and every lane is done with the buffer)
}

// Mode 1: scikit-learn's squared euclidean distance from a dot product, in double before the rounding to val_t
// (-2 dot is exact, so a contraction into an FMA rounds the same), then clamped at 0 (rounding can make it
// negative; a NaN stays NaN, as in the xp twin's maximum).
__device__ __forceinline__ double riptide_knn_squared(const val_t dot, const double q_norm, const double y_norm) {
    return (q_norm + (-2.0 * (double)dot)) + y_norm;
}
__device__ __forceinline__ val_t riptide_knn_clamped(const double s) { return (val_t)(s < 0.0 ? 0.0 : s); }

// The distance of a column from its block value v (mode 0: v is the distance).
template <int MODE>
__device__ __forceinline__ val_t riptide_knn_distance(const val_t v, const double q_norm, const double y_norm) {
    return MODE == 1 ? riptide_knn_clamped(riptide_knn_squared(v, q_norm, y_norm)) : v;
}

// The rows of one warp: MODE 0 reads distances, MODE 1 dot products (see riptide_knn_select). lists_d / lists_i:
// the warp's two lists of k pairs (the merge writes the other one), buf_d / buf_i: its BUFFER candidates.
template <int MODE>
__device__ __forceinline__ void riptide_knn_rows(
        const val_t* __restrict__ block, const i64 ld, const i64 rows, const int ncols, const i64 row0,
        const i64 col0, const double* __restrict__ qn, const double* __restrict__ yn, val_t* __restrict__ best_d,
        i64* __restrict__ best_i, const int k, val_t* lists_d, i64* lists_i, val_t* buf_d, i64* buf_i) {
    const int lane = threadIdx.x & 31;
    const unsigned lanes_before = (1u << lane) - 1u;
    const i64 warps = (i64)gridDim.x * (blockDim.x >> 5);
    const val_t inf = (val_t)RIPTIDE_INF;
    for (i64 r = (i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); r < rows; r += warps) {  // warp-uniform
        val_t* row_best_d = best_d + r * k;
        i64* row_best_i = best_i + r * k;
        val_t* list_d = lists_d;  // the current list: lists_d / lists_i + 0 or k
        i64* list_i = lists_i;
        for (int p = lane; p < k; p += 32) {
            list_d[p] = row_best_d[p];
            list_i[p] = row_best_i[p];
        }
        __syncwarp();
        val_t tau_d = list_d[k - 1];
        i64 tau_i = list_i[k - 1];
        // mode 1's shortcut past the rounding to val_t: a value above `above` cannot come before tau
        double above = tau_d < inf ? riptide_knn_above(tau_d) : (double)RIPTIDE_INF;
        int n = 0;  // candidates buffered (warp-uniform)
        bool merged = false;
        const val_t* src = block + r * ld;
        const double q_norm = MODE == 1 ? qn[row0 + r] : 0.0;
        for (int base = 0; base < ncols; base += 32 * RIPTIDE_UNROLL) {
            val_t v[RIPTIDE_UNROLL];
            unsigned pass = 0;  // bit u: column base + 32 u + lane comes before tau
#pragma unroll
            for (int u = 0; u < RIPTIDE_UNROLL; ++u) {  // all loads first: they are in flight together
                const int c = base + 32 * u + lane;
                v[u] = c < ncols ? src[c] : (val_t)0;
            }
#pragma unroll
            for (int u = 0; u < RIPTIDE_UNROLL; ++u) {
                const int c = base + 32 * u + lane;
                if (c >= ncols) continue;
                val_t d = v[u];
                if (MODE == 1) {
                    const double s = riptide_knn_squared(v[u], q_norm, yn[col0 + c]);
                    if (s > above) continue;
                    d = riptide_knn_clamped(s);
                }
                if (riptide_knn_before(d, col0 + c, tau_d, tau_i)) pass |= 1u << u;
            }
            if (!__any_sync(RIPTIDE_FULL_WARP, pass != 0)) continue;  // the common case
            // The passing columns' distances are formed again from the block (cached: just read) rather than kept
            // in registers through the merges: fewer registers on the hot path.
            while (true) {  // buffer the passing columns in u order; when they do not fit, merge and go on
#pragma unroll
                for (int u = 0; u < RIPTIDE_UNROLL; ++u) {
                    const bool mine = (pass >> u) & 1u;
                    const unsigned ballot = __ballot_sync(RIPTIDE_FULL_WARP, mine);
                    if (ballot == 0) continue;
                    if (n + __popc(ballot) > BUFFER) break;  // (warp-uniform)
                    if (mine) {
                        const int c = base + 32 * u + lane, slot = n + __popc(ballot & lanes_before);
                        buf_d[slot] = riptide_knn_distance<MODE>(src[c], q_norm, MODE == 1 ? yn[col0 + c] : 0.0);
                        buf_i[slot] = col0 + c;
                    }
                    n += __popc(ballot);
                    pass &= ~(1u << u);
                }
                if (!__any_sync(RIPTIDE_FULL_WARP, pass != 0)) break;
                val_t* next_d = list_d == lists_d ? lists_d + k : lists_d;
                i64* next_i = list_i == lists_i ? lists_i + k : lists_i;
                riptide_knn_merge(list_d, list_i, buf_d, buf_i, n, k, lane, next_d, next_i);
                list_d = next_d;
                list_i = next_i;
                n = 0;
                merged = true;
                tau_d = list_d[k - 1];
                tau_i = list_i[k - 1];
                above = tau_d < inf ? riptide_knn_above(tau_d) : (double)RIPTIDE_INF;
#pragma unroll
                for (int u = 0; u < RIPTIDE_UNROLL; ++u) {  // the columns left, against the tighter tau
                    const int c = base + 32 * u + lane;
                    if (((pass >> u) & 1u) &&
                        !riptide_knn_before(riptide_knn_distance<MODE>(src[c], q_norm, MODE == 1 ? yn[col0 + c] : 0.0),
                                            col0 + c, tau_d, tau_i))
                        pass &= ~(1u << u);
                }
            }
        }
        if (n > 0) {  // the last candidates go straight to the row's best
            riptide_knn_merge(list_d, list_i, buf_d, buf_i, n, k, lane, row_best_d, row_best_i);
        } else if (merged) {
            for (int p = lane; p < k; p += 32) {
                row_best_d[p] = list_d[p];
                row_best_i[p] = list_i[p];
            }
        }
        __syncwarp();  // the lists and the buffer are reused by the warp's next row
    }
}

// The shared-memory layout of a warp's lists and buffer: per warp 2 k + BUFFER int64 indices, then (after all
// warps' indices) as many val_t.
template <int MODE>
__device__ __forceinline__ void riptide_knn_select_rows(
        const val_t* __restrict__ block, const i64 ld, const i64 rows, const int ncols, const i64 row0,
        const i64 col0, const double* __restrict__ qn, const double* __restrict__ yn, val_t* __restrict__ best_d,
        i64* __restrict__ best_i, const int k) {
    RIPTIDE_DYNAMIC_SHARED(shared);
    const int warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5, per_warp = 2 * k + BUFFER;
    i64* lists_i = (i64*)shared + (i64)warp * per_warp;
    val_t* lists_d = (val_t*)((i64*)shared + (i64)nwarps * per_warp) + (i64)warp * per_warp;
    riptide_knn_rows<MODE>(block, ld, rows, ncols, row0, col0, qn, yn, best_d, best_i, k, lists_d, lists_i,
                           lists_d + 2 * k, lists_i + 2 * k);
}

// Row r of the block holds the candidates of query (row0 + r) against fitted rows col0 .. col0 + ncols - 1, at
// block[r * ld + j]. best_d / best_i (rows x k, sorted) hold the query's best k so far ((inf, NO_INDEX) when
// fewer were seen) and receive the merged best k. mode 1: block holds dot products, the squared euclidean
// distance is max(0, (qn[row0 + r] + (-2 * dot)) + yn[col0 + j]). A warp per row: blockDim.x is a multiple of 32.
extern "C" __global__ void riptide_knn_select(
        const val_t* __restrict__ block, const i64 ld, const i64 rows, const int ncols, const i64 row0,
        const i64 col0, const int mode, const double* __restrict__ qn, const double* __restrict__ yn,
        val_t* __restrict__ best_d, i64* __restrict__ best_i, const int k) {
    if (mode == 1) riptide_knn_select_rows<1>(block, ld, rows, ncols, row0, col0, qn, yn, best_d, best_i, k);
    else riptide_knn_select_rows<0>(block, ld, rows, ncols, row0, col0, qn, yn, best_d, best_i, k);
}

// Mode 0 alone (the same parameters; `mode` is 0): a kernel of its own, so that its register count is not mode 1's
// (whose double arithmetic on the dot products needs about 96 registers a thread, a third of the SM's warps).
extern "C" __global__ void riptide_knn_select_values(
        const val_t* __restrict__ block, const i64 ld, const i64 rows, const int ncols, const i64 row0,
        const i64 col0, const int mode, const double* __restrict__ qn, const double* __restrict__ yn,
        val_t* __restrict__ best_d, i64* __restrict__ best_i, const int k) {
    riptide_knn_select_rows<0>(block, ld, rows, ncols, row0, col0, qn, yn, best_d, best_i, k);
}
"""

#: candidates one warp re-ranks (the query's ``wide`` of :func:`riptide.ml.neighbors._brute.kneighbors`)
RERANK_MAX = 64

RERANK_SOURCE = r"""
#ifndef RIPTIDE_DYNAMIC_SHARED
#define RIPTIDE_DYNAMIC_SHARED(name) extern __shared__ double name[]
#endif
#ifndef RIPTIDE_INF
#define RIPTIDE_INF __longlong_as_double(0x7FF0000000000000LL)
#endif
#define RIPTIDE_RERANK_NO_INDEX 0x7FFFFFFFFFFFFFFFLL

// (d1, i1) comes strictly before (d2, i2): by distance, then by index
__device__ __forceinline__ bool riptide_rerank_before(const double d1, const long long i1, const double d2,
                                                      const long long i2) {
    return d1 < d2 || (d1 == d2 && i1 < i2);
}

// One warp per query r: the exact squared euclidean distances of its `wide` (<= 64) candidates cand[r, :], each
// summed over the features in order from the float64 rows Q[r] and Y[i]; the k best by (distance, index), sorted,
// to out_d / out_i; and whether the answer is certified (when `certify`): uncertain[r] is set unless
// out_d[r, k - 1] * slack < widest[r] - bound[r] (see _brute._rerank). A candidate index outside 0 .. n - 1 (a
// ranking pass that saw NaN) counts as (inf, NO_INDEX). Dynamic shared memory: per warp RERANK_MAX int64 indices,
// then (after all warps' indices) as many doubles.
extern "C" __global__ void riptide_knn_rerank(
        const double* __restrict__ Q, const double* __restrict__ Y, const int d, const long long n,
        const long long* __restrict__ cand, const int wide, const long long rows, const int k,
        const int certify, const double* __restrict__ widest, const double* __restrict__ bound, const double slack,
        double* __restrict__ out_d, long long* __restrict__ out_i, bool* __restrict__ uncertain) {
    RIPTIDE_DYNAMIC_SHARED(shared);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    long long* cand_i = (long long*)shared + (long long)warp * RERANK_MAX;
    double* cand_d = (double*)((long long*)shared + (long long)nwarps * RERANK_MAX) + (long long)warp * RERANK_MAX;
    const long long warps = (long long)gridDim.x * nwarps;
    for (long long r = (long long)blockIdx.x * nwarps + warp; r < rows; r += warps) {  // warp-uniform
        const double* q = Q + r * d;
        for (int j = lane; j < wide; j += 32) {
            const long long i = cand[r * wide + j];
            double acc = RIPTIDE_INF;
            long long at = RIPTIDE_RERANK_NO_INDEX;
            if (i >= 0 && i < n) {
                const double* y = Y + i * d;
                acc = 0.0;
                for (int f = 0; f < d; ++f) {  // rounded as written (no FMA contraction), as the emulation does
                    const double t = q[f] - y[f];
                    acc = __dadd_rn(acc, __dmul_rn(t, t));
                }
                at = i;
            }
            cand_d[j] = acc;
            cand_i[j] = at;
        }
        __syncwarp();
        for (int j = lane; j < wide; j += 32) {  // a candidate's place: the candidates before it
            const double x_d = cand_d[j];
            const long long x_i = cand_i[j];
            int rank = 0;
            for (int t = 0; t < wide; ++t) rank += riptide_rerank_before(cand_d[t], cand_i[t], x_d, x_i);
            if (rank < k) {
                out_d[r * k + rank] = x_d;
                out_i[r * k + rank] = x_i;
            }
            if (rank == k - 1) uncertain[r] = certify && !(x_d * slack < widest[r] - bound[r]);
        }
        __syncwarp();  // the warp's next row reuses the shared candidates
    }
}
"""

_C_TYPES = {np.dtype(np.float64): "double", np.dtype(np.float32): "float"}


def usable(k: int, dtype: Any, xp: Any) -> bool:
    """True when the kernel applies: CuPy, ``k <= KMAX``, a float32/float64 block."""
    return xp is not np and 1 <= k <= KMAX and np.dtype(dtype) in _C_TYPES


def shared_bytes(k: int, dtype: Any, threads: int = THREADS) -> int:
    """Dynamic shared memory of one CUDA block: per warp, two lists of ``k`` and a buffer of ``BUFFER`` pairs."""
    return (threads // 32) * (2 * k + BUFFER) * (8 + np.dtype(dtype).itemsize)


def grid_size(rows: int, threads: int = THREADS) -> int:
    """CUDA blocks for ``rows`` query rows: a warp per row (a grid-stride loop beyond 2**20 blocks)."""
    return int(min(-(-rows // (threads // 32)), 1 << 20))


@functools.cache
def _kernel(dtype: np.dtype, mode: int = 1) -> Any:
    import cupy as cp

    options = (f"-DVAL_T={_C_TYPES[np.dtype(dtype)]}", f"-DBUFFER={BUFFER}", f"-DLOAD_BYTES={LOAD_BYTES}")
    name = "riptide_knn_select" if mode == 1 else "riptide_knn_select_values"
    return cp.RawModule(code=SELECT_SOURCE, options=options).get_function(name)


def select(block: Any, row0: int, col0: int, mode: int, qn: Any, yn: Any, best_d: Any, best_i: Any) -> None:
    """Merge ``block`` (rows x ncols, C-contiguous, the best arrays' dtype; dot products when ``mode`` is 1) into
    the sorted ``best_d`` / ``best_i`` (rows x k, C-contiguous, int64 indices), in place (see the module doc)."""
    rows, ncols = block.shape
    k = best_d.shape[1]
    if rows == 0 or ncols == 0:
        return
    qn = best_d if qn is None else qn  # not read unless mode is 1
    yn = best_d if yn is None else yn
    _kernel(best_d.dtype, mode)((grid_size(rows, THREADS),), (THREADS,),
                          (block, np.int64(block.strides[0] // block.itemsize), np.int64(rows), np.int32(ncols),
                           np.int64(row0), np.int64(col0), np.int32(mode), qn, yn, best_d, best_i, np.int32(k)),
                          shared_mem=shared_bytes(k, best_d.dtype, THREADS))  # fmt: skip


@functools.cache
def _rerank_kernel() -> Any:
    import cupy as cp

    return cp.RawModule(code=RERANK_SOURCE, options=(f"-DRERANK_MAX={RERANK_MAX}",)).get_function("riptide_knn_rerank")


def rerank(Q: Any, Y: Any, cand: Any, k: int, widest: Any, bound: Any, slack: float, out_d: Any, out_i: Any,
           uncertain: Any) -> None:
    """The exact k nearest of each query among its candidates ``cand`` (rows x wide int64, ``wide <=``
    :data:`RERANK_MAX`), by ``(squared distance, index)`` from the float64 rows ``Q`` and ``Y``, into ``out_d`` /
    ``out_i`` (rows x k); ``uncertain`` (bool, rows) set where ``out_d[:, k-1] * slack < widest - bound`` fails
    (``widest`` None: nothing to certify, every row is certain)."""
    rows, wide = cand.shape
    if rows == 0:
        return
    certify = widest is not None
    widest = out_d if widest is None else widest  # not read unless certify
    bound = out_d if bound is None else bound
    _rerank_kernel()((grid_size(rows, THREADS),), (THREADS,),
                     (Q, Y, np.int32(Q.shape[1]), np.int64(Y.shape[0]), cand, np.int32(wide), np.int64(rows),
                      np.int32(k), np.int32(certify), widest, bound, np.float64(slack), out_d, out_i, uncertain),
                     shared_mem=(THREADS // 32) * RERANK_MAX * 16)  # fmt: skip
