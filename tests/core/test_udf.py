"""The UDF compiler (riptide.core.udf) against Python itself, and its CUDA source against its array back end.

* ``FUNCTIONS`` is a table of scalar functions (lambdas and defs, closures, globals, math calls, if/elif/else,
  chained comparisons, and/or, int/float mixing, ``**``, ``//`` and ``%`` with negative and float operands).
  Each is run over int64, float64 (NaN, inf, -0.0 included) and bool inputs by the array back end and compared
  with calling the function on every element in Python: where Python raises or leaves int64 on some row, the
  compiler must flag the error; elsewhere values must agree (exactly, or to 1 ulp-ish for libm functions).
* The generated CUDA source is checked as text (no Python leftovers), compiled and *run* as host C++ with g++ against
  the array back end (same values, same error flags), and compiled for the GPU with nvcc when it is installed.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import tempfile
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riptide.core.udf import HostFallback, Unsupported, apply_elementwise, compile_function, ir
from riptide.core.udf.cuda import C_INPUT_TYPES, FULL_PREAMBLE, generate_source
from riptide.core.udf.evaluate import evaluate

SCALE = 3
OFFSET = 0.5
FLAG = True


def make_scaler(k):
    return lambda x: x * k + OFFSET


def piecewise(x):
    if x < -2:
        return -1.0
    elif x < 0:
        y = x * x
        return y / 2
    elif x == 0:
        return 0.0
    else:
        return math.sqrt(x) + SCALE


def accumulate(x):
    y = x
    y += 2
    y *= SCALE
    if y > 10:
        z = y - 10
    else:
        z = 10 - y
    return z % 7


def mixed_return(x):
    if x > 1:
        return x
    return 0.5


def maybe_none(x):
    if x > 2:
        return None
    return x * 2


def int_result(x):
    return int(x) if x == x and abs(x) < 1e15 else 0


def with_default(x, k=4):
    return x - k


def merge_int_float(x):
    if x > 0:
        y = 1
    else:
        y = x * 0.5
    y += 2
    return y * 3 if y < 3 else y // 2


FUNCTIONS = {
    "add_mul": lambda x: x * 2 + 1,
    "neg": lambda x: -x,
    "truediv": lambda x: x / 3,
    "div_by_self": lambda x: x / x,
    "floordiv_neg": lambda x: x // -3,
    "mod_neg": lambda x: x % -3,
    "floordiv_float": lambda x: x // 0.7,
    "mod_float": lambda x: x % -2.5,
    "floordiv_zero": lambda x: x // 0,
    "pow2": lambda x: x**2,
    "pow_neg": lambda x: x**-1,
    "pow_half": lambda x: x**0.5,
    "pow_big": lambda x: x**40,
    "rpow": lambda x: 2.0**x,
    "compare": lambda x: x > 1,
    "chained": lambda x: -1 < x <= 3,
    "and_or": lambda x: (x > 0 and x < 5) or x == -1,
    "not": lambda x: not x,
    "ifexp": lambda x: x * 2 if x > 0 else -x,
    "ifexp_mixed": lambda x: x if x > 0 else 0.5,
    "abs": lambda x: abs(x) + 1,
    "min_max": lambda x: max(min(x, 10), -10),
    "round": lambda x: round(x * 1.5),
    "round0": lambda x: round(x * 1.5, 0),
    "float_int_bool": lambda x: float(x) + int(x > 0) + bool(x),
    "sqrt": lambda x: math.sqrt(x),
    "exp_log": lambda x: math.log(math.exp(x) + 1),
    "log_base": lambda x: math.log(x, 2),
    "trig": lambda x: math.sin(x) * math.cos(x) + math.atan2(x, 2),
    "floor_ceil": lambda x: math.floor(x) + math.ceil(x / 2),
    "isnan": lambda x: math.isnan(x) or math.isinf(x),
    "hypot": lambda x: math.hypot(x, 3) - math.fabs(x),
    "const_pi": lambda x: x * math.pi,
    "closure": make_scaler(2.5),
    "global_flag": lambda x: x + 1 if FLAG else x,
    "bitwise": lambda x: (x > 0) & (x < 3) | (x == 7),
    "overflow": lambda x: x * 2**62,
    "piecewise": piecewise,
    "accumulate": accumulate,
    "mixed_return": mixed_return,
    "maybe_none": maybe_none,
    "int_result": int_result,
    "with_default": with_default,
    # values that are ints on some rows and floats on others inside the function
    "clamp_floordiv": lambda x: max(min(x, 10), -10) // 3,
    "clamp_mod_div": lambda x: min(x, 3) % 2 + max(x, -1) / 4,
    "merge_int_float": merge_int_float,
    "ipow_var": lambda x: 2 ** x if x < 70 else 0,
    "ipow_self": lambda x: x**x if -4 < x < 20 else 1,
    # round with digits (CPython's correctly rounded decimal rounding)
    "round2": lambda x: round(x * 1.005, 2),
    "round_neg": lambda x: round(x * 0.75, -1),
    "round_far": lambda x: round(x, 25) + round(x, -25),
    # NumPy's scalar functions (NumPy semantics: no errors, NumPy scalars)
    "np_sqrt_log": lambda x: np.sqrt(x) + np.log(x),
    "np_misc": lambda x: np.abs(x) + np.floor(x) - np.ceil(x * 0.5) + np.trunc(x),
    "np_minmax": lambda x: np.maximum(np.minimum(x, 5), -5),
    "np_fminmax": lambda x: np.fmax(np.fmin(x, 5.0), -5.0),
    "np_isnan": lambda x: np.isnan(x) | (x > 3),
    "np_cast": lambda x: np.float64(x) / 0 if x != 0 else np.float64(1),
    "np_sign_square": lambda x: np.sign(x) * np.square(x),
    "np_round": lambda x: np.round(x * 1.005, 2),
    "np_int64": lambda x: np.int64(x) if x == x and abs(x) < 1e18 else -1,
}
# float results of libm calls may differ by an ulp between C libraries (x**x of a float is pow())
_LIBM = {"sqrt", "exp_log", "log_base", "trig", "hypot", "pow_half", "rpow", "np_sqrt_log", "ipow_self"}

INPUTS = {
    "int64": np.array([0, 1, -1, 2, -2, 3, -3, 5, -7, 7, 10, -11, 2**31, -(2**40), 2**62, -(2**63), 2**63 - 1]),
    "float64": np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.0, 1e-300, 1e300, -1e300, 7.25, -12.75,
                         np.inf, -np.inf, np.nan, 1e15 + 0.5, 2.0**53]),
    "bool": np.array([True, False]),
}
_TYPES = {"int64": ir.INT, "float64": ir.FLOAT, "bool": ir.BOOL}


def python_results(func, values):
    """Each element's Python result (NumPy scalars as the Python scalars pandas stores them as), or the exception."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's functions warn where Python's raise)
        for v in values.tolist():
            try:
                r = func(v)
            except Exception as exc:  # noqa: BLE001 - any exception is a row that must be flagged
                r = exc
            out.append(r.item() if isinstance(r, np.generic) else r)
    return out


