"""``merge_asof``: a left join on the nearest key instead of an equal one, with pandas 3's semantics.

For each left row, pandas' ``merge_asof`` picks one right row: the last one whose ``on`` key is at or before the
left key (``backward``), the first one at or after it (``forward``), or the closer of those two (``nearest``;
on a tie the backward one), optionally only among the right rows with the same ``by`` keys, within a
``tolerance``, and (``allow_exact_matches=False``) never one with an equal key. pandas walks both sorted frames
in one scalar loop with a hash table of the last right row seen per ``by`` group; that loop has no GPU form.

Both frames are sorted by ``on`` (pandas requires it), so the search is a ``searchsorted`` instead:

* Without ``by``, the right row of a left key ``x`` is ``searchsorted(right_on, x) - 1`` (backward) or
  ``searchsorted(right_on, x)`` (forward), the side (``left``/``right``) choosing whether equal keys count and,
  among equal right keys, the last (backward) or the first (forward) row, as pandas' walk does.
* With ``by``, the by-keys of both frames are grouped together (:func:`~riptide.core.ops.grouping.group_rows`
  over the concatenated keys, missing keys matching each other as in pandas) into one group number per row.
  Since the right frame is sorted by ``on``, "right rows with a key at or before ``x``" is a prefix of it, of
  length ``c = searchsorted(right_on, x)``: the answer is the last right row of the left row's group whose
  *position* is below ``c``. Sorting the right rows by (group, position) (one stable argsort of the group
  numbers) and searching the pair ``(group, c)`` in it, encoded as ``group * (n_right + 1) + position``,
  finds it for every left row at once; a result in another group means no match. Forward is the mirror image.

The specification (keys by label, index level, array or the index itself, dropped and suffixed columns, the
key columns of the result) is the one of ``merge(how="left")``, which this module reuses
(:class:`riptide.frame.merge._Merge`), adding pandas' asof checks and errors (``MergeError`` for keys of
different dtypes, non-numeric ``on`` keys, a bad ``tolerance`` or ``direction``; ``ValueError`` for unsorted or
missing ``on`` keys). The result keeps the left rows in order; right columns of rows without a match are
missing (int columns become float64, as in pandas). Rows never leave the device: the host reads flags only
(is a key sorted and complete, did every left row find a match).

Not supported: categorical ``on`` keys whose categories are strings (pandas cannot compare them either and raises
TypeError); categorical ``on`` keys are compared by their categories' values, which is pandas' result when the
categories are in increasing order.

>>> import riptide as rt
>>> trades = rt.DataFrame({"time": [1, 5, 10], "ticker": ["A", "B", "A"]})
>>> quotes = rt.DataFrame({"time": [0, 4, 6, 9], "ticker": ["A", "B", "A", "B"], "bid": [10, 20, 11, 21]})
>>> rt.merge_asof(trades, quotes, on="time", by="ticker").to_pandas()
   time ticker  bid
0     1      A   10
1     5      B   20
2    10      A   11
"""

from __future__ import annotations

import datetime
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, concat_columns
from riptide.core.kernels.sort import stable_argsort
from riptide.core.ops.cast import decode_categorical
from riptide.core.ops.grouping import group_rows
from riptide.frame.merge import _Merge, _array_column, _as_frame, _is_array_key, _label_in

__all__ = ["merge_asof"]

MergeError = pd.errors.MergeError

_DIRECTIONS = ("backward", "forward", "nearest")


