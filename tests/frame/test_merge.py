"""Joins: ``merge``, ``DataFrame.merge``, ``DataFrame.join`` and the indexers beneath them, against pandas.

pandas 3 is the oracle for values, dtypes, the index, column order and suffixes, row order (inner/left: left
rows, each with its right matches in right order; right: right rows; outer and sort=True: sorted keys) and
errors. Random keys come from small pools, so duplicates on both sides and null keys (which pandas matches with
each other) are the rule, not the exception.

riptide's documented differences are applied to pandas' results before comparing: a bool column that gains
missing rows is ``boolean`` (pandas: object), and where pandas decodes a categorical key into an object column
riptide keeps the values' own dtype.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from conftest import make_values
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide import _device
from riptide.core.column import as_column
from riptide.core.ops import join as joins

HOWS = ["inner", "left", "right", "outer", "left_anti", "right_anti"]
KEY_DTYPES = ["int64", "int32", "uint8", "float64", "Int64", "Float64", "bool", "boolean", "str", "category",
              "datetime64[ns]", "timedelta64[ns]"]  # fmt: skip
VALUE_DTYPES = ["int64", "float64", "bool", "str", "Int64", "category", "datetime64[ns]"]


# --------------------------------------------------------------------------- helpers


def _documented(expected: pd.DataFrame, got: pd.DataFrame) -> pd.DataFrame:
    """pandas' result with riptide's documented dtype differences applied, column by column."""
    expected = expected.copy()
    for i in range(expected.shape[1]):
        column, ours = expected.iloc[:, i], got.iloc[:, i]
        if column.dtype == object and ours.dtype != object:
            valid = column.dropna()
            if ours.dtype == "boolean" and all(isinstance(v, bool | np.bool_) for v in valid):
                expected.isetitem(i, column.astype("boolean"))
            elif ours.dtype != "boolean":  # a decoded categorical key: pandas makes it object, riptide keeps it
                expected.isetitem(i, column.astype(ours.dtype))
    if expected.index.dtype == object and got.index.dtype == "boolean":
        expected.index = expected.index.astype("boolean")
    return expected


def assert_merged(got: rt.DataFrame, expected: pd.DataFrame) -> None:
    assert isinstance(got, rt.DataFrame), f"expected a riptide DataFrame, got {type(got).__name__}"
    ours = got.to_pandas()
    pdt.assert_frame_equal(ours, _documented(expected, ours), check_dtype=True)


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as exc:  # noqa: BLE001 - the error is data here
            return None, exc


def _is_pandas_defect(error: Exception | None) -> bool:
    """pandas 3.1 fails an outer merge of an empty side whose key is uint8 against Int64 (it tests ``NA`` for truth
    while checking the key range); riptide returns the empty-side merge instead of copying the crash."""
    return isinstance(error, TypeError) and "boolean value of NA is ambiguous" in str(error)


def check_same(pd_fn, rt_fn) -> None:
    """Both raise the same exception type (riptide may refuse object-dtype results with TypeError) or agree."""
    expected, error = _outcome(pd_fn)
    got, our_error = _outcome(rt_fn)
    if error is not None or our_error is not None:
        if isinstance(our_error, TypeError) and "object" in str(our_error) and error is None:
            return  # documented: pandas would return an object column
        if our_error is None and _is_pandas_defect(error):
            return
        assert type(our_error) is type(error), f"pandas raised {error!r}, riptide {our_error!r}"
        return
    assert_merged(got, expected)


def merge_both(left: pd.DataFrame, right: pd.DataFrame, **kwargs) -> None:
    def expected():
        result = pd.merge(left, right, **kwargs)
        return _ties_in_row_order(result, left, right) if _sorts_one_side_unstably(left, right, **kwargs) else result

    check_same(expected, lambda: rt.merge(rt.from_pandas(left), rt.from_pandas(right), **kwargs))


def _sorts_one_side_unstably(left: pd.DataFrame, right: pd.DataFrame, left_index: bool = False,
                             right_index: bool = False, how: str = "inner", sort: bool = False, **_: object) -> bool:
    """An index-on-index join with one side empty: pandas' ``Index.join`` sorts the other side's labels with
    NumPy's default argsort, an unstable (SIMD) quicksort, so tied labels come out in an order of its own;
    riptide sorts stably (as riptide/frame/sorting.py does everywhere)."""
    return left_index and right_index and (len(left) == 0) != (len(right) == 0) and (sort or how == "outer")


def _ties_in_row_order(result: pd.DataFrame, left: pd.DataFrame, right: pd.DataFrame) -> pd.DataFrame:
    """pandas' sorted ``result`` with the rows of equal labels in the row order of the side they come from (by its
    row id column, ``lid`` or ``rid``): pandas' answer had it sorted stably."""
    ids = "lid" if len(left) else "rid"
    if ids not in result.columns or len(result) < 2:
        return result
    codes = pd.factorize(result.index, use_na_sentinel=False)[0]
    runs = np.concatenate([[0], np.cumsum(codes[1:] != codes[:-1])])  # equal labels are adjacent once sorted
    return result.iloc[np.lexsort((result[ids].to_numpy(), runs))]


