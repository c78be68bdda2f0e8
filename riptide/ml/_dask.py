"""riptide.ml estimators on Dask collections: statistics computed where the data lives, combined on the client.

A Dask array (NumPy or CuPy chunks) or a Dask DataFrame (riptide, pandas or cuDF partitions) is never gathered.
Each estimator's ``fit`` hands a Dask input to a function here, which runs a small per-block function on every
row block *on the workers* (the block is validated there with :func:`riptide.ml._validation.check_input`, so a
riptide or CuPy block is computed on its GPU with the estimator's own device code) and brings back only results
whose size does not grow with the data (a ``d x d`` Gram matrix, column sums, cluster sums, a gradient). The client
adds them up in float64 NumPy and finishes with the same small solve the in-memory estimator uses:

* LinearRegression / Ridge: per block ``X^T W X``, ``X^T W y``, ``sum(w x)``, ``sum(w y)``, ``sum(w)``; centering
  is applied to the sums (``G = X^T W X - W_sum m m^T``), then the minimum-norm eigen-solve (LinearRegression) or
  Ridge's cholesky/svd solve. There is no SVD fallback for ill-conditioned data (that needs the data itself): the
  squared system is solved in float64.
* PCA / TruncatedSVD: per block ``X^T X`` and column sums (the covariance route, ``'covariance_eigh'``, whatever
  ``svd_solver``/``algorithm`` says), then ``eigh`` of the ``d x d`` result on the client.
* KMeans: Lloyd iterations, each one pass computing per-block cluster sums, weights and inertia. The initial
  centers are an explicit array, or k-means++ / random run in memory on a sample of at most
  ``max(10 * n_clusters, 10_000)`` rows drawn from every block (so results agree with the in-memory fit up to the
  initialization; from the same explicit init they agree within the tolerance). Empty clusters keep their center.
* LogisticRegression: L-BFGS (scikit-learn's options), each evaluation summing the loss and gradient of the
  per-block objective (the in-memory estimator's own, with no penalty) over blocks; the L2 penalty is added on
  the client. The validated blocks (and their class numbers and weights) are persisted first, so the iterations
  do not recompute the collection's graph. ``warm_start`` is not used; the L1/elastic-net penalties and
  ``'liblinear'`` raise NotImplementedError.
* NearestNeighbors: ``fit`` keeps the Dask collection; ``kneighbors`` finds the top-k of the queries in each
  fitted block (an in-memory search on the workers) and merges those candidates by distance.

``predict``/``transform`` on a Dask input map the in-memory method over the blocks and return a Dask array
(:func:`map_rows`). Fitted attributes are NumPy (the client's results). Dask's own linear algebra works on
riptide data too: ``ddf.to_dask_array(lengths=True)`` of a riptide-backed Dask DataFrame is a Dask array of
NumPy (CPU) or CuPy (GPU) chunks, ready for ``dask.array.linalg.svd`` (tall-and-skinny: one column chunk) or
``dask.array.linalg.svd_compressed``.

Dask is imported only when a Dask collection is given: :func:`is_dask_collection` looks at ``sys.modules``.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from riptide import _device
from riptide.ml import _kernels as ml_kernels
from riptide.ml._validation import FLOAT_DTYPES, check_input, host_form, input_namespace

__all__ = [
    "fit_kmeans",
    "fit_linear_regression",
    "fit_logistic",
    "fit_nearest_neighbors",
    "fit_pca",
    "fit_ridge",
    "fit_truncated_svd",
    "is_dask_collection",
    "kneighbors",
    "map_rows",
]


def is_dask_collection(obj: Any) -> bool:
    """True for a Dask array, DataFrame or Series (without importing Dask when nobody has).

    >>> is_dask_collection([[1.0]])
    False
    """
    dask = sys.modules.get("dask")
    return dask is not None and hasattr(dask, "is_dask_collection") and dask.is_dask_collection(obj)


def _is_frame(obj: Any) -> bool:
    import dask.dataframe as dd

    return isinstance(obj, dd.DataFrame | dd.Series)


# --------------------------------------------------------------------------- blocks


def _partition_lengths(X: Any) -> tuple[int, ...]:
    return tuple(int(n) for n in X.map_partitions(len).compute())


def _row_blocks(X: Any, others: tuple = ()) -> tuple[list, list[list]]:
    """The row blocks of X as Delayed objects (all columns in one block), and for each of ``others`` (y, weights:
    None, a Dask collection or an in-memory array) the Delayed blocks holding the same rows (or Nones)."""
    import dask.array as da

    if _is_frame(X):
        blocks = list(X.to_delayed())
        lengths = None
    else:
        if X.ndim != 2:
            raise ValueError(f"Expected 2D array, got {X.ndim}D array instead.")
        X = X.rechunk({1: -1})
        blocks = list(X.to_delayed().ravel())
        lengths = X.chunks[0]
    out = []
    for other in others:
        if other is None:
            out.append([None] * len(blocks))
            continue
        if _is_frame(other) and _is_frame(X) and other.npartitions == X.npartitions:
            out.append(list(other.to_delayed()))
            continue
        if lengths is None:
            lengths = _partition_lengths(X)
        if _is_frame(other):
            other = other.to_dask_array(lengths=True)
        elif not is_dask_collection(other):
            other = da.from_array(np.asarray(host_form(other)), chunks=-1)
        if other.shape[0] != sum(lengths):
            raise ValueError("Found input variables with inconsistent numbers of samples: "
                             f"{[sum(lengths), other.shape[0]]}")  # fmt: skip
        other = other.rechunk({0: lengths, **({1: -1} if other.ndim == 2 else {})})
        out.append(list(other.to_delayed().ravel()))
    return blocks, out


def _features(estimator: Any, X: Any, reset: bool) -> int:
    """Set (reset) or check ``n_features_in_`` / ``feature_names_in_`` from the collection's metadata."""
    from sklearn.utils.validation import _check_feature_names

    if _is_frame(X):
        if X.ndim != 2:
            raise ValueError("Expected a 2-dimensional container but got a Series instead.")
        _check_feature_names(estimator, pd.DataFrame(columns=list(X.columns)), reset=reset)
        n_features = len(X.columns)
    else:
        if X.ndim != 2:
            raise ValueError(f"Expected 2D array, got {X.ndim}D array instead.")
        _check_feature_names(estimator, None, reset=reset)
        n_features = int(X.shape[1])
    if reset:
        estimator.n_features_in_ = n_features
    elif n_features != estimator.n_features_in_:
        raise ValueError(f"X has {n_features} features, but {type(estimator).__name__} is expecting "
                         f"{estimator.n_features_in_} features as input.")  # fmt: skip
    return n_features


