"""melt, get_dummies, sample and explode against pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import (
    ALL_DTYPES,
    NUMERIC_DTYPES,
    _error_family,
    frame_st,
    pandas_result,
    series_st,
)


def _frame_has_object(frame: pd.DataFrame) -> bool:
    return any(d == object for d in frame.dtypes) or frame.index.dtype == object


def check_frame(rt_fn, pd_fn, fix_expected=None):
    """Same result as pandas, the same error family, or riptide's TypeError where pandas made an object column."""
    expected, error = pandas_result(pd_fn)
    if error is not None:
        with pytest.raises(_error_family(error)):
            rt_fn()
        return
    try:
        got = rt_fn()
    except TypeError as exc:
        assert _frame_has_object(expected), f"riptide raised {exc!r}; pandas' result has no object column"
        return
    if fix_expected is not None:
        expected = fix_expected(expected)
    assert isinstance(got, rt.DataFrame)
    pdt.assert_frame_equal(got.to_pandas(), expected, check_column_type=False)


# --------------------------------------------------------------------------- melt


@settings(max_examples=40)
@given(st.data())
def test_melt_random(data):
    frame = data.draw(frame_st(dtypes=data.draw(st.sampled_from([NUMERIC_DTYPES, ["float64"], ALL_DTYPES])),
                               max_cols=5, max_size=40))  # fmt: skip
    labels = list(frame.columns)
    ids = data.draw(st.lists(st.sampled_from(labels), unique=True, max_size=2)) if labels else []
    value_vars = None
    if labels and data.draw(st.booleans()):
        value_vars = data.draw(st.lists(st.sampled_from(labels), max_size=3))
    kwargs = {"id_vars": ids, "value_vars": value_vars, "ignore_index": data.draw(st.booleans())}
    if data.draw(st.booleans()):
        kwargs.update(var_name="var", value_name="val")
    rt_frame = rt.from_pandas(frame)
    every = value_vars is None or (not ids and not value_vars)  # pandas melts every other column then
    melted = [c for c in (labels if every else value_vars) if c not in ids]
    if melted and pd.concat([frame[c] for c in melted]).dtype == object:
        # pandas makes an object value column (and may infer a dtype from its values again); riptide refuses
        with pytest.raises(TypeError, match="object"):
            rt.melt(rt_frame, **kwargs)
        return
    check_frame(lambda: rt.melt(rt_frame, **kwargs), lambda: pd.melt(frame, **kwargs))
    check_frame(lambda: rt_frame.melt(**kwargs), lambda: frame.melt(**kwargs))


def test_melt_edge_cases():
    frame = pd.DataFrame({"a": [1, 2], "b": ["x", "y"], "c": [1.5, 2.5], "e": [3, 4]}, index=["r", "s"])
    r = rt.from_pandas(frame)
    for kwargs in [{"id_vars": ["a", "b"]}, {"id_vars": "b", "value_vars": "c"}, {"value_vars": ["c", "c", "a"],
                   "id_vars": ["a"]}, {"id_vars": ["a", "b", "c", "e"]}, {"id_vars": ["a"], "value_vars": []},
                   {"id_vars": "b", "ignore_index": False}, {"id_vars": "zz"}, {"value_name": "a"},
                   {"var_name": ["v"]}]:  # fmt: skip
        check_frame(lambda: rt.melt(r, **kwargs), lambda: pd.melt(frame, **kwargs))
    with pytest.raises(ValueError, match="duplicate names"):  # pandas 3.1 refuses it too (3.0 made two 'a's)
        rt.melt(r, id_vars=["a"], var_name="a")
    no_columns = pd.DataFrame(index=[1, 2])
    check_frame(lambda: rt.melt(rt.from_pandas(no_columns)), lambda: pd.melt(no_columns))
    check_frame(lambda: rt.melt(r.iloc[:0], id_vars=["b"], value_vars=["c"]),
                lambda: pd.melt(frame.iloc[:0], id_vars=["b"], value_vars=["c"]))  # fmt: skip
    with pytest.raises(TypeError, match="object"):  # numbers and strings in one value column
        rt.melt(r)
    with pytest.raises(NotImplementedError):
        rt.melt(r, col_level=0)


# --------------------------------------------------------------------------- get_dummies


_DUMMY_DTYPES = ["str", "category", "int8", "int64", "float64", "bool", "boolean", "Int64", "datetime64[ns]"]


@settings(max_examples=40)
@given(series_st(dtypes=_DUMMY_DTYPES, max_size=40, small=True), st.booleans(), st.booleans(),
       st.sampled_from([None, "p"]), st.sampled_from([None, "int64", "float32", "boolean"]))  # fmt: skip
