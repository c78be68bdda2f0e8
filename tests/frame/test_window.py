"""rolling / expanding (and their grouped forms) vs pandas: values, index, names, dtypes and errors.

Floating-point results are compared with a tolerance scaled to what the numbers allow: a window sum is compared
to within 1e-12 of the window's absolute sum (pandas' Kahan running sum and riptide's pairwise block sums round
differently, and a sum that cancels to ~0 has no relative accuracy left), plus 1e-14 of the column's largest
value (pandas' running sum keeps a residue of values that have left the window). pandas' running variance (Welford with
removals) carries error from values that have left the window, so variances are compared to pandas within
1e-11 of the largest square in the column, and separately to an exact reference (fractions) to within 1e-12 of
the window's own scale (:func:`test_var_is_accurate_where_pandas_drifts`). Minimum, maximum, first, last, count
and median are exact, and so are quantiles. Skew and kurt (ratios of central moments) are compared within 1e-9 and,
far from zero, to exact fractions.
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from conftest import check_same_outcome, frame_st, make_values, series_st
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.core.column import as_column
from riptide.core.ops import window as core_window
from riptide.frame.window import grouped_expanding, grouped_rolling

OPS = ["sum", "mean", "var", "std", "sem", "min", "max", "count", "first", "last", "median"]
#: dtypes pandas' window functions read as numbers
WINDOW_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint64", "float32", "float64", "bool", "Int64",
                 "Float64", "boolean"]  # fmt: skip
CLOSED = [None, "right", "left", "both", "neither"]


# --------------------------------------------------------------------------- comparison helpers


def _float_values(s: pd.Series) -> np.ndarray:
    """What pandas' window functions read: float64, NaN for missing and for infinities."""
    values = s.to_numpy(dtype="float64", na_value=np.nan)
    return np.where(np.isinf(values), np.nan, values)


def _assert_values_close(got: np.ndarray, expected: np.ndarray, op: str, abs_sums: np.ndarray,
                         largest: float) -> None:  # fmt: skip
    """Same NaN positions; values within the tolerance the module docstring explains."""
    got = np.asarray(got, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected), err_msg=f"{op}: missing results differ")
    both = ~np.isnan(expected)
    got, expected, abs_sums = got[both], expected[both], abs_sums[both]
    if op in ("std", "sem"):  # compare squares, whose error bound is the variance's
        got, expected = got**2, expected**2
    if op in ("sum", "mean"):
        # pandas' compensated running sum keeps a residue of the order of eps * |x| of values that have left
        tolerance = 1e-12 * abs_sums + 1e-12 * np.abs(expected) + 1e-14 * largest
    elif op in ("var", "std", "sem"):
        tolerance = 1e-11 * largest**2 + 1e-12 * np.abs(expected)
    else:
        tolerance = np.zeros_like(expected)
    bad = np.abs(got - expected) > tolerance
    assert not bad.any(), f"{op}: riptide {got[bad][:5]} vs pandas {expected[bad][:5]}"


def _compare_series(op: str, abs_sums: np.ndarray, largest: float) -> Any:
    def compare(got: Any, expected: pd.Series) -> None:
        assert isinstance(got, rt.Series), f"expected a riptide Series, got {type(got).__name__}"
        result = got.to_pandas()
        assert result.dtype == expected.dtype, f"{op}: dtype {result.dtype} vs pandas {expected.dtype}"
        assert result.name == expected.name
        pdt.assert_index_equal(result.index, expected.index)
        _assert_values_close(result.to_numpy(), expected.to_numpy(), op, abs_sums, largest)

    return compare


def _compare_frames(op: str, abs_sums: dict[Any, np.ndarray], largest: dict[Any, float]) -> Any:
    def compare(got: Any, expected: pd.DataFrame) -> None:
        assert isinstance(got, rt.DataFrame), f"expected a riptide DataFrame, got {type(got).__name__}"
        result = got.to_pandas()
        assert list(result.columns) == list(expected.columns)
        pdt.assert_index_equal(result.index, expected.index)
        for label in expected.columns:
            assert result[label].dtype == expected[label].dtype, f"{op} {label}: dtype"
            if label not in abs_sums:  # the on= column, put back as it was
                pdt.assert_series_equal(result[label], expected[label])
                continue
            _assert_values_close(result[label].to_numpy(), expected[label].to_numpy(), op, abs_sums[label],
                                 largest[label])  # fmt: skip

    return compare


def _scales(s: pd.Series, make_window: Any) -> tuple[np.ndarray, float]:
    """The windows' absolute sums (through pandas, on |x|) and the column's largest finite |x|."""
    try:
        values = np.abs(np.nan_to_num(_float_values(s), nan=0.0))
    except (TypeError, ValueError):  # not numbers: only count compares, exactly
        values = np.zeros(len(s))
    magnitudes = pd.Series(values, index=s.index)
    abs_sums = make_window(magnitudes).sum().to_numpy()
    return abs_sums, float(values.max()) if len(values) else 0.0


def _kwargs(op: str, ddof: int) -> dict[str, Any]:
    return {"ddof": ddof} if op in ("var", "std", "sem") else {}