def _block(block: Any, dtype: Any = FLOAT_DTYPES) -> tuple[Any, Any]:
    """A block validated where it lives: (array in its namespace, namespace). Empty blocks are allowed."""
    return check_input(block, dtype=dtype, ensure_min_samples=0)


def _target(block: Any, xp: Any, numeric: bool) -> Any:
    """A target block as an array: in xp when it is numbers, else (labels) a host NumPy array."""
    if block is None:
        return None
    if input_namespace(block) is not None or _device.is_device_array(block):
        from riptide.frame import DataFrame, Series

        if isinstance(block, Series) and not numeric and getattr(block.dtype, "kind", "O") not in "biuf":
            return block.to_pandas().to_numpy()  # text / categorical labels: the host decides
        if isinstance(block, DataFrame | Series):
            A, _ = check_input(block, dtype="numeric", ensure_2d=False, ensure_min_samples=0, xp=xp)
            return _device.to_device(A, xp)  # riptide data stays on its device unless xp says host (text labels)
        return _device.to_device(block, xp)
    values = np.asarray(block.to_numpy() if hasattr(block, "to_numpy") else block)
    if numeric:
        values = values.astype(np.float64) if values.dtype.kind not in "fiub" else values
        return _device.to_device(values, xp)
    return values


def _compute(tasks: list) -> list:
    import dask

    return list(dask.compute(*tasks))


def _total(results: list) -> Any:
    """Elementwise sum of equally structured tuples of host arrays/numbers."""
    first = results[0]
    if isinstance(first, tuple):
        return tuple(_total([r[i] for r in results]) for i in range(len(first)))
    total = first
    for r in results[1:]:
        total = total + r
    return total


def _map(function: Callable, *block_lists: list, args: tuple = ()) -> list:
    """``function(*blocks, *args)`` for every row block, on the workers; the (small) results on the client."""
    import dask

    task = dask.delayed(function, pure=True)
    return _compute([task(*blocks, *args) for blocks in zip(*block_lists, strict=True)])


# --------------------------------------------------------------------------- predict / transform


def _apply(block: Any, estimator: Any, method: str, tail: tuple, dtype: Any) -> Any:
    """``estimator.method(block)`` on one block (an empty block gives an empty result of the right shape)."""
    if len(block) == 0:
        xp = input_namespace(block) or np
        return xp.empty((0, *tail), dtype=dtype)
    return getattr(estimator, method)(block)


def map_rows(estimator: Any, method: str, X: Any) -> Any:
    """``estimator.method`` over the row blocks of a Dask collection: a lazy Dask array (rows follow X's blocks;
    for a DataFrame their count per block is unknown until computed, as with ``map_partitions``)."""
    n_features = _features(estimator, X, reset=False)
    probe_dtype = X.dtype if not _is_frame(X) and X.dtype.kind == "f" else np.float64
    with warnings.catch_warnings():  # one row of zeros: the output's dtype and width (no feature names on it)
        warnings.simplefilter("ignore", UserWarning)
        probe = np.asarray(host_form(getattr(estimator, method)(np.zeros((1, n_features), dtype=probe_dtype))))
    tail, dtype = probe.shape[1:], probe.dtype
    if _is_frame(X):
        return X.map_partitions(_apply, estimator, method, tail, dtype, meta=np.empty((0, *tail), dtype=dtype),
                                enforce_metadata=False)  # fmt: skip
    X = X.rechunk({1: -1})
    if tail:
        return X.map_blocks(_apply, estimator, method, tail, dtype, dtype=dtype, chunks=(X.chunks[0], tail),
                            meta=np.empty((0, *tail), dtype=dtype))  # fmt: skip
    return X.map_blocks(_apply, estimator, method, tail, dtype, dtype=dtype, drop_axis=1,
                        meta=np.empty((0,), dtype=dtype))  # fmt: skip