def _representable(r) -> bool:
    if isinstance(r, Exception) or isinstance(r, complex):
        return False
    if isinstance(r, int) and not isinstance(r, bool):
        return -(2**63) <= r < 2**63
    return True


def run_compiled(func, dtype, values):
    """``(values, missing)`` of the compiled function, or the string "fallback: reason"."""
    try:
        return apply_elementwise(func, [values], [_TYPES[dtype]], np, len(values))
    except HostFallback as exc:
        return f"fallback: {exc}"


def _same(a, b, close: bool) -> bool:
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if close and isinstance(a, float):
        return math.isclose(a, b, rel_tol=1e-14, abs_tol=1e-300)
    if isinstance(a, float) and a == 0 and b == 0:
        return math.copysign(1, a) == math.copysign(1, b)
    return a == b and type(a) is type(b)


def check_against_python(func, name, dtype, values):
    expected = python_results(func, values)
    got = run_compiled(func, dtype, values)
    if isinstance(got, str):
        # Falling back is right only where some row raises or gives what a column cannot hold, where the rows'
        # types mix as pandas keeps objects, or (conservatively) where ints beyond 2**53 meet exactness checks.
        kinds = {type(r) for r in expected if _representable(r)}
        big_ints = dtype == "int64" and bool((np.abs(values.astype(float)) >= 2.0**53).any())
        assert (big_ints or not all(_representable(r) for r in expected) or (bool in kinds and len(kinds) > 1)
                or "returns None" in got or "on one path and" in got or "on a bool" in got), got
        return
    assert all(_representable(r) for r in expected), f"rows that raise in Python were not flagged: {expected}"
    out, missing = got
    kinds = {type(r) for r in expected}
    for i, (e, g) in enumerate(zip(expected, out.tolist())):
        if e is None:
            assert missing is not None and missing[i]
            continue
        if float in kinds or type(None) in kinds:
            e = float(e)
        assert _same(e, g, name in _LIBM), (i, values[i], e, g)


