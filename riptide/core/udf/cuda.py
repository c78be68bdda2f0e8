"""The CUDA back end: a translated function as the source of one ``cupy.ElementwiseKernel``.

Each row runs the function's control flow for real: a ``select`` becomes ``if (c) { ... } else { ... }``, so the
side not taken is never computed (no wasted work, no spurious errors) and the kernel reads each input column once
and writes each output once — the same memory traffic as the hand-written vectorised expression, which is why a
compiled function runs at about the speed of one.

Generated code, for ``lambda x: x / 2 if x > 0 else -x`` on float64::

    const double v0 = (double)(x0);
    bool rt_e = false;
    const bool t0 = (v0 > 0x0.0p+0);
    double t1;
    if (t0) {
        const double t2 = (v0 / 0x1.0000000000000p+1);
        rt_e |= (0x1.0000000000000p+1 == 0.0);
        t1 = t2;
    } else {
        const double t3 = (-v0);
        t1 = t3;
    }
    out0 = t1;
    if (rt_e) rt_err[0] = 1;

* Inputs are ``x0, x1, ...`` in the columns' own dtypes, converted once to the IR's types (``v0, ...``).
* Outputs are ``out0, ...`` (one, or three for a function returning different types: float value, int value and
  kind per row).
* ``rt_err`` (a one-element int32 array, present only when an operation can fail) is set by any row whose
  Python evaluation would raise or leave int64: the caller then reads that one number and re-runs on the host.
* Constants are C99 hexadecimal floats (exact) and ``LL`` integers; helpers are in
  :data:`riptide.core.udf.ops.PREAMBLE`; the kernel is compiled with ``--fmad=false`` (a contracted ``a*b + c``
  would round once where Python rounds twice).

Kernels are cached by the program's structure and the input dtypes; CuPy caches the compiled binaries on disk.
"""

from __future__ import annotations

import collections
import math
import types
from typing import Any

import numpy as np

from riptide.core.udf.ir import Node
from riptide.core.udf.ops import PREAMBLE, c_op

__all__ = ["generate_source", "kernel_for", "C_INPUT_TYPES", "MAX_KERNELS"]

#: Column dtypes a kernel reads, with their names as CuPy spells them in a kernel signature.
C_INPUT_TYPES = {np.dtype(t): t for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                            "float32", "float64", "bool")}  # fmt: skip
#: Kernels kept (least recently used beyond this are dropped).
MAX_KERNELS = 256
_KERNELS: collections.OrderedDict[tuple, Any] = collections.OrderedDict()
_OUT_NAMES = {"bool": "bool", "int": "int64", "float": "float64", "none": "float64"}


def generate_source(outputs: list[Node], input_dtypes: list[np.dtype], arg_types: list[Any],
                    skip: bool = False) -> tuple[str, str, str, bool]:  # fmt: skip
    """``(in_params, out_params, operation, has_errors)`` of the kernel computing ``outputs``.

    ``skip``: the kernel reads one more input, ``bool rt_skip``: rows where it is true never raise the error flag
    (rows the function must not see: missing values of ``map(na_action="ignore")`` and of nullable columns).
    """
    gen = _Generator()
    lines = gen.lines
    for i in range(len(input_dtypes)):
        t = arg_types[i]
        lines.append(f"const {t.c_type} v{i} = ({t.c_type})(x{i});")
    lines.append("bool rt_e = false;")
    for i, out in enumerate(outputs):
        name = gen.emit(out)
        lines.append(f"out{i} = {name};")
    has_errors = gen.has_errors
    if has_errors:
        if skip:
            lines.append("if (rt_skip) rt_e = false;")
        lines.append("if (rt_e) rt_err[0] = 1;")
    else:
        lines = [line for line in lines if line != "bool rt_e = false;"]
    in_params = ", ".join(f"{C_INPUT_TYPES[np.dtype(d)]} x{i}" for i, d in enumerate(input_dtypes))
    if skip:
        in_params += ", bool rt_skip"
    out_params = ", ".join(f"{_OUT_NAMES[o.type.kind]} out{i}" for i, o in enumerate(outputs))
    if has_errors:
        out_params += ", raw int32 rt_err"
    return in_params, out_params, "\n".join(lines), has_errors


