"""riptide estimators inside scikit-learn's Pipeline, FeatureUnion and ColumnTransformer (riptide.ml.pipeline)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import sklearn.compose as skc  # noqa: E402
import sklearn.impute as ski  # noqa: E402
import sklearn.linear_model as sklm  # noqa: E402
import sklearn.pipeline as skpipe  # noqa: E402
import sklearn.preprocessing as skp  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml import pipeline as rtpipe  # noqa: E402
from riptide.ml.decomposition import PCA, TruncatedSVD  # noqa: E402
from riptide.ml.impute import SimpleImputer  # noqa: E402
from riptide.ml.linear_model import LogisticRegression, Ridge  # noqa: E402
from riptide.ml.model_selection import GridSearchCV  # noqa: E402
from riptide.ml.preprocessing import OneHotEncoder, PolynomialFeatures, StandardScaler  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 3))
X_NAN = X.copy()
X_NAN[RNG.random(X.shape) < 0.1] = np.nan
Y = X @ np.array([1.0, -1.0, 2.0]) + 0.5
PDF = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "city": np.array(["x", "y", "z"])[RNG.integers(0, 3, 60)]})


def test_reexports_are_sklearn_classes():
    assert rtpipe.Pipeline is skpipe.Pipeline and rtpipe.make_pipeline is skpipe.make_pipeline
    assert rtpipe.FeatureUnion is skpipe.FeatureUnion
    # riptide's ColumnTransformer (riptide.ml.compose) is scikit-learn's, subclassed to read riptide frames
    assert issubclass(rtpipe.ColumnTransformer, skc.ColumnTransformer)
    assert isinstance(rtpipe.make_column_transformer((StandardScaler(), ["a"])), rtpipe.ColumnTransformer)


@pytest.mark.parametrize("kind", ["numpy", "pandas", "riptide"])
def test_pipeline_matches_sklearn(kind):
    data = {"numpy": X_NAN, "pandas": pd.DataFrame(X_NAN, columns=list("abc")),
            "riptide": rt.DataFrame(pd.DataFrame(X_NAN, columns=list("abc")))}[kind]  # fmt: skip
    ours = rtpipe.make_pipeline(SimpleImputer(strategy="median"), StandardScaler(), PolynomialFeatures(2),
                                Ridge(alpha=0.5)).fit(data, Y)  # fmt: skip
    theirs = skpipe.make_pipeline(ski.SimpleImputer(strategy="median"), skp.StandardScaler(),
                                  skp.PolynomialFeatures(2), sklm.Ridge(alpha=0.5)).fit(X_NAN, Y)  # fmt: skip
    np.testing.assert_allclose(_host(ours.predict(data)), theirs.predict(X_NAN), rtol=1e-7, atol=1e-9)
    if kind != "numpy":
        assert list(ours[:-1].get_feature_names_out())[:4] == ["1", "a", "b", "c"]


def test_pipeline_set_output_pandas_and_riptide():
    pipe = rtpipe.make_pipeline(StandardScaler(), PCA(n_components=2)).set_output(transform="pandas")
    out = pipe.fit_transform(pd.DataFrame(X, columns=list("abc")))
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["pca0", "pca1"]
    frame = rt.DataFrame(pd.DataFrame(X, columns=list("abc")))
    out = rtpipe.make_pipeline(StandardScaler(), TruncatedSVD(2, random_state=0)).set_output(
        transform="riptide").fit_transform(frame)  # fmt: skip
    assert isinstance(out, rt.DataFrame) and list(out.columns) == ["truncatedsvd0", "truncatedsvd1"]


def test_column_transformer_on_pandas_matches_sklearn():
    ours = rtpipe.make_pipeline(
        rtpipe.ColumnTransformer([("num", StandardScaler(), ["a", "b"]),
                                  ("cat", OneHotEncoder(sparse_output=False), ["city"])]),
        Ridge(alpha=1.0)).fit(PDF, Y)  # fmt: skip
    theirs = skpipe.make_pipeline(
        skc.ColumnTransformer([("num", skp.StandardScaler(), ["a", "b"]),
                               ("cat", skp.OneHotEncoder(sparse_output=False), ["city"])]),
        sklm.Ridge(alpha=1.0)).fit(PDF, Y)  # fmt: skip
    np.testing.assert_allclose(ours.predict(PDF), theirs.predict(PDF), rtol=1e-7)
    assert list(ours[0].get_feature_names_out()) == list(theirs[0].get_feature_names_out())
    sparse = rtpipe.make_column_transformer((OneHotEncoder(), ["city"]), remainder="passthrough").fit_transform(PDF)
    expected = skc.make_column_transformer((skp.OneHotEncoder(), ["city"]), remainder="passthrough").fit_transform(PDF)
    np.testing.assert_allclose(sparse, expected)


def test_column_transformer_on_riptide_frame():
    # the same frame as riptide and as pandas: riptide's ColumnTransformer gives scikit-learn's result
    ct = rtpipe.ColumnTransformer([("num", StandardScaler(), ["a", "b"]), ("cat", OneHotEncoder(), ["city"])])
    expected = skc.ColumnTransformer([("num", skp.StandardScaler(), ["a", "b"]),
                                      ("cat", skp.OneHotEncoder(), ["city"])]).fit(PDF)  # fmt: skip
    np.testing.assert_allclose(_host(ct.fit_transform(rt.DataFrame(PDF))), expected.transform(PDF), rtol=1e-12)
    assert list(ct.get_feature_names_out()) == list(expected.get_feature_names_out())
    assert list(ct.feature_names_in_) == ["a", "b", "city"]
    ours = rtpipe.make_pipeline(rtpipe.make_column_transformer((StandardScaler(), ["a", "b"]),
                                                               (OneHotEncoder(sparse_output=False), ["city"])),
                                Ridge(alpha=1.0)).fit(rt.DataFrame(PDF), rt.Series(Y))  # fmt: skip
    theirs = skpipe.make_pipeline(skc.make_column_transformer((skp.StandardScaler(), ["a", "b"]),
                                                              (skp.OneHotEncoder(sparse_output=False), ["city"])),
                                  sklm.Ridge(alpha=1.0)).fit(PDF, Y)  # fmt: skip
    np.testing.assert_allclose(_host(ours.predict(rt.DataFrame(PDF))), theirs.predict(PDF), rtol=1e-7)


def test_feature_union_and_grid_search_over_a_pipeline():
    union = rtpipe.make_union(StandardScaler(), PCA(n_components=1))
    np.testing.assert_allclose(union.fit_transform(X), skpipe.make_union(
        skp.StandardScaler(), __import__("sklearn.decomposition").decomposition.PCA(n_components=1)).fit_transform(X),
        atol=1e-9)  # fmt: skip
    frame = rt.DataFrame(pd.DataFrame(X, columns=list("abc")))
    labels = rt.Series((X[:, 0] > 0).astype(int))
    search = GridSearchCV(rtpipe.make_pipeline(StandardScaler(), LogisticRegression()),
                          {"logisticregression__C": [0.01, 1.0]}, cv=3).fit(frame, labels)  # fmt: skip
    theirs = __import__("sklearn.model_selection").model_selection.GridSearchCV(
        skpipe.make_pipeline(skp.StandardScaler(), sklm.LogisticRegression()),
        {"logisticregression__C": [0.01, 1.0]}, cv=3).fit(X, (X[:, 0] > 0).astype(int))  # fmt: skip
    assert search.best_params_ == theirs.best_params_
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"])


# --------------------------------------------------------------------------- where outputs live (this batch)

def _batch_estimators():
    from riptide.ml.decomposition import IncrementalPCA
    from riptide.ml.naive_bayes import BernoulliNB, GaussianNB, MultinomialNB
    from riptide.ml.preprocessing import (KBinsDiscretizer, MaxAbsScaler, Normalizer, OrdinalEncoder, RobustScaler,
                                          TargetEncoder)  # fmt: skip

    y_cls = (X[:, 0] > 0).astype(int)
    return [
        (MaxAbsScaler(), None), (RobustScaler(), None), (Normalizer(), None), (PolynomialFeatures(), None),
        (KBinsDiscretizer(encode="ordinal"), None), (OneHotEncoder(sparse_output=False), None),
        (OrdinalEncoder(), None), (SimpleImputer(), None), (TruncatedSVD(random_state=0), None),
        (IncrementalPCA(n_components=2), None), (TargetEncoder(target_type="continuous"), Y),
        (GaussianNB(), y_cls), (MultinomialNB(), y_cls), (BernoulliNB(), y_cls),
    ]  # fmt: skip


def _outputs(est, data, y):
    est.fit(data, y) if y is not None else est.fit(data)
    return est, (est.predict_proba(data) if hasattr(est, "predict_proba") else est.transform(data))


def test_host_input_gives_host_output_and_attributes():
    data = np.abs(X)  # (non-negative, for MultinomialNB)
    for est, y in _batch_estimators():
        est, out = _outputs(est, data, y)
        assert isinstance(out, np.ndarray), type(est).__name__
        for name, value in vars(est).items():
            if name.endswith("_") and not name.startswith("_") and hasattr(value, "shape"):
                assert isinstance(value, np.ndarray | np.generic), (type(est).__name__, name)


@pytest.mark.gpu
def test_device_input_gives_device_output():
    import cupy

    data = cupy.asarray(np.abs(X))
    for est, y in _batch_estimators():
        est, out = _outputs(est, data, None if y is None else cupy.asarray(y))
        assert isinstance(out, cupy.ndarray), type(est).__name__
