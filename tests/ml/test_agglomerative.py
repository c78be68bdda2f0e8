"""AgglomerativeClustering against scikit-learn: the same merges (children_), distances and labels."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import sklearn.cluster as skc  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402
from sklearn.neighbors import kneighbors_graph  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml.cluster import AgglomerativeClustering  # noqa: E402
from tests.ml._support import host  # noqa: E402


def _assert_same(ours, theirs):
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)
    np.testing.assert_array_equal(ours.children_, theirs.children_)
    assert ours.n_clusters_ == theirs.n_clusters_
    assert ours.n_leaves_ == theirs.n_leaves_ and ours.n_connected_components_ == theirs.n_connected_components_
    assert hasattr(ours, "distances_") == hasattr(theirs, "distances_")
    if hasattr(theirs, "distances_"):
        np.testing.assert_allclose(ours.distances_, theirs.distances_, rtol=1e-12, atol=1e-12)


SINGLE = [dict(), dict(n_clusters=5), dict(n_clusters=None, distance_threshold=1.0),
          dict(n_clusters=None, distance_threshold=0.0), dict(compute_distances=True, n_clusters=1),
          dict(metric="l2", n_clusters=3)]  # fmt: skip


@pytest.mark.parametrize("params", SINGLE, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
@pytest.mark.parametrize("d", [1, 3, 8])
def test_single_linkage_matches_sklearn(params, d):
    X, _ = make_blobs(400, d, centers=4, random_state=d)
    params = {**params, "linkage": "single"}
    _assert_same(AgglomerativeClustering(**params).fit(X), skc.AgglomerativeClustering(**params).fit(X))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 60), d=st.integers(1, 4), k=st.integers(1, 5),
       threshold=st.none() | st.floats(0, 3))  # fmt: skip
def test_single_linkage_random_data(seed, n, d, k, threshold):
    """Continuous data: the MST is unique and every merge is scikit-learn's."""
    X = np.random.default_rng(seed).normal(size=(n, d))
    params = dict(linkage="single", n_clusters=None if threshold is not None else min(k, n),
                  distance_threshold=threshold, compute_distances=True)  # fmt: skip
    _assert_same(AgglomerativeClustering(**params).fit(X), skc.AgglomerativeClustering(**params).fit(X))


def test_single_linkage_with_ties_gives_the_same_clusters():
    """An integer lattice (many equal distances): the merges at one height may come in another order, but the
    heights and the flat clusters at any threshold are the same."""
    X = np.random.default_rng(0).integers(0, 6, (80, 2)).astype(float)
    for threshold in (0.5, 1.0, 1.5, 2.5):
        params = dict(linkage="single", n_clusters=None, distance_threshold=threshold)
        ours, theirs = AgglomerativeClustering(**params).fit(X), skc.AgglomerativeClustering(**params).fit(X)
        assert ours.n_clusters_ == theirs.n_clusters_
        assert adjusted_rand_score(ours.labels_, theirs.labels_) == 1.0
        np.testing.assert_allclose(np.sort(ours.distances_), np.sort(theirs.distances_))


@pytest.mark.parametrize("params", [dict(linkage="ward"), dict(linkage="complete", metric="manhattan"),
                                    dict(linkage="average", metric="cosine", n_clusters=3),
                                    dict(linkage="single", metric="manhattan"),
                                    dict(linkage="ward", connectivity="knn", compute_full_tree=False),
                                    dict(linkage="single", memory="cache")])  # fmt: skip
def test_host_linkages_match_sklearn(params, tmp_path):
    X, _ = make_blobs(200, 3, centers=4, random_state=0)
    if params.get("connectivity") == "knn":
        params = {**params, "connectivity": kneighbors_graph(X, 10, include_self=False)}
    if params.get("memory") == "cache":
        params = {**params, "memory": str(tmp_path)}
    _assert_same(AgglomerativeClustering(**params).fit(X), skc.AgglomerativeClustering(**params).fit(X))


def test_errors_like_sklearn():
    X = np.arange(10.0).reshape(5, 2)
    with pytest.raises(ValueError, match="Exactly one of n_clusters and distance_threshold has to be set"):
        AgglomerativeClustering(linkage="single", distance_threshold=1.0).fit(X)
    with pytest.raises(ValueError, match="compute_full_tree must be True if distance_threshold is set"):
        AgglomerativeClustering(linkage="single", n_clusters=None, distance_threshold=1.0,
                                compute_full_tree=False).fit(X)  # fmt: skip
    with pytest.raises(ValueError, match="Cannot extract more clusters than samples"):
        AgglomerativeClustering(linkage="single", n_clusters=6).fit(X)
    with pytest.raises(ValueError, match="minimum of 2 is required"):
        AgglomerativeClustering(linkage="single").fit(X[:1])
    with pytest.raises(ValueError, match="Input X contains NaN"):
        AgglomerativeClustering(linkage="single").fit(np.array([[0.0], [np.nan]]))
    with pytest.raises(ValueError, match="Ward can only work with euclidean distances"):
        AgglomerativeClustering(metric="manhattan").fit(X)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inputs_and_outputs(dtype):
    X, _ = make_blobs(150, 3, centers=3, random_state=1)
    X = X.astype(dtype)
    expected = skc.AgglomerativeClustering(linkage="single", n_clusters=3).fit(X)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    for data in (X, frame, rt.DataFrame(frame), X.tolist()):
        ours = AgglomerativeClustering(linkage="single", n_clusters=3).fit(data)
        np.testing.assert_array_equal(host(ours.labels_), expected.labels_)
        labels = AgglomerativeClustering(linkage="single", n_clusters=3).fit_predict(data)
        np.testing.assert_array_equal(host(labels), expected.labels_)
        if not isinstance(data, rt.DataFrame):
            assert isinstance(ours.labels_, np.ndarray) and isinstance(labels, np.ndarray)
    dup = np.ones((6, 2))
    _assert_same(AgglomerativeClustering(linkage="single").fit(dup),
                 skc.AgglomerativeClustering(linkage="single").fit(dup))  # fmt: skip
    restored = pickle.loads(pickle.dumps(AgglomerativeClustering(linkage="single", n_clusters=3).fit(X)))
    np.testing.assert_array_equal(restored.labels_, expected.labels_)


@parametrize_with_checks([AgglomerativeClustering(linkage="single"), AgglomerativeClustering(),
                          AgglomerativeClustering(linkage="single", compute_distances=True)])  # fmt: skip
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
