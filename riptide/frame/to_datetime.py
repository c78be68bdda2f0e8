"""``rt.to_datetime``: strings and numeric epochs to ``datetime64`` on the device, pandas' rules and errors.

* Strings follow pandas' own strategy: one format for the whole column, given (``format=``) or inferred from the
  first row holding a date (pandas' ``guess_datetime_format``, with ``dayfirst``). The column is parsed on the
  device in that format: the seven ISO 8601 layouts by fixed byte positions
  (:func:`riptide.core.ops.parse_datetime.parse_iso`), every other strptime format (``%d/%m/%Y %I:%M %p``,
  ``%b %d %Y``, ``%z``...) by a vectorised greedy emulation of pandas' format regex
  (:func:`riptide.core.ops.parse_datetime.parse_format`). Each row comes out parsed, *failed* (pandas rejects it:
  NaT with ``errors="coerce"``) or *unknown* (an unusual spelling, a non-ASCII row, a row the regex might still
  match by backtracking). Only unknown rows are copied to the host and parsed by pandas with the same format, so
  values, NaT handling and the result unit stay pandas' own while the common case never leaves the device. Under
  ``errors="raise"`` a failed row makes pandas parse the whole input on the host, so that it raises its own error
  for the first bad value.
* The unit is pandas 3's: ``us``, ``ns`` when some parsed row has more than six fraction digits, ``s`` when
  nothing parsed. Offsets (``%z``, ``Z``) give pandas' fixed-offset zone when all rows agree, UTC with
  ``utc=True`` (naive strings are then taken as UTC); different offsets without ``utc=True`` are pandas' error.
* Numbers with ``unit=`` (nanoseconds by default), shifted by ``origin=``: integer epochs become ``us`` ticks
  (``ns`` for ``unit="ns"``), floats ``ns`` ticks, by integer arithmetic on the device.
* ``format="mixed"``, formats with directives the device lacks (``%U``, ``%c``...), strings whose format pandas
  cannot infer, and DataFrames of date parts run through pandas on the host with a one-time warning.
"""

from __future__ import annotations

import datetime
import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn, StringColumn
from riptide.core.ops import parse_datetime as parse

__all__ = ["to_datetime"]

_WARNED: set[str] = set()
# Strings pandas skips when it infers a format from the first element (they parse to NaT or to the clock).
_SKIPPED_BY_GUESS = ("", "NaT", "nat", "NAT", "nan", "NaN", "NAN", "now", "today")
_NO_DEFAULT: Any = object()
_UTC = datetime.timezone.utc


def to_datetime(arg: Any, errors: str = "raise", dayfirst: bool = False, yearfirst: bool = False, utc: bool = False,
                format: str | None = None, exact: Any = _NO_DEFAULT, unit: str | None = None, origin: Any = "unix",
                cache: bool = True) -> Any:  # fmt: skip
    """Convert strings or epoch numbers to ``datetime64``, as ``pandas.to_datetime``.

    >>> import riptide as rt
    >>> rt.to_datetime(rt.Series(["2020-01-02", None])).tolist()
    [Timestamp('2020-01-02 00:00:00'), NaT]
    >>> rt.to_datetime(rt.Series(["02/01/2020 1:30 PM"]), format="%d/%m/%Y %I:%M %p").tolist()
    [Timestamp('2020-01-02 13:30:00')]
    >>> str(rt.to_datetime(rt.Series(["2020-01-02 +0100"]), format="%Y-%m-%d %z", utc=True).dtype)
    'datetime64[us, UTC]'
    >>> str(rt.to_datetime(rt.Series([1, 2]), unit="s").dtype)
    'datetime64[us]'
    """
    from riptide.core.column.build import is_scalar
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    if errors not in ("raise", "coerce"):
        raise ValueError(f"errors must be one of 'raise' or 'coerce', got {errors!r}")
    options = {"errors": errors, "dayfirst": dayfirst, "yearfirst": yearfirst, "utc": utc, "format": format,
               "unit": unit, "cache": cache}  # fmt: skip
    if exact is not _NO_DEFAULT:
        options["exact"] = exact
    if not (isinstance(origin, str) and origin == "unix"):
        options["origin"] = origin
    if is_scalar(arg) or isinstance(arg, str):
        return pd.to_datetime(arg, **options)
    if isinstance(arg, DataFrame | pd.DataFrame):
        _warn_once("assembling datetimes from DataFrame columns")
        frame = arg.to_pandas() if isinstance(arg, DataFrame) else arg
        return Series(pd.to_datetime(frame, **options))
    if isinstance(arg, pd.Series):
        arg = Series(arg)
    elif not isinstance(arg, Series | Index):
        try:
            arg = Index(arg)
        except (TypeError, ValueError):
            _warn_once(f"input of {type(arg).__name__} riptide cannot hold")
            return Index(pd.to_datetime(arg, **options))
    column = arg._column if isinstance(arg, Series) else arg._as_column()
    host = arg.to_pandas
    result = _convert(column, host, options)
    if isinstance(result, Series | Index):
        return result
    if utc:
        result = _as_utc(result)
    if isinstance(arg, Series):
        return Series._from_column(result, arg.index, arg.name)
    return Index._from_column(result, arg.name)


