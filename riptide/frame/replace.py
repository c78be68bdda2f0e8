"""``Series.replace`` and ``DataFrame.replace``: substitute given values with other values.

Every call form (a scalar, a list, a list against a list, a dict, a DataFrame's per-column dicts) is first
normalized on the host into a short list of ``(old, new)`` pairs per column. The column is then rewritten
one pair at a time, with pandas' semantics:

* **Matches are found in the original values.** ``[1, 2] -> [2, 3]`` turns 1 into 2 and 2 into 3 (never 1 into
  3); when one old value appears twice the later pair wins. Each pair's matches are a device boolean array
  (an equality test, or ``isna`` for a missing ``old``), so the work is one elementwise pass per pair.
  From 8 pairs on (a big dict) a number or string column finds every row's pair in one lookup instead (a
  sorted search of the keys, or the join's key matcher for strings) and gathers the new values: the cost no
  longer grows with the number of pairs, and only one small read (which pairs matched) reaches the host.
* **Which values match** follows pandas: numbers match numbers (``1.0`` finds ``1``) but never booleans or
  strings; strings match strings exactly; datetimes match datetime scalars (a string is parsed as one); a
  missing ``old`` (None, NaN, ``pd.NA``, NaT) finds the missing rows, except in a plain float column, which only
  NaN itself finds (as in pandas).
* **The result dtype** grows as pandas' does, and only when a pair matches something: an int column given a
  non-whole float becomes float64, given NaN becomes float64, given an int it cannot hold becomes the smallest
  integer dtype that holds both (int8 with 1000 -> int16). Where pandas would fall back to an ``object`` column
  (a string into a number column, a number into a string column, None or a bool into an int column, anything
  but a bool into a bool column) riptide raises TypeError: it has no object dtype. Masked dtypes (``Int64``)
  keep their dtype and refuse values they cannot hold, as pandas does.
* **Categoricals** replace through their categories: a row takes the new value's code, which must already be a
  category (else pandas' TypeError); the categories themselves do not change.
* **regex=True** rewrites the matches of each pattern inside the strings of string columns with riptide's
  ``.str.replace(..., regex=True)`` (pairs applied in turn, as pandas does); a non-string ``new`` (a missing
  value) replaces the whole of each string the pattern is found in. Other columns are left as they are.

>>> import riptide as rt
>>> rt.Series([1, 2, 3, 1]).replace({1: 10, 3: 30}).tolist()
[10, 2, 30, 10]
>>> rt.Series(["a", "b", None]).replace(["a", None], ["z", "?"]).tolist()
['z', 'b', '?']
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn
from riptide.core.ops import cast, missing

__all__ = ["SeriesReplaceMethods", "FrameReplaceMethods", "replace_column"]

_NO_VALUE = object()  # ``value`` not given (None is a real replacement value)

_NUMBER = (int, float, np.integer, np.floating)
_BULK_MIN_PAIRS = 8  # from this many pairs, one lookup beats one elementwise pass (and one scalar read) per pair
_DATETIMES = (pd.Timestamp, np.datetime64, _dt.datetime, _dt.date, str)  # a string is parsed, as pandas does
_TIMEDELTAS = (pd.Timedelta, np.timedelta64, _dt.timedelta, str)


class SeriesReplaceMethods:
    """``Series.replace`` (mixed into :class:`riptide.frame.series.Series`)."""

    __slots__ = ()

    def replace(self, to_replace: Any = None, value: Any = _NO_VALUE, *, inplace: bool = False,
                regex: Any = False) -> Any:  # fmt: skip
        """Values equal to ``to_replace`` replaced by ``value``.

        ``to_replace`` is a scalar, a list (with ``value`` a scalar or a list of the same length) or a dict
        ``{old: new}`` (then no ``value``). With ``regex=True`` the strings in ``to_replace`` are regular
        expressions whose matches inside string values are rewritten. A replacement pandas would store in an
        ``object`` column (a string into a number column) raises TypeError: riptide has no object dtype.

        >>> import riptide as rt
        >>> rt.Series([1, 2, 3]).replace(2, 2.5).tolist()
        [1.0, 2.5, 3.0]
        >>> rt.Series(["cat", "dog"]).replace("o", "0", regex=True).tolist()
        ['cat', 'd0g']
        """
        to_replace, regex = _regex_argument(to_replace, regex)
        _check_inplace(inplace)
        pairs = _pairs(to_replace, value, "Series")
        result = self._with_column(_replace_values(self._column, pairs, regex))
        return self._finish_inplace(result, inplace)


class FrameReplaceMethods:
    """``DataFrame.replace`` (mixed into :class:`riptide.frame.dataframe.DataFrame`)."""

    __slots__ = ()

    def replace(self, to_replace: Any = None, value: Any = _NO_VALUE, *, inplace: bool = False,
                regex: Any = False) -> Any:  # fmt: skip
        """Values equal to ``to_replace`` replaced by ``value``, in every column or per column.

        Besides the Series forms: ``{column: old}`` with ``value`` a scalar or ``{column: new}``,
        ``{column: {old: new}}`` without ``value``, and ``to_replace`` with ``value={column: new}``.
        Columns named in a dict that the frame does not have are ignored, as in pandas.

        >>> import riptide as rt
        >>> df = rt.DataFrame({"a": [1, 2], "b": ["x", "y"]})
        >>> df.replace({"a": {1: 10}, "b": {"y": "z"}}).to_pandas().to_dict("list")
        {'a': [10, 2], 'b': ['x', 'z']}
        """
        to_replace, regex = _regex_argument(to_replace, regex)
        _check_inplace(inplace)
        per_column = _frame_pairs(self, to_replace, value)
        columns = {}
        for label, column in self._data.items():
            pairs = per_column(label)
            columns[label] = _replace_values(column, pairs, regex) if pairs else column
        return self._finish_inplace(self._with_columns(columns), inplace)


# --- normalizing the arguments to (old, new) pairs ------------------------------------------------------------


def _check_inplace(inplace: Any) -> None:
    if not isinstance(inplace, bool | np.bool_):
        raise ValueError(f'For argument "inplace" expected type bool, received type {type(inplace).__name__}.')


def _regex_argument(to_replace: Any, regex: Any) -> tuple[Any, bool]:
    """pandas lets ``regex`` carry the patterns themselves when ``to_replace`` is None."""
    if isinstance(regex, bool | np.bool_):
        return to_replace, bool(regex)
    if to_replace is not None:
        raise ValueError("'to_replace' must be 'None' if 'regex' is not a bool")
    return regex, True


def _is_dict_like(value: Any) -> bool:
    from riptide.frame.series import Series

    return isinstance(value, dict | pd.Series | Series)


def _as_dict(value: Any) -> dict:
    from riptide.frame.series import Series

    if isinstance(value, Series):
        value = value.to_pandas()  # an argument, read once on the host
    if isinstance(value, pd.Series):
        return dict(value.items())
    return dict(value)


def _is_list_like(value: Any) -> bool:
    return not isinstance(value, str | bytes) and not _is_dict_like(value) and pd.api.types.is_list_like(value)


def _as_list(value: Any) -> list:
    from riptide.frame.index import Index

    if isinstance(value, Index):
        value = value.to_pandas()
    if _device.is_device_array(value):  # a CuPy array argument (the pairs are Python values)
        value = _device.to_host(value)
    return list(value)


def _pairs(to_replace: Any, value: Any, owner: str) -> list[tuple[Any, Any]]:
    """The ``(old, new)`` pairs one column gets, with pandas' errors for inconsistent arguments."""
    if value is _NO_VALUE:
        if not _is_dict_like(to_replace):
            raise ValueError(f"{owner}.replace must specify either 'value', a dict-like 'to_replace', or dict-like "
                             f"'regex'.")  # fmt: skip
        return list(_as_dict(to_replace).items())
    if _is_dict_like(to_replace):
        raise ValueError(f"{owner}.replace cannot specify both a dict-like 'to_replace' and a 'value'")
    if _is_dict_like(value):
        if to_replace is not None:
            raise ValueError(f"{owner}.replace cannot use dict-value and non-None to_replace")
        return list(_as_dict(value).items())
    if to_replace is None:  # a scalar value with nothing to replace: pandas reads None as "patterns in regex"
        raise TypeError("'regex' must be a string or a compiled regular expression or a list or dict of strings "
                        "or regular expressions, you passed a 'bool'")  # fmt: skip
    if _is_list_like(to_replace):
        olds = _as_list(to_replace)
        if _is_list_like(value):
            news = _as_list(value)
            if len(olds) != len(news):
                raise ValueError(f"Replacement lists must match in length. Expecting {len(olds)} got {len(news)} ")
            return list(zip(olds, news))
        return [(old, value) for old in olds]
    if _is_list_like(value):
        raise TypeError(f'Invalid "to_replace" type: {type(to_replace).__name__!r}')
    return [(to_replace, value)]


