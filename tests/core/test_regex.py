"""The regex engine's pieces against Python's ``re``: UTF-8 ranges, the DFA tables (host walk vs the xp twins) and
the column operations (search / match / fullmatch / finditer spans) on hypothesis-generated patterns and text."""

from __future__ import annotations

import random
import re

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riptide.core.column import StringColumn
from riptide.core.regex import dfa, match, nfa, ops, parse
from riptide.core.regex.parse import Unsupported

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_ATOMS = ["a", "b", "é", "中", ".", r"\d", r"\w", r"\s", "[ab]", "[^a]", "[a-é]", r"\n", "x", r"\W", "[é中]", "😀"]
_QUANTIFIERS = ["*", "+", "?", "*?", "+?", "??", "{2}", "{1,3}", "{0,2}?"]
_ANCHORS = ["^", "$", r"\A", r"\Z", r"\b", r"\B"]


@st.composite
def patterns(draw, depth: int = 0) -> str:
    """Patterns from a small grammar: atoms, concatenation, alternation, groups, quantifiers and anchors."""
    choice = draw(st.integers(0, 9)) if depth < 3 else 0
    if choice <= 2:
        return draw(st.sampled_from(_ATOMS))
    if choice <= 4:
        return draw(patterns(depth + 1)) + draw(patterns(depth + 1))
    if choice == 5:
        group = draw(st.sampled_from(["(", "(?:", "(?P<g>"]))
        return group + draw(patterns(depth + 1)) + "|" + draw(patterns(depth + 1)) + ")"
    if choice <= 7:
        inner = draw(patterns(depth + 1))
        inner = inner if len(inner) == 1 else "(?:" + inner + ")"
        return inner + draw(st.sampled_from(_QUANTIFIERS))
    anchor = draw(st.sampled_from(_ANCHORS))
    body = draw(patterns(depth + 1))
    return anchor + body if choice == 8 else body + anchor


_TEXT = "aAb1 _\n\x0béé中😀"
texts = st.lists(st.one_of(st.none(), st.text(alphabet=_TEXT, max_size=8)), min_size=1, max_size=12)
flag_values = st.sampled_from([0, 0, re.IGNORECASE, re.MULTILINE, re.DOTALL, re.ASCII])


def _column(values: list) -> StringColumn:
    return StringColumn.from_arrow(pa.array(values, pa.large_string()), np)


def _char_spans(values: list, column: StringColumn, rows, starts, ends) -> list:
    out: list = [[] for _ in values]
    offsets = column.offsets.tolist()
    for r, s, e in zip(rows.tolist(), starts.tolist(), ends.tolist()):
        data = values[r].encode()
        o = offsets[r]
        out[r].append((len(data[: s - o].decode()), len(data[: e - o].decode())))
    return out


def _check_against_re(pat: str, flags: int, values: list) -> bool:
    """Every operation of ``ops`` against ``re`` on ``values``; False when the engine declines the pattern."""
    column = _column(values)
    tested = False
    for name, fn in [("contains", re.search), ("match", re.match), ("fullmatch", re.fullmatch)]:
        try:
            got = getattr(ops, name)(column, pat, flags).data.tolist()
        except Unsupported:
            continue
        tested = True
        expected = [v is not None and fn(pat, v, flags) is not None for v in values]
        assert got == expected, (name, pat, flags)
    try:
        counts, rows, starts, ends = ops.spans(column, pat, flags)
        count = ops.count(column, pat, flags)
    except Unsupported:
        return tested
    expected = [[m.span() for m in re.finditer(pat, v, flags)] if v is not None else [] for v in values]
    assert _char_spans(values, column, rows, starts, ends) == expected, (pat, flags)
    assert counts.tolist() == [len(e) for e in expected]
    valid = [v is not None for v in values]
    got_count = count.data.tolist()
    assert [g for g, ok in zip(got_count, valid) if ok] == [len(e) for e, ok in zip(expected, valid) if ok]
    return True


@SETTINGS
@given(patterns(), flag_values, texts)
def test_engine_against_python_re(pat, flags, values):
    try:
        re.compile(pat, flags)
    except re.error:
        return
    _check_against_re(pat, flags, values)


