"""Naive Bayes classifiers: per-class statistics as one-hot GEMMs on the device.

Every quantity these models learn is a per-class sum over the samples: counts, feature sums and (for the Gaussian
model) squared deviations. With ``Y`` the ``n x n_classes`` one-hot (optionally weighted) label matrix, those are
``Y^T 1``, ``Y^T X`` and ``Y^T (X - mean[label])^2``: a few GEMMs, no per-class pass over the rows. Prediction is
a GEMM (multinomial, Bernoulli) or one elementwise pass per class (Gaussian), then a row-wise log-sum-exp.

The classes are scikit-learn's classes (subclasses): parameters, validation, ``partial_fit``'s class bookkeeping
and every formula (smoothing, priors, ``epsilon_``, the incremental mean/variance merge of ``partial_fit``) are
scikit-learn's, written against ``xp``. Labels: numeric labels stay on the device (``unique`` + ``searchsorted``);
string labels of a riptide Series are factorized there; other labels (object arrays, lists of strings) are
numbered on the host and only the numbers move. Statistics are float64 whatever the input dtype. Sparse input
is not accepted (scikit-learn's sparse path is not ported).
"""

from __future__ import annotations

import types
import warnings
from numbers import Real
from typing import Any

import numpy as np
from sklearn import naive_bayes as _sknb
from sklearn.base import _fit_context
from sklearn.utils.multiclass import _check_partial_fit_first_call, check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from riptide import _device
from riptide.ml import _kernels as ml_kernels
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import check_sample_weight, host_form, validate_data
from riptide.ml.preprocessing._label import _numeric_target, _string_target

__all__ = ["BernoulliNB", "GaussianNB", "MultinomialNB"]


# --------------------------------------------------------------------------- labels


def _check_targets(y: Any) -> Any:
    """The labels as an xp array (numeric, on the device) or a host array; scikit-learn's checks."""
    numeric = _numeric_target(y)
    if numeric is not None:
        a, xp = numeric
        if a.dtype.kind == "f" and not bool(xp.isfinite(a).all() & (a == xp.floor(a)).all()):  # one scalar read
            check_classification_targets(_device.to_host(a))  # scikit-learn raises for continuous/NaN targets
        return a
    if _string_target(y) is not None:
        return y
    y = column_or_1d(host_form(y), warn=True)
    check_classification_targets(y)
    return y


def _label_codes(y: Any, classes: Any, xp: types.ModuleType) -> tuple[Any, Any]:
    """Each label's position in ``classes`` (device int64) and a device mask of labels that are not classes."""
    from riptide.frame import Series

    if isinstance(y, Series):  # strings of a riptide Series: factorized on the device, distinct values looked up
        from riptide.core.kernels.factorize import factorize
        from riptide.core.ops.grouping import first_row_of_each

        column = y._column
        codes, n = factorize(column)
        values = column.take(first_row_of_each(codes, n, column.xp)).to_arrow().to_pylist()
        position = {c: i for i, c in enumerate(_device.to_host(classes).tolist())}
        table = _device.to_device(np.array([position.get(v, -1) for v in values], dtype=np.int64), xp)
        found = table[codes]
        return xp.maximum(found, 0), found < 0
    if not _device.is_device_array(y):  # host labels (strings, objects): numbered on the host
        host_classes = np.asarray(_device.to_host(classes))
        y = np.asarray(y)
        pos = np.minimum(np.searchsorted(host_classes, y), host_classes.shape[0] - 1)
        missing = np.asarray(host_classes[pos] != y, dtype=bool)
        return _device.to_device(pos.astype(np.int64), xp), _device.to_device(missing, xp)
    a = _device.to_device(y, xp)
    c = _device.to_device(classes, xp)
    pos = xp.minimum(xp.searchsorted(c, a), c.shape[0] - 1)
    return pos.astype(np.int64), c[pos] != a


