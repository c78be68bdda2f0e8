"""TargetEncoder: per-category target statistics as segmented sums on the device, with scikit-learn's cross fitting.

The class is scikit-learn's (a subclass), so parameters, validation, ``get_feature_names_out`` and the fold
choice are its own. Categories are found and rows encoded by riptide's encoders (see
:mod:`riptide.ml.preprocessing._encoders`: strings of a riptide DataFrame are factorized on the device). The
encodings are segmented sums over each feature's category numbers: ``bincount(codes, weights=y)`` and the
counts, and for ``smooth='auto'`` a second pass for the within-category sum of squared deviations, then
scikit-learn's formulas (Micci-Barreca's empirical Bayes shrinkage, or the fixed ``smooth`` blend) on the
``n_categories``-long results.

``fit_transform`` uses scikit-learn's own splitter (``KFold``, or ``StratifiedKFold`` for a classification
target, built by ``check_cv`` from ``cv``, ``shuffle`` and ``random_state``): the folds are drawn on the host from
the sample count and (to stratify) the labels, read back once; each fold's rows are gathered on the device.
``encodings_`` is a list of small NumPy arrays, as scikit-learn's. Input only scikit-learn can read (object
columns, mixed pandas frames) takes scikit-learn's own code on the host.
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np
from sklearn import preprocessing as _skp
from sklearn.base import _fit_context
from sklearn.model_selection import check_cv
from sklearn.utils.validation import check_is_fitted

from riptide import _device
from riptide.ml import _kernels as ml_kernels
from riptide.ml._validation import host_form, input_namespace
from riptide.ml.preprocessing._encoders import _device_columns, _DeviceEncoderMixin
from riptide.ml.preprocessing._label import _numeric_target

__all__ = ["TargetEncoder"]


def _encoding(codes: Any, y: Any, n_categories: int, smooth: Any, y_mean: float, y_variance: Any,
              xp: types.ModuleType) -> Any:  # fmt: skip
    """One feature's encoding (float64, one value per category) from its category numbers and the target."""
    counts = xp.bincount(codes, minlength=n_categories).astype(np.float64)
    sums = xp.bincount(codes, weights=y, minlength=n_categories)
    if isinstance(smooth, str):  # 'auto': shrink each category mean toward the target mean by its reliability
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums / counts
            deviation = y - means[codes]
            squared = xp.bincount(codes, weights=deviation * deviation, minlength=n_categories)
            shrink = y_variance * counts / (y_variance * counts + squared / counts)
            return xp.where(xp.isnan(shrink), y_mean, shrink * means + (1 - shrink) * y_mean)
    with np.errstate(invalid="ignore", divide="ignore"):
        blended = (smooth * y_mean + sums) / (smooth + counts)
    return xp.where(smooth + counts == 0, y_mean, blended)


def _target_mean(encoded: Any, xp: types.ModuleType) -> Any:
    """The encoded target's mean: a 0-d array, or one mean per class (an ``n x classes`` indicator, its column means
    by a coalesced pass on the GPU)."""
    return ml_kernels.column_means(encoded, xp) if encoded.ndim == 2 else encoded.mean(axis=0)


