"""resample and ``pd.Grouper(freq=...)``: time bins as a grouping, then riptide's groupby reductions.

``series.resample("15min").sum()`` is a groupby whose key is the time bin of each row. riptide computes that key
on the device and hands it to the groupby machinery (:mod:`riptide.frame.groupby`) as a finished grouping, so every
reduction (sum, mean, count, size, min, max, first, last, std, var, sem, median, prod, nunique, quantile, agg) is
the groupby one, with the same dtype rules.

**The bins.** pandas decides the bin edges from a few scalars -- the first and last timestamp (one scalar read: the
only data the host sees), the frequency, ``closed``, ``origin`` and ``offset`` -- and riptide follows the same
arithmetic on the host with pandas' scalar objects (``to_offset``, ``Timestamp``, ``rollback``), so the edge rules
are pandas' by construction. The rows are then binned on the device:

* **fixed frequencies** (``s``, ``min``, ``h``, ``D``, ``ms``, ``us`` and their multiples): the bins are multiples of
  the step from the first edge, so a row's bin is ``(ticks - first_edge) // step`` (closed left) or
  ``(ticks - first_edge - 1) // step`` (closed right) -- one elementwise pass;
* **anchored frequencies** (``W``/``W-MON``..., ``ME``/``MS``, ``QE``/``QS``, ``YE``/``YS`` and the rest): the edges
  are generated on the device by :func:`riptide.date_range` (the calendar arithmetic lives there) and each row
  finds its bin by ``searchsorted`` -- as many probes as rows, into as many edges as bins.

NaT rows belong to no bin (dropped, as in pandas). The defaults are pandas': ``closed``/``label`` ``"right"`` for the
period-end frequencies (``ME``, ``QE``, ``YE``, ``W``), ``"left"`` otherwise; ``origin="start_day"``.

**Empty bins.** ``resample`` and ``groupby(pd.Grouper(freq=...))`` give every bin from the first to the last, empty
ones included (sum 0, count 0, mean/min/max/first NaN, as pandas): the grouping simply has groups without rows.
In a list of keys (``groupby(["k", pd.Grouper(key="ts", freq="D")])``) the bin is one more key column (each row's
bin label) and only the bins that occur are groups, as in pandas.

Not supported: time-zone-aware and timedelta axes (``NotImplementedError``), upsampling methods (``asfreq``,
``ffill``, ``interpolate``...), ``PeriodIndex``. The result index does not carry pandas' ``freq`` attribute
(riptide's Index has none).

>>> import riptide as rt, pandas as pd
>>> s = rt.Series([1, 2, 3], index=pd.to_datetime(["2024-01-01 00:10", "2024-01-01 00:50", "2024-01-01 02:05"]))
>>> s.resample("h").sum().tolist()
[3, 0, 3]
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd
from pandas.tseries import offsets as pd_offsets

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn
from riptide.frame.groupby import _hashable

__all__ = ["FrameResampleMethods", "Grouper", "Resampler", "SeriesResampleMethods", "binned_key", "binned_keys",
           "time_bins"]  # fmt: skip

#: riptide takes pandas' own Grouper objects: ``rt.Grouper is pd.Grouper`` (its arguments are scalars, validated
#: by pandas; a ``freq`` makes it a time grouper).
Grouper = pd.Grouper

_NAT = dtypes.NAT
_INT64_MAX = 2**63 - 1
_TICKS_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
# Frequencies whose bins are closed and labelled on the right by default, and whose right edges stretch to the
# end of their last day (pandas' period-end offsets).
_END_RULES = ("ME", "YE", "QE", "BME", "BYE", "BQE", "W")
# The aggregations whose result on an input without rows is the input itself (pandas returns a copy of it).
_KEEPS_EMPTY_INPUT = ("sum", "prod", "min", "max", "first", "last", "median", "mean", "std", "var", "sem",
                      "nunique", "quantile")  # fmt: skip


class SeriesResampleMethods:
    """``Series.resample``."""

    __slots__ = ()

    def resample(self, rule: Any, closed: str | None = None, label: str | None = None, convention: Any = None,
                 on: Any = None, level: Any = None, origin: Any = "start_day", offset: Any = None,
                 group_keys: bool = False) -> Resampler:  # fmt: skip
        """Group the values by time bins of the datetime index (or index ``level``); reduce with a method.

        >>> import riptide as rt, pandas as pd
        >>> s = rt.Series([1.0, 2.0, 4.0], index=pd.to_datetime(["2024-01-01 00:00", "2024-01-01 12:00", "2024-01-03 00:00"]))
        >>> s.resample("D").mean().to_pandas().tolist()
        [1.5, nan, 4.0]
        """
        grouper = _grouper(rule, closed, label, origin, offset, on, level, convention)
        keys = binned_keys(self, grouper)
        return Resampler(self if keys.obj is None else keys.obj, keys, grouper)


class FrameResampleMethods:
    """``DataFrame.resample``."""

    __slots__ = ()

    def resample(self, rule: Any, closed: str | None = None, label: str | None = None, convention: Any = None,
                 on: Any = None, level: Any = None, origin: Any = "start_day", offset: Any = None,
                 group_keys: bool = False) -> Resampler:  # fmt: skip
        """Group the rows by time bins of the datetime index, of column ``on`` or of index ``level``.

        >>> import riptide as rt, pandas as pd
        >>> df = rt.DataFrame({"ts": pd.to_datetime(["2024-01-31", "2024-03-02"]), "v": [1, 2]})
        >>> df.resample("ME", on="ts").sum()["v"].tolist()
        [1, 0, 2]
        """
        grouper = _grouper(rule, closed, label, origin, offset, on, level, convention)
        keys = binned_keys(self, grouper)
        return Resampler(self if keys.obj is None else keys.obj, keys, grouper)


def _grouper(rule: Any, closed: Any, label: Any, origin: Any, offset: Any, on: Any, level: Any,
             convention: Any) -> Any:  # fmt: skip
    """pandas' time grouper for these arguments: it parses the rule (pandas' ValueError for a bad one) and
    settles ``closed``/``label``/``origin``/``offset`` (scalars only)."""
    if on is not None and level is not None:
        raise ValueError("The Grouper cannot specify both a key and a level!")
    if convention is not None:  # pandas deprecated it; it only concerns PeriodIndex
        raise NotImplementedError("resample(convention=...) applies to a PeriodIndex, which riptide does not have")
    return pd.Grouper(freq=rule, closed=closed, label=label, origin=origin, offset=offset, key=on, level=level)


# --- the bins -----------------------------------------------------------------------------------------------------


def binned_keys(obj: Any, grouper: Any, in_time_order: bool = True, listed: bool = False) -> Any:
    """The groupby keys of one time grouper: every bin from the first to the last (empty ones included).

    ``in_time_order``: group the rows sorted by time (stable; NaT last), as pandas does for ``resample`` and a lone
    ``pd.Grouper(freq=...)`` -- ``first``/``last`` then mean earliest/latest in time. The sorted object is
    ``keys.obj`` (None when the rows were in order already).
    """
    from riptide.frame.groupby import _groups_with_first_rows, _Keys, _take_rows

    axis, name, own = _axis(obj, grouper)
    reordered = None
    if in_time_order:
        order = _time_order(axis)
        if order is not None:
            reordered = _take_rows(obj, order)
            axis = axis.take(order)
    ids, labels = time_bins(axis, grouper)
    # the bins as groups; ``first_rows`` is -1 for a bin without rows (as for an unobserved category)
    groups = _groups_with_first_rows(ids, labels.size, ids.shape[0], axis.xp)
    return _Keys([labels.take_or_missing(ids)], [name], [own], listed=listed, grouping=(groups, [labels]), sort=True,
                 obj=reordered)  # fmt: skip


def _time_order(axis: NumericColumn) -> Any:
    """Row positions in time order (stable, NaT last), or None when the rows are in that order already."""
    from riptide.core.kernels.sort import stable_argsort

    xp = axis.xp
    ticks = axis.data
    if ticks.shape[0] < 2:
        return None
    key = xp.where(ticks == _NAT, _INT64_MAX, ticks)
    if bool((key[1:] >= key[:-1]).all()):  # one scalar read: sorting is skipped when the rows are in time order
        return None
    return stable_argsort(key, xp)


def binned_key(obj: Any, grouper: Any) -> tuple[Column, Hashable, bool]:
    """One key column of a time grouper in a list of keys: each row's bin label (NaT where the time is NaT)."""
    axis, name, own = _axis(obj, grouper)
    ids, labels = time_bins(axis, grouper)
    return labels.take_or_missing(ids), name, own


