"""``Series.str`` with regular expressions against pandas 3 (and Python's ``re`` where pandas' pyarrow kernels
deviate from it): contains / match / fullmatch / count / replace / split, the host fallback and its warning,
invalid patterns."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.core.regex.pandas_rules import RegexFallbackWarning

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_ATOMS = ["a", "b", "é", "中", ".", r"\d", "[ab]", "[^a]", "[a-é]", "x", "[é中]", "A"]


@st.composite
def patterns(draw, depth: int = 0) -> str:
    """Patterns that cannot match the empty string (there pandas' RE2 kernels and Python's re agree)."""
    choice = draw(st.integers(0, 7)) if depth < 3 else 0
    if choice <= 2:
        return draw(st.sampled_from(_ATOMS))
    if choice <= 4:
        return draw(patterns(depth + 1)) + draw(patterns(depth + 1))
    if choice == 5:
        return "(?:" + draw(patterns(depth + 1)) + "|" + draw(patterns(depth + 1)) + ")"
    if choice == 6:
        inner = draw(patterns(depth + 1))
        return "(?:" + inner + ")" + draw(st.sampled_from(["+", "{1,2}", "+?", "{2}"]))
    return draw(st.sampled_from(["^", r"\b"])) + draw(patterns(depth + 1)) + draw(st.sampled_from(["", "$"]))


@st.composite
def str_series(draw, alphabet: str = "aAb1 _é中\n") -> pd.Series:
    values = draw(st.lists(st.one_of(st.none(), st.text(alphabet=alphabet, max_size=8)), max_size=12))
    return pd.Series(values, dtype="str", name=draw(st.sampled_from([None, "s"])))


def _to_pandas(result):
    return result.to_pandas() if hasattr(result, "to_pandas") else result


def same(s: pd.Series, call, expected=None) -> None:
    """riptide gives pandas' result (or ``expected``), or raises the same exception type."""
    try:
        want = call(s.str) if expected is None else expected
    except Exception as error:  # noqa: BLE001 - the oracle's exception is the expectation
        with pytest.raises(type(error)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RegexFallbackWarning)
                call(rt.Series(s).str)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RegexFallbackWarning)
        got = _to_pandas(call(rt.Series(s).str))
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    else:
        pd.testing.assert_series_equal(got, want)


def _python(s: pd.Series, fn, dtype) -> pd.Series:
    """The answer of Python's re per row (what pandas' object path computes)."""
    out = pd.Series([fn(v) if isinstance(v, str) else np.nan for v in s], index=s.index, name=s.name, dtype=object)
    return out.astype(dtype)


def _count_dtype(s: pd.Series) -> str:
    return "float64" if s.isna().any() else "int64"


@SETTINGS
@given(str_series(), patterns(), st.booleans())
def test_predicates_and_count_against_pandas(s, pat, case):
    same(s, lambda acc: acc.contains(pat, case=case))
    same(s, lambda acc: acc.match(pat, case=case, na=True))
    same(s, lambda acc: acc.fullmatch(pat, case=case))
    # pandas' pyarrow count loses ^ after the first match ("11" has two '^.'), so Python's re is the oracle
    same(s, lambda acc: acc.count(pat), _python(s, lambda v: len(re.findall(pat, v)), _count_dtype(s)))
    same(s, lambda acc: acc.contains(pat, flags=re.IGNORECASE | re.MULTILINE))


@SETTINGS
@given(str_series(), patterns(), st.integers(-2, 3))
def test_replace_and_split_against_pandas(s, pat, n):
    if n > 1:  # pandas' pyarrow route re-searches after each of n replacements, losing ^ ("11": '^.' twice)
        same(s, lambda acc: acc.replace(pat, "<>", n=n, regex=True),
             _python(s, lambda v: re.sub(pat, "<>", v, count=n), "str"))  # fmt: skip
    else:
        same(s, lambda acc: acc.replace(pat, "<>", n=n, regex=True))
    same(s, lambda acc: acc.replace(pat, "", regex=True, case=False))
    same(s, lambda acc: acc.split(pat, n=n, expand=True, regex=True))


@pytest.mark.parametrize("pat", ["a*", "x*", "|a", r"\b", "a??", "(?:a|)"])
def test_empty_matches_follow_python(pat):
    s = pd.Series(["abc", "aaa", "", None, "baaac", "ab\nab", "é中"], dtype="str")
    same(s, lambda acc: acc.count(pat), _python(s, lambda v: len(re.findall(pat, v)), _count_dtype(s)))
    same(s, lambda acc: acc.replace(pat, "-", regex=True), _python(s, lambda v: re.sub(pat, "-", v), "str"))
    same(s, lambda acc: acc.split(pat, expand=True, regex=True))  # pandas splits with Python's re.split


@pytest.mark.xfail(strict=True, reason="pandas' pyarrow kernel counts and replaces empty matches differently from "
                                       "Python's re (riptide follows Python's rule)")  # fmt: skip
def test_empty_matches_differ_from_pandas_pyarrow():
    s = pd.Series(["aaa", "abc"], dtype="str")
    same(s, lambda acc: acc.replace("a*", "-", regex=True))


