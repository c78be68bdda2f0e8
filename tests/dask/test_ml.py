"""riptide.ml on Dask collections (riptide/ml/_dask.py): each estimator fitted on a Dask array of NumPy chunks and
on a riptide-backed Dask DataFrame gives the in-memory fit's attributes (within solver tolerance), and its
predict/transform on a Dask input is a lazy Dask array equal to the in-memory result. Runs on the synchronous
scheduler, plus a distributed LocalCluster(processes=False) for the statistics gathered on workers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

import riptide as rt
import riptide.dask
from riptide import _device
from riptide.ml import _dask
from riptide.ml.linear_model import LinearRegression, Ridge

RTOL = 1e-6


@pytest.fixture(autouse=True)
def _sync_scheduler():
    with dask.config.set({"scheduler": "sync", "dataframe.convert-string": False}):
        yield


def _data(n=300, d=4, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(dtype)
    y = (X @ rng.normal(size=d) + 0.5 + 0.1 * rng.normal(size=n)).astype(dtype)
    return X, y


def _frame(X, y=None, npartitions=4):
    """A riptide-backed Dask DataFrame of X's columns (and the target as a Dask Series of the same partitions)."""
    pdf = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    if y is not None:
        pdf["target"] = y
    with dask.config.set({"dataframe.backend": "riptide"}):
        ddf = dd.from_pandas(rt.from_pandas(pdf), npartitions=npartitions)
    assert isinstance(ddf._meta, rt.DataFrame)
    if y is None:
        return ddf
    return ddf[[c for c in pdf.columns if c != "target"]], ddf["target"]


def _host(value):
    """A result as NumPy: the in-memory estimators keep theirs on the device (CuPy on a GPU)."""
    return _device.to_host(value)


def _close(got, expected, rtol=RTOL, atol=1e-8):
    np.testing.assert_allclose(_host(got), _host(expected), rtol=rtol, atol=atol)


def _equal(got, expected):
    np.testing.assert_array_equal(_host(got), _host(expected))


def test_is_dask_collection():
    X, _ = _data(10)
    assert _dask.is_dask_collection(da.from_array(X, chunks=5))
    assert _dask.is_dask_collection(_frame(X))
    assert not _dask.is_dask_collection(X)
    assert not _dask.is_dask_collection(rt.DataFrame({"a": [1.0]}))


# --------------------------------------------------------------------------- LinearRegression / Ridge


@pytest.mark.parametrize("Estimator", [LinearRegression, Ridge])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_linear_on_dask_array(Estimator, fit_intercept, dtype):
    X, y = _data(dtype=dtype)
    expected = Estimator(fit_intercept=fit_intercept).fit(X, y)
    got = Estimator(fit_intercept=fit_intercept).fit(da.from_array(X, chunks=(70, 2)), da.from_array(y, chunks=50))
    rtol = 1e-4 if dtype == np.float32 else RTOL
    assert got.coef_.dtype == expected.coef_.dtype and got.coef_.shape == expected.coef_.shape
    _close(got.coef_, expected.coef_, rtol)
    _close(got.intercept_, expected.intercept_, rtol, atol=1e-5)
    assert got.n_features_in_ == 4
    if Estimator is LinearRegression:
        assert got.rank_ == expected.rank_
        _close(got.singular_, expected.singular_, rtol)
    else:
        assert got.solver_ == expected.solver_
    pred = got.predict(da.from_array(X, chunks=(70, 4)))
    assert isinstance(pred, da.Array) and pred.shape == (300,)
    _close(pred.compute(), expected.predict(X), rtol, atol=1e-4)


@pytest.mark.parametrize("Estimator", [LinearRegression, Ridge])
def test_linear_on_riptide_dask_frame(Estimator):
    X, y = _data()
    Xd, yd = _frame(X, y)
    got = Estimator().fit(Xd, yd)
    expected = Estimator().fit(pd.DataFrame(X, columns=[f"f{j}" for j in range(4)]), y)
    _close(got.coef_, expected.coef_)
    _close(got.intercept_, expected.intercept_)
    assert list(got.feature_names_in_) == ["f0", "f1", "f2", "f3"]
    pred = got.predict(Xd)
    assert isinstance(pred, da.Array)
    _close(pred.compute(), expected.predict(pd.DataFrame(X, columns=[f"f{j}" for j in range(4)])))


