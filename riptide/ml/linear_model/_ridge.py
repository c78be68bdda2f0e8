"""Ridge regression: least squares with an L2 penalty, solved in closed form on the device.

The penalized normal equations ``(Xc^T W Xc + alpha I) w = Xc^T W yc`` are solved in float64 from the Gram matrix
(``d x d``) when there are at least as many samples as features, and from the kernel matrix (``n x n``, the dual
form ``w = Xc^T (K + alpha I)^-1 yc``) otherwise, as scikit-learn's cholesky solver does:

* ``'cholesky'`` (and ``'auto'``): a linear solve per distinct alpha; if it fails (alpha 0 on singular data) the fit
  falls back to ``'svd'``, as scikit-learn does, and ``solver_`` says so;
* ``'svd'``: the eigendecomposition of the Gram/kernel matrix, whose eigenvalues are the squared singular values
  of X: ``w = V diag(1 / (s^2 + alpha)) V^T Xc^T yc``, all targets and alphas at once; singular values at or below
  1e-15 are dropped, as in scikit-learn's ``_solve_svd``;
* the iterative solvers (``'sparse_cg'``, ``'lsqr'``, ``'sag'``, ``'saga'``) approximate the same minimizer to
  ``tol``; riptide returns the exact one (the cholesky solve) and ``n_iter_`` is None;
* ``positive=True`` (solver ``'auto'`` or ``'lbfgs'``, as scikit-learn requires): scikit-learn runs L-BFGS-B with
  bounds to ``tol``; riptide returns the exact bounded minimizer, by an active-set method on the primal normal
  equations ``(Xc^T W Xc + alpha I, Xc^T W yc)`` (:mod:`riptide.ml.linear_model._nnls`), and ``solver_`` is
  ``'lbfgs'``, ``n_iter_`` None, as scikit-learn reports. Scikit-learn's coefficients approach these as its
  ``tol`` goes to 0; at the default ``tol=1e-4`` its L-BFGS-B stops short (by a few parts in a thousand on
  tall data, by 10% and more on wide data with a small alpha), so compare with a tight ``tol``.
"""

from __future__ import annotations

import types
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from riptide import _device
from riptide.ml import _dask
from riptide.ml._validation import FLOAT_DTYPES, check_sample_weight, validate_data
from riptide.ml.linear_model._base import LinearModelMixin, _Centered
from riptide.ml.linear_model._nnls import nnls_normal_equations

__all__ = ["Ridge"]


def _solve_direct(M: Any, R: Any, alpha: Any, xp: types.ModuleType) -> Any | None:
    """(M + alpha_j I)^-1 R[:, j] for every target j (one solve per distinct alpha), or None if singular."""
    eye = xp.eye(M.shape[0], dtype=M.dtype)
    alpha_host = _device.to_host(alpha)  # alphas are parameters (host values); the read is of a few numbers
    out = xp.empty_like(R)
    try:
        for value in np.unique(alpha_host):
            targets = np.flatnonzero(alpha_host == value)
            idx = xp.asarray(targets)
            A = M + value * eye
            if _numerically_singular(A, xp):
                return None
            out[:, idx] = xp.linalg.solve(A, R[:, idx])
    except np.linalg.LinAlgError:
        return None
    if not bool(xp.isfinite(out).all()):  # one scalar read: CuPy reports a singular solve with non-finite values
        return None
    return out


def _numerically_singular(A: Any, xp: types.ModuleType) -> bool:
    """Is the symmetric positive semi-definite A singular to working precision? (a Cholesky pivot below
    n * eps * max diag(A)). NumPy's LU raises on an exactly zero pivot, but a GPU factorization of the same singular
    matrix (e.g. X with two equal columns and alpha=0) rounds differently and returns a finite, wrong solution, so
    the test has to look at the pivots."""
    if A.shape[0] == 0:
        return False
    L = xp.linalg.cholesky(A)  # NumPy raises LinAlgError when A is not positive definite; CuPy gives NaNs
    pivots = xp.diagonal(L) ** 2
    tiny = A.shape[0] * np.finfo(A.dtype).eps * xp.abs(xp.diagonal(A)).max()
    return not bool(xp.isfinite(pivots).all() & (pivots.min() > tiny))  # one scalar read: which solver applies


def _solve_spectral(M: Any, R: Any, alpha: Any, xp: types.ModuleType) -> Any:
    """The same through the eigendecomposition of M (eigenvalues = squared singular values of X)."""
    eigenvalues, V = xp.linalg.eigh(M)
    # scikit-learn keeps singular values of X above 1e-15 (eigenvalues of M above 1e-30). M = X^T X carries only
    # the rank M itself can resolve: a direction X lacks comes out of eigh as rounding, about eps * the largest
    # eigenvalue (on the GPU well above 1e-30), so M's own rank tolerance applies too, as numpy.linalg.matrix_rank's.
    floor = eigenvalues.max() * M.shape[0] * np.finfo(M.dtype).eps if M.shape[0] else 0.0
    keep = (eigenvalues > 1e-30) & (eigenvalues > floor)
    denominator = xp.where(keep[:, None], eigenvalues[:, None] + alpha[None, :], 1.0)
    factor = xp.where(keep[:, None], 1.0 / denominator, 0.0)
    return V @ (factor * (V.T @ R))


