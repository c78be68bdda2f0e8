"""CUDA kernels for riptide.ml's passes over the data: K-means' Lloyd step and column sums (CuPy only).

A fit on 1e6 x 50 float64 reads 400 MB per pass over X, about 0.1 ms at an H200's 4 TB/s; what costs is doing many
passes (a GEMM, then ``argmin``, then a one-hot GEMM whose ``k x d`` output is too small to spread over the GPU,
then temporaries of ``n x d``) and a host round trip per iteration. The kernels here read X once per Lloyd
iteration and keep the loop on the device; the NumPy code in :mod:`riptide.ml.cluster._kmeans` stays the CPU path
and the reference (the *xp twin*). tests/ml/test_cluster.py runs these sources on the CPU, compiled by g++ with one
host thread per CUDA thread and a barrier for ``__syncthreads``, against that twin.

* **One pass per Lloyd iteration** (``riptide_kmeans_step``). A block copies the ``k`` centers (and their squared
  norms) into shared memory once, then walks tiles of ``R`` rows. The pass is limited by how many bytes of X are in
  flight, not by arithmetic: at 4 TB/s and about 1 us of memory latency an SM must keep some 30 KB of loads
  outstanding, and a block that loads a tile, waits, and only then works on it has at most one tile's loads in
  flight and none while it works. So the tile is *prefetched into registers*: each thread loads its ``PF``
  elements of the block's next tile (coalesced: consecutive threads, consecutive elements of the tile's rows) right
  after the current tile is staged in shared memory, and those loads fly while the tile is scored and summed
  (``THREADS * PF * 8`` bytes a block, 48 KB an SM at three blocks). The rows' weights and old labels come the same
  way. A tile therefore has at most ``PF * THREADS`` elements, and thread ``t``'s element ``i`` lies at the same
  (row, feature) in every tile, so its place in the staged tile is stepped, not divided, out.
* Staging centers the tile as scikit-learn centers X before clustering (``x - mean`` in X's dtype, so the centered
  copy of X is never written). Each row's distances ``|c|^2 - 2 x.c`` to the centers are computed from shared
  memory (scikit-learn's formula, features summed in order, ties to the first center) by one thread per row and
  chunk of ``CB`` centers; the centers are stored chunk-interleaved (feature ``j`` of a chunk's ``CB`` centers side
  by side), so a thread reads them with wide loads that the warp shares.
* The per-cluster sums are owned, not shared: thread ``(g, j)`` adds feature ``j`` of the rows ``g, g + G, ...`` of
  the tile, so there are no atomics and the result does not depend on scheduling (a fixed grid gives bit-identical
  centers run after run). Each block writes its ``k x d`` sums and ``k`` weights once; labels are rewritten in place
  and the changed ones counted (scikit-learn's strict convergence test).
* **The M-step and the stopping rule on the device**, two small kernels per iteration. ``riptide_kmeans_reduce``
  sums the blocks' partial rows column by column with many threads (one warp reads 32 consecutive columns of a row;
  a block's warps take interleaved rows, then their sums are added in warp order: a fixed order, so still
  bit-identical run to run). ``riptide_kmeans_finalize`` (one block) averages the centers (times the reciprocal
  weight, as scikit-learn does), compares the center shift and the label changes with scikit-learn's rules, and
  records in a small ``state`` vector the iteration count and whether the run stopped. Once stopped, later
  launches return at once, so the host queues several iterations and reads ``state`` once per batch. An empty
  cluster *pauses* the run instead: scikit-learn relocates it to the points farthest from their centers (a sort of
  all rows, rare), which the host does with the xp twin's code before resuming.
* The arithmetic is in float64 for float32 data too (the centering itself is done in the data's dtype).
* ``riptide_column_sums``: per-block column sums of a row-major matrix, coalesced (consecutive threads read
  consecutive elements and each keeps one column), summed over blocks in a fixed order by the caller.
* ``riptide_column_counts``, ``riptide_column_sq_deviations``, ``riptide_column_extrema``: the other column
  statistics of tall matrices (true entries of a mask, sums of squared deviations from a float64 center for
  variances, minima and maxima with NumPy's NaN rules), one fold template walking rows as ``riptide_column_sums``
  does. CuPy reduces axis 0 of a row-major matrix with one block per column (50 blocks for 50 features, each
  reading a strided column): 4.7 ms for the mean of 2e5 x 50 where a coalesced pass takes 0.05 ms.

Sizes: a block uses at most 48 KiB of shared memory (CuPy's default limit), which bounds ``k x d`` (about 2,500
for the Lloyd step); larger problems take the xp twin (GEMMs), where the ``k x d`` work is large enough for cuBLAS.
Registers: 80 a thread (``--maxrregcount``), so three 256-thread blocks share an SM.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["KMEANS_SOURCE", "COLUMN_SUMS_SOURCE", "KMeansPlan", "kmeans_plan", "MODE_ITERATE", "MODE_ASSIGN",
           "MODE_INERTIA", "STATE_SIZE", "kmeans_step", "kmeans_finalize", "column_sums", "column_totals",
           "column_means", "COLUMN_STATS_SOURCE", "column_counts", "column_variances", "column_extrema"]  # fmt: skip

MODE_ITERATE, MODE_ASSIGN, MODE_INERTIA = 0, 1, 2
#: The Lloyd loop's device state (int64): [run (0 running, 1 stopped, 2 paused on an empty cluster), iterations
#: done, strict convergence, label changes in the last iteration].
STATE_SIZE = 4
THREADS = 256  # threads per block (a power of two: the block reductions halve it)
CENTER_CHUNK = 4  # centers a thread scores at once (registers)
PREFETCH = 8  # elements of the next tile a thread holds in registers: a tile has at most PREFETCH * THREADS
ROW_PREFETCH = 1  # rows (weight, old label) of the next tile a thread holds: a tile has at most this * THREADS rows
REGISTERS = 80  # registers a thread (--maxrregcount; ptxas: no spills): three 256-thread blocks an SM
SHARED_LIMIT = 48 * 1024  # bytes of dynamic shared memory a block may use without opting in
_MAX_GROUPS = 4  # row groups accumulating sums in a block (more: more parallel adds, more shared memory)
REDUCE_COLUMNS = 32  # partial columns a block of riptide_kmeans_reduce sums (one per lane of a warp)

KMEANS_SOURCE = r"""
// DATA_T: the data's type (float or double); arithmetic is in double. CB: centers scored at once by one thread.
// PF: elements of the next tile a thread holds in registers; WPF: rows (weight, old label) of it likewise; NT:
// the step's threads per block.
#ifndef DATA_T
#define DATA_T double
#endif
#ifndef CB
#define CB 4
#endif
#ifndef PF
#define PF 8
#endif
#ifndef WPF
#define WPF 1
#endif
#ifndef NT
#define NT 256  // threads per block of riptide_kmeans_step: the prefetch offsets are constants
#endif
#ifndef RIPTIDE_DYNAMIC_SHARED
#define RIPTIDE_DYNAMIC_SHARED(name) extern __shared__ double name[]
#endif
typedef DATA_T data_t;
typedef long long i64;

