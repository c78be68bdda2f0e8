"""JSON: ``read_json`` / ``to_json`` with pandas' orients; line-delimited records decoded by ``pyarrow.json``.

``read_json(..., lines=True)`` of flat records is the case worth a fast path (logs, exports): pyarrow parses the
lines on all cores and the columns get pandas' dtypes (:mod:`riptide.io._arrow`). pandas' own reader decides more
than pyarrow can express - it converts columns whose *names* look like dates (``date``, ``*_at``, ``timestamp``,
...), reads other orients (``columns``, ``index``, ``split``, ``table``), keeps nested values as Python objects - so
every other input is parsed by pandas on the host (a ``HostFallbackWarning``) and becomes riptide columns; pandas'
ValueError for malformed JSON is raised as it is. So are the records whose columns pandas changes after decoding
(text that is all numbers, which pandas converts; whole numbers beyond int64, its uint64) and bytes that are not
UTF-8 (its UnicodeDecodeError).

``to_json`` writes pandas' text (its float and date formatting, escaping and orients) through pandas on the host.
"""

from __future__ import annotations

import io
from typing import Any

import pandas as pd
import pyarrow as pa

from riptide.errors import warn_host_fallback
from riptide.io import _files
from riptide.io._arrow import column_like_pandas

__all__ = ["read_json", "to_json"]

_DATE_LIKE_NAMES = ("modified", "datetime", "date", "timestamp")


def _looks_like_date(label: Any) -> bool:
    """pandas' ``keep_default_dates`` rule: the names it converts to datetimes."""
    if not isinstance(label, str):
        return False
    lower = label.lower()
    return lower.endswith(("_at", "_time")) or lower.startswith("timestamp") or lower in _DATE_LIKE_NAMES


def read_json(path_or_buf: Any, *, orient: str | None = None, typ: str = "frame", dtype: Any = None,
              convert_dates: Any = True, keep_default_dates: bool = True, lines: bool = False,
              compression: Any = "infer", nrows: int | None = None, encoding: str | None = None,
              **kwargs: Any) -> Any:  # fmt: skip
    """Read JSON into a DataFrame (or Series with ``typ="series"``), as ``pandas.read_json``.

    >>> import io, riptide as rt
    >>> rt.read_json(io.StringIO('{"a": 1, "b": "x"}\\n{"a": 2, "b": null}\\n'), lines=True)["a"].tolist()
    [1, 2]
    """
    options = dict(orient=orient, typ=typ, dtype=dtype, convert_dates=convert_dates,
                   keep_default_dates=keep_default_dates, lines=lines, nrows=nrows, encoding=encoding,
                   **kwargs)  # fmt: skip
    path_or_buf = _files.stringify_path(path_or_buf)
    if isinstance(path_or_buf, str) and not _files.is_url(path_or_buf) and path_or_buf.lstrip()[:1] in ("{", "["):
        raise FileNotFoundError(f"File {path_or_buf} does not exist; pass JSON text wrapped in io.StringIO")
    stream = _files.open_for_read(path_or_buf, compression)
    try:
        data = stream.read()
    finally:
        if stream is not path_or_buf:
            stream.close()
    if isinstance(data, str):
        data = data.encode(encoding or "utf-8")
    reason = None
    if not (lines and typ == "frame" and orient in (None, "records") and dtype in (None, True) and nrows is None
            and not kwargs and (encoding or "utf-8").lower().replace("_", "-") in ("utf-8", "utf8")):  # fmt: skip
        reason = "only flat line-delimited records are decoded by pyarrow"
    else:
        try:
            frame = _read_lines_with_arrow(data, convert_dates, keep_default_dates)
            if frame is not None:
                return frame
            reason = "the records hold nested values, timestamps or date-named columns"
        except pa.ArrowInvalid:
            reason = "pyarrow rejected the text"
    return _read_with_pandas(data, options, reason)


