"""The operations of the IR, each with its semantics written twice: for arrays (NumPy/CuPy) and as CUDA C.

Every operation returns a value *and* an error condition: the rows where Python (or NumPy, for NumPy scalars)
would raise instead of returning a number, or would return something a column cannot hold (a Python int beyond
int64, a complex number). A compiled function never turns such a row into a silent number: when any row flags an
error, the caller re-runs the whole function through pandas on the host, which raises pandas' exception (or gives
pandas' object result). The conditions follow CPython's own code:

* Python ``int`` ``+ - *``, unary ``-``, ``abs``, ``**``: the exact result must fit int64 (Python would give a big
  int, which pandas stores as uint64 or object). ``//`` and ``%`` by zero raise ZeroDivisionError; ``//`` and
  ``%`` floor (the remainder takes the divisor's sign).
* Python ``float``: ``/``, ``//`` and ``%`` by zero raise; ``//`` and ``%`` use CPython's ``divmod`` algorithm
  (fmod, then a sign correction, then a floor rounded to the nearest integer); ``**`` raises for ``0.0 ** negative``
  and for a finite result overflowing, and gives a complex number for a negative base to a non-integer power.
* ``int / int`` and comparisons of an int with a float convert the int exactly only up to 2**53; larger ints flag
  (Python computes those exactly, a double would round).
* ``math`` functions follow CPython's ``math_1``/``math_2`` rule: a NaN result from non-NaN arguments is a
  ValueError, an infinite result from finite arguments an OverflowError (or ValueError: either way, an error).
* ``int(x)``, ``round(x)``, ``math.floor/ceil/trunc`` of a float: NaN and infinities raise; results beyond int64 flag.
* NumPy scalars (``np.int64``, ``np.float64``) compute as NumPy does: integers wrap, ``x // 0`` and ``x % 0``
  are 0, float division by zero gives inf/NaN; only ``np.int64 ** negative`` raises (ValueError). NumPy's math
  functions (``np.log(0.0)`` is ``-inf``, ``np.sqrt(-1.0)`` NaN) never raise: their nodes have a NumPy type.
* ``round(x, n)`` of a Python float is CPython's correctly rounded decimal rounding (``round(2.675, 2) == 2.67``:
  the double 2.675 is slightly below the tie). CPython formats the exact binary value to ``n`` decimals (half to
  even) and parses the digits back; ``round_digits`` gets the same double without strings: the exact product
  ``x * 10**n`` is ``hi + lo`` (an error-free product: ``fma`` in CUDA, Dekker's split on arrays), which decides
  the nearest integer ``m`` exactly, ties included, and ``m / 10**n`` is one correctly rounded division of two
  exact doubles (for ``n <= 22``, where ``10**n`` is exact, and ``|m| < 2**52``). Negative ``n`` compares ``x``
  with ``(m +- 0.5) * 10**-n`` exactly the same way, and gives ``m * 10**-n``. Rows outside those ranges whose
  answer is not simply ``x`` (``|x * 10**n|`` beyond 2**55) or a signed zero flag the error and run on the host.

The CUDA versions compute the same values with the same guards; helpers too long for one expression live in
:data:`PREAMBLE`. Only C99/CUDA math names are used (``sqrt``, ``rint``, ``fmod``, ``copysign``, ...), so the
generated source also compiles as host C++ (the tests run it there against the array versions).
"""

from __future__ import annotations

import math
import sys
import types
from typing import Any, Callable

import numpy as np

__all__ = ["MATH1", "MATH2", "PREAMBLE", "xp_op", "c_op", "can_fail"]

_MIN64 = -(2**63)
_EXACT = 2**53