def _unique_classes(y: Any, xp: types.ModuleType) -> Any:
    from riptide.frame import Series

    if isinstance(y, Series):
        from riptide.ml.preprocessing._label import LabelEncoder

        return LabelEncoder().fit(y).classes_
    if _device.is_device_array(y):
        return xp.unique(y)
    return np.unique(y)


def _one_hot(codes: Any, n_classes: int, weight: Any, xp: types.ModuleType) -> Any:
    """The ``n x n_classes`` float64 indicator of the labels, each row scaled by its weight (if any)."""
    Y = xp.zeros((codes.shape[0], n_classes), dtype=np.float64)
    Y[xp.arange(codes.shape[0]), codes] = 1.0 if weight is None else weight.astype(np.float64)
    return Y


def _log_sum_exp_rows(J: Any, xp: types.ModuleType) -> Any:
    top = J.max(axis=1, keepdims=True)
    top = xp.where(xp.isfinite(top), top, 0)
    with np.errstate(divide="ignore"):
        return (top + xp.log(xp.exp(J - top).sum(axis=1, keepdims=True)))[:, 0]


class _DevicePredictMixin(DeviceEstimatorMixin):
    """predict / predict_proba / predict_log_proba from ``_device_jll``, on the device."""

    def _classes_in(self, xp: types.ModuleType) -> Any:
        return self._fitted("classes_", xp) if self.classes_.dtype.kind in "biuf" else self.classes_

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of :meth:`predict` (``accuracy_score``), on the inputs' device."""
        from riptide.ml.metrics import accuracy_score

        return accuracy_score(y, self.predict(X), sample_weight=sample_weight)

    def predict_joint_log_proba(self, X):
        """Unnormalized joint log probabilities ``log P(c) + log P(x | c)``."""
        check_is_fitted(self)
        A, xp = self._validate_predict(X)
        return self._output(self._device_jll(A, xp), X, method="predict")

    def predict(self, X):
        """The class with the highest posterior probability."""
        check_is_fitted(self)
        A, xp = self._validate_predict(X)
        best = xp.argmax(self._device_jll(A, xp), axis=1)
        classes = self._classes_in(xp)
        if isinstance(classes, np.ndarray):  # object labels live on the host
            return classes[_device.to_host(best)]
        return self._output(classes[best], X, method="predict")

    def predict_log_proba(self, X):
        """Log of the posterior probability of each class."""
        check_is_fitted(self)
        A, xp = self._validate_predict(X)
        J = self._device_jll(A, xp)
        return self._output(J - _log_sum_exp_rows(J, xp)[:, None], X, method="predict")

    def predict_proba(self, X):
        """Posterior probability of each class."""
        check_is_fitted(self)
        A, xp = self._validate_predict(X)
        J = self._device_jll(A, xp)
        return self._output(xp.exp(J - _log_sum_exp_rows(J, xp)[:, None]), X, method="predict")


# --------------------------------------------------------------------------- GaussianNB