# --------------------------------------------------------------------------- least squares


def _gram_block(block: Any, y: Any, w: Any) -> tuple:
    """Per block, in float64: n (or sum w), sum w x, X^T W X, and with y: sum w y, X^T W y, and whether y is 1-D."""
    A, xp = _block(block)
    X64 = A.astype(xp.float64)
    if w is not None:
        w64 = _target(w, xp, numeric=True).astype(xp.float64)
        weighted = X64 * w64[:, None]
        count = w64.sum()
    else:
        w64, weighted, count = None, X64, xp.asarray(float(A.shape[0]))
    parts = [count, ml_kernels.column_totals(weighted, xp), weighted.T @ X64]
    if y is not None:
        Y = _target(y, xp, numeric=True).astype(xp.float64)
        Y2 = Y.reshape(-1, 1) if Y.ndim == 1 else Y
        if Y2.shape[0] != A.shape[0]:
            raise ValueError("Found input variables with inconsistent numbers of samples")
        Yw = Y2 if w64 is None else Y2 * w64[:, None]
        parts += [ml_kernels.column_totals(Yw, xp), weighted.T @ Y2]
    host = tuple(np.asarray(_device.to_host(p), dtype=np.float64) for p in parts)
    return host + (np.asarray(A.dtype == np.float32, dtype=np.int64), np.asarray(int(A.shape[0]), dtype=np.int64),
                   np.asarray(0 if y is None else Y.ndim, dtype=np.int64))  # fmt: skip


class _Sums:
    """The combined per-block statistics of (X, y, w): centered Gram matrices and the means."""

    def __init__(self, estimator: Any, X: Any, y: Any, sample_weight: Any, fit_intercept: bool) -> None:
        if y is None:
            raise ValueError(f"This {type(estimator).__name__} estimator requires y to be passed, but the target y "
                             "is None.")  # fmt: skip
        blocks, (ys, ws) = _row_blocks(X, (y, sample_weight))
        _features(estimator, X, reset=True)
        results = _map(_gram_block, blocks, ys, ws)
        n_f32 = sum(int(r[-3]) for r in results)
        self.n_samples = sum(int(r[-2]) for r in results)
        if self.n_samples == 0:
            raise ValueError(f"Found array with 0 sample(s) (shape=(0, {estimator.n_features_in_})) while a "
                             f"minimum of 1 is required by {type(estimator).__name__}.")  # fmt: skip
        self.y_1d = y is None or max(int(r[-1]) for r in results) == 1
        self.dtype = np.dtype(np.float32 if n_f32 == len(results) else np.float64)
        sums = _total([r[:-3] for r in results])
        self.weight, sx, self.XtX = sums[0], sums[1], sums[2]
        self.X_offset = sx / self.weight if fit_intercept else np.zeros_like(sx)
        self.G = self.XtX - self.weight * np.outer(self.X_offset, self.X_offset)
        self.G = (self.G + self.G.T) / 2
        if y is not None:
            sy, XtY = sums[3], sums[4]
            self.y_offset = sy / self.weight if fit_intercept else np.zeros_like(sy)
            self.B = XtY - self.weight * np.outer(self.X_offset, self.y_offset)
        self.xp = np

    def finish(self, estimator: Any, coef: Any, fit_intercept: bool) -> None:
        from riptide.ml.linear_model._base import _Centered

        _Centered.finish(self, estimator, coef, fit_intercept)  # the in-memory estimator's attribute rules


