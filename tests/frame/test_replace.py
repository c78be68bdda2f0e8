"""Series.replace / DataFrame.replace against pandas.

Where pandas answers with an ``object`` column (a string into a number column, None into an int column, a
number into a bool column) riptide, which has no object dtype, raises TypeError instead: the differential
helper below expects exactly that.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import ALL_DTYPES, assert_frame_equal, assert_series_equal, frame_st, make_values, series_st


def _has_object(result: object) -> bool:
    if isinstance(result, pd.Series):
        return result.dtype == object
    return any(dtype == object for dtype in result.dtypes)


def check_replace(obj: pd.Series | pd.DataFrame, *args, **kwargs) -> None:
    """riptide's replace equals pandas', raises its exception type, or TypeError where pandas goes to object."""
    ours = rt.Series(obj) if isinstance(obj, pd.Series) else rt.DataFrame(obj)
    oracle_args = args
    if isinstance(obj, pd.Series) and obj.dtype == "str":  # the documented None-into-str deviation: NaN's answer
        oracle_args = tuple(_none_as_nan(a) for a in args)
        if len(args) > 1 and args[1] is None and isinstance(args[0], list):  # a list to None: the same
            oracle_args = (args[0], np.nan) + args[2:]
    try:
        expected = obj.replace(*oracle_args, **kwargs)
    except AssertionError:  # pandas' internal "Something has gone wrong" (int8 list -> wide ints): no oracle
        assert isinstance(ours.replace(*args, **kwargs), rt.Series | rt.DataFrame)
        return
    except Exception as error:  # pandas refuses: riptide raises the same builtin family
        family = next(t for t in (TypeError, ValueError, KeyError, OverflowError) if isinstance(error, t))
        with pytest.raises(family):
            ours.replace(*args, **kwargs)
        return
    if _has_object(expected):
        with pytest.raises(TypeError, match="object"):
            ours.replace(*args, **kwargs)
        return
    got = ours.replace(*args, **kwargs)
    if isinstance(obj, pd.Series):
        assert_series_equal(got, expected)
    else:
        assert_frame_equal(got, expected)


def _none_as_nan(argument: object) -> object:
    """pandas stores None given in a list or dict in an object column, and NaN in a str column: riptide gives
    the str column for both (see test_none_into_strings_by_dict_stays_str)."""
    if isinstance(argument, list):
        return [np.nan if v is None else v for v in argument]
    if isinstance(argument, dict):
        return {k: (np.nan if v is None else v) for k, v in argument.items()}
    return argument


def _values_of(s: pd.Series, rng: np.random.Generator, k: int) -> list:
    """Up to ``k`` values drawn from ``s`` (with a missing one now and then), as Python scalars."""
    present = s.dropna().unique()
    values = [present[i] for i in rng.integers(0, len(present), size=min(k, len(present)))] if len(present) else []
    if rng.random() < 0.3:
        values.append(np.nan)
    return [v.item() if isinstance(v, np.generic) and not isinstance(v, np.datetime64 | np.timedelta64) else v
            for v in values]  # fmt: skip


# --- hypothesis ----------------------------------------------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(s=series_st(min_size=1, max_size=60), seed=st.integers(0, 2**32 - 1), form=st.sampled_from(["scalar", "lists", "dict",
                                                                                          "list_scalar"]))  # fmt: skip
def test_series_replace_own_values(s, seed, form):
    """Old and new values drawn from the column itself (so the dtype can hold them) in each call form."""
    rng = np.random.default_rng(seed)
    olds = _values_of(s, rng, 3)
    news = _values_of(s, rng, len(olds))
    if not olds or len(news) < len(olds):
        check_replace(s, 12345, 12345)
        return
    news = news[: len(olds)]
    if form == "scalar":
        check_replace(s, olds[0], news[0])
    elif form == "lists":
        check_replace(s, olds, news)
    elif form == "dict":
        check_replace(s, dict(zip(olds, news)))
    else:
        check_replace(s, olds, news[0])


@settings(max_examples=100, deadline=None)
@given(s=series_st(dtypes=["int8", "int64", "uint8", "float32", "float64", "bool", "Int64", "Float64", "boolean"],
                   max_size=40),
       new=st.sampled_from([0, 1, 1000, -1, 2.0, 2.5, np.nan, None, True, "a", 2**40]))  # fmt: skip
def test_series_replace_dtype_growth(s, new):
    """A first value replaced by values of every kind: pandas' dtype (or TypeError for its object columns)."""
    present = s.dropna()
    old = present.iloc[0].item() if len(present) else 1
    check_replace(s, old, new)


@settings(max_examples=50, deadline=None)
@given(df=frame_st(max_cols=4, max_size=40), seed=st.integers(0, 2**32 - 1),
       form=st.sampled_from(["scalar", "nested", "column_value", "flat"]))  # fmt: skip
def test_frame_replace(df, seed, form):
    rng = np.random.default_rng(seed)
    if df.shape[1] == 0:
        check_replace(df, 1, 2)
        return
    label = df.columns[int(rng.integers(0, df.shape[1]))]
    olds = _values_of(df[label], rng, 2)
    news = _values_of(df[label], rng, len(olds))[: len(olds)]
    if not olds or len(news) < len(olds):
        check_replace(df, 12345, 12345)
    elif form == "scalar":
        check_replace(df, olds[0], news[0])
    elif form == "nested":
        check_replace(df, {label: dict(zip(olds, news))})
    elif form == "column_value":
        check_replace(df, {label: olds[0]}, {label: news[0]})
    else:
        check_replace(df, dict(zip(olds, news)))


# --- semantics -----------------------------------------------------------------------------------------------


def test_matches_come_from_the_original_values():
    s = pd.Series([1, 2, 3, 1], name="v")
    check_replace(s, [1, 2], [2, 3])
    check_replace(s, {1: 2, 2: 3})
    check_replace(s, [1, 1], [5, 6])  # the later pair wins
    check_replace(s, {1: 10, 3: 2.5})


@pytest.mark.parametrize("old,new", [(1, 2.0), (1, 2.5), (1, np.nan), (1, None), (1, "a"), (1, True), (9, 2.5),
                                     (1.0, 5), (True, 5), ("1", 5), (1, np.float32(2.5)), (1, np.int8(5)),
                                     (1, pd.NA), (1, pd.NaT)])  # fmt: skip
def test_int_column_dtypes(old, new):
    check_replace(pd.Series([1, 2, 3, 1]), old, new)


@pytest.mark.parametrize("dtype,new", [("int8", 1000), ("int8", 5), ("uint8", -1), ("uint8", 300), ("int16", -40000),
                                       ("float32", 2.5), ("uint64", 5)])  # fmt: skip
def test_small_int_widening(dtype, new):
    check_replace(pd.Series([1, 2], dtype=dtype), 1, new)


@pytest.mark.parametrize("old", [np.nan, None, pd.NA, pd.NaT, float("nan")])
@pytest.mark.parametrize("dtype", ["float64", "Int64", "Float64", "boolean", "str", "datetime64[ns]", "category"])
def test_missing_as_to_replace(old, dtype):
    s = make_values(np.random.default_rng(3), dtype, 20, null_frac=0.4, small=True)
    new = s.dropna().iloc[0]
    new = new.item() if isinstance(new, np.generic) and not isinstance(new, np.datetime64) else new
    check_replace(s, old, new)
    check_replace(s, {old: new})


@pytest.mark.parametrize("new", [np.nan, None])
@pytest.mark.parametrize("dtype", ["float64", "Int64", "str", "datetime64[ns]", "category", "bool"])
def test_replace_with_missing(new, dtype):
    s = make_values(np.random.default_rng(4), dtype, 20, null_frac=0.2, small=True)
    old = s.dropna().iloc[0]
    old = old.item() if isinstance(old, np.generic) and not isinstance(old, np.datetime64) else old
    check_replace(s, old, new)


