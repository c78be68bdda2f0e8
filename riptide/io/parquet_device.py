"""Parquet decoded on the GPU: the *encoded* column chunks go to the device, CUDA kernels decode them there.

Why. Decoding with pyarrow on the host and copying the decoded columns over is bounded by the copy: the
db-benchmark G1 1e7 file is 0.21 GB of Snappy-compressed pages and 0.9 GB decoded. Moving the compressed bytes
and decoding on the device moves a quarter of the bytes and puts the decoding on the wide side of the link.

Data flow (``n_pages`` is a few thousand for a file of 1e7 rows: pyarrow writes pages of at most 20,000 rows)
-----------------------------------------------------------------------------------------------------------------
1. *Host, metadata*: ``pyarrow.parquet.ParquetFile(...).metadata`` (the footer, parsed by pyarrow) gives the row
   groups and every column chunk's byte range, codec and encodings; the Arrow schema (with pandas' metadata) gives
   the types pandas will see. Each selected column is *planned*: decoded here, or left to pyarrow (below).
2. *One upload*: the byte ranges of the planned chunks (or the whole span they lie in, when they fill most of it)
   are read into one pinned host buffer by parallel ``preadv`` calls, each piece copied to the device as it lands.
3. ``pq_walk``, one thread per column chunk, walks the chunk's page headers (Thrift compact protocol) twice:
   counting the pages (read back: one small array), then writing one row per page of the *page table* (type,
   offsets, sizes, value count, encodings, v2 level lengths), which is read back too (``n_pages`` x 160 bytes).
   The host completes the table with NumPy (no loop over pages): where each page decompresses to, its rows'
   place in the column's validity, its dictionary page and that dictionary's first entry; it also checks the
   encodings page by page, so a column with a page the kernels cannot read goes to pyarrow before any decoding.
   The table goes back to the device (one small copy).
4. ``pq_decompress`` (one warp per page, all pages of all columns in one launch) writes every page decompressed
   into one buffer; a page of several 64 KB Snappy blocks (a dictionary page can be a megabyte of short copies)
   is first indexed by ``pq_snappy_index`` and then decoded one warp per block; ``pq_levels`` (one warp per data page) turns definition levels into the validity bytes of
   the page's rows and counts its values; an exclusive scan of the counts (``xp.cumsum``) gives each page the
   place of its first value in the column's *compact* values (missing rows hold no value in Parquet).
5. ``pq_byte_arrays`` lists the entries of the string dictionaries; for categorical columns (pandas'
   ``category`` written as an Arrow dictionary) the entries of all row groups are factorized on the device in
   order of first appearance, which is the order of pyarrow's unified dictionary: the categories, and a map from
   each row group's dictionary entry to its category. When every row group's dictionary has the same size (pandas
   writes one dictionary into each), they are taken to be the same and the check waits for step 7's read.
6. ``pq_values`` (one warp per data page, one launch for all columns) decodes PLAIN values, booleans (PLAIN and
   RLE) and dictionary indices (RLE / bit-packed hybrid), gathering from the dictionary page: fixed-width values,
   string (position, length) pairs, or category codes.
7. One read of a few numbers (an error flag, each column's value count, each string column's byte count)
   sizes the last step: strings' lengths are scanned into offsets and ``pq_gather_strings`` copies their bytes;
   columns with missing values spread the compact values over the rows (a ``cumsum`` of the validity and one
   gather), with the fill pandas' Arrow conversion uses (0, ``False``, NaT, code -1).

So: one metadata read (host), one file read and one upload, 6 kernel launches (+ the factorization of the
categorical dictionaries, + one string gather per string column), and a few small device-to-host reads (page
counts, page table and error flag, the final sizes, with which also goes the check that each categorical column's
row groups share one dictionary when their dictionaries have one size). The small host arrays the kernels take
(page lists, the page table) are queued on the stream without waiting (see :func:`riptide._transfer.host_to_device`),
so between those reads the host runs ahead of the GPU.

What goes to pyarrow (:mod:`riptide.io.parquet` reads those columns with pyarrow and the result is the same):
nested types, repeated fields, codecs other than Snappy / uncompressed, encodings other than PLAIN, RLE and
(RLE|PLAIN)_DICTIONARY, INT96 / decimal / fixed-length / time / binary columns, timestamps whose Arrow unit is not
the file's, and categorical columns with PLAIN pages. A malformed file (a kernel raises its error flag) is read
again by pyarrow entirely, which raises pyarrow's error.

The kernels are in :mod:`riptide.io.parquet_kernels`. On the GPU they run through CuPy; the tests compile the same
source with g++ and run this whole module on NumPy through a host launcher (see ``tests/io/test_parquet_device.py``).
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from riptide.io import parquet_kernels as K
from riptide.io._device_read import read_ranges, start_read_ranges

__all__ = ["read_parquet_device", "CupyLauncher"]

_CODECS = {"UNCOMPRESSED": 0, "SNAPPY": 1}
_ENCODINGS = {"PLAIN", "RLE", "RLE_DICTIONARY", "PLAIN_DICTIONARY"}
_UNITS = {"milliseconds": "ms", "microseconds": "us", "nanoseconds": "ns"}
DENSE_SPAN = 0.75  # read the span of the selected chunks whole when they are at least this share of it


class CupyLauncher:
    """Runs the kernels of :mod:`riptide.io.parquet_kernels` through CuPy (the one module compiled once)."""

    warp = 32
    warps_per_block = 4

    def __call__(self, name: str, grid: int, block: int, *args: Any) -> None:
        converted = tuple(np.int64(a) if isinstance(a, int | np.integer) else a for a in args)
        _cupy_module().get_function(name)((grid,), (block,), converted)

    @staticmethod
    def ptr(array: Any) -> int:
        return int(array.data.ptr)


@functools.cache
def _cupy_module() -> Any:
    import cupy as cp

    return cp.RawModule(code=K.SOURCE, options=("--std=c++17",))


class _Plan(NamedTuple):
    """How one selected column is decoded."""

    name: str
    leaf: int  # the column's index among the file's leaf columns
    kind: int  # K.KIND_*
    width: int  # bytes per value as stored (fixed width); 1 for booleans and codes' map
    physical: Any  # NumPy dtype of the stored values (fixed width)
    nullable: bool  # max definition level 1
    arrow_type: pa.DataType
    chunks: np.ndarray  # [row groups, 4]: the column chunk's file offset, compressed length, values, codec


# --------------------------------------------------------------------------- planning (host, metadata only)


def _plan(pf: Any, name: str, leaf: int, field: pa.Field) -> _Plan | None:
    """The plan for one column; None: pyarrow reads it."""
    meta = pf.metadata
    col = pf.schema.column(leaf)
    if col.max_repetition_level != 0 or col.max_definition_level > 1 or col.path != name:
        return None
    chunks = np.empty((meta.num_row_groups, 4), dtype=np.int64)
    for rg in range(meta.num_row_groups):
        chunk = meta.row_group(rg).column(leaf)
        if (chunk.compression not in _CODECS or not set(chunk.encodings) <= _ENCODINGS
                or chunk.file_path not in (None, "")):  # fmt: skip
            return None
        start = chunk.dictionary_page_offset if chunk.has_dictionary_page and chunk.dictionary_page_offset else (
            chunk.data_page_offset)
        chunks[rg] = start, chunk.total_compressed_size, chunk.num_values, _CODECS[chunk.compression]
    physical, typ = col.physical_type, field.type
    logical = col.logical_type.to_json() if col.logical_type is not None else "{}"
    nullable = col.max_definition_level == 1

    def fixed(np_dtype: Any) -> _Plan:
        return _Plan(name, leaf, K.KIND_FIXED, np.dtype(np_dtype).itemsize, np.dtype(np_dtype), nullable, typ, chunks)

    if physical == "INT32" and (pa.types.is_integer(typ) and typ.bit_width <= 32 or pa.types.is_date32(typ)):
        return fixed(np.int32)
    if physical == "INT64" and pa.types.is_integer(typ) and typ.bit_width == 64:
        return fixed(np.int64)
    if physical == "INT64" and pa.types.is_timestamp(typ):
        import json

        unit = _UNITS.get(json.loads(logical).get("timeUnit", ""))
        return fixed(np.int64) if unit == typ.unit else None
    if physical == "FLOAT" and pa.types.is_float32(typ):
        return fixed(np.float32)
    if physical == "DOUBLE" and pa.types.is_float64(typ):
        return fixed(np.float64)
    if physical == "BOOLEAN" and pa.types.is_boolean(typ):
        return _Plan(name, leaf, K.KIND_BOOL, 1, np.dtype(np.uint8), nullable, typ, chunks)
    if physical == "BYTE_ARRAY" and (pa.types.is_string(typ) or pa.types.is_large_string(typ)):
        return _Plan(name, leaf, K.KIND_STRING, 0, None, nullable, typ, chunks)
    if (physical == "BYTE_ARRAY" and pa.types.is_dictionary(typ)
            and (pa.types.is_string(typ.value_type) or pa.types.is_large_string(typ.value_type))):  # fmt: skip
        return _Plan(name, leaf, K.KIND_CATEGORY, 4, np.dtype(np.int32), nullable, typ, chunks)
    return None


def _output_schema(pf: Any, columns: Any) -> pa.Schema | None:
    """The schema ``read_table(columns=..., use_pandas_metadata=True)`` gives (index columns added); None when
    the selection is for pyarrow to judge (unknown or repeated names)."""
    names = pf.schema_arrow.names
    if columns is not None:
        columns = list(columns)
        if len(set(columns)) != len(columns) or any(c not in names for c in columns):
            return None
    return pf.read_row_groups([], columns=columns, use_pandas_metadata=True).schema


# --------------------------------------------------------------------------- the decoder


def read_parquet_device(path: str, columns: Any = None, *, xp: Any = None, launcher: Any = None) -> Any:
    """The DataFrame of the local Parquet file ``path``, decoded on the device; None when pyarrow should read
    it (the caller does, with the same result). ``columns``: as ``read_parquet``'s.

    ``xp``/``launcher``: the array namespace and the kernel launcher (CuPy and :class:`CupyLauncher` by default;
    the tests pass NumPy and a launcher of the host build).
    """
    import pyarrow.parquet as pq

    from riptide import _device

    xp = xp or _device.xp()
    if launcher is None:
        if xp is np:
            return None  # no device: the kernels run on NumPy only through a test's host build
        launcher = CupyLauncher()
    pf = pq.ParquetFile(path)
    schema = pf.schema_arrow
    if pf.metadata.num_columns != len(schema) or any(pa.types.is_nested(f.type) for f in schema):
        return None  # nested columns: leaves and fields do not pair up
    # Every column wanted: the file's bytes start on their way to the device now, while the columns are planned
    # (about a millisecond of metadata on the host, no longer in front of the read).
    prefetch = None
    try:
        prefetch = _Prefetch.start(pf, path, xp) if columns is None else None
        out_schema = _output_schema(pf, columns)
        if out_schema is None:
            return None
        plans: dict[str, _Plan] = {}
        for name in out_schema.names:
            leaf = schema.get_field_index(name)
            if leaf < 0:
                return None
            plan = _plan(pf, name, leaf, schema.field(leaf))
            if plan is not None:
                plans[name] = plan
        if not plans:
            return None
        decoded = _Decoder(pf, path, list(plans.values()), xp, launcher, prefetch).run()
    finally:
        if prefetch is not None:
            prefetch.pending.result()  # (the decoder's bytes, or a read no one needs: the reader threads let go)
    if decoded is None:
        return None
    return _assemble(pf, out_schema, decoded, xp)


class _Prefetch(NamedTuple):
    """The file's bytes between its magic number and its footer (every column chunk), being read."""

    first: int  # file offset of the first byte read
    size: int
    pending: Any  # a PendingRead

    @classmethod
    def start(cls, pf: Any, path: str, xp: Any) -> _Prefetch:
        import os

        first = 4  # after "PAR1"; the footer is its metadata, 4 bytes of length and "PAR1"
        size = max(os.path.getsize(path) - 8 - pf.metadata.serialized_size - first, 0)
        return cls(first, size, start_read_ranges(path, np.array([[first, size]], dtype=np.int64), size, xp))

    def covers(self, lo: int, hi: int) -> bool:
        return self.first <= lo and hi <= self.first + self.size


def _assemble(pf: Any, out_schema: pa.Schema, decoded: dict, xp: Any) -> Any:
    """The frame: decoded columns, and pyarrow's for the rest, through the same dtype rules as the pyarrow path."""
    from riptide.io._arrow import _fitted, _frame, column_like_pandas

    rest = [name for name in out_schema.names if name not in decoded]
    table = pf.read(columns=rest, use_threads=True) if rest else None
    n = pf.metadata.num_rows

    def fitted_column(field: str, target: Any) -> Any:
        if field in decoded:
            column, has_nulls = decoded[field]
            return _fitted(column, has_nulls, target)
        return column_like_pandas(table.column(field), target, xp)

    def host_level(field: str) -> Any:
        if field in decoded:
            return decoded[field][0].to_pandas_array()
        return table.column(field).to_pandas()

    return _frame(out_schema, n, fitted_column, host_level, xp)


#: What :meth:`_Decoder._decode` returns when row groups' dictionaries it took for one turn out to differ.
_DICTIONARIES_DIFFER = object()


class _Decoder:
    """One file's decoding; :meth:`run` returns {name: (Column, has_nulls)} or None (pyarrow reads the file)."""

    def __init__(self, pf: Any, path: str, plans: list[_Plan], xp: Any, launcher: Any, prefetch: Any = None):
        self.pf, self.path, self.xp, self.launch, self.prefetch = pf, path, xp, launcher, prefetch
        self.plans = plans
        self.n_rows = pf.metadata.num_rows
        self.shared_dictionaries = True  # row groups' dictionaries of one size are one dictionary (checked)

    # ---- launch helpers
    def _warps(self, name: str, n: int, *args: Any) -> None:
        if n:
            wpb = self.launch.warps_per_block
            self.launch(name, -(-n // wpb), self.launch.warp * wpb, *args)

    def _blocks(self, name: str, n: int, *args: Any) -> None:
        """``n`` blocks of kernel ``name``: the walks through pages, whose warps share a page's windows."""
        if n:
            self.launch(name, n, self.launch.warp * self.launch.warps_per_block, *args)

    def _threads(self, name: str, n: int, *args: Any) -> None:
        if n:
            block = self.launch.warp * self.launch.warps_per_block
            self.launch(name, -(-n // block), block, *args)

    def _device_i64(self, host: np.ndarray) -> Any:
        from riptide import _device

        return _device.to_device(np.ascontiguousarray(host, dtype=np.int64), self.xp)

    def run(self) -> dict | None:
        from riptide import _device

        xp, meta = self.xp, self.pf.metadata
        # chunks in column-major order: a column's pages are consecutive in the page table
        chunk_info = np.zeros((len(self.plans) * meta.num_row_groups, 5), dtype=np.int64)  # offset, length,
        for c, plan in enumerate(self.plans):  # values, column, codec
            rows = slice(c * meta.num_row_groups, (c + 1) * meta.num_row_groups)
            chunk_info[rows, [0, 1, 2, 4]] = plan.chunks
            chunk_info[rows, 3] = c
        n_chunks = chunk_info.shape[0]
        buf, at = self._upload(chunk_info[:, 0], chunk_info[:, 1])
        error = xp.zeros(1, dtype=np.int32)

        # 3. page headers: count, then fill the page table
        chunks = np.zeros((n_chunks, 4), dtype=np.int64)
        chunks[:, 0] = at
        chunks[:, 1] = at + chunk_info[:, 1]
        chunks[:, 2] = chunk_info[:, 2]
        chunks_dev = self._device_i64(chunks)
        counts = xp.zeros(max(n_chunks, 1), dtype=np.int64)
        self._threads("pq_walk", n_chunks, buf, chunks_dev, n_chunks, 0, counts, counts, error)
        counts_host = _device.to_host(counts)[:n_chunks]  # one read: pages per chunk, to size the page table
        n_pages = int(counts_host.sum())
        chunks[:, 3] = np.concatenate([[0], np.cumsum(counts_host)])[:-1]
        chunks_dev = self._device_i64(chunks)
        pages_dev = xp.zeros((max(n_pages, 1), K.PF), dtype=np.int64)
        self._threads("pq_walk", n_chunks, buf, chunks_dev, n_chunks, 1, counts, pages_dev, error)
        pt = _device.to_host(pages_dev)[:n_pages].copy()  # one read: the page table, completed on the host
        if int(_device.to_host(error)[0]):
            return None
        table = self._complete_table(pt, chunk_info)
        if table is None:
            return None
        decoded = self._decode(buf, table, error)
        if decoded is _DICTIONARIES_DIFFER:  # decode again, numbering the categories by first appearance
            decoded = self._decode(buf, table, error)
        return decoded

    def _upload(self, offsets: np.ndarray, lengths: np.ndarray) -> tuple[Any, np.ndarray]:
        """The column chunks' bytes on the device, and where each chunk starts there. Chunks that fill most of the
        file span they lie in (every column selected) are read as that one span: a few large reads beat a hundred
        small ones (G1 1e7: 6.4 ms for the whole 179 MB file, 14.5 ms for its 90 chunks one by one). A prefetch
        holding every chunk (see :class:`_Prefetch`) is used as it is."""
        if self.prefetch is not None:
            span = self.prefetch.pending.result()  # (also lets the reader threads go before any other read)
            if len(offsets) and self.prefetch.covers(int(offsets.min()), int((offsets + lengths).max())):
                return span, offsets - self.prefetch.first
            del span  # (not alive beside the read below)
        if len(offsets) and lengths.sum() >= DENSE_SPAN * (int((offsets + lengths).max()) - int(offsets.min())):
            first = int(offsets.min())
            span = int((offsets + lengths).max()) - first
            return read_ranges(self.path, np.array([[first, span]], dtype=np.int64), span, self.xp), offsets - first
        at = np.cumsum(lengths) - lengths
        return read_ranges(self.path, np.stack([offsets, lengths], axis=1), int(lengths.sum()), self.xp), at

    # ---- host: the page table's remaining fields, and which columns stay on the device
    def _complete_table(self, pt: np.ndarray, chunk_info: np.ndarray) -> dict | None:
        n_pages = pt.shape[0]
        chunk = pt[:, K.P_CHUNK]
        col = chunk_info[chunk, 3] if n_pages else np.zeros(0, dtype=np.int64)
        typ = pt[:, K.P_TYPE]
        is_data = (typ == 0) | (typ == 3)
        is_dict = typ == 2
        if not np.all(is_data | is_dict):
            return None  # index pages or unknown page types
        enc = pt[:, K.P_ENC]
        n_cols = len(self.plans)
        kinds = np.array([p.kind for p in self.plans], dtype=np.int64)
        nullable = np.array([p.nullable for p in self.plans], dtype=bool)
        # which encodings each kind reads, page by page
        page_kind = kinds[col] if n_pages else np.zeros(0, dtype=np.int64)
        ok = np.where(is_dict, (enc == 0) | (enc == 2), False)
        ok |= is_data & np.isin(enc, [0, 2, 8]) & (page_kind != K.KIND_BOOL) & (page_kind != K.KIND_CATEGORY)
        ok |= is_data & np.isin(enc, [2, 8]) & (page_kind == K.KIND_CATEGORY)
        ok |= is_data & np.isin(enc, [0, 3]) & (page_kind == K.KIND_BOOL)
        ok &= ~(is_data & (typ == 0) & nullable[col] & (pt[:, K.P_DEFENC] != 3)) if n_pages else ok
        ok &= ~(is_data & (typ == 3) & (pt[:, K.P_REPLEN] != 0))
        # (pages come in chunk order and chunks in column order, so `chunk` and `col` never decrease: a column's or a
        # chunk's pages are one run, found by a binary search)
        bad_cols = np.bincount(col[~ok], minlength=n_cols) > 0
        # every column's data pages must hold its rows
        rows = np.bincount(col[is_data], weights=pt[is_data, K.P_NVALUES], minlength=n_cols).astype(np.int64)
        bad_cols |= rows != self.n_rows
        keep = ~bad_cols[col] if n_pages else np.zeros(0, dtype=bool)

        pt[:, K.P_CODEC] = chunk_info[chunk, 4] if n_pages else 0
        pt[:, K.P_COL] = col
        pt[:, K.P_MAXDEF] = nullable[col] if n_pages else 0
        sizes = (pt[:, K.P_USIZE] + 7) // 8 * 8  # every page starts 8-aligned (dictionary values are read as words)
        pt[:, K.P_OUT] = np.cumsum(sizes) - sizes
        dec_total = int(sizes.sum())
        # rows: each data page's first row within its column; nullable columns' validity back to back
        nv = np.where(is_data, pt[:, K.P_NVALUES], 0)
        row_start = np.cumsum(nv) - nv
        columns = np.arange(n_cols)
        first_page = np.searchsorted(col, columns, side="left")
        last_page = np.searchsorted(col, columns, side="right") - 1
        has_pages = last_page >= first_page
        first_page = np.where(has_pages, first_page, n_pages)  # a column without pages: n_pages and -1
        last_page = np.where(has_pages, last_page, -1)
        col_row0 = np.where(has_pages, row_start[np.minimum(first_page, max(n_pages - 1, 0))] if n_pages else 0, 0)
        mask_base = np.cumsum(np.where(nullable, self.n_rows, 0)) - np.where(nullable, self.n_rows, 0)
        pt[:, K.P_MASK] = np.where(nullable[col], mask_base[col] + row_start - col_row0[col], -1) if n_pages else 0
        pt[:, K.P_COLFIRST] = first_page[col] if n_pages else 0
        # dictionaries: each data page's dictionary page (the last one before it in its chunk)
        idx = np.arange(n_pages)
        last_dict = np.maximum.accumulate(np.where(is_dict, idx, -1)) if n_pages else idx
        chunk_first = np.searchsorted(chunk, np.arange(int(chunk.max()) + 1 if n_pages else 0), side="left")
        dict_page = np.where(last_dict >= chunk_first[chunk] if n_pages else False, last_dict, -1)
        pt[:, K.P_DICT] = np.where(is_data, dict_page, -1)
        strings = np.isin(page_kind, [K.KIND_STRING, K.KIND_CATEGORY]) & is_dict & keep
        entries = np.where(strings, pt[:, K.P_NVALUES], 0)
        entry_base = np.cumsum(entries) - entries
        pt[:, K.P_DICTBASE] = np.where(is_dict, entry_base, np.where(dict_page >= 0, entry_base[dict_page], 0))
        return dict(pt=pt, keep=keep, is_data=is_data, is_dict=is_dict, strings=strings, bad_cols=bad_cols,
                    dec_total=dec_total, n_entries=int(entries.sum()), first_page=first_page, last_page=last_page,
                    mask_base=mask_base, nullable=nullable, col=col)  # fmt: skip

    # ---- device: decompress, levels, dictionaries, values, strings
    def _decompress(self, buf: Any, pages: Any, pt: np.ndarray, decode_list: np.ndarray, dec: Any, error: Any) -> None:
        """Every listed page decompressed into ``dec``: a page of several Snappy blocks is indexed first
        (``pq_snappy_index``), then decoded one warp per block, so a megabyte dictionary page is not one warp's work."""
        typ = pt[:, K.P_TYPE]
        prefix = np.where(typ == 3, pt[:, K.P_DEFLEN] + pt[:, K.P_REPLEN], 0)
        compressed = (pt[:, K.P_CODEC] == 1) & ~((typ == 3) & (pt[:, K.P_ISCOMP] == 0))
        body = pt[:, K.P_USIZE] - prefix
        split = np.zeros(pt.shape[0], dtype=bool)
        split[decode_list] = compressed[decode_list] & (body[decode_list] > K.SNAPPY_BLOCK)
        n_blocks = np.where(split, -(-body // K.SNAPPY_BLOCK), 1)
        indexed = np.where(split, n_blocks, 0)  # entries of `index` per page
        base = np.where(split, np.cumsum(indexed) - indexed, -1)
        split_list = np.flatnonzero(split)
        index = self.xp.empty(max(int(indexed.sum()), 1), dtype=np.int64)
        base_dev = self._device_i64(base if base.size else np.zeros(1, dtype=np.int64))
        self._blocks("pq_snappy_index", len(split_list), buf, pages, self._device_i64(split_list), len(split_list),
                     index, base_dev, error)  # fmt: skip
        per_page = n_blocks[decode_list]
        items = np.repeat(decode_list, per_page)
        first = np.cumsum(per_page) - per_page
        blocks = np.arange(items.size, dtype=np.int64) - np.repeat(first, per_page)
        blocks = np.where(split[items], blocks, -1)
        self._warps("pq_decompress", len(items), buf, pages, self._device_i64(items), self._device_i64(blocks),
                    len(items), dec, index, base_dev, error)  # fmt: skip

    def _decode(self, buf: Any, t: dict, error: Any) -> Any:
        """The decoded columns (see :meth:`run`), None (pyarrow reads the file) or ``_DICTIONARIES_DIFFER``."""
        from riptide import _device

        xp = self.xp
        pt, keep = t["pt"], t["keep"]
        n_pages = pt.shape[0]
        pages = self._device_i64(pt if n_pages else np.zeros((1, K.PF), dtype=np.int64))
        decode_list = np.flatnonzero(keep)
        data_list = np.flatnonzero(keep & t["is_data"])
        dict_list = np.flatnonzero(t["strings"])
        dec = xp.empty(max(t["dec_total"], 1), dtype=np.uint8)
        self._decompress(buf, pages, pt, decode_list, dec, error)
        n_mask = int(t["mask_base"][-1] + self.n_rows) if t["nullable"].any() else 0
        mask = xp.empty(max(n_mask, 1), dtype=np.uint8)
        valid = xp.zeros(max(n_pages, 1), dtype=np.int64)
        vstart = xp.zeros(max(n_pages, 1), dtype=np.int64)
        data_dev = self._device_i64(data_list)
        self._warps("pq_levels", len(data_list), dec, pages, data_dev, len(data_list), mask, valid, vstart, error)
        csum = xp.cumsum(valid)
        voff = csum - valid
        voff = voff - voff[pages[:, K.P_COLFIRST]] if n_pages else voff
        # string dictionaries
        n_entries = t["n_entries"]
        dpos = xp.zeros(max(n_entries, 1), dtype=np.int64)
        dlen = xp.zeros(max(n_entries, 1), dtype=np.int32)
        self._blocks("pq_byte_arrays", len(dict_list), dec, pages, self._device_i64(dict_list), len(dict_list),
                     dpos, dlen, error)  # fmt: skip
        dmap = xp.zeros(max(n_entries, 1), dtype=np.int32)
        categories, checks = self._categories(dec, pt, t, dpos, dlen, dmap)
        # values
        outputs: dict[int, dict] = {}
        cols = np.zeros((len(self.plans), K.CF), dtype=np.int64)
        for c, plan in enumerate(self.plans):
            if t["bad_cols"][c]:
                continue
            cols[c, K.C_KIND], cols[c, K.C_WIDTH] = plan.kind, plan.width
            if plan.kind == K.KIND_STRING:
                pos = xp.zeros(max(self.n_rows, 1), dtype=np.int64)
                lens = xp.zeros(max(self.n_rows, 1), dtype=np.int32)  # zeros: slots past the values add no bytes
                cols[c, K.C_POS], cols[c, K.C_LEN] = self.launch.ptr(pos), self.launch.ptr(lens)
                outputs[c] = dict(pos=pos, lens=lens)
            else:
                values = xp.empty(max(self.n_rows, 1), dtype=plan.physical)
                cols[c, K.C_OUT] = self.launch.ptr(values)
                outputs[c] = dict(values=values)
        self._warps("pq_values", len(data_list), dec, pages, data_dev, len(data_list), self._device_i64(cols), valid,
                    vstart, voff, dpos, dlen, dmap, error)  # fmt: skip
        # one read: error flag, each column's value count (its pages' `valid` summed), the categories' checks,
        # string columns' byte counts
        first, last = t["first_page"], t["last_page"]
        has_pages = last >= 0
        bounds = self._device_i64(np.stack([np.where(has_pages, first, 0), np.where(has_pages, last, 0)]))
        n_values = csum[bounds[1]] - csum[bounds[0]] + valid[bounds[0]]
        wanted = [error.astype(np.int64), n_values, *(xp.reshape(check, 1).astype(np.int64) for check in checks)]
        strings = [c for c, plan in enumerate(self.plans) if c in outputs and plan.kind == K.KIND_STRING]
        for c in strings:
            outputs[c]["coff"] = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(outputs[c]["lens"],
                                                                                       dtype=np.int64)])  # fmt: skip
            wanted.append(outputs[c]["coff"][-1:])
        sizes = _device.to_host(xp.concatenate(wanted)).tolist()  # one read: the sizes the last step allocates
        if sizes[0]:
            return None
        n_plans, n_checks = len(self.plans), len(checks)
        if not all(sizes[1 + n_plans : 1 + n_plans + n_checks]):  # row groups' dictionaries of one size differ
            self.shared_dictionaries = False
            return _DICTIONARIES_DIFFER
        counts = np.where(has_pages, sizes[1 : 1 + n_plans], 0)
        n_chars_of = dict(zip(strings, sizes[1 + n_plans + n_checks :]))
        decoded = {}
        for c, plan in enumerate(self.plans):
            if c not in outputs:
                continue
            n_valid = int(counts[c])
            m = None
            if plan.nullable and n_valid < self.n_rows:
                base = int(t["mask_base"][c])
                m = mask[base : base + self.n_rows].view(np.bool_)
            if plan.kind == K.KIND_STRING:
                column = self._strings(dec, plan, outputs[c], n_valid, n_chars_of[c], m)
            else:
                column = self._fixed(plan, outputs[c]["values"][: self.n_rows], m, categories.get(c))
            decoded[plan.name] = (column, m is not None)
        return decoded

    def _categories(self, dec: Any, pt: np.ndarray, t: dict, dpos: Any, dlen: Any, dmap: Any) -> tuple[dict, list]:
        """Categorical columns: categories (first appearance over the row groups' dictionaries) and the map from
        each dictionary entry to its category, written into ``dmap``; with the device booleans that must all be
        true for those maps to hold (read with the decoder's last sizes, so this step waits for nothing).

        A dictionary's bytes are known on the host: ``pq_byte_arrays`` fails a page whose entries (4-byte length,
        then the bytes) do not fill it exactly, so its strings hold ``size - 4 * entries`` bytes. Row groups whose
        dictionaries have one size are taken to share one dictionary (pandas writes its categoricals so) and the
        check that they do is returned; when it fails, :meth:`run` decodes again with ``shared_dictionaries``
        off and the entries are numbered by first appearance.
        """
        from riptide.core.column import StringColumn

        xp = self.xp
        found: dict[int, Any] = {}
        checks: list = []
        for c, plan in enumerate(self.plans):
            if plan.kind != K.KIND_CATEGORY or t["bad_cols"][c]:
                continue
            rows = t["strings"] & (t["col"] == c)
            base, per_dict, sizes = pt[rows, K.P_DICTBASE], pt[rows, K.P_NVALUES], pt[rows, K.P_USIZE]
            lo = int(base.min()) if base.size else 0
            hi = int((base + per_dict).max()) if base.size else 0
            n_chars = int(np.maximum(sizes - 4 * per_dict, 0).sum())  # exact unless the error flag is raised
            offsets = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(dlen[lo:hi], dtype=np.int64)])
            chars = xp.empty(max(int(sizes.sum()), 1), dtype=np.uint8)  # room for what a corrupt page can list
            self._threads("pq_gather_strings", hi - lo, dec, dpos[lo:hi], offsets, hi - lo, chars)
            entries = StringColumn(offsets, chars[:n_chars], None, None)
            same = _same_dictionaries(entries, per_dict, n_chars, xp)
            if same is True or (same is not False and self.shared_dictionaries):
                n0 = int(per_dict[0])  # the dictionary is the categories: no factorization needed
                codes = xp.tile(xp.arange(n0, dtype=np.int64), len(per_dict))
                cats = StringColumn(offsets[: n0 + 1], chars[: n_chars // len(per_dict)], None, None)
                if same is not True:
                    checks.append(same)
            else:
                codes, cats = _first_appearance(entries, xp)
            dmap[lo:hi] = codes.astype(np.int32)
            value_type = plan.arrow_type.value_type
            cats.arrow_type = None if pa.types.is_large_string(value_type) else value_type
            found[c] = cats
        return found, checks

    def _fixed(self, plan: _Plan, values: Any, m: Any, categories: Any) -> Any:
        from riptide.core import dtypes
        from riptide.core.column import CategoricalColumn, NumericColumn
        from riptide.core.column.categorical import codes_dtype_for

        xp, typ = self.xp, plan.arrow_type
        if plan.kind == K.KIND_CATEGORY:
            codes = values if m is None else _spread(values, m, -1, xp)
            return CategoricalColumn(codes.astype(codes_dtype_for(categories.size)), categories, typ.ordered)
        if plan.kind == K.KIND_BOOL:
            values = values.view(np.bool_)
        if pa.types.is_timestamp(typ) or pa.types.is_date32(typ):
            ints = values.astype(np.int64) * 86400 if pa.types.is_date32(typ) else values
            if m is not None:
                ints = _spread(ints, m, dtypes.NAT, xp)
            np_dtype = np.dtype("M8[s]") if pa.types.is_date32(typ) else (
                typ.to_pandas_dtype() if typ.tz is not None else np.dtype(f"M8[{typ.unit}]"))
            return NumericColumn(ints, np_dtype)
        target = typ.to_pandas_dtype()
        if values.dtype != target:
            values = values.view(target) if np.dtype(target).itemsize == values.dtype.itemsize else values.astype(
                target)
        if m is None:
            return NumericColumn(values)
        data = _spread(values, m, False if values.dtype.kind == "b" else 0, xp)
        return NumericColumn(data, dtypes.to_masked(data.dtype), m)

    def _strings(self, dec: Any, plan: _Plan, out: dict, n_valid: int, n_chars: int, m: Any) -> Any:
        from riptide.core.column import StringColumn

        xp = self.xp
        coff = out["coff"][: n_valid + 1]
        chars = xp.empty(max(n_chars, 1), dtype=np.uint8)
        self._threads("pq_gather_strings", n_valid, dec, out["pos"], coff, n_valid, chars)
        if m is None:
            offsets = coff if self.n_rows else xp.zeros(1, dtype=np.int64)
        else:
            offsets = xp.concatenate([xp.zeros(1, dtype=np.int64), coff[xp.cumsum(m, dtype=np.int64)]])
        typ = plan.arrow_type
        return StringColumn(offsets, chars[:n_chars], m, None if pa.types.is_large_string(typ) else typ)


def _spread(values: Any, m: Any, fill: Any, xp: Any) -> Any:
    """The compact ``values`` (one per valid row) spread over the rows of validity ``m``; ``fill`` elsewhere."""
    rank = xp.cumsum(m, dtype=np.int64) - 1
    return xp.where(m, values[xp.maximum(rank, 0)], xp.asarray(fill, dtype=values.dtype))


def _same_dictionaries(entries: Any, per_dict: np.ndarray, n_chars: int, xp: Any) -> Any:
    """Whether every row group has the same dictionary (pandas' categoricals are written so): a bool when the
    sizes tell, else a device boolean to read. ``entries``: the row groups' dictionaries back to back."""
    k = len(per_dict)
    if k == 0 or np.any(per_dict != per_dict[0]) or n_chars % k:
        return False
    if k == 1:
        return True
    n0, t0 = int(per_dict[0]), n_chars // k
    lengths, chars = entries.lengths(), entries.chars
    return xp.logical_and((lengths.reshape(k, n0) == lengths[:n0]).all(), (chars.reshape(k, t0) == chars[:t0]).all())


def _first_appearance(entries: Any, xp: Any) -> tuple[Any, Any]:
    """Codes of ``entries`` (a StringColumn) numbered in order of first appearance, and the distinct values in
    that order (pyarrow's unified dictionary of the row groups' dictionaries)."""
    from riptide.core.kernels.factorize import factorize
    from riptide.core.kernels.sort import inverse_permutation
    from riptide.core.ops.grouping import first_row_of_each

    n = entries.size
    if n == 0:
        return xp.zeros(0, dtype=np.int64), entries
    codes, k = factorize(entries)
    first = first_row_of_each(codes, k, xp)  # per code: its first entry
    appearance = xp.argsort(first)  # codes by first appearance (the first entries are distinct)
    return inverse_permutation(appearance, xp)[codes], entries.take(first[appearance])