def test_get_dummies_series(s, dummy_na, drop_first, prefix, dtype):
    r = rt.from_pandas(s)
    kwargs = dict(dummy_na=dummy_na, drop_first=drop_first, prefix=prefix, dtype=dtype)
    check_frame(lambda: rt.get_dummies(r, **kwargs), lambda: pd.get_dummies(s, **kwargs))


@settings(max_examples=30)
@given(frame_st(dtypes=["str", "category", "int64", "float64"], max_cols=4, max_size=40, small=True),
       st.booleans(), st.booleans(), st.sampled_from([None, "/"]))  # fmt: skip
def test_get_dummies_frame(frame, dummy_na, drop_first, sep):
    r = rt.from_pandas(frame)
    kwargs = dict(dummy_na=dummy_na, drop_first=drop_first)
    if sep is not None:
        kwargs["prefix_sep"] = sep
    check_frame(lambda: rt.get_dummies(r, **kwargs), lambda: pd.get_dummies(frame, **kwargs))
    chosen = list(frame.columns)[:2]
    check_frame(lambda: rt.get_dummies(r, columns=chosen, **kwargs),
                lambda: pd.get_dummies(frame, columns=chosen, **kwargs))  # fmt: skip


@pytest.mark.parametrize("kwargs", [{}, {"dummy_na": True}, {"drop_first": True}, {"prefix": "p"}, {"dtype": float},
                                    {"dummy_na": True, "drop_first": True, "prefix": "q"}])  # fmt: skip
@pytest.mark.parametrize("values", [pd.Categorical(["a", "b", None], categories=["b", "a", "c"], ordered=True),
                                    pd.Categorical([1, 2, 2]), pd.Categorical([1.5, 2.0, None])])  # fmt: skip
def test_get_dummies_of_a_categorical_labels_as_pandas(values, kwargs):
    """A categorical's indicators are labelled by a CategoricalIndex of its dtype (without a prefix), and a prefix
    spells the categories as they are (an int category stays "c_1" next to "c_nan")."""
    series = pd.Series(values)
    got = rt.get_dummies(rt.from_pandas(series), **kwargs).to_pandas()
    pdt.assert_frame_equal(got, pd.get_dummies(series, **kwargs))
    frame = pd.DataFrame({"d": [1, 2, 3], "c": series})
    got = rt.get_dummies(rt.from_pandas(frame), **kwargs).to_pandas()
    pdt.assert_frame_equal(got, pd.get_dummies(frame, **kwargs))


def test_get_dummies_edge_cases():
    frame = pd.DataFrame({"a": [1, 2, 3], "b": ["x", None, "y"], "d": [1.5, np.nan, 1.5],
                          "c": pd.Categorical(["p", "q", "p"], categories=["q", "p", "r"])}, index=[5, 6, 7])  # fmt: skip
    r = rt.from_pandas(frame)
    for kwargs in [{}, {"dummy_na": True}, {"prefix": "P"}, {"prefix": ["P", "Q"]}, {"prefix": {"b": "B", "c": "C"}},
                   {"prefix_sep": {"b": "-", "c": "+"}}, {"columns": ["a", "d"]}, {"dtype": int}, {"dtype": object},
                   {"columns": "a"}, {"prefix": ["x"]}, {"columns": ["zz"]}, {"columns": ["a", "zz"]}]:  # fmt: skip
        check_frame(lambda: rt.get_dummies(r, **kwargs), lambda: pd.get_dummies(frame, **kwargs))
    for series in [pd.Series([], dtype="str"), pd.Series([np.nan, np.nan]), pd.Series(["é", "中", "😀", "é"]),
                   pd.Series(pd.to_datetime(["2020", "2021"])), pd.Series([-0.0, 0.0, 1.0])]:  # fmt: skip
        for kwargs in [{}, {"dummy_na": True}, {"prefix": "t"}]:
            check_frame(lambda: rt.get_dummies(rt.from_pandas(series), **kwargs),
                        lambda: pd.get_dummies(series, **kwargs))  # fmt: skip
    check_frame(lambda: rt.get_dummies([1, 2, 1]), lambda: pd.get_dummies([1, 2, 1]))
    check_frame(lambda: rt.get_dummies(rt.DataFrame()), lambda: pd.get_dummies(pd.DataFrame()))
    categorical = rt.Series(pd.Categorical(["b"], categories=["b", "a"]))
    assert list(rt.get_dummies(categorical).columns) == ["b", "a"]  # unused categories get a column too
    with pytest.raises(NotImplementedError):
        rt.get_dummies(r, sparse=True)


