"""Stable sorting helpers shared by factorization, lookups and sort_values.

CuPy's ``argsort`` is always stable (and takes no ``kind``); NumPy's needs ``kind="stable"``.

:func:`float_sort_key` turns floats into integers that sort the same way (one CUDA kernel on the GPU,
its NumPy twin beside it), so that a float sort is an integer radix sort whose handling of NaN and
``-0.0`` riptide controls instead of the sort library. :func:`pack_keys` combines several small-range
integer keys into one (mixed radix), so that one radix sort replaces several.
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

__all__ = ["stable_argsort", "stable_argsort_with_values", "thrust_sorts_in_place", "lexsort",
           "inverse_permutation", "float_sort_key", "float_from_sort_key", "pack_keys"]


_RADIX_MIN_ROWS = 1 << 15  # below this, checking the range costs more than it saves


def stable_argsort(values: Any, xp: types.ModuleType) -> Any:
    """Indices that sort ``values``, equal values keeping their order.

    On NumPy, integers spanning fewer than 2**16 values (group numbers, codes) are sorted as their offset from
    the minimum in uint16 (or uint8): NumPy's stable sort is a radix sort for those widths and a merge sort for
    wider ones. The same order, found in linear time.
    """
    if xp is np:
        if values.ndim == 1 and values.dtype.kind in "iub" and values.dtype.itemsize > 1 and \
                values.shape[0] >= _RADIX_MIN_ROWS:  # fmt: skip
            low, high = int(values.min()), int(values.max())
            if high - low < 1 << 16:
                narrow = np.uint8 if high - low < 1 << 8 else np.uint16
                shifted = values - values.dtype.type(low) if low else values
                return np.argsort(shifted.astype(narrow), kind="stable")
        return np.argsort(values, kind="stable")
    return xp.argsort(values)


def stable_argsort_with_values(values: Any, xp: types.ModuleType, overwrite: bool = False) -> tuple[Any, Any]:
    """``(order, values[order])`` of a 1-D integer array: the stable sort order and the sorted values.

    On the GPU a radix argsort sorts a copy of the keys together with the positions and then throws the
    sorted keys away; asking thrust directly keeps them, which saves the random gather ``values[order]``
    (about a quarter of a sort's time). ``overwrite=True`` lets the sort reorder ``values`` itself.

    >>> order, ordered = stable_argsort_with_values(np.array([3, 1, 2, 1]), np)
    >>> order.tolist(), ordered.tolist()
    ([1, 3, 2, 0], [1, 1, 2, 3])
    """
    n = values.shape[0]
    if xp is not np and n > 0:
        thrust_argsort = _thrust_argsort_in_place()
        if thrust_argsort is not None:
            keys = values if overwrite else values.copy()
            order = xp.empty(n, dtype=np.intp)
            thrust_argsort(keys.dtype, order.data.ptr, keys.data.ptr, 0, (n,))
            return order, keys
    order = stable_argsort(values, xp)
    return order, values[order]


def thrust_sorts_in_place() -> bool:
    """Whether :func:`stable_argsort_with_values` sorts a GPU array in place (else it sorts a copy and gathers)."""
    return _thrust_argsort_in_place() is not None


@functools.cache
def _thrust_argsort_in_place() -> Any:
    """CuPy's thrust argsort binding when it sorts the keys in place and writes the positions (checked once on
    a small array: it is not public API, so another CuPy version may differ), else None."""
    try:
        import cupy
        from cupy.cuda import thrust

        keys = cupy.asarray(np.array([3, 1, 2, 1, -5], dtype=np.int64))
        order = cupy.empty(5, dtype=np.intp)
        thrust.argsort(keys.dtype, order.data.ptr, keys.data.ptr, 0, (5,))
        from riptide import _device

        if _device.to_host(order).tolist() == [4, 1, 3, 2, 0] and _device.to_host(keys).tolist() == [-5, 1, 1, 2, 3]:
            return thrust.argsort
    except Exception:  # noqa: BLE001 - any failure means: use the public argsort and a gather
        pass
    return None


def lexsort(keys: list[Any], xp: types.ModuleType) -> Any:
    """Indices that sort rows by ``keys[0]``, then ``keys[1]``, ... (keys may differ in dtype).

    Least-significant key first, one stable sort per key (LSD radix over whole keys).

    >>> lexsort([np.array([1, 0, 1]), np.array([0.5, 9.0, 0.1])], np).tolist()
    [1, 2, 0]
    """
    order = stable_argsort(keys[-1], xp)
    for key in reversed(keys[:-1]):
        order = order[stable_argsort(key[order], xp)]
    return order


def inverse_permutation(order: Any, xp: types.ModuleType) -> Any:
    """Each position's place in ``order`` (a permutation of ``0..n-1``): the rank of each row when ``order`` sorts.

    >>> inverse_permutation(np.array([2, 0, 1]), np).tolist()
    [1, 2, 0]
    """
    rank = xp.empty(order.shape[0], dtype=np.int64)
    rank.put(order, xp.arange(order.shape[0], dtype=np.int64))  # (put: CuPy's cheapest scatter)
    return rank


# --------------------------------------------------------------------------- float sort keys

_FLOAT_KEY_LAYOUT = {
    # float width: (integer type, CUDA bit cast, C literals for INT_MAX, the +inf bit pattern, INT_MIN)
    64: (np.int64, "__double_as_longlong", "0x7FFFFFFFFFFFFFFFLL", "0x7FF0000000000000LL",
         "(-0x7FFFFFFFFFFFFFFFLL - 1)"),
    32: (np.int32, "__float_as_int", "0x7FFFFFFF", "0x7F800000", "(-0x7FFFFFFF - 1)"),
}

_FLOAT_KEY_BODY = r"""
    const I bits = {cast}(x);
    const I magnitude = bits & {int_max};
    if (magnitude > {inf_bits} || !valid) {{
        key = missing_first ? {int_min} : {int_max};
    }} else {{
        const I ordered = magnitude == 0 ? (I)0 : (bits ^ ((bits >> {shift}) & {int_max}));
        key = descending ? ~ordered : ordered;
    }}
