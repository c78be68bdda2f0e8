"""The issue-4 benchmark suite (riptide/benchmarks/cases_text.py): its data is what its docstring promises, and
the speedup goals are judged against the peers measured in the same run."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from riptide.benchmarks import cases_text, harness
from riptide.benchmarks.harness import CaseResult, Reference, Timing


def test_text_data_shape_and_content():
    s = cases_text.text_data(5000, seed=3)
    assert str(s.dtype) == "str" and len(s) == 5000
    lengths = s.str.len()
    assert lengths.min() >= 5 and lengths.max() <= 40
    share = s.str.contains(cases_text.EMAIL).mean()
    assert 0.2 < share < 0.4
    assert s.str.contains(r"\d").any() and s.str.contains(" ").any() and s.str.match("[A-Z]").any()
    assert s.equals(cases_text.text_data(5000, seed=3))  # seeded


def test_iso_timestamps_parse_to_the_instants_they_were_built_from():
    strings = cases_text.iso_timestamps(2000, seed=1)
    assert strings.str.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d").all()
    expected = cases_text.timestamps(2000, seed=1).dt.floor("s")
    pd.testing.assert_series_equal(pd.to_datetime(strings), expected, check_dtype=False)


def test_id3_labels():
    numbers = cases_text.id3_numbers(10_000)
    labels = cases_text.id3_labels(numbers)
    assert labels.str.len().eq(12).all()
    assert [int(t[2:]) for t in labels[:50]] == numbers[:50].tolist()
    assert numbers.min() >= 1 and numbers.max() <= 100


def _result(riptide: float, pandas: float | None, reference: Reference) -> CaseResult:
    case = type("C", (harness.Case,), {"name": "c", "reference": reference})()
    timings = {"riptide": Timing([riptide])}
    if pandas is not None:
        timings["pandas"] = Timing([pandas])
    return CaseResult(case, 100_000_000, "", None, timings)


def test_speedup_goals_are_judged_against_peers_run_alongside():
    ref = Reference(pandas=None, cudf=None, goal=None, min_speedup=(("pandas", 100),))
    assert _result(0.001, 0.2, ref).goal_met() is True
    assert _result(0.001, 0.05, ref).goal_met() is False
    assert _result(0.001, None, ref).goal_met() is None  # pandas not run: no verdict
    both = Reference(pandas=None, cudf=None, goal=0.002, min_speedup=(("pandas", 100),))
    assert _result(0.003, 1.0, both).goal_met() is False  # fast enough against pandas, not the time goal
    assert re.fullmatch(r"2(\.0+)? ?ms,100x pd", harness._goal_text(both))


def test_every_case_is_registered_with_a_reference():
    cases = harness.load_cases()
    names = {"str_lower", "str_contains_regex", "str_len", "str_startswith", "str_contains_literal",
             "str_replace_regex", "str_extract", "str_split_expand", "to_datetime_iso", "dt_year", "dt_floor",
             "udf_apply", "udf_vectorised", "groupby_id3_str", "groupby_id3_int"}  # fmt: skip
    assert names <= set(cases)
    assert all(cases[n].reference is not None for n in names)
    assert np.isfinite(cases_text._scalar_udf(0.7)) and cases_text._scalar_udf(0.2) == 0.2 * 0.2 - 1.0
