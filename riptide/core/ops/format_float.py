"""Floats to text on the device: the shortest decimal that reads back as the same float, in Python's layout.

pandas writes a float (``astype(str)``, ``to_csv``) as NumPy's ``str`` of it, which for float64 is Python's
``repr``: the fewest significant digits that round-trip, and among those the digits closest to the exact binary
value. Finding them is a search over decimal candidates that needs exact comparisons of ``c * 2**q`` against
decimal boundaries; this module does it the way Schubfach (R. Giulietti, "The Schubfach way to render doubles")
frames it, because every step is branch-light integer arithmetic that vectorises:

1. A finite ``v = c * 2**q`` rounds back from any decimal inside its *rounding interval* ``R`` (half-way to its
   neighbours; closed when ``c`` is even, as round-half-even reads ties). Pick ``k = floor(log10(width of R))``
   (``width = 2**q``, or ``3/4 * 2**q`` just above a power of two, where the lower neighbour is nearer). Then
   ``R`` holds at most one multiple of ``10**(k+1)`` and at least one of ``s * 10**k``, ``(s+1) * 10**k`` with
   ``s = floor(v / 10**k)``: the shortest candidate is the multiple of ``10**(k+1)`` if there is one, else
   whichever of ``s``, ``s+1`` lies in ``R`` (the nearer to ``v`` when both do, the even one on a tie).
2. The scaled values ``4 * v / 10**k`` and the boundaries come from one 128-bit approximation ``g`` of
   ``10**-k`` (a 617-entry table built here with Python integers: exact for ``0 <= -k <= 38``, where the
   exact value fits and ties can occur, else ``floor + 1`` so that it errs upwards) times
   ``4c`` (or ``4c -+ 2``) shifted into place: a 64 x 128 product of which only the top 64 bits are kept,
   *rounded to odd* (the lowest bit records whether anything was cut). Schubfach's proof is that the
   comparisons of those approximations against ``4 * candidate`` have the exact answers; the tests check it
   against ``repr`` on random bit patterns and the boundary cases.
3. Trailing zeros are stripped (binary steps of 16, 8, 4, 2, 1 zeros), and the digits are laid out as NumPy does:
   positional (``"0.0001"``, ``"123.0"``) for ``1e-4 <= |v| < 1e16`` (float32: ``< 1e6``), else scientific
   with at least two exponent digits (``"1e-05"``, ``"1.5e+300"``); ``"nan"`` (never signed), ``"inf"``,
   ``"-inf"``, ``"-0.0"``. For float64 this is exactly Python's ``repr``; float32 gets its own shortest digits
   (``str(np.float32(x))``, e.g. ``"0.1"``), and NumPy's float32 cut-off is ``1e6``, not ``1e16``.

On the GPU one CUDA thread formats one value into a fixed 24-byte slot (the longest text, ``-0.000`` then 17
digits or ``-d.dddddddddddddddde-308``, has 24 bytes), and a second kernel compacts the slots into a
StringColumn (lengths -> offsets -> copy). The CPU path is the same algorithm in NumPy, vectorised over the
values: 64 x 64 -> 128-bit products from 32-bit halves, and the text built one character position at a time
over all rows (a loop over at most 24 positions, not over rows) before the same compaction.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from riptide.core import dtypes
from riptide.core.column import NumericColumn, StringColumn

__all__ = ["can_format_floats", "float_text", "format_floats", "shortest_digits"]

# --- the table of 10**-k ------------------------------------------------------------------------------------
# k ranges over floor(log10(2**q)) for every float64 exponent q (subnormals included): -324 ... 292.
_K_MIN, _K_MAX = -324, 292


def _power_table() -> tuple[np.ndarray, np.ndarray]:
    """(high, low) 64-bit halves of ``g(k)``: ``10**-k * 2**(127 - floor(log2(10**-k)))`` where that is an integer,
    else its floor plus one (an over-approximation); ``2**127 <= g < 2**128``."""
    high, low = [], []
    for k in range(_K_MIN, _K_MAX + 1):
        e = -k
        if e >= 0:
            power = 10**e
            shift = 127 - (power.bit_length() - 1)
            # exact where 10**-k * 2**shift is an integer (-k <= 38): ties and boundary hits are then decided exactly
            g = power << shift if shift >= 0 else (power >> -shift) + 1
        else:
            power = 10**-e
            g = (1 << (127 + power.bit_length())) // power + 1  # floor(log2(10**e)) = -bit_length(10**-e)
        assert 1 << 127 <= g < 1 << 128
        high.append(g >> 64)
        low.append(g & ((1 << 64) - 1))
    return np.array(high, dtype=np.uint64), np.array(low, dtype=np.uint64)


_G_HIGH, _G_LOW = _power_table()
_POW10 = np.array([10**i for i in range(20)], dtype=np.uint64)

# Per width: (mantissa bits, exponent bits, smallest q, |v| bits from which text is positional, |v| bits from
# which it is scientific again). Thresholds as bit patterns: positive floats order as their bits do.
_FORMATS = {
    8: (52, 11, -1074, 0x3F1A36E2EB1C432D, 0x4341C37937E08000),  # 1e-4, 1e16
    4: (23, 8, -149, 0x38D1B718, 0x49742400),  # the float32 just above 1e-4 (float32(1e-4) < 1e-4), 1e6
}
_WIDTH = 24  # bytes of the longest text


def can_format_floats(column: Any) -> bool:
    """Whether :func:`format_floats` handles ``column`` (float32/float64, plain or nullable)."""
    return (isinstance(column, NumericColumn) and column.kind == "f"
            and dtypes.to_numpy_dtype(column.dtype).itemsize in _FORMATS)  # fmt: skip


def format_floats(column: NumericColumn) -> StringColumn:
    """The text of a float column as pandas' ``astype(str)`` writes it; NaN and masked rows become missing.

    >>> col = format_floats(NumericColumn(np.array([0.1, 1e-05, np.nan, -2.0, 1e16])))
    >>> col.to_pandas_array().tolist()
    ['0.1', '1e-05', nan, '-2.0', '1e+16']
    """
    xp = column.xp
    offsets, chars = float_text(column.data)
    missing = column.isna()
    if dtypes.is_masked(column.dtype):
        missing = missing | xp.isnan(column.data)  # a NaN stored under a valid mask is missing text too
    return StringColumn(offsets, chars, ~missing)


def float_text(values: Any) -> tuple[Any, Any]:
    """(offsets, chars) of every value's text, NaN as ``"nan"``: a float32 or float64 array (NumPy or CuPy).

    >>> offsets, chars = float_text(np.array([1.5, -0.0, np.inf, 5e-324, 123456789.0]))
    >>> bytes(chars).decode(), offsets.tolist()
    ('1.5-0.0inf5e-324123456789.0', [0, 3, 7, 10, 16, 27])
    """
    from riptide import _device

    xp = _device.namespace_of(values)
    if xp is not np:
        return _float_text_cuda(values, xp)
    return _float_text_xp(values, xp)


# --- the algorithm, vectorised (the CPU path and the reference for the kernel) -------------------------------
def _mul_64x64(a: Any, b: Any) -> tuple[Any, Any]:
    """(high, low) 64-bit halves of ``a * b`` for uint64 arrays, from 32-bit halves."""
    m32, s32 = np.uint64(0xFFFFFFFF), np.uint64(32)
    a0, a1, b0, b1 = a & m32, a >> s32, b & m32, b >> s32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> s32) + (p01 & m32) + (p10 & m32)  # < 3 * 2**32: no overflow
    return p11 + (p01 >> s32) + (p10 >> s32) + (mid >> s32), (mid << s32) | (p00 & m32)


def _round_to_odd(g_high: Any, g_low: Any, cp: Any, exact: Any) -> Any:
    """``floor(g * cp / 2**128)`` with its lowest bit set when anything below was cut (g is 128-bit).

    Where ``g`` over-approximates (``exact`` False) its error times ``cp`` (< 2**62) stays in the lowest 64 bits of
    the product, so those are left out of the sticky bit: an exact integer result is then seen as exact.
    """
    p1_high, p1_low = _mul_64x64(g_high, cp)
    p0_high, p0_low = _mul_64x64(g_low, cp)
    mid = p1_low + p0_high
    top = p1_high + (mid < p1_low).astype(np.uint64)
    return top | ((mid != 0) | (exact & (p0_low != 0))).astype(np.uint64)


def shortest_digits(bits: Any, itemsize: int, xp: Any) -> tuple[Any, Any]:
    """(digits, exponent) with ``|v| = digits * 10**exponent`` the shortest round-trip decimal, trailing zeros
    stripped, for the finite non-zero floats whose bits (uint64) are given; other rows give garbage.

    >>> bits = np.array([0.3, 5e-324, 1e23, 2.0**-1022]).view(np.uint64)
    >>> [a.tolist() for a in shortest_digits(bits, 8, np)]
    [[3, 5, 1, 22250738585072014], [-1, -324, 23, -324]]
    """
    frac_bits, exp_bits, q_min = _FORMATS[itemsize][:3]
    one = np.uint64(1)
    fraction = bits & np.uint64((1 << frac_bits) - 1)
    biased = ((bits >> np.uint64(frac_bits)) & np.uint64((1 << exp_bits) - 1)).astype(np.int64)
    normal = biased > 0
    c = xp.where(normal, fraction | np.uint64(1 << frac_bits), fraction)
    q = xp.where(normal, biased - 1, 0) + q_min
    # Just above a power of two (not at the smallest exponent) the lower neighbour is half as far away.
    irregular = (fraction == 0) & (biased > 1)
    k = xp.where(irregular, (q * 315653 - 131008) >> 20, (q * 315653) >> 20)  # floor(log10(3/4 2**q)), floor(log10 2**q)
    h = (q + ((-k * 1741647) >> 19) + 1).astype(np.uint64)  # q + floor(log2(10**-k)) + 1: 1 <= h <= 7
    g_high, g_low = xp.asarray(_G_HIGH)[k - _K_MIN], xp.asarray(_G_LOW)[k - _K_MIN]
    exact = (k <= 0) & (k >= -38)  # the table holds 10**-k exactly
    cb = c << np.uint64(2)
    vb = _round_to_odd(g_high, g_low, cb << h, exact)
    vbl = _round_to_odd(g_high, g_low, (cb - xp.where(irregular, one, np.uint64(2))) << h, exact)
    vbr = _round_to_odd(g_high, g_low, (cb + np.uint64(2)) << h, exact)
    out = c & one  # odd c: the interval is open, the boundaries themselves do not round back
    s = vb >> np.uint64(2)
    ten = np.uint64(10)
    sp10 = s - s % ten
    tp10 = sp10 + ten
    upin = vbl + out <= sp10 << np.uint64(2)
    wpin = (tp10 << np.uint64(2)) + out <= vbr
    t = s + one
    uin = vbl + out <= s << np.uint64(2)
    win = (t << np.uint64(2)) + out <= vbr
    middle = (s << np.uint64(2)) + np.uint64(2)
    pick_s = (vb < middle) | ((vb == middle) & ((s & one) == 0))
    digits = xp.where(upin != wpin, xp.where(upin, sp10, tp10),
                      xp.where(uin != win, xp.where(uin, s, t), xp.where(pick_s, s, t)))  # fmt: skip
    exponent = k.astype(np.int64)
    for step in (16, 8, 4, 2, 1):  # strip trailing zeros: at most 16 of them
        power = np.uint64(10**step)
        divisible = (digits % power == 0) & (digits != 0)
        digits = xp.where(divisible, digits // power, digits)
        exponent = exponent + xp.where(divisible, step, 0)
    return digits, exponent


def _layout(values: Any, xp: Any) -> dict:
    """Per value: what its text is made of (sign, kind, digits, their count, decimal exponent, positional)."""
    itemsize = values.dtype.itemsize
    frac_bits, exp_bits, _, low_bits, high_bits = _FORMATS[itemsize]
    bits = values.view(np.uint32 if itemsize == 4 else np.uint64).astype(np.uint64)
    sign_shift = np.uint64(itemsize * 8 - 1)
    negative = (bits >> sign_shift).astype(bool)
    magnitude = bits & np.uint64((1 << (itemsize * 8 - 1)) - 1)
    exp_all_ones = np.uint64(((1 << exp_bits) - 1) << frac_bits)
    special = magnitude >= exp_all_ones  # inf or nan
    is_nan = magnitude > exp_all_ones
    zero = magnitude == 0
    digits, exponent = shortest_digits(magnitude, itemsize, xp)
    digits = xp.where(special | zero, np.uint64(0), digits)
    count = xp.searchsorted(xp.asarray(_POW10), digits, side="right").astype(np.int64)
    count = xp.maximum(count, 1)
    sci_exp = xp.where(special | zero, 0, exponent + count - 1)  # the exponent of the first digit
    positional = zero | ((magnitude >= np.uint64(low_bits)) & (magnitude < np.uint64(high_bits)))
    negative = negative & ~is_nan  # NaN is written "nan", whatever its sign bit
    # The ASCII digits once, units first (column r is the digit of 10**r): positions then gather from them.
    widest = int(count.max()) if count.shape[0] else 1  # one scalar read: how many digit columns to make
    ascii_digits = xp.empty((count.shape[0], widest), dtype=np.uint8)
    rest = digits
    for r in range(widest):  # a loop over digit positions, not over rows
        quotient = rest // np.uint64(10)
        ascii_digits[:, r] = (rest - quotient * np.uint64(10)).astype(np.uint8) + np.uint8(48)
        rest = quotient
    return dict(negative=negative, special=special, is_nan=is_nan, digits=digits, count=count, e=sci_exp,
                positional=positional, ascii_digits=ascii_digits)  # fmt: skip


def _lengths(lay: dict, xp: Any) -> Any:
    count, e = lay["count"], lay["e"]
    neg = lay["negative"].astype(np.int64)
    point = e + 1  # digits before the decimal point (<= 0: "0." and -point zeros first)
    fixed = xp.maximum(point, 1) + 1 + xp.maximum(count - point, 1)
    exp_digits = xp.where(xp.abs(e) >= 100, 3, 2)
    scientific = count + (count > 1) + 2 + exp_digits
    body = xp.where(lay["special"], 3, xp.where(lay["positional"], fixed, scientific))
    return neg + body


def _digit(x: Any, r: Any, xp: Any) -> Any:
    """ASCII of decimal digit ``r`` (0 = units) of uint64 ``x``."""
    return ((x // xp.asarray(_POW10)[xp.clip(r, 0, 19)]) % np.uint64(10)).astype(np.int64) + 48


def _ascii_digit(lay: dict, r: Any, xp: Any) -> Any:
    """ASCII of digit ``r`` (0 = units) of every row's digits (``r`` clipped into range)."""
    table = lay["ascii_digits"]
    r = xp.clip(r, 0, table.shape[1] - 1)
    return xp.take_along_axis(table, r[:, None], axis=1)[:, 0].astype(np.int64)