def _frame_pairs(frame: Any, to_replace: Any, value: Any) -> Any:
    """A function label -> that column's pairs, for the DataFrame call forms."""
    if value is _NO_VALUE and _is_dict_like(to_replace):
        mapping = _as_dict(to_replace)
        nested = [_is_dict_like(v) for v in mapping.values()]
        if any(nested):
            if not all(nested):
                raise TypeError("If a nested mapping is passed, all values of the top level mapping must be mappings")
            per = {label: _pairs(inner, _NO_VALUE, "DataFrame") for label, inner in mapping.items()}
            return lambda label: per.get(label, [])
        pairs = list(mapping.items())  # a flat {old: new} for every column
        return lambda label: pairs
    if _is_dict_like(to_replace):
        olds = _as_dict(to_replace)
        if any(_is_dict_like(v) for v in olds.values()):
            raise ValueError("Series.replace cannot specify both a dict-like 'to_replace' and a 'value'")
        if _is_dict_like(value):
            news = _as_dict(value)
            per = {label: _pairs(old, news[label], "DataFrame") for label, old in olds.items() if label in news}
        else:
            per = {label: _pairs(old, value, "DataFrame") for label, old in olds.items()}
        return lambda label: per.get(label, [])
    if _is_dict_like(value) and to_replace is not None:
        news = _as_dict(value)
        per = {label: _pairs(to_replace, new, "DataFrame") for label, new in news.items()}
        return lambda label: per.get(label, [])
    pairs = _pairs(to_replace, value, "DataFrame")
    return lambda label: pairs


