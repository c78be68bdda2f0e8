"""Parse decimal text into numbers on the device, vectorised over the bytes of a string column.

The grammar is pandas' (``to_numeric`` on ``str`` data): optional ASCII whitespace around the number (space,
``\\t \\n \\v \\f \\r``), an optional sign, digits with at most one ``.`` (at least one digit), and an optional
exponent ``[eE][+-]digits``. ``inf``/``infinity`` (any case, optional sign, *no* surrounding whitespace) is
infinity. Everything else is invalid, notably ``nan`` spellings, whitespace-only text, non-ASCII digits and
spaces (pandas rejects all of these); the empty string is a missing value.

Every row is classified with whole-array operations: per-byte classes (digit, dot, exponent letter, sign,
whitespace, other) are counted per row with an exclusive ``cumsum`` read at the row's bounds, and the positions
of the first/last of a class in a row come from ``searchsorted`` on the same running counts. A row's digits
become an integer as a segmented sum of ``digit * 10**rank`` in uint64; the running sum may wrap, but the
difference of two running sums is exact modulo 2**64, hence exact whenever the row's value fits.

Floats are computed exactly as Python's ``float()`` where that is cheap to guarantee: a mantissa ``M`` without
trailing zeros of at most 19 significant digits, scaled by ``10**E``. ``M == 0`` is a signed zero; ``E`` beyond
the float64 range gives ``inf`` or ``0``; ``M <= 2**53`` with ``|E| <= 22`` is one correctly rounded
multiplication or division by an exact power of ten (Clinger's fast path), extended to ``E <= 37`` when
``M * 10**(E-22)`` is still an exact integer below 2**53. The remaining rows (e.g. 17-digit ``repr`` output,
more than 19 significant digits) are *host rows*: just their bytes are copied to the host, parsed with
``float()`` and copied back. Integer text beyond int64 is reported (``big_int``) for the caller to decide,
because pandas' dtype for it (uint64, object, or even the unchanged strings) depends on the other rows.
"""

from __future__ import annotations

import types
from typing import Any, NamedTuple

import numpy as np

from riptide.core.kernels import segments
from riptide.core.kernels.scan import exclusive_cumsum

__all__ = ["NumberParse", "parse_numbers"]

_POW10_U64 = np.array([10**k for k in range(20)], dtype=np.uint64)
_POW10_F64 = np.array([float(10**k) for k in range(23)], dtype=np.float64)
_EXP_RANK_LIMIT = 11  # exponents with more significant digits saturate (far beyond the float64 range)
_TWO53 = 2**53


class NumberParse(NamedTuple):
    """Per-row outcome of :func:`parse_numbers` (arrays of the column's length)."""

    floats: Any  # float64 value of every valid row (NaN elsewhere)
    ints: Any  # int64 value of integer rows that fit int64
    is_int: Any  # text is an integer (no '.', no exponent) that fits int64
    big_int: Any  # text is an integer beyond int64
    invalid: Any  # text that is not a number for pandas
    empty: Any  # the empty string (pandas: missing)
    host_rows: int  # how many rows were parsed with float() on the host


