"""Metrics (``sklearn.metrics``): scores computed where the inputs live; scalars come back as Python floats.

See :mod:`riptide.ml.metrics._common` for which cases run on the device and which are scikit-learn's own.
"""

from riptide.ml.metrics._classification import (
    accuracy_score,
    confusion_matrix,
    f1_score,
    fbeta_score,
    log_loss,
    precision_recall_fscore_support,
    precision_score,
    recall_score,
)
from riptide.ml.metrics._cluster_supervised import adjusted_rand_score, pair_confusion_matrix, rand_score
from riptide.ml.metrics._ranking import roc_auc_score
from riptide.ml.metrics._regression import mean_absolute_error, mean_squared_error, r2_score
from riptide.ml.metrics._unsupervised import silhouette_samples, silhouette_score
from riptide.ml.metrics.pairwise import pairwise_distances

__all__ = [
    "accuracy_score",
    "adjusted_rand_score",
    "confusion_matrix",
    "f1_score",
    "fbeta_score",
    "log_loss",
    "mean_absolute_error",
    "mean_squared_error",
    "pair_confusion_matrix",
    "pairwise_distances",
    "precision_recall_fscore_support",
    "precision_score",
    "r2_score",
    "rand_score",
    "recall_score",
    "roc_auc_score",
    "silhouette_samples",
    "silhouette_score",
]
