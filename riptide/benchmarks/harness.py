"""The timing harness behind ``riptide bench``.

How a case is timed (:func:`measure`): its thunk runs ``warmup`` times untimed (and on, until
:data:`WARMUP_SECONDS` have passed; riptide's counted from the end of its first call, which may compile
kernels), then ``repeat`` times timed,
with the device synchronized before the clock starts and before it stops (riptide only; pandas and polars
run on the host and return when done). The median is the figure; min and max show the spread.

How bandwidth is judged: once per run :func:`measure_copy_rate` times a device-to-device copy of a large
random array (on the CPU, a NumPy memcpy) and takes bytes read + bytes written over the median time as the
copy rate. A case declares the bytes it must move at least — each input read once, each output written
once — and its achieved bandwidth is those bytes over its median time, also shown as a fraction of the copy
rate. Cases bound by the host link (``from_pandas``, ``to_pandas``) show GB/s only.

Cases are classes registered with :func:`register` in any module of this package named ``cases_*.py``;
:func:`load_cases` imports them all. A case builds its host data once (:meth:`Case.data`) and has one method
per library it runs with (``riptide``, ``pandas``, ``polars``), each returning the zero-argument thunk to time.

The JSON written with ``--json`` holds the settings, ``device_info()``, the copy rate, and per case the
per-library timings (seconds: ``median_s``, ``min_s``, ``max_s``, ``times_s``), achieved bandwidth, speed-ups
and the reference figures from the issues with whether the goal was met.

Suites: ``--suite cases`` (the default) runs the registered cases; ``--suite dbbench`` runs the db-benchmark
groupby and join questions (:mod:`riptide.benchmarks.dbbench`), which has its own data, table and report.

Peak memory: a riptide thunk marked with :func:`with_footprint` (``bytes``, ``what``) runs once more, untimed,
under :func:`peak_memory`, and the table's footer gives its peak over those bytes (issue 7's "peak device
memory <= 2.5x the CSR size": a graph case marks its thunk with the bytes of the graph's CSR).

Checking (``--check``): before timing, each case that has riptide and pandas code runs once with both on a
small size (``--check-rows``, default ``min(rows, 1e5)``) and the answers are compared with
:func:`compare_with_pandas` (rows in any order, floats within a tolerance); mismatches are reported and make
the exit code 1, the timings still run.
"""

from __future__ import annotations

import fnmatch
import gc
import importlib
import importlib.util
import json
import os
import pkgutil
import platform
import signal
import statistics
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

__all__ = [
    "Case",
    "Context",
    "Reference",
    "Timing",
    "UsageError",
    "CASES",
    "PEERS",
    "register",
    "self_timed",
    "with_footprint",
    "peak_memory",
    "measure",
    "measure_copy_rate",
    "load_cases",
    "select_cases",
    "run_cases",
    "check_cases",
    "compare_with_pandas",
    "run_bench",
]

LIBRARIES = ("riptide", "pandas", "polars", "sklearn", "networkx")
# A case runs the peers it has a method for (sklearn: the ml cases; networkx: the graph cases).
PEERS = ("pandas", "polars", "sklearn", "networkx")
GPU_ROWS = 100_000_000
CPU_ROWS = 10_000_000
CHECK_ROWS = 100_000  # the largest size --check compares riptide with pandas at
SUITES = ("cases", "dbbench")
MIN_COPY_BYTES = 256 * 2**20  # large enough to leave the CPU caches behind


class UsageError(ValueError):
    """An option that does not apply (``--na`` without ``--suite dbbench``, an unknown suite)."""


# --- cases and their registry -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """An issue's figures for a case, measured on one H200 (seconds; None where the issue has none)."""

    pandas: float | None
    cudf: float | None
    goal: float | None
    note: str = ""
    rows: int | None = 100_000_000  # the run's --rows the figures hold for (None: any size)
    polars: float | None = None  # polars with 16 threads, where the issue quotes it
    # Goals stated as ratios against peers measured in the same run, e.g. (("pandas", 100.0),): at least 100x pandas.
    min_speedup: tuple[tuple[str, float], ...] = ()


@dataclass
class Context:
    """What cases are built for: the row count, the seed and the calls per thunk of per-call cases."""

    rows: int
    seed: int = 0
    calls: int = 1000
    repeat: int = 5

    def rng(self) -> np.random.Generator:
        """A fresh generator, so each case sees the same data whatever ran before it."""
        return np.random.default_rng(self.seed)


