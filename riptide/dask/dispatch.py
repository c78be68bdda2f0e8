"""Dask's per-type dispatch functions, registered for riptide's DataFrame, Series and Index.

Dask DataFrame never calls pandas directly on a partition when the answer depends on the partition's library: it
asks a ``Dispatch`` (``make_meta``, ``concat``, ``hash_object_dispatch``, ``group_split_dispatch``, ...) keyed on the
partition's type. Registering riptide's classes here is what turns a Dask collection of riptide partitions into a
working Dask DataFrame: the graph is Dask's, every task runs riptide code on the device.

Design choices:

* **Meta stays riptide.** ``_meta`` (the empty frame Dask carries to know columns and dtypes) is a riptide object
  with zero rows; ``meta_nonempty`` (two fake rows that Dask feeds a function to learn its output type) is built
  by Dask's own pandas rules on the host and moved over, because it is two rows and its values must be exactly
  the ones Dask's pandas backend uses.
* **Shuffles stay on the device.** ``hash_object_dispatch`` hashes rows with xp code (:mod:`riptide.dask.hashing`)
  and ``group_split_dispatch`` splits a partition with one stable sort by target partition and slices; the only
  host read is the ``k + 1`` split offsets. No Arrow or pandas round trip.
* **Small results go to the host.** ``percentile_lookup`` (the per-partition quantiles behind ``set_index`` and
  ``sort_values`` divisions) and ``tolist`` return host values, as Dask merges them on the client.
"""

from __future__ import annotations

import pickle
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from dask.array.dispatch import percentile_lookup
from dask.dataframe.backends import ShuffleGroupResult, make_meta_object, meta_nonempty_dataframe
from dask.dataframe.dispatch import (
    categorical_dtype_dispatch,
    concat_dispatch,
    from_pyarrow_table_dispatch,
    get_parallel_type,
    group_split_dispatch,
    grouper_dispatch,
    hash_object_dispatch,
    is_categorical_dtype_dispatch,
    make_meta_dispatch,
    make_meta_obj,
    meta_nonempty,
    partd_encode_dispatch,
    pyarrow_schema_dispatch,
    to_pandas_dispatch,
    to_pyarrow_table_dispatch,
    tolist_dispatch,
    union_categoricals_dispatch,
)
from dask.sizeof import sizeof as sizeof_dispatch
from dask.utils import Dispatch

import riptide as rt
from riptide import _device
from riptide.dask.hashing import hash_columns
from riptide.frame import DataFrame, Index, Series

__all__ = ["RIPTIDE_TYPES", "to_riptide_dispatch", "concat_riptide", "hash_object_riptide", "group_split_riptide",
           "percentile_riptide", "union_categoricals_riptide", "sizeof_riptide", "register"]

RIPTIDE_TYPES = (DataFrame, Series, Index)

# pandas -> riptide conversion, the inverse of Dask's ``to_pandas_dispatch`` (``ddf.to_backend("riptide")``)
to_riptide_dispatch = Dispatch("to_riptide_dispatch")


def _unsupported(kwargs: dict, what: str) -> None:
    if kwargs:
        raise ValueError(f"unsupported keyword arguments for {what}: {sorted(kwargs)}")


@to_riptide_dispatch.register((pd.DataFrame, pd.Series, pd.Index))
def _pandas_to_riptide(data: Any, **kwargs: Any) -> Any:
    _unsupported(kwargs, "the pandas-to-riptide conversion")
    return rt.from_pandas(data)


@to_riptide_dispatch.register(RIPTIDE_TYPES)
def _riptide_to_riptide(data: Any, **kwargs: Any) -> Any:
    _unsupported(kwargs, "the riptide-to-riptide conversion")
    return data


@to_pandas_dispatch.register(RIPTIDE_TYPES)
def _riptide_to_pandas(data: Any, **kwargs: Any) -> Any:
    _unsupported(kwargs, "the riptide-to-pandas conversion")
    return data.to_pandas()


# --------------------------------------------------------------------------- meta


@make_meta_dispatch.register((DataFrame, Series))
def make_meta_riptide(x: Any, index: Any = None) -> Any:
    """The zero-row riptide object with ``x``'s columns, dtypes and index type."""
    return x.iloc[:0].copy()


