"""``Series.str`` (first part) vs pandas 3 with its default ``str`` dtype: lengths, search, slicing, stripping,
padding, repeating and character classes over unicode text with empty strings and missing rows; results must match
in values, dtype, index and name, and bad arguments must raise pandas' exception type."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import assert_frame_equal, assert_series_equal, check_same_outcome, make_values, series_st
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt

# A small alphabet so that patterns occur often: ASCII letters and digits, signs, whitespace (ASCII, the
# information separators, NO-BREAK SPACE, IDEOGRAPHIC SPACE) and 2-, 3- and 4-byte UTF-8 characters.
_ALPHABET = "aAb1 -+\t\x1c\u00a0\u3000é中😀"
_ASCII = "aAbZ09 +-.\t\n\x1c_"

texts = st.text(alphabet=_ALPHABET, max_size=8)
patterns = st.text(alphabet=_ALPHABET, max_size=3)


@st.composite
def str_series(draw, alphabet: str = _ALPHABET, max_size: int = 30) -> pd.Series:
    values = draw(st.lists(st.one_of(st.none(), st.text(alphabet=alphabet, max_size=8)), max_size=max_size))
    s = pd.Series(values, dtype="str", name=draw(st.sampled_from([None, "s"])))
    if draw(st.booleans()) and len(s):
        s.index = pd.RangeIndex(10, 10 + 2 * len(s), 2)
    return s


def same(s: pd.Series, call) -> None:
    """``call(s.str)`` on riptide and on pandas give the same Series (or the same kind of error)."""
    check_same_outcome(lambda: call(rt.Series(s).str), lambda: call(s.str), assert_series_equal)


SETTINGS = settings(max_examples=80, deadline=None)


@SETTINGS
@given(str_series())
def test_argument_free_methods(s):
    for name in ["len", "strip", "lstrip", "rstrip", "isdigit", "isalpha", "isalnum", "isspace", "islower",
                 "isupper", "isdecimal", "isnumeric"]:  # fmt: skip
        same(s, lambda acc: getattr(acc, name)())


@SETTINGS
@given(str_series(alphabet=_ASCII))
def test_character_classes_ascii(s):
    # Pure ASCII columns are classified on the device (no host fallback).
    for name in ["isdigit", "isalpha", "isalnum", "isspace", "islower", "isupper", "isdecimal", "isnumeric"]:
        same(s, lambda acc: getattr(acc, name)())


@SETTINGS
@given(str_series(), patterns, patterns, st.sampled_from([None, True, False]))
def test_startswith_endswith(s, p, q, na):
    for method in ["startswith", "endswith"]:
        same(s, lambda acc: getattr(acc, method)(p))
        same(s, lambda acc: getattr(acc, method)((p, q)))
        same(s, lambda acc: getattr(acc, method)(p, na=na))


@SETTINGS
@given(str_series(), patterns)
def test_contains_and_count(s, p):
    same(s, lambda acc: acc.contains(p, regex=False))
    if not set(p) & set(".^$*+?{}[]\\|()"):  # no regex special character: a literal pattern
        same(s, lambda acc: acc.contains(p))
        same(s, lambda acc: acc.count(p))
    same(s, lambda acc: acc.contains(p, regex=False, na=True))


@SETTINGS
@given(str_series(), patterns, st.one_of(st.none(), st.integers(-10, 10)), st.one_of(st.none(), st.integers(-10, 10)))
def test_find_rfind(s, p, start, end):
    for method in ["find", "rfind"]:
        same(s, lambda acc: getattr(acc, method)(p))
        same(s, lambda acc: getattr(acc, method)(p, 0 if start is None else start, end))


@SETTINGS
@given(str_series(), st.one_of(st.none(), st.integers(-10, 10)), st.one_of(st.none(), st.integers(-10, 10)),
       st.one_of(st.none(), st.integers(-4, 4).filter(bool)))
def test_slice(s, start, stop, step):
    same(s, lambda acc: acc.slice(start, stop, step))
    same(s, lambda acc: acc[start:stop:step])


@SETTINGS
@given(str_series(), st.integers(-10, 10))
def test_get(s, i):
    same(s, lambda acc: acc.get(i))
    same(s, lambda acc: acc[i])


@SETTINGS
@given(str_series(), patterns)
def test_strip_characters(s, chars):
    for method in ["strip", "lstrip", "rstrip"]:
        same(s, lambda acc: getattr(acc, method)(chars))


@SETTINGS
@given(str_series(), st.integers(-2, 12), st.sampled_from(list(" *0é中😀")))
def test_padding(s, width, fill):
    same(s, lambda acc: acc.pad(width, fillchar=fill))
    same(s, lambda acc: acc.pad(width, side="right", fillchar=fill))
    same(s, lambda acc: acc.pad(width, side="both", fillchar=fill))
    same(s, lambda acc: acc.center(width, fill))
    same(s, lambda acc: acc.ljust(width, fill))
    same(s, lambda acc: acc.rjust(width, fill))
    same(s, lambda acc: acc.zfill(width))


@SETTINGS
@given(str_series(), st.integers(0, 3))
def test_repeat(s, n):
    same(s, lambda acc: acc.repeat(n))


@settings(max_examples=15, deadline=None)
@given(series_st(dtypes=["str"]))
def test_conftest_text(s):
    # conftest's generator: longer columns of mixed-script text, duplicates, every null fraction, other indexes.
    for call in [lambda acc: acc.len(), lambda acc: acc.slice(1, -1), lambda acc: acc.find("é"),
                 lambda acc: acc.contains("a", regex=False), lambda acc: acc.strip(), lambda acc: acc.center(9, "中"),
                 lambda acc: acc.isalpha(), lambda acc: acc.count("a"), lambda acc: acc.get(-1)]:  # fmt: skip
        same(s, call)


EDGE_SERIES = [
    pd.Series([], dtype="str"),
    pd.Series([None, None], dtype="str"),
    pd.Series([""], dtype="str"),
    pd.Series(["中"], dtype="str", name="one"),
    pd.Series(["aaaa", "aaa", "abab", "aXaaXaa", None, ""], dtype="str"),
    pd.Series(["-12", "+", "-", "+-3", "x-1", "１２", "Ⅷ", "ǅ", "ß", "ΣΑ"], dtype="str"),
]

EDGE_CALLS = {
    "len": lambda acc: acc.len(),
    "count overlapping": lambda acc: acc.count("aa"),
    "count border": lambda acc: acc.count("aXa"),
    "count empty": lambda acc: acc.count(""),
    "find empty": lambda acc: acc.find(""),
    "rfind empty": lambda acc: acc.rfind(""),
    "find empty past end": lambda acc: acc.find("", 5),
    "find empty inverted": lambda acc: acc.find("", 2, 1),
    "rfind window": lambda acc: acc.rfind("a", 0, 2),
    "find negative": lambda acc: acc.find("a", -2),
    "contains empty": lambda acc: acc.contains("", regex=False),
    "startswith empty tuple": lambda acc: acc.startswith(()),
    "zfill": lambda acc: acc.zfill(4),
    "zfill negative": lambda acc: acc.zfill(-2),
    "reverse": lambda acc: acc.slice(step=-1),
    "reverse from": lambda acc: acc.slice(-2, None, -2),
    "isdigit": lambda acc: acc.isdigit(),
    "isnumeric": lambda acc: acc.isnumeric(),
    "isdecimal": lambda acc: acc.isdecimal(),
    "isalpha": lambda acc: acc.isalpha(),
    "isupper": lambda acc: acc.isupper(),
    "islower": lambda acc: acc.islower(),
    "strip nothing": lambda acc: acc.strip(""),
    "repeat 0": lambda acc: acc.repeat(0),
    "get -1": lambda acc: acc.get(-1),
}


@pytest.mark.parametrize("call", EDGE_CALLS.values(), ids=EDGE_CALLS.keys())
@pytest.mark.parametrize("s", EDGE_SERIES, ids=range(len(EDGE_SERIES)))
def test_edges(s, call):
    same(s, call)


BAD_CALLS = {
    "startswith int": lambda acc: acc.startswith(1),
    "startswith tuple of int": lambda acc: acc.startswith(("a", 1)),
    "startswith bad na": lambda acc: acc.startswith("a", na="x"),
    "contains int literal": lambda acc: acc.contains(1, regex=False),
    "contains int regex": lambda acc: acc.contains(1),
    "count int": lambda acc: acc.count(1),
    "find int": lambda acc: acc.find(1),
    "slice step 0": lambda acc: acc.slice(step=0),
    "slice str": lambda acc: acc.slice("a"),
    "get str": lambda acc: acc.get("a"),
    "pad str width": lambda acc: acc.pad("3"),
    "pad long fill": lambda acc: acc.pad(3, fillchar="ab"),
    "pad int fill": lambda acc: acc.center(3, fillchar=1),
    "pad bad side": lambda acc: acc.pad(3, side="x"),
    "zfill str": lambda acc: acc.zfill("a"),
    "strip int": lambda acc: acc.strip(1),
    "repeat negative": lambda acc: acc.repeat(-1),
}


@pytest.mark.parametrize("call", BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_bad_arguments(call):
    s = pd.Series(["ab", None], dtype="str")
    expected_error = None
    try:
        call(s.str)
    except Exception as error:  # noqa: BLE001 - the oracle's exception is what we compare with
        expected_error = error
    assert expected_error is not None
    same(s, call)


@pytest.mark.parametrize("values", [[1, 2], [1.5, None], [True], pd.to_datetime(["2020-01-01"])])
def test_non_string_series_has_no_str(values):
    s = pd.Series(values)
    with pytest.raises(AttributeError, match="Can only use .str accessor with string values"):
        s.str
    with pytest.raises(AttributeError, match="Can only use .str accessor with string values"):
        rt.Series(s).str
    assert not hasattr(rt.Series(s), "str")


@pytest.mark.parametrize("kind", ["list", "array", "Int64", "pandas Series", "riptide Series", "uint8", "floats",
                                  "too short", "string"])  # fmt: skip
def test_repeat_with_a_count_per_row(kind):
    """One count per row, by position: None / <NA> give a missing string, negative counts an empty one; float
    counts raise TypeError, a wrong length ValueError, as pandas."""
    s = pd.Series(["ab", None, "", "é😀", "x"], dtype="str", index=[5, 4, 3, 2, 1])
    counts = [3, 2, None, 1, -1]
    repeats = {"list": counts, "array": np.array([3, 2, 0, 1, -1]), "Int64": pd.array(counts, dtype="Int64"),
               "pandas Series": pd.Series([3, 2, 1, 0, 2]), "riptide Series": pd.Series([3, 2, 1, 0, 2]),
               "uint8": np.array([3, 2, 1, 0, 2], dtype=np.uint8), "floats": [1.0, 2.5, 1.0, 1.0, 1.0],
               "too short": [1, 2], "string": "2"}[kind]  # fmt: skip
    mine = rt.from_pandas(repeats) if kind == "riptide Series" else repeats
    check_same_outcome(lambda: rt.Series(s).str.repeat(mine), lambda: s.str.repeat(repeats), assert_series_equal)


@pytest.mark.parametrize("call", [
    lambda acc: acc.contains("a.b"), lambda acc: acc.count("a+"), lambda acc: acc.contains("a", case=False),
    lambda acc: acc.contains("A", flags=2), lambda acc: acc.replace("a.", "b", regex=True),
    lambda acc: acc.replace("", "b"), lambda acc: acc.replace("A", "b", case=False),
])  # fmt: skip
def test_regex_calls_that_once_were_not_implemented(call):
    same(pd.Series(["ab", None, "axb", "AAb", ""], dtype="str"), call)


def test_regex_split_that_once_was_not_implemented():
    same_frame(pd.Series(["ab", None, "axb", "AAb", ""], dtype="str"), lambda acc: acc.split("a.", expand=True))


def test_large_random_column():
    # A longer column from conftest's generator, compared in one go for every method family.
    rng = np.random.default_rng(7)
    s = make_values(rng, "str", 3000, 0.1)
    for call in [lambda acc: acc.len(), lambda acc: acc.slice(-5, None, 2), lambda acc: acc.find("a", 1),
                 lambda acc: acc.rfind("é"), lambda acc: acc.count("a"), lambda acc: acc.lstrip(),
                 lambda acc: acc.pad(10, "both", "*"), lambda acc: acc.zfill(6), lambda acc: acc.repeat(2),
                 lambda acc: acc.startswith(("a", "é")), lambda acc: acc.endswith("😀"), lambda acc: acc.isalnum()]:
        same(s, call)  # fmt: skip


ALL_CALLS = [
    lambda acc: acc.len(), lambda acc: acc.startswith("a"), lambda acc: acc.endswith(("b", "中")),
    lambda acc: acc.contains("a", regex=False), lambda acc: acc.count("a"), lambda acc: acc.find("b"),
    lambda acc: acc.rfind("a", 1), lambda acc: acc.slice(1, None, 2), lambda acc: acc.slice(-2), lambda acc: acc.get(0),
    lambda acc: acc.strip("a"), lambda acc: acc.rstrip(), lambda acc: acc.isalpha(), lambda acc: acc.islower(),
    lambda acc: acc.repeat(3), lambda acc: acc.center(6, "é"), lambda acc: acc.zfill(5),
]  # fmt: skip


@pytest.mark.parametrize("call", ALL_CALLS)
def test_missing_rows_that_keep_their_bytes(call):
    # A missing row may keep its old bytes (set_missing only touches the mask): they must not leak into results.
    from riptide.core.column import StringColumn

    values = pd.Series(["ab a", "中a b", " -1", "aé"], dtype="str", name="k")
    column = rt.Series(values)._column
    assert isinstance(column, StringColumn)
    hidden = np.array([False, True, False, True])
    masked = rt.Series._from_column(column.set_missing(column.xp.asarray(hidden)), rt.Series(values).index, "k")
    expected = values.where(~hidden)
    assert masked._column.chars.shape[0] == len("ab a中a b -1aé".encode())
    check_same_outcome(lambda: call(masked.str), lambda: call(expected.str), assert_series_equal)


@pytest.mark.parametrize("call", ALL_CALLS)
def test_ascii_and_all_valid_mask(call):
    # A validity mask that marks every row valid still gives pandas' int64 (not float64) counts.
    from riptide.core.column import StringColumn

    values = pd.Series(["ab a", "", "b-1"], dtype="str")
    column = rt.Series(values)._column
    xp = column.xp
    full_mask = StringColumn(column.offsets, column.chars, xp.ones(column.size, dtype=bool))
    series = rt.Series._from_column(full_mask, rt.Series(values).index, None)
    check_same_outcome(lambda: call(series.str), lambda: call(values.str), assert_series_equal)


# === replace, split / rsplit, partition / rpartition, cat (literal patterns) ===========================================
# An alphabet where "aa" overlaps itself, with multi-byte characters and whitespace of 1 to 3 UTF-8 bytes.
_SPLIT_ALPHABET = "aab -\u00a0\u3000é中😀"
split_patterns = st.sampled_from(["a", "aa", "aba", "-", " ", "é", "中😀", "😀", "a-", "é中"])


def same_frame(s: pd.Series, call) -> None:
    """``call(s.str)`` on riptide and on pandas give the same DataFrame (or the same kind of error)."""
    check_same_outcome(lambda: call(rt.Series(s).str), lambda: call(s.str), assert_frame_equal)


def same_value(s: pd.Series, call) -> None:
    """``call(s.str)`` gives the same plain Python value (``cat`` to one string)."""

    def compare(got, expected):
        assert type(got) is type(expected) and got == expected

    check_same_outcome(lambda: call(rt.Series(s).str), lambda: call(s.str), compare)


@SETTINGS
@given(str_series(alphabet=_SPLIT_ALPHABET), split_patterns, st.sampled_from(["", "X", "é中", "aa"]),
       st.integers(-2, 3))  # fmt: skip
def test_replace(s, p, repl, n):
    same(s, lambda acc: acc.replace(p, repl, n=n))
    same(s, lambda acc: acc.replace(p, repl, n=n, regex=True))  # no special character: literal


@SETTINGS
@given(str_series(alphabet=_SPLIT_ALPHABET), st.one_of(st.none(), split_patterns), st.integers(-2, 3))
def test_split_rsplit_expand(s, p, n):
    same_frame(s, lambda acc: acc.split(p, n=n, expand=True))
    same_frame(s, lambda acc: acc.rsplit(p, n=n, expand=True))


@SETTINGS
@given(str_series(alphabet=_SPLIT_ALPHABET), split_patterns)
def test_partition_rpartition(s, sep):
    same_frame(s, lambda acc: acc.partition(sep))
    same_frame(s, lambda acc: acc.rpartition(sep))


@SETTINGS
@given(str_series(alphabet=_SPLIT_ALPHABET), st.sampled_from([None, "", ", ", "中"]), st.sampled_from([None, "", "?é"]))
def test_cat(s, sep, na_rep):
    same_value(s, lambda acc: acc.cat(sep=sep, na_rep=na_rep))
    other = s.str.slice(1)
    same(s, lambda acc: acc.cat(other if isinstance(acc, pd.core.strings.accessor.StringMethods) else rt.Series(other),
                                sep=sep, na_rep=na_rep))  # fmt: skip
    same(s, lambda acc: acc.cat(list(s.str.upper().astype(object).where(s.notna(), None)), sep=sep, na_rep=na_rep))


def _both(pd_other: pd.Series):
    """A ``cat`` argument for each library: the pandas Series, or the riptide Series made from it."""
    return lambda acc: pd_other if isinstance(acc, pd.core.strings.accessor.StringMethods) else rt.Series(pd_other)


SPLIT_EDGE_SERIES = [
    pd.Series([], dtype="str"),
    pd.Series([None, None], dtype="str"),
    pd.Series([""], dtype="str"),
    pd.Series(["", None], dtype="str", name="e"),
    pd.Series(["   "], dtype="str"),
    pd.Series(["中"], dtype="str", name="one"),
    pd.Series(["aaa", "aaaa", "aXaaXaa", "a", None, "", " a  b ", "\u3000x\u00a0y\u2003"], dtype="str"),
    pd.Series(["-a-", "--", "-", "a--b", "中😀中😀", "😀"], dtype="str", index=[5, 3, 1, 0, 2, 4]),
]

SPLIT_EDGE_CALLS = {
    "replace overlapping": lambda acc: acc.replace("aa", "b"),
    "replace n=1": lambda acc: acc.replace("a", "é", n=1),
    "replace n=0": lambda acc: acc.replace("a", "b", n=0),
    "replace to empty": lambda acc: acc.replace("-", ""),
    "replace multibyte": lambda acc: acc.replace("中😀", "-"),
    "replace start/end": lambda acc: acc.replace("-", "<>"),
    "replace regex literal": lambda acc: acc.replace("aa", "b", regex=True),
    "replace case True": lambda acc: acc.replace("a", "b", case=True),
}
SPLIT_EDGE_FRAMES = {
    "split whitespace": lambda acc: acc.split(expand=True),
    "split whitespace n=1": lambda acc: acc.split(n=1, expand=True),
    "rsplit whitespace n=1": lambda acc: acc.rsplit(n=1, expand=True),
    "split n=0": lambda acc: acc.split("a", n=0, expand=True),
    "split overlapping": lambda acc: acc.split("aa", expand=True),
    "rsplit overlapping": lambda acc: acc.rsplit("aa", expand=True),
    "rsplit overlapping n=1": lambda acc: acc.rsplit("aa", n=1, expand=True),
    "split at ends": lambda acc: acc.split("-", expand=True),
    "split multibyte": lambda acc: acc.split("😀", expand=True),
    "rsplit multibyte n=1": lambda acc: acc.rsplit("中😀", n=1, expand=True),
    "split one char regex=None": lambda acc: acc.split(".", expand=True),
    "partition default": lambda acc: acc.partition(),
    "partition overlapping": lambda acc: acc.partition("aa"),
    "rpartition overlapping": lambda acc: acc.rpartition("aa"),
    "rpartition multibyte": lambda acc: acc.rpartition("😀"),
}
SPLIT_EDGE_VALUES = {
    "cat all": lambda acc: acc.cat(),
    "cat sep": lambda acc: acc.cat(sep="中"),
    "cat na_rep": lambda acc: acc.cat(sep="-", na_rep="NA"),
}


@pytest.mark.parametrize("call", SPLIT_EDGE_CALLS.values(), ids=SPLIT_EDGE_CALLS.keys())
@pytest.mark.parametrize("s", SPLIT_EDGE_SERIES, ids=range(len(SPLIT_EDGE_SERIES)))
def test_split_family_edges_series(s, call):
    same(s, call)


@pytest.mark.parametrize("call", SPLIT_EDGE_FRAMES.values(), ids=SPLIT_EDGE_FRAMES.keys())
@pytest.mark.parametrize("s", SPLIT_EDGE_SERIES, ids=range(len(SPLIT_EDGE_SERIES)))
def test_split_family_edges_frames(s, call):
    same_frame(s, call)


@pytest.mark.parametrize("call", SPLIT_EDGE_VALUES.values(), ids=SPLIT_EDGE_VALUES.keys())
@pytest.mark.parametrize("s", SPLIT_EDGE_SERIES, ids=range(len(SPLIT_EDGE_SERIES)))
def test_cat_to_one_string_edges(s, call):
    same_value(s, call)


@pytest.mark.parametrize("s", SPLIT_EDGE_SERIES, ids=range(len(SPLIT_EDGE_SERIES)))
def test_cat_with_others_edges(s):
    a, b = s.str.slice(0, 1), s.str.slice(-1)
    pair = lambda acc: [_both(a)(acc), _both(b)(acc)]  # noqa: E731
    same(s, lambda acc: acc.cat(_both(a)(acc)))
    same(s, lambda acc: acc.cat(pair(acc), sep="|"))
    same(s, lambda acc: acc.cat(pair(acc), sep="|", na_rep="∅"))


SPLIT_BAD_CALLS = {
    "replace int pat": lambda acc: acc.replace(1, "a"),
    "replace int repl": lambda acc: acc.replace("a", 1),
    "split int pat": lambda acc: acc.split(1, expand=True),
    "split str n": lambda acc: acc.split("a", n="x", expand=True),
    "partition int": lambda acc: acc.partition(1),
    "partition empty": lambda acc: acc.partition(""),
    "rpartition empty": lambda acc: acc.rpartition(""),
    "cat short list": lambda acc: acc.cat(["x"]),
}


@pytest.mark.parametrize("call", SPLIT_BAD_CALLS.values(), ids=SPLIT_BAD_CALLS.keys())
def test_split_family_bad_arguments(call):
    s = pd.Series(["ab", None], dtype="str")
    with pytest.raises(Exception):  # the oracle raises, so the comparison below is about the exception type
        call(s.str)
    same(s, call)


@pytest.mark.parametrize("call", [
    lambda acc: acc.split("a"), lambda acc: acc.rsplit(),
    lambda acc: acc.split("", expand=True), lambda acc: acc.partition("a", expand=False),
])  # fmt: skip
def test_split_family_not_implemented(call):
    with pytest.raises(NotImplementedError):
        call(rt.Series(["ab", None]).str)


@pytest.mark.parametrize("join", ["left", "right", "outer", "inner"])
def test_cat_join_on_the_same_index(join):
    s = pd.Series(["a", None, "中"], dtype="str", index=[3, 1, 2], name="x")
    same(s, lambda acc: acc.cat(_both(s.str.upper())(acc), join=join, sep="-"))


_CAT_OTHERS = {
    "other index": pd.Series(["x", "y", "z", None], dtype="str", index=[2, 3, 0, 1]),
    "partial index": pd.Series(["p", "q"], dtype="str", index=[1, 5]),
    "two Series": [pd.Series(["x", "y", "z", None], dtype="str", index=[2, 3, 0, 1]),
                   pd.Series(["p", "q"], dtype="str", index=[1, 5])],
    "DataFrame": pd.DataFrame({"a": pd.Series(["x", "y", "z", None], dtype="str", index=[2, 3, 0, 1]),
                               "b": pd.Series(["u", "v", "w", "x"], dtype="str", index=[0, 1, 2, 7])}),
    "2-D array": np.array([["a", "b"], ["c", "d"], ["e", "f"], ["g", None]], dtype=object),
    "Index": pd.Index(["a", "b", "c", "d"]), "tuple": ("a", None, "c", "d"),
    "Series and array": [pd.Series(["x", "y", "z", None], dtype="str", index=[2, 3, 0, 1]),
                         np.array(["a", "b", "c", "d"], dtype=object)],
    "categorical": pd.Series(pd.Categorical(["x", "y", "z", "x"]), index=[0, 1, 2, 7]),
    "all missing floats": pd.Series([np.nan] * 4, index=[0, 1, 2, 7]),
    "ints": pd.Series([1, 2, 3, 4], index=[0, 1, 2, 7]), "int list": [1, 2, 3, 4], "scalar": 5,
    "list of lists": [pd.Series(["x"] * 4, dtype="str"), ["a", "b", "c", "d"]],
}  # fmt: skip


@pytest.mark.parametrize("join", ["left", "right", "outer", "inner", "bad"])
@pytest.mark.parametrize("others", _CAT_OTHERS.values(), ids=_CAT_OTHERS.keys())
def test_cat_aligns_others_as_pandas(others, join):
    """Series and DataFrame columns are aligned on the index with ``join`` (the result on the joined index); arrays
    and lists take the caller's index; non-string values raise TypeError, a bad ``join`` ValueError."""
    s = pd.Series(["a", "b", None, "é"], dtype="str", index=[0, 1, 2, 7])

    def mine(value):
        if isinstance(value, list) and value and isinstance(value[0], pd.Series):
            return [mine(v) for v in value]
        return rt.from_pandas(value) if isinstance(value, pd.Series | pd.DataFrame) else value

    for kwargs in ({}, {"sep": ",", "na_rep": "-"}):
        check_same_outcome(lambda: rt.Series(s).str.cat(mine(others), join=join, **kwargs),
                           lambda: s.str.cat(others, join=join, **kwargs), assert_series_equal)  # fmt: skip