#define MODE_ITERATE 0  // labels rewritten in place (changes counted), per-block cluster sums and weights
#define MODE_ASSIGN 1   // labels, each row's squared distance to its center, per-block weighted inertia
#define MODE_INERTIA 2  // per-block weighted inertia of the given labels

// Issues the loads of tile `tile` into registers: thread t's element i is element t + i * blockDim.x of the tile
// (row-major, so a warp reads consecutive addresses); its row r = t + i * blockDim.x gets weight and old label.
// Nothing waits for the loads here: the registers are read when the tile is staged, one tile later.
__device__ __forceinline__ void riptide_kmeans_fetch(
        const data_t* __restrict__ X, const data_t* __restrict__ weight, const int* __restrict__ labels,
        const i64 n, const int d, const int R, const int mode, const i64 tile, data_t (&xb)[PF],
        data_t (&wb)[WPF], int (&lb)[WPF]) {
    const int tid = threadIdx.x, nt = NT;
    const i64 row0 = tile * R;
    const int rows = n - row0 < (i64)R ? (int)(n - row0) : R;
    const data_t* src = X + row0 * d;
    const int count = rows * d;
#pragma unroll
    for (int i = 0; i < PF; ++i) {
        const int e = tid + i * nt;
        if (e < count) xb[i] = src[e];
    }
#pragma unroll
    for (int i = 0; i < WPF; ++i) {
        const int r = tid + i * nt;
        if (r < rows) {
            wb[i] = weight[row0 + r];
            if (mode != MODE_ASSIGN) lb[i] = labels[row0 + r];
        }
    }
}

