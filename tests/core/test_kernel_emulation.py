"""riptide's hand-written CUDA kernels run on the CPU, compiled by g++, against their NumPy twins.

CI has no GPU, so a kernel's *logic* would otherwise only meet its twin on the GPU host. Each source is compiled as
C++ behind a small shim (``__global__`` / ``__device__`` dropped, a grid of one block of one thread, so every
grid-stride loop walks all rows in one call; warp votes over one lane; ``__umul64hi`` by 128-bit arithmetic) into a
shared library that ctypes calls with NumPy buffers. What this cannot see: races, warp divergence, shared-memory
sizing, launch shapes; those stay for the GPU tests.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riptide.core import dtypes
from riptide.core.kernels import datetime_kernels as dk
from riptide.core.ops import datetime_fields as fields
from riptide.core.regex import dfa as regex_dfa
from riptide.core.regex import match as regex_match

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to run the kernels on the CPU")

NAT = dtypes.NAT
UNITS = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}

SHIM = r"""
#include <cstdint>
#include <cstddef>
#include <cstring>
struct riptide_emu_dim3 { unsigned int x, y, z; };
static const riptide_emu_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __syncthreads() ((void)0)
#define __syncwarp(m) ((void)0)
#define __ldg(p) (*(p))
#define __launch_bounds__(...)
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline double __longlong_as_double(long long v) { double d; std::memcpy(&d, &v, 8); return d; }
static inline int __any_sync(unsigned, int p) { return p != 0; }
static inline int __all_sync(unsigned, int p) { return p != 0; }
static inline unsigned __ballot_sync(unsigned, int p) { return p != 0; }
static inline unsigned __reduce_or_sync(unsigned, unsigned v) { return v; }
static inline unsigned __reduce_add_sync(unsigned, unsigned v) { return v; }
template <typename T> static inline T __shfl_sync(unsigned, T v, int, int = 32) { return v; }
static inline unsigned int __activemask() { return 1u; }  // one emulated thread: lane 0 alone
static inline int __ffs(unsigned int v) { return __builtin_ffs((int)v); }
static inline int __popc(unsigned int v) { return __builtin_popcount(v); }
// declared for the prelude's helpers; defined with the table kernels' atomics (_ATOMICS) where they run
template <typename T, typename U> static inline T atomicAdd(T* p, U v);
template <typename T> static inline T atomicOr(T* p, T v) { T old = *p; *p |= v; return old; }
template <typename T> static inline T atomicExch(T* p, T v) { T old = *p; *p = v; return old; }
struct ulonglong2 { unsigned long long x, y; };
static inline ulonglong2 make_ulonglong2(unsigned long long x, unsigned long long y) { return {x, y}; }
template <typename T> static inline T __ldcg(const T* p) { return *p; }
template <typename T> static inline T __ldcs(const T* p) { return *p; }
template <typename T> static inline void __stcg(T* p, T v) { *p = v; }
"""

_MACROS = ("FIELD", "PER_SECOND", "OUT_T", "NAT_VALUE", "NAT_TICKS", "PER_DAY", "LANES")


def build(variants: list[tuple[str, str, dict[str, str]]]) -> ctypes.CDLL:
    """One shared library holding each ``(source, kernel name, defines)`` variant, the kernel renamed to
    ``<name>_<index>`` and the rest of the source in a namespace of its own (so helpers do not clash)."""
    parts = [SHIM]
    for k, (source, name, defines) in enumerate(variants):
        # dynamic shared memory becomes a static array (one emulated block)
        source = re.sub(r"extern __shared__ ([\w ]+?) (\w+)\[\];", r"static \1 \2[1 << 16];", source)
        parts += [f"#undef {m}" for m in _MACROS]
        parts += [f"#define {key} {value}" for key, value in defines.items()]
        parts.append(f"namespace riptide_variant_{k} {{\n{source.replace(name + '(', f'{name}_{k}(')}\n}}")
    text = "\n".join(parts)
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    directory = os.path.join(tempfile.gettempdir(), "riptide_kernel_emulation")
    os.makedirs(directory, exist_ok=True)
    library = os.path.join(directory, f"{digest}.so")
    if not os.path.exists(library):
        path = os.path.join(directory, f"{digest}.cpp")
        with open(path, "w") as f:
            f.write(text)
        partial = library + f".{os.getpid()}"
        done = subprocess.run(["g++", "-O1", "-std=c++17", "-shared", "-fPIC", "-w", "-o", partial, path],
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        os.replace(partial, library)
    return ctypes.CDLL(library)


def ptr(array: np.ndarray | None) -> ctypes.c_void_p:
    return ctypes.c_void_p(0 if array is None else array.ctypes.data)


# --- datetime fields ---------------------------------------------------------------------------------------------
_FIELD_NAMES = [*fields.INT_FIELDS, *fields.BOOL_FIELDS]
_TD_NAMES = list(fields.TIMEDELTA_FIELDS)
# Every field in every unit as the raw output the xp twin gives (int64 / bool), then pandas' result types.
_RAW = [(name, unit) for name in _FIELD_NAMES + [f"td_{n}" for n in _TD_NAMES] for unit in UNITS]
_TYPED = [("year", "ns", "int"), ("day_of_year", "s", "int"), ("month", "us", "double"), ("day", "ms", "double"),
          ("td_days", "ns", "i64"), ("td_seconds", "s", "double")]  # fmt: skip
_NAN = "__longlong_as_double(0x7ff8000000000000LL)"


def _field_defines(name: str, unit: str, c_type: str) -> dict[str, str]:
    nat = {"double": _NAN, "bool": "false"}.get(c_type, "0")
    return {"FIELD": str(dk.FIELD_CODES[name]), "PER_SECOND": f"{UNITS[unit]}LL", "OUT_T": c_type, "NAT_VALUE": nat}


@pytest.fixture(scope="module")
def field_library() -> tuple[ctypes.CDLL, dict]:
    variants, index = [], {}
    for name, unit in _RAW:
        c_type = "bool" if name in fields.BOOL_FIELDS else "i64"
        index[(name, unit, "raw")] = len(variants)
        variants.append((dk.FIELD_SOURCE, "riptide_datetime_field", _field_defines(name, unit, c_type)))
    for name, unit, c_type in _TYPED:
        index[(name, unit, c_type)] = len(variants)
        variants.append((dk.FIELD_SOURCE, "riptide_datetime_field", _field_defines(name, unit, c_type)))
    variants.append((dk.ROUND_SOURCE, "riptide_round_ticks", {}))
    index["round"] = len(variants) - 1
    return build(variants), index


_C_DTYPES = {"raw": None, "int": np.int32, "i64": np.int64, "double": np.float64, "bool": np.bool_}


def run_field(library: tuple, name: str, unit: str, ticks: np.ndarray, c_type: str = "raw") -> tuple[np.ndarray, int]:
    lib, index = library
    dtype = _C_DTYPES[c_type] or (np.bool_ if name in fields.BOOL_FIELDS else np.int64)
    out = np.full(ticks.shape[0], 7, dtype=dtype)
    flag = np.zeros(1, dtype=np.int32)
    ticks = np.ascontiguousarray(ticks, dtype=np.int64)
    kernel = getattr(lib, f"riptide_datetime_field_{index[(name, unit, c_type)]}")
    kernel(ptr(ticks), ctypes.c_longlong(ticks.shape[0]), ptr(out), ptr(flag))
    return out, int(flag[0])


def _edge_ticks(per_second: int) -> np.ndarray:
    """Day and leap-year boundaries around the epoch, 1900, 2000, far past and future, and int64's ends."""
    per_day = 86_400 * per_second
    days = np.array([0, -1, 1, 59, 60, -365, -366, 11_016, 10_957, 10_956, -25_567, -25_508, -719_468, -719_469,
                     -12_699_422, -12_699_423, 987_300_577, 987_300_578, 2_932_896, 106_751], dtype=np.int64)  # fmt: skip
    near = (days[:, None] * per_day + np.array([-1, 0, 1, per_day // 2])[None, :]).ravel()
    i64 = np.iinfo(np.int64)
    extremes = np.array([i64.max, i64.min + 1, i64.min + 2, i64.max - 1, i64.min + per_day, -per_day], dtype=np.int64)
    return np.concatenate([near, extremes])


def _random_ticks(rng: np.random.Generator, per_second: int, n: int) -> np.ndarray:
    i64 = np.iinfo(np.int64)
    wide = rng.integers(i64.min + 1, i64.max, n, dtype=np.int64, endpoint=True)
    # mostly within +-400 years, where the calendar is busy
    near = rng.integers(-146_097 * 86_400, 146_097 * 86_400, n, dtype=np.int64)
    near = near * min(per_second, 10**6) + rng.integers(0, per_second, n, dtype=np.int64) % per_second
    return np.concatenate([wide[: n // 4], near])


@pytest.mark.parametrize("unit", list(UNITS))
def test_field_kernel_matches_twin_everywhere(field_library, unit):
    per_second = UNITS[unit]
    rng = np.random.default_rng(UNITS[unit])
    ticks = np.concatenate([_edge_ticks(per_second), _random_ticks(rng, per_second, 4_000), [NAT]])
    valid = ticks != NAT
    for name in _FIELD_NAMES:
        expected = fields.date_field(ticks, unit, name, np)
        got, saw_nat = run_field(field_library, name, unit, ticks)
        assert saw_nat == 1
        np.testing.assert_array_equal(got[valid], expected[valid], err_msg=f"{name} {unit}")
    for name in _TD_NAMES:
        expected = fields.timedelta_component(ticks, unit, name, np)
        got, _ = run_field(field_library, f"td_{name}", unit, ticks)
        np.testing.assert_array_equal(got[valid], expected[valid], err_msg=f"td {name} {unit}")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**63) + 1, 2**63 - 1), min_size=1, max_size=40), st.sampled_from(list(UNITS)),
       st.sampled_from(["year", "day_of_year", "is_month_end", "day_of_week", "microsecond", "days_in_month"]))
def test_field_kernel_random(field_library, values, unit, name):
    ticks = np.array(values, dtype=np.int64)
    got, saw_nat = run_field(field_library, name, unit, ticks)
    assert saw_nat == 0
    np.testing.assert_array_equal(got, fields.date_field(ticks, unit, name, np))


@pytest.mark.parametrize("name,unit,c_type", _TYPED)
def test_field_kernel_result_types(field_library, name, unit, c_type):
    """The kernel writes pandas' result dtype directly: NaN / 0 at NaT and the flag raised."""
    per_second = UNITS[unit]
    ticks = np.concatenate([_edge_ticks(per_second)[:40], [NAT, 0]])
    got, saw_nat = run_field(field_library, name, unit, ticks, c_type)
    assert saw_nat == 1
    twin = fields.timedelta_component if name.startswith("td_") else fields.date_field
    raw = twin(ticks, unit, name.removeprefix("td_"), np)
    nat = ticks == NAT
    if c_type == "double":
        np.testing.assert_array_equal(got, fields.field_result(raw, nat, True))
    else:
        np.testing.assert_array_equal(got[~nat], raw[~nat].astype(got.dtype))
        assert (got[nat] == 0).all()
    clean, saw_nat = run_field(field_library, name, unit, ticks[~nat], c_type)
    assert saw_nat == 0 and (clean == got[~nat]).all()


# --- rounding ----------------------------------------------------------------------------------------------------
def run_round(library: tuple, ticks: np.ndarray, step: int, mode: str) -> tuple[np.ndarray, int]:
    lib, index = library
    ticks = np.ascontiguousarray(ticks, dtype=np.int64)
    out = np.zeros(ticks.shape[0], dtype=np.int64)
    overflow = np.zeros(1, dtype=np.int32)
    magic, sh1, sh2 = dk.division_magic(step)
    getattr(lib, f"riptide_round_ticks_{index['round']}")(
        ptr(ticks), ctypes.c_longlong(ticks.shape[0]), ctypes.c_longlong(step), ctypes.c_ulonglong(magic),
        ctypes.c_int(sh1), ctypes.c_int(sh2), ctypes.c_int(dk.ROUND_MODES[mode]), ptr(out), ptr(overflow))  # fmt: skip
    return out, int(overflow[0])


def _twin_round(ticks: np.ndarray, step: int, mode: str) -> tuple[np.ndarray | None, bool]:
    with np.errstate(over="ignore"):
        try:
            return fields.round_ticks(ticks, step, mode, np), False
        except OverflowError:
            return None, True


_STEPS = [1, 2, 3, 7, 10, 60, 1_000, 3_600, 86_400, 900 * 10**9, 3_600 * 10**9, 86_400 * 10**9, 2**40 + 1,
          2**62, 2**63 - 1]  # fmt: skip


@pytest.mark.parametrize("mode", list(dk.ROUND_MODES))
@pytest.mark.parametrize("step", _STEPS)
def test_round_kernel_matches_twin(field_library, step, mode):
    rng = np.random.default_rng(step % 1000)
    i64 = np.iinfo(np.int64)
    around = [0, 1, -1, step, -step, step // 2, -(step // 2), step // 2 + 1, -(step // 2) - 1, 3 * step // 2,
              -3 * step // 2, 5 * step // 2, NAT]  # fmt: skip
    ticks = np.concatenate([
        np.array([v for v in around if i64.min <= v <= i64.max], dtype=np.int64),
        rng.integers(-(10**17), 10**17, 300, dtype=np.int64),
        rng.integers(-(2**40), 2**40, 300, dtype=np.int64) * (step % 1_000_003 + 1) % (2**62),
    ])
    ends = np.array([i64.max, i64.max - 1, i64.min + 1, i64.min + 2, i64.max - step // 2, i64.min + step // 2 + 1])
    _check_round(field_library, np.concatenate([ticks, ends]), step, mode)


def _check_round(library: tuple, ticks: np.ndarray, step: int, mode: str) -> None:
    """The kernel's results and overflow flag are the twin's (value by value where the twin raises)."""
    expected, raised = _twin_round(ticks, step, mode)
    got, overflow = run_round(library, ticks, step, mode)
    assert bool(overflow) == raised
    if not raised:
        np.testing.assert_array_equal(got, expected)
        return
    for value in ticks:
        one = np.array([value], dtype=np.int64)
        expected, raised = _twin_round(one, step, mode)
        got, overflow = run_round(library, one, step, mode)
        assert bool(overflow) == raised, (value, step, mode)
        if not raised:
            assert got[0] == expected[0], (value, step, mode)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-(2**63) + 1, 2**63 - 1), min_size=1, max_size=20), st.integers(1, 2**63 - 1),
       st.sampled_from(list(dk.ROUND_MODES)))
def test_round_kernel_random(field_library, values, step, mode):
    _check_round(field_library, np.array(values, dtype=np.int64), step, mode)


# --- the CuPy paths end to end, on a stand-in CuPy ---------------------------------------------------------------
class _EmulatedRawKernel:
    """``cupy.RawKernel`` whose launch runs the g++-compiled source on NumPy buffers (grid and block ignored)."""

    def __init__(self, source: str, name: str, options: tuple = ()):
        defines = {"LANES": "1"}  # a warp of one lane: the emulated grid is one thread
        for option in options:
            key, _, value = option.removeprefix("-D").partition("=")
            defines[key] = value or "1"
        self.function = getattr(build([(source, name, defines)]), f"{name}_0")

    def __call__(self, grid: tuple, block: tuple, args: tuple, shared_mem: int = 0) -> None:
        converted = []
        for arg in args:
            if isinstance(arg, np.ndarray):
                assert arg.flags.c_contiguous
                converted.append(ptr(arg))
            elif isinstance(arg, np.int64):
                converted.append(ctypes.c_longlong(int(arg)))
            elif isinstance(arg, np.int32):
                converted.append(ctypes.c_int(int(arg)))
            elif isinstance(arg, np.uint64):
                converted.append(ctypes.c_ulonglong(int(arg)))
            elif isinstance(arg, np.float64):
                converted.append(ctypes.c_double(float(arg)))
            else:
                raise TypeError(f"kernel argument of type {type(arg).__name__}")
        self.function(*converted)


@pytest.fixture
def fake_cupy(monkeypatch):
    """A stand-in ``cupy`` module (NumPy's functions, emulated RawKernel) installed for one test; riptide's kernel
    caches are cleared before and after, so no emulated kernel outlives the test."""
    import sys
    import types as pytypes

    from riptide.core.kernels import segments
    from riptide.core.kernels import strings as sk

    fake = pytypes.ModuleType("cupy")
    fake.__dict__.update({k: v for k, v in np.__dict__.items() if not k.startswith("__")})
    fake.RawKernel = _EmulatedRawKernel
    fake.cuda = pytypes.SimpleNamespace(runtime=pytypes.SimpleNamespace(getDevice=lambda: 0))
    # compile_program's cached programs keep their device copies of the tables per (module name, device)
    caches = (dk._field_kernel, dk._round_kernel, sk._kernel, regex_match._kernel, regex_dfa.compile_program,
              segments._gather_kernel, segments._spans_kernel, segments._small_take_kernel)
    for cache in caches:
        cache.cache_clear()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    yield fake
    for cache in caches:
        cache.cache_clear()


def test_fake_cupy_datetime_paths(fake_cupy):
    rng = np.random.default_rng(5)
    for unit, per_second in UNITS.items():
        ticks = np.concatenate([_edge_ticks(per_second), _random_ticks(rng, per_second, 500)])
        with_nat = np.concatenate([ticks, [NAT]])
        for name in ("year", "day_of_year", "is_quarter_end", "nanosecond"):
            np.testing.assert_array_equal(fields.date_field(ticks, unit, name, fake_cupy),
                                          fields.date_field(ticks, unit, name, np))  # fmt: skip
            for values in (ticks, with_nat):
                got = fields.date_field_values(values, unit, name, fake_cupy)
                expected = fields.date_field_values(values, unit, name, np)
                assert got.dtype == expected.dtype, (name, unit)
                np.testing.assert_array_equal(got, expected)
        for name in fields.TIMEDELTA_FIELDS:
            for values in (ticks, with_nat):
                got = fields.timedelta_component_values(values, unit, name, fake_cupy)
                expected = fields.timedelta_component_values(values, unit, name, np)
                assert got.dtype == expected.dtype
                np.testing.assert_array_equal(got, expected)
        for step, mode in ((3_600 * per_second, "floor"), (900 * per_second, "ceil"), (2 * per_second, "round"),
                           (7, "round"), (1, "floor")):  # fmt: skip
            inside = np.concatenate([_edge_ticks(per_second)[:-6], [NAT, 1, -1]])  # no int64 extremes
            np.testing.assert_array_equal(fields.round_ticks(inside, step, mode, fake_cupy),
                                          fields.round_ticks(inside, step, mode, np))  # fmt: skip
    with pytest.raises(OverflowError):
        fields.round_ticks(np.array([np.iinfo(np.int64).max - 5]), 10, "ceil", fake_cupy)
    with pytest.raises(ValueError, match="unknown datetime field"):
        fields.date_field_values(np.array([0]), "ns", "days", fake_cupy)
    assert fields.date_field_values(np.zeros(0, np.int64), "ns", "year", fake_cupy).dtype == np.int32


def _string_column(values: list):
    import pyarrow as pa

    from riptide.core.column import StringColumn

    return StringColumn.from_arrow(pa.array(values, type=pa.large_string()), np)


@pytest.fixture
def on_fake_device(fake_cupy, monkeypatch):
    """Columns report the stand-in CuPy as their namespace, so riptide's CuPy branches run (on NumPy buffers)."""
    from riptide.core.column import base

    monkeypatch.setattr(base.Column, "xp", property(lambda self: fake_cupy))
    return fake_cupy


def _both(function, values: list, *args):
    """(result on the stand-in device, result on the CPU path) of ``function(column, *args)``."""
    from riptide.core.column import base

    device = function(_string_column(values), *args)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(base.Column, "xp", property(lambda self: np))
        host = function(_string_column(values), *args)
    return device, host


def _same(device, host) -> None:
    from riptide.core.column import StringColumn

    if isinstance(host, StringColumn):
        assert device.to_arrow().to_pylist() == host.to_arrow().to_pylist()
        return
    assert device.data.dtype == host.data.dtype
    np.testing.assert_array_equal(device.data, host.data)


_TEXT = ["", "a", "ab", "abab", "xaby", "ba", None, "aaaa", "héllo wörld", "中文ab😀", "AbC dEf", "b" * 300 + "ab",
         "a" * 7 + "b", "abcdefghij", "zabcdefghijz", "\n", "ABCDEFGHIJKLMNOP" * 5]  # fmt: skip
_PATTERNS = ["a", "ab", "ba", "aa", "é", "😀", "abcdefgh", "abcdefghi", "bcdefghij", "zz", "b" * 12, "中文", "\n", "Ab"]


@pytest.mark.parametrize("warp_rows", [False, True])
def test_fake_cupy_contains_literal(on_fake_device, monkeypatch, warp_rows):
    from riptide.core.kernels import strings as sk
    from riptide.core.ops import string_ops

    if warp_rows:  # every column takes the warp-per-row kernel
        monkeypatch.setattr(sk, "_WARP_ROW_BYTES", -1)
    for pattern in _PATTERNS + [""]:
        for na in (None, True, False):
            _same(*_both(string_ops.contains, _TEXT, pattern, na))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.none(), st.text(alphabet="abcé中 ", max_size=30)), max_size=25),
       st.text(alphabet="abcé中", min_size=1, max_size=10), st.booleans())
def test_fake_cupy_contains_random(fake_cupy, values, pattern, warp_rows):
    from riptide.core.column import base
    from riptide.core.kernels import strings as sk
    from riptide.core.ops import string_ops

    with pytest.MonkeyPatch.context() as m:
        m.setattr(base.Column, "xp", property(lambda self: fake_cupy))
        m.setattr(sk, "_WARP_ROW_BYTES", -1 if warp_rows else 96)
        _same(*_both(string_ops.contains, values, pattern, None))
        _same(*_both(string_ops.startswith, values, (pattern, pattern[:1]), True))
        _same(*_both(string_ops.endswith, values, pattern, None))


def test_fake_cupy_affixes(on_fake_device):
    from riptide.core.ops import string_ops

    for pat in ["a", "ab", "", ("a", "x"), ("", "zz"), ("ABCDEFGHIJKLMNOPQ", "中"), "b" * 301, ("😀",), ()]:
        for na in (None, True):
            _same(*_both(string_ops.startswith, _TEXT, pat, na))
            _same(*_both(string_ops.endswith, _TEXT, pat, na))


@pytest.mark.parametrize("kind", ["lower", "upper", "swapcase", "casefold", "capitalize", "title"])
def test_fake_cupy_case_mapping(on_fake_device, kind):
    from riptide.core.ops import string_ops

    ascii_rows = ["AbC dEf", "", None, "x1Y2", "HELLO world" * 3]
    _same(*_both(string_ops.change_case, ascii_rows, kind))
    _same(*_both(string_ops.change_case, _TEXT, kind))  # non-ASCII: the code-point path
    # a column whose buffers start off a word boundary: the kernels' byte-wise edges
    column = _string_column(["zAbCdEfGhIjK", "Q", "ß", "mNoP"]).take(np.array([0, 1, 3]))
    assert string_ops.change_case(column, "upper").to_arrow().to_pylist() == ["ZABCDEFGHIJK", "Q", "MNOP"]