#: math.<name> of one float argument -> (NumPy function name, C function name)
MATH1 = {
    "sqrt": ("sqrt", "sqrt"), "exp": ("exp", "exp"), "log": ("log", "log"), "log10": ("log10", "log10"),
    "log2": ("log2", "log2"), "log1p": ("log1p", "log1p"), "expm1": ("expm1", "expm1"), "sin": ("sin", "sin"),
    "cos": ("cos", "cos"), "tan": ("tan", "tan"), "asin": ("arcsin", "asin"), "acos": ("arccos", "acos"),
    "atan": ("arctan", "atan"), "sinh": ("sinh", "sinh"), "cosh": ("cosh", "cosh"), "tanh": ("tanh", "tanh"),
    "asinh": ("arcsinh", "asinh"), "acosh": ("arccosh", "acosh"), "atanh": ("arctanh", "atanh"),
    "fabs": ("fabs", "fabs"), "cbrt": ("cbrt", "cbrt"), "exp2": ("exp2", "exp2"), "erf": (None, "erf"),
    "erfc": (None, "erfc"), "gamma": (None, "tgamma"), "lgamma": (None, "lgamma"),
}  # fmt: skip
#: math.<name> of two float arguments -> (NumPy function name, C function name)
MATH2 = {"atan2": ("arctan2", "atan2"), "hypot": ("hypot", "hypot"), "copysign": ("copysign", "copysign"),
         "fmod": ("fmod", "fmod"), "pow": ("power", "pow")}  # fmt: skip


