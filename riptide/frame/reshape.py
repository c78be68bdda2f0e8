"""Reshaping: melt, get_dummies, explode and sample.

The methods live on mixins that ``Series`` and ``DataFrame`` inherit, so this capability stays in one module.

How each runs:

* ``melt`` is gathers: the id columns repeat the rows once per value column (one gather with positions
  ``i % n``), the value columns are concatenated with pandas' promotion (:func:`riptide.frame.concat.concat_promoted`)
  and the ``variable`` column is the host list of column labels, gathered with ``i // n``.
* ``get_dummies`` factorizes each encoded column once on the device (codes in sorted order of the values, or a
  categorical's own codes) and builds each indicator column as ``codes == j``. Only the distinct values travel
  to the host, because they become column labels.
* ``sample`` draws the positions on the host with NumPy's ``RandomState`` (or the ``Generator`` given), with the
  very call pandas makes, so the same ``random_state`` picks the same rows as pandas; then one gather on the
  device. Weights, when given, travel to the host for the draw.
* ``explode`` works on list columns (:class:`riptide.core.column.ListColumn`: offsets into a child column). The
  rows each row becomes (its list's length, 1 for an empty or missing list) are summed into output offsets; each
  output row then knows its source row (a segmented map) and its element (a gather from the child, -1 giving
  the missing value of an empty list). The elements keep their riptide dtype; pandas' lists of Python objects
  explode into ``object`` columns instead.

>>> import riptide as rt
>>> df = rt.DataFrame({"id": [1, 2], "a": [10, 20], "b": [30, 40]})
>>> rt.melt(df, id_vars="id").to_pandas()
   id variable  value
0   1        a     10
1   2        a     20
2   1        b     30
3   2        b     40
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, as_column
from riptide.core.kernels.segments import row_of_each_element
from riptide.core.ops.grouping import first_row_of_each
from riptide.frame.sorting import _frame_axis, _series_axis

__all__ = ["SeriesReshapeMethods", "FrameReshapeMethods", "melt", "get_dummies", "sample_positions"]


# --------------------------------------------------------------------------- melt


def melt(frame: Any, id_vars: Any = None, value_vars: Any = None, var_name: Any = None,
         value_name: Hashable = "value", col_level: Any = None, ignore_index: bool = True) -> Any:  # fmt: skip
    """Unpivot a DataFrame from wide to long: one row per (row, value column), as ``pandas.melt``.

    The id columns repeat for each value column; ``variable`` holds the value column's label and ``value`` its
    value (the value columns concatenated with pandas' dtype promotion).

    >>> import riptide as rt
    >>> df = rt.DataFrame({"k": ["x", "y"], "a": [1, 2], "b": [3.5, 4.5]})
    >>> rt.melt(df, id_vars=["k"], value_vars=["b"]).to_pandas()
       k variable  value
    0  x        b    3.5
    1  y        b    4.5
    """
    from riptide.frame.concat import concat_promoted
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import default_index

    if isinstance(frame, pd.DataFrame):
        frame = DataFrame(frame)
    if not isinstance(frame, DataFrame):
        raise TypeError(f"melt expects a DataFrame, got {type(frame).__name__}")
    if col_level is not None:
        raise NotImplementedError("melt(col_level=) needs MultiIndex columns, which riptide DataFrames do not have")
    columns = frame._data
    if _contains(columns, value_name):
        raise ValueError(f"value_name ({value_name}) cannot match an element in the DataFrame columns.")
    ids = _as_label_list(id_vars)
    chosen = _as_label_list(value_vars)
    if ids or chosen:
        absent = [label for label in ids + chosen if not _contains(columns, label)]
        if absent:
            raise KeyError(f"The following id_vars or value_vars are not present in the DataFrame: {absent}")
    if not ids and not chosen:  # pandas: with neither given (or both empty), every column is a value column
        values = list(columns)
    elif value_vars is None:
        values = [label for label in columns if label not in ids]
    else:
        values = []
        for label in chosen:  # repeated labels count once, and an id column is not a value column
            if label not in values and label not in ids:
                values.append(label)
    if var_name is None:
        var_name = "variable"
    elif pd.api.types.is_list_like(var_name):
        raise ValueError(f"var_name={var_name!r} must be a scalar.")
    output = [*ids, var_name, value_name]
    repeated = list({label for label in output if output.count(label) > 1})
    if repeated:
        raise ValueError(f"melt output columns cannot contain duplicate names: {repeated}")

    xp = frame._xp()
    n, k = len(frame), len(values)
    row = xp.arange(n * k, dtype=np.int64)
    of_row = row % n if n else row  # each id repeats the frame's rows once per value column
    result: dict[Hashable, Column] = {label: columns[label].take(of_row) for label in ids}
    if k:
        labels = as_column(pd.Index(values), xp=xp)
        result[var_name] = labels.take(row // n if n else row)
        result[value_name] = concat_promoted([columns[label] for label in values])
    else:  # nothing to melt: an empty label column of the column labels' dtype, and float64 values
        # (a frame without columns has pandas' default RangeIndex of labels: int64)
        label_dtype = pd.Index(list(columns)).dtype if columns else np.dtype(np.int64)
        label_dtype = np.dtype(np.float64) if label_dtype == object else label_dtype  # no object columns
        result[var_name] = as_column([], dtype=label_dtype, xp=xp)
        result[value_name] = as_column([], dtype=np.float64, xp=xp)
    index = default_index(n * k, xp) if ignore_index else frame._index.take(of_row)
    return DataFrame._from_columns(result, index)


def _contains(columns: dict[Hashable, Column], label: Any) -> bool:
    try:
        return label in columns
    except TypeError:  # an unhashable label is no column's
        return False


def _as_label_list(labels: Any) -> list[Any]:
    if labels is None:
        return []
    if isinstance(labels, tuple) or not pd.api.types.is_list_like(labels):
        return [labels]
    return list(labels)


# --------------------------------------------------------------------------- get_dummies


def get_dummies(data: Any, prefix: Any = None, prefix_sep: Any = "_", dummy_na: bool = False, columns: Any = None,
                sparse: bool = False, drop_first: bool = False, dtype: Any = None) -> Any:  # fmt: skip
    """One indicator column per distinct value, as ``pandas.get_dummies`` (``bool`` columns by default).

    A Series gives one column per value (labelled by the value, or ``prefix`` + ``prefix_sep`` + value). A
    DataFrame encodes its ``str`` and ``category`` columns (or ``columns``): the other columns come first,
    then the indicators of each encoded column, labelled ``<column>_<value>``. Values are in sorted order (a
    categorical's in its categories' order, unused ones included); missing values are all-False rows unless
    ``dummy_na`` adds a NaN column.

    >>> import riptide as rt
    >>> rt.get_dummies(rt.Series(["b", "a", None, "b"])).to_pandas()
           a      b
    0  False   True
    1   True  False
    2  False  False
    3  False   True
    """
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    if sparse:
        raise NotImplementedError("get_dummies(sparse=True) is not supported: riptide has no sparse columns")
    dtype = _dummy_dtype(dtype)
    if isinstance(data, pd.Series | pd.DataFrame):
        data = Series(data) if isinstance(data, pd.Series) else DataFrame(data)
    if isinstance(data, Series):
        return _dummies_of(data._column, data._index, prefix, prefix_sep, dummy_na, drop_first, dtype)
    if not isinstance(data, DataFrame):
        data = Series(data)
        return _dummies_of(data._column, data._index, prefix, prefix_sep, dummy_na, drop_first, dtype)
    if columns is None:
        encoded = [label for label, c in data._data.items() if isinstance(c, CategoricalColumn) or
                   dtypes.is_string(c.dtype)]  # fmt: skip
    elif not pd.api.types.is_list_like(columns) or isinstance(columns, str):
        raise TypeError("Input must be a list-like for parameter `columns`")
    else:
        encoded = list(columns)
        absent = [label for label in encoded if label not in data._data]
        if absent:
            raise KeyError(f"{absent} not in index" if len(absent) < len(encoded) else
                           f"None of [{pd.Index(encoded)}] are in the [columns]")  # fmt: skip
    prefixes = _per_column("prefix", prefix, encoded, default=encoded)
    separators = _per_column("prefix_sep", prefix_sep, encoded, default=None)
    pieces = [data._with_columns({k: v for k, v in data._data.items() if k not in encoded})] if (
        len(set(encoded)) < len(data._data)) else []  # fmt: skip
    for label, pre, sep in zip(encoded, prefixes, separators):
        pieces.append(_dummies_of(data._data[label], data._index, pre, sep, dummy_na, drop_first, dtype))
    if not pieces:
        raise ValueError("No objects to concatenate")  # as pandas, for a frame without columns
    from riptide.frame.concat import concat

    return concat(pieces, axis=1)


def _dummy_dtype(dtype: Any) -> Any:
    if dtype is None:
        return np.dtype(bool)
    if (isinstance(dtype, str) and dtype == "object") or dtype is object or (
            isinstance(dtype, np.dtype) and dtype.kind == "O"):  # fmt: skip
        raise ValueError("dtype=object is not a valid dtype for get_dummies")
    return dtypes.normalize(dtype)


def _per_column(name: str, value: Any, encoded: list[Any], default: Any) -> list[Any]:
    """``prefix`` / ``prefix_sep`` as one entry per encoded column (a string repeats, a dict maps labels)."""
    if value is None:
        return list(default) if default is not None else ["_"] * len(encoded)
    if isinstance(value, str):
        return [value] * len(encoded)
    if isinstance(value, dict):
        return [value[label] for label in encoded]
    if pd.api.types.is_list_like(value):
        value = list(value)
        if len(value) != len(encoded):
            raise ValueError(f"Length of '{name}' ({len(value)}) did not match the length of the columns being "
                             f"encoded ({len(encoded)}).")  # fmt: skip
        return value
    return [value] * len(encoded)


def _dummies_of(column: Column, index: Any, prefix: Any, prefix_sep: str, dummy_na: bool, drop_first: bool,
                dtype: Any) -> Any:  # fmt: skip
    """The indicator columns of one column (a DataFrame on ``index``)."""
    from riptide.core.kernels.factorize import factorize
    from riptide.core.ops.cast import astype
    from riptide.frame.dataframe import DataFrame

    xp = column.xp
    if isinstance(column, CategoricalColumn):
        codes, levels = column.codes.astype(np.int64), column.categories
    else:
        codes, n_levels = factorize(column)
        levels = column.take(first_row_of_each(codes, n_levels, xp))
    # The distinct values travel to the host: they become column labels, as the pandas Index pandas makes of
    # them (a NaN label for dummy_na joins that Index, so int labels become floats there, as in pandas).
    shown = pd.Index(levels.to_pandas_array())
    n_levels = len(shown)
    if not dummy_na and n_levels == 0:
        return DataFrame._from_columns({}, index)
    wanted = list(range(n_levels)) + ([-1] if dummy_na else [])
    # a categorical's prefixed labels spell its categories (ints stay ints next to NaN), as pandas spells them
    spelled = list(shown) + ([np.nan] if dummy_na else []) if isinstance(column, CategoricalColumn) else None
    if dummy_na:
        shown = shown.insert(n_levels, np.nan)
    if drop_first:
        if len(wanted) == 1:
            return DataFrame._from_columns({}, index)
        wanted, shown = wanted[1:], shown[1:]
        spelled = spelled[1:] if spelled is not None else None
    if prefix is None:
        labels = list(shown)
    else:
        labels = [f"{prefix}{prefix_sep}{level}" for level in (shown if spelled is None else spelled)]
    result = {}
    for label, code in zip(labels, wanted):
        indicator = NumericColumn(codes == code if code >= 0 else codes < 0)
        result[label] = indicator if dtype == np.dtype(bool) else astype(indicator, dtype)
    if len(result) < len(labels):
        raise ValueError(f"riptide DataFrames need unique column labels; get_dummies would repeat some of "
                         f"{labels}")  # fmt: skip
    frame = DataFrame._from_columns(result, index)
    if isinstance(column, CategoricalColumn) and prefix is None:
        # pandas labels a categorical's indicators with a CategoricalIndex of its dtype
        frame._set_column_axis(pd.CategoricalIndex(labels, dtype=column.dtype))
    return frame


# --------------------------------------------------------------------------- sample


def sample_positions(obj: Any, n: Any, frac: Any, replace: bool, weights: Any, random_state: Any,
                     axis: int) -> np.ndarray:  # fmt: skip
    """The positions pandas' ``sample`` takes, drawn on the host with NumPy's generator.

    pandas draws positions with ``RandomState.choice`` (or ``Generator.choice``); drawing them with the same
    generator, seed and call here gives exactly pandas' rows for the same ``random_state``. The draw (and the
    weights, when given) are on the host; the rows are gathered on the device afterwards.
    """
    length = len(obj) if axis == 0 else len(obj._data)
    rs = _random_state(random_state)
    size = _sampling_size(n, frac, replace)
    if size is None:
        size = round(frac * length)
    probabilities = None
    if weights is not None:
        probabilities = _sampling_weights(obj, weights, axis, length)
        total = probabilities.sum()
        if total == 0:
            raise ValueError("Invalid weights: weights sum to zero")
        probabilities = probabilities / total
        if not replace and size * probabilities.max() > 1:
            raise ValueError("Weighted sampling cannot be achieved with replace=False. Either set replace=True or "
                             "use smaller weights. See the docstring of sample for details.")  # fmt: skip
    return np.asarray(rs.choice(length, size=int(size), replace=replace, p=probabilities), dtype=np.int64)


def _random_state(state: Any) -> Any:
    """pandas' reading of ``random_state``: None is NumPy's global state, an int (or a NumPy array, or a
    BitGenerator) seeds a ``RandomState``, a ``RandomState`` or ``Generator`` is used as is."""
    if state is None:
        return np.random  # the module: its functions draw from NumPy's global RandomState
    if isinstance(state, np.random.RandomState | np.random.Generator):
        return state
    if pd.api.types.is_integer(state) or isinstance(state, np.ndarray | np.random.BitGenerator):
        return np.random.RandomState(state)
    raise ValueError("random_state must be an integer, array-like, a BitGenerator, Generator, a numpy "
                     "RandomState, or None")  # fmt: skip


def _sampling_size(n: Any, frac: Any, replace: bool) -> Any:
    if n is None and frac is None:
        return 1
    if n is not None and frac is not None:
        raise ValueError("Please enter a value for `frac` OR `n`, not both")
    if n is not None:
        if n < 0:
            raise ValueError("A negative number of rows requested. Please provide `n` >= 0.")
        if n % 1 != 0:
            raise ValueError("Only integers accepted as `n` values")
        return int(n)
    if frac > 1 and not replace:
        raise ValueError("Replace has to be set to `True` when upsampling the population `frac` > 1.")
    if frac < 0:
        raise ValueError("A negative number of rows requested. Please provide `frac` >= 0.")
    return None


def _sampling_weights(obj: Any, weights: Any, axis: int, length: int, xp: Any = np) -> Any:
    """The weights as a float64 array of ``xp`` (NaN and missing count as 0), checked as pandas checks them:
    on the host for ``sample``'s draw, on the device for ``groupby().sample``'s."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    if isinstance(weights, pd.Series):
        weights = Series(weights)
    if isinstance(weights, str):
        if not isinstance(obj, DataFrame):
            raise ValueError("Strings cannot be passed as weights when sampling from a Series.")
        if axis != 0:
            raise ValueError("Strings can only be passed to weights when sampling from rows on a DataFrame")
        if weights not in obj._data:
            raise KeyError("String passed to weights not a valid column")
        weights = obj[weights]
    if isinstance(weights, Series):
        if axis == 0:
            weights = weights.reindex(obj._index)
        else:
            weights = weights.reindex(list(obj._data))
        column = weights.astype(np.float64)._column
        values = column.xp.where(column.isna(), np.nan, column.data) if column.can_hold_missing() else column.data
        values = _device.to_device(values, xp)  # (to the host for sample's draw)
    else:
        values = np.asarray(weights.to_numpy() if hasattr(weights, "to_numpy") else weights, dtype=np.float64)
        values = _device.to_device(values, xp)
    if values.ndim != 1 or values.shape[0] != length:
        raise ValueError("Weights and axis to be sampled must be of same length")
    if bool((xp.isinf(values) | (values < 0)).any()):  # one scalar read: pandas refuses the weights
        if bool(xp.isinf(values).any()):  # error path only: inf first (so -inf too), as pandas checks
            raise ValueError("weights vector may not include `inf` values")
        raise ValueError("weights vector may not include negative values")
    return xp.where(xp.isnan(values), 0.0, values)


def _sample_axis(obj: Any, axis: Any) -> int:
    from riptide.frame.dataframe import DataFrame

    if axis is None or axis in (0, "index", "rows"):
        return 0
    if isinstance(obj, DataFrame) and axis in (1, "columns"):
        return 1
    kind = "DataFrame" if isinstance(obj, DataFrame) else "Series"
    raise ValueError(f"No axis named {axis} for object type {kind}")


# --------------------------------------------------------------------------- explode


def _explode_counts(column: Column) -> Any:
    """Rows each row becomes: its list's length, 1 for an empty or missing list; None for a non-list column."""
    from riptide.core.column import ListColumn

    if not isinstance(column, ListColumn):
        return None
    lengths = column.lengths()
    return column.xp.where(column.notna() & (lengths > 0), lengths, 1)


def _exploded(columns: dict[Hashable, Column], exploding: list[Hashable], index: Any,
              ignore_index: bool) -> tuple[dict[Hashable, Column], Any]:  # fmt: skip
    """The columns with each list of the ``exploding`` columns spread over rows (other columns repeated)."""
    from riptide.core.column import ListColumn
    from riptide.frame.index import default_index

    counts = [_explode_counts(columns[label]) for label in exploding]
    first = next((c for c in counts if c is not None), None)
    xp = index._namespace
    if first is None:  # nothing is a list: every row stays one row
        n = len(index)
        return dict(columns), default_index(n, xp) if ignore_index else index
    for other in counts:
        # a column that is not a list counts one element per row, as pandas counts a scalar
        other = xp.ones_like(first) if other is None else other
        if other is not first and not bool(xp.all(other == first)):  # one scalar read
            raise ValueError("columns must have matching element counts")
    n = first.shape[0]
    out_offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(first, out=out_offsets[1:])
    row_of = row_of_each_element(out_offsets, xp)  # one scalar read: the number of rows after exploding
    within = xp.arange(row_of.shape[0], dtype=np.int64) - out_offsets[:-1][row_of]
    result = {}
    for label, column in columns.items():
        if label in exploding and isinstance(column, ListColumn):
            has_elements = (column.notna() & (column.lengths() > 0))[row_of]
            element = xp.where(has_elements, column.offsets[:-1][row_of] + within, -1)
            result[label] = column.child.take_or_missing(element)
        else:
            result[label] = column.take(row_of)
    new_index = default_index(row_of.shape[0], xp) if ignore_index else index.take(row_of)
    return result, new_index


