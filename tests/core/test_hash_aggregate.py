"""The GPU's aggregating hash table and the pairwise string ranking, against the sort-based paths."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from riptide import _device
from riptide.core.column import as_column
from riptide.core.kernels.factorize import rank_distinct_strings
from riptide.core.ops.grouping import _group_rows_sorted, group_rows


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


@pytest.mark.gpu
@pytest.mark.parametrize("with_missing", [False, True])
def test_rank_distinct_strings_orders_as_python(with_missing):
    values = ["b", "a", "", "ab", "a\x00", "é", "e", "中文", "中", "😀", "zz", "z"]
    if with_missing:
        values.insert(3, None)
    column = as_column(pd.Series(values * 3, dtype="str"), xp=_device.xp())
    xp = column.xp
    rows = xp.arange(len(values), dtype=np.int64)[::-1].copy()  # the distinct rows, in some order
    got = _host(rank_distinct_strings(column, rows))
    present = [values[r] for r in _host(rows)]
    order = sorted(range(len(present)), key=lambda i: (present[i] is None, present[i] or ""))
    expected = np.empty(len(present), dtype=np.int64)
    expected[order] = np.arange(len(present))
    np.testing.assert_array_equal(got, expected)


@pytest.mark.gpu
@pytest.mark.parametrize("n_distinct", [50, 3000])  # the pairwise kernel, and past its limit
def test_rank_distinct_strings_kernel_matches_sort(n_distinct):
    rng = np.random.default_rng(5)
    pool = list({"".join(rng.choice(list("abcé中\x00"), rng.integers(0, 6))) for _ in range(4 * n_distinct)})
    pool = pool[:n_distinct]
    column = as_column(pd.Series(pool, dtype="str"), xp=_device.xp())
    rows = column.xp.asarray(rng.permutation(len(pool)))
    expected = group_rows([column.take(rows)], sort=True, dropna=False).ids
    np.testing.assert_array_equal(_host(rank_distinct_strings(column, rows)), _host(expected))


@pytest.mark.gpu
@pytest.mark.parametrize("n_groups", [10, 700, 200_000])  # shared-memory stage, L2 stage, full-size stage
@pytest.mark.parametrize("spread", [3, 1_000_003])  # keys in a range of 3 * n_groups (a dense table), or far apart
def test_group_rows_aggregating_equals_group_rows(n_groups, spread):
    from riptide.core.ops.grouping import group_rows_aggregating

    rng = np.random.default_rng(n_groups)
    n = 400_000
    keys = as_column(rng.integers(0, n_groups, n) * spread, xp=_device.xp())
    values = as_column(rng.standard_normal(n), xp=_device.xp())
    for sort in (True, False):
        aggregated = group_rows_aggregating([keys], [(values, "sum"), (values, "count"), (None, "size")], sort=sort)
        plain = _group_rows_sorted([keys], sort=sort, dropna=True)
        assert aggregated.n_groups == plain.n_groups
        np.testing.assert_array_equal(_host(aggregated.ids), _host(plain.ids))
        np.testing.assert_array_equal(_host(aggregated.sizes()), _host(plain.sizes()))
        np.testing.assert_array_equal(_host(keys.take(aggregated.representatives).data),
                                      _host(keys.take(plain.first_rows).data))  # fmt: skip
        sums = np.bincount(_host(plain.ids), weights=_host(values.data), minlength=plain.n_groups)
        np.testing.assert_allclose(_host(aggregated.partial(values, "sum")), sums, rtol=1e-9, atol=1e-9)


@pytest.mark.gpu
@pytest.mark.parametrize("dropna", [True, False])
@pytest.mark.parametrize("sort", [True, False])
def test_dense_group_rows_equals_sorted(sort, dropna):
    """group_rows of small-range integer keys (two of them, one with missing values) through the dense table."""
    from riptide.core.kernels import hash_aggregate
    from riptide.core.kernels.hashing import key_words

    rng = np.random.default_rng(3)
    n = 100_000
    first = pd.array(rng.integers(-50, 50, n), dtype="Int64")
    first[rng.random(n) < 0.02] = pd.NA
    columns = [as_column(pd.Series(first), xp=_device.xp()),
               as_column(rng.integers(0, 7, n).astype(np.int8), xp=_device.xp())]  # fmt: skip
    if dropna:  # a kept missing key is a flag word: the hash table's
        assert hash_aggregate.dense_layout(key_words(columns, dropna)) is not None
    got, expected = group_rows(columns, sort=sort, dropna=dropna), _group_rows_sorted(columns, sort=sort, dropna=dropna)
    assert got.n_groups == expected.n_groups
    np.testing.assert_array_equal(_host(got.ids), _host(expected.ids))
    np.testing.assert_array_equal(_host(got.first_rows), _host(expected.first_rows))
    for column in columns:
        np.testing.assert_array_equal(_host(column.take(got.first_rows).isna()), _host(column.take(expected.first_rows).isna()))
    assert (got.key_values is not None) == dropna  # the dense table (a kept missing key is the hash table's)
    if got.key_values is not None:
        for column, values in zip(columns, got.key_values, strict=True):
            assert values.dtype == column.dtype
            np.testing.assert_array_equal(_host(values.data), _host(column.take(expected.first_rows).data))