class Ridge(LinearModelMixin, MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Linear least squares with L2 regularization (``sklearn.linear_model.Ridge``).

    Parameters
    ----------
    alpha : float or array-like of shape (n_targets,), default=1.0
    fit_intercept : bool, default=True
    copy_X : bool, default=True
        Accepted for compatibility; riptide never overwrites X.
    max_iter : int, default=None
        Accepted for compatibility (the solve is direct).
    tol : float, default=1e-4
        Accepted for compatibility (the solves are exact).
    solver : {'auto', 'svd', 'cholesky', 'lsqr', 'sparse_cg', 'sag', 'saga', 'lbfgs'}, default='auto'
        See the module docstring for how each is solved.
    positive : bool, default=False
        Non-negative coefficients (solver 'auto' or 'lbfgs'); see the module docstring.
    random_state : int, RandomState instance or None, default=None
        Accepted for compatibility.

    Attributes
    ----------
    coef_ : array of shape (n_features,) or (n_targets, n_features)
    intercept_ : float or array of shape (n_targets,)
    n_iter_ : None
    solver_ : str
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.linear_model import Ridge
    >>> X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    >>> reg = Ridge(alpha=1.0).fit(X, [0.0, 0.1, 1.0])
    >>> np.round(reg.coef_, 6).tolist(), round(float(reg.intercept_), 6)
    ([0.271429, 0.271429], 0.185714)
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "fit_intercept": ["boolean"],
        "copy_X": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="left")],
        "solver": [StrOptions({"auto", "svd", "cholesky", "lsqr", "sparse_cg", "sag", "saga", "lbfgs"})],
        "positive": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, alpha=1.0, *, fit_intercept=True, copy_X=True, max_iter=None, tol=1e-4, solver="auto",
                 positive=False, random_state=None):  # fmt: skip
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.positive = positive
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the ridge coefficients."""
        X_given = X
        if self.solver == "lbfgs" and not self.positive:
            raise ValueError("'lbfgs' solver can be used only when positive=True. Please use another solver.")
        if self.positive and self.solver not in ("auto", "lbfgs"):
            raise ValueError(f"solver='{self.solver}' does not support positive fitting. Please set the solver to "
                             "'auto' or 'lbfgs', or set `positive=False`")  # fmt: skip
        if _dask.is_dask_collection(X):  # per-block Gram matrices, combined on the client
            return _dask.fit_ridge(self, X, y, sample_weight)
        X, y, xp = validate_data(self, X, y, reset=True, dtype=FLOAT_DTYPES, y_numeric=True, multi_output=True)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X.shape[0], X.dtype, xp)
        n_targets = 1 if y.ndim == 1 else y.shape[1]
        alpha = np.ravel(np.asarray(_device.to_host(self.alpha), dtype=np.float64))
        if alpha.shape[0] not in (1, n_targets):
            raise ValueError("Number of targets and number of penalties do not correspond: %d != %d"
                             % (alpha.shape[0], n_targets))  # fmt: skip
        alpha = np.broadcast_to(alpha, (n_targets,))
        centered = _Centered(X, y, sample_weight, self.fit_intercept, xp)
        if self.positive:  # scikit-learn's 'lbfgs' with bounds: the exact bounded minimizer (see the docstring)
            G, B = centered.gram()
            coef = _device.to_device(nnls_normal_equations(_device.to_host(G), _device.to_host(B), alpha,
                                                           n_samples=X.shape[0]), xp)  # fmt: skip
            self.solver_ = "lbfgs"
            return self._finish(centered, coef, n_targets, y, X_given)
        primal = X.shape[1] <= X.shape[0]
        M, R = centered.gram() if primal else (centered.X @ centered.X.T, centered.Y)
        solver = "cholesky" if self.solver == "auto" else self.solver
        solution = None if solver == "svd" else _solve_direct(M, R, alpha, xp)
        if solution is None:
            solver = "svd"
            solution = _solve_spectral(M, R, xp.asarray(alpha), xp)
        coef = solution if primal else centered.X.T @ solution
        self.solver_ = solver
        return self._finish(centered, coef, n_targets, y, X_given)

    def _finish(self, centered: _Centered, coef: Any, n_targets: int, y: Any, X_given: Any) -> Ridge:
        self.n_iter_ = None
        centered.finish(self, coef, self.fit_intercept)
        if n_targets == 1 and y.ndim == 2:  # scikit-learn: one target gives a flat coef_, even from a 2-D y
            self.coef_ = self.coef_[0]
        return self._publish(X_given)
