"""Selecting and setting rows: ``[]``, ``.iloc`` and ``.loc`` for Series and DataFrame.

Every key is first turned into one of three row selections, then applied once to all
columns:

* a ``slice`` of positions (a view: no copy, no device work);
* an integer array of positions (a gather);
* a boolean array (turned into positions once, then a gather per column). A mask that keeps every row is the
  slice of all rows instead: nothing is copied, and a RangeIndex stays one, as in pandas.

A DataFrame filtered by a mask gathers each column only when something first reads it
(:class:`_PendingTake`): ``df[mask][["a", "b"]]``, the usual way to filter and then pick columns, gathers
two columns, not every column of ``df``, so its peak memory is that of the columns it keeps. Only a mask that
keeps at least half the rows is applied so: until a column is read it holds its source column, and a source
at most twice the size of the filtered column is a fair price for a gather that may never be needed.

Setting values goes through :func:`set_rows`, which applies pandas 3's dtype rules
(NaN into int64 upcasts to float64; 1.5 into int64 raises TypeError).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn, as_column, is_scalar
from riptide.core.ops.cast import settable_scalar
from riptide.core.ops.missing import is_missing_scalar, where

__all__ = ["positions_from_key", "mask_rows", "RowSelection", "set_rows", "scalar_at", "ILocIndexer", "LocIndexer"]

# A mask's selection is gathered lazily by a frame when it keeps at least this share of the rows (module docstring).
_DEFER_MIN_KEPT = 0.5


class RowSelection:
    """Which rows a key picked: a positional ``slice`` or an int64 position array.

    ``from_mask``: the positions are a boolean mask's (a filter), which a frame may gather lazily
    (:meth:`apply_columns`).
    """

    __slots__ = ("slice", "positions", "scalar", "drop_levels", "from_mask")

    def __init__(self, slice_: slice | None = None, positions: Any = None, scalar: bool = False,
                 drop_levels: tuple[int, ...] = (), from_mask: bool = False):  # fmt: skip
        self.slice = slice_
        self.positions = positions
        self.scalar = scalar  # the key was one label/position: the result drops a dimension
        # MultiIndex levels that a key fixed to one label: the selected rows lose them (pandas' partial keys).
        self.drop_levels = drop_levels
        self.from_mask = from_mask

    @classmethod
    def of_slice(cls, start: int, stop: int, step: int, xp: Any) -> RowSelection:
        """Rows ``start:stop:step`` as normalized by ``slice.indices``.

        A backward slice becomes positions: its normalized stop may be -1 ("before row 0"),
        which Python slicing would read as "the last row".
        """
        if step > 0:
            return cls(slice(start, max(start, stop), step))
        return cls(positions=xp.arange(start, stop, step, dtype=np.int64))

    def apply_column(self, column: Column) -> Column:
        if self.slice is not None:
            return column.slice(self.slice.start, self.slice.stop, self.slice.step)
        return column.take(self.positions)

    def apply_columns(self, columns: dict[Any, Column]) -> dict[Any, Column]:
        """The selection applied to every column of a frame; a mask's positions (keeping at least half the rows)
        are gathered column by column on first read (see the module docstring)."""
        if not (self.from_mask and self.positions is not None and columns):
            return {label: self.apply_column(column) for label, column in columns.items()}
        n = next(iter(columns.values())).size
        if self.positions.shape[0] < _DEFER_MIN_KEPT * n:
            return {label: self.apply_column(column) for label, column in columns.items()}
        composed: dict[int, Any] = {}  # a filter of a filter: positions into the first source, once per source
        return {label: _pending_take(column, self.positions, composed) for label, column in columns.items()}

    def apply_index(self, index: Any) -> Any:
        if self.slice is not None:
            result = index._slice(self.slice.start, self.slice.stop, self.slice.step)
        else:
            result = index.take(self.positions)
        if self.drop_levels:
            result = result._keep_levels([i for i in range(index.nlevels) if i not in self.drop_levels])
        return result

    def as_mask(self, n: int, xp: Any) -> Any:
        """The selection as a bool array of length ``n``."""
        chosen = xp.zeros(n, dtype=bool)
        if self.slice is not None:
            chosen[self.slice] = True
        else:
            chosen[self.positions] = True
        return chosen


# --- columns gathered on first read --------------------------------------------------------------------------------


class _PendingTake:
    """Mixin of a column equal to ``source.take(positions)`` whose buffers are gathered when first read.

    The layout's buffer slots (``_BUFFERS``) stay unset until then: reading one finds no value, so Python calls
    ``__getattr__``, which gathers them all at once and lets go of the source and the positions. After that the
    column is an ordinary one of its layout, read at the speed of its slots. ``dtype``, ``size``, ``xp`` and the
    layout's other fields (categories, Arrow type) are known without gathering. Columns are never mutated, so a
    gather done later gives exactly what it would have given at once.
    """

    __slots__ = ()
    _LAYOUT: type
    _BUFFERS: tuple[str, ...]

    @classmethod
    def of(cls, source: Column, positions: Any) -> Column:
        column = object.__new__(cls)
        for name in _slots_of(cls._LAYOUT):
            if name not in cls._BUFFERS:
                object.__setattr__(column, name, getattr(source, name))
        column._source, column._positions = source, positions
        column._rows, column._namespace = int(positions.shape[0]), source.xp
        return column

    @property
    def is_pending(self) -> bool:
        """True until the rows have been gathered."""
        return self.deferred_take() is not None

    def deferred_take(self) -> tuple[Column, Any] | None:
        """``(source, positions)`` until the rows have been gathered, then None."""
        source, positions = getattr(self, "_source", None), getattr(self, "_positions", None)
        return None if source is None or positions is None else (source, positions)

    def __getattr__(self, name: str) -> Any:
        # Reached only for an attribute that is not set: a buffer not gathered yet (anything else is absent).
        if name in type(self)._BUFFERS:
            # Read once: another thread may gather the same column meanwhile (gathers are deterministic, so either
            # result is the one), and the buffers are set before the source is let go.
            source, positions = getattr(self, "_source", None), getattr(self, "_positions", None)
            if source is not None and positions is not None:
                taken = source.take(positions)
                for buffer in type(self)._BUFFERS:
                    object.__setattr__(self, buffer, getattr(taken, buffer))
                self._source = self._positions = None
            try:
                return object.__getattribute__(self, name)
            except AttributeError:
                pass
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def take(self, indices: Any, **kwargs: Any) -> Column:
        # Rows of rows not gathered yet come straight from the source: composing the positions (an int64 array of
        # the result's length) skips gathering this column first (db-benchmark q8 with missing values sorts a
        # filtered frame: its id6 was gathered twice).
        source, positions = getattr(self, "_source", None), getattr(self, "_positions", None)
        if source is not None and positions is not None:
            return source.take(positions[indices], **kwargs)
        return super().take(indices, **kwargs)  # type: ignore[misc]

    @property
    def size(self) -> int:
        rows = getattr(self, "_rows", None)
        return super().size if rows is None else rows  # type: ignore[misc]  # None: built by the layout's __init__

    @property
    def xp(self) -> Any:
        namespace = getattr(self, "_namespace", None)
        return super().xp if namespace is None else namespace  # type: ignore[misc]

    def __reduce__(self) -> Any:
        # A pickle (or copy) holds the gathered rows as the plain layout, never the source.
        layout = type(self)._LAYOUT
        return _rebuild_column, (layout, {name: getattr(self, name) for name in _slots_of(layout)})


class _PendingNumeric(_PendingTake, NumericColumn):
    __slots__ = ("_source", "_positions", "_rows", "_namespace")
    _LAYOUT, _BUFFERS = NumericColumn, ("data", "mask")


class _PendingString(_PendingTake, StringColumn):
    __slots__ = ("_source", "_positions", "_rows", "_namespace")
    _LAYOUT, _BUFFERS = StringColumn, ("offsets", "chars", "mask")


class _PendingCategorical(_PendingTake, CategoricalColumn):
    __slots__ = ("_source", "_positions", "_rows", "_namespace")
    _LAYOUT, _BUFFERS = CategoricalColumn, ("codes", "mask")


_PENDING = ((CategoricalColumn, _PendingCategorical), (StringColumn, _PendingString), (NumericColumn, _PendingNumeric))


def _slots_of(layout: type) -> list[str]:
    return [name for klass in layout.__mro__ for name in getattr(klass, "__slots__", ())]


def _rebuild_column(layout: type, fields: dict[str, Any]) -> Column:
    column = object.__new__(layout)
    for name, value in fields.items():
        object.__setattr__(column, name, value)
    return column


def _pending_take(column: Column, positions: Any, composed: dict[int, Any]) -> Column:
    """``column.take(positions)``, gathered on first read where the layout allows (others are gathered now).

    A column still pending from an earlier filter is not gathered for this one: its source is taken at the
    composed positions, computed once for all columns of that earlier filter (``composed``, by its positions).
    """
    pending = column.deferred_take()
    if pending is not None:
        column, earlier = pending
        if id(earlier) not in composed:
            composed[id(earlier)] = (earlier, earlier[positions])  # the earlier array is kept: its id stays its own
        positions = composed[id(earlier)][1]
    for layout, pending in _PENDING:
        if isinstance(column, layout):
            return pending.of(column, positions)
    return column.take(positions)


def take_composing(column: Column, positions: Any, composed: dict[int, Any]) -> Column:
    """``column.take(positions)`` for a reordering of a frame (a sort): a column still pending from a filter stays
    pending, at positions composed once per filter for all its columns (``composed``, shared by the calls for one
    frame); any other column is gathered now."""
    if column.deferred_take() is None:
        return column.take(positions)
    return _pending_take(column, positions, composed)


def take_index_composing(index: Any, positions: Any, composed: dict[int, Any]) -> Any:
    """``index.take(positions)`` after :func:`take_composing` of the frame's columns: a filtered RangeIndex's labels
    are the filter's positions themselves, so their gather is the composition the columns already made."""
    from riptide.frame.index import Index

    column = index._as_column() if type(index) is Index else None
    if type(column) is NumericColumn and column.mask is None and id(column.data) in composed:
        earlier, gathered = composed[id(column.data)]
        if earlier is column.data:
            return Index._from_column(NumericColumn(gathered, column.dtype), index.name)
    return index.take(positions)


