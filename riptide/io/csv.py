"""CSV: ``read_csv`` parsed on the device (GPU) or through pyarrow's multithreaded parser, ``to_csv`` through
pandas' formatter on the host.

Reading
-------
On the GPU the file's bytes go to the device and :mod:`riptide.io.csv_device` finds rows and fields and parses the
columns there, for the options it covers (``engine="riptide"`` asks for it on the CPU too, where it is slower than
pyarrow); anything else, and any file it declines (odd quoting, other encodings, ...), takes the pyarrow path
below, which gives the same result.

pandas' options are mapped onto pyarrow's ``ReadOptions`` / ``ParseOptions`` / ``ConvertOptions`` and the result is
brought to the dtypes pandas' C parser gives (:func:`riptide.io._arrow.column_like_pandas`):

* pandas 3 does not guess dates: pyarrow's timestamp inference is switched off (a ``timestamp_parsers`` entry that
  never matches), ``date32`` columns pyarrow still infers are cast back to their text (exact: pyarrow infers
  ``date32`` only for ``YYYY-MM-DD``), and ``time32`` columns are read again as text. ``parse_dates`` columns are
  read as text and converted by :func:`riptide.to_datetime`, so their unit is the one pandas infers.
* pandas' default missing-value strings and ``True``/``False`` spellings replace pyarrow's, integers with
  missing values become ``float64``, an unnamed header field becomes ``"Unnamed: {i}"``.
* ``dtype=`` is given to pyarrow as the column's Arrow type, so a value that does not parse raises here: a
  ValueError naming the column and the row.

Whatever pyarrow cannot express (``thousands``, ``decimal=","``, ``comment``, a regex ``sep``, a list of
``skiprows``, ``skipfooter``, ``converters``, duplicated header names, integers beyond int64, ...) or rejects
(rows with missing fields, which pandas fills with NaN) is read by pandas' own parser on the host, with a
``HostFallbackWarning``; pandas then also raises pandas' errors (``ParserError`` naming the line of a row with too
many fields, ``EmptyDataError`` for an empty file).

Several files (a list of paths, a glob, or a directory's ``.csv``/``.tsv``/``.txt``/``.dat`` files, compressed
or not) are read one by one with the same options, each with its own header, and stacked in file order with a fresh
RangeIndex (the files' own index with ``index_col``), as Dask and Polars read them; pandas reads one file only.

Bytes that are not valid in the encoding raise pandas' ``UnicodeDecodeError`` (through pandas' reader: pyarrow would
keep such a column as bytes, the device parser checks the buffer's UTF-8 first).

``byte_range=(offset, size)`` reads the rows that *start* inside ``[offset, offset + size)``, as cuDF and Dask define
it: a row that begins before ``offset`` belongs to the previous range, the row that straddles the end belongs to
this one. The header comes from the start of the file unless ``names`` or ``header=None`` say otherwise.

Writing
-------
``to_csv`` must write pandas' text byte for byte: ``repr``-style floats (``1.0``, ``1e+20``), ``True``/``False``,
pandas' datetime formatting and its quoting rules; pyarrow's writer differs on all four. The text is made where the
data lives by :mod:`riptide.io.csv_write_device` (every column formatted by array code, the rows assembled with one
scatter per column, the bytes copied to the host once), on the CPU too, where it is several times faster than
pandas. Options it does not cover (``float_format``, ``date_format``, quoting other than minimal, ``decimal=","``,
encodings other than UTF-8, ``mode="a"``, timedeltas, tz-aware datetimes, ...) are written by pandas on the host
(one ``HostFallbackWarning``). Files are written through an atomic temporary file.
"""

from __future__ import annotations

import csv as csv_module
import io
import os
import re
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from riptide import _device
from riptide.errors import warn_host_fallback
from riptide.io import _files
from riptide.io._arrow import column_like_pandas

__all__ = ["read_csv", "to_csv"]

# pandas' default missing-value spellings (pandas._libs.parsers.STR_NA_VALUES), written out: riptide does not
# import pandas' private modules.
DEFAULT_NA_VALUES = (
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA",
    "NULL", "NaN", "None", "n/a", "nan", "null",
)  # fmt: skip


def _every_case(word: str) -> tuple[str, ...]:
    """``word`` in every mix of upper and lower case: pandas' C parser reads booleans case-insensitively."""
    import itertools

    return tuple("".join(chars) for chars in itertools.product(*[(c.upper(), c.lower()) for c in word]))


_TRUE = _every_case("true")  # "True", "tRuE", ... (pyarrow's true_values are exact matches)
_FALSE = _every_case("false")
_NEVER_A_TIMESTAMP = "\x00never\x00%Y"  # a strptime format no CSV field matches: turns timestamp inference off
_NO_DEFAULT = object()


class _Fallback(Exception):
    """pyarrow cannot express an option (or gives another answer than pandas): read with pandas."""


def _arrow_type_for(dtype: Any) -> Any:
    """The Arrow type pyarrow should parse a column as for pandas ``dtype``; None: infer, cast afterwards."""
    if dtype is str or dtype == "str" or dtype == "string" or dtype is object or dtype == "object":
        return pa.string()
    try:
        pandas_dtype = pd.api.types.pandas_dtype(dtype)
    except TypeError:
        raise _Fallback(f"dtype {dtype!r}") from None
    if isinstance(pandas_dtype, pd.StringDtype):
        return pa.string()
    if isinstance(pandas_dtype, pd.CategoricalDtype):
        return None
    if isinstance(pandas_dtype, np.dtype) and pandas_dtype.kind in "iufb":
        return pa.from_numpy_dtype(pandas_dtype)
    if isinstance(pandas_dtype, pd.api.extensions.ExtensionDtype) and pandas_dtype.name in (
            "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "Float32", "Float64",
            "boolean"):  # fmt: skip
        return pa.from_numpy_dtype(pandas_dtype.numpy_dtype)
    raise _Fallback(f"dtype {dtype!r}")


