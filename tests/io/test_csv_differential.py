"""read_csv's default CPU path (pyarrow's parser, riptide/io/csv.py) against pandas.read_csv, by differential search.

Two generators: frames written by ``pandas.DataFrame.to_csv`` (what most files look like), and CSV text assembled
from hand-picked tricky field spellings (signs, NaN/inf spellings, whitespace-only lines and fields, quotes, bool
spellings, leading zeros, huge numbers), read with and without pandas' missing-value options. The riptide result,
whichever engine read it (pyarrow, or pandas' parser when riptide falls back), must equal pandas', with only
riptide's documented dtype differences (``tests.conftest.documented``).

``engine="pyarrow"`` pins the pyarrow path, so that the test means the same thing on a GPU machine (where the
default is the device parser, tested against pandas in tests/io/test_csv_device.py).
"""

from __future__ import annotations

import io
import string

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import documented

pytestmark = pytest.mark.filterwarnings("ignore::riptide.errors.HostFallbackWarning")


def assert_reads_as_pandas(raw: bytes | str, **kwargs) -> None:
    raw = raw.encode() if isinstance(raw, str) else raw
    try:
        expected = pd.read_csv(io.BytesIO(raw), **kwargs)
    except Exception as exc:  # noqa: BLE001 - the outcome is compared
        with pytest.raises(type(exc)):
            rt.read_csv(io.BytesIO(raw), engine="pyarrow", **kwargs)
        return
    got = rt.read_csv(io.BytesIO(raw), engine="pyarrow", **kwargs)
    # An empty object index (no rows) has no riptide twin: riptide has no object dtype (documented).
    pd.testing.assert_frame_equal(got.to_pandas(), documented(expected), check_index_type=len(expected) > 0)


# --------------------------------------------------------------------------- frames written by pandas

_TEXT = st.text(alphabet=string.ascii_letters + string.digits + ' ,"\n\t.-+éü日' + "'", max_size=8)


@st.composite
def frames(draw):
    n = draw(st.integers(1, 25))
    data = {}
    for i in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["int", "float", "bool", "text", "int_na", "float_na", "text_na", "bool_na",
                                     "date", "small_float"]))  # fmt: skip
        if kind.startswith("int"):
            column = pd.Series(draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=n, max_size=n)),
                               dtype="int64")  # fmt: skip
        elif kind.startswith("float"):
            column = pd.Series(draw(st.lists(st.floats(width=64), min_size=n, max_size=n)), dtype="float64")
        elif kind == "small_float":  # integral floats: written as "1.0", read back as float64
            column = pd.Series(draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)), dtype="float64")
        elif kind.startswith("bool"):
            column = pd.Series(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
        elif kind == "date":
            days = draw(st.lists(st.integers(0, 40_000), min_size=n, max_size=n))
            column = pd.Series(np.array(days, dtype="datetime64[D]").astype("datetime64[s]"))
        else:
            column = pd.Series(draw(st.lists(_TEXT, min_size=n, max_size=n)), dtype="str")
        if kind.endswith("_na"):
            holes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
            column = column.astype({"int_na": "float64", "bool_na": "object"}.get(kind, column.dtype)).mask(holes)
        data[f"c{i}"] = column
    return pd.DataFrame(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames(), st.sampled_from([",", ";", "\t", "|"]), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_pandas_written_frames(pdf, sep, line_end, index):
    raw = pdf.to_csv(index=index, sep=sep, lineterminator=line_end)
    assert_reads_as_pandas(raw, sep=sep, index_col=0 if index else None)


# --------------------------------------------------------------------------- hand-written tricky text

TRICKY_FIELDS = [
    "1", "-2", "+5", "007", "-0", "+0", "0", "12345678901234567890", "9223372036854775807", "-9223372036854775808",
    "1.5", "+1.5", "-.5", "5.", "1e5", "+1E-3", "1e400", "nan", "NaN", "NAN", "-nan", "+nan", "-NaN", "inf", "+inf",
    "-Infinity", "INF", "True", "false", "TRUE", "tRuE", "x", "a b", " 1", "2 ", " x ", "", " ", "\t", '""', '" "',
    '"1"', '"x,y"', '"a""b"', "NA", "N/A", "null", "None", "<NA>", "#N/A", "n/a", "2020-01-02", "10:30",
    "2020-01-02 03:04:05", "é", "日本",
]  # fmt: skip

_FIELD = st.sampled_from(TRICKY_FIELDS)


@st.composite
def tricky_text(draw):
    n_cols = draw(st.integers(1, 3))
    header = ",".join(f"c{i}" for i in range(n_cols))
    lines = [header]
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["row", "row", "row", "row", "blank", "spaces"]))
        if kind == "blank":
            lines.append("")
        elif kind == "spaces":
            lines.append(draw(st.sampled_from([" ", "  ", "\t", " \t "])))
        else:
            lines.append(",".join(draw(_FIELD) for _ in range(n_cols)))
    line_end = draw(st.sampled_from(["\n", "\r\n"]))
    return line_end.join(lines) + draw(st.sampled_from(["", line_end]))


