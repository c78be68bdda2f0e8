"""Window reductions of one column: rolling and expanding sum, mean, var, std, sem, min, max, first, last, count,
skew, kurt, median and quantiles.

The contract
------------
A window is a half-open row range: output row ``i`` reduces rows ``start[i] <= r < end[i]``.

* :func:`fixed_window_bounds` builds the ranges of ``rolling(window, center=, closed=, step=)`` as pandas'
  fixed-window indexer does (window 0 and ``center`` shift the right edge by ``(window - 1) // 2``; ``closed``
  widens or narrows either edge; ``step`` keeps every step-th output row).
* :func:`expanding_bounds` builds ``[segment start, i + 1)``.
* :func:`time_window_bounds` builds the ranges of ``rolling("2s")`` over int64 time labels (monotonic within each
  segment), found by a vectorized binary search.
* Both take ``segment_starts``: an int64 array of the first row of each segment (sorted, starting at 0;
  segment ``g`` is rows ``segment_starts[g] : segment_starts[g + 1]``, the last one ends at ``n``; empty
  segments are allowed). Every window is clipped to its own row's segment, so windows never cross a segment
  boundary. ``groupby(...).rolling(...)`` is this: reorder the rows so that each group is contiguous (a stable
  sort by group id), pass the group starts (``cumsum(sizes) - sizes``), and reduce as usual.
* :func:`reduce_windows` reduces a column over given bounds (:func:`median_windows` / :func:`quantile_windows`
  for order statistics: a sort of each window's gathered values);
  :func:`rolling_reduce` and :func:`expanding_reduce` are the two steps together.

Results are float64 columns without a mask, as pandas' window results are, whatever the input dtype: numbers,
bools, masked numbers and numeric categoricals are read as float64 first, text is parsed as numbers (as pandas
does; other text raises TypeError). Missing values (NaN, null, and also
infinities, which pandas' window functions treat as missing) are skipped; ``min_periods`` counts the values
that are left (``nobs``). ``count`` is the exception, as in pandas: it counts non-missing rows of any dtype
(infinities included) and compares ``min_periods`` with the number of rows in the window.

How: binary lifting, no loop over rows or window positions
----------------------------------------------------------
Level ``k`` of a block table holds the reduction of the ``2**k`` rows starting at each row; level ``k + 1``
is two level-``k`` blocks combined (one elementwise pass). A window of length ``L`` is the concatenation of
one block per set bit of ``L``, read left to right: pass ``k`` gathers the level-``k`` block at each window's
cursor where bit ``k`` of its length is set, and advances the cursor. That is ``ceil(log2(window))``
elementwise passes of O(n) for any associative reduction, and windows of different lengths (edges, segments,
expanding windows) cost nothing extra.

It also keeps the arithmetic accurate, which matters because pandas' Kahan-compensated running sums stay close
to the window's own magnitude, where a prefix-sum difference would be off by the magnitude of everything before
the window (a 1e10 that left the window long ago). Here sums are pairwise sums of the
window's own rows (error about ``log2(window) * eps`` relative to the window's absolute sum), and variances
merge ``(count, mean, M2)`` triples with Chan et al.'s update, so a constant window has exactly zero variance
(pandas guarantees that too) and no cancellation of ``sum(x**2) - n * mean**2`` ever happens. Skew and kurt
merge ``(count, mean, M2, M3, M4)`` with Pebay's update the same way, after centering the column on its mean.
Counts are exact integer prefix sums.

>>> import numpy as np
>>> from riptide.core.column import NumericColumn
>>> col = NumericColumn(np.array([1.0, 2.0, np.nan, 4.0, 5.0]))
>>> rolling_reduce(col, 2, min_periods=1, center=False, op="sum").data.tolist()
[1.0, 3.0, 2.0, 4.0, 9.0]
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn
from riptide.core.ops.cast import astype
from riptide.core.ops.quantile import INTERPOLATIONS as QUANTILE_INTERPOLATIONS
from riptide.core.ops.quantile import interpolate_sorted

__all__ = [
    "WINDOW_OPS",
    "fixed_window_bounds",
    "expanding_bounds",
    "time_window_bounds",
    "monotonic_within_segments",
    "segment_starts_from_sizes",
    "median_windows",
    "quantile_windows",
    "QUANTILE_INTERPOLATIONS",
    "window_values",
    "reduce_windows",
    "rolling_reduce",
    "expanding_reduce",
]

#: The reductions :func:`reduce_windows` computes.
WINDOW_OPS = ("sum", "mean", "var", "std", "sem", "min", "max", "first", "last", "count", "skew", "kurt")

_CLOSED = (None, "right", "left", "both", "neither")

State = tuple[Any, ...]


# --------------------------------------------------------------------------- window bounds


def _segment_of_each_row(n: int, segment_starts: Any, xp: types.ModuleType) -> tuple[Any, Any]:
    """First row and row count of the segment holding each row (the whole column when ``segment_starts`` is None)."""
    if segment_starts is None:
        return xp.zeros(n, dtype=np.int64), xp.full(n, n, dtype=np.int64)
    starts = xp.asarray(segment_starts, dtype=np.int64)
    ends = xp.concatenate([starts[1:], xp.full(1, n, dtype=np.int64)])
    # side="right" - 1: the last segment starting at or before the row, which skips empty segments.
    segment = xp.searchsorted(starts, xp.arange(n, dtype=np.int64), side="right") - 1
    first = starts[segment]
    return first, ends[segment] - first


def fixed_window_bounds(n: int, window: int, *, center: bool = False, closed: str | None = None,
                        step: int | None = None, segment_starts: Any = None,
                        xp: types.ModuleType = np) -> tuple[Any, Any]:  # fmt: skip
    """``(start, end)`` int64 arrays of ``rolling(window, center=, closed=, step=)`` over ``n`` rows.

    >>> start, end = fixed_window_bounds(5, 3)
    >>> start.tolist(), end.tolist()
    ([0, 0, 0, 1, 2], [1, 2, 3, 4, 5])
    >>> start, end = fixed_window_bounds(5, 2, segment_starts=np.array([0, 3]))
    >>> start.tolist(), end.tolist()
    ([0, 0, 1, 3, 3], [1, 2, 3, 4, 5])
    """
    if closed not in _CLOSED:
        raise ValueError("closed must be 'right', 'left', 'both' or 'neither'")
    offset = (window - 1) // 2 if center or window == 0 else 0
    first, size = _segment_of_each_row(n, segment_starts, xp)
    local = xp.arange(n, dtype=np.int64) - first
    end = local + (1 + offset)
    start = end - window
    if closed in ("left", "both"):
        start = start - 1
    if closed in ("left", "neither"):
        end = end - 1
    start = xp.minimum(xp.maximum(start, 0), size)
    end = xp.maximum(xp.minimum(end, size), start)  # closed="neither"/"left" with window 0: empty, not negative
    start, end = start + first, end + first
    if step is not None and step != 1:
        start, end = start[::step], end[::step]
    return start, end


def expanding_bounds(n: int, *, segment_starts: Any = None, xp: types.ModuleType = np) -> tuple[Any, Any]:
    """``(start, end)`` of ``expanding()``: from the segment's first row through each row.

    >>> start, end = expanding_bounds(4, segment_starts=np.array([0, 2]))
    >>> start.tolist(), end.tolist()
    ([0, 0, 2, 2], [1, 2, 3, 4])
    """
    first, _ = _segment_of_each_row(n, segment_starts, xp)
    return first, xp.arange(1, n + 1, dtype=np.int64)


def time_window_bounds(labels: Any, span: int, *, center: bool = False, closed: str | None = None,
                       segment_starts: Any = None) -> tuple[Any, Any]:  # fmt: skip
    """``(start, end)`` of ``rolling(span)`` over time labels (int64, monotonic within each segment, no NaT).

    pandas' rules: a window holds the rows whose label lies in ``(t - span, t]`` (``closed="right"``, the
    default; "left" is ``[t - span, t)``, "both" ``[t - span, t]``, "neither" ``(t - span, t)``). With ``center``
    the window is ``t -+ span / 2``. A segment whose labels decrease is searched mirrored.

    >>> start, end = time_window_bounds(np.array([0, 1, 2, 5, 6]), 2)
    >>> start.tolist(), end.tolist()
    ([0, 0, 1, 3, 3], [1, 2, 3, 4, 5])
    """
    xp = _namespace(labels)
    n = labels.shape[0]
    if n == 0:
        return xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=np.int64)
    if closed not in _CLOSED:
        raise ValueError("closed must be 'right', 'left', 'both' or 'neither'")
    closed = "right" if closed is None else closed
    right_closed, left_closed = closed in ("right", "both"), closed in ("left", "both")
    first, size = _segment_of_each_row(n, segment_starts, xp)
    last = first + xp.maximum(size - 1, 0)
    # Mirror decreasing segments so that every search runs over increasing labels.
    t = xp.where(labels[last] < labels[first], -labels, labels)
    rows = xp.arange(n, dtype=np.int64)
    if center:
        # Edges at t -+ span / 2, compared exactly in integers: x > t - span/2 is x > t - ceil(span/2), and
        # x >= t - span/2 is x >= t - floor(span/2) (likewise on the right).
        floor_half, ceil_half = span // 2, span - span // 2
        left = t - (floor_half if left_closed else ceil_half)
        start = _first_at_least(t, left, first, rows, strict=not left_closed, xp=xp)
        right = t + (floor_half if right_closed else ceil_half)
        end = _first_at_least(t, right, first, first + size, strict=right_closed, xp=xp)
        return start, xp.maximum(end, start)
    # start: the first row of the segment whose label is inside the left edge (never after the row itself)
    start = _first_at_least(t, t - span, first, rows, strict=not left_closed, xp=xp)
    # an open right edge leaves out the row and every earlier row with the same label
    end = rows + 1 if right_closed else xp.maximum(_first_at_least(t, t, first, rows, strict=False, xp=xp), start)
    return start, end


def _first_at_least(values: Any, bound: Any, lo: Any, hi: Any, strict: bool, xp: types.ModuleType) -> Any:
    """Per query, the first j in ``[lo, hi)`` with ``values[j] > bound`` (``strict``) or ``>= bound``; ``hi`` if
    none. ``values`` increase within each query's range: a vectorized binary search, one pass per halving."""
    n = values.shape[0]
    lo, hi = lo.copy(), hi.copy()
    for _ in range(int(n).bit_length() + 1):
        mid = (lo + hi) // 2
        probe = values[xp.minimum(mid, n - 1)]
        inside = probe > bound if strict else probe >= bound
        active = lo < hi
        hi = xp.where(active & inside, mid, hi)
        lo = xp.where(active & ~inside, mid + 1, lo)
    return lo