def _source_bytes(source: Any, compression: Any, encoding: str | None) -> Any:
    """What pyarrow reads: a local path as it is (pyarrow reads it in parallel), else the decompressed bytes."""
    source = _files.stringify_path(source)
    method = _files.infer_compression(source if not _files.is_file_like(source) else getattr(source, "name", None),
                                      compression)  # fmt: skip
    if isinstance(source, str) and not _files.is_url(source):
        _files.check_exists(source)
        if method is None:
            return source
    if _files.is_file_like(source) and not hasattr(source, "read"):
        raise ValueError("read_csv needs a path or a readable file-like object")
    with_text = _files.is_file_like(source) and isinstance(source.read(0), str)
    if with_text:  # text already decoded by the caller: pyarrow gets it as UTF-8
        return io.BytesIO(source.read().encode("utf-8"))
    stream = _files.open_for_read(source, compression)
    try:
        return io.BytesIO(stream.read())
    finally:
        if stream is not source:
            stream.close()


def _rewind(source: Any) -> Any:
    if isinstance(source, io.BytesIO):
        source.seek(0)
    return source


def _slice_byte_range(data: bytes, offset: int, size: int) -> bytes:
    """The bytes of the rows that start in ``[offset, offset + size)`` (newline-terminated rows)."""
    n = len(data)
    if offset < 0 or size < 0:
        raise ValueError(f"byte_range must be non-negative, got {(offset, size)}")
    start = 0 if offset == 0 else data.find(b"\n", offset - 1) + 1
    if offset > 0 and start == 0:  # no newline after offset: no row starts in the range
        return b""
    stop_at = offset + size
    if start >= stop_at:  # the first row starting at or after offset starts after the range
        return b""
    if stop_at >= n:
        return data[start:]
    end = data.find(b"\n", max(stop_at - 1, start))
    return data[start:] if end < 0 else data[start : end + 1]


def read_csv(filepath_or_buffer: Any, *, sep: Any = _NO_DEFAULT, delimiter: Any = None, header: Any = "infer",
             names: Any = None, index_col: Any = None, usecols: Any = None, dtype: Any = None, engine: Any = None,
             true_values: Any = None, false_values: Any = None, skiprows: Any = None, nrows: int | None = None,
             na_values: Any = None, keep_default_na: bool = True, na_filter: bool = True,
             skip_blank_lines: bool = True, parse_dates: Any = None, date_format: Any = None,
             thousands: str | None = None, decimal: str = ".", quotechar: str = '"', quoting: int = 0,
             doublequote: bool = True, escapechar: str | None = None, comment: str | None = None,
             encoding: str | None = None, compression: Any = "infer", storage_options: dict | None = None,
             byte_range: tuple[int, int] | None = None, **kwargs: Any) -> Any:  # fmt: skip
    """Read a CSV file into a DataFrame, with ``pandas.read_csv``'s options and dtypes.

    >>> import io, riptide as rt
    >>> df = rt.read_csv(io.StringIO("a,b,c\\n1,x,2020-01-02\\n,y,\\n"), parse_dates=["c"])
    >>> [str(t) for t in df.dtypes]
    ['float64', 'str', 'datetime64[us]']
    """
    options = dict(sep=sep, delimiter=delimiter, header=header, names=names, index_col=index_col, usecols=usecols,
                   dtype=dtype, true_values=true_values, false_values=false_values, skiprows=skiprows, nrows=nrows,
                   na_values=na_values, keep_default_na=keep_default_na, na_filter=na_filter,
                   skip_blank_lines=skip_blank_lines, parse_dates=parse_dates, date_format=date_format,
                   thousands=thousands, decimal=decimal, quotechar=quotechar, quoting=quoting,
                   doublequote=doublequote, escapechar=escapechar, comment=comment, encoding=encoding,
                   compression=compression, **kwargs)  # fmt: skip
    _check_nrows(nrows)
    several = _several_files(filepath_or_buffer)
    if several is not None:
        if byte_range is not None or kwargs.get("chunksize") is not None or kwargs.get("iterator"):
            raise ValueError("byte_range, chunksize and iterator read one file; got several")
        return _read_several(several, {**options, "engine": engine, "storage_options": storage_options})
    if engine == "riptide":
        options["engine"] = None  # riptide's own engine name means nothing to the pyarrow and pandas paths
    source = _source_bytes(filepath_or_buffer, compression, encoding)
    if byte_range is not None:
        source, options = _apply_byte_range(source, byte_range, options)
    if engine == "riptide" or (engine is None and _device.is_gpu()):
        # The device parser first (on NumPy only when asked: pyarrow's multithreaded C++ parser is faster on the
        # CPU); pyarrow (then pandas) for the options and files it does not cover, with the same result.
        from riptide.io.csv_device import read_csv_device

        try:
            return read_csv_device(source, options)
        except _Fallback:
            pass
    try:
        return _read_with_arrow(source, options)
    except _Fallback as why:
        return _read_with_pandas(_rewind(source), options, str(why))


def _check_nrows(nrows: Any) -> None:
    if nrows is not None and (isinstance(nrows, bool) or not isinstance(nrows, int | np.integer) or nrows < 0):
        raise ValueError("'nrows' must be an integer >=0")


# Data files a directory of CSV holds (the other files, e.g. a README or Spark's ``_SUCCESS``, are not read).
_CSV_EXTENSIONS = tuple(ext + comp for ext in (".csv", ".tsv", ".txt", ".dat")
                        for comp in ("", ".gz", ".bz2", ".zst", ".xz", ".zip"))  # fmt: skip