def merge_asof(left: Any, right: Any, on: Any = None, left_on: Any = None, right_on: Any = None,
               left_index: bool = False, right_index: bool = False, by: Any = None, left_by: Any = None,
               right_by: Any = None, suffixes: Any = ("_x", "_y"), tolerance: Any = None,
               allow_exact_matches: bool = True, direction: str = "backward") -> Any:  # fmt: skip
    """Left-join ``right`` onto ``left`` by the nearest key rather than an equal one.

    Both frames must be sorted by their ``on`` key. For each left row the chosen right row is the last one whose
    key is at or before the left key (``direction="backward"``), the first one at or after it (``"forward"``),
    or the closer of the two (``"nearest"``, the backward one on a tie).

    Parameters
    ----------
    left, right : DataFrame or named Series
    on : label
        The key column (or index level) of both frames: numbers, datetimes (tz-aware too) or timedeltas.
    left_on, right_on : label or array
    left_index, right_index : bool
        Use that frame's index as its key.
    by : label or list of labels
        Match only rows with equal values in these columns first (``left_by``/``right_by`` per side).
    suffixes : pair of str, default ("_x", "_y")
        Added to overlapping column labels.
    tolerance : int, float or timedelta, optional
        The largest key distance of a match (a ``Timedelta`` or ``datetime.timedelta`` for time keys).
    allow_exact_matches : bool, default True
        Whether a right row with a key equal to the left key may match.
    direction : {"backward", "forward", "nearest"}, default "backward"

    Returns
    -------
    DataFrame
        The left rows in order, with the matched right row's columns (missing where none matched).

    >>> import riptide as rt
    >>> left = rt.DataFrame({"t": [1, 5, 10], "x": ["a", "b", "c"]})
    >>> right = rt.DataFrame({"t": [1, 2, 3, 6, 7], "y": [1, 2, 3, 6, 7]})
    >>> rt.merge_asof(left, right, on="t", direction="nearest", tolerance=1).to_pandas()
        t  x    y
    0   1  a  1.0
    1   5  b  6.0
    2  10  c  NaN
    """
    left_frame, right_frame = _as_frame(left), _as_frame(right)
    if direction not in _DIRECTIONS:
        raise MergeError(f"direction invalid: {direction}")
    if not isinstance(allow_exact_matches, bool | np.bool_):
        raise MergeError(f"allow_exact_matches must be boolean, passed {allow_exact_matches}")
    merge = _AsOfMerge(left_frame, right_frame, on, left_on, right_on, left_index, right_index, by, left_by, right_by,
                       suffixes, tolerance, bool(allow_exact_matches), direction)  # fmt: skip
    return merge.result()


