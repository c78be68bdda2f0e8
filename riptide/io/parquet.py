"""Parquet: ``read_parquet`` / ``DataFrame.to_parquet`` through pyarrow on the host, columns on the device.

Reading goes through ``pyarrow.parquet.read_table``, which decodes row groups on all cores and, given
``filters=``, prunes whole row groups from their min/max statistics before decoding and then filters the rows
left (the same ``filters`` syntax as pandas: a list of ``(column, op, value)`` tuples, ANDed, or a list of such
lists, ORed, or a ``pyarrow.compute`` expression). A directory is read as a dataset with hive partitions
(``year=2024/``); a glob or a list names several files, read as one table. The table becomes a frame with
pandas' dtypes in :mod:`riptide.io._arrow`.

Writing builds the Arrow table from the columns with pandas' metadata (so pandas reads the file back with the same
dtypes and index) and writes it to a temporary file that replaces the target only once complete. Categorical
columns are written as Arrow dictionaries.
"""

from __future__ import annotations

import io
from typing import Any

import pyarrow as pa

from riptide.io import _files
from riptide.io._arrow import frame_from_table, table_from_frame

__all__ = ["read_parquet", "to_parquet"]


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
    try:
        return pq.read_table(source, columns=None if columns is None else list(columns), filters=filters,
                             use_pandas_metadata=True, **kwargs)  # fmt: skip
    except (pa.ArrowInvalid, OSError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        name = getattr(path, "name", path)
        raise type(exc)(f"could not read Parquet file {name!r}: {exc}") from exc


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
    table = read_arrow_table(path, columns, filters, storage_options, **kwargs)
    return frame_from_table(table)


def to_parquet(frame: Any, path: Any = None, engine: str = "auto", compression: str | None = "snappy",
               index: bool | None = None, partition_cols: list | None = None, storage_options: dict | None = None,
               **kwargs: Any) -> bytes | None:  # fmt: skip
    """Write ``frame`` as Parquet (returns the bytes when ``path`` is None), as ``pandas.DataFrame.to_parquet``."""
    import pyarrow.parquet as pq

    if engine not in ("auto", "pyarrow"):
        raise ValueError(f"riptide writes Parquet with pyarrow; engine={engine!r} is not supported")
    _check_labels(frame)
    table = table_from_frame(frame, index)
    path = _files.stringify_path(path)
    if partition_cols is not None:
        if path is None or _files.is_file_like(path):
            raise ValueError("partition_cols needs a directory path")
        root, filesystem = _filesystem_for(path, storage_options)
        pq.write_to_dataset(table, root, partition_cols=list(partition_cols), compression=compression,
                            filesystem=filesystem, **kwargs)  # fmt: skip
        return None
    if path is None:
        buffer = io.BytesIO()
        pq.write_table(table, buffer, compression=compression, **kwargs)
        return buffer.getvalue()
    with _files.atomic_target(path) as sink:
        pq.write_table(table, sink, compression=compression, **kwargs)
    return None


def _check_labels(frame: Any) -> None:
    labels = list(frame._data)
    if len(set(map(str, labels))) != len(labels):
        raise ValueError("Duplicate column names found: " + str(labels))
