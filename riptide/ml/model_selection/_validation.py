"""cross_validate, cross_val_score and GridSearchCV with the data kept on the device between folds.

The folds are scikit-learn's (see :mod:`riptide.ml.model_selection._split`); each fold's rows are gathered on the
device, the estimator (riptide's or scikit-learn's) is cloned and fitted there, and scored with riptide's metrics,
which score on the device. Named scorers (``'accuracy'``, ``'r2'``, ``'neg_mean_squared_error'``, ``'f1_macro'``,
``'roc_auc'``, ``'neg_log_loss'``, ...) map to riptide metrics; other names and callables are scikit-learn's.

GridSearchCV and RandomizedSearchCV are scikit-learn's classes with their own ``fit`` loop (shared by both): the
candidates (parameter grid, or scikit-learn's ``ParameterSampler`` draws), ``cv_results_`` (formatted by
scikit-learn's code, so the keys are its own), ``best_*`` attributes, refit and the delegating ``predict`` /
``score`` methods are scikit-learn's.
"""

from __future__ import annotations

import functools
import time
import warnings
from typing import Any

import numpy as np
from sklearn import model_selection as _skms
from sklearn.base import clone, is_classifier
from sklearn.exceptions import FitFailedWarning
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, ParameterSampler, check_cv

from riptide.ml._validation import host_form
from riptide.ml.model_selection._split import StratifiedKFold, take_rows

__all__ = ["GridSearchCV", "RandomizedSearchCV", "cross_val_score", "cross_validate"]


