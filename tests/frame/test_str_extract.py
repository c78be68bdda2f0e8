"""``Series.str`` with capture groups against pandas 3: extract, extractall, replace with group references and
escapes in ``repl``, split at a pattern with groups — on the device, without the host-fallback warning."""

from __future__ import annotations

import re
import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.core.regex.pandas_rules import RegexFallbackWarning
from tests.core.test_regex import patterns as any_patterns
from riptide.core.regex.parse import can_be_empty, parse
from tests.frame.test_str_regex import _python, patterns, str_series
from tests.frame.test_str_regex import same as _same

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _no_matches(frame) -> bool:
    return isinstance(frame, pd.DataFrame) and isinstance(frame.index, pd.MultiIndex) and len(frame) == 0


def same(s: pd.Series, call) -> None:
    """As pandas (see ``test_str_regex.same``), but an extractall result with no match at all is compared with
    index levels of any dtype (pandas' are empty object arrays, which riptide cannot hold)."""
    try:
        want = call(s.str)
    except Exception:  # noqa: BLE001 - compared by `_same`
        want = None
    if not _no_matches(want):
        return _same(s, call)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RegexFallbackWarning)
        got = call(rt.Series(s).str).to_pandas()
    pd.testing.assert_frame_equal(got, want, check_index_type=False)


@pytest.mark.xfail(strict=True, reason="no match at all: pandas' index levels are empty object arrays, which riptide "
                                       "cannot hold (riptide keeps the index's dtypes, int64 for 'match')")  # fmt: skip
def test_extractall_without_matches_level_dtypes():
    s = pd.Series(["b", None], dtype="str")
    pd.testing.assert_frame_equal(rt.Series(s).str.extractall("(a)").to_pandas(), s.str.extractall("(a)"))


def on_device(s: pd.Series, call) -> None:
    """riptide gives pandas' result (or its exception type) without computing on the host."""
    try:
        want = call(s.str)
    except Exception as error:  # noqa: BLE001 - the oracle's exception is the expectation
        with pytest.raises(type(error)):
            call(rt.Series(s).str)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error", RegexFallbackWarning)
        got = call(rt.Series(s).str).to_pandas()
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    else:
        pd.testing.assert_series_equal(got, want)


@st.composite
def group_patterns(draw, inner=patterns) -> str:
    """A pattern with one to three groups (named or not) around pieces of the grammar."""
    parts = draw(st.lists(inner(), min_size=1, max_size=3))
    out = ""
    for i, part in enumerate(parts):
        kind = draw(st.sampled_from(["(", "(", "(?P<g%d>" % i, "(?:"]))
        quantifier = draw(st.sampled_from(["", "", "?", "+"]))
        out += kind + part + ")" + quantifier
    if "(" not in out.replace("(?:", ""):
        out = "(" + out + ")"
    return out


def _compiles(pat: str) -> bool:
    try:
        re.compile(pat)
    except re.error:
        return False
    return True


@SETTINGS
@given(str_series(), group_patterns(), st.booleans())
def test_extract_against_pandas(s, pat, expand):
    if not _compiles(pat):
        return
    same(s, lambda acc: acc.extract(pat, expand=expand))
    same(s, lambda acc: acc.extract(pat, flags=re.IGNORECASE))
    same(s, lambda acc: acc.extractall(pat))


@SETTINGS
@given(str_series(), group_patterns(any_patterns))
def test_extract_any_pattern_against_pandas(s, pat):
    """Patterns that may match the empty string (extractall then holds empty matches, missing text)."""
    if not _compiles(pat):
        return
    same(s, lambda acc: acc.extract(pat))
    same(s, lambda acc: acc.extractall(pat))


_REPLS = [r"<\1>", r"\1\1", r"[\g<1>]", r"\g<0>!", r"\n\t", r"\\", r"\0", r"\12", r"\2-\1", r"\g<g0>"]


@SETTINGS
@given(str_series(), group_patterns(), st.sampled_from(_REPLS), st.integers(-1, 2))
def test_replace_template_and_split_against_pandas(s, pat, repl, n):
    if not _compiles(pat):
        return
    call = lambda acc: acc.replace(pat, repl, n=n, regex=True)  # noqa: E731
    try:
        call(s.str)
        pandas_raises = False
    except Exception:  # noqa: BLE001 - then riptide must raise the same (below)
        pandas_raises = True
    if can_be_empty(parse(pat)[0]) and not pandas_raises:
        # pandas' pyarrow kernel places empty matches differently: Python's rule here (n=0: the routes differ)
        try:
            want = _python(s, lambda v: re.sub(pat, repl, v, count=max(n, 0)), "str") if n != 0 else None
        except (re.error, IndexError):
            want = None
        if want is not None and "\\0" not in repl:
            # Python's re.sub reads the template r"\0" as a NUL character; pandas (and riptide) read it as the
            # whole match, so Python is no oracle for such a template
            _same(s, call, want)
    else:
        same(s, call)
    same(s, lambda acc: acc.replace(pat, repl, regex=True, case=False))
    same(s, lambda acc: acc.split(pat, n=n, expand=True, regex=True))