class _AsOfMerge(_Merge):
    """merge's left join specification, with pandas' asof checks, and the asof search as its indexers."""

    def __init__(self, left: Any, right: Any, on: Any, left_on: Any, right_on: Any, left_index: Any, right_index: Any,
                 by: Any, left_by: Any, right_by: Any, suffixes: Any, tolerance: Any, allow_exact_matches: bool,
                 direction: str):  # fmt: skip
        self.by, self.left_by, self.right_by = by, left_by, right_by
        self.tolerance = tolerance
        self.allow_exact_matches = allow_exact_matches
        self.direction = direction
        # The base class resolves the keys (calling the two overrides below, where pandas' asof errors are raised).
        super().__init__(left, right, "left", on, left_on, right_on, left_index, right_index, False, suffixes,
                         False, None)  # fmt: skip

    # --- specification -------------------------------------------------------------------------------------------
    def _validate_left_right_on(self, left_on: Any, right_on: Any) -> tuple[list[Any], list[Any]]:
        left_on, right_on = super()._validate_left_right_on(left_on, right_on)
        if len(left_on) != 1 and not self.left_index:
            raise MergeError("can only asof on a key for left")
        if len(right_on) != 1 and not self.right_index:
            raise MergeError("can only asof on a key for right")
        if self.left_index and self.left._index.nlevels > 1:
            raise MergeError("left can only have one index")
        if self.right_index and self.right._index.nlevels > 1:
            raise MergeError("right can only have one index")
        if self.by is not None:
            if self.left_by is not None or self.right_by is not None:
                raise MergeError("Can only pass by OR left_by and right_by")
            self.left_by = self.right_by = self.by
        if self.left_by is None and self.right_by is not None:
            raise MergeError("missing left_by")
        if self.left_by is not None and self.right_by is None:
            raise MergeError("missing right_by")
        left_dtype = self.left._index.dtype if self.left_index else _key_dtype(self.left, left_on[0])
        right_dtype = self.right._index.dtype if self.right_index else _key_dtype(self.right, right_on[0])
        if any(pd.api.types.is_object_dtype(d) or pd.api.types.is_string_dtype(d) for d in (left_dtype, right_dtype)):
            raise MergeError(f"Incompatible merge dtype, {left_dtype!r} and {right_dtype!r}, both sides must have "
                             "numeric dtype")  # fmt: skip
        if self.left_by is not None:
            self.left_by = list(self.left_by) if pd.api.types.is_list_like(self.left_by) else [self.left_by]
            self.right_by = list(self.right_by) if pd.api.types.is_list_like(self.right_by) else [self.right_by]
            if len(self.left_by) != len(self.right_by):
                raise MergeError("left_by and right_by must be the same length")
            left_on, right_on = self.left_by + list(left_on), self.right_by + list(right_on)
        return left_on, right_on

    def _resolve_keys(self) -> None:
        super()._resolve_keys()
        if any(k is not None for k in self.left_on) and any(k is not None for k in self.right_on):
            # pandas names the key a left index stands for (left_index=True with by) after the index
            self.join_names = [self.left._index.name if lk is None else name
                               for lk, name in zip(self.left_on, self.join_names)]  # fmt: skip
        for i, (lk, rk) in enumerate(zip(self.left_keys, self.right_keys)):
            _check_same_dtype(lk.dtype, rk.dtype, i)
        left_on_key, right_on_key = self._on_keys()
        _check_same_dtype(left_on_key.dtype, right_on_key.dtype, 0)
        self.tolerance_ticks = self._validated_tolerance(left_on_key.dtype)

    def _on_keys(self) -> tuple[Column, Column]:
        """The ``on`` key column of each side (its index, or the last of its keys: the by-keys come first)."""
        left = self.left._index._as_column() if self.left_index else self.left_keys[-1]
        right = self.right._index._as_column() if self.right_index else self.right_keys[-1]
        return left, right

    def _by_keys(self) -> tuple[list[Column], list[Column]]:
        if self.left_by is None:
            return [], []
        if self.left_index and self.right_index:
            return list(self.left_keys), list(self.right_keys)
        return self.left_keys[:-1], self.right_keys[:-1]

    def _validated_tolerance(self, dtype: Any) -> Any:
        """The tolerance as a number of the key's values (time keys: ticks of their unit); pandas' errors."""
        tolerance = self.tolerance
        if tolerance is None:
            return None
        message = f"incompatible tolerance {tolerance}, must be compat with type {dtype!r}"
        if dtypes.is_datetimelike(dtype):
            if not isinstance(tolerance, datetime.timedelta):
                raise MergeError(message)
            if tolerance < pd.Timedelta(0):
                raise MergeError("tolerance must be non-negative")
            unit = dtype.unit if hasattr(dtype, "unit") else np.datetime_data(dtype)[0]
            return int(pd.Timedelta(tolerance).as_unit(unit)._value)
        if pd.api.types.is_integer_dtype(dtype):
            if not pd.api.types.is_integer(tolerance):
                raise MergeError(message)
            if tolerance < 0:
                raise MergeError("tolerance must be non-negative")
            return int(tolerance)
        if pd.api.types.is_float_dtype(dtype):
            if not pd.api.types.is_number(tolerance):
                raise MergeError(message)
            if tolerance < 0:
                raise MergeError("tolerance must be non-negative")
            return tolerance
        raise MergeError("key must be integer, timestamp or float")

    # --- result ----------------------------------------------------------------------------------------------
    def _indexers(self) -> tuple[Any, Any, Any]:
        from riptide.frame.index import default_index

        self.comparable = None  # merge's comparable keys are not needed: asof keys share one dtype
        left_key, right_key = self._on_keys()
        left_values, right_values = _search_values(left_key, "left"), _search_values(right_key, "right")
        xp = left_key.xp
        n_left, n_right = left_key.size, right_key.size
        left_groups = right_groups = None
        left_by, right_by = self._by_keys()
        if left_by and n_left and n_right:
            both = [concat_columns([lk, rk]) for lk, rk in zip(left_by, right_by)]
            ids = group_rows(both, sort=False, dropna=False).ids  # missing by-keys match each other, as in pandas
            left_groups, right_groups = ids[:n_left], ids[n_left:]
        rpos = _asof_positions(left_values, right_values, left_groups, right_groups, self.direction,
                               self.allow_exact_matches, self.tolerance_ticks, xp)  # fmt: skip
        lpos = xp.arange(n_left, dtype=np.int64)
        # pandas' index: the left one when a side joins on its index (the right one's empty slice when the left
        # frame is empty and the right joins on its index), else a RangeIndex.
        if self.right_index and n_left == 0:
            join_index = self.right._index.take(rpos)
        elif self.left_index or self.right_index:
            join_index = self.left._index
        else:
            join_index = default_index(n_left, xp)
        return lpos, rpos, join_index

    def _index_join_order(self, li: Any, ri: Any, how: str) -> bool:
        return False  # merge's ordering rules of index joins; an asof join keeps the left rows in place

    def _restore_index_levels(self, result: Any) -> Any:
        return result  # unlike merge, pandas' merge_asof never turns index-level keys back into the index


