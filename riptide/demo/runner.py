"""Run the demo pipeline with riptide and with pandas, time each step, check they agree, print a report."""

from __future__ import annotations

import contextlib
import math
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TextIO

import numpy as np

from riptide.benchmarks.harness import fmt_seconds
from riptide.demo.data import make_trips, write_trip_files
from riptide.demo.pipeline import STEPS, Step, Trips
from riptide.demo.progress import Progress

__all__ = ["run_demo", "run_pipeline", "PipelineRun", "compare", "compare_graph"]

WARMUP_ROWS = 10_000
RTOL = 1e-9


@dataclass
class PipelineRun:
    """One library's pass over the steps: per-step seconds, the final state, and the first failure if any."""

    library: str
    trips: Trips
    seconds: dict[str, float] = field(default_factory=dict)
    failed_step: str | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def run_pipeline(
    lib: ModuleType,
    source: dict[str, np.ndarray],
    steps: Sequence[Step] = STEPS,
    *,
    library: str | None = None,
    sync: Callable[[], None] = lambda: None,
    progress: Progress | None = None,
    files: dict[str, str] | None = None,
) -> PipelineRun:
    """Run ``steps`` in order with ``lib``; ``sync`` is called before each clock read.

    ``files`` are ``source`` already written as CSV and Parquet (:func:`write_trip_files`); without them they are
    written to a temporary directory first, untimed. A step that raises ends the run: the error and the step are
    recorded, the remaining steps are not run.
    """
    with tempfile.TemporaryDirectory(prefix="riptide-demo-") as workdir:
        return _run_steps(lib, source, steps, library or lib.__name__, sync, progress,
                          files or write_trip_files(source, workdir), workdir)  # fmt: skip


def _run_steps(lib: ModuleType, source: dict[str, np.ndarray], steps: Sequence[Step], library: str,
               sync: Callable[[], None], progress: Progress | None, files: dict[str, str], workdir: str
               ) -> PipelineRun:  # fmt: skip
    run = PipelineRun(library, Trips(source, files=files, workdir=workdir))
    for s in steps:
        with progress.step(f"{library}: {s.name}") if progress else contextlib.nullcontext():
            sync()
            start = time.perf_counter()
            try:
                s.run(lib, run.trips)
                sync()
            except Exception as exc:  # reported, not raised: the other library's run still tells something
                run.failed_step, run.error = s.name, exc
                return run
            run.seconds[s.name] = time.perf_counter() - start
    return run


def run_demo(
    rows: int = 10_000_000,
    *,
    seed: int = 0,
    with_pandas: bool = True,
    progress: bool | None = None,
    out: TextIO | None = None,
) -> int:
    """Generate ``rows`` trips, run the pipeline with riptide (and pandas), print the report; return an exit code.

    The exit code is 0 when every step ran and riptide agrees with pandas, else 1.
    """
    import pandas

    import riptide
    from riptide import _device

    out = out or sys.stdout
    steps = list(STEPS)
    libraries: list[tuple[str, ModuleType, Callable[[], None]]] = [("riptide", riptide, _device.synchronize)]
    if with_pandas:
        libraries.append(("pandas", pandas, lambda: None))

    print(f"riptide demo: {rows:,} trips on {_device_label(_device)}, seed {seed}", file=out)
    bar = Progress(total=1 + len(libraries) * (len(steps) + 1), enabled=progress)

    with tempfile.TemporaryDirectory(prefix="riptide-demo-") as directory:
        with bar.step("generate trips (NumPy, host), write CSV and Parquet"):
            start = time.perf_counter()
            source = make_trips(rows, seed=seed)
            files = write_trip_files(source, directory)
            generate_s = time.perf_counter() - start
        print(f"generated {rows:,} trips on the host, written as CSV and Parquet, in {fmt_seconds(generate_s)}",
              file=out)  # fmt: skip

        runs: dict[str, PipelineRun] = {}
        for name, lib, sync in libraries:
            # a small warm-up pass first, so first-call costs (kernel compilation, imports) stay out of the timings
            with bar.step(f"{name}: warm-up"):
                run_pipeline(lib, _head(source, WARMUP_ROWS), steps, library=name, sync=sync)
            runs[name] = run_pipeline(lib, source, steps, library=name, sync=sync, progress=bar, files=files)

    mine = runs["riptide"]
    theirs = runs.get("pandas")
    _print_results(mine, theirs, out)
    _print_timings(steps, runs, min(rows, WARMUP_ROWS), out)
    return _print_verdict(mine, theirs, out)


