"""The capture-group engine (a tabulated Pike VM over each match's span) against Python's ``re``: every group span
of every ``re.finditer`` match, on hypothesis-generated patterns (the grammar of ``tests/core/test_regex.py``),
flags and text; the replacement templates; ``re.split`` with groups."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riptide.core.column import StringColumn
from riptide.core.regex import captures
from riptide.core.regex.parse import Unsupported
from tests.core.test_regex import flag_values, patterns, texts

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _column(values: list) -> StringColumn:
    return StringColumn.from_arrow(pa.array(values, pa.large_string()), np)


def _char(data: bytes, offset: int, b: int) -> int:
    return -1 if b < 0 else len(data[: b - offset].decode())


def _check_groups(pat: str, flags: int, values: list) -> bool:
    """Every match's group spans against ``re.finditer``; False when the engine declines the pattern."""
    column = _column(values)
    try:
        counts, rows, starts, ends, groups = captures.group_spans(column, pat, flags)
    except Unsupported:
        return False
    offsets = column.offsets.tolist()
    got: list = [[] for _ in values]
    for r, s, e, g in zip(rows.tolist(), starts.tolist(), ends.tolist(), groups.tolist()):
        data = values[r].encode()
        got[r].append(tuple(_char(data, offsets[r], b) for b in [s, e] + g))
    expected = [[tuple(x for i in range(m.re.groups + 1) for x in m.span(i)) for m in re.finditer(pat, v, flags)]
                if v is not None else [] for v in values]  # fmt: skip
    assert got == expected, (pat, flags)
    return True


def _grouped(draw_pattern: str, where: int) -> str:
    """Make sure the pattern has groups: wrap it (or not) in one more group."""
    return ["(" + draw_pattern + ")", draw_pattern, "(?P<n>" + draw_pattern + ")"][where]


@SETTINGS
@given(patterns(), st.integers(0, 2), flag_values, texts)
def test_groups_against_python_re(pat, where, flags, values):
    pat = _grouped(pat, where)
    try:
        re.compile(pat, flags)
    except re.error:
        return
    _check_groups(pat, flags, values)


@pytest.mark.parametrize("pat, text", [
    (r"([a-z]+)@([a-z]+)\.com", "x foo@bar.com y@z.com"), ("(a|ab)(c|bcd)(d*)", "abcd"), ("(?:(a)|b)+", "abba"),
    ("(a*?)(a*)", "aaa"), ("(a)?(?P<x>b)?", "abbc"), ("^(a)|(b)$", "ab\nb\n"), ("(?m)^(.)", "ab\ncd\n"),
    (r"(\b\w)", "ab cd"), ("((a)|(b))*", "abab"), ("(a)|(b)|(c)", "cba"), ("(a+)+b", "aaab"), ("(é|中)+(😀)?", "é中😀x"),
    ("(?i)(k)", "kK\u212a"), ("(a{2,3}?)(a*)", "aaaaa"), ("(.)(?s:(.))", "a\nb"), ("()", "ab"), ("(x*)", "ab"),
    (r"(\d+)(\.\d+)?", "1.5 22 .3"), ("(a|)(b)", "b ab"),
])  # fmt: skip
def test_edge_cases(pat, text):
    assert _check_groups(pat, 0, [text, None, ""])


def test_declined_patterns():
    with pytest.raises(Unsupported, match="empty string"):
        captures.group_spans(_column(["a"]), "(a|)*")
    with pytest.raises(Unsupported, match="word boundaries"):
        captures.group_spans(_column(["é b"]), r"(\bb)")
    with pytest.raises(Unsupported, match="groups"):
        captures.compile_captures("(a)" * 40, 0)


def test_xp_twin_matches_kernel_layout():
    """The tables index as the kernel reads them: targets[k, kind, symbol, slot] with the match id n_kernel."""
    program = captures.compile_captures(r"([a-z]+)@([a-z]+)\.com", 0)
    assert program.targets.shape == (program.n_kernel, 5, program.n_symbols, program.width)
    assert program.targets.max() == program.match_id
    assert program.n_kernel * (4 * program.n_groups + 1) <= captures.KERNEL_LOCAL_INTS


@pytest.mark.parametrize("repl, pattern, re2, expected", [
    (r"<\1>", "(a)", False, ["<", 1, ">"]), (r"\g<x>\g<0>", "(?P<x>a)", False, [1, 0]), (r"\n\\", "a", False, ["\n\\"]),
    (r"\12", "(a)", True, [1, "2"]), (r"\0\\", "(a)", True, [0, "\\"]), ("plain", "a", True, ["plain"]),
])  # fmt: skip
def test_parse_template(repl, pattern, re2, expected):
    assert captures.parse_template(repl, pattern, 0, re2) == expected


def test_parse_template_errors():
    with pytest.raises(re.error):
        captures.parse_template(r"\2", "(a)", 0, False)
    with pytest.raises(Unsupported):
        captures.parse_template(r"\2", "(a)", 0, True)
    with pytest.raises(Unsupported):
        captures.parse_template(r"\n", "(a)", 0, True)


_REPLS = [r"<\1>", r"\g<0>\g<0>", r"[\1|\2]", r"\n-", "", r"\g<2>\1\\"]


@settings(SETTINGS, max_examples=30)
@given(patterns(), st.sampled_from(_REPLS), st.integers(-1, 2), texts)
def test_replace_and_split_against_python_re(pat, repl, n, values):
    pat = "(" + pat + ")(x?)"
    try:
        compiled = re.compile(pat)
    except re.error:
        return
    column = _column(values)
    limit = n if n > 0 else -1  # re.sub / re.split: count 0 means all
    try:
        template = captures.parse_template(repl, pat, 0, False)
        got = captures.replace(column, pat, template, limit).to_arrow().to_pylist()
        begin, end, valid, per_row = captures.split_pieces(column, pat, limit)
    except Unsupported:
        return
    count = max(n, 0)
    assert got == [None if v is None else compiled.sub(repl, v, count=count) for v in values]
    chars = column.chars.tobytes()
    pieces = [None if not ok else chars[b:e].decode() for b, e, ok in zip(begin.tolist(), end.tolist(), valid.tolist())]
    expected = [p for v in values if v is not None for p in compiled.split(v, maxsplit=count)]
    assert pieces == expected
