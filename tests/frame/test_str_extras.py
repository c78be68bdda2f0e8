"""``Series.str`` (the remaining methods), ``.str`` of a categorical and ``Index.str`` vs pandas 3: slice_replace,
index/rindex, removeprefix/removesuffix, translate, get_dummies, normalize, wrap, over unicode text with empty
strings and missing rows; categoricals with unused categories; bad arguments raise pandas' exception type."""

from __future__ import annotations

import unicodedata
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_frame_equal, assert_index_equal, assert_series_equal, check_same_outcome
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.errors import HostFallbackWarning
from tests.frame.test_str_accessor import same
from tests.frame.test_str_accessor import str_series as _str_series

_ALPHABET = "aAb1 -|\u00a0é中😀ß"
texts = st.text(alphabet=_ALPHABET, max_size=8)
small = st.one_of(st.none(), st.integers(-10, 10))


def str_series(alphabet: str = _ALPHABET, max_size: int = 25) -> st.SearchStrategy:
    """test_str_accessor's string Series, over this file's alphabet."""
    return _str_series(alphabet, max_size)


# --- new methods on the str dtype ----------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(str_series(), small, small, st.one_of(st.none(), st.text(alphabet="xé", max_size=2)))
def test_slice_replace(s, start, stop, repl):
    same(s, lambda acc: acc.slice_replace(start, stop, repl))


@settings(max_examples=50, deadline=None)
@given(str_series(alphabet="ab中"), st.text(alphabet="ab中", max_size=2), small, small)
def test_index_rindex(s, sub, start, end):
    start = 0 if start is None else start
    same(s, lambda acc: acc.index(sub, start, end))
    same(s, lambda acc: acc.rindex(sub, start, end))


def test_index_errors():
    s = pd.Series(["abc", None, "b"], dtype="str")
    with pytest.raises(ValueError, match="substring not found"):
        rt.Series(s).str.index("c")
    with pytest.raises(ValueError, match="substring not found"):
        rt.Series(s).str.rindex("b", 2)
    with pytest.raises(TypeError):
        rt.Series(s).str.index(5)
    assert_series_equal(rt.Series(s).str.index("b"), s.str.index("b"))


@settings(max_examples=50, deadline=None)
@given(str_series(alphabet="ab中"), st.text(alphabet="ab中", max_size=3))
def test_remove_affixes(s, affix):
    same(s, lambda acc: acc.removeprefix(affix))
    same(s, lambda acc: acc.removesuffix(affix))


_TABLES = [
    str.maketrans("ab", "xy"),
    str.maketrans("a", "A", "b"),
    {ord("a"): "中😀", ord("é"): "e", ord("中"): None, ord("ß"): ord("s"), "a": "never"},
    {ord(" "): "\u00a0", 0x1F600: "smile"},
    {},
]


@settings(max_examples=40, deadline=None)
@given(str_series(), st.sampled_from(range(len(_TABLES))))
def test_translate(s, which):
    table = _TABLES[which]
    same(s, lambda acc: acc.translate(table))


def test_translate_ascii_byte_map_and_errors():
    s = pd.Series(["abc", "", None, "cab"], dtype="str")
    table = str.maketrans("abc", "bca")
    assert_series_equal(rt.Series(s).str.translate(table), s.str.translate(table))
    for bad in ({ord("a"): 1.5}, 5):
        with pytest.raises(TypeError):
            s.str.translate(bad)
        with pytest.raises(TypeError):
            rt.Series(s).str.translate(bad)
    with pytest.raises(ValueError):
        s.str.translate({ord("a"): 0x110000})
    with pytest.raises(ValueError):
        rt.Series(s).str.translate({ord("a"): 0x110000})


@settings(max_examples=60, deadline=None)
@given(str_series(alphabet="ab|中 é"), st.sampled_from(["|", "a", "中", " |", "ab"]))
def test_get_dummies(s, sep):
    if s.notna().any():  # pandas itself fails on all-missing input (tested below)
        check_same_outcome(lambda: rt.Series(s).str.get_dummies(sep), lambda: s.str.get_dummies(sep),
                           assert_frame_equal)


def test_get_dummies_dtypes_and_errors():
    s = pd.Series(["a|b", None, "b|c|b", ""], dtype="str", index=[5, 6, 7, 8])
    for dtype in (bool, "float32", "Int64", "uint8"):
        expected = s.str.get_dummies(dtype=dtype)
        if dtype == "Int64":  # pandas drops the index for an extension dtype (a pandas bug); riptide keeps it
            expected.index = s.index
        assert_frame_equal(rt.Series(s).str.get_dummies(dtype=dtype), expected)
    with pytest.raises(ValueError, match="Only numeric or boolean"):
        rt.Series(s).str.get_dummies(dtype=str)
    with pytest.raises(ValueError):
        rt.Series(s).str.get_dummies("")
    # all missing: pandas raises on its own empty result; riptide gives the empty frame a user expects
    result = rt.Series(pd.Series([None, None], dtype="str")).str.get_dummies()
    assert result.shape == (2, 0)


