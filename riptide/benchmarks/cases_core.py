"""Issue 2's core cases: elementwise arithmetic, a reduction, a filter, pandas interchange, per-call overhead
and import time. Reference figures are the issue's, measured on one H200.

Where the code is the same for every library (``a * b + a``), a case writes it once in ``run(lib, data)`` and
:class:`_SameCode` hands it to each library; where a library spells it differently, the case says so.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from riptide.benchmarks.harness import Case, Context, Reference, fmt_count, register, self_timed

MS = 1e-3
US = 1e-6


def _lib(name: str) -> Any:
    return importlib.import_module(name)


def _uniform_columns(ctx: Context, names: str = "ab", rows: int | None = None) -> dict[str, np.ndarray]:
    rng = ctx.rng()
    return {name: rng.random(ctx.rows if rows is None else rows) for name in names}


def computed(result: Any) -> Any:
    """``result`` with its values computed: riptide defers chains of operators (one fused kernel, run when the
    values are first read), so a timed region must read them to include the kernel; pandas objects pass as is."""
    column = getattr(result, "_column", None)
    if column is not None and hasattr(column, "data"):  # reading .data runs the deferred kernel (string columns: none)
        column.data  # noqa: B018
    return result


class _SameCode(Case):
    """A case whose timed code reads the same with every library: subclasses write ``run(lib, data)``."""

    def run(self, lib: Any, data: Any) -> Callable[[], Any]:
        raise NotImplementedError

    def riptide(self, data: Any) -> Callable[[], Any]:
        timed = self.run(_lib("riptide"), data)
        return lambda: computed(timed())

    def pandas(self, data: Any) -> Callable[[], Any]:
        return self.run(_lib("pandas"), data)

    def polars(self, data: Any) -> Callable[[], Any]:
        return self.run(_lib("polars"), data)


@register
class MulAdd(_SameCode):
    name = "mul_add"
    title = "a*b + a"
    reference = Reference(pandas=521 * MS, cudf=3.28 * MS, goal=2 * MS, note=">= 60% of copy bandwidth")

    def data(self, ctx: Context) -> dict[str, np.ndarray]:
        return _uniform_columns(ctx)

    def bytes_moved(self, data: dict[str, np.ndarray]) -> int:
        return 3 * data["a"].nbytes  # a and b read, the result written

    def run(self, lib: Any, data: dict[str, np.ndarray]) -> Callable[[], Any]:
        a, b = lib.Series(data["a"]), lib.Series(data["b"])
        return lambda: a * b + a



@register
class Sum(_SameCode):
    name = "sum"
    title = "a.sum()"
    reference = Reference(pandas=177 * MS, cudf=0.72 * MS, goal=0.4 * MS)

    def data(self, ctx: Context) -> dict[str, np.ndarray]:
        return _uniform_columns(ctx, "a")

    def bytes_moved(self, data: dict[str, np.ndarray]) -> int:
        return data["a"].nbytes

    def run(self, lib: Any, data: dict[str, np.ndarray]) -> Callable[[], Any]:
        a = lib.Series(data["a"])
        return lambda: a.sum()


@register
class Filter(_SameCode):
    name = "filter"
    title = "df[df.a > 0.5]"
    reference = Reference(pandas=930 * MS, cudf=4.07 * MS, goal=2.5 * MS)

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(ctx.rows)} x 2 float64"

    def data(self, ctx: Context) -> dict[str, np.ndarray]:
        return _uniform_columns(ctx)

    def bytes_moved(self, data: dict[str, np.ndarray]) -> int:
        kept = int(np.count_nonzero(data["a"] > 0.5))
        return 2 * data["a"].nbytes + 2 * kept * data["a"].itemsize  # a, b read; the kept rows of both written

    def run(self, lib: Any, data: dict[str, np.ndarray]) -> Callable[[], Any]:
        df = lib.DataFrame(data)
        return lambda: df[df.a > 0.5]

    def polars(self, data: dict[str, np.ndarray]) -> Callable[[], Any]:
        df = _lib("polars").DataFrame(data)
        return lambda: df.filter(df["a"] > 0.5)


class _Interchange(Case):
    """pandas <-> riptide (and polars) for a rows x 2 float64 frame; judged in GB/s of frame data."""

    bound = "link"

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(ctx.rows)} x 2 float64"

    def data(self, ctx: Context) -> dict[str, np.ndarray]:
        return _uniform_columns(ctx)

    def bytes_moved(self, data: dict[str, np.ndarray]) -> int:
        return sum(a.nbytes for a in data.values())


@register
class FromPandas(_Interchange):
    name = "from_pandas"
    title = "from_pandas"
    reference = Reference(pandas=None, cudf=180 * MS, goal=80 * MS, note="pinned, >= 20 GB/s")

    def riptide(self, data: dict[str, np.ndarray]) -> Callable[[], Any]:
        rt = _lib("riptide")
        pdf = _lib("pandas").DataFrame(data)
        return lambda: rt.from_pandas(pdf)

    def polars(self, data: dict[str, np.ndarray]) -> Callable[[], Any]:
        pl = _lib("polars")
        pdf = _lib("pandas").DataFrame(data)
        return lambda: pl.from_pandas(pdf)


@register
class ToPandas(_Interchange):
    name = "to_pandas"
    title = "to_pandas"
    reference = Reference(pandas=None, cudf=1748 * MS, goal=150 * MS)

    def riptide(self, data: dict[str, np.ndarray]) -> Callable[[], Any]:
        df = _lib("riptide").DataFrame(data)
        return lambda: df.to_pandas()

    def polars(self, data: dict[str, np.ndarray]) -> Callable[[], Any]:
        df = _lib("polars").DataFrame(data)
        return lambda: df.to_pandas()


@register
class SmallAdd(_SameCode):
    name = "small_add"
    title = "10-row a + b"
    reference = Reference(pandas=82 * US, cudf=214 * US, goal=100 * US, rows=None)
    bound = "none"
    per_call = True

    def size(self, ctx: Context) -> str:
        return "10 float64"

    def data(self, ctx: Context) -> dict[str, Any]:
        return {**_uniform_columns(ctx, rows=10), "calls": ctx.calls}

    def run(self, lib: Any, data: dict[str, Any]) -> Callable[[], Any]:
        a, b, calls = lib.Series(data["a"]), lib.Series(data["b"]), data["calls"]

        def many() -> Any:
            for _ in range(calls):
                c = computed(a + b)
            return c

        return many


@register
class Import(Case):
    name = "import"
    title = "import riptide"
    reference = Reference(pandas=None, cudf=2.2, goal=1.0, note="cuDF figure is `import cudf`", rows=None)
    bound = "none"

    def size(self, ctx: Context) -> str:
        return "fresh process"

    def riptide(self, data: None) -> Callable[[], float]:
        return self_timed(lambda: _import_seconds("riptide"))

    def pandas(self, data: None) -> Callable[[], float]:
        return self_timed(lambda: _import_seconds("pandas"))

    def polars(self, data: None) -> Callable[[], float]:
        return self_timed(lambda: _import_seconds("polars"))


def _import_seconds(module: str) -> float:
    """Seconds ``import module`` takes in a fresh interpreter (interpreter start-up not counted)."""
    from riptide import _config

    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    env = {**os.environ, "RIPTIDE_DEVICE": _config.get_option("device")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        msg = f"`import {module}` failed in a fresh process: {done.stderr.strip().splitlines()[-1:]}"
        raise RuntimeError(msg)
    return float(done.stdout.strip().splitlines()[-1])
