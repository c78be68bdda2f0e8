"""riptide.ml.metrics against sklearn.metrics, for host inputs and device-resident (riptide) inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn.metrics as skm  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.exceptions import UndefinedMetricWarning  # noqa: E402

import riptide as rt  # noqa: E402
from riptide import _device  # noqa: E402
from riptide.ml import metrics as rtm  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402


def _device_form(a):
    """The same values as a device-resident input: a riptide Series (1-D) or a device array (2-D)."""
    a = np.asarray(a)
    return rt.Series(a) if a.ndim == 1 else _device.to_device(a)


def _same(ours, theirs, rtol=1e-9):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            _same(a, b, rtol)
        return
    if theirs is None or isinstance(theirs, float):
        assert type(ours) is type(theirs), (ours, theirs)
        if theirs is not None:
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-12)
        return
    ours = _host(ours)
    assert ours.shape == theirs.shape
    assert ours.dtype.kind == theirs.dtype.kind, (ours.dtype, theirs.dtype)
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-12)


def _both(name, *args, device_args=None, **kwargs):
    """Our metric on host inputs and on device inputs, both compared with scikit-learn's (warnings included)."""
    with warnings.catch_warnings(record=True) as theirs_w:
        warnings.simplefilter("always")
        theirs = getattr(skm, name)(*args, **kwargs)
    for inputs in (args, device_args or [_device_form(a) for a in args]):
        with warnings.catch_warnings(record=True) as ours_w:
            warnings.simplefilter("always")
            ours = getattr(rtm, name)(*inputs, **kwargs)
        _same(ours, theirs)
        assert sorted({w.category.__name__ for w in ours_w}) == sorted({w.category.__name__ for w in theirs_w})


labels_st = st.lists(st.integers(0, 3), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), average=st.sampled_from([None, "micro", "macro", "weighted", "binary"]),
       zero_division=st.sampled_from(["warn", 0.0, 1.0, np.nan]), weighted=st.booleans())  # fmt: skip
def test_classification_metrics_match(data, average, zero_division, weighted):
    n = data.draw(st.integers(1, 30))
    k = data.draw(st.integers(1, 4))
    y_true = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    y_pred = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    w = np.random.default_rng(n).uniform(0.1, 2, size=n) if weighted else None
    _both("accuracy_score", y_true, y_pred, sample_weight=w)
    _both("accuracy_score", y_true, y_pred, sample_weight=w, normalize=False)
    _both("confusion_matrix", y_true, y_pred, sample_weight=w)
    binary = len(np.union1d(y_true, y_pred)) <= 2
    for name in ["precision_score", "recall_score", "f1_score"]:
        if average == "binary" and not binary:
            with pytest.raises(ValueError, match="Target is multiclass but average='binary'"):
                getattr(rtm, name)(rt.Series(y_true), rt.Series(y_pred))
            continue
        if average == "binary" and 1 not in np.union1d(y_true, y_pred) and len(np.union1d(y_true, y_pred)) == 2:
            with pytest.raises(ValueError, match="pos_label=1 is not a valid label"):
                getattr(rtm, name)(rt.Series(y_true), rt.Series(y_pred))
            continue
        _both(name, y_true, y_pred, average=average, zero_division=zero_division, sample_weight=w)
    if average != "binary":
        _both("precision_recall_fscore_support", y_true, y_pred, average=average, sample_weight=w,
              zero_division=zero_division, beta=2.0)  # fmt: skip


