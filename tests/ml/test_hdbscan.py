"""HDBSCAN against scikit-learn: the same clusters (up to numbering), noise and probabilities.

Exact equality is checked where the mutual-reachability MST is unique (``min_samples <= 2`` and ``alpha = 1`` on
continuous data). With larger ``min_samples`` mutual reachability has exact ties, and a point at a tie may join
either of two clusters at the same height depending on the MST's merge order (scikit-learn's Prim order versus
riptide's Boruvka): those configurations are checked to agree on nearly every point.
"""

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
from scipy.optimize import linear_sum_assignment  # noqa: E402
from scipy.spatial.distance import cdist  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.metrics import pairwise_distances  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml.cluster import HDBSCAN  # noqa: E402
from riptide.core.kernels import union_find  # noqa: E402
from riptide.ml.cluster import _neighbourhood  # noqa: E402
from tests.ml._kernel_emulation import compile_library  # noqa: E402
from tests.ml._support import host  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:The default value of `copy`:FutureWarning")

STDS = [0.5, 1.0, 1.5, 0.3, 2.0]


def _mismatches(a, b):
    """Points whose cluster differs after the best matching of the two numberings (noise matched to noise)."""
    a, b = np.asarray(a), np.asarray(b)
    la, lb = np.unique(a), np.unique(b)
    counts = np.array([[np.sum((a == x) & (b == y)) for y in lb] for x in la])
    weight = counts.astype(float)
    weight[np.ix_(la < 0, lb >= 0)] = weight[np.ix_(la >= 0, lb < 0)] = -1  # noise is never a cluster
    rows, cols = linear_sum_assignment(-weight)
    return int(len(a) - sum(counts[r, c] for r, c in zip(rows, cols, strict=True) if (la[r] < 0) == (lb[c] < 0)))


def _fit_both(params, X):
    """(ours, theirs), or None when scikit-learn itself fails (then riptide fails the same way)."""
    try:
        theirs = skc.HDBSCAN(**params).fit(X)
    except TypeError:  # scikit-learn 1.9's epsilon search breaks on some trees; the same tree breaks ours
        with pytest.raises(TypeError):
            HDBSCAN(**params).fit(X)
        return None
    return HDBSCAN(**params).fit(X), theirs


def _assert_same(ours, theirs):
    assert _mismatches(ours.labels_, theirs.labels_) == 0
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)  # the numbering too (Prim's edge orientation)
    np.testing.assert_allclose(ours.probabilities_, theirs.probabilities_, rtol=1e-9, atol=1e-12)


SELECTION = [dict(), dict(cluster_selection_method="leaf"), dict(cluster_selection_epsilon=0.7),
             dict(allow_single_cluster=True), dict(max_cluster_size=60), dict(min_cluster_size=15),
             dict(algorithm="brute"), dict(min_cluster_size=3, cluster_selection_method="leaf")]  # fmt: skip


@pytest.mark.parametrize("params", SELECTION, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
@pytest.mark.parametrize("min_samples", [1, 2])
@pytest.mark.parametrize("seed", [0, 1])
def test_hdbscan_matches_sklearn_without_ties(params, min_samples, seed):
    X, _ = make_blobs(300, 3, centers=5, cluster_std=STDS, random_state=seed)
    pair = _fit_both({**params, "min_samples": min_samples}, X)
    if pair is not None:
        _assert_same(*pair)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 80), d=st.integers(1, 4), mcs=st.integers(2, 8),
       min_samples=st.integers(1, 2), method=st.sampled_from(["eom", "leaf"]), single=st.booleans())  # fmt: skip
def test_hdbscan_random_data(seed, n, d, mcs, min_samples, method, single):
    X = np.random.default_rng(seed).normal(size=(n, d))
    params = dict(min_cluster_size=mcs, min_samples=min(min_samples, n), cluster_selection_method=method,
                  allow_single_cluster=single)  # fmt: skip
    pair = _fit_both(params, X)
    if pair is not None:
        _assert_same(*pair)


@pytest.mark.parametrize("params", [dict(), dict(min_samples=3), dict(min_samples=2, alpha=1.5),
                                    dict(min_samples=8),
                                    dict(min_samples=5, cluster_selection_epsilon=0.5)])  # fmt: skip
