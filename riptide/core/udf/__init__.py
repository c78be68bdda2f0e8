"""Compiled user-defined functions: ``Series.apply(f)``, ``Series.map(f)``, ``DataFrame.apply(f, axis=1)``.

A scalar Python function (arithmetic, comparisons, ``if``/``else``, ``math`` functions, ...) is translated once
from its source into a small typed IR (:mod:`.translate`, :mod:`.ir`), whose operations carry Python's (or NumPy
scalars') exact semantics, errors included (:mod:`.ops`). The IR runs either as one generated CUDA elementwise
kernel per function (:mod:`.cuda`: per-row control flow, one read of each input column, one write of the result)
or, on the CPU, as NumPy array operations (:mod:`.evaluate`). :mod:`.compiler` caches translations and kernels,
decides the result dtype as pandas' inference would, and reports when the function must run through pandas on
the host instead (a construct it does not translate, a row that would raise), which the frame layer does with a
one-time :class:`UDFFallbackWarning` naming the reason.
"""

from riptide.core.udf.compiler import (
    HostFallback,
    UDFFallbackWarning,
    apply_elementwise,
    compile_function,
    python_type_of,
    stats,
    warn_fallback,
)
from riptide.core.udf.ir import Type, Unsupported
from riptide.core.udf.translate import Result, RowArg

__all__ = ["HostFallback", "UDFFallbackWarning", "apply_elementwise", "compile_function", "python_type_of",
           "stats", "warn_fallback", "Type", "Unsupported", "Result", "RowArg"]  # fmt: skip