@pytest.mark.parametrize("dtype", list(INPUTS))
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_matches_python(name, dtype):
    check_against_python(FUNCTIONS[name], name, dtype, INPUTS[dtype])
    if dtype == "int64":  # small ints: no conservative fallback
        check_against_python(FUNCTIONS[name], name, dtype, INPUTS[dtype][np.abs(INPUTS[dtype]) < 2**31])


def test_dtype_of_results():
    ints = INPUTS["int64"][:12]
    assert run_compiled(lambda x: x + 1, "int64", ints)[0].dtype == np.int64
    assert run_compiled(lambda x: x > 1, "int64", ints)[0].dtype == np.bool_
    assert run_compiled(lambda x: x / 1, "int64", ints)[0].dtype == np.float64
    # a function returning ints and floats: int64 when every row returned an int
    assert run_compiled(mixed_return, "int64", np.array([2, 3]))[0].dtype == np.int64
    assert run_compiled(mixed_return, "int64", np.array([2, 0]))[0].dtype == np.float64


def test_errors_only_on_taken_branches():
    # 1 / x is never evaluated where x == 0: no error, as in Python
    out, _ = run_compiled(lambda x: 1 / x if x != 0 else 0.0, "int64", np.array([0, 2, -4]))
    assert out.tolist() == [0.0, 0.5, -0.25]
    out, _ = run_compiled(lambda x: x != 0 and 10 // x > 1, "int64", np.array([0, 2, 20]))
    assert out.tolist() == [False, True, False]


def test_closure_values_are_part_of_the_cache_key():
    global SCALE
    values = np.array([1, 2])
    before = run_compiled(accumulate, "int64", values)[0].tolist()
    SCALE = 5
    try:
        after = run_compiled(accumulate, "int64", values)[0].tolist()
    finally:
        SCALE = 3
    assert before != after
    assert after == [accumulate(1) if False else ((1 + 2) * 5 - 10) % 7, ((2 + 2) * 5 - 10) % 7]


def test_several_lambdas_on_one_line():
    f, g = (lambda x: x + 1), (lambda x: x * 10)  # noqa: E731
    assert run_compiled(f, "int64", np.array([1]))[0].tolist() == [2]
    assert run_compiled(g, "int64", np.array([1]))[0].tolist() == [10]


@pytest.mark.parametrize(("func", "reason"), [
    (lambda x: str(x), "'str'"),
    (lambda x: {1: 2}.get(x, 0), "Dict"),
    (lambda x: [x][0], "List"),
    (lambda x: x.real, "attribute"),
    (lambda x: None, "returns None"),
    (lambda x: len("ab") + x, "len"),
], ids=["str", "dict", "list", "attribute", "none", "len"])  # fmt: skip
def test_unsupported_names_the_reason(func, reason):
    with pytest.raises(Unsupported, match=reason):
        compile_function(func, [ir.INT])


def test_loops_are_unsupported():
    def loop(x):
        total = 0
        for i in range(3):
            total += x
        return total

    with pytest.raises(Unsupported, match="for statement"):
        compile_function(loop, [ir.INT])


def test_maybe_unbound_variable():
    def f(x):
        if x > 0:
            y = 1
        return y

    with pytest.raises(Unsupported, match="may be unassigned"):
        compile_function(f, [ir.INT])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-50, 50)), min_size=1, max_size=40),
       st.sampled_from(["accumulate", "floordiv_neg", "mod_neg", "pow2", "overflow", "min_max", "add_mul"]))  # fmt: skip
def test_ints_hypothesis(values, name):
    check_against_python(FUNCTIONS[name], name, "int64", np.array(values, dtype=np.int64))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=40),
       st.sampled_from(["floordiv_float", "mod_float", "piecewise", "round0", "ifexp", "truediv", "pow2"]))
def test_floats_hypothesis(values, name):
    check_against_python(FUNCTIONS[name], name, "float64", np.array(values, dtype=np.float64))


# --- the CUDA source ------------------------------------------------------------------------------------------------
def _program(name, dtype):
    result = compile_function(FUNCTIONS[name], [_TYPES[dtype]])
    return result.outputs()


def _compilable():
    out = []
    for name in FUNCTIONS:
        for dtype in INPUTS:
            try:
                _program(name, dtype)
            except Unsupported:
                continue
            out.append((name, dtype))
    return out


COMPILABLE = _compilable()