def monotonic_within_segments(values: Any, segment_starts: Any = None) -> bool:
    """Whether ``values`` never decrease, or never increase, within each segment (one scalar read).

    >>> monotonic_within_segments(np.array([1, 2, 9, 3, 1]), np.array([0, 3]))
    True
    """
    xp = _namespace(values)
    n = values.shape[0]
    if n < 2:
        return True
    starts = xp.zeros(1, dtype=np.int64) if segment_starts is None else xp.asarray(segment_starts, dtype=np.int64)
    ends = xp.concatenate([starts[1:], xp.full(1, n, dtype=np.int64)])
    # Pair p compares rows p and p+1; a segment [s, e) owns the pairs [s, e - 1).
    rising = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum((values[1:] > values[:-1]).astype(np.int64))])
    falling = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum((values[1:] < values[:-1]).astype(np.int64))])
    first = xp.minimum(starts, n - 1)  # an empty segment at the very end owns no pair
    last_pair = xp.maximum(xp.minimum(ends - 1, n - 1), first)
    ups = rising[last_pair] - rising[first]
    downs = falling[last_pair] - falling[first]
    return bool(((ups == 0) | (downs == 0)).all())  # one scalar read: the answer


def _namespace(array: Any) -> types.ModuleType:
    from riptide import _device

    return _device.namespace_of(array)


