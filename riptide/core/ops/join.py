"""Join indexers: which rows of the left table meet which rows of the right table.

:func:`join_indexers` is the one entry point behind ``merge`` and ``DataFrame.join``. It returns two
int64 arrays of equal length, the left and right row of each output row, with -1 where that side has
no row (left, right and outer joins). Everything a join does to the data is a gather with them.

It works in three steps, each replaceable on its own:

1. **Comparable keys** (:func:`comparable_keys`): each key pair is brought to one representation in
   which equality is pandas' key equality and the sort order is pandas' key order: numbers are cast
   to their common dtype (int32 vs int64, int vs float, Int64 vs int64), datetimes to their finer unit
   and then to their int64 ticks (so NaT is an ordinary value that sorts first, as in pandas),
   categoricals to codes in the left categories (code -1 sorts first, as in pandas). Keys pandas
   refuses (numbers against strings, datetimes against anything else) raise pandas' ValueError.
2. **Matching** (:func:`match_keys`): for each row of the probe side, the equal rows of the build
   side, as a :class:`KeyMatch` (counts, starts into a grouped order of the build rows, and which
   build rows matched at all). The portable version groups the concatenated keys with
   :func:`~riptide.core.ops.grouping.group_rows` (``dropna=False``: pandas matches null keys with
   each other), sorts the build side's group ids stably and binary-searches the probe side's ids.
   A GPU hash-table version only has to honour the same contract.
3. **Assembly**: counts become offsets, :func:`~riptide.core.kernels.segments.row_of_each_element`
   expands each probe row into its matches, unmatched rows are added for left/outer joins, and an
   outer join (or ``sort=True``) is put in key order by one stable sort of the output rows on the key
   ranks. The output size is known (one scalar read) before anything of that size is allocated, so
   a join that cannot fit in device memory raises :class:`MemoryError` with the estimate instead of
   dying in the allocator.

Row order is pandas 3's: inner and left joins follow the left rows, each left row's matches in right
order; right joins follow the right rows; outer joins (and ``sort=True``) sort by key, stably, so
equal keys keep that order; cross joins are left-major.

>>> import numpy as np
>>> from riptide.core.column import as_column
>>> left, right = as_column(np.array([1, 2, 1])), as_column(np.array([1, 1, 3]))
>>> lpos, rpos = join_indexers([left], [right], "inner", sort=False)
>>> lpos.tolist(), rpos.tolist()
([0, 0, 2, 2], [0, 1, 0, 1])
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, concat_columns
from riptide.core.kernels import hashing
from riptide.core.kernels.factorize import factorize
from riptide.core.kernels.segments import row_of_each_element
from riptide.core.kernels.sort import stable_argsort
from riptide.core.ops.cast import astype, concat_common, decode_categorical
from riptide.core.ops.grouping import group_rows
from riptide.errors import user_stacklevel
from riptide.core.ops.hash_match import match_keys_hashed
from riptide.core.ops.key_match import KeyMatch

__all__ = [
    "JOIN_TYPES",
    "KeyMatch",
    "align_categories",
    "comparable_keys",
    "free_device_bytes",
    "join_indexers",
    "match_keys",
]

#: The ``how`` values :func:`join_indexers` understands (pandas' merge types, asof aside).
JOIN_TYPES = ("inner", "left", "right", "outer", "cross", "left_anti", "right_anti")

_INDEXER_BYTES = 16  # two int64 positions per output row


# --- step 1: comparable keys ----------------------------------------------------------------------------------


def comparable_keys(left_keys: list[Column], right_keys: list[Column], names: list[Any] | None = None,
                    strict: bool = True, missing_last: bool = False) -> tuple[list[Column], list[Column]]:  # fmt: skip
    """Key columns in a form where ``==`` is pandas' key equality and the sort order is pandas' key order.

    Pairs of different dtypes are cast to a common one as pandas does. ``names`` name the keys in
    errors. With ``strict`` (merge on columns) a number-vs-string pair raises pandas' ValueError;
    without it (index-on-index joins, where pandas compares objects) it raises TypeError instead.
    In merges pandas compares datetimes by their ticks and categoricals by their codes, so NaT and a
    missing category sort first; ``missing_last`` keeps them missing values that sort last instead
    (pandas' order when it joins two unique indexes, or an index with an empty one).

    >>> from riptide.core.column import as_column
    >>> left, right = comparable_keys([as_column(np.array([1, 2], dtype=np.int32))], [as_column(np.array([2.0]))])
    >>> left[0].dtype, right[0].dtype
    (dtype('float64'), dtype('float64'))
    """
    out_left, out_right = [], []
    for i, (left, right) in enumerate(zip(left_keys, right_keys)):
        name = names[i] if names is not None else None
        a, b = _comparable_pair(left, right, name, strict, missing_last)
        out_left.append(a)
        out_right.append(b)
    return out_left, out_right


def _comparable_pair(left: Column, right: Column, name: Any, strict: bool, missing_last: bool = False
                     ) -> tuple[Column, Column]:  # fmt: skip
    if (left.size == 0) != (right.size == 0):
        # pandas checks nothing when one side is empty: no key is ever compared, each side is only ordered.
        return _sortable(left, right, missing_last), _sortable(right, left, missing_last)
    ld, rd = left.dtype, right.dtype
    left_cat, right_cat = isinstance(left, CategoricalColumn), isinstance(right, CategoricalColumn)
    if left_cat and right_cat and ld == rd:
        # Same categories (maybe permuted): compare codes, the right ones re-expressed in the left categories.
        aligned = align_categories(right, left.categories)
        if missing_last:
            return left, aligned
        return _codes_column(left.codes), _codes_column(aligned.codes)
    left_time, right_time = dtypes.is_datetimelike(ld), dtypes.is_datetimelike(rd)
    if left_time != right_time or (left_time and ld.kind != rd.kind):
        raise ValueError(_incompatible_message(ld, rd, name))
    if left_time and (getattr(ld, "tz", None) is None) != (getattr(rd, "tz", None) is None):
        if not strict:  # index-on-index join
            raise TypeError("Cannot join tz-naive with tz-aware DatetimeIndex")
        raise ValueError(_incompatible_message(ld, rd, name))  # naive with tz-aware: pandas refuses
    if left_time:
        common = ld if ld == rd else common_time_dtype(ld, rd)  # the finer unit; tz-aware: in the left's zone
        left = astype(left, common) if ld != common else left
        right = astype(right, common) if rd != common else right
        return (left, right) if missing_last else (_ticks(left), _ticks(right))
    if left_cat and right_cat and left.size and right.size:
        # Other categories: pandas compares the values. Compare codes into the union of both sides' categories
        # instead of decoding every row: only the categories (few) are compared as values.
        return _union_codes(left, right, name, missing_last)
    if left_cat or right_cat:
        # pandas compares a categorical with anything else through its categories' values.
        a = decode_categorical(left) if left_cat else left
        b = decode_categorical(right) if right_cat else right
        return _comparable_pair(a, b, name, False, missing_last)
    if dtypes.is_numeric_or_bool(ld) and dtypes.is_numeric_or_bool(rd):
        left_bool, right_bool = _is_bool(ld), _is_bool(rd)
        if left_bool != right_bool:
            raise TypeError(_object_message(ld, rd, name))
        if ld == rd:
            return left, right
        _warn_if_fractional(left, right)
        common = dtypes.result_type(ld, rd)
        return (left if ld == common else astype(left, common)), (right if rd == common else astype(right, common))
    left_str, right_str = dtypes.is_string(ld), dtypes.is_string(rd)
    if left_str and right_str:
        return left, right
    if strict and (left_str or right_str) and not (_is_bool(ld) or _is_bool(rd)):
        raise ValueError(_incompatible_message(ld, rd, name))
    raise TypeError(_object_message(ld, rd, name))


def _union_codes(left: CategoricalColumn, right: CategoricalColumn, name: Any, missing_last: bool = False
                 ) -> tuple[Column, Column]:  # fmt: skip
    """Both sides' codes re-expressed in the sorted union of their categories (missing: one code past the last, so
    that missing keys match each other and sort last, as pandas' object factorization of the values puts them)."""
    xp = left.xp
    if left.categories.size == 0 or right.categories.size == 0:
        # Every row of one side is missing: pandas checks no dtypes then, and compares the decoded values.
        return _comparable_pair(decode_categorical(left), decode_categorical(right), name, False, missing_last)
    lcat, rcat = _comparable_pair(left.categories, right.categories, name, False)  # the values' rules and errors
    codes, n_distinct = factorize(concat_columns([lcat, rcat]))
    n_left = lcat.size

    def recoded(column: CategoricalColumn, mapping: Any) -> NumericColumn:
        own = column.codes.astype(np.int64)
        return NumericColumn(xp.where(own < 0, n_distinct, mapping[xp.maximum(own, 0)]))

    return recoded(left, codes[:n_left]), recoded(right, codes[n_left:])


def common_time_dtype(ld: Any, rd: Any) -> Any:
    """The dtype two datetime (or timedelta) keys are compared in: the finer unit; tz-aware keys of two zones (the
    same instants whatever the zone) in the left key's dtype, as pandas casts the right key to it."""
    if getattr(ld, "tz", None) is None:
        return np.result_type(ld, rd)
    if str(ld.tz) != str(rd.tz):
        return ld
    unit = np.datetime_data(np.result_type(dtypes.to_numpy_dtype(ld), dtypes.to_numpy_dtype(rd)))[0]
    return pd.DatetimeTZDtype(unit, ld.tz)


def _incompatible_message(ld: Any, rd: Any, name: Any) -> str:
    return (f"You are trying to merge on {ld} and {rd} columns for key '{name}'. If you wish to proceed you should "
            "use pd.concat")  # fmt: skip


def _object_message(ld: Any, rd: Any, name: Any) -> str:
    return (f"cannot merge on {ld} and {rd} keys (key '{name}'): pandas compares such keys as Python objects and "
            "returns an object column, which riptide does not have; cast the keys to one dtype first "
            "(e.g. with .astype)")  # fmt: skip


def _is_bool(dtype: Any) -> bool:
    return dtypes.is_numeric_or_bool(dtype) and dtypes.to_numpy_dtype(dtype).kind == "b"


def _codes_column(codes: Any) -> NumericColumn:
    return NumericColumn(codes.astype(np.int64))


def _ticks(column: NumericColumn) -> NumericColumn:
    """A datetime/timedelta column as its int64 ticks: NaT (INT64_MIN) becomes an ordinary, smallest value."""
    return NumericColumn(column.data)


def _sortable(column: Column, other: Column, missing_last: bool) -> Column:
    """A key compared with nothing (the ``other`` side is empty), in pandas' sort representation for the pair:
    ticks for two datetimes (NaT first), codes for two equal categoricals (missing first), else the values
    (missing last)."""
    if isinstance(column, CategoricalColumn):
        codes = column.codes
        if isinstance(other, CategoricalColumn) and other.dtype == column.dtype and not missing_last:
            return _codes_column(codes)
        # pandas keeps a key already ordered by its codes as it is (its monotonic shortcut, where a missing
        # code -1 counts as the smallest); else it orders the values, missing last.
        if codes.shape[0] < 2 or bool((codes[1:] >= codes[:-1]).all()):  # one scalar read
            return _codes_column(codes)
        return column if missing_last else decode_categorical(column)
    if missing_last:
        return column
    dtype, other_dtype = column.dtype, other.dtype
    both_datetimes = dtypes.is_datetimelike(dtype) and dtypes.is_datetimelike(other_dtype)
    if both_datetimes and ((dtype.kind == "M" and other_dtype.kind == "M") or dtype == other_dtype):
        return _ticks(column)
    return column


def _warn_if_fractional(left: Column, right: Column) -> None:
    """pandas' UserWarning when int keys meet float keys that are not whole numbers."""
    kinds = [dtypes.to_numpy_dtype(c.dtype).kind for c in (left, right)]
    if sorted(kinds) not in (["f", "i"], ["f", "u"]):
        return
    floats = left if kinds[0] == "f" else right
    assert isinstance(floats, NumericColumn)
    xp = floats.xp
    values = floats.data
    valid = ~xp.isnan(values) if floats.mask is None else (floats.mask & ~xp.isnan(values))
    fractional = valid & (~xp.isfinite(values) | (values != xp.trunc(values)))
    if bool(fractional.any()):  # one scalar read: whether to warn
        warnings.warn("You are merging on int and float columns where the float values are not equal to their int "
                      "representation.", UserWarning, stacklevel=user_stacklevel())  # fmt: skip


def align_categories(column: CategoricalColumn, categories: Column) -> CategoricalColumn:
    """``column`` re-expressed with ``categories`` (which hold all of its categories) as its categories.

    >>> import pandas as pd
    >>> from riptide.core.column import as_column
    >>> col = as_column(pd.Categorical(["b", None, "a"], categories=["a", "b"]))
    >>> align_categories(col, as_column(["b", "a"])).codes.tolist()
    [0, -1, 1]
    """
    xp = column.xp
    codes = column.codes.astype(np.int64)
    own = column.categories
    if own.size == 0:
        return CategoricalColumn(codes.astype(column.codes.dtype), categories, column.ordered)
    both, n_distinct = factorize(concat_common(categories, own))
    target, source = both[: categories.size], both[categories.size :]
    position = xp.full(n_distinct, -1, dtype=np.int64)
    position[target] = xp.arange(categories.size, dtype=np.int64)
    mapping = position[source]  # target position of each own category (-1: absent from ``categories``)
    new_codes = xp.where(codes < 0, -1, mapping[xp.maximum(codes, 0)])
    return CategoricalColumn(new_codes.astype(column.codes.dtype), categories, column.ordered)


# --- step 2: matching -----------------------------------------------------------------------------------------


_HASH_MIN_ROWS = 1 << 14  # below this, sorting both sides together costs no more than the hash table


def match_keys(probe: list[Column], build: list[Column]) -> KeyMatch:
    """Match the rows of ``probe`` against the rows of ``build`` (comparable keys, see :func:`comparable_keys`).

    Missing keys match each other, as in pandas.

    >>> from riptide.core.column import as_column
    >>> m = match_keys([as_column(np.array([7, 5, 9]))], [as_column(np.array([5, 7, 5]))])
    >>> m.counts.tolist(), m.build_order[m.starts[1] : m.starts[1] + m.counts[1]].tolist()
    ([1, 2, 0], [0, 2])
    """
    xp = probe[0].xp
    n_probe, n_build = probe[0].size, build[0].size
    if n_probe == 0 or n_build == 0:
        return KeyMatch(counts=xp.zeros(n_probe, dtype=np.int64), starts=xp.zeros(n_probe, dtype=np.int64),
                        build_order=xp.arange(n_build, dtype=np.int64),
                        build_matched=xp.zeros(n_build, dtype=bool))  # fmt: skip
    if xp is not np and n_probe + n_build >= _HASH_MIN_ROWS and max(n_probe, n_build) <= hashing.MAX_ROWS:
        hashed = match_keys_hashed(probe, build)  # GPU: a hash table on the build side, one probe pass
        if hashed is not None:
            return hashed
    groups = group_rows([concat_columns([p, b]) for p, b in zip(probe, build)], sort=True, dropna=False)
    probe_ids, build_ids = groups.ids[:n_probe], groups.ids[n_probe:]  # dense, never -1 (dropna=False)
    # The build rows sorted by group, stably; a group's rows start where the smaller groups' counts end.
    build_order = stable_argsort(build_ids, xp)
    per_group = xp.bincount(build_ids, minlength=groups.n_groups).astype(np.int64, copy=False)
    group_start = xp.zeros(groups.n_groups, dtype=np.int64)
    xp.cumsum(per_group[:-1], out=group_start[1:])
    in_probe = xp.bincount(probe_ids, minlength=groups.n_groups) > 0
    counts, starts = per_group[probe_ids], group_start[probe_ids]
    owner = None
    if not bool((per_group > 1).any()):  # one scalar read: a build side without equal rows (as the hash path tells)
        owner = xp.where(counts > 0, build_order[xp.minimum(starts, n_build - 1)], -1)
    return KeyMatch(counts=counts, starts=starts, build_order=build_order, build_matched=in_probe[build_ids],
                    probe_rank=probe_ids, build_rank=build_ids, owner=owner)  # fmt: skip


def _ranks(probe: list[Column], build: list[Column], match: KeyMatch) -> tuple[Any, Any]:
    """Sort ranks of both sides' keys on one scale (nulls last, NaT and categorical NaN first, as pandas)."""
    if match.probe_rank is not None and match.build_rank is not None:
        return match.probe_rank, match.build_rank
    n_probe, n_build = probe[0].size, build[0].size
    if n_probe and n_build:
        ids = group_rows([concat_columns([p, b]) for p, b in zip(probe, build)], sort=True, dropna=False).ids
        return ids[:n_probe], ids[n_probe:]
    xp = probe[0].xp
    probe_rank = group_rows(probe, sort=True, dropna=False).ids if n_probe else xp.zeros(0, dtype=np.int64)
    build_rank = group_rows(build, sort=True, dropna=False).ids if n_build else xp.zeros(0, dtype=np.int64)
    return probe_rank, build_rank


# --- step 3: assembly -----------------------------------------------------------------------------------------


def join_indexers(left_keys: list[Column], right_keys: list[Column], how: str = "inner", sort: bool = False, *,
                  names: list[Any] | None = None, strict: bool = True, missing_last: bool = False,
                  row_bytes: int = 0) -> tuple[Any, Any]:  # fmt: skip
    """Left and right row positions of each output row of a join of the key columns (-1: no row on that side).

    Parameters
    ----------
    left_keys, right_keys : lists of Columns
        One column per key, left and right paired; dtypes may differ as pandas allows (see
        :func:`comparable_keys`). For ``how="cross"`` only their lengths matter (pass one column each).
    how : {"inner", "left", "right", "outer", "cross", "left_anti", "right_anti"}
    sort : bool
        Sort the output by key (outer joins always are).
    names : list, optional
        Key names for error messages.
    strict, missing_last : bool
        How keys are compared and ordered (see :func:`comparable_keys`).
    row_bytes : int
        Bytes the caller will allocate per output row (its gathered columns): added to the indexers'
        own 16 bytes in the device-memory check.

    Returns
    -------
    (left_positions, right_positions) : int64 arrays of one length

    Raises
    ------
    MemoryError
        When the estimated output does not fit in free device memory (GPU only).

    >>> from riptide.core.column import as_column
    >>> left, right = as_column(np.array([3, 1])), as_column(np.array([1, 2]))
    >>> [a.tolist() for a in join_indexers([left], [right], "outer")]
    [[1, -1, 0], [0, 1, -1]]
    """
    if how not in JOIN_TYPES:
        raise ValueError(f"'{how}' is not a valid Merge type: left, right, inner, outer, left_anti, right_anti, cross, "
                         "asof")  # fmt: skip
    if how == "cross":
        return _cross(left_keys[0].size, right_keys[0].size, left_keys[0].xp, row_bytes)
    if not left_keys or len(left_keys) != len(right_keys):
        raise ValueError("len(right_on) must equal len(left_on)")
    left_keys, right_keys = comparable_keys(left_keys, right_keys, names, strict, missing_last)
    if how in ("right", "right_anti"):
        right_pos, left_pos = _probe_join(right_keys, left_keys, how.replace("right", "left"), sort, row_bytes)
        return left_pos, right_pos
    return _probe_join(left_keys, right_keys, how, sort, row_bytes)


def _probe_join(probe: list[Column], build: list[Column], how: str, sort: bool, row_bytes: int) -> tuple[Any, Any]:
    """A join driven by the probe side: ``how`` in inner / left / outer / left_anti (probe = left)."""
    xp = probe[0].xp
    n_build = build[0].size
    match = match_keys(probe, build)
    if match.owner is not None and how in ("inner", "left", "left_anti") and not sort:
        return _lookup_join(match.owner, how, row_bytes, xp)
    counts = match.counts
    if how == "inner":
        per_row = counts
    elif how == "left_anti":
        per_row = (counts == 0).astype(np.int64)
    else:
        per_row = xp.maximum(counts, 1)
    offsets = xp.zeros(per_row.shape[0] + 1, dtype=np.int64)
    xp.cumsum(per_row, out=offsets[1:])
    n_out = int(offsets[-1])  # one scalar read: the output size
    unmatched_build = xp.flatnonzero(~match.build_matched) if how == "outer" else None
    n_extra = 0 if unmatched_build is None else int(unmatched_build.shape[0])
    _check_fits(n_out + n_extra, row_bytes, xp)

    # In left/outer joins every probe row gives at least one output row, so n_out == n_probe means exactly one each.
    probe_pos = _expand(offsets, n_out, xp, identity=how != "inner" and n_out == counts.shape[0])
    if how == "left_anti" or n_build == 0:
        build_pos = xp.full(n_out, -1, dtype=np.int64)
    else:
        within = xp.arange(n_out, dtype=np.int64) - offsets[:-1][probe_pos]
        slot = xp.minimum(match.starts[probe_pos] + within, n_build - 1)
        build_pos = match.build_order[slot]
        if how != "inner":
            build_pos = xp.where(counts[probe_pos] == 0, -1, build_pos)
    if unmatched_build is not None and n_extra:
        probe_pos = xp.concatenate([probe_pos, xp.full(n_extra, -1, dtype=np.int64)])
        build_pos = xp.concatenate([build_pos, unmatched_build.astype(np.int64, copy=False)])
    if (sort or how == "outer") and probe_pos.shape[0] > 1:
        probe_rank, build_rank = _ranks(probe, build, match)
        if how == "outer":
            # A row has a probe row, a build row or both; equal keys share a rank, so either side's serves.
            from_probe = probe_rank[xp.maximum(probe_pos, 0)] if probe[0].size else 0
            from_build = build_rank[xp.maximum(build_pos, 0)] if n_build else 0
            key = xp.where(probe_pos >= 0, from_probe, from_build)
        else:
            key = probe_rank[probe_pos]
        order = stable_argsort(key, xp)
        probe_pos, build_pos = probe_pos[order], build_pos[order]
    return probe_pos, build_pos


def _lookup_join(owner: Any, how: str, row_bytes: int, xp: types.ModuleType) -> tuple[Any, Any]:
    """Inner / left / left-anti join when each probe row has at most one build row (``owner``, -1: none): the
    output rows are the probe rows, in order, kept or not; no counts, offsets or expansion."""
    n_probe = owner.shape[0]
    if how == "left":
        _check_fits(n_probe, row_bytes, xp)
        return xp.arange(n_probe, dtype=np.int64), owner
    keep = owner >= 0 if how == "inner" else owner < 0
    n_out = int(xp.count_nonzero(keep))  # one scalar read: the output size
    _check_fits(n_out, row_bytes, xp)
    if n_out == n_probe:
        probe_pos = xp.arange(n_probe, dtype=np.int64)
        return probe_pos, (owner if how == "inner" else xp.full(n_probe, -1, dtype=np.int64))
    probe_pos = xp.flatnonzero(keep)
    return probe_pos, (owner[probe_pos] if how == "inner" else xp.full(n_out, -1, dtype=np.int64))


def _expand(offsets: Any, n_out: int, xp: types.ModuleType, identity: bool) -> Any:
    """Row of each output slot for per-row output counts given by ``offsets`` (``identity``: all counts are 1)."""
    if identity:
        return xp.arange(n_out, dtype=np.int64)
    return row_of_each_element(offsets, xp).astype(np.int64, copy=False)


def _cross(n_left: int, n_right: int, xp: types.ModuleType, row_bytes: int) -> tuple[Any, Any]:
    n_out = n_left * n_right
    _check_fits(n_out, row_bytes, xp)
    slots = xp.arange(n_out, dtype=np.int64)
    if n_right == 0:
        return slots, slots
    return slots // n_right, slots % n_right


# --- the device-memory guard ----------------------------------------------------------------------------------


def free_device_bytes(xp: types.ModuleType) -> int | None:
    """Bytes a new allocation can still get on the current GPU (driver-free plus the pool's cached
    blocks, within the pool's limit); None on the CPU, where riptide does not guard joins."""
    if xp is np:
        return None
    import cupy

    free, _total = cupy.cuda.runtime.memGetInfo()
    pool = cupy.get_default_memory_pool()
    available = free + pool.free_bytes()
    limit = pool.get_limit()
    if limit:
        available = min(available, limit - pool.used_bytes())
    return int(available)


def _check_fits(n_rows: int, row_bytes: int, xp: types.ModuleType) -> None:
    free = free_device_bytes(xp)
    if free is None:
        return
    needed = n_rows * (_INDEXER_BYTES + max(int(row_bytes), 0))
    if needed > free:
        raise MemoryError(f"this join would produce {n_rows:,} rows, about {_human(needed)} (estimated: "
                          f"{_INDEXER_BYTES + row_bytes} bytes per row), but only {_human(free)} of device memory "
                          "is free; filter or deduplicate the keys first, or join in pieces")  # fmt: skip


def _human(n_bytes: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n_bytes < 1024 or unit == "PiB":
            return f"{n_bytes:.1f} {unit}" if unit != "B" else f"{int(n_bytes)} B"
        n_bytes /= 1024
    return f"{n_bytes:.1f} PiB"  # pragma: no cover
