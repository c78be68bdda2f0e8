"""``merge_asof`` against pandas 3: values, dtypes, index, column order and suffixes, and errors.

Random keys come from small pools, so equal keys on both sides (exact matches, ties between several right rows,
nearest ties between a backward and a forward row) are the rule; by-groups are drawn so that some left groups
have no right rows at all.
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

DIRECTIONS = ["backward", "forward", "nearest"]


# --------------------------------------------------------------------------- helpers


def check(left: pd.DataFrame, right: pd.DataFrame, **kwargs) -> None:
    """riptide's merge_asof of the riptide twins equals pandas' (or raises the same exception type and message)."""
    try:
        expected = pd.merge_asof(left, right, **kwargs)
    except Exception as error:  # noqa: BLE001 - the oracle's error is data here
        with pytest.raises(type(error) if not isinstance(error, TypeError) else TypeError) as info:
            rt.merge_asof(rt.from_pandas(left), rt.from_pandas(right), **kwargs)
        if not isinstance(error, TypeError | KeyError):
            assert str(info.value) == str(error)
        return
    got = rt.merge_asof(rt.from_pandas(left), rt.from_pandas(right), **kwargs)
    assert isinstance(got, rt.DataFrame)
    pdt.assert_frame_equal(got.to_pandas(), expected, check_dtype=True)


def _sorted_keys(rng: np.random.Generator, n: int, pool: int, kind: str) -> np.ndarray:
    keys = np.sort(rng.integers(0, pool, size=n))
    if kind == "float":
        return keys / 2.0
    if kind == "datetime":
        return (np.datetime64("2024-01-01", "ns") + keys.astype("timedelta64[m]")).astype("datetime64[ns]")
    if kind == "uint":
        return keys.astype(np.uint32)
    return keys


def _frames(seed: int, n_left: int, n_right: int, pool: int, kind: str, n_groups: int, n_by: int):
    rng = np.random.default_rng(seed)
    left = pd.DataFrame({"t": _sorted_keys(rng, n_left, pool, kind), "x": rng.integers(0, 100, n_left)})
    right = pd.DataFrame({"t": _sorted_keys(rng, n_right, pool, kind), "y": rng.integers(0, 100, n_right),
                          "z": rng.random(n_right)})  # fmt: skip
    by = []
    for j in range(n_by):
        name = f"g{j}"
        # the left side draws from one more group than the right, which then has no right rows
        left[name] = rng.integers(0, n_groups + 1, n_left)
        right[name] = rng.integers(0, n_groups, n_right) if n_groups else np.zeros(n_right, dtype=np.int64)
        if j == 1:
            left[name] = pd.Series([f"k{v}é" for v in left[name]], dtype="str")
            right[name] = pd.Series([f"k{v}é" for v in right[name]], dtype="str")
        by.append(name)
    return left, right, by


def _tolerance(kind: str, value: int):
    if kind == "datetime":
        return pd.Timedelta(minutes=value)
    if kind == "float":
        return value / 2.0
    return value


# --------------------------------------------------------------------------- random keys


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), n_left=st.integers(0, 40), n_right=st.integers(0, 40),
       pool=st.sampled_from([3, 10, 60]), kind=st.sampled_from(["int", "float", "datetime", "uint"]),
       n_groups=st.integers(1, 4), n_by=st.integers(0, 2), direction=st.sampled_from(DIRECTIONS),
       allow_exact=st.booleans(), tolerance=st.sampled_from([None, 0, 1, 3]))  # fmt: skip
def test_random_sorted_keys(seed, n_left, n_right, pool, kind, n_groups, n_by, direction, allow_exact, tolerance):
    left, right, by = _frames(seed, n_left, n_right, pool, kind, n_groups, n_by)
    tol = None if tolerance is None else _tolerance(kind, tolerance)
    check(left, right, on="t", by=by or None, direction=direction, allow_exact_matches=allow_exact, tolerance=tol)


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 2000), direction=st.sampled_from(DIRECTIONS))
def test_random_larger(seed, n, direction):
    left, right, by = _frames(seed, n, n // 2 + 1, 5 * n, "int", 7, 1)
    check(left, right, on="t", by=by, direction=direction, tolerance=10)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_large_by_groups(direction):
    # enough rows for the GPU's hash-table grouping of the by-keys (16384 and more)
    left, right, by = _frames(7, 20_000, 15_000, 50_000, "datetime", 300, 2)
    check(left, right, on="t", by=by, direction=direction, tolerance=pd.Timedelta(minutes=20))


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_nearest_ties_and_exact(direction):
    # 5 lies between 4 and 6 (a nearest tie: pandas takes the backward row); several right rows share a key.
    left = pd.DataFrame({"t": [0, 2, 5, 5, 8, 20], "x": range(6)})
    right = pd.DataFrame({"t": [2, 2, 4, 6, 6, 8], "y": [10, 11, 12, 13, 14, 15]})
    for exact in (True, False):
        check(left, right, on="t", direction=direction, allow_exact_matches=exact)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_infinite_and_signed_zero_keys(direction):
    left = pd.DataFrame({"t": [-np.inf, -0.0, 1.0, np.inf], "x": range(4)})
    right = pd.DataFrame({"t": [-np.inf, -np.inf, 0.0, 0.0, np.inf, np.inf], "y": range(6)})
    for exact in (True, False):
        check(left, right, on="t", direction=direction, allow_exact_matches=exact)
        check(left, right, on="t", direction=direction, allow_exact_matches=exact, tolerance=1.5)


# --------------------------------------------------------------------------- key and by dtypes


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint8", "uint64", "float32", "float64", "Int64", "Float64",
                                   "bool", "timedelta64[ns]"])  # fmt: skip
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_on_dtypes(dtype, direction):
    if dtype == "bool":
        lt, rt_ = [False, False, True], [False, True]
    else:
        lt, rt_ = [1, 3, 5, 9], [0, 3, 4, 10]
    left = pd.DataFrame({"t": pd.Series(lt).astype(dtype), "x": range(len(lt))})
    right = pd.DataFrame({"t": pd.Series(rt_).astype(dtype), "y": range(len(rt_))})
    check(left, right, on="t", direction=direction)
    check(left, right, on="t", direction=direction, allow_exact_matches=False)
    tolerance = {"bool": None, "timedelta64[ns]": pd.Timedelta(1), "float32": 0.9}.get(dtype, 1)
    check(left, right, on="t", direction=direction, tolerance=tolerance)


@pytest.mark.parametrize("tz", [None, "UTC", "Europe/Berlin", "America/New_York"])
@pytest.mark.parametrize("unit", ["s", "ns"])
def test_datetime_keys_and_timedelta_tolerance(tz, unit):
    times = pd.to_datetime(["2024-03-10 01:00", "2024-03-10 01:30", "2024-03-10 03:00", "2024-03-10 05:00"])
    quotes = pd.to_datetime(["2024-03-10 00:59", "2024-03-10 01:00", "2024-03-10 02:00", "2024-03-10 04:58"])
    if tz is not None:
        times, quotes = times.tz_localize("UTC").tz_convert(tz), quotes.tz_localize("UTC").tz_convert(tz)
    left = pd.DataFrame({"time": times.as_unit(unit), "sym": ["a", "b", "a", "b"], "qty": [1, 2, 3, 4]})
    right = pd.DataFrame({"time": quotes.as_unit(unit), "sym": ["a", "a", "b", "b"], "bid": [1.5, 2.5, 3.5, 4.5]})
    for direction in DIRECTIONS:
        check(left, right, on="time", direction=direction)
        check(left, right, on="time", by="sym", direction=direction)
        check(left, right, on="time", direction=direction, tolerance=pd.Timedelta("2min"))
        check(left, right, on="time", by="sym", direction=direction, tolerance=datetime.timedelta(hours=1))


@pytest.mark.parametrize("by_dtype", ["int64", "float64", "Int64", "str", "category", "datetime64[ns]", "bool"])
def test_by_dtypes_with_missing(by_dtype):
    values = {"int64": ([1, 2, 1, 3], [2, 1, 1]),
              "float64": ([1.0, np.nan, 2.0, 3.0], [np.nan, 2.0, 1.0]),
              "Int64": ([1, None, 2, 3], [None, 2, 1]),
              "str": (["a", None, "b", "ü"], [None, "b", "a"]),
              "category": (["a", None, "b", "ü"], [None, "b", "a"]),
              "datetime64[ns]": (["2020", None, "2021", "2022"], [None, "2021", "2020"]),
              "bool": ([True, False, True, False], [True, True, False])}[by_dtype]  # fmt: skip
    lg, rg = values
    if by_dtype == "category":
        cats = pd.CategoricalDtype(["a", "b", "ü"])
        lg, rg = pd.Series(lg, dtype=cats), pd.Series(rg, dtype=cats)
    elif by_dtype == "datetime64[ns]":
        lg, rg = pd.to_datetime(pd.Series(lg)).astype(by_dtype), pd.to_datetime(pd.Series(rg)).astype(by_dtype)
    else:
        lg, rg = pd.Series(lg, dtype=by_dtype), pd.Series(rg, dtype=by_dtype)
    left = pd.DataFrame({"t": [1, 2, 3, 4], "g": lg, "x": [10, 20, 30, 40]})
    right = pd.DataFrame({"t": [0, 1, 2], "g": rg, "v": [1, 2, 3]})
    for direction in DIRECTIONS:
        check(left, right, on="t", by="g", direction=direction)


def test_categorical_by_with_permuted_categories():
    left = pd.DataFrame({"t": [1, 2, 3], "g": pd.Categorical(["a", "b", "a"], categories=["a", "b"])})
    right = pd.DataFrame({"t": [0, 1, 2], "g": pd.Categorical(["b", "a", "b"], categories=["b", "a"]), "v": [1, 2, 3]})
    check(left, right, on="t", by="g")


def test_several_by_keys_with_left_by_right_by():
    left = pd.DataFrame({"t": [1, 2, 3, 4, 5], "a": [1, 1, 2, 2, 1], "b": ["x", "y", "x", "y", "x"]})
    right = pd.DataFrame({"t": [0, 1, 2, 3], "ra": [1, 1, 2, 1], "rb": ["x", "y", "x", "x"], "v": [1, 2, 3, 4]})
    for direction in DIRECTIONS:
        check(left, right, on="t", left_by=["a", "b"], right_by=["ra", "rb"], direction=direction)


def test_categorical_on_key_with_numbers():
    dtype = pd.CategoricalDtype([1, 5, 10, 2, 6])
    left = pd.DataFrame({"t": pd.Series([1, 5, 10], dtype=dtype), "x": [1, 2, 3]})
    right = pd.DataFrame({"t": pd.Series([2, 6], dtype=dtype), "y": [1, 2]})
    check(left, right, on="t", direction="nearest")


# --------------------------------------------------------------------------- forms: on, left_on/right_on, index


LEFT = pd.DataFrame({"t": [1, 5, 10], "a": ["x", "y", "z"], "g": [1, 2, 1]}, index=[10, 20, 30])
RIGHT = pd.DataFrame({"t": [1, 2, 3, 6, 7], "b": [1, 2, 3, 6, 7], "g": [1, 1, 2, 2, 1]},
                     index=[100, 200, 300, 400, 500])  # fmt: skip


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("by", [None, "g"])
@pytest.mark.parametrize("tolerance", [None, 1])
def test_forms(direction, by, tolerance):
    kw = {"direction": direction, "by": by, "tolerance": tolerance}
    check(LEFT, RIGHT, on="t", **kw)
    check(LEFT.rename(columns={"t": "lt"}), RIGHT, left_on="lt", right_on="t", **kw)
    check(LEFT.set_index("t"), RIGHT, left_index=True, right_on="t", **kw)
    check(LEFT, RIGHT.set_index("t"), left_on="t", right_index=True, **kw)
    check(LEFT.set_index("t"), RIGHT.set_index("t"), left_index=True, right_index=True, **kw)
    check(LEFT.set_index("t"), RIGHT.set_index("t"), left_on="t", right_on="t", **kw)  # index levels by name


def test_suffixes_and_default_on():
    check(LEFT, RIGHT, on="t", suffixes=("_left", "_right"))
    check(LEFT, RIGHT, on="t", suffixes=("", "_r"))
    check(LEFT[["t", "a"]], RIGHT[["t", "b"]])  # the one common column
    check(LEFT, RIGHT)  # two common columns: an error


def test_series_operands():
    left = pd.Series([1, 5, 10], name="t")
    right = pd.DataFrame({"t": [2, 4], "v": [1, 2]})
    expected = pd.merge_asof(left, right, on="t")
    pdt.assert_frame_equal(rt.merge_asof(rt.from_pandas(left), rt.from_pandas(right), on="t").to_pandas(), expected)
    with pytest.raises(ValueError, match="without a name"):
        rt.merge_asof(rt.Series([1, 2]), rt.from_pandas(right), on="t")


# --------------------------------------------------------------------------- edge cases


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_empty_and_one_row(direction):
    left = pd.DataFrame({"t": [1, 5], "g": ["a", "b"], "x": [1, 2]})
    right = pd.DataFrame({"t": [3], "g": ["b"], "y": [7]})
    for lo, ro in [(left.iloc[:0], right), (left, right.iloc[:0]), (left.iloc[:0], right.iloc[:0]),
                   (left.iloc[:1], right), (left, right)]:  # fmt: skip
        check(lo, ro, on="t", direction=direction)
        check(lo, ro, on="t", by="g", direction=direction)
    check(left.iloc[:0], right.set_index("t"), left_on="t", right_index=True, direction=direction)


def test_no_by_group_on_the_right():
    left = pd.DataFrame({"t": [1, 2, 3], "g": ["中", "😀", "中"], "x": [1, 2, 3]})
    right = pd.DataFrame({"t": [0, 1, 2], "g": ["ß", "ß", "Ω"], "y": [1, 2, 3]})
    for direction in DIRECTIONS:
        check(left, right, on="t", by="g", direction=direction)


def test_int_columns_become_float_and_others_missing():
    left = pd.DataFrame({"t": [0, 5]})
    right = pd.DataFrame({"t": [3], "i": [1], "s": ["a"], "b": [True], "d": pd.to_datetime(["2020"]),
                          "c": pd.Categorical(["q"])})  # fmt: skip
    got = rt.merge_asof(rt.from_pandas(left), rt.from_pandas(right), on="t").to_pandas()
    expected = pd.merge_asof(left, right, on="t")
    expected["b"] = expected["b"].astype("boolean")  # riptide's documented bool-with-missing dtype (pandas: object)
    pdt.assert_frame_equal(got, expected)


def test_left_rows_keep_their_index_with_left_index():
    left = pd.DataFrame({"x": [1, 2, 3]}, index=pd.Index([1.0, 2.5, 7.0], name="t"))
    right = pd.DataFrame({"t": [2.0, 3.0], "y": [1, 2]})
    check(left, right, left_index=True, right_on="t", direction="nearest")


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("left_t, right_t", [([2, 1], [1, 2]), ([1, 2], [2, 1]), ([2, 1], [2, 1]),
                                             ([np.nan, 1.0], [1.0, 2.0]), ([1.0], [1.0, np.nan]),
                                             ([np.nan], [1.0]), ([1.0, 0.5], [np.nan])])  # fmt: skip
def test_unsorted_or_missing_keys(left_t, right_t):
    left = pd.DataFrame({"t": left_t})
    right = pd.DataFrame({"t": right_t, "v": range(len(right_t))})
    check(left, right, on="t")


def test_missing_keys_masked_and_datetime():
    check(pd.DataFrame({"t": pd.array([1, None], dtype="Int64")}), pd.DataFrame({"t": pd.array([1], dtype="Int64")}),
          on="t")  # fmt: skip
    times = pd.to_datetime([None, "2020"]).as_unit("ns")
    check(pd.DataFrame({"t": pd.to_datetime(["2020"]).as_unit("ns")}), pd.DataFrame({"t": times}), on="t")


def test_unsorted_by_is_fine_but_keys_must_be_sorted_as_a_whole():
    left = pd.DataFrame({"t": [1, 2, 3], "g": [2, 1, 2]})
    right = pd.DataFrame({"t": [1, 0], "g": [1, 2], "v": [1, 2]})  # sorted within each group, not as a whole
    check(left, right, on="t", by="g")


@pytest.mark.parametrize("left_t, right_t", [([1, 2], [1.0, 2.0]), (np.array([1, 2], dtype=np.int32), [1, 2]),
                                             (pd.to_datetime(["2020"]).as_unit("s"), pd.to_datetime(["2020"]).as_unit("ns")),
                                             (pd.to_datetime(["2020"]).tz_localize("UTC"), pd.to_datetime(["2020"])),
                                             (["a", "b"], ["a", "b"]), ([1, 2], ["a", "b"]),
                                             (pd.Categorical(["a"]), pd.Categorical(["a"])),
                                             (pd.Categorical([1]), pd.Categorical([2]))])  # fmt: skip
def test_incompatible_keys(left_t, right_t):
    check(pd.DataFrame({"t": left_t}), pd.DataFrame({"t": right_t, "v": range(len(right_t))}), on="t")


def test_incompatible_by_keys():
    left = pd.DataFrame({"t": [1, 2], "g": [1, 2]})
    check(left, pd.DataFrame({"t": [1], "g": [1.0]}), on="t", by="g")
    check(left, pd.DataFrame({"t": [1], "g": ["1"]}), on="t", by="g")
    cats = pd.DataFrame({"t": [1, 2], "g": pd.Categorical(["a", "b"])})
    check(cats, pd.DataFrame({"t": [1], "g": pd.Categorical(["a"])}), on="t", by="g")


@pytest.mark.parametrize("kind, tolerance", [("int", 1.5), ("int", -1), ("int", pd.Timedelta(1)), ("int", True),
                                             ("int", np.int64(1)), ("float", 1), ("float", -0.5),
                                             ("float", pd.Timedelta(1)), ("datetime", 1),
                                             ("datetime", pd.Timedelta("-1D")), ("datetime", np.timedelta64(1, "D")),
                                             ("datetime", datetime.timedelta(days=1)), ("bool", 1)])  # fmt: skip
def test_tolerance_types(kind, tolerance):
    values = {"int": [1, 2, 3], "float": [1.0, 2.0, 3.0], "bool": [False, True, True],
              "datetime": pd.to_datetime([1, 2, 3], unit="D")}[kind]  # fmt: skip
    left = pd.DataFrame({"t": values})
    right = pd.DataFrame({"t": values[:2], "v": [1, 2]})
    check(left, right, on="t", tolerance=tolerance)


def test_argument_errors():
    left = pd.DataFrame({"t": [1, 2, 3], "u": 1, "w": 2})
    right = pd.DataFrame({"t": [1, 2], "u": 1, "v": [1, 2]})
    check(left, right, on="t", direction="near")
    check(left, right, on="t", allow_exact_matches="yes")
    check(left, right, on="t", allow_exact_matches=0)
    check(left, right, on="t", allow_exact_matches=np.bool_(False))
    check(left, right, on=["t", "u"])
    check(left, right, on="t", by="u", left_by="u")
    check(left, right, on="t", left_by="u")
    check(left, right, on="t", right_by="u")
    check(left, right, on="t", left_by=["u", "w"], right_by="u")
    check(left, right, on="t", by="zz")
    check(left, right, on="zz")
    check(left.set_index(["t", "u"]), right, left_index=True, right_on="t")
    check(left, right.set_index(["t", "u"]), left_on="t", right_index=True)
    check(left, right, left_index=True)
    with pytest.raises(TypeError, match="Can only merge Series or DataFrame"):
        rt.merge_asof([1, 2], rt.from_pandas(right), on="t")