@make_meta_dispatch.register(Index)
def make_meta_riptide_index(x: Any, index: Any = None) -> Any:
    return x[:0]


def _from_pandas_meta(obj: Any) -> Any:
    if isinstance(obj, (pd.DataFrame, pd.Series, pd.Index)):
        return rt.from_pandas(obj)
    return obj


@make_meta_obj.register(RIPTIDE_TYPES)
def make_meta_object_riptide(x: Any, index: Any = None) -> Any:
    """Meta from a description (``{name: dtype}``, ``(name, dtype)``, a dtype, a scalar) when the parent is riptide:
    Dask's pandas rules, then the riptide object of the result."""
    if hasattr(x, "_meta") and not isinstance(x, RIPTIDE_TYPES):
        return x._meta
    if index is not None and isinstance(index, RIPTIDE_TYPES):
        index = index.to_pandas()
    return _from_pandas_meta(make_meta_object(x, index=index))


@meta_nonempty.register(DataFrame)
def meta_nonempty_riptide_frame(x: Any) -> Any:
    """Two rows of fake data with ``x``'s columns, dtypes and index type (Dask's pandas values)."""
    return rt.from_pandas(meta_nonempty_dataframe(x.iloc[:0].to_pandas()))


@meta_nonempty.register(Series)
def meta_nonempty_riptide_series(x: Any) -> Any:
    return rt.from_pandas(meta_nonempty(x.iloc[:0].to_pandas()))


@meta_nonempty.register(Index)
def meta_nonempty_riptide_index(x: Any) -> Any:
    return rt.from_pandas(meta_nonempty(x[:0].to_pandas()))


@get_parallel_type.register(DataFrame)
def _parallel_frame(_: Any) -> Any:
    from dask.dataframe.dask_expr._collection import DataFrame as DaskDataFrame

    return DaskDataFrame


@get_parallel_type.register(Series)
def _parallel_series(_: Any) -> Any:
    from dask.dataframe.dask_expr._collection import Series as DaskSeries

    return DaskSeries


@get_parallel_type.register(Index)
def _parallel_index(_: Any) -> Any:
    from dask.dataframe.dask_expr._collection import Index as DaskIndex

    return DaskIndex


def _register_collection_types() -> None:
    from dask.dataframe import get_collection_type

    get_collection_type.register(DataFrame, _parallel_frame)
    get_collection_type.register(Series, _parallel_series)
    get_collection_type.register(Index, _parallel_index)

    # A riptide partition's ``.values`` is a CuPy array on the GPU: Dask knows NumPy's meta as an array
    # collection but takes any other type for a scalar, so ``to_dask_array`` would return a Scalar.
    @get_collection_type.register_lazy("cupy")
    def _cupy_arrays() -> None:
        import cupy

        get_collection_type.register(cupy.ndarray, get_collection_type.dispatch(np.ndarray))


_register_collection_types()


# --------------------------------------------------------------------------- concat


def _index_concat(indexes: list[Any]) -> Any:
    from riptide.frame.concat import concat_promoted

    names = {ix.name for ix in indexes}
    name = indexes[0].name if len(names) == 1 else None
    if any(ix.nlevels > 1 for ix in indexes):
        frames = [ix.to_frame(index=False) if hasattr(ix, "to_frame") else ix for ix in indexes]
        return rt.MultiIndex.from_frame(rt.concat(frames, ignore_index=True))
    column = concat_promoted([ix._as_column() for ix in indexes])
    return Index._from_column(column, name)


def _categorical_labels(frames: list[Any]) -> list[Any]:
    """Labels of the columns that are categorical in every frame holding them, with categories that differ."""
    labels = []
    first = next((f for f in frames if isinstance(f, DataFrame)), None)
    if first is None:
        return labels
    for label in first.columns:
        found = [f._data[label].dtype for f in frames if isinstance(f, DataFrame) and label in f._data]
        if all(isinstance(d, pd.CategoricalDtype) for d in found) and any(d != found[0] for d in found[1:]):
            labels.append(label)
    return labels


def _with_column(frame: Any, label: Any, column: Any) -> Any:
    return frame._with_columns({k: (column if k == label else c) for k, c in frame._data.items()})


