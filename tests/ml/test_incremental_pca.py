"""IncrementalPCA against scikit-learn."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import sklearn.decomposition as skd  # noqa: E402
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml.decomposition import IncrementalPCA  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402

ATTRS = ["components_", "singular_values_", "mean_", "var_", "explained_variance_", "explained_variance_ratio_",
         "noise_variance_", "n_samples_seen_"]  # fmt: skip


def _matrix(seed, n, d, float32):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.geomspace(8, 1, d) + rng.normal(size=d)
    return X.astype(np.float32) if float32 else X


def _same(ours, theirs, rtol, atol):
    assert ours.n_components_ == theirs.n_components_
    # a component of (near) zero singular value spans the data's null space: any unit vector there is a right
    # answer, and the two SVD libraries pick different ones (cuSOLVER on a GPU, LAPACK here)
    determined = theirs.singular_values_ > 1e-6 * max(theirs.singular_values_.max(initial=0), 1e-300)
    for attr in ATTRS:
        a, b = _host(getattr(ours, attr)), getattr(theirs, attr)
        assert np.shape(a) == np.shape(b), attr
        if attr == "components_":
            a, b = a[determined], b[determined]
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=attr)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 100), n=st.integers(4, 60), d=st.integers(1, 6), k=st.sampled_from([None, 1, 2, 3]),
       batch=st.sampled_from([None, 4, 7, 25]), whiten=st.booleans(), float32=st.booleans())  # fmt: skip
def test_fit_matches_sklearn(seed, n, d, k, batch, whiten, float32):
    # whitening divides by the explained variances: a component of (near) zero variance amplifies rounding
    assume(not whiten or (k or min(n, d)) < min(n - 1, d))
    X = _matrix(seed, n, d, float32)
    params = dict(n_components=k, batch_size=batch, whiten=whiten)
    try:
        theirs = skd.IncrementalPCA(**params).fit(X)
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)[:25]):
            IncrementalPCA(**params).fit(X)
        return
    ours = IncrementalPCA(**params).fit(X)
    rtol, atol = (2e-3, 2e-3) if float32 else (1e-6, 1e-8)
    _same(ours, theirs, rtol, atol)
    np.testing.assert_allclose(ours.transform(X), theirs.transform(X), rtol=rtol, atol=atol)
    np.testing.assert_allclose(ours.inverse_transform(ours.transform(X)),
                               theirs.inverse_transform(theirs.transform(X)), rtol=rtol, atol=atol)  # fmt: skip


def test_partial_fit_matches_and_errors():
    X = _matrix(3, 80, 5, False)
    ours, theirs = IncrementalPCA(n_components=3), skd.IncrementalPCA(n_components=3)
    for chunk in np.array_split(X, 5):
        ours.partial_fit(chunk)
        theirs.partial_fit(chunk)
    _same(ours, theirs, 1e-6, 1e-8)
    np.testing.assert_allclose(ours.get_covariance(), theirs.get_covariance(), atol=1e-8)
    np.testing.assert_allclose(ours.get_precision(), theirs.get_precision(), rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="must be less or equal to the batch number"):
        IncrementalPCA(n_components=3).partial_fit(X[:2])
    with pytest.raises(ValueError, match="invalid for n_features"):
        IncrementalPCA(n_components=9).fit(X)
    with pytest.raises(ValueError, match="X has 4 features"):
        ours.partial_fit(X[:, :4])
    with pytest.raises(NotFittedError):
        IncrementalPCA().transform(X)


def test_riptide_frame_and_pickle():
    X = _matrix(4, 40, 3, False)
    pdf = pd.DataFrame(X, columns=["a", "b", "c"])
    ours = IncrementalPCA(n_components=2, batch_size=10).fit(rt.DataFrame(pdf))
    theirs = skd.IncrementalPCA(n_components=2, batch_size=10).fit(pdf)
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())
    np.testing.assert_allclose(_host(ours.transform(rt.DataFrame(pdf))), theirs.transform(pdf), atol=1e-8)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(ours)).transform(X), ours.transform(X))


@parametrize_with_checks([IncrementalPCA(), IncrementalPCA(n_components=1, batch_size=10, whiten=True)])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("whiten", [False, True])
@pytest.mark.parametrize("k", [None, 1, 3, 5])
def test_covariance_and_precision_match(k, whiten):
    X = _matrix(5, 90, 5, False)
    ours = IncrementalPCA(n_components=k, whiten=whiten, batch_size=20).fit(X)
    theirs = skd.IncrementalPCA(n_components=k, whiten=whiten, batch_size=20).fit(X)
    np.testing.assert_allclose(ours.get_covariance(), theirs.get_covariance(), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.get_precision(), theirs.get_precision(), rtol=1e-6, atol=1e-9)
    assert isinstance(ours.get_covariance(), np.ndarray)
    assert not hasattr(ours, "score_samples")  # scikit-learn's IncrementalPCA has no likelihood either
