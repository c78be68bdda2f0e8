"""Fused elementwise kernels (riptide/core/ops/fusion.py): same values and dtypes as the eager path.

On the CPU the hook returns None (NumPy runs eagerly). The tests here still check, without a GPU:

* the dtype rules (:func:`fusion.resolve_types`) against NumPy 2's own ufunc results;
* trees built through the test hook ``fusion._ALLOW_HOST`` (deferred columns over NumPy arrays, computed
  operator by operator): predicted dtypes, the cap, materialize-once, signatures, frame integration;
* the generated C code, compiled with the host C++ compiler (when there is one) and run on random data:
  bit for bit the eager NumPy result.

``@pytest.mark.gpu`` tests run the real fused CuPy kernels against the eager CuPy path.
"""

from __future__ import annotations

import contextlib
import pickle
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import riptide as rt
from riptide import _device
from riptide.core.column import NumericColumn
from riptide.core.ops import binary, fusion
from riptide.core.ops.fusion import DeferredColumn

OPERAND_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
CHAIN_DTYPES = ["int8", "int32", "uint64", "float32", "float64", "int16", "uint8"]
PY_SCALARS: list[Any] = [0, 1, 2, -3, 7, 100, 127, 300, 2**40, 0.0, 0.5, -2.25, 1e10, float("nan"), float("inf"),
                         -float("inf"), 1e300, 3.0]  # fmt: skip
NP_SCALARS: list[Any] = [np.int8(3), np.int32(-7), np.uint64(5), np.float32(1.5), np.float64(-0.25), np.int64(2**40),
                         np.uint8(200)]  # fmt: skip
gpu = pytest.mark.gpu


# --------------------------------------------------------------------------- helpers


@contextlib.contextmanager
def fusion_enabled(on: bool, host: bool = False):
    old = fusion.ENABLED, fusion._ALLOW_HOST
    fusion.ENABLED, fusion._ALLOW_HOST = on, host
    try:
        yield
    finally:
        fusion.ENABLED, fusion._ALLOW_HOST = old


@pytest.fixture
def host_fusion():
    """Deferred columns over NumPy arrays (the test hook), computed operator by operator."""
    with fusion_enabled(True, host=True):
        yield


@pytest.fixture
def gpu_fusion():
    with fusion_enabled(True):
        yield


def xp():
    return _device.xp()


def column(values: Any) -> NumericColumn:
    """A column on the current device."""
    return NumericColumn(_device.to_device(np.asarray(values)))


def host_column(values: Any) -> NumericColumn:
    """A column of NumPy arrays, whatever the device (for the host test hook)."""
    return NumericColumn(np.asarray(values))


