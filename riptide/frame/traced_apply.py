"""``groupby(...).apply(func)`` evaluated once for all groups, when ``func`` only reduces the group's columns.

pandas calls ``func`` on every group: ``df.groupby(["id2", "id4"]).apply(lambda g: g["v1"].corr(g["v2"]) ** 2)``
over 10,000 groups is 10,000 Python calls, each a handful of small GPU launches. But a function that only

* selects columns of the group (``g["v1"]``, ``g.v1``),
* reduces them to a scalar (``sum``, ``mean``, ``min``, ``max``, ``std``, ``var``, ``median``, ``count``,
  ``prod``, ``sem``, ``nunique``; ``corr`` / ``cov`` with another column of the same group),
* and computes with those scalars and plain numbers (``+ - * / // % **``, ``abs``, comparisons),

gives the same answer as one call on a *tracer*: a stand-in for "every group at once" whose reductions
are the groupby's own per-group reductions and whose scalars (:class:`PerGroup`) are columns holding one
value per group. Anything else the function does with its argument (iterate it, index rows, turn a
scalar into a Python number, call another method) raises :class:`Untraceable`, and apply falls back to
the loop over groups, which handles any function. So does any other exception: the loop then raises
what pandas would raise.

Reductions are traced only on int64 and float64 columns, where a Series reduction and the groupby
reduction give the same dtype (pandas narrows groupby sums of small ints; ``Series.sum`` does not);
``corr`` and ``cov`` on any int or float column, masked ones included (float64 either way); and
only when no group is empty (``observed=False`` categories). The function is called once instead of once
per group: a function with side effects (printing, appending to a list) sees one call.

The per-group calls compute with the *scalars* pandas' reductions return, and those are not all NumPy scalars:
``nunique`` gives a Python int, and ``mean`` (of an all-missing group), ``sum``/``prod`` short of ``min_count``,
``corr`` and ``cov`` give a Python float ``nan``. Python arithmetic differs from a column's: it raises
ZeroDivisionError, a negative base to a fractional power is complex, ``-True`` is ``-1``. So a
:class:`PerGroup` remembers where its values are Python numbers (:data:`_NUMPY`, :data:`_PYTHON_WHERE_NAN`,
:data:`_PYTHON`), and an operation whose Python arithmetic could differ from the column's is not traced.
Arithmetic between two booleans, and ``-`` / ``abs`` of booleans, are never traced (NumPy refuses some,
Python gives ints, a column gives booleans).

>>> import riptide as rt
>>> df = rt.DataFrame({"k": [1, 1, 2, 2], "x": [1.0, 2.0, 3.0, 5.0], "y": [2.0, 4.0, 1.0, 0.0]})
>>> df.groupby("k").apply(lambda g: g["x"].max() - g["y"].min()).tolist()
[0.0, 5.0]
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

__all__ = ["Untraceable", "PerGroup", "trace_apply"]

# Series reductions with the same result per group as the SeriesGroupBy method of the same name, for int64 and
# float64 columns. Only the keyword arguments listed are passed on (positional arguments are not traced: the two
# signatures order them differently).
_REDUCTIONS = {
    "sum": {"skipna", "min_count"}, "mean": {"skipna"}, "min": {"skipna"}, "max": {"skipna"},
    "std": {"ddof", "skipna"}, "var": {"ddof", "skipna"}, "sem": {"ddof", "skipna"}, "median": {"skipna"},
    "prod": {"skipna", "min_count"}, "count": set(), "nunique": {"dropna"},
}  # fmt: skip
_TRACED_DTYPES = (np.dtype(np.int64), np.dtype(np.float64))
_INT_SENSITIVE = (operator.floordiv, operator.mod, operator.pow)
_DIVISIONS = (operator.truediv, operator.floordiv, operator.mod)
_COMPARISONS = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne)

# What kind of scalar pandas' per-group call holds for each group (ordered: an operation's result is Python only
# where both operands are): NumPy scalars everywhere; Python floats where the value is NaN (NumPy elsewhere);
# Python numbers everywhere.
_NUMPY, _PYTHON_WHERE_NAN, _PYTHON = 0, 1, 2
# Reductions whose per-group value is a Python number (nunique), or a Python NaN where the result is missing.
_PYTHON_RESULTS = {"nunique": _PYTHON, "mean": _PYTHON_WHERE_NAN, "corr": _PYTHON_WHERE_NAN, "cov": _PYTHON_WHERE_NAN}
_LITERALS = (int, float, np.integer, np.floating, np.bool_)  # numbers a column computes with as pandas' scalars do


def _is_int_or_float(dtype: Any) -> bool:
    from riptide.core import dtypes

    return dtypes.to_numpy_dtype(dtype).kind in "iuf" and not dtypes.is_datetimelike(dtype)


class Untraceable(Exception):
    """The function used its group in a way the tracer cannot stand in for: call it per group instead."""


def trace_apply(grouped: Any, func: Any, args: tuple, kwargs: dict) -> Any:
    """The column of ``func``'s per-group scalars (one per group, in group order), or None when ``func`` cannot be
    traced (then call it on each group)."""
    from riptide.frame.groupby import SeriesGroupBy

    if not grouped._observed_only or grouped.ngroups == 0:
        return None
    is_series = isinstance(grouped, SeriesGroupBy)
    tracer = _SeriesTracer(grouped._indexed()) if is_series else _FrameTracer(grouped)
    try:
        result = func(tracer, *args, **kwargs)
    except Exception:  # Untraceable, or anything the real groups may raise differently: the loop decides
        return None
    if not isinstance(result, PerGroup):
        return None  # a constant, or the group itself: not one scalar per group
    return result.series._column


class _FrameTracer:
    """Every group's frame at once: its columns are :class:`_SeriesTracer` s; nothing else is traced."""

    def __init__(self, grouped: Any):
        self._grouped = grouped
        self._labels = [label for label, _ in grouped._value_items()]

    def __getitem__(self, label: Any) -> _SeriesTracer:
        try:
            if label in self._labels:
                return _SeriesTracer(self._grouped._as_series_group(label))
        except TypeError:  # an unhashable key (a list of columns, a mask): not a column
            pass
        raise Untraceable(f"frame[{label!r}]")

    def __getattr__(self, name: str) -> Any:
        # ``group.sum`` is the DataFrame method even when a column is named "sum": only a name no DataFrame
        # attribute takes is the column.
        if not name.startswith("_") and name in self._labels and not _is_frame_attribute(name):
            return self[name]
        raise Untraceable(name)

    def __len__(self) -> int:
        raise Untraceable("len")

    def __iter__(self):
        raise Untraceable("iter")


