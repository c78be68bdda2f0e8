"""``rt.concat``: Series and DataFrames one after another (``axis=0``) or side by side (``axis=1``).

How the work is split:

* **Dtypes are decided on the host, from dtypes alone.** :func:`common_dtype` applies pandas' promotion rules
  (int8 + uint8 -> int16, int64 + uint64 -> float64, Int64 + float64 -> Float64, datetimes to the finer
  unit, categoricals with other categories decode to their values) before any data moves; a column missing
  from one of the frames of an outer join is filled with missing values, which turns int into float64 as in
  pandas. Where pandas would make an ``object`` column (numbers with strings or bools, datetimes with
  numbers) riptide has no such column and raises a ``TypeError`` saying which dtypes met.
* **Data is concatenated on the device**, one cast and one ``concat_columns`` per output column.
* **Row alignment (``axis=1``) is one grouping.** The row labels of all objects are concatenated and grouped
  once (:func:`riptide.core.ops.grouping.group_rows`, missing labels kept as a label of their own, as pandas
  matches NaN with NaN): the groups in order of first appearance are pandas' unsorted union (the first
  object's rows come first, so the same numbering restricted to labels present everywhere is pandas'
  intersection), and each object's positions in the result come from one scatter of its group numbers.
  No label is looked up one at a time.
* Column labels and ``keys`` are host metadata (a few values), handled in Python.

>>> import riptide as rt
>>> rt.concat([rt.Series([1, 2]), rt.Series([3.5])], ignore_index=True).tolist()
[1.0, 2.0, 3.5]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, as_column, concat_columns, full
from riptide.core.column.categorical import codes_dtype_for
from riptide.core.kernels.segments import row_of_each_element
from riptide.core.ops.cast import astype

__all__ = ["concat", "common_dtype"]


def concat(objs: Iterable[Any] | Mapping[Hashable, Any], *, axis: Any = 0, join: str = "outer",
           ignore_index: bool = False, keys: Any = None, levels: Any = None, names: Any = None,
           verify_integrity: bool = False, sort: bool = False, copy: Any = None) -> Any:  # fmt: skip
    """Concatenate Series and DataFrames along rows (``axis=0``) or columns (``axis=1``), as ``pandas.concat``.

    Parameters
    ----------
    objs : iterable or mapping of Series / DataFrame
        ``None`` entries are dropped. A mapping's keys become ``keys`` (unless given).
    axis : {0, "index", 1, "columns"}
    join : {"outer", "inner"}
        Union or intersection of the labels of the other axis.
    ignore_index : bool
        Number the concatenation axis 0..n-1 instead of keeping its labels.
    keys : sequence, optional
        One label per object, added as the outer level of a MultiIndex (columns become ``(key, label)``
        tuples with ``axis=1``).
    names : list, optional
        Names of the levels of that MultiIndex.
    verify_integrity : bool
        Raise ValueError when the new axis has duplicate labels.
    sort : bool
        Sort the labels of the other axis.
    copy : ignored (pandas 3 deprecates it: results never share buffers that can change).

    Returns
    -------
    Series or DataFrame

    Examples
    --------
    >>> import riptide as rt
    >>> a = rt.DataFrame({"x": [1, 2], "y": ["p", "q"]})
    >>> b = rt.DataFrame({"x": [3]})
    >>> rt.concat([a, b], ignore_index=True).to_pandas()
       x    y
    0  1    p
    1  2    q
    2  3  NaN
    >>> rt.concat([a, b.rename(columns={"x": "z"})], axis=1).to_pandas()
       x  y    z
    0  1  p  3.0
    1  2  q  NaN
    """
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    if ignore_index and keys is not None:
        raise ValueError(f"Cannot set ignore_index={ignore_index!r} and specify keys. Either should be used.")
    if join not in ("inner", "outer"):
        raise ValueError("Only can inner (intersect) or outer (union) join the other axis")
    if not isinstance(sort, bool | np.bool_):
        raise ValueError(f"The 'sort' keyword only accepts boolean values; {sort} was passed.")
    intersect = join == "inner"
    objs, keys = _clean_objects(objs, keys)
    axis = _axis_number(axis)
    if levels is not None:
        if keys is None:
            raise ValueError("levels supported only when keys is not None")
        raise NotImplementedError("concat(levels=) is not supported; the key level is built from keys=")
    if names is None and keys is not None:
        names = getattr(keys, "names", None)
    key_labels = None if keys is None else keys.tolist()

    if all(isinstance(obj, Series) for obj in objs):
        if axis == 0:
            return _series_along_rows(objs, ignore_index, key_labels, names, verify_integrity)
        return _series_side_by_side(objs, intersect, sort, ignore_index, key_labels, verify_integrity)
    if all(isinstance(obj, DataFrame) for obj in objs):
        if keys is None and names is None and not intersect:
            # pandas drops frames with neither rows nor columns when no MultiIndex is being built
            objs = [obj for obj in objs if len(obj) or len(obj._data)] or objs
    elif isinstance(objs[0], Series) and not any(isinstance(o, DataFrame) and (len(o) or len(o._data)) for o in objs):
        # pandas takes the first object as the model when no frame has rows or columns: a Series, here
        raise ValueError("cannot concatenate unaligned mixed dimensional NDFrame objects")
    frames = _as_frames(objs, axis)
    if axis == 0:
        return _frames_along_rows(frames, intersect, sort, ignore_index, key_labels, names, verify_integrity)
    return _frames_side_by_side(frames, intersect, sort, ignore_index, key_labels, verify_integrity)


# --------------------------------------------------------------------------- arguments


def _clean_objects(objs: Any, keys: Any) -> tuple[list[Any], pd.Index | None]:
    """The objects to concatenate (None dropped, pandas objects converted) and the keys that go with them."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    if isinstance(objs, Mapping):
        if keys is None:
            keys = list(objs.keys())
        objs = [objs[k] for k in keys]
    elif isinstance(objs, Series | DataFrame | pd.Series | pd.DataFrame | str) or pd.api.types.is_scalar(objs):
        raise TypeError("first argument must be an iterable of pandas objects, you passed an object of type "
                        f'"{type(objs).__name__}"')  # fmt: skip
    else:
        objs = list(objs)
    if len(objs) == 0:
        raise ValueError("No objects to concatenate")
    if keys is not None:
        keys = _key_index(keys)
        if len(keys) != len(objs):
            raise ValueError(f"The length of the keys ({len(keys)}) must match the length of the objects to "
                             f"concatenate ({len(objs)})")  # fmt: skip
    kept, cleaned = [], []
    for i, obj in enumerate(objs):
        if obj is None:
            continue
        if isinstance(obj, pd.Series | pd.DataFrame):
            obj = Series(obj) if isinstance(obj, pd.Series) else DataFrame(obj)
        if not isinstance(obj, Series | DataFrame):
            raise TypeError(f"cannot concatenate object of type '{type(obj)}'; only Series and DataFrame objs are "
                            "valid")  # fmt: skip
        kept.append(i)
        cleaned.append(obj)
    if not cleaned:
        raise ValueError("All objects passed were None")
    if keys is not None and len(kept) < len(keys):
        keys = keys.take(kept)
    return cleaned, keys