def segment_starts_from_sizes(sizes: Any, xp: types.ModuleType) -> Any:
    """The first row of each segment from the segments' row counts (rows already contiguous per segment).

    >>> segment_starts_from_sizes(np.array([2, 0, 3]), np).tolist()
    [0, 2, 2]
    """
    sizes = xp.asarray(sizes, dtype=np.int64)
    return xp.cumsum(sizes) - sizes


# --------------------------------------------------------------------------- values


def window_values(column: Column) -> Any:
    """The column as float64 with NaN wherever a value is missing or infinite (what pandas' window functions read).

    Text is parsed as pandas parses it (``astype(float)``); raises TypeError for columns that are not numbers:
    datetimes, timedeltas, text or categories that are not numbers.

    >>> window_values(NumericColumn(np.array([1, 2], dtype=np.int8))).tolist()
    [1.0, 2.0]
    """
    xp = column.xp
    if isinstance(column, CategoricalColumn):
        categories = window_values(column.categories)
        if column.size == 0 or categories.shape[0] == 0:
            return xp.full(column.size, np.nan)
        codes = column.codes
        return xp.where(codes < 0, np.nan, categories[xp.maximum(codes, 0)])
    if isinstance(column, StringColumn):
        # pandas converts text with astype(float): numbers written as text (and all-missing text) are numbers
        try:
            column = astype(column, np.dtype(np.float64))
        except (TypeError, ValueError) as error:
            raise TypeError(f"cannot aggregate non-numeric type: {column.dtype}") from error
    if not isinstance(column, NumericColumn) or dtypes.is_datetimelike(column.dtype):
        raise TypeError(f"cannot aggregate non-numeric type: {column.dtype}")
    values = column.data.astype(np.float64)  # a copy even for float64: the where below never aliases input
    if column.mask is not None:
        values = xp.where(column.mask, values, np.nan)
    return xp.where(xp.isinf(values), np.nan, values)


