"""Classification metrics: accuracy, the confusion matrix, precision/recall/F, log loss.

The sample-sized work runs on the device in a handful of array operations: the labels are encoded against the
sorted union of classes (``searchsorted``), and every count that scikit-learn derives from a (multilabel)
confusion matrix is one weighted ``bincount``. What remains is ``n_classes`` numbers per statistic; those are read
back once and finished with scikit-learn's own helpers for the zero-division rules and their warnings, so the
scores and the ``UndefinedMetricWarning``s are scikit-learn's. Multilabel and multi-output inputs take the
host path (see :mod:`riptide.ml.metrics._common`).
"""

from __future__ import annotations

import types
import warnings
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
from sklearn import metrics as _skm
from sklearn.metrics._classification import _check_targets, _nanaverage, _prf_divide
from sklearn.utils._param_validation import Interval, Options, StrOptions, validate_params

from riptide import _device
from riptide.ml.metrics._common import device_values, fallback, on_device, result_array, weights

__all__ = ["accuracy_score", "confusion_matrix", "precision_recall_fscore_support", "precision_score",
           "recall_score", "f1_score", "fbeta_score", "log_loss"]  # fmt: skip


@dataclass
class _Targets:
    xp: types.ModuleType  # where the labels live (NumPy for text labels)
    out: types.ModuleType | None  # where array results go (None: NumPy for host callers)
    y_type: str
    y_true: Any
    y_pred: Any
    weight: Any  # float64 xp vector or None
    raw_weight: Any  # the weights as given (their dtype decides the confusion matrix's)
    classes: Any  # sorted union of the labels, in xp


def _integral(y: Any, xp: types.ModuleType) -> bool:
    if y.dtype.kind != "f":
        return True
    return bool((xp.isfinite(y) & (y == xp.floor(y))).all())  # one scalar read: labels, not continuous values


def _class_targets(y_true: Any, y_pred: Any, sample_weight: Any) -> _Targets | None:
    """Binary/multiclass labels ready for the device path, or None when scikit-learn must decide on the host."""
    out = on_device(y_true, y_pred, sample_weight)
    if out is None:
        y_type, classes, yt, yp, _ = _check_targets(y_true, y_pred, sample_weight)  # scikit-learn's errors
        if y_type not in ("binary", "multiclass"):
            return None
        numeric = yt.dtype.kind in "biuf" and yp.dtype.kind in "biuf"
        xp = _device.xp() if numeric else np
        w = weights(sample_weight, yt.shape[0], xp)
        if w is False:  # weights that are not numbers: scikit-learn's error
            return None
        raw = None if sample_weight is None else np.asarray(sample_weight)
        return _Targets(xp, None, y_type, _device.to_device(yt, xp) if numeric else yt,
                        _device.to_device(yp, xp) if numeric else yp, w, raw,
                        _device.to_device(np.asarray(classes), xp) if numeric else np.asarray(classes))  # fmt: skip
    xp = out
    yt, yp = device_values(y_true, xp), device_values(y_pred, xp)
    if yt is None or yp is None or yt.ndim != 1 or yp.ndim != 1 or yt.shape != yp.shape or yt.shape[0] == 0:
        return None
    if not (_integral(yt, xp) and _integral(yp, xp)):
        return None  # continuous targets: scikit-learn raises its own error
    w = weights(sample_weight, yt.shape[0], xp)
    if w is False:
        return None
    classes = xp.unique(xp.concatenate([yt, yp]))
    raw = None if sample_weight is None else device_values(sample_weight, xp)
    return _Targets(xp, out, "binary" if classes.shape[0] <= 2 else "multiclass", yt, yp, w, raw, classes)


def _positions(y: Any, labels: Any, xp: types.ModuleType) -> Any:
    """Position of each value of y in ``labels`` (any order, as given), -1 where it is not one of them."""
    order = xp.argsort(labels)
    ordered = labels[order]
    at = xp.searchsorted(ordered, y)
    inside = at < ordered.shape[0]
    at = xp.where(inside, at, 0)
    found = inside & (ordered[at] == y)
    return xp.where(found, order[at], -1)


def _counts(index: Any, weight: Any, n: int, xp: types.ModuleType) -> Any:
    """Weighted count of each index 0..n-1 (entries -1 ignored), float64."""
    valid = index >= 0
    w = valid.astype(xp.float64) if weight is None else xp.where(valid, weight, 0.0)
    return xp.bincount(xp.where(valid, index, 0), weights=w, minlength=n)[:n]


