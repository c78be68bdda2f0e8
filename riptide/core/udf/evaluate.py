"""The array back end: a translated function evaluated with NumPy or CuPy array operations.

This is the CPU path, and the reference the CUDA kernels are tested against. Every node is computed for every row,
so a ``select`` computes both of its sides and picks per row; the side not taken may divide by zero or overflow,
so floating-point warnings are silenced and a side's *errors* count only where that side is taken
(``errors = cond_errors | where(cond, then_errors, else_errors)``). Common subexpressions are computed once.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from riptide.core.udf.ir import Node
from riptide.core.udf.ops import xp_op

__all__ = ["evaluate"]


def evaluate(outputs: list[Node], inputs: list[Any], xp: types.ModuleType, size: int) -> tuple[list[Any], Any]:
    """``(values of each output as an array of length size, error flags per row or None)``.

    ``inputs[i]`` is the array read by ``arg`` nodes numbered i, already of the dtype of the node's type.

    >>> from riptide.core.udf import ir
    >>> x = ir.arg(0, ir.INT)
    >>> (q,), err = evaluate([ir.node("floordiv", x, ir.const(0, ir.INT), type_=ir.INT)],
    ...                      [np.array([7, -7])], np, 2)
    >>> err.tolist()
    [True, True]
    """
    memo: dict[tuple, tuple[Any, Any]] = {}

    def walk(n: Node) -> tuple[Any, Any]:
        found = memo.get(n.key)
        if found is not None:
            return found
        if n.op == "arg":
            out = (inputs[n.value], None)
        elif n.op == "const":
            value = np.nan if n.value is None else n.value
            out = (xp.asarray(value, dtype=n.type.dtype), None)
        elif n.op == "select":
            (c, c_err), (a, a_err), (b, b_err) = walk(n.args[0]), walk(n.args[1]), walk(n.args[2])
            err = _select_errors(xp, c, a_err, b_err)
            out = (xp.where(c, a, b), _or(c_err, err))
        else:
            pairs = [walk(a) for a in n.args]
            value, err = xp_op(n.op, xp, [p[0] for p in pairs], [a.type for a in n.args], n)
            for p in pairs:
                err = _or(err, p[1])
            out = (value, err)
        memo[n.key] = out
        return out

    with np.errstate(all="ignore"):
        results = [walk(o) for o in outputs]
        values = [_full(xp, v, o.type.dtype, size) for (v, _), o in zip(results, outputs)]
        errors = None
        for _, e in results:
            errors = _or(errors, e)
        if errors is not None:
            errors = xp.broadcast_to(errors, (size,))
    return values, errors


def _or(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return a | b


def _select_errors(xp: types.ModuleType, c: Any, a_err: Any, b_err: Any) -> Any:
    if a_err is None and b_err is None:
        return None
    if a_err is None:
        return ~c & b_err
    if b_err is None:
        return c & a_err
    return xp.where(c, a_err, b_err)


def _full(xp: types.ModuleType, value: Any, dtype: np.dtype, size: int) -> Any:
    value = xp.asarray(value)
    if value.dtype != dtype:
        value = value.astype(dtype)
    if value.shape != (size,):
        value = xp.broadcast_to(value, (size,))
    return xp.ascontiguousarray(value)
