"""``Series.apply``, ``DataFrame.apply``: user functions compiled for the device, pandas on the host otherwise.

pandas calls a function given to ``Series.apply`` once per element, in Python. riptide translates a scalar function
(arithmetic, comparisons, ``if``/``else``, ``math``, ...) into one elementwise GPU kernel instead
(:mod:`riptide.core.udf`), with pandas' semantics: the Python scalars pandas would pass (``int`` for an int64
column, ``float`` for float64 with NaN for missing values, ``bool``), Python's arithmetic (an int never overflows:
a row whose int leaves int64 is re-run on the host; ``1 // 0`` raises), and pandas' result dtype (all ints ->
int64, ints and floats -> float64, bools -> bool).

* ``Series.apply(func, args=(), **kwargs)``: ``func(element, *args, **kwargs)`` per element. A string calls the
  method of that name (``s.apply("sum")``); a NumPy ufunc and ``by_row=False`` call ``func`` on the Series itself.
* ``DataFrame.apply(func, axis=1)``: ``func(row)`` where the function reads ``row["a"]`` or ``row.a``; compiled
  over the columns it reads. pandas builds each row as a Series of the frame's common dtype: a frame of int64
  (float64) columns passes NumPy ``int64`` (``float64``) scalars, which compute as NumPy does (ints wrap, division
  by zero gives inf); a frame mixing kinds (ints and bools, strings) passes Python scalars. Both are compiled.
* ``DataFrame.apply(func)`` (``axis=0``): ``func(column Series)`` per column, on the device (the function gets
  riptide Series); scalar results make a Series indexed by the column labels, Series results a DataFrame.

* Nullable columns (``Int64``, ``Float32``, ``boolean``, ...): pandas passes ``pd.NA`` for a missing element. A
  compiled function computes only with its argument and constants, so every missing row gives ``func(pd.NA)``,
  which riptide computes once in Python: where NA propagates (``x + 1``, ``x > 1``, ``np.sqrt(x)``) missing rows
  stay missing and the rest run compiled; where it raises (``if x > 1``: "boolean value of NA is ambiguous") or
  gives a number, pandas runs the function (and raises). The result dtype is pandas' rule for them: nullable by the
  values' kind, NaN missing, narrowed back to the input's width where every value fits (``Int32`` stays ``Int32``).
* ``DataFrame.apply(axis=1)`` over a frame of int32 (int16, int8) columns passes ``np.int32`` scalars, which wrap at
  32 bits; compiled, with an int32 result as in pandas. Frames of float32 or unsigned columns, and nullable
  columns, run through pandas. Datetime and timedelta elements (pandas passes ``Timestamp``/``Timedelta`` objects,
  whose attributes and methods are not compiled) run through pandas too.

Whatever does not compile (a loop, a call of another function, strings, a text column, a row that
would raise) runs through pandas on the host, exactly as pandas runs it, after a one-time
:class:`~riptide.core.udf.UDFFallbackWarning` naming the reason. Empty inputs go to pandas silently (its rules
for the dtype of an empty result are its own, and there is no data to move).

>>> import riptide as rt
>>> rt.Series([1, 2, 3]).apply(lambda x: x * 2 if x > 1 else -x).tolist()
[-1, 4, 6]
>>> df = rt.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
>>> df.apply(lambda row: row["a"] + row.b, axis=1).tolist()
[4.0, 6.0]
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.column import Column, NumericColumn
from riptide.core.udf import HostFallback, RowArg, apply_elementwise, compile_function, python_type_of, warn_fallback
from riptide.core.udf.ir import NP_FLOAT, Type, Unsupported
from riptide.frame.concat import _axis_number  # DataFrame's axis names, as concat reads them
from riptide.frame.group_transform import _as_riptide  # pandas results as riptide objects

__all__ = ["SeriesApplyMethods", "FrameApplyMethods", "compiled_map"]

_EMPTY = "has no rows"


class SeriesApplyMethods:
    """``Series.apply`` (mixed into :class:`riptide.frame.series.Series`)."""

    __slots__ = ()

    def apply(self, func: Any, args: tuple = (), *, by_row: Any = "compat", **kwargs: Any) -> Any:
        """Call ``func(element, *args, **kwargs)`` on every element: compiled into one device kernel when it is a
        scalar numeric function, through pandas on the host otherwise (with a one-time warning).

        >>> import math
        >>> import riptide as rt
        >>> rt.Series([1.0, 4.0, 9.0]).apply(math.sqrt).tolist()
        [1.0, 2.0, 3.0]
        >>> rt.Series([1, 2, 3]).apply(lambda x, k: x % k == 0, args=(2,)).tolist()
        [False, True, False]
        """
        from riptide.frame.series import Series

        if by_row not in ("compat", False):
            raise ValueError(f"by_row={by_row} not allowed")
        if isinstance(func, str):
            method = getattr(self, func, None)
            if callable(method):
                return method(*args, **kwargs)
            return _host_series_apply(self, func, args, by_row, kwargs, f"names {func!r}, not a riptide method")
        if isinstance(func, np.ufunc) or by_row is False:
            return func(self, *args, **kwargs)
        if not callable(func):
            return _host_series_apply(self, func, args, by_row, kwargs, "is a list or dict of functions")
        try:
            column = compiled_map(self._column, func, args, kwargs, None)
        except HostFallback as exc:
            return _host_series_apply(self, func, args, by_row, kwargs, str(exc))
        return Series._from_column(column, self._index, self.name)


class FrameApplyMethods:
    """``DataFrame.apply`` and ``DataFrame.map`` (mixed into :class:`riptide.frame.dataframe.DataFrame`)."""

    __slots__ = ()

    def map(self, func: Any, na_action: str | None = None, **kwargs: Any) -> Any:
        """``func`` applied to each value, column by column (each column as :meth:`Series.map` maps it: a function of
        numbers is compiled for the device).

        >>> import riptide as rt
        >>> rt.DataFrame({"a": [1, 2], "b": [3.5, 4.0]}).map(lambda x: x * 2).to_pandas().values.tolist()
        [[2.0, 7.0], [4.0, 8.0]]
        """
        from riptide.frame.mapping import map_column

        if not callable(func):
            raise TypeError("the first argument must be callable")
        if na_action not in (None, "ignore"):
            raise ValueError(f"na_action must either be 'ignore' or None, {na_action} was passed")
        return self._with_columns({label: map_column(column, func, na_action, kwargs)
                                   for label, column in self._data.items()})  # fmt: skip

    def apply(self, func: Any, axis: Any = 0, raw: bool = False, result_type: Any = None, args: tuple = (),
              by_row: Any = "compat", engine: Any = None, engine_kwargs: Any = None, **kwargs: Any) -> Any:  # fmt: skip
        """Call ``func`` on each column (``axis=0``) or each row (``axis=1``).

        A row function reading ``row["a"]`` / ``row.a`` with numbers is compiled into one device kernel over the
        columns it reads; other functions run through pandas on the host (with a one-time warning).

        >>> import riptide as rt
        >>> df = rt.DataFrame({"a": [1, 2, 3], "b": [10, 20, 30]})
        >>> df.apply(lambda r: r["b"] - r["a"] if r["a"] > 1 else 0, axis=1).tolist()
        [0, 18, 27]
        >>> df.apply(lambda col: col.max()).tolist()
        [3, 30]
        """
        axis = _axis_number(axis)
        if isinstance(func, str):
            method = getattr(self, func, None)
            if callable(method):
                return method(*args, axis=axis, **kwargs)
        elif isinstance(func, np.ufunc):
            return func(self, *args, **kwargs)
        plain = (callable(func) and not isinstance(func, str) and not raw and result_type is None
                 and engine in (None, "python") and by_row in ("compat", False))  # fmt: skip
        if not plain:
            return _host_frame_apply(self, func, axis, raw, result_type, args, by_row, engine, engine_kwargs, kwargs,
                                     "uses apply options riptide runs through pandas")  # fmt: skip
        if axis == 0:
            return _apply_columns(self, func, args, kwargs)
        try:
            column = _apply_rows(self, func, args, kwargs)
        except HostFallback as exc:
            return _host_frame_apply(self, func, axis, raw, result_type, args, by_row, engine, engine_kwargs, kwargs,
                                     str(exc))  # fmt: skip
        from riptide.frame.series import Series

        return Series._from_column(column, self._index, None)


# --- compiled paths -----------------------------------------------------------------------------------------------
def compiled_map(column: Column, func: Any, args: tuple, kwargs: dict, na_action: str | None) -> Column:
    """The column of ``func`` applied to each element of ``column``, compiled; raises :class:`HostFallback`.

    ``na_action="ignore"``: missing (NaN) elements are not passed to ``func`` and stay missing.
    """
    if column.size == 0:
        raise HostFallback(_EMPTY)
    masked = isinstance(column, NumericColumn) and dtypes.is_masked(column.dtype)
    if not isinstance(column, NumericColumn) or not (masked or isinstance(column.dtype, np.dtype)):
        raise HostFallback(f"receives values of dtype {column.dtype} (only int, float and bool columns are compiled)")
    try:
        arg_type = python_type_of(column.data.dtype)
    except Unsupported as exc:
        raise HostFallback(str(exc)) from None
    xp = column.xp
    data = column.data
    skip = None
    if masked:
        if column.mask is not None:
            skip = ~column.mask
            if not bool(skip.any()):  # one scalar read: whether pd.NA is ever passed
                skip = None
        if skip is not None and na_action != "ignore":
            _check_missing_value(func, arg_type, args, kwargs)
    elif na_action == "ignore" and column.dtype.kind == "f":
        skip = xp.isnan(data)
        # one scalar read: whether any row is left out decides the result dtype
        left_out = int(skip.sum())
        if left_out == column.size:
            return column  # nothing mapped: pandas gives the NaN column back
        if not left_out:
            skip = None
    values, missing = apply_elementwise(func, [data], [arg_type], xp, column.size, args=args, kwargs=kwargs,
                                        skip=skip)  # fmt: skip
    if masked:
        return _masked_result(values, missing, column.dtype, xp)
    return _result_column(values, missing, xp)


def _check_missing_value(func: Any, arg_type: Any, args: tuple, kwargs: dict) -> None:
    """pandas passes ``pd.NA`` for a missing element of a nullable column. A compiled function is pure arithmetic
    of that one argument and constants, so every missing row gives the same result: ``func(pd.NA)``, computed
    here once, in Python. It is missing where NA propagates (``x + 1``, ``np.sqrt(x)``, ``x > 1``); a function that
    raises for NA (``if x > 1``, ``math.sqrt(x)``: "boolean value of NA is ambiguous") or returns a number for it
    (``x ** 0``) runs through pandas, which raises (or builds the result) itself."""
    try:
        compile_function(func, [arg_type], args, kwargs)  # (cached): only pure functions are called here
    except Unsupported as exc:
        raise HostFallback(str(exc)) from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = func(pd.NA, *args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - whatever it raises, pandas raises it
        raise HostFallback(f"raises {type(exc).__name__} for a missing value (pd.NA)") from None
    if result is pd.NA or result is None or (isinstance(result, float | np.floating) and result != result):
        return
    raise HostFallback(f"returns {result!r} for a missing value (pd.NA)")


def _masked_result(values: Any, missing: Any, in_dtype: Any, xp: types.ModuleType) -> Column:
    """The result of mapping a nullable column, with pandas' dtype rules for it: a nullable dtype by the values'
    kind (boolean, Int64, Float64; NaN is missing too), narrowed back to the input's width where every value fits
    (Int32 stays Int32; Float32 when every value is within 5e-4 of a float32, pandas' tolerance), and the input's
    own dtype when every row is missing."""
    in_np = dtypes.storage_dtype(in_dtype)
    size = values.shape[0]
    if values.dtype.kind == "f":
        nan = xp.isnan(values)
        missing = nan if missing is None else (missing | nan)
    valid = None if missing is None else ~missing
    # one scalar read: an all-missing result keeps the input's dtype
    if valid is not None and not bool(valid.any()):
        return NumericColumn(xp.zeros(size, dtype=in_np), in_dtype, mask=valid)
    if valid is not None:
        values = xp.where(valid, values, values.dtype.type(0))
    if values.dtype.kind == "b":
        return NumericColumn(values, pd.BooleanDtype(), mask=valid)
    if values.dtype.kind == "i":
        if in_np.kind in "iu" and in_np != values.dtype:
            info = np.iinfo(in_np)
            # one scalar read: whether every value fits the input's int type (pandas then keeps that type)
            if bool(((values >= info.min) & (values <= info.max)).all()):
                return NumericColumn(values.astype(in_np), dtypes.to_masked(in_np), mask=valid)
        return NumericColumn(values, pd.Int64Dtype(), mask=valid)
    if in_np == np.float32:
        narrow = values.astype(np.float32)
        wide = narrow.astype(np.float64)
        with np.errstate(invalid="ignore"):
            close = (xp.abs(wide - values) <= 5e-4) | (wide == values)
        if bool(close.all()):  # one scalar read: pandas' float32 tolerance decides the dtype
            return NumericColumn(narrow, pd.Float32Dtype(), mask=valid)
    return NumericColumn(values.astype(np.float64), pd.Float64Dtype(), mask=valid)


def _apply_rows(frame: Any, func: Any, args: tuple, kwargs: dict) -> Column:
    """``frame.apply(func, axis=1)`` compiled over the columns ``func`` reads; raises :class:`HostFallback`."""
    data = frame._data
    labels = list(data)
    if not labels or len(frame._index) == 0:
        raise HostFallback(_EMPTY)
    if not _unique(labels):
        raise HostFallback("reads rows of a frame with duplicate column labels")
    columns = {}
    common = _row_dtype([c.dtype for c in data.values()])
    for label, column in data.items():
        if common is not None:
            columns[label] = NP_FLOAT if common.kind == "f" else Type("int", True, common.itemsize * 8)
            continue
        try:
            if not isinstance(column, NumericColumn) or column.mask is not None:
                raise Unsupported(column.dtype)
            columns[label] = python_type_of(column.dtype)
        except Unsupported:
            columns[label] = _Unreadable(f"column {label!r} of dtype {column.dtype}")
    row = _CheckedRow(columns)
    arrays = [c.data if isinstance(c, NumericColumn) else None for c in data.values()]
    xp = next(iter(data.values())).xp
    values, missing = apply_elementwise(func, arrays, [row], xp, len(frame._index), args=args, kwargs=kwargs)
    return _result_column(values, missing, xp)


class _Unreadable:
    """The type of a column the compiled function cannot read (text, nullable, ...): reading it is unsupported."""

    def __init__(self, reason: str):
        self.reason = reason

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Unreadable) and other.reason == self.reason

    def __hash__(self) -> int:
        return hash(self.reason)


class _CheckedRow(RowArg):
    def column(self, label: Any) -> Any:
        t = self.columns.get(label)
        if isinstance(t, _Unreadable):
            raise Unsupported(f"reads {t.reason} (only int, float and bool columns are compiled)")
        return super().column(label)


def _row_dtype(column_dtypes: list[Any]) -> np.dtype | None:
    """The dtype of pandas' rows of these columns when they are NumPy scalars (a frame of one kind: int64, float64,
    or a narrower signed int, whose values wrap as NumPy's do); None when they are Python objects (a frame mixing
    kinds); raises :class:`HostFallback` for other row dtypes (float32, unsigned ints, nullable columns)."""
    if any(dtypes.is_masked(d) for d in column_dtypes):
        raise HostFallback("reads rows of a frame with nullable columns (pandas passes pd.NA)")
    if all(isinstance(d, np.dtype) and d.kind in "iuf" for d in column_dtypes):
        common = np.result_type(*column_dtypes)
        if common == np.float64 or common.kind == "i":
            return common
        raise HostFallback(f"reads rows of dtype {common} (compiled: signed ints, float64 or mixed kinds)")
    if all(isinstance(d, np.dtype) and d.kind == "b" for d in column_dtypes):
        raise HostFallback("reads rows of NumPy booleans")
    return None  # object rows: each value is the Python scalar of its column


def _hashable_key(label: Any) -> Any:
    return (type(label).__name__, label) if not isinstance(label, float) or label == label else ("nan",)


def _result_column(values: Any, missing: Any, xp: types.ModuleType) -> Column:
    if missing is None:
        return NumericColumn(values)
    if values.dtype == np.bool_:
        return NumericColumn(values, pd.BooleanDtype(), mask=~missing)
    return NumericColumn(xp.where(missing, np.nan, values.astype(np.float64)))


def _apply_columns(frame: Any, func: Any, args: tuple, kwargs: dict) -> Any:
    """``frame.apply(func)``: ``func`` called with each column as a riptide Series; results combined as pandas."""
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.series import Series

    labels = list(frame._data)
    if not labels:
        return _host_frame_apply(frame, func, 0, False, None, args, "compat", None, None, kwargs, _EMPTY)
    by_label = _unique(labels)  # (duplicate labels: each column by its position)
    results = [func(frame[label] if by_label else frame.iloc[:, i], *args, **kwargs)
               for i, label in enumerate(labels)]  # fmt: skip
    if all(isinstance(r, Series) for r in results):
        index = frame._index
        if all(r.index is index or r.index.equals(index) for r in results):
            return DataFrame._from_columns(dict(zip(labels, (r._column for r in results))), index)
        pandas_results = {label: r.to_pandas() for label, r in zip(labels, results)}
        return DataFrame(pd.DataFrame(pandas_results))  # results on other indexes: aligned as pandas aligns them
    if any(isinstance(r, Series | DataFrame | pd.Series | pd.DataFrame) for r in results):
        return _host_frame_apply(frame, func, 0, False, None, args, "compat", None, None, kwargs,
                                 "returns Series for some columns and scalars for others")  # fmt: skip
    return Series(pd.Series(results, index=frame.columns))


def _unique(labels: list[Any]) -> bool:
    return len(set(map(_hashable_key, labels))) == len(labels)


# --- host paths ---------------------------------------------------------------------------------------------------
def _host_series_apply(series: Any, func: Any, args: tuple, by_row: Any, kwargs: dict, reason: str) -> Any:
    if reason != _EMPTY:
        warn_fallback(func, reason)
    result = series.to_pandas().apply(func, args, by_row=by_row, **kwargs)
    return _as_riptide(result)


def _host_frame_apply(frame: Any, func: Any, axis: int, raw: bool, result_type: Any, args: tuple, by_row: Any,
                      engine: Any, engine_kwargs: Any, kwargs: dict, reason: str) -> Any:  # fmt: skip
    if reason != _EMPTY:
        warn_fallback(func, reason)
    result = frame.to_pandas().apply(func, axis=axis, raw=raw, result_type=result_type, args=args, by_row=by_row,
                                     engine=engine, engine_kwargs=engine_kwargs, **kwargs)  # fmt: skip
    return _as_riptide(result)
