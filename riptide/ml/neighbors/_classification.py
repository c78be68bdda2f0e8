"""KNeighborsClassifier: scikit-learn's k-nearest-neighbours vote, the search and the vote on the device.

The vote of each query is one weighted ``bincount`` over ``query * n_classes + class`` (no Python loop over
queries or neighbours); the predicted class is the first class of largest vote, i.e. the smallest class label among
ties, as scikit-learn's mode and ``argmax`` give. Labels of any type are encoded on the host with ``np.unique``
(scikit-learn's ``classes_``); numeric labels given on the device stay there.
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin, _fit_context
from sklearn.exceptions import DataConversionWarning
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_y, check_is_fitted

from riptide import _device
from riptide.ml._validation import (
    FLOAT_DTYPES,
    host_form,
    input_namespace,
    on_device,
    validate_data,
)
from riptide.ml.neighbors._base import KNeighborsMixin, NeighborsBase
from riptide.ml.neighbors._weights import neighbor_weights

__all__ = ["KNeighborsClassifier"]


class KNeighborsClassifier(KNeighborsMixin, ClassifierMixin, NeighborsBase):
    """Classifier implementing the k-nearest neighbours vote (scikit-learn's ``KNeighborsClassifier``).

    Parameters are scikit-learn's: ``n_neighbors=5``, ``weights`` ('uniform', 'distance' or a callable taking the
    distances array), ``algorithm`` and ``leaf_size`` (accepted; the search is always the exact brute force),
    ``p``, ``metric``, ``metric_params``, ``n_jobs`` (no effect).

    Attributes
    ----------
    classes_ : array of shape (n_classes,) or list of arrays (one per output)
    effective_metric_, effective_metric_params_, n_features_in_, feature_names_in_, n_samples_fit_, outputs_2d_

    Examples
    --------
    >>> from riptide.ml.neighbors import KNeighborsClassifier
    >>> clf = KNeighborsClassifier(n_neighbors=3).fit([[0], [1], [2], [3]], [0, 0, 1, 1])
    >>> clf.predict([[1.1]]).tolist()
    [0]
    >>> clf.predict_proba([[0.9]]).tolist()
    [[0.6666666666666666, 0.3333333333333333]]
    """

    _parameter_constraints: dict = {**NeighborsBase._parameter_constraints}
    _parameter_constraints.pop("radius")
    _parameter_constraints.update({"weights": [StrOptions({"uniform", "distance"}), callable, None]})

    def __init__(self, n_neighbors=5, *, weights="uniform", algorithm="auto", leaf_size=30, p=2,
                 metric="minkowski", metric_params=None, n_jobs=None):  # fmt: skip
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.p = p
        self.metric = metric
        self.metric_params = metric_params
        self.n_jobs = n_jobs

    def _targets(self, X: Any, y: Any) -> tuple[Any, list, Any, types.ModuleType]:
        """Validated X, the classes of each output and the class numbers ``(n_samples, n_outputs)``."""
        if input_namespace(y) is None:  # host labels of any type: scikit-learn's own checks and encoding
            y_host = _check_y(y, multi_output=True, estimator=self) if y is not None else None
            if y_host is not None and y_host.ndim == 2 and y_host.shape[1] == 1:
                warnings.warn("A column-vector y was passed when a 1d array was expected. Please change the shape "
                              "of y to (n_samples,), for example using ravel().", DataConversionWarning,
                              stacklevel=3)  # fmt: skip
                y_host = y_host.ravel()
            X, _, xp = validate_data(self, X, None if y_host is None else np.zeros(len(y_host)), reset=True,
                                     dtype=FLOAT_DTYPES)  # fmt: skip
            Y = np.asarray(y_host)
            if Y.ndim == 1:
                Y = Y.reshape(-1, 1)
            check_classification_targets(Y if Y.shape[1] > 1 else Y[:, 0])
            classes, codes = [], np.empty(Y.shape, dtype=np.int64)
            for j in range(Y.shape[1]):  # a loop over outputs
                classes_j, codes[:, j] = np.unique(Y[:, j], return_inverse=True)
                classes.append(classes_j)
            return X, classes, _device.to_device(codes, xp), xp
        X, Y, xp = validate_data(self, X, y, reset=True, dtype=FLOAT_DTYPES, multi_output=True)
        if Y.dtype.kind == "f" and not bool((Y == xp.floor(Y)).all()):  # one scalar read: labels, not values
            check_classification_targets(host_form(y))  # scikit-learn's "Unknown label type" error
        Y = Y.reshape(-1, 1) if Y.ndim == 1 else Y
        classes, codes = [], xp.empty(Y.shape, dtype=xp.int64)
        for j in range(Y.shape[1]):
            classes_j = xp.unique(Y[:, j])
            codes[:, j] = xp.searchsorted(classes_j, Y[:, j])
            classes.append(classes_j)
        return X, classes, codes, xp

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Fit the k-nearest neighbours classifier from the training dataset."""
        X_given = X
        X, classes, codes, xp = self._targets(X, y)
        self.outputs_2d_ = codes.shape[1] > 1
        if self.outputs_2d_:
            self.classes_ = [_device.to_host(c) for c in classes]  # a list: kept on the host (it is small)
        else:
            self.classes_ = classes[0]
        self._y = codes
        self._n_classes = [int(c.shape[0]) for c in classes]
        self._fit_rows(X_given, X)
        return self._publish(X_given)

    def _votes(self, X: Any) -> tuple[list, Any, types.ModuleType]:
        """Per output, the weighted votes ``(n_queries, n_classes)`` (not normalised)."""
        check_is_fitted(self)
        if self.weights == "uniform" or self.weights is None:
            dist, ind, xp = self._kneighbors(X, None, False)
            weights = xp.ones(ind.shape, dtype=xp.float64)
        else:
            dist, ind, xp = self._kneighbors(X, None, True)
            weights = neighbor_weights(dist, self.weights, xp, self._out(dist, X) if callable(self.weights) else None)
        codes = _device.to_device(self._y, xp)
        n_queries = ind.shape[0]
        row_base = xp.arange(n_queries, dtype=xp.int64)[:, None]
        votes = []
        for j, n_classes in enumerate(self._n_classes):  # a loop over outputs
            flat = (row_base * n_classes + codes[:, j][ind]).ravel()
            counts = xp.bincount(flat, weights=weights.ravel().astype(xp.float64), minlength=n_queries * n_classes)
            votes.append(counts.reshape(n_queries, n_classes))
        return votes, weights, xp

    def predict_proba(self, X):
        """Class probabilities of each query (the normalised votes); a list of arrays for several outputs."""
        votes, _, _ = self._votes(X)
        probas = [self._out(v / v.sum(axis=1, keepdims=True), X) for v in votes]
        return probas if self.outputs_2d_ else probas[0]

    def predict(self, X):
        """The class of largest vote for each query (smallest label among ties)."""
        votes, _, xp = self._votes(X)
        columns = []
        for j, v in enumerate(votes):
            index = v.argmax(axis=1)
            classes_j = self.classes_[j] if self.outputs_2d_ else self.classes_
            if isinstance(classes_j, np.ndarray) and classes_j.dtype.kind not in "biuf":
                columns.append(classes_j[_device.to_host(index)])  # text labels live on the host
            elif self.outputs_2d_:
                columns.append(self._out(_device.to_device(classes_j, xp)[index], X))
            else:
                columns.append(self._out(self._fitted("classes_", xp)[index], X))
        if not self.outputs_2d_:
            return columns[0]
        ns = input_namespace(columns[0]) or np
        return ns.stack(columns, axis=1)

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of :meth:`predict` (``accuracy_score``), on the inputs' device."""
        if on_device(X, y, sample_weight) is None:
            return super().score(X, y, sample_weight=sample_weight)
        from riptide.ml.metrics import accuracy_score

        return accuracy_score(y, self.predict(X), sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        return tags
