"""Fused vs eager elementwise chains: ``python -m riptide.benchmarks.fusion_probe [--rows N] [--repeat R]``.

Times each expression with fusion on (one generated kernel, :mod:`riptide.core.ops.fusion`) and off (one CuPy
ufunc per operator), median of ``--repeat`` runs after warm-up (the warm-up compiles the kernel), the device
synchronized around each run. The timed thunk reads ``result._column.data`` so a deferred result runs its kernel
inside the timed region. Bandwidth counts the bytes an expression must move: each input column read once and the
result written once; ``% copy`` compares it with a device-to-device copy. Also checks that the fused result
equals the eager one bit for bit (NaN where NaN).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

import riptide as rt
from riptide import _device
from riptide.benchmarks.harness import measure, measure_copy_rate
from riptide.core.ops import fusion

EXPRESSIONS: list[tuple[str, Callable[[Any, Any], Any], int]] = [
    # (label, expression, output bytes per row); inputs: a and b, float64
    ("a * b + a", lambda a, b: a * b + a, 8),
    ("(a * b + a) > 0.5", lambda a, b: (a * b + a) > 0.5, 1),
    ("a * 2 + b * 3 - a / b", lambda a, b: a * 2 + b * 3 - a / b, 8),
]


def _same(x: Any, y: Any) -> bool:
    xp = _device.namespace_of(x)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind == "f":
        return bool(xp.all((x == y) | (xp.isnan(x) & xp.isnan(y))))
    return bool(xp.all(x == y))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=None, help="rows (default 1e8 on a GPU, 1e7 on the CPU)")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args(argv)
    gpu = _device.is_gpu()
    rows = args.rows or (100_000_000 if gpu else 10_000_000)
    info = _device.device_info()
    rng = np.random.default_rng(0)
    a, b = rt.Series(rng.random(rows)), rt.Series(rng.random(rows))
    rate, _, _ = measure_copy_rate(max(8 * rows, 256 * 2**20), repeat=args.repeat, warmup=args.warmup)
    print(f"fusion probe on {'gpu ' + str(info.get('gpu')) if gpu else 'cpu (NumPy: nothing is fused)'}: "
          f"rows {rows:,}, median of {args.repeat} after {args.warmup} warm-up; "
          f"device copy rate {rate / 1e9:,.0f} GB/s")  # fmt: skip
    header = f"{'expression':24s} {'mode':6s} {'median':>9s} {'min':>9s} {'max':>9s} {'GB/s':>7s} {'% copy':>6s}"
    print(header)
    print("-" * len(header))
    enabled = fusion.ENABLED
    failures = 0
    try:
        for label, expr, out_bytes in EXPRESSIONS:
            moved = 2 * 8 * rows + out_bytes * rows
            results = {}
            medians = {}
            for mode, on in (("fused", True), ("eager", False)):
                fusion.ENABLED = on
                thunk = lambda: expr(a, b)._column.data  # noqa: E731 - reading .data materializes
                timing = measure(thunk, repeat=args.repeat, warmup=args.warmup, sync=_device.synchronize)
                medians[mode] = timing.median
                bw = moved / timing.median
                print(f"{label:24s} {mode:6s} {timing.median * 1e3:7.3f}ms {timing.min * 1e3:7.3f}ms "
                      f"{timing.max * 1e3:7.3f}ms {bw / 1e9:7.0f} {100 * bw / rate:5.0f}%")  # fmt: skip
                results[mode] = expr(a, b)._column.data
            same = _same(results["fused"], results["eager"])
            failures += not same
            print(f"{'':24s} fused/eager time {medians['fused'] / medians['eager']:.2f}; "
                  f"bit-identical: {'yes' if same else 'NO'}; bytes moved (min) {moved / 1e9:.2f} GB")  # fmt: skip
            del results
    finally:
        fusion.ENABLED = enabled
    print(f"fusion stats: {fusion.stats()}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
