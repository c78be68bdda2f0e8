"""group_rows: the one grouping primitive. The sort-based path against pandas' factorize semantics, and on the
GPU the hash-table path against the sort-based path on the same keys."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riptide import _device
from riptide.core.column import as_column
from riptide.core.ops import grouping
from riptide.core.ops.grouping import group_rows
from tests.conftest import make_values

KEY_DTYPES = ["int64", "int8", "uint64", "float64", "float32", "bool", "datetime64[ns]", "Int64", "boolean", "str",
              "category"]  # fmt: skip


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _pandas_groups(frame: pd.DataFrame, sort: bool, dropna: bool) -> np.ndarray:
    """pandas' group number of every row (-1 for a dropped row)."""
    return frame.groupby(list(frame.columns), sort=sort, dropna=dropna, observed=True).ngroup().fillna(-1).to_numpy(
        dtype=np.int64)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([0, 1, 7, 200]), n_keys=st.integers(1, 3),
       sort=st.booleans(), dropna=st.booleans(), null_frac=st.sampled_from([0.0, 0.3]))  # fmt: skip
def test_group_rows_matches_pandas(seed, n, n_keys, sort, dropna, null_frac):
    rng = np.random.default_rng(seed)
    names = [str(d) for d in rng.choice(KEY_DTYPES, n_keys)]
    frame = pd.DataFrame({f"k{i}": make_values(rng, d, n, null_frac=null_frac, small=True)
                          for i, d in enumerate(names)})  # fmt: skip
    columns = [as_column(frame[c]) for c in frame.columns]
    groups = group_rows(columns, sort=sort, dropna=dropna)
    expected = _pandas_groups(frame, sort, dropna)
    np.testing.assert_array_equal(_host(groups.ids), expected)
    assert groups.n_groups == (expected.max() + 1 if n and expected.max() >= 0 else 0)
    for g, row in enumerate(_host(groups.first_rows)):
        assert row == np.flatnonzero(expected == g)[0]


def test_no_keys_raises():
    with pytest.raises(ValueError, match="No group keys"):
        group_rows([])


def test_negative_zero_and_nan_are_one_key_each():
    column = as_column(np.array([0.0, -0.0, np.nan, np.nan, 1.0]))
    groups = group_rows([column], dropna=False)
    assert _host(groups.ids).tolist() == [0, 0, 2, 2, 1]


@pytest.mark.gpu
@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("dropna", [True, False])
@pytest.mark.parametrize("dtypes", [["int64"], ["str"], ["float64"], ["Int64", "str"], ["category", "int8", "bool"],
                                    ["datetime64[ns]", "float32"], ["uint64"]])  # fmt: skip
def test_gpu_hash_path_matches_sorted_path(sort, dropna, dtypes):
    rng = np.random.default_rng(7)
    n = 50_000
    frame = pd.DataFrame({f"k{i}": make_values(rng, d, n, null_frac=0.05, small=True) for i, d in enumerate(dtypes)})
    columns = [as_column(frame[c], xp=_device.xp()) for c in frame.columns]
    hashed = grouping._group_rows_hashed(columns, sort=sort, dropna=dropna)
    sorted_ = grouping._group_rows_sorted(columns, sort=sort, dropna=dropna)
    assert hashed.n_groups == sorted_.n_groups
    np.testing.assert_array_equal(_host(hashed.ids), _host(sorted_.ids))
    np.testing.assert_array_equal(_host(hashed.first_rows), _host(sorted_.first_rows))
    np.testing.assert_array_equal(_host(hashed.ids), _pandas_groups(frame, sort, dropna))


@pytest.mark.gpu
def test_gpu_hash_table_grows_past_its_first_size():
    import cupy as cp

    n = 12_000_000  # more distinct keys than half the first table (2**22 slots)
    keys = cp.random.permutation(n).astype(np.int64) * 7919
    groups = grouping._group_rows_hashed([as_column(keys)], sort=True, dropna=True)
    assert groups.n_groups == n
    ranks = cp.argsort(cp.argsort(keys))
    assert bool((groups.ids == ranks).all())
