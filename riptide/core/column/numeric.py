"""NumericColumn: one fixed-width value buffer (+ validity for nullable dtypes).

Holds int*, uint*, float*, bool, datetime64[unit] and timedelta64[unit] (stored as
int64, NaT = INT64_MIN, because CuPy has no datetime dtype) and pandas' masked
dtypes (Int64, Float64, boolean, ...), whose missing rows live in ``mask``.
A tz-aware ``datetime64[unit, tz]`` holds UTC ticks, as pandas does: the zone lives
only in the dtype, so sorting, grouping and comparing work on the ticks unchanged.
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

__all__ = ["NumericColumn"]


class NumericColumn(Column):
    """Fixed-width values in ``data`` (NumPy or CuPy, 1-D, contiguous).

    >>> import numpy as np
    >>> col = NumericColumn(np.array([1, 2, 3]))
    >>> col.dtype, col.size
    (dtype('int64'), 3)
    """

    __slots__ = ("data", "_dtype")

    def __init__(self, data: Any, dtype: Any = None, mask: Any = None):
        dtype = data.dtype if dtype is None else dtype
        if mask is not None and not dtypes.is_masked(dtype):
            raise TypeError(f"a validity mask needs a nullable dtype, not {dtype}")
        if data.dtype != dtypes.storage_dtype(dtype):
            raise TypeError(f"buffer of {data.dtype} cannot back a column of {dtype}")
        self.data = data
        self._dtype = dtype
        self.mask = mask

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def size(self) -> int:
        return int(self.data.shape[0])

    def _primary_buffer(self) -> Any:
        return self.data

    @property
    def nbytes(self) -> int:
        return int(self.data.nbytes) + self._mask_nbytes()

    @property
    def kind(self) -> str:
        """NumPy kind of the logical dtype: 'i', 'u', 'f', 'b', 'M' (datetime) or 'm' (timedelta)."""
        return dtypes.to_numpy_dtype(self._dtype).kind

    # --- missing values ----------------------------------------------------------------
    def isna(self) -> Any:
        if dtypes.is_masked(self._dtype):
            return super().isna()
        kind = self._dtype.kind
        if kind == "f":
            return self.xp.isnan(self.data)
        if kind in "mM":
            return self.data == dtypes.NAT
        return self.xp.zeros(self.size, dtype=bool)

    def can_hold_missing(self) -> bool:
        return dtypes.is_masked(self._dtype) or self._dtype.kind in "fmM"

    def set_missing(self, missing: Any) -> NumericColumn:
        xp = self.xp
        if dtypes.is_masked(self._dtype):
            return NumericColumn(self.data, self._dtype, self._combined_mask(missing))
        kind = self._dtype.kind
        if kind == "f":
            return NumericColumn(xp.where(missing, xp.nan, self.data).astype(self.data.dtype, copy=False))
        if kind in "mM":
            return NumericColumn(xp.where(missing, dtypes.NAT, self.data), self._dtype)
        if kind == "b":  # pandas would make this object dtype; riptide keeps it boolean (see docs)
            return NumericColumn(self.data, pd.BooleanDtype(), ~missing)
        return NumericColumn(xp.where(missing, xp.nan, self.data.astype(np.float64)))

    # --- layout operations -------------------------------------------------------------
    def take(self, indices: Any) -> NumericColumn:
        mask = None if self.mask is None else self.mask[indices]
        return NumericColumn(self.data[indices], self._dtype, mask)

    def slice(self, start: int, stop: int, step: int = 1) -> NumericColumn:
        s = slice(start, stop, step)
        mask = None if self.mask is None else self.mask[s]
        return NumericColumn(self.data[s], self._dtype, mask)

    def copy(self) -> NumericColumn:
        mask = None if self.mask is None else self.mask.copy()
        return NumericColumn(self.data.copy(), self._dtype, mask)

    def to_device(self, xp: types.ModuleType) -> NumericColumn:
        if self.xp is xp:
            return self
        mask = None if self.mask is None else _device.to_device(self.mask, xp)
        return NumericColumn(_device.to_device(self.data, xp), self._dtype, mask)

    def values_or(self, fill: Any) -> Any:
        """The data with masked rows replaced by ``fill`` (the data itself when nothing is masked)."""
        if self.mask is None:
            return self.data
        return self.xp.where(self.mask, self.data, fill)

    # --- conversion --------------------------------------------------------------------
    def host_values(self) -> np.ndarray:
        """Values as a NumPy array of the logical numpy dtype (datetimes as datetime64)."""
        values = _device.to_host(self.data)
        np_dtype = dtypes.to_numpy_dtype(self._dtype)
        return values.view(np_dtype) if np_dtype.kind in "mM" else values

    def to_pandas_array(self) -> Any:
        values = self.host_values()
        if dtypes.is_masked(self._dtype):
            mask = np.zeros(self.size, dtype=bool) if self.mask is None else ~_device.to_host(self.mask)
            return pd.arrays.BooleanArray(values, mask) if self.kind == "b" else (
                pd.arrays.FloatingArray(values, mask) if self.kind == "f" else pd.arrays.IntegerArray(values, mask)
            )
        if dtypes.is_datetime_tz(self._dtype):  # UTC ticks: pandas' DatetimeArray, viewed in the zone
            return pd.array(values).tz_localize("UTC").tz_convert(self._dtype.tz)
        return values

    def to_arrow(self) -> pa.Array:
        values = self.host_values()
        if dtypes.is_masked(self._dtype):
            mask = None if self.mask is None else ~_device.to_host(self.mask)
            return pa.array(values, mask=mask)
        if dtypes.is_datetime_tz(self._dtype):
            return pa.array(self.to_pandas_array())  # pyarrow names the zone as pandas does
        if self.kind in "mM":
            return pa.array(values, mask=values.view(np.int64) == dtypes.NAT)
        return pa.array(values)

    @classmethod
    def from_arrow(cls, array: pa.Array, xp: types.ModuleType) -> NumericColumn:
        """From a pyarrow numeric/bool/temporal array; nulls give a masked dtype (or NaT)."""
        typ = array.type
        if pa.types.is_boolean(typ):
            values = np.asarray(array.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
        elif pa.types.is_timestamp(typ) or pa.types.is_duration(typ):
            np_dtype = np.dtype(f"{'M8' if pa.types.is_timestamp(typ) else 'm8'}[{typ.unit}]")
            if getattr(typ, "tz", None) is not None:  # Arrow also stores UTC ticks; pandas names the zone
                np_dtype = typ.to_pandas_dtype()
            ints = array.cast(pa.int64()).fill_null(dtypes.NAT).to_numpy(zero_copy_only=False)
            return cls(_device.to_device(ints, xp), np_dtype)
        else:
            values = array.fill_null(0).to_numpy(zero_copy_only=False) if array.null_count else array.to_numpy(
                zero_copy_only=False
            )
        if array.null_count == 0:
            return cls(_device.to_device(np.ascontiguousarray(values), xp))
        valid = np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        return cls(
            _device.to_device(np.ascontiguousarray(values), xp),
            dtypes.to_masked(values.dtype),
            _device.to_device(valid, xp),
        )
