"""Comparing two labelings of the same samples: the pair confusion matrix, the Rand index and its adjusted form.

All three rest on the same pair counts. Each labeling is encoded to codes (``unique`` + inverse, which also gives
the cluster sizes); the contingency cells are the counts of the combined key ``code_true * n_pred + code_pred``,
from a ``bincount`` when the table is small and from a sort of the keys otherwise, so no dense
``n_true x n_pred`` table is ever built for many clusters. What scikit-learn needs are three int64 sums -- of the
squared cells, the squared class sizes and the squared cluster sizes -- and only those are read back. The
2 x 2 matrix and the scores follow in Python integers, as in scikit-learn, so they are exact.

Labels that are not numbers on the host (text, objects), labels that are not 1-D, labelings of different lengths
and NaN or infinite labels take scikit-learn's own function (see :mod:`riptide.ml.metrics._common`), so the
exception and its message are scikit-learn's.
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np
from sklearn import metrics as _skm
from sklearn.utils._param_validation import validate_params

from riptide import _device
from riptide.ml._validation import compute_namespace, on_device
from riptide.ml.metrics._common import device_values, fallback, result_array

__all__ = ["adjusted_rand_score", "pair_confusion_matrix", "rand_score"]

_PARAMS = {"labels_true": ["array-like"], "labels_pred": ["array-like"]}
_MIN_DENSE_CELLS = 1 << 16  # a contingency table this small is always counted densely
_INT64_END = 2.0**63


def _encode(values: Any, xp: types.ModuleType) -> tuple[Any, Any]:
    """Codes 0..k-1 of a 1-D labeling (in sorted label order) and the size of each label's group, int64."""
    _, codes, sizes = xp.unique(values, return_inverse=True, return_counts=True)
    return codes.reshape(-1).astype(xp.int64, copy=False), sizes.astype(xp.int64, copy=False)


def _target_type(n_distinct: int, continuous: bool) -> str:
    """scikit-learn's ``type_of_target`` of a non-empty, finite, 1-D numeric labeling."""
    if continuous:
        return "continuous"
    return "multiclass" if n_distinct > 2 else "binary"


def _labels(obj: Any, xp: types.ModuleType) -> Any:
    """A labeling as an xp array, or None when only scikit-learn can read it (text, objects, ragged lists)."""
    try:
        return device_values(obj, xp)
    except (TypeError, ValueError):
        return None


def _checked_floats(yt: Any, yp: Any, xp: types.ModuleType) -> tuple[bool, bool, bool] | None:
    """(finite, true labels continuous, predicted labels continuous); None when neither labeling is float."""
    if yt.dtype.kind != "f" and yp.dtype.kind != "f":
        return None
    verdicts = []
    for y in (yt, yp):
        if y.dtype.kind == "f":  # type_of_target's test: a label that does not survive NumPy's trip through int64
            outside = (y != xp.floor(y)) | (y >= _INT64_END) | (y < -_INT64_END)  # (CuPy's cast saturates)
            verdicts += [xp.isfinite(y).all(), outside.any()]
        else:
            verdicts += [xp.asarray(True), xp.asarray(False)]
    finite_t, cont_t, finite_p, cont_p = _device.to_host(xp.stack(verdicts)).tolist()  # one read of 4 verdicts
    return finite_t and finite_p, cont_t, cont_p


