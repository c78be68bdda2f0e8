"""Checking partitions against a collection's meta, with errors that say which partition and which column.

Dask plans a whole graph from ``_meta`` (the empty frame that stands for every partition). A partition that does not
match it (a file with an extra column, a column that is float in one file and int in the next) breaks later, far
from its cause, or silently yields a wrong dtype after a concat. Here the comparison is done where the partition is
made, and the error names the partition number (and the file, for the readers) and the first column that differs:

* :func:`check_partition` compares one partition with a meta;
* :func:`validate_meta` wraps a collection so that each partition is checked when it is computed (a
  ``map_partitions`` receiving ``partition_info``);
* the riptide backend's ``read_parquet`` / ``read_orc`` check every file's partition against the first file's
  schema (:mod:`riptide.dask.backends`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["MetaMismatchError", "check_partition", "validate_meta"]


class MetaMismatchError(ValueError):
    """A partition's columns or dtypes disagree with the collection's meta."""


def _describe(part: Any) -> str:
    return f"partition {part}" if not isinstance(part, str) else part


def _is_number(dtype: Any) -> bool:
    import pandas as pd

    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def check_partition(df: Any, meta: Any, partition: Any = "a partition", cast_numeric: bool = False) -> Any:
    """Return ``df`` if its columns, dtypes (and index dtype) are the meta's, else raise :class:`MetaMismatchError`
    naming ``partition`` and the column.

    ``cast_numeric``: a numeric column whose numeric dtype differs (a file where an int column has missing values
    reads as float64) is cast to the meta's dtype instead, and the error is raised only if that cast fails. The
    readers use it, as Dask's pandas readers accept such files.

    >>> import riptide as rt
    >>> meta = rt.DataFrame({"a": [1], "b": [1.0]}).iloc[:0]
    >>> try:
    ...     check_partition(rt.DataFrame({"a": [1], "b": [2]}), meta, 3)
    ... except MetaMismatchError as exc:
    ...     print(exc)
    partition 3 does not match the meta: column 'b' has dtype int64, the meta has float64
    """
    where = _describe(partition)
    if hasattr(meta, "columns") and hasattr(meta, "dtypes") and getattr(meta, "ndim", 2) == 2:
        if not hasattr(df, "columns"):
            raise MetaMismatchError(f"{where} is a {type(df).__name__}, the meta is a DataFrame")
        got, want = list(df.columns), list(meta.columns)
        missing = [c for c in want if c not in got]
        extra = [c for c in got if c not in want]
        if missing:
            raise MetaMismatchError(f"{where} does not match the meta: column {missing[0]!r} is missing "
                                    f"(partition columns {got}, meta columns {want})")  # fmt: skip
        if extra:
            raise MetaMismatchError(f"{where} does not match the meta: column {extra[0]!r} is not in the meta "
                                    f"(partition columns {got}, meta columns {want})")  # fmt: skip
        if got != want:
            raise MetaMismatchError(f"{where} does not match the meta: columns in order {got}, the meta has {want}")
        got_dtypes, want_dtypes = df.dtypes, meta.dtypes
        casts = {}
        for label in want:
            got_dtype, want_dtype = got_dtypes[label], want_dtypes[label]
            if got_dtype == want_dtype:
                continue
            if cast_numeric and _is_number(got_dtype) and _is_number(want_dtype):
                casts[label] = want_dtype
                continue
            raise MetaMismatchError(f"{where} does not match the meta: column {label!r} has dtype "
                                    f"{got_dtype}, the meta has {want_dtype}")  # fmt: skip
        if casts:
            try:
                df = df.astype(casts)
            except (TypeError, ValueError) as exc:
                raise MetaMismatchError(f"{where} does not match the meta: columns {list(casts)} have dtypes "
                                        f"{[str(got_dtypes[c]) for c in casts]}, the meta has "
                                        f"{[str(d) for d in casts.values()]} ({exc})") from exc  # fmt: skip
    elif hasattr(meta, "dtype"):
        if getattr(df, "dtype", None) != meta.dtype:
            raise MetaMismatchError(f"{where} does not match the meta: Series {getattr(meta, 'name', None)!r} has "
                                    f"dtype {getattr(df, 'dtype', type(df).__name__)}, the meta has {meta.dtype}")
    meta_index, index = getattr(meta, "index", None), getattr(df, "index", None)
    if meta_index is not None and index is not None and getattr(meta_index, "nlevels", 1) == 1 and \
            index.dtype != meta_index.dtype:  # fmt: skip
        raise MetaMismatchError(f"{where} does not match the meta: the index has dtype {index.dtype}, the meta's "
                                f"index has {meta_index.dtype}")  # fmt: skip
    return df


def _checked(df: Any, meta: Any, partition_info: Any = None) -> Any:
    number = partition_info["number"] if partition_info else "a partition"
    return check_partition(df, meta, number)


def validate_meta(ddf: Any) -> Any:
    """``ddf`` with every partition checked against ``ddf._meta`` when computed: a mismatch raises
    :class:`MetaMismatchError` naming the partition number and the column.

    >>> import dask.dataframe as dd, riptide as rt
    >>> ddf = dd.from_pandas(rt.DataFrame({"a": [1, 2, 3]}), npartitions=2)
    >>> validate_meta(ddf).compute()["a"].tolist()
    [1, 2, 3]
    """
    return ddf.map_partitions(_checked, ddf._meta, meta=ddf._meta, enforce_metadata=False,
                              align_dataframes=False)  # fmt: skip
