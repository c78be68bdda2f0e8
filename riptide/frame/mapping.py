"""``Series.map``: substitute each value through a dict, a Series or a function.

Two paths, chosen by what the mapping is:

* **Lookup** (a plain ``dict``, a riptide or pandas ``Series``): a left join of the column against the mapping's
  keys, on the device. The keys are made comparable to the column as a merge makes them
  (:func:`riptide.core.ops.join.comparable_keys`), each row finds its key with
  :func:`riptide.core.ops.join.match_keys` (missing values match a missing key, as in pandas), and the mapping's
  values are gathered with -1 for a miss (:meth:`Column.take_or_missing`: ints with misses become float64, as in
  pandas). Keys pandas would never find equal to the column's values (strings against numbers, booleans against
  numbers, datetimes against anything else) find nothing, so every row is missing, which is pandas' answer too.
  A mapping index with duplicates raises pandas' ``InvalidIndexError``, whatever the column holds.
* **Compiled** (a Python function of numbers on an int, float or bool column, nullable ones included): the function is translated into one
  elementwise device kernel (:func:`riptide.frame.apply.compiled_map`, :mod:`riptide.core.udf`), as for
  ``Series.apply``. A function that does not compile takes the next path, after a one-time
  :class:`~riptide.core.udf.UDFFallbackWarning` naming the reason.
* **Per distinct value** (a function that does not compile, a dict subclass with ``__missing__``, a categorical
  column, a dict or Series on a nullable ``Int64``/``Float64``/``boolean`` column, keys riptide cannot hold in one
  column): the
  column's distinct values are found on the device
  (:func:`riptide.core.ops.grouping.group_rows`), only they are copied to the host and mapped by pandas (one call of
  the function per distinct value), and the results are gathered back by group number. Mapping the distinct
  values gives the same set of results as mapping every row, so pandas infers the same dtype.
  Categorical and nullable columns take it for dicts too because pandas' result dtype rules for them are their
  own (a categorical maps its categories and stays categorical when they stay unique; a nullable column keeps a
  nullable dtype, its own when every value misses); a device version of those rules is future work.

With ``na_action="ignore"`` missing values stay missing and are never looked up nor passed to the function.

>>> import riptide as rt
>>> rt.Series([1, 2, 3]).map({1: "a", 2: "b"}).tolist()
['a', 'b', nan]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, as_column
from riptide.core.column.categorical import HostCategories
from riptide.core.ops.grouping import group_rows
from riptide.core.ops.join import comparable_keys, match_keys

__all__ = ["SeriesMappingMethods", "map_column"]


class SeriesMappingMethods:
    """``Series.map`` (mixed into :class:`riptide.frame.series.Series`)."""

    __slots__ = ()

    def map(self, arg: Any, na_action: str | None = None, engine: Any = None, **kwargs: Any) -> Any:
        """Map each value through ``arg``: a dict, a Series (looked up by index label) or a function
        (``arg(value, **kwargs)``; compiled for the device when it computes with numbers).

        Values without a match become missing (an int result then becomes float64, as in pandas).
        ``na_action="ignore"`` leaves missing values missing without looking them up.

        >>> import riptide as rt
        >>> s = rt.Series(["cat", "dog", None], name="pet")
        >>> s.map({"cat": 1, "dog": 2}).tolist()
        [1.0, 2.0, nan]
        >>> s.map(rt.Series([10, 20], index=["dog", "cat"])).tolist()
        [20.0, 10.0, nan]
        >>> s.map(len, na_action="ignore").tolist()
        [3.0, 3.0, nan]
        """
        from riptide.frame.series import Series

        if engine is not None:
            raise NotImplementedError("riptide's Series.map has no engine= (functions of numbers are compiled)")
        column = map_column(self._column, arg, na_action, kwargs)
        return Series._from_column(column, self._index, self.name)


def map_column(column: Column, arg: Any, na_action: str | None = None, kwargs: dict | None = None) -> Column:
    """The column of ``Series.map(arg, na_action, **kwargs)`` for ``column`` (see the module docstring)."""
    if na_action not in (None, "ignore"):
        raise ValueError(f"na_action must either be 'ignore' or None, {na_action} was passed")
    kwargs = kwargs or {}
    lookup = _lookup_table(arg)
    if lookup is None and callable(arg) and not isinstance(arg, dict):
        from riptide.core.udf import HostFallback, warn_fallback
        from riptide.frame.apply import compiled_map

        try:
            return compiled_map(column, arg, (), kwargs, na_action)
        except HostFallback as exc:
            if column.size:  # (an empty column goes to pandas without a word)
                warn_fallback(arg, str(exc))
    elif kwargs:
        raise TypeError(f"keyword arguments {sorted(kwargs)} are passed to a function, and arg is not one")
    if lookup is None or isinstance(column, CategoricalColumn) or dtypes.is_masked(column.dtype) or not column.size:
        # (an empty column moves no data to the host, and pandas' dtype for it depends on the column's array type)
        return _map_distinct(column, arg, na_action, kwargs)
    keys, values = lookup
    if isinstance(keys, HostCategories) or isinstance(values, HostCategories):
        return _map_distinct(column, arg, na_action)  # labels only pandas holds (object, intervals): map on the host
    return _map_lookup(column, keys, values, na_action)


def _lookup_table(arg: Any) -> tuple[Column, Column] | None:
    """The mapping's (keys, values) columns, or None when it is not a table riptide can look up on the device."""
    from riptide.frame.series import Series

    if isinstance(arg, pd.Series):
        if isinstance(arg.index, pd.MultiIndex):
            return None
        try:
            arg = Series(arg)
        except (TypeError, ValueError):
            return None  # values riptide cannot hold (object dtype): pandas maps them on the host
    if isinstance(arg, Series):
        index = arg.index
        if getattr(index, "nlevels", 1) != 1:
            return None
        return index._as_column(), arg._column
    if isinstance(arg, dict) and not hasattr(arg, "__missing__"):
        from riptide.frame.index import as_index

        if not arg:
            return as_column([]), as_column([])  # pandas: an empty mapping gives float64 misses
        try:
            keys = as_index(list(arg.keys()))
            values = as_column(list(arg.values()))
        except (TypeError, ValueError):
            return None  # mixed keys or values: pandas' object Index on the host
        if getattr(keys, "nlevels", 1) != 1:
            return None  # tuple keys
        return keys._as_column(), values
    if callable(arg) or isinstance(arg, dict):
        return None
    raise TypeError(f"arg must be a dict, a Series or a callable, got {type(arg).__name__}")


