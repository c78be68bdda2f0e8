"""The device CSV parser (riptide/io/csv_device.py) against pandas.read_csv and riptide's pyarrow path.

Every case checks which engine read the file: the device parser must read the files it covers (a silent fallback
would leave it untested), and hand the others to the pyarrow/pandas path, which must then give pandas' answer.
On a machine without a GPU the device parser runs on NumPy: it is the same code that runs on CuPy.
"""

from __future__ import annotations

import io
import os
import string
import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
import riptide.io.csv_device as device
from riptide.io.csv import _Fallback
from tests.conftest import documented

pytestmark = pytest.mark.filterwarnings("ignore::riptide.errors.HostFallbackWarning")


def read_device(raw: bytes | str, **kwargs):
    """rt.read_csv(raw, **kwargs) and whether the device parser read it ("device") or handed it on ("fallback")."""
    raw = raw.encode() if isinstance(raw, str) else raw
    outcome = []
    original = device.read_csv_device

    def spy(source, options):
        try:
            result = original(source, options)
        except _Fallback:
            outcome.append("fallback")
            raise
        outcome.append("device")
        return result

    kwargs.setdefault("engine", "riptide")  # the default on a GPU; on NumPy the default is pyarrow's parser
    with mock.patch.object(device, "read_csv_device", spy):
        result = rt.read_csv(io.BytesIO(raw), **kwargs)
    return result, (outcome[0] if outcome else "not called")


# Files on which riptide's pyarrow path (riptide/io/csv.py) differs from pandas, and the device parser does not
# (the device result is then compared with pandas only). Empty: '+5', lines of blanks and 'nan' without the default
# missing values now read as pandas reads them on both paths (tests/io/test_csv_differential.py).
ARROW_PATH_DEVIATES: dict[str, str] = {}


def assert_device_matches(raw: bytes | str, engine_used: str = "device", **kwargs):
    """The device result equals pandas' and the pyarrow path's; ``engine_used`` says who must have read it."""
    raw = raw.encode() if isinstance(raw, str) else raw
    got, used = read_device(raw, **kwargs)
    assert used == engine_used, f"expected the {engine_used} path, the file went to the {used} path"
    expected = pd.read_csv(io.BytesIO(raw), **kwargs)
    pd.testing.assert_frame_equal(got.to_pandas(), expected)
    if raw.decode("utf-8", "replace") in ARROW_PATH_DEVIATES:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arrow = rt.read_csv(io.BytesIO(raw), engine="pyarrow", **kwargs)
    pd.testing.assert_frame_equal(got.to_pandas(), arrow.to_pandas())


def assert_same_error(raw: bytes | str, **kwargs):
    raw = raw.encode() if isinstance(raw, str) else raw
    with pytest.raises(Exception) as theirs:
        pd.read_csv(io.BytesIO(raw), **kwargs)
    with pytest.raises(type(theirs.value)) as mine:
        rt.read_csv(io.BytesIO(raw), engine="riptide", **kwargs)
    return mine.value, theirs.value


# --------------------------------------------------------------------------- the corpus

