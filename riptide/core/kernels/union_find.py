"""Connected components of an edge list on the device: hooking and pointer jumping (no per-vertex loop).

The one union-find of riptide: graph components (:mod:`riptide.graph.components`), Leiden's refinement
(:mod:`riptide.graph.community`) and DBSCAN's clusters (:mod:`riptide.ml.cluster._neighbourhood`) all need the same
answer, per vertex the smallest vertex of its component. Each round hooks, for every edge whose ends are in
different trees, the larger root under the smaller one (a scatter-min, so concurrent hooks keep the smallest), then
jumps every pointer to its root; edges inside one tree drop out, so a round costs what is left. That is the NumPy
path; on the GPU one kernel over the edges hooks them all (:data:`UNION_FIND_SOURCE`), in the parents' memory alone.
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

from riptide.core.kernels.scatter import scatter_min

__all__ = ["component_roots"]

# On the GPU the rounds are one kernel over the edges (as ECL-CC does): each edge finds its ends' roots and hooks
# the larger under the smaller with a compare-and-swap that succeeds only while the larger is still a root (else it
# finds the roots again). Parents only ever move to smaller vertices, so a root is its tree's smallest vertex and
# the answer is the NumPy rounds'. While hooking, a search halves its path (each vertex on it then points at its
# grandparent, still an ancestor); the last pass, which points every vertex at its root, writes nothing else: a
# halving there could put an ancestor back over a root another thread had just written. Memory: the parents alone
# (the rounds copy the edges still joining two trees: weakly connected components of 1e8 edges peaked at 6.6x the
# CSR).
UNION_FIND_SOURCE = r"""
typedef long long i64;
typedef unsigned long long u64;

__device__ __forceinline__ i64 find_root(i64* parent, i64 x, const bool halve) {
    volatile i64* p = parent;  // other threads hook and halve paths meanwhile: read past the L1 cache
    i64 up = p[x];
    while (up != x) {
        const i64 above = p[up];
        if (halve && above != up) p[x] = above;
        x = up;
        up = above;
    }
    return x;
}

extern "C" __global__ void riptide_hook_edges(const i64* __restrict__ src, const i64* __restrict__ dst, const i64 m,
                                             i64* parent) {
    for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += (i64)gridDim.x * blockDim.x) {
        i64 a = find_root(parent, src[e], true), b = find_root(parent, dst[e], true);
        while (a != b) {
            const i64 high = a > b ? a : b, low = a > b ? b : a;
            if ((i64)atomicCAS((u64*)&parent[high], (u64)high, (u64)low) == high) break;
            a = find_root(parent, high, true);  // another edge hooked it first: hook its new root
            b = find_root(parent, low, true);
        }
    }
}

extern "C" __global__ void riptide_point_at_roots(const i64 n, i64* parent) {
    for (i64 x = (i64)blockIdx.x * blockDim.x + threadIdx.x; x < n; x += (i64)gridDim.x * blockDim.x)
        ((volatile i64*)parent)[x] = find_root(parent, x, false);
}
"""


@functools.cache
def _kernel(name: str) -> Any:
    import cupy as cp

    return cp.RawKernel(UNION_FIND_SOURCE, name)


def _launch(name: str, n: int, args: tuple) -> None:
    threads = 256
    _kernel(name)((max(1, min(-(-n // threads), 65536)),), (threads,), args)


def component_roots(n: int, src: Any, dst: Any, xp: types.ModuleType) -> Any:
    """Per vertex ``0 .. n-1``, the smallest vertex of its connected component in the undirected graph of the edges
    ``(src[i], dst[i])`` (int64).

    >>> component_roots(6, np.array([0, 2, 3, 4]), np.array([1, 3, 1, 5]), np).tolist()
    [0, 0, 0, 0, 4, 4]
    """
    parent = xp.arange(n, dtype=np.int64)
    u, v = src.astype(np.int64, copy=False), dst.astype(np.int64, copy=False)
    if xp is not np:
        m = int(u.shape[0])
        if m:
            _launch("riptide_hook_edges", m, (xp.ascontiguousarray(u), xp.ascontiguousarray(v), np.int64(m), parent))
            _launch("riptide_point_at_roots", n, (np.int64(n), parent))
        return parent
    while u.shape[0]:
        pu, pv = parent[u], parent[v]
        differ = xp.flatnonzero(pu != pv)
        if differ.shape[0] == 0:  # one scalar read (the size): no edge joins two trees any more
            break
        u, v, pu, pv = u[differ], v[differ], pu[differ], pv[differ]
        scatter_min(parent, xp.maximum(pu, pv), xp.minimum(pu, pv), xp)
        while True:
            grand = parent[parent]
            if not bool((grand != parent).any()):  # one scalar read: every vertex points at its root
                break
            parent = grand
    return parent
