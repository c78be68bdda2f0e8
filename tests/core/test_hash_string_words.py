"""The hash-table kernels' string hashing and equality (eight bytes per load), run on the CPU by g++.

Every GPU hash table (groupby, join, drop_duplicates, isin) hashes and compares string keys with
``hash_bytes`` / ``same_bytes`` of :data:`riptide.core.kernels.hashing._PRELUDE`, which read a string as aligned
8-byte words. Equal strings must hash alike wherever they sit in the chars buffer (any alignment), and equality must
be exact; here the prelude runs behind the emulation shim on strings at every alignment."""

from __future__ import annotations

import ctypes
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riptide.core.kernels import hashing
from tests.core.test_kernel_emulation import build, ptr

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to run the kernels on the CPU")

_KERNEL = hashing._PRELUDE + r"""
extern "C" __global__ void riptide_string_hash_check(const long long* offsets, const unsigned char* chars,
        const long long n, unsigned long long* hashes, const long long* a, const long long* b, const long long m,
        unsigned char* same) {
    for (long long i = 0; i < n; ++i) hashes[i] = hash_bytes(chars + offsets[i], offsets[i + 1] - offsets[i]);
    for (long long j = 0; j < m; ++j)
        same[j] = same_bytes(chars + offsets[a[j]], offsets[a[j] + 1] - offsets[a[j]],
                             chars + offsets[b[j]], offsets[b[j] + 1] - offsets[b[j]]);
}
"""


@pytest.fixture(scope="module")
def kernel():
    return getattr(build([(_KERNEL, "riptide_string_hash_check", {})]), "riptide_string_hash_check_0")


def _run(kernel, values: list[bytes], gaps: list[int]):
    """Hashes of ``values`` laid out with ``gaps[i]`` filler bytes before each (so they sit at every alignment),
    and ``same_bytes`` for every pair."""
    offsets, pieces, position = [], [], 0
    for value, gap in zip(values, gaps, strict=True):
        pieces.append(b"\xa5" * gap)
        position += gap
        offsets.append(position)
        pieces.append(value)
        position += len(value)
    offsets.append(position)
    # 8 spare bytes on each side: the aligned words around the first and last byte stay inside the buffer
    buffer = np.frombuffer(b"\x5a" * 8 + b"".join(pieces) + b"\x5a" * 16, dtype=np.uint8).copy()
    chars = buffer[8:]
    # A row per (value, gap): the offsets skip the filler, so consecutive rows are not adjacent.
    starts = np.array(offsets[:-1], dtype=np.int64)
    ends = starts + np.array([len(v) for v in values], dtype=np.int64)
    flat = np.empty(2 * len(values), dtype=np.int64)
    flat[0::2], flat[1::2] = starts, ends
    # Rows 2r = value r (odd rows are the filler between): offsets pairs [start, end] per value.
    n = len(values)
    row_offsets = np.ascontiguousarray(np.concatenate([flat, flat[-1:]]))
    hashes = np.zeros(2 * n, dtype=np.uint64)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    a, b = np.ascontiguousarray(2 * i.ravel()), np.ascontiguousarray(2 * j.ravel())
    same = np.zeros(a.shape[0], dtype=np.uint8)
    kernel(ptr(row_offsets), ptr(chars), ctypes.c_longlong(2 * n), ptr(hashes), ptr(a), ptr(b),
           ctypes.c_longlong(a.shape[0]), ptr(same))  # fmt: skip
    return hashes[0::2], same.reshape(n, n).astype(bool)


def _check(kernel, values: list[bytes], gaps: list[int]) -> None:
    hashes, same = _run(kernel, values, gaps)
    equal = np.array([[x == y for y in values] for x in values])
    np.testing.assert_array_equal(same, equal)
    for x in range(len(values)):
        for y in range(len(values)):
            if values[x] == values[y]:
                assert hashes[x] == hashes[y], (values[x], gaps[x], gaps[y])
            else:  # 64-bit hashes of a few distinct strings do not collide
                assert hashes[x] != hashes[y], (values[x], values[y])


def test_every_alignment_and_length(kernel):
    """Each string of length 0..24 placed at all eight alignments, next to its neighbours that differ in one byte."""
    base = bytes(range(65, 65 + 24))
    values, gaps = [], []
    for length in range(25):
        for gap in range(8):
            values.append(base[:length])
            gaps.append(gap)
        if length:
            values.append(base[: length - 1] + b"\x00")  # differs in the last byte only (a zero, like padding)
            gaps.append(length % 8)
    _check(kernel, values, gaps)


def test_zero_bytes_and_length():
    """A trailing zero byte is part of the string: "a" and "a\\0" differ (the length enters the hash)."""
    lib = build([(_KERNEL, "riptide_string_hash_check", {})])
    _check(getattr(lib, "riptide_string_hash_check_0"), [b"a", b"a\x00", b"a\x00\x00", b"", b"\x00"], [0, 3, 5, 1, 7])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=20).map(lambda s: s.encode("utf-8")), st.integers(0, 15)),
                min_size=1, max_size=12))  # fmt: skip
def test_random_strings(kernel, rows):
    values = [v for v, _ in rows] + [v for v, _ in rows]  # each again at another alignment
    gaps = [g for _, g in rows] + [(g + 3) % 16 for _, g in rows]
    _check(kernel, values, gaps)
