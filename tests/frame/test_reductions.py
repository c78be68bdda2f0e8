"""Reductions vs pandas: values (floats to rtol 1e-9), missing results, the type of the scalar, and errors."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import (
    ALL_DTYPES,
    assert_scalar_equal,
    assert_series_equal,
    frame_st,
    make_values,
    pandas_result,
    series_st,
)
from hypothesis import assume, given
from hypothesis import strategies as st

import riptide as rt

SERIES_OPS = ["sum", "mean", "min", "max", "count", "std", "var", "prod", "median", "any", "all", "sem", "nunique",
              "idxmin", "idxmax"]  # fmt: skip
SKIPNA_OPS = ["sum", "mean", "min", "max", "std", "var", "prod", "median", "any", "all", "sem", "idxmin", "idxmax"]
NUMERIC = ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "float32", "float64", "bool", "Int64",
           "Float64", "boolean"]  # fmt: skip


def _base_error(error: BaseException) -> type[BaseException] | tuple[type[BaseException], ...]:
    for base in (TypeError, ValueError, KeyError, IndexError):
        if isinstance(error, base):
            return base
    return type(error)


def _rtol(dtype: Any) -> float:
    return 1e-5 if str(dtype) in ("float32", "Float32") else 1e-9


def check_scalar(rt_fn: Any, pd_fn: Any, rtol: float = 1e-9, atol: float = 0.0) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, error = pandas_result(pd_fn)
    if error is not None:
        with pytest.raises(_base_error(error)):
            rt_fn()
        return
    assert_scalar_equal(rt_fn(), expected, rtol=rtol, atol=atol)


def check_method(s: pd.Series, op: str, rtol: float = 1e-9, **kwargs: Any) -> None:
    """riptide's ``s.<op>(**kwargs)`` equals pandas' (or raises its error type)."""
    check_scalar(lambda: getattr(rt.from_pandas(s), op)(**kwargs), lambda: getattr(s, op)(**kwargs), rtol=rtol)


def _kwargs(op: str, skipna: bool) -> dict[str, Any]:
    if op == "nunique":
        return {"dropna": skipna}
    if op == "count":
        return {}
    return {"skipna": skipna}


# --------------------------------------------------------------------------- known riptide bugs

#: Known riptide bugs: key -> reason, used as strict xfails by the two functions below (empty: none known).
BUGS: dict[str, str] = {}


def frame_reduction_bug(df: pd.DataFrame, op: str, axis: int = 0, numeric_only: bool = False) -> str | None:
    """Known bug class for ``df.<op>(axis=axis)`` (None: riptide should agree with pandas)."""
    return None


def reduction_bug(dtype: str, op: str, case: str) -> str | None:
    """Known bug class for ``Series[dtype].<op>()`` on the edge-case data ``case`` (either skipna)."""
    return None


def _known(s: pd.Series, op: str) -> bool:
    """Whether random data may hit a known bug (those cases are the xfails of the edge-case matrix)."""
    dtype = str(s.dtype)
    return any(reduction_bug(dtype, op, case) for case in ("empty", "all_na", "one", "one_na", "mixed"))


# --------------------------------------------------------------------------- Series, every dtype


@given(series_st(), st.sampled_from(SERIES_OPS), st.booleans())
def test_series_reduction(s, op, skipna):
    assume(not _known(s, op))
    kwargs = _kwargs(op, skipna)
    atol = 1e-12 if op in ("std", "var", "sem") else 0.0  # a variance of equal values may be 0 or 1e-30
    check_scalar(lambda: getattr(rt.from_pandas(s), op)(**kwargs), lambda: getattr(s, op)(**kwargs),
                 rtol=_rtol(s.dtype), atol=atol)  # fmt: skip


def _edge_cases() -> list[Any]:
    cases = []
    for case in ["empty", "all_na", "one", "one_na", "mixed"]:
        for op in SERIES_OPS:
            for dtype in ALL_DTYPES:
                bug = reduction_bug(dtype, op, case)
                marks = [pytest.mark.xfail(strict=True, reason=BUGS[bug])] if bug else []
                cases.append(pytest.param(dtype, op, case, marks=marks, id=f"{case}-{op}-{dtype}"))
    return cases


@pytest.mark.parametrize(("dtype", "op", "case"), _edge_cases())
def test_series_reduction_edge_cases(dtype, op, case):
    n, frac = {"empty": (0, 0.0), "all_na": (6, 1.0), "one": (1, 0.0), "one_na": (1, 1.0), "mixed": (9, 0.4)}[case]
    s = make_values(np.random.default_rng(3), dtype, n, frac, small=True)
    for skipna in (True, False):
        kwargs = _kwargs(op, skipna)
        check_scalar(lambda: getattr(rt.from_pandas(s), op)(**kwargs), lambda: getattr(s, op)(**kwargs),
                     rtol=_rtol(dtype), atol=1e-12)  # fmt: skip


@pytest.mark.parametrize("dtype", ["int64", "float64", "Int64", "Float64", "bool", "boolean", "uint8"])
@pytest.mark.parametrize("min_count", [0, 1, 3, 10])
@pytest.mark.parametrize("op", ["sum", "prod"])
def test_min_count(dtype, min_count, op):
    for frac in (0.0, 0.5, 1.0):
        s = make_values(np.random.default_rng(5), dtype, 5, frac, small=True)
        for skipna in (True, False):
            check_scalar(lambda: getattr(rt.from_pandas(s), op)(skipna=skipna, min_count=min_count),
                         lambda: getattr(s, op)(skipna=skipna, min_count=min_count))  # fmt: skip


@given(series_st(dtypes=NUMERIC + ["timedelta64[ns]"]), st.sampled_from(["std", "var", "sem"]), st.integers(0, 3),
       st.booleans())  # fmt: skip
def test_ddof(s, op, ddof, skipna):
    assume(not _known(s, op))
    check_scalar(lambda: getattr(rt.from_pandas(s), op)(ddof=ddof, skipna=skipna),
                 lambda: getattr(s, op)(ddof=ddof, skipna=skipna), rtol=_rtol(s.dtype), atol=1e-12)  # fmt: skip


def test_int_sum_is_int64_and_exact():
    s = pd.Series(np.full(1000, 2**40, dtype=np.int64))
    assert_scalar_equal(rt.from_pandas(s).sum(), s.sum())
    u = pd.Series(np.full(10, 2**63, dtype=np.uint64))
    assert_scalar_equal(rt.from_pandas(u).sum(), u.sum())
    small = pd.Series(np.full(300, 100, dtype=np.int8))
    assert_scalar_equal(rt.from_pandas(small).sum(), small.sum())


def test_float_sum_of_many_values_close_to_pandas():
    s = pd.Series(np.random.default_rng(0).standard_normal(100_000) * 1e6)
    for op in ["sum", "mean", "std", "var", "median", "sem"]:
        assert_scalar_equal(getattr(rt.from_pandas(s), op)(), getattr(s, op)(), rtol=1e-9)


@given(series_st(dtypes=NUMERIC + ["datetime64[ns]", "timedelta64[ns]"]),
       st.lists(st.floats(0, 1), min_size=1, max_size=5),
       st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest"]))  # fmt: skip
def test_quantile(s, qs, interpolation):
    check_scalar(lambda: rt.from_pandas(s).quantile(qs[0], interpolation=interpolation),
                 lambda: s.quantile(qs[0], interpolation=interpolation), rtol=1e-9, atol=1e-9)  # fmt: skip
    expected, error = pandas_result(lambda: s.quantile(qs, interpolation=interpolation))
    if error is None:
        assert_series_equal(rt.from_pandas(s).quantile(qs, interpolation=interpolation), expected, check_exact=False,
                            rtol=1e-9, atol=1e-9)  # fmt: skip


@pytest.mark.parametrize("dtype", ["Int64", "Float64"])
def test_quantile_of_all_na_masked_is_na(dtype):
    s = pd.Series([None, None], dtype=dtype)
    check_scalar(lambda: rt.from_pandas(s).quantile(0.5), lambda: s.quantile(0.5))


def test_quantile_list_of_masked():
    s = pd.Series([1, 5, None], dtype="Int64")
    assert_series_equal(rt.from_pandas(s).quantile([0.5]), s.quantile([0.5]))


@pytest.mark.parametrize("dtype", ["datetime64[ns]", "timedelta64[ns]"])
def test_quantile_temporal(dtype):
    s = make_values(np.random.default_rng(1), dtype, 7, 0.2)
    check_scalar(lambda: rt.from_pandas(s).quantile(0.5), lambda: s.quantile(0.5))


@pytest.mark.parametrize("interpolation", ["lower", "higher", "nearest"])
@pytest.mark.parametrize("dtype", ["int8", "int64"])
def test_quantile_int_keeps_dtype(interpolation, dtype):
    s = pd.Series([1, 5, 3], dtype=dtype)
    check_scalar(lambda: rt.from_pandas(s).quantile(0.5, interpolation=interpolation),
                 lambda: s.quantile(0.5, interpolation=interpolation))  # fmt: skip


@pytest.mark.parametrize("op", ["std", "var"])
def test_float_ddof_at_count_is_nan(op):
    s = pd.Series([0.5, 1.5], dtype="float32")
    check_method(s, op, ddof=2, skipna=False)


def test_bool_quantile_lower():
    s = pd.Series([True, False, True])
    check_scalar(lambda: rt.from_pandas(s).quantile(0.5, interpolation="lower"),
                 lambda: s.quantile(0.5, interpolation="lower"))  # fmt: skip


def test_quantile_of_infinities():
    s = pd.Series([-np.inf, -np.inf, 1.0])
    check_scalar(lambda: rt.from_pandas(s).quantile(0.25, interpolation="midpoint"),
                 lambda: s.quantile(0.25, interpolation="midpoint"))  # fmt: skip


def test_quantile_boolean_raises():
    s = pd.Series([True, None, False], dtype="boolean")
    check_scalar(lambda: rt.from_pandas(s).quantile(0.5), lambda: s.quantile(0.5))


def test_quantile_out_of_range_raises():
    s = rt.Series([1.0, 2.0])
    with pytest.raises(ValueError):
        s.quantile(1.5)


@given(series_st(dtypes=["str", "category"]), st.sampled_from(["min", "max", "sum", "mean", "nunique", "count"]))
def test_string_and_categorical_reductions(s, op):
    check_scalar(lambda: getattr(rt.from_pandas(s), op)(), lambda: getattr(s, op)())


def test_ordered_categorical_min_max():
    s = pd.Series(pd.Categorical(["lo", "hi", None, "mid"], categories=["lo", "mid", "hi"], ordered=True))
    for op in ["min", "max"]:
        for skipna in (True, False):
            check_scalar(lambda: getattr(rt.from_pandas(s), op)(skipna=skipna), lambda: getattr(s, op)(skipna=skipna))


def test_idxmin_idxmax_labels():
    s = pd.Series([3.0, np.nan, 1.0, 1.0, 9.0], index=["a", "b", "c", "d", "e"])
    for op in ["idxmin", "idxmax"]:
        check_scalar(lambda: getattr(rt.from_pandas(s), op)(), lambda: getattr(s, op)())


@pytest.mark.parametrize("op", ["argmin", "argmax"])
def test_argmin_argmax(op):
    s = pd.Series([3.0, np.nan, 1.0, 1.0, 9.0])
    check_scalar(lambda: getattr(rt.from_pandas(s), op)(), lambda: getattr(s, op)())


def test_nunique_dropna_false_counts_missing_once():
    s = pd.Series([1.0, np.nan, 1.0, np.nan, 2.0])
    assert rt.from_pandas(s).nunique(dropna=False) == s.nunique(dropna=False)
    assert rt.from_pandas(s).nunique() == s.nunique()


# --------------------------------------------------------------------------- DataFrame

FRAME_OPS = ["sum", "mean", "min", "max", "count", "std", "var", "prod", "median", "any", "all", "sem", "nunique",
             "idxmin", "idxmax"]  # fmt: skip


def check_frame_reduction(df: pd.DataFrame, op: str, *, reject_object: bool = False, **kwargs: Any) -> None:
    """riptide's ``df.<op>(**kwargs)`` equals pandas' (or raises its error type).

    pandas' object results (columns of mixed kinds) are documented differences: skipped, or rejected
    (``reject_object``, for hypothesis tests, where a skip would end the whole test).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, error = pandas_result(lambda: getattr(df, op)(**kwargs))
    if error is not None:
        with pytest.raises(_base_error(error)):
            getattr(rt.from_pandas(df), op)(**kwargs)
        return
    if expected.dtype == object:
        if reject_object:
            assume(False)
        pytest.skip("pandas gives an object Series (mixed kinds); riptide documents it raises or differs")
    got = getattr(rt.from_pandas(df), op)(**kwargs)
    float32 = any(str(d) in ("float32", "Float32") for d in df.dtypes)
    assert_series_equal(got, expected, check_exact=False, rtol=1e-5 if float32 else 1e-9, atol=1e-12)


FRAME_DTYPES = ["int64", "float64", "bool", "int32", "Int64", "Float64", "boolean"]


@given(frame_st(dtypes=FRAME_DTYPES, max_cols=5), st.sampled_from(FRAME_OPS), st.booleans())
def test_frame_reduction_axis0(df, op, skipna):
    assume(frame_reduction_bug(df, op) is None)  # the F* xfail tests below cover those
    kwargs = {"dropna": skipna} if op == "nunique" else {} if op == "count" else {"skipna": skipna}
    check_frame_reduction(df, op, reject_object=True, **kwargs)


@given(frame_st(dtypes=["int64", "float64", "int32", "float32", "bool", "Int64", "Float64"], min_cols=1, max_cols=5),
       st.sampled_from(["sum", "mean", "min", "max", "count", "std", "var", "prod", "median", "any", "all"]),
       st.booleans())  # fmt: skip
def test_frame_reduction_axis1(df, op, skipna):
    assume(frame_reduction_bug(df, op, axis=1) is None)
    check_frame_reduction(df, op, reject_object=True, **({} if op == "count" else {"skipna": skipna}), axis=1)


@given(frame_st(dtypes=["int64", "float64", "str", "category"], max_cols=5),
       st.sampled_from(["sum", "mean", "min", "max", "std", "count", "median", "prod", "var"]))  # fmt: skip