def test_split_family_large_random_column():
    rng = np.random.default_rng(11)
    s = make_values(rng, "str", 3000, 0.1)
    for call in [lambda acc: acc.replace("a", "中😀"), lambda acc: acc.replace("é", "", n=2)]:
        same(s, call)
    for call in [lambda acc: acc.split(expand=True), lambda acc: acc.rsplit("a", n=2, expand=True),
                 lambda acc: acc.partition("é"), lambda acc: acc.rpartition("a")]:  # fmt: skip
        same_frame(s, call)
    same_value(s, lambda acc: acc.cat(sep="/", na_rep="-"))


@pytest.mark.parametrize("call", [
    lambda acc: acc.replace("a", "xy"), lambda acc: acc.split(expand=True), lambda acc: acc.rsplit("a", expand=True),
    lambda acc: acc.partition("a"), lambda acc: acc.cat(sep="+"), lambda acc: acc.cat(sep="+", na_rep="?"),
])  # fmt: skip
def test_split_family_missing_rows_that_keep_their_bytes(call):
    from riptide.core.column import StringColumn

    values = pd.Series(["ab a", "中a b", " -1", "aé"], dtype="str", name="k")
    column = rt.Series(values)._column
    assert isinstance(column, StringColumn)
    hidden = np.array([False, True, False, True])
    masked = rt.Series._from_column(column.set_missing(column.xp.asarray(hidden)), rt.Series(values).index, "k")
    expected = values.where(~hidden)
    got = call(masked.str)
    want = call(expected.str)
    if isinstance(want, str):
        assert got == want
    elif isinstance(want, pd.DataFrame):
        assert_frame_equal(got, want)
    else:
        assert_series_equal(got, want)


