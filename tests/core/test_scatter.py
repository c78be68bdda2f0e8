"""Scatter-reduce (``target[indices] op= values`` over repeated indices) against a NumPy reference, on the active
device; and arrays whose dtype came out of a pickle (a Dask worker's partitions) on the NumPy path."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riptide import _device
from riptide.core.kernels.scatter import _numpy_own_dtype, scatter_add, scatter_max, scatter_min

SCATTERS = {"add": (scatter_add, np.add), "min": (scatter_min, np.minimum), "max": (scatter_max, np.maximum)}


def _reference(op: str, target: np.ndarray, indices: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The same reduction, one slot at a time through a sort (no ``ufunc.at``)."""
    out = target.copy()
    order = np.argsort(indices, kind="stable")
    slots, starts = np.unique(indices[order], return_index=True)
    if slots.size:
        reduced = SCATTERS[op][1].reduceat(values[order], starts)
        out[slots] = SCATTERS[op][1](out[slots], reduced)
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([0, 1, 5, 3000]), n_slots=st.sampled_from([1, 3, 5000]),
       op=st.sampled_from(sorted(SCATTERS)), dtype=st.sampled_from(["int64", "float64", "int32"]))  # fmt: skip
def test_scatter_matches_reference(seed, n, n_slots, op, dtype):
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, n_slots, n)
    values = (rng.integers(-1000, 1000, n) if dtype != "float64" else rng.normal(size=n)).astype(dtype)
    target = (rng.integers(-10, 10, n_slots)).astype(dtype)
    expected = _reference(op, target, indices, values)
    xp = _device.xp()
    got = xp.asarray(target)
    SCATTERS[op][0](got, xp.asarray(indices), xp.asarray(values), xp)
    np.testing.assert_allclose(_device.to_host(got), expected, rtol=1e-12)


def _unpickled(array: np.ndarray) -> np.ndarray:
    """``array`` viewed with its dtype passed through pickle: equal to NumPy's own instance, but another object."""
    return array.view(pickle.loads(pickle.dumps(array.dtype)))


@pytest.mark.parametrize("op", sorted(SCATTERS))
@pytest.mark.parametrize("dtype", ["int64", "float64", "uint8", "bool"])
def test_unpickled_dtypes_reduce_into_the_same_memory(op, dtype):
    # NumPy's ufunc.at runs a buffered loop 30x slower when an operand's dtype is not NumPy's own instance, so the
    # NumPy path views such arrays with it; the target must still be written in place.
    rng = np.random.default_rng(0)
    indices = rng.integers(0, 7, 500)
    values = rng.integers(0, 2 if dtype == "bool" else 100, 500).astype(dtype)
    target = np.zeros(7, dtype=dtype)
    expected = _reference(op, target, indices, values)
    moved = _unpickled(target.copy())
    assert moved.dtype is not np.dtype(dtype)
    SCATTERS[op][0](moved, _unpickled(indices), _unpickled(values), np)
    np.testing.assert_array_equal(moved, expected)


def test_numpy_own_dtype_is_a_view_with_numpys_instance():
    values = _unpickled(np.arange(10, dtype=np.int64))
    viewed = _numpy_own_dtype(values)
    assert viewed.dtype is np.dtype(np.int64)
    assert np.shares_memory(viewed, values)
    plain = np.arange(3)
    assert _numpy_own_dtype(plain) is plain
    objects = np.array(["a"], dtype=object)
    assert _numpy_own_dtype(objects) is objects
