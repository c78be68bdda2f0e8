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

from riptide.core.kernels.scan import exclusive_cumsum
from riptide.core.kernels.segments import run_end
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
    host = xp is np and n > 0
    if host:
        # CPU path: every row's first ``width`` bytes copied at once (a window view gathered by row), transposed so
        # that each layout position is one contiguous array: no index array and no gather per position.
        by_position = np.ascontiguousarray(np.lib.stride_tricks.sliding_window_view(padded, width)[starts].T)

    def byte(position: int) -> Any:
        return by_position[position] if host else padded[starts + position]

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
        if host:
            # CPU path: the field's bytes checked at once (below "0" wraps to a large uint8) and summed in place;
            # sum((b - 48) * 10**k) is sum(b * 10**k) - 48 * 11...1, the same int64 as digit by digit
            block = by_position[start : start + count]
            regular &= ((block - np.uint8(48)) <= 9).all(axis=0)
            value = np.zeros(n, dtype=np.int64)
            for row in block:  # a loop over the field's few digit positions
                value *= 10
                value += row
            value -= 48 * int("1" * count)
            return value
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


# ---------------------------------------------------------------------------------------------------------------
# strptime formats (``format="%d/%m/%Y %I:%M %p"``) on the device
#
# pandas matches a non-ISO format with a regular expression built from the format (one alternation per directive,
# e.g. ``%d`` -> ``3[01]|[12]\d|0[1-9]|[1-9]| [1-9]``, whitespace -> ``\s+``, case-insensitive), anchored at the
# start (``exact=True``: the match must then reach the end) or searched (``exact=False``). The device emulates
# that regex *greedily*: every row keeps a cursor, and each piece of the format takes, at the cursor, the first
# alternative the regex would try that matches there. When the greedy walk reaches the end of the format, it is
# the regex's own first match (a backtracking matcher tries exactly that path first), so the parsed fields are
# pandas'. When it fails, the regex might still succeed by backtracking into a shorter alternative; that is only
# possible where a variable-width piece is followed by a piece that can begin with a character the first one could
# give back (``%H%M``: digits after digits). A format without such a pair is *decisive*: a greedy failure is a
# real failure (NaT under ``errors="coerce"``). Other failures are *unknown* and the caller reparses just those
# rows with pandas. Rows holding non-ASCII bytes that fail are always unknown (Python's ``\d``, ``\s`` and
# case-folding accept non-ASCII digits, spaces and letters).
# ---------------------------------------------------------------------------------------------------------------

#: Directives parsed on the device (``%%`` is a literal). Others (``%U %W %w %G %V %u %c %x %X``...) go to pandas.
STRPTIME_DIRECTIVES = frozenset("YymdHIMSfpbBaAjzZ")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")  # fmt: skip
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Two-digit / one-digit ranges of the regex alternations (lo2, hi2, lo1, hi1).
_NUMBER_RANGES = {"m": (1, 12, 1, 9), "d": (1, 31, 1, 9), "H": (0, 23, 0, 9), "I": (1, 12, 1, 9),
                  "M": (0, 59, 0, 9), "S": (0, 61, 0, 9)}  # fmt: skip
_WHITESPACE = (9, 10, 11, 12, 13, 28, 29, 30, 31, 32)  # ASCII bytes Python's str regex counts as \s
_DIGITS = frozenset(b"0123456789")
_LETTERS = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ZONE_NAME_BYTES = np.zeros(256, dtype=bool)
_ZONE_NAME_BYTES[list(_LETTERS | _DIGITS | frozenset(b"+-/_"))] = True

# pandas' test for the formats its C ISO 8601 parser handles (they are tried with that parser first).
_ISO_FORMAT = re.compile(r"%Y(?:([-/ \\.]?)%m(?:\1%d(?:[ T]%H(?::%M(?::%S(?:%z|\.%f(?:%z)?)?)?)?)?)?)?")


