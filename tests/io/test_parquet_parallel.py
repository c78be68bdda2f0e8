"""Parquet files stitched from row groups encoded in parallel, and the Thrift compact codec under them.

The strongest check is byte identity: for the same row groups, the stitched file equals what
``pq.write_table(table, row_group_size=...)`` writes, byte for byte (pyarrow writes each row group independently,
so the pieces' bytes are the whole file's, and the merged footer re-encodes to the same bytes). Read-back checks
(pyarrow metadata, statistics, ``read_row_group``, pandas, polars / DuckDB where installed) cover the rest.
"""

from __future__ import annotations

import io
import itertools
import os
import struct

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.io import parquet_parallel
from riptide.io import thrift_compact as tc
from riptide.io._arrow import table_from_frame
from riptide.io.parquet_parallel import frame_row_ranges, write_row_groups
from tests.conftest import ALL_DTYPES, frame_st

# ---------------------------------------------------------------------------------------------------- helpers


def _mixed_frame(n: int, seed: int = 0) -> pd.DataFrame:
    """Every column kind the stitcher must carry: strings, categoricals, nulls, all-null, tz timestamps, floats."""
    rng = np.random.default_rng(seed)
    f = rng.random(n)
    f[::7] = np.nan
    strings = pd.array([None if i % 11 == 0 else f"id{i % 97}é" for i in range(n)], dtype="str")
    return pd.DataFrame({
        "i": np.arange(n, dtype="int64"),
        "s": strings,
        "c": pd.Categorical(rng.choice(["x", "y", "z"], n)),
        "f": f,
        "t": pd.date_range("2020-03-29", periods=n, freq="min", tz="Europe/Paris"),
        "m": pd.array([None if i % 3 else i for i in range(n)], dtype="Int64"),
        "all_null": pd.array([None] * n, dtype="Float64"),
        "b": pd.array([bool(i % 2) for i in range(n)], dtype="boolean"),
    })  # fmt: skip


def _stitched(table: pa.Table, rows: int, threads: int = 3, by_column: bool | None = None, **kwargs) -> bytes:
    out = io.BytesIO()
    write_row_groups(table, out, row_group_size=rows, threads=threads, by_column=by_column, **kwargs)
    return out.getvalue()


def _reference(table: pa.Table, rows: int, **kwargs) -> bytes:
    out = io.BytesIO()
    pq.write_table(table, out, row_group_size=rows, **kwargs)
    return out.getvalue()


def _footer(data: bytes) -> tc.Struct:
    n = int.from_bytes(data[-8:-4], "little")
    return tc.decode_struct(data[-8 - n : -8])[0]


def _assert_same_file(got: bytes, expected: bytes) -> None:
    """Same row groups, offsets, statistics and values (for layouts where bytes may legitimately differ)."""
    a, b = pq.ParquetFile(io.BytesIO(expected)), pq.ParquetFile(io.BytesIO(got))
    ma, mb = a.metadata, b.metadata
    assert (mb.num_rows, mb.num_row_groups, mb.num_columns) == (ma.num_rows, ma.num_row_groups, ma.num_columns)
    assert b.schema_arrow.equals(a.schema_arrow, check_metadata=True)
    for i in range(ma.num_row_groups):
        assert mb.row_group(i).num_rows == ma.row_group(i).num_rows
        for j in range(ma.num_columns):
            ca, cb = ma.row_group(i).column(j), mb.row_group(i).column(j)
            assert cb.statistics == ca.statistics
            assert cb.total_compressed_size == ca.total_compressed_size
            assert (cb.dictionary_page_offset is None) == (ca.dictionary_page_offset is None)
        _assert_tables_equal(b.read_row_group(i), a.read_row_group(i))
    _assert_tables_equal(b.read(), a.read())


def _assert_tables_equal(got: pa.Table, expected: pa.Table) -> None:
    """Same schema and values, NaN equal to NaN (``Table.equals`` holds NaN unequal to itself)."""
    assert got.schema.equals(expected.schema, check_metadata=True)
    pd.testing.assert_frame_equal(got.to_pandas(), expected.to_pandas())