@concat_dispatch.register(RIPTIDE_TYPES)
def concat_riptide(dfs: list[Any], axis: int = 0, join: str = "outer", uniform: bool = False,
                   filter_warning: bool = True, ignore_index: bool = False, **kwargs: Any) -> Any:
    """Partitions one after another (``axis=0``) or side by side; categoricals whose categories differ between
    partitions get the union of the categories, as Dask's pandas concat does."""
    kwargs.pop("ignore_order", None)
    if isinstance(dfs[0], Index):
        return _index_concat(list(dfs))
    if axis in (1, "columns"):
        return rt.concat(list(dfs), axis=1, join=join, **kwargs)
    dfs = list(dfs)
    # categoricals whose categories differ between partitions: recode every piece to the union of the categories
    for label in _categorical_labels(dfs):
        dtype = _union_dtype([f._data[label].dtype for f in dfs if isinstance(f, DataFrame) and label in f._data])
        dfs = [_with_column(f, label, f[label].astype(dtype)._column) if isinstance(f, DataFrame) and label in f._data
               else f for f in dfs]  # fmt: skip
    if all(isinstance(f, Series) for f in dfs) and all(isinstance(f.dtype, pd.CategoricalDtype) for f in dfs) and \
            any(f.dtype != dfs[0].dtype for f in dfs[1:]):  # fmt: skip
        dtype = _union_dtype([f.dtype for f in dfs])
        dfs = [f.astype(dtype) for f in dfs]
    return rt.concat(dfs, join=join, ignore_index=ignore_index, **kwargs)


@union_categoricals_dispatch.register((Series, Index))
def union_categoricals_riptide(to_union: list[Any], sort_categories: bool = False,
                               ignore_order: bool = False) -> Any:  # fmt: skip
    """One categorical Series holding every value of ``to_union``, with the union of their categories (first
    appearance order, or sorted). The categories are small and are unioned on the host; codes are recoded on the
    device by a lookup table."""
    if not to_union:
        raise ValueError("No Categoricals to union")
    dtypes_ = [obj.dtype for obj in to_union]
    if not all(isinstance(d, pd.CategoricalDtype) for d in dtypes_):
        raise TypeError("dtype of categories must be the same")
    dtype = _union_dtype(dtypes_, sort_categories, ignore_order)
    pieces = [obj.astype(dtype) if isinstance(obj, Series) else Series(obj).astype(dtype) for obj in to_union]
    return rt.concat(pieces, ignore_index=True)


def _union_dtype(dtypes_: list[Any], sort_categories: bool = False, ignore_order: bool = False) -> Any:
    """The categorical dtype holding the categories of all ``dtypes_`` (pandas' union rules, on the host: the
    categories are metadata, the codes are recoded on the device by ``astype``)."""
    empties = [pd.Categorical([], dtype=d) for d in dtypes_]
    return pd.api.types.union_categoricals(empties, sort_categories=sort_categories, ignore_order=ignore_order).dtype


@categorical_dtype_dispatch.register(RIPTIDE_TYPES)
def categorical_dtype_riptide(categories: Any = None, ordered: bool = False) -> pd.CategoricalDtype:
    return pd.CategoricalDtype(categories=categories, ordered=ordered)


@is_categorical_dtype_dispatch.register((Series, Index))
def is_categorical_dtype_riptide(obj: Any) -> bool:
    return isinstance(getattr(obj, "dtype", obj), pd.CategoricalDtype)


@tolist_dispatch.register((Series, Index))
def tolist_riptide(obj: Any) -> list:
    return obj.tolist()


@grouper_dispatch.register((DataFrame, Series))
def grouper_riptide(obj: Any) -> Any:
    return rt.Grouper


# --------------------------------------------------------------------------- shuffles


@hash_object_dispatch.register((DataFrame, Series, Index))
def hash_object_riptide(obj: Any, index: bool = True, encoding: str = "utf8", hash_key: Any = None,
                        categorize: bool = True) -> Any:  # fmt: skip
    """A uint64 Series: one hash per row of ``obj``'s values (and its index labels with ``index=True``), equal for
    equal rows in any partition on any worker (see :mod:`riptide.dask.hashing`).

    >>> import riptide as rt
    >>> h = hash_object_riptide(rt.DataFrame({"k": ["a", "b", "a"]}), index=False)
    >>> str(h.dtype), bool(h.iloc[0] == h.iloc[2])
    ('uint64', True)
    """
    if isinstance(obj, Index):
        columns = _index_columns(obj)
        xp = columns[0].xp
        return Series._from_column(_uint64_column(hash_columns(columns, len(obj), xp)))
    if isinstance(obj, DataFrame):
        columns = list(obj._data.values())
    else:
        columns = [obj._column]
    if index:
        columns = _index_columns(obj.index) + columns
    xp = obj._xp() if isinstance(obj, DataFrame) else obj._column.xp
    return Series._from_column(_uint64_column(hash_columns(columns, len(obj), xp)), obj.index)


