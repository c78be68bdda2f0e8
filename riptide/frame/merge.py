"""Joins: ``merge`` and ``DataFrame.join``, with pandas' semantics over device columns.

A merge runs in three steps, and this module is laid out the same way:

1. **The specification** (:class:`_Merge`): which key columns (column labels, index level names, arrays or the
   index itself), which columns are dropped, how columns are suffixed. It is resolved from labels alone, on the
   host, following pandas' rules and raising pandas' errors (``MergeError``, ``KeyError`` naming the missing key,
   ``ValueError`` for incompatible key dtypes) before any device work starts.
2. **The indexers**: :func:`riptide.core.ops.join.join_indexers` turns the key columns into a left and a right
   row position per output row (-1 where that side has no row). Row order is pandas 3's: inner and left joins
   follow the left rows, right joins the right rows, outer joins (and ``sort=True``) the sorted keys. Rows of
   equal keys keep their order, always: where pandas joins an index with an empty one and sorts the other
   side's labels with NumPy's unstable quicksort, its order of tied labels is accidental, riptide's stable.
3. **The gather**: every output column is one ``take_or_missing`` of an input column (so int columns that gain
   missing rows become float64, as in pandas), the key columns of right/outer joins are coalesced from both
   sides as pandas does, the index follows pandas' rules for index joins, and the indicator is a categorical
   computed from the indexers.

Only labels, dtypes and sizes are read on the host; rows never leave the device (the duplicate keys quoted
in a ``validate`` error are the one exception: five rows, to write the message).

Not supported: joining on a MultiIndex (by ``left_index``/``right_index``); ``how="asof"`` (that is
:func:`riptide.merge_asof`, in :mod:`riptide.frame.merge_asof`). Key pairs that pandas can only compare as Python objects (bool against numbers, strings
against bools) raise TypeError, because riptide has no object columns.

>>> import riptide as rt
>>> left = rt.DataFrame({"key": ["a", "b", "a"], "x": [1, 2, 3]})
>>> right = rt.DataFrame({"key": ["a", "c"], "y": [10.0, 20.0]})
>>> rt.merge(left, right, on="key", how="left").to_pandas()
  key  x     y
0   a  1  10.0
1   b  2   NaN
2   a  3  10.0
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn, as_column, concat_columns
from riptide.core.ops import join as joins
from riptide.core.ops.cast import astype, decode_categorical
from riptide.core.ops.grouping import group_rows

__all__ = ["FrameMergeMethods", "SeriesMergeMethods", "merge"]

MergeError = pd.errors.MergeError

_NO_DEFAULT: Any = object()

_VALIDATE = {
    "one_to_one": "1:1", "1:1": "1:1",
    "one_to_many": "1:m", "1:m": "1:m",
    "many_to_one": "m:1", "m:1": "m:1",
    "many_to_many": "m:m", "m:m": "m:m",
}  # fmt: skip

_MERGE_TYPES = "left, right, inner, outer, left_anti, right_anti, cross, asof"


def merge(left: Any, right: Any, how: str = "inner", on: Any = None, left_on: Any = None, right_on: Any = None,
          left_index: bool = False, right_index: bool = False, sort: bool = False,
          suffixes: Any = ("_x", "_y"), copy: Any = None, indicator: bool | str = False,
          validate: str | None = None) -> Any:  # fmt: skip
    """Database-style join of two DataFrames (or named Series) on columns, index levels or the index.

    Parameters
    ----------
    left, right : DataFrame or named Series
    how : {"inner", "left", "right", "outer", "cross", "left_anti", "right_anti"}, default "inner"
        inner and left keep the left rows' order (each left row's matches in right order), right keeps the right
        rows' order, outer sorts by key, cross is the cartesian product, left-major.
    on : label or list of labels
        Keys present in both (columns or index level names); default: the common columns.
    left_on, right_on : label, array or list of them
    left_index, right_index : bool
        Use the index as the key on that side.
    sort : bool, default False
        Sort the result by key.
    suffixes : pair of str or None, default ("_x", "_y")
        Added to overlapping column labels.
    copy : ignored
        Deprecated in pandas 3 (results never share mutable data).
    indicator : bool or str, default False
        Add a categorical column (``"_merge"`` or the given name) saying ``left_only``, ``right_only`` or ``both``.
    validate : {"one_to_one", "1:1", "one_to_many", "1:m", "many_to_one", "m:1", "many_to_many", "m:m"}, optional
        Check that the keys are unique on the side(s) the relation says; ``pandas.errors.MergeError`` otherwise.

    Returns
    -------
    DataFrame

    Notes
    -----
    Null keys match each other, as in pandas (unlike SQL).

    >>> import riptide as rt
    >>> a = rt.DataFrame({"k": [1, 2, 2], "x": ["p", "q", "r"]})
    >>> b = rt.DataFrame({"k": [2, 3], "y": [0.5, 1.5]})
    >>> rt.merge(a, b, on="k", how="outer", indicator=True).to_pandas()
       k    x    y      _merge
    0  1    p  NaN   left_only
    1  2    q  0.5        both
    2  2    r  0.5        both
    3  3  NaN  1.5  right_only
    """
    left_frame, right_frame = _as_frame(left), _as_frame(right)
    if copy is not None:
        warnings.warn("The copy keyword is deprecated and will be removed in a future version. Copy-on-Write is "
                      "active in pandas since 3.0 which utilizes a lazy copy mechanism that defers copies until "
                      "necessary. Use .copy() to make an eager copy if necessary.", pd.errors.Pandas4Warning,
                      stacklevel=2)  # fmt: skip
    if how == "cross":
        if left_index or right_index or on is not None or left_on is not None or right_on is not None:
            raise MergeError("Can not pass on, right_on, left_on or set right_index=True or left_index=True")
        return _Merge(left_frame, right_frame, "cross", None, None, None, False, False, False, suffixes,
                      indicator, None).result()  # fmt: skip
    return _Merge(left_frame, right_frame, how, on, left_on, right_on, left_index, right_index, sort, suffixes,
                  indicator, validate).result()  # fmt: skip


def _as_frame(obj: Any) -> Any:
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    if isinstance(obj, DataFrame):
        return obj
    if isinstance(obj, Series):
        if obj.name is None:
            raise ValueError("Cannot merge a Series without a name")
        return obj.to_frame()
    raise TypeError(f"Can only merge Series or DataFrame objects, a {type(obj)} was passed")


def _as_list(value: Any) -> Any:
    """pandas' ``maybe_make_list``: None stays None, a list or tuple is the keys, anything else is one key."""
    if value is None or isinstance(value, list | tuple):
        return value
    return [value]


