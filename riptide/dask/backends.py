"""The "riptide" Dask DataFrame backend: the entry point Dask loads and the collection-creation functions.

``dask.config.set({"dataframe.backend": "riptide"})`` makes Dask look up the name "riptide" among the
``dask_expr.dataframe.backends`` (and ``dask.dataframe.backends``) entry points, which name
:class:`RiptideBackendEntrypoint`. Loading it imports :mod:`riptide.dask`, which registers every dispatch
function, so a user never has to import anything but Dask. From then on:

* ``dd.from_dict`` builds a riptide DataFrame and splits it;
* ``dd.read_csv`` / ``read_parquet`` / ``read_json`` / ``read_orc`` read each partition with riptide's own readers
  (``riptide.read_csv`` with a byte range of the file, ``riptide.read_parquet`` on one file with the projected
  columns, ...), so the columns are decoded straight into riptide columns, never through pandas;
* ``ddf.to_backend("riptide")`` / ``ddf.to_backend("pandas")`` move a collection between the libraries, one
  partition at a time.

``dd.from_pandas`` is Dask's own and keeps what it is given: pass a riptide DataFrame
(``dd.from_pandas(rt.from_pandas(pdf))``) or convert afterwards with ``to_backend("riptide")``.
"""

from __future__ import annotations

import glob as _glob
import os
from typing import Any

import pandas as pd

from dask import config
from dask.dataframe.backends import DataFrameBackendEntrypoint
from dask.dataframe.dask_expr._expr import ToBackend

import riptide as rt
from riptide.dask.dispatch import RIPTIDE_TYPES, to_riptide_dispatch
from riptide.dask.validation import check_partition

__all__ = ["RiptideBackendEntrypoint", "ToRiptideBackend", "from_dict", "read_csv", "read_parquet", "read_json",
           "read_orc"]


class ToRiptideBackend(ToBackend):
    """The expression of ``to_backend("riptide")``: each partition converted by ``to_riptide_dispatch``."""

    @staticmethod
    def operation(df: Any, options: dict) -> Any:
        return to_riptide_dispatch(df, **options)

    def _simplify_down(self) -> Any:
        if isinstance(self.frame._meta, RIPTIDE_TYPES):
            return self.frame  # already riptide: nothing to convert
        return None


def _pandas_backend(func: Any, *args: Any, **kwargs: Any) -> Any:
    """Call a Dask creation function with the pandas backend selected (so that it does not call back here)."""
    with config.set({"dataframe.backend": "pandas"}):
        return func(*args, **kwargs)


def _frame_from_dict(data: dict, orient: str = "columns", dtype: Any = None, columns: Any = None) -> Any:
    if orient == "columns" and columns is None:
        return rt.DataFrame(data, dtype=dtype)
    return rt.from_pandas(pd.DataFrame.from_dict(data, orient=orient, dtype=dtype, columns=columns))


def from_dict(data: dict, npartitions: int, orient: str = "columns", dtype: Any = None, columns: Any = None,
              constructor: Any = None) -> Any:  # fmt: skip
    """A Dask DataFrame of riptide partitions from a dict of columns (as ``dd.from_dict``)."""
    import dask.dataframe as dd

    if constructor is None:
        frame = _frame_from_dict(data, orient, dtype, columns)
    else:
        frame = constructor.from_dict(data, orient, dtype, columns)
        if isinstance(frame, (pd.DataFrame, pd.Series)):
            frame = rt.from_pandas(frame)
    return _pandas_backend(dd.from_pandas, frame, npartitions=npartitions)


# --------------------------------------------------------------------------- readers


def _expand(path: Any) -> list[str]:
    if isinstance(path, (list, tuple)):
        out = []
        for p in path:
            out.extend(_expand(p))
        return out
    path = os.fspath(path)
    if "://" in path:
        return [path]
    if os.path.isdir(path):
        return sorted(os.path.join(path, f) for f in os.listdir(path)
                      if not f.startswith((".", "_")) and os.path.isfile(os.path.join(path, f)))  # fmt: skip
    found = sorted(_glob.glob(path))
    if not found:
        raise FileNotFoundError(f"no file matches {path!r}")
    return found


def read_csv(urlpath: Any, blocksize: Any = "default", **kwargs: Any) -> Any:
    """``dd.read_csv`` with riptide partitions: Dask's CSV reader (byte blocks split at line ends, the header kept
    for each block, dtypes made consistent between blocks) calling ``riptide.read_csv`` on each block."""
    from dask.dataframe.io.csv import make_reader

    reader = make_reader(rt.read_csv, "read_csv", "CSV")
    if blocksize == "default":
        blocksize = None if any(kwargs.get(k) for k in ("skipfooter", "skiprows", "nrows")) else "64 MiB"
    return _pandas_backend(reader, urlpath, blocksize=blocksize, **kwargs)


def _read_parquet_file(part: Any, columns: Any = None, filters: Any = None, index: Any = None,
                       read_kwargs: Any = None, schema: Any = None) -> Any:  # fmt: skip
    number, path = part
    frame = _read_parquet_path(path, columns, filters, index, read_kwargs)
    return _checked(frame, schema, columns, number, path)


def _checked(frame: Any, meta: Any, columns: Any, number: int, path: str) -> Any:
    if meta is None:
        return frame
    expected = meta if columns is None else meta[list(columns)]
    return check_partition(frame, expected, f"partition {number} ({path})", cast_numeric=True)


