"""Windows: ``rolling``, ``expanding`` and their grouped forms (``ewm`` lives in :mod:`riptide.frame.ewm`).

``s.rolling(3)`` / ``df.expanding()`` return a window object that only stores its parameters (validated
once, as pandas validates them: at construction); each method (``sum``, ``mean``, ``std``, ...) then reduces
every column over every window with :mod:`riptide.core.ops.window`, which does all the array work on the
device with no loop over rows. This module does what is about labels and dtypes:

* which columns take part: a Series must be numeric (pandas' ``DataError`` otherwise); a DataFrame's
  non-numeric column raises ``DataError`` naming its dtype, unless ``numeric_only=True`` leaves it out;
  ``count`` takes any dtype; an ``on=`` column is left out and put back in its place, as in pandas;
* the result index: the object's index (every ``step``-th label with ``step``);
* time-based windows (``rolling("2s")`` over a datetime index or ``on=`` column): bounds found by search on
  the device (:func:`riptide.core.ops.window.time_window_bounds`);
* the grouped forms (:class:`RollingGroupby`, :class:`ExpandingGroupby`): rows reordered so each group is
  contiguous, windows kept inside their group, and pandas' (group keys..., original index) MultiIndex.

Every result is float64, as pandas' window results are.

>>> import riptide as rt
>>> s = rt.Series([1.0, 2.0, None, 4.0])
>>> s.rolling(2, min_periods=1).sum().tolist()
[1.0, 3.0, 2.0, 4.0]
>>> s.expanding().mean().tolist()
[1.0, 1.5, 1.5, 2.3333333333333335]
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn
from riptide.core.ops import window as core_window

__all__ = [
    "SeriesWindowMethods",
    "FrameWindowMethods",
    "Rolling",
    "Expanding",
    "RollingGroupby",
    "ExpandingGroupby",
    "grouped_rolling",
    "grouped_expanding",
]

_CLOSED = ("right", "both", "left", "neither")
# Aggregations a window object computes, and the NumPy / builtin callables agg() reads as those names.
_METHODS = ("sum", "mean", "median", "min", "max", "std", "var", "sem", "count", "first", "last", "skew", "kurt",
            "quantile")
_CALLABLE_NAMES = {sum: "sum", max: "max", min: "min", np.sum: "sum", np.mean: "mean", np.min: "min",
                   np.max: "max", np.std: "std", np.var: "var", np.nansum: "sum", np.nanmean: "mean",
                   np.median: "median", np.nanmedian: "median"}  # fmt: skip


# --------------------------------------------------------------------------- the methods on Series / DataFrame


class _WindowMethods:
    __slots__ = ()

    def rolling(self, window: Any, min_periods: int | None = None, center: bool = False, win_type: str | None = None,
                on: Any = None, closed: str | None = None, step: int | None = None,
                method: str = "single") -> Rolling:  # fmt: skip
        """Rolling windows of ``window`` rows (or a time span such as ``"2s"`` over a datetime index).

        >>> import riptide as rt
        >>> rt.Series([1, 2, 3, 4]).rolling(2).sum().tolist()
        [nan, 3.0, 5.0, 7.0]
        """
        return Rolling(self, window, min_periods=min_periods, center=center, win_type=win_type, on=on,
                       closed=closed, step=step, method=method)  # fmt: skip

    def expanding(self, min_periods: int = 1, method: str = "single") -> Expanding:
        """Windows from the first row through each row.

        >>> import riptide as rt
        >>> rt.Series([1, 2, 3]).expanding().max().tolist()
        [1.0, 2.0, 3.0]
        """
        return Expanding(self, min_periods=min_periods, method=method)

    def ewm(self, com: float | None = None, span: float | None = None, halflife: Any = None,
            alpha: float | None = None, min_periods: int | None = 0, adjust: bool = True, ignore_na: bool = False,
            times: Any = None, method: str = "single") -> Any:  # fmt: skip
        """Exponentially weighted windows (:class:`riptide.frame.ewm.ExponentialMovingWindow`).

        >>> import riptide as rt
        >>> rt.Series([1.0, 3.0]).ewm(alpha=0.5).mean().tolist()
        [1.0, 2.3333333333333335]
        """
        from riptide.frame.ewm import ExponentialMovingWindow

        return ExponentialMovingWindow(self, com=com, span=span, halflife=halflife, alpha=alpha,
                                       min_periods=min_periods, adjust=adjust, ignore_na=ignore_na, times=times,
                                       method=method)  # fmt: skip


class SeriesWindowMethods(_WindowMethods):
    """Mixed into ``Series``: ``rolling``, ``expanding`` and ``ewm``."""

    __slots__ = ()


class FrameWindowMethods(_WindowMethods):
    """Mixed into ``DataFrame``: ``rolling``, ``expanding`` and ``ewm``."""

    __slots__ = ()


# --------------------------------------------------------------------------- the window objects


class _Window:
    """What Rolling and Expanding share: the columns that take part, the methods, agg, the result layout."""

    _attributes: tuple[str, ...] = ()

    def __init__(self, obj: Any, *, min_periods: Any, method: str, on: Any = None, selection: Any = None):
        self.obj = obj
        self.min_periods = min_periods
        self.method = method
        self.on = on
        self._selection = selection
        self._validate_common()

    # --- validation (at construction, as pandas) -----------------------------------------------------------------
    def _validate_common(self) -> None:
        if self.min_periods is not None:
            if not _is_integer(self.min_periods):
                raise ValueError("min_periods must be an integer")
            if self.min_periods < 0:
                raise ValueError("min_periods must be >= 0")
        if self.method not in ("table", "single"):
            raise ValueError("method must be 'table' or 'single")
        if self.on is not None and not _is_frame(self.obj) and not _is_index(self.on):
            raise ValueError(f"invalid on specified as {self.on}, must be a column (of DataFrame), an Index or None")
        if self.on is not None and _is_frame(self.obj) and not _is_index(self.on):
            if not _hashable(self.on) or self.on not in self.obj._data:
                raise ValueError(f"invalid on specified as {self.on}, must be a column (of DataFrame), an Index or "
                                 "None")  # fmt: skip

    # --- what the subclasses provide -----------------------------------------------------------------------------
    def _bounds(self, n: int, xp: Any) -> tuple[Any, Any, int]:  # pragma: no cover - abstract
        """``(start, end, longest window)`` over ``n`` rows."""
        raise NotImplementedError

    def _effective_min_periods(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def _positions(self) -> Any:
        """Rows of ``obj`` in the order they are windowed (all rows, in order; the grouped forms reorder)."""
        return None

    def _output_positions(self, n: int, xp: Any) -> Any:
        """Rows of the (reordered) object that get a result (every row; every step-th with ``step``)."""
        return None

    # --- the objects the windows run over ---------------------------------------------------------------------------
    def _selected_obj(self) -> Any:
        if self._selection is None:
            return self.obj
        return self.obj[self._selection]

    def _on_index(self) -> Any:
        """The labels windows are measured on: the index, the ``on`` Index, or the ``on`` column's values."""
        from riptide.frame.index import Index, as_index

        if self.on is None:
            return self.obj.index
        if _is_index(self.on):
            return as_index(self.on)
        return Index._from_column(self.obj._data[self.on], self.on)

    def _value_items(self, op: str, numeric_only: bool) -> list[tuple[Hashable, Column]]:
        obj = self._selected_obj()
        if not _is_frame(obj):
            column = obj._column
            if numeric_only and not _is_numeric_dtype(column):
                raise NotImplementedError(f"{type(self).__name__}.{op} does not implement numeric_only")
            return [(obj.name, column)]
        items = [(label, column) for label, column in obj._data.items()
                 if self.on is None or _is_index(self.on) or label != self.on]  # fmt: skip
        if numeric_only:
            items = [(label, column) for label, column in items if _selects_as_number(column)]
        return items

    # --- computing -------------------------------------------------------------------------------------------------
    def _apply(self, op: str, numeric_only: bool = False, ddof: float = 1, **params: Any) -> Any:
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.series import Series

        if self.method == "table":
            raise NotImplementedError("method='table' (one window function over all columns at once, pandas' "
                                      "numba engine) is not supported; use method='single'")  # fmt: skip
        obj = self._selected_obj()
        items = self._value_items(op, numeric_only)
        results: dict[Hashable, Column] = {}
        for label, column in items:
            results[label] = self._reduce(column, op, ddof, series=not _is_frame(obj), **params)
        if _is_frame(obj) and not items:  # pandas: nothing to window gives the (empty) object back, unstepped
            return DataFrame._from_columns({}, self._result_index(stepped=False))
        index = self._result_index()
        if not _is_frame(obj):
            return Series._from_column(results[obj.name], index, obj.name)
        return DataFrame._from_columns(self._with_on_column(results, items), index)

    def _reduce(self, column: Column, op: str, ddof: float, series: bool, **params: Any) -> Column:
        dtype = column.dtype
        positions = self._positions()
        if positions is not None:
            column = column.take(positions)
        start, end, longest = self._cached_bounds(column.size, column.xp)
        try:
            if op == "median":
                return core_window.median_windows(column, start, end, self._effective_min_periods())
            if op == "quantile":
                return core_window.quantile_windows(column, start, end, self._effective_min_periods(), **params)
            return core_window.reduce_windows(column, op, start, end, self._effective_min_periods(), ddof=ddof,
                                              max_length=longest)  # fmt: skip
        except TypeError:  # not numbers (core_window.window_values): pandas' DataError
            raise pd.errors.DataError("No numeric types to aggregate" if series else
                                      f"Cannot aggregate non-numeric type: {dtype}") from None  # fmt: skip

    def _cached_bounds(self, n: int, xp: Any) -> tuple[Any, Any, int]:
        cache = self.__dict__.get("_bounds_cache")
        if cache is None or cache[0] != n:
            cache = (n, *self._bounds(n, xp))
            self.__dict__["_bounds_cache"] = cache
        return cache[1:]

    def _result_index(self, stepped: bool = True) -> Any:
        index = self.obj.index
        step = getattr(self, "step", None)
        if stepped and step is not None and step != 1:
            return index._slice(*slice(None, None, step).indices(len(index)))
        return index

    def _with_on_column(self, results: dict[Hashable, Column], items: list) -> dict[Hashable, Column]:
        """Put the ``on`` column back where it was, as pandas does (its values, unchanged)."""
        if self.on is None or _is_index(self.on):
            return results
        obj = self._selected_obj()
        if self.on not in obj._data and self.on not in self.obj._data:
            return results
        source = self.obj._data[self.on]
        positions = self._positions()
        values = source.take(positions) if positions is not None else source
        step = getattr(self, "step", None)
        if step is not None and step != 1:
            values = values.slice(*slice(None, None, step).indices(values.size))
        labels = list(obj._data) if self.on in obj._data else list(results) + [self.on]
        before = labels[: labels.index(self.on)]
        location = sum(1 for label in results if label in before)
        ordered = list(results.items())
        ordered.insert(location, (self.on, values))
        return dict(ordered)

    # --- the methods -------------------------------------------------------------------------------------------------
    def sum(self, numeric_only: bool = False, engine: Any = None, engine_kwargs: Any = None) -> Any:
        """Sum of the non-missing values of each window (0.0 for an empty window when min_periods=0)."""
        return self._apply("sum", numeric_only)

    def mean(self, numeric_only: bool = False, engine: Any = None, engine_kwargs: Any = None) -> Any:
        return self._apply("mean", numeric_only)

    def median(self, numeric_only: bool = False, engine: Any = None, engine_kwargs: Any = None) -> Any:
        return self._apply("median", numeric_only)

    def min(self, numeric_only: bool = False, engine: Any = None, engine_kwargs: Any = None) -> Any:
        return self._apply("min", numeric_only)

    def max(self, numeric_only: bool = False, *args: Any, engine: Any = None, engine_kwargs: Any = None,
            **kwargs: Any) -> Any:  # fmt: skip
        return self._apply("max", numeric_only)

    def std(self, ddof: int = 1, numeric_only: bool = False, engine: Any = None, engine_kwargs: Any = None) -> Any:
        return self._apply("std", numeric_only, ddof)

    def var(self, ddof: int = 1, numeric_only: bool = False, engine: Any = None, engine_kwargs: Any = None) -> Any:
        return self._apply("var", numeric_only, ddof)

    def sem(self, ddof: int = 1, numeric_only: bool = False) -> Any:
        """Standard error of the mean: ``std(ddof) / sqrt(count())`` (pandas' formula, infinities counted)."""
        return self._apply("sem", numeric_only, ddof)

    def count(self, numeric_only: bool = False) -> Any:
        """Non-missing values per window (NaN where the window has fewer than min_periods rows)."""
        return self._apply("count", numeric_only)

    def skew(self, numeric_only: bool = False) -> Any:
        """Unbiased skewness of each window (pandas' formula; NaN under 3 values or for a constant window).

        >>> import riptide as rt
        >>> rt.Series([1.0, 2.0, 4.0, 8.0]).rolling(3).skew().round(6).tolist()
        [nan, nan, 0.93522, 0.93522]
        """
        return self._apply("skew", numeric_only)

    def kurt(self, numeric_only: bool = False) -> Any:
        """Unbiased excess kurtosis of each window (pandas' formula; NaN under 4 values or for a constant window).

        >>> import riptide as rt
        >>> rt.Series([1.0, 2.0, 4.0, 8.0, 3.0]).rolling(4).kurt().round(6).tolist()
        [nan, nan, nan, 0.757656, 2.234867]
        """
        return self._apply("kurt", numeric_only)

    def quantile(self, q: float, interpolation: str = "linear", numeric_only: bool = False) -> Any:
        """The ``q`` quantile of each window (``interpolation``: linear, lower, higher, nearest, midpoint).

        Each window's values are gathered into a matrix row and sorted (all windows at once, in blocks): fine
        for windows of up to a few thousand rows, refused (NotImplementedError) when windows x longest window
        exceeds 2**31 cells.

        >>> import riptide as rt
        >>> rt.Series([3.0, 1.0, 4.0, 1.0, 5.0]).rolling(3).quantile(0.25).tolist()
        [nan, nan, 2.0, 1.0, 2.5]
        """
        if not 0 <= q <= 1:
            raise ValueError(f"quantile value {q} not in [0, 1]")
        if interpolation not in core_window.QUANTILE_INTERPOLATIONS:
            raise ValueError(f"Interpolation '{interpolation}' is not supported")
        return self._apply("quantile", numeric_only, q=q, interpolation=interpolation)

    def first(self, numeric_only: bool = False) -> Any:
        return self._apply("first", numeric_only)

    def last(self, numeric_only: bool = False) -> Any:
        return self._apply("last", numeric_only)

    def _unsupported(name: str) -> Callable[..., Any]:  # noqa: N805 - a helper run in the class body
        def method(self: _Window, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError(f"{type(self).__name__}.{name} is not supported by riptide yet; supported "
                                      f"are {', '.join(_METHODS)} and agg of them")  # fmt: skip

        method.__name__ = name
        return method

    rank = _unsupported("rank")
    nunique = _unsupported("nunique")
    apply = _unsupported("apply")
    cov = _unsupported("cov")
    corr = _unsupported("corr")
    del _unsupported

    # --- agg -------------------------------------------------------------------------------------------------------
    def aggregate(self, func: Any = None, *args: Any, **kwargs: Any) -> Any:
        """A name (``"sum"``), a list of names, or a {column: name or list} dict.

        >>> import riptide as rt
        >>> rt.Series([1.0, 2.0, 3.0]).rolling(2).agg(["sum", "max"]).to_pandas().values.tolist()
        [[nan, nan], [3.0, 2.0], [5.0, 3.0]]
        """
        from riptide.frame.dataframe import DataFrame

        if func is None:
            raise TypeError("Must provide 'func' or tuples of '(column, aggfunc).")
        obj = self._selected_obj()
        if isinstance(func, dict):
            if not _is_frame(obj):
                raise pd.errors.SpecificationError("nested renamer is not supported")
            missing = [label for label in func if label not in obj._data]
            if missing:
                raise KeyError(f"Column(s) {missing} do not exist")
            nested = any(isinstance(f, list | tuple) for f in func.values())
            columns: dict[Hashable, Column] = {}
            for label, funcs in func.items():
                window = self._subset(label)
                for one in funcs if isinstance(funcs, list | tuple) else [funcs]:
                    result = window._one(one, *args, **kwargs)
                    columns[(label, _label_of(one)) if nested else label] = result._column
            return DataFrame._from_columns(columns, self._result_index())
        if isinstance(func, list | tuple):
            funcs = list(func)
            if not _is_frame(obj):
                columns = {}
                for one in funcs:
                    columns[_label_of(one)] = self._one(one, *args, **kwargs)._column
                return DataFrame._from_columns(columns, self._result_index())
            per_function = [self._one(one, *args, **kwargs) for one in funcs]
            columns = {}
            for label in per_function[0]._data if per_function else []:
                for one, result in zip(funcs, per_function, strict=True):
                    columns[(label, _label_of(one))] = result._data[label]
            return DataFrame._from_columns(columns, self._result_index())
        return self._one(func, *args, **kwargs)

    agg = aggregate

    def _one(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        name = func if isinstance(func, str) else _CALLABLE_NAMES.get(func) if callable(func) else None
        if name is None:
            if callable(func):
                raise NotImplementedError("agg with an arbitrary function (Rolling.apply) is not supported; use "
                                          f"one of {', '.join(_METHODS)}")  # fmt: skip
            raise TypeError(f"aggregation must be a string or a callable, got {type(func).__name__}")
        if name not in _METHODS:
            raise AttributeError(f"'{name}' is not a valid function for '{type(self).__name__}' object")
        return getattr(self, name)(*args, **kwargs)

    # --- column selection ------------------------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> _Window:
        obj = self._selected_obj()
        if not _is_frame(obj):
            raise KeyError(f"Column not found: {key}")  # pandas: a Series window has no columns to select
        if isinstance(key, list | tuple) and not (isinstance(key, tuple) and key in obj._data):
            missing = [k for k in key if k not in obj._data]
            if missing:
                raise KeyError(f"Columns not found: {', '.join(map(str, missing))}")
            return self._copy(selection=list(key))
        if key not in obj._data:
            raise KeyError(f"Column not found: {key}")
        return self._subset(key)

    def _subset(self, label: Hashable) -> _Window:
        return self._copy(selection=label)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        obj = self.__dict__.get("obj")
        if obj is not None and _is_frame(obj) and name in obj._data:
            return self[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _copy(self, selection: Any) -> _Window:
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.__dict__.pop("_bounds_cache", None)
        clone._selection = selection
        return clone

    def __repr__(self) -> str:
        shown = ",".join(f"{name}={getattr(self, name)}" for name in self._attributes
                         if getattr(self, name, None) is not None)  # fmt: skip
        return f"{type(self).__name__} [{shown}]"


class Rolling(_Window):
    """``obj.rolling(...)``: windows of a fixed number of rows, or of a time span over datetime labels.

    Parameters are pandas': ``window`` (int >= 0, or ``"2s"`` / a timedelta / a fixed offset over a datetime
    or timedelta index or ``on`` column), ``min_periods`` (default: ``window``, 1 for time windows),
    ``center``, ``closed`` ("right", "left", "both", "neither"), ``step`` and ``on``. ``win_type``
    (weighted windows) is not supported.

    >>> import riptide as rt
    >>> rt.Series([1.0, 5.0, 2.0, 8.0]).rolling(3, center=True, min_periods=1).max().tolist()
    [5.0, 5.0, 8.0, 8.0]
    """

    _attributes = ("window", "min_periods", "center", "win_type", "on", "closed", "step", "method")

    def __init__(self, obj: Any, window: Any, *, min_periods: int | None = None, center: bool = False,
                 win_type: str | None = None, on: Any = None, closed: str | None = None, step: int | None = None,
                 method: str = "single", selection: Any = None):  # fmt: skip
        self.window = window
        self.center = center
        self.win_type = win_type
        self.closed = closed
        self.step = step
        self._time_span: int | None = None  # the window in units of the datetime labels, for time windows
        super().__init__(obj, min_periods=min_periods, method=method, on=on, selection=selection)
        self._validate()

    def _validate(self) -> None:
        if self.center is not None and not isinstance(self.center, bool | np.bool_):
            raise ValueError("center must be a boolean")
        if self.min_periods is not None and _is_integer(self.window) and self.min_periods > self.window:
            raise ValueError(f"min_periods {self.min_periods} must be <= window {self.window}")
        if self.closed is not None and self.closed not in _CLOSED:
            raise ValueError("closed must be 'right', 'left', 'both' or 'neither'")
        if self.step is not None:
            if not _is_integer(self.step):
                raise ValueError("step must be an integer")
            if self.step < 0:
                raise ValueError("step must be >= 0")
        if self.win_type is not None:
            raise NotImplementedError(f"win_type={self.win_type!r}: weighted windows (pandas' Window, which needs "
                                      "scipy) are not supported by riptide; use win_type=None")  # fmt: skip
        if _is_time_window(self.window):
            self._validate_time_window()
        elif hasattr(self.window, "get_window_bounds"):
            raise NotImplementedError("custom window indexers (BaseIndexer subclasses) are not supported by riptide; "
                                      "use an integer or a time span")  # fmt: skip
        elif not _is_integer(self.window) or self.window < 0:
            raise ValueError("window must be an integer 0 or greater")

    def _validate_time_window(self) -> None:
        on_index = self._on_index()
        temporal = dtypes.is_datetimelike(on_index.dtype)
        if not temporal and len(self.obj) > 0:
            raise ValueError("window must be an integer 0 or greater")
        if temporal:
            self._check_time_labels(on_index)
        try:
            offset = pd.tseries.frequencies.to_offset(self.window)
            nanos = offset.nanos
        except (TypeError, ValueError) as error:
            raise ValueError(f"passed window {self.window} is not compatible with a datetimelike index") from error
        unit = np.datetime_data(on_index.dtype)[0] if temporal else "ns"
        self._time_span = int(pd.Timedelta(nanos).as_unit(unit)._value)
        if self.min_periods is None:
            self.min_periods = 1
        if self.step is not None:
            raise NotImplementedError("step is not supported with frequency windows")

    def _check_time_labels(self, on_index: Any) -> None:
        column = on_index._as_column()
        if bool((column.data == dtypes.NAT).any()):  # one scalar read: pandas refuses NaT labels
            self._raise_monotonic_error("values must not have NaT")
        if not (on_index.is_monotonic_increasing or on_index.is_monotonic_decreasing):
            self._raise_monotonic_error("values must be monotonic")

    def _raise_monotonic_error(self, message: str) -> None:
        raise ValueError(f"{'index' if self.on is None else self.on} {message}")

    def _effective_min_periods(self) -> int:
        return self.window if self.min_periods is None else self.min_periods

    def _bounds(self, n: int, xp: Any) -> tuple[Any, Any, int]:
        if self.step == 0:
            raise ZeroDivisionError("step=0: division by zero (use step=None or a positive step)")
        segments = self._segment_starts(xp)
        if self._time_span is not None:
            labels = self._on_index()._as_column().data if n else xp.zeros(0, dtype=np.int64)
            positions = self._positions()
            if positions is not None:
                labels = labels[positions]
            start, end = core_window.time_window_bounds(labels, self._time_span, center=bool(self.center),
                                                        closed=self.closed, segment_starts=segments)  # fmt: skip
            return start, end, n
        start, end = core_window.fixed_window_bounds(n, self.window, center=bool(self.center), closed=self.closed,
                                                     step=self.step, segment_starts=segments, xp=xp)  # fmt: skip
        return start, end, self.window + 1

    def _segment_starts(self, xp: Any) -> Any:
        return None


class Expanding(_Window):
    """``obj.expanding(min_periods=1)``: windows from the first row through each row.

    >>> import riptide as rt
    >>> rt.Series([3.0, None, 1.0]).expanding().min().tolist()
    [3.0, 3.0, 1.0]
    """

    _attributes = ("min_periods", "method")

    def __init__(self, obj: Any, *, min_periods: int = 1, method: str = "single", selection: Any = None):
        super().__init__(obj, min_periods=min_periods, method=method, selection=selection)

    def _effective_min_periods(self) -> int:
        return 0 if self.min_periods is None else self.min_periods

    def _bounds(self, n: int, xp: Any) -> tuple[Any, Any, int]:
        start, end = core_window.expanding_bounds(n, segment_starts=self._segment_starts(xp), xp=xp)
        return start, end, n

    def _segment_starts(self, xp: Any) -> Any:
        return None


# --------------------------------------------------------------------------- grouped windows


class _GroupedWindow:
    """Windows within groups: the rows of each group made contiguous (group order, row order kept within a
    group; rows of a dropped key left out), windows clipped to their group, and pandas' result index
    (group key levels, then the object's index levels)."""

    def _init_groups(self, groups: Any, key_columns: list[Column], key_names: list[Hashable], as_index: bool) -> None:
        self._groups = groups
        self._key_columns = list(key_columns)
        self._key_names = list(key_names)
        self._as_index = as_index

    def _drop_key_columns(self, obj: Any) -> Any:
        """pandas leaves out the columns named like a grouping key (whatever the key was grouped by)."""
        if not _is_frame(obj):
            return obj
        names = {name for name in self._key_names if name is not None and _hashable(name)}
        kept = {label: column for label, column in obj._data.items() if label not in names}
        return obj._with_columns(kept) if len(kept) != len(obj._data) else obj

    def _positions(self) -> Any:
        cache = self.__dict__.get("_order_cache")
        if cache is None:
            groups = self._groups
            order = groups.order()
            sizes = groups.sizes()
            n_kept = int(sizes.sum()) if groups.n_groups else 0  # one scalar read: rows of a dropped key go
            cache = (order[:n_kept], core_window.segment_starts_from_sizes(sizes, groups.xp))
            self.__dict__["_order_cache"] = cache
        return cache[0]

    def _segment_starts(self, xp: Any) -> Any:
        self._positions()
        return self.__dict__["_order_cache"][1]

    def _result_index(self, stepped: bool = True) -> Any:
        from riptide.frame.index import Index
        from riptide.frame.multi_index import MultiIndex

        positions = self._positions()
        index = self.obj.index
        reordered = index.take(positions)
        if not self._as_index:
            return reordered
        levels = [column.take(positions) for column in self._key_columns]
        names = list(self._key_names)
        if isinstance(reordered, MultiIndex):
            levels += reordered._key_columns()
            names += list(reordered.names)
        else:
            levels.append(reordered._as_column())
            names.append(reordered.name)
        if not levels:  # pragma: no cover - a grouping always has a key
            return Index._from_column(reordered._as_column(), reordered.name)
        return MultiIndex._from_columns(levels, names)

    def _apply(self, op: str, numeric_only: bool = False, ddof: float = 1, **params: Any) -> Any:
        from riptide.frame.dataframe import DataFrame

        result = super()._apply(op, numeric_only, ddof, **params)  # type: ignore[misc]
        if self._as_index:
            return result
        # as_index=False: the group keys become the first columns (pandas' reset_index of the key levels), and a
        # Series result becomes a DataFrame.
        values = result._data if _is_frame(result) else {0 if result.name is None else result.name: result._column}
        positions = self._positions()
        keys = {name: column.take(positions) for name, column in zip(self._key_names, self._key_columns)
                if name is not None and name not in values}  # fmt: skip
        return DataFrame._from_columns({**keys, **values}, result.index)


class RollingGroupby(_GroupedWindow, Rolling):
    """``groupby(...).rolling(...)``: rolling windows within each group.

    Built from the grouping rather than from a GroupBy object, so that any grouping can use it:

    * ``obj``: the Series or DataFrame whose values are windowed (columns named like a key are left out);
    * ``groups``: a :class:`riptide.core.ops.grouping.Groups` over ``obj``'s rows (``ids`` -1 = dropped row);
    * ``key_columns`` / ``key_names``: the grouping keys, one value per row of ``obj``, and their names (the
      first levels of the result index);
    * ``as_index``: False puts the keys in columns instead (DataFrame results).

    ``step`` is not supported for grouped windows (as in pandas).

    >>> import riptide as rt
    >>> from riptide.core.ops.grouping import group_rows
    >>> df = rt.DataFrame({"k": ["b", "a", "b"], "v": [1.0, 2.0, 3.0]})
    >>> keys = [df._data["k"]]
    >>> r = RollingGroupby(df, group_rows(keys), keys, ["k"], window=2, min_periods=1)
    >>> r.sum().to_pandas()["v"].tolist()
    [2.0, 1.0, 4.0]
    """

    def __init__(self, obj: Any, groups: Any, key_columns: list[Column], key_names: list[Hashable], *,
                 window: Any, min_periods: int | None = None, center: bool = False, win_type: str | None = None,
                 on: Any = None, closed: str | None = None, step: int | None = None, method: str = "single",
                 as_index: bool = True, selection: Any = None):  # fmt: skip
        if step is not None:
            raise NotImplementedError("step not implemented for groupby")
        self._init_groups(groups, key_columns, key_names, as_index)
        super().__init__(self._drop_key_columns(obj), window, min_periods=min_periods, center=center,
                         win_type=win_type, on=on, closed=closed, step=step, method=method,
                         selection=selection)  # fmt: skip

    def _check_time_labels(self, on_index: Any) -> None:
        """pandas checks each group's labels, not the whole object's: monotonic within each group."""
        column = on_index._as_column()
        if bool((column.data == dtypes.NAT).any()):  # one scalar read: pandas refuses NaT labels
            self._raise_monotonic_error("values must not have NaT")
        labels = column.data[self._positions()]
        if not core_window.monotonic_within_segments(labels, self._segment_starts(column.xp)):
            name = "index" if self.on is None else self.on
            raise ValueError(f"Each group within {name} must be monotonic. Sort the values in {name} first.")


class ExpandingGroupby(_GroupedWindow, Expanding):
    """``groupby(...).expanding(...)``: expanding windows that restart at each group (arguments as
    :class:`RollingGroupby`)."""

    def __init__(self, obj: Any, groups: Any, key_columns: list[Column], key_names: list[Hashable], *,
                 min_periods: int = 1, method: str = "single", as_index: bool = True,
                 selection: Any = None):  # fmt: skip
        self._init_groups(groups, key_columns, key_names, as_index)
        super().__init__(self._drop_key_columns(obj), min_periods=min_periods, method=method, selection=selection)


def grouped_rolling(groupby: Any, window: Any, min_periods: int | None = None, center: bool = False,
                    win_type: str | None = None, on: Any = None, closed: str | None = None,
                    step: int | None = None, method: str = "single") -> RollingGroupby:  # fmt: skip
    """``groupby.rolling(...)`` for a riptide GroupBy object (what ``GroupBy.rolling`` returns)."""
    obj, groups, keys, names, as_index = _grouping_parts(groupby)
    return RollingGroupby(obj, groups, keys, names, window=window, min_periods=min_periods, center=center,
                          win_type=win_type, on=on, closed=closed, step=step, method=method,
                          as_index=as_index)  # fmt: skip


def grouped_expanding(groupby: Any, min_periods: int = 1, method: str = "single") -> ExpandingGroupby:
    """``groupby.expanding(...)`` for a riptide GroupBy object (what ``GroupBy.expanding`` returns).

    pandas keeps the group keys in the index here even with ``as_index=False`` (only ``rolling`` honours it).
    """
    obj, groups, keys, names, _ = _grouping_parts(groupby)
    return ExpandingGroupby(obj, groups, keys, names, min_periods=min_periods, method=method, as_index=True)


def _grouping_parts(groupby: Any) -> tuple[Any, Any, list[Column], list[Hashable], bool]:
    return (groupby._selected_obj(), groupby._groups, list(groupby._keys.columns), list(groupby._keys.names),
            bool(getattr(groupby, "_as_index", True)))  # fmt: skip


# --------------------------------------------------------------------------- helpers


def _is_frame(obj: Any) -> bool:
    return hasattr(obj, "_data")


def _is_index(obj: Any) -> bool:
    from riptide.frame.index import Index

    return isinstance(obj, Index | pd.Index)


def _is_integer(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _is_time_window(window: Any) -> bool:
    return isinstance(window, str | datetime.timedelta | np.timedelta64 | pd.DateOffset)


def _is_numeric_dtype(column: Column) -> bool:
    """pandas' ``is_numeric_dtype`` (bool counts; a Series' numeric_only check)."""
    return isinstance(column, NumericColumn) and not dtypes.is_datetimelike(column.dtype)


def _selects_as_number(column: Column) -> bool:
    """pandas' ``select_dtypes(include="number", exclude="timedelta")``: no bool, no categorical."""
    return _is_numeric_dtype(column) and column.kind != "b"


def _label_of(func: Any) -> str:
    if isinstance(func, str):
        return func
    return _CALLABLE_NAMES.get(func) or getattr(func, "__name__", "<lambda>")
