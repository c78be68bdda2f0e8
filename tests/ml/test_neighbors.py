"""riptide.ml.neighbors against scikit-learn: searches, graphs, the classifier and regressor, batching, ties, the
GPU selection kernel emulated on the CPU, and scikit-learn's conformance checks."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import scipy.sparse as sp  # noqa: E402
import sklearn.neighbors as skn  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.exceptions import DataConversionWarning, NotFittedError  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import riptide as rt  # noqa: E402
from riptide import _device  # noqa: E402
from riptide.ml import neighbors as rtn  # noqa: E402
from riptide.ml.neighbors import _brute, _kernels  # noqa: E402
from tests.ml._kernel_emulation import EMU_SHIM, compile_library  # noqa: E402

RNG = np.random.default_rng(11)
X_FIT = RNG.normal(size=(120, 4))
X_QUERY = RNG.normal(size=(25, 4))
METRICS = [("euclidean", 2), ("minkowski", 2), ("minkowski", 1), ("minkowski", 3), ("minkowski", np.inf),
           ("sqeuclidean", 2), ("cosine", 2), ("manhattan", 2), ("cityblock", 2), ("chebyshev", 2),
           ("l2", 2)]  # fmt: skip


def host(value):
    return value if value is None or np.isscalar(value) else _device.to_host(value)


def _pair(**params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # p < 1 warns in both
        ours = rtn.NearestNeighbors(**params)
        theirs = skn.NearestNeighbors(algorithm="brute", **params)
    return ours, theirs


def _assert_same_neighbours(ours, theirs, rtol=1e-6):
    """Same distances; the same neighbour sets, in the same order where distances differ."""
    d_ours, i_ours = (host(a) for a in ours)
    d_theirs, i_theirs = theirs
    assert d_ours.dtype == d_theirs.dtype and i_ours.dtype == i_theirs.dtype
    np.testing.assert_allclose(d_ours, d_theirs, rtol=rtol, atol=rtol)
    np.testing.assert_array_equal(np.sort(i_ours, axis=1), np.sort(i_theirs, axis=1))


@pytest.fixture(params=["default", "tiny"])
def blocks(request, monkeypatch):
    """Default blocks, or tiny ones: many query blocks and index blocks (the batching of big problems)."""
    if request.param == "tiny":
        monkeypatch.setattr(_brute, "_MAX_BLOCK_ELEMENTS", 300)
        monkeypatch.setattr(_brute, "_INDEX_BLOCK", 23)
    return request.param


# --------------------------------------------------------------------------- searches


@pytest.mark.parametrize(("metric", "p"), METRICS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kneighbors_like_sklearn(metric, p, dtype, blocks):
    ours, theirs = _pair(n_neighbors=6, metric=metric, p=p)
    ours.fit(X_FIT.astype(dtype))
    theirs.fit(X_FIT.astype(dtype))
    rtol = 1e-5 if dtype == np.float32 else 1e-9
    _assert_same_neighbours(ours.kneighbors(X_QUERY.astype(dtype)), theirs.kneighbors(X_QUERY.astype(dtype)), rtol)
    _assert_same_neighbours(ours.kneighbors(), theirs.kneighbors(), rtol)  # X=None: each row without itself
    np.testing.assert_array_equal(ours.kneighbors(X_QUERY.astype(dtype), 3, return_distance=False),
                                  theirs.kneighbors(X_QUERY.astype(dtype), 3, return_distance=False))


def test_minkowski_weights_and_small_p():
    w = np.array([1.0, 2.0, 0.5, 3.0])
    for params in ({"metric": "minkowski", "p": 3, "metric_params": {"w": w}}, {"metric": "minkowski", "p": 0.5}):
        ours, theirs = _pair(n_neighbors=4, **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _assert_same_neighbours(ours.fit(X_FIT).kneighbors(X_QUERY), theirs.fit(X_FIT).kneighbors(X_QUERY))
    with pytest.warns(UserWarning, match="0 < p < 1"):
        rtn.NearestNeighbors(p=0.5).fit(X_FIT)
    with pytest.raises(ValueError, match="does not support 0 < p < 1"):
        rtn.NearestNeighbors(p=0.5, algorithm="kd_tree").fit(X_FIT)
    assert rtn.NearestNeighbors(p=1).fit(X_FIT).effective_metric_ == "manhattan"
    assert rtn.NearestNeighbors(p=3).fit(X_FIT).effective_metric_params_ == {"p": 3, "w": None}


def test_mixed_and_integer_dtypes():
    ours, theirs = _pair(n_neighbors=3)
    ours.fit(X_FIT.astype(np.float32))
    theirs.fit(X_FIT.astype(np.float32))
    _assert_same_neighbours(ours.kneighbors(X_QUERY), theirs.kneighbors(X_QUERY), 1e-5)
    Xi = RNG.integers(0, 5, size=(30, 3))
    ours, theirs = _pair(n_neighbors=4, metric="cosine")
    d_ours, _ = ours.fit(Xi).kneighbors(Xi[:5])
    d_theirs, _ = theirs.fit(Xi).kneighbors(Xi[:5])
    np.testing.assert_allclose(d_ours, d_theirs, atol=1e-12)


@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean", "manhattan", "chebyshev"])
def test_ties_lowest_indices_in_index_order(metric, blocks):
    """Duplicated rows: the k smallest by (distance, index), in that order. scikit-learn's heap leaves which of
    equal distances at the k-th place are kept, and their order, unspecified (and its euclidean GEMM identity
    rounds duplicates' distances apart); riptide re-ranks euclidean candidates exactly: only distances compare."""
    X = np.repeat(RNG.normal(size=(4, 2)), 6, axis=0)[RNG.permutation(24)]
    X = np.vstack([X, X[:3] + 1e-9])  # and tiny distances
    ours, theirs = _pair(n_neighbors=9, metric=metric)
    d_ours, i_ours = ours.fit(X).kneighbors(X[:7])
    d_theirs, _ = theirs.fit(X).kneighbors(X[:7])
    np.testing.assert_allclose(d_ours, d_theirs, atol=1e-7)
    diff = np.abs(X[:7, None, :] - X[None, :, :])
    exact = {"euclidean": np.sqrt((diff**2).sum(-1)), "sqeuclidean": (diff**2).sum(-1), "manhattan": diff.sum(-1),
             "chebyshev": diff.max(-1)}[metric]  # fmt: skip
    for row in range(7):
        expected = np.lexsort((np.arange(len(X)), exact[row]))[:9]
        np.testing.assert_array_equal(i_ours[row], expected)
        np.testing.assert_allclose(d_ours[row], exact[row, expected], rtol=1e-12, atol=1e-15)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), metric=st.sampled_from(["euclidean", "sqeuclidean", "manhattan", "chebyshev", "minkowski"]))
