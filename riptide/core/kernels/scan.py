"""Inclusive scans (running sum, product, minimum, maximum) over a 1-D array.

NumPy and CuPy both have ``cumsum``/``cumprod``; running extrema use
``ufunc.accumulate`` where the namespace supports it, else a log-step doubling scan
(``ceil(log2 n)`` elementwise passes), which is correct everywhere.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

__all__ = ["exclusive_cumsum", "running"]

_UFUNC = {"cummin": "minimum", "cummax": "maximum"}


def running(op: str, values: Any, xp: types.ModuleType) -> Any:
    """Inclusive scan of ``values`` with ``op`` in cumsum / cumprod / cummin / cummax.

    >>> import numpy as np
    >>> running("cummax", np.array([1, 3, 2, 5]), np).tolist()
    [1, 3, 3, 5]
    """
    if op == "cumsum":
        return xp.cumsum(values)
    if op == "cumprod":
        return xp.cumprod(values)
    ufunc = getattr(xp, _UFUNC[op])
    try:
        return ufunc.accumulate(values)
    except (NotImplementedError, TypeError, AttributeError):
        return _doubling_scan(ufunc, values, xp)


def exclusive_cumsum(flags: Any, xp: types.ModuleType, dtype: Any = np.int64) -> Any:
    """Running counts with a leading 0 (``n + 1`` values): ``out[j] - out[i]`` counts ``flags[i:j]``, so one scan
    answers "how many flagged bytes between two positions" for every row at once.

    >>> import numpy as np
    >>> exclusive_cumsum(np.array([True, False, True]), np).tolist()
    [0, 1, 1, 2]
    """
    out = xp.zeros(flags.shape[0] + 1, dtype=dtype)
    xp.cumsum(flags.astype(dtype, copy=False), out=out[1:])
    return out


def _doubling_scan(ufunc: Any, values: Any, xp: types.ModuleType) -> Any:
    """Hillis-Steele scan: after the pass with step s, each element covers the 2s values ending at it."""
    result = values.copy()
    step = 1
    n = result.shape[0]
    while step < n:
        shifted = ufunc(result[step:], result[:-step])
        result[step:] = shifted
        step *= 2
    return result