CORPUS = {
    "plain": "a,b,c\n1,2.5,x\n3,4.0,y\n",
    "no final newline": "a,b\n1,2\n3,4",
    "crlf": "a,b\r\n1,x\r\n2,y\r\n",
    "crlf no final newline": "a,b\r\n1,x\r\n2,y",
    "quoted separators": 'a,b\n"1,2",3\n"x",4\n',
    "embedded newline": 'a,b\n"line one\nline two",1\n"z",2\n',
    "embedded crlf": 'a,b\n"x\r\ny",3\n"q",4\r\n',
    "doubled quotes": 'a,b\n"say ""hi""",1\n"""",2\n"""x""",3\n',
    "quoted empty is missing": 'a,b\n"",1\nx,2\n',
    "quoted number": 'a,b\n"1",2\n"3",4\n',
    "quoted header": '"a,1","b""2"\n1,2\n',
    "missing fields": "a,b,c\n1,2\n3\n4,5,6\n",
    "empty fields": "a,b,c\n1,,x\n,,\n2,3,\n",
    "blank lines": "\na,b\n\n1,2\n\n\n3,4\n\n",
    "whitespace lines": "a\n1\n \t\n2\n  \n",
    "unicode": "name,v\nzoë,1\n日本語,2\n\"é,ü\",3\n",
    "unicode header": "ä,日\n1,2\n",
    "exponents": "a,b\n1e5,1E-3\n-2.5e+10,.5\n3.,+4e0\n",
    "inf and nan spellings": "a,b\ninf,NaN\n-Infinity,nan\n+INF,NA\niNf,null\n",
    "huge exponents": "a,b\n1e400,1e-400\n-1e309,4.9e-324\n",
    "int64 bounds": "a,b\n9223372036854775807,-9223372036854775808\n0,-0\n",
    "leading zeros and signs": "a,b\n007,+5\n-01,0\n",
    "spaces around numbers": "a,b\n 1,2 \n3 , 4\n",
    "spaces in text": "a,b\n x ,1\ny,2\n",
    "int with missing": "a,b\n1,x\n,y\n3,z\n",
    "all missing": "a,b\n,1\nNA,2\n",
    "bools": "a,b\nTrue,false\nFALSE,TRUE\ntrue,False\n",
    "bool-like text": "a\nTrue\nyes\n",
    "na strings": "a,b\n#N/A,1\nN/A,2\nNULL,3\n<NA>,4\nn/a,5\n-nan,6\nNone,7\n1.0,8\n",
    "long values": "a,b\n" + "x" * 300 + ",1\n" + "y" * 10 + ",2\n",
    "many digits": "a\n0.1000000000000000055511151231257827\n123456789012345678901234567890.5\n2.2250738585072014e-308\n",
    "17 digit reprs": "a\n0.30000000000000004\n1.7976931348623157e+308\n5e-324\n",
    "one column": "a\n1\n2\n3\n",
    "one row": "a,b\n1,2\n",
    "unnamed header": "a,,c\n1,2,3\n",
    "dates as text": "d,t\n2020-01-02,10:00\n2021-03-04,11:30\n",
    "tab separated": None,  # filled below (sep)
}
CORPUS["tab separated"] = "a\tb\n1\tx y\n2\t\"q\tr\"\n"


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus(name):
    kwargs = {"sep": "\t"} if name == "tab separated" else {}
    assert_device_matches(CORPUS[name], **kwargs)


FALLBACK_CORPUS = {
    "lone cr": ("a,b\r1,2\r3,4\r", {}),
    "quote inside unquoted field": ('a,b\nx"y,2\n', {}),
    "text after closing quote": ('a,b\n"x"y,2\n', {}),
    "beyond int64": ("a\n9223372036854775808\n2\n", {}),
    "beyond uint64": ("a\n99999999999999999999\n2\n", {}),
    "bool with missing": ("a,b\nTrue,1\n,2\n", {}),
    "duplicated header": ("a,a\n1,2\n", {}),
    "trailing separators (implicit index)": ("a,b\n1,2,\n3,4,\n", {}),
    "header only": ("a,b\n", {}),
    "blank only after header": ("a,b\n\n\n", {}),
    "byte order mark": ("\ufeffa,b\n1,2\n", {}),
    "thousands": ('a\n"1,000"\n', {"thousands": ","}),
    "comment": ("a\n1#x\n2\n", {"comment": "#"}),
    "latin-1": ("a\n\xe9\n".encode("latin-1"), {"encoding": "latin-1"}),
}


@pytest.mark.parametrize("name", sorted(FALLBACK_CORPUS))
def test_fallback_corpus_reads_as_pandas(name):
    raw, kwargs = FALLBACK_CORPUS[name]
    got, used = read_device(raw, **kwargs)
    assert used == "fallback"
    raw = raw.encode() if isinstance(raw, str) else raw
    expected = documented(pd.read_csv(io.BytesIO(raw), **kwargs))
    if name == "beyond uint64":  # pandas keeps Python ints (object); riptide keeps their text (riptide/io/csv.py)
        expected = expected.astype("str")
    # An empty object index (no rows) has no riptide twin: riptide has no object dtype (documented).
    pd.testing.assert_frame_equal(got.to_pandas(), expected, check_index_type=len(expected) > 0)


# --------------------------------------------------------------------------- bad input


def test_too_many_fields_is_pandas_parser_error_naming_the_line():
    mine, theirs = assert_same_error('a,b\n1,2\n"x\ny",3\n\n4,5,6\n')
    assert isinstance(mine, pd.errors.ParserError)
    assert str(mine) == str(theirs) and "line 5" in str(mine)


def test_empty_file_is_empty_data_error():
    mine, _ = assert_same_error("")
    assert isinstance(mine, pd.errors.EmptyDataError)
    assert_same_error("\n\n")


