"""Issue 3's single-operation cases: groupby-sum by an int64 and by a string key, an inner join and a sort.
Reference figures are the issue's, measured on one H200 (polars with 16 threads).

Each case's code reads the same with riptide and pandas (written once in ``run``, as in
:mod:`riptide.benchmarks.cases_core`); polars spells it its own way. The db-benchmark questions, which are
whole-table workloads rather than single operations, are the ``dbbench`` suite (:mod:`riptide.benchmarks.dbbench`).

Data, at ``--rows N`` (the issue's figures hold at ``--rows 1e8``):

* ``groupby_sum``: N rows, int64 keys uniform in [0, 1e6) (1e6 groups at 1e8 rows), float64 values.
* ``groupby_sum_str``: N/10 rows (the issue's 1e7 at ``--rows 1e8``), ``str`` keys ``id001``..``id100``.
* ``merge_inner``: left N rows, right N/10 rows; the right's keys unique, spread over the int64 range (no
  dense-range shortcut) and in random order; each left key drawn from the right's keys, so every left row
  finds exactly one match. One float64 value column on each side.
* ``sort_values``: N random int64 over the whole int64 range.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from riptide.benchmarks.cases_core import _lib, _SameCode
from riptide.benchmarks.harness import Context, Reference, fmt_count, register

MS = 1e-3
INT_GROUPS = 1_000_000
STR_GROUPS = 100


def _str_keys(codes: np.ndarray) -> pd.Series:
    """``"id%03d"`` of ``codes + 1`` as a pandas ``str`` Series, built in Arrow (no Python string per row)."""
    labels = pa.array([f"id{i + 1:03d}" for i in range(STR_GROUPS)], pa.large_string())
    return pd.Series(labels.take(pa.array(codes)), dtype="str")


@register
class GroupbySumInt(_SameCode):
    name = "groupby_sum"
    title = "groupby(int64).sum()"
    reference = Reference(pandas=3966 * MS, cudf=12.3 * MS, goal=6 * MS, polars=997 * MS, note="1e6 groups")

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(ctx.rows)} int64 key"

    def data(self, ctx: Context) -> dict[str, np.ndarray]:
        rng = ctx.rng()
        return {"key": rng.integers(0, INT_GROUPS, ctx.rows, dtype=np.int64), "v": rng.random(ctx.rows)}

    def bytes_moved(self, data: dict[str, np.ndarray]) -> int:
        groups = int(np.count_nonzero(np.bincount(data["key"], minlength=INT_GROUPS)))
        return data["key"].nbytes + data["v"].nbytes + 16 * groups  # keys, values read; one key, one sum written

    def run(self, lib: Any, data: dict[str, np.ndarray]) -> Callable[[], Any]:
        df = lib.DataFrame(data)
        return lambda: df.groupby("key")["v"].sum()

    def polars(self, data: dict[str, np.ndarray]) -> Callable[[], Any]:
        pl = _lib("polars")
        df = pl.DataFrame(data)
        return lambda: df.group_by("key").agg(pl.col("v").sum())


@register
class GroupbySumStr(_SameCode):
    name = "groupby_sum_str"
    title = "groupby(str).sum()"
    reference = Reference(
        pandas=202 * MS, cudf=0.9 * MS, goal=0.5 * MS, polars=13 * MS,
        note="cuDF 0.9-3.8 ms; 100 groups, at --rows 1e8 this case runs 1e7 rows",
    )

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(max(ctx.rows // 10, 1))} str key"

    def data(self, ctx: Context) -> pd.DataFrame:
        rng = ctx.rng()
        rows = max(ctx.rows // 10, 1)
        keys = _str_keys(rng.integers(0, STR_GROUPS, rows, dtype=np.int64))
        return pd.DataFrame({"key": keys, "v": rng.random(rows)})

    def bytes_moved(self, data: pd.DataFrame) -> int:
        chars = int(data["key"].str.len().sum())
        rows = len(data)
        # offsets (int64) and bytes of the keys, values read; 100 short keys and their sums written
        return 8 * (rows + 1) + chars + 8 * rows + STR_GROUPS * (8 + 5 + 8)

    def run(self, lib: Any, data: pd.DataFrame) -> Callable[[], Any]:
        df = lib.DataFrame(data)
        return lambda: df.groupby("key")["v"].sum()

    def polars(self, data: pd.DataFrame) -> Callable[[], Any]:
        pl = _lib("polars")
        df = pl.from_pandas(data)
        return lambda: df.group_by("key").agg(pl.col("v").sum())


@register
class MergeInner(_SameCode):
    name = "merge_inner"
    title = "merge(inner, int64)"
    reference = Reference(
        pandas=15255 * MS, cudf=29.1 * MS, goal=12 * MS, polars=1809 * MS, note="1e8 x 1e7 unique keys"
    )

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(ctx.rows)} x {fmt_count(max(ctx.rows // 10, 1))}"

    def data(self, ctx: Context) -> dict[str, dict[str, np.ndarray]]:
        rng = ctx.rng()
        n_right = max(ctx.rows // 10, 1)
        # Unique keys over the whole int64 range: an odd multiplier is a bijection modulo 2**64, so distinct
        # positions give distinct keys, spread out, in the random order of the permutation.
        spread = rng.permutation(n_right).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        right_keys = spread.view(np.int64)
        left_keys = right_keys[rng.integers(0, n_right, ctx.rows)]
        return {
            "left": {"key": left_keys, "x": rng.random(ctx.rows)},
            "right": {"key": right_keys, "y": rng.random(n_right)},
        }

    def bytes_moved(self, data: dict[str, dict[str, np.ndarray]]) -> int:
        left, right = data["left"], data["right"]
        read = sum(a.nbytes for a in left.values()) + sum(a.nbytes for a in right.values())
        return read + 3 * left["key"].nbytes  # every left row matches once: key, x, y written per left row

    def run(self, lib: Any, data: dict[str, dict[str, np.ndarray]]) -> Callable[[], Any]:
        left, right = lib.DataFrame(data["left"]), lib.DataFrame(data["right"])
        return lambda: left.merge(right, on="key")

    def riptide(self, data: dict[str, dict[str, np.ndarray]]) -> Callable[[], Any]:
        timed = self.run(_lib("riptide"), data)

        def merged() -> Any:
            result = timed()
            for column in result._data.values():  # a frame: compute every (possibly deferred) column
                getattr(column, "data", None)
            return result

        return merged

    def polars(self, data: dict[str, dict[str, np.ndarray]]) -> Callable[[], Any]:
        pl = _lib("polars")
        left, right = pl.DataFrame(data["left"]), pl.DataFrame(data["right"])
        return lambda: left.join(right, on="key")


@register
class SortValues(_SameCode):
    name = "sort_values"
    title = "s.sort_values()"
    reference = Reference(
        pandas=1695 * MS, cudf=22.6 * MS, goal=11 * MS, polars=1499 * MS,
        note="pandas figure is numpy.sort; cupy.argsort alone 8.8 ms",
    )

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(ctx.rows)} int64"

    def data(self, ctx: Context) -> np.ndarray:
        info = np.iinfo(np.int64)
        return ctx.rng().integers(info.min, info.max, ctx.rows, dtype=np.int64, endpoint=True)

    def bytes_moved(self, a: np.ndarray) -> int:
        return 3 * a.nbytes  # values read; sorted values and their index labels written

    def run(self, lib: Any, a: np.ndarray) -> Callable[[], Any]:
        s = lib.Series(a)
        return lambda: s.sort_values()

    def polars(self, a: np.ndarray) -> Callable[[], Any]:
        s = _lib("polars").Series(a)
        return lambda: s.sort()
