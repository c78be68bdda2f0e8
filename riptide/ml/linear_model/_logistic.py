"""Logistic regression (binary and multinomial, L2 or no penalty) with the L-BFGS solver.

The objective is scikit-learn's, term for term: the mean (weighted by ``sample_weight`` times the class weights)
of the half-binomial or multinomial log loss, plus ``||coef||^2 / (2 C sum(weights))``; the intercept is not
penalized. Its value and gradient are one pass over the data on the device: a matrix product for the linear
predictor, the pointwise loss and its derivative, and a matrix product back.

Why scipy's L-BFGS-B drives it. The optimizer's state is ``n_params`` numbers (``n_features + 1`` per class), a
few kilobytes; all the work is in the function evaluations. Driving them from scipy's ``L-BFGS-B`` with
scikit-learn's options (``maxiter=max_iter``, ``maxls=50``, ``gtol=tol``, ``ftol=64 * eps``) makes the iterates,
the stopping point, ``n_iter_`` and the ``ConvergenceWarning`` those of scikit-learn, so ``coef_`` agrees to the
rounding of the function evaluations rather than to the solver tolerance. Each evaluation moves ``n_params``
numbers to the device and ``n_params + 1`` back (one read); the data never moves.

Solvers other than ``'lbfgs'`` and the ``'l1'``/``'elasticnet'`` penalties raise NotImplementedError; so does
``dual=True`` through scikit-learn's own solver check.
"""

from __future__ import annotations

import types
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy import optimize
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.linear_model._logistic import _LOGISTIC_SOLVER_CONVERGENCE_MSG, _check_solver
from sklearn.utils import compute_class_weight
from sklearn.utils._param_validation import Hidden, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.optimize import _check_optimize_result
from sklearn.utils.validation import _check_y, check_is_fitted

from riptide import _device
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import FLOAT_DTYPES, check_sample_weight, host_form, input_namespace, validate_data

__all__ = ["LogisticRegression"]


def _log1p_exp(z: Any, xp: types.ModuleType) -> Any:
    """log(1 + exp(z)) without overflow."""
    return xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z)))


def _expit(z: Any, xp: types.ModuleType) -> Any:
    """1 / (1 + exp(-z)), accurate in relative terms for tiny results too (their logarithms are reported)."""
    e = xp.exp(-xp.abs(z))
    return xp.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