def _quiet(fn: Any) -> Any:
    def run() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()

    return run


@st.composite
def window_args(draw: Any, n: int) -> dict[str, Any]:
    window = draw(st.integers(0, n + 2))
    return {
        "window": window,
        "min_periods": draw(st.none() | st.integers(0, window)),
        "center": draw(st.booleans()),
        "closed": draw(st.sampled_from(CLOSED)),
        "step": draw(st.sampled_from([None, None, 1, 2, 3])),
    }


# --------------------------------------------------------------------------- Series.rolling / expanding


@settings(max_examples=60)
@given(s=series_st(dtypes=WINDOW_DTYPES, max_size=300), data=st.data())
def test_series_rolling_matches_pandas(s: pd.Series, data: Any) -> None:
    args = data.draw(window_args(len(s)))
    ddof = data.draw(st.sampled_from([1, 1, 0, 2]))
    rs = rt.from_pandas(s)
    abs_sums, largest = _scales(s, lambda x: x.rolling(**{**args, "min_periods": 0}))
    for op in OPS:
        check_same_outcome(_quiet(lambda: getattr(rs.rolling(**args), op)(**_kwargs(op, ddof))),
                           _quiet(lambda: getattr(s.rolling(**args), op)(**_kwargs(op, ddof))),
                           _compare_series(op, abs_sums, largest))  # fmt: skip


@settings(max_examples=40)
@given(s=series_st(dtypes=WINDOW_DTYPES, max_size=300), min_periods=st.integers(0, 4), ddof=st.sampled_from([0, 1]))
def test_series_expanding_matches_pandas(s: pd.Series, min_periods: int, ddof: int) -> None:
    rs = rt.from_pandas(s)
    abs_sums, largest = _scales(s, lambda x: x.expanding(0))
    for op in OPS:
        check_same_outcome(_quiet(lambda: getattr(rs.expanding(min_periods), op)(**_kwargs(op, ddof))),
                           _quiet(lambda: getattr(s.expanding(min_periods), op)(**_kwargs(op, ddof))),
                           _compare_series(op, abs_sums, largest))  # fmt: skip


@settings(max_examples=25)
@given(s=series_st(dtypes=["str", "category", "datetime64[ns]", "timedelta64[ns]"], max_size=50),
       window=st.integers(0, 4))  # fmt: skip
def test_series_of_non_numbers(s: pd.Series, window: int) -> None:
    """pandas raises DataError for every op but count, which counts any dtype (empty text columns pass)."""
    rs = rt.from_pandas(s)
    for op in OPS:
        check_same_outcome(_quiet(lambda: getattr(rs.rolling(window), op)()),
                           _quiet(lambda: getattr(s.rolling(window), op)()),
                           _compare_series(op, np.zeros(len(s)), 0.0))  # fmt: skip


@settings(max_examples=25)
@given(s=series_st(dtypes=["str", "datetime64[ns]"], min_size=1, max_size=20, nulls=False))
def test_non_numeric_series_errors_are_pandas(s: pd.Series) -> None:
    # pandas parses text that reads as numbers ("7"); only text that does not is refused.
    assume(s.dtype != "str" or pd.to_numeric(s, errors="coerce").isna().any())
    rs = rt.from_pandas(s)
    with pytest.raises(pd.errors.DataError, match="No numeric types to aggregate"):
        rs.rolling(2).sum()
    with pytest.raises(NotImplementedError, match="does not implement numeric_only"):
        rs.rolling(2).mean(numeric_only=True)


# --------------------------------------------------------------------------- DataFrame windows


@settings(max_examples=30)
@given(df=frame_st(dtypes=WINDOW_DTYPES + ["str", "datetime64[ns]"], max_cols=4, max_size=200), data=st.data())
def test_frame_rolling_matches_pandas(df: pd.DataFrame, data: Any) -> None:
    args = data.draw(window_args(len(df)))
    numeric_only = data.draw(st.booleans())
    rdf = rt.from_pandas(df)
    scales = {label: _scales(df[label], lambda x: x.rolling(**{**args, "min_periods": 0})) for label in df.columns}
    abs_sums = {label: value[0] for label, value in scales.items()}
    largest = {label: value[1] for label, value in scales.items()}
    for op in ["sum", "mean", "std", "max", "count"]:
        check_same_outcome(_quiet(lambda: getattr(rdf.rolling(**args), op)(numeric_only=numeric_only)),
                           _quiet(lambda: getattr(df.rolling(**args), op)(numeric_only=numeric_only)),
                           _compare_frames(op, abs_sums, largest))  # fmt: skip


@settings(max_examples=20)
@given(df=frame_st(dtypes=WINDOW_DTYPES, min_cols=1, max_cols=3, max_size=100), min_periods=st.integers(0, 3))
def test_frame_expanding_matches_pandas(df: pd.DataFrame, min_periods: int) -> None:
    rdf = rt.from_pandas(df)
    scales = {label: _scales(df[label], lambda x: x.expanding(0)) for label in df.columns}
    abs_sums = {label: value[0] for label, value in scales.items()}
    largest = {label: value[1] for label, value in scales.items()}
    for op in ["sum", "var", "min", "count", "last"]:
        check_same_outcome(_quiet(lambda: getattr(rdf.expanding(min_periods), op)()),
                           _quiet(lambda: getattr(df.expanding(min_periods), op)()),
                           _compare_frames(op, abs_sums, largest))  # fmt: skip


