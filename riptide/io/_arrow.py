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

import functools
import json
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from riptide.core.column import Column
from riptide.core.column.build import column_from_arrow

__all__ = ["column_like_pandas", "frame_from_pieces", "frame_from_table", "table_from_frame", "table_schema"]


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

    xp = xp or _device.xp()
    array = _combined(array)
    return _fitted(column_from_arrow(array, xp), array.null_count > 0, target)


def _fitted(column: Column, has_nulls: bool, target: Any) -> Column:
    """``column`` (as it came from Arrow) given the dtype ``to_pandas`` gives it, ``target`` being that for no rows."""
    from riptide.core.ops.cast import astype

    if target is None or isinstance(target, pd.CategoricalDtype):
        return column
    if isinstance(target, np.dtype) and target.kind in "iu" and has_nulls:
        target = np.dtype(np.float64)
    elif isinstance(target, np.dtype) and target.kind == "b" and has_nulls:
        target = pd.BooleanDtype()
    elif isinstance(target, np.dtype) and target.kind == "O":
        return column  # dates, decimals, nulls: riptide has no object columns; its own dtype stands in
    if column.dtype != target:
        column = astype(column, target)
    return column


def _empty_frame(schema: pa.Schema) -> pd.DataFrame:
    """pandas' frame for ``schema`` with no rows: its dtypes, labels and index kind. Shared between calls with the
    same schema (the many files of one dataset, a file read again), so callers must not modify it: pandas' conversion
    takes about a millisecond, a fifth of a small file's read."""
    try:
        key = schema.serialize().to_pybytes()
    except (pa.ArrowException, TypeError):  # a type IPC cannot carry: no sharing
        return _pandas_empty_frame(schema)
    return _empty_frame_of(key)


@functools.lru_cache(maxsize=64)
def _empty_frame_of(serialized_schema: bytes) -> pd.DataFrame:
    return _pandas_empty_frame(pa.ipc.read_schema(pa.py_buffer(serialized_schema)))


def _pandas_empty_frame(schema: pa.Schema) -> pd.DataFrame:
    try:
        return schema.empty_table().to_pandas()
    except Exception:  # metadata that does not fit the table (a stale or foreign writer): go by the schema alone
        return schema.remove_metadata().empty_table().to_pandas()


def frame_from_table(table: pa.Table, xp: Any = None) -> Any:
    """A riptide DataFrame from a pyarrow Table, with the dtypes, labels and index pandas would give it."""
    return _frame(table.schema, table.num_rows, lambda field, target: column_like_pandas(table.column(field), target,
                                                                                         xp),  # fmt: skip
                  lambda field: table.column(field).to_pandas(), xp)


def frame_from_pieces(pieces: Any, xp: Any = None) -> Any:
    """A riptide DataFrame from consecutive pyarrow Tables of one schema, as ``frame_from_table`` of them all.

    Each piece's columns go to the device as soon as the piece arrives (while the producer, e.g. a background
    thread decoding the next Parquet row groups, keeps working); the pieces of a column are concatenated on the
    device at the end, and only then given pandas' dtype (whether an int column has a missing value is a question
    about the whole column). Dictionary (categorical) columns are not accepted: pieces may hold different
    dictionaries; callers send those files through ``frame_from_table``.
    """
    from collections import Counter

    from riptide import _device
    from riptide.core.column.build import concat_columns

    xp = xp or _device.xp()
    parts: dict[str, list[Column]] = {}
    nulls: Counter = Counter()
    schema, n = None, 0
    for table in pieces:
        if schema is None:
            schema = table.schema
        for name in schema.names:
            array = _combined(table.column(name))
            parts.setdefault(name, []).append(column_from_arrow(array, xp))
            nulls[name] += array.null_count
        n += table.num_rows
    if schema is None:
        raise ValueError("frame_from_pieces needs at least one table")
    whole = {name: _concat_pieces(columns, concat_columns) for name, columns in parts.items()}
    return _frame(schema, n, lambda field, target: _fitted(whole[field], nulls[field] > 0, target),
                  lambda field: whole[field].to_pandas_array(), xp)  # fmt: skip


def _concat_pieces(columns: list[Column], concat_columns: Any) -> Column:
    """One column of a column's pieces; a piece with missing values may have the masked dtype (``Int64``)."""
    from riptide.core.ops.cast import astype

    if len({str(c.dtype) for c in columns}) > 1:
        wanted = next((c.dtype for c in columns if c.mask is not None), columns[0].dtype)
        columns = [c if c.dtype == wanted else astype(c, wanted) for c in columns]
    return concat_columns(columns)


