"""corr / cov / autocorr / corrwith vs pandas: values (to 1e-9, or 1e-12 on well-conditioned data), NaN where
pandas has NaN, labels, and pandas' errors for bad input.

SciPy is not installed here, so pandas' ``Series.corr(method="spearman" | "kendall")`` cannot run: the oracle
for those is pandas' ``DataFrame.corr`` of the two aligned Series (pandas' own tau-b and Spearman), which
computes the same numbers on finite data.
"""

from __future__ import annotations

import importlib.util
import itertools
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from conftest import assert_scalar_equal, frame_st, pandas_result, series_st
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.frame import correlation

NUMBERS = ["int8", "int64", "uint8", "uint64", "float32", "float64", "bool", "Int64", "Float64", "boolean"]
METHODS = ["pearson", "spearman", "kendall"]


# --------------------------------------------------------------------------- helpers


def _quiet(fn: Any) -> tuple[Any, BaseException | None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pandas_result(fn)


def _finite(obj: Any) -> Any:
    """±inf as NaN: pandas' Spearman ranks a -inf it then leaves out (shifting the other ranks), riptide not."""
    if isinstance(obj, pd.DataFrame):
        return obj.apply(_finite)
    if obj.dtype.kind == "f":
        return obj.where(~np.isinf(obj), np.nan)
    return obj


def _series_expected(a: pd.Series, b: pd.Series, method: Any, min_periods: Any) -> Any:
    """pandas' ``a.corr(b, method)``; without SciPy, its DataFrame.corr of the aligned, non-missing pairs."""
    if method == "pearson" or callable(method):
        return _quiet(lambda: a.corr(b, method=method, min_periods=min_periods))[0]
    if importlib.util.find_spec("scipy") is None:
        x, y = a.align(b, join="inner")
        if len(x) == 0:
            return np.nan
        keep = (x.notna() & y.notna()).to_numpy()
        pair = pd.DataFrame({"x": x[keep].astype("float64").to_numpy(), "y": y[keep].astype("float64").to_numpy()})
        minimum = 1 if min_periods is None else min_periods
        return _quiet(lambda: pair.corr(method, min_periods=minimum))[0].iloc[0, 1]
    return _quiet(lambda: a.corr(b, method=method, min_periods=min_periods))[0]


def _spread(s: pd.Series) -> float:
    """The standard deviation of the finite values (0 if none): the scale of a covariance's rounding."""
    values = s.to_numpy(dtype=float, na_value=np.nan)
    values = values[np.isfinite(values)]
    return float(values.std()) if len(values) else 0.0


def _assert_matrix(got: Any, expected: pd.DataFrame, rtol: float = 1e-9, cov: bool = False) -> None:
    """Same labels on both axes, NaN in the same places, values close (covariances relative to their scale)."""
    assert isinstance(got, rt.DataFrame)
    result = got.to_pandas()
    pdt.assert_index_equal(result.columns, expected.columns, exact=False)
    pdt.assert_index_equal(result.index, expected.index, exact=False)
    assert (result.dtypes == np.float64).all()
    g, e = result.to_numpy(dtype=float), expected.to_numpy(dtype=float)
    assert np.array_equal(np.isnan(g), np.isnan(e)), f"NaN differs:\n{result}\n{expected}"
    atol = 1e-12
    if cov and e.size:
        diag = np.abs(np.diag(e))
        atol = rtol * np.sqrt(np.outer(diag, diag))
        atol = np.where(np.isfinite(atol), atol, 0.0)
    close = np.isclose(g, e, rtol=rtol, atol=atol) | (np.isnan(g) & np.isnan(e))
    assert close.all(), f"values differ:\n{result}\n{expected}"


def _check_frame(rt_fn: Any, pd_fn: Any, **kwargs: Any) -> None:
    expected, error = _quiet(pd_fn)
    if error is not None:
        with pytest.raises(type(error) if type(error) in (ValueError, TypeError) else Exception):
            rt_fn()
        return
    _assert_matrix(rt_fn(), expected, **kwargs)


def _assert_close_series(got: Any, expected: pd.Series, rtol: float = 1e-9) -> None:
    assert isinstance(got, rt.Series)
    result = got.to_pandas()
    pdt.assert_index_equal(result.index, expected.index, exact=False)
    assert result.dtype == np.float64 and result.name == expected.name
    pdt.assert_series_equal(result, expected.astype(np.float64), check_index_type=False, rtol=rtol, atol=1e-12)


# --------------------------------------------------------------------------- Series.corr / cov


@settings(max_examples=60)
@given(series_st(dtypes=NUMBERS, max_size=200), series_st(dtypes=NUMBERS, max_size=200),
       st.sampled_from(METHODS), st.sampled_from([None, 0, 1, 3, 10]))  # fmt: skip
def test_series_corr_matches_pandas(a: pd.Series, b: pd.Series, method: str, min_periods: Any) -> None:
    if method != "pearson":
        a, b = _finite(a), _finite(b)
    expected = _series_expected(a, b, method, min_periods)
    got = rt.from_pandas(a).corr(rt.from_pandas(b), method=method, min_periods=min_periods)
    assert_scalar_equal(got, expected, rtol=1e-9, atol=1e-12)


@settings(max_examples=40)
@given(series_st(dtypes=NUMBERS, max_size=200), series_st(dtypes=NUMBERS, max_size=200),
       st.sampled_from([None, 0, 2]), st.sampled_from([0, 1, 2, 5]))  # fmt: skip
def test_series_cov_matches_pandas(a: pd.Series, b: pd.Series, min_periods: Any, ddof: int) -> None:
    expected = _quiet(lambda: a.cov(b, min_periods=min_periods, ddof=ddof))[0]
    got = rt.from_pandas(a).cov(rt.from_pandas(b), min_periods=min_periods, ddof=ddof)
    assert_scalar_equal(got, expected, rtol=1e-9, atol=1e-9 * _spread(a) * _spread(b))


@pytest.mark.parametrize("method", METHODS)
def test_series_corr_aligns_on_the_labels(method: str) -> None:
    a = pd.Series([1.0, 4.0, 2.0, np.nan, 8.0, 5.0], index=[10, 11, 12, 13, 14, 15])
    b = pd.Series([3.0, 1.0, 9.0, 2.0, 7.0], index=[15, 12, 11, 13, 99])
    assert_scalar_equal(rt.from_pandas(a).corr(rt.from_pandas(b), method=method), _series_expected(a, b, method, None),
                        rtol=1e-12)  # fmt: skip
    assert_scalar_equal(rt.from_pandas(a).cov(rt.from_pandas(b)), a.cov(b), rtol=1e-12)


def test_series_corr_well_conditioned_to_1e12() -> None:
    rng = np.random.default_rng(0)
    a = pd.Series(rng.standard_normal(5000) * 3 + 100)
    b = pd.Series(a.to_numpy() * 0.3 + rng.standard_normal(5000))
    b[rng.random(5000) < 0.1] = np.nan
    ra, rb = rt.from_pandas(a), rt.from_pandas(b)
    assert_scalar_equal(ra.corr(rb), a.corr(b), rtol=1e-12)
    assert_scalar_equal(ra.cov(rb), a.cov(b), rtol=1e-12)
    assert_scalar_equal(ra.corr(rb, method="spearman"), _series_expected(a, b, "spearman", None), rtol=1e-12)
    assert_scalar_equal(ra.corr(rb, method="kendall"), _series_expected(a, b, "kendall", None), rtol=1e-12)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    "a, b",
    [
        ([], []),
        ([1.0], [2.0]),
        ([np.nan, np.nan], [1.0, 2.0]),
        ([2.0, 2.0, 2.0], [1.0, 2.0, 3.0]),  # constant: NaN
        ([1.0, 2.0, np.nan, 4.0], [5.0, 5.0, 1.0, 5.0]),  # constant over the rows both have
        ([1.0, 2.0], [2.0, 1.0]),
        ([True, False, True], [1, 2, 3]),
    ],
)
def test_series_corr_edge_cases(method: str, a: list, b: list) -> None:
    pa, pb = pd.Series(a, dtype=None if a else float), pd.Series(b, dtype=None if b else float)
    expected = _series_expected(pa, pb, method, None)
    assert_scalar_equal(rt.from_pandas(pa).corr(rt.from_pandas(pb), method=method), expected)
    assert_scalar_equal(rt.from_pandas(pa).cov(rt.from_pandas(pb)), _quiet(lambda: pa.cov(pb))[0])