def _key_index(keys: Any) -> pd.Index:
    """``keys`` as a host pandas Index (they are a handful of labels, one per object)."""
    from riptide.frame.index import Index

    if isinstance(keys, Index):
        return keys.to_pandas()
    if isinstance(keys, pd.Index):
        return keys
    return pd.Index(keys.to_pandas() if hasattr(keys, "to_pandas") else list(keys))


def _axis_number(axis: Any) -> int:
    if axis in (0, "index", "rows"):
        return 0
    if axis in (1, "columns"):
        return 1
    raise ValueError(f"No axis named {axis} for object type DataFrame")


def _as_frames(objs: list[Any], axis: int) -> list[Any]:
    """Series among DataFrames become one-column frames, labelled as pandas labels them."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    frames = []
    unnamed = 0
    for obj in objs:
        if isinstance(obj, Series):
            label = obj.name
            if label is None:
                # Stacking rows, every unnamed Series fills column 0; side by side, each gets the next number.
                label = 0 if axis == 0 else unnamed
                unnamed += axis
            obj = DataFrame._from_columns({label: obj._column}, obj._index)
        frames.append(obj)
    return frames


# --------------------------------------------------------------------------- the four layouts


def _series_along_rows(objs: list[Any], ignore_index: bool, keys: list[Any] | None, names: Any,
                       verify_integrity: bool) -> Any:  # fmt: skip
    from riptide.frame.index import default_index
    from riptide.frame.series import Series

    column = concat_promoted([s._column for s in objs])
    if ignore_index:
        index = default_index(column.size, column.xp)
    else:
        index = _row_labels([s._index for s in objs], keys, names, verify_integrity)
    return Series._from_column(column, index, _consensus_name(objs))


def _series_side_by_side(objs: list[Any], intersect: bool, sort: bool, ignore_index: bool,
                         keys: list[Any] | None, verify_integrity: bool) -> Any:  # fmt: skip
    from riptide.frame.dataframe import DataFrame

    if ignore_index:
        labels: list[Any] = list(range(len(objs)))
    elif keys is not None:
        labels = list(keys)
    else:
        labels, unnamed = [], 0
        for s in objs:
            if s.name is None:
                labels.append(unnamed)
                unnamed += 1
            else:
                labels.append(s.name)
    _check_unique_labels(labels, verify_integrity)
    index, positions = _aligned_rows([s._index for s in objs], intersect, sort)
    columns = {label: _reindexed(s._column, p) for label, s, p in zip(labels, objs, positions)}
    return DataFrame._from_columns(columns, index)


def _frames_along_rows(frames: list[Any], intersect: bool, sort: bool, ignore_index: bool,
                       keys: list[Any] | None, names: Any, verify_integrity: bool) -> Any:  # fmt: skip
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import default_index

    labels = _combined_labels([list(f._data) for f in frames], intersect, sort)
    columns = {}
    for label in labels:
        # A frame without this column contributes as many missing values as it has rows.
        columns[label] = concat_promoted([f._data[label] if label in f._data else len(f) for f in frames],
                                         xp=frames[0]._xp(), numpy_blocks=True)  # fmt: skip
    if ignore_index:
        index = default_index(sum(len(f) for f in frames), frames[0]._xp())
    else:
        index = _row_labels([f._index for f in frames], keys, names, verify_integrity)
    return DataFrame._from_columns(columns, index)


def _frames_side_by_side(frames: list[Any], intersect: bool, sort: bool, ignore_index: bool,
                         keys: list[Any] | None, verify_integrity: bool) -> Any:  # fmt: skip
    from riptide.frame.dataframe import DataFrame

    labels: list[Any] = []
    for i, frame in enumerate(frames):
        for label in frame._data:
            if ignore_index:
                labels.append(len(labels))
            elif keys is not None:
                key = keys[i] if isinstance(keys[i], tuple) else (keys[i],)
                labels.append(key + (label if isinstance(label, tuple) else (label,)))
            else:
                labels.append(label)
    _check_unique_labels(labels, verify_integrity)
    index, positions = _aligned_rows([f._index for f in frames], intersect, sort)
    moved = [_reindexed(column, p) for frame, p in zip(frames, positions) for column in frame._data.values()]
    return DataFrame._from_columns(dict(zip(labels, moved)), index)


# --------------------------------------------------------------------------- dtypes


def common_dtype(dtype_list: list[Any]) -> Any:
    """The dtype pandas gives a concatenation of these dtypes; TypeError where pandas would make ``object``.

    >>> common_dtype([np.dtype("int8"), np.dtype("uint8")])
    dtype('int16')
    >>> common_dtype([pd.Int64Dtype(), np.dtype("float64")])
    Float64Dtype()
    """
    first = dtype_list[0]
    if all(d == first for d in dtype_list[1:]):
        return first
    if any(dtypes.is_categorical(d) for d in dtype_list):
        # Categoricals of other categories (or with non-categoricals) concatenate as their values.
        return common_dtype([d.categories.dtype if dtypes.is_categorical(d) else d for d in dtype_list])
    if all(dtypes.is_string(d) for d in dtype_list):
        return dtypes.STRING
    if all(dtypes.is_datetimelike(d) for d in dtype_list) and len({d.kind for d in dtype_list}) == 1:
        return np.result_type(*dtype_list)  # the finest unit
    if all(dtypes.is_numeric_or_bool(d) for d in dtype_list):
        is_bool = [dtypes.to_numpy_dtype(d).kind == "b" for d in dtype_list]
        if all(is_bool):
            return pd.BooleanDtype() if any(dtypes.is_masked(d) for d in dtype_list) else np.dtype(bool)
        if not any(is_bool):
            return dtypes.result_type(*dtype_list)
    shown = ", ".join(sorted({str(d) for d in dtype_list}))
    raise TypeError(f"cannot concatenate values of dtypes {shown}: pandas would make an object column, which "
                    "riptide does not have; cast them to one dtype first (e.g. .astype(str) or .astype(float))")


def _numpy_uniform(dtype_list: list[Any]) -> bool:
    """pandas' "uniform" frame pieces: NumPy numbers, each of the first one's dtype or an int, uint or bool."""
    first = dtype_list[0]
    return all(isinstance(d, np.dtype) and d.kind in "biuf" for d in dtype_list) and all(
        d == first or d.kind in "iub" for d in dtype_list)  # fmt: skip


def _can_hold_missing(dtype: Any) -> Any:
    """The dtype a column takes when missing values join it (int -> float64; bool -> boolean, see the docs)."""
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        return np.dtype(np.float64)
    if isinstance(dtype, np.dtype) and dtype.kind == "b":
        return pd.BooleanDtype()  # pandas: object; riptide's documented choice for bools with missing values
    return dtype


def _cast(column: Column, dtype: Any) -> Column:
    if dtypes.is_categorical(dtype) and isinstance(column, CategoricalColumn):
        return _recoded(column, dtype)
    return column if column.dtype == dtype else astype(column, dtype)


def _recoded(column: CategoricalColumn, dtype: pd.CategoricalDtype) -> CategoricalColumn:
    """The same values coded against ``dtype``'s categories (equal as a set, maybe in another order)."""
    own = column.dtype.categories
    if own.equals(dtype.categories):
        return column
    from riptide.frame.index import Index

    xp = column.xp
    target = as_column(dtype.categories, xp=xp)
    mapping = Index._from_column(target).get_indexer(column.categories)
    codes = column.codes.astype(np.int64)
    new_codes = xp.where(codes < 0, -1, mapping[xp.maximum(codes, 0)]).astype(codes_dtype_for(target.size))
    return CategoricalColumn(new_codes, target, dtype.ordered)


