"""``strftime``, ``day_name`` and ``month_name`` of datetime columns, built as a string column on the device.

The format is parsed once on the host into *pieces*: literal text and directives (``%Y``, ``%B``, ``%z``...).
Each piece gives every row a byte length and the byte at any position of its text, computed from the calendar
fields of the wall-clock ticks (:mod:`riptide.core.ops.datetime_fields`) with integer arithmetic. Three kinds
cover every supported directive:

* *digits* (``%Y %m %d %H %M %S %f %y %j %I %e``): a number in a fixed width, digit ``k`` being
  ``value // 10**(width-1-k) % 10`` (``%e`` pads with a space);
* *lookups* (``%b %B %a %A %p``, and ``%Z`` / ``%z`` of a tz-aware column): one entry of a small host table of
  strings, indexed per row (month, weekday, AM/PM, or the zone interval of the row: a zone has only a few
  offsets and abbreviations, so their texts are formatted on the host, once);
* *literals*: the same bytes in every row (``%%`` is the literal ``%``).

Building the column is then: the per-row lengths summed over pieces, one ``cumsum`` for the offsets (one
scalar read for the byte count), and per piece one scatter of its bytes to ``row start + length of the pieces
before it + k``. No loop over rows; the loop is over the pieces of the format.

English names only (``locale=None``), as pandas' default. NaT rows are missing (NaN in pandas' ``str``
dtype). A directive outside this set (``%U``, ``%c``, ``%-d``...) or a year outside 1000-9999 (where C's
``strftime`` does not pad ``%Y``) makes the caller fall back to pandas on the host: :func:`plan` returns the
reason, and the caller warns once per reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import StringColumn
from riptide.core.kernels import segments
from riptide.core.ops import datetime_fields as fields

__all__ = ["DAY_NAMES", "MONTH_NAMES", "SUPPORTED", "format_wall", "iso_text", "names", "plan"]

NAT = dtypes.NAT
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")  # fmt: skip
DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: The directives formatted on the device.
SUPPORTED = frozenset("YmdHMSfyjIebBaApZz%")

_DIGITS = {"Y": 4, "m": 2, "d": 2, "H": 2, "M": 2, "S": 2, "f": 6, "y": 2, "j": 3, "I": 2, "e": 2}
_POW10 = np.array([10**k for k in range(19)], dtype=np.int64)


def plan(date_format: str) -> tuple[list[tuple[str, str]], str | None]:
    """The pieces of a format — ``("lit", text)`` or ``("code", letter)`` — and the reason it must go to the host
    (the first unsupported directive), or None.

    >>> plan("%Y-%m %% x")
    ([('code', 'Y'), ('lit', '-'), ('code', 'm'), ('lit', ' '), ('lit', '%'), ('lit', ' x')], None)
    >>> plan("%U")[1]
    '%U'
    """
    pieces: list[tuple[str, str]] = []
    i = 0
    while i < len(date_format):
        j = date_format.find("%", i)
        if j < 0:
            pieces.append(("lit", date_format[i:]))
            break
        if j > i:
            pieces.append(("lit", date_format[i:j]))
        if j + 1 >= len(date_format):
            return pieces, "a trailing '%'"
        code = date_format[j + 1]
        if code not in SUPPORTED:
            return pieces, f"%{code}"
        pieces.append(("lit", "%") if code == "%" else ("code", code))
        i = j + 2
    return pieces, None


class _Lookup:
    """A piece whose text is ``table[index]`` per row (the table is small, on the host)."""

    def __init__(self, table: list[str] | tuple[str, ...], index: Any, xp: Any):
        encoded = [t.encode() for t in table]
        self.lengths_table = xp.asarray(np.array([len(e) for e in encoded], dtype=np.int64))
        self.starts_table = xp.asarray(np.concatenate([[0], np.cumsum([len(e) for e in encoded])[:-1]]).astype(np.int64))
        joined = b"".join(encoded)
        self.chars = xp.asarray(np.frombuffer(joined, dtype=np.uint8) if joined else np.zeros(1, np.uint8))
        self.index = index

    def lengths(self) -> Any:
        return self.lengths_table[self.index]

    def bytes_at(self, rows: Any, k: Any) -> Any:
        return self.chars[self.starts_table[self.index[rows]] + k]


class _Digits:
    """A number written in a fixed width, zero-padded (space-padded for ``%e``)."""

    def __init__(self, values: Any, width: int, space: bool, xp: Any):
        self.values, self.width, self.space, self.xp = values, width, space, xp

    def lengths(self) -> Any:
        return self.xp.full(self.values.shape[0], self.width, dtype=np.int64)

    def bytes_at(self, rows: Any, k: Any) -> Any:
        xp = self.xp
        value = self.values[rows]
        digit = xp.floor_divide(value, xp.asarray(_POW10)[self.width - 1 - k]) % 10 + 48
        if self.space:  # %e: a blank instead of a leading zero
            digit = xp.where((k == 0) & (value < 10), 32, digit)
        return digit.astype(np.uint8)


def _offset_text(seconds: int) -> str:
    """``%z`` of one UTC offset, as Python writes it: ``+HHMM``, with ``SS`` when there are seconds."""
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3_600)
    minutes, secs = divmod(rest, 60)
    return f"{sign}{hours:02d}{minutes:02d}" + (f"{secs:02d}" if secs else "")


def format_wall(wall: Any, unit: str, pieces: list[tuple[str, str]], zone: Any = None) -> StringColumn:
    """The strings of ``pieces`` (from :func:`plan`) for wall-clock int64 ``ticks`` (NaT rows missing).

    ``zone`` is None for naive values (``%Z`` / ``%z`` are empty, as in pandas) or ``(table, interval index per
    row)`` from :mod:`riptide.core.ops.timezones`.

    >>> import numpy as np
    >>> col = format_wall(np.array([951_827_400, NAT]), "s", plan("%a %d %b %Y %I:%M %p")[0])
    >>> col.to_pandas_array().tolist()
    ['Tue 29 Feb 2000 12:30 PM', nan]
    """
    xp = _device.namespace_of(wall)
    n = wall.shape[0]
    valid = wall != NAT
    ticks = xp.where(valid, wall, 0)
    cache: dict[str, Any] = {}

    def field(name: str) -> Any:
        if name not in cache:
            cache[name] = fields.date_field(ticks, unit, name, xp)
        return cache[name]

    made = []
    for kind, text in pieces:
        if kind == "lit":
            made.append(_Lookup([text], xp.zeros(n, dtype=np.int64), xp))
            continue
        if kind == "frac":  # the first `text` digits of the fraction of a second
            width = int(text)
            nanos = (ticks % fields.TICKS_PER_SECOND[unit]) * (1_000_000_000 // fields.TICKS_PER_SECOND[unit])
            made.append(_Digits(nanos // 10 ** (9 - width), width, False, xp))
            continue
        if text in _DIGITS:
            if text == "Y":
                value = field("year")
            elif text == "y":
                value = xp.remainder(field("year"), 100)
            elif text == "m":
                value = field("month")
            elif text in ("d", "e"):
                value = field("day")
            elif text == "H":
                value = field("hour")
            elif text == "I":
                value = (field("hour") + 11) % 12 + 1
            elif text == "M":
                value = field("minute")
            elif text == "S":
                value = field("second")
            elif text == "f":
                value = field("microsecond")
            else:  # "j"
                value = field("day_of_year")
            made.append(_Digits(value.astype(np.int64), _DIGITS[text], text == "e", xp))
        elif text in ("b", "B"):
            table = [m if text == "B" else m[:3] for m in MONTH_NAMES]
            made.append(_Lookup(table, field("month").astype(np.int64) - 1, xp))
        elif text in ("a", "A"):
            table = [d if text == "A" else d[:3] for d in DAY_NAMES]
            made.append(_Lookup(table, field("day_of_week").astype(np.int64), xp))
        elif text == "p":
            made.append(_Lookup(["AM", "PM"], (field("hour") >= 12).astype(np.int64), xp))
        elif text in ("Z", "z"):
            if zone is None:
                made.append(_Lookup([""], xp.zeros(n, dtype=np.int64), xp))
            else:
                table, interval = zone
                texts = list(table.names) if text == "Z" else [_offset_text(int(o)) for o in table.offsets]
                made.append(_Lookup(texts, interval, xp))
        else:  # pragma: no cover - plan() admits only the codes above
            raise ValueError(f"unsupported directive %{text}")
    return _assemble(made, valid, n, xp)


def iso_text(wall: Any, unit: str) -> StringColumn | None:
    """pandas' ``astype(str)`` of naive datetimes: one layout for the whole column, the shortest that shows every
    value exactly — ``YYYY-MM-DD`` when every value is a midnight, else ``YYYY-MM-DD HH:MM:SS`` with 3, 6 or 9
    fraction digits as the finest value needs. None for years outside 1-9999 (the caller asks pandas).

    >>> import numpy as np
    >>> iso_text(np.array([0, 86_400_500, NAT]), "ms").to_pandas_array().tolist()
    ['1970-01-01 00:00:00.000', '1970-01-02 00:00:00.500', nan]
    """
    xp = _device.namespace_of(wall)
    valid = wall != NAT
    ticks = xp.where(valid, wall, 0)
    per_second = fields.TICKS_PER_SECOND[unit]
    nanos = (ticks % per_second) * (1_000_000_000 // per_second)
    # years 1-9999, in seconds scaled to the unit as Python ints (in ns they pass int64: the ns range is 1677-2262,
    # so every valid ns value is inside them)
    lowest, highest = (max(min(int(np.datetime64(t, "s").astype(np.int64)) * per_second, 2**63 - 1), -(2**63) + 1)
                       for t in ("0001-01-01", "9999-12-31T23:59:59"))  # fmt: skip
    checks = [valid & ((ticks < lowest) | (ticks > highest)), valid & (ticks % (86_400 * per_second) != 0),
              valid & (nanos % 1_000_000 != 0), valid & (nanos % 1_000 != 0), valid & (nanos != 0)]  # fmt: skip
    # one scalar read: the layout is decided by the whole column
    out_of_range, any_time, micro, nano_digits, any_fraction = (
        bool(v) for v in _device.to_host(xp.stack([c.any() for c in checks])))
    if out_of_range:
        return None
    if not any_time:
        return format_wall(wall, unit, plan("%Y-%m-%d")[0])
    pieces = plan("%Y-%m-%d %H:%M:%S")[0]
    if any_fraction:
        width = 9 if nano_digits else (6 if micro else 3)
        pieces += [("lit", "."), ("frac", str(width))]
    return format_wall(wall, unit, pieces)


def _assemble(made: list[Any], valid: Any, n: int, xp: Any) -> StringColumn:
    """Concatenate the pieces row by row: lengths, one cumsum, one scatter per piece."""
    if xp is np and len(made) == 1 and isinstance(made[0], _Lookup):
        return _lookup_host(made[0], valid)
    lengths = [xp.where(valid, piece.lengths(), 0).astype(np.int64) for piece in made]
    total = xp.zeros(n, dtype=np.int64)
    for length in lengths:
        total = total + length
    offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(total, out=offsets[1:])
    size = int(offsets[-1])  # one scalar read: the size of the character buffer
    chars = xp.zeros(size, dtype=np.uint8)
    before = offsets[:-1].copy()  # where the next piece starts in each row
    for piece, length in zip(made, lengths):
        piece_offsets = xp.zeros(n + 1, dtype=np.int64)
        xp.cumsum(length, out=piece_offsets[1:])
        rows = segments.row_of_each_element(piece_offsets, xp)
        if rows.shape[0]:
            k = xp.arange(rows.shape[0], dtype=np.int64) - piece_offsets[:-1][rows]
            chars[before[rows] + k] = piece.bytes_at(rows, k)
        before = before + length
    # one scalar read: a column without missing rows carries no mask
    mask = None if bool(valid.all()) else valid
    return StringColumn(offsets, chars, mask)


def _lookup_host(piece: _Lookup, valid: Any) -> StringColumn:
    """A format that is one table lookup (``day_name``, ``month_name``), on NumPy: Arrow's binary take of the
    table's strings by row (a CPU-specific fast path, see :func:`~riptide.core.kernels.segments.take_pieces_host`),
    with an empty entry for missing rows. The same offsets and bytes as the per-byte scatter."""
    cuts = np.concatenate([piece.starts_table, piece.starts_table[-1:] + piece.lengths_table[-1:]])
    cuts = np.concatenate([cuts, cuts[-1:]])  # the empty entry
    empty = cuts.shape[0] - 2
    offsets, chars = segments.take_pieces_host(piece.chars, cuts, np.where(valid, piece.index, empty))
    mask = None if bool(valid.all()) else valid
    return StringColumn(offsets, chars, mask)


def names(wall: Any, unit: str, which: str) -> StringColumn:
    """``day_name()`` (``which="day"``) or ``month_name()`` of wall-clock ticks, English, NaT rows missing.

    >>> import numpy as np
    >>> names(np.array([0, NAT]), "s", "day").to_pandas_array().tolist()
    ['Thursday', nan]
    """
    return format_wall(wall, unit, [("code", "A" if which == "day" else "B")])