# --- CUDA helpers ---------------------------------------------------------------------------------------------------
PREAMBLE = r"""
// riptide UDF helpers: Python / NumPy scalar semantics (see riptide/core/udf/ops.py).
__device__ long long rt_mulhi(long long a, long long b) {
#ifdef __CUDA_ARCH__
    return __mul64hi(a, b);
#else
    return (long long)(((__int128)a * (__int128)b) >> 64);
#endif
}
__device__ long long rt_add_wrap(long long a, long long b) {
    return (long long)((unsigned long long)a + (unsigned long long)b);
}
__device__ long long rt_sub_wrap(long long a, long long b) {
    return (long long)((unsigned long long)a - (unsigned long long)b);
}
__device__ long long rt_mul_wrap(long long a, long long b) {
    return (long long)((unsigned long long)a * (unsigned long long)b);
}
__device__ bool rt_add_ovf(long long a, long long b) {
    long long r = rt_add_wrap(a, b);
    return ((a ^ r) & (b ^ r)) < 0;
}
__device__ bool rt_sub_ovf(long long a, long long b) {
    long long r = rt_sub_wrap(a, b);
    return ((a ^ b) & (a ^ r)) < 0;
}
__device__ bool rt_mul_ovf(long long a, long long b) {
    long long lo = rt_mul_wrap(a, b);
    return rt_mulhi(a, b) != (lo >> 63);
}
// floor division and modulo of integers (Python's; NumPy's too for b != 0); b == 0 gives 0
__device__ long long rt_ifloordiv(long long a, long long b) {
    if (b == 0) return 0;
    if (b == -1) return rt_sub_wrap(0, a);
    long long q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) q -= 1;
    return q;
}
__device__ long long rt_imod(long long a, long long b) {
    if (b == 0 || b == -1) return 0;
    long long r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
// a ** n for n >= 0 by squaring: the wrapped value (NumPy) and whether the exact value overflows (Python)
__device__ long long rt_ipow(long long a, long long n) {
    long long result = 1, base = a;
    while (n > 0) {
        if (n & 1) result = rt_mul_wrap(result, base);
        n >>= 1;
        if (n > 0) base = rt_mul_wrap(base, base);
    }
    return result;
}
__device__ bool rt_ipow_ovf(long long a, long long n) {
    long long result = 1, base = a;
    bool base_over = false;
    while (n > 0) {
        if (n & 1) {
            if (base_over || rt_mul_ovf(result, base)) return true;
            result = rt_mul_wrap(result, base);
        }
        n >>= 1;
        if (n > 0) {
            if (rt_mul_ovf(base, base)) base_over = true;
            base = rt_mul_wrap(base, base);
        }
    }
    return false;
}
// CPython's float divmod (Objects/floatobject.c); NumPy's npy_divmod agrees for b != 0
__device__ double rt_ffloordiv(double a, double b) {
    if (b == 0.0) return a / b;
    double mod = fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0.0) {
        if ((b < 0.0) != (mod < 0.0)) div -= 1.0;
    }
    double floordiv;
    if (div != 0.0) {
        floordiv = floor(div);
        if (div - floordiv > 0.5) floordiv += 1.0;
    } else {
        floordiv = copysign(0.0, a / b);
    }
    return floordiv;
}
__device__ double rt_fmod_py(double a, double b) {
    double mod = fmod(a, b);
    if (b == 0.0) return mod;
    if (mod != 0.0) {
        if ((b < 0.0) != (mod < 0.0)) mod += b;
    } else {
        mod = copysign(0.0, b);
    }
    return mod;
}
// errors of CPython's float ** (ZeroDivisionError, complex result, OverflowError)
__device__ bool rt_fpow_err(double a, double b, double r) {
    if (b == 0.0 || isnan(a) || isnan(b)) return false;
    if (a == 0.0 && b < 0.0) return true;
    if (a < 0.0 && isfinite(a) && isfinite(b) && floor(b) != b) return true;
    return isinf(r) && isfinite(a) && isfinite(b);
}
// a float that becomes a Python int (int(), round(), math.floor): NaN, inf and values beyond int64 flag
__device__ bool rt_toint_err(double t) {
    return !(t >= -9223372036854775808.0 && t < 9223372036854775808.0);
}
__device__ long long rt_toint(double t) {
    return rt_toint_err(t) ? 0 : (long long)t;
}
// the int of a value carried as a double that is an int on this row (exact: |t| <= 2**53)
__device__ long long rt_num_int(double t) {
    return (t > -4611686018427387904.0 && t < 4611686018427387904.0) ? (long long)t : 0;
}
// the even one of the integers a and a + 1 (doubles)
__device__ double rt_even_of(double a) {
    return fmod(a, 2.0) == 0.0 ? a : a + 1.0;
}
// CPython's round(x, n) for 0 <= n <= 22 (p = 10**n, exact): see riptide/core/udf/ops.py
__device__ double rt_round_pos(double x, double p, bool* err) {
    // (the caller handled infinities, NaN and the |x| for which the answer is x itself or a signed zero)
    double hi = x * p;
    if (fabs(hi) >= 4503599627370496.0) { *err = true; return x; }  // |x * 10**n| >= 2**52: the host
    double lo = fma(x, p, -hi);  // x * p == hi + lo exactly
    double r = rint(hi);
    double d = hi - r;  // exact
    double m = r;
    if (fabs(d) == 0.5 && lo != 0.0 && ((lo > 0.0) == (d > 0.0))) m = r + copysign(1.0, d);
    if (m == 0.0) return copysign(0.0, x);
    return m / p;
}
// CPython's round(x, n) for -22 <= n < 0 (p = 10**-n, exact)
__device__ double rt_round_neg(double x, double p, bool* err) {
    double q = x / p;
    if (fabs(q) >= 4503599627370496.0) { *err = true; return x; }
    double r = rint(q);
    double up = fma(r + 0.5, p, -x);  // sign of (r + 0.5) * p - x, exactly
    double dn = fma(r - 0.5, p, -x);
    double m = r;
    if (up < 0.0) m = r + 1.0;
    else if (up == 0.0) m = rt_even_of(r);
    else if (dn > 0.0) m = r - 1.0;
    else if (dn == 0.0) m = rt_even_of(r - 1.0);
    if (m == 0.0) return copysign(0.0, x);
    return m * p;
}
"""


