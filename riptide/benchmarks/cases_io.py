"""Issue 5's reader cases: ``read_csv`` of the db-benchmark groupby file, timed for riptide, pandas and polars.

The file is ``G1_<rows>_1e2_0_0`` as :func:`riptide.benchmarks.dbbench.groupby_data` generates it, written by pandas'
``to_csv`` (no index) to a temporary file when the case's data is built; it is deleted when the data is released.
The issue's figures are for ``--rows 1e7`` (G1_1e7_1e2, 0.51 GB), with the file in the page cache: pandas' C
engine 8767 ms, pandas with ``engine="pyarrow"`` 291 ms, cuDF 154 ms; the goal is 100 ms and faster than polars.
GB/s are of the file's bytes (``bytes_moved`` is the file size; the bytes cross the host link once).

Two cases, because the harness has one pandas column: ``read_csv`` times pandas' default C engine and
``read_csv_arrow`` pandas with ``engine="pyarrow"``; riptide and polars run the same code in both.

``read_parquet`` reads the same table written by pandas' ``to_parquet`` (snappy, no index; G1_1e7_1e2 is 0.21 GB):
pandas 388 ms, cuDF 30 ms, goal 25 ms (GB/s of the file's bytes). ``read_parquet_to_device`` times the issue's
other figure, at ``--rows 1e8``: riptide against polars' (and pandas') read followed by the copy of its columns to
the device. ``to_parquet`` / ``to_csv`` write the table (on the
device for riptide) to a temporary file: the goal is 5x pandas (``min_speedup``); riptide's ``to_csv`` formats on
the host through pandas today (riptide/io/csv.py), so that case shows the gap.
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

    suffix = ".csv"

    def __init__(self, rows: int):
        from riptide.benchmarks.dbbench import groupby_data

        handle, self.path = tempfile.mkstemp(prefix=f"G1_{rows}_1e2_", suffix=self.suffix)
        os.close(handle)
        self.write(groupby_data(rows))
        self.nbytes = os.path.getsize(self.path)

    def write(self, frame: Any) -> None:
        frame.to_csv(self.path, index=False)

    def __del__(self) -> None:
        try:
            os.remove(self.path)
        except OSError:
            pass


class ParquetFile(CsvFile):
    """A temporary snappy Parquet file of the groupby table (pandas' writer, no index)."""

    suffix = ".parquet"

    def write(self, frame: Any) -> None:
        frame.to_parquet(self.path, index=False, compression="snappy")


class _ReadFile(_SameCode):
    """``lib.<reader>(path)`` of a file of the groupby table, the same code for every library."""

    bound = "link"  # the file's bytes go host -> device once: GB/s of input, not judged against the copy rate
    file_type: type[CsvFile] = CsvFile
    reader = "read_csv"

    def size(self, ctx: Context) -> str:
        return f"G1 {fmt_count(ctx.rows)} rows"

    def data(self, ctx: Context) -> CsvFile:
        return self.file_type(ctx.rows)

    def bytes_moved(self, data: CsvFile) -> int:
        return data.nbytes

    def run(self, lib: Any, data: CsvFile) -> Callable[[], Any]:
        read, path = getattr(lib, self.reader), data.path
        return lambda: read(path)


class _ReadCsv(_ReadFile):
    pandas_engine: str | None = None

    def pandas(self, data: CsvFile) -> Callable[[], Any]:
        pd = _lib("pandas")
        path, engine = data.path, self.pandas_engine
        return (lambda: pd.read_csv(path, engine=engine)) if engine else (lambda: pd.read_csv(path))


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


@register
class ReadParquet(_ReadFile):
    name = "read_parquet"
    title = "read_parquet (G1 groupby file)"
    file_type, reader = ParquetFile, "read_parquet"  # decoded columns go host -> device once
    reference = Reference(pandas=388 * MS, cudf=30 * MS, goal=25 * MS, rows=10_000_000,
                          note="G1_1e7_1e2 snappy, 0.21 GB; at 1e8 rows: faster than polars + transfer")  # fmt: skip


@register
class ReadParquetToDevice(ReadParquet):
    """The same file read to the device: riptide decodes on the GPU; pandas and polars read on the host, then their
    columns' values go to the device: each column's host array (a categorical's codes) by riptide's pinned,
    multi-threaded copy, the fastest transfer we have, with no frame built around them."""

    name = "read_parquet_to_device"
    title = "read_parquet vs host read + copy to the GPU"
    reference = Reference(pandas=None, cudf=None, goal=None, rows=100_000_000, min_speedup=(("polars", 1.0),),
                          note="G1_1e8_1e2 snappy: faster than polars.read_parquet + the columns' copy to the device")  # fmt: skip

    def pandas(self, data: CsvFile) -> Callable[[], Any]:
        pd, path = _lib("pandas"), data.path

        def host_values(column: Any) -> Any:
            return column.cat.codes.to_numpy() if isinstance(column.dtype, pd.CategoricalDtype) else column.to_numpy()

        def run() -> list:
            frame = pd.read_parquet(path)
            return _on_device([host_values(frame[name]) for name in frame.columns])

        return run

    def polars(self, data: CsvFile) -> Callable[[], Any]:
        pl, path = _lib("polars"), data.path

        def run() -> list:
            frame = pl.read_parquet(path)
            return _on_device([frame[name].to_physical().to_numpy() for name in frame.columns])

        return run


def _on_device(columns: list) -> list:
    """Each host array copied to the device, once every copy is done (the harness synchronizes for riptide's own
    runs only)."""
    from riptide import _device

    out = [_device.to_device(column) for column in columns]
    _device.synchronize()
    return out


class _Write(_SameCode):
    """Write the groupby table to a temporary file (the frame is built outside the timed code)."""

    bound = "link"  # columns go device -> host once
    method = ""
    suffix = ""
    options: dict = {}

    def size(self, ctx: Context) -> str:
        return f"G1 {fmt_count(ctx.rows)} rows"

    def data(self, ctx: Context) -> Any:
        from riptide.benchmarks.dbbench import groupby_data

        return groupby_data(ctx.rows)

    def _target(self) -> str:
        handle, path = tempfile.mkstemp(prefix="riptide_write_", suffix=self.suffix)
        os.close(handle)
        return path

    def riptide(self, data: Any) -> Callable[[], Any]:
        rt = _lib("riptide")
        frame, path, options = rt.from_pandas(data), self._target(), self.options
        return lambda: getattr(frame, self.method)(path, index=False, **options)

    def pandas(self, data: Any) -> Callable[[], Any]:
        path, options = self._target(), self.options
        return lambda: getattr(data, self.method)(path, index=False, **options)

    def polars(self, data: Any) -> Callable[[], Any]:
        pl = _lib("polars")
        frame, path = pl.from_pandas(data), self._target()
        polars_method = {"to_parquet": "write_parquet", "to_csv": "write_csv"}[self.method]
        return lambda: getattr(frame, polars_method)(path)


@register
class ToParquet(_Write):
    name = "to_parquet"
    title = "to_parquet (G1 groupby table)"
    method, suffix, options = "to_parquet", ".parquet", {"compression": "snappy"}
    reference = Reference(pandas=None, cudf=None, goal=None, rows=10_000_000, min_speedup=(("pandas", 5.0),),
                          note="G1_1e7_1e2, snappy; goal >= 5x pandas")  # fmt: skip


@register
class ToCsv(_Write):
    name = "to_csv"
    title = "to_csv (G1 groupby table)"
    method, suffix = "to_csv", ".csv"
    reference = Reference(pandas=None, cudf=None, goal=None, rows=10_000_000, min_speedup=(("pandas", 5.0),),
                          note="G1_1e7_1e2; goal >= 5x pandas (riptide formats on the host today)")  # fmt: skip
