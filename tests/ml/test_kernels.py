"""riptide.ml._kernels' column statistics (counts, variances, extrema) against NumPy.

Three ways in: the public helpers on ``riptide._device.xp()`` (the real CUDA kernels on a GPU host, the NumPy twins
elsewhere); the kernels' CUDA source compiled by g++ and run on the CPU (tests/ml/_kernel_emulation.py) behind the
same host code, with launch shapes small enough that blocks, row groups and the wide-matrix branch all occur; and
estimators whose column statistics are forced through those emulated kernels, against the same estimators on the
twins."""

from __future__ import annotations

import ctypes
import shutil
import warnings

import numpy as np
import pytest

from riptide import _device
from riptide.ml import _kernels
from tests.ml._kernel_emulation import EMU_SHIM, compile_library, ctypes_args

SHAPES = [(1, 1), (1, 7), (6, 1), (37, 3), (200, 5), (64, 32), (50, 33), (9, 300), (3000, 2)]
C_TYPES = {np.dtype(np.float64): "double", np.dtype(np.float32): "float"}


def _matrix(rng, shape, dtype, nan):
    """Values with a large offset (a variance computed carelessly loses digits), and NaN / inf as asked: "some"
    scatters NaN, "column" makes column 0 all NaN, "inf" puts +inf and -inf in."""
    X = (rng.normal(size=shape) * 3.0 + 1e3).astype(dtype)
    if shape[0] > 2:
        X[rng.integers(0, shape[0], size=2), rng.integers(0, shape[1], size=2)] = X[0, 0]  # ties
    if nan == "some":
        X[rng.random(shape) < 0.2] = np.nan
    elif nan == "column":
        X[:, 0] = np.nan
    elif nan == "inf":
        X[rng.random(shape) < 0.1] = np.inf
        X[rng.random(shape) < 0.1] = -np.inf
    return X


def _reference_extrema(X, skipna):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return (np.nanmin(X, axis=0), np.nanmax(X, axis=0)) if skipna else (X.min(axis=0), X.max(axis=0))


def _check_counts(M, xp):
    got = _device.to_host(_kernels.column_counts(xp.asarray(M), xp))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, M.sum(axis=0))


def _check_variances(X, xp, ddof):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = _device.to_host(_kernels.column_variances(xp.asarray(X), xp, ddof=ddof))
        want = X.var(axis=0, ddof=ddof, dtype=np.float64)
    assert got.dtype == np.float64
    # the deviations are taken from a float64 mean, in float64: only the sums' rounding differs (the offset of
    # 1e3 in the data would cost a float32 difference 1e-10 of the variance)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


def _check_extrema(X, xp, skipna):
    all_nan = skipna and X.shape[0] > 0 and bool(np.isnan(X).all(axis=0).any())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lo, hi = _kernels.column_extrema(xp.asarray(X), xp, skipna=skipna)
    # nanmin's "All-NaN slice" warning exactly when a column is all NaN, as NumPy
    assert any("All-NaN" in str(w.message) for w in caught) == all_nan, [str(w.message) for w in caught]
    want_lo, want_hi = _reference_extrema(X, skipna)
    lo, hi = _device.to_host(lo), _device.to_host(hi)
    assert lo.dtype == X.dtype and hi.dtype == X.dtype
    np.testing.assert_array_equal(lo, want_lo)
    np.testing.assert_array_equal(hi, want_hi)


# --------------------------------------------------------------------------- the helpers on riptide's device


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_column_counts(shape, layout):
    rng = np.random.default_rng(sum(shape))
    M = rng.random(shape) < 0.3
    M[:, 0] = False
    M[:, -1] |= shape[1] > 1  # an all-False and an all-True column
    M = np.asfortranarray(M) if layout == "F" else M
    if layout == "strided":
        M = np.concatenate([M, ~M], axis=1)[:, ::2]
    _check_counts(M, _device.xp())


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("nan", ["none", "some", "column", "inf"])
@pytest.mark.parametrize("ddof", [0, 1])
def test_column_variances(shape, dtype, nan, ddof):
    X = _matrix(np.random.default_rng(sum(shape) + ddof), shape, dtype, nan)
    _check_variances(X, _device.xp(), ddof)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("nan", ["none", "some", "column", "inf"])
@pytest.mark.parametrize("skipna", [False, True])
def test_column_extrema(shape, dtype, nan, skipna):
    X = _matrix(np.random.default_rng(sum(shape)), shape, dtype, nan)
    _check_extrema(X, _device.xp(), skipna)


