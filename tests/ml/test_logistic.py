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
    with pytest.raises(ValueError, match="'liblinear' solver does not support multiclass"):
        LogisticRegression(solver="liblinear").fit(X, np.arange(30) % 3)
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


# --------------------------------------------------------------------------- Newton solvers, L1 and elastic-net


def _fit_pair(params, X, y, w=None, **sk_extra):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = LogisticRegression(**params).fit(X, y, sample_weight=w)
        theirs = skl.LogisticRegression(**{**params, **sk_extra}).fit(X, y, sample_weight=w)
    return ours, theirs


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(30, 120), d=st.integers(1, 5), k=st.sampled_from([2, 3]),
       C=st.sampled_from([0.05, 1.0, np.inf]), fit_intercept=st.booleans(),
       weighting=st.sampled_from([None, "sample", "balanced"]))  # fmt: skip
def test_newton_cholesky_iterates_like_sklearn(seed, n, d, k, C, fit_intercept, weighting):
    X, y, w = _data(seed, n, d, k)
    params = dict(solver="newton-cholesky", C=C, fit_intercept=fit_intercept,
                  class_weight="balanced" if weighting == "balanced" else None)  # fmt: skip
    ours, theirs = _fit_pair(params, X, y, w if weighting == "sample" else None)
    if C == np.inf and np.abs(theirs.coef_).max() > 20:  # (nearly) separable without a penalty: no finite optimum
        return
    _compare(ours, theirs, X, rtol=1e-5)


@pytest.mark.parametrize("k", [2, 3])
def test_newton_cg_reaches_the_same_minimizer(k):
    X, y, w = _data(11, 200, 4, k)
    ours, theirs = _fit_pair(dict(solver="newton-cg"), X, y, w)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-3, atol=1e-3 * np.abs(theirs.coef_).max())
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    exact = skl.LogisticRegression(solver="newton-cholesky", tol=1e-10).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.coef_, exact.coef_, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("solver", ["sag", "saga"])
def test_sag_with_l2_is_the_lbfgs_minimizer(solver):
    X, y, _ = _data(12, 150, 3, 3)
    ours = LogisticRegression(solver=solver).fit(X, y)
    exact = skl.LogisticRegression(solver="newton-cholesky", tol=1e-10).fit(X, y)
    np.testing.assert_allclose(ours.coef_, exact.coef_, rtol=1e-3, atol=1e-4)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(40, 150), d=st.integers(1, 6), k=st.sampled_from([2, 3]),
       C=st.sampled_from([0.05, 0.5, 2.0]), l1_ratio=st.sampled_from([1.0, 0.5, 0.2]), fit_intercept=st.booleans(),
       weighted=st.booleans())  # fmt: skip
def test_l1_and_elasticnet_match_saga(seed, n, d, k, C, l1_ratio, fit_intercept, weighted):
    X, y, w = _data(seed, n, d, k)
    w = w if weighted else None
    params = dict(solver="saga", C=C, l1_ratio=l1_ratio, fit_intercept=fit_intercept)
    ours, exact = _fit_pair(params, X, y, w, tol=1e-10, max_iter=20_000)
    # ours minimizes the objective at least as well as saga run to a tight tolerance
    mine, theirs = _penalized_loss(ours, X, y, w, C, l1_ratio), _penalized_loss(exact, X, y, w, C, l1_ratio)
    assert mine <= theirs + 1e-7 * (1 + abs(theirs))
    if theirs - mine > 1e-8 * (1 + abs(mine)):
        return  # saga stopped short of the minimum (its test is relative to the coefficients, which may be ~0)
    scale = max(np.abs(exact.coef_).max(), 1e-3)
    np.testing.assert_allclose(ours.coef_, exact.coef_, rtol=1e-3, atol=1e-3 * scale)
    np.testing.assert_allclose(ours.intercept_, exact.intercept_, rtol=1e-3, atol=1e-3 * max(scale, 1.0))
    # the penalty's zeros are exact zeros, as saga's (a coefficient at the threshold may go either way)
    settled = (np.abs(exact.coef_) > 1e-4 * scale) & (np.abs(ours.coef_) > 1e-4 * scale)
    same_zero = (ours.coef_ == 0) == (exact.coef_ == 0)
    assert np.all(same_zero | settled | (np.abs(ours.coef_ - exact.coef_) < 1e-4 * scale))
    assert (ours.predict(X) == exact.predict(X)).mean() >= 0.97  # only points on the boundary may flip
    np.testing.assert_allclose(ours.predict_proba(X), exact.predict_proba(X), atol=2e-3)


def _penalized_loss(model, X, y, w, C, l1_ratio):
    """scikit-learn's objective, written out independently: weighted mean log loss plus the penalty."""
    w = np.ones(len(y)) if w is None else w
    scores = X @ model.coef_.T + model.intercept_
    if scores.shape[1] == 1:
        scores = np.c_[np.zeros(len(y)), scores[:, 0]]
    top = scores.max(axis=1, keepdims=True)
    log_norm = top[:, 0] + np.log(np.exp(scores - top).sum(axis=1))
    loss = log_norm - scores[np.arange(len(y)), y]
    coef = model.coef_
    penalty = (l1_ratio * np.abs(coef).sum() + 0.5 * (1 - l1_ratio) * (coef**2).sum()) / C
    return (w @ loss + penalty) / w.sum()


def test_l1_sets_coefficients_to_exact_zero_and_matches_default_saga():
    rng = np.random.default_rng(13)
    X = rng.normal(size=(400, 8))
    y = (X[:, 0] - 2 * X[:, 1] + 0.5 * rng.normal(size=400) > 0).astype(int)  # six useless features
    ours = LogisticRegression(solver="saga", l1_ratio=1.0, C=0.05).fit(X, y)
    theirs = skl.LogisticRegression(solver="saga", l1_ratio=1.0, C=0.05).fit(X, y)
    assert (ours.coef_ == 0).sum() >= 5
    np.testing.assert_array_equal(ours.coef_ == 0, theirs.coef_ == 0)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-3, atol=1e-3)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert ours.n_iter_.dtype == np.int32 and ours.n_iter_.shape == (1,)


def test_l1_convergence_warning_and_parameter_warnings():
    X, y, _ = _data(14, 100, 4, 3)
    with pytest.warns(ConvergenceWarning, match="The max_iter was reached"):
        LogisticRegression(solver="saga", l1_ratio=1.0, C=10.0, max_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="Solver newton-cholesky supports only 'l2' or None penalties"):
        LogisticRegression(solver="newton-cholesky", l1_ratio=0.5).fit(X, y)
    with pytest.raises(ValueError, match="Solver newton-cg supports only 'l2' or None penalties"):
        LogisticRegression(solver="newton-cg", l1_ratio=1.0).fit(X, y)
    with pytest.warns(UserWarning, match="l1_ratio parameter is only used when penalty is 'elasticnet'"):
        with pytest.warns(FutureWarning, match="'penalty' was deprecated"):
            LogisticRegression(penalty="l2", l1_ratio=0.5).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="Newton solver did not converge after 1 iterations"):
        LogisticRegression(solver="newton-cholesky", max_iter=1, tol=1e-12).fit(X, y)


@pytest.mark.parametrize("params", [dict(solver="newton-cholesky"), dict(solver="saga", l1_ratio=0.7, C=0.3)])
def test_new_solvers_on_device_inputs_and_pickle(params):
    X, y, _ = _data(15, 80, 3, 3)
    frame = rt.DataFrame({f"x{j}": X[:, j] for j in range(3)})
    ours = LogisticRegression(**params).fit(frame, rt.Series(y))
    ref = LogisticRegression(**params).fit(X, y)
    np.testing.assert_allclose(_host(ours.coef_), ref.coef_, rtol=1e-9, atol=1e-12)
    back = pickle.loads(pickle.dumps(ours))
    np.testing.assert_array_equal(_host(back.predict_proba(frame)), _host(ours.predict_proba(frame)))
    X32 = X.astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        low = LogisticRegression(**params).fit(X32, y)
    assert low.coef_.dtype == np.float32
    np.testing.assert_allclose(low.coef_, ref.coef_, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("params", [dict(), dict(dual=True), dict(intercept_scaling=3.0), dict(l1_ratio=1.0),
                                    dict(l1_ratio=1.0, C=0.05), dict(fit_intercept=False, C=0.1),
                                    dict(class_weight="balanced")])  # fmt: skip
@pytest.mark.parametrize("weighted", [False, True])
def test_liblinear_problem(params, weighted):
    rng = np.random.default_rng(17)
    X = rng.normal(size=(200, 3)) + [0.0, 1.0, 2.0]
    y = (X @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=200) > 0).astype(int)
    w = rng.uniform(0.2, 2.0, size=200) if weighted else None
    params = dict(solver="liblinear", **params)
    ours, exact = _fit_pair(params, X, y, w, tol=1e-10, max_iter=10_000)
    np.testing.assert_allclose(ours.coef_, exact.coef_, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, exact.intercept_, rtol=1e-4, atol=1e-4)
    default = skl.LogisticRegression(**params).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(ours.predict(X), default.predict(X))
    np.testing.assert_array_equal(ours.coef_ == 0, exact.coef_ == 0)
    assert ours.n_iter_.dtype == np.int32 and ours.n_iter_.shape == (1,)


def test_liblinear_errors_are_sklearns():
    X, y, _ = _data(18, 40, 2, 2)
    with pytest.raises(ValueError, match="penalty='l1' and loss='logistic_regression' are not supported when dual"):
        LogisticRegression(solver="liblinear", l1_ratio=1.0, dual=True).fit(X, y)
    with pytest.raises(ValueError, match="maximum value > 1e30"):
        LogisticRegression(solver="liblinear").fit(X * 1e31, y)
    with pytest.raises(ValueError, match="C=np.inf as well as penalty=None is not supported for the liblinear"):
        LogisticRegression(solver="liblinear", C=np.inf).fit(X, y)
    with pytest.raises(ValueError, match="Only 'saga' solver supports elasticnet penalty"):
        LogisticRegression(solver="liblinear", l1_ratio=0.5).fit(X, y)


from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

NEW_SOLVERS = [LogisticRegression(solver="newton-cholesky"), LogisticRegression(solver="newton-cg", C=0.5),
               LogisticRegression(solver="saga", l1_ratio=1.0), LogisticRegression(solver="saga", l1_ratio=0.5,
                                                                                   fit_intercept=False)]  # fmt: skip
# (liblinear is binary-only since scikit-learn 1.8: the suite's multiclass data is an error for it, as for sklearn's)


def _expected_failed_checks(estimator):
    if not estimator.fit_intercept:
        return {"check_class_weight_classifiers": "without an intercept the blobs of this check cannot be separated "
                "by class weight alone; scikit-learn's own LogisticRegression(fit_intercept=False) fails it the "
                "same way"}  # fmt: skip
    return {}


@parametrize_with_checks(NEW_SOLVERS, expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible_new_solvers(estimator, check):
    check(estimator)


@pytest.mark.gpu
@pytest.mark.parametrize("params", [dict(solver="newton-cholesky"), dict(solver="newton-cg"),
                                    dict(solver="saga", l1_ratio=0.6, C=0.3)])  # fmt: skip
@pytest.mark.parametrize("k", [2, 3])
def test_new_solvers_on_the_gpu(params, k):
    import cupy

    X, y, w = _data(16, 300, 4, k)
    ours = LogisticRegression(**params).fit(cupy.asarray(X), cupy.asarray(y), sample_weight=cupy.asarray(w))
    ref = LogisticRegression(**params).fit(X, y, sample_weight=w)  # the NumPy twin of the same solver
    assert isinstance(ours.coef_, cupy.ndarray)
    np.testing.assert_allclose(_host(ours.coef_), ref.coef_, rtol=1e-5, atol=1e-7)
    if params["solver"] != "saga":  # Newton's few steps are robust to rounding; L-BFGS-B's count may move by one
        np.testing.assert_array_equal(_host(ours.n_iter_), ref.n_iter_)
    np.testing.assert_array_equal(_host(ours.predict(cupy.asarray(X))), ref.predict(X))
