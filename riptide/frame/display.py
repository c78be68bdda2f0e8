"""Text and HTML display of Series and DataFrame, in pandas' format.

Only the rows that are shown travel to the host: the first and last few of a long
table (``display.min_rows``), formatted by pandas, with the real dimensions added.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pandas as pd

from riptide import _config

__all__ = ["series_repr", "frame_repr", "frame_html", "info"]


def _shown_rows(n: int) -> tuple[int, bool]:
    """How many rows to fetch from each end, and whether the display is truncated."""
    max_rows = _config.get_option("display.max_rows")
    if n <= max_rows:
        return n, False
    return _config.get_option("display.min_rows") // 2 + 1, True


def _host_preview(obj: Any) -> tuple[Any, bool]:
    n = len(obj)
    k, truncated = _shown_rows(n)
    if not truncated:
        return obj.to_pandas(), False
    head, tail = obj.iloc[:k].to_pandas(), obj.iloc[n - k :].to_pandas()
    return pd.concat([head, tail]), True


def series_repr(series: Any) -> str:
    preview, truncated = _host_preview(series)
    min_rows = _config.get_option("display.min_rows")
    with pd.option_context("display.max_rows", min_rows + 1 if truncated else len(preview) + 1,
                           "display.min_rows", min_rows):  # fmt: skip
        text = preview.to_string(length=False, dtype=False, name=False) if len(preview) else ""
    footer = []
    if series.name is not None:
        footer.append(f"Name: {series.name}")
    if truncated:
        footer.append(f"Length: {len(series)}")
    footer.append(f"dtype: {series.dtype}")
    if len(series) == 0:
        return f"Series([], {', '.join(footer)})"
    return text + "\n" + ", ".join(footer)


def frame_repr(frame: Any) -> str:
    preview, truncated = _host_preview(frame)
    rows, cols = frame.shape
    if rows == 0 or cols == 0:
        return repr(preview)  # pandas' "Empty DataFrame" text
    min_rows = _config.get_option("display.min_rows")
    text = preview.to_string(max_rows=min_rows + 1 if truncated else None, min_rows=min_rows,
                             max_cols=_config.get_option("display.max_columns"), show_dimensions=False)  # fmt: skip
    if truncated or cols > _config.get_option("display.max_columns"):
        text += f"\n\n[{rows} rows x {cols} columns]"
    return text


def frame_html(frame: Any) -> str:
    preview, truncated = _host_preview(frame)
    rows, cols = frame.shape
    min_rows = _config.get_option("display.min_rows")
    html = preview.to_html(max_rows=min_rows + 1 if truncated else None, min_rows=min_rows,
                           max_cols=_config.get_option("display.max_columns"), show_dimensions=False,
                           notebook=True)  # fmt: skip
    return f"<div>{html}<p>{rows} rows × {cols} columns</p></div>"


def info(frame: Any, buf: Any = None, series: Any = None) -> None:
    """Print the class, index, each column's non-null count and dtype, and memory usage."""
    out = buf if buf is not None else sys.stdout
    lines = [f"<class 'riptide.{'Series' if series is not None else 'DataFrame'}'>"]
    index = frame.index
    rows = len(frame)
    if type(index).__name__ == "RangeIndex":
        lines.append(f"RangeIndex: {rows} entries, {index.start} to {index.stop - 1 if rows else 0}")
    else:
        lines.append(f"Index: {rows} entries")
    if series is None:
        lines.append(f"Data columns (total {len(frame._data)} columns):")
    labels = list(frame._data)
    counts = [int(c.size - int(c.isna().sum())) for c in frame._data.values()]
    table = pd.DataFrame({"Column": [str(x) for x in labels], "Non-Null Count": [f"{c} non-null" for c in counts],
                          "Dtype": [str(c.dtype) for c in frame._data.values()]})  # fmt: skip
    if series is None:
        table.insert(0, "#", range(len(labels)))
        lines.append(table.to_string(index=False))
    else:
        lines.append(f"Series name: {series.name}")
        lines.append(f"Non-Null Count  Dtype\n{counts[0]} non-null  {series.dtype}")
    dtype_counts = pd.Series([str(c.dtype) for c in frame._data.values()]).value_counts(sort=False)
    lines.append("dtypes: " + ", ".join(f"{name}({count})" for name, count in sorted(dtype_counts.items())))
    total = int(sum(c.nbytes for c in frame._data.values()) + index.nbytes)
    lines.append(f"memory usage: {_human_bytes(total)}")
    where = "device" if frame._xp() is not np else "host"
    lines.append(f"data on: {where}")
    print("\n".join(lines), file=out)


def _human_bytes(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:.1f}+ {unit}" if unit != "bytes" else f"{int(n)}.0+ bytes"
        n /= 1024
    return f"{n} bytes"