def _is_frame_attribute(name: str) -> bool:
    import pandas as pd

    from riptide.frame.dataframe import DataFrame

    return hasattr(pd.DataFrame, name) or hasattr(DataFrame, name)


class _SeriesTracer:
    """Every group's values of one column at once; reductions give :class:`PerGroup` scalars."""

    def __init__(self, grouped: Any):
        self._grouped = grouped  # a SeriesGroupBy

    def __getattr__(self, name: str) -> Any:
        allowed = _REDUCTIONS.get(name)
        if allowed is None or self._grouped._obj.dtype not in _TRACED_DTYPES:
            raise Untraceable(name)

        def reduce(*args: Any, **kwargs: Any) -> PerGroup:
            if args or not set(kwargs) <= allowed:
                raise Untraceable(f"{name} arguments")
            python = _PYTHON_RESULTS.get(name, _NUMPY)
            if name in ("sum", "prod") and kwargs.get("min_count", 0) > 0:
                python = _PYTHON_WHERE_NAN  # a group short of min_count gives a Python nan
            return PerGroup(getattr(self._grouped, name)(**kwargs), python)

        return reduce

    def _paired(self, name: str, other: Any, **kwargs: Any) -> PerGroup:
        if not isinstance(other, _SeriesTracer) or other._grouped._keys is not self._grouped._keys:
            raise Untraceable(f"{name} with something other than a column of the group")
        # corr / cov are float64 for every int and float dtype, masked or not, per group as for a Series.
        if not all(_is_int_or_float(g._obj.dtype) for g in (self._grouped, other._grouped)):
            raise Untraceable(name)
        return PerGroup(getattr(self._grouped, name)(other._grouped._obj, **kwargs), _PYTHON_WHERE_NAN)

    def corr(self, other: Any, method: str = "pearson", min_periods: Any = None) -> PerGroup:
        if method != "pearson":
            raise Untraceable("corr method")
        return self._paired("corr", other, min_periods=min_periods)

    def cov(self, other: Any, min_periods: Any = None, ddof: int = 1) -> PerGroup:
        return self._paired("cov", other, min_periods=min_periods, ddof=ddof)

    def __len__(self) -> int:
        raise Untraceable("len")

    def __iter__(self):
        raise Untraceable("iter")


