"""Lasso and ElasticNet: coordinate descent over the Gram matrix, computed once on the device.

scikit-learn minimizes ``1 / (2 n) ||y - X w - b||^2 + alpha * l1_ratio * ||w||_1 + alpha * (1 - l1_ratio) / 2
* ||w||^2`` by cyclic (or random) coordinate descent, one coordinate at a time, stopping when the largest update of
a sweep is small relative to the largest coefficient *and* the duality gap is below ``tol * ||y - mean(y)||^2``.

Where the work runs. Each coordinate update needs one entry of ``X^T (y - X w)``; with the covariance update
(scikit-learn's ``enet_coordinate_descent_gram``) that is ``q_j - (G w)_j`` for the Gram matrix ``G = Xc^T W Xc``
and ``q = Xc^T W yc``, and the duality gap needs only ``G``, ``q``, ``w`` and ``||yc||^2_W``. So the data is read
**once**: one GEMM ``X^T X`` and one ``X^T y`` on the device (centring is applied afterwards through the means,
``G = X^T W X - S m m^T``, so no centred copy of X is made), and everything after that is ``p x p``.

Why the sweeps run on the host. A sweep over a ``p x p`` Gram matrix is ``p`` dependent updates of ``p`` numbers
each (2,500 multiply-adds for ``p = 50``, a million for ``p = 1000``); on a GPU that is one block synchronizing
after every coordinate, microseconds of latency per coordinate, while the host does a whole sweep in the same
time. The sweeps are therefore run by scikit-learn's own compiled ``enet_coordinate_descent_gram`` on the host
copy of ``G`` and ``q`` (``p^2 + p`` numbers moved once): the iterates, the gap-safe screening, the stopping rule,
``n_iter_``, ``dual_gap_`` and the ``ConvergenceWarning`` are scikit-learn's by construction, not by imitation.
The Cython routine reads ``y`` only for ``||y||^2``, so it is handed the one number ``sqrt(||yc||^2_W)``.

Wide data (no more samples than features): the Gram matrix would be larger than X and scikit-learn's own rule
(``precompute='auto'``) would not form it either, so the fit takes scikit-learn's residual-update routine
(``enet_coordinate_descent``) over the centred host copy of X, in X's dtype: scikit-learn's default path exactly.

Differences from scikit-learn on tall data, all in rounding:

* scikit-learn's default ``precompute=False`` updates residuals over X instead of the Gram matrix; the iterates
  are the same in exact arithmetic (``coef_`` agrees to the solver tolerance and ``n_iter_`` normally exactly).
  Every ``precompute`` value takes the Gram route here (an array is used as given, as scikit-learn does).
* The Gram matrix and the sweeps are in float64 for float32 data too (scikit-learn sweeps in float32); results are
  returned in X's dtype. Centring through the means loses ``log10(|mean| / std)^2`` digits of float64 in ``G``,
  harmless for data that is not dominated by its offset; a constant column gives an exactly zero row of ``G``.
* Multi-output ``y`` is fitted one target at a time, as scikit-learn's ``ElasticNet.fit`` does, from the same Gram
  matrix. ``sparse_coef_`` is a SciPy sparse matrix built from the host copy of ``coef_``.
"""

from __future__ import annotations

import numbers
import types
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin, _fit_context
from sklearn.linear_model import _cd_fast
from sklearn.linear_model._base import _preprocess_data
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from riptide import _device
from riptide.ml import _kernels as ml_kernels
from riptide.ml._validation import FLOAT_DTYPES, check_sample_weight, validate_data
from riptide.ml.linear_model._base import LinearModelMixin

__all__ = ["ElasticNet", "Lasso"]