def _axis(obj: Any, grouper: Any) -> tuple[NumericColumn, Hashable, bool]:
    """The datetime values binned: (column, name, whether it is a column of the frame)."""
    is_frame = hasattr(obj, "_data")
    index = obj.index
    if grouper.key is not None:
        key = grouper.key
        if is_frame and _hashable(key) and key in obj._data:
            column, name, own, kind = obj._data[key], key, True, "Index"
        elif _hashable(key) and key in index.names:
            column, name, own, kind = index._key_columns()[index.names.index(key)], key, False, "Index"
        else:
            raise KeyError(f"The grouper name {key} is not found")
    elif grouper.level is not None:
        position = index._level_number(grouper.level) if index.nlevels > 1 else _flat_level(index, grouper.level)
        column, name, own, kind = index._key_columns()[position], index.names[position], False, "Index"
    else:
        if index.nlevels > 1:
            # pandas fails here with a ValueError (a MultiIndex has no single backing array): the same type, clearer
            raise ValueError("resample of a MultiIndex needs level= to name the datetime level")
        kind = type(index).__name__
        if not (isinstance(index.dtype, np.dtype) and index.dtype.kind in "Mm"):
            column = None
        else:
            column = index._as_column()
        name, own = index.name, False
    dtype = getattr(column, "dtype", None)
    if isinstance(dtype, pd.DatetimeTZDtype):
        raise NotImplementedError("resample of time-zone-aware datetimes (riptide resamples naive ones only)")
    if isinstance(dtype, np.dtype) and dtype.kind == "m":
        raise NotImplementedError("resample of a timedelta axis (riptide resamples datetimes only)")
    if column is None or not (isinstance(dtype, np.dtype) and dtype.kind == "M"):
        raise TypeError(f"Only valid with DatetimeIndex, TimedeltaIndex or PeriodIndex, but got an instance of "
                        f"'{kind}'")  # fmt: skip
    if np.datetime_data(dtype)[0] not in _TICKS_PER_SECOND:
        raise NotImplementedError(f"resample of unit {np.datetime_data(dtype)[0]!r} (riptide supports s, ms, us, ns)")
    return column, name, own