# --- checking -------------------------------------------------------------------------------------------------


def compare(mine: Trips, theirs: Trips, rtol: float = RTOL) -> list[str]:
    """Differences between riptide's and pandas' results (frame, summary, describe); empty when they agree."""
    import pandas

    problems = []
    frames = [("result frame", mine.df, theirs.df), ("describe()", mine.describe, theirs.describe)]
    frames += [(f"report {name!r}", mine.reports.get(name), want) for name, want in theirs.reports.items()]
    for what, left, right in frames:
        try:
            pandas.testing.assert_frame_equal(_to_pandas(left), right, check_exact=False, rtol=rtol, atol=0.0)
        except AssertionError as exc:
            problems.append(f"{what}: {_first_lines(str(exc), 6)}")
    for key, want in theirs.summary.items():
        got = mine.summary.get(key)
        if not _close(got, want, rtol):
            problems.append(f"summary {key!r}: riptide {got!r}, pandas {want!r}")
    if theirs.graph:
        problems += compare_graph(mine.graph, theirs.graph, rtol)
    return problems


PAGERANK_TOL = 1e-6  # NetworkX's pagerank default: it stops once the L1 change is below n * tol
MODULARITY_MARGIN = 0.01


def compare_graph(mine: dict[str, Any], theirs: dict[str, Any], rtol: float = RTOL) -> list[str]:
    """Differences between riptide.graph's and NetworkX's results of the demo's graph stage; empty when they agree.

    Each result is held to what the two algorithms promise: PageRank vectors within NetworkX's stopping tolerance
    (L1 distance <= n * 1e-6; both run the same iteration), shortest path lengths equal to ``rtol`` over the same
    zones, and communities by their quality, not their labels (Louvain's answer depends on its visiting order,
    sequential and shuffled in NetworkX, parallel sweeps in riptide): riptide's modularity at least NetworkX's
    minus 0.01, and every zone in exactly one community.

    >>> compare_graph({"pagerank": {1: 0.5, 2: 0.5}}, {"pagerank": {1: 0.5, 2: 0.5}})
    []
    >>> compare_graph({"modularity": 0.2}, {"modularity": 0.4})
    ['graph: modularity of the communities: riptide 0.2, NetworkX 0.4 (allowed: >= NetworkX - 0.01)']
    """
    if not mine:
        return ["graph: riptide has no graph results (NetworkX has)"]
    problems = []
    if "pagerank" in theirs:
        got, want = _by_node(mine.get("pagerank")), _by_node(theirs["pagerank"])
        if set(got) != set(want):
            problems.append(f"graph: PageRank ranks {len(got)} zones, NetworkX {len(want)}")
        else:
            l1 = sum(abs(got[k] - want[k]) for k in want)
            if not l1 <= len(want) * PAGERANK_TOL:
                problems.append(f"graph: PageRank differs by {l1:.3g} (L1), allowed {len(want) * PAGERANK_TOL:.3g}")
    if "minutes" in theirs:
        got, want = _by_node(mine.get("minutes")), _by_node(theirs["minutes"])
        if set(got) != set(want):
            problems.append(f"graph: shortest paths reach {len(got)} zones, NetworkX's {len(want)}")
        else:
            wrong = [k for k in want if not math.isclose(got[k], want[k], rel_tol=rtol, abs_tol=0.0)]
            if wrong:
                k = wrong[0]
                problems.append(f"graph: shortest path lengths differ at {len(wrong)} zones, e.g. zone {k}:"
                                f" riptide {got[k]!r}, NetworkX {want[k]!r}")  # fmt: skip
    if "communities" in theirs:
        zones = [int(z) for c in mine.get("communities", []) for z in c]
        expected = {int(z) for c in theirs["communities"] for z in c}
        if len(zones) != len(set(zones)) or set(zones) != expected:
            problems.append("graph: riptide's communities are not a partition of the zones")
    if "modularity" in theirs:
        got, want = mine.get("modularity", math.nan), theirs["modularity"]
        if not got >= want - MODULARITY_MARGIN:
            problems.append(f"graph: modularity of the communities: riptide {got!r}, NetworkX {want!r}"
                            f" (allowed: >= NetworkX - {MODULARITY_MARGIN:g})")  # fmt: skip
    return problems