def _char_at(lay: dict, j: int, xp: Any) -> Any:
    """The character at position ``j`` of every value's text (garbage past a text's end)."""
    neg = lay["negative"].astype(np.int64)
    count, e = lay["count"], lay["e"]
    p = j - neg  # position after the sign
    # positional: the digit of 10**m, where m is this position's power of ten
    int_len = xp.maximum(e + 1, 1)
    m = xp.where(p < int_len, int_len - 1 - p, int_len - p)
    r = m - (e - count + 1)
    fixed = xp.where(p == int_len, 46, xp.where((r >= 0) & (r < count), _ascii_digit(lay, r, xp), 48))
    # scientific: d[.ddd]e+XX
    mant = count + (count > 1)
    abs_e = xp.abs(e).astype(np.uint64)
    exp_digits = xp.where(abs_e >= np.uint64(100), 3, 2)
    sci = xp.where(p == 0, _ascii_digit(lay, count - 1, xp),
                   xp.where(p < mant, xp.where(p == 1, 46, _ascii_digit(lay, count - p, xp)),
                            xp.where(p == mant, 101, xp.where(p == mant + 1, xp.where(e < 0, 45, 43),
                                                              _digit(abs_e, exp_digits - 1 - (p - mant - 2), xp)))))  # fmt: skip
    word = xp.asarray(np.frombuffer(b"infnan", dtype=np.uint8).astype(np.int64))
    special = word[xp.clip(p, 0, 2) + 3 * lay["is_nan"].astype(np.int64)]
    body = xp.where(lay["special"], special, xp.where(lay["positional"], fixed, sci))
    return xp.where(p < 0, 45, body).astype(np.uint8)


