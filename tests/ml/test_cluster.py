"""KMeans against scikit-learn: same seeds give the same centers (k-means++ and random draws are reproduced)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn.cluster as skc  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

import riptide as rt  # noqa: E402
from riptide import _device  # noqa: E402
from riptide.ml import cluster as rtc  # noqa: E402

X_BLOBS, _ = make_blobs(600, 4, centers=5, cluster_std=0.6, random_state=0)


@pytest.mark.parametrize("init", ["k-means++", "random"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_kmeans_same_seed_same_result(init, seed, weighted):
    w = np.random.default_rng(seed).uniform(0.5, 2, len(X_BLOBS)) if weighted else None
    params = dict(n_clusters=5, init=init, random_state=seed, n_init=2)
    ours = rtc.KMeans(**params).fit(X_BLOBS, sample_weight=w)
    theirs = skc.KMeans(**params).fit(X_BLOBS, sample_weight=w)
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)
    np.testing.assert_allclose(ours.cluster_centers_, theirs.cluster_centers_, rtol=1e-9, atol=1e-9)
    assert np.isclose(ours.inertia_, theirs.inertia_, rtol=1e-9)
    assert ours.n_iter_ == theirs.n_iter_
    assert ours.labels_.dtype == theirs.labels_.dtype == np.int32
    np.testing.assert_array_equal(ours.predict(X_BLOBS[:50]), theirs.predict(X_BLOBS[:50]))
    np.testing.assert_allclose(ours.transform(X_BLOBS[:50]), theirs.transform(X_BLOBS[:50]), rtol=1e-9)
    assert np.isclose(ours.score(X_BLOBS), theirs.score(X_BLOBS), rtol=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 1000), n=st.integers(4, 60), d=st.integers(1, 4), k=st.integers(1, 4),
       max_iter=st.integers(1, 20), tol=st.sampled_from([0.0, 1e-4, 1e-1]))  # fmt: skip
def test_kmeans_array_init_matches(seed, n, d, k, max_iter, tol):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    init = X[rng.choice(n, size=min(k, n), replace=False)]
    params = dict(n_clusters=len(init), init=init, max_iter=max_iter, tol=tol, n_init=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours, theirs = rtc.KMeans(**params).fit(X), skc.KMeans(**params).fit(X)
    assert np.isclose(ours.inertia_, theirs.inertia_, rtol=1e-2)  # the 1% contract; ties may split differently
    if adjusted_rand_score(ours.labels_, theirs.labels_) == 1.0:
        np.testing.assert_allclose(ours.cluster_centers_, theirs.cluster_centers_, rtol=1e-7, atol=1e-9)


def test_kmeans_empty_cluster_relocation_and_warning():
    X = np.array([[0.0, 0.0], [0.0, 0.1], [10.0, 10.0], [10.0, 10.1], [5.0, 5.0]])
    init = np.array([[0.0, 0.0], [10.0, 10.0], [100.0, 100.0]])  # the third center attracts nothing
    ours = rtc.KMeans(3, init=init, n_init=1).fit(X)
    theirs = skc.KMeans(3, init=init, n_init=1).fit(X)
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)
    np.testing.assert_allclose(ours.cluster_centers_, theirs.cluster_centers_)
    with pytest.warns(ConvergenceWarning, match=r"Number of distinct clusters \(1\) found smaller than n_clusters"):
        rtc.KMeans(2, n_init=1, random_state=0).fit(np.ones((5, 2)))


def test_kmeans_errors_like_sklearn():
    with pytest.raises(ValueError, match="n_samples=3 should be >= n_clusters=4"):
        rtc.KMeans(4).fit(X_BLOBS[:3])
    with pytest.raises(ValueError, match=r"The shape of the initial centers \(2, 4\) does not match the number of "
                       "clusters 3"):  # fmt: skip
        rtc.KMeans(3, init=X_BLOBS[:2]).fit(X_BLOBS)
    with pytest.warns(RuntimeWarning, match="Explicit initial center position passed"):
        rtc.KMeans(3, init=X_BLOBS[:3], n_init=4).fit(X_BLOBS)


def test_kmeans_riptide_frame_and_callable_init():
    frame = rt.DataFrame({f"f{j}": X_BLOBS[:, j] for j in range(4)})
    ours = rtc.KMeans(5, random_state=0).fit(frame)
    theirs = skc.KMeans(5, random_state=0).fit(X_BLOBS)
    np.testing.assert_array_equal(_device.to_host(ours.labels_), theirs.labels_)
    assert ours.fit_predict(frame).shape == (600,)

    def first_rows(X, n_clusters, random_state):
        return X[:n_clusters].copy()  # a view would let scikit-learn overwrite X in place

    ours = rtc.KMeans(5, init=first_rows, n_init=1).fit(X_BLOBS)
    theirs = skc.KMeans(5, init=first_rows, n_init=1).fit(X_BLOBS)
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)