_NORMALIZE_ALPHABET = "ab e\u0301\u00e9\ufb01\u2460Å\u212b한\u1112\u1161\u11ab"


@settings(max_examples=40, deadline=None)
@given(str_series(alphabet=_NORMALIZE_ALPHABET), st.sampled_from(["NFC", "NFD", "NFKC", "NFKD"]))
def test_normalize(s, form):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HostFallbackWarning)
        same(s, lambda acc: acc.normalize(form))


def test_normalize_ascii_stays_on_device_and_errors():
    s = pd.Series(["abc", None, ""], dtype="str")
    with warnings.catch_warnings():
        warnings.simplefilter("error", HostFallbackWarning)  # no host copy for ASCII text
        assert_series_equal(rt.Series(s).str.normalize("NFKD"), s.str.normalize("NFKD"))
    with pytest.raises(ValueError, match="invalid normalization form"):
        rt.Series(s).str.normalize("NFX")
    assert unicodedata.normalize("NFC", "e\u0301") == "é"


@settings(max_examples=20, deadline=None)
@given(str_series(alphabet="ab -\t"), st.integers(1, 5), st.booleans())
def test_wrap(s, width, break_long):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HostFallbackWarning)
        same(s, lambda acc: acc.wrap(width, break_long_words=break_long))


def test_wrap_errors_and_encode():
    s = pd.Series(["abc def"], dtype="str")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HostFallbackWarning)
        with pytest.raises(ValueError, match="invalid width"):
            rt.Series(s).str.wrap(0)
    with pytest.raises(NotImplementedError, match="bytes"):
        rt.Series(s).str.encode("utf-8")
    with pytest.raises(AttributeError):
        rt.Series(s).str.decode("utf-8")


def test_bad_arguments():
    s = pd.Series(["abc", None], dtype="str")
    for call in (lambda acc: acc.slice_replace(1, 2, 5), lambda acc: acc.slice_replace("a", 2, "x"),
                 lambda acc: acc.removeprefix(1), lambda acc: acc.removesuffix(None)):
        same(s, call)


# --- .str of a categorical -----------------------------------------------------------------------------------------
@st.composite
def categorical_series(draw) -> pd.Series:
    """A categorical of strings with missing rows and unused categories."""
    categories = draw(st.lists(st.text(alphabet="aAb1 é|ß中", max_size=5), unique=True, max_size=6))
    n = draw(st.integers(0, 20))
    codes = draw(st.lists(st.integers(-1, len(categories) - 1), min_size=n, max_size=n))
    cat = pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(pd.Index(categories, dtype="str")))
    return pd.Series(cat, name=draw(st.sampled_from([None, "c"])), index=pd.RangeIndex(3, 3 + n))


_STRING_RESULTS = {19, 21}  # get(0) and [-1]: the calls whose every category can give a missing string


def _as_str(expected: pd.Series, which: int) -> pd.Series:
    """pandas gives object for string results of a categorical (float64 when every category's result is missing,
    as for ``get(0)`` on the category ''); riptide's documented dtype is str, as for a str column."""
    if expected.dtype == object or (which in _STRING_RESULTS and expected.dtype == "float64"
                                    and expected.isna().all()):
        return expected.astype("str")
    return expected


_CATEGORICAL_CALLS = [
    lambda acc: acc.len(), lambda acc: acc.upper(), lambda acc: acc.lower(), lambda acc: acc.title(),
    lambda acc: acc.capitalize(), lambda acc: acc.swapcase(), lambda acc: acc.casefold(),
    lambda acc: acc.startswith("a"), lambda acc: acc.startswith("a", na=True), lambda acc: acc.endswith("b"),
    lambda acc: acc.contains("b", regex=False), lambda acc: acc.contains("a"), lambda acc: acc.find("b"),
    lambda acc: acc.rfind("b"), lambda acc: acc.count("a"), lambda acc: acc.count(""),
    lambda acc: acc.isalpha(), lambda acc: acc.isdigit(), lambda acc: acc.isupper(), lambda acc: acc.get(0),
    lambda acc: acc.slice(1, None), lambda acc: acc[-1], lambda acc: acc.strip(), lambda acc: acc.pad(4),
    lambda acc: acc.zfill(3), lambda acc: acc.repeat(2), lambda acc: acc.replace("a", "XY"),
    lambda acc: acc.slice_replace(1, 2, "-"), lambda acc: acc.removeprefix("a"),
    lambda acc: acc.translate({ord("a"): "ä"}), lambda acc: acc.index(""),
]