class Case:
    """One benchmark. Subclass, set the class attributes, write :meth:`data` and one method per library.

    Library methods (``riptide``, ``pandas``, ``polars``) take the case's data and return the thunk to time;
    a library without a method is not run for the case. Build inputs in the method, not in the thunk.
    """

    name: str = ""
    title: str = ""
    reference: Reference | None = None
    bound: str = "device"  # "device": judged against the copy rate; "link": host<->device, GB/s only; "none"
    per_call: bool = False  # the thunk makes `ctx.calls` calls and times are per call

    def data(self, ctx: Context) -> Any:
        """Host data shared by every library (NumPy arrays from ``ctx.rng()``)."""
        return None

    def size(self, ctx: Context) -> str:
        """A short description of the data, e.g. ``1e8 float64``."""
        return f"{fmt_count(ctx.rows)} float64"

    def bytes_moved(self, data: Any) -> int | None:
        """Bytes the case must move at least: inputs read once plus outputs written once."""
        return None


CASES: dict[str, Case] = {}


def register(cls: type[Case]) -> type[Case]:
    """Class decorator: add a :class:`Case` subclass to :data:`CASES` under its ``name``."""
    if not cls.name:
        msg = f"benchmark case {cls.__qualname__} has no `name`"
        raise ValueError(msg)
    if cls.name in CASES and type(CASES[cls.name]) is not cls:
        msg = f"a benchmark case named {cls.name!r} is already registered ({type(CASES[cls.name]).__qualname__})"
        raise ValueError(msg)
    CASES[cls.name] = cls()
    return cls


def self_timed(fn: Callable[[], float]) -> Callable[[], float]:
    """Mark a thunk that measures itself and returns seconds (e.g. an import timed inside a subprocess)."""
    fn.self_timed = True  # type: ignore[attr-defined]
    return fn


def with_footprint(fn: Callable[[], Any], nbytes: int, what: str, goal: float | None = None) -> Callable[[], Any]:
    """Mark a riptide thunk whose peak memory is to be reported as a multiple of ``nbytes`` (the bytes of
    ``what``, e.g. "CSR"), with the largest multiple the issue allows (``goal``)."""
    fn.footprint = (int(nbytes), what, goal)  # type: ignore[attr-defined]
    return fn


def peak_memory(fn: Callable[[], Any]) -> int:
    """Bytes ``fn()`` allocates at its peak, beyond what was live before it.

    On CuPy, ``fn`` allocates from a memory pool of its own; a pool never returns blocks on its own, so that
    pool's ``total_bytes()`` afterwards is the high-water mark (an upper bound: blocks are rounded, and a free
    block too small for a later request stays counted). On the CPU, :mod:`tracemalloc` (which NumPy reports
    to) gives the peak.
    """
    from riptide import _device

    gc.collect()
    if _device.is_gpu():
        cupy = _device.xp()
        _device.synchronize()
        # A fresh pool for fn alone: what was live before stays in the default pool. (The default pool would
        # serve small requests from the free tail of a chunk already counted.)
        pool = cupy.cuda.MemoryPool()
        with cupy.cuda.using_allocator(pool.malloc):
            result = fn()
            _device.synchronize()
        peak = pool.total_bytes()
        del result
        pool.free_all_blocks()
        return int(peak)
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = fn()
        peak = tracemalloc.get_traced_memory()[1] - before
        del result
    finally:
        if started:
            tracemalloc.stop()
    return int(peak)


def load_cases() -> dict[str, Case]:
    """Import every ``cases_*`` module of this package (they register their cases) and return the registry."""
    import riptide.benchmarks as package

    for mod in pkgutil.iter_modules(package.__path__):
        if mod.name.startswith("cases_"):
            importlib.import_module(f"{package.__name__}.{mod.name}")
    return CASES


def select_cases(cases: dict[str, Case], only: str | None) -> list[Case]:
    """Cases whose name matches one of the comma-separated names or glob patterns in ``only`` (all if None)."""
    if not only:
        return list(cases.values())
    patterns = [p.strip() for p in only.split(",") if p.strip()]
    unknown = [p for p in patterns if not any(fnmatch.fnmatchcase(name, p) for name in cases)]
    if unknown:
        msg = f"no benchmark case matches {', '.join(map(repr, unknown))}; cases: {', '.join(cases)}"
        raise KeyError(msg)
    return [c for name, c in cases.items() if any(fnmatch.fnmatchcase(name, p) for p in patterns)]


# --- timing ---------------------------------------------------------------------------------------------------


@dataclass
class Timing:
    """Seconds per call of each timed repeat. ``cut_off``: the last call was stopped at its time limit, so its
    time is a lower bound (see :func:`measure`'s ``limit``)."""

    times: list[float] = field(default_factory=list)
    cut_off: bool = False

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def min(self) -> float:
        return min(self.times)

    @property
    def max(self) -> float:
        return max(self.times)

    def as_dict(self) -> dict[str, Any]:
        return {"median_s": self.median, "min_s": self.min, "max_s": self.max, "times_s": list(self.times),
                "cut_off": self.cut_off}  # fmt: skip