@pytest.mark.parametrize(("name", "dtype"), COMPILABLE)
def test_source_has_no_python_leftovers(name, dtype):
    outputs = _program(name, dtype)
    in_params, out_params, body, _ = generate_source(outputs, [np.dtype(dtype)], [_TYPES[dtype]])
    text = re.sub(r"rt_\w+", "", body)
    for token in (r"\bNone\b", r"\bTrue\b", r"\bFalse\b", r"math\.", r"\*\*", "//", r"\band\b", r"\bor\b",
                  r"\bnot\b", r"\blambda\b", r"\bnan\b", r"\binf\b", r"\belif\b", ":\n"):
        assert re.search(token, text) is None, (token, body)
    assert body.count("{") == body.count("}")
    assert in_params == f"{C_INPUT_TYPES[np.dtype(dtype)]} x0"


_HARNESS_HEAD = r"""
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
using namespace std;
#define __device__ static
typedef int int32;
"""
_HARNESS_KERNEL = r"""
static void kernel_{k}(long long n, const char* in_bytes, char* out_bytes, char* errs) {{
    const {in_type}* xs = (const {in_type}*)in_bytes;
{out_ptrs}
    for (long long i = 0; i < n; i++) {{
        {in_type} x0 = xs[i];
{out_refs}
        int rt_err[1] = {{0}};
        {{
{body}
        }}
        errs[i] = (char)rt_err[0];
    }}
}}
"""
_HARNESS_MAIN = r"""
int main(int argc, char** argv) {{
    int k = atoi(argv[1]);
    long long n = atoll(argv[2]);
    FILE* in = fopen(argv[3], "rb");
    char* in_bytes = (char*)malloc(8 * n + 8);
    if (fread(in_bytes, 1, 8 * n, in) == 0 && n) return 2;
    fclose(in);
    char* out_bytes = (char*)calloc(3 * 8 * n + 8, 1);
    char* errs = (char*)calloc(n + 1, 1);
    switch (k) {{
{cases}
    }}
    FILE* out = fopen(argv[4], "wb");
    fwrite(out_bytes, 1, 3 * 8 * n, out);
    fwrite(errs, 1, n, out);
    fclose(out);
    return 0;
}}
"""
_C_OUT = {"bool": "bool", "int": "long long", "float": "double", "none": "double"}
_C_IN = {"int64": "long long", "float64": "double", "bool": "bool"}


def _indent(body, prefix="            "):
    return "\n".join(prefix + line for line in body.splitlines())


@pytest.fixture(scope="module")
def host_kernels(tmp_path_factory):
    """All generated kernels compiled (once) into one host program: ``run(k, values)`` runs the k-th."""
    if shutil.which("g++") is None:
        pytest.skip("needs g++ to run the generated source on the host")
    parts = [_HARNESS_HEAD, FULL_PREAMBLE]
    for k, (name, dtype) in enumerate(COMPILABLE):
        outputs = _program(name, dtype)
        _, _, body, _ = generate_source(outputs, [np.dtype(dtype)], [_TYPES[dtype]])
        out_types = [_C_OUT[o.type.kind] for o in outputs]
        parts.append(_HARNESS_KERNEL.format(
            k=k, in_type=_C_IN[dtype], body=_indent(body),
            out_ptrs="\n".join(f"    {t}* ys{i} = ({t}*)(out_bytes + {i} * 8 * n);" for i, t in enumerate(out_types)),
            out_refs="\n".join(f"        {t}& out{i} = ys{i}[i];" for i, t in enumerate(out_types)),
        ))  # fmt: skip
    cases = "\n".join(f"        case {k}: kernel_{k}(n, in_bytes, out_bytes, errs); break;" for k in range(len(COMPILABLE)))
    parts.append(_HARNESS_MAIN.format(cases=cases))
    workdir = tmp_path_factory.mktemp("udf_host")
    src, exe = workdir / "kernels.cpp", workdir / "kernels"
    src.write_text("\n".join(parts))
    done = subprocess.run(["g++", "-std=c++17", "-O0", "-ffp-contract=off", "-o", str(exe), str(src)],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]

    def run(k, outputs, values):
        values.tofile(workdir / "in.bin")
        subprocess.run([str(exe), str(k), str(len(values)), str(workdir / "in.bin"), str(workdir / "out.bin")],
                       check=True)  # fmt: skip
        raw = np.fromfile(workdir / "out.bin", dtype=np.uint8)
        n = len(values)
        results = [raw[i * 8 * n: i * 8 * n + n * o.type.dtype.itemsize].view(o.type.dtype)
                   for i, o in enumerate(outputs)]  # fmt: skip
        return results, raw[3 * 8 * n:].astype(bool)

    return run