def _several_files(source: Any) -> list[str] | None:
    """The files a list of paths, a glob or a directory names (None: one file or buffer, read as pandas does)."""
    source = _files.stringify_path(source)
    if isinstance(source, str):
        is_glob = any(ch in source for ch in "*?[")
        if _files.is_url(source):
            several = is_glob
        else:
            several = os.path.isdir(source) or (is_glob and not os.path.exists(source))
        if not several:
            return None
    elif not isinstance(source, list | tuple):
        return None
    paths = _files.expand_paths(source, _CSV_EXTENSIONS)  # a list or tuple: each item's files, in order
    if not paths:
        raise FileNotFoundError(f"No CSV files found at {source!r}")
    return paths


def _read_several(paths: list[str], options: dict) -> Any:
    """Each file read with the same options (each has its own header), the frames stacked in file order with a
    fresh RangeIndex (``index_col`` given: the files' indexes), as Dask and Polars read a list of CSV files;
    ``nrows`` counts the rows of all of them."""
    from riptide.frame.concat import concat

    options = {k: v for k, v in options.items() if k in _read_csv_defaults() or not _is_default(v)}
    left = options.get("nrows")
    frames = []
    for path in paths:
        frames.append(read_csv(path, **{**options, "nrows": left}))
        if left is not None:
            left -= len(frames[-1])
            if left <= 0:
                break
    keep_index = options.get("index_col") not in (None, False)
    return frames[0] if len(frames) == 1 and keep_index else concat(frames, ignore_index=not keep_index)


def _apply_byte_range(source: Any, byte_range: tuple[int, int], options: dict) -> tuple[Any, dict]:
    if options["compression"] not in ("infer", None) or (isinstance(source, str) and _files.infer_compression(
            source, options["compression"])):  # fmt: skip
        raise ValueError("byte_range reads uncompressed CSV only")
    if isinstance(source, str):
        with open(source, "rb") as f:
            data = f.read()
    else:
        data = source.getvalue()
    offset, size = byte_range
    chunk = _slice_byte_range(data, int(offset), int(size))
    options = dict(options)
    if offset > 0 and options["names"] is None and options["header"] in ("infer", 0):
        first_line = data[: data.find(b"\n") + 1] if b"\n" in data else data + b"\n"
        chunk = first_line + chunk  # the header row, read from the start of the file
        options["header"] = 0
    return io.BytesIO(chunk), options


def requested_dtypes(dtype: Any, labels: list, selected: list) -> dict:
    """``{label: dtype}`` of a ``dtype=`` argument: one dtype for every column read, or a dict keyed by labels or
    by column positions (a label wins over a position naming the same column, as in pandas)."""
    if not isinstance(dtype, dict):
        return {lab: dtype for lab in selected}
    requested = {}
    for key, value in dtype.items():  # positions first: a label given too overrides them
        if isinstance(key, int | np.integer) and not isinstance(key, bool) and key not in labels \
                and 0 <= key < len(labels):  # fmt: skip
            requested[labels[int(key)]] = value
    requested.update({key: value for key, value in dtype.items() if key in labels})
    return requested


def _labels_for_columns(names: list[str], header_given: bool) -> tuple[list[Any], set[Any]]:
    """pandas' labels for the header fields: ``Unnamed: i`` for empty ones (and which those are)."""
    labels: list[Any] = []
    unnamed = set()
    for i, name in enumerate(names):
        if header_given and name == "":
            name = f"Unnamed: {i}"
            unnamed.add(name)
        labels.append(name)
    return labels, unnamed