def test_email_on_device():
    s = pd.Series(["joe@mail.com", "x@y.org", None, "ann@site.com b@c.com", ""], index=[10, 20, 30, 40, 50],
                  name="m", dtype="str")  # fmt: skip
    pat = r"([a-z]+)@([a-z]+)\.com"
    on_device(s, lambda acc: acc.extract(pat))
    on_device(s, lambda acc: acc.extract(r"(?P<user>[a-z]+)@(?P<host>[a-z]+)\.com"))
    on_device(s, lambda acc: acc.extract(r"(?P<user>[a-z]+)@", expand=False))
    on_device(s, lambda acc: acc.extract(r"([a-z]+)@", expand=False))
    on_device(s, lambda acc: acc.extract(r"([a-z]+)@(x)?"))
    on_device(s, lambda acc: acc.extractall(pat))
    on_device(s, lambda acc: acc.extractall(r"(?P<user>[a-z]+)@(?P<d>\d)?"))
    on_device(s, lambda acc: acc.replace(pat, r"\2:\1", regex=True))
    on_device(s, lambda acc: acc.replace(pat, r"\g<2>\n\g<0>", regex=True))
    on_device(s, lambda acc: acc.replace(r"(?P<u>[a-z]+)@", r"<\g<u>>", regex=True, n=1))
    on_device(s, lambda acc: acc.split(r"(@)|(\.)", expand=True))
    on_device(s, lambda acc: acc.extract(re.compile(pat)))


@pytest.mark.parametrize("index", [None, pd.Index(list("vwxyz"), name="k"),
                                   pd.MultiIndex.from_tuples([(1, "a"), (1, "b"), (2, "a"), (2, "b"), (3, "a")],
                                                             names=["i", None])])  # fmt: skip
def test_extractall_index_levels(index):
    s = pd.Series(["a1b2", None, "é3", "", "c"], index=index, dtype="str")
    on_device(s, lambda acc: acc.extractall(r"([a-zé])(\d)?"))
    on_device(s, lambda acc: acc.extract(r"([a-zé])(\d)?"))


@pytest.mark.parametrize("values", [[], [None, None], ["", ""], ["x\ny\n", "中文😀"]])
def test_edge_columns(values):
    s = pd.Series(values, dtype="str")
    for pat in [r"(\w)(\w)?", "(y)$", "(?m)^(.)", r"(😀|文)"]:
        same(s, lambda acc: acc.extract(pat))
        same(s, lambda acc: acc.extract(pat, expand=False))
        same(s, lambda acc: acc.extractall(pat))
        same(s, lambda acc: acc.replace(pat, r"[\1]", regex=True))
        same(s, lambda acc: acc.split(pat, expand=True, regex=True))


def test_bad_arguments_as_pandas():
    s = pd.Series(["a1", None], dtype="str")
    for call in [lambda acc: acc.extract("a"), lambda acc: acc.extract("(a"), lambda acc: acc.extract(1),
                 lambda acc: acc.extract("(a)", expand="yes"), lambda acc: acc.extractall("a"),
                 lambda acc: acc.extract(re.compile("(a)"), flags=re.I), lambda acc: acc.replace("(a)", r"\2", regex=True),
                 lambda acc: acc.replace("(a)", r"\g<x>", regex=True), lambda acc: acc.replace("(a)", r"\q", regex=True),
                 lambda acc: acc.replace("a", r"\1", case=False)]:  # fmt: skip
        same(s, call)


def test_unsupported_still_agrees_with_a_warning():
    s = pd.Series(["ab", "b", None], dtype="str")
    with pytest.warns(RegexFallbackWarning, match="lookahead"):
        got = rt.Series(s).str.extract(r"(a)(?=b)")
    pd.testing.assert_frame_equal(got.to_pandas(), s.str.extract(r"(a)(?=b)"))
    with pytest.warns(RegexFallbackWarning, match="empty string"):
        got = rt.Series(s).str.extractall(r"(a|)*(b)")
    pd.testing.assert_frame_equal(got.to_pandas(), s.str.extractall(r"(a|)*(b)"))
