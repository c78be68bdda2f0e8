"""A regular-expression engine for string columns, on the GPU (CuPy) or the CPU (NumPy).

Pipeline: :mod:`.parse` (Python's own parser, translated to a small AST; unsupported constructs named) ->
:mod:`.nfa` (Thompson NFA over UTF-8 bytes) -> :mod:`.dfa` (subset construction with Python's leftmost-first
priority, assertions resolved by the kinds of the neighbouring characters, cached per pattern) -> :mod:`.match`
(the table walks: a CUDA kernel with one thread per row, and its xp twin) -> :mod:`.ops` (contains, match,
fullmatch, count, spans, replace, split on a StringColumn). :mod:`.captures` finds capture groups inside those
spans (a tabulated Pike VM, one CUDA thread per match) for extract, extractall, replace templates and split with
groups. :mod:`.pandas_rules` mirrors where pandas 3 itself answers through RE2 and holds the host-fallback warning.
"""

from riptide.core.regex.pandas_rules import RegexFallbackWarning
from riptide.core.regex.parse import Unsupported

__all__ = ["RegexFallbackWarning", "Unsupported"]