# --- rewriting one column -------------------------------------------------------------------------------------


def _replace_values(column: Column, pairs: list[tuple[Any, Any]], regex: bool) -> Column:
    if regex:
        return _replace_regex(column, pairs)
    return replace_column(column, pairs)


def replace_column(column: Column, pairs: list[tuple[Any, Any]]) -> Column:
    """``column`` with each pair's ``old`` values (found in the original values) set to its ``new`` value.

    >>> from riptide.core.column import as_column
    >>> replace_column(as_column(np.array([1, 2, 3])), [(1, 2), (2, 3)]).data.tolist()
    [2, 3, 3]
    """
    if not pairs or column.size == 0:
        return column
    if isinstance(column, CategoricalColumn):
        return _replace_categorical(column, pairs)
    if len(pairs) >= _BULK_MIN_PAIRS and _bulk_applies(column, pairs):
        return _replace_bulk(column, pairs)
    matches = [_matches(column, old) for old, _ in pairs]  # all from the original values, before any rewrite
    result = column
    for (old, new), match in zip(pairs, matches):  # a later pair overwrites an earlier one, as in pandas
        if match is None or not bool(match.any()):  # one scalar read: a pair that finds nothing leaves the dtype
            continue
        result = _room_for(result, new)
        result = missing.where(result, ~match, _stored_value(result, new))
    return result


def _bulk_applies(column: Column, pairs: list[tuple[Any, Any]]) -> bool:
    """Whether every pair is a plain value of the column's kind: numbers (no bools, no missing ``old``) for an
    int or float column, strings (``new`` may be missing) for a string column."""
    if isinstance(column, StringColumn):
        return all(isinstance(old, str) and (isinstance(new, str) or missing.is_missing_scalar(new))
                   for old, new in pairs)  # fmt: skip
    if not isinstance(column, NumericColumn) or dtypes.is_masked(column.dtype) or column.kind not in "iuf":
        return False

    def number(value: Any) -> bool:
        return isinstance(value, _NUMBER) and not isinstance(value, bool | np.bool_)

    nan = lambda value: isinstance(value, float | np.floating) and np.isnan(value)  # noqa: E731
    return all(number(old) and not nan(old) and number(new) for old, new in pairs)