def _flat_level(index: Any, level: Any) -> int:
    """pandas' rule for ``level=`` of a flat index: its name, 0 or -1."""
    if isinstance(level, str):
        if level != index.name:
            raise KeyError(f"Level {level} not found")
        return 0
    if level not in (0, -1):
        raise IndexError(f"Too many levels: Index has only 1 level, not {level + 1}")
    return 0


def time_bins(column: NumericColumn, grouper: Any) -> tuple[Any, NumericColumn]:
    """(bin of each row, -1 for NaT; the label of each bin) of a datetime column under a pandas time grouper.

    >>> import numpy as np, pandas as pd
    >>> from riptide.core.column import as_column
    >>> times = as_column(pd.to_datetime(["2024-01-01 00:30", "2024-01-01 03:10", None]).as_unit("s"))
    >>> ids, labels = time_bins(times, pd.Grouper(freq="2h"))
    >>> ids.tolist(), [str(t) for t in labels.to_pandas_array()]
    ([0, 1, -1], ['2024-01-01T00:00:00', '2024-01-01T02:00:00'])
    """
    xp = column.xp
    unit = np.datetime_data(column.dtype)[0]
    ticks = column.data
    valid = ticks != _NAT
    if column.size == 0:
        return xp.zeros(0, dtype=np.int64), _labels(xp.zeros(0, dtype=np.int64), column.dtype)
    # one scalar read: the first and last timestamps decide the bin edges (NaT is INT64_MIN, below every time)
    bounds = _device.to_host(xp.stack([xp.where(valid, ticks, _INT64_MAX).min(), ticks.max()]))
    first, last = int(bounds[0]), int(bounds[1])
    if first == _INT64_MAX:  # nothing but NaT: no bin
        return xp.full(column.size, -1, dtype=np.int64), _labels(xp.zeros(0, dtype=np.int64), column.dtype)
    freq = grouper.freq
    if isinstance(freq, pd_offsets.Tick | pd_offsets.Day):
        ids, label_ticks = _fixed_bins(ticks, first, last, unit, grouper, xp)
    else:
        ids, label_ticks = _anchored_bins(ticks, first, last, unit, grouper, xp)
    return xp.where(valid, ids, -1), _labels(label_ticks, column.dtype)