# ---------------------------------------------------------------------------------------------------- codec


def test_codec_round_trips_pyarrow_footers_byte_for_byte():
    table = pa.Table.from_pandas(_mixed_frame(500))
    for kwargs in ({}, {"write_page_index": True}, {"bloom_filter_options": {"i": {}}}, {"compression": "zstd"}):
        data = _reference(table, 120, **kwargs)
        n = int.from_bytes(data[-8:-4], "little")
        footer = data[-8 - n : -8]
        tree, end = tc.decode_struct(footer)
        assert end == n
        assert tc.encode_struct(tree) == footer
        assert tree.get(3) == 500 and len(tree.get(4).items) == 5  # FileMetaData.num_rows, .row_groups


def test_codec_decodes_every_wire_form():
    # field 1 i32 -3 (short form); field 300 i64 (long form id: zigzag(300)=600 = 0xd8 0x04); bool false;
    # list<i16> of 16 (long list header); map<binary,i8>; nested struct with a double; list<bool>; uuid
    payload = bytearray()
    payload += bytes([0x15, 0x05])
    payload += bytes([0x06, 0xD8, 0x04, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])  # i64 2**63-1
    payload += bytes([0x12])  # field 301 (delta 1) BOOL false
    payload += bytes([0x19, 0xF4, 0x10]) + bytes(2 * k for k in range(16))  # field 302, 16 x i16 0..15
    payload += bytes([0x1B, 0x02, 0x83, 0x01, 0x61, 0x7F, 0x01, 0x62, 0x80])  # field 303 map {a: 127, b: -128}
    payload += bytes([0x1C, 0x17]) + struct.pack("<d", -1.5) + bytes([0x00])  # field 304 struct {1: -1.5}
    payload += bytes([0x19, 0x31, 0x01, 0x02, 0x00])  # field 305 list<bool> [True, False, False]
    payload += bytes([0x1D]) + bytes(range(16))  # field 306 uuid
    payload += bytes([0x00])
    s, end = tc.decode_struct(bytes(payload))
    assert end == len(payload)
    assert s.get(1) == -3 and s.get(300) == 2**63 - 1 and s.get(301) is False
    assert s.get(302) == tc.List(tc.I16, list(range(16)))
    assert s.get(303) == tc.Map(tc.BINARY, tc.I8, [(b"a", 127), (b"b", -128)])
    assert s.get(304) == tc.Struct([tc.Field(1, tc.DOUBLE, -1.5)])
    assert s.get(305) == tc.List(tc.BOOL, [True, False, False])
    assert s.get(306) == bytes(range(16))
    again, _ = tc.decode_struct(tc.encode_struct(s))
    assert again == s
    # the encoder writes canonical forms: identical bytes except list<bool>'s false, written as 2 (the spec's)
    assert tc.encode_struct(s) == bytes(payload).replace(bytes([0x31, 0x01, 0x02, 0x00]), bytes([0x31, 0x01, 0x02, 0x02]))


@pytest.mark.parametrize("data", [b"", b"\x15", b"\x18\x05ab", b"\x19\xf5\xff\xff\xff\x0f", b"\x1e\x00",
                                  b"\x16" + b"\xff" * 11, b"\x1c" * 200])  # fmt: skip
def test_codec_refuses_malformed_bytes(data):
    with pytest.raises(tc.ThriftError):
        tc.decode_struct(data)


def test_codec_refuses_values_that_do_not_fit():
    with pytest.raises(tc.ThriftError, match="i16"):
        tc.encode_struct(tc.Struct([tc.Field(1, tc.I16, 1 << 15)]))
    with pytest.raises(tc.ThriftError, match="i8"):
        tc.encode_struct(tc.Struct([tc.Field(1, tc.I8, 200)]))