@pytest.mark.parametrize(("name", "dtype"), COMPILABLE)
def test_generated_source_runs_like_the_array_path(name, dtype, host_kernels):
    outputs = _program(name, dtype)
    values = INPUTS[dtype]
    c_values, c_errors = host_kernels(COMPILABLE.index((name, dtype)), outputs, values)
    _, _, _, has_errors = generate_source(outputs, [np.dtype(dtype)], [_TYPES[dtype]])
    np_values, np_errors = evaluate(outputs, [values.astype(_TYPES[dtype].dtype)], np, len(values))
    np_errors = np.zeros(len(values), bool) if np_errors is None else np.asarray(np_errors)
    assert c_errors.tolist() == np_errors.tolist()
    assert has_errors or not np_errors.any()
    ok = ~np_errors
    for c, e in zip(c_values, np_values):
        if name in _LIBM:
            np.testing.assert_allclose(c[ok], e[ok], rtol=1e-14, atol=0)
        else:
            np.testing.assert_array_equal(c[ok], e[ok])
            if c.dtype.kind == "f":  # signed zeros too
                assert (np.signbit(c[ok]) == np.signbit(e[ok])).all()


_NVCC_WRAPPER = r"""
{preamble}
extern "C" __global__ void riptide_udf_test(const {in_type}* xs, {out_decls}, int* rt_err, long long n) {{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    {in_type} x0 = xs[i];
{out_refs}
{body}
}}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc to compile the generated source for the GPU")
def test_generated_source_compiles_with_nvcc():
    kernels = []
    for k, (name, dtype) in enumerate(COMPILABLE):
        outputs = _program(name, dtype)
        _, _, body, _ = generate_source(outputs, [np.dtype(dtype)], [_TYPES[dtype]])
        in_type = _C_IN[dtype]
        out_types = [_C_OUT[o.type.kind] for o in outputs]
        kernels.append(_NVCC_WRAPPER.format(
            preamble="", in_type=in_type, body=body,
            out_decls=", ".join(f"{t}* ys{i}" for i, t in enumerate(out_types)),
            out_refs="\n".join(f"    {t}& out{i} = ys{i}[i];" for i, t in enumerate(out_types)),
        ).replace("riptide_udf_test", f"riptide_udf_test_{k}"))  # fmt: skip
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.cu")
        with open(src, "w") as f:
            f.write(FULL_PREAMBLE + "\n".join(kernels))
        done = subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "--fmad=false", "-o", os.path.join(d, "k.ptx"), src],
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]


def test_imports_inside_the_function():
    def f(x):
        import math as m
        from math import pi, sqrt

        if x > 0.5:
            return sqrt(x) * 2.0 + m.floor(pi)
        return x * x - 1.0

    values = INPUTS["float64"][:10]
    out, _ = run_compiled(f, "float64", values)
    assert out.tolist() == [f(v) for v in values.tolist()]


def test_benchmark_udf_compiles():
    from riptide.benchmarks.cases_text import _scalar_udf

    result = compile_function(_scalar_udf, [ir.FLOAT])
    assert result.value is not None and result.value.type == ir.FLOAT
    _, _, body, has_errors = generate_source(result.outputs(), [np.dtype("float64")], [ir.FLOAT])
    assert "if (" in body and "sqrt(" in body


def test_skipped_rows_never_flag_in_the_kernel():
    # missing rows (nullable columns, na_action="ignore") hold arbitrary values: their errors must not count
    outputs = compile_function(lambda x: 10 // x, [ir.INT]).outputs()
    in_params, _, body, has_errors = generate_source(outputs, [np.dtype("int64")], [ir.INT], skip=True)
    assert has_errors and in_params == "int64 x0, bool rt_skip"
    assert body.index("if (rt_skip) rt_e = false;") < body.index("if (rt_e) rt_err[0] = 1;")
    values = np.array([5, 0, 2])
    out, _ = apply_elementwise(lambda x: 10 // x, [values], [ir.INT], np, 3, skip=np.array([False, True, False]))
    assert out[[0, 2]].tolist() == [2, 5]


def test_round_digits_source_and_values():
    # CPython's correctly rounded round(x, n), in the CUDA source as in the array back end
    outputs = compile_function(lambda x: round(x, 2), [ir.FLOAT]).outputs()
    _, _, body, has_errors = generate_source(outputs, [np.dtype("float64")], [ir.FLOAT])
    assert "rt_round_pos(" in body and has_errors
    values = np.array([2.675, 1.005, 0.125, 0.375, -0.001, 1e300, 5e-324, np.inf, np.nan])
    (got,), err = evaluate(outputs, [values], np, len(values))
    assert not np.asarray(err).any()
    expected = [round(v, 2) for v in values.tolist()]
    assert [repr(v) for v in got.tolist()] == [repr(v) for v in expected]
