"""Logistic regression (binary and multinomial; L2, L1, elastic-net or no penalty) with scikit-learn's solvers.

The objective is scikit-learn's, term for term: the mean (weighted by ``sample_weight`` times the class weights)
of the half-binomial or multinomial log loss, plus ``(1 - l1_ratio) ||coef||^2 / (2 C sum(weights))`` and
``l1_ratio ||coef||_1 / (C sum(weights))``; the intercept is not penalized. Its value and gradient are one pass over
the data on the device: a matrix product for the linear predictor, the pointwise loss and its derivative, and a
matrix product back. Every solver below drives that evaluation from the host, where the optimizer's state (a few
kilobytes: ``n_features + 1`` numbers per class) lives; the data never moves.

* ``'lbfgs'`` (and ``'sag'``/``'saga'`` with an L2 or no penalty): scipy's ``L-BFGS-B`` with scikit-learn's options
  (``maxiter=max_iter``, ``maxls=50``, ``gtol=tol``, ``ftol=64 * eps``), so the iterates, the stopping point,
  ``n_iter_`` and the ``ConvergenceWarning`` are those of scikit-learn's lbfgs and ``coef_`` agrees to the rounding
  of the function evaluations. For 'sag'/'saga' this is the same minimizer reached by another route: ``coef_`` agrees
  to the solvers' tolerance, and ``n_iter_`` counts L-BFGS iterations, not epochs.
* ``'newton-cholesky'``: scikit-learn's NewtonCholeskySolver step for step (the same treatment of the multinomial's
  redundant parameters, Armijo backtracking with its constants, the same convergence test and L-BFGS fallback); the
  Hessian is built on the device from ``K (K + 1) / 2`` weighted Gram matrices ``X^T diag(h) X`` (one GEMM each,
  one for two classes) and the ``n_params x n_params`` Newton system is solved on the host. ``n_iter_`` and
  ``coef_`` match scikit-learn's.
* ``'newton-cg'``: the same Newton iteration with the step solved exactly (Cholesky) instead of by truncated
  conjugate gradients. The minimizer is the same; ``coef_`` agrees to the solver tolerance and ``n_iter_`` may
  differ by one or two.
* ``'saga'`` with the ``'l1'``/``'elasticnet'`` penalties (``l1_ratio > 0``): the L1 term is made smooth by the
  split ``coef = u - v``, ``u, v >= 0`` (its norm becomes the linear ``sum(u + v)``), and L-BFGS-B minimizes that
  bound-constrained problem to ``1e-2 * tol`` in projected gradient. Coefficients that the L1 penalty sets to zero
  come out exactly zero (a bound is active), as with saga. saga itself is stochastic and stops on a relative change
  of the coefficients below ``tol``; this solver reaches the exact minimizer more closely than saga's default
  tolerance does, so ``coef_`` agrees with saga's to saga's accuracy (about ``1e-3`` relative), predictions are the
  same, and ``n_iter_`` counts L-BFGS iterations, not epochs. The ``ConvergenceWarning`` at ``max_iter`` is saga's.

* ``'liblinear'`` (binary, L2 or L1): liblinear's problem, in which the intercept is the weight of a constant
  feature of value ``intercept_scaling`` and is penalized like the coefficients, solved by L-BFGS (L2; ``dual`` only
  names liblinear's route to the same minimizer) or by the bounded L1 solver above. ``coef_`` agrees with
  liblinear's to its tolerance; ``n_iter_`` counts L-BFGS iterations. scikit-learn's errors (multiclass, values
  above 1e30, L1 with ``dual=True``) are raised as scikit-learn raises them.

``dual=True`` with another solver raises scikit-learn's own ValueError through its solver check.
"""

from __future__ import annotations

import types
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy import linalg, optimize
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model._logistic import _LOGISTIC_SOLVER_CONVERGENCE_MSG, _check_solver
from sklearn.utils import compute_class_weight
from sklearn.utils._param_validation import Hidden, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.optimize import _check_optimize_result
from sklearn.utils.validation import _check_y, check_is_fitted

from riptide import _device
from riptide.ml import _dask
from riptide.ml import _kernels as ml_kernels
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml.linear_model._base import LinearClassifierMixin
from riptide.ml._validation import FLOAT_DTYPES, check_sample_weight, host_form, input_namespace, validate_data

__all__ = ["LogisticRegression"]

