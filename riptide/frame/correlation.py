"""Correlation and covariance: ``Series.corr/cov/autocorr`` and ``DataFrame.corr/cov/corrwith``.

Every input becomes float64 values plus a validity flag per value (pandas converts with
``to_numpy(dtype=float, na_value=nan)``: bools are 0/1, datetimes their integer ticks, categoricals their
category values, strings must parse). Which values count differs between pandas' entry points, and riptide
follows each: ``Series.corr``/``cov`` and ``corrwith`` skip missing values only (an ``inf`` makes the result
NaN), ``DataFrame.corr`` and the pairwise ``DataFrame.cov`` skip every non-finite value.

The work is laid out as a ``(k, n)`` array, one variable per row, so two kinds of kernels cover everything:

* **k x k matrices** (``DataFrame.corr``/``cov``) come from matrix products. Columns are centred on their own
  mean first (for accuracy), zero-filled where invalid, and with the 0/1 validity matrix ``M`` the pairwise
  complete sums are ``M @ M.T`` (counts), ``X @ M.T`` (sums), ``X**2 @ M.T`` and ``X @ X.T``: one product
  each instead of a loop over rows. A column that is constant over a pair's rows must give NaN exactly, as
  pandas' Welford loop does, which rounding cannot promise; an exact min == max test per pair settles it
  (one pass per column, vectorized over its partners).
* **batches of independent pairs** (``Series.corr``, ``corrwith``, and the pairs whose missing rows differ)
  are rows of two ``(c, n)`` arrays reduced along axis 1.

Spearman is Pearson of average ranks. pandas ranks each pair on the rows both columns have, so when the
columns' missing rows differ the ranks differ per pair: riptide then ranks pairs in batches (one column
against all its partners at once); when the missing rows coincide, one ranking per column and one matrix
product do. Ranks come from one segmented sort per batch (``argsort`` along rows of float sort keys).

Kendall is tau-b (ties in either variable corrected, as pandas 3 and SciPy compute it), by Knight's
O(n log n) algorithm: sort each pair by (x, y), then the discordant pairs are the inversions of the y
sequence. The inversion count runs on the GPU without host round trips as ``log2(n)`` vectorized passes of
a most-significant-bit-first radix partition: at each bit, within runs of equal higher bits, every element
whose bit is 0 is inverted with every earlier element whose bit is 1 (a cumulative sum), and a stable
partition (prefix sums again, no sort) prepares the next bit. That is a wavelet-tree formulation of the merge
sort count, chosen over the blocked O(n^2) count because it stays O(n log n) for large n and needs neither
``searchsorted`` per pass nor a data-dependent number of blocks. Tie corrections are counts of equal codes
(``bincount``). Pairs of columns are processed in batches (one loop over columns, never over rows).

A callable ``method`` runs on the host (it is a Python function of two NumPy arrays), as in pandas.

Deliberate differences from pandas 3.1, each where pandas' answer is accidental:

* A missing datetime (NaT) is skipped as missing; pandas' float conversion turns it into -2**63 ticks.
* A column constant over a pair's rows gives NaN always; pandas' ``Series.corr`` gives a tiny number instead
  when the mean of the repeated value rounds (``[0.1, 0.1, 0.1]``), its ``DataFrame.corr`` gives NaN.
* Spearman ranks only the values it uses; pandas ranks a ``-inf`` it then leaves out, which shifts the
  other ranks of that column.
* ``Series.corr`` / ``cov`` of Series with different labels needs the other Series' labels to be unique
  (pandas joins duplicates many-to-many): NotImplementedError otherwise.

>>> import riptide as rt
>>> s = rt.Series([1.0, 2.0, 3.0, 4.0])
>>> float(s.corr(rt.Series([1.0, 3.0, 2.0, 5.0])))  # doctest: +ELLIPSIS
0.8315...
>>> float(s.cov(rt.Series([2.0, 4.0, 6.0, 8.0])))
3.333333333333333
>>> rt.DataFrame({"a": [1, 2, 3], "b": [3, 2, 1]}).corr().to_pandas()
     a    b
a  1.0 -1.0
b -1.0  1.0
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn
from riptide.core.kernels.sort import float_sort_key

__all__ = ["SeriesCorrelationMethods", "FrameCorrelationMethods"]

_METHODS = ("pearson", "spearman", "kendall")
#: Elements per batch of pairs (values of one batch live in a few arrays of this many elements at once).
_BATCH_ELEMENTS = 1 << 24


def _method_error(method: Any) -> ValueError:
    return ValueError(f"method must be either 'pearson', 'spearman', 'kendall', or a callable, '{method}' was "
                      "supplied")  # fmt: skip


# --------------------------------------------------------------------------- the mixins


class SeriesCorrelationMethods:
    """Mixed into ``Series``: corr, cov, autocorr."""

    __slots__ = ()

    def corr(self, other: Any, method: Any = "pearson", min_periods: int | None = None) -> Any:
        """Correlation with ``other`` over the labels both have, skipping missing values.

        ``method`` is ``"pearson"``, ``"spearman"``, ``"kendall"`` (tau-b) or a callable of two NumPy arrays.
        NaN when fewer than ``min_periods`` (default 1) pairs remain, or fewer than two, or a side is constant.

        >>> import riptide as rt
        >>> a = rt.Series([1.0, 2.0, 3.0, None], index=[0, 1, 2, 3])
        >>> float(a.corr(rt.Series([3.0, 2.0, 1.0], index=[2, 1, 0])))  # aligned on the labels
        1.0
        >>> float(a.corr(rt.Series([1.0, 3.0, 2.0]), method="kendall"))  # doctest: +ELLIPSIS
        0.333...
        """
        if not (method in _METHODS or callable(method)):
            raise _method_error(method)
        x, y, valid = _aligned_pair(self, other)
        if x is None:
            return np.nan
        minimum = 1 if min_periods is None else min_periods
        if callable(method) and not isinstance(method, str):
            return _host_callable_pair(x, y, valid, minimum, method)
        return _scalar(_pair_rows(method, x[None, :], y[None, :], valid[None, :], minimum))

    def cov(self, other: Any, min_periods: int | None = None, ddof: int | None = 1) -> Any:
        """Covariance with ``other`` over the labels both have (divisor ``n - ddof``), skipping missing values.

        >>> import riptide as rt
        >>> float(rt.Series([1.0, 2.0, 4.0]).cov(rt.Series([1.0, 0.0, None])))
        -0.5
        """
        x, y, valid = _aligned_pair(self, other)
        if x is None:
            return np.nan
        minimum = 1 if min_periods is None else min_periods
        return _scalar(_covariance_rows(x[None, :], y[None, :], valid[None, :], minimum, 1 if ddof is None else ddof))

    def autocorr(self, lag: int = 1) -> Any:
        """Pearson correlation of the Series with itself shifted by ``lag`` rows.

        >>> import riptide as rt
        >>> float(rt.Series([1.0, 2.0, 3.0, 5.0, 8.0]).autocorr())  # doctest: +ELLIPSIS
        0.9959...
        """
        return self.corr(self.shift(lag))


class FrameCorrelationMethods:
    """Mixed into ``DataFrame``: corr, cov, corrwith."""

    __slots__ = ()

    def corr(self, method: Any = "pearson", min_periods: int = 1, numeric_only: bool = False) -> Any:
        """Pairwise correlation of the columns over the rows where both are finite: a k x k DataFrame.

        >>> import riptide as rt
        >>> df = rt.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, None, 2.0, 8.0]})
        >>> df.corr(method="spearman").to_pandas()
             x    y
        x  1.0  1.0
        y  1.0  1.0
        """
        if not (method in _METHODS or callable(method)):
            raise _method_error(method)
        labels, columns = _selected(self, numeric_only)
        values, valid = _matrix(columns, self._xp(), len(self), finite=True)
        minimum = 1 if min_periods is None else min_periods
        if callable(method) and not isinstance(method, str):
            result = _callable_matrix(values, valid, minimum, method)
        elif method == "pearson":
            result = _pearson_matrix(values, valid, minimum)
        elif method == "spearman":
            result = _spearman_matrix(values, valid, minimum)
        else:
            result = _kendall_matrix(values, valid, minimum)
        return _square_frame(self, labels, result)

    def cov(self, min_periods: int | None = None, ddof: int | None = 1, numeric_only: bool = False) -> Any:
        """Pairwise covariance of the columns: a k x k DataFrame.

        As pandas: without any missing value it is NumPy's ``cov`` (``ddof`` honoured, ``inf`` propagates);
        with one, each pair uses the rows where both are finite, with divisor ``n - 1``.

        >>> import riptide as rt
        >>> rt.DataFrame({"x": [1.0, 2.0, 3.0], "y": [2.0, 4.0, 7.0]}).cov().to_pandas()
             x         y
        x  1.0  2.500000
        y  2.5  6.333333
        """
        if any(isinstance(c, NumericColumn) and dtypes.is_datetimelike(c.dtype) for c in self._data.values()):
            raise TypeError("DataFrame contains columns with dtype datetime64 or timedelta64, which are not "
                            "supported for cov.")  # fmt: skip
        labels, columns = _selected(self, numeric_only)
        values, present = _matrix(columns, self._xp(), len(self), finite=False)
        result = _cov_matrix(values, present, min_periods, 1 if ddof is None else ddof)
        return _square_frame(self, labels, result)

    def corrwith(self, other: Any, axis: Any = 0, drop: bool = False, method: Any = "pearson",
                 numeric_only: bool = False, min_periods: int | None = None) -> Any:  # fmt: skip
        """Correlation of each column (``axis=0``) or row (``axis=1``) with a Series or the matching
        column / row of another DataFrame (both aligned on their labels first).

        >>> import riptide as rt
        >>> df = rt.DataFrame({"a": [1.0, 2.0, 3.0], "b": [3.0, 1.0, 2.0]})
        >>> df.corrwith(rt.Series([1.0, 2.0, 3.0])).to_pandas()
        a    1.0
        b   -0.5
        dtype: float64
        """
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.series import Series

        if axis in (0, "index"):
            axis = 0
        elif axis in (1, "columns"):
            axis = 1
        else:
            raise ValueError(f"No axis named {axis} for object type DataFrame")
        if isinstance(other, pd.Series | pd.DataFrame):
            other = Series(other) if isinstance(other, pd.Series) else DataFrame(other)
        if isinstance(other, Series):
            if not (method in _METHODS or callable(method)):
                raise _method_error(method)
            return _corrwith_series(self, other, axis, method, numeric_only, min_periods)
        if not isinstance(other, DataFrame):
            raise TypeError(f"corrwith needs a Series or a DataFrame, got {type(other).__name__}")
        if not (method in _METHODS or callable(method)):
            raise ValueError(f"Invalid method {method} was passed, valid methods are: 'pearson', 'kendall', "
                             "'spearman', or callable")  # fmt: skip
        return _corrwith_frame(self, other, axis, drop, method, numeric_only)


# --------------------------------------------------------------------------- inputs


def _float_values(column: Column) -> tuple[Any, Any]:
    """float64 values (NaN where missing) and a bool "not missing" flag, as pandas' ``to_numpy(float)``."""
    if not isinstance(column, NumericColumn):
        from riptide.core.ops.cast import astype

        # Categories / strings: pandas converts their values to float (a ValueError names one that fails).
        column = astype(column, np.float64)
        assert isinstance(column, NumericColumn)
    xp = column.xp
    values = column.data.astype(np.float64)
    if not column.can_hold_missing():
        return values, xp.ones(column.size, dtype=bool)
    missing = column.isna()
    return xp.where(missing, np.nan, values), ~missing


def _matrix(columns: list[Column], xp: Any, n: int, finite: bool) -> tuple[Any, Any]:
    """The columns as a ``(k, n)`` float64 array and its validity (finite values, or present ones)."""
    if not columns:
        return xp.zeros((0, n)), xp.zeros((0, n), dtype=bool)
    pairs = [_float_values(c) for c in columns]
    values = xp.stack([v for v, _ in pairs])
    valid = xp.isfinite(values) if finite else xp.stack([p for _, p in pairs])
    return values, valid


def _selected(frame: Any, numeric_only: bool) -> tuple[list[Hashable], list[Column]]:
    """The labels and columns that take part (numbers and bools only with ``numeric_only``, as pandas)."""
    items = [(label, column) for label, column in frame._data.items()
             if not numeric_only or (isinstance(column, NumericColumn) and not dtypes.is_datetimelike(column.dtype))]
    return [label for label, _ in items], [column for _, column in items]


def _aligned_pair(left: Any, right: Any) -> tuple[Any, Any, Any]:
    """Values of two Series over their common labels (pandas' inner alignment, in ``left``'s order) and the
    rows where both are present; ``(None, None, None)`` when no label is shared."""
    from riptide.frame.series import Series

    if isinstance(right, pd.Series):
        right = Series(right)
    if not isinstance(right, Series):
        raise TypeError(f"unsupported type: {type(right)}")
    x, x_present = _float_values(left._column)
    y, y_present = _float_values(right._column)
    xp = left._column.xp
    if right._index is left._index or left._index.equals(right._index):
        if len(left) == 0:
            return None, None, None
        return x, y, x_present & y_present
    if len(left) == 0 or len(right) == 0:
        return None, None, None
    positions = _positions_in(right._index, left._index)
    found = positions >= 0
    safe = xp.where(found, positions, 0)
    return x, y[safe], x_present & y_present[safe] & found