# === case mapping: lower, upper, casefold, swapcase, capitalize, title ================================================
CASE_METHODS = ["lower", "upper", "casefold", "swapcase", "capitalize", "title"]
# Letters whose mappings are special: 'ß' (upper 'ẞ' in pyarrow, 'ss' when folded), dotted/dotless i, the three
# sigmas (no final-sigma rule in pyarrow), the titlecase digraphs 'Ǆ ǅ ǆ', ligatures and 'ŉ' (longer when folded),
# letters whose images have another UTF-8 length ('ı' 2 -> 'I' 1 byte, 'ⱥ' 3 -> 'Ⱥ' 2), cased non-letters ('Ⅷ',
# 'ⓐ'), 4-byte letters ('𐐀'), and uncased characters that split words in title().
_CASE_ALPHABET = "aAzZ1 '-ßẞİıiIΣσςǄǅǆﬁŉⱥȺÀé中😀Ⅷⓐ𐐀ǰ\u0345"


def _check_case_methods(s: pd.Series) -> None:
    for name in CASE_METHODS:
        same(s, lambda acc, name=name: getattr(acc, name)())


@SETTINGS
@given(str_series(alphabet=_CASE_ALPHABET))
def test_case_methods(s):
    _check_case_methods(s)


@SETTINGS
@given(str_series(alphabet=_ASCII + "xyQ"))
def test_case_methods_ascii(s):
    # Pure ASCII columns take the byte-map path (offsets unchanged).
    _check_case_methods(s)


