"""PCA: principal components from the covariance matrix, the SVD, or a randomized range finder, on the device.

* ``'covariance_eigh'`` (what ``'auto'`` picks for tall data, scikit-learn's rule) is the GPU's best case, done as
  scikit-learn does it: the Gram matrix ``X^T X`` (one GEMM, one pass over X, never a centered copy) minus
  ``n mean mean^T``, over ``n - 1``. The ``d x d`` result then goes to the host (``d^2`` numbers) for NumPy's
  ``eigh``: a GPU eigensolver on a 50 x 50 matrix is a chain of tiny launches and syncs, slower than LAPACK, and on
  the host the spectrum, signs and component count are decided by the same code for both devices. The column
  means come from one coalesced kernel pass on the GPU (:func:`riptide.ml._kernels.column_sums`). The covariance is
  accumulated in float64 whatever the input dtype (float32 input is widened for the GEMM).
* ``'full'``: the thin SVD of the centered data (``xp.linalg.svd``).
* ``'randomized'``: Halko et al.'s range finder with scikit-learn's defaults (``n_oversamples``, ``iterated_power``
  'auto') and the *same Gaussian test matrix*, drawn on the host from ``random_state`` exactly as scikit-learn
  draws it, so both libraries find the same subspace. The power iterations are normalized with QR whatever
  ``power_iteration_normalizer`` says (LU and no normalization span the same subspace; QR is the stable one and
  the one CuPy has). ``'arpack'`` is answered with the exact ``'full'`` decomposition.

``transform`` is scikit-learn's ``X @ components^T - mean @ components^T``: a GEMM and an ``n x k`` correction, no
centered ``n x d`` temporary. ``get_covariance`` / ``get_precision`` (shared with IncrementalPCA) and
``score_samples`` / ``score`` are scikit-learn's probabilistic PCA model, formed where the fitted components live
(the precision inverts a ``k x k`` matrix by the matrix inversion lemma unless the noise variance is 0).

Signs follow scikit-learn's ``svd_flip(u_based_decision=False)``: the largest-magnitude entry of each component
is positive. Choosing ``n_components`` from a float or ``'mle'`` reads the (``d``-long) spectrum on the host,
where scikit-learn's own ``_infer_dimension`` decides.
"""

from __future__ import annotations

import types
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, _fit_context
from sklearn.decomposition._pca import _infer_dimension
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from riptide import _device
from riptide.ml import _dask, _kernels
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import FLOAT_DTYPES, check_input, validate_data

__all__ = ["PCA"]


def _flip_signs(Vt: Any, xp: types.ModuleType) -> Any:
    """Rows of Vt signed so that each row's largest-magnitude entry is positive (svd_flip on v)."""
    if Vt.shape[0] == 0:
        return Vt
    largest = xp.take_along_axis(Vt, xp.argmax(xp.abs(Vt), axis=1)[:, None], axis=1)
    return Vt * xp.where(largest < 0, -1.0, 1.0).astype(Vt.dtype)


def _covariance(A: Any, mean: Any, xp: types.ModuleType) -> Any:
    """The ``d x d`` covariance of the rows of A as scikit-learn forms it: ``(A^T A - n mean mean^T) / (n - 1)``."""
    n_samples = A.shape[0]
    A64 = A.astype(xp.float64, copy=False)
    C = A64.T @ A64
    C -= n_samples * mean.reshape(-1, 1) * mean.reshape(1, -1)
    C /= n_samples - 1
    return C


def _check_n_components(n_components: Any, n_samples: int, n_features: int, solver: str) -> None:
    """scikit-learn's check of ``n_components`` for the exact solvers ('full', 'covariance_eigh', 'arpack')."""
    if n_components == "mle":
        if n_samples < n_features:
            raise ValueError("n_components='mle' is only supported if n_samples >= n_features")
    elif not 0 <= n_components <= min(n_samples, n_features):
        raise ValueError(f"n_components={n_components} must be between 0 and min(n_samples, n_features)="
                         f"{min(n_samples, n_features)} with svd_solver={solver!r}")  # fmt: skip


