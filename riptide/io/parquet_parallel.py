"""One Parquet file whose row groups are encoded on many threads at once (issue 5: ``to_parquet`` speed).

pyarrow's Parquet writer encodes and compresses a file on one thread: the CPU encoding, not the device -> host copy
or the disk, is what ``to_parquet`` waits for. A Parquet file, though, is a concatenation of independent row
groups followed by a footer (a Thrift ``FileMetaData``) that lists them with their absolute file offsets. So:

1. the rows are cut into ranges of ``row_group_size``; a thread pool has pyarrow write each range as a small,
   complete Parquet file in memory (``pq.write_table`` releases the GIL while it encodes and compresses; the sink is
   a ``pa.BufferOutputStream``, so pyarrow never calls back into Python to write). By default (``by_column``) each
   *column* of a range is a task of its own, a one-column file: a frame of 10 row groups and 9 columns is 90 tasks
   rather than 10, so 16 cores stay busy and each range is done sooner; the writer joins a range's column chunks
   into one row group again (summing its byte sizes), with the file metadata taken from an empty file of the whole
   schema;
2. the pieces are *stitched*: ``PAR1``, then each piece's row-group bytes (what lies between its leading ``PAR1``
   and its footer) in order, then a merged footer, its 4-byte length and ``PAR1``. The merged footer is the first
   piece's ``FileMetaData`` with ``num_rows`` summed and the ``row_groups`` of all pieces concatenated, every
   absolute offset in them shifted by where the piece's bytes landed (``RowGroup.file_offset``, a non-zero
   ``ColumnChunk.file_offset``, ``ColumnMetaData.data_page_offset`` / ``index_page_offset`` /
   ``dictionary_page_offset``) and ``RowGroup.ordinal`` renumbered when present. The schema, key/value metadata
   (``ARROW:schema``, pandas' metadata), ``created_by`` and column orders are the same in every piece (checked).
   The footers are edited as Thrift trees with :mod:`riptide.io.thrift_compact` (field ids from the Apache Parquet
   format's ``parquet.thrift``);
3. what pyarrow writes *after* the row groups of a piece, when asked to (bloom filters, ``write_page_index=True``'s
   column and offset indexes), is collected and written after all row groups, before the footer, as pyarrow lays
   out a file of several row groups: bloom filters, then column indexes, then offset indexes. Their offsets and
   lengths are set anew; the offset indexes are re-encoded with their page offsets shifted.

The pieces are written to the sink in order as they finish encoding, by one writer thread, while the caller's
thread produces the next ranges: with ``table_from_frame(frame, index, rows=...)`` as the source, the device ->
host copy of range *k+1*, the encoding of range *k* and the file write overlap. At most ``2 * threads`` ranges
are alive at once (produced, encoding, or encoded and waiting for their turn to be written), so memory stays
bounded for frames of any length.

The result is the file ``pq.write_table(table, row_group_size=...)`` writes, byte for byte (pyarrow encodes each
row group, and each column chunk, independently of the others; tested for every option combination in the tests
and for random frames), so every reader reads it as it reads pyarrow's. Empty input and encrypted files
(``encryption_properties=``, whose footers cannot be edited this way) go through pyarrow's own writer instead; a
table of at most ``row_group_size`` rows is one ``pq.write_table`` call.
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import pyarrow as pa

from riptide.io import _files
from riptide.io import thrift_compact as tc

__all__ = ["WRITE_ROWS", "frame_row_ranges", "write_row_groups"]

WRITE_ROWS = 1 << 20  # rows per row group unless the caller says otherwise (pyarrow's default)
_MAGIC = b"PAR1"

# parquet.thrift field ids used here
_FMD_NUM_ROWS, _FMD_ROW_GROUPS = 3, 4  # FileMetaData
_FMD_SAME = {1: "version", 2: "schema", 5: "key_value_metadata", 6: "created_by", 7: "column_orders"}
_RG_COLUMNS, _RG_TOTAL_BYTE_SIZE, _RG_FILE_OFFSET, _RG_TOTAL_COMPRESSED, _RG_ORDINAL = 1, 2, 5, 6, 7  # RowGroup
_CC_FILE_OFFSET, _CC_META = 2, 3  # ColumnChunk
_CC_OFFSET_INDEX, _CC_OFFSET_INDEX_LEN, _CC_COLUMN_INDEX, _CC_COLUMN_INDEX_LEN = 4, 5, 6, 7
_CC_CRYPTO, _CC_ENCRYPTED_META = 8, 9
_CMD_TOTAL_COMPRESSED = 7  # ColumnMetaData
_CMD_DATA_PAGE, _CMD_INDEX_PAGE, _CMD_DICTIONARY_PAGE = 9, 10, 11
_CMD_BLOOM, _CMD_BLOOM_LEN = 14, 15
_OI_PAGE_LOCATIONS, _PL_OFFSET = 1, 1  # OffsetIndex, PageLocation
_BLOOM_NUM_BYTES = 1  # BloomFilterHeader


def _default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def frame_row_ranges(frame: Any, index: bool | None = None, row_group_size: int | None = None,
                     schema: pa.Schema | None = None) -> Iterator[pa.Table]:  # fmt: skip
    """The Arrow tables of ``frame``'s consecutive row ranges of ``row_group_size`` rows, made one at a time.

    Each range is copied to the host only when the writer asks for it (the generator is lazy), with the whole
    frame's ``schema`` (:func:`riptide.io._arrow.table_schema`), so the pieces of a file agree.

    >>> import riptide as rt
    >>> frame = rt.DataFrame({"a": [1, 2, 3, 4, 5]})
    >>> [t.num_rows for t in frame_row_ranges(frame, row_group_size=2)]
    [2, 2, 1]
    """
    from riptide.io._arrow import table_from_frame, table_schema

    schema = schema if schema is not None else table_schema(frame, index)
    rows = row_group_size or WRITE_ROWS
    n = len(frame)
    for lo in range(0, n, rows):
        yield table_from_frame(frame, index, rows=(lo, min(lo + rows, n)), schema=schema)


def write_row_groups(source: pa.Table | Iterable[pa.Table], sink: Any, schema: pa.Schema | None = None,
                     compression: Any = "snappy", row_group_size: int | None = None, threads: int | None = None,
                     by_column: bool | None = None, **kwargs: Any) -> None:  # fmt: skip
    """Write ``source`` as one Parquet file to ``sink``, its row groups encoded on ``threads`` threads.

    ``source``: a ``pyarrow.Table`` (cut into ranges of ``row_group_size`` rows, default ``WRITE_ROWS``) or an
    iterable of tables (e.g. :func:`frame_row_ranges`), each of which becomes one row group (or several, if longer
    than ``row_group_size``); tables are taken from the iterable only as the encoders can take them.
    ``sink``: a binary file object, or a path (written atomically: the file appears under that name only when
    complete). ``schema``: the file's Arrow schema; by default the first table's; tables whose schema differs are
    cast to it. ``threads``: encoding threads, by default the CPUs this process may run on. ``by_column``: encode
    each column of a range as a task of its own (default: when there are several threads and columns).
    ``compression`` and ``**kwargs`` go to ``pyarrow.parquet.write_table`` (``use_dictionary``, ``write_statistics``,
    ``write_page_index``, ``compression_level``, ...).

    >>> import io, pyarrow as pa, pyarrow.parquet as pq
    >>> table = pa.table({"x": list(range(10)), "y": [str(i) for i in range(10)]})
    >>> buffer = io.BytesIO()
    >>> write_row_groups(table, buffer, row_group_size=4)
    >>> pq.ParquetFile(buffer).metadata.num_row_groups, pq.read_table(buffer).equals(table)
    (3, True)
    """
    import pyarrow.parquet as pq

    rows = int(row_group_size or WRITE_ROWS)
    if rows < 1:
        raise ValueError(f"row_group_size must be a positive number of rows, got {row_group_size!r}")
    threads = int(threads or _default_threads())
    path = _files.stringify_path(sink)
    if isinstance(path, str):
        with _files.atomic_target(path, writeback=True) as target:  # its disk starts as the pieces are written
            write_row_groups(source, target, schema, compression, rows, threads, by_column, **kwargs)
        return
    if isinstance(source, pa.Table):
        table = source if schema is None else _fitted(source, schema)
        if table.num_rows <= rows or kwargs.get("encryption_properties") is not None:
            pq.write_table(table, sink, row_group_size=rows, compression=compression, **kwargs)
            return
        source = (table.slice(lo, rows) for lo in range(0, table.num_rows, rows))
        schema = table.schema
    pieces = _Pieces(source, schema, rows)
    first = next(pieces, None)
    if first is None or kwargs.get("encryption_properties") is not None:
        _write_sequential(first, pieces, sink, pieces.schema, compression, rows, **kwargs)
        return
    if by_column is None:
        by_column = threads > 1 and first.num_columns > 1
    _Stitcher(sink, compression, kwargs, by_column).run(first, pieces, threads)


def _fitted(table: pa.Table, schema: pa.Schema) -> pa.Table:
    if not table.schema.equals(schema, check_metadata=True):
        if not table.schema.equals(schema):
            table = table.cast(schema)
        table = table.replace_schema_metadata(schema.metadata)
    return table


class _Pieces:
    """The tables of ``source`` that have rows, fitted to ``schema`` (the first table's when None), cut to
    ``rows`` rows; made one at a time, as the writer asks for them."""

    def __init__(self, source: Iterable[pa.Table], schema: pa.Schema | None, rows: int):
        self.schema = schema
        self._tables = iter(source)
        self._rows = rows
        self._left: Iterator[pa.Table] = iter(())

    def __iter__(self) -> _Pieces:
        return self

    def __next__(self) -> pa.Table:
        while True:
            piece = next(self._left, None)
            if piece is not None:
                return piece
            table = next(self._tables)  # StopIteration ends the pieces too
            if not isinstance(table, pa.Table):
                raise TypeError(f"write_row_groups expects pyarrow Tables, got {type(table).__name__}")
            if self.schema is None:
                self.schema = table.schema
            table = _fitted(table, self.schema)
            self._left = (table.slice(lo, self._rows) for lo in range(0, table.num_rows, self._rows))


def _write_sequential(first: pa.Table | None, rest: Iterator[pa.Table], sink: Any, schema: pa.Schema | None,
                      compression: Any, rows: int, **kwargs: Any) -> None:  # fmt: skip
    """pyarrow's own writer, one range after the other: empty input, encrypted files."""
    import pyarrow.parquet as pq

    if first is None and schema is None:
        raise ValueError("write_row_groups needs a schema to write a file with no tables")
    schema = first.schema if first is not None else schema
    with pq.ParquetWriter(sink, schema, compression=compression, **kwargs) as writer:
        if first is None:
            writer.write_table(schema.empty_table())
        else:
            writer.write_table(first, row_group_size=rows)
            for table in rest:
                writer.write_table(table, row_group_size=rows)


class _Piece:
    """One range encoded as a complete Parquet file, taken apart: what the stitcher needs of it."""

    __slots__ = (
        "blooms",
        "buffer",
        "column_indexes",
        "data",
        "metadata",
        "num_rows",
        "offset_indexes",
        "row_groups",
    )  # fmt: skip

    def __init__(self, buffer: pa.Buffer):
        self.buffer = buffer  # keeps ``data`` (a view of it) alive until written
        view = memoryview(buffer).cast("B")  # pyarrow exports signed bytes ("b")
        self.metadata, footer_start = _footer(view)
        self.row_groups = self.metadata.get(_FMD_ROW_GROUPS).items
        self.num_rows = self.metadata.get(_FMD_NUM_ROWS)
        chunks = [chunk for rg in self.row_groups for chunk in rg.get(_RG_COLUMNS).items]
        if any(_CC_CRYPTO in c or _CC_ENCRYPTED_META in c for c in chunks):
            raise ValueError("encrypted column chunks cannot be stitched")
        # the tail: bloom filters and page indexes, after the row groups (their bytes, to be moved)
        self.blooms: list[tuple[tc.Struct, bytes]] = []
        self.column_indexes: list[tuple[tc.Struct, bytes]] = []
        self.offset_indexes: list[tuple[tc.Struct, tc.Struct]] = []
        tail_start = footer_start
        for chunk in chunks:
            meta = chunk.get(_CC_META)
            if meta is not None and meta.get(_CMD_BLOOM) is not None:
                at = meta.get(_CMD_BLOOM)
                length = meta.get(_CMD_BLOOM_LEN)
                if length is None:  # older writers: the header says how many bytes follow it
                    header, after = tc.decode_struct(view, at, footer_start)
                    length = after - at + header.get(_BLOOM_NUM_BYTES)
                self.blooms.append((meta, _slice(view, at, length, footer_start)))
                tail_start = min(tail_start, at)
            if chunk.get(_CC_COLUMN_INDEX) is not None:
                at, length = chunk.get(_CC_COLUMN_INDEX), chunk.get(_CC_COLUMN_INDEX_LEN)
                self.column_indexes.append((chunk, _slice(view, at, length, footer_start)))
                tail_start = min(tail_start, at)
            if chunk.get(_CC_OFFSET_INDEX) is not None:
                at, length = chunk.get(_CC_OFFSET_INDEX), chunk.get(_CC_OFFSET_INDEX_LEN)
                index, _ = tc.decode_struct(_slice(view, at, length, footer_start))
                self.offset_indexes.append((chunk, index))
                tail_start = min(tail_start, at)
        for chunk in chunks:  # the row groups must lie wholly before the tail, or moving the tail would cut them
            meta = chunk.get(_CC_META)
            start = min(o for o in (meta.get(_CMD_DICTIONARY_PAGE), meta.get(_CMD_DATA_PAGE)) if o)
            if start < 4 or start + meta.get(_CMD_TOTAL_COMPRESSED) > tail_start:
                raise ValueError("unexpected layout of a Parquet piece: a column chunk overlaps its tail")
        self.data = view[4:tail_start]


def _footer(view: memoryview) -> tuple[tc.Struct, int]:
    """The ``FileMetaData`` of the Parquet file in ``view`` (bytes pyarrow wrote), and where the footer starts."""
    size = len(view)
    if size < 12 or bytes(view[:4]) != _MAGIC or bytes(view[-4:]) != _MAGIC:
        raise ValueError("pyarrow wrote a piece that is not a Parquet file")
    footer_len = int.from_bytes(view[-8:-4], "little")
    footer_start = size - 8 - footer_len
    metadata, end = tc.decode_struct(bytes(view[footer_start : size - 8]))
    if end != footer_len:
        raise ValueError("a piece's Parquet footer has trailing bytes")
    return metadata, footer_start


def _slice(view: memoryview, at: int, length: int | None, limit: int) -> bytes:
    if length is None or at < 4 or at + length > limit:
        raise ValueError("unexpected layout of a Parquet piece: an index lies outside it")
    return bytes(view[at : at + length])


def _shift(s: tc.Struct, field_id: int, delta: int) -> None:
    value = s.get(field_id)
    if value:  # absent, or 0 (``ColumnChunk.file_offset``'s "not written" value): left alone
        s.set(field_id, tc.I64, value + delta)


class _Stitcher:
    """Encodes ranges on a pool, writes them in order on one writer thread, then the merged footer.

    ``by_column``: each range's top-level columns are encoded as separate one-column files (more, smaller tasks:
    all cores stay busy even with few row groups, and a range is done sooner); the writer then joins the column
    chunks of a range into one row group. Otherwise each range is one task.
    """

    def __init__(self, sink: Any, compression: Any, kwargs: dict, by_column: bool):
        self.sink = sink
        self.compression = compression
        self.kwargs = kwargs
        self.by_column = by_column
        self.position = 0
        self.metadata: tc.Struct | None = None
        self.row_groups: list[tc.Struct] = []
        self.num_rows = 0
        self.blooms: list = []
        self.column_indexes: list = []
        self.offset_indexes: list = []
        self.failed = threading.Event()

    def encode(self, table: pa.Table) -> _Piece:
        import pyarrow.parquet as pq

        if self.failed.is_set():
            raise _Abandoned()
        out = pa.BufferOutputStream()
        pq.write_table(table, out, row_group_size=table.num_rows, compression=self.compression, **self.kwargs)
        return _Piece(out.getvalue())

    def _template(self, schema: pa.Schema) -> tc.Struct:
        """The file's ``FileMetaData`` but its row groups: that of an empty file of the whole schema (the
        one-column pieces of ``by_column`` each carry only their own column's schema)."""
        import pyarrow.parquet as pq

        out = pa.BufferOutputStream()
        pq.write_table(schema.empty_table(), out, compression=self.compression, **self.kwargs)
        return _footer(memoryview(out.getvalue()).cast("B"))[0]

    def run(self, first: pa.Table, rest: Iterator[pa.Table], threads: int) -> None:
        in_flight = threading.BoundedSemaphore(2 * threads)
        writes: list[concurrent.futures.Future] = []
        if self.by_column:
            self.metadata = self._template(first.schema)
        with concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="riptide-parquet-encode") as pool, \
                concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="riptide-parquet-write") as writer:  # fmt: skip
            try:
                self._write(_MAGIC)
                in_flight.acquire()  # each range holds a place from when it is made until it is written
                table: pa.Table | None = first
                while table is not None:
                    parts = [table.select([i]).replace_schema_metadata(None) for i in range(table.num_columns)] \
                        if self.by_column else [table]  # (the file's metadata is the template's)  # fmt: skip
                    encodings = [pool.submit(self.encode, part) for part in parts]
                    writes.append(writer.submit(self._append, encodings, in_flight))
                    table = parts = None  # the pool holds them while they are needed
                    in_flight.acquire()  # the next range's place: wait while 2 * threads ranges are alive
                    if self.failed.is_set():
                        break
                    table = next(rest, None)
                    if table is None:
                        in_flight.release()
            except BaseException:
                self.failed.set()
                raise
        for done in writes:  # the first failure, in file order (later ones are its consequence: _Abandoned)
            error = done.exception()
            if error is not None and not isinstance(error, _Abandoned):
                raise error
        self._finish()

    def _append(self, encodings: list[concurrent.futures.Future], in_flight: threading.BoundedSemaphore) -> None:
        """Writer thread: wait for the range's encoding (ranges are appended in file order) and write it."""
        try:
            if self.failed.is_set():
                raise _Abandoned()
            pieces = [encoding.result() for encoding in encodings]
            if self.by_column:
                self._place_columns(pieces)
            else:
                self._place(pieces[0])
        except _Abandoned:
            raise
        except BaseException:
            self.failed.set()
            raise
        finally:
            in_flight.release()

    def _place(self, piece: _Piece) -> None:
        """Write the piece's row groups where the file is now, and note its metadata with offsets shifted."""
        if self.metadata is None:
            self.metadata = piece.metadata
        else:
            for field_id, what in _FMD_SAME.items():
                if piece.metadata.get(field_id) != self.metadata.get(field_id):
                    raise ValueError(f"the pieces of a Parquet file disagree on their {what}")
        self._relocate(piece)
        self.row_groups += piece.row_groups
        self.num_rows += piece.num_rows

    def _place_columns(self, pieces: list[_Piece]) -> None:
        """Write one range's one-column pieces one after the other and note them as one row group."""
        groups = []
        for piece in pieces:
            if len(piece.row_groups) != 1:
                raise ValueError("a one-column piece of a Parquet file has more than one row group")
            self._relocate(piece)
            groups.append(piece.row_groups[0])
        merged = groups[0]  # num_rows, file_offset (the first chunk's), sorting_columns, ordinal: the first's
        merged.set(_RG_COLUMNS, tc.LIST, tc.List(tc.STRUCT, [c for g in groups for c in g.get(_RG_COLUMNS).items]))
        for field_id in (_RG_TOTAL_BYTE_SIZE, _RG_TOTAL_COMPRESSED):
            if field_id in merged:
                merged.set(field_id, tc.I64, sum(g.get(field_id) for g in groups))
        self.row_groups.append(merged)
        self.num_rows += pieces[0].num_rows

    def _relocate(self, piece: _Piece) -> None:
        """Write the piece's row-group bytes at the file's end; shift its offsets to match; keep its tail."""
        delta = self.position - 4
        for rg in piece.row_groups:
            _shift(rg, _RG_FILE_OFFSET, delta)
            for chunk in rg.get(_RG_COLUMNS).items:
                _shift(chunk, _CC_FILE_OFFSET, delta)
                meta = chunk.get(_CC_META)
                for field_id in (_CMD_DATA_PAGE, _CMD_INDEX_PAGE, _CMD_DICTIONARY_PAGE):
                    _shift(meta, field_id, delta)
        for _, index in piece.offset_indexes:
            for location in index.get(_OI_PAGE_LOCATIONS).items:
                _shift(location, _PL_OFFSET, delta)
        self.blooms += piece.blooms
        self.column_indexes += piece.column_indexes
        self.offset_indexes += piece.offset_indexes
        self._write(piece.data)
        piece.buffer = piece.data = None  # the encoded bytes are written: let them go

    def _write(self, data: Any) -> None:
        self.sink.write(data)
        self.position += len(data)

    def _finish(self) -> None:
        """The tail (bloom filters, column indexes, offset indexes) and the merged footer."""
        for meta, data in self.blooms:
            meta.set(_CMD_BLOOM, tc.I64, self.position)
            meta.set(_CMD_BLOOM_LEN, tc.I32, len(data))
            self._write(data)
        for chunk, data in self.column_indexes:
            chunk.set(_CC_COLUMN_INDEX, tc.I64, self.position)
            chunk.set(_CC_COLUMN_INDEX_LEN, tc.I32, len(data))
            self._write(data)
        for chunk, index in self.offset_indexes:
            data = tc.encode_struct(index)
            chunk.set(_CC_OFFSET_INDEX, tc.I64, self.position)
            chunk.set(_CC_OFFSET_INDEX_LEN, tc.I32, len(data))
            self._write(data)
        for ordinal, rg in enumerate(self.row_groups):
            if _RG_ORDINAL in rg:
                if ordinal < 1 << 15:
                    rg.set(_RG_ORDINAL, tc.I16, ordinal)
                else:  # an i16 cannot number it; the field is optional
                    rg.remove(_RG_ORDINAL)
        metadata = self.metadata
        metadata.set(_FMD_NUM_ROWS, tc.I64, self.num_rows)
        metadata.set(_FMD_ROW_GROUPS, tc.LIST, tc.List(tc.STRUCT, self.row_groups))
        footer = tc.encode_struct(metadata)
        self._write(footer + len(footer).to_bytes(4, "little") + _MAGIC)


class _Abandoned(Exception):
    """A range not encoded or written because an earlier one failed."""
