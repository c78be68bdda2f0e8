"""RandomizedSearchCV (and GridSearchCV through the shared search loop) against scikit-learn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import sklearn.linear_model as sklm  # noqa: E402
import sklearn.model_selection as skms  # noqa: E402
from scipy import stats  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml.linear_model import LogisticRegression, Ridge  # noqa: E402
from riptide.ml.model_selection import GridSearchCV, RandomizedSearchCV  # noqa: E402
from riptide.ml.naive_bayes import GaussianNB  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.normal(size=(90, 4))
Y_REG = X @ np.array([1.0, -2.0, 0.5, 0.0]) + RNG.normal(scale=0.5, size=90)
Y_CLS = (X[:, 0] + 0.3 * RNG.normal(size=90) > 0).astype(int)


def _same_results(ours, theirs, keys=("mean_test_score", "std_test_score", "rank_test_score")):
    assert ours.cv_results_["params"] == theirs.cv_results_["params"]
    for key in keys:
        np.testing.assert_allclose(ours.cv_results_[key], theirs.cv_results_[key], rtol=1e-6, atol=1e-9)
    assert ours.best_params_ == theirs.best_params_
    assert ours.best_index_ == theirs.best_index_


@pytest.mark.parametrize("random_state", [0, 7])
@pytest.mark.parametrize("scoring", [None, "neg_mean_squared_error", "r2"])
def test_randomized_search_matches(random_state, scoring):
    space = {"alpha": stats.loguniform(1e-3, 1e3), "fit_intercept": [True, False]}
    params = dict(n_iter=6, cv=3, random_state=random_state, scoring=scoring)
    ours = RandomizedSearchCV(Ridge(), space, **params).fit(X, Y_REG)
    theirs = skms.RandomizedSearchCV(sklm.Ridge(), space, **params).fit(X, Y_REG)
    _same_results(ours, theirs)
    np.testing.assert_allclose(ours.best_score_, theirs.best_score_, rtol=1e-6)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-6)
    np.testing.assert_allclose(ours.score(X, Y_REG), theirs.score(X, Y_REG), rtol=1e-6)


def test_randomized_search_classifier_multimetric_and_train_scores():
    space = {"C": [0.01, 0.1, 1.0, 10.0]}
    params = dict(n_iter=3, cv=4, random_state=1, scoring=["accuracy", "neg_log_loss"], refit="accuracy",
                  return_train_score=True)  # fmt: skip
    ours = RandomizedSearchCV(LogisticRegression(), space, **params).fit(X, Y_CLS)
    theirs = skms.RandomizedSearchCV(sklm.LogisticRegression(), space, **params).fit(X, Y_CLS)
    _same_results(ours, theirs, keys=("mean_test_accuracy", "mean_train_accuracy"))
    np.testing.assert_allclose(ours.cv_results_["mean_test_neg_log_loss"],
                               theirs.cv_results_["mean_test_neg_log_loss"], rtol=1e-4)  # fmt: skip
    assert ours.n_splits_ == 4


def test_search_on_riptide_frames_and_naive_bayes():
    frame = rt.DataFrame(pd.DataFrame(X, columns=list("abcd")))
    ours = RandomizedSearchCV(GaussianNB(), {"var_smoothing": [1e-9, 1e-3, 1.0]}, n_iter=2, cv=3,
                              random_state=0).fit(frame, rt.Series(Y_CLS))  # fmt: skip
    theirs = skms.RandomizedSearchCV(__import__("sklearn.naive_bayes").naive_bayes.GaussianNB(),
                                     {"var_smoothing": [1e-9, 1e-3, 1.0]}, n_iter=2, cv=3,
                                     random_state=0).fit(X, Y_CLS)  # fmt: skip
    _same_results(ours, theirs)
    assert list(ours.feature_names_in_) == list("abcd")
    grid = GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, cv=3).fit(frame, rt.Series(Y_REG))
    expected = skms.GridSearchCV(sklm.Ridge(), {"alpha": [0.1, 10.0]}, cv=3).fit(X, Y_REG)
    _same_results(grid, expected)


def test_search_errors():
    with pytest.raises(NotImplementedError, match="fit\\(\\*\\*params\\)"):
        RandomizedSearchCV(Ridge(), {"alpha": [1.0]}, n_iter=1).fit(X, Y_REG, sample_weight=np.ones(90))
    with pytest.raises(ValueError):
        RandomizedSearchCV(Ridge(), {"alpha": [1.0]}, n_iter=0).fit(X, Y_REG)
    search = RandomizedSearchCV(Ridge(), {"alpha": [-1.0, 1.0]}, n_iter=2, cv=2, random_state=0, error_score=np.nan)
    with pytest.warns(Warning):
        search.fit(X, Y_REG)
    assert np.isnan(search.cv_results_["mean_test_score"]).sum() == 1