def test_kneighbors_against_exact_oracle(data, metric, blocks):
    """Small integer grids (many exact ties): the k smallest by (exact distance, index), in that order, for
    queries and for X=None (scikit-learn's rule: drop the row itself, or the first neighbour if it is absent)."""
    n = data.draw(st.integers(1, 25))
    d = data.draw(st.integers(1, 3))
    X = np.array(data.draw(st.lists(st.lists(st.integers(-2, 2), min_size=d, max_size=d), min_size=n, max_size=n)),
                 dtype=np.float64)  # fmt: skip
    k = data.draw(st.integers(1, n))
    diff = np.abs(X[:, None, :] - X[None, :, :])
    exact = {"euclidean": np.sqrt((diff**2).sum(-1)), "sqeuclidean": (diff**2).sum(-1), "manhattan": diff.sum(-1),
             "chebyshev": diff.max(-1), "minkowski": (diff**3).sum(-1) ** (1 / 3)}[metric]  # fmt: skip
    nn = rtn.NearestNeighbors(n_neighbors=k, metric=metric, p=3).fit(X)
    dist, ind = nn.kneighbors(X)
    order = np.lexsort((np.broadcast_to(np.arange(n), (n, n)), exact), axis=1)[:, :k]
    np.testing.assert_array_equal(ind, order)
    np.testing.assert_allclose(dist, np.take_along_axis(exact, order, axis=1), rtol=1e-12)
    if k < n:
        ind_self = nn.kneighbors(None, return_distance=False)
        wide = np.lexsort((np.broadcast_to(np.arange(n), (n, n)), exact), axis=1)[:, : k + 1]
        for row in range(n):
            keep = [j for j in wide[row] if j != row]
            np.testing.assert_array_equal(ind_self[row], keep[:k] if len(keep) == k else keep[1:])


@pytest.mark.parametrize("float32_ranking", [True, False])
def test_euclidean_ranking_precisions(float32_ranking, monkeypatch, blocks):
    """Both ranking precisions give the exact answer; two far-apart tight clusters defeat the float32 bound
    (every query is searched again exactly) and still give it."""
    monkeypatch.setattr(_brute, "_APPROX_FLOAT32", float32_ranking)
    tight = RNG.normal(size=(60, 3)) * 1e-3 + np.where(np.arange(60)[:, None] % 2, 1e6, -1e6)
    for X, Q in ((X_FIT, X_QUERY), (tight, tight[:9] + 1e-4)):
        dist, ind = rtn.NearestNeighbors(n_neighbors=5).fit(X).kneighbors(Q)
        exact = np.sqrt(((Q[:, None, :] - X[None, :, :]) ** 2).sum(-1))
        order = np.lexsort((np.broadcast_to(np.arange(len(X)), exact.shape), exact), axis=1)[:, :5]
        np.testing.assert_array_equal(ind, order)
        np.testing.assert_allclose(dist, np.take_along_axis(exact, order, axis=1), rtol=1e-9)


def test_rerank_falls_back_when_ties_exceed_the_margin(blocks):
    """More equal distances at the k-th place than the re-ranking margin: the exact search decides."""
    X = np.vstack([np.zeros((1, 3)), np.ones((40, 3)), np.full((5, 3), 0.5)])
    ind = rtn.NearestNeighbors(n_neighbors=3).fit(X).kneighbors([[0.6, 0.6, 0.6]], 8, return_distance=False)
    np.testing.assert_array_equal(ind, [[41, 42, 43, 44, 45, 1, 2, 3]])


def test_kneighbors_self_exclusion_with_many_duplicates():
    """X=None with more duplicates than k: scikit-learn drops the first neighbour when the row itself is not
    among the k + 1 (riptide's first is the lowest index)."""
    X = np.zeros((8, 2))
    X[5:] = 1.0
    ind = rtn.NearestNeighbors(n_neighbors=2).fit(X).kneighbors(return_distance=False)
    np.testing.assert_array_equal(ind, [[1, 2], [0, 2], [0, 1], [1, 2], [1, 2], [6, 7], [5, 7], [5, 6]])
    theirs = skn.NearestNeighbors(n_neighbors=2, algorithm="brute").fit(X).kneighbors(return_distance=False)
    np.testing.assert_array_equal(np.sort(ind[:3], 1), np.sort(theirs[:3], 1))


@pytest.mark.parametrize(("metric", "p"), [("euclidean", 2), ("manhattan", 2), ("minkowski", 3), ("cosine", 2),
                                           ("chebyshev", 2), ("sqeuclidean", 2)])  # fmt: skip
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_radius_neighbors_like_sklearn(metric, p, dtype, blocks):
    ours, theirs = _pair(radius=0.9 if metric != "cosine" else 0.3, metric=metric, p=p)
    X, Q = X_FIT.astype(dtype), X_QUERY.astype(dtype)
    ours.fit(X)
    theirs.fit(X)
    for query in (Q, None):
        d_ours, i_ours = ours.radius_neighbors(query, sort_results=True)
        d_theirs, i_theirs = theirs.radius_neighbors(query, sort_results=True)
        assert d_ours.dtype == object and len(d_ours) == len(d_theirs)
        for a, b, c, d in zip(d_ours, d_theirs, i_ours, i_theirs):
            assert a.dtype == b.dtype and c.dtype == d.dtype
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(c, d)
        unsorted = ours.radius_neighbors(query, return_distance=False)
        for c, d in zip(unsorted, i_theirs):
            np.testing.assert_array_equal(c, np.sort(d))  # unsorted results come by increasing index


def test_radius_neighbors_arguments():
    nn = rtn.NearestNeighbors(radius=0.5).fit(X_FIT)
    with pytest.raises(ValueError, match="return_distance must be True if sort_results is True"):
        nn.radius_neighbors(X_QUERY, return_distance=False, sort_results=True)
    ind = nn.radius_neighbors(X_QUERY, radius=0.0, return_distance=False)
    assert all(len(i) == 0 for i in ind)
    theirs = skn.NearestNeighbors(radius=2.0, algorithm="brute").fit(X_FIT)
    for a, b in zip(nn.radius_neighbors(X_QUERY, radius=2.0)[1], theirs.radius_neighbors(X_QUERY)[1]):
        np.testing.assert_array_equal(a, np.sort(b))


# --------------------------------------------------------------------------- graphs


@pytest.mark.parametrize("mode", ["connectivity", "distance"])
def test_graphs_like_sklearn(mode, blocks):
    ours, theirs = _pair(n_neighbors=4, radius=1.0)
    ours.fit(X_FIT)
    theirs.fit(X_FIT)
    for query in (X_QUERY, None):
        for a, b in ((ours.kneighbors_graph(query, mode=mode), theirs.kneighbors_graph(query, mode=mode)),
                     (ours.radius_neighbors_graph(query, mode=mode, sort_results=mode == "distance"),
                      theirs.radius_neighbors_graph(query, mode=mode, sort_results=mode == "distance"))):  # fmt: skip
            assert type(a) is type(b) and a.format == "csr" and a.shape == b.shape
            np.testing.assert_allclose(a.toarray(), b.toarray(), atol=1e-12)
    with pytest.raises(ValueError, match="Unsupported mode"):
        ours.kneighbors_graph(X_QUERY, mode="nope")
    with pytest.raises(ValueError, match="Unsupported mode"):
        ours.radius_neighbors_graph(X_QUERY, mode="nope")