def test_series_corr_with_inf_is_nan_as_pandas() -> None:
    a, b = pd.Series([1.0, np.inf, 3.0, 4.0]), pd.Series([2.0, 1.0, 5.0, 3.0])
    assert_scalar_equal(rt.from_pandas(a).corr(rt.from_pandas(b)), _quiet(lambda: a.corr(b))[0])
    assert_scalar_equal(rt.from_pandas(a).cov(rt.from_pandas(b)), _quiet(lambda: a.cov(b))[0])


def test_series_corr_with_a_callable_and_kinds_of_values() -> None:
    a = pd.Series([1.0, 2.0, np.nan, 4.0, 7.0])
    b = pd.Series(pd.array([2, 1, 3, None, 5], dtype="Int64"))

    def histogram_intersection(x: np.ndarray, y: np.ndarray) -> float:
        return float(np.minimum(x, y).sum().round(decimals=1))

    got = rt.from_pandas(a).corr(rt.from_pandas(b), method=histogram_intersection)
    assert got == a.corr(b, method=histogram_intersection)
    when = pd.Series(pd.to_datetime(["2020-01-01", "2021-03-01", "2023-01-01", "2023-05-01", "2024-01-05"]))
    assert_scalar_equal(rt.from_pandas(when).corr(rt.from_pandas(a)), when.corr(a), rtol=1e-12)
    # Deliberate difference: pandas converts NaT to its integer tick (-2**63) here, riptide skips it as missing.
    when[3] = pd.NaT
    assert_scalar_equal(rt.from_pandas(when).corr(rt.from_pandas(a)), when.dropna().corr(a), rtol=1e-12)
    cats = pd.Series(pd.Categorical([3, 1, 2, 2, 5]))
    assert_scalar_equal(rt.from_pandas(cats).corr(rt.from_pandas(a)), cats.corr(a), rtol=1e-12)


