"""Time zones for tz-aware datetime columns: UTC <-> wall time with one searchsorted and one gather.

A tz-aware column (``datetime64[unit, tz]``) stores UTC ticks, as pandas does, so ``tz_convert`` only changes
the dtype. What needs the zone's rules is the step between UTC and *wall* time (the calendar fields,
``strftime``, ``tz_localize``, rounding). This module turns a zone into a small host table, once per zone, and
then converts whole columns with array operations only:

* ``starts`` - the UTC instants (seconds) where the zone's offset or abbreviation changes, sorted;
* ``offsets`` / ``names`` - the UTC offset (seconds) and abbreviation of each interval; interval 0 lies before
  the first transition (for most zones the local mean time "LMT", as ``zoneinfo`` reports it).

UTC -> wall time is then ``ticks + offsets[searchsorted(starts, ticks, "right")]``: one ``searchsorted`` of the
column into the table and one gather, the same on NumPy and CuPy.

**Where the table comes from.** The transition instants are read from the zone's TZif file, found as
``zoneinfo`` finds it (the directories of ``zoneinfo.TZPATH``, then the ``tzdata`` package); the offset and
abbreviation of every interval are then asked of ``zoneinfo.ZoneInfo`` itself (``datetime.fromtimestamp``), so
they are exactly what pandas (which calls ``zoneinfo``) shows. A TZif file lists transitions only up to some
year; after that the zone follows the POSIX rule in its footer (e.g. "last Sunday of March"). Those rule
transitions are found by sampling ``ZoneInfo`` every 7 days and bisecting each change to the second, for 400
years from the first year after the listed transitions. The Gregorian calendar repeats every 400 years
(146097 days, a whole number of weeks), so any later instant is folded into that window before the search:
the table stays small and every year up to the end of the int64 range is exact. Fixed offsets
(``datetime.timezone``, ``"UTC"``) are a one-interval table.

**Wall time -> UTC** (``tz_localize``) follows pandas 3's rules for ``zoneinfo`` zones: a wall time is read with
``fold=0`` (the offset before a transition) and with ``fold=1`` (the offset after); each reading is valid if
converting it back gives the same wall time. Two different valid readings make the time *ambiguous* (clocks went
back), none makes it *nonexistent* (clocks jumped forward); ``ambiguous=`` / ``nonexistent=`` then decide, with
pandas' errors (``ValueError``) and its shift rules (``shift_forward`` moves to the next whole hour of wall time,
as pandas does, even in zones with a 30-minute jump). ``ambiguous="infer"`` takes each run of consecutive
ambiguous rows as one repeated hour and switches from the first reading to the second where the UTC values stop
increasing.

The per-zone tables are cached; a zone's table is a few hundred rows, and moving it to the device per call is
a small copy.
"""

from __future__ import annotations

import datetime as _dt
import functools
import os
import zoneinfo
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes

__all__ = ["ZoneTable", "astype", "interval_index", "localize", "resolve_tz", "to_wall", "utc_offsets",
           "zone_table"]

NAT = dtypes.NAT
_INT64_MAX = np.iinfo(np.int64).max
_CYCLE_SECONDS = 146_097 * 86_400  # 400 Gregorian years: the calendar (and a POSIX TZ rule) repeats
_WEEK = 7 * 86_400
_TICKS_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
# datetime.fromtimestamp covers years 1..9999; keep a day clear of either end
_FIRST_SECOND = -62_135_596_800 + 86_400
_LAST_SECOND = 253_402_300_799 - 86_400