def _map_lookup(column: Column, keys: Column, values: Column, na_action: str | None) -> Column:
    """Gather ``values`` at the row of ``keys`` equal to each row of ``column`` (missing where none)."""
    xp = column.xp
    keys, values = keys.to_device(xp), values.to_device(xp)
    if keys.size and group_rows([keys], sort=False, dropna=False).n_groups != keys.size:
        raise pd.errors.InvalidIndexError("Reindexing only valid with uniquely valued Index objects")
    owner = None
    if column.size and keys.size:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # merge's warning about float keys cast to int: not pandas' map
                (probe,), (build,) = comparable_keys([column], [keys], strict=False)
        except (TypeError, ValueError):
            probe = None  # pandas never finds such keys equal: every row misses
        if probe is not None:
            match = match_keys([probe], [build])
            owner = match.owner
            if owner is None:  # a matcher that kept the grouped form: unique keys, so counts are 0 or 1
                owner = xp.where(match.counts > 0, match.build_order[xp.minimum(match.starts, keys.size - 1)], -1)
    if owner is None:
        owner = xp.full(column.size, -1, dtype="int64")
    if na_action == "ignore":
        owner = xp.where(column.isna(), -1, owner)
    return values.take_or_missing(owner)


def _map_distinct(column: Column, arg: Any, na_action: str | None, kwargs: dict | None = None) -> Column:
    """Map the column's distinct values with pandas on the host, then gather the results by group number
    (the path of functions that do not compile, and of mappings the device lookup does not take)."""
    from riptide.frame.series import Series

    xp = column.xp
    if column.size == 0:
        distinct, ids = column, None
    else:
        groups = group_rows([_distinct_key(column)], sort=False, dropna=False)
        distinct, ids = column.take(groups.first_rows), groups.ids
    host = Series._from_column(distinct).to_pandas()
    if isinstance(arg, Series):
        arg = arg.to_pandas()  # pandas looks a mapping Series up by its labels only when it is its own kind
    result = host.map(arg, na_action=na_action, **(kwargs or {}))
    if result.dtype == object and bool(result.isna().all()) and _has_bool_values(arg):
        # Every row missed a mapping of booleans: pandas' object NaN is riptide's ``boolean``, as on the device path.
        result = result.astype("boolean")
    mapped = as_column(result, xp=xp)
    return mapped if ids is None else mapped.take(ids)


def _distinct_key(column: Column) -> Column:
    """The column to find distinct values in: floats by their bits, so that a function sees ``-0.0`` and ``0.0``
    (equal values, different results for ``str`` or ``math.copysign``) as pandas passes them."""
    if isinstance(column, NumericColumn) and column.dtype.kind == "f" and not dtypes.is_masked(column.dtype):
        bits = column.data.view(np.dtype(f"int{column.dtype.itemsize * 8}"))
        return NumericColumn(bits).set_missing(column.isna())  # every NaN is one missing key
    return column


def _has_bool_values(arg: Any) -> bool:
    """Whether ``arg`` is a mapping (dict, Series) whose values are all booleans."""
    if isinstance(arg, pd.Series):
        return arg.dtype == bool
    if isinstance(arg, dict) and arg:
        return all(isinstance(v, bool | np.bool_) for v in arg.values())  # host metadata: the mapping's values
    return False