@pytest.mark.parametrize("include_self", [False, True, "auto"])
@pytest.mark.parametrize("mode", ["connectivity", "distance"])
def test_module_graph_functions(include_self, mode):
    X = X_FIT[:40]
    a = rtn.kneighbors_graph(X, 3, mode=mode, include_self=include_self)
    b = skn.kneighbors_graph(X, 3, mode=mode, include_self=include_self)
    np.testing.assert_allclose(a.toarray(), b.toarray(), atol=1e-12)
    a = rtn.radius_neighbors_graph(X, 1.1, mode=mode, include_self=include_self, metric="manhattan")
    b = skn.radius_neighbors_graph(X, 1.1, mode=mode, include_self=include_self, metric="manhattan")
    np.testing.assert_allclose(a.toarray(), b.toarray(), atol=1e-12)
    fitted = rtn.NearestNeighbors(n_neighbors=3).fit(X)
    np.testing.assert_allclose(rtn.kneighbors_graph(fitted, 3, mode=mode).toarray(),
                               skn.kneighbors_graph(X, 3, mode=mode).toarray(), atol=1e-12)  # fmt: skip
    with pytest.raises(ValueError, match="while the estimator has"):
        rtn.kneighbors_graph(fitted, 3, metric="manhattan")
    assert isinstance(a, sp.sparray | sp.spmatrix)


# --------------------------------------------------------------------------- classifier / regressor


def _labels(n, seed=0):
    return np.random.default_rng(seed).integers(0, 3, size=n)


@pytest.mark.parametrize("weights", ["uniform", "distance", lambda d: np.exp(-d)])
@pytest.mark.parametrize(("metric", "p"), [("minkowski", 2), ("manhattan", 2), ("cosine", 2)])
def test_classifier_like_sklearn(weights, metric, p):
    y = _labels(len(X_FIT))
    ours = rtn.KNeighborsClassifier(5, weights=weights, metric=metric, p=p).fit(X_FIT, y)
    theirs = skn.KNeighborsClassifier(5, weights=weights, metric=metric, p=p, algorithm="brute").fit(X_FIT, y)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_allclose(ours.predict_proba(X_QUERY), theirs.predict_proba(X_QUERY), atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X_QUERY), theirs.predict(X_QUERY))
    np.testing.assert_array_equal(ours.predict(None), theirs.predict(None))
    assert ours.score(X_QUERY, y[:25]) == theirs.score(X_QUERY, y[:25])


def test_classifier_labels_and_outputs():
    y_text = np.array(["b", "a", "c"])[_labels(len(X_FIT), 1)]
    ours = rtn.KNeighborsClassifier(3).fit(X_FIT, y_text)
    theirs = skn.KNeighborsClassifier(3, algorithm="brute").fit(X_FIT, y_text)
    np.testing.assert_array_equal(ours.predict(X_QUERY), theirs.predict(X_QUERY))
    Y = np.stack([_labels(len(X_FIT), 2), _labels(len(X_FIT), 3) * 10], axis=1)
    ours = rtn.KNeighborsClassifier(4, weights="distance").fit(X_FIT, Y)
    theirs = skn.KNeighborsClassifier(4, weights="distance", algorithm="brute").fit(X_FIT, Y)
    assert ours.outputs_2d_ and isinstance(ours.classes_, list)
    np.testing.assert_array_equal(ours.predict(X_QUERY), theirs.predict(X_QUERY))
    for a, b in zip(ours.predict_proba(X_QUERY), theirs.predict_proba(X_QUERY)):
        np.testing.assert_allclose(a, b, atol=1e-12)
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        rtn.KNeighborsClassifier(3).fit(X_FIT, _labels(len(X_FIT))[:, None])
    with pytest.raises(ValueError, match="Unknown label type"):
        rtn.KNeighborsClassifier(3).fit(X_FIT, RNG.normal(size=len(X_FIT)))
    with pytest.raises(ValueError, match="zero weights"):
        rtn.KNeighborsClassifier(3, weights=lambda d: np.zeros_like(d)).fit(X_FIT, _labels(120)).predict(X_QUERY)


def test_classifier_distance_weights_at_zero_distance():
    y = _labels(len(X_FIT))
    X = np.vstack([X_FIT, X_FIT[:5]])  # queries equal to fitted rows: those neighbours take all the weight
    yy = np.concatenate([y, (y[:5] + 1) % 3])
    # manhattan: scikit-learn's euclidean GEMM identity gives duplicates a distance of rounding noise, not 0
    ours = rtn.KNeighborsClassifier(4, weights="distance", metric="manhattan").fit(X, yy)
    theirs = skn.KNeighborsClassifier(4, weights="distance", metric="manhattan", algorithm="brute").fit(X, yy)
    np.testing.assert_allclose(ours.predict_proba(X_FIT[:10]), theirs.predict_proba(X_FIT[:10]), atol=1e-12)