def _positions_in(index: Any, labels: Any) -> Any:
    """For each label of ``labels``, its row in ``index`` (-1 if absent); ``index`` must be unique."""
    if not index.is_unique:
        raise NotImplementedError("correlating Series whose labels differ needs unique labels on the other side "
                                  "(pandas would join duplicate labels); reset_index() or align them first")  # fmt: skip
    return index.get_indexer(labels)


def _scalar(values: Any) -> Any:
    """The one result of a batch as a NumPy float (pandas' type); one scalar read."""
    return np.float64(_device.to_host(values)[0])


# --------------------------------------------------------------------------- batches of pairs: (c, n) rows


def _pair_rows(method: str, x: Any, y: Any, valid: Any, minimum: int) -> Any:
    """One correlation per row of ``x`` and ``y`` (each row an independent pair), over ``valid``."""
    if method == "pearson":
        return _pearson_rows(x, y, valid, minimum)
    if method == "spearman":
        return _spearman_rows(x, y, valid, minimum)
    return _kendall_rows(x, y, valid, minimum)


def _pearson_rows(x: Any, y: Any, valid: Any, minimum: int) -> Any:
    """Pearson per row: centred, scaled by the largest deviation (so huge values cannot overflow), clipped to
    [-1, 1]; NaN for fewer than ``minimum`` or two values, or a constant side."""
    xp = _device.namespace_of(x)
    count = valid.sum(axis=1)
    with np.errstate(all="ignore"):
        dx = _centred(x, valid, count, xp)
        dy = _centred(y, valid, count, xp)
        dx = dx / _largest(dx, xp)[:, None]
        dy = dy / _largest(dy, xp)[:, None]
        sxx = (dx * dx).sum(axis=1)
        syy = (dy * dy).sum(axis=1)
        result = xp.clip((dx * dy).sum(axis=1) / xp.sqrt(sxx * syy), -1.0, 1.0)
    undefined = (count < minimum) | (count < 2) | _constant_rows(x, valid, xp) | _constant_rows(y, valid, xp)
    return xp.where(undefined, np.nan, result)