def test_struct_editing_keeps_field_order():
    s = tc.Struct()
    for field_id in (5, 1, 9, 3):
        s.set(field_id, tc.I32, field_id * 10)
    s.set(3, tc.I64, -7)
    s.remove(9)
    s.remove(42)
    assert [(f.id, f.type, f.value) for f in s.fields] == [(1, tc.I32, 10), (3, tc.I64, -7), (5, tc.I32, 50)]
    assert 5 in s and 9 not in s


_SCALARS = st.one_of(
    st.tuples(st.just(tc.I8), st.integers(-128, 127)),
    st.tuples(st.just(tc.I16), st.integers(-(1 << 15), (1 << 15) - 1)),
    st.tuples(st.just(tc.I32), st.integers(-(1 << 31), (1 << 31) - 1)),
    st.tuples(st.just(tc.I64), st.integers(-(1 << 63), (1 << 63) - 1)),
    st.tuples(st.just(tc.DOUBLE), st.floats(allow_nan=False)),
    st.tuples(st.just(tc.BINARY), st.binary(max_size=40)),
    st.tuples(st.just(tc.BOOL), st.booleans()),
)


def _values_of(t: int) -> st.SearchStrategy:
    return {tc.I8: st.integers(-128, 127), tc.I32: st.integers(-(1 << 31), (1 << 31) - 1),
            tc.I64: st.integers(-(1 << 63), (1 << 63) - 1), tc.BINARY: st.binary(max_size=8),
            tc.BOOL: st.booleans()}[t]  # fmt: skip


_ELEMENT_TYPES = st.sampled_from([tc.I8, tc.I32, tc.I64, tc.BINARY, tc.BOOL])


def _trees(children: st.SearchStrategy) -> st.SearchStrategy:
    lists = _ELEMENT_TYPES.flatmap(lambda t: st.lists(_values_of(t), max_size=20).map(lambda v: tc.List(t, v)))
    maps = st.tuples(_ELEMENT_TYPES, _ELEMENT_TYPES).flatmap(
        lambda kv: st.lists(st.tuples(_values_of(kv[0]), _values_of(kv[1])), min_size=1, max_size=5).map(
            lambda items: tc.Map(kv[0], kv[1], items)))  # fmt: skip
    structs = st.lists(children, max_size=4).map(lambda v: tc.List(tc.STRUCT, v))
    fields = st.one_of(_SCALARS, lists.map(lambda v: (tc.LIST, v)), maps.map(lambda v: (tc.MAP, v)),
                       children.map(lambda v: (tc.STRUCT, v)), structs.map(lambda v: (tc.LIST, v)))  # fmt: skip
    return st.dictionaries(st.integers(1, 400), fields, max_size=6).map(
        lambda d: tc.Struct([tc.Field(k, t, v) for k, (t, v) in sorted(d.items())]))