#: a case warms up for at least this long (as well as its ``warmup`` calls): a GPU left idle runs its first
#: sub-millisecond calls slower (one warm-up call of 1 ms left groupby(str) 30-75% slow), and a fresh process's first
#: second of read_parquet calls took 24-24.5 ms against 21 ms after it (0.25 s of warm-up was too short)
WARMUP_SECONDS = 1.0


def _no_sync() -> None:
    return None


class _CutOff(BaseException):
    """Raised in the main thread when a call passes its time limit (a BaseException, as KeyboardInterrupt: the
    peer's own ``except Exception`` must not swallow it)."""


def _limited_call(fn: Callable[[], Any], limit: float | None) -> tuple[Any, bool]:
    """``(fn(), False)``, or ``(None, True)`` when ``fn`` ran past ``limit`` seconds and was stopped.

    The stop is a SIGALRM raised as an exception, so it interrupts Python code (NetworkX, scikit-learn's Python
    loops) but waits for a C call that does not return to the interpreter. Without a limit, or off the main
    thread (no signals there), ``fn`` runs to its end.
    """
    if limit is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return fn(), False

    def stop(signum: int, frame: Any) -> None:
        raise _CutOff

    if not 0 < limit < float("inf"):
        msg = f"a time limit must be a positive number of seconds, got {limit!r}"
        raise ValueError(msg)
    previous = signal.getsignal(signal.SIGALRM)
    try:
        signal.signal(signal.SIGALRM, stop)
        signal.setitimer(signal.ITIMER_REAL, limit)
        return fn(), False
    except _CutOff:
        return None, True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def measure(
    fn: Callable[[], Any],
    *,
    repeat: int = 5,
    warmup: int = 1,
    sync: Callable[[], None] = _no_sync,
    calls: int = 1,
    clock: Callable[[], float] = time.perf_counter,
    warmup_seconds: float = WARMUP_SECONDS,
    compiles: bool = False,
    limit: float | None = None,
) -> Timing:
    """Time ``fn``: ``warmup`` untimed calls (more until ``warmup_seconds`` have passed; with ``compiles``, passed
    after the first call, which may compile kernels), then ``repeat`` timed ones, ``sync()`` before each clock read.

    ``limit`` (seconds; for host libraries): a timed call still running then is stopped, its time is recorded as
    ``limit`` and the timing is marked ``cut_off`` (a lower bound); no further calls are made.

    Each time is divided by ``calls`` (for thunks that loop over many small calls). A thunk marked with
    :func:`self_timed` returns its own seconds instead of being clocked.
    """
    if repeat < 1:
        msg = f"`repeat` must be >= 1, got {repeat}"
        raise ValueError(msg)
    own_clock = getattr(fn, "self_timed", False)
    done, started = 0, None if compiles else clock()
    while done < warmup or (done and started is not None and clock() - started < warmup_seconds):
        fn()
        sync()
        done += 1
        if compiles and done == 1:  # the warm-up's seconds count from the end of the compiling call
            started = clock()
    timing = Timing()
    for _ in range(repeat):
        if own_clock:
            seconds = fn()
        else:
            sync()
            start = clock()
            result, cut_off = _limited_call(fn, limit)
            sync()
            seconds = clock() - start  # past the limit when cut off (a C call may overrun it): still a lower bound
            del result  # freed only after the device is done with it
            if cut_off:
                timing.times.append(seconds / calls)
                timing.cut_off = True
                return timing  # no further calls
        timing.times.append(seconds / calls)
    return timing