@pytest.mark.parametrize("weights", ["uniform", "distance", lambda d: 1 / (1 + d)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_regressor_like_sklearn(weights, dtype):
    X, Q = X_FIT.astype(dtype), X_QUERY.astype(dtype)
    y = (X_FIT @ np.array([1.0, -2.0, 0.5, 0.0])).astype(dtype)
    for target in (y, np.stack([y, y**2], axis=1)):
        ours = rtn.KNeighborsRegressor(6, weights=weights).fit(X, target)
        theirs = skn.KNeighborsRegressor(6, weights=weights, algorithm="brute").fit(X, target)
        a, b = ours.predict(Q), theirs.predict(Q)
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-5)
        np.testing.assert_allclose(ours.predict(None), theirs.predict(None), rtol=1e-5)
        assert np.isclose(ours.score(Q, target[:25]), theirs.score(Q, target[:25]), rtol=1e-5)
    ints = rtn.KNeighborsRegressor(3).fit(X, np.arange(len(X))).predict(Q)
    np.testing.assert_allclose(ints, skn.KNeighborsRegressor(3, algorithm="brute").fit(X, np.arange(len(X))).predict(Q))


# --------------------------------------------------------------------------- inputs, errors, pickling


def test_input_containers_and_output_types():
    frame = pd.DataFrame(X_FIT, columns=list("abcd"))
    ours = rtn.NearestNeighbors(n_neighbors=3).fit(frame)
    np.testing.assert_array_equal(ours.feature_names_in_, list("abcd"))
    d, i = ours.kneighbors(pd.DataFrame(X_QUERY, columns=list("abcd")))
    assert isinstance(d, np.ndarray) and isinstance(i, np.ndarray)
    rt_frame = rt.DataFrame({c: X_FIT[:, j] for j, c in enumerate("abcd")})
    fitted = rtn.NearestNeighbors(n_neighbors=3).fit(rt_frame)
    d_rt, i_rt = fitted.kneighbors(rt.DataFrame({c: X_QUERY[:, j] for j, c in enumerate("abcd")}))
    np.testing.assert_array_equal(host(i_rt), i)
    np.testing.assert_allclose(host(d_rt), d)
    assert type(fitted.kneighbors()[1]) is type(i_rt)  # X=None answers in the form of the fitted data
    clf = rtn.KNeighborsClassifier(3).fit(X_FIT.tolist(), _labels(120).tolist())
    assert isinstance(clf.predict(X_QUERY.tolist()), np.ndarray)


def test_bad_input():
    nn = rtn.NearestNeighbors(n_neighbors=3)
    with pytest.raises(NotFittedError):
        nn.kneighbors(X_QUERY)
    bad = X_FIT.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        nn.fit(bad)
    nn.fit(X_FIT)
    with pytest.raises(ValueError, match="NaN"):
        nn.kneighbors(bad)
    with pytest.raises(ValueError, match="features"):
        nn.kneighbors(X_QUERY[:, :3])
    with pytest.raises(ValueError, match="Expected n_neighbors <= n_samples_fit"):
        nn.kneighbors(X_QUERY, n_neighbors=121)
    with pytest.raises(ValueError, match="Expected n_neighbors < n_samples_fit"):
        nn.kneighbors(None, n_neighbors=120)
    with pytest.raises(ValueError, match="Expected n_neighbors > 0"):
        nn.kneighbors(X_QUERY, n_neighbors=0)
    with pytest.raises(TypeError, match="enter integer value"):
        nn.kneighbors(X_QUERY, n_neighbors=2.5)
    with pytest.raises(ValueError, match="Metric 'cosine' not valid"):
        rtn.NearestNeighbors(metric="cosine", algorithm="kd_tree").fit(X_FIT)
    with pytest.raises(ValueError, match="metric"):
        rtn.NearestNeighbors(metric="nope").fit(X_FIT)
    with pytest.raises(NotImplementedError, match="hamming"):
        rtn.NearestNeighbors(metric="hamming").fit(X_FIT)
    with pytest.warns(SyntaxWarning, match="Parameter p is found in metric_params"):
        rtn.NearestNeighbors(metric_params={"p": 3}).fit(X_FIT)


def test_one_sample_one_feature_and_pickle():
    nn = rtn.NearestNeighbors(n_neighbors=1).fit([[2.0]])
    assert nn.kneighbors([[5.0]])[0].tolist() == [[3.0]]
    clf = rtn.KNeighborsClassifier(3, weights="distance").fit(X_FIT, _labels(120))
    clone = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clone.predict(X_QUERY), clf.predict(X_QUERY))
    np.testing.assert_allclose(clone.kneighbors(X_QUERY)[0], clf.kneighbors(X_QUERY)[0])


def test_block_sizes_follow_the_knob(monkeypatch):
    monkeypatch.setattr(_brute, "_MAX_BLOCK_ELEMENTS", 50)
    assert _brute.block_elements(np) == 50
    assert _brute._blocks(1000, 1000, 20, np) == (1, 50)
    monkeypatch.setattr(_brute, "_MAX_BLOCK_ELEMENTS", None)
    assert _brute.block_elements(np) == _brute._HOST_BLOCK_ELEMENTS


# --------------------------------------------------------------------------- the GPU kernel, emulated

_SHIPPED_THREADS = _kernels.THREADS
EMU_THREADS = 64  # CUDA threads per emulated block: two warps (host threads; the kernel runs a warp per row)
EMU_GRID = 3  # at most this many blocks: fewer than rows / 2, so the grid-stride loop over rows is walked
_EMU_PARAMS = ("const T* a0, long long a1, long long a2, int a3, long long a4, long long a5, int a6, const double* a7, "
               "const double* a8, T* a9, long long* a10, int a11")  # fmt: skip


def _emu_library():
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("needs g++ to run the kernel on the CPU")
    parts = [EMU_SHIM, "#define RIPTIDE_INF INFINITY", f"#define BUFFER {_kernels.BUFFER}",
             f"#define LOAD_BYTES {_kernels.LOAD_BYTES}"]  # fmt: skip
    for c_type in ("double", "float"):
        parts += ["#undef VAL_T", f"#define VAL_T {c_type}"]
        body = _kernels.SELECT_SOURCE.replace("riptide_knn_select(", f"riptide_knn_select_{c_type}(").replace(
            "riptide_knn_select_values(", f"riptide_knn_select_values_{c_type}(")  # (extern "C": one per type)
        parts.append(f"namespace emu_{c_type} {{\n{body}\n}}")
        args = ", ".join(f"a{i}" for i in range(12))
        parts.append(f'extern "C" void emu_select_{c_type}(unsigned grid, unsigned block, size_t shared, '
                     f"{_EMU_PARAMS.replace('T*', c_type + '*')}) {{ riptide_emu_launch(grid, block, shared, [=] {{ "
                     f"emu_{c_type}::riptide_knn_select_{c_type}({args}); }}); }}")  # fmt: skip
    return compile_library("\n".join(parts), "knn")


@pytest.fixture(scope="module")
def emu_library():
    if _device.is_gpu():
        pytest.skip("kernel emulation is for machines without a GPU; the GPU host runs the real kernel")
    return _emu_library()


class _EmulatedFunction:
    """Stands in for the CuPy kernel ``_kernels._kernel(dtype)`` returns: the same call, run by the emulation, so
    that the launcher's grid, block, shared memory and argument types are the ones exercised."""

    def __init__(self, library, dtype):
        self.entry = getattr(library, f"emu_select_{_kernels._C_TYPES[np.dtype(dtype)]}")
        self.dtype = np.dtype(dtype)

    def __call__(self, grid, block, args, shared_mem=0):
        import ctypes

        values, ld, rows, ncols, row0, col0, mode, qn, yn, best_d, best_i, k = args
        scalars = [type(a) for a in (ld, rows, ncols, row0, col0, mode, k)]  # the kernel's parameter types
        assert scalars == [np.int64, np.int64, np.int32, np.int64, np.int64, np.int32, np.int32]
        assert block[0] % 32 == 0 and grid[0] >= 1
        for a in (values, best_d):
            assert a.dtype == self.dtype and a.flags.c_contiguous
        assert best_i.dtype == np.int64 and best_i.flags.c_contiguous
        assert mode == 0 or qn.dtype == yn.dtype == np.float64
        pointer = lambda a: ctypes.c_void_p(a.ctypes.data)  # noqa: E731
        self.entry(ctypes.c_uint(grid[0]), ctypes.c_uint(block[0]), ctypes.c_size_t(shared_mem), pointer(values),
                   ctypes.c_longlong(ld), ctypes.c_longlong(rows), ctypes.c_int(ncols), ctypes.c_longlong(row0),
                   ctypes.c_longlong(col0), ctypes.c_int(mode), pointer(qn), pointer(yn), pointer(best_d),
                   pointer(best_i), ctypes.c_int(k))  # fmt: skip


