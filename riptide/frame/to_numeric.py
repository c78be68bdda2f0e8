"""``rt.to_numeric``: convert a Series to a numeric dtype, with pandas' rules and errors.

* A numeric (or bool) Series without ``downcast`` is already what pandas returns: it comes back as is, on the
  device, with no copy of its data.
* Strings, and ``downcast=``, run through ``pandas.to_numeric`` on the host with a one-time warning naming the
  reason, so values, dtypes (``int64`` when every string is an integer, ``float64`` otherwise, ``Int64`` for a
  nullable input) and error messages are pandas' own. A device parser of decimal text (sign, digits, ``.``,
  exponent, ``inf``/``nan`` spellings) is the planned replacement for the string case; this module is where it
  goes.
* Integers beyond ``int64``/``uint64`` are Python ints in an object column for pandas; riptide has no object
  columns and raises a TypeError saying so.
* Scalars, lists and arrays are pandas' business: they are handed to ``pandas.to_numeric`` unchanged.
"""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd

from riptide.core import dtypes

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
    reason = f"downcast={downcast!r}" if numeric else f"parsing {dtype} values as numbers"
    _warn_once(reason)
    host = pd.to_numeric(arg.to_pandas(), errors=errors, downcast=downcast)
    if host.dtype == object:
        # pandas keeps integers beyond int64 and uint64 as Python ints; riptide has no object columns.
        raise TypeError("to_numeric: integers too large for int64 and uint64 give pandas an object column, "
                        "which riptide columns cannot hold; use .astype(float) on the parsed values instead")
    return Series(host)


def _warn_once(reason: str) -> None:
    if reason in _WARNED:
        return
    _WARNED.add(reason)
    warnings.warn(f"rt.to_numeric: {reason} runs through pandas on the host (data copied off the device)",
                  UserWarning, stacklevel=3)  # fmt: skip
