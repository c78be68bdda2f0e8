"""KNeighborsRegressor: scikit-learn's k-nearest-neighbours regression, the search and the average on the device."""

from __future__ import annotations

from sklearn.base import RegressorMixin, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from riptide import _device
from riptide.ml._validation import FLOAT_DTYPES, on_device, validate_data
from riptide.ml.neighbors._base import KNeighborsMixin, NeighborsBase
from riptide.ml.neighbors._weights import neighbor_weights

__all__ = ["KNeighborsRegressor"]


class KNeighborsRegressor(KNeighborsMixin, RegressorMixin, NeighborsBase):
    """Regression by the (weighted) mean of the k nearest neighbours' targets (scikit-learn's
    ``KNeighborsRegressor``; parameters as :class:`~riptide.ml.neighbors.KNeighborsClassifier`).

    Examples
    --------
    >>> from riptide.ml.neighbors import KNeighborsRegressor
    >>> reg = KNeighborsRegressor(n_neighbors=2).fit([[0], [1], [2], [3]], [0.0, 0.0, 1.0, 1.0])
    >>> reg.predict([[1.5]]).tolist()
    [0.5]
    """

    _parameter_constraints: dict = {**NeighborsBase._parameter_constraints}
    _parameter_constraints.pop("radius")
    _parameter_constraints.update({"weights": [StrOptions({"uniform", "distance"}), callable, None]})

    def __init__(self, n_neighbors=5, *, weights="uniform", algorithm="auto", leaf_size=30, p=2,
                 metric="minkowski", metric_params=None, n_jobs=None):  # fmt: skip
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.p = p
        self.metric = metric
        self.metric_params = metric_params
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Fit the k-nearest neighbours regressor from the training dataset."""
        X_given = X
        # y_numeric: an object array of numbers becomes float64, which the device can hold (a regressor's target)
        X, Y, _ = validate_data(self, X, y, reset=True, dtype=FLOAT_DTYPES, multi_output=True, y_numeric=True)
        self._y = Y
        self._fit_rows(X_given, X)
        return self._publish(X_given)

    def predict(self, X):
        """The (weighted) mean target of each query's k nearest neighbours."""
        check_is_fitted(self)
        uniform = self.weights in (None, "uniform")
        dist, ind, xp = self._kneighbors(X, None, not uniform)
        Y = _device.to_device(self._y, xp)
        Y2 = Y.reshape(-1, 1) if Y.ndim == 1 else Y
        if uniform:
            pred = Y2[ind].mean(axis=1)
        else:
            w = neighbor_weights(dist, self.weights, xp, self._out(dist, X) if callable(self.weights) else None,
                                 check_zero=False)  # fmt: skip
            pred = (Y2[ind] * w[:, :, None]).sum(axis=1) / w.sum(axis=1)[:, None]
            pred = pred.astype(xp.float64, copy=False)
        if Y.ndim == 1:
            pred = pred.ravel()
        return self._out(pred, X)

    def score(self, X, y, sample_weight=None):
        """R^2 of :meth:`predict` (``r2_score``), on the inputs' device."""
        if on_device(X, y, sample_weight) is None:
            return super().score(X, y, sample_weight=sample_weight)
        from riptide.ml.metrics import r2_score

        check_is_fitted(self)
        A, Y, _ = validate_data(self, X, y, reset=False, dtype=FLOAT_DTYPES, multi_output=True)
        return r2_score(Y, self.predict(A), sample_weight=sample_weight)
