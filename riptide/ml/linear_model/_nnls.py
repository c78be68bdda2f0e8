"""Non-negative least squares from the normal equations (``positive=True`` of LinearRegression and Ridge).

``min_w ||Xc w - yc||^2 + alpha ||w||^2`` subject to ``w >= 0`` needs X only through ``G = Xc^T Xc + alpha I`` and
``b = Xc^T yc``: it is ``min_w 1/2 w^T G w - b^T w`` over the non-negative orthant. The fit forms ``G`` and ``b``
on the device in one pass over X (the same GEMMs as the unconstrained solve), and this module solves the ``d x d``
problem by Lawson and Hanson's active-set method, the algorithm of ``scipy.optimize.nnls`` that scikit-learn's
LinearRegression calls, written here on the normal equations:

* start from ``w = 0`` with every coordinate held at its bound; the gradient ``b - G w`` says which held
  coordinate would lower the objective most if freed; free it;
* solve the equality-constrained problem on the free ("passive") coordinates, ``G_PP z_P = b_P``; if a free
  coordinate of ``z`` is not positive, move from ``w`` towards ``z`` until the first free coordinate reaches 0,
  hold it there, and solve again;
* stop when no held coordinate has a positive gradient (above rounding, relative to ``|b|``): the KKT conditions.

The iterations are sequential and each is a ``|P| x |P|`` solve, so they run on the host in float64, like the
coordinate-descent sweeps of Lasso and ElasticNet (``d^2 + d`` numbers move once per target). Scikit-learn's
Ridge(positive=True) minimizes the same objective with L-BFGS-B to ``tol``; this returns the exact minimizer, which
scikit-learn's approaches as its ``tol`` goes to 0. Solving through ``G`` squares X's condition number (as the
unconstrained normal equations do): the coefficients agree with scikit-learn's to about
``eps * cond(X)^2``; for ill-conditioned data the active set is still right but the free coefficients lose digits.
"""

from __future__ import annotations

import numpy as np

__all__ = ["nnls_normal_equations"]


def _solve_free(G: np.ndarray, b: np.ndarray, free: np.ndarray) -> np.ndarray:
    """``z`` with ``G_PP z_P = b_P`` on the free coordinates P and 0 elsewhere."""
    z = np.zeros_like(b)
    index = np.flatnonzero(free)
    if index.size:
        block = G[np.ix_(index, index)]
        try:
            z[index] = np.linalg.solve(block, b[index])
        except np.linalg.LinAlgError:  # exactly singular (in exact arithmetic the free columns are independent)
            z[index] = np.linalg.lstsq(block, b[index], rcond=None)[0]
    return z


def _nnls_one(G: np.ndarray, b: np.ndarray, tol: float, max_iter: int) -> np.ndarray:
    n = b.shape[0]
    w = np.zeros(n)
    free = np.zeros(n, dtype=bool)
    gradient = b.copy()
    for _ in range(max_iter):
        candidates = np.where(free, -np.inf, gradient)
        j = int(np.argmax(candidates)) if n else 0
        if n == 0 or candidates[j] <= tol:
            break
        free[j] = True
        z = _solve_free(G, b, free)
        if z[j] <= 0.0:  # the gradient was rounding: freeing j cannot help; leave it held for this step
            free[j] = False
            gradient[j] = 0.0
            continue
        while np.any(z[free] <= 0.0):
            blocking = free & (z <= 0.0)
            ratios = w[blocking] / np.maximum(w[blocking] - z[blocking], np.finfo(np.float64).tiny)
            step = ratios.min()
            w = w + step * (z - w)
            held = blocking.copy()
            held[blocking] = ratios <= step  # the coordinates that reach their bound at this step
            held |= free & (w <= 0.0)
            free &= ~held
            w[~free] = 0.0
            z = _solve_free(G, b, free)
        w = z
        gradient = b - G @ w
    return w


def nnls_normal_equations(G: np.ndarray, B: np.ndarray, alpha: np.ndarray | None = None, *, n_samples: int,
                          max_iter: int | None = None) -> np.ndarray:  # fmt: skip
    """``argmin_{w >= 0} 1/2 w^T (G + alpha_k I) w - B[:, k]^T w`` for every column k of B (host float64).

    Parameters
    ----------
    G : ndarray of shape (d, d)
        ``Xc^T Xc`` (symmetric positive semi-definite).
    B : ndarray of shape (d, n_targets)
        ``Xc^T Yc``.
    alpha : ndarray of shape (n_targets,), optional
        The L2 penalty per target (Ridge); None or 0 for least squares.
    n_samples : int
        Rows of X: scales the rounding tolerance on the gradient.
    max_iter : int, optional
        Outer iterations per target; default ``3 d`` (scipy's).

    Returns
    -------
    ndarray of shape (d, n_targets)

    >>> X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> nnls_normal_equations(X.T @ X, (X.T @ np.array([2.0, 1.0, 1.0]))[:, None], n_samples=3).ravel().tolist()
    [1.5, 1.0]
    >>> nnls_normal_equations(X.T @ X, (X.T @ np.array([-1.0, -1.0, -1.0]))[:, None], n_samples=3).ravel().tolist()
    [0.0, 0.0]
    """
    G = np.asarray(G, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    d, n_targets = B.shape
    max_iter = 3 * d if max_iter is None else max_iter
    eye = np.eye(d)
    out = np.zeros((d, n_targets))
    for k in range(n_targets):
        Gk = G if alpha is None or alpha[k] == 0 else G + alpha[k] * eye
        b = B[:, k]
        scale = max(float(np.abs(b).max(initial=0.0)), np.finfo(np.float64).tiny)
        tol = 10 * max(n_samples, d) * np.finfo(np.float64).eps * scale
        out[:, k] = _nnls_one(Gk, b, tol, max_iter)
    return out
