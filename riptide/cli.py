"""The ``riptide`` command: ``riptide info``, ``riptide demo`` and ``riptide bench``.

Each command imports what it needs when it runs, so ``riptide --help`` stays quick.

    riptide info                      # device, GPU, memory, versions
    riptide demo --rows 1e6           # trips pipeline, riptide vs pandas
    riptide demo --distributed        # its clean, join and groupby stages on a Dask cluster (riptide.dask)
    riptide bench --only 'sum,filter' --json bench.json
    riptide bench --suite dbbench --rows 1e8 --check --peers polars   # db-benchmark groupby + join
    riptide bench --distributed --workers 1,2,4 --check               # Dask: groupby, join, SVD scaling
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main", "build_parser", "parse_count"]


def parse_count(text: str) -> int:
    """A non-negative row count written ``1000000``, ``1_000_000`` or ``1e6``."""
    try:
        value = float(text) if any(c in text for c in ".eE") else int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a count: {text!r} (write e.g. 1000000, 1_000_000 or 1e6)") from None
    if value < 0 or value != int(value):
        raise argparse.ArgumentTypeError(f"a count must be a whole number >= 0, got {text!r}")
    return int(value)


def _positive(text: str) -> int:
    value = parse_count(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text!r}")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``riptide`` command."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--device",
        choices=("auto", "gpu", "cpu"),
        help="where riptide runs (default: $RIPTIDE_DEVICE, else auto: the GPU when CuPy finds one)",
    )

    parser = argparse.ArgumentParser(
        prog="riptide",
        description="riptide: the pandas API on the GPU (CuPy), with a NumPy fallback on the CPU.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    info = commands.add_parser("info", parents=[common], help="show the device, GPU, memory and versions")
    info.add_argument("--json", action="store_true", help="print the raw device_info() as JSON")
    info.set_defaults(run=_info)

    demo = commands.add_parser(
        "demo",
        parents=[common],
        help="clean a generated trips table with riptide and pandas; compare results and timings",
    )
    demo.add_argument("--rows", type=parse_count, default=10_000_000, help="trips to generate (default: 1e7)")
    demo.add_argument("--seed", type=int, default=0, help="random seed of the generated data (default: 0)")
    demo.add_argument("--no-pandas", action="store_true", help="run riptide only: no pandas timings, no check")
    demo.add_argument("--no-progress", action="store_true", help="never draw the progress bar on stderr")
    demo.add_argument(
        "--distributed",
        action="store_true",
        help="run the clean, join and groupby stages on a local Dask cluster of riptide workers (riptide.dask; one"
        " worker per GPU with dask-cuda), checked and timed against pandas",
    )
    demo.add_argument(
        "--workers",
        type=_positive,
        help="--distributed: GPUs (one worker each) or CPU worker processes (default: all GPUs; CPU: up to 4)",
    )
    demo.set_defaults(run=_demo)

    bench = commands.add_parser(
        "bench",
        parents=[common],
        help="time riptide against pandas and polars (benchmarks, not tests)",
        description="Time riptide against pandas and polars; report speed-ups and bandwidth"
        " against the device copy rate. `--suite dbbench` runs the db-benchmark groupby and join questions.",
    )
    bench.add_argument(
        "--suite",
        choices=("cases", "dbbench"),
        default="cases",
        help="cases: the single-operation cases (default); dbbench: the db-benchmark groupby q1-q10 and join q1-q5",
    )
    bench.add_argument(
        "--rows",
        type=parse_count,
        help="rows per case, e.g. 1e7 (default: 1e8 on a GPU, 1e7 on the CPU; dbbench: 1e7 on a GPU, 1e6 on the CPU)",
    )
    bench.add_argument("--repeat", type=_positive, default=5, help="timed runs per case, median reported (default: 5)")
    bench.add_argument("--warmup", type=parse_count, default=1, help="untimed runs before timing (default: 1)")
    bench.add_argument("--calls", type=_positive, default=1000, help="calls per run of per-call cases (default: 1000)")
    bench.add_argument("--seed", type=int, default=0, help="random seed of the data (default: 0)")
    bench.add_argument(
        "--only",
        metavar="CASES",
        help="comma-separated case (or dbbench question) names or globs, e.g. 'sum,*_pandas' or 'groupby_q*,join_q5'",
    )
    bench.add_argument("--na", action="store_true", help="dbbench: the data with 5%% missing values (G1_..._5_0)")
    bench.add_argument(
        "--check",
        action="store_true",
        help="first compare riptide's answers with pandas' on a small size and report mismatches; with"
        " --distributed: check each groupby answer against an exact oracle on the workers (svd answers are always"
        " checked) and print 'right answer: yes/no'",
    )
    bench.add_argument(
        "--check-rows", type=_positive, metavar="ROWS", help="the size --check runs at (default: min(rows, 1e5))"
    )
    bench.add_argument(
        "--peer-repeat",
        type=_positive,
        metavar="N",
        help="timed runs of each peer per case or question, no warm-up (dbbench default: 1, as pandas takes minutes at"
        " 1e8; cases default: --repeat after --warmup)",
    )
    bench.add_argument(
        "--peer-limit",
        type=_positive_seconds,
        metavar="SECONDS",
        help="cases: no warm-up for peers, and stop a peer's timed call after SECONDS; its time and the speed-up over"
        " it are then lower bounds, shown with '>' (NetworkX's triangles on 1e7 edges runs for hours)",
    )
    bench.add_argument(
        "--peers", default="pandas,polars,sklearn,networkx",
        help="libraries to compare with, if installed (default: pandas,polars,sklearn,networkx; each case runs those"
        " it has)"
    )
    bench.add_argument("--distributed", action="store_true",
                       help="db-benchmark groupby/join and a tall-and-skinny SVD on Dask clusters of 1, 2, 4..."
                       " workers (riptide.dask); --rows sizes the groupby/join tables (default: 4e8 on GPUs, 2e6 on"
                       " the CPU)")  # fmt: skip
    bench.add_argument("--workers", help="--distributed: comma-separated worker counts (default: 1,2,4 up to the GPUs)")
    bench.add_argument("--device-memory-limit", default="default",
                       help="--distributed: per-worker device memory before spilling, e.g. 8GB")
    bench.add_argument("--svd-rows", type=_positive, metavar="ROWS",
                       help="--distributed: rows of the SVD's float32 array (default: 2e7 on GPUs, 2e5 on the CPU)")
    bench.add_argument("--svd-cols", type=_positive, metavar="COLS",
                       help="--distributed: columns of the SVD's array (default: 1000 on GPUs, 100 on the CPU)")
    bench.add_argument("--baseline", action="store_true", help="--distributed: also time riptide without Dask")
    bench.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    bench.add_argument("--list", action="store_true", help="list the cases and exit")
    bench.set_defaults(run=_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``riptide`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    args = build_parser().parse_args(argv)
    if args.device:
        from riptide import _config

        _config.set_option("device", args.device)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


# --- commands ---------------------------------------------------------------------------------------------------


def _info(args: argparse.Namespace) -> int:
    from riptide import _device

    info = _device.device_info()
    if args.json:
        import json

        print(json.dumps(info, indent=2, default=str))
    else:
        print(format_info(info))
    return 0


def _demo(args: argparse.Namespace) -> int:
    if args.workers is not None and not args.distributed:
        print("riptide demo: error: --workers goes with --distributed", file=sys.stderr)
        return 2
    if args.distributed:
        from riptide.demo.distributed import MissingDask, run_distributed_demo

        try:
            return run_distributed_demo(args.rows, workers=args.workers, seed=args.seed,
                                        with_pandas=not args.no_pandas,
                                        progress=False if args.no_progress else None)  # fmt: skip
        except (MissingDask, ValueError) as exc:
            print(f"riptide demo: error: {exc}", file=sys.stderr)
            return 2
    from riptide.demo import run_demo

    return run_demo(
        args.rows,
        seed=args.seed,
        with_pandas=not args.no_pandas,
        progress=False if args.no_progress else None,
    )


def _bench(args: argparse.Namespace) -> int:
    if args.distributed:
        from riptide.benchmarks.distributed import run_distributed

        try:
            workers = [_positive(w.strip()) for w in args.workers.split(",")] if args.workers else None
        except argparse.ArgumentTypeError as exc:
            print(f"riptide bench: error: --workers: {exc}", file=sys.stderr)
            return 2
        try:
            result = run_distributed(args.rows, workers=workers, repeat=args.repeat, seed=args.seed, only=args.only,
                                     device_memory_limit=args.device_memory_limit, baseline=args.baseline,
                                     check=args.check, svd_rows=args.svd_rows, svd_cols=args.svd_cols,
                                     json_path=args.json)  # fmt: skip
        except KeyError as exc:  # --only matched nothing
            print(f"riptide bench: error: {exc.args[0]}", file=sys.stderr)
            return 2
        return 1 if result.errors or result.right is False else 0
    from riptide.benchmarks import harness

    if args.list:
        harness.list_cases(suite=args.suite)
        return 0
    try:
        return harness.run_bench(
            rows=args.rows,
            repeat=args.repeat,
            warmup=args.warmup,
            calls=args.calls,
            seed=args.seed,
            only=args.only,
            peers=[p.strip() for p in args.peers.split(",") if p.strip()],
            json_path=args.json,
            suite=args.suite,
            na=args.na,
            check=args.check,
            check_rows=args.check_rows,
            peer_repeat=args.peer_repeat,
            peer_limit=args.peer_limit,
        )
    except (KeyError, harness.UsageError) as exc:  # --only matched nothing; an option that does not apply
        print(f"riptide bench: error: {exc.args[0]}", file=sys.stderr)
        return 2


# --- info formatting -----------------------------------------------------------------------------------------------


def format_info(info: dict[str, Any]) -> str:
    """``device_info()`` as aligned lines: riptide and Python, device, GPU, memory, CUDA, library versions."""
    import platform

    shown = {"device", "device_option"}
    lines = [("riptide", f"{_riptide_version()} (Python {platform.python_version()}, {platform.platform(terse=True)})")]
    lines.append(("device", f"{info.get('device')} (option: {info.get('device_option')})"))
    if info.get("gpu"):
        gpu = str(info["gpu"])
        if info.get("compute_capability"):
            gpu += f", compute capability {info['compute_capability']}"
        if info.get("gpu_count"):
            gpu += f", {info['gpu_count']} device(s) visible"
        lines.append(("gpu", gpu))
        if "memory_total_bytes" in info:
            limit = info.get("memory_limit")
            lines.append(
                (
                    "memory",
                    f"{_gib(info['memory_total_bytes'])} total, {_gib(info.get('memory_free_bytes'))} free,"
                    f" pool limit {_gib(limit) if limit else 'none'}",
                )
            )
        if "cuda_runtime" in info:
            runtime, driver = _cuda_version(info["cuda_runtime"]), _cuda_version(info.get("cuda_driver"))
            lines.append(("cuda", f"runtime {runtime}, driver {driver}"))
        shown |= {"gpu", "compute_capability", "gpu_count", "memory_total_bytes", "memory_free_bytes", "memory_limit"}
        shown |= {"cuda_runtime", "cuda_driver"}
    else:
        lines.append(("gpu", f"none: {info.get('why_no_gpu') or 'not requested'}"))
        shown |= {"gpu", "why_no_gpu"}
    libraries = [k for k in ("numpy", "pandas", "pyarrow", "cupy") if info.get(k)]
    lines.append(("versions", ", ".join(f"{k} {info[k]}" for k in libraries)))
    shown |= set(libraries)
    lines += [(k, str(v)) for k, v in info.items() if k not in shown]
    width = max(len(k) for k, _ in lines)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in lines)


def _riptide_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("riptide")
    except metadata.PackageNotFoundError:
        import riptide

        return str(getattr(riptide, "__version__", "(version unknown)"))


def _gib(n: Any) -> str:
    return "?" if n is None else f"{n / 2**30:,.1f} GiB"


def _cuda_version(v: Any) -> str:
    """CUDA's integer version (13000) as ``13.0``."""
    if not isinstance(v, int):
        return str(v)
    return f"{v // 1000}.{(v % 1000) // 10}"


if __name__ == "__main__":
    sys.exit(main())
