"""``MultiIndex``: row (or column) labels made of several levels, each label a tuple.

Layout: one column per level, holding that level's label of *every* row — not pandas' ``levels`` (distinct
values) plus ``codes`` (int per row). Gathering rows (``take``), slicing and handing the levels to grouping,
sorting and joins are then the same column operations a flat :class:`~riptide.frame.index.Index` uses, with no
re-coding after each step; ``levels`` and ``codes`` are computed on demand by factorizing a level column (the
distinct values come out sorted, as pandas builds them in ``from_arrays``).

Lookups of tuples (``get_loc``, ``get_indexer``, ``isin``) group the rows of this index and of the wanted
tuples together (:func:`riptide.core.ops.grouping.group_rows` over the concatenated level columns) and match the
group numbers by sorted search, on the device. A missing value in a level matches a missing value, as in pandas.

>>> import riptide as rt
>>> mi = rt.MultiIndex.from_arrays([["a", "a", "b"], [1, 2, 1]], names=["key", "n"])
>>> mi.nlevels, len(mi), mi.names
(2, 3, ['key', 'n'])
>>> mi[1]
('a', np.int64(2))
>>> mi.get_loc(("b", 1))
2
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core.column import Column, NumericColumn, as_column, full, is_scalar
from riptide.core.kernels.factorize import factorize
from riptide.core.ops.grouping import first_row_of_each
from riptide.frame.index import Index, _match_codes, as_index

__all__ = ["MultiIndex", "SeriesMultiIndexMethods", "FrameMultiIndexMethods"]


class MultiIndex(Index):
    """Labels of several levels; each label is a tuple with one value per level.

    Build one with :meth:`from_arrays`, :meth:`from_tuples`, :meth:`from_product` or :meth:`from_frame`
    (or from a ``pandas.MultiIndex`` through ``rt.from_pandas``).

    >>> import riptide as rt
    >>> rt.MultiIndex.from_product([[1, 2], ["x", "y"]], names=["n", "c"]).tolist()
    [(1, 'x'), (1, 'y'), (2, 'x'), (2, 'y')]
    """

    __slots__ = ("_level_columns", "_names")

    def __init__(self, levels: Any = None, codes: Any = None, sortorder: Any = None, names: Any = None,
                 dtype: Any = None, copy: bool = False, name: Any = None, verify_integrity: bool = True):  # fmt: skip
        """pandas' constructor: ``levels`` (distinct values per level) and ``codes`` (positions into them)."""
        if levels is None or codes is None:
            raise TypeError("Must pass both levels and codes")
        if len(levels) != len(codes):
            raise ValueError("Length of levels and codes must be the same.")
        if len(levels) == 0:
            raise ValueError("Must pass non-zero number of levels/codes")
        columns = []
        for level, level_codes in zip(levels, codes):
            level_column = as_index(level)._as_column()
            code_column = as_column(level_codes)
            codes_array = code_column.data.astype(np.int64) if isinstance(code_column, NumericColumn) else None
            if codes_array is None:
                raise TypeError("codes must be integers")
            if codes_array.shape[0] and bool((codes_array >= level_column.size).any()):
                raise ValueError("On one of the levels, code max >= length of level. NOTE: this index is in an "
                                 "inconsistent state")  # fmt: skip
            columns.append(level_column.take_or_missing(codes_array))
        if len({c.size for c in columns}) > 1:
            raise ValueError("Length of codes must be the same for every level")
        names = name if names is None else names
        self._init(columns, _names_list(names, len(columns)))
        if copy:
            self._level_columns = [c.copy() for c in self._level_columns]

    def _init(self, columns: list[Column], names: list[Any]) -> None:
        self._level_columns = list(columns)
        self._names = list(names)
        self.name = None  # pandas' MultiIndex.name: None (a plain attribute, apart from `names`)

    # --- construction ----------------------------------------------------------------------
    @classmethod
    def _from_columns(cls, level_columns: list[Column], names: Sequence[Any] | None = None) -> MultiIndex:
        """Wrap one column per level (same length, same device) without validation."""
        index = object.__new__(cls)
        index._init(level_columns, _names_list(names, len(level_columns)))
        return index

    @classmethod
    def from_arrays(cls, arrays: Sequence[Any], sortorder: Any = None, names: Any = None) -> MultiIndex:
        """One level per array (lists, arrays, Series, Index of the same length).

        >>> import riptide as rt
        >>> rt.MultiIndex.from_arrays([[1, 2], ["a", "b"]]).tolist()
        [(1, 'a'), (2, 'b')]
        """
        if is_scalar(arrays) or isinstance(arrays, str):
            raise TypeError("Input must be a list / sequence of array-likes.")
        arrays = list(arrays)
        if not arrays:
            raise ValueError("Must pass non-zero number of levels/codes")
        for array in arrays:
            if is_scalar(array) or isinstance(array, str):
                raise TypeError("Input must be a list / sequence of array-likes.")
        columns = [_level_column(array) for array in arrays]
        if len({c.size for c in columns}) > 1:
            raise ValueError("all arrays must be same length")
        if names is None:
            names = [getattr(array, "name", None) if not isinstance(array, np.ndarray) else None for array in arrays]
        return cls._from_columns(_same_device(columns), _names_list(names, len(columns)))

    @classmethod
    def from_tuples(cls, tuples: Iterable[tuple], sortorder: Any = None, names: Any = None) -> MultiIndex:
        """One label per tuple (host data: the tuples are split into levels once, on the host).

        >>> import riptide as rt
        >>> rt.MultiIndex.from_tuples([("a", 1), ("b", 2)], names=["k", "n"]).names
        ['k', 'n']
        """
        if isinstance(tuples, MultiIndex):
            return tuples if names is None else tuples.set_names(names)
        if isinstance(tuples, pd.MultiIndex):
            return cls.from_pandas(tuples if names is None else tuples.set_names(names))
        if is_scalar(tuples) or isinstance(tuples, str):
            raise TypeError("Input must be a list / sequence of tuple-likes.")
        tuples = list(tuples)
        if not tuples:
            if names is None:
                raise TypeError("Cannot infer number of levels from empty list")
            return cls._from_columns([as_column([], dtype=object_free_empty()) for _ in names], list(names))
        if not all(isinstance(t, tuple | list) for t in tuples):
            raise TypeError("Input must be a list / sequence of tuple-likes.")
        width = max(len(t) for t in tuples)
        # Shorter tuples are padded with missing values, as pandas pads them.
        arrays = [[t[i] if i < len(t) else np.nan for t in tuples] for i in range(width)]
        return cls.from_arrays(arrays, names=names)

    @classmethod
    def from_product(cls, iterables: Sequence[Any], sortorder: Any = None, names: Any = None) -> MultiIndex:
        """Every combination of the values of ``iterables``, the last level varying fastest.

        >>> import riptide as rt
        >>> rt.MultiIndex.from_product([["a", "b"], [1, 2]]).get_level_values(1).tolist()
        [1, 2, 1, 2]
        """
        if is_scalar(iterables) or isinstance(iterables, str):
            raise TypeError("Input must be a list / sequence of iterables.")
        iterables = [it if not isinstance(it, Iterable) or hasattr(it, "__len__") else list(it) for it in iterables]
        if not iterables:
            raise ValueError("Must pass non-zero number of levels/codes")
        for it in iterables:
            if is_scalar(it) or isinstance(it, str):
                raise TypeError("Input must be a list / sequence of iterables.")
        bases = _same_device([_level_column(it) for it in iterables])
        xp = bases[0].xp
        sizes = [c.size for c in bases]
        total = int(np.prod(sizes, dtype=np.int64)) if sizes else 0
        columns = []
        stride = total
        row = xp.arange(total, dtype=np.int64)
        for base, size in zip(bases, sizes):
            stride = stride // size if size else 0
            positions = (row // stride) % size if size else row
            columns.append(base.take(positions))
        if names is None:
            names = [getattr(it, "name", None) for it in iterables]
        return cls._from_columns(columns, _names_list(names, len(columns)))

    @classmethod
    def from_frame(cls, df: Any, sortorder: Any = None, names: Any = None) -> MultiIndex:
        """One level per column of a DataFrame, named by the column labels.

        >>> import riptide as rt
        >>> rt.MultiIndex.from_frame(rt.DataFrame({"a": [1, 2], "b": ["x", "y"]})).names
        ['a', 'b']
        """
        from riptide.frame.dataframe import DataFrame

        if isinstance(df, pd.DataFrame):
            df = DataFrame(df)
        if not isinstance(df, DataFrame):
            raise TypeError("Input must be a DataFrame")
        labels = list(df._data)
        if not labels:
            raise ValueError("Must pass non-zero number of levels/codes")
        names = labels if names is None else names
        if is_scalar(names) or isinstance(names, str):
            raise TypeError("Names should be list-like for a MultiIndex")
        return cls._from_columns(list(df._data.values()), _names_list(names, len(labels)))

    @classmethod
    def from_pandas(cls, index: pd.MultiIndex) -> MultiIndex:
        """The same labels and names as a ``pandas.MultiIndex`` (each level's values travel once)."""
        columns = [_level_column(index.get_level_values(i)) for i in range(index.nlevels)]
        return cls._from_columns(_same_device(columns), list(index.names))

    # --- facts -----------------------------------------------------------------------------
    def _key_columns(self) -> list[Column]:
        return list(self._level_columns)

    def _as_column(self) -> Column:
        raise TypeError("a MultiIndex has one column per level; use _key_columns() (or get_level_values)")

    @property
    def _namespace(self) -> Any:
        return self._level_columns[0].xp

    def __len__(self) -> int:
        return self._level_columns[0].size

    @property
    def nlevels(self) -> int:
        return len(self._level_columns)

    @property
    def names(self) -> list[Any]:
        return list(self._names)

    @names.setter
    def names(self, values: Any) -> None:
        self._names = _names_list(values, self.nlevels)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(object)  # as pandas: the labels are tuples

    @property
    def dtypes(self) -> pd.Series:
        return pd.Series([c.dtype for c in self._level_columns],
                         index=pd.Index([n for n in self._names], dtype=object), dtype=object)  # fmt: skip

    @property
    def nbytes(self) -> int:
        return sum(c.nbytes for c in self._level_columns)

    @property
    def levshape(self) -> tuple[int, ...]:
        return tuple(factorize(c)[1] for c in self._level_columns)

    @property
    def levels(self) -> list[Index]:
        """The distinct non-missing values of each level, sorted (as pandas' ``from_arrays`` builds them)."""
        result = []
        for column, name in zip(self._level_columns, self._names):
            codes, n_distinct = factorize(column)
            result.append(Index._from_column(column.take(first_row_of_each(codes, n_distinct, column.xp)), name))
        return result

    @property
    def codes(self) -> list[Any]:
        """Per level, each row's position in ``levels`` (int8 like pandas' small levels; -1 for missing)."""
        result = []
        for column in self._level_columns:
            codes, n_distinct = factorize(column)
            result.append(codes.astype(_codes_dtype(n_distinct), copy=False))
        return result

    @property
    def is_unique(self) -> bool:
        return self._groups(dropna=False).n_groups == len(self)

    @property
    def has_duplicates(self) -> bool:
        return not self.is_unique

    @property
    def is_monotonic_increasing(self) -> bool:
        return self._is_monotonic(increasing=True)

    @property
    def is_monotonic_decreasing(self) -> bool:
        return self._is_monotonic(increasing=False)

    def _is_monotonic(self, increasing: bool) -> bool:
        n = len(self)
        if n == 0:
            return True
        xp = self._namespace
        ok = None
        # Lexicographic: row i <= row i+1 when an earlier level is strictly smaller, or all earlier levels are
        # equal and this one is <= . Built from the last level up, on the factorized (sorted) codes.
        for column in reversed(self._level_columns):
            codes, _ = factorize(column)
            if bool((codes < 0).any()):  # pandas: a missing label makes the index non-monotonic, even one row
                return False
            if n == 1:
                continue
            a, b = codes[:-1], codes[1:]
            strict = a < b if increasing else a > b
            ok = (strict | (a == b)) if ok is None else (strict | ((a == b) & ok))
        return n == 1 or bool(xp.all(ok))

    @property
    def values(self) -> np.ndarray:
        """An object array of tuples, on the host (as pandas; riptide columns hold no Python objects)."""
        return self.to_pandas().values

    # --- conversion -------------------------------------------------------------------------
    def to_pandas(self) -> pd.MultiIndex:
        arrays = [pd.Index(c.to_pandas_array(), copy=False) for c in self._level_columns]
        return pd.MultiIndex.from_arrays(arrays, names=self._names)

    def to_frame(self, index: bool = True, name: Any = None, allow_duplicates: bool = False) -> Any:
        """A DataFrame with one column per level (labelled by the level names, or their numbers)."""
        from riptide.frame.dataframe import DataFrame, _refuse_duplicate_labels

        if name is None:
            labels = [n if n is not None else i for i, n in enumerate(self._names)]
        else:
            if is_scalar(name) or isinstance(name, str):
                raise TypeError("'name' must be a list / sequence of column names.")
            labels = list(name)
            if len(labels) != self.nlevels:
                raise ValueError("'name' should have same length as number of levels on index.")
        _refuse_duplicate_labels(labels)
        from riptide.frame.index import default_index

        row_index = self if index else default_index(len(self), self._namespace)
        return DataFrame._from_columns(dict(zip(labels, self._level_columns)), row_index)

    def to_series(self, index: Any = None, name: Any = None) -> Any:
        raise TypeError("a MultiIndex as a Series would hold tuples, which riptide columns cannot; use to_frame()")

    def to_numpy(self, dtype: Any = None, na_value: Any = None) -> np.ndarray:
        return self.to_pandas().to_numpy(dtype=dtype)

    def to_flat_index(self) -> pd.Index:
        """pandas' Index of tuples (on the host: riptide has no column of tuples)."""
        return self.to_pandas().to_flat_index()

    def tolist(self) -> list[tuple]:
        return self.to_pandas().tolist()

    to_list = tolist

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self) -> str:
        n = len(self)
        limit = pd.get_option("display.max_seq_items") or 100
        if n <= limit:
            return repr(self.to_pandas())
        # Only the shown labels travel to the host: pandas shows limit // 2 from each end of a longer index, so
        # it lays out these limit + 1 rows (the middle one hidden) as it would all n; then the real length.
        half = limit // 2
        xp = self._namespace
        shown = self.take(xp.concatenate([xp.arange(half + 1, dtype=np.int64),
                                          xp.arange(n - half, n, dtype=np.int64)]))  # fmt: skip
        text = repr(shown.to_pandas())
        return text.replace(f"length={limit + 1})", f"length={n})")

    # --- derived indexes --------------------------------------------------------------------
    def copy(self, names: Any = None, deep: bool = False, name: Any = None) -> MultiIndex:
        names = name if names is None else names
        columns = [c.copy() for c in self._level_columns] if deep else list(self._level_columns)
        return MultiIndex._from_columns(columns, self._names if names is None else _names_list(names, self.nlevels))

    def set_names(self, names: Any, *, level: Any = None, inplace: bool = False) -> MultiIndex | None:
        """New level names: a list for all levels, or ``level=`` and a name (or list) for some of them."""
        if isinstance(names, dict):
            new = [names.get(n, n) for n in self._names]
        elif level is None:
            if is_scalar(names) or isinstance(names, str):
                raise TypeError("Names must be a string")  # pandas' message for a scalar on a MultiIndex
            new = _names_list(names, self.nlevels)
        else:
            levels = [level] if is_scalar(level) or isinstance(level, str) else list(level)
            values = [names] if len(levels) == 1 and (is_scalar(names) or isinstance(names, str)) else list(names)
            if len(values) != len(levels):
                raise ValueError("Names should be list-like for a MultiIndex")
            new = list(self._names)
            for lev, value in zip(levels, values):
                new[self._level_number(lev)] = value
        if inplace:
            self._names = new
            return None
        return MultiIndex._from_columns(self._level_columns, new)

    def rename(self, names: Any, *, level: Any = None, inplace: bool = False) -> MultiIndex | None:
        return self.set_names(names, level=level, inplace=inplace)

    def astype(self, dtype: Any, copy: bool = True) -> MultiIndex:
        if pd.api.types.pandas_dtype(dtype) == np.dtype(object):
            return self.copy()
        raise TypeError("Setting a MultiIndex dtype to anything other than object is not supported")

    def take(self, positions: Any) -> MultiIndex:
        return MultiIndex._from_columns([c.take(positions) for c in self._level_columns], self._names)

    def _slice(self, start: int, stop: int, step: int) -> MultiIndex:
        return MultiIndex._from_columns([c.slice(start, stop, step) for c in self._level_columns], self._names)

    def _label_at(self, position: int) -> tuple:
        """The label at a non-negative position: a tuple of each level's value, boxed as pandas boxes it."""
        from riptide.frame.indexing import scalar_at

        return tuple(scalar_at(c, position) for c in self._level_columns)

    def _level_number(self, level: Any) -> int:
        """The position of a level given by name or number (pandas' errors for unknown ones)."""
        count = self._names.count(level)
        if count > 1 and not isinstance(level, int | np.integer):
            raise ValueError(f"The name {level} occurs multiple times, use a level number")
        if count == 1:
            return self._names.index(level)
        if isinstance(level, int | np.integer) and not isinstance(level, bool):
            n = self.nlevels
            if level < 0:
                if level + n < 0:
                    raise IndexError(f"Too many levels: Index has only {n} levels, {level} is not a valid level "
                                     "number")  # fmt: skip
                return int(level) + n
            if level >= n:
                raise IndexError(f"Too many levels: Index has only {n} levels, not {level + 1}")
            return int(level)
        raise KeyError(f"Level {level} not found")

    def get_level_values(self, level: Any) -> Index:
        """The labels of one level (by number or name), one per row.

        >>> import riptide as rt
        >>> rt.MultiIndex.from_arrays([[1, 2], ["a", "b"]], names=["n", "c"]).get_level_values("c").tolist()
        ['a', 'b']
        """
        i = self._level_number(level)
        return Index._from_column(self._level_columns[i], self._names[i])

    def _keep_levels(self, numbers: list[int]) -> Index:
        """These levels (in this order): a MultiIndex, or a flat Index when one level is left."""
        if len(numbers) == 1:
            return self.get_level_values(numbers[0])
        return MultiIndex._from_columns([self._level_columns[i] for i in numbers], [self._names[i] for i in numbers])

    def droplevel(self, level: Any = 0) -> Index:
        """Without the given level(s); a flat Index when one level is left."""
        dropped = set(self._level_numbers(level))
        if len(dropped) >= self.nlevels:
            raise ValueError(f"Cannot remove {len(dropped)} levels from an index with {self.nlevels} levels: at "
                             "least one level must be left.")  # fmt: skip
        return self._keep_levels([i for i in range(self.nlevels) if i not in dropped])

    def swaplevel(self, i: Any = -2, j: Any = -1) -> MultiIndex:
        order = list(range(self.nlevels))
        a, b = self._level_number(i), self._level_number(j)
        order[a], order[b] = order[b], order[a]
        return self._keep_levels(order)  # type: ignore[return-value]

    def reorder_levels(self, order: Sequence[Any]) -> MultiIndex:
        numbers = [self._level_number(lev) for lev in order]
        if len(numbers) != self.nlevels:
            raise AssertionError(f"Length of order must be same as number of levels ({self.nlevels}), got "
                                 f"{len(numbers)}")  # fmt: skip
        return MultiIndex._from_columns([self._level_columns[i] for i in numbers], [self._names[i] for i in numbers])

    def __getitem__(self, key: Any) -> Any:
        return super().__getitem__(key)

    def equals(self, other: Any) -> bool:
        """Same tuples in the same order (names do not matter)."""
        if self is other:
            return True
        if not isinstance(other, MultiIndex) or other.nlevels != self.nlevels or len(other) != len(self):
            return False
        return all(Index._from_column(a).equals(Index._from_column(b))
                   for a, b in zip(self._level_columns, other._level_columns))  # fmt: skip

    def identical(self, other: Any) -> bool:
        return self.equals(other) and isinstance(other, MultiIndex) and self._names == other.names

    def append(self, other: Any) -> MultiIndex:
        others = other if isinstance(other, list | tuple) else [other]
        from riptide.core.ops.cast import concat_common

        columns = list(self._level_columns)
        for o in others:
            o = _as_multi(o, self.nlevels, self._namespace)
            columns = [concat_common(a, b) for a, b in zip(columns, o._level_columns)]
        names = self._names if all(isinstance(o, MultiIndex) and o.names == self._names for o in others) else (
            [None] * self.nlevels)  # fmt: skip
        return MultiIndex._from_columns(columns, names)

    # --- label lookup -------------------------------------------------------------------------
    def _groups(self, dropna: bool) -> Any:
        from riptide.core.ops.grouping import group_rows

        return group_rows(self._level_columns, sort=True, dropna=dropna)

    def _codes_with(self, target: MultiIndex) -> tuple[Any, Any] | None:
        """Group numbers of this index's rows and of ``target``'s rows, in one numbering (None: no match
        is possible because a level's labels are of another kind)."""
        from riptide.core.ops.cast import concat_common
        from riptide.core.ops.grouping import group_rows

        try:
            combined = [concat_common(*_comparable(a, b)) for a, b in zip(self._level_columns, target._level_columns)]
        except TypeError:
            return None
        ids = group_rows(combined, sort=True, dropna=False).ids
        return ids[: len(self)], ids[len(self) :]

    def _match(self, target: Any) -> tuple[Any, Any, Any, Any]:
        """As :meth:`Index._match`, with ``target`` a MultiIndex of as many levels."""
        xp = self._namespace
        codes = self._codes_with(target) if len(self) and len(target) else None
        if codes is None:
            none = xp.full(len(target), -1, dtype=np.int64)
            return none, xp.zeros(len(target), dtype=np.int64), xp.zeros(0, dtype=np.int64), none
        return _match_codes(codes[0], codes[1], xp)

    def _target(self, target: Any) -> MultiIndex:
        return _as_multi(target, self.nlevels, self._namespace)

    def get_indexer(self, target: Any) -> Any:
        """For each tuple of ``target``, its position here or -1 (this index must be unique)."""
        positions, counts, _, _ = self._match(self._target(target))
        if bool((counts > 1).any()):
            raise pd.errors.InvalidIndexError("Reindexing only valid with uniquely valued Index objects")
        return positions

    def _positions_of_labels(self, labels: Any) -> Any:
        """All positions of each label in ``labels`` (duplicates expand), KeyError naming missing ones.

        Labels are tuples, or first-level labels (then each selects all rows with that first level).
        """
        from riptide.frame.index import _expand_matches

        if not isinstance(labels, MultiIndex | pd.MultiIndex):
            labels = labels.tolist() if isinstance(labels, Index) else list(labels)
            if labels and not any(isinstance(t, tuple) for t in labels):
                return self.get_level_values(0)._positions_of_labels(labels)
        target = self._target(labels)
        first, counts, order, start_slot = self._match(target)
        absent = counts == 0
        if bool(absent.any()):
            missing = target.take(self._namespace.flatnonzero(absent)).tolist()
            raise KeyError(f"{missing} not in index")
        if bool((counts == 1).all()):
            return first
        return _expand_matches(order, start_slot, counts, self._namespace)

    def _prefix_mask(self, key: tuple) -> Any:
        """Bool per row: level i matches ``key[i]`` for each part of ``key`` (a label, a list of labels or
        ``slice(None)``); a missing label matches a missing value, as pandas matches them."""
        from riptide.core.ops.binary import binary_op
        from riptide.core.ops.missing import is_missing_scalar

        xp = self._namespace
        hits = xp.ones(len(self), dtype=bool)
        for column, value in zip(self._level_columns, key):
            if isinstance(value, slice):
                if value != slice(None):
                    raise TypeError("only slice(None) is supported inside a MultiIndex key; slice rows with a "
                                    "slice of tuples")  # fmt: skip
                continue
            if isinstance(value, list | np.ndarray | Index | pd.Index):
                hits &= Index._from_column(column).isin(value)
                continue
            if is_missing_scalar(value):
                hits &= column.isna()
                continue
            try:
                hits &= binary_op(column, value, "eq").values_or(False)
            except TypeError:
                return xp.zeros(len(self), dtype=bool)
        return hits

    def get_loc(self, key: Any) -> int | slice | Any:
        """Where ``key`` is: an int for a full tuple found on one row; else a slice of contiguous rows or a bool
        mask.

        ``key`` is a full tuple or a prefix of it (the first level's label alone, or a shorter tuple), as in pandas.
        """
        if not isinstance(key, tuple):
            key = (key,)
        if len(key) > self.nlevels:
            raise KeyError(f"Key length ({len(key)}) exceeds index depth ({self.nlevels})")
        hits = self._prefix_mask(key)
        xp = self._namespace
        positions = xp.flatnonzero(hits)
        count = int(positions.shape[0])  # one scalar read: how many rows match
        if count == 0:
            raise KeyError(key if len(key) > 1 else key[0])
        first, last = int(positions[0]), int(positions[-1])
        if count == 1 and len(key) == self.nlevels and all(is_scalar(k) for k in key):
            return first
        if last - first + 1 == count:  # contiguous rows: pandas answers a slice on a sorted index
            return slice(first, last + 1, None)
        return hits

    def _count_before(self, key: Any, inclusive: bool) -> int:
        """How many rows sort before ``key`` (a label of the first level or a tuple prefix), or up to it with
        ``inclusive``: the row position of a slice bound in a sorted index."""
        from riptide.core.ops.binary import binary_op

        key = key if isinstance(key, tuple) else (key,)
        before = None
        # Lexicographic, built from the last key part up: earlier part smaller, or equal and the rest before.
        for column, value in reversed(list(zip(self._level_columns, key))):
            below = binary_op(column, value, "lt").values_or(False)
            if before is None:
                before = below | binary_op(column, value, "eq").values_or(False) if inclusive else below
            else:
                before = below | (binary_op(column, value, "eq").values_or(False) & before)
        return int(before.sum())  # one scalar read: the bound's position

    def _label_slice(self, key: slice) -> tuple[int, int, int]:
        """(start, stop, step) positions of a slice of labels (tuples or first-level labels), ends included."""
        if key.step is not None and not isinstance(key.step, int | np.integer):
            raise TypeError(f"slice step must be an integer, got {key.step!r}")
        step = 1 if key.step is None else int(key.step)
        n = len(self)
        if key.start is None and key.stop is None:
            return slice(None, None, step).indices(n)
        depth = max(len(b) if isinstance(b, tuple) else 1 for b in (key.start, key.stop) if b is not None)
        if not self._keep_levels(list(range(depth))).is_monotonic_increasing:
            raise pd.errors.UnsortedIndexError(f"MultiIndex slicing requires the index to be lexsorted: slicing on "
                                               f"levels {list(range(depth))}; sort_index() first")  # fmt: skip
        start = 0 if key.start is None else self._count_before(key.start, inclusive=False)
        stop = n if key.stop is None else self._count_before(key.stop, inclusive=True)
        return start, max(start, stop), step

    def __contains__(self, key: Any) -> bool:
        try:
            self.get_loc(key)
            return True
        except (KeyError, TypeError):
            return False

    def isin(self, values: Any, level: Any = None) -> Any:
        """Bool per row: the tuple is one of ``values`` (or, with ``level``, that level's label is)."""
        if level is not None:
            return self.get_level_values(level).isin(values)
        values = list(values) if not isinstance(values, MultiIndex | pd.MultiIndex) else values
        if isinstance(values, list) and not values:
            return self._namespace.zeros(len(self), dtype=bool)
        target = self._target(values)
        codes = self._codes_with(target) if len(self) else None
        xp = self._namespace
        if codes is None:
            return xp.zeros(len(self), dtype=bool)
        own, wanted = codes
        return xp.isin(own, wanted)

    def union(self, other: Any, sort: bool | None = None) -> MultiIndex:
        """Distinct tuples of both, sorted (as pandas' ``union`` of unique indexes with ``sort=None``)."""
        other = self._target(other)
        if self.equals(other):
            return self
        from riptide.core.ops.cast import concat_common
        from riptide.core.ops.grouping import group_rows

        combined = [concat_common(*_comparable(a, b)) for a, b in zip(self._level_columns, other._level_columns)]
        groups = group_rows(combined, sort=sort is not False, dropna=False)
        names = self._names if self._names == other.names else [
            a if a == b else None for a, b in zip(self._names, other.names)]  # fmt: skip
        return MultiIndex._from_columns([c.take(groups.first_rows) for c in combined], names)

    def unique(self, level: Any = None) -> Index:
        if level is not None:
            return self.get_level_values(level).unique() if hasattr(Index, "unique") else self.get_level_values(
                level)  # fmt: skip
        groups = self._groups(dropna=False)
        xp = self._namespace
        first = groups.first_rows[_argsort(groups.first_rows, xp)]  # in order of appearance, as pandas
        return self.take(first)

    def min(self) -> tuple:
        return self.sort_values()[0] if len(self) else np.nan

    def max(self) -> tuple:
        return self.sort_values()[-1] if len(self) else np.nan

    def argsort(self) -> Any:
        """Positions that sort the tuples (level by level; missing values last within a level)."""
        from riptide.core.kernels.sort import lexsort

        xp = self._namespace
        keys = []
        for column in self._level_columns:
            codes, n_distinct = factorize(column)
            keys.append(xp.where(codes < 0, n_distinct, codes))
        return lexsort(keys, xp)

    def sort_values(self, return_indexer: bool = False, ascending: bool = True) -> Any:
        order = self.argsort()
        if not ascending:
            order = order[::-1]
        result = self.take(order)
        return (result, order) if return_indexer else result


# --------------------------------------------------------------------------- cross sections (xs)


class SeriesMultiIndexMethods:
    """Mixed into ``Series``: ``xs``, a cross section by label(s) of the (Multi)Index."""

    __slots__ = ()

    def xs(self, key: Any, axis: Any = 0, level: Any = None, drop_level: bool = True) -> Any:
        """The rows whose index labels match ``key``: a label of the first level, a tuple prefix, or labels of
        the levels named by ``level``; the matched levels are dropped unless ``drop_level=False``. A full key
        of a unique index gives the value itself.

        >>> import riptide as rt
        >>> s = rt.Series([1, 2, 3], index=rt.MultiIndex.from_arrays([["a", "a", "b"], [1, 2, 1]]))
        >>> SeriesMultiIndexMethods.xs(s, "a").to_pandas().to_dict()  # s.xs("a") once Series inherits the mixin
        {1: 1, 2: 2}
        >>> SeriesMultiIndexMethods.xs(s, 1, level=1).to_pandas().to_dict()
        {'a': 1, 'b': 3}
        """
        if axis not in (0, "index"):
            raise ValueError(f"No axis named {axis} for object type Series")
        return _cross_section(self, key, level, drop_level)


class FrameMultiIndexMethods:
    """Mixed into ``DataFrame``: ``xs``, a cross section of the rows (``axis=0``) or of the columns."""

    __slots__ = ()

    def xs(self, key: Any, axis: Any = 0, level: Any = None, drop_level: bool = True) -> Any:
        """The rows (or columns, ``axis=1``) whose labels match ``key``, as :meth:`Series.xs` picks them; a full key
        of a unique row index gives that row as a Series.

        >>> import riptide as rt
        >>> df = rt.DataFrame({"v": [1, 2, 3]}, index=rt.MultiIndex.from_arrays([["a", "a", "b"], [1, 2, 1]]))
        >>> FrameMultiIndexMethods.xs(df, "a").to_pandas()  # df.xs("a") once DataFrame inherits the mixin
           v
        1  1
        2  2
        """
        if axis in (1, "columns"):
            return _column_cross_section(self, key, level, drop_level)
        if axis not in (0, "index"):
            raise ValueError(f"No axis named {axis} for object type DataFrame")
        return _cross_section(self, key, level, drop_level)


def _cross_section(obj: Any, key: Any, level: Any, drop_level: bool) -> Any:
    """``xs`` along the rows of a Series or DataFrame (pandas' rules for keys, levels and dropped levels)."""
    if isinstance(key, list):
        raise TypeError("list keys are not supported in xs, pass a tuple instead")
    index = obj.index
    if level is not None:
        if not isinstance(index, MultiIndex):
            raise TypeError("Index must be a MultiIndex")
        if isinstance(level, list | tuple):
            numbers = [index._level_number(lev) for lev in level]
            if not isinstance(key, tuple) or len(key) != len(numbers):
                raise AssertionError("Key for location must have same length as number of levels")
            parts = list(key)
        else:
            numbers, parts = [index._level_number(level)], [key]
        spec: list[Any] = [slice(None)] * index.nlevels
        for number, part in zip(numbers, parts):
            spec[number] = part
        positions = _matching_rows(index, tuple(spec), key)
        taken = index.take(positions)
        kept = [i for i in range(index.nlevels) if i not in numbers]
        return _with_rows(obj, positions, taken._keep_levels(kept) if drop_level and kept else taken)
    if not isinstance(index, MultiIndex):
        location = index.get_loc(key)
        if isinstance(location, int | np.integer):
            return obj.iloc[int(location)]  # a value of a Series, a row (as a Series) of a DataFrame
        positions = index._namespace.flatnonzero(location) if not isinstance(location, slice) else (
            index._namespace.arange(*location.indices(len(index)), dtype=np.int64))  # fmt: skip
        return _with_rows(obj, positions, index.take(positions))
    parts = key if isinstance(key, tuple) else (key,)
    if len(parts) > index.nlevels:
        raise KeyError(f"Key length ({len(parts)}) exceeds index depth ({index.nlevels})")
    from riptide.frame.series import Series

    given = [i for i, part in enumerate(parts) if not (isinstance(part, slice) and part == slice(None))]
    if len(given) == index.nlevels and all(is_scalar(part) for part in parts):
        location = index.get_loc(parts)  # a full key: an int when it names one row
        if isinstance(location, int | np.integer):
            # one row: a Series gives its value, a DataFrame the row (or, keeping the levels, a one-row frame)
            if drop_level or isinstance(obj, Series):
                return obj.iloc[int(location)]
            return obj.iloc[int(location):int(location) + 1]
    positions = _matching_rows(index, parts, key)
    taken = index.take(positions)
    if len(given) == index.nlevels:  # a full key of a non-unique index keeps every level, as in pandas
        given = []
    kept = [i for i in range(index.nlevels) if i not in given]
    return _with_rows(obj, positions, taken._keep_levels(kept) if drop_level and given else taken)


def _matching_rows(index: MultiIndex, spec: tuple, key: Any) -> Any:
    """Positions of the rows whose levels match ``spec``; KeyError naming ``key`` when there are none."""
    positions = index._namespace.flatnonzero(index._prefix_mask(spec))
    if positions.shape[0] == 0:  # one size read: the selection's length
        raise KeyError(key)
    return positions


def _with_rows(obj: Any, positions: Any, index: Index) -> Any:
    """The rows of ``obj`` at ``positions``, labelled by ``index``."""
    from riptide.frame.series import Series

    if isinstance(obj, Series):
        return Series._from_column(obj._column.take(positions), index, obj.name)
    return obj._with_columns({label: column.take(positions) for label, column in obj._data.items()}, index)


def _column_cross_section(frame: Any, key: Any, level: Any, drop_level: bool) -> Any:
    """``xs(axis=1)``: the column labels are host metadata, so pandas' own lookup on them picks the columns."""
    if isinstance(key, list):
        raise TypeError("list keys are not supported in xs, pass a tuple instead")
    columns = frame.columns
    if level is not None:
        if not isinstance(columns, pd.MultiIndex):
            raise TypeError("Index must be a MultiIndex")
        location, new_labels = columns.get_loc_level(key, level=level, drop_level=drop_level)
        return _with_columns_at(frame, location, new_labels)
    if drop_level:
        return frame[key]
    location = columns.get_loc(key)
    if isinstance(location, int | np.integer):
        location = slice(int(location), int(location) + 1)
    return _with_columns_at(frame, location, columns[location])


def _with_columns_at(frame: Any, location: Any, labels: pd.Index) -> Any:
    """The columns at ``location`` (a slice or bool mask over the columns), relabelled with ``labels``."""
    items = list(frame._data.items())
    chosen = items[location] if isinstance(location, slice) else [item for item, keep in zip(items, location)
                                                                   if keep]  # fmt: skip
    result = frame._with_columns(dict(zip(labels, [column for _, column in chosen])))
    result.columns = labels
    return result


# --------------------------------------------------------------------------- helpers


def object_free_empty() -> Any:
    """The dtype of an empty level with no values to infer from (riptide has no object columns)."""
    return np.float64


def _names_list(names: Any, n: int) -> list[Any]:
    if names is None:
        return [None] * n
    if is_scalar(names) or isinstance(names, str):
        if n == 1:
            return [names]
        raise TypeError("Names should be list-like for a MultiIndex")
    names = list(names)
    if len(names) != n:
        raise ValueError("Length of names must match number of levels in MultiIndex.")
    return names


def _level_column(values: Any) -> Column:
    """A level's labels as a column from any array-like (riptide/pandas Series or Index, array, list)."""
    from riptide.frame.series import Series

    if isinstance(values, Series):
        return values._column
    if isinstance(values, MultiIndex):
        raise TypeError("a level cannot itself be a MultiIndex")
    if isinstance(values, Index):
        return values._as_column()
    if isinstance(values, range):
        return as_index(values)._as_column()
    if not isinstance(values, np.ndarray | pd.Series | pd.Index | pd.api.extensions.ExtensionArray | list) and (
            not _device.is_device_array(values)):  # fmt: skip
        values = list(values)
    if isinstance(values, list) and not values:
        return as_column([], dtype=object_free_empty())
    return as_column(values)


def _same_device(columns: list[Column]) -> list[Column]:
    xp = columns[0].xp
    return [c if c.xp is xp else c.to_device(xp) for c in columns]


def _as_multi(labels: Any, nlevels: int, xp: Any) -> MultiIndex:
    """Wanted labels as a MultiIndex: a MultiIndex, a pandas one, a list of tuples or one tuple."""
    if isinstance(labels, MultiIndex):
        result = labels
    elif isinstance(labels, pd.MultiIndex):
        result = MultiIndex.from_pandas(labels)
    else:
        if isinstance(labels, tuple):
            labels = [labels]
        elif isinstance(labels, Index):
            labels = labels.tolist()
        labels = list(labels)
        if not labels:
            return MultiIndex._from_columns([as_column([], dtype=object_free_empty(), xp=xp)] * nlevels)
        if not all(isinstance(t, tuple) for t in labels):
            raise KeyError(f"{[t for t in labels if not isinstance(t, tuple)]} not in index: a MultiIndex takes "
                           "tuples")  # fmt: skip
        result = MultiIndex.from_tuples(labels)
    if result.nlevels != nlevels:
        raise KeyError(f"labels of {result.nlevels} levels looked up in a MultiIndex of {nlevels}")
    return MultiIndex._from_columns([c if c.xp is xp else c.to_device(xp) for c in result._level_columns],
                                    result.names)  # fmt: skip


