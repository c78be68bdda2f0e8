"""Text and HTML display of Series and DataFrame, and ``info``, in pandas' format.

Only what is shown travels to the host: the first and last few rows (and columns) of a long table. pandas
formats them under riptide's display options (``display.max_rows``, ``min_rows``, ``max_columns``, ``width``),
truncating and wrapping them as it would the whole table; riptide then writes the real length or dimensions
in the footer. pandas' other display options (precision, max_colwidth, ...) apply as set in pandas.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import pandas as pd

from riptide import _config

__all__ = ["series_repr", "frame_repr", "frame_html", "info"]


def _window(n: int, limit: int | None, shown: int | None) -> tuple[np.ndarray | None, int | None]:
    """The positions (of ``n`` rows or columns) that pandas looks at when it shows ``shown`` of them once there
    are more than ``limit`` (None: all, no truncation), and the limit under which pandas truncates just those
    exactly as it would all ``n``."""
    if limit is None or n <= limit:
        return None, limit
    if shown >= 2:  # pandas shows shown // 2 from each end; one more from each end keeps the preview truncated
        k = shown // 2 + 1
        return np.unique(np.r_[0:k, n - k : n]), shown
    return np.arange(limit + 1), limit  # shown == 1: pandas shows the first `limit` rows of a frame, 1 of a Series


def _plan(n_rows: int, n_cols: int) -> tuple[np.ndarray | None, np.ndarray | None, Any]:
    """Rows and columns to fetch, and the pandas options to format them with (dimensions left to the caller)."""
    max_rows, min_rows = _config.get_option("display.max_rows"), _config.get_option("display.min_rows")
    max_cols = _config.get_option("display.max_columns")
    shown = min(min_rows, max_rows) if min_rows and max_rows else max_rows  # what pandas shows once truncated
    rows, fmt_rows = _window(n_rows, max_rows, shown)
    cols, fmt_cols = _window(n_cols, max_cols, max_cols)
    options = pd.option_context("display.max_rows", fmt_rows, "display.min_rows", shown,
                                "display.max_columns", fmt_cols, "display.width", _config.get_option("display.width"),
                                "display.show_dimensions", False)  # fmt: skip
    return rows, cols, options


def _fetch(frame: Any, rows: np.ndarray | None, cols: np.ndarray | None) -> pd.DataFrame:
    if rows is None and cols is None:
        return frame.to_pandas()
    return frame.iloc[slice(None) if rows is None else rows, slice(None) if cols is None else cols].to_pandas()


def series_repr(series: Any) -> str:
    rows, _, options = _plan(len(series), 0)
    host = series.to_pandas() if rows is None else series.iloc[rows].to_pandas()
    with options:
        text = repr(host)
        if rows is None:
            return text
        with pd.option_context("display.show_dimensions", True):  # the footer with "Length: <rows fetched>, "
            with_length = repr(host)
    at = len(os.path.commonprefix([text, with_length]))  # where pandas puts the length: before "dtype: "
    return f"{text[:at]}Length: {len(series)}, {text[at:]}"


def frame_repr(frame: Any) -> str:
    n_rows, n_cols = frame.shape
    rows, cols, options = _plan(n_rows, n_cols)
    if n_rows and n_cols:
        host = _fetch(frame, rows, cols)
    else:  # pandas prints "Empty DataFrame", every column label and as many index labels as max_seq_items
        labels = pd.get_option("display.max_seq_items") or n_rows
        host = frame.iloc[: min(n_rows, labels + 1)].to_pandas()
    with options:
        text = repr(host)
    if rows is not None or cols is not None:  # display.show_dimensions="truncate", pandas' default
        text += f"\n\n[{n_rows} rows x {n_cols} columns]"
    return text


def frame_html(frame: Any) -> str:
    n_rows, n_cols = frame.shape
    rows, cols, options = _plan(n_rows, n_cols)
    with options:
        html = _fetch(frame, rows, cols)._repr_html_()
    if rows is not None or cols is not None:  # pandas' footer goes between the table and the closing </div>
        body, end, rest = html.rpartition("</div>")
        html = f"{body}<p>{n_rows} rows \u00d7 {n_cols} columns</p>\n{end}{rest}"
    return html


# --------------------------------------------------------------------------- info


def _index_summary(index: Any) -> str:
    """pandas' "RangeIndex: 3 entries, 0 to 2" line, from the first and last labels only."""
    from riptide.frame.index import RangeIndex

    n = len(index)
    if isinstance(index, RangeIndex) or n <= 2:
        return index.to_pandas()._summary()
    ends = index[np.array([0, n - 1])].to_pandas()
    return ends._summary().replace(" 2 entries", f" {n} entries", 1)


