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

Regular expressions (``contains``, ``match``, ``fullmatch``, ``count``, ``replace``, ``split(regex=True)``,
``case=False``, ``flags``, compiled patterns) run on the device through :mod:`riptide.core.regex` (a DFA walked by
one thread per row), with Python ``re`` semantics; so do capture groups (``extract``, ``extractall``, group
references and escapes in ``replace``'s ``repl``, groups in ``split``'s pieces), through a Pike VM run over each
match's span (:mod:`riptide.core.regex.captures`). Patterns beyond those engines (lookaround, backreferences,
\\b on non-ASCII text...) and patterns pandas would answer through RE2 differently (``a{,3}``, RE2-invalid ones)
are computed by pandas on a host copy, with a ``RegexFallbackWarning`` once per pattern; an invalid pattern raises
pandas' error. ``extractall`` with no match at all keeps the index's level dtypes (pandas' are empty object arrays).
Known difference: ``count`` / ``replace`` of patterns that match the empty string follow Python's ``re`` (as pandas'
object path does) where pandas' pyarrow kernel differs.

``slice_replace``, ``index`` / ``rindex``, ``removeprefix`` / ``removesuffix``, ``translate`` (a dict table, any
code points) and ``get_dummies`` run on the device (:mod:`riptide.core.ops.string_extras`). ``normalize`` leaves
ASCII rows as they are and normalizes only the other rows, with pyarrow on a host copy of those rows; ``wrap``
(Python's ``textwrap``) and ``translate`` with a mapping that is not a dict run through pandas on a host copy; all
three warn once with a :class:`~riptide.errors.HostFallbackWarning`.

``.str`` of a categorical of strings (:class:`CategoricalStringMethods`) runs each method once per category and
gathers the results by the codes, as pandas does (frames and ``cat`` use the decoded strings); string results have
the ``str`` dtype where pandas gives ``object``. ``Index.str`` (:class:`IndexStringMethods`) returns an Index, a
boolean array or a MultiIndex where pandas does.

Not yet (``NotImplementedError``): ``findall``, ``encode`` and ``split`` / ``partition`` with ``expand=False``
(pandas returns an object column of Python lists / tuples / bytes, which riptide cannot hold), empty literal
``split`` patterns, ``cat`` with ``others`` on another index (alignment), per-row ``repeat`` counts, ``istitle``.
``decode`` does not exist for pandas' ``str`` dtype (AttributeError, as there).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from riptide.core import dtypes
from riptide.core.ops import string_extras as extras
from riptide.core.ops import string_ops as ops
from riptide.core.regex import captures as regex_captures
from riptide.core.regex import ops as regex_ops
from riptide.core.regex import pandas_rules
from riptide.core.regex.parse import Unsupported
from riptide.frame.group_transform import _as_riptide  # pandas results as riptide objects

__all__ = ["CategoricalStringMethods", "IndexStringMethods", "SeriesStringAccessorMethods", "StringMethods"]

_NA_DEFAULT = object()


def _kind_name(dtype: Any) -> str:
    """pandas' word for a non-string dtype in its accessor error."""
    kind = getattr(dtype, "kind", "O")
    return {"i": "integer", "u": "integer", "f": "floating", "b": "boolean", "M": "datetime64",
            "m": "timedelta64", "c": "complex"}.get(kind, str(dtype))  # fmt: skip


def _empty_strings(xp: Any) -> Any:
    """A string column of no rows: the categories of a categorical that has none."""
    from riptide.core.column import StringColumn

    return StringColumn(xp.zeros(1, dtype=np.int64), xp.zeros(0, dtype=np.uint8))


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
            categories = getattr(self._column, "categories", None)
            if categories is not None and dtypes.is_string(categories.dtype):
                return CategoricalStringMethods(self)
            if len(dtype.categories) == 0 and dtype.categories.dtype == object:
                # no categories at all (every row missing): pandas allows .str
                return CategoricalStringMethods(self._with_column(self._column.__class__(
                    self._column.codes, _empty_strings(self._column.xp))))
            raise AttributeError("Can only use .str accessor with string values, not "
                                 f"{_kind_name(dtype.categories.dtype)}")
        raise AttributeError(f"Can only use .str accessor with string values, not {_kind_name(dtype)}")


def _refuse_flags_with_compiled(pat: Any, flags: int) -> None:
    """pandas hands a compiled pattern and ``flags`` to ``re.compile``, which refuses the pair."""
    if isinstance(pat, re.Pattern) and flags:
        raise ValueError("cannot process flags argument with a compiled pattern")


def _is_list_like(value: Any) -> bool:
    import pandas as pd

    return pd.api.types.is_list_like(value) or hasattr(value, "_column")


def _repeat_counts(repeats: Any, xp: Any) -> Any:
    """``str.repeat``'s sequence of counts as an integer column (missing counts kept), by position."""
    import pandas as pd

    from riptide.core.column import NumericColumn, as_column

    values = getattr(repeats, "_column", None)  # a riptide Series
    if values is None:
        if isinstance(repeats, list | tuple):  # ints with None: Int64
            host = pd.array(list(repeats)) if len(repeats) else np.zeros(0, dtype=np.int64)
        else:
            host = repeats
        values = as_column(host, xp=xp)
    if not isinstance(values, NumericColumn) or dtypes.to_numpy_dtype(values.dtype).kind not in "iu":
        raise TypeError(f"str.repeat needs integer counts, got dtype {values.dtype}")
    return values


def _na_kw(na: Any) -> dict:
    """``na`` for a pandas call: left out when the caller left it out."""
    return {} if na is _NA_DEFAULT else {"na": na}


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
            _refuse_flags_with_compiled(pat, flags)
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
        return self._anchored("match", pat, case, flags, na)

    def fullmatch(self, pat: str, case: bool = True, flags: int = 0, na: Any = _NA_DEFAULT) -> Any:
        """Whether the regular expression ``pat`` matches each whole string (``re.fullmatch``).

        >>> import riptide as rt
        >>> rt.Series(["ab1", "ab1x"]).str.fullmatch(r"[a-z]+\\d").to_pandas().tolist()
        [True, False]
        """
        return self._anchored("fullmatch", pat, case, flags, na)

    def _anchored(self, method: str, pat: Any, case: bool, flags: int, na: Any) -> Any:
        """``match`` / ``fullmatch`` (``method``): the same dispatch, a different anchoring of the walk."""
        na_value = self._na(na)
        self._check_pattern(pat, True)
        if method == "match" and isinstance(pat, re.Pattern) and case is False and not pat.flags & re.IGNORECASE:
            # (case=True is also pandas' default, so only case=False can be told apart as given)
            raise ValueError("Cannot both specify 'case' and pass a compiled regexp object with conflicting "
                             "case-sensitivity")  # fmt: skip
        if method == "match" and isinstance(pat, re.Pattern) and flags:
            requested = flags | (0 if case else re.IGNORECASE)
            if re.compile(pat.pattern, requested).flags != pat.flags:
                raise ValueError("Cannot both specify 'flags' and pass a compiled regexp object with conflicting flags")
            flags = 0
        else:
            _refuse_flags_with_compiled(pat, flags)
        pattern, flags = pandas_rules.normalize(pat, case, flags)
        host = lambda acc: getattr(acc, method)(pat, case=case, flags=flags, **_na_kw(na))  # noqa: E731
        device = getattr(regex_ops, method)
        return self._regex(method, pat, pattern, flags, host,
                           lambda: self._wrap(device(self._column, pattern, flags, na_value)))  # fmt: skip

    def count(self, pat: str, flags: int = 0) -> Any:
        """Non-overlapping matches of the regular expression ``pat`` in each string (Python's ``re.findall``
        count: an empty match may follow a non-empty one).

        >>> import riptide as rt
        >>> rt.Series(["banana", "a1b22"]).str.count(r"an|\\d+").to_pandas().tolist()
        [2, 2]
        """
        if not isinstance(pat, (str, re.Pattern)):
            raise TypeError(f"expected string or bytes-like object, got {type(pat).__name__!r}")
        _refuse_flags_with_compiled(pat, flags)
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
        result = self._pandas_answer(host)
        pandas_rules.warn_fallback(method, pat.pattern if isinstance(pat, re.Pattern) else pat, reason)
        return result

    def _pandas_answer(self, host: Any) -> Any:
        """``host(pandas_str_accessor)`` on a host copy of the Series, as a riptide object."""
        return _as_riptide(host(self._series.to_pandas().str))

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
    def repeat(self, repeats: Any) -> Any:
        """Each string repeated ``repeats`` times: one int, or a sequence of one int per row (by position; a
        missing count gives a missing string, a negative one an empty string, as pandas).

        >>> import riptide as rt
        >>> rt.Series(["a", "bc"]).str.repeat([3, 2]).to_pandas().tolist()
        ['aaa', 'bcbc']
        """
        if isinstance(repeats, (int, np.integer)) and not isinstance(repeats, (bool, np.bool_)):
            return self._wrap(ops.repeat(self._column, repeats))
        if isinstance(repeats, str) or not _is_list_like(repeats):
            raise ValueError(f"repeats must be an int or a sequence of ints, not {type(repeats).__name__}")
        counts = _repeat_counts(repeats, self._column.xp)
        if counts.size != self._column.size:
            raise ValueError(f"Arrays were different lengths: {self._column.size} vs {counts.size}")
        result = ops.repeat(self._column, counts.data)
        if not counts.can_hold_missing():
            return self._wrap(result)
        missing = counts.isna()
        if not isinstance(repeats, list | tuple) and bool((missing & self._column.notna()).any()):  # one scalar read
            # pandas reads <NA> in an array of counts as a count (a None in a list as a missing value)
            raise TypeError("'NAType' object cannot be interpreted as an integer")
        return self._wrap(result.set_missing(missing))

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
        expression with ``regex=True``) with ``repl``: literal text, or with ``regex=True`` a template with group
        references (``\\1``, ``\\g<name>``) and escapes, expanded as pandas does (Python's ``re.sub``, or RE2's
        rewrite rules where pandas uses pyarrow's kernel).

        >>> import riptide as rt
        >>> rt.Series(["ann@site.com"]).str.replace(r"(\\w+)@(\\w+)", r"\\2 at \\1", regex=True).to_pandas().tolist()
        ['site at ann.com']
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
            else:  # pandas' case-insensitive path is re.sub: repl is a template there too
                pattern, flags = re.escape(pat), re.IGNORECASE
                limit = n if n > 0 else -1  # re.sub's count=0 means all
                if "\\" in repl:
                    return self._regex("replace", pat, pattern, flags, host,
                                       lambda: self._replace_template(pattern, repl, limit, flags, False),
                                       re2_route=False)  # fmt: skip
            return self._regex("replace", pat, pattern, flags, host,
                               lambda: self._wrap(regex_ops.replace(self._column, pattern, repl, limit, flags)),
                               re2_route=False)  # fmt: skip
        pattern, flags = pandas_rules.normalize(pat, case, flags)
        python_route = (isinstance(pat, re.Pattern) or bool(flags) or r"\g<" in repl or pattern == ""
                        or not pandas_rules.pandas_uses_re2(pattern, flags))  # fmt: skip
        template = "\\" in repl
        if (n == 0 or template) and not python_route:  # pandas also leaves RE2 for some patterns on some text
            unicode_sensitive, newline_sensitive = pandas_rules.data_sensitive(pattern)
            column = self._column
            # one scalar read each: which engine pandas would pick for this data
            python_route = (unicode_sensitive and not ops._is_ascii(column)) or (
                newline_sensitive and bool((column.chars == 10).any()))
        # n=0 replaces nothing through pandas' RE2 kernel, everything through Python's re.sub (count=0)
        limit = -1 if n < 0 or (n == 0 and python_route) else n
        if template:
            return self._regex("replace", pat, pattern, flags, host,
                               lambda: self._replace_template(pattern, repl, limit, flags, not python_route),
                               re2_route=not python_route)  # fmt: skip
        return self._regex("replace", pat, pattern, flags, host,
                           lambda: self._wrap(regex_ops.replace(self._column, pattern, repl, limit, flags)),
                           re2_route=not python_route)  # fmt: skip

    def _replace_template(self, pattern: str, repl: str, limit: int, flags: int, re2: bool) -> Any:
        """``replace`` with a ``repl`` holding backslashes: group references and escapes expanded on the device
        (``re2``: the rewrite rules of pandas' pyarrow route; else Python's ``re.sub`` template)."""
        try:
            template = regex_captures.parse_template(repl, pattern, flags, re2)
        except (re.error, IndexError) as exc:  # pandas raises it only when a row is there to substitute in
            raise Unsupported(f"a repl Python's re rejects ({exc})") from exc
        return self._wrap(regex_captures.replace(self._column, pattern, template, limit, flags))

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
        return self._frame(ops.piece_columns(column, begin, end, per_row, self._n_piece_columns(per_row)))

    def _n_piece_columns(self, per_row: Any) -> int:
        """pandas makes as many columns as the longest row has pieces (a missing row counts as one)."""
        column = self._column
        counts = per_row if column.mask is None else column.xp.where(column.mask, per_row, 1)
        return int(counts.max()) if column.size else 0  # one scalar read: the number of output columns

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
            column = self._column
            if re.compile(pattern, flags).groups:  # re.split puts each group's text between the pieces
                begin, end, valid, per_row = regex_captures.split_pieces(column, pattern, limit, flags)
            else:
                begin, end, per_row = regex_ops.split_pieces(column, pattern, limit, flags)
                valid = None
            n_columns = self._n_piece_columns(per_row)
            if valid is None:
                return self._frame(ops.piece_columns(column, begin, end, per_row, n_columns))
            return self._frame(regex_captures.piece_columns(column, begin, end, valid, per_row, n_columns))

        return self._regex("split", pat, pattern, flags, host, device, re2_route=False)

    # --- capture groups ------------------------------------------------------------------------------------------
    @staticmethod
    def _compile_groups(pat: Any, flags: int) -> tuple[re.Pattern, str, int]:
        """pandas' checks of an extract pattern (``re.compile``'s own errors, at least one group); the pattern's
        text and flags for the device engine."""
        regex = re.compile(pat, flags=flags)
        if regex.groups == 0:
            raise ValueError("pattern contains no capture groups")
        return regex, regex.pattern, regex.flags & ~re.UNICODE

    @staticmethod
    def _group_labels(regex: re.Pattern) -> list:
        """pandas' column labels: the group names, the group's position (from 0) for an unnamed one."""
        names = {index: name for name, index in regex.groupindex.items()}
        return [names.get(1 + i, i) for i in range(regex.groups)]

    def extract(self, pat: str, flags: int = 0, expand: bool = True) -> Any:
        """The first match's capture groups of each string: a DataFrame (columns named by the groups' names or
        0..k-1, dtype str, missing where the row does not match or the group takes no part), or a Series for one
        group with ``expand=False``. Groups are found on the device (a Pike VM over each match's span).

        >>> import riptide as rt
        >>> s = rt.Series(["joe@site.com", "nobody", None])
        >>> s.str.extract(r"(?P<user>[a-z]+)@([a-z]+)\\.com").to_pandas().values.tolist()
        [['joe', 'site'], [nan, nan], [nan, nan]]
        """
        host = lambda acc: acc.extract(pat, flags=flags, expand=expand)  # noqa: E731
        if not isinstance(expand, bool):
            raise ValueError("expand must be True or False")
        regex, pattern, all_flags = self._compile_groups(pat, flags)
        labels = self._group_labels(regex)

        def device() -> Any:
            from riptide.frame.dataframe import DataFrame
            from riptide.frame.index import RangeIndex
            from riptide.frame.series import Series

            columns = regex_captures.extract_columns(self._column, pattern, all_flags)
            if regex.groups == 1 and not expand:
                name = labels[0] if regex.groupindex else self._series.name  # pandas keeps the Series' name then
                return Series._from_column(columns[0], self._series.index, name)
            index = self._series.index if self._column.size else RangeIndex(0)  # pandas: a fresh empty frame
            return DataFrame._from_columns(dict(zip(labels, columns)), index)

        return self._regex("extract", pat, pattern, all_flags, host, device, re2_route=False)

    def extractall(self, pat: str, flags: int = 0) -> Any:
        """Every match's capture groups: a DataFrame with one row per match, indexed by the row's labels and the
        match number (level ``match``); a group's text is missing where it took no part or is empty (pandas goes
        through ``re.findall``).

        >>> import riptide as rt
        >>> rt.Series(["a1a2", "b", "c3"], index=list("xyz")).str.extractall(r"[a-z](\\d)").to_pandas()[0].tolist()
        ['1', '2', '3']
        """
        host = lambda acc: acc.extractall(pat, flags=flags)  # noqa: E731
        regex, pattern, all_flags = self._compile_groups(pat, flags)
        labels = self._group_labels(regex)

        def device() -> Any:
            from riptide.core.column import NumericColumn
            from riptide.frame.dataframe import DataFrame
            from riptide.frame.multi_index import MultiIndex

            rows, number, columns = regex_captures.extractall_columns(self._column, pattern, all_flags)
            index = self._series.index
            # (with no match at all pandas' levels are empty object arrays, which riptide cannot hold: the levels
            # keep the index's dtypes and int64 for 'match' then)
            levels = [level.take(rows) for level in index._key_columns()] + [NumericColumn(number)]
            result_index = MultiIndex._from_columns(levels, list(index.names) + ["match"])
            return DataFrame._from_columns(dict(zip(labels, columns)), result_index)

        return self._regex("extractall", pat, pattern, all_flags, host, device, re2_route=False)

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
        columns, index = self._cat_others(others, join)
        result = ops.concat_rows(columns, sep, na_rep)
        if index is None:
            return self._wrap(result)
        from riptide.frame.series import Series

        return Series._from_column(result, index, self._series.name)

    def _cat_others(self, others: Any, join: str) -> tuple[list, Any]:
        """The columns ``cat`` concatenates (this one first), aligned on the index as pandas aligns them: each other
        reindexed to this index for ``join="left"``, else every column on the joined index (then returned too)."""
        from riptide.core.column import CategoricalColumn, full
        from riptide.core.ops.cast import decode_categorical
        from riptide.frame.dataframe import DataFrame

        xp = self._column.xp
        items = self._cat_series_list(others)
        for i, item in enumerate(items):
            column = item._column
            if isinstance(column, CategoricalColumn):
                column = decode_categorical(column)
            if not dtypes.is_string(column.dtype):
                if not bool(column.isna().all()):  # one scalar read: an all-missing column joins as missing strings
                    kind = getattr(dtypes.to_numpy_dtype(column.dtype), "kind", "")
                    kinds = {"i": "integer", "u": "integer", "f": "floating", "b": "boolean"}
                    kind = kinds.get(kind, str(column.dtype))
                    raise TypeError("Concatenation requires list-likes containing only strings (or missing values). "
                                    f"Offending values found in column {kind}")  # fmt: skip
                column = full(column.size, None, dtypes.STRING, xp)
            items[i] = item._with_column(column.to_device(xp))
        index = self._series.index
        if all(item.index.equals(index) for item in items):
            return [self._column] + [item._column for item in items], None
        if join not in ("left", "right", "outer", "inner"):
            raise ValueError(f"do not recognize join method {join}")
        if join == "left":
            return [self._column] + [item.reindex(index)._column for item in items], None
        from riptide.frame.concat import concat

        labels = list(range(1, len(items) + 1))
        if len(items) == 1:
            frame = DataFrame._from_columns({1: items[0]._column}, items[0].index)
        else:
            frame = concat(items, axis=1, join="inner" if join == "inner" else "outer", keys=labels, sort=False)
        joined = DataFrame._from_columns({0: self._column}, index).join(frame, how=join)
        return [joined._data[label] for label in [0] + labels], joined.index

    def _cat_series_list(self, others: Any) -> list:
        """pandas' reading of ``cat``'s ``others``: Series keep their index; a DataFrame or 2-D array gives its
        columns; arrays, indexes and lists of strings take this Series' index (and must have its length)."""
        import pandas as pd

        from riptide.frame.dataframe import DataFrame
        from riptide.frame.index import Index
        from riptide.frame.series import Series

        index = self._series.index

        def positional(values: Any) -> Any:
            if len(values) != len(index):
                raise ValueError("If `others` contains arrays or lists (or other list-likes without an index), these "
                                 "must all be of the same length as the calling Series/Index.")  # fmt: skip
            series = values.to_series() if isinstance(values, Index) else Series(
                values if not isinstance(values, list | tuple) else pd.array(list(values)))  # fmt: skip
            return Series._from_column(series._column, index, None)

        if isinstance(others, Series):
            return [others]
        if isinstance(others, pd.Series):
            return [Series(others)]
        if isinstance(others, DataFrame | pd.DataFrame):
            frame = others if isinstance(others, DataFrame) else DataFrame(others)
            return [frame[label] for label in frame.columns]
        if isinstance(others, np.ndarray) and others.ndim == 2:
            return [positional(others[:, j]) for j in range(others.shape[1])]
        if isinstance(others, Index | pd.Index) or (isinstance(others, np.ndarray) and others.ndim == 1):
            return [positional(others)]
        if isinstance(others, list | tuple):
            if all(isinstance(o, Series | pd.Series | Index | pd.Index) or (isinstance(o, np.ndarray) and o.ndim == 1)
                   for o in others):  # fmt: skip
                return [item for o in others for item in self._cat_series_list(o)]
            if all(not pd.api.types.is_list_like(o) for o in others):
                return [positional(others)]
        raise TypeError("others must be Series, Index, DataFrame, np.ndarray or list-like (either containing only "
                        "strings or containing only objects of type Series/Index/np.ndarray[1-dim])")

    # --- more methods: slice_replace, index, translate, affixes, get_dummies, normalize, wrap ----------------------
    def slice_replace(self, start: int | None = None, stop: int | None = None, repl: str | None = None) -> Any:
        """Replace each string's ``[start:stop]`` (by characters) with ``repl``; an empty slice inserts it at
        ``start``.

        >>> import riptide as rt
        >>> rt.Series(["abcdef", "é"]).str.slice_replace(1, 3, "XY").to_pandas().tolist()
        ['aXYdef', 'éXY']
        """
        return self._wrap(extras.slice_replace(self._column, start, stop, repl))

    def _index(self, sub: Any, start: Any, end: Any, last: bool) -> Any:
        column = self._column
        result = (ops.rfind if last else ops.find)(column, sub, start, end)
        absent = result.data == -1  # (a missing row holds NaN, never -1)
        if bool(absent.any()):  # one scalar read: pandas raises when a string lacks ``sub``
            raise ValueError("substring not found")
        return self._wrap(result)

    def index(self, sub: str, start: int = 0, end: int | None = None) -> Any:
        """Like :meth:`find`, but raise ``ValueError`` when a string does not contain ``sub``.

        >>> import riptide as rt
        >>> rt.Series(["banana", None]).str.index("an").to_pandas().tolist()
        [1.0, nan]
        """
        return self._index(sub, start, end, last=False)

    def rindex(self, sub: str, start: int = 0, end: int | None = None) -> Any:
        """Like :meth:`rfind`, but raise ``ValueError`` when a string does not contain ``sub``."""
        return self._index(sub, start, end, last=True)

    def removeprefix(self, prefix: str) -> Any:
        """Each string without ``prefix`` where it starts with it.

        >>> import riptide as rt
        >>> rt.Series(["str_a", "b"]).str.removeprefix("str_").to_pandas().tolist()
        ['a', 'b']
        """
        return self._wrap(extras.remove_affix(self._column, prefix, at_end=False))

    def removesuffix(self, suffix: str) -> Any:
        """Each string without ``suffix`` where it ends with it."""
        return self._wrap(extras.remove_affix(self._column, suffix, at_end=True))

    def translate(self, table: Any) -> Any:
        """Map every character through ``table`` (a dict of code point -> str, code point or None, e.g. from
        ``str.maketrans``), as Python's ``str.translate``; other mapping objects run on the host.

        >>> import riptide as rt
        >>> rt.Series(["abc", "é"]).str.translate(str.maketrans("ab", "xy", "c")).to_pandas().tolist()
        ['xy', 'é']
        """
        if isinstance(table, dict):
            return self._wrap(extras.translate(self._column, extras.translation_table(table)))
        if not hasattr(table, "__getitem__"):
            raise TypeError(f"'{type(table).__name__}' object is not subscriptable")
        return self._host_method("translate", "a translation table that is not a dict",
                                 lambda acc: acc.translate(table))  # fmt: skip

    def get_dummies(self, sep: str = "|", dtype: Any = None) -> Any:
        """A DataFrame of indicator columns, one per distinct token of the strings split at ``sep`` (sorted; int64
        0/1 unless ``dtype`` says otherwise); a missing string has no token.

        >>> import riptide as rt
        >>> rt.Series(["a|b", None, "b"]).str.get_dummies().to_pandas().to_dict("list")
        {'a': [1, 0, 0], 'b': [1, 0, 1]}
        """
        import pandas as pd

        from riptide.frame.dataframe import DataFrame

        if dtype is not None:
            target = pd.api.types.pandas_dtype(dtype)
            if not (pd.api.types.is_numeric_dtype(target) or pd.api.types.is_bool_dtype(target)):
                raise ValueError("Only numeric or boolean dtypes are supported for 'dtype'")
        if not isinstance(sep, str):
            raise TypeError(f"sep must be a string, not {type(sep).__name__}")
        if not sep:
            raise ValueError("Empty separator")
        columns, names = extras.get_dummies(self._column, sep)
        frame = DataFrame._from_columns(dict(zip(names, columns)), self._series.index)
        if not names:
            frame.columns = pd.Index([], dtype=object)  # pandas' column labels of no tokens
        elif dtype is not None:
            frame = frame.astype(dtype)
        return frame

    def normalize(self, form: str) -> Any:
        """The Unicode normal form ``form`` ("NFC", "NFD", "NFKC", "NFKD") of each string. ASCII strings are
        their own normal form; the others are normalized by pyarrow on a host copy of just those rows (a
        :class:`~riptide.errors.HostFallbackWarning` says so).

        >>> import riptide as rt
        >>> rt.Series(["abc", None]).str.normalize("NFKC").to_pandas().tolist()
        ['abc', nan]
        """
        return self._wrap(extras.normalize(self._column, form))

    def wrap(self, width: int, expand_tabs: bool = True, replace_whitespace: bool = True,
             drop_whitespace: bool = True, break_long_words: bool = True, break_on_hyphens: bool = True) -> Any:  # fmt: skip
        """Each string wrapped into lines of at most ``width`` characters joined by "\\n" (Python's ``textwrap``,
        as pandas). Computed by pandas on a host copy (a :class:`~riptide.errors.HostFallbackWarning` says so).
        """
        options = dict(expand_tabs=expand_tabs, replace_whitespace=replace_whitespace, drop_whitespace=drop_whitespace,
                       break_long_words=break_long_words, break_on_hyphens=break_on_hyphens)  # fmt: skip
        return self._host_method("wrap", "textwrap's line breaking is not on the device yet",
                                 lambda acc: acc.wrap(width, **options))  # fmt: skip

    def encode(self, encoding: str, errors: str = "strict") -> Any:
        """Not supported: pandas returns an object column of Python bytes, which riptide cannot hold."""
        raise NotImplementedError(
            "str.encode: pandas returns an object column of Python bytes, which riptide cannot hold"
        )

    def _host_method(self, method: str, reason: str, host: Any) -> Any:
        """pandas' answer on a host copy of the Series, with a one-time :class:`~riptide.errors.HostFallbackWarning`."""
        from riptide.errors import warn_host_fallback

        result = self._pandas_answer(host)
        warn_host_fallback(f"Series.str.{method}", reason)
        return result


# --- .str of a categorical ---------------------------------------------------------------------------------------------
#: Case mappings pandas computes for a categorical with Python's ``str`` methods (full mappings: 'ß'.upper() is
#: 'SS', final sigma), unlike its ``str`` dtype (pyarrow's one-to-one mappings, which riptide's kernels follow).
_PYTHON_CASE_MAPPINGS = frozenset({"upper", "lower", "title", "capitalize", "swapcase"})
#: Methods whose result is not one value per row (frames, one string): they run on the decoded strings.
_ROW_WISE = frozenset({"split", "rsplit", "partition", "rpartition", "extract", "extractall", "cat", "findall",
                       "encode", "wrap"})  # fmt: skip


class CategoricalStringMethods:
    """``Series.str`` of a categorical Series of strings: each method runs once per category (on the device) and
    its results are gathered by the codes, as pandas does; a missing row gives a missing value (False, or ``na``,
    for predicates; a count becomes float64 with NaN).

    Results that are strings have the ``str`` dtype (pandas gives ``object`` there, which riptide cannot hold).
    For non-ASCII categories ``upper`` / ``lower`` / ``title`` / ``capitalize`` / ``swapcase`` follow Python's
    full case mappings, as pandas' categorical path does, computed on the host copy of the categories.

    >>> import riptide as rt, pandas as pd
    >>> s = rt.Series(pd.Categorical(["ab", None, "b", "ab"]))
    >>> s.str.len().to_pandas().tolist(), s.str.upper().to_pandas().tolist()
    ([2.0, nan, 1.0, 2.0], ['AB', nan, 'B', 'AB'])
    """

    __slots__ = ("_series",)

    def __init__(self, series: Any):
        self._series = series

    def _decoded(self) -> Any:
        """The Series as plain strings (the categories gathered by the codes)."""
        column = self._series._column
        return self._series._with_column(column.categories.take_or_missing(column.codes.astype(np.int64)))

    def _categories_series(self) -> Any:
        from riptide.frame.index import default_index
        from riptide.frame.series import Series

        categories = self._series._column.categories
        return Series._from_column(categories, default_index(categories.size), self._series.name)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or not callable(getattr(StringMethods, name, None)):
            raise AttributeError(f"'StringMethods' object has no attribute '{name}'")
        if name in _ROW_WISE:
            return getattr(StringMethods(self._decoded()), name)

        def method(*args: Any, **kwargs: Any) -> Any:
            if name == "repeat" and _is_list_like((args or (kwargs.get("repeats"),))[0]):
                return StringMethods(self._decoded()).repeat(*args, **kwargs)  # one count per row: row-wise
            return self._per_category(name, args, kwargs)

        method.__name__ = name
        method.__doc__ = getattr(StringMethods, name).__doc__
        return method

    def __getitem__(self, key: Any) -> Any:
        return self._per_category("__getitem__", (key,), {})

    def __dir__(self) -> list[str]:
        return sorted(name for name in dir(StringMethods) if not name.startswith("_"))

    def get_dummies(self, sep: str = "|", dtype: Any = None) -> Any:
        """As :meth:`StringMethods.get_dummies`, with pandas' categorical rules: a missing row counts as the
        token "NaN", and the empty token gets no column."""
        decoded = self._decoded()
        filled = decoded._with_column(ops.concat_rows([decoded._column], "", "NaN"))
        frame = StringMethods(filled).get_dummies(sep, dtype)
        if "" in frame.columns:
            frame = frame.drop(columns=[""])
        return frame

    def _per_category(self, name: str, args: tuple, kwargs: dict) -> Any:
        import inspect

        column = self._series._column
        categories = column.categories
        if name in _PYTHON_CASE_MAPPINGS and not ops._is_ascii(categories):
            result = self._python_case(name)
        elif name == "count" and (args[:1] or (kwargs.get("pat"),))[0] == "":
            # the empty pattern: Python's re (pandas' categorical path) finds it at every character boundary
            result = StringMethods(self._categories_series()).len() + 1
        else:
            result = getattr(StringMethods(self._categories_series()), name)(*args, **kwargs)
        na = None
        if name != "__getitem__":
            bound = inspect.signature(getattr(StringMethods, name)).bind(None, *args, **kwargs)
            na = bound.arguments.get("na")
        return self._series._with_column(_gather_by_codes(result._column, column.codes, na))

    def _python_case(self, name: str) -> Any:
        import pandas as pd

        from riptide.errors import warn_host_fallback
        from riptide.frame.series import Series

        host = pd.Series(np.asarray(self._series._column.dtype.categories, dtype=object), dtype=object)
        mapped = getattr(host.str, name)().astype(dtypes.STRING)
        warn_host_fallback(f"Series.str.{name} of a categorical", "pandas maps the case of non-ASCII categories "
                           "with Python's full mappings; riptide does that on the host copy of the categories")
        result = Series(mapped)
        return result._with_column(result._column.to_device(self._series._column.xp))


def _gather_by_codes(result: Any, codes: Any, na: Any) -> Any:
    """A per-category result column spread to the rows by ``codes`` (-1: a missing row), with pandas' fill: a
    missing string, ``na`` (default False) for a predicate, NaN for a number (int64 becomes float64 then)."""
    from riptide import _device
    from riptide.core.column import NumericColumn

    xp = _device.namespace_of(codes)
    codes = codes.astype(np.int64)
    if not isinstance(result, NumericColumn):
        return result.take_or_missing(codes)
    missing = codes < 0
    k = result.size
    data = result.data[xp.clip(codes, 0, k - 1)] if k else xp.zeros(codes.shape[0], dtype=result.data.dtype)
    if data.dtype == np.bool_:
        return NumericColumn(xp.where(missing, ops._na_fill(na), data))
    if data.dtype.kind in "iu" and bool(missing.any()):  # one scalar read: int64, or float64 with NaN
        return NumericColumn(xp.where(missing, np.nan, data.astype(np.float64)))
    if data.dtype.kind == "f":
        return NumericColumn(xp.where(missing, np.nan, data))
    return NumericColumn(data)


# --- .str of an Index ----------------------------------------------------------------------------------------------------
#: Methods whose DataFrame result pandas turns into a MultiIndex for an Index.
_MULTIINDEX_RESULTS = frozenset({"split", "rsplit", "partition", "rpartition", "get_dummies"})


class IndexStringMethods:
    """``Index.str``: the Series methods on the labels, with pandas' result types for an Index: an Index (same
    name) for strings and numbers, a boolean array (on the device) for predicates, a MultiIndex for the pieces of
    ``split`` / ``partition`` / ``get_dummies`` (named by the tokens), a DataFrame for ``extract`` / ``extractall``.

    >>> import riptide as rt
    >>> idx = rt.Index(["a_1", "b_2"], name="k")
    >>> idx.str.upper().to_pandas(), idx.str.startswith("a").tolist()
    (Index(['A_1', 'B_2'], dtype='str', name='k'), [True, False])
    """

    __slots__ = ("_index", "_inner")

    def __init__(self, index: Any):
        from riptide.frame.index import default_index
        from riptide.frame.series import Series

        if index.nlevels > 1:
            raise AttributeError("Can only use .str accessor with Index, not MultiIndex")
        self._index = index
        # the Series accessor on the labels (raises pandas' AttributeError for labels that are not strings)
        self._inner = Series._from_column(index._as_column(), default_index(len(index)), index.name).str

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(f"'StringMethods' object has no attribute '{name}'")
        attribute = getattr(self._inner, name)
        if not callable(attribute):
            return attribute

        def method(*args: Any, **kwargs: Any) -> Any:
            if name == "cat":  # pandas aligns the others of an Index's cat on its labels
                from riptide.frame.series import Series

                labelled = Series._from_column(self._index._as_column(), self._index, self._index.name)
                return self._as_index_result(name, labelled.str.cat(*args, **kwargs))
            return self._as_index_result(name, attribute(*args, **kwargs))

        method.__name__ = name
        method.__doc__ = getattr(attribute, "__doc__", None)
        return method

    def __getitem__(self, key: Any) -> Any:
        return self._as_index_result("__getitem__", self._inner[key])

    def __dir__(self) -> list[str]:
        return sorted(name for name in dir(StringMethods) if not name.startswith("_"))

    def _as_index_result(self, name: str, result: Any) -> Any:
        from riptide.frame.dataframe import DataFrame
        from riptide.frame.index import Index
        from riptide.frame.multi_index import MultiIndex
        from riptide.frame.series import Series

        if isinstance(result, Series):
            if result.dtype == np.bool_:
                return result.values
            return Index._from_column(result._column, self._index.name)
        if isinstance(result, DataFrame) and name in _MULTIINDEX_RESULTS:
            columns = list(result._data.values())
            names = list(result._data) if name == "get_dummies" else [None] * len(columns)
            if not columns:  # pandas builds the MultiIndex from no tuples
                raise TypeError("Cannot infer number of levels from empty list")
            if len(columns) == 1:  # pandas gives a plain Index for one level
                return Index._from_column(columns[0], names[0])
            return MultiIndex._from_columns(columns, names)
        return result