def measure_copy_rate(nbytes: int, *, repeat: int = 5, warmup: int = 1) -> tuple[float, int, Timing]:
    """Device copy rate in bytes/s: a copy of ``nbytes`` of random float64, read + written, over the median time.

    Returns the rate, the bytes copied and the timing.
    """
    from riptide import _device

    xp = _device.xp()
    n = max(nbytes // 8, 1)
    src = xp.random.random(n)
    dst = xp.empty_like(src)
    timing = measure(lambda: xp.copyto(dst, src), repeat=repeat, warmup=warmup, sync=_device.synchronize)
    return 2 * src.nbytes / timing.median, src.nbytes, timing


# --- running ---------------------------------------------------------------------------------------------------


@dataclass
class CaseResult:
    """One case's outcome: timings or errors per library, plus what is needed to judge them."""

    case: Case
    rows: int
    size: str
    bytes_moved: int | None
    timings: dict[str, Timing] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    check: str | None = None  # "ok", "mismatch: ..." or "error: ..." after --check; None when not checked
    peak_bytes: int | None = None  # riptide's peak memory, for a thunk marked with_footprint
    footprint: tuple[int, str, float | None] | None = None  # (bytes, what they are, goal multiple)

    def peak_ratio(self) -> float | None:
        return self.peak_bytes / self.footprint[0] if self.peak_bytes is not None and self.footprint else None

    def bandwidth(self, library: str = "riptide") -> float | None:
        t = self.timings.get(library)
        return self.bytes_moved / t.median if t and self.bytes_moved else None

    def speedup(self, peer: str) -> float | None:
        """The peer's median over riptide's: a lower bound when the peer was cut off (``Timing.cut_off``)."""
        mine, theirs = self.timings.get("riptide"), self.timings.get(peer)
        return theirs.median / mine.median if mine and theirs and mine.median > 0 else None

    def cut_off(self, lib: str) -> bool:
        t = self.timings.get(lib)
        return bool(t and t.cut_off)

    def goal_met(self) -> bool | None:
        """Whether riptide's median meets the reference goal; None without a goal or at another size."""
        ref, mine = self.case.reference, self.timings.get("riptide")
        if ref is None or mine is None or ref.rows not in (None, self.rows):
            return None
        verdicts = [mine.median <= ref.goal] if ref.goal is not None else []
        for peer, factor in ref.min_speedup:
            ratio = self.speedup(peer)  # a lower bound if the peer was cut off: meeting it meets the goal
            if ratio is None or (ratio < factor and self.cut_off(peer)):
                continue  # a peer not run, or cut off below the goal's ratio, cannot judge the goal
            verdicts.append(ratio >= factor)
        return all(verdicts) if verdicts else None


def available_peers(requested: Iterable[str] = PEERS) -> list[str]:
    """The requested peer libraries that are installed."""
    return [p for p in requested if importlib.util.find_spec(p) is not None]


def run_cases(
    cases: Sequence[Case],
    ctx: Context,
    *,
    libraries: Sequence[str] = ("riptide", *PEERS),
    warmup: int = 1,
    peer_repeat: int | None = None,
    peer_limit: float | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    """Build and time each case with each library; a library that fails is recorded and the run goes on.

    ``peer_repeat`` times each peer that many times with no warm-up (NetworkX's betweenness or scikit-learn's
    HDBSCAN take minutes a call); riptide keeps ``warmup`` and ``ctx.repeat``. ``peer_limit`` stops a peer's
    timed call after that many seconds: its time, and riptide's speed-up over it, are then lower bounds.
    """
    from riptide import _device

    results = []
    for case in cases:
        result = CaseResult(case, ctx.rows, case.size(ctx), None)
        try:
            data = case.data(ctx)
            result.bytes_moved = case.bytes_moved(data)
        except Exception as exc:
            result.errors["setup"] = _describe(exc)
            data = None
        builders = {} if "setup" in result.errors else {lib: getattr(case, lib, None) for lib in libraries}
        for lib, build in builders.items():
            if build is None:
                continue
            sync = _device.synchronize if lib == "riptide" else _no_sync
            try:
                thunk = build(data)
                calls = ctx.calls if case.per_call else 1
                once = lib != "riptide" and (peer_repeat is not None or peer_limit is not None)  # no warm-up
                result.timings[lib] = measure(thunk, repeat=peer_repeat or ctx.repeat if once else ctx.repeat,
                                              warmup=0 if once else warmup, sync=sync, calls=calls,
                                              warmup_seconds=0.0 if once else WARMUP_SECONDS,
                                              compiles=lib == "riptide",
                                              limit=None if lib == "riptide" else peer_limit)  # fmt: skip
            except Exception as exc:  # a gap in one library must not hide the others' figures
                result.errors[lib] = _describe(exc)
            if lib == "riptide" and lib not in result.errors and getattr(thunk, "footprint", None):
                _release_memory()  # the timed runs' blocks go back before a fresh pool measures one more run
                try:
                    result.footprint, result.peak_bytes = thunk.footprint, peak_memory(thunk)
                except Exception as exc:  # the timing stands; the memory figure is reported missing
                    result.errors["memory"] = _describe(exc)
            thunk = None
            _release_memory()
        del data
        _release_memory()
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def _release_memory() -> None:
    gc.collect()
    from riptide import _device

    if _device.is_gpu():
        _device.xp().get_default_memory_pool().free_all_blocks()


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


# --- checking answers against pandas ---------------------------------------------------------------------------


def check_cases(cases: Sequence[Case], ctx: Context) -> dict[str, str]:
    """Run each case that has riptide and pandas code once at ``ctx.rows`` and compare the two answers.

    Returns ``{case name: "ok" | "mismatch: ..." | "error: ..."}``; cases without both, and self-timed ones
    (their thunks return seconds, not answers), are left out.
    """
    results: dict[str, str] = {}
    for case in cases:
        build_mine, build_theirs = getattr(case, "riptide", None), getattr(case, "pandas", None)
        if build_mine is None or build_theirs is None:
            continue
        try:
            data = case.data(ctx)
            theirs_thunk = build_theirs(data)
            if getattr(theirs_thunk, "self_timed", False):
                continue
            theirs = theirs_thunk()
        except Exception as exc:
            results[case.name] = f"error: pandas: {_describe(exc)}"
            continue
        try:
            mine = build_mine(data)()
        except Exception as exc:
            results[case.name] = f"error: riptide: {_describe(exc)}"
            continue
        diff = compare_with_pandas(mine, theirs)
        results[case.name] = "ok" if diff is None else f"mismatch: {diff}"
        del mine, theirs, data
        _release_memory()
    return results


def compare_with_pandas(
    mine: Any, theirs: Any, *, sort_by: int | None = None, rtol: float = 1e-6, atol: float = 1e-9
) -> str | None:
    """None when riptide's answer ``mine`` matches pandas' ``theirs``; else one line saying what differs.

    Row order is not compared: a Series becomes a one-column frame and an index other than the default
    ``RangeIndex`` becomes leading columns (the keys of a groupby with ``as_index=True``); then both are sorted
    by the index columns and the first ``sort_by`` columns (all columns when None). Column labels, dtypes
    and row counts must be equal, floats within ``rtol``/``atol``, missing values missing in both.

    >>> import pandas as pd
    >>> a = pd.DataFrame({"k": [2, 1], "v": [0.5, 1.0]})
    >>> compare_with_pandas(a, a.iloc[::-1].reset_index(drop=True)) is None
    True
    >>> compare_with_pandas(a.astype({"v": "float32"}), a)
    'dtypes differ: v riptide float32, pandas float64'
    """
    import pandas as pd

    mine = _as_host(mine)
    if not isinstance(theirs, pd.DataFrame | pd.Series | pd.Index):
        return _compare_scalars(mine, theirs, rtol=rtol, atol=atol)
    kinds = [next((c.__name__ for c in (pd.DataFrame, pd.Series, pd.Index) if isinstance(v, c)), type(v).__name__)
             for v in (mine, theirs)]
    if kinds[0] != kinds[1]:
        return f"riptide returned a {kinds[0]}, pandas a {kinds[1]}"
    if isinstance(theirs, pd.Series):
        if mine.name != theirs.name:
            return f"names differ: riptide {mine.name!r}, pandas {theirs.name!r}"
        mine, theirs = mine.to_frame(name="values"), theirs.to_frame(name="values")
    elif isinstance(theirs, pd.Index):
        mine, theirs = mine.to_frame(index=False), theirs.to_frame(index=False)
    if list(mine.columns) != list(theirs.columns):
        return f"columns differ: riptide {list(mine.columns)}, pandas {list(theirs.columns)}"
    if len(mine) != len(theirs):
        return f"row counts differ: riptide {len(mine)}, pandas {len(theirs)}"
    a, b = _positional(mine), _positional(theirs)
    n_index = a.shape[1] - mine.shape[1]
    if b.shape[1] - theirs.shape[1] != n_index:
        return f"indexes differ: riptide {type(mine.index).__name__}, pandas {type(theirs.index).__name__}"
    labels = [f"index level {i}" for i in range(n_index)] + [str(c) for c in mine.columns]
    for label, x, y in zip(labels, a.dtypes, b.dtypes):
        if x != y:
            return f"dtypes differ: {label} riptide {x}, pandas {y}"
    keys = list(range(n_index + (mine.shape[1] if sort_by is None else sort_by)))
    a, b = _sorted_rows(a, keys), _sorted_rows(b, keys)
    try:
        pd.testing.assert_frame_equal(a, b, check_dtype=False, check_exact=False, rtol=rtol, atol=atol)
    except AssertionError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        where = lines[0] if lines else ""
        for i, label in enumerate(labels):  # assert_frame_equal names columns by position here
            where = where.replace(f'column name="{i}"', f"column {label!r}")
        shown = [line[:160] for line in lines[1:] if line.startswith(("[left]", "[right]"))]
        return "; ".join([f"values differ (rows sorted): {where}", *shown]).replace("[left]", "riptide").replace(
            "[right]", "pandas"
        )
    return None


def _as_host(value: Any) -> Any:
    """A riptide object as its pandas twin, a device scalar or array as a NumPy one; anything else as is."""
    if type(value).__module__.startswith("riptide") and hasattr(value, "to_pandas"):
        return value.to_pandas()
    if hasattr(value, "get") and type(value).__module__.startswith("cupy"):
        return value.get()
    return value


def _compare_scalars(mine: Any, theirs: Any, *, rtol: float, atol: float) -> str | None:
    try:
        if np.isnan(mine) and np.isnan(theirs):
            return None
        if np.isclose(mine, theirs, rtol=rtol, atol=atol):
            return None
    except TypeError:
        if mine == theirs:
            return None
    return f"values differ: riptide {mine!r}, pandas {theirs!r}"


def _positional(frame: Any) -> Any:
    """The frame's index levels (unless it is the default RangeIndex) and columns, labelled 0, 1, ..."""
    import pandas as pd

    parts = []
    if not (isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0 and frame.index.step == 1):
        parts += [frame.index.get_level_values(i) for i in range(frame.index.nlevels)]
    parts += [frame.iloc[:, i] for i in range(frame.shape[1])]
    return pd.DataFrame({i: pd.Series(p, copy=False).reset_index(drop=True) for i, p in enumerate(parts)})


def _sorted_rows(frame: Any, keys: list[int]) -> Any:
    """Rows sorted by the ``keys`` columns, index reset; categoricals (dtypes compared already) become their
    values: they then sort by value, not code, and compare quickly (pandas compares categoricals slowly)."""
    import pandas as pd

    plain = pd.DataFrame(
        {
            k: col.astype(col.cat.categories.dtype) if isinstance(col.dtype, pd.CategoricalDtype) else col
            for k, col in frame.items()
        }
    )
    return plain.sort_values(keys, kind="stable", na_position="last", ignore_index=True)


# --- the command ------------------------------------------------------------------------------------------------


def run_bench(
    *,
    rows: int | None = None,
    repeat: int = 5,
    warmup: int = 1,
    calls: int = 1000,
    seed: int = 0,
    only: str | None = None,
    peers: Sequence[str] = PEERS,
    json_path: str | None = None,
    out: TextIO | None = None,
    suite: str = "cases",
    na: bool = False,
    check: bool = False,
    check_rows: int | None = None,
    peer_repeat: int | None = None,
    peer_limit: float | None = None,
) -> int:
    """``riptide bench``: time the selected cases with riptide and the installed peers, print a table, write JSON.

    ``suite="dbbench"`` runs :func:`riptide.benchmarks.dbbench.run_dbbench` instead (``na`` applies there
    only). ``peer_repeat`` times each peer that many times, with no warm-up; ``peer_limit`` stops a peer's call
    after that many seconds (cases only; no warm-up then either; its time and the speed-up over it become lower
    bounds). ``check`` first compares riptide's
    answers with pandas' at ``check_rows`` (default ``min(rows, 1e5)``).

    Returns 0, or 1 when some case or library failed or a check found a mismatch (the table and JSON still
    hold the rest).
    """
    from riptide import _device

    if suite not in SUITES:
        msg = f"unknown suite {suite!r}; suites: {', '.join(SUITES)}"
        raise UsageError(msg)
    if suite == "dbbench" and peer_limit is not None:
        msg = "`--peer-limit` applies to the single cases only, not to `--suite dbbench`"
        raise UsageError(msg)
    if suite == "dbbench":
        from riptide.benchmarks import dbbench

        return dbbench.run_dbbench(
            rows=rows,
            na=na,
            repeat=repeat,
            warmup=warmup,
            peer_repeat=peer_repeat,
            seed=seed,
            only=only,
            peers=[p for p in peers if p in ("pandas", "polars")],  # the db-benchmark has solutions in these only
            check=check,
            check_rows=check_rows,
            json_path=json_path,
            out=out,
        )
    if na:
        msg = "`--na` applies to `--suite dbbench` only"
        raise UsageError(msg)

    out = out or sys.stdout
    cases = select_cases(load_cases(), only)
    gpu = _device.is_gpu()
    rows = rows if rows is not None else (GPU_ROWS if gpu else CPU_ROWS)
    ctx = Context(rows=rows, seed=seed, calls=calls, repeat=repeat)
    peers = [p for p in available_peers(peers) if any(getattr(c, p, None) for c in cases)]  # a column if it runs
    info = _device.device_info()

    where = f"gpu ({info.get('gpu')})" if gpu else "cpu (NumPy)"
    print(
        f"riptide bench on {where}: rows {fmt_count(rows)}, median of {repeat} after {warmup} warm-up,"
        f" peers: {', '.join(peers) or 'none'}",
        file=out,
    )
    rate, copied, copy_timing = measure_copy_rate(max(8 * rows, MIN_COPY_BYTES), repeat=repeat, warmup=warmup)
    print(
        f"device copy rate: {rate / 1e9:,.1f} GB/s ({'device-to-device' if gpu else 'NumPy'} copy of"
        f" {copied / 1e6:,.0f} MB, bytes read + written over median {fmt_seconds(copy_timing.median)})",
        file=out,
    )
    _release_memory()

    checks: dict[str, str] = {}
    if check:
        small = Context(rows=min(rows, CHECK_ROWS) if check_rows is None else check_rows, seed=seed, calls=1)
        checks = check_cases(cases, small)
        print_checks(checks, small.rows, out)

    printer = _TablePrinter(out, peers, rate, calls, with_reference=gpu)
    printer.header()
    results = run_cases(cases, ctx, libraries=("riptide", *peers), warmup=warmup, peer_repeat=peer_repeat,
                        peer_limit=peer_limit, on_result=printer.row)  # fmt: skip
    for r in results:
        r.check = checks.get(r.case.name)
    printer.footer(results)

    if json_path:
        report = _report(results, ctx, info, peers, warmup, rate, copied, copy_timing)
        with open(json_path, "w") as f:
            json.dump(report, f, indent=2, default=_json_default)
        print(f"\nwrote {json_path}", file=out)
    failed_checks = any(c != "ok" for c in checks.values())
    return 1 if any(r.errors for r in results) or failed_checks else 0


def print_checks(checks: dict[str, str], rows: int, out: TextIO) -> None:
    """One line for the agreeing cases, one per mismatch or error."""
    agree = [name for name, c in checks.items() if c == "ok"]
    print(f"\ncheck against pandas at {fmt_count(rows)} rows: {len(agree)} of {len(checks)} agree", file=out)
    for name, c in checks.items():
        if c != "ok":
            print(f"  {name}: {c}", file=out)


def list_cases(out: TextIO | None = None, suite: str = "cases") -> None:
    """Print the registered cases (or, for ``suite="dbbench"``, the questions): name and title."""
    out = out or sys.stdout
    if suite == "dbbench":
        from riptide.benchmarks import dbbench

        dbbench.list_questions(out)
        return
    for name, case in load_cases().items():
        print(f"{name:16s} {case.title}", file=out)


def _report(
    results: list[CaseResult],
    ctx: Context,
    info: dict[str, Any],
    peers: list[str],
    warmup: int,
    rate: float,
    copied: int,
    copy_timing: Timing,
) -> dict[str, Any]:
    import riptide

    cases = []
    for r in results:
        libs: dict[str, Any] = {}
        for lib, t in r.timings.items():
            entry = t.as_dict()
            if r.bytes_moved and r.case.bound != "none":
                entry["bytes_per_s"] = r.bytes_moved / t.median
                if r.case.bound == "device":
                    entry["fraction_of_copy_rate"] = r.bytes_moved / t.median / rate
            libs[lib] = entry
        for lib, err in r.errors.items():
            libs[lib] = {"error": err}
        ref = r.case.reference
        cases.append(
            {
                "name": r.case.name,
                "title": r.case.title,
                "size": r.size,
                "calls_per_thunk": ctx.calls if r.case.per_call else 1,
                "bytes_moved": r.bytes_moved,
                "bound": r.case.bound,
                "results": libs,
                "speedup": {p: r.speedup(p) for p in peers if r.speedup(p) is not None},
                "reference": None
                if ref is None
                else {
                    "pandas_s": ref.pandas,
                    "polars_s": ref.polars,
                    "cudf_26_10_s": ref.cudf,
                    "goal_s": ref.goal,
                    "note": ref.note,
                    "rows": ref.rows,
                },
                "goal_met": r.goal_met(),
                "check": r.check,
                "peak_bytes": r.peak_bytes,
                "footprint": None if r.footprint is None else {"bytes": r.footprint[0], "of": r.footprint[1],
                                                               "goal_ratio": r.footprint[2]},
            }
        )
    return {
        "riptide": getattr(riptide, "__version__", None),
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "device": info,
        "settings": {
            "rows": ctx.rows,
            "repeat": ctx.repeat,
            "warmup": warmup,
            "calls": ctx.calls,
            "seed": ctx.seed,
            "peers": peers,
            "suite": "cases",
            "RIPTIDE_DEVICE": os.environ.get("RIPTIDE_DEVICE"),
        },
        "copy_rate": {"bytes_per_s": rate, "bytes_copied": copied, **copy_timing.as_dict()},
        "cases": cases,
    }


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    return str(obj)


# --- the table -------------------------------------------------------------------------------------------------


class _TablePrinter:
    """Prints one row per case as soon as it is measured, so a long run shows progress."""

    def __init__(self, out: TextIO, peers: Sequence[str], rate: float, calls: int, *, with_reference: bool) -> None:
        self.out = out
        self.calls = calls
        self.peers = list(peers)
        self.rate = rate
        self.with_reference = with_reference
        cols = [("case", 22, "<"), ("size", 16, "<"), ("riptide", 9, ">"), ("min..max", 19, ">")]
        cols += [(p, 9, ">") for p in self.peers]
        cols += [(f"vs {p}", 9, ">") for p in self.peers]
        cols += [("GB/s", 8, ">"), ("% copy", 6, ">")]
        if with_reference:
            cols += [("ref pandas", 10, ">"), ("ref polars", 10, ">"), ("cuDF 26.10", 10, ">"), ("goal", 12, ">")]
            cols += [("met", 4, ">")]
        self.cols = cols

    def _line(self, cells: Sequence[str]) -> str:
        return "  ".join(f"{c:{align}{w}}" for c, (_, w, align) in zip(cells, self.cols)).rstrip()

    def header(self) -> None:
        print("", file=self.out)
        print(self._line([name for name, _, _ in self.cols]), file=self.out)
        print("  ".join("-" * w for _, w, _ in self.cols), file=self.out)

    def row(self, r: CaseResult) -> None:
        mine = r.timings.get("riptide")
        cells = [_clip(r.case.title, 22), _clip(r.size, 16), self._time(r, "riptide")]
        cells.append(f"{fmt_seconds(mine.min)}..{fmt_seconds(mine.max)}" if mine else "")
        cells += [self._time(r, p) for p in self.peers]
        cells += [("> " if r.cut_off(p) and r.speedup(p) is not None else "") + _fmt_ratio(r.speedup(p))
                  for p in self.peers]
        bw = r.bandwidth() if r.case.bound != "none" else None
        cells.append(f"{bw / 1e9:,.1f}" if bw else "")
        cells.append(f"{100 * bw / self.rate:.0f}%" if bw and r.case.bound == "device" else "")
        if self.with_reference:
            ref = r.case.reference
            cells += [fmt_seconds(ref.pandas) if ref else ""]
            cells += [fmt_seconds(ref.polars) if ref else ""]
            cells += [fmt_seconds(ref.cudf) if ref else ""]
            cells.append(_goal_text(ref))
            met = r.goal_met()
            cells.append("" if met is None else ("yes" if met else "no"))
        note = f"   (per call, {self.calls:,} calls a run)" if r.case.per_call else ""
        print(self._line(cells) + note, file=self.out)

    def _time(self, r: CaseResult, lib: str) -> str:
        if lib in r.errors or "setup" in r.errors:
            return "error"
        t = r.timings.get(lib)
        return ("> " if t.cut_off else "") + fmt_seconds(t.median) if t else "-"

    def footer(self, results: list[CaseResult]) -> None:
        errors = [(r.case.name, lib, e) for r in results for lib, e in r.errors.items()]
        notes = [(r.case.name, r.case.reference.note) for r in results if r.case.reference and r.case.reference.note]
        if self.with_reference:
            print(
                "\nreference: the issues' pandas, polars and cuDF 26.10 figures, one H200, at --rows 1e8 where a size"
                " applies; `met` compares riptide's median with the goal at that size only",
                file=self.out,
            )
            if notes:
                print("goals also ask: " + "; ".join(f"{name}: {note}" for name, note in notes), file=self.out)
        peaks = [r for r in results if r.peak_ratio() is not None]
        if peaks:
            print("\npeak memory (riptide, beyond what was live before the call):", file=self.out)
            for r in peaks:
                nbytes, what, goal = r.footprint
                verdict = "" if goal is None else f" (goal <= {goal:g}x: {'yes' if r.peak_ratio() <= goal else 'no'})"
                print(f"  {r.case.name}: {r.peak_bytes / 1e6:,.0f} MB = {r.peak_ratio():.2f}x the {what}"
                      f" ({nbytes / 1e6:,.0f} MB){verdict}", file=self.out)  # fmt: skip
        if errors:
            print("\nerrors:", file=self.out)
            for name, lib, e in errors:
                print(f"  {name} [{lib}]: {e}", file=self.out)


# --- formatting ------------------------------------------------------------------------------------------------


def _goal_text(ref: Reference | None) -> str:
    """The goal column: a time, and/or the smallest speedup over a peer (``100x pd``)."""
    if ref is None:
        return ""
    parts = [fmt_seconds(ref.goal)] if ref.goal else []
    short = {"pandas": "pd", "polars": "pl", "sklearn": "sk", "networkx": "nx"}
    parts += [f"{factor:g}x {short.get(peer, peer)}" for peer, factor in ref.min_speedup]
    return ",".join(parts)


def fmt_seconds(s: float | None) -> str:
    """``0.00021`` -> ``210 us``, ``0.0123`` -> ``12.3 ms``, ``2.5`` -> ``2.50 s``."""
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{_sig3(s * 1e6)} us"
    if s < 1.0:
        return f"{_sig3(s * 1e3)} ms"
    return f"{s:.2f} s"


def _sig3(x: float) -> str:
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def fmt_count(n: int) -> str:
    """``100_000_000`` -> ``1e8``; counts that are not a power of ten keep their digits: ``123,456``."""
    if n >= 10 and 10 ** (len(str(n)) - 1) == n:
        return f"1e{len(str(n)) - 1}"
    return f"{n:,}"


def _fmt_ratio(x: float | None) -> str:
    return "" if x is None else f"{x:,.1f}x"


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "~"
