"""Time every host<->device strategy of :mod:`riptide._transfer` on this GPU.

Run on a GPU host::

    python -m riptide.benchmarks.transfer_probe            # about 30 s on an H200
    python -m riptide.benchmarks.transfer_probe --sweep    # also n_threads x chunk_bytes (slower)

A "frame" is two float64 columns of random values (never zeros): 2 x 1e8 rows
(1.6 GB, the from_pandas / to_pandas goal: <= 80 ms to the device, <= 150 ms
back) and 2 x 4e6 rows (64 MB). Each strategy moves both columns, one after
the other, as from_pandas / to_pandas would. For each we report the first
call after the pinned buffers were freed ("first": includes cudaHostAlloc and
page faults) and the median of ``--repeats`` calls after a warm-up, with the
device synchronized before the clock is read. Every result is checked
against its source.

Also measured: the raw device-to-device copy rate (bytes read + written), the
cost of allocating pinned memory, and host memcpy rates (one thread and all
transfer threads), which bound what the staged strategies can reach.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from riptide import _transfer

GB = 1e9

# Settings under which a strategy is shown in the main table when the defaults
# (tuned for ``staged_threads``) do not suit it: the single-stream ``staged``
# pipeline pays a thread hand-off per chunk, so it wants big chunks.
_BEST_SETTINGS: dict[str, dict[str, int]] = {"staged": {"chunk_bytes": 32 << 20}}


def _sync(cupy: Any) -> None:
    cupy.cuda.Device().synchronize()


def _free_pinned(cupy: Any) -> None:
    """Drop every cached pinned block, ours and CuPy's, so the next call pays for its allocations."""
    _transfer.release_pinned_memory()
    cupy.get_default_pinned_memory_pool().free_all_blocks()


def _timed(cupy: Any, fn: Callable[[], Any]) -> tuple[float, Any]:
    _sync(cupy)
    t0 = time.perf_counter()
    result = fn()
    _sync(cupy)
    return time.perf_counter() - t0, result


def _measure(cupy: Any, fn: Callable[[], Any], check: Callable[[Any], bool], repeats: int) -> dict[str, float]:
    """First call (cold pinned memory), one warm-up, then the median of ``repeats``."""
    _free_pinned(cupy)
    first, result = _timed(cupy, fn)
    if not check(result):
        raise AssertionError("transfer produced wrong data")
    del result
    _timed(cupy, fn)  # warm-up
    times = []
    for _ in range(repeats):
        t, result = _timed(cupy, fn)
        times.append(t)
        del result  # freed before the next call, as a program that drops its copies would
    return {"first_ms": first * 1e3, "median_ms": statistics.median(times) * 1e3, "min_ms": min(times) * 1e3}


def _frame_rows(cupy: Any, label: str, host_cols: list[np.ndarray], dev_cols: list[Any], repeats: int, rows: list[dict], extra: dict | None = None) -> None:
    nbytes = sum(c.nbytes for c in host_cols)

    def same_on_device(results: list[Any]) -> bool:
        return all(bool(cupy.array_equal(r, d)) for r, d in zip(results, dev_cols, strict=True))

    def same_on_host(results: list[np.ndarray]) -> bool:
        return all(np.array_equal(r, h) for r, h in zip(results, host_cols, strict=True))

    entries: list[tuple[str, str, Callable[[], Any], Callable[[Any], bool]]] = []
    for name, fn in _transfer.H2D_STRATEGIES.items():
        entries.append(("h2d", name, lambda fn=fn: [fn(c) for c in host_cols], same_on_device))
    entries.append(("h2d", "default", lambda: [_transfer.host_to_device(c) for c in host_cols], same_on_device))
    for name, fn in _transfer.D2H_STRATEGIES.items():
        entries.append(("d2h", name, lambda fn=fn: [fn(c) for c in dev_cols], same_on_host))
    entries.append(("d2h", "default", lambda: [_transfer.device_to_host(c) for c in dev_cols], same_on_host))

    for direction, name, fn, check in entries:
        overrides = _BEST_SETTINGS.get(name, {})
        if name == "default":
            name = f"default={getattr(_transfer.get_settings(), direction)}"
        elif overrides:
            name += "[" + ",".join(f"{k}={v >> 20}MiB" if k.endswith("bytes") else f"{k}={v}" for k, v in overrides.items()) + "]"
        with _transfer.settings(**overrides):
            stats = _measure(cupy, fn, check, repeats)
        row = {"direction": direction, "strategy": name, "size": label, "bytes": nbytes, **stats, **(extra or {})}
        row["GB/s"] = nbytes / GB / (stats["median_ms"] / 1e3)
        rows.append(row)
        print(f"  {direction} {name:<24} {label:>7} {stats['median_ms']:8.1f} ms {row['GB/s']:6.1f} GB/s  (first {stats['first_ms']:.0f} ms)", flush=True)