class _Generator:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.scopes: list[dict[tuple, str]] = [{}]
        self.count = 0
        self.indent = ""
        self.has_errors = False

    def lookup(self, key: tuple) -> str | None:
        for scope in reversed(self.scopes):
            if key in scope:
                return scope[key]
        return None

    def fresh(self) -> str:
        name = f"t{self.count}"
        self.count += 1
        return name

    def emit(self, n: Node) -> str:
        """The C name or literal holding ``n``'s value (its code emitted first)."""
        if n.op == "arg":
            return f"v{n.value}"
        if n.op == "const":
            return _literal(n)
        found = self.lookup(n.key)
        if found is not None:
            return found
        if n.op == "select":
            cond = self.emit(n.args[0])
            name = self.fresh()
            self.lines.append(f"{self.indent}{n.type.c_type} {name};")
            for keyword, branch in ((f"if ({cond}) {{", n.args[1]), ("} else {", n.args[2])):
                self.lines.append(f"{self.indent}{keyword}")
                self.scopes.append({})
                outer, self.indent = self.indent, self.indent + "    "
                value = self.emit(branch)
                self.lines.append(f"{self.indent}{name} = {value};")
                self.indent = outer
                self.scopes.pop()
            self.lines.append(f"{self.indent}}}")
        else:
            args = [self.emit(a) for a in n.args]
            expr, err = c_op(n.op, args, [a.type for a in n.args], n)
            name = self.fresh()
            self.lines.append(f"{self.indent}const {n.type.c_type} {name} = {expr};")
            if err is not None:
                self.has_errors = True
                self.lines.append(f"{self.indent}rt_e |= {err.replace('@', name)};")
        self.scopes[-1][n.key] = name
        return name


def _literal(n: Node) -> str:
    kind, value = n.type.kind, n.value
    if kind == "bool":
        return "true" if value else "false"
    if kind == "int":
        return "(-9223372036854775807LL - 1)" if value == -(2**63) else f"{int(value)}LL"
    value = math.nan if value is None else float(value)
    if math.isnan(value):
        return "rt_nan()"
    if math.isinf(value):
        return "rt_inf()" if value > 0 else "(-rt_inf())"
    return value.hex()


_CONSTANT_HELPERS = r"""
__device__ double rt_from_bits(long long b) {
    union { long long i; double d; } u;
    u.i = b;
    return u.d;
}
__device__ double rt_inf() { return rt_from_bits(0x7FF0000000000000LL); }
__device__ double rt_nan() { return rt_from_bits(0x7FF8000000000000LL); }
"""
#: Everything a generated kernel body needs above it.
FULL_PREAMBLE = PREAMBLE + _CONSTANT_HELPERS


def kernel_for(outputs: list[Node], input_dtypes: list[np.dtype], arg_types: list[Any], skip: bool,
               xp: types.ModuleType) -> tuple[Any, bool]:  # fmt: skip
    """The cached ``cupy.ElementwiseKernel`` for the program, and whether it has the error output."""
    key = (tuple(o.key for o in outputs), tuple(np.dtype(d).str for d in input_dtypes), tuple(arg_types), skip)
    found = _KERNELS.get(key)
    if found is not None:
        _KERNELS.move_to_end(key)
        return found
    in_params, out_params, operation, has_errors = generate_source(outputs, input_dtypes, arg_types, skip)
    kernel = xp.ElementwiseKernel(in_params, out_params, operation, name=f"riptide_udf_{len(_KERNELS)}",
                                  preamble=FULL_PREAMBLE, options=("--fmad=false",))  # fmt: skip
    _KERNELS[key] = (kernel, has_errors)
    if len(_KERNELS) > MAX_KERNELS:
        _KERNELS.popitem(last=False)
    return kernel, has_errors