def test_variance_of_a_large_offset_is_exact():
    """Two passes: the deviations are taken from the mean, so an offset of 1e8 costs no digits (a one-pass
    ``E[x^2] - E[x]^2`` would lose all of them)."""
    xp = _device.xp()
    X = 1e8 + np.tile(np.array([[-1.0], [1.0]]), (5000, 3))
    np.testing.assert_allclose(_device.to_host(_kernels.column_variances(xp.asarray(X), xp)), 1.0, rtol=1e-12)


def test_no_rows_or_no_columns_behave_as_numpy():
    xp = _device.xp()
    empty_rows, empty_cols = xp.zeros((0, 3)), xp.zeros((4, 0))
    np.testing.assert_array_equal(_device.to_host(_kernels.column_counts(xp.zeros((0, 3), dtype=bool), xp)), [0, 0, 0])
    assert _kernels.column_counts(xp.zeros((4, 0), dtype=bool), xp).shape == (0,)
    assert _kernels.column_variances(empty_cols, xp).shape == (0,)
    with warnings.catch_warnings(record=True) as caught:  # NumPy warns of the empty mean; CuPy does not
        warnings.simplefilter("always")
        assert np.isnan(_device.to_host(_kernels.column_variances(empty_rows, xp))).all()
    assert xp is not np or any(issubclass(w.category, RuntimeWarning) for w in caught)
    with pytest.raises(ValueError, match="zero-size"):
        _kernels.column_extrema(empty_rows, xp)
    lo, hi = _kernels.column_extrema(xp.zeros((4, 0), dtype=np.float32), xp)
    assert lo.shape == hi.shape == (0,) and lo.dtype == np.float32


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.bool_])
def test_other_dtypes_take_numpy_rules(dtype):
    """Integer and bool matrices are not read by the kernels: the twins answer, with NumPy's dtypes."""
    xp = _device.xp()
    X = np.random.default_rng(1).integers(0, 5, size=(300, 4)).astype(dtype)
    np.testing.assert_allclose(_device.to_host(_kernels.column_variances(xp.asarray(X), xp, ddof=1)),
                               X.var(axis=0, ddof=1), rtol=1e-12)  # fmt: skip
    lo, hi = _kernels.column_extrema(xp.asarray(X), xp)
    assert lo.dtype == X.dtype
    np.testing.assert_array_equal(_device.to_host(lo), X.min(axis=0))
    np.testing.assert_array_equal(_device.to_host(hi), X.max(axis=0))


def test_fold_blocks_cover_the_rows():
    """Every block has rows (the kernel assumes at least one), the last may be short, and there are never more
    than FOLD_MAX_BLOCKS."""
    for n in [1, 2, 7, 255, 256, 257, 2047, 2049, 10**5, 10**7 + 3]:
        for d in [1, 3, 50, 256, 257, 4000]:
            rows_per_block, blocks = _kernels.fold_blocks(n, d)
            assert rows_per_block >= 1 and 1 <= blocks <= _kernels.FOLD_MAX_BLOCKS
            assert (blocks - 1) * rows_per_block < n <= blocks * rows_per_block


# --------------------------------------------------------------------------- the CUDA source on the CPU

_EMU_SIGNATURES = {  # kernel -> its parameters after the launch shape; T: the data's C type
    "riptide_column_counts": ["const unsigned char*", "long long", "int", "long long", "long long*"],
    "riptide_column_sq_deviations": ["const T*", "long long", "int", "long long", "const double*", "double*"],
    "riptide_column_extrema": ["const T*", "long long", "int", "long long", "int", "riptide_extrema*"],
    "riptide_column_sums": ["const T*", "long long", "int", "long long", "const T*", "int", "double*"],  # the means
}  # fmt: skip
EMU_THREADS = 32