def fit_linear_regression(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> Any:
    """LinearRegression.fit on a Dask collection (normal equations from per-block Gram matrices)."""
    s = _Sums(estimator, X, y, sample_weight, estimator.fit_intercept)
    if estimator.positive:  # non-negative least squares on the same normal equations (no rank_ / singular_)
        from riptide.ml.linear_model._nnls import nnls_normal_equations

        estimator.__dict__.pop("rank_", None)
        estimator.__dict__.pop("singular_", None)
        s.finish(estimator, nnls_normal_equations(s.G, s.B, n_samples=s.n_samples), estimator.fit_intercept)
        return estimator
    eigenvalues, V = np.linalg.eigh(s.G)
    eigenvalues, V = eigenvalues[::-1], V[:, ::-1]
    top = eigenvalues[0] if eigenvalues.size else 0.0
    keep = eigenvalues > (estimator.tol * estimator.tol) * top
    inverse = np.where(keep, 1.0 / np.where(keep, eigenvalues, 1.0), 0.0)
    coef = V @ (inverse[:, None] * (V.T @ s.B))
    estimator.rank_ = int(keep.sum())
    estimator.singular_ = np.sqrt(np.maximum(eigenvalues, 0.0))[: min(s.n_samples, len(eigenvalues))].astype(s.dtype)
    s.finish(estimator, coef, estimator.fit_intercept)
    return estimator


def fit_ridge(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> Any:
    """Ridge.fit on a Dask collection (the primal normal equations from per-block Gram matrices)."""
    from riptide.ml.linear_model._ridge import _solve_direct, _solve_spectral

    s = _Sums(estimator, X, y, sample_weight, estimator.fit_intercept)
    n_targets = s.B.shape[1]
    alpha = np.ravel(np.asarray(_device.to_host(estimator.alpha), dtype=np.float64))
    if alpha.shape[0] not in (1, n_targets):
        raise ValueError("Number of targets and number of penalties do not correspond: "
                         f"{alpha.shape[0]} != {n_targets}")  # fmt: skip
    alpha = np.broadcast_to(alpha, (n_targets,))
    if estimator.positive:  # the exact bounded minimizer (see riptide.ml.linear_model._ridge)
        from riptide.ml.linear_model._nnls import nnls_normal_equations

        solver, solution = "lbfgs", nnls_normal_equations(s.G, s.B, alpha, n_samples=s.n_samples)
    else:
        solver = "cholesky" if estimator.solver == "auto" else estimator.solver
        solution = None if solver == "svd" else _solve_direct(s.G, s.B, alpha, np)
    if solution is None:
        solver = "svd"
        solution = _solve_spectral(s.G, s.B, np.asarray(alpha), np)
    estimator.solver_ = solver
    estimator.n_iter_ = None
    s.finish(estimator, solution, estimator.fit_intercept)
    if n_targets == 1 and estimator.coef_.ndim == 2:
        estimator.coef_ = estimator.coef_[0]
    return estimator


# --------------------------------------------------------------------------- PCA / TruncatedSVD


def _moments(estimator: Any, X: Any) -> tuple[int, Any, Any, np.dtype]:
    """(n_samples, column sums, X^T X) in float64 over all blocks, and the data's dtype."""
    blocks, _ = _row_blocks(X)
    n_features = _features(estimator, X, reset=True)
    results = _map(_gram_block, blocks, [None] * len(blocks), [None] * len(blocks))
    n_samples = sum(int(r[-2]) for r in results)
    if n_samples == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape=(0, {n_features})) while a minimum of 1 is required "
                         f"by {type(estimator).__name__}.")  # fmt: skip
    dtype = np.dtype(np.float32 if all(int(r[-3]) for r in results) else np.float64)
    _, sums, XtX = _total([r[:3] for r in results])
    return n_samples, sums, (XtX + XtX.T) / 2, dtype


def fit_pca(estimator: Any, X: Any) -> Any:
    """PCA.fit on a Dask collection: the covariance from per-block Gram matrices and column sums, then eigh."""
    from riptide.ml.decomposition._pca import _check_n_components, _eigh_components, _resolve_n_components

    n_samples, sums, XtX, dtype = _moments(estimator, X)
    n_features = XtX.shape[0]
    n_components = min(n_samples, n_features) if estimator.n_components is None else estimator.n_components
    _check_n_components(n_components, n_samples, n_features, "covariance_eigh")
    estimator._fit_svd_solver = "covariance_eigh"
    mean = sums / n_samples
    C = (XtX - n_samples * np.outer(mean, mean)) / (n_samples - 1)
    explained, singular, Vt = _eigh_components(C, n_samples)
    ratio = explained / explained.sum()
    n_components = _resolve_n_components(n_components, explained, ratio, n_samples)
    k = min(n_features, n_samples)
    noise = float(explained[n_components:k].mean()) if n_components < k else 0.0
    estimator._store(dtype, mean, Vt[:n_components], explained[:n_components], ratio[:n_components],
                     singular[:n_components], n_components, n_samples, noise)  # fmt: skip
    return estimator


def fit_truncated_svd(estimator: Any, X: Any) -> Any:
    """TruncatedSVD.fit on a Dask collection: the top eigenvectors of the per-block Gram matrices' sum; the
    explained variances from the same sums (the projected data's variance is ``v^T cov v``)."""
    from riptide.ml.decomposition._pca import _flip_signs
    from riptide.ml.decomposition._truncated_svd import _gram_top

    n_samples, sums, XtX, dtype = _moments(estimator, X)
    n_features = XtX.shape[0]
    if n_features < 2:
        raise ValueError(f"Found array with {n_features} feature(s) (shape=({n_samples}, {n_features})) while a "
                         "minimum of 2 is required by TruncatedSVD.")  # fmt: skip
    k = estimator.n_components
    if k > n_features or (estimator.algorithm == "arpack" and k >= min(n_samples, n_features)):
        raise ValueError(f"n_components({k}) must be <= n_features({n_features}).")
    sigma, Vt = _gram_top(XtX, k)
    Vt = _flip_signs(Vt, np)
    mean = sums / n_samples
    cov = XtX / n_samples - np.outer(mean, mean)  # the biased covariance, as numpy's var
    explained = np.einsum("ij,jk,ik->i", Vt, cov, Vt)
    estimator.components_ = Vt.astype(dtype)
    estimator.explained_variance_ = explained.astype(dtype)
    estimator.explained_variance_ratio_ = (explained / np.trace(cov)).astype(dtype)
    estimator.singular_values_ = sigma.astype(dtype)
    return estimator