class GaussianNB(_DevicePredictMixin, _sknb.GaussianNB):
    """Gaussian Naive Bayes (``sklearn.naive_bayes.GaussianNB``).

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.naive_bayes import GaussianNB
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> clf = GaussianNB().fit(X, np.array([1, 1, 2, 2]))
    >>> clf.predict(np.array([[-0.8, -1.0]])).tolist(), clf.theta_.tolist()
    ([1], [[-1.5, -1.0], [1.5, 1.0]])
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the per-class means and variances."""
        return self._partial_fit(X, _check_targets(y), None, _refit=True, sample_weight=sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Update the per-class means and variances with one more batch."""
        return self._partial_fit(X, _check_targets(y), classes, _refit=False, sample_weight=sample_weight)

    def _partial_fit(self, X, y, classes=None, _refit=False, sample_weight=None):
        X_given = X
        if _refit:  # fit: the classes are the labels' distinct values, found where the labels are
            self.classes_ = _unique_classes(y, _device.namespace_of(y) if _device.is_device_array(y) else np)
            first_call = True
        else:
            first_call = _check_partial_fit_first_call(self, classes)
        A, xp = validate_data(self, X, reset=first_call)
        n_y = y.size if hasattr(y, "_column") else y.shape[0]
        if A.shape[0] != n_y:
            raise ValueError(f"Found input variables with inconsistent numbers of samples: {[A.shape[0], n_y]}")
        A = A.astype(np.float64)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, A.shape[0], np.float64, xp)
        # one scalar read: the smoothing term (the column variances by coalesced passes on the GPU)
        self.epsilon_ = float(self.var_smoothing * ml_kernels.column_variances(A, xp).max())
        classes_dev = self._classes_in(xp)
        n_classes = len(self.classes_)
        if first_call:
            n_features = A.shape[1]
            theta = xp.zeros((n_classes, n_features))
            var = xp.zeros((n_classes, n_features))
            count = xp.zeros(n_classes, dtype=np.float64)
            if self.priors is not None:
                priors = np.asarray(_device.to_host(self.priors), dtype=np.float64)
                if len(priors) != n_classes:
                    raise ValueError("Number of priors must match number of classes.")
                if not np.isclose(priors.sum(), 1.0):
                    raise ValueError("The sum of the priors should be 1.")
                if (priors < 0).any():
                    raise ValueError("Priors must be non-negative.")
                self.class_prior_ = _device.to_device(priors, xp)
            else:
                self.class_prior_ = xp.zeros(n_classes, dtype=np.float64)
        else:
            if A.shape[1] != self.theta_.shape[1]:
                raise ValueError("Number of features %d does not match previous data %d."
                                 % (A.shape[1], self.theta_.shape[1]))  # fmt: skip
            theta = self._fitted("theta_", xp)
            var = self._fitted("var_", xp) - self.epsilon_
            count = self._fitted("class_count_", xp)
        codes, unknown = _label_codes(y, classes_dev, xp)
        if bool(unknown.any()):  # one scalar read: labels outside the known classes
            bad = np.unique(_device.to_host(y if _device.is_device_array(y) else host_form(y))[_device.to_host(unknown)])
            raise ValueError("The target label(s) %s in y do not exist in the initial classes %s"
                             % (bad, _device.to_host(self.classes_)))  # fmt: skip
        Y = _one_hot(codes, n_classes, sample_weight, xp)
        n_new = ml_kernels.column_totals(Y, xp)
        with np.errstate(invalid="ignore", divide="ignore"):
            new_mu = (Y.T @ A) / n_new[:, None]
            deviation = A - new_mu[codes]
            new_var = (Y.T @ (deviation * deviation)) / n_new[:, None]
            n_past = count[:, None]
            n_total = n_past + n_new[:, None]
            merged_mu = (n_new[:, None] * new_mu + n_past * theta) / n_total
            merged_ssd = n_past * var + n_new[:, None] * new_var + \
                (n_new[:, None] * n_past / n_total) * (theta - new_mu) ** 2  # fmt: skip
            merged_var = merged_ssd / n_total
        present = (n_new > 0) if sample_weight is None else ml_kernels.column_counts(Y != 0, xp) > 0
        present = present[:, None]
        fresh = count[:, None] == 0
        theta = xp.where(present, xp.where(fresh, new_mu, merged_mu), theta)
        var = xp.where(present, xp.where(fresh, new_var, merged_var), var)
        count = count + n_new
        self.theta_ = theta
        self.var_ = var + self.epsilon_
        self.class_count_ = count
        if self.priors is None:
            self.class_prior_ = count / count.sum()
        return self._publish(X_given)

    def _validate_predict(self, X: Any) -> tuple[Any, types.ModuleType]:
        return validate_data(self, X, reset=False)

    def _device_jll(self, A: Any, xp: types.ModuleType) -> Any:
        A = A.astype(np.float64)
        theta, var = self._fitted("theta_", xp), self._fitted("var_", xp)
        with np.errstate(divide="ignore"):
            log_prior = xp.log(self._fitted("class_prior_", xp))
        columns = []
        for i in range(theta.shape[0]):  # one elementwise pass per class
            normal = -0.5 * xp.log(2.0 * np.pi * var[i]).sum()
            columns.append(log_prior[i] + normal - 0.5 * (((A - theta[i]) ** 2) / var[i]).sum(axis=1))
        return xp.stack(columns, axis=1)


# --------------------------------------------------------------------------- discrete models


class _DeviceDiscreteNB(_DevicePredictMixin):
    """fit / partial_fit of scikit-learn's ``_BaseDiscreteNB`` on the device."""

    def _prepare_X(self, A: Any, xp: types.ModuleType) -> Any:
        return A

    def _check_alpha_value(self) -> Any:
        alpha = np.asarray(_device.to_host(self.alpha)) if not isinstance(self.alpha, Real) else self.alpha
        alpha_min = np.min(alpha)
        if isinstance(alpha, np.ndarray):
            if not alpha.shape[0] == self.n_features_in_:
                raise ValueError("When alpha is an array, it should contains `n_features`. Got %d elements instead "
                                 "of %d." % (alpha.shape[0], self.n_features_in_))  # fmt: skip
            if alpha_min < 0:
                raise ValueError("All values in alpha must be greater than 0.")
        alpha_lower_bound = 1e-10
        if alpha_min < alpha_lower_bound and not self.force_alpha:
            warnings.warn("alpha too small will result in numeric errors, setting alpha = %.1e. Use "
                          "`force_alpha=True` to keep alpha unchanged." % alpha_lower_bound)  # fmt: skip
            return np.maximum(alpha, alpha_lower_bound)
        return alpha

    def _class_log_prior(self, count: Any, xp: types.ModuleType) -> Any:
        n_classes = len(self.classes_)
        if self.class_prior is not None:
            prior = np.asarray(_device.to_host(self.class_prior), dtype=np.float64)
            if len(prior) != n_classes:
                raise ValueError("Number of priors must match number of classes.")
            with np.errstate(divide="ignore"):
                return _device.to_device(np.log(prior), xp)
        if self.fit_prior:
            with np.errstate(divide="ignore"):
                return xp.log(count) - xp.log(count.sum())
        return xp.full(n_classes, -np.log(n_classes))

    def _update(self, A: Any, y: Any, sample_weight: Any, xp: types.ModuleType, first_call: bool) -> None:
        n_classes = len(self.classes_)
        codes, unknown = _label_codes(y, self._classes_in(xp), xp)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, A.shape[0], np.float64, xp)
        Y = _one_hot(codes, n_classes, sample_weight, xp)
        Y = xp.where(unknown[:, None], 0.0, Y)  # label_binarize gives an unknown label an all-zero row
        if n_classes == 1:
            Y = xp.ones_like(Y) if sample_weight is None else xp.broadcast_to(sample_weight[:, None], Y.shape) * 1.0
        self._check_counts(A, xp)
        if first_call:
            feature_count = xp.zeros((n_classes, A.shape[1]), dtype=np.float64)
            class_count = xp.zeros(n_classes, dtype=np.float64)
        else:
            feature_count = self._fitted("feature_count_", xp)
            class_count = self._fitted("class_count_", xp)
        self.feature_count_ = feature_count + Y.T @ A.astype(np.float64)
        self.class_count_ = class_count + ml_kernels.column_totals(Y, xp)
        alpha = self._check_alpha_value()
        alpha = _device.to_device(np.asarray(alpha, dtype=np.float64), xp)
        self._feature_log_prob(alpha, xp)
        self.class_log_prior_ = self._class_log_prior(self.class_count_, xp)

    def _check_counts(self, A: Any, xp: types.ModuleType) -> None:
        pass

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the per-class feature counts."""
        X_given = X
        y = _check_targets(y)
        A, xp = validate_data(self, X, reset=True)
        n_y = y.size if hasattr(y, "_column") else y.shape[0]
        if A.shape[0] != n_y:
            raise ValueError(f"Found input variables with inconsistent numbers of samples: {[A.shape[0], n_y]}")
        A = self._prepare_X(A, xp)
        self.classes_ = _unique_classes(y, xp if _device.is_device_array(y) else np)
        self._update(A, y, sample_weight, xp, first_call=True)
        return self._publish(X_given)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Update the per-class feature counts with one more batch."""
        X_given = X
        first_call = not hasattr(self, "classes_")
        y = _check_targets(y)
        A, xp = validate_data(self, X, reset=first_call)
        A = self._prepare_X(A, xp)
        first_call = _check_partial_fit_first_call(self, classes)
        n_y = y.size if hasattr(y, "_column") else y.shape[0]
        if A.shape[0] != n_y:
            raise ValueError("X.shape[0]=%d and y.shape[0]=%d are incompatible." % (A.shape[0], n_y))
        self._update(A, y, sample_weight, xp, first_call=first_call or not hasattr(self, "feature_count_"))
        return self._publish(X_given)

    def _validate_predict(self, X: Any) -> tuple[Any, types.ModuleType]:
        A, xp = validate_data(self, X, reset=False)
        return self._prepare_X(A, xp), xp

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False  # dense input only (module docstring)
        return tags


