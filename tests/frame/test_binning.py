"""rt.cut / rt.qcut against pandas: same bins, same categories (Intervals or labels), same codes and edges."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import NUMERIC_DTYPES, _error_family, pandas_result, series_st

_BINNABLE = NUMERIC_DTYPES + ["bool", "datetime64[ns]", "timedelta64[ns]"]


def check_binning(fn: str, x, *args, **kwargs):
    """rt.cut/qcut of the riptide twin of ``x`` equals pandas' result (and edges), or raises the same kind of error."""
    expected, error = pandas_result(lambda: getattr(pd, fn)(x, *args, **kwargs))
    rt_x = rt.from_pandas(x) if isinstance(x, pd.Series) else x
    if error is not None:
        with pytest.raises(_error_family(error)):
            getattr(rt, fn)(rt_x, *args, **kwargs)
        return
    got = getattr(rt, fn)(rt_x, *args, **kwargs)
    if isinstance(expected, tuple):
        (got, got_edges), (expected, expected_edges) = got, expected
        if isinstance(expected_edges, pd.Index):
            pdt.assert_index_equal(got_edges, expected_edges)
        else:
            assert isinstance(got_edges, np.ndarray) and got_edges.dtype == expected_edges.dtype
            np.testing.assert_array_equal(got_edges, expected_edges)
    if not isinstance(expected, pd.Series):
        expected = pd.Series(expected)  # pandas returns a Categorical / ndarray for non-Series input
    assert isinstance(got, rt.Series)
    pdt.assert_series_equal(got.to_pandas(), expected)


@settings(max_examples=60)
@given(series_st(dtypes=_BINNABLE, max_size=200), st.integers(1, 8), st.booleans(), st.booleans(),
       st.sampled_from([None, False, "names"]), st.integers(1, 4))  # fmt: skip
def test_cut_equal_width(x, bins, right, retbins, labels, precision):
    if labels == "names":
        labels = [f"b{i}" for i in range(bins)]
    check_binning("cut", x, bins, right=right, retbins=retbins, labels=labels, precision=precision)


@settings(max_examples=60)
@given(series_st(dtypes=NUMERIC_DTYPES, max_size=200, small=True), st.data())
def test_cut_given_edges(x, data):
    edges = sorted(data.draw(st.lists(st.integers(-25, 25), min_size=1, max_size=6)))
    if data.draw(st.booleans()):
        edges = [e / 4 for e in edges]
    kwargs = {"right": data.draw(st.booleans()), "include_lowest": data.draw(st.booleans()),
              "duplicates": data.draw(st.sampled_from(["raise", "drop"])),
              "labels": data.draw(st.sampled_from([None, False]))}  # fmt: skip
    check_binning("cut", x, edges, **kwargs)


@settings(max_examples=60)
@given(series_st(dtypes=_BINNABLE, max_size=300), st.data())
def test_qcut(x, data):
    if data.draw(st.booleans()):
        q = data.draw(st.integers(1, 10))
    else:
        q = sorted(data.draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.333, 0.5, 0.9, 1.0]), min_size=2,
                                      max_size=5, unique=True)))  # fmt: skip
    kwargs = {"duplicates": data.draw(st.sampled_from(["raise", "drop"])),
              "labels": data.draw(st.sampled_from([None, False])), "retbins": data.draw(st.booleans())}  # fmt: skip
    check_binning("qcut", x, q, **kwargs)


def test_cut_labels_and_ordering():
    s = pd.Series([1, 7, 5, 4, 6, 3, np.nan, 10, 0], index=list("abcdefghi"), name="v")
    check_binning("cut", s, [0, 5, 10], labels=["lo", "hi"])
    check_binning("cut", s, [0, 5, 10], labels=["lo", "lo"], ordered=False)
    check_binning("cut", s, [0, 5, 10], labels=["lo", "hi"], ordered=False)
    check_binning("cut", s, [0, 5, 10], labels=pd.Categorical(["hi", "lo"], categories=["lo", "hi"]))
    check_binning("cut", s, [0, 5, 10], labels=[1, 2])
    for bad in [{"labels": ["lo", "lo"]}, {"labels": ["lo"]}, {"labels": "x"}, {"ordered": False},
                {"duplicates": "x"}]:  # fmt: skip
        check_binning("cut", s, [0, 5, 10], **bad)


