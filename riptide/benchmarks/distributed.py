"""``riptide bench --distributed``: db-benchmark groupby and join questions and a tall-and-skinny SVD on a Dask
cluster of 1, 2, 4 ... workers.

What it measures
----------------
The same questions on the same data with a growing number of workers (one per GPU through dask-cuda's
``LocalCUDACluster``, or CPU worker processes without GPUs), so the figures are the scaling of riptide's Dask
backend: seconds per question per worker count, the size of the data the question reads and that size over the
time (GB/s), the speed-up over one worker, and the bytes the workers moved between them per second while the
question ran. With ``baseline=True`` the DataFrame questions also run once on a single riptide DataFrame without
Dask, and the one-worker time over that time is Dask's overhead.

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
* svd ``X``: a float32 Dask array of ``svd_rows x svd_cols`` (the issue's 2e7 x 1000 on GPUs, 2e5 x 100 on the
  CPU) in chunks of whole rows (1e6 rows on GPUs), each chunk made on a worker by its own task and seed (CuPy
  chunks on GPU workers, so the array's meta is a CuPy array and Dask's linear algebra runs on the devices).
  Entries are standard normal times a per-column scale: 1 to 2 across the columns, times 10 for the first
  ``min(10, cols // 2)`` columns. The scale spreads the singular values (so the check below can tell them apart)
  and plants a gap after the 10 largest, which the randomized ``svd_compressed`` needs to be accurate.

The questions
-------------
db-benchmark's, in Dask's API: groupby q1-q5 (sums and means by one, two and high-cardinality keys; ``split_out``
grows with the result size) and join q1 (small, inner), q2 (medium, inner), q3 (medium, left), q5 (big, inner; a
hash join, both sides shuffled). ``svd``: ``dask.array.linalg.svd(X)`` (direct tall-and-skinny QR, TSQR) computed
to its singular values; ``svd_compressed``: ``dask.array.linalg.svd_compressed(X, k=10, n_power_iter=2)``, the
randomized SVD, which reads X ``2 * n_power_iter + 2`` times (its GB/s counts every read). Both are in the
default set (cheap at the CPU size; seconds at 2e7 x 1000 on GPUs). Their graphs are built with
``array.backend = "cupy"`` on GPUs, so the random test matrix of ``svd_compressed`` is made with CuPy too.

Timing
------
The data is generated and persisted on the workers first (not timed); each question then runs ``repeat`` times
as ``persist`` + ``wait`` of its result (results stay on the workers; nothing is collected to the client), after
one untimed warm-up run, and the median is reported. Bytes moved: the sum of the workers' incoming transfers
(``Worker.transfer_incoming_log``) that started during the timed runs, over their time. "spilled": how many
device objects the workers held outside device memory after the question (dask-cuda's device -> host spilling;
distributed's memory -> disk spilling on CPU workers), "?" where the worker's store cannot be read.

Checking the answers
--------------------
Every answer is checked from its last timed run, on the workers; only small summaries reach the client.

* svd questions (always): the singular values against the Gram-matrix route, ``X^T X`` summed over the chunks in
  float64 on the workers and ``eigvalsh`` on the client; right when the largest difference is at most
  ``SVD_RTOL`` times the largest singular value (float32 accuracy).
* groupby questions (with ``check=True``, the CLI's ``--check``): an exact oracle made without riptide's groupby
  or Dask's shuffles. Each partition is generated again from its seed (so a spilled and reloaded copy of the input
  cannot hide an error) and reduced with ``bincount`` over a dense code of the keys: the row count and the sum of
  every value column per key. The per-partition arrays are added up on the workers; then each result partition
  is compared with it where it lives: every key must exist, every integer sum equal (exact in float64), every
  float sum and mean within ``REL_TOL``; the number of result groups must equal the oracle's and a 64-bit hash
  summed over the result keys must equal the oracle's (so no group is missing or repeated across result
  partitions).
  This is how the out-of-core claim is measured: run once with ``device_memory_limit="8GB"`` and ``check=True``
  ("right answer: yes"), once without the limit, and compare the GB/s columns.

Join answers are not checked (not done: they would need an oracle of the same kind over the right-hand tables).
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO

import numpy as np

# The tasks below run in worker processes: importing this module there registers riptide's Dask dispatch.
import riptide.dask as _riptide_dask
from riptide import _device

_REGISTERED = _riptide_dask

__all__ = ["QUESTIONS", "DistributedResult", "generate_groupby", "generate_join", "generate_svd", "run_distributed"]

K = 100
GPU_ROWS = 400_000_000
CPU_ROWS = 2_000_000
ROWS_PER_PARTITION_GPU = 25_000_000
ROWS_PER_PARTITION_CPU = 500_000
# The SVD's array: the 2e7 x 1000 float32 on GPUs (80 GB, chunks of 4 GB), a small one on the CPU.
SVD_SHAPE_GPU = (20_000_000, 1000)
SVD_SHAPE_CPU = (200_000, 100)
SVD_CHUNK_ROWS_GPU = 1_000_000
SVD_CHUNK_ROWS_CPU = 25_000
SVD_RANK = 10  # the planted gap, and svd_compressed's k
SVD_POWER_ITER = 2
SVD_RTOL = 1e-4  # |s - s_gram| <= SVD_RTOL * s_max: float32 TSQR is ~1e-7, one chunk missing is ~1 / chunks
REL_TOL = 1e-8  # the groupby check's float comparisons (v3 sums and means: summation order differs)
# The goals: speed-up from 1 to 2 and 1 to 4 GPUs, and the one-GPU overhead over plain riptide.
GOALS = {2: 1.7, 4: 3.0}
OVERHEAD_GOAL = 1.5
SVD_TIME_GOAL_S = {4: 10.0}  # "SVD 2e7 x 1000 float32 on 4 GPUs: <= 10 s"


# --- data, made on the workers ------------------------------------------------------------------------------------


def _xp() -> Any:
    return _device.xp()


def _frame(columns: dict[str, Any]) -> Any:
    import riptide as rt
    from riptide.core.column import NumericColumn
    from riptide.frame.index import default_index

    first = next(iter(columns.values()))
    return rt.DataFrame._from_columns({name: NumericColumn(values) for name, values in columns.items()},
                                      default_index(int(first.shape[0]), _xp()))  # fmt: skip


def _many(total: int) -> int:
    """The number of distinct ``id3`` / ``id6`` keys of a groupby table of ``total`` rows."""
    return max(total // K, 10)


def _groupby_part(part: int, rows: int, total: int, seed: int) -> Any:
    rng = _xp().random.default_rng(seed * 1_000_003 + part)

    def ints(high: int) -> Any:
        return rng.integers(1, max(high, 1) + 1, size=rows, dtype=np.int64)

    many = _many(total)
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


def _join_sizes(rows: int) -> list[tuple[str, str, int]]:
    """(table, key, rows) of the join's right-hand tables."""
    return [("small", "id1", max(rows // 1_000_000, 10)), ("medium", "id2", max(rows // 1_000, 10)),
            ("big", "id3", rows)]  # fmt: skip


def generate_join(rows: int, npartitions: int, seed: int = 0) -> dict[str, Any]:
    """The join tables ``x``, ``small``, ``medium``, ``big`` as Dask DataFrames made on the workers."""
    import dask.dataframe as dd

    x = dd.from_map(_join_x_part, range(npartitions), _split(rows, npartitions), [rows] * npartitions,
                    [seed] * npartitions, meta=_meta_of(_join_x_part, 0, 1, rows, seed), label="dbbench-join-x")
    tables = {"x": x}
    for name, key, n in _join_sizes(rows):
        parts = max(1, min(npartitions, -(-n // 1_000_000)))
        bounds = np.cumsum([0] + _split(n, parts)).tolist()
        tables[name] = dd.from_map(_join_keys_part, range(parts), bounds[:-1], bounds[1:], [key] * parts,
                                   [seed] * parts, meta=_meta_of(_join_keys_part, 0, 0, 1, key, seed),
                                   label=f"dbbench-join-{name}")  # fmt: skip
    return tables


def _svd_rank(cols: int) -> int:
    return max(1, min(SVD_RANK, cols // 2))


def _svd_block(block_id: tuple[int, int] | None = None, *, sizes: tuple[int, ...], cols: int, seed: int) -> Any:
    """Chunk ``block_id[0]`` of X, made where the task runs (CuPy on a GPU worker): normal entries, column-scaled."""
    xp = _xp()
    part = block_id[0] if block_id is not None else 0
    rng = xp.random.default_rng(seed * 11_000_027 + part)
    block = rng.standard_normal(size=(sizes[part], cols), dtype=np.float32)
    scale = xp.linspace(1.0, 2.0, cols, dtype=np.float32)
    scale[: _svd_rank(cols)] *= 10.0
    block *= scale  # in place: a GPU chunk is 4 GB
    return block


def generate_svd(rows: int, cols: int, chunk_rows: int, seed: int = 0) -> Any:
    """The SVD's tall-and-skinny float32 array as a Dask array whose chunks (whole rows) are made on the workers.

    >>> generate_svd(1_000, 4, chunk_rows=250).chunks
    ((250, 250, 250, 250), (4,))
    """
    import dask.array as da

    sizes = tuple(_split(rows, max(1, -(-rows // chunk_rows))))
    meta = _xp().empty((0, 0), dtype=np.float32)  # CuPy on GPUs: Dask's linear algebra then stays on the devices
    return da.map_blocks(_svd_block, chunks=(sizes, (cols,)), dtype=np.float32, meta=meta, sizes=sizes, cols=cols,
                         seed=seed)  # fmt: skip


def place_svd(client: Any, X: Any, seed: int) -> Any:
    """X with its chunks made and kept round-robin on the workers, one chunk per task submitted to a named worker.

    Dask's root-task scheduling lets the first free worker take many of these quick generator tasks; a 2e7 x 1000
    array is 20 chunks of 4 GB, and one GPU holding most of them runs out of memory in the QR that follows.
    """
    import dask.array as da

    addresses = sorted(client.scheduler_info()["workers"])
    sizes, cols = X.chunks[0], X.shape[1]
    futures = [client.submit(_svd_block, (i, 0), sizes=sizes, cols=cols, seed=seed, pure=False,
                             workers=[addresses[i % len(addresses)]], allow_other_workers=False)
               for i in range(len(sizes))]  # fmt: skip
    meta = X._meta
    return da.concatenate([da.from_delayed(f, shape=(size, cols), dtype=X.dtype, meta=meta)
                           for f, size in zip(futures, sizes, strict=True)])  # fmt: skip


def _array_backend() -> str:
    return "numpy" if _xp() is np else "cupy"


# --- the questions -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    name: str
    task: str  # "groupby", "join" or "svd"
    run: Callable[[dict[str, Any], int], Any]  # (tables, split_out) -> Dask collection
    plain: Callable[[dict[str, Any]], Any] | None  # the same question on riptide DataFrames (the overhead baseline)
    inputs: tuple[str, ...] = ("x",)  # the tables it reads (its data size)
    keys: tuple[str, ...] = ()  # groupby: the key columns (for the check)
    aggs: tuple[tuple[str, str], ...] = ()  # groupby: (column, "sum" / "mean") pairs (for the check)
    passes: int = 1  # how many times it reads its inputs (for GB/s)


def _groupby(name: str, keys: Sequence[str], aggs: dict[str, str], split: bool = False) -> Question:
    by: Any = keys[0] if len(keys) == 1 else list(keys)

    def run(t: dict[str, Any], split_out: int) -> Any:
        return t["x"].groupby(by).agg(aggs, **({"split_out": split_out} if split else {}))

    def plain(t: dict[str, Any]) -> Any:
        return t["x"].groupby(by).agg(aggs)

    return Question(name, "groupby", run, plain, ("x",), tuple(keys), tuple(aggs.items()))


def _join(name: str, right: str, on: str, **options: Any) -> Question:
    how = options.get("how", "inner")

    def run(t: dict[str, Any], split_out: int) -> Any:
        return t["x"].merge(t[right], on=on, **options)

    def plain(t: dict[str, Any]) -> Any:
        return t["x"].merge(t[right], on=on, how=how)

    return Question(name, "join", run, plain, ("x", right))


def _svd_values(t: dict[str, Any], split_out: int) -> Any:
    import dask
    import dask.array as da

    with dask.config.set({"array.backend": _array_backend()}):
        return da.linalg.svd(t["X"])[1]


def _svd_compressed_values(t: dict[str, Any], split_out: int) -> Any:
    import dask
    import dask.array as da

    X = t["X"]
    with dask.config.set({"array.backend": _array_backend()}):  # the random test matrix: CuPy next to CuPy chunks
        return da.linalg.svd_compressed(X, k=_svd_rank(int(X.shape[1])), n_power_iter=SVD_POWER_ITER, seed=0)[1]


QUESTIONS = [
    _groupby("groupby_q1", ["id1"], {"v1": "sum"}),
    _groupby("groupby_q2", ["id1", "id2"], {"v1": "sum"}),
    _groupby("groupby_q3", ["id3"], {"v1": "sum", "v3": "mean"}, split=True),
    _groupby("groupby_q4", ["id4"], {"v1": "mean", "v2": "mean", "v3": "mean"}),
    _groupby("groupby_q5", ["id6"], {"v1": "sum", "v2": "sum", "v3": "sum"}, split=True),
    _join("join_q1", "small", "id1", broadcast=True),
    _join("join_q2", "medium", "id2"),
    _join("join_q3", "medium", "id2", how="left"),
    _join("join_q5", "big", "id3", shuffle_method="tasks"),
    Question("svd", "svd", _svd_values, None, ("X",)),
    Question("svd_compressed", "svd", _svd_compressed_values, None, ("X",), passes=2 * SVD_POWER_ITER + 2),
]


# --- checking the answers (on the workers; small summaries to the client) -------------------------------------------


def _tree_sum(parts: list, add: Callable[[Any, Any], Any]) -> Any:
    """Delayed pairwise sums of ``parts`` (Delayed objects), so no worker adds up everything at once."""
    import dask

    task = dask.delayed(add, pure=True)
    while len(parts) > 1:
        parts = [task(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
    return parts[0]


def _add(a: Any, b: Any) -> Any:
    return a + b


def _gram_block(block: Any) -> Any:
    """``block^T block`` in float64 (where the block lives), in slices of rows to bound the float64 copy."""
    xp = _device.namespace_of(block)
    rows, cols = block.shape
    gram = xp.zeros((cols, cols), dtype=xp.float64)
    step = max(1024, (1 << 28) // (8 * max(cols, 1)))  # 256 MB of float64 per slice
    for start in range(0, rows, step):  # a loop over slices of rows, not over rows
        piece = block[start : start + step].astype(xp.float64)
        gram += piece.T @ piece
    return gram


def _gram_singular_values(X: Any) -> np.ndarray:
    """X's singular values by the Gram route: ``X^T X`` summed over the chunks on the workers, eigvalsh here."""
    import dask

    grams = [dask.delayed(_gram_block, pure=True)(block) for block in X.to_delayed().ravel()]
    gram = dask.delayed(_device.to_host, pure=True)(_tree_sum(grams, _add)).compute()  # cols x cols float64
    eigenvalues = np.linalg.eigvalsh(gram)[::-1]
    return np.sqrt(np.clip(eigenvalues, 0.0, None))


def _check_svd(result: Any, tables: dict[str, Any]) -> tuple[bool, str]:
    import dask

    values = np.asarray(dask.delayed(_device.to_host, pure=True)(result).compute(), dtype=np.float64)  # a few kB
    if "svd-reference" not in tables:  # once per cluster: both svd questions share it
        tables["svd-reference"] = _gram_singular_values(tables["X"])
    reference = tables["svd-reference"][: values.shape[0]]
    if values.shape != reference.shape or not np.all(np.isfinite(values)):
        return False, f"{values.shape[0]} singular values, expected {reference.shape[0]} finite ones"
    error = float(np.max(np.abs(values - reference)) / reference[0]) if reference.size else 0.0
    detail = f"max |s - s_gram| / s_max = {error:.1e} (tolerance {SVD_RTOL:.0e})"
    return error <= SVD_RTOL, detail


def _key_highs(keys: Sequence[str], total: int) -> tuple[int, ...]:
    """The largest value of each key column (they run from 1)."""
    return tuple(_many(total) if key in ("id3", "id6") else K for key in keys)


def _key_code(columns: Sequence[Any], highs: Sequence[int], xp: Any) -> tuple[Any, Any]:
    """A dense code of the key tuple (mixed radix ``high + 1``) and whether every key is in its range 1..high."""
    code = xp.zeros(columns[0].shape[0], dtype=xp.int64)
    valid = xp.ones(columns[0].shape[0], dtype=bool)
    for column, high in zip(columns, highs, strict=True):
        column = column.astype(xp.int64)
        valid &= (column >= 1) & (column <= high)
        code = code * (high + 1) + column
    return xp.where(valid, code, 0), valid


def _n_codes(highs: Sequence[int]) -> int:
    return math.prod(high + 1 for high in highs)


def _mix(code: Any, xp: Any) -> Any:
    """A 64-bit hash of each code (the murmur3 finalizer; uint64 arithmetic wraps on NumPy and CuPy alike)."""
    x = code.astype(xp.uint64)
    for multiplier in (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53):
        x = x ^ (x >> xp.uint64(33))
        x = x * xp.uint64(multiplier)
    return x ^ (x >> xp.uint64(33))


def _oracle_part(part: int, rows: int, total: int, seed: int, keys: tuple[str, ...], values: tuple[str, ...]) -> Any:
    """One partition's row count and value sums per key code, from the partition made again from its seed."""
    frame = _groupby_part(part, rows, total, seed)
    xp = _xp()
    highs = _key_highs(keys, total)
    code, _ = _key_code([frame._data[key].data for key in keys], highs, xp)
    n = _n_codes(highs)
    planes = [xp.bincount(code, minlength=n).astype(xp.float64)]
    planes += [xp.bincount(code, weights=frame._data[v].data.astype(xp.float64), minlength=n) for v in values]
    return xp.stack(planes)  # (1 + len(values)) x n: exact for integer sums below 2**53


def _oracle_summary(planes: Any) -> tuple[int, int]:
    """The oracle's number of groups and the wrapping sum of its group codes' hashes."""
    xp = _device.namespace_of(planes)
    present = planes[0] > 0
    codes = xp.arange(planes.shape[1], dtype=xp.int64)[present]
    summary = _device.to_host(xp.stack([present.sum().astype(xp.uint64), _mix(codes, xp).sum(dtype=xp.uint64)]))
    return int(summary[0]), int(summary[1])  # one scalar read: two numbers per question


def _compare_part(part: Any, planes: Any, keys: tuple[str, ...], aggs: tuple[tuple[str, str], ...],
                  values: tuple[str, ...], highs: tuple[int, ...]) -> tuple[int, int, int, float]:  # fmt: skip
    """One result partition against the oracle: (groups, wrong groups, sum of key hashes, worst relative error)."""
    xp = _device.namespace_of(planes)
    frame = part.reset_index()
    code, valid = _key_code([frame._data[key].data for key in keys], highs, xp)
    count = planes[0][code]
    right = valid & (count > 0)
    worst = xp.zeros((), dtype=xp.float64)
    for column, how in aggs:
        expected = planes[1 + values.index(column)][code]
        if how == "mean":
            expected = expected / xp.maximum(count, 1.0)
        got = frame._data[column].data
        exact = how == "sum" and got.dtype.kind in "iu"  # integer sums: exact (in float64 below 2**53)
        got = got.astype(xp.float64)
        error = xp.abs(got - expected) / xp.maximum(xp.abs(expected), 1.0)
        right &= error <= (0.0 if exact else REL_TOL)  # a NaN is wrong too
        if error.shape[0]:  # an empty result partition has no largest error
            worst = xp.maximum(worst, xp.where(valid, error, 0.0).max())
    n = int(code.shape[0])
    summary = _device.to_host(xp.stack([(~right).sum().astype(xp.float64), worst]))
    hashed = int(_device.to_host(_mix(code, xp).sum(dtype=xp.uint64)))  # one scalar read: the partition's key hash
    return n, int(summary[0]), hashed, float(summary[1])  # one scalar read: the partition's counts


def _check_groupby(question: Question, result: Any, rows: int, npartitions: int, seed: int) -> tuple[bool, str]:
    import dask

    values = tuple(sorted({column for column, _ in question.aggs}))
    highs = _key_highs(question.keys, rows)
    oracle_task = dask.delayed(_oracle_part, pure=True)
    sizes = _split(rows, npartitions)
    parts = [oracle_task(i, size, rows, seed, question.keys, values) for i, size in enumerate(sizes)]
    planes = _tree_sum(parts, _add)
    compare = dask.delayed(_compare_part, pure=True)
    checks = [compare(part, planes, question.keys, question.aggs, values, highs) for part in result.to_delayed()]
    expected, *found = dask.compute(dask.delayed(_oracle_summary, pure=True)(planes), *checks)
    groups = sum(f[0] for f in found)
    wrong = sum(f[1] for f in found)
    hashed = sum(f[2] for f in found) % 2**64
    worst = max((f[3] for f in found), default=0.0)
    problems = []
    if groups != expected[0]:
        problems.append(f"{groups} groups, expected {expected[0]}")
    if wrong:
        problems.append(f"{wrong} groups missing from the data or with wrong values")
    if hashed != expected[1] and groups == expected[0] and not wrong:
        problems.append("the set of group keys differs (a key repeated, another missing)")
    detail = f"{groups} groups, max relative error {worst:.1e}"
    return not problems, "; ".join(problems) if problems else detail


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
    data_bytes: int = 0  # the size of the tables the question reads
    throughput: float = 0.0  # bytes read per second: data_bytes * passes / median_s
    spilled: int | None = None  # device objects held outside device memory after the runs (None: unknown)
    right: bool | None = None  # the check's verdict (None: not checked)
    check: str | None = None  # what the check found
    time_goal_s: float | None = None


@dataclass
class DistributedResult:
    rows: int
    npartitions: int
    gpu: bool
    worker_counts: list[int]
    timings: list[QuestionTiming] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    svd_shape: list[int] | None = None
    device_memory_limit: Any = "default"
    checked: bool = False

    @property
    def right(self) -> bool | None:
        """False if any checked answer was wrong, True if all checked ones were right, None if none was checked."""
        verdicts = [t.right for t in self.timings if t.right is not None]
        return None if not verdicts else all(verdicts)


def _incoming_since(client: Any, since: float) -> int:
    def moved(dask_worker: Any, since: float = since) -> int:
        return int(sum(entry["total"] for entry in list(dask_worker.transfer_incoming_log) if entry["start"] >= since))

    return int(sum(client.run(moved).values()))


def _spilled(client: Any) -> int | None:
    """Device objects the workers hold outside device memory now (dask-cuda's DeviceHostFile), or for CPU workers
    the objects spilled to disk (distributed's SpillBuffer); None when a worker's store is of another kind."""

    def probe(dask_worker: Any) -> int:
        data = dask_worker.data
        device = getattr(data, "device_buffer", None)
        if device is not None and hasattr(data, "device_keys"):
            fast = device.fast
            return sum(1 for key in list(data.device_keys) if key not in fast)
        slow = getattr(data, "slow", None)
        try:
            return len(slow) if slow is not None else -1
        except TypeError:
            return -1

    counts = list(client.run(probe).values())
    return None if any(c < 0 for c in counts) else int(sum(counts))


def _time_question(client: Any, question: Question, tables: dict[str, Any], split_out: int, repeat: int,
                   keep: bool = False) -> tuple[list[float], int, Any]:  # fmt: skip
    """(times, bytes moved, the last run's persisted result when ``keep``, else None)."""
    from distributed import wait

    def once() -> tuple[float, Any]:
        start = time.perf_counter()
        result = question.run(tables, split_out).persist()
        wait(result)
        return time.perf_counter() - start, result

    once()  # warm-up: compiles kernels on the workers, loads modules; its result is dropped at once
    since = time.time()
    times, last = [], None
    for _ in range(repeat):
        last = None  # the previous result leaves the workers before the next run
        elapsed, result = once()
        times.append(elapsed)
        last = result if keep else None
        del result
    return times, _incoming_since(client, since), last


def _plain_time(question: Question, rows: int, seed: int, repeat: int) -> float:
    """The question on one riptide DataFrame in this process (the data made the same way, in one piece)."""
    if question.task == "groupby":
        tables = {"x": _groupby_part(0, rows, rows, seed)}
    else:
        tables = {"x": _join_x_part(0, rows, rows, seed)}
        for name, key, n in _join_sizes(rows):
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


def _frame_bytes(table: Any, rows: int) -> int:
    return int(sum(np.dtype(dtype).itemsize for dtype in table._meta.dtypes)) * int(rows)


def _make_tables(task: str, rows: int, npartitions: int, seed: int, svd_shape: tuple[int, int],
                 svd_chunk_rows: int) -> tuple[dict[str, Any], dict[str, int]]:  # fmt: skip
    """The task's tables (lazy) and their sizes in bytes."""
    if task == "groupby":
        tables = {"x": generate_groupby(rows, npartitions, seed)}
        return tables, {"x": _frame_bytes(tables["x"], rows)}
    if task == "join":
        tables = generate_join(rows, npartitions, seed)
        sizes = {"x": _frame_bytes(tables["x"], rows)}
        sizes.update({name: _frame_bytes(tables[name], n) for name, _, n in _join_sizes(rows)})
        return tables, sizes
    X = generate_svd(svd_shape[0], svd_shape[1], svd_chunk_rows, seed)
    return {"X": X}, {"X": int(X.nbytes)}


def run_distributed(rows: int | None = None, *, workers: Sequence[int] | None = None, repeat: int = 1,
                    seed: int = 0, only: str | None = None, npartitions: int | None = None,
                    device_memory_limit: Any = "default", baseline: bool = False, gpu: bool | None = None,
                    processes: bool = True, json_path: str | None = None, check: bool = False,
                    svd_rows: int | None = None, svd_cols: int | None = None, svd_chunk_rows: int | None = None,
                    out: TextIO | None = None) -> DistributedResult:  # fmt: skip
    """Time the questions on clusters of each size in ``workers`` and print a table (see the module docstring).

    ``workers`` defaults to 1, 2, 4 ... up to the GPUs present (CPU: 1 and 2 worker processes); ``rows`` (the
    groupby and join tables) to 4e8 on GPUs, 2e6 on the CPU; ``npartitions`` to rows / 25e6 (GPU) or rows / 5e5
    (CPU), at least 2 per worker. ``svd_rows`` x ``svd_cols``: the SVD's array (2e7 x 1000 on GPUs, 2e5 x 100 on
    the CPU) in chunks of ``svd_chunk_rows`` rows (1e6 on GPUs; at least ``svd_cols``, at most rows over twice the
    largest worker count). ``only``: comma-separated question names or globs. ``device_memory_limit``:
    dask-cuda's per-worker limit (spilling to host past it), e.g. "8GB" for the out-of-core figure. ``check``:
    also check the groupby answers against an exact oracle (the svd answers are always checked).
    ``processes=False``: CPU workers as threads of this process (for tests).

    The result's ``errors`` name the questions that failed; ``right`` is False when a checked answer was wrong.
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
    workers = sorted({int(w) for w in workers})
    if not workers or workers[0] < 1:
        raise ValueError(f"worker counts must be >= 1, got {workers}")
    per_part = ROWS_PER_PARTITION_GPU if use_gpu else ROWS_PER_PARTITION_CPU
    npartitions = int(npartitions or max(-(-rows // per_part), 2 * max(workers)))
    default_shape = SVD_SHAPE_GPU if use_gpu else SVD_SHAPE_CPU
    svd_shape = (int(svd_rows or default_shape[0]), int(svd_cols or default_shape[1]))
    if min(svd_shape) < 1:
        raise ValueError(f"the SVD's array needs at least one row and one column, got {svd_shape}")
    chunk_default = SVD_CHUNK_ROWS_GPU if use_gpu else SVD_CHUNK_ROWS_CPU
    spread = -(-svd_shape[0] // (2 * max(workers)))  # at least two chunks per worker
    svd_chunk_rows = int(svd_chunk_rows or max(svd_shape[1], min(chunk_default, spread)))
    questions = QUESTIONS
    if only:
        patterns = [p.strip() for p in only.split(",") if p.strip()]
        questions = [q for q in QUESTIONS if any(fnmatch.fnmatch(q.name, p) for p in patterns)]
        if not questions:
            raise KeyError(f"no distributed question matches {only!r}")
    tasks = [task for task in ("groupby", "join", "svd") if any(q.task == task for q in questions)]
    result = DistributedResult(rows, npartitions, use_gpu, list(workers), device_memory_limit=device_memory_limit,
                               checked=check, svd_shape=list(svd_shape) if "svd" in tasks else None)  # fmt: skip
    _header(result, tasks, out)
    firsts: dict[str, float] = {}
    with dask.config.set({"distributed.admin.low-level-log-length": 1_000_000, "dataframe.shuffle.method": "tasks"}):
        for n in workers:
            with _cluster(n, use_gpu, device_memory_limit, processes) as cluster, distributed.Client(cluster) as client:
                client.wait_for_workers(n)
                split_out = max(n, npartitions // 4)
                for task in tasks:
                    chosen = [q for q in questions if q.task == task]
                    tables, sizes = _make_tables(task, rows, npartitions, seed, svd_shape, svd_chunk_rows)
                    if task == "svd":
                        tables["X"] = place_svd(client, tables["X"], seed)
                    tables = {name: t.persist() for name, t in tables.items()}
                    distributed.wait(list(tables.values()))
                    for question in chosen:
                        key = f"{question.name}@{n}"
                        verify = task == "svd" or (check and task == "groupby")
                        try:
                            times, moved, last = _time_question(client, question, tables, split_out, repeat,
                                                                keep=verify)  # fmt: skip
                        except Exception as exc:  # noqa: BLE001 - a failed question is reported, the others run
                            result.errors[key] = f"{type(exc).__name__}: {exc}"
                            continue
                        median = statistics.median(times)
                        rate = moved / sum(times) if sum(times) else 0.0
                        data_bytes = sum(sizes[name] for name in question.inputs)
                        timing = QuestionTiming(question.name, n, times, median, moved, rate,
                                                goal=GOALS.get(n) if task != "svd" else None, data_bytes=data_bytes,
                                                throughput=data_bytes * question.passes / median if median else 0.0,
                                                spilled=_spilled(client))  # fmt: skip
                        if question.name == "svd" and use_gpu:
                            timing.time_goal_s = SVD_TIME_GOAL_S.get(n)
                        if n == workers[0]:
                            firsts[question.name] = median
                        if question.name in firsts and workers[0] == 1:
                            timing.speedup = firsts[question.name] / median
                        if verify:
                            try:
                                if task == "svd":
                                    timing.right, timing.check = _check_svd(last, tables)
                                else:
                                    timing.right, timing.check = _check_groupby(question, last, rows, npartitions,
                                                                                seed)  # fmt: skip
                            except Exception as exc:  # noqa: BLE001 - a failed check: the answer is not known right
                                timing.right, timing.check = False, f"check failed: {type(exc).__name__}: {exc}"
                        del last
                        result.timings.append(timing)
                    del tables
    if baseline and 1 in workers:
        for timing in result.timings:
            question = next(q for q in QUESTIONS if q.name == timing.question)
            if timing.workers == 1 and question.plain is not None:
                timing.plain_s = _plain_time(question, rows, seed, repeat)
                timing.overhead = timing.median_s / timing.plain_s if timing.plain_s else None
    _report(result, out)
    if json_path:
        with open(json_path, "w") as f:
            json.dump({**asdict(result), "right": result.right}, f, indent=2, default=str)
    return result


def _header(result: DistributedResult, tasks: list[str], out: TextIO) -> None:
    kind = "GPU workers (dask-cuda)" if result.gpu else "CPU workers"
    limit = ""
    if result.device_memory_limit not in ("default", None):
        ignored = "" if result.gpu else " (ignored: CPU workers)"
        limit = f", device memory limit {result.device_memory_limit}{ignored}"
    print(f"riptide bench --distributed: {kind}: {', '.join(map(str, result.worker_counts))}{limit}", file=out)
    if "groupby" in tasks or "join" in tasks:
        print(f"  groupby / join tables: {result.rows:,} rows in {result.npartitions} partitions", file=out)
    if result.svd_shape:
        r, c = result.svd_shape
        print(f"  svd: {r:,} x {c:,} float32 ({_size(4 * r * c)})", file=out)


def _report(result: DistributedResult, out: TextIO) -> None:
    print(f"{'question':<15} {'workers':>7} {'median':>10} {'data':>9} {'read/s':>10} {'speed-up':>9} {'goal':>6} "
          f"{'moved/s':>11} {'overhead':>9} {'spilled':>7} {'right':>5}", file=out)  # fmt: skip
    for t in result.timings:
        speedup = f"{t.speedup:.2f}x" if t.speedup is not None and t.workers > 1 else ""
        goal = "" if t.goal is None or t.speedup is None else ("ok" if t.speedup >= t.goal else f"<{t.goal}x")
        if t.time_goal_s is not None:
            goal = "ok" if t.median_s <= t.time_goal_s else f">{t.time_goal_s:g}s"
        overhead = "" if t.overhead is None else f"{t.overhead:.2f}x" + ("" if t.overhead <= OVERHEAD_GOAL else "!")
        spilled = "?" if t.spilled is None else str(t.spilled)
        right = "" if t.right is None else ("yes" if t.right else "NO")
        print(f"{t.question:<15} {t.workers:>7} {t.median_s:>9.3f}s {_size(t.data_bytes):>9} "
              f"{_rate(t.throughput):>10} {speedup:>9} {goal:>6} {_rate(t.moved_per_s):>11} {overhead:>9} "
              f"{spilled:>7} {right:>5}", file=out)  # fmt: skip
    for t in result.timings:
        if t.right is False:
            print(f"{t.question}@{t.workers}: wrong answer: {t.check}", file=out)
    for key, message in result.errors.items():
        print(f"{key}: error: {message}", file=out)
    checked = [t for t in result.timings if t.right is not None]
    if checked:
        verdict = "yes" if result.right else "no"
        print(f"right answer: {verdict} ({sum(bool(t.right) for t in checked)} of {len(checked)} checked answers"
              " right)", file=out)  # fmt: skip


def _size(n_bytes: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.2f}{unit}"
    return f"{n_bytes:.0f}B"


def _rate(bytes_per_s: float) -> str:
    return _size(bytes_per_s) + "/s"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m riptide.benchmarks.distributed [options]`` (the CLI's ``bench --distributed``)."""
    import argparse

    parser = argparse.ArgumentParser(prog="riptide bench --distributed")
    parser.add_argument("--rows", type=float)
    parser.add_argument("--workers", default=None, help="comma-separated worker counts, e.g. 1,2,4")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only")
    parser.add_argument("--partitions", type=int)
    parser.add_argument("--device-memory-limit", default="default")
    parser.add_argument("--baseline", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--svd-rows", type=float)
    parser.add_argument("--svd-cols", type=int)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    workers = [int(w) for w in args.workers.split(",")] if args.workers else None
    result = run_distributed(int(args.rows) if args.rows else None, workers=workers, repeat=args.repeat,
                             seed=args.seed, only=args.only, npartitions=args.partitions,
                             device_memory_limit=args.device_memory_limit, baseline=args.baseline,
                             check=args.check, svd_rows=int(args.svd_rows) if args.svd_rows else None,
                             svd_cols=args.svd_cols, json_path=args.json)  # fmt: skip
    return 1 if result.errors or result.right is False else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