def _by_node(result: Any) -> dict[int, float]:
    """A node -> value result as a plain dict of Python ints and floats."""
    return {int(k): float(v) for k, v in dict(result or {}).items()}


def _close(got: Any, want: Any, rtol: float) -> bool:
    try:
        got, want = float(got), float(want)
    except (TypeError, ValueError):
        return False
    return (math.isnan(got) and math.isnan(want)) or math.isclose(got, want, rel_tol=rtol, abs_tol=0.0)


def _to_pandas(obj: Any) -> Any:
    return obj.to_pandas() if hasattr(obj, "to_pandas") else obj


# --- report ---------------------------------------------------------------------------------------------------


def _print_results(mine: PipelineRun, theirs: PipelineRun | None, out: TextIO) -> None:
    for run in (mine, theirs):
        if run is not None and not run.ok:
            error = f"{type(run.error).__name__}: {run.error}"
            print(f"\n{run.library} failed at step {run.failed_step!r}: {error}", file=out)
    shown = mine if mine.ok else theirs
    if shown is None or not shown.ok:
        return
    df = shown.trips.df
    print(f"\nresult ({shown.library}): {len(df):,} rows x {len(df.columns)} columns", file=out)
    print(df.head(), file=out)

    print("\nsummary", file=out)
    keys = list(shown.trips.summary)
    header = [""] + [r.library for r in (mine, theirs) if r is not None and r.ok]
    table = [header]
    for key in keys:
        table.append([key] + [_fmt_value(r.trips.summary[key]) for r in (mine, theirs) if r is not None and r.ok])
    _print_table(table, out)

    for name, report in shown.trips.reports.items():
        print(f"\n{name} ({shown.library})", file=out)
        print(report, file=out)

    print(f"\ndescribe() ({shown.library})", file=out)
    print(shown.trips.describe, file=out)
    _print_graph([r for r in (mine, theirs) if r is not None and r.ok], out)
    for name, why in shown.trips.skipped.items():
        print(f"\nstep {name!r} skipped: {why}", file=out)


def _print_graph(runs: list[PipelineRun], out: TextIO) -> None:
    """The graph stage's figures side by side: riptide.graph's and NetworkX's."""
    runs = [r for r in runs if r.trips.graph]
    if not runs:
        return
    source = runs[0].trips.graph["source"]
    print("\nzone graph (riptide: riptide.graph, pandas: NetworkX)", file=out)
    table = [[""] + [r.library for r in runs]]
    for label, value in (
        ("top PageRank zones", lambda g: ", ".join(str(int(k)) for k, _ in _top(g["pagerank"], 5))),
        ("top PageRank", lambda g: f"{_top(g['pagerank'], 1)[0][1]:.6f}"),
        ("Louvain communities (seed 42)", lambda g: str(len(g["communities"]))),
        ("largest community (zones)", lambda g: str(max(len(c) for c in g["communities"]))),
        ("modularity", lambda g: f"{g['modularity']:.4f}"),
        (f"zones reached from zone {source}", lambda g: str(len(g["minutes"]))),
        ("farthest zone (minutes)", lambda g: "{}: {:.2f}".format(*_top(g["minutes"], 1)[0])),
    ):
        table.append([label] + [value(r.trips.graph) for r in runs])
    _print_table(table, out)


