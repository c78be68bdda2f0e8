"""CUDA kernel for exact k-nearest-neighbour selection: a per-row merge of a distance block into the best k.

The brute-force search (:mod:`riptide.ml.neighbors._brute`) walks the fitted rows in *index blocks*. For the
euclidean metric a block is one cuBLAS GEMM (the dot products of a block of queries with a block of fitted rows);
this kernel then reads that block **once**, turns each dot product into scikit-learn's squared distance
``max(0, (|q|^2 + (-2 q.x)) + |x|^2)`` (the same float64 operations in the same order as scikit-learn's
``EuclideanArgKmin``), and merges the block's candidates with the query's running best ``k`` (kept in global
memory between blocks, sorted). So the ``queries x fitted rows`` matrix is never materialised whole: only one
block, written by the GEMM and read by this kernel.

* **One CUDA block per query row** (a grid-stride loop over rows). Each thread scans the columns ``t, t + T, ...``
  of the row (coalesced) and keeps its own sorted list of the ``k`` best ``(distance, index)`` pairs in local
  memory; a candidate that is not better than the list's last entry (the common case once the list is warm) costs
  one comparison, and so does a column that is not better than the row's k-th best from the previous index
  blocks (after the first block, almost all of them). The row's previous best ``k`` are candidates too (read
  before any write: the row's CUDA block owns it).
* **Merge**: ``k`` rounds of a block-wide minimum over the threads' list heads (a tree in shared memory); the
  winner's thread advances its head; thread 0 writes the round's pair as the row's next best.
* **Ties** are broken by the fitted row's index: pairs are compared as ``(distance, index)``, a total order, so the
  result does not depend on scheduling and equals the xp twin's (scikit-learn keeps the lowest indices among
  equal distances at the k-th place; the order inside a tie is its heap's, undefined: riptide's is by index).
* ``mode`` 0 reads the block as distances already (other metrics, computed by the xp code); ``mode`` 1 as dot
  products (euclidean: the distance is formed in double from them and the double norms, stored as ``VAL_T``).
  ``VAL_T`` is the block's type: float for the euclidean ranking (float32 copies, re-ranked exactly afterwards,
  see :mod:`riptide.ml.neighbors._brute`) and for cosine on float32 data, double otherwise. ``KMAX`` bounds ``k``
  (larger ``k`` takes the xp twin).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

__all__ = ["SELECT_SOURCE", "KMAX", "THREADS", "usable", "select"]

KMAX = 64  # the largest k the kernel keeps per thread (local memory); larger k: the xp twin
THREADS = 128  # threads per block (a power of two: the merge is a tree)

SELECT_SOURCE = r"""
#ifndef VAL_T
#define VAL_T double
#endif
#ifndef KMAX
#define KMAX 64
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

// (d1, i1) comes strictly before (d2, i2): by distance, then by index (a NaN distance never comes first)
__device__ __forceinline__ bool riptide_knn_before(const val_t d1, const i64 i1, const val_t d2, const i64 i2) {
    return d1 < d2 || (d1 == d2 && i1 < i2);
}

