"""Parquet: ``read_parquet`` / ``DataFrame.to_parquet`` through pyarrow on the host, columns on the device.

Reading goes through ``pyarrow.parquet.read_table``, which decodes row groups on all cores and, given
``filters=``, prunes whole row groups from their min/max statistics before decoding and then filters the rows
left (the same ``filters`` syntax as pandas: a list of ``(column, op, value)`` tuples, ANDed, or a list of such
lists, ORed, or a ``pyarrow.compute`` expression). A directory is read as a dataset with hive partitions
(``year=2024/``); a glob or a list names several files, read as one table. The table becomes a frame with
pandas' dtypes in :mod:`riptide.io._arrow`.

Decoding on the device (issue 5). On the GPU a local file read without ``filters`` first goes to
:mod:`riptide.io.parquet_device`, which moves the *encoded* column chunks to the device and decodes them there
(Snappy, levels, PLAIN and dictionary values in CUDA kernels); columns it does not cover are read by pyarrow and the
frame is the one the pyarrow path gives. ``DEVICE_DECODE`` (env ``RIPTIDE_PARQUET_DEVICE=0`` / ``1``) turns it off or
on, e.g. to time the two paths against each other. What follows is the pyarrow path.

Overlap (issue 5, part 3). A local file of several row groups, read whole (no ``filters``) and without
categorical columns, is read in pieces of about ``PIECE_BYTES`` of decoded data: one background thread decodes
piece *k+1* (pyarrow, itself multithreaded; the GIL is released) while the main thread copies piece *k*'s columns
to the device (pinned, staged copies in :mod:`riptide._transfer`); the pieces of each column are concatenated on the
device at the end (:func:`riptide.io._arrow.frame_from_pieces`), so the result is the one the whole-table path
gives. This is the default on the GPU (``PIPELINE = "auto"``); on the CPU the "copy" is a view, and the
concatenation would only add work, so the whole table is read at once (tests force the pieces with
``PIPELINE = True``). Files with categorical columns, ``filters=``, directories, globs, URLs and file objects take
the whole-table path.

Writing builds the Arrow table from the columns with pandas' metadata (so pandas reads the file back with the same
dtypes and index) and writes it to a temporary file that replaces the target only once complete. Categorical
columns are written as Arrow dictionaries. Writing overlaps too: the frame is cut into row ranges of
``row_group_size`` rows (default ``WRITE_ROWS``); while a background thread has pyarrow encode and write range *k*
(one row group each), the main thread copies range *k+1*'s columns device -> host. The schema (and pandas
metadata) is that of the whole frame, so the file is the one a single ``write_table`` call would write, cut into
the same row groups.
"""

from __future__ import annotations

import concurrent.futures
import io
import os
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from riptide import _device
from riptide.io import _files
from riptide.io._arrow import frame_from_pieces, frame_from_table, table_from_frame, table_schema
from riptide.io.parquet_parallel import WRITE_ROWS, frame_row_ranges, write_row_groups

__all__ = ["read_parquet", "to_parquet"]

DEVICE_DECODE: Any = "auto"  # decode on the device: "auto" on the GPU; True / False: always / never
PIPELINE: Any = "auto"  # read and write in overlapped pieces: "auto" on the GPU only; True / False: always / never
PIECE_BYTES = 128 << 20  # decoded bytes per piece read (row groups are gathered up to this size)
# WRITE_ROWS (rows per row group, and per overlapped piece, when writing: pyarrow's default) is
# :data:`riptide.io.parquet_parallel.WRITE_ROWS`, imported above; to_parquet reads it from this module.


def _device_decode() -> bool:
    """Whether read_parquet tries :mod:`riptide.io.parquet_device` first (env ``RIPTIDE_PARQUET_DEVICE=0|1``
    overrides ``DEVICE_DECODE``: ``0`` forces the pyarrow path, e.g. to compare the two)."""
    env = os.environ.get("RIPTIDE_PARQUET_DEVICE", "").strip().lower()
    if env in ("0", "1", "false", "true"):
        return env in ("1", "true")
    return _device.is_gpu() if DEVICE_DECODE == "auto" else bool(DEVICE_DECODE)


def _pipelined() -> bool:
    return _device.is_gpu() if PIPELINE == "auto" else bool(PIPELINE)


def _pieces_of(pf: Any) -> list[list[int]] | None:
    """Row groups gathered into pieces of about ``PIECE_BYTES``; None when overlap cannot pay (or is not safe)."""
    metadata = pf.metadata
    schema = pf.schema_arrow
    if metadata.num_row_groups < 2 or any(pa.types.is_dictionary(f.type) for f in schema):
        return None
    index_columns = (schema.pandas_metadata or {}).get("index_columns", [])
    if sum(isinstance(e, str) for e in index_columns) > 1:
        return None  # a MultiIndex is built on the host
    pieces: list[list[int]] = [[]]
    size = 0
    for i in range(metadata.num_row_groups):
        if size >= PIECE_BYTES:
            pieces.append([])
            size = 0
        pieces[-1].append(i)
        size += metadata.row_group(i).total_byte_size
    return pieces if len(pieces) > 1 else None


def _read_pieces(pf: Any, pieces: list[list[int]], columns: Any) -> Iterator[pa.Table]:
    """The pieces' tables in order; piece k+1 is decoded in a background thread while piece k is consumed."""
    names = None if columns is None else list(columns)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="riptide-parquet") as pool:
        def decode(groups: list[int]) -> pa.Table:
            return pf.read_row_groups(groups, columns=names, use_threads=True, use_pandas_metadata=True)

        ahead = pool.submit(decode, pieces[0])
        for k in range(len(pieces)):
            table = ahead.result()
            if k + 1 < len(pieces):
                ahead = pool.submit(decode, pieces[k + 1])
            yield table