@pytest.fixture
def emulated_kernel(emu_library, monkeypatch):
    """``_kernels.select`` (the real launcher) runs the kernel by the emulation, on NumPy arrays."""
    grid_size = _kernels.grid_size
    monkeypatch.setattr(_kernels, "_kernel", lambda dtype, mode=1: _EmulatedFunction(emu_library, dtype))
    monkeypatch.setattr(_kernels, "THREADS", EMU_THREADS)
    monkeypatch.setattr(_kernels, "grid_size", lambda rows, threads: min(EMU_GRID, grid_size(rows, threads)))


@pytest.fixture
def emulated(emulated_kernel, monkeypatch):
    """The search takes the kernel path on NumPy arrays, the kernel run by the emulation."""
    calls = []
    select = _kernels.select
    monkeypatch.setattr(_kernels, "usable", lambda k, dtype, xp: 1 <= k <= _kernels.KMAX)
    monkeypatch.setattr(_kernels, "select", lambda *args: (calls.append(1), select(*args)))
    monkeypatch.setattr(_brute, "_MAX_BLOCK_ELEMENTS", 2000)
    monkeypatch.setattr(_brute, "_INDEX_BLOCK", 11)
    return calls


def _twin(monkeypatch, fn):
    with monkeypatch.context() as m:
        m.setattr(_kernels, "usable", lambda k, dtype, xp: False)
        return fn()


@pytest.mark.parametrize(("metric", "dtype"), [("euclidean", np.float64), ("euclidean", np.float32),
                                               ("manhattan", np.float64), ("cosine", np.float32)])  # fmt: skip
@pytest.mark.parametrize("k", [1, 12])
def test_kernel_matches_twin_and_sklearn(emulated, monkeypatch, metric, dtype, k):
    X = np.vstack([X_FIT[:40], X_FIT[:20], np.repeat(X_FIT[40:43], 5, axis=0)]).astype(dtype)  # ties: duplicates
    Q = np.vstack([X_QUERY[:9], X_FIT[:4]]).astype(dtype)
    nn = rtn.NearestNeighbors(n_neighbors=k, metric=metric).fit(X)
    d_kernel, i_kernel = nn.kneighbors(Q)
    d_self, i_self = nn.kneighbors()
    assert emulated
    d_twin, i_twin = _twin(monkeypatch, lambda: nn.kneighbors(Q))
    np.testing.assert_array_equal(i_kernel, i_twin)  # the same total order: bit for bit
    np.testing.assert_array_equal(d_kernel, d_twin)
    np.testing.assert_array_equal(i_self, _twin(monkeypatch, lambda: nn.kneighbors())[1])
    theirs = skn.NearestNeighbors(n_neighbors=k, metric=metric, algorithm="brute").fit(X)
    # duplicates tie: scikit-learn keeps an arbitrary member of a tie, so only the distances compare
    atol = 1e-6 if dtype == np.float32 else 1e-7  # scikit-learn's rounding noise at distance 0
    np.testing.assert_allclose(d_kernel, theirs.kneighbors(Q)[0], rtol=1e-5, atol=atol)
    np.testing.assert_allclose(d_self, theirs.kneighbors()[0], rtol=1e-5, atol=atol)


@pytest.fixture(params=["emulated", pytest.param("device", marks=pytest.mark.gpu)])
def kernel_select(request):
    """``_kernels.select`` on NumPy arrays: run by the emulation on the CPU, or by the real kernel on the GPU."""
    if request.param == "emulated":
        request.getfixturevalue("emulated_kernel")
        return _kernels.select
    import cupy

    def on_device(values, row0, col0, mode, qn, yn, best_d, best_i):
        d, i = cupy.asarray(best_d), cupy.asarray(best_i)
        qn, yn = (None if a is None else cupy.asarray(a) for a in (qn, yn))
        _kernels.select(cupy.asarray(values), row0, col0, mode, qn, yn, d, i)
        best_d[...], best_i[...] = d.get(), i.get()

    return on_device


def _select_reference(block, row0, col0, mode, qn, yn, best_d, best_i):
    """The kernel's contract in NumPy: per row, the k smallest ``(distance, index)`` pairs of the previous best and
    the block's columns, NaN distances left out; mode 1 forms the distances from dot products in float64."""
    rows, ncols = block.shape
    k = best_d.shape[1]
    if mode == 1:
        s = (qn[row0 : row0 + rows, None] + (-2.0 * block.astype(np.float64))) + yn[None, col0 : col0 + ncols]
        block = np.where(s < 0, 0.0, s).astype(best_d.dtype)  # clamped at 0, a NaN stays NaN
    out_d, out_i = best_d.copy(), best_i.copy()
    for r in range(rows):
        d = np.concatenate([best_d[r], block[r]])
        i = np.concatenate([best_i[r], np.arange(col0, col0 + ncols)])
        d, i = d[~np.isnan(d)], i[~np.isnan(d)]
        order = np.lexsort((i, d))[:k]  # the previous best has k pairs: never fewer
        out_d[r], out_i[r] = d[order], i[order]
    return out_d, out_i


