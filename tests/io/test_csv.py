"""read_csv / to_csv against pandas 3: hypothesis frames both ways, a corpus of tricky files, options, bad input."""

from __future__ import annotations

import bz2
import gzip
import io
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.errors import HostFallbackWarning
from tests.conftest import documented, frame_st  # noqa: F401 - conftest is importable as a module

pytestmark = pytest.mark.filterwarnings("ignore::riptide.errors.HostFallbackWarning")

CSV_DTYPES = ["int8", "int64", "uint16", "float64", "bool", "datetime64[ns]", "Int64", "Float64", "boolean", "str",
              "category"]  # fmt: skip


def read_both(data: bytes | str, **kwargs):
    """(riptide result or exception, pandas result or exception) for the same CSV text and options."""
    raw = data.encode() if isinstance(data, str) else data
    try:
        expected = pd.read_csv(io.BytesIO(raw), **kwargs)
    except Exception as exc:  # noqa: BLE001 - the outcome is compared
        expected = exc
    try:
        got = rt.read_csv(io.BytesIO(raw), **kwargs)
    except Exception as exc:  # noqa: BLE001
        got = exc
    return got, expected


def assert_same_read(data: bytes | str, **kwargs) -> None:
    got, expected = read_both(data, **kwargs)
    if isinstance(expected, Exception):
        assert isinstance(got, type(expected)), f"pandas raised {expected!r}, riptide gave {got!r}"
        return
    assert not isinstance(got, Exception), f"riptide raised {got!r}; pandas gave\n{expected}"
    # An empty object index (no rows) has no riptide twin: riptide has no object dtype (documented).
    pd.testing.assert_frame_equal(got.to_pandas(), documented(expected), check_index_type=len(expected) > 0)


# --------------------------------------------------------------------------- differential, hypothesis


@settings(max_examples=25)
@given(frame_st(dtypes=CSV_DTYPES, min_cols=1, max_cols=4))
def test_pandas_written_csv_reads_as_pandas_reads_it(pdf):
    text = pdf.to_csv()
    assert_same_read(text, index_col=0)


@settings(max_examples=25)
@given(frame_st(dtypes=CSV_DTYPES + ["timedelta64[ns]", "float32"], max_cols=4))
def test_to_csv_writes_pandas_bytes(pdf):
    frame = rt.from_pandas(pdf)
    assert frame.to_csv() == pdf.to_csv()
    assert frame.to_csv(index=False, sep="\t", na_rep="NULL") == pdf.to_csv(index=False, sep="\t", na_rep="NULL")


def test_series_to_csv():
    s = pd.Series([1.5, None, 3.0], name="x", index=["a", "b", "c"])
    assert rt.from_pandas(s).to_csv() == s.to_csv()
    assert rt.from_pandas(s).to_csv(header=False) == s.to_csv(header=False)


# --------------------------------------------------------------------------- corpus of tricky files