class PerGroup:
    """A scalar per group (a riptide Series over the group index): arithmetic with numbers and other PerGroup
    values is elementwise; anything that needs one Python value raises :class:`Untraceable`.

    ``python`` says where pandas' per-group scalars are Python numbers rather than NumPy scalars
    (``_NUMPY``, ``_PYTHON_WHERE_NAN`` or ``_PYTHON``).
    """

    def __init__(self, series: Any, python: int = _NUMPY):
        self.series = series
        self.python = python

    def _combine(self, other: Any, op: Any, reflected: bool = False) -> PerGroup:
        if isinstance(other, PerGroup):
            other_kind, other_python, other_value = other.series.dtype.kind, other.python, other.series
        elif isinstance(other, _LITERALS):
            other_kind = np.asarray(other).dtype.kind
            other_python = _NUMPY if isinstance(other, np.generic) else _PYTHON
            other_value = other
        else:
            raise Untraceable(f"{op.__name__} with {type(other).__name__}")
        kind = self.series.dtype.kind
        comparison = op in _COMPARISONS
        if op in _INT_SENSITIVE and other_kind in "iub" and kind in "iub":
            # NumPy int scalars floor-divide by zero to 0 and refuse negative powers; a column does neither.
            raise Untraceable(f"{op.__name__} of integers")
        if not comparison and kind == "b" and other_kind == "b":
            # np.bool_ - np.bool_ raises, True + True is 2 in Python and True in a bool column.
            raise Untraceable(f"{op.__name__} of booleans")
        python = min(self.python, other_python)  # Python arithmetic only where both scalars are Python numbers
        if python != _NUMPY and not comparison:
            divisor, divisor_python = (self, self.python) if reflected else (other, other_python)
            if op in _DIVISIONS and _may_be_python_zero(divisor, divisor_python):
                raise Untraceable(f"{op.__name__} of Python numbers by zero")  # ZeroDivisionError per group
            if op is operator.pow and python == _PYTHON:
                raise Untraceable("pow of Python numbers")  # complex results, ZeroDivisionError
        result = op(other_value, self.series) if reflected else op(self.series, other_value)
        return PerGroup(result, python)

    def __bool__(self) -> bool:
        raise Untraceable("bool")

    def __float__(self) -> float:
        raise Untraceable("float")

    def __int__(self) -> int:
        raise Untraceable("int")

    def __index__(self) -> int:
        raise Untraceable("index")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise Untraceable("array")

    def __neg__(self) -> PerGroup:
        if self.series.dtype.kind == "b":
            raise Untraceable("neg of booleans")  # NumPy raises, Python gives -1, a bool column inverts
        return PerGroup(-self.series, self.python)

    def __pos__(self) -> PerGroup:
        return self

    def __abs__(self) -> PerGroup:
        if self.series.dtype.kind == "b":
            raise Untraceable("abs of booleans")  # a Python bool's abs is an int
        return PerGroup(abs(self.series), self.python)

    def __getattr__(self, name: str) -> Any:
        raise Untraceable(name)

    __hash__ = None  # type: ignore[assignment]


def _may_be_python_zero(divisor: Any, python: int) -> bool:
    """Whether a per-group divisor may be a Python zero (a Python division by it raises ZeroDivisionError)."""
    if isinstance(divisor, PerGroup):
        return python == _PYTHON  # a _PYTHON_WHERE_NAN value is a Python number only where it is NaN
    return python == _PYTHON and divisor == 0


def _binary(op: Any) -> tuple[Any, Any]:
    def forward(self: PerGroup, other: Any) -> PerGroup:
        return self._combine(other, op)

    def reflected(self: PerGroup, other: Any) -> PerGroup:
        return self._combine(other, op, reflected=True)

    return forward, reflected


for _name, _op in [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul), ("truediv", operator.truediv),
                   ("floordiv", operator.floordiv), ("mod", operator.mod), ("pow", operator.pow)]:  # fmt: skip
    _forward, _reflected = _binary(_op)
    setattr(PerGroup, f"__{_name}__", _forward)
    setattr(PerGroup, f"__r{_name}__", _reflected)
for _name, _op in [("lt", operator.lt), ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge),
                   ("eq", operator.eq), ("ne", operator.ne)]:  # fmt: skip
    setattr(PerGroup, f"__{_name}__", _binary(_op)[0])
