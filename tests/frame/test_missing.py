"""Missing values and row-ordered operations vs pandas.

isna/notna, fillna, ffill/bfill, dropna, where/mask, clip, abs, round, cumulative ops, shift, diff,
pct_change, isin, between and equals: same values and dtypes as pandas on the same data.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import (
    stable_id,
    ALL_DTYPES,
    assert_frame_equal,
    assert_series_equal,
    documented,
    frame_st,
    make_values,
    pandas_result,
    series_st,
)
from hypothesis import assume, given
from hypothesis import strategies as st

import riptide as rt

NUMERIC = ["int8", "int32", "int64", "uint8", "uint64", "float32", "float64", "bool", "Int64", "Float64", "boolean"]

BUGS = {
    "COLIDX": "riptide bug: a frame whose columns were all removed (dropna(axis=1), df[[]]) has an empty RangeIndex "
              "of columns; pandas keeps the original columns' dtype (str)",
}


def _base_error(error: BaseException) -> type[BaseException]:
    for base in (TypeError, ValueError, KeyError, IndexError, NotImplementedError):
        if isinstance(error, base):
            return base
    return type(error)


def check(rt_obj: Any, pd_obj: Any, fn: Any, source: Any = None, **kwargs: Any) -> None:
    """``fn(obj)`` agrees: equal results (documented dtype differences applied) or the same exception type."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, error = pandas_result(lambda: fn(pd_obj))
    if error is not None:
        with pytest.raises(_base_error(error)):
            fn(rt_obj)
        return
    got = fn(rt_obj)
    expected = documented(expected, pd_obj if source is None else source)
    kwargs.setdefault("check_exact", False)
    kwargs.setdefault("rtol", 1e-9)
    if isinstance(expected, pd.DataFrame):
        assert_frame_equal(got, expected, **kwargs)
    elif isinstance(expected, pd.Series):
        assert_series_equal(got, expected, **kwargs)
    else:
        assert got == expected, f"riptide {got!r}, pandas {expected!r}"


# --------------------------------------------------------------------------- isna / notna


@given(series_st())
def test_isna_notna(s):
    r = rt.from_pandas(s)
    assert_series_equal(r.isna(), s.isna())
    assert_series_equal(r.notna(), s.notna())
    assert_series_equal(r.isnull(), s.isnull())
    assert r.hasnans == s.hasnans


@given(frame_st())
def test_frame_isna_notna(df):
    f = rt.from_pandas(df)
    assert_frame_equal(f.isna(), df.isna())
    assert_frame_equal(f.notna(), df.notna())


# --------------------------------------------------------------------------- fillna

FILL_VALUES = {
    "int8": [0, 5, 1.5, 300], "int64": [0, -7, 2.5], "uint8": [3, -1], "float32": [0.0, 1.5, -1e10],
    "float64": [0, 2.5, np.inf], "bool": [True, 0], "Int64": [0, 3, 1.5], "Float64": [0.0, 2.25, 3],
    "boolean": [True, False], "str": ["x", "", "é"], "category": ["absent"],
    "datetime64[ns]": [pd.Timestamp("2000-01-01")], "timedelta64[ns]": [pd.Timedelta("1s")],
}  # fmt: skip


def _fillna_cases() -> list[Any]:
    cases = []
    for dtype in ALL_DTYPES:
        for frac in (0.0, 0.3, 1.0):
            for value in FILL_VALUES.get(dtype, []):
                cases.append(pytest.param(dtype, frac, value, id=f"{dtype}-{frac}-{value!r}"))
    return cases


@pytest.mark.parametrize(("dtype", "frac", "value"), _fillna_cases())
def test_fillna_scalar(dtype, frac, value):
    s = make_values(np.random.default_rng(2), dtype, 20, frac, small=True)
    check(rt.from_pandas(s), s, lambda obj: obj.fillna(value))
    if s.notna().any():
        first = s.dropna().iloc[0]
        check(rt.from_pandas(s), s, lambda obj: obj.fillna(first))


@given(series_st(dtypes=["float64", "Int64", "Float64", "str", "datetime64[ns]"]))
def test_fillna_with_series(s):
    filler = s.iloc[::-1].reset_index(drop=True)
    filler.index = s.index
    filler = filler.fillna(s.dropna().iloc[0]) if s.notna().any() else filler
    check(rt.from_pandas(s), s, lambda obj: obj.fillna(rt.from_pandas(filler) if isinstance(obj, rt.Series) else filler))


def test_fillna_with_dict_for_series():
    s = pd.Series([1.0, np.nan, np.nan], index=["a", "b", "c"])
    check(rt.from_pandas(s), s, lambda obj: obj.fillna({"b": 10.0, "zz": 3.0}))


def test_fillna_frame_with_dict_and_scalar():
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": pd.array([None, 2, None], dtype="Int64"),
                       "s": pd.Series(["x", None, "z"], dtype="str")})  # fmt: skip
    check(rt.from_pandas(df), df, lambda obj: obj.fillna({"a": 0.5, "s": "missing"}))
    check(rt.from_pandas(df), df, lambda obj: obj.fillna({"b": 7}))
    check(rt.from_pandas(df.drop(columns="s")), df.drop(columns="s"), lambda obj: obj.fillna(0))


def test_fillna_inplace_and_errors():
    p = pd.Series([1.0, np.nan])
    r = rt.from_pandas(p)
    assert r.fillna(0.0, inplace=True) is None
    assert_series_equal(r, p.fillna(0.0))
    with pytest.raises(ValueError):
        rt.from_pandas(p).fillna()
    with pytest.raises(TypeError):
        rt.from_pandas(p).fillna([1.0, 2.0])


# --------------------------------------------------------------------------- ffill / bfill


@given(series_st(), st.sampled_from([None, 1, 2, 5]), st.sampled_from(["ffill", "bfill"]))
def test_ffill_bfill(s, limit, method):
    check(rt.from_pandas(s), s, lambda obj: getattr(obj, method)(limit=limit))


@given(frame_st(max_cols=4), st.sampled_from([None, 1, 3]), st.sampled_from(["ffill", "bfill"]))
def test_frame_ffill_bfill(df, limit, method):
    check(rt.from_pandas(df), df, lambda obj: getattr(obj, method)(limit=limit))


# --------------------------------------------------------------------------- dropna


@given(series_st())
def test_series_dropna(s):
    check(rt.from_pandas(s), s, lambda obj: obj.dropna())
    check(rt.from_pandas(s), s, lambda obj: obj.dropna(ignore_index=True))


@given(frame_st(max_cols=5), st.sampled_from(["any", "all"]))
def test_frame_dropna_how(df, how):
    check(rt.from_pandas(df), df, lambda obj: obj.dropna(how=how))
    if len(df.dropna(how=how, axis=1).columns) or not len(df.columns):  # no column left: COLIDX
        check(rt.from_pandas(df), df, lambda obj: obj.dropna(how=how, axis=1))


@given(frame_st(max_cols=5), st.integers(0, 6))
def test_frame_dropna_thresh(df, thresh):
    check(rt.from_pandas(df), df, lambda obj: obj.dropna(thresh=thresh))
    if len(df.dropna(thresh=thresh, axis=1).columns) or not len(df.columns):  # no column left: COLIDX
        check(rt.from_pandas(df), df, lambda obj: obj.dropna(thresh=thresh, axis=1))


@pytest.mark.xfail(strict=True, reason=BUGS["COLIDX"])
def test_frame_dropna_all_columns():
    df = pd.DataFrame({"a": [np.nan], "b": [np.nan]})
    check(rt.from_pandas(df), df, lambda obj: obj.dropna(axis=1))


@given(frame_st(min_cols=2, max_cols=5), st.data())
def test_frame_dropna_subset(df, data):
    subset = data.draw(st.lists(st.sampled_from(list(df.columns)), min_size=1, unique=True))
    check(rt.from_pandas(df), df, lambda obj: obj.dropna(subset=subset))
    check(rt.from_pandas(df), df, lambda obj: obj.dropna(subset=subset, how="all"))


def test_dropna_errors():
    df = pd.DataFrame({"a": [1.0, np.nan]})
    check(rt.from_pandas(df), df, lambda obj: obj.dropna(subset=["zz"]))
    check(rt.from_pandas(df), df, lambda obj: obj.dropna(how="sometimes"))
    check(rt.from_pandas(df), df, lambda obj: obj.dropna(how="any", thresh=1))


# --------------------------------------------------------------------------- where / mask


@given(series_st(dtypes=NUMERIC + ["str", "datetime64[ns]"]), st.data())
def test_where_mask_scalar_other(s, data):
    rng = np.random.default_rng(len(s))
    cond = rng.random(len(s)) < 0.5
    valid = s.dropna()
    other = data.draw(st.sampled_from([np.nan] + list(valid.iloc[:2])))
    check(rt.from_pandas(s), s, lambda obj: obj.where(cond, other))
    check(rt.from_pandas(s), s, lambda obj: obj.mask(cond, other))
    check(rt.from_pandas(s), s, lambda obj: obj.where(cond))


def test_where_with_series_condition_and_other():
    s = pd.Series([1.0, 2.0, 3.0, 4.0], index=list("abcd"))
    cond = s > 2
    other = pd.Series([10.0, 20.0, 30.0, 40.0], index=list("abcd"))
    r = rt.from_pandas(s)
    assert_series_equal(r.where(r > 2, rt.from_pandas(other)), s.where(cond, other))
    assert_series_equal(r.mask(r > 2, rt.from_pandas(other)), s.mask(cond, other))
    assert_series_equal(r.where(lambda x: x > 2, 0.0), s.where(lambda x: x > 2, 0.0))


def test_where_int_with_nan_upcasts():
    s = pd.Series([1, 2, 3])
    check(rt.from_pandas(s), s, lambda obj: obj.where([True, False, True]))
    check(rt.from_pandas(s), s, lambda obj: obj.where([True, False, True], 1.5))


def test_frame_where_mask():
    df = pd.DataFrame({"a": [1.0, -2.0, 3.0], "b": [-1, 5, -7]})
    f = rt.from_pandas(df)
    assert_frame_equal(f.where(f > 0, 0), df.where(df > 0, 0))
    assert_frame_equal(f.mask(f > 0), df.mask(df > 0))
    assert_frame_equal(f.where(f > 0), df.where(df > 0))


def test_where_unused_nan_keeps_int():
    s = pd.Series([1, 2])
    check(rt.from_pandas(s), s, lambda obj: obj.where([True, True], np.nan))


def test_clip_that_clips_nothing_keeps_int():
    s = pd.Series(np.array([1, 2], dtype="int8"))
    check(rt.from_pandas(s), s, lambda obj: obj.clip(upper=2.5))


def test_masked_int_clip_with_fraction_raises():
    s = pd.Series([1, 5], dtype="Int64")
    check(rt.from_pandas(s), s, lambda obj: obj.clip(upper=2.5))


def test_where_bad_condition():
    s = pd.Series([1.0, 2.0])
    check(rt.from_pandas(s), s, lambda obj: obj.where([True]))


# --------------------------------------------------------------------------- clip / abs / round


@given(series_st(dtypes=["int8", "int64", "uint8", "float32", "float64", "Int64", "Float64"]),
       st.sampled_from([None, -5, 0, 2.5]), st.sampled_from([None, 5, 10, 2.5]))  # fmt: skip
def test_clip(s, lower, upper):
    assume(lower is None or upper is None or lower <= upper)
    check(rt.from_pandas(s), s, lambda obj: obj.clip(lower, upper))


def test_frame_clip():
    df = pd.DataFrame({"a": [1.0, -2.0, np.nan, 9.0], "b": [-1, 5, -7, 0]})
    check(rt.from_pandas(df), df, lambda obj: obj.clip(-1, 4))
    check(rt.from_pandas(df), df, lambda obj: obj.clip(lower=0))


@given(series_st(dtypes=NUMERIC + ["timedelta64[ns]"]))
def test_abs(s):
    check(rt.from_pandas(s), s, lambda obj: obj.abs())


@given(series_st(dtypes=NUMERIC), st.integers(-2, 4))
def test_round(s, decimals):
    check(rt.from_pandas(s), s, lambda obj: obj.round(decimals))


def test_round_bool_negative_decimals():
    s = pd.Series([True, False])
    check(rt.from_pandas(s), s, lambda obj: obj.round(-1))


def test_frame_round():
    df = pd.DataFrame({"a": [1.2345, -2.5, np.nan], "b": [1, 2, 3], "s": pd.Series(["x", "y", "z"], dtype="str")})
    check(rt.from_pandas(df), df, lambda obj: obj.round(2))
    check(rt.from_pandas(df), df, lambda obj: obj.round({"a": 1}))


# --------------------------------------------------------------------------- cumulative


@given(series_st(dtypes=NUMERIC + ["timedelta64[ns]", "datetime64[ns]"], max_size=300),
       st.sampled_from(["cumsum", "cumprod", "cummin", "cummax"]), st.booleans())  # fmt: skip
def test_cumulative(s, op, skipna):
    if op == "cumprod":
        s = s.clip(-3, 3) if s.dtype.kind in "iuf" or str(s.dtype) in ("Int64", "Float64") else s
    check(rt.from_pandas(s), s, lambda obj: getattr(obj, op)(skipna=skipna), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint8", "Int8"])
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumulative_small_ints(dtype, op):
    s = pd.Series([1, 2, 1], dtype=dtype)
    check(rt.from_pandas(s), s, lambda obj: getattr(obj, op)())


@given(frame_st(dtypes=["int64", "float64", "Int64"], min_cols=1, max_cols=3, max_size=100),
       st.sampled_from(["cumsum", "cummin", "cummax"]))  # fmt: skip
def test_frame_cumulative(df, op):
    check(rt.from_pandas(df), df, lambda obj: getattr(obj, op)())


# --------------------------------------------------------------------------- shift / diff / pct_change


@given(series_st(), st.integers(-5, 5))
def test_shift(s, periods):
    check(rt.from_pandas(s), s, lambda obj: obj.shift(periods))


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_shift_zero_keeps_dtype(dtype):
    s = pd.Series([1, 0, 1], dtype=dtype)
    check(rt.from_pandas(s), s, lambda obj: obj.shift(0))


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_shift_empty_upcasts(dtype):
    s = pd.Series([], dtype=dtype)
    check(rt.from_pandas(s), s, lambda obj: obj.shift(1))


@given(series_st(dtypes=["int64", "float64", "Int64", "str", "datetime64[ns]", "bool"]), st.integers(-3, 3), st.data())
def test_shift_fill_value(s, periods, data):
    valid = s.dropna()
    assume(len(valid))
    fill = data.draw(st.sampled_from(list(valid.iloc[:2])))
    check(rt.from_pandas(s), s, lambda obj: obj.shift(periods, fill_value=fill))


def test_shift_bad_periods():
    s = pd.Series([1, 2])
    check(rt.from_pandas(s), s, lambda obj: obj.shift(1.5))


@given(series_st(dtypes=NUMERIC + ["datetime64[ns]", "timedelta64[ns]"], max_size=300, small=True),
       st.integers(-3, 3))  # fmt: skip
def test_diff(s, periods):
    check(rt.from_pandas(s), s, lambda obj: obj.diff(periods))


@pytest.mark.parametrize(("bug", "values", "dtype"), [
    pytest.param(bug, values, dtype, id=f"{bug}-{dtype}")
    for bug, values, dtype in [("D2", [1, 5], "int8"), ("D2", [1, 5], "int16"), ("D3", [True, False, None], "boolean"),
                               ("D4", [5, 1], "uint8"), ("D4", [2**63 - 1, -(2**62)], "int64")]])  # fmt: skip
def test_diff_known_bugs(bug, values, dtype):
    s = pd.Series(values, dtype=dtype)
    check(rt.from_pandas(s), s, lambda obj: obj.diff())


@given(series_st(dtypes=["int64", "float64", "float32"], max_size=300), st.integers(-2, 3))
def test_pct_change(s, periods):
    check(rt.from_pandas(s), s, lambda obj: obj.pct_change(periods), rtol=1e-6)


@given(series_st(dtypes=["Float64", "Int64"], max_size=300, small=True), st.integers(1, 3))
def test_pct_change_masked_without_zeros(s, periods):
    s = s.where(s != 0, 1)  # 0/0: see test_pct_change_masked_zero_over_zero
    check(rt.from_pandas(s), s, lambda obj: obj.pct_change(periods), rtol=1e-6)


def test_pct_change_masked_zero_over_zero():
    s = pd.Series([0.0, 0.0, 1.0], dtype="Float64")
    check(rt.from_pandas(s), s, lambda obj: obj.pct_change())


@given(frame_st(dtypes=["int64", "float64"], min_cols=1, max_cols=3, max_size=100, small=True), st.integers(-2, 2))
def test_frame_shift_diff(df, periods):
    check(rt.from_pandas(df), df, lambda obj: obj.shift(periods))
    check(rt.from_pandas(df), df, lambda obj: obj.diff(periods))
    check(rt.from_pandas(df), df, lambda obj: obj.pct_change(periods))


# --------------------------------------------------------------------------- isin / between / equals


@given(series_st(), st.data())
def test_isin(s, data):
    valid = list(s.dropna().unique()[:5])
    assume(valid)
    values = data.draw(st.lists(st.sampled_from(valid), min_size=1, max_size=5))
    with_missing = data.draw(st.booleans())
    if with_missing and not (s.dtype.kind in "iu" and max(abs(int(v)) for v in values) > 2**53):  # I1
        values = values + [np.nan]
    check(rt.from_pandas(s), s, lambda obj: obj.isin(values))


def test_isin_large_value_set():
    rng = np.random.default_rng(0)
    s = pd.Series(rng.integers(0, 100_000, 5000))
    values = rng.integers(0, 100_000, 50_000)
    check(rt.from_pandas(s), s, lambda obj: obj.isin(values))
    strings = pd.Series([f"k{i}" for i in rng.integers(0, 20_000, 3000)], dtype="str")
    wanted = [f"k{i}" for i in range(0, 20_000, 3)]
    check(rt.from_pandas(strings), strings, lambda obj: obj.isin(wanted))
    check(rt.from_pandas(strings), strings, lambda obj: obj.isin(set(wanted)))


@pytest.mark.parametrize("dtype", ["Int64", "Float64", "boolean"])
def test_isin_masked_is_boolean(dtype):
    s = pd.Series([1, None, 0], dtype=dtype)
    check(rt.from_pandas(s), s, lambda obj: obj.isin([1]))


@pytest.mark.parametrize("values", [[], [None], [1, "y"]], ids=stable_id)
def test_isin_empty_none_and_mixed_values(values):
    s = pd.Series([1.0, 2.0, np.nan])
    check(rt.from_pandas(s), s, lambda obj: obj.isin(values))


def test_isin_nan_with_inexact_large_int():
    # floats in the values are compared with the integers exactly: 2**53 + 1 as a float is 2**53
    s = pd.Series([2**53 + 1, 3, 2**53, -(2**63)])
    for values in ([2**53 + 1, np.nan], [float(2**53)], [3.0, 3.5, -9.3e18, 1e300, -np.inf], [float(-(2**63))]):
        check(rt.from_pandas(s), s, lambda obj, v=values: obj.isin(v))


def test_isin_strings_and_mixed_kinds():
    s = pd.Series(["a", None, "é", "b"], dtype="str")
    for values in [["a", "é"], ["zz"], [1, 2], pd.Series(["b"], dtype="str")]:
        check(rt.from_pandas(s), s, lambda obj, v=values: obj.isin(rt.from_pandas(v) if isinstance(obj, rt.Series)
                                                                  and isinstance(v, pd.Series) else v))  # fmt: skip


def test_isin_scalar_raises():
    s = pd.Series([1, 2])
    check(rt.from_pandas(s), s, lambda obj: obj.isin(1))


def test_frame_isin():
    df = pd.DataFrame({"a": [1, 2, 3], "s": pd.Series(["x", "y", None], dtype="str")})
    check(rt.from_pandas(df), df, lambda obj: obj.isin({"a": [3], "s": ["x"]}))
    check(rt.from_pandas(df[["a"]]), df[["a"]], lambda obj: obj.isin([1, 3]))


def test_frame_isin_mixed_values():
    df = pd.DataFrame({"a": [1, 2, 3], "s": pd.Series(["x", "y", None], dtype="str")})
    check(rt.from_pandas(df), df, lambda obj: obj.isin([1, "y"]))


_STAMPS = pd.to_datetime(["2020", None, "2020-01-01 00:00:00.5"], format="ISO8601")


@pytest.mark.parametrize("column", [pd.Series(_STAMPS), pd.Series(_STAMPS.as_unit("ns")),
                                    pd.Series(pd.to_timedelta(["1D", None, "1s"])),
                                    pd.Series(_STAMPS.tz_localize("UTC"))], ids=["s", "ns", "timedelta", "tz"])
@pytest.mark.parametrize("values", [
    [pd.NaT], [None], [np.nan], [pd.NA], [np.datetime64("NaT", "ns")], [np.timedelta64("NaT", "ns")],
    pd.Series([pd.NaT]), pd.Series([np.nan]), pd.Series(pd.to_timedelta([None])), pd.Index([pd.NaT]),
    [pd.Timestamp("2020-01-01 00:00:00.5")], pd.Series(_STAMPS[2:].as_unit("ms")), [pd.Timedelta("1D")],
    [pd.Timestamp("2019-12-31 19:00", tz="America/New_York")], pd.Series(_STAMPS[:2].tz_localize("America/New_York")),
    [pd.Timestamp("2020"), np.nan], [pd.Timedelta("1D"), None], [pd.NaT, "x"],
])  # fmt: skip
def test_isin_of_datetimes_and_timedeltas(column, values):
    """NaT matches pd.NaT, or the missing values of values read as the column's kind ([Timestamp, NaN], not [NaN] or
    [None] alone); datetimes never match timedeltas, nor naive tz-aware values; values of another unit compare in the
    finer unit (no truncation)."""
    check(rt.from_pandas(column), column,
          lambda obj: obj.isin(values if isinstance(obj, pd.Series) or not isinstance(values, pd.Series)
                               else rt.from_pandas(values)))  # fmt: skip


_ISIN_FRAME = pd.DataFrame({"a": [1, 2, 3], "b": pd.Series(["x", "y", "z"], dtype="str"), "c": [1.0, np.nan, 3.0],
                            "I": pd.array([1, None, 3], dtype="Int64"), "bo": [True, False, True],
                            "d": pd.to_datetime(["2020", None, "2021"])}, index=[0, 1, 2])  # fmt: skip


@pytest.mark.parametrize("values", [
    pd.DataFrame({"a": [1, 5], "c": [np.nan, np.nan], "z": [1, 2], "I": [1, 1], "bo": [True, True]}),
    pd.DataFrame({"a": [3, 2, 1], "b": pd.Series(["z", "y", "q"], dtype="str")}, index=[2, 1, 0]),
    pd.DataFrame({"a": [1.0, 2.0]}), pd.DataFrame({"d": pd.to_datetime(["2020", None])}), pd.DataFrame(index=[0, 1]),
    pd.DataFrame({"a": [1, 2]}, index=[0, 0]), pd.Series([1, 2, 9], index=[0, 1, 5]), pd.Series([1.0, np.nan, 3.0]),
    pd.Series([1, 2], index=[0, 0]), pd.Series([True, False]), pd.Series([], dtype="float64"),
])  # fmt: skip
def test_frame_isin_aligned_frame_or_series(values):
    """isin with a DataFrame/Series compares value by value at the same row (and column) labels, as pandas;
    a values object with a repeated row label raises ValueError."""
    df = _ISIN_FRAME if isinstance(values, pd.DataFrame) else _ISIN_FRAME[["a", "c", "I", "bo"]]
    def isin(obj):
        return obj.isin(values if isinstance(obj, pd.DataFrame) else rt.from_pandas(values))

    check(rt.from_pandas(df), df, isin)
    repeated = df.set_axis([5, 1, 5])
    check(rt.from_pandas(repeated), repeated, isin)


@given(series_st(dtypes=["int64", "float64", "Int64", "Float64", "datetime64[ns]", "str"]),
       st.sampled_from(["both", "neither", "left", "right"]), st.data())  # fmt: skip
def test_between(s, inclusive, data):
    valid = s.dropna().sort_values()
    assume(len(valid) >= 1)
    left = data.draw(st.sampled_from(list(valid.iloc[:3])))
    right = data.draw(st.sampled_from(list(valid.iloc[-3:])))
    check(rt.from_pandas(s), s, lambda obj: obj.between(left, right, inclusive=inclusive))


def test_between_bad_inclusive():
    s = pd.Series([1, 2])
    check(rt.from_pandas(s), s, lambda obj: obj.between(0, 1, inclusive="yes"))


@given(series_st(), st.sampled_from(["same", "copy", "changed", "renamed_index", "other_dtype"]))
def test_series_equals(s, how):
    other = s.copy()
    if how == "changed" and len(s):
        other = pd.concat([s.iloc[1:], s.iloc[:1]])
        other.index = s.index
    elif how == "renamed_index":
        other.index = pd.RangeIndex(1, len(s) + 1)
    elif how == "other_dtype" and s.dtype == np.float64:
        other = s.astype("float32")
    assert rt.from_pandas(s).equals(rt.from_pandas(other)) == s.equals(other)


@given(frame_st(max_cols=4))
def test_frame_equals(df):
    f = rt.from_pandas(df)
    assert f.equals(rt.from_pandas(df.copy())) == df.equals(df.copy())
    if len(df.columns):
        dropped = df.drop(columns=df.columns[0])
        assert f.equals(rt.from_pandas(dropped)) == df.equals(dropped)
    assert not f.equals(df)  # a pandas object is not a riptide one


def test_equals_empty_with_other_index_kind():
    s = pd.Series([], dtype="int8", index=pd.Index([], dtype="str"))
    other = s.copy()
    other.index = pd.RangeIndex(1, 1)
    assert rt.from_pandas(s).equals(rt.from_pandas(other)) == s.equals(other)


def test_equals_nan_positions():
    a = pd.Series([1.0, np.nan, 3.0])
    b = pd.Series([1.0, 3.0, np.nan])
    assert rt.from_pandas(a).equals(rt.from_pandas(a.copy())) == a.equals(a.copy())
    assert rt.from_pandas(a).equals(rt.from_pandas(b)) == a.equals(b)