@pytest.mark.parametrize("pat, text", [
    ("a+", "xaay"), ("ab|b", "abab"), ("a|b|ab", "ab"), ("x*", "abé"), ("|a", "abc"), ("a*", "baaac"),
    (r"\b", "ab\nab cd"), ("$", "ab\n"), ("(?m)^", "a\nb\n"), ("(?m)$", "a\nb\n"), ("$", "a\n\n"),
    (r"[a-z]+@[a-z]+\.com", "x foo@bar.com y@z.com"), ("é+", "ééxé"), ("(?i)É", "éÉe"), (r"\w+", "héllo wörld_1 中文"),
    (".", "a\nb"), ("(?s).", "a\nb"), ("a.*?b", "aXbXb"), ("a{2,3}", "aaaaaaa"), ("a{2,3}?", "aaaaaaa"),
    (r"\Bb", "ab b"), (r"\d+", "12 ٣٤"), (r"\s+", "a \x0b\u3000b"), ("(a|ab)(c|bcd)", "abcd"), ("[^a]", "aé"),
    ("^$", ""), (r"\B", ""), ("$", ""), ("(?:)", "ab"), ("(?i)k", "kKK"), (r"\Z", "a\n"), (r"a\Z", "a\n"),
    ("😀|中", "a😀中"), (r"(?a)\w+", "héllo"), (r"\D+", "a1é"),
])  # fmt: skip
def test_edge_cases(pat, text):
    assert _check_against_re(pat, 0, [text, None, ""])


def test_unsupported_constructs():
    for pat in [r"(?=a)", r"(?<=a)b", r"(a)\1", r"(a)?(?(1)a|b)", "a*+", "(?>a)"]:
        with pytest.raises(Unsupported):
            parse.parse(pat)
    with pytest.raises(re.error):
        parse.parse("a(")
    column = _column(["é b"])
    with pytest.raises(Unsupported, match="word boundaries"):
        ops.contains(column, r"\bb")
    assert ops.contains(_column(["a b"]), r"\bb").data.tolist() == [True]
    with pytest.raises(Unsupported, match="empty string"):
        ops.count(_column(["aa"]), "(|a)*")
    assert ops.contains(_column(["aa"]), "(|a)*").data.tolist() == [True]  # booleans need no priorities


def test_state_cap():
    with pytest.raises(Unsupported, match="states"):
        dfa.compile_program("(a|b)*a(a|b){14}", 0, "search")


def test_utf8_sequences_cover_exactly():
    rng = random.Random(0)
    probes = list(range(0x900)) + rng.sample(range(0x110000), 5000) + [0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF]
    for _ in range(60):
        lo = rng.randrange(0x110000)
        hi = min(0x10FFFF, lo + rng.choice([0, 5, 300, 70000, 2000000]))
        seqs = nfa.utf8_sequences(lo, hi)
        for cp in probes:
            if 0xD800 <= cp <= 0xDFFF:
                continue
            data = chr(cp).encode()
            hit = any(len(s) == len(data) and all(a <= x <= b for (a, b), x in zip(s, data)) for s in seqs)
            assert hit == (lo <= cp <= hi), (hex(cp), lo, hi)


@SETTINGS
@given(patterns(), texts)
def test_tables_xp_twin_agree_with_host_walk(pat, values):
    """The vectorised walks (the CPU twins of the kernels) give the host reference walk's answers."""
    try:
        program = dfa.compile_program(pat, 0, "search")
    except (re.error, Unsupported):
        return
    column = _column([v if v is not None else "" for v in values])
    first = match.first_match(column.chars, column.offsets, program, np).tolist()
    counts = match.scan(column.chars, column.offsets, None, program, -1, False, np)[0].tolist()
    for i, v in enumerate(values):
        data = (v or "").encode()
        assert first[i] == (dfa.simulate(program, data, stop_at_first=True)[0] >= 0)
        n, pos, suppress = 0, 0, False
        while pos <= len(data):
            end, flag = dfa.simulate(program, data, pos, suppress)
            if end < 0:
                break
            n, pos, suppress = n + 1, end, flag == 2
        assert counts[i] == n


def test_limit_and_missing_rows():
    column = _column(["a1b2c3", None, "", "123"])
    counts, rows, starts, ends = ops.spans(column, r"\d", limit=2)
    assert counts.tolist() == [2, 0, 0, 2]
    assert rows.tolist() == [0, 0, 3, 3]
    assert (starts.tolist(), ends.tolist()) == ([1, 3, 6, 7], [2, 4, 7, 8])
    assert ops.replace(column, r"\d", "<>", 2).to_arrow().to_pylist() == ["a<>b<>c3", None, "", "<><>3"]
    assert ops.count(column, r"\d").data.tolist()[0] == 3