# --- helpers ------------------------------------------------------------------------------------------------------


def _key_dtype(frame: Any, key: Any) -> Any:
    """The dtype of a key given by label, index level name or array (pandas' KeyError for an unknown label)."""
    if _is_array_key(key, len(frame)):
        dtype = getattr(key, "dtype", None)  # the array's own dtype, as pandas reads it (no copy to the device)
        return _array_column(key, frame._xp()).dtype if dtype is None else dtype
    if _label_in(key, frame._data):
        return frame._data[key].dtype
    if key in frame._index.names:
        return frame._index._key_columns()[frame._index.names.index(key)].dtype
    raise KeyError(key)


def _check_same_dtype(left: Any, right: Any, i: int) -> None:
    if left == right:
        return
    if isinstance(left, pd.CategoricalDtype) and isinstance(right, pd.CategoricalDtype):
        raise MergeError(f"incompatible merge keys [{i}] {left!r} and {right!r}, both sides category, but not equal "
                         "ones")  # fmt: skip
    raise MergeError(f"incompatible merge keys [{i}] {left!r} and {right!r}, must be the same type")


def _search_values(column: Column, side: str) -> Any:
    """The ``on`` key's values as an array ``searchsorted`` can search, after pandas' checks: sorted, no missing."""
    missing = column.isna()
    if isinstance(column, CategoricalColumn):
        order = column.codes  # pandas checks a categorical's order by its codes, and compares its values
    else:
        order = column.data
    in_order = order[1:] >= order[:-1]
    if not bool(in_order.all() & ~missing.any()):  # one scalar read: is the key sorted and complete
        if bool(missing.any()):  # one scalar read, on the way to an error
            raise ValueError(f"Merge keys contain null values on {side} side")
        raise ValueError(f"{side} keys must be sorted")
    if isinstance(column, CategoricalColumn):
        values = decode_categorical(column)
        if not isinstance(values, NumericColumn):
            raise TypeError(f"merge_asof cannot compare categorical keys whose categories are {values.dtype} "
                            "(pandas: No matching signature found)")  # fmt: skip
        column = values
    data = column.data
    if data.dtype == np.bool_:
        data = data.view(np.uint8)  # searchsorted and distances on 0/1
    return data


