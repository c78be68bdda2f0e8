"""A small progress bar on stderr for steps that take longer than a second.

Quick steps print nothing. Once a step has run for ``delay`` seconds a
background thread draws one line — the share of steps done, the step's label
and its running time — and wipes it when the step ends. It draws only on a
terminal unless told otherwise, so logs and pipes stay clean.

>>> import io
>>> bar = Progress(total=2, stream=io.StringIO(), enabled=True)
>>> with bar.step("pandas: load"):
...     pass
>>> bar.done
1
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import TextIO

__all__ = ["Progress"]

_SPINNER = "|/-\\"


class Progress:
    """Counts ``total`` steps; draws a bar for any step still running after ``delay`` seconds."""

    def __init__(
        self,
        total: int,
        *,
        stream: TextIO | None = None,
        enabled: bool | None = None,
        delay: float = 1.0,
        interval: float = 0.1,
        width: int = 20,
    ) -> None:
        self.total = max(total, 1)
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = _isatty(self.stream) if enabled is None else enabled
        self.delay = delay
        self.interval = interval
        self.width = width
        self.done = 0
        self._drawn = 0  # length of the line on screen, 0 when none

    @contextlib.contextmanager
    def step(self, label: str) -> Iterator[None]:
        """Count one step; while it runs past ``delay`` seconds, keep a bar drawn for it."""
        if not self.enabled:
            try:
                yield
            finally:
                self.done += 1
            return
        finished = threading.Event()
        start = time.perf_counter()
        painter = threading.Thread(target=self._paint, args=(label, start, finished), daemon=True)
        painter.start()
        try:
            yield
        finally:
            finished.set()
            painter.join()
            self.done += 1
            self._clear()

    def _paint(self, label: str, start: float, finished: threading.Event) -> None:
        if finished.wait(self.delay):
            return
        tick = 0
        while not finished.is_set():
            self._draw(label, time.perf_counter() - start, _SPINNER[tick % len(_SPINNER)])
            tick += 1
            finished.wait(self.interval)

    def _draw(self, label: str, elapsed: float, spin: str) -> None:
        filled = round(self.width * self.done / self.total)
        bar = "#" * filled + "-" * (self.width - filled)
        line = f"  [{bar}] {self.done + 1}/{self.total} {spin} {label}  {elapsed:5.1f} s"
        self.stream.write("\r" + line.ljust(self._drawn))
        self.stream.flush()
        self._drawn = len(line)

    def _clear(self) -> None:
        if self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
