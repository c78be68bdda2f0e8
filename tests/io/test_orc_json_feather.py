"""read_orc / read_json / read_feather and their writers against pandas 3, with their bad inputs."""

from __future__ import annotations

import io

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import assume, given, settings

import riptide as rt
from tests.conftest import ALL_DTYPES, documented, frame_st


def _no_empty_categories(pdf) -> bool:
    """Categoricals with no categories at all are left out: riptide keeps their categories as an empty
    float64 column, so the categories' dtype is object instead of pandas' str (a core limitation, reported)."""
    return not any(isinstance(d, pd.CategoricalDtype) and len(d.categories) == 0 for d in pdf.dtypes)

pytestmark = pytest.mark.filterwarnings("ignore::riptide.errors.HostFallbackWarning")

ORC_DTYPES = [d for d in ALL_DTYPES if not d.startswith("uint") and d not in ("category", "timedelta64[ns]")]


@settings(max_examples=15)
@given(frame_st(dtypes=ORC_DTYPES, min_cols=1, max_cols=4, index="range"))
def test_orc_round_trips(tmp_path_factory, pdf):
    assume(_no_empty_categories(pdf))
    directory = tmp_path_factory.mktemp("orc")
    pdf = pdf.reset_index(drop=True)
    pdf.to_orc(directory / "pd.orc")
    expected = pd.read_orc(directory / "pd.orc")
    wanted = documented(expected, pdf)
    for label in wanted.columns:  # all-missing bools: object in pandas, boolean in riptide (its bool-with-NA dtype)
        if str(pdf[label].dtype) == "boolean" and len(pdf) and pdf[label].isna().all():
            wanted[label] = wanted[label].astype("boolean")
    pd.testing.assert_frame_equal(rt.read_orc(directory / "pd.orc").to_pandas(), wanted)
    rt.from_pandas(pdf).to_orc(directory / "rt.orc")
    pd.testing.assert_frame_equal(pd.read_orc(directory / "rt.orc"), expected)


def test_orc_refuses_what_pandas_refuses(tmp_path):
    with pytest.raises(ValueError, match="non-default index"):
        rt.DataFrame({"a": [1]}, index=[5]).to_orc(tmp_path / "x.orc")
    with pytest.raises(NotImplementedError):
        rt.from_pandas(pd.DataFrame({"c": pd.Categorical(["a"])})).to_orc(tmp_path / "x.orc")