def _read_parquet_path(path: str, columns: Any = None, filters: Any = None, index: Any = None,
                       read_kwargs: Any = None) -> Any:  # fmt: skip
    read_columns = None if columns is None else list(columns)
    if read_columns is not None and index and index not in read_columns:
        read_columns = read_columns + [index]
    frame = rt.read_parquet(path, columns=read_columns, filters=filters, **(read_kwargs or {}))
    if index:
        frame = frame.set_index(index)
    if columns is not None:
        frame = frame[list(columns)]
    return frame


def read_parquet(path: Any, columns: Any = None, filters: Any = None, index: Any = None, **kwargs: Any) -> Any:
    """``dd.read_parquet`` with riptide partitions: one partition per file, each read by ``riptide.read_parquet``
    (the device decoder) with the columns the graph needs (Dask's optimizer pushes column selections into it)."""
    import dask.dataframe as dd

    for key in ("engine", "calculate_divisions", "split_row_groups", "aggregate_files", "blocksize",
                "dtype_backend", "filesystem", "ignore_metadata_file", "metadata_task_size"):  # fmt: skip
        kwargs.pop(key, None)
    if kwargs.pop("storage_options", None):
        raise NotImplementedError("storage_options is not supported by the riptide backend's read_parquet yet")
    files = [f for f in _expand(path) if not f.endswith((".crc", "_metadata", "_common_metadata"))]
    if isinstance(index, (list, tuple)):
        if len(index) > 1:
            raise NotImplementedError("a multi-column index is not supported by the riptide backend's read_parquet")
        index = index[0] if index else None
    index = index or None
    full_meta = _read_parquet_path(files[0], columns=None, filters=filters, index=index, read_kwargs=kwargs).iloc[:0]
    meta = full_meta if columns is None else full_meta[list(columns)]
    # every file's partition is checked against the first file's schema (meta=), naming the file on a mismatch
    return _pandas_backend(dd.from_map, _read_parquet_file, list(enumerate(files)), columns=columns,
                           filters=filters, index=index, read_kwargs=kwargs, schema=full_meta, meta=meta,
                           label="read-parquet-riptide",
                           enforce_metadata=False)  # fmt: skip


def read_json(url_path: Any, orient: str = "records", lines: Any = None, blocksize: Any = None, **kwargs: Any) -> Any:
    """``dd.read_json`` with riptide partitions: Dask's JSON reader with ``riptide.read_json`` as its engine (line-
    delimited blocks when ``blocksize`` is given, else one partition per file)."""
    import dask.dataframe as dd

    if lines is None:
        lines = orient == "records"
    kwargs.pop("engine", None)
    return _pandas_backend(dd.read_json, url_path, orient=orient, lines=lines, blocksize=blocksize,
                           engine=_json_engine, **kwargs)  # fmt: skip


def _json_engine(source: Any, **kwargs: Any) -> Any:
    return rt.read_json(source, **kwargs)


def _read_orc_path(path: str, columns: Any = None) -> Any:
    return rt.read_orc(path, columns=None if columns is None else list(columns))


def _read_orc_file(part: Any, columns: Any = None, schema: Any = None) -> Any:
    number, path = part
    return _checked(_read_orc_path(path, columns), schema, columns, number, path)


def read_orc(path: Any, columns: Any = None, index: Any = None, **kwargs: Any) -> Any:
    """``dd.read_orc`` with riptide partitions: one partition per file, read by ``riptide.read_orc`` with the
    columns the graph needs."""
    import dask.dataframe as dd

    for key in ("engine", "split_stripes", "aggregate_files"):
        kwargs.pop(key, None)
    if kwargs.pop("storage_options", None):
        raise NotImplementedError("storage_options is not supported by the riptide backend's read_orc yet")
    _unused(kwargs, "read_orc")
    files = _expand(path)
    full_meta = _read_orc_path(files[0]).iloc[:0]
    meta = full_meta if columns is None else full_meta[list(columns)]
    ddf = _pandas_backend(dd.from_map, _read_orc_file, list(enumerate(files)), columns=columns, schema=full_meta,
                          meta=meta,
                          label="read-orc-riptide")  # fmt: skip
    return ddf.set_index(index) if index else ddf


def _unused(kwargs: dict, what: str) -> None:
    if kwargs:
        raise TypeError(f"{what}() got unexpected keyword arguments {sorted(kwargs)} for the riptide backend")


class RiptideBackendEntrypoint(DataFrameBackendEntrypoint):
    """Dask DataFrame backend "riptide" (registered under both entry-point groups in ``pyproject.toml``).

    >>> import dask, dask.dataframe as dd
    >>> with dask.config.set({"dataframe.backend": "riptide"}):
    ...     ddf = dd.from_dict({"a": [1, 2, 3]}, npartitions=2)
    >>> type(ddf._meta).__module__
    'riptide.frame.dataframe'
    """

    @classmethod
    def to_backend_dispatch(cls) -> Any:
        return to_riptide_dispatch

    @staticmethod
    def to_backend(data: Any, **kwargs: Any) -> Any:
        from dask.dataframe.dask_expr._collection import new_collection

        return new_collection(ToRiptideBackend(data, kwargs))

    from_dict = staticmethod(from_dict)
    read_csv = staticmethod(read_csv)
    read_parquet = staticmethod(read_parquet)
    read_json = staticmethod(read_json)
    read_orc = staticmethod(read_orc)

    @staticmethod
    def read_hdf(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("read_hdf is not supported by the riptide backend; read with pandas and use "
                                  "ddf.to_backend('riptide')")  # fmt: skip