def _missing_column(size: int, dtype: Any, template: Column | None, xp: Any) -> Column:
    """``size`` missing values of ``dtype`` (a categorical one keeps ``template``'s categories)."""
    if dtypes.is_categorical(dtype) and isinstance(template, CategoricalColumn):
        codes = xp.full(size, -1, dtype=template.codes.dtype)
        return CategoricalColumn(codes, template.categories, template.ordered)
    return full(size, None, dtype, xp=xp)


def concat_promoted(pieces: list[Column | int], xp: Any = None, numpy_blocks: bool = False) -> Column:
    """The pieces one after another, cast to their common dtype; an int piece is that many missing values.

    ``numpy_blocks``: the pieces are the columns of DataFrames. pandas concatenates a frame column whose pieces
    are all NumPy ints, uints and bools (after a first piece of any NumPy number) with NumPy's own promotion,
    so bool with int8 is int8 there (a Series concatenation makes it object).

    >>> from riptide.core.column import NumericColumn
    >>> concat_promoted([NumericColumn(np.array([1, 2])), 1]).data.tolist()
    [1.0, 2.0, nan]
    """
    present = [p for p in pieces if isinstance(p, Column)]
    xp = present[0].xp if present else (xp or _device.xp())
    dtype_list = [p.dtype for p in present]
    if numpy_blocks and len(present) == len(pieces) and _numpy_uniform(dtype_list):
        dtype = np.result_type(*dtype_list)
    else:
        dtype = common_dtype(dtype_list)
    if len(present) < len(pieces):
        dtype = _can_hold_missing(dtype)
    template = next((p for p in present if isinstance(p, CategoricalColumn) and p.dtype == dtype), None)
    if template is not None and dtypes.is_categorical(dtype):
        dtype = template.dtype  # the first categorical's category order is the result's
    parts = [_cast(p, dtype) if isinstance(p, Column) else _missing_column(p, dtype, template, xp) for p in pieces]
    return concat_columns(parts)