def _covariance_rows(x: Any, y: Any, valid: Any, minimum: int, ddof: int) -> Any:
    """NumPy's ``cov`` per row over ``valid``: divisor ``n - ddof``, a non-positive one read as 0 (so +-inf or
    NaN, as NumPy); NaN for fewer than ``minimum`` values."""
    xp = _device.namespace_of(x)
    count = valid.sum(axis=1)
    with np.errstate(all="ignore"):
        products = (_centred(x, valid, count, xp) * _centred(y, valid, count, xp)).sum(axis=1)
        divisor = count - ddof
        result = products * xp.where(divisor > 0, 1.0 / divisor, np.inf)
    return xp.where((count < minimum) | (count == 0), np.nan, result)


def _spearman_rows(x: Any, y: Any, valid: Any, minimum: int) -> Any:
    """Spearman per row: Pearson of the average ranks among the row's valid values (pandas' formula: ranks
    centred on (n + 1) / 2, no clipping); NaN for fewer than ``minimum`` values or a constant side."""
    xp = _device.namespace_of(x)
    count = valid.sum(axis=1)
    centre = ((count + 1) / 2.0)[:, None]
    dx = xp.where(valid, _average_ranks(x, valid, xp) - centre, 0.0)
    dy = xp.where(valid, _average_ranks(y, valid, xp) - centre, 0.0)
    with np.errstate(all="ignore"):
        divisor = xp.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))
        result = (dx * dy).sum(axis=1) / divisor
    return xp.where((count < minimum) | (divisor == 0), np.nan, result)


def _kendall_rows(x: Any, y: Any, valid: Any, minimum: int) -> Any:
    """Kendall's tau-b per row over ``valid``; NaN for fewer than ``minimum`` values or a constant side."""
    xp = _device.namespace_of(x)
    c, n = x.shape
    count = valid.sum(axis=1)
    if n == 0:
        return xp.full(c, np.nan)
    x_codes = _dense_codes(x, valid, xp)  # invalid values share the largest code of their row, in x and in y
    y_codes = _dense_codes(y, valid, xp)
    weight = valid.astype(np.float64)
    x_ties = _tied_pairs(x_codes, weight, n + 1, xp)
    y_ties = _tied_pairs(y_codes, weight, n + 1, xp)
    # Sort each row by (x, y): invalid rows sort last and tie in both, so they add no inversion.
    joint = x_codes * (n + 1) + y_codes
    order = _argsort_rows(joint, xp)
    sorted_joint = xp.take_along_axis(joint, order, axis=1)
    sorted_weight = xp.take_along_axis(weight, order, axis=1)
    both_ties = _tied_runs(sorted_joint, sorted_weight, xp)
    swaps = _inversions(xp.take_along_axis(y_codes, order, axis=1), n, xp)
    pairs = count * (count - 1) / 2.0
    with np.errstate(all="ignore"):
        numerator = pairs - x_ties - y_ties + both_ties - 2.0 * swaps
        denominator = xp.sqrt((pairs - x_ties) * (pairs - y_ties))
        result = numerator / denominator
    return xp.where((count < minimum) | (denominator == 0), np.nan, result)


def _centred(values: Any, valid: Any, count: Any, xp: Any) -> Any:
    """Values minus their row's mean over ``valid``, 0 where invalid."""
    mean = xp.where(valid, values, 0.0).sum(axis=1) / count
    return xp.where(valid, values - mean[:, None], 0.0)


def _largest(deviations: Any, xp: Any) -> Any:
    """The largest absolute deviation per row (1 where there is none, so that dividing by it is harmless)."""
    if deviations.shape[1] == 0:
        return xp.ones(deviations.shape[0])
    scale = xp.abs(deviations).max(axis=1)
    return xp.where((scale == 0) | ~xp.isfinite(scale), 1.0, scale)


def _constant_rows(values: Any, valid: Any, xp: Any) -> Any:
    """True where a row's valid values are all equal (or there are none): exact, unlike a rounded variance."""
    if values.shape[1] == 0:
        return xp.ones(values.shape[0], dtype=bool)
    lowest = xp.where(valid, values, np.inf).min(axis=1)
    highest = xp.where(valid, values, -np.inf).max(axis=1)
    return ~(lowest < highest)


# --------------------------------------------------------------------------- ranks and codes within rows


def _argsort_rows(keys: Any, xp: Any) -> Any:
    """Stable sort order of each row of a 2-D array (CuPy's sort is always stable)."""
    if xp is np:
        return np.argsort(keys, axis=1, kind="stable")
    return xp.argsort(keys, axis=1)


def _sorted_runs(values: Any, valid: Any, xp: Any) -> tuple[Any, Any]:
    """Each row's sort order (invalid values last) and, per sorted position, the number of its run of equal
    values within the row (0, 1, ...): the building block of ranks and codes."""
    keys = float_sort_key(values, valid, True, False, xp)  # -0.0 ties 0.0; invalid rows share the largest key
    order = _argsort_rows(keys, xp)
    ordered = xp.take_along_axis(keys, order, axis=1)
    starts = xp.ones(ordered.shape, dtype=np.int64)
    starts[:, 0] = 0
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    return order, xp.cumsum(starts, axis=1)


