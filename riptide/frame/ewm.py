"""Exponentially weighted windows: ``Series.ewm`` / ``DataFrame.ewm`` (mean, sum, var, std, cov, corr).

``s.ewm(com=...)`` returns an :class:`ExponentialMovingWindow` that stores its parameters (validated at
construction, with pandas' messages); each method then computes every column with array passes on the device.

The recurrence, and why it is a scan
------------------------------------
pandas defines the EW mean by a row-by-row recurrence: the weights of the earlier observations decay by
``f = 1 - alpha`` per row (per observation with ``ignore_na=True``; by ``f ** (elapsed / halflife)`` with
``times``), and each new observation gets weight 1 (``adjust=True``) or ``alpha`` relative to a running total
renormalised to 1 (``adjust=False``). A running sequential loop is the opposite of what a GPU wants, but the
state after a stretch of rows composes associatively, so an inclusive (Hillis-Steele) scan computes it for every
row in ``ceil(log2 n)`` whole-array passes. The state of a stretch of rows is

* ``D``: the factor the stretch applies to the weights of everything before it (product of its decays);
* ``W``: the total weight of its own observations (as weighted at its end);
* whether it holds an observation at all (its weight can underflow to 0, or be zeroed by ``alpha=1``, while its
  mean is still the current one);
* ``m``: their weighted mean, ``v``: their weighted (biased) variance (co-moment for ``cov``), and
  ``1 - s`` with ``s = sum(w**2) / W**2`` (``1 / s`` is the effective number of observations; pandas' unbiased
  variance is ``v / (1 - s)``).

Joining stretch A then B scales A's weight by ``D_B`` and merges the two weighted samples with Chan et al.'s
update written in the shares ``keep = D_B W_A / W`` and ``share = W_B / W``. Means and variances are therefore
kept normalised (never a ratio of two sums that underflow together), no ``sum(w x**2) - W m**2`` cancellation
happens, and a constant series has exactly its value as mean and exactly 0 as variance (pandas guarantees
both). ``sum`` is the plain affine recurrence ``S = f * S + x``, scanned the same way. Nothing is raised to a
power of the row number, so long series never underflow ``(1 - alpha) ** t``: a decay that underflows to 0 only
ever means that the earlier weights vanished, which is also what pandas computes.

``adjust=False`` with gaps: pandas decays the running weight over the missing rows and renormalises at the next
observation, so that observation's element is ``D = q / (q + alpha)``, ``W = alpha / (q + alpha)`` with
``q = f ** (rows since the previous observation)`` (the first observation: ``W = 1``); rows without an
observation are the identity.

``groupby(...).ewm(...)`` (:class:`ExponentialMovingWindowGroupby`, :func:`grouped_ewm`) makes each group's
rows contiguous and runs the same scan segmented: a stretch that contains a group's first row ignores what
precedes it.

Cost: ``O(n log n)`` elementwise work in ``ceil(log2 n)`` passes, the right trade on a GPU; on the CPU (NumPy)
it is far slower than pandas' C loop (about 1 s per million rows for ``mean``), but has no Python loop over rows.

pandas' quirks that are followed: ``min_periods`` is at least 1; ``adjust=False`` with ``com == 1`` gives a new
observation the weight ``1 - q`` (not ``alpha``) in the mean; with ``ignore_na=True`` and ``times`` only the
last interval before an observation decays; ``cov``/``corr`` first drop the rows where either side is missing.

Deviations (floating point at the edge)
---------------------------------------
pandas' unbiased variance divides by ``sum_wt**2 - sum_wt2`` from running sums. (1) After a single observation
followed by missing rows the two drift apart by rounding and pandas prints 0.0 or NaN; riptide gives NaN (one
observation has no unbiased variance). (2) After a long gap one observation holds nearly all the weight, the
difference cancels catastrophically and pandas' value carries a large relative error (1e-8 .. 1 for gaps where
``f ** gap`` < 1e-8); riptide's ``1 - s`` is a sum of non-negative terms and stays accurate, so the two differ
there. (3) Where the running weights underflow deep inside a very long run of missing rows (``f ** gap`` below
about 1e-154) both give NaN, but the exact row where that starts can differ.

>>> import riptide as rt
>>> s = rt.Series([1.0, 2.0, None, 4.0])
>>> s.ewm(com=1).mean().round(6).tolist()
[1.0, 1.666667, 1.666667, 3.363636]
>>> s.ewm(alpha=0.5, adjust=False).mean().tolist()
[1.0, 1.5, 1.5, 3.375]
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn
from riptide.core.kernels.scan import State, associative_scan, exclusive_cumsum, running
from riptide.core.ops import window as core_window
from riptide.core.ops.window import window_values
from riptide.frame.window import (_GroupedWindow, _Window, _grouping_parts, _is_frame, _is_numeric_dtype,
                                  _selects_as_number)  # fmt: skip

__all__ = ["ExponentialMovingWindow", "ExponentialMovingWindowGroupby", "get_center_of_mass", "ewm_scan",
           "grouped_ewm"]

_METHODS = ("mean", "sum", "var", "std", "cov", "corr")


# --------------------------------------------------------------------------- parameters


def get_center_of_mass(com: float | None, span: float | None, halflife: float | None,
                       alpha: float | None) -> float:  # fmt: skip
    """The center of mass for exactly one of ``com``, ``span``, ``halflife``, ``alpha`` (pandas' rules).

    >>> get_center_of_mass(None, 3, None, None), get_center_of_mass(None, None, None, 0.5)
    (1.0, 1.0)
    """
    given = sum(value is not None for value in (com, span, halflife, alpha))
    if given > 1:
        raise ValueError("comass, span, halflife, and alpha are mutually exclusive")
    if com is not None:
        if com < 0:
            raise ValueError("comass must satisfy: comass >= 0")
        return float(com)
    if span is not None:
        if span < 1:
            raise ValueError("span must satisfy: span >= 1")
        return float((span - 1) / 2)
    if halflife is not None:
        if halflife <= 0:
            raise ValueError("halflife must satisfy: halflife > 0")
        decay = 1 - np.exp(np.log(0.5) / halflife)
        return float(1 / decay - 1)
    if alpha is not None:
        if alpha <= 0 or alpha > 1:
            raise ValueError("alpha must satisfy: 0 < alpha <= 1")
        return float((1 - alpha) / alpha)
    raise ValueError("Must pass one of comass, span, halflife, or alpha")


# ------------------------------------------------ the states combined by core.kernels.scan.associative_scan


def _shares(left: State, right: State, xp: Any) -> tuple[Any, Any, Any]:
    """``(W, keep, share)`` of joining two stretches (states ``(D, W, has an observation, ...)``): the weight of
    the earlier one (decayed over the later one) and of the later one, as fractions of the joined weight ``W``.

    When both weigh nothing the later one wins if it has an observation at all: its weights underflowed (or
    ``alpha=1`` zeroed them) but its mean is still the current one, as in pandas' recurrence."""
    scaled = right[0] * left[1]
    total = scaled + right[1]
    safe = xp.where(total > 0, total, 1.0)
    later = right[2].astype(np.float64)
    keep = xp.where(total > 0, scaled / safe, 1.0 - later)
    share = xp.where(total > 0, right[1] / safe, later)
    return total, keep, share


def _merge_means(left: State, right: State, mean_a: Any, mean_b: Any, keep: Any, share: Any, xp: Any) -> Any:
    """The weighted mean of two stretches' means, written as pandas writes its update,
    ``(w_a a + w_b b) / (w_a + w_b)``, so that short series agree to the last bit; a side that weighs nothing is
    left out exactly, and equal means stay exactly equal (pandas' guard for constant series)."""
    scaled = right[0] * left[1]
    total = scaled + right[1]
    weighted = (scaled * mean_a + right[1] * mean_b) / xp.where(total > 0, total, 1.0)
    return xp.where((share == 0) | (mean_a == mean_b), mean_a, xp.where(keep == 0, mean_b, weighted))


def _mean_combine(xp: Any) -> Callable[[State, State], State]:
    def combine(a: State, b: State) -> State:
        total, keep, share = _shares(a, b, xp)
        return a[0] * b[0], total, a[2] | b[2], _merge_means(a, b, a[3], b[3], keep, share, xp)

    return combine


def _cov_combine(xp: Any, moments: tuple[tuple[int, int], ...] = ((3, 4),)) -> Callable[[State, State], State]:
    """State ``(D, W, has an observation, mean_x, mean_y, 1 - sum(w**2) / W**2, *co-moments / W)``;
    ``moments``: the indices of the two means that each co-moment (index 6, 7, ...) pairs, so that ``corr``
    carries cov(x, y), var(x) and var(y) through one scan (their weights and means are the same).

    ``1 - s`` is kept rather than ``s``: it is the unbiased correction's denominator, and after a long gap (one
    observation holding almost all the weight) ``1 - s`` would cancel catastrophically; with
    ``keep + share = 1`` it is ``keep**2 (1 - s_A) + share**2 (1 - s_B) + 2 keep share``, all non-negative terms.
    """

    def combine(a: State, b: State) -> State:
        total, keep, share = _shares(a, b, xp)
        mean_x = _merge_means(a, b, a[3], b[3], keep, share, xp)
        mean_y = _merge_means(a, b, a[4], b[4], keep, share, xp)
        spread = keep * keep * a[5] + share * share * b[5] + 2.0 * keep * share
        comoments = tuple(keep * a[k] + share * b[k] + keep * share * (b[i] - a[i]) * (b[j] - a[j])
                          for k, (i, j) in enumerate(moments, start=6))  # fmt: skip
        return (a[0] * b[0], total, a[2] | b[2], mean_x, mean_y, spread, *comoments)

    return combine


def _sum_combine(a: State, b: State) -> State:
    return a[0] * b[0], b[0] * a[1] + b[1]


def _elements(observed: Any, com: float, adjust: bool, ignore_na: bool, steps: Any, elapsed: Any, xp: Any,
              irregular: bool, first_row: Any) -> tuple[Any, Any, Any]:  # fmt: skip
    """Per row: ``(D, W, gap factor)`` of the one-row stretch (see the module docstring).

    ``steps[i]``: the decay exponent between rows i-1 and i (1, or the elapsed half-lives with ``times``);
    ``elapsed(first, last)``: the summed exponent from row ``first`` to row ``last`` (arrays of rows).
    The gap factor is what pandas' running weight has decayed by since the last observation (adjust=False).
    ``irregular``: pandas' EW mean with ``adjust=False`` and ``com == 1`` gives a new observation the weight
    ``1 - q`` instead of ``alpha`` (its rule for irregularly spaced times), which we follow. ``first_row``: the
    first row of each row's segment (observations before it belong to another segment); None: one segment.
    """
    n = observed.shape[0]
    alpha = 1.0 / (1.0 + com)
    factor = 1.0 - alpha
    weight = observed.astype(np.float64)
    if adjust:
        exponent = xp.where(observed, steps, 0.0) if ignore_na else steps
        return xp.power(factor, exponent), weight, xp.ones(n)
    rows = xp.arange(n, dtype=np.int64)
    # the previous observed row (-1 before the first): an exclusive running maximum of observed row numbers
    last_seen = running("cummax", xp.where(observed, rows, -1), xp)
    previous = xp.concatenate([xp.full(1, -1, dtype=np.int64), last_seen[:-1]])
    if first_row is not None:  # an observation of an earlier segment does not count
        last_seen = xp.where(last_seen >= first_row, last_seen, -1)
        previous = xp.where(previous >= first_row, previous, -1)
    first = observed & (previous < 0)
    if ignore_na:
        exponent = steps
        gap = xp.ones(n)
    else:
        exponent = elapsed(xp.maximum(previous, 0), rows)
        gap = xp.where(observed | (last_seen < 0), 1.0, xp.power(factor, elapsed(xp.maximum(last_seen, 0), rows)))
    old = xp.power(factor, exponent)
    new = 1.0 - old if irregular else alpha
    decay = xp.where(observed & ~first, old / (old + new), 1.0)
    weight = xp.where(first, 1.0, xp.where(observed, new / (old + new), 0.0))
    return decay, weight, gap


def ewm_scan(x: Any, op: str, *, com: float, adjust: bool = True, ignore_na: bool = False, min_periods: int = 1,
             bias: bool = False, y: Any = None, times: Any = None, segment_starts: Any = None) -> Any:  # fmt: skip
    """EW ``op`` ("mean", "sum", "var", "cov", "corr") of float64 array ``x`` (NaN = missing) for every row.

    ``y``: the second array for "cov" and "corr" (rows where either is missing do not count; "corr" is
    cov / sqrt(var_x var_y), all three biased); ``times``: float64 times in half-lives (the decay between rows
    is ``f ** diff(times)``); ``min_periods`` >= 1; ``segment_starts``: the first row of each segment (sorted
    int64, as in :mod:`riptide.core.ops.window`): each segment is its own series (``groupby().ewm()`` with rows
    made contiguous per group).

    >>> ewm_scan(np.array([1.0, np.nan, 3.0]), "mean", com=1.0).tolist()
    [1.0, 1.0, 2.6]
    >>> ewm_scan(np.array([1.0, 2.0, 3.0]), "sum", com=1.0).tolist()
    [1.0, 2.5, 4.25]
    """
    from riptide import _device

    xp = _device.namespace_of(x)
    n = x.shape[0]
    if n == 0:
        return xp.zeros(0)
    observed = ~xp.isnan(x)
    if op in ("cov", "corr"):
        observed = observed & ~xp.isnan(y)
    if times is None:
        steps = xp.ones(n)

        def elapsed(first: Any, last: Any) -> Any:
            return (last - first).astype(np.float64)
    else:
        steps = xp.concatenate([xp.zeros(1), times[1:] - times[:-1]])

        def elapsed(first: Any, last: Any) -> Any:
            return times[last] - times[first]
    rows = xp.arange(n, dtype=np.int64)
    prefix = exclusive_cumsum(observed, xp)
    first_row, _ = core_window._segment_of_each_row(n, segment_starts, xp)
    restart = None if segment_starts is None else rows == first_row
    nobs = prefix[rows + 1] - prefix[first_row]
    enough = nobs >= max(min_periods, 1)
    irregular = op == "mean" and not adjust and com == 1
    decay, weight, gap = _elements(observed, com, adjust, ignore_na, steps, elapsed, xp, irregular,
                                   None if restart is None else first_row)  # fmt: skip
    xs = xp.where(observed, x, 0.0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        if op == "sum":
            _, total = associative_scan((decay, xs), _sum_combine, xp, restart)
            return xp.where(enough, total, np.nan)
        if op == "mean":
            _, _, _, mean = associative_scan((decay, weight, observed, xs), _mean_combine(xp), xp, restart)
            return xp.where(enough, mean, np.nan)
        ys = xs if y is None else xp.where(observed, y, 0.0)
        zeros = xp.zeros(n)
        # a single observation's sum(w**2) / W**2 is 1 whatever its weight (its 1 - s is 0)
        spread0 = (~observed).astype(np.float64)
        if op == "corr":  # the three biased co-moments in one scan: pandas' cov / sqrt(var_x var_y)
            *_, cxy, cxx, cyy = associative_scan((decay, weight, observed, xs, ys, spread0, zeros, zeros, zeros),
                                                 _cov_combine(xp, ((3, 4), (3, 3), (4, 4))), xp, restart)  # fmt: skip
            return xp.where(enough, cxy / xp.sqrt(xp.maximum(cxx * cyy, 0.0)), np.nan)
        state = (decay, weight, observed, xs, ys, spread0, zeros)
        _, total, _, _, _, spread, comoment = associative_scan(state, _cov_combine(xp), xp, restart)
        if bias:
            return xp.where(enough, comoment, np.nan)
        # pandas: cov * sum_wt**2 / (sum_wt**2 - sum_wt2) = cov / (1 - s), NaN unless the denominator is
        # positive (also where pandas' running sum_wt**2 has underflowed to 0, deep in a long gap)
        total = total * gap
        ok = enough & (spread > 0) & (total * total > 0)
        return xp.where(ok, comoment / xp.where(ok, spread, 1.0), np.nan)


# --------------------------------------------------------------------------- the window object


class ExponentialMovingWindow:
    """``obj.ewm(com=, span=, halflife=, alpha=, min_periods=0, adjust=True, ignore_na=False, times=None)``.

    Methods: ``mean``, ``sum``, ``var(bias=False)``, ``std(bias=False)``, ``cov``, ``corr``, ``agg``; a
    DataFrame's window selects columns with ``[...]``. Results are float64, as pandas'.

    >>> import riptide as rt
    >>> rt.Series([1.0, 2.0, 3.0]).ewm(span=3).std().round(6).tolist()
    [nan, 0.707107, 0.963624]
    """

    _attributes = ("com", "span", "halflife", "alpha", "min_periods", "adjust", "ignore_na", "method")

    def __init__(self, obj: Any, com: float | None = None, span: float | None = None, halflife: Any = None,
                 alpha: float | None = None, min_periods: int | None = 0, adjust: bool = True,
                 ignore_na: bool = False, times: Any = None, method: str = "single", *,
                 selection: Any = None):  # fmt: skip
        self.obj = obj
        self.min_periods = 1 if min_periods is None else max(int(min_periods), 1)
        self.method = method
        if method not in ("table", "single"):
            raise ValueError("method must be 'table' or 'single")
        self.com, self.span, self.halflife, self.alpha = com, span, halflife, alpha
        self.adjust, self.ignore_na, self.times = adjust, ignore_na, times
        self._selection = selection
        self._times: Any = None  # times in half-lives, float64 on the device
        if times is not None:
            self._com = self._validate_times(times, obj)
        else:
            if isinstance(halflife, str | datetime.timedelta | np.timedelta64):
                raise ValueError("halflife can only be a timedelta convertible argument if times is not None.")
            self._com = get_center_of_mass(com, span, halflife, alpha)

    def _validate_times(self, times: Any, obj: Any) -> float:
        from riptide import _device

        dtype = getattr(times, "dtype", None)
        if not (isinstance(dtype, np.dtype) and dtype.kind == "M") and not isinstance(dtype, pd.DatetimeTZDtype):
            raise ValueError("times must be datetime64 dtype.")
        if len(times) != len(obj):
            raise ValueError("times must be the same length as the object.")
        if not isinstance(self.halflife, str | datetime.timedelta | np.timedelta64):
            raise ValueError("halflife must be a timedelta convertible object")
        column = getattr(times, "_column", None)
        if column is None and hasattr(times, "_as_column"):  # a riptide Index
            column = times._as_column()
        if column is not None:
            ticks = column.data
            if column.mask is not None:
                ticks = column.xp.where(column.mask, ticks, dtypes.NAT)
        else:
            if isinstance(dtype, pd.DatetimeTZDtype):
                times = pd.DatetimeIndex(times).tz_convert("UTC").tz_localize(None)
            ticks = _device.xp().asarray(np.asarray(times).view(np.int64))
        xp = _device.namespace_of(ticks)
        if bool((ticks == dtypes.NAT).any()):  # one scalar read: pandas refuses NaT times
            raise ValueError("Cannot convert NaT values to integer")
        unit = np.datetime_data(dtype.base if isinstance(dtype, np.dtype) else np.dtype(f"M8[{dtype.unit}]"))[0]
        halflife = float(pd.Timedelta(self.halflife).as_unit(unit)._value)
        # Times relative to the first, in half-lives: differences of int64 ticks first, so no precision is lost.
        start = ticks[:1] if ticks.shape[0] else xp.zeros(1, dtype=np.int64)
        self._times = (ticks - start).astype(np.float64) / halflife
        if any(value is not None for value in (self.com, self.span, self.alpha)):
            if not self.adjust:
                raise NotImplementedError("None of com, span, or alpha can be specified if times is provided and "
                                          "adjust=False")  # fmt: skip
            return get_center_of_mass(self.com, self.span, None, self.alpha)
        return 1.0

    # --- columns -----------------------------------------------------------------------------------------------
    _selected_obj = _Window._selected_obj

    def _items(self, op: str, numeric_only: bool) -> list[tuple[Hashable, Column]]:
        obj = self._selected_obj()
        if not _is_frame(obj):
            if numeric_only and not _is_numeric_dtype(obj._column):
                raise NotImplementedError(f"{type(self).__name__}.{op} does not implement numeric_only")
            return [(obj.name, obj._column)]
        items = list(obj._data.items())
        if numeric_only:
            items = [(label, column) for label, column in items if _selects_as_number(column)]
        return items

    def _values(self, column: Column, series: bool) -> Any:
        try:
            return window_values(column)
        except TypeError:  # not numbers: pandas' DataError
            raise pd.errors.DataError("No numeric types to aggregate" if series else
                                      f"Cannot aggregate non-numeric type: {column.dtype}") from None  # fmt: skip

    def _apply(self, op: str, numeric_only: bool = False, bias: bool = False) -> Any:
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.series import Series

        obj = self._selected_obj()
        series = not _is_frame(obj)
        if self.method == "table":
            if series:
                raise ValueError("method='table' not applicable for Series objects.")
            raise NotImplementedError("method='table' (pandas' numba engine over all columns at once) is not "
                                      "supported; use method='single'")  # fmt: skip
        results: dict[Hashable, Column] = {}
        for label, column in self._items(op, numeric_only):
            values = self._values(self._reordered(column), series)
            results[label] = NumericColumn(self._scan(values, op, bool(bias)))
        index = self._result_index()
        if series:
            return Series._from_column(results[obj.name], index, obj.name)
        return DataFrame._from_columns(results, index)

    # --- what the grouped form (ExponentialMovingWindowGroupby, through window._GroupedWindow) overrides ---------
    def _positions(self) -> Any:
        """Rows of ``obj`` in the order they are scanned (None: all rows in order)."""
        return None

    def _segment_starts(self, xp: Any) -> Any:
        return None

    def _result_index(self) -> Any:
        return self.obj.index

    def _reordered(self, column: Column) -> Column:
        positions = self._positions()
        return column if positions is None else column.take(positions)

    def _scan(self, x: Any, op: str, bias: bool = False, y: Any = None) -> Any:
        from riptide import _device

        positions = self._positions()
        times = self._times
        if times is not None and positions is not None:
            times = times[positions]
        segments = self._segment_starts(_device.namespace_of(x)) if positions is not None else None
        return ewm_scan(x, op, com=self._com, adjust=bool(self.adjust), ignore_na=bool(self.ignore_na),
                        min_periods=self.min_periods, bias=bias, y=y, times=times,
                        segment_starts=segments)  # fmt: skip

    def _refuse_times(self, name: str) -> None:
        if self.times is not None:
            raise NotImplementedError(f"{name} is not implemented with times")

    # --- the methods -------------------------------------------------------------------------------------------
    def mean(self, numeric_only: bool = False, engine: Any = None, engine_kwargs: Any = None) -> Any:
        """Exponentially weighted mean.

        >>> import riptide as rt
        >>> rt.Series([2.0, 4.0]).ewm(alpha=0.5).mean().tolist()
        [2.0, 3.3333333333333335]
        """
        _check_engine(engine, engine_kwargs)
        return self._apply("mean", numeric_only)

    def sum(self, numeric_only: bool = False, engine: Any = None, engine_kwargs: Any = None) -> Any:
        """Exponentially weighted sum (``adjust=True`` only, as in pandas).

        >>> import riptide as rt
        >>> rt.Series([2.0, 4.0]).ewm(alpha=0.5).sum().tolist()
        [2.0, 5.0]
        """
        if not self.adjust:
            raise NotImplementedError("sum is not implemented with adjust=False")
        self._refuse_times("sum")
        _check_engine(engine, engine_kwargs)
        return self._apply("sum", numeric_only)

    def var(self, bias: bool = False, numeric_only: bool = False) -> Any:
        """Exponentially weighted variance (``bias=False``: pandas' unbiased correction
        ``W**2 / (W**2 - sum(w**2))``).

        >>> import riptide as rt
        >>> rt.Series([1.0, 3.0]).ewm(alpha=0.5).var().tolist()
        [nan, 2.0]
        """
        self._refuse_times("var")
        return self._apply("var", numeric_only, bias)  # bias by position: the grouped _apply passes it on

    def std(self, bias: bool = False, numeric_only: bool = False) -> Any:
        """Square root of :meth:`var`."""
        obj = self._selected_obj()
        if numeric_only and not _is_frame(obj) and not _is_numeric_dtype(obj._column):
            raise NotImplementedError(f"{type(self).__name__}.std does not implement numeric_only")
        self._refuse_times("std")
        variance = self.var(bias=bias, numeric_only=numeric_only)
        return variance ** 0.5

    def cov(self, other: Any = None, pairwise: bool | None = None, bias: bool = False,
            numeric_only: bool = False) -> Any:  # fmt: skip
        """Exponentially weighted covariance with ``other`` (a Series with the same index, or a DataFrame
        with the same index and columns: column by column). ``other=None`` / ``pairwise=True`` (the pairwise
        matrix per row) are not supported.

        >>> import riptide as rt
        >>> rt.Series([1.0, 2.0, 4.0, 3.0]).ewm(com=1).cov(rt.Series([2.0, 3.0, 7.0, 1.0])).round(6).tolist()
        [nan, 0.5, 4.5, 1.928571]
        """
        self._refuse_times("cov")
        return self._pairwise("cov", other, pairwise, bias, numeric_only)

    def corr(self, other: Any = None, pairwise: bool | None = None, numeric_only: bool = False) -> Any:
        """Exponentially weighted correlation with ``other`` (as :meth:`cov`).

        >>> import riptide as rt
        >>> rt.Series([1.0, 2.0, 4.0, 3.0]).ewm(com=1).corr(rt.Series([2.0, 3.0, 7.0, 1.0])).round(6).tolist()
        [nan, 1.0, 0.993019, 0.578144]
        """
        self._refuse_times("corr")
        return self._pairwise("corr", other, pairwise, False, numeric_only)

    def _pairwise(self, op: str, other: Any, pairwise: bool | None, bias: bool, numeric_only: bool) -> Any:
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.series import Series

        if self.method == "table":
            raise NotImplementedError("method='table' is not supported; use method='single'")
        if other is None or pairwise:
            raise NotImplementedError(f"ewm().{op}() with other=None or pairwise=True (the pairwise matrix of every "
                                      f"column pair per row) is not supported; pass other= and pairwise=False")
        obj = self._selected_obj()
        if isinstance(other, pd.Series | pd.DataFrame):
            from riptide import from_pandas

            other = from_pandas(other)
        if not obj.index.equals(other.index):
            raise NotImplementedError(f"ewm().{op}(other) needs other with the same index (pandas aligns the two; "
                                      "riptide does not yet): use other.reindex(obj.index)")  # fmt: skip
        mine = self._items(op, numeric_only)
        if _is_frame(other):
            theirs = dict(other._data.items())
        else:
            theirs = None
        results: dict[Hashable, Column] = {}
        series = not _is_frame(obj)
        for label, column in mine:
            if theirs is None:
                partner = other._column
            elif label in theirs:
                partner = theirs[label]
            else:
                raise NotImplementedError("ewm().cov/corr of a DataFrame with a DataFrame of other columns (pandas "
                                          "aligns the columns) is not supported")  # fmt: skip
            x = self._values(self._reordered(column), series)
            y = self._values(self._reordered(partner), series)
            results[label] = NumericColumn(self._pair(op, x, y, bias))
        index = self._result_index()
        if series and not _is_frame(other):
            return Series._from_column(results[obj.name], index, obj.name)
        if series:
            raise NotImplementedError("ewm().cov/corr of a Series with a DataFrame is not supported")
        return DataFrame._from_columns(results, index)

    def _pair(self, op: str, x: Any, y: Any, bias: bool) -> Any:
        from riptide import _device

        xp = _device.namespace_of(x)
        # pandas first masks each side with the other's missing values (x + 0 * y): only rows where both are
        # present count, for the covariance and for both variances
        missing = xp.isnan(x) | xp.isnan(y)
        x, y = xp.where(missing, np.nan, x), xp.where(missing, np.nan, y)
        return self._scan(x, op, bias, y)

    # --- agg, selection, repr -------------------------------------------------------------------------------------
    def aggregate(self, func: Any = None, *args: Any, **kwargs: Any) -> Any:
        """A method name, a list of names or a {column: name(s)} dict, as ``Rolling.agg``.

        >>> import riptide as rt
        >>> rt.Series([1.0, 2.0]).ewm(com=1).agg(["mean", "sum"]).to_pandas().values.tolist()
        [[1.0, 1.0], [1.6666666666666667, 2.5]]
        """
        if callable(func) and not isinstance(func, str):
            raise NotImplementedError(f"{type(self).__name__}.aggregate does not support arbitrary callables; "
                                      "supported aggregations are mean, sum, std, var, cov, corr.")  # fmt: skip
        return _Window.aggregate(self, func, *args, **kwargs)

    agg = aggregate

    def _one(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(func, str):
            raise NotImplementedError(f"{type(self).__name__}.aggregate does not support arbitrary callables; "
                                      "supported aggregations are mean, sum, std, var, cov, corr.")  # fmt: skip
        if func not in _METHODS:
            raise AttributeError(f"'{func}' is not a valid function for '{type(self).__name__}' object")
        return getattr(self, func)(*args, **kwargs)

    # column selection as the rolling windows' (its _copy's drop of a bounds cache does nothing here)
    _copy = _Window._copy
    _subset = _Window._subset
    __getitem__ = _Window.__getitem__
    __getattr__ = _Window.__getattr__

    def __repr__(self) -> str:
        # not _Window's: the grouped form prints "ExponentialMovingWindow" too, and that repr is kept as it is
        shown = ",".join(f"{name}={getattr(self, name)}" for name in self._attributes
                         if getattr(self, name, None) is not None)  # fmt: skip
        return f"ExponentialMovingWindow [{shown}]"


def _check_engine(engine: Any, engine_kwargs: Any) -> None:
    if engine not in (None, "cython"):
        if engine == "numba":
            raise NotImplementedError("engine='numba' is not supported by riptide (it computes on the device)")
        raise ValueError("engine must be either 'numba' or 'cython'")
    if engine_kwargs is not None:
        raise ValueError("cython engine does not accept engine_kwargs")


# --------------------------------------------------------------------------- grouped


class ExponentialMovingWindowGroupby(_GroupedWindow, ExponentialMovingWindow):
    """``groupby(...).ewm(...)``: each group its own exponentially weighted series.

    Rows are made contiguous per group (group order, row order kept; rows of a dropped key left out) and scanned
    with a segmented scan that restarts at each group; the result index is pandas' (group keys..., original
    index). Arguments as :class:`riptide.frame.window.RollingGroupby` (``obj``, ``groups``, ``key_columns``,
    ``key_names``) plus :meth:`ewm`'s. pandas keeps the keys in the index even with ``as_index=False``.

    >>> import riptide as rt
    >>> from riptide.core.ops.grouping import group_rows
    >>> df = rt.DataFrame({"k": ["b", "a", "b"], "v": [1.0, 2.0, 3.0]})
    >>> keys = [df._data["k"]]
    >>> ExponentialMovingWindowGroupby(df, group_rows(keys), keys, ["k"], com=1).mean()["v"].tolist()
    [2.0, 1.0, 2.3333333333333335]
    """

    def __init__(self, obj: Any, groups: Any, key_columns: list[Column], key_names: list[Hashable], *,
                 com: float | None = None, span: float | None = None, halflife: Any = None,
                 alpha: float | None = None, min_periods: int | None = 0, adjust: bool = True,
                 ignore_na: bool = False, times: Any = None, method: str = "single",
                 selection: Any = None):  # fmt: skip
        self._init_groups(groups, key_columns, key_names, True)
        super().__init__(self._drop_key_columns(obj), com=com, span=span, halflife=halflife, alpha=alpha,
                         min_periods=min_periods, adjust=adjust, ignore_na=ignore_na, times=times, method=method,
                         selection=selection)  # fmt: skip


def grouped_ewm(groupby: Any, com: float | None = None, span: float | None = None, halflife: Any = None,
                alpha: float | None = None, min_periods: int | None = 0, adjust: bool = True,
                ignore_na: bool = False, times: Any = None, method: str = "single") -> ExponentialMovingWindowGroupby:
    """``groupby.ewm(...)`` for a riptide GroupBy object (what ``GroupBy.ewm`` should return)."""
    obj, groups, keys, names, _ = _grouping_parts(groupby)
    return ExponentialMovingWindowGroupby(obj, groups, keys, names, com=com, span=span, halflife=halflife,
                                          alpha=alpha, min_periods=min_periods, adjust=adjust, ignore_na=ignore_na,
                                          times=times, method=method)  # fmt: skip