def _index_memory(index: Any) -> tuple[int, bool]:
    """pandas' memory count of an index and whether it is a lower bound (object labels).

    A MultiIndex counts as pandas stores it: each level's distinct values, one small integer code per row
    and level, and the level names (computed from the levels: the rows never leave the device).
    """
    if index.nlevels == 1:
        return index.memory_usage(), index.dtype == object
    from riptide.frame.multi_index import _codes_dtype

    levels = [level.to_pandas() for level in index.levels]
    level_bytes = sum(level.memory_usage() + _validity_bytes(level) for level in levels)
    code_bytes = sum(len(index) * _codes_dtype(len(level)).itemsize for level in levels)
    name_bytes = sum(sys.getsizeof(name) for name in index.names)
    return level_bytes + code_bytes + name_bytes, any(level.dtype == object for level in levels)


def _validity_bytes(level: pd.Index) -> int:
    """The validity bitmap pandas' Arrow-backed text levels carry (its levels come out of a dictionary encoding,
    which allocates one) and riptide's, having no missing value, do not: one bit per value."""
    if isinstance(level.dtype, pd.CategoricalDtype):
        level = level.categories
    return (len(level) + 7) // 8 if isinstance(level.dtype, pd.StringDtype) else 0


def _label_text(label: Any) -> str:
    """A column label as pandas' info prints it: a tuple as ``(a, b)``, its parts unquoted."""
    if isinstance(label, tuple):
        return "(" + ", ".join(_label_text(part) for part in label) + ("," if len(label) == 1 else "") + ")"
    return str(label)


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """pandas' info table: cells left-justified to their column's widest, two spaces apart, and a rule."""
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(headers)]
    lines = [headers, ["-" * len(h) for h in headers], *rows]
    return ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)) for line in lines]


def _human_bytes(n: float, qualifier: str) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1024.0:
            return f"{n:3.1f}{qualifier} {unit}"
        n /= 1024.0
    return f"{n:3.1f}{qualifier} PB"


def info(frame: Any, buf: Any = None, series: Any = None) -> None:
    """pandas' ``info`` text: the class, the index, each column's non-null count and dtype, the dtypes, the
    memory usage; then where the data lives."""
    obj = frame if series is None else series
    columns = frame._data if series is None else {series.name: series._column}
    lines = [f"<class 'riptide.{type(obj).__name__}'>", _index_summary(obj.index)]
    if not columns:
        lines.append("Empty DataFrame")
    else:
        too_wide = series is None and len(columns) > pd.get_option("display.max_info_columns")
        with_counts = series is not None or not (too_wide or len(obj) > pd.get_option("display.max_info_rows"))
        cells = [[str(c.dtype)] for c in columns.values()]
        if with_counts:
            cells = [[f"{c.size - int(c.isna().sum())} non-null", *row] for c, row in zip(columns.values(), cells)]
        headers = ["Non-Null Count", "Dtype"] if with_counts else ["Dtype"]
        if series is not None:
            lines += [f"Series name: {series.name}", *_table(headers, cells)]
        elif too_wide:
            lines.append(pd.Index(list(columns))._summary(name="Columns"))
        else:
            rows = [[f" {i}", _label_text(label), *row] for i, (label, row) in enumerate(zip(columns, cells))]
            lines += [f"Data columns (total {len(columns)} columns):", *_table([" # ", "Column", *headers], rows)]
        counts = pd.Series([c.dtype.name for c in columns.values()]).value_counts()
        lines.append("dtypes: " + ", ".join(f"{name}({count})" for name, count in sorted(counts.items())))
        index_bytes, index_qualified = _index_memory(obj.index)
        total = sum(c.nbytes for c in columns.values()) + index_bytes
        qualifier = "+" if "object" in counts or index_qualified else ""  # as pandas: a lower bound
        lines.append(f"memory usage: {_human_bytes(total, qualifier)}")
    lines.append(f"data on: {'host' if frame._xp() is np else 'device'}")
    print("\n".join(lines), file=sys.stdout if buf is None else buf)
