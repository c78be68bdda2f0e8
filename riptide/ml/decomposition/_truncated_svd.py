"""TruncatedSVD: the leading singular vectors of X (no centering), on the device.

* ``algorithm='randomized'`` (the default) is Halko et al.'s range finder with scikit-learn's parameters
  (``n_iter``, ``n_oversamples``) and the same Gaussian test matrix, drawn on the host from ``random_state`` as
  scikit-learn draws it (shared with :class:`~riptide.ml.decomposition.PCA`), so both libraries find the same
  subspace; the GEMMs and QR factorizations run on the device. The power iterations are normalized with QR
  whatever ``power_iteration_normalizer`` says (every choice spans the same subspace).
* ``algorithm='arpack'`` is answered exactly: the eigendecomposition of the ``d x d`` Gram matrix ``X^T X``
  (one GEMM on the device, accumulated in float64; the eigensolver runs on the host, as PCA's covariance solver
  does), whose eigenvalues are the squared singular values. This needs ``d^2`` floats of memory, so it suits the
  tall, moderately wide matrices riptide targets; singular values far below the largest (``s_i / s_1`` near
  ``sqrt(eps)``) lose relative precision by squaring. ``tol`` is accepted and ignored.

Signs follow scikit-learn's ``svd_flip(u_based_decision=False)``. ``explained_variance_`` is the variance of the
projected data, ``explained_variance_ratio_`` its share of X's total variance, as scikit-learn computes them.
SciPy sparse input (CSR/CSC) is accepted and handled on the host with the same algorithms (the products are
SciPy's; the column variances are scikit-learn's ``mean_variance_axis``); CuPy sparse input is not.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.sparsefuncs import mean_variance_axis
from sklearn.utils.validation import check_is_fitted
from sklearn.utils.validation import validate_data as _sk_validate_data

from riptide import _device
from riptide.ml import _dask
from riptide.ml import _kernels as ml_kernels
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import FLOAT_DTYPES, check_input, validate_data
from riptide.ml.decomposition._pca import _flip_signs, _randomized_components

__all__ = ["TruncatedSVD"]


def _gram_top(gram: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The top ``k`` singular values and right singular vectors (rows, unsigned) of X from its ``d x d`` Gram
    matrix ``X^T X`` on the host: its eigenvalues are the squared singular values."""
    eigenvalues, vectors = np.linalg.eigh(gram)
    top = np.argsort(eigenvalues)[::-1][:k]
    return np.sqrt(np.maximum(eigenvalues[top], 0.0)), np.ascontiguousarray(vectors[:, top].T)


