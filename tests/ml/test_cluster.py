"""KMeans against scikit-learn: same seeds give the same centers (k-means++ and random draws are reproduced)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn.cluster as skc  # noqa: E402
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

import riptide as rt  # noqa: E402
from riptide import _device  # noqa: E402
from riptide.ml import cluster as rtc  # noqa: E402
from tests.ml._kernel_emulation import EMU_SHIM, compile_library, ctypes_args  # noqa: E402

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


def _numpy_with_cupy_argpartition():
    """NumPy whose argpartition breaks ties as CuPy's does: cupy.argpartition "fully sorts the given array as
    cupy.argsort does" (CuPy's documentation), a stable sort, so tied values come out in index order."""
    import types

    namespace = types.ModuleType("numpy_with_cupy_argpartition")
    namespace.__dict__.update(np.__dict__)
    namespace.argpartition = lambda a, kth, axis=-1: np.argsort(a, axis=axis, kind="stable")
    return namespace


@pytest.mark.parametrize("n,k", [(6, 4), (9, 4), (6, 5)])
def test_empty_cluster_relocation_breaks_ties_as_numpy_whatever_xp(monkeypatch, n, k):
    """KBinsDiscretizer's k-means init puts a column's extreme points exactly equally far from the outer centers;
    with an inner cluster empty, scikit-learn moves the one np.argpartition picks. The pick must not come from xp's
    argpartition: CuPy's picks the other point (GPU-only: other centers, other bin edges than scikit-learn's)."""
    import sklearn.preprocessing as skp

    import riptide.ml.preprocessing as rtp
    from riptide.ml.cluster import _kmeans

    relocate, cupy_like = _kmeans._relocate_empty, _numpy_with_cupy_argpartition()
    # on the CPU the relocation gets CuPy's tie order; on a GPU it runs on CuPy itself
    monkeypatch.setattr(_kmeans, "_relocate_empty", lambda *a: relocate(*a[:-1], cupy_like if a[-1] is np else a[-1]))
    X = np.random.default_rng(n).normal(size=(n, 3))  # (the data of test_kbins_matches' failing GPU draws)
    params = dict(n_bins=k, strategy="kmeans", encode="ordinal")
    ours, theirs = rtp.KBinsDiscretizer(**params).fit(X), skp.KBinsDiscretizer(**params).fit(X)
    for a, b in zip(ours.bin_edges_, theirs.bin_edges_, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_kmeans_errors_like_sklearn():
    with pytest.raises(ValueError, match="n_samples=3 should be >= n_clusters=4"):
        rtc.KMeans(4).fit(X_BLOBS[:3])
    with pytest.raises(ValueError, match=r"The shape of the initial centers \(2, 4\) does not match the number of "
                       "clusters 3"):  # fmt: skip
        rtc.KMeans(3, init=X_BLOBS[:2]).fit(X_BLOBS)
    with pytest.warns(RuntimeWarning, match="Explicit initial center position passed"):
        rtc.KMeans(3, init=X_BLOBS[:3], n_init=4).fit(X_BLOBS)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 1000), k=st.integers(2, 8), weighted=st.booleans())
def test_kmeans_parallel_init_is_as_good_as_kmeans_plus_plus(seed, k, weighted):
    """k-means|| (scikit-learn has none) on blobs: the clustering Lloyd reaches from its centers is within 1% of
    the best of scikit-learn's k-means++ runs, with or without sample weights."""
    X, _ = make_blobs(800, 3, centers=k, cluster_std=0.5, random_state=seed)
    w = np.random.default_rng(seed).uniform(0.5, 2, len(X)) if weighted else None
    ours = rtc.KMeans(k, init="k-means||", n_init=3, random_state=seed).fit(X, sample_weight=w)
    theirs = skc.KMeans(k, init="k-means++", n_init=3, random_state=seed).fit(X, sample_weight=w)
    assert ours.inertia_ <= theirs.inertia_ * 1.01
    assert ours.cluster_centers_.shape == (k, 3) and len(np.unique(ours.labels_)) == k


