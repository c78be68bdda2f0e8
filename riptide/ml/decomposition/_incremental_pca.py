"""IncrementalPCA: scikit-learn's incremental SVD update, one batch at a time, on the device.

Each ``partial_fit`` merges the batch into the running model as scikit-learn does (Ross et al.'s sequential
Karhunen-Loeve update): the running column means and variances are merged with the batch's (the same pairwise
update as StandardScaler's), the batch is centered on its own mean, and the thin SVD is taken of the stacked
matrix ``[diag(S) V^T ; X_batch - batch_mean ; mean correction]`` of ``k + batch + 1`` rows, which carries
everything the previous batches contributed. That SVD runs on the device (``xp.linalg.svd``); ``fit`` walks X in
scikit-learn's batches (``gen_batches`` with ``batch_size``, default ``5 * n_features``), so the rows never leave
the device. Signs follow ``svd_flip(u_based_decision=False)``.

The class is scikit-learn's (a subclass): parameters and validation messages are its own; ``get_covariance`` /
``get_precision`` are PCA's (:class:`riptide.ml.decomposition._pca._ProbabilisticPCAMixin`), formed where the
fitted components live. Dense input only.
"""

from __future__ import annotations

import numpy as np
from sklearn import decomposition as _skd
from sklearn.base import _fit_context
from sklearn.utils import gen_batches
from sklearn.utils.validation import check_is_fitted

from riptide.ml import _kernels as ml_kernels
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import FLOAT_DTYPES, check_input, validate_data
from riptide.ml.decomposition._pca import _flip_signs, _ProbabilisticPCAMixin
from riptide.ml.preprocessing._data import _incremental_mean_and_var

__all__ = ["IncrementalPCA"]


class IncrementalPCA(_ProbabilisticPCAMixin, DeviceEstimatorMixin, _skd.IncrementalPCA):
    """Incremental principal components analysis (``sklearn.decomposition.IncrementalPCA``).

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.decomposition import IncrementalPCA
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]], dtype=float)
    >>> ipca = IncrementalPCA(n_components=2, batch_size=3).fit(X)
    >>> np.round(ipca.explained_variance_ratio_, 6).tolist()
    [0.992443, 0.007557]
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the model with X, in batches of ``batch_size`` rows."""
        X_given = X
        for name in ("components_", "n_samples_seen_"):
            self.__dict__.pop(name, None)
        self.singular_values_ = self.explained_variance_ = self.explained_variance_ratio_ = None
        self.noise_variance_ = None
        A, xp = validate_data(self, X, reset=True, dtype=FLOAT_DTYPES)
        n_samples, n_features = A.shape
        self.batch_size_ = 5 * n_features if self.batch_size is None else self.batch_size
        for batch in gen_batches(n_samples, self.batch_size_, min_batch_size=self.n_components or 0):
            self._partial_fit(A[batch], xp, from_fit=True)
        return self._publish(X_given)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None, check_input=True):
        """Update the model with one batch of samples."""
        X_given = X
        first_pass = not hasattr(self, "components_")
        A, xp = validate_data(self, X, reset=first_pass, dtype=FLOAT_DTYPES)
        self._partial_fit(A, xp)
        return self._publish(X_given)

    def _state(self, name, xp):
        value = getattr(self, name)
        return value if value is None or np.isscalar(value) else self._fitted(name, xp)

    def _partial_fit(self, A, xp, from_fit=False):
        n_samples, n_features = A.shape
        first_pass = not hasattr(self, "components_") or self.components_ is None
        if first_pass:
            self.components_ = None
        if self.n_components is None:
            self.n_components_ = min(n_samples, n_features) if self.components_ is None else self.components_.shape[0]
        elif not self.n_components <= n_features:
            raise ValueError("n_components=%r invalid for n_features=%d, need more rows than columns for "
                             "IncrementalPCA processing" % (self.n_components, n_features))  # fmt: skip
        elif self.n_components > n_samples and first_pass and not from_fit:  # (fit's batches are large enough)
            raise ValueError(f"n_components={self.n_components} must be less or equal to the batch number of "
                             f"samples {n_samples} for the first partial_fit call.")  # fmt: skip
        else:
            self.n_components_ = self.n_components
        if self.components_ is not None and self.components_.shape[0] != self.n_components_:
            raise ValueError("Number of input features has changed from %i to %i between calls to partial_fit! "
                             "Try setting n_components to a fixed value."
                             % (self.components_.shape[0], self.n_components_))  # fmt: skip
        if not hasattr(self, "n_samples_seen_"):
            self.n_samples_seen_ = 0
            self.mean_ = 0.0
            self.var_ = 0.0
        seen = int(self.n_samples_seen_)
        last_mean = self._state("mean_", xp)
        last_var = self._state("var_", xp)
        col_mean, col_var, _ = _incremental_mean_and_var(A, xp, last_mean, last_var,
                                                         xp.full(n_features, float(seen)), None, True)  # fmt: skip
        n_total = seen + n_samples
        if seen == 0:
            stacked = A - col_mean.astype(A.dtype)
        else:
            batch_mean = ml_kernels.column_means(A, xp).astype(A.dtype)  # a coalesced pass on the GPU
            correction = np.sqrt((seen / n_total) * n_samples) * (last_mean - batch_mean)
            components = self._state("components_", xp)
            singular = self._state("singular_values_", xp)
            stacked = xp.concatenate([(singular[:, None] * components).astype(A.dtype), A - batch_mean,
                                      correction[None, :].astype(A.dtype)])  # fmt: skip
        _, S, Vt = xp.linalg.svd(stacked, full_matrices=False)
        Vt = _flip_signs(Vt, xp)
        explained_variance = S**2 / (n_total - 1)
        explained_variance_ratio = S**2 / (col_var * n_total).sum()
        k = self.n_components_
        self.n_samples_seen_ = n_total
        self.components_ = Vt[:k]
        self.singular_values_ = S[:k]
        self.mean_ = col_mean
        self.var_ = col_var
        self.explained_variance_ = explained_variance[:k]
        self.explained_variance_ratio_ = explained_variance_ratio[:k]
        if k not in (n_samples, n_features):
            self.noise_variance_ = float(explained_variance[k:].mean())  # one scalar read: a fitted scalar
        else:
            self.noise_variance_ = 0.0
        return self

    def transform(self, X):
        """Project X on the principal components."""
        check_is_fitted(self)
        A, xp = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES)
        components = self._fitted("components_", xp)
        out = A @ components.T.astype(A.dtype) - (self._fitted("mean_", xp) @ components.T).astype(A.dtype)
        if self.whiten:
            out = out / xp.sqrt(self._fitted("explained_variance_", xp)).astype(A.dtype)
        return self._output(out, X)

    def inverse_transform(self, X):
        """Map projected data back to the original space."""
        check_is_fitted(self)
        A, xp = check_input(X, dtype=FLOAT_DTYPES)
        components = self._fitted("components_", xp)
        if self.whiten:
            components = xp.sqrt(self._fitted("explained_variance_", xp))[:, None] * components
        return self._output(A @ components.astype(A.dtype) + self._fitted("mean_", xp).astype(A.dtype), X,
                            method="inverse_transform")  # fmt: skip

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags
