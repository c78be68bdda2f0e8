"""CategoricalColumn: integer codes into a column of unique categories (Arrow dictionary layout).

Missing rows have code -1, as in pandas. The codes use the smallest signed integer
type that holds the number of categories, as pandas chooses it.

Categories whose values no riptide column can hold (pandas ``Interval``s, the categories of
``cut``/``qcut``) are kept as a small pandas Index on the host (:class:`HostCategories`): the codes
stay on the device and the categories are metadata, like column labels.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from riptide import _device
from riptide.core.column.base import Column

__all__ = ["CategoricalColumn", "HostCategories", "categories_column", "codes_dtype_for"]


def codes_dtype_for(n_categories: int) -> np.dtype:
    """pandas' choice of code width for ``n_categories`` categories."""
    for candidate in (np.int8, np.int16, np.int32):
        if n_categories < np.iinfo(candidate).max:
            return np.dtype(candidate)
    return np.dtype(np.int64)


class CategoricalColumn(Column):
    """``codes`` (int array, -1 = missing) indexing into ``categories`` (a Column of unique values).

    >>> col = CategoricalColumn.from_pandas(pd.Categorical(["b", "a", None, "b"]), np)
    >>> col.codes.tolist()
    [1, 0, -1, 1]
    """

    __slots__ = ("codes", "categories", "ordered")

    def __init__(self, codes: Any, categories: Column, ordered: bool = False):
        self.codes = codes
        self.categories = categories
        self.ordered = bool(ordered)
        self.mask = None

    @property
    def dtype(self) -> pd.CategoricalDtype:
        # pandas keeps categories on the host inside the dtype; building it copies them (usually few).
        return pd.CategoricalDtype(pd.Index(self.categories.to_pandas_array()), ordered=self.ordered)

    @property
    def size(self) -> int:
        return int(self.codes.shape[0])

    def _primary_buffer(self) -> Any:
        return self.codes

    @property
    def nbytes(self) -> int:
        return int(self.codes.nbytes) + self.categories.nbytes

    def isna(self) -> Any:
        return self.codes < 0

    def set_missing(self, missing: Any) -> CategoricalColumn:
        return CategoricalColumn(self.xp.where(missing, -1, self.codes).astype(self.codes.dtype), self.categories,
                                 self.ordered)  # fmt: skip

    def take(self, indices: Any) -> CategoricalColumn:
        return CategoricalColumn(self.codes[indices], self.categories, self.ordered)

    def slice(self, start: int, stop: int, step: int = 1) -> CategoricalColumn:
        return CategoricalColumn(self.codes[start:stop:step], self.categories, self.ordered)

    def copy(self) -> CategoricalColumn:
        return CategoricalColumn(self.codes.copy(), self.categories.copy(), self.ordered)

    def to_device(self, xp: types.ModuleType) -> CategoricalColumn:
        if self.xp is xp:
            return self
        return CategoricalColumn(_device.to_device(self.codes, xp), self.categories.to_device(xp), self.ordered)

    def to_pandas_array(self) -> pd.Categorical:
        return pd.Categorical.from_codes(_device.to_host(self.codes), dtype=self.dtype)

    def to_arrow(self) -> pa.DictionaryArray:
        codes = _device.to_host(self.codes)
        indices = pa.array(codes, mask=codes < 0)
        return pa.DictionaryArray.from_arrays(indices, self.categories.to_arrow(), ordered=self.ordered)

    def take_or_missing(self, indices: Any) -> CategoricalColumn:
        if self.size == 0:  # only missing rows can come from an empty column: code -1, the same categories
            return CategoricalColumn(self.xp.full(len(indices), -1, dtype=self.codes.dtype), self.categories,
                                     self.ordered)  # fmt: skip
        return super().take_or_missing(indices)

    @classmethod
    def from_pandas(cls, values: pd.Categorical, xp: types.ModuleType) -> CategoricalColumn:
        categories = categories_column(values.categories, xp)
        return cls(_device.to_device(np.ascontiguousarray(values.codes), xp), categories, values.ordered)

    @classmethod
    def from_arrow(cls, array: pa.DictionaryArray, xp: types.ModuleType) -> CategoricalColumn:
        from riptide.core.column.build import column_from_arrow

        categories = column_from_arrow(array.dictionary, xp)
        codes = array.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        codes = codes.astype(codes_dtype_for(len(array.dictionary)))
        return cls(_device.to_device(codes, xp), categories, array.type.ordered)


def categories_column(categories: pd.Index, xp: types.ModuleType) -> Column:
    """The categories as a device column, or as :class:`HostCategories` when no column type holds them."""
    from riptide.core.column.build import column_from_pandas

    try:
        return column_from_pandas(categories, xp)
    except TypeError:
        return HostCategories(categories)


class HostCategories(Column):
    """A small pandas Index kept on the host, for categories no riptide column can hold (``Interval``).

    It is only ever the ``categories`` of a :class:`CategoricalColumn`: the per-row codes live on the
    device, these few labels are metadata. Its operations run on the host; a ``take`` of one label per
    row (decoding the categorical, e.g. for ``astype(str)``) builds that many host values, which is
    only done when asked for.

    >>> cats = HostCategories(pd.IntervalIndex.from_breaks([0, 1, 2]))
    >>> col = CategoricalColumn(np.array([1, -1, 0], dtype=np.int8), cats, ordered=True)
    >>> col.to_pandas_array().tolist()
    [Interval(1.0, 2.0, closed='right'), nan, Interval(0.0, 1.0, closed='right')]
    """

    __slots__ = ("index",)

    def __init__(self, index: pd.Index):
        self.index = index
        self.mask = None

    @property
    def dtype(self) -> Any:
        return self.index.dtype

    @property
    def size(self) -> int:
        return len(self.index)

    def _primary_buffer(self) -> Any:
        return np.empty(0)

    @property
    def nbytes(self) -> int:
        return int(self.index.memory_usage())

    def isna(self) -> Any:
        return np.asarray(self.index.isna(), dtype=bool)

    def set_missing(self, missing: Any) -> HostCategories:
        return HostCategories(self.index.where(~_device.to_host(missing)))

    def take(self, indices: Any) -> HostCategories:
        return HostCategories(self.index.take(_device.to_host(indices)))

    def take_or_missing(self, indices: Any) -> HostCategories:
        # The array's take fills -1 with the missing value (an IntervalIndex's own take refuses to, in pandas 3.0).
        filled = self.index.array.take(_device.to_host(indices), allow_fill=True, fill_value=np.nan)
        return HostCategories(pd.Index(filled))

    def slice(self, start: int, stop: int, step: int = 1) -> HostCategories:
        return HostCategories(self.index[start:stop:step])

    def copy(self) -> HostCategories:
        return self  # a pandas Index is immutable

    def to_device(self, xp: types.ModuleType) -> HostCategories:
        return self  # metadata: stays on the host

    def to_arrow(self) -> pa.Array:
        return pa.array(self.index.array)

    def to_pandas_array(self) -> Any:
        return self.index.array