class MultinomialNB(_DeviceDiscreteNB, _sknb.MultinomialNB):
    """Naive Bayes for multinomial counts (``sklearn.naive_bayes.MultinomialNB``).

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.naive_bayes import MultinomialNB
    >>> X = np.array([[2, 0, 1], [3, 0, 0], [0, 4, 1], [0, 2, 2]])
    >>> MultinomialNB().fit(X, np.array([0, 0, 1, 1])).predict(np.array([[1, 0, 0], [0, 1, 1]])).tolist()
    [0, 1]
    """

    def _check_counts(self, A: Any, xp: types.ModuleType) -> None:
        if A.size and bool((A < 0).any()):  # one scalar read: counts must be non-negative
            raise ValueError("Negative values in data passed to MultinomialNB (input X).")

    def _feature_log_prob(self, alpha: Any, xp: types.ModuleType) -> None:
        smoothed = self.feature_count_ + alpha
        with np.errstate(divide="ignore"):
            self.feature_log_prob_ = xp.log(smoothed) - xp.log(smoothed.sum(axis=1))[:, None]

    def _device_jll(self, A: Any, xp: types.ModuleType) -> Any:
        return A.astype(np.float64) @ self._fitted("feature_log_prob_", xp).T + self._fitted("class_log_prior_", xp)