def test_fake_cupy_is_ascii(on_fake_device):
    from riptide.core.ops import string_ops

    for size in range(0, 40):
        for position in (None, 0, size // 2, size - 1):
            data = bytearray(b"a" * size)
            if position is not None and size:
                data[position] = 0xC3
            for start in (0, 1, 3):  # off an 8-byte boundary
                chars = np.frombuffer(bytes(b"x" * start + data), dtype=np.uint8)[start:]
                from riptide.core.column import StringColumn

                column = StringColumn(np.array([0, size], dtype=np.int64), chars)
                assert string_ops._is_ascii(column) == (position is None or size == 0), (size, position, start)


_REGEX_TEXT = ["", "a", "ab@cd.com", "x ab@cde.com", "no", "a\n", "\n", "b\nb", None, "aaa@bbb.co", "héllo@wörld.com",
               "abc" * 30 + "q@rs.com", "Q@R.COM", "tail a"]  # fmt: skip
_REGEXES = [r"[a-z]+@[a-z]+\.com", "a$", "^b", "\n$", "b$", "a|y", "x*", "é", r"\bab", "com$", "^$", "(a|b)c*d?",
            "[^a]", r"\d+", "^a.*a$"]  # fmt: skip


@pytest.mark.parametrize("pattern", _REGEXES)
def test_fake_cupy_regex_contains(on_fake_device, pattern):
    from riptide.core.regex import ops as regex_ops

    for function in (regex_ops.contains, regex_ops.match, regex_ops.fullmatch):
        for rows in (_REGEX_TEXT, [r for r in _REGEX_TEXT if r is None or r.isascii()]):
            if r"\b" in pattern and rows is _REGEX_TEXT:  # Unicode word boundaries: the engine declines
                with pytest.raises(regex_ops.Unsupported):
                    function(_string_column(rows), pattern)
                continue
            _same(*_both(function, rows, pattern))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.none(), st.text(alphabet="ab@.c\né", max_size=20)), max_size=20),
       st.sampled_from([r for r in _REGEXES if r"\b" not in r]))
