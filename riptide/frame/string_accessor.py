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

* ``split`` / ``rsplit`` (``expand=True``) and ``partition`` / ``rpartition`` give a DataFrame with columns
  0..k-1, k being the most pieces of any row (a missing row counts as one piece), missing cells where a row has fewer;
* ``cat()`` with no ``others`` returns one Python str (the only result that leaves the device).
* case mapping (``lower``, ``upper``, ``swapcase``, ``capitalize``, ``title``) follows pyarrow's kernels, which
  pandas uses: one code point to one ('ß'.upper() is 'ẞ', no final sigma); ``casefold`` follows Python's
  ``str.casefold``, as pandas does ('ß' -> 'ss').

Not yet (``NotImplementedError``): regular expressions (``contains`` / ``count`` / ``replace`` / ``split`` with a
pattern that has a regex special character), ``case=False``, ``flags``, empty ``replace`` / ``split`` patterns,
``split`` / ``partition`` with ``expand=False`` (pandas returns an object column of Python lists / tuples, which
riptide cannot hold), ``cat`` with ``others`` on another index (alignment), per-row ``repeat`` counts, ``.str`` of
a categorical Series, and the rest of pandas' string methods (``extract``, ``normalize``...).
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

    # --- case mapping ------------------------------------------------------------------------------------------
    def lower(self) -> Any:
        """Each string in lower case (pyarrow's one-to-one mapping, as pandas: no final-sigma rule).

        >>> import riptide as rt
        >>> rt.Series(["ÀB", None, "ΑΣ"]).str.lower().to_pandas().tolist()
        ['àb', nan, 'ασ']
        """
        return self._wrap(ops.change_case(self._column, "lower"))

    def upper(self) -> Any:
        """Each string in upper case (one code point to one, as pandas: 'ß' becomes 'ẞ').

        >>> import riptide as rt
        >>> rt.Series(["straße", ""]).str.upper().to_pandas().tolist()
        ['STRAẞE', '']
        """
        return self._wrap(ops.change_case(self._column, "upper"))

    def casefold(self) -> Any:
        """Each string case-folded like Python's ``str.casefold`` (which may lengthen it: 'ß' becomes 'ss').

        >>> import riptide as rt
        >>> rt.Series(["Straße"]).str.casefold().to_pandas().tolist()
        ['strasse']
        """
        return self._wrap(ops.change_case(self._column, "casefold"))

    def swapcase(self) -> Any:
        """Upper-case letters to lower case and lower-case ones to upper case (title-case letters stay).

        >>> import riptide as rt
        >>> rt.Series(["aBc"]).str.swapcase().to_pandas().tolist()
        ['AbC']
        """
        return self._wrap(ops.change_case(self._column, "swapcase"))

    def capitalize(self) -> Any:
        """The first character in upper case, the rest in lower case.

        >>> import riptide as rt
        >>> rt.Series(["hELLO wORLD"]).str.capitalize().to_pandas().tolist()
        ['Hello world']
        """
        return self._wrap(ops.change_case(self._column, "capitalize"))

    def title(self) -> Any:
        """Each word's first letter in upper case and its other letters in lower case (a word is a run of cased
        letters, so "3rd" becomes "3Rd", as in pandas).

        >>> import riptide as rt
        >>> rt.Series(["hello wORLD 3rd"]).str.title().to_pandas().tolist()
        ['Hello World 3Rd']
        """
        return self._wrap(ops.change_case(self._column, "title"))

    # --- replace, split, partition, cat --------------------------------------------------------------------------
    def replace(self, pat: str, repl: str | None = None, n: int = -1, case: bool | None = None, flags: int = 0,
                regex: bool = False) -> Any:  # fmt: skip
        """Replace the first ``n`` (default all) non-overlapping occurrences of the literal ``pat`` with ``repl``.

        >>> import riptide as rt
        >>> rt.Series(["a.b.c", None]).str.replace(".", "::", n=1).to_pandas().tolist()
        ['a::b.c', nan]
        """
        if isinstance(pat, dict):
            raise NotImplementedError("str.replace with a dict of patterns (not supported yet)")
        if callable(repl) and not isinstance(repl, str):
            raise NotImplementedError("str.replace with a callable repl (regular expressions are not supported yet)")
        if not isinstance(repl, str):
            raise TypeError("repl must be a string or callable")
        if case is False:
            raise NotImplementedError("str.replace with case=False (not supported yet)")
        pat = self._literal(pat, regex, flags, True, "replace")
        if not pat:
            raise NotImplementedError("str.replace with an empty pattern (not supported yet)")
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise TypeError(f"n must be an integer, not {type(n).__name__}")
        return self._wrap(ops.replace(self._column, pat, repl, int(n)))

    def _split(self, pat: Any, n: Any, expand: bool, regex: Any, from_right: bool, method: str) -> Any:
        if regex is True:
            raise NotImplementedError(f"str.{method} with regex=True (only literal patterns so far)")
        if pat is not None:
            if not isinstance(pat, str):
                raise TypeError(f"object of type '{type(pat).__name__}' has no len()")
            if not pat:
                raise NotImplementedError(f"str.{method} with an empty pattern (not supported yet)")
            if regex is None and len(pat) > 1 and not ops.is_literal_regex(pat):
                # pandas treats a pattern of more than one character as a regular expression when regex=None
                raise NotImplementedError(f"str.{method} of a regular expression (only literal patterns so far)")
        if n is None or n == 0:
            n = -1
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise TypeError(f"n must be an integer, not {type(n).__name__}")
        if method == "split" and regex is None and pat is not None and len(pat) > 1 and n < -1:
            n = 0  # pandas splits such a pattern with re.split, whose negative maxsplit splits nothing
        if not expand:
            raise NotImplementedError(
                f"str.{method}(expand=False): pandas returns an object column of Python lists, which riptide cannot "
                "hold (its list columns have an Arrow list dtype); use expand=True"
            )
        column = self._column
        begin, end, per_row = ops.split_pieces(column, pat, int(n) if n >= 0 else -1, from_right)
        # pandas makes as many columns as the longest row has pieces (a missing row counts as one).
        counts = per_row if column.mask is None else column.xp.where(column.mask, per_row, 1)
        # one scalar read: the number of output columns
        n_columns = int(counts.max()) if column.size else 0
        return self._frame(ops.piece_columns(column, begin, end, per_row, n_columns))

    def _frame(self, columns: list) -> Any:
        from riptide.frame.dataframe import DataFrame

        return DataFrame._from_columns(dict(enumerate(columns)), self._series.index)

    def split(self, pat: str | None = None, *, n: int = -1, expand: bool = False, regex: bool | None = None) -> Any:
        """Split each string at the literal ``pat`` (whitespace runs when None), at most ``n`` times from the left.

        Only ``expand=True`` (a DataFrame with one column per piece) so far.

        >>> import riptide as rt
        >>> rt.Series(["a b c", "d"]).str.split(n=1, expand=True).to_pandas().values.tolist()
        [['a', 'b c'], ['d', nan]]
        """
        return self._split(pat, n, expand, regex, False, "split")

    def rsplit(self, pat: str | None = None, *, n: int = -1, expand: bool = False) -> Any:
        """Split each string at the literal ``pat`` (whitespace runs when None), at most ``n`` times from the right.

        >>> import riptide as rt
        >>> rt.Series(["a b c"]).str.rsplit(n=1, expand=True).to_pandas().values.tolist()
        [['a b', 'c']]
        """
        return self._split(pat, n, expand, False, True, "rsplit")

    def _partition(self, sep: Any, expand: bool, from_right: bool, method: str) -> Any:
        if not isinstance(sep, str):
            raise TypeError(f"expected bytes, {type(sep).__name__} found")
        if not sep:
            raise ValueError("empty separator")
        if not expand:
            raise NotImplementedError(
                f"str.{method}(expand=False): pandas returns an object column of Python tuples, which riptide cannot "
                "hold; use expand=True"
            )
        column = self._column
        if column.size == 0:  # pandas gives no columns at all for an empty Series
            return self._frame([])
        columns = ops.partition(column, sep, from_right)
        # one scalar read: pandas sizes the frame by its longest row, and a column of only missing rows has one
        if column.mask is not None and not bool(column.mask.any()):
            columns = columns[:1]
        return self._frame(columns)

    def partition(self, sep: str = " ", expand: bool = True) -> Any:
        """Split each string at the first ``sep``: the text before, the separator, the text after.

        >>> import riptide as rt
        >>> rt.Series(["a-b-c", "x"]).str.partition("-").to_pandas().values.tolist()
        [['a', '-', 'b-c'], ['x', '', '']]
        """
        return self._partition(sep, expand, False, "partition")

    def rpartition(self, sep: str = " ", expand: bool = True) -> Any:
        """Split each string at the last ``sep``: the text before, the separator, the text after."""
        return self._partition(sep, expand, True, "rpartition")

    def cat(self, others: Any = None, sep: str | None = None, na_rep: str | None = None, join: str = "left") -> Any:
        """Concatenate: all rows into one string when ``others`` is None, else row by row with ``others`` (a Series
        or a list of them on the same index, or a list of strings of the same length).

        >>> import riptide as rt
        >>> s = rt.Series(["a", None, "c"])
        >>> s.str.cat(sep="-"), s.str.cat(s, na_rep="?").to_pandas().tolist()
        ('a-c', ['aa', '??', 'cc'])
        """
        if sep is None:
            sep = ""
        if not isinstance(sep, str):
            raise TypeError(f"sep must be a string, not {type(sep).__name__}")
        if na_rep is not None and not isinstance(na_rep, str):
            raise TypeError(f"na_rep must be a string, not {type(na_rep).__name__}")
        if others is None:
            return ops.join_all(self._column, sep, na_rep)
        # ``join`` only matters when the indexes differ, which needs alignment (not supported yet, see below).
        return self._wrap(ops.concat_rows([self._column] + self._cat_others(others), sep, na_rep))

    def _cat_others(self, others: Any) -> list:
        from riptide.frame.series import Series

        index = self._series.index
        if isinstance(others, Series) or (isinstance(others, (list, tuple)) and others
                                          and all(isinstance(o, Series) for o in others)):  # fmt: skip
            series_list = [others] if isinstance(others, Series) else list(others)
        elif isinstance(others, (list, tuple, np.ndarray)) and all(isinstance(o, str) or o is None for o in others):
            if len(others) != len(index):
                raise ValueError("If `others` contains arrays or lists (or other list-likes without an index), "
                                 "these must all be of the same length as the calling Series/Index.")
            series_list = [Series(list(others), dtype="str")]
            series_list[0].index = index
        else:
            raise NotImplementedError(
                f"str.cat with others of type {type(others).__name__} (a Series, a list of Series or a list of str so "
                "far)"
            )
        columns = []
        for other in series_list:
            if not dtypes.is_string(other.dtype):
                raise NotImplementedError(f"str.cat with a non-string Series ({other.dtype}) (not supported yet)")
            if not other.index.equals(index):
                raise NotImplementedError("str.cat with others on a different index (alignment not supported yet)")
            columns.append(other._column.to_device(self._column.xp))
        return columns
