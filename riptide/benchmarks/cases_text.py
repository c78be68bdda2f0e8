"""Issue 4's cases: string methods, regular expressions, datetimes and compiled user-defined functions.

Reference figures are the issue's, measured on one H200 (pandas and polars on its 16 cores). Sizes follow the
issue at ``--rows 1e8``: the string cases and ``to_datetime`` run ``rows / 10`` rows (the issue's 1e7 strings),
the datetime fields, the UDF and the db-benchmark ``id3`` groupby run ``rows`` rows.

Data:

* **text** (``rows / 10``): ASCII strings of 5-40 bytes, uniform length; lowercase letters with about one
  space in ten bytes and one digit in twenty, a capital at the start of a third of the rows, and an address
  ``...@<3 letters>.com`` at the end of about 30% of the rows (so ``[a-z]+@[a-z]+\\.com`` matches some and
  not others). Built from NumPy bytes into one Arrow array: no Python string per row.
* **ISO timestamps** (``rows / 10``): ``YYYY-MM-DD HH:MM:SS`` for instants uniform in 2000-2030.
* **timestamps** (``rows``): datetime64[ns] uniform in 2000-2030.
* **id3** (``rows``): db-benchmark's ``id3``, ``"id%010d"`` of one of ``rows / 100`` numbers, as a ``str``
  column, beside the same numbers as int64; the goal is the str-key groupby within 2x of the int64-key one
  (compare the two rows ``groupby_id3_str`` and ``groupby_id3_int``).

pandas is not timed where one run would take minutes (``Series.apply`` over 1e8 rows calls Python 1e8
times; the 1e8-row string groupby): those goals are against riptide itself or polars.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from riptide.benchmarks.cases_core import _lib, _SameCode
from riptide.benchmarks.harness import Context, Reference, fmt_count, register

MS = 1e-3
EMAIL = r"[a-z]+@[a-z]+\.com"
_YEAR_2000_NS = 946_684_800 * 10**9
_THIRTY_YEARS_NS = 30 * 365 * 86_400 * 10**9


def _text_rows(ctx: Context) -> int:
    return max(ctx.rows // 10, 1)


def _arrow_strings(offsets: np.ndarray, chars: np.ndarray) -> pd.Series:
    """A pandas ``str`` Series over Arrow buffers (int64 offsets, UTF-8 bytes): no Python object per row."""
    array = pa.LargeStringArray.from_buffers(len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(chars))
    return pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([array])), dtype="str")


def text_data(rows: int, seed: int = 0) -> pd.Series:
    """``rows`` messy ASCII strings of 5-40 bytes (see the module docstring).

    >>> s = text_data(1000)
    >>> bool(s.str.len().between(5, 40).all()), bool(0.2 < s.str.contains(EMAIL).mean() < 0.4)
    (True, True)
    """
    rng = np.random.default_rng(seed)
    lengths = rng.integers(5, 41, rows, dtype=np.int64)
    offsets = np.zeros(rows + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    chars = rng.integers(ord("a"), ord("z") + 1, total, dtype=np.uint8)
    draw = rng.random(total)
    chars[draw < 0.1] = ord(" ")
    digits = draw > 0.95
    chars[digits] = rng.integers(ord("0"), ord("9") + 1, int(digits.sum()), dtype=np.uint8)
    starts, ends = offsets[:-1], offsets[1:]
    capital = rng.random(rows) < 1 / 3
    chars[starts[capital]] -= np.uint8(32) * (chars[starts[capital]] >= ord("a"))
    email = (rng.random(rows) < 0.3) & (lengths >= 10)
    tail = ends[email]
    # "...x@abc.com": a letter before the '@', three letters of host, then ".com"
    chars[tail - 9] = rng.integers(ord("a"), ord("z") + 1, tail.size, dtype=np.uint8)
    chars[tail - 8] = ord("@")
    for k in (7, 6, 5):
        chars[tail - k] = rng.integers(ord("a"), ord("z") + 1, tail.size, dtype=np.uint8)
    for k, byte in zip((4, 3, 2, 1), b".com"):
        chars[tail - k] = byte
    return _arrow_strings(offsets, chars)


def iso_timestamps(rows: int, seed: int = 0) -> pd.Series:
    """``rows`` strings ``YYYY-MM-DD HH:MM:SS``, built from the digits of instants in 2000-2030.

    >>> iso_timestamps(2).str.len().tolist()
    [19, 19]
    """
    seconds = timestamps(rows, seed).to_numpy().astype("datetime64[s]")
    days = seconds.astype("datetime64[D]")
    year = days.astype("datetime64[Y]").astype(np.int64) + 1970
    month = (days.astype("datetime64[M]").astype(np.int64) % 12) + 1
    day = (days - days.astype("datetime64[M]")).astype(np.int64) + 1
    second_of_day = (seconds - days).astype(np.int64)
    fields = [(year, 4), (month, 2), (day, 2), (second_of_day // 3600, 2), (second_of_day // 60 % 60, 2),
              (second_of_day % 60, 2)]  # fmt: skip
    separators = "-- ::"
    out = np.empty((rows, 19), np.uint8)
    column = 0
    for i, (value, width) in enumerate(fields):
        for place in range(width):
            out[:, column + width - 1 - place] = ord("0") + (value // 10**place) % 10
        column += width
        if i < len(separators):
            out[:, column] = ord(separators[i])
            column += 1
    return _arrow_strings(np.arange(rows + 1, dtype=np.int64) * 19, out.reshape(-1))


def timestamps(rows: int, seed: int = 0) -> pd.Series:
    """``rows`` datetime64[ns] instants uniform in 2000-2030 (never a round number)."""
    ticks = _YEAR_2000_NS + np.random.default_rng(seed).integers(0, _THIRTY_YEARS_NS, rows, dtype=np.int64)
    return pd.Series(ticks.view("datetime64[ns]"))


def _string_bytes(s: pd.Series) -> int:
    """Offsets and characters of a ``str`` Series, as stored."""
    return 8 * (len(s) + 1) + int(s.str.len().sum())


class _SeriesCase(_SameCode):
    """A case whose data is one pandas Series, handed to each library as its own Series."""

    def series(self, lib: Any, data: pd.Series) -> Any:
        return data if lib is pd else lib.Series(data)

    def polars_series(self, data: pd.Series) -> Any:
        return _lib("polars").from_pandas(data)


class _TextCase(_SeriesCase):
    """A case over :func:`text_data`; ``run`` gets a Series of the library."""

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(_text_rows(ctx))} str"

    def data(self, ctx: Context) -> pd.Series:
        return text_data(_text_rows(ctx), ctx.seed)


def _text_case(name: str, title: str, reference: Reference, output: str,
               call: Callable[[Any], Any], polars: Callable[[Any], Any] | None) -> type:  # fmt: skip
    """Register a text case: ``call(series)`` is timed for riptide and pandas, ``polars(series)`` for polars.

    ``output`` is what the result costs to write per row, for the bytes moved: "bool", "int", "same" (a string
    column of the input's size) or "table" (the input again, as pieces).
    """

    def bytes_moved(self: Any, data: pd.Series) -> int:
        read = _string_bytes(data)
        written = {"bool": len(data), "int": 8 * len(data), "same": read, "table": read}[output]
        return read + written

    def run(self: Any, lib: Any, data: pd.Series) -> Callable[[], Any]:
        s = self.series(lib, data)
        return lambda: call(s)

    def polars_thunk(self: Any, data: pd.Series) -> Callable[[], Any]:
        s = self.polars_series(data)
        return lambda: polars(s)

    attrs = {"name": name, "title": title, "reference": reference, "bytes_moved": bytes_moved, "run": run}
    attrs["polars"] = polars_thunk if polars is not None else None
    return register(type(f"Text_{name}", (_TextCase,), attrs))


_text_case("str_lower", "s.str.lower()", Reference(pandas=310 * MS, cudf=5.0 * MS, goal=2.5 * MS), "same",
           lambda s: s.str.lower(), lambda s: s.str.to_lowercase())  # fmt: skip
_text_case("str_contains_regex", "str.contains(email re)",
           Reference(pandas=1112 * MS, cudf=1.9 * MS, goal=1.5 * MS, note=f"pattern {EMAIL}"), "bool",
           lambda s: s.str.contains(EMAIL), lambda s: s.str.contains(EMAIL))  # fmt: skip
_text_case("str_len", "s.str.len()", Reference(pandas=None, cudf=None, goal=None, min_speedup=(("pandas", 100),)),
           "int", lambda s: s.str.len(), lambda s: s.str.len_chars())  # fmt: skip
_text_case("str_startswith", "s.str.startswith('ab')",
           Reference(pandas=None, cudf=None, goal=None, min_speedup=(("pandas", 100),)), "bool",
           lambda s: s.str.startswith("ab"), lambda s: s.str.starts_with("ab"))  # fmt: skip
_text_case("str_contains_literal", "str.contains('ab', regex=False)",
           Reference(pandas=None, cudf=None, goal=None, min_speedup=(("pandas", 100),)), "bool",
           lambda s: s.str.contains("ab", regex=False), lambda s: s.str.contains("ab", literal=True))  # fmt: skip
_text_case("str_replace_regex", r"str.replace(r'\d+', '#')",
           Reference(pandas=None, cudf=None, goal=None, min_speedup=(("pandas", 30), ("polars", 1))), "same",
           lambda s: s.str.replace(r"\d+", "#", regex=True), lambda s: s.str.replace_all(r"\d+", "#"))  # fmt: skip
_text_case("str_extract", "str.extract(email groups)",
           Reference(pandas=None, cudf=None, goal=None, min_speedup=(("pandas", 30), ("polars", 1))), "table",
           lambda s: s.str.extract(r"([a-z]+)@([a-z]+)\.com"),
           lambda s: s.str.extract_groups(r"([a-z]+)@([a-z]+)\.com"))  # fmt: skip
_text_case("str_split_expand", "str.split(' ', expand=True)",
           Reference(pandas=None, cudf=None, goal=None, min_speedup=(("pandas", 30),)), "table",
           lambda s: s.str.split(" ", expand=True), None)  # fmt: skip


@register
class ToDatetimeIso(_SeriesCase):
    name = "to_datetime_iso"
    title = "to_datetime(ISO str)"
    reference = Reference(pandas=None, cudf=None, goal=None, min_speedup=(("pandas", 50),))

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(_text_rows(ctx))} str"

    def data(self, ctx: Context) -> pd.Series:
        return iso_timestamps(_text_rows(ctx), ctx.seed)

    def bytes_moved(self, data: pd.Series) -> int:
        return _string_bytes(data) + 8 * len(data)

    def run(self, lib: Any, data: pd.Series) -> Callable[[], Any]:
        s = self.series(lib, data)
        return lambda: lib.to_datetime(s)

    def polars(self, data: pd.Series) -> Callable[[], Any]:
        s = self.polars_series(data)
        return lambda: s.str.to_datetime("%Y-%m-%d %H:%M:%S", time_unit="ns")


class _TimestampCase(_SeriesCase):
    def size(self, ctx: Context) -> str:
        return f"{fmt_count(ctx.rows)} datetime64[ns]"

    def data(self, ctx: Context) -> pd.Series:
        return timestamps(ctx.rows, ctx.seed)


@register
class DtYear(_TimestampCase):
    name = "dt_year"
    title = "s.dt.year"
    reference = Reference(pandas=None, cudf=None, goal=None, note=">= 50% of copy bandwidth")

    def bytes_moved(self, data: pd.Series) -> int:
        return 8 * len(data) + 4 * len(data)  # int64 ticks read, int32 years written

    def run(self, lib: Any, data: pd.Series) -> Callable[[], Any]:
        s = self.series(lib, data)
        return lambda: s.dt.year

    def polars(self, data: pd.Series) -> Callable[[], Any]:
        s = self.polars_series(data)
        return lambda: s.dt.year()


@register
class DtFloor(_TimestampCase):
    name = "dt_floor"
    title = "s.dt.floor('h')"
    reference = Reference(pandas=None, cudf=None, goal=None, note=">= 50% of copy bandwidth")

    def bytes_moved(self, data: pd.Series) -> int:
        return 16 * len(data)

    def run(self, lib: Any, data: pd.Series) -> Callable[[], Any]:
        s = self.series(lib, data)
        return lambda: s.dt.floor("h")

    def polars(self, data: pd.Series) -> Callable[[], Any]:
        s = self.polars_series(data)
        return lambda: s.dt.truncate("1h")


def _scalar_udf(x: float) -> float:
    """The benchmark's user-defined function: a branch, arithmetic and a math call."""
    import math

    if x > 0.5:
        return math.sqrt(x) * 2.0 + 1.0
    return x * x - 1.0


class _UdfCase(_SameCode):
    pandas = None  # Series.apply calls Python once per row: minutes at 1e8 rows; the goal is against riptide itself

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(ctx.rows)} float64"

    def data(self, ctx: Context) -> np.ndarray:
        return ctx.rng().random(ctx.rows)

    def bytes_moved(self, data: np.ndarray) -> int:
        return 2 * data.nbytes


