"""``Series.map`` against pandas: dict / Series lookups on the device, functions per distinct value."""

from __future__ import annotations

import collections

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import assert_series_equal, documented, series_st

# Dtypes whose values can be keys of a Python dict and come back equal to the column's values.
_KEY_DTYPES = ["int8", "int32", "int64", "uint16", "float32", "float64", "bool", "datetime64[ns]", "Int64",
               "Float64", "boolean", "str", "category"]  # fmt: skip
_VALUE_KINDS = ["int", "float", "str", "bool", "float_with_none"]


def _values(kind: str, n: int, rng: np.random.Generator) -> list:
    if kind == "int":
        return [int(v) for v in rng.integers(-5, 5, n)]
    if kind == "float":
        return [float(v) for v in rng.normal(size=n)]
    if kind == "str":
        return [f"v{v}é" for v in rng.integers(0, 3, n)]
    if kind == "bool":
        return [bool(v) for v in rng.integers(0, 2, n)]
    return [None if v < 0.3 else float(v) for v in rng.random(n)]


def _compare(got: rt.Series, expected: pd.Series, source: pd.Series) -> None:
    assert_series_equal(got, documented(expected, source))


@settings(max_examples=60, deadline=None)
@given(series_st(dtypes=_KEY_DTYPES, max_size=200), st.sampled_from(_VALUE_KINDS), st.integers(0, 2**32 - 1),
       st.sampled_from([None, "ignore"]), st.booleans())  # fmt: skip
def test_dict_lookup_matches_pandas(s: pd.Series, kind: str, seed: int, na_action: str | None, as_series: bool) -> None:
    rng = np.random.default_rng(seed)
    distinct = s.dropna().unique()
    keys = list(distinct[: rng.integers(0, len(distinct) + 1)]) if len(distinct) else []
    if len(keys) and rng.random() < 0.5:
        keys = keys[1:] + [keys[0]]  # keys in another order than the column's
    if rng.random() < 0.3:
        keys.append(np.nan if s.dtype.kind == "f" else None)  # a key for the missing values
    mapping = dict(zip(keys, _values(kind, len(keys), rng)))
    if as_series and mapping:
        labels = pd.Index(list(mapping.keys()))
        if not labels.hasnans:  # (a missing key stays in labels of its own dtype: bool would turn None into False)
            labels = labels.astype(s.dtype)
        arg = pd.Series(list(mapping.values()), index=labels)
        rt_arg = rt.Series(arg)
        if labels.dtype == object:
            # riptide has no object Index: booleans beside None become a ``boolean`` index with <NA>, which matches
            # a missing value (pandas' object index of None does not: test_series_mapper_of_bools_and_none)
            arg = rt_arg.to_pandas()
        expected = s.map(arg, na_action=na_action)
        got = rt.Series(s).map(rt_arg, na_action=na_action)
    else:
        expected = s.map(mapping, na_action=na_action)
        got = rt.Series(s).map(mapping, na_action=na_action)
    # The result's values come from the mapping: all-missing bool values are riptide's ``boolean`` (pandas: object).
    _compare(got, expected, pd.Series(list(mapping.values()), dtype=None if mapping else "float64"))


@settings(max_examples=40, deadline=None)
@given(series_st(dtypes=["int64", "float64", "str", "bool", "datetime64[ns]", "Int64", "category"], max_size=200),
       st.sampled_from([None, "ignore"]))  # fmt: skip
def test_function_matches_pandas(s: pd.Series, na_action: str | None) -> None:
    def func(v):
        return str(v)[:2]

    expected = s.map(func, na_action=na_action)
    kinds = {type(v) for v in expected.dropna()} | ({type(v) for v in expected if v is pd.NaT})
    if expected.dtype == object and len(kinds) > 1:  # e.g. strings beside NaT: riptide has no object columns
        with pytest.raises(TypeError, match="Python objects"):
            rt.Series(s).map(func, na_action=na_action)
        return
    _compare(rt.Series(s).map(func, na_action=na_action), expected, s)


def test_function_called_once_per_distinct_value() -> None:
    calls = []

    def func(v):
        calls.append(v)
        return v * 2

    got = rt.Series([3, 1, 3, 3, 1, 2]).map(func)
    assert got.tolist() == [6, 2, 6, 6, 2, 4]
    assert sorted(calls) == [1, 2, 3]


