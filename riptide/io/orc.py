"""ORC: ``read_orc`` / ``DataFrame.to_orc`` through ``pyarrow.orc`` on the host, columns on the device.

pyarrow decodes the stripes on all cores; the table becomes a frame with pandas' dtypes in :mod:`riptide.io._arrow`.
ORC keeps no pandas metadata, so (as in pandas) the index is not stored: ``to_orc`` refuses a non-default index,
and a nullable ``Int64`` column comes back as ``float64`` when it holds missing values. Writes go to a temporary
file that replaces the target only once complete; a truncated or corrupt file raises an error naming it.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pandas as pd

from riptide.io import _files
from riptide.io._arrow import frame_from_table, table_from_frame

__all__ = ["read_orc", "to_orc"]


def read_orc(path: Any, columns: list | None = None, dtype_backend: Any = None, filesystem: Any = None,
             **kwargs: Any) -> Any:  # fmt: skip
    """Read an ORC file into a DataFrame, as ``pandas.read_orc``.

    >>> import os, tempfile, riptide as rt
    >>> path = os.path.join(tempfile.mkdtemp(), "t.orc")
    >>> rt.DataFrame({"a": [1, 2], "b": ["x", None]}).to_orc(path)
    >>> rt.read_orc(path, columns=["b"])["b"].tolist()
    ['x', nan]
    """
    import pyarrow.orc as orc

    if dtype_backend is not None:
        raise NotImplementedError("riptide reads ORC with pandas' default dtypes; dtype_backend is not supported")
    path = _files.stringify_path(path)
    name = getattr(path, "name", path)
    source = _files.open_for_read(path, compression=None) if isinstance(path, str) and filesystem is None else path
    try:
        with _files.naming_the_file("ORC", name):
            table = orc.read_table(source, columns=columns, filesystem=filesystem, **kwargs)
    finally:
        if source is not path:
            source.close()
    return frame_from_table(table)


def to_orc(frame: Any, path: Any = None, *, engine: str = "pyarrow", index: bool | None = None,
           engine_kwargs: dict | None = None) -> bytes | None:  # fmt: skip
    """Write ``frame`` as ORC (the bytes when ``path`` is None), as ``pandas.DataFrame.to_orc``."""
    import pyarrow.orc as orc

    from riptide.frame.index import RangeIndex

    if engine != "pyarrow":
        raise ValueError("engine must be 'pyarrow'")
    if index is None and not (isinstance(frame.index, RangeIndex) and frame.index.start == 0
                              and frame.index.step == 1 and frame.index.name is None):  # fmt: skip
        raise ValueError("orc does not support serializing a non-default index for the index; you can "
                         ".reset_index() to make the index into column(s)")  # fmt: skip
    for dtype in frame.dtypes:
        unsigned = isinstance(dtype, np.dtype) and dtype.kind == "u" or str(dtype).startswith("UInt")
        if isinstance(dtype, pd.CategoricalDtype) or unsigned:
            raise NotImplementedError("The dtype of one or more columns is not supported yet.")
    table = table_from_frame(frame, bool(index) if index is not None else False)
    path = _files.stringify_path(path)
    if path is None:
        buffer = io.BytesIO()
        orc.write_table(table, buffer, **(engine_kwargs or {}))
        return buffer.getvalue()
    with _files.atomic_target(path) as sink:
        orc.write_table(table, sink, **(engine_kwargs or {}))
    return None