_STRUCTS = st.recursive(st.just(tc.Struct()), _trees, max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(_STRUCTS)
def test_codec_round_trips_random_trees(tree):
    data = tc.encode_struct(tree)
    decoded, end = tc.decode_struct(data + b"trailing")
    assert end == len(data)
    assert decoded == tree
    assert tc.encode_struct(decoded) == data


# ---------------------------------------------------------------------------------------------------- stitching


@pytest.mark.parametrize("kwargs", [
    {},
    {"compression": None},
    {"compression": "gzip"},
    {"compression": "zstd", "compression_level": 5},
    {"write_statistics": False},
    {"use_dictionary": False},
    {"data_page_version": "2.0", "data_page_size": 1024},
    {"write_page_index": True},
    {"bloom_filter_options": {"i": {}, "s": {"fpp": 0.01}}},
    {"write_page_index": True, "bloom_filter_options": {"c": {}}, "write_page_checksum": True},
    {"sorting_columns": [pq.SortingColumn(0)]},
    {"store_schema": False},
])  # fmt: skip
@pytest.mark.parametrize("by_column", [False, True])
def test_stitched_file_is_pyarrows_file_byte_for_byte(kwargs, by_column):
    table = pa.Table.from_pandas(_mixed_frame(2000))
    got = _stitched(table, 300, by_column=by_column, **kwargs)
    expected = _reference(table, 300, **kwargs)
    _assert_same_file(got, expected)
    assert got == expected


@pytest.mark.parametrize("by_column", [False, True])
def test_page_index_and_bloom_filters_point_at_the_right_bytes(by_column):
    """Rebuilt tail: every column / offset index and bloom filter the footer names decodes where it points."""
    table = pa.Table.from_pandas(_mixed_frame(3000))
    data = _stitched(table, 700, by_column=by_column, write_page_index=True, bloom_filter_options={"i": {}, "s": {}})
    footer = _footer(data)
    seen = 0
    for rg in footer.get(4).items:
        for chunk in rg.get(1).items:
            meta = chunk.get(3)
            at, length = chunk.get(4), chunk.get(5)  # OffsetIndex
            index, end = tc.decode_struct(data, at, at + length)
            assert end == at + length
            assert index.get(1).items[0].get(1) == meta.get(9)  # first PageLocation.offset: the first data page
            if chunk.get(6) is not None:
                tc.decode_struct(data, chunk.get(6), chunk.get(6) + chunk.get(7))
            if meta.get(14) is not None:
                header, after = tc.decode_struct(data, meta.get(14))
                assert after - meta.get(14) + header.get(1) == meta.get(15)
                seen += 1
    assert seen == 2 * 5
    # pyarrow's own reader uses the page index to select rows
    got = pq.read_table(io.BytesIO(data), filters=[("i", ">=", 2990)])
    assert got.column("i").to_pylist() == list(range(2990, 3000))


@pytest.mark.parametrize("n,rows", [(1, 5), (5, 5), (6, 5), (37, 4), (300, 1)])
@pytest.mark.parametrize("by_column", [False, True])
def test_row_group_counts_and_offsets(n, rows, by_column):
    table = pa.Table.from_pandas(_mixed_frame(n))
    data = _stitched(table, rows, threads=2, by_column=by_column)
    assert data == _reference(table, rows)
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    assert meta.num_row_groups == -(-n // rows)
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [
        min(rows, n - lo) for lo in range(0, n, rows)]  # fmt: skip
    offsets = [meta.row_group(i).column(0).data_page_offset for i in range(meta.num_row_groups)]
    assert offsets == sorted(offsets) and offsets[0] >= 4


def test_readers_agree():
    pdf = _mixed_frame(1500, seed=3)
    table = pa.Table.from_pandas(pdf)
    data = _stitched(table, 200)
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(data)), pd.read_parquet(io.BytesIO(_reference(table, 200))))
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(data)).drop(columns="c"), pdf.drop(columns="c"))
    assert list(pd.read_parquet(io.BytesIO(data))["c"]) == list(pdf["c"])
    pd.testing.assert_frame_equal(rt.read_parquet(io.BytesIO(data)).to_pandas(), pd.read_parquet(io.BytesIO(data)))


def test_polars_reads_it():
    pl = pytest.importorskip("polars")
    table = pa.Table.from_pandas(_mixed_frame(500), preserve_index=False)
    got = pl.read_parquet(io.BytesIO(_stitched(table, 64)))
    assert got.height == 500 and got["i"].to_list() == list(range(500))


