"""Binning values into intervals: ``rt.cut`` (given edges, or equal-width bins) and ``rt.qcut`` (quantile bins).

The edges are few and live on the host; the values stay on the device:

* ``cut`` with a number of bins reads two scalars (the minimum and maximum) and computes the edges on the host
  exactly as pandas does (``np.linspace`` over the range, widened by 0.1% on the open side).
* ``qcut`` takes the edges from :func:`riptide.core.ops.quantile.quantile` (NumPy's arithmetic, so the edges are
  bit for bit pandas').
* The binning itself is one ``searchsorted`` of the values in the edges on the device; codes are the bin numbers,
  -1 outside the edges and for missing values.

The result is a categorical Series whose categories are pandas ``Interval``s (or the given labels). Intervals are
no riptide column type, so those categories are a small host pandas Index
(:class:`riptide.core.column.categorical.HostCategories`); the codes stay on the device. ``labels=False`` gives
the integer codes instead (float64 with NaN where a value falls in no bin, as pandas).

>>> import riptide as rt
>>> rt.cut(rt.Series([1, 5, 7, 10]), bins=[0, 5, 10]).tolist()
[Interval(0, 5, closed='right'), Interval(0, 5, closed='right'), Interval(5, 10, closed='right'), Interval(5, 10, closed='right')]
>>> rt.qcut(rt.Series([1.0, 2.0, 3.0, 4.0]), 2, labels=False).tolist()
[0, 0, 1, 1]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, as_column
from riptide.core.column.categorical import HostCategories, categories_column, codes_dtype_for

__all__ = ["cut", "qcut"]


def cut(x: Any, bins: Any, right: bool = True, labels: Any = None, retbins: bool = False, precision: int = 3,
        include_lowest: bool = False, duplicates: str = "raise", ordered: bool = True) -> Any:  # fmt: skip
    """Bin values into intervals, as ``pandas.cut``.

    Parameters
    ----------
    x : Series or 1-D array-like
    bins : int, sequence of edges, or pandas IntervalIndex
        An int makes that many equal-width bins over the range of ``x`` (widened by 0.1% so that the extreme
        value falls inside).
    right : bool
        Bins include their right edge (``(a, b]``); else their left edge (``[a, b)``).
    labels : None, False or sequence
        None: Interval categories; False: the integer bin numbers; a sequence: one label per bin.
    retbins : bool
        Also return the edges.
    precision : int
        Digits kept in the edges of the Interval labels.
    include_lowest : bool
        The first bin also includes its left edge.
    duplicates : {"raise", "drop"}
        What to do with repeated edges.
    ordered : bool
        Whether the categorical result is ordered (labels must be given when False).

    Returns
    -------
    Series (categorical, or integer codes with ``labels=False``), and the edges with ``retbins=True``.
    A Series input keeps its index and name; other inputs get a default index (pandas returns a Categorical
    or a NumPy array for them).

    Examples
    --------
    >>> import riptide as rt
    >>> rt.cut(rt.Series([1, 2, 3, 4]), 2, labels=["low", "high"]).tolist()
    ['low', 'low', 'high', 'high']
    >>> rt.cut(rt.Series([1, 2, 3, 4]), 2, labels=False, retbins=True)[1].tolist()
    [0.997, 2.5, 4.0]
    """
    column, index, name = _input(x)
    values = _comparable(column)
    if not np.iterable(bins):
        edges = _equal_width_edges(values, bins, right)
    elif isinstance(bins, pd.IntervalIndex):
        if bins.is_overlapping:
            raise ValueError("Overlapping IntervalIndex is not accepted.")
        edges = bins
    else:
        edges = pd.Index(bins)
        if not edges.is_monotonic_increasing:
            raise ValueError("bins must increase monotonically.")
    result, edges = _binned(values, edges, right, labels, precision, include_lowest, duplicates, ordered)
    return _output(result, index, name, edges, retbins)


def qcut(x: Any, q: Any, labels: Any = None, retbins: bool = False, precision: int = 3,
         duplicates: str = "raise") -> Any:  # fmt: skip
    """Bin values into quantile-based intervals (``q`` equal-sized bins, or bins between the quantiles ``q``), as
    ``pandas.qcut``.

    >>> import riptide as rt
    >>> rt.qcut(rt.Series(range(8)), 4, labels=["q1", "q2", "q3", "q4"]).tolist()
    ['q1', 'q1', 'q2', 'q2', 'q3', 'q3', 'q4', 'q4']
    """
    from riptide.core.ops.quantile import quantile_column

    column, index, name = _input(x)
    values = _comparable(column)
    if pd.api.types.is_integer(q):
        if q < 1:
            raise ValueError("`q` should be a positive integer.")
        levels = np.linspace(0, 1, q + 1)
        # Levels that are not exactly k/q in floating point move up by one ulp (pandas 3.1's rule), so that
        # an edge computed from them does not fall below the value it should include.
        inexact = q * levels != np.arange(q + 1)
        levels = np.where(inexact, np.nextafter(levels, 1), levels)
    elif pd.api.types.is_list_like(q):
        levels = np.asarray(list(q), dtype=np.float64)
    else:
        raise ValueError("`q` should be a positive integer or list-like of quantiles.")
    # The edges are pandas' ``Series.quantile`` result made an Index: the quantiles' dtype, the Series' name.
    # (pandas takes the quantiles of the values without their missing ones: an all-missing float32 column then
    # has float64 edges, as an empty one does)
    present = values.filter(values.notna()) if values.can_hold_missing() else values
    edges = pd.Index(quantile_column(present, [float(v) for v in levels]).to_pandas_array(), name=name)
    result, edges = _binned(values, edges, True, labels, precision, True, duplicates, True)
    return _output(result, index, name, edges, retbins)


# --------------------------------------------------------------------------- input and output


def _input(x: Any) -> tuple[Column, Any, Any]:
    """The values as a column, and the index and name of a Series input (None otherwise)."""
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    if isinstance(x, pd.Series):
        x = Series(x)
    if isinstance(x, Series):
        return x._column, x._index, x.name
    if isinstance(x, Index):
        return x._as_column(), None, None
    if getattr(x, "ndim", 1) != 1 or (not hasattr(x, "ndim") and np.ndim(np.asarray(x, dtype=object)) != 1):
        raise ValueError("Input array must be 1 dimensional")
    return as_column(x), None, None


def _comparable(column: Column) -> NumericColumn:
    """The values as pandas bins them: bools as int64, nullable numbers as float64 with NaN; datetimes as is."""
    from riptide.core.ops.cast import astype

    if not isinstance(column, NumericColumn):
        raise TypeError(f"cannot bin values of dtype {column.dtype}: cut and qcut need numbers, datetimes or "
                        "timedeltas")  # fmt: skip
    if column.kind == "b":
        if column.mask is not None and bool((~column.mask).any()):  # one scalar read, as pandas' cast to int64
            raise ValueError("cannot convert NA to integer")
        return NumericColumn(column.data.astype(np.int64))
    if dtypes.is_masked(column.dtype):
        return astype(column, np.float64)  # NA becomes NaN
    return column


def _output(result: Column, index: Any, name: Any, edges: Any, retbins: bool) -> Any:
    from riptide.frame.series import Series

    series = Series._from_column(result, index, name)
    if not retbins:
        return series
    if not isinstance(edges, pd.IntervalIndex) and pd.api.types.is_numeric_dtype(edges.dtype):
        edges = np.asarray(edges)
    return series, edges


# --------------------------------------------------------------------------- edges


def _equal_width_edges(values: NumericColumn, nbins: Any, right: bool) -> pd.Index:
    """``nbins + 1`` equal-width edges over the range of the values (pandas' rule, on the host)."""
    from riptide.core.ops.reduce import reduce

    if nbins < 1:
        raise ValueError("`bins` should be a positive integer.")
    if values.size == 0:
        raise ValueError("Cannot cut empty array")
    low, high = reduce(values, "min"), reduce(values, "max")  # two scalar reads: the range
    if dtypes.is_datetimelike(values.dtype):
        unit = dtypes.datetime_unit(values.dtype)
        make_range = pd.date_range if values.dtype.kind == "M" else pd.timedelta_range
        if low == high:
            step = pd.Timedelta(seconds=1).as_unit(unit)
            return pd.Index(make_range(start=low - step, end=high + step, periods=int(nbins) + 1, unit=unit))
        edges = make_range(start=low, end=high, periods=int(nbins) + 1, unit=unit).array.copy()
        widening = (high - low) * 0.001
        if right:
            edges[0] = edges[0] - widening
        else:
            edges[-1] = edges[-1] + widening
        return pd.Index(edges)
    if np.isnan(low):  # no value to take a range of: pandas' minimum is then its plain NaN (float64 edges)
        low = high = np.nan
    if np.isinf(low) or np.isinf(high):
        raise ValueError("cannot specify integer `bins` when input data contains infinity")
    if low == high:
        low = low - (0.001 * abs(low) if low != 0 else 0.001)
        high = high + (0.001 * abs(high) if high != 0 else 0.001)
        return pd.Index(np.linspace(low, high, int(nbins) + 1, endpoint=True))
    edges = np.linspace(low, high, int(nbins) + 1, endpoint=True)
    widening = (high - low) * 0.001
    if right:
        edges[0] -= widening
    else:
        edges[-1] += widening
    return pd.Index(edges)


def _interval_labels(edges: pd.Index, precision: int, right: bool, include_lowest: bool) -> pd.IntervalIndex:
    """The Interval categories: edges rounded to ``precision`` significant fraction digits (more where rounding
    would merge two edges)."""
    closed = "right" if right else "left"
    if dtypes.is_datetimelike(edges.dtype):
        unit = dtypes.datetime_unit(edges.dtype)
        breaks = list(edges)
        if right and include_lowest:
            breaks[0] = breaks[0] - pd.Timedelta(1, unit=unit).as_unit(unit)
        return pd.IntervalIndex.from_breaks(type(edges)(breaks).as_unit(unit), closed=closed)
    digits = _enough_digits(edges, precision)
    breaks = [_rounded(edge, digits) for edge in edges]
    if right and include_lowest:
        breaks[0] = breaks[0] - 10 ** (-digits)
    return pd.IntervalIndex.from_breaks(breaks, closed=closed)


def _rounded(value: Any, digits: int) -> Any:
    """``value`` rounded to ``digits`` decimals, counted from the first significant digit when |value| < 1."""
    if value == 0 or not np.isfinite(value):
        return value
    fraction, whole = np.modf(value)
    if whole == 0:
        digits = digits - 1 - int(np.floor(np.log10(abs(fraction))))
    return np.around(value, digits)


def _enough_digits(edges: pd.Index, precision: int) -> int:
    """The smallest precision from ``precision`` up (below 20) that keeps the rounded edges distinct."""
    for digits in range(precision, 20):
        if len(pd.unique(np.asarray([_rounded(edge, digits) for edge in edges]))) == len(edges):
            return digits
    return precision


# --------------------------------------------------------------------------- binning


def _binned(values: NumericColumn, edges: Any, right: bool, labels: Any, precision: int, include_lowest: bool,
            duplicates: str, ordered: bool) -> tuple[Column, Any]:  # fmt: skip
    """The bin of each value (a categorical column, or codes with ``labels=False``) and the edges used."""
    if not ordered and labels is None:
        raise ValueError("'labels' must be provided if 'ordered = False'")
    if duplicates not in ("raise", "drop"):
        raise ValueError("invalid value for 'duplicates' parameter, valid options are: raise, drop")
    xp = values.xp
    if isinstance(edges, pd.IntervalIndex):
        codes = _interval_codes(values, edges)
        return CategoricalColumn(codes.astype(codes_dtype_for(len(edges))), HostCategories(edges), True), edges
    distinct = edges.unique()
    if len(distinct) < len(edges) and len(edges) != 2:
        if duplicates == "raise":
            raise ValueError(f"Bin edges must be unique: {edges!r}.\nYou can drop duplicate edges by setting the "
                             "'duplicates' kwarg")  # fmt: skip
        edges = distinct
    n_edges = len(edges)
    edge_values = _edges_like(values, edges, xp)
    data = values.data
    ids = xp.searchsorted(edge_values, data.astype(edge_values.dtype, copy=False), side="left" if right else "right")
    if include_lowest and n_edges:
        ids = xp.where(data == edge_values[0], 1, ids)
    outside = values.isna() | (ids == n_edges) | (ids == 0)
    codes = xp.where(outside, -1, ids - 1).astype(np.int64)
    if labels is False:
        if bool(outside.any()):  # one scalar read: pandas' codes are float64 with NaN where a value has no bin
            return NumericColumn(xp.where(outside, np.nan, codes.astype(np.float64))), edges
        return NumericColumn(codes), edges
    if labels is not None and not pd.api.types.is_list_like(labels):
        raise ValueError("Bin labels must either be False, None or passed in as a list-like argument")
    if labels is None:
        categories = _interval_labels(edges, precision, right, include_lowest)
        pd.CategoricalDtype(categories, ordered)  # pandas' checks of the categories (NaN edges are refused)
        return CategoricalColumn(codes.astype(codes_dtype_for(len(categories))), HostCategories(categories),
                                 ordered), edges  # fmt: skip
    labels = labels if isinstance(getattr(labels, "dtype", None), pd.CategoricalDtype) else list(labels)
    if ordered and len(set(labels)) != len(labels):
        raise ValueError("labels must be unique if ordered=True; pass ordered=False for duplicate labels")
    if len(labels) != n_edges - 1:
        raise ValueError("Bin labels must be one fewer than the number of bin edges")
    if not isinstance(getattr(labels, "dtype", None), pd.CategoricalDtype):
        unique = len(set(labels)) == len(labels)
        labels = pd.Categorical(labels, categories=labels if unique else None, ordered=ordered)
    # Each bin's code in the labels' categories (repeated labels share one), gathered on the device.
    label_codes = xp.asarray(np.asarray(labels.codes, dtype=np.int64))
    categories = categories_column(labels.categories, xp)
    final = xp.where(codes < 0, -1, label_codes[xp.maximum(codes, 0)])
    return CategoricalColumn(final.astype(codes_dtype_for(len(labels.categories))), categories,
                             labels.ordered), edges  # fmt: skip


def _edges_like(values: NumericColumn, edges: pd.Index, xp: Any) -> Any:
    """The edges as a device array comparable with the values' buffer (datetimes as int64 in the values' unit)."""
    kind = values.dtype.kind if isinstance(values.dtype, np.dtype) else "f"
    if kind in "mM":
        edge_kind = edges.dtype.kind if isinstance(edges.dtype, np.dtype) else "O"
        if edge_kind != kind:
            what = "datetime64" if kind == "M" else "timedelta64"
            raise ValueError(f"bins must be of {what} dtype")
        unit = dtypes.datetime_unit(values.dtype)
        return xp.asarray(np.asarray(edges.as_unit(unit).asi8, dtype=np.int64))
    host = np.asarray(edges)
    if host.dtype.kind not in "biuf":
        raise TypeError(f"bins of dtype {edges.dtype} cannot bin values of dtype {values.dtype}")
    return xp.asarray(host.astype(np.result_type(host.dtype, values.data.dtype), copy=False))


def _interval_codes(values: NumericColumn, intervals: pd.IntervalIndex) -> Any:
    """For each value, the position of the (non-overlapping) interval holding it, or -1."""
    xp = values.xp
    order = np.argsort(np.asarray(intervals.left), kind="stable")
    sorted_intervals = intervals.take(order)
    lefts = _edges_like(values, pd.Index(sorted_intervals.left), xp)
    rights = _edges_like(values, pd.Index(sorted_intervals.right), xp)
    data = values.data.astype(lefts.dtype, copy=False)
    closed_left = intervals.closed in ("left", "both")
    closed_right = intervals.closed in ("right", "both")
    # The candidate is the last interval starting at or before the value (strictly before when open on the left).
    candidate = xp.searchsorted(lefts, data, side="right" if closed_left else "left") - 1
    safe = xp.maximum(candidate, 0)
    inside = (candidate >= 0) & ((data <= rights[safe]) if closed_right else (data < rights[safe]))
    inside &= ~values.isna()
    original = xp.asarray(order.astype(np.int64))
    return xp.where(inside, original[safe], -1).astype(np.int64) if len(intervals) else (
        xp.full(values.size, -1, dtype=np.int64))  # fmt: skip
