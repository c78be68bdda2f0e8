"""Binary operators on columns: arithmetic, comparison and logical, with pandas' dtype rules.

``binary_op(left, right, "add")`` takes two equal-length columns, or a column and a
scalar; ``reflected=True`` computes ``right <op> left`` (for ``2 - s``). ``left`` is always
the column of the Series the operator was called on.

pandas' rules depend on which operand does the work, and riptide follows the same dispatch:

* numpy dtypes on both sides: NumPy's ufunc and promotion, then pandas' fixes: integer
  ``x // 0`` is +-inf and ``x % 0`` NaN (float64), ``bool / bool`` is an error, ``== None`` is
  False. A NumPy number scalar counts as a Python scalar in arithmetic (``uint8 + np.int8(3)``
  is uint8), as pandas converts it first; comparisons keep it as NumPy does.
* a masked operand (Int64, Float64, boolean) does the work when there is one: the result is
  masked where either side is missing (NaN in a numpy float operand counts as missing), a NaN
  the arithmetic produces is missing too, ``1 ** NA`` and ``NA ** 0`` are 1, and ``pd.NA``
  makes every row missing.
* ``& | ^``: bitwise for two integers, else logical with a bool result; a boolean operand
  applies Kleene logic (``True | NA`` is True). With a float column pandas goes row by row and
  raises for a row without a NaN, so an empty or all-NaN float side gives a (False) result.
* a masked row is read as the value pandas' constructors store under the mask (1, NaN, False)
  where pandas' rules look at stored values (``//``'s zero test, ``&`` with floats).
* datetimes and timedeltas: :mod:`riptide.core.ops.temporal`.
* ``str``: comparisons with a missing value are False (``!=`` True); ``+`` concatenates.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pandas as pd

from riptide.core import dtypes
from riptide.core.kernels import numpy_compat
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn
from riptide.core.kernels import strings as string_kernels
from riptide.core.ops import fusion, temporal
from riptide.core.ops.missing import is_missing_scalar

__all__ = ["ARITHMETIC", "COMPARISON", "LOGICAL", "SYMBOLS", "binary_op"]

ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow")
COMPARISON = ("eq", "ne", "lt", "le", "gt", "ge")
LOGICAL = ("and", "or", "xor")
SYMBOLS = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
    "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "and": "&", "or": "|", "xor": "^",
}  # fmt: skip

UFUNC_NAMES = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide", "floordiv": "floor_divide",
    "mod": "remainder", "pow": "power", "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
    "gt": "greater", "ge": "greater_equal", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
}  # fmt: skip
_SWAPPED_COMPARISON = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def binary_op(left: Column, right: Any, op: str, reflected: bool = False) -> Column:
    """``left <op> right`` (or ``right <op> left`` when ``reflected``) as a new column."""
    if op not in UFUNC_NAMES:
        raise ValueError(f"unknown operator {op!r}; expected one of {', '.join(UFUNC_NAMES)}")
    if reflected and op in COMPARISON:
        op, reflected = _SWAPPED_COMPARISON[op], False
    if op in ARITHMETIC:
        right = python_scalar(right)
    if isinstance(left, CategoricalColumn) or isinstance(right, CategoricalColumn):
        return _categorical(left, right, op, reflected)
    if isinstance(right, str) and temporal.involves(left, None):  # a date string compared with datetimes
        return temporal.binary_op(left, right, op, reflected)
    if isinstance(left, StringColumn) or isinstance(right, StringColumn | str):
        return _string(left, right, op, reflected)
    if temporal.involves(left, right):
        return temporal.binary_op(left, right, op, reflected)
    deferred = fusion.try_defer(left, right, op, reflected)  # GPU: chains of operators become one kernel
    if deferred is not None:
        return deferred
    if isinstance(right, Column) and not isinstance(right, NumericColumn):
        raise unsupported(left, right, op, reflected)
    if op in LOGICAL:
        return _logical(left, right, op, reflected)
    if dtypes.is_masked(left.dtype) or (isinstance(right, Column) and dtypes.is_masked(right.dtype)):
        return _masked(left, right, op, reflected)
    return _plain(left, right, op, reflected)


def python_scalar(value: Any) -> Any:
    """A NumPy integer / float scalar as the Python number (pandas' ``maybe_prepare_scalar_for_op``).

    So it promotes as a weak scalar: ``uint8 + np.int8(3)`` is uint8 and ``bool + np.int8(3)`` int64.
    """
    if isinstance(value, np.integer) and not isinstance(value, np.timedelta64):  # timedelta64 is an integer type
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


# --- errors ------------------------------------------------------------------------------
def describe(operand: Any) -> str:
    if isinstance(operand, Column):
        return f"dtype '{operand.dtype}'"
    return f"object of type {type(operand).__name__!r}"


def unsupported(left: Any, right: Any, op: str, reflected: bool) -> TypeError:
    a, b = (right, left) if reflected else (left, right)
    return TypeError(f"unsupported operand for {SYMBOLS[op]}: {describe(a)} and {describe(b)}")


def invalid_comparison(left: Any, right: Any, op: str, xp: Any, size: int, missing: Any = None) -> Column:
    """Values that cannot be ordered against each other: ``==`` is all False, ``!=`` all True, ``<`` raises.

    ``missing`` (rows of a masked operand) makes the result boolean, missing there, as pandas' masked arrays do.
    """
    if op not in ("eq", "ne"):
        raise TypeError(f"Invalid comparison between {describe(left)} and {describe(right)}")
    values = xp.full(size, op == "ne")
    if missing is None:
        return NumericColumn(values)
    return NumericColumn(values, pd.BooleanDtype(), ~missing)


# --- operands ------------------------------------------------------------------------------
def _values(operand: Any) -> Any:
    """The array of a column (its storage), or the scalar itself."""
    return operand.data if isinstance(operand, NumericColumn) else operand


def _is_array(value: Any) -> bool:
    """A NumPy / CuPy array (a NumPy scalar has a shape too, but is a scalar operand)."""
    return hasattr(value, "shape") and not isinstance(value, np.generic)


def kind_of(value: Any) -> str:
    """NumPy kind of an array or a scalar operand ('b' for a Python bool, 'i' for an int...)."""
    dtype = getattr(value, "dtype", None)
    return (dtype if dtype is not None else np.result_type(value)).kind


def _missing_of(operand: Any, xp: Any) -> Any:
    """Rows a masked operation treats as missing in ``operand``: the mask, or NaN in a numpy float column
    (pandas' ``isna(other)``); None when there are none. Scalars count as present (``pd.NA`` is handled apart)."""
    if not isinstance(operand, NumericColumn):
        return None
    if dtypes.is_masked(operand.dtype):
        return None if operand.mask is None else ~operand.mask
    return xp.isnan(operand.data) if operand.kind == "f" else None


def _either(a: Any, b: Any) -> Any:
    if a is None:
        return b
    return a if b is None else a | b


def _not_nan(value: Any, xp: Any) -> Any:
    """True where a value is a number (not NaN); a Python bool for a scalar."""
    if kind_of(value) != "f":
        return True
    return ~xp.isnan(value) if _is_array(value) else not np.isnan(value)


@contextlib.contextmanager
def quiet(xp: Any):
    """NumPy warns on division by zero and NaN comparisons; pandas does not, and neither does CuPy."""
    if xp is np:
        with np.errstate(all="ignore"):
            yield
    else:
        yield


# --- arithmetic values (shared by numpy and masked operands) ----------------------------------
def _arithmetic_values(op: str, a: Any, b: Any, xp: Any, b_missing: Any = None) -> Any:
    """``a <op> b`` with NumPy's promotion and NumPy's errors, the same on CuPy; a and b are arrays or
    Python scalars (weak, NEP 50). ``b_missing`` marks rows whose value is not real (masked)."""
    if op != "truediv":  # true division converts a Python int to float64 first
        for array, scalar in ((a, b), (b, a)):
            _check_python_int(array, scalar)
    if op == "pow":
        _check_integer_power(a, b, xp, b_missing)
    with quiet(xp):
        values = numpy_compat.ufunc(UFUNC_NAMES[op], xp)(a, b)
    return values


def _check_python_int(array: Any, scalar: Any) -> None:
    """NumPy 2 raises OverflowError when a Python int does not fit the integer array it meets (CuPy may wrap)."""
    if type(scalar) is not int or not _is_array(array) or array.dtype.kind not in "iub":
        return
    target = array.dtype if array.dtype.kind in "iu" else np.dtype(np.int64)
    info = np.iinfo(target)
    if not info.min <= scalar <= info.max:
        raise OverflowError(f"Python integer {scalar} out of bounds for {target}")


def _check_integer_power(a: Any, b: Any, xp: Any, b_missing: Any) -> None:
    """An integer result cannot hold ``x ** -n``: NumPy raises ValueError (CuPy would return garbage)."""
    if kind_of(a) not in "biu" or kind_of(b) not in "biu":
        return
    if np.result_type(*(x.dtype if _is_array(x) else x for x in (a, b))).kind not in "iu":
        return  # uint64 ** int64 is float64: negative exponents are fine
    if any(_is_array(x) and x.size == 0 for x in (a, b)):
        return  # NumPy checks the elements: an empty operand raises nothing
    if not _is_array(b):
        negative = b < 0
    else:
        below = b < 0 if b_missing is None else (b < 0) & ~b_missing
        negative = bool(xp.any(below))  # one scalar read: an error that depends on the data
    if negative:
        raise ValueError("Integers to negative integer powers are not allowed.")


def _check_bool_arithmetic(op: str, a: Any, b: Any) -> None:
    """Arithmetic refused between two bools: ``/ // **`` by pandas (NumPy would compute them), ``-`` by NumPy."""
    if kind_of(a) != "b" or kind_of(b) != "b":
        return
    if op in ("truediv", "floordiv", "pow"):
        raise NotImplementedError(f"operator '{op}' not implemented for bool dtypes")
    if op == "sub":
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, "
                        "use the bitwise_xor, the `^` operator, or the logical_xor function instead.")  # fmt: skip


def _division_by_zero(op: str, a: Any, b: Any, values: Any, xp: Any, a_missing: Any = None,
                      b_missing: Any = None) -> Any:  # fmt: skip
    """pandas' division by zero: ``x // 0`` is +-inf and ``0 // 0`` NaN, ``x % 0`` NaN, in float64.

    NumPy gives 0 for integers and keeps float32; pandas casts to float64 only when some row
    actually divides by zero, so the result dtype depends on the data (one scalar read).
    ``a_missing`` / ``b_missing`` are masked rows. pandas checks the values stored under a mask
    too; riptide reads a masked row as the value pandas stores there (1 in an integer array, NaN in
    a float one, False in a boolean one), so a missing boolean divisor is a division by zero
    (``1 // pd.array([True, None])`` is Float64) and a missing integer one is not.
    """
    if op == "floordiv":
        if values.dtype == np.float64:
            return values  # NumPy already gives the same +-inf / NaN
        hits = _is_zero(b, xp) & _not_nan(a, xp)
        if b_missing is not None and kind_of(b) == "b":
            hits = hits | (b_missing & _not_nan(a, xp))  # pandas' stored False
            b_missing = None
        if a_missing is not None and kind_of(a) == "f":
            hits = hits & ~a_missing
        if not _is_array(hits):
            hits = hits and values.shape[0] > 0  # pandas checks the rows: an empty column divides nothing
    else:
        if values.dtype.kind == "f" or kind_of(b) not in "iu":
            return values  # pandas leaves floats, and a bool divisor (int % False is 0), to NumPy
        hits = _is_zero(b, xp)
    if b_missing is not None:
        hits = hits & ~b_missing
    if not (bool(xp.any(hits)) if _is_array(hits) else hits):  # one scalar read: the dtype depends on it
        return values
    result = values.astype(np.float64)
    zero = _is_zero(b, xp)
    if op == "mod":
        return numpy_compat.where(xp, zero, xp.nan, result)
    numerator = xp.asarray(a).astype(np.float64)
    positive = xp.inf if kind_of(b) != "f" else numpy_compat.where(xp, xp.signbit(xp.asarray(b)), -xp.inf, xp.inf)
    special = numpy_compat.where(xp, numerator > 0, positive, numpy_compat.where(xp, numerator < 0, -positive, xp.nan))
    return numpy_compat.where(xp, zero & ~xp.isnan(numerator), special, result)


def _is_zero(value: Any, xp: Any) -> Any:
    return value == 0 if _is_array(value) else bool(value == 0)


# --- numpy dtypes on both sides ---------------------------------------------------------------
def _plain(left: NumericColumn, right: Any, op: str, reflected: bool) -> Column:
    xp = left.xp
    if op in COMPARISON:
        if is_missing_scalar(right):  # pandas: comparing with a missing scalar is False (!= True)
            return NumericColumn(xp.full(left.size, op == "ne"))
        with quiet(xp):
            return NumericColumn(numpy_compat.ufunc(UFUNC_NAMES[op], xp)(left.data, _values(right)))
    if right is pd.NA:
        if op == "floordiv" or (op == "mod" and reflected and left.kind in "iu"):
            raise TypeError("boolean value of NA is ambiguous")  # pandas' zero-division check meets NA
        # pandas returns an object Series of NA here; riptide has no object dtype: a masked all-NA result.
        return _with_na(left, op, reflected)
    if right is None:
        raise unsupported(left, right, op, reflected)
    a, b = (_values(right), left.data) if reflected else (left.data, _values(right))
    _check_bool_arithmetic(op, a, b)
    try:
        values = _arithmetic_values(op, a, b, xp)
    except TypeError as exc:
        raise unsupported(left, right, op, reflected) from exc
    if op in ("floordiv", "mod"):
        values = _division_by_zero(op, a, b, values, xp)
    if not hasattr(values, "shape") or values.shape == ():
        values = xp.full(left.size, values)
    return NumericColumn(values)


# --- masked dtypes --------------------------------------------------------------------------
def _masked(left: NumericColumn, right: Any, op: str, reflected: bool) -> Column:
    """pandas' BaseMaskedArray arithmetic and comparison; the masked operand does the work (``self``)."""
    xp = left.xp
    left_is_self = dtypes.is_masked(left.dtype)
    me, other = (left, right) if left_is_self else (right, left)
    # The operation is A <op> B; ``self`` is A unless it is reflected from self's point of view.
    self_is_first = left_is_self != reflected
    if other is pd.NA:
        return _with_na(me, op, not self_is_first)
    if other is None:
        if op in ("eq", "ne"):  # NumPy compares with None elementwise: all False
            return NumericColumn(xp.full(me.size, op == "ne"), pd.BooleanDtype(), me.mask)
        raise TypeError(f"'{SYMBOLS[op]}' not supported between instances of {describe(me)} and 'NoneType'")
    missing = _either(_missing_of(me, xp), _missing_of(other, xp))
    if op in COMPARISON:
        a, b = (me.data, _values(other)) if self_is_first else (_values(other), me.data)
        with quiet(xp):
            values = numpy_compat.ufunc(UFUNC_NAMES[op], xp)(a, b)
        return _masked_result(values, missing, xp)

    a_col, b_col = (me, other) if self_is_first else (other, me)
    a, b = _values(a_col), _values(b_col)
    a_missing, b_missing = _missing_of(a_col, xp), _missing_of(b_col, xp)
    _check_bool_arithmetic(op, a, b)
    try:
        values = _arithmetic_values(op, a, b, xp, b_missing)
    except TypeError as exc:
        raise unsupported(left, right, op, reflected) from exc
    # pandas divides a masked integer ``self`` by NumPy's rules (x // 0 is 0); every other case gets
    # the zero fill of numpy dtypes, even ``int64 // Int64`` (computed as Int64.__rfloordiv__).
    if op in ("floordiv", "mod") and not (me.kind in "iu" and self_is_first):
        values = _division_by_zero(op, a, b, values, xp, a_missing, b_missing)
    if op == "pow" and missing is not None:
        missing = _pow_defined(a, b, a_missing, b_missing, missing, xp)
    if not hasattr(values, "shape") or values.shape == ():
        values = xp.full(me.size, values)
    return _masked_result(values, missing, xp)


def _masked_result(values: Any, missing: Any, xp: Any) -> NumericColumn:
    """A masked column; a NaN the arithmetic produced is missing too (pandas 3: NaN is NA in masked floats)."""
    if values.dtype.kind == "f":
        missing = _either(missing, xp.isnan(values))
    return NumericColumn(values, dtypes.to_masked(values.dtype), None if missing is None else ~missing)


def _with_na(me: NumericColumn, op: str, reflected: bool) -> Column:
    """``me <op> pd.NA``: every row missing, in the dtype pandas computes (ones of self's dtype) —
    except ``1 ** NA`` and ``NA ** 0``, which are 1."""
    xp = me.xp
    dtype = dtypes.storage_dtype(me.dtype)
    if op in COMPARISON:
        return NumericColumn(xp.zeros(me.size, dtype=bool), pd.BooleanDtype(), xp.zeros(me.size, dtype=bool))
    if dtype.kind == "b":
        if op in ("truediv", "floordiv", "pow"):
            raise NotImplementedError(f"operator '{op}' not implemented for bool dtypes")
        dtype = np.dtype(np.int8) if op == "mod" else dtype
    elif op == "truediv" and dtype.kind != "f":
        dtype = np.dtype(np.float64)
    missing = xp.ones(me.size, dtype=bool)
    if op == "pow":
        own_missing = _missing_of(me, xp)
        base, exponent = (None, me.data) if reflected else (me.data, None)
        base_missing, exponent_missing = (True, own_missing) if reflected else (own_missing, True)
        missing = _pow_defined(base, exponent, base_missing, exponent_missing, missing, xp)
    return NumericColumn(xp.ones(me.size, dtype=dtype), dtypes.to_masked(dtype), ~missing)


def _pow_defined(base: Any, exponent: Any, base_missing: Any, exponent_missing: Any, missing: Any, xp: Any) -> Any:
    """``1 ** x`` and ``x ** 0`` are 1 even where x is missing (pandas); ``True`` marks an all-missing (NA) side."""
    defined = False
    for values, own_missing, unit in ((base, base_missing, 1), (exponent, exponent_missing, 0)):
        if own_missing is True or values is None:
            continue
        hit = xp.asarray(values) == unit
        if own_missing is not None:
            hit = hit & ~own_missing
        defined = defined | hit
    return missing & ~defined


# --- logical operators ------------------------------------------------------------------------
def _logical(left: NumericColumn, right: Any, op: str, reflected: bool) -> Column:
    """``& | ^``. pandas dispatches to the masked operand when there is one (``left`` first)."""
    xp = left.xp
    if dtypes.is_masked(left.dtype) or (isinstance(right, NumericColumn) and dtypes.is_masked(right.dtype)):
        me, other = (left, right) if dtypes.is_masked(left.dtype) else (right, left)
        if me.kind == "b":
            return _kleene(me, other, op, xp)
        if other is pd.NA:  # an Int64 / Float64 ``self``: pandas' arithmetic path, all missing
            return _with_na(me, "add", False)
        if reflected and isinstance(other, np.bool_):
            # pandas computes ``np.True_ & s`` as NumPy's ufunc on the scalar and an Int64 / Float64
            # array, which declines it: TypeError (``s & np.True_`` and ``True & s`` work)
            raise unsupported(left, right, op, reflected)
        # pandas' arithmetic path again: a NumPy number scalar is a (weak) Python one
        x, y = _logical_operand(me), python_scalar(_logical_operand(other))
        values = _logical_values(x, y, op, xp, left, right, reflected)
        missing = _either(_missing_of(me, xp), _missing_of(other, xp))
        return NumericColumn(values, dtypes.to_masked(values.dtype), None if missing is None else ~missing)
    if right is pd.NA:  # NumPy values & NA: pandas fills the NA results with False
        return NumericColumn(xp.zeros(left.size, dtype=bool))
    return NumericColumn(_logical_values(left.data, _values(right), op, xp, left, right, reflected))


def _logical_operand(operand: Any) -> Any:
    """The values pandas' ``logical_op`` sees: a masked float column holds NaN under its mask
    (what pandas stores there), so its missing rows take the NaN path of :func:`_float_logical`."""
    if isinstance(operand, NumericColumn) and operand.kind == "f" and dtypes.is_masked(operand.dtype):
        return operand.values_or(np.nan)
    return _values(operand)


def _logical_values(x: Any, y: Any, op: str, xp: Any, left: Any, right: Any, reflected: bool) -> Any:
    """pandas' ``logical_op`` on NumPy values: bitwise for int & int, else cast to bool.

    ``x`` is the values of the operand pandas calls the method on (the masked one when there is
    one), ``y`` the other's. A float column on the other side of a bool one counts as bool (NaN is
    False); other floats: :func:`_float_logical`. A float scalar and None raise TypeError (None
    not on an empty column).
    """
    y_is_int = kind_of(y) in "iu" and not isinstance(y, bool | np.bool_)
    if _is_array(y) and y.dtype.kind == "f" and x.dtype.kind == "b":
        y = (y != 0) & ~xp.isnan(y)
    if _is_array(y) and (x.dtype.kind == "f" or (x.dtype.kind in "iu" and y.dtype.kind == "f")):
        return _float_logical(x, y, op, xp, left, right, reflected)
    if _is_array(y) and x.dtype.kind in "iu" and y.dtype.kind in "iu" and (
            np.result_type(x.dtype, y.dtype).kind == "f"):  # fmt: skip
        # a signed integer and uint64 have no common integer type: pandas computes Python ints row by row,
        # an object result riptide has no dtype for (an empty one is bool)
        if x.shape[0] == 0:
            return xp.zeros(0, dtype=bool)
        error = unsupported(left, right, op, reflected)
        raise TypeError(f"{error} (pandas gives Python integers: an object column, which riptide does not have)")
    _check_python_int(x, y)  # before the kind check: a Python int beyond uint64 has NumPy kind 'O'
    if x.dtype.kind not in "biu" or kind_of(y) not in "biu":
        if y is None and x.shape[0] == 0:
            return xp.zeros(0, dtype=bool)  # pandas meets None row by row: no row, no error
        if not _is_array(y):
            raise TypeError(f"Cannot perform '{op}_' with a dtyped [{x.dtype}] array and scalar of type "
                            f"[{type(y).__name__}]")  # fmt: skip
        raise unsupported(left, right, op, reflected)
    values = numpy_compat.ufunc(UFUNC_NAMES[op], xp)(x, y)
    if not hasattr(values, "shape") or values.shape == ():
        values = xp.full(x.shape[0], values)
    if not (x.dtype.kind in "iu" and y_is_int):
        values = values.astype(bool)
    return values


def _float_logical(x: Any, y: Any, op: str, xp: Any, left: Any, right: Any, reflected: bool) -> Any:
    """``& | ^`` with a float column: NumPy refuses, so pandas goes row by row in Python objects
    after reading NaN in ``y`` as False. A row raises TypeError unless a NaN is in it: a float ``x``
    that is not NaN raises whatever ``y`` is; an integer ``x`` raises where ``y`` is not NaN. Without
    such a row (an empty column, all NaN) the result is bool: NaN rows are False, and an integer
    ``x`` meets False (``x | False`` is ``x != 0``)."""
    blocking = x if x.dtype.kind == "f" else y
    if bool(xp.any(~xp.isnan(blocking))):  # one scalar read: an error that depends on the data
        raise unsupported(left, right, op, reflected)
    if x.dtype.kind == "f" or op == "and":
        return xp.zeros(x.shape[0], dtype=bool)
    return x != 0


def _kleene(me: NumericColumn, other: Any, op: str, xp: Any) -> Column:
    """boolean ``& | ^`` (pandas' ``kleene_and`` / ``kleene_or`` / ``kleene_xor``): ``False & NA`` is False,
    ``True | NA`` is True, anything else with NA is NA. The other side is read as bool."""
    x, x_missing = me.data, _missing_of(me, xp)
    y, y_missing = _as_kleene_operand(other, xp)
    values = numpy_compat.ufunc(UFUNC_NAMES[op], xp)(x, y)
    if not hasattr(values, "shape") or values.shape == ():
        values = xp.full(me.size, values)
    missing = _either(x_missing, y_missing)
    if missing is not None and op != "xor":
        decided = op == "or"  # the value that settles the result whatever the other side is
        for v, m in ((x, x_missing), (y, y_missing)):
            if m is True:  # pd.NA settles nothing
                continue
            settles = xp.asarray(v) == decided
            if m is not None:
                settles = settles & ~m
            missing = missing & ~settles
    if isinstance(missing, bool):
        missing = xp.full(me.size, missing)
    return NumericColumn(values, pd.BooleanDtype(), None if missing is None else ~missing)


def _as_kleene_operand(other: Any, xp: Any) -> tuple[Any, Any]:
    """(bool values, missing) of what a boolean array meets in ``& | ^``."""
    if other is pd.NA:
        return False, True
    if isinstance(other, NumericColumn):
        if other.dtype == pd.BooleanDtype() or not dtypes.is_masked(other.dtype):
            values = other.data if other.kind == "b" else other.data.astype(bool)  # NaN is True, as in NumPy
            return values, _missing_of(other, xp) if other.kind == "b" else None
        missing = _missing_of(other, xp)
        if missing is not None and bool(xp.any(missing)):  # one scalar read: an error that depends on the data
            raise ValueError("cannot convert to 'bool'-dtype NumPy array with missing values. "
                             "Specify an appropriate 'na_value' for this dtype.")  # fmt: skip
        return other.data.astype(bool), None
    if isinstance(other, bool | np.bool_):
        return bool(other), None
    raise TypeError(f"'other' should be pandas.NA or a bool. Got {type(other).__name__} instead.")


# --- strings ------------------------------------------------------------------------------
def _string(left: Any, right: Any, op: str, reflected: bool) -> Column:
    xp = left.xp
    if not isinstance(left, StringColumn) or not isinstance(right, StringColumn | str):
        if op in ("eq", "ne"):
            # a string never equals a number (or a missing value): pandas answers without comparing, and a
            # masked number on the left keeps its missing rows
            masked_left = isinstance(left, NumericColumn) and dtypes.is_masked(left.dtype)
            missing = (_missing_of(left, xp) if left.mask is not None else xp.zeros(left.size, dtype=bool)) if (
                masked_left) else None  # fmt: skip
            return invalid_comparison(left, right, op, xp, left.size, missing)
        if isinstance(left, StringColumn) and is_missing_scalar(right):
            if op in COMPARISON:  # comparisons with a missing value are False
                return NumericColumn(xp.full(left.size, op == "ne"))
            if op == "add":  # concatenating a missing value gives missing values
                return left.take_or_missing(xp.full(left.size, -1, dtype=np.int64))
        if op in COMPARISON and isinstance(left, StringColumn):
            raise TypeError(f"Invalid comparison between dtype=str and {type(right).__name__}")
        raise unsupported(left, right, op, reflected)
    if op == "add":
        first, second = (right, left) if reflected else (left, right)
        return string_kernels.concatenate(first, second, xp)
    if op not in COMPARISON:
        raise unsupported(left, right, op, reflected)
    order = string_kernels.compare(left, right, xp)  # -1, 0, 1 per row
    values = numpy_compat.ufunc(UFUNC_NAMES[op], xp)(order, 0)
    missing = left.isna() if left.mask is not None else None
    if isinstance(right, StringColumn) and right.mask is not None:
        missing = right.isna() if missing is None else missing | right.isna()
    if missing is not None:
        values = numpy_compat.where(xp, missing, op == "ne", values)
    return NumericColumn(values)


# --- categoricals ---------------------------------------------------------------------------
def _categorical(left: Any, right: Any, op: str, reflected: bool) -> Column:
    from riptide.core.ops.cast import decode_categorical

    if op not in COMPARISON:
        raise TypeError(f"Series cannot perform the operation {SYMBOLS[op]} on a categorical")
    if isinstance(left, CategoricalColumn) and isinstance(right, CategoricalColumn) and left.dtype != right.dtype:
        raise TypeError("Categoricals can only be compared if 'categories' are the same.")
    for side in (left, right):
        if isinstance(side, CategoricalColumn) and not side.ordered and op not in ("eq", "ne"):
            raise TypeError("Unordered Categoricals can only compare equality or not")
    if isinstance(left, CategoricalColumn) and left.ordered and op not in ("eq", "ne"):
        return _ordered_categorical(left, right, op)
    plain_left = decode_categorical(left) if isinstance(left, CategoricalColumn) else left
    plain_right = decode_categorical(right) if isinstance(right, CategoricalColumn) else right
    return binary_op(plain_left, plain_right, op, reflected)


def _ordered_categorical(left: CategoricalColumn, right: Any, op: str) -> Column:
    xp = left.xp
    if isinstance(right, CategoricalColumn):
        right_codes = right.codes
    else:
        categories = left.dtype.categories
        if right not in categories:
            raise TypeError(f"Invalid comparison between dtype=category and {type(right).__name__}")
        right_codes = int(categories.get_loc(right))
    values = numpy_compat.ufunc(UFUNC_NAMES[op], xp)(left.codes, right_codes)
    missing = left.codes < 0
    if isinstance(right, CategoricalColumn):
        missing = missing | (right.codes < 0)
    return NumericColumn(numpy_compat.where(xp, missing, False, values))
