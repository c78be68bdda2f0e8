"""Which engine pandas 3 would use for a pattern, and the warning riptide gives when it computes on the host.

pandas 3's default ``str`` dtype runs ``contains / match / fullmatch / count / replace`` through pyarrow's RE2
kernels, and goes to Python's ``re`` only where RE2 would differ (lookaround, backreferences, ``\\s``, ``flags``,
...). The answers agree wherever both accept the pattern, so riptide's engine follows Python's ``re`` semantics,
but three things depend on the route pandas takes and are mirrored here:

* a pattern RE2 rejects (possessive ``a*+``, atomic groups, ``(?x)``...) makes pandas raise ``ArrowInvalid``;
* ``a{,3}`` is a literal for RE2 but ``a{0,3}`` for Python;
* ``replace(n=0)`` replaces nothing through RE2 and everything through Python.

Such patterns are handed to pandas itself (on the host), which gives its own answer or its own exception.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from riptide.errors import HostFallbackWarning, warn_once

__all__ = ["RegexFallbackWarning", "warn_fallback", "normalize", "pandas_uses_re2", "re2_accepts", "braces_from_zero",
           "data_sensitive"]


class RegexFallbackWarning(HostFallbackWarning):
    """A regular-expression method computed on the host (with pandas / Python's ``re``), not on the device."""


def warn_fallback(method: str, pattern: Any, reason: str) -> None:
    """Warn once per (method, pattern, reason) that the host computed it."""
    warn_once(("str." + method, str(pattern), reason),
              f"str.{method}({pattern!r}) is computed on the host with Python's re ({reason})",
              RegexFallbackWarning)  # fmt: skip


def normalize(pat: Any, case: Any, flags: int) -> tuple[str, int]:
    """``(pattern text, flags)`` from a str or compiled pattern, ``case=False`` folded into IGNORECASE.

    >>> normalize(re.compile("a", re.I), True, 0) == ("a", re.I)
    True
    """
    if isinstance(pat, re.Pattern):
        flags |= pat.flags & ~re.UNICODE
        pat = pat.pattern
    if case is False:
        flags |= re.IGNORECASE
    return pat, flags


_UNICODE_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\(?:[uU]|N\{)")
_FROM_ZERO = re.compile(r"(?<!\\)(?:\\\\)*\{,\d*\}")


def braces_from_zero(pattern: str) -> bool:
    """Whether the pattern has ``{,n}`` (Python: 0 to n times; RE2: the literal text)."""
    return _FROM_ZERO.search(pattern) is not None


@functools.lru_cache(maxsize=512)
def pandas_uses_re2(pattern: str, flags: int) -> bool:
    """Whether pandas 3 sends this pattern to pyarrow's RE2 (judged without looking at the data).

    >>> pandas_uses_re2(r"\\d+", 0), pandas_uses_re2(r"\\s+", 0), pandas_uses_re2("a", re.M)
    (True, False, False)
    """
    if flags & ~re.IGNORECASE:
        return False
    if _UNICODE_ESCAPE.search(pattern):
        return False
    from riptide.core.regex.parse import _sre

    try:
        tree = _sre.parse(pattern)
    except re.error:
        return True  # pandas cannot inspect it either and hands it to RE2
    python_only = {_sre.ASSERT, _sre.ASSERT_NOT, _sre.GROUPREF, _sre.GROUPREF_EXISTS}
    spaces = {_sre.CATEGORY_SPACE, _sre.CATEGORY_NOT_SPACE}
    for op, av in _nodes(tree):
        if op in python_only or (op == _sre.CATEGORY and av in spaces):
            return False
    return True


@functools.lru_cache(maxsize=512)
def data_sensitive(pattern: str) -> tuple[bool, bool]:
    """``(unicode, newline)``: whether pandas leaves RE2 for this pattern on non-ASCII text (``\\w \\d \\b`` and
    their negations) and on text holding a newline (``$``)."""
    from riptide.core.regex.parse import _sre

    try:
        tree = _sre.parse(pattern)
    except re.error:
        return False, False
    unicode_ops = {(_sre.CATEGORY, c) for c in (_sre.CATEGORY_WORD, _sre.CATEGORY_NOT_WORD, _sre.CATEGORY_DIGIT,
                                                 _sre.CATEGORY_NOT_DIGIT)}  # fmt: skip
    unicode_ops |= {(_sre.AT, _sre.AT_BOUNDARY), (_sre.AT, _sre.AT_NON_BOUNDARY)}
    nodes = [(op, av) for op, av in _nodes(tree) if op in (_sre.CATEGORY, _sre.AT)]
    return any(node in unicode_ops for node in nodes), (_sre.AT, _sre.AT_END) in nodes


def _nodes(tokens: Any):
    from riptide.core.regex.parse import _sre

    for op, av in tokens:
        yield op, av
        if op == _sre.BRANCH:
            for branch in av[1]:
                yield from _nodes(branch)
        elif op == _sre.SUBPATTERN:
            yield from _nodes(av[-1])
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) or op == getattr(_sre, "POSSESSIVE_REPEAT", None):
            yield from _nodes(av[2])
        elif op in (_sre.ASSERT, _sre.ASSERT_NOT) or op == getattr(_sre, "ATOMIC_GROUP", None):
            yield from _nodes(av[-1] if isinstance(av, tuple) else av)
        elif op == _sre.IN:
            yield from av
        elif op == _sre.GROUPREF_EXISTS:
            for branch in av[1:]:
                if branch is not None:
                    yield from _nodes(branch)


@functools.lru_cache(maxsize=512)
def re2_accepts(pattern: str, ignore_case: bool) -> bool:
    """Whether RE2 (through pyarrow, as pandas calls it) compiles the pattern: one call on a one-row array.

    >>> re2_accepts("a+", False), re2_accepts("a*+", False)
    (True, False)
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    text = re.sub(r"(?<!\\)((?:\\\\)*)\\Z", r"\1\\z", pattern)  # pandas spells Python's \Z as RE2's \z
    try:
        pc.match_substring_regex(pa.array([""], pa.string()), text, ignore_case=ignore_case)
    except pa.ArrowInvalid:
        return False
    return True
