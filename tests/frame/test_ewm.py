"""``Series.ewm`` / ``DataFrame.ewm`` vs pandas: mean, sum, var, std, cov, corr, validation and edge cases.

Tolerances: the scan merges weighted stretches in a different order than pandas' row-by-row loop, so values agree
to rounding (1e-12 relative to the column's scale for means and sums, 1e-10 for variances), not bit for bit.
Known, documented differences are excluded where they can occur (see riptide/frame/ewm.py): pandas' unbiased
variance after a single observation followed by missing rows is 0.0 or NaN by rounding (riptide: NaN).
"""

from __future__ import annotations

import datetime

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.frame.ewm import get_center_of_mass


def _data(seed: int, n: int, nan_frac: float, longest_gap: int, offset: float = 0.0,
          scale: float = 1.0) -> np.ndarray:  # fmt: skip
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n) * scale + offset
    x[rng.random(n) < nan_frac] = np.nan
    if n > 10 and longest_gap:
        start = int(rng.integers(0, n - 5))
        x[start:start + int(rng.integers(1, longest_gap + 1))] = np.nan
    return x


def _correction(x: np.ndarray, com: float, adjust: bool, ignore_na: bool) -> np.ndarray:
    """pandas' unbiased correction sum_wt**2 / (sum_wt**2 - sum_wt2) per row (its running weight sums, a plain
    loop in the test): how much the correction amplifies rounding, i.e. how much tolerance a variance needs."""
    factor = 1.0 - 1.0 / (1.0 + com)
    new = 1.0 if adjust else 1.0 / (1.0 + com)
    out = np.ones(x.shape[0])
    total = squares = old = 0.0
    seen = False
    for i, value in enumerate(x):
        observed = not np.isnan(value)
        if seen and (observed or not ignore_na):
            total, squares, old = total * factor, squares * factor * factor, old * factor
        if observed:
            if not seen:
                total = squares = old = 1.0
                seen = True
            else:
                total, squares, old = total + new, squares + new * new, old + new
                if not adjust:
                    total, squares, old = total / old, squares / old / old, 1.0
        denominator = total * total - squares
        out[i] = total * total / denominator if denominator > 0 else 1.0
    return out


def _com_of(decay: dict) -> float:
    return get_center_of_mass(decay.get("com"), decay.get("span"), decay.get("halflife"), decay.get("alpha"))


def _compare(got: rt.Series, expected: pd.Series, x: np.ndarray, rtol: float, single_obs_quirk: bool = False,
             amplification: np.ndarray | None = None) -> None:  # fmt: skip
    got_values = got.to_numpy()
    want = expected.to_numpy()
    assert got.name == expected.name
    pdt.assert_index_equal(got.index.to_pandas(), expected.index)
    assert got_values.dtype == np.float64
    if single_obs_quirk:
        # pandas: 0.0 or NaN by rounding where only one observation has been seen; riptide: NaN
        seen = np.cumsum(~np.isnan(x))
        quirk = (seen == 1) & (want == 0.0) & np.isnan(got_values)
        want = np.where(quirk, np.nan, want)
    np.testing.assert_array_equal(np.isnan(got_values), np.isnan(want))
    both = ~np.isnan(want)
    if both.any():
        scale = np.nanmax(np.abs(want[both]))
        if amplification is None:
            np.testing.assert_allclose(got_values[both], want[both], rtol=rtol, atol=rtol * scale)
        else:  # a per-row bound: the tolerance times how much pandas' correction amplifies rounding
            bound = rtol * (np.abs(want) + scale) * amplification
            assert (np.abs(got_values - want)[both] <= bound[both]).all()


