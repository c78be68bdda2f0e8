"""Least squares: LinearRegression, and what the linear models share (centering, the Gram matrix, predict, R^2).

Why the normal equations. A GPU multiplies a tall ``n x d`` matrix by its transpose at full speed, in one pass over
the data, and what remains (a ``d x d`` eigendecomposition) is tiny. scikit-learn's ``scipy.linalg.lstsq`` instead
factors the whole ``n x d`` matrix. Both give the minimum-norm least-squares solution; they differ in rounding:
squaring the matrix squares its condition number. So the solve is done in float64 whatever the input dtype, with
the eigenvalues of the Gram matrix ``G = Xc^T W Xc`` giving scikit-learn's ``singular_`` (``sqrt`` of them) and
``rank_`` (singular values above ``tol * max``, as ``lstsq(cond=tol)``), and when a kept eigenvalue is so small
(below ``1e-8 * max``, a condition number of ``1e4`` in X) that the squared system would lose digits, the fit
falls back to the SVD-based ``lstsq`` of the centered data itself, which is what scikit-learn computes. One scalar
read makes that choice.

``positive=True`` (non-negative least squares) solves the same normal equations under ``w >= 0`` by an active-set
method on the host (:mod:`riptide.ml.linear_model._nnls`).
"""

from __future__ import annotations

import types
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from riptide import _device
from riptide.ml import _dask
from riptide.ml import _kernels as ml_kernels
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import FLOAT_DTYPES, check_sample_weight, on_device, validate_data
from riptide.ml.linear_model._nnls import nnls_normal_equations

__all__ = ["LinearRegression"]

_EIGH_FALLBACK_RATIO = 1e-8  # kept eigenvalue / largest below this: solve with the SVD of the data instead


class _Centered:
    """X and y centered (weighted means when there are weights), scaled by sqrt(weight), in float64."""

    def __init__(self, X: Any, y: Any, sample_weight: Any, fit_intercept: bool, xp: types.ModuleType):
        f64 = xp.float64
        self.xp = xp
        self.dtype = X.dtype
        self.y_1d = y.ndim == 1
        Xf = X.astype(f64)
        Y = (y.reshape(-1, 1) if self.y_1d else y).astype(f64)
        if fit_intercept:
            if sample_weight is None:
                self.X_offset = ml_kernels.column_means(Xf, xp)
                self.y_offset = ml_kernels.column_means(Y, xp)
            else:
                w = sample_weight.astype(f64)
                total = w.sum()
                self.X_offset = (w @ Xf) / total
                self.y_offset = (w @ Y) / total
            Xf = Xf - self.X_offset
            Y = Y - self.y_offset
        else:
            self.X_offset = xp.zeros(X.shape[1], dtype=f64)
            self.y_offset = xp.zeros(Y.shape[1], dtype=f64)
        if sample_weight is not None:
            root = xp.sqrt(sample_weight.astype(f64))[:, None]
            Xf = Xf * root
            Y = Y * root
        self.X, self.Y = Xf, Y

    def gram(self) -> tuple[Any, Any]:
        return self.X.T @ self.X, self.X.T @ self.Y

    def finish(self, estimator: Any, coef: Any, fit_intercept: bool) -> None:
        """Store ``coef_`` (n_targets, n_features) or (n_features,) and ``intercept_`` in the input's dtype."""
        intercept = self.y_offset - self.X_offset @ coef if fit_intercept else None
        coef = coef.T.astype(self.dtype)
        if self.y_1d:
            coef = coef[0]
        estimator.coef_ = coef
        if not fit_intercept:
            estimator.intercept_ = 0.0
        else:
            intercept = intercept.astype(self.dtype)
            estimator.intercept_ = intercept[0][()] if self.y_1d else intercept  # [()]: a NumPy scalar on the CPU


class LinearModelMixin(DeviceEstimatorMixin):
    """predict and score of the linear regressors."""

    def _linear(self, A: Any, xp: types.ModuleType) -> Any:
        """``A @ coef_.T + intercept_`` for validated A."""
        if A.dtype.kind != "f":
            A = A.astype(xp.float64)
        coef = self._fitted("coef_", xp)
        intercept = self.intercept_ if np.isscalar(self.intercept_) else self._fitted("intercept_", xp)
        return A @ coef.T + intercept

    def predict(self, X):
        """Predict with the linear model: ``X @ coef_.T + intercept_``."""
        check_is_fitted(self)
        if _dask.is_dask_collection(X):  # a lazy Dask array, block by block
            return _dask.map_rows(self, "predict", X)
        A, xp = validate_data(self, X, reset=False)
        return self._output(self._linear(A, xp), X, method="predict")

    def score(self, X, y, sample_weight=None):
        """R^2 of the prediction (``sklearn.metrics.r2_score``, uniform average over targets)."""
        if on_device(X, y, sample_weight) is None:
            return super().score(X, y, sample_weight=sample_weight)
        from riptide.ml.metrics import r2_score  # scikit-learn's score is r2_score of predict: so is this one

        check_is_fitted(self)
        A, Y, xp = validate_data(self, X, y, reset=False, y_numeric=True, multi_output=True)
        return r2_score(Y, self._linear(A, xp), sample_weight=sample_weight)