def _index_columns(index: Any) -> list[Any]:
    if index.nlevels > 1:
        return [index.get_level_values(i)._as_column() for i in range(index.nlevels)]
    return [index._as_column()]


def _uint64_column(words: Any) -> Any:
    from riptide.core.column import NumericColumn

    return NumericColumn(words, np.dtype(np.uint64))


def _partition_numbers(c: Any) -> Any:
    """The array of target partition numbers in whatever Dask passes (a Series, an array, a list), on its device;
    the caller moves it to the frame's."""
    if isinstance(c, (Series, Index)):
        column = c._column if isinstance(c, Series) else c._as_column()
        return column.data
    return c.to_numpy() if isinstance(c, pd.Series) else c


@group_split_dispatch.register((DataFrame, Series))
def group_split_riptide(df: Any, c: Any, k: int, ignore_index: bool = False) -> dict:
    """``{i: rows of df whose c == i}`` for i in 0..k-1, rows keeping their order: one stable sort by target and
    k slices.

    >>> import riptide as rt, numpy as np
    >>> parts = group_split_riptide(rt.DataFrame({"x": [10, 11, 12, 13]}), np.array([1, 0, 1, 1]), 3)
    >>> [parts[i]["x"].tolist() for i in range(3)]
    [[11], [10, 12, 13], []]
    """
    from riptide.core.kernels.sort import stable_argsort
    from riptide.frame.groupby import _take_rows

    target = _partition_numbers(c)
    xp = df._xp() if isinstance(df, DataFrame) else df._column.xp
    target = _device.to_device(target, xp).astype(np.int64, copy=False)  # on the frame's device (no copy if there)
    order = stable_argsort(target, xp)
    counts = xp.bincount(target, minlength=k)[:k] if target.shape[0] else xp.zeros(k, dtype=np.int64)
    bounds = _device.to_host(xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts)]))  # one read: k+1 cuts
    ordered = _take_rows(df, order)
    parts = {}
    for i in range(k):
        part = ordered.iloc[int(bounds[i]):int(bounds[i + 1])]
        parts[i] = part.reset_index(drop=True) if ignore_index else part
    return ShuffleGroupResult(parts)


@partd_encode_dispatch.register(DataFrame)
def partd_riptide(_: Any) -> Any:
    """Dask's disk shuffle (``shuffle_method="disk"``) stores partition pieces with partd: pickled riptide frames
    (their buffers travel as pickle-5 out-of-band buffers) joined by ``riptide.concat``."""
    import partd

    def join(frames: list[Any]) -> Any:
        return rt.concat(frames) if frames else DataFrame()

    return partial(partd.Encode, partial(pickle.dumps, protocol=pickle.HIGHEST_PROTOCOL), pickle.loads, join)


# --------------------------------------------------------------------------- quantiles


def _nearest_positions(q: np.ndarray, n: int) -> np.ndarray:
    return np.around(q / 100.0 * (n - 1)).astype(np.int64)


