"""The dtypes riptide columns carry — pandas' own dtype objects.

riptide reports exactly the dtype pandas would: ``np.dtype("int64")``,
``np.dtype("datetime64[ns]")``, the masked ``pd.Int64Dtype()`` / ``pd.Float64Dtype()`` /
``pd.BooleanDtype()``, pandas 3's default string dtype ``str`` and ``pd.CategoricalDtype``.
Using pandas' objects (instead of a parallel set of riptide classes) means
``s.dtype == "int64"``, ``pd.api.types.is_float_dtype(s.dtype)`` and friends work unchanged.

How each dtype holds missing values follows pandas:

=====================  ==========================  =========================================
dtype                  missing value               riptide storage
=====================  ==========================  =========================================
int*, uint*, bool      cannot be missing           values
float32/64             NaN                         values (NaN is the missing marker)
datetime64/timedelta   NaT                         int64 values, NaT = INT64_MIN
datetime64[unit, tz]   NaT                         int64 UTC ticks, NaT = INT64_MIN (the zone is in the dtype)
Int*, UInt*, Float*,   pd.NA                       values + validity mask
boolean
str                    NaN                         int64 offsets + uint8 bytes + validity mask
category               NaN                         int codes (-1 = missing) + categories column
=====================  ==========================  =========================================

>>> from riptide.core import dtypes
>>> dtypes.to_masked(np.dtype("int32"))
Int32Dtype()
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "STRING",
    "NAT",
    "is_masked",
    "is_string",
    "is_categorical",
    "is_datetimelike",
    "is_datetime",
    "is_datetime_tz",
    "datetime_unit",
    "box_datetime",
    "datetime_ticks",
    "is_numeric_or_bool",
    "storage_dtype",
    "to_masked",
    "to_numpy_dtype",
    "normalize",
    "result_type",
]

#: pandas 3's default string dtype (shown as ``str``; missing values are NaN).
STRING = pd.StringDtype(na_value=np.nan)
#: The int64 value that stores NaT in datetime64 / timedelta64 columns.
NAT = np.iinfo(np.int64).min

_MASKED_BY_NUMPY: dict[np.dtype, Any] = {
    np.dtype(np_name): pd.api.types.pandas_dtype(masked_name)
    for np_name, masked_name in [
        ("int8", "Int8"), ("int16", "Int16"), ("int32", "Int32"), ("int64", "Int64"),
        ("uint8", "UInt8"), ("uint16", "UInt16"), ("uint32", "UInt32"), ("uint64", "UInt64"),
        ("float32", "Float32"), ("float64", "Float64"), ("bool", "boolean"),
    ]
}  # fmt: skip


def is_masked(dtype: Any) -> bool:
    """True for pandas' nullable numeric/boolean dtypes (Int64, Float64, boolean, ...)."""
    return isinstance(dtype, pd.api.extensions.ExtensionDtype) and dtype in _MASKED_BY_NUMPY.values()


def is_string(dtype: Any) -> bool:
    return isinstance(dtype, pd.StringDtype)


def is_categorical(dtype: Any) -> bool:
    return isinstance(dtype, pd.CategoricalDtype)


def is_datetimelike(dtype: Any) -> bool:
    """datetime64 (naive or tz-aware) or timedelta64, of any unit."""
    return (isinstance(dtype, np.dtype) and dtype.kind in "mM") or isinstance(dtype, pd.DatetimeTZDtype)


def is_datetime_tz(dtype: Any) -> bool:
    """A tz-aware datetime dtype, ``datetime64[unit, tz]`` (``pd.DatetimeTZDtype``): UTC ticks + a zone.

    >>> is_datetime_tz(pd.DatetimeTZDtype("ns", "UTC")), is_datetime_tz(np.dtype("M8[ns]"))
    (True, False)
    """
    return isinstance(dtype, pd.DatetimeTZDtype)


def is_datetime(dtype: Any) -> bool:
    """datetime64 of any unit, naive or tz-aware (not timedelta64)."""
    return (isinstance(dtype, np.dtype) and dtype.kind == "M") or isinstance(dtype, pd.DatetimeTZDtype)


def datetime_unit(dtype: Any) -> str:
    """The unit (``"s"``, ``"ms"``, ``"us"``, ``"ns"``) of a datetime64 / timedelta64 / tz-aware dtype.

    >>> datetime_unit(np.dtype("m8[ms]")), datetime_unit(pd.DatetimeTZDtype("s", "UTC"))
    ('ms', 's')
    """
    if isinstance(dtype, pd.DatetimeTZDtype):
        return dtype.unit
    return np.datetime_data(dtype)[0]


