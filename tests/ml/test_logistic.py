"""LogisticRegression against scikit-learn's (the same L-BFGS-B iterates, so coef_ agrees to rounding)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn.linear_model as skl  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml.linear_model import LogisticRegression  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402


def _data(seed, n, d, k):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2, size=d)
    y = (X @ rng.normal(size=(d, k)) + rng.normal(size=(n, k))).argmax(axis=1)
    return X, y, rng.uniform(0.2, 2.0, size=n)


def _compare(ours, theirs, X, rtol=1e-6):
    np.testing.assert_allclose(_host(ours.coef_), theirs.coef_, rtol=rtol, atol=1e-8 * np.abs(theirs.coef_).max())
    np.testing.assert_allclose(_host(ours.intercept_), theirs.intercept_, rtol=rtol, atol=1e-8)
    assert ours.coef_.shape == theirs.coef_.shape and ours.intercept_.shape == theirs.intercept_.shape
    assert _host(ours.coef_).dtype == theirs.coef_.dtype
    np.testing.assert_array_equal(ours.n_iter_, theirs.n_iter_)
    np.testing.assert_array_equal(_host(ours.classes_), theirs.classes_)
    np.testing.assert_array_equal(_host(ours.predict(X)), theirs.predict(X))
    # probabilities amplify the last digits of coef_ on nearly separable data without a penalty
    np.testing.assert_allclose(_host(ours.predict_proba(X)), theirs.predict_proba(X), rtol=1e-4, atol=1e-9)
    scores = theirs.decision_function(X)
    np.testing.assert_allclose(_host(ours.decision_function(X)), scores, rtol=1e-4, atol=1e-6 * np.abs(scores).max())
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(_host(ours.predict_log_proba(X)), theirs.predict_log_proba(X), rtol=1e-4,
                                   atol=1e-3)  # fmt: skip


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(20, 120), d=st.integers(1, 6), k=st.sampled_from([2, 3, 4]),
       C=st.sampled_from([0.01, 1.0, 100.0, np.inf]), fit_intercept=st.booleans(),
       weighting=st.sampled_from([None, "sample", "balanced", "dict"]))  # fmt: skip
def test_matches_sklearn(seed, n, d, k, C, fit_intercept, weighting):
    X, y, w = _data(seed, n, d, k)
    if len(np.unique(y)) < 2:
        return
    params = dict(C=C, fit_intercept=fit_intercept)
    if weighting == "balanced":
        params["class_weight"] = "balanced"
    elif weighting == "dict":
        params["class_weight"] = {int(c): 1.0 + c for c in np.unique(y)}
    sw = w if weighting == "sample" else None
    with warnings.catch_warnings(record=True) as theirs_w:
        warnings.simplefilter("always", ConvergenceWarning)
        theirs = skl.LogisticRegression(**params).fit(X, y, sample_weight=sw)
    with warnings.catch_warnings(record=True) as ours_w:
        warnings.simplefilter("always", ConvergenceWarning)
        ours = LogisticRegression(**params).fit(X, y, sample_weight=sw)
    assert len([x for x in ours_w if x.category is ConvergenceWarning]) == \
        len([x for x in theirs_w if x.category is ConvergenceWarning])  # fmt: skip
    _compare(ours, theirs, X, rtol=1e-5)


def test_text_labels_device_inputs_and_score():
    X, y, _ = _data(1, 80, 3, 3)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    theirs = skl.LogisticRegression().fit(X, names)
    ours = LogisticRegression().fit(X, names)
    _compare(ours, theirs, X)
    assert ours.predict(X).dtype == theirs.predict(X).dtype
    frame = rt.DataFrame({f"f{j}": X[:, j] for j in range(3)})
    on_device = LogisticRegression().fit(frame, rt.Series(y.astype(np.float64) * 2 + 1))  # labels 1, 3, 5
    theirs = skl.LogisticRegression().fit(frame.to_pandas(), y * 2 + 1)
    np.testing.assert_allclose(_host(on_device.coef_), theirs.coef_, rtol=1e-6)
    np.testing.assert_array_equal(_host(on_device.predict(frame)), theirs.predict(frame.to_pandas()))
    assert on_device.feature_names_in_.tolist() == ["f0", "f1", "f2"]
    assert on_device.score(frame, rt.Series(y * 2 + 1)) == theirs.score(frame.to_pandas(), y * 2 + 1)
    restored = pickle.loads(pickle.dumps(on_device))
    np.testing.assert_array_equal(_host(restored.predict(X)), theirs.predict(X))


def test_float32_and_convergence_warning():
    X, y, _ = _data(2, 200, 4, 2)
    ours = LogisticRegression().fit(X.astype(np.float32), y)
    theirs = skl.LogisticRegression().fit(X.astype(np.float32), y)
    assert _host(ours.coef_).dtype == theirs.coef_.dtype == np.float32
    np.testing.assert_allclose(_host(ours.coef_), theirs.coef_, rtol=1e-4)
    with pytest.warns(ConvergenceWarning, match=r"lbfgs failed to converge after 2 iteration\(s\)"):
        ours = LogisticRegression(max_iter=2).fit(X, y)
    assert ours.n_iter_.tolist() == [2]


def test_errors():
    X, y, _ = _data(3, 30, 2, 2)
    with pytest.raises(ValueError, match="at least 2 classes in the data, but the data contains only one class"):
        LogisticRegression().fit(X, np.zeros(30))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        LogisticRegression().fit(X, np.linspace(0, 1, 30))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        LogisticRegression().fit(rt.DataFrame({"a": X[:, 0]}), rt.Series(np.linspace(0, 1, 30)))
    for params in (dict(l1_ratio=1.0, solver="saga"), dict(solver="newton-cg"), dict(solver="liblinear")):
        with pytest.raises(NotImplementedError, match="not implemented in riptide.ml"):
            LogisticRegression(**params).fit(X, y)
    with pytest.raises(ValueError, match="Solver lbfgs supports only 'l2' or None penalties, got elasticnet penalty"):
        LogisticRegression(l1_ratio=0.5).fit(X, y)
    with pytest.raises(ValueError, match="C"):
        LogisticRegression(C=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but LogisticRegression is expecting 1 features"):
        LogisticRegression().fit(X[:, :1], y).predict(X)


def test_warm_start_starts_from_the_previous_solution():
    X, y, _ = _data(4, 100, 3, 3)
    model = LogisticRegression(warm_start=True).fit(X, y)
    again = model.fit(X, y)
    assert again.n_iter_[0] <= 1
