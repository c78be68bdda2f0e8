"""Stand-ins for pandas methods Dask calls on partitions that riptide's classes do not have yet.

Each is added only when the class lacks it (``hasattr`` check), and each calls through riptide's existing API, so
the real method, once riptide/frame gains it, takes over without a change here. The lead engineer's list of these
lives in the session report; they belong in riptide/frame eventually.
"""

from __future__ import annotations

from typing import Any

from riptide.frame import DataFrame, Index, Series

__all__ = ["install"]


_NO_NAME = object()


def _index_isna(self: Any) -> Any:
    """``Index.isna()``: a bool array (on the index's device), True where the label is missing."""
    return self._as_column().isna()


def _index_notna(self: Any) -> Any:
    return ~self._as_column().isna()


def _index_to_frame(self: Any, index: bool = True, name: Any = _NO_NAME) -> Any:
    """``Index.to_frame()``: the labels as a one-column DataFrame (indexed by themselves unless ``index=False``)."""
    from riptide.frame.index import default_index

    if self.nlevels > 1:
        names = list(self.names) if name is _NO_NAME else list(name)
        columns = {label: self.get_level_values(i)._as_column() for i, label in enumerate(names)}
    else:
        label = (0 if self.name is None else self.name) if name is _NO_NAME else name
        columns = {label: self._as_column()}
    first = next(iter(columns.values()))
    return DataFrame._from_columns(columns, self if index else default_index(first.size, first.xp))


def _select_dtypes(self: Any, include: Any = None, exclude: Any = None) -> Any:
    """``DataFrame.select_dtypes``: pandas' rules applied to the (host) dtypes, then the columns selected."""
    import pandas as pd

    empty = pd.DataFrame({i: pd.Series(dtype=dtype) for i, dtype in enumerate(self.dtypes)})
    positions = list(empty.select_dtypes(include=include, exclude=exclude).columns)
    labels = list(self.columns)
    return self._with_columns({labels[i]: self._data[labels[i]] for i in positions})


def _transpose(self: Any, *args: Any, copy: Any = None) -> Any:
    """``DataFrame.T``: by way of pandas on the host. Dask transposes one-row frames of reduction results;
    a large frame would be slow here (riptide has no device transpose yet)."""
    import riptide as rt

    return rt.from_pandas(self.to_pandas().T)


def _attrs(self: Any) -> dict:
    """``.attrs``: riptide keeps no user metadata on frames; an empty dict (what pyarrow's ``from_pandas`` and
    Dask's meta copying read)."""
    return {}


def _one(self: Any) -> int:
    """``Index.ndim``: 1."""
    return 1


def _series_constructor(self: Any) -> Any:
    return Series


def _frame_constructor(self: Any) -> Any:
    return DataFrame


def _groupby_obj(self: Any) -> Any:
    """``GroupBy.obj``: the grouped object."""
    return self._obj


def _groupby_grouper(self: Any) -> Any:
    """``GroupBy.grouper``: the key columns as Series aligned with the grouped object, which ``obj.groupby(...)``
    accepts (Dask's std/var aggregation regroups the squared values with it)."""
    keys = self._keys
    index = self._obj.index
    series = [Series._from_column(column, index, name) for column, name in zip(keys.columns, keys.names)]
    return series if keys.listed or len(series) > 1 else series[0]


def _groupby_unique(self: Any) -> Any:
    """``SeriesGroupBy.unique()``: per group, the distinct values in order of appearance (a list column)."""
    import numpy as np

    from riptide.core.column import NumericColumn
    from riptide.core.column.list import ListColumn
    from riptide.core.kernels.sort import stable_argsort
    from riptide.frame.index import default_index

    groups, _ = self._grouping
    xp = groups.xp
    ids = groups.ids.astype(np.int64, copy=False)
    pairs = DataFrame._from_columns({"g": NumericColumn(ids), "v": self._obj._column}, default_index(ids.shape[0], xp))
    pairs = pairs.drop_duplicates()
    group = pairs._data["g"].data
    kept = group >= 0
    values = pairs._data["v"].filter(kept)
    group = group[kept]
    order = stable_argsort(group, xp)
    counts = xp.bincount(group, minlength=groups.n_groups)[: groups.n_groups] if group.shape[0] else \
        xp.zeros(groups.n_groups, dtype=np.int64)  # fmt: skip
    offsets = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts).astype(np.int64)])
    return self._wrap({self._obj.name: ListColumn(offsets, values.take(order))})


