"""SimpleImputer against scikit-learn."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import sklearn.impute as ski  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml.impute import SimpleImputer  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402


def _run(make, X, probe):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est = make().fit(X)
            return est, est.transform(probe), [str(w.message) for w in caught if w.category is UserWarning]
        except ValueError as exc:
            return None, type(exc), str(exc)[:50]


def _check(params, X, probe, X_ours=None, probe_ours=None):
    ours = _run(lambda: SimpleImputer(**params), X if X_ours is None else X_ours,
                probe if probe_ours is None else probe_ours)  # fmt: skip
    theirs = _run(lambda: ski.SimpleImputer(**params), X, probe)
    if theirs[0] is None:
        assert ours[0] is None and ours[1:] == theirs[1:], (ours, theirs)
        return
    assert ours[0] is not None, ours
    a, b = _host(ours[0].statistics_), theirs[0].statistics_
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype)
    np.testing.assert_allclose(a.astype(float), b.astype(float), rtol=1e-6, equal_nan=True)
    out, expected = _host(ours[1]), theirs[1]
    assert out.dtype == expected.dtype and out.shape == expected.shape, (out.dtype, expected.dtype)
    np.testing.assert_allclose(out, expected, rtol=1e-6, equal_nan=True)
    assert ours[2] == theirs[2]


PARAMS = st.fixed_dictionaries({
    "strategy": st.sampled_from(["mean", "median", "most_frequent", "constant"]),
    "keep_empty_features": st.booleans(),
    "add_indicator": st.booleans(),
})

float_matrices = hnp.arrays(np.float64, st.tuples(st.integers(1, 15), st.integers(1, 4)),
                            elements=st.sampled_from([0.0, 1.0, 2.5, -3.0, np.nan]))  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(X=float_matrices, params=PARAMS, float32=st.booleans(), fill=st.sampled_from([None, 7.0]))
def test_nan_missing_matches(X, params, float32, fill):
    if float32:
        X = X.astype(np.float32)
    probe = np.where(np.isnan(X), X, X + 1)
    _check({**params, "fill_value": fill}, X, probe)


@settings(max_examples=40, deadline=None)
@given(X=hnp.arrays(np.int64, st.tuples(st.integers(1, 12), st.integers(1, 3)), elements=st.integers(-1, 3)),
       params=PARAMS, fill=st.sampled_from([None, 9, 1.5]))  # fmt: skip
def test_numeric_missing_value_matches(X, params, fill):
    _check({**params, "missing_values": -1, "fill_value": fill}, X, X[::-1])


def test_riptide_and_pandas_input():
    pdf = pd.DataFrame({"a": [1.0, np.nan, 3.0, 3.0], "b": [np.nan, 2.0, 2.0, 5.0]})
    for strategy in ("mean", "median", "most_frequent", "constant"):
        _check({"strategy": strategy, "add_indicator": True}, pdf, pdf, rt.DataFrame(pdf), rt.DataFrame(pdf))
    imp = SimpleImputer().fit(rt.DataFrame(pdf))
    assert list(imp.feature_names_in_) == ["a", "b"]
    assert list(imp.get_feature_names_out()) == ["a", "b"]
    both = SimpleImputer(add_indicator=True).fit(rt.DataFrame(pdf))
    assert list(both.get_feature_names_out()) == ["a", "b", "missingindicator_a", "missingindicator_b"]
    restored = both.inverse_transform(both.transform(rt.DataFrame(pdf)))
    np.testing.assert_array_equal(_host(restored), pdf.to_numpy())


def test_object_input_takes_the_host_path():
    X = np.array([["a", "x"], [np.nan, "y"], ["a", np.nan]], dtype=object)
    ours = SimpleImputer(strategy="most_frequent").fit(X)
    theirs = ski.SimpleImputer(strategy="most_frequent").fit(X)
    np.testing.assert_array_equal(ours.transform(X), theirs.transform(X))
    frame = pd.DataFrame({"s": ["u", None, "u"], "n": [1.0, 2.0, np.nan]})
    np.testing.assert_array_equal(SimpleImputer(strategy="constant", fill_value="?").fit_transform(frame),
                                  ski.SimpleImputer(strategy="constant", fill_value="?").fit_transform(frame))


def test_errors():
    with pytest.raises(NotFittedError):
        SimpleImputer().transform(np.zeros((1, 1)))
    with pytest.raises(ValueError, match="X has 1 features"):
        SimpleImputer().fit(np.zeros((2, 2))).transform(np.zeros((1, 1)))
    with pytest.raises(ValueError, match="infinity"):
        SimpleImputer().fit(np.array([[np.inf]]))
    with pytest.raises(ValueError, match="NaN"):
        SimpleImputer(missing_values=0).fit(np.array([[np.nan]]))
    with pytest.raises(ValueError, match="both numerical"):
        SimpleImputer(missing_values="x").fit(np.array([[1.0]]))
    with pytest.raises(ValueError, match="cannot be cast"):
        SimpleImputer(strategy="constant", fill_value=1.5).fit(np.array([[1, 2]]))


def test_pickle_round_trip():
    X = np.array([[1.0, np.nan], [3.0, 4.0]])
    imp = SimpleImputer(strategy="median", add_indicator=True).fit(X)
    again = pickle.loads(pickle.dumps(imp))
    np.testing.assert_array_equal(again.transform(X), imp.transform(X))


def _expected_failed_checks(estimator):
    if estimator.strategy in ("most_frequent", "constant"):
        return {"check_dtype_object": "object input takes scikit-learn's own code, and scikit-learn's own "
                "SimpleImputer with this strategy fails this check the same way (object values are not validated as "
                "numbers)"}
    return {}


@parametrize_with_checks([SimpleImputer(), SimpleImputer(strategy="median", add_indicator=True),
                          SimpleImputer(strategy="most_frequent"), SimpleImputer(strategy="constant")],
                         expected_failed_checks=_expected_failed_checks)  # fmt: skip
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