@pytest.mark.parametrize("na_action", [None, "ignore"])
def test_function_and_missing_values(na_action: str | None) -> None:
    s = pd.Series([1.5, np.nan, 2.0, np.nan])
    for func in (lambda v: v * 2, lambda v: "x", lambda v: v > 1):
        _compare(rt.Series(s).map(func, na_action=na_action), s.map(func, na_action=na_action), s)
    t = pd.Series(["ab", None, "çé😀"])
    _compare(rt.Series(t).map(str.upper, na_action="ignore"), t.map(str.upper, na_action="ignore"), t)


@pytest.mark.parametrize(
    "values, mapping",
    [
        ([1, 2, 3, None], {1: "a", 2: "b"}),
        ([1, 2, 3, None], {1: 10, 2: 20}),
        ([1, 2, 3], {1: 10, 2: 20, 3: 30}),
        ([1, 2, 3], {1: True}),
        ([1, 2, 3], {1.0: "x", 2.5: "y"}),
        ([1, 2, 3, None], {np.nan: 5, 1: 1}),
        ([True, False], {1: "one", 0: "zero"}),  # pandas: booleans never equal numeric keys
        ([1, 2], {"1": "a"}),  # strings never equal numbers
        (["a", "b", None], {"a": "x", None: "N"}),
        (["a", "b", None], {"a": 1}),
        (["日本", "ß", "😀", "ß"], {"ß": "s", "😀": "smile", "日本": "nihon"}),
        ([1, 2], {1.0: "x", "a": "y"}),  # mixed keys: the host path
        ([1, 2], {1: 10, 2: None}),
        ([1], {}),
        ([], {1: "a"}),
        ([], {}),
        ([7], {7: 1.5}),
    ],
)
@pytest.mark.parametrize("na_action", [None, "ignore"])
def test_edge_cases(values: list, mapping: dict, na_action: str | None) -> None:
    dtype = "int64" if values == [] else None
    s = pd.Series(values, dtype=dtype, index=pd.RangeIndex(10, 10 + len(values)), name="n")
    _compare(rt.Series(s).map(mapping, na_action=na_action), s.map(mapping, na_action=na_action), s)


def test_series_mapper_with_duplicate_labels_raises() -> None:
    mapper = pd.Series([1, 2], index=["a", "a"])
    with pytest.raises(pd.errors.InvalidIndexError, match="uniquely valued"):
        pd.Series(["b"]).map(mapper)
    with pytest.raises(pd.errors.InvalidIndexError, match="uniquely valued"):
        rt.Series(["b"]).map(rt.Series(mapper))
    with pytest.raises(pd.errors.InvalidIndexError, match="uniquely valued"):
        rt.Series(["b"]).map(mapper)


@pytest.mark.parametrize("na_action", [None, "ignore"])
def test_series_mapper_of_bools_and_none(na_action: str | None) -> None:
    """The hypothesis example of test_dict_lookup_matches_pandas: a boolean column with <NA> mapped through
    ``{True: 1, None: 2}``. pandas keeps the None key in an object index, which never matches <NA>: the dict, and a
    pandas Series mapper, leave the row missing (riptide maps them with pandas). riptide has no object index, so
    ``rt.Series`` of that mapper has a ``boolean`` index with <NA>, which matches <NA> as in pandas."""
    s = pd.Series([True, None, False], dtype="boolean")
    mapping = {True: 1, None: 2}
    mapper = pd.Series(list(mapping.values()), index=pd.Index(list(mapping.keys())))
    expected = s.map(mapping, na_action=na_action)
    assert expected.isna().tolist() == [False, True, True]
    _compare(rt.Series(s).map(mapping, na_action=na_action), expected, s)
    _compare(rt.Series(s).map(mapper, na_action=na_action), s.map(mapper, na_action=na_action), s)
    rt_mapper = rt.Series(mapper)
    assert rt_mapper.index.dtype == "boolean"
    pd_mapper = rt_mapper.to_pandas()
    _compare(rt.Series(s).map(rt_mapper, na_action=na_action), s.map(pd_mapper, na_action=na_action), s)
    if na_action is None:
        assert rt.Series(s).map(rt_mapper).to_pandas().tolist()[:2] == [1, 2]