def _series_searchsorted(self: Any, value: Any, side: str = "left", sorter: Any = None) -> Any:
    """``Series.searchsorted`` for any sortable dtype: both sides are ranked together (one sorted grouping of the
    concatenated values), then the ranks are searched. Returns an array on the Series' device (an int for a
    scalar)."""
    from riptide.core.ops.grouping import group_rows
    from riptide.frame.concat import concat_promoted

    if sorter is not None:
        raise NotImplementedError("searchsorted(sorter=...) is not supported")
    scalar = not isinstance(value, (Series, Index, list, tuple)) and getattr(value, "ndim", 0) == 0
    other = Series([value] if scalar else value) if not isinstance(value, Series) else value
    if isinstance(other, Index):
        other = other.to_series()
    mine = self._column
    theirs = other._column
    both = concat_promoted([mine, theirs])
    ranks = group_rows([both], sort=True, dropna=False).ids
    xp = mine.xp
    n = mine.size
    found = xp.searchsorted(ranks[:n], ranks[n:], side=side)
    return int(found[0]) if scalar else found  # one scalar read for a scalar value


def _series_squeeze(self: Any, axis: Any = None) -> Any:
    """``Series.squeeze()``: the one value of a one-row Series, else the Series."""
    return self.iloc[0] if len(self) == 1 else self


def _index_get_slice_bound(self: Any, label: Any, side: str) -> int:
    """``Index.get_slice_bound(label, side)`` of a sorted index: where ``label`` would go (first such position
    with ``side="left"``, past the equal labels with ``"right"``)."""
    if side not in ("left", "right"):
        raise ValueError(f"Invalid value for side kwarg, must be either 'left' or 'right': {side}")
    return _series_searchsorted(self.to_series(), label, side=side)


def _nearest_rank_values(series: Any, qs: Any) -> Any:
    """Values at numpy's "nearest" rank for each quantile, missing values left out (host positions, one gather)."""
    import numpy as np

    present = series.dropna().sort_values()
    n = len(present)
    if n == 0:
        return Series([None] * len(qs), dtype=series.dtype).reset_index(drop=True)
    positions = np.around(np.asarray(qs, dtype=np.float64) * (n - 1)).astype(np.int64)
    return present.iloc[positions].reset_index(drop=True)


def _frame_quantile(self: Any, q: Any = 0.5, axis: Any = 0, numeric_only: bool = False,
                    interpolation: str = "linear", method: str = "single") -> Any:  # fmt: skip
    """``DataFrame.quantile`` with a list of ``q``: each column's quantiles (Series.quantile); text columns at the
    nearest rank, as pandas' ``method="table"`` does for them. Dask asks for it to find divisions of text keys."""
    import pandas as pd

    from riptide.frame.index import as_index

    scalar = pd.api.types.is_scalar(q)
    qs = [q] if scalar else list(q)
    columns = {}
    for label in self.columns:
        series = self[label]
        if pd.api.types.is_numeric_dtype(series.dtype) and interpolation != "nearest":
            columns[label] = series.quantile(qs, interpolation=interpolation).reset_index(drop=True)._column
        elif numeric_only and not pd.api.types.is_numeric_dtype(series.dtype):
            continue
        else:
            columns[label] = _nearest_rank_values(series, qs)._column
    result = DataFrame._from_columns(columns, as_index(pd.Index(qs, dtype="float64")))
    return result.iloc[0] if scalar else result