def test_strings_exact_and_unicode():
    s = pd.Series(["a", "ab", None, "中文", "😀", "a", ""], name="s")
    check_replace(s, "a", "z")
    check_replace(s, ["中文", "😀", ""], ["x", "ß", "empty"])
    check_replace(s, "a", 1)  # pandas: object -> TypeError
    check_replace(s, 1, "z")  # a number never matches a string
    check_replace(s, {None: "?", "ab": "b"})
    check_replace(s, "ab", None)


def test_none_into_strings_by_dict_stays_str():
    """pandas stores None as an object column for the list and dict forms (but not the scalar form, which
    gives str with NaN); riptide gives the scalar form's answer for all three (it has no object dtype)."""
    s = pd.Series(["a", "ab", None], name="s")
    expected = s.replace("ab", None)
    assert expected.dtype == "str"
    assert_series_equal(rt.Series(s).replace({"ab": None}), expected)
    assert_series_equal(rt.Series(s).replace(["ab"], [None]), expected)


def test_bool_column():
    s = pd.Series([True, False, True])
    check_replace(s, True, False)
    check_replace(s, True, 1)
    check_replace(s, 1, 5)
    check_replace(s, True, np.nan)


def test_categorical_column():
    c = pd.Series(["a", "b", None, "a"], dtype="category")
    check_replace(c, "a", "b")
    check_replace(c, "a", "z")  # a new category: pandas' TypeError
    check_replace(c, ["a", "b"], ["b", "a"])
    check_replace(c, np.nan, "a")
    check_replace(c, "a", np.nan)
    check_replace(c, "q", "z")  # nothing matches
    ints = pd.Series([1, 2, 1], dtype="category")
    check_replace(ints, 1, 2)
    check_replace(ints, 1, 2.5)


def test_datetime_column():
    d = pd.Series(pd.to_datetime(["2020-01-01", "2021-01-01", None]))
    check_replace(d, pd.Timestamp("2020-01-01"), pd.Timestamp("2000-01-01"))
    check_replace(d, pd.NaT, pd.Timestamp("2000-01-01"))
    check_replace(d, np.nan, pd.Timestamp("2000-01-01"))
    check_replace(d, pd.Timestamp("2020-01-01"), np.nan)
    check_replace(d, pd.Timestamp("2020-01-01"), None)
    check_replace(d, pd.Timestamp("2020-01-01"), 1)
    check_replace(d, "2020-01-01", pd.Timestamp("2000-01-01"))
    check_replace(d, np.datetime64("2020-01-01"), np.datetime64("1999-01-01"))
    check_replace(d, pd.Timestamp("2020-01-01"), pd.Timedelta(1))
    check_replace(d, pd.Timedelta(1), pd.Timestamp("2020"))
    check_replace(d, pd.Timestamp("2020-01-01"), "nonsense")
    check_replace(d, pd.Timestamp("2020-01-01"), "1999-12-31")
    check_replace(d, pd.Timestamp("2020-01-01"), pd.Timestamp("2020-01-01", tz="UTC"))
    td = pd.Series(pd.to_timedelta([1, 2, None], unit="D"))
    check_replace(td, pd.Timedelta(days=1), pd.Timedelta(days=5))
    check_replace(td, "1 days", pd.Timedelta(days=5))
    check_replace(td, pd.Timedelta(days=1), "5 days")
    check_replace(td, pd.Timedelta(days=1), "1")
    check_replace(td, pd.Timedelta(days=1), pd.Timestamp("2020"))
    check_replace(td, pd.Timedelta(days=1), pd.Timedelta(7))  # finer than the unit: pandas refines the unit
    check_replace(td, pd.Timedelta(days=1), "")  # parses as NaT
    seconds = d.astype("datetime64[s]")
    check_replace(seconds, pd.Timestamp("2020-01-01"), pd.Timestamp("2020-01-01 00:00:00.5"))
    check_replace(seconds, pd.Timestamp("2020-01-01"), "2020-01-01 00:00:00.5")
    aware = pd.Series(pd.to_datetime(["2020-01-01", None]).tz_localize("America/New_York"))
    check_replace(aware, pd.Timestamp("2020-01-01", tz="America/New_York"), pd.Timestamp("2021-01-01", tz="UTC"))
    check_replace(aware, pd.Timestamp("2020-01-01"), pd.Timestamp("2021-01-01"))