def _read_lines_with_arrow(data: bytes, convert_dates: Any, keep_default_dates: bool) -> Any:
    import pyarrow.json as pajson

    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import default_index

    if not data.strip():
        return None  # pandas' answer for no records
    if not data.isascii():  # host bytes: Python's strict decoder (pandas' own) checks them, in C
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None  # pyarrow would keep the bytes; pandas' decoder raises UnicodeDecodeError
    table = pajson.read_json(io.BytesIO(data), read_options=pajson.ReadOptions(use_threads=True))
    columns = {}
    for field in table.schema:
        typ = field.type
        if not (pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_boolean(typ)
                or pa.types.is_string(typ) or pa.types.is_large_string(typ)):  # fmt: skip
            return None
        if _pandas_would_convert(table.column(field.name)):
            return None
        if convert_dates is not False and (keep_default_dates and _looks_like_date(field.name)
                                           or isinstance(convert_dates, list) and field.name in convert_dates):  # fmt: skip
            return None
        target = None
        if pa.types.is_integer(typ):
            target = pd.api.types.pandas_dtype("int64")
        elif pa.types.is_floating(typ):  # pandas downcasts a float column of whole numbers (no nulls) to int64
            target = pd.api.types.pandas_dtype("int64" if _whole_numbers(table.column(field.name)) else "float64")
        elif pa.types.is_boolean(typ):  # pandas' JSON reader makes bools with missing values floats (1.0/0.0/NaN)
            target = pd.api.types.pandas_dtype("float64" if table.column(field.name).null_count else "bool")
        columns[field.name] = column_like_pandas(table.column(field.name), target)
    return DataFrame._from_columns(columns, default_index(table.num_rows))


def _pandas_would_convert(values: Any) -> bool:
    """Whether pandas' reader changes this column after decoding it (then pandas reads the text): a text column
    whose values all parse as numbers (``"1"``, ``"2.5"``: pandas converts it), or whole numbers beyond int64
    (pyarrow decodes them as floats, pandas as uint64)."""
    import pyarrow.compute as pc

    if values.null_count == len(values):
        return False
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        try:  # a text column fails on its first value that is not a number: cheap for real text
            values.cast(pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return False
        return True
    if pa.types.is_floating(values.type):
        return bool((pc.max(pc.abs(values)).as_py() or 0.0) >= 2.0**63)
    return False


def _whole_numbers(values: Any) -> bool:
    """Whether a decoded (host) float column has no nulls and only whole numbers within int64, as pandas' JSON
    reader requires before it reads the column as int64."""
    import pyarrow.compute as pc

    if values.null_count or len(values) == 0:
        return False
    finite = pc.all(pc.is_finite(values)).as_py()
    return bool(finite and pc.all(pc.equal(pc.floor(values), values)).as_py()
                and pc.max(pc.abs(values)).as_py() < 2.0**63)  # fmt: skip


def _read_with_pandas(data: bytes, options: dict, reason: str) -> Any:
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series
    from riptide.io.csv import _same_option

    # options left at pandas' defaults are not passed: pandas 3 warns about convert_dates / keep_default_dates
    # whenever they are given, and the caller did not give them
    defaults = {"convert_dates": True, "keep_default_dates": True, "lines": False, "typ": "frame"}
    kwargs = {k: v for k, v in options.items()
              if (v is not None or k == "dtype") and not (k in defaults and _same_option(v, defaults[k]))}
    result = pd.read_json(io.BytesIO(data), **kwargs)
    warn_host_fallback("read_json", reason)
    if not isinstance(result, pd.Series | pd.DataFrame):  # chunksize=: pandas' reader of chunks
        from riptide.io.csv import HostChunks

        return HostChunks(result, lambda chunk: Series(chunk) if isinstance(chunk, pd.Series) else DataFrame(chunk))
    return Series(result) if isinstance(result, pd.Series) else DataFrame(result)


def to_json(obj: Any, path_or_buf: Any = None, *, compression: Any = "infer", **kwargs: Any) -> str | None:
    """Write ``obj`` as JSON exactly as pandas writes it; returns the text when ``path_or_buf`` is None."""
    host = obj.to_pandas()
    warn_host_fallback("to_json", "text is formatted by pandas' writer on the host")
    path_or_buf = _files.stringify_path(path_or_buf)
    if path_or_buf is None:
        return host.to_json(None, **kwargs)
    if _files.is_file_like(path_or_buf) and compression in ("infer", None):
        host.to_json(path_or_buf, **kwargs)
        return None
    method = _files.infer_compression(path_or_buf if not _files.is_file_like(path_or_buf) else None, compression)
    text = host.to_json(None, **kwargs)
    with _files.atomic_target(path_or_buf, method, compression) as sink:
        sink.write(text.encode("utf-8"))
    return None