def _unsort(order: Any, sorted_values: Any, xp: Any) -> Any:
    """Values given in each row's sorted order, put back at their original positions."""
    c, n = order.shape
    out = xp.empty(c * n, dtype=sorted_values.dtype)
    out[(order + (xp.arange(c, dtype=np.int64) * n)[:, None]).ravel()] = sorted_values.ravel()
    return out.reshape(c, n)


def _dense_codes(values: Any, valid: Any, xp: Any) -> Any:
    """Integers in ``[0, n]`` with the order of each row's valid values (equal values, equal codes); the
    invalid values of a row all get one code above its valid ones."""
    order, runs = _sorted_runs(values, valid, xp)
    return _unsort(order, runs, xp)


def _average_ranks(values: Any, valid: Any, xp: Any) -> Any:
    """Average ranks (1-based, ties share the mean of their positions) of each row's valid values."""
    c, n = values.shape
    if n == 0:
        return xp.zeros((c, 0))
    order, runs = _sorted_runs(values, valid, xp)
    row_start = (xp.arange(c, dtype=np.int64) * n)[:, None]
    runs_global = (runs + row_start).ravel()  # non-decreasing over the whole array: one searchsorted
    lowest = xp.searchsorted(runs_global, runs_global, side="left").reshape(c, n) - row_start
    highest = xp.searchsorted(runs_global, runs_global, side="right").reshape(c, n) - row_start
    return _unsort(order, (lowest + highest + 1) / 2.0, xp)


def _tied_pairs(codes: Any, weight: Any, width: int, xp: Any) -> Any:
    """Per row, the number of pairs of valid values with equal codes: sum of t(t-1)/2 over the ties."""
    c = codes.shape[0]
    slots = (codes + (xp.arange(c, dtype=np.int64) * width)[:, None]).ravel()
    counts = xp.bincount(slots, weights=weight.ravel(), minlength=c * width)
    return (counts * (counts - 1) / 2.0).reshape(c, width).sum(axis=1)


def _tied_runs(sorted_keys: Any, sorted_weight: Any, xp: Any) -> Any:
    """Per row, the number of pairs of valid values with equal keys, for keys already sorted within rows."""
    c, n = sorted_keys.shape
    starts = xp.ones((c, n), dtype=np.int64)
    starts[:, 1:] = sorted_keys[:, 1:] != sorted_keys[:, :-1]
    runs = xp.cumsum(starts.ravel()) - 1  # run numbers over the whole array (each row starts a run)
    counts = xp.bincount(runs, weights=sorted_weight.ravel(), minlength=c * n)
    # Each valid member of a run of t valid values contributes (t - 1) / 2: t(t-1)/2 per run.
    return (sorted_weight.ravel() * (counts[runs] - 1) / 2.0).reshape(c, n).sum(axis=1)


def _inversions(sequence: Any, largest: int, xp: Any) -> Any:
    """Per row, the number of pairs i < j with ``sequence[i] > sequence[j]`` (codes in ``[0, largest]``).

    Most significant bit first: within runs of equal higher bits (kept together, in their original order),
    each element with bit 0 is inverted with the earlier ones with bit 1; then a stable partition by the bit
    (positions from prefix sums) makes the runs of the next bit. ``bit_length(largest)`` passes of O(c * n).
    """
    c, n = sequence.shape
    total = xp.zeros(c, dtype=np.int64)
    if n < 2:
        return total.astype(np.float64)
    width = largest + 1
    current = sequence.ravel().astype(np.int64)
    row_base = xp.repeat(xp.arange(c, dtype=np.int64) * width, n)
    position = xp.arange(c * n, dtype=np.int64)
    for bit in reversed(range(int(largest).bit_length())):
        high = (current >> (bit + 1)) + row_base  # run key: the row and the higher bits, non-decreasing
        ones = (current >> bit) & 1
        ones_before = xp.cumsum(ones) - ones  # exclusive prefix count over the whole array
        sizes = xp.bincount(high, minlength=c * width)
        run_start = (xp.cumsum(sizes) - sizes)[high]
        ones_in_run_before = ones_before - ones_before[run_start]
        total += ((1 - ones) * ones_in_run_before).reshape(c, n).sum(axis=1)
        ones_in_run = xp.bincount(high, weights=ones.astype(np.float64), minlength=c * width).astype(np.int64)[high]
        zeros_in_run = sizes[high] - ones_in_run
        zeros_in_run_before = (position - run_start) - ones_in_run_before
        target = run_start + xp.where(ones == 1, zeros_in_run + ones_in_run_before, zeros_in_run_before)
        moved = xp.empty_like(current)
        moved[target] = current
        current = moved
    return total.astype(np.float64)


# --------------------------------------------------------------------------- k x k matrices: (k, n) columns


