"""Splitters and train_test_split: scikit-learn's own index draws, applied to the data where it lives.

Which rows go where is decided on the host by scikit-learn's own code from the sample count (and, to stratify,
the labels, read back once): its draws come from NumPy's ``RandomState``, so running that very code is the only
way to give the same splits for the same ``random_state``. The index arrays then move to the device once per
split and the rows are gathered there, so CuPy arrays and riptide objects never leave the device.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn import model_selection as _skms
from sklearn.model_selection import KFold
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_consistent_length

from riptide import _device
from riptide.ml._validation import host_form, input_namespace

__all__ = ["KFold", "StratifiedKFold", "train_test_split", "take_rows"]


def take_rows(obj: Any, index: np.ndarray, cache: dict | None = None) -> Any:
    """Rows ``index`` (host integers) of obj, gathered on obj's device; ``cache`` keeps one device copy of index
    per namespace."""
    if obj is None:
        return None
    xp = input_namespace(obj)
    if xp is None:
        return _safe_indexing(obj, index)
    if cache is not None and xp in cache:
        moved = cache[xp]
    else:
        moved = _device.to_device(np.asarray(index, dtype=np.int64), xp)
        if cache is not None:
            cache[xp] = moved
    from riptide.frame import DataFrame, Series

    if isinstance(obj, DataFrame | Series):
        return obj.iloc[moved]
    return obj[moved]


class StratifiedKFold(_skms.StratifiedKFold):
    """``sklearn.model_selection.StratifiedKFold`` accepting device labels (read back once to draw the folds)."""

    def split(self, X, y, groups=None):
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        return super().split(np.zeros((n, 1)), host_form(y), groups)  # device labels are read back once


def train_test_split(*arrays, test_size=None, train_size=None, random_state=None, shuffle=True, stratify=None):
    """Split arrays into random train and test subsets (``sklearn.model_selection.train_test_split``).

    The rows chosen are scikit-learn's for the same ``random_state``.

    >>> import numpy as np
    >>> X_train, X_test = train_test_split(np.arange(10), test_size=0.3, random_state=0)
    >>> X_test.tolist()
    [2, 8, 4]
    """
    if len(arrays) == 0:
        raise ValueError("At least one array required as input")
    check_consistent_length(*arrays)
    first = arrays[0]
    n = first.shape[0] if hasattr(first, "shape") else len(first)
    train, test = _skms.train_test_split(np.arange(n), test_size=test_size, train_size=train_size,
                                         random_state=random_state, shuffle=shuffle,
                                         stratify=host_form(stratify))  # fmt: skip
    out = []
    for a in arrays:
        out.extend([take_rows(a, train), take_rows(a, test)])
    return out
