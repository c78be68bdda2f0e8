"""Making columns: from pandas, Arrow, NumPy/CuPy arrays, Python sequences and scalars.

``as_column`` is the one entry point the frame layer uses; the ``column_from_*``
functions pick the layout class by dtype (a table, not a chain of special cases).
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
from riptide.core.column.categorical import CategoricalColumn, codes_dtype_for
from riptide.core.column.numeric import NumericColumn
from riptide.core.column.list import ListColumn
from riptide.core.column.string import StringColumn

__all__ = ["as_column", "concat_columns", "column_from_pandas", "column_from_arrow", "full", "infer_scalar_dtype", "is_scalar"]


def is_scalar(value: Any) -> bool:
    """A single value (number, string, bool, timestamp, None/NaN/NA), not an array-like."""
    return value is None or value is pd.NA or value is pd.NaT or pd.api.types.is_scalar(value)


def infer_scalar_dtype(value: Any) -> Any:
    """The dtype pandas gives a Series built from this one scalar."""
    return pd.Series([value]).dtype if not isinstance(value, str) else dtypes.STRING


def _arrow_text(objects: np.ndarray) -> pa.Array | None:
    """An object array of str (None / NaN / pd.NA missing) as an Arrow string array, in one pass of Arrow's
    converter; None when it holds anything else (pandas' inference then decides, as before)."""
    try:
        text = pa.array(objects, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError):
        return None
    if not (pa.types.is_string(text.type) or pa.types.is_large_string(text.type)):
        return None
    # Arrow reads NaT as missing too, but strings beside a NaT are objects in pandas (its str dtype takes only
    # None / NaN / NA as missing): only the missing host objects are looked at.
    if text.null_count and any(v is pd.NaT for v in objects[np.asarray(text.is_null())]):
        return None
    return text


def column_from_pandas(values: Any, xp: types.ModuleType) -> Column:
    """A column from a pandas Series / Index / array or a NumPy array, with pandas' dtype."""
    if isinstance(values, pd.Series | pd.Index):
        values = values.array if not isinstance(values.dtype, np.dtype) else values.to_numpy()
    if isinstance(values, pd.arrays.NumpyExtensionArray):
        values = values.to_numpy()  # pandas' wrapper of a NumPy array (``Series.array``): the array itself
    dtype = values.dtype
    if isinstance(dtype, np.dtype):
        if dtype.kind in "biuf":
            return NumericColumn(_device.to_device(np.ascontiguousarray(values), xp))
        if dtype.kind in "mM":
            ints = np.ascontiguousarray(values).view(np.int64)
            return NumericColumn(_device.to_device(ints, xp), dtype)
        if dtype.kind in "OUS":
            objects = np.asarray(values, dtype=object)
            if (text := _arrow_text(objects)) is not None:  # the common case, without pandas' inference passes
                return column_from_arrow(text, xp)
            if pd.isna(objects).all():
                # Empty or all-missing: pandas keeps object dtype; riptide has no object columns: float64 NaN.
                return NumericColumn(xp.full(len(objects), np.nan))
            inferred = pd.array(objects)
            if pd.api.types.is_object_dtype(inferred.dtype):
                if (lists := ListColumn.from_objects(objects, xp)) is not None:  # Python lists: a list column
                    return lists
                kinds = sorted({type(v).__name__ for v in np.asarray(values, dtype=object)[:1000]})
                raise TypeError(f"riptide columns cannot hold Python objects (found {', '.join(kinds)}); "
                                "convert the column to one dtype first, e.g. .astype(str) or pd.to_numeric")
            return column_from_pandas(pd.Series(inferred, copy=False), xp)
        raise TypeError(f"riptide has no column type for numpy dtype {dtype}")
    if dtypes.is_masked(dtype):
        numpy_dtype = dtype.numpy_dtype
        data = values.to_numpy(dtype=numpy_dtype, na_value=np.zeros(1, dtype=numpy_dtype)[0])
        missing = np.asarray(values.isna(), dtype=bool)
        mask = _device.to_device(~missing, xp) if missing.any() else None
        return NumericColumn(_device.to_device(np.ascontiguousarray(data), xp), dtype, mask)
    if isinstance(dtype, pd.CategoricalDtype):
        return CategoricalColumn.from_pandas(pd.Categorical(values), xp)
    if isinstance(dtype, pd.StringDtype) or isinstance(dtype, pd.ArrowDtype):
        return column_from_arrow(pa.array(values), xp)
    if isinstance(dtype, pd.DatetimeTZDtype):  # UTC ticks, as pandas stores them; the zone stays in the dtype
        utc = pd.array(values).tz_convert(None).to_numpy()
        return NumericColumn(_device.to_device(np.ascontiguousarray(utc).view(np.int64), xp), dtype)
    raise TypeError(f"riptide has no column type for pandas dtype {dtype}")


def column_from_arrow(array: pa.Array | pa.ChunkedArray, xp: types.ModuleType) -> Column:
    """A column from a pyarrow array: nulls become masks (numbers, strings), NaT or code -1."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    typ = array.type
    if pa.types.is_dictionary(typ):
        return CategoricalColumn.from_arrow(array, xp)
    if pa.types.is_string(typ) or pa.types.is_large_string(typ) or pa.types.is_string_view(typ):
        return StringColumn.from_arrow(array, xp)
    if pa.types.is_date(typ):
        return NumericColumn.from_arrow(array.cast(pa.timestamp("s")), xp)
    if pa.types.is_null(typ):
        return NumericColumn(xp.full(len(array), np.nan))
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        return ListColumn.from_arrow(array, xp)
    if (pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_boolean(typ)
            or pa.types.is_timestamp(typ) or pa.types.is_duration(typ)):  # fmt: skip
        if pa.types.is_float16(typ):
            array = array.cast(pa.float32())
        return NumericColumn.from_arrow(array, xp)
    raise TypeError(f"riptide has no column type for Arrow type {typ}")


def as_column(data: Any, dtype: Any = None, xp: types.ModuleType | None = None) -> Column:
    """Any array-like (Column, CuPy/NumPy array, pandas, Arrow, list) as a column in namespace ``xp``.

    Device arrays are used without a copy. Python sequences are inferred exactly as
    ``pd.Series(data, dtype=dtype)`` infers them.
    """
    xp = xp or _device.xp()
    if dtype is not None:
        dtype = dtypes.normalize(dtype)
    if isinstance(data, Column):
        column = data.to_device(xp)
    elif _device.is_device_array(data):
        array = xp.asarray(data)
        if array.ndim != 1:
            raise ValueError(f"a column needs 1-dimensional data, got shape {array.shape}")
        if array.dtype.kind not in "biuf":
            raise TypeError(f"riptide has no column type for device dtype {array.dtype}")
        column = NumericColumn(xp.ascontiguousarray(array))
    elif isinstance(data, pa.Array | pa.ChunkedArray):
        column = column_from_arrow(data, xp)
    elif isinstance(data, np.ndarray | pd.Series | pd.Index | pd.api.extensions.ExtensionArray):
        if getattr(data, "ndim", 1) != 1:
            raise ValueError(f"a column needs 1-dimensional data, got shape {data.shape}")
        column = column_from_pandas(data, xp)
    elif hasattr(data, "__arrow_c_array__") or hasattr(data, "__arrow_c_stream__"):
        column = column_from_arrow(pa.array(data), xp)
    else:
        if isinstance(data, dict | set) or is_scalar(data):
            raise TypeError(f"cannot make a column from {type(data).__name__}; pass a list or an array")
        host_dtype = dtype if dtype is not None and not dtypes.is_categorical(dtype) else None
        return as_column(pd.Series(list(data), dtype=host_dtype), dtype=dtype, xp=xp)
    if dtype is not None and not _same_dtype(column.dtype, dtype):
        from riptide.core.ops.cast import astype

        column = astype(column, dtype)
    return column


def _same_dtype(a: Any, b: Any) -> bool:
    if dtypes.is_categorical(b):
        return dtypes.is_categorical(a) and (b.categories is None or a == b)
    return a == b


def full(size: int, value: Any, dtype: Any = None, xp: types.ModuleType | None = None) -> Column:
    """A column of ``size`` copies of ``value`` (None / NaN / NA give a missing column of ``dtype``)."""
    xp = xp or _device.xp()
    missing = value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and np.isnan(value))
    if dtype is None:
        dtype = np.dtype(np.float64) if missing and value is not pd.NaT else infer_scalar_dtype(value)
        if value is pd.NaT:
            dtype = np.dtype("datetime64[ns]")
    dtype = dtypes.normalize(dtype)
    if dtypes.is_string(dtype):
        encoded = b"" if missing else str(value).encode()
        offsets = xp.arange(size + 1, dtype=np.int64) * len(encoded)
        chars = xp.asarray(np.frombuffer(encoded * size, dtype=np.uint8)) if encoded else xp.zeros(0, np.uint8)
        return StringColumn(offsets, chars, xp.zeros(size, dtype=bool) if missing else None)
    if dtypes.is_categorical(dtype):
        categories = as_column(dtype.categories if dtype.categories is not None else [], xp=xp)
        if missing:
            code = -1
        else:
            matches = np.flatnonzero(dtype.categories == value) if dtype.categories is not None else []
            if len(matches) == 0:
                raise TypeError(f"cannot fill a categorical with {value!r}: it is not one of its categories")
            code = int(matches[0])
        codes = xp.full(size, code, dtype=codes_dtype_for(len(categories)))
        return CategoricalColumn(codes, categories, dtype.ordered)
    storage = dtypes.storage_dtype(dtype)
    if missing:
        placeholder = xp.zeros(size, dtype=storage)
        column = NumericColumn(placeholder, dtype, None)
        return column.set_missing(xp.ones(size, dtype=bool))
    if dtypes.is_datetime_tz(dtype):
        stamp = pd.Timestamp(value)
        stamp = stamp.tz_localize(dtype.tz) if stamp.tz is None else stamp
        value = stamp.as_unit(dtype.unit).asm8.view(np.int64)  # asm8 of an aware stamp is its UTC instant
    elif dtypes.is_datetimelike(dtype):
        value = (np.datetime64 if dtype.kind == "M" else np.timedelta64)(value).astype(dtype).view(np.int64)
    return NumericColumn(xp.full(size, value, dtype=storage), dtype)


def _codes_into(column: CategoricalColumn, reference: CategoricalColumn) -> Any:
    """``column``'s codes into ``reference``'s categories: the same set, perhaps in another order.

    Unordered categoricals with the same categories in another order have equal dtypes (pandas' rule), and
    ``pd.concat`` keeps the first one's order: the other codes are translated (categories are host metadata
    in the dtype, so the lookup table is built on the host and only it moves).
    """
    own, target = column.dtype.categories, reference.dtype.categories
    if own.equals(target):
        return column.codes
    xp = column.xp
    mapping = xp.asarray(target.get_indexer(own).astype(reference.codes.dtype))
    codes = column.codes
    return xp.where(codes < 0, -1, mapping[xp.maximum(codes, 0).astype(np.int64)]).astype(reference.codes.dtype)


def concat_columns(columns: list[Column]) -> Column:
    """The rows of ``columns`` one after another; all must share a layout (and categories)."""
    first = columns[0]
    xp = first.xp
    if len(columns) == 1:
        return first
    masks = [c.mask for c in columns]
    mask = None
    if any(m is not None for m in masks):
        mask = xp.concatenate([m if m is not None else xp.ones(c.size, dtype=bool) for m, c in zip(masks, columns)])
    if all(isinstance(c, StringColumn) for c in columns):
        sizes = [int(c.offsets[-1]) for c in columns]  # one scalar read per column
        starts = np.cumsum([0] + sizes[:-1])
        offsets = xp.concatenate([columns[0].offsets[:1]] + [c.offsets[1:] + int(s) for c, s in zip(columns, starts)])
        return StringColumn(offsets, xp.concatenate([c.chars for c in columns]), mask)
    if all(isinstance(c, CategoricalColumn) for c in columns):
        if any(c.dtype != first.dtype for c in columns[1:]):
            raise TypeError("to concatenate categoricals they must have the same categories")
        codes = [first.codes] + [_codes_into(c, first) for c in columns[1:]]
        return CategoricalColumn(xp.concatenate(codes), first.categories, first.ordered, first.dtype)
    if all(isinstance(c, NumericColumn) for c in columns):
        dtype = first.dtype
        if any(c.dtype != dtype for c in columns[1:]):
            raise TypeError(f"cannot concatenate columns of dtypes {[str(c.dtype) for c in columns]} without a cast")
        return NumericColumn(xp.concatenate([c.data for c in columns]), dtype, mask)
    raise TypeError(f"cannot concatenate columns of dtypes {[str(c.dtype) for c in columns]}")