def _pearson_matrix(values: Any, valid: Any, minimum: int) -> Any:
    """pandas' ``nancorr``: pairwise-complete Pearson, clipped to [-1, 1]; NaN below ``minimum`` rows, for a
    constant column or fewer than two rows."""
    xp = _device.namespace_of(values)
    k, n = values.shape
    count, sums, squares, products = _pair_sums(values, valid, xp)
    with np.errstate(all="ignore"):
        covariance = products - sums * sums.T / count
        own = squares - sums * sums / count  # x_i's sum of squared deviations over the rows of pair (i, j)
        result = xp.clip(covariance / xp.sqrt(own * own.T), -1.0, 1.0)
    constant = _constant_pairs(values, valid, xp)
    undefined = (count < minimum) | (count < 2) | constant | constant.T
    return xp.where(undefined, np.nan, result)


def _cov_matrix(values: Any, present: Any, min_periods: int | None, ddof: int) -> Any:
    """pandas' ``DataFrame.cov``: NumPy's ``cov`` when nothing is missing, else pairwise over finite values."""
    xp = _device.namespace_of(values)
    k, n = values.shape
    if k == 0:
        return xp.zeros((0, 0))
    if bool(present.all()):  # one scalar read: pandas picks its algorithm by whether anything is missing
        if min_periods is not None and min_periods > n:
            return xp.full((k, k), np.nan)
        with np.errstate(all="ignore"):
            centred = values - values.mean(axis=1, keepdims=True) if n else values
            factor = n - ddof
            return (centred @ centred.T) * (1.0 / factor if factor > 0 else np.inf)
    finite = xp.isfinite(values)
    count, sums, _, products = _pair_sums(values, finite, xp)
    with np.errstate(all="ignore"):
        # pandas divides by n - 1 and gives NaN where that is 0; no rows at all (min_periods=0) give 0 / -1
        result = xp.where(count > 0, products - sums * sums.T / count, 0.0) / (count - 1)
    minimum = 1 if min_periods is None else min_periods
    return xp.where((count < minimum) | (count == 1), np.nan, result)


def _pair_sums(values: Any, valid: Any, xp: Any) -> tuple[Any, Any, Any, Any]:
    """Pairwise-complete sums by matrix products: ``count[i, j]`` rows where both are valid, and over them
    ``sums[i, j]`` of x_i, ``squares[i, j]`` of x_i**2, ``products[i, j]`` of x_i * x_j, with each column
    centred on its own mean first (which keeps the differences of sums accurate)."""
    mask = valid.astype(np.float64)
    own_count = mask.sum(axis=1, keepdims=True)
    with np.errstate(all="ignore"):
        mean = xp.where(own_count > 0, xp.where(valid, values, 0.0).sum(axis=1, keepdims=True) / own_count, 0.0)
    centred = xp.where(valid, values - mean, 0.0)
    return mask @ mask.T, centred @ mask.T, (centred * centred) @ mask.T, centred @ centred.T


def _constant_pairs(values: Any, valid: Any, xp: Any) -> Any:
    """``constant[i, j]``: column i takes one value (or none) over the rows where i and j are both valid."""
    k, n = values.shape
    if n == 0:
        return xp.ones((k, k), dtype=bool)
    if bool(valid.all()):  # one scalar read: without missing values a column's constancy is its own
        return xp.repeat(_constant_rows(values, valid, xp)[:, None], k, axis=1)
    rows = []
    for i in range(k):  # one pass per column, against all partners at once
        both = valid & valid[i]
        lowest = xp.where(both, values[i], np.inf).min(axis=1)
        highest = xp.where(both, values[i], -np.inf).max(axis=1)
        rows.append(~(lowest < highest))
    return xp.stack(rows)


def _spearman_matrix(values: Any, valid: Any, minimum: int) -> Any:
    """pandas' ``nancorr_spearman``: ranks per pair over the rows both columns have."""
    xp = _device.namespace_of(values)
    k, n = values.shape
    if k == 0:
        return xp.zeros((0, 0))
    if n < minimum:
        return xp.full((k, k), np.nan)
    if bool((valid == valid[:1]).all()):  # one scalar read: shared missing rows need one ranking per column
        count = valid[0].sum()
        centred = xp.where(valid, _average_ranks(values, valid, xp) - (count + 1) / 2.0, 0.0)
        products = centred @ centred.T
        squares = xp.diag(products)
        with np.errstate(all="ignore"):
            divisor = xp.sqrt(squares[:, None] * squares[None, :])
            result = products / divisor
        return xp.where((count < minimum) | (divisor == 0), np.nan, result)
    return _pairwise_batches(values, valid, minimum, _spearman_rows, diagonal=None)


def _kendall_matrix(values: Any, valid: Any, minimum: int) -> Any:
    """pandas' ``nancorr_kendall``: tau-b per pair; the diagonal is 1 where a column has ``minimum`` values."""
    xp = _device.namespace_of(values)
    k = values.shape[0]
    if k == 0:
        return xp.zeros((0, 0))
    diagonal = xp.where(valid.sum(axis=1) >= minimum, 1.0, np.nan)
    return _pairwise_batches(values, valid, minimum, _kendall_rows, diagonal=diagonal)


