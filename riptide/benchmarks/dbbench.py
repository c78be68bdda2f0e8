"""The db-benchmark (duckdblabs' "database-like ops benchmark") in ``riptide bench --suite dbbench``.

What it is
----------
db-benchmark times ten groupby questions on one table and five join questions on four tables, for many
dataframe libraries, at 1e7, 1e8 and 1e9 rows. This module brings its groupby and join tasks into
``riptide bench`` so riptide is measured on the same questions, side by side with pandas and polars, at
``--rows 1e7`` or ``1e8``, with ``--na`` for the variant where 5% of the values are missing.

The data
--------
db-benchmark writes its tables with two R scripts (``_data/groupby-datagen.R``, ``_data/join-datagen.R``)
and each solution reads them from CSV. Here the same tables are generated in memory with NumPy, from the
published schema and sampling rules (reimplemented, not translated: R's random streams are not reproduced,
so the values differ, the distributions and cardinalities do not):

* groupby ``G1_<rows>_1e2_<na>_0`` (:func:`groupby_data`), K = 100: ``id1``, ``id2`` one of K strings
  ``id001``..``id100``; ``id3`` one of rows/K strings ``id0000000001``...; ``id4``, ``id5`` ints in 1..K;
  ``id6`` ints in 1..rows/K; ``v1`` ints in 1..5, ``v2`` ints in 1..15, ``v3`` uniform in [0, 100) rounded to
  6 decimals. With ``na_pct=5``, 5% of the distinct values of each ``id`` column are dropped to missing in
  every row that has them, and 5% of the rows of each ``v`` column are missing.
* join ``J1_<rows>_NA_<na>_0`` (:func:`join_data`): key spaces of rows/1e6, rows/1e3 and rows keys, each split
  90% shared by both sides, 10% left only, 10% right only. ``x`` (rows rows) draws ``id1``..``id3`` from its
  side's keys, every key at least once; ``small`` (rows/1e6), ``medium`` (rows/1e3) and ``big`` (rows) have
  unique ``id1``, ``id2`` and ``id3`` respectively and draw the coarser ids with repeats. ``id4``..``id6`` are
  ``"id<n>"`` strings of ``id1``..``id3``; ``v1`` / ``v2`` are uniform in [0, 100). Only ``x`` gets missing
  values in the ``na_pct`` variant (as in the R script).

Dtypes are those the db-benchmark pandas solution works with: the string ids become ``category``
(``astype('category')`` in the solution), integers ``int64`` (``Int64`` where values are missing: the
solution's commented-out nullable choice), values ``float64``. Categories are the values present, in
numeric order rather than ``astype``'s lexicographic order (the answers do not depend on it, and sorting
1e8 strings would dominate the set-up). At tiny sizes the key spaces are clamped to at least 10 keys
(R refuses below 1e7 rows), so ``--rows 1e4`` makes a valid, small benchmark for tests.

The questions
-------------
Each question is written once, in pandas' API, exactly as the db-benchmark pandas solution spells it
(``pandas/groupby-pandas.py``, ``pandas/join-pandas.py``), and runs unchanged with riptide and pandas; the
polars peer runs the polars solution's expression (lazy frame, ``collect()``), on the schema that solution
loads (``Int32`` ints and ``Categorical`` strings; in the join task also ``Float32`` values). Two departures:
q8 ends with ``ans = ans.reset_index(drop=True)`` (pandas 3.1 deprecates the solution's ``inplace=True``),
and pandas also runs the missing-value data, which the pandas solution skips (db-benchmark issue 171): it is
the check's reference.

How it is measured
------------------
Per question and library: ``warmup`` untimed runs and ``repeat`` timed ones, median reported (the harness's
:func:`~riptide.benchmarks.harness.measure`, the device synchronized around riptide's runs); peers run
``peer_repeat`` times without warm-up, being slow and for context only. The totals are the sums of the
medians, shown with the issue's reference totals (cuDF 26.10 on one H200, published pandas/polars figures).

Peak memory: one more, untimed run of each riptide question under
:func:`~riptide.benchmarks.harness.peak_memory`, measuring the bytes the question allocates beyond what was
live before it. The figure is compared with the bytes of the question's inputs: the columns a groupby reads,
both tables of a join. The issue's goal is at most 3x.

The check (``--check``): before timing, every question runs once with riptide and with pandas on a small
table (``--check-rows``, default ``min(rows, 1e5)``), and the answers are compared after sorting their rows
(:func:`~riptide.benchmarks.harness.compare_with_pandas`: same columns and dtypes, floats within a
tolerance); mismatches are reported, not fatal.
"""

from __future__ import annotations

import contextlib
import fnmatch
import importlib
import importlib.util
import json
import platform
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from riptide.benchmarks.harness import (
    CHECK_ROWS,
    PEERS,
    Timing,
    _clip,
    _describe,
    _fmt_ratio,
    _no_sync,
    _release_memory,
    available_peers,
    compare_with_pandas,
    fmt_count,
    fmt_seconds,
    measure,
    peak_memory,
)

__all__ = [
    "GROUPBY_QUESTIONS",
    "JOIN_QUESTIONS",
    "QUESTIONS",
    "Question",
    "TotalReference",
    "REFERENCES",
    "groupby_data",
    "join_data",
    "groupby_name",
    "join_name",
    "materialize",
    "input_bytes",
    "peak_memory",
    "QuestionResult",
    "TaskResult",
    "check_questions",
    "make_data",
    "tables_for",
    "time_task",
    "select_questions",
    "run_dbbench",
    "list_questions",
]

SEED = 108  # the R generators' seed; NumPy's generator is seeded with it (its stream is not R's)
GROUPBY_K = 100
NA_PERCENT = 5
GPU_ROWS = 10_000_000
CPU_ROWS = 1_000_000
MEMORY_GOAL = 3.0  # peak bytes allocated by a question, over its input bytes
MIN_KEYS = 10  # smallest key space of the join tables (R needs >= 1e7 rows, i.e. >= 10 keys in `small`)


# --- data: shared helpers ----------------------------------------------------------------------------------------