@settings(max_examples=15, deadline=None)
@given(series_st(dtypes=["str"]))
def test_case_methods_conftest_text(s):
    _check_case_methods(s)


CASE_EDGE_SERIES = [
    pd.Series([], dtype="str"),
    pd.Series([None, None], dtype="str"),
    pd.Series([""], dtype="str"),
    pd.Series(["", None, ""], dtype="str", name="e"),
    pd.Series(["ǆ"], dtype="str", name="one"),
    pd.Series(["ß", "straße", "İstanbul", "ΣΑΣ ΑΣ σς", "ǆemal ǅ Ǆ", "ﬁne", "ŉ", "ǰ", "3rd a1b o'neil", "ⱥı"],
              dtype="str", index=[9, 7, 5, 3, 1, 0, 2, 4, 6, 8]),
    pd.Series(["HELLO", "world", "MiXeD cAsE", None, "", "a"], dtype="str"),
]


@pytest.mark.parametrize("name", CASE_METHODS)
@pytest.mark.parametrize("s", CASE_EDGE_SERIES, ids=range(len(CASE_EDGE_SERIES)))
def test_case_methods_edges(s, name):
    same(s, lambda acc: getattr(acc, name)())


def test_case_methods_special_values():
    # pandas' answers, written out: pyarrow's simple mappings, except casefold (Python's full folding).
    s = rt.Series(["ß", "İ", "ΑΣ", "ǆ", "ǅ"])
    assert s.str.upper().to_pandas().tolist() == ["ẞ", "İ", "ΑΣ", "Ǆ", "Ǆ"]
    assert s.str.lower().to_pandas().tolist() == ["ß", "i", "ασ", "ǆ", "ǆ"]
    assert s.str.casefold().to_pandas().tolist() == ["ss", "i̇", "ασ", "ǆ", "ǆ"]
    assert s.str.swapcase().to_pandas().tolist() == ["ẞ", "i", "ασ", "Ǆ", "ǅ"]
    assert s.str.capitalize().to_pandas().tolist() == ["ẞ", "İ", "Ασ", "Ǆ", "Ǆ"]
    assert s.str.title().to_pandas().tolist() == ["ẞ", "İ", "Ασ", "Ǆ", "Ǆ"]