def test_kmeans_parallel_init_edge_cases():
    # one init by default, as k-means++; reproducible from random_state
    a = rtc.KMeans(5, init="k-means||", random_state=3).fit(X_BLOBS)
    b = rtc.KMeans(5, init="k-means||", random_state=3).fit(X_BLOBS)
    assert a._n_init == 1
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    # fewer distinct rows than the rounds would draw: each duplicate is one candidate, every round ends early
    X = np.repeat(np.array([[0.0, 0.0], [5.0, 5.0], [9.0, 0.0]]), 20, axis=0)
    km = rtc.KMeans(3, init="k-means||", random_state=0).fit(X)
    assert km.inertia_ < 1e-20  # (centering rounds)
    np.testing.assert_allclose(np.sort(km.cluster_centers_[:, 0]), [0.0, 5.0, 9.0], atol=1e-12)
    # as many clusters as distinct rows, and one cluster
    assert rtc.KMeans(1, init="k-means||", random_state=0).fit(X).cluster_centers_.shape == (1, 2)
    with pytest.raises(ValueError, match="'init' parameter of KMeans must be a str among"):
        rtc.KMeans(3, init="k-means|").fit(X)


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


# --- the GPU path, emulated on the CPU --------------------------------------------------------------------------
# riptide.ml._kernels' CUDA sources compiled by g++ with one host thread per CUDA thread (a std::barrier for
# __syncthreads, shared memory poisoned with NaN), so the device driver (_lloyd_device: batching, the pause for
# empty clusters, the final E-step) runs here against scikit-learn. Races between threads of a block are real
# threads here too; what stays for the GPU: warp timing, the shared-memory limit, launch shapes.


_EMU_KERNELS = {  # kernel -> its parameters' C types after DATA_T substitution ("T")
    "riptide_kmeans_step": ["const T*", "const T*", "const T*", "const T*", "long long", "int", "int", "int", "int",
                            "int", "const long long*", "int*", "T*", "int", "double*", "long long*", "double*"],
    "riptide_kmeans_reduce": ["const double*", "int", "int", "const long long*", "double*"],
    "riptide_kmeans_finalize": ["const double*", "const long long*", "int", "int", "int", "double", "T*",
                                "long long*", "double*"],
    "riptide_column_sums": ["const T*", "long long", "int", "long long", "const T*", "int", "double*"],
}  # fmt: skip
EMU_THREADS = 32  # CUDA threads per emulated block (host threads; the finalize kernel needs a multiple of 32)
EMU_REDUCE_THREADS = 128  # the partials' column sums: four warps, so each column is summed in four interleaved parts


def _emu_library():
    import shutil

    from riptide.ml import _kernels

    if shutil.which("g++") is None:
        pytest.skip("needs g++ to run the kernels on the CPU")
    parts = [EMU_SHIM]
    for c_type in ("double", "float"):
        parts += ["#undef DATA_T", f"#define DATA_T {c_type}", "#undef CB", f"#define CB {_kernels.CENTER_CHUNK}",
                  "#undef PF", f"#define PF {_kernels.PREFETCH}", "#undef WPF", f"#define WPF {_kernels.ROW_PREFETCH}",
                  "#undef NT", f"#define NT {EMU_THREADS}"]  # fmt: skip
        body = _kernels.KMEANS_SOURCE + _kernels.COLUMN_SUMS_SOURCE.split("typedef long long i64;", 1)[1]
        for name in _EMU_KERNELS:
            body = body.replace(f"{name}(", f"{name}_{c_type}(")
        parts.append(f"namespace emu_{c_type} {{\n{body}\n}}")
        for name, types_ in _EMU_KERNELS.items():
            params = ", ".join(f"{t.replace('T', c_type) if t in ('const T*', 'T*') else t} a{i}"
                               for i, t in enumerate(types_))  # fmt: skip
            args = ", ".join(f"a{i}" for i in range(len(types_)))
            parts.append(f'extern "C" void emu_{name}_{c_type}(unsigned grid, unsigned block, size_t shared, '
                         f"{params}) {{ riptide_emu_launch(grid, block, shared, [=] {{ "
                         f"emu_{c_type}::{name}_{c_type}({args}); }}); }}")  # fmt: skip
    text = "\n".join(parts)
    return compile_library(text, "ml")