def test_linear_sample_weight_and_multi_target():
    X, y = _data(seed=3)
    Y = np.c_[y, 2 * y - 1]
    w = np.random.default_rng(3).uniform(0.5, 2, size=len(y))
    for Estimator, kwargs in ((LinearRegression, {}), (Ridge, {"alpha": [1.0, 3.0]})):
        expected = Estimator(**kwargs).fit(X, Y, sample_weight=w)
        got = Estimator(**kwargs).fit(da.from_array(X, chunks=100), da.from_array(Y, chunks=60),
                                      sample_weight=da.from_array(w, chunks=80))
        assert got.coef_.shape == (2, 4)
        _close(got.coef_, expected.coef_)
        _close(got.intercept_, expected.intercept_)
        # an in-memory weight vector is split along X's blocks
        got = Estimator(**kwargs).fit(da.from_array(X, chunks=100), da.from_array(Y, chunks=100), sample_weight=w)
        _close(got.coef_, expected.coef_)


def test_linear_collinear_and_errors():
    X, y = _data(seed=5)
    X = np.c_[X, X[:, 0]]  # rank deficient: the minimum-norm solution
    expected = LinearRegression().fit(X, y)
    got = LinearRegression().fit(da.from_array(X, chunks=64), da.from_array(y, chunks=64))
    assert got.rank_ == expected.rank_ == 4
    _close(got.coef_, expected.coef_, 1e-5)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        LinearRegression().fit(da.from_array(X, chunks=64), da.from_array(y[:-1], chunks=64))
    with pytest.raises(ValueError, match="Number of targets and number of penalties"):
        Ridge(alpha=[1.0, 2.0]).fit(da.from_array(X, chunks=64), da.from_array(y, chunks=64))
    with pytest.raises(ValueError, match="features"):
        got.predict(da.from_array(X[:, :3], chunks=64))
    bad = X.copy()
    bad[7, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LinearRegression().fit(da.from_array(bad, chunks=64), da.from_array(y, chunks=64))


# --------------------------------------------------------------------------- PCA / TruncatedSVD


def _pca_data(n=400, d=5, seed=1, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + rng.normal(size=d) * 3).astype(dtype)


@pytest.mark.parametrize("n_components", [None, 2, 0.9, "mle"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pca_on_dask_array(n_components, dtype):
    from riptide.ml.decomposition import PCA

    X = _pca_data(dtype=dtype)
    expected = PCA(n_components=n_components, svd_solver="covariance_eigh").fit(X)
    got = PCA(n_components=n_components).fit(da.from_array(X, chunks=(90, 3)))
    rtol = 1e-4 if dtype == np.float32 else 1e-8
    assert got.n_components_ == expected.n_components_ and got.n_samples_ == 400
    for name in ("components_", "explained_variance_", "explained_variance_ratio_", "singular_values_", "mean_"):
        assert getattr(got, name).dtype == dtype, name
        _close(getattr(got, name), getattr(expected, name), rtol, atol=1e-5 if dtype == np.float32 else 1e-10)
    _close(got.noise_variance_, expected.noise_variance_, rtol, atol=1e-6)
    out = got.transform(da.from_array(X, chunks=(90, 5)))
    assert isinstance(out, da.Array) and out.shape == (400, got.n_components_)
    _close(out.compute(), expected.transform(X), rtol, atol=1e-4 if dtype == np.float32 else 1e-8)


def test_pca_and_svd_on_riptide_dask_frame():
    from riptide.ml.decomposition import PCA, TruncatedSVD

    X = _pca_data()
    Xd = _frame(X, npartitions=3)
    expected = PCA(n_components=3).fit(X)
    got = PCA(n_components=3).fit(Xd)
    _close(got.components_, expected.components_, 1e-8, 1e-10)
    out = PCA(n_components=3).fit_transform(Xd)
    assert isinstance(out, da.Array)
    _close(out.compute(), expected.transform(X), 1e-8, 1e-8)
    svd = TruncatedSVD(n_components=2, algorithm="arpack").fit(X)
    got = TruncatedSVD(n_components=2)
    projected = got.fit_transform(Xd)
    for name in ("components_", "explained_variance_", "explained_variance_ratio_", "singular_values_"):
        _close(getattr(got, name), getattr(svd, name), 1e-8, 1e-10)
    _close(projected.compute(), svd.transform(X), 1e-8, 1e-8)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_truncated_svd_on_dask_array(dtype):
    from riptide.ml.decomposition import TruncatedSVD

    X = _pca_data(dtype=dtype, seed=4)
    expected = TruncatedSVD(n_components=3, algorithm="arpack").fit(X)
    got = TruncatedSVD(n_components=3).fit(da.from_array(X, chunks=(128, 2)))
    rtol = 1e-4 if dtype == np.float32 else 1e-8
    for name in ("components_", "explained_variance_", "explained_variance_ratio_", "singular_values_"):
        assert getattr(got, name).dtype == dtype
        _close(getattr(got, name), getattr(expected, name), rtol, atol=1e-5 if dtype == np.float32 else 1e-10)
    with pytest.raises(ValueError, match="n_components"):
        TruncatedSVD(n_components=9).fit(da.from_array(X, chunks=128))


def test_pca_errors():
    from riptide.ml.decomposition import PCA

    X = _pca_data()
    with pytest.raises(ValueError, match="n_components=7 must be between 0 and"):
        PCA(n_components=7).fit(da.from_array(X, chunks=100))
    with pytest.raises(ValueError, match="features"):
        PCA(n_components=2).fit(da.from_array(X, chunks=100)).transform(da.from_array(X[:, :4], chunks=100))
    with pytest.raises(ValueError, match="infinity|NaN"):
        PCA().fit(da.from_array(np.r_[X, [[np.inf] * 5]], chunks=100))


def test_dask_linalg_svd_on_riptide_data():
    # the documented route to Dask's own linear algebra: a riptide-backed collection as a Dask array
    X = _pca_data(n=200, d=4)
    arr = _frame(X, npartitions=4).to_dask_array(lengths=True)
    _, s, _ = da.linalg.svd(arr)
    _close(s.compute(), np.linalg.svd(X, compute_uv=False), 1e-8)
    # svd_compressed draws its random test matrix from Dask's array backend: CuPy's for device blocks
    with dask.config.set({"array.backend": "cupy" if _device.is_gpu() else "numpy"}):
        _, s, _ = da.linalg.svd_compressed(arr, k=2, seed=0, n_power_iter=4)
        _close(s.compute(), np.linalg.svd(X, compute_uv=False)[:2], 1e-6)


# --------------------------------------------------------------------------- KMeans


def _blobs(n=600, d=3, k=4, seed=2, dtype=np.float64):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=6, size=(k, d))
    labels = rng.integers(0, k, n)
    return (centers[labels] + rng.normal(size=(n, d))).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("weighted", [False, True])
def test_kmeans_from_explicit_init_equals_in_memory(dtype, weighted):
    from riptide.ml.cluster import KMeans

    X = _blobs(dtype=dtype)
    w = np.random.default_rng(0).uniform(0.5, 2, len(X)) if weighted else None
    init = X[[0, 1, 2, 3]]
    expected = KMeans(n_clusters=4, init=init, n_init=1, tol=1e-8).fit(X, sample_weight=w)
    got = KMeans(n_clusters=4, init=init, n_init=1, tol=1e-8).fit(
        da.from_array(X, chunks=(150, 3)), sample_weight=None if w is None else da.from_array(w, chunks=200))
    rtol = 1e-4 if dtype == np.float32 else 1e-8
    assert got.cluster_centers_.dtype == dtype
    _close(got.cluster_centers_, expected.cluster_centers_, rtol, 1e-5)
    _close(got.inertia_, expected.inertia_, rtol)
    assert isinstance(got.labels_, da.Array)
    _equal(got.labels_.compute(), expected.labels_)
    assert abs(got.n_iter_ - expected.n_iter_) <= 1


def test_kmeans_sampled_init_on_riptide_dask_frame():
    from riptide.ml.cluster import KMeans

    X = _blobs(n=800, seed=7)
    Xd = _frame(X, npartitions=4)
    expected = KMeans(n_clusters=4, n_init=5, random_state=0).fit(X)
    for init in ("k-means++", "random"):
        got = KMeans(n_clusters=4, init=init, n_init=5, random_state=0).fit(Xd)
        # well separated blobs: the same clustering from a sampled initialization
        _close(got.inertia_, expected.inertia_, 1e-6)
        order = lambda c: c[np.lexsort(c.T[::-1])]
        _close(order(got.cluster_centers_), order(expected.cluster_centers_), 1e-6, 1e-8)
        assert list(got.feature_names_in_) == ["f0", "f1", "f2"]
        assert got.labels_.compute().shape == (800,)


def test_kmeans_errors():
    from riptide.ml.cluster import KMeans

    X = _blobs(n=20)
    with pytest.raises(ValueError, match="n_samples=20 should be >= n_clusters=30"):
        KMeans(n_clusters=30).fit(da.from_array(X, chunks=5))
    with pytest.raises(ValueError, match="does not match the number of clusters"):
        KMeans(n_clusters=3, init=X[:2]).fit(da.from_array(X, chunks=5))


# --------------------------------------------------------------------------- LogisticRegression


def _classes(n=400, d=3, k=2, seed=3, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(dtype)
    scores = X @ rng.normal(size=(d, k)) + 0.5 * rng.normal(size=(n, k))
    return X, scores.argmax(axis=1)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_logistic_on_dask_array(k, dtype):
    from riptide.ml.linear_model import LogisticRegression

    X, y = _classes(k=k, dtype=dtype)
    expected = LogisticRegression(tol=1e-8, max_iter=500).fit(X, y)
    got = LogisticRegression(tol=1e-8, max_iter=500).fit(da.from_array(X, chunks=(90, 3)),
                                                         da.from_array(y, chunks=130))
    # float32: the loss is summed in float32 in another order, so L-BFGS stops within float32's reach
    rtol, atol = (1e-2, 1e-3) if dtype == np.float32 else (1e-5, 1e-5)
    assert got.coef_.dtype == dtype and got.coef_.shape == expected.coef_.shape
    _equal(got.classes_, expected.classes_)
    _close(got.coef_, expected.coef_, rtol, atol)
    _close(got.intercept_, expected.intercept_, rtol, atol)
    Xd = da.from_array(X, chunks=(90, 3))
    pred = got.predict(Xd)
    assert isinstance(pred, da.Array)
    # block by block equals the fitted model's in-memory methods
    _equal(pred.compute(), got.predict(X))
    _close(got.predict_proba(Xd).compute(), got.predict_proba(X), 1e-6, 1e-7)
    _close(got.decision_function(Xd).compute(), got.decision_function(X), 1e-6, 1e-6)
    assert (got.predict(X) == expected.predict(X)).mean() >= 0.99


def test_logistic_on_riptide_dask_frame_with_text_labels_and_weights():
    from riptide.ml.linear_model import LogisticRegression

    X, codes = _classes(k=3, seed=8)
    labels = np.array(["bee", "ant", "cat"])[codes]
    pdf = pd.DataFrame(X, columns=["a", "b", "c"])
    w = np.random.default_rng(1).uniform(0.5, 2, len(X))
    for class_weight in (None, "balanced", {"ant": 2.0, "bee": 1.0, "cat": 0.5}):
        expected = LogisticRegression(C=0.5, class_weight=class_weight, tol=1e-8).fit(pdf, labels, sample_weight=w)
        Xd, yd = _frame(X, pd.array(labels, dtype="str"), npartitions=3)
        with dask.config.set({"dataframe.backend": "riptide"}):
            wd = dd.from_pandas(rt.from_pandas(pd.Series(w, name="w")), npartitions=3)
        got = LogisticRegression(C=0.5, class_weight=class_weight, tol=1e-8).fit(Xd.rename(
            columns=dict(zip(Xd.columns, "abc"))), yd, sample_weight=wd)  # fmt: skip
        assert list(got.classes_) == ["ant", "bee", "cat"]
        _close(got.coef_, expected.coef_, 1e-5, 1e-6)
        _close(got.intercept_, expected.intercept_, 1e-5, 1e-6)


def test_logistic_errors():
    from riptide.ml.linear_model import LogisticRegression

    X, y = _classes()
    Xd = da.from_array(X, chunks=100)
    with pytest.raises(ValueError, match="only one class"):
        LogisticRegression().fit(Xd, da.from_array(np.zeros(len(X)), chunks=100))
    with pytest.raises(ValueError, match="Unknown label type"):
        LogisticRegression().fit(Xd, da.from_array(np.linspace(0, 1, len(X)), chunks=100))
    with pytest.raises(NotImplementedError, match="L2 penalty"):
        LogisticRegression(l1_ratio=1.0, solver="saga").fit(Xd, da.from_array(y, chunks=100))


# --------------------------------------------------------------------------- NearestNeighbors


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "cosine"])
def test_nearest_neighbors_fitted_on_dask_array(metric):
    from riptide.ml.neighbors import NearestNeighbors

    rng = np.random.default_rng(4)
    X = rng.normal(size=(230, 3))
    Q = rng.normal(size=(37, 3))
    expected = NearestNeighbors(n_neighbors=6, metric=metric).fit(X)
    got = NearestNeighbors(n_neighbors=6, metric=metric).fit(da.from_array(X, chunks=(50, 2)))
    assert got.n_samples_fit_ == 230 and got.n_features_in_ == 3
    e_dist, e_ind = expected.kneighbors(Q)
    dist, ind = got.kneighbors(Q)
    assert isinstance(dist, np.ndarray)
    _equal(ind, e_ind)
    _close(dist, e_dist, 1e-10, 1e-12)
    _equal(got.kneighbors(Q, n_neighbors=2, return_distance=False), e_ind[:, :2])
    # Dask queries: lazy results, on a model fitted in memory and on one fitted on a Dask collection
    for model in (expected, got):
        dist, ind = model.kneighbors(da.from_array(Q, chunks=(10, 3)))
        assert isinstance(dist, da.Array) and dist.shape == (37, 6)
        _equal(ind.compute(), e_ind)
        _close(dist.compute(), e_dist, 1e-10, 1e-12)


def test_nearest_neighbors_on_riptide_dask_frame_and_errors():
    from riptide.ml.neighbors import NearestNeighbors

    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(120, 2)), 1)  # duplicates: ties go to the earlier row, as in memory
    Q = np.round(rng.normal(size=(15, 2)), 1)
    expected = NearestNeighbors(n_neighbors=4).fit(X)
    got = NearestNeighbors(n_neighbors=4).fit(_frame(X, npartitions=5))
    dist, ind = got.kneighbors(pd.DataFrame(Q, columns=["f0", "f1"]))
    e_dist, e_ind = expected.kneighbors(Q)
    _close(dist, e_dist, 1e-10, 1e-12)
    _equal(ind, e_ind)
    dist, ind = got.kneighbors(_frame(Q, npartitions=2))
    _equal(ind.compute(), e_ind)
    with pytest.raises(ValueError, match="Expected n_neighbors <= n_samples_fit"):
        got.kneighbors(Q, n_neighbors=121)
    with pytest.raises(ValueError, match="Expected n_neighbors > 0"):
        got.kneighbors(Q, n_neighbors=0)
    with pytest.raises(NotImplementedError, match="X=None"):
        got.kneighbors()
    # an in-memory refit replaces the Dask collection
    refit = got.fit(X)
    _equal(refit.kneighbors(Q)[1], e_ind)