def _split(values: pd.Series, n_left: int) -> tuple[pd.Series, pd.Series]:
    """One pool of values cut in two, so both sides share keys (and a categorical dtype)."""
    return values.iloc[:n_left].reset_index(drop=True), values.iloc[n_left:].reset_index(drop=True)


@st.composite
def frame_pairs(draw, key_dtypes=KEY_DTYPES, max_keys=2, max_rows=12, index=False):
    """Two pandas frames with shared key columns k0.., value columns (overlapping names) and row ids."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_left, n_right = draw(st.integers(0, max_rows)), draw(st.integers(0, max_rows))
    n_keys = draw(st.integers(1, max_keys))
    left, right = {}, {}
    for i in range(n_keys):
        dtype = draw(st.sampled_from(key_dtypes))
        null_frac = draw(st.sampled_from([0.0, 0.2, 0.5]))
        left[f"k{i}"], right[f"k{i}"] = _split(make_values(rng, dtype, n_left + n_right, null_frac, small=True), n_left)
    for name in draw(st.sampled_from([[], ["v"], ["v", "w"]])):
        for side, n in ((left, n_left), (right, n_right)):
            side[name] = make_values(rng, draw(st.sampled_from(VALUE_DTYPES)), n, 0.2, small=True)
    left["lid"], right["rid"] = np.arange(n_left), np.arange(n_right)
    pl, pr = pd.DataFrame(left), pd.DataFrame(right)
    if index:
        pl.index = pd.Index(rng.permutation(2 * n_left)[:n_left], name="i")
        pr.index = pd.Index([f"r{j}" for j in rng.permutation(2 * n_right)[:n_right]], dtype="str")
    return pl, pr, [f"k{i}" for i in range(n_keys)]


# --------------------------------------------------------------------------- random keys, every join type


@settings(max_examples=60)
@given(pair=frame_pairs(index=True), how=st.sampled_from(HOWS), sort=st.booleans(), indicator=st.booleans())
def test_merge_on_columns_matches_pandas(pair, how, sort, indicator):
    left, right, keys = pair
    merge_both(left, right, on=keys, how=how, sort=sort, indicator=indicator)


@settings(max_examples=25)
@given(pair=frame_pairs(max_keys=3), sort=st.booleans())
def test_left_on_right_on_with_different_names(pair, sort):
    left, right, keys = pair
    right = right.rename(columns={k: f"r_{k}" for k in keys})
    for how in ["inner", "left", "right", "outer"]:
        merge_both(left, right, left_on=keys, right_on=[f"r_{k}" for k in keys], how=how, sort=sort)


@settings(max_examples=25)
@given(pair=frame_pairs(max_keys=1), how=st.sampled_from(HOWS), sort=st.booleans())
def test_merge_on_the_index_matches_pandas(pair, how, sort):
    left, right, (key,) = pair
    left_ix, right_ix = left.set_index(key), right.set_index(key)
    merge_both(left_ix, right_ix, left_index=True, right_index=True, how=how, sort=sort)
    merge_both(left, right_ix, left_on=key, right_index=True, how=how, sort=sort)
    merge_both(left_ix, right, left_index=True, right_on=key, how=how, sort=sort)


def _mixed_pair(draw, group):
    ldtype, rdtype = draw(st.sampled_from(group)), draw(st.sampled_from(group))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_left, n_right = draw(st.integers(0, 10)), draw(st.integers(0, 10))

    def values(dtype, n):
        if dtype == "category_other":  # other categories, in another order
            s = make_values(rng, "str", n, 0.2, small=True)
            categories = sorted(set(s.dropna()))[::-1] + ["extra"]
            return s.astype(pd.CategoricalDtype(categories))
        if dtype in ("datetime64[s]", "datetime64[ms]"):
            return make_values(rng, "datetime64[ns]", n, 0.2, small=True).astype(dtype)
        s = make_values(rng, dtype, n, 0.2, small=True)
        return s.round() if dtype in ("float64", "float32") else s

    pool = values(ldtype, n_left + n_right)
    lk, rk = _split(pool, n_left)
    if rdtype != ldtype:
        rk = values(rdtype, n_right)
        if n_left and n_right and draw(st.booleans()):  # reuse some left keys, in the right dtype
            shared = lk.sample(n_right, replace=True, random_state=1).reset_index(drop=True)
            try:
                if rdtype == "category_other":
                    text = shared.astype("str")
                    rk = text.astype(pd.CategoricalDtype(sorted(set(text.dropna()))[::-1] + ["extra"]))
                else:
                    rk = shared.astype(rdtype)
            except (TypeError, ValueError):
                pass
    return pd.DataFrame({"k": lk, "a": np.arange(n_left)}), pd.DataFrame({"k": rk, "b": np.arange(n_right)})


KEY_GROUPS = [
    ["int64", "int32", "uint8", "uint64", "float64", "float32", "Int64", "Float64"],
    ["str", "category", "category_other"],
    ["datetime64[ns]", "datetime64[s]", "datetime64[ms]"],
    ["bool", "boolean"],
]


@settings(max_examples=50)
@given(data=st.data(), group=st.sampled_from(KEY_GROUPS), sort=st.booleans())
def test_keys_of_different_dtypes_are_cast_as_pandas_casts_them(data, group, sort):
    left, right = _mixed_pair(data.draw, group)
    for how in ["inner", "left", "right", "outer"]:
        if sort and how == "left" and _pandas_takes_codes_for_sorted(left["k"], right["k"]):
            _check_left_join_sorted_by_value(left, right)
            continue
        if sort and how == "right" and _pandas_takes_codes_for_sorted(right["k"], left["k"]):
            _check_left_join_sorted_by_value(left, right, how="right")  # the same quirk, the sides swapped
            continue
        merge_both(left, right, on="k", how=how, sort=sort)


def _pandas_takes_codes_for_sorted(lk: pd.Series, rk: pd.Series) -> bool:
    """pandas 3.1 skips sorting a left join whose unique categorical left key has increasing codes, against a key
    of another dtype or categories: it reads increasing codes as sorted values (['b', 'a'] with categories
    ['b', 'a'] stays in that order, and [NaN, 'a'] too: code -1 comes first). riptide sorts by value, missing
    last."""
    if not isinstance(lk.dtype, pd.CategoricalDtype) or lk.dtype == rk.dtype or not lk.is_unique:
        return False
    codes = lk.cat.codes
    values = lk.dropna().astype(str).tolist()
    missing_first = bool(lk.isna().any() and lk.notna().any())  # increasing codes put code -1 first
    return bool(codes.is_monotonic_increasing) and (values != sorted(values) or missing_first)


def _check_left_join_sorted_by_value(left: pd.DataFrame, right: pd.DataFrame, how: str = "left") -> None:
    got = rt.merge(rt.from_pandas(left), rt.from_pandas(right), on="k", how=how, sort=True).to_pandas()
    expected = pd.merge(left, right, on="k", how=how, sort=False)
    expected = expected.sort_values("k", kind="stable", na_position="last").reset_index(drop=True)
    pdt.assert_frame_equal(got, expected, check_dtype=False)


def test_sorted_left_join_of_a_categorical_key_with_a_missing_first():
    """A hypothesis example of test_keys_of_different_dtypes_are_cast_as_pandas_casts_them: codes [-1, 0] are
    increasing, so pandas leaves [NaN, 'V中'] unsorted; riptide sorts by value, the missing key last."""
    left = pd.DataFrame({"k": pd.Categorical([None, "V中"], categories=["V中", "x"]), "a": [0, 1]})
    right = pd.DataFrame({"k": pd.Series(["l"], dtype="str"), "b": [0]})
    assert _pandas_takes_codes_for_sorted(left["k"], right["k"])
    assert pd.merge(left, right, on="k", how="left", sort=True)["a"].tolist() == [0, 1]
    got = rt.merge(rt.from_pandas(left), rt.from_pandas(right), on="k", how="left", sort=True)
    assert got["a"].tolist() == [1, 0]
    _check_left_join_sorted_by_value(left, right)
    for how in ["inner", "right", "outer"]:
        merge_both(left, right, on="k", how=how, sort=True)


@settings(max_examples=25)
@given(pair=frame_pairs(max_keys=1), how=st.sampled_from(["inner", "left", "right", "outer"]), sort=st.booleans())
def test_join_matches_pandas(pair, how, sort):
    left, right, (key,) = pair
    right_ix = right.set_index(key).drop(columns=[c for c in ("v", "w") if c in right])
    check_same(lambda: left.join(right_ix, on=key, how=how, sort=sort),
               lambda: rt.from_pandas(left).join(rt.from_pandas(right_ix), on=key, how=how, sort=sort))  # fmt: skip
    left_ix = left.set_index(key)

    def expected():
        result = left_ix.join(right_ix, how=how, sort=sort, lsuffix="_l", rsuffix="_r")
        unstable = _sorts_one_side_unstably(left_ix, right_ix, left_index=True, right_index=True, how=how, sort=sort)
        return _ties_in_row_order(result, left_ix, right_ix) if unstable else result

    check_same(expected, lambda: rt.from_pandas(left_ix).join(rt.from_pandas(right_ix), how=how, sort=sort,
                                                              suffixes=("_l", "_r")))  # fmt: skip


@settings(max_examples=20)
@given(pair=frame_pairs(max_keys=1, key_dtypes=["int64", "str", "float64", "datetime64[ns]"]),
       how=st.sampled_from(["inner", "left", "right", "outer"]), sort=st.booleans())  # fmt: skip
def test_join_a_list_of_frames_matches_pandas(pair, how, sort):
    left, right, (key,) = pair
    left_ix = left.drop(columns=[c for c in ("v", "w") if c in left]).set_index(key)
    one, two = right.set_index(key)[["rid"]], right.set_index(key).rename(columns={"rid": "rid2"})[["rid2"]]
    expected, error = _outcome(lambda: left_ix.join([one, two], how=how, sort=sort))
    got, our_error = _outcome(lambda: rt.from_pandas(left_ix).join([rt.from_pandas(one), rt.from_pandas(two)],
                                                                   how=how, sort=sort))  # fmt: skip
    if error is not None or our_error is not None:
        assert type(our_error) is type(error), f"pandas raised {error!r}, riptide {our_error!r}"
        return
    if how == "outer" and not (left_ix.index.is_unique and one.index.is_unique):
        # pandas orders the rows of a duplicated key in an outer join of a list with NumPy's unstable argsort (its
        # SIMD quicksort: [-6, -6] can come out reversed); riptide's order is stable. Compare within each key.
        def within_keys(frame):
            return frame.reset_index().sort_values(list(frame.reset_index().columns), kind="stable",
                                                   ignore_index=True)  # fmt: skip

        got, expected = rt.from_pandas(within_keys(got.to_pandas())), within_keys(expected)
    assert_merged(got, expected)


@settings(max_examples=40)
@given(pair=frame_pairs(key_dtypes=["int64", "float64", "str", "category", "datetime64[ns]", "Int64"]),
       how=st.sampled_from(HOWS + ["cross"]), sort=st.booleans())  # fmt: skip
def test_join_indexers_match_pandas_row_for_row(pair, how, sort):
    left, right, keys = pair
    expected = pd.merge(left, right, on=None if how == "cross" else keys, how=how, sort=sort,
                        suffixes=("_l", "_r"))  # fmt: skip
    lpos, rpos = joins.join_indexers([as_column(left[k]) for k in keys], [as_column(right[k]) for k in keys], how,
                                     sort)  # fmt: skip
    np.testing.assert_array_equal(_device.to_host(lpos), expected["lid"].fillna(-1).astype(np.int64).to_numpy())
    np.testing.assert_array_equal(_device.to_host(rpos), expected["rid"].fillna(-1).astype(np.int64).to_numpy())
    assert lpos.dtype == np.int64 and rpos.dtype == np.int64


# --------------------------------------------------------------------------- row order, nulls, duplicates


def test_row_order_of_each_join_type():
    left = rt.DataFrame({"k": [2, 1, 2, None], "a": [0, 1, 2, 3]})
    right = rt.DataFrame({"k": [2, None, 3, 2], "b": [0, 1, 2, 3]})
    inner = rt.merge(left, right, on="k")
    assert inner["a"].tolist() == [0, 0, 2, 2, 3] and inner["b"].tolist() == [0, 3, 0, 3, 1]
    outer = rt.merge(left, right, on="k", how="outer")
    assert outer["k"].to_pandas().tolist()[:5] == [1.0, 2.0, 2.0, 2.0, 2.0]
    assert np.isnan(outer["k"].to_pandas().iloc[-1])  # a null key sorts last
    right_join = rt.merge(left, right, on="k", how="right")
    assert right_join["b"].tolist() == [0, 0, 1, 2, 3, 3]


def test_null_keys_match_each_other():
    left = rt.DataFrame({"k": ["a", None], "x": [1, 2]})
    right = rt.DataFrame({"k": [None, None, "a"], "y": [1, 2, 3]})
    result = left.merge(right, on="k")
    assert result["x"].tolist() == [1, 2, 2] and result["y"].tolist() == [3, 1, 2]


def test_nat_and_missing_categories_sort_first_as_in_pandas():
    for values in (pd.to_datetime(["2020-01-02", None, "2020-01-01"]), pd.Categorical(["b", None, "a"])):
        left = pd.DataFrame({"k": values, "x": [1, 2, 3]})
        right = pd.DataFrame({"k": values[::-1], "y": [1, 2, 3]})
        merge_both(left, right, on="k", how="outer")
        merge_both(left, right, on="k", how="inner", sort=True)


@pytest.mark.parametrize("how", HOWS + ["cross"])
@pytest.mark.parametrize("sizes", [(0, 3), (3, 0), (0, 0)])
def test_empty_frames(how, sizes):
    left = pd.DataFrame({"k": pd.Series([1, 2, 2], dtype="int64")[: sizes[0]], "a": [1.5, 2.5, 3.5][: sizes[0]]})
    right = pd.DataFrame({"k": pd.Series([2, 3, 2], dtype="int64")[: sizes[1]], "b": ["x", "y", "z"][: sizes[1]]})
    right["b"] = right["b"].astype("str")
    kwargs = {} if how == "cross" else {"on": "k"}
    merge_both(left, right, how=how, **kwargs)


@pytest.mark.parametrize("how", ["left", "outer", "left_anti"])
@pytest.mark.parametrize("empty", ["right", "left"])
def test_sorted_index_join_with_an_empty_side_keeps_tied_rows_in_order(how, empty):
    """The hypothesis example of test_merge_on_the_index_matches_pandas: an index join, sort=True, the right
    frame empty. pandas orders the left labels with NumPy's unstable argsort ([7, 7, 3, -2] comes out as rows
    3, 2, 1, 0); riptide keeps tied labels in row order (3, 2, 0, 1), which is pandas' order under a stable sort."""
    left = pd.DataFrame({"lid": [0, 1, 2, 3]}, index=pd.Index([7, 7, 3, -2], name="k0"))
    right = pd.DataFrame({"rid": pd.Series([], dtype="int64")}, index=pd.Index([], dtype="int64", name="k0"))
    ids = "lid"
    if empty == "left":  # the mirror image
        how = {"left": "right", "left_anti": "right_anti"}.get(how, how)
        left, right, ids = right.rename(columns={"rid": "lid"}), left.rename(columns={"lid": "rid"}), "rid"
    got = rt.merge(rt.from_pandas(left), rt.from_pandas(right), left_index=True, right_index=True, how=how, sort=True)
    assert got[ids].tolist() == [3, 2, 0, 1]
    assert got.index.tolist() == [-2, 3, 7, 7]
    merge_both(left, right, left_index=True, right_index=True, how=how, sort=True)


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
def test_string_categorical_and_datetime_keys(how):
    left = pd.DataFrame({
        "s": pd.Series(["é", "b", None, "中文", "b"], dtype="str"),
        "c": pd.Categorical(["x", "y", "x", None, "z"], categories=["z", "y", "x"]),
        "d": pd.to_datetime(["2020-01-01", None, "2021-06-30", "2020-01-01", "1999-12-31"]),
        "v": np.arange(5),
    })  # fmt: skip
    right = pd.DataFrame({
        "s": pd.Series(["b", "中文", None, "q"], dtype="str"),
        "c": pd.Categorical(["y", None, "x", "x"], categories=["x", "y", "z"]),
        "d": pd.to_datetime(["2020-01-01", None, "1999-12-31", "2000-01-01"]).astype("datetime64[s]"),
        "w": np.arange(4),
    })  # fmt: skip
    for on in (["s"], ["c"], ["d"], ["s", "c"], ["c", "d"]):
        merge_both(left, right, on=on, how=how)
        merge_both(left, right, on=on, how=how, sort=True)


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
def test_tz_aware_keys_of_other_zones_and_naive_keys(how):
    """Keys of two time zones match on the instant (the key in the left's zone; indexes joined in UTC); a naive key
    with a tz-aware one raises pandas' ValueError (TypeError for two indexes)."""
    stamps = pd.to_datetime(["2020-01-01", "2020-01-02", None], format="ISO8601")
    left = pd.DataFrame({"k": stamps.tz_localize("UTC"), "x": [1, 2, 3]})
    eastern = pd.to_datetime(["2019-12-31 19:00", "2020-01-03", None], format="ISO8601").tz_localize("America/New_York")
    for keys in (eastern, eastern.as_unit("ns"), left.k.dt.as_unit("ns"), stamps):
        right = pd.DataFrame({"k": keys, "y": [4, 5, 6]})
        merge_both(left, right, on="k", how=how)
        merge_both(right, left, on="k", how=how)
        for a, b in ((left, right), (right, left)):
            a, b = a.set_index("k"), b.set_index("k")
            check_same(lambda: a.join(b, how=how), lambda: rt.from_pandas(a).join(rt.from_pandas(b), how=how))


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
def test_categorical_keys_of_other_categories_between_columns(how):
    """db-benchmark's join q4: keys whose categories differ on each side are decoded (first, in riptide: they
    need the most scratch memory) and keep their place among the columns, as pandas places them."""
    left = pd.DataFrame({
        "a": np.arange(6),
        "k1": pd.Categorical(["p", "q", None, "p", "r", "q"]),
        "v": np.linspace(0, 1, 6),
        "k2": pd.Categorical(["x", "x", "y", "z", None, "y"], categories=["x", "y", "z", "w"]),
        "c": pd.Categorical(list("aabbcc")),
    })  # fmt: skip
    right = pd.DataFrame({
        "k1": pd.Categorical(["q", "p", "s", None]),
        "k2": pd.Categorical(["x", "y", "x", "y"]),
        "w": np.arange(4.0),
    })  # fmt: skip
    for on in (["k1"], ["k2"], ["k1", "k2"]):
        merge_both(left, right, on=on, how=how)


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
@pytest.mark.parametrize("kind", ["datetime", "category", "float"])
def test_index_joins_place_missing_labels_as_pandas(how, kind):
    # pandas orders missing labels last when it joins two unique indexes (or one with an empty one), and like
    # a merge (NaT and missing categories first) otherwise.
    def make(values):
        if kind == "datetime":
            return pd.DatetimeIndex(pd.to_datetime(values), name="i")
        if kind == "category":
            return pd.CategoricalIndex(values, categories=["2021", "2020", "2019"], name="i")
        return pd.Index([np.nan if v is None else float(v) for v in values], dtype="float64", name="i")

    cases = [(["2020", None, "2019"], [None, "2021"]), (["2020", None, None], [None, "2021", "2019"]),
             (["2020", None, "2019"], []), ([], [None, "2020"]), ([None, "2020"], [None, "2021"]),
             (["2021", "2020"], [None, "2019", "2019"])]  # fmt: skip
    for left_labels, right_labels in cases:
        left = pd.DataFrame({"x": range(len(left_labels))}, index=make(left_labels))
        right = pd.DataFrame({"y": range(len(right_labels))}, index=make(right_labels))
        for sort in (False, True):
            merge_both(left, right, left_index=True, right_index=True, how=how, sort=sort)


