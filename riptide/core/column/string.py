"""StringColumn: Arrow ``large_string`` layout — int64 offsets, UTF-8 bytes, validity.

Row ``i`` is ``chars[offsets[i]:offsets[i + 1]]``. Offsets always start at 0 in a
riptide column (slices and imports are rebased), so ``offsets[-1]`` is the byte count.
The dtype is pandas 3's default ``str`` dtype, whose missing value is NaN.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from riptide import _device
from riptide.core import dtypes
from riptide.core.column.base import Column
from riptide.core.kernels import segments

__all__ = ["StringColumn"]


class StringColumn(Column):
    """UTF-8 strings as ``offsets`` (int64, n+1) and ``chars`` (uint8).

    >>> col = StringColumn.from_arrow(pa.array(["a", None, "xyz"]), np)
    >>> col.offsets.tolist(), bytes(col.chars)
    ([0, 1, 1, 4], b'axyz')
    """

    __slots__ = ("offsets", "chars", "arrow_type")

    def __init__(self, offsets: Any, chars: Any, mask: Any = None, arrow_type: Any = None):
        self.offsets = offsets
        self.chars = chars
        self.mask = mask
        # The Arrow type the data came as (string / string_view); exported as such again. None: large_string.
        self.arrow_type = arrow_type

    def _like(self, offsets: Any, chars: Any, mask: Any) -> StringColumn:
        return StringColumn(offsets, chars, mask, self.arrow_type)

    @property
    def dtype(self) -> Any:
        return dtypes.STRING

    @property
    def size(self) -> int:
        return int(self.offsets.shape[0]) - 1

    def _primary_buffer(self) -> Any:
        return self.offsets

    @property
    def nbytes(self) -> int:
        return int(self.offsets.nbytes + self.chars.nbytes) + self._mask_nbytes()

    def lengths(self) -> Any:
        """Byte length of each row (missing rows have length 0)."""
        return self.offsets[1:] - self.offsets[:-1]

    # --- missing values ----------------------------------------------------------------
    def set_missing(self, missing: Any) -> StringColumn:
        # Missing rows keep their bytes: the mask alone says they are missing.
        return self._like(self.offsets, self.chars, self._combined_mask(missing))

    # --- layout operations -------------------------------------------------------------
    def take(self, indices: Any, *, n_bytes: int | None = None) -> StringColumn:
        """The rows at ``indices``; ``n_bytes``, the taken rows' total bytes when the caller knows them, spares the
        device path its read of the size."""
        xp = self.xp
        if xp is np:
            return self._take_host(indices)
        starts, new_offsets = segments.take_offsets(self.offsets, indices, xp)
        chars = segments.gather_segments(self.chars, starts, new_offsets, xp, total=n_bytes)
        mask = None if self.mask is None else self.mask[indices]
        return self._like(new_offsets, chars, mask)

    def _take_host(self, indices: Any) -> StringColumn:
        """:meth:`take` on NumPy by Arrow's binary ``take`` over the column's own buffers (a CPU-specific fast path,
        chosen by the namespace; see :func:`~riptide.core.kernels.segments.take_pieces_host`). Same rows, same
        bytes."""
        indices = np.asarray(indices)
        if indices.dtype.kind not in "iu":
            indices = indices.astype(np.int64)
        offsets, chars = segments.take_pieces_host(self.chars, self.offsets, indices)
        mask = None if self.mask is None else self.mask[indices]
        return self._like(offsets, chars, mask)

    def slice(self, start: int, stop: int, step: int = 1) -> StringColumn:
        if step != 1 or stop < start:
            return self.take(self.xp.arange(start, stop, step, dtype=np.int64))
        offsets = self.offsets[start : stop + 1]
        first = int(offsets[0]) if offsets.shape[0] else 0  # one scalar read: slicing rebases offsets
        chars = self.chars[first : first + (int(offsets[-1]) - first if offsets.shape[0] else 0)]
        mask = None if self.mask is None else self.mask[start:stop]
        return self._like(offsets - first, chars, mask)

    def copy(self) -> StringColumn:
        mask = None if self.mask is None else self.mask.copy()
        return self._like(self.offsets.copy(), self.chars.copy(), mask)

    def to_device(self, xp: types.ModuleType) -> StringColumn:
        if self.xp is xp:
            return self
        mask = None if self.mask is None else _device.to_device(self.mask, xp)
        return self._like(_device.to_device(self.offsets, xp), _device.to_device(self.chars, xp), mask)

    # --- conversion --------------------------------------------------------------------
    def to_arrow(self) -> pa.Array:
        offsets = _device.to_host(self.offsets)
        chars = _device.to_host(self.chars)
        validity = None
        null_count = 0
        if self.mask is not None:
            host_mask = _device.to_host(self.mask)
            null_count = int(self.size - np.count_nonzero(host_mask))
            if null_count:
                validity = pa.py_buffer(np.packbits(host_mask, bitorder="little"))
        array = pa.Array.from_buffers(
            pa.large_string(), self.size, [validity, pa.py_buffer(offsets), pa.py_buffer(chars)], null_count
        )
        return array if self.arrow_type is None else array.cast(self.arrow_type)

    def to_pandas_array(self) -> Any:
        return pd.array(self.to_arrow(), dtype=dtypes.STRING)

    @classmethod
    def from_arrow(cls, array: pa.Array, xp: types.ModuleType) -> StringColumn:
        """From a pyarrow string / large_string / string_view array (copies the buffers to ``xp``)."""
        source_type = None if pa.types.is_large_string(array.type) else array.type
        if source_type is not None:
            array = array.cast(pa.large_string())
        n = len(array)
        validity_buf, offsets_buf, chars_buf = array.buffers()
        offsets = np.frombuffer(offsets_buf, dtype=np.int64, count=n + 1, offset=array.offset * 8) if n else np.zeros(
            1, dtype=np.int64
        )
        first, last = int(offsets[0]), int(offsets[-1])
        chars = np.frombuffer(chars_buf, dtype=np.uint8)[first:last] if chars_buf is not None and last > first else (
            np.zeros(0, dtype=np.uint8)
        )
        mask = None
        if array.null_count:
            bits = np.frombuffer(validity_buf, dtype=np.uint8)
            mask = np.unpackbits(bits, bitorder="little", count=array.offset + n)[array.offset :].astype(bool)
            mask = _device.to_device(mask, xp)
        return cls(_device.to_device(offsets - first, xp), _device.to_device(np.ascontiguousarray(chars), xp), mask,
                   source_type)  # fmt: skip