def test_labels_parameter_and_text_labels():
    y_true = np.array(["cat", "dog", "cat", "bird", "dog"])
    y_pred = np.array(["cat", "cat", "cat", "bird", "fish"])
    for labels in (None, ["dog", "cat"], ["cat", "bird", "dog", "fish"]):
        theirs = skm.confusion_matrix(y_true, y_pred, labels=labels)
        _same(rtm.confusion_matrix(y_true, y_pred, labels=labels), theirs)
        for average in (None, "macro", "micro"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                _same(rtm.f1_score(y_true, y_pred, labels=labels, average=average),
                      skm.f1_score(y_true, y_pred, labels=labels, average=average))
    a, b = np.array([0, 1, 2, 2]), np.array([0, 2, 2, 1])
    _both("confusion_matrix", a, b, labels=[2, 0, 5])
    for normalize in ("true", "pred", "all"):
        _both("confusion_matrix", a, b, normalize=normalize)
    _both("confusion_matrix", a, b, sample_weight=np.array([1, 2, 3, 4]))  # integer weights: integer counts
    with pytest.raises(ValueError, match="At least one label specified must be in y_true"):
        rtm.confusion_matrix(rt.Series(a), rt.Series(b), labels=[7])
    with pytest.raises(ValueError, match="'labels' should contain at least one label"):
        rtm.confusion_matrix(rt.Series(a), rt.Series(b), labels=[])
    _both("precision_score", np.array([3, 5, 5]), np.array([5, 5, 3]), pos_label=5)


def test_classification_errors_are_sklearns():
    cont = np.array([0.5, 1.5, 2.0])
    for y in (cont, rt.Series(cont)):
        with pytest.raises(ValueError, match="Classification metrics can't handle a mix"):
            rtm.accuracy_score(y, np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        rtm.accuracy_score(rt.Series([0, 1, 1]), rt.Series([0, 1]))
    with pytest.raises(ValueError, match="average"):
        rtm.f1_score([0, 1], [0, 1], average="bogus")
    for name in ("accuracy_score", "confusion_matrix", "f1_score"):  # text weights: scikit-learn's error, not 0
        with pytest.raises((TypeError, ValueError)) as theirs:
            getattr(skm, name)([0, 1], [0, 1], sample_weight=["a", "b"])
        with pytest.raises(theirs.type):
            getattr(rtm, name)([0, 1], [0, 1], sample_weight=["a", "b"])
    multilabel = np.array([[1, 0], [0, 1], [1, 1]])
    _both("accuracy_score", multilabel, multilabel[::-1])  # host path, device result type
    _both("f1_score", multilabel, multilabel[::-1], average="samples")


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 40), outputs=st.sampled_from([1, 3]), weighted=st.booleans(),
       multioutput=st.sampled_from(["raw_values", "uniform_average", "variance_weighted", "array"]))  # fmt: skip
def test_regression_metrics_match(seed, n, outputs, weighted, multioutput):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=(n, outputs)) if outputs > 1 else rng.normal(size=n)
    p = y + rng.normal(size=y.shape) * rng.uniform(0, 1)
    if seed % 5 == 0:
        y = np.zeros_like(y)  # constant targets: the force_finite rules
    w = rng.uniform(0.1, 2, size=n) if weighted else None
    if multioutput == "array":
        if outputs == 1:
            return
        multioutput = rng.uniform(0.1, 1, size=outputs)
    for name in ["mean_squared_error", "mean_absolute_error"]:
        if isinstance(multioutput, str) and multioutput == "variance_weighted":
            continue
        _both(name, y, p, sample_weight=w, multioutput=multioutput)
    for force_finite in (True, False):
        _both("r2_score", y, p, sample_weight=w, multioutput=multioutput, force_finite=force_finite)


def test_regression_errors():
    with pytest.raises(ValueError, match="Input contains NaN"):
        rtm.mean_squared_error(rt.Series([1.0, np.nan]), rt.Series([1.0, 2.0]))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        rtm.r2_score(rt.Series([1.0, 2.0, 3.0]), rt.Series([1.0, 2.0]))
    with pytest.raises(ValueError, match="multioutput"):
        rtm.mean_absolute_error([1.0, 2.0], [1.0, 2.0], multioutput="bogus")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40), ties=st.booleans(), weighted=st.booleans())
