"""The GPU hash-table matcher of joins gives what the sort-based matcher gives (same KeyMatch contract)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from riptide import _device
from riptide.core.column import as_column
from tests.conftest import make_values

pytestmark = pytest.mark.gpu


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _matched_rows(match, i):
    start, count = int(match.starts[i]), int(match.counts[i])
    return _host(match.build_order[start : start + count]).tolist()


@pytest.mark.parametrize("dtypes", [["int64"], ["str"], ["float64"], ["Int64", "str"], ["datetime64[ns]", "int8"]])
@pytest.mark.parametrize("null_frac", [0.0, 0.1])
def test_hashed_match_equals_sorted_match(dtypes, null_frac):
    from riptide.core.ops.hash_match import match_keys_hashed
    from riptide.core.ops.join import match_keys

    rng = np.random.default_rng(3)
    xp = _device.xp()
    probe_frame = pd.DataFrame({f"k{i}": make_values(rng, d, 3000, null_frac, small=True) for i, d in enumerate(dtypes)})
    build_frame = pd.DataFrame({f"k{i}": make_values(rng, d, 800, null_frac, small=True) for i, d in enumerate(dtypes)})
    probe = [as_column(probe_frame[c], xp=xp) for c in probe_frame]
    build = [as_column(build_frame[c], xp=xp) for c in build_frame]
    hashed = match_keys_hashed(probe, build)
    expected = match_keys(probe, build)
    np.testing.assert_array_equal(_host(hashed.counts), _host(expected.counts))
    np.testing.assert_array_equal(_host(hashed.build_matched), _host(expected.build_matched))
    for i in range(0, 3000, 37):
        assert _matched_rows(hashed, i) == _matched_rows(expected, i)