def _labels(ticks: Any, dtype: Any) -> NumericColumn:
    return NumericColumn(ticks.astype(np.int64, copy=False), dtype)


def _fixed_bins(ticks: Any, first: int, last: int, unit: str, grouper: Any, xp: Any) -> tuple[Any, Any]:
    """Bins of a fixed step: the first edge is the origin moved by whole steps to at or below the first time."""
    freq = grouper.freq
    delta = pd.Timedelta(hours=24 * freq.n) if isinstance(freq, pd_offsets.Day) else pd.Timedelta(freq)
    per_second = _TICKS_PER_SECOND[unit]
    step_ns = int(delta.as_unit("ns")._value)
    if step_ns <= 0 or (step_ns * per_second) % 1_000_000_000:
        raise ValueError(f"freq={freq.freqstr} cannot bin datetime64[{unit}] values: the step must be a positive "
                         f"whole number of {unit}")  # fmt: skip
    step = step_ns * per_second // 1_000_000_000
    origin, start = _origin(grouper, first, last, step, unit)
    right = grouper.closed == "right"
    # The edges are origin + k * step. Closed left: bin k holds [edge k, edge k+1); closed right: (edge k, edge k+1].
    k_first = (start - origin - 1) // step if right else (start - origin) // step
    k_last = (last - origin - 1) // step if right else (last - origin) // step
    n_bins = k_last - k_first + 1
    first_edge = origin + k_first * step
    ids = (ticks - first_edge - 1) // step if right else (ticks - first_edge) // step
    ids = xp.where((ids < 0) | (ids >= n_bins), -1, ids)  # only pandas' origin="end" with an offset leaves rows out
    shift = step if grouper.label == "right" else 0
    labels = first_edge + shift + xp.arange(n_bins, dtype=np.int64) * step
    return ids, labels


