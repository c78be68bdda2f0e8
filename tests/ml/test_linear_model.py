"""LinearRegression and Ridge against scikit-learn."""

from __future__ import annotations

import warnings
from contextlib import contextmanager

import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn.linear_model as skl  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
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


def _data(seed, n, d, targets, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3, size=d) + rng.normal(size=d)
    coef = rng.normal(size=(d, targets))  # about half the true coefficients negative: a positive fit's bound is active
    y = X @ coef + noise * rng.normal(size=(n, targets))
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


# --------------------------------------------------------------------------- positive=True


def _positive_data(seed, n, d, targets):
    return _data(seed, n, d, targets, noise=0.3)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(12, 60), d=st.integers(1, 10), targets=st.sampled_from([1, 3]),
       fit_intercept=st.booleans(), weighted=st.booleans())  # fmt: skip
def test_linear_regression_positive_matches(seed, n, d, targets, fit_intercept, weighted):
    X, y, w = _positive_data(seed, n, d, targets)
    w = w if weighted else None
    ours = rtl.LinearRegression(positive=True, fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
    theirs = skl.LinearRegression(positive=True, fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
    _assert_same(ours, theirs, ["coef_", "intercept_"], rtol=1e-8, atol=1e-9)
    assert (ours.coef_ >= 0).all()
    assert not hasattr(ours, "rank_") and not hasattr(ours, "singular_")  # scikit-learn sets neither either
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-8, atol=1e-9)


def test_linear_regression_positive_edge_cases():
    X, y, _ = _positive_data(3, 40, 5, 1)
    # every unconstrained coefficient negative: all held at 0, the intercept is the mean
    ours = rtl.LinearRegression(positive=True).fit(X, -np.abs(X) @ np.ones(5))
    theirs = skl.LinearRegression(positive=True).fit(X, -np.abs(X) @ np.ones(5))
    _assert_same(ours, theirs, ["coef_", "intercept_"], rtol=1e-8, atol=1e-9)
    # wide data: the minimizer's predictions are unique (its coefficients need not be)
    wide = np.random.default_rng(4).normal(size=(8, 15))
    ours, theirs = rtl.LinearRegression(positive=True).fit(wide, y[:8]), skl.LinearRegression(positive=True).fit(
        wide, y[:8])  # fmt: skip
    np.testing.assert_allclose(ours.predict(wide), theirs.predict(wide), rtol=1e-7, atol=1e-8)
    assert (ours.coef_ >= 0).all()
    # float32 keeps its dtype; refitting with positive=True drops rank_ / singular_ from an earlier fit
    model = rtl.LinearRegression().fit(X, y)
    assert hasattr(model, "rank_")
    model.set_params(positive=True).fit(X.astype(np.float32), y.astype(np.float32))
    theirs = skl.LinearRegression(positive=True).fit(X.astype(np.float32), y.astype(np.float32))
    _assert_same(model, theirs, ["coef_", "intercept_"], rtol=1e-4, atol=1e-5)
    assert not hasattr(model, "rank_")
    frame = rt.DataFrame({name: X[:, j] for j, name in enumerate("abcde")})
    ours = rtl.LinearRegression(positive=True).fit(frame, rt.Series(y))
    theirs = skl.LinearRegression(positive=True).fit(frame.to_pandas(), y)
    _assert_same(ours, theirs, ["coef_", "intercept_"], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(_host(ours.predict(frame)), theirs.predict(frame.to_pandas()), rtol=1e-8)


@contextmanager
def _no_convergence_noise():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # L-BFGS-B may stop short of tol=1e-13: no matter
        yield


def _ridge_objective(X, y, w, coef, intercept, alpha):
    residual = y - X @ coef - intercept
    return 0.5 * residual @ (residual * (1.0 if w is None else w)) + 0.5 * alpha * coef @ coef


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("alpha", [1e-3, 0.5, 10.0])
@pytest.mark.parametrize("shape", [(60, 8), (15, 25)])
def test_ridge_positive_is_the_bounded_minimizer(fit_intercept, weighted, alpha, shape):
    X, y, w = _positive_data(11, *shape, 1)
    w = w if weighted else None
    ours = rtl.Ridge(alpha=alpha, positive=True, fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
    assert ours.solver_ == "lbfgs" and ours.n_iter_ is None and (ours.coef_ >= 0).all()
    # scikit-learn's L-BFGS-B run to a tight tolerance reaches the same minimizer
    with _no_convergence_noise():
        tight = skl.Ridge(alpha=alpha, positive=True, fit_intercept=fit_intercept, tol=1e-13,
                          max_iter=100_000).fit(X, y, sample_weight=w)  # fmt: skip
    _assert_same(ours, tight, ["coef_", "intercept_"], rtol=1e-5, atol=1e-6)
    # at its default tol=1e-4 it stops short of the minimizer (on wide data with a small alpha by 10% and more):
    # ours has the lower objective
    default = skl.Ridge(alpha=alpha, positive=True, fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
    ours_objective = _ridge_objective(X, y, w, ours.coef_, ours.intercept_, alpha)
    assert ours_objective <= _ridge_objective(X, y, w, default.coef_, default.intercept_, alpha) * (1 + 1e-12)


def test_ridge_positive_multi_target_alphas_and_errors():
    X, Y, _ = _positive_data(12, 50, 6, 3)
    with _no_convergence_noise():
        tight = skl.Ridge(alpha=[0.1, 1.0, 5.0], positive=True, tol=1e-13, max_iter=100_000).fit(X, Y)
    ours = rtl.Ridge(alpha=[0.1, 1.0, 5.0], positive=True, solver="lbfgs").fit(X, Y)
    _assert_same(ours, tight, ["coef_", "intercept_"], rtol=1e-5, atol=1e-6)
    ours = rtl.Ridge(alpha=0.0, positive=True).fit(X, Y[:, 0])  # alpha 0: non-negative least squares
    np.testing.assert_allclose(ours.coef_, skl.LinearRegression(positive=True).fit(X, Y[:, 0]).coef_, rtol=1e-8,
                               atol=1e-10)  # fmt: skip
    for solver in ["svd", "cholesky", "lsqr", "sparse_cg", "sag", "saga"]:
        with pytest.raises(ValueError) as theirs:
            skl.Ridge(positive=True, solver=solver).fit(X, Y)
        with pytest.raises(ValueError, match=f"solver='{solver}' does not support positive fitting") as raised:
            rtl.Ridge(positive=True, solver=solver).fit(X, Y)
        assert str(raised.value) == str(theirs.value)
    frame = rt.DataFrame({name: X[:, j] for j, name in enumerate("abcdef")})
    ours = rtl.Ridge(alpha=2.0, positive=True).fit(frame, rt.Series(Y[:, 1]))
    with _no_convergence_noise():
        tight = skl.Ridge(alpha=2.0, positive=True, tol=1e-13, max_iter=100_000).fit(frame.to_pandas(), Y[:, 1])
    _assert_same(ours, tight, ["coef_", "intercept_"], rtol=1e-5, atol=1e-6)


def test_positive_on_dask_collections():
    da = pytest.importorskip("dask.array")
    import dask

    X, y, w = _positive_data(13, 200, 5, 1)
    with dask.config.set({"scheduler": "sync"}):
        ours = rtl.LinearRegression(positive=True).fit(da.from_array(X, chunks=64), da.from_array(y, chunks=64),
                                                       sample_weight=da.from_array(w, chunks=64))  # fmt: skip
        theirs = skl.LinearRegression(positive=True).fit(X, y, sample_weight=w)
        _assert_same(ours, theirs, ["coef_", "intercept_"], rtol=1e-8, atol=1e-9)
        assert not hasattr(ours, "rank_")
        ours = rtl.Ridge(alpha=3.0, positive=True).fit(da.from_array(X, chunks=64), da.from_array(y, chunks=64))
        in_memory = rtl.Ridge(alpha=3.0, positive=True).fit(X, y)
        assert ours.solver_ == "lbfgs"
        _assert_same(ours, in_memory, ["coef_", "intercept_"], rtol=1e-9, atol=1e-10)


@pytest.mark.gpu
def test_positive_on_the_device():
    import cupy

    X, y, _ = _positive_data(14, 80, 6, 1)
    ours = rtl.LinearRegression(positive=True).fit(cupy.asarray(X), cupy.asarray(y))
    assert isinstance(ours.coef_, cupy.ndarray)
    _assert_same(ours, skl.LinearRegression(positive=True).fit(X, y), ["coef_", "intercept_"], rtol=1e-8, atol=1e-9)
    ours = rtl.Ridge(alpha=1.0, positive=True).fit(cupy.asarray(X), cupy.asarray(y))
    _assert_same(ours, rtl.Ridge(alpha=1.0, positive=True).fit(X, y), ["coef_", "intercept_"], rtol=1e-9, atol=1e-10)