# --------------------------------------------------------------------------- binary lifting


def _lift(leaves: State, start: Any, end: Any, max_length: int, identity: State,
          combine: Callable[[State, State], State], xp: types.ModuleType) -> State:  # fmt: skip
    """Reduce ``leaves`` (a tuple of per-row arrays: one reduction state) over each window ``[start, end)``.

    ``combine(left, right)`` merges the states of two adjacent row ranges, left before right, elementwise;
    ``identity`` is the state of an empty range, one entry per window. ``max_length`` bounds ``end - start``.
    """
    n = leaves[0].shape[0]
    length = end - start
    acc, cursor, blocks = identity, start, leaves
    span, limit = 1, min(max_length, n)
    while span <= limit:
        take = (length & span) != 0
        # Windows that skip this level may point past the last full block: clip them (their gather is unused).
        at = xp.minimum(cursor, blocks[0].shape[0] - 1)
        merged = combine(acc, tuple(block[at] for block in blocks))
        acc = tuple(xp.where(take, new, old) for new, old in zip(merged, acc))
        cursor = cursor + take * span
        if 2 * span <= limit:
            # Level k+1: blocks of 2*span rows, one starting at each row that has 2*span rows left.
            blocks = combine(tuple(b[:-span] for b in blocks), tuple(b[span:] for b in blocks))
        span *= 2
    return acc


def _add(left: State, right: State) -> State:
    return (left[0] + right[0],)


def _moments_merger(xp: types.ModuleType) -> Callable[[State, State], State]:
    """Chan et al.'s pairwise update of (count, mean, sum of squared deviations from the mean)."""

    def merge(left: State, right: State) -> State:
        n_a, mean_a, m2_a = left
        n_b, mean_b, m2_b = right
        n = n_a + n_b
        share_b = n_b / xp.maximum(n, 1.0)  # 0 for two empty ranges; exactly 1.0 when the left one is empty
        delta = mean_b - mean_a
        return n, mean_a + delta * share_b, m2_a + m2_b + delta * delta * n_a * share_b

    return merge