DECAYS = st.one_of(
    st.builds(lambda v: {"com": v}, st.sampled_from([0.0, 0.5, 1.0, 3.0, 20.0])),
    st.builds(lambda v: {"span": v}, st.sampled_from([1.0, 2.5, 3.0, 10.0])),
    st.builds(lambda v: {"halflife": v}, st.sampled_from([0.3, 1.0, 7.5])),
    st.builds(lambda v: {"alpha": v}, st.sampled_from([0.05, 0.5, 0.7, 1.0])),
)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 300), nan_frac=st.sampled_from([0.0, 0.1, 0.5, 0.9]),
       decay=DECAYS, adjust=st.booleans(), ignore_na=st.booleans(), min_periods=st.integers(0, 5),
       offset=st.sampled_from([0.0, 5.0, 1e3]))  # fmt: skip
def test_mean_and_sum_match_pandas(seed: int, n: int, nan_frac: float, decay: dict, adjust: bool, ignore_na: bool,
                                   min_periods: int, offset: float) -> None:  # fmt: skip
    x = _data(seed, n, nan_frac, longest_gap=60, offset=offset)
    ps, rs = pd.Series(x, name="v"), rt.Series(x, name="v")
    kwargs = dict(decay, adjust=adjust, ignore_na=ignore_na, min_periods=min_periods)
    _compare(rs.ewm(**kwargs).mean(), ps.ewm(**kwargs).mean(), x, 1e-12)
    if adjust:
        _compare(rs.ewm(**kwargs).sum(), ps.ewm(**kwargs).sum(), x, 1e-12)
    else:
        with pytest.raises(NotImplementedError, match="adjust=False"):
            rs.ewm(**kwargs).sum()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 300), nan_frac=st.sampled_from([0.0, 0.1, 0.3]),
       decay=DECAYS, adjust=st.booleans(), ignore_na=st.booleans(), min_periods=st.integers(0, 5),
       bias=st.booleans())  # fmt: skip
def test_var_and_std_match_pandas(seed: int, n: int, nan_frac: float, decay: dict, adjust: bool, ignore_na: bool,
                                  min_periods: int, bias: bool) -> None:  # fmt: skip
    # short gaps only: after a long gap one observation holds nearly all the weight and pandas' unbiased
    # correction sum_wt**2 / (sum_wt**2 - sum_wt2) cancels catastrophically (riptide keeps 1 - s exact)
    x = _data(seed, n, nan_frac, longest_gap=2, offset=3.0)
    ps, rs = pd.Series(x), rt.Series(x)
    kwargs = dict(decay, adjust=adjust, ignore_na=ignore_na, min_periods=min_periods)
    amplification = _correction(x, _com_of(decay), adjust, ignore_na)
    _compare(rs.ewm(**kwargs).var(bias=bias), ps.ewm(**kwargs).var(bias=bias), x, 1e-11, single_obs_quirk=True,
             amplification=amplification)  # fmt: skip
    _compare(rs.ewm(**kwargs).std(bias=bias), ps.ewm(**kwargs).std(bias=bias), x, 1e-11, single_obs_quirk=True,
             amplification=amplification)  # fmt: skip


def test_long_series_and_long_gaps() -> None:
    # (1 - alpha) ** t underflows long before t = 5000: the scan never forms such powers
    x = _data(7, 5000, 0.2, longest_gap=0, offset=2.0)
    x[1000:2500] = np.nan
    ps, rs = pd.Series(x), rt.Series(x)
    for kwargs in [dict(alpha=0.5), dict(alpha=0.5, adjust=False), dict(com=30.0), dict(span=4, ignore_na=True),
                   dict(com=0.0)]:  # fmt: skip
        _compare(rs.ewm(**kwargs).mean(), ps.ewm(**kwargs).mean(), x, 1e-12)
        _compare(rs.ewm(**kwargs).var(bias=True), ps.ewm(**kwargs).var(bias=True), x, 1e-10)
    _compare(rs.ewm(com=30.0).sum(), ps.ewm(com=30.0).sum(), x, 1e-12)


