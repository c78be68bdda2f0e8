"""CUDA kernels for datetime fields and fixed-frequency rounding: one pass over the int64 ticks (CuPy only).

:mod:`riptide.core.ops.datetime_fields` computes a field with about twenty whole-array integer operations; on the
GPU each is a pass over the column, so ``s.dt.year`` over 1e8 values read and wrote ~30 GB. The kernels here read
each int64 tick once and write the result once, in the result's final dtype, so a field costs 12 bytes a row
(int64 in, int32 out) and ``floor`` 16. The NumPy code stays the CPU path and the reference (the *xp twin*): the
kernels compute the same values with the same arithmetic, and :mod:`tests.core.test_kernel_emulation` runs this
source on the CPU (compiled by g++) against it.

* **Fields.** The field and the unit are compile-time constants (``-DFIELD``, ``-DPER_SECOND``), so the kernel
  holds only the arithmetic of its field and every division is by a constant (a multiply-high, no divide
  instruction). The date comes from Neri and Schneider's Euclidean-affine form of ``civil_from_days`` (32-bit,
  a handful of multiplies) for days in years -32800..2.9 million; days beyond that (only units coarser than ``ns``
  reach them) take Hinnant's 64-bit ``civil_from_days``, the algorithm of the twin. A NaT (INT64_MIN) row writes
  the result dtype's missing value (0, NaN or False) and raises a device flag, read once by the caller to pick
  pandas' dtype (int32 vs float64).
* **Rounding.** ``floor`` / ``ceil`` / ``round`` divide by the frequency's step, a run-time value; a 64-bit
  divide is a long software routine on the GPU, so the host computes the step's round-up magic multiplier
  (Granlund and Montgomery, "Division by invariant integers using multiplication", 1994, figure 4.1) and the
  kernel divides with one ``__umul64hi``, an add and two shifts. The results, NaT handling and the overflow test
  are the twin's (:func:`riptide.core.ops.datetime_fields.round_ticks`), with wrap-around done in unsigned
  arithmetic (signed overflow is undefined in C++). Only positive steps come here.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

__all__ = ["FIELD_CODES", "FIELD_SOURCE", "ROUND_SOURCE", "ROUND_MODES", "division_magic", "field", "round_ticks"]

#: Compile-time code of each field the field kernel computes: datetime fields (pandas' names), then the timedelta
#: components (prefixed ``td_``).
FIELD_CODES = {
    "year": 0, "month": 1, "day": 2, "hour": 3, "minute": 4, "second": 5, "microsecond": 6, "nanosecond": 7,
    "day_of_week": 8, "day_of_year": 9, "quarter": 10, "days_in_month": 11, "is_leap_year": 12,
    "is_month_start": 13, "is_month_end": 14, "is_quarter_start": 15, "is_quarter_end": 16, "is_year_start": 17,
    "is_year_end": 18, "td_days": 20, "td_seconds": 21, "td_microseconds": 22, "td_nanoseconds": 23,
}  # fmt: skip

#: Rounding modes of the rounding kernel (a run-time argument).
ROUND_MODES = {"floor": 0, "ceil": 1, "round": 2}

# C type and NaT value of each output dtype.
_OUTPUT_TYPES = {
    np.dtype(np.int32): ("int", "0"),
    np.dtype(np.int64): ("i64", "0"),  # (no space: an NVRTC option is one argument)
    np.dtype(np.float64): ("double", "__longlong_as_double(0x7ff8000000000000LL)"),
    np.dtype(np.bool_): ("bool", "false"),
}

FIELD_SOURCE = r"""
typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;

// Compile-time parameters (defaults let the source compile on its own):
//   FIELD       which field (riptide.core.kernels.datetime_kernels.FIELD_CODES)
//   PER_SECOND  ticks per second of the unit (1, 1000, 1000000, 1000000000)
//   OUT_T       the output's C type; NAT_VALUE what a NaT row writes
#ifndef FIELD
#define FIELD 0
#endif
#ifndef PER_SECOND
#define PER_SECOND 1000000000LL
#endif
#ifndef OUT_T
#define OUT_T int
#endif
#ifndef NAT_VALUE
#define NAT_VALUE 0
#endif