def _higher_moments_merger(xp: types.ModuleType) -> Callable[[State, State], State]:
    """Pebay's pairwise update of (count, mean, M2, M3, M4), the sums of the 2nd..4th powers of the deviations
    from the mean: every term is in deviations, so there is no cancellation of raw power sums (a window of
    values near 1e6 is as accurate as one near 0) and a constant window has exactly zero M2."""

    def merge(left: State, right: State) -> State:
        n_a, mean_a, m2_a, m3_a, m4_a = left
        n_b, mean_b, m2_b, m3_b, m4_b = right
        n = n_a + n_b
        inv = 1.0 / xp.maximum(n, 1.0)
        delta = mean_b - mean_a
        d_n = delta * inv
        d_n2 = d_n * d_n
        ab = n_a * n_b
        mean = mean_a + d_n * n_b
        m2 = m2_a + m2_b + delta * d_n * ab
        m3 = m3_a + m3_b + d_n2 * delta * ab * (n_a - n_b) + 3.0 * d_n * (n_a * m2_b - n_b * m2_a)
        m4 = (m4_a + m4_b + d_n2 * d_n2 * n * ab * (n_a * n_a - ab + n_b * n_b)
              + 6.0 * d_n2 * (n_a * n_a * m2_b + n_b * n_b * m2_a) + 4.0 * d_n * (n_a * m3_b - n_b * m3_a))
        # an empty side contributes nothing (and its mean, 0, must not enter delta**4: it could overflow)
        merged = (n, mean, m2, m3, m4)
        return tuple(xp.where(n_a == 0, b, xp.where(n_b == 0, a, m))
                     for a, b, m in zip(left, right, merged))  # fmt: skip

    return merge


def _valid_picker(xp: types.ModuleType, leftmost: bool) -> Callable[[State, State], State]:
    """Merge (has a value, value) pairs keeping the leftmost (``first``) or rightmost (``last``) value."""

    def pick(left: State, right: State) -> State:
        (has_a, value_a), (has_b, value_b) = left, right
        if leftmost:
            return has_a | has_b, xp.where(has_a, value_a, value_b)
        return has_a | has_b, xp.where(has_b, value_b, value_a)

    return pick


# --------------------------------------------------------------------------- reductions


def reduce_windows(column: Column, op: str, start: Any, end: Any, min_periods: int, *, ddof: float = 1,
                   max_length: int | None = None) -> NumericColumn:  # fmt: skip
    """``op`` of the rows ``[start[i], end[i])`` of ``column`` for each i, with pandas' ``min_periods`` rules.

    ``max_length`` bounds the window lengths (it sets the number of lifting passes); without it the longest
    window is read from the device (one scalar read).

    >>> col = NumericColumn(np.array([3.0, 1.0, 2.0, 5.0]))
    >>> start, end = fixed_window_bounds(4, 2)
    >>> reduce_windows(col, "max", start, end, 2).data.tolist()
    [nan, 3.0, 2.0, 5.0]
    """
    if op not in WINDOW_OPS:
        raise ValueError(f"unknown window operation {op!r}; expected one of {', '.join(WINDOW_OPS)}")
    xp = column.xp
    start = xp.asarray(start, dtype=np.int64)
    end = xp.asarray(end, dtype=np.int64)
    if op == "count":
        return NumericColumn(_count(column, start, end, min_periods, xp))
    values = window_values(column)
    if start.shape[0] == 0:
        return NumericColumn(xp.zeros(0))
    if max_length is None:
        max_length = int((end - start).max())  # one scalar read: the number of lifting passes
    with np.errstate(invalid="ignore", divide="ignore"):
        result = _reduce(values, op, start, end, min_periods, ddof, max_length, xp)
    if op == "sem":
        result = result / xp.sqrt(_count(column, start, end, min_periods, xp))
    return NumericColumn(result)


def _count(column: Column, start: Any, end: Any, min_periods: int, xp: types.ModuleType) -> Any:
    """pandas' ``count``: non-missing rows (infinities count), NaN where the window has < min_periods rows."""
    counts = _window_counts(column.notna(), start, end, xp).astype(np.float64)
    return xp.where(end - start >= min_periods, counts, np.nan)