# --------------------------------------------------------------------------- mixins


class SeriesReshapeMethods:
    """Mixed into ``Series``."""

    __slots__ = ()

    def explode(self, ignore_index: bool = False) -> Any:
        """One row per element of each list (an empty or missing list gives one missing row), as pandas.

        The index repeats for the elements of a row. A column that holds no lists is returned unchanged.
        The elements keep their riptide dtype (pandas gives ``object`` for Python lists).

        >>> import riptide as rt
        >>> rt.Series([[1, 2], [], [3]], index=["a", "b", "c"]).explode().to_pandas()
        a    1.0
        a    2.0
        b    NaN
        c    3.0
        dtype: float64
        """
        columns, index = _exploded({0: self._column}, [0], self._index, ignore_index)
        return type(self)._from_column(columns[0], index, self.name)

    def squeeze(self, axis: Any = None) -> Any:
        """The one value of a one-row Series, else the Series itself.

        >>> import riptide as rt
        >>> int(rt.Series([7]).squeeze()), len(rt.Series([1, 2]).squeeze())
        (7, 2)
        """
        _series_axis(axis)
        return self.iloc[0] if len(self) == 1 else self

    def sample(self, n: int | None = None, frac: float | None = None, replace: bool = False, weights: Any = None,
               random_state: Any = None, axis: Any = None, ignore_index: bool = False) -> Any:  # fmt: skip
        """Random rows, exactly the ones pandas returns for the same integer ``random_state``.

        The positions are drawn on the host with NumPy's ``RandomState`` (or the given ``Generator``), as
        pandas draws them; the rows are gathered on the device.

        >>> import riptide as rt
        >>> rt.Series([10, 20, 30, 40]).sample(2, random_state=1).tolist()
        [40, 30]
        """
        from riptide.frame.index import default_index

        _sample_axis(self, axis)
        positions = sample_positions(self, n, frac, replace, weights, random_state, 0)
        result = self._take(self._column.xp.asarray(positions))
        if ignore_index:
            result._index = default_index(len(result), self._column.xp)
        return result