def _labels_array(labels: Any, t: _Targets) -> Any:
    """User-given labels in the namespace of the targets (labels are parameters: host values)."""
    labels = np.asarray(_device.to_host(labels) if _device.is_device_array(labels) else labels)
    if t.xp is np or labels.dtype.kind not in "biuf":
        return labels
    return _device.to_device(labels, t.xp)


@validate_params({"y_true": ["array-like", "sparse matrix"], "y_pred": ["array-like", "sparse matrix"],
                  "normalize": ["boolean"], "sample_weight": ["array-like", None]},
                 prefer_skip_nested_validation=True)  # fmt: skip
def accuracy_score(y_true, y_pred, *, normalize=True, sample_weight=None):
    """Fraction (or weighted count) of exact matches (``sklearn.metrics.accuracy_score``).

    >>> accuracy_score([0, 1, 2, 3], [0, 2, 1, 3])
    0.5
    """
    t = _class_targets(y_true, y_pred, sample_weight)
    if t is None:
        return fallback(_skm.accuracy_score, y_true, y_pred, normalize=normalize, sample_weight=sample_weight)
    xp = t.xp
    hit = (t.y_true == t.y_pred).astype(xp.float64)
    if t.weight is None:
        return float(hit.mean() if normalize else hit.sum())  # one scalar read: the score
    total = (hit * t.weight).sum()
    return float(total / t.weight.sum() if normalize else total)  # one scalar read: the score


@validate_params({"y_true": ["array-like"], "y_pred": ["array-like"], "labels": ["array-like", None],
                  "sample_weight": ["array-like", None], "normalize": [StrOptions({"true", "pred", "all"}), None]},
                 prefer_skip_nested_validation=True)  # fmt: skip
def confusion_matrix(y_true, y_pred, *, labels=None, sample_weight=None, normalize=None):
    """Counts of (true, predicted) label pairs (``sklearn.metrics.confusion_matrix``); rows are true labels.

    >>> confusion_matrix([2, 0, 2, 2, 0, 1], [0, 0, 2, 2, 0, 2]).tolist()
    [[2, 0, 0], [0, 0, 1], [1, 0, 2]]
    """
    t = _class_targets(y_true, y_pred, sample_weight)
    if t is None:
        return fallback(_skm.confusion_matrix, y_true, y_pred, labels=labels, sample_weight=sample_weight,
                        normalize=normalize)  # fmt: skip
    xp = t.xp
    if labels is None:
        labels = t.classes
    else:
        labels = _labels_array(labels, t)
        if labels.size == 0:
            raise ValueError("'labels' should contain at least one label.")
        if not bool((_positions(t.y_true, labels, xp) >= 0).any()):  # one scalar read: the check's verdict
            raise ValueError("At least one label specified must be in y_true")
    n = labels.shape[0]
    row, col = _positions(t.y_true, labels, xp), _positions(t.y_pred, labels, xp)
    cell = xp.where((row >= 0) & (col >= 0), row * n + col, -1)
    cm = _counts(cell, t.weight, n * n, xp).reshape(n, n)
    integral = t.raw_weight is None or np.dtype(t.raw_weight.dtype).kind in "iub"
    cm = cm.astype(xp.int64) if integral else cm
    with np.errstate(all="ignore"):
        if normalize == "true":
            cm = cm / cm.sum(axis=1, keepdims=True)
        elif normalize == "pred":
            cm = cm / cm.sum(axis=0, keepdims=True)
        elif normalize == "all":
            cm = cm / cm.sum()
        if normalize is not None:
            cm = xp.nan_to_num(cm)
    if cm.shape == (1, 1):
        warnings.warn("A single label was found in 'y_true' and 'y_pred'. For the confusion matrix to have the "
                      "correct shape, use the 'labels' parameter to pass all known labels.", UserWarning)  # fmt: skip
    return result_array(_device.to_host(cm), t.out) if t.out is None else cm


_PRF_PARAMS = {
    "y_true": ["array-like", "sparse matrix"],
    "y_pred": ["array-like", "sparse matrix"],
    "labels": ["array-like", None],
    "pos_label": [Real, str, "boolean", None],
    "average": [StrOptions({"micro", "macro", "samples", "weighted", "binary"}), None],
    "sample_weight": ["array-like", None],
    "zero_division": [Options(Real, {0.0, 1.0}), "nan", StrOptions({"warn"})],
}