# --- dispatch ----------------------------------------------------------------------------------------------------
def xp_op(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple[Any, Any]:
    """``(values, errors)`` of ``op`` over arrays; ``errors`` is a bool array or None (no row can fail)."""
    return _XP[_family(op)](op, xp, args, arg_types, node)


def c_op(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    """``(C expression, C error expression or None)`` of ``op`` over the C expressions ``args`` (plain names);
    ``@`` in the error expression stands for the variable holding the value."""
    return _C[_family(op)](op, args, arg_types, node)


def can_fail(node: Any) -> bool:
    """Whether ``node``'s own operation can flag an error for some row (used to skip the error output)."""
    _, err = c_op(node.op, [f"a{i}" for i in range(len(node.args))], [a.type for a in node.args], node)
    return err is not None


def _family(op: str) -> str:
    if op.startswith("m1_"):
        return "math1"
    if op.startswith("m2_"):
        return "math2"
    if op.startswith("np1_"):
        return "np1"
    return op


# --- array semantics -----------------------------------------------------------------------------------------------
def _python(arg_types: list[Any]) -> bool:
    return not any(t.numpy for t in arg_types)


def _xp_cast(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple[Any, Any]:
    (a,) = args
    if op == "bool_to_int":
        return a.astype(np.int64), None
    if op == "to_float":
        return a.astype(np.float64), None
    if op == "to_float_exact":
        return a.astype(np.float64), (a > _EXACT) | (a < -_EXACT)
    if op == "truth":
        return a != 0, None
    if op == "not":
        return ~a, None
    raise AssertionError(op)


def _xp_float_to_int(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple:
    (a,) = args
    t = {"trunc_int": xp.trunc, "round_int": xp.rint, "floor_int": xp.floor, "ceil_int": xp.ceil}[op](a)
    err = ~((t >= -9223372036854775808.0) & (t < 9223372036854775808.0))
    return xp.where(err, 0.0, t).astype(np.int64), err


def _xp_round_float(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple:
    return xp.rint(args[0]), None


def _xp_num_int(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple:
    (a,) = args
    return xp.where(xp.abs(a) < 2.0**62, a, 0.0).astype(np.int64), None


def _xp_wrap(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple:
    return args[0].astype(np.dtype(f"int{node.value}")).astype(np.int64), None


def _xp_np1(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple:
    return getattr(xp, op[4:])(args[0]), None


def _two_product_low(xp: types.ModuleType, a: Any, b: float, hi: Any) -> Any:
    """``lo`` with ``a * b == hi + lo`` exactly (Dekker's product: no fma in NumPy; exact without over/underflow)."""
    split = 134217729.0  # 2**27 + 1
    c = split * a
    a_hi = c - (c - a)
    a_lo = a - a_hi
    d = split * b
    b_hi = d - (d - b)
    b_lo = b - b_hi
    return ((a_hi * b_hi - hi) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


def _sign_of_product_minus(xp: types.ModuleType, h: Any, p: float, x: Any) -> Any:
    """The exact sign (-1, 0, 1; as floats) of ``h * p - x`` (what ``fma(h, p, -x)`` gives in CUDA)."""
    prod = h * p
    low = _two_product_low(xp, h, p, prod)
    return xp.sign((prod - x) + low)


def round_digits_thresholds(n: int) -> tuple[float, float]:
    """``(keep, zero)`` for ``round(x, n)``: ``|x| >= keep`` rounds to ``x`` itself (``|x * 10**n| >= 2**54``: the
    decimal step is below a quarter of x's ulp), ``|x| <= zero`` to a signed zero (``|x| < 10**-n / 2``)."""
    from fractions import Fraction

    keep_at = Fraction(2**54) * Fraction(10) ** -n
    keep = math.inf if keep_at > Fraction(sys.float_info.max) else float(keep_at)
    if keep != math.inf and Fraction(keep) < keep_at:
        keep = math.nextafter(keep, math.inf)
    zero_at = Fraction(10) ** -n / 2
    zero = float(zero_at) if zero_at <= Fraction(sys.float_info.max) else sys.float_info.max
    if Fraction(zero) >= zero_at:
        zero = math.nextafter(zero, 0.0)
    return keep, zero


def _xp_round_digits(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple:
    (x,) = args
    n = node.value
    finite = xp.isfinite(x)
    zero = xp.copysign(0.0, x)
    if n > 323:  # CPython: x itself
        return x, None
    if n < -308:  # CPython: 0.0 * x
        return xp.where(finite, zero, x), None
    keep, small = round_digits_thresholds(n)
    ax = xp.abs(x)
    simple = (ax >= keep) | (ax <= small) | ~finite  # x itself, or a signed zero
    simple_value = xp.where(ax <= small, zero, x)
    if n > 22 or n < -22:
        return simple_value, ~simple
    p = 10.0 ** abs(n)
    if n >= 0:
        hi = x * p
        lo = _two_product_low(xp, x, p, hi)
        r = xp.rint(hi)
        d = hi - r
        bump = (xp.abs(d) == 0.5) & (lo != 0) & ((lo > 0) == (d > 0))
        m = xp.where(bump, r + xp.copysign(1.0, d), r)
        out = xp.where(m == 0, zero, m / p)
        err = ~simple & (xp.abs(hi) >= 2.0**52)
        return xp.where(simple | err, simple_value, out), err
    q = x / p
    err = ~simple & (xp.abs(q) >= 2.0**52)
    r = xp.rint(xp.where(err | simple, 0.0, q))
    up = _sign_of_product_minus(xp, r + 0.5, p, x)
    dn = _sign_of_product_minus(xp, r - 0.5, p, x)
    even_up = xp.where(xp.fmod(r, 2.0) == 0, r, r + 1.0)
    even_dn = xp.where(xp.fmod(r - 1.0, 2.0) == 0, r - 1.0, r)
    m = xp.where(up < 0, r + 1.0, xp.where(up == 0, even_up, xp.where(dn > 0, r - 1.0, xp.where(dn == 0, even_dn, r))))
    out = xp.where(m == 0, zero, m * p)
    return xp.where(simple | err, simple_value, out), err


def _xp_int_arith(op: str, xp: types.ModuleType, a: Any, b: Any, python: bool) -> tuple[Any, Any]:
    if op == "add":
        r = a + b
        return r, (((a ^ r) & (b ^ r)) < 0) if python else None
    if op == "sub":
        r = a - b
        return r, (((a ^ b) & (a ^ r)) < 0) if python else None
    if op == "mul":
        r = a * b
        if not python:
            return r, None
        safe = xp.where(a == 0, 1, a)
        err = (a != 0) & (((r // safe) != b) | ((a == -1) & (b == _MIN64)) | ((b == -1) & (a == _MIN64)))
        return r, err
    zero = b == 0
    minus_one = b == -1
    safe = xp.where(zero | minus_one, 1, b)
    if op == "floordiv":
        r = xp.where(zero, 0, xp.where(minus_one, -a, a // safe))
        return r, (zero | (minus_one & (a == _MIN64))) if python else None
    if op == "mod":
        r = xp.where(zero | minus_one, 0, a % safe)
        return r, zero if python else None
    raise AssertionError(op)


def _xp_float_floordiv_mod(op: str, xp: types.ModuleType, a: Any, b: Any) -> Any:
    zero = b == 0
    mod = xp.fmod(a, b)
    if op == "mod":
        fix = (mod != 0) & ((b < 0) != (mod < 0))
        out = xp.where(fix, mod + b, xp.where(mod != 0, mod, xp.copysign(0.0, b)))
        return xp.where(zero, mod, out)
    div = (a - mod) / b
    div = xp.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1.0, div)
    floor = xp.floor(div)
    floor = xp.where(div - floor > 0.5, floor + 1.0, floor)
    out = xp.where(div != 0, floor, xp.copysign(0.0, a / b))
    return xp.where(zero, a / b, out)


def _xp_fpow_err(xp: types.ModuleType, a: Any, b: Any, r: Any) -> Any:
    live = (b != 0) & ~xp.isnan(a) & ~xp.isnan(b)
    finite = xp.isfinite(a) & xp.isfinite(b)
    complex_ = (a < 0) & finite & (xp.floor(b) != b)
    return live & (((a == 0) & (b < 0)) | complex_ | (xp.isinf(r) & finite))


def _xp_ipow(xp: types.ModuleType, a: Any, n: Any) -> tuple[Any, Any]:
    """``a ** n`` (n >= 0: a Python int, or an int64 array) by squaring: the wrapped values and the rows whose
    exact result overflows int64."""
    result = xp.ones_like(a)
    base = a
    over = xp.zeros(a.shape, dtype=bool)
    base_over = xp.zeros(a.shape, dtype=bool)
    bits = max(int(n).bit_length(), 1) if isinstance(n, int) else 63
    for bit in range(bits):
        take = ((n >> bit) & 1) == 1
        prod, ovf = _xp_int_arith("mul", xp, result, base, True)
        over = over | (take & (base_over | ovf))
        result = xp.where(take, prod, result)
        if bit + 1 < bits:
            square, ovf = _xp_int_arith("mul", xp, base, base, True)
            base_over = base_over | (ovf & ((n >> (bit + 1)) > 0))
            base = square
    return result, over


def _xp_arith(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple[Any, Any]:
    python = _python(arg_types)
    kind = arg_types[0].kind
    if op in ("neg", "abs"):
        (a,) = args
        if kind == "float":
            return (-a if op == "neg" else xp.fabs(a)), None
        r = -a if op == "neg" else xp.abs(a)
        return r, (a == _MIN64) if python else None
    if op == "invert":
        return (~args[0]), None
    a, b = args
    if op in ("and_", "or_", "xor"):
        return {"and_": a & b, "or_": a | b, "xor": a ^ b}[op], None
    if kind == "int":
        if op == "pow":
            if python:
                # a constant exponent >= 0, or the rows of a variable one that are >= 0 (the translator selects)
                return _xp_ipow(xp, a, node.value if node.value is not None else xp.maximum(b, 0))
            negative = b < 0
            value, _ = _xp_ipow(xp, a, xp.where(negative, 0, b))
            return value, negative
        return _xp_int_arith(op, xp, a, b, python)
    # floats
    if op == "add":
        return a + b, None
    if op == "sub":
        return a - b, None
    if op == "mul":
        return a * b, None
    if op == "truediv":
        return a / b, (b == 0) if python else None
    if op in ("floordiv", "mod"):
        return _xp_float_floordiv_mod(op, xp, a, b), (b == 0) if python else None
    if op == "pow":
        r = _xp_power(xp, a, b)
        return r, _xp_fpow_err(xp, a, b, r) if python else None
    raise AssertionError(op)


def _xp_power(xp: types.ModuleType, a: Any, b: Any) -> Any:
    """C99 ``pow`` (Python's float ``**`` and ``math.pow``): NumPy computes ``x ** 0.5`` as ``sqrt(x)``, which
    differs at -0.0 (C: +0.0) and -inf (C: +inf)."""
    r = xp.power(a, b)
    half = b == 0.5
    r = xp.where(half & (a == 0), 0.0, r)
    return xp.where(half & (a == -np.inf), np.inf, r)


def _xp_compare(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple[Any, Any]:
    a, b = args
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op], None


def _xp_predicate(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple:
    return getattr(xp, op)(args[0]), None


def _xp_math(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple[Any, Any]:
    name = op[3:]
    table = MATH1 if op.startswith("m1_") else MATH2
    np_name = table[name][0]
    if name == "pow":
        r = _xp_power(xp, *args)
    elif np_name is not None:
        r = getattr(xp, np_name)(*args)
    else:
        r = _special(xp, name, args[0])
    nan_args = xp.zeros(r.shape, dtype=bool)
    finite = xp.ones(r.shape, dtype=bool)
    if node.type.numpy:  # NumPy's function: NaN and inf with a warning, never an error
        return r, None
    for a in args:
        nan_args = nan_args | xp.isnan(a)
        finite = finite & xp.isfinite(a)
    return r, (xp.isnan(r) & ~nan_args) | (xp.isinf(r) & finite)


def _special(xp: types.ModuleType, name: str, a: Any) -> Any:
    """erf, erfc, gamma, lgamma: not NumPy ufuncs. CuPy has them in cupyx.scipy.special; on the host the math
    module computes them value by value (the host path is the reference, not the fast path)."""
    if xp is not np:
        from cupyx.scipy import special  # type: ignore[import-not-found]

        return {"erf": special.erf, "erfc": special.erfc, "gamma": special.gamma, "lgamma": special.gammaln}[name](a)
    fn: Callable[[float], float] = getattr(math, name)

    def safe(v: float) -> float:
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return math.nan if name != "lgamma" and not math.isinf(v) else math.inf

    flat = np.asarray(a, dtype=np.float64).ravel()
    return np.array([safe(float(v)) for v in flat], dtype=np.float64).reshape(np.shape(a))


def _xp_same(op: str, xp: types.ModuleType, args: list[Any], arg_types: list[Any], node: Any) -> tuple[Any, Any]:
    return args[0], None


_XP: dict[str, Callable[..., tuple[Any, Any]]] = {
    "same": _xp_same,
    "bool_to_int": _xp_cast, "to_float": _xp_cast, "to_float_exact": _xp_cast, "truth": _xp_cast, "not": _xp_cast,
    "trunc_int": _xp_float_to_int, "round_int": _xp_float_to_int, "floor_int": _xp_float_to_int,
    "ceil_int": _xp_float_to_int, "round_float": _xp_round_float, "num_int": _xp_num_int, "wrap": _xp_wrap,
    "np1": _xp_np1, "round_digits": _xp_round_digits,
    "add": _xp_arith, "sub": _xp_arith, "mul": _xp_arith, "truediv": _xp_arith, "floordiv": _xp_arith,
    "mod": _xp_arith, "pow": _xp_arith, "neg": _xp_arith, "abs": _xp_arith, "invert": _xp_arith,
    "and_": _xp_arith, "or_": _xp_arith, "xor": _xp_arith,
    "eq": _xp_compare, "ne": _xp_compare, "lt": _xp_compare, "le": _xp_compare, "gt": _xp_compare,
    "ge": _xp_compare, "isnan": _xp_predicate, "isinf": _xp_predicate, "isfinite": _xp_predicate,
    "math1": _xp_math, "math2": _xp_math,
}  # fmt: skip


# --- CUDA C semantics ----------------------------------------------------------------------------------------------
def _c_cast(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    (a,) = args
    if op == "bool_to_int":
        return f"(long long)({a})", None
    if op == "to_float":
        return f"(double)({a})", None
    if op == "to_float_exact":
        return f"(double)({a})", f"({a} > {_EXACT}LL || {a} < -{_EXACT}LL)"
    if op == "truth":
        return f"({a} != 0)", None
    if op == "not":
        return f"(!{a})", None
    raise AssertionError(op)


def _c_float_to_int(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    fn = {"trunc_int": "trunc", "round_int": "rint", "floor_int": "floor", "ceil_int": "ceil"}[op]
    return f"rt_toint({fn}({args[0]}))", f"rt_toint_err({fn}({args[0]}))"


def _c_round_float(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    return f"rint({args[0]})", None


def _c_num_int(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    return f"rt_num_int({args[0]})", None


def _c_wrap(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    c_type = {8: "signed char", 16: "short", 32: "int"}[node.value]
    return f"(long long)({c_type})({args[0]})", None


def _c_np1(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    return f"{op[4:]}({args[0]})", None


def _c_round_digits(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    (x,) = args
    n = node.value
    if n > 323:
        return x, None
    if n < -308:
        return f"(isfinite({x}) ? copysign(0.0, {x}) : {x})", None
    keep, small = round_digits_thresholds(n)
    keep_c = "rt_inf()" if keep == math.inf else keep.hex()
    simple = f"(fabs({x}) >= {keep_c} || fabs({x}) <= {small.hex()} || !isfinite({x}))"
    simple_value = f"(fabs({x}) <= {small.hex()} ? copysign(0.0, {x}) : {x})"
    if n > 22 or n < -22:
        return f"({simple} ? {simple_value} : {x})", f"(!{simple})"
    fn = "rt_round_pos" if n >= 0 else "rt_round_neg"
    # the helper sets the row's error flag itself (through the pointer); no separate error expression
    return f"({simple} ? {simple_value} : {fn}({x}, {(10.0 ** abs(n)).hex()}, &rt_e))", "false"


def _c_arith(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    python = _python(arg_types)
    kind = arg_types[0].kind
    if op in ("neg", "abs"):
        (a,) = args
        if kind == "float":
            return (f"(-{a})" if op == "neg" else f"fabs({a})"), None
        value = f"rt_sub_wrap(0, {a})" if op == "neg" else f"({a} < 0 ? rt_sub_wrap(0, {a}) : {a})"
        return value, (f"({a} == (-9223372036854775807LL - 1))" if python else None)
    if op == "invert":
        return (f"(!{args[0]})" if kind == "bool" else f"(~{args[0]})"), None
    a, b = args
    if op in ("and_", "or_", "xor"):
        symbol = {"and_": "&", "or_": "|", "xor": "^"}[op]
        value = f"({a} {symbol} {b})"
        return (f"(bool){value}" if kind == "bool" else value), None
    if kind == "int":
        if op in ("add", "sub", "mul"):
            return f"rt_{op}_wrap({a}, {b})", (f"rt_{op}_ovf({a}, {b})" if python else None)
        if op == "floordiv":
            err = f"({b} == 0 || ({b} == -1 && {a} == (-9223372036854775807LL - 1)))"
            return f"rt_ifloordiv({a}, {b})", err if python else None
        if op == "mod":
            return f"rt_imod({a}, {b})", (f"({b} == 0)" if python else None)
        if op == "pow":
            if python and node.value is not None:
                return f"rt_ipow({a}, {int(node.value)}LL)", f"rt_ipow_ovf({a}, {int(node.value)}LL)"
            if python:  # (the translator selects the rows whose exponent is >= 0)
                return f"rt_ipow({a}, ({b} < 0 ? 0 : {b}))", f"rt_ipow_ovf({a}, ({b} < 0 ? 0 : {b}))"
            return f"rt_ipow({a}, ({b} < 0 ? 0 : {b}))", f"({b} < 0)"
        raise AssertionError(op)
    if op in ("add", "sub", "mul", "truediv"):
        symbol = {"add": "+", "sub": "-", "mul": "*", "truediv": "/"}[op]
        err = f"({b} == 0.0)" if (python and op == "truediv") else None
        return f"({a} {symbol} {b})", err
    if op == "floordiv":
        return f"rt_ffloordiv({a}, {b})", (f"({b} == 0.0)" if python else None)
    if op == "mod":
        return f"rt_fmod_py({a}, {b})", (f"({b} == 0.0)" if python else None)
    if op == "pow":
        return f"pow({a}, {b})", (f"rt_fpow_err({a}, {b}, @)" if python else None)
    raise AssertionError(op)


def _c_compare(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    symbol = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}[op]
    return f"({args[0]} {symbol} {args[1]})", None


def _c_predicate(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    return f"(bool){op}({args[0]})", None


def _c_math(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    name = op[3:]
    c_name = (MATH1 if op.startswith("m1_") else MATH2)[name][1]
    value = f"{c_name}({', '.join(args)})"
    if node.type.numpy:
        return value, None
    nan_args = " || ".join(f"isnan({a})" for a in args)
    finite = " && ".join(f"isfinite({a})" for a in args)
    return value, f"((isnan(@) && !({nan_args})) || (isinf(@) && {finite}))"


def _c_same(op: str, args: list[str], arg_types: list[Any], node: Any) -> tuple[str, str | None]:
    return args[0], None


_C: dict[str, Callable[..., tuple[str, str | None]]] = {
    "same": _c_same,
    "bool_to_int": _c_cast, "to_float": _c_cast, "to_float_exact": _c_cast, "truth": _c_cast, "not": _c_cast,
    "trunc_int": _c_float_to_int, "round_int": _c_float_to_int, "floor_int": _c_float_to_int,
    "ceil_int": _c_float_to_int, "round_float": _c_round_float, "num_int": _c_num_int, "wrap": _c_wrap,
    "np1": _c_np1, "round_digits": _c_round_digits,
    "add": _c_arith, "sub": _c_arith, "mul": _c_arith, "truediv": _c_arith, "floordiv": _c_arith, "mod": _c_arith,
    "pow": _c_arith, "neg": _c_arith, "abs": _c_arith, "invert": _c_arith, "and_": _c_arith, "or_": _c_arith,
    "xor": _c_arith, "eq": _c_compare, "ne": _c_compare, "lt": _c_compare, "le": _c_compare, "gt": _c_compare,
    "ge": _c_compare, "isnan": _c_predicate, "isinf": _c_predicate, "isfinite": _c_predicate,
    "math1": _c_math, "math2": _c_math,
}  # fmt: skip