def test_frame_with_text_column_raises_data_error_naming_the_dtype() -> None:
    df = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"], "t": pd.to_datetime(["2020", "2021"])})
    rdf = rt.from_pandas(df)
    with pytest.raises(pd.errors.DataError, match="Cannot aggregate non-numeric type: str"):
        rdf.rolling(2).sum()
    with pytest.raises(pd.errors.DataError, match=r"Cannot aggregate non-numeric type: datetime64"):
        rdf[["a", "t"]].rolling(2).mean()
    pdt.assert_frame_equal(rdf.rolling(2).sum(numeric_only=True).to_pandas(), df.rolling(2).sum(numeric_only=True))
    pdt.assert_frame_equal(rdf.rolling(2).count().to_pandas(), df.rolling(2).count())
    # every column left out by numeric_only: an empty frame on the same index, as pandas (the label dtype of an
    # empty column axis is the DataFrame's own business)
    pdt.assert_frame_equal(rdf[["b"]].rolling(2).sum(numeric_only=True).to_pandas(),
                           df[["b"]].rolling(2).sum(numeric_only=True), check_column_type=False)  # fmt: skip


@pytest.mark.parametrize("position", [0, 1, 2])
def test_on_column_is_left_out_and_put_back(position: int) -> None:
    columns = {"a": [1.0, 2.0, 4.0, 8.0], "b": [1, 0, 1, 1]}
    items = list(columns.items())
    items.insert(position, ("t", ["x", "y", "z", "w"]))
    df = pd.DataFrame(dict(items))
    rdf = rt.from_pandas(df)
    for op in ["sum", "count", "max"]:
        pdt.assert_frame_equal(getattr(rdf.rolling(2, on="t"), op)().to_pandas(), getattr(df.rolling(2, on="t"), op)())
    pdt.assert_frame_equal(rdf.rolling(3, on="t", step=2).mean().to_pandas(), df.rolling(3, on="t", step=2).mean())


def test_column_selection_and_attribute_access() -> None:
    df = pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": [3, 1, 2], "c": [5.0, None, 1.0]})
    rdf = rt.from_pandas(df)
    pdt.assert_series_equal(rdf.rolling(2)["a"].sum().to_pandas(), df.rolling(2)["a"].sum())
    pdt.assert_series_equal(rdf.rolling(2).b.max().to_pandas(), df.rolling(2).b.max())
    pdt.assert_frame_equal(rdf.expanding()[["c", "a"]].mean().to_pandas(), df.expanding()[["c", "a"]].mean())
    with pytest.raises(KeyError):
        rdf.rolling(2)["nope"]
    with pytest.raises(AttributeError):
        rdf.rolling(2).nope  # noqa: B018 - the attribute access is the test


# --------------------------------------------------------------------------- agg


def test_agg_forms_match_pandas() -> None:
    df = pd.DataFrame({"a": [1.0, 2.0, None, 4.0, 5.0], "b": [3, 1, 2, 7, 7]})
    rdf = rt.from_pandas(df)
    s, rs = df["a"], rdf["a"]
    pdt.assert_series_equal(rs.rolling(2).agg("sum").to_pandas(), s.rolling(2).agg("sum"))
    pdt.assert_frame_equal(rs.rolling(2).agg(["sum", "mean", "max"]).to_pandas(), s.rolling(2).agg(["sum", "mean", "max"]))
    pdt.assert_frame_equal(rdf.rolling(3, min_periods=1).agg(["min", "std"]).to_pandas(),
                           df.rolling(3, min_periods=1).agg(["min", "std"]))  # fmt: skip
    pdt.assert_frame_equal(rdf.rolling(2).agg({"a": "sum", "b": ["max", "count"]}).to_pandas(),
                           df.rolling(2).agg({"a": "sum", "b": ["max", "count"]}))  # fmt: skip
    pdt.assert_frame_equal(rdf.rolling(2).agg({"b": "mean"}).to_pandas(), df.rolling(2).agg({"b": "mean"}))
    pdt.assert_frame_equal(rdf.expanding().aggregate([np.sum, "var"]).to_pandas(), df.expanding().aggregate([np.sum, "var"]))


def test_agg_bad_input() -> None:
    rs = rt.Series([1.0, 2.0, 3.0])
    with pytest.raises(AttributeError):
        rs.rolling(2).agg("nope")
    with pytest.raises(NotImplementedError, match="arbitrary function"):
        rs.rolling(2).agg(lambda x: x.sum())
    with pytest.raises(KeyError):
        rt.DataFrame({"a": [1.0]}).rolling(1).agg({"zz": "sum"})


# --------------------------------------------------------------------------- edge cases