# --------------------------------------------------------------------------- labels


def _consensus_name(objs: list[Any]) -> Any:
    """The name all objects share, else None (as pandas names a concatenated Series)."""
    name = objs[0].name
    for obj in objs[1:]:
        try:
            if not (obj.name is name or bool(obj.name == name)):
                return None
        except (TypeError, ValueError):
            return None
    return name


def _shared_name(names: list[Any]) -> Any:
    """pandas' rule for an appended Index: the name if every index has the same one, else None."""
    try:
        return names[0] if len(set(names)) == 1 else None
    except TypeError:  # unhashable names
        return None


def _label_columns(columns: list[Column]) -> Column:
    """Label columns concatenated with pandas' Index rules: where the dtypes only meet through an ``object``
    Index, pandas infers the dtype again from the values, so empty pieces do not count."""
    try:
        return concat_promoted(columns)
    except TypeError:
        non_empty = [c for c in columns if c.size]
        if not non_empty or len(non_empty) == len(columns):
            raise
        return concat_promoted(non_empty)


def _concat_indexes(indexes: list[Any]) -> Any:
    """The labels of ``indexes`` one after another (pandas' ``Index.append``)."""
    from riptide.frame.index import Index, RangeIndex
    from riptide.frame.multi_index import MultiIndex

    if all(isinstance(ix, RangeIndex) for ix in indexes):
        return _concat_ranges(indexes)
    if any(isinstance(ix, MultiIndex) for ix in indexes):
        if not all(isinstance(ix, MultiIndex) and ix.nlevels == indexes[0].nlevels for ix in indexes):
            raise TypeError("cannot concatenate a MultiIndex with an index of another depth: pandas would make an "
                            "object Index of tuples, which riptide does not have")  # fmt: skip
        nlevels = indexes[0].nlevels
        levels = [_label_columns([ix._key_columns()[i] for ix in indexes]) for i in range(nlevels)]
        names = [_consensus_level_name([ix.names[i] for ix in indexes]) for i in range(nlevels)]
        return MultiIndex._from_columns(levels, names)
    column = _label_columns([ix._as_column() for ix in indexes])
    first = indexes[0]
    if isinstance(first, RangeIndex) and isinstance(column.dtype, np.dtype) and column.dtype.kind == "i":
        # pandas turns evenly spaced integer labels appended to a RangeIndex back into a RangeIndex,
        # named as the first one.
        return _as_range_if_even(column, first) or Index._from_column(column, first.name)
    return Index._from_column(column, _shared_name([ix.name for ix in indexes]))


