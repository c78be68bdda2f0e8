"""Series: one column with row labels and a name — pandas' ``Series`` API over a device column.

>>> import riptide as rt
>>> s = rt.Series([1.0, None, 3.0], name="x")
>>> float(s.sum()), int(s.count())
(4.0, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn, as_column, full, is_scalar
from riptide.core.ops import binary, cast, missing, reduce, scan
from riptide.frame import indexing
from riptide.frame.index import Index, as_index, default_index
from riptide.frame.operators import OperatorMethods
from riptide.frame.sorting import SeriesSortingMethods, _series_axis
from riptide.frame.groupby import SeriesGroupByMethods
from riptide.frame.merge import SeriesMergeMethods
from riptide.frame.reshape import SeriesReshapeMethods
from riptide.frame.duplicates import SeriesDuplicatesMethods
from riptide.frame.replace import SeriesReplaceMethods
from riptide.frame.window import SeriesWindowMethods
from riptide.frame.stacking import SeriesStackingMethods
from riptide.frame.correlation import SeriesCorrelationMethods
from riptide.frame.multi_index import SeriesMultiIndexMethods
from riptide.frame.datetime_accessor import SeriesDatetimeAccessorMethods
from riptide.frame.categorical_accessor import SeriesCategoricalAccessorMethods
from riptide.frame.string_accessor import SeriesStringAccessorMethods
from riptide.frame.mapping import SeriesMappingMethods
from riptide.frame.apply import SeriesApplyMethods
from riptide.frame.resample import SeriesResampleMethods
from riptide.frame.interop import SeriesInteropMethods
from riptide.frame.protocol import SeriesProtocolMethods
from riptide.io.methods import SeriesIOMethods

__all__ = ["Series"]

_NO_DEFAULT = object()


class Series(
    OperatorMethods, SeriesSortingMethods, SeriesGroupByMethods, SeriesMergeMethods, SeriesReshapeMethods,
    SeriesDuplicatesMethods, SeriesWindowMethods, SeriesStackingMethods, SeriesCorrelationMethods,
    SeriesMultiIndexMethods, SeriesDatetimeAccessorMethods, SeriesCategoricalAccessorMethods,
    SeriesStringAccessorMethods, SeriesMappingMethods, SeriesResampleMethods, SeriesApplyMethods,
    SeriesIOMethods, SeriesInteropMethods, SeriesProtocolMethods, SeriesReplaceMethods,
):  # fmt: skip
    """One-dimensional labelled column on the GPU (or the CPU), with pandas semantics.

    Parameters
    ----------
    data : array-like, dict, scalar, pandas Series, pyarrow Array or CuPy array
    index : array-like or Index, optional
        Defaults to ``RangeIndex(len(data))``; a dict's keys when ``data`` is a dict.
    dtype : dtype, optional
    name : hashable, optional
    copy : bool, optional
    """

    __slots__ = ("_column", "_index", "name", "__weakref__")

    def __init__(self, data: Any = None, index: Any = None, dtype: Any = None, name: Any = None,
                 copy: bool | None = None):  # fmt: skip
        if isinstance(data, Series):
            column, data_index = data._column, data._index
            name = data.name if name is None else name
            if dtype is not None:
                column = cast.astype(column, dtype)
        elif isinstance(data, pd.Series):
            column, data_index = as_column(data, dtype=dtype), as_index(data.index)
            name = data.name if name is None else name
        elif isinstance(data, dict):
            keys = list(data.keys())
            column, data_index = as_column(list(data.values()), dtype=dtype), as_index(keys)
        elif data is None or is_scalar(data):
            size = len(index) if index is not None else (0 if data is None else 1)
            data_index = None
            if data is None and size == 0:
                # pandas makes an empty Series object-typed; riptide has no object columns: float64.
                column = as_column([], dtype=np.float64 if dtype is None else dtype)
            else:
                column = full(size, data, dtype if dtype is not None or data is not None else np.float64)
        else:
            if isinstance(data, Index):
                name = data.name if name is None else name
            column = data._as_column() if isinstance(data, Index) else as_column(data, dtype=dtype)
            data_index = None
        if index is not None:
            index = as_index(index)
            if data_index is not None and not (data_index is index) and isinstance(data, dict | pd.Series | Series):
                # Like pandas: a dict or Series is reindexed by an explicit index.
                aligned = Series._from_column(column, data_index).reindex(index)
                column = aligned._column
            elif len(index) != column.size:
                raise ValueError(f"Length of values ({column.size}) does not match length of index ({len(index)})")
        else:
            index = data_index if data_index is not None else default_index(column.size, column.xp)
        self._column = column.copy() if copy else column
        self._index = index
        self.name = name

    @classmethod
    def _from_column(cls, column: Column, index: Index | None = None, name: Any = None) -> Series:
        """Wrap a column without validation (the fast path every operation returns through)."""
        series = object.__new__(cls)
        series._column = column
        series._index = index if index is not None else default_index(column.size, column.xp)
        series.name = name
        return series

    def _with_column(self, column: Column) -> Series:
        return Series._from_column(column, self._index, self.name)

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
    def dtype(self) -> Any:
        return self._column.dtype

    dtypes = dtype

    @property
    def shape(self) -> tuple[int]:
        return (self._column.size,)

    @property
    def size(self) -> int:
        return self._column.size

    @property
    def ndim(self) -> int:
        return 1

    @property
    def empty(self) -> bool:
        return self._column.size == 0

    @property
    def nbytes(self) -> int:
        return self._column.nbytes

    @property
    def hasnans(self) -> bool:
        return bool(self.isna().any())

    def __len__(self) -> int:
        return self._column.size

    @property
    def values(self) -> Any:
        """The data as a CuPy array on the GPU, NumPy on the CPU (no copy for plain numeric dtypes)."""
        column = self._column
        if isinstance(column, NumericColumn) and not dtypes.is_masked(column.dtype):
            if dtypes.is_datetimelike(column.dtype) and column.xp is np:
                return column.data.view(column.dtype)
            return column.data
        return self.to_numpy()

    def to_numpy(self, dtype: Any = None, copy: bool = False, na_value: Any = _NO_DEFAULT) -> np.ndarray:
        """A NumPy array on the host (copies from the device)."""
        kwargs = {} if na_value is _NO_DEFAULT else {"na_value": na_value}
        return self.to_pandas().to_numpy(dtype=dtype, copy=copy, **kwargs)

    def to_cupy(self, dtype: Any = None, na_value: Any = _NO_DEFAULT) -> Any:
        """A CuPy array on the device (zero-copy for plain numeric columns already on the GPU)."""
        import cupy

        column = self._column
        if isinstance(column, NumericColumn) and not dtypes.is_masked(column.dtype) and na_value is _NO_DEFAULT:
            data = _device.to_device(column.data, cupy)
            return data if dtype is None else data.astype(dtype)
        if isinstance(column, NumericColumn) and dtypes.is_masked(column.dtype):
            if column.mask is not None and na_value is _NO_DEFAULT:
                raise ValueError("cannot convert a column with missing values to a CuPy array; pass na_value=")
            data = _device.to_device(column.values_or(0 if na_value is _NO_DEFAULT else na_value), cupy)
            return data if dtype is None else data.astype(dtype)
        raise TypeError(f"a column of dtype {self.dtype} has no CuPy form; use to_numpy() or to_arrow()")

    def to_pandas(self) -> pd.Series:
        return pd.Series(self._column.to_pandas_array(), index=self._index.to_pandas(), name=self.name, copy=False)

    def to_arrow(self) -> Any:
        return self._column.to_arrow()

    def tolist(self) -> list[Any]:
        return self.to_pandas().tolist()

    to_list = tolist

    def to_frame(self, name: Any = _NO_DEFAULT) -> Any:
        from riptide.frame.dataframe import DataFrame

        label = (0 if self.name is None else self.name) if name is _NO_DEFAULT else name
        return DataFrame._from_columns({label: self._column}, self._index)

    def __iter__(self):
        return iter(self.tolist())

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.asarray(self.to_numpy(), dtype=dtype)

    def __bool__(self) -> bool:
        raise ValueError("The truth value of a Series is ambiguous. Use a.empty, a.bool(), a.item(), a.any() or "
                         "a.all().")  # fmt: skip

    def keys(self) -> Index:
        return self._index

    def item(self) -> Any:
        if len(self) != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return indexing.scalar_at(self._column, 0)

    # --- display -------------------------------------------------------------------------
    def __repr__(self) -> str:
        from riptide.frame import display

        return display.series_repr(self)

    def _repr_html_(self) -> str | None:
        return None  # Jupyter shows the text repr for a Series, as with pandas

    # --- copying, renaming ---------------------------------------------------------------
    def copy(self, deep: bool = True) -> Series:
        return Series._from_column(self._column.copy() if deep else self._column, self._index, self.name)

    def rename(self, index: Any = None, *, inplace: bool = False) -> Series | None:
        """Set the name (scalar) or relabel the index (dict or function), as pandas."""
        result = self.copy(deep=False)
        if callable(index) or isinstance(index, dict):
            labels = self._index.to_pandas().map(index if callable(index) else lambda k: index.get(k, k))
            result._index = as_index(labels)
        else:
            result.name = index
        if inplace:
            self._index, self.name = result._index, result.name
            return None
        return result

    def astype(self, dtype: Any, copy: bool | None = None, errors: str = "raise") -> Series:
        if errors not in ("raise", "ignore"):
            raise ValueError(f"errors must be 'raise' or 'ignore', got {errors!r}")
        try:
            return self._with_column(cast.astype(self._column, dtype))
        except (TypeError, ValueError):
            if errors == "ignore":
                return self.copy()
            raise

    def head(self, n: int = 5) -> Series:
        return self.iloc[:n]

    def tail(self, n: int = 5) -> Series:
        return self.iloc[len(self):] if n == 0 else self.iloc[-n:]  # -0 would mean "everything"

    def reset_index(self, level: Any = None, *, drop: bool = False, name: Any = _NO_DEFAULT, inplace: bool = False,
                    allow_duplicates: bool = False) -> Any:
        """Index levels (all, or ``level``) back to columns of a DataFrame; with ``drop``, a Series without them."""
        if drop:
            numbers = list(range(self._index.nlevels)) if level is None else self._index._level_numbers(level)
            kept = [i for i in range(self._index.nlevels) if i not in numbers]
            index = self._index._keep_levels(kept) if kept else default_index(len(self), self._column.xp)
            if inplace:
                self._index = index
                return None
            return Series._from_column(self._column, index, self.name)
        if inplace:
            raise TypeError("Cannot reset_index inplace on a Series to create a DataFrame")
        label = (0 if self.name is None else self.name) if name is _NO_DEFAULT else name
        return self.to_frame(label).reset_index(level=level, allow_duplicates=allow_duplicates)

    def droplevel(self, level: Any, axis: Any = 0) -> Series:
        """Without the given index level(s) (a MultiIndex keeps at least one)."""
        if axis not in (0, "index"):
            raise ValueError(f"No axis named {axis} for object type Series")
        return Series._from_column(self._column, self._index.droplevel(level), self.name)

    def drop(self, labels: Any = None, *, index: Any = None, errors: str = "raise") -> Series:
        labels = index if labels is None else labels
        positions = _drop_positions(self._index, labels, errors)
        return self._take(positions)

    def _take(self, positions: Any) -> Series:
        return Series._from_column(self._column.take(positions), self._index.take(positions), self.name)

    def reindex(self, index: Any, fill_value: Any = None) -> Series:
        """Rows for the labels of ``index``; labels not present become missing (or ``fill_value``)."""
        target = as_index(index)
        if target is self._index or target.equals(self._index):
            return Series._from_column(self._column, target, self.name)
        if not self._index.is_unique:
            raise ValueError("cannot reindex on an axis with duplicate labels")
        positions = self._index.get_indexer(target)
        return Series._from_column(reindex_column(self._column, positions, fill_value), target, self.name)

    # --- selection -------------------------------------------------------------------------
    @property
    def iloc(self) -> indexing.ILocIndexer:
        return indexing.ILocIndexer(self)

    @property
    def loc(self) -> indexing.LocIndexer:
        return indexing.LocIndexer(self)

    def _select(self, selection: indexing.RowSelection) -> Any:
        if selection.scalar:
            position = selection.slice.start
            return indexing.scalar_at(self._column, position)
        return Series._from_column(selection.apply_column(self._column), selection.apply_index(self._index),
                                   self.name)  # fmt: skip

    def _iloc_get(self, key: Any) -> Any:
        key = indexing.callable_key(key, self)
        if isinstance(key, tuple):
            raise pd.errors.IndexingError("Too many indexers")
        return self._select(indexing.iloc_rows(key, len(self), self._column.xp))

    def _loc_get(self, key: Any) -> Any:
        key = indexing.callable_key(key, self)
        return self._select(indexing.loc_rows(key, self._index, self._column.xp))

    def __getitem__(self, key: Any) -> Any:
        key = indexing.callable_key(key, self)
        if isinstance(key, slice) and _is_positional_slice(key):
            return self._select(indexing.iloc_rows(key, len(self), self._column.xp))
        return self._loc_get(key)

    def _iloc_set(self, key: Any, value: Any) -> None:
        selection = indexing.iloc_rows(indexing.callable_key(key, self), len(self), self._column.xp)
        self._column = indexing.set_rows(self._column, selection, _unwrap(value))

    def _loc_set(self, key: Any, value: Any) -> None:
        key = indexing.callable_key(key, self)
        try:
            selection = indexing.loc_rows(key, self._index, self._column.xp)
        except KeyError:
            if not is_scalar(key) or not is_scalar(value):
                raise
            self._append_row(key, value)  # pandas enlarges: s.loc[new_label] = value adds a row
            return
        self._column = indexing.set_rows(self._column, selection, _unwrap(value))

    def _append_row(self, label: Any, value: Any) -> None:
        xp = self._column.xp
        row = full(1, value, xp=xp) if not missing.is_missing_scalar(value) else full(1, None, self.dtype, xp=xp)
        column = cast.concat_common(self._column, row)
        index = cast.concat_common(self._index._as_column(), as_column([label], xp=xp))
        self._column, self._index = column, Index._from_column(index, self._index.name)

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, slice) and _is_positional_slice(key):
            self._iloc_set(key, value)
        else:
            self._loc_set(key, value)

    # --- operators -----------------------------------------------------------------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """``np.log(s)`` runs on the device; ``np.float64(2) * s`` is the reflected operator (see frame/ufuncs.py)."""
        from riptide.frame.ufuncs import apply_ufunc

        return apply_ufunc(self, ufunc, method, inputs, kwargs)

    def _binary(self, other: Any, op: str, reflected: bool = False, flex: bool = False) -> Any:
        """``self <op> other``. ``flex`` is a method call (``s.eq(t)``): it aligns instead of raising."""
        from riptide.frame.dataframe import DataFrame

        if isinstance(other, DataFrame):
            return NotImplemented
        left, index, name = self._column, self._index, self.name
        if isinstance(other, Series):
            right: Any = other._column
            if not (other._index is index or other._index.equals(index)):
                if op in binary.COMPARISON and not flex:
                    raise ValueError("Can only compare identically-labeled Series objects")
                left_aligned, right_aligned = _align(self, other)
                left, right, index = left_aligned._column, right_aligned._column, left_aligned._index
                if op in binary.LOGICAL:
                    left = Series._fill_bool_gaps(left, self.dtype, other.dtype)
                    right = Series._fill_bool_gaps(right, other.dtype, self.dtype)
            name = self.name if _names_match(self.name, other.name) else None
        elif isinstance(other, Index):
            right = other._as_column()
            _check_length(len(self), right.size)
        elif is_scalar(other):
            right = other
        else:
            right = as_column(other, xp=left.xp)
            _check_length(len(self), right.size)
        return Series._from_column(binary.binary_op(left, right, op, reflected), index, name)

    @staticmethod
    def _fill_bool_gaps(column: Column, dtype: Any, other_dtype: Any) -> Column:
        """A bool Series aligned for ``& | ^``: pandas aligns it as objects, so a missing row is NaN, which a bool
        operand reads as False and a masked one (boolean) as True. bool with bool stays bool."""
        if dtype != np.bool_ or not isinstance(column, NumericColumn) or column.mask is None:
            return column
        return NumericColumn(column.values_or(dtypes.is_masked(other_dtype)))



    def add(self, other, fill_value=None): return self._flex(other, "add", fill_value)
    def sub(self, other, fill_value=None): return self._flex(other, "sub", fill_value)
    def mul(self, other, fill_value=None): return self._flex(other, "mul", fill_value)
    def truediv(self, other, fill_value=None): return self._flex(other, "truediv", fill_value)
    def floordiv(self, other, fill_value=None): return self._flex(other, "floordiv", fill_value)
    def mod(self, other, fill_value=None): return self._flex(other, "mod", fill_value)
    def pow(self, other, fill_value=None): return self._flex(other, "pow", fill_value)
    def radd(self, other, fill_value=None): return self._flex(other, "add", fill_value, reflected=True)
    def rsub(self, other, fill_value=None): return self._flex(other, "sub", fill_value, reflected=True)
    def rmul(self, other, fill_value=None): return self._flex(other, "mul", fill_value, reflected=True)
    def rtruediv(self, other, fill_value=None): return self._flex(other, "truediv", fill_value, reflected=True)
    def eq(self, other): return self._binary(other, "eq", flex=True)
    def ne(self, other): return self._binary(other, "ne", flex=True)
    def lt(self, other): return self._binary(other, "lt", flex=True)
    def le(self, other): return self._binary(other, "le", flex=True)
    def gt(self, other): return self._binary(other, "gt", flex=True)
    def ge(self, other): return self._binary(other, "ge", flex=True)

    div = truediv

    def _flex(self, other: Any, op: str, fill_value: Any, reflected: bool = False) -> Series:
        """Operator with ``fill_value`` standing in where exactly one side is missing (pandas' flex ops)."""
        if fill_value is None:
            return self._binary(other, op, reflected)
        left = self
        if isinstance(other, Series):
            if not (other._index is self._index or other._index.equals(self._index)):
                left, other = _align(self, other)
            left_missing, right_missing = left.isna(), other.isna()
            left = left.mask(left_missing & ~right_missing, fill_value)
            other = other.mask(right_missing & ~left_missing, fill_value)
        else:
            left = left.fillna(fill_value)
        return left._binary(other, op, reflected)

    def __neg__(self) -> Series:
        column = self._column
        if isinstance(column, NumericColumn) and column.kind == "b":  # pandas negates booleans logically
            return self._with_column(NumericColumn(column.xp.logical_not(column.data), column.dtype, column.mask))
        if not isinstance(column, NumericColumn) or column.dtype.kind == "M":
            raise TypeError(f"bad operand type for unary -: '{self.dtype}'")
        return self._with_column(NumericColumn(-column.data, column.dtype, column.mask) if column.dtype.kind != "m" else (
            NumericColumn(column.xp.where(column.data == dtypes.NAT, dtypes.NAT, -column.data), column.dtype)))  # fmt: skip

    def __pos__(self) -> Series:
        column = self._column
        if not isinstance(column, NumericColumn) or column.dtype.kind == "M":
            raise TypeError(f"bad operand type for unary +: '{self.dtype}'")
        return self.copy()

    def __invert__(self) -> Series:
        column = self._column
        if not isinstance(column, NumericColumn) or column.kind not in "biu":
            raise TypeError(f"bad operand type for unary ~: '{self.dtype}'")
        return self._with_column(NumericColumn(column.xp.invert(column.data), column.dtype, column.mask))

    def __abs__(self) -> Series:
        return self.abs()

    def abs(self) -> Series:
        column = self._column
        if not isinstance(column, NumericColumn) or column.dtype.kind == "M":
            raise TypeError(f"bad operand type for abs(): '{self.dtype}'")
        data = column.xp.abs(column.data)
        if column.dtype.kind == "m":
            data = column.xp.where(column.data == dtypes.NAT, dtypes.NAT, data)
        return self._with_column(NumericColumn(data, column.dtype, column.mask))

    def round(self, decimals: int = 0) -> Series:
        column = self._column
        if not isinstance(column, NumericColumn) or dtypes.is_datetimelike(column.dtype):
            raise TypeError(f"Expected numeric dtype, got {self.dtype} instead.")
        if column.kind == "b":
            return self.copy()
        if column.kind in "iu":
            return self.copy() if decimals >= 0 else self._with_column(NumericColumn(
                (column.xp.round(column.data.astype(np.float64), decimals)).astype(column.data.dtype), column.dtype,
                column.mask))  # fmt: skip
        return self._with_column(NumericColumn(column.xp.round(column.data, decimals), column.dtype, column.mask))

    # --- reductions ----------------------------------------------------------------------
    def _reduce(self, op: str, skipna: bool = True, axis: Any = None, numpy_kwargs: dict | None = None,
                **kwargs: Any) -> Any:  # fmt: skip
        """One reduction; ``axis`` and ``numpy_kwargs`` (what ``np.sum(s)`` and friends pass) are checked as pandas
        checks them."""
        if axis is not None or numpy_kwargs:
            from riptide.frame.reductions import check_numpy_arguments

            check_numpy_arguments(op, axis, numpy_kwargs or {})
        return reduce.reduce(self._column, op, skipna=skipna, **kwargs)

    def sum(self, axis=None, skipna: bool = True, numeric_only: bool = False, min_count: int = 0, **kwargs):
        return self._reduce("sum", skipna, axis, kwargs, min_count=min_count)

    def prod(self, axis=None, skipna: bool = True, numeric_only: bool = False, min_count: int = 0, **kwargs):
        return self._reduce("prod", skipna, axis, kwargs, min_count=min_count)

    product = prod

    def mean(self, axis=None, skipna: bool = True, numeric_only: bool = False, **kwargs):
        return self._reduce("mean", skipna, axis, kwargs)

    def median(self, axis=None, skipna: bool = True, numeric_only: bool = False, **kwargs):
        return self._reduce("median", skipna, axis, kwargs)

    def min(self, axis=None, skipna: bool = True, numeric_only: bool = False, **kwargs):
        return self._reduce("min", skipna, axis, kwargs)

    def max(self, axis=None, skipna: bool = True, numeric_only: bool = False, **kwargs):
        return self._reduce("max", skipna, axis, kwargs)

    def std(self, axis=None, skipna: bool = True, ddof: int = 1, numeric_only: bool = False, **kwargs):
        return self._reduce("std", skipna, axis, kwargs, ddof=ddof)

    def var(self, axis=None, skipna: bool = True, ddof: int = 1, numeric_only: bool = False, **kwargs):
        return self._reduce("var", skipna, axis, kwargs, ddof=ddof)

    def sem(self, axis=None, skipna: bool = True, ddof: int = 1, numeric_only: bool = False, **kwargs):
        return self._reduce("sem", skipna, axis, kwargs, ddof=ddof)

    def any(self, axis=None, bool_only: bool = False, skipna: bool = True, **kwargs):
        return self._reduce("any", skipna, axis, kwargs)

    def all(self, axis=None, bool_only: bool = False, skipna: bool = True, **kwargs):
        return self._reduce("all", skipna, axis, kwargs)

    def count(self) -> np.int64:
        return self._reduce("count")

    def nunique(self, dropna: bool = True) -> int:
        return reduce.nunique(self._column, dropna=dropna)

    def idxmin(self, axis=None, skipna: bool = True) -> Any:
        return self._index[reduce.argreduce(self._column, "argmin", skipna=skipna)]

    def idxmax(self, axis=None, skipna: bool = True) -> Any:
        return self._index[reduce.argreduce(self._column, "argmax", skipna=skipna)]

    def argmin(self, axis=None, skipna: bool = True) -> np.int64 | int:
        return self._position(reduce.argreduce(self._column, "argmin", skipna=skipna))

    def argmax(self, axis=None, skipna: bool = True) -> np.int64 | int:
        return self._position(reduce.argreduce(self._column, "argmax", skipna=skipna))

    def _position(self, position: np.int64) -> np.int64 | int:
        # pandas gives np.int64, except for its (Arrow-backed) str dtype, whose argmin/argmax are Python ints.
        return int(position) if dtypes.is_string(self.dtype) else position

    def quantile(self, q: Any = 0.5, interpolation: str = "linear") -> Any:
        from riptide.core.ops.quantile import quantile, quantile_column

        if is_scalar(q):
            return quantile(self._column, [float(q)], interpolation)[0]
        qs = [float(v) for v in q]
        index = as_index(pd.Index(qs, dtype=np.float64))
        return Series._from_column(quantile_column(self._column, qs, interpolation), index, self.name)

    def describe(self, percentiles: Any = None) -> Series:
        from riptide.frame import describe

        return describe.describe_series(self, percentiles)

    def memory_usage(self, index: bool = True, deep: bool = False) -> int:
        return self._column.nbytes + (self._index.nbytes if index else 0)

    def equals(self, other: Any) -> bool:
        """Same dtype, same values (missing where the other is missing) and same index labels."""
        if not isinstance(other, Series) or len(other) != len(self) or other.dtype != self.dtype:
            return False
        if not self._index.equals(other._index):
            return False
        both_missing = self._column.isna() & other._column.isna()
        same = binary.binary_op(self._column, other._column, "eq")
        return bool((same.values_or(False) | both_missing).all())

    # --- missing values ------------------------------------------------------------------
    def isna(self) -> Series:
        return self._with_column(NumericColumn(self._column.isna()))

    isnull = isna

    def notna(self) -> Series:
        return self._with_column(NumericColumn(self._column.notna()))

    notnull = notna

    def fillna(self, value: Any = None, *, axis: Any = None, inplace: bool = False, limit: int | None = None) -> Any:
        if value is None:
            raise ValueError("Must specify a fill 'value'.")
        if isinstance(value, dict | pd.Series | Series):
            value = Series(value) if not isinstance(value, Series) else value
            value = value.reindex(self._index)._column
        elif not is_scalar(value):
            raise TypeError(f'"value" parameter must be a scalar or dict, but you passed a "{type(value).__name__}"')
        if limit is not None:
            raise NotImplementedError("fillna(limit=) is not supported yet; use ffill(limit=) / bfill(limit=)")
        result = self._with_column(missing.fillna(self._column, value))
        return self._finish_inplace(result, inplace)

    def ffill(self, *, limit: int | None = None, inplace: bool = False) -> Any:
        return self._finish_inplace(self._with_column(scan.fill_direction(self._column, True, limit)), inplace)

    def bfill(self, *, limit: int | None = None, inplace: bool = False) -> Any:
        return self._finish_inplace(self._with_column(scan.fill_direction(self._column, False, limit)), inplace)

    def dropna(self, *, axis: Any = 0, inplace: bool = False, how: Any = None, ignore_index: bool = False) -> Any:
        keep = self._column.notna()
        result = self._take(self._column.xp.flatnonzero(keep)) if self._column.can_hold_missing() else self.copy(
            deep=False)  # fmt: skip
        if ignore_index:
            result._index = default_index(len(result), self._column.xp)
        return self._finish_inplace(result, inplace)

    def _finish_inplace(self, result: Series, inplace: bool) -> Series | None:
        if not inplace:
            return result
        self._column, self._index = result._column, result._index
        return None

    def where(self, cond: Any, other: Any = np.nan, *, inplace: bool = False) -> Any:
        keep = _condition(self, cond)
        other = _other_values(self, other)
        result = self._with_column(missing.where(self._column, keep, other))
        return self._finish_inplace(result, inplace)

    def mask(self, cond: Any, other: Any = np.nan, *, inplace: bool = False) -> Any:
        keep = ~_condition(self, cond)
        other = _other_values(self, other)
        result = self._with_column(missing.where(self._column, keep, other))
        return self._finish_inplace(result, inplace)

    def clip(self, lower: Any = None, upper: Any = None, *, axis: Any = None, inplace: bool = False) -> Any:
        _series_axis(axis)
        result = self
        if lower is not None and not (is_scalar(lower) and missing.is_missing_scalar(lower)):
            result = result.where((result >= lower) | result.isna(), lower)
        if upper is not None and not (is_scalar(upper) and missing.is_missing_scalar(upper)):
            result = result.where((result <= upper) | result.isna(), upper)
        return self._finish_inplace(result if result is not self else self.copy(), inplace)

    # --- cumulative and shifting -----------------------------------------------------------
    def cumsum(self, axis=None, skipna: bool = True) -> Series:
        return self._with_column(scan.cumulative(self._column, "cumsum", skipna))

    def cumprod(self, axis=None, skipna: bool = True) -> Series:
        return self._with_column(scan.cumulative(self._column, "cumprod", skipna))

    def cummin(self, axis=None, skipna: bool = True) -> Series:
        return self._with_column(scan.cumulative(self._column, "cummin", skipna))

    def cummax(self, axis=None, skipna: bool = True) -> Series:
        return self._with_column(scan.cumulative(self._column, "cummax", skipna))

    def shift(self, periods: int = 1, freq: Any = None, fill_value: Any = None) -> Series:
        if freq is not None:
            raise NotImplementedError("shift(freq=) arrives with the datetime work (issue 4)")
        if not isinstance(periods, int | np.integer):
            raise TypeError(f"Periods must be integer, but {periods} is {type(periods).__name__}.")
        return self._with_column(scan.shift(self._column, int(periods), fill_value))

    def diff(self, periods: int = 1) -> Series:
        if not isinstance(periods, int | np.integer):
            raise ValueError(f"periods must be an integer, got {periods!r}")
        return self._with_column(scan.diff(self._column, int(periods)))

    def pct_change(self, periods: int = 1) -> Series:
        shifted = self.shift(periods)
        return self / shifted - 1

    # --- membership ------------------------------------------------------------------------
    def isin(self, values: Any) -> Series:
        from riptide.core.ops.membership import isin

        if is_scalar(values):
            raise TypeError(f"only list-like objects are allowed to be passed to isin(), you passed a "
                            f"`{type(values).__name__}`")  # fmt: skip
        return self._with_column(isin(self._column, values))

    def between(self, left: Any, right: Any, inclusive: str = "both") -> Series:
        if inclusive not in ("both", "neither", "left", "right"):
            raise ValueError("Inclusive has to be either string of 'both','left', 'right', or 'neither'.")
        lower = self >= left if inclusive in ("both", "left") else self > left
        upper = self <= right if inclusive in ("both", "right") else self < right
        return lower & upper

    # --- info ----------------------------------------------------------------------------
    def info(self, buf: Any = None) -> None:
        from riptide.frame import display

        display.info(self.to_frame(), buf, series=self)


def reindex_column(column: Column, positions: Any, fill_value: Any = None) -> Column:
    """Rows at ``positions``; -1 gives a missing row, or ``fill_value`` (then the dtype follows the fill)."""
    if fill_value is None:
        return column.take_or_missing(positions)
    xp = column.xp
    absent = positions < 0
    if column.size == 0:
        return full(positions.shape[0], fill_value, xp=xp)
    gathered = column.take(xp.where(absent, 0, positions))
    return missing.fill_where(gathered, absent, fill_value)


def _is_positional_slice(key: slice) -> bool:
    return all(b is None or isinstance(b, int | np.integer) for b in (key.start, key.stop, key.step))


def _unwrap(value: Any) -> Any:
    if isinstance(value, Series):
        return value._column
    return value


def _names_match(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) or (a is None and b is None)
    except (TypeError, ValueError):
        return a is b


def _check_length(expected: int, got: int) -> None:
    if expected != got:
        raise ValueError(f"Lengths must match: the Series has {expected} rows, the other operand {got}")


def _align(left: Series, right: Series) -> tuple[Series, Series]:
    """Both series on the union of their labels (pandas' outer alignment: sorted when the labels differ).

    Only a label that is really absent from a side makes a missing value there (and so turns int64 into
    float64): the same labels in another order only reorder the rows, keeping the dtype.
    """
    if not left._index.is_unique or not right._index.is_unique:
        raise NotImplementedError("aligning Series with duplicate labels needs a join (issue 3); "
                                  "reset_index() or align positions first")  # fmt: skip
    union = left._index.union(right._index)

    def onto(series: Series) -> Series:
        if union is series._index or union.equals(series._index):
            return Series._from_column(series._column, union, series.name)
        positions = series._index.get_indexer(union)
        # take_or_missing reads one scalar, whether any position is -1: the dtype changes only if a label is absent
        return Series._from_column(series._column.take_or_missing(positions), union, series.name)

    return onto(left), onto(right)


def _condition(series: Series, cond: Any) -> Any:
    if callable(cond):
        cond = cond(series)
    if isinstance(cond, Series):
        if not (cond._index is series._index or cond._index.equals(series._index)):
            cond = cond.reindex(series._index, fill_value=False)
        column = cond._column
    else:
        column = as_column(cond, xp=series._column.xp)
    if column.size != len(series):
        raise ValueError("Array conditional must be same shape as self")
    if not (isinstance(column, NumericColumn) and column.kind == "b"):
        raise TypeError("Boolean array expected for the condition, not " + str(column.dtype))
    return column.values_or(False)


def _other_values(series: Series, other: Any) -> Any:
    if callable(other):
        other = other(series)
    if isinstance(other, Series):
        return other.reindex(series._index)._column if not other._index.equals(series._index) else other._column
    if is_scalar(other):
        return other
    return as_column(other, xp=series._column.xp)


def _drop_positions(index: Index, labels: Any, errors: str) -> Any:
    """Positions of the rows that remain after dropping ``labels``."""
    xp = index._namespace
    label_list = [labels] if is_scalar(labels) or isinstance(labels, tuple) else labels
    drop = xp.zeros(len(index), dtype=bool)
    if index.nlevels > 1:  # tuples, or first-level labels that drop all their rows: one lookup per label
        absent = []
        for label in label_list:
            try:
                location = index.get_loc(label)
            except KeyError:
                absent.append(label)
                continue
            drop[location] = True  # an int, a slice or a bool mask of the rows
        if absent and errors == "raise":
            raise KeyError(f"{absent} not found in axis")
        return xp.flatnonzero(~drop)
    matched = index._match(Index(label_list)._as_column())
    counts = matched[1]
    if errors == "raise" and bool((counts == 0).any()):
        absent = [label for label, c in zip(label_list, _device.to_host(counts)) if c == 0]
        raise KeyError(f"{absent} not found in axis")
    if counts.shape[0]:
        from riptide.frame.index import _expand_matches

        found = counts > 0
        positions = _expand_matches(matched[2], matched[3][found], counts[found], xp)
        drop[positions] = True
    return xp.flatnonzero(~drop)
