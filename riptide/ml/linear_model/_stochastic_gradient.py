"""SGDClassifier and SGDRegressor: scikit-learn's sequential SGD for the fit, predictions on the device.

Which path is exact. Stochastic gradient descent as scikit-learn defines it updates the weights after *every*
sample, in an order drawn by its own random generator; sample ``i + 1`` sees the weights that sample ``i`` left.
That chain cannot be split over GPU threads without changing the algorithm (mini-batches give other iterates, other
``n_iter_``, other early stopping), and scikit-learn's result depends on that exact order. riptide therefore runs
the fit with scikit-learn's own compiled loop (``sklearn.linear_model._sgd_fast._plain_sgd``, reached through
scikit-learn's estimator, which owns the glue around it: one-vs-rest seeds, class weights, the validation split of
``early_stopping``, averaging, the learning-rate schedules and ``partial_fit``'s state). The fit is therefore
**exact on every device**: ``coef_``, ``intercept_``, ``n_iter_`` and ``t_`` are scikit-learn's, bit for bit.

Where the work runs. The fit reads the host form of the data (a riptide frame becomes pandas, a CuPy array NumPy:
one copy of X to the host per ``fit``/``partial_fit``); the fitted parameters are then placed where the input
lives, and ``decision_function``, ``predict`` and ``predict_proba`` (one GEMM and an elementwise pass) run there.

Why no device kernel for the fit. The exact algorithm is a chain of ``n`` dependent steps per epoch, each a dot
product and an update of ``p`` numbers: on a GPU one block would walk it, with a block-wide reduction and a
synchronization per sample (a few microseconds each: 1e6 samples are seconds per epoch), while scikit-learn's
compiled loop does a sample in well under a microsecond on one host core. A kernel would therefore be both slower
and, unless its sums ran in scikit-learn's order and it reproduced scikit-learn's shuffle generator, not exact.
Mini-batch SGD would be fast on the device but is another algorithm (other iterates, ``n_iter_``, early stopping),
so it is not offered under scikit-learn's name.
"""

from __future__ import annotations

import types
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn import linear_model as _sk
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils import check_array
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from riptide import _device
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml.linear_model._base import LinearClassifierMixin
from riptide.ml.linear_model._logistic import _expit
from riptide.ml._validation import (
    FLOAT_DTYPES,
    compute_namespace,
    host_form,
    input_namespace,
    on_device,
    validate_data,
)

__all__ = ["SGDClassifier", "SGDRegressor"]

DEFAULT_EPSILON = 0.1

_COMMON_CONSTRAINTS: dict = {
    "fit_intercept": ["boolean"],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="left"), None],
    "shuffle": ["boolean"],
    "verbose": ["verbose"],
    "random_state": ["random_state"],
    "warm_start": ["boolean"],
    "average": [Interval(Integral, 0, None, closed="neither"), "boolean"],
    "eta0": [Interval(Real, 0, None, closed="neither")],
    "early_stopping": ["boolean"],
    "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
    "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
    "penalty": [StrOptions({"l2", "l1", "elasticnet"}), None],
    "alpha": [Interval(Real, 0, None, closed="left")],
    "l1_ratio": [Interval(Real, 0, 1, closed="both"), None],
    "power_t": [Interval(Real, None, None, closed="neither")],
    "epsilon": [Interval(Real, 0, None, closed="left")],
    "learning_rate": [StrOptions({"constant", "optimal", "invscaling", "adaptive", "pa1", "pa2"})],
}
_REGRESSION_LOSSES = {"squared_error", "huber", "epsilon_insensitive", "squared_epsilon_insensitive"}
_CLASSIFICATION_LOSSES = {"hinge", "squared_hinge", "perceptron", "log_loss", "modified_huber"} | _REGRESSION_LOSSES


class _SGDBase(DeviceEstimatorMixin):
    """The fit through scikit-learn's estimator (see the module docstring) and the linear scores on the device."""

    _sklearn_class: type
    _published = ("coef_", "intercept_", "classes_")

    def _delegate(self, reuse: bool) -> Any:
        """scikit-learn's estimator with this one's parameters; the previous one (and its SGD state) when the fit
        continues (``warm_start``, ``partial_fit``)."""
        previous = self.__dict__.get("_sgd")
        if reuse and previous is not None:
            return previous.set_params(**self.get_params())
        return self._sklearn_class(**self.get_params())

    def _adopt(self, sgd: Any, X_given: Any, y_given: Any) -> Any:
        """Copy the fitted state of scikit-learn's estimator, arrays placed where the input lives."""
        xp = compute_namespace(X_given, y_given)
        self.__dict__["_sgd"] = sgd
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(sgd, name):
                setattr(self, name, getattr(sgd, name))
            else:
                self.__dict__.pop(name, None)
        self.n_iter_ = sgd.n_iter_
        self.t_ = sgd.t_
        for name in self._published:
            if hasattr(sgd, name):
                value = getattr(sgd, name)
                numeric = isinstance(value, np.ndarray) and value.dtype.kind in "biuf"
                setattr(self, name, _device.to_device(value, xp) if numeric else value)
        return self._publish(X_given)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit the linear model with stochastic gradient descent (scikit-learn's loop, see the module docstring)."""
        return self._fit_with("fit", X, y, self.warm_start, coef_init=coef_init, intercept_init=intercept_init,
                              sample_weight=sample_weight)  # fmt: skip

    def _fit_with(self, method: str, X: Any, y: Any, reuse: bool, **kwargs: Any) -> Any:
        if sparse.issparse(X):  # riptide.ml takes dense data: scikit-learn's check_array raises its own TypeError
            check_array(X, accept_sparse=False)
        sgd = self._delegate(reuse)
        host_kwargs = {key: host_form(value) for key, value in kwargs.items()}
        getattr(sgd, method)(host_form(X), host_form(y), **host_kwargs)
        return self._adopt(sgd, X, y)

    def _scores(self, X: Any) -> tuple[Any, types.ModuleType]:
        check_is_fitted(self)
        A, xp = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES)
        coef = self._fitted("coef_", xp)
        scores = A @ (coef.T if coef.ndim == 2 else coef) + self._fitted("intercept_", xp)
        return scores, xp

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