// Shared memory, in doubles: centers chunk-interleaved ([chunk q][feature j][CB], padded to whole chunks) | their
// squared norms | mean | tile of R rows (odd stride ds) | row weights | best distance per row and chunk | sums per
// row group (ITERATE) ; then ints: best center per row and chunk | label per row. The tile region has at least
// blockDim.x doubles: it is reused for the block's final reduction. R * d <= PF * blockDim.x and
// R <= WPF * blockDim.x (the launch plan). MODE is a template parameter: each mode is compiled on its own, so the
// registers one mode needs (the prefetch buffer, the scores) are not held for another's.
template <int MODE>
__device__ __forceinline__ void riptide_kmeans_step_body(
        const data_t* __restrict__ X, const data_t* __restrict__ mean, const data_t* __restrict__ weight,
        const data_t* __restrict__ centers, const i64 n, const int d, const int k, const int R, const int groups,
        int* __restrict__ labels, data_t* __restrict__ closest, const int want_closest,
        double* __restrict__ partials, i64* __restrict__ changed_partials, double* __restrict__ inertia_partials) {
    RIPTIDE_DYNAMIC_SHARED(shared);
    const int tid = threadIdx.x, nt = NT;
    const int ds = d | 1;  // odd row stride: a warp reading one row per thread hits distinct banks
    const int nq = (k + CB - 1) / CB, kp = nq * CB;
    const int E = k * d + k;  // sums, then weights
    const int tile_size = R * ds > nt ? R * ds : nt;
    double* s_cent = shared;
    double* s_csq = s_cent + kp * d;
    double* s_mean = s_csq + kp;
    double* s_tile = s_mean + d;
    double* s_w = s_tile + tile_size;
    double* s_best = s_w + R;
    double* s_acc = s_best + R * nq;
    int* s_besti = (int*)(s_acc + (MODE == MODE_ITERATE ? groups * E : 0));
    int* s_lab = s_besti + R * nq;

    for (int e = tid; e < kp * d; e += nt) {
        const int q = e / (d * CB), rest = e - q * d * CB, j = rest / CB, c = q * CB + rest - j * CB;
        s_cent[e] = c < k ? (double)centers[c * d + j] : 0.0;
    }
    for (int j = tid; j < d; j += nt) s_mean[j] = (double)mean[j];
    if (MODE == MODE_ITERATE)
        for (int e = tid; e < groups * E; e += nt) s_acc[e] = 0.0;
    __syncthreads();
    for (int c = tid; c < kp; c += nt) {
        const double* cc = s_cent + (c / CB) * d * CB + c % CB;
        double s = 0.0;
        for (int j = 0; j < d; ++j) s += cc[j * CB] * cc[j * CB];
        s_csq[c] = s;
    }
    const i64 ntiles = (n + R - 1) / R;
    data_t xb[PF], wb[WPF];
    int lb[WPF];
    i64 tile = blockIdx.x;
    if (tile < ntiles) riptide_kmeans_fetch(X, weight, labels, n, d, R, MODE, tile, xb, wb, lb);
    // thread tid's element i sits at row r0 + i * dr (+ carries), feature j0 + i * dj (mod d) of every tile
    const int r0 = tid / d, j0 = tid - r0 * d, dr = nt / d, dj = nt - dr * d;
    i64 my_changed = 0;
    double my_inertia = 0.0;
    for (; tile < ntiles; tile += gridDim.x) {
        const i64 row0 = tile * R;
        const int rows = n - row0 < (i64)R ? (int)(n - row0) : R;
        __syncthreads();  // the previous tile is consumed (and the setup above is done)
        {
            int r = r0, j = j0;
#pragma unroll
            for (int i = 0; i < PF; ++i) {
                // centered in the data's type, as the xp twin centers
                if (r < rows) s_tile[r * ds + j] = (double)(data_t)(xb[i] - (data_t)s_mean[j]);
                r += dr;
                j += dj;
                if (j >= d) { j -= d; ++r; }
            }
        }
#pragma unroll
        for (int i = 0; i < WPF; ++i) {
            const int r = tid + i * nt;
            if (r < rows) {
                s_w[r] = (double)wb[i];
                if (MODE != MODE_ASSIGN) s_lab[r] = lb[i];  // the old label; only this thread reads it back
            }
        }
        __syncthreads();
        // the next tile's loads fly while this one is scored and summed
        if (tile + gridDim.x < ntiles)
            riptide_kmeans_fetch(X, weight, labels, n, d, R, MODE, tile + gridDim.x, xb, wb, lb);
        if (MODE != MODE_INERTIA) {
            // distances of row r to the centers of chunk q: |c|^2 - 2 x.c, the first minimum kept
            for (int p = tid; p < rows * nq; p += nt) {
                const int r = p % rows, q = p / rows;
                const double* x = s_tile + r * ds;
                const double* cq = s_cent + q * d * CB;
                double dot[CB];
#pragma unroll
                for (int u = 0; u < CB; ++u) dot[u] = 0.0;
#pragma unroll 2
                for (int j = 0; j < d; ++j) {
                    const double xv = x[j];
#pragma unroll
                    for (int u = 0; u < CB; ++u) dot[u] += xv * cq[j * CB + u];
                }
                double best = 0.0;
                int besti = -1;
#pragma unroll
                for (int u = 0; u < CB; ++u) {
                    const int c = q * CB + u;
                    if (c < k) {
                        const double dist = s_csq[c] - 2.0 * dot[u];
                        if (besti < 0 || dist < best) { best = dist; besti = c; }
                    }
                }
                s_best[r * nq + q] = best;
                s_besti[r * nq + q] = besti;
            }
            __syncthreads();
        }
#pragma unroll
        for (int i = 0; i < WPF; ++i) {
            const int r = tid + i * nt;
            if (r >= rows) continue;
            const i64 row = row0 + r;
            int label;
            if (MODE == MODE_INERTIA) {
                label = s_lab[r];
            } else {
                double best = s_best[r * nq];
                label = s_besti[r * nq];
                for (int q = 1; q < nq; ++q)
                    if (s_best[r * nq + q] < best) { best = s_best[r * nq + q]; label = s_besti[r * nq + q]; }
                if (MODE == MODE_ITERATE && s_lab[r] != label) ++my_changed;
                labels[row] = label;
                s_lab[r] = label;
            }
            if (MODE != MODE_ITERATE) {  // scikit-learn's inertia: the squared difference, summed directly
                const double* x = s_tile + r * ds;
                const double* c = s_cent + (label / CB) * d * CB + label % CB;
                double sq = 0.0;
                for (int j = 0; j < d; ++j) { const double diff = x[j] - c[j * CB]; sq += diff * diff; }
                if (want_closest) closest[row] = (data_t)sq;
                my_inertia += sq * s_w[r];
            }
        }
        if (MODE == MODE_ITERATE) {
            __syncthreads();  // every label of the tile is known
            // thread (g, j) owns feature j of group g's sums: rows g, g + groups, ... in order, no atomics
            for (int p = tid; p < groups * d; p += nt) {
                const int g = p / d, j = p - g * d;
                double* acc = s_acc + g * E;
                for (int r = g; r < rows; r += groups) {
                    const int label = s_lab[r];
                    const double w = s_w[r];
                    acc[label * d + j] += s_tile[r * ds + j] * w;
                    if (j == 0) acc[k * d + label] += w;
                }
            }
        }
    }
    __syncthreads();
    if (MODE == MODE_ITERATE) {
        double* out = partials + (i64)blockIdx.x * E;
        for (int e = tid; e < E; e += nt) {
            double s = 0.0;
            for (int g = 0; g < groups; ++g) s += s_acc[g * E + e];
            out[e] = s;
        }
    }
    // the block's change count (exact in a double below 2**53) or inertia, reduced in a fixed order
    double* s_red = s_tile;
    s_red[tid] = MODE == MODE_ITERATE ? (double)my_changed : my_inertia;
    __syncthreads();
    for (int s = nt / 2; s > 0; s >>= 1) {
        if (tid < s) s_red[tid] += s_red[tid + s];
        __syncthreads();
    }
    if (tid == 0) {
        if (MODE == MODE_ITERATE) changed_partials[blockIdx.x] = (i64)s_red[0];
        else inertia_partials[blockIdx.x] = s_red[0];
    }
}