def _replace_bulk(column: Column, pairs: list[tuple[Any, Any]]) -> Column:
    """Many pairs at once: each row finds the last pair whose ``old`` equals it in one lookup (a sorted search
    of the numeric keys, or the join's key matcher for strings) instead of one pass per pair; the dtype grows
    with the ``new`` values of the pairs that matched, as the pair-by-pair path lets it."""
    from riptide.core.column import as_column
    from riptide.core.ops.join import comparable_keys, match_keys

    if column.size == 0:
        return column
    xp = column.xp
    last = {}  # old key -> the index of the last pair with it (the later pair wins)
    key_of_pair = {}  # pair index -> its old key (an earlier pair with a found key still widens the dtype)
    if isinstance(column, StringColumn):
        for i, (old, _) in enumerate(pairs):
            last[old], key_of_pair[i] = i, old
        keys = as_column(list(last), dtype=column.dtype, xp=xp)
        (probe,), (build,) = comparable_keys([column], [keys], strict=False)
        # the keys are distinct (dict keys) and both sides have rows, so either path of match_keys gives each
        # row its one build row (-1: none)
        owner = match_keys([probe], [build]).owner
        owner = xp.where(column.notna(), owner, -1)
    else:
        storage = column.data.dtype
        for i, (old, _) in enumerate(pairs):
            if storage.kind in "iu":
                old = _integer_key(old, storage)
                if old is None:
                    continue  # a fraction, or a number out of the dtype's range, finds no integer
            key = storage.type(old).item()
            last[key], key_of_pair[i] = i, key
        if not last:
            return column
        keys = np.array(list(last), dtype=storage)
        order = np.argsort(keys, kind="stable")
        keys = xp.asarray(keys[order])
        position = xp.minimum(xp.searchsorted(keys, column.data), keys.shape[0] - 1)
        owner = xp.where(keys[position] == column.data, xp.asarray(order)[position], -1)
    pair_of_key = xp.asarray(np.fromiter(last.values(), dtype=np.int64, count=len(last)))
    pair = xp.where(owner >= 0, pair_of_key[xp.maximum(owner, 0)], -1)
    hit = xp.zeros(len(pairs) + 1, dtype=bool)  # which pairs some row found, without sorting the rows
    hit[xp.where(pair >= 0, pair, len(pairs))] = True
    # one read of at most len(pairs) numbers: which pairs matched decides the result dtype, as pandas does
    found = _device.to_host(xp.flatnonzero(hit[:-1])).tolist()
    if not found:
        return column
    # pandas widens the dtype for every pair whose old value some row holds, in pair order, though only the last
    # pair with that value gives the rows their new value
    found_keys = {key_of_pair[i] for i in found}
    matched = [i for i in sorted(key_of_pair) if key_of_pair[i] in found_keys]
    result = column
    for i in matched:
        result = _room_for(result, pairs[i][1])
    filler = "" if isinstance(result, StringColumn) else 0  # pairs that matched nothing: never gathered
    chosen = set(matched)
    news = [_stored_value(result, pairs[i][1]) if i in chosen else filler for i in range(len(pairs))]
    if isinstance(result, StringColumn):
        other = as_column(news, dtype=result.dtype, xp=xp)
    else:
        other = NumericColumn(xp.asarray(np.array([np.nan if v is None else v for v in news],
                                                  dtype=result.data.dtype)))  # fmt: skip
    return missing.where(result, pair < 0, other.take(xp.maximum(pair, 0)))


def _matches(column: Column, old: Any) -> Any:
    """Device bool array of the rows equal to ``old`` (None: no row can be)."""
    from riptide.core.ops.membership import isin

    if missing.is_missing_scalar(old):
        if isinstance(column, NumericColumn) and column.kind == "f" and not dtypes.is_masked(column.dtype):
            is_nan = isinstance(old, float | np.floating) and np.isnan(old)
            return column.isna() if is_nan else None  # pandas: only NaN finds a NaN in a float64 column
        return column.isna() if column.can_hold_missing() else None
    if isinstance(column, StringColumn):
        if not isinstance(old, str):
            return None
        return isin(column, [old]).data & column.notna()
    assert isinstance(column, NumericColumn)
    if dtypes.is_datetimelike(column.dtype):
        temporal = _temporal_scalar(column, old)
        if temporal is None or temporal is pd.NaT:
            return None
        return (column.data == dtypes.datetime_ticks(temporal, column.dtype)) & column.notna()
    is_bool = isinstance(old, bool | np.bool_)
    if column.kind == "b":
        return (column.data == bool(old)) & column.notna() if is_bool else None
    if is_bool or not isinstance(old, _NUMBER):
        return None
    if column.kind in "iu":
        old = _integer_key(old, dtypes.storage_dtype(column.dtype))
        if old is None:
            return None
    return (column.data == old) & column.notna()