def parse_numbers(offsets: Any, chars: Any, xp: types.ModuleType) -> NumberParse:
    """Parse every row of a string layout (``offsets``, UTF-8 ``chars``) as pandas' decimal text.

    >>> import numpy as np
    >>> raw = [b"12", b" -3.5e1 ", b"inf", b"x", b""]
    >>> offsets = np.cumsum([0] + [len(r) for r in raw])
    >>> p = parse_numbers(offsets, np.frombuffer(b"".join(raw), np.uint8), np)
    >>> p.floats.tolist(), p.is_int.tolist(), p.invalid.tolist(), p.empty.tolist()
    ([12.0, -35.0, inf, nan, nan], [True, False, False, False, False], [False, False, False, True, False], \
[False, False, False, False, True])
    """
    offsets = offsets.astype(np.int64, copy=False)
    starts, ends = offsets[:-1], offsets[1:]
    total = chars.shape[0]
    b = xp.concatenate([chars.astype(np.uint8, copy=False), xp.zeros(1, dtype=np.uint8)])  # pad: safe gathers
    body = b[:total]

    def at(pos: Any) -> Any:  # the byte at each row's position (0 past the end of the buffer)
        return b[xp.clip(pos, 0, total)]

    is_ws = (body == 32) | ((body >= 9) & (body <= 13))
    is_digit = (body >= 48) & (body <= 57)
    is_dot = body == 46
    is_e = (body == 101) | (body == 69)
    is_sign = (body == 43) | (body == 45)
    is_other = ~(is_digit | is_dot | is_e | is_sign)  # whitespace inside the number is "other" too

    def first_at_or_after(running: Any, pos: Any, k: Any = 1) -> Any:
        # Position of the k-th flagged byte at or after pos: running[j] >= running[pos] + k first holds at j = p+1.
        return xp.searchsorted(running, running[pos] + k, side="left") - 1

    nonws = exclusive_cumsum(~is_ws, xp)
    n_nonws = nonws[ends] - nonws[starts]
    has_text = n_nonws > 0
    s = xp.where(has_text, first_at_or_after(nonws, starts), starts)
    e = xp.where(has_text, first_at_or_after(nonws, starts, n_nonws) + 1, starts)

    has_sign = has_text & ((at(s) == 43) | (at(s) == 45))
    negative = has_sign & (at(s) == 45)
    p0 = s + has_sign
    e_run = exclusive_cumsum(is_e, xp)
    n_e = e_run[e] - e_run[s]
    epos = xp.where(n_e >= 1, first_at_or_after(e_run, s), e)
    exp_sign = (n_e >= 1) & (epos + 1 < e) & ((at(epos + 1) == 43) | (at(epos + 1) == 45))
    exp_negative = exp_sign & (at(epos + 1) == 45)
    edig0 = xp.minimum(epos + 1 + exp_sign, e)

    def count(flags_run: Any, lo: Any, hi: Any) -> Any:
        return flags_run[hi] - flags_run[lo]

    dot_run = exclusive_cumsum(is_dot, xp)
    digit_run = exclusive_cumsum(is_digit, xp)
    n_dot_m = count(dot_run, p0, epos)
    n_mdig = count(digit_run, p0, epos)
    n_edig = xp.where(n_e >= 1, count(digit_run, edig0, e), 0)
    numeric = (
        has_text
        & (count(exclusive_cumsum(is_other, xp), s, e) == 0)
        & (n_e <= 1)
        & (n_dot_m <= 1)
        & (count(dot_run, s, e) == n_dot_m)
        & (count(exclusive_cumsum(is_sign, xp), s, e) == has_sign.astype(np.int64) + exp_sign)
        & (n_mdig >= 1)
        & ((n_e == 0) | (n_edig >= 1))
    )

    # inf / infinity, any case, optional sign, nothing around it.
    length = e - p0
    word = b"infinity"
    matches = xp.ones(starts.shape[0], dtype=bool)
    for j in range(8):  # a loop over the 8 letters, not over rows
        matches &= (j >= length) | ((at(p0 + j) | 0x20) == word[j])
    infinite = has_text & (s == starts) & (e == ends) & ((length == 3) | (length == 8)) & matches

    # Mantissa digits: per byte, its row and its rank (digits after it within the mantissa).
    row = segments.row_of_each_element(offsets, xp)
    pos = xp.arange(total, dtype=np.int64)
    in_mant = is_digit & (pos >= p0[row]) & (pos < epos[row])
    mant_run = exclusive_cumsum(in_mant, xp)
    rank_int = mant_run[epos[row]] - mant_run[pos] - 1
    nonzero = in_mant & (body != 48)
    nz_run = exclusive_cumsum(nonzero, xp)
    n_nz = count(nz_run, p0, epos)
    first_nz = xp.where(n_nz > 0, first_at_or_after(nz_run, p0), epos)
    last_nz = xp.where(n_nz > 0, first_at_or_after(nz_run, p0, xp.maximum(n_nz, 1)), epos - 1)
    trailing_zeros = mant_run[epos] - mant_run[xp.maximum(last_nz + 1, p0)]
    int_digits = mant_run[epos] - mant_run[first_nz]
    significant = xp.where(n_nz > 0, mant_run[xp.maximum(last_nz + 1, p0)] - mant_run[first_nz], 0)
    dpos = xp.where(n_dot_m == 1, first_at_or_after(dot_run, p0), epos)
    fraction = mant_run[epos] - mant_run[dpos]

    digit = (body - 48).astype(np.uint64)
    pow10 = xp.asarray(_POW10_U64)

    def digits_value(rank: Any) -> Any:  # segmented sum of digit * 10**rank over each row's mantissa
        ok = in_mant & (rank >= 0) & (rank <= 18)
        contrib = xp.where(ok, digit * pow10[xp.clip(rank, 0, 18)], xp.uint64(0))
        run = exclusive_cumsum(contrib, xp, np.uint64)
        return run[epos] - run[p0]  # exact modulo 2**64

    m_int = digits_value(rank_int)
    m_float = digits_value(rank_int - trailing_zeros[row])

    integer_text = numeric & (n_dot_m == 0) & (n_e == 0)
    limit = xp.where(negative, xp.uint64(2**63), xp.uint64(2**63 - 1))
    fits = (int_digits <= 19) & (m_int <= limit)
    is_int = integer_text & fits
    signed = m_int.astype(np.int64)  # 2**63 wraps to -2**63, which is right for the negative case
    ints = xp.where(negative, -signed, signed)

    # Exponent value, saturated far beyond the float64 range.
    in_exp = is_digit & (pos >= edig0[row]) & (pos < e[row]) & (n_e[row] >= 1)
    exp_run = exclusive_cumsum(in_exp, xp)
    rank_e = exp_run[e[row]] - exp_run[pos] - 1
    small = in_exp & (rank_e <= _EXP_RANK_LIMIT)
    exp_contrib = xp.where(small, (body.astype(np.int64) - 48) * (10 ** xp.clip(rank_e, 0, _EXP_RANK_LIMIT)), 0)
    exp_value_run = exclusive_cumsum(exp_contrib, xp)
    huge_run = exclusive_cumsum(in_exp & ~small & (body != 48), xp)
    exp_value = count(exp_value_run, edig0, e)
    exp_value = xp.where(count(huge_run, edig0, e) > 0, 10 ** (_EXP_RANK_LIMIT + 2), exp_value)
    exponent = xp.where(exp_negative, -exp_value, exp_value) + trailing_zeros - fraction

    mf = m_float.astype(np.float64)  # exact when m_float <= 2**53
    small_m = m_float <= xp.uint64(_TWO53)
    pow10f = xp.asarray(_POW10_F64)
    scaled_up = mf * pow10f[xp.clip(exponent, 0, 22)]
    scaled_down = mf / pow10f[xp.clip(-exponent, 0, 22)]
    # Beyond 10**22 the product M * 10**(E-22) may still be an exact integer below 2**53.
    extra = xp.clip(exponent - 22, 0, 15)
    extra_pow = pow10[extra]
    fits_extra = m_float <= xp.uint64(_TWO53) // extra_pow
    scaled_more = (m_float * extra_pow).astype(np.float64) * 1e22
    value = xp.full(starts.shape[0], np.nan, dtype=np.float64)
    decided = xp.zeros(starts.shape[0], dtype=bool)

    def settle(where: Any, values: Any) -> None:
        nonlocal value, decided
        take = where & ~decided
        value = xp.where(take, values, value)
        decided = decided | take

    settle(numeric & (n_nz == 0), 0.0)
    settle(numeric & (significant <= 19) & (exponent > 308), np.inf)
    settle(numeric & (significant <= 19) & (exponent + significant <= -324), 0.0)
    settle(numeric & (significant <= 19) & small_m & (exponent >= 0) & (exponent <= 22), scaled_up)
    settle(numeric & (significant <= 19) & small_m & (exponent < 0) & (exponent >= -22), scaled_down)
    settle(numeric & (significant <= 19) & (exponent > 22) & (exponent <= 37) & fits_extra, scaled_more)
    value = xp.where(negative, -value, value)
    value = xp.where(infinite, xp.where(negative, -np.inf, np.inf), value)

    host = numeric & ~decided
    n_host = int(xp.count_nonzero(host))  # one scalar read: whether any row needs the host parser
    if n_host:
        value = _parse_on_host(value, host, s, e, b, xp)
    valid = numeric | infinite
    empty = starts == ends
    return NumberParse(value, ints, is_int, integer_text & ~fits, ~valid & ~empty, empty, n_host)


def _parse_on_host(value: Any, host: Any, s: Any, e: Any, b: Any, xp: types.ModuleType) -> Any:
    """Parse the ``host`` rows (trimmed text ``b[s:e]``) with Python's ``float()`` and put them back."""
    rows = xp.flatnonzero(host)
    # A deliberate host loop over the few rows the device cannot round exactly (see the module docstring).
    parsed = np.array([float(text) for text in segments.pieces_to_host(b, s[rows], e[rows], xp)], dtype=np.float64)
    out = value.copy()
    out[rows] = xp.asarray(parsed)
    return out