extern "C" __global__ void riptide_kmeans_step(
        const data_t* __restrict__ X, const data_t* __restrict__ mean, const data_t* __restrict__ weight,
        const data_t* __restrict__ centers, const i64 n, const int d, const int k, const int R, const int groups,
        const int mode, const i64* __restrict__ state, int* __restrict__ labels, data_t* __restrict__ closest,
        const int want_closest, double* __restrict__ partials, i64* __restrict__ changed_partials,
        double* __restrict__ inertia_partials) {
    if (mode == MODE_ITERATE) {
        if (state[0] != 0) return;  // stopped or paused: a queued iteration does nothing
        riptide_kmeans_step_body<MODE_ITERATE>(X, mean, weight, centers, n, d, k, R, groups, labels, closest,
                                               want_closest, partials, changed_partials, inertia_partials);
    } else if (mode == MODE_ASSIGN) {
        riptide_kmeans_step_body<MODE_ASSIGN>(X, mean, weight, centers, n, d, k, R, groups, labels, closest,
                                              want_closest, partials, changed_partials, inertia_partials);
    } else {
        riptide_kmeans_step_body<MODE_INERTIA>(X, mean, weight, centers, n, d, k, R, groups, labels, closest,
                                               want_closest, partials, changed_partials, inertia_partials);
    }
}

// The step's block partials (blocks x E, row-major) summed per column into totals, in a fixed order: block x
// takes columns 32x ... 32x + 31, one per lane; warp w adds the rows w, w + W, ... (W warps), then warp 0 adds the
// W warp sums in order. Many blocks and all their warps read at once: the sum takes a few memory latencies, not
// blocks x E / blockDim.x of them. Shared memory: blockDim.x doubles.
extern "C" __global__ void riptide_kmeans_reduce(const double* __restrict__ partials, const int blocks,
                                                 const int E, const i64* __restrict__ state,
                                                 double* __restrict__ totals) {
    RIPTIDE_DYNAMIC_SHARED(shared);
    if (state[0] != 0) return;  // stopped or paused: totals keep the paused iteration's sums
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32, W = blockDim.x / 32;
    const int e = blockIdx.x * 32 + lane;
    double s = 0.0;
    if (e < E) {
#pragma unroll 8
        for (int b = w; b < blocks; b += W) s += partials[(i64)b * E + e];
    }
    shared[threadIdx.x] = s;
    __syncthreads();
    if (w == 0 && e < E) {
        double t = shared[lane];
        for (int v = 1; v < W; ++v) t += shared[v * 32 + lane];
        totals[e] = t;
    }
}

// One block, after riptide_kmeans_reduce: the M-step and scikit-learn's stopping rule. Shared memory: E totals
// (then the center differences and the centers' squared shifts) | blockDim.x reduction slots.
extern "C" __global__ void riptide_kmeans_finalize(
        const double* __restrict__ totals, const i64* __restrict__ changed_partials, const int blocks,
        const int d, const int k, const double tol, data_t* __restrict__ centers, i64* __restrict__ state,
        double* __restrict__ shift_out) {
    RIPTIDE_DYNAMIC_SHARED(shared);
    if (state[0] != 0) return;
    const int tid = threadIdx.x, nt = blockDim.x;
    const int E = k * d + k;
    double* s_tot = shared;
    double* s_red = s_tot + E;
    for (int e = tid; e < E; e += nt) s_tot[e] = totals[e];
    double c = 0.0;
    for (int b = tid; b < blocks; b += nt) c += (double)changed_partials[b];
    s_red[tid] = c;
    __syncthreads();
    for (int s = nt / 2; s > 0; s >>= 1) {
        if (tid < s) s_red[tid] += s_red[tid + s];
        __syncthreads();
    }
    const i64 changed = (i64)s_red[0];
    __syncthreads();  // every thread has read s_red[0]
    double empty = 0.0;
    for (int j = tid; j < k; j += nt) empty += s_tot[k * d + j] == 0.0;
    s_red[tid] = empty;
    __syncthreads();
    for (int s = nt / 2; s > 0; s >>= 1) {
        if (tid < s) s_red[tid] += s_red[tid + s];
        __syncthreads();
    }
    if (s_red[0] != 0.0) {  // scikit-learn relocates empty clusters (a sort of the rows): the host takes this
        if (tid == 0) { state[3] = changed; state[0] = 2; }  // iteration, from totals
        return;
    }
    for (int e = tid; e < k * d; e += nt) {
        const int j = e / d;
        const data_t alpha = (data_t)(1.0 / s_tot[k * d + j]);
        const data_t fresh = (data_t)s_tot[e] * alpha;
        const data_t diff = fresh - centers[e];
        centers[e] = fresh;
        s_tot[e] = (double)diff;
    }
    __syncthreads();  // the weights are read: their slots take the squared shifts
    double* s_shift = s_tot + k * d;
    for (int j = tid; j < k; j += nt) {  // scikit-learn: each center's euclidean shift, squared
        double sq = 0.0;
        for (int f = 0; f < d; ++f) sq += s_tot[j * d + f] * s_tot[j * d + f];
        const data_t norm = (data_t)sqrt(sq);
        s_shift[j] = (double)norm * (double)norm;
    }
    __syncthreads();
    if (tid == 0) {
        double shift = 0.0;  // summed over the centers in order
        for (int j = 0; j < k; ++j) shift += s_shift[j];
        shift_out[0] = shift;
        state[1] += 1;
        state[3] = changed;
        if (changed == 0) { state[2] = 1; state[0] = 1; }
        else if (shift <= tol) state[0] = 1;
    }
}
"""

COLUMN_SUMS_SOURCE = r"""
#ifndef DATA_T
#define DATA_T double
#endif
#ifndef RIPTIDE_DYNAMIC_SHARED
#define RIPTIDE_DYNAMIC_SHARED(name) extern __shared__ double name[]
#endif
typedef DATA_T data_t;
typedef long long i64;

