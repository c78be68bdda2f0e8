"""Stable sorting helpers shared by factorization, lookups and (later) sort_values.

CuPy's ``argsort`` is always stable (and takes no ``kind``); NumPy's needs ``kind="stable"``.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

__all__ = ["stable_argsort", "lexsort"]


def stable_argsort(values: Any, xp: types.ModuleType) -> Any:
    """Indices that sort ``values``, equal values keeping their order."""
    if xp is np:
        return np.argsort(values, kind="stable")
    return xp.argsort(values)


def lexsort(keys: list[Any], xp: types.ModuleType) -> Any:
    """Indices that sort rows by ``keys[0]``, then ``keys[1]``, ... (keys may differ in dtype).

    Least-significant key first, one stable sort per key (LSD radix over whole keys).

    >>> lexsort([np.array([1, 0, 1]), np.array([0.5, 9.0, 0.1])], np).tolist()
    [1, 2, 0]
    """
    order = stable_argsort(keys[-1], xp)
    for key in reversed(keys[:-1]):
        order = order[stable_argsort(key[order], xp)]
    return order