"""


@functools.cache
def _float_key_kernel(width: int, gathered: bool) -> Any:
    import cupy

    _, cast, int_max, inf_bits, int_min = _FLOAT_KEY_LAYOUT[width]
    float_name, int_name, c_type = ("float64", "int64", "long long") if width == 64 else ("float32", "int32", "int")
    body = _FLOAT_KEY_BODY.format(cast=cast, int_max=int_max, inf_bits=inf_bits, int_min=int_min, shift=width - 1)
    body = body.replace("I ", f"{c_type} ").replace("(I)", f"({c_type})")
    if gathered:  # row i's value is data[rows[i]]: the key of a gather without the gathered copy
        params = f"int64 row, raw {float_name} data, raw bool validity, bool masked"
        float_type = "double" if width == 64 else "float"
        body = f"const {float_type} x = data[row];\nconst bool valid = !masked || validity[row];\n" + body
    else:
        params = f"{float_name} x, bool valid"
    return cupy.ElementwiseKernel(
        f"{params}, bool descending, bool missing_first", f"{int_name} key", body,
        f"riptide_float{width}_sort_key{'_gathered' if gathered else ''}",
    )  # fmt: skip


def float_sort_key(data: Any, valid: Any, ascending: bool, missing_first: bool, xp: types.ModuleType,
                   rows: Any = None) -> Any:  # fmt: skip
    """Signed integers (int32 for float32, int64 for float64) whose order is the order of ``data``.

    NaN and the rows where ``valid`` is False (None: all valid) become INT_MIN with ``missing_first``,
    else INT_MAX: values no float maps to. ``-0.0`` maps to the key of ``0.0`` (they tie); denormals keep
    their order (the test for zero reads the bits, so a flush-to-zero float unit cannot merge them).
    ``ascending=False`` reverses the order of the values (bitwise not), not of the missing rows.
    ``rows`` (int64 positions): the keys of ``data[rows]`` (and ``valid[rows]``), read in place, not gathered first.

    >>> float_sort_key(np.array([1.5, -0.0, np.nan, -2.0, 0.0]), None, True, False, np).argsort(kind="stable").tolist()
    [3, 1, 4, 0, 2]
    """
    width = data.dtype.itemsize * 8
    if xp is not np:
        if rows is not None:
            validity = xp.ones(1, dtype=bool) if valid is None else valid  # (a placeholder, unread when unmasked)
            return _float_key_kernel(width, True)(rows, data, validity, valid is not None, not ascending,
                                                  missing_first)  # fmt: skip
        return _float_key_kernel(width, False)(data, True if valid is None else valid, not ascending, missing_first)
    if rows is not None:
        data, valid = data[rows], None if valid is None else valid[rows]
    int_type, _, _, _, _ = _FLOAT_KEY_LAYOUT[width]
    int_max = np.iinfo(int_type).max
    inf_bits = int_type(0x7FF0000000000000 if width == 64 else 0x7F800000)
    bits = data.view(int_type)
    magnitude = bits & int_type(int_max)
    # Negative floats order backwards as signed integers: flip their magnitude bits.
    key = np.where(magnitude == 0, int_type(0), bits ^ ((bits >> (width - 1)) & int_type(int_max)))
    if not ascending:
        key = np.invert(key)
    missing = magnitude > inf_bits
    if valid is not None:
        missing |= ~valid
    return np.where(missing, int_type(np.iinfo(int_type).min if missing_first else int_max), key)


# The floats back from their sorted keys, written over the keys. A key is a bijection of its float except for
# zero (-0.0 and 0.0 share it) and the missing key (every NaN payload and every null row): those rows read
# their float (and validity) from the source row the sort put there, so the result is exact bit for bit.
_FLOAT_FROM_KEY_BODY = r"""
    const I missing = missing_first ? {int_min} : {int_max};
    const I ordered = descending ? ~key : key;
    if (key == missing || ordered == 0) {{
        const long long row = gathered ? rows[order] : order;
        out = {cast}(data[row]);
        {valid_from_source}
    }} else {{
        out = ordered < 0 ? (ordered ^ {int_max}) : ordered;
        {valid_present}
    }}