def _temporal_scalar(column: NumericColumn, value: Any) -> Any:
    """``value`` as a Timestamp / Timedelta the datetime-like ``column`` can hold (None: it cannot)."""
    if column.kind == "M":
        if not isinstance(value, _DATETIMES):
            return None
        parse = pd.Timestamp
    else:
        if not isinstance(value, _TIMEDELTAS):
            return None
        parse = pd.Timedelta
    try:
        value = parse(value)
        if value is pd.NaT:
            return value  # "" parses as NaT: a missing value
        dtypes.datetime_ticks(value, column.dtype)  # refuses a tz-aware value for a naive column and the reverse
        step = int(pd.Timedelta(1, unit=dtypes.datetime_unit(column.dtype)).value)  # ns per tick of the column
        if value.value % step:
            return None  # finer than the column's unit (pandas: an object column)
    except (TypeError, ValueError, OverflowError):
        return None
    return value


def _object_error(column: Column, new: Any) -> TypeError:
    return TypeError(f"cannot replace values of a {column.dtype} column with {new!r} ({type(new).__name__}): pandas "
                     f"would make an object column, which riptide does not have; cast the column first")  # fmt: skip


def _room_for(column: Column, new: Any) -> Column:
    """``column`` cast to the dtype that holds ``new`` as well, as pandas' replace chooses it."""
    if not isinstance(column, NumericColumn) or dtypes.is_masked(column.dtype):
        return column
    if dtypes.is_datetimelike(column.dtype):
        return _temporal_room(column, new)
    kind = column.kind
    if kind == "b" or isinstance(new, bool | np.bool_):
        return column
    if missing.is_missing_scalar(new):
        if isinstance(new, float | np.floating) and kind in "iu":
            return cast.astype(column, np.dtype(np.float64))
        return column
    if not isinstance(new, _NUMBER):
        return column
    if kind == "f":
        narrow = column.dtype.itemsize < 8 and np.isfinite(new) and column.dtype.type(new) != new
        return cast.astype(column, np.dtype(np.float64)) if narrow else column  # float32 takes only its own values
    if isinstance(new, float | np.floating):
        if float(new).is_integer() and _fits(column.dtype, new):
            return column
        return cast.astype(column, np.dtype(np.float64))
    if _fits(column.dtype, new):
        return column
    value = int(new)
    if not np.iinfo(np.int64).min <= value <= np.iinfo(np.uint64).max:
        raise OverflowError(f"{value} is out of bounds for every integer dtype")
    needed = np.min_scalar_type(value) if value < 0 or kind == "u" else np.min_scalar_type(-value - 1)
    return cast.astype(column, np.result_type(column.dtype, needed))


def _temporal_room(column: NumericColumn, new: Any) -> Column:
    """A datetime-like column in the finer unit of a Timestamp / Timedelta ``new`` that its unit cannot hold
    (pandas refines the unit; a string finer than the unit makes pandas' object column, refused later)."""
    if isinstance(new, str) or missing.is_missing_scalar(new):
        return column
    if not isinstance(new, _DATETIMES if column.kind == "M" else _TIMEDELTAS):
        return column
    try:
        value = pd.Timestamp(new) if column.kind == "M" else pd.Timedelta(new)
        step = int(pd.Timedelta(1, unit=dtypes.datetime_unit(column.dtype)).value)
    except (TypeError, ValueError, OverflowError):
        return column
    if value is pd.NaT or value.value % step == 0:
        return column
    if isinstance(column.dtype, pd.DatetimeTZDtype):
        finer = pd.DatetimeTZDtype(value.unit, column.dtype.tz)
    else:
        finer = np.dtype(f"{'datetime64' if column.kind == 'M' else 'timedelta64'}[{value.unit}]")
    return cast.astype(column, finer)


def _fits(dtype: np.dtype, value: Any) -> bool:
    info = np.iinfo(dtype)
    return bool(info.min <= int(value) <= info.max)


def _integer_key(old: Any, dtype: np.dtype) -> int | None:
    """``old`` as an int that an integer ``dtype`` holds; None for a fraction, inf/NaN or a value out of range."""
    if isinstance(old, float | np.floating) and not (np.isfinite(old) and float(old).is_integer()):
        return None
    return int(old) if _fits(dtype, old) else None