def test_many_to_many_duplicates_expand():
    left = rt.DataFrame({"k": [1, 1, 1], "a": [1, 2, 3]})
    right = rt.DataFrame({"k": [1, 1], "b": [4, 5]})
    result = rt.merge(left, right, on="k")
    assert result.shape == (6, 3)
    assert result["a"].tolist() == [1, 1, 2, 2, 3, 3] and result["b"].tolist() == [4, 5, 4, 5, 4, 5]


# --------------------------------------------------------------------------- columns: suffixes, keys, indicator


def test_suffixes_on_overlapping_columns():
    left = pd.DataFrame({"k": [1, 2], "v": [1, 2], "w": ["a", "b"]})
    right = pd.DataFrame({"k": [2, 3], "v": [3.5, 4.5], "w": ["c", "d"]})
    merge_both(left, right, on="k")
    merge_both(left, right, on="k", suffixes=("_left", "_right"), how="outer")
    merge_both(left, right, on="k", suffixes=("", "_r"))
    merge_both(left, right, on="k", suffixes=(None, "_r"))
    merge_both(left, right, left_on="k", right_on="v", how="outer")  # both k's stay, suffixed


def test_suffix_errors():
    left = pd.DataFrame({"k": [1], "v": [1]})
    right = pd.DataFrame({"k": [1], "v": [2], "v_x": [3]})
    merge_both(left, right, on="k")  # v_x would repeat: MergeError
    with pytest.raises(pd.errors.MergeError, match="duplicate columns"):
        rt.merge(rt.from_pandas(left), rt.from_pandas(right), on="k")
    with pytest.raises(ValueError, match="columns overlap but no suffix specified"):
        rt.merge(rt.from_pandas(left), rt.from_pandas(right), on="k", suffixes=(None, None))
    with pytest.raises(TypeError, match="Provide 'suffixes' as a tuple"):
        rt.merge(rt.from_pandas(left), rt.from_pandas(right), on="k", suffixes={"x": 1})


