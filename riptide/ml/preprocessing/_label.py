"""LabelEncoder and LabelBinarizer: target encodings computed where the labels live.

Both are scikit-learn's classes (subclasses), with the work on a 1-D numeric target moved to the device: the
classes are ``unique`` of the labels, a label's number is its ``searchsorted`` position among them, and a
binarized target is one scatter into an ``n x n_classes`` matrix. A riptide Series of strings (or categories) is
factorized on the device for LabelEncoder; only the distinct labels are read back (``classes_`` is then a NumPy
object array, sorted as scikit-learn sorts Python strings).

Everything else (string or object host arrays, multilabel indicator matrices, ``sparse_output=True``) is handed
to scikit-learn's own code on the host, so results and errors are its own.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
from sklearn import preprocessing as _skp
from sklearn.utils.validation import check_is_fitted

from riptide import _device
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import host_form, input_namespace, to_output

__all__ = ["LabelBinarizer", "LabelEncoder"]


def _numeric_target(y: Any) -> tuple[Any, types.ModuleType] | None:
    """A 1-D numeric label vector in its compute namespace, or None for the host path."""
    from riptide.core import dtypes
    from riptide.core.column import NumericColumn
    from riptide.frame import Series

    if isinstance(y, Series):
        column = y._column
        if isinstance(column, NumericColumn) and not dtypes.is_masked(column.dtype) \
                and column.data.dtype.kind in "biuf":  # fmt: skip
            return column.data, column.xp
        return None
    ns = input_namespace(y)
    if ns is not None:
        return (y, ns) if y.ndim == 1 and y.dtype.kind in "biuf" else None
    if isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "biuf":
        xp = _device.xp()
        return _device.to_device(y, xp), xp
    return None


def _string_target(y: Any) -> Any | None:
    """The column of a riptide Series of strings or categories without missing values, else None."""
    from riptide.core.column import CategoricalColumn, StringColumn
    from riptide.frame import Series

    if isinstance(y, Series) and isinstance(y._column, StringColumn | CategoricalColumn):
        if not bool(y._column.isna().any()):  # one scalar read: missing labels go to scikit-learn (it raises)
            return y._column
    return None


def _finite(a: Any, xp: types.ModuleType) -> bool:
    return a.dtype.kind != "f" or bool(xp.isfinite(a).all())  # one scalar read: NaN/inf labels go to sklearn


class LabelEncoder(DeviceEstimatorMixin, _skp.LabelEncoder):
    """Encode target labels with values between 0 and n_classes-1 (``sklearn.preprocessing.LabelEncoder``).

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.preprocessing import LabelEncoder
    >>> enc = LabelEncoder().fit(np.array([2, 6, 2, 1]))
    >>> enc.classes_.tolist(), enc.transform(np.array([1, 6])).tolist()
    ([1, 2, 6], [0, 2])
    """

    def fit(self, y):
        """Find the classes of y."""
        numeric = _numeric_target(y)
        if numeric is not None and _finite(numeric[0], numeric[1]):
            a, xp = numeric
            self.classes_ = xp.unique(a)
            return self._publish(y)
        column = _string_target(y)
        if column is not None:
            from riptide.core.kernels.factorize import factorize
            from riptide.core.ops.grouping import first_row_of_each

            codes, n = factorize(column)
            values = column.take(first_row_of_each(codes, n, column.xp)).to_arrow().to_pylist()
            classes = np.empty(len(values), dtype=object)
            classes[:] = sorted(values)
            self.classes_ = classes
            return self
        return super().fit(host_form(y))

    def fit_transform(self, y):
        """Fit and return the encoded labels."""
        return self.fit(y).transform(y)

    def transform(self, y):
        """The class number of each label (ValueError for a label not seen in fit)."""
        check_is_fitted(self)
        numeric = _numeric_target(y)
        if numeric is not None and self.classes_.dtype.kind in "biuf" and _finite(numeric[0], numeric[1]):
            a, xp = numeric
            classes = self._fitted("classes_", xp)
            k = classes.shape[0]
            pos = xp.minimum(xp.searchsorted(classes, a), k - 1)
            known = classes[pos] == a
            if not bool(known.all()):  # one scalar read: any label not seen in fit?
                unseen = list(_device.to_host(xp.unique(a[~known])))
                raise ValueError(f"y contains previously unseen labels: {unseen}")
            return to_output(pos.astype(np.int64), y)
        column = _string_target(y)
        if column is not None and self.classes_.dtype == object:
            from riptide.core.kernels.factorize import factorize
            from riptide.core.ops.grouping import first_row_of_each

            xp = column.xp
            codes, n = factorize(column)
            values = column.take(first_row_of_each(codes, n, xp)).to_arrow().to_pylist()
            position = {c: i for i, c in enumerate(self.classes_)}
            unseen = sorted(v for v in values if v not in position)
            if unseen:
                raise ValueError(f"y contains previously unseen labels: {unseen}")
            table = _device.to_device(np.array([position[v] for v in values], dtype=np.int64), xp)
            return to_output(table[codes], y)
        return _to_namespace(super().transform(host_form(y)), y)

    def inverse_transform(self, y):
        """Labels back from class numbers."""
        check_is_fitted(self)
        numeric = _numeric_target(y)
        if numeric is not None and self.classes_.dtype.kind in "biuf":
            a, xp = numeric
            if a.shape[0] == 0:
                return to_output(xp.asarray([]), y)
            bad = (a < 0) | (a >= self.classes_.shape[0]) | (a != xp.floor(a) if a.dtype.kind == "f" else False)
            if bool(bad.any()):  # one scalar read: out-of-range numbers go to scikit-learn, which names them
                return super().inverse_transform(host_form(y))
            return to_output(self._fitted("classes_", xp)[a.astype(np.int64)], y)
        return super().inverse_transform(host_form(y))


def _to_namespace(result: Any, y: Any) -> Any:
    xp = input_namespace(y)
    if xp is None or xp is np or not isinstance(result, np.ndarray) or result.dtype == object:
        return result
    return _device.to_device(result, xp)


class LabelBinarizer(DeviceEstimatorMixin, _skp.LabelBinarizer):
    """Binarize labels in a one-vs-all fashion (``sklearn.preprocessing.LabelBinarizer``).

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.preprocessing import LabelBinarizer
    >>> lb = LabelBinarizer().fit(np.array([1, 2, 6, 4, 2]))
    >>> lb.classes_.tolist(), lb.transform(np.array([1, 6])).tolist()
    ([1, 2, 4, 6], [[1, 0, 0, 0], [0, 0, 0, 1]])
    """

    def _device_target(self, y: Any) -> tuple[Any, types.ModuleType] | None:
        if self.sparse_output:
            return None
        numeric = _numeric_target(y)
        if numeric is None or numeric[0].shape[0] == 0:
            return None
        a, xp = numeric
        if a.dtype.kind == "f" and not bool((a == xp.floor(a)).all()):  # one scalar read: continuous target?
            return None  # scikit-learn raises for a continuous target
        return a, xp

    def fit(self, y):
        """Find the classes of y."""
        found = self._device_target(y)
        if found is None:
            return super().fit(host_form(y))
        if self.neg_label >= self.pos_label:
            raise ValueError(f"neg_label={self.neg_label} must be strictly less than pos_label={self.pos_label}.")
        a, xp = found
        classes = xp.unique(a)
        self.y_type_ = "multiclass" if classes.shape[0] > 2 else "binary"
        self.sparse_input_ = False
        self.classes_ = classes
        return self._publish(y)

    def fit_transform(self, y):
        """Fit and binarize y."""
        return self.fit(y).transform(y)

    def transform(self, y):
        """One column per class (one column for a binary target): ``pos_label`` where the label is that class."""
        check_is_fitted(self)
        found = self._device_target(y)
        if found is None or self.y_type_.startswith("multilabel") or self.classes_.dtype.kind not in "biuf":
            return _to_namespace(super().transform(host_form(y)), y)
        a, xp = found
        classes = self._fitted("classes_", xp)
        k = classes.shape[0]
        n = a.shape[0]
        neg, pos_label = self.neg_label, self.pos_label
        # scikit-learn decides binary vs multiclass from the labels being transformed (at most two distinct)
        binary = int(xp.unique(a).shape[0]) <= 2  # one scalar read: the target type of y
        if binary and k == 1:
            return to_output(xp.full((n, 1), neg, dtype=np.int64), y)
        pos = xp.minimum(xp.searchsorted(classes, a), k - 1)
        known = classes[pos] == a
        # the 0/1 indicator matrix, then neg_label over its zeros and pos_label over its ones; a binary target
        # keeps the column of the second class only
        Y = xp.zeros((n, k), dtype=np.int64)
        rows = xp.arange(n, dtype=np.int64)
        Y[rows[known], pos[known]] = 1
        if binary and k == 2:
            Y = Y[:, -1:]
        out = xp.where(Y == 1, pos_label, neg).astype(np.int64)
        return to_output(out, y)

    def inverse_transform(self, Y, threshold=None):
        """Labels from a binarized matrix (or decision values / probabilities)."""
        check_is_fitted(self)
        xp = input_namespace(Y)
        if xp is None or self.y_type_.startswith("multilabel") or self.sparse_input_ or Y.ndim != 2:
            result = super().inverse_transform(host_form(Y), threshold)
            return _to_namespace(result, Y)
        A = xp.asarray(Y)
        classes = self._fitted("classes_", xp)
        if self.y_type_ == "multiclass":
            return classes[xp.argmax(A, axis=1)]
        if threshold is None:
            threshold = (self.pos_label + self.neg_label) / 2.0
        if classes.shape[0] == 1:
            return xp.repeat(classes, A.shape[0])
        return classes[(A[:, 0] > threshold).astype(np.int64)]