def test_fake_cupy_regex_random(on_fake_device, rows, pattern):
    from riptide.core.regex import ops as regex_ops

    _same(*_both(regex_ops.contains, rows, pattern))


@pytest.mark.parametrize("m", [0, 1, 256, 4096, 4097])  # the one-block kernel up to 4096 rows, the general path past
def test_fake_cupy_take_offsets(fake_cupy, m):
    from riptide.core.kernels import segments

    rng = np.random.default_rng(m)
    offsets = np.concatenate([[0], np.cumsum(rng.integers(0, 9, 5000))]).astype(np.int64)
    indices = rng.integers(-5000, 5000, m).astype(np.int64)  # negative ones count from the end, as NumPy's take
    starts, new_offsets = segments.take_offsets(offsets, indices, fake_cupy)
    expected_starts, expected_offsets = segments.take_offsets(offsets, np.where(indices < 0, indices + 5000, indices), np)
    np.testing.assert_array_equal(starts, expected_starts)
    np.testing.assert_array_equal(new_offsets, expected_offsets)


# --- the dense grouping table, on the stand-in CuPy ------------------------------------------------------------------
# The table kernels' atomics, one emulated thread at a time (no concurrency to guard against).
_ATOMICS = r"""
#include <cmath>
#include <algorithm>
using std::min; using std::max; using std::isnan;
static inline long long __double_as_longlong(double d) { long long v; std::memcpy(&v, &d, 8); return v; }
template <typename T, typename U> static inline T atomicAdd(T* p, U v) { T old = *p; *p = (T)(old + (T)v); return old; }
template <typename T, typename U> static inline T atomicMin(T* p, U v) { T old = *p; if ((T)v < old) *p = (T)v; return old; }
template <typename T, typename U> static inline T atomicMax(T* p, U v) { T old = *p; if ((T)v > old) *p = (T)v; return old; }
template <typename T> static inline T atomicCAS(T* p, T compare, T v) { T old = *p; if (old == compare) *p = v; return old; }
template <typename T> static inline T __shfl_xor_sync(unsigned, T v, int, int = 32) { return v; }
"""


@pytest.fixture
def fake_device_columns(fake_cupy, monkeypatch):
    """The stand-in CuPy with the table kernels' atomics, and columns that name it as their namespace, so that
    grouping takes its GPU path (on NumPy buffers)."""
    import types as pytypes

    from riptide.core.column import base
    from riptide.core.kernels import hash_aggregate, hashing, scatter, union_find
    from riptide.graph import _frontier

    monkeypatch.setattr(sys.modules[__name__], "SHIM", SHIM + _ATOMICS)
    fake_cupy.cuda.Device = lambda device: pytypes.SimpleNamespace(attributes={"MultiProcessorCount": 2})
    monkeypatch.setattr(base.Column, "xp", property(lambda self: fake_cupy))
    # (a kernel cached by an earlier test on a real GPU must not meet NumPy buffers)
    caches = [v for module in (hash_aggregate, hashing, scatter, union_find, _frontier)
              for v in vars(module).values() if hasattr(v, "cache_clear")]
    for cache in caches:
        cache.cache_clear()
    yield fake_cupy
    for cache in caches:
        cache.cache_clear()


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "bool", "Int32", "datetime64[s]"])
@pytest.mark.parametrize("sort", [True, False])
def test_fake_cupy_dense_grouping(fake_device_columns, dtype, sort):
    """group_rows and group_rows_aggregating of small-range keys through the dense table's kernels (compiled by g++)
    against the sort-based grouping: groups, first rows, key values and sums; missing keys dropped or kept."""
    from riptide.core.column import as_column
    from riptide.core.kernels import hash_aggregate
    from riptide.core.ops import grouping

    rng = np.random.default_rng(len(dtype))
    n = 20_000  # past the hash paths' 2**14-row threshold
    codes = rng.integers(-40, 40, n)
    if dtype == "bool":
        values = pd.Series(codes % 3 == 0)
    elif dtype == "datetime64[s]":
        values = pd.Series(codes + 1000, dtype="datetime64[s]")
        values[rng.random(n) < 0.05] = pd.NaT
    elif dtype == "Int32":
        values = pd.Series(pd.array(codes, dtype="Int32")).mask(rng.random(n) < 0.05)
    else:
        values = pd.Series((codes + (40 if dtype.startswith("u") else 0)).astype(dtype))
    key = as_column(values, xp=np)
    weights = as_column(rng.standard_normal(n), xp=np)
    for dropna in (True, False):
        layout = hash_aggregate.dense_layout(hash_aggregate.hashing.key_words([key], dropna))
        kept_missing = not dropna and dtype in ("Int32", "datetime64[s]")
        assert (layout is None) == kept_missing
        if kept_missing:  # the hash table's case, not this test's
            continue
        expected = grouping._group_rows_sorted([key], sort=sort, dropna=dropna)
        got = grouping.group_rows([key], sort=sort, dropna=dropna)
        assert got.n_groups == expected.n_groups
        np.testing.assert_array_equal(got.ids, expected.ids)
        np.testing.assert_array_equal(got.first_rows, expected.first_rows)
        aggregated = grouping.group_rows_aggregating([key], [(weights, "sum"), (None, "size")], sort=sort,
                                                     dropna=dropna)  # fmt: skip
        np.testing.assert_array_equal(aggregated.ids, expected.ids)
        bins = expected.n_groups + 1  # the dropped rows' bin last
        np.testing.assert_array_equal(aggregated.sizes(), np.bincount(expected.kept_ids(), minlength=bins)[:-1])
        sums = np.bincount(expected.kept_ids(), weights=weights.data, minlength=bins)[:-1]
        np.testing.assert_allclose(aggregated.partial(weights, "sum"), sums, rtol=1e-12, atol=1e-12)
        for groups in (got, aggregated):
            (values_of_groups,) = groups.key_values
            assert values_of_groups.dtype == key.dtype
            np.testing.assert_array_equal(values_of_groups.data, key.take(expected.first_rows).data)


# --- the hash table's aggregating insert for string keys, on the stand-in CuPy -----------------------------------------
@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("dropna", [True, False])
# the shared-memory stage (key cache; 400 keys: short keys probe past slots cached with others), past it (700)
@pytest.mark.parametrize("n_keys", [3, 12, 100, 400, 700])
def test_fake_cupy_string_hash_aggregation(fake_device_columns, monkeypatch, n_keys, dropna, sort):
    """group_rows_aggregating of a string key through the hash table's kernels (compiled by g++): keys of 0 to 7
    bytes (packed in the block's key cache) beside longer ones, unicode, NUL bytes and keys alike in their first 8
    bytes (the one-block numbering's prefixes), missing keys dropped or kept; the groups' keys come out at the size
    the kernel counted (a wrong count fails the take) and match pandas'."""
    from riptide.core.column import as_column
    from riptide.core.kernels import segments
    from riptide.core.ops import grouping

    rng = np.random.default_rng(n_keys)
    n = 20_000  # past the hash paths' 2**14-row threshold
    labels = np.array(["", "a", "id042", "ab\u00e9", "1234567", "12345678", "a much longer key", "a\x00",
                       "12345678\x00", "123456789", "12345678a", "\u00e9"]
                      + [f"k{i}" * (1 + i % 5) for i in range(n_keys)], dtype=object)[:n_keys]  # fmt: skip
    values = pd.Series(labels[rng.integers(0, n_keys, n)], dtype="str")
    values[rng.random(n) < 0.03] = None
    hidden = rng.random(n) < 0.03  # made missing under the mask, keeping their bytes
    key = as_column(values, xp=np).set_missing(hidden)
    values[hidden] = None
    weights = as_column(rng.standard_normal(n), xp=np)

    # The device-only steps after the kernel, on NumPy: the distinct keys' ranks (by pandas; the sort-based grouping's
    # device code does not run on this one-thread stand-in) and the small takes.
    def pandas_rank(columns: list, owners: np.ndarray) -> np.ndarray:
        at_owners = values.iloc[np.asarray(owners)].reset_index(drop=True)
        return (at_owners.rank(method="first", na_option="bottom").to_numpy() - 1).astype(np.int64)

    monkeypatch.setattr(grouping, "_rank_distinct_keys", pandas_rank)
    monkeypatch.setattr(segments, "_SMALL_TAKE", -1)
    expected = pd.Series(weights.data).groupby(values, sort=sort, dropna=dropna)
    sizes, sums = expected.size(), expected.sum()
    got = grouping.group_rows_aggregating([key], [(weights, "sum"), (None, "size")], sort=sort, dropna=dropna)
    assert got.n_groups == len(sizes)
    np.testing.assert_array_equal(got.sizes(), sizes.to_numpy())
    np.testing.assert_allclose(got.partial(weights, "sum"), sums.to_numpy(), rtol=1e-12, atol=1e-12)
    (keys_of_groups,) = got.key_values
    offsets, chars = keys_of_groups.offsets, keys_of_groups.chars
    assert chars.shape[0] == offsets[-1]  # the counted size is the keys' size
    texts = [bytes(chars[a:b]).decode() for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
    missing = keys_of_groups.isna() if keys_of_groups.mask is not None else np.zeros(len(texts), bool)
    assert [None if m else t for t, m in zip(texts, missing, strict=True)] == [
        None if k is None or k != k else k for k in sizes.index]


@pytest.mark.parametrize("sort", [True, False])
def test_fake_cupy_packed_string_keys(fake_device_columns, monkeypatch, sort):
    """Past the first stage a table of one string key keeps each slot's key packed in two words (keys of up to 15
    bytes), and the groups are ranked by those words, not by a sort of the strings: keys alike in their first 8
    bytes or only past them, keys that differ only in length or in a trailing NUL, empty and 15-byte keys,
    unicode; then one key of 16
    bytes, which sends the ranking back to the strings (here pandas' rank stands in for the device sort)."""
    from riptide.core.column import as_column
    from riptide.core.kernels import hash_aggregate
    from riptide.core.ops import grouping

    rng = np.random.default_rng(7)
    n = 20_000
    labels = ["", "a", "a\x00", "id0000000000", "id0000000001", "id000000000", "123456789012345", "12345678",
              "1234567\u00e9", "\u00e9\u00e9\u00e9", "zz", "xxxxxxxxtail", "yyyyyyyytail", "bcdefgh1!", "acdefgh1!",
              ] + [f"id{i:010d}" for i in range(0, 700, 2)] + [f"{i:08d}tail" for i in range(350)]
    # (ids alike in their first 8 bytes; the "tail" keys and the two pairs before the ids alike past them)
    ranked_by_words = []
    real_rank = hash_aggregate.AggregatedTable.packed_key_rank

    def recorded_rank(self, occupied):
        rank = real_rank(self, occupied)
        ranked_by_words.append(rank is not None)
        return rank

    def pandas_rank(columns: list, owners: np.ndarray) -> np.ndarray:
        at_owners = values.iloc[np.asarray(owners)].reset_index(drop=True)
        return (at_owners.rank(method="first").to_numpy() - 1).astype(np.int64)

    monkeypatch.setattr(hash_aggregate.AggregatedTable, "packed_key_rank", recorded_rank)
    # a final table of 1100 slots for ~720 keys: keys probe past each other's slots
    monkeypatch.setattr(hash_aggregate.hashing, "final_capacity", lambda n_rows: 1100)
    monkeypatch.setattr(grouping, "_rank_distinct_keys", pandas_rank)
    for long_key in (False, True):
        pool = np.array(labels + (["0123456789abcdef"] if long_key else []), dtype=object)
        values = pd.Series(pool[rng.integers(0, len(pool), n)], dtype="str")
        values[:len(pool)] = pool  # every key present
        key = as_column(values, xp=np)
        weights = as_column(rng.standard_normal(n), xp=np)
        ranked_by_words.clear()
        got = grouping.group_rows_aggregating([key], [(weights, "sum"), (None, "size")], sort=sort)
        expected = pd.Series(weights.data).groupby(values, sort=sort)
        assert ranked_by_words == ([not long_key] if sort else [])
        np.testing.assert_array_equal(got.sizes(), expected.size().to_numpy())
        np.testing.assert_allclose(got.partial(weights, "sum"), expected.sum().to_numpy(), rtol=1e-12, atol=1e-12)
        (keys_of_groups,) = got.key_values
        o, c = keys_of_groups.offsets, keys_of_groups.chars
        assert [bytes(c[a:b]).decode() for a, b in zip(o[:-1], o[1:], strict=True)] == list(expected.size().index)


@pytest.mark.parametrize(("pool", "route"), [
    ([f"id{i:010d}" for i in range(1, 801)], "uint32"),  # one prefix and length: the last 3 digits vary
    ([f"id{i * 12_345:010d}" for i in range(1, 801)], "uint64"),  # db-benchmark's id3 shape: 7 bytes vary
    ([f"prefix__{i}" for i in range(800)], "uint64"),  # bytes 8 to 10 and the length (the lowest bits) vary
    ([f"k{i}" for i in range(800)], None),  # byte 1 and the length vary: 120 bits apart
    ([f"{i:03d}-{'x' * (i % 11)}" for i in range(800)], None),  # bytes 0 to 14 vary: two sorts
])
def test_fake_cupy_packed_keys_sorted_by_varying_bits(fake_device_columns, monkeypatch, pool, route):
    """Packed keys that differ only within 64 bits of their 128 are ranked by one sort of those bits, in pandas'
    order; wider differences take the two-number sort."""
    from riptide.core.column import as_column
    from riptide.core.kernels import hash_aggregate
    from riptide.core.ops import grouping

    routes = []
    real_varying_bits = hash_aggregate.varying_bits

    def recorded_varying_bits(*args):
        key = real_varying_bits(*args)
        routes.append(None if key is None else key.dtype.name)
        return key

    monkeypatch.setattr(hash_aggregate, "varying_bits", recorded_varying_bits)
    monkeypatch.setattr(hash_aggregate.hashing, "final_capacity", lambda n_rows: 2048)
    rng = np.random.default_rng(3)
    pool = np.array(pool, dtype=object)
    values = pd.Series(pool[rng.permutation(np.resize(np.arange(len(pool)), 20_000))], dtype="str")
    weights = as_column(rng.standard_normal(values.shape[0]), xp=np)
    got = grouping.group_rows_aggregating([as_column(values, xp=np)], [(weights, "sum")], sort=True)
    expected = pd.Series(weights.data).groupby(values).sum()
    assert routes == [route]
    (keys_of_groups,) = got.key_values
    o, c = keys_of_groups.offsets, keys_of_groups.chars
    assert [bytes(c[a:b]).decode() for a, b in zip(o[:-1], o[1:], strict=True)] == list(expected.index)
    np.testing.assert_allclose(got.partial(weights, "sum"), expected.to_numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("half", ["first word", "second word"])
def test_fake_cupy_packed_keys_half_published(fake_device_columns, monkeypatch, half):
    """A row that reads a slot whose packed key is half written (the 16-byte store seen in two halves) decides by the
    owner's bytes: with the store cut to one word for good, every such slot takes that path, and the groups are
    still right (unsorted: the ranking reads the words only after the kernel, when both are written)."""
    from riptide.core.column import as_column
    from riptide.core.kernels import hash_aggregate
    from riptide.core.ops import grouping

    real_source = hash_aggregate.hashing.packed_string_slot_source

    def half_source(count_bytes=False, record_words=2):
        store = f"__stcg((ulonglong2*)(packed + {record_words} * slot), make_ulonglong2(k0, k1));"
        one_word = (f"packed[{record_words} * slot] = k0;" if half == "first word"
                    else f"packed[{record_words} * slot + 1] = k1;")  # fmt: skip
        source = real_source(count_bytes, record_words)
        assert store in source
        return source.replace(store, one_word)

    monkeypatch.setattr(hash_aggregate.hashing, "packed_string_slot_source", half_source)
    monkeypatch.setattr(hash_aggregate.hashing, "final_capacity", lambda n_rows: 1100)
    rng = np.random.default_rng(3)
    n = 20_000
    pool = np.array(["", "a", "a\x00", "\u00e9"] + [f"{i:08d}tail" for i in range(700)], dtype=object)
    values = pd.Series(pool[rng.integers(0, len(pool), n)], dtype="str")
    key = as_column(values, xp=np)
    weights = as_column(rng.standard_normal(n), xp=np)
    got = grouping.group_rows_aggregating([key], [(weights, "sum"), (None, "size")], sort=False)
    expected = pd.Series(weights.data).groupby(values, sort=False)
    np.testing.assert_array_equal(got.sizes(), expected.size().to_numpy())
    np.testing.assert_allclose(got.partial(weights, "sum"), expected.sum().to_numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("key_cache_fits", [True, False])
def test_fake_cupy_string_hash_aggregation_with_many_accumulators(fake_device_columns, monkeypatch, key_cache_fits):
    """Five accumulators fill a block's shared memory with the first stage's 1025 slots: the key cache is left out
    then (the accumulators stay in shared memory), and the groups are still numbered in key order."""
    from riptide.core.column import as_column
    from riptide.core.kernels import hash_aggregate
    from riptide.core.ops import grouping

    rng = np.random.default_rng(1)
    n = 20_000
    labels = np.array(["b", "a", "a\x00", "123456789", "12345678a", "\u00e9", ""], dtype=object)
    values = pd.Series(labels[rng.integers(0, len(labels), n)], dtype="str")
    key = as_column(values, xp=np)
    weights = as_column(rng.standard_normal(n), xp=np)
    kinds = ["sum", "count", "min", "max", "size"][: 5 if not key_cache_fits else 4]
    sources = []
    real_source = hash_aggregate._source
    def recorded_source(*args: object) -> str:  # (_kernel passes every argument by position)
        sources.append(args[6])
        return real_source(*args)

    monkeypatch.setattr(hash_aggregate, "_source", recorded_source)
    got = grouping.group_rows_aggregating([key], [(weights if k != "size" else None, k) for k in kinds], sort=True)
    assert sources == [key_cache_fits]  # one stage; the cache only where it fits beside the accumulators
    expected = pd.Series(weights.data).groupby(values)
    assert got.n_groups == len(labels)
    np.testing.assert_allclose(got.partial(weights, "sum"), expected.sum().to_numpy(), rtol=1e-12)
    np.testing.assert_array_equal(got.partial(weights, "min"), expected.min().to_numpy())
    (keys_of_groups,) = got.key_values
    o, c = keys_of_groups.offsets, keys_of_groups.chars
    assert [bytes(c[a:b]).decode() for a, b in zip(o[:-1], o[1:], strict=True)] == list(expected.size().index)


def test_fake_cupy_kept_masked_keys_are_zeroed_only_when_dirty(fake_device_columns):
    """A masked int key kept as a value (dropna=False) hashes its data: rows under the mask must read 0. Data that
    already reads 0 there (Arrow's and pandas' buffers) is passed as it is; other data is copied with zeros."""
    from riptide.core.column import NumericColumn
    from riptide.core.kernels import hashing

    valid = np.array([True, False, True, False])
    clean = NumericColumn(np.array([5, 0, 7, 0]), pd.Int64Dtype(), valid)
    dirty = NumericColumn(np.array([5, 9, 7, -3]), pd.Int64Dtype(), valid)
    clean_words = hashing.key_words([clean], dropna=False).words
    assert clean_words[0] is clean.data  # no copy
    dirty_words = hashing.key_words([dirty], dropna=False).words
    np.testing.assert_array_equal(dirty_words[0], [5, 0, 7, 0])
    np.testing.assert_array_equal(dirty.data, [5, 9, 7, -3])  # the column is not touched
    np.testing.assert_array_equal(dirty_words[1], ~valid)


def test_fake_cupy_string_records_numbered_in_key_order(fake_device_columns, monkeypatch):
    """Six accumulators do not fit a block's shared memory beside the first stage's 1025 slots: that stage keeps its
    slots as records in global memory (packed key, owner, first accumulator), and the one-block numbering of its
    groups in key order reads the owners and the first accumulator as every other table has them."""
    from riptide.core.column import as_column
    from riptide.core.kernels import hash_aggregate
    from riptide.core.ops import grouping

    rng = np.random.default_rng(2)
    n = 20_000
    labels = np.array(["b", "a", "a\x00", "123456789", "12345678a", "\u00e9", "", "x" * 20], dtype=object)
    values = pd.Series(labels[rng.integers(0, len(labels), n)], dtype="str")
    key = as_column(values, xp=np)
    weights = as_column(rng.standard_normal(n), xp=np)
    kinds = ["sum", "count", "min", "max", "size", "fsum"]
    records = []
    real_source = hash_aggregate._source

    def recorded_source(*args: object) -> str:  # (_kernel passes every argument by position)
        records.append(args[9])
        return real_source(*args)

    monkeypatch.setattr(hash_aggregate, "_source", recorded_source)
    got = grouping.group_rows_aggregating([key], [(None if k == "size" else weights, k) for k in kinds], sort=True)
    assert records == [True]
    expected = pd.Series(weights.data).groupby(values)
    np.testing.assert_allclose(got.partial(weights, "sum"), expected.sum().to_numpy(), rtol=1e-12)
    np.testing.assert_array_equal(got.partial(weights, "max"), expected.max().to_numpy())
    np.testing.assert_array_equal(got.sizes(), expected.size().to_numpy())
    (keys_of_groups,) = got.key_values
    o, c = keys_of_groups.offsets, keys_of_groups.chars
    assert [bytes(c[a:b]).decode() for a, b in zip(o[:-1], o[1:], strict=True)] == list(expected.size().index)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), arcs=st.integers(0, 300), with_parents=st.booleans())
def test_fake_cupy_bfs_level_in_frontier_memory(fake_device_columns, seed, n, arcs, with_parents):
    """One BFS level by the frontier kernels (claim, count, emit; compiled by g++, one lane a row) equals the NumPy
    level: the neighbours not reached yet, each once, in order of first occurrence, with the row that held it."""
    from riptide.graph import _frontier, traversal

    rng = np.random.default_rng(seed)
    src = np.sort(rng.integers(0, n, arcs))
    indices = rng.integers(0, n, arcs).astype(np.int64)
    offsets = np.searchsorted(src, np.arange(n + 1)).astype(np.int64)
    frontier = rng.permutation(n)[: rng.integers(1, n + 1)].astype(np.int64)
    reached = rng.random(n) < 0.3
    reached[frontier] = True
    claim = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    expected_reached = reached.copy()
    expected, expected_parents = traversal._expand_on_host(offsets, indices, frontier, expected_reached, claim.copy(),
                                                           True)  # the NumPy level  # fmt: skip
    got_reached = reached.copy()
    got, parents = _frontier.expand_frontier(offsets, indices, frontier, got_reached, claim, with_parents)
    np.testing.assert_array_equal(got, expected)
    if with_parents:
        np.testing.assert_array_equal(parents, expected_parents)
    else:
        assert parents is None
    np.testing.assert_array_equal(got_reached, expected_reached)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), arcs=st.integers(0, 200), sources=st.integers(1, 3),
       weighted=st.booleans(), cutoff=st.sampled_from([None, 0.5, 2.0]))  # fmt: skip
def test_fake_cupy_sssp_relaxation_in_frontier_memory(fake_device_columns, seed, n, arcs, sources, weighted, cutoff):
    """Shortest-path distances by the relaxation kernel (one lane a row) equal those of the NumPy rounds, from
    several sources at once, with weights (zero among them) or unit steps, with and without a cutoff."""
    import types as pytypes

    from riptide.graph import shortest_paths

    rng = np.random.default_rng(seed)
    src = np.sort(rng.integers(0, n, arcs))
    targets = rng.integers(0, n, arcs).astype(np.int64)
    offsets = np.searchsorted(src, np.arange(n + 1)).astype(np.int64)
    weights = rng.choice([0.0, 0.25, 1.0, 3.5], arcs) if weighted else None
    starts = rng.integers(0, n, sources).astype(np.int64)
    graph = pytypes.SimpleNamespace(xp=np, number_of_nodes=lambda: n)
    expected = shortest_paths._batched_distances(graph, starts, (offsets, targets), weights, cutoff)
    device_graph = pytypes.SimpleNamespace(xp=fake_device_columns, number_of_nodes=lambda: n)
    got = shortest_paths._batched_distances(device_graph, starts, (offsets, targets), weights, cutoff)
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 80), m=st.integers(0, 120))
def test_fake_cupy_union_find_by_hooking_edges(fake_device_columns, seed, n, m):
    """Components by the hooking kernel (compare-and-swap of roots, path halving; compiled by g++, one thread: the
    races are the GPU suite's to meet) equal the NumPy rounds': per vertex the smallest vertex of its component,
    self-loops and repeated edges included."""
    from riptide.core.kernels import union_find

    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    expected = union_find.component_roots(n, src, dst, np)
    np.testing.assert_array_equal(union_find.component_roots(n, src, dst, fake_device_columns), expected)