def _eigh_components(C: np.ndarray, n_samples: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 'covariance_eigh' route on the host from the ``d x d`` covariance C: explained variances (descending,
    clipped at 0), singular values and the signed components."""
    eigenvalues, vectors = np.linalg.eigh(C)
    explained = np.maximum(eigenvalues[::-1], 0.0)
    return explained, np.sqrt(explained * (n_samples - 1)), _flip_signs(vectors[:, ::-1].T, np)


def _resolve_n_components(n_components: Any, explained: Any, ratio: Any, n_samples: int) -> Any:
    """``n_components`` as a count: 'mle' by Minka's criterion, a fraction by the cumulative explained ratio (d
    numbers on the host: choosing the count is a read), an integer as it is."""
    if n_components == "mle":
        return int(_infer_dimension(_device.to_host(explained), n_samples))
    if 0 < n_components < 1.0:
        cumulative = np.cumsum(_device.to_host(ratio))
        return int(np.searchsorted(cumulative, n_components, side="right") + 1)
    return n_components


def _randomized_components(Xc: Any, k: int, n_oversamples: int, n_iter: Any, random_state: Any,
                           xp: types.ModuleType) -> tuple[Any, Any]:
    """Top-k singular values and right singular vectors of Xc by randomized SVD (scikit-learn's draws)."""
    n_samples, n_features = Xc.shape
    if n_iter == "auto":
        n_iter = 7 if k < 0.1 * min(Xc.shape) else 4
    transpose = n_samples < n_features
    M = Xc.T if transpose else Xc
    omega = random_state.normal(size=(M.shape[1], k + n_oversamples))  # scikit-learn's test matrix, on the host
    Q = _device.to_device(omega.astype(M.dtype, copy=False), xp)
    for _ in range(n_iter):
        Q, _r = xp.linalg.qr(M @ Q)
        Q, _r = xp.linalg.qr(M.T @ Q)
    Q, _r = xp.linalg.qr(M @ Q)
    Uhat, s, Vt = xp.linalg.svd(Q.T @ M, full_matrices=False)
    if transpose:  # M = Xc^T: Xc's right singular vectors are M's left ones
        Vt = (Q @ Uhat).T
    return s[:k], Vt[:k]


def _add_to_diagonal(M: Any, values: Any, xp: types.ModuleType) -> None:
    """``M[i, i] += values`` (a scalar or one value per row), in place."""
    idx = xp.arange(M.shape[0])
    M[idx, idx] += values


class _ProbabilisticPCAMixin:
    """The covariance and precision of the probabilistic PCA model a fit implies (scikit-learn's ``_BasePCA``):
    ``C = W^T diag(max(var - sigma2, 0)) W + sigma2 I``, with ``W`` the components (scaled by the square roots of
    the explained variances when whitening) and ``sigma2 = noise_variance_``. Both are ``d x d`` and formed where
    the fitted components live; the precision inverts only the ``k x k`` middle of the matrix inversion lemma
    (the whole covariance when ``sigma2 == 0``)."""

    def _scaled_model(self, xp: types.ModuleType) -> tuple[Any, Any]:
        components = self._fitted("components_", xp)
        explained = self._fitted("explained_variance_", xp)
        if self.whiten:
            components = components * xp.sqrt(explained[:, None])
        difference = explained - self.noise_variance_
        return components, xp.where(explained > self.noise_variance_, difference, xp.zeros_like(difference))

    def _model_covariance(self, xp: types.ModuleType) -> Any:
        components, difference = self._scaled_model(xp)
        covariance = (components.T * difference) @ components
        _add_to_diagonal(covariance, self.noise_variance_, xp)
        return covariance

    def _model_precision(self, xp: types.ModuleType) -> Any:
        n_features = self.components_.shape[1]
        if self.n_components_ == 0:
            return xp.eye(n_features) / self.noise_variance_
        if self.noise_variance_ == 0.0:
            return xp.linalg.inv(self._model_covariance(xp))
        components, difference = self._scaled_model(xp)
        middle = components @ components.T / self.noise_variance_
        with np.errstate(divide="ignore"):  # a component no louder than the noise: 1/0, as scikit-learn's
            _add_to_diagonal(middle, 1.0 / difference, xp)
        precision = components.T @ xp.linalg.inv(middle) @ components
        precision /= -(self.noise_variance_**2)
        _add_to_diagonal(precision, 1.0 / self.noise_variance_, xp)
        return precision

    def _as_attribute(self, result: Any) -> Any:
        """A result computed from the fitted arrays, in the namespace of ``components_`` (as scikit-learn's)."""
        return result if _device.is_device_array(self.components_) else _device.to_host(result)

    def get_covariance(self):
        """Data covariance under the generative model: ``components_.T * S**2 * components_ + sigma2 * I``, with
        ``S**2`` the explained variances (less the noise variance) and ``sigma2`` the noise variance.

        Returns
        -------
        cov : array of shape (n_features, n_features)
        """
        check_is_fitted(self)
        return self._as_attribute(self._model_covariance(self._home_namespace("components_")))

    def get_precision(self):
        """Data precision matrix under the generative model (the inverse of :meth:`get_covariance`, by the matrix
        inversion lemma).

        Returns
        -------
        precision : array of shape (n_features, n_features)
        """
        check_is_fitted(self)
        return self._as_attribute(self._model_precision(self._home_namespace("components_")))


class PCA(_ProbabilisticPCAMixin, DeviceEstimatorMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
          BaseEstimator):  # fmt: skip
    """Principal component analysis (``sklearn.decomposition.PCA``).

    Parameters
    ----------
    n_components : int, float, 'mle' or None, default=None
    copy : bool, default=True
        Accepted for compatibility; riptide never overwrites X.
    whiten : bool, default=False
    svd_solver : {'auto', 'full', 'covariance_eigh', 'arpack', 'randomized'}, default='auto'
        See the module docstring.
    tol : float, default=0.0
        Accepted for compatibility ('arpack' is solved exactly).
    iterated_power : int or 'auto', default='auto'
    n_oversamples : int, default=10
    power_iteration_normalizer : {'auto', 'QR', 'LU', 'none'}, default='auto'
        Accepted; QR is always used (see the module docstring).
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    components_ : array of shape (n_components_, n_features)
    explained_variance_ : array of shape (n_components_,)
    explained_variance_ratio_ : array of shape (n_components_,)
    singular_values_ : array of shape (n_components_,)
    mean_ : array of shape (n_features,)
    n_components_ : int
    n_samples_ : int
    noise_variance_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.decomposition import PCA
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]])
    >>> pca = PCA(n_components=2).fit(X)
    >>> np.round(pca.explained_variance_ratio_, 6).tolist()
    [0.992443, 0.007557]
    >>> np.round(pca.singular_values_, 6).tolist()
    [6.300612, 0.549804]
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 0, None, closed="left"), Interval(RealNotInt, 0, 1, closed="neither"),
                         StrOptions({"mle"}), None],  # fmt: skip
        "copy": ["boolean"],
        "whiten": ["boolean"],
        "svd_solver": [StrOptions({"auto", "full", "covariance_eigh", "arpack", "randomized"})],
        "tol": [Interval(Real, 0, None, closed="left")],
        "iterated_power": [StrOptions({"auto"}), Interval(Integral, 0, None, closed="left")],
        "n_oversamples": [Interval(Integral, 1, None, closed="left")],
        "power_iteration_normalizer": [StrOptions({"auto", "QR", "LU", "none"})],
        "random_state": ["random_state"],
    }

    def __init__(self, n_components=None, *, copy=True, whiten=False, svd_solver="auto", tol=0.0,
                 iterated_power="auto", n_oversamples=10, power_iteration_normalizer="auto",
                 random_state=None):  # fmt: skip
        self.n_components = n_components
        self.copy = copy
        self.whiten = whiten
        self.svd_solver = svd_solver
        self.tol = tol
        self.iterated_power = iterated_power
        self.n_oversamples = n_oversamples
        self.power_iteration_normalizer = power_iteration_normalizer
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the principal components of X."""
        if _dask.is_dask_collection(X):  # the covariance from per-block statistics (riptide.ml._dask)
            return _dask.fit_pca(self, X)
        self._fit(X)
        return self._publish(X)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Fit and return the projection of X on the components."""
        if _dask.is_dask_collection(X):
            return _dask.fit_pca(self, X).transform(X)
        A, xp = self._fit(X)
        projected = self._project(A, xp)
        self._publish(X)
        return self._output(projected, X)

    def _solver_for(self, shape: tuple[int, int], n_components: Any) -> str:
        solver = self.svd_solver
        if solver != "auto":
            return solver
        n_samples, n_features = shape
        if n_features <= 1_000 and n_samples >= 10 * n_features:
            return "covariance_eigh"
        if max(shape) <= 500 or n_components == "mle":
            return "full"
        if 1 <= n_components < 0.8 * min(shape):
            return "randomized"
        return "full"

    def _fit(self, X: Any) -> tuple[Any, types.ModuleType]:
        A, xp = validate_data(self, X, reset=True, dtype=FLOAT_DTYPES)
        n_samples, n_features = A.shape
        n_components = min(A.shape) if self.n_components is None else self.n_components
        solver = self._fit_svd_solver = self._solver_for(A.shape, n_components)
        f64 = xp.float64
        mean = _kernels.column_means(A, xp)
        if solver == "randomized":
            self._fit_randomized(A, mean, n_components, xp)
            return A, xp
        _check_n_components(n_components, n_samples, n_features, solver)
        if solver == "covariance_eigh":
            # one read of d x d numbers: the eigendecomposition runs on the host (see the module docstring)
            explained, singular, Vt = _eigh_components(_device.to_host(_covariance(A, mean, xp)), n_samples)
        else:  # 'full', and 'arpack' answered exactly
            _, singular, Vt = xp.linalg.svd(A.astype(f64, copy=False) - mean, full_matrices=False)
            explained = singular**2 / (n_samples - 1)
            Vt = _flip_signs(Vt, xp)
        ratio = explained / explained.sum()
        n_components = _resolve_n_components(n_components, explained, ratio, n_samples)
        if n_components < min(n_features, n_samples):
            noise = float(explained[n_components:].mean())  # one scalar read: noise_variance_ is a float
        else:
            noise = 0.0
        self._store(A.dtype, mean, Vt[:n_components], explained[:n_components], ratio[:n_components],
                    singular[:n_components], n_components, n_samples, noise)  # fmt: skip
        return A, xp

    def _fit_randomized(self, A: Any, mean: Any, n_components: Any, xp: types.ModuleType) -> None:
        n_samples, n_features = A.shape
        if isinstance(n_components, str):
            raise ValueError("n_components=%r cannot be a string with svd_solver='%s'"
                             % (n_components, self._fit_svd_solver))  # fmt: skip
        if not 1 <= n_components <= min(n_samples, n_features):
            raise ValueError("n_components=%r must be between 1 and min(n_samples, n_features)=%r with "
                             "svd_solver='%s'" % (n_components, min(n_samples, n_features),
                                                  self._fit_svd_solver))  # fmt: skip
        random_state = check_random_state(self.random_state)
        Xc = A.astype(xp.float64, copy=False) - mean
        singular, Vt = _randomized_components(Xc, n_components, self.n_oversamples, self.iterated_power,
                                              random_state, xp)  # fmt: skip
        Vt = _flip_signs(Vt, xp)
        explained = singular**2 / (n_samples - 1)
        total = (Xc * Xc).sum() / (n_samples - 1)
        if n_components < min(n_features, n_samples):
            # one scalar read: noise_variance_ is a float
            noise = float((total - explained.sum()) / (min(n_features, n_samples) - n_components))
        else:
            noise = 0.0
        self._store(A.dtype, mean, Vt, explained, explained / total, singular, n_components, n_samples, noise)

    def _store(self, dtype: Any, mean: Any, Vt: Any, explained: Any, ratio: Any, singular: Any,
               n_components: int, n_samples: int, noise: float) -> None:  # fmt: skip
        """Fitted attributes in the data's dtype and namespace (the eigen route computes the small ones on the
        host: they move once, a few hundred numbers)."""
        xp = _device.namespace_of(mean)

        def stored(values: Any) -> Any:  # C order: Vt is a reversed, transposed view, and a GEMM over a strided
            # operand rounds differently from one over the contiguous copy that a pickled model reloads
            return _device.to_device(values.astype(dtype, order="C"), xp)

        self.mean_ = stored(mean)
        self.components_ = stored(Vt)
        self.explained_variance_ = stored(explained)
        self.explained_variance_ratio_ = stored(ratio)
        self.singular_values_ = stored(singular)
        self.n_components_ = n_components
        self.n_samples_ = n_samples
        self.noise_variance_ = dtype.type(noise)

    @property
    def _n_features_out(self) -> int:
        return self.components_.shape[0]

    def _project(self, A: Any, xp: types.ModuleType) -> Any:
        """scikit-learn's ``X @ V^T - mean @ V^T`` (then whitening): one GEMM over A, corrections on ``n x k``."""
        components = self._fitted("components_", xp)
        projected = A @ components.T
        projected -= (self._fitted("mean_", xp) @ components.T).astype(projected.dtype, copy=False)
        if self.whiten:
            scale = xp.sqrt(self._fitted("explained_variance_", xp))
            projected /= xp.maximum(scale, np.finfo(scale.dtype).eps).astype(projected.dtype, copy=False)
        return projected

    def transform(self, X):
        """Project X on the principal components."""
        check_is_fitted(self)
        if _dask.is_dask_collection(X):  # a lazy Dask array, block by block
            return _dask.map_rows(self, "transform", X)
        A, xp = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES)
        return self._output(self._project(A, xp), X)

    def inverse_transform(self, X):
        """Map projected data back to the original space."""
        check_is_fitted(self)
        A, xp = check_input(X, dtype=FLOAT_DTYPES)
        components = self._fitted("components_", xp)
        if self.whiten:
            components = xp.sqrt(self._fitted("explained_variance_", xp))[:, None] * components
        return self._output(A @ components + self._fitted("mean_", xp), X, method="inverse_transform")

    def score_samples(self, X):
        """Log-likelihood of each sample under the probabilistic PCA model (Bishop, *Pattern Recognition and
        Machine Learning*, 12.2.1; Tipping and Bishop 1999).

        Returns
        -------
        ll : array of shape (n_samples,)
        """
        check_is_fitted(self)
        A, xp = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES)
        centered = A - self._fitted("mean_", xp)
        precision = self._model_precision(xp)
        sign, logdet = xp.linalg.slogdet(precision)
        if not bool(sign > 0):  # one scalar read: a precision that is not positive definite has no log density
            logdet = -np.inf
        log_like = -0.5 * xp.sum(centered * (centered @ precision), axis=1)
        log_like -= 0.5 * (A.shape[1] * np.log(2.0 * np.pi) - logdet)
        return self._output(log_like, X, method="score_samples")

    def score(self, X, y=None):
        """Average log-likelihood of the samples under the model (the mean of :meth:`score_samples`).

        Returns
        -------
        ll : float
        """
        return float(self.score_samples(X).mean())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
