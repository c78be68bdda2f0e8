"""DBSCAN against scikit-learn: the same labels (numbering included), core samples and components."""

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
from sklearn.metrics import pairwise_distances  # noqa: E402
from sklearn.neighbors import NearestNeighbors  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml.cluster import DBSCAN  # noqa: E402
from riptide.ml.cluster import _dbscan, _neighbourhood  # noqa: E402
from tests.ml._support import host  # noqa: E402

METRICS = [("euclidean", None), ("manhattan", None), ("chebyshev", None), ("minkowski", 3), ("minkowski", 1.5),
           ("cosine", None), ("l2", None), ("cityblock", None)]  # fmt: skip


def _assert_same(ours, theirs):
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)
    np.testing.assert_array_equal(ours.core_sample_indices_, theirs.core_sample_indices_)
    np.testing.assert_array_equal(ours.components_, theirs.components_)
    assert ours.components_.dtype == theirs.components_.dtype
    assert ours.components_.shape == theirs.components_.shape


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 70), d=st.integers(1, 5), eps=st.sampled_from([0.5, 1, 1.5, 2]),
       min_samples=st.integers(1, 6), metric=st.sampled_from(METRICS), lattice=st.booleans(),
       weighted=st.booleans())  # fmt: skip
def test_dbscan_matches_sklearn(seed, n, d, eps, min_samples, metric, lattice, weighted):
    """Random data, integer lattices (distances exactly eps, duplicates) and weights: identical results."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, (n, d)).astype(float) if lattice else rng.normal(scale=2, size=(n, d))
    w = rng.uniform(0.3, 2.5, n) if weighted else None
    if metric[0] == "cosine":
        eps = eps / 10
    params = dict(eps=eps, min_samples=min_samples, metric=metric[0], p=metric[1])
    _assert_same(DBSCAN(**params).fit(X, sample_weight=w), skc.DBSCAN(**params).fit(X, sample_weight=w))


@pytest.mark.parametrize("d", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "chebyshev"])
def test_dbscan_blobs(d, metric):
    X, _ = make_blobs(1500, d, centers=6, cluster_std=0.8, center_box=(-30, 30), random_state=d)
    distances, _ = NearestNeighbors(n_neighbors=6, metric=metric).fit(X).kneighbors(X)
    params = dict(eps=float(np.quantile(distances[:, -1], 0.8)), min_samples=6, metric=metric)
    ours, theirs = DBSCAN(**params).fit(X), skc.DBSCAN(**params).fit(X)
    _assert_same(ours, theirs)
    assert theirs.labels_.max() >= 1 and (theirs.labels_ == -1).any()  # a non-trivial clustering


@pytest.mark.parametrize("d", [2, 5])
def test_dbscan_in_small_chunks(d, monkeypatch):
    """Candidate chunks far smaller than the data (and no reuse of the first pass's pairs) change nothing."""
    X, _ = make_blobs(700, d, centers=4, cluster_std=0.7, random_state=3)
    expected = skc.DBSCAN(eps=0.4, min_samples=5).fit(X).labels_
    metric = _neighbourhood.Metric("euclidean")
    monkeypatch.setattr(_dbscan, "BUDGET", 100)
    for budget in (1, 37, 5000):
        labels, _ = _dbscan.dbscan_labels(lambda b=budget: _neighbourhood.radius_pairs(X, 0.4, metric, np, b),
                                          len(X), np.ones(len(X)), 5, np)  # fmt: skip
        np.testing.assert_array_equal(labels, expected)


def test_dbscan_border_point_goes_to_first_cluster():
    """A border point between two clusters takes the one scikit-learn's scan reaches first (the smaller label)."""
    left = [[0.0, 0.0], [0.1, 0.0], [0.2, 0.0], [0.3, 0.0]]
    right = [[2.1, 0.0], [2.2, 0.0], [2.3, 0.0], [2.4, 0.0]]
    for X in (np.array(left + [[1.2, 0.0]] + right), np.array(right + [[1.2, 0.0]] + left)):
        ours, theirs = DBSCAN(eps=0.95, min_samples=4).fit(X), skc.DBSCAN(eps=0.95, min_samples=4).fit(X)
        _assert_same(ours, theirs)
        assert ours.labels_[4] == 0 and 4 not in ours.core_sample_indices_


def test_dbscan_precomputed_and_host_metrics():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (150, 2))
    D = pairwise_distances(X)
    _assert_same(DBSCAN(eps=0.2, metric="precomputed").fit(D), skc.DBSCAN(eps=0.2, metric="precomputed").fit(D))
    for params in (dict(metric="haversine"), dict(metric=lambda a, b: np.abs(a - b).sum()),
                   dict(metric="minkowski", metric_params={"p": 3}), dict(metric="braycurtis")):  # fmt: skip
        _assert_same(DBSCAN(eps=0.2, **params).fit(X), skc.DBSCAN(eps=0.2, **params).fit(X))
    with pytest.warns(UserWarning, match="0 < p < 1"):
        _assert_same(DBSCAN(eps=0.2, metric="minkowski", p=0.5).fit(X),
                     skc.DBSCAN(eps=0.2, metric="minkowski", p=0.5).fit(X))  # fmt: skip
    with pytest.raises(ValueError, match="Negative values in data passed to X"):
        DBSCAN(metric="precomputed").fit(-D)
    with pytest.raises(ValueError, match="Precomputed matrix must be square"):
        DBSCAN(metric="precomputed").fit(D[:, :10])