def test_cut_interval_bins():
    s = pd.Series([1, 7, 5, 4, 6, 3, np.nan, 10, 0, 2])
    check_binning("cut", s, pd.IntervalIndex.from_tuples([(0, 2), (4, 6), (7, 10)]))
    check_binning("cut", s, pd.IntervalIndex.from_tuples([(4, 6), (0, 2)], closed="left"))
    check_binning("cut", s, pd.IntervalIndex.from_tuples([(0, 2), (2, 6)], closed="both"), retbins=True)
    check_binning("cut", s, pd.IntervalIndex.from_tuples([(0, 2), (1, 6)]))  # overlapping: ValueError
    check_binning("cut", s, pd.IntervalIndex.from_breaks([0.5, 2.5, 9.5], closed="neither"))


def test_cut_edge_cases():
    s = pd.Series([1.0, 2.0, 3.0])
    for x, bins in [(pd.Series([5.0, 5.0]), 3), (pd.Series([0.0, 0.0]), 3), (pd.Series([-2, -2]), 2),
                    (pd.Series([1.0, np.inf]), 3), (pd.Series([], dtype=float), 3), (s, 0), (s, [3, 1]),
                    (pd.Series([0.001, 0.0015, 0.002]), 3), (pd.Series([np.nan, np.nan]), [0, 1]),
                    (pd.Series([1, None, 3], dtype="Int64"), 2), (pd.Series([1.5, None], dtype="Float64"), [0, 1, 2]),
                    (s, [0, 1.5, 1.5, 5]), (s, [2, 2])]:  # fmt: skip
        check_binning("cut", x, bins)
    check_binning("cut", s, [0, 1.5, 1.5, 5], duplicates="drop")
    check_binning("cut", s, 2, include_lowest=True)
    with pytest.raises(TypeError):
        rt.cut(rt.Series(["a", "b"]), 2)


def test_cut_temporal():
    dates = pd.Series(pd.to_datetime(["2020-01-01", "2020-06-01", "2021-01-01", None]), name="d")
    check_binning("cut", dates, 3)
    check_binning("cut", dates, 3, right=False, labels=False)
    check_binning("cut", pd.Series(pd.to_datetime(["2020-01-01", "2020-01-01"])), 2)
    check_binning("cut", dates, pd.to_datetime(["2019-01-01", "2020-03-01", "2022-01-01"]), include_lowest=True)
    check_binning("cut", dates, [1, 2])  # numbers cannot bin datetimes: ValueError
    check_binning("cut", pd.Series(pd.to_timedelta([1, 5, 9], unit="h")), 2)
    check_binning("qcut", dates, 2)


def test_non_series_inputs():
    values = [1.0, 7.0, 5.0, 4.0]
    check_binning("cut", np.array(values), 2)
    check_binning("cut", values, 2, labels=False)
    check_binning("qcut", np.array(values), 2)
    got = rt.cut(rt.Index([1.0, 2.0, 3.0]), 2, labels=False)
    assert got.tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match="1 dimensional"):
        rt.cut(np.ones((2, 2)), 2)


def test_qcut_errors_and_precision():
    s = pd.Series(np.random.default_rng(0).standard_normal(500) * 1e-4)
    check_binning("qcut", s, 7, precision=1)
    with pytest.raises(ValueError, match="positive integer"):  # pandas 3.1 (3.0 accepted q=0)
        rt.qcut(rt.from_pandas(s), 0)
    check_binning("qcut", s, [0, 1.5])
    with pytest.raises(ValueError, match="positive integer or list-like"):  # pandas 3.1's check
        rt.qcut(rt.from_pandas(s), "x")
    check_binning("qcut", pd.Series([1, 1, 1, 1, 2]), 4)
    check_binning("qcut", pd.Series([1, 1, 1, 1, 2]), 4, duplicates="drop")
    check_binning("qcut", pd.Series([], dtype=float), 2)


def test_result_works_as_a_column():
    s = rt.Series([1.0, 5.0, 9.0, None])
    binned = rt.cut(s, [0, 4, 8, 12])
    expected = pd.cut(s.to_pandas(), [0, 4, 8, 12])
    assert binned.astype(str).tolist() == expected.astype(str).tolist()
    pdt.assert_series_equal(binned.iloc[[2, 0]].to_pandas(), pd.cut(s.to_pandas(), [0, 4, 8, 12]).iloc[[2, 0]])
    doubled = rt.concat([binned, binned], ignore_index=True)
    expected = pd.concat([pd.cut(s.to_pandas(), [0, 4, 8, 12])] * 2, ignore_index=True)
    pdt.assert_series_equal(doubled.to_pandas(), expected)
