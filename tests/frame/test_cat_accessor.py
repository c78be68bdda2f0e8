"""Series.cat against pandas: random categoricals (unicode strings, ints, floats, datetimes; missing codes;
ordered or not; empty; unused categories) through every accessor method, plus pandas' errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import assert_index_equal, assert_series_equal, check_same_outcome, random_text

# --------------------------------------------------------------------------- random categoricals

KINDS = ["str", "int", "float", "datetime"]


def _pool(kind: str, rng: np.random.Generator, size: int) -> list[Any]:
    """``size`` distinct values of ``kind`` (the categories and the candidates for new ones come from here)."""
    if kind == "str":
        values: dict[str, None] = {}
        while len(values) < size:
            values[random_text(rng) + str(len(values) % 3)] = None  # unicode, a few shared prefixes
        return list(values)
    if kind == "int":
        return [int(v) for v in rng.permutation(np.arange(-size, size * 3))[:size]]
    if kind == "float":
        return [float(v) / 4 for v in rng.permutation(np.arange(-size, size * 3))[:size]]
    stamps = rng.permutation(np.arange(size * 4))[:size]
    return list(pd.to_datetime(stamps, unit="D"))


@st.composite
def cat_case(draw: Any) -> tuple[pd.Series, list[Any], np.random.Generator]:
    """A categorical pandas Series, a pool of values not among its categories, and a seeded generator."""
    kind = draw(st.sampled_from(KINDS))
    n_categories = draw(st.sampled_from([0, 1, 2, 3, 5, 8, 130]))  # 130: int16 codes
    n_rows = draw(st.sampled_from([0, 1, 2, 7, 40, 300]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pool = _pool(kind, rng, n_categories + 6)
    categories, others = pool[:n_categories], pool[n_categories:]
    null_frac = draw(st.sampled_from([0.0, 0.2, 1.0]))
    # Few rows over many categories leave categories unused; rows missing everywhere use none.
    codes = rng.integers(0, max(n_categories, 1), size=n_rows) if n_categories else np.full(n_rows, -1)
    codes[rng.random(n_rows) < null_frac] = -1
    ordered = draw(st.booleans())
    dtype = pd.CategoricalDtype(pd.Index(categories, dtype=_index_dtype(kind)), ordered=ordered)
    values = pd.Categorical.from_codes(codes, dtype=dtype)
    index = pd.RangeIndex(n_rows) if draw(st.booleans()) else pd.Index(rng.permutation(n_rows * 2)[:n_rows])
    series = pd.Series(values, index=index, name=draw(st.sampled_from([None, "x"])))
    return series, others, rng


def _index_dtype(kind: str) -> Any:
    return {"str": "str", "int": "int64", "float": "float64", "datetime": "datetime64[ns]"}[kind]


def _pick(rng: np.random.Generator, values: list[Any], k: int) -> list[Any]:
    k = min(k, len(values))
    return [values[i] for i in rng.permutation(len(values))[:k]]


# --------------------------------------------------------------------------- comparison


def _same_categorical(got: Any, expected: pd.Series) -> None:
    """Values, dtype (categories, their dtype and order, ordered), index and name; the codes' width too."""
    assert isinstance(got, rt.Series), type(got)
    # riptide's to_pandas rebuilds the codes at pandas' default width, so the width is compared through .cat.codes.
    normalized = pd.Series(pd.Categorical.from_codes(np.asarray(expected.cat.codes), dtype=expected.dtype),
                           index=expected.index, name=expected.name)  # fmt: skip
    assert_series_equal(got, normalized)
    assert_series_equal(got.cat.codes, expected.cat.codes)
    assert got.cat.ordered == expected.cat.ordered


def _check(series: pd.Series, method: str, *args: Any, **kwargs: Any) -> None:
    frame = rt.from_pandas(series)
    check_same_outcome(lambda: getattr(frame.cat, method)(*_riptide_args(args), **kwargs),
                       lambda: getattr(series.cat, method)(*args, **kwargs), _same_categorical)  # fmt: skip


def _riptide_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(rt.from_pandas(a) if isinstance(a, pd.Series | pd.Index) else a for a in args)


# --------------------------------------------------------------------------- properties


@given(cat_case())
@settings(max_examples=25)
def test_codes_categories_ordered(case: Any) -> None:
    series, _, _ = case
    got = rt.from_pandas(series)
    assert_series_equal(got.cat.codes, series.cat.codes)
    assert_index_equal(got.cat.categories, series.cat.categories)
    assert got.cat.ordered is series.cat.ordered


def test_codes_keep_index_and_drop_name() -> None:
    series = pd.Series(pd.Categorical(["é", None, "中"]), index=[10, 5, 7], name="label")
    got = rt.from_pandas(series).cat.codes
    assert_series_equal(got, series.cat.codes)  # pandas 3: the codes Series has no name
    assert got.name is None and got.dtype == np.int8


