"""Inclusive scans (running sum, product, minimum, maximum) over a 1-D array, and the general scan of any
associative combination of per-row states (:func:`associative_scan`).

NumPy and CuPy both have ``cumsum``/``cumprod``; running extrema use
``ufunc.accumulate`` where the namespace supports it, else a log-step doubling scan
(``ceil(log2 n)`` elementwise passes), which is correct everywhere.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["associative_scan", "exclusive_cumsum", "running"]

State = tuple[Any, ...]  # a scan state: arrays of one row each per component

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
    """:func:`associative_scan` of one commutative ufunc."""
    return associative_scan((values,), lambda earlier, later: (ufunc(later[0], earlier[0]),), xp)[0]


def associative_scan(state: State, combine: Callable[[State, State], State], xp: types.ModuleType,
                     restart: Any = None) -> State:  # fmt: skip
    """Hillis-Steele scan: after the pass with step ``s`` each row holds the combined state of the ``2s`` rows
    ending at it (or of all rows from the first); ``ceil(log2 n)`` whole-array passes. ``combine(earlier, later)``
    must be associative.

    ``restart``: a bool per row, True where a segment starts (a group, for ``groupby().ewm()``): the scan then
    never combines across it (the usual segmented scan: a stretch that contains a start ignores what precedes).

    >>> import numpy as np
    >>> associative_scan((np.array([1, 2, 3, 4]),), lambda a, b: (a[0] + b[0],), np)[0].tolist()
    [1, 3, 6, 10]
    """
    if restart is not None:
        inner = combine

        def combine(a: State, b: State) -> State:
            merged = inner(a[:-1], b[:-1])
            kept = tuple(xp.where(b[-1], later, both) for later, both in zip(b[:-1], merged, strict=True))
            return (*kept, a[-1] | b[-1])

        state = (*state, restart)
    state = tuple(array.copy() for array in state)  # owned, distinct arrays: the passes write into them
    n = state[0].shape[0]
    step = 1
    while step < n:
        merged = combine(tuple(a[:-step] for a in state), tuple(a[step:] for a in state))
        for array, new in zip(state, merged, strict=True):  # in place: merged was computed from the old values
            array[step:] = new
        step *= 2
    return state if restart is None else state[:-1]