_BLOCK = 1 << 15  # NumPy works through blocks of this many values, so that its temporaries stay in cache


def _float_text_xp(values: Any, xp: Any) -> tuple[Any, Any]:
    n = values.shape[0]
    if xp is np and n > _BLOCK:
        # A CPU-specific schedule (a loop over blocks of rows, each vectorised): the ~200 array operations of
        # the algorithm then run on cache-resident temporaries. The result is the concatenation of the blocks.
        parts = [_float_text_xp(values[i : i + _BLOCK], xp) for i in range(0, n, _BLOCK)]
        lengths = np.concatenate([np.diff(offsets) for offsets, _ in parts])
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return offsets, np.concatenate([chars for _, chars in parts])
    lay = _layout(values, xp)
    lengths = _lengths(lay, xp)
    offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(lengths, out=offsets[1:])
    width = int(lengths.max()) if n else 0  # one scalar read: how many character positions to build
    if width == 0:
        return offsets, xp.zeros(0, dtype=np.uint8)
    slots = xp.empty((n, width), dtype=np.uint8)
    for j in range(width):  # a loop over character positions, not over rows
        slots[:, j] = _char_at(lay, j, xp)
    keep = xp.arange(width, dtype=np.int64)[None, :] < lengths[:, None]
    return offsets, slots[keep]  # row-major: each row's characters in order, rows one after the other