def _is_bool_array(key: Any) -> bool:
    dtype = getattr(key, "dtype", None)
    if dtype is None:
        return False
    return dtype == bool or (dtypes.is_masked(dtype) and dtypes.to_numpy_dtype(dtype).kind == "b")


def _is_bool_list(key: Any) -> bool:
    return isinstance(key, list) and bool(key) and all(isinstance(k, bool | np.bool_) for k in key)


def positions_from_key(key: Any, n: int, xp: Any) -> Any:
    """Integer positions (int64, on ``xp``) for a list/array of positions or a bool mask of length ``n``."""
    from riptide.frame.series import Series

    if isinstance(key, Series):
        column = key._column
    elif isinstance(key, Column):
        column = key
    else:
        if isinstance(key, list) and len(key) == 0:
            return xp.zeros(0, dtype=np.int64)
        column = as_column(key, xp=xp)
    if column.dtype == bool or (dtypes.is_masked(column.dtype) and column.kind == "b"):
        if column.size != n:
            raise IndexError(f"Boolean index has wrong length: {column.size} instead of {n}")
        keep = column.values_or(False) if isinstance(column, NumericColumn) else column
        return xp.flatnonzero(keep)
    if not (isinstance(column, NumericColumn) and column.kind in "iu"):
        raise IndexError(f".iloc requires numeric indexers, got {column.dtype}")
    positions = column.data.astype(np.int64, copy=False)
    if positions.shape[0]:
        low, high = int(positions.min()), int(positions.max())
        if low < -n or high >= n:
            raise IndexError("positional indexers are out-of-bounds")
        if low < 0:
            positions = xp.where(positions < 0, positions + n, positions)
    return positions


def mask_rows(key: Any, n: int, xp: Any) -> RowSelection:
    """The rows a boolean mask of length ``n`` keeps: all of them as the slice of every row (no copy; a
    RangeIndex stays a RangeIndex, as pandas keeps it), else their positions, marked as a mask's.

    >>> import numpy as np
    >>> mask_rows(np.array([True, True]), 2, np).slice, mask_rows(np.array([False, True]), 2, np).positions
    (slice(0, 2, 1), array([1]))
    """
    positions = positions_from_key(key, n, xp)
    if positions.shape[0] == n:  # the count is known on the host already: flatnonzero sized its output
        return RowSelection(slice(0, n, 1))
    return RowSelection(positions=positions, from_mask=True)


def _normalize_position(key: Any, n: int) -> int:
    position = int(key)
    if not -n <= position < n:
        raise IndexError("single positional indexer is out-of-bounds")
    return position % n


def iloc_rows(key: Any, n: int, xp: Any) -> RowSelection:
    """The rows an ``.iloc`` row key picks."""
    if isinstance(key, bool | np.bool_):
        raise TypeError("Cannot index by location index with a non-integer key")
    if isinstance(key, int | np.integer):
        position = _normalize_position(key, n)
        return RowSelection(slice(position, position + 1, 1), scalar=True)
    if isinstance(key, slice):
        for bound in (key.start, key.stop, key.step):
            if bound is not None and not isinstance(bound, int | np.integer):
                raise TypeError(f"cannot do positional indexing with these indexers [{bound}] of type "
                                f"{type(bound).__name__}")  # fmt: skip
        return RowSelection.of_slice(*key.indices(n), xp=xp)
    if callable(key):
        raise TypeError("callables are applied by the indexer itself")
    if _is_bool_array(key) or _is_bool_list(key):
        return mask_rows(key, n, xp)
    return RowSelection(positions=positions_from_key(key, n, xp))


def loc_rows(key: Any, index: Any, xp: Any, frame: bool = False) -> RowSelection:
    """The rows a ``.loc`` row key picks (labels, label slices, lists, bool masks).

    ``frame``: the key is a DataFrame's row key, whose ``slice(None)`` parts keep every MultiIndex level (pandas).
    """
    from riptide.frame.series import Series

    n = len(index)
    if isinstance(key, slice):
        if index.nlevels > 1:
            return RowSelection.of_slice(*index._label_slice(key), xp=xp)
        return RowSelection.of_slice(*_label_slice(key, index), xp=xp)
    if isinstance(key, Series) and _is_bool_array(key):
        if not (key.index is index or key.index.equals(index)):
            key = key.reindex(index)
            if bool(key.isna().any()):
                raise pd.errors.IndexingError("Unalignable boolean Series provided as indexer (index of the boolean "
                                              "Series and of the indexed object do not match).")  # fmt: skip
        return mask_rows(key, n, xp)
    if _is_bool_array(key) or _is_bool_list(key):
        return mask_rows(key, n, xp)
    if is_scalar(key) or isinstance(key, tuple):
        location = index.get_loc(key)
        if isinstance(location, int):
            return RowSelection(slice(location, location + 1, 1), scalar=True)
        drop = _fixed_levels(key, index.nlevels, frame)
        if isinstance(location, slice):
            return RowSelection(location, drop_levels=drop)
        return RowSelection(positions=xp.flatnonzero(location), drop_levels=drop)
    return RowSelection(positions=index._positions_of_labels(key))


def _fixed_levels(key: Any, nlevels: int, frame: bool = False) -> tuple[int, ...]:
    """The MultiIndex levels a key fixes to one label, which pandas drops from the result: all of them for a
    partial key (fewer labels than levels), those given a scalar when other parts are lists or ``slice(None)``
    (a DataFrame keeps them all when a part is a slice), none for a full key of labels (its rows keep their whole
    labels)."""
    parts = key if isinstance(key, tuple) else (key,)
    if nlevels == 1 or (frame and any(isinstance(part, slice) for part in parts)):
        return ()
    fixed = tuple(i for i, part in enumerate(parts) if is_scalar(part))
    if len(fixed) == nlevels:
        return ()
    return fixed


def is_row_tuple(key: Any, index: Any) -> bool:
    """Whether a DataFrame's ``.loc`` tuple key is one label of its MultiIndex rather than (rows, columns).

    As pandas: a tuple without slices is first tried as a row label; one longer than two that is not found
    raises KeyError, a shorter one is read as (rows, columns).
    """
    if index.nlevels == 1 or not isinstance(key, tuple) or any(isinstance(k, slice | list) for k in key):
        return False
    try:
        index.get_loc(key)
    except KeyError:
        if 2 < len(key) <= index.nlevels:
            raise
        return False
    return True


def _label_slice(key: slice, index: Any) -> tuple[int, int, int]:
    """(start, stop, step) positions of a label slice; both ends are included, as in pandas."""
    if key.step is not None and not isinstance(key.step, int | np.integer):
        raise TypeError(f"slice step must be an integer, got {key.step!r}")
    step = 1 if key.step is None else int(key.step)
    n = len(index)
    if key.start is None and key.stop is None:
        return slice(None, None, step).indices(n)
    if not index.is_unique and not index.is_monotonic_increasing:
        raise KeyError(f"Cannot get left/right slice bound for non-unique, unsorted label: {key}")
    if index.is_monotonic_increasing and step > 0:
        start = 0 if key.start is None else _search(index, key.start, "left")
        stop = n if key.stop is None else _search(index, key.stop, "right")
        return start, max(stop, start), step
    start = 0 if step > 0 else n - 1
    stop = n if step > 0 else None
    if key.start is not None:
        start = index.get_loc(key.start)
    if key.stop is not None:
        stop_position = index.get_loc(key.stop)
        stop = stop_position + 1 if step > 0 else stop_position - 1
    if stop is not None and stop < 0:
        stop = None
    return slice(start, stop, step).indices(n)


def _search(index: Any, label: Any, side: str) -> int:
    """Insertion point of ``label`` in a sorted index."""
    from riptide.frame.index import RangeIndex

    if isinstance(index, RangeIndex):
        r = index._range
        value = (label - r.start) / r.step
        position = int(np.ceil(value)) if side == "left" else int(np.floor(value)) + 1
        return min(max(position, 0), len(r))
    column = index._as_column()
    xp = column.xp
    if isinstance(column, NumericColumn):
        probe = as_column([label], dtype=column.dtype, xp=xp) if not dtypes.is_datetimelike(column.dtype) else (
            as_column(pd.Series([pd.Timestamp(label) if column.dtype.kind == "M" else pd.Timedelta(label)]).astype(
                column.dtype), xp=xp))  # fmt: skip
        return int(xp.searchsorted(column.data, probe.data, side=side)[0])
    from riptide.core.ops.binary import binary_op

    below = binary_op(column, label, "lt" if side == "left" else "le")
    return int(below.values_or(False).sum())


def scalar_at(column: Column, position: int) -> Any:
    """The value at ``position`` boxed as pandas boxes it (np.int64, str, Timestamp, pd.NA, nan)."""
    dtype = column.dtype
    if isinstance(column, NumericColumn) and column.mask is None:
        raw = column.data[position].item()  # one scalar read, no column transfer
        if dtypes.is_datetimelike(dtype):
            return dtypes.box_datetime(raw, dtype)
        return dtypes.to_numpy_dtype(dtype).type(raw)
    value = column.slice(position, position + 1).to_pandas_array()[0]
    if dtypes.is_datetimelike(dtype):
        return pd.Timestamp(value) if dtype.kind == "M" else pd.Timedelta(value)
    return value


