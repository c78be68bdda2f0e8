"""``describe`` for Series and DataFrame, and turning one row into a Series.

Numeric columns get count, mean, std, min, percentiles and max (pandas' layout);
string and categorical columns get count, unique, top and freq.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import NumericColumn
from riptide.core.kernels.factorize import factorize
from riptide.core.ops import reduce
from riptide.core.ops.quantile import quantile

__all__ = ["describe_series", "describe_frame", "row_as_series"]


def _percentiles(percentiles: Any) -> list[float]:
    chosen = [0.25, 0.5, 0.75] if percentiles is None else sorted({float(p) for p in percentiles} | {0.5})
    for p in chosen:
        if not 0 <= p <= 1:
            raise ValueError("percentiles should all be in the interval [0, 1]")
    return chosen


def _label(p: float) -> str:
    text = f"{p * 100:.10g}"
    return f"{text}%"


def _numeric_summary(column: NumericColumn, percentiles: list[float]) -> pd.Series:
    stats = {"count": float(reduce.reduce(column, "count"))}
    if dtypes.is_datetimelike(column.dtype):
        stats["mean"] = reduce.reduce(column, "mean")
        stats["min"] = reduce.reduce(column, "min")
        stats.update(zip(map(_label, percentiles), quantile(column, percentiles)))
        stats["max"] = reduce.reduce(column, "max")
        return pd.Series(stats, dtype=object)
    as_float = column if column.kind != "b" else NumericColumn(column.data.astype(np.float64))
    stats["mean"] = _float(reduce.reduce(as_float, "mean"))
    stats["std"] = _float(reduce.reduce(as_float, "std"))
    stats["min"] = _float(reduce.reduce(as_float, "min"))
    stats.update(zip(map(_label, percentiles), map(_float, quantile(as_float, percentiles))))
    stats["max"] = _float(reduce.reduce(as_float, "max"))
    return pd.Series(stats, dtype=np.float64)


def _float(value: Any) -> float:
    return np.nan if value is pd.NA else float(value)


def _object_summary(column: Any) -> pd.Series:
    codes, n_unique = factorize(column)
    count = int(reduce.reduce(column, "count"))
    if n_unique == 0:
        return pd.Series({"count": count, "unique": 0, "top": np.nan, "freq": np.nan}, dtype=object)
    xp = column.xp
    valid = codes[codes >= 0]
    counts = xp.bincount(valid, minlength=n_unique)
    top_code = int(xp.argmax(counts))  # ties: the smallest value, as the sorted codes order them
    first_row = int(xp.argmax(codes == top_code))
    from riptide.frame.indexing import scalar_at

    return pd.Series({"count": count, "unique": n_unique, "top": scalar_at(column, first_row),
                      "freq": int(_device.to_host(counts[top_code]))}, dtype=object)  # fmt: skip


def describe_series(series: Any, percentiles: Any = None) -> Any:
    from riptide.frame.series import Series

    column = series._column
    if isinstance(column, NumericColumn) and not (column.kind == "b" and not dtypes.is_masked(column.dtype)):
        summary = _numeric_summary(column, _percentiles(percentiles))
    else:
        summary = _object_summary(column)
    summary.name = series.name
    # A text summary mixes ints and strings, which no riptide column holds: it stays a (tiny) pandas Series.
    return Series(summary) if summary.dtype != object else summary


def describe_frame(frame: Any, percentiles: Any = None, include: Any = None, exclude: Any = None) -> Any:
    from riptide.frame.dataframe import DataFrame

    chosen = _percentiles(percentiles)
    numeric = {k: c for k, c in frame._data.items() if isinstance(c, NumericColumn) and c.kind != "b"}
    if include == "all":
        selected = frame._data
    elif include is None:
        selected = numeric or frame._data
    else:
        raise NotImplementedError("describe(include=...) supports None and 'all'")
    if exclude is not None:
        raise NotImplementedError("describe(exclude=...) is not supported yet")
    summaries = {}
    for label, column in selected.items():
        if label in numeric:
            summaries[label] = _numeric_summary(column, chosen)
        else:
            summaries[label] = _object_summary(column)
    host = pd.DataFrame(summaries)
    if all(s.dtype == np.float64 for s in summaries.values()):
        return DataFrame(host)
    return host  # mixed int/str summary rows: a small pandas frame, as for Series.describe


def row_as_series(frame: Any, label: Any) -> Any:
    """One row of a (one-row) frame as a Series indexed by the column labels, as ``df.loc[label]``."""
    from riptide.frame.series import Series

    host = frame.to_pandas()
    row = host.iloc[0]
    row.name = label
    return row if row.dtype == object else Series(row)  # a row of mixed kinds stays a pandas Series
