"""ListColumn: one list of values per row, in Arrow's ``large_list`` layout — int64 offsets into a child column.

Row ``i`` is ``child[offsets[i]:offsets[i + 1]]``; ``mask`` (True = valid) marks missing lists. Offsets start
at 0 (imports are rebased, missing lists have no elements), so ``offsets[-1]`` is the child's length. The child
is any riptide column (numbers, strings, categoricals, lists), so gathers reuse its own ``take``.

The dtype is pandas' ``ArrowDtype`` of the list type, as pandas shows a list column read from Arrow. Columns of
Python lists (pandas ``object``) are converted through Arrow once, when they are made.

>>> import pyarrow as pa
>>> col = ListColumn.from_arrow(pa.array([[1, 2], None, [], [3]]), np)
>>> col.offsets.tolist(), col.child.data.tolist(), col.isna().tolist()
([0, 2, 2, 2, 3], [1, 2, 3], [False, True, False, False])
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from riptide import _device
from riptide.core.column.base import Column
from riptide.core.kernels.segments import segment_positions, take_offsets

__all__ = ["ListColumn"]


class ListColumn(Column):
    """Lists as ``offsets`` (int64, n+1) into ``child`` (a Column), with an optional validity ``mask``."""

    __slots__ = ("offsets", "child", "arrow_type")

    def __init__(self, offsets: Any, child: Column, mask: Any = None, arrow_type: Any = None):
        self.offsets = offsets
        self.child = child
        self.mask = mask
        # The Arrow list type the data came as (list / large_list of the child's type); None: large_list.
        self.arrow_type = arrow_type

    def _like(self, offsets: Any, child: Column, mask: Any) -> ListColumn:
        return ListColumn(offsets, child, mask, self.arrow_type)

    @property
    def dtype(self) -> Any:
        return pd.ArrowDtype(self._arrow_type())

    def _arrow_type(self) -> Any:
        if self.arrow_type is not None:
            return self.arrow_type
        return pa.large_list(_child_type(self.child))

    @property
    def size(self) -> int:
        return int(self.offsets.shape[0]) - 1

    def _primary_buffer(self) -> Any:
        return self.offsets

    @property
    def nbytes(self) -> int:
        return int(self.offsets.nbytes) + self.child.nbytes + self._mask_nbytes()

    def lengths(self) -> Any:
        """Elements per row (0 for a missing list)."""
        return self.offsets[1:] - self.offsets[:-1]

    # --- missing values ----------------------------------------------------------------
    def set_missing(self, missing: Any) -> ListColumn:
        # A list made missing keeps its elements in the child: the mask alone says it is missing.
        return self._like(self.offsets, self.child, self._combined_mask(missing))

    # --- layout operations -------------------------------------------------------------
    def take(self, indices: Any) -> ListColumn:
        xp = self.xp
        starts, new_offsets = take_offsets(self.offsets, indices, xp)
        elements = segment_positions(starts, new_offsets, xp)  # one scalar read on CuPy: the element count
        mask = None if self.mask is None else self.mask[indices]
        return self._like(new_offsets, self.child.take(elements), mask)

    def slice(self, start: int, stop: int, step: int = 1) -> ListColumn:
        if step != 1 or stop < start:
            return self.take(self.xp.arange(start, stop, step, dtype=np.int64))
        offsets = self.offsets[start : stop + 1]
        bounds = _device.to_host(self.xp.concatenate([offsets[:1], offsets[-1:]])) if offsets.shape[0] else (
            np.zeros(2, dtype=np.int64))  # fmt: skip
        first, last = int(bounds[0]), int(bounds[1])  # one small read: slicing rebases the offsets
        mask = None if self.mask is None else self.mask[start:stop]
        return self._like(offsets - first, self.child.slice(first, last), mask)

    def copy(self) -> ListColumn:
        mask = None if self.mask is None else self.mask.copy()
        return self._like(self.offsets.copy(), self.child.copy(), mask)

    def to_device(self, xp: types.ModuleType) -> ListColumn:
        if self.xp is xp:
            return self
        mask = None if self.mask is None else _device.to_device(self.mask, xp)
        return self._like(_device.to_device(self.offsets, xp), self.child.to_device(xp), mask)

    # --- conversion --------------------------------------------------------------------
    def to_arrow(self) -> pa.Array:
        offsets = pa.array(_device.to_host(self.offsets))
        mask = None if self.mask is None else pa.array(~_device.to_host(self.mask))
        array = pa.LargeListArray.from_arrays(offsets, self.child.to_arrow(), mask=mask)
        return array if self.arrow_type is None else array.cast(self.arrow_type)

    def to_pandas_array(self) -> Any:
        return pd.arrays.ArrowExtensionArray(self.to_arrow())

    @classmethod
    def from_arrow(cls, array: pa.Array, xp: types.ModuleType) -> ListColumn:
        """From a pyarrow ``list`` / ``large_list`` array (copies its buffers to ``xp``)."""
        import pyarrow.compute as pc

        from riptide.core.column.build import column_from_arrow

        source_type = None if pa.types.is_large_list(array.type) else array.type
        lengths = pc.list_value_length(array).fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        offsets = np.zeros(len(array) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        child = column_from_arrow(array.flatten(), xp)  # the elements of the valid lists, in order
        mask = None
        if array.null_count:
            mask = _device.to_device(np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool), xp)
        return cls(_device.to_device(offsets, xp), child, mask, source_type)

    @classmethod
    def from_objects(cls, objects: np.ndarray, xp: types.ModuleType) -> ListColumn | None:
        """From a NumPy object array of Python lists (tuples, arrays) and missing values; None if it is not one."""
        try:
            array = pa.array(objects, from_pandas=True)
        except (pa.ArrowException, TypeError, ValueError):
            return None
        if not (pa.types.is_list(array.type) or pa.types.is_large_list(array.type)):
            return None
        return cls.from_arrow(array.cast(pa.large_list(array.type.value_type)), xp)


def _child_type(child: Column) -> Any:
    """The Arrow type of the child's values, read from an empty slice of it (no data moves)."""
    return child.slice(0, 0).to_arrow().type
