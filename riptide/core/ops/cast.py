"""``astype`` for columns, with pandas' rules and errors.

>>> import numpy as np
>>> from riptide.core.column import NumericColumn
>>> astype(NumericColumn(np.array([1.5, 2.0])), "int64").data.tolist()
[1, 2]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn, as_column

__all__ = ["astype", "concat_common", "decode_categorical"]


def astype(column: Column, dtype: Any) -> Column:
    """``column`` converted to ``dtype``; raises ValueError/TypeError as pandas does when it cannot."""
    dtype = dtypes.normalize(dtype)
    if isinstance(column, CategoricalColumn):
        if dtypes.is_categorical(dtype) and dtype.categories is None:
            return column
        return astype(decode_categorical(column), dtype) if not dtypes.is_categorical(dtype) else _to_categorical(
            decode_categorical(column), dtype
        )
    if dtypes.is_categorical(dtype):
        return _to_categorical(column, dtype)
    if dtypes.is_string(dtype):
        if isinstance(column, StringColumn):
            return column
        return _to_strings(column, dtype)
    if isinstance(column, StringColumn):
        return _from_strings(column, dtype)
    assert isinstance(column, NumericColumn)
    return _numeric_astype(column, dtype)


def decode_categorical(column: CategoricalColumn) -> Column:
    """The categorical's values as a plain column (missing where the code is -1)."""
    return column.categories.take_or_missing(column.codes.astype(np.int64))


def _numeric_astype(column: NumericColumn, dtype: Any) -> Column:
    xp = column.xp
    source = column.dtype
    if dtype == source:
        return column.copy()
    if dtypes.is_datetime_tz(source) or dtypes.is_datetime_tz(dtype):
        from riptide.core.ops import timezones

        return timezones.astype(column, dtype)
    target_np = dtypes.to_numpy_dtype(dtype)
    missing = column.isna() if column.can_hold_missing() else None
    has_missing = missing is not None and bool(missing.any())  # one scalar read, needed to pick the error

    if dtypes.is_masked(dtype):
        data = column.data
        if has_missing:
            data = xp.where(missing, 0, data)
        values = _convert_values(data, source, target_np, xp)
        return NumericColumn(values, dtype, ~missing if has_missing else None)

    if has_missing and target_np.kind in "iub":
        if target_np.kind == "b" and not dtypes.is_masked(source) and source.kind == "f":
            return NumericColumn(column.data.astype(bool))  # NaN is truthy, as in NumPy and pandas
        what = "NA" if dtypes.is_masked(source) else ("NaT" if dtypes.is_datetimelike(source) else "non-finite values (NA or inf)")
        raise ValueError(f"Cannot convert {what} to integer" if target_np.kind != "b" else f"Cannot convert {what} to bool")
    if target_np.kind in "iu" and source.kind == "f" and not dtypes.is_masked(source):
        if bool(xp.isinf(column.data).any()):
            raise ValueError("Cannot convert non-finite values (NA or inf) to integer")

    data = column.data
    if dtypes.is_masked(source) and has_missing:
        # A masked column going to a numpy dtype: missing rows become NaN (floats).
        values = _convert_values(data, source, target_np, xp)
        return NumericColumn(values, target_np).set_missing(missing) if target_np.kind == "f" else NumericColumn(values)
    values = _convert_values(data, source, target_np, xp)
    if target_np.kind in "mM" and missing is not None and has_missing:
        values = xp.where(missing, dtypes.NAT, values)
    elif target_np.kind == "f" and dtypes.is_datetimelike(source) and has_missing:
        values = xp.where(missing, xp.nan, values)
    return NumericColumn(values, target_np)


def _convert_values(data: Any, source: Any, target: np.dtype, xp: Any) -> Any:
    """Convert a value buffer between logical numpy dtypes (datetimes are int64 buffers)."""
    src_np = dtypes.to_numpy_dtype(source)
    if src_np.kind in "mM" and target.kind in "mM":
        if src_np.kind != target.kind:
            raise TypeError(f"Cannot cast {src_np} to {target}")
        factor = _unit_ratio(src_np, target)
        return data * int(factor) if factor >= 1 else data // int(round(1 / factor))
    if target.kind in "mM":
        if src_np.kind not in "iu":
            raise TypeError(f"Cannot cast {src_np} to {target}")
        return data.astype(np.int64)
    if src_np.kind in "mM" and target.kind not in "iuf":
        raise TypeError(f"Cannot cast {src_np} to {target}")
    return data.astype(target)


