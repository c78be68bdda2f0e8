"""Elementwise functions with NumPy's exact semantics on CuPy too.

CuPy's ufuncs follow NumPy almost everywhere. Where they do not, and pandas' results depend
on the difference, the CuPy side is replaced here by a kernel that does what NumPy does:

* ``floor_divide`` / ``remainder`` of floats: NumPy derives both from ``fmod`` (its
  ``npy_divmod``), so ``-5 // inf`` is -1, ``5 % inf`` is 5, ``-5 % inf`` is inf and
  ``inf // 5`` is NaN; CuPy's formulas give other answers at infinities and signed zeros.
* ``where`` with a Python bool condition: NumPy accepts it, CuPy needs an array.

The NumPy functions themselves are the CPU path and the test oracle.
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

__all__ = ["ufunc", "where"]

_DIVMOD_PREAMBLE = r"""
template <typename T>
__device__ T riptide_npy_divmod(T a, T b, T* modulus) {
    T mod = fmod(a, b);
    if (b == 0) {            // NumPy: a / b for the quotient, fmod's NaN for the modulus
        *modulus = mod;
        return a / b;
    }
    T div = (a - mod) / b;
    if (mod != 0) {
        if ((b < 0) != (mod < 0)) {
            mod += b;
            div -= 1;
        }
    } else {
        mod = copysign((T)0, b);
    }
    T floordiv;
    if (div != 0) {
        floordiv = floor(div);
        if (div - floordiv > (T)0.5) floordiv += 1;
    } else {
        floordiv = copysign((T)0, a / b);
    }
    *modulus = mod;
    return floordiv;
}
"""


@functools.cache
def _float_divmod_kernels() -> tuple[Any, Any]:
    import cupy

    floor_divide = cupy.ElementwiseKernel(
        "T a, T b", "T out", "T mod; out = riptide_npy_divmod<T>(a, b, &mod);",
        "riptide_numpy_floor_divide", preamble=_DIVMOD_PREAMBLE,
    )  # fmt: skip
    remainder = cupy.ElementwiseKernel(
        "T a, T b", "T out", "riptide_npy_divmod<T>(a, b, &out);", "riptide_numpy_remainder",
        preamble=_DIVMOD_PREAMBLE,
    )  # fmt: skip
    return floor_divide, remainder


def _result_dtype(a: Any, b: Any) -> np.dtype:
    return np.result_type(*(x.dtype if hasattr(x, "dtype") else x for x in (a, b)))


def _float_divmod(name: str, xp: types.ModuleType) -> Any:
    def apply(a: Any, b: Any) -> Any:
        dtype = _result_dtype(a, b)
        if dtype.kind != "f" or dtype.itemsize < 4:
            return getattr(xp, name)(a, b)  # integers (and float16) agree with NumPy already
        floor_divide, remainder = _float_divmod_kernels()
        kernel = floor_divide if name == "floor_divide" else remainder
        return kernel(xp.asarray(a, dtype=dtype), xp.asarray(b, dtype=dtype))

    return apply


def ufunc(name: str, xp: types.ModuleType) -> Any:
    """The ufunc ``name`` of ``xp`` (``np`` or ``cupy``), NumPy-exact for floor_divide and remainder."""
    if xp is not np and name in ("floor_divide", "remainder"):
        return _float_divmod(name, xp)
    return getattr(xp, name)


def where(xp: types.ModuleType, condition: Any, x: Any, y: Any) -> Any:
    """``xp.where`` that also takes a Python bool (or NumPy bool) as the condition, as NumPy does."""
    if xp is not np and not hasattr(condition, "astype"):
        condition = xp.asarray(condition)
    elif xp is not np and isinstance(condition, np.ndarray | np.generic):
        condition = xp.asarray(condition)
    return xp.where(condition, x, y)