# --------------------------------------------------------------------------- relabelling


@given(cat_case())
@settings(max_examples=15)
def test_as_ordered_as_unordered(case: Any) -> None:
    series, _, _ = case
    _check(series, "as_ordered")
    _check(series, "as_unordered")


@given(cat_case(), st.sampled_from(["list", "dict", "callable", "series", "short", "duplicate"]))
@settings(max_examples=40)
def test_rename_categories(case: Any, how: str) -> None:
    series, others, rng = case
    old = list(series.cat.categories)
    fresh = _pick(rng, others, len(others))
    if how == "list":
        new: Any = fresh[: len(old)] if len(fresh) >= len(old) else list(range(len(old)))
    elif how == "dict":
        new = dict(zip(_pick(rng, old, 3), fresh))
    elif how == "callable":
        new = _renamer(old)
    elif how == "series":
        new = pd.Series(fresh[: min(len(old), 2)], index=old[: min(len(old), 2)])  # a mapping, as in pandas
    elif how == "short":
        new = fresh[: max(len(old) - 1, 0)] + (fresh[:2] if not old else [])
    else:
        new = [fresh[0]] * len(old)
    _check(series, "rename_categories", new)


def _renamer(old: list[Any]) -> Any:
    if old and isinstance(old[0], str):
        return lambda value: value + "!"
    if old and isinstance(old[0], pd.Timestamp):
        return lambda value: value + pd.Timedelta(days=1)
    return lambda value: value * 10


# --------------------------------------------------------------------------- recoding


@given(cat_case(), st.sampled_from([None, True, False]), st.booleans(), st.booleans())
@settings(max_examples=40)
def test_set_categories(case: Any, ordered: Any, rename: bool, as_index: bool) -> None:
    series, others, rng = case
    old = list(series.cat.categories)
    k = int(rng.integers(0, len(old) + 4))
    new = _pick(rng, old + others[:3], k)
    if rng.random() < 0.1 and new:
        new = new + new[:1]  # a duplicate: pandas refuses
    argument: Any = pd.Index(new, dtype=series.cat.categories.dtype) if as_index and new else new
    _check(series, "set_categories", argument, ordered=ordered, rename=rename)


@given(cat_case(), st.sampled_from([None, True, False]), st.sampled_from(["permutation", "missing", "foreign"]))
@settings(max_examples=30)
def test_reorder_categories(case: Any, ordered: Any, how: str) -> None:
    series, others, rng = case
    new = _pick(rng, list(series.cat.categories), len(series.cat.categories))
    if how == "missing" and new:
        new = new[1:]
    elif how == "foreign" and new:
        new = new[1:] + others[:1]
    _check(series, "reorder_categories", new, ordered=ordered)


@given(cat_case(), st.sampled_from(["list", "scalar", "overlap", "duplicate", "empty"]))
@settings(max_examples=30)
def test_add_categories(case: Any, how: str) -> None:
    series, others, rng = case
    old = list(series.cat.categories)
    if how == "list":
        new: Any = others[: int(rng.integers(1, len(others)))]
    elif how == "scalar":
        new = others[0]
    elif how == "overlap":
        new = others[:2] + old[:1]
    elif how == "duplicate":
        new = [others[0], others[0]]
    else:
        new = []
    _check(series, "add_categories", new)


@given(cat_case(), st.sampled_from(["subset", "scalar", "foreign", "all", "empty"]))
@settings(max_examples=30)
def test_remove_categories(case: Any, how: str) -> None:
    series, others, rng = case
    old = list(series.cat.categories)
    if how == "subset":
        removals: Any = _pick(rng, old, int(rng.integers(0, len(old) + 1)))
    elif how == "scalar":
        removals = old[0] if old else others[0]
    elif how == "foreign":
        removals = old[:1] + others[:1]
    elif how == "all":
        removals = old
    else:
        removals = []
    _check(series, "remove_categories", removals)


@given(cat_case())
@settings(max_examples=30)
def test_remove_unused_categories(case: Any) -> None:
    series, _, _ = case
    _check(series, "remove_unused_categories")


# --------------------------------------------------------------------------- edge cases and errors


def test_not_categorical_raises_attribute_error() -> None:
    series = rt.Series([1, 2, 3])
    with pytest.raises(AttributeError, match="Can only use .cat accessor with a 'category' dtype"):
        series.cat
    assert not hasattr(rt.Series(["a"]), "cat")