def _top(result: Any, n: int) -> list[tuple[int, float]]:
    """The ``n`` largest values of a node -> value result, ties by smaller node id."""
    return sorted(_by_node(result).items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def _print_timings(steps: Sequence[Step], runs: dict[str, PipelineRun], warmup_rows: int, out: TextIO) -> None:
    names = list(runs)
    print(f"\ntimings (device synchronized; one run, after a warm-up on {warmup_rows:,} rows)", file=out)
    table = [["step", "what"] + names + (["speed-up"] if "pandas" in runs else [])]
    for s in steps:
        if any(s.name in runs[n].trips.skipped for n in names):  # nothing ran: no time, no ratio
            table.append([s.name, "(skipped, see above)"] + ["-"] * (len(table[0]) - 2))
            continue
        row = [s.name, _shorten(s.doc, 50)] + [fmt_seconds(runs[n].seconds.get(s.name)) for n in names]
        if "pandas" in runs:
            row.append(_fmt_speedup(runs["pandas"].seconds.get(s.name), runs["riptide"].seconds.get(s.name)))
        table.append(row)
    totals = {n: sum(runs[n].seconds.values()) if runs[n].ok else None for n in names}
    row = ["total", ""] + [fmt_seconds(totals[n]) for n in names]
    if "pandas" in runs:
        row.append(_fmt_speedup(totals["pandas"], totals["riptide"]))
    table.append(row)
    _print_table(table, out, left=2, rule_before_last=True)


def _print_verdict(mine: PipelineRun, theirs: PipelineRun | None, out: TextIO) -> int:
    if not mine.ok or (theirs is not None and not theirs.ok):
        print("\ncheck: not compared, a pipeline failed (see above)", file=out)
        return 1
    if theirs is None:
        print("\ncheck: skipped (--no-pandas)", file=out)
        return 0
    problems = compare(mine.trips, theirs.trips)
    if problems:
        print("\ncheck: riptide and pandas DISAGREE", file=out)
        for p in problems:
            print("  - " + p.replace("\n", "\n    "), file=out)
        return 1
    df = theirs.trips.df
    graph = ", the zone graph against NetworkX" if theirs.trips.graph else ""
    print(
        f"\ncheck: riptide and pandas agree ({len(df):,} rows x {len(df.columns)} columns, summary and describe(),"
        f" rtol {RTOL:g}{graph})",
        file=out,
    )
    return 0


def _print_table(rows: list[list[str]], out: TextIO, *, left: int = 1, rule_before_last: bool = False) -> None:
    """Print ``rows`` (the first is the header) as columns: the first ``left`` aligned left, the rest right."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]

    def line(r: list[str]) -> str:
        return "  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()

    print(line(rows[0]), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for i, r in enumerate(rows[1:], start=1):
        if rule_before_last and i == len(rows) - 1:
            print("  ".join("-" * w for w in widths), file=out)
        print(line(r), file=out)


# --- small helpers --------------------------------------------------------------------------------------------


def _device_label(device: ModuleType) -> str:
    info = device.device_info()
    if info["device"] == "gpu":
        return f"gpu ({info.get('gpu')})"
    return "cpu (NumPy)"


def _head(source: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    return {k: v[:n] for k, v in source.items()}


def _fmt_speedup(slow: float | None, fast: float | None) -> str:
    if slow is None or not fast:
        return "-"
    return f"{slow / fast:.1f}x"


def _fmt_value(v: Any) -> str:
    if isinstance(v, bool | np.bool_):
        return str(bool(v))
    if isinstance(v, int | np.integer):
        return f"{int(v):,}"
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if f.is_integer() and abs(f) < 1e15:
        return f"{f:,.0f}"
    return f"{f:,.2f}" if abs(f) >= 100 else f"{f:,.4f}"


def _shorten(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 3].rstrip() + "..."


def _first_lines(text: str, n: int) -> str:
    lines = text.strip().splitlines()
    return "\n".join(lines[:n] + (["..."] if len(lines) > n else []))