def test_series_corr_errors() -> None:
    a = rt.Series([1.0, 2.0])
    with pytest.raises(ValueError, match="method must be either 'pearson', 'spearman', 'kendall', or a callable"):
        a.corr(rt.Series([1.0, 2.0]), method="foo")
    with pytest.raises(ValueError, match="could not convert string to float"):
        a.corr(rt.Series(["x", "y"]))
    with pytest.raises(ValueError, match="could not convert string to float"):
        a.cov(rt.Series(["x", "y"]))
    with pytest.raises(TypeError, match="unsupported type"):
        a.corr([1.0, 2.0])


@pytest.mark.parametrize("lag", [1, 2, -1, 0, 10])
def test_autocorr_matches_pandas(lag: int) -> None:
    s = pd.Series([1.0, 4.0, 2.0, np.nan, 8.0, 5.0, 6.0, 1.0])
    assert_scalar_equal(rt.from_pandas(s).autocorr(lag), _quiet(lambda: s.autocorr(lag))[0], rtol=1e-12)
    ints = pd.Series([1, 0, 0, 0])
    assert_scalar_equal(rt.from_pandas(ints).autocorr(lag), _quiet(lambda: ints.autocorr(lag))[0])


# --------------------------------------------------------------------------- DataFrame.corr / cov


@settings(max_examples=50)
@given(frame_st(dtypes=NUMBERS, max_cols=5, max_size=300), st.sampled_from(METHODS), st.sampled_from([1, 0, 2, 20]))
def test_frame_corr_matches_pandas(df: pd.DataFrame, method: str, min_periods: int) -> None:
    if method == "spearman":
        df = _finite(df)
    _check_frame(lambda: rt.from_pandas(df).corr(method=method, min_periods=min_periods),
                 lambda: df.corr(method=method, min_periods=min_periods))  # fmt: skip


@settings(max_examples=40)
@given(frame_st(dtypes=NUMBERS, max_cols=5, max_size=300), st.sampled_from([None, 0, 2, 20]),
       st.sampled_from([1, 0, 2]))  # fmt: skip
def test_frame_cov_matches_pandas(df: pd.DataFrame, min_periods: Any, ddof: int) -> None:
    _check_frame(lambda: rt.from_pandas(df).cov(min_periods=min_periods, ddof=ddof),
                 lambda: df.cov(min_periods=min_periods, ddof=ddof), cov=True)  # fmt: skip


@pytest.mark.parametrize("method", METHODS)
def test_frame_corr_well_conditioned_to_1e12(method: str) -> None:
    rng = np.random.default_rng(1)
    n = 3000
    base = rng.standard_normal(n)
    df = pd.DataFrame({"a": base * 2 + 50, "b": base + rng.standard_normal(n), "c": rng.integers(0, 20, n),
                       "d": rng.standard_normal(n) * 1e3})  # fmt: skip
    df.loc[rng.random(n) < 0.1, "a"] = np.nan
    df.loc[rng.random(n) < 0.2, "b"] = np.nan
    _assert_matrix(rt.from_pandas(df).corr(method), df.corr(method), rtol=1e-12)
    _assert_matrix(rt.from_pandas(df).cov(), df.cov(), rtol=1e-12, cov=True)
    full = df.fillna(0.5)
    _assert_matrix(rt.from_pandas(full).corr(method), full.corr(method), rtol=1e-12)
    _assert_matrix(rt.from_pandas(full).cov(ddof=0), full.cov(ddof=0), rtol=1e-12, cov=True)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    "data",
    [
        {"a": [1.0, 2.0, 3.0], "b": [2.0, 2.0, 2.0]},  # a constant column
        {"a": [1.0], "b": [2.0]},  # one row
        {"a": [np.nan, np.nan, np.nan], "b": [1.0, 2.0, 3.0]},  # all NaN
        {"a": [1.0, 2.0, np.nan, 4.0], "b": [1.0, np.nan, 2.0, 8.0], "c": [np.nan, 3.0, 1.0, 2.0]},
        {"a": [1.0, np.inf, 3.0, 0.0], "b": [2.0, 1.0, 5.0, -np.inf]},
        {"a": [True, False, True, True], "b": pd.array([1, None, 3, 4], dtype="Int64"),
         "c": pd.array([True, None, False, True])},
        {"a": pd.Series([], dtype=float), "b": pd.Series([], dtype=float)},
        {"a": [1, 2, 2, 3, 3, 3], "b": [1, 1, 2, 2, 3, 9]},  # ties on both sides
    ],
)
def test_frame_corr_edge_cases(method: str, data: dict) -> None:
    df = pd.DataFrame(data)
    if method == "spearman":
        df = _finite(df)
    for min_periods in (1, 0, 3):
        _check_frame(lambda: rt.from_pandas(df).corr(method, min_periods=min_periods),
                     lambda: df.corr(method, min_periods=min_periods))  # fmt: skip
    for ddof in (1, 0, 3):
        _check_frame(lambda: rt.from_pandas(df).cov(ddof=ddof), lambda: df.cov(ddof=ddof), cov=True)


def test_frame_corr_without_columns_and_labels() -> None:
    empty = pd.DataFrame(index=[0, 1])
    _assert_matrix(rt.from_pandas(empty).corr(), empty.corr())
    _assert_matrix(rt.from_pandas(empty).cov(), empty.cov())
    named = pd.DataFrame({"x": [1.0, 2.0, 4.0], "y": [3.0, 1.0, 2.0]})
    named.columns.name = "vars"
    result = rt.from_pandas(named).corr().to_pandas()
    pdt.assert_frame_equal(result, named.corr())
    tuples = pd.DataFrame({("a", 1): [1.0, 2.0, 4.0], ("a", 2): [3.0, 1.0, 2.0]})
    pdt.assert_frame_equal(rt.from_pandas(tuples).corr().to_pandas(), tuples.corr())


def test_frame_corr_numeric_only_and_errors() -> None:
    df = pd.DataFrame({"a": [1.0, 2.0, 4.0], "s": ["x", "y", "z"], "b": [1, 0, 2],
                       "t": pd.to_datetime(["2020", "2021", "2023"])})  # fmt: skip
    r = rt.from_pandas(df)
    _assert_matrix(r.corr(numeric_only=True), df.corr(numeric_only=True))
    with pytest.raises(ValueError, match="could not convert string to float"):
        r.corr()
    with pytest.raises(ValueError, match="could not convert string to float"):
        r[["a", "s"]].cov()
    with pytest.raises(ValueError, match="method must be either 'pearson', 'spearman', 'kendall', or a callable"):
        r.corr(method="foo")
    with pytest.raises(TypeError, match="datetime64 or timedelta64, which are not supported for cov"):
        r.cov(numeric_only=True)
    with_dates = df[["a", "t"]]
    _assert_matrix(rt.from_pandas(with_dates).corr(), with_dates.corr(), rtol=1e-12)  # pandas correlates ticks
    cats = pd.DataFrame({"a": [1.0, 2.0, 4.0], "c": pd.Categorical([1, 3, 2])})
    _assert_matrix(rt.from_pandas(cats).corr(), cats.corr())
    text_cats = pd.DataFrame({"a": [1.0, 2.0, 4.0], "c": pd.Categorical(["u", "v", "u"])})
    with pytest.raises(ValueError, match="could not convert string to float"):
        rt.from_pandas(text_cats).corr()


def test_frame_corr_with_a_callable() -> None:
    df = pd.DataFrame({"dogs": [0.2, 0.0, 0.6, 0.2, np.nan], "cats": [0.3, 0.6, 0.0, 0.1, 0.4]})

    def histogram_intersection(x: np.ndarray, y: np.ndarray) -> float:
        return float(np.minimum(x, y).sum().round(decimals=1))

    for min_periods in (1, 5):
        _assert_matrix(rt.from_pandas(df).corr(method=histogram_intersection, min_periods=min_periods),
                       df.corr(method=histogram_intersection, min_periods=min_periods))  # fmt: skip


def test_spearman_ranks_per_pair_when_missing_rows_differ() -> None:
    # b's missing row changes a's ranks for the pair (a, b) only: pandas re-ranks per pair
    df = pd.DataFrame({"a": [1.0, 5.0, 2.0, 4.0, 3.0], "b": [2.0, np.nan, 1.0, 5.0, 4.0],
                       "c": [np.nan, 1.0, 2.0, 3.0, 1.0]})  # fmt: skip
    _assert_matrix(rt.from_pandas(df).corr("spearman"), df.corr("spearman"), rtol=1e-14)


def test_batches_of_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches smaller than one column's partners give the same matrix."""
    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.integers(0, 6, (40, 5)).astype(float), columns=list("abcde"))
    df[df > 4] = np.nan
    monkeypatch.setattr(correlation, "_BATCH_ELEMENTS", 50)
    for method in ("spearman", "kendall"):
        _assert_matrix(rt.from_pandas(df).corr(method), df.corr(method), rtol=1e-12)
    s = pd.Series([1.0, 2.0, 0.0, 4.0, 3.0])
    wide = pd.DataFrame(rng.standard_normal((5, 30)))
    _assert_close_series(rt.from_pandas(wide).corrwith(rt.from_pandas(s)), wide.corrwith(s))


# --------------------------------------------------------------------------- Kendall's inversion count


def _tau_b(x: np.ndarray, y: np.ndarray) -> float:
    concordant = discordant = x_ties = y_ties = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        x_ties += dx == 0
        y_ties += dy == 0
        if dx * dy > 0:
            concordant += 1
        elif dx * dy < 0:
            discordant += 1
    pairs = len(x) * (len(x) - 1) / 2
    denominator = np.sqrt((pairs - x_ties) * (pairs - y_ties))
    return (concordant - discordant) / denominator if denominator > 0 else np.nan


@settings(max_examples=40)
@given(st.integers(0, 40), st.integers(1, 4), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_kendall_rows_is_tau_b(n: int, rows: int, distinct: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, distinct, (rows, n)).astype(float)
    y = rng.integers(0, distinct, (rows, n)).astype(float) * -0.5
    valid = rng.random((rows, n)) < 0.8
    got = correlation._kendall_rows(x, y, valid, 1)
    expected = [_tau_b(x[r][valid[r]], y[r][valid[r]]) for r in range(rows)]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_inversion_count() -> None:
    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 7, 64, 65, 300):
        seq = rng.integers(0, max(n, 1), (3, n))
        brute = [sum(int(s[i] > s[j]) for i in range(n) for j in range(i + 1, n)) for s in seq]
        assert correlation._inversions(seq, max(n, 1), np).tolist() == brute


# --------------------------------------------------------------------------- corrwith


@settings(max_examples=40)
@given(frame_st(dtypes=NUMBERS, max_cols=4, max_size=60), st.sampled_from(METHODS), st.integers(0, 2**32 - 1),
       st.sampled_from([0, 1]), st.booleans())  # fmt: skip
def test_corrwith_series_matches_pandas(df: pd.DataFrame, method: str, seed: int, axis: int, shuffle: bool) -> None:
    df = _finite(df)
    rng = np.random.default_rng(seed)
    length = len(df) if axis == 0 else df.shape[1]
    other = pd.Series(rng.standard_normal(length).round(1))
    other.index = (df.index if axis == 0 else df.columns)
    if shuffle and length:
        other = other.iloc[rng.permutation(length)[: max(1, length - 1)]]
    got = rt.from_pandas(df).corrwith(rt.from_pandas(other), axis=axis, method=method)
    if method == "pearson":
        expected = _quiet(lambda: df.corrwith(other, axis=axis))[0]
    else:
        frame = df if axis == 0 else df.T
        expected = pd.Series({label: _series_expected(other, frame[label], method, None) for label in frame.columns},
                             index=frame.columns, dtype=np.float64)  # fmt: skip
    _assert_close_series(got, expected)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("drop", [False, True])
def test_corrwith_frame_matches_pandas(axis: int, drop: bool) -> None:
    rng = np.random.default_rng(7)
    df = pd.DataFrame(rng.standard_normal((6, 3)), columns=["b", "a", "x"], index=[3, 1, 2, 0, 5, 4])
    df.iloc[1, 0] = np.nan
    other = pd.DataFrame(rng.standard_normal((5, 3)), columns=["a", "c", "b"], index=[0, 1, 2, 7, 3])
    other.iloc[2, 2] = np.inf
    expected = _quiet(lambda: df.corrwith(other, axis=axis, drop=drop))[0]
    _assert_close_series(rt.from_pandas(df).corrwith(rt.from_pandas(other), axis=axis, drop=drop), expected)
    same = pd.DataFrame(rng.standard_normal((6, 3)), columns=df.columns, index=df.index)
    expected = df.corrwith(same, axis=axis, drop=drop)
    _assert_close_series(rt.from_pandas(df).corrwith(rt.from_pandas(same), axis=axis, drop=drop), expected)


@pytest.mark.parametrize("method", ["spearman", "kendall"])
def test_corrwith_frame_rank_methods(method: str) -> None:
    df = pd.DataFrame({"a": [1.0, 3.0, 2.0, np.nan, 5.0], "b": [2.0, 2.0, 1.0, 4.0, 3.0]})
    other = pd.DataFrame({"a": [2.0, 1.0, 4.0, 3.0, 3.0], "b": [1.0, np.nan, 2.0, 2.0, 9.0]})
    got = rt.from_pandas(df).corrwith(rt.from_pandas(other), method=method)
    expected = pd.Series({k: _series_expected(df[k], other[k], method, None) for k in ("a", "b")})
    _assert_close_series(got, expected)


def test_corrwith_errors_and_numeric_only() -> None:
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "s": ["x", "y", "z"]})
    r, s = rt.from_pandas(df), pd.Series([1.0, 3.0, 2.0])
    with pytest.raises(ValueError, match="could not convert string to float"):
        r.corrwith(rt.from_pandas(s))
    with pytest.raises(TypeError, match="Cannot perform reduction 'mean'"):
        r.corrwith(r)
    with pytest.raises(ValueError, match="Invalid method foo was passed"):
        r.corrwith(r, method="foo")
    with pytest.raises(ValueError, match="method must be either"):
        r.corrwith(rt.from_pandas(s), method="foo")
    _assert_close_series(r.corrwith(rt.from_pandas(s), numeric_only=True), df.corrwith(s, numeric_only=True))
    _assert_close_series(r.corrwith(r, numeric_only=True), df.corrwith(df, numeric_only=True))
    empty = pd.DataFrame(index=[0, 1])
    got = rt.from_pandas(empty).corrwith(rt.Series([1.0, 2.0]))
    assert len(got) == 0 and got.dtype == np.float64