def _sci(n: int) -> str:
    """db-benchmark's size token: ``10_000_000`` -> ``1e7``; other counts as digits."""
    text = str(n)
    return f"1e{len(text) - 1}" if n >= 1 and text.strip("0") == "1" else text


def groupby_name(rows: int, na_pct: int = 0) -> str:
    """The db-benchmark name of the groupby table: ``G1_1e7_1e2_0_0`` (rows, K, NA percent, unsorted)."""
    return f"G1_{_sci(rows)}_{_sci(GROUPBY_K)}_{na_pct}_0"


def join_name(rows: int, na_pct: int = 0) -> str:
    """The db-benchmark name of the join data set: ``J1_1e7_NA_0_0`` (the left table's name)."""
    return f"J1_{_sci(rows)}_NA_{na_pct}_0"


def _labels(numbers: np.ndarray, width: int = 0) -> pd.Index:
    """``"id<n>"`` for each number (zero-padded to ``width`` digits), as a pandas ``str`` Index, built in Arrow
    (no Python string per value: the largest join table has 1e8 of them)."""
    text = pc.cast(pa.array(np.asarray(numbers, dtype=np.int64)), pa.large_string())
    if width:
        text = pc.utf8_lpad(text, width=width, padding="0")
    prefix, empty = pa.scalar("id", pa.large_string()), pa.scalar("", pa.large_string())
    return pd.Index(pc.binary_join_element_wise(prefix, text, empty), dtype="str")


def _categorical(codes: np.ndarray, categories: pd.Index) -> pd.Categorical:
    """``pd.Categorical`` from codes (-1 = missing) and categories that are unique by construction.

    pandas checks that categories are unique by hashing them all, minutes for the 1e8 categories of the
    largest join tables; these are unique by construction, so the check is skipped where pandas allows it.
    """
    make_dtype = getattr(pd.CategoricalDtype, "_from_fastpath", None)  # private: falls back to the public path
    dtype = make_dtype(categories, False) if make_dtype is not None else pd.CategoricalDtype(categories)
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def _present_values(codes: np.ndarray, n: int) -> np.ndarray:
    """The values in ``0..n-1`` that occur in ``codes`` (-1 ignored), ascending."""
    return np.flatnonzero(np.bincount(codes[codes >= 0], minlength=n))


def _drop_values(rng: np.random.Generator, codes: np.ndarray, n: int, na_pct: int) -> np.ndarray:
    """Codes with every row of ``na_pct`` % of the distinct present values set to -1 (missing).

    R: ``nna = as.integer(length(unique(col)) * nas / 100)`` values sampled, all their rows set to NA.
    """
    present = _present_values(codes, n)
    count = int(len(present) * na_pct / 100)
    if count == 0:
        return codes
    dropped = np.zeros(n, dtype=bool)
    dropped[rng.choice(present, size=count, replace=False)] = True
    return np.where(dropped[np.maximum(codes, 0)] & (codes >= 0), -1, codes).astype(codes.dtype, copy=False)


def _missing_rows(rng: np.random.Generator, rows: int, na_pct: int) -> np.ndarray | None:
    """A mask of ``int(rows * na_pct / 100)`` rows chosen at random, or None when there are none."""
    count = int(rows * na_pct / 100)
    if count == 0:
        return None
    missing = np.zeros(rows, dtype=bool)
    missing[rng.choice(rows, size=count, replace=False)] = True
    return missing


def _ints(values: np.ndarray, missing: np.ndarray | None = None) -> Any:
    """int64 values, or a nullable ``Int64`` array where some are missing."""
    values = values.astype(np.int64, copy=False)
    if missing is None or not missing.any():
        return values
    return pd.arrays.IntegerArray(np.where(missing, 0, values), missing)


def _codes_dtype(n: int) -> type:
    return np.int8 if n < 127 else np.int16 if n < 32767 else np.int32 if n < 2**31 - 1 else np.int64


def _category_of_codes(codes: np.ndarray, n: int, labels: Callable[[np.ndarray], pd.Index]) -> pd.Categorical:
    """A categorical of codes into ``0..n-1`` whose categories are the values present (as ``astype`` gives)."""
    present = _present_values(codes, n)
    if len(present) == n:
        new_codes = codes
    else:  # renumber the present values 0..m-1, keep -1
        renumber = np.full(n, -1, dtype=np.int64)
        renumber[present] = np.arange(len(present))
        new_codes = np.where(codes >= 0, renumber[np.maximum(codes, 0)], -1)
    return _categorical(new_codes.astype(_codes_dtype(len(present)), copy=False), labels(present))


def _rounded_uniform(rng: np.random.Generator, rows: int) -> np.ndarray:
    """R's ``round(runif(n, max=100), 6)``."""
    return np.round(rng.uniform(0.0, 100.0, rows), 6)


# --- data: groupby ------------------------------------------------------------------------------------------------