def _frame(schema: pa.Schema, n: int, fitted_column: Any, host_level: Any, xp: Any) -> Any:
    """The frame of a table with ``schema`` and ``n`` rows; ``fitted_column(field, target)`` gives its columns."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import Index, RangeIndex, as_index, default_index

    metadata = schema.pandas_metadata or {}
    empty = _empty_frame(schema)
    index_entries = metadata.get("index_columns", [])
    index_fields = [e for e in index_entries if isinstance(e, str) and e in schema.names]
    data_fields = [name for name in schema.names if name not in index_fields]
    labels: list[Any] = list(empty.columns) if len(empty.columns) == len(data_fields) else data_fields
    columns: dict[Any, Column] = {}
    for i, (label, field) in enumerate(zip(labels, data_fields)):
        target = empty.dtypes.iloc[i] if len(empty.columns) == len(data_fields) else None
        columns[label] = fitted_column(field, target)
    index = default_index(n, xp)
    if index_fields and len(index_fields) == len(index_entries):
        names = list(empty.index.names) if len(empty.index.names) == len(index_fields) else [None] * len(index_fields)
        if len(index_fields) == 1:
            target = empty.index.dtype if not isinstance(empty.index, pd.MultiIndex) else None
            index = Index._from_column(fitted_column(index_fields[0], target), names[0])
        else:
            levels = [host_level(f) for f in index_fields]  # host: a MultiIndex is built on the host
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


def _arrow_index_arrays(index: Any, rows: tuple[int, int] | None = None) -> list[pa.Array]:
    from riptide.frame.index import RangeIndex

    if isinstance(index, RangeIndex):
        values = np.arange(index.start, index.stop, index.step, dtype=np.int64)
        return [pa.array(values if rows is None else values[rows[0] : rows[1]])]
    levels = getattr(index, "_level_columns", None)
    if levels is None:
        levels = [index._column]
    return [_sliced(column, rows).to_arrow() for column in levels]


def _sliced(column: Column, rows: tuple[int, int] | None) -> Column:
    return column if rows is None else column.slice(rows[0], rows[1])


def table_schema(frame: Any, index: bool | None = None) -> pa.Schema:
    """The Arrow schema (with pandas' metadata) :func:`table_from_frame` gives ``frame``."""
    from riptide.frame.index import RangeIndex

    head = frame.iloc[:0].to_pandas()
    schema = pa.Schema.from_pandas(head, preserve_index=index)
    metadata = json.loads(schema.metadata[b"pandas"])
    entries = metadata["index_columns"]
    if not any(isinstance(e, str) for e in entries) and entries and isinstance(frame.index, RangeIndex):
        entries[0].update(start=frame.index.start, stop=frame.index.stop, step=frame.index.step)
        schema = schema.with_metadata({**schema.metadata, b"pandas": json.dumps(metadata).encode()})
    return schema


def table_from_frame(frame: Any, index: bool | None = None, rows: tuple[int, int] | None = None,
                     schema: pa.Schema | None = None) -> pa.Table:  # fmt: skip
    """A pyarrow Table of ``frame`` with pandas' metadata, as ``pa.Table.from_pandas(frame.to_pandas())``.

    ``index``: None stores a RangeIndex as metadata and any other index as columns; True always stores columns;
    False drops the index. ``rows=(start, stop)``: only those rows (with the whole frame's ``schema``, from
    :func:`table_schema`: the pieces of a file written piece by piece).
    """
    schema = schema if schema is not None else table_schema(frame, index)
    metadata = json.loads(schema.metadata[b"pandas"])
    arrays = [_sliced(column, rows).to_arrow() for column in frame._data.values()]
    if any(isinstance(e, str) for e in metadata["index_columns"]):
        arrays += _arrow_index_arrays(frame.index, rows)
    if len(arrays) != len(schema):  # pragma: no cover - defensive: from_pandas decided otherwise
        raise ValueError("riptide could not match the frame's columns to its Arrow schema")
    fitted = []
    for array, field in zip(arrays, schema):
        if array.type != field.type:
            array = array.cast(field.type)
        fitted.append(array)
    return pa.Table.from_arrays(fitted, schema=schema)