def test_constant_series_is_exact() -> None:
    x = np.array([0.1] * 50 + [np.nan] * 3 + [0.1] * 10)
    rs = rt.Series(x)
    for adjust in (True, False):
        mean = rs.ewm(span=7, adjust=adjust).mean().to_numpy()
        assert (mean == 0.1).all()
        var = rs.ewm(span=7, adjust=adjust).var().to_numpy()
        assert np.isnan(var[0]) and (var[1:] == 0.0).all()
    pdt.assert_series_equal(rs.ewm(span=7).var().to_pandas(), pd.Series(x).ewm(span=7).var())


def test_edge_cases() -> None:
    for values in [[], [np.nan], [1.5], [np.nan, np.nan, np.nan], [np.nan, 2.0], [1.0, np.inf, 3.0]]:
        x = np.array(values, dtype=np.float64)
        ps, rs = pd.Series(x, dtype="float64"), rt.Series(x, dtype="float64")
        for op in ["mean", "sum", "var", "std"]:
            pdt.assert_series_equal(getattr(rs.ewm(com=1.5), op)().to_pandas(), getattr(ps.ewm(com=1.5), op)())
    # min_periods larger than the data
    pdt.assert_series_equal(rt.Series([1.0, 2.0]).ewm(alpha=0.3, min_periods=5).mean().to_pandas(),
                            pd.Series([1.0, 2.0]).ewm(alpha=0.3, min_periods=5).mean())  # fmt: skip
    # integer / bool / nullable input: float64 results
    for dtype in ["int64", "bool", "Int64", "float32"]:
        ps = pd.Series([1, 0, 1, 1], dtype=dtype)
        rs = rt.Series([1, 0, 1, 1], dtype=dtype)
        pdt.assert_series_equal(rs.ewm(com=2).mean().to_pandas(), ps.ewm(com=2).mean())


def test_dataframe_columns_selection_and_agg() -> None:
    pdf = pd.DataFrame({"a": [1.0, 2.0, np.nan, 4.0, 8.0], "b": [3, 1, 4, 1, 5], "s": list("vwxyz")},
                       index=list("pqrst"))  # fmt: skip
    rdf = rt.DataFrame(pdf)
    pdt.assert_frame_equal(rdf.ewm(com=1).mean(numeric_only=True).to_pandas(), pdf.ewm(com=1).mean(numeric_only=True))
    pdt.assert_frame_equal(rdf[["a", "b"]].ewm(span=3).std().to_pandas(), pdf[["a", "b"]].ewm(span=3).std())
    pdt.assert_series_equal(rdf.ewm(com=1)["a"].mean().to_pandas(), pdf.ewm(com=1)["a"].mean())
    pdt.assert_frame_equal(rdf[["a", "b"]].ewm(com=1).agg(["mean", "var"]).to_pandas(),
                           pdf[["a", "b"]].ewm(com=1).agg(["mean", "var"]))  # fmt: skip
    pdt.assert_series_equal(rdf["a"].ewm(com=1).agg("sum").to_pandas(), pdf["a"].ewm(com=1).agg("sum"))
    with pytest.raises(pd.errors.DataError):
        pdf.ewm(com=1).mean()
    with pytest.raises(pd.errors.DataError):
        rdf.ewm(com=1).mean()
    with pytest.raises(pd.errors.DataError):
        rt.Series(["x", "y"]).ewm(com=1).mean()
    with pytest.raises(NotImplementedError, match="callables"):
        rdf.ewm(com=1).agg(np.mean)