def _is_array_key(value: Any, n: int) -> bool:
    """An array-like key of length ``n`` (pandas treats it "as if it were a column")."""
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    arrays = (Series, Index, np.ndarray, pd.Series, pd.Index, pd.api.extensions.ExtensionArray)
    is_array = isinstance(value, arrays) or _device.is_device_array(value)
    return is_array and len(value) == n


def _array_column(value: Any, xp: Any) -> Column:
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    if isinstance(value, Series):
        return value._column
    if isinstance(value, Index):
        return value._as_column()
    return as_column(value, xp=xp)


class _Merge:
    """One merge: its specification (resolved in ``__init__``, where pandas' errors are raised) and its result."""

    def __init__(self, left: Any, right: Any, how: str, on: Any, left_on: Any, right_on: Any, left_index: Any,
                 right_index: Any, sort: bool, suffixes: Any, indicator: Any, validate: Any):  # fmt: skip
        if how not in joins.JOIN_TYPES and how != "asof":
            raise ValueError(f"'{how}' is not a valid Merge type: {_MERGE_TYPES}")
        if how == "asof":
            raise NotImplementedError("how='asof' is pandas' merge_asof: call riptide.merge_asof")
        self.orig_left, self.orig_right = left, right
        self.left, self.right = left, right
        self.how = how
        self.sort = bool(sort) or how == "outer"
        self.suffixes = suffixes
        self.indicator = indicator
        self.left_index, self.right_index = left_index, right_index
        self.left_on: list[Any] = []
        self.right_on: list[Any] = []
        self.left_keys: list[Column] = []
        self.right_keys: list[Column] = []
        self.join_names: list[Any] = []
        self.missing_last = False
        self._decode_after_gather: set[Any] = set()  # left categorical key columns decoded in the result
        if how == "cross":
            return
        if not isinstance(left_index, bool | np.bool_):
            raise ValueError(f"left_index parameter must be of type bool, not {type(left_index)}")  # noqa: TRY004
        if not isinstance(right_index, bool | np.bool_):
            raise ValueError(f"right_index parameter must be of type bool, not {type(right_index)}")  # noqa: TRY004
        self.on = _as_list(on)
        self.left_on, self.right_on = self._validate_left_right_on(_as_list(left_on), _as_list(right_on))
        self._resolve_keys()
        for index, flag in ((self.left._index, left_index), (self.right._index, right_index)):
            if flag and index.nlevels > 1:
                raise NotImplementedError("riptide cannot join on a MultiIndex yet; reset_index() and merge on "
                                          "the level columns instead")  # fmt: skip
        # Incompatible key dtypes raise here, before any work, as in pandas.
        names = self.join_names if self.left_keys else None
        if self.left_keys:
            self.comparable = joins.comparable_keys(self.left_keys, self.right_keys, names)
            self._decode_mismatched_categoricals()
        else:
            li, ri = self.left._index, self.right._index
            self.missing_last = self._index_join_order(li, ri, how)
            self.comparable = joins.comparable_keys([li._as_column()], [ri._as_column()], [li.name], strict=False,
                                                    missing_last=self.missing_last)  # fmt: skip
        if validate is not None:
            self._validate(validate)

    # --- specification -------------------------------------------------------------------------------------------
    def _validate_left_right_on(self, left_on: Any, right_on: Any) -> tuple[list[Any], list[Any]]:
        on = self.on
        if on is None and left_on is None and right_on is None:
            if self.left_index and self.right_index:
                return [], []
            if self.left_index:
                raise MergeError("Must pass right_on or right_index=True")
            if self.right_index:
                raise MergeError("Must pass left_on or left_index=True")
            common = [label for label in self.left._data if label in self.right._data]
            if not common:
                raise MergeError(f"No common columns to perform merge on. Merge options: left_on={left_on}, "
                                 f"right_on={right_on}, left_index={self.left_index}, "
                                 f"right_index={self.right_index}")  # fmt: skip
            return list(common), list(common)
        if on is not None:
            if left_on is not None or right_on is not None:
                raise MergeError('Can only pass argument "on" OR "left_on" and "right_on", not a combination of both.')
            if self.left_index or self.right_index:
                raise MergeError('Can only pass argument "on" OR "left_index" and "right_index", not a combination '
                                 "of both.")  # fmt: skip
            return list(on), list(on)
        if left_on is not None:
            if self.left_index:
                raise MergeError('Can only pass argument "left_on" OR "left_index" not both.')
            if not self.right_index and right_on is None:
                raise MergeError('Must pass "right_on" OR "right_index".')
            if self.right_index and right_on is not None:
                raise MergeError('Can only pass argument "right_on" OR "right_index" not both.')
            if self.right_index:
                if len(left_on) != self.right._index.nlevels:
                    raise ValueError('len(left_on) must equal the number of levels in the index of "right"')
                right_on = [None] * len(left_on)
        elif right_on is not None:
            if self.right_index:
                raise MergeError('Can only pass argument "right_on" OR "right_index" not both.')
            if not self.left_index and left_on is None:
                raise MergeError('Must pass "left_on" OR "left_index".')
            if self.left_index:
                if len(right_on) != self.left._index.nlevels:
                    raise ValueError('len(right_on) must equal the number of levels in the index of "left"')
                left_on = [None] * len(right_on)
        if len(right_on) != len(left_on):
            raise ValueError("len(right_on) must equal len(left_on)")
        return list(left_on), list(right_on)

    def _resolve_keys(self) -> None:
        """pandas' ``_get_merge_keys``: key columns, their names, and the right columns a shared key drops."""
        left, right = self.left, self.right
        n_left, n_right = len(left), len(right)
        xp = left._xp()

        def is_lkey(key: Any) -> bool:
            return _is_array_key(key, n_left)

        def is_rkey(key: Any) -> bool:
            return _is_array_key(key, n_right)

        right_drop: list[Any] = []
        any_left = any(k is not None for k in self.left_on)
        any_right = any(k is not None for k in self.right_on)
        if any_left and any_right:
            for lk, rk in zip(self.left_on, self.right_on):
                if is_lkey(lk):
                    self.left_keys.append(_array_column(lk, xp))
                    if is_rkey(rk):
                        self.right_keys.append(_array_column(rk, xp))
                        self.join_names.append(None)
                    else:
                        self.right_keys.append(_label_or_level_values(right, rk))
                        self.join_names.append(rk)
                    continue
                if is_rkey(rk):
                    self.right_keys.append(_array_column(rk, xp))
                else:
                    self.right_keys.append(_label_or_level_values(right, rk))
                    if lk is not None and _same_label(lk, rk):
                        right_drop.append(rk)
                self.left_keys.append(_label_or_level_values(left, lk))
                self.join_names.append(lk)
        elif any_left:
            for k in self.left_on:
                if is_lkey(k):
                    self.left_keys.append(_array_column(k, xp))
                    self.join_names.append(None)
                else:
                    self.left_keys.append(_label_or_level_values(left, k))
                    self.join_names.append(k)
            self.right_keys = list(right._index._key_columns())
        elif any_right:
            for k in self.right_on:
                if is_rkey(k):
                    self.right_keys.append(_array_column(k, xp))
                    self.join_names.append(None)
                else:
                    self.right_keys.append(_label_or_level_values(right, k))
                    self.join_names.append(k)
            self.left_keys = list(left._index._key_columns())
        if right_drop:
            self.right = _drop_labels_or_levels(right, right_drop)

    def _index_join_order(self, li: Any, ri: Any, how: str) -> bool:
        """Where an index-on-index join puts missing labels (True: last), following the path pandas'
        ``Index.join`` takes; may also drop ``sort`` where pandas finds the labels already sorted.

        Merges order NaT and missing categories first (ticks, codes). ``Index.join`` does too for non-unique
        indexes, but sorts labels (missing last) for two unique ones or one with an empty one, and takes a
        categorical whose codes never decrease (a missing code -1 counting as the smallest) as sorted already.
        """
        n_left, n_right = len(li), len(ri)
        if n_left and n_right and li.dtype != ri.dtype and how != "outer":
            self.sort = False  # pandas joins indexes of two dtypes through a cast, and drops ``sort`` on the way
        if not (dtypes.is_datetimelike(li.dtype) or dtypes.is_categorical(li.dtype)):
            return False
        if not dtypes.is_categorical(li.dtype):
            return n_left == 0 or n_right == 0 or (li.is_unique and ri.is_unique)
        left_sorted, right_sorted = _codes_sorted(li), _codes_sorted(ri)
        base = how.replace("_anti", "")
        if n_left == 0 or n_right == 0:
            if (right_sorted if n_left == 0 else left_sorted):
                self.sort = False  # the non-empty side is kept as it is
            return True
        if left_sorted and right_sorted and (li.is_unique or ri.is_unique):
            return False
        if li.is_unique and ri.is_unique:
            if base in ("left", "right") and (left_sorted if base == "left" else right_sorted):
                self.sort = False  # sort_values() keeps an index that is sorted already
            return True
        return False

    def _decode_mismatched_categoricals(self) -> None:
        """pandas compares a categorical key with a key of another dtype (or other categories) through its values,
        and the key *columns* of that name lose their categorical dtype in the result."""
        for name, lk, rk in zip(self.join_names, self.left_keys, self.right_keys):
            left_cat, right_cat = isinstance(lk, CategoricalColumn), isinstance(rk, CategoricalColumn)
            if not (left_cat or right_cat) or (left_cat and right_cat and lk.dtype == rk.dtype):
                continue
            if (lk.size == 0) != (rk.size == 0):
                continue  # pandas leaves keys alone when one side is empty
            for side in ("left", "right"):
                frame = getattr(self, side)
                column = frame._data.get(name) if _label_in(name, frame._data) else None
                if not isinstance(column, CategoricalColumn):
                    continue
                if side == "left" and self.how in ("inner", "left"):
                    # The left key column is only gathered here (never combined with the right's): decode the
                    # output rows' codes after the gather rather than every input row before it.
                    self._decode_after_gather.add(name)
                    continue
                decoded = {**frame._data, name: decode_categorical(column)}
                setattr(self, side, frame._with_columns(decoded))

    def _validate(self, validate: str) -> None:
        relation = _VALIDATE.get(validate) if isinstance(validate, str) else None
        if relation is None:
            raise ValueError(f'"{validate}" is not a valid argument. Valid arguments are:\n- "1:1"\n- "1:m"\n- "m:1"\n'
                             '- "m:m"\n- "one_to_one"\n- "one_to_many"\n- "many_to_one"\n- "many_to_many"')
        if relation == "m:m":
            return
        left_keys = self.orig_left._index._key_columns() if self.left_index else self.left_keys
        right_keys = self.orig_right._index._key_columns() if self.right_index else self.right_keys
        check_left, check_right = relation in ("1:1", "1:m"), relation in ("1:1", "m:1")
        left_dups = _duplicated_rows(left_keys) if check_left else None
        right_dups = _duplicated_rows(right_keys) if check_right else None
        left_unique = left_dups is None or left_dups.shape[0] == 0
        right_unique = right_dups is None or right_dups.shape[0] == 0
        if relation == "1:1" and not left_unique and not right_unique:
            raise MergeError("Merge keys are not unique in either left or right dataset; not a one-to-one merge."
                             + self._duplicates_message("left", left_keys, left_dups)
                             + self._duplicates_message("right", right_keys, right_dups))  # fmt: skip
        kind = {"1:1": "one-to-one", "1:m": "one-to-many", "m:1": "many-to-one"}[relation]
        if not left_unique:
            raise MergeError(f"Merge keys are not unique in left dataset; not a {kind} merge"
                             + self._duplicates_message("left", left_keys, left_dups))  # fmt: skip
        if not right_unique:
            separator = "\n" if relation == "m:1" else ""
            raise MergeError(f"Merge keys are not unique in right dataset; not a {kind} merge{separator}"
                             + self._duplicates_message("right", right_keys, right_dups))  # fmt: skip

    def _duplicates_message(self, side: str, keys: list[Column], duplicated: Any) -> str:
        """pandas' listing of (up to five) duplicated keys; only those rows come to the host."""
        shown = duplicated[:5]
        arrays = [key.take(shown).to_pandas_array() for key in keys]
        use_index = self.left_index if side == "left" else self.right_index
        if use_index:
            index = (self.orig_left if side == "left" else self.orig_right)._index
            names = index.names
            host = pd.MultiIndex.from_arrays(arrays, names=names) if len(arrays) > 1 else pd.Index(
                arrays[0], name=names[0])  # fmt: skip
            text = host.to_frame().to_string(index=False)
        else:
            labels = self.left_on if side == "left" else self.right_on
            host = pd.MultiIndex.from_arrays(arrays)
            try:
                text = host.to_frame(name=list(labels)).to_string(index=False)
            except (TypeError, ValueError):
                text = host.to_frame().to_string(index=False)
        return f"\nDuplicates in {side}:\n {text} ..."

    # --- result ----------------------------------------------------------------------------------------------
    def result(self) -> Any:
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.index import default_index

        left, right = self.left, self.right
        indicator_name = self._indicator_name()
        if indicator_name is not None:
            labels = set(left._data) | set(right._data)
            for reserved in ("_left_indicator", "_right_indicator"):
                if reserved in labels:
                    raise ValueError(f"Cannot use `indicator=True` option when data contains a column named {reserved}")
            if indicator_name in labels:
                raise ValueError("Cannot use name of an existing column for indicator column")
        left_labels, right_labels = _suffixed_labels(list(left._data), list(right._data), self.suffixes)

        lpos, rpos, join_index = self._indexers()
        n_out = int(lpos.shape[0])
        base_how = self.how.replace("_anti", "")
        # A left join (unsorted) with as many rows as the left side keeps every left row in place, once: no gather.
        # So does an inner join whose every left row found one right row (a lookup table's usual case).
        left_as_is = base_how == "left" and not self.sort and n_out == len(left)
        if self.how == "inner" and not self.sort and n_out == len(left) and not self.left_index:
            left_as_is = _is_identity(lpos, n_out)
        right_as_is = base_how == "right" and not self.sort and n_out == len(right)
        columns: dict[Hashable, Column] = {}
        # An inner join's positions are never -1: a plain gather, without take_or_missing's look for them.
        gather = (lambda column, positions: column.take(positions)) if self.how == "inner" else (
            lambda column, positions: column.take_or_missing(positions))  # fmt: skip
        # The keys decoded from categoricals first: decoding needs the most scratch memory of all the columns (a
        # string gather), which is best found before the other output columns exist.
        decoded = {label: decode_categorical(column if left_as_is else gather(column, lpos))
                   for label, column in left._data.items() if label in self._decode_after_gather}  # fmt: skip
        for label, new_label in zip(left._data, left_labels):
            column = left._data[label]
            if label in decoded:
                columns[new_label] = decoded.pop(label)
            else:
                columns[new_label] = column if left_as_is else gather(column, lpos)
        for label, new_label in zip(right._data, right_labels):
            column = right._data[label]
            columns[new_label] = column if right_as_is else gather(column, rpos)
        if indicator_name is not None:
            columns[indicator_name] = _indicator_column(lpos, rpos)
        columns = self._add_join_keys(columns, lpos, rpos)
        if join_index is None:
            join_index = default_index(n_out, _namespace(lpos))
        result = DataFrame._from_columns(columns, join_index)
        return self._restore_index_levels(result)

    def _indicator_name(self) -> str | None:
        indicator = self.indicator
        if not indicator:
            return None
        if isinstance(indicator, str):
            return indicator
        if isinstance(indicator, bool | np.bool_):
            return "_merge"
        raise ValueError("indicator option can only accept boolean or string arguments")

    def _row_bytes(self) -> int:
        """Estimated bytes per output row of the gathered columns (for the device-memory check)."""
        total = 0
        for frame in (self.left, self.right):
            for column in frame._data.values():
                total += -(-column.nbytes // max(column.size, 1)) if column.size else 8
        return int(total)

    def _indexers(self) -> tuple[Any, Any, Any]:
        """Left and right positions of each output row, and the result index (None: a RangeIndex)."""
        left, right, how = self.left, self.right, self.how
        row_bytes = self._row_bytes()
        if how == "cross":
            lpos, rpos = joins.join_indexers([_length_column(left)], [_length_column(right)], "cross",
                                             row_bytes=row_bytes)  # fmt: skip
            return lpos, rpos, None
        # The comparable keys (one int64 per row where categories were recoded) are not kept for the gathers.
        (lkeys, rkeys), self.comparable = self.comparable, None
        names = self.join_names if self.left_keys else None
        # An anti join is pandas' left (right) join restricted to the rows without a partner, index included.
        base_how = how.replace("_anti", "")
        lpos, rpos = joins.join_indexers(lkeys, rkeys, base_how, self.sort, names=names, strict=bool(self.left_keys),
                                         missing_last=self.missing_last, row_bytes=row_bytes)  # fmt: skip
        join_index = self._join_index(lpos, rpos, base_how)
        if base_how != how:
            from riptide.frame.index import Index

            keep = _namespace(lpos).flatnonzero((rpos if base_how == "left" else lpos) < 0)
            lpos, rpos = lpos[keep], rpos[keep]
            join_index = Index._from_column(NumericColumn(keep.astype(np.int64))) if join_index is None else (
                join_index.take(keep))  # fmt: skip
        return lpos, rpos, join_index

    def _join_index(self, lpos: Any, rpos: Any, how: str) -> Any:
        """The result index of a join on (one side's) index, as pandas builds it; None for a RangeIndex."""
        left_ax, right_ax = self.left._index, self.right._index
        if self.left_index and self.right_index:
            return _index_join_index(left_ax, right_ax, lpos, rpos, how)
        # One side's key is its index: pandas keeps the *other* side's index (missing where that side has no
        # row), except that a left join on the right index keeps the left index, and vice versa.
        if self.right_index:
            if how == "left" or len(self.left) > 0:
                return _take_labels(left_ax, lpos)
            return _take_labels(right_ax, rpos)
        if self.left_index:
            if how == "right" or len(self.right) > 0:
                return _take_labels(right_ax, rpos)
            return _take_labels(left_ax, lpos)
        return None

    def _add_join_keys(self, columns: dict[Hashable, Column], lpos: Any, rpos: Any) -> dict[Hashable, Column]:
        """pandas' ``_maybe_add_join_keys``: key columns of right/outer joins get the right key where the left is
        missing (and vice versa); keys that are not result columns (arrays, index levels) are inserted."""
        base_how = self.how.replace("_anti", "")
        memo: dict[str, Any] = {}

        def has_missing(positions: Any, side: str, possible: bool) -> bool:
            if not possible:
                return False
            if side not in memo:
                memo[side] = bool((positions < 0).any())  # one scalar read per side
            return memo[side]

        def unset() -> tuple[bool, bool]:
            if "unset" not in memo:
                memo["unset"] = self._unset_indexers(lpos, rpos, base_how)
            return memo["unset"]

        inserts: list[tuple[int, Hashable, Column]] = []
        for i, (name, lname, rname) in enumerate(zip(self.join_names, self.left_on, self.right_on)):
            if not _should_fill(lname, rname):
                continue
            if _label_in(name, columns):
                current = columns[name]
                # pandas re-derives the key from both sides where one side's rows are missing (or datetime units
                # differ), and leaves the column alone when no row moved at all (both its indexers unset).
                if _label_in(name, self.left._data):
                    other = self.right_keys[i]
                    needed = has_missing(lpos, "left", base_how in ("right", "outer"))
                    needed = needed or _resolution_cast(current, other)
                    if needed and unset() != (True, True):
                        columns[name] = _coalesce(self.left._data[name], other, lpos, rpos, *unset())
                elif _label_in(name, self.right._data):
                    other = self.left_keys[i]
                    needed = has_missing(rpos, "right", base_how in ("left", "outer"))
                    needed = needed or _resolution_cast(current, other)
                    if needed and unset() != (True, True):
                        columns[name] = _coalesce(other, self.right._data[name], lpos, rpos, *unset())
            else:
                label = name if name else f"key_{i}"
                inserts.append((i, label, _coalesce(self.left_keys[i], self.right_keys[i], lpos, rpos, *unset())))
        for position, label, column in inserts:
            if _label_in(label, columns):
                raise ValueError(f"cannot insert {label}, already exists")
            items = list(columns.items())
            items.insert(position, (label, column))
            columns = dict(items)
        return columns

    def _unset_indexers(self, lpos: Any, rpos: Any, how: str) -> tuple[bool, bool]:
        """Whether pandas' left / right indexer would be None ("every row once, in order") rather than an array.

        pandas' key columns depend on it (a key is re-derived only from indexers it has), so this reproduces
        where pandas' join paths return None: its general path does for an identity indexer, its shortcuts for
        empty sides, anti joins and a left join on the right index do not.
        """
        n_left, n_right, n_out = len(self.left), len(self.right), int(lpos.shape[0])
        if self.how != how:
            return False, False
        if self.right_index and not self.left_index and how == "left":
            return (not self.sort and n_out == n_left), False
        if self.left_index and not self.right_index and how == "right":
            return False, (not self.sort and n_out == n_right)
        if n_left == 0:
            if how in ("left", "inner") or (how == "right" and not self.sort):
                return False, False
        elif n_right == 0 and (how in ("right", "inner") or (how == "left" and not self.sort)):
            return False, False
        return _is_identity(lpos, n_left), _is_identity(rpos, n_right)

    def _restore_index_levels(self, result: Any) -> Any:
        """Keys named by index level on both sides become the result's index again (pandas'
        ``_maybe_restore_index_levels``)."""
        names = []
        for name, lk, rk in zip(self.join_names, self.left_on, self.right_on):
            if (_is_level_reference(self.orig_left, lk) and _is_level_reference(self.orig_right, rk)
                    and _same_label(lk, rk) and name not in result._index.names):  # fmt: skip
                names.append(name)
        if not names:
            return result
        from riptide.frame.index import Index

        level_columns = [result._data[name] for name in names]
        if len(names) == 1:
            index = Index._from_column(level_columns[0], names[0])
        else:
            from riptide.frame.multi_index import MultiIndex

            index = MultiIndex._from_columns(level_columns, names)
        remaining = {label: column for label, column in result._data.items() if label not in names}
        return result._with_columns(remaining, index)


# --- helpers: labels --------------------------------------------------------------------------------------------


def _same_label(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _label_in(label: Any, container: Any) -> bool:
    try:
        return label in container
    except TypeError:
        return False


def _should_fill(lname: Any, rname: Any) -> bool:
    """pandas fills a key column from the other side unless both keys are different string labels."""
    if not isinstance(lname, str) or not isinstance(rname, str):
        return True
    return lname == rname


def _is_level_reference(frame: Any, key: Any) -> bool:
    if key is None or not isinstance(key, Hashable) or _label_in(key, frame._data):
        return False
    return key in frame._index.names


def _label_or_level_values(frame: Any, key: Any) -> Column:
    """A column by label, or an index level by name (pandas' ``_get_label_or_level_values``)."""
    if key is None:
        return frame._index._key_columns()[0]
    if not isinstance(key, Hashable):
        raise TypeError(f"merge keys must be column labels, index level names or arrays of the frame's length; "
                        f"got {type(key).__name__}")  # fmt: skip
    if _label_in(key, frame._data):
        if key in frame._index.names:
            raise ValueError(f"'{key}' is both an index level and a column label, which is ambiguous.")
        return frame._data[key]
    if key in frame._index.names:
        return frame._index._key_columns()[frame._index.names.index(key)]
    raise KeyError(key)


def _drop_labels_or_levels(frame: Any, keys: list[Any]) -> Any:
    """``frame`` without these columns / index levels (a dropped index becomes a RangeIndex)."""
    from riptide.frame.index import default_index

    columns = {label: column for label, column in frame._data.items() if not any(_same_label(label, k) for k in keys)}
    levels = [k for k in keys if not _label_in(k, frame._data)]
    index = frame._index
    if levels:
        index = default_index(len(frame), frame._xp())
    return frame._with_columns(columns, index)


def _suffixed_labels(left: list[Any], right: list[Any], suffixes: Any) -> tuple[list[Any], list[Any]]:
    """pandas' ``_items_overlap_with_suffix``: overlapping labels get the suffixes; errors as pandas'."""
    if not pd.api.types.is_list_like(suffixes) or isinstance(suffixes, dict | set):
        raise TypeError(f"Passing 'suffixes' as a {type(suffixes)}, is not supported. Provide 'suffixes' as a tuple "
                        "instead.")  # fmt: skip
    right_set = set(right)
    overlap = [label for label in left if label in right_set]
    if not overlap:
        return left, right
    lsuffix, rsuffix = suffixes
    if not lsuffix and not rsuffix:
        raise ValueError(f"columns overlap but no suffix specified: {pd.Index(overlap)}")
    overlap_set = set(overlap)

    def rename(label: Any, suffix: Any) -> Any:
        return f"{label}{suffix}" if label in overlap_set and suffix is not None else label

    new_left = [rename(label, lsuffix) for label in left]
    new_right = [rename(label, rsuffix) for label in right]
    dups = []
    dups += [label for i, label in enumerate(new_left) if label in new_left[:i]]
    dups += [label for i, label in enumerate(new_right) if label in new_right[:i]]
    dups += [label for label in new_left if label in right_set and label not in overlap_set]
    dups += [label for label in new_right if label in set(left) and label not in overlap_set]
    if dups:
        raise MergeError(f"Passing 'suffixes' which cause duplicate columns {set(dups)} is not allowed.")
    repeated = [label for label in new_left if label in set(new_right)]
    if repeated:  # pandas would return duplicate column labels here; a riptide frame cannot hold them
        raise ValueError(f"riptide DataFrames need unique column labels; the suffixes {tuple(suffixes)} make "
                         f"{repeated} repeat. Pass suffixes that keep the labels apart.")  # fmt: skip
    return new_left, new_right


# --- helpers: columns and indexes ---------------------------------------------------------------------------------


def _namespace(array: Any) -> Any:
    from riptide import _device

    return _device.namespace_of(array)


def _length_column(frame: Any) -> Column:
    """A column of the frame's length (cross joins need only the lengths)."""
    if frame._data:
        return next(iter(frame._data.values()))
    return frame._index._as_column()


def _codes_sorted(index: Any) -> bool:
    """A categorical index whose codes never decrease (missing, -1, counting as the smallest)."""
    codes = index._as_column().codes
    return codes.shape[0] < 2 or bool((codes[1:] >= codes[:-1]).all())  # one scalar read


def _duplicated_rows(keys: list[Column]) -> Any:
    """Positions of the rows whose key (all columns together, nulls equal) appeared on an earlier row."""
    xp = keys[0].xp
    n = keys[0].size
    if n == 0:
        return xp.zeros(0, dtype=np.int64)
    groups = group_rows(list(keys), sort=False, dropna=False)
    if groups.n_groups == n:
        return xp.zeros(0, dtype=np.int64)
    first = groups.first_rows[groups.ids]
    return xp.flatnonzero(first != xp.arange(n, dtype=np.int64))


def _indicator_column(lpos: Any, rpos: Any) -> CategoricalColumn:
    """``left_only`` / ``right_only`` / ``both`` per output row, as pandas' categorical indicator."""
    xp = _namespace(lpos)
    codes = xp.where(rpos < 0, 0, xp.where(lpos < 0, 1, 2)).astype(np.int8)
    categories = as_column(["left_only", "right_only", "both"], xp=xp)
    return CategoricalColumn(codes, categories, False)


def _resolution_cast(current: Column, other_key: Column) -> bool:
    """pandas re-derives a datetime key when the two sides have different units."""
    a, b = current.dtype, other_key.dtype
    return dtypes.is_datetimelike(a) and dtypes.is_datetimelike(b) and a.kind == "M" and b.kind == "M" and a != b


def _coalesce(left: Column, right: Column, lpos: Any, rpos: Any, left_unset: bool, right_unset: bool) -> Column:
    """The key of each output row: the left row's where there is one, else the right row's.

    The dtype follows pandas: the right one when no row has a left key, the left one when no row has a right
    key, else the common dtype. ``*_unset``: pandas has no indexer for that side (every row once, in order).
    """
    xp = _namespace(lpos)
    n = int(lpos.shape[0])
    left_missing = lpos < 0
    if not left_unset and (n == 0 or bool(left_missing.all())):  # one scalar read: does the right supply every key
        return right.take(rpos)
    if not right_unset and (n == 0 or bool((rpos < 0).all())):  # one scalar read
        return left.take(lpos)
    first, second = _common_pair(left, right)
    if left_unset:
        return first.take(lpos)
    combined = concat_columns([first, second])
    return combined.take(xp.where(left_missing, left.size + rpos, lpos))


def _is_identity(positions: Any, n: int) -> bool:
    """``positions`` is ``0, 1, ..., n-1``."""
    if positions.shape[0] != n:
        return False
    if n == 0:
        return True
    xp = _namespace(positions)
    return bool((positions == xp.arange(n, dtype=positions.dtype)).all())  # one scalar read


def _common_pair(left: Column, right: Column) -> tuple[Column, Column]:
    """Both columns cast to pandas' common dtype (``find_common_type``), categoricals aligned."""
    ld, rd = left.dtype, right.dtype
    left_cat, right_cat = isinstance(left, CategoricalColumn), isinstance(right, CategoricalColumn)
    if left_cat and right_cat and ld == rd:
        return left, joins.align_categories(right, left.categories)
    if left_cat or right_cat:
        return _common_pair(decode_categorical(left) if left_cat else left,
                            decode_categorical(right) if right_cat else right)  # fmt: skip
    if ld == rd:
        return left, right
    if dtypes.is_datetimelike(ld) and dtypes.is_datetimelike(rd) and ld.kind == rd.kind:
        common = joins.common_time_dtype(ld, rd)  # tz-aware keys (the key check refused naive with aware)
        return astype(left, common), astype(right, common)
    numbers = dtypes.is_numeric_or_bool(ld) and dtypes.is_numeric_or_bool(rd)
    if numbers and (dtypes.to_numpy_dtype(ld).kind == "b") == (dtypes.to_numpy_dtype(rd).kind == "b"):
        common = dtypes.result_type(ld, rd)
        return astype(left, common) if ld != common else left, astype(right, common) if rd != common else right
    if isinstance(left, StringColumn) and isinstance(right, StringColumn):
        return left, right
    raise TypeError(f"cannot combine {ld} and {rd} keys in one column: pandas would make it an object column, "
                    "which riptide does not have; cast the keys to one dtype first")  # fmt: skip


def _take_labels(index: Any, positions: Any) -> Any:
    """``index`` at ``positions``; -1 gives a missing label (an int index becomes float64, as in pandas)."""
    from riptide.frame.index import Index

    if not bool((positions < 0).any()):  # one scalar read: a plain gather keeps the index type
        return index.take(positions)
    if index.nlevels > 1:
        from riptide.frame.multi_index import MultiIndex

        levels = [column.take_or_missing(positions) for column in index._key_columns()]
        return MultiIndex._from_columns(levels, index.names)
    return Index._from_column(index._as_column().take_or_missing(positions), index.name)


def _as_range_partner(index: Any, other: Any) -> Any:
    """pandas turns a small-int index joined with an empty RangeIndex (or joined empty with one) into a RangeIndex
    (int64) when its labels are equally spaced; the same labels, as int64, give the same result here."""
    from riptide.frame.index import RangeIndex

    dtype = index.dtype
    if not isinstance(other, RangeIndex) or isinstance(index, RangeIndex) or index.nlevels > 1:
        return index
    if not (isinstance(dtype, np.dtype) and dtype.kind == "i" and dtype != np.int64):
        return index
    values = index._as_column().data
    if values.shape[0] >= 2:
        steps = values[1:].astype(np.int64) - values[:-1].astype(np.int64)
        if not bool(((steps == steps[0]) & (steps != 0)).all()):  # one scalar read
            return index
    return index.astype(np.int64)


def _index_join_index(left: Any, right: Any, lpos: Any, rpos: Any, how: str) -> Any:
    """The result index of an index-on-index join, as pandas' ``Index.join`` builds it."""
    from riptide.frame.index import Index

    n_left, n_right = len(left), len(right)
    if n_left == 0 or n_right == 0:
        # pandas converts the right side, and the left side only when it alone is empty (measured on 3.1).
        left, right = (_as_range_partner(left, right) if n_left == 0 < n_right else left), _as_range_partner(right, left)
    left_tz, right_tz = getattr(left.dtype, "tz", None), getattr(right.dtype, "tz", None)
    if left_tz is not None and right_tz is not None and str(left_tz) != str(right_tz):
        # indexes of two time zones: pandas joins (and labels the result) in UTC, each side in its own unit
        left, right = (Index._from_column(astype(ax._as_column(), pd.DatetimeTZDtype(ax.dtype.unit, "UTC")), ax.name)
                       for ax in (left, right))  # fmt: skip
    base = how.replace("_anti", "")
    if base == "left":
        return _take_labels(left, lpos)
    if base == "right":
        return _take_labels(right, rpos)
    if n_left == 0 or n_right == 0:
        if base == "inner":
            return right if n_right == 0 else left
        return _take_labels(right, rpos) if n_left == 0 and n_right > 0 else _take_labels(left, lpos)
    first, second = _common_pair(left._as_column(), right._as_column())
    if base == "inner":
        return Index._from_column(first.take(lpos), left.name)
    return Index._from_column(_coalesce(first, second, lpos, rpos, False, False), left.name)


# --- DataFrame.join -----------------------------------------------------------------------------------------------


def _join(frame: Any, other: Any, on: Any, how: str, lsuffix: Any, rsuffix: Any, sort: bool, validate: Any,
          suffixes: Any) -> Any:  # fmt: skip
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    if lsuffix is not _NO_DEFAULT or rsuffix is not _NO_DEFAULT:
        if suffixes is not _NO_DEFAULT:
            raise ValueError("Cannot specify both 'suffixes' and 'lsuffix'/'rsuffix'.")
        warnings.warn("The 'lsuffix' and 'rsuffix' keywords in DataFrame.join are deprecated and will be removed in a "
                      "future version. Use the 'suffixes' keyword instead.", pd.errors.Pandas4Warning,
                      stacklevel=3)  # fmt: skip
        resolved = ("" if lsuffix is _NO_DEFAULT else lsuffix, "" if rsuffix is _NO_DEFAULT else rsuffix)
    elif suffixes is not _NO_DEFAULT:
        resolved = suffixes
    else:
        resolved = ("", "")
    if isinstance(other, Series):
        if other.name is None:
            raise ValueError("Other Series must have a name")
        other = other.to_frame()
    if isinstance(other, DataFrame):
        if how == "cross":
            return merge(frame, other, how=how, on=on, suffixes=resolved, sort=sort, validate=validate)
        return merge(frame, other, left_on=on, how=how, left_index=on is None, right_index=True, suffixes=resolved,
                     sort=sort, validate=validate)  # fmt: skip
    if on is not None:
        raise ValueError("Joining multiple DataFrames only supported for joining on index")
    if any(resolved):
        raise ValueError("Suffixes not supported when joining multiple DataFrames")
    frames = [frame, *(f.to_frame() if isinstance(f, Series) else f for f in other)]
    if all(f._index.is_unique for f in frames):
        return _align_on_index(frames, how, sort)
    joined = frames[0]
    for right in frames[1:]:
        joined = merge(joined, right, sort=sort, how=how, left_index=True, right_index=True, validate=validate)
    return joined


def _align_on_index(frames: list[Any], how: str, sort: bool) -> Any:
    """Several frames with unique indexes side by side, aligned on one target index (pandas' ``concat`` path of
    ``DataFrame.join`` with a list): the first frame's index (left), the last one's (right), their intersection
    in the first one's order (inner) or their sorted union (outer)."""
    from riptide.frame.dataframe import DataFrame

    labels = [label for f in frames for label in f._data]
    seen: set[Any] = set()
    overlap = [label for label in labels if label in seen or seen.add(label)]
    if overlap:
        raise ValueError(f"Indexes have overlapping values: {pd.Index(list(dict.fromkeys(overlap)))}")
    union_size = None
    if how in ("left", "right"):
        target = frames[0]._index if how == "left" else frames[-1]._index
        # pandas aligns every frame on the union of the indexes first, so a frame that lacks some label of
        # another one gets missing-capable columns (int64 -> float64) even where the target needs none.
        union = frames[0]._index
        for f in frames[1:]:
            lpos, rpos = _unique_index_join(union, f._index, "outer")
            union = _index_join_index(union, f._index, lpos, rpos, "outer")
        union_size = len(union)
    elif how == "inner":
        target = frames[0]._index
        for f in frames[1:]:
            lpos, _ = _unique_index_join(target, f._index, "inner")
            target = target.take(lpos)
    elif how == "outer":
        sort = True
        target = frames[0]._index
        for f in frames[1:]:
            lpos, rpos = _unique_index_join(target, f._index, "outer")
            target = _index_join_index(target, f._index, lpos, rpos, "outer")
    else:
        raise ValueError(f"'{how}' is not a valid Merge type: {_MERGE_TYPES}")
    if sort and how != "outer":
        order, _ = _unique_index_join(target, target, "inner", sort=True)
        target = target.take(order)
    if how in ("inner", "outer"):
        names = {f._index.name for f in frames}
        target = target.rename(names.pop() if len(names) == 1 else None)
    columns: dict[Hashable, Column] = {}
    for f in frames:
        if f._index is target and (union_size is None or union_size == len(target)):
            columns.update(f._data)
            continue
        _, positions = _unique_index_join(target, f._index, "left")
        n = int(positions.shape[0])
        if union_size is not None and union_size > len(f._index):
            # one extra missing row, sliced off again: the dtype pandas' alignment on the union gives
            xp = _namespace(positions)
            positions = xp.concatenate([positions, xp.full(1, -1, dtype=positions.dtype)])
        columns.update({label: column.take_or_missing(positions).slice(0, n, 1) for label, column in f._data.items()})
    return DataFrame._from_columns(columns, target)


def _unique_index_join(left: Any, right: Any, how: str, sort: bool = False) -> tuple[Any, Any]:
    """Join indexers of two unique indexes (missing labels match, NaT and missing categories sort last)."""
    if left.nlevels > 1 or right.nlevels > 1:
        raise NotImplementedError("riptide cannot join on a MultiIndex yet; reset_index() first")
    return joins.join_indexers([left._as_column()], [right._as_column()], how, sort, names=[left.name],
                               strict=False, missing_last=True)  # fmt: skip


class SeriesMergeMethods:
    """Mixed into ``Series`` (pandas' Series has no merge/join; a named Series is accepted by ``merge``)."""

    __slots__ = ()


class FrameMergeMethods:
    """Mixed into ``DataFrame``: ``merge`` and ``join``."""

    __slots__ = ()

    def merge(self, right: Any, how: str = "inner", on: Any = None, left_on: Any = None, right_on: Any = None,
              left_index: bool = False, right_index: bool = False, sort: bool = False,
              suffixes: Any = ("_x", "_y"), copy: Any = None, indicator: bool | str = False,
              validate: str | None = None) -> Any:  # fmt: skip
        """Join with ``right`` on columns, index levels or the index (see :func:`riptide.frame.merge.merge`).

        >>> import riptide as rt
        >>> a = rt.DataFrame({"k": ["x", "y"], "v": [1, 2]})
        >>> a.merge(rt.DataFrame({"k": ["y", "y"], "w": [3, 4]}), on="k").to_pandas()
           k  v  w
        0  y  2  3
        1  y  2  4
        """
        return merge(self, right, how=how, on=on, left_on=left_on, right_on=right_on, left_index=left_index,
                     right_index=right_index, sort=sort, suffixes=suffixes, copy=copy, indicator=indicator,
                     validate=validate)  # fmt: skip

    def join(self, other: Any, on: Any = None, how: str = "left", lsuffix: Any = _NO_DEFAULT,
             rsuffix: Any = _NO_DEFAULT, sort: bool = False, validate: str | None = None, *,
             suffixes: Any = _NO_DEFAULT) -> Any:  # fmt: skip
        """Join the columns of ``other`` (a DataFrame, a named Series or a list of them) on the index, or on
        ``on`` columns of this frame against ``other``'s index.

        >>> import riptide as rt
        >>> a = rt.DataFrame({"v": [1, 2, 3]}, index=["a", "b", "c"])
        >>> a.join(rt.DataFrame({"w": [10, 30]}, index=["a", "c"])).to_pandas()
           v     w
        a  1  10.0
        b  2   NaN
        c  3  30.0
        """
        return _join(self, other, on, how, lsuffix, rsuffix, sort, validate, suffixes)