def _read_with_arrow(source: Any, options: dict) -> Any:
    import pyarrow.csv as pacsv

    o = options
    sep = o["delimiter"] if o["delimiter"] is not None else (o["sep"] if o["sep"] is not _NO_DEFAULT else ",")
    unsupported = {
        "sep": sep is None or len(sep) != 1 or sep in ("\n", "\r"),
        "thousands": o["thousands"] is not None,
        "decimal": o["decimal"] != ".",
        "comment": o["comment"] is not None,
        "skiprows": o["skiprows"] is not None and not isinstance(o["skiprows"], int | np.integer),
        "quoting": o["quoting"] not in (0, 3),
        "na_values": isinstance(o["na_values"], dict),
        "header": isinstance(o["header"], list | tuple),
        "skip_blank_lines": not o["skip_blank_lines"],
        "date_format": isinstance(o["date_format"], dict),
        "parse_dates": o["parse_dates"] is True or isinstance(o["parse_dates"], dict),
    }
    extra = sorted(k for k, v in o.items() if k not in _ARROW_OPTIONS and not _is_default(v))
    reasons = [k for k, bad in unsupported.items() if bad] + extra
    if reasons:
        raise _Fallback(f"option {', '.join(reasons)} is not supported by the pyarrow CSV reader")
    if o["encoding"] is not None and o["encoding"].lower().replace("_", "-") not in _ENCODINGS:
        raise _Fallback(f"encoding {o['encoding']!r}")
    names = list(o["names"]) if o["names"] is not None else None
    header = o["header"]
    if header == "infer":
        header = None if names is not None else 0
    if header is not None and not isinstance(header, int | np.integer):
        raise _Fallback(f"header={header!r}")
    if names is not None and len(set(names)) != len(names):
        raise ValueError("Duplicate names are not allowed.")
    skip = int(o["skiprows"] or 0)
    na = []
    if o["na_filter"]:
        extra_na = o["na_values"]
        extra_na = [] if extra_na is None else ([extra_na] if isinstance(extra_na, str) else list(extra_na))
        na = (list(DEFAULT_NA_VALUES) if o["keep_default_na"] else []) + [str(v) for v in extra_na]
    true_values = list(_TRUE) + [str(v) for v in (o["true_values"] or [])]
    false_values = list(_FALSE) + [str(v) for v in (o["false_values"] or [])]
    encoding = (o["encoding"] or "utf8").lower().replace("_", "-")
    encoding = "utf8" if encoding in ("utf-8", "utf8") else encoding

    def read_options(column_names: list[str] | None, skip_header: int) -> Any:
        return pacsv.ReadOptions(use_threads=True, skip_rows=skip + skip_header, column_names=column_names,
                                 autogenerate_column_names=column_names is None and header is None,
                                 encoding=encoding)  # fmt: skip

    parse = pacsv.ParseOptions(delimiter=sep, quote_char=o["quotechar"] if o["quoting"] != 3 else False,
                               double_quote=o["doublequote"], escape_char=o["escapechar"] or False,
                               newlines_in_values=True, ignore_empty_lines=True)  # fmt: skip
    # The file's own field names first (cheap: pyarrow reads one block), to resolve labels, usecols and dtypes.
    if names is not None:
        file_names = [str(n) for n in names]
        ropts = read_options(file_names, 0 if header is None else int(header) + 1)
    elif header is None:
        ropts = read_options(None, 0)
        file_names = None
    else:
        ropts = read_options(None, int(header))
        file_names = None
    try:
        if file_names is None:
            probe = pacsv.open_csv(_rewind(source), read_options=ropts, parse_options=parse,
                                   convert_options=pacsv.ConvertOptions(column_types={}, strings_can_be_null=False,
                                                                        null_values=[], timestamp_parsers=[
                                                                            _NEVER_A_TIMESTAMP]))  # fmt: skip
            file_names = probe.schema.names
            del probe
    except pa.ArrowInvalid as exc:
        raise _Fallback(f"pyarrow could not read the header ({exc})") from exc
    unnamed: set[Any] = set()
    if header is None and names is None:
        labels: list[Any] = list(range(len(file_names)))
    elif names is not None:
        labels = names
    else:
        labels, unnamed = _labels_for_columns(file_names, header is not None and names is None)
    if len(set(labels)) != len(labels):
        raise _Fallback("duplicated column names (pandas renames them)")
    label_to_field = dict(zip(labels, file_names))

    # usecols: which columns, kept in file order (as pandas keeps them)
    selected = labels
    usecols = o["usecols"]
    if usecols is not None:
        if callable(usecols):
            selected = [lab for lab in labels if usecols(lab)]
        else:
            wanted = list(usecols)
            if all(isinstance(u, int | np.integer) and not isinstance(u, bool) for u in wanted):
                if names is not None and len(names) == len(wanted) and any(u >= len(labels) for u in wanted):
                    raise _Fallback("names for the usecols positions of a wider file")  # pandas' reading
                if any(u >= len(labels) or u < -len(labels) for u in wanted):
                    raise pd.errors.ParserError("Defining usecols with out-of-bounds indices is not allowed. "
                                                f"{[u for u in wanted if u >= len(labels)]} are out-of-bounds.")
                positions = {int(u) % len(labels) for u in wanted}
                selected = [lab for i, lab in enumerate(labels) if i in positions]
            else:
                missing = [u for u in wanted if u not in label_to_field]
                if missing:
                    raise ValueError(f"Usecols do not match columns, columns expected but not found: {missing}")
                selected = [lab for lab in labels if lab in set(wanted)]

    # dtypes: given to pyarrow where they are Arrow types, applied after the read otherwise
    dtype = o["dtype"]
    requested: dict[Any, Any] = {}
    if dtype is not None:
        requested = requested_dtypes(dtype, labels, selected)
    parse_dates = o["parse_dates"]
    date_labels: list[Any] = []
    if parse_dates not in (None, False):
        for item in parse_dates if isinstance(parse_dates, list | tuple) else [parse_dates]:
            if isinstance(item, int | np.integer) and item not in label_to_field:
                item = labels[int(item)]
            if isinstance(item, list | tuple) or item not in label_to_field:
                raise _Fallback(f"parse_dates={parse_dates!r}")
            date_labels.append(item)
    column_types = {}
    for lab in selected:
        if lab in date_labels:
            column_types[label_to_field[lab]] = pa.string()
        elif lab in requested:
            arrow_type = _arrow_type_for(requested[lab])
            if arrow_type is not None:
                column_types[label_to_field[lab]] = arrow_type

    def convert(types: dict, fields: list | None = None) -> Any:
        return pacsv.ConvertOptions(column_types=types, null_values=na, true_values=true_values,
                                    false_values=false_values, strings_can_be_null=bool(na),
                                    quoted_strings_can_be_null=bool(na), timestamp_parsers=[_NEVER_A_TIMESTAMP],
                                    include_columns=fields if fields is not None else
                                    [label_to_field[lab] for lab in selected])  # fmt: skip

    table = _arrow_read(source, ropts, parse, convert(column_types), o["nrows"], requested, label_to_field)
    if any(pa.types.is_binary(f.type) or pa.types.is_large_binary(f.type) for f in table.schema):
        # pyarrow keeps a column that is not valid UTF-8 as bytes; pandas' decoder refuses the file
        raise _Fallback("bytes that are not valid in the encoding (pandas raises UnicodeDecodeError)")
    retyped = {f.name: pa.string() for f in table.schema if pa.types.is_time(f.type) or pa.types.is_timestamp(f.type)}
    if retyped:  # "10:00" was inferred as a time of day (or an empty quoted field as a timestamp): pandas keeps text
        table = _arrow_read(source, ropts, parse, convert({**column_types, **retyped}), o["nrows"], requested,
                            label_to_field)  # fmt: skip
    if len(file_names) == 1:
        _refuse_whitespace_lines(table, file_names, header is not None and names is None, sep)
    inferred = [label_to_field[lab] for lab in selected if lab not in requested and lab not in date_labels]
    table = _infer_as_pandas(table, inferred, requested, label_to_field,
                             lambda types: _arrow_read(source, ropts, parse, convert(types, list(types)), o["nrows"],
                                                       {}, {}))  # fmt: skip
    numeric_na = _numbers_among(o["na_values"]) if o["na_filter"] else []
    if numeric_na:
        table = _mask_numeric_na(table, inferred, numeric_na)
    return _frame_from_csv_table(table, selected, label_to_field, requested, date_labels, o, unnamed)