def random_values(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        values = (rng.standard_normal(n) * 10.0 ** rng.integers(-2, 4, size=n)).astype(dt)
        if n:
            specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], dtype=dt)
            k = rng.integers(0, n, size=min(n, max(1, n // 8)))
            values[k] = rng.choice(specials, size=len(k))
        return values
    info = np.iinfo(dt)
    if rng.random() < 0.5:
        lo, hi = max(int(info.min), -20), min(int(info.max), 40)
        values = rng.integers(lo, hi, size=n, endpoint=True).astype(dt)
    else:
        values = rng.integers(int(info.min), int(info.max), size=n, dtype=dt, endpoint=True)
    if n:
        values[rng.integers(0, n)] = 0
    return values


def random_expr(rng: np.random.Generator, n_cols: int, depth: int) -> Any:
    """A random expression: ``("col", i)`` or ``(op, reflected, left_expr, right)`` (right: expr or scalar)."""
    if depth == 0 or rng.random() < 0.2:
        return ("col", int(rng.integers(n_cols)))
    arithmetic = ["add", "sub", "mul", "truediv"]
    op = str(rng.choice(arithmetic + ["lt", "ge", "eq", "ne", "le", "gt"], p=[0.2] * 4 + [0.2 / 6] * 6))
    left = random_expr(rng, n_cols, depth - 1)
    pick = rng.random()
    if pick < 0.35:
        right: Any = PY_SCALARS[int(rng.integers(len(PY_SCALARS)))]
    elif pick < 0.45:
        right = NP_SCALARS[int(rng.integers(len(NP_SCALARS)))]
    elif pick < 0.75:
        right = ("col", int(rng.integers(n_cols)))
    else:
        right = random_expr(rng, n_cols, depth - 1)
    return (op, bool(rng.random() < 0.3), left, right)


def evaluate(expr: Any, cols: list[NumericColumn]) -> Any:
    """Replay an expression through ``binary_op`` (the same calls Series operators make)."""
    if expr[0] == "col":
        return cols[expr[1]]
    op, reflected, left, right = expr
    lhs = evaluate(left, cols)
    rhs = evaluate(right, cols) if isinstance(right, tuple) else right
    return binary.binary_op(lhs, rhs, op, reflected)


def outcome(fn: Any) -> tuple[Any, Any]:
    """``(host values or None, exception type or None)``; reading ``.data`` materializes inside the try."""
    try:
        col = fn()
        return (_device.to_host(col.data), col.dtype), None
    except Exception as exc:  # noqa: BLE001 - the eager path's error is data here
        return None, type(exc)


def assert_bitwise_equal(got: np.ndarray, expected: np.ndarray) -> None:
    """Same dtype and values; floats also the same sign of zero, NaN where NaN (payloads aside)."""
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    if got.dtype.kind == "f":
        nan_got, nan_exp = np.isnan(got), np.isnan(expected)
        assert np.array_equal(nan_got, nan_exp), "NaN in different rows"
        ok = ~nan_got
        bits = {4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
        mismatch = np.flatnonzero(got[ok].view(bits) != expected[ok].view(bits))
        assert mismatch.size == 0, f"{mismatch.size} rows differ, e.g. {got[ok][mismatch[:5]]} vs {expected[ok][mismatch[:5]]}"
    else:
        assert np.array_equal(got, expected)


def random_case(seed: int, n: int | None = None) -> tuple[list[np.ndarray], Any]:
    rng = np.random.default_rng(seed)
    n = int(rng.choice([0, 1, 7, 1000])) if n is None else n
    n_cols = int(rng.integers(1, 5))
    arrays = [random_values(rng, str(rng.choice(CHAIN_DTYPES)), n) for _ in range(n_cols)]
    return arrays, random_expr(rng, n_cols, int(rng.integers(1, 6)))


def check_fused_matches_eager(arrays: list[np.ndarray], expr: Any, host: bool = False) -> Any:
    make = host_column if host else column
    with fusion_enabled(False):
        expected, expected_error = outcome(lambda: evaluate(expr, [make(a) for a in arrays]))
    holder: dict[str, Any] = {}

    def fused() -> Any:
        result = evaluate(expr, [make(a) for a in arrays])
        holder["result"] = result
        if isinstance(result, DeferredColumn) and result.is_deferred:
            holder["tree"] = result._tree
        return result

    with fusion_enabled(True, host=host):
        got, got_error = outcome(fused)
    assert got_error == expected_error, f"fused raised {got_error}, eager raised {expected_error}"
    if expected is not None:
        assert got[1] == expected[1], f"dtype: fused {got[1]}, eager {expected[1]}"
        assert_bitwise_equal(got[0], expected[0])
        assert got[0].dtype == got[1]  # the buffer matches the reported dtype
    return holder.get("tree")


# --------------------------------------------------------------------------- CPU: the hook stays out of the way


def test_numpy_columns_run_eagerly():
    a, b = host_column([1.0, 2.0]), host_column([3.0, 4.0])
    assert fusion.try_defer(a, b, "add", False) is None
    result = binary.binary_op(a, b, "mul")
    assert type(result) is NumericColumn
    if not _device.is_gpu():
        s = rt.Series([1.0, 2.0]) * 2 + 1
        assert type(s._column) is NumericColumn


@pytest.mark.parametrize("op", ["floordiv", "mod", "pow", "and", "or", "xor"])
def test_operators_with_pandas_rules_are_not_fused(host_fusion, op):
    assert fusion.try_defer(host_column([1, 2]), host_column([3, 4]), op, False) is None


@pytest.mark.parametrize(
    "left, right",
    [
        (np.array([True, False]), 1),  # bool
        (np.array([1, 2], dtype=np.float16), 1.0),  # float16
        (np.array(["2000-01-01", "2000-01-02"], dtype="datetime64[ns]"), np.timedelta64(1, "ns")),
        (np.array([1, 2]), True),  # bool scalars are not numbers here
        (np.array([1, 2]), np.bool_(True)),
        (np.array([1, 2]), np.float16(1.0)),
        (np.array([1, 2]), "x"),
        (np.array([1, 2]), None),
        (np.array([1, 2]), np.array([1, 2, 3])),  # length differs: the eager path raises
        (np.array([1, 2], dtype=np.int8), 1000),  # does not fit int8
        (np.array([1, 2], dtype=np.uint64), -1),
        (np.array([1, 2], dtype=np.int64), 2**63),
        (np.array([1, 2], dtype=np.float32), 1e300),  # overflows float32
        (np.array([1, 2], dtype=np.float64), 2**60),  # not exact in float64
        (np.array([1, 2], dtype=np.int64), np.array([1, 2], dtype=np.uint64)),  # for comparisons only
    ],
)
def test_unsupported_operands_are_not_fused(host_fusion, left, right):
    lhs = NumericColumn(left) if left.dtype.kind != "M" else NumericColumn(left.view(np.int64), left.dtype)
    rhs = NumericColumn(right) if isinstance(right, np.ndarray) else right
    assert fusion.try_defer(lhs, rhs, "lt", False) is None
    if not (isinstance(right, np.ndarray) and right.dtype == np.uint64):
        assert fusion.try_defer(lhs, rhs, "add", False) is None


def test_masked_columns_are_not_fused(host_fusion):
    masked = NumericColumn(np.array([1, 2]), pd.Int64Dtype(), np.array([True, False]))
    assert fusion.try_defer(masked, 1, "add", False) is None
    assert fusion.try_defer(host_column([1, 2]), masked, "add", False) is None


# --------------------------------------------------------------------------- CPU: dtype rules against NumPy 2


def _numpy_dtype(op: str, a: Any, b: Any) -> np.dtype:
    with np.errstate(all="ignore"):
        return getattr(np, fusion._UFUNCS[op])(a, b).dtype


@pytest.mark.parametrize("op", fusion.FUSABLE_OPS)
def test_resolve_types_matches_numpy_for_arrays(op):
    for left in OPERAND_DTYPES:
        for right in OPERAND_DTYPES:
            lt, rt_ = np.dtype(left), np.dtype(right)
            resolved = fusion.resolve_types(op, lt, rt_)
            if resolved is None:
                assert op in fusion.COMPARISON_OPS and {lt.kind, rt_.kind} == {"i", "u"}, (left, right)
                continue
            compute, dtype = resolved
            assert dtype == _numpy_dtype(op, np.ones(2, lt), np.ones(2, rt_)), (op, left, right)
            assert compute == np.result_type(lt, rt_) or (op == "truediv" and compute == np.float64)


@pytest.mark.parametrize("op", fusion.FUSABLE_OPS)
@pytest.mark.parametrize("scalar", [3, 2.5])
def test_resolve_types_matches_numpy_for_python_scalars(op, scalar):
    for name in OPERAND_DTYPES:
        dt = np.dtype(name)
        for resolved, expected in [
            (fusion.resolve_types(op, dt, type(scalar)), _numpy_dtype(op, np.ones(2, dt), scalar)),
            (fusion.resolve_types(op, type(scalar), dt), _numpy_dtype(op, scalar, np.ones(2, dt))),
        ]:
            assert resolved is not None and resolved[1] == expected, (op, name, scalar, resolved, expected)


def test_resolve_types_refuses_two_scalars_and_other_dtypes():
    assert fusion.resolve_types("add", int, float) is None
    assert fusion.resolve_types("add", np.dtype(bool), int) is None
    assert fusion.resolve_types("add", np.dtype("float16"), np.dtype("float32")) is None
    assert fusion.resolve_types("floordiv", np.dtype("int64"), int) is None


@pytest.mark.parametrize("seed", range(60))
def test_host_trees_predict_the_eager_dtype_and_values(seed):
    """Deferred over NumPy, computed operator by operator: the dtype known before computing is the real one."""
    arrays, expr = random_case(seed)
    check_fused_matches_eager(arrays, expr, host=True)


@given(st.integers(0, 2**32 - 1))
def test_host_trees_random(seed):
    arrays, expr = random_case(seed)
    check_fused_matches_eager(arrays, expr, host=True)


# --------------------------------------------------------------------------- CPU: trees, signatures, the cap


def test_mul_add_is_one_tree_reading_each_array_once(host_fusion):
    a, b = host_column(np.arange(5.0)), host_column(np.arange(5.0) + 1)
    result = binary.binary_op(binary.binary_op(a, b, "mul"), a, "add")
    assert isinstance(result, DeferredColumn) and result.is_deferred
    sig, arrays, scalars = fusion.signature(result._tree)
    assert sig == ("add", "float64", "float64", ("mul", "float64", "float64", ("a", 0, "float64"), ("a", 1, "float64")),
                   ("a", 0, "float64"))  # fmt: skip
    assert arrays[0] is a.data and arrays[1] is b.data and len(arrays) == 2 and scalars == []
    in_params, out_params, operation = fusion.generate_source(sig)
    assert in_params == "float64 a0, float64 a1" and out_params == "float64 y"
    assert operation.count("a0") == 2 and operation.count("a1") == 1  # a used twice, passed once


def test_scalars_are_arguments_not_source(host_fusion):
    s = host_column(np.arange(5, dtype=np.int32))
    one = binary.binary_op(binary.binary_op(s, 2, "mul"), 1, "add")
    two = binary.binary_op(binary.binary_op(s, 2, "mul"), 2, "add")
    sig1, _, scalars1 = fusion.signature(one._tree)
    sig2, _, scalars2 = fusion.signature(two._tree)
    assert sig1 == sig2
    assert scalars1 == [2, 1] and scalars2 == [2, 2]
    assert all(isinstance(v, np.int32) for v in scalars1)
    assert "1" not in fusion.generate_source(sig1)[2].replace("c1", "")  # no literal baked in


def test_reflected_scalar_comes_first(host_fusion):
    s = host_column(np.array([1.0, 4.0]))
    result = binary.binary_op(binary.binary_op(s, 2, "sub", reflected=True), 3, "truediv", reflected=True)
    sig, _, scalars = fusion.signature(result._tree)
    assert sig[3][0] == "c" and sig[4][0] == "sub" and sig[4][3][0] == "c"
    np.testing.assert_array_equal(result.data, 3 / (2 - np.array([1.0, 4.0])))


def test_materializes_once_and_drops_the_tree(host_fusion):
    a = host_column(np.arange(4.0))
    result = binary.binary_op(binary.binary_op(a, 3, "mul"), a, "add")
    assert result.dtype == np.float64 and result.size == 4 and result.nbytes == 32 and result.xp is np
    assert result.is_deferred  # none of the above computed anything
    first = result.data
    assert not result.is_deferred and result._tree is None
    assert result.data is first
    np.testing.assert_array_equal(first, np.arange(4.0) * 4)


def test_a_materialized_operand_is_a_plain_leaf(host_fusion):
    a = host_column(np.arange(4.0))
    c = binary.binary_op(a, 2, "mul")
    c.data  # noqa: B018
    d = binary.binary_op(c, 1, "add")
    assert d._tree.n_nodes == 1 and d._tree.left.array is c.data


def test_cap_on_operators(host_fusion):
    s = host_column(np.zeros(3, dtype=np.int64))
    sizes = []
    for _ in range(100):
        s = binary.binary_op(s, 1, "add")
        sizes.append(s._tree.n_nodes)
    assert max(sizes) == fusion.MAX_NODES
    assert sizes[: fusion.MAX_NODES] == list(range(1, fusion.MAX_NODES + 1))
    assert sizes[fusion.MAX_NODES] == 1  # the full tree was computed, a new one started
    np.testing.assert_array_equal(s.data, np.full(3, 100))


def test_cap_on_arrays(host_fusion):
    cols = [host_column(np.full(3, float(i))) for i in range(12)]
    total = cols[0]
    for c in cols[1:]:
        total = binary.binary_op(total, c, "add")
        assert len(total._tree.arrays) <= fusion.MAX_ARRAYS
    np.testing.assert_array_equal(total.data, np.full(3, float(sum(range(12)))))


def test_cap_with_two_deferred_operands(host_fusion):
    a = host_column(np.arange(3.0))
    left, right = a, a
    for _ in range(10):
        left = binary.binary_op(left, 1.0, "add")
        right = binary.binary_op(right, 2.0, "mul")
    both = binary.binary_op(left, right, "sub")
    assert both._tree.n_nodes <= fusion.MAX_NODES
    assert not right.is_deferred  # the right operand was computed to stay within the cap
    np.testing.assert_array_equal(both.data, (np.arange(3.0) + 10) - np.arange(3.0) * 1024)


def test_same_deferred_operand_twice(host_fusion):
    a = host_column(np.arange(3.0))
    c = binary.binary_op(a, 2.0, "mul")
    d = binary.binary_op(c, c, "add")
    assert d._tree.n_nodes == 3 and len(d._tree.arrays) == 1
    np.testing.assert_array_equal(d.data, np.arange(3.0) * 4)


def test_disabled_flag(host_fusion, monkeypatch):
    monkeypatch.setattr(fusion, "ENABLED", False)
    assert fusion.try_defer(host_column([1.0]), 1.0, "add", False) is None


def test_pickle_and_repr(host_fusion):
    result = binary.binary_op(binary.binary_op(host_column(np.arange(3.0)), 2.0, "mul"), 1.0, "add")
    assert "deferred, 2 ops" in repr(result)
    clone = pickle.loads(pickle.dumps(result))
    assert type(clone) is NumericColumn
    np.testing.assert_array_equal(clone.data, [1.0, 3.0, 5.0])
    assert "materialized" in repr(result)


def test_generated_code_for_integers_has_no_signed_overflow():
    sig = ("mul", "int8", "int8", ("a", 0, "int8"), ("c", 0, "int8"))
    in_params, out_params, operation = fusion.generate_source(sig)
    assert in_params == "int8 a0, int8 c0" and out_params == "int8 y"
    assert "(unsigned int)" in operation and operation.startswith("y = ((signed char)")
    sig64 = ("add", "int64", "int64", ("a", 0, "int64"), ("a", 1, "int64"))
    assert "(unsigned long long)" in fusion.generate_source(sig64)[2]
    cmp = ("lt", "float64", "bool", ("a", 0, "int32"), ("c", 0, "float64"))
    assert fusion.generate_source(cmp) == ("int32 a0, float64 c0", "bool y", "y = ((double)(a0) < (double)(c0));")


# --------------------------------------------------------------------------- CPU: the frame layer over deferred columns


def test_frame_integration_on_host(host_fusion):
    rng = np.random.default_rng(0)
    pdf = pd.DataFrame({"a": rng.standard_normal(100), "b": rng.integers(-5, 5, 100), "c": rng.random(100)})
    df = rt.from_pandas(pdf)
    expr = df.a * 2 + df.b
    assert isinstance(expr._column, DeferredColumn) and expr._column.is_deferred
    assert expr.dtype == np.float64 and len(expr) == 100 and expr._column.is_deferred
    pd.testing.assert_series_equal(expr.to_pandas(), pdf.a * 2 + pdf.b)
    got = df[(df.a * 2 + df.b) > 1].to_pandas()
    pd.testing.assert_frame_equal(got, pdf[(pdf.a * 2 + pdf.b) > 1])
    assert (df.a * df.c - df.a).sum() == pytest.approx((pdf.a * pdf.c - pdf.a).sum(), rel=1e-12)
    # then an operator that is not fused (``**``; ``// 2`` on an int column trips binary._integer_division_by_zero on
    # CuPy, which calls xp.any on a Python bool: a bug of the eager path, reported separately)
    assert ((df.b * 3 + 1) ** 2).to_pandas().equals((pdf.b * 3 + 1) ** 2)
    pd.testing.assert_series_equal((2 - df.b / 4).to_pandas(), 2 - pdf.b / 4)
    pd.testing.assert_series_equal((df.a > 0).to_pandas(), pdf.a > 0)


# --------------------------------------------------------------------------- CPU: the generated C code, compiled on the host


_CXX = shutil.which("g++") or shutil.which("c++")

_HARNESS = """
#include <cstdio>
#include <cstdlib>
#include <vector>
template <class T> static std::vector<T> load(const char* path) {
    FILE* f = std::fopen(path, "rb"); std::vector<T> v;
    T x; while (std::fread(&x, sizeof(T), 1, f) == 1) v.push_back(x);
    std::fclose(f); return v;
}
template <class T> static void save(const char* path, const std::vector<T>& v) {
    FILE* f = std::fopen(path, "wb");
    for (size_t i = 0; i < v.size(); ++i) { T x = v[i]; std::fwrite(&x, sizeof(T), 1, f); }
    std::fclose(f);
}
"""


def _host_function(k: int, in_params: str, out_params: str, operation: str, arrays: list[Any], scalars: list[Any],
                   workdir: Path) -> str:  # fmt: skip
    """C++ running one kernel's ``operation`` in a plain loop (CuPy's loop, on the CPU); inputs go through files."""
    params = [p.split() for p in in_params.split(", ")]
    out_type = fusion.C_TYPES[np.dtype(out_params.split()[0])]
    loads, decls = [], []
    for dtype_name, name in params:
        ctype = fusion.C_TYPES[np.dtype(dtype_name)]
        path = workdir / f"{k}_{name}.bin"
        loads.append(f'    std::vector<{ctype}> v_{name} = load<{ctype}>("{path}");')
        decls.append(f"        const {ctype} {name} = v_{name}[{'i' if name[0] == 'a' else '0'}];")
        values = np.asarray(arrays[int(name[1:])]) if name[0] == "a" else np.asarray([scalars[int(name[1:])]])
        assert values.dtype == np.dtype(dtype_name)  # arguments arrive with the declared types
        values.tofile(path)
    n = len(arrays[0])
    return (
        f"static void case_{k}() {{\n" + "\n".join(loads) + f"\n    std::vector<{out_type}> out({n});\n"
        f"    for (size_t i = 0; i < {n}; ++i) {{\n" + "\n".join(decls) + f"\n        {out_type} y;\n"
        f"        {operation}\n        out[i] = y;\n    }}\n"
        f'    save<{out_type}>("{workdir / f"{k}_y.bin"}", out);\n}}\n'
    )


def _run_host_program(functions: list[str], workdir: Path) -> None:
    calls = "\n".join(f"    case_{k}();" for k in range(len(functions)))
    source = workdir / "fused.cpp"
    source.write_text(_HARNESS + "\n".join(functions) + f"int main() {{\n{calls}\n    return 0;\n}}\n")
    binary_path = workdir / "fused"
    built = subprocess.run([_CXX, "-O1", "-std=c++17", "-ffp-contract=off", "-fno-fast-math", "-o", str(binary_path),
                            str(source)], capture_output=True, text=True)  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    subprocess.run([str(binary_path)], check=True)


@pytest.mark.skipif(_CXX is None, reason="no host C++ compiler")
def test_generated_code_matches_numpy_bit_for_bit_on_the_host(tmp_path):
    """The kernel source CuPy would compile, compiled for the CPU without FMA contraction (as with --fmad=false)."""
    cases, expected = [], []
    with fusion_enabled(True, host=True):
        for seed in range(400):
            arrays, expr = random_case(seed, n=257)
            try:
                result = evaluate(expr, [host_column(a) for a in arrays])
            except Exception:  # noqa: BLE001 - the eager path raised: nothing fused to check
                continue
            if not isinstance(result, DeferredColumn) or not result.is_deferred or result._tree.n_nodes < 2:
                continue
            cases.append(fusion.signature(result._tree))
            expected.append(result.data)
    assert len(cases) > 100
    functions = []
    for k, (sig, arrays, scalars) in enumerate(cases):
        functions.append(_host_function(k, *fusion.generate_source(sig), arrays, scalars, tmp_path))
    _run_host_program(functions, tmp_path)
    for k, want in enumerate(expected):
        got = np.fromfile(tmp_path / f"{k}_y.bin", dtype=want.dtype)
        assert_bitwise_equal(got, want)


class _HostKernel:
    """Stands in for ``cupy.ElementwiseKernel``: the same source, compiled for the CPU."""

    built: list[_HostKernel] = []

    def __init__(self, in_params: str, out_params: str, operation: str, name: str = "", options: tuple = ()):
        self.source = (in_params, out_params, operation)
        self.name, self.options, self.calls = name, options, 0
        _HostKernel.built.append(self)

    def __call__(self, *args: Any) -> np.ndarray:
        self.calls += 1
        n_arrays = sum(isinstance(a, np.ndarray) for a in args)
        arrays, scalars = list(args[:n_arrays]), list(args[n_arrays:])
        assert all(not isinstance(s, np.ndarray) for s in scalars)  # arrays first, then scalars
        workdir = Path(self.workdir) / f"call{_HostKernel.built.index(self)}_{self.calls}"
        workdir.mkdir()
        _run_host_program([_host_function(0, *self.source, arrays, scalars, workdir)], workdir)
        return np.fromfile(workdir / "0_y.bin", dtype=np.dtype(self.source[1].split()[0]))


@pytest.mark.skipif(_CXX is None, reason="no host C++ compiler")
def test_kernel_path_with_a_stand_in_namespace(tmp_path, monkeypatch):
    """The GPU branch of materialization (kernel cache, arguments, counters) with ElementwiseKernel on the CPU."""
    import types as _types

    _HostKernel.workdir = str(tmp_path)  # type: ignore[attr-defined]
    fake = _types.SimpleNamespace(__name__="fakecupy", ElementwiseKernel=_HostKernel,
                                  **{name: getattr(np, name) for name in fusion._UFUNCS.values()})  # fmt: skip
    monkeypatch.setattr(fusion, "_KERNELS", fusion.collections.OrderedDict())
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(100), rng.integers(-5, 5, 100).astype(np.int32)
    with fusion_enabled(True, host=True):
        trees = [binary.binary_op(binary.binary_op(host_column(a), host_column(b), "mul"), c, op)
                 for c, op in ((1, "add"), (2.0, "add"), (2.5, "sub"))]  # fmt: skip
    cols = [DeferredColumn(t._tree, t.size, fake) for t in trees]
    before = fusion.stats()
    assert fusion.kernel_for(cols[0]) is fusion.kernel_for(cols[1])  # s * b + 1, s * b + 2: one kernel
    assert fusion.kernel_for(cols[0]).options == ("--fmad=false",)
    assert fusion.kernel_for(cols[2]) is not fusion.kernel_for(cols[0])  # - 2.5: another tree
    for col, expected in zip(cols, (a * b + 1, a * b + 2.0, a * b - 2.5)):
        assert col.xp is fake and col.is_deferred
        got = col.data
        assert col.data is got and not col.is_deferred
        assert got.dtype == col.dtype
        assert_bitwise_equal(got, expected)
    after = fusion.stats()
    assert after["fused_launches"] - before["fused_launches"] == 3
    assert after["kernels_built"] - before["kernels_built"] == 2
    assert sum(k.calls for k in _HostKernel.built[-2:]) == 3


class _BrokenKernel:
    def __init__(self, *args: Any, **kwargs: Any):
        pass

    def __call__(self, *args: Any) -> Any:
        raise RuntimeError("nvrtc: error: a planted compile failure")


@pytest.mark.skipif(_device.is_gpu(), reason="plants a RuntimeError, which stands for CuPy's compile errors without CuPy")
def test_a_kernel_that_does_not_compile_falls_back_once(monkeypatch):
    import types as _types

    fake = _types.SimpleNamespace(__name__="fakecupy", ElementwiseKernel=_BrokenKernel,
                                  **{name: getattr(np, name) for name in fusion._UFUNCS.values()})  # fmt: skip
    monkeypatch.setattr(fusion, "_KERNELS", fusion.collections.OrderedDict())
    monkeypatch.setattr(fusion, "_FAILED", set())
    a = np.arange(5.0)
    with fusion_enabled(True, host=True):
        trees = [binary.binary_op(binary.binary_op(host_column(a), 2.0, "mul"), host_column(a), "add") for _ in range(2)]
    first, second = (DeferredColumn(t._tree, t.size, fake) for t in trees)
    before = fusion.stats()["fallbacks"]
    with pytest.warns(RuntimeWarning, match="could not compile a fused kernel"):
        np.testing.assert_array_equal(first.data, a * 3)
    import warnings as _warnings

    with _warnings.catch_warnings():
        _warnings.simplefilter("error")  # the second time: no new compile attempt, no new warning
        np.testing.assert_array_equal(second.data, a * 3)
    assert fusion.stats()["fallbacks"] == before + 2


# --------------------------------------------------------------------------- GPU: fused kernels against the eager path


@gpu
@pytest.mark.parametrize("seed", range(50))
def test_gpu_fused_matches_eager_bit_for_bit(gpu_fusion, seed):
    arrays, expr = random_case(seed)
    check_fused_matches_eager(arrays, expr)
    assert fusion.stats()["fallbacks"] == 0


@gpu
@given(st.integers(0, 2**32 - 1))
def test_gpu_fused_random(seed):
    arrays, expr = random_case(seed)
    check_fused_matches_eager(arrays, expr)


@gpu
@pytest.mark.parametrize(
    "dtype_a, dtype_b", [("int8", "int32"), ("int32", "uint64"), ("float32", "int8"), ("float32", "float64"),
                         ("uint64", "uint64"), ("int8", "int8"), ("float32", "float32"), ("int32", "float32")],
)  # fmt: skip
def test_gpu_dtype_mixes(gpu_fusion, dtype_a, dtype_b):
    rng = np.random.default_rng(1)
    a, b = random_values(rng, dtype_a, 5000), random_values(rng, dtype_b, 5000)
    exprs = [
        ("add", False, ("mul", False, ("col", 0), ("col", 1)), ("col", 0)),  # a * b + a
        ("sub", False, ("truediv", False, ("col", 0), ("col", 1)), 2),  # a / b - 2 (int / int, x / 0)
        ("mul", False, ("sub", True, ("col", 0), 2), 0.5),  # (2 - a) * 0.5
        ("truediv", True, ("add", False, ("col", 1), 1), 3),  # 3 / (b + 1)
        ("gt", False, ("add", False, ("mul", False, ("col", 0), 2), ("col", 1)), 1),  # a * 2 + b > 1
        ("ne", False, ("sub", False, ("col", 0), ("col", 0)), 0.0),  # a - a != 0 (NaN, inf)
        ("le", False, ("mul", False, ("col", 1), np.float32(1.5)), ("col", 0)),
        ("eq", False, ("add", False, ("col", 0), 1), ("add", False, ("col", 0), 1)),
    ]
    for expr in exprs:
        check_fused_matches_eager([a, b], expr)
    assert fusion.stats()["fallbacks"] == 0


@gpu
def test_gpu_float_specials(gpu_fusion):
    a = np.array([0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 1e308, 5e-324, 3.0], dtype=np.float64)
    b = np.array([0.0, 0.0, 0.0, -0.0, 1.0, np.inf, 2.0, 10.0, 0.5, np.nan], dtype=np.float64)
    with np.errstate(over="ignore"):
        a32 = a.astype(np.float32)  # 1e308 becomes inf
    for op in fusion.FUSABLE_OPS:
        for first in ("add", "mul", "truediv", "sub"):
            check_fused_matches_eager([a, b], (op, False, (first, False, ("col", 0), ("col", 1)), ("col", 1)))
            check_fused_matches_eager([a32, b], (op, True, (first, False, ("col", 0), 1e-3), ("col", 1)))
    ints = np.array([0, 1, -1, 7, -128, 127, 0, 5], dtype=np.int8)
    zeros = np.array([0, 0, 1, 0, 2, -1, 3, 0], dtype=np.int8)
    check_fused_matches_eager([ints, zeros], ("add", False, ("truediv", False, ("col", 0), ("col", 1)), 1))  # int / int
    check_fused_matches_eager([ints, zeros], ("sub", False, ("mul", False, ("col", 0), ("col", 0)), 100))  # wraps


@gpu
def test_gpu_mul_add_is_deferred_and_fused(gpu_fusion):
    a, b = rt.Series(np.arange(10.0)), rt.Series(np.arange(10.0) + 1)
    before = fusion.stats()
    result = a * b + a
    assert isinstance(result._column, DeferredColumn) and result._column.is_deferred
    assert fusion.stats()["fused_launches"] == before["fused_launches"]
    values = result._column.data
    assert fusion.stats()["fused_launches"] == before["fused_launches"] + 1
    assert result._column.data is values  # materialized once
    assert fusion.stats()["fused_launches"] == before["fused_launches"] + 1
    np.testing.assert_array_equal(_device.to_host(values), np.arange(10.0) * (np.arange(10.0) + 1) + np.arange(10.0))


@gpu
def test_gpu_single_op_uses_the_ufunc(gpu_fusion):
    s = rt.Series(np.arange(10.0))
    before = fusion.stats()
    result = s + 1
    assert isinstance(result._column, DeferredColumn)
    assert fusion.kernel_for(result._column) is None
    result._column.data  # noqa: B018
    after = fusion.stats()
    assert after["ufunc_launches"] == before["ufunc_launches"] + 1 and after["kernels_built"] == before["kernels_built"]


@gpu
def test_gpu_kernel_cache_shares_kernels_across_scalars(gpu_fusion):
    s = rt.Series(np.arange(100, dtype=np.int32))
    one, two = s * 2 + 1, s * 2 + 2
    kernel = fusion.kernel_for(one._column)
    assert kernel is not None and fusion.kernel_for(two._column) is kernel
    built = fusion.stats()["kernels_built"]
    np.testing.assert_array_equal(one.to_pandas().to_numpy(), np.arange(100, dtype=np.int32) * 2 + 1)
    np.testing.assert_array_equal(two.to_pandas().to_numpy(), np.arange(100, dtype=np.int32) * 2 + 2)
    assert fusion.stats()["kernels_built"] == built
    other = rt.Series(np.arange(100, dtype=np.int32) + 5)
    assert fusion.kernel_for((other * 2 + 7)._column) is kernel  # other arrays, same signature


@gpu
def test_gpu_cap_keeps_kernels_bounded(gpu_fusion):
    base = np.arange(1000, dtype=np.float64)
    for _ in range(2):  # the second pass compiles nothing new
        built = fusion.stats()["kernels_built"]
        s = rt.Series(base)
        for _ in range(100):
            s = s + 1
            assert s._column._tree is None or s._column._tree.n_nodes <= fusion.MAX_NODES
        np.testing.assert_array_equal(s.to_pandas().to_numpy(), base + 100)
        assert fusion.stats()["kernels_built"] - built <= fusion.MAX_NODES - 1
    assert fusion.stats()["kernels_built"] == built


@gpu
def test_gpu_results_feed_the_frame(gpu_fusion):
    rng = np.random.default_rng(7)
    pdf = pd.DataFrame({"a": rng.standard_normal(10_000), "b": rng.integers(-50, 50, 10_000), "c": rng.random(10_000)})
    df = rt.from_pandas(pdf)
    assert isinstance((df.a * 2 + df.b)._column, DeferredColumn)
    pd.testing.assert_frame_equal(df[(df.a * 2 + df.b) > 1].to_pandas(), pdf[(pdf.a * 2 + pdf.b) > 1])
    pd.testing.assert_series_equal((df.a * df.c - df.a / df.c).to_pandas(), pdf.a * pdf.c - pdf.a / pdf.c)
    assert (df.a * df.c + df.a).sum() == pytest.approx((pdf.a * pdf.c + pdf.a).sum(), rel=1e-9)
    assert (df.b * 3 - 2).max() == (pdf.b * 3 - 2).max()
    assert ((df.a * 2 + df.b) > 1).sum() == ((pdf.a * 2 + pdf.b) > 1).sum()
    pd.testing.assert_series_equal(((df.b * 3 + 1) ** 2).to_pandas(), (pdf.b * 3 + 1) ** 2)  # then an eager op
    pd.testing.assert_series_equal((2 - df.b / 4).to_pandas(), 2 - pdf.b / 4)
    pd.testing.assert_series_equal(((df.a + 1) * (df.c - 1)).round(3).to_pandas(), ((pdf.a + 1) * (pdf.c - 1)).round(3))
    df["d"] = df.a * df.c + 1
    pdf["d"] = pdf.a * pdf.c + 1
    pd.testing.assert_frame_equal(df.to_pandas(), pdf)
    assert fusion.stats()["fallbacks"] == 0


@gpu
def test_gpu_device_residency(gpu_fusion):
    cupy = xp()
    result = rt.Series(np.arange(5.0)) * 2 + 1
    assert result._column.xp is cupy
    assert isinstance(result._column.data, cupy.ndarray)
