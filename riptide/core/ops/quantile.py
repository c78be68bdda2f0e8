"""Quantiles of a numeric column (pandas' ``Series.quantile`` interpolation methods)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn

__all__ = ["quantile", "INTERPOLATIONS"]

INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile(column: Column, qs: list[float], interpolation: str = "linear") -> list[Any]:
    """The ``qs`` quantiles of the non-missing values (NaN for an empty column).

    >>> quantile(NumericColumn(np.array([1.0, 2.0, 3.0, 4.0])), [0.5])
    [np.float64(2.5)]
    """
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"interpolation must be one of {', '.join(INTERPOLATIONS)}, got {interpolation!r}")
    for q in qs:
        if not 0 <= q <= 1:
            raise ValueError("percentiles should all be in the interval [0, 1]")
    if not isinstance(column, NumericColumn) or (column.kind == "b" and not dtypes.is_masked(column.dtype)):
        raise TypeError(f"quantile is not supported for dtype {column.dtype}")
    xp = column.xp
    missing = column.isna() if column.can_hold_missing() else None
    values = column.data if missing is None else column.data[~missing]
    temporal = dtypes.is_datetimelike(column.dtype)
    if values.shape[0] == 0:
        return [pd.NaT if temporal else np.float64(np.nan)] * len(qs)
    ordered = xp.sort(values.astype(np.float64) if not temporal else values)
    n = ordered.shape[0]
    positions = xp.asarray(np.asarray(qs, dtype=np.float64) * (n - 1))
    lower = xp.floor(positions).astype(np.int64)
    upper = xp.minimum(lower + 1, n - 1)
    fraction = positions - lower
    low_values = ordered[lower].astype(np.float64)
    high_values = ordered[upper].astype(np.float64)
    if interpolation == "linear":
        result = low_values + (high_values - low_values) * fraction
    elif interpolation == "lower":
        result = low_values
    elif interpolation == "higher":
        result = xp.where(fraction > 0, high_values, low_values)
    elif interpolation == "midpoint":
        result = xp.where(fraction > 0, (low_values + high_values) / 2, low_values)
    else:  # nearest: NumPy rounds half to even on the position
        result = ordered[xp.around(positions).astype(np.int64)].astype(np.float64)
    host = _device.to_host(result)
    if temporal:
        unit = np.datetime_data(column.dtype)[0]
        box = pd.Timestamp if column.dtype.kind == "M" else pd.Timedelta
        kind = "M8" if column.dtype.kind == "M" else "m8"
        return [box(np.array(round(v)).astype(np.int64).view(f"{kind}[{unit}]")) for v in host]
    return [np.float64(v) for v in host]
