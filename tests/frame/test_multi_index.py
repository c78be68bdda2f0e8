"""MultiIndex against pandas: construction, facts, lookups, set/operations, and its use as frame/series labels
(set_index, reset_index, .loc with tuples and partial keys, tuple column labels, display)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import stable_id, assert_frame_equal, assert_index_equal, assert_series_equal, check_same_outcome, make_values

# --------------------------------------------------------------------------- helpers

LEVEL_DTYPES = ["int64", "float64", "str", "datetime64[ns]", "Int64", "boolean", "category", "uint8"]


def random_multi(rng: np.random.Generator, n: int, dtypes: list[str], null_frac: float = 0.0,
                 small: bool = True) -> pd.MultiIndex:  # fmt: skip
    """A pandas MultiIndex with one level per dtype (few distinct values, so tuples repeat)."""
    arrays = [make_values(rng, dtype, n, null_frac, small=small) for dtype in dtypes]
    return pd.MultiIndex.from_arrays([pd.Index(a) for a in arrays], names=[f"l{i}" for i in range(len(dtypes))])


@st.composite
def multi_st(draw, max_size: int = 60, null: bool = True, n_levels: tuple[int, int] = (2, 3)) -> pd.MultiIndex:
    dtypes = draw(st.lists(st.sampled_from(LEVEL_DTYPES), min_size=n_levels[0], max_size=n_levels[1]))
    n = draw(st.integers(0, max_size))
    null_frac = draw(st.sampled_from([0.0, 0.0, 0.2])) if null else 0.0
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return random_multi(rng, n, dtypes, null_frac)


def host(array) -> np.ndarray:
    """A result array (CuPy on the GPU) as NumPy."""
    return array.get() if hasattr(array, "get") else np.asarray(array)


def compare(got, expected) -> None:
    if isinstance(expected, pd.DataFrame):
        assert_frame_equal(got, expected)
    elif isinstance(expected, pd.Series):
        assert_series_equal(got, expected)
    elif isinstance(expected, pd.Index):
        assert_index_equal(got, expected)
    else:
        assert got == expected and type(got) is type(expected), (got, expected)


SIMPLE = pd.MultiIndex.from_arrays([["a", "a", "b", "b"], [1, 1, 2, 3]], names=["x", "y"])
UNIQUE = pd.MultiIndex.from_arrays([["a", "a", "b", "b", "c"], [1, 2, 2, 3, 1]], names=["x", "y"])


# --------------------------------------------------------------------------- construction


def test_from_arrays_tuples_product_frame_match_pandas():
    arrays = [["b", "a", "b"], [2, 1, 0]]
    assert_index_equal(rt.MultiIndex.from_arrays(arrays, names=["k", "n"]),
                       pd.MultiIndex.from_arrays(arrays, names=["k", "n"]))  # fmt: skip
    tuples = [("b", 2), ("a", 1), ("b", 0)]
    assert_index_equal(rt.MultiIndex.from_tuples(tuples), pd.MultiIndex.from_tuples(tuples))
    iterables = [[2, 1], ["x", "y", "z"], [0.5]]
    assert_index_equal(rt.MultiIndex.from_product(iterables, names=list("abc")),
                       pd.MultiIndex.from_product(iterables, names=list("abc")))  # fmt: skip
    frame = pd.DataFrame({"p": [1, 2], "q": ["u", "v"]})
    assert_index_equal(rt.MultiIndex.from_frame(rt.from_pandas(frame)), pd.MultiIndex.from_frame(frame))
    assert_index_equal(rt.MultiIndex.from_frame(frame, names=["A", "B"]),
                       pd.MultiIndex.from_frame(frame, names=["A", "B"]))  # fmt: skip


def test_from_arrays_takes_names_of_series_and_index():
    a, b = pd.Series([1, 2], name="s"), pd.Index(["x", "y"], name="i")
    assert_index_equal(rt.MultiIndex.from_arrays([rt.from_pandas(a), rt.from_pandas(b)]),
                       pd.MultiIndex.from_arrays([a, b]))  # fmt: skip


def test_levels_codes_constructor():
    levels, codes = [["a", "b"], [1, 2, 3]], [[0, 1, 1, -1], [2, 0, 1, 0]]
    expected = pd.MultiIndex(levels=levels, codes=codes, names=["x", "y"])
    got = rt.MultiIndex(levels=levels, codes=codes, names=["x", "y"])
    assert_index_equal(got, expected)


def test_from_tuples_pads_short_tuples():
    tuples = [("a", 1), ("b",)]
    assert got_tuples(rt.MultiIndex.from_tuples(tuples)) == got_tuples(pd.MultiIndex.from_tuples(tuples))


def got_tuples(index) -> list[str]:
    return [repr(t) for t in index.tolist()]


@pytest.mark.parametrize("call", [
    lambda m: m.MultiIndex.from_tuples([]),
    lambda m: m.MultiIndex.from_arrays([[1, 2], [1]]),
    lambda m: m.MultiIndex.from_arrays([[1, 2], [3, 4]], names=["a"]),
    lambda m: m.MultiIndex.from_arrays("ab"),
    lambda m: m.MultiIndex.from_arrays([]),
    lambda m: m.MultiIndex.from_product("ab"),
    lambda m: m.MultiIndex.from_tuples([1, 2]),
])  # fmt: skip
def test_construction_errors(call):
    check_same_outcome(lambda: call(rt), lambda: call(pd), compare)


def test_as_index_and_index_of_tuples():
    assert isinstance(rt.from_pandas(pd.Series([1, 2], index=SIMPLE[:2])).index, rt.MultiIndex)
    # Deviation: pandas keeps a list of tuples given as an index as an object Index of tuples; riptide has no
    # object columns and makes the MultiIndex that pd.Index(list of tuples) makes.
    s = rt.Series([1, 2], index=[("a", 1), ("b", 2)])
    assert_series_equal(s, pd.Series([1, 2], index=pd.Index([("a", 1), ("b", 2)])))
    assert_series_equal(rt.Series({("a", 1): 1.0, ("b", 2): 2.0}), pd.Series({("a", 1): 1.0, ("b", 2): 2.0}))


@settings(max_examples=40)
@given(multi_st())
def test_round_trip_and_facts(pmi):
    mi = rt.from_pandas(pd.Series(np.arange(len(pmi)), index=pmi)).index
    assert isinstance(mi, rt.MultiIndex)
    assert_index_equal(mi, pmi)
    assert (mi.nlevels, len(mi), mi.names, mi.shape) == (pmi.nlevels, len(pmi), list(pmi.names), pmi.shape)
    assert mi.is_unique == pmi.is_unique
    assert mi.has_duplicates == pmi.has_duplicates
    assert mi.is_monotonic_increasing == pmi.is_monotonic_increasing
    assert mi.is_monotonic_decreasing == pmi.is_monotonic_decreasing
    for i in range(pmi.nlevels):
        assert_index_equal(mi.get_level_values(i), pmi.get_level_values(i))
        assert_index_equal(mi.levels[i], pmi.levels[i], exact="equiv")
        np.testing.assert_array_equal(host(mi.codes[i]), pmi.codes[i])
    assert got_tuples(mi) == got_tuples(pmi)
    assert mi.equals(rt.from_pandas(pd.Series(np.arange(len(pmi)), index=pmi)).index)


def test_sorted_index_is_monotonic():
    pmi = pd.MultiIndex.from_product([[1, 2], ["a", "b"]])
    mi = rt.MultiIndex.from_product([[1, 2], ["a", "b"]])
    assert mi.is_monotonic_increasing and pmi.is_monotonic_increasing
    assert not mi.is_monotonic_decreasing
    assert mi[::-1].is_monotonic_decreasing == pmi[::-1].is_monotonic_decreasing


# --------------------------------------------------------------------------- derived indexes


def test_level_operations_match_pandas():
    pmi = pd.MultiIndex.from_arrays([[1, 2], ["a", "b"], [0.5, 1.5]], names=["n", "c", "f"])
    mi = rt.MultiIndex.from_arrays([[1, 2], ["a", "b"], [0.5, 1.5]], names=["n", "c", "f"])
    assert_index_equal(mi.droplevel(0), pmi.droplevel(0))
    assert_index_equal(mi.droplevel(["n", "f"]), pmi.droplevel(["n", "f"]))
    assert_index_equal(mi.swaplevel(), pmi.swaplevel())
    assert_index_equal(mi.swaplevel(0, "f"), pmi.swaplevel(0, "f"))
    assert_index_equal(mi.reorder_levels([2, "n", 1]), pmi.reorder_levels([2, "n", 1]))
    assert_index_equal(mi.get_level_values("c"), pmi.get_level_values("c"))
    assert_index_equal(mi.get_level_values(-1), pmi.get_level_values(-1))
    assert_index_equal(mi.set_names(["A", "B", "C"]), pmi.set_names(["A", "B", "C"]))
    assert_index_equal(mi.set_names("Z", level=1), pmi.set_names("Z", level=1))
    assert_index_equal(mi.rename(["p", "q", "r"]), pmi.rename(["p", "q", "r"]))
    assert_index_equal(mi[1:], pmi[1:])
    assert_index_equal(mi[[1, 0]], pmi[[1, 0]])
    assert mi[1] == pmi[1]
    assert mi[-1] == pmi[-1]
    copied = mi.copy()
    copied.names = ["u", "v", "w"]
    assert mi.names == ["n", "c", "f"] and copied.names == ["u", "v", "w"]
    frame = pmi.to_frame()
    assert_frame_equal(mi.to_frame(), frame)
    assert_frame_equal(mi.to_frame(index=False, name=["a", "b", "c"]), pmi.to_frame(index=False, name=["a", "b", "c"]))


@pytest.mark.parametrize("call", [
    lambda i: i.get_level_values(5),
    lambda i: i.get_level_values(-4),
    lambda i: i.get_level_values("nope"),
    lambda i: i.droplevel([0, 1]),
    lambda i: i.set_names(["only one"]),
    lambda i: setattr(i, "names", ["a"]),
])  # fmt: skip
def test_level_errors(call):
    check_same_outcome(lambda: call(rt.from_pandas(pd.Series([1, 2], index=SIMPLE[:2])).index),
                       lambda: call(SIMPLE[:2].copy()), compare)  # fmt: skip


def test_repr_matches_pandas_short_and_long():
    assert repr(rt.MultiIndex.from_arrays([["a", "b"], [1, 2]], names=["x", None])) == repr(
        pd.MultiIndex.from_arrays([["a", "b"], [1, 2]], names=["x", None]))  # fmt: skip
    pmi = pd.MultiIndex.from_product([range(60), list("abc")], names=["n", "c"])
    assert repr(rt.MultiIndex.from_product([range(60), list("abc")], names=["n", "c"])) == repr(pmi)


# --------------------------------------------------------------------------- lookups


@pytest.mark.parametrize("key", [("a", 1), ("b", 2), "a", "b", ("b",), ("z", 1), "z", ("a", 9)])
def test_get_loc(key):
    def normalize(location):
        return location.tolist() if isinstance(location, np.ndarray) else location

    check_same_outcome(lambda: rt.from_pandas(pd.Series(range(4), index=SIMPLE)).index.get_loc(key),
                       lambda: SIMPLE.get_loc(key),
                       lambda g, e: normalize(g) == normalize(e) if isinstance(e, slice | int) else None)  # fmt: skip


def test_get_loc_non_contiguous_gives_mask():
    pmi = pd.MultiIndex.from_arrays([["b", "a", "b"], [1, 2, 3]])
    mi = rt.MultiIndex.from_arrays([["b", "a", "b"], [1, 2, 3]])
    np.testing.assert_array_equal(host(mi.get_loc("b")), pmi.get_loc("b"))
    assert ("b", 3) in mi and ("b", 2) not in mi and "a" in mi


@st.composite
def multi_pair_st(draw) -> tuple[pd.MultiIndex, pd.MultiIndex]:
    """An index and a target: half of the index's own tuples, shuffled, then tuples of another random index of
    the same level dtypes."""
    dtypes = draw(st.lists(st.sampled_from(LEVEL_DTYPES), min_size=2, max_size=3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    null_frac = draw(st.sampled_from([0.0, 0.2]))
    pmi = random_multi(rng, draw(st.integers(0, 60)), dtypes, null_frac)
    other = random_multi(rng, draw(st.integers(0, 10)), dtypes, null_frac)
    return pmi, pmi[rng.permutation(len(pmi))[: len(pmi) // 2]].append(other)


@settings(max_examples=40)
@given(multi_pair_st())
def test_get_indexer_isin_union(pair):
    pmi, target = pair
    mi = rt.MultiIndex.from_pandas(pmi)
    rt_target = rt.MultiIndex.from_pandas(target)
    np.testing.assert_array_equal(host(mi.isin(rt_target)), pmi.isin(target))
    np.testing.assert_array_equal(host(mi.isin(target.tolist())), pmi.isin(target))
    if pmi.is_unique:
        np.testing.assert_array_equal(host(mi.get_indexer(rt_target)), pmi.get_indexer(target))
    has_nans = any(i.get_level_values(k).hasnans for i in (pmi, target) for k in range(i.nlevels))
    if pmi.is_unique and target.is_unique and len(pmi) and not has_nans:
        assert got_tuples(mi.union(rt_target)) == got_tuples(pmi.union(target))


def test_get_indexer_duplicates_raise():
    with pytest.raises(pd.errors.InvalidIndexError):
        rt.from_pandas(pd.Series(range(4), index=SIMPLE)).index.get_indexer([("a", 1)])


def test_isin_level():
    mi = rt.MultiIndex.from_pandas(SIMPLE)
    np.testing.assert_array_equal(host(mi.isin(["a"], level=0)), SIMPLE.isin(["a"], level=0))
    np.testing.assert_array_equal(host(mi.isin([2, 3], level="y")), SIMPLE.isin([2, 3], level="y"))


def test_sort_values_unique_append():
    pmi = pd.MultiIndex.from_arrays([["b", "a", "b", "a"], [2, 1, 1, 1]])
    mi = rt.MultiIndex.from_pandas(pmi)
    assert_index_equal(mi.sort_values(), pmi.sort_values())
    assert_index_equal(mi.unique(), pmi.unique())
    assert_index_equal(mi.append(mi), pmi.append(pmi))


# --------------------------------------------------------------------------- frames and series


def test_frame_and_series_round_trip_and_display():
    pmi = pd.MultiIndex.from_product([range(40), list("abcd")], names=["n", "c"])
    df = pd.DataFrame({"v": np.arange(160), "w": list("xyzw") * 40}, index=pmi)
    r = rt.from_pandas(df)
    assert_frame_equal(r, df)
    assert_series_equal(r["v"], df["v"])
    assert repr(r) == repr(df)
    assert repr(r["v"]) == repr(df["v"])
    assert r._repr_html_() == df._repr_html_()
    assert repr(r.head(3)) == repr(df.head(3))


def test_tuple_column_labels():
    cols = pd.MultiIndex.from_tuples([("a", "x"), ("a", "y"), ("b", "x")], names=["u", "v"])
    df = pd.DataFrame(np.arange(6).reshape(2, 3), columns=cols, index=pd.Index(["p", "q"], name="r"))
    r = rt.from_pandas(df)
    assert_frame_equal(r, df)
    pdt.assert_index_equal(r.columns, df.columns)
    assert_frame_equal(r["a"], df["a"])
    assert_series_equal(r[("b", "x")], df[("b", "x")])
    assert_series_equal(r["b", "x"], df["b", "x"])
    assert_frame_equal(r.reset_index(), df.reset_index())
    assert_series_equal(r.reset_index()["r"], df.reset_index()["r"])
    assert repr(r) == repr(df)
    assert r._repr_html_() == df._repr_html_()
    with pytest.raises(KeyError):
        r["zz"]


@pytest.mark.parametrize("kwargs", [
    dict(keys=["a", "b"]), dict(keys="a", append=True), dict(keys=["a", "b"], drop=False),
    dict(keys=["b"]), dict(keys=["a", np.array([7, 8, 9])]), dict(keys=[pd.Series([3, 2, 1], name="s"), "b"]),
    dict(keys=["zz"]), dict(keys=["a", np.array([1, 2])]), dict(keys=["a", "b"], append=True),
])  # fmt: skip
def test_set_index(kwargs):
    df = pd.DataFrame({"a": [1, 2, 2], "b": ["x", "y", "x"], "c": [5.0, 6.0, 7.0]})
    rt_kwargs = {k: ([rt.from_pandas(x) if isinstance(x, pd.Series) else x for x in v] if isinstance(v, list) else v)
                 for k, v in kwargs.items()}  # fmt: skip
    check_same_outcome(lambda: rt.from_pandas(df).set_index(**rt_kwargs), lambda: df.set_index(**kwargs), compare)


def test_reset_index_names_of_wrong_length():
    df = pd.DataFrame({"a": [1, 2], "b": ["x", "y"], "c": [5.0, 6.0]}).set_index(["a", "b"])
    with pytest.raises(ValueError, match="Length of names"):  # pandas: IndexError from its own indexing
        rt.from_pandas(df).reset_index(names=["only"])


def test_set_index_inplace_and_verify_integrity():
    df = pd.DataFrame({"a": [1, 1], "b": [2, 3], "c": [0.5, 1.5]})
    r = rt.from_pandas(df)
    assert r.set_index(["a", "b"], inplace=True) is None
    assert_frame_equal(r, df.set_index(["a", "b"]))
    with pytest.raises(ValueError, match="duplicate"):
        rt.from_pandas(df).set_index("a", verify_integrity=True)


@pytest.mark.parametrize("kwargs", [
    dict(), dict(level="b"), dict(level=[1, 0]), dict(level=0), dict(names=["p", "q"]), dict(drop=True),
    dict(level=0, drop=True), dict(level="zz"), dict(level=5),
])  # fmt: skip
def test_reset_index(kwargs):
    df = pd.DataFrame({"a": [1, 2, 2], "b": ["x", "y", "x"], "c": [5.0, 6.0, 7.0]}).set_index(["a", "b"])
    check_same_outcome(lambda: rt.from_pandas(df).reset_index(**kwargs), lambda: df.reset_index(**kwargs), compare)


@pytest.mark.parametrize("kwargs", [dict(), dict(level="b"), dict(drop=True), dict(level=0, drop=True),
                                    dict(name="v"), dict(level=[0, 1])])  # fmt: skip
def test_series_reset_index(kwargs):
    s = pd.DataFrame({"a": [1, 2, 2], "b": ["x", "y", "x"], "c": [5.0, 6.0, 7.0]}).set_index(["a", "b"])["c"]
    check_same_outcome(lambda: rt.from_pandas(s).reset_index(**kwargs), lambda: s.reset_index(**kwargs), compare)


def test_reset_index_flat_index_levels_and_unnamed_levels():
    df = pd.DataFrame({"v": [1, 2]}, index=pd.MultiIndex.from_arrays([[1, 2], ["a", "b"]]))
    assert_frame_equal(rt.from_pandas(df).reset_index(), df.reset_index())
    flat = pd.DataFrame({"index": [1, 2]}, index=pd.Index([5, 6]))
    assert_frame_equal(rt.from_pandas(flat).reset_index(), flat.reset_index())
    for level in [0, -1, "x", 1]:
        check_same_outcome(lambda: rt.from_pandas(flat).reset_index(level=level),
                           lambda: flat.reset_index(level=level), compare)  # fmt: skip
    r = rt.from_pandas(df)
    assert r.reset_index(inplace=True) is None
    assert_frame_equal(r, df.reset_index())
    with pytest.raises(ValueError, match="already exists"):
        rt.from_pandas(df.rename_axis(["v", None])).reset_index()


# --------------------------------------------------------------------------- .loc


LOC_SERIES_KEYS = [("b", 2), ("a", 1), "b", ("b",), ["b", "a"], [("b", 3), ("a", 1)], slice("a", "b"),
                   slice(("a", 1), ("b", 2)), (slice(None), 2), (["a"], 1), (["a", "b"], [1, 3]), slice(None, "a"),
                   ("z", 1), "z", ("a", 9), [("a", 7)]]  # fmt: skip


@pytest.mark.parametrize("key", LOC_SERIES_KEYS, ids=stable_id)
def test_series_loc(key):
    s = pd.Series([1.0, 2.0, 3.0, 4.0], index=SIMPLE)
    check_same_outcome(lambda: rt.from_pandas(s).loc[key], lambda: s.loc[key], compare)
    if not isinstance(key, list | slice) and not (isinstance(key, tuple) and any(
            isinstance(k, list | slice) for k in key)):  # fmt: skip
        check_same_outcome(lambda: rt.from_pandas(s)[key], lambda: s[key], compare)


LOC_FRAME_KEYS = ["b", (("b", 2), "v"), ("b", "v"), slice("a", "b"), ["b"], ("zz", 3), "zz", (("a", 1), ["v"]),
                  ((slice(None), 3), slice(None))]  # fmt: skip


@pytest.mark.parametrize("key", LOC_FRAME_KEYS, ids=stable_id)
def test_frame_loc(key):
    df = pd.DataFrame({"v": [1.0, 2.0, 3.0, 4.0], "w": [5, 6, 7, 8]}, index=SIMPLE)
    check_same_outcome(lambda: rt.from_pandas(df).loc[key], lambda: df.loc[key], compare)


def test_frame_loc_full_key_gives_row():
    df = pd.DataFrame({"v": [1.0, 2.0, 3.0, 4.0, 5.0], "w": [5.0, 6.0, 7.0, 8.0, 9.0]}, index=UNIQUE)
    assert_series_equal(rt.from_pandas(df).loc[("b", 2)], df.loc[("b", 2)])
    assert_series_equal(rt.from_pandas(df).loc[("b", 3), :], df.loc[("b", 3), :])


def test_three_levels_partial_keys():
    m3 = pd.MultiIndex.from_product([["a", "b"], [1, 2], ["u", "v"]], names=["p", "q", "r"])
    s3 = pd.Series(np.arange(8), index=m3)
    r3 = rt.from_pandas(s3)
    for key in [("a", 2), ("a", slice(None), "u"), (slice(None), 1, "u"), "b", ("a", 2, "v")]:
        compare(r3.loc[key], s3.loc[key])
    df = s3.to_frame("x")
    compare(rt.from_pandas(df).loc[("a", 2, "v")], df.loc[("a", 2, "v")])
    with pytest.raises(KeyError):
        rt.from_pandas(df).loc[("a", 2, "zz")]


def test_unsorted_slice_raises():
    s = pd.Series([1, 2, 3], index=pd.MultiIndex.from_arrays([["b", "a", "b"], [1, 2, 3]]))
    with pytest.raises(KeyError):
        rt.from_pandas(s).loc["a":"b"]
    with pytest.raises(KeyError):
        s.loc["a":"b"]


def test_setting_through_loc_with_tuple():
    s = pd.Series([1.0, 2.0, 3.0, 4.0, 5.0], index=UNIQUE)
    r = rt.from_pandas(s)
    r.loc[("b", 2)] = 9.0
    s.loc[("b", 2)] = 9.0
    r.loc["a"] = 0.0
    s.loc["a"] = 0.0
    assert_series_equal(r, s)


# --------------------------------------------------------------------------- alignment, drop, groupby


def test_alignment_on_multi_index():
    s1 = pd.Series([1.0, 2.0, 3.0], index=pd.MultiIndex.from_tuples([("a", 1), ("b", 2), ("c", 3)]))
    s2 = pd.Series([1.0, 2.0, 3.0], index=pd.MultiIndex.from_tuples([("b", 2), ("a", 1), ("d", 0)]))
    assert_series_equal(rt.from_pandas(s1) + rt.from_pandas(s2), s1 + s2)
    assert_series_equal(rt.from_pandas(s1).reindex(s2.index), s1.reindex(s2.index))
    assert_series_equal(rt.from_pandas(s1).reindex([("c", 3), ("a", 1)]), s1.reindex([("c", 3), ("a", 1)]))


@pytest.mark.parametrize("labels", ["a", ("b", 2), ["a", "c"], [("b", 2), ("a", 1)], "zz", [("a", 5)]], ids=stable_id)
def test_drop(labels):
    df = pd.DataFrame({"v": [1.0, 2.0, 3.0, 4.0, 5.0]}, index=UNIQUE)
    check_same_outcome(lambda: rt.from_pandas(df).drop(labels), lambda: df.drop(labels), compare)
    check_same_outcome(lambda: rt.from_pandas(df)["v"].drop(labels), lambda: df["v"].drop(labels), compare)


def test_drop_ignore():
    df = pd.DataFrame({"v": [1.0, 2.0, 3.0, 4.0, 5.0]}, index=UNIQUE)
    assert_frame_equal(rt.from_pandas(df).drop(["zz", "a"], errors="ignore"), df.drop(["zz", "a"], errors="ignore"))


def test_groupby_result_is_multi_index():
    df = pd.DataFrame({"k": ["b", "a", "b", "a"], "j": [1, 1, 2, 1], "v": [1.0, 2.0, 3.0, 4.0]})
    got = rt.from_pandas(df).groupby(["k", "j"]).sum()
    assert isinstance(got.index, rt.MultiIndex)
    assert_frame_equal(got, df.groupby(["k", "j"]).sum())
    assert_frame_equal(got.reset_index(), df.groupby(["k", "j"]).sum().reset_index())


# --------------------------------------------------------------------------- xs (cross sections)
# xs lives on mixins in riptide/frame/multi_index.py; until Series and DataFrame inherit them the tests call the
# mixins' methods directly (``xs(obj, ...)`` below).

XS_INDEX = pd.MultiIndex.from_arrays([["a", "a", "b", "b", "c"], [1, 2, 1, 2, 1], ["x", "y", "x", "x", "y"]],
                                     names=["k", "n", "m"])  # fmt: skip


def xs(obj, *args, **kwargs):
    from riptide.frame.multi_index import FrameMultiIndexMethods, SeriesMultiIndexMethods

    mixin = SeriesMultiIndexMethods if isinstance(obj, rt.Series) else FrameMultiIndexMethods
    return mixin.xs(obj, *args, **kwargs)


def compare_xs(got, expected) -> None:
    if isinstance(expected, pd.Series) and expected.dtype == object:  # a row of mixed kinds: a pandas Series
        pdt.assert_series_equal(got if isinstance(got, pd.Series) else got.to_pandas(), expected)
    else:
        compare(got, expected)


@pytest.mark.parametrize("drop_level", [True, False])
@pytest.mark.parametrize("key", ["a", ("a",), ("a", 1), ("a", 1, "x"), ("b", 2, "x"), ("a", slice(None), "y"), "zz",
                                 ("a", 9), ["a"]], ids=stable_id)  # fmt: skip
def test_xs_keys(key, drop_level):
    df = pd.DataFrame({"v": [1.0, 2.0, 3.0, 4.0, 5.0], "w": [5, 4, 3, 2, 1]}, index=XS_INDEX)
    mixed = df.assign(s=list("pqrst"))
    for frame in (df, mixed, df["v"]):
        check_same_outcome(lambda: xs(rt.from_pandas(frame), key, drop_level=drop_level),
                           lambda: frame.xs(key, drop_level=drop_level), compare_xs)  # fmt: skip


@pytest.mark.parametrize("drop_level", [True, False])
@pytest.mark.parametrize("key, level", [(1, 1), (1, "n"), ("x", "m"), ((1, "x"), ["n", "m"]), ((1, "x"), [1, 2]),
                                        (9, 1), ("a", 0), (1, 5), ((1,), ["n", "m"]), ("a", "zz")], ids=stable_id)
def test_xs_levels(key, level, drop_level):
    df = pd.DataFrame({"v": [1.0, 2.0, 3.0, 4.0, 5.0]}, index=XS_INDEX)
    for frame in (df, df["v"]):
        check_same_outcome(lambda: xs(rt.from_pandas(frame), key, level=level, drop_level=drop_level),
                           lambda: frame.xs(key, level=level, drop_level=drop_level), compare_xs)  # fmt: skip


@pytest.mark.parametrize("key", [("a", 1), "a", ("b", 2)], ids=stable_id)
def test_xs_non_unique_and_flat_indexes(key):
    df = pd.DataFrame({"v": [1, 2, 3]}, index=pd.MultiIndex.from_arrays([["a", "a", "b"], [1, 1, 2]]))
    for frame in (df, df["v"]):
        for drop_level in (True, False):
            check_same_outcome(lambda: xs(rt.from_pandas(frame), key, drop_level=drop_level),
                               lambda: frame.xs(key, drop_level=drop_level), compare_xs)  # fmt: skip
    flat = pd.DataFrame({"v": [1.0, 2.0, 3.0], "w": [4, 5, 6]}, index=["a", "b", "a"])
    for label in ("a", "b", "zz"):
        for frame in (flat, flat["v"]):
            check_same_outcome(lambda: xs(rt.from_pandas(frame), label), lambda: frame.xs(label), compare_xs)
    with pytest.raises(TypeError, match="Index must be a MultiIndex"):
        xs(rt.from_pandas(flat), "a", level=0)
    with pytest.raises(ValueError, match="No axis named 1"):
        xs(rt.from_pandas(flat["v"]), "a", axis=1)


@pytest.mark.parametrize("key, kwargs", [("a", {}), ("x", {"level": 1}), ("x", {"level": "i"}),
                                         ("a", {"drop_level": False}), (("a", "x"), {}),
                                         (("a", "x"), {"drop_level": False}), ("x", {"level": 1, "drop_level": False}),
                                         ("zz", {})], ids=stable_id)  # fmt: skip
def test_xs_columns(key, kwargs):
    columns = pd.MultiIndex.from_arrays([["a", "a", "b"], ["x", "y", "x"]], names=["o", "i"])
    df = pd.DataFrame(np.arange(6.0).reshape(2, 3), columns=columns)
    check_same_outcome(lambda: xs(rt.from_pandas(df), key, axis=1, **kwargs), lambda: df.xs(key, axis=1, **kwargs),
                       compare_xs)  # fmt: skip
    flat = pd.DataFrame({"v": [1.0, 2.0], "w": [3, 4]})
    compare(xs(rt.from_pandas(flat), "v", axis=1), flat.xs("v", axis=1))
    compare(xs(rt.from_pandas(flat), "w", axis=1, drop_level=False), flat.xs("w", axis=1, drop_level=False))


def test_xs_is_a_method():
    df = pd.DataFrame({"v": [1.0, 2.0, 3.0, 4.0, 5.0]}, index=XS_INDEX)
    compare(rt.from_pandas(df).xs("a"), df.xs("a"))
    compare(rt.from_pandas(df)["v"].xs(1, level="n"), df["v"].xs(1, level="n"))