def _asof_positions(left: Any, right: Any, left_groups: Any, right_groups: Any, direction: str,
                    allow_exact: bool, tolerance: Any, xp: Any) -> Any:  # fmt: skip
    """The matched right row of each left key (-1 for none); ``*_groups`` are the by-groups (None: no by)."""
    n_left, n_right = left.shape[0], right.shape[0]
    if n_right == 0 or n_left == 0:
        return xp.full(n_left, -1, dtype=np.int64)
    if left_groups is None:
        return _nearest_or_one(left, right, None, direction, allow_exact, tolerance, xp)
    # The right rows sorted by (group, position): one stable sort of the group numbers. The left rows are put in
    # the same order too, so that the searched pairs come in increasing order (a binary search per row that
    # walks the searched array in order, not at random), and put back at the end.
    order = stable_argsort(right_groups, xp)
    left_order = stable_argsort(left_groups, xp)
    by_group = (left, left_order, left_groups[left_order], order, right_groups[order])
    found = _nearest_or_one(left[left_order], right, by_group, direction, allow_exact, tolerance, xp)
    out = xp.empty(n_left, dtype=np.int64)
    out[left_order] = found
    return out


def _nearest_or_one(left: Any, right: Any, by_group: Any, direction: str, allow_exact: bool, tolerance: Any,
                    xp: Any) -> Any:  # fmt: skip
    if direction != "nearest":
        return _one_direction(left, right, by_group, direction == "backward", allow_exact, tolerance, xp)
    back = _one_direction(left, right, by_group, True, allow_exact, tolerance, xp)
    ahead = _one_direction(left, right, by_group, False, allow_exact, tolerance, xp)
    with np.errstate(invalid="ignore"):  # infinite keys: inf - inf is NaN, which pandas' rule below handles
        back_distance = left - right[xp.maximum(back, 0)]
        ahead_distance = right[xp.maximum(ahead, 0)] - left
    # pandas' rule: the backward match when it exists and is not farther (a tie goes backward), else the forward
    # one (also when a distance is NaN: an infinite key matched with an infinite one).
    take_back = (back >= 0) & ((ahead < 0) | (back_distance <= ahead_distance))
    return xp.where(take_back, back, ahead)


def _one_direction(left: Any, right: Any, by_group: Any, backward: bool, allow_exact: bool, tolerance: Any,
                   xp: Any) -> Any:  # fmt: skip
    """The backward (or forward) match of each left key; ``by_group``: None, or (the left keys in their own order,
    the order ``left`` is in, their groups, the right rows in (group, position) order, their groups)."""
    n_right = right.shape[0]
    # ``cut`` counts the right rows at or before each left key (backward, exact matches allowed), strictly before
    # it (backward, refused); forward counts the rows a match must come after the same way.
    side = "right" if backward == allow_exact else "left"
    if by_group is None:
        cut = xp.searchsorted(right, left, side=side).astype(np.int64)
        found = cut - 1 if backward else cut
        valid = (found >= 0) if backward else (found < n_right)
    else:
        # Left row (g, cut) is searched among the codes g * (n_right + 1) + position of the right rows in
        # (group, position) order, which increase along it: the row before (backward) or at (forward) the
        # insertion point is the match, if it belongs to group g.
        sorted_left, left_order, left_groups, order, sorted_groups = by_group
        cut = xp.searchsorted(right, sorted_left, side=side).astype(np.int64)[left_order]  # searched in key order
        codes = sorted_groups * (n_right + 1) + order
        at = xp.searchsorted(codes, left_groups * (n_right + 1) + cut, side="left").astype(np.int64)
        at = at - 1 if backward else at
        clipped = xp.clip(at, 0, n_right - 1)
        valid = (at >= 0) & (at < n_right) & (sorted_groups[clipped] == left_groups)
        found = order[clipped]
    if tolerance is not None:
        matched = right[xp.clip(found, 0, n_right - 1)]
        with np.errstate(invalid="ignore"):  # inf - inf: NaN, never beyond the tolerance (as in pandas)
            distance = left - matched if backward else matched - left
        valid = valid & ~_exceeds(distance, tolerance, xp)
    return xp.where(valid, found, -1)


def _exceeds(distance: Any, tolerance: Any, xp: Any) -> Any:
    """``distance > tolerance``, compared in the keys' own dtype (as pandas' loop does)."""
    dtype = distance.dtype
    if dtype.kind in "iu" and tolerance > np.iinfo(dtype).max:
        return xp.zeros(distance.shape[0], dtype=bool)  # no distance of this dtype is larger
    return distance > dtype.type(tolerance)
