"""``rt.to_datetime``: strings and numeric epochs to ``datetime64`` on the device, pandas' rules and errors.

* Strings: the layout is inferred from the first row holding a date, as pandas infers its format, and the whole
  column is parsed on the device in that layout (:mod:`riptide.core.ops.parse_datetime`). Rows the strict device
  parser rejects (bad values, ``"NaT"``/``""``, unusual spellings pandas tolerates) are few by design; only they are
  copied to the host and parsed by pandas with the same format, so results, NaT handling and error messages are
  pandas' own. The unit is pandas 3's: ``us``, ``ns`` when some parsed row has more than six fraction digits,
  ``s`` when nothing parsed.
* Numbers with ``unit=`` (or nanoseconds by default): integer epochs become ``us`` ticks (``ns`` for ``unit="ns"``),
  floats ``ns`` ticks, by integer arithmetic on the device.
* Everything else (``format=`` other than an ISO layout, ``utc``, ``dayfirst``/``yearfirst``, non-ISO text,
  DataFrames of date parts) runs through pandas on the host, with a one-time warning naming the reason.
"""

from __future__ import annotations

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


def to_datetime(arg: Any, errors: str = "raise", format: str | None = None, unit: str | None = None,
                utc: bool = False, dayfirst: bool = False, yearfirst: bool = False) -> Any:  # fmt: skip
    """Convert strings or epoch numbers to ``datetime64``, as ``pandas.to_datetime``.

    >>> import riptide as rt
    >>> rt.to_datetime(rt.Series(["2020-01-02", None])).tolist()
    [Timestamp('2020-01-02 00:00:00'), NaT]
    >>> str(rt.to_datetime(rt.Series([1, 2]), unit="s").dtype)
    'datetime64[us]'
    """
    from riptide.core.column.build import is_scalar
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    if errors not in ("raise", "coerce"):
        raise ValueError(f"errors must be one of 'raise' or 'coerce', got {errors!r}")
    options = {"errors": errors, "format": format, "unit": unit, "utc": utc, "dayfirst": dayfirst,
               "yearfirst": yearfirst}  # fmt: skip
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


def _convert(column: Column, host: Any, options: dict[str, Any]) -> Any:
    """The converted column, or a finished riptide Series/Index when pandas did the work."""
    if options["utc"]:
        return _host(host, options, "utc=True")
    if options["dayfirst"] or options["yearfirst"]:
        return _host(host, options, "dayfirst/yearfirst")
    unit = options["unit"]
    if isinstance(column, StringColumn) and unit is None:
        fmt = options["format"]
        layout = None
        if fmt is not None:
            layout = parse.layout_of_format(fmt)
            if layout is None:
                return _host(host, options, f"format={fmt!r}")
        return _strings(column, layout, host, options)
    if isinstance(column, NumericColumn) and options["format"] is None:
        kind = column.kind
        if kind == "M":
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


def _strings(
    column: StringColumn,
    layout: tuple[str, str] | None,
    host: Any,
    options: dict[str, Any],
) -> Any:
    xp = column.xp
    n = column.size
    valid = column.notna()
    if layout is None:
        first = _first_date_row(column, valid)
        if first is None:
            if not bool(
                valid.any()
            ):  # one scalar read: all missing -> all NaT, pandas' datetime64[s]
                return NumericColumn(
                    xp.full(n, dtypes.NAT, dtype=np.int64), np.dtype("M8[s]")
                )
            return _host(
                host, options, None
            )  # only NaT spellings / "now": pandas' own semantics
        text = (
            column.take(xp.asarray(np.array([first], dtype=np.int64)))
            .to_arrow()[0]
            .as_py()
        )  # one value read
        layout = parse.guess_layout(text)
        if layout is None:
            return _host(
                host,
                options,
                "strings that are not ISO 8601 (YYYY-MM-DD[ HH:MM[:SS[.f]]])",
            )
        parsed = parse.parse_iso(column.offsets, column.chars, valid, layout, xp)
        if not bool(parsed.regular[first]):  # one scalar read
            # pandas infers no format from an invalid first date and parses element by element: its semantics.
            return _host(host, options, None)
    else:
        parsed = parse.parse_iso(column.offsets, column.chars, valid, layout, xp)
    irregular = valid & ~parsed.regular
    # One scalar read: rows the strict parser left to pandas (usually none).
    leftover = xp.nonzero(irregular)[0]
    n_left = int(leftover.shape[0])
    fine = bool(parsed.fine.any())  # one scalar read: the result unit
    left_ticks, left_unit = None, None
    if n_left:
        from riptide.frame.series import Series

        subset = Series._from_column(column.take(leftover)).to_pandas()
        left = pd.to_datetime(
            subset, errors=options["errors"], format=parse.LAYOUT_FORMATS[layout]
        )
        left_unit = np.datetime_data(left.dtype)[0]
        left_values = left.to_numpy().view(np.int64)
        if (left_values == dtypes.NAT).all():
            left_unit = None
        if left_unit not in (
            None,
            "us",
            "ns",
        ):  # pandas parsed in an unexpected unit: let it do everything
            return _host(host, options, None)
        left_ticks = xp.asarray(left_values)
    any_parsed = bool(
        parsed.regular.any()
    )  # one scalar read: all-NaT results are datetime64[s]
    if fine or left_unit == "ns":
        unit = "ns"
    elif any_parsed or left_unit == "us":
        unit = "us"
    else:
        return NumericColumn(xp.full(n, dtypes.NAT, dtype=np.int64), np.dtype("M8[s]"))
    if unit == "ns":
        outside = parsed.regular & ~parse.in_ns_bounds(parsed.seconds, parsed.nanos)
        if bool(outside.any()):  # one scalar read
            return _host(
                host, options, None
            )  # out of the ns range: pandas raises or coerces as it decides
        ticks = parsed.seconds * 10**9 + parsed.nanos
    else:
        ticks = parsed.seconds * 10**6 + parsed.nanos // 1_000
    ticks = xp.where(parsed.regular, ticks, dtypes.NAT)
    if left_ticks is not None:
        if unit == "ns" and left_unit == "us":
            present = left_ticks != dtypes.NAT
            limit = np.iinfo(np.int64).max // 1_000
            if not bool(
                (xp.abs(xp.where(present, left_ticks, 0)) <= limit).all()
            ):  # one scalar read
                return _host(host, options, None)
            left_ticks = xp.where(present, left_ticks * 1_000, dtypes.NAT)
        ticks[leftover] = left_ticks
    return NumericColumn(ticks, np.dtype(f"M8[{unit}]"))


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
