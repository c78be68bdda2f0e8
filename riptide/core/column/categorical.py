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

    ``categories`` and ``ordered`` are fixed at construction (read-only), so the pandas dtype, which holds
    the categories on the host, is built once, on first use, and shared by the columns derived by ``take``,
    ``slice`` and ``set_missing``.

    >>> col = CategoricalColumn.from_pandas(pd.Categorical(["b", "a", None, "b"]), np)
    >>> col.codes.tolist()
    [1, 0, -1, 1]
    >>> dtype = col.dtype
    >>> col.take(np.array([0, 1])).dtype is dtype
    True
    """

    __slots__ = ("codes", "_categories", "_ordered", "_dtype")

    def __init__(self, codes: Any, categories: Column, ordered: bool = False,
                 dtype: pd.CategoricalDtype | None = None):  # fmt: skip
        self.codes = codes
        self._categories = categories
        self._ordered = bool(ordered)
        self._dtype = dtype  # built lazily; a caller passes it only for these very categories and order
        self.mask = None

    @property
    def categories(self) -> Column:
        return self._categories

    @property
    def ordered(self) -> bool:
        return self._ordered

    @property
    def dtype(self) -> pd.CategoricalDtype:
        # pandas keeps categories on the host inside the dtype: built once (it is immutable, and so are the
        # categories and their order here).
        if self._dtype is None:
            self._dtype = pd.CategoricalDtype(pd.Index(self._categories.to_pandas_array()), ordered=self._ordered)
        return self._dtype

    def _with_codes(self, codes: Any) -> CategoricalColumn:
        """Other codes into the same categories (the cached dtype is shared)."""
        return CategoricalColumn(codes, self._categories, self._ordered, self._dtype)

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
        return self._with_codes(self.xp.where(missing, -1, self.codes).astype(self.codes.dtype))

    def take(self, indices: Any) -> CategoricalColumn:
        return self._with_codes(self.codes[indices])

    def slice(self, start: int, stop: int, step: int = 1) -> CategoricalColumn:
        return self._with_codes(self.codes[start:stop:step])

    def copy(self) -> CategoricalColumn:
        return CategoricalColumn(self.codes.copy(), self.categories.copy(), self.ordered, self._dtype)

    def to_device(self, xp: types.ModuleType) -> CategoricalColumn:
        if self.xp is xp:
            return self
        return CategoricalColumn(_device.to_device(self.codes, xp), self.categories.to_device(xp), self.ordered,
                                 self._dtype)  # fmt: skip

    def to_pandas_array(self) -> pd.Categorical:
        return pd.Categorical.from_codes(_device.to_host(self.codes), dtype=self.dtype)

    def to_arrow(self) -> pa.DictionaryArray:
        codes = _device.to_host(self.codes)
        missing = codes < 0
        # without missing values the codes' buffer is the indices as they are (no validity bitmap to build)
        indices = pa.array(codes, mask=missing) if missing.any() else pa.array(codes)
        # safe=False: codes index their categories by construction (the check is a pass over every row)
        return pa.DictionaryArray.from_arrays(indices, self.categories.to_arrow(), ordered=self.ordered, safe=False)

    def take_or_missing(self, indices: Any) -> CategoricalColumn:
        if self.size == 0:  # only missing rows can come from an empty column: code -1, the same categories
            return self._with_codes(self.xp.full(len(indices), -1, dtype=self.codes.dtype))
        return super().take_or_missing(indices)

    @classmethod
    def from_pandas(cls, values: pd.Categorical, xp: types.ModuleType) -> CategoricalColumn:
        categories = categories_column(values.categories, xp)
        return cls(_device.to_device(np.ascontiguousarray(values.codes), xp), categories, values.ordered)

    @classmethod
    def from_arrow(cls, array: pa.DictionaryArray, xp: types.ModuleType) -> CategoricalColumn:
        from riptide.core.column.build import column_from_arrow

        categories = column_from_arrow(array.dictionary, xp)
        indices = array.indices
        if pa.types.is_unsigned_integer(indices.type):  # (polars' categoricals: uint32) -1 marks a missing code
            indices = indices.cast(pa.int64())
        codes = indices.fill_null(-1).to_numpy(zero_copy_only=False)
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
