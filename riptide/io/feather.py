"""Feather (Arrow IPC files): ``read_feather`` / ``DataFrame.to_feather`` through ``pyarrow.feather``.

The file holds Arrow buffers as they are in memory, so reading is little more than the copy of each buffer to the
device (:mod:`riptide.io._arrow`), and the pandas metadata pyarrow stores restores dtypes and index. Writes go to a
temporary file that replaces the target only once complete.
"""

from __future__ import annotations

from typing import Any


from riptide.io import _files
from riptide.io._arrow import frame_from_table, table_from_frame

__all__ = ["read_feather", "to_feather"]


def read_feather(path: Any, columns: list | None = None, use_threads: bool = True, storage_options: dict | None = None,
                 dtype_backend: Any = None) -> Any:  # fmt: skip
    """Read a Feather file into a DataFrame, as ``pandas.read_feather``.

    >>> import os, tempfile, riptide as rt
    >>> path = os.path.join(tempfile.mkdtemp(), "t.feather")
    >>> rt.DataFrame({"a": [1, 2], "b": ["x", None]}).to_feather(path)
    >>> rt.read_feather(path).dtypes.tolist()
    [dtype('int64'), <StringDtype(na_value=nan)>]
    """
    import pyarrow.feather as feather

    if dtype_backend is not None:
        raise NotImplementedError("riptide reads Feather with pandas' default dtypes; dtype_backend is not supported")
    path = _files.stringify_path(path)
    name = getattr(path, "name", path)
    source = _files.open_for_read(path, compression=None) if isinstance(path, str) else path
    try:
        with _files.naming_the_file("Feather", name):
            table = feather.read_table(source, columns=columns, use_threads=use_threads)
    finally:
        if source is not path:
            source.close()
    return frame_from_table(table)


def to_feather(frame: Any, path: Any, **kwargs: Any) -> None:
    """Write ``frame`` as a Feather file, as ``pandas.DataFrame.to_feather``."""
    import pyarrow.feather as feather

    table = table_from_frame(frame, None)
    path = _files.stringify_path(path)
    with _files.atomic_target(path) as sink:
        feather.write_feather(table, sink, **kwargs)