@pytest.mark.parametrize("adjust", [True, False])
@pytest.mark.parametrize("ignore_na", [True, False])
def test_cov_and_corr_with_other(adjust: bool, ignore_na: bool) -> None:
    x = _data(3, 200, 0.1, longest_gap=2)
    y = _data(4, 200, 0.1, longest_gap=2) + 0.5 * np.nan_to_num(x)
    kwargs = dict(com=3.0, adjust=adjust, ignore_na=ignore_na)
    px, py, rx, ry = pd.Series(x), pd.Series(y), rt.Series(x), rt.Series(y)
    both = np.where(np.isnan(y), np.nan, x)
    for bias in (True, False):
        _compare(rx.ewm(**kwargs).cov(ry, bias=bias), px.ewm(**kwargs).cov(py, bias=bias), both, 1e-10,
                 single_obs_quirk=True)  # fmt: skip
    _compare(rx.ewm(**kwargs).corr(ry), px.ewm(**kwargs).corr(py), x, 1e-9)
    pdf, rdf = pd.DataFrame({"a": x, "b": y}), rt.DataFrame({"a": x, "b": y})
    pdt.assert_frame_equal(rdf.ewm(**kwargs).cov(rdf * 2.0, pairwise=False).to_pandas(),
                           pdf.ewm(**kwargs).cov(pdf * 2.0, pairwise=False), rtol=1e-10)  # fmt: skip
    with pytest.raises(NotImplementedError, match="pairwise"):
        rdf.ewm(com=1).cov()


def test_times() -> None:
    rng = np.random.default_rng(5)
    times = pd.DatetimeIndex(np.cumsum(rng.integers(1, 10_000, size=100)).astype("datetime64[s]"))
    x = _data(6, 100, 0.2, longest_gap=5)
    ps, rs = pd.Series(x), rt.Series(x)
    for halflife in ["1h", datetime.timedelta(minutes=20), np.timedelta64(3, "h")]:
        for adjust in (True, False):
            for ignore_na in (True, False):
                kwargs = dict(halflife=halflife, times=times, adjust=adjust, ignore_na=ignore_na)
                _compare(rs.ewm(**kwargs).mean(), ps.ewm(**kwargs).mean(), x, 1e-12)
    _compare(rs.ewm(com=2.0, halflife="1h", times=times).mean(), ps.ewm(com=2.0, halflife="1h", times=times).mean(),
             x, 1e-12)  # fmt: skip
    _compare(rs.ewm(halflife="1h", times=rt.Series(times)).mean(), ps.ewm(halflife="1h", times=times).mean(), x,
             1e-12)  # fmt: skip
    for op in ["sum", "var", "std"]:
        with pytest.raises(NotImplementedError, match=f"{op} is not implemented with times"):
            getattr(rs.ewm(halflife="1h", times=times), op)()


def _same_error(rt_call, pd_call, error: type, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=match):
        pd_call()
    with pytest.raises(error, match=match):
        rt_call()


@pytest.mark.parametrize("kwargs, error, match", [
    ({}, ValueError, "Must pass one of comass, span, halflife, or alpha"),
    ({"com": 1, "span": 2}, ValueError, "mutually exclusive"),
    ({"com": -1}, ValueError, "comass >= 0"),
    ({"span": 0.5}, ValueError, "span >= 1"),
    ({"halflife": 0}, ValueError, "halflife > 0"),
    ({"alpha": 0}, ValueError, "0 < alpha <= 1"),
    ({"alpha": 1.5}, ValueError, "0 < alpha <= 1"),
    ({"halflife": "1D"}, ValueError, "halflife can only be a timedelta convertible argument"),
    ({"com": 1, "method": "x"}, ValueError, "method must be"),
    ({"halflife": "1D", "times": np.arange(3)}, ValueError, "times must be datetime64"),
    ({"halflife": "1D", "times": pd.date_range("2020", periods=2)}, ValueError, "same length"),
    ({"halflife": 2.0, "times": pd.date_range("2020", periods=3)}, ValueError, "timedelta convertible object"),
    ({"halflife": "1D", "times": pd.DatetimeIndex(["2020", None, "2021"])}, ValueError, "NaT"),
    ({"halflife": "1D", "com": 1, "adjust": False, "times": pd.date_range("2020", periods=3)},
     NotImplementedError, "None of com, span, or alpha"),
])  # fmt: skip
def test_validation_matches_pandas(kwargs: dict, error: type, match: str) -> None:
    _same_error(lambda: rt.Series([1.0, 2.0, 3.0]).ewm(**kwargs), lambda: pd.Series([1.0, 2.0, 3.0]).ewm(**kwargs),
                error, match)  # fmt: skip