"""


@functools.cache
def _float_from_key_kernel(width: int, masked: bool) -> Any:
    import cupy

    _, cast, int_max, _, int_min = _FLOAT_KEY_LAYOUT[width]
    float_name, int_name, c_type = ("float64", "int64", "long long") if width == 64 else ("float32", "int32", "int")
    body = _FLOAT_FROM_KEY_BODY.format(
        int_min=int_min, int_max=int_max, cast=cast,
        valid_from_source="valid = validity[row];" if masked else "", valid_present="valid = true;" if masked else "",
    ).replace("I ", f"{c_type} ")  # fmt: skip
    params = (f"{int_name} key, int64 order, raw {float_name} data, raw int64 rows, bool gathered"
              + (", raw bool validity" if masked else "") + ", bool descending, bool missing_first")  # fmt: skip
    return cupy.ElementwiseKernel(params, f"{int_name} out" + (", bool valid" if masked else ""), body,
                                  f"riptide_float{width}_from_sort_key{'_masked' if masked else ''}")


def float_from_sort_key(key: Any, order: Any, data: Any, valid: Any, ascending: bool, missing_first: bool,
                        xp: types.ModuleType, rows: Any = None) -> tuple[Any, Any]:  # fmt: skip
    """``(data[order], valid[order])`` from the sorted :func:`float_sort_key` of ``data`` and its sort ``order``.

    The floats are decoded from ``key`` itself (on the GPU written over it: ``key`` is consumed), so a float
    sort needs no gather of the sorted values; only zeros and missing rows are read from ``data`` (at
    ``rows[order]`` when the key was made with ``rows``). ``valid``: None when ``data`` has no validity mask.

    >>> data = np.array([2.5, np.nan, -0.0, -1.0])
    >>> key = float_sort_key(data, None, True, False, np)
    >>> order = key.argsort(kind="stable")
    >>> float_from_sort_key(key[order], order, data, None, True, False, np)[0].tolist()
    [-1.0, -0.0, 2.5, nan]
    """
    width = data.dtype.itemsize * 8
    int_type, _, _, _, _ = _FLOAT_KEY_LAYOUT[width]
    if xp is not np:
        kernel = _float_from_key_kernel(width, valid is not None)
        source_rows = order if rows is None else rows  # (a placeholder the kernel does not read when not gathered)
        if valid is None:
            kernel(key, order, data, source_rows, rows is not None, not ascending, missing_first, key)
            return key.view(data.dtype), None
        out_valid = xp.empty(key.shape[0], dtype=bool)
        kernel(key, order, data, source_rows, rows is not None, valid, not ascending, missing_first, key, out_valid)
        return key.view(data.dtype), out_valid
    info = np.iinfo(int_type)
    ordered = key if ascending else np.invert(key)
    from_source = (key == int_type(info.min if missing_first else info.max)) | (ordered == 0)
    source = order if rows is None else rows[order]
    bits = np.where(ordered < 0, ordered ^ int_type(info.max), ordered)
    bits = np.where(from_source, data.view(int_type)[source], bits)
    out_valid = None if valid is None else (~from_source | valid[source])
    return bits.view(data.dtype), out_valid


# --------------------------------------------------------------------------- packed keys


_TYPE_PLACEHOLDERS = "ABCDEFGHIJKLMNPQRSTUVWXYZ"  # CuPy's type placeholders are single capitals; O is the output


@functools.cache
def _pack_kernel(n_keys: int) -> Any:
    import cupy

    params = ", ".join(f"{_TYPE_PLACEHOLDERS[i]} k{i}, uint64 low{i}, uint64 radix{i}" for i in range(n_keys))
    lines = ["unsigned long long packed = (unsigned long long)k0 - low0;"]
    lines += [f"packed = packed * radix{i} + ((unsigned long long)k{i} - low{i});" for i in range(1, n_keys)]
    lines.append("out = (O)packed;")
    return cupy.ElementwiseKernel(params, "O out", "\n".join(lines), f"riptide_pack_{n_keys}_keys")


def pack_keys(keys: list[Any], lows: list[int], radices: list[int], dtype: Any, xp: types.ModuleType) -> Any:
    """One unsigned key ``sum((keys[i] - lows[i]) * prod(radices[i+1:]))`` in ``dtype`` (most significant first).

    Each ``keys[i]`` holds integers in ``[lows[i], lows[i] + radices[i])`` and the product of the radices
    fits ``dtype``, so comparing packed keys compares the key tuples. Wrapping uint64 arithmetic makes the
    offsets exact for any signed or unsigned input.

    >>> pack_keys([np.array([1, 0, 1]), np.array([-1, 5, 0], dtype=np.int8)], [0, -1], [2, 7], np.uint8, np).tolist()
    [7, 6, 8]
    """
    if xp is not np and len(keys) <= len(_TYPE_PLACEHOLDERS):
        out = xp.empty(keys[0].shape[0], dtype=dtype)
        args = []
        for key, low, radix in zip(keys, lows, radices):
            args += [key, np.uint64(low % 2**64), np.uint64(radix % 2**64)]
        return _pack_kernel(len(keys))(*args, out)
    packed = None
    for key, low, radix in zip(keys, lows, radices):  # the same arithmetic, one array operation at a time
        part = key.astype(np.uint64) - np.uint64(low % 2**64)
        packed = part if packed is None else packed * np.uint64(radix) + part
    return packed.astype(dtype, copy=False)
