"""Row labels: ``Index`` (backed by a column) and ``RangeIndex`` (start/stop/step, no data).

Label lookups (``get_loc``, ``get_indexer``) and alignment (``union``) run on the device:
labels are factorized together with the index and matched by sorted search, never
looped over in Python. A missing label matches a missing label (NaN finds NaN), as in pandas.

Labels no riptide column holds as pandas has them -- ``None`` labels (pandas keeps ``Index([None])`` as
objects) and labels of mixed kinds (``[1, "a"]``, the columns of a frame whose labels mix types) -- are kept
as a small pandas Index on the host (:class:`~riptide.core.column.categorical.HostCategories`), like column
labels: lookups on them run in pandas and hand positions to the device.

>>> import riptide as rt
>>> idx = rt.Index(["a", "b", "c"], name="key")
>>> idx.get_loc("b")
1
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn, as_column, concat_columns, is_scalar
from riptide.core.column.categorical import HostCategories
from riptide.core.kernels.factorize import factorize
from riptide.core.ops.cast import concat_common
from riptide.core.kernels.segments import row_of_each_element
from riptide.core.kernels.sort import stable_argsort

__all__ = ["Index", "RangeIndex", "as_index", "default_index"]


class Index:
    """Immutable sequence of labels, backed by a column.

    Parameters
    ----------
    data : array-like
        Labels (list, NumPy/CuPy array, pandas Index/Series, riptide Series/Index).
    dtype : dtype, optional
    name : hashable, optional
    """

    __slots__ = ("_column", "name")

    def __init__(self, data: Any = None, dtype: Any = None, name: Any = None, copy: bool = False):
        if isinstance(data, Index):
            column = data._as_column()
            name = data.name if name is None else name
        else:
            from riptide.frame.series import Series

            if isinstance(data, Series):
                name = data.name if name is None else name
                data = data._column
            elif isinstance(data, pd.Index | pd.Series) and name is None:
                name = data.name
            column = _label_column_of(data, dtype)
        self._column = column.copy() if copy else column
        self.name = name

    @classmethod
    def _from_column(cls, column: Column, name: Any = None) -> Index:
        index = object.__new__(cls)
        index._column = column
        index.name = name
        return index

    # --- facts ---------------------------------------------------------------------------
    def _as_column(self) -> Column:
        return self._column

    def _key_columns(self) -> list[Column]:
        """The label columns, one per level (a MultiIndex has several): what sorting, grouping and joining
        on the index use."""
        return [self._as_column()]

    @property
    def _namespace(self) -> Any:
        """numpy or cupy: where the labels live (a RangeIndex answers without materializing; host labels answer
        with the default device, where the rows they label live)."""
        if isinstance(self._column, HostCategories):
            return _device.xp()
        return self._column.xp

    def _host_labels(self) -> pd.Index | None:
        """The labels as a pandas Index when they are kept on the host (object labels), else None."""
        column = self._as_column()
        return column.index if isinstance(column, HostCategories) else None

    def __len__(self) -> int:
        return self._column.size

    @property
    def size(self) -> int:
        return len(self)

    @property
    def shape(self) -> tuple[int]:
        return (len(self),)

    @property
    def dtype(self) -> Any:
        return self._as_column().dtype

    @property
    def empty(self) -> bool:
        return len(self) == 0

    @property
    def names(self) -> list[Any]:
        return [self.name]

    @property
    def nlevels(self) -> int:
        return 1

    def _level_number(self, level: Any) -> int:
        """0 for this index's one level, given by name or as 0 / -1 (pandas' errors otherwise)."""
        if isinstance(level, int | np.integer) and not isinstance(level, bool) and level != self.name:
            if level < -1:
                raise IndexError(f"Too many levels: Index has only 1 level, {level} is not a valid level number")
            if level > 0:
                raise IndexError(f"Too many levels: Index has only 1 level, not {level + 1}")
            return 0
        if level != self.name:
            raise KeyError(f"Requested level ({level}) does not match index name ({self.name})")
        return 0

    def _level_numbers(self, level: Any) -> list[int]:
        """Level numbers of one level or a list of them (a tuple is one name, as a label)."""
        levels = [level] if is_scalar(level) or isinstance(level, str | tuple) else list(level)
        return [self._level_number(lev) for lev in levels]

    def get_level_values(self, level: Any) -> Index:
        self._level_number(level)
        return self

    def droplevel(self, level: Any = 0) -> Index:
        self._level_numbers(level)
        raise ValueError("Cannot remove 1 levels from an index with 1 levels: at least one level must be left.")

    def _keep_levels(self, numbers: list[int]) -> Index:
        """The index made of these levels, in this order (a flat index has only level 0)."""
        return self

    @property
    def nbytes(self) -> int:
        return self._as_column().nbytes

    def memory_usage(self, deep: bool = False) -> int:
        return self.nbytes

    @property
    def is_unique(self) -> bool:
        host = self._host_labels()
        if host is not None:
            return bool(host.is_unique)
        column = self._as_column()
        _, n_distinct = factorize(column)
        missing = int(column.isna().sum()) if column.can_hold_missing() else 0
        return n_distinct + min(missing, 1) == len(self) and missing <= 1

    @property
    def is_monotonic_increasing(self) -> bool:
        host = self._host_labels()
        return bool(host.is_monotonic_increasing) if host is not None else _is_monotonic(self._as_column(), True)

    @property
    def is_monotonic_decreasing(self) -> bool:
        host = self._host_labels()
        return bool(host.is_monotonic_decreasing) if host is not None else _is_monotonic(self._as_column(), False)

    @property
    def values(self) -> Any:
        """Labels as a CuPy array on the GPU (NumPy on the CPU), like ``Series.values``."""
        from riptide.frame.series import Series

        return Series._from_column(self._as_column(), default_index(len(self))).values

    # --- conversion ----------------------------------------------------------------------
    def to_pandas(self) -> pd.Index:
        return pd.Index(self._as_column().to_pandas_array(), name=self.name, copy=False)

    def to_numpy(self, dtype: Any = None, na_value: Any = None) -> np.ndarray:
        return self.to_pandas().to_numpy(dtype=dtype, na_value=na_value if na_value is not None else (
            pd.api.extensions.no_default))  # fmt: skip

    def to_arrow(self) -> Any:
        return self._as_column().to_arrow()

    def tolist(self) -> list[Any]:
        return self.to_pandas().tolist()

    to_list = tolist

    def __iter__(self):
        return iter(self.tolist())

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.asarray(self.to_numpy(), dtype=dtype)

    def to_series(self, index: Any = None, name: Any = None) -> Any:
        from riptide.frame.series import Series

        return Series._from_column(self._as_column(), self if index is None else as_index(index),
                                   self.name if name is None else name)  # fmt: skip

    def __repr__(self) -> str:
        n = len(self)
        if n <= 100:
            return repr(self.to_pandas())
        # Only the shown labels travel to the host: pandas' long-Index layout with the real length.
        head, tail = self._slice(0, 5, 1).to_pandas(), self._slice(n - 5, n, 1).to_pandas()
        shown = ", ".join([*map(repr, head.tolist()), "...", *map(repr, tail.tolist())])
        name = f", name={self.name!r}" if self.name is not None else ""
        return f"Index([{shown}], dtype='{self.dtype}'{name}, length={n})"

    # --- derived indexes -----------------------------------------------------------------
    def copy(self, name: Any = None, deep: bool = False) -> Index:
        column = self._as_column()
        return Index._from_column(column.copy() if deep else column, self.name if name is None else name)

    def rename(self, name: Any) -> Index:
        return self.copy(name=name)

    def set_names(self, names: Any) -> Index:
        return self.rename(names[0] if isinstance(names, list | tuple) else names)

    def astype(self, dtype: Any) -> Index:
        from riptide.core.ops.cast import astype

        host = self._host_labels()
        if host is not None:
            return Index(host.astype(dtype), name=self.name)
        return Index._from_column(astype(self._as_column(), dtype), self.name)

    def take(self, positions: Any) -> Index:
        """Labels at integer ``positions`` (an array on the column's device)."""
        return Index._from_column(self._as_column().take(positions), self.name)

    def _slice(self, start: int, stop: int, step: int) -> Index:
        return Index._from_column(self._as_column().slice(start, stop, step), self.name)

    def _label_at(self, position: int) -> Any:
        """The label at a non-negative position, boxed as pandas boxes it (np.int64, str, Timestamp)."""
        from riptide.frame.indexing import scalar_at

        return scalar_at(self._as_column(), position)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, int | np.integer):
            n = len(self)
            if not -n <= key < n:
                raise IndexError(f"index {key} is out of bounds for axis 0 with size {n}")
            return self._label_at(int(key) % n)
        from riptide.frame.indexing import RowSelection, positions_from_key

        if isinstance(key, slice):
            return RowSelection.of_slice(*key.indices(len(self)), xp=self._namespace).apply_index(self)

        return self.take(positions_from_key(key, len(self), self._namespace))

    def equals(self, other: Any) -> bool:
        """Same labels in the same order (names and RangeIndex-vs-Index do not matter)."""
        if self is other:
            return True
        if not isinstance(other, Index) or len(self) != len(other):
            return False
        if len(self) == 0:
            return True
        if isinstance(self, RangeIndex) and isinstance(other, RangeIndex):
            return self._range_equals(other)
        if self._host_labels() is not None or other._host_labels() is not None:
            return bool(self.to_pandas().equals(other.to_pandas()))
        left, right = self._as_column(), other._as_column()
        if dtypes.is_string(left.dtype) != dtypes.is_string(right.dtype):
            return False
        from riptide.core.ops.binary import binary_op

        try:
            same = binary_op(left, right, "eq")
        except TypeError:
            return False
        both_missing = left.isna() & right.isna()
        return bool((same.values_or(False) | both_missing).all())

    @property
    def str(self) -> Any:
        """Vectorised string methods of string labels (results as an Index, a boolean array or a MultiIndex, as
        pandas gives them); AttributeError for other labels, as pandas.

        >>> import riptide as rt
        >>> rt.Index(["x_1", "y_22"]).str.len().tolist()
        [3, 4]
        """
        from riptide.frame.string_accessor import IndexStringMethods

        return IndexStringMethods(self)

    def isin(self, values: Any) -> Any:
        from riptide.frame.series import Series

        host = self._host_labels()
        if host is not None:
            return _device.to_device(np.asarray(host.isin(values), dtype=bool), self._namespace)
        return Series._from_column(self._as_column(), default_index(len(self))).isin(values).values

    def min(self, axis: Any = None, skipna: bool = True, *args: Any, **kwargs: Any) -> Any:
        """The smallest label (missing labels skipped, or the answer when ``skipna=False``)."""
        return self._extremum("min", axis, skipna)

    def max(self, axis: Any = None, skipna: bool = True, *args: Any, **kwargs: Any) -> Any:
        """The largest label (missing labels skipped, or the answer when ``skipna=False``).

        >>> import riptide as rt
        >>> rt.Index([3.0, None, 5.0]).max(), rt.Index([3.0, None, 5.0]).max(skipna=False)
        (np.float64(5.0), np.float64(nan))
        """
        return self._extremum("max", axis, skipna)

    def _extremum(self, how: str, axis: Any, skipna: bool) -> Any:
        if axis not in (None, 0, "index", "rows"):
            raise ValueError(f"`axis` must be fewer than the number of dimensions (1), got {axis!r}")
        host = self._host_labels()
        if host is not None:
            return getattr(host, how)(skipna=skipna)
        return getattr(self.to_series(), how)(skipna=skipna)

    # --- missing labels ------------------------------------------------------------------
    def isna(self) -> Any:
        """A bool array (on the labels' device), True where the label is missing.

        >>> import riptide as rt
        >>> rt.Index([1.0, None, 3.0]).isna().tolist()
        [False, True, False]
        """
        if self.nlevels > 1:
            raise NotImplementedError("isna is not defined for MultiIndex")
        host = self._host_labels()
        if host is not None:
            return _device.to_device(np.asarray(host.isna(), dtype=bool), self._namespace)
        return self._as_column().isna()

    isnull = isna

    def notna(self) -> Any:
        """A bool array (on the labels' device), True where the label is present."""
        return ~self.isna()

    notnull = notna

    @property
    def ndim(self) -> int:
        return 1

    def to_frame(self, index: bool = True, name: Any = pd.api.extensions.no_default) -> Any:
        """The labels as a one-column DataFrame, indexed by themselves (or by 0..n-1 with ``index=False``); the
        column is named ``name``, else the index's name, else 0.

        >>> import riptide as rt
        >>> rt.Index([1, 2], name="x").to_frame(index=False).columns.tolist()
        ['x']
        """
        from riptide.frame.dataframe import DataFrame

        if name is pd.api.extensions.no_default:
            name = 0 if self.name is None else self.name
        rows = self if index else default_index(len(self), self._namespace)
        return DataFrame._from_columns({name: self._as_column()}, rows)

    # --- sorted search -------------------------------------------------------------------
    def searchsorted(self, value: Any, side: str = "left", sorter: Any = None) -> Any:
        """Positions where ``value`` would be inserted to keep these (sorted) labels sorted, as
        ``Series.searchsorted``."""
        from riptide.frame.sorting import searchsorted

        host = self._host_labels()
        if host is not None:
            found = host.searchsorted(value, side=side, sorter=sorter)
            return found if np.ndim(found) == 0 else _device.to_device(np.asarray(found), self._namespace)
        return searchsorted(self._as_column(), value, side, sorter)

    def get_slice_bound(self, label: Any, side: str) -> int:
        """The slice bound of ``label``: its first position (``side="left"``) or one past its last
        (``"right"``); where it would be inserted when it is absent from a monotonic index.

        >>> import riptide as rt
        >>> rt.Index([1, 3, 3, 5]).get_slice_bound(3, "right"), rt.Index([1, 3, 5]).get_slice_bound(4, "left")
        (3, 2)
        """
        if side not in ("left", "right"):
            raise ValueError(f"Invalid value for side kwarg, must be either 'left' or 'right': {side}")
        if self.is_monotonic_increasing:
            return int(self.searchsorted(label, side=side))
        if self.is_monotonic_decreasing:
            # the reversed labels increase: a bound there, counted from the end
            flipped = self[::-1]
            return len(self) - int(flipped.searchsorted(label, side="right" if side == "left" else "left"))
        found = self.get_loc(label)
        if isinstance(found, int | np.integer):
            return int(found) + (side == "right")
        if isinstance(found, slice):
            return found.start if side == "left" else found.stop
        positions = _device.to_host(self._namespace.flatnonzero(found))  # a few positions of the label
        if positions.shape[0] != positions[-1] - positions[0] + 1:
            raise KeyError(f"Cannot get {side} slice bound for non-unique label: {label!r}")
        return int(positions[0]) if side == "left" else int(positions[-1]) + 1

    # --- label lookup --------------------------------------------------------------------
    def get_loc(self, label: Any) -> int | slice | Any:
        """Position of ``label``: an int when unique, else a bool mask of its rows; KeyError if absent."""
        host = self._host_labels()
        if host is not None:
            location = host.get_loc(label)
            return location if isinstance(location, int | slice) else _device.to_device(location, self._namespace)
        column = self._as_column()
        if _is_missing_label(label):  # NaN finds the missing labels, as in pandas
            hits = column.isna()
        else:
            try:
                from riptide.core.ops.binary import binary_op

                hits = binary_op(column, label, "eq").values_or(False)
            except TypeError:
                raise KeyError(label) from None
        positions = column.xp.flatnonzero(hits)
        count = int(positions.shape[0])
        if count == 0:
            raise KeyError(label)
        if count == 1:
            return int(positions[0])
        return hits

    def get_indexer(self, target: Any) -> Any:
        """For each label of ``target``, its position here or -1 (this index must be unique)."""
        target_column = _label_column(target, self._as_column().xp)
        positions, counts, _, _ = self._match(target_column)
        if bool((counts > 1).any()):
            raise pd.errors.InvalidIndexError("Reindexing only valid with uniquely valued Index objects")
        return positions

    def _positions_of_labels(self, labels: Any) -> Any:
        """All positions of each label in ``labels`` (duplicates expand), KeyError naming missing ones."""
        xp = self._as_column().xp
        target_column = _label_column(labels, xp)
        first, counts, order, start_slot = self._match(target_column)
        absent = counts == 0
        if bool(absent.any()):
            missing_labels = Index._from_column(target_column.filter(absent)).tolist()
            if bool(absent.all()):
                raise KeyError(f"None of [{Index._from_column(target_column).to_pandas()}] are in the [index]")
            raise KeyError(f"{missing_labels} not in index")
        if bool((counts == 1).all()):
            return first
        return _expand_matches(order, start_slot, counts, xp)

    def _match(self, target: Column) -> tuple[Any, Any, Any, Any]:
        """Match target labels against this index.

        Returns the first position of each label (-1 if absent), how many rows match it, the
        stable sort order of this index and each label's first slot in that order.
        """
        column = self._as_column()
        xp = self._namespace
        if column.size == 0 or target.size == 0:
            none = xp.full(target.size, -1, dtype=np.int64)
            return none, xp.zeros(target.size, dtype=np.int64), xp.zeros(0, dtype=np.int64), none
        if isinstance(column, HostCategories) or isinstance(target, HostCategories):
            return _match_on_host(column, target, xp)
        try:
            combined = concat_common(column, target)
        except TypeError:  # labels of another kind (strings looked up in numbers) match nothing
            none = xp.full(target.size, -1, dtype=np.int64)
            return none, xp.zeros(target.size, dtype=np.int64), xp.zeros(0, dtype=np.int64), none
        codes, n_distinct = factorize(combined)
        # pandas finds a missing label among missing labels (NaN matches NaN): missing values get a code too
        codes = xp.where(codes < 0, n_distinct, codes)
        return _match_codes(codes[: column.size], codes[column.size :], xp)

    def union(self, other: Index, sort: bool | None = None) -> Index:
        """Distinct labels of both, sorted (as pandas' union with ``sort=None`` when sortable)."""
        if self.equals(other):
            return self
        if self._host_labels() is not None or other._host_labels() is not None:
            return as_index(self.to_pandas().union(other.to_pandas(), sort=sort))
        combined = concat_common(self._as_column(), other._as_column())
        codes, _ = factorize(combined)
        xp = combined.xp
        valid = codes >= 0
        # unique() returns the codes sorted, with the first row holding each: the sorted distinct labels.
        _, first_row = xp.unique(codes[valid], return_index=True)
        first_row = xp.flatnonzero(valid)[first_row]
        name = self.name if self.name == other.name else None
        result = combined.take(first_row)  # codes are in sorted label order, so this is sorted
        if bool((~valid).any()):
            result = concat_columns([result, combined.take(xp.flatnonzero(~valid)[:1])])
        return Index._from_column(result, name)


def _label_column_of(data: Any, dtype: Any) -> Column:
    """The column of an Index's labels: a device column, or the labels kept on the host where pandas keeps
    them as Python objects (all ``None``; mixed kinds, which no column type holds)."""
    if data is None:
        return as_column([], dtype=dtype)
    if dtype is None and _all_none_labels(data):
        return HostCategories(pd.Index(list(data), dtype=object))
    try:
        return as_column(data, dtype=dtype)
    except TypeError:
        if dtype is not None or isinstance(data, pd.MultiIndex):
            raise
        labels = data if isinstance(data, pd.Index) else pd.Index(list(data) if not isinstance(
            data, pd.Series | np.ndarray) else data)  # fmt: skip
        if labels.dtype != object:
            raise
        return HostCategories(labels)


def _is_missing_label(label: Any) -> bool:
    return label is None or label is pd.NA or label is pd.NaT or (isinstance(label, float | np.floating) and
                                                                   bool(np.isnan(label)))  # fmt: skip


def _all_none_labels(data: Any) -> bool:
    """Host labels that are all missing, ``None`` among them: pandas keeps those as objects, not NaN floats."""
    if isinstance(data, pd.Index) and not isinstance(data, pd.MultiIndex):
        if data.dtype != object or len(data) == 0:
            return False
        values = list(data)
    elif isinstance(data, list | tuple) and data:
        values = data
    else:
        return False
    return any(v is None for v in values) and all(v is None or (isinstance(v, float) and v != v) for v in values)


def _match_on_host(column: Column, target: Column, xp: Any) -> tuple[Any, Any, Any, Any]:
    """``Index._match`` where either side holds host labels: pandas numbers both sides' labels (missing labels
    sharing one number), the device matches the numbers."""
    own = _host_index(column)
    wanted = _host_index(target)
    codes, _ = pd.factorize(own.append(wanted), use_na_sentinel=False)
    codes = _device.to_device(np.asarray(codes, dtype=np.int64), xp)
    return _match_codes(codes[: len(own)], codes[len(own) :], xp)


def _host_index(column: Column) -> pd.Index:
    if isinstance(column, HostCategories):
        return pd.Index(column.index, dtype=object)
    return pd.Index(column.to_pandas_array(), dtype=object)


def _match_codes(own: Any, wanted: Any, xp: Any) -> tuple[Any, Any, Any, Any]:
    """Match ``wanted`` codes against ``own`` codes (one numbering; -1 matches nothing): as ``Index._match``."""
    order = stable_argsort(own, xp)
    sorted_codes = own[order]
    left = xp.searchsorted(sorted_codes, wanted, side="left")
    right = xp.searchsorted(sorted_codes, wanted, side="right")
    counts = xp.where(wanted < 0, 0, right - left)  # a missing label matches nothing
    first = xp.where(counts > 0, order[xp.minimum(left, own.shape[0] - 1)], -1)
    return first, counts, order, left


def _label_column(labels: Any, xp: Any) -> Column:
    if isinstance(labels, Index):
        return labels._as_column()
    from riptide.frame.series import Series

    if isinstance(labels, Series):
        return labels._column
    if is_scalar(labels):
        labels = [labels]
    return as_column(labels, xp=xp)


def _expand_matches(order: Any, start_slot: Any, counts: Any, xp: Any) -> Any:
    """Positions of every match: label i matches the ``counts[i]`` sorted slots from ``start_slot[i]``."""
    offsets = xp.zeros(counts.shape[0] + 1, dtype=np.int64)
    xp.cumsum(counts, out=offsets[1:])
    label_of = row_of_each_element(offsets, xp)
    within = xp.arange(label_of.shape[0], dtype=np.int64) - offsets[:-1][label_of]
    return order[start_slot[label_of] + within]


def _is_monotonic(column: Column, increasing: bool) -> bool:
    if column.size < 2:
        return True
    if column.can_hold_missing() and bool(column.isna().any()):
        return False
    from riptide.core.ops.binary import binary_op

    a, b = column.slice(0, column.size - 1), column.slice(1, column.size)
    ok = binary_op(a, b, "le" if increasing else "ge")
    return bool(ok.values_or(False).all())


class RangeIndex(Index):
    """``range(start, stop, step)`` as labels, stored as three integers.

    >>> import riptide as rt
    >>> rt.RangeIndex(5).get_loc(3)
    3
    """

    __slots__ = ("_range", "_xp", "_materialized")

    def __init__(self, start: int | range = 0, stop: int | None = None, step: int = 1, name: Any = None):
        if isinstance(start, range):
            rng = start
        elif stop is None:
            rng = range(0, start, 1)
        else:
            if step == 0:
                raise ValueError("Step must not be zero")
            rng = range(start, stop, step)
        self._range = rng
        self.name = name
        self._xp = _device.xp()
        self._materialized = None

    @classmethod
    def _from_range(cls, rng: range, name: Any = None, xp: Any = None) -> RangeIndex:
        index = object.__new__(cls)
        index._range = rng
        index.name = name
        index._xp = xp or _device.xp()
        index._materialized = None
        return index

    @property
    def start(self) -> int:
        return self._range.start

    @property
    def stop(self) -> int:
        return self._range.stop

    @property
    def step(self) -> int:
        return self._range.step

    def __len__(self) -> int:
        return len(self._range)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.int64)

    @property
    def nbytes(self) -> int:  # pandas' number: the size of the Python range object and of its three ints
        from sys import getsizeof

        r = self._range
        return getsizeof(r) + getsizeof(r.start) + getsizeof(r.stop) + getsizeof(r.step)

    @property
    def is_unique(self) -> bool:
        return True

    @property
    def is_monotonic_increasing(self) -> bool:
        return self.step > 0 or len(self) <= 1

    @property
    def is_monotonic_decreasing(self) -> bool:
        return self.step < 0 or len(self) <= 1

    @property
    def _namespace(self) -> Any:
        return self._xp

    def _as_column(self) -> Column:
        if self._materialized is None:
            r = self._range
            self._materialized = NumericColumn(self._xp.arange(r.start, r.stop, r.step, dtype=np.int64))
        return self._materialized

    def _range_equals(self, other: RangeIndex) -> bool:
        return self._range == other._range  # range equality compares the sequences

    def to_pandas(self) -> pd.RangeIndex:
        return pd.RangeIndex(self.start, self.stop, self.step, name=self.name)

    def __repr__(self) -> str:
        return f"RangeIndex(start={self.start}, stop={self.stop}, step={self.step}" + (
            f", name={self.name!r})" if self.name is not None else ")")  # fmt: skip

    def copy(self, name: Any = None, deep: bool = False) -> RangeIndex:
        return RangeIndex._from_range(self._range, self.name if name is None else name, self._xp)

    def __reduce__(self) -> tuple:
        # the array module in ``_xp`` cannot be pickled: rebuild from the range, on the unpickling side's device
        return _rebuild_range_index, (self.start, self.stop, self.step, self.name)

    def isna(self) -> Any:
        return self._xp.zeros(len(self), dtype=bool)  # a range has no missing labels (and stays unmaterialized)

    def take(self, positions: Any) -> Index:
        r = self._range
        if r.start == 0 and r.step == 1:
            return Index._from_column(NumericColumn(positions.astype(np.int64, copy=False)), self.name)
        return Index._from_column(NumericColumn(r.start + positions.astype(np.int64) * r.step), self.name)

    def _label_at(self, position: int) -> int:
        return self._range[position]

    def _slice(self, start: int, stop: int, step: int) -> RangeIndex:
        return RangeIndex._from_range(self._range[start:stop:step], self.name, self._xp)

    def get_loc(self, label: Any) -> int:
        if isinstance(label, bool | np.bool_) or not isinstance(label, int | np.integer | float | np.floating):
            raise KeyError(label)
        if isinstance(label, float | np.floating) and not float(label).is_integer():
            raise KeyError(label)
        try:
            return self._range.index(int(label))
        except ValueError:
            raise KeyError(label) from None


def _rebuild_range_index(start: int, stop: int, step: int, name: Any) -> RangeIndex:
    return RangeIndex._from_range(range(start, stop, step), name)


def default_index(n: int, xp: Any = None) -> RangeIndex:
    """``RangeIndex(n)`` on namespace ``xp``."""
    return RangeIndex._from_range(range(n), None, xp)


def as_index(obj: Any, name: Any = None) -> Index:
    """An Index from labels of any kind (riptide/pandas Index, Series, array, list, range)."""
    if isinstance(obj, Index):
        return obj
    if isinstance(obj, range):
        return RangeIndex(obj, name=name)
    if isinstance(obj, pd.RangeIndex):
        return RangeIndex(obj.start, obj.stop, obj.step, name=obj.name if name is None else name)
    if isinstance(obj, pd.MultiIndex) or _is_list_of_tuples(obj):
        from riptide.frame.multi_index import MultiIndex

        result = MultiIndex.from_pandas(obj) if isinstance(obj, pd.MultiIndex) else MultiIndex.from_tuples(obj)
        return result if name is None else result.set_names(name)
    return Index(obj, name=name)


def _is_list_of_tuples(obj: Any) -> bool:
    """pandas makes a MultiIndex from a non-empty list of tuples (all of them tuples)."""
    return isinstance(obj, list) and len(obj) > 0 and all(isinstance(t, tuple) for t in obj)
