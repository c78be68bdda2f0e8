"""MiniBatchKMeans against scikit-learn: the same random_state gives the same draws, steps and centers."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import sklearn.cluster as skc  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml.cluster import MiniBatchKMeans  # noqa: E402
from tests.ml._support import host  # noqa: E402

X_BLOBS, _ = make_blobs(2000, 5, centers=6, cluster_std=1.0, random_state=0)
WEIGHTS = np.random.default_rng(0).uniform(0.5, 2, len(X_BLOBS))


def _assert_same(ours, theirs, rtol=1e-9, X=None):
    """Same centers, steps, inertia and labels; given ``X``, a label may differ where the point is equally far
    from both centers (two equal centers, say: the device's rounding of the distances breaks the tie)."""
    np.testing.assert_allclose(ours.cluster_centers_, theirs.cluster_centers_, rtol=rtol, atol=1e-9)
    assert ours.n_steps_ == theirs.n_steps_ and getattr(ours, "n_iter_", None) == getattr(theirs, "n_iter_", None)
    assert np.isclose(ours.inertia_, theirs.inertia_, rtol=rtol)
    if hasattr(theirs, "labels_"):
        assert ours.labels_.dtype == theirs.labels_.dtype
        differ = np.flatnonzero(ours.labels_ != theirs.labels_)
        if X is None or not differ.size:
            np.testing.assert_array_equal(ours.labels_, theirs.labels_)
            return
        centers, points = theirs.cluster_centers_, X[differ]
        to_ours = ((points - centers[ours.labels_[differ]]) ** 2).sum(axis=1)
        to_theirs = ((points - centers[theirs.labels_[differ]]) ** 2).sum(axis=1)
        np.testing.assert_allclose(to_ours, to_theirs, rtol=1e-9, atol=1e-12, err_msg=f"labels differ at {differ}")


PARAMS = [dict(), dict(init="random"), dict(max_no_improvement=None, max_iter=5), dict(tol=1e-3),
          dict(compute_labels=False), dict(batch_size=100, n_init=2), dict(init=X_BLOBS[:6], max_iter=3),
          dict(reassignment_ratio=0.3, batch_size=50), dict(reassignment_ratio=0), dict(init_size=40),
          # a copy: scikit-learn writes into the centers it is given, here a view of X
          dict(init=lambda X, k, random_state: X[-k:].copy(), n_init=2)]  # fmt: skip


@pytest.mark.parametrize("params", PARAMS, ids=lambda p: ",".join(p) or "default")
@pytest.mark.parametrize("weighted", [False, True])
def test_minibatch_same_seed_same_result(params, weighted):
    w = WEIGHTS if weighted else None
    ours = MiniBatchKMeans(6, random_state=0, **params).fit(X_BLOBS, sample_weight=w)
    theirs = skc.MiniBatchKMeans(6, random_state=0, **params).fit(X_BLOBS, sample_weight=w)
    _assert_same(ours, theirs)
    np.testing.assert_array_equal(ours.predict(X_BLOBS[:40]), theirs.predict(X_BLOBS[:40]))
    np.testing.assert_allclose(ours.transform(X_BLOBS[:40]), theirs.transform(X_BLOBS[:40]), rtol=1e-9)
    assert np.isclose(ours.score(X_BLOBS), theirs.score(X_BLOBS), rtol=1e-9)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 1000), n=st.integers(2, 120), d=st.integers(2, 4), k=st.integers(1, 5),
       batch=st.integers(1, 64), max_iter=st.integers(1, 6),
       dtype=st.sampled_from([np.float32, np.float64]))  # fmt: skip
