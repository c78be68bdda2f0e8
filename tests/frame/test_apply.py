"""``Series.apply`` / ``Series.map`` with functions and ``DataFrame.apply`` against pandas (compiled UDFs)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide import _device
from riptide.core import udf
from riptide.core.udf import UDFFallbackWarning
from tests.conftest import assert_frame_equal, assert_series_equal, check_same_outcome, documented, series_st
from tests.core.test_udf import _LIBM, FUNCTIONS

pytestmark = pytest.mark.filterwarnings("ignore::riptide.core.udf.UDFFallbackWarning")

LIMIT = 100


def bounded(x):
    if x > LIMIT:
        return LIMIT
    elif x < -LIMIT:
        return -LIMIT
    return x


def _compare(got, expected, source=None):
    assert_series_equal(got, documented(expected, source))


def _same_outcome(rt_fn, pd_fn, source=None):
    """pandas' result or exception; a result riptide has no column for (complex numbers, objects of mixed
    kinds) must raise riptide's TypeError instead (a documented difference: no object columns)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            expected = pd_fn()
        except Exception:  # noqa: BLE001 - check_same_outcome compares the exception
            expected = None
    if isinstance(expected, pd.Series):
        try:
            fixed = documented(expected, source)
        except TypeError:  # (an object result of bools and numbers, which no riptide dtype holds)
            fixed = expected
        if fixed.dtype.kind == "c" or fixed.dtype == object:
            # (ints beyond uint64 in an object result: pyarrow's OverflowError, from as_column)
            with pytest.raises((TypeError, OverflowError)):
                rt_fn()
            return
    check_same_outcome(rt_fn, pd_fn, lambda g, e: _compare(g, e, source))


@settings(max_examples=60, deadline=None)
@given(series_st(dtypes=["int64", "float64", "bool", "int32", "float32", "uint8"], max_size=60),
       st.sampled_from(sorted(FUNCTIONS)))  # fmt: skip
def test_apply_matches_pandas(s, name):
    func = FUNCTIONS[name]
    if name in _LIBM and s.dtype.kind in "iu" and len(s) and (_device.is_gpu()
                                                             or np.abs(s.to_numpy(np.float64)).max() > 2**40):
        # libm calls (CUDA's hypot, pow, ...; NumPy's near 2**63) may differ from CPython's by an ulp, which is
        # large next to the result when it cancels the input (hypot(x, 3) - |x| is 0 or 1.2e-7 at x = 1e9, 0 or
        # +-1024 near 9e18): compare to a few ulps of the input
        bound = 4 * np.spacing(np.abs(s.to_numpy(np.float64)).max())
        got, expected = _outcome(lambda: rt.Series(s).apply(func)), _outcome(lambda: s.apply(func))
        if isinstance(expected, pd.Series) and isinstance(got, rt.Series):
            np.testing.assert_allclose(got.to_pandas().to_numpy(np.float64), expected.to_numpy(np.float64),
                                       rtol=1e-12, atol=bound)  # fmt: skip
            return
    _same_outcome(lambda: rt.Series(s).apply(func), lambda: s.apply(func), s)


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn()
        except Exception:  # noqa: BLE001 - an exception falls through to _same_outcome's check
            return None


@settings(max_examples=40, deadline=None)
@given(series_st(dtypes=["int64", "float64", "bool"], max_size=60), st.sampled_from(sorted(FUNCTIONS)),
       st.sampled_from([None, "ignore"]))  # fmt: skip
def test_map_matches_pandas(s, name, na_action):
    func = FUNCTIONS[name]
    _same_outcome(lambda: rt.Series(s).map(func, na_action=na_action), lambda: s.map(func, na_action=na_action), s)


def test_compiled_path_is_taken():
    before = udf.stats()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UDFFallbackWarning)
        got = rt.Series([1.5, -2.0, np.nan]).apply(bounded)
    after = udf.stats()
    # one compiled evaluation: a CUDA kernel on the GPU, the same program over NumPy arrays on the CPU
    compiled = ("kernel_launches", "array_evaluations")
    assert sum(after[k] for k in compiled) == sum(before[k] for k in compiled) + 1
    assert after["fallbacks"] == before["fallbacks"]
    _compare(got, pd.Series([1.5, -2.0, np.nan]).apply(bounded))


def test_fallback_warns_once_and_agrees():
    def stringy(x):
        return len(str(x))

    s = pd.Series([1, 22, 333])
    with pytest.warns(UDFFallbackWarning, match="str"):
        got = rt.Series(s).apply(stringy)
    _compare(got, s.apply(stringy))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UDFFallbackWarning)
        rt.Series(s).apply(stringy)  # the second call does not warn


@pytest.mark.parametrize("func", [lambda x: {1: 2.5}.get(x, 0.0), lambda x: None if x > 1 else "a"],
                         ids=["dict", "object"])  # fmt: skip
def test_fallbacks_agree(func):
    s = pd.Series([1, 2, 3])
    _same_outcome(lambda: rt.Series(s).apply(func), lambda: s.apply(func), s)


def test_row_that_raises_raises_pandas_error():
    s = pd.Series([1, 0, 2])
    with pytest.raises(ZeroDivisionError):
        s.apply(lambda x: 10 // x)
    with pytest.raises(ZeroDivisionError):
        rt.Series(s).apply(lambda x: 10 // x)
    with pytest.raises(ValueError, match="math domain"):
        rt.Series([1.0, -1.0]).apply(math.sqrt)


def test_int_overflow_gives_pandas_result():
    s = pd.Series([1, 2])
    _compare(rt.Series(s).apply(lambda x: x * 2**62), s.apply(lambda x: x * 2**62))  # uint64 in pandas


def test_args_kwargs_and_defaults():
    s = pd.Series([1, 5, 9])

    def f(x, a, b=2, c=3):
        return x * a + b - c

    _compare(rt.Series(s).apply(f, args=(2,)), s.apply(f, args=(2,)))
    _compare(rt.Series(s).apply(f, args=(2,), c=10), s.apply(f, args=(2,), c=10))
    _compare(rt.Series(s).map(f, a=3), s.map(f, a=3))
    with pytest.raises(TypeError):
        rt.Series(s).apply(f)


def test_builtins_strings_ufuncs():
    s = pd.Series([1.0, 4.0, 9.0], name="v", index=[3, 1, 2])
    _compare(rt.Series(s).apply(math.sqrt), s.apply(math.sqrt))
    _compare(rt.Series(s).apply(abs), s.apply(abs))
    _compare(rt.Series(s).apply(round), s.apply(round))
    _compare(rt.Series(s).apply(np.sqrt), s.apply(np.sqrt))
    assert rt.Series(s).apply("sum") == s.apply("sum")
    _compare(rt.Series(s).apply(lambda v: v.max() - v, by_row=False), s.apply(lambda v: v.max() - v, by_row=False))


@pytest.mark.parametrize("dtype", ["int64", "float64", "bool", "str"])
def test_empty(dtype):
    s = pd.Series([], dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UDFFallbackWarning)
        _compare(rt.Series(s).apply(lambda x: x * 2), s.apply(lambda x: x * 2), s)


def test_function_returning_series_gives_frame():
    s = pd.Series([1, 2])
    got = rt.Series(s).apply(lambda x: pd.Series([x, x * 2]))
    assert_frame_equal(got, s.apply(lambda x: pd.Series([x, x * 2])))


# --- DataFrame.apply -------------------------------------------------------------------------------------------------
ROW_FUNCTIONS = {
    "sum": lambda r: r["a"] + r["b"],
    "attr": lambda r: r.a * 2 - r.b,
    "branch": lambda r: r.a / r.b if r.b != 0 else -1.0,
    "compare": lambda r: r["a"] > r["b"] or r["a"] == 0,
    "floordiv": lambda r: r["a"] // 3 + r["b"] % 4,
    "math": lambda r: math.hypot(r.a, r.b),
    "mixed": lambda r: r.a if r.a > 0 else 0.5,
    "divzero": lambda r: r.a // r.b,
    "pow": lambda r: r.a ** 2,
}


def _frames():
    rng = np.random.default_rng(3)
    n = 50
    ints = rng.integers(-5, 6, n)
    yield "ints", pd.DataFrame({"a": ints, "b": rng.integers(-3, 4, n)})
    yield "floats", pd.DataFrame({"a": ints * 0.5, "b": rng.normal(size=n).round(2)})
    yield "int_float", pd.DataFrame({"a": ints, "b": rng.normal(size=n).round(2)})
    yield "mixed_bool", pd.DataFrame({"a": ints, "b": rng.integers(-3, 4, n), "c": ints > 0})
    yield "with_str", pd.DataFrame({"a": ints * 1.5, "b": rng.integers(-3, 4, n), "s": ["x"] * n})
    nan = pd.DataFrame({"a": ints * 0.5, "b": rng.normal(size=n)})
    nan.loc[::7, "b"] = np.nan
    yield "nan", nan
    # np.int32 rows (wrapping at 32 bits), and int32 with float32 (float64 rows)
    wide = np.array([2**31 - 1, -(2**31), 2**30], dtype=np.int32)
    yield "int32", pd.DataFrame({"a": np.concatenate([ints[:-3], wide]).astype(np.int32),
                                 "b": rng.integers(-3, 4, n).astype(np.int32)})  # fmt: skip
    yield "int32_float32", pd.DataFrame({"a": ints.astype(np.int32), "b": rng.normal(size=n).astype(np.float32)})


FRAMES = dict(_frames())


@pytest.mark.parametrize("frame", list(FRAMES))
@pytest.mark.parametrize("name", list(ROW_FUNCTIONS))
def test_apply_rows_matches_pandas(frame, name):
    df, func = FRAMES[frame], ROW_FUNCTIONS[name]
    df = df.set_axis(pd.Index(range(10, 10 + len(df))), axis=0)
    _same_outcome(lambda: rt.DataFrame(df).apply(func, axis=1), lambda: df.apply(func, axis=1))


def test_apply_rows_compiles_numpy_and_python_rows():
    for frame in ("ints", "floats", "mixed_bool", "with_str", "int32", "int32_float32"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", UDFFallbackWarning)
            rt.DataFrame(FRAMES[frame]).apply(ROW_FUNCTIONS["attr"], axis=1)


def test_apply_rows_numpy_semantics():
    # NumPy int64 rows: division by zero gives 0 (a warning in NumPy), not ZeroDivisionError
    df = pd.DataFrame({"a": [1, 2], "b": [0, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = df.apply(lambda r: r.a // r.b, axis=1)
    _compare(rt.DataFrame(df).apply(lambda r: r.a // r.b, axis=1), expected)


def test_apply_rows_unsupported_falls_back():
    df = pd.DataFrame({"a": [1, 2], "b": [3, 4]})
    for func in (lambda r: r.sum(), lambda r: r["a"] + len(r), lambda r: r.name):
        with pytest.warns(UDFFallbackWarning):
            got = rt.DataFrame(df).apply(func, axis=1)
        _compare(got, df.apply(func, axis=1))


def test_apply_columns():
    df = pd.DataFrame({"a": [1, 2, 3], "b": [4.0, 5.5, -1.0]}, index=[5, 6, 7])
    _compare(rt.DataFrame(df).apply(lambda c: c.max()), df.apply(lambda c: c.max()))
    assert_frame_equal(rt.DataFrame(df).apply(lambda c: c * 2), df.apply(lambda c: c * 2))
    _compare(rt.DataFrame(df).apply("sum"), df.apply("sum"))
    _compare(rt.DataFrame(df).apply("sum", axis=1), df.apply("sum", axis=1))
    assert_frame_equal(rt.DataFrame(df).apply(np.sqrt), df.apply(np.sqrt))


def test_apply_options_go_to_pandas():
    df = pd.DataFrame({"a": [1, 2], "b": [3, 4]})
    with pytest.warns(UDFFallbackWarning):
        got = rt.DataFrame(df).apply(lambda r: [r.a, r.b], axis=1, result_type="expand")
    assert_frame_equal(got, df.apply(lambda r: [r.a, r.b], axis=1, result_type="expand"))
    with pytest.raises(ValueError):
        rt.DataFrame(df).apply(lambda r: r, axis=2)


def test_apply_rows_int32_wraps_as_numpy():
    df = pd.DataFrame({"a": np.array([2**30, -(2**31), 7], dtype=np.int32), "b": np.array([3, -1, 0], np.int32)})
    for func in (lambda r: r.a * 4 + r.b, lambda r: -r.a if r.b < 0 else abs(r.a) // 2, lambda r: r.a**2 % 1000):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = df.apply(func, axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UDFFallbackWarning)
            got = rt.DataFrame(df).apply(func, axis=1)
        _compare(got, expected)
    # a Python int that does not fit np.int32: NumPy raises OverflowError, so does riptide (through pandas)
    _same_outcome(lambda: rt.DataFrame(df).apply(lambda r: r.a + 2**40, axis=1),
                  lambda: df.apply(lambda r: r.a + 2**40, axis=1))  # fmt: skip


# --- values that are ints on some rows and floats on others; round; NumPy functions ----------------------------------
def test_mixed_int_float_compiles_with_pandas_dtype():
    clamp = FUNCTIONS["clamp_floordiv"]
    for values in ([15.5, -3.25, 2.0, np.nan], [20.0, 30.5], [-20.0, -30.5]):  # some rows ints; every row an int
        s = pd.Series(values)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UDFFallbackWarning)
            got = rt.Series(s).apply(lambda x: max(min(x, 10), -10))
            _compare(got, s.apply(lambda x: max(min(x, 10), -10)))
            _compare(rt.Series(s).apply(clamp), s.apply(clamp))


def test_int_power_with_variable_exponent():
    s = pd.Series([0, 1, 2, 3, -2])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UDFFallbackWarning)
        _compare(rt.Series(s).apply(lambda x: 2**x), s.apply(lambda x: 2**x))  # all ints: int64
    _compare(rt.Series(s).apply(lambda x: 2 ** (x - 2)), s.apply(lambda x: 2 ** (x - 2)))  # 2 ** -2: float64
    _same_outcome(lambda: rt.Series(s).apply(lambda x: x ** (x - 3)), lambda: s.apply(lambda x: x ** (x - 3)))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.floats(-1e6, 1e6), st.sampled_from([2.675, 1.005, 0.125, -2.5, 0.5, 1e300])),
                min_size=1, max_size=30),
       st.integers(-4, 8))  # fmt: skip
def test_round_digits_matches_python(values, n):
    s = pd.Series(values, dtype="float64")
    _compare(rt.Series(s).apply(round, args=(n,)), s.apply(round, args=(n,)))
    _compare(rt.Series(s).apply(lambda x: round(x, n)), s.apply(lambda x: round(x, n)))


def test_round_digits_examples():
    s = pd.Series([2.675, 0.125, 0.375, -0.001, 1234.5678, 15.0, 25.0, -35.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UDFFallbackWarning)
        assert rt.Series(s).apply(lambda x: round(x, 2)).tolist() == [2.67, 0.12, 0.38, -0.0, 1234.57, 15.0, 25.0, -35.0]
        assert rt.Series(s).apply(lambda x: round(x, -1)).tolist() == s.apply(lambda x: round(x, -1)).tolist()
        ints = pd.Series([15, 25, -35, 1249, 1250, 1251])
        _compare(rt.Series(ints).apply(lambda x: round(x, -1)), ints.apply(lambda x: round(x, -1)))
        _compare(rt.Series(ints).apply(lambda x: round(x, -2)), ints.apply(lambda x: round(x, -2)))
    # rows whose decimal rounding riptide does not do on the device (|x * 10**n| in [2**52, 2**55)) re-run on pandas
    big = pd.Series([4503599627370497.5 / 100, 1.5])
    _compare(rt.Series(big).apply(lambda x: round(x, 2)), big.apply(lambda x: round(x, 2)))


def test_numpy_functions_never_raise():
    s = pd.Series([4.0, 0.0, -1.0, np.nan, np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UDFFallbackWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        for func in (lambda x: np.log(x), lambda x: np.sqrt(x) + 1, lambda x: np.float64(x) / 0,
                     lambda x: np.maximum(x, 0.5), lambda x: np.isnan(x), lambda x: np.round(x * 1.005, 2)):
            _compare(rt.Series(s).apply(func), s.apply(func))
        ints = pd.Series([3, -4, 0])
        for func in (lambda x: np.abs(x) + np.floor(x), lambda x: np.minimum(x, 1), lambda x: np.sign(x) * 2):
            _compare(rt.Series(ints).apply(func), ints.apply(func))


# --- nullable inputs ----------------------------------------------------------------------------------------------
NULLABLE_FUNCTIONS = {
    "add": lambda x: x + 1,
    "div": lambda x: x / 2,
    "scale": lambda x: x * 0.1,
    "compare": lambda x: x > 1,
    "np_sqrt": lambda x: np.sqrt(x),
    "neg_mul": lambda x: -x * 100,
    "branch": lambda x: x + 1 if x > 0 else 0,  # bool(pd.NA) raises TypeError
    "math": lambda x: math.sqrt(abs(x)),  # math.sqrt(pd.NA) raises TypeError
    "pow0": lambda x: x**0,  # pd.NA ** 0 is 1
}


def _narrowed(s, narrow):
    """``s`` (Int64, Float64) as a narrower nullable dtype, its values clipped to that dtype's range."""
    if narrow is None or s.dtype == "boolean" or (s.dtype == "Float64") != (narrow == "Float32"):
        return s
    if narrow == "Float32":
        return s.clip(-1e30, 1e30).astype(narrow)
    info = np.iinfo(narrow.lower())
    return s.clip(info.min, info.max).astype(narrow)


@settings(max_examples=50, deadline=None)
@given(series_st(dtypes=["Int64", "Float64", "boolean"], max_size=40),
       st.sampled_from([None, "Int32", "Int8", "UInt8", "Float32"]),
       st.sampled_from(sorted(NULLABLE_FUNCTIONS)), st.sampled_from([None, "ignore"]))  # fmt: skip
def test_nullable_inputs_match_pandas(s, narrow, name, na_action):
    s = _narrowed(s, narrow)
    func = NULLABLE_FUNCTIONS[name]
    _same_outcome(lambda: rt.Series(s).map(func, na_action=na_action), lambda: s.map(func, na_action=na_action), s)
    if na_action is None:
        _same_outcome(lambda: rt.Series(s).apply(func), lambda: s.apply(func), s)


def test_nullable_propagation_compiles():
    s = pd.Series([1, None, 3], dtype="Int32")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UDFFallbackWarning)
        _compare(rt.Series(s).apply(lambda x: x * 2), s.apply(lambda x: x * 2))  # Int32: every value fits
        _compare(rt.Series(s).apply(lambda x: x * 2**40), s.apply(lambda x: x * 2**40))  # Int64
        _compare(rt.Series(s).apply(lambda x: x / 2), s.apply(lambda x: x / 2))  # Float64
        _compare(rt.Series(s).apply(lambda x: x > 1), s.apply(lambda x: x > 1))  # boolean
        f = pd.Series([4.0, None, -1.0], dtype="Float64")
        _compare(rt.Series(f).map(lambda x: np.sqrt(x)), f.map(lambda x: np.sqrt(x)))  # NaN becomes NA
    with pytest.raises(TypeError, match="ambiguous"):
        rt.Series(s).apply(lambda x: 1 if x > 1 else 0)


# --- inputs that take the host path -------------------------------------------------------------------------------
def test_datetime_inputs_fall_back():
    s = pd.Series(pd.to_datetime(["2024-01-01", "2024-03-05"]))
    with pytest.warns(UDFFallbackWarning, match="t.month"):
        got = rt.Series(s).apply(lambda t: t.month * 100 + t.day)
    _compare(got, s.apply(lambda t: t.month * 100 + t.day))
    d = pd.Series(pd.to_timedelta([1, 2], unit="D"))
    _compare(rt.Series(d).apply(lambda t: t.days), d.apply(lambda t: t.days))