class _Scorer:
    """A score computed with a riptide metric from predict / predict_proba / decision_function."""

    def __init__(self, metric: str, sign: int = 1, response: str = "predict", **kwargs: Any):
        self.metric, self.sign, self.response, self.kwargs = metric, sign, response, kwargs

    def __call__(self, estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> float:
        from riptide.ml import metrics

        if self.response == "threshold":
            if hasattr(estimator, "decision_function"):
                prediction = estimator.decision_function(X)
            else:
                prediction = estimator.predict_proba(X)[:, 1]
        else:
            prediction = getattr(estimator, self.response)(X)
        extra = {} if sample_weight is None else {"sample_weight": sample_weight}
        return self.sign * getattr(metrics, self.metric)(y, prediction, **self.kwargs, **extra)

    def __repr__(self) -> str:
        return f"make_scorer({self.metric})"


_SCORERS: dict[str, _Scorer] = {
    "accuracy": _Scorer("accuracy_score"),
    "r2": _Scorer("r2_score"),
    "neg_mean_squared_error": _Scorer("mean_squared_error", -1),
    "neg_mean_absolute_error": _Scorer("mean_absolute_error", -1),
    "roc_auc": _Scorer("roc_auc_score", response="threshold"),
    "neg_log_loss": _Scorer("log_loss", -1, response="predict_proba"),
    **{name: _Scorer(f"{name}_score") for name in ("f1", "precision", "recall")},
    **{f"{name}_{average}": _Scorer(f"{name}_score", average=average)
       for name in ("f1", "precision", "recall") for average in ("macro", "micro", "weighted")},  # fmt: skip
}


class _HostResponses:
    """The estimator as a scikit-learn scorer sees it: the same model, its predictions and fitted arrays copied to
    the host (scikit-learn's metrics refuse CuPy arrays). X itself stays where it is: the model predicts there."""

    _RESPONSES = ("predict", "predict_proba", "predict_log_proba", "decision_function")

    def __init__(self, estimator: Any):
        self._estimator = estimator

    def __getattr__(self, name: str) -> Any:
        from riptide import _device

        value = getattr(self._estimator, name)
        if name in self._RESPONSES:

            @functools.wraps(value)  # scikit-learn reads the method's __name__
            def on_host(X, *args, **kwargs):
                return _device.to_host(value(X, *args, **kwargs))

            return on_host
        return _device.to_host(value) if _device.is_device_array(value) else value


class _OnHost:
    """A scikit-learn scorer applied to device data: targets and responses go to the host for its metric."""

    def __init__(self, scorer: Any):
        self.scorer = scorer

    def __call__(self, estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> float:
        extra = {} if sample_weight is None else {"sample_weight": host_form(sample_weight)}
        return self.scorer(_HostResponses(estimator), X, host_form(y), **extra)

    def __repr__(self) -> str:
        return repr(self.scorer)


def _one_scorer(estimator: Any, scoring: Any) -> Any:
    if isinstance(scoring, str) and scoring in _SCORERS:
        return _SCORERS[scoring]
    if scoring is None or callable(scoring):  # the estimator's own score method, or the user's callable
        return check_scoring(estimator, scoring=scoring)
    return _OnHost(check_scoring(estimator, scoring=scoring))


def _scorers(estimator: Any, scoring: Any) -> Any:
    """One scorer, or a dict name -> scorer for multi-metric scoring."""
    if isinstance(scoring, list | tuple | set):
        return {name: _one_scorer(estimator, name) for name in scoring}
    if isinstance(scoring, dict):
        return {name: _one_scorer(estimator, s) for name, s in scoring.items()}
    return _one_scorer(estimator, scoring)


def _score(scorer: Any, estimator: Any, X: Any, y: Any) -> Any:
    if isinstance(scorer, dict):
        return {name: float(s(estimator, X, y)) for name, s in scorer.items()}
    return float(scorer(estimator, X, y))


def _splits(estimator: Any, X: Any, y: Any, groups: Any, cv: Any) -> tuple[Any, list]:
    """scikit-learn's folds, drawn on the host from the sample count (and the labels of a classifier)."""
    classifier = is_classifier(estimator)
    labels = host_form(y) if classifier else None
    cv = check_cv(cv, labels, classifier=classifier)
    if type(cv) is _skms.StratifiedKFold:
        cv = StratifiedKFold(n_splits=cv.n_splits, shuffle=cv.shuffle, random_state=cv.random_state)
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    proxy = np.zeros((n, 1))
    return cv, list(cv.split(proxy, labels if labels is not None else (None if y is None else proxy[:, 0]),
                             host_form(groups)))  # fmt: skip


def _fit_and_score(estimator, X, y, train, test, scorer, params, return_train_score, error_score):
    """Fit a clone on the training rows and score it; scikit-learn's result dict."""
    cache: dict = {}
    X_train, y_train = take_rows(X, train, cache), take_rows(y, train, cache)
    cache = {}
    X_test, y_test = take_rows(X, test, cache), take_rows(y, test, cache)
    est = clone(estimator).set_params(**(params or {}))
    start = time.time()
    result: dict = {"fit_error": None, "n_test_samples": len(test), "parameters": params}
    try:
        est.fit(X_train, y_train) if y is not None else est.fit(X_train)
    except Exception as exc:
        if error_score == "raise":
            raise
        result["fit_error"] = f"{type(exc).__name__}: {exc}"
        fill = {n: error_score for n in scorer} if isinstance(scorer, dict) else error_score
        result.update(fit_time=time.time() - start, score_time=0.0, test_scores=fill, estimator=est)
        if return_train_score:
            result["train_scores"] = fill
        warnings.warn(f"Estimator fit failed. The score on this train-test partition for these parameters will be "
                      f"set to {error_score}. Details: \n{result['fit_error']}", FitFailedWarning)  # fmt: skip
        return result
    fit_time = time.time() - start
    result["test_scores"] = _score(scorer, est, X_test, y_test)
    if return_train_score:
        result["train_scores"] = _score(scorer, est, X_train, y_train)
    result.update(fit_time=fit_time, score_time=time.time() - start - fit_time, estimator=est)
    return result


def cross_validate(estimator, X, y=None, *, groups=None, scoring=None, cv=None, n_jobs=None, verbose=0,
                   params=None, pre_dispatch="2*n_jobs", return_train_score=False, return_estimator=False,
                   return_indices=False, error_score=np.nan):  # fmt: skip
    """Scores (and times) of the estimator on each cross-validation fold (``sklearn.model_selection.cross_validate``).

    >>> import numpy as np
    >>> from riptide.ml.linear_model import Ridge
    >>> X = np.arange(20.0).reshape(10, 2)
    >>> result = cross_validate(Ridge(), X, X @ [1.0, 2.0], cv=5)
    >>> sorted(result), bool(result["test_score"].min() > 0.99)
    (['fit_time', 'score_time', 'test_score'], True)
    """
    if params:
        raise NotImplementedError("cross_validate(params=...) is not implemented in riptide.ml yet")
    scorer = _scorers(estimator, scoring)
    _, splits = _splits(estimator, X, y, groups, cv)
    out = [_fit_and_score(estimator, X, y, train, test, scorer, None, return_train_score, error_score)
           for train, test in splits]  # fmt: skip
    result = {"fit_time": np.array([o["fit_time"] for o in out]), "score_time": np.array([o["score_time"] for o in out])}
    if return_estimator:
        result["estimator"] = [o["estimator"] for o in out]
    if return_indices:
        result["indices"] = {"train": [s[0] for s in splits], "test": [s[1] for s in splits]}
    for kind in ("test", "train") if return_train_score else ("test",):
        if isinstance(scorer, dict):
            for name in scorer:
                result[f"{kind}_{name}"] = np.array([o[f"{kind}_scores"][name] for o in out])
        else:
            result[f"{kind}_score"] = np.array([o[f"{kind}_scores"] for o in out])
    return result


def cross_val_score(estimator, X, y=None, *, groups=None, scoring=None, cv=None, n_jobs=None, verbose=0,
                    params=None, pre_dispatch="2*n_jobs", error_score=np.nan):  # fmt: skip
    """The test score of each fold (``sklearn.model_selection.cross_val_score``)."""
    return cross_validate(estimator, X, y, groups=groups, scoring=scoring, cv=cv, params=params,
                          error_score=error_score)["test_score"]  # fmt: skip


class _DeviceSearchMixin:
    """``fit`` of scikit-learn's ``BaseSearchCV`` with the folds on the device (candidates from ``_candidates``)."""

    def fit(self, X, y=None, **params):
        """Evaluate every candidate on every fold, then refit the best on all of X."""
        if params:
            raise NotImplementedError(f"{type(self).__name__}.fit(**params) is not implemented in riptide.ml yet")
        self._validate_params()
        estimator = self.estimator
        scorer = _scorers(estimator, self.scoring)
        self.multimetric_ = isinstance(scorer, dict)
        if self.multimetric_:
            self._check_refit_for_multimetric(scorer)
            refit_metric = self.refit
        else:
            refit_metric = "score"
        cv, splits = _splits(estimator, X, y, None, self.cv)
        candidates = self._candidates()
        out = [_fit_and_score(estimator, X, y, train, test, scorer, candidate, self.return_train_score,
                              self.error_score)
               for candidate in candidates for train, test in splits]  # fmt: skip
        for o in out:
            o.pop("estimator", None)
        self.n_splits_ = len(splits)
        results = self._format_results(candidates, self.n_splits_, out)
        if self.refit or not self.multimetric_:
            self.best_index_ = self._select_best_index(self.refit, refit_metric, results)
            if not callable(self.refit):
                self.best_score_ = results[f"mean_test_{refit_metric}"][self.best_index_]
            self.best_params_ = results["params"][self.best_index_]
        if self.refit:
            self.best_estimator_ = clone(estimator).set_params(**clone(self.best_params_, safe=False))
            start = time.time()
            self.best_estimator_.fit(X, y) if y is not None else self.best_estimator_.fit(X)
            self.refit_time_ = time.time() - start
            if hasattr(self.best_estimator_, "feature_names_in_"):
                self.feature_names_in_ = self.best_estimator_.feature_names_in_
        self.scorer_ = scorer
        self.cv_results_ = results
        return self

    def score(self, X, y=None, **params):
        """The refitted best estimator's score with the search's scorer (on the inputs' device)."""
        scorer = self.scorer_[self.refit] if self.multimetric_ else self.scorer_
        return float(scorer(self.best_estimator_, X, y))


class GridSearchCV(_DeviceSearchMixin, _skms.GridSearchCV):
    """Exhaustive search over a parameter grid (``sklearn.model_selection.GridSearchCV``), folds on the device."""

    def _candidates(self) -> list:
        return list(ParameterGrid(self.param_grid))


class RandomizedSearchCV(_DeviceSearchMixin, _skms.RandomizedSearchCV):
    """Search over parameter settings drawn at random (``sklearn.model_selection.RandomizedSearchCV``), folds on
    the device.

    The candidates are scikit-learn's own draws (``ParameterSampler`` with ``n_iter`` and ``random_state``), so
    the same ``random_state`` tries the same settings as scikit-learn.

    >>> import numpy as np
    >>> from riptide.ml.linear_model import Ridge
    >>> X = np.arange(40.0).reshape(20, 2)
    >>> search = RandomizedSearchCV(Ridge(), {"alpha": [0.1, 1.0, 10.0]}, n_iter=2, cv=2, random_state=0)
    >>> len(search.fit(X, X @ [1.0, 2.0]).cv_results_["params"])
    2
    """

    def _candidates(self) -> list:
        return list(ParameterSampler(self.param_distributions, self.n_iter, random_state=self.random_state))
