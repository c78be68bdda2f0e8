"""Parse pandas' duration strings (``"1 days 02:03:04.5"``, ``"1h30min"``, ``"-5min"``) into int64 nanoseconds
on the device, with element-wise xp arithmetic over the bytes of a string column.

Two spellings cover nearly all real data, and both are parsed with a cursor per row that walks the bytes (the
loop is over the tokens of the grammar, never over rows):

* *clock*: ``[+-][N day[s][,] [+]]H[H]:MM:SS[.ffffff]`` -- the sign applies to the days when there are days
  (pandas' ``"-1 days +02:00:00"`` is -22 hours), to the whole clock otherwise;
* *units*: ``[+-]`` then up to six ``number unit`` pieces, blanks allowed between tokens, the unit one of pandas'
  current spellings (``W D day days h hour hours m min minute minutes s sec second seconds ms us ns``). pandas
  scales a fractional number (``"1.5h"``) in floating point, so those rows are left to pandas.

A row is parsed only when its value is exact in microseconds (pandas' ``us`` result unit; a value with
nanoseconds or a nanosecond piece, or one pandas reads with deprecated or rare spellings, ISO 8601 ``P1DT2H``
durations, bare numbers, non-ASCII text, errors) is *unknown*: the caller hands just those rows to pandas, which
keeps pandas' values, units and error messages.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from riptide.core.kernels import segments

__all__ = ["TimedeltaParse", "parse_timedeltas"]

_NS = {"W": 7 * 86_400 * 10**9, "D": 86_400 * 10**9, "day": 86_400 * 10**9, "days": 86_400 * 10**9,
       "h": 3_600 * 10**9, "hour": 3_600 * 10**9, "hours": 3_600 * 10**9,
       "m": 60 * 10**9, "min": 60 * 10**9, "minute": 60 * 10**9, "minutes": 60 * 10**9,
       "s": 10**9, "sec": 10**9, "second": 10**9, "seconds": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}  # fmt: skip
# Longest spellings first: a unit must not be followed by another letter.
_UNITS = sorted(_NS, key=len, reverse=True)
_PIECES = 6
_POW10 = np.array([10**k for k in range(19)], dtype=np.int64)


class TimedeltaParse(NamedTuple):
    """Per row: ``nanos`` (valid where ``ok``), ``ok`` and ``null`` (``""`` / ``"NaT"``: NaT)."""

    nanos: Any
    ok: Any
    null: Any


def parse_timedeltas(offsets: Any, chars: Any, valid: Any, xp: Any) -> TimedeltaParse:
    """Parse each ``valid`` row of a string buffer as a pandas duration; rows not ``ok`` are left to the caller.

    >>> import numpy as np
    >>> raw = [b"1 days 02:03:04.5", b"1h30min", b"-5min", b"-1 days +02:00:00", b"1.5h", b""]
    >>> offsets = np.cumsum([0] + [len(r) for r in raw])
    >>> p = parse_timedeltas(offsets, np.frombuffer(b"".join(raw), np.uint8), np.ones(6, bool), np)
    >>> (p.nanos[p.ok] // 10**9).tolist(), p.ok.tolist(), p.null.tolist()
    ([93784, 5400, -300, -79200], [True, True, True, True, False, False], [False, False, False, False, False, True])
    """
    offsets = offsets.astype(np.int64, copy=False)
    starts, ends = offsets[:-1], offsets[1:]
    n = starts.shape[0]
    total = chars.shape[0]
    padded = xp.concatenate([chars.astype(np.uint8, copy=False), xp.zeros(1, dtype=np.uint8)])
    body = padded[:total]
    is_digit = (body >= 48) & (body <= 57)
    is_blank = body == 32
    zero = xp.zeros(n, dtype=np.int64)
    pow10 = xp.asarray(_POW10)

    def at(p: Any) -> Any:
        return xp.where(p < ends, padded[xp.clip(p, 0, total)], 0).astype(np.int64)

    def run_end(flags: Any, pos: Any) -> Any:
        return segments.run_end(flags, pos, ends, xp)

    def number(pos: Any, most: int) -> tuple[Any, Any, Any]:
        """(value, digits, end) of the digit run at ``pos``; runs longer than ``most`` are refused by the caller."""
        stop = run_end(is_digit, pos)
        digits = stop - pos
        value = zero
        for k in range(most):
            d = xp.clip(at(pos + k) - 48, 0, 9)
            value = xp.where(k < digits, value * 10 + d, value)
        return value, digits, stop

    def word(pos: Any, text: str) -> Any:
        same = xp.ones(n, dtype=bool)
        for k, char in enumerate(text.encode()):
            same = same & (at(pos + k) == char)
        follow = at(pos + len(text))
        letter = ((follow | 0x20) >= 97) & ((follow | 0x20) <= 122)
        return same & ~letter

    null = (ends == starts) | word(starts, "NaT") & (ends - starts == 3)
    first = at(starts)
    negative = first == ord("-")
    signed = negative | (first == ord("+"))
    head = starts + signed

    # clock: [N day[s][,] [+]]H[H]:MM:SS[.ffffff]
    days, day_digits, p = number(head, 9)
    p = run_end(is_blank, p)
    has_days = (day_digits >= 1) & (day_digits <= 9) & (p > head + day_digits)
    plural = word(p, "days")
    singular = word(p, "day")
    has_days = has_days & (plural | singular)
    p_after = p + xp.where(plural, 4, 3)
    p_after = p_after + (at(p_after) == ord(","))
    p_after = run_end(is_blank, p_after)
    p_after = p_after + (at(p_after) == ord("+"))
    clock_at = xp.where(has_days, p_after, head)
    hours, hour_digits, p = number(clock_at, 2)
    good = (hour_digits >= 1) & (hour_digits <= 2) & (at(p) == ord(":"))
    minutes, minute_digits, p = number(p + 1, 2)
    good = good & (minute_digits == 2) & (at(p) == ord(":"))
    seconds, second_digits, p = number(p + 1, 2)
    good = good & (second_digits == 2)
    has_fraction = at(p) == ord(".")
    fraction, fraction_digits, q = number(p + 1, 6)
    good = good & (~has_fraction | ((fraction_digits >= 1) & (fraction_digits <= 6)))
    p = xp.where(has_fraction, q, p)
    clock_ok = good & (p == ends)
    micros = xp.where(has_fraction, fraction * pow10[6 - xp.clip(fraction_digits, 0, 6)], 0)
    clock = ((hours * 60 + minutes) * 60 + seconds) * 10**9 + micros * 1_000
    day_ns = days * 86_400 * 10**9
    clock_value = xp.where(has_days, xp.where(negative, -day_ns, day_ns) + clock, xp.where(negative, -clock, clock))

    # units: [+-] (number[.fraction] unit)+, blanks between tokens
    p = run_end(is_blank, head)
    units_ok = valid & (p < ends)
    value = zero
    for _ in range(_PIECES):
        active = units_ok & (p < ends)
        whole, whole_digits, q = number(p, 12)
        fine = (whole_digits >= 1) & (whole_digits <= 12)
        dot = at(q) == ord(".")
        fraction, fraction_digits, r = number(q + 1, 9)
        fine = fine & (~dot | (fraction_digits <= 9))
        q = xp.where(dot, r, q)
        q = run_end(is_blank, q)
        scale = zero
        width = zero
        for unit in _UNITS:
            hit = (scale == 0) & word(q, unit)
            scale = xp.where(hit, _NS[unit], scale)
            width = xp.where(hit, len(unit), width)
        # a nanosecond piece ("0 ns" too) makes pandas' result unit ns whatever its value: leave it to pandas
        fine = fine & (scale > _NS["ns"]) & (whole <= (2**62 // xp.maximum(scale, 1)) // 8)
        # the fraction must be exact in microseconds (pandas' unit for these strings)
        frac_digits = xp.where(dot, fraction_digits, 0)
        fraction = xp.where(dot, fraction, 0)
        frac_ns_num = fraction * scale
        divisor = pow10[xp.clip(frac_digits, 0, 18)]
        exact = (frac_ns_num % (divisor * 1_000)) == 0
        # pandas scales a fraction in floating point (and may pick ns from its digits): leave those to pandas
        fine = fine & exact & ~dot
        piece = whole * scale + frac_ns_num // divisor
        units_ok = xp.where(active, units_ok & fine, units_ok)
        value = xp.where(active & fine, value + piece, value)
        p = xp.where(active, run_end(is_blank, q + width), p)
    units_ok = units_ok & (p == ends) & (value % 1_000 == 0)
    units_value = xp.where(negative, -value, value)

    ok = valid & ~null & (clock_ok | units_ok)
    nanos = xp.where(clock_ok, clock_value, units_value)
    return TimedeltaParse(nanos, ok, null & valid)