def test_unterminated_quote_is_an_error_as_in_pandas():
    assert_same_error('a,b\n"x,1\n')


def test_bad_value_for_requested_dtype_names_column_and_row():
    with pytest.raises(ValueError, match=r"'x'.*column 'a'.*row 1"):
        rt.read_csv(io.StringIO("a\n1\nx\n"), dtype={"a": "int64"}, engine="riptide")
    with pytest.raises(ValueError, match="Integer column has NA values in column 'a'"):
        rt.read_csv(io.StringIO("a,b\n1,2\n,3\n"), dtype={"a": "int32"}, usecols=["a"], engine="riptide")


# --------------------------------------------------------------------------- options

OPTION_CASES = [
    ("a,b,c\n1,2,3\n4,5,6\n", {"usecols": ["c", "a"]}),
    ("a,b,c\n1,2,3\n4,5,6\n", {"usecols": [0, 2]}),
    ("a,b,c\n1,2,3\n4,5,6\n", {"usecols": lambda c: c != "b"}),
    ("a,b,c\n1,2,3\n4,5,6\n", {"names": ["x", "y", "z"], "header": 0}),
    ("1,2,3\n4,5,6\n", {"names": ["x", "y", "z"]}),
    ("1,2\n4,5\n", {"names": ["x", "y", "z"]}),
    ("1,x\n4,y\n", {"header": None}),
    ("junk\nmore junk\na,b\n1,2\n", {"skiprows": 2}),
    ("a,b\n\n1,2\n3,4\n", {"skiprows": 2}),
    ('x\n"a\nb"\na,b\n1,2\n3,4\n', {"skiprows": 2}),
    ("a,b\n1,2\n3,4\n5,6\n", {"nrows": 2}),
    ("a,b\n1,2\n\n3,4\n5,6\n", {"nrows": 2, "skiprows": 1}),
    ("a,b\n1,2\n3,4\n", {"header": 1}),
    ("a;b\n1;\"x;y\"\n", {"sep": ";"}),
    ("a|b\n1|'x|y'\n", {"sep": "|", "quotechar": "'"}),
    ("a,b\n1,missing\n2,x\n", {"na_values": ["missing"]}),
    ("a,b\n1,NA\n2,x\n", {"na_values": "x", "keep_default_na": False}),
    ("a,b\nnan,1\n1,2\n", {"keep_default_na": False}),
    ("a,b\n1,\n2,3\n", {"na_filter": False}),
    ("a,b\n1\n2,3\n", {"na_filter": False}),
    ("a,b,c\n1,2,x\n3,4,y\n", {"dtype": {"a": "float64", "b": "int32", "c": "str"}}),
    ("a,b\n1,007\n2,8\n", {"dtype": str}),
    ("a,b\n1,007\n2,\n", {"dtype": "str"}),
    ("a,b\n1,True\n2,false\n", {"dtype": {"a": "uint8", "b": bool}}),
    ("a,b\n1,2\n3,4\n", {"dtype": {"a": "float32"}}),
    ("i,v\n10,x\n20,y\n", {"index_col": 0}),
    ("i,v\n0,x\n1,y\n2,z\n", {"index_col": "i"}),
    ("i,j,v\n0,a,x\n1,b,y\n", {"index_col": ["i", "j"]}),
    (",v\n3,x\n4,y\n", {"index_col": 0}),
    ("d,v\n2020-01-02,1\n2021-12-31,2\n", {"parse_dates": ["d"]}),
    ("d,v\n2020-01-02 10:11:12,1\n2021-12-31 00:00:01,2\n", {"parse_dates": [0]}),
    ("d,v\n2020-01-02,1\n,2\n", {"parse_dates": ["d"]}),
    ("d,v\nnot a date,1\n", {"parse_dates": ["d"]}),
    ("a,b\n1,2\n3,4\n", {"quoting": 3}),
]


@pytest.mark.parametrize("case", range(len(OPTION_CASES)))
def test_options(case):
    text, kwargs = OPTION_CASES[case]
    assert_device_matches(text, **kwargs)


def test_engine_selection():
    _, used = read_device("a\n1\n", engine="pyarrow")
    assert used == "not called"
    _, used = read_device("a\n1\n", engine=None)  # the default: the device parser on a GPU only
    assert used == ("device" if rt._device.is_gpu() else "not called")


