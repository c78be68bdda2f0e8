"""The riptide.ml benchmark cases (riptide/benchmarks/cases_ml.py) build, fit with both libraries and report a
scikit-learn column; the fitted models agree (the timing is the benchmark's business, the answers are checked here)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from riptide import _device
from riptide.benchmarks import harness
from riptide.benchmarks.harness import Context

pytest.importorskip("sklearn")
NAMES = ["kmeans", "pca", "logistic", "linear_regression"]


@pytest.mark.parametrize("name", NAMES)
def test_case_fits_agree_with_sklearn(name):
    case = harness.load_cases()[name]
    data = case.data(Context(rows=40_000))
    mine, theirs = case.riptide(data)(), case.sklearn(data)()
    if name == "kmeans":
        assert np.isclose(float(mine.inertia_), theirs.inertia_, rtol=1e-6)
    elif name == "pca":
        np.testing.assert_allclose(_device.to_host(mine.explained_variance_), theirs.explained_variance_, rtol=1e-6)
    else:
        np.testing.assert_allclose(_device.to_host(mine.coef_), theirs.coef_, rtol=1e-4, atol=1e-6)


def test_sklearn_column_appears_only_for_cases_that_run_it():
    out = io.StringIO()
    harness.run_bench(rows=2_000, only="pca", repeat=1, warmup=0, out=out)
    assert "sklearn" in out.getvalue()
    out = io.StringIO()
    harness.run_bench(rows=2_000, only="sum", repeat=1, warmup=0, out=out)
    assert "sklearn" not in out.getvalue()