class FrameReshapeMethods:
    """Mixed into ``DataFrame``."""

    __slots__ = ()

    def transpose(self, *args: Any, copy: Any = None) -> Any:
        """Rows as columns and columns as rows (``df.T``): row ``i`` becomes the column labelled by the row's
        index label. The values are gathered once into row-major order on the device, so each new column is a
        slice of one buffer.

        All columns are first brought to their common dtype; where pandas would make an object column (text
        with numbers, bools with numbers) riptide, which has no object dtype, raises TypeError; masked ints
        with floats give Float64 (pandas: object). The new column labels must be unique.

        >>> import riptide as rt
        >>> df = rt.DataFrame({"a": [1, 2], "b": [3, 4]}, index=["x", "y"])
        >>> df.T["y"].tolist()
        [2, 4]
        """
        from riptide.frame.concat import concat_promoted
        from riptide.frame.dataframe import DataFrame, _refuse_duplicate_labels
        from riptide.frame.index import as_index, default_index

        row_labels = self._index.tolist()
        _refuse_duplicate_labels(row_labels)
        new_index = as_index(self.columns) if self._data else default_index(0, self._index._namespace).copy(
            name=self.columns.name)  # fmt: skip
        columns = list(self._data.values())
        n_rows, n_cols = len(self), len(columns)
        if n_cols == 0 or n_rows == 0:  # no values, so no common dtype to find
            xp = self._index._namespace
            new = {label: NumericColumn(xp.zeros(0, dtype=np.float64)) for label in row_labels}
        else:
            xp = columns[0].xp
            stacked = concat_promoted(columns)  # column after column: value (row i, column j) at j * n_rows + i
            row_major = (xp.arange(n_rows, dtype=np.int64)[:, None] +
                         xp.arange(n_cols, dtype=np.int64)[None, :] * n_rows).reshape(-1)  # fmt: skip
            by_row = stacked.take(row_major)
            new = {label: by_row.slice(i * n_cols, (i + 1) * n_cols, 1) for i, label in enumerate(row_labels)}
        result = DataFrame._from_columns(new, new_index)
        if self._index.nlevels == 1 and self._index.name is not None:
            result.columns = pd.Index(result.columns, name=self._index.name)
        elif self._index.nlevels > 1:
            result.columns = pd.MultiIndex.from_tuples(row_labels, names=self._index.names)
        return result

    @property
    def T(self) -> Any:  # noqa: N802 - pandas' name
        """The transpose (:meth:`transpose`)."""
        return self.transpose()

    def squeeze(self, axis: Any = None) -> Any:
        """The frame with its length-1 axes squeezed out: one column gives a Series, one row a Series of that
        row (``df.iloc[0]``), one cell its value; ``axis`` squeezes only that axis.

        >>> import riptide as rt
        >>> rt.DataFrame({"a": [1, 2]}).squeeze().tolist(), int(rt.DataFrame({"a": [5]}).squeeze())
        ([1, 2], 5)
        """
        axes = (0, 1) if axis is None else (_frame_axis(axis),)
        result = self
        if 1 in axes and len(result.columns) == 1:
            result = result.iloc[:, 0]
        if 0 in axes and len(result) == 1:
            result = result.iloc[0]
        return result

    def sample(self, n: int | None = None, frac: float | None = None, replace: bool = False, weights: Any = None,
               random_state: Any = None, axis: Any = None, ignore_index: bool = False) -> Any:  # fmt: skip
        """Random rows (or columns, ``axis=1``): exactly the ones pandas returns for the same ``random_state``.

        The positions are drawn on the host with NumPy's generator, as pandas draws them (weights, if given,
        travel to the host for the draw); the rows are gathered on the device.

        >>> import riptide as rt
        >>> rt.DataFrame({"a": [1, 2, 3, 4]}).sample(frac=0.5, random_state=0)["a"].tolist()
        [3, 4]
        """
        from riptide.frame import indexing
        from riptide.frame.index import default_index

        axis = _sample_axis(self, axis)
        positions = sample_positions(self, n, frac, replace, weights, random_state, axis)
        if axis == 1:
            labels = list(self._data)
            chosen = [labels[p] for p in positions]
            if len(set(chosen)) < len(chosen):
                raise ValueError("riptide DataFrames need unique column labels; sampling columns with "
                                 "replace=True repeats some")  # fmt: skip
            return self._with_columns({label: self._data[label] for label in chosen})
        xp = self._xp()
        result = self._select_rows(indexing.RowSelection(positions=xp.asarray(positions)))
        if ignore_index:
            result._index = default_index(len(result), xp)
        return result

    def explode(self, column: Any, ignore_index: bool = False) -> Any:
        """One row per list element of ``column`` (a label or a list of labels whose lists have the same
        lengths row by row); the other columns repeat, as pandas.

        >>> import riptide as rt
        >>> rt.DataFrame({"k": ["x", "y"], "v": [[1, 2], [3]]}).explode("v").to_pandas()
           k  v
        0  x  1
        0  x  2
        1  y  3
        """
        if isinstance(column, tuple) or not pd.api.types.is_list_like(column):
            labels = [column]
        elif all(isinstance(c, tuple) or not pd.api.types.is_list_like(c) for c in column):
            labels = list(column)
            if not labels:
                raise ValueError("column must be nonempty")
            if len(set(labels)) < len(labels):
                raise ValueError("column must be unique")
        else:
            raise ValueError("column must be a scalar, tuple, or list thereof")
        absent = [label for label in labels if label not in self._data]
        if absent:
            raise KeyError(absent[0] if len(labels) == 1 else f"{absent} not in index")
        columns, index = _exploded(self._data, labels, self._index, ignore_index)
        return self._with_columns(columns, index)

    def melt(self, id_vars: Any = None, value_vars: Any = None, var_name: Any = None,
             value_name: Hashable = "value", col_level: Any = None, ignore_index: bool = True) -> Any:  # fmt: skip
        """Unpivot from wide to long (see :func:`riptide.frame.reshape.melt`)."""
        return melt(self, id_vars, value_vars, var_name, value_name, col_level, ignore_index)