def test_dbscan_sparse_input():
    from scipy import sparse
    from sklearn.neighbors import radius_neighbors_graph

    X, _ = make_blobs(200, 2, centers=3, cluster_std=0.5, random_state=0)
    graph = radius_neighbors_graph(X, 0.4, mode="distance")
    for data, params in ((graph, dict(metric="precomputed", eps=0.3)), (sparse.csr_matrix(X), dict(eps=0.3))):
        ours, theirs = DBSCAN(**params).fit(data), skc.DBSCAN(**params).fit(data)
        np.testing.assert_array_equal(ours.labels_, theirs.labels_)
        np.testing.assert_array_equal(ours.core_sample_indices_, theirs.core_sample_indices_)


def test_dbscan_edge_cases():
    one = np.array([[1.0, 2.0]])
    _assert_same(DBSCAN(min_samples=1).fit(one), skc.DBSCAN(min_samples=1).fit(one))
    _assert_same(DBSCAN().fit(one), skc.DBSCAN().fit(one))  # no core sample: components_ is (0, 2)
    dup = np.ones((10, 3))
    _assert_same(DBSCAN().fit(dup), skc.DBSCAN().fit(dup))
    lattice = np.random.default_rng(1).integers(-3, 4, (52, 4)).astype(float)  # brute force: pairs at exactly eps
    _assert_same(DBSCAN(eps=2, min_samples=1).fit(lattice), skc.DBSCAN(eps=2, min_samples=1).fit(lattice))
    ints = np.array([[0, 0], [0, 1], [1, 0], [5, 5], [5, 6]])
    _assert_same(DBSCAN(eps=1, min_samples=2).fit(ints), skc.DBSCAN(eps=1, min_samples=2).fit(ints))
    huge = np.array([[0.0, 0.0], [1e300, 1e300], [1e300, 1e300], [1e300, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(DBSCAN(eps=1, min_samples=1).fit(huge).labels_, [0, 1, 1, 2])
    w = np.array([5.0, 0.5, 0.5, -3.0, 5.0])  # negative weights may keep a neighbour from being core
    X = np.array([[0.0], [0.2], [0.4], [5.0], [5.2]])
    _assert_same(DBSCAN(eps=0.3, min_samples=3).fit(X, sample_weight=w),
                 skc.DBSCAN(eps=0.3, min_samples=3).fit(X, sample_weight=w))  # fmt: skip


def test_dbscan_errors_like_sklearn():
    with pytest.raises(ValueError, match="Input X contains NaN"):
        DBSCAN().fit(np.array([[0.0], [np.nan]]))
    with pytest.raises(ValueError, match="eps"):
        DBSCAN(eps=0).fit(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="sample_weight.shape"):
        DBSCAN().fit(np.zeros((3, 1)), sample_weight=np.ones(4))
    with pytest.raises(ValueError, match="Expected 2D array"):
        DBSCAN().fit(np.zeros(3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dbscan_inputs_and_outputs(dtype):
    X, _ = make_blobs(300, 3, centers=3, cluster_std=0.5, random_state=0)
    X = X.astype(dtype)
    expected = skc.DBSCAN(eps=0.5).fit(X)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    for data in (X, frame, rt.DataFrame(frame), X.tolist()):
        ours = DBSCAN(eps=0.5).fit(data)
        np.testing.assert_array_equal(host(ours.labels_), expected.labels_)
        np.testing.assert_array_equal(host(ours.components_), expected.components_)
        labels = DBSCAN(eps=0.5).fit_predict(data)
        np.testing.assert_array_equal(host(labels), expected.labels_)
        if not isinstance(data, rt.DataFrame):
            assert isinstance(ours.labels_, np.ndarray) and isinstance(labels, np.ndarray)
    assert list(DBSCAN().fit(frame).feature_names_in_) == ["a", "b", "c"]
    restored = pickle.loads(pickle.dumps(DBSCAN(eps=0.5).fit(X)))
    np.testing.assert_array_equal(restored.labels_, expected.labels_)


def _expected_failed_checks(estimator):
    if estimator.metric != "manhattan":
        return {}
    reason = ("sparse input runs scikit-learn's DBSCAN, whose manhattan distances on sparse matrices take 32-bit "
              "indices only; scikit-learn's own DBSCAN(metric='manhattan') fails this check the same way")
    return {"check_estimator_sparse_array": reason, "check_estimator_sparse_matrix": reason}


@parametrize_with_checks([DBSCAN(), DBSCAN(eps=1.5, min_samples=3, metric="manhattan")],
                         expected_failed_checks=_expected_failed_checks)  # fmt: skip
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
