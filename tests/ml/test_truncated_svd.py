"""TruncatedSVD against scikit-learn."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import sklearn.decomposition as skd  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml.decomposition import TruncatedSVD  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402

ATTRS = ["components_", "singular_values_", "explained_variance_", "explained_variance_ratio_"]


def _matrix(seed, n, d, float32):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.geomspace(8, 1, d)  # a clear spectral gap between components
    return X.astype(np.float32) if float32 else X


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 100), n=st.integers(3, 40), d=st.integers(2, 8), k=st.integers(1, 4),
       algorithm=st.sampled_from(["randomized", "arpack"]), float32=st.booleans())  # fmt: skip
def test_matches_sklearn(seed, n, d, k, algorithm, float32):
    X = _matrix(seed, n, d, float32)
    params = dict(n_components=k, algorithm=algorithm, random_state=seed)
    try:
        theirs = skd.TruncatedSVD(**params)
        expected = theirs.fit_transform(X)
    except ValueError:
        with pytest.raises(ValueError):
            TruncatedSVD(**params).fit(X)
        return
    ours = TruncatedSVD(**params)
    out = ours.fit_transform(X)
    rtol, atol = (1e-3, 1e-3) if float32 else (1e-6, 1e-8)
    for attr in ATTRS:
        a, b = _host(getattr(ours, attr)), getattr(theirs, attr)
        assert a.shape == b.shape and a.dtype == b.dtype, (attr, a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=attr)
    np.testing.assert_allclose(out, expected, rtol=rtol, atol=atol)
    np.testing.assert_allclose(ours.transform(X), theirs.transform(X), rtol=rtol, atol=atol)
    np.testing.assert_allclose(ours.inverse_transform(out), theirs.inverse_transform(expected), rtol=rtol, atol=atol)


@pytest.mark.parametrize("algorithm", ["randomized", "arpack"])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_scipy_sparse_input(algorithm, fmt):
    import scipy.sparse as sp

    X = sp.random(50, 10, density=0.3, random_state=1, format=fmt)
    ours, theirs = TruncatedSVD(3, algorithm=algorithm, random_state=0), skd.TruncatedSVD(3, algorithm=algorithm,
                                                                                          random_state=0)  # fmt: skip
    np.testing.assert_allclose(ours.fit_transform(X), theirs.fit_transform(X), atol=1e-8)
    for attr in ATTRS:
        np.testing.assert_allclose(getattr(ours, attr), getattr(theirs, attr), atol=1e-8, err_msg=attr)
    np.testing.assert_allclose(ours.transform(X), theirs.transform(X), atol=1e-8)


def test_riptide_frame_and_names():
    X = _matrix(1, 30, 4, False)
    pdf = pd.DataFrame(X, columns=list("abcd"))
    ours = TruncatedSVD(3, random_state=0).fit(rt.DataFrame(pdf))
    theirs = skd.TruncatedSVD(3, random_state=0).fit(pdf)
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())
    np.testing.assert_allclose(_host(ours.transform(rt.DataFrame(pdf))), theirs.transform(pdf), atol=1e-8)


def test_errors_and_pickle():
    with pytest.raises(NotFittedError):
        TruncatedSVD().transform(np.ones((2, 3)))
    with pytest.raises(ValueError, match="n_components"):
        TruncatedSVD(5).fit(np.ones((10, 3)))
    with pytest.raises(ValueError, match="must be an integer satisfying"):
        TruncatedSVD(3, algorithm="arpack").fit(_matrix(0, 10, 3, False))
    with pytest.raises(ValueError, match="minimum of 2"):
        TruncatedSVD(1).fit(np.ones((4, 1)))
    X = _matrix(2, 10, 4, False)
    est = TruncatedSVD(random_state=0).fit(X)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).transform(X), est.transform(X))


def _expected_failed_checks(estimator):
    if estimator.algorithm == "arpack":
        return {"check_fit2d_1sample": "arpack needs n_components < min(X.shape); scikit-learn's own "
                "TruncatedSVD(algorithm='arpack') raises the same ValueError, which this check does not expect"}
    return {}


@parametrize_with_checks([TruncatedSVD(n_components=1, n_iter=5), TruncatedSVD(n_components=1, algorithm="arpack")],
                         expected_failed_checks=_expected_failed_checks)  # fmt: skip
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