def groupby_data(rows: int, *, na_pct: int = 0, k: int = GROUPBY_K, seed: int = SEED) -> pd.DataFrame:
    """The db-benchmark groupby table ``G1_<rows>_1e2_<na_pct>_0`` as a pandas DataFrame.

    >>> x = groupby_data(1_000)
    >>> list(x.columns), x.shape
    (['id1', 'id2', 'id3', 'id4', 'id5', 'id6', 'v1', 'v2', 'v3'], (1000, 9))
    >>> str(x["id1"].dtype), x["id1"].cat.categories[0], x["id3"].cat.categories[0], str(x["v3"].dtype)
    ('category', 'id001', 'id0000000001', 'float64')
    """
    rng = np.random.default_rng(seed)
    small = max(rows // k, 1)  # rows/K: the cardinality of id3 and id6
    codes = {
        "id1": rng.integers(0, k, rows, dtype=_codes_dtype(k)),
        "id2": rng.integers(0, k, rows, dtype=_codes_dtype(k)),
        "id3": rng.integers(0, small, rows, dtype=_codes_dtype(small)),
    }
    ints = {  # as 0-based codes too, 1 added at the end: the NA step treats every id alike
        "id4": rng.integers(0, k, rows, dtype=np.int64),
        "id5": rng.integers(0, k, rows, dtype=np.int64),
        "id6": rng.integers(0, small, rows, dtype=np.int64),
    }
    v1 = rng.integers(1, 6, rows, dtype=np.int64)
    v2 = rng.integers(1, 16, rows, dtype=np.int64)
    v3 = _rounded_uniform(rng, rows)
    cardinality = {"id1": k, "id2": k, "id3": small, "id4": k, "id5": k, "id6": small}
    if na_pct:
        for name in ("id1", "id2", "id3"):
            codes[name] = _drop_values(rng, codes[name], cardinality[name], na_pct)
        for name in ("id4", "id5", "id6"):
            ints[name] = _drop_values(rng, ints[name], cardinality[name], na_pct)
    v_missing = [_missing_rows(rng, rows, na_pct) for _ in range(3)]
    if v_missing[2] is not None:
        v3[v_missing[2]] = np.nan

    def short(n: np.ndarray) -> pd.Index:
        return pd.Index([f"id{i + 1:03d}" for i in n], dtype="str")  # K = 100 labels: a Python list is fine

    def long(n: np.ndarray) -> pd.Index:
        return _labels(n + 1, width=10)

    columns: dict[str, Any] = {
        "id1": _category_of_codes(codes["id1"], k, short),
        "id2": _category_of_codes(codes["id2"], k, short),
        "id3": _category_of_codes(codes["id3"], small, long),
    }
    for name, values in ints.items():
        columns[name] = _ints(values + 1, values < 0)
    columns["v1"] = _ints(v1, v_missing[0])
    columns["v2"] = _ints(v2, v_missing[1])
    columns["v3"] = v3
    return pd.DataFrame(columns, copy=False)


# --- data: join ----------------------------------------------------------------------------------------------------


def _split_keys(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n * 1.1`` distinct keys (1-based, random order) split into shared (90% of n), left-only and
    right-only (10% of n each): R's ``split_xlr``."""
    shared = 9 * n // 10
    only = n - shared
    key = rng.permutation(n + only).astype(np.int64) + 1
    return key[:shared], key[shared:n], key[n:]


def _sample_all(rng: np.random.Generator, keys: np.ndarray, size: int) -> np.ndarray:
    """``size`` draws from ``keys`` in which every key occurs at least once, shuffled: R's ``sample_all``."""
    if size < len(keys):
        msg = f"cannot draw every one of {len(keys)} keys in {size} rows"
        raise ValueError(msg)
    if len(keys) == size:
        return rng.permutation(keys)
    if len(keys) <= size // 16:
        # Few keys: shuffling 1e8 rows costs seconds. The same distribution, cheaply: every row an independent
        # draw, then the keys (in random order) written to distinct rows chosen at random.
        out = keys[rng.integers(0, len(keys), size)]
        out[rng.choice(size, size=len(keys), replace=False)] = rng.permutation(keys)
        return out
    extra = keys[rng.integers(0, len(keys), size - len(keys))]
    return rng.permutation(np.concatenate([keys, extra]))


def _id_strings(ids: np.ndarray, missing: np.ndarray | None, space: int) -> pd.Categorical:
    """``"id<n>"`` of each id as a categorical of the ids present (ids are in ``1..space``)."""
    codes = ids - 1
    if missing is not None:
        codes = np.where(missing, -1, codes)
    return _category_of_codes(codes, space, lambda present: _labels(present + 1))


def join_data(rows: int, *, na_pct: int = 0, seed: int = SEED) -> dict[str, pd.DataFrame]:
    """The db-benchmark join tables ``x``, ``small``, ``medium`` and ``big`` as pandas DataFrames.

    >>> t = join_data(10_000)
    >>> {name: frame.shape for name, frame in t.items()}
    {'x': (10000, 7), 'small': (10, 3), 'medium': (10, 5), 'big': (10000, 7)}
    >>> list(t["medium"].columns)
    ['id1', 'id2', 'id4', 'id5', 'v2']
    """
    rng = np.random.default_rng(seed)
    sizes = [max(rows // 10**6, MIN_KEYS), max(rows // 10**3, MIN_KEYS), max(rows, MIN_KEYS)]
    spaces = [n + (n - 9 * n // 10) for n in sizes]  # each key space holds n * 1.1 keys
    splits = [_split_keys(rng, n) for n in sizes]
    left_keys = [np.concatenate([shared, left]) for shared, left, _ in splits]
    right_keys = [np.concatenate([shared, right]) for shared, _, right in splits]

    lhs = [_sample_all(rng, keys, max(rows, len(keys))) for keys in left_keys]
    n_rows = len(lhs[0])
    v1 = _rounded_uniform(rng, n_rows)
    missing: list[np.ndarray | None] = [None, None, None]
    if na_pct:
        for i, ids in enumerate(lhs):
            codes = _drop_values(rng, ids - 1, spaces[i], na_pct)
            missing[i] = codes < 0
        v1_missing = _missing_rows(rng, n_rows, na_pct)
        if v1_missing is not None:
            v1[v1_missing] = np.nan
    x: dict[str, Any] = {f"id{i + 1}": _ints(lhs[i], missing[i]) for i in range(3)}
    for i in range(3):
        x[f"id{i + 4}"] = _id_strings(lhs[i], missing[i], spaces[i])
    x["v1"] = v1
    tables = {"x": pd.DataFrame(x, copy=False)}

    # right tables: the first `levels` ids, the last one unique (one row per key)
    for name, levels in (("small", 1), ("medium", 2), ("big", 3)):
        size = sizes[levels - 1]
        ids = [_sample_all(rng, right_keys[i], size) for i in range(levels)]
        table: dict[str, Any] = {f"id{i + 1}": ids[i] for i in range(levels)}
        for i in range(levels):
            table[f"id{i + 4}"] = _id_strings(ids[i], None, spaces[i])
        table["v2"] = _rounded_uniform(rng, size)
        tables[name] = pd.DataFrame(table, copy=False)
    return tables


# --- the questions ---------------------------------------------------------------------------------------------
#
# Each function is the db-benchmark pandas solution's code for the question, verbatim in its calls, so that it
# runs with riptide and pandas alike; `_pl_*` is the polars solution's expression for the same question.


def _groupby_q1(x: Any) -> Any:
    return x.groupby("id1", as_index=False, sort=False, observed=True, dropna=False).agg({"v1": "sum"})


def _groupby_q2(x: Any) -> Any:
    return x.groupby(["id1", "id2"], as_index=False, sort=False, observed=True, dropna=False).agg({"v1": "sum"})


def _groupby_q3(x: Any) -> Any:
    return x.groupby("id3", as_index=False, sort=False, observed=True, dropna=False).agg({"v1": "sum", "v3": "mean"})


def _groupby_q4(x: Any) -> Any:
    return x.groupby("id4", as_index=False, sort=False, observed=True, dropna=False).agg(
        {"v1": "mean", "v2": "mean", "v3": "mean"}
    )


def _groupby_q5(x: Any) -> Any:
    return x.groupby("id6", as_index=False, sort=False, observed=True, dropna=False).agg(
        {"v1": "sum", "v2": "sum", "v3": "sum"}
    )


def _groupby_q6(x: Any) -> Any:
    return x.groupby(["id4", "id5"], as_index=False, sort=False, observed=True, dropna=False).agg(
        {"v3": ["median", "std"]}
    )


def _groupby_q7(x: Any) -> Any:
    return (
        x.groupby("id3", as_index=False, sort=False, observed=True, dropna=False)
        .agg({"v1": "max", "v2": "min"})
        .assign(range_v1_v2=lambda x: x["v1"] - x["v2"])[["id3", "range_v1_v2"]]
    )


def _groupby_q8(x: Any) -> Any:
    ans = (
        x[~x["v3"].isna()][["id6", "v3"]]
        .sort_values("v3", ascending=False)
        .groupby("id6", as_index=False, sort=False, observed=True, dropna=False)
        .head(2)
    )
    # the solution's `ans.reset_index(drop=True, inplace=True)`; pandas 3.1 deprecates `inplace`
    return ans.reset_index(drop=True)


def _groupby_q9(x: Any) -> Any:
    return (
        x[["id2", "id4", "v1", "v2"]]
        .groupby(["id2", "id4"], as_index=False, sort=False, observed=True, dropna=False)
        .apply(lambda x: x["v1"].corr(x["v2"]) ** 2)
        .rename(columns={None: "r2"})
    )


def _groupby_q10(x: Any) -> Any:
    return x.groupby(
        ["id1", "id2", "id3", "id4", "id5", "id6"], as_index=False, sort=False, observed=True, dropna=False
    ).agg({"v3": "sum", "v1": "size"})


def _join_q1(x: Any, small: Any) -> Any:
    return x.merge(small, on="id1")


def _join_q2(x: Any, medium: Any) -> Any:
    return x.merge(medium, on="id2")


def _join_q3(x: Any, medium: Any) -> Any:
    return x.merge(medium, how="left", on="id2")


def _join_q4(x: Any, medium: Any) -> Any:
    return x.merge(medium, on="id5")


def _join_q5(x: Any, big: Any) -> Any:
    return x.merge(big, on="id3")


def _pl() -> Any:
    return importlib.import_module("polars")


def _pl_groupby_q1(x: Any) -> Any:
    pl = _pl()
    return x.group_by("id1").agg(pl.sum("v1").alias("v1_sum")).collect()


def _pl_groupby_q2(x: Any) -> Any:
    pl = _pl()
    return x.group_by(["id1", "id2"]).agg(pl.sum("v1").alias("v1_sum")).collect()


def _pl_groupby_q3(x: Any) -> Any:
    pl = _pl()
    return x.group_by("id3").agg([pl.sum("v1").alias("v1_sum"), pl.mean("v3").alias("v3_mean")]).collect()


def _pl_groupby_q4(x: Any) -> Any:
    pl = _pl()
    return x.group_by("id4").agg(
        [pl.mean("v1").alias("v1_mean"), pl.mean("v2").alias("v2_mean"), pl.mean("v3").alias("v3_mean")]
    ).collect()


def _pl_groupby_q5(x: Any) -> Any:
    pl = _pl()
    return x.group_by("id6").agg(
        [pl.sum("v1").alias("v1_sum"), pl.sum("v2").alias("v2_sum"), pl.sum("v3").alias("v3_sum")]
    ).collect()


def _pl_groupby_q6(x: Any) -> Any:
    pl = _pl()
    return x.group_by(["id4", "id5"]).agg([pl.median("v3").alias("v3_median"), pl.std("v3").alias("v3_std")]).collect()


def _pl_groupby_q7(x: Any) -> Any:
    pl = _pl()
    return x.group_by("id3").agg([(pl.max("v1") - pl.min("v2")).alias("range_v1_v2")]).collect()


def _pl_groupby_q8(x: Any) -> Any:
    pl = _pl()
    return (
        x.drop_nulls("v3")
        .group_by("id6")
        .agg(pl.col("v3").top_k(2).alias("largest2_v3"))
        .explode("largest2_v3")
        .collect()
    )


def _pl_groupby_q9(x: Any) -> Any:
    pl = _pl()
    return x.group_by(["id2", "id4"]).agg((pl.corr("v1", "v2", method="pearson") ** 2).alias("r2")).collect()


def _pl_groupby_q10(x: Any) -> Any:
    pl = _pl()
    return (
        x.group_by(["id1", "id2", "id3", "id4", "id5", "id6"])
        .agg([pl.sum("v3").alias("v3"), pl.len().alias("count")])
        .collect()
    )


def _pl_join_q1(x: Any, small: Any) -> Any:
    return x.join(small, on="id1").collect()


def _pl_join_q2(x: Any, medium: Any) -> Any:
    return x.join(medium, on="id2").collect()


def _pl_join_q3(x: Any, medium: Any) -> Any:
    return x.join(medium, how="left", on="id2").collect()


def _pl_join_q4(x: Any, medium: Any) -> Any:
    return x.join(medium, on="id5").collect()


def _pl_join_q5(x: Any, big: Any) -> Any:
    return x.join(big, on="id3").collect()


@dataclass(frozen=True)
class Question:
    """One db-benchmark question: its code (pandas API; polars) and what it reads.

    ``tables`` name the tables passed to the code, by keyword; ``columns`` the columns of ``x`` a groupby
    question reads (None: every column of every table, as a join carries them all into its answer);
    ``sort_by`` how many leading columns of the answer identify a row for the check (None: all of them).
    """

    task: str
    number: int
    title: str
    code: Callable[..., Any]
    polars: Callable[..., Any]
    tables: tuple[str, ...] = ("x",)
    columns: tuple[str, ...] | None = None
    sort_by: int | None = None
    cudf: float | None = None  # the cuDF 26.10 figure at 1e8 rows, where it quotes one

    @property
    def name(self) -> str:
        return f"{self.task}_q{self.number}"

    def run(self, tables: dict[str, Any]) -> Any:
        return self.code(**{name: tables[name] for name in self.tables})

    def run_polars(self, tables: dict[str, Any]) -> Any:
        return self.polars(**{name: tables[name] for name in self.tables})


GROUPBY_QUESTIONS = (
    Question("groupby", 1, "sum v1 by id1", _groupby_q1, _pl_groupby_q1, columns=("id1", "v1"), sort_by=1),
    Question("groupby", 2, "sum v1 by id1:id2", _groupby_q2, _pl_groupby_q2, columns=("id1", "id2", "v1"), sort_by=2),
    Question("groupby", 3, "sum v1 mean v3 by id3", _groupby_q3, _pl_groupby_q3, columns=("id3", "v1", "v3"), sort_by=1),
    Question(
        "groupby", 4, "mean v1:v3 by id4", _groupby_q4, _pl_groupby_q4, columns=("id4", "v1", "v2", "v3"), sort_by=1
    ),
    Question(
        "groupby", 5, "sum v1:v3 by id6", _groupby_q5, _pl_groupby_q5, columns=("id6", "v1", "v2", "v3"), sort_by=1
    ),
    Question(
        "groupby", 6, "median v3 sd v3 by id4 id5", _groupby_q6, _pl_groupby_q6,
        columns=("id4", "id5", "v3"), sort_by=2, cudf=0.314,
    ),
    Question(
        "groupby", 7, "max v1 - min v2 by id3", _groupby_q7, _pl_groupby_q7, columns=("id3", "v1", "v2"), sort_by=1
    ),
    Question(
        "groupby", 8, "largest two v3 by id6", _groupby_q8, _pl_groupby_q8, columns=("id6", "v3"), cudf=0.235
    ),
    Question(
        "groupby", 9, "regression v1 v2 by id2 id4", _groupby_q9, _pl_groupby_q9,
        columns=("id2", "id4", "v1", "v2"), sort_by=2, cudf=0.181,
    ),
    Question(
        "groupby", 10, "sum v3 count by id1:id6", _groupby_q10, _pl_groupby_q10,
        columns=("id1", "id2", "id3", "id4", "id5", "id6", "v1", "v3"), sort_by=6,
    ),
)

JOIN_QUESTIONS = (
    Question("join", 1, "small inner on int", _join_q1, _pl_join_q1, tables=("x", "small")),
    Question("join", 2, "medium inner on int", _join_q2, _pl_join_q2, tables=("x", "medium")),
    Question("join", 3, "medium outer on int", _join_q3, _pl_join_q3, tables=("x", "medium")),
    Question("join", 4, "medium inner on factor", _join_q4, _pl_join_q4, tables=("x", "medium")),
    Question("join", 5, "big inner on int", _join_q5, _pl_join_q5, tables=("x", "big"), cudf=0.124),
)

QUESTIONS = {q.name: q for q in (*GROUPBY_QUESTIONS, *JOIN_QUESTIONS)}


@dataclass(frozen=True)
class TotalReference:
    """The issue's figures for all questions of a task at one size, no missing values (seconds)."""

    cudf: float | None
    goal: float | None
    pandas: float | None = None  # db-benchmark's published figure, another machine
    polars: float | None = None  # db-benchmark's published figure, another machine
    note: str = ""


REFERENCES = {
    ("groupby", 10**7): TotalReference(cudf=0.11, goal=0.06),
    ("groupby", 10**8): TotalReference(
        cudf=0.91, goal=0.45, pandas=154.0, polars=14.7, note="cuDF q6 314 ms, q8 235 ms, q9 181 ms"
    ),
    ("join", 10**8): TotalReference(cudf=0.34, goal=0.17, pandas=121.0, polars=4.7, note="cuDF q5 124 ms"),
}


def list_questions(out: TextIO | None = None) -> None:
    """Print the questions: name and db-benchmark title."""
    out = out or sys.stdout
    for name, q in QUESTIONS.items():
        print(f"{name:12s} {q.title}", file=out)


def select_questions(only: str | None) -> list[Question]:
    """Questions whose name matches one of the comma-separated names or globs in ``only`` (all if None)."""
    if not only:
        return list(QUESTIONS.values())
    patterns = [p.strip() for p in only.split(",") if p.strip()]
    unknown = [p for p in patterns if not any(fnmatch.fnmatchcase(name, p) for name in QUESTIONS)]
    if unknown:
        msg = f"no db-benchmark question matches {', '.join(map(repr, unknown))}; questions: {', '.join(QUESTIONS)}"
        raise KeyError(msg)
    return [q for name, q in QUESTIONS.items() if any(fnmatch.fnmatchcase(name, p) for p in patterns)]


# --- the tables in each library ----------------------------------------------------------------------------------

# The schema each polars solution loads its CSV with (its `schema_overrides` and casts).
_POLARS_SCHEMA = {
    "groupby": {"id1": "Categorical", "id2": "Categorical", "id3": "Categorical", "id4": "Int32", "id5": "Int32",
                "id6": "Int32", "v1": "Int32", "v2": "Int32", "v3": "Float64"},
    "join": {"id1": "Int32", "id2": "Int32", "id3": "Int32", "id4": "Categorical", "id5": "Categorical",
             "id6": "Categorical", "v1": "Float32", "v2": "Float32"},
}


def make_data(task: str, rows: int, *, na_pct: int = 0, seed: int = SEED) -> dict[str, pd.DataFrame]:
    """The task's tables by name: ``{"x": ...}`` for groupby; ``x``, ``small``, ``medium``, ``big`` for join."""
    if task == "groupby":
        return {"x": groupby_data(rows, na_pct=na_pct, seed=seed)}
    return join_data(rows, na_pct=na_pct, seed=seed)


def tables_for(library: str, task: str, tables: dict[str, pd.DataFrame]) -> dict[str, Any]:
    """The pandas tables as ``library`` works with them: riptide frames on the device, polars lazy frames."""
    if library == "pandas":
        return tables
    if library == "riptide":
        import riptide as rt

        return {name: rt.from_pandas(frame) for name, frame in tables.items()}
    pl = _pl()
    out = {}
    with _polars_string_cache(pl):
        for name, frame in tables.items():
            df = pl.from_pandas(frame)
            casts = [pl.col(c).cast(getattr(pl, dtype)) for c, dtype in _POLARS_SCHEMA[task].items() if c in df.columns]
            out[name] = df.with_columns(casts).lazy()
    return out


@contextlib.contextmanager
def _polars_string_cache(pl: Any) -> Any:
    """The global string cache the polars solution loads under (categoricals joined across tables); newer
    polars shares categories without it and deprecates it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cache = pl.StringCache() if hasattr(pl, "StringCache") else contextlib.nullcontext()
        with cache:
            yield


def materialize(result: Any) -> Any:
    """``result`` with every column computed: riptide may defer elementwise columns (one fused kernel on first
    read, e.g. q7's ``v1 - v2``), so a timed region reads them to include that work. Others pass as they are."""
    data = getattr(result, "_data", None)
    columns = list(data.values()) if isinstance(data, dict) else [getattr(result, "_column", None)]
    for column in columns:
        getattr(column, "data", None)  # reading .data computes a deferred column; other layouts have none
    return result


def input_bytes(question: Question, tables: dict[str, Any]) -> int:
    """Bytes of the riptide columns the question reads: its groupby columns, or every column of its tables."""
    total = 0
    for name in question.tables:
        data = tables[name]._data
        labels = question.columns if question.columns is not None and name == "x" else list(data)
        total += sum(data[label].nbytes for label in labels)
    return total


# --- the check ---------------------------------------------------------------------------------------------------


def check_questions(
    questions: Sequence[Question], rows: int, *, na_pct: int = 0, seed: int = SEED
) -> dict[str, str]:
    """Run each question with riptide and pandas on ``rows``-row tables and compare the answers.

    Returns ``{question name: "ok" | "mismatch: ..." | "error: ..."}``.
    """
    results: dict[str, str] = {}
    for task in ("groupby", "join"):
        mine = [q for q in questions if q.task == task]
        if not mine:
            continue
        theirs_tables = make_data(task, rows, na_pct=na_pct, seed=seed)
        try:
            riptide_tables = tables_for("riptide", task, theirs_tables)
        except Exception as exc:
            results.update({q.name: f"error: riptide tables: {_describe(exc)}" for q in mine})
            continue
        for q in mine:
            results[q.name] = _check_one(q, riptide_tables, theirs_tables)
        del riptide_tables
        _release_memory()
    return results


def _check_one(question: Question, riptide_tables: dict[str, Any], pandas_tables: dict[str, Any]) -> str:
    try:
        theirs = question.run(pandas_tables)
    except Exception as exc:
        return f"error: pandas: {_describe(exc)}"
    try:
        mine = question.run(riptide_tables)
    except Exception as exc:
        return f"error: riptide: {_describe(exc)}"
    diff = compare_with_pandas(mine, theirs, sort_by=question.sort_by)
    return "ok" if diff is None else f"mismatch: {diff}"


# --- timing ------------------------------------------------------------------------------------------------------


@dataclass
class QuestionResult:
    """One question's timings (or errors) per library, riptide's peak memory, and its check."""

    question: Question
    timings: dict[str, Timing] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    peak_bytes: int | None = None
    input_bytes: int | None = None
    check: str | None = None

    def speedup(self, peer: str) -> float | None:
        mine, theirs = self.timings.get("riptide"), self.timings.get(peer)
        return theirs.median / mine.median if mine and theirs and mine.median > 0 else None

    @property
    def memory_ratio(self) -> float | None:
        return self.peak_bytes / self.input_bytes if self.peak_bytes is not None and self.input_bytes else None


@dataclass
class TaskResult:
    """A task (groupby or join) at one size: its questions' results and the totals."""

    task: str
    data_name: str
    rows: int
    na_pct: int
    generate_s: float = 0.0
    table_bytes: int | None = None
    results: list[QuestionResult] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)  # per library: its tables could not be built

    def total(self, library: str) -> tuple[float, int]:
        """Sum of the library's medians and the number of questions it ran."""
        times = [r.timings[library].median for r in self.results if library in r.timings]
        return sum(times), len(times)

    @property
    def reference(self) -> TotalReference | None:
        return None if self.na_pct else REFERENCES.get((self.task, self.rows))

    def goal_met(self) -> bool | None:
        """Whether riptide's total meets the issue's goal; None without a goal or when a question is missing."""
        ref = self.reference
        seconds, count = self.total("riptide")
        if ref is None or ref.goal is None or count != len(self.results) or not self.results:
            return None
        return seconds <= ref.goal


def time_task(
    task: str,
    questions: Sequence[Question],
    rows: int,
    *,
    na_pct: int = 0,
    seed: int = SEED,
    libraries: Sequence[str] = ("riptide", *PEERS),
    repeat: int = 5,
    warmup: int = 1,
    peer_repeat: int = 1,
    with_memory: bool = True,
    on_start: Callable[[TaskResult], None] | None = None,
    on_result: Callable[[QuestionResult], None] | None = None,
) -> TaskResult:
    """Generate the task's tables, then time each question with each library (see the module docstring)."""
    from riptide import _device

    name = groupby_name(rows, na_pct) if task == "groupby" else join_name(rows, na_pct)
    outcome = TaskResult(task, name, rows, na_pct)
    start = time.perf_counter()
    host = make_data(task, rows, na_pct=na_pct, seed=seed)
    outcome.generate_s = time.perf_counter() - start
    tables: dict[str, dict[str, Any]] = {}
    for lib in libraries:
        try:
            tables[lib] = tables_for(lib, task, host)
        except Exception as exc:
            outcome.errors[lib] = f"tables: {_describe(exc)}"
    if "riptide" in tables:
        outcome.table_bytes = sum(c.nbytes for frame in tables["riptide"].values() for c in frame._data.values())
    if on_start is not None:
        on_start(outcome)

    for q in questions:
        result = QuestionResult(q)
        for lib in libraries:
            if lib not in tables:
                result.errors[lib] = outcome.errors[lib]
                continue
            thunk = _thunk(q, lib, tables[lib])
            riptide = lib == "riptide"
            try:
                result.timings[lib] = measure(
                    thunk,
                    repeat=repeat if riptide else peer_repeat,
                    warmup=warmup if riptide else 0,
                    sync=_device.synchronize if riptide else _no_sync,
                    compiles=riptide,
                )
            except Exception as exc:  # a gap in one library must not hide the others' figures
                result.errors[lib] = _describe(exc)
            _release_memory()
        if with_memory and "riptide" in result.timings:
            result.input_bytes = input_bytes(q, tables["riptide"])
            try:
                result.peak_bytes = peak_memory(_thunk(q, "riptide", tables["riptide"]))
            except Exception as exc:
                result.errors["memory"] = _describe(exc)
            _release_memory()
        outcome.results.append(result)
        if on_result is not None:
            on_result(result)
    del tables, host
    _release_memory()
    return outcome


def _thunk(question: Question, library: str, tables: dict[str, Any]) -> Callable[[], Any]:
    if library == "riptide":
        return lambda: materialize(question.run(tables))
    if library == "polars":
        return lambda: question.run_polars(tables)
    return lambda: question.run(tables)


# --- the command ---------------------------------------------------------------------------------------------------


def run_dbbench(
    *,
    rows: int | None = None,
    na: bool = False,
    repeat: int = 5,
    warmup: int = 1,
    peer_repeat: int | None = None,
    seed: int = SEED,
    only: str | None = None,
    peers: Sequence[str] = PEERS,
    check: bool = False,
    check_rows: int | None = None,
    json_path: str | None = None,
    out: TextIO | None = None,
) -> int:
    """``riptide bench --suite dbbench``: check (optional), time, print the table and totals, write JSON.

    Returns 0, or 1 when a question failed with some library or the check found a mismatch.
    """
    from riptide import _device

    out = out or sys.stdout
    questions = select_questions(only)
    gpu = _device.is_gpu()
    rows = rows if rows is not None else (GPU_ROWS if gpu else CPU_ROWS)
    na_pct = NA_PERCENT if na else 0
    peer_repeat = 1 if peer_repeat is None else peer_repeat
    peers = available_peers(peers)
    info = _device.device_info()
    where = f"gpu ({info.get('gpu')})" if gpu else "cpu (NumPy)"
    print(
        f"riptide bench --suite dbbench on {where}: {fmt_count(rows)} rows{', 5% missing values' if na else ''};"
        f" riptide: median of {repeat} after {warmup} warm-up; peers ({', '.join(peers) or 'none'}):"
        f" median of {peer_repeat}, no warm-up",
        file=out,
    )

    checks: dict[str, str] = {}
    small = (min(rows, CHECK_ROWS) if check_rows is None else check_rows) if check else None
    if small is not None:
        checks = check_questions(questions, small, na_pct=na_pct, seed=seed)
        agree = sum(c == "ok" for c in checks.values())
        print(f"\ncheck against pandas at {fmt_count(small)} rows: {agree} of {len(checks)} agree", file=out)
        for name, c in checks.items():
            if c != "ok":
                print(f"  {name}: {c}", file=out)

    outcomes = []
    for task in ("groupby", "join"):
        mine = [q for q in questions if q.task == task]
        if not mine:
            continue
        printer = _QuestionTable(out, peers, cudf_column=gpu and rows == 10**8 and not na)
        outcome = time_task(
            task,
            mine,
            rows,
            na_pct=na_pct,
            seed=seed,
            libraries=("riptide", *peers),
            repeat=repeat,
            warmup=warmup,
            peer_repeat=peer_repeat,
            on_start=printer.start,
            on_result=lambda r, printer=printer: printer.row(r, checks.get(r.question.name)),
        )
        for r in outcome.results:
            r.check = checks.get(r.question.name)
        printer.footer(outcome)
        outcomes.append(outcome)

    if json_path:
        settings = {"rows": rows, "na_pct": na_pct, "repeat": repeat, "warmup": warmup, "peer_repeat": peer_repeat,
                    "seed": seed, "peers": peers, "check_rows": small}
        with open(json_path, "w") as f:
            json.dump(_report(outcomes, settings, info, checks), f, indent=2, default=str)
        print(f"\nwrote {json_path}", file=out)
    failed = any(r.errors for o in outcomes for r in o.results) or any(o.errors for o in outcomes)
    return 1 if failed or any(c != "ok" for c in checks.values()) else 0


def _report(
    outcomes: list[TaskResult], settings: dict[str, Any], info: dict[str, Any], checks: dict[str, str]
) -> dict[str, Any]:
    import riptide

    tasks = {}
    for o in outcomes:
        questions = []
        for r in o.results:
            libs: dict[str, Any] = {lib: t.as_dict() for lib, t in r.timings.items()}
            libs.update({lib: {"error": e} for lib, e in r.errors.items()})
            questions.append(
                {
                    "name": r.question.name,
                    "question": r.question.title,
                    "results": libs,
                    "speedup": {p: r.speedup(p) for p in settings["peers"] if r.speedup(p) is not None},
                    "peak_bytes": r.peak_bytes,
                    "input_bytes": r.input_bytes,
                    "memory_ratio": r.memory_ratio,
                    "memory_goal_met": None if r.memory_ratio is None else r.memory_ratio <= MEMORY_GOAL,
                    "cudf_26_10_s": r.question.cudf if o.rows == 10**8 and not o.na_pct else None,
                    "check": r.check,
                }
            )
        ref = o.reference
        tasks[o.task] = {
            "data": o.data_name,
            "rows": o.rows,
            "generate_s": o.generate_s,
            "riptide_table_bytes": o.table_bytes,
            "errors": o.errors,
            "questions": questions,
            "totals": {
                lib: {"seconds": o.total(lib)[0], "questions": o.total(lib)[1]}
                for lib in ("riptide", *settings["peers"])
            },
            "reference": None
            if ref is None
            else {
                "cudf_26_10_s": ref.cudf,
                "goal_s": ref.goal,
                "pandas_published_s": ref.pandas,
                "polars_published_s": ref.polars,
                "note": ref.note,
            },
            "goal_met": o.goal_met(),
        }
    return {
        "riptide": getattr(riptide, "__version__", None),
        "suite": "dbbench",
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "device": info,
        "settings": settings,
        "memory_goal_ratio": MEMORY_GOAL,
        "check": checks or None,
        "tasks": tasks,
    }


class _QuestionTable:
    """The table of one task, a row per question as soon as it is timed, then the totals and references."""

    def __init__(self, out: TextIO, peers: Sequence[str], *, cudf_column: bool) -> None:
        self.out = out
        self.peers = list(peers)
        self.cudf_column = cudf_column
        cols = [("question", 11, "<"), ("", 27, "<"), ("riptide", 9, ">"), ("min..max", 19, ">")]
        cols += [(p, 9, ">") for p in self.peers]
        cols += [(f"vs {p}", 9, ">") for p in self.peers]
        if cudf_column:
            cols += [("cuDF 26.10", 10, ">")]
        cols += [("peak mem", 9, ">"), ("/ input", 7, ">"), ("check", 8, ">")]
        self.cols = cols

    def _line(self, cells: Sequence[str]) -> str:
        return "  ".join(f"{c:{align}{w}}" for c, (_, w, align) in zip(cells, self.cols)).rstrip()

    def start(self, o: TaskResult) -> None:
        size = "" if o.table_bytes is None else f"; riptide tables on the device: {o.table_bytes / 1e6:,.0f} MB"
        print(f"\n{o.task}: {o.data_name}, generated in {o.generate_s:.1f} s{size}", file=self.out)
        for lib, e in o.errors.items():
            print(f"  {lib}: {e}", file=self.out)
        print(self._line([name for name, _, _ in self.cols]), file=self.out)
        print("  ".join("-" * w for _, w, _ in self.cols), file=self.out)

    def row(self, r: QuestionResult, check: str | None) -> None:
        mine = r.timings.get("riptide")
        cells = [f"q{r.question.number}", _clip(r.question.title, 27), self._time(r, "riptide")]
        cells.append(f"{fmt_seconds(mine.min)}..{fmt_seconds(mine.max)}" if mine else "")
        cells += [self._time(r, p) for p in self.peers]
        cells += [_fmt_ratio(r.speedup(p)) for p in self.peers]
        if self.cudf_column:
            cells.append(fmt_seconds(r.question.cudf) if r.question.cudf else "")
        cells.append(_fmt_bytes(r.peak_bytes))
        ratio = r.memory_ratio
        cells.append("" if ratio is None else f"{ratio:.1f}x" + ("!" if ratio > MEMORY_GOAL else ""))
        cells.append("" if check is None else check.split(":")[0])
        print(self._line(cells), file=self.out)

    def _time(self, r: QuestionResult, lib: str) -> str:
        if lib in r.errors:
            return "error"
        t = r.timings.get(lib)
        return fmt_seconds(t.median) if t else "-"

    def footer(self, o: TaskResult) -> None:
        n = len(o.results)
        totals = {lib: o.total(lib) for lib in ("riptide", *self.peers)}
        mine, count = totals["riptide"]
        cells = [f"total ({count} of {n})" if count != n else "total", "", fmt_seconds(mine) if count else "-", ""]
        cells += [fmt_seconds(totals[p][0]) + ("" if totals[p][1] == n else f" ({totals[p][1]})") if totals[p][1]
                  else "-" for p in self.peers]
        cells += [_fmt_ratio(totals[p][0] / mine) if count == n and totals[p][1] == n and mine > 0 else ""
                  for p in self.peers]
        print("  ".join("-" * w for _, w, _ in self.cols), file=self.out)
        print(self._line(cells), file=self.out)
        ref = o.reference
        if ref is not None:
            met = o.goal_met()
            verdict = "" if met is None else f" -> {'met' if met else 'not met'}"
            published = [f"{lib} ~{v:g} s" for lib, v in (("pandas", ref.pandas), ("polars", ref.polars)) if v]
            print(
                f"reference ({o.task}, {fmt_count(o.rows)} rows, issue 3, one H200): cuDF 26.10 {fmt_seconds(ref.cudf)},"
                f" goal <= {fmt_seconds(ref.goal)}{verdict}"
                + (f"; published (db-benchmark, another machine): {', '.join(published)}" if published else "")
                + (f"; {ref.note}" if ref.note else ""),
                file=self.out,
            )
        over = [f"q{r.question.number} {r.memory_ratio:.1f}x" for r in o.results
                if r.memory_ratio is not None and r.memory_ratio > MEMORY_GOAL]
        measured = sum(r.memory_ratio is not None for r in o.results)
        if measured:
            from riptide import _device

            how = "CuPy pool high-water mark" if _device.is_gpu() else "tracemalloc; small tables show overheads"
            print(
                f"peak memory (riptide, beyond what was live; {how}) <= {MEMORY_GOAL:g}x the bytes of the inputs:"
                f" {measured - len(over)} of {measured}" + (f"; over: {', '.join(over)}" if over else ""),
                file=self.out,
            )
        errors = [(f"q{r.question.number}", lib, e) for r in o.results for lib, e in r.errors.items()]
        if errors:
            print("errors:", file=self.out)
            for q, lib, e in errors:
                print(f"  {q} [{lib}]: {e}", file=self.out)


def _fmt_bytes(n: int | None) -> str:
    if n is None:
        return ""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} B"