def format_is_iso(fmt: str) -> bool:
    """Whether pandas parses ``fmt`` with its ISO 8601 parser first (``%Y-%m-%d``, ``%Y%m%d``, ...).

    >>> format_is_iso("%Y/%m/%d %H:%M"), format_is_iso("%d/%m/%Y"), format_is_iso("%Y%m")
    (True, False, False)
    """
    return _ISO_FORMAT.fullmatch(fmt) is not None and fmt != "%Y%m"


class FormatPlan:
    """A strptime format cut into pieces: ``("lit", bytes)``, ``("ws", b"")`` (a whitespace run) and
    ``("code", letter)``; ``strict`` for ISO formats (fixed-width fields, exact separators); ``decisive`` when a
    greedy failure is a real failure; ``tz`` when a piece gives a UTC offset (``%z``/``%Z``)."""

    __slots__ = ("codes", "decisive", "format", "pieces", "strict", "tz")

    def __init__(self, fmt: str, pieces: list[tuple[str, Any]], strict: bool):
        self.format = fmt
        self.pieces = pieces
        self.strict = strict
        self.codes = [text for kind, text in pieces if kind == "code"]
        self.tz = "z" in self.codes or "Z" in self.codes
        self.decisive = not strict and "Z" not in self.codes and _is_decisive(pieces)


def plan_format(fmt: str) -> FormatPlan | str:
    """The :class:`FormatPlan` of a pandas strptime format, or the reason the device cannot parse it.

    >>> plan_format("%d/%m/%Y %H:%M").pieces
    [('code', 'd'), ('lit', b'/'), ('code', 'm'), ('lit', b'/'), ('code', 'Y'), ('ws', b''), ('code', 'H'), \
('lit', b':'), ('code', 'M')]
    >>> plan_format("%d/%m/%Y").decisive, plan_format("%H%M").decisive, plan_format("%U")
    (True, False, 'the directive %U')
    """
    pieces: list[tuple[str, Any]] = []

    def literal(text: str) -> None:
        for k, part in enumerate(re.split(r"\s+", text)):
            if k:
                pieces.append(("ws", b""))
            if part:
                if "\x00" in part or any(c.lower() != c.upper() and not c.isascii() for c in part):
                    raise _Unsupported("a literal the device cannot compare")  # case folding beyond ASCII
                pieces.append(("lit", part.encode()))

    try:
        i, pending = 0, ""
        while i < len(fmt):
            if fmt[i] != "%":
                pending += fmt[i]
                i += 1
                continue
            if i + 1 >= len(fmt):
                raise _Unsupported("a stray %")
            code = fmt[i + 1]
            i += 2
            if code == "%":
                pending += "%"
                continue
            if code not in STRPTIME_DIRECTIVES:
                raise _Unsupported(f"the directive %{code}")
            literal(pending)
            pending = ""
            pieces.append(("code", code))
        literal(pending)
    except _Unsupported as reason:
        return str(reason)
    # merge neighbouring literals / whitespace runs as the regex sees them
    merged: list[tuple[str, Any]] = []
    for kind, text in pieces:
        if merged and kind == "lit" and merged[-1][0] == "lit":
            merged[-1] = ("lit", merged[-1][1] + text)
        elif merged and kind == "ws" and merged[-1][0] == "ws":
            continue
        else:
            merged.append((kind, text))
    codes = [text for kind, text in merged if kind == "code"]
    if len(set(codes)) != len(codes):
        return "a directive given twice"
    if "I" in codes and "H" in codes:
        return "both %H and %I"
    if "z" in codes and "Z" in codes:
        return "both %z and %Z"
    if not codes:
        return "a format without directives"
    return FormatPlan(fmt, merged, strict=format_is_iso(fmt))


class _Unsupported(Exception):
    pass


def _first_bytes(kind: str, text: Any) -> frozenset[int]:
    """Bytes a piece can start with (lower and upper case for letters)."""
    if kind == "lit":
        first = text[0]
        return frozenset({first, ord(chr(first).upper()), ord(chr(first).lower())}) if first < 128 else frozenset({first})
    if kind == "ws":
        return frozenset(_WHITESPACE)
    if text in "bBaApZ":
        return frozenset(_LETTERS)
    if text == "z":
        return frozenset(b"+-Z")
    return _DIGITS | (frozenset(b" ") if text == "d" else frozenset())


def _is_decisive(pieces: list[tuple[str, Any]]) -> bool:
    """No variable-width piece is followed by a piece that may begin with a byte the first could give back."""
    for (kind, text), (next_kind, next_text) in zip(pieces, pieces[1:]):
        if kind != "code" or text in "YybBaApZ":
            continue  # fixed width, or alternatives that exclude each other
        give_back = _DIGITS | (frozenset(b":.") if text == "z" else frozenset())
        if give_back & _first_bytes(next_kind, next_text):
            return False
    return True


class FormatParse:
    """Result of :func:`parse_format`, per row: ``seconds`` (UTC when the format has an offset) and ``nanos``;
    ``ok`` (parsed), ``failed`` (a real failure: pandas raises or gives NaT), ``unknown`` (the caller asks pandas),
    ``fine`` (an ok row with more than six fraction digits: pandas' ``ns``), ``offset`` (minutes east of UTC)."""

    __slots__ = ("failed", "fine", "nanos", "offset", "ok", "seconds", "unknown")

    def __init__(self, **fields: Any):
        for name, value in fields.items():
            setattr(self, name, value)