def test_outer_join_coalesces_the_key_column():
    left = pd.DataFrame({"k": [1, 2], "a": [1, 2]})
    right = pd.DataFrame({"k": [3.0, 2.0], "b": [1, 2]})
    for how in ("outer", "right"):
        merge_both(left, right, on="k", how=how)
    result = rt.merge(rt.from_pandas(left), rt.from_pandas(right), on="k", how="outer")
    assert result["k"].tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("indicator", [True, "source"])
@pytest.mark.parametrize("how", ["inner", "left", "right", "outer", "cross"])
def test_indicator(indicator, how):
    left = pd.DataFrame({"k": [1, 2, 2], "a": [1, 2, 3]})
    right = pd.DataFrame({"k": [2, 3], "b": [4, 5]})
    kwargs = {} if how == "cross" else {"on": "k"}
    merge_both(left, right, how=how, indicator=indicator, **kwargs)
    result = rt.merge(rt.from_pandas(left), rt.from_pandas(right), how=how, indicator=indicator, **kwargs)
    name = "_merge" if indicator is True else indicator
    assert list(result.columns)[-1] == name
    assert list(result[name].dtype.categories) == ["left_only", "right_only", "both"]


def test_indicator_errors():
    left, right = pd.DataFrame({"k": [1], "a": [1]}), pd.DataFrame({"k": [1], "_merge": [1]})
    merge_both(left, right, on="k", indicator=True)
    with pytest.raises(ValueError, match="existing column"):
        rt.merge(rt.from_pandas(left), rt.from_pandas(right), on="k", indicator=True)
    with pytest.raises(ValueError, match="_left_indicator"):
        rt.merge(rt.from_pandas(left.assign(_left_indicator=1)), rt.from_pandas(left), on="k", indicator="x")
    with pytest.raises(ValueError, match="boolean or string"):
        rt.merge(rt.from_pandas(left), rt.from_pandas(left), on="k", indicator=1)