def _window_counts(valid: Any, start: Any, end: Any, xp: types.ModuleType) -> Any:
    """Number of True in ``valid[start:end]`` per window: an exact integer prefix-sum difference."""
    prefix = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(valid.astype(np.int64))])
    return prefix[end] - prefix[start]


def _reduce(values: Any, op: str, start: Any, end: Any, min_periods: int, ddof: float, max_length: int,
            xp: types.ModuleType) -> Any:  # fmt: skip
    valid = ~xp.isnan(values)
    nobs = _window_counts(valid, start, end, xp)
    m = start.shape[0]
    nan = xp.full(m, np.nan)
    if op in ("sum", "mean"):
        (total,) = _lift((xp.where(valid, values, 0.0),), start, end, max_length, (xp.zeros(m),), _add, xp)
        if op == "sum":  # an empty window sums to 0 when min_periods allows it (min_periods=0)
            return xp.where(nobs >= min_periods, total, nan)
        return xp.where((nobs >= min_periods) & (nobs > 0), total / xp.maximum(nobs, 1), nan)
    if op in ("min", "max"):
        fill = np.inf if op == "min" else -np.inf
        ufunc = xp.minimum if op == "min" else xp.maximum
        (extreme,) = _lift((xp.where(valid, values, fill),), start, end, max_length, (xp.full(m, fill),),
                           lambda a, b: (ufunc(a[0], b[0]),), xp)  # fmt: skip
        return xp.where((nobs >= min_periods) & (nobs > 0), extreme, nan)
    if op in ("first", "last"):
        identity = (xp.zeros(m, dtype=bool), nan)
        combine = _valid_picker(xp, leftmost=(op == "first"))
        _, value = _lift((valid, values), start, end, max_length, identity, combine, xp)
        return xp.where((nobs >= min_periods) & (nobs > 0), value, nan)
    if op in ("skew", "kurt"):
        return _skew_kurt(values, valid, nobs, op, start, end, min_periods, max_length, xp)
    # var, std, sem: merge (count, mean, M2) triples; M2 is a sum of non-negative terms, so never negative.
    leaves = (valid.astype(np.float64), xp.where(valid, values, 0.0), xp.zeros(values.shape[0]))
    identity = (xp.zeros(m), xp.zeros(m), xp.zeros(m))
    _, _, m2 = _lift(leaves, start, end, max_length, identity, _moments_merger(xp), xp)
    defined = (nobs >= max(min_periods, 1)) & (nobs > ddof)
    divisor = xp.where(defined, nobs - ddof, 1.0)
    # pandas: a single observation has variance 0 whatever ddof is (ddof < 1 would otherwise divide 0 by 1-ddof)
    variance = xp.where(defined, xp.where(nobs == 1, 0.0, m2 / divisor), nan)
    return variance if op == "var" else xp.sqrt(variance)


def _skew_kurt(values: Any, valid: Any, nobs: Any, op: str, start: Any, end: Any, min_periods: int,
               max_length: int, xp: types.ModuleType) -> Any:  # fmt: skip
    """pandas' bias-corrected skewness (3+ values) and excess kurtosis (4+ values) from exact central moments.

    With ``B, C, D`` the 2nd..4th central moments over ``n`` (biased), skew is
    ``sqrt(n (n - 1)) C / ((n - 2) B**1.5)`` and kurt ``((n**2 - 1) D / B**2 - 3 (n - 1)**2) / ((n - 2)(n - 3))``;
    NaN for a window with zero variance (pandas 3: a constant window has no skew), or where ``B**1.5`` / ``B**2``
    underflows to 0.
    """
    m = start.shape[0]
    # Shift by the column's mean first (moments do not change): values far from 0 (1e6 + noise) then become
    # exact small deviations (x - c is exact for x near c), so the window means are accurate to the data's
    # own scale, not to 1e6 * eps. A device 0-d array: no scalar read.
    count = xp.maximum(valid.sum(), 1)
    centered = xp.where(valid, values, 0.0)
    centered = xp.where(valid, centered - centered.sum() / count, 0.0)
    zeros = xp.zeros(values.shape[0])
    leaves = (valid.astype(np.float64), centered, zeros, zeros, zeros)
    identity = tuple(xp.zeros(m) for _ in range(5))
    _, _, m2, m3, m4 = _lift(leaves, start, end, max_length, identity, _higher_moments_merger(xp), xp)
    n = nobs.astype(np.float64)
    safe_n = xp.maximum(n, 1.0)
    variance = m2 / safe_n  # B
    if op == "skew":
        spread = variance * xp.sqrt(variance)
        defined = (nobs >= max(min_periods, 3)) & (spread > 0)
        skew = xp.sqrt(n * (n - 1.0)) * (m3 / safe_n) / ((n - 2.0) * xp.where(defined, spread, 1.0))
        return xp.where(defined, skew, np.nan)
    square = variance * variance
    defined = (nobs >= max(min_periods, 4)) & (square > 0)
    ratio = (m4 / safe_n) / xp.where(defined, square, 1.0)
    kurt = ((n * n - 1.0) * ratio - 3.0 * (n - 1.0) ** 2) / ((n - 2.0) * (n - 3.0))
    return xp.where(defined, kurt, np.nan)