class LinearClassifierMixin:
    """decision_function, predict and score of the linear classifiers, from the class's ``_scores(X)``."""

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

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of :meth:`predict` (``sklearn.metrics.accuracy_score``), on the inputs' device."""
        from riptide.ml.metrics import accuracy_score

        return accuracy_score(y, self.predict(X), sample_weight=sample_weight)


def _lstsq_min_norm(centered: _Centered, tol: float) -> tuple[Any, int, Any]:
    """Minimum-norm least-squares coefficients (n_features, n_targets), rank and singular values (descending)."""
    xp = centered.xp
    G, B = centered.gram()
    eigenvalues, V = xp.linalg.eigh(G)
    eigenvalues, V = eigenvalues[::-1], V[:, ::-1]
    top = eigenvalues[0]
    keep = eigenvalues > (tol * tol) * top
    smallest_kept = xp.where(keep, eigenvalues, top).min()
    # one scalar read: is the squared system accurate enough, or is the SVD of the data needed?
    if bool((smallest_kept >= _EIGH_FALLBACK_RATIO * top) | (top <= 0)):
        inverse = xp.where(keep, 1.0 / xp.where(keep, eigenvalues, 1.0), 0.0)
        coef = V @ (inverse[:, None] * (V.T @ B))
        singular = xp.sqrt(xp.maximum(eigenvalues, 0.0))
        rank = int(keep.sum())  # one scalar read: rank_ is a Python int
        return coef, rank, singular
    coef, _, rank, singular = xp.linalg.lstsq(centered.X, centered.Y, rcond=tol)
    return coef, int(rank), singular


class LinearRegression(LinearModelMixin, MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Ordinary least squares (``sklearn.linear_model.LinearRegression``).

    Parameters
    ----------
    fit_intercept : bool, default=True
    copy_X : bool, default=True
        Accepted for compatibility; riptide never overwrites X.
    tol : float, default=1e-6
        Singular values below ``tol * largest`` are treated as zero (``lstsq``'s ``cond``).
    n_jobs : int, default=None
        Accepted for compatibility; ignored.
    positive : bool, default=False
        Non-negative coefficients (scikit-learn's ``scipy.optimize.nnls``): Lawson and Hanson's active-set method
        on the normal equations formed on the device (:mod:`riptide.ml.linear_model._nnls`). ``rank_`` and
        ``singular_`` are then not set, as in scikit-learn.

    Attributes
    ----------
    coef_ : array of shape (n_features,) or (n_targets, n_features)
    intercept_ : float or array of shape (n_targets,)
    rank_ : int
        Not set when ``positive=True``.
    singular_ : array of shape (min(n_samples, n_features),)
        Not set when ``positive=True``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.linear_model import LinearRegression
    >>> X = np.array([[1, 1], [1, 2], [2, 2], [2, 3]])
    >>> y = X @ np.array([1, 2]) + 3
    >>> reg = LinearRegression().fit(X, y)
    >>> np.round(reg.coef_, 6).tolist(), round(float(reg.intercept_), 6)
    ([1.0, 2.0], 3.0)
    >>> np.round(reg.predict(np.array([[3, 5]])), 6).tolist()
    [16.0]
    """

    _parameter_constraints: dict = {
        "fit_intercept": ["boolean"],
        "copy_X": ["boolean"],
        "n_jobs": [None, Integral],
        "positive": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, *, fit_intercept=True, copy_X=True, tol=1e-6, n_jobs=None, positive=False):
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.tol = tol
        self.n_jobs = n_jobs
        self.positive = positive

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the least-squares coefficients."""
        X_given = X
        if _dask.is_dask_collection(X):  # per-block Gram matrices, combined on the client
            return _dask.fit_linear_regression(self, X, y, sample_weight)
        X, y, xp = validate_data(self, X, y, reset=True, dtype=FLOAT_DTYPES, y_numeric=True, multi_output=True)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X.shape[0], X.dtype, xp, ensure_non_negative=True)
        centered = _Centered(X, y, sample_weight, self.fit_intercept, xp)
        if self.positive:  # scikit-learn's NNLS (it sets neither rank_ nor singular_ then)
            self.__dict__.pop("rank_", None)
            self.__dict__.pop("singular_", None)
            G, B = centered.gram()
            coef = _device.to_device(nnls_normal_equations(_device.to_host(G), _device.to_host(B),
                                                           n_samples=X.shape[0]), xp)  # fmt: skip
        else:
            coef, self.rank_, singular = _lstsq_min_norm(centered, self.tol)
            self.singular_ = singular[: min(X.shape)].astype(X.dtype)
        centered.finish(self, coef, self.fit_intercept)
        return self._publish(X_given)