def _origin(grouper: Any, first: int, last: int, step: int, unit: str) -> tuple[int, int]:
    """(the tick every edge is a whole number of steps from -- pandas' ``origin`` plus ``offset`` --, the time the
    first bin must hold): the first time, except for ``origin="end"``/``"end_day"``, where pandas counts whole steps
    back from the end and starts there, even when that first bin is empty."""
    origin = grouper.origin
    per_day = 86_400 * _TICKS_PER_SECOND[unit]
    if isinstance(origin, pd.Timestamp):
        if origin.tz is not None:
            raise ValueError("The origin must have the same timezone as the index.")
        at = int(origin.as_unit(unit)._value)
    elif origin == "epoch":
        at = 0
    elif origin == "start":
        at = first
    elif origin == "start_day":
        at = first // per_day * per_day
    elif origin in ("end", "end_day"):
        end = last if origin == "end" else -(-last // per_day) * per_day  # ceil to a day
        steps = (end - first) // step + (grouper.closed == "left")
        at = first = end - steps * step
    else:  # pragma: no cover - pandas validated origin
        raise ValueError(f"origin {origin!r}")
    if grouper.offset is not None:
        at += int(grouper.offset.as_unit(unit)._value)
    return at, first


def _anchored_bins(ticks: Any, first: int, last: int, unit: str, grouper: Any, xp: Any) -> tuple[Any, Any]:
    """Bins of an anchored offset (week, month, quarter, year ...): edges from the date range, rows by search."""
    from riptide.frame.date_range import date_range

    freq = grouper.freq
    start = pd.Timestamp(np.datetime64(first, unit)).normalize()
    end = pd.Timestamp(np.datetime64(last, unit)).normalize()
    right = grouper.closed == "right"
    start = (start - freq) if right else freq.rollback(start)
    end = end + freq
    binner = date_range(start=start, end=end, freq=freq, unit=unit)._as_column().data
    edges = binner
    if right and freq.rule_code.split("-")[0] in _END_RULES:
        # A period-end edge stands for the whole of its last day: the bin reaches to its last tick.
        edges = binner + (86_400 * _TICKS_PER_SECOND[unit] - 1)
        # one scalar read: pandas drops the last edge when the one before already covers the last time
        if edges.shape[0] >= 2 and int(edges[-2]) > last:
            edges, binner = edges[:-1], binner[:-1]
    ids = xp.searchsorted(edges, ticks, side="left" if right else "right").astype(np.int64) - 1
    n_bins = max(edges.shape[0] - 1, 0)
    ids = xp.where((ids < 0) | (ids >= n_bins), -1, ids)
    labels = binner[1:] if grouper.label == "right" else binner[: n_bins]
    return ids, labels


# --- the Resampler ------------------------------------------------------------------------------------------------


class Resampler:
    """The rows of a Series or DataFrame in time bins; reduce them with a method (``r.sum()``, ``r.ohlc()`` ...).

    ``r["col"]`` (or ``r.col``) selects a column, ``r[["a", "b"]]`` several.

    >>> import riptide as rt, pandas as pd
    >>> s = rt.Series([3, 1, 2], index=pd.to_datetime(["2024-01-01 00:00", "2024-01-01 00:20", "2024-01-01 00:40"]))
    >>> s.resample("30min").ohlc().to_pandas().values.tolist()
    [[3, 3, 1, 1], [2, 2, 2, 2]]
    """

    def __init__(self, obj: Any, keys: Any, grouper: Any, selection: Any = None):
        self._obj = obj
        self._keys = keys
        self._grouper = grouper
        self._selection = selection

    # --- the grouped object ---------------------------------------------------------------------------------------
    @property
    def _is_frame(self) -> bool:
        return hasattr(self._obj, "_data") and not isinstance(self._selection, str | tuple | int | float)

    def _selected(self) -> Any:
        """The object reduced: the selection, without the ``on`` column."""
        from riptide.frame.series import Series

        obj = self._obj
        if self._selection is None:
            if hasattr(obj, "_data"):
                excluded = {name for name, own in zip(self._keys.names, self._keys.from_frame, strict=True) if own}
                return obj._select_columns([label for label in obj._data if label not in excluded])
            return obj
        if isinstance(self._selection, list):
            return obj._select_columns(self._selection)
        return Series._from_column(obj._data[self._selection], obj.index, self._selection)

    def _groupby(self) -> Any:
        from riptide.frame.groupby import DataFrameGroupBy, SeriesGroupBy

        if self._is_frame:
            return DataFrameGroupBy(self._obj, self._keys, selection=self._selection)
        return SeriesGroupBy(self._selected(), self._keys)

    def __getitem__(self, key: Any) -> Resampler:
        obj = self._obj
        if not hasattr(obj, "_data"):
            raise TypeError("Series resampler does not support column selection")  # pandas: no [] on a Series one
        if isinstance(key, list | tuple) and not (isinstance(key, tuple) and key in obj._data):
            missing = [k for k in key if k not in obj._data]
            if missing:
                raise KeyError(f"Columns not found: {', '.join(repr(k) for k in missing)}")
            return Resampler(obj, self._keys, self._grouper, list(key))
        if not _hashable(key) or key not in obj._data:
            raise KeyError(f"Column not found: {key}")
        return Resampler(obj, self._keys, self._grouper, key)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        data = getattr(self._obj, "_data", None)
        if data is not None and name in data and self._selection is None:
            return self[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def ngroups(self) -> int:
        return self._keys.grouping[0].n_groups

    def __len__(self) -> int:
        return self.ngroups

    def __iter__(self):
        """(bin label, rows) pairs for inspection: every bin, empty ones included."""
        return iter(self._groupby())

    @property
    def groups(self) -> dict[Any, Any]:
        return self._groupby().groups

    @property
    def indices(self) -> dict[Any, np.ndarray]:
        return {key: rows for key, rows in self._groupby().indices.items() if rows.shape[0]}

    def get_group(self, name: Any) -> Any:
        return self._groupby().get_group(pd.Timestamp(name))

    # --- reductions -----------------------------------------------------------------------------------------------
    def _downsample(self, op: str, *args: Any, **kwargs: Any) -> Any:
        if len(self._obj) == 0 and op in _KEEPS_EMPTY_INPUT:
            return self._empty_input()
        return getattr(self._groupby(), op)(*args, **kwargs)

    def _empty_index(self) -> Any:
        from riptide.frame.index import Index

        labels = self._keys.grouping[1][0]
        return Index._from_column(labels, self._keys.names[0])

    def _empty_input(self) -> Any:
        """pandas hands back an input without rows as it is, on the resampled (empty) index."""
        selected = self._selected()
        if hasattr(selected, "_data"):
            return type(selected)._from_columns(dict(selected._data), self._empty_index())
        return type(selected)._from_column(selected._column, self._empty_index(), selected.name)

    def sum(self, numeric_only: bool = False, min_count: int = 0) -> Any:
        """Sum of each bin (0 for an empty bin unless ``min_count`` asks for values).

        >>> import riptide as rt, pandas as pd
        >>> s = rt.Series([1, 2], index=pd.to_datetime(["2024-01-01", "2024-01-03"]))
        >>> s.resample("D").sum().tolist()
        [1, 0, 2]
        """
        return self._downsample("sum", numeric_only=numeric_only, min_count=min_count)

    def prod(self, numeric_only: bool = False, min_count: int = 0) -> Any:
        return self._downsample("prod", numeric_only=numeric_only, min_count=min_count)

    def mean(self, numeric_only: bool = False) -> Any:
        return self._downsample("mean", numeric_only=numeric_only)

    def median(self, numeric_only: bool = False) -> Any:
        return self._downsample("median", numeric_only=numeric_only)

    def min(self, numeric_only: bool = False, min_count: int = 0) -> Any:
        return self._downsample("min", numeric_only=numeric_only, min_count=min_count)

    def max(self, numeric_only: bool = False, min_count: int = 0) -> Any:
        return self._downsample("max", numeric_only=numeric_only, min_count=min_count)

    def first(self, numeric_only: bool = False, min_count: int = 0, skipna: bool = True) -> Any:
        return self._downsample("first", numeric_only=numeric_only, min_count=min_count, skipna=skipna)

    def last(self, numeric_only: bool = False, min_count: int = 0, skipna: bool = True) -> Any:
        return self._downsample("last", numeric_only=numeric_only, min_count=min_count, skipna=skipna)

    def std(self, ddof: int = 1, numeric_only: bool = False) -> Any:
        return self._downsample("std", ddof=ddof, numeric_only=numeric_only)

    def var(self, ddof: int = 1, numeric_only: bool = False) -> Any:
        return self._downsample("var", ddof=ddof, numeric_only=numeric_only)

    def sem(self, ddof: int = 1, numeric_only: bool = False) -> Any:
        return self._downsample("sem", ddof=ddof, numeric_only=numeric_only)

    def nunique(self) -> Any:
        return self._downsample("nunique")

    def quantile(self, q: Any = 0.5, **kwargs: Any) -> Any:
        return self._downsample("quantile", q, **kwargs)

    def count(self) -> Any:
        """Non-missing values in each bin (0 for an empty bin)."""
        return self._groupby().count()

    def size(self) -> Any:
        """Rows in each bin, an int64 Series (0 for an empty bin)."""
        from riptide.frame.series import Series

        if not self._is_frame:
            return self._groupby().size()
        sizes = NumericColumn(self._keys.grouping[0].sizes())
        name = None if self._is_frame else self._selected().name
        return Series._from_column(sizes, self._result_index(), name)

    def _result_index(self) -> Any:
        from riptide.frame.index import Index

        return Index._from_column(self._keys.grouping[1][0], self._keys.names[0])

    def ohlc(self) -> Any:
        """Open (first), high (max), low (min) and close (last) of each bin: a DataFrame of four columns (a column
        level of them under each column's label for a DataFrame).

        >>> import riptide as rt, pandas as pd
        >>> s = rt.Series([1.0, 5.0, 2.0], index=pd.to_datetime(["2024-01-01 09:00", "2024-01-01 10:00",
        ...                                                        "2024-01-01 11:00"]))
        >>> s.resample("D").ohlc().to_pandas().values.tolist()
        [[1.0, 5.0, 1.0, 2.0]]
        """
        from riptide.frame.dataframe import DataFrame

        grouped = self._groupby()
        if self._is_frame:
            items = grouped._value_items()
            for label, column in items:
                if not dtypes.is_numeric_or_bool(column.dtype):
                    raise pd.errors.DataError(f"No numeric types to aggregate (ohlc of column {label!r}, dtype "
                                              f"{column.dtype})")  # fmt: skip
            columns: dict[Hashable, Column] = {}
            for label, _ in items:
                parts = _ohlc_columns(grouped._as_series_group(label))
                columns.update({(label, part): values for part, values in parts.items()})
            if len(self._obj) == 0 or not items:
                return self._empty_ohlc(items)
            return DataFrame._from_columns(columns, self._result_index())
        selected = self._selected()
        if not dtypes.is_numeric_or_bool(selected.dtype):
            raise pd.errors.DataError(f"No numeric types to aggregate (ohlc of dtype {selected.dtype})")
        if len(self._obj) == 0:
            return self._empty_ohlc([])
        return DataFrame._from_columns(_ohlc_columns(grouped), self._result_index())

    def _empty_ohlc(self, items: list) -> Any:
        """pandas' result for an input without rows: the four columns (under each column's label), float64."""
        from riptide.frame.dataframe import DataFrame

        xp = self._obj.index._namespace
        empty = NumericColumn(xp.zeros(0, dtype=np.float64))
        parts = ("open", "high", "low", "close")
        if self._is_frame:
            columns = {(label, part): empty for label, _ in items for part in parts}
        else:
            columns = {part: empty for part in parts}
        return DataFrame._from_columns(columns, self._empty_index())

    # --- agg ------------------------------------------------------------------------------------------------------
    def agg(self, func: Any = None, *args: Any, **kwargs: Any) -> Any:
        """Aggregate with a name, a callable, a list of them, a ``{column: ...}`` dict or named aggregations.

        >>> import riptide as rt, pandas as pd
        >>> df = rt.DataFrame({"v": [1, 2, 3]}, index=pd.to_datetime(["2024-01-01", "2024-01-01", "2024-01-02"]))
        >>> df.resample("D").agg(["sum", "max"]).to_pandas().values.tolist()
        [[3, 2], [3, 3]]
        """
        if isinstance(func, str) and func in ("ohlc", "size", "count") and not args and not kwargs:
            return getattr(self, func)()
        return self._groupby().agg(func, *args, **kwargs)

    aggregate = agg
    apply = agg

    def transform(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        """``func`` of each bin's values, aligned with the original rows (a groupby transform over the bins)."""
        return self._groupby().transform(func, *args, **kwargs)

    def pipe(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        return func(self, *args, **kwargs)

    def __repr__(self) -> str:
        g = self._grouper
        return (f"{type(self).__name__} [freq={g.freq.freqstr}, closed={g.closed}, label={g.label}, "
                f"origin={g.origin}]")  # fmt: skip


def _ohlc_columns(grouped: Any) -> dict[str, Column]:
    """open/high/low/close of one grouped Series."""
    parts = {"open": grouped.first(), "high": grouped.max(), "low": grouped.min(), "close": grouped.last()}
    return {name: result._column for name, result in parts.items()}