def _consensus_level_name(names: list[Any]) -> Any:
    first = names[0]
    return first if all(n == first for n in names[1:]) else None


def _concat_ranges(indexes: list[Any]) -> Any:
    """RangeIndexes appended: a RangeIndex when they continue one another, else an int64 Index."""
    from riptide.frame.index import Index, RangeIndex

    name = _shared_name([ix.name for ix in indexes])
    xp = indexes[0]._namespace
    ranges = [ix._range for ix in indexes if len(ix)]
    if not ranges:
        return RangeIndex._from_range(range(0), name, xp)
    if len(ranges) == 1:
        return RangeIndex._from_range(ranges[0], name, xp)
    step = ranges[0].step if len(ranges[0]) > 1 else ranges[1].start - ranges[0].start
    following = ranges[0][-1] + step
    continues = step != 0
    for rng in ranges[1:]:
        if not continues:
            break
        continues = rng.start == following and (len(rng) == 1 or rng.step == step)
        following = rng[-1] + step
    if continues:
        return RangeIndex._from_range(range(ranges[0].start, following, step), name, xp)
    return Index._from_column(concat_columns([ix._as_column() for ix in indexes]), name)


def _as_range_if_even(column: Column, first: Any) -> Any:
    """A RangeIndex with ``column``'s labels when they are evenly spaced (and not all equal), else None."""
    from riptide.frame.index import RangeIndex

    n = column.size
    xp = column.xp
    if n == 0:
        return RangeIndex._from_range(range(0), first.name, xp)
    values = column.data
    head = _device.to_host(values[:2])  # one small read: the first two labels give start and step
    start = int(head[0])
    if n == 1:
        return RangeIndex._from_range(range(start, start + first.step, first.step), first.name, xp)
    step = int(head[1]) - start
    if step == 0 or not bool((values[1:] - values[:-1] == step).all()):  # one scalar read
        return None
    return RangeIndex._from_range(range(start, start + step * n, step), first.name, xp)


