"""Row hashes of riptide objects, for Dask's hash partitioning (``hash_object_dispatch``).

A Dask shuffle sends each row to partition ``hash(row) % npartitions``; a merge or a ``groupby(split_out=n)`` is
right only if equal keys hash equally in *every* partition, on every worker. So the hash is a pure function of
the values, never of a partition's layout: not of a categorical's codes (its categories are hashed and the codes
pick them), not of where a string's bytes sit in the character buffer, not of the integer width (``int32`` 5 and
``Int64`` 5 hash alike, as a merge may meet both).

Everything is array code against ``xp`` (one pass per column, no per-row Python):

* fixed-width values become one 64-bit word each (integers and bools widened to int64, floats as float64 with
  ``-0.0`` folded into ``0.0`` and every NaN into one pattern, datetimes as their int64 ticks);
* a string is a polynomial in an odd base ``P`` over its bytes: prefix sums of ``byte * P**position`` over the
  whole buffer give each row's sum ``P**start * h(row)``, and since an odd ``P`` is invertible modulo ``2**64``,
  multiplying by ``P**-start`` leaves ``h(row)``, whatever the row's offset (uint64 arithmetic wraps, which is
  the modulus);
* a missing value is one constant word, whatever its dtype;
* each word goes through the SplitMix64 finalizer, and the columns of a row are chained
  (``h = mix(h * K + word)``).

The numbers differ from pandas' ``hash_pandas_object``; only their consistency matters to Dask.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["hash_columns", "hash_column"]

_MISSING = np.uint64(0x9E3779B97F4A7C15)
_CHAIN = np.uint64(0x100000001B3)
_BASE = np.uint64(0x100000001B3 | 1)  # odd: invertible modulo 2**64
_BASE_INVERSE = np.uint64(pow(int(_BASE), -1, 2**64))
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix(z: Any) -> Any:
    """SplitMix64's finalizer: every input bit moves every output bit (uint64 in, uint64 out)."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _powers(base: np.uint64, n: int, xp: Any) -> Any:
    """``[1, base, base**2, ..., base**(n-1)]`` modulo 2**64."""
    out = xp.full(n, base, dtype=np.uint64)
    if n:
        out[0] = 1
    return xp.cumprod(out, dtype=np.uint64)


def _string_words(column: Any) -> Any:
    xp = column.xp
    offsets = column.offsets.astype(np.int64, copy=False)
    chars = column.chars
    n_chars = chars.shape[0]
    # contribution of each byte: (byte + 1) * P**global_position; +1 so that a NUL byte still counts
    weighted = (chars.astype(np.uint64) + np.uint64(1)) * _powers(_BASE, n_chars, xp)
    prefix = xp.concatenate([xp.zeros(1, dtype=np.uint64), xp.cumsum(weighted, dtype=np.uint64)])
    starts, stops = offsets[:-1], offsets[1:]
    sums = prefix[stops] - prefix[starts]
    inverse = _powers(_BASE_INVERSE, n_chars + 1, xp)
    words = sums * inverse[starts]
    return words ^ _mix((stops - starts).astype(np.uint64))  # the length, so "" and "\0"-free prefixes differ


def _category_words(column: Any) -> Any:
    from riptide.core.column.categorical import HostCategories

    xp = column.xp
    categories = column.categories
    if isinstance(categories, HostCategories):  # labels only pandas holds (intervals): hash them on the host
        label_words = xp.asarray(pd.util.hash_pandas_object(categories.index, index=False).to_numpy(np.uint64))
    else:
        label_words = hash_column(categories)
    codes = column.codes.astype(np.int64)
    present = codes >= 0
    picked = label_words[xp.where(present, codes, 0)] if label_words.shape[0] else xp.zeros(codes.shape[0], np.uint64)
    return xp.where(present, picked, _MISSING)


def hash_column(column: Any) -> Any:
    """One uint64 hash per row of a riptide column (equal values, equal hashes; missing values all alike).

    >>> from riptide.core.column import as_column
    >>> a = hash_column(as_column(np.array([1, 2, 1], dtype=np.int32)))
    >>> b = hash_column(as_column(pd.array([2, None, 1], dtype="Int64")))
    >>> bool(a[0] == a[2] == b[2]), bool(a[1] == b[0]), bool(a[0] == a[1])
    (True, True, False)
    """
    from riptide.core.column import CategoricalColumn, NumericColumn, StringColumn

    xp = column.xp
    if isinstance(column, CategoricalColumn):
        return _category_words(column)  # already mixed, and missing already the constant
    if isinstance(column, StringColumn):
        words = _string_words(column)
    elif isinstance(column, NumericColumn):
        data = column.data
        kind = data.dtype.kind
        if kind == "f":
            data = data.astype(np.float64, copy=False)
            data = xp.where(data == 0, 0.0, data)  # -0.0 == 0.0
            data = xp.where(xp.isnan(data), np.nan, data)  # one NaN pattern
            words = data.view(np.uint64)
        elif kind == "c":
            raise TypeError(f"cannot hash a column of dtype {column.dtype} for a Dask shuffle")
        else:
            words = data.astype(np.int64, copy=False).view(np.uint64)
    else:
        raise TypeError(f"cannot hash a column of dtype {column.dtype} for a Dask shuffle")
    words = _mix(words)
    if column.can_hold_missing():
        words = xp.where(column.isna(), _MISSING, words)
    return words


def hash_columns(columns: list[Any], n: int, xp: Any) -> Any:
    """The chained hash of several columns of ``n`` rows (uint64 per row); no columns hash to one constant."""
    if not columns:
        return xp.full(n, _MISSING, dtype=np.uint64)
    out = hash_column(columns[0])
    for column in columns[1:]:
        out = _mix(out * _CHAIN + hash_column(column))
    return out