class TargetEncoder(_DeviceEncoderMixin, _skp.TargetEncoder):
    """Encode categories by the (shrunk) mean of the target in each category
    (``sklearn.preprocessing.TargetEncoder``).

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.preprocessing import TargetEncoder
    >>> X = np.array([[0], [0], [1], [1]])
    >>> enc = TargetEncoder(smooth=0.0, target_type="continuous").fit(X, np.array([1.0, 3.0, 10.0, 10.0]))
    >>> enc.encodings_[0].tolist()
    [2.0, 10.0]
    """

    def _target(self, y: Any, xp: types.ModuleType) -> Any:
        """Set ``target_type_``, ``classes_``, ``target_mean_``; return the encoded target on the device."""
        from riptide.ml.preprocessing._label import LabelBinarizer, LabelEncoder

        numeric = _numeric_target(y)
        if self.target_type == "auto":
            if numeric is not None:
                a = numeric[0]
                continuous = a.dtype.kind == "f" and not bool((a == xp.floor(a)).all())  # one scalar read
                if continuous:
                    kind = "continuous"
                else:
                    kind = "binary" if int(xp.unique(a).shape[0]) <= 2 else "multiclass"  # one scalar read
            else:
                from sklearn.utils.multiclass import type_of_target

                kind = type_of_target(host_form(y), input_name="y")
            if kind not in ("binary", "multiclass", "continuous"):
                raise ValueError(f"Unknown label type: Target type was inferred to be {kind!r}. Only "
                                 "('binary', 'multiclass', 'continuous') are supported.")  # fmt: skip
            self.target_type_ = kind
        else:
            self.target_type_ = self.target_type
        self.classes_ = None
        if self.target_type_ == "binary":
            encoder = LabelEncoder()
            encoded = encoder.fit_transform(y)
            self.classes_ = _device.to_host(encoder.classes_)
        elif self.target_type_ == "multiclass":
            binarizer = LabelBinarizer()
            encoded = binarizer.fit_transform(y)
            self.classes_ = _device.to_host(binarizer.classes_)
        elif numeric is not None:
            encoded = numeric[0]
        else:
            from sklearn.utils.validation import _check_y

            encoded = _check_y(host_form(y), y_numeric=True, estimator=self)
        encoded = _device.to_device(encoded, xp).astype(np.float64)
        self.target_mean_ = _device.to_host(_target_mean(encoded, xp))
        if self.target_mean_.ndim == 0:
            self.target_mean_ = self.target_mean_[()]
        return encoded

    def _encodings(self, X_int: Any, y: Any, xp: types.ModuleType) -> list:
        """Every feature's encoding (grouped by feature, then class, for a multiclass target), host arrays."""
        n_categories = [len(c) for c in self.categories_]
        targets = [y] if y.ndim == 1 else [y[:, k] for k in range(y.shape[1])]
        out = []
        for j, n_cat in enumerate(n_categories):
            for target in targets:
                mean = float(target.mean())  # one scalar read per target column: the prior
                variance = target.var() if isinstance(self.smooth, str) else None
                out.append(_encoding(X_int[:, j], target, n_cat, self.smooth, mean, variance, xp))
        return [_device.to_host(e) for e in out]

    def _apply(self, out: Any, X_int: Any, unknown: Any, rows: Any, encodings: list, target_mean: Any,
               xp: types.ModuleType) -> Any:  # fmt: skip
        """Fill ``out[rows]`` from the encodings; rows with an unknown category get the target mean."""
        n_classes = len(self.classes_) if self.target_type_ == "multiclass" else 1
        means = np.atleast_1d(target_mean)
        for e, encoding in enumerate(encodings):
            feature, k = divmod(e, n_classes)
            table = _device.to_device(encoding, xp)
            out[rows, e] = table[X_int[rows, feature]]
            out[:, e] = xp.where(unknown[:, feature], float(means[k]), out[:, e])
        return out

    def _device_fit(self, X: Any, y: Any) -> tuple | None:
        found = _device_columns(X)
        if found is None:
            return None
        xp = found[2]
        if y is None:
            raise ValueError(f"This {type(self).__name__} estimator requires y to be passed, but the target y is "
                             "None.")  # fmt: skip
        if input_namespace(y) is None and not isinstance(y, np.ndarray | list | tuple) and _numeric_target(y) is None:
            y = np.asarray(host_form(y))
        n_y = y.shape[0] if hasattr(y, "shape") else len(y)
        n_x = found[0][0].data.shape[0] if found[0][0].kind == "num" else found[0][0].data.size
        if n_x != n_y:
            raise ValueError(f"Found input variables with inconsistent numbers of samples: {[n_x, n_y]}")
        self._fit(X, handle_unknown="ignore", ensure_all_finite="allow-nan")
        encoded = self._target(y, xp)
        X_int, known, _ = self._device_transform(X, handle_unknown="ignore")
        self.encodings_ = self._encodings(X_int, encoded, xp)
        return X_int, known, encoded, xp

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the encodings from all of X and y (``fit_transform`` cross-fits; see scikit-learn)."""
        if self._device_fit(X, y) is None:
            return super().fit(host_form(X), host_form(y))
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y, **params):
        """Fit, and encode X with cross fitting: each fold is encoded by a fit on the other folds."""
        if params:
            raise NotImplementedError("TargetEncoder.fit_transform(**params) is not implemented in riptide.ml yet")
        fitted = self._device_fit(X, y)
        if fitted is None:
            return super().fit_transform(host_form(X), host_form(y))
        X_int, known, encoded, xp = fitted
        if self.shuffle != "deprecated" or self.random_state != "deprecated":
            warnings.warn("`TargetEncoder.shuffle` and `TargetEncoder.random_state` are deprecated in version 1.9 "
                          "and will be removed in version 1.11. Pass a cross-validation generator as `cv` argument "
                          "to specify the shuffling behaviour instead.", FutureWarning)  # fmt: skip
        cv_kwargs: dict = {"shuffle": True if self.shuffle == "deprecated" else self.shuffle}
        if self.random_state != "deprecated":
            cv_kwargs["random_state"] = self.random_state
        classifier = self.target_type_ != "continuous"
        labels = _device.to_host(encoded if encoded.ndim == 1 else xp.argmax(encoded, axis=1)) if classifier \
            else None  # fmt: skip
        cv = check_cv(self.cv, labels, classifier=classifier, **cv_kwargs)
        n = X_int.shape[0]
        width = X_int.shape[1] * (len(self.classes_) if self.target_type_ == "multiclass" else 1)
        out = xp.empty((n, width), dtype=np.float64)
        unknown = ~known
        proxy = np.zeros((n, 1))
        for train, test in cv.split(proxy, labels if labels is not None else proxy[:, 0]):
            train_rows, test_rows = _device.to_device(train, xp), _device.to_device(test, xp)
            y_train = encoded[train_rows]
            train_mean = _device.to_host(_target_mean(y_train, xp))
            encodings = self._encodings(X_int[train_rows], y_train, xp)
            self._apply(out, X_int, unknown, test_rows, encodings, train_mean, xp)
        return self._output(out, X)

    def transform(self, X):
        """Encode X with the encodings learnt on all the training data."""
        check_is_fitted(self)
        found = self._device_transform(X, handle_unknown="ignore")
        if found is None:
            return super().transform(host_form(X))
        X_int, known, xp = found
        width = X_int.shape[1] * (len(self.classes_) if self.target_type_ == "multiclass" else 1)
        out = xp.empty((X_int.shape[0], width), dtype=np.float64)
        rows = xp.arange(X_int.shape[0])
        return self._output(self._apply(out, X_int, ~known, rows, self.encodings_, self.target_mean_, xp), X)