# --------------------------------------------------------------------------- sample


@settings(max_examples=50)
@given(st.data())
def test_sample_same_rows_as_pandas(data):
    obj = data.draw(st.one_of(series_st(max_size=60), frame_st(max_cols=3, max_size=60)))
    r = rt.from_pandas(obj)
    n = len(obj)
    replace = data.draw(st.booleans())
    kwargs = {"replace": replace, "random_state": data.draw(st.integers(0, 2**31)),
              "ignore_index": data.draw(st.booleans())}  # fmt: skip
    if data.draw(st.booleans()):
        kwargs["n"] = data.draw(st.integers(0, n + 2))
    else:
        kwargs["frac"] = data.draw(st.sampled_from([0.0, 0.3, 0.5, 1.0, 1.7]))
    if data.draw(st.booleans()):
        weights = np.random.default_rng(kwargs["random_state"]).random(n)
        kwargs["weights"] = list(weights)
    expected, error = pandas_result(lambda: obj.sample(**kwargs))
    if error is not None:
        with pytest.raises(_error_family(error)):
            r.sample(**kwargs)
        return
    got = r.sample(**kwargs).to_pandas()
    if isinstance(expected, pd.Series):
        pdt.assert_series_equal(got, expected)
    else:
        pdt.assert_frame_equal(got, expected, check_column_type=False)


def test_sample_generators_and_axis():
    frame = pd.DataFrame({"a": range(10), "b": [f"s{i}" for i in range(10)], "c": np.arange(10) * 0.5})
    r = rt.from_pandas(frame)
    got = r.sample(4, random_state=np.random.default_rng(7)).to_pandas()
    pdt.assert_frame_equal(got, frame.sample(4, random_state=np.random.default_rng(7)), check_column_type=False)
    got = r.sample(3, random_state=np.random.RandomState(3)).to_pandas()
    pdt.assert_frame_equal(got, frame.sample(3, random_state=np.random.RandomState(3)), check_column_type=False)
    got = r.sample(2, axis=1, random_state=5).to_pandas()
    pdt.assert_frame_equal(got, frame.sample(2, axis=1, random_state=5), check_column_type=False)
    got = r.sample(5, weights="c", random_state=2).to_pandas()
    pdt.assert_frame_equal(got, frame.sample(5, weights="c", random_state=2), check_column_type=False)
    weights = pd.Series([1.0, np.nan, 3.0, 2.0], index=[9, 1, 4, 0])  # aligned on the index; NaN, absent: 0
    got = r.sample(2, weights=rt.from_pandas(weights), random_state=0).to_pandas()
    pdt.assert_frame_equal(got, frame.sample(2, weights=weights, random_state=0), check_column_type=False)
    np.random.seed(11)
    expected = frame.sample(3)
    np.random.seed(11)
    pdt.assert_frame_equal(r.sample(3).to_pandas(), expected, check_column_type=False)  # global state, as pandas


@pytest.mark.parametrize("kwargs", [
    {"n": 2, "frac": 0.5}, {"n": -1}, {"n": 1.5}, {"frac": -0.1}, {"frac": 1.5}, {"n": 20},
    {"n": 2, "weights": [0.0] * 10}, {"n": 2, "weights": [np.inf] + [1.0] * 9}, {"n": 2, "weights": [-1.0] + [1.0] * 9},
    {"n": 2, "weights": [1.0, 2.0]}, {"n": 2, "weights": "zz"}, {"n": 9, "weights": [100.0] + [1.0] * 9},
    {"n": 2, "random_state": "seed"}, {"n": 2, "random_state": 1.5}, {"n": 2, "axis": 2},
])  # fmt: skip
def test_sample_errors(kwargs):
    frame = pd.DataFrame({"a": range(10)})
    r = rt.from_pandas(frame)
    expected, error = pandas_result(lambda: frame.sample(**kwargs))
    assert error is not None
    with pytest.raises(_error_family(error)):
        r.sample(**kwargs)
    expected, error = pandas_result(lambda: frame["a"].sample(**kwargs))
    if error is not None:
        with pytest.raises(_error_family(error)):
            r["a"].sample(**kwargs)


def test_sample_series_string_weights_refused():
    with pytest.raises(ValueError, match="Series"):
        rt.Series([1, 2]).sample(1, weights="a")


# --------------------------------------------------------------------------- explode


def _list_values(kind: str):
    element = {"int": st.integers(-5, 5), "float": st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 2)),
               "str": st.text("abé中😀", max_size=3)}[kind]  # fmt: skip
    return st.one_of(st.none(), st.lists(element, max_size=3))


@st.composite
def list_frames(draw):
    n = draw(st.integers(0, 12))
    kinds = draw(st.lists(st.sampled_from(["int", "float", "str"]), min_size=1, max_size=2))
    columns = {f"l{i}": pd.Series([draw(_list_values(k)) for _ in range(n)], dtype=object) for i, k in enumerate(kinds)}
    columns["x"] = pd.Series(np.arange(n, dtype=np.int64) * 10)
    index = pd.Index([f"r{i}" for i in range(n)], dtype="str") if draw(st.booleans()) else pd.RangeIndex(n)
    return pd.DataFrame(columns, index=index)


def _explode_oracle(result):
    """pandas explodes Python lists into an object column; riptide keeps the elements' dtype, which is what
    ``infer_objects`` finds (int with missing values -> float64, as pandas makes it)."""
    if isinstance(result, pd.Series):
        return result.infer_objects() if result.dtype == object else result
    return result.infer_objects()


@settings(max_examples=40)
@given(list_frames(), st.booleans())
def test_explode_series(frame, ignore_index):
    for label in [c for c in frame.columns if c.startswith("l")]:
        s = frame[label]
        expected = _explode_oracle(s.explode(ignore_index=ignore_index))
        got = rt.from_pandas(s).explode(ignore_index=ignore_index).to_pandas()
        if expected.dtype == object:  # no element at all: pandas keeps object NaN, riptide float64 NaN
            expected = expected.astype("float64")
        pdt.assert_series_equal(got, expected)


@settings(max_examples=40)
@given(list_frames(), st.booleans())
def test_explode_frame(frame, ignore_index):
    # Columns of lists left as they are compare as lists elsewhere (pandas holds them as object): each case
    # keeps the exploded column and the plain one.
    for label in [c for c in frame.columns if c.startswith("l")] + ["x"]:
        part = frame[[label, "x"]] if label != "x" else frame[["x"]]
        r = rt.from_pandas(part)
        check_frame(lambda: r.explode(label, ignore_index=ignore_index),
                    lambda: _float_if_empty(_explode_oracle(part.explode(label, ignore_index=ignore_index))))  # fmt: skip


def _float_if_empty(frame):
    for i, column in enumerate(frame.columns):
        if frame[column].dtype == object and frame[column].isna().all():
            frame.isetitem(i, frame[column].astype("float64"))
    return frame


def test_explode_several_columns():
    frame = pd.DataFrame({"a": [[1, 2], [], None, [3]], "b": [["x", "y"], [], None, ["z"]], "c": [1, 2, 3, 4]},
                         index=[10, 11, 12, 13])  # fmt: skip
    r = rt.from_pandas(frame)
    check_frame(lambda: r.explode(["a", "b"]), lambda: _explode_oracle(frame.explode(["a", "b"])))
    check_frame(lambda: r.explode(["a", "b"], ignore_index=True),
                lambda: _explode_oracle(frame.explode(["a", "b"], ignore_index=True)))  # fmt: skip
    mismatched = pd.DataFrame({"a": [[1, 2]], "b": [["x"]]})
    for column in [["a", "b"], [], ["a", "a"], "zz", [["a"]]]:
        check_frame(lambda: rt.from_pandas(mismatched).explode(column), lambda: mismatched.explode(column))


def test_list_columns_from_arrow():
    import pyarrow as pa

    array = pa.array([[1, 2], None, [], [3]], type=pa.list_(pa.int64()))
    s = rt.from_arrow(array)
    assert str(s.dtype) == "list<item: int64>[pyarrow]"
    pdt.assert_series_equal(s.to_pandas(), pd.Series(pd.arrays.ArrowExtensionArray(array)))
    pdt.assert_series_equal(s.explode().to_pandas(), pd.Series([1.0, 2.0, np.nan, np.nan, 3.0], index=[0, 0, 1, 2, 3]))
    strings = rt.from_arrow(pa.array([["a", None], ["b"]]))
    pdt.assert_series_equal(strings.explode().to_pandas(), pd.Series(["a", np.nan, "b"], index=[0, 0, 1], dtype="str"))
    assert rt.Series([1, 2]).explode().tolist() == [1, 2]  # not lists: unchanged
    sliced = s.iloc[1:4].to_pandas()
    assert sliced.isna().tolist() == [True, False, False]
    assert [list(v) for v in sliced.iloc[1:]] == [[], [3]]
    assert s.iloc[[3, 0]].explode().tolist() == [3, 1, 2]
    with_nulls = rt.Series([[1, None], [2]])  # a missing element inside a list: riptide's Int64 (pandas: object)
    assert str(with_nulls.explode().dtype) == "Int64"