// Row r of the block holds the candidates of query (row0 + r) against fitted rows col0 .. col0 + ncols - 1, at
// block[r * ld + j]. best_d / best_i (rows x k, sorted) hold the query's best k so far ((inf, NO_INDEX) when
// fewer were seen) and receive the merged best k. mode 1: block holds dot products, the squared euclidean
// distance is max(0, (qn[row0 + r] + (-2 * dot)) + yn[col0 + j]). Shared memory: blockDim.x doubles, i64, ints.
extern "C" __global__ void riptide_knn_select(
        const val_t* __restrict__ block, const i64 ld, const i64 rows, const int ncols, const i64 row0,
        const i64 col0, const int mode, const double* __restrict__ qn, const double* __restrict__ yn,
        val_t* __restrict__ best_d, i64* __restrict__ best_i, const int k) {
    RIPTIDE_DYNAMIC_SHARED(shared);
    const int tid = threadIdx.x, nt = blockDim.x;
    double* s_d = shared;
    i64* s_i = (i64*)(s_d + nt);
    int* s_t = (int*)(s_i + nt);
    const val_t inf = (val_t)RIPTIDE_INF;
    for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        val_t my_d[KMAX];
        i64 my_i[KMAX];
        for (int p = 0; p < k; ++p) { my_d[p] = inf; my_i[p] = RIPTIDE_NO_INDEX; }
        val_t* row_best_d = best_d + r * k;
        i64* row_best_i = best_i + r * k;
        const val_t* src = block + r * ld;
        const double q_norm = mode == 1 ? qn[row0 + r] : 0.0;
        // a column that does not come before the row's k-th best so far cannot enter: after the first index
        // block almost every column is rejected by this one comparison, before touching the thread's list
        const val_t worst_d = row_best_d[k - 1];
        const i64 worst_i = row_best_i[k - 1];
        // candidates: the previous best k (threads 0 .. k-1), then the block's columns
        for (int c = tid - k; c < ncols; c += nt) {
            val_t d;
            i64 i;
            if (c < 0) {
                d = row_best_d[c + k];
                i = row_best_i[c + k];
            } else {
                if (mode == 1) {
                    double s = (q_norm + (-2.0 * (double)src[c])) + yn[col0 + c];
                    d = (val_t)(s > 0.0 ? s : 0.0);  // rounding can make it negative: scikit-learn clamps at 0
                } else {
                    d = src[c];
                }
                i = col0 + c;
                if (!riptide_knn_before(d, i, worst_d, worst_i)) continue;
            }
            if (!riptide_knn_before(d, i, my_d[k - 1], my_i[k - 1])) continue;
            int p = k - 1;
            while (p > 0 && riptide_knn_before(d, i, my_d[p - 1], my_i[p - 1])) {
                my_d[p] = my_d[p - 1];
                my_i[p] = my_i[p - 1];
                --p;
            }
            my_d[p] = d;
            my_i[p] = i;
        }
        // k rounds: the smallest head among the threads' lists is the row's next best
        int head = 0;
        for (int round = 0; round < k; ++round) {
            s_d[tid] = head < k ? (double)my_d[head] : (double)inf;
            s_i[tid] = head < k ? my_i[head] : RIPTIDE_NO_INDEX;
            s_t[tid] = tid;
            __syncthreads();  // (the first one also ends every thread's reads of the previous best)
            for (int s = nt / 2; s > 0; s >>= 1) {
                if (tid < s && riptide_knn_before((val_t)s_d[tid + s], s_i[tid + s], (val_t)s_d[tid], s_i[tid])) {
                    s_d[tid] = s_d[tid + s];
                    s_i[tid] = s_i[tid + s];
                    s_t[tid] = s_t[tid + s];
                }
                __syncthreads();
            }
            if (tid == s_t[0]) ++head;
            if (tid == 0) {
                row_best_d[round] = (val_t)s_d[0];
                row_best_i[round] = s_i[0];
            }
            __syncthreads();  // s_* are rewritten by the next round
        }
    }
}
"""

_C_TYPES = {np.dtype(np.float64): "double", np.dtype(np.float32): "float"}


def usable(k: int, dtype: Any, xp: Any) -> bool:
    """True when the kernel applies: CuPy, ``k <= KMAX``, a float32/float64 block."""
    return xp is not np and 1 <= k <= KMAX and np.dtype(dtype) in _C_TYPES


def shared_bytes(threads: int = THREADS) -> int:
    """Dynamic shared memory of one block: a double, an int64 and an int per thread."""
    return threads * (8 + 8 + 4)


@functools.cache
def _kernel(dtype: np.dtype) -> Any:
    import cupy as cp

    module = cp.RawModule(code=SELECT_SOURCE, options=(f"-DVAL_T={_C_TYPES[np.dtype(dtype)]}", f"-DKMAX={KMAX}"))
    return module.get_function("riptide_knn_select")


def select(block: Any, row0: int, col0: int, mode: int, qn: Any, yn: Any, best_d: Any, best_i: Any) -> None:
    """Merge ``block`` (rows x ncols, C-contiguous, the best arrays' dtype; dot products when ``mode`` is 1) into
    the sorted ``best_d`` / ``best_i`` (rows x k, C-contiguous, int64 indices), in place (see the module doc)."""
    rows, ncols = block.shape
    k = best_d.shape[1]
    if rows == 0:
        return
    grid = int(min(rows, 65535 * 4))
    qn = best_d if qn is None else qn  # not read unless mode is 1
    yn = best_d if yn is None else yn
    _kernel(best_d.dtype)((grid,), (THREADS,), (block, np.int64(block.strides[0] // block.itemsize), np.int64(rows),
                                                np.int32(ncols), np.int64(row0), np.int64(col0), np.int32(mode), qn,
                                                yn, best_d, best_i, np.int32(k)),
                          shared_mem=shared_bytes())  # fmt: skip