def test_masked_columns():
    s = pd.Series([1, None, 3], dtype="Int64")
    for old, new in [(1, 2.5), (np.nan, 0), (pd.NA, 0), (1, np.nan), (1, None), (1, True), (1, 3.0), (1, "a")]:
        check_replace(s, old, new)
    check_replace(pd.Series([True, None], dtype="boolean"), pd.NA, False)


def test_edge_shapes():
    check_replace(pd.Series([], dtype=float), 1, 2)
    check_replace(pd.Series([], dtype="str"), "a", "b")
    check_replace(pd.Series([np.nan, np.nan]), np.nan, 0.5)
    check_replace(pd.Series([7]), 7, 8)
    check_replace(pd.Series([1, 2]), [], [])
    check_replace(pd.Series([1, 2, 3]), (1, 2), (5, 6))
    check_replace(pd.Series([1, 2, 3]), {1, 2}, 5)
    check_replace(pd.Series([1, 2, 3], index=list("abc"), name="n"), pd.Series({1: 5}))


def test_bad_arguments():
    s = pd.Series([1, 2, 3])
    check_replace(s, [1, 2], [2])
    check_replace(s, 1)
    check_replace(s)
    check_replace(s, {1: 2}, 5)
    check_replace(s, 1, {1: 5})
    check_replace(s, 1, [5, 6])
    with pytest.raises(ValueError, match="regex"):
        rt.Series([1]).replace(1, 5, regex="a")


def test_regex():
    s = pd.Series(["abc", "bcd", None, "xyz"], name="s")
    check_replace(s, "b", "X", regex=True)
    check_replace(s, r"^a", "X", regex=True)
    check_replace(s, [r"a", "b"], ["b", "c"], regex=True)
    check_replace(s, {r"(\w)c": r"\1!"}, regex=True)
    check_replace(s, r"b", np.nan, regex=True)
    check_replace(pd.Series([1, 2]), "1", "X", regex=True)  # only strings are searched
    check_replace(s, re.compile("b"), "Z", regex=True)
    check_replace(s, [1, "b"], ["x", "Y"], regex=True)
    check_replace(pd.Series([1.5, np.nan]), np.nan, 0.0, regex=True)  # not a pattern: replaced as without regex
    cat = s.astype("category")
    check_replace(cat, "q", "Z", regex=True)  # nothing found: unchanged
    check_replace(cat, "b", "Z", regex=True)  # pandas: object -> TypeError
    with pytest.raises(re.error):
        rt.Series(s).replace("[", "Q", regex=True)
    got = rt.Series(s).replace(regex={"b": "X"})
    assert_series_equal(got, s.replace(regex={"b": "X"}))
    df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "x"]})
    check_replace(df, "x", "Q", regex=True)
    check_replace(df, {"b": "x"}, {"b": "Q"}, regex=True)
    check_replace(df, {"b": {"x": "Q"}}, regex=True)


def test_frame_forms():
    df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "x"], "c": [1.5, np.nan, 1.0]})
    check_replace(df, 1, 10)
    check_replace(df, "x", "z")
    check_replace(df, {"a": 1, "c": 1.0}, 99)
    check_replace(df, {"a": {1: 100}, "b": {"x": "w"}})
    check_replace(df, {1: 100, "x": "w"})
    check_replace(df, [1, "x"], [100, "w"])
    check_replace(df, np.nan, 0)
    check_replace(df, {"a": 1, "b": "x"}, {"a": 100, "b": "q"})
    check_replace(df, 1, {"a": 100})
    check_replace(df, {"zz": {1: 2}})  # unknown columns are ignored
    check_replace(df, {"zz": 1}, 5)
    check_replace(df, 1, "s")  # object in pandas
    check_replace(df, {"a": {1: 100}}, 5)
    check_replace(df, {"a": {1: 100}, "b": "x"})
    check_replace(pd.DataFrame(), 1, 2)