@pytest.mark.parametrize(
    ("method", "args", "kwargs", "match"),
    [
        ("add_categories", (["a"],), {}, "new categories must not include old categories"),
        ("add_categories", (["z", "z"],), {}, "Categorical categories must be unique"),
        ("remove_categories", (["q"],), {}, "removals must all be in old categories"),
        ("rename_categories", (["x"],), {}, "same number of items as the old categories"),
        ("rename_categories", (["x", "x", "y"],), {}, "Categorical categories must be unique"),
        ("rename_categories", (["x", None, "y"],), {}, "Categorical categories cannot be null"),
        ("set_categories", (["a", "a"],), {}, "Categorical categories must be unique"),
        ("reorder_categories", (["a", "b"],), {}, "items in new_categories are not the same as in old categories"),
        ("reorder_categories", (["a", "b", "z"],), {}, "items in new_categories are not the same as in old categories"),
    ],
)
def test_errors_match_pandas(method: str, args: tuple[Any, ...], kwargs: dict[str, Any], match: str) -> None:
    series = pd.Series(pd.Categorical(["b", "a", None], categories=["b", "a", "c"]))
    with pytest.raises(ValueError, match=match):
        getattr(series.cat, method)(*args, **kwargs)
    with pytest.raises(ValueError, match=match):
        getattr(rt.from_pandas(series).cat, method)(*args, **kwargs)


def test_rename_categories_scalar_is_type_error() -> None:
    series = pd.Series(pd.Categorical(["a", "b"]))
    check_same_outcome(lambda: rt.from_pandas(series).cat.rename_categories(5),
                       lambda: series.cat.rename_categories(5), _same_categorical)  # fmt: skip
    with pytest.raises(TypeError):
        rt.from_pandas(series).cat.rename_categories(5)


@pytest.mark.parametrize("n_new", [126, 127, 200, 40000])
def test_codes_width_grows_with_categories(n_new: int) -> None:
    series = pd.Series(pd.Categorical(["a", None, "b", "a"]))
    new = [f"n{i}" for i in range(n_new)]
    _check(series, "add_categories", new)
    got = rt.from_pandas(series).cat.add_categories(new).cat.codes.dtype
    assert got == series.cat.add_categories(new).cat.codes.dtype


def test_codes_width_shrinks_and_relabelling_keeps_it() -> None:
    wide = pd.Series(pd.Categorical.from_codes([0, 199, -1, 5], categories=[f"c{i}" for i in range(200)]))
    assert wide.cat.codes.dtype == np.int16
    _check(wide, "remove_unused_categories")  # 3 categories: int8
    _check(wide, "set_categories", ["c5", "c0"])  # recoded: int8
    _check(wide, "set_categories", ["x", "y"], rename=True)  # relabelled: pandas keeps int16 (codes past 2 missing)
    _check(wide, "rename_categories", [f"r{i}" for i in range(200)])
    empty = pd.Series(pd.Categorical([None, None]))
    _check(empty, "set_categories", [f"n{i}" for i in range(300)])  # no categories before: pandas keeps int8


def test_riptide_series_and_index_arguments() -> None:
    series = pd.Series(pd.Categorical(["b", "a", "b"]), name="s")
    got = rt.from_pandas(series)
    new = pd.Index(["b", "a", "z"])
    _same_categorical(got.cat.set_categories(rt.from_pandas(new)), series.cat.set_categories(new))
    mapping = pd.Series(["B"], index=["b"])
    _same_categorical(got.cat.rename_categories(rt.from_pandas(mapping)), series.cat.rename_categories(mapping))


def test_interval_categories_stay_on_host() -> None:
    series = pd.Series(pd.cut([1, 5, 9, 5], [0, 3, 6, 10, 20]), name="bins")
    got = rt.from_pandas(series)
    pdt.assert_index_equal(got.cat.categories, series.cat.categories)
    _same_categorical(got.cat.remove_unused_categories(), series.cat.remove_unused_categories())
    _same_categorical(got.cat.rename_categories(list("abcd")), series.cat.rename_categories(list("abcd")))
    _same_categorical(got.cat.as_ordered(), series.cat.as_ordered())


def test_result_is_new_and_source_unchanged() -> None:
    series = pd.Series(pd.Categorical(["a", "b", None]), index=[3, 1, 2], name="n")
    got = rt.from_pandas(series)
    renamed = got.cat.rename_categories(["x", "y"])
    assert renamed is not got
    _same_categorical(got, series)  # read-only column: the source keeps its categories
    _same_categorical(renamed.cat.remove_categories("x").cat.add_categories("z"),
                      series.cat.rename_categories(["x", "y"]).cat.remove_categories("x").cat.add_categories("z"))


def test_categories_of_another_dtype() -> None:
    ints = pd.Series(pd.Categorical([3, 1, None, 3]), name="i")
    _check(ints, "set_categories", [1.0, 3.0, 2.5])  # float categories: int codes recoded by value
    _check(ints, "set_categories", ["1", "3"])  # other dtype: no category matches, every row missing
    _check(ints, "rename_categories", ["one", "three"])
    _check(ints, "add_categories", ["x"])  # mixed categories (pandas: object): kept as host categories
    mixed = rt.from_pandas(ints).cat.add_categories(["x"])
    pdt.assert_index_equal(mixed.cat.categories, ints.cat.add_categories(["x"]).cat.categories)
