"""PCA against scikit-learn: every solver, n_components forms, whitening, sign convention."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn.decomposition as skd  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import riptide as rt  # noqa: E402
from riptide import _device  # noqa: E402
from riptide.ml import decomposition as rtd  # noqa: E402

ATTRS = ["components_", "explained_variance_", "explained_variance_ratio_", "singular_values_", "mean_",
         "n_components_", "n_samples_", "noise_variance_"]  # fmt: skip


def _data(seed, n, d):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + rng.normal(size=d)


def _assert_same(ours, theirs, X, rtol=1e-6):
    # components of (numerically) zero variance span a degenerate eigenspace: any basis of it is right
    real = theirs.explained_variance_ > 1e-10 * max(theirs.explained_variance_.max(initial=0), 1e-300)
    for attr in ATTRS:
        a, b = getattr(ours, attr), getattr(theirs, attr)
        a = a if np.isscalar(a) else _device.to_host(a)
        assert np.shape(a) == np.shape(b), attr
        if attr == "components_":
            a, b = a[real], b[real]
        # the spectrum's null part is rounding noise: sqrt(eps) * largest through the covariance
        atol = 1e-7 * np.max(np.abs(b), initial=0) if attr in ("singular_values_", "explained_variance_") else 1e-9
        np.testing.assert_allclose(a, b, rtol=rtol, atol=max(atol, 1e-9), err_msg=attr)
    np.testing.assert_allclose(ours.transform(X)[:, real], theirs.transform(X)[:, real], rtol=rtol, atol=1e-8)
    Z = theirs.transform(X)
    if Z.shape[1] == 0:  # scikit-learn rejects zero columns in inverse_transform; so does riptide
        with pytest.raises(ValueError, match="0 feature"):
            ours.inverse_transform(Z)
        return
    np.testing.assert_allclose(ours.inverse_transform(Z), theirs.inverse_transform(Z), rtol=rtol, atol=1e-8)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 40), d=st.integers(1, 7),
       solver=st.sampled_from(["full", "covariance_eigh", "auto"]), whiten=st.booleans(),
       n_components=st.sampled_from([None, 1, 2, 0.5, 0.95, "mle"]))  # fmt: skip
def test_pca_full_and_covariance_match(seed, n, d, solver, whiten, n_components):
    X = _data(seed, n, d)
    if isinstance(n_components, int) and n_components > min(n, d):
        n_components = min(n, d)
    if n_components == "mle" and n < d:
        n_components = None
    if n <= d:  # centered data of rank < d: whitening a null direction is rounding noise / rounding noise
        whiten = False
    params = dict(n_components=n_components, svd_solver=solver, whiten=whiten)
    ours, theirs = rtd.PCA(**params).fit(X), skd.PCA(**params).fit(X)
    _assert_same(ours, theirs, X)
    real = theirs.explained_variance_ > 1e-10 * max(theirs.explained_variance_.max(initial=0), 1e-300)
    np.testing.assert_allclose(ours.fit_transform(X)[:, real], theirs.fit_transform(X)[:, real], rtol=1e-6,
                               atol=1e-8)  # fmt: skip


@pytest.mark.parametrize("shape", [(200, 30), (25, 80)])
@pytest.mark.parametrize("seed", [0, 1])
def test_pca_randomized_same_draws(shape, seed):
    X = _data(seed, *shape)
    params = dict(n_components=4, svd_solver="randomized", random_state=seed)
    _assert_same(rtd.PCA(**params).fit(X), skd.PCA(**params).fit(X), X)


def test_pca_float32_and_sign_convention():
    X = _data(3, 60, 5).astype(np.float32)
    ours, theirs = rtd.PCA(3).fit(X), skd.PCA(3).fit(X)
    assert ours.components_.dtype == theirs.components_.dtype == np.float32
    assert ours.transform(X).dtype == np.float32
    np.testing.assert_allclose(ours.explained_variance_, theirs.explained_variance_, rtol=1e-4)
    largest = np.take_along_axis(ours.components_, np.abs(ours.components_).argmax(axis=1)[:, None], axis=1)
    assert (largest > 0).all()


def test_pca_errors_like_sklearn():
    X = _data(4, 10, 4)
    for params in [dict(n_components=5), dict(n_components=5, svd_solver="covariance_eigh")]:
        with pytest.raises(ValueError, match="n_components=5 must be between 0 and min"):
            rtd.PCA(**params).fit(X)
    with pytest.raises(ValueError, match="n_components='mle' is only supported if n_samples >= n_features"):
        rtd.PCA("mle", svd_solver="full").fit(X[:3])
    with pytest.raises(ValueError, match="n_components=5 must be between 1 and min"):
        rtd.PCA(5, svd_solver="randomized").fit(X)


def test_pca_riptide_frame_feature_names_out():
    X = _data(5, 30, 3)
    frame = rt.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2]})
    pca = rtd.PCA(2).fit(frame)
    assert pca.get_feature_names_out().tolist() == ["pca0", "pca1"]
    np.testing.assert_allclose(_device.to_host(pca.transform(frame)), skd.PCA(2).fit(X).transform(X), atol=1e-10)


# --------------------------------------------------------------------------- the probabilistic PCA model

# every n_components form for the exact solvers; scikit-learn's randomized and arpack solvers take 1 <= k < 6 only
_PROBABILISTIC_CASES = ([(solver, k) for solver in ("full", "covariance_eigh", "auto")
                         for k in (None, 0, 1, 3, 6, 0.9, "mle")]
                        + [(solver, k) for solver in ("randomized", "arpack") for k in (1, 3)])  # fmt: skip


@pytest.mark.parametrize("solver, n_components", _PROBABILISTIC_CASES)
@pytest.mark.parametrize("whiten", [False, True])
def test_pca_covariance_precision_and_score_match(solver, n_components, whiten):
    X = _data(7, 80, 6)
    X_new = _data(8, 15, 6)
    params = dict(n_components=n_components, whiten=whiten, svd_solver=solver, random_state=0)
    ours, theirs = rtd.PCA(**params).fit(X), skd.PCA(**params).fit(X)
    with np.errstate(divide="ignore"):  # n_components=0: the noise variance alone (1/sigma2 is finite here)
        np.testing.assert_allclose(ours.get_covariance(), theirs.get_covariance(), rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(ours.get_precision(), theirs.get_precision(), rtol=1e-6, atol=1e-9)
        for data in (X, X_new):
            np.testing.assert_allclose(ours.score_samples(data), theirs.score_samples(data), rtol=1e-7)
            assert ours.score(data) == pytest.approx(theirs.score(data), rel=1e-9)
    assert isinstance(ours.get_covariance(), np.ndarray) and isinstance(ours.score(X), float)


def test_pca_score_float32_riptide_frame_and_errors():
    X = _data(9, 50, 4)
    ours, theirs = rtd.PCA(2).fit(X.astype(np.float32)), skd.PCA(2).fit(X.astype(np.float32))
    for method in ("get_covariance", "get_precision"):
        a, b = getattr(ours, method)(), getattr(theirs, method)()
        assert a.dtype == b.dtype == np.float32, method
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)
    scores = ours.score_samples(X.astype(np.float32))
    assert scores.dtype == theirs.score_samples(X.astype(np.float32)).dtype
    np.testing.assert_allclose(scores, theirs.score_samples(X.astype(np.float32)), rtol=1e-4)
    frame = rt.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2], "d": X[:, 3]})
    fitted = rtd.PCA(2, whiten=True).fit(frame)
    expected = skd.PCA(2, whiten=True).fit(X)
    np.testing.assert_allclose(_device.to_host(fitted.score_samples(frame)), expected.score_samples(X), rtol=1e-9)
    np.testing.assert_allclose(_device.to_host(fitted.get_precision()), expected.get_precision(), rtol=1e-8)
    assert fitted.score(frame) == pytest.approx(expected.score(X), rel=1e-12)
    with pytest.raises(ValueError, match="X has 3 features"):
        ours.score_samples(X[:, :3])
    with pytest.raises(NotFittedError):
        rtd.PCA().get_covariance()
    with pytest.raises(NotFittedError):
        rtd.PCA().score(X)


@pytest.mark.gpu
def test_pca_probabilistic_model_on_the_device():
    import cupy

    X = _data(10, 60, 5)
    theirs = skd.PCA(3, whiten=True).fit(X)
    ours = rtd.PCA(3, whiten=True).fit(cupy.asarray(X))  # device input: device attributes and results
    assert isinstance(ours.get_covariance(), cupy.ndarray) and isinstance(ours.score_samples(cupy.asarray(X)),
                                                                          cupy.ndarray)  # fmt: skip
    np.testing.assert_allclose(cupy.asnumpy(ours.get_precision()), theirs.get_precision(), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(cupy.asnumpy(ours.score_samples(cupy.asarray(X))), theirs.score_samples(X), rtol=1e-8)
    hosted = rtd.PCA(3, whiten=True).fit(X)  # host input (computed on the GPU): host attributes and results
    assert isinstance(hosted.get_covariance(), np.ndarray) and isinstance(hosted.score_samples(X), np.ndarray)
    np.testing.assert_allclose(hosted.get_covariance(), theirs.get_covariance(), rtol=1e-7, atol=1e-9)
    assert hosted.score(X) == pytest.approx(theirs.score(X), rel=1e-9)