def _device_copy_rate(cupy: Any, nbytes: int, repeats: int) -> dict[str, float]:
    x = cupy.random.random(nbytes // 8, dtype=cupy.float64)
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for i in range(repeats + 2):
        start.record()
        y = x.copy()
        stop.record()
        stop.synchronize()
        if i >= 2:  # two warm-ups
            times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
        del y
    t = statistics.median(times)
    return {"bytes": x.nbytes, "median_ms": t * 1e3, "GB/s (read+write)": 2 * x.nbytes / GB / t}


def _pinned_alloc_cost(cupy: Any, big: int) -> dict[str, float]:
    """cudaHostAlloc / cudaFreeHost times; the first call of the process also pays any one-time setup."""
    flags = cupy.cuda.runtime.hostAllocPortable
    out = {}
    for label, size in (("first_32MiB", 32 << 20), ("again_32MiB", 32 << 20), (f"{big / GB:.1f}GB", big)):
        t0 = time.perf_counter()
        mem = cupy.cuda.PinnedMemory(size, flags)
        t1 = time.perf_counter()
        np.ndarray((size,), np.uint8, buffer=cupy.cuda.PinnedMemoryPointer(mem, 0))[:: 4096] = 1  # touch
        t2 = time.perf_counter()
        del mem
        t3 = time.perf_counter()
        out[f"alloc_{label}_ms"] = (t1 - t0) * 1e3
        out[f"touch_{label}_ms"] = (t2 - t1) * 1e3
        out[f"free_{label}_ms"] = (t3 - t2) * 1e3
    return out


def _host_copy_rate(n_threads: int, col: np.ndarray) -> dict[str, float]:
    """Host memcpy of one column: 1 thread, then split over the transfer threads; into pre-faulted memory."""
    dst = np.empty_like(col)
    dst[...] = 0
    out = {}
    with _transfer.settings(n_threads=n_threads):
        for label, fn in (("1_thread", np.copyto), (f"{n_threads}_threads", _transfer._parallel_copyto)):
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                fn(dst, col)
                times.append(time.perf_counter() - t0)
            out[f"memcpy_{label}_GB/s"] = col.nbytes / GB / min(times)
    t0 = time.perf_counter()
    fresh = np.empty_like(col)
    _transfer._parallel_copyto(fresh, col)  # includes first-touch page faults, as a fresh result would
    out["memcpy_into_fresh_memory_GB/s"] = col.nbytes / GB / (time.perf_counter() - t0)
    return out


def _sweep(cupy: Any, label: str, cols: list[np.ndarray], dev: list[Any], rows: list[dict], threads: list[int], chunks_mib: list[int]) -> None:
    """The staged strategies under several thread counts and chunk sizes (3 repeats each)."""
    nbytes = sum(c.nbytes for c in cols)

    def on_device(results: list[Any]) -> bool:
        return all(bool(cupy.array_equal(r, d)) for r, d in zip(results, dev, strict=True))

    def on_host(results: list[np.ndarray]) -> bool:
        return all(np.array_equal(r, h) for r, h in zip(results, cols, strict=True))

    for n_threads in threads:
        for chunk_mib in chunks_mib:
            with _transfer.settings(n_threads=n_threads, chunk_bytes=chunk_mib << 20):
                for direction, table, src, check in (("h2d", _transfer.H2D_STRATEGIES, cols, on_device),
                                                     ("d2h", _transfer.D2H_STRATEGIES, dev, on_host)):  # fmt: skip
                    for name in ("staged", "staged_threads"):
                        fn = table[name]
                        stats = _measure(cupy, lambda fn=fn, src=src: [fn(c) for c in src], check, 3)
                        row = {"direction": direction, "strategy": f"{name}/t{n_threads}/c{chunk_mib}M", "size": label, "bytes": nbytes, **stats}
                        row["GB/s"] = nbytes / GB / (stats["median_ms"] / 1e3)
                        rows.append(row)
                        print(f"  {direction} {row['strategy']:<24} {label:>7} {stats['median_ms']:8.1f} ms {row['GB/s']:6.1f} GB/s  (first {stats['first_ms']:.0f} ms)", flush=True)


def _system_notes() -> dict[str, str]:
    """Host settings that change page-fault costs (transparent huge pages)."""
    notes = {}
    for key, path in (("thp_enabled", "/sys/kernel/mm/transparent_hugepage/enabled"), ("thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag")):
        try:
            with open(path) as f:
                notes[key] = f.read().strip()
        except OSError:
            notes[key] = "n/a"
    return notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m riptide.benchmarks.transfer_probe", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000_000, help="rows of the large frame (2 float64 columns)")
    parser.add_argument("--small-rows", type=int, default=4_000_000, help="rows of the small frame")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sweep", action="store_true", help="also time staged strategies for several n_threads x chunk_bytes")
    parser.add_argument("--sweep-threads", type=int, nargs="+", default=[4, 8, 12, 16], metavar="N")
    parser.add_argument("--sweep-chunks-mib", type=int, nargs="+", default=[4, 8, 16, 32], metavar="MIB")
    parser.add_argument("--json", help="write every number to this file")
    args = parser.parse_args(argv)

    try:
        import cupy

        n_gpus = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        print(f"transfer_probe needs CuPy and a CUDA GPU: {exc}", file=sys.stderr)
        return 1
    if n_gpus == 0:
        print("transfer_probe needs a CUDA GPU: none found", file=sys.stderr)
        return 1

    t_start = time.perf_counter()
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    settings = _transfer.get_settings()
    print(f"GPU: {name}; CuPy {cupy.__version__}; CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}; "
          f"NumPy {np.__version__}; {os.cpu_count()} CPUs", flush=True)  # fmt: skip
    print(f"settings: {settings}", flush=True)
    print(f"host: {_system_notes()}", flush=True)
    report: dict[str, Any] = {"gpu": name, "cupy": cupy.__version__, "cpus": os.cpu_count(), "settings": vars(settings), "host": _system_notes()}

    cupy.zeros(1)  # create the CUDA context outside every measurement
    report["pinned_alloc"] = _pinned_alloc_cost(cupy, args.rows * 8)
    print("pinned alloc:", {k: round(v, 1) for k, v in report["pinned_alloc"].items()}, flush=True)

    rng = np.random.default_rng(2024)
    big = [rng.random(args.rows) + 0.5 for _ in range(2)]  # values in [0.5, 1.5): never zero
    small = [rng.random(args.small_rows) + 0.5 for _ in range(2)]
    report["host_copy"] = _host_copy_rate(settings.n_threads, big[0])
    print("host copy:", {k: round(v, 1) for k, v in report["host_copy"].items()}, flush=True)

    report["device_copy"] = _device_copy_rate(cupy, 2 * args.rows * 8, args.repeats)
    print("device copy:", {k: round(v, 1) for k, v in report["device_copy"].items()}, flush=True)

    rows: list[dict] = []
    frames = []
    for label, cols in ((f"{sum(c.nbytes for c in big) / GB:.2g}GB", big), (f"{sum(c.nbytes for c in small) / 1e6:.0f}MB", small)):
        dev = [cupy.asarray(c) for c in cols]
        frames.append((label, cols, dev))
        _frame_rows(cupy, label, cols, dev, args.repeats, rows)

    if args.sweep:
        for label, cols, dev in frames:
            _sweep(cupy, label, cols, dev, rows, args.sweep_threads, args.sweep_chunks_mib)
    _transfer.release_pinned_memory()
    report["rows"] = rows
    report["seconds"] = time.perf_counter() - t_start

    print()
    print(f"{'dir':<4} {'strategy':<26} {'size':>7} {'ms':>8} {'GB/s':>6} {'first ms':>9}")
    for r in rows:
        print(f"{r['direction']:<4} {r['strategy']:<26} {r['size']:>7} {r['median_ms']:8.1f} {r['GB/s']:6.1f} {r['first_ms']:9.0f}")
    dc = report["device_copy"]
    print(f"device-to-device copy: {dc['bytes'] / GB:.1f} GB in {dc['median_ms']:.2f} ms = {dc['GB/s (read+write)']:.0f} GB/s (read+write)")
    pa = report["pinned_alloc"]
    print("pinned alloc ms: " + ", ".join(f"{k}={v:.1f}" for k, v in pa.items()))
    print("host copy GB/s: " + ", ".join(f"{k}={v:.1f}" for k, v in report["host_copy"].items()))
    for direction in ("h2d", "d2h"):
        candidates = [r for r in rows if r["direction"] == direction and r["size"] == frames[0][0] and not r["strategy"].startswith("default")]
        best = min(candidates, key=lambda r: r["median_ms"])
        print(f"fastest {direction} at {frames[0][0]}: {best['strategy']} {best['median_ms']:.1f} ms ({best['GB/s']:.1f} GB/s)")
    print(f"probe took {report['seconds']:.1f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