def test_quoting_none_keeps_quotes_as_text():
    got, used = read_device('a,b\n"x",1\n')
    assert used == "device" and got["a"].tolist() == ["x"]
    got, used = read_device('a,b\n"x",1\n', quoting=3)
    assert used == "device"
    pd.testing.assert_frame_equal(got.to_pandas(), pd.read_csv(io.StringIO('a,b\n"x",1\n'), quoting=3))


def test_reads_a_path_and_a_text_buffer(tmp_path):
    path = tmp_path / "x.csv"
    path.write_bytes(b"a,b\n1,x\n2,y\n")
    pd.testing.assert_frame_equal(rt.read_csv(path, engine="riptide").to_pandas(), pd.read_csv(path))
    pd.testing.assert_frame_equal(rt.read_csv(io.StringIO("a\n1\n"), engine="riptide").to_pandas(),
                                  pd.read_csv(io.StringIO("a\n1\n")))


def test_missing_path_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        rt.read_csv(os.path.join(tmp_path, "nope.csv"), engine="riptide")


# --------------------------------------------------------------------------- differential, hypothesis

_TEXT = st.text(alphabet=string.ascii_letters + string.digits + ' ,"\n\r\t.-+éü日' + "'", max_size=8)


@st.composite
def frames(draw):
    n = draw(st.integers(1, 30))
    n_cols = draw(st.integers(1, 5))
    data = {}
    for i in range(n_cols):
        kind = draw(st.sampled_from(["int", "float", "bool", "text", "int_na", "float_na", "text_na"]))
        if kind.startswith("int"):
            values = draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=n, max_size=n))
            column = pd.Series(values, dtype="int64")
        elif kind.startswith("float"):
            values = draw(st.lists(st.floats(allow_nan=False, width=64), min_size=n, max_size=n))
            column = pd.Series(values, dtype="float64")
        elif kind == "bool":
            column = pd.Series(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
        else:
            column = pd.Series(draw(st.lists(_TEXT, min_size=n, max_size=n)), dtype="str")
        if kind.endswith("_na"):
            holes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
            column = column.astype("float64" if kind == "int_na" else column.dtype).mask(holes)
        data[f"c{i}"] = column
    return pd.DataFrame(data)


@settings(max_examples=60, deadline=None)
@given(frames(), st.sampled_from([",", ";", "\t"]), st.sampled_from(["\n", "\r\n"]))
def test_pandas_written_frames_read_back_alike(pdf, sep, line_end):
    raw = pdf.to_csv(index=False, sep=sep, lineterminator=line_end).encode()
    got, used = read_device(raw, sep=sep)
    expected = pd.read_csv(io.BytesIO(raw), sep=sep)
    if used == "fallback":  # e.g. a text value with a lone '\r', which pandas' writer leaves unquoted
        expected = documented(expected)
    else:
        assert used == "device"
    # (the pyarrow path is compared on the corpus: where it agrees with pandas it agrees with this by transitivity,
    # and where it does not, ARROW_PATH_DEVIATES lists it)
    pd.testing.assert_frame_equal(got.to_pandas(), expected)


def test_db_benchmark_like_file_is_read_on_the_device():
    from riptide.benchmarks.dbbench import groupby_data

    raw = groupby_data(2000, na_pct=5).to_csv(index=False).encode()
    assert_device_matches(raw)
    rng = np.random.default_rng(0)
    floats = pd.DataFrame({"x": rng.standard_normal(500), "y": rng.random(500) * 1e300})
    assert_device_matches(floats.to_csv(index=False))


def test_many_fields_left_to_the_general_parser():
    # more fields than the probe leaves to the general parser: timestamps (text decided by the probe), exponents
    # (numbers: every field parsed), and exponents with one text value after the probed rows (text)
    n = 3 * device._PROBE_ROWS
    stamps = pd.date_range("2024-01-01", periods=n, freq="37s").strftime("%Y-%m-%d %H:%M:%S")
    exponents = [f"{k}e-{k % 7}" for k in range(n)]
    late_text = exponents[:-1] + ["12:30"]
    raw = pd.DataFrame({"t": stamps, "e": exponents, "late": late_text}).to_csv(index=False)
    assert_device_matches(raw)
    got = rt.read_csv(io.StringIO(raw), engine="riptide").to_pandas()
    assert got["e"].dtype == np.float64 and got["t"].dtype == "str" and got["late"].dtype == "str"
