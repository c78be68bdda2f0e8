"""Model selection (``sklearn.model_selection``): scikit-learn's splits, with the data kept on the device.

See :mod:`riptide.ml.model_selection._split` (how rows are chosen) and :mod:`riptide.ml.model_selection._validation`
(fitting and scoring per fold).
"""

from riptide.ml.model_selection._split import KFold, StratifiedKFold, train_test_split
from riptide.ml.model_selection._validation import (
    GridSearchCV,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
)

__all__ = [
    "GridSearchCV",
    "KFold",
    "RandomizedSearchCV",
    "StratifiedKFold",
    "cross_val_score",
    "cross_validate",
    "train_test_split",
]