def test_duckdb_reads_it(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    table = pa.Table.from_pandas(_mixed_frame(500), preserve_index=False)
    write_row_groups(table, tmp_path / "t.parquet", row_group_size=64)
    assert duckdb.sql(f"select count(*), sum(i) from '{tmp_path / 't.parquet'}'").fetchone() == (500, 124750)


@pytest.mark.parametrize("by_column", [False, True])
def test_nested_columns(by_column):
    """A struct or list column is several leaf column chunks: they stay together in their column's piece."""
    n = 500
    table = pa.table({
        "k": pa.array(np.arange(n)),
        "st": pa.array([{"a": i, "b": None if i % 3 else f"s{i}"} for i in range(n)]),
        "li": pa.array([None if i % 5 == 0 else list(range(i % 4)) for i in range(n)], pa.list_(pa.int32())),
        "m": pa.array([[("x", i)] for i in range(n)], pa.map_(pa.string(), pa.int64())),
    })  # fmt: skip
    data = _stitched(table, 64, by_column=by_column, write_page_index=True)
    assert data == _reference(table, 64, write_page_index=True)
    assert pq.read_table(io.BytesIO(data)).equals(table)
    assert pq.ParquetFile(io.BytesIO(data)).metadata.num_columns == 6  # leaves: k, st.a, st.b, li, m.key, m.value


def test_ordinals_are_renumbered(monkeypatch):
    """pyarrow leaves RowGroup.ordinal out; a writer that sets it (0 in every piece) gets 0, 1, 2, ... back."""
    original = parquet_parallel._Piece.__init__

    def with_ordinals(self, buffer):
        original(self, buffer)
        for rg in self.row_groups:
            rg.set(7, tc.I16, 0)

    monkeypatch.setattr(parquet_parallel._Piece, "__init__", with_ordinals)
    data = _stitched(pa.table({"x": range(50), "y": range(50)}), 10, by_column=True)
    assert [rg.get(7) for rg in _footer(data).get(4).items] == [0, 1, 2, 3, 4]
    assert pq.read_table(io.BytesIO(data)).column("x").to_pylist() == list(range(50))


# ---------------------------------------------------------------------------------------------------- sources


def test_iterable_of_uneven_tables():
    whole = pa.Table.from_pandas(_mixed_frame(60))
    cuts = [0, 3, 3, 10, 30, 60]  # an empty table in the middle, one longer than row_group_size
    tables = [whole.slice(lo, hi - lo) for lo, hi in itertools.pairwise(cuts)]
    out = io.BytesIO()
    write_row_groups(iter(tables), out, row_group_size=8, threads=2, by_column=False)
    meta = pq.ParquetFile(io.BytesIO(out.getvalue())).metadata
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [3, 7, 8, 8, 4, 8, 8, 8, 6]
    assert pq.read_table(io.BytesIO(out.getvalue())).equals(pq.read_table(io.BytesIO(_reference(whole, 60))))


def test_tables_are_cast_to_the_schema():
    schema = pa.schema([("x", pa.int64()), ("y", pa.large_string())], metadata={b"k": b"v"})
    tables = [pa.table({"x": pa.array([1, 2], pa.int32()), "y": ["a", "b"]}), pa.table({"x": [3], "y": ["c"]})]
    out = io.BytesIO()
    write_row_groups(tables, out, schema=schema, row_group_size=10)
    got = pq.read_table(io.BytesIO(out.getvalue()))
    assert got.schema.equals(schema, check_metadata=True) and got.column("x").to_pylist() == [1, 2, 3]
    with pytest.raises((pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError)):
        write_row_groups([pa.table({"x": ["nope"], "y": ["a"]})], io.BytesIO(), schema=schema)
    with pytest.raises(TypeError, match="pyarrow Tables"):
        write_row_groups([pd.DataFrame({"x": [1]})], io.BytesIO())


@pytest.mark.parametrize("index", [None, True, False])
def test_frame_row_ranges_write_the_frames_file(index):
    pdf = _mixed_frame(250, seed=5)
    pdf.index = pd.RangeIndex(10, 260) if index is None else pd.Index([f"r{i}" for i in range(250)], name="k")
    frame = rt.from_pandas(pdf)
    out = io.BytesIO()
    write_row_groups(frame_row_ranges(frame, index, 64), out, row_group_size=64, threads=2)
    whole = table_from_frame(frame, index)
    assert out.getvalue() == _reference(whole, 64)
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(out.getvalue())),
                                  pd.read_parquet(io.BytesIO(_reference(whole, 64))))  # fmt: skip


