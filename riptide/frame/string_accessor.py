"""The ``.str`` accessor of a string Series, computed on the column's device.

``series.str`` returns :class:`StringMethods` for a Series of pandas' ``str`` dtype; any other Series raises
pandas' ``AttributeError`` (so ``hasattr(s, "str")`` is False, as in pandas). The work happens in
:mod:`riptide.core.ops.string_ops` on the Arrow layout (offsets + UTF-8 bytes); this module checks the arguments
the way pandas does and wraps each result with the Series' index and name.

pandas' rules followed here (pandas 3, default ``str`` dtype):

* counts and positions (``len``, ``count``, ``find``, ``rfind``) are int64, or float64 with NaN once a row is
  missing; predicates are bool, False at missing rows unless ``na=`` says otherwise;
* string results keep missing rows missing; ``get`` is also missing where the index is out of range;
* positions, lengths, slices and widths count code points, not bytes.

Not yet (``NotImplementedError``): regular expressions (``contains`` / ``count`` with a pattern that has a regex
special character), ``case=False``, ``flags``, per-row ``repeat`` counts, ``.str`` of a categorical Series, and
the rest of pandas' string methods (``replace``, ``split``, ``upper``...).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide.core import dtypes
from riptide.core.ops import string_ops as ops

__all__ = ["SeriesStringAccessorMethods", "StringMethods"]

_NA_DEFAULT = object()


def _kind_name(dtype: Any) -> str:
    """pandas' word for a non-string dtype in its accessor error."""
    kind = getattr(dtype, "kind", "O")
    return {"i": "integer", "u": "integer", "f": "floating", "b": "boolean", "M": "datetime64",
            "m": "timedelta64", "c": "complex"}.get(kind, str(dtype))  # fmt: skip


class SeriesStringAccessorMethods:
    """Mixin of Series: the ``str`` accessor."""

    @property
    def str(self) -> StringMethods:
        """Vectorised string methods of this Series' values.

        >>> import riptide as rt
        >>> s = rt.Series(["a b ", None, "中文"])
        >>> s.str.len().to_pandas().tolist(), s.str.strip().to_pandas().tolist()
        ([4.0, nan, 2.0], ['a b', nan, '中文'])
        """
        dtype = self.dtype
        if dtypes.is_string(dtype):
            return StringMethods(self)
        if dtypes.is_categorical(dtype):
            raise NotImplementedError("the .str accessor of a categorical Series (not supported yet)")
        raise AttributeError(f"Can only use .str accessor with string values, not {_kind_name(dtype)}")


