"""Silhouette coefficient on the device, without the ``n x n`` distance matrix.

Rows are processed in blocks: a block's distances to all samples (``block x n``) times the one-hot label matrix
(``n x n_labels``) gives each row's summed distance to every cluster, from which the mean intra-cluster distance
``a`` and the smallest mean distance to another cluster ``b`` follow; ``s = (b - a) / max(a, b)``, 0 for a sample
alone in its cluster, as in scikit-learn.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn import metrics as _skm
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, validate_params

from riptide import _device
from riptide.ml._validation import FLOAT_DTYPES, check_input, compute_namespace, input_namespace, to_output
from riptide.ml.metrics._common import device_values, fallback
from riptide.ml.metrics.pairwise import _KERNELS, block_distances

__all__ = ["silhouette_score", "silhouette_samples"]

_BLOCK_ELEMENTS = 1 << 26  # distances in flight per block


def _samples(X, labels, metric):
    xp = compute_namespace(X, labels)
    A, _ = check_input(X, dtype=FLOAT_DTYPES, xp=xp)
    if input_namespace(labels) is None:
        values = np.asarray(labels)
        if values.ndim != 1 or values.shape[0] != A.shape[0]:
            return None
        distinct, codes = np.unique(values, return_inverse=True)
        codes = _device.to_device(codes.reshape(-1).astype(np.int64), xp)
    else:
        values = device_values(labels, xp)
        if values is None or values.ndim != 1 or values.shape[0] != A.shape[0]:
            return None
        distinct = xp.unique(values)
        codes = xp.searchsorted(distinct, values)
    n = A.shape[0]
    n_labels = distinct.shape[0]  # the number of clusters (known from the unique values, no read)
    if not 1 < n_labels < n:
        raise ValueError("Number of labels is %d. Valid values are 2 to n_samples - 1 (inclusive)" % n_labels)
    freqs = xp.bincount(codes, minlength=n_labels).astype(xp.float64)
    onehot = (codes[:, None] == xp.arange(n_labels)[None, :]).astype(xp.float64)
    step = max(1, _BLOCK_ELEMENTS // max(1, n * max(1, A.shape[1] if metric in ("manhattan", "cityblock", "l1")
                                                     else 1)))  # fmt: skip
    out = []
    for start in range(0, n, step):
        block = A[start:start + step]
        sums = block_distances(block, A, metric, xp, True, start) @ onehot
        own = codes[start:start + step]
        rows = xp.arange(block.shape[0])
        intra = sums[rows, own]
        with np.errstate(divide="ignore", invalid="ignore"):
            intra = intra / (freqs[own] - 1)
        sums[rows, own] = xp.inf
        inter = (sums / freqs[None, :]).min(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            sil = (inter - intra) / xp.maximum(intra, inter)
        out.append(xp.nan_to_num(sil))
    return xp.concatenate(out)


@validate_params({"X": ["array-like", "sparse matrix"], "labels": ["array-like"], "metric": [str, callable],
                  "sample_size": [Interval(Integral, 1, None, closed="left"), None],
                  "random_state": ["random_state"]}, prefer_skip_nested_validation=True)  # fmt: skip
def silhouette_score(X, labels, *, metric="euclidean", sample_size=None, random_state=None, **kwds):
    """Mean silhouette coefficient (``sklearn.metrics.silhouette_score``).

    >>> round(silhouette_score([[0.0], [0.1], [5.0], [5.2]], [0, 0, 1, 1]), 6)
    0.970288
    """
    if metric not in _KERNELS or kwds:
        return fallback(_skm.silhouette_score, X, labels, metric=metric, sample_size=sample_size,
                        random_state=random_state, **kwds)  # fmt: skip
    if sample_size is not None:
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        chosen = check_random_state(random_state).permutation(n)[:sample_size]
        xp = compute_namespace(X, labels)
        X = check_input(X, dtype=FLOAT_DTYPES, xp=xp)[0][_device.to_device(chosen, xp)]
        values = device_values(labels, xp)
        labels = np.asarray(labels)[chosen] if values is None else values[_device.to_device(chosen, xp)]
    sil = _samples(X, labels, metric)
    if sil is None:
        return fallback(_skm.silhouette_score, X, labels, metric=metric)
    return float(sil.mean())  # one scalar read: the score


def silhouette_samples(X, labels, *, metric="euclidean", **kwds):
    """Silhouette coefficient of each sample (``sklearn.metrics.silhouette_samples``)."""
    if metric not in _KERNELS or kwds:
        return fallback(_skm.silhouette_samples, X, labels, metric=metric, **kwds)
    sil = _samples(X, labels, metric)
    if sil is None:
        return fallback(_skm.silhouette_samples, X, labels, metric=metric)
    return to_output(sil, X, labels)
