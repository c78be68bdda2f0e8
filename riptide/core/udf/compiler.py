"""Compile a Python function once, run it over columns, and decide the result's dtype as pandas would.

:func:`apply_elementwise` is the one entry point (``Series.apply``/``map``, ``DataFrame.apply(axis=1)``). It
raises :class:`HostFallback` (with the reason) where the caller must run the function through pandas instead:
the function does not translate (:class:`Unsupported`), an input is not a plain int/float/bool column, some row
would raise in Python (division by zero, a math domain error, ``int(nan)``) or give a value a compiled type cannot
hold (an int beyond int64, a complex number), or the rows' results mix types pandas would keep as ``object``.
Re-running through pandas is what makes those cases exact: pandas raises its own exception, or builds its own
result. The caller warns once per function (:func:`warn_fallback`) with :class:`UDFFallbackWarning`.

Translations are cached per (code object, argument types, values of the closure cells, globals, defaults and bound
arguments the function can read): changing a global the function reads recompiles it, as it must, since those
values are compiled in as constants. Failures are cached too, so a function that cannot compile is translated once.

Result dtypes follow pandas' inference over the values returned (``lib.maybe_convert_objects``): all bools -> bool,
all ints -> int64, ints and floats -> float64, numbers and ``None`` -> float64 with NaN, bools and ``None`` ->
riptide's ``boolean`` (pandas: object, a documented difference), bools with numbers -> object (host).
When every path returns one type this is static; otherwise the kernel also writes each row's kind and the kinds
present are read back (one small device-to-host copy).
"""

from __future__ import annotations

import collections
import inspect
import types
from typing import Any

import numpy as np

from riptide.core.udf import cuda
from riptide.errors import HostFallbackWarning, warn_once
from riptide.core.udf.evaluate import evaluate
from riptide.core.udf.ir import BOOL, FLOAT, INT, NP_FLOAT, NP_INT, Type, Unsupported
from riptide.core.udf.translate import Result, RowArg, translate, translate_builtin

__all__ = ["UDFFallbackWarning", "HostFallback", "apply_elementwise", "compile_function", "warn_fallback",
           "python_type_of", "stats", "FORCE_ARRAY_PATH"]  # fmt: skip


class UDFFallbackWarning(HostFallbackWarning):
    """A function given to ``apply``/``map`` could not run compiled on the device and ran through pandas on the
    host instead (slower, same result); the message names the reason. Issued once per function."""


class HostFallback(Exception):
    """Run the function through pandas on the host; ``str(exc)`` is the reason."""


#: Test hook: run the array evaluator even on CuPy (to compare it with the kernel on a GPU).
FORCE_ARRAY_PATH = False
_MAX_CACHE = 512
_CACHE: collections.OrderedDict[tuple, Any] = collections.OrderedDict()
_STATS = {"translations": 0, "kernel_launches": 0, "array_evaluations": 0, "fallbacks": 0}


def stats() -> dict[str, int]:
    """Counters since import: translations done, kernel launches, array evaluations, host fallbacks."""
    return dict(_STATS)


def warn_fallback(func: Any, reason: str) -> None:
    """Warn (once per function) that ``func`` runs through pandas on the host because of ``reason``; the warning
    points at the user's line."""
    _STATS["fallbacks"] += 1
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or type(func).__name__
    warn_once(("udf", getattr(func, "__code__", None) or id(func)),
              f"riptide could not compile {name!r} for the device: it {reason}; running it through pandas on the "
              "host instead", UDFFallbackWarning)  # fmt: skip


def python_type_of(dtype: Any) -> Type:
    """The type of the Python scalar pandas passes for an element of a column of ``dtype`` (``Series.apply``)."""
    dtype = np.dtype(dtype) if isinstance(dtype, np.dtype) else dtype
    if not isinstance(dtype, np.dtype):
        raise Unsupported(f"receives values of dtype {dtype} (only int, float and bool columns are compiled)")
    if dtype.kind == "b":
        return BOOL
    if dtype.kind == "i" or (dtype.kind == "u" and dtype.itemsize < 8):
        return INT
    if dtype.kind == "f" and dtype.itemsize >= 4:
        return FLOAT
    raise Unsupported(f"receives values of dtype {dtype} (only int, float and bool columns are compiled)")


# --- compiling --------------------------------------------------------------------------------------------------
def compile_function(func: Any, arg_types: list[Any], args: tuple = (), kwargs: dict | None = None) -> Result:
    """The translation of ``func`` for leading arguments of ``arg_types`` (cached); raises :class:`Unsupported`."""
    kwargs = kwargs or {}
    code = getattr(func, "__code__", None)
    if code is None or not isinstance(func, types.FunctionType):
        if args or kwargs or len(arg_types) != 1 or isinstance(arg_types[0], RowArg):
            raise Unsupported(f"is a {type(func).__name__!r} object, not a Python function")
        return translate_builtin(func, arg_types[0])
    row_key = tuple((k, t) for k, t in arg_types[0].columns.items()) if isinstance(arg_types[0], RowArg) else None
    key = (code, tuple(t if not isinstance(t, RowArg) else ("row", row_key) for t in arg_types),
           _values_key(func, args, kwargs))  # fmt: skip
    found = _CACHE.get(key)
    if found is not None:
        _CACHE.move_to_end(key)
        if isinstance(found, Unsupported):
            raise found
        result, used = found
        if isinstance(arg_types[0], RowArg):
            arg_types[0].used[:] = used
        return result
    bound = _bind(func, len(arg_types), args, kwargs)
    _STATS["translations"] += 1
    try:
        result = translate(func, arg_types, bound)
        if result.value is not None and result.value.type.kind == "none":
            raise Unsupported("returns None")
    except Unsupported as exc:
        _remember(key, exc)
        raise
    except RecursionError:
        exc = Unsupported("is too deeply nested")
        _remember(key, exc)
        raise exc from None
    used = list(arg_types[0].used) if isinstance(arg_types[0], RowArg) else []
    _remember(key, (result, used))
    return result


def _remember(key: tuple, value: Any) -> None:
    _CACHE[key] = value
    if len(_CACHE) > _MAX_CACHE:
        _CACHE.popitem(last=False)


def _value_key(value: Any) -> Any:
    if isinstance(value, bool | int | float | np.number | np.bool_) or value is None:
        return (type(value).__name__, repr(value))
    return ("id", id(value))


def _values_key(func: Any, args: tuple, kwargs: dict) -> tuple:
    """The compile-time values ``func`` can read: closure cells, globals it names, defaults, bound arguments."""
    code = func.__code__
    cells = []
    for cell in func.__closure__ or ():
        try:
            cells.append(_value_key(cell.cell_contents))
        except ValueError:
            cells.append(("unbound",))
    names = tuple((n, _value_key(func.__globals__[n])) for n in code.co_names if n in func.__globals__)
    defaults = tuple(_value_key(v) for v in (func.__defaults__ or ()))
    bound = (tuple(_value_key(a) for a in args), tuple((k, _value_key(v)) for k, v in sorted(kwargs.items())))
    return (tuple(cells), names, defaults, bound)


def _bind(func: Any, leading: int, args: tuple, kwargs: dict) -> dict[str, Any]:
    """The values of ``func``'s parameters after the ``leading`` ones, as pandas' call ``func(x, *args, **kwargs)``
    binds them (raises :class:`Unsupported` where that call would fail: pandas then raises its TypeError)."""
    try:
        signature = inspect.signature(func)
        bound = signature.bind(*([None] * leading), *args, **kwargs)
    except (TypeError, ValueError) as exc:
        raise Unsupported(f"cannot be called with these arguments ({exc})") from None
    bound.apply_defaults()
    names = list(signature.parameters)[leading:]
    return {name: bound.arguments[name] for name in names if name in bound.arguments}