class _GramProblem:
    """The centred, weighted least-squares problem as ``p x p`` host arrays: G, q (p, targets), ||yc||^2 per
    target, and the offsets (X_offset, y_offset) for the intercept. Built from one pass over X on the device."""

    def __init__(self, X: Any, Y: Any, sw: Any, fit_intercept: bool, xp: types.ModuleType):
        f64 = xp.float64
        n = X.shape[0]
        Xd = X if X.dtype == f64 else X.astype(f64)  # float32 data: float64 products (see module docstring)
        Yd = Y.astype(f64)
        Xw = Xd if sw is None else Xd * sw.astype(f64)[:, None]
        Yw = Yd if sw is None else Yd * sw.astype(f64)[:, None]
        total = float(n) if sw is None else sw.astype(f64).sum()
        G = Xd.T @ Xw  # the one pass over X (two GEMMs; scikit-learn's X^T X and X^T y)
        q = Xd.T @ Yw
        squares = xp.diagonal(G).copy()  # the uncentred diagonal: the scale for the constant-column test
        if fit_intercept:
            X_offset = ml_kernels.column_totals(Xw, xp) / total  # coalesced column sums on the GPU
            y_offset = ml_kernels.column_totals(Yw, xp) / total
            G = G - total * xp.outer(X_offset, X_offset)
            q = q - total * xp.outer(X_offset, y_offset)
        else:
            X_offset = xp.zeros(X.shape[1], dtype=f64)
            y_offset = xp.zeros(Y.shape[1], dtype=f64)
        centred = Yd - y_offset
        y_norm2 = ml_kernels.column_totals((centred * centred) * (1.0 if sw is None else sw.astype(f64)[:, None]),
                                           xp)  # fmt: skip
        p, k = G.shape[0], q.shape[1]
        parts = [G.ravel(), q.ravel(), y_norm2, X_offset, y_offset, squares]
        flat = _device.to_host(xp.concatenate(parts))  # one read: the p x p problem moves to the host once
        sizes = np.cumsum([p * p, p * k, k, p, k])
        G, q, y_norm2, X_offset, y_offset, squares = np.split(flat, sizes)
        self.G = np.ascontiguousarray(G.reshape(p, p))
        # a constant (or weight-zero) column: its centred Gram row is rounding; make it exactly zero, as the
        # centred copy of X that scikit-learn builds would have (the solver then leaves that coefficient at 0)
        constant = np.diagonal(self.G) <= 1e-13 * np.maximum(squares, np.finfo(np.float64).tiny)
        self.G[constant, :] = 0.0
        self.G[:, constant] = 0.0
        self.G = (self.G + self.G.T) / 2  # exactly symmetric, as X^T X is
        self.q = q.reshape(p, k)
        self.q[constant] = 0.0
        self.y_norm2 = np.maximum(y_norm2, 0.0)
        self.X_offset, self.y_offset = X_offset, y_offset
        self.dtype = np.dtype(np.float64)

    def solve(self, k: int, w: np.ndarray, l1_reg: float, l2_reg: float, max_iter: int, tol: float, rng: Any,
              random: bool, positive: bool) -> tuple[np.ndarray, float, int]:  # fmt: skip
        """scikit-learn's covariance-update coordinate descent for target k (it reads y only for ``||y||^2``)."""
        w, gap, _, n_iter = _cd_fast.enet_coordinate_descent_gram(
            w, l1_reg, l2_reg, self.G, np.ascontiguousarray(self.q[:, k]), np.sqrt(self.y_norm2[k : k + 1]),
            max_iter, tol, rng, random, positive, True)  # fmt: skip
        return w, gap, n_iter


class _WideProblem:
    """At most as many samples as features: the Gram matrix would be larger than X, so scikit-learn's own choice
    (``precompute='auto'`` is False here) is followed: its residual-update coordinate descent over the centred host
    copy of X, in X's dtype. Wide problems are small in samples, so the copy is the smaller of the two."""

    def __init__(self, X: Any, Y: Any, sw: Any, fit_intercept: bool):
        X, Y = _device.to_host(X), _device.to_host(Y)
        sw = None if sw is None else _device.to_host(sw)
        Xc, Yc, self.X_offset, self.y_offset, _, _ = _preprocess_data(
            X, Y, fit_intercept=fit_intercept, copy=True, sample_weight=sw, check_input=False,
            rescale_with_sw=True)  # fmt: skip
        self.X = np.asfortranarray(Xc)
        self.Y = np.asfortranarray(Yc)
        self.dtype = X.dtype

    def solve(self, k: int, w: np.ndarray, l1_reg: float, l2_reg: float, max_iter: int, tol: float, rng: Any,
              random: bool, positive: bool) -> tuple[np.ndarray, float, int]:  # fmt: skip
        w, gap, _, n_iter = _cd_fast.enet_coordinate_descent(
            w, l1_reg, l2_reg, self.X, np.ascontiguousarray(self.Y[:, k]), max_iter, tol, rng, random, positive,
            True)  # fmt: skip
        return w, gap, n_iter