def _set_wise_labels(t: _Targets, average: Any, labels: Any, pos_label: Any) -> Any:
    """scikit-learn's label rules for the set-wise metrics (binary average, pos_label)."""
    average_options = (None, "micro", "macro", "weighted", "samples")
    if average == "binary":
        if t.y_type == "binary":
            present = _device.to_host(t.classes)  # a few values: the classes
            if pos_label not in present.tolist() and len(present) >= 2:
                raise ValueError(f"pos_label={pos_label} is not a valid label. It should be one of {present}")
            return [pos_label]
        options = [o for o in average_options if o != "samples"]
        raise ValueError("Target is %s but average='binary'. Please choose another average setting, one of %r."
                         % (t.y_type, options))  # fmt: skip
    if pos_label not in (None, 1):
        warnings.warn("Note that pos_label (set to %r) is ignored when average != 'binary' (got %r). You may use "
                      "labels=[pos_label] to specify a single positive class." % (pos_label, average),
                      UserWarning)  # fmt: skip
    return labels


def _prfs(y_true, y_pred, beta, labels, pos_label, average, warn_for, sample_weight, zero_division):
    t = _class_targets(y_true, y_pred, sample_weight)
    if t is None or average == "samples":
        return None, None
    labels = _set_wise_labels(t, average, labels, pos_label)
    xp = t.xp
    if labels is None:
        labels = t.classes
    else:
        labels = _labels_array(labels, t)
    n = labels.shape[0]
    true_at, pred_at = _positions(t.y_true, labels, xp), _positions(t.y_pred, labels, xp)
    tp_at = xp.where(true_at == pred_at, true_at, -1)
    sums = xp.stack([_counts(tp_at, t.weight, n, xp), _counts(pred_at, t.weight, n, xp),
                     _counts(true_at, t.weight, n, xp)])  # fmt: skip
    tp_sum, pred_sum, true_sum = _device.to_host(sums)  # one read of 3 x n_labels numbers
    # scikit-learn counts in integers without weights, except when no sample at all is predicted right: its
    # multilabel confusion matrix is then float
    if t.weight is None and bool((t.y_true == t.y_pred).any()):  # one scalar read: that dtype rule
        tp_sum, pred_sum, true_sum = (s.astype(np.int64) for s in (tp_sum, pred_sum, true_sum))
    if average == "micro":
        tp_sum, pred_sum, true_sum = (np.array([s.sum()]) for s in (tp_sum, pred_sum, true_sum))
    precision = _prf_divide(tp_sum, pred_sum, "precision", "predicted", average, warn_for, zero_division)
    recall = _prf_divide(tp_sum, true_sum, "recall", "true", average, warn_for, zero_division)
    if np.isposinf(beta):
        f_score = recall
    elif beta == 0:
        f_score = precision
    else:
        denominator = beta**2 * true_sum.astype(np.float64) + pred_sum.astype(np.float64)
        f_score = _prf_divide((1 + beta**2) * tp_sum.astype(np.float64), denominator, "f-score",
                              "true nor predicted", average, warn_for, zero_division)  # fmt: skip
    if average is not None:
        w = true_sum if average == "weighted" else None
        return (float(_nanaverage(precision, weights=w)), float(_nanaverage(recall, weights=w)),
                float(_nanaverage(f_score, weights=w)), None), t.out  # fmt: skip
    return (precision, recall, f_score, true_sum), t.out


@validate_params({**_PRF_PARAMS, "beta": [Interval(Real, 0.0, None, closed="both")],
                  "warn_for": [list, tuple, set]}, prefer_skip_nested_validation=True)  # fmt: skip
def precision_recall_fscore_support(y_true, y_pred, *, beta=1.0, labels=None, pos_label=1, average=None,
                                    warn_for=("precision", "recall", "f-score"), sample_weight=None,
                                    zero_division="warn"):  # fmt: skip
    """Precision, recall, F-beta and support (``sklearn.metrics.precision_recall_fscore_support``).

    >>> p, r, f, s = precision_recall_fscore_support([0, 1, 1, 0], [0, 1, 0, 0], average="binary")
    >>> p, r, round(f, 4), s
    (1.0, 0.5, 0.6667, None)
    """
    result, out = _prfs(y_true, y_pred, beta, labels, pos_label, average, warn_for, sample_weight, zero_division)
    if result is None:
        return fallback(_skm.precision_recall_fscore_support, y_true, y_pred, beta=beta, labels=labels,
                        pos_label=pos_label, average=average, warn_for=warn_for, sample_weight=sample_weight,
                        zero_division=zero_division)  # fmt: skip
    return tuple(result_array(r, out) for r in result)


def _one_score(index: int, name: str, y_true, y_pred, beta, labels, pos_label, average, sample_weight,
               zero_division):  # fmt: skip
    result, out = _prfs(y_true, y_pred, beta, labels, pos_label, average, (name,), sample_weight, zero_division)
    if result is None:
        result = fallback(_skm.precision_recall_fscore_support, y_true, y_pred, beta=beta, labels=labels,
                          pos_label=pos_label, average=average, warn_for=(name,), sample_weight=sample_weight,
                          zero_division=zero_division)  # fmt: skip
        return result[index]
    return result_array(result[index], out)


