"""Floats to text (riptide/core/ops/format_float.py): Python's ``repr`` / NumPy's ``str``, and ``astype(str)``.

The NumPy path is checked against ``repr`` (float64) and ``ndarray.astype(str)`` (float32) on random bit patterns
and the boundary cases; the CUDA source is compiled with g++ behind a small shim and run on the CPU against the same
oracle (its logic, not its launch shape, which the GPU tests cover).
"""

from __future__ import annotations

import ctypes
import math
import os
import shutil
import subprocess
import tempfile
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.core.ops import format_float as ff


def texts(values: np.ndarray) -> list[str]:
    offsets, chars = ff.float_text(values)
    data = bytes(chars)
    return [data[offsets[i] : offsets[i + 1]].decode() for i in range(values.shape[0])]


def oracle(values: np.ndarray) -> list[str]:
    return [repr(v) for v in values.tolist()] if values.dtype == np.float64 else values.astype(str).tolist()


def edge_float64() -> np.ndarray:
    exponents = np.arange(0, 2047, dtype=np.uint64) << np.uint64(52)
    fractions = np.array([0, 1, 2, 3, (1 << 52) - 1, (1 << 52) - 2, 1 << 51, 12345678901234], dtype=np.uint64)
    grid = (exponents[:, None] | fractions[None, :]).ravel().view(np.float64)
    named = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 5e-324, 1e-323, 1.7976931348623157e308, 2.0**53,
             2.0**53 + 2, 2.0**53 - 1, 2.0**53 + 1, 1e-4, 9.999999999999999e-05, 1e16, 9999999999999998.0, 0.1, 0.3,
             1e23, 2.2250738585072014e-308, 2.225073858507201e-308, 123.0, 1e15, 1e-5, 1743829569681555.2,
             -2.181915523224796e17, 4.5759173061719896e16]  # fmt: skip
    powers = [10.0**i for i in range(-323, 309)] + [2.0**i for i in range(-1074, 1024)]
    return np.concatenate([grid, np.array(named + powers), -np.array(powers)])


def edge_float32() -> np.ndarray:
    exponents = np.arange(0, 256, dtype=np.uint32) << np.uint32(23)
    fractions = np.array([0, 1, 2, 3, (1 << 23) - 1, (1 << 23) - 2, 1 << 22], dtype=np.uint32)
    grid = (exponents[:, None] | fractions[None, :]).ravel().view(np.float32)
    named = np.array([1e-4, 1e6, 999999.94, 0.000100000005, 1.5e-45, 3.4028235e38, 16777216.0, 0.1, 1e-5, 0.0,
                      -0.0, 1101841.25, 125056296.0, 1e16], dtype=np.float32)  # fmt: skip
    return np.concatenate([grid, named, -named])


# --- the algorithm against the oracle ------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=50))
def test_repr_of_hypothesis_floats(values):
    array = np.array(values, dtype=np.float64)
    assert texts(array) == oracle(array)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(width=32), min_size=1, max_size=50))
def test_float32_str_of_hypothesis_floats(values):
    array = np.array(values, dtype=np.float32)
    assert texts(array) == oracle(array)


@pytest.mark.parametrize("seed", [0, 1])
def test_random_bit_patterns(seed):
    rng = np.random.default_rng(seed)
    doubles = rng.integers(0, 2**64, 100_000, dtype=np.uint64).view(np.float64)
    assert texts(doubles) == oracle(doubles)
    singles = rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    assert texts(singles) == oracle(singles)


def test_decimal_like_values():
    rng = np.random.default_rng(3)
    scale = 10.0 ** rng.integers(-12, 22, 50_000)
    values = np.array([round(v, int(d)) for v, d in zip((rng.standard_normal(50_000) * scale).tolist(),
                                                       rng.integers(0, 10, 50_000))])  # fmt: skip
    assert texts(values) == oracle(values)
    assert texts(values.astype(np.float32)) == oracle(values.astype(np.float32))


def test_boundaries():
    for values in (edge_float64(), edge_float32()):
        got, expected = texts(values), oracle(values)
        assert [(v, g, e) for v, g, e in zip(values.tolist(), got, expected) if g != e] == []


def test_layout_examples():
    values = np.array([1e-5, 1e16, 1.5e300, 3.0, np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0001, 123456789012345678.0])
    assert texts(values) == ["1e-05", "1e+16", "1.5e+300", "3.0", "nan", "nan", "inf", "-inf", "-0.0", "0.0001",
                             "1.2345678901234568e+17"]  # fmt: skip
    assert texts(np.array([1e6, 123456.7, 1e-4], dtype=np.float32)) == ["1e+06", "123456.7", "1e-04"]
    assert texts(np.zeros(0)) == []


def test_log_approximations_are_exact():
    # floor(q log10 2), floor(log10(3/4 2**q)) and floor(e log2 10) by integer multiply-shift, over every exponent used.
    for q in range(-1100, 1000):
        k = (q * 315653) >> 20
        assert Fraction(10) ** k <= Fraction(2) ** q < Fraction(10) ** (k + 1)
        k3 = (q * 315653 - 131008) >> 20
        assert Fraction(10) ** k3 <= Fraction(3, 4) * Fraction(2) ** q < Fraction(10) ** (k3 + 1)
    for e in range(-330, 330):
        n2 = (e * 1741647) >> 19
        assert Fraction(2) ** n2 <= Fraction(10) ** e < Fraction(2) ** (n2 + 1)


def test_power_table():
    for k in (-324, -39, -38, -1, 0, 1, 292):
        g = (int(ff._G_HIGH[k - ff._K_MIN]) << 64) | int(ff._G_LOW[k - ff._K_MIN])
        e = -k
        floor_log2 = (10**e).bit_length() - 1 if e >= 0 else -((10**-e).bit_length())
        scale = Fraction(10) ** e * Fraction(2) ** (127 - floor_log2)
        # exact where the table says so (the kernels then keep every product bit), else an over-approximation
        assert g == (scale if -38 <= k <= 0 else math.floor(scale) + 1)
        assert -38 <= k <= 0 or scale.denominator != 1 or e > 38


# --- astype(str) -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32", "Float64", "Float32"])
def test_astype_str_matches_pandas(dtype):
    values = [1.5, None, 1e-5, -0.0, 1e16, 0.1, float("inf"), -float("inf"), 1e6, 123456.7, 5e-324, 0.0001]
    expected = pd.Series(values, dtype=dtype).astype(str)
    got = rt.Series(pd.Series(values, dtype=dtype)).astype(str).to_pandas()
    pd.testing.assert_series_equal(got, expected)


def test_astype_str_nan_and_null_of_nullable_floats():
    source = pd.Series([0.0, 1.0, None], dtype="Float64") / pd.Series([0.0, 2.0, 1.0], dtype="Float64")
    pd.testing.assert_series_equal(rt.Series(source).astype(str).to_pandas(), source.astype(str))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats()), max_size=30), st.sampled_from(["float64", "float32", "Float64"]))
def test_series_astype_str_hypothesis(values, dtype):
    source = pd.Series(values, dtype="float64").astype(dtype)
    pd.testing.assert_series_equal(rt.Series(source).astype(str).to_pandas(), source.astype(str))


def test_frame_astype_str():
    source = pd.DataFrame({"a": [1.25, np.nan], "b": np.array([0.1, 2.0], dtype=np.float32), "c": [1, 2]})
    pd.testing.assert_frame_equal(rt.DataFrame(source).astype(str).to_pandas(), source.astype(str))


# --- the CUDA source, compiled by g++ and run on the CPU ------------------------------------------------------
_SHIM = r"""
#include <cstdint>
#include <cstring>
struct riptide_emu_dim3 { unsigned int x, y, z; };
static const riptide_emu_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
#define __global__
#define __device__
#define __forceinline__ inline
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
"""


@pytest.fixture(scope="module")
def emulated_kernels():
    if shutil.which("g++") is None:
        pytest.skip("needs g++ to run the CUDA source on the CPU")
    with tempfile.TemporaryDirectory() as d:
        source, library = os.path.join(d, "k.cpp"), os.path.join(d, "k.so")
        with open(source, "w") as f:
            f.write(_SHIM + ff.FORMAT_SOURCE)
        done = subprocess.run(["g++", "-O1", "-shared", "-fPIC", "-o", library, source], capture_output=True,
                              text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        yield ctypes.CDLL(library)


def run_emulated(lib, values: np.ndarray) -> list[str]:
    n = values.shape[0]
    values = np.ascontiguousarray(values)
    table = np.ascontiguousarray(np.stack([ff._G_HIGH, ff._G_LOW], axis=1).reshape(-1))
    slots = np.zeros(max(n, 1) * 24, dtype=np.uint8)
    lengths = np.zeros(n, dtype=np.int64)
    p = ctypes.c_void_p
    lib.riptide_format_float(p(values.ctypes.data), ctypes.c_int(values.dtype.itemsize == 4), ctypes.c_longlong(n),
                             p(table.ctypes.data), p(slots.ctypes.data), p(lengths.ctypes.data))  # fmt: skip
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    chars = np.zeros(int(offsets[-1]), dtype=np.uint8)
    lib.riptide_compact_slots(p(slots.ctypes.data), ctypes.c_longlong(n), p(offsets.ctypes.data), p(chars.ctypes.data))
    data = bytes(chars)
    return [data[offsets[i] : offsets[i + 1]].decode() for i in range(n)]


def test_cuda_source_matches_oracle(emulated_kernels):
    rng = np.random.default_rng(5)
    doubles = np.concatenate([edge_float64(), rng.integers(0, 2**64, 50_000, dtype=np.uint64).view(np.float64),
                              np.round(rng.random(10_000) * 100, 6)])  # fmt: skip
    assert run_emulated(emulated_kernels, doubles) == oracle(doubles)
    singles = np.concatenate([edge_float32(), rng.integers(0, 2**32, 50_000, dtype=np.uint64).astype(np.uint32).view(np.float32)])
    assert run_emulated(emulated_kernels, singles) == oracle(singles)