@pytest.mark.parametrize("values", [[], [None, None], ["", ""], ["a"], ["中文😀", "x\ny\n", "\n"]])
@pytest.mark.parametrize("pat", [r"\w+", "^.$", r"\d", "y$", "(?m)^y$", r"[^\n]+\Z", "😀|文"])
def test_edge_columns(values, pat):
    s = pd.Series(values, dtype="str")
    same(s, lambda acc: acc.contains(pat))
    same(s, lambda acc: acc.match(pat))
    same(s, lambda acc: acc.fullmatch(pat))
    same(s, lambda acc: acc.count(pat))
    same(s, lambda acc: acc.replace(pat, "#", regex=True))
    same(s, lambda acc: acc.split(pat, expand=True, regex=True))


def test_email_and_index_kept():
    s = pd.Series(["joe@mail.com", "x@y.org", None, "Ann@Site.COM"], index=[10, 20, 30, 40], name="m", dtype="str")
    same(s, lambda acc: acc.contains(r"[a-z]+@[a-z]+\.com"))
    same(s, lambda acc: acc.contains(r"[a-z]+@[a-z]+\.com", case=False, na=True))
    same(s, lambda acc: acc.contains(re.compile(r"[a-z]+@[a-z]+\.com", re.IGNORECASE)))
    same(s, lambda acc: acc.replace(r"@\w+", "@host", regex=True))
    same(s, lambda acc: acc.split(r"[@.]", n=1, expand=True))


@pytest.mark.parametrize("pat", ["a(", "[b", "a{2,1}", "*a", "a*+", "(?>a)", r"(?<=a+)b", "a{,2}", r"\p{L}", "(?x) a"])
def test_invalid_or_engine_specific_patterns_as_pandas(pat):
    s = pd.Series(["a{,2}b", "aab", None], dtype="str")
    for call in [lambda acc: acc.contains(pat), lambda acc: acc.match(pat), lambda acc: acc.count(pat),
                 lambda acc: acc.replace(pat, "-", regex=True), lambda acc: acc.split(pat, expand=True, regex=True)]:
        same(s, call)


def test_fallback_warns_once_and_agrees():
    s = pd.Series(["ab", "ac", None], dtype="str")
    r = rt.Series(s)
    with pytest.warns(RegexFallbackWarning, match="lookahead"):
        got = r.str.contains("a(?=b)")
    pd.testing.assert_series_equal(got.to_pandas(), s.str.contains("a(?=b)"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RegexFallbackWarning)
        r.str.contains("a(?=b)")  # the second call does not warn again


def test_device_path_does_not_warn():
    r = rt.Series(["ab1", None, "中2"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RegexFallbackWarning)
        r.str.contains(r"\d")
        r.str.count(r"[a-z]")
        r.str.replace(r"\d+", "#", regex=True)
        r.str.split(r"\d", expand=True)


@pytest.mark.parametrize("call", [
    lambda acc: acc.extract(r"([a-z])(\d)"), lambda acc: acc.extract(r"(?P<letter>[a-z])(\d)?"),
    lambda acc: acc.extract(r"([a-z])", expand=False), lambda acc: acc.extractall(r"(\d)"),
    lambda acc: acc.replace(r"(\d)", r"<\1>", regex=True), lambda acc: acc.split(r"(\d)", expand=True),
    lambda acc: acc.contains(r"\bb"), lambda acc: acc.replace("a", lambda m: m.group(0).upper(), regex=True),
    lambda acc: acc.count("(|a)*"),
])  # fmt: skip
def test_host_fallbacks_agree(call):
    s = pd.Series(["a1b2", None, "é b3", "", "c"], index=list("vwxyz"), dtype="str")
    same(s, call)


def test_findall_not_implemented():
    with pytest.raises(NotImplementedError, match="lists"):
        rt.Series(["a"]).str.findall("a")


@pytest.mark.parametrize("call", [
    lambda acc: acc.contains(re.compile("a"), flags=re.I), lambda acc: acc.fullmatch(re.compile("a"), flags=re.I),
    lambda acc: acc.count(re.compile("a"), flags=re.I), lambda acc: acc.match(re.compile("a"), flags=re.I),
    lambda acc: acc.match(re.compile("a"), case=False), lambda acc: acc.match(re.compile("a", re.I), flags=re.I),
    lambda acc: acc.match(re.compile("a", re.I), case=False), lambda acc: acc.contains(re.compile("a"), case=False),
    lambda acc: acc.count(re.compile("a"), flags=0),
])  # fmt: skip
def test_compiled_pattern_with_flags_or_case(call):
    """pandas refuses flags next to a compiled pattern (ValueError), except flags that match's compiled pattern
    already has."""
    same(pd.Series(["ab", "Ab", None], dtype="str"), call)


def test_bad_arguments():
    s = pd.Series(["a", None], dtype="str")
    same(s, lambda acc: acc.contains(1))
    same(s, lambda acc: acc.match(None))
    same(s, lambda acc: acc.contains("a", na="x"))
    same(s, lambda acc: acc.replace("a", 1, regex=True))
    same(s, lambda acc: acc.replace(re.compile("a"), "b", case=False))
    same(s, lambda acc: acc.count(1))