def _filesystem_for(path: Any, storage_options: dict | None) -> tuple[Any, Any]:
    if _files.is_url(path):
        import fsspec.core

        fs, stripped = fsspec.core.url_to_fs(path, **(storage_options or {}))
        return stripped, fs
    return path, None


def read_arrow_table(path: Any, columns: Any, filters: Any, storage_options: dict | None, **kwargs: Any) -> pa.Table:
    """The pyarrow Table of a Parquet file, directory, glob, list of files or file-like object."""
    import pyarrow.parquet as pq

    path = _files.stringify_path(path)
    source: Any = path
    if isinstance(path, list | tuple) or (isinstance(path, str) and not _files.is_url(path)
                                           and any(ch in path for ch in "*?[")):  # fmt: skip
        source = _files.expand_paths(path)
        if not source:
            raise FileNotFoundError(f"No Parquet files found at {path!r}")
    elif isinstance(path, str):
        _files.check_exists(path)
    source, filesystem = _filesystem_for(source, storage_options) if isinstance(source, str) else (source, None)
    if filesystem is not None:
        kwargs.setdefault("filesystem", filesystem)
    with _files.naming_the_file("Parquet", path):
        return pq.read_table(source, columns=None if columns is None else list(columns), filters=filters,
                             use_pandas_metadata=True, **kwargs)  # fmt: skip


def read_parquet(path: Any, engine: str = "auto", columns: list | None = None, storage_options: dict | None = None,
                 filters: Any = None, **kwargs: Any) -> Any:  # fmt: skip
    """Read a Parquet file (or directory, glob, list of files) into a DataFrame, as ``pandas.read_parquet``.

    >>> import os, tempfile, riptide as rt
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> rt.DataFrame({"a": [1, 2, 3], "b": ["x", "y", None]}).to_parquet(path)
    >>> rt.read_parquet(path, filters=[("a", ">", 1)])["b"].tolist()
    ['y', nan]
    """
    if engine not in ("auto", "pyarrow"):
        raise ValueError(f"riptide reads Parquet with pyarrow; engine={engine!r} is not supported")
    if kwargs.pop("dtype_backend", None) is not None:
        raise NotImplementedError("riptide reads Parquet with pandas' default dtypes; dtype_backend is not supported")
    path = _files.stringify_path(path)
    # the device decoder and the overlapped reader take a local file read whole (else: pyarrow, whole table)
    whole_local_file = (filters is None and not kwargs and isinstance(path, str) and not _files.is_url(path)
                        and os.path.isfile(path))  # fmt: skip
    if whole_local_file and _device_decode():
        from riptide.io import parquet_device

        with _files.naming_the_file("Parquet", path):
            frame = parquet_device.read_parquet_device(path, columns)
        if frame is not None:
            return frame
    if whole_local_file and _pipelined():
        frame = _read_overlapped(path, columns)
        if frame is not None:
            return frame
    table = read_arrow_table(path, columns, filters, storage_options, **kwargs)
    return frame_from_table(table)


def _read_overlapped(path: str, columns: Any) -> Any:
    """The frame of a local file, decoded and moved to the device piece by piece; None: read it whole instead."""
    import pyarrow.parquet as pq

    with _files.naming_the_file("Parquet", path):
        pf = pq.ParquetFile(path)
        pieces = _pieces_of(pf)
        if pieces is None:
            return None
        return frame_from_pieces(_read_pieces(pf, pieces, columns))


def to_parquet(frame: Any, path: Any = None, engine: str = "auto", compression: str | None = "snappy",
               index: bool | None = None, partition_cols: list | None = None, storage_options: dict | None = None,
               **kwargs: Any) -> bytes | None:  # fmt: skip
    """Write ``frame`` as Parquet (returns the bytes when ``path`` is None), as ``pandas.DataFrame.to_parquet``."""
    import pyarrow.parquet as pq

    if engine not in ("auto", "pyarrow"):
        raise ValueError(f"riptide writes Parquet with pyarrow; engine={engine!r} is not supported")
    _check_labels(frame)
    path = _files.stringify_path(path)
    overlapped = _pipelined() and partition_cols is None and path is not None and len(frame) > WRITE_ROWS
    # (the schema and metadata are checked, and the table built, here even when written in pieces: errors surface
    # before the target is touched)
    schema = table_schema(frame, index) if overlapped else None
    table = table_from_frame(frame, index) if not overlapped else schema.empty_table()
    if partition_cols is not None:
        if path is None or _files.is_file_like(path):
            raise ValueError("partition_cols needs a directory path")
        root, filesystem = _filesystem_for(path, storage_options)
        pq.write_to_dataset(table, root, partition_cols=list(partition_cols), compression=compression,
                            filesystem=filesystem, **kwargs)  # fmt: skip
        return None
    rows = kwargs.pop("row_group_size", None) or WRITE_ROWS
    if path is None:
        buffer = io.BytesIO()
        write_row_groups(table, buffer, compression=compression, row_group_size=rows, **kwargs)
        return buffer.getvalue()
    with _files.atomic_target(path, writeback=True) as sink:  # (the disk starts as the pieces are written)
        if overlapped:
            # encoded on all cores (:mod:`riptide.io.parquet_parallel`): range k+1 is copied to the host while
            # earlier ranges are encoded and written
            write_row_groups(frame_row_ranges(frame, index, rows, schema), sink, schema=schema,
                             compression=compression, row_group_size=rows, **kwargs)  # fmt: skip
        else:
            write_row_groups(table, sink, compression=compression, row_group_size=rows, **kwargs)
    return None


def _check_labels(frame: Any) -> None:
    labels = list(frame._data)
    if len(set(map(str, labels))) != len(labels):
        raise ValueError("Duplicate column names found: " + str(labels))