def _refuse_whitespace_lines(table: pa.Table, file_names: list, header_from_file: bool, sep: str) -> None:
    """pandas skips lines of spaces and tabs (``skip_blank_lines``); pyarrow skips only empty ones.

    In a file of several columns such a line has too few fields, which pyarrow rejects (pandas then reads the
    file); in a file of one column it becomes a row (or the header) of blanks: hand the file to pandas.
    """
    import pyarrow.compute as pc

    blanks = "".join(ch for ch in " \t" if ch != sep)
    if not blanks:
        return
    pattern = f"^[{blanks}]+$".replace("\t", "\\t")
    if header_from_file and re.fullmatch(pattern, file_names[0]):
        raise _Fallback("a line of blanks before the header (pandas skips it)")
    if table.num_columns == 1 and pa.types.is_string(table.schema.field(0).type):
        if pc.any(pc.match_substring_regex(table.column(0), pattern)).as_py():
            raise _Fallback("lines of blanks (pandas skips them)")


def _numbers_among(na_values: Any) -> list[float]:
    """The user's missing-value strings that are numbers: pandas treats any field of that *value* as missing."""
    if na_values is None or isinstance(na_values, dict):
        return []
    numbers = []
    for value in [na_values] if isinstance(na_values, str | int | float) else list(na_values):
        try:
            number = float(value)
        except (TypeError, ValueError):
            continue
        if not np.isnan(number):
            numbers.append(number)
    return numbers


def _mask_numeric_na(table: pa.Table, inferred: list, numbers: list[float]) -> pa.Table:
    """Float fields equal to a numeric ``na_values`` entry become missing (``" 1"``, ``"1.0"`` for ``"1"``).

    pyarrow matches missing-value strings exactly; pandas also compares each number of a column it parses as
    floats with the numeric entries (not in integer columns, even those that become float64 for a missing value).
    """
    import pyarrow.compute as pc

    value_set = pa.array(numbers, type=pa.float64())
    for field in inferred:
        array = table.column(field)
        if not pa.types.is_floating(array.type):
            continue  # pandas compares numbers only in columns it parses as floats (not ints with missing values)
        hit = pc.is_in(array.cast(pa.float64(), safe=False), value_set=value_set)
        if pc.any(hit).as_py():
            masked = pc.if_else(hit, pa.scalar(None, array.type), array)
            table = table.set_column(table.schema.get_field_index(field), field, masked)
    return table


_INTEGER_TEXT = r"^[ \t]*[+-]?[0-9]+[ \t]*$"


def _float_scan(array: pa.ChunkedArray) -> tuple[bool, float, bool]:
    """(any NaN, largest finite magnitude, every value an integer and none missing) of a float column.

    One pass of NumPy reductions over each chunk's values (pyarrow's own kernels are several times slower here).
    """
    has_nan, largest, integral = False, 0.0, array.null_count == 0
    for chunk in array.chunks:
        if chunk.null_count == len(chunk):
            continue  # every value missing (or no rows)
        values = (chunk.fill_null(0.0) if chunk.null_count else chunk).to_numpy(zero_copy_only=False)
        if len(values) == 0:
            continue
        high, low = values.max(), values.min()  # NaN propagates through both
        if np.isnan(high):
            return True, largest, False
        if np.isinf(high) or np.isinf(low):
            integral = False  # pandas reads "inf" as a float: the column is float whatever the rest is
            finite = values[np.isfinite(values)]
            high, low = (finite.max(), finite.min()) if finite.size else (0.0, 0.0)
        largest = max(largest, abs(float(high)), abs(float(low)))
        if integral:
            head = values[:256]
            integral = bool((head == np.trunc(head)).all()) and bool((values == np.trunc(values)).all())
    return has_nan, largest, integral


def _infer_as_pandas(table: pa.Table, inferred: list, requested: dict, label_to_field: dict, reread: Any) -> pa.Table:
    """Float columns where pyarrow's inference differs from pandas' C parser, corrected.

    * A NaN in a column pyarrow inferred as float came from a spelling that is not a missing value here (``NAN``,
      ``+nan``; or ``nan`` itself with ``keep_default_na=False`` / ``na_filter=False``): pandas' float parser does
      not read NaN spellings, so pandas keeps the column as text; a requested float dtype cannot hold it.
    * pyarrow's integer parser refuses a leading ``+`` (``+5``), pandas' accepts it: a float column of integral
      values with none missing is read again as text, and becomes int64 when every field is an integer's text.
    * Integers beyond int64 (inferred as float by pyarrow): pandas reads them as uint64 or text -> pandas' parser.
      Only an integer's own text counts: ``2.5e+300`` is a float to pandas too, so a float column holding values
      that large is read again as text to see which it holds.

    ``reread(column_types)`` reads the file again with those types. Only columns that fail a check cost a re-read.
    """
    import pyarrow.compute as pc

    as_text: dict[str, Any] = {}
    maybe_int: list[str] = []
    maybe_huge: list[str] = []  # values beyond int64: an integer's text among them sends the file to pandas
    for field in inferred:
        array = table.column(field)
        if not pa.types.is_floating(array.type) or array.null_count == len(array):
            continue
        has_nan, largest, integral = _float_scan(array)
        if has_nan:
            as_text[field] = pa.string()
        elif largest >= 2.0**63:
            maybe_huge.append(field)
        elif integral:
            maybe_int.append(field)
    for label, wanted in requested.items():
        field = label_to_field.get(label)
        if field is None or field not in table.schema.names or not pa.types.is_floating(table.schema.field(field).type):
            continue
        if _float_scan(table.column(field))[0]:
            raise ValueError(f"cannot safely convert passed user dtype of {wanted} for text data in column "
                             f"{label!r}: a NaN spelling that is not a missing value here")  # fmt: skip
    if not as_text and not maybe_int and not maybe_huge:
        return table
    text = reread({**{f: pa.string() for f in maybe_int + maybe_huge}, **as_text})
    for field in maybe_huge:
        huge = pc.greater_equal(pc.abs(table.column(field)), 2.0**63)
        if pc.any(pc.and_(huge, pc.match_substring_regex(text.column(field), _INTEGER_TEXT))).as_py():
            raise _Fallback("integers beyond int64 (pandas reads them as uint64 or text)")
    for field in as_text:
        table = table.set_column(table.schema.get_field_index(field), field, text.column(field))
    for field in maybe_int:
        column = text.column(field)
        if not pc.all(pc.match_substring_regex(column, _INTEGER_TEXT)).as_py():
            continue  # "5.0", "1e3": pandas reads floats too
        digits = pc.replace_substring_regex(pc.utf8_trim(column, " \t"), r"^\+", "")
        table = table.set_column(table.schema.get_field_index(field), field, pc.cast(digits, pa.int64()))
    return table


