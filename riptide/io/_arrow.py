"""Arrow tables <-> riptide frames with pandas' dtypes: the bridge every columnar reader and writer crosses.

**Reading.** pyarrow decodes a file into a ``pyarrow.Table`` on the host (multithreaded); each Arrow column becomes
a riptide column through :func:`riptide.core.column.build.column_from_arrow`, whose buffers go to the device through
:mod:`riptide._transfer`'s pinned, staged copies. What is left is to give every column the dtype *pandas* gives it
for the same file (pandas 3 reads through the same pyarrow table, then ``Table.to_pandas``):

* the target dtypes are those of ``schema.empty_table().to_pandas()``: pyarrow applies the file's pandas metadata
  (``Int64``, ``category``, time zones, column labels that are not strings, the index) to a table with no rows, so
  the decision costs nothing and never touches the data;
* what depends on the data is applied on top, as ``to_pandas`` does it: integers with nulls become ``float64`` and
  booleans with nulls ``object`` (riptide: ``boolean``, its documented stand-in for object bools);
* the index comes from the metadata: a ``RangeIndex`` stored as numbers (kept when the row count still matches,
  e.g. not after ``filters=``), or columns stored in the table.

**Writing.** The schema and pandas metadata come from ``pa.Schema.from_pandas`` of the frame's first zero rows
(pandas' own rules, again without touching the data); the arrays come from the columns (``Column.to_arrow``, one
device-to-host copy per buffer) and are cast to the schema's types where the layouts differ (``large_string`` vs
``string``). A ``RangeIndex``'s numbers are written into the metadata, as pandas writes them.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from riptide.core.column import Column
from riptide.core.column.build import column_from_arrow

__all__ = ["column_like_pandas", "frame_from_table", "table_from_frame"]


def _combined(array: pa.ChunkedArray | pa.Array) -> pa.Array:
    """One contiguous Arrow array; dictionary chunks are first given one shared dictionary."""
    if isinstance(array, pa.Array):
        return array
    if pa.types.is_dictionary(array.type) and array.num_chunks > 1:
        array = array.unify_dictionaries()
    if array.num_chunks == 1:
        return array.chunk(0)
    if array.num_chunks == 0:
        return pa.array([], type=array.type)
    return array.combine_chunks()


def column_like_pandas(array: pa.ChunkedArray | pa.Array, target: Any, xp: Any = None) -> Column:
    """A column of ``array`` with the dtype ``Table.to_pandas`` gives it, ``target`` being that dtype for no rows."""
    from riptide import _device
    from riptide.core.ops.cast import astype

    xp = xp or _device.xp()
    array = _combined(array)
    column = column_from_arrow(array, xp)
    if target is None or isinstance(target, pd.CategoricalDtype):
        return column
    if isinstance(target, np.dtype) and target.kind in "iu" and array.null_count:
        target = np.dtype(np.float64)
    elif isinstance(target, np.dtype) and target.kind == "b" and array.null_count:
        target = pd.BooleanDtype()
    elif isinstance(target, np.dtype) and target.kind == "O":
        return column  # dates, decimals, nulls: riptide has no object columns; its own dtype stands in
    if column.dtype != target:
        column = astype(column, target)
    return column


def _empty_frame(table: pa.Table) -> pd.DataFrame:
    """pandas' frame for ``table``'s schema with no rows: its dtypes, labels and index kind."""
    try:
        return table.schema.empty_table().to_pandas()
    except Exception:  # metadata that does not fit the table (a stale or foreign writer): go by the schema alone
        return table.schema.remove_metadata().empty_table().to_pandas()


def frame_from_table(table: pa.Table, xp: Any = None) -> Any:
    """A riptide DataFrame from a pyarrow Table, with the dtypes, labels and index pandas would give it."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import Index, RangeIndex, as_index, default_index

    metadata = table.schema.pandas_metadata or {}
    empty = _empty_frame(table)
    index_entries = metadata.get("index_columns", [])
    index_fields = [e for e in index_entries if isinstance(e, str) and e in table.schema.names]
    data_fields = [name for name in table.schema.names if name not in index_fields]
    labels: list[Any] = list(empty.columns) if len(empty.columns) == len(data_fields) else data_fields
    columns: dict[Any, Column] = {}
    for i, (label, field) in enumerate(zip(labels, data_fields)):
        target = empty.dtypes.iloc[i] if len(empty.columns) == len(data_fields) else None
        columns[label] = column_like_pandas(table.column(field), target, xp)
    n = table.num_rows
    index = default_index(n, xp)
    if index_fields and len(index_fields) == len(index_entries):
        names = list(empty.index.names) if len(empty.index.names) == len(index_fields) else [None] * len(index_fields)
        if len(index_fields) == 1:
            target = empty.index.dtype if not isinstance(empty.index, pd.MultiIndex) else None
            index = Index._from_column(column_like_pandas(table.column(index_fields[0]), target, xp), names[0])
        else:
            levels = [table.column(f).to_pandas() for f in index_fields]  # host: a MultiIndex is built on the host
            index = as_index(pd.MultiIndex.from_arrays(levels, names=names))
    elif len(index_entries) == 1 and isinstance(index_entries[0], dict) and index_entries[0].get("kind") == "range":
        entry = index_entries[0]
        rng = range(entry["start"], entry["stop"], entry["step"])
        if len(rng) == n:
            index = RangeIndex._from_range(rng, entry.get("name"), xp)
    frame = DataFrame._from_columns(columns, index)
    if len(empty.columns) == len(data_fields) and empty.columns.names != [None] and columns:
        frame._column_names = list(empty.columns.names)
    return frame


def _arrow_index_arrays(index: Any) -> list[pa.Array]:
    from riptide.frame.index import RangeIndex

    if isinstance(index, RangeIndex):
        return [pa.array(np.arange(index.start, index.stop, index.step, dtype=np.int64))]
    levels = getattr(index, "_level_columns", None)
    if levels is not None:
        return [column.to_arrow() for column in levels]
    return [index._column.to_arrow()]


def table_from_frame(frame: Any, index: bool | None = None) -> pa.Table:
    """A pyarrow Table of ``frame`` with pandas' metadata, as ``pa.Table.from_pandas(frame.to_pandas())``.

    ``index``: None stores a RangeIndex as metadata and any other index as columns; True always stores columns;
    False drops the index.
    """
    from riptide.frame.index import RangeIndex

    head = frame.iloc[:0].to_pandas()
    schema = pa.Schema.from_pandas(head, preserve_index=index)
    metadata = json.loads(schema.metadata[b"pandas"])
    arrays = [column.to_arrow() for column in frame._data.values()]
    entries = metadata["index_columns"]
    if any(isinstance(e, str) for e in entries):
        arrays += _arrow_index_arrays(frame.index)
    elif entries and isinstance(frame.index, RangeIndex):
        entries[0].update(start=frame.index.start, stop=frame.index.stop, step=frame.index.step)
        schema = schema.with_metadata({**schema.metadata, b"pandas": json.dumps(metadata).encode()})
    if len(arrays) != len(schema):  # pragma: no cover - defensive: from_pandas decided otherwise
        raise ValueError("riptide could not match the frame's columns to its Arrow schema")
    fitted = []
    for array, field in zip(arrays, schema):
        if array.type != field.type:
            array = array.cast(field.type)
        fitted.append(array)
    return pa.Table.from_arrays(fitted, schema=schema)