def box_datetime(raw: int, dtype: Any) -> Any:
    """One int64 tick of a datetime / timedelta / tz-aware dtype as pandas boxes it (NaT for INT64_MIN).

    >>> box_datetime(0, pd.DatetimeTZDtype("s", "Asia/Kolkata"))
    Timestamp('1970-01-01 05:30:00+0530', tz='Asia/Kolkata')
    """
    raw = int(raw)
    if raw == NAT:
        return pd.NaT
    unit = datetime_unit(dtype)
    if isinstance(dtype, pd.DatetimeTZDtype):  # UTC ticks, shown in the zone
        return pd.Timestamp(np.datetime64(raw, unit)).tz_localize("UTC").tz_convert(dtype.tz)
    return pd.Timestamp(np.datetime64(raw, unit)) if dtype.kind == "M" else pd.Timedelta(np.timedelta64(raw, unit))


def datetime_ticks(value: Any, dtype: Any) -> int:
    """A datetime / timedelta scalar as an int64 tick of ``dtype`` (UTC for a tz-aware dtype; NaT -> INT64_MIN).

    Mixing a tz-aware value with a naive dtype (or the reverse) raises pandas' TypeError.

    >>> datetime_ticks(pd.Timestamp("1970-01-01 05:30", tz="Asia/Kolkata"), pd.DatetimeTZDtype("s", "UTC"))
    0
    """
    if value is None or value is pd.NaT or (isinstance(value, np.datetime64 | np.timedelta64) and np.isnat(value)):
        return NAT
    unit = datetime_unit(dtype)
    if dtype.kind == "m":
        return int(pd.Timedelta(value).as_unit(unit).asm8.view(np.int64))
    stamp = pd.Timestamp(value)
    if (stamp.tz is not None) != isinstance(dtype, pd.DatetimeTZDtype):
        raise TypeError("Cannot compare tz-naive and tz-aware datetime-like objects")
    return int(stamp.as_unit(unit).asm8.view(np.int64))


def is_numeric_or_bool(dtype: Any) -> bool:
    """int, uint, float or bool — numpy or masked."""
    return is_masked(dtype) or (isinstance(dtype, np.dtype) and dtype.kind in "biuf")


def storage_dtype(dtype: Any) -> np.dtype:
    """The NumPy/CuPy dtype of a fixed-width column's value buffer."""
    if is_masked(dtype):
        return dtype.numpy_dtype
    if is_datetimelike(dtype):
        return np.dtype(np.int64)
    return np.dtype(dtype)


def to_masked(dtype: Any) -> Any:
    """The nullable twin of a numpy dtype (int64 -> Int64); masked dtypes pass through."""
    if is_masked(dtype):
        return dtype
    return _MASKED_BY_NUMPY[np.dtype(dtype)]


def to_numpy_dtype(dtype: Any) -> np.dtype:
    """The numpy twin of a masked dtype (Int64 -> int64) or a tz-aware one (its UTC ``datetime64[unit]``);
    numpy dtypes pass through."""
    if isinstance(dtype, pd.DatetimeTZDtype):
        return np.dtype(f"M8[{dtype.unit}]")
    return dtype.numpy_dtype if is_masked(dtype) else np.dtype(dtype)


def normalize(dtype: Any) -> Any:
    """Turn what a user may write (``"int64"``, ``float``, ``"Int64"``, ``"str"``, ``"category"``) into a dtype.

    Raises ``TypeError`` for names pandas does not know, as ``pd.api.types.pandas_dtype`` does.
    """
    if dtype is str or (isinstance(dtype, str) and dtype in ("str", "string", "unicode")):
        return STRING
    if isinstance(dtype, pd.StringDtype):
        return STRING
    if isinstance(dtype, str) and dtype == "category":
        return pd.CategoricalDtype()
    result = pd.api.types.pandas_dtype(dtype)
    if isinstance(result, np.dtype):
        if result.kind == "O":
            raise TypeError("riptide columns cannot hold Python objects (dtype object); use 'str' for text")
        if result.kind in "mM":
            unit = np.datetime_data(result)[0]
            if unit == "generic":
                raise TypeError(f"dtype {result} has no unit; use e.g. '{result}[ns]'")
    return result


def result_type(*dtypes: Any) -> Any:
    """Common dtype of numeric operands, pandas-style: masked wins, then NumPy promotion.

    >>> result_type(np.dtype("int64"), pd.Float32Dtype())
    Float64Dtype()
    """
    base = np.result_type(*(to_numpy_dtype(d) for d in dtypes))
    return to_masked(base) if any(is_masked(d) for d in dtypes) else base
