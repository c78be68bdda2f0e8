"""riptide.ml's foundation: inputs of every kind, scikit-learn's errors, output types, pickling, set_output."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.exceptions import NotFittedError, UndefinedMetricWarning  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler as SkStandardScaler  # noqa: E402
from sklearn.utils._param_validation import InvalidParameterError  # noqa: E402
from sklearn.utils.validation import check_array  # noqa: E402

import riptide as rt  # noqa: E402
from riptide import _device  # noqa: E402
from riptide.ml import _validation  # noqa: E402
from riptide.ml.cluster import KMeans  # noqa: E402
from riptide.ml.decomposition import PCA  # noqa: E402
from riptide.ml.linear_model import LinearRegression, Ridge  # noqa: E402
from riptide.ml.preprocessing import MinMaxScaler, StandardScaler  # noqa: E402

RNG = np.random.default_rng(7)
X = RNG.normal(size=(40, 3))
Y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * RNG.normal(size=40)
ALL = [StandardScaler(), MinMaxScaler(), LinearRegression(), Ridge(), PCA(2), KMeans(3, random_state=0, n_init=1)]


def _fit(est, X_, y_=None):
    return est.fit(X_, y_) if isinstance(est, LinearRegression | Ridge) else est.fit(X_)


def _sklearn_error(X_, **kwargs):
    with pytest.raises(ValueError) as info:
        check_array(X_, **kwargs)
    return str(info.value)


# --------------------------------------------------------------------------- input kinds


@pytest.mark.parametrize("kind", ["numpy", "list", "pandas", "riptide"])
def test_standard_scaler_accepts_every_input_kind(kind):
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    data = {"numpy": X, "list": X.tolist(), "pandas": frame, "riptide": rt.from_pandas(frame)}[kind]
    ours, theirs = StandardScaler().fit(data), SkStandardScaler().fit(frame if kind != "numpy" and kind != "list"
                                                                        else X)  # fmt: skip
    np.testing.assert_allclose(_device.to_host(ours.mean_), theirs.mean_, rtol=1e-12)
    out = ours.transform(data)
    np.testing.assert_allclose(_device.to_host(out), theirs.transform(frame if kind in ("pandas", "riptide") else X),
                               rtol=1e-12)  # fmt: skip
    if kind in ("pandas", "riptide"):
        assert ours.feature_names_in_.tolist() == ["a", "b", "c"]
    else:
        assert not hasattr(ours, "feature_names_in_")
    if kind == "riptide":  # riptide in: arrays in the frame's namespace
        assert _validation.input_namespace(data) is _device.namespace_of(out)
    else:
        assert isinstance(out, np.ndarray)


def test_riptide_frame_dtypes_follow_check_array():
    frame = pd.DataFrame({"i": np.arange(5, dtype=np.int64), "f": np.linspace(0, 1, 5).astype(np.float32)})
    A, _ = _validation.check_input(rt.from_pandas(frame), dtype=_validation.FLOAT_DTYPES)
    assert A.dtype == check_array(frame, dtype=[np.float64, np.float32]).dtype == np.float64
    f32 = pd.DataFrame({"f": np.linspace(0, 1, 5).astype(np.float32), "g": np.ones(5, dtype=np.float32)})
    A, _ = _validation.check_input(rt.from_pandas(f32), dtype=_validation.FLOAT_DTYPES)
    assert A.dtype == np.float32


def test_riptide_nullable_columns_take_sklearns_path():
    frame = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64"), "b": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="Input X contains NaN"):
        LinearRegression().fit(rt.from_pandas(frame), [1.0, 2.0, 3.0])
    scaler = StandardScaler().fit(rt.from_pandas(frame))  # NaN is allowed by the scalers, as in scikit-learn
    np.testing.assert_allclose(_device.to_host(scaler.mean_), SkStandardScaler().fit(frame).mean_)
    full = pd.DataFrame({"a": pd.array([1, 2, 3], dtype="Int64"), "b": [1.0, 2.0, 4.0]})
    reg = LinearRegression().fit(rt.from_pandas(full), rt.Series([1.0, 2.0, 3.0]))
    assert reg.n_features_in_ == 2


def test_riptide_series_target_and_weights():
    frame = rt.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2]})
    weights = RNG.random(40)
    ours = LinearRegression().fit(frame, rt.Series(Y), sample_weight=rt.Series(weights))
    from sklearn.linear_model import LinearRegression as SkLR

    theirs = SkLR().fit(X, Y, sample_weight=weights)
    np.testing.assert_allclose(_device.to_host(ours.coef_), theirs.coef_, rtol=1e-9)
    assert np.isclose(ours.score(frame, rt.Series(Y)), theirs.score(X, Y), rtol=1e-12)
    one = rt.DataFrame({"a": X[:1, 0], "b": X[:1, 1], "c": X[:1, 2]})
    with pytest.warns(UndefinedMetricWarning, match="less than two samples"):  # scikit-learn's r2_score: nan
        assert np.isnan(ours.score(one, rt.Series(Y[:1]))) and np.isnan(theirs.score(X[:1], Y[:1]))


# --------------------------------------------------------------------------- bad input, as scikit-learn


@pytest.mark.parametrize("make", [lambda a: a, rt.from_pandas, lambda a: a.to_numpy()])
def test_nan_and_inf_messages(make):
    for bad_value, word in [(np.nan, "NaN"), (np.inf, "infinity")]:
        values = X.copy()
        values[3, 1] = bad_value
        data = make(pd.DataFrame(values, columns=["a", "b", "c"]))
        with pytest.raises(ValueError, match=f"Input X contains {word}"):
            LinearRegression().fit(data, Y)
        with pytest.raises(ValueError, match=f"Input X contains {word}"):
            PCA().fit(data)


def test_nan_in_y_and_weights():
    y = Y.copy()
    y[0] = np.nan
    with pytest.raises(ValueError, match="Input y contains NaN"):
        LinearRegression().fit(X, y)
    with pytest.raises(ValueError, match="Input y contains NaN"):
        LinearRegression().fit(rt.DataFrame({"a": X[:, 0]}), rt.Series(y))
    with pytest.raises(ValueError, match="sample_weight"):
        LinearRegression().fit(X, Y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="Negative values in data passed to"):
        LinearRegression().fit(X, Y, sample_weight=-np.ones(40))


@pytest.mark.parametrize("est", ALL, ids=lambda e: type(e).__name__)
def test_one_dimensional_x(est):
    message = _sklearn_error(X[:, 0])
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array instead") as info:
        _fit(clone(est), X[:, 0], Y)
    assert str(info.value).split(":")[0] == message.split(":")[0]
    with pytest.raises(ValueError, match="Expected a 2-dimensional container"):
        _fit(clone(est), rt.Series(X[:, 0]), Y)


@pytest.mark.parametrize("est", ALL, ids=lambda e: type(e).__name__)
def test_feature_count_and_not_fitted(est):
    est = clone(est)
    with pytest.raises(NotFittedError):
        (est.transform if hasattr(est, "transform") else est.predict)(X)
    _fit(est, X, Y)
    method = est.predict if hasattr(est, "predict") else est.transform
    with pytest.raises(ValueError, match=f"X has 2 features, but {type(est).__name__} is expecting 3 features"):
        method(X[:, :2])
    with pytest.raises(ValueError, match=f"X has 2 features, but {type(est).__name__} is expecting 3 features"):
        with pytest.warns(UserWarning, match="X has feature names, but"):
            method(rt.DataFrame({"a": X[:, 0], "b": X[:, 1]}))


def test_feature_names_checked_like_sklearn():
    frame = rt.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2]})
    scaler = StandardScaler().fit(frame)
    with pytest.raises(ValueError, match="Feature names must be in the same order"):
        scaler.transform(frame[["b", "a", "c"]])
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        scaler.transform(X)
    assert scaler.get_feature_names_out().tolist() == ["a", "b", "c"]


def test_empty_input():
    with pytest.raises(ValueError, match=r"Found array with 0 sample\(s\)"):
        StandardScaler().fit(np.empty((0, 3)))
    with pytest.raises(ValueError, match=r"Found array with 0 sample\(s\)"):
        StandardScaler().fit(rt.DataFrame({"a": np.empty(0)}))


@pytest.mark.parametrize("est, params", [
    (StandardScaler(), {"with_mean": "yes"}),
    (LinearRegression(), {"tol": -1.0}),
    (Ridge(), {"solver": "magic"}),
    (PCA(), {"n_components": -1}),
    (KMeans(), {"n_clusters": 0}),
    (KMeans(), {"init": "nope"}),
])  # fmt: skip
def test_invalid_parameters(est, params):
    with pytest.raises(InvalidParameterError, match=next(iter(params))):
        _fit(clone(est).set_params(**params), X, Y)


def test_positive_options_fit():
    # positive=True once raised NotImplementedError; it is scikit-learn's constraint now (tests/ml/test_linear_model.py)
    for est in (LinearRegression(positive=True), Ridge(positive=True)):
        fitted = est.fit(X, Y)
        assert (_device.to_host(fitted.coef_) >= 0).all()


# --------------------------------------------------------------------------- state and output


@pytest.mark.parametrize("est", ALL, ids=lambda e: type(e).__name__)
def test_pickle_round_trip(est):
    fitted = _fit(clone(est), X, Y)
    again = pickle.loads(pickle.dumps(fitted))
    method = "predict" if hasattr(fitted, "predict") else "transform"
    np.testing.assert_array_equal(_device.to_host(getattr(fitted, method)(X)), _device.to_host(getattr(again, method)(X)))
    assert "_riptide_device_attributes" not in vars(again)


def test_set_output_riptide_and_pandas():
    frame = rt.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2]}, index=list(range(100, 140)))
    out = StandardScaler().set_output(transform="riptide").fit_transform(frame)
    assert isinstance(out, rt.DataFrame)
    assert list(out.columns) == ["a", "b", "c"]
    assert out.index.to_pandas().tolist() == list(range(100, 140))
    pca = PCA(2).set_output(transform="pandas").fit(frame)
    out = pca.transform(frame)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["pca0", "pca1"]
    km = KMeans(2, random_state=0, n_init=1).set_output(transform="riptide").fit(X)
    assert list(km.transform(X).columns) == ["kmeans0", "kmeans1"]


def test_inside_sklearn_pipeline_and_clone():
    pipe = make_pipeline(StandardScaler(), PCA(2), LinearRegression()).fit(X, Y)
    assert 0 < pipe.score(X, Y) <= 1
    assert clone(pipe).get_params()["pca__n_components"] == 2
    assert repr(Ridge(alpha=2.0)) == "Ridge(alpha=2.0)"


def test_no_warning_for_clean_input():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for est in ALL:
            _fit(clone(est), rt.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2]}), rt.Series(Y))


@pytest.mark.gpu
def test_cupy_in_cupy_out_and_host_pickle():
    import cupy

    Xd, yd = cupy.asarray(X), cupy.asarray(Y)
    reg = LinearRegression().fit(Xd, yd)
    assert isinstance(reg.coef_, cupy.ndarray) and isinstance(reg.predict(Xd), cupy.ndarray)
    assert isinstance(reg.predict(X), np.ndarray)
    state = reg.__getstate__()
    assert isinstance(state["coef_"], np.ndarray) and state["_riptide_device_attributes"]
    again = pickle.loads(pickle.dumps(reg))
    assert isinstance(again.coef_, cupy.ndarray)
    with rt.option_context("device", "cpu"):
        on_host = pickle.loads(pickle.dumps(reg))
    assert isinstance(on_host.coef_, np.ndarray)
    for est in ALL:
        fitted = _fit(clone(est), Xd, yd)
        method = "predict" if hasattr(fitted, "predict") else "transform"
        assert isinstance(getattr(fitted, method)(Xd), cupy.ndarray)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        bad = Xd.copy()
        bad[0, 0] = cupy.nan
        PCA().fit(bad)
