"""CategoricalColumn: integer codes into a column of unique categories (Arrow dictionary layout).

Missing rows have code -1, as in pandas. The codes use the smallest signed integer
type that holds the number of categories, as pandas chooses it.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from riptide import _device
from riptide.core.column.base import Column

__all__ = ["CategoricalColumn", "codes_dtype_for"]


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

    @classmethod
    def from_pandas(cls, values: pd.Categorical, xp: types.ModuleType) -> CategoricalColumn:
        from riptide.core.column.build import column_from_pandas

        categories = column_from_pandas(values.categories, xp)
        return cls(_device.to_device(np.ascontiguousarray(values.codes), xp), categories, values.ordered)

    @classmethod
    def from_arrow(cls, array: pa.DictionaryArray, xp: types.ModuleType) -> CategoricalColumn:
        from riptide.core.column.build import column_from_arrow

        categories = column_from_arrow(array.dictionary, xp)
        codes = array.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        codes = codes.astype(codes_dtype_for(len(array.dictionary)))
        return cls(_device.to_device(codes, xp), categories, array.type.ordered)