def _check_gram(G: np.ndarray, X: Any, sw: Any, xp: types.ModuleType) -> None:
    """scikit-learn's spot check of a user-supplied Gram matrix: one entry against the data."""
    n_features = X.shape[1]
    f1 = n_features // 2
    f2 = min(f1 + 1, n_features - 1)
    v1, v2 = X[:, f1].astype(xp.float64), X[:, f2].astype(xp.float64)
    prod = v1 * v2 if sw is None else v1 * v2 * sw.astype(xp.float64)
    expected = float(prod.sum())  # one scalar read: the checked entry
    actual = G[f1, f2]
    rtol = max(1e-4 if dtype == np.float32 else 1e-7 for dtype in (G.dtype, X.dtype))
    if not np.isclose(expected, actual, rtol=rtol, atol=1e-5):
        raise ValueError("Gram matrix passed in via 'precompute' parameter did not pass validation when a single "
                         "element was checked - please check that it was computed properly. For element "
                         f"({f1},{f2}) we computed {expected} but the user-supplied value was {actual}.")  # fmt: skip


class ElasticNet(LinearModelMixin, MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Linear regression with combined L1 and L2 priors (``sklearn.linear_model.ElasticNet``).

    Parameters and attributes are scikit-learn's; see the module docstring for how the fit runs.

    Attributes
    ----------
    coef_ : array of shape (n_features,) or (n_targets, n_features)
    intercept_ : float or array of shape (n_targets,)
    n_iter_ : int or list of int
    dual_gap_ : float or array of shape (n_targets,)
    sparse_coef_ : scipy.sparse matrix of shape (1, n_features) or (n_targets, n_features)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.linear_model import ElasticNet
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> reg = ElasticNet(alpha=0.1, l1_ratio=0.5).fit(X, [0.0, 1.0, 2.0, 3.0])
    >>> np.round(reg.coef_, 4).tolist(), round(float(reg.intercept_), 4)
    ([0.9231, -0.0], 0.1154)
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "l1_ratio": [Interval(Real, 0, 1, closed="both")],
        "fit_intercept": ["boolean"],
        "precompute": ["boolean", "array-like"],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "copy_X": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        "positive": ["boolean"],
        "random_state": ["random_state"],
        "selection": [StrOptions({"cyclic", "random"})],
    }

    def __init__(self, alpha=1.0, *, l1_ratio=0.5, fit_intercept=True, precompute=False, max_iter=1000,
                 copy_X=True, tol=1e-4, warm_start=False, positive=False, random_state=None,
                 selection="cyclic"):  # fmt: skip
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.precompute = precompute
        self.max_iter = max_iter
        self.copy_X = copy_X
        self.tol = tol
        self.warm_start = warm_start
        self.positive = positive
        self.random_state = random_state
        self.selection = selection

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, check_input=True):
        """Fit the model by coordinate descent (``check_input`` is accepted; input is always checked)."""
        X_given = X
        if self.alpha == 0:
            warnings.warn("With alpha=0, this algorithm does not converge well. You are advised to use the "
                          "LinearRegression estimator", stacklevel=2)  # fmt: skip
        X, y, xp = validate_data(self, X, y, reset=True, dtype=FLOAT_DTYPES, y_numeric=True, multi_output=True)
        y = y.astype(X.dtype, copy=False)
        n_samples, n_features = X.shape
        if isinstance(sample_weight, numbers.Number):
            sample_weight = None
        sw = None
        if sample_weight is not None:
            sw = check_sample_weight(sample_weight, n_samples, X.dtype, xp)
            sw = sw * (n_samples / sw.sum())  # scikit-learn rescales the weights to sum to n_samples
        Y = y[:, None] if y.ndim == 1 else y
        n_targets = Y.shape[1]
        precompute = self.precompute
        user_gram = hasattr(precompute, "__array__")
        problem = (_GramProblem(X, Y, sw, self.fit_intercept, xp) if user_gram or n_samples > n_features
                   else _WideProblem(X, Y, sw, self.fit_intercept))  # fmt: skip
        if user_gram:
            if self.fit_intercept and not np.allclose(problem.X_offset, np.zeros(n_features)):
                warnings.warn("Gram matrix was provided but X was centered to fit intercept: recomputing Gram "
                              "matrix.", UserWarning)  # fmt: skip
            else:
                user = np.asarray(_device.to_host(precompute), dtype=X.dtype)
                _check_gram(user, X, sw, xp)
                problem.G = np.ascontiguousarray(user, dtype=np.float64)

        coef = np.zeros((n_targets, n_features), dtype=problem.dtype)
        if self.warm_start and hasattr(self, "coef_"):
            previous = np.array(_device.to_host(self.coef_), dtype=problem.dtype, ndmin=2)
            if previous.shape == coef.shape:  # a fit of another shape starts from zero
                coef = previous
        l1_reg = self.alpha * self.l1_ratio * n_samples  # Lasso: l1_ratio=1.0, set by its __init__
        l2_reg = self.alpha * (1.0 - self.l1_ratio) * n_samples
        gaps = np.zeros(n_targets, dtype=np.float64)
        n_iter = []
        for k in range(n_targets):  # one target at a time, as scikit-learn's ElasticNet.fit
            rng = check_random_state(self.random_state)  # scikit-learn's path draws its seed per target
            w, gap, iters = problem.solve(k, np.ascontiguousarray(coef[k]), l1_reg, l2_reg, self.max_iter, self.tol,
                                          rng, self.selection == "random", self.positive)  # fmt: skip
            coef[k] = w
            gaps[k] = gap / n_samples
            n_iter.append(int(iters))

        dtype = X.dtype
        intercept = problem.y_offset - coef @ problem.X_offset.astype(coef.dtype)
        if not (np.isfinite(coef).all() and np.isfinite(intercept).all()):
            raise ValueError("Coordinate descent iterations resulted in non-finite parameter values. The input "
                             "data may contain large values and need to be preprocessed.")  # fmt: skip
        coef = coef.astype(dtype)
        gaps = gaps.astype(dtype)
        if n_targets == 1:
            self.n_iter_ = n_iter[0]
            self.coef_ = _device.to_device(coef[0], xp)
            self.dual_gap_ = gaps[0]
        else:
            self.n_iter_ = n_iter
            self.coef_ = _device.to_device(coef, xp)
            self.dual_gap_ = gaps
        if self.fit_intercept:
            intercept = intercept.astype(dtype)
            self.intercept_ = intercept[0] if n_targets == 1 else _device.to_device(intercept, xp)
        else:
            self.intercept_ = 0.0
        return self._publish(X_given)

    @property
    def sparse_coef_(self):
        """``coef_`` as a SciPy sparse matrix (on the host)."""
        check_is_fitted(self)
        return sparse.csr_matrix(_device.to_host(self.coef_))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


class Lasso(ElasticNet):
    """Linear model trained with an L1 prior (``sklearn.linear_model.Lasso``): ElasticNet with ``l1_ratio=1``.

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.linear_model import Lasso
    >>> reg = Lasso(alpha=0.1).fit(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]), [0.0, 1.0, 2.0])
    >>> np.round(reg.coef_, 4).tolist(), round(float(reg.intercept_), 4)
    ([0.85, 0.0], 0.15)
    """

    _parameter_constraints: dict = {key: value for key, value in ElasticNet._parameter_constraints.items()
                                    if key != "l1_ratio"}  # fmt: skip

    def __init__(self, alpha=1.0, *, fit_intercept=True, precompute=False, copy_X=True, max_iter=1000, tol=1e-4,
                 warm_start=False, positive=False, random_state=None, selection="cyclic"):  # fmt: skip
        super().__init__(alpha=alpha, l1_ratio=1.0, fit_intercept=fit_intercept, precompute=precompute,
                         max_iter=max_iter, copy_X=copy_X, tol=tol, warm_start=warm_start, positive=positive,
                         random_state=random_state, selection=selection)  # fmt: skip