@register
class UdfApply(_UdfCase):
    name = "udf_apply"
    title = "s.apply(python fn)"
    reference = Reference(pandas=None, cudf=None, goal=None, note="within 2x of udf_vectorised")

    def run(self, lib: Any, data: np.ndarray) -> Callable[[], Any]:
        s = lib.Series(data)
        return lambda: s.apply(_scalar_udf)

    polars = None  # polars' map_elements is the same per-row Python call as pandas' apply


@register
class UdfVectorised(_UdfCase):
    name = "udf_vectorised"
    title = "the same, vectorised"
    reference = Reference(pandas=None, cudf=None, goal=None, note="udf_apply's hand-written twin")

    def run(self, lib: Any, data: np.ndarray) -> Callable[[], Any]:
        s = lib.Series(data)
        return lambda: (np.sqrt(s) * 2.0 + 1.0).where(s > 0.5, s * s - 1.0)

    def polars(self, data: np.ndarray) -> Callable[[], Any]:
        pl = _lib("polars")
        df = pl.DataFrame({"x": data})
        x = pl.col("x")
        return lambda: df.select(pl.when(x > 0.5).then(x.sqrt() * 2.0 + 1.0).otherwise(x * x - 1.0))


def id3_numbers(rows: int, seed: int = 0) -> np.ndarray:
    """db-benchmark's ``id3`` numbers: one of ``rows / 100`` per row (1-based, as its labels)."""
    return np.random.default_rng(seed).integers(1, max(rows // 100, 1) + 1, rows, dtype=np.int64)


def id3_labels(numbers: np.ndarray) -> pd.Series:
    """``"id%010d"`` of each number as a ``str`` Series, built from digits (12 bytes a row).

    >>> id3_labels(np.array([7, 1234567890])).tolist()
    ['id0000000007', 'id1234567890']
    """
    out = np.empty((numbers.size, 12), np.uint8)
    out[:, 0], out[:, 1] = ord("i"), ord("d")
    for place in range(10):
        out[:, 11 - place] = ord("0") + (numbers // 10**place) % 10
    return _arrow_strings(np.arange(numbers.size + 1, dtype=np.int64) * 12, out.reshape(-1))


class _Id3Case(_SameCode):
    pandas = None  # a 1e8-row string groupby takes pandas tens of seconds a run; polars is the CPU peer here

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(ctx.rows)} {self.key_kind} key"

    def run(self, lib: Any, data: pd.DataFrame) -> Callable[[], Any]:
        df = data if lib is pd else lib.DataFrame(data)
        return lambda: df.groupby("id3")["v1"].sum()

    def polars(self, data: pd.DataFrame) -> Callable[[], Any]:
        pl = _lib("polars")
        df = pl.from_pandas(data)
        return lambda: df.group_by("id3").agg(pl.col("v1").sum())


@register
class GroupbyId3Str(_Id3Case):
    name = "groupby_id3_str"
    title = "groupby(id3 str).sum()"
    key_kind = "str"
    reference = Reference(pandas=None, cudf=None, goal=None, note="within 2x of groupby_id3_int")

    def data(self, ctx: Context) -> pd.DataFrame:
        numbers = id3_numbers(ctx.rows, ctx.seed)
        return pd.DataFrame({"id3": id3_labels(numbers), "v1": ctx.rng().random(ctx.rows)})

    def bytes_moved(self, data: pd.DataFrame) -> int:
        return 8 * (len(data) + 1) + 12 * len(data) + 8 * len(data)


@register
class GroupbyId3Int(_Id3Case):
    name = "groupby_id3_int"
    title = "groupby(id3 int64).sum()"
    key_kind = "int64"
    reference = Reference(pandas=None, cudf=None, goal=None, note="the int64-key twin of groupby_id3_str")

    def data(self, ctx: Context) -> pd.DataFrame:
        return pd.DataFrame({"id3": id3_numbers(ctx.rows, ctx.seed), "v1": ctx.rng().random(ctx.rows)})

    def bytes_moved(self, data: pd.DataFrame) -> int:
        return 16 * len(data)
