"""``describe`` for Series and DataFrame, and turning one row into a Series.

Numeric columns get count, mean, std, min, percentiles and max (pandas' layout and dtypes);
string, categorical and boolean columns get count, unique, top and freq. A few reductions run on the device;
only the summary (a few numbers) is built on the host.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from pandas.io.formats.format import format_percentiles

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, NumericColumn
from riptide.core.kernels.factorize import factorize
from riptide.core.ops import reduce
from riptide.core.ops.quantile import quantile

__all__ = ["describe_series", "describe_frame", "row_as_series"]


def _percentiles(percentiles: Any) -> np.ndarray:
    """Sorted, as pandas: only the percentiles asked for (no 50% added), none twice."""
    if percentiles is None:
        return np.array([0.25, 0.5, 0.75])
    asked = np.asarray(percentiles, dtype=np.float64).ravel()
    if not ((asked >= 0) & (asked <= 1)).all():
        raise ValueError("percentiles should all be in the interval [0, 1]")
    chosen = np.unique(asked)
    if len(chosen) < len(asked):
        raise ValueError("percentiles cannot contain duplicates")
    return chosen


def _numeric_summary(column: NumericColumn, percentiles: np.ndarray) -> pd.Series:
    """count, mean, std, min, the percentiles and max, as pandas: float64 (Float64 for a masked column), or an
    int count and boxed scalars for timedeltas and datetimes (these without std)."""
    stats = ["mean", "min"] if column.kind == "M" else ["mean", "std", "min"]
    labels = ["count", *stats, *format_percentiles(percentiles), "max"]
    values = [reduce.reduce(column, "count"), *(reduce.reduce(column, op) for op in stats),
              *quantile(column, list(percentiles)), reduce.reduce(column, "max")]  # fmt: skip
    if dtypes.is_datetimelike(column.dtype):
        return pd.Series(values, index=labels, dtype=object)
    if dtypes.is_masked(column.dtype):
        return pd.Series(values, index=labels, dtype="Float64")
    return pd.Series([np.nan if v is pd.NA else v for v in values], index=labels, dtype=np.float64)


def _object_summary(column: Any) -> pd.Series:
    """count, unique, top, freq; of the most frequent values, top is the first seen (the first category for a
    categorical), as pandas' stable sort of value_counts."""
    codes, n_unique = factorize(column)
    count = int(reduce.reduce(column, "count"))
    if n_unique == 0:
        return pd.Series({"count": count, "unique": 0, "top": np.nan, "freq": np.nan}, dtype=object)
    xp = column.xp
    counts = xp.bincount(codes[codes >= 0], minlength=n_unique)
    freq = int(counts.max())  # one scalar read
    if isinstance(column, CategoricalColumn):
        first_row = int(xp.argmax(codes == int(xp.argmax(counts))))  # codes follow the categories' order
    else:
        first_row = int(xp.argmax((codes >= 0) & (counts[xp.maximum(codes, 0)] == freq)))
    from riptide.frame.indexing import scalar_at

    return pd.Series({"count": count, "unique": n_unique, "top": scalar_at(column, first_row), "freq": freq},
                     dtype=object)  # fmt: skip


def _summary(column: Any, percentiles: np.ndarray) -> pd.Series:
    if isinstance(column, NumericColumn) and column.kind != "b":
        return _numeric_summary(column, percentiles)
    return _object_summary(column)  # strings, categoricals, bool and boolean


def describe_series(series: Any, percentiles: Any = None) -> Any:
    from riptide.frame.series import Series

    summary = _summary(series._column, _percentiles(percentiles))
    summary.name = series.name
    # A text summary mixes ints and strings, which no riptide column holds: it stays a (tiny) pandas Series.
    return Series(summary) if summary.dtype != object else summary


def describe_frame(frame: Any, percentiles: Any = None, include: Any = None, exclude: Any = None) -> Any:
    from riptide.frame.dataframe import DataFrame

    if not frame._data:
        raise ValueError("Cannot describe a DataFrame without columns")
    chosen = _percentiles(percentiles)
    if exclude is not None:
        raise NotImplementedError("describe(exclude=...) is not supported yet")
    if include == "all":
        selected = frame._data
    elif include is None:  # numbers, timedeltas and datetimes when there are any, as pandas
        numeric = {k: c for k, c in frame._data.items() if isinstance(c, NumericColumn) and c.kind != "b"}
        selected = numeric or frame._data
    else:
        raise NotImplementedError("describe(include=...) supports None and 'all'")
    summaries = [_summary(column, chosen) for column in selected.values()]
    rows = list(dict.fromkeys(label for s in sorted(summaries, key=len) for label in s.index))  # pandas' order
    host = pd.concat(summaries, axis=1, ignore_index=True, sort=False).reindex(rows)
    host.columns = list(selected)
    if all(s.dtype != object for s in summaries):
        return DataFrame(host)
    return host  # mixed int/str summary rows: a small pandas frame, as for Series.describe


def row_as_series(frame: Any, label: Any) -> Any:
    """One row of a (one-row) frame as a Series indexed by the column labels, as ``df.loc[label]``."""
    from riptide.frame.series import Series

    host = frame.to_pandas()
    row = host.iloc[0]
    row.name = label
    return row if row.dtype == object else Series(row)  # a row of mixed kinds stays a pandas Series