#define NAT_TICKS (-9223372036854775807LL - 1)
#define PER_DAY (86400LL * PER_SECOND)

// Floor division and non-negative remainder by a positive constant (Python's // and %).
__device__ __forceinline__ i64 floor_div(i64 a, i64 b) {
    i64 q = a / b;
    return (a % b < 0) ? q - 1 : q;
}

__device__ __forceinline__ bool is_leap(i64 y) {
    return (y % 4 == 0) && ((y % 100 != 0) || (y % 400 == 0));
}

// (year, month 1..12, day 1..31) of a day count since 1970-01-01, proleptic Gregorian calendar.
__device__ __forceinline__ void civil_from_days(i64 days, i64* year, int* month, int* day) {
    // Neri-Schneider: the day count is shifted by 82 eras of 400 years (so everything is unsigned) to a
    // March-based year; 4 * N + 3 must fit in 32 bits.
    const i64 SHIFT = 719468LL + 146097LL * 82;
    if (days >= -SHIFT && days < 1000000000LL - SHIFT) {
        const u32 n = (u32)(days + SHIFT);
        const u32 n1 = 4 * n + 3;
        const u32 century = n1 / 146097;
        const u32 nc = n1 % 146097 / 4;                          // day of the century
        const u32 n2 = 4 * nc + 3;
        const u64 p2 = (u64)2939745 * n2;
        const u32 z = (u32)(p2 >> 32);                            // year of the century
        const u32 ny = (u32)p2 / 2939745 / 4;                     // day of the March-based year, 0..365
        const u32 n3 = 2141 * ny + 197913;
        const u32 m = n3 >> 16;                                   // 3..14
        const u32 jan_feb = ny >= 306;
        *year = (i64)(100 * century + z) - 400 * 82 + jan_feb;
        *month = (int)(jan_feb ? m - 12 : m);
        *day = (int)((n3 & 0xFFFF) / 2141) + 1;
        return;
    }
    // Hinnant's civil_from_days in 64 bits (the xp twin's algorithm), for the far past and future.
    const i64 z = days + 719468;
    const i64 era = floor_div(z, 146097);
    const i64 doe = z - era * 146097;
    const i64 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const i64 doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const i64 mp = (5 * doy + 2) / 153;
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (*month <= 2);
}

__device__ __forceinline__ int month_days(int month, bool leap) {
    return month == 2 ? 28 + leap : 30 + ((month ^ (month >> 3)) & 1);
}

__device__ __forceinline__ i64 field_of(i64 t) {
    const i64 days = floor_div(t, PER_DAY);
    const i64 tod = (i64)((u64)t - (u64)days * (u64)PER_DAY);    // 0 <= tod < PER_DAY (no overflow)
    (void)tod;
#if FIELD == 3
    return tod / (3600 * PER_SECOND);
#elif FIELD == 4
    return tod / (60 * PER_SECOND) % 60;
#elif FIELD == 5
    return tod / PER_SECOND % 60;
#elif FIELD == 6
    return tod % PER_SECOND * 1000000 / PER_SECOND;
#elif FIELD == 7
    return PER_SECOND == 1000000000LL ? tod % 1000 : 0;
#elif FIELD == 8
    const i64 weekday = (days + 3) % 7;  // Monday = 0; 1970-01-01 was a Thursday
    return weekday < 0 ? weekday + 7 : weekday;
#elif FIELD == 20
    return days;
#elif FIELD == 21
    return tod / PER_SECOND;
#elif FIELD == 22
    return tod % PER_SECOND * 1000000 / PER_SECOND;
#elif FIELD == 23
    return PER_SECOND == 1000000000LL ? tod % 1000 : 0;
#else
    i64 year;
    int month, day;
    civil_from_days(days, &year, &month, &day);
#if FIELD == 0
    return year;
#elif FIELD == 1
    return month;
#elif FIELD == 2
    return day;
#elif FIELD == 10
    return (month - 1) / 3 + 1;
#else
    const bool leap = is_leap(year);
#if FIELD == 9
    return (month > 2) ? (i64)((153 * (month - 3) + 2) / 5 + day + 59 + leap) : (i64)(month == 1 ? day : 31 + day);
#elif FIELD == 11
    return month_days(month, leap);
#elif FIELD == 12
    return leap;
#elif FIELD == 13
    return day == 1;
#elif FIELD == 14
    return day == month_days(month, leap);
#elif FIELD == 15
    return day == 1 && month % 3 == 1;
#elif FIELD == 16
    return day == month_days(month, leap) && month % 3 == 0;
#elif FIELD == 17
    return day == 1 && month == 1;
#elif FIELD == 18
    return day == 31 && month == 12;
#else
#error "unknown FIELD"
#endif
#endif
#endif
}