_ARROW_OPTIONS = {
    "sep", "delimiter", "header", "names", "index_col", "usecols", "dtype", "true_values", "false_values",
    "skiprows", "nrows", "na_values", "keep_default_na", "na_filter", "skip_blank_lines", "parse_dates",
    "date_format", "thousands", "decimal", "quotechar", "quoting", "doublequote", "escapechar", "comment",
    "encoding", "compression", "low_memory", "memory_map", "engine", "storage_options",
}  # fmt: skip


def _is_default(value: Any) -> bool:
    """A pandas option left at a value that changes nothing (None, False, 0, "strict", "error", "infer")."""
    return isinstance(value, bool | int | str | type(None)) and value in (None, False, 0, "strict", "error", "infer")


_ENCODINGS = {"utf-8", "utf8", "latin-1", "latin1", "iso-8859-1", "ascii", "cp1252", "utf-16", "utf-8-sig"}


def _arrow_read(source: Any, ropts: Any, parse: Any, convert: Any, nrows: int | None, requested: dict,
                label_to_field: dict) -> pa.Table:  # fmt: skip
    import pyarrow.csv as pacsv

    try:
        if nrows is None:
            return pacsv.read_csv(_rewind(source), read_options=ropts, parse_options=parse, convert_options=convert)
        reader = pacsv.open_csv(_rewind(source), read_options=ropts, parse_options=parse, convert_options=convert)
        batches, count = [], 0
        while count < nrows:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                break
            batches.append(batch)
            count += batch.num_rows
        table = pa.Table.from_batches(batches, schema=reader.schema)
        if nrows == 0:  # no rows read, so nothing to infer a type from (pandas: as a file with a header only)
            return pa.table({f.name: pa.nulls(0, f.type if f.name in convert.column_types else pa.null())
                             for f in table.schema})  # fmt: skip
        if count > nrows:
            _refuse_types_from_later_rows(table, nrows, convert)
        return table.slice(0, nrows)
    except pa.ArrowInvalid as exc:
        message = str(exc)
        if "conversion error" in message and requested and "invalid UTF8" not in message:
            _raise_conversion_error(source, ropts, parse, convert, message, requested, label_to_field)
        raise _Fallback(f"pyarrow rejected the file ({message.splitlines()[0]})") from exc


def _refuse_types_from_later_rows(table: pa.Table, nrows: int, convert: Any) -> None:
    """pandas infers a column's type from the ``nrows`` rows it reads; pyarrow from the whole block it parsed.

    A row after ``nrows`` can only widen a type (int -> float -> text): when the first ``nrows`` values of an
    inferred float or text column would fit a narrower type, hand the file to pandas (which reads only ``nrows``
    rows, so the cost is that of the rows asked for).
    """
    import pyarrow.compute as pc

    words = set(convert.true_values) | set(convert.false_values)
    for field in table.schema:
        if field.name in convert.column_types:
            continue  # a requested type: nothing inferred
        head = table.column(field.name).slice(0, nrows)
        if head.null_count == len(head):
            narrower = len(head) < table.num_rows and table.column(field.name).null_count < table.num_rows
        elif pa.types.is_floating(field.type):
            values = head.drop_null().to_numpy()
            narrower = bool(np.isfinite(values).all() and (values == np.trunc(values)).all())
        elif pa.types.is_string(field.type) or pa.types.is_large_string(field.type):
            values = pc.utf8_trim_whitespace(head.drop_null())
            narrower = pc.all(pc.is_in(values, pa.array(sorted(words)))).as_py() or _all_numbers(values)
        else:
            narrower = False
        if narrower:
            raise _Fallback("nrows: pyarrow inferred a type from rows after the ones asked for")