def test_minibatch_random_data(seed, n, d, k, batch, max_iter, dtype):
    """(In one dimension, two k-means++ candidates often lower the potential by exactly the same amount, and the
    rounding of the distances decides between them, differently from scikit-learn's: d >= 2 here.)"""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(dtype)
    k = min(k, n)
    params = dict(n_clusters=k, batch_size=batch, max_iter=max_iter, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = MiniBatchKMeans(**params).fit(X), skc.MiniBatchKMeans(**params).fit(X)
    assert ours.cluster_centers_.dtype == theirs.cluster_centers_.dtype == dtype
    # the 1% inertia contract; float32 rounding may move a tied point to another cluster
    assert np.isclose(ours.inertia_, theirs.inertia_, rtol=1e-2)
    if dtype == np.float64:
        _assert_same(ours, theirs, rtol=1e-7, X=X)


def test_minibatch_partial_fit():
    ours, theirs = MiniBatchKMeans(6, random_state=0), skc.MiniBatchKMeans(6, random_state=0)
    for k in range(6):
        batch = X_BLOBS[k * 300 : (k + 1) * 300]
        ours.partial_fit(batch)
        theirs.partial_fit(batch)
        _assert_same(ours, theirs)
    restored = pickle.loads(pickle.dumps(ours))
    restored.partial_fit(X_BLOBS[:100])
    theirs.partial_fit(X_BLOBS[:100])
    _assert_same(restored, theirs)


def test_minibatch_blobs_inertia_and_agreement():
    X, y = make_blobs(20000, 8, centers=5, cluster_std=0.8, random_state=3)
    ours, theirs = MiniBatchKMeans(5, random_state=1).fit(X), skc.MiniBatchKMeans(5, random_state=1).fit(X)
    assert np.isclose(ours.inertia_, theirs.inertia_, rtol=1e-2)
    assert adjusted_rand_score(ours.labels_, theirs.labels_) == 1.0
    assert adjusted_rand_score(ours.labels_, y) > 0.99


def test_minibatch_warnings_and_errors():
    with pytest.warns(RuntimeWarning, match="init_size=2 should be larger than n_clusters=3"):
        MiniBatchKMeans(3, init_size=2, random_state=0).fit(X_BLOBS)
    with pytest.warns(RuntimeWarning, match="Explicit initial center position passed"):
        MiniBatchKMeans(3, init=X_BLOBS[:3], n_init=3).fit(X_BLOBS)
    with pytest.raises(ValueError, match="n_samples=2 should be >= n_clusters=3"):
        MiniBatchKMeans(3).fit(X_BLOBS[:2])
    with pytest.raises(ValueError, match="Input X contains NaN"):
        MiniBatchKMeans(2).fit(np.array([[0.0], [np.nan], [1.0]]))
    with pytest.raises(NotFittedError):
        MiniBatchKMeans(2).predict(X_BLOBS)
    fitted = MiniBatchKMeans(2, random_state=0).fit(X_BLOBS)
    with pytest.raises(ValueError, match="X has 3 features, but MiniBatchKMeans is expecting 5 features"):
        fitted.predict(X_BLOBS[:, :3])


def test_minibatch_inputs_and_outputs():
    expected = skc.MiniBatchKMeans(4, random_state=0).fit(X_BLOBS)
    frame = pd.DataFrame(X_BLOBS, columns=list("abcde"))
    for data in (X_BLOBS, frame, rt.DataFrame(frame)):
        ours = MiniBatchKMeans(4, random_state=0).fit(data)
        np.testing.assert_allclose(host(ours.cluster_centers_), expected.cluster_centers_, rtol=1e-9)
        labels = ours.predict(data)
        np.testing.assert_array_equal(host(labels), expected.labels_)
        if not isinstance(data, rt.DataFrame):
            assert isinstance(ours.cluster_centers_, np.ndarray) and isinstance(labels, np.ndarray)
    one = np.array([[1.0, 2.0]])
    _assert_same(MiniBatchKMeans(1, random_state=0).fit(one), skc.MiniBatchKMeans(1, random_state=0).fit(one))
    dup = np.ones((20, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _assert_same(MiniBatchKMeans(2, random_state=0).fit(dup), skc.MiniBatchKMeans(2, random_state=0).fit(dup))


EXPECTED_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": "the random draws differ between weighted and repeated "
    "samples, so the result differs; scikit-learn lists the same expected failure for its MiniBatchKMeans",
}


@parametrize_with_checks([MiniBatchKMeans(n_clusters=2, n_init=2, max_iter=5, batch_size=10, random_state=0),
                          MiniBatchKMeans(n_clusters=2, init="random", n_init=2, max_iter=5, random_state=0)],
                         expected_failed_checks=lambda estimator: EXPECTED_FAILURES)  # fmt: skip
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