def test_orc_columns_and_bad_files(tmp_path):
    pdf = pd.DataFrame({"a": [1, 2], "b": ["x", None]})
    rt.from_pandas(pdf).to_orc(tmp_path / "t.orc")
    pd.testing.assert_frame_equal(rt.read_orc(tmp_path / "t.orc", columns=["b"]).to_pandas(), pdf[["b"]])
    with pytest.raises(FileNotFoundError, match="missing.orc"):
        rt.read_orc(tmp_path / "missing.orc")
    data = (tmp_path / "t.orc").read_bytes()
    (tmp_path / "cut.orc").write_bytes(data[: len(data) // 2])
    with pytest.raises((pa.ArrowInvalid, OSError), match="cut.orc"):
        rt.read_orc(tmp_path / "cut.orc")


# categoricals with no categories at all (all missing) are left out: riptide's empty categories have no str dtype
@settings(max_examples=15)
@given(frame_st(dtypes=[d for d in ALL_DTYPES if d != "category"], min_cols=1, max_cols=4))
def test_feather_round_trips(tmp_path_factory, pdf):
    assume(_no_empty_categories(pdf))
    directory = tmp_path_factory.mktemp("feather")
    pdf.to_feather(directory / "pd.feather")
    expected = pd.read_feather(directory / "pd.feather")
    pd.testing.assert_frame_equal(rt.read_feather(directory / "pd.feather").to_pandas(), expected)
    rt.from_pandas(pdf).to_feather(directory / "rt.feather")
    pd.testing.assert_frame_equal(pd.read_feather(directory / "rt.feather"), expected)


def test_feather_categoricals(tmp_path):
    pdf = pd.DataFrame({"c": pd.Categorical(["b", None, "a"]), "v": [1, 2, 3]}, index=pd.Index([3, 1, 2], name="k"))
    rt.from_pandas(pdf).to_feather(tmp_path / "c.feather")
    pd.testing.assert_frame_equal(pd.read_feather(tmp_path / "c.feather"), pdf)
    pd.testing.assert_frame_equal(rt.read_feather(tmp_path / "c.feather").to_pandas(), pdf)


def test_feather_bad_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="none.feather"):
        rt.read_feather(tmp_path / "none.feather")
    (tmp_path / "bad.feather").write_bytes(b"ARROW1\0\0garbage")
    with pytest.raises((pa.ArrowInvalid, OSError), match="bad.feather"):
        rt.read_feather(tmp_path / "bad.feather")


JSON_DTYPES = ["int64", "float64", "bool", "str", "Int64", "boolean"]


@settings(max_examples=20)
@given(frame_st(dtypes=JSON_DTYPES, max_cols=4, index="range"))
def test_json_lines_read_as_pandas_reads_them(pdf):
    assume(_no_empty_categories(pdf))
    text = pdf.to_json(orient="records", lines=True)
    expected = pd.read_json(io.StringIO(text), lines=True) if text.strip() else None
    if expected is None:
        return
    got = rt.read_json(io.StringIO(text), lines=True)
    pd.testing.assert_frame_equal(got.to_pandas(), documented(expected), check_index_type=len(expected) > 0)


def test_json_lines_fast_path_does_not_warn():
    import warnings

    from riptide.errors import HostFallbackWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", HostFallbackWarning)
        frame = rt.read_json(io.StringIO('{"a": 1, "b": "x"}\n{"a": null, "b": "é"}\n'), lines=True)
    pd.testing.assert_frame_equal(frame.to_pandas(), pd.DataFrame({"a": [1.0, None], "b": ["x", "é"]}))


@pytest.mark.parametrize("orient", ["columns", "records", "index", "split", "values", "table"])
def test_to_json_and_back(orient):
    pdf = pd.DataFrame({"a": [1, 2, 3], "b": ["x", None, "z"], "f": [0.5, None, 1e20]})
    frame = rt.from_pandas(pdf)
    text = frame.to_json(orient=orient)
    assert text == pdf.to_json(orient=orient)
    if orient != "values":
        expected = pd.read_json(io.StringIO(text), orient=orient)
        pd.testing.assert_frame_equal(rt.read_json(io.StringIO(text), orient=orient).to_pandas(), expected)


def test_series_to_json_and_typ_series():
    s = pd.Series([1, 2], name="x")
    assert rt.from_pandas(s).to_json() == s.to_json()
    got = rt.read_json(io.StringIO(s.to_json()), typ="series")
    pd.testing.assert_series_equal(got.to_pandas(), pd.read_json(io.StringIO(s.to_json()), typ="series"))


def test_json_date_named_columns_follow_pandas():
    text = '{"date": "2020-01-02", "v": 1}\n{"date": "2020-01-03", "v": 2}\n'
    expected = pd.read_json(io.StringIO(text), lines=True)
    pd.testing.assert_frame_equal(rt.read_json(io.StringIO(text), lines=True).to_pandas(), expected)


def test_json_files_and_compression(tmp_path):
    pdf = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    rt.from_pandas(pdf).to_json(tmp_path / "t.json.gz", orient="records", lines=True)
    pd.testing.assert_frame_equal(rt.read_json(tmp_path / "t.json.gz", lines=True).to_pandas(), pdf)
    pd.testing.assert_frame_equal(pd.read_json(tmp_path / "t.json.gz", lines=True), pdf)


@pytest.mark.parametrize("text,lines", [('{"a": 1,', True), ('{"a": [1, 2}', False), ("not json", False)])
def test_malformed_json_is_a_value_error(text, lines):
    with pytest.raises(ValueError):
        rt.read_json(io.StringIO(text), lines=lines)


def test_json_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="gone.json"):
        rt.read_json(tmp_path / "gone.json")


@pytest.mark.parametrize("raw", [
    b'{"a": "1", "b": "x"}\n{"a": "2", "b": "y"}\n',  # numbers quoted as text: pandas converts them
    b'{"a": "1.5", "b": null}\n{"a": null, "b": "2"}\n',
    b'{"a": "1", "b": "x"}\n{"a": "", "b": "3"}\n',  # an empty string keeps the column text
    b'{"a": 18446744073709551615}\n{"a": 1}\n',  # beyond int64: pandas' uint64, not pyarrow's float64
    '{"a": "é"}\n'.encode("latin-1"),  # not UTF-8: pandas' UnicodeDecodeError
    '{"a": "é", "b": 1}\n{"a": "ü", "b": 2}\n'.encode(),
])  # fmt: skip
def test_json_lines_what_pandas_converts_after_decoding(raw):
    try:
        expected = pd.read_json(io.BytesIO(raw), lines=True)
    except UnicodeDecodeError:
        with pytest.raises(UnicodeDecodeError):
            rt.read_json(io.BytesIO(raw), lines=True)
        return
    pd.testing.assert_frame_equal(rt.read_json(io.BytesIO(raw), lines=True).to_pandas(), documented(expected))


def test_json_read_by_pandas_raises_no_warning_the_caller_did_not_cause():
    """pandas 3 deprecates convert_dates / keep_default_dates: passing them only when the caller did."""
    import warnings

    from riptide.errors import HostFallbackWarning

    text = '{"a": {"0": 1, "1": 2}, "when": {"0": "2020-01-01", "1": null}}'
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", HostFallbackWarning)
        got = rt.read_json(io.StringIO(text))
    pd.testing.assert_frame_equal(got.to_pandas(), pd.read_json(io.StringIO(text)))
