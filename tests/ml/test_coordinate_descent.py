"""Lasso and ElasticNet against scikit-learn (the same coordinate descent: coef_, n_iter_ and dual_gap_ agree)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import sklearn.linear_model as skl  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.exceptions import ConvergenceWarning, NotFittedError  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import riptide as rt  # noqa: E402
from riptide import _device  # noqa: E402
from riptide.ml import linear_model as rtl  # noqa: E402
from riptide.ml._validation import input_namespace  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402


def _data(seed, n, d, targets=1, offset=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3, size=d) + offset * rng.normal(size=d)
    coef = rng.normal(size=(d, targets)) * (rng.uniform(size=(d, 1)) < 0.6)
    y = X @ coef + 0.3 * rng.normal(size=(n, targets))
    return X, (y[:, 0] if targets == 1 else y), rng.uniform(0.1, 2.0, size=n)


def _assert_same(ours, theirs, rtol=1e-6, atol=1e-8, iters=True):
    for attr in ("coef_", "intercept_", "dual_gap_"):
        a, b = _host(getattr(ours, attr)), getattr(theirs, attr)
        assert np.shape(a) == np.shape(b), attr
        assert np.asarray(a).dtype == np.asarray(b).dtype, attr
        scale = 1.0 if attr != "dual_gap_" else max(1.0, float(np.max(np.abs(b))))
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol * scale, err_msg=attr)
    if iters:
        assert ours.n_iter_ == theirs.n_iter_


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 60), d=st.integers(1, 8), targets=st.sampled_from([1, 2]),
       alpha=st.sampled_from([0.01, 0.1, 1.0]), l1_ratio=st.sampled_from([1.0, 0.5, 0.1]),
       fit_intercept=st.booleans(), weighted=st.booleans(), positive=st.booleans())  # fmt: skip
def test_elastic_net_matches(seed, n, d, targets, alpha, l1_ratio, fit_intercept, weighted, positive):
    X, y, w = _data(seed, n, d, targets)
    kw = dict(alpha=alpha, l1_ratio=l1_ratio, fit_intercept=fit_intercept, positive=positive, tol=1e-8,
              max_iter=5000)  # fmt: skip
    w = w if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = rtl.ElasticNet(**kw).fit(X, y, sample_weight=w)
        theirs = skl.ElasticNet(**kw).fit(X, y, sample_weight=w)
    # tight tolerance: both reach the same minimizer; n_iter_ may differ by rounding in the stopping test
    _assert_same(ours, theirs, rtol=1e-5, atol=1e-7, iters=False)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-6, atol=1e-6)
    assert np.isclose(ours.score(X, y), theirs.score(X, y), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("Estimator", ["Lasso", "ElasticNet"])
@pytest.mark.parametrize("shape", [(300, 10), (20, 40)])
@pytest.mark.parametrize("selection", ["cyclic", "random"])
def test_positive_clamps_like_sklearn(Estimator, shape, selection):
    # scikit-learn's coordinate descent clamps each update at 0 with positive=True; so does riptide (the same
    # sweeps), on tall data through the Gram matrix and on wide data through the residuals
    X, Y, w = _data(5, *shape, targets=2)
    kw = dict(alpha=0.05, positive=True, selection=selection, random_state=0, tol=1e-10, max_iter=10_000)
    for y, weights in ((Y[:, 0], None), (Y, None), (Y[:, 1], w)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            ours = getattr(rtl, Estimator)(**kw).fit(X, y, sample_weight=weights)
            theirs = getattr(skl, Estimator)(**kw).fit(X, y, sample_weight=weights)
        assert (ours.coef_ >= 0).all() and (ours.coef_ == 0).any()
        _assert_same(ours, theirs, rtol=1e-6, atol=1e-8, iters=False)


@pytest.mark.parametrize("selection", ["cyclic", "random"])
@pytest.mark.parametrize("alpha", [0.02, 0.3])
def test_lasso_iterates_like_sklearn(selection, alpha):
    X, y, _ = _data(3, 400, 12)
    kw = dict(alpha=alpha, selection=selection, random_state=0)
    ours, theirs = rtl.Lasso(**kw).fit(X, y), skl.Lasso(**kw).fit(X, y)
    _assert_same(ours, theirs, rtol=1e-9, atol=1e-12)


def test_multi_output_and_random_state_instance():
    X, Y, _ = _data(4, 200, 6, targets=3)
    ours = rtl.ElasticNet(alpha=0.05, selection="random", random_state=np.random.RandomState(1)).fit(X, Y)
    theirs = skl.ElasticNet(alpha=0.05, selection="random", random_state=np.random.RandomState(1)).fit(X, Y)
    _assert_same(ours, theirs, rtol=1e-9, atol=1e-12)
    assert isinstance(ours.n_iter_, list) and ours.coef_.shape == (3, 6) and ours.intercept_.shape == (3,)
    assert ours.sparse_coef_.shape == (3, 6)
    np.testing.assert_allclose(ours.sparse_coef_.toarray(), theirs.sparse_coef_.toarray(), atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_wide_data_takes_sklearns_residual_path(dtype):
    rng = np.random.default_rng(15)
    X, y = (rng.normal(size=(12, 30)) + 1).astype(dtype), rng.normal(size=(12, 2))
    w = rng.uniform(0.2, 2.0, size=12)
    kw = dict(alpha=0.05, selection="random", random_state=1)
    ours, theirs = rtl.ElasticNet(**kw).fit(X, y, sample_weight=w), skl.ElasticNet(**kw).fit(X, y, sample_weight=w)
    tight = dtype == np.float64
    _assert_same(ours, theirs, rtol=1e-9 if tight else 1e-5, atol=1e-12 if tight else 1e-6)


def test_float32_keeps_dtype():
    X, y, _ = _data(5, 300, 5)
    X32 = X.astype(np.float32)
    ours, theirs = rtl.Lasso(alpha=0.1).fit(X32, y), skl.Lasso(alpha=0.1).fit(X32, y)
    _assert_same(ours, theirs, rtol=1e-4, atol=1e-5, iters=False)
    assert ours.predict(X32).dtype == theirs.predict(X32).dtype


def test_warm_start_continues():
    X, y, _ = _data(6, 200, 8)
    kw = dict(alpha=0.01, max_iter=3, warm_start=True)
    ours, theirs = rtl.ElasticNet(**kw), skl.ElasticNet(**kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for _ in range(3):
            ours.fit(X, y)
            theirs.fit(X, y)
    _assert_same(ours, theirs, rtol=1e-9, atol=1e-12)


def test_convergence_warning_as_sklearn():
    X, y, _ = _data(7, 100, 10)
    with pytest.warns(ConvergenceWarning, match="Objective did not converge"):
        ours = rtl.Lasso(alpha=1e-4, max_iter=2, tol=1e-12).fit(X, y)
    with pytest.warns(ConvergenceWarning):
        theirs = skl.Lasso(alpha=1e-4, max_iter=2, tol=1e-12).fit(X, y)
    assert ours.n_iter_ == theirs.n_iter_ == 2


def test_alpha_zero_warns():
    X, y, _ = _data(8, 50, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.warns(UserWarning, match="alpha=0"):
            ours = rtl.ElasticNet(alpha=0.0).fit(X, y)
        theirs = skl.LinearRegression().fit(X, y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-4)


def test_edge_cases():
    X, y, _ = _data(9, 40, 4)
    X[:, 2] = 3.5  # a constant column: coefficient 0, as scikit-learn's centred copy gives
    for est, ref in ((rtl.Lasso(alpha=0.05), skl.Lasso(alpha=0.05)),
                     (rtl.ElasticNet(alpha=0.05), skl.ElasticNet(alpha=0.05))):  # fmt: skip
        _assert_same(est.fit(X, y), ref.fit(X, y), rtol=1e-8, atol=1e-10)
        assert est.coef_[2] == 0.0
    one = rtl.Lasso(alpha=0.1).fit(X[:1], y[:1])  # one sample: everything is the mean
    ref = skl.Lasso(alpha=0.1).fit(X[:1], y[:1])
    _assert_same(one, ref)
    dup = np.r_[X, X]
    _assert_same(rtl.Lasso(alpha=0.05).fit(dup, np.r_[y, y]), skl.Lasso(alpha=0.05).fit(dup, np.r_[y, y]),
                 rtol=1e-8, atol=1e-10)  # fmt: skip
    feature = X[:, :1]
    _assert_same(rtl.Lasso(alpha=0.05).fit(feature, y), skl.Lasso(alpha=0.05).fit(feature, y))


def test_sample_weight_scalar_and_repetition():
    X, y, _ = _data(10, 30, 3)
    base = rtl.Lasso(alpha=0.05).fit(X, y)
    np.testing.assert_allclose(rtl.Lasso(alpha=0.05).fit(X, y, sample_weight=3.0).coef_, base.coef_)
    counts = np.random.default_rng(0).integers(1, 3, size=30)
    weighted = rtl.Lasso(alpha=0.05, tol=1e-10).fit(X, y, sample_weight=counts)
    repeated = rtl.Lasso(alpha=0.05, tol=1e-10).fit(np.repeat(X, counts, axis=0), np.repeat(y, counts))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-6, atol=1e-8)


def test_precompute_array():
    X, y, _ = _data(11, 80, 4, offset=0.0)
    gram = X.T @ X
    ours = rtl.Lasso(alpha=0.1, precompute=gram, fit_intercept=False).fit(X, y)
    theirs = skl.Lasso(alpha=0.1, precompute=gram, fit_intercept=False).fit(X, y)
    _assert_same(ours, theirs, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="did not pass validation"):
        rtl.Lasso(precompute=gram * 2, fit_intercept=False).fit(X, y)
    with pytest.warns(UserWarning, match="recomputing Gram"):
        rtl.Lasso(precompute=gram).fit(X + 5.0, y)


def test_bad_input_and_not_fitted():
    X, y, _ = _data(12, 20, 3)
    with pytest.raises(NotFittedError):
        rtl.Lasso().predict(X)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        rtl.Lasso().fit(bad, y)
    est = rtl.Lasso().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])
    with pytest.raises(ValueError, match="alpha"):
        rtl.Lasso(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="selection"):
        rtl.ElasticNet(selection="sometimes").fit(X, y)
    assert "l1_ratio" not in rtl.Lasso().get_params()


@pytest.mark.parametrize("kind", ["numpy", "pandas", "riptide"])
def test_input_containers_and_output(kind):
    X, y, _ = _data(13, 60, 3)
    columns = ["a", "b", "c"]
    if kind == "pandas":
        Xin, yin = pd.DataFrame(X, columns=columns), pd.Series(y)
    elif kind == "riptide":
        Xin, yin = rt.DataFrame({c: X[:, j] for j, c in enumerate(columns)}), rt.Series(y)
    else:
        Xin, yin = X, y
    ours = rtl.ElasticNet(alpha=0.1).fit(Xin, yin)
    theirs = skl.ElasticNet(alpha=0.1).fit(X, y)
    _assert_same(ours, theirs, rtol=1e-9, atol=1e-12)
    out = ours.predict(Xin)
    if kind == "riptide":
        assert _device.namespace_of(out) is input_namespace(Xin)  # computed where the frame lives
    else:
        assert isinstance(out, np.ndarray) and isinstance(ours.coef_, np.ndarray)
    np.testing.assert_allclose(_host(out), theirs.predict(X), rtol=1e-9)
    if kind != "numpy":
        assert list(ours.feature_names_in_) == columns


def test_pickle_round_trip():
    X, y, _ = _data(14, 50, 3)
    est = rtl.Lasso(alpha=0.1).fit(X, y)
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(_host(back.predict(X)), _host(est.predict(X)))
    assert back.n_iter_ == est.n_iter_


ESTIMATORS = [rtl.Lasso(), rtl.ElasticNet(), rtl.ElasticNet(l1_ratio=0.2, fit_intercept=False, selection="random",
                                                             random_state=0)]  # fmt: skip


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(500, 12), (10, 30)])  # the Gram route and the wide (host) route
def test_device_input_matches_host_fit(dtype, shape):
    import cupy

    X, y, w = _data(16, shape[0], shape[1], targets=2)
    X = X.astype(dtype)
    kw = dict(alpha=0.05, l1_ratio=0.7)
    ours = rtl.ElasticNet(**kw).fit(cupy.asarray(X), cupy.asarray(y), sample_weight=cupy.asarray(w))
    theirs = skl.ElasticNet(**kw).fit(X, y, sample_weight=w)
    assert _device.is_device_array(ours.coef_) and _device.is_device_array(ours.intercept_)
    # float32: scikit-learn sums the dual gap (a small difference of large terms) in float32, riptide from a float64
    # Gram matrix; they agree to float32's rounding of those terms
    _assert_same(ours, theirs, rtol=1e-5 if dtype == np.float32 else 1e-8, atol=1e-5 if dtype == np.float32 else 1e-6,
                 iters=False)
    out = ours.predict(cupy.asarray(X))
    assert _device.is_device_array(out)
    np.testing.assert_allclose(_host(out), theirs.predict(X), rtol=1e-4, atol=1e-5)