class ZoneTable:
    """A zone's intervals: UTC ``starts`` (seconds, n), ``offsets`` (seconds, n+1), ``names`` (n+1).

    ``fold_base`` / ``cycle`` (seconds): instants at or after ``fold_base`` repeat every ``cycle`` seconds
    (None when the zone has no rule after its listed transitions).

    >>> import datetime as dt
    >>> table = zone_table(dt.timezone(dt.timedelta(hours=5, minutes=30)))
    >>> table.starts.tolist(), table.offsets.tolist(), table.names
    ([], [19800], ('UTC+05:30',))
    """

    __slots__ = ("starts", "offsets", "names", "fold_base", "cycle", "_device_cache")

    def __init__(self, starts: list[int], offsets: list[int], names: list[str], fold_base: int | None):
        self.starts = np.asarray(starts, dtype=np.int64)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.names = tuple(names)
        self.fold_base = fold_base
        self.cycle = _CYCLE_SECONDS
        self._device_cache: dict[tuple[str, str, int], Any] = {}

    @property
    def is_fixed(self) -> bool:
        return self.starts.shape[0] == 0

    def arrays(self, unit: str, xp: Any) -> tuple[Any, Any, Any, Any, int | None, int]:
        """(starts, offsets, fold-0 thresholds, fold-1 thresholds) in ticks of ``unit`` on ``xp``, plus the
        fold base and cycle in ticks (base None when no folding applies in this unit)."""
        key = (unit, xp.__name__, id(xp))
        cached = self._device_cache.get(key)
        if cached is not None:
            return cached
        per_second = _TICKS_PER_SECOND[unit]
        limit = _INT64_MAX // per_second - 2 * 86_400  # transitions the unit can hold (offsets added later)
        keep = np.abs(self.starts) <= limit
        starts = self.starts[keep]
        first = int(np.argmax(keep)) if keep.any() else len(self.starts)
        offsets = self.offsets[first : first + starts.shape[0] + 1]
        # zoneinfo's wall-time thresholds of each transition: for fold=0 the later of the two wall clocks, for
        # fold=1 the earlier (so a wall time in a gap or an overlap reads the offset before / after it).
        before, after = offsets[:-1], offsets[1:]
        threshold0 = starts + np.maximum(before, after)
        threshold1 = starts + np.minimum(before, after)
        base = None
        cycle = self.cycle * per_second
        if self.fold_base is not None and (self.fold_base + self.cycle) <= limit:
            base = self.fold_base * per_second
        arrays = tuple(xp.asarray(a * per_second) for a in (starts, offsets, threshold0, threshold1))
        cached = (*arrays, base, cycle)
        self._device_cache[key] = cached
        return cached


# --- which zone ---------------------------------------------------------------------------------
def resolve_tz(tz: Any, unit: str = "ns") -> pd.DatetimeTZDtype:
    """pandas' dtype for ``tz`` (a name, ``zoneinfo.ZoneInfo``, ``datetime.timezone``, pytz / dateutil zone).

    pandas normalizes the zone (``"UTC"`` becomes ``datetime.timezone.utc``) and raises its own errors for an
    unknown name (``zoneinfo.ZoneInfoNotFoundError``, a ``KeyError``).

    >>> resolve_tz("Europe/Berlin", "s")
    datetime64[s, Europe/Berlin]
    """
    if isinstance(tz, str):
        from pandas._libs.tslibs.timezones import maybe_get_tz

        tz = maybe_get_tz(tz)  # pandas' own parsing of a zone name (its error for an unknown one)
    return pd.DatetimeTZDtype(unit, tz)


def zone_table(tz: Any) -> ZoneTable:
    """The interval table of a tzinfo (cached per zone)."""
    if isinstance(tz, _dt.timezone):
        return _fixed_table(tz)
    if isinstance(tz, zoneinfo.ZoneInfo) and tz.key is not None:
        return _zoneinfo_table(tz.key)
    name = getattr(tz, "zone", None) or getattr(tz, "key", None)  # pytz zones carry their IANA name
    if isinstance(name, str):
        try:
            return _zoneinfo_table(zoneinfo.ZoneInfo(name).key)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            pass
    offset = tz.utcoffset(None) if hasattr(tz, "utcoffset") else None
    if offset is not None:  # a fixed-offset tzinfo of another library
        return ZoneTable([], [int(offset.total_seconds())], [tz.tzname(None) or ""], None)
    raise NotImplementedError(f"time zone {tz!r} ({type(tz).__name__}): riptide supports IANA names, "
                              "zoneinfo.ZoneInfo, datetime.timezone and pytz zones")  # fmt: skip


@functools.lru_cache(maxsize=None)
def _fixed_table(tz: _dt.timezone) -> ZoneTable:
    offset = tz.utcoffset(None)
    return ZoneTable([], [int(offset.total_seconds())], [tz.tzname(None)], None)


def _find_tzif(key: str) -> bytes:
    """The TZif bytes of ``key``, searched as ``zoneinfo`` searches: ``zoneinfo.TZPATH``, then ``tzdata``."""
    for directory in zoneinfo.TZPATH:
        path = os.path.join(directory, *key.split("/"))
        if os.path.isfile(path):
            with open(path, "rb") as f:
                return f.read()
    import importlib.resources

    package, _, name = ("tzdata.zoneinfo/" + key).rpartition("/")
    return importlib.resources.files(package.replace("/", ".")).joinpath(name).read_bytes()


def _parse_tzif(data: bytes) -> tuple[list[int], str]:
    """(transition instants in seconds, POSIX TZ footer) of a TZif file (RFC 8536), the 64-bit block if any."""
    if data[:4] != b"TZif":
        raise ValueError("not a TZif file")
    version = data[4:5]

    def counts(at: int) -> tuple[int, ...]:
        return tuple(int(c) for c in np.frombuffer(data, dtype=">u4", count=6, offset=at + 20))

    isut, isstd, leap, timecnt, typecnt, charcnt = counts(0)
    if version == b"\x00":
        times = np.frombuffer(data, dtype=">i4", count=timecnt, offset=44)
        return [int(t) for t in times], ""
    at = 44 + timecnt * 5 + typecnt * 6 + charcnt + leap * 8 + isstd + isut  # skip the 32-bit block
    isut, isstd, leap, timecnt, typecnt, charcnt = counts(at)
    times = np.frombuffer(data, dtype=">i8", count=timecnt, offset=at + 44)
    end = at + 44 + timecnt * 9 + typecnt * 6 + charcnt + leap * 12 + isstd + isut
    footer = data[end:].split(b"\n")
    return [int(t) for t in times], (footer[1].decode() if len(footer) > 1 else "")


@functools.lru_cache(maxsize=None)
def _zoneinfo_table(key: str) -> ZoneTable:
    zone = zoneinfo.ZoneInfo(key)

    def state(second: int) -> tuple[int, str]:
        local = _dt.datetime.fromtimestamp(second, zone)
        return int(local.utcoffset().total_seconds()), local.tzname() or ""

    try:
        listed, footer = _parse_tzif(_find_tzif(key))
    except (OSError, ValueError, ModuleNotFoundError):
        listed, footer = [], "rule"  # no readable file: sample the whole range below
    listed = [t for t in listed if _FIRST_SECOND <= t <= _LAST_SECOND]
    starts: list[int] = []
    states: list[tuple[int, str]] = [state(listed[0] - 1 if listed else _FIRST_SECOND)]
    for t in listed:
        s = state(t)
        if s != states[-1]:
            starts.append(t)
            states.append(s)
    fold_base = None
    if "," in footer or (not listed and footer):
        # The POSIX rule in force after the listed transitions has DST: sample it for 400 years.
        last = listed[-1] if listed else _dt.datetime(1900, 1, 1, tzinfo=_dt.timezone.utc).timestamp()
        first_year = _dt.datetime.fromtimestamp(last, _dt.timezone.utc).year + 1
        fold_base = int(_dt.datetime(first_year, 1, 1, tzinfo=_dt.timezone.utc).timestamp())
        end = fold_base + _CYCLE_SECONDS
        probe = int(last) + 1 if listed else fold_base
        previous = state(probe)
        if previous != states[-1]:
            starts.append(probe)
            states.append(previous)
        while probe < end + _WEEK:
            nxt = probe + _WEEK
            current = state(nxt)
            if current != previous:
                lo, hi = probe, nxt  # state(lo) == previous, state(hi) == current: find the first second
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    if state(mid) == previous:
                        lo = mid
                    else:
                        hi = mid
                starts.append(hi)
                states.append(current)
                previous = current
            probe = nxt
    return ZoneTable(starts, [o for o, _ in states], [n for _, n in states], fold_base)


# --- UTC -> wall ----------------------------------------------------------------------------------
def _fold(ticks: Any, base: int | None, cycle: int, xp: Any) -> tuple[Any, Any]:
    """Ticks at or after ``base`` moved back by whole cycles into the table's window, and the cycles removed."""
    if base is None:
        return ticks, None
    cycles = xp.where(ticks >= base, xp.floor_divide(ticks - base, cycle), 0)
    return ticks - cycles * cycle, cycles


def _interval(ticks: Any, starts: Any, base: int | None, cycle: int, xp: Any) -> Any:
    folded, _ = _fold(ticks, base, cycle, xp)
    return xp.searchsorted(starts, folded, side="right")