#: The L1 problem stops when its projected gradient is below this fraction of ``tol``: saga's ``tol`` bounds the
#: relative change of the coefficients over an epoch, a looser criterion than a gradient of ``tol``.
_L1_GTOL_FACTOR = 1e-2


def _log1p_exp(z: Any, xp: types.ModuleType) -> Any:
    """log(1 + exp(z)) without overflow."""
    return xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z)))


def _expit(z: Any, xp: types.ModuleType) -> Any:
    """1 / (1 + exp(-z)), accurate in relative terms for tiny results too (their logarithms are reported)."""
    e = xp.exp(-xp.abs(z))
    return xp.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


class _Objective:
    """scikit-learn's LinearModelLoss (half binomial / half multinomial) with an L2 penalty, on the device."""

    def __init__(self, X, codes, n_classes, sw, C, fit_intercept, xp, l1_ratio=0.0):
        self.X, self.xp, self.fit_intercept = X, xp, fit_intercept
        self.n_classes = n_classes
        self.d = X.shape[1]
        self.sw = sw  # None or weights (X's dtype)
        self.sw_sum = float(X.shape[0]) if sw is None else float(sw.sum())  # one scalar read: the weights' total
        strength = 0.0 if C == np.inf else 1.0 / (C * self.sw_sum)  # scikit-learn's penalty scaled by the total
        self.l2 = strength * (1.0 - l1_ratio)  # the smooth part; the L1 part is handled by the solver
        self.l1 = strength * l1_ratio
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
                grad = xp.concatenate([grad, ml_kernels.column_totals(G, xp)[:, None]], axis=1)
            parts = [value[None], grad.ravel(order="F")]
        out = _device.to_host(xp.concatenate([p.astype(xp.float64) for p in parts]))  # one read: value, gradient
        return float(out[0]), out[1:]

    def _weighted_gram(self, h: Any) -> Any:
        """``Xa^T diag(h) Xa`` for the design matrix with its column of ones (when fitting an intercept), on the
        device: one GEMM over X."""
        xp, X = self.xp, self.X
        G = X.T @ (X * h[:, None])
        if not self.fit_intercept:
            return G
        c = X.T @ h
        top = xp.concatenate([G, c[:, None]], axis=1)
        return xp.concatenate([top, xp.concatenate([c, h.sum()[None]])[None, :]], axis=0)

    def hessian(self, w: np.ndarray) -> np.ndarray:
        """The Hessian at ``w`` (host float64, scikit-learn's parameter order): ``K (K + 1) / 2`` weighted Gram
        matrices of X on the device (one for two classes), assembled on the host."""
        xp, X, d = self.xp, self.X, self.d
        D = d + int(self.fit_intercept)
        if self.n_classes == 2:
            params = _device.to_device(w.astype(X.dtype), xp)
            raw = X @ params[:d] + (params[d] if self.fit_intercept else 0.0)
            p = _expit(raw, xp)
            h = self._weighted(p * (1 - p)) / self.sw_sum
            H = _device.to_host(self._weighted_gram(h)).astype(np.float64)  # one read: the Hessian
            H[np.arange(d), np.arange(d)] += self.l2
            return H
        K = self.n_classes
        W = _device.to_device(w.astype(X.dtype), xp).reshape((K, -1), order="F")
        raw = X @ W[:, :d].T + (W[:, d] if self.fit_intercept else 0.0)
        P = xp.exp(raw - raw.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        V = self._weighted(P) / self.sw_sum  # each sample's weight share times its probabilities
        blocks = []
        for k in range(K):
            for j in range(k, K):
                h = -V[:, k] * P[:, j]
                blocks.append(self._weighted_gram(h + V[:, k] if j == k else h))
        flat = _device.to_host(xp.stack(blocks)).astype(np.float64)  # one read: the K (K + 1) / 2 blocks
        H4 = np.empty((D, K, D, K))
        index = 0
        for k in range(K):
            for j in range(k, K):
                H4[:, k, :, j] = flat[index]
                H4[:, j, :, k] = flat[index].T
                index += 1
        H = H4.reshape(D * K, D * K)
        coef_entries = np.arange(d * K)  # F order of (K, D): the coefficients come before the intercepts
        H[coef_entries, coef_entries] += self.l2
        return H


def _minimize(fun: Any, x0: np.ndarray, max_iter: int, gtol: float, bounds: Any = None) -> Any:
    """scipy's L-BFGS-B with scikit-learn's options (``maxls=50``, ``ftol=64 * eps``); ``fun`` gives value and
    gradient."""
    return optimize.minimize(fun, x0, method="L-BFGS-B", jac=True, bounds=bounds,
                             options={"maxiter": max_iter, "maxls": 50, "gtol": gtol,
                                      "ftol": 64 * np.finfo(float).eps})  # fmt: skip


def _lbfgs(objective: _Objective, w0: np.ndarray, max_iter: int, tol: float) -> tuple[np.ndarray, int, bool]:
    """scikit-learn's L-BFGS-B call (its options, its ConvergenceWarning)."""
    result = _minimize(objective, w0, max_iter, tol)
    n_iter = _check_optimize_result("lbfgs", result, max_iter, extra_warning_msg=_LOGISTIC_SOLVER_CONVERGENCE_MSG)
    return result.x, n_iter, result.status == 0


def _l1_bounded(objective: _Objective, w0: np.ndarray, n_coef: int, max_iter: int,
                tol: float) -> tuple[np.ndarray, int]:  # fmt: skip
    """Minimize the smooth objective plus ``l1 * ||coef||_1`` as a bound-constrained smooth problem: ``coef = u - v``
    with ``u, v >= 0`` turns the L1 norm into the linear ``sum(u + v)``, which L-BFGS-B minimizes exactly (at the
    optimum one of ``u_j, v_j`` is zero). Each evaluation is one pass over the data on the device."""
    l1 = objective.l1
    rest = w0.shape[0] - n_coef

    def value_and_gradient(x: np.ndarray) -> tuple[float, np.ndarray]:
        u, v = x[:n_coef], x[n_coef : 2 * n_coef]
        value, g = objective(np.concatenate([u - v, x[2 * n_coef :]]))
        gc = g[:n_coef]
        return value + l1 * (u.sum() + v.sum()), np.concatenate([gc + l1, l1 - gc, g[n_coef:]])

    x0 = np.concatenate([np.maximum(w0[:n_coef], 0), np.maximum(-w0[:n_coef], 0), w0[n_coef:]])
    bounds = [(0.0, None)] * (2 * n_coef) + [(None, None)] * rest
    result = _minimize(value_and_gradient, x0, max_iter, _L1_GTOL_FACTOR * tol, bounds)
    if result.status == 1:  # the iteration limit: scikit-learn's saga warning
        warnings.warn("The max_iter was reached which means the coef_ did not converge", ConvergenceWarning)
    x = result.x
    return np.concatenate([x[:n_coef] - x[n_coef : 2 * n_coef], x[2 * n_coef :]]), int(result.nit)


def _newton(objective: _Objective, w0: np.ndarray, max_iter: int, tol: float) -> tuple[np.ndarray, int]:
    """scikit-learn's NewtonCholeskySolver, step for step: the Hessian from the device, the Newton step solved on
    the host (``n_params x n_params``), Armijo backtracking, the same convergence test, the same treatment of the
    multinomial's redundant parameters and the same L-BFGS fallback."""
    K = objective.n_classes
    multinomial = K > 2
    no_penalty = multinomial and objective.l2 == 0
    with_intercept = multinomial and objective.fit_intercept
    coef = w0.astype(np.float64).copy()
    if no_penalty:
        W = coef.reshape((K, -1), order="F")
        W -= W[-1, :]
        coef = W.ravel(order="F")
    elif with_intercept:
        coef[-K:] -= coef[-1]
    value, gradient = objective(coef)
    iteration, converged, fallback = 1, False, False
    eps = 16 * np.finfo(objective.X.dtype).eps
    while iteration <= max_iter and not converged:
        hessian = objective.hessian(coef)
        g, H = gradient.copy(), hessian.copy()
        if no_penalty:
            n_dof = coef.size // K
            g[K - 1 :: K] = 0
            H[K - 1 :: K, :] = 0
            H[:, K - 1 :: K] = 0
            g_in = g.reshape(-1, K)[:, :-1].ravel()
            H_in = H.reshape(n_dof, K, n_dof, K)[:, :-1, :, :-1].reshape(n_dof * (K - 1), n_dof * (K - 1))
        elif with_intercept:
            g[-1] = 0
            H[-1, :] = 0
            H[:, -1] = 0
            g_in, H_in = g[:-1], H[:-1, :-1]
        else:
            g_in, H_in = g, H
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", linalg.LinAlgWarning)
                step = linalg.solve(H_in, -g_in, check_finite=False, assume_a="sym")
        except (np.linalg.LinAlgError, linalg.LinAlgWarning) as e:
            warnings.warn("The inner solver of NewtonCholeskySolver stumbled upon a singular or very "
                          f"ill-conditioned Hessian matrix at iteration {iteration}. It will now resort to lbfgs "
                          "instead.\nFurther options are to use another solver or to avoid such situation in the "
                          "first place. Possible remedies are removing collinear features of X or increasing the "
                          "penalization strengths.\nThe original Linear Algebra message was:\n" + str(e),
                          linalg.LinAlgWarning)  # fmt: skip
            fallback = True
            break
        if no_penalty:
            step = np.c_[step.reshape(n_dof, K - 1), np.zeros(n_dof)].reshape(-1)
        elif with_intercept:
            step = np.r_[step, 0]
        slope = g @ step
        if slope > 0:  # not a descent direction
            fallback = True
            break
        # backtracking line search (scikit-learn's constants and its tiny-improvement rule)
        t, armijo = 1.0, 0.00048828125 * slope
        old_value, old_gradient, old_abs = value, gradient, -1.0
        for _ in range(21):
            trial = coef + t * step
            value, gradient = objective(trial)
            improvement = value - old_value
            if improvement <= t * armijo:
                break
            if abs(improvement) <= abs(old_value * eps):
                if old_abs < 0:
                    old_abs = np.abs(old_gradient).sum()
                if np.abs(gradient).sum() < old_abs:
                    break
            t *= 0.5
        else:
            warnings.warn(f"Line search of Newton solver NewtonCholeskySolver at iteration #{iteration} did not "
                          "converge after 21 line search refinement iterations. It will now resort to lbfgs "
                          "instead.", ConvergenceWarning)  # fmt: skip
            coef, value, gradient = coef, old_value, old_gradient
            fallback = True
            break
        coef = trial
        if np.abs(gradient).max() <= tol and 0.5 * (step @ hessian @ step) <= tol:
            converged = True
        iteration += 1
    if not converged:
        if fallback:
            coef, n_lbfgs, converged = _lbfgs(objective, coef, max_iter - iteration, tol)
            iteration += n_lbfgs
        else:
            warnings.warn(f"Newton solver did not converge after {iteration - 1} iterations.", ConvergenceWarning)
    iteration -= 1
    if no_penalty:
        W = coef.reshape((K, -1), order="F")
        coef = (W - W.mean(axis=0)).ravel(order="F")
    elif with_intercept:
        coef[-K:] -= coef[-K:].mean()
    return coef, iteration


class LogisticRegression(LinearClassifierMixin, DeviceEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Logistic regression classifier (``sklearn.linear_model.LogisticRegression``).

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
        """Fit the model by minimizing the penalized log loss (see the module docstring for each solver)."""
        penalty, C = self._penalty()
        solver = _check_solver(self.solver, penalty, self.dual)
        if penalty != "elasticnet" and (self.l1_ratio is not None and 0 < self.l1_ratio < 1):
            warnings.warn(f"l1_ratio parameter is only used when penalty is 'elasticnet'. Got (penalty={penalty})")
        if (self.penalty == "l2" and self.l1_ratio != 0) or (self.penalty == "l1" and self.l1_ratio != 1):
            warnings.warn(f"Inconsistent values: penalty={self.penalty} with l1_ratio={self.l1_ratio}. penalty is "
                          "deprecated. Please use l1_ratio only.")  # fmt: skip
        if penalty == "elasticnet" and self.l1_ratio is None:
            raise ValueError("l1_ratio must be specified when penalty is elasticnet.")
        l1_ratio = {"l1": 1.0, "elasticnet": self.l1_ratio}.get(penalty, 0.0)
        if self.penalty is None:
            if self.C != 1.0:
                warnings.warn("Setting penalty=None will ignore the C and l1_ratio parameters")
            C = np.inf
        if self.n_jobs is not None:
            warnings.warn("'n_jobs' has no effect since 1.8 and will be removed in 1.10. You provided "
                          f"'n_jobs={self.n_jobs}', please leave it unspecified.", FutureWarning)  # fmt: skip
        if _dask.is_dask_collection(X):  # loss and gradient summed over the blocks (riptide.ml._dask)
            return _dask.fit_logistic(self, X, y, sample_weight, solver, penalty, C)
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
        if solver == "liblinear":
            return self._fit_liblinear(X, X_given, codes, n_classes, sw, C, penalty, l1_ratio, xp)
        objective = _Objective(X, codes, n_classes, sw, C, self.fit_intercept, xp, l1_ratio=l1_ratio)
        w0 = w0.ravel(order="F")
        if penalty in ("l1", "elasticnet"):
            w, n_iter = _l1_bounded(objective, w0, d * (1 if n_classes == 2 else n_classes), self.max_iter, self.tol)
        elif solver in ("newton-cholesky", "newton-cg"):
            w, n_iter = _newton(objective, w0, self.max_iter, self.tol)
        else:
            w, n_iter, _ = _lbfgs(objective, w0, self.max_iter, self.tol)
        self.n_iter_ = np.asarray([n_iter], dtype=np.int32)
        W = w.reshape((1, n_params) if n_classes == 2 else (n_classes, n_params), order="F")
        W = _device.to_device(np.ascontiguousarray(W).astype(X.dtype), xp)
        self.coef_ = W[:, :d]
        self.intercept_ = W[:, d] if self.fit_intercept else xp.zeros(W.shape[0], dtype=X.dtype)
        return self._publish(X_given)

    def _fit_liblinear(self, X, X_given, codes, n_classes, sw, C, penalty, l1_ratio, xp):
        """liblinear's problem (binary only): the intercept is the weight of a constant feature of value
        ``intercept_scaling`` and is penalized like the coefficients; solved as the other penalized problems."""
        if n_classes > 2:
            raise ValueError("The 'liblinear' solver does not support multiclass classification (n_classes >= 3). "
                             "Either use another solver or wrap the estimator in a OneVsRestClassifier to keep "
                             "applying a one-versus-rest scheme.")  # fmt: skip
        if bool(X.max() > 1e30):  # one scalar read: scikit-learn refuses data liblinear would freeze on
            raise ValueError("Using the 'liblinear' solver while X contains a maximum value > 1e30 results in a "
                             "frozen fit. Please choose another solver or rescale the input X.")  # fmt: skip
        if penalty == "l1" and self.dual:
            raise ValueError("Unsupported set of arguments: The combination of penalty='l1' and "
                             "loss='logistic_regression' are not supported when dual=True, Parameters: "
                             "penalty='l1', loss='logistic_regression', dual=True")  # fmt: skip
        d = X.shape[1]
        scaling = float(self.intercept_scaling)
        design = xp.concatenate([X, xp.full((X.shape[0], 1), scaling, dtype=X.dtype)], axis=1) \
            if self.fit_intercept else X  # fmt: skip
        objective = _Objective(design, codes, 2, sw, C, False, xp, l1_ratio=l1_ratio)
        w0 = np.zeros(design.shape[1])  # liblinear has no warm start
        if penalty == "l1":
            w, n_iter = _l1_bounded(objective, w0, w0.shape[0], self.max_iter, self.tol)
        else:  # liblinear's tol is relative to its unscaled gradient: solved as tightly as the L1 problem
            result = _minimize(objective, w0, self.max_iter, _L1_GTOL_FACTOR * self.tol)
            if result.status == 1:
                warnings.warn("Liblinear failed to converge, increase the number of iterations.", ConvergenceWarning)
            w, n_iter = result.x, int(result.nit)
        self.n_iter_ = np.asarray([n_iter], dtype=np.int32)
        w = _device.to_device(w.astype(X.dtype), xp)
        self.coef_ = w[None, :d]
        self.intercept_ = scaling * w[d:] if self.fit_intercept else xp.zeros(1, dtype=X.dtype)
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
        if _dask.is_dask_collection(X):  # a lazy Dask array, block by block
            return _dask.map_rows(self, "decision_function", X)
        return super().decision_function(X)

    def predict(self, X):
        """The class with the largest score."""
        if _dask.is_dask_collection(X):  # a lazy Dask array, block by block
            return _dask.map_rows(self, "predict", X)
        return super().predict(X)

    def predict_proba(self, X):
        """Class probabilities: the logistic function (two classes) or the softmax of the scores."""
        if _dask.is_dask_collection(X):  # a lazy Dask array, block by block
            return _dask.map_rows(self, "predict_proba", X)
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags
