"""DataFrame: named columns sharing one row index — pandas' ``DataFrame`` API over device columns.

Column labels are host metadata (a dict from label to Column, in order); the rows live
on the device. Operations loop over columns, never over rows.

>>> import riptide as rt
>>> df = rt.DataFrame({"a": [1, 2, 3], "b": [0.5, None, 1.5]})
>>> df[df.a > 1].shape
(2, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn, as_column, full, is_scalar
from riptide.core.ops import cast, scan
from riptide.frame import indexing
from riptide.frame.index import Index, as_index, default_index
from riptide.frame.operators import OperatorMethods
from riptide.frame.sorting import FrameSortingMethods, _frame_axis
from riptide.frame.groupby import FrameGroupByMethods
from riptide.frame.merge import FrameMergeMethods
from riptide.frame.reshape import FrameReshapeMethods
from riptide.frame.duplicates import FrameDuplicatesMethods
from riptide.frame.replace import FrameReplaceMethods
from riptide.frame.window import FrameWindowMethods
from riptide.frame.stacking import FrameStackingMethods
from riptide.frame.correlation import FrameCorrelationMethods
from riptide.frame.multi_index import FrameMultiIndexMethods
from riptide.frame.apply import FrameApplyMethods
from riptide.frame.resample import FrameResampleMethods
from riptide.frame.interop import FrameInteropMethods
from riptide.frame.protocol import FrameProtocolMethods
from riptide.io.methods import FrameIOMethods
from riptide.frame.series import Series, _drop_positions, reindex_column

__all__ = ["DataFrame"]

_NO_DEFAULT = object()


class DataFrame(
    OperatorMethods, FrameSortingMethods, FrameGroupByMethods, FrameMergeMethods, FrameReshapeMethods,
    FrameDuplicatesMethods, FrameWindowMethods, FrameStackingMethods, FrameCorrelationMethods, FrameMultiIndexMethods,
    FrameResampleMethods, FrameApplyMethods,
    FrameIOMethods, FrameInteropMethods, FrameProtocolMethods, FrameReplaceMethods,
):  # fmt: skip
    """Two-dimensional table of named columns on the GPU (or the CPU), with pandas semantics.

    Parameters
    ----------
    data : dict of array-likes, list of dicts, 2-D array, pandas DataFrame, pyarrow Table or DataFrame
    index : array-like or Index, optional
    columns : list of labels, optional
        Selects (dict input) or names (2-D input) the columns.
    dtype : dtype, optional
        Applied to every column.
    copy : bool, optional
    """

    # _column_names: the names of the column axis (pandas' ``df.columns.names``, one per level of tuple labels);
    # unset (None) for most frames. Labels themselves are the keys of _data.
    # _column_axis: (labels, pandas Index) recording the labels' dtypes (a categorical or uint8 level of labels,
    # as unstack makes them); used by ``columns`` only while the frame still has exactly those labels.
    __slots__ = ("_data", "_index", "_column_names", "_column_axis", "__weakref__")
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """``np.log(df)`` runs column by column on the device; ``np.float64(2) * df`` is the reflected operator."""
        from riptide.frame.ufuncs import apply_ufunc

        return apply_ufunc(self, ufunc, method, inputs, kwargs)

    def __init__(self, data: Any = None, index: Any = None, columns: Any = None, dtype: Any = None,
                 copy: bool | None = None):  # fmt: skip
        columns_data, data_index = _columns_from(data, columns, dtype, None if index is None else len(index))
        if index is not None:
            index = as_index(index)
            if data_index is not None and isinstance(data, pd.DataFrame | DataFrame | dict):
                frame = DataFrame._from_columns(columns_data, data_index)
                columns_data = {k: v._column for k, v in frame.reindex(index).items()} if _needs_reindex(
                    data_index, index) else columns_data  # fmt: skip
            data_index = index
        n_rows = _common_length(columns_data, data_index)
        if data_index is None:
            data_index = default_index(n_rows)
        elif len(data_index) != n_rows and columns_data:
            raise ValueError(f"Length of values ({n_rows}) does not match length of index ({len(data_index)})")
        if copy:
            columns_data = {k: c.copy() for k, c in columns_data.items()}
        self._data: dict[Hashable, Column] = columns_data
        self._index = data_index
        if isinstance(data, pd.DataFrame) and columns is None:
            self._set_column_axis(data.columns)
        elif isinstance(data, DataFrame) and columns is None:
            self._column_names = data._column_axis_names()
            axis = data._column_axis_index()
            if axis is not None:
                self._set_column_axis(axis)

    @classmethod
    def _from_columns(cls, columns: dict[Hashable, Column], index: Index) -> DataFrame:
        frame = object.__new__(cls)
        frame._data = columns
        frame._index = index
        return frame

    def _with_columns(self, columns: dict[Hashable, Column], index: Index | None = None) -> DataFrame:
        result = DataFrame._from_columns(columns, self._index if index is None else index)
        names = self._column_axis_names()
        if names is not None:
            result._column_names = names
        axis = getattr(self, "_column_axis", None)
        if axis is not None and tuple(columns) == axis[0]:
            result._column_axis = axis
        return result

    def _column_axis_names(self) -> list[Any] | None:
        """The column axis' level names (``df.columns.names``), or None when unnamed."""
        return getattr(self, "_column_names", None)

    def _column_axis_index(self) -> pd.Index | None:
        """The recorded pandas Index of the column labels (with their dtypes), if it still fits the labels."""
        axis = getattr(self, "_column_axis", None)
        return axis[1] if axis is not None and tuple(self._data) == axis[0] else None

    def _set_column_axis(self, labels: pd.Index) -> None:
        """Record the column labels as a pandas Index (their dtypes and names); labels must be this frame's."""
        self._column_axis = (tuple(self._data), labels)
        names = list(labels.names)
        self._column_names = names if any(n is not None for n in names) else None

    def _map_columns(self, fn: Callable[[Column], Column]) -> DataFrame:
        return self._with_columns({label: fn(column) for label, column in self._data.items()})

    # --- facts ---------------------------------------------------------------------------
    @property
    def index(self) -> Index:
        return self._index

    @index.setter
    def index(self, value: Any) -> None:
        new_index = as_index(value)
        if len(new_index) != len(self):
            raise ValueError(f"Length mismatch: Expected axis has {len(self)} elements, new values have "
                             f"{len(new_index)} elements")  # fmt: skip
        self._index = new_index

    @property
    def columns(self) -> pd.Index:
        labels = self._column_axis_index()
        if labels is None:
            labels = pd.Index(list(self._data.keys()), dtype=object if not self._data else None)
        return _named_axis(labels, self._column_axis_names())

    @columns.setter
    def columns(self, labels: Any) -> None:
        names = list(labels.names) if isinstance(labels, pd.Index | Index) else None
        given = labels
        labels = list(labels)
        if len(labels) != len(self._data):
            raise ValueError(f"Length mismatch: Expected axis has {len(self._data)} elements, new values have "
                             f"{len(labels)} elements")  # fmt: skip
        self._column_names = names if names is not None and any(n is not None for n in names) else None
        self._column_axis = None
        self._data = dict(zip(labels, self._data.values()))
        if isinstance(given, pd.Index) and len(self._data) == len(labels):
            self._set_column_axis(given)  # keep the labels' dtypes (a CategoricalIndex stays one)

    @property
    def dtypes(self) -> pd.Series:
        return pd.Series({label: column.dtype for label, column in self._data.items()}, dtype=object)

    def select_dtypes(self, include: Any = None, exclude: Any = None) -> DataFrame:
        """The columns whose dtypes are included and not excluded, by pandas' own rules ("number", "category",
        NumPy generic types, ...): riptide's dtypes are pandas' dtype objects, so pandas decides on an empty frame
        of the same dtypes and the chosen columns are taken without touching the rows.

        >>> import riptide as rt
        >>> rt.DataFrame({"a": [1], "b": ["x"], "c": [0.5]}).select_dtypes("number").columns.tolist()
        ['a', 'c']
        """
        labels = list(self._data)
        empty = pd.DataFrame({i: pd.Series(dtype=column.dtype) for i, column in enumerate(self._data.values())})
        chosen = empty.select_dtypes(include=include, exclude=exclude).columns
        return self._with_columns({labels[i]: self._data[labels[i]] for i in chosen})

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self._index), len(self._data))

    @property
    def size(self) -> int:
        rows, cols = self.shape
        return rows * cols

    @property
    def ndim(self) -> int:
        return 2

    @property
    def empty(self) -> bool:
        return 0 in self.shape

    @property
    def axes(self) -> list[Any]:
        return [self._index, self.columns]

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, label: Any) -> bool:
        return label in self._data

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._data)

    def keys(self) -> pd.Index:
        return self.columns

    def items(self) -> Iterator[tuple[Hashable, Series]]:
        for label in self._data:
            yield label, self._column_series(label)

    def __bool__(self) -> bool:
        raise ValueError("The truth value of a DataFrame is ambiguous. Use a.empty, a.bool(), a.item(), a.any() or "
                         "a.all().")  # fmt: skip


    def _column_series(self, label: Hashable) -> Series:
        return Series._from_column(self._data[label], self._index, label)

    # --- conversion ----------------------------------------------------------------------
    def to_pandas(self) -> pd.DataFrame:
        arrays = {label: column.to_pandas_array() for label, column in self._data.items()}
        index = self._index.to_pandas()
        axis = self._column_axis_index()
        if not arrays:
            return pd.DataFrame(index=index) if axis is None else pd.DataFrame(index=index, columns=self.columns)
        frame = pd.DataFrame(arrays, index=index, copy=False)
        if axis is not None:
            frame.columns = axis
        elif list(frame.columns) != list(self._data):  # labels like 0 and "0" or duplicates keep their order
            frame.columns = list(self._data)
        names = self._column_axis_names()
        if names is not None:
            frame.columns = _named_axis(frame.columns, names)
        return frame

    def to_arrow(self, preserve_index: bool | None = None) -> Any:
        import pyarrow as pa

        arrays = [column.to_arrow() for column in self._data.values()]
        names = [str(label) for label in self._data]
        return pa.Table.from_arrays(arrays, names=names)

    def to_numpy(self, dtype: Any = None, copy: bool = False, na_value: Any = _NO_DEFAULT) -> np.ndarray:
        kwargs = {} if na_value is _NO_DEFAULT else {"na_value": na_value}
        return self.to_pandas().to_numpy(dtype=dtype, copy=copy, **kwargs)

    def to_cupy(self, dtype: Any = None) -> Any:
        """A 2-D CuPy array (rows x columns) of numeric columns, built on the device."""
        import cupy

        arrays = [Series._from_column(c).to_cupy(dtype) for c in self._data.values()]
        if not arrays:
            return cupy.zeros((len(self), 0), dtype=dtype or np.float64)
        return cupy.stack(arrays, axis=1)

    @property
    def values(self) -> Any:
        """A 2-D array of the values: CuPy for numeric frames on the GPU, else NumPy."""
        if self._data and all(isinstance(c, NumericColumn) and not dtypes.is_masked(c.dtype) and not
                              dtypes.is_datetimelike(c.dtype) for c in self._data.values()):  # fmt: skip
            xp = next(iter(self._data.values())).xp
            return xp.stack([c.data for c in self._data.values()], axis=1) if len(self) else xp.zeros(
                (0, len(self._data)), dtype=np.result_type(*[c.data.dtype for c in self._data.values()]))
        return self.to_numpy()

    def to_dict(self, orient: str = "dict") -> Any:
        return self.to_pandas().to_dict(orient=orient)

    # --- display -------------------------------------------------------------------------
    def __repr__(self) -> str:
        from riptide.frame import display

        return display.frame_repr(self)

    def _repr_html_(self) -> str:
        from riptide.frame import display

        return display.frame_html(self)

    def info(self, verbose: bool | None = None, buf: Any = None, memory_usage: bool | None = None) -> None:
        from riptide.frame import display

        display.info(self, buf)

    def describe(self, percentiles: Any = None, include: Any = None, exclude: Any = None) -> DataFrame:
        from riptide.frame import describe

        return describe.describe_frame(self, percentiles, include, exclude)

    def memory_usage(self, index: bool = True, deep: bool = False) -> pd.Series:
        usage = {label: column.nbytes for label, column in self._data.items()}
        if index:
            usage = {"Index": self._index.nbytes, **usage}
        return pd.Series(usage, dtype=np.int64)

    # --- column access -------------------------------------------------------------------
    def __getattr__(self, name: str) -> Series:
        if name.startswith("_"):
            raise AttributeError(name)
        data = object.__getattribute__(self, "_data")
        if name in data:
            return self._column_series(name)
        raise AttributeError(f"'DataFrame' object has no attribute '{name}'")

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | {c for c in self._data if isinstance(c, str) and c.isidentifier()})

    def __getitem__(self, key: Any) -> Any:
        key = indexing.callable_key(key, self)
        if isinstance(key, Series) and indexing._is_bool_array(key):
            return self._select_rows(indexing.loc_rows(key, self._index, self._xp()))
        if isinstance(key, slice):
            if all(b is None or isinstance(b, int | np.integer) for b in (key.start, key.stop, key.step)):
                return self._select_rows(indexing.iloc_rows(key, len(self), self._xp()))
            return self._select_rows(indexing.loc_rows(key, self._index, self._xp()))
        if indexing._is_bool_array(key) or indexing._is_bool_list(key):
            return self._select_rows(indexing.mask_rows(key, len(self), self._xp()))
        if is_scalar(key) or isinstance(key, tuple):
            if key not in self._data:
                return self._column_prefix(key)
            return self._column_series(key)
        labels = list(key.tolist() if hasattr(key, "tolist") else key)
        return self._select_columns(labels)

    def _column_prefix(self, key: Any) -> Any:
        """``df["a"]`` with tuple column labels: the columns whose first labels are ``key``, labelled by the rest
        (pandas' selection from MultiIndex columns). One column left whose rest is "" is returned as a Series."""
        depth = _column_depth(list(self._data))
        parts = key if isinstance(key, tuple) else (key,)
        k = len(parts)
        if depth == 1 or k >= depth:
            raise KeyError(key)
        chosen = {(label[k:] if depth - k > 1 else label[k]): column for label, column in self._data.items()
                  if label[:k] == parts}  # fmt: skip
        if not chosen:
            raise KeyError(key)
        if len(chosen) == 1:
            (rest,) = chosen
            if (rest[0] if isinstance(rest, tuple) else rest) == "":
                return Series._from_column(next(iter(chosen.values())), self._index, key)
        result = DataFrame._from_columns(chosen, self._index)
        names = self._column_axis_names()
        if names is not None and any(n is not None for n in names[k:]):
            result._column_names = names[k:]
        return result

    def _select_columns(self, labels: list[Hashable]) -> DataFrame:
        _refuse_duplicate_labels(labels)
        absent = [label for label in labels if label not in self._data]
        if absent:
            if len(absent) == len(labels):
                raise KeyError(f"None of [{pd.Index(labels)}] are in the [columns]")
            raise KeyError(f"{absent} not in index")
        return self._with_columns({label: self._data[label] for label in labels})

    def _select_rows(self, selection: indexing.RowSelection) -> DataFrame:
        return self._with_columns(selection.apply_columns(self._data), selection.apply_index(self._index))

    def _xp(self) -> Any:
        if self._data:
            return next(iter(self._data.values())).xp
        return self._index._namespace

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, DataFrame) or (isinstance(key, Series) and indexing._is_bool_array(key)):
            if isinstance(key, DataFrame):
                self._set_where(key, value)
                return
            self._loc_set((key, slice(None)), value)
            return
        if isinstance(key, pd.Index | np.ndarray | Index | Series):
            key = key.tolist()  # list-likes of labels name several columns, as a list does
        if isinstance(key, list):
            if isinstance(value, DataFrame) and len(value.columns) != len(key):
                raise ValueError("Columns must be same length as key")
            # Build every new column first, so a failure leaves the frame unchanged.
            new = {label: self._column_for(value.iloc[:, i] if isinstance(value, DataFrame) else value)
                   for i, label in enumerate(key)}  # fmt: skip
            self._data = {**self._data, **new}
            return
        self._data = {**self._data, key: self._column_for(value)}

    def _column_for(self, value: Any) -> Column:
        """A column of this frame's length from a Series (aligned), array or scalar."""
        n = len(self)
        if isinstance(value, Series):
            if not (value._index is self._index or value._index.equals(self._index)):
                value = value.reindex(self._index)
            return value._column
        if isinstance(value, DataFrame):
            raise ValueError("Cannot set a DataFrame with multiple columns to the single column")
        if is_scalar(value):
            return full(n, value, xp=self._xp())
        column = as_column(value, xp=self._xp())
        if column.size != n and not (n == 0 and not self._data):
            raise ValueError(f"Length of values ({column.size}) does not match length of index ({n})")
        if n == 0 and not self._data:
            self._index = default_index(column.size, column.xp)
        return column

    def _set_where(self, cond: DataFrame, value: Any) -> None:
        result = self.mask(cond, value)
        self._data = result._data

    def __delitem__(self, key: Hashable) -> None:
        if key not in self._data:
            raise KeyError(key)
        self._data = {k: v for k, v in self._data.items() if k != key}

    def pop(self, item: Hashable) -> Series:
        result = self[item]
        del self[item]
        return result

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    @property
    def iloc(self) -> indexing.ILocIndexer:
        return indexing.ILocIndexer(self)

    @property
    def loc(self) -> indexing.LocIndexer:
        return indexing.LocIndexer(self)

    def _split_key(self, key: Any) -> tuple[Any, Any]:
        if isinstance(key, tuple):
            if len(key) != 2:
                raise pd.errors.IndexingError("Too many indexers")
            return indexing.callable_key(key[0], self), indexing.callable_key(key[1], self)
        return key, slice(None)

    def _column_positions(self, key: Any) -> list[int] | int:
        labels = list(self._data)
        n = len(labels)
        if isinstance(key, int | np.integer) and not isinstance(key, bool):
            if not -n <= key < n:
                raise IndexError("single positional indexer is out-of-bounds")
            return int(key) % n
        if isinstance(key, slice):
            return list(range(n))[key]
        array = np.asarray(key.tolist() if hasattr(key, "tolist") else key)
        if array.dtype.kind not in "biu":
            raise ValueError(f"Location based indexing can only have [integer, integer slice (START point is "
                             f"INCLUDED, END point is EXCLUDED), listlike of integers, boolean array] types, "
                             f"got {key!r}")  # fmt: skip
        if array.dtype == bool:
            if len(array) != n:
                raise IndexError(f"Boolean index has wrong length: {len(array)} instead of {n}")
            return list(np.flatnonzero(array))
        if array.size and (array.min() < -n or array.max() >= n):
            raise IndexError("positional indexers are out-of-bounds")
        return [int(i) % n for i in array]

    def _column_labels(self, key: Any) -> list[Hashable] | Hashable:
        if isinstance(key, slice):
            labels = list(self._data)
            if key.start is None and key.stop is None:
                return labels[:: key.step or 1]
            columns = self.columns
            start = 0 if key.start is None else columns.get_loc(key.start)
            stop = len(labels) if key.stop is None else columns.get_loc(key.stop) + 1
            return labels[start:stop : key.step or 1]
        if is_scalar(key) or isinstance(key, tuple):
            if key not in self._data:
                raise KeyError(key)
            return key
        if indexing._is_bool_array(key) or (isinstance(key, list) and key and all(isinstance(k, bool) for k in key)):
            mask = np.asarray(key.to_numpy() if hasattr(key, "to_numpy") else key, dtype=bool)
            return [label for label, keep in zip(self._data, mask) if keep]
        labels = list(key.tolist() if hasattr(key, "tolist") else key)
        absent = [label for label in labels if label not in self._data]
        if absent:
            raise KeyError(f"{absent} not in index")
        return labels

    def _finish_selection(self, rows: indexing.RowSelection, columns: Any) -> Any:
        if isinstance(columns, list):
            _refuse_duplicate_labels(columns)
            frame = self._with_columns({label: self._data[label] for label in columns})
            if rows.scalar:
                from riptide.frame.describe import row_as_series

                return row_as_series(frame._select_rows(rows), self._index[rows.slice.start])
            return frame._select_rows(rows)
        series = self._column_series(columns)
        return series._select(rows)

    def _iloc_get(self, key: Any) -> Any:
        rows_key, cols_key = self._split_key(indexing.callable_key(key, self))
        rows = indexing.iloc_rows(rows_key, len(self), self._xp())
        positions = self._column_positions(cols_key)
        labels = list(self._data)
        columns = labels[positions] if isinstance(positions, int) else [labels[p] for p in positions]
        return self._finish_selection(rows, columns)

    def _loc_get(self, key: Any) -> Any:
        key = indexing.callable_key(key, self)
        rows_key, cols_key = (key, slice(None)) if indexing.is_row_tuple(key, self._index) else self._split_key(key)
        rows = indexing.loc_rows(rows_key, self._index, self._xp(), frame=True)
        return self._finish_selection(rows, self._column_labels(cols_key))

    def _set_rows(self, rows: indexing.RowSelection, labels: list[Hashable], value: Any) -> None:
        updated = dict(self._data)
        for i, label in enumerate(labels):
            if isinstance(value, DataFrame):
                column_value: Any = value.iloc[:, i]
            elif not is_scalar(value) and np.ndim(value) == 2:
                column_value = np.asarray(value)[:, i]
            else:
                column_value = value
            if isinstance(column_value, Series):
                column_value = column_value._column
            if label not in updated:  # .loc can create a column: missing outside the selected rows
                base = full(len(self), None, _fill_dtype(column_value), xp=self._xp())
                updated[label] = indexing.set_rows(base, rows, column_value)
                continue
            updated[label] = indexing.set_rows(updated[label], rows, column_value)
        self._data = updated

    def _iloc_set(self, key: Any, value: Any) -> None:
        rows_key, cols_key = self._split_key(key)
        rows = indexing.iloc_rows(rows_key, len(self), self._xp())
        positions = self._column_positions(cols_key)
        labels = list(self._data)
        chosen = [labels[positions]] if isinstance(positions, int) else [labels[p] for p in positions]
        self._set_rows(rows, chosen, value)

    def _loc_set(self, key: Any, value: Any) -> None:
        rows_key, cols_key = self._split_key(key)
        rows = indexing.loc_rows(rows_key, self._index, self._xp())
        if (is_scalar(cols_key) or isinstance(cols_key, tuple)) and cols_key not in self._data:
            labels: list[Hashable] = [cols_key]
        else:
            selected = self._column_labels(cols_key)
            labels = selected if isinstance(selected, list) else [selected]
        self._set_rows(rows, labels, value)

    # --- structure -----------------------------------------------------------------------
    def copy(self, deep: bool = True) -> DataFrame:
        return self._map_columns(lambda c: c.copy()) if deep else self._with_columns(dict(self._data))

    def head(self, n: int = 5) -> DataFrame:
        return self.iloc[:n]

    def tail(self, n: int = 5) -> DataFrame:
        return self.iloc[len(self):] if n == 0 else self.iloc[-n:]

    def assign(self, **kwargs: Any) -> DataFrame:
        result = self.copy(deep=False)
        for label, value in kwargs.items():
            result[label] = value(result) if callable(value) else value
        return result

    def insert(self, loc: int, column: Hashable, value: Any, allow_duplicates: bool = False) -> None:
        if column in self._data and not allow_duplicates:
            raise ValueError(f"cannot insert {column}, already exists")
        n = len(self._data)
        if not isinstance(loc, int | np.integer):
            raise TypeError("loc must be int")
        if not -n <= loc <= n:
            raise IndexError(f"loc must be an integer between {-n} and {n}")
        if loc < 0:
            raise ValueError(f"loc must be between 0 and {n} (negative positions are not supported), got {loc}")
        new_column = self._column_for(value)
        items = list(self._data.items())
        items.insert(int(loc), (column, new_column))
        self._data = dict(items)

    def drop(self, labels: Any = None, *, axis: Any = 0, index: Any = None, columns: Any = None,
             errors: str = "raise", inplace: bool = False) -> DataFrame | None:  # fmt: skip
        if errors not in ("raise", "ignore"):
            raise ValueError(f"errors must be 'raise' or 'ignore', got {errors!r}")
        if labels is not None:
            if axis in (1, "columns"):
                columns = labels
            elif axis in (0, "index"):
                index = labels
            else:
                raise ValueError(f"No axis named {axis} for object type DataFrame")
        result = self
        if columns is not None:
            drop = [columns] if is_scalar(columns) or isinstance(columns, tuple) else list(columns)
            absent = [c for c in drop if c not in self._data]
            if absent and errors == "raise":
                raise KeyError(f"{absent} not found in axis")
            result = result._with_columns({k: v for k, v in result._data.items() if k not in drop})
        if index is not None:
            positions = _drop_positions(result._index, index, errors)
            result = result._select_rows(indexing.RowSelection(positions=positions))
        if inplace:
            self._data, self._index = result._data, result._index
            return None
        return result

    def rename(self, mapper: Any = None, *, index: Any = None, columns: Any = None, axis: Any = None,
               inplace: bool = False, errors: str = "ignore") -> DataFrame | None:  # fmt: skip
        if mapper is not None:
            if axis in (1, "columns"):
                columns = mapper
            else:
                index = mapper
        result = self.copy(deep=False)
        if columns is not None:
            rename = columns if callable(columns) else (lambda k: columns.get(k, k))
            if errors == "raise" and isinstance(columns, dict):
                absent = [k for k in columns if k not in self._data]
                if absent:
                    raise KeyError(f"{absent} not found in axis")
            renamed = [rename(k) for k in self._data]
            _refuse_duplicate_labels(renamed)
            result._data = dict(zip(renamed, self._data.values()))
        if index is not None:
            result._index = as_index(self._index.to_pandas().map(index if callable(index) else (
                lambda k: index.get(k, k))))  # fmt: skip
        if inplace:
            self._data, self._index = result._data, result._index
            return None
        return result

    def astype(self, dtype: Any, copy: bool | None = None, errors: str = "raise") -> DataFrame:
        if isinstance(dtype, dict | pd.Series):
            mapping = dict(dtype)
            absent = [k for k in mapping if k not in self._data]
            if absent:
                raise KeyError("Only a column name can be used for the key in a dtype mappings argument. "
                               f"'{absent[0]}' not found in columns.")  # fmt: skip
            columns = {k: cast.astype(c, mapping[k]) if k in mapping else c for k, c in self._data.items()}
        else:
            columns = {k: cast.astype(c, dtype) for k, c in self._data.items()}
        return self._with_columns(columns)

    def reset_index(self, level: Any = None, *, drop: bool = False, inplace: bool = False, col_level: Any = 0,
                    col_fill: Any = "", allow_duplicates: bool = False, names: Any = None) -> DataFrame | None:
        """Index levels back to columns (all, or ``level``), in front, in level order; a RangeIndex when no level
        is left. Unnamed levels become ``index`` (``level_0`` if taken) or ``level_<i>`` for a MultiIndex."""
        index = self._index
        numbers = list(range(index.nlevels)) if level is None else sorted(set(index._level_numbers(level)))
        columns = dict(self._data)
        if not drop:
            labels = _reset_names(index, names, "level_0" if "index" in columns else "index")
            depth = _column_depth(list(columns))
            moved = {}
            for i in numbers:
                label = _filled_label(labels[i], depth, col_level, col_fill, self.columns)
                if label in columns or label in moved:
                    raise ValueError(f"cannot insert {label}, already exists")
                moved[label] = index._key_columns()[i]
            columns = {**moved, **columns}
        kept = [i for i in range(index.nlevels) if i not in numbers]
        new_index = index._keep_levels(kept) if kept else default_index(len(self), self._xp())
        result = self._with_columns(columns, new_index)
        if inplace:
            self._data, self._index = result._data, result._index
            return None
        return result

    def droplevel(self, level: Any, axis: Any = 0) -> DataFrame:
        """Without the given level(s) of the row index (``axis=0``) or of the tuple column labels (``axis=1``)."""
        if axis in (0, "index"):
            return self._with_columns(dict(self._data), self._index.droplevel(level))
        if axis not in (1, "columns"):
            raise ValueError(f"No axis named {axis} for object type DataFrame")
        axis_labels = self.columns.droplevel(level)  # host labels: pandas' rules and errors
        result = self._with_columns(dict(zip(axis_labels.tolist(), self._data.values())))
        if len(result._data) != len(self._data):
            raise ValueError("riptide DataFrames need unique column labels; dropping the level would repeat some")
        result._set_column_axis(axis_labels)
        return result

    def set_index(self, keys: Any, *, drop: bool = True, append: bool = False, inplace: bool = False,
                  verify_integrity: bool = False) -> DataFrame | None:
        """Columns (labels) or arrays as the row index: one key gives an Index, several a MultiIndex."""
        from riptide.frame.multi_index import MultiIndex

        key_list = keys if isinstance(keys, list) else [keys]
        n = len(self)
        level_columns: list[Column] = []
        level_names: list[Any] = []
        if append:
            level_columns += self._index._key_columns()
            level_names += self._index.names
        dropped = []
        missing_labels = []
        for key in key_list:
            if isinstance(key, Series | Index | pd.Series | pd.Index | np.ndarray | list | range) or (
                    _device.is_device_array(key)):  # fmt: skip
                arrays = as_index(key) if not isinstance(key, Series) else Index._from_column(key._column, key.name)
                if isinstance(key, np.ndarray) or _device.is_device_array(key) or isinstance(key, list):
                    arrays.name = None
                if len(arrays) != n:
                    raise ValueError(f"Length mismatch: Expected {n} rows, received array of length {len(arrays)}")
                level_columns += arrays._key_columns()
                level_names += arrays.names
            elif key in self._data:
                level_columns.append(self._data[key])
                level_names.append(key)
                dropped.append(key)
            else:
                missing_labels.append(key)
        if missing_labels:
            raise KeyError(f"None of {missing_labels} are in the columns")
        if len(level_columns) == 1:
            new_index: Index = Index._from_column(level_columns[0], level_names[0])
        else:
            new_index = MultiIndex._from_columns(level_columns, level_names)
        if verify_integrity and not new_index.is_unique:
            duplicated = new_index.take(self._xp().flatnonzero(~_first_occurrence(new_index)))
            raise ValueError(f"Index has duplicate keys: {duplicated.to_pandas()}")
        columns = {k: v for k, v in self._data.items() if not (drop and k in dropped)}
        result = self._with_columns(columns, new_index)
        if inplace:
            self._data, self._index = result._data, result._index
            return None
        return result

    def reindex(self, labels: Any = None, *, index: Any = None, columns: Any = None, axis: Any = None,
                fill_value: Any = None) -> DataFrame:  # fmt: skip
        """Rows (and/or columns) in the order of the given labels, missing where a label is new: ``labels``
        applies to ``axis`` (the rows by default), or pass ``index=`` / ``columns=``.

        >>> import riptide as rt
        >>> rt.DataFrame({"a": [1, 2]}).reindex(["a", "b"], axis=1).columns.tolist()
        ['a', 'b']
        """
        on_columns = _frame_axis(axis) == 1  # validates ``axis`` (None: the rows)
        if labels is not None:
            if (columns if on_columns else index) is not None:
                raise TypeError(f"Cannot specify both 'labels' and '{'columns' if on_columns else 'index'}'")
            if on_columns:
                columns = labels
            else:
                index = labels
        result = self
        if index is not None:
            target = as_index(index)
            if not (target is self._index or target.equals(self._index)):
                if not self._index.is_unique:
                    raise ValueError("cannot reindex on an axis with duplicate labels")
                positions = self._index.get_indexer(target)
                moved = {label: reindex_column(column, positions, fill_value) for label, column in self._data.items()}
                result = DataFrame._from_columns(moved, target)
            else:
                result = result._with_columns(dict(result._data), target)
        if columns is not None:
            n = len(result)
            xp = result._xp()
            result = result._with_columns({label: result._data[label] if label in result._data else full(
                n, fill_value, xp=xp) for label in columns})  # fmt: skip
        return result

    # --- operators -----------------------------------------------------------------------
    def _binary(self, other: Any, op: str, reflected: bool = False) -> DataFrame:
        if isinstance(other, DataFrame):
            left, right = self, other
            if not (left._index is right._index or left._index.equals(right._index)):
                left, right = _align_frames(left, right)
            labels = list(left._data) + [k for k in right._data if k not in left._data]
            if set(left._data) != set(right._data):
                labels = sorted(labels, key=lambda k: (str(type(k)), k))
            columns = {}
            absent = Series._from_column(full(len(left), np.nan, xp=left._xp()), left._index)
            for label in labels:
                # A column on one side only meets NaN, as pandas aligns it (so 1.0 ** NaN is still 1.0).
                a = left._column_series(label) if label in left._data else absent
                b = right._column_series(label) if label in right._data else absent
                columns[label] = a._binary(b, op, reflected)._column
            return DataFrame._from_columns(columns, left._index)
        if isinstance(other, Series):
            # pandas matches a Series against the columns (axis="columns"): one scalar per column label, so only
            # those values travel to the host, never the whole Series.
            values = other.reindex(list(self._data)).to_pandas() if self._data else pd.Series(dtype=np.float64)
            return self._map_labels(lambda label, series: series._binary(values.get(label, np.nan), op, reflected))
        if not is_scalar(other):
            array = _device.to_host(other) if _device.is_device_array(other) else np.asarray(other)  # one row of values
            if array.ndim == 1:
                if len(array) != len(self._data):
                    raise ValueError(f"Unable to coerce to Series, length must be {len(self._data)}: given "
                                     f"{len(array)}")  # fmt: skip
                return self._map_labels(lambda label, series, i=iter(array): series._binary(next(i), op, reflected))
            raise ValueError(f"Unable to coerce to DataFrame, shape must be {self.shape}: given {array.shape}")
        return self._map_labels(lambda label, series: series._binary(other, op, reflected))

    def _map_labels(self, fn: Callable[[Hashable, Series], Series]) -> DataFrame:
        return self._with_columns({label: fn(label, self._column_series(label))._column for label in self._data})


    def add(self, other): return self._binary(other, "add")
    def sub(self, other): return self._binary(other, "sub")
    def mul(self, other): return self._binary(other, "mul")
    def truediv(self, other): return self._binary(other, "truediv")
    def floordiv(self, other): return self._binary(other, "floordiv")
    def mod(self, other): return self._binary(other, "mod")
    def pow(self, other): return self._binary(other, "pow")
    def eq(self, other): return self._binary(other, "eq")
    def ne(self, other): return self._binary(other, "ne")
    def lt(self, other): return self._binary(other, "lt")
    def le(self, other): return self._binary(other, "le")
    def gt(self, other): return self._binary(other, "gt")
    def ge(self, other): return self._binary(other, "ge")

    div = truediv

    def __neg__(self) -> DataFrame:
        return self._map_labels(lambda label, s: -s)

    def __invert__(self) -> DataFrame:
        return self._map_labels(lambda label, s: ~s)

    def __abs__(self) -> DataFrame:
        return self.abs()

    def abs(self) -> DataFrame:
        return self._map_labels(lambda label, s: s.abs())

    def round(self, decimals: int | dict = 0) -> DataFrame:
        def round_one(label: Hashable, s: Series) -> Series:
            places = decimals.get(label) if isinstance(decimals, dict) else decimals
            if places is None or not dtypes.is_numeric_or_bool(s.dtype):
                return s
            return s.round(places)

        return self._map_labels(round_one)

    # --- reductions ----------------------------------------------------------------------
    def _reduce(self, op: str, axis: Any = 0, skipna: bool = True, numeric_only: bool = False,
                **kwargs: Any) -> Series:  # fmt: skip
        from riptide.frame.reductions import reduce_frame

        return reduce_frame(self, op, axis, skipna, numeric_only, **kwargs)

    def sum(self, axis=0, skipna=True, numeric_only=False, min_count=0):
        return self._reduce("sum", axis, skipna, numeric_only, min_count=min_count)

    def prod(self, axis=0, skipna=True, numeric_only=False, min_count=0):
        return self._reduce("prod", axis, skipna, numeric_only, min_count=min_count)

    product = prod

    def mean(self, axis=0, skipna=True, numeric_only=False):
        return self._reduce("mean", axis, skipna, numeric_only)

    def median(self, axis=0, skipna=True, numeric_only=False):
        return self._reduce("median", axis, skipna, numeric_only)

    def quantile(self, q: Any = 0.5, axis: Any = 0, numeric_only: bool = False, interpolation: str = "linear",
                 method: str = "single") -> Any:  # fmt: skip
        """Quantiles of each column (``method="single"``) or whole rows at the quantiles' ranks (``"table"``).

        >>> import riptide as rt
        >>> rt.DataFrame({"a": [1, 2, 3, 4], "b": [1.0, 3.0, 5.0, 7.0]}).quantile(0.5).tolist()
        [2.5, 4.0]
        """
        from riptide.frame.reductions import quantile_frame

        return quantile_frame(self, q, axis, numeric_only, interpolation, method)

    def min(self, axis=0, skipna=True, numeric_only=False):
        return self._reduce("min", axis, skipna, numeric_only)

    def max(self, axis=0, skipna=True, numeric_only=False):
        return self._reduce("max", axis, skipna, numeric_only)

    def std(self, axis=0, skipna=True, ddof=1, numeric_only=False):
        return self._reduce("std", axis, skipna, numeric_only, ddof=ddof)

    def var(self, axis=0, skipna=True, ddof=1, numeric_only=False):
        return self._reduce("var", axis, skipna, numeric_only, ddof=ddof)

    def sem(self, axis=0, skipna=True, ddof=1, numeric_only=False):
        return self._reduce("sem", axis, skipna, numeric_only, ddof=ddof)

    def any(self, axis=0, bool_only=False, skipna=True):
        return self._reduce("any", axis, skipna, bool_only=bool_only)

    def all(self, axis=0, bool_only=False, skipna=True):
        return self._reduce("all", axis, skipna, bool_only=bool_only)

    def count(self, axis=0, numeric_only=False):
        return self._reduce("count", axis, True, numeric_only)

    def nunique(self, axis=0, dropna=True):
        return self._reduce("nunique", axis, dropna)

    def idxmin(self, axis=0, skipna=True, numeric_only=False):
        return self._reduce("idxmin", axis, skipna, numeric_only)

    def idxmax(self, axis=0, skipna=True, numeric_only=False):
        return self._reduce("idxmax", axis, skipna, numeric_only)

    def equals(self, other: Any) -> bool:
        if not isinstance(other, DataFrame) or list(self._data) != list(other._data):
            return False
        if not self._index.equals(other._index):
            return False
        return all(self._column_series(k).equals(other._column_series(k)) for k in self._data)

    # --- missing values ------------------------------------------------------------------
    def isna(self) -> DataFrame:
        return self._map_columns(lambda c: NumericColumn(c.isna()))

    isnull = isna

    def notna(self) -> DataFrame:
        return self._map_columns(lambda c: NumericColumn(c.notna()))

    notnull = notna

    def fillna(self, value: Any = None, *, axis: Any = None, inplace: bool = False, limit: int | None = None) -> Any:
        if value is None:
            raise ValueError("Must specify a fill 'value'.")
        if isinstance(value, dict | pd.Series | Series):
            mapping = value.to_pandas() if isinstance(value, Series) else value
            result = self._map_labels(lambda label, s: s.fillna(mapping[label]) if label in mapping else s)
        elif isinstance(value, DataFrame):
            result = self._map_labels(lambda label, s: s.fillna(value[label]) if label in value else s)
        else:
            result = self._map_labels(lambda label, s: s.fillna(value))
        return self._finish_inplace(result, inplace)

    def ffill(self, *, limit: int | None = None, inplace: bool = False) -> Any:
        return self._finish_inplace(self._map_columns(lambda c: scan.fill_direction(c, True, limit)), inplace)

    def bfill(self, *, limit: int | None = None, inplace: bool = False) -> Any:
        return self._finish_inplace(self._map_columns(lambda c: scan.fill_direction(c, False, limit)), inplace)

    def dropna(self, *, axis: Any = 0, how: Any = _NO_DEFAULT, thresh: Any = _NO_DEFAULT, subset: Any = None,
               inplace: bool = False, ignore_index: bool = False) -> Any:  # fmt: skip
        if how is not _NO_DEFAULT and thresh is not _NO_DEFAULT:
            raise TypeError("You cannot set both the how and thresh arguments at the same time.")
        how = "any" if how is _NO_DEFAULT else how
        if how not in ("any", "all"):
            raise ValueError(f"invalid how option: {how}")
        if axis in (1, "columns"):
            return self._dropna_columns(how, thresh, subset, inplace)
        labels = list(self._data) if subset is None else ([subset] if is_scalar(subset) else list(subset))
        absent = [k for k in labels if k not in self._data]
        if absent:
            raise KeyError(absent)
        xp = self._xp()
        valid_counts = xp.zeros(len(self), dtype=np.int64)
        for label in labels:
            valid_counts += self._data[label].notna()
        if thresh is not _NO_DEFAULT:
            keep = valid_counts >= thresh
        elif how == "any":
            keep = valid_counts == len(labels)
        else:
            keep = valid_counts > 0
        result = self._select_rows(indexing.RowSelection(positions=xp.flatnonzero(keep)))
        if ignore_index:
            result._index = default_index(len(result), xp)
        return self._finish_inplace(result, inplace)

    def _dropna_columns(self, how: str, thresh: Any, subset: Any, inplace: bool) -> Any:
        keep = {}
        for label, column in self._data.items():
            n_valid = int(column.notna().sum())
            if thresh is not _NO_DEFAULT:
                ok = n_valid >= thresh
            else:
                ok = n_valid == len(self) if how == "any" else n_valid > 0
            if ok:
                keep[label] = column
        return self._finish_inplace(self._with_columns(keep), inplace)

    def _finish_inplace(self, result: DataFrame, inplace: bool) -> DataFrame | None:
        if not inplace:
            return result
        self._data, self._index = result._data, result._index
        return None

    def where(self, cond: Any, other: Any = np.nan, *, inplace: bool = False) -> Any:
        return self._finish_inplace(self._choose(cond, other, keep_when=True), inplace)

    def mask(self, cond: Any, other: Any = np.nan, *, inplace: bool = False) -> Any:
        return self._finish_inplace(self._choose(cond, other, keep_when=False), inplace)

    def _choose(self, cond: Any, other: Any, keep_when: bool) -> DataFrame:
        if callable(cond):
            cond = cond(self)
        if isinstance(cond, np.ndarray) or (hasattr(cond, "__cuda_array_interface__") and cond.ndim == 2):
            cond = DataFrame(cond, index=self._index, columns=list(self._data))
        if not isinstance(cond, DataFrame):
            raise ValueError("Array conditional must be same shape as self")

        def choose(label: Hashable, s: Series) -> Series:
            c = cond[label] if label in cond else Series._from_column(full(len(self), False, xp=self._xp()),
                                                                      self._index)  # fmt: skip
            o = other[label] if isinstance(other, DataFrame) else other
            return s.where(c, o) if keep_when else s.mask(c, o)

        return self._map_labels(choose)

    def clip(self, lower: Any = None, upper: Any = None, *, inplace: bool = False) -> Any:
        return self._finish_inplace(self._map_labels(lambda label, s: s.clip(lower, upper)), inplace)

    # --- cumulative and shifting -----------------------------------------------------------
    def cumsum(self, axis=None, skipna=True):
        return self._map_labels(lambda label, s: s.cumsum(skipna=skipna))

    def cumprod(self, axis=None, skipna=True):
        return self._map_labels(lambda label, s: s.cumprod(skipna=skipna))

    def cummin(self, axis=None, skipna=True):
        return self._map_labels(lambda label, s: s.cummin(skipna=skipna))

    def cummax(self, axis=None, skipna=True):
        return self._map_labels(lambda label, s: s.cummax(skipna=skipna))

    def shift(self, periods: int = 1, fill_value: Any = None) -> DataFrame:
        if len(self) == 0:
            return self.copy(deep=False)  # pandas keeps an empty frame's dtypes (a Series' shift upcasts)
        return self._map_labels(lambda label, s: s.shift(periods, fill_value=fill_value))

    def diff(self, periods: int = 1) -> DataFrame:
        return self._map_labels(lambda label, s: s.diff(periods))

    def pct_change(self, periods: int = 1) -> DataFrame:
        return self._map_labels(lambda label, s: s.pct_change(periods))

    def isin(self, values: Any) -> DataFrame:
        if isinstance(values, dict):
            return self._map_labels(lambda label, s: s.isin(values.get(label, [])))
        if isinstance(values, DataFrame | Series):
            return self._isin_aligned(values)
        if not pd.api.types.is_list_like(values):
            raise TypeError("only list-like or dict-like objects are allowed to be passed to DataFrame.isin(), "
                            f"you passed a '{type(values).__name__}'")  # fmt: skip
        return self._map_labels(lambda label, s: s.isin(values))

    def _isin_aligned(self, values: DataFrame | Series) -> DataFrame:
        """pandas' isin with a DataFrame or Series: each value equals the one at the same row label (and, for a
        DataFrame, the same column label) in ``values``; labels absent from ``values`` give False."""
        if not values.index.is_unique:  # one host check of the (small) index, as pandas
            raise ValueError("cannot compute isin with a duplicate axis.")
        frame = isinstance(values, DataFrame)
        result: dict[Hashable, Column] = {}
        for label in self._data:
            mine = self._column_series(label)
            if frame and label not in values._data:
                result[label] = full(len(self), False, np.dtype(bool), self._xp())
                if dtypes.is_masked(mine.dtype):  # pandas compares with an all-NaN column: <NA> where mine is
                    result[label] = mine.eq(Series._from_column(full(len(self), np.nan, np.float64, self._xp()),
                                                                self._index, label))._column  # fmt: skip
                continue
            other = values._column_series(label) if frame else values
            equal = mine.eq(other.reindex(self._index))._column
            if dtypes.is_masked(equal.dtype) and not (dtypes.is_masked(mine.dtype) or dtypes.is_masked(other.dtype)):
                # pandas reindexes a bool column to object (NaN for absent labels), which compares False
                equal = Series._from_column(equal, self._index, label).fillna(False).astype(bool)._column
            result[label] = equal
        return self._with_columns(result)


def _is_numeric_column(column: Column) -> bool:
    return isinstance(column, NumericColumn)


def _refuse_duplicate_labels(labels: list[Hashable]) -> None:
    """riptide keeps columns in a dict by label: a result with a repeated label would lose a column."""
    seen: set[Any] = set()
    repeated = [label for label in labels if label in seen or seen.add(label)]
    if repeated:
        raise ValueError(f"riptide DataFrames need unique column labels; {repeated} would repeat. "
                         "Select or rename so that each label appears once.")  # fmt: skip


def _fill_dtype(value: Any) -> Any:
    if isinstance(value, Column):
        return value.dtype if value.can_hold_missing() else dtypes.result_type(value.dtype, np.float64) if (
            value.dtype != bool) else pd.BooleanDtype()  # fmt: skip
    if isinstance(value, str):
        return dtypes.STRING
    return np.dtype(np.float64) if not isinstance(value, bool) else pd.BooleanDtype()


def _named_axis(labels: pd.Index, names: list[Any] | None) -> pd.Index:
    """Column labels with the frame's axis names, when they fit the labels' number of levels."""
    if names is None or len(names) != labels.nlevels:
        return labels
    return labels.set_names(names)


def _reset_names(index: Index, names: Any, default: Any) -> list[Any]:
    """The column labels reset_index gives the levels: ``names``, else the level names, else defaults."""
    if names is not None:
        if isinstance(names, int | str):
            names = [names]
        if not isinstance(names, list | tuple):
            raise ValueError("Index names must be str or 1-dimensional list")
        names = list(names)
        if len(names) != index.nlevels:
            raise ValueError(f"Length of names must match number of levels in MultiIndex ({index.nlevels}), got "
                             f"{len(names)}")  # fmt: skip
        return names
    if index.nlevels == 1:
        return [default if index.name is None else index.name]
    return [name if name is not None else f"level_{i}" for i, name in enumerate(index.names)]


def _column_depth(labels: list[Hashable]) -> int:
    """How many levels the column labels have: the tuple length when all are tuples of one length, else 1."""
    if labels and all(isinstance(label, tuple) for label in labels):
        lengths = {len(label) for label in labels}
        if len(lengths) == 1:
            return lengths.pop()
    return 1


def _filled_label(name: Any, depth: int, col_level: Any, col_fill: Any, columns: pd.Index) -> Any:
    """A label for a new column among ``depth``-level labels: ``name`` at ``col_level``, ``col_fill`` elsewhere."""
    if depth == 1:
        return name
    parts = list(name) if isinstance(name, tuple) else [name]
    level = columns._get_level_number(col_level) if not isinstance(col_level, int) else col_level
    fill = parts[0] if col_fill is None else col_fill
    filled = [fill] * level + parts
    return tuple(filled + [fill] * (depth - len(filled)))


def _first_occurrence(index: Index) -> Any:
    """Bool per row: no earlier row has the same label."""
    from riptide.core.ops.grouping import group_rows

    groups = group_rows(index._key_columns(), sort=False, dropna=False)
    xp = groups.xp
    first = xp.zeros(len(index), dtype=bool)
    first[groups.first_rows] = True
    return first


def _needs_reindex(current: Index, target: Index) -> bool:
    return not (current is target or current.equals(target))


def _align_frames(left: DataFrame, right: DataFrame) -> tuple[DataFrame, DataFrame]:
    union = left._index.union(right._index)
    return left.reindex(union), right.reindex(union)


def _common_length(columns: dict[Hashable, Column], index: Index | None) -> int:
    lengths = {c.size for c in columns.values()}
    if len(lengths) > 1:
        raise ValueError("All arrays must be of the same length")
    if lengths:
        return lengths.pop()
    return 0 if index is None else len(index)


def _columns_from(data: Any, columns: Any, dtype: Any, n_index: int | None = None
                  ) -> tuple[dict[Hashable, Column], Index | None]:  # fmt: skip
    """Columns (and an index, when the input carries one) from any DataFrame input.

    ``n_index`` is the length of an explicit index, which sizes columns given as scalars.
    """
    if data is None:
        return ({label: as_column([], dtype=dtype or np.float64) for label in columns} if columns is not None else {},
                None)  # fmt: skip
    if isinstance(data, DataFrame):
        selected = data._data if columns is None else {k: data._data[k] for k in columns}
        return ({k: cast.astype(c, dtype) if dtype is not None else c for k, c in selected.items()},
                data._index)  # fmt: skip
    if isinstance(data, pd.DataFrame):
        frame = data if columns is None else data[list(columns)]
        if frame.columns.has_duplicates:
            raise ValueError(f"riptide needs unique column labels; duplicated: {list(frame.columns[frame.columns.duplicated()])}")
        return ({label: as_column(frame[label], dtype=dtype) for label in frame.columns}, as_index(frame.index))
    if _is_arrow_table(data):
        import pyarrow as pa

        table = data if isinstance(data, pa.Table) else pa.table(data)
        names = table.column_names if columns is None else list(columns)
        return ({name: as_column(table.column(name), dtype=dtype) for name in names}, None)
    if isinstance(data, dict):
        labels = list(data.keys()) if columns is None else list(columns)
        series_index = None
        for value in data.values():
            if isinstance(value, Series | pd.Series):
                series_index = as_index(value.index) if series_index is None else series_index
        result: dict[Hashable, Column] = {}
        scalars = {}
        for label in labels:
            if label not in data:
                result[label] = None  # type: ignore[assignment]
                continue
            value = data[label]
            if isinstance(value, Series):
                if series_index is not None and not (value._index is series_index or value._index.equals(series_index)):
                    value = value.reindex(series_index)
                result[label] = value._column if dtype is None else cast.astype(value._column, dtype)
            elif is_scalar(value):
                scalars[label] = value
                result[label] = None  # type: ignore[assignment]
            else:
                result[label] = as_column(value, dtype=dtype)
        sizes = {c.size for c in result.values() if c is not None}
        if scalars and not sizes and series_index is None and n_index is None:
            raise ValueError("If using all scalar values, you must pass an index")
        fallback = len(series_index) if series_index is not None else (n_index or 0)
        n = sizes.pop() if len(sizes) == 1 else fallback
        if len(sizes) > 0:
            raise ValueError("All arrays must be of the same length")
        for label in labels:
            if result[label] is None:
                result[label] = full(n, scalars.get(label, np.nan), dtype)
        return result, series_index
    if isinstance(data, list) and data and isinstance(data[0], dict):
        frame = pd.DataFrame(data, columns=columns)
        return _columns_from(frame, None, dtype)
    if isinstance(data, pd.Series):
        data = Series(data)
    if isinstance(data, Series):
        label = 0 if data.name is None else data.name
        return {label: data._column}, data._index
    if hasattr(data, "__cuda_array_interface__") and getattr(data, "ndim", 1) == 2:
        import cupy

        device_array = cupy.asarray(data)
        labels = list(range(device_array.shape[1])) if columns is None else list(columns)
        return ({label: as_column(cupy.ascontiguousarray(device_array[:, i]), dtype=dtype)
                 for i, label in enumerate(labels)}, None)  # fmt: skip
    frame = pd.DataFrame(data if isinstance(data, list) else np.asarray(data), columns=columns)
    return _columns_from(frame, None, dtype)


def _is_arrow_table(data: Any) -> bool:
    import pyarrow as pa

    return isinstance(data, pa.Table | pa.RecordBatch) or (
        hasattr(data, "__arrow_c_stream__") and not isinstance(data, pd.DataFrame | pd.Series | Series))  # fmt: skip
