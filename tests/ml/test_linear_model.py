"""LinearRegression and Ridge against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn.linear_model as skl  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml import linear_model as rtl  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402


def _assert_same(ours, theirs, attrs, rtol=1e-6, atol=1e-9):
    for attr in attrs:
        a, b = _host(getattr(ours, attr)), getattr(theirs, attr)
        assert np.shape(a) == np.shape(b), (attr, np.shape(a), np.shape(b))
        if isinstance(b, str | int):
            assert a == b, attr
        else:
            assert np.asarray(a).dtype == np.asarray(b).dtype, attr
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=attr)


def _data(seed, n, d, targets):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3, size=d) + rng.normal(size=d)
    coef = rng.normal(size=(d, targets))
    y = X @ coef + 0.1 * rng.normal(size=(n, targets))
    return X, (y[:, 0] if targets == 1 else y), rng.uniform(0.1, 2.0, size=n)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40), d=st.integers(1, 6), targets=st.sampled_from([1, 3]),
       fit_intercept=st.booleans(), weighted=st.booleans())  # fmt: skip
def test_linear_regression_matches(seed, n, d, targets, fit_intercept, weighted):
    X, y, w = _data(seed, n, d, targets)
    w = w if weighted else None
    ours = rtl.LinearRegression(fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
    theirs = skl.LinearRegression(fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
    _assert_same(ours, theirs, ["coef_", "intercept_", "rank_"], atol=1e-7)
    np.testing.assert_allclose(ours.singular_, theirs.singular_, rtol=1e-6, atol=1e-7 * theirs.singular_.max())
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-6, atol=1e-7)
    assert np.isclose(ours.score(X, y), theirs.score(X, y), rtol=1e-6, atol=1e-9)


def test_rank_deficient_min_norm_solution():
    X, y, _ = _data(1, 30, 4, 1)
    X = np.c_[X, X[:, 0], 2 * X[:, 1]]  # two repeated directions: lstsq's minimum-norm solution
    ours, theirs = rtl.LinearRegression().fit(X, y), skl.LinearRegression().fit(X, y)
    _assert_same(ours, theirs, ["coef_", "intercept_", "rank_"])
    wide = np.random.default_rng(2).normal(size=(5, 12))  # more features than samples
    ours, theirs = rtl.LinearRegression().fit(wide, y[:5]), skl.LinearRegression().fit(wide, y[:5])
    _assert_same(ours, theirs, ["coef_", "intercept_", "rank_"])


def test_ill_conditioned_falls_back_to_svd():
    rng = np.random.default_rng(5)
    base = rng.normal(size=(200, 3))
    X = np.c_[base, base[:, 0] + 1e-5 * rng.normal(size=200)]  # condition number ~1e5: squared would lose digits
    y = X @ np.array([1.0, 2.0, 3.0, 4.0]) + 0.01 * rng.normal(size=200)
    ours, theirs = rtl.LinearRegression().fit(X, y), skl.LinearRegression().fit(X, y)
    _assert_same(ours, theirs, ["coef_", "intercept_", "rank_", "singular_"], rtol=1e-6)


def test_float32_keeps_dtype():
    X, y, _ = _data(3, 50, 3, 1)
    ours = rtl.LinearRegression().fit(X.astype(np.float32), y)
    theirs = skl.LinearRegression().fit(X.astype(np.float32), y)
    _assert_same(ours, theirs, ["coef_", "intercept_"], rtol=1e-4, atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 30), d=st.integers(1, 8), targets=st.sampled_from([1, 2]),
       fit_intercept=st.booleans(), weighted=st.booleans(), solver=st.sampled_from(["auto", "cholesky", "svd"]),
       alpha=st.sampled_from([0.1, 1.0, 30.0]))  # fmt: skip
def test_ridge_matches(seed, n, d, targets, fit_intercept, weighted, solver, alpha):
    X, y, w = _data(seed, n, d, targets)
    w = w if weighted else None
    params = dict(alpha=alpha, fit_intercept=fit_intercept, solver=solver)
    ours, theirs = rtl.Ridge(**params).fit(X, y, sample_weight=w), skl.Ridge(**params).fit(X, y, sample_weight=w)
    _assert_same(ours, theirs, ["coef_", "intercept_", "solver_"])
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-6, atol=1e-8)


def test_ridge_alpha_per_target_and_column_target():
    X, Y, _ = _data(4, 40, 5, 3)
    ours, theirs = rtl.Ridge(alpha=[0.1, 1.0, 10.0]).fit(X, Y), skl.Ridge(alpha=[0.1, 1.0, 10.0]).fit(X, Y)
    _assert_same(ours, theirs, ["coef_", "intercept_"])
    ours, theirs = rtl.Ridge().fit(X, Y[:, :1]), skl.Ridge().fit(X, Y[:, :1])
    _assert_same(ours, theirs, ["coef_", "intercept_"])
    with pytest.raises(ValueError, match="Number of targets and number of penalties do not correspond: 2 != 3"):
        rtl.Ridge(alpha=[1.0, 2.0]).fit(X, Y)


def test_ridge_iterative_solver_names_give_the_exact_minimizer():
    X, y, _ = _data(6, 60, 4, 1)
    exact = skl.Ridge(solver="cholesky").fit(X, y)
    for solver in ["lsqr", "sparse_cg", "sag", "saga"]:
        ours = rtl.Ridge(solver=solver).fit(X, y)
        assert ours.solver_ == solver
        np.testing.assert_allclose(ours.coef_, exact.coef_, rtol=1e-9)
    with pytest.raises(ValueError, match="'lbfgs' solver can be used only when positive=True"):
        rtl.Ridge(solver="lbfgs").fit(X, y)


def test_ridge_alpha_zero_singular_falls_back_to_svd():
    X, y, _ = _data(7, 30, 3, 1)
    X = np.c_[X, X[:, 0]]
    ours = rtl.Ridge(alpha=0.0).fit(X, y)
    assert ours.solver_ == "svd"
    np.testing.assert_allclose(ours.coef_, rtl.LinearRegression().fit(X, y).coef_, rtol=1e-6)


def test_riptide_inputs():
    X, y, _ = _data(8, 30, 3, 1)
    frame = rt.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2]})
    ours, theirs = rtl.Ridge().fit(frame, rt.Series(y)), skl.Ridge().fit(frame.to_pandas(), y)
    _assert_same(ours, theirs, ["coef_", "intercept_"])
    assert ours.feature_names_in_.tolist() == ["a", "b", "c"]
    np.testing.assert_allclose(_host(ours.predict(frame)), theirs.predict(frame.to_pandas()))
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[30, 29\]"):
        rtl.Ridge().fit(frame, rt.Series(y[:29]))
