"""Connected components of an edge list on the device: hooking and pointer jumping (no per-vertex loop).

The one union-find of riptide: graph components (:mod:`riptide.graph.components`), Leiden's refinement
(:mod:`riptide.graph.community`) and DBSCAN's clusters (:mod:`riptide.ml.cluster._neighbourhood`) all need the same
answer, per vertex the smallest vertex of its component. Each round hooks, for every edge whose ends are in
different trees, the larger root under the smaller one (a scatter-min, so concurrent hooks keep the smallest), then
jumps every pointer to its root; edges inside one tree drop out, so a round costs what is left.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from riptide.core.kernels.scatter import scatter_min

__all__ = ["component_roots"]


def component_roots(n: int, src: Any, dst: Any, xp: types.ModuleType) -> Any:
    """Per vertex ``0 .. n-1``, the smallest vertex of its connected component in the undirected graph of the edges
    ``(src[i], dst[i])`` (int64).

    >>> component_roots(6, np.array([0, 2, 3, 4]), np.array([1, 3, 1, 5]), np).tolist()
    [0, 0, 0, 0, 4, 4]
    """
    parent = xp.arange(n, dtype=np.int64)
    u, v = src.astype(np.int64, copy=False), dst.astype(np.int64, copy=False)
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