def _stored_value(column: Column, new: Any) -> Any:
    """``new`` as ``column`` (already widened for it) stores it; TypeError where pandas would need ``object``."""
    if missing.is_missing_scalar(new):
        if isinstance(column, NumericColumn) and not dtypes.is_masked(column.dtype) and not (
                dtypes.is_datetimelike(column.dtype)):  # fmt: skip
            if column.kind == "b" or not (isinstance(new, float | np.floating) and column.kind == "f"):
                raise _object_error(column, new)  # None / pd.NA / NaT into numbers: object in pandas
        return None
    if isinstance(column, StringColumn):
        if not isinstance(new, str):
            raise _object_error(column, new)
        return new
    assert isinstance(column, NumericColumn)
    if dtypes.is_datetimelike(column.dtype):
        temporal = _temporal_scalar(column, new)
        if temporal is None:
            raise _object_error(column, new)
        return None if temporal is pd.NaT else temporal
    if dtypes.is_masked(column.dtype):
        return cast.settable_scalar(column, new)  # Int64 refuses 2.5 and "a" with pandas' TypeError
    is_bool = isinstance(new, bool | np.bool_)
    if column.kind == "b":
        if not is_bool:
            raise _object_error(column, new)
        return bool(new)
    if is_bool or not isinstance(new, _NUMBER):
        raise _object_error(column, new)
    if column.kind in "iu":
        return int(new)
    return float(new)


def _replace_categorical(column: CategoricalColumn, pairs: list[tuple[Any, Any]]) -> CategoricalColumn:
    """Codes rewritten: each old category's rows take the new value's code (-1 for a missing new value)."""
    xp = column.xp
    categories = column.dtype.categories
    codes = column.codes
    result = codes
    for old, new in pairs:
        if missing.is_missing_scalar(old):
            match = codes < 0
        elif _in_categories(categories, old):
            match = codes == int(categories.get_loc(old))
        else:
            continue
        if missing.is_missing_scalar(new):
            code = -1
        elif _in_categories(categories, new):
            code = int(categories.get_loc(new))
        else:
            if not bool(match.any()):  # one scalar read: pandas only refuses a new category it would store
                continue
            raise TypeError(f"Cannot setitem on a Categorical with a new category ({new}), set the categories first")
        result = xp.where(match, code, result).astype(codes.dtype, copy=False)
    return CategoricalColumn(result, column.categories, ordered=column.dtype.ordered)


def _in_categories(categories: pd.Index, value: Any) -> bool:
    try:
        return bool(value in categories)
    except (TypeError, ValueError):
        return False


def _replace_regex(column: Column, pairs: list[tuple[Any, Any]]) -> Column:
    """Each pattern's matches inside the strings rewritten, pair after pair; a pair whose ``old`` is not a
    pattern (a number, a missing value) replaces equal values as without ``regex``."""
    from riptide.frame.index import default_index
    from riptide.frame.series import Series

    is_pattern = [isinstance(old, str | re.Pattern) for old, _ in pairs]
    if not isinstance(column, StringColumn) or column.size == 0:
        if isinstance(column, CategoricalColumn) and any(is_pattern):
            _refuse_categorical_patterns(column, [old for (old, _), p in zip(pairs, is_pattern) if p])
        return replace_column(column, [pair for pair, p in zip(pairs, is_pattern) if not p])
    series = Series._from_column(column, default_index(column.size, column.xp), None)
    for (pattern, new), pattern_like in zip(pairs, is_pattern):
        if not pattern_like:
            series = Series._from_column(replace_column(series._column, [(pattern, new)]), series.index, None)
        elif isinstance(new, str):
            re.compile(pattern)  # a bad pattern raises Python's re.error, as in pandas
            series = series.str.replace(pattern, new, regex=True)
        elif missing.is_missing_scalar(new):
            found = series.str.contains(pattern, regex=True)._column
            hit = found.data & found.notna() if isinstance(found, NumericColumn) else found
            series = Series._from_column(series._column.set_missing(hit), series.index, None)
        else:
            raise _object_error(column, new)
    return series._column


def _refuse_categorical_patterns(column: CategoricalColumn, patterns: list[Any]) -> None:
    """pandas rewrites a categorical's matching strings into an object column: riptide refuses (the categories
    are few and on the host, so they are searched there)."""
    categories = column.dtype.categories
    if categories.dtype.kind not in "OUT" and str(categories.dtype) != "str":
        return
    texts = pd.Series(categories, dtype=object).astype(str)
    if any(bool(texts.str.contains(p, regex=True).any()) for p in patterns):
        raise TypeError(f"cannot rewrite the categories of a {column.dtype} column with regex=True: pandas would make "
                        f"an object column, which riptide does not have; cast the column to str first")  # fmt: skip