@pytest.fixture(scope="module")
def emu_library():
    if _device.is_gpu():  # the emulation feeds NumPy buffers to g++ builds; on a GPU the real kernels run instead
        pytest.skip("kernel emulation is for machines without a GPU; the GPU host runs the real kernels")
    if shutil.which("g++") is None:
        pytest.skip("needs g++ to run the kernels on the CPU")
    parts = [EMU_SHIM]
    for c_type in ("double", "float"):
        body = _kernels.COLUMN_SUMS_SOURCE + _kernels.COLUMN_STATS_SOURCE
        for name in _EMU_SIGNATURES:  # C linkage: one name per data type
            body = body.replace(f"void {name}(", f"void {name}_{c_type}(")
        parts += ["#undef DATA_T", f"#define DATA_T {c_type}", f"namespace emu_{c_type} {{\n{body}\n}}"]
        for name, types_ in _EMU_SIGNATURES.items():
            params = ", ".join(f"void* a{i}" if t.endswith("*") else f"{t} a{i}" for i, t in enumerate(types_))
            args = ", ".join(f"({t.replace('riptide_', f'emu_{c_type}::riptide_').replace('T*', f'{c_type}*')})a{i}"
                             if t.endswith("*") else f"a{i}" for i, t in enumerate(types_))  # fmt: skip
            parts.append(f'extern "C" void emu_{name}_{c_type}(unsigned grid, unsigned block, size_t shared, '
                         f"{params}) {{ riptide_emu_launch(grid, block, shared, [=] {{ "
                         f"emu_{c_type}::{name}_{c_type}({args}); }}); }}")  # fmt: skip
    return compile_library("\n".join(parts), "ml_column_stats")


class _EmulatedModule:
    """Stands in for the CuPy RawModule of a data type: its kernels are the g++ builds, run on NumPy arrays."""

    def __init__(self, library, dtype):
        self.library, self.c_type = library, C_TYPES[np.dtype(dtype)]

    def get_function(self, name):
        assert name in _EMU_SIGNATURES, name
        function = getattr(self.library, f"emu_{name}_{self.c_type}")

        def launch(grid, block, args, shared_mem=0):
            assert all(isinstance(a, np.ndarray | np.int64 | np.int32) for a in args), [type(a) for a in args]
            function(ctypes.c_uint(grid[0]), ctypes.c_uint(block[0]), ctypes.c_size_t(shared_mem), *ctypes_args(args))

        return launch


class _HostAsDevice:
    """NumPy under another name: the helpers then take their device branch (``xp is not np``) on NumPy arrays."""

    def __getattr__(self, name):
        return getattr(np, name)


@pytest.fixture(params=["small-blocks", "default-blocks"])
def emulated(request, emu_library, monkeypatch):
    """The column folds' kernels emulated; "small-blocks" (32 threads, a few rows a block) makes most matrices take
    many blocks, row groups that run out of rows, and (d > 32) the wide branch."""
    monkeypatch.setattr(_kernels, "_module", lambda source, dtype: _EmulatedModule(emu_library, dtype))
    if request.param == "small-blocks":
        monkeypatch.setattr(_kernels, "THREADS", EMU_THREADS)
        monkeypatch.setattr(_kernels, "FOLD_BLOCK_ELEMENTS", 40)
        monkeypatch.setattr(_kernels, "FOLD_MAX_BLOCKS", 16)
    return _HostAsDevice()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("layout", ["C", "F"])
def test_column_counts_kernel(emulated, shape, layout):
    rng = np.random.default_rng(sum(shape))
    M = rng.random(shape) < 0.4
    M[:, -1] = True
    _check_counts(np.asfortranarray(M) if layout == "F" else M, emulated)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("nan", ["none", "some", "inf"])
def test_column_variances_kernel(emulated, shape, dtype, nan):
    X = _matrix(np.random.default_rng(sum(shape)), shape, dtype, nan)
    _check_variances(X, emulated, 0)
    _check_variances(np.asfortranarray(X), emulated, 1)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("nan", ["none", "some", "column", "inf"])
def test_column_extrema_kernel(emulated, shape, dtype, nan):
    X = _matrix(np.random.default_rng(sum(shape)), shape, dtype, nan)
    _check_extrema(X, emulated, False)
    _check_extrema(X, emulated, True)


def test_kernels_are_not_launched_for_what_they_do_not_read(emulated, monkeypatch):
    """No rows, no columns, integers: the twins answer even on the device (a launch would fail here: the emulated
    module only has float types, and it asserts on the kernel it is asked for)."""
    monkeypatch.setattr(_kernels, "_module", lambda source, dtype: pytest.fail("a kernel was launched"))
    for M in (np.zeros((0, 3), dtype=bool), np.zeros((3, 0), dtype=bool)):
        _check_counts(M, emulated)
    _check_variances(np.zeros((3, 0)), emulated, 0)
    _check_variances(np.ones((1, 3)), emulated, 1)  # n <= ddof: NumPy's NaN
    _check_extrema(np.zeros((3, 0), dtype=np.float32), emulated, True)
    _check_extrema(np.arange(12).reshape(4, 3), emulated, False)