# --------------------------------------------------------------------------- median and quantiles


def median_windows(column: Column, start: Any, end: Any, min_periods: int) -> NumericColumn:
    """Median of the non-missing values of each window (NaN with fewer than ``max(min_periods, 1)`` values).

    Each window's values are gathered into a row of a (windows x longest window) matrix and sorted, a block of
    windows at a time: O(n * w log w) work, so it refuses windows whose total size would take too long.

    >>> col = NumericColumn(np.array([5.0, 1.0, np.nan, 3.0, 4.0]))
    >>> start, end = fixed_window_bounds(5, 3)
    >>> median_windows(col, start, end, 1).data.tolist()
    [5.0, 3.0, 3.0, 2.0, 3.5]
    """

    def pick(matrix: Any, count: Any, xp: types.ModuleType) -> Any:
        low = xp.maximum((count - 1) // 2, 0)
        high = xp.maximum(count // 2, 0)
        pick_low = xp.take_along_axis(matrix, low[:, None], axis=1)[:, 0]
        pick_high = xp.take_along_axis(matrix, high[:, None], axis=1)[:, 0]
        return (pick_low + pick_high) / 2

    return _sorted_windows(column, start, end, min_periods, pick, "median")


def quantile_windows(column: Column, start: Any, end: Any, min_periods: int, q: float,
                     interpolation: str = "linear") -> NumericColumn:  # fmt: skip
    """The ``q`` quantile of the non-missing values of each window (NaN with fewer than ``max(min_periods, 1)``).

    pandas' rule: with ``c`` values sorted, the position is ``q * (c - 1)``; between two values ``linear``
    interpolates, ``lower`` / ``higher`` take either one, ``midpoint`` their mean, ``nearest`` the closer one
    (the even position on a tie, as Python's ``round``). Sort-based, like :func:`median_windows`: each window's
    values are gathered into a row of a (windows x longest window) matrix that is sorted along the rows, a block
    of windows at a time, so it suits windows of modest length (O(n * w log w) work).

    >>> col = NumericColumn(np.array([5.0, 1.0, np.nan, 3.0, 4.0]))
    >>> start, end = fixed_window_bounds(5, 3)
    >>> quantile_windows(col, start, end, 1, 0.25).data.tolist()
    [5.0, 2.0, 2.0, 1.5, 3.25]
    """
    if interpolation not in QUANTILE_INTERPOLATIONS:
        raise ValueError(f"Interpolation '{interpolation}' is not supported")

    def pick(matrix: Any, count: Any, xp: types.ModuleType) -> Any:
        def at(offset: Any) -> Any:  # each window's sorted value at an offset (one per window)
            return xp.take_along_axis(matrix, offset[:, None], axis=1)[:, 0]

        return interpolate_sorted(at, count, q, interpolation, xp)

    return _sorted_windows(column, start, end, min_periods, pick, "quantile")


#: Rows x window-length cells :func:`median_windows` sorts per pass (bounds its memory) and in all (bounds its time).
_MEDIAN_CHUNK_CELLS = 1 << 24
_MEDIAN_MAX_CELLS = 1 << 31


def _sorted_windows(column: Column, start: Any, end: Any, min_periods: int,
                    pick: Callable[[Any, Any, types.ModuleType], Any], name: str) -> NumericColumn:  # fmt: skip
    """Sort each window's non-missing values (one matrix row per window, a block of windows at a time) and
    ``pick(sorted rows, counts, xp)`` one value per window."""
    xp = column.xp
    values = window_values(column)
    m = start.shape[0]
    if m == 0:
        return NumericColumn(xp.zeros(0))
    width = int((end - start).max())  # one scalar read: the matrix width
    if width == 0 or values.shape[0] == 0:
        return NumericColumn(xp.full(m, np.nan))
    if m * width > _MEDIAN_MAX_CELLS:
        raise NotImplementedError(f"rolling {name} over {m} windows of up to {width} rows is too large for "
                                  f"riptide's sort-based {name}; use shorter windows")  # fmt: skip
    nobs = _window_counts(~xp.isnan(values), start, end, xp)
    offsets = xp.arange(width, dtype=np.int64)
    rows_per_block = max(1, _MEDIAN_CHUNK_CELLS // width)
    parts = []
    for lo in range(0, m, rows_per_block):  # blocks of windows, not rows: bounds the matrix in memory
        block_start, block_end = start[lo:lo + rows_per_block], end[lo:lo + rows_per_block]
        cells = block_start[:, None] + offsets[None, :]
        inside = cells < block_end[:, None]
        matrix = values[xp.minimum(cells, values.shape[0] - 1)]
        # Missing and outside cells become +inf, which sorts last (inputs hold no infinities: they read as missing),
        # so the valid values come first, in order, without relying on where a sort puts NaN.
        matrix = xp.where(inside & ~xp.isnan(matrix), matrix, np.inf)
        matrix.sort(axis=1)
        with np.errstate(invalid="ignore"):  # inf - inf past the last value of short windows: masked below
            parts.append(pick(matrix, nobs[lo:lo + rows_per_block], xp))
    picked = parts[0] if len(parts) == 1 else xp.concatenate(parts)
    return NumericColumn(xp.where((nobs >= max(min_periods, 1)), picked, np.nan))


# --------------------------------------------------------------------------- the two steps together


def rolling_reduce(column: Column, window: int, min_periods: int | None, center: bool, op: str, ddof: float = 1,
                   *, closed: str | None = None, step: int | None = None,
                   segment_starts: Any = None) -> NumericColumn:  # fmt: skip
    """``column.rolling(window, min_periods, center, closed=, step=).<op>(ddof=)`` as a float64 column.

    ``min_periods=None`` means ``window``, as in pandas; ``segment_starts`` keeps windows inside segments
    (see the module docstring). Inputs are not validated here: the frame layer checks them once.

    >>> col = NumericColumn(np.array([1.0, 2.0, 4.0, 8.0]))
    >>> rolling_reduce(col, 3, None, True, "mean").data.tolist()
    [nan, 2.3333333333333335, 4.666666666666667, nan]
    """
    n = column.size
    start, end = fixed_window_bounds(n, window, center=center, closed=closed, step=step,
                                     segment_starts=segment_starts, xp=column.xp)  # fmt: skip
    min_periods = window if min_periods is None else min_periods
    return reduce_windows(column, op, start, end, min_periods, ddof=ddof, max_length=window + 1)


def expanding_reduce(column: Column, min_periods: int, op: str, ddof: float = 1, *,
                     segment_starts: Any = None) -> NumericColumn:  # fmt: skip
    """``column.expanding(min_periods).<op>(ddof=)`` as a float64 column (windows restart at each segment).

    >>> col = NumericColumn(np.array([1.0, np.nan, 3.0]))
    >>> expanding_reduce(col, 1, "count").data.tolist()
    [1.0, 1.0, 2.0]
    """
    start, end = expanding_bounds(column.size, segment_starts=segment_starts, xp=column.xp)
    return reduce_windows(column, op, start, end, min_periods, ddof=ddof, max_length=column.size)