def test_hdbscan_with_ties_agrees_on_nearly_every_point(params):
    for seed in range(3):
        X, _ = make_blobs(500, 3, centers=5, cluster_std=STDS, random_state=seed)
        ours, theirs = HDBSCAN(**params).fit(X), skc.HDBSCAN(**params).fit(X)
        assert _mismatches(ours.labels_, theirs.labels_) <= 0.01 * len(X)
        assert np.sum((ours.labels_ < 0) != (theirs.labels_ < 0)) <= 0.01 * len(X)


def test_hdbscan_mst_is_minimum():
    """Boruvka's tree weighs what SciPy's MST of the dense mutual-reachability matrix weighs (ties, duplicates)."""
    from scipy.sparse.csgraph import minimum_spanning_tree

    X, _ = make_blobs(300, 4, centers=3, random_state=2)
    X = np.vstack([X, X[:30], np.round(X[:40])])
    for k, alpha, budget in ((1, 1.0, 10**9), (5, 1.0, 500), (7, 1.7, 3000)):
        core = _neighbourhood.core_distances(X, k, np, budget=budget)
        expected_core = np.sort(cdist(X, X), axis=1)[:, k - 1]  # exact distances: duplicates at 0
        np.testing.assert_allclose(core, expected_core, rtol=1e-12, atol=1e-12)
        u, v, w = _neighbourhood.mutual_reachability_mst(X, core, alpha, np, budget=budget)
        assert len(u) == len(X) - 1
        reach = np.maximum(cdist(X, X) / alpha, np.maximum(core[:, None], core[None, :]))
        np.testing.assert_allclose(w, reach[u, v], rtol=1e-12)
        assert np.isclose(w.sum(), (minimum_spanning_tree(reach + 1.0).data - 1.0).sum(), rtol=1e-12)
        roots = union_find.component_roots(len(X), u, v, np)
        assert (roots == 0).all()  # a spanning tree


def test_hdbscan_non_finite_rows_and_cut():
    X, _ = make_blobs(200, 2, centers=3, cluster_std=0.5, random_state=4)
    X[3] = [np.inf, 0.0]
    X[7] = [np.nan, 1.0]
    X[9] = [np.nan, np.inf]
    ours, theirs = HDBSCAN(min_samples=2).fit(X), skc.HDBSCAN(min_samples=2).fit(X)
    _assert_same(ours, theirs)
    np.testing.assert_array_equal(ours.labels_[[3, 7, 9]], [-2, -3, -3])
    np.testing.assert_array_equal(ours.probabilities_[[3, 7, 9]], theirs.probabilities_[[3, 7, 9]])
    np.testing.assert_array_equal(ours._single_linkage_tree_, theirs._single_linkage_tree_)  # Prim's orientation
    for cut in (0.3, 1.0):
        np.testing.assert_array_equal(ours.dbscan_clustering(cut), theirs.dbscan_clustering(cut))
    # scikit-learn 1.9 cannot store centers once rows were set aside (an IndexError); riptide can
    centroids = HDBSCAN(min_samples=2, store_centers="centroid").fit(X).centroids_
    finite = np.isfinite(X).all(axis=1)
    expected = HDBSCAN(min_samples=2, store_centers="centroid").fit(X[finite]).centroids_
    np.testing.assert_allclose(centroids, expected)


@pytest.mark.parametrize("store", ["centroid", "medoid", "both"])
def test_hdbscan_store_centers(store):
    X, _ = make_blobs(200, 2, centers=3, cluster_std=0.5, random_state=4)
    ours = HDBSCAN(min_samples=2, store_centers=store).fit(X)
    theirs = skc.HDBSCAN(min_samples=2, store_centers=store).fit(X)
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)  # the blobs come in the same order here
    for name in ("centroids_", "medoids_"):
        assert hasattr(ours, name) == hasattr(theirs, name)
        if hasattr(theirs, name):
            np.testing.assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=1e-9)


def test_hdbscan_host_metrics():
    X, _ = make_blobs(150, 3, centers=3, random_state=0)
    for params, data in ((dict(metric="manhattan"), X), (dict(metric="precomputed"), pairwise_distances(X)),
                         (dict(metric="minkowski", metric_params={"p": 3}), X)):  # fmt: skip
        ours, theirs = HDBSCAN(**params).fit(data), skc.HDBSCAN(**params).fit(data)
        np.testing.assert_array_equal(ours.labels_, theirs.labels_)
        np.testing.assert_array_equal(ours.probabilities_, theirs.probabilities_)