def test_pandas_series_mapper() -> None:
    s = pd.Series([3, 1, 2, 9])
    mapper = pd.Series(["three", "one", "two"], index=[3, 1, 2], name="ignored")
    _compare(rt.Series(s).map(mapper), s.map(mapper), s)


def test_dict_with_missing_method_is_called() -> None:
    s = pd.Series(["a", "b", "a"])
    mapping = collections.defaultdict(lambda: "default", {"a": "A"})
    _compare(rt.Series(s).map(mapping), s.map(mapping), s)
    counts = collections.Counter({"a": 3})
    _compare(rt.Series(s).map(counts), s.map(counts), s)


def test_bad_arguments_raise() -> None:
    with pytest.raises(ValueError, match="na_action"):
        pd.Series([1]).map({1: 2}, na_action="x")
    with pytest.raises(ValueError, match="na_action"):
        rt.Series([1]).map({1: 2}, na_action="x")
    with pytest.raises(TypeError):
        rt.Series([1]).map(5)


def test_result_keeps_index_and_name() -> None:
    s = pd.Series([2, 1], index=["x", "y"], name="k")
    got = rt.Series(s).map({1: "one", 2: "two"})
    _compare(got, s.map({1: "one", 2: "two"}), s)


@pytest.mark.parametrize(
    "values, mapping",
    [([3, 1, 2], {1: "a", 3: "c"}), (["x", "é", None], {"é": 1.5, None: 0.0}), ([0.5, np.nan], {0.5: 1}),
     (pd.to_datetime(["2020-01-01", None]), {pd.Timestamp("2020-01-01"): 1})],
)  # fmt: skip
def test_dict_and_series_lookups_stay_on_the_device(values, mapping, monkeypatch: pytest.MonkeyPatch) -> None:
    from riptide.frame import mapping as module

    def no_host(*args, **kwargs):
        raise AssertionError("the lookup took the host path")

    monkeypatch.setattr(module, "_map_distinct", no_host)
    s = pd.Series(values)
    _compare(rt.Series(s).map(mapping), s.map(mapping), s)
    mapper = pd.Series(list(mapping.values()), index=list(mapping.keys()))
    _compare(rt.Series(s).map(rt.Series(mapper)), s.map(mapper), s)


@pytest.mark.filterwarnings("ignore::riptide.errors.HostFallbackWarning")
@pytest.mark.parametrize("na_action", [None, "ignore"])
@pytest.mark.parametrize("func", [lambda x: x * 2, abs, str, lambda x: x + 0.5 if x > 1 else -x],
                         ids=["double", "abs", "str", "if"])
def test_frame_map_applies_the_function_to_each_value(func, na_action) -> None:
    """DataFrame.map: each column mapped as Series.map maps it (pandas 3's elementwise map, formerly applymap)."""
    frame = pd.DataFrame({"a": [1.0, np.nan, -2.5], "b": [3, 4, 0], "i": pd.array([1, None, 3], dtype="Int64")})
    if func is str:
        frame = frame.assign(s=pd.Series(["x", None, "yz"], dtype="str"))
    try:
        expected = frame.map(func, na_action=na_action)
    except TypeError:  # pandas' own error (bool(pd.NA) in the function): riptide raises it too
        with pytest.raises(TypeError):
            rt.from_pandas(frame).map(func, na_action=na_action)
        return
    pd.testing.assert_frame_equal(rt.from_pandas(frame).map(func, na_action=na_action).to_pandas(), expected)


def test_frame_map_bad_arguments() -> None:
    frame = pd.DataFrame({"b": [3, 4]})
    for call, error in [(lambda f: f.map({1: 2}), TypeError), (lambda f: f.map(abs, na_action="x"), ValueError)]:
        with pytest.raises(error):
            call(frame)
        with pytest.raises(error):
            call(rt.from_pandas(frame))
    got = rt.from_pandas(frame).map(lambda x, k: x + k, k=3).to_pandas()
    pd.testing.assert_frame_equal(got, frame.map(lambda x, k: x + k, k=3))