def parse_format(offsets: Any, chars: Any, valid: Any, plan: FormatPlan, exact: bool, xp: Any) -> FormatParse:
    """Parse every ``valid`` row of a string buffer with a strptime :class:`FormatPlan`, as pandas' regex would.

    >>> import numpy as np
    >>> raw = [b"2/1/2020 1:05 PM", b"31/02/2020 1:00 AM", b"x"]
    >>> offsets = np.cumsum([0] + [len(r) for r in raw])
    >>> p = parse_format(offsets, np.frombuffer(b"".join(raw), np.uint8), np.ones(3, bool),
    ...                  plan_format("%d/%m/%Y %I:%M %p"), True, np)
    >>> p.seconds[:1].tolist(), p.ok.tolist(), p.failed.tolist()
    ([1577970300], [True, False, False], [False, True, True])
    """
    offsets = offsets.astype(np.int64, copy=False)
    starts, ends = offsets[:-1], offsets[1:]
    n = starts.shape[0]
    total = chars.shape[0]
    padded = xp.concatenate([chars.astype(np.uint8, copy=False), xp.zeros(1, dtype=np.uint8)])
    body = padded[:total]
    is_ws = xp.zeros(total, dtype=bool)
    for code in _WHITESPACE:
        is_ws |= body == code
    is_digit = (body >= 48) & (body <= 57)
    high = exclusive_cumsum(body >= 128, xp)
    non_ascii = (high[ends] - high[starts]) > 0

    if exact or plan.strict:
        shifts = [0]
    else:
        # exact=False: pandas searches; try each start offset up to the longest row (one scalar read)
        longest = int(xp.max(ends - starts)) if n else 0
        shifts = list(range(max(longest, 1)))
    zero = xp.zeros(n, dtype=np.int64)
    found = xp.zeros(n, dtype=bool)
    state = {name: zero for name in ("year", "month", "day", "hour", "minute", "second", "nanos", "width_f", "julian",
                                     "offset", "pm", "bad_z")}  # fmt: skip
    shift_of_match = zero
    for shift in shifts:
        ok, fields = _walk(plan, starts + shift, ends, padded, is_ws, is_digit, total, exact, xp)
        take = ok & ~found
        for name, value in fields.items():
            state[name] = xp.where(take, value, state[name])
        shift_of_match = xp.where(take, shift, shift_of_match)
        found = found | take
    matched = found & valid

    # Field values -> a date, validated as pandas does after the match.
    codes = set(plan.codes)
    year = state["year"] if "Y" in codes else zero + 1900
    if "y" in codes:
        year = xp.where(state["year"] <= 68, state["year"] + 2000, state["year"] + 1900)
    month = state["month"] if codes & {"m", "b", "B"} else zero + 1
    day = state["day"] if "d" in codes else zero + 1
    hour = state["hour"] if "H" in codes else zero
    if "I" in codes:
        twelve = state["hour"] % 12  # 12 AM is midnight
        hour = xp.where(state["pm"] == 1, twelve + 12, twelve) if "p" in codes else twelve
    minute = state["minute"] if "M" in codes else zero
    second = state["second"] if "S" in codes else zero
    nanos = state["nanos"] if "f" in codes else zero
    value_ok = matched
    if "j" in codes:
        days = days_from_civil(year, zero + 1, zero + 1, xp) + state["julian"] - 1
    else:
        safe_month = xp.clip(month, 1, 12)
        leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
        month_days = xp.asarray(np.array(_MONTH_DAYS, dtype=np.int64))[safe_month - 1] + (leap & (safe_month == 2))
        value_ok = value_ok & (day <= month_days)  # pandas: "day is out of range for month"
        days = days_from_civil(year, safe_month, day, xp)
    offset = state["offset"] if plan.tz else zero
    if plan.tz:
        value_ok = value_ok & (xp.abs(offset) < 24 * 60) & (state["bad_z"] == 0)  # inconsistent ":" in %z
    seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset * 60
    ok = value_ok
    fine = ok & (state["width_f"] > 6)

    null_spelling = _nat_spellings(starts, ends, padded, total, xp)
    special = _words(starts, ends, padded, total, ("now", "today"), xp)
    ok = ok & ~null_spelling
    post_match_failure = matched & ~value_ok  # the match was found: its value is what pandas rejects
    unmatched = valid & ~matched & ~null_spelling
    if plan.strict:
        unknown = unmatched | post_match_failure  # pandas' ISO parser may accept what the strict walk refuses
        failed = xp.zeros(n, dtype=bool)
    else:
        unknown = unmatched & (special | non_ascii)
        if not plan.decisive:
            unknown = unmatched
            if not exact:
                unknown = unknown | (matched & (shift_of_match > 0))  # an earlier start might match by backtracking
                ok = ok & ~unknown
        failed = (unmatched & ~unknown) | (post_match_failure & ~unknown)
        if not exact:
            failed = failed & ~non_ascii
            unknown = unknown | (valid & non_ascii & ~null_spelling)
            ok = ok & ~non_ascii
    return FormatParse(seconds=seconds, nanos=nanos, offset=offset, ok=ok, failed=failed & ~ok, unknown=unknown & ~ok,
                       fine=fine & ok)  # fmt: skip


def _words(starts: Any, ends: Any, padded: Any, total: int, words: tuple[str, ...], xp: Any) -> Any:
    """Rows that are exactly one of ``words``."""
    lengths = ends - starts
    out = xp.zeros(starts.shape[0], dtype=bool)
    for word in words:
        same = lengths == len(word)
        for k, char in enumerate(word.encode()):
            same &= padded[xp.minimum(starts + k, total)] == char
        out |= same
    return out


def _nat_spellings(starts: Any, ends: Any, padded: Any, total: int, xp: Any) -> Any:
    """Rows pandas reads as NaT before matching: the empty string and NaT / nan spellings."""
    return (ends == starts) | _words(starts, ends, padded, total, ("NaT", "nat", "NAT", "nan", "NaN", "NAN"), xp)


