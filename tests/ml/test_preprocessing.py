"""StandardScaler and MinMaxScaler against scikit-learn (hypothesis for shapes and values)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn.preprocessing as skp  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import riptide as rt  # noqa: E402
from riptide import _device  # noqa: E402
from riptide.ml import preprocessing as rtp  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402

ATTRS = {"StandardScaler": ["mean_", "var_", "scale_", "n_samples_seen_"],
         "MinMaxScaler": ["min_", "scale_", "data_min_", "data_max_", "data_range_", "n_samples_seen_"]}  # fmt: skip


def _assert_same(ours, theirs, name):
    for attr in ATTRS[name]:
        a, b = _host(getattr(ours, attr)), getattr(theirs, attr)
        if b is None:
            assert a is None, attr
            continue
        assert np.shape(a) == np.shape(b), attr
        assert np.asarray(a).dtype == np.asarray(b).dtype, (attr, np.asarray(a).dtype, np.asarray(b).dtype)
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-12, equal_nan=True, err_msg=attr)


matrices = hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=12),
                      elements=st.floats(-1e3, 1e3).filter(lambda v: v == 0 or abs(v) > 1e-20)
                      | st.just(np.nan))  # no float32 subnormals: their scale_ underflows to 0 in both libraries


@settings(max_examples=60, deadline=None)
@given(X=matrices, with_mean=st.booleans(), with_std=st.booleans(), weighted=st.booleans(),
       float32=st.booleans())  # fmt: skip
def test_standard_scaler_matches(X, with_mean, with_std, weighted, float32):
    if float32:
        X = X.astype(np.float32)
    weights = np.linspace(0.5, 2.0, X.shape[0]) if weighted else None
    params = dict(with_mean=with_mean, with_std=with_std)
    ours = rtp.StandardScaler(**params).fit(X, sample_weight=weights)
    theirs = skp.StandardScaler(**params).fit(X, sample_weight=weights)
    _assert_same(ours, theirs, "StandardScaler")
    out, expected = ours.transform(X), theirs.transform(X)
    assert out.dtype == expected.dtype
    np.testing.assert_allclose(out, expected, rtol=1e-5 if float32 else 1e-9, atol=1e-6, equal_nan=True)
    np.testing.assert_allclose(ours.inverse_transform(out), theirs.inverse_transform(expected),
                               rtol=1e-5 if float32 else 1e-9, atol=1e-4, equal_nan=True)  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(X=matrices, low=st.integers(-3, 0), clip=st.booleans())
def test_min_max_scaler_matches(X, low, clip):
    params = dict(feature_range=(low, 1), clip=clip)
    ours, theirs = rtp.MinMaxScaler(**params).fit(X), skp.MinMaxScaler(**params).fit(X)
    _assert_same(ours, theirs, "MinMaxScaler")
    probe = X * 2 - 1
    np.testing.assert_allclose(ours.transform(probe), theirs.transform(probe), rtol=1e-9, atol=1e-9, equal_nan=True)
    np.testing.assert_allclose(ours.inverse_transform(probe), theirs.inverse_transform(probe), rtol=1e-9,
                               equal_nan=True)  # fmt: skip


@pytest.mark.parametrize("name", ["StandardScaler", "MinMaxScaler"])
def test_partial_fit_matches(name):
    rng = np.random.default_rng(3)
    X = rng.normal(5, 3, size=(90, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    ours, theirs = getattr(rtp, name)(), getattr(skp, name)()
    for chunk in np.array_split(X, 3):
        ours.partial_fit(chunk)
        theirs.partial_fit(chunk)
    _assert_same(ours, theirs, name)


def test_standard_scaler_weighted_partial_fit_and_constant_feature():
    rng = np.random.default_rng(4)
    X = np.c_[rng.normal(size=60), np.full(60, 7.0)]
    w = rng.random(60)
    ours, theirs = rtp.StandardScaler(), skp.StandardScaler()
    for rows in (slice(0, 25), slice(25, 60)):
        ours.partial_fit(X[rows], sample_weight=w[rows])
        theirs.partial_fit(X[rows], sample_weight=w[rows])
    _assert_same(ours, theirs, "StandardScaler")
    assert ours.scale_[1] == 1.0


def test_riptide_frame_round_trip():
    frame = rt.DataFrame({"x": [1.0, 2.0, 4.0], "y": [10, 20, 30]})
    out = rtp.MinMaxScaler().fit_transform(frame)
    np.testing.assert_allclose(_device.to_host(out), [[0.0, 0.0], [1 / 3, 0.5], [1.0, 1.0]])


def test_min_max_bad_range():
    with pytest.raises(ValueError, match="Minimum of desired feature range must be smaller than maximum"):
        rtp.MinMaxScaler(feature_range=(1, 0)).fit([[1.0], [2.0]])