@validate_params(_PRF_PARAMS, prefer_skip_nested_validation=True)
def precision_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary", sample_weight=None,
                    zero_division="warn"):  # fmt: skip
    """Precision ``tp / (tp + fp)`` (``sklearn.metrics.precision_score``).

    >>> precision_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="macro")
    0.2222222222222222
    """
    return _one_score(0, "precision", y_true, y_pred, 1.0, labels, pos_label, average, sample_weight,
                      zero_division)  # fmt: skip


@validate_params(_PRF_PARAMS, prefer_skip_nested_validation=True)
def recall_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary", sample_weight=None,
                 zero_division="warn"):  # fmt: skip
    """Recall ``tp / (tp + fn)`` (``sklearn.metrics.recall_score``).

    >>> recall_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="micro")
    0.3333333333333333
    """
    return _one_score(1, "recall", y_true, y_pred, 1.0, labels, pos_label, average, sample_weight, zero_division)


@validate_params(_PRF_PARAMS, prefer_skip_nested_validation=True)
def f1_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary", sample_weight=None,
             zero_division="warn"):  # fmt: skip
    """F1, the harmonic mean of precision and recall (``sklearn.metrics.f1_score``).

    >>> f1_score([0, 1, 1, 0], [0, 1, 0, 0])
    0.6666666666666666
    """
    return _one_score(2, "f-score", y_true, y_pred, 1.0, labels, pos_label, average, sample_weight,
                      zero_division)  # fmt: skip


@validate_params({**_PRF_PARAMS, "beta": [Interval(Real, 0.0, None, closed="both")]},
                 prefer_skip_nested_validation=True)  # fmt: skip
def fbeta_score(y_true, y_pred, *, beta, labels=None, pos_label=1, average="binary", sample_weight=None,
                zero_division="warn"):  # fmt: skip
    """F-beta score (``sklearn.metrics.fbeta_score``).

    >>> round(fbeta_score([0, 1, 1, 0], [0, 1, 0, 0], beta=2), 6)
    0.555556
    """
    return _one_score(2, "f-score", y_true, y_pred, beta, labels, pos_label, average, sample_weight,
                      zero_division)  # fmt: skip


@validate_params({"y_true": ["array-like"], "y_proba": ["array-like", None], "normalize": ["boolean"],
                  "sample_weight": ["array-like", None], "labels": ["array-like", None]},
                 prefer_skip_nested_validation=True)  # fmt: skip
def log_loss(y_true, y_proba=None, *, normalize=True, sample_weight=None, labels=None):
    """Cross-entropy of predicted probabilities (``sklearn.metrics.log_loss``).

    >>> round(log_loss(["spam", "ham", "ham", "spam"], [[.1, .9], [.9, .1], [.8, .2], [.35, .65]]), 5)
    0.21616
    """
    xp = on_device(y_true, y_proba, sample_weight)
    P = None if xp is None else device_values(y_proba, xp)
    Y = None if xp is None else device_values(y_true, xp)
    w = None if P is None else weights(sample_weight, P.shape[0], xp)
    ok = (P is not None and Y is not None and labels is None and w is not False and P.ndim == 2
          and P.shape[1] >= 2 and Y.ndim == 1 and Y.shape[0] == P.shape[0] and P.shape[0] > 0)  # fmt: skip
    if ok:
        P = P if P.dtype.kind == "f" else P.astype(xp.float64)
        classes = xp.unique(Y)
        row_sum = P.sum(axis=1)
        eps = np.finfo(P.dtype).eps
        checks = xp.stack([(P > 1).any(), (P < 0).any(), ~xp.isfinite(P).all(),
                           ~(xp.abs(row_sum - 1) <= np.sqrt(eps) * 1.0 + 1e-8).all()])  # fmt: skip
        too_big, too_small, bad, unnormalized = _device.to_host(checks).tolist()  # one read of four verdicts
        ok = not (too_big or too_small or bad or unnormalized) and classes.shape[0] == P.shape[1]
    if not ok:
        return fallback(_skm.log_loss, y_true, y_proba, normalize=normalize, sample_weight=sample_weight,
                        labels=labels)  # fmt: skip
    code = xp.searchsorted(classes, Y)
    picked = xp.clip(P, eps, 1 - eps)[xp.arange(P.shape[0]), code]
    loss = -xp.log(picked)
    if w is None:
        return float(loss.mean() if normalize else loss.sum())  # one scalar read: the score
    total = (loss * w).sum()
    return float(total / w.sum() if normalize else total)  # one scalar read: the score
