"""PolynomialFeatures: the polynomial expansion built on the device, one block of columns per degree.

The fitted state (``powers_``, ``n_output_features_``, feature names) depends on the feature count only, so it
is scikit-learn's own code. ``transform`` builds the terms degree by degree: the terms of degree ``d`` that start
with feature ``i`` are column ``i`` times the terms of degree ``d - 1`` whose first feature is ``i`` or later
(later only, for ``interaction_only``). With the terms in scikit-learn's (lexicographic) order those are a
contiguous run of the previous block, so each step is one broadcast product of a column and a slice: whole-array
work, a loop over features and degrees only. Dense input only (scikit-learn's sparse expansion is not ported).
"""

from __future__ import annotations

import numpy as np
from sklearn import preprocessing as _skp
from sklearn.base import _fit_context
from sklearn.utils.validation import check_is_fitted

from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import FLOAT_DTYPES, validate_data

__all__ = ["PolynomialFeatures"]


class PolynomialFeatures(DeviceEstimatorMixin, _skp.PolynomialFeatures):
    """Polynomial and interaction features (``sklearn.preprocessing.PolynomialFeatures``).

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.preprocessing import PolynomialFeatures
    >>> PolynomialFeatures(degree=2).fit_transform(np.array([[2.0, 3.0]])).tolist()
    [[1.0, 2.0, 3.0, 4.0, 6.0, 9.0]]
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the number of output features (depends on the feature count only)."""
        validate_data(self, X, reset=True)
        names = getattr(self, "feature_names_in_", None)
        super().fit(np.zeros((1, self.n_features_in_)))  # scikit-learn's bookkeeping, from the shape alone
        if names is not None:
            self.feature_names_in_ = names
        return self

    def transform(self, X):
        """The polynomial features of X."""
        check_is_fitted(self)
        A, xp = validate_data(self, X, reset=False, dtype=FLOAT_DTYPES)
        n_samples, n_features = A.shape
        blocks = []
        if self.include_bias:
            blocks.append(xp.ones((n_samples, 1), dtype=A.dtype))
        if self._max_degree >= 1:
            previous = A
            first = np.arange(n_features + 1)  # offset in `previous` of the terms starting with feature i
            if self._min_degree <= 1:
                blocks.append(A)
            for degree in range(2, self._max_degree + 1):
                parts, starts = [], [0]
                for i in range(n_features):
                    begin = first[i + 1] if self.interaction_only else first[i]
                    part = A[:, i : i + 1] * previous[:, begin:]
                    parts.append(part)
                    starts.append(starts[-1] + part.shape[1])
                previous = xp.concatenate(parts, axis=1) if parts else A[:, :0]
                first = np.array(starts)
                if degree >= self._min_degree:
                    blocks.append(previous)
        if not blocks:
            return self._output(xp.empty((n_samples, 0), dtype=A.dtype), X)
        return self._output(xp.concatenate(blocks, axis=1), X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False  # dense input only (module docstring)
        return tags