def test_min_periods_is_at_least_one_and_repr() -> None:
    ps, rs = pd.Series([np.nan, 1.0, 2.0]), rt.Series([np.nan, 1.0, 2.0])
    for min_periods in [None, 0, -3, 2]:
        pdt.assert_series_equal(rs.ewm(com=1, min_periods=min_periods).var(bias=True).to_pandas(),
                                ps.ewm(com=1, min_periods=min_periods).var(bias=True))  # fmt: skip
    assert "com=1" in repr(rs.ewm(com=1))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 120), n_keys=st.integers(1, 6), decay=DECAYS,
       adjust=st.booleans(), ignore_na=st.booleans(), min_periods=st.integers(0, 3),
       op=st.sampled_from(["mean", "sum", "var", "std"]))  # fmt: skip
def test_groupby_ewm_matches_pandas(seed: int, n: int, n_keys: int, decay: dict, adjust: bool, ignore_na: bool,
                                    min_periods: int, op: str) -> None:  # fmt: skip
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, n_keys, size=n).astype(np.float64)
    keys[rng.random(n) < 0.05] = np.nan  # a dropped key
    pdf = pd.DataFrame({"k": keys, "v": _data(seed, n, 0.2, longest_gap=2, offset=1.0)},
                       index=pd.Index(rng.permutation(n), name="i"))  # fmt: skip
    rdf = rt.from_pandas(pdf)
    kwargs = dict(decay, adjust=adjust, ignore_na=ignore_na, min_periods=min_periods)
    if op == "sum" and not adjust:
        return
    got = getattr(rdf.groupby("k").ewm(**kwargs), op)().to_pandas()
    if np.isnan(keys).all():  # no group: pandas 3.1 fails inside (ValueError: need at least one array to concatenate)
        assert got.empty and list(got.index.names) == ["k", "i"]
        return
    expected = getattr(pdf.groupby("k").ewm(**kwargs), op)()
    pdt.assert_index_equal(got.index, expected.index)
    # per group, the same comparison as the ungrouped tests (pandas' 0.0-or-NaN after one observation included)
    for key in np.unique(keys[~np.isnan(keys)]):
        x = pdf["v"].to_numpy()[keys == key]
        rows = np.asarray(expected.index.get_level_values(0) == key)
        amplification = _correction(x, _com_of(decay), adjust, ignore_na)
        _compare(rt.Series(got["v"].to_numpy()[rows]), pd.Series(expected["v"].to_numpy()[rows]), x, 1e-11,
                 single_obs_quirk=op in ("var", "std"), amplification=amplification)  # fmt: skip


def test_groupby_ewm_series_and_times() -> None:
    df = pd.DataFrame({"k": ["a", "b", "a", "b", "a"], "v": [1.0, 2.0, np.nan, 4.0, 8.0]}, index=list("pqrst"))
    times = pd.date_range("2024-01-01", periods=5, freq="37min")
    rdf = rt.from_pandas(df)
    pdt.assert_series_equal(rdf.groupby("k")["v"].ewm(span=3).mean().to_pandas(),
                            df.groupby("k")["v"].ewm(span=3).mean())  # fmt: skip
    pdt.assert_frame_equal(rdf.groupby("k").ewm(halflife="1h", times=times).mean().to_pandas(),
                           df.groupby("k").ewm(halflife="1h", times=times).mean())  # fmt: skip


def test_method_table() -> None:
    _same_error(lambda: rt.Series([1.0, 2.0]).ewm(com=1, method="table").mean(),
                lambda: pd.Series([1.0, 2.0]).ewm(com=1, method="table").mean(), ValueError, "not applicable")
    with pytest.raises(NotImplementedError, match="method='table'"):
        rt.DataFrame({"a": [1.0, 2.0]}).ewm(com=1, method="table").mean()