def interval_index(ticks: Any, tz: Any, unit: str, xp: Any) -> Any:
    """The table interval (index into ``zone_table(tz).offsets`` / ``.names``) of each UTC tick."""
    starts, _, _, _, base, cycle = zone_table(tz).arrays(unit, xp)
    if starts.shape[0] == 0:
        return xp.zeros(ticks.shape[0], dtype=np.int64)
    return _interval(ticks, starts, base, cycle, xp)


def utc_offsets(ticks: Any, tz: Any, unit: str, xp: Any) -> Any:
    """The UTC offset (in ticks of ``unit``) in force at each UTC tick (values at NaT rows are meaningless).

    >>> import numpy as np
    >>> utc_offsets(np.array([1_585_443_599, 1_585_443_600]), "Europe/Berlin", "s", np).tolist()
    [3600, 7200]
    """
    tz = _tzinfo(tz)
    starts, offsets, _, _, base, cycle = zone_table(tz).arrays(unit, xp)
    if starts.shape[0] == 0:
        return xp.zeros(ticks.shape[0], dtype=np.int64) + offsets[0]  # broadcast: no host read of the offset
    return offsets[_interval(ticks, starts, base, cycle, xp)]


def to_wall(ticks: Any, tz: Any, unit: str, xp: Any) -> Any:
    """UTC ticks as wall-clock ticks of ``tz`` (NaT stays NaT): what pandas shows and computes fields on.

    >>> import numpy as np
    >>> to_wall(np.array([0, NAT]), "Asia/Kolkata", "s", np).tolist() == [19_800, NAT]
    True
    """
    wall = ticks + utc_offsets(ticks, tz, unit, xp)
    return xp.where(ticks == NAT, np.int64(NAT), wall)


def _tzinfo(tz: Any) -> Any:
    return resolve_tz(tz).tz if isinstance(tz, str) else tz


# --- wall -> UTC ----------------------------------------------------------------------------------
_NONEXISTENT = ("raise", "NaT", "shift_forward", "shift_backward")


def _stamp(value: int, unit: str) -> str:
    return str(pd.Timestamp(np.datetime64(int(value), unit)))


def _first_row(flags: Any) -> int:
    return int(flags.argmax())  # one scalar read, on an error path: the row pandas names