def _run_blocks(select, blocks, k, mode=0, qn=None, yn=None, dtype=np.float64, reverse=False):
    """Feed the blocks (the index blocks of one query block; last to first with ``reverse``) to the kernel and to
    the reference; after each, the best arrays must agree bit for bit (and with the xp twin's select where its
    precondition holds: blocks in order, finite values)."""
    rows = blocks[0].shape[0]
    best_d = np.full((rows, k), np.inf, dtype=dtype)
    best_i = np.full((rows, k), _brute._NO_INDEX, dtype=np.int64)
    ref_d, ref_i = best_d.copy(), best_i.copy()
    starts = np.cumsum([0] + [b.shape[1] for b in blocks])[:-1]
    for col0, values in reversed(list(zip(starts, blocks))) if reverse else zip(starts, blocks):
        values = np.ascontiguousarray(values, dtype=dtype)
        before_d, before_i = ref_d, ref_i
        ref_d, ref_i = _select_reference(values, 0, int(col0), mode, qn, yn, ref_d, ref_i)
        select(values, 0, int(col0), mode, qn, yn, best_d, best_i)
        np.testing.assert_array_equal(best_i, ref_i)
        np.testing.assert_array_equal(best_d, ref_d)
        if not reverse and mode == 0 and np.isfinite(values).all() and np.isfinite(before_d).all():
            cols = np.broadcast_to(np.arange(col0, col0 + values.shape[1]), values.shape)
            twin_d, twin_i = _brute.select(np.hstack([before_d, values]), np.hstack([before_i, cols]), k, np)
            np.testing.assert_array_equal(twin_i, ref_i)
            np.testing.assert_array_equal(twin_d, ref_d)
    return best_d, best_i


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [1, 20, _kernels.KMAX])
def test_kernel_select_overflow_and_filter(kernel_select, dtype, k):
    """Blocks wider than a round of loads and than the buffer: the first block passes every column (merges while
    buffering), later ones a few; a block of larger distances passes none and leaves the best as they were."""
    rng = np.random.default_rng(k)
    blocks = [rng.random((7, 700)), rng.random((7, 300)) * 0.5, rng.random((7, 650))]
    best_d, best_i = _run_blocks(kernel_select, blocks, k, dtype=dtype)
    kept_d, kept_i = best_d.copy(), best_i.copy()
    kernel_select(np.full((7, 40), 2.0, dtype=dtype), 0, 1650, 0, None, None, best_d, best_i)  # none passes
    np.testing.assert_array_equal(best_i, kept_i)
    np.testing.assert_array_equal(best_d, kept_d)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernel_select_launch_shape(kernel_select, monkeypatch, dtype):
    """The launcher's own block shape (THREADS as shipped: more warps per block than the emulation's default),
    more rows than the emulated grid's warps."""
    monkeypatch.setattr(_kernels, "THREADS", _SHIPPED_THREADS)
    rng = np.random.default_rng(2)
    _run_blocks(kernel_select, [rng.random((31, 300)), rng.random((31, 200))], 10, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernel_select_every_column_passes(kernel_select, dtype):
    """Distances falling along the index: every column comes before tau, a merge per buffer's worth."""
    falling = np.linspace(10.0, 0.0, 900)[None, :] + np.arange(5)[:, None]
    _run_blocks(kernel_select, [falling[:, :450], falling[:, 450:]], 20, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [1, 9, _kernels.KMAX])
def test_kernel_select_ties(kernel_select, dtype, k):
    """Few distinct distances (duplicated rows): ties at the k-th place are kept by the lowest indices."""
    rng = np.random.default_rng(3)
    blocks = [rng.integers(0, 3, size=(6, 600)), rng.integers(0, 2, size=(6, 200)), np.zeros((6, 90))]
    _run_blocks(kernel_select, blocks, k, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernel_select_nan_and_inf(kernel_select, dtype):
    """A NaN distance is never selected (a row of NaN keeps its (inf, NO_INDEX) pairs); an infinite one is, before
    the padding."""
    rng = np.random.default_rng(5)
    values = rng.random((5, 80))
    values[rng.random(values.shape) < 0.3] = np.nan
    values[1] = np.nan
    values[2, :] = np.inf
    values[2, 7] = 0.5
    best_d, best_i = _run_blocks(kernel_select, [values, np.full((5, 3), np.nan)], 12, dtype=dtype)
    assert (best_i[1] == _brute._NO_INDEX).all() and np.isinf(best_d[1]).all()
    np.testing.assert_array_equal(best_i[2], np.r_[7, 0:7, 8:12])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernel_select_fewer_columns_than_k(kernel_select, dtype):
    """Blocks narrower than k, and fewer columns in all than k: the rest stays (inf, NO_INDEX)."""
    rng = np.random.default_rng(7)
    best_d, best_i = _run_blocks(kernel_select, [rng.random((9, 5)), rng.random((9, 4))], 12, dtype=dtype)
    assert (best_i[:, 9:] == _brute._NO_INDEX).all() and np.isinf(best_d[:, 9:]).all()
    _run_blocks(kernel_select, [rng.random((3, 1))], 1, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [1, 20])
@pytest.mark.parametrize("reverse", [False, True])
def test_kernel_select_dot_products(kernel_select, dtype, k, reverse):
    """Mode 1: distances from dot products and norms in float64, clamped at 0, then rounded to the block's type;
    values a rounding apart (they tie once rounded to float32) and NaN dot products. Blocks last to first too:
    ties at tau with lower indices than tau's (the float64 shortcut must not skip them)."""
    rng = np.random.default_rng(11)
    rows, n = 6, 1500
    qn = rng.random(rows) + 1.0
    yn = 1.0 + np.arange(n) * 1e-12 * rng.integers(0, 3, size=n)  # the same float32 distance, many times
    yn[::7] += rng.random(len(yn[::7])) * 3  # and farther columns: the near-equal ones are the best
    dots = rng.random((rows, n)) * 1e-9
    dots[:, 5] = 10.0  # negative before the clamp
    dots[0, 100:140] = np.nan
    blocks = [dots[:, :700], dots[:, 700:1300], dots[:, 1300:]]
    _run_blocks(kernel_select, blocks, k, mode=1, qn=qn, yn=yn, dtype=dtype, reverse=reverse)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_kernel_select_random(kernel_select, data):
    dtype = data.draw(st.sampled_from([np.float64, np.float32]))
    k = data.draw(st.integers(1, _kernels.KMAX))
    rows = data.draw(st.integers(1, 7))
    widths = data.draw(st.lists(st.integers(1, 600), min_size=1, max_size=3))
    levels = data.draw(st.sampled_from([2, 5, 1000]))  # few levels: many ties
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    blocks = [rng.integers(0, levels, size=(rows, w)) / levels for w in widths]
    _run_blocks(kernel_select, blocks, k, dtype=dtype, reverse=data.draw(st.booleans()))


@pytest.mark.parametrize("c_type", ["double", "float"])
def test_kernel_keeps_nothing_in_local_memory(c_type):
    """ptxas (sm_90, as the GPU host compiles it) gives the kernel no stack frame and no spills: the per-lane
    arrays are indexed by unrolled constants only (a dynamic index would put them in local memory)."""
    import os
    import shutil
    import subprocess
    import tempfile

    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc (CUDA toolkit) to compile")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "knn.cu")
        with open(path, "w") as f:
            f.write(_kernels.SELECT_SOURCE)
        done = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", f"-DVAL_T={c_type}", f"-DBUFFER={_kernels.BUFFER}",
                               f"-DLOAD_BYTES={_kernels.LOAD_BYTES}", "-Xptxas", "-v", "-o", os.path.join(d, "k.cubin"),
                               path], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" in done.stderr, done.stderr[-3000:]


def test_kernel_source_names():
    assert 'extern "C" __global__ void riptide_knn_select(' in _kernels.SELECT_SOURCE
    assert _kernels.usable(10, np.float64, np) is False  # NumPy takes the xp twin
    assert _kernels.usable(_kernels.KMAX, np.float32, object()) is True  # (any namespace but NumPy)
    assert _kernels.usable(_kernels.KMAX + 1, np.float32, object()) is False
    assert _kernels.shared_bytes(20, np.float32, 128) == 4 * (40 + _kernels.BUFFER) * 12
    assert _kernels.grid_size(10_000, 128) == 2500


@pytest.mark.gpu
@pytest.mark.parametrize(("metric", "dtype"), [("euclidean", np.float64), ("euclidean", np.float32),
                                               ("manhattan", np.float64), ("cosine", np.float32)])  # fmt: skip
@pytest.mark.parametrize("tiny", [False, True])
def test_device_kernel_matches_twin_and_host(metric, dtype, tiny, monkeypatch):
    """On the GPU: the kernel path equals the xp twin on CuPy bit for bit, and the host (NumPy) answer; device
    queries give device results (CuPy arrays, cupyx CSR graphs, object arrays of CuPy views)."""
    import cupy
    from cupyx.scipy import sparse as device_sparse

    if tiny:
        monkeypatch.setattr(_brute, "_MAX_BLOCK_ELEMENTS", 2000)
        monkeypatch.setattr(_brute, "_INDEX_BLOCK", 11)
    X = np.vstack([X_FIT, X_FIT[:20], np.repeat(X_FIT[40:43], 5, axis=0)]).astype(dtype)
    Q = np.vstack([X_QUERY, X_FIT[:4]]).astype(dtype)
    nn = rtn.NearestNeighbors(n_neighbors=7, metric=metric, radius=0.8).fit(cupy.asarray(X))
    d, i = nn.kneighbors(cupy.asarray(Q))
    assert _device.is_device_array(d) and _device.is_device_array(i)
    d_twin, i_twin = _twin(monkeypatch, lambda: nn.kneighbors(cupy.asarray(Q)))
    np.testing.assert_array_equal(host(i), host(i_twin))
    np.testing.assert_array_equal(host(d), host(d_twin))
    np.testing.assert_array_equal(host(nn.kneighbors()[1]), host(_twin(monkeypatch, lambda: nn.kneighbors())[1]))
    d_host, i_host = rtn.NearestNeighbors(n_neighbors=7, metric=metric).fit(X).kneighbors(Q)
    assert isinstance(d_host, np.ndarray)
    np.testing.assert_allclose(host(d), d_host, rtol=1e-5, atol=1e-6)
    graph = nn.kneighbors_graph(cupy.asarray(Q), mode="distance")
    assert isinstance(graph, device_sparse.csr_matrix)
    np.testing.assert_allclose(graph.get().toarray(), nn.kneighbors_graph(Q, mode="distance").toarray())
    dist, ind = nn.radius_neighbors(cupy.asarray(Q), sort_results=True)
    assert ind.dtype == object and _device.is_device_array(ind[0])
    for a, b in zip(ind, nn.radius_neighbors(Q, sort_results=True)[1]):
        np.testing.assert_array_equal(host(a), b)
    clf = rtn.KNeighborsClassifier(5, weights="distance", metric=metric).fit(cupy.asarray(X), cupy.arange(len(X)) % 3)
    assert _device.is_device_array(clf.predict(cupy.asarray(Q)))
    np.testing.assert_array_equal(host(clf.predict(cupy.asarray(Q))), clf.predict(Q))


# --------------------------------------------------------------------------- scikit-learn's conformance checks

ESTIMATORS = [
    rtn.NearestNeighbors(),
    rtn.KNeighborsClassifier(),
    rtn.KNeighborsClassifier(weights="distance", metric="manhattan"),
    rtn.KNeighborsRegressor(),
    rtn.KNeighborsRegressor(weights="distance", metric="cosine"),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------- the ranking GEMM and its bound


def _tf32(a):
    """float32 values truncated to TF32 (10 stored mantissa bits): the worst a tensor core's input rounding does."""
    return (np.ascontiguousarray(a, dtype=np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.floats(1e-3, 1e3), st.floats(-1e4, 1e4), st.booleans(), st.integers(0, 2**32 - 1))
def test_ranking_bound_covers_tf32_products(d, scale, offset, duplicates, seed):
    """|q|^2 plus the ranking GEMM of the augmented float32 copies, with TF32-truncated inputs, is within
    ``_ranking_bound`` of the exact squared distance for every pair (and the plain float32 GEMM within the bound
    for exact inputs); the bound is a small share of the squared norms."""
    rng = np.random.default_rng(seed)
    Y = rng.normal(offset, scale, size=(300, d))
    Q = np.vstack([rng.normal(offset, scale, size=(20, d)), Y[:5] if duplicates else Y[:0]])
    metric = _brute.Metric("euclidean")
    y = _brute.Side(Y, metric, np.float64, np)
    q = _brute.Side(Q, metric, np.float64, np, y.center)
    exact = ((Q[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    for u, (A, B) in ((2.0**-10, (_tf32(q.approx.as_query), _tf32(y.approx.as_fitted))),
                      (0.0, (q.approx.as_query, y.approx.as_fitted))):  # fmt: skip
        ranked = q.approx.norms[:, None] + (A @ B.T).astype(np.float64)
        bound = _brute._ranking_bound(q.approx, y.approx, d, u, np)
        assert (np.abs(ranked - exact) <= bound[:, None]).all()
        assert (bound <= 0.01 * (q.approx.norms + y.approx.norms.max())).all()


def test_ranking_sides_are_augmented_and_aligned():
    """A query row q is [-2 q, 1, 1, 0 ...], a fitted row x is [x, hi, lo, 0 ...] (hi + lo = |x|^2, hi exact in
    TF32), padded to a multiple of 8 floats."""
    X = np.arange(12, dtype=np.float64).reshape(4, 3) + 0.1
    side = _brute.RankingSide(X, np)
    assert side.as_query.shape == side.as_fitted.shape == (4, 8) and side.as_query.dtype == np.float32
    np.testing.assert_array_equal(side.as_query[:, :5], np.c_[-2 * X.astype(np.float32), np.ones(4), np.ones(4)])
    np.testing.assert_array_equal(side.as_fitted[:, :3], X.astype(np.float32))
    hi, lo = side.as_fitted[:, 3], side.as_fitted[:, 4]
    np.testing.assert_array_equal(_tf32(hi), hi)
    assert (np.abs(lo) <= 2.0**-10 * side.norms).all() and lo.any()
    np.testing.assert_allclose(hi.astype(np.float64) + lo, side.norms, rtol=1e-7)
    assert not side.as_query[:, 5:].any() and not side.as_fitted[:, 5:].any()
    products = _brute.ranking_products(side.as_query, side.as_fitted, np)
    squared = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    np.testing.assert_allclose(side.norms[:, None] + products, squared, atol=1e-3)


@pytest.mark.parametrize("failing", ["ranking", "ranking and float64 GEMM"])
def test_uncertain_queries_fall_through_the_tiers(monkeypatch, failing):
    """A query whose certificate fails is searched again by the float64 GEMM, and failing that by exact
    differences: the answer is the same exact one either way."""
    X = np.vstack([X_FIT, X_FIT[:30] + 1e-9])  # near-duplicates: distances far below any ranking's rounding
    nn = rtn.NearestNeighbors(n_neighbors=6).fit(X)
    expected = nn.kneighbors(X_QUERY)
    tiers = []
    gemm_bound = _brute._gemm_bound
    never = lambda q: q.norms + np.inf  # noqa: E731 - a bound no certificate passes (NumPy or CuPy)
    monkeypatch.setattr(_brute, "_ranking_bound", lambda q, *a: (tiers.append("ranking"), never(q))[1])
    if failing == "ranking and float64 GEMM":
        monkeypatch.setattr(_brute, "_gemm_bound", lambda q, y, d: (tiers.append("gemm"), never(q))[1])
    else:
        monkeypatch.setattr(_brute, "_gemm_bound", lambda *a: (tiers.append("gemm"), gemm_bound(*a))[1])
    searched = []
    blocks = _brute._kneighbors_blocks
    monkeypatch.setattr(_brute, "_kneighbors_blocks", lambda q, y, k, metric, *a: (searched.append(metric.kind),
                                                                                  blocks(q, y, k, metric, *a))[1])
    got = nn.kneighbors(X_QUERY)
    assert tiers == ["ranking", "gemm"]
    # the float64 GEMM's own certificate holds here (no near-ties at the 30th candidate): no exact search
    assert searched == (["ranking", "euclidean"] if failing == "ranking" else ["ranking", "euclidean", "sqdiff"])
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(got[0], expected[0])
    theirs = skn.NearestNeighbors(n_neighbors=6, algorithm="brute").fit(X).kneighbors(X_QUERY)
    np.testing.assert_allclose(got[0], theirs[0], rtol=1e-9)


# --------------------------------------------------------------------------- the re-ranking kernel, emulated

_RERANK_PARAMS = ("const double* a0, const double* a1, int a2, long long a3, const long long* a4, int a5, long long a6, "
                  "int a7, int a8, const double* a9, const double* a10, double a11, double* a12, long long* a13, "
                  "bool* a14")  # fmt: skip


@pytest.fixture(scope="module")
def rerank_library():
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("needs g++ to run the kernel on the CPU")
    args = ", ".join(f"a{i}" for i in range(15))
    text = "\n".join([EMU_SHIM, "#define RIPTIDE_INF INFINITY", f"#define RERANK_MAX {_kernels.RERANK_MAX}",
                      _kernels.RERANK_SOURCE.replace("riptide_knn_rerank(", "riptide_knn_rerank_emu("),
                      f'extern "C" void emu_rerank(unsigned grid, unsigned block, size_t shared, {_RERANK_PARAMS}) {{ '
                      f"riptide_emu_launch(grid, block, shared, [=] {{ riptide_knn_rerank_emu({args}); }}); }}"])  # fmt: skip
    return compile_library(text, "knn_rerank")


@pytest.fixture(params=["emulated", pytest.param("device", marks=pytest.mark.gpu)])
def kernel_rerank(request, monkeypatch):
    """``_kernels.rerank`` on NumPy arrays: by the emulation on the CPU (EMU_GRID blocks of EMU_THREADS), or by
    the real kernel on the GPU."""
    if request.param == "emulated":
        if _device.is_gpu():
            pytest.skip("kernel emulation is for machines without a GPU")
        import ctypes

        library = request.getfixturevalue("rerank_library")

        def launch(grid, block, args, shared_mem=0):
            Q, Y, d, n, cand, wide, rows, k, certify, widest, bound, slack, out_d, out_i, uncertain = args
            assert [type(a) for a in (d, n, wide, rows, k, certify, slack)] == [
                np.int32, np.int64, np.int32, np.int64, np.int32, np.int32, np.float64]  # fmt: skip
            for a in (Q, Y, cand, widest, bound, out_d, out_i, uncertain):
                assert a.flags.c_contiguous
            pointer = lambda a: ctypes.c_void_p(a.ctypes.data)  # noqa: E731
            library.emu_rerank(ctypes.c_uint(grid[0]), ctypes.c_uint(block[0]), ctypes.c_size_t(shared_mem),
                               pointer(Q), pointer(Y), ctypes.c_int(d), ctypes.c_longlong(n), pointer(cand),
                               ctypes.c_int(wide), ctypes.c_longlong(rows), ctypes.c_int(k), ctypes.c_int(certify),
                               pointer(widest), pointer(bound), ctypes.c_double(slack), pointer(out_d),
                               pointer(out_i), pointer(uncertain))  # fmt: skip

        grid_size = _kernels.grid_size
        monkeypatch.setattr(_kernels, "_rerank_kernel", lambda: launch)
        monkeypatch.setattr(_kernels, "THREADS", EMU_THREADS)
        monkeypatch.setattr(_kernels, "grid_size", lambda rows, threads: min(EMU_GRID, grid_size(rows, threads)))
        return _kernels.rerank
    import cupy

    def on_device(Q, Y, cand, k, widest, bound, slack, out_d, out_i, uncertain):
        arrays = [None if a is None else cupy.asarray(a) for a in (Q, Y, cand, widest, bound, out_d, out_i, uncertain)]
        _kernels.rerank(*arrays[:3], k, *arrays[3:5], slack, *arrays[5:])
        out_d[...], out_i[...], uncertain[...] = (a.get() for a in arrays[5:])

    return on_device


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_kernel_rerank_matches_twin(kernel_rerank, data):
    """The kernel's k best of each query's candidates and its certificate equal the xp twin's (bit for bit: few
    features, so NumPy's sum is sequential too), with duplicated rows (exact ties) and certify on or off."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    d = data.draw(st.integers(1, 7))
    n = data.draw(st.integers(2, 90))
    rows = data.draw(st.integers(1, 9))
    wide = data.draw(st.integers(1, min(n, _kernels.RERANK_MAX)))
    k = data.draw(st.integers(1, wide))
    Y = rng.integers(0, 3, size=(n, d)).astype(np.float64)  # few distinct rows: many ties
    Q = rng.integers(0, 3, size=(rows, d)) + rng.random((rows, d)) * data.draw(st.sampled_from([0.0, 0.5]))
    cand = np.vstack([rng.permutation(n)[:wide] for _ in range(rows)]).astype(np.int64)
    metric = _brute.Metric("euclidean")
    q, y = _brute.Side(Q, metric, np.float64, np), _brute.Side(Y, metric, np.float64, np)
    certify = data.draw(st.booleans())
    widest = (rng.random((rows, 2)) * 2 * d)[:, 1] if certify else None  # (a column view, as the search passes)
    bound = rng.random(rows) * 0.5
    twin_d, twin_i, twin_uncertain = _brute._rerank(q, y, k, cand, widest, bound, np)
    out_d, out_i = np.full((rows, k), -1.0), np.full((rows, k), -1, dtype=np.int64)
    uncertain = np.zeros(rows, dtype=np.bool_)
    slack = 1 + 2 * (d + 4) * float(np.finfo(np.float64).eps)
    widest = None if widest is None else np.ascontiguousarray(widest)  # (the launcher takes contiguous arrays)
    kernel_rerank(Q, Y, cand, k, widest, bound, slack, out_d, out_i, uncertain)
    np.testing.assert_array_equal(out_i, twin_i)
    np.testing.assert_array_equal(out_d, twin_d)
    np.testing.assert_array_equal(uncertain, twin_uncertain)
