"""read_parquet / to_parquet against pandas 3: round trips both ways for every dtype, filters, datasets, bad input."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import assume, given, settings

import riptide as rt
from tests.conftest import ALL_DTYPES, documented, frame_st


def _no_empty_categories(pdf) -> bool:
    """Categoricals with no categories at all are left out: riptide keeps their categories as an empty
    float64 column, so the categories' dtype is object instead of pandas' str (a core limitation, reported)."""
    return not any(isinstance(d, pd.CategoricalDtype) and len(d.categories) == 0 for d in pdf.dtypes)

@settings(max_examples=20)
@given(frame_st(dtypes=ALL_DTYPES, max_cols=5))
def test_pandas_writes_riptide_reads(tmp_path_factory, pdf):
    assume(_no_empty_categories(pdf))
    path = tmp_path_factory.mktemp("pq") / "t.parquet"
    pdf.to_parquet(path)
    pd.testing.assert_frame_equal(rt.read_parquet(path).to_pandas(), pd.read_parquet(path))


@settings(max_examples=20)
@given(frame_st(dtypes=ALL_DTYPES, max_cols=5))
def test_riptide_writes_pandas_reads(tmp_path_factory, pdf):
    assume(_no_empty_categories(pdf))
    directory = tmp_path_factory.mktemp("pq")
    rt.from_pandas(pdf).to_parquet(directory / "rt.parquet")
    pdf.to_parquet(directory / "pd.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(directory / "rt.parquet"), pd.read_parquet(directory / "pd.parquet"))
    assert pq.read_schema(directory / "rt.parquet").remove_metadata() == (
        pq.read_schema(directory / "pd.parquet").remove_metadata())  # fmt: skip


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_datetime_units_and_time_zones(tmp_path, unit):
    values = pd.to_datetime(["2020-01-01", None, "2021-06-01 10:00:01"], format="ISO8601").as_unit(unit)
    pdf = pd.DataFrame({"naive": values, "aware": values.tz_localize("Asia/Tokyo"),
                        "delta": (values - values[0])})  # fmt: skip
    rt.from_pandas(pdf).to_parquet(tmp_path / "t.parquet")
    expected = pd.read_parquet(tmp_path / "t.parquet")
    pdf.to_parquet(tmp_path / "p.parquet")
    pd.testing.assert_frame_equal(expected, pd.read_parquet(tmp_path / "p.parquet"))
    pd.testing.assert_frame_equal(rt.read_parquet(tmp_path / "t.parquet").to_pandas(), expected)


@pytest.mark.parametrize("index", [pd.RangeIndex(3), pd.RangeIndex(10, 16, 2, name="r"), pd.Index(["a", "b", "c"], name="k"),
                                   pd.Index([5, 1, 3]), pd.MultiIndex.from_tuples([(1, "x"), (1, "y"), (2, "x")], names=["i", "j"])])  # fmt: skip
@pytest.mark.parametrize("keep", [None, True, False])
def test_index_round_trip(tmp_path, index, keep):
    pdf = pd.DataFrame({"v": [1.5, None, 3.0], "s": ["x", "y", None]}, index=index)
    rt.from_pandas(pdf).to_parquet(tmp_path / "rt.parquet", index=keep)
    pdf.to_parquet(tmp_path / "pd.parquet", index=keep)
    expected = pd.read_parquet(tmp_path / "pd.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "rt.parquet"), expected)
    pd.testing.assert_frame_equal(rt.read_parquet(tmp_path / "pd.parquet").to_pandas(), expected)


def test_categoricals_are_arrow_dictionaries(tmp_path):
    pdf = pd.DataFrame({"c": pd.Categorical(["b", "a", None, "b"], categories=["b", "a", "z"], ordered=True)})
    rt.from_pandas(pdf).to_parquet(tmp_path / "c.parquet")
    assert pa.types.is_dictionary(pq.read_schema(tmp_path / "c.parquet").field("c").type)
    got = rt.read_parquet(tmp_path / "c.parquet")
    pd.testing.assert_frame_equal(got.to_pandas(), pd.read_parquet(tmp_path / "c.parquet"))


def test_foreign_file_without_pandas_metadata(tmp_path):
    table = pa.table({"i": pa.array([1, None, 3]), "b": pa.array([True, None, False]), "s": ["x", None, "z"],
                      "u": pa.array([1, 2, 3], pa.uint32()), "d": pa.array([1.5, 2.5, None], pa.float32())})  # fmt: skip
    pq.write_table(table, tmp_path / "f.parquet")
    got = rt.read_parquet(tmp_path / "f.parquet").to_pandas()
    expected = pd.read_parquet(tmp_path / "f.parquet")
    expected["b"] = expected["b"].astype("boolean")  # pandas: object bools; riptide: boolean (documented)
    pd.testing.assert_frame_equal(got, expected)


def _sample(n: int = 1000) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"k": np.arange(n), "g": rng.choice(["a", "b", "c"], n), "v": rng.standard_normal(n)})


@pytest.mark.parametrize("filters", [
    [("k", ">", 500)],
    [("k", "<", 10), ("g", "==", "a")],
    [[("k", "<", 5)], [("k", ">=", 995)]],
    [("g", "in", ["a", "c"])],
])  # fmt: skip
def test_filters_and_columns(tmp_path, filters):
    path = tmp_path / "f.parquet"
    _sample().to_parquet(path, row_group_size=100)
    for columns in (None, ["v", "k"]):
        expected = pd.read_parquet(path, filters=filters, columns=columns)
        got = rt.read_parquet(path, filters=filters, columns=columns)
        pd.testing.assert_frame_equal(got.to_pandas(), expected)


def test_filters_prune_row_groups(tmp_path):
    path = tmp_path / "f.parquet"
    _sample().to_parquet(path, row_group_size=100)
    import pyarrow.dataset as ds

    fragment = next(ds.dataset(path).get_fragments())
    kept = fragment.split_by_row_group(ds.field("k") > 950)
    assert len(kept) == 1  # the statistics rule out nine row groups of ten
    assert rt.read_parquet(path, filters=[("k", ">", 950)])["k"].tolist() == list(range(951, 1000))


def test_hive_partitioned_directory(tmp_path):
    pdf = _sample(60)
    rt.from_pandas(pdf).to_parquet(tmp_path / "ds", partition_cols=["g"])
    assert sorted(os.listdir(tmp_path / "ds")) == ["g=a", "g=b", "g=c"]
    expected = pd.read_parquet(tmp_path / "ds")
    pd.testing.assert_frame_equal(rt.read_parquet(tmp_path / "ds").to_pandas(), expected)
    expected = pd.read_parquet(tmp_path / "ds", filters=[("g", "=", "b")])
    pd.testing.assert_frame_equal(rt.read_parquet(tmp_path / "ds", filters=[("g", "=", "b")]).to_pandas(), expected)


def test_glob_and_list_of_files(tmp_path):
    parts = [_sample(10).assign(k=lambda d, i=i: d.k + 10 * i) for i in range(3)]
    for i, part in enumerate(parts):
        part.to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    expected = pd.concat(parts, ignore_index=True)
    pd.testing.assert_frame_equal(rt.read_parquet(str(tmp_path / "part-*.parquet")).to_pandas(), expected)
    files = [tmp_path / f"part-{i}.parquet" for i in range(3)]
    pd.testing.assert_frame_equal(rt.read_parquet(files).to_pandas(), expected)


def test_bytes_and_file_objects(tmp_path):
    import io

    frame = rt.from_pandas(_sample(20))
    data = frame.to_parquet()
    assert isinstance(data, bytes)
    pd.testing.assert_frame_equal(rt.read_parquet(io.BytesIO(data)).to_pandas(), _sample(20))


@pytest.mark.parametrize("compression", ["snappy", "gzip", "zstd", None])
def test_compression(tmp_path, compression):
    rt.from_pandas(_sample(50)).to_parquet(tmp_path / "c.parquet", compression=compression)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "c.parquet"), _sample(50))


def test_missing_path_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="absent.parquet"):
        rt.read_parquet(tmp_path / "absent.parquet")
    with pytest.raises(FileNotFoundError, match="nothing"):
        rt.read_parquet(str(tmp_path / "nothing*.parquet"))


def test_truncated_file_names_it(tmp_path):
    path = tmp_path / "whole.parquet"
    _sample().to_parquet(path)
    data = path.read_bytes()
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(data[: len(data) // 2])
    with pytest.raises((pa.ArrowInvalid, OSError), match="broken.parquet"):
        rt.read_parquet(broken)
    broken.write_bytes(data[:4] + b"\0" * (len(data) - 8) + data[-4:])  # footer length zeroed: corrupt metadata
    with pytest.raises((pa.ArrowInvalid, OSError), match="broken.parquet"):
        rt.read_parquet(broken)


def test_failed_write_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "keep.parquet"
    _sample(5).to_parquet(path)
    before = path.read_bytes()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(OSError, match="disk full"):
        rt.from_pandas(_sample(7)).to_parquet(path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["keep.parquet"]


def test_duplicate_labels_refused(tmp_path):
    # labels 1 and "1" are distinct in a frame but the same Parquet column name
    with pytest.raises(ValueError, match="Duplicate column names"):
        rt.DataFrame({1: [1], "1": [2]}).to_parquet(tmp_path / "d.parquet")


# --------------------------------------------------------------------------- overlapped pieces (issue 5, part 3)


@pytest.fixture
def pieces(monkeypatch):
    """Force the overlapped reader and writer (the GPU default) with tiny pieces, on any machine."""
    import riptide.io.parquet as parquet

    monkeypatch.setattr(parquet, "PIPELINE", True)
    monkeypatch.setattr(parquet, "DEVICE_DECODE", False)  # the pyarrow path's pieces (the GPU decodes otherwise)
    monkeypatch.setattr(parquet, "PIECE_BYTES", 1)  # every row group its own piece
    monkeypatch.setattr(parquet, "WRITE_ROWS", 7)
    return parquet


def _spy_pieces(monkeypatch, parquet):
    counts = []
    original = parquet.frame_from_pieces

    def spy(tables, *args, **kwargs):
        tables = list(tables)
        counts.append(len(tables))
        return original(iter(tables), *args, **kwargs)

    monkeypatch.setattr(parquet, "frame_from_pieces", spy)
    return counts


@settings(max_examples=15, deadline=None)
@given(frame_st(dtypes=[d for d in ALL_DTYPES if d != "category"], max_cols=4, max_size=40))
def test_pieces_read_as_the_whole_table(tmp_path_factory, pdf):
    import riptide.io.parquet as parquet

    path = tmp_path_factory.mktemp("pq") / "t.parquet"
    pdf.to_parquet(path, row_group_size=3)
    expected = pd.read_parquet(path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parquet, "PIPELINE", True)
        mp.setattr(parquet, "DEVICE_DECODE", False)
        mp.setattr(parquet, "PIECE_BYTES", 1)
        counts = _spy_pieces(mp, parquet)
        got = rt.read_parquet(path)
    if len(pdf) > 3 and len(pdf.columns):
        assert counts == [pq.ParquetFile(path).metadata.num_row_groups]
    pd.testing.assert_frame_equal(got.to_pandas(), expected)


def test_pieces_nulls_in_a_later_piece_decide_the_dtype(tmp_path, pieces, monkeypatch):
    # int64 in the first row group, a missing value in the last: the whole column is float64, as pandas reads it
    table = pa.table({"a": pa.array([1, 2, 3, 4, None], pa.int64()), "b": pa.array([True, False, True, True, None]),
                      "s": pa.array(["x", "y", None, "zz", "é"])})  # fmt: skip
    pq.write_table(table, tmp_path / "t.parquet", row_group_size=2)
    counts = _spy_pieces(monkeypatch, pieces)
    got = rt.read_parquet(tmp_path / "t.parquet", columns=["a", "b", "s"])
    assert counts == [3]
    pd.testing.assert_frame_equal(got.to_pandas(), documented(pd.read_parquet(tmp_path / "t.parquet")))


def test_pieces_keep_index_and_columns(tmp_path, pieces, monkeypatch):
    pdf = pd.DataFrame({"a": range(20), "b": np.arange(20) * 0.5}, index=pd.Index(np.arange(20) * 3, name="k"))
    pdf.to_parquet(tmp_path / "t.parquet", row_group_size=6)
    counts = _spy_pieces(monkeypatch, pieces)
    for columns in (None, ["b"]):
        got = rt.read_parquet(tmp_path / "t.parquet", columns=columns)
        pd.testing.assert_frame_equal(got.to_pandas(), pd.read_parquet(tmp_path / "t.parquet", columns=columns))
    assert counts == [4, 4]


def test_pieces_decline_categoricals_and_filters(tmp_path, pieces, monkeypatch):
    pdf = pd.DataFrame({"c": pd.Categorical(list("abcabcabca")), "v": range(10)})
    pdf.to_parquet(tmp_path / "t.parquet", row_group_size=3)
    counts = _spy_pieces(monkeypatch, pieces)
    pd.testing.assert_frame_equal(rt.read_parquet(tmp_path / "t.parquet").to_pandas(),
                                  pd.read_parquet(tmp_path / "t.parquet"))  # fmt: skip
    pdf[["v"]].to_parquet(tmp_path / "v.parquet", row_group_size=3)
    got = rt.read_parquet(tmp_path / "v.parquet", filters=[("v", ">", 4)])
    pd.testing.assert_frame_equal(got.to_pandas(), pd.read_parquet(tmp_path / "v.parquet", filters=[("v", ">", 4)]))
    assert counts == []


def test_pieces_corrupt_file_names_it(tmp_path, pieces):
    pd.DataFrame({"a": range(100)}).to_parquet(tmp_path / "t.parquet", row_group_size=10)
    data = (tmp_path / "t.parquet").read_bytes()
    (tmp_path / "bad.parquet").write_bytes(data[:40] + b"\x00" * 200 + data[240:])
    with pytest.raises((OSError, pa.ArrowInvalid), match="bad.parquet"):
        rt.read_parquet(tmp_path / "bad.parquet")


@pytest.mark.parametrize("index", [None, True, False])
def test_pieces_written_equal_one_write(tmp_path, pieces, index):
    pdf = pd.DataFrame({"i": np.arange(30), "f": np.linspace(0, 1, 30), "s": [f"s{i % 4}" for i in range(30)],
                        "c": pd.Categorical([f"k{i % 3}" for i in range(30)]),
                        "t": pd.date_range("2020", periods=30, freq="h", tz="UTC")},
                       index=pd.RangeIndex(5, 95, 3))  # fmt: skip
    frame = rt.from_pandas(pdf)
    frame.to_parquet(tmp_path / "rt.parquet", index=index)
    pdf.to_parquet(tmp_path / "pd.parquet", index=index, row_group_size=7)
    assert pq.ParquetFile(tmp_path / "rt.parquet").metadata.num_row_groups == 5
    assert pq.read_schema(tmp_path / "rt.parquet") == pq.read_schema(tmp_path / "pd.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "rt.parquet"), pd.read_parquet(tmp_path / "pd.parquet"))
    pd.testing.assert_frame_equal(rt.read_parquet(tmp_path / "rt.parquet").to_pandas(),
                                  pd.read_parquet(tmp_path / "pd.parquet"))  # fmt: skip


def test_pieces_written_with_an_index_column(tmp_path, pieces):
    pdf = pd.DataFrame({"v": np.arange(16.0)}, index=pd.Index([f"r{i}" for i in range(16)], name="name"))
    rt.from_pandas(pdf).to_parquet(tmp_path / "t.parquet")
    assert pq.ParquetFile(tmp_path / "t.parquet").metadata.num_row_groups == 3
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "t.parquet"), pdf)