def test_keys_by_index_level_name_become_the_index():
    left = pd.DataFrame({"k": [1, 2, 2], "a": [1, 2, 3]}).set_index("k")
    right = pd.DataFrame({"k": [2, 3], "b": [4, 5]}).set_index("k")
    for how in ["inner", "left", "right", "outer"]:
        merge_both(left, right, on="k", how=how)
        merge_both(left, right.reset_index(), on="k", how=how)
    both = pd.DataFrame({"k": [1, 2], "j": ["x", "y"], "a": [1, 2]}).set_index(["k", "j"])
    other = pd.DataFrame({"k": [2, 2], "j": ["y", "z"], "b": [4, 5]}).set_index(["k", "j"])
    merge_both(both, other, on=["k", "j"], how="outer")


def test_array_keys_are_used_like_columns():
    left = pd.DataFrame({"a": [1, 2, 3]})
    right = pd.DataFrame({"b": [3, 1]})
    for how in ["inner", "outer"]:
        merge_both(left, right, left_on=np.array([1, 2, 3]), right_on=np.array([3, 1]), how=how)
        merge_both(left, right, left_on="a", right_on=np.array([3, 1]), how=how)
    got = rt.merge(rt.from_pandas(left), rt.from_pandas(right), left_on=rt.Series([1, 2, 3]), right_on="b")
    assert got["a"].tolist() == [1, 3]