class _Emulated:
    """Stand-ins for riptide.ml._kernels' launchers that run the emulated kernels on NumPy arrays."""

    def __init__(self, library, shared_limit, max_blocks):
        from riptide.ml import _kernels

        self.lib, self.shared_limit, self.max_blocks = library, shared_limit, max_blocks
        self._plan = _kernels.kmeans_plan  # kept: the fixture replaces the module's

    def _call(self, name, dtype, grid, shared, *args, threads=EMU_THREADS):
        import ctypes

        c_type = {np.dtype(np.float64): "double", np.dtype(np.float32): "float"}[np.dtype(dtype)]
        getattr(self.lib, f"emu_{name}_{c_type}")(ctypes.c_uint(grid), ctypes.c_uint(threads),
                                                  ctypes.c_size_t(shared), *ctypes_args(args))  # fmt: skip

    def plan(self, n_features, n_clusters, mode):
        return self._plan(n_features, n_clusters, mode, threads=EMU_THREADS, shared_limit=self.shared_limit)

    def step_blocks(self, n_samples, plan):
        return max(1, min(-(-n_samples // plan.rows), self.max_blocks))

    def kmeans_step(self, X, mean, weight, centers, plan, mode, state, labels, closest, partials, changed_partials,
                    inertia_partials, blocks):  # fmt: skip
        want = closest is not None
        closest = weight if closest is None else closest
        n, d = X.shape
        self._call("riptide_kmeans_step", X.dtype, blocks, plan.step_shared, X, mean, weight, centers, np.int64(n),
                   np.int32(d), np.int32(centers.shape[0]), np.int32(plan.rows), np.int32(plan.groups),
                   np.int32(mode), state, labels, closest, np.int32(want), partials, changed_partials,
                   inertia_partials)  # fmt: skip

    def kmeans_reduce(self, partials, blocks, E, state, totals):
        self._call("riptide_kmeans_reduce", np.float64, -(-E // 32), 8 * EMU_REDUCE_THREADS, partials,
                   np.int32(blocks), np.int32(E), state, totals, threads=EMU_REDUCE_THREADS)  # fmt: skip

    def kmeans_finalize(self, partials, changed_partials, blocks, centers, tol, totals, state, shift, plan):
        k, d = centers.shape
        self.kmeans_reduce(partials, blocks, k * d + k, state, totals)
        self._call("riptide_kmeans_finalize", centers.dtype, 1, plan.finalize_shared, totals, changed_partials,
                   np.int32(blocks), np.int32(d), np.int32(k), np.float64(tol), centers, state, shift)

    def column_sums(self, X, xp, center=None):
        n, d = X.shape
        rows_per_block = 7  # several blocks, a short last one
        blocks = -(-n // rows_per_block)
        partials = np.empty((blocks, d))
        square = center is not None
        center = np.zeros(d, X.dtype) if center is None else np.ascontiguousarray(center, dtype=X.dtype)
        self._call("riptide_column_sums", X.dtype, blocks, 8 * EMU_THREADS, X, np.int64(n), np.int32(d),
                   np.int64(rows_per_block), center, np.int32(square), partials)  # fmt: skip
        return partials.sum(axis=0)


@pytest.fixture(scope="module")
def emu_library():
    if _device.is_gpu():  # the emulation feeds NumPy buffers to g++ builds; on a GPU the real kernels run instead
        pytest.skip("kernel emulation is for machines without a GPU; the GPU host runs the real kernels")
    return _emu_library()


@pytest.fixture(params=[(4096, 3), (48 * 1024, 2)], ids=["small-tiles", "default-tiles"])
def emulated(request, emu_library, monkeypatch):
    """KMeans on NumPy input taking the GPU path, its kernels emulated; small tiles make blocks loop over tiles."""
    from riptide.ml import _kernels
    from riptide.ml.cluster import _kmeans

    emu = _Emulated(emu_library, *request.param)
    for name in ("kmeans_step", "kmeans_finalize", "column_sums", "step_blocks"):
        monkeypatch.setattr(_kernels, name, getattr(emu, name))
    monkeypatch.setattr(_kernels, "kmeans_plan", emu.plan)
    monkeypatch.setattr(_kmeans, "_device_plan", lambda X, k, mode, xp: emu.plan(X.shape[1], k, mode))
    monkeypatch.setattr(_kmeans, "_CHECK_EVERY", 3)  # batches end inside runs: queued no-op iterations
    return emu


def _assert_like_sklearn(ours, theirs, X, rtol=1e-9):
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)
    np.testing.assert_allclose(ours.cluster_centers_, theirs.cluster_centers_, rtol=rtol, atol=rtol)
    assert np.isclose(ours.inertia_, theirs.inertia_, rtol=rtol)
    assert ours.n_iter_ == theirs.n_iter_
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert np.isclose(ours.score(X), theirs.score(X), rtol=rtol)


@pytest.mark.parametrize("init", ["k-means++", "random", "array"])
@pytest.mark.parametrize("weighted", [False, True])
def test_device_path_matches_sklearn(emulated, init, weighted):
    X = X_BLOBS[:300] * 3 + 50  # off the origin: the kernels center on the fly
    w = np.random.default_rng(1).uniform(0.5, 2, len(X)) if weighted else None
    start = X[[0, 50, 100, 150, 200]] if init == "array" else init
    params = dict(n_clusters=5, init=start, random_state=3, n_init=1)
    ours = rtc.KMeans(**params).fit(X, sample_weight=w)
    theirs = skc.KMeans(**params).fit(X, sample_weight=w)
    _assert_like_sklearn(ours, theirs, X)


@pytest.mark.parametrize("max_iter,tol", [(1, 0.0), (2, 1e-2), (7, 0.0), (300, 0.0), (300, 1e-2)])
def test_device_path_stopping_rules(emulated, max_iter, tol):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(131, 6))
    params = dict(n_clusters=9, init=X[:9].copy(), max_iter=max_iter, tol=tol, n_init=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours, theirs = rtc.KMeans(**params).fit(X), skc.KMeans(**params).fit(X)
    _assert_like_sklearn(ours, theirs, X)


@pytest.mark.parametrize("d,k", [(1, 1), (1, 3), (7, 6)])
def test_device_path_narrow_and_single(emulated, d, k):
    """One feature (a tile is a run of single values), one cluster, and 7 features that do not divide a block."""
    rng = np.random.default_rng(d * 10 + k)
    X = rng.normal(size=(157, d)) * 2 + 5
    params = dict(n_clusters=k, init=X[:k].copy(), n_init=1, tol=0.0)
    ours, theirs = rtc.KMeans(**params).fit(X), skc.KMeans(**params).fit(X)
    _assert_like_sklearn(ours, theirs, X)


def test_device_path_float32(emulated):
    X = X_BLOBS.astype(np.float32)
    ours = rtc.KMeans(5, random_state=0, n_init=1).fit(X)
    theirs = skc.KMeans(5, random_state=0, n_init=1).fit(X)
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)
    assert ours.cluster_centers_.dtype == np.float32
    np.testing.assert_allclose(ours.cluster_centers_, theirs.cluster_centers_, rtol=1e-4, atol=1e-4)
    assert np.isclose(ours.inertia_, theirs.inertia_, rtol=1e-4)


def test_device_path_empty_cluster_pauses_the_loop(emulated):
    X = np.array([[0.0, 0.0], [0.0, 0.1], [10.0, 10.0], [10.0, 10.1], [5.0, 5.0], [5.0, 5.2]])
    init = np.array([[0.0, 0.0], [10.0, 10.0], [100.0, 100.0]])  # the third center attracts nothing
    ours = rtc.KMeans(3, init=init, n_init=1).fit(X)
    theirs = skc.KMeans(3, init=init, n_init=1).fit(X)
    _assert_like_sklearn(ours, theirs, X)
    with pytest.warns(ConvergenceWarning, match=r"Number of distinct clusters \(1\) found smaller than n_clusters"):
        ours = rtc.KMeans(2, n_init=1, random_state=0).fit(np.ones((5, 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        theirs = skc.KMeans(2, n_init=1, random_state=0).fit(np.ones((5, 2)))
    _assert_like_sklearn(ours, theirs, np.ones((5, 2)))


def _check_step(emu, X, w, centers, rng):
    """One Lloyd step in each mode against the xp twin's pieces (labels, sums, weights, inertia)."""
    from riptide.ml import _kernels
    from riptide.ml.cluster import _kmeans

    n, d = X.shape
    k = centers.shape[0]
    mean = X.mean(axis=0)
    Xc = X - mean
    plan = emu.plan(d, k, _kernels.MODE_ITERATE)
    assert plan.rows * d <= _kernels.PREFETCH * EMU_THREADS and plan.rows <= _kernels.ROW_PREFETCH * EMU_THREADS
    blocks = emu.step_blocks(n, plan)
    labels = np.full(n, -1, dtype=np.int32)
    labels[: n // 2] = 0
    partials = np.empty((blocks, k * d + k))
    changed = np.empty(blocks, dtype=np.int64)
    state = np.zeros(_kernels.STATE_SIZE, dtype=np.int64)
    unused = np.empty(1)
    emu.kmeans_step(X, mean, w, centers, plan, _kernels.MODE_ITERATE, state, labels, None, partials, changed,
                    unused, blocks)  # fmt: skip
    expected = _kmeans._labels(Xc, centers, np)
    np.testing.assert_array_equal(labels, expected)
    sums, weights = _kmeans._weighted_sums(Xc, w, expected, k, np)
    np.testing.assert_allclose(partials.sum(axis=0), np.concatenate([sums.ravel(), weights]), rtol=1e-12, atol=1e-12)
    assert changed.sum() == (expected != 0).sum() + (expected[n // 2 :] == 0).sum()
    totals = np.full(k * d + k, np.nan)
    emu.kmeans_reduce(partials, blocks, k * d + k, state, totals)
    np.testing.assert_array_equal(totals, _ordered_column_sums(partials))
    final = emu.plan(d, k, _kernels.MODE_ASSIGN)
    blocks = emu.step_blocks(n, final)
    inertia, closest = np.empty(blocks), np.empty(n)
    emu.kmeans_step(X, mean, w, centers, final, _kernels.MODE_ASSIGN, state, labels, closest, partials, changed,
                    inertia, blocks)  # fmt: skip
    distances = _kmeans._row_distances(Xc, centers, expected, np)
    np.testing.assert_allclose(closest, distances, rtol=1e-12, atol=1e-12)
    assert np.isclose(inertia.sum(), distances @ w, rtol=1e-12)
    labels[:] = rng.integers(0, k, n)
    emu.kmeans_step(X, mean, w, centers, final, _kernels.MODE_INERTIA, state, labels, None, partials, changed,
                    inertia, blocks)  # fmt: skip
    assert np.isclose(inertia.sum(), _kmeans._row_distances(Xc, centers, labels, np) @ w, rtol=1e-12)


def _ordered_column_sums(partials, warps=EMU_REDUCE_THREADS // 32):
    """riptide_kmeans_reduce's order of additions, in Python floats: warp v adds rows v, v + warps, ... of a column,
    then the warp sums are added in order (the result is bit-identical run to run)."""
    blocks, E = partials.shape
    out = np.empty(E)
    for e in range(E):
        parts = []
        for v in range(warps):
            s = 0.0
            for b in range(v, blocks, warps):
                s += float(partials[b, e])
            parts.append(s)
        t = parts[0]
        for s in parts[1:]:
            t += s
        out[e] = t
    return out


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 1000), n=st.integers(1, 70), d=st.integers(1, 9), k=st.integers(1, 10))
def test_step_kernel_matches_twin(emu_library, seed, n, d, k):
    k = min(k, n)
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 1)  # rounded: ties between centers happen
    w = rng.uniform(0.5, 2, n)
    centers = X[rng.choice(n, k, replace=False)] + 0.05
    emu = _Emulated(emu_library, 4096, 3)
    assume(emu.plan(d, k, 0) is not None)  # the emulator's small shared memory does not fit every shape (the twin)
    _check_step(emu, X, w, centers, rng)


@pytest.mark.parametrize("n,d,k,shared_limit,max_blocks", [
    (1, 1, 1, 4096, 3),  # one row
    (300, 1, 1, 4096, 3),  # d = 1: a tile is EMU_THREADS rows, one element a thread
    (301, 1, 6, 4096, 2),  # d = 1, several chunks of centers
    (257, 3, 7, 4096, 3),  # k * d + k = 28, k not a multiple of the chunk; a short last tile
    (200, 7, 5, 8192, 4),  # 7 does not divide EMU_THREADS: the elements of a thread wrap rows unevenly
    (90, 40, 3, 8192, 3),  # d > EMU_THREADS: a thread's elements step over whole rows (tiles of 6 rows)
    (33, 255, 1, 48 * 1024, 2),  # d near PREFETCH * EMU_THREADS: tiles of one row
    (120, 6, 100, 32 * 1024, 3),  # large k * d: 99% of the shared memory
])  # fmt: skip
def test_step_kernel_shapes(emu_library, n, d, k, shared_limit, max_blocks):
    from riptide.ml import _kernels

    rng = np.random.default_rng(n * 1000 + d * 10 + k)
    X = rng.normal(size=(n, d)) * 3 + 7
    w = rng.uniform(0.5, 2, n)
    centers = X[rng.choice(n, k, replace=False)] + 0.01
    emu = _Emulated(emu_library, shared_limit, max_blocks)
    plan = emu.plan(d, k, _kernels.MODE_ITERATE)
    assert plan is not None and plan.step_shared <= shared_limit and plan.finalize_shared <= shared_limit
    assert -(-n // plan.rows) > max_blocks or n <= plan.rows * max_blocks  # blocks loop over tiles where n allows
    _check_step(emu, X, w, centers, rng)


@pytest.mark.parametrize("blocks,E", [(1, 1), (3, 2), (5, 31), (13, 33), (64, 70), (9, 130)])
def test_reduce_kernel_fixed_order(emu_library, blocks, E):
    """The partials' column sums, with several rows a warp and columns not a multiple of a warp: exactly the
    documented order of additions; a stopped run's totals are left alone."""
    from riptide.ml import _kernels

    rng = np.random.default_rng(blocks * E)
    partials = rng.normal(size=(blocks, E)) * 10.0 ** rng.integers(-8, 8, size=(blocks, E))  # order matters
    emu = _Emulated(emu_library, 4096, 3)
    state = np.zeros(_kernels.STATE_SIZE, dtype=np.int64)
    totals = np.full(E, np.nan)
    emu.kmeans_reduce(partials, blocks, E, state, totals)
    np.testing.assert_array_equal(totals, _ordered_column_sums(partials))
    np.testing.assert_allclose(totals, partials.sum(axis=0), rtol=1e-6, atol=1e-6)
    state[0] = 1
    emu.kmeans_reduce(partials + 1, blocks, E, state, totals)
    np.testing.assert_array_equal(totals, _ordered_column_sums(partials))


def test_plan_bounds():
    """The real launch shape: tiles within the prefetch, shared memory within the limit, None beyond it."""
    from riptide.ml import _kernels

    for d in (1, 2, 3, 7, 50, 64, 129, 300, 600):
        for k in (1, 2, 5, 8, 33, 100, 400):
            for mode in (_kernels.MODE_ITERATE, _kernels.MODE_ASSIGN):
                plan = _kernels.kmeans_plan(d, k, mode)
                if plan is None:  # only for want of shared memory, and only for large k * d
                    assert k * d >= 600, (d, k, mode)
                    continue
                assert 1 <= plan.rows <= _kernels.ROW_PREFETCH * _kernels.THREADS
                assert plan.rows * d <= _kernels.PREFETCH * _kernels.THREADS
                assert plan.step_shared <= _kernels.SHARED_LIMIT and plan.finalize_shared <= _kernels.SHARED_LIMIT
    assert _kernels.kmeans_plan(50, 8, _kernels.MODE_ITERATE).rows == 40  # the bench shape: 40 rows, 2,000 loads


def test_column_sums_kernel(emu_library):
    rng = np.random.default_rng(0)
    emu = _Emulated(emu_library, 4096, 3)
    for shape in [(1, 1), (30, 3), (64, 32), (50, 70), (9, 200)]:  # d > EMU_THREADS takes the wide branch
        X = rng.normal(size=shape)
        np.testing.assert_allclose(emu.column_sums(X, np), X.sum(axis=0), rtol=1e-12, atol=1e-12)
        m = X.mean(axis=0)
        np.testing.assert_allclose(emu.column_sums(X, np, center=m), ((X - m) ** 2).sum(axis=0), rtol=1e-12,
                                   atol=1e-12)  # fmt: skip