def _warn_once(reason: str) -> None:
    if reason not in _WARNED:
        _WARNED.add(reason)
        warnings.warn(
            f"riptide.to_datetime: {reason} runs through pandas on the host",
            UserWarning,
            stacklevel=3,
        )


def _host(host: Any, options: dict[str, Any], reason: str | None) -> Any:
    """pandas' answer for the whole input, as a riptide Series/Index; warns (once) when ``reason`` is given."""
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    if reason is not None:
        _warn_once(reason)
    result = pd.to_datetime(host(), **options)
    return Series(result) if isinstance(result, pd.Series) else Index(result)


def _as_utc(column: NumericColumn) -> NumericColumn:
    """``utc=True``: naive ticks are taken as UTC; tz-aware ticks already are UTC, only the zone changes."""
    unit = dtypes.datetime_unit(column.dtype)
    return NumericColumn(column.data, pd.DatetimeTZDtype(unit, _UTC), column.mask)


def _convert(column: Column, host: Any, options: dict[str, Any]) -> Any:
    """The converted column, or a finished riptide Series/Index when pandas did the work."""
    unit = options["unit"]
    if "origin" in options:
        return _with_origin(column, host, options)
    if isinstance(column, StringColumn) and unit is None:
        return _strings(column, host, options)
    if isinstance(column, NumericColumn) and options["format"] is None:
        kind = column.kind
        if kind == "M" or dtypes.is_datetime_tz(column.dtype):
            return column.copy()
        if kind in "iu" or kind == "f":
            missing = (
                column.isna() | (column.data == dtypes.NAT)
                if column.data.dtype == np.int64
                else column.isna()
            )
            if unit is None and not bool((~missing).any()):  # one scalar read
                # Without a unit, pandas gives all-missing (or empty) numbers datetime64[s].
                return NumericColumn(
                    column.xp.full(column.size, dtypes.NAT, dtype=np.int64),
                    np.dtype("M8[s]"),
                )
            convert = _integers if kind in "iu" else _floats
            return convert(column, unit or "ns", host, options)
    return _host(host, options, f"input of dtype {column.dtype}")