def test_hdbscan_errors_and_warnings():
    with pytest.raises(ValueError, match="n_samples=1 while HDBSCAN requires more than one sample"):
        HDBSCAN(copy=False).fit(np.zeros((1, 2)))
    with pytest.raises(ValueError, match=r"min_samples \(5\) must be at most the number of samples in X \(3\)"):
        HDBSCAN(copy=False).fit(np.arange(6.0).reshape(3, 2))
    with pytest.raises(ValueError, match="Cannot store centers when using a precomputed distance matrix"):
        HDBSCAN(metric="precomputed", store_centers="centroid", copy=False).fit(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="min_cluster_size"):
        HDBSCAN(min_cluster_size=1, copy=False).fit(np.zeros((3, 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.warns(FutureWarning, match="The default value of `copy` will change"):
            HDBSCAN().fit(np.arange(20.0).reshape(10, 2))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hdbscan_inputs_and_outputs(dtype):
    X, _ = make_blobs(200, 3, centers=3, cluster_std=0.6, random_state=0)
    X = X.astype(dtype)
    expected = skc.HDBSCAN(min_samples=2).fit(X)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    for data in (X, frame, rt.DataFrame(frame)):
        ours = HDBSCAN(min_samples=2).fit(data)
        assert _mismatches(host(ours.labels_), expected.labels_) == 0
        labels = HDBSCAN(min_samples=2).fit_predict(data)
        assert _mismatches(host(labels), expected.labels_) == 0
        if not isinstance(data, rt.DataFrame):
            assert isinstance(ours.labels_, np.ndarray) and isinstance(labels, np.ndarray)
    restored = pickle.loads(pickle.dumps(HDBSCAN(min_samples=2).fit(X)))
    assert _mismatches(restored.labels_, expected.labels_) == 0


@parametrize_with_checks([HDBSCAN(min_samples=1, copy=False), HDBSCAN(min_cluster_size=3, copy=False)])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


# --- the CUDA passes, emulated on the CPU -------------------------------------------------------------------------
# _neighbourhood.PAIRS_SOURCE compiled by g++ with one host thread per CUDA thread (a std::barrier for
# __syncthreads; the kernels' static __shared__ arrays become function statics, shared by a block's threads, and
# blocks run one after another), then swapped in for the launchers so that the whole fit runs through them.

_EMU_SHIM = r"""
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>
struct riptide_emu_dim3 { unsigned int x, y, z; };
static thread_local riptide_emu_dim3 threadIdx, blockIdx;
static riptide_emu_dim3 blockDim, gridDim;
static std::barrier<>* riptide_emu_barrier;
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __shared__ static
#define __syncthreads() riptide_emu_barrier->arrive_and_wait()
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __longlong_as_double(long long v) { double d; std::memcpy(&d, &v, 8); return d; }
using std::min;
static void riptide_emu_launch(unsigned grid, unsigned block, std::function<void()> body) {
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    for (unsigned b = 0; b < grid; ++b) {
        std::barrier<> barrier(block);
        riptide_emu_barrier = &barrier;
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < block; ++t)
            threads.emplace_back([=] { threadIdx = {t, 0, 0}; blockIdx = {b, 0, 0}; body(); });
        for (auto& t : threads) t.join();
    }
}
extern "C" void emu_knn(unsigned grid, unsigned block, const double* X, long long n, int d, int k, double* kth) {
    riptide_emu_launch(grid, block, [=] { riptide_knn_kth(X, n, d, k, kth); });
}
extern "C" void emu_rowmin(unsigned grid, unsigned block, const double* X, long long n, int d, const double* core,
                           const long long* comp, double alpha, double* best_w, long long* best_j) {
    riptide_emu_launch(grid, block, [=] { riptide_boruvka_rowmin(X, n, d, core, comp, alpha, best_w, best_j); });
}
"""
EMU_THREADS = 16


@pytest.fixture(scope="module")
def emulated_pairs():
    import shutil

    from riptide import _device

    if _device.is_gpu():
        pytest.skip("on a GPU the real kernels run in the tests above")
    if shutil.which("g++") is None:
        pytest.skip("needs g++ to run the kernels on the CPU")
    m = _neighbourhood
    defines = f"#define MAX_FEATURES {m.MAX_FEATURES}\n#define MAX_K {m.MAX_K}\n#define TILE 8\n"
    head, tail = _EMU_SHIM.split("static void riptide_emu_launch", 1)
    text = defines + head + m.PAIRS_SOURCE + "\nstatic void riptide_emu_launch" + tail
    return compile_library(text, "pairs")


def _pointer(a):
    import ctypes

    assert a.flags.c_contiguous
    return ctypes.c_void_p(a.ctypes.data)


@pytest.fixture
def on_emulated_kernels(emulated_pairs, monkeypatch):
    """The fit's CUDA launchers replaced by the emulated kernels (NumPy arrays in, the real sources' code)."""
    import ctypes

    lib = emulated_pairs
    grid = lambda n: ctypes.c_uint(-(-n // EMU_THREADS))  # noqa: E731

    def knn(X, k, xp):
        X = np.ascontiguousarray(X, dtype=np.float64)
        kth = np.empty(len(X))
        lib.emu_knn(grid(len(X)), ctypes.c_uint(EMU_THREADS), _pointer(X), ctypes.c_longlong(len(X)),
                    ctypes.c_int(X.shape[1]), ctypes.c_int(k), _pointer(kth))  # fmt: skip
        return np.sqrt(kth)

    def rowmin(X, core, comp, alpha, xp):
        core, comp = np.ascontiguousarray(core, np.float64), np.ascontiguousarray(comp, np.int64)
        best_w, best_j = np.empty(len(X)), np.empty(len(X), dtype=np.int64)
        lib.emu_rowmin(grid(len(X)), ctypes.c_uint(EMU_THREADS), _pointer(X), ctypes.c_longlong(len(X)),
                       ctypes.c_int(X.shape[1]), _pointer(core), _pointer(comp), ctypes.c_double(alpha),
                       _pointer(best_w), _pointer(best_j))  # fmt: skip
        return best_w, best_j

    monkeypatch.setattr(_neighbourhood, "_kernels_apply", lambda X, xp: X.shape[1] <= _neighbourhood.MAX_FEATURES)
    monkeypatch.setattr(_neighbourhood, "_knn_kth_device", knn)
    monkeypatch.setattr(_neighbourhood, "_boruvka_rowmin_device", rowmin)
    return knn, rowmin


def test_emulated_kernels_match_the_twin(on_emulated_kernels):
    knn, rowmin = on_emulated_kernels
    X, _ = make_blobs(97, 5, centers=3, random_state=1)  # not a whole number of tiles or blocks
    X = np.vstack([X, X[:9]])  # duplicates: distance exactly 0
    for k in (1, 2, 7, 64):
        np.testing.assert_array_equal(knn(X, k, np), np.sort(cdist(X, X) ** 2, axis=1)[:, k - 1] ** 0.5)
    core = knn(X, 4, np)
    comp = np.random.default_rng(0).integers(0, 5, len(X))
    best_w, best_j = rowmin(X, core, comp, 1.3, np)
    Xc = X - X.mean(axis=0)
    twin_w, twin_j = _neighbourhood._boruvka_rowmin_twin(Xc, (Xc * Xc).sum(axis=1), core, comp, 1.3, 10, np)
    np.testing.assert_allclose(best_w, twin_w, rtol=1e-12)
    reach = np.maximum(cdist(X, X) / 1.3, np.maximum(core[:, None], core[None, :]))
    reach[comp[:, None] == comp[None, :]] = np.inf
    np.testing.assert_array_equal(best_j, reach.argmin(axis=1))  # exact distances: ties to the smaller column


@pytest.mark.parametrize("params", [dict(min_samples=2), dict(min_samples=1, cluster_selection_method="leaf"),
                                    dict(min_samples=2, algorithm="brute", alpha=1.5)])  # fmt: skip
def test_emulated_kernels_fit_like_sklearn(on_emulated_kernels, params):
    X, _ = make_blobs(150, 3, centers=4, cluster_std=STDS[:4], random_state=3)
    _assert_same(HDBSCAN(**params).fit(X), skc.HDBSCAN(**params).fit(X))
