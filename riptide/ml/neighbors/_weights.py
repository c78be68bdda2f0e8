"""Neighbour weights from distances: scikit-learn's ``'uniform'``, ``'distance'`` and callable weights."""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from riptide import _device

__all__ = ["neighbor_weights"]


def neighbor_weights(dist: Any, weights: Any, xp: types.ModuleType, dist_for_callable: Any = None,
                     check_zero: bool = True) -> Any:
    """The ``(n_queries, k)`` weights of the neighbours at distances ``dist`` (xp), or None for uniform weights.

    ``'distance'``: ``1 / d``; a query at distance 0 from some of its neighbours gives those weight 1 and the
    others 0 (scikit-learn's rule). A callable receives ``dist_for_callable`` (the distances in the form the user
    sees: NumPy for host inputs) and its answer comes back to xp. An all-zero row is scikit-learn's ValueError
    (the classifier's check; the regressor does not make it: ``check_zero=False``).

    >>> neighbor_weights(np.array([[0.0, 2.0], [1.0, 4.0]]), "distance", np).tolist()
    [[1.0, 0.0], [1.0, 0.25]]
    """
    if weights in (None, "uniform"):
        return None
    if weights == "distance":
        with np.errstate(divide="ignore"):  # (CuPy does not warn)
            w = 1.0 / dist
        inf_mask = xp.isinf(w)
        inf_row = inf_mask.any(axis=1, keepdims=True)
        w = xp.where(inf_row, inf_mask.astype(w.dtype), w)
    else:
        w = weights(dist if dist_for_callable is None else dist_for_callable)
        w = _device.to_device(_device.to_host(w) if not hasattr(w, "shape") else w, xp)
    if check_zero and bool((w == 0).all(axis=1).any()):  # one scalar read: scikit-learn's check for an all-zero row
        raise ValueError("All neighbors of some sample is getting zero weights. Please modify 'weights' to avoid "
                         "this case if you are using a user-defined function.")  # fmt: skip
    return w
