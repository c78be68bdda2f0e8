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

Regular expressions (``contains``, ``match``, ``fullmatch``, ``count``, ``replace`` with a literal ``repl``,
``split(regex=True)``, ``case=False``, ``flags``, compiled patterns) run on the device through
:mod:`riptide.core.regex` (a DFA walked by one thread per row), with Python ``re`` semantics. Patterns beyond that
engine (lookaround, backreferences, group references in ``repl``, \\b on non-ASCII text...), ``extract`` /
``extractall`` and patterns pandas would answer through RE2 differently (``a{,3}``, RE2-invalid ones) are computed by
pandas on a host copy, with a ``RegexFallbackWarning`` once per pattern; an invalid pattern raises pandas' error.
Known difference: ``count`` / ``replace`` of patterns that match the empty string follow Python's ``re`` (as pandas'
object path does) where pandas' pyarrow kernel differs.

Not yet (``NotImplementedError``): ``findall`` and ``split`` / ``partition`` with ``expand=False`` (pandas returns
an object column of Python lists / tuples, which riptide cannot hold), empty literal ``split`` patterns, ``cat``
with ``others`` on another index (alignment), per-row ``repeat`` counts, ``.str`` of a categorical Series, and the
rest of pandas' string methods (``normalize``...).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from riptide.core import dtypes
from riptide.core.ops import string_ops as ops
from riptide.core.regex import ops as regex_ops
from riptide.core.regex import pandas_rules
from riptide.core.regex.parse import Unsupported

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


def _na_kw(na: Any) -> dict:
    """``na`` for a pandas call: left out when the caller left it out."""
    return {} if na is _NA_DEFAULT else {"na": na}


