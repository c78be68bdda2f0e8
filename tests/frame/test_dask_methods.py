"""pandas methods that Dask calls on partitions (formerly patched in by riptide/dask/_shims.py), against pandas:
Index.isna/notna/ndim/to_frame/searchsorted/get_slice_bound/min/max(skipna), RangeIndex pickling,
Series.searchsorted, the pandas object protocol (attrs, _constructor*, infer_objects), and more below."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide import _device
from tests.conftest import assert_frame_equal, assert_index_equal, check_same_outcome, make_values


def _host(array):
    return np.asarray(_device.to_host(array))


# --------------------------------------------------------------------------- Index: missing labels, ndim, to_frame


@pytest.mark.parametrize("dtype", ["int64", "float64", "Int64", "str", "datetime64[ns]", "category", "boolean"])
def test_index_isna_notna(dtype):
    rng = np.random.default_rng(1)
    labels = pd.Index(make_values(rng, dtype, 30, null_frac=0.3))
    got = rt.Index(labels)
    np.testing.assert_array_equal(_host(got.isna()), labels.isna())
    np.testing.assert_array_equal(_host(got.notna()), labels.notna())
    np.testing.assert_array_equal(_host(got.isnull()), labels.isnull())


def test_index_isna_edge_cases():
    assert _host(rt.RangeIndex(4).isna()).tolist() == [False] * 4
    assert _host(rt.Index([], dtype="float64").isna()).shape == (0,)
    assert _host(rt.Index([None, "a"]).isna()).tolist() == [True, False]  # host (object) labels
    multi = rt.MultiIndex.from_arrays([[1, 2], ["a", "b"]])
    with pytest.raises(NotImplementedError, match="isna is not defined for MultiIndex"):
        multi.isna()
    assert rt.Index([1, 2]).ndim == pd.Index([1, 2]).ndim == 1


@pytest.mark.parametrize("name", [None, "x", 5])
@pytest.mark.parametrize("index", [True, False])
def test_index_to_frame(name, index):
    labels = pd.Index([3, 1, 2], name=name)
    assert_frame_equal(rt.Index(labels).to_frame(index=index), labels.to_frame(index=index))
    assert_frame_equal(rt.Index(labels).to_frame(index=index, name="z"), labels.to_frame(index=index, name="z"))
    strings = pd.Index(["a", None, "c"], dtype="str", name=name)
    assert_frame_equal(rt.Index(strings).to_frame(index=index), strings.to_frame(index=index))
    assert_frame_equal(rt.RangeIndex(3, name=name).to_frame(index=index), pd.RangeIndex(3, name=name).to_frame(index=index))


# --------------------------------------------------------------------------- Index.min / max with skipna


@pytest.mark.parametrize("dtype", ["int64", "float64", "Int64", "str", "datetime64[ns]"])
@pytest.mark.parametrize("skipna", [True, False])
@pytest.mark.parametrize("null_frac", [0.0, 0.3, 1.0])
def test_index_min_max_skipna(dtype, skipna, null_frac):
    rng = np.random.default_rng(2)
    labels = pd.Index(make_values(rng, dtype, 12, null_frac=null_frac))
    for how in ("min", "max"):
        expected = getattr(labels, how)(skipna=skipna)
        got = getattr(rt.Index(labels), how)(skipna=skipna)
        if pd.isna(expected):
            assert pd.isna(got), (how, got, expected)
        else:
            assert got == expected, (how, got, expected)


def test_index_max_axis():
    assert rt.Index([1, 5, 3]).max(axis=0) == 5
    with pytest.raises(ValueError):
        pd.Index([1]).max(axis=1)
    with pytest.raises(ValueError):
        rt.Index([1]).max(axis=1)


# --------------------------------------------------------------------------- searchsorted / get_slice_bound


_SORTABLE = ["int64", "float64", "uint8", "str", "datetime64[ns]", "bool"]


@settings(max_examples=40, deadline=None)
@given(dtype=st.sampled_from(_SORTABLE), n=st.integers(0, 30), m=st.integers(0, 8), seed=st.integers(0, 2**32 - 1),
       side=st.sampled_from(["left", "right"]))  # fmt: skip
def test_series_searchsorted_matches_pandas(dtype, n, m, seed, side):
    rng = np.random.default_rng(seed)
    values = make_values(rng, dtype, n, small=True).sort_values(ignore_index=True)
    probes = make_values(rng, dtype, m, small=True)
    got = rt.Series(values).searchsorted(rt.Series(probes), side=side)
    np.testing.assert_array_equal(_host(got), values.searchsorted(probes, side=side))
    got_list = rt.Series(values).searchsorted(list(probes), side=side)
    np.testing.assert_array_equal(_host(got_list), values.searchsorted(list(probes), side=side))
    if m:
        probe = probes.iloc[0]
        got_one = rt.Series(values).searchsorted(probe, side=side)
        assert got_one == values.searchsorted(probe, side=side) and np.ndim(got_one) == 0
        assert rt.Index(values).searchsorted(probe, side=side) == pd.Index(values).searchsorted(probe, side=side)


def test_searchsorted_edge_cases():
    floats = pd.Series([1.0, 2.0, np.nan])
    for probe in (np.nan, 2.0, 0.5, [np.nan, 3.0]):
        for side in ("left", "right"):
            np.testing.assert_array_equal(_host(rt.Series(floats).searchsorted(probe, side=side)),
                                          floats.searchsorted(probe, side=side))  # fmt: skip
    ints = pd.Series([1, 3, 5])
    np.testing.assert_array_equal(_host(rt.Series(ints).searchsorted([2.5, 3.0])), ints.searchsorted([2.5, 3.0]))
    unsorted = pd.Series([3, 1, 2])
    sorter = [1, 2, 0]
    assert rt.Series(unsorted).searchsorted(2, sorter=sorter) == unsorted.searchsorted(2, sorter=sorter)
    check_same_outcome(lambda: rt.Series([1]).searchsorted(1, side="middle"),
                       lambda: pd.Series([1]).searchsorted(1, side="middle"), lambda a, b: None)  # fmt: skip
    with_missing = pd.Series(["a", None, "c"], dtype="str")
    check_same_outcome(lambda: rt.Series(with_missing).searchsorted("b"), lambda: with_missing.searchsorted("b"),
                       lambda a, b: None)  # fmt: skip


_BOUND_INDEXES = [
    pd.Index([1, 3, 3, 5, 9]),
    pd.Index([9, 5, 3, 3, 1]),
    pd.Index(["a", "b", "b", "d"], dtype="str"),
    pd.Index([4, 1, 7]),
    pd.Index([4, 1, 4, 7]),
    pd.Index([4, 4, 1, 7]),
    pd.RangeIndex(2, 20, 3),
    pd.Index(pd.to_datetime(["2020-01-01", "2020-02-01", "2020-03-01"])),
]


@pytest.mark.parametrize("labels", _BOUND_INDEXES, ids=range(len(_BOUND_INDEXES)))
@pytest.mark.parametrize("side", ["left", "right"])
def test_get_slice_bound(labels, side):
    if labels.dtype == "str":
        probes = ["", "a", "b", "c", "e"]
    elif labels.dtype.kind == "M":
        probes = [pd.Timestamp("2019-01-01"), pd.Timestamp("2020-02-01"), pd.Timestamp("2020-02-15")]
    else:
        probes = [0, 1, 3, 4, 5, 6, 9, 10, 11, 2.5]
    for label in probes:
        check_same_outcome(lambda: rt.Index(labels).get_slice_bound(label, side),
                           lambda: labels.get_slice_bound(label, side),
                           lambda a, b: _same_bound(a, b, label))  # fmt: skip


def _same_bound(got, expected, label):
    assert got == expected, (label, got, expected)


def test_get_slice_bound_label_of_another_kind():
    # pandas answers an int index searched for a string by NumPy's mixed comparison (an accident); a string index
    # searched for an int raises TypeError in both
    with pytest.raises(TypeError):
        pd.Index(["a", "b"], dtype="str").get_slice_bound(3, "left")
    with pytest.raises(TypeError):
        rt.Index(["a", "b"]).get_slice_bound(3, "left")
    with pytest.raises(TypeError):
        rt.Index([1, 2]).get_slice_bound("a", "left")


def test_get_slice_bound_bad_side():
    with pytest.raises(ValueError, match="side"):
        pd.Index([1]).get_slice_bound(1, "middle")
    with pytest.raises(ValueError, match="side"):
        rt.Index([1]).get_slice_bound(1, "middle")


# --------------------------------------------------------------------------- RangeIndex pickling


@pytest.mark.parametrize("args", [(5,), (2, 20, 3), (10, 0, -2), (0,)])
def test_range_index_pickles(args):
    index = rt.RangeIndex(*args, name="r")
    back = pickle.loads(pickle.dumps(index))
    assert isinstance(back, rt.RangeIndex)
    assert_index_equal(back, pd.RangeIndex(*args, name="r"))
    frame = rt.DataFrame({"a": [1.5, None, 3.0]})
    assert_frame_equal(pickle.loads(pickle.dumps(frame)), frame.to_pandas())


# --------------------------------------------------------------------------- the pandas object protocol


def test_constructors_and_attrs_and_infer_objects():
    s = rt.Series([1, 2], name="v")
    df = rt.DataFrame({"a": [1, 2]})
    assert s._constructor is rt.Series and s._constructor_expanddim is rt.DataFrame
    assert df._constructor is rt.DataFrame and df._constructor_sliced is rt.Series
    assert s.attrs == {} and df.attrs == {}
    s.attrs["unit"] = "m"
    df.attrs = {"source": "x"}
    assert s.attrs == {"unit": "m"} and df.attrs == {"source": "x"}
    assert rt.Series([1]).attrs == {}  # per object
    inferred = s.infer_objects()
    assert inferred is not s
    pd.testing.assert_series_equal(inferred.to_pandas(), pd.Series([1, 2], name="v").infer_objects())


# --------------------------------------------------------------------------- Series.clip(axis), squeeze


def test_series_clip_axis():
    s = pd.Series([1, 5, 9])
    for axis in (None, 0, "index"):
        pd.testing.assert_series_equal(rt.Series(s).clip(2, 6, axis=axis).to_pandas(), s.clip(2, 6, axis=axis))
    check_same_outcome(lambda: rt.Series(s).clip(2, 6, axis=1), lambda: s.clip(2, 6, axis=1), lambda a, b: None)


@pytest.mark.parametrize("data", [{"a": [1]}, {"a": [1, 2]}, {"a": [1], "b": [2.5]}, {"a": [1, 2], "b": [3, 4]},
                                  {"a": ["x"]}, {"a": [1.5], "b": [2.5]}])  # fmt: skip
@pytest.mark.parametrize("axis", [None, 0, 1, "columns", "index"])
def test_squeeze(data, axis):
    pdf = pd.DataFrame(data)
    got, expected = rt.from_pandas(pdf).squeeze(axis), pdf.squeeze(axis)
    if isinstance(expected, pd.DataFrame):
        assert_frame_equal(got, expected)
    elif isinstance(expected, pd.Series):
        pd.testing.assert_series_equal(got.to_pandas(), expected)
        s_got, s_expected = got.squeeze(), expected.squeeze()
        assert isinstance(s_got, rt.Series) == isinstance(s_expected, pd.Series)
        assert isinstance(s_got, rt.Series) or s_got == s_expected
    else:
        assert got == expected and not isinstance(got, rt.Series | rt.DataFrame)
    check_same_outcome(lambda: rt.from_pandas(pdf).squeeze(axis=2), lambda: pdf.squeeze(axis=2), lambda a, b: None)
    check_same_outcome(lambda: rt.Series([1]).squeeze(axis=1), lambda: pd.Series([1]).squeeze(axis=1),
                       lambda a, b: None)  # fmt: skip


# --------------------------------------------------------------------------- select_dtypes


_SELECTIONS = [
    dict(include="number"), dict(include=["number"]), dict(exclude="number"), dict(include="category"),
    dict(include=["datetime"]), dict(include="bool"), dict(include=[np.float64]), dict(include=["int64", "str"]),
    dict(exclude=["category", "datetime64"]), dict(include="number", exclude="int"), dict(),
    dict(include="number", exclude="number"),
]


@pytest.mark.parametrize("selection", _SELECTIONS, ids=[str(s) for s in _SELECTIONS])
def test_select_dtypes(selection):
    rng = np.random.default_rng(4)
    names = ["int64", "float64", "Int64", "str", "category", "bool", "datetime64[ns]", "uint8", "boolean"]
    pdf = pd.DataFrame({f"c_{d}": make_values(rng, d, 5, null_frac=0.2) for d in names})
    check_same_outcome(lambda: rt.from_pandas(pdf).select_dtypes(**selection),
                       lambda: pdf.select_dtypes(**selection), assert_frame_equal)  # fmt: skip


# --------------------------------------------------------------------------- list-like column keys


@pytest.mark.parametrize("kind", ["pd.Index", "np.ndarray", "rt.Index", "rt.Series"])
def test_setitem_and_groupby_getitem_with_label_list_likes(kind):
    pdf = pd.DataFrame({"k": [1, 2, 1], "a": [1.0, 2.0, 3.0], "b": [4, 5, 6]})
    make = {"pd.Index": pd.Index, "np.ndarray": np.array, "rt.Index": rt.Index, "rt.Series": rt.Series}[kind]
    pd_make = {"rt.Index": pd.Index, "rt.Series": pd.Series}.get(kind, make)
    got, expected = rt.from_pandas(pdf), pdf.copy()
    got[make(["c", "d"])] = rt.from_pandas(pdf[["a", "b"]])
    expected[pd_make(["c", "d"])] = pdf[["a", "b"]]
    assert_frame_equal(got, expected)
    assert_frame_equal(rt.from_pandas(pdf).groupby("k")[make(["a", "b"])].sum(), pdf.groupby("k")[["a", "b"]].sum())


# --------------------------------------------------------------------------- GroupBy.obj, SeriesGroupBy.unique


def test_groupby_obj():
    frame = rt.DataFrame({"k": [1, 2], "v": [3, 4]})
    assert frame.groupby("k").obj is frame
    assert frame.v.groupby(frame.k).obj._column is frame.v._column


def _unique_lists(series):
    return {key: sorted(map(str, values)) if values is not None else None for key, values in series.items()}


@settings(max_examples=30, deadline=None)
@given(dtype=st.sampled_from(["int64", "float64", "str", "Int64", "datetime64[ns]"]), n=st.integers(0, 40),
       seed=st.integers(0, 2**32 - 1), null_frac=st.sampled_from([0.0, 0.3]), dropna=st.booleans())  # fmt: skip
def test_series_groupby_unique_matches_pandas(dtype, n, seed, null_frac, dropna):
    rng = np.random.default_rng(seed)
    pdf = pd.DataFrame({"k": make_values(rng, "Int64", n, null_frac=null_frac, small=True),
                        "v": make_values(rng, dtype, n, null_frac=null_frac, small=True)})  # fmt: skip
    pdf["k"] = pdf["k"] % 4
    expected = pdf.groupby("k", dropna=dropna).v.unique()
    got = rt.from_pandas(pdf).groupby("k", dropna=dropna).v.unique()
    assert got.name == expected.name and got.index.tolist() == expected.index.tolist()
    for (key, values), want in zip(got.to_pandas().items(), expected):
        host = list(values)
        assert len(host) == len(want), (key, host, want)  # the distinct values, in order of first appearance
        for a, b in zip(host, want):
            assert (pd.isna(a) and pd.isna(b)) or a == b, (key, host, want)


# --------------------------------------------------------------------------- transpose


@settings(max_examples=30, deadline=None)
@given(n=st.integers(0, 6), n_cols=st.integers(0, 4), seed=st.integers(0, 2**32 - 1),
       dtype=st.sampled_from(["int64", "float64", "str", "uint8", "datetime64[ns]", "category"]),
       mixed=st.booleans())  # fmt: skip
def test_transpose_matches_pandas(n, n_cols, seed, dtype, mixed):
    rng = np.random.default_rng(seed)
    pdf = pd.DataFrame({f"c{i}": make_values(rng, dtype if not (mixed and i % 2) else "float64", n, null_frac=0.2)
                        for i in range(n_cols)}, index=pd.Index([f"r{i}" for i in range(n)], name="row"))  # fmt: skip
    pdf.columns.name = "col"
    expected = pdf.T
    if dtype == "category" and n_cols > 1 and not mixed:
        return  # categories differ between columns: pandas makes object, riptide the categories' values
    if any(d == object for d in expected.dtypes):
        with pytest.raises(TypeError):
            rt.from_pandas(pdf).T
        return
    assert_frame_equal(rt.from_pandas(pdf).T, expected)
    assert_frame_equal(rt.from_pandas(pdf).transpose(), expected)


def test_transpose_edge_cases():
    pdf = pd.DataFrame({"a": [1, 2], "b": [3.5, 4.0]}, index=pd.MultiIndex.from_tuples([(1, "x"), (2, "y")]))
    assert_frame_equal(rt.from_pandas(pdf).T, pdf.T)
    assert_frame_equal(rt.from_pandas(pdf).T.T, pdf.T.T)
    assert_frame_equal(rt.DataFrame(index=[1, 2]).T, pd.DataFrame(index=[1, 2]).T)
    with pytest.raises(ValueError, match="unique column labels"):
        rt.DataFrame({"a": [1, 2]}, index=[0, 0]).T


# --------------------------------------------------------------------------- DataFrame.quantile


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 30), seed=st.integers(0, 2**32 - 1), scalar=st.booleans(),
       interpolation=st.sampled_from(["linear", "lower", "higher", "nearest", "midpoint"]),
       dtypes=st.sampled_from([["int64", "float64"], ["float64"], ["Int64", "Float64"], ["datetime64[ns]"],
                               ["int64", "uint8"]]))  # fmt: skip
def test_frame_quantile_single_matches_pandas(n, seed, scalar, interpolation, dtypes):
    rng = np.random.default_rng(seed)
    pdf = pd.DataFrame({f"c{i}": make_values(rng, d, n, null_frac=0.2) for i, d in enumerate(dtypes)})
    q = 0.3 if scalar else [0.0, 0.25, 0.5, 1.0]
    expected = pdf.quantile(q, interpolation=interpolation)
    got = rt.from_pandas(pdf).quantile(q, interpolation=interpolation)
    if scalar:
        pd.testing.assert_series_equal(got.to_pandas(), expected)
    else:
        assert_frame_equal(got, expected)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 30), seed=st.integers(0, 2**32 - 1), scalar=st.booleans(),
       interpolation=st.sampled_from(["lower", "higher", "nearest"]),
       dtypes=st.sampled_from([["str"], ["int64", "str"], ["float64", "int64"], ["datetime64[ns]", "str"]]))  # fmt: skip
def test_frame_quantile_table_matches_pandas(n, seed, scalar, interpolation, dtypes):
    rng = np.random.default_rng(seed)
    pdf = pd.DataFrame({f"c{i}": make_values(rng, d, n, null_frac=0.2, small=True) for i, d in enumerate(dtypes)})
    q = 0.4 if scalar else [0.0, 0.25, 0.5, 1.0]
    expected = pdf.quantile(q, interpolation=interpolation, method="table", numeric_only=False)
    got = rt.from_pandas(pdf).quantile(q, interpolation=interpolation, method="table", numeric_only=False)
    if scalar:
        # one row of mixed kinds is a host (object) Series in riptide too, as df.iloc[0] gives it
        pd.testing.assert_series_equal(got.to_pandas() if isinstance(got, rt.Series) else got, expected)
    else:
        assert_frame_equal(got, expected)


def test_frame_quantile_options_and_errors():
    pdf = pd.DataFrame({"a": [1, 2, 3, 4], "s": ["a", "b", "c", "d"], "t": pd.to_datetime(["2020"] * 4)})
    df = rt.from_pandas(pdf)
    pd.testing.assert_series_equal(df.quantile(0.5, numeric_only=True).to_pandas(), pdf.quantile(0.5, numeric_only=True))
    assert_frame_equal(df[["a"]].quantile([0.5], method="table", interpolation="lower"),
                       pdf[["a"]].quantile([0.5], method="table", interpolation="lower"))  # fmt: skip
    for kwargs in (dict(method="table"), dict(method="other"), dict(q=1.5), dict(q=[-0.1])):
        check_same_outcome(lambda: df[["a"]].quantile(**kwargs), lambda: pdf[["a"]].quantile(**kwargs),
                           lambda a, b: None)  # fmt: skip
    with pytest.raises(TypeError):
        df[["s"]].quantile(0.5)  # text needs method="table" (pandas raises an Arrow error)
    pd.testing.assert_series_equal(rt.DataFrame().quantile(0.5).to_pandas(), pd.DataFrame().quantile(0.5))


# --------------------------------------------------------------------------- DataFrame.reindex(labels, axis=)


@pytest.mark.parametrize("axis", [None, 0, "index", "rows", 1, "columns"])
def test_reindex_axis(axis):
    pdf = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    labels = ["b", "z", "a"] if axis in (1, "columns") else [1, 5, 0]
    kwargs = {} if axis is None else {"axis": axis}
    assert_frame_equal(rt.from_pandas(pdf).reindex(labels, **kwargs), pdf.reindex(labels, **kwargs))
    assert_frame_equal(rt.from_pandas(pdf).reindex(index=[1, 0], columns=["b"]), pdf.reindex(index=[1, 0], columns=["b"]))
    check_same_outcome(lambda: rt.from_pandas(pdf).reindex(labels, axis=2), lambda: pdf.reindex(labels, axis=2),
                       lambda a, b: None)  # fmt: skip