def localize(wall: Any, tz: Any, unit: str, xp: Any, ambiguous: Any = "raise", nonexistent: Any = "raise") -> Any:
    """Wall-clock ticks of ``tz`` as UTC ticks, with pandas' ``ambiguous`` / ``nonexistent`` rules and errors.

    >>> import numpy as np
    >>> wall = np.array([1_603_589_400, 1_585_445_400])  # 2020-10-25 01:30 and 2020-03-29 01:30 (Berlin)
    >>> (localize(wall, "Europe/Berlin", "s", np) - wall).tolist()
    [-7200, -3600]
    """
    tz = _tzinfo(tz)
    if not (isinstance(nonexistent, _dt.timedelta | np.timedelta64) or nonexistent in _NONEXISTENT):
        raise ValueError("The nonexistent argument must be one of 'raise', 'NaT', 'shift_forward', "
                         "'shift_backward' or a timedelta object")  # fmt: skip
    table = zone_table(tz)
    starts, offsets, threshold0, threshold1, base, cycle = table.arrays(unit, xp)
    nat = wall == NAT
    n = wall.shape[0]
    if table.is_fixed:
        return xp.where(nat, np.int64(NAT), wall - offsets[0])
    folded, cycles = _fold(wall, base, cycle, xp)
    # fold=0 / fold=1 readings, each valid when its UTC instant shows this wall time again
    readings = []
    for thresholds in (threshold0, threshold1):
        utc = folded - offsets[xp.searchsorted(thresholds, folded, side="right")]
        valid = (utc + offsets[_interval(utc, starts, base, cycle, xp)] == folded) & ~nat
        if cycles is not None:
            utc = utc + cycles * cycle
        readings.append((utc, valid))
    (first, first_ok), (second, second_ok) = readings
    ambiguous_rows = first_ok & second_ok & (first != second)
    result = xp.where(first_ok, first, second)  # one valid reading (or two equal ones): that one
    missing = nat | ~(first_ok | second_ok)
    errors: list[tuple[Any, str]] = []  # (rows, message) of the 'raise' options; pandas names the first row

    if isinstance(ambiguous, str) and ambiguous == "infer":
        result = xp.where(ambiguous_rows, _infer_dst(wall, first, second, ambiguous_rows, unit, xp), result)
    elif isinstance(ambiguous, bool | np.bool_):
        result = xp.where(ambiguous_rows, first if ambiguous else second, result)
    elif not isinstance(ambiguous, str) and hasattr(ambiguous, "__iter__"):
        flags = _as_flags(ambiguous, n, xp)
        result = xp.where(ambiguous_rows & flags, first, xp.where(ambiguous_rows, second, result))
    elif ambiguous == "NaT":
        missing = missing | ambiguous_rows
    else:  # 'raise' (pandas treats any other string so)
        errors.append((ambiguous_rows, "Cannot infer dst time from {}, try using the 'ambiguous' argument"))

    gap = ~(first_ok | second_ok) & ~nat
    if not isinstance(nonexistent, str) and _delta_ticks(nonexistent, unit) == 0:
        nonexistent = "raise"  # pandas: a zero shift leaves nonexistent times to its error
    if nonexistent == "NaT":
        pass
    elif isinstance(nonexistent, str) and nonexistent == "raise":
        errors.append((gap, "{} is a nonexistent time due to daylight savings time. Try using the "
                            "'nonexistent' argument."))  # fmt: skip
    else:
        per_hour = 3_600 * _TICKS_PER_SECOND[unit]
        remainder = xp.remainder(wall, per_hour)
        forward = nonexistent == "shift_forward" if isinstance(nonexistent, str) else None
        if forward is None:
            shift = _delta_ticks(nonexistent, unit)
            # pandas refuses a shift that lands in the same hour again
            lands_again = gap & (shift + remainder > -1) & (shift + remainder < per_hour)
            errors.append((lands_again, f"The provided timedelta will relocalize on a nonexistent time: {nonexistent}"))
            new_wall, forward = wall + shift, shift > 0
        elif forward:
            new_wall = wall + (per_hour - remainder)
        else:
            new_wall = wall - remainder - 1
        # pandas 3.1 looks the shifted wall time up among the UTC transitions as if it were UTC and takes the
        # offset of the interval after it, or of that interval itself when moving forward into a non-negative
        # offset or when the zone's first offset has the sign of the move. Copied as pandas computes it
        # (it is an hour off for some backward shifts, e.g. Europe/Berlin with -2h). pandas' table ends in 2100,
        # riptide's rule does not: from 2100 on, such shifts may differ from pandas by that hour.
        new_folded, new_cycles = _fold(new_wall, base, cycle, xp)
        after = xp.searchsorted(starts, new_folded, side="right") + 1
        first_offset = int(table.offsets[0])
        step_back = 1 if (forward and first_offset > 0) or (not forward and first_offset < 0) else 0
        last = offsets.shape[0] - 1
        own = offsets[xp.clip(after - 1, 0, last)]
        chosen = offsets[xp.clip(after - step_back, 0, last)]
        if forward:
            chosen = xp.where(own >= 0, own, chosen)
        shifted = new_folded - chosen
        if new_cycles is not None:
            shifted = shifted + new_cycles * cycle
        result = xp.where(gap, shifted, result)
        missing = missing & ~gap
    if errors:
        any_error = [bool(rows.any()) for rows, _ in errors]  # one scalar read per option: must pandas raise?
        if any(any_error):
            firsts = [(_first_row(rows), message) for (rows, message), hit in zip(errors, any_error) if hit]
            row, message = min(firsts)
            raise ValueError(message.format(_stamp(wall[row], unit)) if "{}" in message else message)
    return xp.where(missing, np.int64(NAT), result)


def _as_flags(ambiguous: Any, n: int, xp: Any) -> Any:
    if hasattr(ambiguous, "_column"):  # a riptide Series
        ambiguous = ambiguous._column.data
    elif hasattr(ambiguous, "to_numpy"):
        ambiguous = ambiguous.to_numpy()
    if len(ambiguous) != n:
        raise ValueError("Length of ambiguous bool-array must be the same size as vals")
    return xp.asarray(ambiguous).astype(bool)