# --- running --------------------------------------------------------------------------------------------------
def apply_elementwise(func: Any, arrays: list[Any], arg_types: list[Any], xp: types.ModuleType, size: int, *,
                      args: tuple = (), kwargs: dict | None = None, skip: Any = None) -> tuple[Any, Any]:  # fmt: skip
    """Run ``func`` over ``arrays`` (one per argument; for a row function, one per column in ``arg_types[0]``'s
    order). Returns ``(values, missing)``: the result array and a bool array of rows to make missing (or None).

    ``skip``: rows (bool array) the function must not see (``map(na_action="ignore")``); they come back missing.
    Raises :class:`HostFallback` with the reason where pandas must run the function instead.
    """
    try:
        result = compile_function(func, arg_types, args, kwargs)
    except Unsupported as exc:
        raise HostFallback(str(exc)) from None
    if isinstance(arg_types[0], RowArg):
        row = arg_types[0]
        arrays = [arrays[list(row.columns).index(label)] for label in row.used]
        types_ = [row.columns[label] for label in row.used]
    else:
        types_ = list(arg_types)
    inputs = [_as_input(a, t, xp) for a, t in zip(arrays, types_)]
    outputs = result.outputs()
    values, error_flag = _run(outputs, inputs, types_, xp, size, skip)
    if error_flag:
        raise HostFallback("raises an exception or leaves int64 for some rows")
    if result.value is not None:
        dtype = result.value.type.result_dtype  # (np.int32 values, held in int64, make an int32 column)
        return (values[0] if values[0].dtype == dtype else values[0].astype(dtype)), skip
    return _combine(values, xp, skip)


def _as_input(array: Any, t: Type, xp: types.ModuleType) -> Any:
    """The array as the kernel reads it: NumPy-scalar rows in the frame's common dtype (a float frame passes its
    int columns as floats); Python-scalar arguments in their own dtype (converted in the kernel)."""
    if t == NP_FLOAT and array.dtype != np.float64:
        return array.astype(np.float64)
    if t == NP_INT and array.dtype != np.int64:
        return array.astype(np.int64)
    return array


def _run(outputs: list[Any], inputs: list[Any], types_: list[Type], xp: types.ModuleType, size: int,
         skip: Any) -> tuple[list[Any], bool]:  # fmt: skip
    if xp is not np and not FORCE_ARRAY_PATH and size:
        if not inputs:  # a function of no column (a constant): a dummy input sizes the launch
            inputs, types_ = [xp.zeros(size, dtype=np.int8)], [INT]
        kernel, has_errors = cuda.kernel_for(outputs, [a.dtype for a in inputs], types_, skip is not None, xp)
        out = [xp.empty(size, dtype=o.type.dtype) for o in outputs]
        err = xp.zeros(1, dtype=np.int32) if has_errors else None
        kernel(*inputs, *([] if skip is None else [skip]), *out, *([err] if has_errors else []))
        _STATS["kernel_launches"] += 1
        # one scalar read: whether any row must be re-run on the host (skipped rows never set it)
        return out, bool(int(err[0])) if has_errors else False
    cast = [_cast_for_eval(a, t, xp) for a, t in zip(inputs, types_)]
    values, errors = evaluate(outputs, cast, xp, size)
    _STATS["array_evaluations"] += 1
    if errors is None:
        return values, False
    if skip is not None:
        errors = errors & ~skip
    # one scalar read: whether any row must be re-run on the host
    return values, bool(errors.any())


def _cast_for_eval(array: Any, t: Type, xp: types.ModuleType) -> Any:
    dtype = t.dtype
    return array if array.dtype == dtype else array.astype(dtype)


def _combine(values: list[Any], xp: types.ModuleType, skip: Any) -> tuple[Any, Any]:
    """The result of a function returning different types on different paths, by the kinds rows returned."""
    as_float, as_int, kind = values
    counted = kind if skip is None else xp.where(skip, 4, kind)
    # one scalar read: which kinds the rows returned decides the dtype, as in pandas
    present = {k for k, c in enumerate(xp.bincount(counted, minlength=5)[:4].tolist()) if c}
    nones = kind == 3
    missing = nones if skip is None else (nones | skip)
    if present <= {0, 3} and 0 in present:
        return as_int.astype(bool), missing if 3 in present else skip  # bools (and None): bool / boolean
    if 0 in present:
        raise HostFallback("returns bools on some rows and numbers on others (pandas keeps them as objects)")
    if not present or present == {3}:
        raise HostFallback("returns None")
    if present == {1}:
        return as_int, skip
    return as_float, missing
