"""Pairwise distances on the device: euclidean, cosine and manhattan.

Euclidean and cosine distances are matrix products (scikit-learn's formulas: ``|x|^2 - 2 x.y + |y|^2`` clipped at
zero, and ``1 - cos`` clipped to ``[0, 2]``, with an exact zero diagonal when ``Y`` is ``X``); float32 input is
computed in float64 and returned as float32, as scikit-learn's upcast does. Manhattan distances need the
``n x m x d`` differences, so they are formed a block of rows at a time to bound memory; they are float64 for
any input, as scikit-learn's (scipy's ``cdist``). Other metrics take
scikit-learn's host path.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
from sklearn import metrics as _skm

from riptide.ml._validation import FLOAT_DTYPES, check_input, compute_namespace, to_output
from riptide.ml.metrics._common import fallback

__all__ = ["pairwise_distances", "euclidean_distances", "cosine_distances", "manhattan_distances"]

_EUCLIDEAN = {"euclidean", "l2"}
_COSINE = {"cosine"}
_MANHATTAN = {"manhattan", "cityblock", "l1"}
_BLOCK_ELEMENTS = 1 << 25  # manhattan: at most this many differences in flight


def _validated(X: Any, Y: Any) -> tuple[Any, Any, types.ModuleType, bool]:
    xp = compute_namespace(X, Y)
    A, _ = check_input(X, dtype=FLOAT_DTYPES, xp=xp)
    same = Y is None or Y is X
    B = A if same else check_input(Y, dtype=FLOAT_DTYPES, xp=xp)[0]
    if A.shape[1] != B.shape[1]:
        raise ValueError("Incompatible dimension for X and Y matrices: X.shape[1] == %d while Y.shape[1] == %d"
                         % (A.shape[1], B.shape[1]))  # fmt: skip
    return A, B, xp, same


def _zero_diagonal(D: Any, offset: int, xp: types.ModuleType) -> Any:
    """Zero the entries (i, offset + i): a block of rows of a distance matrix of X with itself."""
    rows = xp.arange(D.shape[0])
    D[rows, rows + offset] = 0.0
    return D


def _euclidean(A: Any, B: Any, xp: types.ModuleType, same: bool, offset: int = 0) -> Any:
    A64, B64 = A.astype(xp.float64), B.astype(xp.float64)
    D = -2.0 * (A64 @ B64.T)
    D += (A64 * A64).sum(axis=1)[:, None]
    D += (B64 * B64).sum(axis=1)[None, :]
    xp.maximum(D, 0.0, out=D)
    if same:
        _zero_diagonal(D, offset, xp)
    return xp.sqrt(D)


def _normalized(A: Any, xp: types.ModuleType) -> Any:
    norms = xp.sqrt((A * A).sum(axis=1))
    return A / xp.where(norms == 0, 1.0, norms)[:, None]


def _cosine(A: Any, B: Any, xp: types.ModuleType, same: bool, offset: int = 0) -> Any:
    A64, B64 = A.astype(xp.float64), B.astype(xp.float64)
    D = 1.0 - _normalized(A64, xp) @ _normalized(B64, xp).T
    D = xp.clip(D, 0.0, 2.0)
    if same:
        _zero_diagonal(D, offset, xp)
    return D


def _manhattan(A: Any, B: Any, xp: types.ModuleType, same: bool, offset: int = 0) -> Any:
    step = max(1, _BLOCK_ELEMENTS // max(1, B.shape[0] * A.shape[1]))
    A64, B64 = A.astype(xp.float64), B.astype(xp.float64)
    blocks = [xp.abs(A64[i:i + step, None, :] - B64[None, :, :]).sum(axis=2) for i in range(0, A.shape[0], step)]
    return xp.concatenate(blocks) if blocks else xp.zeros((0, B.shape[0]))


_KERNELS = {**dict.fromkeys(_EUCLIDEAN, _euclidean), **dict.fromkeys(_COSINE, _cosine),
            **dict.fromkeys(_MANHATTAN, _manhattan)}  # fmt: skip


def block_distances(A: Any, B: Any, metric: str, xp: types.ModuleType, same: bool, offset: int) -> Any:
    """Distances from a block of rows A (starting at row ``offset`` of B when ``same``) to all rows of B."""
    return _KERNELS[metric](A, B, xp, same, offset)


def pairwise_distances(X, Y=None, metric="euclidean", *, n_jobs=None, ensure_all_finite=True, **kwds):
    """Distance matrix between the rows of X and of Y (``sklearn.metrics.pairwise_distances``).

    >>> pairwise_distances([[0.0, 0.0], [3.0, 4.0]]).tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    >>> pairwise_distances([[1.0, 2.0]], [[2.0, 0.0]], metric="manhattan").tolist()
    [[3.0]]
    """
    if not isinstance(metric, str) or metric not in _KERNELS or kwds or ensure_all_finite is not True:
        return fallback(_skm.pairwise_distances, X, Y, metric=metric, n_jobs=n_jobs,
                        ensure_all_finite=ensure_all_finite, **kwds)  # fmt: skip
    A, B, xp, same = _validated(X, Y)
    D = _KERNELS[metric](A, B, xp, same)
    if metric not in _MANHATTAN:  # scikit-learn's manhattan distances (scipy's cdist) are float64 for any input
        D = D.astype(np.result_type(A.dtype, B.dtype), copy=False)
    return to_output(D, X, Y)


def euclidean_distances(X, Y=None):
    """``pairwise_distances(X, Y, metric="euclidean")``."""
    return pairwise_distances(X, Y, metric="euclidean")


def cosine_distances(X, Y=None):
    """``pairwise_distances(X, Y, metric="cosine")``."""
    return pairwise_distances(X, Y, metric="cosine")


def manhattan_distances(X, Y=None):
    """``pairwise_distances(X, Y, metric="manhattan")``."""
    return pairwise_distances(X, Y, metric="manhattan")
