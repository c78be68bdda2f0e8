"""Sorting columns: stable multi-key argsort, ranks and top-n selection, written once against ``xp``.

Every column becomes one or more *sort digits*: integer arrays whose plain ascending order, compared
most significant digit first, is the order the caller asked for (ascending or descending, missing values
first or last). A stable sort of the digits is then the whole algorithm:

* ascending integers are their own digit; descending ones are ``~x``, which reverses the order of every
  signed and unsigned integer with no overflow, so a descending sort is still ONE stable sort (ties keep
  their original order, as pandas' descending stable sort keeps them);
* floats become the integer whose order is the float order (``-0.0`` folded onto ``0.0`` so they tie),
  and NaN takes a value no float maps to, so missing values need no extra pass;
* datetimes already are int64 with NaT = INT64_MIN: ``x - 1``, ``~x`` and ``-x`` (wrapping) move NaT to
  either end in one elementwise step;
* categoricals sort by their codes (category order), strings by big-endian 8-byte words plus the byte
  length (:func:`riptide.core.kernels.factorize.string_sort_keys`);
* where a dtype has no spare value for "missing" (Int64, UInt64, strings), a 0/1 *flag* digit goes in
  front of the value digits, whose missing rows are blanked so they tie.

Several digits are packed into one integer where their value ranges allow (mixed radix, in the smallest
unsigned dtype that holds the product of the ranges: a radix sort costs one pass per key byte) and the
packed keys are sorted least significant first (:func:`riptide.core.kernels.sort.lexsort`). A single
digit is sorted as it is, so ``sort_values`` of one int64 column costs exactly one ``argsort`` — and
:func:`sort_column` gets the sorted values from that same sort instead of gathering them.

CuPy's ``argsort`` is a stable radix sort; NumPy's is asked for ``kind="stable"``. riptide therefore
always sorts stably, whatever ``kind`` a caller passes.

>>> import numpy as np
>>> from riptide.core.column import NumericColumn
>>> argsort_columns([NumericColumn(np.array([2.0, np.nan, -1.0, 2.0]))], [False]).tolist()
[0, 3, 2, 1]
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any

import numpy as np

from riptide import _device
from riptide.core import dtypes
from riptide.core.kernels.factorize import string_sort_keys
from riptide.core.kernels.scatter import scatter_max
from riptide.core.kernels.sort import (
    float_from_sort_key,
    float_sort_key,
    lexsort,
    pack_keys,
    stable_argsort,
    stable_argsort_with_values,
    thrust_sorts_in_place,
)

__all__ = ["SortDigit", "sort_digits", "sort_column", "argsort_columns", "argsort_digits", "rank_column",
           "select_top", "RANK_METHODS"]  # fmt: skip

RANK_METHODS = ("average", "min", "max", "first", "dense")


@dataclass
class SortDigit:
    """One integer key array; ``lo``/``hi`` bound its values when known without reading them (else None)."""

    values: Any
    lo: int | None = None
    hi: int | None = None

    @property
    def known(self) -> bool:
        return self.lo is not None


# --------------------------------------------------------------------------- column -> digits


def sort_digits(column: Any, ascending: bool = True, na_position: str = "last",
                category_order: str = "codes") -> list[SortDigit]:  # fmt: skip
    """The digits (most significant first) whose stable ascending sort orders ``column`` as asked.

    Missing values (NaN, NaT, null, code -1) sort together at ``na_position`` ("first"/"last"), in their
    original order; ties between equal values keep their original order. A categorical sorts by its codes
    (category order) with ``category_order="codes"``, by its category values with ``"values"``, and by values
    unless it is ordered with ``"values_unless_ordered"`` (pandas' ``Series.rank``).
    """
    from riptide.core.column import CategoricalColumn, NumericColumn, StringColumn

    first = na_position == "first"
    if isinstance(column, CategoricalColumn):
        by_value = category_order == "values" or (category_order == "values_unless_ordered" and not column.ordered)
        return [_categorical_digit(column, ascending, first, by_value)]
    if isinstance(column, StringColumn):
        return _string_digits(column, ascending, first)
    assert isinstance(column, NumericColumn), type(column)
    return _numeric_digits(column, ascending, first)


def _numeric_digits(column: Any, ascending: bool, first: bool) -> list[SortDigit]:
    xp = column.xp
    data = column.data
    kind = column.kind
    mask = column.mask if dtypes.is_masked(column.dtype) else None
    if kind == "f":
        return [SortDigit(float_sort_key(data, mask, ascending, first, xp))]
    if kind in "mM":
        return [SortDigit(_temporal_key(data, ascending, first, xp))]
    if kind == "b":
        values = data.view(np.uint8) if ascending else (data.view(np.uint8) ^ np.uint8(1))
        if mask is None:
            return [SortDigit(values, 0, 1)]
        # boolean with nulls: 0/1 plus a spare value at either end for the missing rows.
        values = values.astype(np.int8)
        sentinel = -1 if first else 2
        return [SortDigit(xp.where(mask, values, np.int8(sentinel)), min(sentinel, 0), max(sentinel, 1))]
    # integers
    info = np.iinfo(data.dtype)
    if mask is None:
        # ~x maps an integer dtype's range onto itself (reversed), so the bounds are the dtype's either way.
        return [SortDigit(data if ascending else xp.invert(data), *_narrow_bounds(info))]
    if info.bits < 64:
        # Widened to int64, a narrow masked integer has room for the missing rows just past either end.
        values = data.astype(np.int64)
        lo, hi = int(info.min), int(info.max)
        if not ascending:
            values = xp.invert(values)
            lo, hi = ~hi, ~lo
        sentinel = lo - 1 if first else hi + 1
        return [SortDigit(xp.where(mask, values, np.int64(sentinel)), min(lo, sentinel), max(hi, sentinel))]
    # Int64 / UInt64 with nulls: every value is taken, so a flag digit says "missing" in front.
    values = data if ascending else xp.invert(data)
    values = xp.where(mask, values, data.dtype.type(0))  # blanked: missing rows tie with each other
    return [_missing_flag(~mask, first), SortDigit(values)]


def _narrow_bounds(info: np.iinfo) -> tuple[int | None, int | None]:
    """Bounds from the dtype alone for 8/16-bit integers (wider ones are worth reading from the data)."""
    if info.bits > 16:
        return None, None
    return int(info.min), int(info.max)


def _missing_flag(missing: Any, first: bool) -> SortDigit:
    """0/1 digit putting the missing rows last (or first)."""
    flag = (~missing if first else missing).view(np.uint8)
    return SortDigit(flag, 0, 1)


def _temporal_key(data: Any, ascending: bool, first: bool, xp: types.ModuleType) -> Any:
    """int64 datetimes with NaT (INT64_MIN) moved to the asked end, by one wrapping elementwise step.

    Valid values lie in [MIN+1, MAX]: ``x - 1`` keeps their order and wraps NaT to MAX; ``~x`` reverses
    them and sends NaT to MAX; ``-x`` reverses them and leaves NaT at MIN.
    """
    if ascending:
        return data if first else data - np.int64(1)
    return xp.negative(data) if first else xp.invert(data)


def _categorical_digit(column: Any, ascending: bool, first: bool, by_value: bool) -> SortDigit:
    xp = column.xp
    codes = column.codes
    k = column.categories.size
    if codes.dtype.itemsize < 8 and k + 1 >= np.iinfo(codes.dtype).max:
        codes = codes.astype(np.int64)
    if by_value and k > 1:
        # Rank of each category among the category values (they are distinct and never missing).
        by_rank = argsort_columns([column.categories], [True])
        rank_of = xp.empty(k, dtype=codes.dtype)
        rank_of[by_rank] = xp.arange(k, dtype=codes.dtype)
        codes = xp.where(codes < 0, codes, rank_of[xp.maximum(codes, 0)])
    values = codes if ascending else (codes.dtype.type(k - 1) - codes)
    # Valid codes are 0 .. k-1 either way; missing rows (-1) go just below or just above them.
    sentinel, lo, hi = (-1, -1, max(k - 1, 0)) if first else (k, 0, k)
    return SortDigit(xp.where(codes < 0, codes.dtype.type(sentinel), values), lo, hi)


def _string_digits(column: Any, ascending: bool, first: bool) -> list[SortDigit]:
    xp = column.xp
    keys = string_sort_keys(column, xp)
    mask = column.mask
    digits = []
    for key in keys:
        if not ascending:
            key = xp.invert(key)
        if mask is not None:
            key = xp.where(mask, key, key.dtype.type(0))  # missing rows keep stray bytes: blank them
        digits.append(SortDigit(key))
    if mask is not None:
        digits.insert(0, _missing_flag(~mask, first))
    return digits


# --------------------------------------------------------------------------- digits -> order


def sort_column(column: Any, ascending: bool = True, na_position: str = "last") -> tuple[Any, Any]:
    """``(order, column.take(order))`` for one column sorted as asked.

    Integers and datetimes (no mask) come back from the sort itself: their sort key is the data, or a
    bijection of it (``~x``, ``x - 1``, ``-x``) that is undone on the sorted keys, so no gather is needed.

    >>> import numpy as np
    >>> from riptide.core.column import NumericColumn
    >>> order, ordered = sort_column(NumericColumn(np.array([3, -1, 2])), ascending=False)
    >>> order.tolist(), ordered.data.tolist()
    ([0, 2, 1], [3, 2, -1])
    """
    from riptide.core.column import NumericColumn

    xp = column.xp
    if isinstance(column, NumericColumn) and column.kind == "f" and column.size > 0 and xp is not np and \
            thrust_sorts_in_place():  # fmt: skip
        return _sort_float_column(column, ascending, na_position == "first", xp)
    digits = sort_digits(column, ascending, na_position)
    if (isinstance(column, NumericColumn) and column.mask is None and column.kind in "iumM" and len(digits) == 1
            and column.size > 0):  # fmt: skip
        key = digits[0].values
        order, ordered = stable_argsort_with_values(key, xp, overwrite=key is not column.data)
        return _as_int64(order), NumericColumn(_undo_key(ordered, column.kind, ascending, na_position), column.dtype)
    order = argsort_digits(digits, column.size, xp)[0]
    return order, column.take(order)


def _sort_float_column(column: Any, ascending: bool, missing_first: bool, xp: types.ModuleType) -> tuple[Any, Any]:
    """:func:`sort_column` of a float column on the GPU, in the memory of its key and its order.

    The key (:func:`float_sort_key`) is sorted in place, then decoded back into the sorted floats over itself
    (:func:`float_from_sort_key`): no gather of the values. A column that is a pending gather (a filtered
    frame's) has its key read from the source rows, never gathered either (db-benchmark q8 with missing values
    sorts a filtered column of 1e8 rows: 1.5 GB less at its peak).
    """
    from riptide.core.column import NumericColumn

    source, rows = column.deferred_take() or (column, None)
    valid = source.mask
    key = float_sort_key(source.data, valid, ascending, missing_first, xp, rows=rows)
    order, key = stable_argsort_with_values(key, xp, overwrite=True)
    values, ordered_valid = float_from_sort_key(key, order, source.data, valid, ascending, missing_first, xp, rows)
    return _as_int64(order), NumericColumn(values, column.dtype, ordered_valid)


def _undo_key(key: Any, kind: str, ascending: bool, na_position: str) -> Any:
    """The data back from its sort key (the inverse of the transforms in :func:`_numeric_digits`)."""
    if kind in "iu":
        return key if ascending else ~key
    if ascending:
        return key if na_position == "first" else key + np.int64(1)
    return -key if na_position == "first" else ~key


def argsort_columns(columns: list[Any], ascending: list[bool] | None = None, na_position: str = "last") -> Any:
    """Stable order (int64 positions) of rows sorted by ``columns[0]``, then ``columns[1]``, ...

    ``ascending`` has one bool per column (default all True); missing values of every column go to
    ``na_position``. Rows equal in every column keep their original order, also when descending.

    >>> from riptide.core.column import as_column
    >>> argsort_columns([as_column(["b", "a", "b"]), as_column([1, 2, 3])], [True, False]).tolist()
    [1, 2, 0]
    """
    if not columns:
        raise ValueError("argsort_columns needs at least one column")
    ascending = [True] * len(columns) if ascending is None else list(ascending)
    digits = []
    for column, asc in zip(columns, ascending):
        digits.extend(sort_digits(column, bool(asc), na_position))
    return argsort_digits(digits, columns[0].size, columns[0].xp)[0]


def argsort_digits(digits: list[SortDigit], n: int, xp: types.ModuleType) -> tuple[Any, list[Any]]:
    """Stable order of the rows by ``digits`` and the (packed) key arrays that order was sorted on.

    Two rows tie in every returned key exactly when they tie in every digit.
    """
    if n == 0:
        return xp.zeros(0, dtype=np.int64), [d.values for d in digits]
    if len(digits) == 1:
        # The common case (one numeric key): one stable sort of the key itself, no bounds read.
        key = digits[0].values
        return _as_int64(stable_argsort(key, xp)), [key]
    keys = _pack(digits, xp)
    if len(keys) == 1:
        return _as_int64(stable_argsort(keys[0], xp)), keys
    return _as_int64(lexsort(keys, xp)), keys


def _as_int64(order: Any) -> Any:
    return order if order.dtype == np.int64 else order.astype(np.int64)


def _pack(digits: list[SortDigit], xp: types.ModuleType) -> list[Any]:
    """Combine runs of adjacent digits into single keys where their ranges multiply to at most 2**64."""
    _read_bounds(digits, xp)
    groups: list[list[SortDigit]] = []
    current: list[SortDigit] = []
    card = 1
    for digit in reversed(digits):  # least significant first; greedy grouping is optimal for a product bound
        c = digit.hi - digit.lo + 1
        if current and card * c > 2**64:
            groups.append(current)
            current, card = [], 1
        current.insert(0, digit)
        card *= c
    groups.append(current)
    groups.reverse()
    return [_packed_key(group, xp) for group in groups]


def _packed_key(group: list[SortDigit], xp: types.ModuleType) -> Any:
    total = 1
    for digit in group:
        total *= digit.hi - digit.lo + 1
    target = _unsigned_for(total - 1)
    if len(group) == 1 and np.dtype(target).itemsize >= group[0].values.dtype.itemsize:
        return group[0].values  # already as narrow as its range allows
    return pack_keys([d.values for d in group], [d.lo for d in group], [d.hi - d.lo + 1 for d in group], target, xp)


def _unsigned_for(largest: int) -> type:
    for candidate in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(candidate).max:
            return candidate
    return np.uint64


def _read_bounds(digits: list[SortDigit], xp: types.ModuleType) -> None:
    """Fill in the unknown bounds with the data's min and max (one device-to-host read for all digits)."""
    unknown = [d for d in digits if not d.known]
    if not unknown:
        return
    unsigned = [d for d in unknown if d.values.dtype == np.uint64]
    signed = [d for d in unknown if d.values.dtype != np.uint64]
    for group, dtype in ((signed, np.int64), (unsigned, np.uint64)):
        if not group:
            continue
        extremes = xp.stack([xp.min(d.values).astype(dtype) for d in group] + [xp.max(d.values).astype(dtype) for d in
                                                                                group])  # fmt: skip
        host = _device.to_host(extremes).tolist()  # one scalar read per digit group: the packing radices
        for i, digit in enumerate(group):
            digit.lo, digit.hi = int(host[i]), int(host[len(group) + i])


# --------------------------------------------------------------------------- rank


def rank_column(column: Any, method: str = "average", ascending: bool = True, na_option: str = "keep",
                pct: bool = False, segments: tuple[Any, int] | None = None,
                category_order: str = "values_unless_ordered") -> tuple[Any, Any]:  # fmt: skip
    """Ranks (float64, or int64 for min/max/first/dense without ``pct``) and the rows ranked missing.

    The second value is a bool array, True where ``na_option="keep"`` leaves the rank missing (the rank
    there is meaningless), or None when no row is left unranked. Equal values share a rank as ``method``
    says; unordered categoricals rank by category value, as pandas' Series.rank ranks them (see
    :func:`sort_digits` for ``category_order``). ``segments=(ids, count)``
    ranks each row among the rows of its segment only (``ids``: int64 in ``0 .. count-1``), which is how a
    DataFrame ranks across its columns.

    >>> import numpy as np
    >>> from riptide.core.column import NumericColumn
    >>> ranks, missing = rank_column(NumericColumn(np.array([3.0, 1.0, 3.0, np.nan])))
    >>> ranks[:3].tolist(), missing.tolist()
    ([2.5, 1.0, 2.5], [False, False, False, True])
    >>> rank_column(NumericColumn(np.array([5, 1, 7, 2])), "min", segments=(np.array([0, 0, 1, 1]), 2))[0].tolist()
    [2, 1, 2, 1]
    """
    xp = column.xp
    n = column.size
    na_position = "first" if na_option == "top" else "last"
    digits = sort_digits(column, ascending, na_position, category_order)
    if segments is not None:
        digits.insert(0, SortDigit(segments[0], 0, max(segments[1] - 1, 0)))
    order, keys = argsort_digits(digits, n, xp)
    missing = column.isna() if (na_option == "keep" and column.can_hold_missing()) else None
    positions = xp.arange(n, dtype=np.int64)
    # First sorted position of each row's segment (the segment digit sorts first, so segments are runs).
    if segments is None:
        segment_start: Any = 0
    else:
        sorted_segments = segments[0][order]
        segment_start = xp.searchsorted(sorted_segments, sorted_segments, side="left")
    if method == "first" or n == 0:
        sorted_rank = positions - segment_start + 1
    else:
        starts = xp.zeros(n, dtype=bool)
        starts[0] = True
        for key in keys:
            ordered = key[order]
            starts[1:] |= ordered[1:] != ordered[:-1]
        group = xp.cumsum(starts) - 1  # tie group of each sorted row, non-decreasing
        if method == "dense":
            sorted_rank = group + 1 if segments is None else group - group[segment_start] + 1
        else:
            lowest = xp.searchsorted(group, group, side="left") - segment_start + 1
            highest = xp.searchsorted(group, group, side="right") - segment_start
            sorted_rank = {"min": lowest, "max": highest}.get(method)
            if sorted_rank is None:  # average
                sorted_rank = (lowest + highest) / 2.0
    ranks = xp.empty(n, dtype=sorted_rank.dtype)
    ranks[order] = sorted_rank
    if pct:
        ranks = _as_fraction(ranks, method, missing, segments, xp)
    return ranks, missing


def _as_fraction(ranks: Any, method: str, missing: Any, segments: Any, xp: types.ModuleType) -> Any:
    """Ranks divided by the number of ranked rows (by the highest rank for dense), per segment if any."""
    n = ranks.shape[0]
    if n == 0:
        return ranks.astype(np.float64)
    counted = ranks if missing is None else xp.where(missing, 0, ranks)
    if segments is not None:
        ids, count = segments
        if method == "dense":
            highest = xp.zeros(count, dtype=ranks.dtype)
            scatter_max(highest, ids, counted, xp)
            divisor = highest[ids]
        else:
            weights = xp.ones(n, dtype=np.float64) if missing is None else (~missing).astype(np.float64)
            divisor = xp.bincount(ids, weights=weights, minlength=count)[ids]
    elif method == "dense":
        divisor = xp.max(counted)
    else:
        divisor = n if missing is None else (n - xp.count_nonzero(missing))
    with np.errstate(all="ignore"):  # no ranked row: 0 / 0 is NaN, and those ranks are missing anyway
        return ranks / divisor


# --------------------------------------------------------------------------- top n


def select_top(column: Any, n: int, largest: bool, keep: str = "first") -> Any:
    """Positions of the ``n`` largest (or smallest) rows in result order, as pandas' nlargest picks them.

    Ties at the border: ``keep="first"`` takes the earliest rows, ``"last"`` the latest (listing tied rows
    latest first), ``"all"`` every tied row. Missing values never beat a value: they fill the result only
    when fewer than ``n`` values exist (all of them with ``keep="all"``). For small ``n`` only the rows at
    or above the n-th value are sorted (``xp.partition`` finds it).

    >>> import numpy as np
    >>> from riptide.core.column import NumericColumn
    >>> select_top(NumericColumn(np.array([1, 5, 3, 5])), 2, largest=True, keep="last").tolist()
    [3, 1]
    """
    xp = column.xp
    size = column.size
    if n <= 0 or size == 0:
        return xp.zeros(0, dtype=np.int64)
    if n >= size:
        # pandas sorts everything here (keep makes no difference): ties in original order, missing last.
        return argsort_columns([column], [not largest], "last")[:n]
    if not column.can_hold_missing():
        return _top_of_values(_plain_key(column, not largest), n, keep, xp)
    missing = column.isna()
    valid_rows = xp.flatnonzero(~missing)
    m = int(valid_rows.shape[0])  # the number of values (flatnonzero's size already synchronized)
    if m == size:
        return _top_of_values(_plain_key(column, not largest), n, keep, xp)
    key = _plain_key(column.take(valid_rows), not largest)
    if n <= m:
        return valid_rows[_top_of_values(key, n, keep, xp)]
    # Every value is in; missing rows fill up to n (keep="all": all of them), in their original order.
    ranked = valid_rows[_order_with_ties(key, keep, xp)]
    missing_rows = xp.flatnonzero(missing)
    return xp.concatenate([ranked, missing_rows if keep == "all" else missing_rows[: n - m]])


def _plain_key(column: Any, ascending: bool) -> Any:
    """The single sort key of a numeric column without missing values."""
    from riptide.core.column import NumericColumn

    if column.mask is not None:
        column = NumericColumn(column.data, column.dtype, None)
    digits = sort_digits(column, ascending, "last")
    assert len(digits) == 1
    return digits[0].values


def _order_with_ties(key: Any, keep: str, xp: types.ModuleType) -> Any:
    """Stable order of ``key``; with keep="last", tied rows latest first."""
    if keep == "last":
        m = key.shape[0]
        return (m - 1) - _as_int64(stable_argsort(key[::-1], xp))
    return _as_int64(stable_argsort(key, xp))


def _top_of_values(key: Any, n: int, keep: str, xp: types.ModuleType) -> Any:
    """Positions of the ``n`` smallest keys (0 < n <= len(key)), ordered, ties resolved by ``keep``."""
    m = key.shape[0]
    if n * 8 <= m:
        kth = xp.partition(key, n - 1)[n - 1]  # the n-th smallest key, left on the device
        candidates = xp.flatnonzero(key <= kth)
        picked = candidates[_order_with_ties(key[candidates], keep, xp)]
        return picked if keep == "all" else picked[:n]
    order = _order_with_ties(key, keep, xp)
    if keep != "all":
        return order[:n]
    ordered = key[order]
    through = int(xp.searchsorted(ordered, ordered[n - 1], side="right"))  # one scalar read: the output size
    return order[:through]