def _walk(plan: FormatPlan, starts: Any, ends: Any, padded: Any, is_ws: Any, is_digit: Any, total: int,
          exact: bool, xp: Any) -> tuple[Any, dict[str, Any]]:  # fmt: skip
    """One greedy walk of the format from ``starts``: (matched, fields)."""
    n = starts.shape[0]
    pos = starts
    ok = starts <= ends
    zero = xp.zeros(n, dtype=np.int64)
    fields: dict[str, Any] = {"width_f": zero, "pm": zero, "bad_z": zero}

    def at(p: Any) -> Any:
        return xp.where(p < ends, padded[xp.clip(p, 0, total)], 0).astype(np.int64)

    def digit(p: Any) -> Any:
        return at(p) - 48

    def isdigit(p: Any) -> Any:
        d = digit(p)
        return (d >= 0) & (d <= 9)

    def fixed(p: Any, width: int) -> tuple[Any, Any]:
        value, good = zero, ok
        for k in range(width):
            good = good & isdigit(p + k)
            value = value * 10 + xp.clip(digit(p + k), 0, 9)
        return value, good

    def name_table(p: Any, table: tuple[str, ...]) -> tuple[Any, Any]:
        index, width = zero - 1, zero
        for i, name in enumerate(table):
            same = ok
            for k, char in enumerate(name.encode()):
                same = same & ((at(p + k) | 0x20) == char)
            index = xp.where(same & (index < 0), i, index)
            width = xp.where(same, len(name), width)
        return index, width

    for kind, text in plan.pieces:
        if kind == "lit":
            for k, char in enumerate(text):
                got = at(pos + k)
                if chr(char).isascii() and chr(char).isalpha() and not plan.strict:
                    ok = ok & ((got | 0x20) == (char | 0x20))
                else:
                    ok = ok & (got == char)
            pos = pos + len(text)
        elif kind == "ws":
            if plan.strict:  # the ISO separator: exactly one blank
                ok = ok & (at(pos) == 32)
                pos = pos + 1
            else:
                stop = run_end(is_ws, pos, ends, xp)
                ok = ok & (stop > pos)
                pos = stop
        elif text in ("Y", "y"):
            width = 4 if text == "Y" else 2
            value, ok = fixed(pos, width)
            fields["year"] = value
            pos = pos + width
        elif text in _NUMBER_RANGES:
            lo2, hi2, lo1, hi1 = _NUMBER_RANGES[text]
            v2 = digit(pos) * 10 + digit(pos + 1)
            two = isdigit(pos) & isdigit(pos + 1) & (v2 >= lo2) & (v2 <= hi2)
            if plan.strict:
                one = xp.zeros(n, dtype=bool)
            else:
                one = ~two & isdigit(pos) & (digit(pos) >= lo1) & (digit(pos) <= hi1)
            value = xp.where(two, v2, digit(pos))
            width = xp.where(two, 2, xp.where(one, 1, 0))
            good = two | one
            if text == "d" and not plan.strict:  # "%d" also matches a blank and one digit
                blank = ~good & (at(pos) == 32) & isdigit(pos + 1) & (digit(pos + 1) >= 1)
                value = xp.where(blank, digit(pos + 1), value)
                width = xp.where(blank, 2, width)
                good = good | blank
            ok = ok & good
            fields[{"m": "month", "d": "day", "H": "hour", "I": "hour", "M": "minute", "S": "second"}[text]] = value
            pos = pos + width
        elif text == "j":
            v3 = digit(pos) * 100 + digit(pos + 1) * 10 + digit(pos + 2)
            three = isdigit(pos) & isdigit(pos + 1) & isdigit(pos + 2) & (v3 >= 1) & (v3 <= 366)
            v2 = digit(pos) * 10 + digit(pos + 1)
            two = ~three & isdigit(pos) & isdigit(pos + 1) & (v2 >= 1)
            one = ~three & ~two & isdigit(pos) & (digit(pos) >= 1)
            ok = ok & (three | two | one)
            fields["julian"] = xp.where(three, v3, xp.where(two, v2, digit(pos)))
            pos = pos + xp.where(three, 3, xp.where(two, 2, 1))
        elif text == "f":
            run = run_end(is_digit, pos, ends, xp) - pos
            width = xp.minimum(run, 9)
            if plan.strict:
                ok = ok & (run <= 9)
            ok = ok & (width >= 1)
            nanos = zero
            for k in range(9):
                nanos = nanos * 10 + xp.where(k < width, xp.clip(digit(pos + k), 0, 9), 0)
            fields["nanos"] = nanos
            fields["width_f"] = width
            pos = pos + width
        elif text == "p":
            first, second = at(pos) | 0x20, at(pos + 1) | 0x20
            am = (first == ord("a")) & (second == ord("m"))
            pm = (first == ord("p")) & (second == ord("m"))
            ok = ok & (am | pm)
            fields["pm"] = pm.astype(np.int64)
            pos = pos + 2
        elif text in "bB":
            table = tuple(m[:3] for m in _MONTHS) if text == "b" else _MONTHS
            index, width = name_table(pos, table)
            ok = ok & (index >= 0)
            fields["month"] = index + 1
            pos = pos + width
        elif text in "aA":
            index, width = name_table(pos, tuple(d[:3] for d in _DAYS) if text == "a" else _DAYS)
            ok = ok & (index >= 0)  # the weekday is matched but not used, as in pandas
            pos = pos + width
        elif text == "Z":
            # exactly "UTC" or "GMT": pandas looks the matched name up case-sensitively (other spellings raise)
            name = at(pos) * 65536 + at(pos + 1) * 256 + at(pos + 2)
            utc = (name == (ord("U") * 65536 + ord("T") * 256 + ord("C"))) | (
                name == (ord("G") * 65536 + ord("M") * 256 + ord("T")))
            follows = xp.asarray(_ZONE_NAME_BYTES)[at(pos + 3)]
            ok = ok & utc & ~((pos + 3 < ends) & follows)  # a longer zone name would be another zone
            fields["offset"] = zero
            pos = pos + 3
        else:  # "z": [+-]HH[:]MM, then optionally [:]SS[.ffffff], or "Z"
            sign = at(pos)
            zulu = sign == ord("Z")
            signed = (sign == ord("+")) | (sign == ord("-"))
            hh, good_h = fixed(pos + 1, 2)
            colon = at(pos + 3) == ord(":")
            mpos = pos + 3 + colon
            mm = digit(mpos) * 10 + digit(mpos + 1)
            good_m = isdigit(mpos) & isdigit(mpos + 1) & (digit(mpos) <= 5)
            spos = mpos + 2
            scolon = at(spos) == ord(":")
            sstart = spos + scolon
            has_s = isdigit(sstart) & isdigit(sstart + 1) & (digit(sstart) <= 5)
            if plan.strict:
                has_s = xp.zeros(n, dtype=bool)
            end = xp.where(has_s, sstart + 2, spos)
            frac_run = run_end(is_digit, end + 1, ends, xp) - (end + 1)
            has_frac = has_s & (at(end) == ord(".")) & (frac_run >= 1)
            end = xp.where(has_frac, end + 1 + xp.minimum(frac_run, 6), end)
            good = signed & good_h & good_m
            ok = ok & (zulu | good)
            minutes = hh * 60 + mm
            fields["offset"] = xp.where(zulu, 0, xp.where(sign == ord("-"), -minutes, minutes))
            # pandas rejects a ':' after the hours without one before the seconds, and the reverse
            fields["bad_z"] = (good & has_s & (colon != scolon)).astype(np.int64)
            pos = xp.where(zulu, pos + 1, end)
    if exact or plan.strict:
        ok = ok & (pos == ends)
    else:
        ok = ok & (pos <= ends)
    return ok, fields