# --------------------------------------------------------------------------- KMeans

_SAMPLE_ROWS_PER_CLUSTER, _MIN_SAMPLE_ROWS = 10, 10_000


def _kmeans_block(block: Any, weight: Any) -> tuple[Any, Any]:
    """A validated block and its weights (ones when none were given), kept on its worker."""
    A, xp = _block(block)
    w = xp.ones(A.shape[0], dtype=A.dtype) if weight is None else _target(weight, xp, numeric=True).astype(A.dtype)
    return A, w


def _kmeans_moments(data: tuple) -> tuple:
    A, w = data
    xp = _device.namespace_of(A)
    A64 = A.astype(xp.float64)
    parts = (xp.asarray(float(A.shape[0])), ml_kernels.column_totals(A64, xp), ml_kernels.column_totals(A64 * A64, xp),
             w.astype(xp.float64).sum())  # (column sums of a tall block: the coalesced kernel on the GPU)
    return tuple(np.asarray(_device.to_host(p), dtype=np.float64) for p in parts) + (A.dtype == np.float32,)


def _kmeans_sample(data: tuple, fraction: float, seed: int) -> tuple[Any, Any]:
    """About ``fraction`` of the block's rows (and weights), on the host: the initialization's sample."""
    A, w = data
    keep = np.flatnonzero(np.random.default_rng(seed).random(A.shape[0]) < fraction)
    xp = _device.namespace_of(A)
    rows = _device.to_device(keep, xp)
    return _device.to_host(A[rows]), _device.to_host(w[rows])


def _kmeans_step(data: tuple, centers: np.ndarray) -> tuple:
    """One Lloyd E-step on a block: its per-cluster weighted sums and weights and its inertia (host float64)."""
    from riptide.ml.cluster._kmeans import _labels_inertia, _weighted_sums

    A, w = data
    xp = _device.namespace_of(A)
    C = _device.to_device(centers.astype(A.dtype), xp)
    labels, closest = _labels_inertia(A, C, w, xp, want="closest")
    sums, weights = _weighted_sums(A, w, labels, C.shape[0], xp)
    inertia = closest.astype(xp.float64) @ w.astype(xp.float64)
    return tuple(np.asarray(_device.to_host(p), dtype=np.float64) for p in (sums, weights, inertia))


def _kmeans_labels(data: tuple, centers: np.ndarray) -> Any:
    from riptide.ml.cluster._kmeans import _labels_inertia

    A, _ = data
    xp = _device.namespace_of(A)
    labels, _ = _labels_inertia(A, _device.to_device(centers.astype(A.dtype), xp), None, xp, want="labels")
    return labels


def _lloyd(blocks: list, centers: np.ndarray, max_iter: int, tol: float) -> tuple[np.ndarray, float, int]:
    """Lloyd iterations over the persisted blocks: (centers, inertia, iterations). An empty cluster keeps its
    center. Stops when the total squared center shift is at most ``tol`` (scikit-learn's test)."""
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # a loop over iterations; each one is a pass over the blocks
        sums, weights, _ = _total(_map(_kmeans_step, blocks, args=(centers,)))
        filled = weights > 0
        new = np.where(filled[:, None], sums / np.where(filled, weights, 1.0)[:, None], centers)
        shift = float(((new - centers) ** 2).sum())
        centers = new
        if shift <= tol:
            break
    _, _, inertia = _total(_map(_kmeans_step, blocks, args=(centers,)))
    return centers, float(inertia), n_iter


