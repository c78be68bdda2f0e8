"""Issue 5's reader cases: ``read_csv`` of the db-benchmark groupby file, timed for riptide, pandas and polars.

The file is ``G1_<rows>_1e2_0_0`` as :func:`riptide.benchmarks.dbbench.groupby_data` generates it, written by pandas'
``to_csv`` (no index) to a temporary file when the case's data is built; it is deleted when the data is released.
The issue's figures are for ``--rows 1e7`` (G1_1e7_1e2, 0.51 GB), with the file in the page cache: pandas' C
engine 8767 ms, pandas with ``engine="pyarrow"`` 291 ms, cuDF 154 ms; the goal is 100 ms and faster than polars.
GB/s are of the file's bytes (``bytes_moved`` is the file size; the bytes cross the host link once).

Two cases, because the harness has one pandas column: ``read_csv`` times pandas' default C engine and
``read_csv_arrow`` pandas with ``engine="pyarrow"``; riptide and polars run the same code in both.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any

from riptide.benchmarks.cases_core import _lib, _SameCode
from riptide.benchmarks.harness import Context, Reference, fmt_count, register

MS = 1e-3


class CsvFile:
    """A temporary CSV file of the groupby table; removed when the object is released."""

    def __init__(self, rows: int):
        from riptide.benchmarks.dbbench import groupby_data

        handle, self.path = tempfile.mkstemp(prefix=f"G1_{rows}_1e2_", suffix=".csv")
        os.close(handle)
        groupby_data(rows).to_csv(self.path, index=False)
        self.nbytes = os.path.getsize(self.path)

    def __del__(self) -> None:
        try:
            os.remove(self.path)
        except OSError:
            pass


class _ReadCsv(_SameCode):
    bound = "link"  # the file's bytes go host -> device once: GB/s of input, not judged against the copy rate
    pandas_engine: str | None = None

    def size(self, ctx: Context) -> str:
        return f"G1 {fmt_count(ctx.rows)} rows"

    def data(self, ctx: Context) -> CsvFile:
        return CsvFile(ctx.rows)

    def bytes_moved(self, data: CsvFile) -> int:
        return data.nbytes

    def run(self, lib: Any, data: CsvFile) -> Callable[[], Any]:
        path = data.path
        return lambda: lib.read_csv(path)

    def pandas(self, data: CsvFile) -> Callable[[], Any]:
        pd = _lib("pandas")
        path, engine = data.path, self.pandas_engine
        return (lambda: pd.read_csv(path, engine=engine)) if engine else (lambda: pd.read_csv(path))

    def polars(self, data: CsvFile) -> Callable[[], Any]:
        pl = _lib("polars")
        path = data.path
        return lambda: pl.read_csv(path)


@register
class ReadCsv(_ReadCsv):
    name = "read_csv"
    title = "read_csv (G1 groupby file)"
    reference = Reference(pandas=8767 * MS, cudf=154 * MS, goal=100 * MS, rows=10_000_000,
                          note="G1_1e7_1e2, 0.51 GB; pandas C engine; goal: also faster than polars")  # fmt: skip


@register
class ReadCsvArrow(_ReadCsv):
    name = "read_csv_arrow"
    title = "read_csv vs pandas engine=pyarrow"
    pandas_engine = "pyarrow"
    reference = Reference(pandas=291 * MS, cudf=154 * MS, goal=100 * MS, rows=10_000_000,
                          note="G1_1e7_1e2, 0.51 GB; pandas with engine='pyarrow'")  # fmt: skip