def test_case_methods_every_code_point():
    # Every Unicode scalar value, in rows of a few neighbours (some separated by a space or a digit so that
    # title() starts new words), against pandas: the tables must agree with the engines on the whole range.
    rng = np.random.default_rng(3)
    every = np.concatenate([np.arange(0, 0xD800), np.arange(0xE000, 0x110000)]).astype(np.uint32)
    separators = rng.choice(np.array([ord(" "), ord("7"), ord("a"), ord("A")], dtype=np.uint32), every.shape[0])
    interrupted = np.where(rng.random(every.shape[0]) < 0.2, separators, every)
    values = []
    for chunk in (every, interrupted):
        joined = chunk.tobytes().decode("utf-32-le")
        cuts = np.cumsum(rng.integers(1, 9, size=chunk.shape[0]))
        cuts = [0] + cuts[cuts < len(joined)].tolist() + [len(joined)]
        values += [joined[a:b] for a, b in itertools.pairwise(cuts)]
    s = pd.Series(values, dtype="str")
    _check_case_methods(s)


def test_case_methods_large_random_column():
    rng = np.random.default_rng(5)
    _check_case_methods(make_values(rng, "str", 3000, 0.1))


CASE_CALLS = [lambda acc, name=name: getattr(acc, name)() for name in CASE_METHODS]