CORPUS = {
    "quotes": 'a,b\n"x, y",1\n"say ""hi""",2\n',
    "embedded_newlines": 'a,b\n"line1\nline2",1\n"x",2\n',
    "crlf": "a,b\r\n1,x\r\n2,y\r\n",
    "missing_fields": "a,b,c\n1,2\n3,4,5\n",
    "unicode": "name,v\nzoë,1\n中文,2\n😀,3\n",
    "huge_numbers": "a,b\n18446744073709551615,1\n1,2\n",
    "exponents": "a,b\n1e5,-1.5E-3\n2.5e+300,1e-320\n",
    "huge_float_and_integer_text": "a,b\n1e300,9223372036854775808\n-1.5,1e19\n",
    "huge_float_and_missing": "a\n1e300\n\n-1.5\n",
    "special_floats": "a\ninf\n-inf\nNaN\n1.0\n",
    "empty_file": "",
    "header_only": "a,b,c\n",
    "blank_lines": "a,b\n1,2\n\n3,4\n",
    "no_trailing_newline": "a,b\n1,2\n3,4",
    "bools": "a,b\nTrue,true\nFalse,FALSE\n",
    "bools_with_missing": "a\nTrue\n\nFalse\n",
    "ints_with_missing": "a,b\n1,x\n,y\n3,\n",
    "dates_stay_text": "d,t,ts\n2020-01-01,10:00,2020-01-01 10:00:00\n2021-02-03,11:30,2021-02-03T04:05:06\n",
    "na_spellings": "a,b\nNA,N/A\nnull,1\nNaN,2\n",
    "unnamed_index": ",a,b\n0,1,x\n1,2,y\n",
    "duplicate_header": "a,a,b\n1,2,3\n",
    "leading_zeros": "a,b\n001,x\n010,y\n",
    "mixed_int_text": "a\n1\n2\nthree\n",
    "quoted_empty": 'a,b\n"",1\nx,2\n',
    "negative_zero": "a\n-0.0\n0.0\n",
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus(name):
    assert_same_read(CORPUS[name])


@pytest.mark.parametrize("name", ["quotes", "crlf", "unicode", "exponents", "bools", "na_spellings", "leading_zeros"])
def test_corpus_common_files_do_not_leave_the_fast_path(name, monkeypatch):
    monkeypatch.setattr("riptide.errors._warned", set())  # a fallback warned of by an earlier test warns again
    with warnings.catch_warnings():
        warnings.simplefilter("error", HostFallbackWarning)
        rt.read_csv(io.StringIO(CORPUS[name]))


# --------------------------------------------------------------------------- options

OPTIONS = [
    dict(usecols=["c", "a"]),
    dict(usecols=[2, 0]),
    dict(usecols=lambda c: c != "b"),
    dict(dtype={"a": "float32", "b": str, "c": "category"}),
    dict(dtype={"a": "Int64", "c": "boolean"}),
    dict(dtype=str),
    dict(names=["x", "y", "z"]),
    dict(names=["x", "y", "z"], header=0),
    dict(header=None),
    dict(header=1),
    dict(skiprows=1),
    dict(skiprows=[1]),
    dict(nrows=2),
    dict(nrows=0),
    dict(index_col=0),
    dict(index_col="b"),
    dict(index_col=["a", "b"]),
    dict(na_values=["5"]),
    dict(na_values="x"),
    dict(keep_default_na=False),
    dict(keep_default_na=False, na_values=["x"]),
    dict(na_filter=False),
    dict(true_values=["x"], false_values=["y"]),
    dict(parse_dates=["d"]),
    dict(parse_dates=["d"], date_format="%Y-%m-%d"),
    dict(comment="#"),
    dict(thousands="_"),
    dict(quotechar="'"),
    dict(skip_blank_lines=False),
]
OPTIONS_TEXT = "a,b,c,d\n1,x,1,2020-01-01\n2,y,0,2020-01-02\n5,NA,1,\n#c,'q,w',1,2020-02-01\n"


@pytest.mark.parametrize("kwargs", OPTIONS, ids=[str(sorted(o)) for o in OPTIONS])
def test_options(kwargs):
    assert_same_read(OPTIONS_TEXT, **kwargs)


def test_sep_and_decimal():
    assert_same_read("a;b\n1,5;x\n2,25;y\n", sep=";", decimal=",")
    assert_same_read("a|b\n1|x\n", sep="|")
    assert_same_read("a\tb\n1\tx\n", delimiter="\t")
    assert_same_read("a  b\n1  x\n", sep=r"\s+")


def test_escapechar():
    assert_same_read('a,b\n"x\\"y",1\n', escapechar="\\")


def test_thousands_value():
    assert_same_read("a\n1_000\n2_000_000\n", thousands="_")


def test_latin1(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("a,b\nzoë,1\n".encode("latin-1"))
    pd.testing.assert_frame_equal(rt.read_csv(path, encoding="latin-1").to_pandas(),
                                  pd.read_csv(path, encoding="latin-1"))  # fmt: skip


@pytest.mark.parametrize("ext,opener", [(".gz", gzip.open), (".bz2", bz2.open), (".zst", None)])
def test_compression_inferred_from_extension(tmp_path, ext, opener):
    text = "a,b\n1,x\n2,y\n"
    path = tmp_path / f"data.csv{ext}"
    if opener is None:
        import pyarrow as pa

        with pa.CompressedOutputStream(str(path), "zstd") as f:
            f.write(text.encode())
    else:
        with opener(path, "wt") as f:
            f.write(text)
    pd.testing.assert_frame_equal(rt.read_csv(path).to_pandas(), pd.read_csv(io.StringIO(text)))
    pd.testing.assert_frame_equal(rt.read_csv(str(path)).to_pandas(), pd.read_csv(io.StringIO(text)))


@pytest.mark.parametrize("compression", ["gzip", "bz2", "zstd"])
def test_to_csv_compression_round_trip(tmp_path, compression):
    pdf = pd.DataFrame({"a": [1, 2], "b": ["x", None]})
    ext = {"gzip": ".gz", "bz2": ".bz2", "zstd": ".zst"}[compression]
    path = tmp_path / f"out.csv{ext}"
    rt.from_pandas(pdf).to_csv(path, index=False)
    import pyarrow as pa

    with pa.input_stream(str(path), compression=compression) as f:  # pandas needs the zstandard package for .zst
        assert f.read().decode() == pdf.to_csv(index=False)
    pd.testing.assert_frame_equal(rt.read_csv(path).to_pandas(), pdf)


def test_to_csv_to_file_objects_and_columns(tmp_path):
    pdf = pd.DataFrame({"a": [1, 2], "b": ["x", None], "c": [0.5, 1.5]})
    frame = rt.from_pandas(pdf)
    buffer = io.StringIO()
    frame.to_csv(buffer, columns=["c", "a"])
    assert buffer.getvalue() == pdf.to_csv(columns=["c", "a"])
    frame.to_csv(tmp_path / "x.csv", float_format="%.3f")
    assert (tmp_path / "x.csv").read_text() == pdf.to_csv(float_format="%.3f")


def test_file_like_and_path_objects(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n1,x\n")
    expected = pd.read_csv(path)
    for source in (path, str(path), open(path, "rb"), open(path)):
        pd.testing.assert_frame_equal(rt.read_csv(source).to_pandas(), expected)


# --------------------------------------------------------------------------- byte_range


def _rows_by_byte_range(data: bytes, offset: int, size: int) -> list[int]:
    """The ids (first field) of the rows that start in [offset, offset + size): the definition, row by row."""
    ids, position = [], 0
    for line in data.splitlines(keepends=True):
        if position > 0 and offset <= position < offset + size and not line.startswith(b"id"):
            ids.append(int(line.split(b",")[0]))
        elif position == 0 and offset == 0 and not line.startswith(b"id"):
            ids.append(int(line.split(b",")[0]))
        position += len(line)
    return ids


@settings(max_examples=40)
@given(st.integers(1, 60), st.data())
def test_byte_range_partitions_the_rows(n, data):
    text = "id,v\n" + "".join(f"{i},{'x' * (i % 7)}\n" for i in range(n))
    raw = text.encode()
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(raw) - 1), max_size=4))))
    bounds = [0] + cuts + [len(raw)]
    seen = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        part = rt.read_csv(io.BytesIO(raw), byte_range=(lo, hi - lo))
        ids = part["id"].tolist() if len(part) else []
        assert ids == [i for i in _rows_by_byte_range(raw, lo, hi - lo)]
        assert list(part.columns) == ["id", "v"]
        seen += ids
    assert seen == list(range(n))  # every row exactly once, in order