extern "C" __global__ void riptide_datetime_field(const i64* __restrict__ ticks, const i64 n,
                                                  OUT_T* __restrict__ out, int* __restrict__ saw_nat) {
    // saw_nat: set to 1 when a value is NaT (a benign race: every writer writes 1); may be NULL.
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
        const i64 t = ticks[i];
        if (t == NAT_TICKS) {
            out[i] = NAT_VALUE;
            if (saw_nat != NULL) *saw_nat = 1;
        } else {
            out[i] = (OUT_T)field_of(t);
        }
    }
}
"""

ROUND_SOURCE = r"""
typedef long long i64;
typedef unsigned long long u64;

#define NAT_TICKS (-9223372036854775807LL - 1)

// Unsigned n / d by d's round-up magic multiplier (Granlund-Montgomery figure 4.1): exact for every 64-bit n.
__device__ __forceinline__ u64 udiv(u64 n, u64 magic, int sh1, int sh2) {
    const u64 t1 = __umul64hi(magic, n);
    return (t1 + ((n - t1) >> sh1)) >> sh2;
}

// floor(t / step) for a positive step (-(t + 1) does not overflow, even for INT64_MIN).
__device__ __forceinline__ i64 floor_div(i64 t, u64 magic, int sh1, int sh2) {
    if (t >= 0) return (i64)udiv((u64)t, magic, sh1, sh2);
    return -(i64)udiv((u64)(-(t + 1)), magic, sh1, sh2) - 1;
}

__device__ __forceinline__ i64 wrap_add(i64 a, i64 b) { return (i64)((u64)a + (u64)b); }
__device__ __forceinline__ i64 wrap_sub(i64 a, i64 b) { return (i64)((u64)a - (u64)b); }
__device__ __forceinline__ i64 wrap_mul(i64 a, i64 b) { return (i64)((u64)a * (u64)b); }

__device__ __forceinline__ i64 ceil_to(i64 x, i64 step, u64 magic, int sh1, int sh2) {
    const i64 rem = wrap_sub(x, wrap_mul(floor_div(x, magic, sh1, sh2), step));
    return rem == 0 ? x : wrap_add(x, step - rem);
}