# --- the CUDA kernels ---------------------------------------------------------------------------------------
FORMAT_SOURCE = r"""
typedef unsigned long long u64;
typedef long long i64;

// floor(g * cp / 2**128), its lowest bit set when anything below was cut; where g over-approximates (not
// exact) the lowest 64 bits hold only its error and are left out.
__device__ __forceinline__ u64 riptide_rop(u64 g_high, u64 g_low, u64 cp, int exact) {
    const u64 p1_high = __umul64hi(g_high, cp), p1_low = g_high * cp;
    const u64 p0_high = __umul64hi(g_low, cp), p0_low = g_low * cp;
    const u64 mid = p1_low + p0_high;
    const u64 top = p1_high + (mid < p1_low ? 1ULL : 0ULL);
    return top | ((mid != 0ULL || (exact && p0_low != 0ULL)) ? 1ULL : 0ULL);
}

// One thread per value: its text into slots[i * 24 ...], its length into lengths[i]. single: float32 input.
// table: 2 * 617 words (high, low) of g(k), k = -324 ... 292.
extern "C" __global__ void riptide_format_float(const void* values, const int single, const i64 n,
                                                const u64* __restrict__ table, unsigned char* __restrict__ slots,
                                                i64* __restrict__ lengths) {
    const i64 stride = (i64)blockDim.x * gridDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        u64 magnitude, fraction, low_bits, high_bits;
        int negative, biased, frac_bits, q_min, exp_ones;
        if (single) {
            const unsigned int b = ((const unsigned int*)values)[i];
            negative = (int)(b >> 31);
            magnitude = b & 0x7FFFFFFFu;
            frac_bits = 23; q_min = -149; exp_ones = 0xFF;
            biased = (int)((b >> 23) & 0xFFu);
            low_bits = 0x38D1B718ULL; high_bits = 0x49742400ULL;
        } else {
            const u64 b = ((const u64*)values)[i];
            negative = (int)(b >> 63);
            magnitude = b & 0x7FFFFFFFFFFFFFFFULL;
            frac_bits = 52; q_min = -1074; exp_ones = 0x7FF;
            biased = (int)((b >> 52) & 0x7FFULL);
            low_bits = 0x3F1A36E2EB1C432DULL; high_bits = 0x4341C37937E08000ULL;
        }
        fraction = magnitude & ((1ULL << frac_bits) - 1ULL);
        unsigned char* out = slots + i * 24;
        int len = 0;
        if (biased == exp_ones) {
            if (fraction != 0ULL) {  // NaN: never signed
                out[0] = 'n'; out[1] = 'a'; out[2] = 'n';
                lengths[i] = 3;
                continue;
            }
            if (negative) out[len++] = '-';
            out[len++] = 'i'; out[len++] = 'n'; out[len++] = 'f';
            lengths[i] = len;
            continue;
        }
        if (negative) out[len++] = '-';
        if (magnitude == 0ULL) {
            out[len++] = '0'; out[len++] = '.'; out[len++] = '0';
            lengths[i] = len;
            continue;
        }
        // --- the shortest digits (see the module docstring) ---
        const u64 c = biased > 0 ? (fraction | (1ULL << frac_bits)) : fraction;
        const int q = (biased > 0 ? biased - 1 : 0) + q_min;
        const int irregular = fraction == 0ULL && biased > 1;
        const int k = irregular ? ((q * 315653 - 131008) >> 20) : ((q * 315653) >> 20);
        const int h = q + ((-k * 1741647) >> 19) + 1;
        const u64 g_high = table[2 * (k + 324)], g_low = table[2 * (k + 324) + 1];
        const int exact = k <= 0 && k >= -38;  // the table holds 10**-k exactly
        const u64 cb = c << 2;
        const u64 vb = riptide_rop(g_high, g_low, cb << h, exact);
        const u64 vbl = riptide_rop(g_high, g_low, (cb - (irregular ? 1ULL : 2ULL)) << h, exact);
        const u64 vbr = riptide_rop(g_high, g_low, (cb + 2ULL) << h, exact);
        const u64 out_bit = c & 1ULL;
        const u64 s = vb >> 2;
        const u64 sp10 = s - s % 10ULL, tp10 = sp10 + 10ULL;
        const int upin = vbl + out_bit <= (sp10 << 2), wpin = (tp10 << 2) + out_bit <= vbr;
        u64 digits;
        if (upin != wpin) {
            digits = upin ? sp10 : tp10;
        } else {
            const u64 t = s + 1ULL;
            const int uin = vbl + out_bit <= (s << 2), win = (t << 2) + out_bit <= vbr;
            if (uin != win) {
                digits = uin ? s : t;
            } else {
                const u64 middle = (s << 2) + 2ULL;
                digits = (vb < middle || (vb == middle && (s & 1ULL) == 0ULL)) ? s : t;
            }
        }
        int e10 = k;
        while (digits % 10ULL == 0ULL) { digits /= 10ULL; e10++; }
        // --- the digits, most significant first ---
        char d[20];
        int count = 0;
        for (u64 x = digits; x != 0ULL; x /= 10ULL) d[count++] = (char)('0' + (int)(x % 10ULL));
        for (int a = 0, b = count - 1; a < b; a++, b--) { const char tmp = d[a]; d[a] = d[b]; d[b] = tmp; }
        const int e = e10 + count - 1;  // exponent of the first digit
        if (magnitude >= low_bits && magnitude < high_bits) {
            const int point = e + 1;
            if (point <= 0) {
                out[len++] = '0'; out[len++] = '.';
                for (int z = 0; z < -point; z++) out[len++] = '0';
                for (int a = 0; a < count; a++) out[len++] = d[a];
            } else if (point < count) {
                for (int a = 0; a < count; a++) {
                    if (a == point) out[len++] = '.';
                    out[len++] = d[a];
                }
            } else {
                for (int a = 0; a < count; a++) out[len++] = d[a];
                for (int z = count; z < point; z++) out[len++] = '0';
                out[len++] = '.'; out[len++] = '0';
            }
        } else {
            out[len++] = d[0];
            if (count > 1) {
                out[len++] = '.';
                for (int a = 1; a < count; a++) out[len++] = d[a];
            }
            out[len++] = 'e';
            out[len++] = e < 0 ? '-' : '+';
            const int ae = e < 0 ? -e : e;
            if (ae >= 100) out[len++] = (char)('0' + ae / 100);
            out[len++] = (char)('0' + (ae / 10) % 10);
            out[len++] = (char)('0' + ae % 10);
        }
        lengths[i] = len;
    }
}

// Compaction: row i's first lengths[i] bytes of its 24-byte slot go to out[offsets[i] ...].
extern "C" __global__ void riptide_compact_slots(const unsigned char* __restrict__ slots, const i64 n,
                                                 const i64* __restrict__ offsets, unsigned char* __restrict__ out) {
    const i64 stride = (i64)blockDim.x * gridDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const i64 start = offsets[i], len = offsets[i + 1] - start;
        const unsigned char* from = slots + i * 24;
        for (i64 j = 0; j < len; j++) out[start + j] = from[j];
    }
}
"""


@functools.cache
def _kernel(name: str) -> Any:
    import cupy as cp

    return cp.RawKernel(FORMAT_SOURCE, name)


@functools.cache
def _device_table(xp: Any) -> Any:
    return xp.asarray(np.stack([_G_HIGH, _G_LOW], axis=1).reshape(-1))


def _float_text_cuda(values: Any, xp: Any) -> tuple[Any, Any]:
    from riptide.core.kernels.hashing import launch

    n = int(values.shape[0])
    values = xp.ascontiguousarray(values)
    slots = xp.empty(max(n, 1) * _WIDTH, dtype=np.uint8)
    lengths = xp.empty(n, dtype=np.int64)
    if n:
        launch(_kernel("riptide_format_float"), n,
               (values, np.int32(values.dtype.itemsize == 4), np.int64(n), _device_table(xp), slots, lengths))  # fmt: skip
    offsets = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1]) if n else 0  # one scalar read: the size of the character buffer
    chars = xp.empty(total, dtype=np.uint8)
    if total:
        launch(_kernel("riptide_compact_slots"), n, (slots, np.int64(n), offsets, chars))
    return offsets, chars
