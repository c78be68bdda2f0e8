"""ROC AUC for binary targets on the device.

The ROC curve is a sort of the scores (descending) and two cumulative sums (weighted true and false positives);
only the last entry of each run of tied scores is a threshold, and the area is the trapezoid rule over those
points, as in scikit-learn's ``roc_curve`` + ``auc`` (dropping collinear points there does not change the area).
Multiclass targets (``multi_class='ovr'/'ovo'``), multilabel indicators and ``max_fpr`` take scikit-learn's host
path (see :mod:`riptide.ml.metrics._common`).
"""

from __future__ import annotations

from numbers import Real

from sklearn import metrics as _skm
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from riptide.ml.metrics._common import device_values, fallback, on_device, weights

__all__ = ["roc_auc_score"]


@validate_params({"y_true": ["array-like"], "y_score": ["array-like"],
                  "average": [StrOptions({"micro", "macro", "samples", "weighted"}), None],
                  "sample_weight": ["array-like", None], "max_fpr": [Interval(Real, 0.0, 1, closed="right"), None],
                  "multi_class": [StrOptions({"raise", "ovr", "ovo"})], "labels": ["array-like", None]},
                 prefer_skip_nested_validation=True)  # fmt: skip
def roc_auc_score(y_true, y_score, *, average="macro", sample_weight=None, max_fpr=None, multi_class="raise",
                  labels=None):  # fmt: skip
    """Area under the ROC curve (``sklearn.metrics.roc_auc_score``).

    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    xp = on_device(y_true, y_score, sample_weight)
    args = dict(average=average, sample_weight=sample_weight, max_fpr=max_fpr, multi_class=multi_class,
                labels=labels)  # fmt: skip
    if xp is None or max_fpr is not None:
        return fallback(_skm.roc_auc_score, y_true, y_score, **args)
    y, s = device_values(y_true, xp), device_values(y_score, xp)
    if y is None or s is None or y.ndim != 1 or s.ndim != 1 or y.shape != s.shape or y.shape[0] == 0:
        return fallback(_skm.roc_auc_score, y_true, y_score, **args)
    w = weights(sample_weight, y.shape[0], xp)
    if w is False:
        return fallback(_skm.roc_auc_score, y_true, y_score, **args)
    classes = xp.unique(y)
    finite = xp.isfinite(s).all()
    if w is not None:
        finite &= xp.isfinite(w).all()
    if classes.shape[0] != 2 or not bool(finite):  # one scalar read: the finiteness check
        return fallback(_skm.roc_auc_score, y_true, y_score, **args)
    order = xp.argsort(-s)
    s = s[order]
    positive = (y[order] == classes[1]).astype(xp.float64)
    w = xp.ones_like(positive) if w is None else w[order]
    tps = xp.cumsum(positive * w)
    fps = xp.cumsum((1.0 - positive) * w)
    last_of_tie = xp.concatenate([s[1:] != s[:-1], xp.ones(1, dtype=bool)])
    tps, fps = tps[last_of_tie], fps[last_of_tie]
    zero = xp.zeros(1, dtype=xp.float64)
    tpr = xp.concatenate([zero, tps]) / tps[-1]
    fpr = xp.concatenate([zero, fps]) / fps[-1]
    area = ((fpr[1:] - fpr[:-1]) * (tpr[1:] + tpr[:-1])).sum() / 2
    return float(area)  # one scalar read: the score