def _from_pandas(result: Any) -> Any:
    """A pandas result of the host fallback as the riptide object of the same shape."""
    import pandas as pd

    if isinstance(result, pd.DataFrame):
        from riptide.frame.dataframe import DataFrame

        return DataFrame(result)
    if isinstance(result, pd.Series):
        from riptide.frame.series import Series

        return Series(result)
    return result


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
        """Whether ``pat`` (a regular expression, or a literal with ``regex=False``) occurs in each string.

        >>> import riptide as rt
        >>> s = rt.Series(["a.b", "ab", None])
        >>> s.str.contains(".", regex=False).to_pandas().tolist(), s.str.contains("^a.b$").to_pandas().tolist()
        ([True, False, False], [True, False, False])
        """
        na_value = self._na(na)
        self._check_pattern(pat, regex)
        host = lambda acc: acc.contains(pat, case=case, flags=flags, regex=regex, **_na_kw(na))  # noqa: E731
        if not regex:
            if isinstance(pat, re.Pattern) or flags:
                return self._host("contains", pat, "a compiled pattern or flags with regex=False", host)
            if case:
                return self._wrap(ops.contains(self._column, pat, na_value))
            pattern, flags = re.escape(pat), re.IGNORECASE
        else:
            pattern, flags = pandas_rules.normalize(pat, case, flags)
            if isinstance(pattern, str) and not flags and ops.is_literal_regex(pattern):
                return self._wrap(ops.contains(self._column, pattern, na_value))
        return self._regex("contains", pat, pattern, flags, host,
                           lambda: self._wrap(regex_ops.contains(self._column, pattern, flags, na_value)))  # fmt: skip

    def match(self, pat: str, case: bool = True, flags: int = 0, na: Any = _NA_DEFAULT) -> Any:
        """Whether the regular expression ``pat`` matches at the start of each string (``re.match``).

        >>> import riptide as rt
        >>> rt.Series(["ab1", "1ab", None]).str.match(r"[a-z]+\\d").to_pandas().tolist()
        [True, False, False]
        """
        na_value = self._na(na)
        self._check_pattern(pat, True)
        pattern, flags = pandas_rules.normalize(pat, case, flags)
        host = lambda acc: acc.match(pat, case=case, flags=flags, **_na_kw(na))  # noqa: E731
        return self._regex("match", pat, pattern, flags, host,
                           lambda: self._wrap(regex_ops.match(self._column, pattern, flags, na_value)))  # fmt: skip

    def fullmatch(self, pat: str, case: bool = True, flags: int = 0, na: Any = _NA_DEFAULT) -> Any:
        """Whether the regular expression ``pat`` matches each whole string (``re.fullmatch``).

        >>> import riptide as rt
        >>> rt.Series(["ab1", "ab1x"]).str.fullmatch(r"[a-z]+\\d").to_pandas().tolist()
        [True, False]
        """
        na_value = self._na(na)
        self._check_pattern(pat, True)
        pattern, flags = pandas_rules.normalize(pat, case, flags)
        host = lambda acc: acc.fullmatch(pat, case=case, flags=flags, **_na_kw(na))  # noqa: E731
        return self._regex("fullmatch", pat, pattern, flags, host,
                           lambda: self._wrap(regex_ops.fullmatch(self._column, pattern, flags, na_value)))  # fmt: skip

    def count(self, pat: str, flags: int = 0) -> Any:
        """Non-overlapping matches of the regular expression ``pat`` in each string (Python's ``re.findall``
        count: an empty match may follow a non-empty one).

        >>> import riptide as rt
        >>> rt.Series(["banana", "a1b22"]).str.count(r"an|\\d+").to_pandas().tolist()
        [2, 2]
        """
        if not isinstance(pat, (str, re.Pattern)):
            raise TypeError(f"expected string or bytes-like object, got {type(pat).__name__!r}")
        pattern, flags = pandas_rules.normalize(pat, True, flags)
        if not flags and isinstance(pattern, str) and ops.is_literal_regex(pattern):
            # (an empty pattern counts bytes + 1 here, as pandas' pyarrow kernel does; Python's re counts characters)
            return self._wrap(ops.count(self._column, pattern))
        host = lambda acc: acc.count(pat, flags=flags)  # noqa: E731
        return self._regex("count", pat, pattern, flags, host,
                           lambda: self._wrap(regex_ops.count(self._column, pattern, flags)))  # fmt: skip

    # --- regular expressions: dispatch and the host fallback ---------------------------------------------------
    @staticmethod
    def _check_pattern(pat: Any, regex: bool) -> None:
        if not isinstance(pat, (str, re.Pattern)):
            if regex:
                raise TypeError("first argument must be string or compiled pattern")
            raise TypeError(f"expected bytes, {type(pat).__name__} found")

    def _regex(self, method: str, pat: Any, pattern: Any, flags: int, host: Any, device: Any,
               re2_route: bool | None = None) -> Any:  # fmt: skip
        """Run ``device()`` on the column's device; patterns the device engine does not run, or that pandas would
        answer differently (its RE2 route), go to ``host(pandas_str_accessor)`` on a host copy, warning once."""
        if not isinstance(pattern, str):
            return self._host(method, pat, "a bytes pattern", host)
        if re2_route is None:
            re2_route = pandas_rules.pandas_uses_re2(pattern, flags)
        if re2_route:
            if not pandas_rules.re2_accepts(pattern, bool(flags & re.IGNORECASE)):
                return self._host(method, pat, "a pattern pandas hands to RE2, which rejects it", host)
            if pandas_rules.braces_from_zero(pattern):
                return self._host(method, pat, "'{,n}', literal text for pandas' RE2 engine", host)
        try:
            return device()
        except re.error as exc:
            return self._host(method, pat, f"Python's re rejects it: {exc}", host)
        except Unsupported as exc:
            return self._host(method, pat, str(exc), host)

    def _host(self, method: str, pat: Any, reason: str, host: Any) -> Any:
        """pandas' own answer on a host copy of the Series (it raises pandas' exception for a bad pattern)."""
        result = host(self._series.to_pandas().str)
        pandas_rules.warn_fallback(method, pat.pattern if isinstance(pat, re.Pattern) else pat, reason)
        return _from_pandas(result)

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
        """Replace the first ``n`` (default all) non-overlapping occurrences of ``pat`` (a literal, or a regular
        expression with ``regex=True``) with the literal ``repl``.

        >>> import riptide as rt
        >>> s = rt.Series(["a.b.c", None])
        >>> s.str.replace(".", "::", n=1).to_pandas().tolist(), s.str.replace(r"\\.\\w", "", regex=True).to_pandas().tolist()
        (['a::b.c', nan], ['a', nan])
        """
        if isinstance(pat, dict):
            raise NotImplementedError("str.replace with a dict of patterns (not supported yet)")
        host = lambda acc: acc.replace(pat, repl, n=n, case=case, flags=flags, regex=regex)  # noqa: E731
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise TypeError(f"n must be an integer, not {type(n).__name__}")
        n = int(n)
        if callable(repl) and not isinstance(repl, str):
            return self._host("replace", pat, "a callable repl", host)
        if not isinstance(repl, str):
            raise TypeError("repl must be a string or callable")
        if isinstance(pat, re.Pattern) and (case is not None or flags or not regex):
            return self._host("replace", pat, "a compiled pattern with case, flags or regex=False", host)
        if not isinstance(pat, (str, re.Pattern)):
            raise TypeError("first argument must be string or compiled pattern")
        if not regex:
            if flags:
                return self._host("replace", pat, "flags with regex=False", host)
            if case is not False and pat:
                return self._wrap(ops.replace(self._column, pat, repl, n))
            if case is not False:  # an empty literal: str.replace inserts repl around every character
                limit = n
                pattern, flags = "", 0
            else:
                pattern, flags = re.escape(pat), re.IGNORECASE
                limit = n if n > 0 else -1  # pandas' case-insensitive path is re.sub, whose count=0 means all
            return self._regex("replace", pat, pattern, flags, host,
                               lambda: self._wrap(regex_ops.replace(self._column, pattern, repl, limit, flags)),
                               re2_route=False)  # fmt: skip
        pattern, flags = pandas_rules.normalize(pat, case, flags)
        python_route = isinstance(pat, re.Pattern) or bool(flags) or not pandas_rules.pandas_uses_re2(pattern, flags)
        if "\\" in repl:
            return self._host("replace", pat, "escapes or group references in repl", host)
        if n == 0 and not python_route:  # pandas also leaves RE2 for some patterns on some text
            unicode_sensitive, newline_sensitive = pandas_rules.data_sensitive(pattern)
            column = self._column
            # one scalar read each: which engine pandas would pick for this data
            python_route = (unicode_sensitive and not ops._is_ascii(column)) or (
                newline_sensitive and bool((column.chars == 10).any()))
        # n=0 replaces nothing through pandas' RE2 kernel, everything through Python's re.sub (count=0)
        limit = -1 if n < 0 or (n == 0 and python_route) else n
        return self._regex("replace", pat, pattern, flags, host,
                           lambda: self._wrap(regex_ops.replace(self._column, pattern, repl, limit, flags)),
                           re2_route=not python_route)  # fmt: skip

    def _split(self, pat: Any, n: Any, expand: bool, regex: Any, from_right: bool, method: str) -> Any:
        if pat is not None and not from_right and (
            regex is True or isinstance(pat, re.Pattern)
            or (regex is None and isinstance(pat, str) and len(pat) > 1 and not ops.is_literal_regex(pat))
        ):  # fmt: skip
            return self._regex_split(pat, n, expand, regex)
        if pat is not None:
            if not isinstance(pat, str):
                raise TypeError(f"object of type '{type(pat).__name__}' has no len()")
            if not pat:
                raise NotImplementedError(f"str.{method} with an empty pattern (not supported yet)")
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

    def _regex_split(self, pat: Any, n: Any, expand: bool, regex: Any) -> Any:
        """``split`` at a regular expression: pandas' ``re.split(pat, s, maxsplit)`` per row."""
        host = lambda acc: acc.split(pat, n=n, expand=expand, regex=regex)  # noqa: E731
        if not isinstance(pat, (str, re.Pattern)):
            raise TypeError("first argument must be string or compiled pattern")
        if n is not None and (not isinstance(n, (int, np.integer)) or isinstance(n, bool)):
            raise TypeError(f"n must be an integer, not {type(n).__name__}")
        if not expand:
            raise NotImplementedError(
                "str.split(expand=False): pandas returns an object column of Python lists, which riptide cannot "
                "hold (its list columns have an Arrow list dtype); use expand=True"
            )
        # re.split's maxsplit: 0 (pandas' n None / -1 / 0) splits everywhere, a negative one nowhere
        limit = -1 if n is None or n in (-1, 0) else (0 if n < 0 else int(n))
        pattern, flags = pandas_rules.normalize(pat, True, 0)

        def device() -> Any:
            if re.compile(pattern, flags).groups:
                raise Unsupported("capturing groups (re.split returns their text too)")
            column = self._column
            begin, end, per_row = regex_ops.split_pieces(column, pattern, limit, flags)
            counts = per_row if column.mask is None else column.xp.where(column.mask, per_row, 1)
            n_columns = int(counts.max()) if column.size else 0  # one scalar read: the number of output columns
            return self._frame(ops.piece_columns(column, begin, end, per_row, n_columns))

        return self._regex("split", pat, pattern, flags, host, device, re2_route=False)

    # --- capture groups (on the host so far) ---------------------------------------------------------------------
    def extract(self, pat: str, flags: int = 0, expand: bool = True) -> Any:
        """The first match's capture groups of each string: a DataFrame (columns named by the groups' names or
        0..k-1, dtype str), or a Series for one group with ``expand=False``. Computed on the host so far
        (a :class:`~riptide.core.regex.pandas_rules.RegexFallbackWarning` says so).
        """
        host = lambda acc: acc.extract(pat, flags=flags, expand=expand)  # noqa: E731
        return self._host("extract", pat, "capture groups are not on the device yet", host)

    def extractall(self, pat: str, flags: int = 0) -> Any:
        """Every match's capture groups: a DataFrame indexed by (row label, match number). On the host so far."""
        host = lambda acc: acc.extractall(pat, flags=flags)  # noqa: E731
        return self._host("extractall", pat, "capture groups are not on the device yet", host)

    def findall(self, pat: str, flags: int = 0) -> Any:
        """Not supported: pandas returns an object column of Python lists, which riptide cannot hold."""
        raise NotImplementedError(
            "str.findall: pandas returns an object column of Python lists, which riptide cannot hold; use "
            "str.extractall (one row per match) or str.count"
        )

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