def _row_labels(indexes: list[Any], keys: list[Any] | None, names: Any, verify_integrity: bool) -> Any:
    """The index of rows stacked along axis 0: the indexes appended, under a key level when ``keys`` is given."""
    index = _concat_indexes(indexes) if keys is None else _keyed_index(indexes, keys, names)
    if verify_integrity and not index.is_unique:
        raise ValueError(f"Indexes have overlapping values: {_duplicated_labels(index)}")
    return index


def _keyed_index(indexes: list[Any], keys: list[Any], names: Any) -> Any:
    """A MultiIndex: the key of each object repeated over its rows, then the levels of the appended indexes."""
    from riptide.frame.multi_index import MultiIndex

    first = indexes[0]
    if len(indexes) > 1 and all(ix.equals(first) for ix in indexes[1:]):
        # pandas repeats the first index when all are equal (its dtype and names, whatever the others')
        xp = first._namespace
        rows = xp.arange(len(first) * len(indexes), dtype=np.int64) % max(len(first), 1)
        inner = first.take(rows)
    else:
        inner = _concat_indexes(indexes)
    xp = inner._namespace
    inner_columns = inner._key_columns()
    lengths = np.array([len(ix) for ix in indexes], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    object_of_row = row_of_each_element(_device.to_device(offsets, xp), xp)
    key_tuples = [k if isinstance(k, tuple) else (k,) for k in keys]
    n_key_levels = len(key_tuples[0]) if isinstance(keys[0], tuple) else 1
    key_columns = []
    for level in range(n_key_levels):
        values = pd.Index([t[level] if level < len(t) else np.nan for t in key_tuples])
        key_columns.append(as_column(values, xp=xp).take(object_of_row))
    level_names = [None] * n_key_levels if names is None else list(names)
    inner_names = list(inner.names) if isinstance(inner, MultiIndex) else [inner.name]
    if len(level_names) != n_key_levels + len(inner_columns):
        level_names = level_names + inner_names
    return MultiIndex._from_columns(key_columns + inner_columns, level_names[: n_key_levels + len(inner_columns)])


def _duplicated_labels(index: Any) -> list[Any]:
    """The labels that occur more than once (for the error message: a few values, on the host)."""
    from riptide.core.ops.grouping import group_rows

    groups = group_rows(index._key_columns(), sort=False, dropna=False)
    repeated = groups.first_rows[groups.sizes() > 1]
    return index.take(repeated).tolist()


def _combined_labels(label_lists: list[list[Any]], intersect: bool, sort: bool) -> list[Any]:
    """Column labels of frames stacked along axis 0: union (in order of appearance) or intersection."""
    first = label_lists[0]
    if intersect:
        others = [set(labels) for labels in label_lists[1:]]
        combined = [label for label in first if all(label in o for o in others)]
    else:
        seen = set(first)
        combined = list(first)
        for labels in label_lists[1:]:
            for label in labels:
                if label not in seen:
                    seen.add(label)
                    combined.append(label)
    if sort:
        try:
            combined = sorted(combined)
        except TypeError:  # labels of kinds Python cannot order (pandas keeps them unsorted then too)
            pass
    return combined


def _check_unique_labels(labels: list[Any], verify_integrity: bool) -> None:
    seen: set[Any] = set()
    repeated = [label for label in labels if label in seen or seen.add(label)]
    if not repeated:
        return
    if verify_integrity:
        raise ValueError(f"Indexes have overlapping values: {repeated}")
    raise ValueError(f"riptide DataFrames need unique column labels; {repeated} would repeat. Rename the Series or "
                     "columns first, or pass keys= (labels become (key, label) tuples) or ignore_index=True.")


# --------------------------------------------------------------------------- row alignment (axis=1)


def _aligned_rows(indexes: list[Any], intersect: bool, sort: bool) -> tuple[Any, list[Any]]:
    """The combined row index and, per object, the position of each result row in it (-1: absent; None: all
    rows in their own order)."""
    from riptide.core.ops.grouping import group_rows
    from riptide.frame.index import Index, RangeIndex
    from riptide.frame.multi_index import MultiIndex

    first = indexes[0]
    if all(ix is first or (_same_label_dtypes(ix, first) and ix.equals(first)) for ix in indexes[1:]):
        if not sort or first.is_monotonic_increasing:
            return first, [None] * len(indexes)
        order = first.argsort() if isinstance(first, MultiIndex) else _argsort_labels(first)
        return first.take(order), [order] * len(indexes)
    if any(not ix.is_unique for ix in indexes):
        raise ValueError("cannot reindex on an axis with duplicate labels")
    nlevels = {len(ix._key_columns()) for ix in indexes}
    if len(nlevels) > 1:
        raise TypeError("cannot align a MultiIndex with an index of another depth")
    n_levels = nlevels.pop()
    # pandas' union with an empty RangeIndex is the other index, whatever its dtype: it takes no part.
    taking_part = [not (isinstance(ix, RangeIndex) and len(ix) == 0) for ix in indexes]
    if not any(taking_part):
        return first, [None] * len(indexes)
    part = [ix for ix, taken in zip(indexes, taking_part) if taken]
    levels = [concat_promoted([ix._key_columns()[i] for ix in part]) for i in range(n_levels)]
    xp = levels[0].xp
    groups = group_rows(levels, sort=sort, dropna=False)
    ids = groups.ids
    chosen = None
    if intersect:
        chosen = xp.flatnonzero(groups.sizes() == len(indexes))  # unique labels: in every index exactly once
    rows = groups.first_rows if chosen is None else groups.first_rows[chosen]
    positions, start = [], 0
    for ix, taken in zip(indexes, taking_part):
        n = len(ix)
        where = xp.full(groups.n_groups, -1, dtype=np.int64)
        if taken:
            where[ids[start : start + n]] = xp.arange(n, dtype=np.int64)
            start += n
        positions.append(where if chosen is None else where[chosen])
    if n_levels == 1 and not isinstance(first, MultiIndex):
        label_column = levels[0].take(rows)
        index = Index._from_column(label_column, _shared_name([ix.name for ix in indexes]))
        if all(isinstance(ix, RangeIndex) for ix in indexes) and label_column.dtype == np.int64:
            index = _as_range_if_even(label_column, RangeIndex._from_range(range(1), index.name)) or index
    else:
        names = [_consensus_level_name([ix.names[i] for ix in indexes]) for i in range(n_levels)]
        index = MultiIndex._from_columns([c.take(rows) for c in levels], names)
    return index, positions


def _same_label_dtypes(a: Any, b: Any) -> bool:
    """The label columns of both indexes have the same dtypes (equal empty indexes of other dtypes differ)."""
    columns_a, columns_b = a._key_columns(), b._key_columns()
    return len(columns_a) == len(columns_b) and all(x.dtype == y.dtype for x, y in zip(columns_a, columns_b))


def _argsort_labels(index: Any) -> Any:
    """Positions that sort a flat index (missing labels last), stable."""
    from riptide.core.kernels.factorize import factorize
    from riptide.core.kernels.sort import stable_argsort

    codes, n_distinct = factorize(index._as_column())
    xp = index._namespace
    return stable_argsort(xp.where(codes < 0, n_distinct, codes), xp)


def _reindexed(column: Column, positions: Any) -> Column:
    if positions is None:
        return column
    return column.take_or_missing(positions)