def fit_kmeans(estimator: Any, X: Any, sample_weight: Any = None) -> Any:
    """KMeans.fit on a Dask collection (see the module docstring). ``labels_`` is a lazy Dask array."""
    import types as _types

    import dask
    import dask.array as da
    from sklearn.cluster import kmeans_plusplus
    from sklearn.utils import check_random_state
    from sklearn.utils.validation import _is_arraylike_not_scalar

    n_features = _features(estimator, X, reset=True)
    raw, (ws,) = _row_blocks(X, (sample_weight,))
    task = dask.delayed(_kmeans_block, pure=True)
    blocks = list(dask.persist(*[task(b, w) for b, w in zip(raw, ws, strict=True)]))
    moments = _map(_kmeans_moments, blocks)
    dtype = np.dtype(np.float32 if all(m[-1] for m in moments) else np.float64)
    count, sums, squares, _ = _total([m[:-1] for m in moments])
    n_samples = int(count)
    if n_samples == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape=(0, {n_features})) while a minimum of 1 is required "
                         "by KMeans.")  # fmt: skip
    estimator._check_params_vs_input(_types.SimpleNamespace(shape=(n_samples, n_features)), np)
    mean = sums / n_samples
    tol = float((squares / n_samples - mean * mean).mean()) * estimator.tol if estimator.tol else 0.0
    estimator._tol = tol
    random_state = check_random_state(estimator.random_state)
    init = estimator.init
    if _is_arraylike_not_scalar(init):
        init, _ = check_input(init, dtype=dtype, xp=np)
        estimator._validate_center_shape(np.empty((0, n_features)), init)
        sample = None
    else:
        size = max(_SAMPLE_ROWS_PER_CLUSTER * estimator.n_clusters, _MIN_SAMPLE_ROWS)
        fraction = min(1.0, size / n_samples)
        seeds = random_state.randint(0, 2**31 - 1, size=len(blocks))
        parts = _compute([dask.delayed(_kmeans_sample, pure=True)(b, fraction, int(seed))
                          for b, seed in zip(blocks, seeds, strict=True)])  # fmt: skip
        sample = (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))
    best = None
    for _ in range(estimator._n_init):
        if sample is None:
            centers = np.asarray(init, dtype=np.float64)
        elif isinstance(init, str) and init == "k-means++":
            centers, _ = kmeans_plusplus(sample[0], estimator.n_clusters, sample_weight=sample[1],
                                         random_state=random_state)  # fmt: skip
        elif isinstance(init, str) and init == "random":
            p = sample[1] / sample[1].sum()
            rows = random_state.choice(sample[0].shape[0], size=estimator.n_clusters, replace=False, p=p)
            centers = sample[0][rows]
        else:  # a callable
            centers, _ = check_input(init(sample[0], estimator.n_clusters, random_state=random_state), dtype=dtype,
                                     xp=np)  # fmt: skip
            estimator._validate_center_shape(sample[0], centers)
        centers, inertia, n_iter = _lloyd(blocks, np.asarray(centers, dtype=np.float64), estimator.max_iter, tol)
        if best is None or inertia < best[1]:
            best = (centers, inertia, n_iter)
    centers, inertia, n_iter = best
    lengths = [int(m[0]) for m in moments]
    labels = [da.from_delayed(dask.delayed(_kmeans_labels, pure=True)(b, centers), shape=(n,), dtype=np.int32,
                              meta=np.empty((0,), dtype=np.int32))
              for b, n in zip(blocks, lengths, strict=True)]  # fmt: skip
    estimator.cluster_centers_ = centers.astype(dtype)
    estimator._n_features_out = estimator.n_clusters
    estimator.labels_ = da.concatenate(labels) if labels else da.zeros((0,), dtype=np.int32)
    estimator.inertia_ = np.float64(inertia)
    estimator.n_iter_ = n_iter
    return estimator


# --------------------------------------------------------------------------- LogisticRegression


def _label_counts(y: Any, weight: Any) -> tuple[np.ndarray, np.ndarray]:
    """The distinct labels of a target block and their (weighted) counts, on the host."""
    if y is None:
        raise ValueError("This LogisticRegression estimator requires y to be passed, but the target y is None.")
    values = _target(y, _device.xp() if input_namespace(y) is None else input_namespace(y), numeric=False)
    xp = _device.namespace_of(values) if _device.is_device_array(values) else np
    if values.ndim != 1:
        values = values.ravel() if values.ndim == 2 and values.shape[1] == 1 else values
    uniq, inverse = xp.unique(values, return_inverse=True)
    w = None if weight is None else _target(weight, xp, numeric=True).astype(xp.float64)
    counts = xp.bincount(inverse.ravel(), weights=w, minlength=uniq.shape[0])
    return _device.to_host(uniq), np.asarray(_device.to_host(counts), dtype=np.float64)


def _logistic_block(block: Any, y: Any, weight: Any, classes: np.ndarray, class_weight: Any,
                    fit_intercept: bool) -> Any:  # fmt: skip
    """The in-memory estimator's objective (no penalty) on one block, kept on its worker."""
    from riptide.ml.linear_model._logistic import _Objective

    A, xp = _block(block)
    values = _target(y, xp, numeric=False)
    if values.ndim == 2:
        values = values.ravel()
    if _device.is_device_array(values):
        codes = xp.searchsorted(_device.to_device(classes, xp), values)
    else:
        codes = _device.to_device(np.searchsorted(classes, values), xp)
    sw = None
    if weight is not None:
        sw = _target(weight, xp, numeric=True).astype(A.dtype)
    if class_weight is not None:
        per_class = _device.to_device(class_weight.astype(A.dtype), xp)[codes]
        sw = per_class if sw is None else sw * per_class
    return _Objective(A, codes, classes.shape[0], sw, np.inf, fit_intercept, xp)


def _logistic_total(objective: Any) -> tuple[float, bool]:
    return objective.sw_sum, objective.X.dtype == np.float32


def _logistic_eval(objective: Any, w: np.ndarray, total: float) -> tuple[float, np.ndarray]:
    objective.sw_sum = total  # every block's share of the mean over all blocks
    return objective(w)


