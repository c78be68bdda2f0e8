"""Parse ISO 8601 date strings and numeric epochs into int64 ticks, with element-wise xp arithmetic.

``to_datetime`` on a string column follows pandas' own strategy: one layout (format) is inferred from the first
row that holds a date, and every row must follow it. Because an ISO layout puts each field at a fixed byte
position, a row can be parsed without any per-row loop: the byte at position ``p`` of every row is one gather
``chars[offsets[:-1] + p]`` (from :mod:`riptide.core.kernels.segments`' offsets layout), so each layout position
becomes one vector, and digits, separators and field ranges are validated with vector comparisons. The day count
comes from Howard Hinnant's ``days_from_civil`` (shared with :mod:`riptide.core.ops.datetime_fields`).

The device parser is deliberately strict: a row is *regular* only when it has exactly the layout's bytes (the
fraction of a ``.%f`` layout may have 1 to 9 digits) and every field is in range. pandas' parser also accepts a
few irregular spellings (one-digit months, surrounding spaces, ``"NaT"``, ``""``), and it is pandas that names the
error of a bad row; irregular rows are therefore few by design and are handed back to the caller, which parses just
those rows with pandas using the same format. That keeps results and messages identical to pandas while the
common case (every row regular) never leaves the device.

Seconds and nanoseconds are returned separately: a year-9999 timestamp in nanoseconds would overflow int64,
and the final unit (``us``, or ``ns`` when a row has more than six fraction digits) is only known afterwards.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from riptide.core.ops.datetime_fields import days_from_civil

__all__ = [
    "LAYOUT_FORMATS",
    "IsoParse",
    "guess_layout",
    "in_ns_bounds",
    "layout_of_format",
    "parse_iso",
    "scale_floats",
    "scale_integers",
]

_INT64_MAX = np.iinfo(np.int64).max

# A layout is (separator between date and time or "", the last field: "date", "minute", "second", "fraction").
#: pandas' format string of each layout; a row that is irregular is reparsed by pandas with this format.
LAYOUT_FORMATS = {
    ("", "date"): "%Y-%m-%d",
    ("T", "minute"): "%Y-%m-%dT%H:%M",
    (" ", "minute"): "%Y-%m-%d %H:%M",
    ("T", "second"): "%Y-%m-%dT%H:%M:%S",
    (" ", "second"): "%Y-%m-%d %H:%M:%S",
    ("T", "fraction"): "%Y-%m-%dT%H:%M:%S.%f",
    (" ", "fraction"): "%Y-%m-%d %H:%M:%S.%f",
}
_LAYOUT_OF_FORMAT = {fmt: layout for layout, fmt in LAYOUT_FORMATS.items()}

_ISO = re.compile(r"\d{4}-\d{2}-\d{2}(?:([T ])\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?")

# Byte positions of the digits and of the fixed separators of the longest layout.
#  0123456789012345678901234567890
#  YYYY-MM-DDTHH:MM:SS.fffffffff
_FIELDS = {
    "year": (0, 4),
    "month": (5, 2),
    "day": (8, 2),
    "hour": (11, 2),
    "minute": (14, 2),
    "second": (17, 2),
}
_SEPARATORS = {4: "-", 7: "-", 13: ":", 16: ":", 19: "."}
_LENGTH = {"date": 10, "minute": 16, "second": 19}
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def guess_layout(text: str) -> tuple[str, str] | None:
    """The layout of one ISO 8601 string, or None when riptide's device parser has no such layout.

    >>> guess_layout("2020-01-02"), guess_layout("2020-01-02T03:04:05.5"), guess_layout("02/01/2020")
    (('', 'date'), ('T', 'fraction'), None)
    """
    match = _ISO.fullmatch(text)
    if match is None:
        return None
    sep, seconds, fraction = match.groups()
    if sep is None:
        return ("", "date")
    return (sep, "fraction" if fraction else "second" if seconds else "minute")


def layout_of_format(fmt: str) -> tuple[str, str] | None:
    """The layout of a pandas format string, when the device parser has it (e.g. ``"%Y-%m-%d"``)."""
    return _LAYOUT_OF_FORMAT.get(fmt)


class IsoParse:
    """Result of :func:`parse_iso`: per row ``seconds`` and ``nanos`` since the epoch, ``regular`` (the row was
    parsed), and ``fine`` (a regular row with more than six fraction digits, which pandas parses at ``ns``)."""

    __slots__ = ("fine", "nanos", "regular", "seconds")

    def __init__(self, seconds: Any, nanos: Any, regular: Any, fine: Any):
        self.seconds = seconds
        self.nanos = nanos
        self.regular = regular
        self.fine = fine


def parse_iso(
    offsets: Any, chars: Any, valid: Any, layout: tuple[str, str], xp: Any
) -> IsoParse:
    """Parse every row of a string buffer (``offsets``, ``chars``) in ``layout``; rows not ``valid`` are skipped.

    >>> import numpy as np
    >>> text = b"2020-01-02T03:04:05.52020-02-30T00:00:00.1"
    >>> r = parse_iso(np.array([0, 21, 42]), np.frombuffer(text, np.uint8), np.array([True, True]),
    ...               ("T", "fraction"), np)
    >>> r.seconds[:1].tolist(), r.nanos[:1].tolist(), r.regular.tolist()
    ([1577934245], [500000000], [True, False])
    """
    sep, last = layout
    n = offsets.shape[0] - 1
    starts = offsets[:-1]
    lengths = offsets[1:] - starts
    width = 29 if last == "fraction" else _LENGTH[last]
    # Pad so that every row can be read at every layout position; bytes past a row's end are checked by length.
    padded = xp.concatenate([chars, xp.zeros(width, dtype=np.uint8)])

    def byte(position: int) -> Any:
        return padded[starts + position]

    if last == "fraction":
        regular = (lengths >= 21) & (lengths <= 29)
    else:
        regular = lengths == width
    regular = regular & valid
    for position, char in _SEPARATORS.items():
        if position < min(width, 20):
            regular &= byte(position) == ord(char)
    if sep:
        regular &= byte(10) == ord(sep)

    def number(start: int, count: int) -> Any:
        nonlocal regular
        value = xp.zeros(n, dtype=np.int64)
        for position in range(start, start + count):
            digit = byte(position).astype(np.int64) - ord("0")
            regular &= (digit >= 0) & (digit <= 9)
            value = value * 10 + digit
        return value

    year = number(*_FIELDS["year"])
    month = number(*_FIELDS["month"])
    day = number(*_FIELDS["day"])
    zero = xp.zeros(n, dtype=np.int64)
    hour = number(*_FIELDS["hour"]) if last != "date" else zero
    minute = number(*_FIELDS["minute"]) if last != "date" else zero
    second = number(*_FIELDS["second"]) if last in ("second", "fraction") else zero
    nanos = zero
    fine = xp.zeros(n, dtype=bool)
    if last == "fraction":
        digits = lengths - 20  # fraction digits of a regular row
        nanos = xp.zeros(n, dtype=np.int64)
        for k in range(
            9
        ):  # fraction digit k is at byte 20 + k; missing trailing digits count as 0
            present = digits > k
            digit = byte(20 + k).astype(np.int64) - ord("0")
            regular &= ~present | ((digit >= 0) & (digit <= 9))
            nanos = nanos * 10 + xp.where(present, digit, 0)
        fine = digits > 6

    month_index = xp.clip(month - 1, 0, 11)
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    month_days = xp.asarray(np.array(_MONTH_DAYS, dtype=np.int64))[month_index] + (
        leap & (month == 2)
    )
    regular &= (month >= 1) & (month <= 12) & (day >= 1) & (day <= month_days)
    regular &= (hour <= 23) & (minute <= 59) & (second <= 59)

    days = days_from_civil(year, xp.clip(month, 1, 12), day, xp)
    seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
    return IsoParse(seconds, nanos, regular, fine & regular)


def in_ns_bounds(seconds: Any, nanos: Any) -> Any:
    """Whether ``seconds * 10**9 + nanos`` (nanos in 0..999999999) fits int64 without being NaT.

    >>> import numpy as np
    >>> in_ns_bounds(np.array([0, 9223372036, 9223372036, -9223372037]), np.array([0, 854775807, 854775808, 0])).tolist()
    [True, True, False, False]
    """
    inside = (seconds > -9_223_372_037) & (seconds < 9_223_372_036)
    top = (seconds == 9_223_372_036) & (nanos <= 854_775_807)
    bottom = (seconds == -9_223_372_037) & (nanos >= 145_224_193)
    return inside | top | bottom


# Ticks of each pandas epoch unit, in nanoseconds.
_UNIT_NANOS = {"D": 86_400 * 10**9, "h": 3_600 * 10**9, "m": 60 * 10**9, "s": 10**9, "ms": 10**6, "us": 10**3,
               "ns": 1}  # fmt: skip


def unit_nanos(unit: str) -> int:
    """Nanoseconds in one ``unit`` (pandas' epoch units; raises ValueError for others)."""
    try:
        return _UNIT_NANOS[unit]
    except KeyError:
        raise ValueError(f"cannot cast unit {unit}") from None


def scale_integers(values: Any, unit: str, xp: Any) -> tuple[Any, str, Any]:
    """(int64 ticks, result unit, in-bounds) of integer epochs in ``unit``; pandas gives ``us`` except for ``ns``.

    >>> import numpy as np
    >>> ticks, unit, ok = scale_integers(np.array([1, 2**62]), "s", np)
    >>> int(ticks[0]), unit, ok.tolist()
    (1000000, 'us', [True, False])
    """
    out_unit = "ns" if unit == "ns" else "us"
    factor_ns = unit_nanos(unit)
    factor = factor_ns if out_unit == "ns" else max(factor_ns // 1_000, 1)
    if values.dtype == np.uint64:
        ok = values <= np.uint64(_INT64_MAX // factor)
        values = xp.where(ok, values, 0).astype(np.int64)
    else:
        values = values.astype(np.int64)
        limit = _INT64_MAX // factor
        ok = (values <= limit) & (values >= -limit)
    ticks = xp.where(ok, values, 0) * factor
    return ticks, out_unit, ok


def scale_floats(values: Any, unit: str, xp: Any) -> tuple[Any, Any]:
    """(int64 nanosecond ticks, in-bounds) of float epochs in ``unit``, rounded as pandas does.

    pandas splits a value into its integer part and its fraction, rounds the fraction to the unit's decimal
    precision and adds both in ticks, which keeps e.g. ``1.1`` seconds at exactly 1100 ms.

    >>> import numpy as np
    >>> ticks, ok = scale_floats(np.array([1.5, -1.5, np.nan]), "s", np)
    >>> ticks[:2].tolist(), ok.tolist()
    ([1500000000, -1500000000], [True, True, False])
    """
    m = unit_nanos(unit)
    precision = int(math.log10(m)) if m > 1 else 0
    finite = xp.isfinite(values)
    # Leave a margin below 2**63 so that the int64 conversion itself cannot overflow.
    ok = finite & (xp.abs(xp.where(finite, values, 0.0)) * m < 9.2e18)
    safe = xp.where(ok, values, 0.0)
    base = safe.astype(np.int64)  # truncates toward zero, as pandas
    frac = safe - base
    if precision:
        frac = xp.round(frac, precision)
    ticks = base * m + (frac * m).astype(np.int64)
    return ticks, ok
