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


def _kwargs(op: str, skipna: bool) -> dict[str, Any]:
    if op == "nunique":
        return {"dropna": skipna}
    if op == "count":
        return {}
    return {"skipna": skipna}


# --------------------------------------------------------------------------- known riptide bugs

BUGS = {
    "R1": "riptide bug: any()/all() of a str Series raise TypeError; pandas reduces the truthiness of the strings",
    "R2": "riptide bug: idxmin()/idxmax() of a str or category Series raise TypeError; pandas returns the label "
          "(ValueError when empty / all-NA / NA with skipna=False)",
    "R3": "riptide bug: datetime64 any/all (always) and sum/prod/var/sem (when empty, all-NaT or NaT with "
          "skipna=False) return a value (True/False, NaT, Timedelta(0)); pandas raises TypeError",
    "R4": "riptide bug: timedelta64 any(skipna=False) with NaT is False; pandas counts NaT as True",
    "R5": "riptide bug: timedelta64 var (always) and prod/sem (empty, all-NaT or NaT with skipna=False) return NaT; "
          "pandas raises TypeError",
    "Q1": "riptide bug: quantile of an empty or all-NA Int64/Float64 Series is nan; pandas returns <NA>; and "
          "Int64.quantile([q]) is float64 where pandas gives Int64/Float64",
    "Q2": "riptide bug: quantile of a datetime64/timedelta64 Series raises TypeError ('Cannot convert input [...] of "
          "type ndarray to Timestamp'); pandas returns a Timestamp/Timedelta",
    "Q3": "riptide bug: quantile(interpolation='lower'/'higher'/'nearest') of an int or float32 Series is float64; "
          "pandas keeps the dtype (np.int8(3), np.float32)",
    "QI": "riptide bug: quantile(interpolation='midpoint'/'linear') between two equal infinities is inf; pandas "
          "gives NaN (it computes a + (b - a) * f)",
    "RV1": "riptide bug: std/var/sem of a float Series with skipna=False and ddof >= count is inf; pandas gives NaN",
    "Q5": "riptide bug: quantile of a bool Series with interpolation='lower'/'higher'/'nearest' raises TypeError; "
          "pandas returns a bool",
    "NO1": "riptide bug: numeric_only=True keeps datetime64/timedelta64 columns (df.sum(numeric_only=True) then "
           "raises TypeError, df.mean(numeric_only=True) has an extra row); pandas drops them",
    "Q4": "riptide bug: quantile of a 'boolean' Series computes a value; pandas raises TypeError",
    "AR": "riptide bug: Series.argmin()/argmax() and idxmin()/idxmax() on an int index return a Python int; pandas "
          "returns np.int64",
    "F1": "riptide bug: DataFrame reductions (axis=0) with a masked column (Int64/Float64/boolean) return numpy dtypes "
          "(df.sum() is float64/int64, any() bool); pandas returns the masked dtype (Float64/Int64/boolean). When one "
          "column's result is <NA> (an all-NA Int64 column) riptide raises TypeError('... columns of different kinds')",
    "F3": "riptide bug: the sum/prod/min/... of an empty float32 DataFrame column is float64; pandas keeps float32",
    "F4": "riptide bug: reductions of a DataFrame with no columns raise TypeError (empty object Index); pandas returns "
          "an empty float64 Series",
    "F5": "riptide bug: row-wise (axis=1) reductions compute in float64 and cast: int8 / bool max(axis=1) is int64 "
          "(pandas int8 / bool), uint64+int64 sum(axis=1) is int64 (pandas float64), Int64 sum(axis=1) is float64 "
          "(pandas Int64), float32 sum(axis=1) is float64 (pandas float32)",
}