def test_roc_auc_matches(seed, n, ties, weighted):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n) * 3 + 2  # labels 2 and 5
    if len(np.unique(y)) < 2:
        y[0], y[1] = 2, 5
    s = rng.integers(0, 4, size=n).astype(float) if ties else rng.normal(size=n)
    w = rng.uniform(0.1, 2, size=n) if weighted else None
    _both("roc_auc_score", y, s, sample_weight=w)


def test_roc_auc_fallbacks():
    y, s = np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])
    _both("roc_auc_score", y, s, max_fpr=0.5)
    proba = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3]])
    _both("roc_auc_score", np.array([0, 1, 2, 1]), proba, multi_class="ovr")


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 30), k=st.integers(2, 4), weighted=st.booleans())
def test_log_loss_matches(seed, n, k, weighted):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)[: min(k, n)] if n >= k else y[:k]
    P = rng.dirichlet(np.ones(k), size=n)
    P[0] = np.eye(k)[0]  # a certain prediction: clipping
    w = rng.uniform(0.1, 2, size=n) if weighted else None
    if len(np.unique(y)) != k:
        return
    _both("log_loss", y, P, sample_weight=w)
    _both("log_loss", y, P, sample_weight=w, normalize=False)


def test_log_loss_checks():
    y = np.array([0, 1, 1])
    with pytest.raises(ValueError, match="greater than 1"):
        rtm.log_loss(rt.Series(y), _device.to_device(np.array([[0.5, 1.5], [0.5, 0.5], [0.5, 0.5]])))
    with pytest.warns(UserWarning, match="do not sum to one"):
        rtm.log_loss(rt.Series(y), _device.to_device(np.array([[0.2, 0.2], [0.5, 0.5], [0.5, 0.5]])))
    _both("log_loss", np.array(["a", "b", "b"]), np.array([[0.6, 0.4], [0.3, 0.7], [0.5, 0.5]]))


@pytest.mark.parametrize("metric", ["euclidean", "cosine", "manhattan", "l1", "cityblock", "l2", "chebyshev"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pairwise_distances_match(metric, dtype):
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(25, 4)).astype(dtype), rng.normal(size=(7, 4)).astype(dtype)
    X[3] = 0.0  # a zero row: cosine treats it as orthogonal to everything
    for args in ((X,), (X, Y)):
        theirs = skm.pairwise_distances(*args, metric=metric)
        for inputs in (args, tuple(_device.to_device(a) for a in args)):
            ours = _host(rtm.pairwise_distances(*inputs, metric=metric))
            assert ours.dtype == theirs.dtype
            np.testing.assert_allclose(ours, theirs, rtol=1e-5 if dtype == np.float32 else 1e-9, atol=1e-6)
    with pytest.raises(ValueError, match="Incompatible dimension for X and Y matrices"):
        rtm.pairwise_distances(X, Y[:, :3], metric=metric)


@pytest.mark.parametrize("metric", ["euclidean", "cosine", "manhattan"])
def test_silhouette_matches(metric):
    rng = np.random.default_rng(1)
    X = np.r_[rng.normal(size=(20, 3)), rng.normal(size=(15, 3)) + 3, rng.normal(size=(1, 3)) - 3]
    labels = np.r_[np.zeros(20, int), np.ones(15, int), [7]]  # a singleton cluster scores 0
    theirs = skm.silhouette_score(X, labels, metric=metric)
    for args in ((X, labels), (_device.to_device(X), rt.Series(labels))):
        assert np.isclose(rtm.silhouette_score(*args, metric=metric), theirs, rtol=1e-10)
    np.testing.assert_allclose(_host(rtm.silhouette_samples(X, labels, metric=metric)),
                               skm.silhouette_samples(X, labels, metric=metric), rtol=1e-10)  # fmt: skip
    assert np.isclose(rtm.silhouette_score(X, labels, sample_size=20, random_state=3),
                      skm.silhouette_score(X, labels, sample_size=20, random_state=3), rtol=1e-10)  # fmt: skip
    with pytest.raises(ValueError, match="Number of labels is 1. Valid values are 2 to n_samples - 1"):
        rtm.silhouette_score(X, np.zeros(len(X), int))