def _comparable(a: Column, b: Column) -> tuple[Column, Column]:
    """Two level columns made concatenable for matching: categoricals of different categories by their values."""
    from riptide.core.column import CategoricalColumn
    from riptide.core.ops.cast import decode_categorical

    if (isinstance(a, CategoricalColumn) or isinstance(b, CategoricalColumn)) and a.dtype != b.dtype:
        a = decode_categorical(a) if isinstance(a, CategoricalColumn) else a
        b = decode_categorical(b) if isinstance(b, CategoricalColumn) else b
    # A level of only NaN (labels given as tuples holding NaN) is missing values of the other level's dtype.
    if a.dtype != b.dtype:
        if _all_nan(b):
            b = full(b.size, None, a.dtype, xp=b.xp)
        elif _all_nan(a):
            a = full(a.size, None, b.dtype, xp=a.xp)
    return a, b


def _all_nan(column: Column) -> bool:
    if not (isinstance(column, NumericColumn) and column.kind == "f" and column.mask is None):
        return False
    return bool(column.isna().all())  # one scalar read: a level of NaN labels takes the other level's dtype


def _codes_dtype(n_distinct: int) -> np.dtype:
    for dtype in (np.int8, np.int16, np.int32):
        if n_distinct < np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _argsort(values: Any, xp: Any) -> Any:
    from riptide.core.kernels.sort import stable_argsort

    return stable_argsort(values, xp)