class SGDClassifier(LinearClassifierMixin, _SGDBase, ClassifierMixin, BaseEstimator):
    """Linear classifiers (SVM, logistic regression, ...) fitted by SGD (``sklearn.linear_model.SGDClassifier``).

    Parameters and attributes are scikit-learn's; the fit is scikit-learn's exactly (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.linear_model import SGDClassifier
    >>> X = np.array([[-2.0, -1.0], [-1.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> clf = SGDClassifier(random_state=0).fit(X, [0, 0, 1, 1])
    >>> clf.predict(np.array([[-1.5, -1.0], [1.5, 1.0]])).tolist()
    [0, 1]
    """

    _sklearn_class = _sk.SGDClassifier
    _parameter_constraints: dict = {
        **_COMMON_CONSTRAINTS,
        "loss": [StrOptions(_CLASSIFICATION_LOSSES)],
        "n_jobs": [Integral, None],
        "class_weight": [StrOptions({"balanced"}), dict, None],
    }

    def __init__(self, loss="hinge", *, penalty="l2", alpha=0.0001, l1_ratio=0.15, fit_intercept=True,
                 max_iter=1000, tol=1e-3, shuffle=True, verbose=0, epsilon=DEFAULT_EPSILON, n_jobs=None,
                 random_state=None, learning_rate="optimal", eta0=0.01, power_t=0.5, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=5, class_weight=None, warm_start=False,
                 average=False):  # fmt: skip
        self.loss = loss
        self.penalty = penalty
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.verbose = verbose
        self.epsilon = epsilon
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.average = average

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch of SGD over the given samples, continuing from the current state."""
        return self._fit_with("partial_fit", X, y, True, classes=classes, sample_weight=sample_weight)

    def _check_proba(self):
        if self.loss not in ("log_loss", "modified_huber"):
            raise AttributeError("probability estimates are not available for loss=%r" % self.loss)
        return True

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Class probabilities: the logistic function of the scores normalized over classes (``log_loss``), or
        ``(clip(score, -1, 1) + 1) / 2`` normalized (``modified_huber``), as scikit-learn computes them."""
        scores, xp = self._scores(X)
        if self.loss == "log_loss":
            prob = _expit(scores, xp)
            if prob.shape[1] == 1:
                return self._output(xp.concatenate([1 - prob, prob], axis=1), X, method="predict_proba")
        else:
            prob = (xp.clip(scores, -1, 1) + 1.0) / 2.0
            if prob.shape[1] == 1:
                prob = prob.astype(xp.float64)
                return self._output(xp.concatenate([1 - prob, prob], axis=1), X, method="predict_proba")
        total = prob.sum(axis=1, keepdims=True)
        empty = total == 0  # every class scored zero: uniform probabilities, as scikit-learn
        prob = xp.where(empty, 1.0, prob)
        total = xp.where(empty, float(prob.shape[1]), total)
        return self._output(prob / total, X, method="predict_proba")

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        proba = self.predict_proba(X)
        return (input_namespace(proba) or np).log(proba)


class SGDRegressor(_SGDBase, RegressorMixin, BaseEstimator):
    """Linear regression fitted by SGD (``sklearn.linear_model.SGDRegressor``).

    Parameters and attributes are scikit-learn's; the fit is scikit-learn's exactly (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.linear_model import SGDRegressor
    >>> X = np.linspace(-1, 1, 40)[:, None]
    >>> reg = SGDRegressor(random_state=0, tol=None, max_iter=200).fit(X, 2 * X[:, 0] + 1)
    >>> np.round(reg.predict(np.array([[0.0], [1.0]])), 1).tolist()
    [1.0, 3.0]
    """

    _sklearn_class = _sk.SGDRegressor
    _parameter_constraints: dict = {**_COMMON_CONSTRAINTS, "loss": [StrOptions(_REGRESSION_LOSSES)]}

    def __init__(self, loss="squared_error", *, penalty="l2", alpha=0.0001, l1_ratio=0.15, fit_intercept=True,
                 max_iter=1000, tol=1e-3, shuffle=True, verbose=0, epsilon=DEFAULT_EPSILON, random_state=None,
                 learning_rate="invscaling", eta0=0.01, power_t=0.25, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=5, warm_start=False, average=False):  # fmt: skip
        self.loss = loss
        self.penalty = penalty
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.verbose = verbose
        self.epsilon = epsilon
        self.random_state = random_state
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start
        self.average = average

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, sample_weight=None):
        """One epoch of SGD over the given samples, continuing from the current state."""
        return self._fit_with("partial_fit", X, y, True, sample_weight=sample_weight)

    def predict(self, X):
        """Predict with the linear model: ``X @ coef_ + intercept_``."""
        scores, _ = self._scores(X)
        return self._output(scores, X, method="predict")

    def score(self, X, y, sample_weight=None):
        """R^2 of the prediction (``sklearn.metrics.r2_score``), on the inputs' device."""
        if on_device(X, y, sample_weight) is None:
            return super().score(X, y, sample_weight=sample_weight)
        from riptide.ml.metrics import r2_score

        return r2_score(y, self.predict(X), sample_weight=sample_weight)
