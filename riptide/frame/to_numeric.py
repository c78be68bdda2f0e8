"""``rt.to_numeric``: convert a Series to a numeric dtype, with pandas' rules and errors.

* A numeric (or bool) Series without ``downcast`` is already what pandas returns: it comes back as is, on the
  device, with no copy of its data.
* A ``str`` Series without ``downcast`` is parsed on the device by :mod:`riptide.core.ops.parse_number`:
  ``int64`` when every row is integer text that fits, ``float64`` (NaN for missing, empty and, with
  ``errors="coerce"``, invalid rows) otherwise, and pandas' ``ValueError`` naming the first invalid row.
  Integer text beyond int64 (pandas' dtype then depends on all rows: uint64, object, or the strings unchanged)
  is left to pandas.
* Other text input, the cases above, and ``downcast=`` run through ``pandas.to_numeric`` on the host with a
  one-time warning naming the reason, so values, dtypes and error messages are pandas' own.
* Integers beyond ``int64``/``uint64`` are Python ints in an object column for pandas; riptide has no object
  columns and raises a TypeError saying so.
* Scalars, lists and arrays are pandas' business: they are handed to ``pandas.to_numeric`` unchanged.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column.numeric import NumericColumn
from riptide.core.column.string import StringColumn
from riptide.core.ops.parse_number import parse_numbers

__all__ = ["to_numeric"]

_WARNED: set[str] = set()
_DOWNCASTS = (None, "integer", "signed", "unsigned", "float")


def to_numeric(arg: Any, errors: str = "raise", downcast: str | None = None) -> Any:
    """Convert ``arg`` to a numeric dtype, as ``pandas.to_numeric``.

    >>> import riptide as rt
    >>> rt.to_numeric(rt.Series([1, 2])).dtype
    dtype('int64')
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     rt.to_numeric(rt.Series(["1.5", "x"]), errors="coerce").tolist()
    [1.5, nan]
    """
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    if errors not in ("raise", "coerce"):
        raise ValueError("invalid error value specified")
    if downcast not in _DOWNCASTS:
        raise ValueError("invalid downcasting method provided")
    if isinstance(arg, pd.Series):
        arg = Series(arg)
    if isinstance(arg, Index):
        host = pd.to_numeric(arg.to_pandas(), errors=errors, downcast=downcast)
        return Index(host)
    if not isinstance(arg, Series):
        return pd.to_numeric(arg, errors=errors, downcast=downcast)
    dtype = arg.dtype
    numeric = dtypes.is_numeric_or_bool(dtype) and not dtypes.is_datetimelike(dtype)
    if numeric and downcast is None:
        return Series._from_column(arg._column, arg._index, arg.name)  # pandas returns numeric data unchanged
    if downcast is None and isinstance(arg._column, StringColumn):
        parsed = _parse_strings(arg, errors)
        if parsed is not None:
            return parsed
    reason = f"downcast={downcast!r}" if numeric else f"parsing {dtype} values as numbers"
    _warn_once(reason)
    host = pd.to_numeric(arg.to_pandas(), errors=errors, downcast=downcast)
    if host.dtype == object:
        # pandas keeps integers beyond int64 and uint64 as Python ints; riptide has no object columns.
        raise TypeError("to_numeric: integers too large for int64 and uint64 give pandas an object column, "
                        "which riptide columns cannot hold; use .astype(float) on the parsed values instead")
    return Series(host)


def _parse_strings(arg: Any, errors: str) -> Any:
    """Parse a ``str`` Series on the device; None when pandas must decide (integers beyond int64)."""
    from riptide.frame.series import Series

    column = arg._column
    xp = column.xp
    parsed = parse_numbers(column.offsets, column.chars, xp)
    missing = column.isna() | parsed.empty
    invalid = parsed.invalid & ~missing
    # One read of three flags: whether to raise; integers beyond int64 (pandas' dtype then depends on every row);
    # whether every row is an integer (only then int64).
    any_invalid, any_big_int, all_int = (bool(flag) for flag in _device.to_host(xp.stack(
        [xp.any(invalid), xp.any(parsed.big_int & ~missing), xp.all(parsed.is_int & ~missing)])))  # fmt: skip
    if errors == "raise" and any_invalid:
        position = int(xp.argmax(invalid))  # one scalar read: the first bad row, named as pandas does
        text = column.slice(position, position + 1).to_arrow()[0].as_py()
        raise ValueError(f"Unable to parse string {text!r} at position {position}")
    if any_big_int:
        return None
    if all_int:
        result = NumericColumn(parsed.ints)
    else:
        result = NumericColumn(xp.where(missing | invalid, np.nan, parsed.floats))
    return Series._from_column(result, arg._index, arg.name)


def _warn_once(reason: str) -> None:
    if reason in _WARNED:
        return
    _WARNED.add(reason)
    warnings.warn(f"rt.to_numeric: {reason} runs through pandas on the host (data copied off the device)",
                  UserWarning, stacklevel=3)  # fmt: skip