def _with_origin(column: Column, host: Any, options: dict[str, Any]) -> Any:
    """``origin=``: pandas shifts the numbers by the origin counted in whole units, then reads them as epochs."""
    origin, unit = options["origin"], options["unit"] or "ns"
    if not isinstance(column, NumericColumn) or column.kind not in "iuf" or dtypes.is_masked(column.dtype):
        return _host(host, options, None)  # pandas raises for text, or handles masked numbers
    xp = column.xp
    if isinstance(origin, str) and origin == "julian":
        if unit != "D":
            return _host(host, options, None)  # pandas: unit must be 'D' for origin='julian'
        days = column.data.astype(np.float64) - pd.Timestamp(0).to_julian_date()
        inside = xp.isnan(days) | (
            (days >= pd.Timestamp.min.to_julian_date() - 2440587.5) & (days <= pd.Timestamp.max.to_julian_date() - 2440587.5)
        )
        if not bool(inside.all()):  # one scalar read: pandas raises OutOfBoundsDatetime naming the input
            return _host(host, options, None)
        return _floats(NumericColumn(days), "D", host, options)
    if column.kind == "f" and unit == "ns":
        return _host(host, options, None)  # float nanoseconds: pandas' rounding of the shifted floats
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas: 'unit' is unused for a Timestamp origin
            offset = pd.Timestamp(origin, unit=unit)
        if offset.tz is not None:
            raise ValueError("tz-aware origin")
        shift = (offset - pd.Timestamp(0)) // pd.Timedelta(1, unit=unit)
    except (ValueError, TypeError, OverflowError):
        return _host(host, options, None)  # pandas' own error for this origin
    if column.kind in "iu":
        shifted = NumericColumn(column.data.astype(np.int64) + np.int64(shift), mask=column.mask)
        return _integers(shifted, unit, host, options)
    return _floats(NumericColumn(column.data.astype(np.float64) + float(shift), mask=column.mask), unit, host, options)


# ---------------------------------------------------------------------------------------------------------------
# strings


def _strings(column: StringColumn, host: Any, options: dict[str, Any]) -> Any:
    xp = column.xp
    n = column.size
    valid = column.notna()
    fmt = options["format"]
    exact = options.get("exact", True)
    if fmt == "mixed":
        return _host(host, options, "format='mixed'")
    if fmt == "ISO8601":
        return _iso8601(column, valid, host, options)
    guessed = fmt is None
    first = None
    if guessed:
        first = _first_date_row(column, valid)
        if first is None:
            if not bool(valid.any()):  # one scalar read: all missing -> all NaT, pandas' datetime64[s]
                return NumericColumn(xp.full(n, dtypes.NAT, dtype=np.int64), np.dtype("M8[s]"))
            return _host(host, options, None)  # only NaT spellings / "now": pandas' own semantics
        text = column.take(xp.asarray(np.array([first], dtype=np.int64))).to_arrow()[0].as_py()  # one value read
        layout = None if options["dayfirst"] else parse.guess_layout(text)
        if layout is not None:
            fmt = parse.LAYOUT_FORMATS[layout]
        else:
            from pandas.tseries.api import guess_datetime_format

            fmt = guess_datetime_format(text, dayfirst=options["dayfirst"])
            if fmt is None:
                return _host(host, options, "strings whose format pandas cannot infer (parsed one by one)")
    layout = parse.layout_of_format(fmt)
    if layout is not None:
        iso = parse.parse_iso(column.offsets, column.chars, valid, layout, xp)
        result = parse.FormatParse(seconds=iso.seconds, nanos=iso.nanos, offset=None, ok=iso.regular,
                                   failed=xp.zeros(n, dtype=bool), unknown=valid & ~iso.regular, fine=iso.fine)  # fmt: skip
        tz, iso = False, True
    else:
        plan = parse.plan_format(fmt)
        if isinstance(plan, str):
            return _host(host, options, f"format={fmt!r} ({plan})")
        result = parse.parse_format(column.offsets, column.chars, valid, plan, exact, xp)
        tz, iso = plan.tz, plan.strict
    if first is not None and not bool(result.ok[first]):  # one scalar read
        # pandas infers no format from an invalid first date and parses element by element: its semantics.
        return _host(host, options, None)
    return _assemble(column, result, tz, iso, fmt, host, options)