class _Objective:
    """scikit-learn's LinearModelLoss (half binomial / half multinomial) with an L2 penalty, on the device."""

    def __init__(self, X, codes, n_classes, sw, C, fit_intercept, xp):
        self.X, self.xp, self.fit_intercept = X, xp, fit_intercept
        self.n_classes = n_classes
        self.d = X.shape[1]
        self.sw = sw  # None or weights (X's dtype)
        self.sw_sum = float(X.shape[0]) if sw is None else float(sw.sum())  # one scalar read: the weights' total
        self.l2 = 0.0 if C == np.inf else 1.0 / (C * self.sw_sum)  # scikit-learn's penalty scaled by the total
        if n_classes == 2:
            self.target = (codes == 1).astype(X.dtype)
        else:
            self.onehot = (codes[:, None] == xp.arange(n_classes)[None, :]).astype(X.dtype)

    def _weighted(self, values: Any) -> Any:
        return values if self.sw is None else values * (self.sw if values.ndim == 1 else self.sw[:, None])

    def __call__(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        xp, X, d = self.xp, self.X, self.d
        dtype = X.dtype
        if self.n_classes == 2:
            params = _device.to_device(w.astype(dtype), xp)
            coef = params[:d]
            raw = X @ coef + (params[d] if self.fit_intercept else 0.0)
            loss = _log1p_exp(raw, xp) - self.target * raw
            value = self._weighted(loss).sum() / self.sw_sum + 0.5 * self.l2 * (coef @ coef)
            gp = self._weighted(_expit(raw, xp) - self.target) / self.sw_sum
            parts = [value[None], X.T @ gp + self.l2 * coef]
            if self.fit_intercept:
                parts.append(gp.sum()[None])
        else:
            K = self.n_classes
            W = _device.to_device(w.astype(dtype), xp).reshape((K, -1), order="F")
            coef = W[:, :d]
            raw = X @ coef.T + (W[:, d] if self.fit_intercept else 0.0)
            top = raw.max(axis=1, keepdims=True)
            lse = top[:, 0] + xp.log(xp.exp(raw - top).sum(axis=1))
            loss = lse - (raw * self.onehot).sum(axis=1)
            value = self._weighted(loss).sum() / self.sw_sum + 0.5 * self.l2 * (coef * coef).sum()
            G = self._weighted(xp.exp(raw - lse[:, None]) - self.onehot) / self.sw_sum
            grad = G.T @ X + self.l2 * coef
            if self.fit_intercept:
                grad = xp.concatenate([grad, G.sum(axis=0)[:, None]], axis=1)
            parts = [value[None], grad.ravel(order="F")]
        out = _device.to_host(xp.concatenate([p.astype(xp.float64) for p in parts]))  # one read: value, gradient
        return float(out[0]), out[1:]


class LogisticRegression(DeviceEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Logistic regression classifier (``sklearn.linear_model.LogisticRegression``), solver 'lbfgs'.

    Parameters are scikit-learn's; see the module docstring for what is implemented.

    Attributes
    ----------
    classes_ : array of shape (n_classes,)
    coef_ : array of shape (1, n_features) or (n_classes, n_features)
    intercept_ : array of shape (1,) or (n_classes,)
    n_iter_ : ndarray of shape (1,), int32
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.linear_model import LogisticRegression
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> clf = LogisticRegression().fit(X, ["no", "no", "yes", "yes"])
    >>> clf.predict(np.array([[-3.0], [3.0]])).tolist()
    ['no', 'yes']
    >>> np.round(clf.predict_proba(np.array([[0.0]])), 6).tolist()
    [[0.5, 0.5]]
    """

    _parameter_constraints: dict = {
        "penalty": [StrOptions({"l1", "l2", "elasticnet"}), None, Hidden(StrOptions({"deprecated"}))],
        "C": [Interval(Real, 0, None, closed="right")],
        "l1_ratio": [Interval(Real, 0, 1, closed="both"), None],
        "dual": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "random_state": ["random_state"],
        "solver": [StrOptions({"lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag", "saga"})],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "verbose": ["verbose"],
        "warm_start": ["boolean"],
        "n_jobs": [None, Integral],
    }

    def __init__(self, penalty="deprecated", *, C=1.0, l1_ratio=0.0, dual=False, tol=1e-4, fit_intercept=True,
                 intercept_scaling=1, class_weight=None, random_state=None, solver="lbfgs", max_iter=100,
                 verbose=0, warm_start=False, n_jobs=None):  # fmt: skip
        self.penalty = penalty
        self.C = C
        self.l1_ratio = l1_ratio
        self.dual = dual
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.random_state = random_state
        self.solver = solver
        self.max_iter = max_iter
        self.verbose = verbose
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _penalty(self) -> tuple[str | None, float]:
        """The effective penalty and C, with scikit-learn's deprecation rules and warnings."""
        if self.penalty == "deprecated":
            if self.l1_ratio == 0 or self.l1_ratio is None:
                penalty = "l2"
                if self.l1_ratio is None:
                    warnings.warn("'l1_ratio=None' was deprecated in version 1.8 and will trigger an error in 1.10. "
                                  "Use 0<=l1_ratio<=1 instead.", FutureWarning)  # fmt: skip
            else:
                penalty = "l1" if self.l1_ratio == 1 else "elasticnet"
            if self.C == np.inf:
                penalty = None
        else:
            penalty = self.penalty
            warnings.warn("'penalty' was deprecated in version 1.8 and will be removed in 1.10. To avoid this "
                          "warning, leave 'penalty' set to its default value and use 'l1_ratio' or 'C' instead. "
                          "Use l1_ratio=0 instead of penalty='l2', l1_ratio=1 instead of penalty='l1', l1_ratio set "
                          "to a float between 0 and 1 instead of penalty='elasticnet', and C=np.inf instead of "
                          "penalty=None.", FutureWarning)  # fmt: skip
        return penalty, self.C

    def _targets(self, X: Any, y: Any) -> tuple[Any, Any, Any, types.ModuleType]:
        """Validated X, the classes (sorted, np.unique semantics) and each sample's class number."""
        if input_namespace(y) is None:  # host labels of any type: scikit-learn's own checks
            y_host = _check_y(y, estimator=self) if y is not None else None
            X, _, xp = validate_data(self, X, y_host if y_host is None else np.zeros(len(y_host)), reset=True,
                                     dtype=FLOAT_DTYPES)  # fmt: skip
            check_classification_targets(y_host)
            classes = np.unique(y_host)
            return X, classes, _device.to_device(np.searchsorted(classes, y_host), xp), xp
        X, Y, xp = validate_data(self, X, y, reset=True, dtype=FLOAT_DTYPES)
        if Y.dtype.kind == "f" and not bool((Y == xp.floor(Y)).all()):  # one scalar read: labels, not values
            check_classification_targets(host_form(y))  # scikit-learn's "Unknown label type" error
        classes = xp.unique(Y)
        return X, classes, xp.searchsorted(classes, Y), xp

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model by minimizing the penalized log loss with L-BFGS."""
        penalty, C = self._penalty()
        solver = _check_solver(self.solver, penalty, self.dual)
        if penalty in ("l1", "elasticnet") or solver != "lbfgs":
            raise NotImplementedError(f"LogisticRegression(solver={solver!r}, penalty={penalty!r}) is not implemented "
                                      "in riptide.ml yet (only solver='lbfgs' with an L2 or no penalty); use "
                                      "sklearn.linear_model.LogisticRegression")  # fmt: skip
        if self.penalty is None:
            if self.C != 1.0:
                warnings.warn("Setting penalty=None will ignore the C and l1_ratio parameters")
            C = np.inf
        if self.n_jobs is not None:
            warnings.warn("'n_jobs' has no effect since 1.8 and will be removed in 1.10. You provided "
                          f"'n_jobs={self.n_jobs}', please leave it unspecified.", FutureWarning)  # fmt: skip
        X_given = X
        X, classes, codes, xp = self._targets(X, y)
        n_classes = classes.shape[0]
        if n_classes < 2:
            raise ValueError("This solver needs samples of at least 2 classes in the data, but the data contains "
                             "only one class: %r" % _device.to_host(classes)[0])  # fmt: skip
        sw = None
        if sample_weight is not None or self.class_weight is not None:
            sw = check_sample_weight(sample_weight, X.shape[0], X.dtype, xp).astype(X.dtype)
        if self.class_weight is not None:
            sw = sw * self._class_weights(classes, codes, sw, xp)[codes]
        self.classes_ = classes
        d = X.shape[1]
        n_params = d + int(self.fit_intercept)
        shape = (n_params,) if n_classes == 2 else (n_classes, n_params)
        w0 = np.zeros(shape, dtype=np.float64)
        if self.warm_start and getattr(self, "coef_", None) is not None:
            previous = np.c_[_device.to_host(self.coef_), _device.to_host(self.intercept_)[:, None]] \
                if self.fit_intercept else _device.to_host(self.coef_)  # fmt: skip
            if previous.shape == ((1, n_params) if n_classes == 2 else shape):
                w0[...] = previous[0] if n_classes == 2 else previous
        objective = _Objective(X, codes, n_classes, sw, C, self.fit_intercept, xp)
        result = optimize.minimize(objective, w0.ravel(order="F"), method="L-BFGS-B", jac=True,
                                   options={"maxiter": self.max_iter, "maxls": 50, "gtol": self.tol,
                                            "ftol": 64 * np.finfo(float).eps})  # fmt: skip
        n_iter = _check_optimize_result("lbfgs", result, self.max_iter,
                                        extra_warning_msg=_LOGISTIC_SOLVER_CONVERGENCE_MSG)  # fmt: skip
        self.n_iter_ = np.asarray([n_iter], dtype=np.int32)
        W = result.x.reshape((1, n_params) if n_classes == 2 else (n_classes, n_params), order="F")
        W = _device.to_device(np.ascontiguousarray(W).astype(X.dtype), xp)
        self.coef_ = W[:, :d]
        self.intercept_ = W[:, d] if self.fit_intercept else xp.zeros(W.shape[0], dtype=X.dtype)
        return self._publish(X_given)

    def _class_weights(self, classes: Any, codes: Any, sw: Any, xp: types.ModuleType) -> Any:
        """The weight of each class: scikit-learn's compute_class_weight, 'balanced' counted on the device."""
        if self.class_weight == "balanced":
            counts = xp.bincount(codes, weights=sw, minlength=classes.shape[0])
            return (counts.sum() / (classes.shape[0] * counts)).astype(sw.dtype)
        host_classes = _device.to_host(classes)
        weight = compute_class_weight(self.class_weight, classes=host_classes, y=host_classes)
        return _device.to_device(np.asarray(weight, dtype=sw.dtype), xp)

    def _scores(self, X: Any) -> tuple[Any, types.ModuleType]:
        check_is_fitted(self)
        A, xp = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES)
        scores = A @ self._fitted("coef_", xp).T + self._fitted("intercept_", xp)
        return scores, xp

    def decision_function(self, X):
        """Confidence scores: ``X @ coef_.T + intercept_`` (flat for two classes)."""
        scores, _ = self._scores(X)
        return self._output(scores[:, 0] if scores.shape[1] == 1 else scores, X, method="decision_function")

    def predict(self, X):
        """The class with the largest score."""
        scores, xp = self._scores(X)
        index = (scores[:, 0] > 0).astype(xp.int64) if scores.shape[1] == 1 else scores.argmax(axis=1)
        classes = self.classes_
        if isinstance(classes, np.ndarray) and classes.dtype.kind not in "biuf":
            return classes[_device.to_host(index)]  # text labels live on the host: the class numbers come back
        return self._output(self._fitted("classes_", xp)[index], X, method="predict")

    def predict_proba(self, X):
        """Class probabilities: the logistic function (two classes) or the softmax of the scores."""
        scores, xp = self._scores(X)
        if scores.shape[1] == 1:
            p = _expit(scores[:, 0], xp)
            proba = xp.stack([1 - p, p], axis=1)
        else:
            proba = xp.exp(scores - scores.max(axis=1, keepdims=True))
            proba /= proba.sum(axis=1, keepdims=True)
        return self._output(proba, X, method="predict_proba")

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        proba = self.predict_proba(X)
        return (input_namespace(proba) or np).log(proba)

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of :meth:`predict` (``sklearn.metrics.accuracy_score``), on the inputs' device."""
        from riptide.ml.metrics import accuracy_score

        return accuracy_score(y, self.predict(X), sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags
