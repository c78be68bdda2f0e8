"""GaussianNB, MultinomialNB and BernoulliNB against scikit-learn."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import sklearn.naive_bayes as sknb  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml import naive_bayes as rtnb  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402

ATTRS = {
    "GaussianNB": ["theta_", "var_", "class_prior_", "class_count_", "epsilon_", "classes_"],
    "MultinomialNB": ["feature_count_", "class_count_", "feature_log_prob_", "class_log_prior_", "classes_"],
    "BernoulliNB": ["feature_count_", "class_count_", "feature_log_prob_", "class_log_prior_", "classes_"],
}


def _data(name, seed, n, d, k, float32):
    rng = np.random.default_rng(seed)
    if name == "MultinomialNB":
        X = rng.integers(0, 6, size=(n, d)).astype(float)
    else:
        X = rng.normal(size=(n, d)) + rng.integers(0, 3, size=(n, 1))
    if float32:
        X = X.astype(np.float32)
    return X, rng.integers(0, k, size=n), rng.random(n) + 0.1


def _same(ours, theirs, name, rtol):
    for attr in ATTRS[name]:
        a, b = _host(getattr(ours, attr)), getattr(theirs, attr)
        assert np.shape(a) == np.shape(b), attr
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-10, err_msg=attr)


@settings(max_examples=45, deadline=None)
@given(name=st.sampled_from(list(ATTRS)), seed=st.integers(0, 50), n=st.integers(2, 30), d=st.integers(1, 4),
       k=st.integers(1, 4), weighted=st.booleans(), float32=st.booleans())  # fmt: skip
def test_fit_predict_matches(name, seed, n, d, k, weighted, float32):
    X, y, w = _data(name, seed, n, d, k, float32)
    sw = w if weighted else None
    ours, theirs = getattr(rtnb, name)().fit(X, y, sample_weight=sw), getattr(sknb, name)().fit(X, y, sample_weight=sw)
    rtol = 1e-4 if float32 else 1e-7
    _same(ours, theirs, name, rtol)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=rtol, atol=1e-9)
    np.testing.assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=rtol, atol=1e-6)
    # scikit-learn's GaussianNB works in float32 on float32 input (riptide in float64): with a variance near
    # var_smoothing the joint log-likelihoods differ in the float32 rounding
    jll_rtol = 1e-3 if float32 and name == "GaussianNB" else rtol
    jll = theirs.predict_joint_log_proba(X)
    np.testing.assert_allclose(ours.predict_joint_log_proba(X), jll, rtol=jll_rtol)
    # Classes whose joint log-likelihoods tie (equal counts) are told apart by the summation order's rounding:
    # compare the predictions where the best class is clear.
    best_two = np.sort(jll, axis=1)[:, -2:] if jll.shape[1] > 1 else np.hstack([jll - 1, jll])
    clear = best_two[:, 1] - best_two[:, 0] > 1e-6 * np.maximum(1.0, np.abs(best_two[:, 1]))
    np.testing.assert_array_equal(_host(ours.predict(X))[clear], theirs.predict(X)[clear])


@pytest.mark.parametrize("name", list(ATTRS))
def test_partial_fit_matches(name):
    X, y, w = _data(name, 1, 60, 3, 3, False)
    ours, theirs = getattr(rtnb, name)(), getattr(sknb, name)()
    for rows in np.array_split(np.arange(60), 4):
        ours.partial_fit(X[rows], y[rows], classes=[0, 1, 2], sample_weight=w[rows])
        theirs.partial_fit(X[rows], y[rows], classes=[0, 1, 2], sample_weight=w[rows])
    _same(ours, theirs, name, 1e-7)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-7)
    with pytest.raises(ValueError, match="classes must be passed"):
        getattr(rtnb, name)().partial_fit(X, y)


@pytest.mark.parametrize("params", [dict(alpha=0.0, force_alpha=False), dict(alpha=0.5, fit_prior=False),
                                    dict(class_prior=[0.2, 0.3, 0.5]), dict(alpha=[1.0, 2.0, 0.5]),
                                    dict(alpha=0.0)])  # fmt: skip
@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB"])
def test_discrete_parameters(name, params):
    X, y, _ = _data(name, 2, 30, 3, 3, False)
    with warnings.catch_warnings(record=True) as ours_warned:
        warnings.simplefilter("always")
        ours = getattr(rtnb, name)(**params).fit(X, y)
    with warnings.catch_warnings(record=True) as theirs_warned:
        warnings.simplefilter("always")
        theirs = getattr(sknb, name)(**params).fit(X, y)
    assert [str(w.message) for w in ours_warned if w.category is UserWarning] == \
        [str(w.message) for w in theirs_warned if w.category is UserWarning]  # fmt: skip
    _same(ours, theirs, name, 1e-7)
    np.testing.assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=1e-7)


def test_bernoulli_binarize_and_gaussian_priors():
    X, y, _ = _data("BernoulliNB", 3, 30, 3, 2, False)
    for b in (None, 0.5):
        np.testing.assert_allclose(rtnb.BernoulliNB(binarize=b).fit(X, y).predict_proba(X),
                                   sknb.BernoulliNB(binarize=b).fit(X, y).predict_proba(X))  # fmt: skip
    ours, theirs = rtnb.GaussianNB(priors=[0.3, 0.7]).fit(X, y), sknb.GaussianNB(priors=[0.3, 0.7]).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X))
    for priors, match in (([0.5], "must match"), ([0.6, 0.6], "sum of the priors"), ([1.5, -0.5], "non-negative")):
        with pytest.raises(ValueError, match=match):
            rtnb.GaussianNB(priors=priors).fit(X, y)


def test_string_labels_and_riptide_input():
    X, y, _ = _data("GaussianNB", 4, 40, 2, 3, False)
    labels = np.array(["cat", "dog", "émeu"], dtype=object)[y]
    for name in ATTRS:
        Xn = np.abs(X) if name == "MultinomialNB" else X
        ours = getattr(rtnb, name)().fit(Xn, labels)
        theirs = getattr(sknb, name)().fit(Xn, labels)
        np.testing.assert_array_equal(ours.classes_, theirs.classes_)
        np.testing.assert_array_equal(ours.predict(Xn), theirs.predict(Xn))
        frame = rt.DataFrame(pd.DataFrame(Xn, columns=["a", "b"]))
        from_rt = getattr(rtnb, name)().fit(frame, rt.Series(list(labels)))
        np.testing.assert_array_equal(np.asarray(from_rt.predict(frame)), theirs.predict(Xn))
        np.testing.assert_allclose(_host(from_rt.predict_proba(frame)), theirs.predict_proba(Xn), rtol=1e-7)
        assert list(from_rt.feature_names_in_) == ["a", "b"]


def test_errors():
    with pytest.raises(NotFittedError):
        rtnb.GaussianNB().predict(np.ones((1, 1)))
    with pytest.raises(ValueError, match="Negative values"):
        rtnb.MultinomialNB().fit(np.array([[-1.0]]), [0])
    with pytest.raises(ValueError, match="Unknown label type"):
        rtnb.GaussianNB().fit(np.ones((3, 1)), np.array([0.5, 1.5, 2.0]))
    with pytest.raises(ValueError, match="do not exist in the initial classes"):
        rtnb.GaussianNB().partial_fit(np.ones((2, 1)), [0, 5], classes=[0, 1])
    with pytest.raises(ValueError, match="X has 2 features"):
        rtnb.BernoulliNB().fit(np.ones((2, 3)), [0, 1]).predict(np.ones((1, 2)))
    with pytest.raises(ValueError, match="NaN"):
        rtnb.GaussianNB().fit(np.array([[np.nan]]), [0])


def test_pickle_round_trip():
    X, y, _ = _data("GaussianNB", 5, 20, 2, 2, False)
    for name in ATTRS:
        Xn = np.abs(X) if name == "MultinomialNB" else X
        est = getattr(rtnb, name)().fit(Xn, y)
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).predict_proba(Xn), est.predict_proba(Xn))


@parametrize_with_checks([rtnb.GaussianNB(), rtnb.MultinomialNB(), rtnb.BernoulliNB(),
                          rtnb.BernoulliNB(binarize=0.5, alpha=0.5, fit_prior=False)])  # fmt: skip
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