def _unit_ratio(source: np.dtype, target: np.dtype) -> float:
    """How many target units one source unit holds (datetime64[s] -> [ms] is 1000)."""
    one = np.array(1, dtype=source)
    return float(one.astype(target).view(np.int64)) if source != target else 1.0


def _to_categorical(column: Column, dtype: pd.CategoricalDtype) -> CategoricalColumn:
    # Host path until device factorization lands with sorting (issue 3): categories are few,
    # but the codes make one round trip through pandas here.
    host = pd.Series(column.to_pandas_array()).astype(dtype)
    return as_column(host, xp=column.xp)


def _to_strings(column: Column, dtype: Any) -> Column:
    from riptide.core.ops import format_number

    # Integers, booleans, floats (the shortest round-trip text, ops/format_float.py) and naive datetimes are
    # formatted on the device; timedeltas and tz-aware datetimes keep the host path.
    if dtype == dtypes.STRING and format_number.can_format(column):
        return format_number.format_integers(column)
    from riptide.core.ops import format_float

    if dtype == dtypes.STRING and format_float.can_format_floats(column):
        return format_float.format_floats(column)
    if dtype == dtypes.STRING and isinstance(column, NumericColumn) and isinstance(column.dtype, np.dtype) and (
            column.dtype.kind == "M"):  # fmt: skip
        from riptide.core.ops.format_datetime import iso_text

        text = iso_text(column.data, dtypes.datetime_unit(column.dtype))
        if text is not None:
            return text
    return _through_host(column, dtype)


def _from_strings(column: StringColumn, dtype: Any) -> Column:
    from riptide.core.ops import format_number

    # Text to plain integers/floats is parsed on the device; pandas' errors (and the other targets:
    # nullable, bool, datetimes) come from the host path.
    if format_number.can_parse_to(dtype):
        parsed = format_number.parse_to_numbers(column, dtype)
        if parsed is not None:
            return parsed
    return _through_host(column, dtype)


def _through_host(column: Column, dtype: Any) -> Column:
    # The conversions the device kernels (ops/format_number.py) leave: pandas on the host.
    host = pd.Series(column.to_pandas_array())
    return as_column(host.astype(dtype), xp=column.xp)


def settable_scalar(column: Column, value: Any) -> Any:
    """``value`` as ``column`` would store it, or TypeError: pandas 3's rules for setting and filling.

    A value that the dtype cannot hold without loss is refused (``1.5`` or ``True`` into int64, ``1000`` into
    int8, a number into ``str``); a whole float goes into an int column as an int; a missing value passes through
    (the caller upcasts int64 to float64 for NaN, as pandas does), except into a plain bool column.
    """
    from riptide.core.ops.missing import is_missing_scalar

    def refuse() -> TypeError:
        return TypeError(f"Invalid value '{value}' for dtype '{column.dtype}'")

    if is_missing_scalar(value):
        if isinstance(column, NumericColumn) and column.kind == "b" and not dtypes.is_masked(column.dtype):
            raise refuse()
        return value
    if isinstance(column, StringColumn):
        if not isinstance(value, str):
            raise TypeError(f"Invalid value '{value}' for dtype 'str'. Value should be a string or missing value, "
                            f"got '{type(value).__name__}' instead.")  # fmt: skip
        return value
    if not isinstance(column, NumericColumn):
        return value  # categoricals check membership where the codes are chosen
    kind = column.kind
    is_bool = isinstance(value, bool | np.bool_)
    if kind == "b":
        if not is_bool:
            raise refuse()
        return bool(value)
    if kind in "mM":
        return value
    if is_bool or not isinstance(value, int | float | np.integer | np.floating):
        raise refuse()
    if kind == "f":
        return value
    if isinstance(value, float | np.floating):
        if not float(value).is_integer():
            raise refuse()
        value = int(value)
    info = np.iinfo(dtypes.storage_dtype(column.dtype))
    if not info.min <= int(value) <= info.max:
        raise refuse()
    return int(value)


def concat_common(first: Column, second: Column) -> Column:
    """``first`` then ``second``, numbers cast to their common dtype first (as pandas' concat and union do).

    Datetimes are not cast: two different units or kinds raise TypeError in ``concat_columns``.
    """
    from riptide.core.column.build import concat_columns

    if isinstance(first, NumericColumn) and isinstance(second, NumericColumn) and first.dtype != second.dtype:
        if not (dtypes.is_datetimelike(first.dtype) or dtypes.is_datetimelike(second.dtype)):
            common = dtypes.result_type(first.dtype, second.dtype)  # masked when either side is
            first, second = astype(first, common), astype(second, common)
    return concat_columns([first, second])