_SHIMS_GROUPBY_SERIES = {"unique": _groupby_unique}


def _wrap_index_key(cls: Any, method: str) -> None:
    """``obj[pd.Index([...])]`` (get or set) as ``obj[[...]]``: Dask selects and assigns columns with
    ``df.columns``-like Index keys, which riptide reads as one (unhashable) label."""
    import pandas as pd

    original = getattr(cls, method)
    if getattr(original, "_riptide_dask_shim", False):
        return

    def wrapper(self: Any, key: Any, *args: Any) -> Any:
        if isinstance(key, pd.Index):
            key = list(key)
        return original(self, key, *args)

    wrapper._riptide_dask_shim = True
    wrapper.__name__ = method
    setattr(cls, method, wrapper)


def _wrap_index_extremum(method: str) -> None:
    """``Index.max(axis=None, skipna=True)`` / ``min``: pandas' signature (Dask passes ``skipna``)."""
    original = getattr(Index, method)
    if getattr(original, "_riptide_dask_shim", False):
        return

    def wrapper(self: Any, axis: Any = None, skipna: bool = True, *args: Any, **kwargs: Any) -> Any:
        if not skipna and bool(self._as_column().isna().any()):  # one scalar read: a missing label wins
            return float("nan")
        return original(self)

    wrapper._riptide_dask_shim = True
    wrapper.__name__ = method
    setattr(Index, method, wrapper)


def _wrap_drop_axis(cls: Any, method: str) -> None:
    """``Series.clip(lower, upper, axis=None)``: pandas accepts ``axis`` (0 or None for a Series); Dask passes it."""
    original = getattr(cls, method)
    if getattr(original, "_riptide_dask_shim", False):
        return

    def wrapper(self: Any, *args: Any, axis: Any = None, **kwargs: Any) -> Any:
        if axis not in (None, 0, "index"):
            raise ValueError(f"No axis named {axis} for object type Series")
        return original(self, *args, **kwargs)

    wrapper._riptide_dask_shim = True
    wrapper.__name__ = method
    setattr(cls, method, wrapper)


def _infer_objects(self: Any, copy: Any = None) -> Any:
    """``infer_objects()``: riptide has no object dtype, so there is nothing to infer."""
    return self


def _groupby_shims() -> dict:
    from riptide.frame.groupby import DataFrameGroupBy, GroupBy, SeriesGroupBy

    _wrap_index_key(DataFrameGroupBy, "__getitem__")
    _wrap_index_key(DataFrame, "__setitem__")
    _wrap_index_extremum("max")
    _wrap_index_extremum("min")
    _wrap_drop_axis(Series, "clip")
    return {GroupBy: {"obj": property(_groupby_obj), "grouper": property(_groupby_grouper)},
            SeriesGroupBy: _SHIMS_GROUPBY_SERIES}


_SHIMS = {
    Index: {"isna": _index_isna, "notna": _index_notna, "to_frame": _index_to_frame,
            "get_slice_bound": _index_get_slice_bound, "ndim": property(_one)},
    Series: {"attrs": property(_attrs), "searchsorted": _series_searchsorted, "squeeze": _series_squeeze,
             "infer_objects": _infer_objects,
             "_constructor": property(_series_constructor), "_constructor_expanddim": property(_frame_constructor)},
    DataFrame: {"attrs": property(_attrs), "select_dtypes": _select_dtypes, "quantile": _frame_quantile,
                "infer_objects": _infer_objects,
                "T": property(_transpose), "transpose": _transpose, "_constructor": property(_frame_constructor),
                "_constructor_sliced": property(_series_constructor)},
}
_SHIMS.update(_groupby_shims())


def install() -> list[str]:
    """Add the missing methods; returns the names added (``Class.method``)."""
    added = []
    for cls, methods in _SHIMS.items():
        for name, func in methods.items():
            if not hasattr(cls, name):
                setattr(cls, name, func)
                added.append(f"{cls.__name__}.{name}")
    return added


INSTALLED = install()
