"""Where fitted attributes and outputs live: they follow the input, as every riptide.ml output does.

NumPy/pandas in -> NumPy attributes (even when the work ran on the GPU); CuPy or riptide-on-GPU in -> CuPy.
"""

from __future__ import annotations

import numpy as np
import pytest

from riptide import _device
from riptide.ml.cluster import KMeans
from riptide.ml.decomposition import PCA
from riptide.ml.linear_model import LinearRegression, LogisticRegression, Ridge
from riptide.ml.preprocessing import MinMaxScaler, StandardScaler

RNG = np.random.default_rng(7)
X = RNG.normal(size=(60, 3))
Y_REG = X @ np.array([1.0, -2.0, 0.5]) + 0.1
Y_CLS = (X[:, 0] > 0).astype(int)

ESTIMATORS = [
    (lambda: KMeans(n_clusters=2, n_init=1, random_state=0), None),
    (lambda: PCA(n_components=2), None),
    (lambda: LinearRegression(), Y_REG),
    (lambda: Ridge(alpha=0.5), Y_REG),
    (lambda: LogisticRegression(), Y_CLS),
    (lambda: StandardScaler(), None),
    (lambda: MinMaxScaler(), None),
]
IDS = ["KMeans", "PCA", "LinearRegression", "Ridge", "LogisticRegression", "StandardScaler", "MinMaxScaler"]


def _fitted_arrays(estimator):
    return {name: value for name, value in vars(estimator).items()
            if name.endswith("_") and not name.startswith("_") and hasattr(value, "shape")}  # fmt: skip


@pytest.mark.parametrize(("make", "y"), ESTIMATORS, ids=IDS)
def test_host_input_gives_host_attributes(make, y):
    est = make().fit(X, y)
    arrays = _fitted_arrays(est)
    assert arrays
    for name, value in arrays.items():
        assert isinstance(value, np.ndarray | np.generic), (name, type(value))
    # a second call on host data still works from the kept device copies (and gives host output)
    out = est.predict(X) if hasattr(est, "predict") else est.transform(X)
    assert isinstance(out, np.ndarray)


@pytest.mark.parametrize(("make", "y"), ESTIMATORS, ids=IDS)
def test_replaced_attribute_is_used(make, y):
    """A user who assigns a fitted attribute gets predictions from the new value, not from a stale device copy."""
    est = make().fit(X, y)
    if isinstance(est, LinearRegression | Ridge):
        est.coef_ = np.zeros_like(est.coef_)
        np.testing.assert_allclose(est.predict(X), np.full(len(X), est.intercept_))
    elif isinstance(est, StandardScaler):
        est.mean_ = np.zeros_like(est.mean_)
        np.testing.assert_allclose(est.transform(X), X / est.scale_)


@pytest.mark.gpu
@pytest.mark.parametrize(("make", "y"), ESTIMATORS, ids=IDS)
def test_device_input_gives_device_attributes(make, y):
    import cupy

    est = make().fit(cupy.asarray(X), None if y is None else cupy.asarray(y))
    for name, value in _fitted_arrays(est).items():
        if name != "n_iter_" and not isinstance(value, np.generic):  # host bookkeeping: iteration counts, scalars
            assert _device.is_device_array(value), name