@settings(max_examples=25, deadline=None)
@given(frame_st(dtypes=ALL_DTYPES, max_cols=4), st.integers(1, 300), st.booleans())
def test_random_frames(pdf, rows, by_column):
    frame = rt.from_pandas(pdf)
    out = io.BytesIO()
    write_row_groups(frame_row_ranges(frame, None, rows), out, schema=table_from_frame(frame).schema,
                     row_group_size=rows, threads=2, by_column=by_column)  # fmt: skip
    data = out.getvalue()
    expected = _reference(table_from_frame(frame), rows)
    if len(pdf):
        _assert_same_file(data, expected)
        assert data == expected
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(data)), pd.read_parquet(io.BytesIO(expected)))


def test_empty_inputs():
    table = pa.Table.from_pandas(_mixed_frame(0))
    assert _stitched(table, 10) == _reference(table, 10)
    out = io.BytesIO()
    write_row_groups(iter([]), out, schema=table.schema)
    assert pq.read_table(io.BytesIO(out.getvalue())).equals(pq.read_table(io.BytesIO(_reference(table, 10))))
    out = io.BytesIO()
    write_row_groups([table.slice(0, 0), table.slice(0, 0)], out)  # only empty tables: their schema, no rows
    assert pq.read_table(io.BytesIO(out.getvalue())).num_rows == 0
    with pytest.raises(ValueError, match="schema"):
        write_row_groups(iter([]), io.BytesIO())
    with pytest.raises(ValueError, match="row_group_size"):
        write_row_groups(table, io.BytesIO(), row_group_size=-1)


def test_single_row_group_and_one_thread():
    table = pa.Table.from_pandas(_mixed_frame(100))
    assert _stitched(table, 1000) == _reference(table, 1000)
    assert _stitched(table, 30, threads=1) == _reference(table, 30)
    for by_column in (False, True):
        out = io.BytesIO()
        write_row_groups([table], out, row_group_size=1000, by_column=by_column)  # through the stitcher
        assert out.getvalue() == _reference(table, 1000)
    one_column = pa.table({"x": np.arange(100)})
    assert _stitched(one_column, 30, by_column=True) == _reference(one_column, 30)


@pytest.mark.parametrize("by_column", [False, True])
def test_memory_stays_bounded(monkeypatch, by_column):
    """At most 2 * threads ranges are alive: made by the caller's iterator and not yet written."""
    made, written, worst = [0], [0], [0]
    name = "_place_columns" if by_column else "_place"
    original = getattr(parquet_parallel._Stitcher, name)

    def place(self, piece):
        original(self, piece)
        written[0] += 1

    monkeypatch.setattr(parquet_parallel._Stitcher, name, place)

    def ranges():
        for lo in range(0, 400, 10):
            made[0] += 1
            worst[0] = max(worst[0], made[0] - written[0])
            yield pa.table({"x": np.arange(lo, lo + 10), "y": np.arange(lo, lo + 10) * 2})

    out = io.BytesIO()
    write_row_groups(ranges(), out, row_group_size=10, threads=2, by_column=by_column)
    assert made[0] == 40 and written[0] == 40 and worst[0] <= 4
    assert pq.read_table(io.BytesIO(out.getvalue())).column("x").to_pylist() == list(range(400))


# ---------------------------------------------------------------------------------------------------- failures


def test_path_target_is_written_atomically(tmp_path):
    target = tmp_path / "out.parquet"
    table = pa.Table.from_pandas(_mixed_frame(100))
    write_row_groups(table, target, row_group_size=16)
    assert target.read_bytes() == _reference(table, 16)
    assert os.listdir(tmp_path) == ["out.parquet"]