def test_inplace():
    s = rt.Series([1, 2, 1], name="n")
    assert s.replace(1, 5, inplace=True) is None
    assert_series_equal(s, pd.Series([5, 2, 5], name="n"))
    df = rt.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    assert df.replace({"b": {"x": "q"}}, inplace=True) is None
    assert_frame_equal(df, pd.DataFrame({"a": [1, 2], "b": ["q", "y"]}))


def test_index_and_name_kept():
    s = pd.Series([1, 2, 1], index=pd.Index([10, 20, 30], name="i"), name="n")
    check_replace(s, 1, 0)
    df = pd.DataFrame({"a": [1, 2]}, index=["p", "q"])
    df.columns.name = "cols"
    check_replace(df, 1, 0)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_no_match_keeps_dtype(dtype):
    s = make_values(np.random.default_rng(5), dtype, 10, null_frac=0.2, small=True)
    check_replace(s, "no such value", "zzz")
    check_replace(s, 123456789, 0.5)


# --- many pairs: the one-lookup path -------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(s=series_st(dtypes=["int8", "int64", "uint16", "float32", "float64", "str"], min_size=1, max_size=80,
                   small=True),
       seed=st.integers(0, 2**32 - 1), k=st.integers(8, 30),
       news_kind=st.sampled_from(["own", "float", "nan", "wide"]))  # fmt: skip
def test_many_pairs_match_pandas(s, seed, k, news_kind):
    """Dicts and lists of 8+ pairs (duplicated keys, absent keys, keys the dtype cannot hold) take one lookup."""
    rng = np.random.default_rng(seed)
    own = _values_of(s.dropna(), rng, k)
    if not own:
        return
    olds = [own[i] for i in rng.integers(0, len(own), size=k)]
    if s.dtype != "str":
        olds[: k // 4] = [float(v) + 0.5 for v in olds[: k // 4]]  # fractions: no int matches them
        olds.append(300)  # out of int8 range
    if news_kind == "own" or s.dtype == "str":
        news = [own[i] for i in rng.integers(0, len(own), size=len(olds))]
        if s.dtype == "str" and news_kind == "nan":
            news[0] = None
    elif news_kind == "float":
        news = list(rng.normal(size=len(olds)))
    elif news_kind == "nan":
        news = [np.nan] + [own[0]] * (len(olds) - 1)
    else:
        news = [40000] * len(olds)
    check_replace(s, olds, news)
    check_replace(s, dict(zip(olds, news)))
    check_replace(s, olds, news[0])


def test_many_pairs_swap_and_chain():
    s = pd.Series(np.arange(20) % 10, name="n")
    check_replace(s, {i: (i + 1) % 10 for i in range(10)})  # every value moves on once, never twice
    check_replace(s, list(range(10)) + [3], list(range(10, 20)) + [-1])  # a repeated key: the later pair wins
    check_replace(s.astype("float64"), {i: i / 2 for i in range(10)})
    strings = pd.Series([f"k{i % 9}" for i in range(30)] + [None], name="t")
    check_replace(strings, {f"k{i}": f"v{i}" for i in range(9)} | {"absent": "x"})
    check_replace(strings, {f"k{i}": (None if i == 2 else "中文") for i in range(9)})


def test_many_pairs_widen_for_an_overridden_pair():
    """Eight or more pairs take the bulk path: a pair overridden by a later one with the same old value still widens
    the dtype, as pandas' replace does (the later pair gives the value)."""
    s = pd.Series(np.array([13, 50, 1, 13], dtype=np.int8))
    olds, news = [13, 13, 50, 51, 52, 53, 54, 55, 56], [np.nan, 14, 0, 0, 0, 0, 0, 0, 0]
    expected = s.replace(olds, news)
    got = rt.from_pandas(s).replace(olds, news).to_pandas()
    pd.testing.assert_series_equal(got, expected)
