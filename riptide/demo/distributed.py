"""``riptide demo --distributed``: the demo's clean, join and groupby stages on a Dask cluster of riptide workers.

The trips are generated on the host as in the single-process demo and written as a directory of Parquet files
(a few per worker, untimed). The stages then run twice, written once against the pandas API:

* with Dask on a :func:`riptide.dask.LocalCluster` (one worker per GPU through dask-cuda's ``LocalCUDACluster``;
  without GPUs, CPU worker processes on NumPy), ``dd.read_parquet`` reading the files with
  ``dataframe.backend = "riptide"`` so every partition is a riptide DataFrame; intermediate frames are persisted on
  the workers (``persist`` + ``wait``, so each stage's time is its own) and reports are collected to the client;
* with plain pandas in this process, on the same files: the reference the results are checked against, and the
  baseline the times are compared with.

Stages: read the Parquet files; clean (dropna, the duration, the validity filter); left join with the zones table
(small: broadcast to every partition); three groupby reports (by borough and payment type with named
aggregations; trips per pickup zone by value_counts; the zone-to-zone edge list, a high-cardinality groupby
spread over ``split_out`` output partitions). Reports are compared sorted by their keys (partition order is not
row order) with ``rtol`` 1e-9.

A small warm-up pass (untimed) runs first, on the cluster and with pandas, so that imports, kernel compilation
and the workers' first tasks stay out of the timings.

>>> from riptide.demo.distributed import run_distributed_demo
>>> run_distributed_demo(100_000, workers=2)  # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TextIO

import numpy as np

from riptide.benchmarks.harness import fmt_seconds
from riptide.demo.data import make_trips, make_zones
from riptide.demo.progress import Progress
from riptide.demo.runner import (
    RTOL,
    WARMUP_ROWS,
    _first_lines,
    _fmt_speedup,
    _print_table,
    _shorten,
)

__all__ = ["run_distributed_demo", "write_trip_parts", "STAGES", "Stage", "MissingDask"]

ROWS_PER_FILE = 2_000_000
FILES_PER_WORKER = 2


class MissingDask(ImportError):
    """``--distributed`` needs dask (with its dataframe extra) and distributed."""


def _import_dask() -> tuple[ModuleType, ModuleType, ModuleType]:
    try:
        import dask
        import dask.dataframe as dd
        import distributed
    except ImportError as exc:
        missing = exc.name or "dask"
        raise MissingDask(f"riptide demo --distributed needs dask and distributed ({missing} is not installed):"
                          f" pip install 'riptide[dask]'") from exc  # fmt: skip
    return dask, dd, distributed


# --- the stages -----------------------------------------------------------------------------------------------


@dataclass
class Run:
    """One library's pass: how to read, how to finish a stage, the current frame, its reports and stage times."""

    library: str
    read: Callable[[str], Any]  # directory of Parquet files -> frame
    keep: Callable[[Any], Any]  # an intermediate frame, materialized (persisted on the workers for Dask)
    collect: Callable[[Any], Any]  # a report, as a pandas object on the client
    zones: Any  # the zones lookup table, a frame of the run's library
    split_out: int = 1  # output partitions of high-cardinality groupbys (Dask only)
    df: Any = None
    reports: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    failed_stage: str | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Stage:
    name: str
    run: Callable[[Run, str], None]

    @property
    def doc(self) -> str:
        doc = (self.run.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""


def _read(r: Run, directory: str) -> None:
    """read_parquet of the trip files (Dask: one partition per file, riptide partitions)."""
    r.df = r.keep(r.read(directory))


def _clean(r: Run, directory: str) -> None:
    """dropna payment type, duration from datetimes, validity filter."""
    df = r.df.dropna(subset=["payment_type"])
    df = df.assign(duration_min=(df["dropoff"] - df["pickup"]).astype("int64") / 60e9)
    ok = (df["trip_distance"] > 0) & df["fare_amount"].between(2.5, 500)
    ok &= (df["duration_min"] > 0) & (df["duration_min"] < 240)
    ok &= df["PULocationID"].between(1, 263) & df["DOLocationID"].between(1, 263)
    r.df = r.keep(df[ok])


def _join(r: Run, directory: str) -> None:
    """Left join with the zones table on the pickup zone (broadcast)."""
    joined = r.df.merge(r.zones, left_on="PULocationID", right_on="LocationID", how="left")
    r.df = r.keep(joined.drop(columns=["LocationID"]))


def _by_borough(r: Run, directory: str) -> None:
    """groupby-agg by borough and payment type: count, mean, std, sum, max."""
    report = r.df.groupby(["borough", "payment_type"]).agg(
        trips=("trip_id", "count"),
        mean_fare=("fare_amount", "mean"),
        fare_std=("fare_amount", "std"),
        miles=("trip_distance", "sum"),
        longest_min=("duration_min", "max"),
    )
    r.reports["by borough"] = r.collect(report)


def _busiest(r: Run, directory: str) -> None:
    """value_counts of the pickup zone names."""
    r.reports["trips per zone"] = r.collect(r.df["zone"].value_counts().to_frame())


def _zone_pairs(r: Run, directory: str) -> None:
    """groupby pickup and dropoff zone (up to 263^2 groups): trips and mean minutes."""
    # Dask: the result is spread over split_out partitions (a shuffle), not one; pandas has no split_out
    spread = {"split_out": r.split_out} if r.split_out > 1 else {}
    report = r.df.groupby(["PULocationID", "DOLocationID"]).agg(
        trips=("trip_id", "count"), minutes=("duration_min", "mean"), **spread
    )
    r.reports["zone pairs"] = r.collect(report)


STAGES = [
    Stage("read parquet", _read),
    Stage("clean", _clean),
    Stage("zones join", _join),
    Stage("by borough", _by_borough),
    Stage("trips per zone", _busiest),
    Stage("zone pairs", _zone_pairs),
]


def _run_stages(r: Run, directory: str, progress: Progress | None = None) -> Run:
    import contextlib

    for s in STAGES:
        with progress.step(f"{r.library}: {s.name}") if progress else contextlib.nullcontext():
            start = time.perf_counter()
            try:
                s.run(r, directory)
            except Exception as exc:  # reported, not raised: the other library's run still tells something
                r.failed_stage, r.error = s.name, exc
                return r
            r.seconds[s.name] = time.perf_counter() - start
    return r


# --- the two libraries ----------------------------------------------------------------------------------------


def _dask_run(dask: ModuleType, dd: ModuleType, distributed: ModuleType, split_out: int) -> Run:
    import riptide as rt

    def read(directory: str) -> Any:
        with dask.config.set({"dataframe.backend": "riptide"}):
            return dd.read_parquet(directory)

    def keep(frame: Any) -> Any:
        frame = frame.persist()
        distributed.wait(frame)
        return frame

    def collect(report: Any) -> Any:
        result = report.compute()
        return result.to_pandas() if hasattr(result, "to_pandas") else result

    return Run("riptide (dask)", read, keep, collect, rt.DataFrame(make_zones()), split_out=split_out)


def _pandas_run() -> Run:
    import pandas

    return Run("pandas", pandas.read_parquet, lambda f: f, lambda f: f, pandas.DataFrame(make_zones()))


# --- data -----------------------------------------------------------------------------------------------------


def write_trip_parts(source: dict[str, np.ndarray], directory: str, files: int) -> list[str]:
    """Write the generated columns as ``files`` Parquet files of consecutive rows (``part-000.parquet``, ...) in
    ``directory``; return their paths.

    >>> with tempfile.TemporaryDirectory() as d:
    ...     [os.path.basename(p) for p in write_trip_parts(make_trips(10), d, 3)]
    ['part-000.parquet', 'part-001.parquet', 'part-002.parquet']
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({name: pa.array(values, from_pandas=True) for name, values in source.items()})
    rows = table.num_rows
    bounds = [rows * i // files for i in range(files + 1)]
    paths = []
    for i in range(files):
        path = os.path.join(directory, f"part-{i:03d}.parquet")
        pq.write_table(table.slice(bounds[i], bounds[i + 1] - bounds[i]), path)
        paths.append(path)
    return paths


# --- the demo -------------------------------------------------------------------------------------------------


def run_distributed_demo(rows: int = 10_000_000, *, workers: int | None = None, seed: int = 0,
                         with_pandas: bool = True, processes: bool = True, progress: bool | None = None,
                         out: TextIO | None = None) -> int:  # fmt: skip
    """Run the clean, join and groupby stages on a riptide Dask cluster (and with pandas), print the report and
    return an exit code: 0 when every stage ran and the results agree with pandas, else 1.

    ``workers``: GPUs to use (one worker each), or CPU worker processes (default: every GPU; without GPUs, up to 4
    processes). ``processes=False`` runs CPU workers as threads of this process (quick to start: tests).
    Raises :class:`MissingDask` when dask or distributed is not installed.
    """
    dask, dd, distributed = _import_dask()
    from riptide import _device
    from riptide.dask import LocalCluster
    from riptide.dask.cluster import _has_dask_cuda, gpu_count

    out = out or sys.stdout
    if workers is not None and workers < 1:
        raise ValueError(f"`workers` must be >= 1, got {workers}")
    n_gpus = gpu_count()
    use_gpu = n_gpus > 0 and _has_dask_cuda()
    if workers is None:
        workers = n_gpus if use_gpu else max(1, min(4, os.cpu_count() or 1))
    if use_gpu and workers > n_gpus:
        raise ValueError(f"--workers {workers}: only {n_gpus} GPU(s) visible (one worker per GPU)")
    files = max(FILES_PER_WORKER * workers, math.ceil(rows / ROWS_PER_FILE))
    kind = "GPU worker" if use_gpu else ("CPU worker process" if processes else "CPU worker thread")
    where = f"{workers} {kind}{'es' if kind.endswith('s') and workers > 1 else 's' if workers > 1 else ''}"
    if use_gpu:
        where += " (dask-cuda)"
    if not use_gpu and _device.device_info()["device"] == "gpu" and n_gpus:
        where += " (dask-cuda is not installed: pip install dask-cuda for GPU workers)"
    print(f"riptide demo --distributed: {rows:,} trips in {files} Parquet files, {where}, seed {seed}", file=out)
    bar = Progress(total=2 + (1 + with_pandas) * (len(STAGES) + 1), enabled=progress)

    with tempfile.TemporaryDirectory(prefix="riptide-demo-") as directory:
        full, small = os.path.join(directory, "trips"), os.path.join(directory, "warmup")
        with bar.step("generate trips (NumPy, host), write Parquet files"):
            start = time.perf_counter()
            os.makedirs(full)
            os.makedirs(small)
            source = make_trips(rows, seed=seed)
            write_trip_parts(source, full, files)
            write_trip_parts({k: v[:WARMUP_ROWS] for k, v in source.items()}, small, min(files, 2 * workers))
            generate_s = time.perf_counter() - start
        print(f"generated {rows:,} trips on the host, written as {files} Parquet files, in {fmt_seconds(generate_s)}",
              file=out)  # fmt: skip

        runs: dict[str, Run] = {}
        with bar.step(f"start the cluster ({where})"):
            start = time.perf_counter()
            cluster = LocalCluster(workers, gpu=use_gpu, processes=processes, dashboard_address=None)
            client = distributed.Client(cluster)
        try:
            client.wait_for_workers(workers)
            print(f"cluster of {where} started in {fmt_seconds(time.perf_counter() - start)}", file=out)
            # the "tasks" shuffle keeps partitions on the workers' devices (riptide.dask's default)
            with dask.config.set({"dataframe.shuffle.method": "tasks"}):
                with bar.step("riptide (dask): warm-up"):
                    _run_stages(_dask_run(dask, dd, distributed, workers), small)
                runs["riptide"] = _run_stages(_dask_run(dask, dd, distributed, workers), full, bar)
        finally:
            client.close()
            cluster.close()
        if with_pandas:
            with bar.step("pandas: warm-up"):
                _run_stages(_pandas_run(), small)
            runs["pandas"] = _run_stages(_pandas_run(), full, bar)

    return _report(runs, out)


# --- checking and the report ----------------------------------------------------------------------------------


def compare_reports(mine: dict[str, Any], theirs: dict[str, Any], rtol: float = RTOL) -> list[str]:
    """Differences between the distributed run's reports and pandas'; rows are compared sorted by the index (a
    Dask result's row order follows its partitions). Empty when they agree."""
    import pandas

    problems = []
    for name, want in theirs.items():
        got = mine.get(name)
        try:
            if got is None:
                raise AssertionError("missing")
            pandas.testing.assert_frame_equal(got.sort_index(), want.sort_index(), check_exact=False, rtol=rtol,
                                              atol=0.0)  # fmt: skip
        except AssertionError as exc:
            problems.append(f"report {name!r}: {_first_lines(str(exc), 6)}")
    return problems


def _report(runs: dict[str, Run], out: TextIO) -> int:
    mine, theirs = runs["riptide"], runs.get("pandas")
    for r in runs.values():
        if not r.ok:
            print(f"\n{r.library} failed at stage {r.failed_stage!r}: {type(r.error).__name__}: {r.error}", file=out)
    shown = mine if mine.ok else theirs
    if shown is not None and shown.ok:
        for name, report in shown.reports.items():
            print(f"\n{name} ({shown.library}; {len(report):,} rows, sorted)", file=out)
            print(report.sort_index().head(12), file=out)

    names = list(runs)
    print("\ntimings (one run, after a warm-up; Dask stages end with persist + wait or compute)", file=out)
    header = ["stage", "what"] + [runs[n].library for n in names] + (["speed-up"] if theirs else [])
    table = [header]
    for s in STAGES:
        row = [s.name, _shorten(s.doc, 50)] + [fmt_seconds(runs[n].seconds.get(s.name)) for n in names]
        if theirs:
            row.append(_fmt_speedup(theirs.seconds.get(s.name), mine.seconds.get(s.name)))
        table.append(row)
    totals = {n: sum(runs[n].seconds.values()) if runs[n].ok else None for n in names}
    row = ["total", ""] + [fmt_seconds(totals[n]) for n in names]
    if theirs:
        row.append(_fmt_speedup(totals["pandas"], totals["riptide"]))
    table.append(row)
    _print_table(table, out, left=2, rule_before_last=True)

    if not all(r.ok for r in runs.values()):
        print("\ncheck: not compared, a run failed (see above)", file=out)
        return 1
    if theirs is None:
        print("\ncheck: skipped (--no-pandas)", file=out)
        return 0
    problems = compare_reports(mine.reports, theirs.reports)
    if problems:
        print("\ncheck: riptide (dask) and pandas DISAGREE", file=out)
        for p in problems:
            print("  - " + p.replace("\n", "\n    "), file=out)
        return 1
    print(f"\ncheck: riptide (dask) and pandas agree ({len(theirs.reports)} reports, rtol {RTOL:g})", file=out)
    return 0
