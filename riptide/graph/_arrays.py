"""Small array helpers the graph modules share.

:func:`bincount` is ``np.bincount(indices, weights, minlength=n)`` with exactly ``n`` bins, on both namespaces.
CuPy's own ``bincount`` reads the maximum index back to the host (a sync per call: one per PageRank iteration)
and fails on an empty input, so on the device it is a scatter-add into ``n`` zeros instead.

>>> bincount(np.array([2, 0, 2]), 4, np, weights=np.array([0.5, 1.0, 2.0])).tolist()
[1.0, 0.0, 2.5, 0.0]
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from riptide.core.kernels.scatter import scatter_add

__all__ = ["bincount"]


def bincount(indices: Any, n: int, xp: types.ModuleType, weights: Any = None) -> Any:
    """Per-bin count (int64) or sum of ``weights`` (float64) of ``indices`` in ``0..n-1``."""
    if xp is np:
        if weights is None:
            return np.bincount(indices, minlength=n).astype(np.int64, copy=False)
        return np.bincount(indices, weights=weights, minlength=n)
    if weights is None:
        out = xp.zeros(n, dtype=np.int64)
        values = xp.ones(indices.shape[0], dtype=np.int64)
    else:
        out = xp.zeros(n, dtype=np.float64)
        values = weights.astype(np.float64, copy=False)
    if indices.shape[0]:
        scatter_add(out, indices, values, xp)
    return out