@pytest.mark.parametrize("op", OPS)
def test_empty_all_missing_and_one_row(op: str) -> None:
    cases = [pd.Series([], dtype="float64"), pd.Series([], dtype="Int64"), pd.Series([np.nan] * 4),
             pd.Series([None] * 3, dtype="Float64"), pd.Series([7.5]), pd.Series([np.inf, -np.inf, 1.0, np.inf]),
             pd.Series([2**62, -(2**62), 3], dtype="int64"), pd.Series([0.1] * 6)]  # fmt: skip
    for s in cases:
        rs = rt.from_pandas(s)
        for args in [dict(window=1), dict(window=3, min_periods=0), dict(window=2, center=True, min_periods=1),
                     dict(window=0)]:  # fmt: skip
            abs_sums, largest = _scales(s, lambda x: x.rolling(**{**args, "min_periods": 0}))
            check_same_outcome(_quiet(lambda: getattr(rs.rolling(**args), op)()),
                               _quiet(lambda: getattr(s.rolling(**args), op)()),
                               _compare_series(op, abs_sums, largest))  # fmt: skip


def test_constant_windows_have_exactly_zero_variance() -> None:
    s = pd.Series([0.1, 0.3, 0.1, 0.1, 0.1, 0.1, 1e10, 0.1, 0.1, 0.1, 0.1])
    got = rt.from_pandas(s).rolling(3).var().to_numpy()
    expected = s.rolling(3).var().to_numpy()
    assert got[4] == 0.0 and got[5] == 0.0 and got[9] == 0.0 and got[10] == 0.0
    np.testing.assert_array_equal(got == 0.0, expected == 0.0)
    assert rt.Series([3.0] * 5).rolling(4, min_periods=1).std(ddof=0).tolist() == [0.0] * 5


def test_var_is_accurate_where_pandas_drifts() -> None:
    """Values far larger than a window's own values leave no trace in riptide's result once they have left it."""
    rng = np.random.default_rng(7)
    values = rng.standard_normal(400) * 10.0 ** rng.integers(-3, 6, size=400)
    values[rng.random(400) < 0.1] = np.nan
    start, end = core_window.fixed_window_bounds(len(values), 5, center=True, closed="both")
    got = core_window.reduce_windows(as_column(values), "var", start, end, 2).data
    got_sum = core_window.reduce_windows(as_column(values), "sum", start, end, 1).data
    for i in range(len(values)):
        window = [Fraction(v) for v in values[start[i] : end[i]] if not np.isnan(v)]
        if len(window) < 2:
            assert np.isnan(got[i])
            continue
        mean = sum(window) / len(window)
        exact = float(sum((v - mean) ** 2 for v in window) / (len(window) - 1))
        assert abs(got[i] - exact) <= 1e-12 * exact + 1e-300
        scale = float(sum(abs(v) for v in window))
        assert abs(got_sum[i] - float(sum(window))) <= 1e-15 * scale * 8


def test_integer_and_masked_inputs_give_float64() -> None:
    for dtype in ["int8", "uint64", "Int64", "Float64", "boolean", "bool", "float32"]:
        s = make_values(np.random.default_rng(1), dtype, 30, null_frac=0.2, small=True)
        result = rt.from_pandas(s).rolling(4, min_periods=2).mean().to_pandas()
        assert result.dtype == np.float64
        pdt.assert_series_equal(result, s.rolling(4, min_periods=2).mean(), rtol=1e-12)


def test_numeric_categorical_reads_its_values() -> None:
    s = pd.Series(pd.Categorical([1.5, 3.0, None, 1.5, 10.0]))
    rs = rt.from_pandas(s)
    for op in ["sum", "max", "count", "mean"]:
        pdt.assert_series_equal(getattr(rs.rolling(2, min_periods=1), op)().to_pandas(),
                                getattr(s.rolling(2, min_periods=1), op)())  # fmt: skip


def test_index_and_name_are_kept_and_stepped() -> None:
    s = pd.Series([1.0, 2.0, 3.0, 4.0, 5.0], index=["a", "b", "c", "d", "e"], name="x")
    rs = rt.from_pandas(s)
    pdt.assert_series_equal(rs.rolling(2).sum().to_pandas(), s.rolling(2).sum())
    pdt.assert_series_equal(rs.rolling(2, step=2).sum().to_pandas(), s.rolling(2, step=2).sum())
    r = pd.Series([1.0, 2.0, 3.0], index=pd.RangeIndex(10, 16, 2))
    pdt.assert_series_equal(rt.from_pandas(r).rolling(1, step=2).max().to_pandas(), r.rolling(1, step=2).max())