# --------------------------------------------------------------------------- estimators through the emulated kernels


@pytest.fixture
def folds_forced(emu_library, monkeypatch):
    """The estimators' column statistics through the emulated kernels (their xp is NumPy: the gate is opened)."""
    monkeypatch.setattr(_kernels, "_module", lambda source, dtype: _EmulatedModule(emu_library, dtype))
    monkeypatch.setattr(_kernels, "THREADS", EMU_THREADS)
    monkeypatch.setattr(_kernels, "FOLD_BLOCK_ELEMENTS", 40)
    launched = []
    real_applies = _kernels._fold_applies

    def applies(A, xp, dtypes):
        ok = real_applies(A, _HostAsDevice(), dtypes)
        launched.append(ok)
        return ok

    monkeypatch.setattr(_kernels, "_fold_applies", applies)
    return launched


def _fitted(make, fit):
    estimator = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit(estimator)
    return estimator


def _estimator_cases():
    from riptide.ml import cluster, decomposition, impute, naive_bayes, preprocessing

    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4)) * [1.0, 10.0, 0.1, 1.0] + 5.0
    X_nan = X.copy()
    X_nan[rng.random(X.shape) < 0.1] = np.nan
    X_nan[:, 3] = np.nan
    y = rng.integers(0, 3, size=300)
    w = rng.random(300)
    return {
        "MinMaxScaler": (preprocessing.MinMaxScaler, lambda e: e.fit(X_nan), ["data_min_", "data_max_", "scale_"]),
        "MaxAbsScaler": (preprocessing.MaxAbsScaler, lambda e: e.fit(X_nan - 5.0), ["max_abs_"]),
        "StandardScaler": (preprocessing.StandardScaler, lambda e: e.fit(X_nan), ["mean_", "var_", "n_samples_seen_"]),
        "StandardScaler-counts": (lambda: preprocessing.StandardScaler(with_mean=False, with_std=False),
                                  lambda e: e.fit(X_nan), ["n_samples_seen_"]),
        "RobustScaler": (preprocessing.RobustScaler, lambda e: e.fit(X_nan[:, :3]), ["center_", "scale_"]),
        "KBinsDiscretizer": (lambda: preprocessing.KBinsDiscretizer(4, strategy="uniform", encode="ordinal"),
                             lambda e: e.fit(X), ["bin_edges_"]),
        "SimpleImputer": (lambda: impute.SimpleImputer(add_indicator=True, keep_empty_features=True),
                          lambda e: e.fit(X_nan), ["statistics_"]),
        "GaussianNB": (naive_bayes.GaussianNB, lambda e: e.fit(X, y, sample_weight=w),
                       ["epsilon_", "var_", "theta_", "class_count_"]),
        "TruncatedSVD": (lambda: decomposition.TruncatedSVD(2, random_state=0), lambda e: e.fit(X),
                         ["explained_variance_", "explained_variance_ratio_"]),
        "MiniBatchKMeans": (lambda: cluster.MiniBatchKMeans(3, random_state=0, n_init=1, tol=1e-3),
                            lambda e: e.fit(X), ["_tol", "cluster_centers_"]),
        "DBSCAN": (lambda: cluster.DBSCAN(eps=0.8), lambda e: e.fit(X[:, :2]), ["labels_"]),
    }  # fmt: skip


@pytest.mark.parametrize("name", sorted(_estimator_cases()))
def test_estimators_through_the_kernels(emu_library, monkeypatch, name, request):
    make, fit, attributes = _estimator_cases()[name]
    expected = _fitted(make, fit)
    launched = request.getfixturevalue("folds_forced")
    got = _fitted(make, fit)
    assert any(launched), "no column statistic went through the kernels"
    for attribute in attributes:
        a, b = getattr(got, attribute), getattr(expected, attribute)
        if isinstance(b, np.ndarray) and b.dtype == object:  # KBinsDiscretizer's edges: one array per feature
            for u, v in zip(a, b):
                np.testing.assert_allclose(u, v, rtol=1e-12, err_msg=attribute)
        else:
            np.testing.assert_allclose(_device.to_host(a), _device.to_host(b), rtol=1e-12, atol=1e-14,
                                       err_msg=attribute)  # fmt: skip