@pytest.mark.parametrize("where", ["source", "encode", "_write"])
@pytest.mark.parametrize("by_column", [False, True])
def test_failure_leaves_no_file(tmp_path, monkeypatch, where, by_column):
    """A failure while making a range (device copy), encoding one or writing one: the error surfaces, the target
    keeps its old content and no temporary file is left."""
    target = tmp_path / "out.parquet"
    target.write_bytes(b"old content")
    table = pa.table({"x": np.arange(100), "y": np.arange(100.0)})

    def ranges():
        for lo in range(0, 100, 10):
            if where == "source" and lo == 50:
                raise RuntimeError("device copy failed")
            yield table.slice(lo, 10)

    if where != "source":
        original = getattr(parquet_parallel._Stitcher, where)
        calls = [0]

        def failing(self, arg):
            calls[0] += 1
            if calls[0] == 4:
                raise RuntimeError("disk full")
            return original(self, arg)

        monkeypatch.setattr(parquet_parallel._Stitcher, where, failing)
    with pytest.raises(RuntimeError, match="device copy failed|disk full"):
        write_row_groups(ranges(), target, row_group_size=10, threads=2, by_column=by_column)
    assert target.read_bytes() == b"old content"
    assert os.listdir(tmp_path) == ["out.parquet"]


def test_bad_writer_options_raise_pyarrows_error(tmp_path):
    table = pa.table({"x": np.arange(100)})
    with pytest.raises((ValueError, pa.ArrowException)):
        write_row_groups(table, tmp_path / "t.parquet", row_group_size=10, compression="no-such-codec")
    assert os.listdir(tmp_path) == []


def test_writeback_started_as_it_writes_leaves_pyarrows_file(monkeypatch, tmp_path):
    """A path's file has its writeback to disk started after every piece (each write, here), covering every byte
    once and changing none; a caller's file object (a BytesIO, a gzip stream, a spooled file) is never asked."""
    import gzip
    import tempfile

    calls = []
    start_writeback = parquet_parallel._files.start_writeback
    monkeypatch.setattr(parquet_parallel._files, "WRITEBACK_BYTES", 1)
    monkeypatch.setattr(parquet_parallel._files, "start_writeback",
                        lambda file, start, length: calls.append((start, length)) or start_writeback(file, start, length))
    table = pa.Table.from_pandas(_mixed_frame(2000, seed=3))
    expected = _reference(table, 300)
    target = tmp_path / "out.parquet"
    write_row_groups(table, str(target), row_group_size=300, threads=3)
    assert target.read_bytes() == expected
    assert calls and [start for start, _ in calls] == list(itertools.accumulate([0] + [n for _, n in calls[:-1]]))
    assert sum(n for _, n in calls) == target.stat().st_size
    calls.clear()
    out, spooled = io.BytesIO(), tempfile.SpooledTemporaryFile(max_size=1 << 30)
    write_row_groups(table, out, row_group_size=300, threads=3)
    write_row_groups(table, spooled, row_group_size=300, threads=3)
    with gzip.GzipFile(fileobj=(zipped := io.BytesIO()), mode="wb", mtime=0) as stream:
        write_row_groups(table, stream, row_group_size=300, threads=3)
    assert calls == [] and not spooled._rolled
    spooled.seek(0)
    assert out.getvalue() == spooled.read() == gzip.decompress(zipped.getvalue()) == expected


def test_start_writeback_on_files_and_others(tmp_path):
    """start_writeback on a real file (Linux: sync_file_range exists and accepts it) and on objects without a file
    descriptor (nothing happens); the file's bytes stay what was written."""
    import sys

    from riptide.io import _files

    if sys.platform.startswith("linux"):
        assert _files._sync_file_range() is not None
    with open(tmp_path / "f.bin", "wb") as f:
        f.write(b"x" * 5000)
        _files.start_writeback(f, 0, 5000)  # flushed first: the range holds the bytes
        f.write(b"y")
    assert (tmp_path / "f.bin").read_bytes() == b"x" * 5000 + b"y"

    class NoDescriptor(io.RawIOBase):
        def fileno(self) -> int:
            raise NotImplementedError

    for other in (io.BytesIO(b"abc"), object(), NoDescriptor()):
        _files.start_writeback(other, 0, 3)