def _pairwise_batches(values: Any, valid: Any, minimum: int, kernel: Callable, diagonal: Any) -> Any:
    """A symmetric k x k matrix of ``kernel`` over each pair's common rows, one column against all its later
    partners per batch (batches capped at ``_BATCH_ELEMENTS`` values); ``diagonal`` given or computed."""
    xp = _device.namespace_of(values)
    k, n = values.shape
    result = xp.full((k, k), np.nan)
    first = 0 if diagonal is None else 1
    per_batch = max(1, _BATCH_ELEMENTS // max(n, 1))
    for i in range(k):
        for lo in range(i + first, k, per_batch):
            hi = min(k, lo + per_batch)
            partners = values[lo:hi]
            both = valid[lo:hi] & valid[i]
            x = xp.broadcast_to(values[i], partners.shape)
            row = kernel(x, partners, both, minimum)
            result[i, lo:hi] = row
            result[lo:hi, i] = row
    if diagonal is not None:
        result[xp.arange(k), xp.arange(k)] = diagonal
    return result


def _callable_matrix(values: Any, valid: Any, minimum: int, method: Callable) -> Any:
    """A user function of two NumPy arrays, called per pair on the host (pandas' loop and rules)."""
    xp = _device.namespace_of(values)
    host_values, host_valid = _device.to_host(values), _device.to_host(valid)
    k = host_values.shape[0]
    result = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            both = host_valid[i] & host_valid[j]
            if both.sum() < minimum:
                value = np.nan
            elif i == j:
                value = 1.0
            elif not both.all():
                value = method(host_values[i][both], host_values[j][both])
            else:
                value = method(host_values[i], host_values[j])
            result[i, j] = result[j, i] = value
    return _device.to_device(result, xp)


def _host_callable_pair(x: Any, y: Any, valid: Any, minimum: int, method: Callable) -> Any:
    keep = _device.to_host(valid)
    if keep.sum() < minimum:
        return np.nan
    return method(_device.to_host(x)[keep], _device.to_host(y)[keep])


def _square_frame(frame: Any, labels: list[Hashable], result: Any) -> Any:
    """A k x k result as a DataFrame labelled by the columns on both axes (their dtype and name kept)."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import as_index

    axis = _label_index(frame, labels)
    xp = _device.namespace_of(result)
    columns = {label: NumericColumn(xp.ascontiguousarray(result[:, j])) for j, label in enumerate(labels)}
    out = DataFrame._from_columns(columns, as_index(axis))
    out._set_column_axis(axis)
    return out


def _label_index(frame: Any, labels: list[Hashable]) -> pd.Index:
    """The frame's column labels (a pandas Index, dtype and names kept) restricted to ``labels``."""
    columns = frame.columns
    if len(labels) == len(columns):
        return columns
    wanted = set(labels)
    return columns[[i for i, label in enumerate(frame._data) if label in wanted]]


# --------------------------------------------------------------------------- corrwith


def _corrwith_series(frame: Any, other: Any, axis: int, method: Any, numeric_only: bool,
                     min_periods: int | None) -> Any:  # fmt: skip
    """Each column (or row) correlated with one Series, with ``Series.corr``'s rules."""
    from riptide.frame.index import as_index
    from riptide.frame.series import Series

    labels, columns = _selected(frame, numeric_only)
    xp = frame._xp()
    minimum = 1 if min_periods is None else min_periods
    values, present = _matrix(columns, xp, len(frame), finite=False)
    y, y_present = _float_values(other._column)
    if axis == 0:
        if other._index is frame._index or other._index.equals(frame._index):
            found = xp.ones(len(frame), dtype=bool)
        else:
            positions = _positions_in(other._index, frame._index) if len(other) else xp.full(len(frame), -1)
            found = positions >= 0
            safe = xp.where(found, positions, 0)
            y, y_present = (y[safe], y_present[safe]) if len(other) else (xp.zeros(len(frame)), found)
        x = values
        valid = present & (y_present & found)[None, :]
        y_rows = xp.broadcast_to(y, x.shape)
        result_index = as_index(_label_index(frame, labels))
    else:
        axis_labels = as_index(_label_index(frame, labels))
        positions = _positions_in(other._index, axis_labels) if len(other) and labels else xp.full(len(labels), -1)
        found = positions >= 0
        safe = xp.where(found, positions, 0)
        y_row = y[safe] if len(other) else xp.zeros(len(labels))
        y_ok = (y_present[safe] if len(other) else found) & found
        x = xp.ascontiguousarray(values.T)
        valid = xp.ascontiguousarray(present.T) & y_ok[None, :]
        y_rows = xp.broadcast_to(y_row, x.shape)
        result_index = frame._index
    if callable(method) and not isinstance(method, str):
        result = _host_callable_rows(x, y_rows, valid, minimum, method)
    else:
        result = _batched(method, x, y_rows, valid, minimum)
    return Series._from_column(NumericColumn(xp.asarray(result, dtype=np.float64)), result_index)


def _batched(method: str, x: Any, y: Any, valid: Any, minimum: int) -> Any:
    """``_pair_rows`` over many rows, in batches of at most ``_BATCH_ELEMENTS`` values."""
    xp = _device.namespace_of(x)
    c, n = x.shape
    per_batch = max(1, _BATCH_ELEMENTS // max(n, 1))
    if c <= per_batch:
        return _pair_rows(method, x, y, valid, minimum)
    parts = [_pair_rows(method, x[lo:lo + per_batch], y[lo:lo + per_batch], valid[lo:lo + per_batch], minimum)
             for lo in range(0, c, per_batch)]  # fmt: skip
    return xp.concatenate(parts)


def _host_callable_rows(x: Any, y: Any, valid: Any, minimum: int, method: Callable) -> np.ndarray:
    host_x, host_y, host_valid = _device.to_host(x), _device.to_host(y), _device.to_host(valid)
    out = np.empty(host_x.shape[0])
    for i in range(host_x.shape[0]):
        keep = host_valid[i]
        out[i] = np.nan if keep.sum() < minimum else method(host_x[i][keep], host_y[i][keep])
    return out


def _corrwith_frame(frame: Any, other: Any, axis: int, drop: bool, method: Any, numeric_only: bool) -> Any:
    """Matching columns (rows) of two frames, aligned on both axes (pandas' inner join), correlated."""
    from riptide.frame.index import as_index
    from riptide.frame.series import Series

    xp = frame._xp()
    this_labels, this_columns = _selected(frame, numeric_only)
    other_labels, other_columns = _selected(other, numeric_only)
    other_by_label = dict(zip(other_labels, other_columns))
    common = [label for label in this_labels if label in other_by_label]  # the inner join keeps this order
    this_by_label = dict(zip(this_labels, this_columns))
    if method == "pearson":  # pandas takes means of the columns: only numbers (and bools) have one
        for label in common:
            for column in (this_by_label[label], other_by_label[label]):
                if not isinstance(column, NumericColumn) or dtypes.is_datetimelike(column.dtype):
                    raise TypeError(f"Cannot perform reduction 'mean' with {column.dtype} dtype (column "
                                    f"{label!r}); pass numeric_only=True to leave it out")  # fmt: skip
    left_values, left_present = _matrix([this_by_label[k] for k in common], xp, len(frame), finite=False)
    right_values, right_present = _matrix([other_by_label[k] for k in common], xp, len(other), finite=False)
    if frame._index is other._index or frame._index.equals(other._index):
        found = xp.ones(len(frame), dtype=bool)
        rows = frame._index
    else:
        positions = _positions_in(other._index, frame._index) if len(other) else xp.full(len(frame), -1)
        found = positions >= 0
        safe = xp.where(found, positions, 0)
        if len(other):
            right_values, right_present = right_values[:, safe], right_present[:, safe]
        else:
            right_values = xp.zeros(left_values.shape)
            right_present = xp.zeros(left_values.shape, dtype=bool)
        rows = frame._index
    if axis == 0:
        x, y = left_values, right_values
        valid = left_present & right_present & found[None, :]
    else:
        # rows: only the labels both frames have (the inner join), in this frame's order
        keep = xp.flatnonzero(found)  # one size read: the joined rows
        rows = frame._index.take(keep)
        x, y = xp.ascontiguousarray(left_values[:, keep].T), xp.ascontiguousarray(right_values[:, keep].T)
        valid = xp.ascontiguousarray((left_present & right_present)[:, keep].T)
    if method == "pearson":
        result = _corrwith_pearson(x, y, valid, xp)
    elif callable(method) and not isinstance(method, str):
        result = _host_callable_rows(x, y, valid, 1, method)
    else:
        result = _batched(method, x, y, valid, 1)
    result = xp.asarray(result, dtype=np.float64)
    if axis == 0:
        labels = _label_index(frame, common) if common else pd.Index([], dtype=object)
        correl = pd.Index(labels)
        union = _label_index(frame, this_labels).union(_label_index(other, other_labels))
    else:
        correl = rows.to_pandas()
        union = frame._index.to_pandas().union(other._index.to_pandas())
    if drop:
        return Series._from_column(NumericColumn(result), as_index(correl))
    extra = union.difference(correl)
    if len(extra) == 0:
        return Series._from_column(NumericColumn(result), as_index(correl))
    combined = correl.append(extra)
    values = xp.concatenate([result, xp.full(len(extra), np.nan)])
    return Series._from_column(NumericColumn(values), as_index(combined))


def _corrwith_pearson(x: Any, y: Any, valid: Any, xp: Any) -> Any:
    """pandas' own formula for ``corrwith`` of two frames: values missing on either side are masked on both,
    a sum of centred products over ``(count - 1) * std * std`` (no clipping, and no ``min_periods``). Like
    pandas' masking by ``x + y * 0``, an ``inf`` on the right masks its row, on the left it makes NaN."""
    valid = valid & ~xp.isinf(y)
    count = valid.sum(axis=1)
    with np.errstate(all="ignore"):
        dx = _centred(x, valid, count, xp)
        dy = _centred(y, valid, count, xp)
        sxx = (dx * dx).sum(axis=1)
        syy = (dy * dy).sum(axis=1)
        result = (dx * dy).sum(axis=1) / xp.sqrt(sxx * syy)
    undefined = (count < 2) | _constant_rows(x, valid, xp) | _constant_rows(y, valid, xp)
    return xp.where(undefined, np.nan, result)