@percentile_lookup.register((Series, Index))
def percentile_riptide(a: Any, q: Any, interpolation: str = "linear") -> tuple[Any, int]:
    """``(percentiles, n)`` of one partition, as ``numpy.percentile`` gives them (host values): the partition is
    sorted on the device and only the ``2 * len(q)`` rows around each percentile come to the host. Missing values
    are left out; text is read at the nearest rank (it cannot be interpolated).

    >>> import riptide as rt
    >>> values, n = percentile_riptide(rt.Series([4.0, 1.0, None, 3.0]), [0, 50, 100])
    >>> values.tolist(), n
    ([1.0, 3.0, 4.0], 4)
    """
    s = a if isinstance(a, Series) else a.to_series()
    n = len(s)
    if not n:
        return None, n
    q = np.asarray(list(q), dtype=np.float64)
    dtype = s.dtype
    if isinstance(dtype, pd.CategoricalDtype):  # percentiles of the codes (on the device), named by the categories
        codes = Series._from_column(_codes_column(s._column))
        codes = codes[codes >= 0]
        picked, _ = percentile_riptide(codes, q, interpolation) if len(codes) else (np.full(len(q), -1), 0)
        return pd.Categorical.from_codes(np.asarray(picked).astype(np.int64), dtype=dtype), n
    present = s.dropna()
    m = len(present)
    if m == 0:
        return None, n
    ordered = present.sort_values()
    numeric = getattr(dtype, "kind", "O") in "iufbmM" and not isinstance(dtype, pd.StringDtype)
    if not numeric or interpolation == "nearest":
        picked = ordered.iloc[_nearest_positions(q, m)].to_numpy()
        return picked, n
    rank = q / 100.0 * (m - 1)
    lo = np.floor(rank).astype(np.int64)
    hi = np.minimum(lo + 1, m - 1)
    lo_values = ordered.iloc[lo].to_numpy()
    hi_values = ordered.iloc[hi].to_numpy()
    frac = rank - lo
    if lo_values.dtype.kind in "mM":  # interpolate the ticks, as dask's pandas path does through int64
        lo_t, hi_t = lo_values.view("i8").astype(np.float64), hi_values.view("i8").astype(np.float64)
        lerp = lo_t + (hi_t - lo_t) * frac
        return np.round(lerp).astype(np.int64).view(lo_values.dtype), n
    lo_f = lo_values.astype(np.float64)
    hi_f = hi_values.astype(np.float64)
    result = lo_f + (hi_f - lo_f) * frac
    if interpolation == "lower":
        result = lo_f
    elif interpolation == "higher":
        result = np.where(frac > 0, hi_f, lo_f)
    elif interpolation == "midpoint":
        result = np.where(frac > 0, (lo_f + hi_f) / 2, lo_f)
    return result, n


def _codes_column(column: Any) -> Any:
    from riptide.core.column import NumericColumn

    return NumericColumn(column.codes.astype(np.int64))


# --------------------------------------------------------------------------- Arrow


@to_pyarrow_table_dispatch.register(DataFrame)
def to_pyarrow_table_riptide(obj: Any, preserve_index: Any = None, **kwargs: Any) -> Any:
    kwargs.pop("nthreads", None)
    kwargs.pop("safe", None)
    _unsupported(kwargs, "to_pyarrow_table_dispatch")
    return obj.to_arrow(preserve_index=preserve_index)


@from_pyarrow_table_dispatch.register(DataFrame)
def from_pyarrow_table_riptide(meta: Any, table: Any, self_destruct: Any = None, **kwargs: Any) -> Any:
    kwargs.pop("types_mapper", None)
    kwargs.pop("use_threads", None)
    _unsupported(kwargs, "from_pyarrow_table_dispatch")
    return rt.from_arrow(table)


@pyarrow_schema_dispatch.register(DataFrame)
def pyarrow_schema_riptide(obj: Any, preserve_index: Any = None, **kwargs: Any) -> Any:
    _unsupported(kwargs, "pyarrow_schema_dispatch")
    return meta_nonempty(obj).to_arrow(preserve_index=preserve_index).schema


# --------------------------------------------------------------------------- sizeof


@sizeof_dispatch.register(DataFrame)
def sizeof_riptide(df: Any) -> int:
    """Bytes held by a partition (device or host buffers): what Dask's memory manager and dask-cuda's spilling
    count. Buffers are summed from the columns; nothing is copied."""
    return int(sum(column.nbytes for column in df._data.values()) + _index_nbytes(df._index)) + 1000


@sizeof_dispatch.register((Series, Index))
def sizeof_riptide_series(obj: Any) -> int:
    if isinstance(obj, Index):
        return _index_nbytes(obj) + 100
    return int(obj._column.nbytes + _index_nbytes(obj._index)) + 100


def _index_nbytes(index: Any) -> int:
    try:
        return int(index.nbytes)
    except (AttributeError, TypeError):
        return 0


def register() -> None:
    """Nothing left to do: importing this module registered everything (kept for explicitness)."""