def set_rows(column: Column, selection: RowSelection, value: Any) -> Column:
    """A new column equal to ``column`` with the selected rows set to ``value`` (pandas 3 rules)."""
    xp = column.xp
    n = column.size
    chosen = selection.as_mask(n, xp)
    if is_scalar(value):
        other: Any = settable_scalar(column, value)
    else:
        values = value._column if hasattr(value, "_column") else as_column(value, xp=xp)
        count = _selection_size(selection, n)
        if count == 0:
            return column
        if values.size == count:
            # Spread the values onto the chosen rows; the other rows get values[0], which `where` discards.
            spread = xp.zeros(n, dtype=np.int64)
            if selection.slice is not None:
                spread[selection.slice] = xp.arange(count, dtype=np.int64)
            else:
                spread[selection.positions] = xp.arange(count, dtype=np.int64)
            other = values.take(spread)
        elif values.size == n:
            other = values
        else:
            raise ValueError(f"cannot set {count} rows from {values.size} values: lengths must match")
        if isinstance(other, NumericColumn) and isinstance(column, NumericColumn) and other.dtype != column.dtype:
            other = _cast_for_setting(other, column)
    _check_settable(column, other)
    result = where(column, ~chosen, other)
    if result.dtype != column.dtype and not bool(chosen.any()):
        return column  # nothing was set, so nothing is upcast (one scalar read, only when the dtype would change)
    _check_setitem_dtype(column, result, value)
    return result


def _check_settable(column: Column, value: Any) -> None:
    """Text columns take only text or missing values, as pandas 3's ``str`` dtype."""
    from riptide.core.column import StringColumn

    if isinstance(column, StringColumn) and is_scalar(value) and not isinstance(value, str) and (
            not is_missing_scalar(value)):  # fmt: skip
        raise TypeError(f"Invalid value '{value}' for dtype 'str'. Value should be a string or missing value, got "
                        f"'{type(value).__name__}' instead.")  # fmt: skip
    if isinstance(column, StringColumn) and isinstance(value, Column) and not isinstance(value, StringColumn):
        raise TypeError(f"Invalid value for dtype 'str': values of dtype {value.dtype} are not strings")


def _selection_size(selection: RowSelection, n: int) -> int:
    if selection.slice is not None:
        return len(range(*selection.slice.indices(n)))
    return int(selection.positions.shape[0])


def _cast_for_setting(other: NumericColumn, column: NumericColumn) -> Column:
    """Values set into an int column keep its dtype when they are whole numbers (as pandas)."""
    if column.kind in "iu" and other.kind == "f" and not dtypes.is_masked(other.dtype):
        data = other.data
        xp = other.xp
        whole = xp.isnan(data) | (data == xp.floor(data))
        if bool(whole.all()) and not bool(xp.isnan(data).any()):
            return NumericColumn(data.astype(column.data.dtype))
    return other


def _check_setitem_dtype(before: Column, after: Column, value: Any) -> None:
    if after.dtype == before.dtype:
        return
    if isinstance(before, NumericColumn) and before.kind in "iub" and is_missing_scalar(value):
        return  # pandas upcasts int64 to float64 for NaN (and bool to object; riptide: boolean)
    shown = value if is_scalar(value) else "array"
    raise TypeError(f"Invalid value '{shown}' for dtype '{before.dtype}'")


def callable_key(key: Any, obj: Any) -> Any:
    return key(obj) if callable(key) else key


class ILocIndexer:
    """``obj.iloc[rows]`` / ``obj.iloc[rows, cols]`` and assignment."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any):
        self._obj = obj

    def __getitem__(self, key: Any) -> Any:
        return self._obj._iloc_get(key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._obj._iloc_set(key, value)


class LocIndexer:
    """``obj.loc[labels]`` / ``obj.loc[labels, columns]`` and assignment."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any):
        self._obj = obj

    def __getitem__(self, key: Any) -> Any:
        return self._obj._loc_get(key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._obj._loc_set(key, value)