def test_byte_range_on_a_path(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("a,b\n1,x\n2,y\n3,z\n")
    assert rt.read_csv(path, byte_range=(5, 4))["a"].tolist() == [2]  # "1,x\n" starts at 4: before the range
    assert rt.read_csv(path, byte_range=(0, 5))["a"].tolist() == [1]  # header + the row straddling the end


# --------------------------------------------------------------------------- writers are atomic


def test_failed_write_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "keep.csv"
    path.write_text("old\n")
    frame = rt.DataFrame({"a": [1, 2]})

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        frame.to_csv(path)
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["keep.csv"]  # no temporary file left behind


# --------------------------------------------------------------------------- bad input


def test_missing_file_names_it(tmp_path):
    missing = tmp_path / "nope.csv"
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        rt.read_csv(missing)


def test_too_many_fields_names_the_line():
    with pytest.raises(pd.errors.ParserError, match="line 3"):
        rt.read_csv(io.StringIO("a,b\n1,2\n3,4,5\n"))


def test_unparsable_value_names_column_and_row():
    with pytest.raises(ValueError, match=r"'b'.*row 2|row 2.*'b'"):
        rt.read_csv(io.StringIO("a,b\n1,2\n2,3\n3,x\n"), dtype={"b": "int64"})


def test_missing_value_in_int_column():
    with pytest.raises(ValueError, match="Integer column has NA values"):
        rt.read_csv(io.StringIO("a,b\n1,2\n,3\n"), dtype={"a": "int64"})


def test_empty_file():
    with pytest.raises(pd.errors.EmptyDataError):
        rt.read_csv(io.StringIO(""))


def test_integers_beyond_uint64_stay_text():
    # pandas keeps Python ints in an object column; riptide has no object dtype: the file's text (documented)
    frame = rt.read_csv(io.StringIO("a\n123456789012345678901234567890\n1\n"))
    assert frame["a"].dtype == pd.StringDtype(na_value=np.nan)
    assert frame["a"].tolist() == ["123456789012345678901234567890", "1"]


def test_usecols_not_found():
    with pytest.raises(ValueError, match="Usecols do not match"):
        rt.read_csv(io.StringIO("a,b\n1,2\n"), usecols=["a", "z"])


def test_fallback_warns_once_with_reason():
    from riptide import errors

    errors._warned.discard(("read_csv", "option thousands is not supported by the pyarrow CSV reader"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rt.read_csv(io.StringIO("a\n1_0\n"), thousands="_")
        rt.read_csv(io.StringIO("a\n1_0\n"), thousands="_")
    messages = [str(w.message) for w in caught if issubclass(w.category, HostFallbackWarning)]
    assert messages == ["riptide: read_csv runs on the host: option thousands is not supported by the pyarrow CSV "
                        "reader"]  # fmt: skip


def test_result_lives_on_the_device():
    frame = rt.read_csv(io.StringIO("a,b\n1,x\n"))
    assert frame._data["a"].xp is rt._device.xp()
    assert frame._data["b"].xp is rt._device.xp()


# --------------------------------------------------------------------------- audit: options and inputs both engines get

ENGINES = [None, "riptide"]  # riptide: the device parser (the GPU default), on NumPy here


def assert_same_read_by_both(data: bytes | str, **kwargs) -> None:
    raw = data.encode() if isinstance(data, str) else data
    try:
        expected = pd.read_csv(io.BytesIO(raw), **kwargs)
    except Exception as exc:  # noqa: BLE001 - the outcome is compared
        expected = exc
    for engine in ENGINES:
        try:
            got = rt.read_csv(io.BytesIO(raw), engine=engine, **kwargs)
        except Exception as exc:  # noqa: BLE001
            got = exc
        if isinstance(expected, Exception):
            assert isinstance(got, type(expected)), f"engine={engine}: pandas raised {expected!r}, riptide {got!r}"
            continue
        assert not isinstance(got, Exception), f"engine={engine}: riptide raised {got!r}"
        pd.testing.assert_frame_equal(got.to_pandas(), documented(expected),
                                      check_column_type="equiv" if len(expected.columns) else False)


@pytest.mark.parametrize("raw", [
    "a,b\n1,été\n".encode("latin-1"),  # a latin-1 file read as UTF-8
    "é,b\n1,2\n".encode("latin-1"),  # in the header
    'a,b\n1,"x\xe9,y"\n2,z\n'.encode("latin-1"),  # in a quoted field
    b"a,b\n1,\xed\xa0\x80\n",  # an encoded surrogate
    b"a,b\n1,\xe2\x82\n",  # a truncated sequence at the end
])  # fmt: skip
@pytest.mark.parametrize("options", [{}, {"dtype": str}])
def test_bytes_that_are_not_utf8_raise_unicode_decode_error(raw, options):
    assert_same_read_by_both(raw, **options)
    with pytest.raises(UnicodeDecodeError):
        rt.read_csv(io.BytesIO(raw), engine="riptide", **options)
    assert_same_read_by_both("a,b\n1,été\n€,ü\n".encode(), **options)  # valid multi-byte UTF-8 still reads


@pytest.mark.parametrize("kwargs", [
    dict(dtype={0: "float32"}), dict(dtype={0: "float32", "a": "int8"}), dict(dtype={2: str, 5: "int8"}),
    dict(dtype={1: "float32"}, header=None), dict(nrows=0), dict(nrows=0, dtype={"a": "int32"}), dict(usecols=[]),
    dict(nrows=-1), dict(nrows=1.5), dict(index_col="z"), dict(index_col=["a", "z"]),
    dict(names=["p", "q"], usecols=[0, 2]), dict(names=["p", "q"], usecols=[2, 0], header=0),  # names the selection
])  # fmt: skip
def test_dtype_positions_nrows_usecols_and_index_col(kwargs):
    assert_same_read_by_both("a,b,c\n1,x,2.5\n2,y,\n3,,4.5\n", **kwargs)


def test_several_files_globs_and_directories(tmp_path):
    """A list of paths, a glob or a directory: each file read with the options (each with its header), stacked in
    file order with a fresh RangeIndex, as Dask and Polars read them (pandas reads one file)."""
    texts = ["a,b\n1,x\n2,y\n", "a,b\n3,é\n", "a,b\n4,\n5,w\n"]
    for i, text in enumerate(texts):
        (tmp_path / f"part{i}.csv").write_text(text, encoding="utf-8")
    with gzip.open(tmp_path / "part3.csv.gz", "wt") as f:
        f.write("a,b\n6,v\n")
    (tmp_path / "README.md").write_text("not data")
    (tmp_path / "_SUCCESS").write_text("")
    texts.append("a,b\n6,v\n")
    whole = pd.concat([pd.read_csv(io.StringIO(t)) for t in texts], ignore_index=True)
    for engine in ENGINES:
        for source in (tmp_path, str(tmp_path / "part*.csv*"), [tmp_path / f"part{i}.csv" for i in range(3)]):
            expected = whole if not isinstance(source, list) else whole.iloc[:5]
            pd.testing.assert_frame_equal(rt.read_csv(source, engine=engine).to_pandas(), expected)
        pd.testing.assert_frame_equal(rt.read_csv(tmp_path, engine=engine, nrows=4, usecols=["a"]).to_pandas(),
                                      whole[["a"]].iloc[:4])
        pd.testing.assert_frame_equal(rt.read_csv(tmp_path, engine=engine, index_col="a").to_pandas(),
                                      whole.set_index("a"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="empty"):
        rt.read_csv(tmp_path / "empty")
    with pytest.raises(FileNotFoundError, match="nomatch"):
        rt.read_csv(str(tmp_path / "nomatch*.csv"))
    with pytest.raises(ValueError, match="byte_range"):
        rt.read_csv(tmp_path, byte_range=(0, 10))


@pytest.mark.parametrize("name, options, member", [
    ("out.csv.zip", {}, "out.csv"), ("out.zip", {}, "out"), ("out.xz", {}, None),
    ("out.csv", {"compression": {"method": "zip", "archive_name": "inner.csv"}}, "inner.csv"),
])  # fmt: skip
def test_writers_compress_as_pandas(tmp_path, name, options, member):
    """``.zip`` targets hold one deflated file named as pandas names it (the target less ``.zip``); ``.xz`` too."""
    import lzma
    import zipfile

    pdf = pd.DataFrame({"a": [1, 2], "b": ["é", None]})
    for write, text in ((rt.from_pandas(pdf).to_json, pdf.to_json()), (rt.from_pandas(pdf).to_csv, pdf.to_csv())):
        write(tmp_path / name, **options)
        if member is None:
            assert lzma.decompress((tmp_path / name).read_bytes()).decode() == text
            continue
        with zipfile.ZipFile(tmp_path / name) as archive:
            assert archive.namelist() == [member] and archive.read(member).decode() == text
    pd.testing.assert_frame_equal(rt.read_csv(tmp_path / name, index_col=0, **options).to_pandas(),
                                  pd.read_csv(io.StringIO(pdf.to_csv()), index_col=0))


@pytest.mark.parametrize("kwargs", [
    {}, dict(keep_default_na=False), dict(na_filter=False), dict(keep_default_na=False, na_values=[""]),
    dict(keep_default_na=False, na_values=["x"]), dict(header=None),
])  # fmt: skip
@pytest.mark.parametrize("text", ["a,b\n1,2\n3\n", "a,b,c\n1,x,2\n3\n4,y\n"])
def test_short_rows_pad_with_empty_text(text, kwargs):
    """pandas pads a row that lacks fields with "": missing only when "" is among the missing-value strings."""
    assert_same_read_by_both(text, **kwargs)


def test_home_and_file_url_paths_as_pandas(tmp_path, monkeypatch):
    """``~/...`` and ``file://`` paths name local files, for every reader and writer (pandas expands them)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    pdf = pd.DataFrame({"a": [1, 2], "b": ["x", None]})
    frame = rt.from_pandas(pdf)
    for ext, write, read in [
        ("csv", lambda p: frame.to_csv(p, index=False), rt.read_csv),
        ("parquet", frame.to_parquet, rt.read_parquet),
        ("feather", frame.to_feather, rt.read_feather),
        ("orc", frame.to_orc, rt.read_orc),
        ("jsonl", lambda p: frame.to_json(p, orient="records", lines=True), lambda p: rt.read_json(p, lines=True)),
    ]:  # fmt: skip
        write(f"~/t.{ext}")
        assert (tmp_path / f"t.{ext}").exists()
        for source in (f"~/t.{ext}", (tmp_path / f"t.{ext}").as_uri()):
            pd.testing.assert_frame_equal(read(source).to_pandas(), pdf)
    assert rt.read_csv("~/t.csv", engine="riptide").to_pandas().equals(pd.read_csv("~/t.csv"))
    with pytest.raises(FileNotFoundError, match="gone.csv"):
        rt.read_csv("~/gone.csv")


def test_chunksize_and_iterator_hand_out_riptide_frames(tmp_path):
    """pandas' chunked reading (each chunk's dtypes from its own rows, the index running on): riptide frames."""
    text = "a,b\n1,x\n2,y\n3.5,z\n"
    (tmp_path / "t.csv").write_text(text)
    for source in (lambda: io.StringIO(text), lambda: tmp_path / "t.csv"):
        with rt.read_csv(source(), chunksize=2) as reader:
            chunks = list(reader)
        expected = list(pd.read_csv(source(), chunksize=2))
        assert len(chunks) == len(expected) == 2
        for got, want in zip(chunks, expected):
            assert isinstance(got, rt.DataFrame)
            pd.testing.assert_frame_equal(got.to_pandas(), want)
        reader, want = rt.read_csv(source(), iterator=True), pd.read_csv(source(), iterator=True)
        pd.testing.assert_frame_equal(reader.get_chunk(1).to_pandas(), want.get_chunk(1))
        pd.testing.assert_frame_equal(reader.read().to_pandas(), want.read())
    lines = '{"a": 1}\n{"a": 2}\n{"a": 3}\n'
    for got, want in zip(rt.read_json(io.StringIO(lines), lines=True, chunksize=2),
                         pd.read_json(io.StringIO(lines), lines=True, chunksize=2)):  # fmt: skip
        pd.testing.assert_frame_equal(got.to_pandas(), want)
    with pytest.raises(ValueError, match="one file"):
        rt.read_csv([tmp_path / "t.csv", tmp_path / "t.csv"], chunksize=2)


def test_glob_of_urls():
    fsspec = pytest.importorskip("fsspec")
    for i in range(3):
        with fsspec.open(f"memory://riptide-glob/p{i}.csv", "w") as f:
            f.write(f"a,b\n{i},x{i}\n")
    got = rt.read_csv("memory://riptide-glob/p*.csv").to_pandas()
    pd.testing.assert_frame_equal(got, pd.DataFrame({"a": [0, 1, 2], "b": ["x0", "x1", "x2"]}))
    with pytest.raises(FileNotFoundError, match="q"):
        rt.read_csv("memory://riptide-glob/q*.csv")