def test_frame_reduction_numeric_only(df, op):
    assume(frame_reduction_bug(df, op, numeric_only=True) is None)
    check_frame_reduction(df, op, reject_object=True, numeric_only=True)


MIXED = pd.DataFrame({"i": [1, 2, 3], "f": [0.5, np.nan, 2.0], "s": pd.Series(["a", "b", None], dtype="str"),
                      "t": pd.to_datetime(["2020-01-01", None, "2020-01-03"]).astype("datetime64[ns]")})  # fmt: skip


def _frame_cases(ops: list[str], frames: dict[str, pd.DataFrame], axis: int = 0) -> list[Any]:
    cases = []
    for name, df in frames.items():
        for op in ops:
            bug = frame_reduction_bug(df, op, axis)
            marks = [pytest.mark.xfail(strict=True, reason=BUGS[bug])] if bug else []
            cases.append(pytest.param(name, op, marks=marks, id=f"{name}-{op}"))
    return cases


FRAMES = {
    "mixed": MIXED,
    "numeric": MIXED[["i", "f"]],
    "empty": pd.DataFrame({"a": pd.Series([], dtype="float64"), "b": pd.Series([], dtype="int64")}),
    "all_nan": pd.DataFrame({"a": [np.nan, np.nan], "b": [np.nan, 1.0]}),
    "masked": pd.DataFrame({"a": [1.0, 2.0], "b": pd.array([1, 2], dtype="Int64")}),
    "all_na_masked": pd.DataFrame({"a": [np.nan, np.nan], "b": pd.array([None, None], dtype="Int64")}),
    "boolean": pd.DataFrame({"a": pd.array([True, None], dtype="boolean"), "b": [True, False]}),
    "empty_float32": pd.DataFrame({"a": pd.Series([], dtype="float32")}),
    "no_columns": pd.DataFrame(index=pd.RangeIndex(3)),
}