def _iso8601(column: StringColumn, valid: Any, host: Any, options: dict[str, Any]) -> Any:
    """``format="ISO8601"``: each row in its own ISO layout; the device tries every layout it knows."""
    xp = column.xp
    n = column.size
    seconds = xp.zeros(n, dtype=np.int64)
    nanos = xp.zeros(n, dtype=np.int64)
    ok = xp.zeros(n, dtype=bool)
    fine = xp.zeros(n, dtype=bool)
    for layout in parse.LAYOUT_FORMATS:
        iso = parse.parse_iso(column.offsets, column.chars, valid & ~ok, layout, xp)
        seconds = xp.where(iso.regular, iso.seconds, seconds)
        nanos = xp.where(iso.regular, iso.nanos, nanos)
        fine = fine | iso.fine
        ok = ok | iso.regular
    result = parse.FormatParse(seconds=seconds, nanos=nanos, offset=None, ok=ok, failed=xp.zeros(n, dtype=bool),
                               unknown=valid & ~ok, fine=fine)  # fmt: skip
    return _assemble(column, result, False, True, "ISO8601", host, options)


def _assemble(column: StringColumn, result: Any, tz: bool, iso: bool, fmt: str, host: Any,
              options: dict[str, Any]) -> Any:
    """Ticks, unit and zone of the parsed rows, with pandas' answer for the unknown rows and pandas' errors."""
    from riptide.frame.series import Series

    xp = column.xp
    n = column.size
    errors, utc = options["errors"], options["utc"]
    if errors == "raise" and bool(result.failed.any()):  # one scalar read
        return _host(host, options, None)  # pandas raises its own error, naming the first bad value
    ok = result.ok
    leftover = xp.nonzero(result.unknown)[0]
    n_left = int(leftover.shape[0])  # one scalar read: rows for pandas (usually none)
    left_ticks, left_unit = None, None
    if n_left:
        if tz and not utc:
            return _host(host, options, None)  # the zone of the result depends on every row's offset
        subset = Series._from_column(column.take(leftover)).to_pandas()
        sub_options = {"errors": errors, "format": fmt, "utc": utc}
        if "exact" in options:
            sub_options["exact"] = options["exact"]
        try:
            left = pd.to_datetime(subset, **sub_options)
        except (ValueError, OverflowError):
            return _host(host, options, None)  # the whole input decides which error pandas raises
        if isinstance(left.dtype, pd.DatetimeTZDtype) and not utc:
            return _host(host, options, None)
        left_unit = dtypes.datetime_unit(left.dtype)
        left_values = left.array.asi8 if hasattr(left.array, "asi8") else left.to_numpy().view(np.int64)
        if (left_values == dtypes.NAT).all():
            left_unit = None
        if left_unit not in (None, "us", "ns"):  # pandas parsed in an unexpected unit: let it do everything
            return _host(host, options, None)
        left_ticks = xp.asarray(np.asarray(left_values, dtype=np.int64))
    fine = bool(result.fine.any())  # one scalar read: the result unit
    any_parsed = bool(ok.any())  # one scalar read: all-NaT results are datetime64[s]
    if fine or left_unit == "ns":
        unit = "ns"
    elif any_parsed or left_unit == "us":
        unit = "us"
    else:
        return NumericColumn(xp.full(n, dtypes.NAT, dtype=np.int64), np.dtype("M8[s]"))
    seconds, nanos = result.seconds, result.nanos
    if unit == "ns":
        outside = ok & ~parse.in_ns_bounds(seconds, nanos)
        if bool(outside.any()):  # one scalar read
            if errors == "raise" or iso:
                # pandas' OutOfBoundsDatetime; its ISO parser also changes the unit of a coerced result
                return _host(host, options, None)
            ok = ok & ~outside
        ticks = xp.where(ok, seconds, 0) * 10**9 + nanos
    else:
        ticks = seconds * 10**6 + nanos // 1_000
    ticks = xp.where(ok, ticks, dtypes.NAT)
    if left_ticks is not None:
        if unit == "ns" and left_unit == "us":
            present = left_ticks != dtypes.NAT
            limit = np.iinfo(np.int64).max // 1_000
            fits = xp.abs(xp.where(present, left_ticks, 0)) <= limit
            if not bool(fits.all()):  # one scalar read
                if errors == "raise":
                    return _host(host, options, None)
                present = present & fits
            left_ticks = xp.where(present, left_ticks * 1_000, dtypes.NAT)
        ticks[leftover] = left_ticks
    dtype: Any = np.dtype(f"M8[{unit}]")
    if tz and not utc and any_parsed:
        offsets = result.offset[xp.nonzero(ok)[0]]
        low, high = int(offsets.min()), int(offsets.max())  # two scalar reads: one zone for the column?
        if low != high:
            return _host(host, options, None)  # pandas: mixed time zones need utc=True
        dtype = pd.DatetimeTZDtype(unit, datetime.timezone(datetime.timedelta(minutes=low)))
    return NumericColumn(ticks, dtype)