def fit_logistic(estimator: Any, X: Any, y: Any, sample_weight: Any, solver: str, penalty: Any, C: float) -> Any:
    """LogisticRegression.fit on a Dask collection: L-BFGS on the loss and gradient summed over the blocks (for
    every solver with an L2 or no penalty; the minimizer is the same)."""
    import dask
    from sklearn.utils import compute_class_weight
    from sklearn.utils.multiclass import check_classification_targets

    from riptide.ml.linear_model._logistic import _lbfgs

    if penalty in ("l1", "elasticnet") or solver == "liblinear":
        raise NotImplementedError("LogisticRegression on Dask collections supports the L2 penalty (or none) with "
                                  f"the lbfgs, newton and sag solvers; got penalty={penalty!r}, solver={solver!r}")
    d = _features(estimator, X, reset=True)
    raw, (ys, ws) = _row_blocks(X, (y, sample_weight))
    found = _map(_label_counts, ys, ws)
    classes = np.unique(np.concatenate([f[0] for f in found]))
    check_classification_targets(classes)
    n_classes = classes.shape[0]
    if n_classes < 2:
        raise ValueError("This solver needs samples of at least 2 classes in the data, but the data contains "
                         f"only one class: {classes[0]!r}")  # fmt: skip
    class_weight = None
    if estimator.class_weight == "balanced":
        counts = np.zeros(n_classes)
        for uniq, c in found:
            counts[np.searchsorted(classes, uniq)] += c
        class_weight = counts.sum() / (n_classes * counts)
    elif estimator.class_weight is not None:
        class_weight = np.asarray(compute_class_weight(estimator.class_weight, classes=classes, y=classes))
    task = dask.delayed(_logistic_block, pure=True)
    blocks = list(dask.persist(*[task(b, yb, wb, classes, class_weight, estimator.fit_intercept)
                                 for b, yb, wb in zip(raw, ys, ws, strict=True)]))  # fmt: skip
    totals = _map(_logistic_total, blocks)
    total = float(sum(t[0] for t in totals))
    dtype = np.dtype(np.float32 if all(t[1] for t in totals) else np.float64)
    l2 = 0.0 if C == np.inf else 1.0 / (C * total)
    n_params = d + int(estimator.fit_intercept)
    K = 1 if n_classes == 2 else n_classes
    penalized = np.zeros((K, n_params), dtype=bool)
    penalized[:, :d] = True
    penalized = penalized.ravel(order="F")

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = _total(_map(_logistic_eval, blocks, args=(w, total)))
        coef = np.where(penalized, w, 0.0)
        return float(value) + 0.5 * l2 * float(coef @ coef), grad + l2 * coef

    w0 = np.zeros(K * n_params)
    w, n_iter, _ = _lbfgs(objective, w0, estimator.max_iter, estimator.tol)
    W = np.ascontiguousarray(w.reshape((K, n_params), order="F")).astype(dtype)
    estimator.classes_ = classes
    estimator.n_iter_ = np.asarray([n_iter], dtype=np.int32)
    estimator.coef_ = W[:, :d]
    estimator.intercept_ = W[:, d] if estimator.fit_intercept else np.zeros(K, dtype=dtype)
    return estimator


# --------------------------------------------------------------------------- NearestNeighbors


def fit_nearest_neighbors(estimator: Any, X: Any) -> Any:
    """NearestNeighbors.fit on a Dask collection: the collection is kept (its rows are read by each query);
    ``n_samples_fit_`` costs one pass counting the rows of every block."""
    _features(estimator, X, reset=True)
    estimator._check_algorithm_metric()
    estimator._resolve_metric()
    blocks, _ = _row_blocks(X)
    lengths = [int(n) for n in _compute([_dask_len(b) for b in blocks])]
    from riptide.ml.neighbors import _brute

    estimator._metric = _brute.Metric.from_effective(estimator.effective_metric_, estimator.effective_metric_params_)
    estimator._fit_X = None  # the rows stay in the collection
    estimator._fit_method = "brute"
    estimator._fit_on_device = False
    estimator._dask_fit = (X, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))
    estimator.n_samples_fit_ = int(sum(lengths))
    return estimator


def _dask_len(block: Any) -> Any:
    import dask

    return dask.delayed(len, pure=True)(block)


def _searcher(estimator: Any, block: Any) -> tuple[Any, Any]:
    """An in-memory NearestNeighbors with the estimator's parameters fitted on one validated block."""
    A, xp = _block(block)
    return type(estimator)(**estimator.get_params()).fit(A), xp


def _block_top_k(block: Any, Q: Any, k: int, offset: int, estimator: Any) -> tuple[Any, Any]:
    """The k nearest rows of one fitted block for every query (global row numbers)."""
    if len(block) == 0 or k == 0:
        return None
    searcher, xp = _searcher(estimator, block)
    dist, ind = searcher.kneighbors(_device.to_device(Q, xp), min(k, searcher.n_samples_fit_))
    return dist, ind + offset