// Block b sums rows [b * rows_per_block, ...) of the row-major n x d matrix X into partials[b * d + j]: the
// values themselves, or with square != 0 the squares of (x - center[j]) (the difference in the data's type).
// With d <= blockDim.x, thread t keeps column t % d of rows t / d, t / d + per, ... (per = blockDim.x / d row
// groups), so a warp reads consecutive elements; the groups are then added in order. Wider matrices: thread t
// keeps columns t, t + blockDim.x, ... of every row. Shared memory: blockDim.x doubles.
__device__ __forceinline__ double column_term(const data_t x, const data_t* center, const int j, const int square) {
    if (!square) return (double)x;
    const double v = (double)(data_t)(x - center[j]);
    return v * v;
}

extern "C" __global__ void riptide_column_sums(const data_t* __restrict__ X, const i64 n, const int d,
                                               const i64 rows_per_block, const data_t* __restrict__ center,
                                               const int square, double* __restrict__ partials) {
    RIPTIDE_DYNAMIC_SHARED(shared);
    const int tid = threadIdx.x, nt = blockDim.x;
    const i64 row0 = (i64)blockIdx.x * rows_per_block;
    const i64 rows = n - row0 < rows_per_block ? n - row0 : rows_per_block;
    double* out = partials + (i64)blockIdx.x * d;
    if (d <= nt) {
        const int per = nt / d, L = per * d, j = tid % d;
        double s = 0.0;
        if (tid < L)
            for (i64 r = tid / d; r < rows; r += per) s += column_term(X[(row0 + r) * d + j], center, j, square);
        if (tid < L) shared[tid] = s;
        __syncthreads();
        for (int c = tid; c < d; c += nt) {
            double t = 0.0;
            for (int g = 0; g < per; ++g) t += shared[g * d + c];
            out[c] = t;
        }
    } else {
        for (int c = tid; c < d; c += nt) {
            double s = 0.0;
            for (i64 r = 0; r < rows; ++r) s += column_term(X[(row0 + r) * d + c], center, c, square);
            out[c] = s;
        }
    }
}
"""


COLUMN_STATS_SOURCE = r"""
#ifndef DATA_T
#define DATA_T double
#endif
#ifndef RIPTIDE_DYNAMIC_SHARED
#define RIPTIDE_DYNAMIC_SHARED(name) extern __shared__ double name[]
#endif
typedef DATA_T data_t;
typedef long long i64;

// Block b folds rows [b * rows_per_block, ...) of a row-major n x d matrix into partials[b * d + j] with Op:
// acc_t term(row, j) reads one element, acc_t combine(a, b) folds two. As riptide_column_sums: with d <=
// blockDim.x thread t keeps column t % d of rows t / d, t / d + per, ... (per = blockDim.x / d row groups; a warp
// reads consecutive elements), then the groups are folded in order; wider matrices: thread t keeps columns t,
// t + blockDim.x, ... of every row. A fold starts from a real element, never from an identity value (a minimum
// has none that keeps NaN's rules), so a row group without rows takes no part. Shared memory: blockDim.x acc_t.
template <class Op>
__device__ __forceinline__ void riptide_column_fold(const Op& op, const i64 n, const int d,
                                                    const i64 rows_per_block, typename Op::acc_t* partials) {
    typedef typename Op::acc_t acc_t;
    RIPTIDE_DYNAMIC_SHARED(shared_words);
    acc_t* shared = (acc_t*)shared_words;
    const int tid = threadIdx.x, nt = blockDim.x;
    const i64 row0 = (i64)blockIdx.x * rows_per_block;
    const i64 rows = n - row0 < rows_per_block ? n - row0 : rows_per_block;  // >= 1: the grid has no empty block
    acc_t* out = partials + (i64)blockIdx.x * d;
    if (d <= nt) {
        const int per = nt / d, j = tid % d, g = tid / d;
        if (g < per && g < rows) {
            acc_t a = op.term(row0 + g, j);
            for (i64 r = g + per; r < rows; r += per) a = op.combine(a, op.term(row0 + r, j));
            shared[tid] = a;
        }
        __syncthreads();
        const int groups = rows < (i64)per ? (int)rows : per;
        for (int c = tid; c < d; c += nt) {
            acc_t a = shared[c];
            for (int h = 1; h < groups; ++h) a = op.combine(a, shared[h * d + c]);
            out[c] = a;
        }
    } else {
        for (int c = tid; c < d; c += nt) {
            acc_t a = op.term(row0, c);
            for (i64 r = 1; r < rows; ++r) a = op.combine(a, op.term(row0 + r, c));
            out[c] = a;
        }
    }
}

// True entries of a boolean (one byte) matrix, counted exactly.
struct riptide_count_op {
    typedef i64 acc_t;
    const unsigned char* M;
    int d;
    __device__ i64 term(const i64 row, const int j) const { return M[row * d + j] != 0; }
    __device__ i64 combine(const i64 a, const i64 b) const { return a + b; }
};

// Squares of x - center[j], the difference taken in double whatever the data's type (NumPy's var with
// dtype=float64), summed in double.
struct riptide_sq_deviation_op {
    typedef double acc_t;
    const data_t* X;
    const double* center;
    int d;
    __device__ double term(const i64 row, const int j) const {
        const double v = (double)X[row * d + j] - center[j];
        return v * v;
    }
    __device__ double combine(const double a, const double b) const { return a + b; }
};

// Minimum and maximum together (X is read once). NaN as NumPy: skipna == 0 (min, max) lets a NaN win every
// comparison, skipna != 0 (nanmin, nanmax) lets it lose to any number (a column of NaN stays NaN). Ties keep the
// earlier value.
struct riptide_extrema { data_t lo, hi; };
struct riptide_extrema_op {
    typedef riptide_extrema acc_t;
    const data_t* X;
    int d;
    int skipna;
    __device__ acc_t term(const i64 row, const int j) const {
        acc_t a;
        a.lo = a.hi = X[row * d + j];
        return a;
    }
    __device__ data_t pick(const data_t a, const data_t b, const bool b_wins) const {
        if (a != a) return skipna ? b : a;
        if (b != b) return skipna ? a : b;
        return b_wins ? b : a;
    }
    __device__ acc_t combine(const acc_t a, const acc_t b) const {
        acc_t r;
        r.lo = pick(a.lo, b.lo, b.lo < a.lo);
        r.hi = pick(a.hi, b.hi, b.hi > a.hi);
        return r;
    }
};