def _delta_ticks(delta: Any, unit: str) -> int:
    nanos = pd.Timedelta(delta).value
    return int(nanos // (1_000_000_000 // _TICKS_PER_SECOND[unit]))


def _infer_dst(wall: Any, first: Any, second: Any, ambiguous_rows: Any, unit: str, xp: Any) -> Any:
    """pandas' ``ambiguous="infer"``: each run of consecutive ambiguous rows is one repeated hour; rows up to the
    point where the first (DST) readings stop increasing take the first reading, the rest the second."""
    count = int(ambiguous_rows.sum())  # one scalar read: pandas' errors depend on it
    if count == 0:
        return first
    if count == 1:
        raise ValueError(f"Cannot infer dst time from {_stamp(wall[_first_row(ambiguous_rows)], unit)} as there "
                         "are no repeated times")  # fmt: skip
    previous = xp.concatenate([xp.zeros(1, dtype=bool), ambiguous_rows[:-1]])
    following = xp.concatenate([ambiguous_rows[1:], xp.zeros(1, dtype=bool)])
    run_start = ambiguous_rows & ~previous
    run_end = ambiguous_rows & ~following
    previous_first = xp.concatenate([first[:1], first[:-1]])
    switch = ambiguous_rows & previous & (first - previous_first <= 0)
    switches = xp.cumsum(switch)
    start_rows = xp.flatnonzero(run_start)
    end_rows = xp.flatnonzero(run_end)
    per_run = switches[end_rows] - switches[start_rows]
    lengths = end_rows - start_rows + 1
    bad = (lengths == 1) | (per_run != 1)
    if bool(bad.any()):  # one scalar read: pandas raises for the first run it cannot resolve
        j = _first_row(bad)
        if int(lengths[j]) == 1 or int(per_run[j]) == 0:
            raise ValueError(f"{_stamp(wall[int(start_rows[j])], unit)} is an ambiguous time and cannot be inferred.")
        raise ValueError(f"There are {int(per_run[j])} dst switches when there should only be 1.")
    run_of_row = xp.cumsum(run_start) - 1
    run_first = start_rows[xp.clip(run_of_row, 0, None)]
    after_switch = (switches - switches[run_first]) >= 1
    return xp.where(after_switch, second, first)


# --- casts --------------------------------------------------------------------------------------------
def astype(column: Any, dtype: Any) -> Any:
    """``astype`` where the source or the target is tz-aware, with pandas' rules and errors.

    tz-aware -> tz-aware (any zone, any unit) rescales the UTC ticks; -> int64 gives the UTC ticks (NaT as
    INT64_MIN, as pandas). Naive <-> aware raises pandas' TypeError pointing at ``tz_localize``.

    >>> import numpy as np
    >>> from riptide.core.column import NumericColumn
    >>> col = NumericColumn(np.array([1_500, NAT]), pd.DatetimeTZDtype("ms", "UTC"))
    >>> astype(col, pd.DatetimeTZDtype("s", "Asia/Kolkata")).data.tolist() == [1, NAT]
    True
    """
    from riptide.core.column import NumericColumn

    source = column.dtype
    source_tz, target_tz = dtypes.is_datetime_tz(source), dtypes.is_datetime_tz(dtype)
    if source_tz and target_tz:
        data = column.data
        have, want = _TICKS_PER_SECOND[source.unit], _TICKS_PER_SECOND[dtype.unit]
        if want >= have:
            scaled = data * (want // have)
        else:
            scaled = column.xp.floor_divide(data, have // want)
        return NumericColumn(column.xp.where(data == NAT, np.int64(NAT), scaled), dtype)
    if source_tz:
        if isinstance(dtype, np.dtype) and dtype.kind == "M":
            raise TypeError("Cannot use .astype to convert from timezone-aware dtype to timezone-naive dtype. Use "
                            "obj.tz_localize(None) or obj.tz_convert('UTC').tz_localize(None) instead.")  # fmt: skip
        if isinstance(dtype, np.dtype) and dtype == np.int64:
            return NumericColumn(column.data.copy())
        if isinstance(dtype, np.dtype) and dtype.kind in "iu":
            raise TypeError(f"Converting from {source} to {dtype} is not supported. Do obj.astype('int64')"
                            ".astype(dtype) instead")  # fmt: skip
        raise TypeError(f"Cannot cast DatetimeArray to dtype {dtype}")
    if isinstance(source, np.dtype) and source.kind == "M":
        raise TypeError("Cannot use .astype to convert from timezone-naive dtype to timezone-aware dtype. Use "
                        "obj.tz_localize instead or series.dt.tz_localize instead")  # fmt: skip
    if isinstance(source, np.dtype) and source.kind in "iu" and column.mask is None:
        return NumericColumn(column.data.astype(np.int64), dtype)  # epoch ticks, read as UTC
    raise TypeError(f"Cannot cast {source} to {dtype}")