def _merge_top_k(parts: list, k: int) -> tuple[Any, Any]:
    """The k smallest distances among the blocks' candidates (ties: the earlier row first)."""
    parts = [p for p in parts if p is not None]
    xp = _device.namespace_of(parts[0][0])
    dist = xp.concatenate([p[0] for p in parts], axis=1)
    ind = xp.concatenate([p[1] for p in parts], axis=1)
    order = xp.argsort(dist, axis=1, kind="stable") if xp is np else xp.argsort(dist, axis=1)
    order = order[:, :k]
    return xp.take_along_axis(dist, order, axis=1), xp.take_along_axis(ind, order, axis=1)


def _query_part(block: Any, fitted_block: Any, offset: int, k: int, estimator: Any) -> tuple[Any, Any] | None:
    """One (query block, fitted block) pair: the fitted block's top-k for the validated queries."""
    from riptide.ml._validation import validate_data

    if len(block) == 0:
        return None
    Q, _ = validate_data(estimator, block, reset=False, dtype=FLOAT_DTYPES)
    return _block_top_k(fitted_block, Q, k, offset, estimator)


def _query_merge(parts: list, n: int, k: int, dtype: Any) -> tuple[Any, Any]:
    if n == 0 or all(p is None for p in parts):
        return np.empty((0, k), dtype=dtype), np.empty((0, k), dtype=np.int64)
    return _merge_top_k(parts, k)


def _query_in_memory(block: Any, estimator: Any, k: int, dtype: Any) -> tuple[Any, Any]:
    if len(block) == 0:
        return np.empty((0, k), dtype=dtype), np.empty((0, k), dtype=np.int64)
    return estimator.kneighbors(block, k)


def kneighbors(estimator: Any, X: Any, n_neighbors: Any, return_distance: bool) -> Any:
    """NearestNeighbors.kneighbors when the model was fitted on a Dask collection or X is one: NumPy results
    for in-memory queries, lazy Dask arrays for Dask queries."""
    import numbers

    import dask
    import dask.array as da
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator)
    k = estimator.n_neighbors if n_neighbors is None else n_neighbors
    if k <= 0:
        raise ValueError(f"Expected n_neighbors > 0. Got {k}")
    if not isinstance(k, numbers.Integral):
        raise TypeError(f"n_neighbors does not take {type(k)} value, enter integer value")
    dask_fit = getattr(estimator, "_dask_fit", None) if estimator._fit_X is None else None
    if X is None:
        raise NotImplementedError("kneighbors(X=None) on a model fitted on a Dask collection: pass the queries")
    if dask_fit is not None and k > estimator.n_samples_fit_:
        raise ValueError(f"Expected n_neighbors <= n_samples_fit, but n_neighbors = {k}, n_samples_fit = "
                         f"{estimator.n_samples_fit_}, n_samples = {len(X)}")  # fmt: skip
    fitted = None
    if dask_fit is not None:
        fitted, _ = _row_blocks(dask_fit[0])
    if not is_dask_collection(X):
        from riptide.ml._validation import to_output, validate_data

        Q, xp = validate_data(estimator, X, reset=False, dtype=FLOAT_DTYPES)
        task = dask.delayed(_block_top_k, pure=True)
        parts = _compute([task(b, Q, k, int(dask_fit[1][j]), estimator) for j, b in enumerate(fitted)])
        parts = [p if p is None else (_device.to_device(p[0], xp), _device.to_device(p[1], xp)) for p in parts]
        dist, ind = _merge_top_k(parts, k)
        dist, ind = to_output(dist, X), to_output(ind, X)
        return (dist, ind) if return_distance else ind
    _features(estimator, X, reset=False)
    queries, _ = _row_blocks(X)
    lengths = X.rechunk({1: -1}).chunks[0] if not _is_frame(X) else _partition_lengths(X)
    from riptide.ml.neighbors import _brute

    query_dtype = np.dtype(X.dtype if not _is_frame(X) and X.dtype == np.float32 else np.float64)
    fit_dtype = np.dtype(np.float64)
    if dask_fit is None:
        fit_dtype = estimator._fit_X.dtype
    elif not _is_frame(dask_fit[0]) and dask_fit[0].dtype == np.float32:
        fit_dtype = np.dtype(np.float32)
    dtype = np.dtype(_brute.result_dtype(query_dtype, fit_dtype, estimator._metric))
    dists, inds = [], []
    for q, n in zip(queries, lengths, strict=True):
        if fitted is None:
            pair = dask.delayed(_query_in_memory, pure=True, nout=2)(q, estimator, k, dtype)
        else:
            part = dask.delayed(_query_part, pure=True)
            parts = [part(q, f, int(dask_fit[1][j]), k, estimator) for j, f in enumerate(fitted)]
            pair = dask.delayed(_query_merge, pure=True, nout=2)(parts, n, k, dtype)
        dist, ind = pair
        dists.append(da.from_delayed(dist, shape=(n, k), dtype=dtype, meta=np.empty((0, 0), dtype=dtype)))
        inds.append(da.from_delayed(ind, shape=(n, k), dtype=np.int64, meta=np.empty((0, 0), dtype=np.int64)))
    dist, ind = da.concatenate(dists), da.concatenate(inds)
    return (dist, ind) if return_distance else ind