extern "C" __global__ void riptide_column_counts(const unsigned char* __restrict__ M, const i64 n, const int d,
                                                 const i64 rows_per_block, i64* __restrict__ partials) {
    riptide_count_op op;
    op.M = M;
    op.d = d;
    riptide_column_fold(op, n, d, rows_per_block, partials);
}

extern "C" __global__ void riptide_column_sq_deviations(const data_t* __restrict__ X, const i64 n, const int d,
                                                        const i64 rows_per_block, const double* __restrict__ center,
                                                        double* __restrict__ partials) {
    riptide_sq_deviation_op op;
    op.X = X;
    op.center = center;
    op.d = d;
    riptide_column_fold(op, n, d, rows_per_block, partials);
}

// partials: (blocks, d) pairs (min, max) in the data's type.
extern "C" __global__ void riptide_column_extrema(const data_t* __restrict__ X, const i64 n, const int d,
                                                  const i64 rows_per_block, const int skipna,
                                                  riptide_extrema* __restrict__ partials) {
    riptide_extrema_op op;
    op.X = X;
    op.d = d;
    op.skipna = skipna;
    riptide_column_fold(op, n, d, rows_per_block, partials);
}
"""


@dataclass(frozen=True)
class KMeansPlan:
    """Launch shape of the Lloyd step: rows per tile, row groups adding sums, shared bytes (step, finalize)."""

    rows: int
    groups: int
    step_shared: int
    finalize_shared: int


def kmeans_plan(n_features: int, n_clusters: int, mode: int, threads: int = THREADS,
                shared_limit: int = SHARED_LIMIT) -> KMeansPlan | None:  # fmt: skip
    """The tile shape for ``k`` centers of ``d`` features, or None when they do not fit a block's shared memory
    (the caller then takes the xp twin). A tile is what the block's threads prefetch: at most ``PREFETCH``
    elements and ``ROW_PREFETCH`` rows a thread.

    >>> kmeans_plan(50, 8, MODE_ITERATE)
    KMeansPlan(rows=40, groups=4, step_shared=34480, finalize_shared=5312)
    >>> kmeans_plan(1000, 100, MODE_ITERATE) is None
    True
    """
    d, k = n_features, n_clusters
    nq = -(-k // CENTER_CHUNK)
    kp = nq * CENTER_CHUNK
    ds = d | 1
    E = k * d + k
    groups = max(1, min(threads // d, _MAX_GROUPS)) if mode == MODE_ITERATE else 0
    budget = shared_limit // 8 - 8  # in doubles, a little kept for alignment
    finalize = E + threads
    fixed = kp * d + kp + d + groups * E
    per_row = ds + 1 + nq + (nq + 1 + 1) / 2  # tile row, weight, best per chunk; ints: best index, label
    rows = int((budget - fixed) // per_row) if budget > fixed else 0
    if rows < 4 or finalize > budget:  # tiles of a few rows: the GEMMs of the xp twin do better
        return None
    rows = min(rows, PREFETCH * threads // d, ROW_PREFETCH * threads)  # wide rows: fewer, down to one
    if rows < 1:
        return None
    step = _step_doubles(d, k, rows, groups, threads)
    floor = min(rows, 4)
    while rows > floor and step > budget:
        rows -= 1  # the tile is at least one reduction slot per thread
        step = _step_doubles(d, k, rows, groups, threads)
    if step > budget:
        return None
    return KMeansPlan(rows, groups, 8 * step, 8 * finalize)


def _step_doubles(d: int, k: int, rows: int, groups: int, threads: int) -> int:
    """Shared memory of the step kernel, in doubles (see the layout in :data:`KMEANS_SOURCE`)."""
    nq = -(-k // CENTER_CHUNK)
    kp = nq * CENTER_CHUNK
    tile = max(rows * (d | 1), threads)
    ints = rows * nq + rows
    return kp * d + kp + d + tile + rows + rows * nq + groups * (k * d + k) + -(-ints // 2)


_C_TYPES = {np.dtype(np.float64): "double", np.dtype(np.float32): "float"}


def compile_options(dtype: np.dtype) -> tuple[str, ...]:
    """The defines the kernel sources are compiled with for data of ``dtype``."""
    return (f"-DDATA_T={_C_TYPES[np.dtype(dtype)]}", f"-DCB={CENTER_CHUNK}", f"-DPF={PREFETCH}",
            f"-DWPF={ROW_PREFETCH}", f"-DNT={THREADS}")  # fmt: skip


@functools.cache
def _module(source_name: str, dtype: np.dtype) -> Any:
    import cupy as cp

    source = {"kmeans": KMEANS_SOURCE, "column_sums": COLUMN_SUMS_SOURCE, "column_stats": COLUMN_STATS_SOURCE}[
        source_name
    ]
    # REGISTERS a thread: the prefetch buffer and the scores without spills (ptxas), three blocks an SM
    return cp.RawModule(code=source, options=(*compile_options(dtype), f"--maxrregcount={REGISTERS}"))


@functools.cache
def _resident_blocks(shared_bytes: int, threads: int) -> int:
    """Blocks the device runs at once: SMs times the blocks an SM holds (shared memory, threads, registers). A
    grid larger than that would run a second, partial wave of blocks: the grid-stride loops would end unevenly."""
    import cupy as cp

    attributes = cp.cuda.Device().attributes
    sms = attributes["MultiProcessorCount"]
    per_sm_shared = attributes.get("MaxSharedMemoryPerMultiprocessor", 228 * 1024)
    per_sm_threads = attributes.get("MaxThreadsPerMultiProcessor", 2048)
    per_sm_registers = attributes.get("MaxRegistersPerMultiprocessor", 64 * 1024)
    per_sm = min(per_sm_shared // (shared_bytes + 1024), per_sm_threads // threads,
                 per_sm_registers // (REGISTERS * threads), 8)  # fmt: skip
    return sms * max(1, per_sm)


def step_blocks(n_samples: int, plan: KMeansPlan) -> int:
    """Blocks of a Lloyd step over ``n_samples`` rows: enough to fill the device, at most one per tile."""
    tiles = -(-n_samples // plan.rows)
    return max(1, min(tiles, _resident_blocks(plan.step_shared, THREADS)))


def kmeans_step(X: Any, mean: Any, weight: Any, centers: Any, plan: KMeansPlan, mode: int, state: Any,
                labels: Any, closest: Any | None, partials: Any, changed_partials: Any, inertia_partials: Any,
                blocks: int) -> None:  # fmt: skip
    """Launch one step (see :data:`KMEANS_SOURCE`): X, mean, weight, centers and ``closest`` (None: not wanted)
    contiguous in X's dtype, labels int32, partials float64 ``(blocks, k * d + k)``, changed_partials int64 and
    inertia_partials float64 ``(blocks,)``, state int64 ``(STATE_SIZE,)``."""
    n, d = X.shape
    k = centers.shape[0]
    kernel = _module("kmeans", X.dtype).get_function("riptide_kmeans_step")
    want_closest = closest is not None
    closest = weight if closest is None else closest  # any array of X's dtype: the kernel does not touch it
    kernel((blocks,), (THREADS,), (X, mean, weight, centers, np.int64(n), np.int32(d), np.int32(k),
                                   np.int32(plan.rows), np.int32(plan.groups), np.int32(mode), state, labels,
                                   closest, np.int32(want_closest), partials, changed_partials, inertia_partials),
           shared_mem=plan.step_shared)  # fmt: skip


def kmeans_finalize(partials: Any, changed_partials: Any, blocks: int, centers: Any, tol: float, totals: Any,
                    state: Any, shift: Any, plan: KMeansPlan) -> None:  # fmt: skip
    """Launch the M-step and stopping rule of one iteration: the partials summed into ``totals`` (float64
    ``(k * d + k,)``, kept for the host when an empty cluster pauses the run), then the one-block M-step."""
    k, d = centers.shape
    E = k * d + k
    module = _module("kmeans", centers.dtype)
    module.get_function("riptide_kmeans_reduce")((-(-E // REDUCE_COLUMNS),), (THREADS,),
                                                 (partials, np.int32(blocks), np.int32(E), state, totals),
                                                 shared_mem=8 * THREADS)  # fmt: skip
    module.get_function("riptide_kmeans_finalize")((1,), (THREADS,), (totals, changed_partials, np.int32(blocks),
                                                                      np.int32(d), np.int32(k), np.float64(tol),
                                                                      centers, state, shift),
                                                   shared_mem=plan.finalize_shared)  # fmt: skip


def column_totals(A: Any, xp: Any) -> Any:
    """float64 column sums of a 2-D float array: one coalesced kernel pass on the GPU (CuPy's axis-0 reduction of
    a tall row-major matrix gives each column to one block: 4.7 ms for the mean of 2e5 x 50), NumPy's sum on the
    host.

    >>> import numpy as np
    >>> column_totals(np.array([[1.0, 2.0], [3.0, 4.0]]), np)
    array([4., 6.])
    """
    if xp is not np and A.shape[0] > 0 and A.shape[1] > 0 and A.dtype in (np.float32, np.float64):
        return column_sums(xp.ascontiguousarray(A), xp)
    return A.sum(axis=0, dtype=xp.float64)


def column_means(A: Any, xp: Any) -> Any:
    """float64 column means of a 2-D float array (see :func:`column_totals`); NaN for no rows, as NumPy."""
    if A.shape[0] == 0:
        return A.mean(axis=0, dtype=xp.float64)
    return column_totals(A, xp) / A.shape[0]


def column_sums(X: Any, xp: Any, center: Any | None = None) -> Any:
    """float64 column sums of a C-contiguous float matrix on the device, or with ``center`` (X's dtype) the sums
    of squares of ``X - center`` (one coalesced pass; a fixed order of additions)."""
    n, d = X.shape
    rows_per_block = max(256, -(-n // 2048))
    blocks = max(1, -(-n // rows_per_block))
    partials = xp.empty((blocks, d), dtype=np.float64)
    kernel = _module("column_sums", X.dtype).get_function("riptide_column_sums")
    square = center is not None
    center = xp.zeros(d, dtype=X.dtype) if center is None else xp.ascontiguousarray(center, dtype=X.dtype)
    kernel((blocks,), (THREADS,), (X, np.int64(n), np.int32(d), np.int64(rows_per_block), center,
                                   np.int32(square), partials), shared_mem=8 * THREADS)  # fmt: skip
    return partials.sum(axis=0)


# --------------------------------------------------------------------------- the other column statistics

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
#: A block of the column folds takes at least this many elements (its row groups then fold a few rows each) ...
FOLD_BLOCK_ELEMENTS = 8 * THREADS
#: ... and there are at most this many blocks (the caller reduces their ``blocks x d`` partials).
FOLD_MAX_BLOCKS = 2048


def _fold_applies(A: Any, xp: Any, dtypes: tuple) -> bool:
    """Whether a column fold takes the kernel: a non-empty 2-D device matrix of a type the kernel reads. Anything
    else (NumPy, no rows or no columns, other dtypes) takes the xp twin, which is also the reference."""
    return xp is not np and A.ndim == 2 and A.shape[0] > 0 and A.shape[1] > 0 and A.dtype in dtypes


def fold_blocks(n: int, d: int) -> tuple[int, int]:
    """``(rows_per_block, blocks)`` of a column fold over ``n x d``: enough rows a block that each row group folds
    several, few enough that narrow-and-short and wide matrices still spread over many blocks.

    >>> fold_blocks(200_000, 50)
    (98, 2041)
    >>> fold_blocks(2_000, 1_000)
    (3, 667)
    """
    rows_per_block = max(1, -(-FOLD_BLOCK_ELEMENTS // d), -(-n // FOLD_MAX_BLOCKS))
    return rows_per_block, -(-n // rows_per_block)


def column_counts(M: Any, xp: Any) -> Any:
    """int64 count of the true entries of each column of a 2-D boolean matrix (``M.sum(axis=0)``, exactly), one
    coalesced kernel pass on the GPU.

    >>> column_counts(np.array([[True, False], [True, True], [False, False]]), np)
    array([2, 1])
    """
    if _fold_applies(M, xp, (np.dtype(np.bool_),)):
        return _fold_counts(xp.ascontiguousarray(M), xp)
    return M.sum(axis=0, dtype=np.int64)


def column_variances(X: Any, xp: Any, ddof: int = 0) -> Any:
    """float64 column variances of a 2-D float matrix (``X.var(axis=0, ddof=ddof, dtype=float64)``): two coalesced
    passes on the GPU, the means (:func:`column_sums`), then the squared deviations from them taken in float64.
    NaN in a column gives NaN, as NumPy; ``n <= ddof`` rows take NumPy's (or CuPy's) own answer.

    >>> column_variances(np.array([[1.0, 2.0], [3.0, 2.0], [5.0, 2.0]]), np).tolist()
    [2.6666666666666665, 0.0]
    """
    n = X.shape[0]
    if _fold_applies(X, xp, _FLOATS) and n > ddof:
        X = xp.ascontiguousarray(X)
        mean = column_sums(X, xp) / n
        return _fold_sq_deviations(X, mean, xp) / (n - ddof)
    # (CuPy's var of an int matrix with dtype=float64 and ddof is wrong: cast first)
    return X.astype(np.float64, copy=False).var(axis=0, ddof=ddof)


def column_extrema(X: Any, xp: Any, skipna: bool = False) -> tuple[Any, Any]:
    """Column minima and maxima of a 2-D float matrix, in its dtype, from one coalesced pass on the GPU:
    ``(X.min(axis=0), X.max(axis=0))`` (NaN wins), or with ``skipna`` ``(nanmin, nanmax)`` (NaN ignored; a column of
    NaN gives NaN and NumPy's "All-NaN slice" RuntimeWarning). No rows: NumPy's ValueError (or nanmin's NaN).

    >>> lo, hi = column_extrema(np.array([[1.0, np.nan], [-2.0, 4.0]]), np, skipna=True)
    >>> lo.tolist(), hi.tolist()
    ([-2.0, 4.0], [1.0, 4.0])
    """
    if _fold_applies(X, xp, _FLOATS):
        return _fold_extrema(xp.ascontiguousarray(X), xp, skipna)
    if skipna:
        return xp.nanmin(X, axis=0), xp.nanmax(X, axis=0)
    return X.min(axis=0), X.max(axis=0)


def _fold(kernel_name: str, A: Any, xp: Any, partials_dtype: Any, *extra: Any, pair: bool = False) -> Any:
    """Launch a column fold of ``COLUMN_STATS_SOURCE`` over ``A`` (C-contiguous, n, d > 0): its ``(blocks, d)``
    partials (``(blocks, d, 2)`` with ``pair``), one per block, for the caller to reduce in order. ``extra`` are the
    kernel's arguments after ``rows_per_block``, before the partials."""
    n, d = A.shape
    rows_per_block, blocks = fold_blocks(n, d)
    partials = xp.empty((blocks, d, 2) if pair else (blocks, d), dtype=partials_dtype)
    # the data type the module is compiled for (a count reads bytes whatever DATA_T is)
    data_type = A.dtype if A.dtype in _FLOATS else np.dtype(np.float64)
    kernel = _module("column_stats", data_type).get_function(kernel_name)
    kernel((blocks,), (THREADS,), (A, np.int64(n), np.int32(d), np.int64(rows_per_block), *extra, partials),
           shared_mem=(2 if pair else 1) * np.dtype(partials_dtype).itemsize * THREADS)  # fmt: skip
    return partials


def _fold_counts(M: Any, xp: Any) -> Any:
    """:func:`column_counts` on the device: M C-contiguous bool, n, d > 0."""
    return _fold("riptide_column_counts", M, xp, np.int64).sum(axis=0)


def _fold_sq_deviations(X: Any, center: Any, xp: Any) -> Any:
    """float64 sums of ``(x - center)**2`` per column on the device, the difference in float64: X C-contiguous
    float, n, d > 0."""
    center = xp.ascontiguousarray(center, dtype=np.float64)
    return _fold("riptide_column_sq_deviations", X, xp, np.float64, center).sum(axis=0)


def _fold_extrema(X: Any, xp: Any, skipna: bool) -> tuple[Any, Any]:
    """:func:`column_extrema` on the device: X C-contiguous float, n, d > 0. The blocks' partial extrema are
    reduced by NumPy's (CuPy's) own rules, which agree with the kernel's (and nanmin warns as it would on X)."""
    partials = _fold("riptide_column_extrema", X, xp, X.dtype, np.int32(skipna), pair=True)
    lo, hi = partials[:, :, 0], partials[:, :, 1]
    if skipna:
        return xp.nanmin(lo, axis=0), xp.nanmax(hi, axis=0)
    return lo.min(axis=0), hi.max(axis=0)
