"""``riptide bench --distributed``: db-benchmark groupby and join questions on a Dask cluster of 1, 2, 4 ... workers.

What it measures
----------------
The same questions on the same data with a growing number of workers (one per GPU through dask-cuda's
``LocalCUDACluster``, or CPU worker processes without GPUs), so the figures are the scaling of riptide's Dask
backend: seconds per question per worker count, the speed-up over one worker, and the bytes the workers moved
between them per second while the question ran. With ``baseline=True`` the questions also run once on a single
riptide DataFrame without Dask, and the one-worker time over that time is Dask's overhead.

The data
--------
The tables follow db-benchmark's schema and cardinalities (see :mod:`riptide.benchmarks.dbbench`), but they are
generated *on the workers*, one partition per task with its own seed, directly on the device (``xp`` random
numbers): 4e8 rows cannot pass through the client. Two simplifications, for that reason: the id columns are
integers (db-benchmark's string ids ``id001``... are categories in the pandas solution, i.e. integer codes
anyway), and a join's right-hand tables hold each key once, spread over their partitions.

* groupby ``x``: ``id1``, ``id2``, ``id4``, ``id5`` in 1..K (K = 100), ``id3``, ``id6`` in 1..rows/K, ``v1`` in
  1..5, ``v2`` in 1..15, ``v3`` uniform in [0, 100).
* join ``x``: ``id1`` in 1..rows/1e6, ``id2`` in 1..rows/1e3, ``id3`` in 1..rows, ``v1`` uniform;
  ``small`` / ``medium`` / ``big``: ``id1`` / ``id2`` / ``id3`` unique over rows/1e6, rows/1e3, rows keys with ``v2``.

The questions (db-benchmark's, in Dask's API): groupby q1-q5 (sums and means by one, two and high-cardinality
keys; ``split_out`` grows with the result size) and join q1 (small, inner), q2 (medium, inner), q3 (medium,
left), q5 (big, inner; a hash join, both sides shuffled).

Timing: the data is generated and persisted on the workers first (not timed); each question then runs
``repeat`` times as ``persist`` + ``wait`` of its result (results stay on the workers; nothing is collected to
the client), after one untimed warm-up run, and the median is reported. Bytes moved: the sum of the workers'
incoming transfers (``Worker.transfer_incoming_log``) that started during the timed runs, over their time.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO

import numpy as np

# The tasks below run in worker processes: importing this module there registers riptide's Dask dispatch.
import riptide.dask as _riptide_dask

_REGISTERED = _riptide_dask

__all__ = ["QUESTIONS", "DistributedResult", "generate_groupby", "generate_join", "run_distributed"]

K = 100
GPU_ROWS = 400_000_000
CPU_ROWS = 2_000_000
ROWS_PER_PARTITION_GPU = 25_000_000
ROWS_PER_PARTITION_CPU = 500_000
# The goals: speed-up from 1 to 2 and 1 to 4 GPUs, and the one-GPU overhead over plain riptide.
GOALS = {2: 1.7, 4: 3.0}
OVERHEAD_GOAL = 1.5


# --- data, made on the workers ------------------------------------------------------------------------------------


def _xp() -> Any:
    from riptide import _device

    return _device.xp()


def _frame(columns: dict[str, Any]) -> Any:
    import riptide as rt
    from riptide.core.column import NumericColumn
    from riptide.frame.index import default_index

    first = next(iter(columns.values()))
    return rt.DataFrame._from_columns({name: NumericColumn(values) for name, values in columns.items()},
                                      default_index(int(first.shape[0]), _xp()))  # fmt: skip


def _groupby_part(part: int, rows: int, total: int, seed: int) -> Any:
    rng = _xp().random.default_rng(seed * 1_000_003 + part)

    def ints(high: int) -> Any:
        return rng.integers(1, max(high, 1) + 1, size=rows, dtype=np.int64)

    many = max(total // K, 10)
    return _frame({"id1": ints(K), "id2": ints(K), "id3": ints(many), "id4": ints(K), "id5": ints(K),
                   "id6": ints(many), "v1": ints(5), "v2": ints(15), "v3": rng.random(rows) * 100.0})  # fmt: skip


def _meta_of(frame_maker: Callable[..., Any], *args: Any) -> Any:
    return frame_maker(*args).iloc[:0]


def generate_groupby(rows: int, npartitions: int, seed: int = 0) -> Any:
    """The groupby table as a Dask DataFrame whose partitions are made on the workers."""
    import dask.dataframe as dd

    sizes = _split(rows, npartitions)
    meta = _meta_of(_groupby_part, 0, 1, rows, seed)
    return dd.from_map(_groupby_part, range(npartitions), sizes, [rows] * npartitions, [seed] * npartitions,
                       meta=meta, label="dbbench-groupby")  # fmt: skip


def _split(rows: int, parts: int) -> list[int]:
    base, extra = divmod(rows, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _join_x_part(part: int, rows: int, total: int, seed: int) -> Any:
    xp = _xp()
    rng = xp.random.default_rng(seed * 7_000_003 + part)
    n_small, n_medium = max(total // 1_000_000, 10), max(total // 1_000, 10)
    return _frame({"id1": rng.integers(1, n_small + 1, size=rows, dtype=np.int64),
                   "id2": rng.integers(1, n_medium + 1, size=rows, dtype=np.int64),
                   "id3": rng.integers(1, total + 1, size=rows, dtype=np.int64),
                   "v1": rng.random(rows) * 100.0})  # fmt: skip


def _join_keys_part(part: int, start: int, stop: int, key: str, seed: int) -> Any:
    xp = _xp()
    rng = xp.random.default_rng(seed * 9_000_011 + part)
    keys = xp.arange(start + 1, stop + 1, dtype=np.int64)
    return _frame({key: keys, "v2": rng.random(stop - start) * 100.0})


def generate_join(rows: int, npartitions: int, seed: int = 0) -> dict[str, Any]:
    """The join tables ``x``, ``small``, ``medium``, ``big`` as Dask DataFrames made on the workers."""
    import dask.dataframe as dd

    x = dd.from_map(_join_x_part, range(npartitions), _split(rows, npartitions), [rows] * npartitions,
                    [seed] * npartitions, meta=_meta_of(_join_x_part, 0, 1, rows, seed), label="dbbench-join-x")
    tables = {"x": x}
    for name, key, n in (("small", "id1", max(rows // 1_000_000, 10)), ("medium", "id2", max(rows // 1_000, 10)),
                         ("big", "id3", rows)):  # fmt: skip
        parts = max(1, min(npartitions, -(-n // 1_000_000)))
        bounds = np.cumsum([0] + _split(n, parts)).tolist()
        tables[name] = dd.from_map(_join_keys_part, range(parts), bounds[:-1], bounds[1:], [key] * parts,
                                   [seed] * parts, meta=_meta_of(_join_keys_part, 0, 0, 1, key, seed),
                                   label=f"dbbench-join-{name}")  # fmt: skip
    return tables


# --- the questions -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    name: str
    task: str  # "groupby" or "join"
    run: Callable[[dict[str, Any], int], Any]  # (tables, split_out) -> Dask collection
    plain: Callable[[dict[str, Any]], Any]  # the same question on riptide DataFrames (the overhead baseline)


def _q(name: str, task: str, run: Callable, plain: Callable) -> Question:
    return Question(name, task, run, plain)


QUESTIONS = [
    _q("groupby_q1", "groupby", lambda t, so: t["x"].groupby("id1").agg({"v1": "sum"}),
       lambda t: t["x"].groupby("id1").agg({"v1": "sum"})),
    _q("groupby_q2", "groupby", lambda t, so: t["x"].groupby(["id1", "id2"]).agg({"v1": "sum"}),
       lambda t: t["x"].groupby(["id1", "id2"]).agg({"v1": "sum"})),
    _q("groupby_q3", "groupby", lambda t, so: t["x"].groupby("id3").agg({"v1": "sum", "v3": "mean"}, split_out=so),
       lambda t: t["x"].groupby("id3").agg({"v1": "sum", "v3": "mean"})),
    _q("groupby_q4", "groupby", lambda t, so: t["x"].groupby("id4").agg({"v1": "mean", "v2": "mean", "v3": "mean"}),
       lambda t: t["x"].groupby("id4").agg({"v1": "mean", "v2": "mean", "v3": "mean"})),
    _q("groupby_q5", "groupby",
       lambda t, so: t["x"].groupby("id6").agg({"v1": "sum", "v2": "sum", "v3": "sum"}, split_out=so),
       lambda t: t["x"].groupby("id6").agg({"v1": "sum", "v2": "sum", "v3": "sum"})),
    _q("join_q1", "join", lambda t, so: t["x"].merge(t["small"], on="id1", broadcast=True),
       lambda t: t["x"].merge(t["small"], on="id1")),
    _q("join_q2", "join", lambda t, so: t["x"].merge(t["medium"], on="id2"),
       lambda t: t["x"].merge(t["medium"], on="id2")),
    _q("join_q3", "join", lambda t, so: t["x"].merge(t["medium"], on="id2", how="left"),
       lambda t: t["x"].merge(t["medium"], on="id2", how="left")),
    _q("join_q5", "join", lambda t, so: t["x"].merge(t["big"], on="id3", shuffle_method="tasks"),
       lambda t: t["x"].merge(t["big"], on="id3")),
]


# --- running -------------------------------------------------------------------------------------------------------


@dataclass
class QuestionTiming:
    question: str
    workers: int
    times_s: list[float]
    median_s: float
    bytes_moved: int
    moved_per_s: float
    speedup: float | None = None  # over one worker
    goal: float | None = None
    plain_s: float | None = None  # riptide without Dask (one-worker runs with baseline=True)
    overhead: float | None = None


@dataclass
class DistributedResult:
    rows: int
    npartitions: int
    gpu: bool
    worker_counts: list[int]
    timings: list[QuestionTiming] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)


def _incoming_since(client: Any, since: float) -> int:
    def moved(dask_worker: Any, since: float = since) -> int:
        return int(sum(entry["total"] for entry in list(dask_worker.transfer_incoming_log) if entry["start"] >= since))

    return int(sum(client.run(moved).values()))


def _time_question(client: Any, question: Question, tables: dict[str, Any], split_out: int, repeat: int) -> tuple:
    from distributed import wait

    def once() -> float:
        start = time.perf_counter()
        result = question.run(tables, split_out).persist()
        wait(result)
        elapsed = time.perf_counter() - start
        del result
        return elapsed

    once()  # warm-up: compiles kernels on the workers, loads modules
    since = time.time()
    times = [once() for _ in range(repeat)]
    return times, _incoming_since(client, since)


def _plain_time(question: Question, rows: int, seed: int, repeat: int) -> float:
    """The question on one riptide DataFrame in this process (the data made the same way, in one piece)."""
    from riptide import _device

    if question.task == "groupby":
        tables = {"x": _groupby_part(0, rows, rows, seed)}
    else:
        tables = {"x": _join_x_part(0, rows, rows, seed)}
        for name, key, n in (("small", "id1", max(rows // 1_000_000, 10)), ("medium", "id2", max(rows // 1_000, 10)),
                             ("big", "id3", rows)):  # fmt: skip
            tables[name] = _join_keys_part(0, 0, n, key, seed)
    question.plain(tables)
    _device.synchronize()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        question.plain(tables)
        _device.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _cluster(workers: int, gpu: bool, device_memory_limit: Any, processes: bool) -> Any:
    from riptide.dask import LocalCluster

    if gpu:
        return LocalCluster(workers, gpu=True, device_memory_limit=device_memory_limit, dashboard_address=":0")
    return LocalCluster(workers, gpu=False, processes=processes, dashboard_address=":0")


def run_distributed(rows: int | None = None, *, workers: Sequence[int] | None = None, repeat: int = 1,
                    seed: int = 0, only: str | None = None, npartitions: int | None = None,
                    device_memory_limit: Any = "default", baseline: bool = False, gpu: bool | None = None,
                    processes: bool = True, json_path: str | None = None,
                    out: TextIO | None = None) -> DistributedResult:  # fmt: skip
    """Time the questions on clusters of each size in ``workers`` and print a table (see the module docstring).

    ``workers`` defaults to 1, 2, 4 ... up to the GPUs present (CPU: 1 and 2 worker processes); ``rows`` to 4e8
    on GPUs, 2e6 on the CPU; ``npartitions`` to rows / 25e6 (GPU) or rows / 5e5 (CPU), at least 2 per worker.
    ``only``: comma-separated question names or globs. ``device_memory_limit``: dask-cuda's per-worker limit
    (spilling to host past it), e.g. "8GB" for the out-of-core figure. ``processes=False``: CPU workers as threads
    of this process (for tests).
    """
    import fnmatch

    import dask
    import distributed

    from riptide.dask.cluster import _has_dask_cuda, gpu_count

    out = out or sys.stdout
    n_gpus = gpu_count()
    use_gpu = gpu if gpu is not None else (n_gpus > 0 and _has_dask_cuda())
    rows = int(rows or (GPU_ROWS if use_gpu else CPU_ROWS))
    if workers is None:
        top = n_gpus if use_gpu else 2
        workers = [w for w in (1, 2, 4, 8) if w <= max(top, 1)]
    workers = sorted(set(int(w) for w in workers))
    per_part = ROWS_PER_PARTITION_GPU if use_gpu else ROWS_PER_PARTITION_CPU
    npartitions = int(npartitions or max(-(-rows // per_part), 2 * max(workers)))
    questions = QUESTIONS
    if only:
        patterns = [p.strip() for p in only.split(",") if p.strip()]
        questions = [q for q in QUESTIONS if any(fnmatch.fnmatch(q.name, p) for p in patterns)]
        if not questions:
            raise KeyError(f"no distributed question matches {only!r}")
    result = DistributedResult(rows, npartitions, use_gpu, list(workers))
    print(f"riptide bench --distributed: {rows:,} rows in {npartitions} partitions, "
          f"{'GPU workers (dask-cuda)' if use_gpu else 'CPU worker processes'}: {', '.join(map(str, workers))}",
          file=out)  # fmt: skip
    firsts: dict[str, float] = {}
    with dask.config.set({"distributed.admin.low-level-log-length": 1_000_000, "dataframe.shuffle.method": "tasks"}):
        for n in workers:
            with _cluster(n, use_gpu, device_memory_limit, processes) as cluster, distributed.Client(cluster) as client:
                client.wait_for_workers(n)
                split_out = max(n, npartitions // 4)
                for task in ("groupby", "join"):
                    chosen = [q for q in questions if q.task == task]
                    if not chosen:
                        continue
                    tables = {"x": generate_groupby(rows, npartitions, seed)} if task == "groupby" else \
                        generate_join(rows, npartitions, seed)  # fmt: skip
                    tables = {name: t.persist() for name, t in tables.items()}
                    distributed.wait(list(tables.values()))
                    for question in chosen:
                        try:
                            times, moved = _time_question(client, question, tables, split_out, repeat)
                        except Exception as exc:  # a question that fails is reported, the others still run
                            result.errors[f"{question.name}@{n}"] = f"{type(exc).__name__}: {exc}"
                            continue
                        median = statistics.median(times)
                        rate = moved / sum(times) if sum(times) else 0.0
                        timing = QuestionTiming(question.name, n, times, median, moved, rate, goal=GOALS.get(n))
                        if n == workers[0]:
                            firsts[question.name] = median
                        if question.name in firsts and workers[0] == 1:
                            timing.speedup = firsts[question.name] / median
                        result.timings.append(timing)
                    del tables
    if baseline and 1 in workers:
        for timing in result.timings:
            if timing.workers == 1:
                question = next(q for q in QUESTIONS if q.name == timing.question)
                timing.plain_s = _plain_time(question, rows, seed, repeat)
                timing.overhead = timing.median_s / timing.plain_s if timing.plain_s else None
    _report(result, out)
    if json_path:
        with open(json_path, "w") as f:
            json.dump(asdict(result), f, indent=2, default=str)
    return result


def _report(result: DistributedResult, out: TextIO) -> None:
    print(f"{'question':<12} {'workers':>7} {'median':>10} {'speed-up':>9} {'goal':>6} {'moved/s':>11} "
          f"{'overhead':>9}", file=out)  # fmt: skip
    for t in result.timings:
        speedup = f"{t.speedup:.2f}x" if t.speedup is not None and t.workers > 1 else ""
        goal = "" if t.goal is None or t.speedup is None else ("ok" if t.speedup >= t.goal else f"<{t.goal}x")
        overhead = "" if t.overhead is None else f"{t.overhead:.2f}x" + ("" if t.overhead <= OVERHEAD_GOAL else "!")
        print(f"{t.question:<12} {t.workers:>7} {t.median_s:>9.3f}s {speedup:>9} {goal:>6} "
              f"{_rate(t.moved_per_s):>11} {overhead:>9}", file=out)  # fmt: skip
    for key, message in result.errors.items():
        print(f"{key}: error: {message}", file=out)


def _rate(bytes_per_s: float) -> str:
    for unit, scale in (("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)):
        if bytes_per_s >= scale:
            return f"{bytes_per_s / scale:.2f}{unit}"
    return f"{bytes_per_s:.0f}B/s"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m riptide.benchmarks.distributed [rows] [workers...]`` (the CLI's ``bench --distributed``)."""
    import argparse

    parser = argparse.ArgumentParser(prog="riptide bench --distributed")
    parser.add_argument("--rows", type=float)
    parser.add_argument("--workers", default=None, help="comma-separated worker counts, e.g. 1,2,4")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only")
    parser.add_argument("--partitions", type=int)
    parser.add_argument("--device-memory-limit", default="default")
    parser.add_argument("--baseline", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    workers = [int(w) for w in args.workers.split(",")] if args.workers else None
    result = run_distributed(int(args.rows) if args.rows else None, workers=workers, repeat=args.repeat,
                             only=args.only, npartitions=args.partitions,
                             device_memory_limit=args.device_memory_limit, baseline=args.baseline,
                             json_path=args.json)  # fmt: skip
    return 1 if result.errors else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