@settings(max_examples=40, deadline=None)
@given(categorical_series(), st.sampled_from(range(len(_CATEGORICAL_CALLS))))
def test_categorical_per_category(s, which):
    call = _CATEGORICAL_CALLS[which]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HostFallbackWarning)
        check_same_outcome(lambda: call(rt.Series(s).str), lambda: _as_str(call(s.str), which), assert_series_equal)


@settings(max_examples=30, deadline=None)
@given(categorical_series())
def test_categorical_frames(s):
    if len(s):  # (the columns of an empty split are the plain split's business)
        check_same_outcome(lambda: rt.Series(s).str.split("a", expand=True),
                           lambda: s.str.split("a", expand=True),
                           lambda got, exp: assert_frame_equal(got, exp, check_dtype=False))  # fmt: skip
    check_same_outcome(lambda: rt.Series(s).str.get_dummies(), lambda: s.str.get_dummies(), _same_dummies)
    assert rt.Series(s).str.cat(sep=",") == s.str.cat(sep=",")


def _same_dummies(got, expected) -> None:
    # no token at all: riptide's zero-column frame has a RangeIndex of columns, pandas an empty object Index
    # (the known zero-column difference, see tests/frame/test_missing.py::test_frame_dropna_all_columns)
    assert_frame_equal(got, expected, check_column_type=len(expected.columns) > 0)


def test_categorical_edge_cases():
    s = pd.Series(pd.Categorical(["ab", None, "ab"], categories=["zz", "ab"]), index=[4, 5, 6])
    # index() runs on every category, as pandas does: an unused one without the substring raises too
    check_same_outcome(lambda: rt.Series(s).str.index("a"), lambda: s.str.index("a"), assert_series_equal)
    with pytest.raises(AttributeError, match="only use .str accessor"):
        rt.Series(pd.Series(pd.Categorical([1, 2]))).str
    empty = pd.Series(pd.Categorical([], categories=["a"]))
    assert_series_equal(rt.Series(empty).str.len(), empty.str.len())
    nocats = pd.Series(pd.Categorical([None, None]))  # float categories: pandas refuses .str
    with pytest.raises(AttributeError, match="not floating"):
        rt.Series(nocats).str
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HostFallbackWarning)
        full = pd.Series(pd.Categorical(["straße", "ΑΣ"]))
        assert_series_equal(rt.Series(full).str.upper(), full.str.upper().astype("str"))


# --- Index.str -----------------------------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(str_series(max_size=10), st.sampled_from([None, "k"]))
def test_index_str(s, name):
    pidx = pd.Index(s.array, name=name)
    ridx = rt.Index(pidx)
    for call in (lambda acc: acc.len(), lambda acc: acc.upper(), lambda acc: acc.find("a"),
                 lambda acc: acc.slice_replace(0, 1, "z"), lambda acc: acc[0]):
        check_same_outcome(lambda: call(ridx.str), lambda: call(pidx.str), assert_index_equal)
    got = ridx.str.startswith("a")
    np.testing.assert_array_equal(rt._device.to_host(got), pidx.str.startswith("a"))
    expected, error = pd.Index([]), None
    try:
        expected = pidx.str.split("a", expand=True)
    except TypeError as exc:
        error = exc
    if error is not None:
        with pytest.raises(TypeError):
            ridx.str.split("a", expand=True)
    else:
        got_split = ridx.str.split("a", expand=True).to_pandas()
        if expected.nlevels == 1 and expected.dtype == object:  # riptide's documented str for object text
            expected = expected.astype("str")
        pd.testing.assert_index_equal(got_split, expected, exact=False)


def test_index_str_errors_and_dummies():
    with pytest.raises(AttributeError):
        rt.Index([1, 2]).str
    pidx = pd.Index(["a|b", "b"], name="k")
    got = rt.Index(pidx).str.get_dummies().to_pandas()
    pd.testing.assert_index_equal(got, pidx.str.get_dummies(), exact=False)
    assert rt.Index(pidx).str.cat(sep="/") == pidx.str.cat(sep="/")
    cidx = pd.CategoricalIndex(["a", "bb", "a"])
    assert_index_equal(rt.Index(cidx).str.len(), cidx.str.len())


@pytest.mark.parametrize("others", [pd.Series(["x", "y", "z"], index=["b", "a", "q"]), ["x", None, "z"],
                                    pd.Series(["x", "y", "z"], index=["a", "b", "c"]).iloc[::-1]])  # fmt: skip
def test_index_str_cat_aligns_others_on_the_labels(others):
    """An Index's cat aligns Series others on its labels (pandas puts the Index in a Series indexed by itself)."""
    pidx = pd.Index(["a", "b", None], dtype="str", name="k")
    mine = rt.from_pandas(others) if isinstance(others, pd.Series) else others
    assert_index_equal(rt.Index(pidx).str.cat(mine, sep="-"), pidx.str.cat(others, sep="-"))