def _all_numbers(values: Any) -> bool:
    try:
        values.cast(pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    return True


def _raise_conversion_error(source: Any, ropts: Any, parse: Any, convert: Any, message: str, requested: dict,
                            label_to_field: dict) -> None:  # fmt: skip
    """A requested dtype did not parse: a ValueError naming the column, the row and the value (error path only)."""
    import pyarrow.csv as pacsv

    match = re.search(r"column #(\d+)", message)
    if match is None:
        return
    field = convert.include_columns[int(match.group(1))] if convert.include_columns else None
    label = next((lab for lab, f in label_to_field.items() if f == field), None)
    if label not in requested:
        return
    as_text = pacsv.ConvertOptions(column_types={field: pa.string()}, include_columns=[field],
                                   null_values=convert.null_values, strings_can_be_null=True)  # fmt: skip
    text = pacsv.read_csv(_rewind(source), read_options=ropts, parse_options=parse, convert_options=as_text)
    values = text.column(0).to_pandas()
    wanted = pd.api.types.pandas_dtype(requested[label]) if not isinstance(requested[label], str) else requested[label]
    for row, value in enumerate(values):  # error path: the rows before the first bad one are few or cheap
        if value is None or (isinstance(value, float) and np.isnan(value)):
            continue
        try:
            pa.array([value]).cast(convert.column_types[field])
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise ValueError(f"Unable to parse {value!r} as {wanted} in column {label!r} at row {row}") from None


def _frame_from_csv_table(table: pa.Table, selected: list, label_to_field: dict, requested: dict,
                          date_labels: list, o: dict, unnamed: set) -> Any:  # fmt: skip
    from riptide.core.ops.cast import astype
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import default_index
    from riptide.frame.series import Series

    columns = {}
    for lab in selected:
        array = table.column(label_to_field[lab])
        typ = array.type
        if pa.types.is_date32(typ) and lab not in date_labels:
            array = array.cast(pa.string())  # pandas keeps undeclared dates as text; date32 came from YYYY-MM-DD
            typ = array.type
        target = _pandas_target(typ)
        if lab in requested:
            wanted = requested[lab]
            wanted_dtype = pd.StringDtype(na_value=np.nan) if wanted in (str, "str", "string", object, "object") \
                else pd.api.types.pandas_dtype(wanted)  # fmt: skip
            if isinstance(wanted_dtype, np.dtype) and wanted_dtype.kind in "iu" and array.null_count:
                raise ValueError(f"Integer column has NA values in column {lab!r}")
            column = column_like_pandas(array, None)
            if isinstance(wanted, str) and wanted == "string":
                wanted_dtype = pd.StringDtype()
            if column.dtype != wanted_dtype:
                column = astype(column, wanted_dtype)
        else:
            column = column_like_pandas(array, target)
        if lab in date_labels:
            from riptide.frame.to_datetime import to_datetime

            fmt = o["date_format"]
            try:
                column = to_datetime(Series._from_column(column), format=fmt)._column
            except (ValueError, TypeError):
                pass  # pandas 3 keeps a column it cannot parse as its text
        columns[lab] = column
    frame = DataFrame._from_columns(columns, default_index(table.num_rows if selected else 0))  # usecols=[]: none
    return with_index_col(frame, o["index_col"], selected, columns, unnamed)


def with_index_col(frame: Any, index_col: Any, selected: list, columns: dict, unnamed: set) -> Any:
    """``frame`` with pandas' ``index_col`` applied (positions count among the selected columns; an unnamed header
    field leaves the index unnamed; an evenly stepping int64 index becomes a RangeIndex, as pandas 3 reads it)."""
    if index_col is None or index_col is False:
        return frame
    keys = list(index_col) if isinstance(index_col, list | tuple) else [index_col]
    keys = [selected[k] if isinstance(k, int | np.integer) and k not in columns else k for k in keys]
    for key in keys:
        if key not in columns:
            raise ValueError(f"Index {key} invalid")
    frame = frame.set_index(keys)
    if len(keys) == 1 and keys[0] in unnamed:
        frame.index.name = None
    if len(keys) == 1:
        frame = _as_range_index(frame)
    return frame


def _as_range_index(frame: Any) -> Any:
    """pandas 3 reads an int64 index column that steps evenly (at least two rows) as a RangeIndex."""
    from riptide.core.column import NumericColumn
    from riptide.frame.index import RangeIndex

    column = getattr(frame.index, "_column", None)
    if not isinstance(column, NumericColumn) or column.dtype != np.dtype(np.int64) or column.size < 2:
        return frame
    data = column.data
    steps = data[1:] - data[:-1]
    step = int(steps[0])  # one scalar read: the candidate step
    if step == 0 or not bool((steps == step).all()):  # one scalar read: whether every step is the same
        return frame
    first = int(data[0])  # one scalar read: the start
    index = RangeIndex._from_range(range(first, first + step * column.size, step), frame.index.name, column.xp)
    return type(frame)._from_columns(frame._data, index)


def _read_csv_defaults() -> dict:
    import inspect

    return {name: p.default for name, p in inspect.signature(read_csv).parameters.items()
            if p.default is not inspect.Parameter.empty}  # fmt: skip


def _same_option(value: Any, default: Any) -> bool:
    """Whether an option was left at riptide's default (only the others are passed to pandas)."""
    try:
        return value is default or bool(type(value) is type(default) and value == default)
    except (TypeError, ValueError):
        return False


def _pandas_target(typ: pa.DataType) -> Any:
    """The dtype pandas' C parser gives a column pyarrow inferred as ``typ`` (before missing values)."""
    if pa.types.is_integer(typ):
        return np.dtype(np.int64)
    if pa.types.is_floating(typ):
        return np.dtype(np.float64)
    if pa.types.is_boolean(typ):
        return np.dtype(bool)
    if pa.types.is_null(typ):
        return np.dtype(np.float64)
    return None


def _read_with_pandas(source: Any, options: dict, reason: str) -> Any:
    """pandas' reader on the host; its result becomes riptide columns (its errors are raised as they are)."""
    defaults = _read_csv_defaults()
    kwargs = {k: v for k, v in options.items() if k not in defaults or not _same_option(v, defaults[k])}
    result = pd.read_csv(source, **kwargs)
    warn_host_fallback("read_csv", reason)
    if not isinstance(result, pd.DataFrame):  # chunksize= / iterator=: pandas' reader of chunks
        return HostChunks(result, _riptide_frame)
    return _riptide_frame(result)


def _riptide_frame(result: pd.DataFrame) -> Any:
    from riptide.frame.dataframe import DataFrame

    for i, dtype in enumerate(result.dtypes):
        if dtype == object and result.iloc[:, i].map(lambda v: isinstance(v, int) and not isinstance(v, bool)).any():
            # integers beyond uint64 (pandas keeps Python ints in an object column): riptide has no object
            # columns, so they stay the text they were in the file
            result.isetitem(i, result.iloc[:, i].astype("str"))
    return DataFrame(result)


class HostChunks:
    """pandas' chunked reader (``chunksize=`` / ``iterator=True``) handing out riptide frames: iterate over it,
    or call ``get_chunk(size)`` / ``read(nrows)``; a context manager that closes the file. pandas reads each chunk
    on the host (each chunk's dtypes are inferred from its own rows, as pandas does).

    >>> import io, riptide as rt
    >>> with rt.read_csv(io.StringIO("a\\n1\\n2\\n3\\n"), chunksize=2) as reader:
    ...     [chunk["a"].tolist() for chunk in reader]
    [[1, 2], [3]]
    """

    def __init__(self, reader: Any, convert: Any) -> None:
        self._reader, self._convert = reader, convert

    def __iter__(self) -> HostChunks:
        return self

    def __next__(self) -> Any:
        return self._convert(next(self._reader))

    def get_chunk(self, size: int | None = None) -> Any:
        return self._convert(self._reader.get_chunk(size))

    def read(self, nrows: int | None = None) -> Any:
        return self._convert(self._reader.read(nrows))

    def close(self) -> None:
        self._reader.close()

    def __enter__(self) -> HostChunks:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def to_csv(obj: Any, path_or_buf: Any = None, *, sep: str = ",", na_rep: str = "", float_format: Any = None,
           columns: Any = None, header: Any = True, index: bool = True, index_label: Any = None, mode: str = "w",
           encoding: str | None = None, compression: Any = "infer", **kwargs: Any) -> str | None:  # fmt: skip
    """Write ``obj`` (DataFrame or Series) as CSV exactly as pandas writes it; returns the text when no path."""
    frame = obj
    if columns is not None and hasattr(obj, "_data"):
        frame = obj[list(columns)]
        columns = None
    path_or_buf = _files.stringify_path(path_or_buf)
    options = dict(sep=sep, na_rep=na_rep, float_format=float_format, header=header, index=index,
                   index_label=index_label, **kwargs)  # fmt: skip
    reason = _device_write_refusal(frame, path_or_buf, options, columns, mode, encoding, compression)
    if reason is None:
        from riptide.io import csv_write_device

        table = frame if hasattr(frame, "_data") else frame.to_frame()
        try:
            data = csv_write_device.frame_csv_bytes(
                table, sep=sep, na_rep=na_rep, header=header, index=bool(index), index_label=index_label,
                lineterminator=kwargs.get("lineterminator") or os.linesep, quotechar=kwargs.get("quotechar", '"'))
        except csv_write_device.NotCovered as refusal:
            reason = str(refusal)
        else:
            return _deliver(data, path_or_buf, compression)
    host = frame.to_pandas()
    warn_host_fallback("to_csv", f"text is formatted by pandas' writer on the host ({reason})")
    if columns is not None:
        options["columns"] = columns
    if path_or_buf is None:
        return host.to_csv(None, **options)
    if mode != "w" or (_files.is_file_like(path_or_buf) and compression in ("infer", None)):
        host.to_csv(path_or_buf, mode=mode, encoding=encoding, compression=compression, **options)
        return None
    method = _files.infer_compression(path_or_buf if not _files.is_file_like(path_or_buf) else None, compression)
    text = host.to_csv(None, **options)
    with _files.atomic_target(path_or_buf, method, compression) as sink:
        sink.write(text.encode(encoding or "utf-8"))
    return None


# Options of pandas' to_csv that the device writer takes, with the values it covers (a callable: a test).
_DEVICE_OPTIONS = {
    "lineterminator": lambda v: v is None or isinstance(v, str),
    "quotechar": lambda v: isinstance(v, str) and len(v) == 1 and ord(v) < 128,
    "quoting": lambda v: v is None or v == csv_module.QUOTE_MINIMAL,
    "doublequote": lambda v: v is True,
    "escapechar": lambda v: v is None,
    "decimal": lambda v: v == ".",
    "date_format": lambda v: v is None,
    "chunksize": lambda v: True,  # only how pandas batches its writes
    "errors": lambda v: v == "strict",
}


def _device_write_refusal(frame: Any, path_or_buf: Any, options: dict, columns: Any, mode: str, encoding: Any,
                          compression: Any) -> str | None:  # fmt: skip
    """None when the device writer can produce this call's bytes; else why pandas writes them."""
    import codecs

    from riptide.io import csv_write_device

    for key, value in options.items():
        if key in ("sep", "na_rep", "header", "index", "index_label"):
            continue
        if key == "float_format":
            if value is not None:
                return "float_format"
        elif key not in _DEVICE_OPTIONS or not _DEVICE_OPTIONS[key](value):
            return f"{key}={value!r}"
    sep, na_rep, header = options["sep"], options["na_rep"], options["header"]
    if not (isinstance(sep, str) and len(sep) == 1) or not isinstance(na_rep, str):
        return "sep or na_rep"
    if not (isinstance(header, bool) or (isinstance(header, list | tuple) and all(isinstance(h, str) for h in header))):
        return "header"
    if columns is not None or mode != "w":
        return "columns of a Series or mode"
    try:
        if encoding is not None and codecs.lookup(encoding).name != "utf-8":
            return f"encoding={encoding!r}"
    except LookupError:
        return f"encoding={encoding!r}"
    if _files.is_file_like(path_or_buf):
        if compression not in ("infer", None) or not isinstance(path_or_buf, io.TextIOBase | io.BufferedIOBase | io.RawIOBase):
            return "this kind of buffer"
    table = frame if hasattr(frame, "_data") else frame.to_frame()
    return csv_write_device.device_writable(table)


def _deliver(data: bytes, path_or_buf: Any, compression: Any) -> str | None:
    """Hand the finished bytes over: as text, to a buffer, or to a file written atomically."""
    if path_or_buf is None:
        return data.decode("utf-8")
    if _files.is_file_like(path_or_buf):
        path_or_buf.write(data.decode("utf-8") if isinstance(path_or_buf, io.TextIOBase) else data)
        return None
    method = _files.infer_compression(path_or_buf, compression)
    with _files.atomic_target(path_or_buf, method, compression) as sink:
        sink.write(data)
    return None
