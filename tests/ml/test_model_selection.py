"""riptide.ml.model_selection against sklearn.model_selection: same splits, same scores."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn.linear_model as skl  # noqa: E402
import sklearn.model_selection as skms  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml import model_selection as rms  # noqa: E402
from riptide.ml.linear_model import LogisticRegression, Ridge  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402


def _data(seed=0, n=60):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y_cls = (X @ [1.0, -1.0, 0.5] + 0.5 * rng.normal(size=n) > 0).astype(np.int64)
    y_reg = X @ [1.0, 2.0, -1.0] + 0.1 * rng.normal(size=n)
    return X, y_cls, y_reg


@pytest.mark.parametrize("stratify", [False, True])
@pytest.mark.parametrize("params", [dict(test_size=0.25, random_state=0), dict(train_size=20, random_state=3),
                                    dict(shuffle=False, test_size=7)])  # fmt: skip
def test_train_test_split_same_rows(stratify, params):
    X, y, _ = _data()
    if stratify and params.get("shuffle") is False:
        return
    theirs = skms.train_test_split(X, y, stratify=y if stratify else None, **params)
    ours_host = rms.train_test_split(X, y, stratify=y if stratify else None, **params)
    frame = rt.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2]})
    ours_dev = rms.train_test_split(frame, rt.Series(y), stratify=rt.Series(y) if stratify else None, **params)
    for a, b, c in zip(ours_host, ours_dev, theirs, strict=True):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(_host(b), c)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        rms.train_test_split(X, y[:-1])
    with pytest.raises(ValueError, match="At least one array required"):
        rms.train_test_split()


def test_stratified_kfold_same_folds_with_device_labels():
    _, y, _ = _data(1, 50)
    theirs = list(skms.StratifiedKFold(4, shuffle=True, random_state=2).split(np.zeros(50), y))
    ours = list(rms.StratifiedKFold(4, shuffle=True, random_state=2).split(np.zeros((50, 1)), rt.Series(y)))
    for (a, b), (c, d) in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)


@pytest.mark.parametrize("scoring", [None, "accuracy", "f1_macro", "roc_auc", "neg_log_loss", "balanced_accuracy"])
def test_cross_validate_classifier(scoring):
    X, y, _ = _data(2)
    theirs = skms.cross_validate(skl.LogisticRegression(), X, y, scoring=scoring, cv=4, return_train_score=True)
    for inputs in ((X, y), (rt.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2]}), rt.Series(y))):
        ours = rms.cross_validate(LogisticRegression(), *inputs, scoring=scoring, cv=4, return_train_score=True)
        assert sorted(ours) == sorted(theirs)
        np.testing.assert_allclose(ours["test_score"], theirs["test_score"], rtol=1e-9)
        np.testing.assert_allclose(ours["train_score"], theirs["train_score"], rtol=1e-9)


def test_cross_val_score_regressor_multimetric_and_sklearn_estimator():
    X, _, y = _data(3)
    cv = skms.KFold(5, shuffle=True, random_state=1)
    np.testing.assert_allclose(rms.cross_val_score(Ridge(alpha=2.0), X, y, cv=cv),
                               skms.cross_val_score(skl.Ridge(alpha=2.0), X, y, cv=cv), rtol=1e-9)  # fmt: skip
    np.testing.assert_allclose(rms.cross_val_score(skl.Ridge(), X, y, cv=3, scoring="neg_mean_squared_error"),
                               skms.cross_val_score(skl.Ridge(), X, y, cv=3, scoring="neg_mean_squared_error"),
                               rtol=1e-9)  # fmt: skip
    scoring = ["r2", "neg_mean_absolute_error"]
    ours = rms.cross_validate(Ridge(), X, y, cv=3, scoring=scoring, return_indices=True, return_estimator=True)
    theirs = skms.cross_validate(skl.Ridge(), X, y, cv=3, scoring=scoring, return_indices=True,
                                 return_estimator=True)  # fmt: skip
    assert sorted(ours) == sorted(theirs)
    for key in ("test_r2", "test_neg_mean_absolute_error"):
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-9)
    for a, b in zip(ours["indices"]["test"], theirs["indices"]["test"], strict=True):
        np.testing.assert_array_equal(a, b)


def test_grid_search_matches():
    X, y, _ = _data(4, 80)
    grid = {"C": [0.01, 0.1, 1.0], "fit_intercept": [True, False]}
    theirs = skms.GridSearchCV(skl.LogisticRegression(), grid, cv=3, return_train_score=True).fit(X, y)
    frame = rt.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2]})
    ours = rms.GridSearchCV(LogisticRegression(), grid, cv=3, return_train_score=True).fit(frame, rt.Series(y))
    assert sorted(ours.cv_results_) == sorted(theirs.cv_results_)
    for key in ("mean_test_score", "std_test_score", "rank_test_score", "split0_test_score", "mean_train_score"):
        np.testing.assert_allclose(ours.cv_results_[key], theirs.cv_results_[key], rtol=1e-9)
    assert ours.cv_results_["params"] == theirs.cv_results_["params"]
    assert ours.best_params_ == theirs.best_params_ and ours.best_index_ == theirs.best_index_
    assert np.isclose(ours.best_score_, theirs.best_score_)
    np.testing.assert_array_equal(_host(ours.predict(frame)), theirs.predict(X))
    assert ours.score(frame, rt.Series(y)) == theirs.score(X, y)
    ridge = rms.GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, scoring=["r2", "neg_mean_squared_error"],
                             refit="r2", cv=4).fit(X, X @ [1.0, 2.0, 3.0])  # fmt: skip
    sk_ridge = skms.GridSearchCV(skl.Ridge(), {"alpha": [0.1, 10.0]}, scoring=["r2", "neg_mean_squared_error"],
                                 refit="r2", cv=4).fit(X, X @ [1.0, 2.0, 3.0])  # fmt: skip
    assert sorted(ridge.cv_results_) == sorted(sk_ridge.cv_results_)
    np.testing.assert_allclose(ridge.cv_results_["mean_test_neg_mean_squared_error"],
                               sk_ridge.cv_results_["mean_test_neg_mean_squared_error"], rtol=1e-8)  # fmt: skip
    with pytest.raises(TypeError, match="Parameter grid for parameter .alpha. needs to be a list"):
        rms.GridSearchCV(Ridge(), {"alpha": 1.0}).fit(X, y)