// mode: 0 floor, 1 ceil, 2 round half to even. overflow: set to 1 when a result wrapped around int64.
extern "C" __global__ void riptide_round_ticks(const i64* __restrict__ ticks, const i64 n, const i64 step,
        const u64 magic, const int sh1, const int sh2, const int mode, i64* __restrict__ out,
        int* __restrict__ overflow) {
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
        const i64 t = ticks[i];
        if (t == NAT_TICKS) { out[i] = NAT_TICKS; continue; }
        i64 r;
        if (mode == 0) {
            r = wrap_mul(floor_div(t, magic, sh1, sh2), step);  // t - (t mod step)
        } else if (mode == 1) {
            r = ceil_to(t, step, magic, sh1, sh2);
        } else if (step & 1) {  // an odd step has no ties: round half down
            r = ceil_to(wrap_sub(t, step / 2), step, magic, sh1, sh2);
        } else {
            const i64 q = floor_div(t, magic, sh1, sh2);
            const i64 rem = wrap_sub(t, wrap_mul(q, step));
            const i64 half = step / 2;
            const bool up = rem > half || (rem == half && (q & 1));
            r = wrap_mul(wrap_add(q, up), step);
        }
        // A true result lies within one step of its value; a wrapped one lands at the other end of int64.
        if ((t >= 0 && r < t - step) || (t < 0 && r > t + step)) *overflow = 1;
        out[i] = r;
    }
}
"""


def division_magic(step: int) -> tuple[int, int, int]:
    """``(magic, sh1, sh2)`` such that ``n // step == (t + ((n - t) >> sh1)) >> sh2`` with
    ``t = (magic * n) >> 64``, for every unsigned 64-bit ``n`` (``1 <= step < 2**64``).

    >>> m, s1, s2 = division_magic(3_600)
    >>> n = 7_201
    >>> t = (m * n) >> 64
    >>> (t + ((n - t) >> s1)) >> s2
    2
    """
    if not 1 <= step < 2**64:
        raise ValueError(f"step out of range: {step}")
    ell = (step - 1).bit_length()  # ceil(log2(step))
    magic = ((1 << 64) * ((1 << ell) - step)) // step + 1
    return magic, min(ell, 1), max(ell - 1, 0)


def _launch(kernel: Any, n: int, args: tuple) -> None:
    from riptide.core.kernels.hashing import launch

    launch(kernel, n, args)


@functools.cache
def _field_kernel(code: int, per_second: int, out_dtype: np.dtype) -> Any:
    import cupy as cp

    c_type, nat_value = _OUTPUT_TYPES[out_dtype]
    options = (f"-DFIELD={code}", f"-DPER_SECOND={per_second}LL", f"-DOUT_T={c_type}", f"-DNAT_VALUE={nat_value}")
    return cp.RawKernel(FIELD_SOURCE, "riptide_datetime_field", options=options)


@functools.cache
def _round_kernel() -> Any:
    import cupy as cp

    return cp.RawKernel(ROUND_SOURCE, "riptide_round_ticks")


def field(ticks: Any, per_second: int, name: str, out_dtype: Any, xp: Any, want_nat: bool = True) -> tuple[Any, Any]:
    """(``name`` of every int64 tick as ``out_dtype``, a one-element int32 device flag that is 1 when a tick is NaT, or
    None unless ``want_nat``). NaT rows hold 0 / NaN / False. CuPy only."""
    out_dtype = np.dtype(out_dtype)
    ticks = xp.ascontiguousarray(ticks, dtype=np.int64)
    n = int(ticks.shape[0])
    out = xp.empty(n, dtype=out_dtype)
    flag = xp.zeros(1, dtype=np.int32) if want_nat else None
    if n:
        kernel = _field_kernel(FIELD_CODES[name], int(per_second), out_dtype)
        _launch(kernel, n, (ticks, np.int64(n), out, np.uint64(0) if flag is None else flag))
    return out, flag


def round_ticks(ticks: Any, step: int, mode: str, xp: Any) -> tuple[Any, Any]:
    """(``ticks`` rounded to multiples of the positive ``step`` by ``mode``, NaT kept; a one-element int32 device flag
    that is 1 when a result overflowed int64). CuPy only."""
    if step <= 0:
        raise ValueError("the rounding kernel takes a positive step")
    ticks = xp.ascontiguousarray(ticks, dtype=np.int64)
    n = int(ticks.shape[0])
    out = xp.empty(n, dtype=np.int64)
    overflow = xp.zeros(1, dtype=np.int32)
    if n:
        magic, sh1, sh2 = division_magic(int(step))
        _launch(_round_kernel(), n, (ticks, np.int64(n), np.int64(step), np.uint64(magic), np.int32(sh1),
                                     np.int32(sh2), np.int32(ROUND_MODES[mode]), out, overflow))  # fmt: skip
    return out, overflow
