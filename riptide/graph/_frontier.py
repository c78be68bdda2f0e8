"""One breadth-first level, or one round of shortest-path relaxation, on the GPU in memory the size of the
frontier, not of its arcs (CuPy only).

The NumPy level of :mod:`riptide.graph.traversal` gathers the frontier's rows into arc-sized arrays (row numbers,
positions, neighbours, a fresh mask, positions again for the first occurrences): five int64 arrays as long as the
largest level's arcs, 4.4x the CSR at the peak of a BFS on 1e7 power-law edges. Here the same level is three
kernels, each with a warp per frontier row (lane ``j`` takes the row's arcs ``j, j + 32, ...``):

1. **claim**: every neighbour not reached yet takes the minimum of the positions it appears at (a position is the
   arc's place in the frontier's rows laid end to end: ``row start + k``), by ``atomicMin`` on ``claim``;
2. **count**: each row counts the neighbours whose claim is this very position, their first occurrence;
3. **emit**: after a scan of the counts, each row writes those neighbours at its place in the next frontier, in
   arc order (a ballot ranks them within each round of 32 arcs), with their parent, the row's vertex.

The next frontier is then the neighbours in order of first occurrence, each once, and its parents the rows that
held them: exactly the NumPy level's result (a minimum does not depend on which thread writes first). Besides
the graph's ``reached`` and ``claim`` (a byte and a word per node, kept across levels), a level allocates its
frontier's offsets, counts and output only.

A relaxation round (:func:`relax_frontier`, weighted shortest paths) is one kernel the same way: each frontier
state offers its distance plus each arc's weight to the arc's head by ``atomicMin`` on order-preserving int64
words, and marks the heads it improved. A state read while another row lowers it offers a smaller, still valid
distance; the rounds end at the same fixed point (each path's length is summed along the path either way).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from riptide.core.kernels.segments import take_offsets

__all__ = ["expand_frontier", "relax_frontier"]

_THREADS = 256

FRONTIER_SOURCE = r"""
#ifndef LANES
#define LANES 32  // threads that share a row (a warp; 1 when emulated on a CPU)
#endif
typedef long long i64;

// The loops below run the same number of rounds in every lane of a warp (rounds of LANES arcs), so the ballots
// see the whole warp.
#define FOR_EACH_ROW \
    const int lane = threadIdx.x % LANES; \
    const i64 warps = ((i64)gridDim.x * blockDim.x) / LANES; \
    for (i64 r = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / LANES; r < m; r += warps)

extern "C" __global__ void riptide_bfs_claim(const i64* __restrict__ indices, const i64* __restrict__ starts,
        const i64* __restrict__ positions, const i64 m, const bool* __restrict__ reached, i64* claim) {
    FOR_EACH_ROW {
        const i64 begin = starts[r], at = positions[r], length = positions[r + 1] - at;
        for (i64 k = lane; k < length; k += LANES) {
            const i64 v = indices[begin + k];
            if (!reached[v]) atomicMin(&claim[v], at + k);
        }
    }
}

__device__ __forceinline__ bool first_seen_here(const i64* indices, const bool* reached, const i64* claim,
                                                i64 begin, i64 at, i64 length, i64 k, i64* v) {
    if (k >= length) return false;
    *v = indices[begin + k];
    return !reached[*v] && claim[*v] == at + k;
}

extern "C" __global__ void riptide_bfs_count(const i64* __restrict__ indices, const i64* __restrict__ starts,
        const i64* __restrict__ positions, const i64 m, const bool* __restrict__ reached,
        const i64* __restrict__ claim, i64* __restrict__ counts) {
    FOR_EACH_ROW {
        const i64 begin = starts[r], at = positions[r], length = positions[r + 1] - at;
        i64 found = 0, v;
        for (i64 round = 0; round < length; round += LANES) {
            const bool here = first_seen_here(indices, reached, claim, begin, at, length, round + lane, &v);
            found += __popc(__ballot_sync(0xffffffffu, here));
        }
        if (lane == 0) counts[r] = found;
    }
}

extern "C" __global__ void riptide_bfs_emit(const i64* __restrict__ indices, const i64* __restrict__ starts,
        const i64* __restrict__ positions, const i64 m, const bool* __restrict__ reached,
        const i64* __restrict__ claim, const i64* __restrict__ out_offsets, const i64* __restrict__ frontier,
        i64* __restrict__ next, i64* __restrict__ parents) {
    FOR_EACH_ROW {
        const i64 begin = starts[r], at = positions[r], length = positions[r + 1] - at;
        i64 out = out_offsets[r], v;
        for (i64 round = 0; round < length; round += LANES) {
            const bool here = first_seen_here(indices, reached, claim, begin, at, length, round + lane, &v);
            const unsigned int hits = __ballot_sync(0xffffffffu, here);
            if (here) {
                const i64 slot = out + __popc(hits & ((1u << lane) - 1u));
                next[slot] = v;
                if (parents != NULL) parents[slot] = frontier[r];
            }
            out += __popc(hits);
        }
    }
}

__device__ __forceinline__ i64 ordered_word(double x) {  // a float64 as an int64 that orders as the floats do
    const i64 bits = __double_as_longlong(x);
    return bits ^ ((bits >> 63) & 0x7FFFFFFFFFFFFFFFLL);
}

extern "C" __global__ void riptide_sssp_relax(const i64* __restrict__ offsets, const i64* __restrict__ targets,
        const double* __restrict__ weights, const i64* __restrict__ frontier, const i64 m, const i64 n,
        const int has_cutoff, const double cutoff, i64* keys, bool* improved) {
    // frontier[r] is a state b * n + v (source b, vertex v); its arcs are v's row. weights NULL: every arc counts 1.
    FOR_EACH_ROW {
        const i64 state = frontier[r], v = state % n, base = state - v;
        const i64 own = keys[state];  // the state's distance, back from its word
        const double d = __longlong_as_double(own ^ ((own >> 63) & 0x7FFFFFFFFFFFFFFFLL));
        for (i64 a = offsets[v] + lane; a < offsets[v + 1]; a += LANES) {
            const double offered = d + (weights != NULL ? weights[a] : 1.0);
            if (has_cutoff && !(offered <= cutoff)) continue;
            const i64 key = ordered_word(offered), head = base + targets[a];
            if (key < keys[head] && atomicMin(&keys[head], key) > key) improved[head] = true;
        }
    }
}
"""


@functools.cache
def _kernel(name: str) -> Any:
    import cupy as cp

    return cp.RawKernel(FRONTIER_SOURCE, name)


def _launch(name: str, m: int, args: tuple) -> None:
    lanes = 32
    blocks = max(1, min(-(-m * lanes // _THREADS), 65536))
    _kernel(name)((blocks,), (_THREADS,), args)


def expand_frontier(offsets: Any, indices: Any, frontier: Any, reached: Any, claim: Any,
                    with_parents: bool) -> tuple[Any, Any]:  # fmt: skip
    """The next BFS level of ``frontier`` (int64 dense ids, discovery order) over the CSR ``(offsets, indices)``:
    ``(next frontier, its parents or None)``. ``reached`` (bool per node) is updated with the new level; ``claim``
    (int64 per node, int64 max where never claimed) keeps each new vertex's position. One scalar read (the next
    level's size)."""
    import cupy as cp

    m = int(frontier.shape[0])
    indices = cp.ascontiguousarray(indices, dtype=np.int64)
    starts, positions = take_offsets(offsets, frontier, cp)
    common = (indices, starts, positions, np.int64(m), reached)
    _launch("riptide_bfs_claim", m, (*common, claim))
    counts = cp.empty(m, dtype=np.int64)
    _launch("riptide_bfs_count", m, (*common, claim, counts))
    out_offsets = cp.zeros(m + 1, dtype=np.int64)
    cp.cumsum(counts, out=out_offsets[1:])
    del counts
    total = int(out_offsets[-1])  # the one read: the next level's size
    following = cp.empty(total, dtype=np.int64)
    parents = cp.empty(total, dtype=np.int64) if with_parents else None
    if total:
        frontier = cp.ascontiguousarray(frontier, dtype=np.int64)
        _launch("riptide_bfs_emit", m, (*common, claim, out_offsets, frontier, following,
                                        parents if parents is not None else np.uint64(0)))  # fmt: skip
        reached[following] = True
    return following, parents


def relax_frontier(offsets: Any, targets: Any, arc_weights: Any, frontier: Any, n: int, cutoff: Any, keys: Any,
                   improved: Any) -> None:  # fmt: skip
    """One relaxation round from the states ``frontier`` (``b * n + v``): lowers ``keys`` (order-preserving int64
    words of the distances, per state) of the heads their arcs reach within ``cutoff`` and sets ``improved`` there."""
    import cupy as cp

    m = int(frontier.shape[0])
    if m == 0:
        return
    weights = np.uint64(0) if arc_weights is None else cp.ascontiguousarray(arc_weights, dtype=np.float64)
    args = (cp.ascontiguousarray(offsets, dtype=np.int64), cp.ascontiguousarray(targets, dtype=np.int64), weights,
            cp.ascontiguousarray(frontier, dtype=np.int64), np.int64(m), np.int64(n), np.int32(cutoff is not None),
            np.float64(0.0 if cutoff is None else cutoff), keys, improved)  # fmt: skip
    _launch("riptide_sssp_relax", m, args)