class BernoulliNB(_DeviceDiscreteNB, _sknb.BernoulliNB):
    """Naive Bayes for binary features (``sklearn.naive_bayes.BernoulliNB``).

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.naive_bayes import BernoulliNB
    >>> X = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0]])
    >>> BernoulliNB().fit(X, np.array([0, 0, 1, 1])).predict(np.array([[1, 0, 0], [0, 1, 1]])).tolist()
    [0, 1]
    """

    def _prepare_X(self, A: Any, xp: types.ModuleType) -> Any:
        if self.binarize is not None:
            return (A > self.binarize).astype(A.dtype)
        return A

    def _feature_log_prob(self, alpha: Any, xp: types.ModuleType) -> None:
        smoothed_fc = self.feature_count_ + alpha
        smoothed_cc = self.class_count_ + alpha * 2
        with np.errstate(divide="ignore"):
            self.feature_log_prob_ = xp.log(smoothed_fc) - xp.log(smoothed_cc.reshape(-1, 1))

    def _device_jll(self, A: Any, xp: types.ModuleType) -> Any:
        log_prob = self._fitted("feature_log_prob_", xp)
        if A.shape[1] != log_prob.shape[1]:
            raise ValueError("Expected input with %d features, got %d instead" % (log_prob.shape[1], A.shape[1]))
        with np.errstate(divide="ignore"):
            neg_prob = xp.log(1 - xp.exp(log_prob))
        jll = A.astype(np.float64) @ (log_prob - neg_prob).T
        return jll + self._fitted("class_log_prior_", xp) + neg_prob.sum(axis=1)
