"""The ``.cat`` accessor of a categorical Series: its codes, its categories, and new categoricals from them.

A :class:`~riptide.core.column.CategoricalColumn` is read-only, so every method here builds a new column. The
work splits in two, by size:

* **Category level** (a few values, already on the host inside the cached ``pd.CategoricalDtype``): which
  categories the result has, in what order, whether it is ordered, and whether the request is valid. This is
  pandas' own rule set, so it is delegated to pandas, applied to a *probe*: a host ``pd.Categorical`` holding
  each category once, in order (``codes == arange(n_categories)``). The method's result on the probe is the new
  dtype, and its codes say where each old category went (-1: dropped). pandas raises its own errors for bad
  requests (duplicates, missing categories, wrong lengths), so the messages are pandas'.
* **Row level** (the codes, on the device): one gather through that small table, ``table[codes + 1]``, where
  ``table[0] = -1`` keeps missing rows missing. No row value leaves the device and no Python loop runs over rows.

``remove_unused_categories`` depends on the rows, so it marks the used categories on the device (a scatter of
``True`` into a bool array of one slot per category) and renumbers them with a cumulative sum.

The codes' integer width follows pandas: a method that only relabels (``rename_categories``, ``as_ordered``,
``set_categories(rename=True)``, or a ``set_categories`` to the same categories) keeps the codes' dtype; one
that recodes gives the smallest of int8/int16/int32/int64 that holds the new number of categories.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core.column import CategoricalColumn, NumericColumn
from riptide.core.column.categorical import HostCategories, categories_column, codes_dtype_for

__all__ = ["CategoricalAccessor", "SeriesCategoricalAccessorMethods"]


class SeriesCategoricalAccessorMethods:
    """Mixin of Series: the ``cat`` accessor."""

    @property
    def cat(self) -> CategoricalAccessor:
        """Methods of a categorical Series (AttributeError for any other dtype).

        >>> import riptide as rt
        >>> s = rt.Series(["b", "a", None, "b"], dtype="category")
        >>> s.cat.codes.tolist()
        [1, 0, -1, 1]
        """
        return CategoricalAccessor(self)


class CategoricalAccessor:
    """``Series.cat``: read the codes and categories, or get a new categorical Series with other categories.

    >>> import riptide as rt
    >>> s = rt.Series(["b", "a", "b"], dtype="category", name="x")
    >>> s.cat.categories.tolist(), s.cat.ordered
    (['a', 'b'], False)
    >>> s.cat.rename_categories({"a": "A"}).tolist()
    ['b', 'A', 'b']
    """

    __slots__ = ("_series",)

    def __init__(self, series: Any):
        if not isinstance(series._column, CategoricalColumn):
            raise AttributeError("Can only use .cat accessor with a 'category' dtype")
        self._series = series

    # --- facts ---------------------------------------------------------------------------------------------------

    @property
    def _column(self) -> CategoricalColumn:
        return self._series._column

    @property
    def codes(self) -> Any:
        """The integer codes, -1 for missing rows, with the Series' index (and no name, as in pandas).

        >>> import riptide as rt
        >>> rt.Series(["b", None], dtype="category").cat.codes.dtype
        dtype('int8')
        """
        from riptide.frame.series import Series

        # Columns are immutable, so the codes buffer is shared, not copied.
        return Series._from_column(NumericColumn(self._column.codes), self._series.index, None)

    @property
    def categories(self) -> Any:
        """The categories as an Index (a pandas Index where no riptide column holds them, e.g. Intervals).

        >>> import riptide as rt
        >>> rt.Series([3, 1, 3], dtype="category").cat.categories.tolist()
        [1, 3]
        """
        from riptide.frame.index import Index

        categories = self._column.categories
        if isinstance(categories, HostCategories):
            return self._column.dtype.categories
        return Index._from_column(categories, None)

    @property
    def ordered(self) -> bool:
        """Whether the categories have an order (comparisons, min/max follow it)."""
        return self._column.ordered

    # --- relabelling: the codes stay ----------------------------------------------------------------------------

    def as_ordered(self) -> Any:
        """The same values with ordered categories.

        >>> import riptide as rt
        >>> rt.Series(["a"], dtype="category").cat.as_ordered().cat.ordered
        True
        """
        return self._with_order(True)

    def as_unordered(self) -> Any:
        """The same values with unordered categories."""
        return self._with_order(False)

    def rename_categories(self, new_categories: Any) -> Any:
        """Other labels for the same categories: a list (one per category), a dict (old -> new) or a function.

        >>> import riptide as rt
        >>> rt.Series(["a", "b"], dtype="category").cat.rename_categories(str.upper).tolist()
        ['A', 'B']
        """
        result = self._probe().rename_categories(_host(new_categories))
        return self._rebuild(result, keep_codes_dtype=True)

    # --- recoding: the codes are gathered through a table of one entry per category ----------------------------

    def set_categories(self, new_categories: Any, ordered: bool | None = None, rename: bool = False) -> Any:
        """These categories instead: values not among them become missing (with ``rename``, relabel by position).

        >>> import riptide as rt
        >>> rt.Series(["a", "b", "c"], dtype="category").cat.set_categories(["c", "a"]).tolist()
        ['a', nan, 'c']
        """
        result = self._probe().set_categories(_host(new_categories), ordered=ordered, rename=rename)
        return self._rebuild(result, keep_codes_dtype=rename or self._same_categories(result))

    def reorder_categories(self, new_categories: Any, ordered: bool | None = None) -> Any:
        """The same categories in another order (ValueError if ``new_categories`` is not a permutation of them).

        >>> import riptide as rt
        >>> s = rt.Series(["a", "b"], dtype="category").cat.reorder_categories(["b", "a"])
        >>> s.cat.codes.tolist()
        [1, 0]
        """
        result = self._probe().reorder_categories(_host(new_categories), ordered=ordered)
        return self._rebuild(result, keep_codes_dtype=self._same_categories(result))

    def add_categories(self, new_categories: Any) -> Any:
        """More categories, after the existing ones (unused until values take them).

        >>> import riptide as rt
        >>> rt.Series(["a"], dtype="category").cat.add_categories(["z"]).cat.categories.tolist()
        ['a', 'z']
        """
        result = self._probe().add_categories(_host(new_categories))
        return self._rebuild(result, keep_codes_dtype=False)

    def remove_categories(self, removals: Any) -> Any:
        """Fewer categories: values of the removed ones become missing.

        >>> import riptide as rt
        >>> rt.Series(["a", "b"], dtype="category").cat.remove_categories("a").tolist()
        [nan, 'b']
        """
        result = self._probe().remove_categories(_host(removals))
        return self._rebuild(result, keep_codes_dtype=self._same_categories(result))

    def remove_unused_categories(self) -> Any:
        """Only the categories some row holds, in their current order.

        >>> import riptide as rt
        >>> s = rt.Series(["c", "a"], dtype="category").cat.add_categories("b")
        >>> s.cat.remove_unused_categories().cat.categories.tolist()
        ['a', 'c']
        """
        column = self._column
        xp = column.xp
        n_categories = column.categories.size
        # Slot 0 stands for missing rows (code -1), slot k + 1 for category k: no row needs a bounds check.
        slots = column.codes.astype(np.int64) + 1
        used = xp.zeros(n_categories + 1, dtype=bool)
        used[slots] = True  # duplicate positions all write True: any order of the writes gives the same array
        used[0] = False
        kept = xp.flatnonzero(used[1:])  # the used categories, in category order (its size is one sync)
        # New code of each slot: the number of used categories before it; -1 for the missing slot.
        table = (xp.cumsum(used) - 1).astype(np.int64)
        table[0] = -1
        codes_dtype = codes_dtype_for(int(kept.shape[0]))
        new_codes = table.astype(codes_dtype)[slots]
        categories = column.categories.take(kept)
        return self._series_of(CategoricalColumn(new_codes, categories, column.ordered))

    # --- helpers -------------------------------------------------------------------------------------------------

    def _probe(self) -> pd.Categorical:
        """Each category once, in order: pandas' method on it gives the new dtype, and (as its codes) the new code
        of each old category."""
        dtype = self._column.dtype
        return pd.Categorical.from_codes(np.arange(len(dtype.categories), dtype=np.int64), dtype=dtype)

    def _same_categories(self, result: pd.Categorical) -> bool:
        # pandas keeps the codes (and their width) when there were no categories or they did not change.
        old = self._column.dtype.categories
        return len(old) == 0 or result.categories.equals(old)

    def _with_order(self, ordered: bool) -> Any:
        column = self._column
        dtype = pd.CategoricalDtype(column.dtype.categories, ordered=ordered)
        return self._series_of(CategoricalColumn(column.codes, column.categories, ordered, dtype))

    def _rebuild(self, result: pd.Categorical, keep_codes_dtype: bool) -> Any:
        """The Series with ``result``'s dtype, its codes recoded on the device through ``result.codes``."""
        column = self._column
        xp = column.xp
        dtype = result.dtype
        codes_dtype = column.codes.dtype if keep_codes_dtype else codes_dtype_for(len(dtype.categories))
        moved = result.codes.astype(np.int64)  # new code of each old category (host, one per category)
        if np.array_equal(moved, np.arange(moved.shape[0])):
            codes = column.codes.astype(codes_dtype, copy=False)  # nothing moved: only the width may change
        else:
            table = _device.to_device(np.concatenate([[-1], moved]).astype(codes_dtype), xp)
            codes = table[column.codes.astype(np.int64) + 1]  # entry 0 keeps missing rows (code -1) missing
        old = column.dtype.categories
        if dtype.categories.equals(old) and dtype.categories.dtype == old.dtype:
            categories = column.categories  # the same labels: keep the device column
        else:
            categories = categories_column(dtype.categories, xp)  # a few labels, copied once to the device
        return self._series_of(CategoricalColumn(codes, categories, dtype.ordered, dtype))

    def _series_of(self, column: CategoricalColumn) -> Any:
        from riptide.frame.series import Series

        return Series._from_column(column, self._series.index, self._series.name)


def _host(value: Any) -> Any:
    """User input naming categories (list, dict, function, or a riptide Series / Index) as pandas takes it: a
    riptide Series or Index becomes its pandas twin (a Series is a mapping for ``rename_categories``, as in
    pandas)."""
    from riptide.frame.index import Index
    from riptide.frame.series import Series

    if isinstance(value, Series | Index):
        return value.to_pandas()
    return value