_OPTIONS = st.sampled_from([
    {}, {"keep_default_na": False}, {"na_filter": False}, {"na_values": ["x"], "keep_default_na": False},
    {"na_values": ["nan", "1"]}, {"header": None}, {"dtype": str}, {"skip_blank_lines": True, "nrows": 2},
])  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tricky_text(), _OPTIONS)
def test_tricky_text(raw, options):
    assert_reads_as_pandas(raw, **options)


# --------------------------------------------------------------------------- cases found (regressions)

FOUND = {
    "plus sign on integers": ("a,b\n007,+5\n-01,0\n", {}),
    "plus sign with missing": ("a\n+5\n\n7\n", {}),
    "plus sign and a float": ("a\n+5\n1.5\n", {}),
    "integral floats stay floats": ("a\n5.0\n+1\n", {}),
    "exponent integral": ("a\n1e3\n+2\n", {}),
    "whitespace-only lines": ("a\n1\n \t\n2\n  \n", {}),
    "whitespace-only lines crlf": ("a\r\n1\r\n \r\n2\r\n", {}),
    "whitespace-only lines, text column": ("a\nx\n \ny\n", {}),
    "whitespace-only lines, two columns": ("a,b\n1,2\n  \n3,4\n", {}),
    "quoted whitespace is a value": ('a\n1\n" "\n2\n', {}),
    "whitespace before the header": (" \na\n1\n", {}),
    "nan kept as text without default na": ("a,b\nnan,1\n1,2\n", {"keep_default_na": False}),
    "nan kept as text without na filter": ("a\nNaN\n1.5\n", {"na_filter": False}),
    "NAN is text by default": ("a\nNAN\n1\n", {}),
    "+nan is text by default": ("a\n+nan\n1\n", {}),
    "nan and inf": ("a\ninf\nNAN\n", {}),
    "nan with other na values": ("a\nNA\nnan\n2\n", {"na_values": ["NA"], "keep_default_na": False}),
    "nan in a requested float column": ("a\nnan\n1\n", {"dtype": {"a": "float64"}, "keep_default_na": False}),
    "bools in any case": ("a,b\ntRuE,FALSE\nfalse,TRue\n", {}),
    "quoted empty field without na": ('c0,c1\n"",1\n', {"keep_default_na": False}),
    "quoted empty field without na filter": ('c0\n""', {"na_filter": False}),
    "nrows: a later row must not widen an int": ("a,b\n1,x\n2,y\n1.5,z\n", {"nrows": 2}),
    "nrows: a later row must not make text": ("a,b\n1,1\n1,2020-01-02\n", {"nrows": 1}),
    "nrows: bools before text": ("a\nTrue\nFalse\nx\n", {"nrows": 2}),
    "nrows: text stays text": ("a\nx\n1\n", {"nrows": 1}),
    "numeric na value matches by value in floats": ("a\n1.5\n 1\n1.0\n", {"na_values": ["1"]}),
    "numeric na value, int column": ("a\n 1\n01\n2\n", {"na_values": ["1"]}),
    "numeric na value, int column with missing": ("a\nNA\n 1\n2\n", {"na_values": ["1"]}),
    "int64 max with numeric na": ("a\n9223372036854775807\n", {"na_values": ["1"]}),
    "inf beside integers is float": ("a\n+5\ninf\n", {}),
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_found(name):
    raw, options = FOUND[name]
    assert_reads_as_pandas(raw, **options)