def test_repr_matches_pandas() -> None:
    s = pd.Series([1.0, 2.0])
    rs = rt.from_pandas(s)
    assert repr(rs.rolling(2)) == repr(s.rolling(2))
    assert repr(rs.rolling(2, min_periods=1, center=True, closed="both")) == repr(
        s.rolling(2, min_periods=1, center=True, closed="both"))
    assert repr(rs.expanding(3)) == repr(s.expanding(3))


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("kwargs", [
    dict(window=-1), dict(window=1.5), dict(window="abc"), dict(window=None), dict(window=2, min_periods=3),
    dict(window=2, min_periods=-1), dict(window=2, min_periods=1.0), dict(window=2, center="yes"),
    dict(window=2, closed="middle"), dict(window=2, step=-1), dict(window=2, step=1.0), dict(window=2, method="x"),
])  # fmt: skip
def test_bad_rolling_arguments_raise_pandas_errors(kwargs: dict[str, Any]) -> None:
    s = pd.Series([1.0, 2.0, 3.0])
    with pytest.raises(ValueError) as expected:
        s.rolling(**kwargs)
    with pytest.raises(ValueError) as got:
        rt.from_pandas(s).rolling(**kwargs)
    key_words = str(expected.value).split(" ")[0]
    assert key_words in str(got.value)


def test_bad_expanding_arguments_and_unsupported_features() -> None:
    rs = rt.Series([1.0, 2.0, 3.0])
    for bad in [-1, 1.5]:
        with pytest.raises(ValueError, match="min_periods must be"):
            rs.expanding(bad)
    with pytest.raises(NotImplementedError, match="win_type"):
        rs.rolling(2, win_type="triang")
    with pytest.raises(ValueError, match="invalid on specified"):
        rs.rolling(2, on="t")
    with pytest.raises(ValueError, match="invalid on specified"):
        rt.DataFrame({"a": [1.0]}).rolling(1, on="zz")
    with pytest.raises(ZeroDivisionError):
        rs.rolling(2, step=0).sum()
    with pytest.raises(NotImplementedError, match="method='table'"):
        rt.DataFrame({"a": [1.0]}).rolling(1, method="table").sum()
    with pytest.raises(NotImplementedError, match="rank"):
        rs.rolling(2).rank()


# --------------------------------------------------------------------------- time-based windows


@st.composite
def time_series(draw: Any) -> pd.Series:
    n = draw(st.integers(0, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    unique = draw(st.booleans())
    gaps = rng.integers(1 if unique else 0, 4, size=n) * 500  # milliseconds
    stamps = np.datetime64("2021-03-01", "ms") + np.cumsum(gaps).astype("timedelta64[ms]")
    index = pd.DatetimeIndex(stamps.astype("datetime64[ns]"))
    if draw(st.booleans()):
        index = index[::-1]
    return pd.Series(make_values(rng, draw(st.sampled_from(["float64", "Int64", "int32"])), n, 0.2).to_numpy(),
                     index=index)  # fmt: skip


@settings(max_examples=40)
@given(s=time_series(), span=st.sampled_from(["1s", "1500ms", "3s", "0s", pd.Timedelta("2s")]),
       closed=st.sampled_from(CLOSED), center=st.booleans(), min_periods=st.none() | st.integers(0, 3))  # fmt: skip
def test_time_windows_match_pandas(s: pd.Series, span: Any, closed: Any, center: bool, min_periods: Any) -> None:
    args = dict(window=span, closed=closed, center=center, min_periods=min_periods)
    rs = rt.from_pandas(s)
    abs_sums, largest = _scales(s, lambda x: x.rolling(**{**args, "min_periods": 0}))
    for op in ["sum", "mean", "var", "max", "count"]:
        check_same_outcome(_quiet(lambda: getattr(rs.rolling(**args), op)()),
                           _quiet(lambda: getattr(s.rolling(**args), op)()),
                           _compare_series(op, abs_sums, largest))  # fmt: skip


def test_time_windows_on_a_column_and_errors() -> None:
    df = pd.DataFrame({"t": pd.date_range("2020-01-01", periods=6, freq="700ms"), "v": [1.0, 2, 4, 8, 16, 32]})
    rdf = rt.from_pandas(df)
    pdt.assert_frame_equal(rdf.rolling("2s", on="t").sum().to_pandas(), df.rolling("2s", on="t").sum())
    unsorted = pd.Series([1.0, 2.0, 3.0], index=pd.to_datetime(["2020-01-02", "2020-01-01", "2020-01-03"]))
    with pytest.raises(ValueError, match="index values must be monotonic"):
        rt.from_pandas(unsorted).rolling("1D")
    with_nat = pd.Series([1.0, 2.0], index=pd.to_datetime(["2020-01-02", None]))
    with pytest.raises(ValueError, match="must not have NaT"):
        rt.from_pandas(with_nat).rolling("1D")
    ordered = rt.from_pandas(unsorted.sort_index())
    with pytest.raises(NotImplementedError, match="step is not supported"):
        ordered.rolling("1D", step=2)
    with pytest.raises(ValueError, match="not compatible with a datetimelike index"):
        ordered.rolling("1MS")
    with pytest.raises(ValueError, match="window must be an integer"):
        rt.Series([1.0, 2.0]).rolling("2s")


# --------------------------------------------------------------------------- grouped windows


@st.composite
def grouped_frames(draw: Any) -> pd.DataFrame:
    n = draw(st.integers(1, 120))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    keys = rng.integers(0, draw(st.integers(1, 5)), size=n)
    if draw(st.booleans()):
        key_column = pd.Series(np.array(["p", "q", "r", "s", "t"], dtype=object)[keys], dtype="str")
        key_column[rng.random(n) < 0.1] = None
    else:
        key_column = pd.Series(keys)
    frame = pd.DataFrame({"k": key_column.to_numpy(), "v": make_values(rng, "float64", n, 0.2).to_numpy(),
                          "w": make_values(rng, draw(st.sampled_from(["int16", "Int64"])), n, 0.1).to_numpy()})  # fmt: skip
    frame.index = pd.Index(rng.permutation(3 * n)[:n] + 100)
    return frame


def _assert_grouped_equal(got: Any, expected: Any, op: str, abs_sums: dict, largest: dict) -> None:
    result = got.to_pandas()
    assert type(result) is type(expected)
    # level dtypes may differ for text keys (riptide str vs pandas object in MultiIndex levels): compare labels
    assert result.index.names == expected.index.names
    assert [tuple(map(str, t)) if isinstance(t, tuple) else str(t) for t in result.index] == [
        tuple(map(str, t)) if isinstance(t, tuple) else str(t) for t in expected.index]
    if isinstance(expected, pd.Series):
        assert result.name == expected.name
        _assert_values_close(result.to_numpy(), expected.to_numpy(), op, abs_sums[expected.name],
                             largest[expected.name])  # fmt: skip
        return
    assert list(result.columns) == list(expected.columns)
    for label in expected.columns:
        if label in abs_sums:
            _assert_values_close(result[label].to_numpy(), expected[label].to_numpy(), op, abs_sums[label],
                                 largest[label])  # fmt: skip
        else:
            assert [str(v) for v in result[label]] == [str(v) for v in expected[label]]


@settings(max_examples=40)
@given(df=grouped_frames(), data=st.data())
def test_groupby_rolling_matches_pandas(df: pd.DataFrame, data: Any) -> None:
    args = data.draw(window_args(8))
    args.pop("step")
    options = dict(sort=data.draw(st.booleans()), dropna=data.draw(st.booleans()))
    as_index = data.draw(st.booleans())
    select = data.draw(st.sampled_from([None, "v", ["w"]]))
    # pandas' grouped rolling fails ("need at least one array to concatenate") when dropna leaves no group
    assume(not (options["dropna"] and len(df) and bool(df["k"].isna().all())))
    rdf = rt.from_pandas(df)
    grouped, rgrouped = df.groupby("k", as_index=as_index, **options), rdf.groupby("k", as_index=as_index, **options)
    if select is not None:
        grouped, rgrouped = grouped[select], rgrouped[select]
    abs_sums, largest = {}, {}
    for label in ["v", "w"]:
        magnitudes = np.abs(np.nan_to_num(_float_values(df[label]), nan=0.0))
        helper = df.assign(**{label: magnitudes})
        # pandas' grouped Kahan sum runs through all groups in one pass: its error follows the column's magnitude
        sums = helper.groupby("k", **options)[label].rolling(**{**args, "min_periods": 0}).sum().to_numpy()
        abs_sums[label] = np.maximum(sums, magnitudes.max())
        largest[label] = float(magnitudes.max())
    for op in ["sum", "mean", "std", "min", "count", "first"]:
        expected = _quiet(lambda: getattr(grouped.rolling(**args), op)())()
        got = getattr(grouped_rolling(rgrouped, **args), op)()
        _assert_grouped_equal(got, expected, op, abs_sums, largest)
    expected = _quiet(lambda: grouped.expanding(2).var())()
    _assert_grouped_equal(grouped_expanding(rgrouped, 2).var(), expected, "var", abs_sums, largest)


def test_groupby_rolling_layout_and_errors() -> None:
    df = pd.DataFrame({"k": ["b", "a", "b", None, "a", "b"], "j": [1, 1, 2, 2, 1, 2], "v": [1.0, 2, 3, 4, 5, 6]},
                      index=[10, 11, 12, 13, 14, 15])  # fmt: skip
    rdf = rt.from_pandas(df)
    # two keys: both key levels, then the original index; both key columns left out of the values
    expected = df.groupby(["k", "j"]).rolling(2, min_periods=1).sum()
    got = grouped_rolling(rdf.groupby(["k", "j"]), 2, min_periods=1).sum().to_pandas()
    assert got.index.names == expected.index.names and list(got.columns) == list(expected.columns)
    assert got.index.tolist() == expected.index.tolist()
    np.testing.assert_array_equal(got["v"].to_numpy(), expected["v"].to_numpy())
    # grouping by an array keeps every column, so the text key column makes pandas raise DataError
    with pytest.raises(pd.errors.DataError):
        df.groupby(df["j"].to_numpy()).rolling(2).sum()
    with pytest.raises(pd.errors.DataError):
        grouped_rolling(rdf.groupby(df["j"].to_numpy()), 2).sum()
    with pytest.raises(NotImplementedError, match="step not implemented for groupby"):
        grouped_rolling(rdf.groupby("k"), 2, step=2)
    # agg of a list over groups
    expected = df.groupby("k").rolling(2).agg(["sum", "max"])
    got = grouped_rolling(rdf.groupby("k"), 2).agg(["sum", "max"]).to_pandas()
    assert list(got.columns) == list(expected.columns)
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())


def test_groupby_time_windows() -> None:
    df = pd.DataFrame({"k": [1, 2, 1, 2, 1, 1], "v": [1.0, 2, 4, 8, 16, 32],
                       "t": pd.to_datetime(["2020-01-01 00:00:00", "2020-01-01 00:00:09", "2020-01-01 00:00:01",
                                            "2020-01-01 00:00:05", "2020-01-01 00:00:03", "2020-01-01 00:00:04"])})  # fmt: skip
    rdf = rt.from_pandas(df)
    expected = df.groupby("k").rolling("2s", on="t").sum()
    got = grouped_rolling(rdf.groupby("k"), "2s", on="t").sum().to_pandas()
    np.testing.assert_array_equal(got["v"].to_numpy(), expected["v"].to_numpy())
    assert got.index.tolist() == expected.index.tolist()
    shuffled = df.assign(t=df["t"].iloc[[2, 1, 0, 3, 4, 5]].to_numpy())
    with pytest.raises(ValueError, match="must be monotonic"):
        shuffled.groupby("k").rolling("2s", on="t")
    with pytest.raises(ValueError, match="must be monotonic"):
        grouped_rolling(rt.from_pandas(shuffled).groupby("k"), "2s", on="t")


# --------------------------------------------------------------------------- the core bounds


def test_segment_bounds_never_cross_segments() -> None:
    starts = np.array([0, 3, 3, 7])
    start, end = core_window.fixed_window_bounds(9, 3, center=True, closed="both", segment_starts=starts)
    segment = np.searchsorted(starts, np.arange(9), side="right") - 1
    ends = np.append(starts[1:], 9)
    assert (start >= starts[segment]).all() and (end <= ends[segment]).all() and (start <= end).all()
    start, end = core_window.expanding_bounds(9, segment_starts=starts)
    assert start.tolist() == [0, 0, 0, 3, 3, 3, 3, 7, 7]
    assert core_window.monotonic_within_segments(np.array([1, 2, 2, 9, 5, 5, 0, 1, 1]), starts)
    assert not core_window.monotonic_within_segments(np.array([1, 2, 1, 9, 5, 5, 0, 1, 1]), starts)


# --------------------------------------------------------------------------- quantile, skew, kurt

INTERPOLATIONS = ["linear", "lower", "higher", "nearest", "midpoint"]


def _moment_data(seed: int, n: int, nan_frac: float, kind: str) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "repeats":  # small integers: constant windows and exact ties
        x = rng.integers(0, 3, size=n).astype(np.float64)
    elif kind == "offset":
        x = rng.normal(size=n) + 1e4
    else:
        x = rng.standard_t(3, size=n)
    x[rng.random(n) < nan_frac] = np.nan
    return x


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 120), window=st.integers(0, 25),
       min_periods=st.one_of(st.none(), st.integers(0, 25)), center=st.booleans(),
       closed=st.sampled_from(CLOSED), q=st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7, 0.9, 1.0, 1 / 3]),
       interpolation=st.sampled_from(INTERPOLATIONS), nan_frac=st.sampled_from([0.0, 0.2, 0.8]),
       kind=st.sampled_from(["repeats", "normal"]))  # fmt: skip
def test_rolling_quantile_matches_pandas(seed: int, n: int, window: int, min_periods: int | None, center: bool,
                                         closed: str | None, q: float, interpolation: str, nan_frac: float,
                                         kind: str) -> None:  # fmt: skip
    assume(min_periods is None or min_periods <= window)
    x = _moment_data(seed, n, nan_frac, kind)
    args = dict(window=window, min_periods=min_periods, center=center, closed=closed)
    expected = pd.Series(x, name="x").rolling(**args).quantile(q, interpolation=interpolation)
    got = rt.Series(x, name="x").rolling(**args).quantile(q, interpolation=interpolation)
    pdt.assert_series_equal(got.to_pandas(), expected, check_exact=False, rtol=1e-14, atol=1e-14)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 150), window=st.integers(0, 30),
       min_periods=st.one_of(st.none(), st.integers(0, 30)), center=st.booleans(),
       nan_frac=st.sampled_from([0.0, 0.2, 0.6]), kind=st.sampled_from(["repeats", "offset", "normal"]),
       op=st.sampled_from(["skew", "kurt"]))  # fmt: skip
def test_rolling_skew_kurt_match_pandas(seed: int, n: int, window: int, min_periods: int | None, center: bool,
                                        nan_frac: float, kind: str, op: str) -> None:  # fmt: skip
    assume(min_periods is None or min_periods <= window)
    x = _moment_data(seed, n, nan_frac, kind)
    args = dict(window=window, min_periods=min_periods, center=center)
    expected = getattr(pd.Series(x).rolling(**args), op)()
    got = getattr(rt.Series(x).rolling(**args), op)().to_pandas()
    # same missing results (too few values, constant windows); values to rounding: skew and kurt are ratios of
    # central moments, so the error grows with the data's offset over its spread (1e4 here: ~1e-12)
    pdt.assert_series_equal(got, expected, check_exact=False, rtol=1e-9, atol=1e-9)


def test_skew_kurt_are_exact_far_from_zero() -> None:
    # 1e9 + noise: riptide centers the column before forming moments; compare with exact fractions
    rng = np.random.default_rng(11)
    x = rng.normal(size=60) + 1e9
    window = 12
    got_skew = rt.Series(x).rolling(window).skew().to_numpy()
    got_kurt = rt.Series(x).rolling(window).kurt().to_numpy()
    for i in range(window - 1, 60):
        values = [Fraction(v) for v in x[i - window + 1:i + 1]]
        n = len(values)
        mean = sum(values) / n
        b, c, d = (float(sum((v - mean) ** k for v in values) / n) for k in (2, 3, 4))
        skew = np.sqrt(n * (n - 1)) * c / ((n - 2) * b**1.5)
        kurt = ((n * n - 1) * d / (b * b) - 3 * (n - 1) ** 2) / ((n - 2) * (n - 3))
        assert abs(got_skew[i] - skew) <= 1e-10 * max(1.0, abs(skew))
        assert abs(got_kurt[i] - kurt) <= 1e-10 * max(1.0, abs(kurt))


def test_quantile_skew_kurt_edge_cases() -> None:
    for values in [[], [np.nan], [2.0], [np.nan, np.nan, np.nan], [5.0, 5.0, 5.0, 5.0, 5.0], [1.0, np.inf, 3.0, 4.0]]:
        ps, rs = pd.Series(values, dtype="float64"), rt.Series(values, dtype="float64")
        for window in [1, 3, 10]:  # 10: a window larger than the data
            for min_periods in [None, 0, 1]:
                args = dict(window=window, min_periods=min_periods)
                for op in ["skew", "kurt"]:
                    pdt.assert_series_equal(getattr(rs.rolling(**args), op)().to_pandas(),
                                            getattr(ps.rolling(**args), op)())  # fmt: skip
                pdt.assert_series_equal(rs.rolling(**args).quantile(0.3).to_pandas(), ps.rolling(**args).quantile(0.3))
    # large magnitudes
    x = np.array([1e300, -1e300, 3e299, 1e300, 0.0])
    pdt.assert_series_equal(rt.Series(x).rolling(3).quantile(0.5).to_pandas(), pd.Series(x).rolling(3).quantile(0.5))


def test_expanding_grouped_frame_and_agg_forms() -> None:
    rng = np.random.default_rng(4)
    pdf = pd.DataFrame({"k": rng.integers(0, 3, size=40), "a": rng.normal(size=40), "b": rng.integers(0, 5, size=40),
                        "s": ["x"] * 40})  # fmt: skip
    pdf.loc[rng.random(40) < 0.2, "a"] = np.nan
    rdf = rt.from_pandas(pdf)
    num = ["a", "b"]
    for op, kwargs in [("skew", {}), ("kurt", {}), ("quantile", {"q": 0.75}),
                       ("quantile", {"q": 0.4, "interpolation": "nearest"})]:  # fmt: skip
        pdt.assert_frame_equal(getattr(rdf[num].expanding(2), op)(**kwargs).to_pandas(),
                               getattr(pdf[num].expanding(2), op)(**kwargs), rtol=1e-9)  # fmt: skip
        pdt.assert_frame_equal(getattr(rdf.rolling(6), op)(numeric_only=True, **kwargs).to_pandas(),
                               getattr(pdf.rolling(6), op)(numeric_only=True, **kwargs), rtol=1e-9)  # fmt: skip
        expected = getattr(pdf.groupby("k")[num].rolling(5, min_periods=3), op)(**kwargs)
        got = getattr(grouped_rolling(rdf.groupby("k")[num], 5, min_periods=3), op)(**kwargs).to_pandas()
        pdt.assert_frame_equal(got, expected, rtol=1e-9)
    pdt.assert_frame_equal(rdf["a"].rolling(5).agg(["skew", "kurt", "mean"]).to_pandas(),
                           pdf["a"].rolling(5).agg(["skew", "kurt", "mean"]), rtol=1e-9)  # fmt: skip
    with pytest.raises(pd.errors.DataError):
        pdf.rolling(3).skew()
    with pytest.raises(pd.errors.DataError):
        rdf.rolling(3).skew()


def test_quantile_errors_match_pandas() -> None:
    ps, rs = pd.Series([1.0, 2.0, 3.0]), rt.Series([1.0, 2.0, 3.0])
    for q in [-0.1, 1.5]:
        check_same_outcome(lambda: rs.rolling(2).quantile(q), lambda: ps.rolling(2).quantile(q), None)
        with pytest.raises(ValueError, match="not in"):
            rs.rolling(2).quantile(q)
    with pytest.raises(ValueError, match="Interpolation 'cubic' is not supported"):
        ps.rolling(2).quantile(0.5, interpolation="cubic")
    with pytest.raises(ValueError, match="Interpolation 'cubic' is not supported"):
        rs.rolling(2).quantile(0.5, interpolation="cubic")