def _first_date_row(column: StringColumn, valid: Any) -> int | None:
    """Index of the first non-missing row that is not a spelling pandas skips when it guesses a format."""
    xp = column.xp
    lengths = column.lengths()
    candidate = valid & (lengths > 0)
    short = candidate & (lengths <= 5)
    if bool(
        short.any()
    ):  # one scalar read: check the few short rows against the skipped spellings
        padded = xp.concatenate([column.chars, xp.zeros(5, dtype=np.uint8)])
        starts = column.offsets[:-1]
        for word in _SKIPPED_BY_GUESS[1:]:
            same = short & (lengths == len(word))
            for position, char in enumerate(word.encode()):
                same &= padded[starts + position] == char
            candidate &= ~same
    if not bool(candidate.any()):  # one scalar read
        return None
    return int(
        xp.argmax(candidate)
    )  # one scalar read: the row whose layout is the format


def _integers(
    column: NumericColumn, unit: str, host: Any, options: dict[str, Any]
) -> Any:
    xp = column.xp
    try:
        parse.unit_nanos(unit)
    except ValueError:
        return _host(host, options, None)
    missing = (
        column.isna() | (column.data == dtypes.NAT)
        if column.data.dtype == np.int64
        else column.isna()
    )
    ticks, out_unit, ok = parse.scale_integers(column.data, unit, xp)
    bad = ~ok & ~missing
    if bool(bad.any()):  # one scalar read: out-of-bounds epochs
        if options["errors"] == "raise":
            return _host(
                host, options, None
            )  # pandas raises OutOfBoundsDatetime naming the value
        missing = missing | bad
    return NumericColumn(
        xp.where(missing, dtypes.NAT, ticks), np.dtype(f"M8[{out_unit}]")
    )


def _floats(
    column: NumericColumn, unit: str, host: Any, options: dict[str, Any]
) -> Any:
    xp = column.xp
    try:
        parse.unit_nanos(unit)
    except ValueError:
        return _host(host, options, None)
    data = column.data.astype(np.float64)
    missing = column.isna() | xp.isnan(data)
    whole = missing | (xp.isfinite(data) & (data == xp.floor(data)))
    if bool(
        whole.all()
    ):  # one scalar read: pandas treats whole-number floats as integer epochs
        fits = xp.abs(xp.where(missing, 0.0, data)) < 9.2e18
        ints = NumericColumn(xp.where(fits & ~missing, data, 0.0).astype(np.int64))
        ticks, out_unit, ok = parse.scale_integers(ints.data, unit, xp)
        bad = ~(ok & fits) & ~missing
        if bool(bad.any()):  # one scalar read: out-of-bounds epochs
            if options["errors"] == "raise":
                return _host(host, options, None)
            missing = missing | bad
        return NumericColumn(
            xp.where(missing, dtypes.NAT, ticks), np.dtype(f"M8[{out_unit}]")
        )
    ticks, ok = parse.scale_floats(data, unit, xp)
    if bool(
        (~ok & ~missing).any()
    ):  # one scalar read: beyond the ns range pandas picks another unit or raises
        return _host(host, options, None)
    return NumericColumn(xp.where(missing, dtypes.NAT, ticks), np.dtype("M8[ns]"))