class TruncatedSVD(DeviceEstimatorMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Dimensionality reduction by truncated SVD (``sklearn.decomposition.TruncatedSVD``).

    Parameters
    ----------
    n_components : int, default=2
    algorithm : {'arpack', 'randomized'}, default='randomized'
        See the module docstring ('arpack' is solved exactly).
    n_iter : int, default=5
    n_oversamples : int, default=10
    power_iteration_normalizer : {'auto', 'QR', 'LU', 'none'}, default='auto'
        Accepted; QR is always used.
    random_state : int, RandomState instance or None, default=None
    tol : float, default=0.0
        Accepted for compatibility.

    Attributes
    ----------
    components_ : array of shape (n_components, n_features)
    explained_variance_, explained_variance_ratio_, singular_values_ : arrays of shape (n_components,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.decomposition import TruncatedSVD
    >>> X = np.array([[3.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    >>> svd = TruncatedSVD(n_components=2, algorithm="arpack").fit(X)
    >>> svd.singular_values_.round(6).tolist()
    [3.0, 2.0]
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "algorithm": [StrOptions({"arpack", "randomized"})],
        "n_iter": [Interval(Integral, 0, None, closed="left")],
        "n_oversamples": [Interval(Integral, 1, None, closed="left")],
        "power_iteration_normalizer": [StrOptions({"auto", "QR", "LU", "none"})],
        "random_state": ["random_state"],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, n_components=2, *, algorithm="randomized", n_iter=5, n_oversamples=10,
                 power_iteration_normalizer="auto", random_state=None, tol=0.0):  # fmt: skip
        self.algorithm = algorithm
        self.n_components = n_components
        self.n_iter = n_iter
        self.n_oversamples = n_oversamples
        self.power_iteration_normalizer = power_iteration_normalizer
        self.random_state = random_state
        self.tol = tol

    def fit(self, X, y=None):
        """Fit the model on X."""
        self.fit_transform(X)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Fit the model on X and return X projected on the components."""
        if _dask.is_dask_collection(X):  # the Gram matrix from per-block statistics (riptide.ml._dask)
            return _dask.fit_truncated_svd(self, X).transform(X)
        X_given = X
        if sp.issparse(X):  # SciPy sparse input: scikit-learn's validation, the same algorithms with NumPy/SciPy
            A = _sk_validate_data(self, X, reset=True, accept_sparse=["csr", "csc"], dtype=FLOAT_DTYPES,
                                  ensure_min_features=2)  # fmt: skip
            xp = np
        else:
            A, xp = validate_data(self, X, reset=True, dtype=FLOAT_DTYPES, ensure_min_features=2)
        k = self.n_components
        random_state = check_random_state(self.random_state)
        if self.algorithm == "arpack":
            if k >= min(A.shape):
                raise ValueError("`k` must be an integer satisfying `0 < k < min(A.shape)`.")  # scipy's svds
            A64 = A.astype(np.float64)
            gram = A64.T @ A64
            gram = gram.toarray() if sp.issparse(gram) else _device.to_host(gram)  # d x d: eigh on the host
            sigma, Vt = _gram_top(gram, k)
            Vt = _device.to_device(Vt, xp).astype(A.dtype)
            sigma = _device.to_device(sigma, xp).astype(A.dtype)
        else:
            if k > A.shape[1]:
                raise ValueError(f"n_components({k}) must be <= n_features({A.shape[1]}).")
            sigma, Vt = _randomized_components(A, k, self.n_oversamples, self.n_iter, random_state, xp)
        Vt = _flip_signs(Vt, xp)
        self.components_ = Vt
        projected = np.asarray(A @ Vt.T) if sp.issparse(A) else A @ Vt.T
        # column variances of tall matrices by coalesced passes on the GPU (ml_kernels), in the data's dtype
        self.explained_variance_ = ml_kernels.column_variances(projected, _device.namespace_of(projected)).astype(
            projected.dtype
        )
        if sp.issparse(A):
            _, column_var = mean_variance_axis(A, axis=0)
            self.explained_variance_ratio_ = self.explained_variance_ / column_var.sum()
        else:
            total_var = ml_kernels.column_variances(A, xp).astype(A.dtype).sum()
            self.explained_variance_ratio_ = self.explained_variance_ / total_var
        self.singular_values_ = sigma
        self._publish(X_given)
        return self._output(projected, X_given)

    def transform(self, X):
        """Project X on the components."""
        check_is_fitted(self)
        if _dask.is_dask_collection(X):  # a lazy Dask array, block by block
            return _dask.map_rows(self, "transform", X)
        if sp.issparse(X):
            A = _sk_validate_data(self, X, reset=False, accept_sparse=["csr", "csc"], dtype=FLOAT_DTYPES)
            return np.asarray(A @ self._fitted("components_", np).T.astype(A.dtype))
        A, xp = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES)
        return self._output(A @ self._fitted("components_", xp).T.astype(A.dtype), X)

    def inverse_transform(self, X):
        """Map projected data back to the original space."""
        check_is_fitted(self)
        A, xp = check_input(X, dtype=FLOAT_DTYPES)
        return self._output(A @ self._fitted("components_", xp).astype(A.dtype), X, method="inverse_transform")

    @property
    def _n_features_out(self):
        """Number of transformed output features."""
        return self.components_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