def test_series_as_right_and_left():
    frame = pd.DataFrame({"k": [1, 2, 3], "a": [1, 2, 3]})
    named = pd.Series([10, 20], index=[3, 1], name="s")
    merge_both(frame, named, left_on="k", right_index=True, how="left")
    check_same(lambda: pd.merge(named, frame, left_index=True, right_on="k"),
               lambda: rt.merge(rt.from_pandas(named), rt.from_pandas(frame), left_index=True, right_on="k"))
    with pytest.raises(ValueError, match="Cannot merge a Series without a name"):
        rt.merge(rt.from_pandas(frame), rt.Series([1, 2]))
    with pytest.raises(TypeError, match="Can only merge Series or DataFrame"):
        rt.merge(rt.from_pandas(frame), [1, 2])


def test_join_on_index_and_suffix_keywords():
    left = pd.DataFrame({"v": [1, 2, 3]}, index=pd.Index(["a", "b", "c"], name="key"))
    right = pd.DataFrame({"v": [10, 30]}, index=["a", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = left.join(right, lsuffix="_l", rsuffix="_r")
    with pytest.warns(pd.errors.Pandas4Warning):
        got = rt.from_pandas(left).join(rt.from_pandas(right), lsuffix="_l", rsuffix="_r")
    assert_merged(got, expected)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = left.join(right, rsuffix="_r", how="outer")  # pandas < 3.1 has no ``suffixes`` here
    assert_merged(rt.from_pandas(left).join(rt.from_pandas(right), suffixes=("", "_r"), how="outer"), expected)
    with pytest.raises(ValueError, match="columns overlap"):
        rt.from_pandas(left).join(rt.from_pandas(right))
    with pytest.raises(ValueError, match="Other Series must have a name"):
        rt.from_pandas(left).join(rt.Series([1, 2, 3]))
    with pytest.raises(ValueError, match="overlapping values"):
        rt.from_pandas(left).join([rt.from_pandas(right), rt.from_pandas(right)])


# --------------------------------------------------------------------------- validate


@pytest.mark.parametrize("validate", ["one_to_one", "1:1", "one_to_many", "1:m", "many_to_one", "m:1",
                                      "many_to_many", "m:m", "bogus"])  # fmt: skip
@pytest.mark.parametrize("keys", [([1, 2, 3], [1, 2]), ([1, 1, None, None], [2, 3]), ([1, 2], [1, 1, 5]),
                                  ([1, 1], [1, 1])])  # fmt: skip
def test_validate(validate, keys):
    left = pd.DataFrame({"k": keys[0], "a": range(len(keys[0]))})
    right = pd.DataFrame({"k": keys[1], "b": range(len(keys[1]))})
    expected, error = _outcome(lambda: left.merge(right, on="k", validate=validate))
    if error is None:
        assert_merged(rt.from_pandas(left).merge(rt.from_pandas(right), on="k", validate=validate), expected)
        return
    with pytest.raises(type(error)) as raised:
        rt.from_pandas(left).merge(rt.from_pandas(right), on="k", validate=validate)
    assert str(raised.value) == str(error)


def test_validate_on_indexes_quotes_the_duplicates():
    left = pd.DataFrame({"a": [1, 2, 3]}, index=pd.Index([5, 5, 6], name="i"))
    right = pd.DataFrame({"b": [1, 2]}, index=[5, 6])
    _, error = _outcome(lambda: left.merge(right, left_index=True, right_index=True, validate="1:1"))
    with pytest.raises(pd.errors.MergeError) as raised:
        rt.from_pandas(left).merge(rt.from_pandas(right), left_index=True, right_index=True, validate="1:1")
    assert str(raised.value) == str(error)


# --------------------------------------------------------------------------- bad input


def test_missing_key_raises_key_error_naming_it():
    left, right = rt.DataFrame({"k": [1], "a": [1]}), rt.DataFrame({"k": [1], "b": [1]})
    with pytest.raises(KeyError, match="nope"):
        rt.merge(left, right, on="nope")
    with pytest.raises(KeyError, match="nope"):
        rt.merge(left, right, left_on="k", right_on="nope")


@pytest.mark.parametrize("left_values, right_values", [
    ([1, 2], ["1", "2"]),
    ([1.5, 2.5], ["a", "b"]),
    (pd.to_datetime(["2020-01-01"]), [1]),
    (pd.to_datetime(["2020-01-01"]), pd.to_timedelta([1], unit="s")),
    (pd.array([1, None], dtype="Int64"), pd.array(["x", None], dtype="str")),
])  # fmt: skip
def test_incompatible_key_dtypes_raise_pandas_value_error(left_values, right_values):
    left = pd.DataFrame({"k": left_values})
    right = pd.DataFrame({"k": right_values})
    _, error = _outcome(lambda: left.merge(right, on="k"))
    with pytest.raises(ValueError) as raised:
        rt.from_pandas(left).merge(rt.from_pandas(right), on="k")
    assert str(raised.value) == str(error)


def test_keys_pandas_compares_as_objects_are_refused():
    left, right = rt.DataFrame({"k": [1, 0]}), rt.DataFrame({"k": [True, False]})
    with pytest.raises(TypeError, match="object"):
        rt.merge(left, right, on="k")


def test_invalid_how_lists_the_valid_ones():
    left = rt.DataFrame({"k": [1]})
    with pytest.raises(ValueError, match="'sideways' is not a valid Merge type: left, right, inner, outer"):
        rt.merge(left, left, on="k", how="sideways")


@pytest.mark.parametrize("kwargs, message", [
    ({"on": "k", "left_on": "k"}, 'Can only pass argument "on" OR "left_on"'),
    ({"on": "k", "left_index": True}, 'Can only pass argument "on" OR "left_index"'),
    ({"left_index": True}, "Must pass right_on or right_index=True"),
    ({"right_index": True}, "Must pass left_on or left_index=True"),
    ({"left_on": "k"}, 'Must pass "right_on" OR "right_index"'),
    ({"left_on": "k", "left_index": True, "right_index": True}, 'Can only pass argument "left_on" OR "left_index"'),
    ({"left_on": ["k", "a"], "right_on": ["k"]}, "len\\(right_on\\) must equal len\\(left_on\\)"),
    ({"how": "cross", "on": "k"}, "Can not pass on, right_on, left_on"),
])  # fmt: skip
def test_specification_errors(kwargs, message):
    left, right = pd.DataFrame({"k": [1], "a": [2]}), pd.DataFrame({"k": [1], "b": [2]})
    _, error = _outcome(lambda: pd.merge(left, right, **kwargs))
    with pytest.raises(type(error), match=message):
        rt.merge(rt.from_pandas(left), rt.from_pandas(right), **kwargs)


def test_no_common_columns():
    with pytest.raises(pd.errors.MergeError, match="No common columns to perform merge on"):
        rt.merge(rt.DataFrame({"a": [1]}), rt.DataFrame({"b": [1]}))


def test_int_and_fractional_float_keys_warn():
    left, right = pd.DataFrame({"k": [1, 2]}), pd.DataFrame({"k": [1.0, 2.5]})
    with pytest.warns(UserWarning, match="float values are not equal to their int representation"):
        got = rt.merge(rt.from_pandas(left), rt.from_pandas(right), on="k")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_merged(got, left.merge(right, on="k"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rt.merge(rt.from_pandas(left), rt.from_pandas(pd.DataFrame({"k": [1.0, np.nan]})), on="k")


def test_copy_keyword_is_deprecated():
    frame = rt.DataFrame({"k": [1]})
    with pytest.warns(pd.errors.Pandas4Warning, match="copy keyword is deprecated"):
        rt.merge(frame, frame, on="k", copy=True)


def test_multiindex_join_is_not_supported_yet():
    frame = rt.from_pandas(pd.DataFrame({"a": [1], "b": [2], "v": [3]}).set_index(["a", "b"]))
    with pytest.raises(NotImplementedError, match="MultiIndex"):
        rt.merge(frame, frame, left_index=True, right_index=True)


# --------------------------------------------------------------------------- device memory guard


def test_a_join_too_large_for_device_memory_raises_memory_error(monkeypatch):
    monkeypatch.setattr(joins, "free_device_bytes", lambda xp: 1000)
    left = rt.DataFrame({"k": [1] * 20, "a": range(20)})
    with pytest.raises(MemoryError, match=r"would produce 400 rows, about .* \(estimated"):
        rt.merge(left, left, on="k")
    with pytest.raises(MemoryError, match="400 rows"):
        rt.merge(left, left, how="cross")
    small = rt.DataFrame({"k": [1, 2], "a": [1, 2]})
    assert len(rt.merge(small, small, on="k")) == 2  # 2 rows fit in 1000 bytes


@pytest.mark.gpu
def test_huge_joins_raise_memory_error_on_the_gpu_without_allocating():
    import cupy

    n = 1_000_000
    left = rt.DataFrame({"k": cupy.zeros(n, dtype=np.int64), "a": cupy.arange(n)})
    with pytest.raises(MemoryError, match=r"1,000,000,000,000 rows"):
        rt.merge(left, left, how="cross")
    with pytest.raises(MemoryError, match=r"1,000,000,000,000 rows"):
        rt.merge(left, left, on="k")


@pytest.mark.gpu
def test_merge_results_stay_on_the_gpu():
    import cupy

    left = rt.DataFrame({"k": cupy.arange(100_000) % 1000, "a": cupy.arange(100_000)})
    right = rt.DataFrame({"k": cupy.arange(2000), "b": cupy.arange(2000) * 2})
    result = rt.merge(left, right, on="k", how="left")
    assert isinstance(result["b"].values, cupy.ndarray)
    expected = pd.merge(left.to_pandas(), right.to_pandas(), on="k", how="left")
    assert_merged(result, expected)


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
@pytest.mark.parametrize("sort", [False, True])
def test_categorical_keys_with_other_categories_match_by_value(how, sort):
    """Categoricals whose categories differ are matched through their values (codes into the union of the
    categories), missing keys matching each other; the key columns come out as strings, as in pandas."""
    rng = np.random.default_rng(7)
    left_labels, right_labels = ["b", "é", "a", "zz", "中"], ["zz", "q", "b", "a"]
    left = pd.DataFrame({"k": pd.Categorical(rng.choice(left_labels + [None], 40), categories=left_labels),
                         "v": np.arange(40)})  # fmt: skip
    right = pd.DataFrame({"k": pd.Categorical(rng.choice(right_labels + [None], 12), categories=right_labels),
                          "w": np.arange(12)})  # fmt: skip
    merge_both(left, right, on="k", how=how, sort=sort)
    if how in ("right", "outer"):
        return  # pandas 3.1 fails an internal assertion on these for numeric categories
    numbers = pd.DataFrame({"k": pd.Categorical([1, 2, 3, 2]), "v": range(4)})
    merge_both(numbers, pd.DataFrame({"k": pd.Categorical([2, 5]), "w": range(2)}), on="k", how=how, sort=sort)
    merge_both(numbers, pd.DataFrame({"k": pd.Categorical(["2", "5"]), "w": range(2)}), on="k", how=how, sort=sort)