# --------------------------------------------------------------------------- on a distributed cluster


def test_estimators_on_a_distributed_local_cluster():
    distributed = pytest.importorskip("distributed")
    from riptide.dask import LocalCluster
    from riptide.ml.cluster import KMeans
    from riptide.ml.decomposition import PCA
    from riptide.ml.linear_model import LogisticRegression
    from riptide.ml.neighbors import NearestNeighbors

    X, y = _data(n=400, seed=11)
    labels = (y > np.median(y)).astype(np.int64)
    Xd, yd = _frame(X, y, npartitions=4)
    _, ld = _frame(X, labels, npartitions=4)
    with LocalCluster(2, gpu=False, processes=False, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client, dask.config.set({"scheduler": client}):  # fmt: skip
        with distributed.get_task_stream(client) as stream:
            linear = LinearRegression().fit(Xd, yd)
            pca = PCA(n_components=2).fit(Xd)
            kmeans = KMeans(n_clusters=3, init=X[:3], n_init=1).fit(Xd)
            logistic = LogisticRegression().fit(Xd, ld)
            nn = NearestNeighbors(n_neighbors=3).fit(Xd)
            _, ind = nn.kneighbors(pd.DataFrame(X[:20], columns=Xd.columns))
            projected = pca.transform(Xd).compute()
        ran = {task["key"].split("-")[0] if isinstance(task["key"], str) else str(task["key"][0]).split("-")[0]
               for task in stream.data}  # fmt: skip
    # the per-block statistics ran as tasks on the workers
    assert {"_gram_block", "_kmeans_step", "_logistic_eval", "_block_top_k"} <= ran
    _close(linear.coef_, LinearRegression().fit(X, y).coef_)
    _close(pca.components_, PCA(n_components=2).fit(X).components_, 1e-8, 1e-10)
    _close(projected, PCA(n_components=2).fit(X).transform(X), 1e-8, 1e-8)
    expected = KMeans(n_clusters=3, init=X[:3], n_init=1).fit(X)
    _close(kmeans.cluster_centers_, expected.cluster_centers_, 1e-8, 1e-8)
    _close(logistic.coef_, LogisticRegression().fit(X, labels).coef_, 1e-4, 1e-5)
    _equal(ind, NearestNeighbors(n_neighbors=3).fit(X).kneighbors(X[:20])[1])


def test_requires_y_and_2d_input():
    X, y = _data(n=40)
    with pytest.raises(ValueError, match="requires y to be passed"):
        LinearRegression().fit(da.from_array(X, chunks=10), None)
    with pytest.raises(ValueError, match="Expected 2D array"):
        Ridge().fit(da.from_array(y, chunks=10), da.from_array(y, chunks=10))


def test_empty_blocks_are_skipped():
    from riptide.ml.cluster import KMeans
    from riptide.ml.decomposition import PCA
    from riptide.ml.linear_model import LogisticRegression
    from riptide.ml.neighbors import NearestNeighbors

    X, y = _data(n=120, seed=9)
    Xd = da.from_array(X, chunks=((0, 50, 0, 70), (4,)))
    yd = da.from_array(y, chunks=((0, 50, 0, 70),))
    _close(LinearRegression().fit(Xd, yd).coef_, LinearRegression().fit(X, y).coef_)
    _close(PCA(2).fit(Xd).components_, PCA(2).fit(X).components_, 1e-8, 1e-10)
    assert PCA(2).fit(Xd).transform(Xd).compute().shape == (120, 2)
    labels = (y > 0).astype(np.int64)
    _close(LogisticRegression().fit(Xd, da.from_array(labels, chunks=((0, 50, 0, 70),))).coef_,
           LogisticRegression().fit(X, labels).coef_, 1e-4, 1e-5)
    km = KMeans(n_clusters=2, init=X[:2], n_init=1).fit(Xd)
    _close(km.cluster_centers_, KMeans(n_clusters=2, init=X[:2], n_init=1).fit(X).cluster_centers_, 1e-8, 1e-8)
    nn = NearestNeighbors(n_neighbors=3).fit(Xd)
    expected = NearestNeighbors(n_neighbors=3).fit(X).kneighbors(X)[1]
    _equal(nn.kneighbors(Xd)[1].compute(), expected)