@pytest.mark.parametrize("call", CASE_CALLS, ids=CASE_METHODS)
def test_case_methods_missing_rows_that_keep_their_bytes(call):
    from riptide.core.column import StringColumn

    for texts in (["ab a", "中a b", " -1", "aé"], ["ab a", "cD b", " -1", "ßX"]):  # hidden non-ASCII, then ASCII
        values = pd.Series(texts, dtype="str", name="k")
        column = rt.Series(values)._column
        assert isinstance(column, StringColumn)
        hidden = np.array([False, True, False, True])
        masked = rt.Series._from_column(column.set_missing(column.xp.asarray(hidden)), rt.Series(values).index, "k")
        expected = values.where(~hidden)
        check_same_outcome(lambda m=masked: call(m.str), lambda e=expected: call(e.str), assert_series_equal)


@pytest.mark.parametrize("call", CASE_CALLS, ids=CASE_METHODS)
def test_case_methods_all_valid_mask(call):
    from riptide.core.column import StringColumn

    for texts in (["ab a", "", "B-1"], ["Ab ß", "", "ǅ"]):
        values = pd.Series(texts, dtype="str")
        column = rt.Series(values)._column
        full_mask = StringColumn(column.offsets, column.chars, column.xp.ones(column.size, dtype=bool))
        series = rt.Series._from_column(full_mask, rt.Series(values).index, None)
        check_same_outcome(lambda r=series: call(r.str), lambda p=values: call(p.str), assert_series_equal)