def frame_reduction_bug(df: pd.DataFrame, op: str, axis: int = 0, numeric_only: bool = False) -> str | None:
    """Known bug class for ``df.<op>(axis=axis)`` (None: riptide should agree with pandas)."""
    columns = [c for c in df.columns if not numeric_only or pd.api.types.is_numeric_dtype(df[c].dtype)]
    dtypes = [str(df[c].dtype) for c in columns]
    if axis == 1:
        if op == "count":
            return None
        if any(d in ("Int64", "Float64", "boolean", "float32") for d in dtypes):
            return "F5"
        if op in ("min", "max") and any(d not in ("int64", "float64") for d in dtypes):
            return "F5"
        if op in ("sum", "prod") and "uint64" in dtypes and any(d.startswith("int") for d in dtypes):
            return "F5"
        return None
    if op in ("idxmin", "idxmax") and any(d in ("str", "category") for d in dtypes):
        return "R2"
    if not columns:
        return "F4"
    if any(d in ("Int64", "Float64", "boolean") for d in dtypes) and op not in ("count", "nunique", "idxmin", "idxmax"):
        return "F1"
    if len(df) == 0 and "float32" in dtypes and op in ("sum", "prod"):
        return "F3"
    return None


def reduction_bug(dtype: str, op: str, case: str) -> str | None:
    """Known bug class for ``Series[dtype].<op>()`` on the edge-case data ``case`` (either skipna)."""
    if dtype == "str" and op in ("any", "all"):
        return "R1"
    if dtype in ("str", "category") and op in ("idxmin", "idxmax"):
        return "R2"
    if dtype == "datetime64[ns]" and (op in ("any", "all") or (
            op in ("sum", "prod", "var", "sem") and case != "one")):  # fmt: skip
        return "R3"
    if dtype == "timedelta64[ns]" and op == "any" and case in ("all_na", "one_na"):
        return "R4"
    if dtype == "timedelta64[ns]" and (op == "var" or (op in ("prod", "sem") and case != "one")):
        return "R5"
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, error = pandas_result(lambda: getattr(s, op)(**kwargs))
    if error is None and op in ("idxmin", "idxmax"):  # AR: riptide boxes int labels as Python int
        assert_scalar_equal(getattr(rt.from_pandas(s), op)(**kwargs), expected, check_type=False)
        return
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
    assume(not (s.dtype.kind == "f" and not skipna and ddof >= len(s) and not s.isna().any()))  # RV1
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
    assume(str(s.dtype) not in ("Int64", "Float64"))  # Q1
    assume(s.dtype.kind not in "mM")  # Q2
    assume(not ((s.dtype.kind in "iu" or s.dtype == np.float32) and interpolation != "linear"))  # Q3
    assume(not (s.dtype.kind == "f" and np.isinf(s).any()))  # QI
    assume(str(s.dtype) != "boolean")  # Q4
    assume(not (s.dtype == bool and (len(s) == 0 or interpolation != "linear")))  # Q5; empty: pandas quirk
    check_scalar(lambda: rt.from_pandas(s).quantile(qs[0], interpolation=interpolation),
                 lambda: s.quantile(qs[0], interpolation=interpolation), rtol=1e-9, atol=1e-9)  # fmt: skip
    expected, error = pandas_result(lambda: s.quantile(qs, interpolation=interpolation))
    if error is None:
        assert_series_equal(rt.from_pandas(s).quantile(qs, interpolation=interpolation), expected, check_exact=False,
                            rtol=1e-9, atol=1e-9)  # fmt: skip


@pytest.mark.xfail(strict=True, reason=BUGS["Q1"])
@pytest.mark.parametrize("dtype", ["Int64", "Float64"])
def test_quantile_of_all_na_masked_is_na(dtype):
    s = pd.Series([None, None], dtype=dtype)
    check_scalar(lambda: rt.from_pandas(s).quantile(0.5), lambda: s.quantile(0.5))


@pytest.mark.xfail(strict=True, reason=BUGS["Q1"])
def test_quantile_list_of_masked():
    s = pd.Series([1, 5, None], dtype="Int64")
    assert_series_equal(rt.from_pandas(s).quantile([0.5]), s.quantile([0.5]))


@pytest.mark.xfail(strict=True, reason=BUGS["Q2"])
@pytest.mark.parametrize("dtype", ["datetime64[ns]", "timedelta64[ns]"])
def test_quantile_temporal(dtype):
    s = make_values(np.random.default_rng(1), dtype, 7, 0.2)
    check_scalar(lambda: rt.from_pandas(s).quantile(0.5), lambda: s.quantile(0.5))


@pytest.mark.xfail(strict=True, reason=BUGS["Q3"])
@pytest.mark.parametrize("interpolation", ["lower", "higher", "nearest"])
@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_quantile_int_keeps_dtype(interpolation, dtype):
    s = pd.Series([1, 5, 3], dtype=dtype)
    check_scalar(lambda: rt.from_pandas(s).quantile(0.5, interpolation=interpolation),
                 lambda: s.quantile(0.5, interpolation=interpolation))  # fmt: skip


@pytest.mark.xfail(strict=True, reason=BUGS["RV1"])
@pytest.mark.parametrize("op", ["std", "var"])
def test_float_ddof_at_count_is_nan(op):
    s = pd.Series([0.5, 1.5], dtype="float32")
    check_scalar(lambda: getattr(rt.from_pandas(s), op)(ddof=2, skipna=False), lambda: getattr(s, op)(ddof=2, skipna=False))


@pytest.mark.xfail(strict=True, reason=BUGS["Q5"])
def test_bool_quantile_lower():
    s = pd.Series([True, False, True])
    check_scalar(lambda: rt.from_pandas(s).quantile(0.5, interpolation="lower"),
                 lambda: s.quantile(0.5, interpolation="lower"))  # fmt: skip


@pytest.mark.xfail(strict=True, reason=BUGS["QI"])
def test_quantile_of_infinities():
    s = pd.Series([-np.inf, -np.inf, 1.0])
    check_scalar(lambda: rt.from_pandas(s).quantile(0.25, interpolation="midpoint"),
                 lambda: s.quantile(0.25, interpolation="midpoint"))  # fmt: skip


@pytest.mark.xfail(strict=True, reason=BUGS["Q4"])
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


@pytest.mark.xfail(strict=True, reason=BUGS["AR"])
@pytest.mark.parametrize("op", ["argmin", "argmax", "idxmin", "idxmax"])
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


def check_frame_reduction(df: pd.DataFrame, op: str, **kwargs: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, error = pandas_result(lambda: getattr(df, op)(**kwargs))
    if error is not None:
        with pytest.raises(_base_error(error)):
            getattr(rt.from_pandas(df), op)(**kwargs)
        return
    if expected.dtype == object:
        pytest.skip("pandas gives an object Series (mixed kinds); riptide documents it raises or differs")
    got = getattr(rt.from_pandas(df), op)(**kwargs)
    float32 = any(str(d) in ("float32", "Float32") for d in df.dtypes)
    assert_series_equal(got, expected, check_exact=False, rtol=1e-5 if float32 else 1e-9, atol=1e-12)


FRAME_DTYPES = ["int64", "float64", "bool", "int32", "Int64", "Float64", "boolean"]


@given(frame_st(dtypes=FRAME_DTYPES, max_cols=5), st.sampled_from(FRAME_OPS), st.booleans())
def test_frame_reduction_axis0(df, op, skipna):
    assume(frame_reduction_bug(df, op) is None)  # the F* xfail tests below cover those
    check_frame_reduction(df, op, **({"dropna": skipna} if op == "nunique" else {} if op == "count" else
                                     {"skipna": skipna}))  # fmt: skip


@given(frame_st(dtypes=["int64", "float64", "int32", "float32", "bool", "Int64", "Float64"], min_cols=1, max_cols=5),
       st.sampled_from(["sum", "mean", "min", "max", "count", "std", "var", "prod", "median", "any", "all"]),
       st.booleans())  # fmt: skip
def test_frame_reduction_axis1(df, op, skipna):
    assume(frame_reduction_bug(df, op, axis=1) is None)
    check_frame_reduction(df, op, **({} if op == "count" else {"skipna": skipna}), axis=1)


@given(frame_st(dtypes=["int64", "float64", "str", "category"], max_cols=5),
       st.sampled_from(["sum", "mean", "min", "max", "std", "count", "median", "prod", "var"]))  # fmt: skip
def test_frame_reduction_numeric_only(df, op):
    assume(frame_reduction_bug(df, op, numeric_only=True) is None)
    check_frame_reduction(df, op, numeric_only=True)


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


@pytest.mark.xfail(strict=True, reason=BUGS["F1"])
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
    assume(error is not None)
    with pytest.raises(TypeError):
        getattr(rt.from_pandas(s), op)()


@pytest.mark.xfail(strict=True, reason=BUGS["NO1"])
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_numeric_only_drops_datetimes(op):
    check_frame_reduction(MIXED, op, numeric_only=True)