def _pair_sums(labels_true: Any, labels_pred: Any) -> tuple[int, int, int, int] | None:
    """``(n, sum of squared cells, of squared class sizes, of squared cluster sizes)`` as Python ints, or None
    when scikit-learn must decide on the host."""
    xp = compute_namespace(labels_true, labels_pred)
    yt, yp = _labels(labels_true, xp), _labels(labels_pred, xp)
    if yt is None or yp is None or yt.ndim != 1 or yp.ndim != 1 or yt.shape[0] != yp.shape[0]:
        return None
    n = yt.shape[0]
    if n == 0:
        return 0, 0, 0, 0
    floats = _checked_floats(yt, yp, xp)
    if floats is not None and not floats[0]:
        return None  # NaN or infinity: scikit-learn's error
    code_true, class_sizes = _encode(yt, xp)
    code_pred, cluster_sizes = _encode(yp, xp)
    n_true, n_pred = class_sizes.shape[0], cluster_sizes.shape[0]
    if floats is not None and (floats[1] or floats[2]):  # stacklevel: the caller of the public function
        warnings.warn("Clustering metrics expects discrete values but received "
                      f"{_target_type(n_true, floats[1])} values for label, and "
                      f"{_target_type(n_pred, floats[2])} values for target", UserWarning, stacklevel=5)  # fmt: skip
    key = code_true * n_pred + code_pred  # < n_true * n_pred <= n**2: fits int64
    if n_true * n_pred <= max(n, _MIN_DENSE_CELLS):
        cells = xp.bincount(key, minlength=n_true * n_pred).astype(xp.int64, copy=False)
    else:
        cells = xp.unique(key, return_counts=True)[1].astype(xp.int64, copy=False)  # the non-empty cells only
    sums = xp.stack([(cells * cells).sum(), (class_sizes * class_sizes).sum(), (cluster_sizes * cluster_sizes).sum()])
    cell_squares, class_squares, cluster_squares = _device.to_host(sums).tolist()  # one read of 3 sums
    return n, cell_squares, class_squares, cluster_squares


def _pair_counts(labels_true: Any, labels_pred: Any) -> tuple[int, int, int, int] | None:
    """``(tn, fp, fn, tp)``: ordered pairs of distinct samples, split by whether each labeling groups them."""
    sums = _pair_sums(labels_true, labels_pred)
    if sums is None:
        return None
    n, cells, classes, clusters = sums
    tp = cells - n  # together in both
    fp = clusters - cells  # together in the prediction only
    fn = classes - cells  # together in the truth only
    return n * n - fp - fn - cells, fp, fn, tp


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
def pair_confusion_matrix(labels_true, labels_pred):
    """2 x 2 counts of sample pairs grouped together or apart by each labeling
    (``sklearn.metrics.cluster.pair_confusion_matrix``); rows are the true labeling, column 1 is "together".

    >>> pair_confusion_matrix([0, 0, 1, 2], [0, 0, 1, 1]).tolist()
    [[8, 2], [0, 2]]
    """
    counts = _pair_counts(labels_true, labels_pred)
    if counts is None:
        return fallback(_skm.pair_confusion_matrix, labels_true, labels_pred)
    tn, fp, fn, tp = counts
    return result_array(np.array([[tn, fp], [fn, tp]], dtype=np.int64), on_device(labels_true, labels_pred))


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
def rand_score(labels_true, labels_pred):
    """Rand index: the fraction of sample pairs on which two labelings agree (``sklearn.metrics.rand_score``).

    >>> rand_score([0, 0, 1, 2], [0, 0, 1, 1])
    0.8333333333333334
    """
    counts = _pair_counts(labels_true, labels_pred)
    if counts is None:
        return fallback(_skm.rand_score, labels_true, labels_pred)
    tn, fp, fn, tp = counts
    agree, total = tn + tp, tn + fp + fn + tp
    if agree == total or total == 0:  # one cluster in both, or one sample per cluster in both: a perfect match
        return 1.0
    return float(agree) / float(total)  # as NumPy divides two int64s


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
def adjusted_rand_score(labels_true, labels_pred):
    """Rand index adjusted for chance: 1.0 for identical labelings up to renaming, about 0.0 for random ones,
    negative for discordant ones (``sklearn.metrics.adjusted_rand_score``).

    >>> adjusted_rand_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> adjusted_rand_score([0, 0, 1, 1], [0, 1, 0, 1])
    -0.5
    """
    counts = _pair_counts(labels_true, labels_pred)
    if counts is None:
        return fallback(_skm.adjusted_rand_score, labels_true, labels_pred)
    tn, fp, fn, tp = counts
    if fn == 0 and fp == 0:  # empty, or the same partition
        return 1.0
    # Python ints: the products overflow int64 from about 55,000 samples on
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))