class StringMethods:
    """``Series.str``: element-wise string methods with pandas' names and arguments.

    >>> import riptide as rt
    >>> rt.Series(["apple", "kiwi"]).str.startswith("ap").to_pandas().tolist()
    [True, False]
    """

    __slots__ = ("_series",)

    def __init__(self, series: Any):
        self._series = series

    @property
    def _column(self) -> Any:
        return self._series._column

    def _wrap(self, column: Any) -> Any:
        return self._series._with_column(column)

    @staticmethod
    def _na(na: Any) -> Any:
        if na is _NA_DEFAULT or na is None or (isinstance(na, float) and np.isnan(na)):
            return None
        if isinstance(na, (bool, np.bool_)):
            return bool(na)
        import pandas as pd

        if na is pd.NA:
            return None
        raise ValueError(f"na must be None, pd.NA, np.nan, True, or False; got {na}")

    @staticmethod
    def _literal(pat: Any, regex: bool, flags: int, case: bool, method: str) -> str:
        if flags:
            raise NotImplementedError(f"str.{method} with flags (regular expressions are not supported yet)")
        if not case:
            raise NotImplementedError(f"str.{method} with case=False (not supported yet)")
        if not isinstance(pat, str):
            if regex:
                raise TypeError("first argument must be string or compiled pattern")
            raise TypeError(f"expected bytes, {type(pat).__name__} found")
        if regex and not ops.is_literal_regex(pat):
            raise NotImplementedError(f"str.{method} of a regular expression (only literal patterns so far)")
        return pat

    # --- length, search ----------------------------------------------------------------------------------------
    def len(self) -> Any:
        """Number of characters (code points) of each string.

        >>> import riptide as rt
        >>> rt.Series(["é", ""]).str.len().to_pandas().tolist()
        [1, 0]
        """
        return self._wrap(ops.length(self._column))

    def startswith(self, pat: str | tuple[str, ...], na: Any = _NA_DEFAULT) -> Any:
        """Whether each string starts with ``pat`` (or any of a tuple of them)."""
        return self._wrap(ops.startswith(self._column, pat, self._na(na)))

    def endswith(self, pat: str | tuple[str, ...], na: Any = _NA_DEFAULT) -> Any:
        """Whether each string ends with ``pat`` (or any of a tuple of them)."""
        return self._wrap(ops.endswith(self._column, pat, self._na(na)))

    def contains(self, pat: str, case: bool = True, flags: int = 0, na: Any = _NA_DEFAULT, regex: bool = True) -> Any:
        """Whether ``pat`` occurs in each string (``regex=True`` only for patterns without special characters).

        >>> import riptide as rt
        >>> rt.Series(["a.b", "ab"]).str.contains(".", regex=False).to_pandas().tolist()
        [True, False]
        """
        pat = self._literal(pat, regex, flags, case, "contains")
        return self._wrap(ops.contains(self._column, pat, self._na(na)))

    def count(self, pat: str, flags: int = 0) -> Any:
        """Non-overlapping occurrences of ``pat`` in each string (a literal pattern).

        >>> import riptide as rt
        >>> rt.Series(["banana"]).str.count("an").to_pandas().tolist()
        [2]
        """
        if not isinstance(pat, str):
            raise TypeError(f"expected string or bytes-like object, got {type(pat).__name__!r}")
        pat = self._literal(pat, True, flags, True, "count")
        return self._wrap(ops.count(self._column, pat))

    def find(self, sub: str, start: int = 0, end: int | None = None) -> Any:
        """Lowest character index of ``sub`` in each ``string[start:end]``, -1 where absent.

        >>> import riptide as rt
        >>> rt.Series(["banana"]).str.find("an", 2).to_pandas().tolist()
        [3]
        """
        return self._wrap(ops.find(self._column, sub, start, end))

    def rfind(self, sub: str, start: int = 0, end: int | None = None) -> Any:
        """Highest character index of ``sub`` in each ``string[start:end]``, -1 where absent."""
        return self._wrap(ops.rfind(self._column, sub, start, end))

    # --- pieces --------------------------------------------------------------------------------------------------
    def slice(self, start: int | None = None, stop: int | None = None, step: int | None = None) -> Any:
        """Each string's ``[start:stop:step]`` (by characters).

        >>> import riptide as rt
        >>> rt.Series(["abcdef"]).str.slice(-4, None, 2).to_pandas().tolist()
        ['ce']
        """
        return self._wrap(ops.slice_strings(self._column, start, stop, step))

    def get(self, i: int) -> Any:
        """The character at position ``i`` of each string; missing where out of range."""
        return self._wrap(ops.get(self._column, i))

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return self.slice(key.start, key.stop, key.step)
        return self.get(key)

    def strip(self, to_strip: str | None = None) -> Any:
        """Remove leading and trailing whitespace (or the characters of ``to_strip``)."""
        return self._wrap(ops.strip(self._column, to_strip))

    def lstrip(self, to_strip: str | None = None) -> Any:
        """Remove leading whitespace (or the characters of ``to_strip``)."""
        return self._wrap(ops.lstrip(self._column, to_strip))

    def rstrip(self, to_strip: str | None = None) -> Any:
        """Remove trailing whitespace (or the characters of ``to_strip``)."""
        return self._wrap(ops.rstrip(self._column, to_strip))

    # --- building ------------------------------------------------------------------------------------------------
    def repeat(self, repeats: int) -> Any:
        """Each string repeated ``repeats`` times."""
        if not isinstance(repeats, (int, np.integer)):
            raise NotImplementedError("str.repeat with a sequence of counts (only one int so far)")
        return self._wrap(ops.repeat(self._column, repeats))

    def pad(self, width: int, side: str = "left", fillchar: str = " ") -> Any:
        """Pad each string to ``width`` characters with ``fillchar`` on ``side`` ("left", "right", "both").

        >>> import riptide as rt
        >>> rt.Series(["7"]).str.pad(3, fillchar="0").to_pandas().tolist()
        ['007']
        """
        return self._wrap(ops.pad(self._column, width, side, fillchar))

    def center(self, width: int, fillchar: str = " ") -> Any:
        """Pad both sides to ``width`` characters."""
        return self.pad(width, "both", fillchar)

    def ljust(self, width: int, fillchar: str = " ") -> Any:
        """Pad on the right to ``width`` characters (the text sits left)."""
        return self.pad(width, "right", fillchar)

    def rjust(self, width: int, fillchar: str = " ") -> Any:
        """Pad on the left to ``width`` characters (the text sits right)."""
        return self.pad(width, "left", fillchar)

    def zfill(self, width: int) -> Any:
        """Pad with zeros on the left to ``width`` characters, keeping a leading sign first."""
        return self._wrap(ops.zfill(self._column, width))

    # --- character classes ---------------------------------------------------------------------------------------
    def isdigit(self) -> Any:
        """Whether each string is non-empty and all digits."""
        return self._wrap(ops.classify(self._column, "digit"))

    def isdecimal(self) -> Any:
        """Whether each string is non-empty and all decimal characters."""
        return self._wrap(ops.classify(self._column, "decimal"))

    def isnumeric(self) -> Any:
        """Whether each string is non-empty and all numeric characters."""
        return self._wrap(ops.classify(self._column, "numeric"))

    def isalpha(self) -> Any:
        """Whether each string is non-empty and all letters."""
        return self._wrap(ops.classify(self._column, "alpha"))

    def isalnum(self) -> Any:
        """Whether each string is non-empty and all letters or digits."""
        return self._wrap(ops.classify(self._column, "alnum"))

    def isspace(self) -> Any:
        """Whether each string is non-empty and all whitespace."""
        return self._wrap(ops.classify(self._column, "space"))

    def islower(self) -> Any:
        """Whether each string has a cased character and no upper-case one."""
        return self._wrap(ops.classify(self._column, "lower"))

    def isupper(self) -> Any:
        """Whether each string has a cased character and no lower-case one."""
        return self._wrap(ops.classify(self._column, "upper"))