@pytest.mark.parametrize(("name", "op"), _frame_cases(FRAME_OPS, FRAMES))
def test_frame_reduction_cases(name, op):
    check_frame_reduction(FRAMES[name], op)


ROW_FRAMES = {
    "int64_float64": pd.DataFrame({"a": [1, 2], "b": [0.5, np.nan]}),
    "bool": pd.DataFrame({"a": [True, False], "b": [True, True]}),
    "int8": pd.DataFrame({"a": np.array([1, 2], dtype="int8"), "b": np.array([3, -4], dtype="int8")}),
    "uint64_int64": pd.DataFrame({"a": np.array([1, 2], dtype="uint64"), "b": np.array([3, 4], dtype="int64")}),
    "Int64": pd.DataFrame({"a": pd.array([1, None], dtype="Int64"), "b": pd.array([3, 4], dtype="Int64")}),
}


@pytest.mark.parametrize(("name", "op"), _frame_cases(["sum", "min", "max", "mean", "prod"], ROW_FRAMES, axis=1))
def test_frame_row_reduction_cases(name, op):
    check_frame_reduction(ROW_FRAMES[name], op, axis=1)


def test_frame_min_count():
    df = pd.DataFrame({"a": [np.nan, 1.0], "b": [np.nan, np.nan], "c": pd.array([None, 2], dtype="Int64")})
    for min_count in [0, 1, 2]:
        check_frame_reduction(df, "sum", min_count=min_count)
        check_frame_reduction(df, "prod", min_count=min_count)


def test_frame_min_count_numpy_columns():
    df = pd.DataFrame({"a": [np.nan, 1.0], "b": [np.nan, np.nan], "c": [1, 2]})
    for min_count in [0, 1, 2, 3]:
        check_frame_reduction(df, "sum", min_count=min_count)
        check_frame_reduction(df, "prod", min_count=min_count)


def test_frame_bad_axis_raises():
    df = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(ValueError):
        df.sum(axis=2)
    with pytest.raises(ValueError):
        rt.from_pandas(df).sum(axis=2)


@pytest.mark.parametrize("dtype", ["str", "category"])
@pytest.mark.parametrize("op", ["std", "var", "prod", "median", "sem"])
def test_invalid_reduction_raises_type_error(dtype, op):
    s = make_values(np.random.default_rng(0), dtype, 5, 0.2)
    expected, error = pandas_result(lambda: getattr(s, op)())
    if error is None:
        pytest.skip(f"pandas computes {dtype}.{op}()")
    with pytest.raises(TypeError):
        getattr(rt.from_pandas(s), op)()


@pytest.mark.parametrize("op", ["sum", "mean"])
def test_numeric_only_drops_datetimes(op):
    check_frame_reduction(MIXED, op, numeric_only=True)


# --------------------------------------------------------------------------- regressions: dtypes as pandas

QUANTILE_DTYPES = ["int8", "uint64", "float32", "float64", "bool", "Int64", "Int8", "UInt8", "Float64", "Float32",
                   "boolean", "datetime64[ns]", "datetime64[s]", "timedelta64[ms]"]  # fmt: skip


def _quantile_series(dtype: str, case: str) -> pd.Series:
    values = {"empty": [], "all_na": [None, None], "one": [3], "mixed": [4, None, -2, 7, 7, None, 1]}[case]
    if dtype in ("bool", "boolean"):
        values = [None if v is None else v > 2 for v in values]
    if dtype in ("int8", "uint64", "bool"):
        values = [v for v in values if v is not None]
        if dtype == "uint64":
            values = [abs(v) for v in values]
    if dtype == "UInt8":
        values = [None if v is None else abs(v) for v in values]
    if dtype.startswith(("datetime", "timedelta")):
        unit = dtype[dtype.index("[") + 1 : -1]
        kind = "M8" if dtype.startswith("datetime") else "m8"
        ints = np.array([np.iinfo(np.int64).min if v is None else v * 10**6 + 1 for v in values], dtype=np.int64)
        return pd.Series(ints.view(f"{kind}[{unit}]"))
    return pd.Series(values, dtype=dtype)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("case", ["empty", "all_na", "one", "mixed"])
@pytest.mark.parametrize("dtype", QUANTILE_DTYPES)
def test_quantile_dtypes(dtype, case, interpolation):
    """The scalar's type and the list result's dtype follow pandas' value-dependent rules exactly."""
    s = _quantile_series(dtype, case)
    qs = [0.5, 0.3, 1.0]
    check_method(s, "quantile", rtol=0, q=0.3, interpolation=interpolation)
    expected, error = pandas_result(lambda: s.quantile(qs, interpolation=interpolation))
    if error is not None:
        with pytest.raises(_base_error(error)):
            rt.from_pandas(s).quantile(qs, interpolation=interpolation)
        return
    assert_series_equal(rt.from_pandas(s).quantile(qs, interpolation=interpolation), expected, check_exact=True)


def test_quantile_int8_difference_wraps_as_numpy():
    s = pd.Series([-100, 100], dtype="int8")  # NumPy takes b - a in int8: pandas' result is 128.0
    for interpolation in ["linear", "midpoint"]:
        check_method(s, "quantile", rtol=0, q=0.5, interpolation=interpolation)


def test_quantile_int64_with_missing_keeps_int_when_whole():
    s = pd.Series([1, 2**62, None], dtype="Int64")
    assert_series_equal(rt.from_pandas(s).quantile([0.5]), s.quantile([0.5]), check_exact=True)
    assert_series_equal(rt.from_pandas(s).quantile([0.5, 0.3]), s.quantile([0.5, 0.3]), check_exact=True)


@pytest.mark.parametrize("unit", ["s", "ms", "ns"])
@pytest.mark.parametrize("op", ["mean", "median", "sum", "std", "min"])
def test_temporal_reductions_truncate_and_keep_unit(unit, op):
    s = pd.Series(np.array([0, 1, -2, -4, 5], dtype=f"m8[{unit}]"))
    for part in (s, s[:0], s[:2], s[1:4]):
        check_method(part, op)
        assert getattr(getattr(rt.from_pandas(part), op)(), "unit", None) == getattr(getattr(part, op)(), "unit", None)


def test_timedelta_sum_min_count():
    s = pd.Series(pd.to_timedelta(["1D", None, "3D"]))
    for part in (s, s[:0], s[1:2]):
        for min_count in (0, 1, 2, 3):
            check_method(part, "sum", min_count=min_count)


def test_str_sum_min_count():
    s = pd.Series(["a", None, "b"], dtype="str")
    for part in (s, s[:0], s[1:2]):
        for min_count in (0, 1, 3):
            check_method(part, "sum", min_count=min_count)


@pytest.mark.parametrize("dtype", ["Int64", "Float64", "boolean"])
@pytest.mark.parametrize("op", ["std", "var", "sem"])
def test_masked_ddof_at_count(dtype, op):
    """Masked arrays divide by max(n - ddof, 0) as NumPy does: inf, or NaN read as NA."""
    s = pd.Series([1, 3, None] if dtype != "boolean" else [True, False, None], dtype=dtype)
    for part in (s, s[:2], s[:1]):
        for ddof in range(4):
            for skipna in (True, False):
                check_method(part, op, ddof=ddof, skipna=skipna)


def test_masked_float_nan_result_is_na():
    s = pd.Series([1.0, np.inf, -np.inf], dtype="Float64")
    for op in ["sum", "mean", "std"]:
        check_method(s, op)


@pytest.mark.parametrize("op", ["sum", "prod", "mean", "std", "sem", "median"])
def test_float32_missing_results_keep_width(op):
    for values in ([], [np.nan, np.nan], [1.5], [1.5, np.nan]):
        s = pd.Series(values, dtype="float32")
        for kwargs in ({}, {"skipna": False}, *([{"min_count": 2}] if op in ("sum", "prod") else [])):
            expected = getattr(s, op)(**kwargs)
            got = getattr(rt.from_pandas(s), op)(**kwargs)
            assert_scalar_equal(got, expected, rtol=1e-5)
            if isinstance(expected, np.floating):
                assert got.dtype == expected.dtype, (values, kwargs, got, expected)


def test_str_argmin_is_python_int():
    s = pd.Series(["b", "a", None, "c"], dtype="str")
    for op in ["argmin", "argmax"]:
        got, expected = getattr(rt.from_pandas(s), op)(), getattr(s, op)()
        assert got == expected and type(got) is type(expected)


def test_category_idxmin_follows_category_order():
    s = pd.Series(pd.Categorical(["b", "a", None, "a"], categories=["b", "a"]), index=list("wxyz"))
    for op in ["idxmin", "idxmax", "argmin", "argmax"]:
        for skipna in (True, False):
            check_method(s, op, skipna=skipna)


BOOL_ONLY = pd.DataFrame({"i": [1, 0], "b": [True, True], "B": pd.array([True, None], dtype="boolean"),
                          "s": pd.Series(["a", ""], dtype="str"), "t": pd.to_timedelta([0, 1], unit="s")})  # fmt: skip


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("op", ["any", "all"])
def test_frame_bool_only(op, axis):
    check_frame_reduction(BOOL_ONLY, op, bool_only=True, axis=axis)
    if axis == 0:
        check_frame_reduction(BOOL_ONLY, op)


ROW_MASKED = {
    "Int32": pd.DataFrame({"a": pd.array([1, None, None], dtype="Int32"), "b": pd.array([3, 4, None], dtype="Int32")}),
    "Int64_float64": pd.DataFrame({"a": pd.array([1, None, None], dtype="Int64"), "b": [3.5, 4, np.nan]}),
    "Int64_int64": pd.DataFrame({"a": pd.array([1, None, None], dtype="Int64"), "b": [3, 4, 0]}),
    "boolean_bool": pd.DataFrame({"a": pd.array([True, None, None], dtype="boolean"), "b": [True, False, False]}),
    "boolean": pd.DataFrame({"a": pd.array([True, None, None], dtype="boolean"),
                             "b": pd.array([False, True, None], dtype="boolean")}),
    "float32": pd.DataFrame({"a": np.array([1, np.nan, np.nan], dtype="float32"),
                             "b": np.array([3, 4, np.nan], dtype="float32")}),
    "Int64_bool": pd.DataFrame({"a": pd.array([1, None, None, 0], dtype="Int64"), "b": [False, False, True, False]}),
    "boolean_float64": pd.DataFrame({"a": pd.array([True, False], dtype="boolean"), "b": [np.nan, 0.0]}),
    "no_rows": pd.DataFrame({"a": pd.Series([], dtype="int64"), "b": pd.Series([], dtype="Int64")}),
    "no_columns": pd.DataFrame(index=pd.RangeIndex(2)),
}  # fmt: skip


@pytest.mark.parametrize("op", ["sum", "prod", "mean", "min", "max", "std", "var", "median", "any", "all", "sem"])
@pytest.mark.parametrize("name", list(ROW_MASKED))
def test_frame_row_reductions_masked(name, op):
    """axis=1 over masked columns reduces as pandas' groupby: masked results, Kleene any/all, NA for no values."""
    df = ROW_MASKED[name]
    for skipna in (True, False):
        check_frame_reduction(df, op, axis=1, skipna=skipna)
    if op in ("sum", "prod"):
        for min_count in (1, 2, 3):
            check_frame_reduction(df, op, axis=1, min_count=min_count)
    if op in ("std", "var", "sem"):
        for ddof in (0, 2):
            check_frame_reduction(df, op, axis=1, ddof=ddof, skipna=False)


@given(frame_st(dtypes=["int64", "float64", "float32", "int32", "bool", "Int64", "Float64", "boolean"], max_cols=4),
       st.sampled_from(["sum", "mean", "min", "max", "count", "std", "var", "prod", "median", "any", "all", "sem"]),
       st.booleans(), st.integers(0, 3))  # fmt: skip
def test_frame_reduction_axis1_options(df, op, skipna, extra):
    kwargs: dict[str, Any] = {} if op == "count" else {"skipna": skipna}
    if op in ("std", "var", "sem"):
        kwargs["ddof"] = extra
    if op in ("sum", "prod"):
        kwargs["min_count"] = extra
    check_frame_reduction(df, op, reject_object=True, axis=1, **kwargs)


@given(frame_st(dtypes=["int64", "float32", "bool", "Int64", "Float64", "boolean", "datetime64[ns]", "timedelta64[ns]",
                        "str", "category"], max_cols=4),
       st.sampled_from(FRAME_OPS), st.booleans(), st.booleans())  # fmt: skip
def test_frame_reduction_axis0_all_dtypes(df, op, skipna, numeric_only):
    kwargs: dict[str, Any] = {"dropna": skipna} if op == "nunique" else {} if op == "count" else {"skipna": skipna}
    if op in ("any", "all"):
        kwargs["bool_only"] = numeric_only
    elif op != "nunique":
        kwargs["numeric_only"] = numeric_only
    kinds = {d.kind if isinstance(d, np.dtype) else str(d) for d in df.dtypes}
    # Temporal columns beside others: pandas gives object results (or ValueErrors from its object path).
    assume(not (kinds & {"M", "m"} and len(kinds) > 1 and not numeric_only))
    check_frame_reduction(df, op, reject_object=True, **kwargs)
