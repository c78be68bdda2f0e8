"""Supervised clustering metrics (pair confusion matrix, Rand index, adjusted Rand index) against scikit-learn's,
for host inputs and device-resident (riptide, device array) inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import sklearn.metrics as skm  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import riptide as rt  # noqa: E402
from riptide import _device  # noqa: E402
from riptide.ml import metrics as rtm  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402

NAMES = ["adjusted_rand_score", "rand_score", "pair_confusion_matrix"]


def _forms(a, b):
    """The same pair of labelings as each kind of input riptide accepts."""
    a, b = np.asarray(a), np.asarray(b)
    frame = rt.DataFrame({"truth": a, "guess": b})
    return [
        (a, b),
        (a.tolist(), b.tolist()),
        (pd.Series(a), pd.Series(b)),
        (rt.Series(a), rt.Series(b)),
        (frame["truth"], frame["guess"]),
        (_device.to_device(a), _device.to_device(b)),
        (rt.Series(a), b),  # one device-resident, one host input
    ]


def _same(name, ours, theirs):
    if name == "pair_confusion_matrix":
        ours = _host(ours)
        assert isinstance(ours, np.ndarray) and ours.dtype == np.int64 and ours.shape == (2, 2)
        np.testing.assert_array_equal(ours, theirs)
    elif name == "adjusted_rand_score":
        assert type(ours) is float, type(ours)
        assert abs(ours - theirs) <= 1e-12, (ours, theirs)
    else:
        assert type(ours) is float, type(ours)
        assert ours == theirs, (ours, theirs)


def _call(func, *args):
    """The result and scikit-learn's own warnings (not NumPy's RuntimeWarning for a float label cast past int64,
    which CuPy does not give)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args)
    return result, sorted({(w.category.__name__, str(w.message)) for w in caught if w.category is not RuntimeWarning})


def _shown(obj):
    """What scikit-learn is given for the same values: pandas for riptide objects, NumPy for device arrays."""
    if isinstance(obj, rt.Series | rt.DataFrame):
        return obj.to_pandas()
    return _device.to_host(obj) if _device.is_device_array(obj) else obj


def _check(a, b, forms=None):
    """Every metric, on every form of input, against scikit-learn's on the same values: results and warnings."""
    for args in forms or _forms(a, b):
        for name in NAMES:
            theirs, theirs_w = _call(getattr(skm, name), *[_shown(x) for x in args])
            ours, ours_w = _call(getattr(rtm, name), *args)
            _same(name, ours, theirs)
            assert ours_w == theirs_w, (name, ours_w, theirs_w)


def _raises_like_sklearn(name, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            getattr(skm, name)(*[_shown(a) for a in args])
        with pytest.raises(theirs.type) as ours:
            getattr(rtm, name)(*args)
    assert str(ours.value) == str(theirs.value)


@st.composite
def labelings(draw, n):
    """n labels of one of the shapes clusterings come in."""
    kind = draw(st.sampled_from(["small", "wide", "unsigned", "integral", "halves", "bool", "unique", "same"]))
    if kind == "small":
        k = draw(st.integers(1, 5))
        return np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)), dtype=np.int64)
    if kind == "wide":  # negative and large values, few distinct
        pool = draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=6, unique=True))
        return np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=np.int64)
    if kind == "unsigned":
        pool = [2**64 - 1, 2**63, 0, 7]
        return np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=np.uint64)
    if kind == "integral":  # float labels with whole values: no warning
        dtype = draw(st.sampled_from([np.float64, np.float32]))
        return np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=dtype)
    if kind == "halves":  # float labels that are not whole: scikit-learn's "continuous" warning
        return np.array(draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n)), dtype=np.float64) / 2
    if kind == "bool":
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if kind == "unique":  # every sample its own cluster
        return np.array(draw(st.permutations(range(n))), dtype=np.int64) * -7
    return np.full(n, draw(st.integers(-5, 5)), dtype=np.int64)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), n=st.integers(0, 40), relation=st.sampled_from(["independent", "renamed", "same"]))
def test_match_sklearn(data, n, relation):
    a = data.draw(labelings(n))
    if relation == "independent":
        b = data.draw(labelings(n))
    elif relation == "renamed":  # the same partition under other names: a perfect match
        _, codes = np.unique(a, return_inverse=True)
        b = (codes.reshape(-1) * 3 - 10).astype(np.int64)
    else:
        b = a.copy()
    _check(a, b)


@pytest.mark.parametrize("n_true, n_pred", [(3, 4), (40, 50), (30_000, 40_000), (70_000, 1)])
def test_many_samples_and_clusters(n_true, n_pred, monkeypatch):
    """Past 55,000 samples the ARI's products overflow int64; a table of ``n_true x n_pred`` cells much larger
    than the input is never built (the keys are sorted instead)."""
    rng = np.random.default_rng(n_true)
    n = 120_000
    a, b = rng.integers(0, n_true, n), rng.integers(0, n_pred, n)
    counted = np.bincount

    def bincount(x, weights=None, minlength=0):
        assert minlength <= max(x.shape[0], 1 << 16), "a dense table larger than the input"
        return counted(x, weights=weights, minlength=minlength)

    monkeypatch.setattr(np, "bincount", bincount)
    _check(a, b, forms=[(a, b), (rt.Series(a), rt.Series(b))])
    _check(a, a % 7)  # nested partitions


def test_special_cases():
    assert rtm.adjusted_rand_score([], []) == 1.0
    assert rtm.rand_score([], []) == 1.0
    assert _host(rtm.pair_confusion_matrix([], [])).tolist() == [[0, 0], [0, 0]]
    assert rtm.adjusted_rand_score([5], [9]) == 1.0
    assert rtm.adjusted_rand_score([0, 0, 0, 0], [0, 1, 2, 3]) == 0.0
    assert rtm.adjusted_rand_score(rt.Series([0, 0, 1, 1]), rt.Series([0, 1, 0, 1])) == -0.5
    for a, b in [([], []), ([1], [2]), ([1, 1, 1], [2, 2, 2]), ([1, 2, 3], [4, 5, 6]), ([1, 1, 2], [3, 4, 4])]:
        _check(np.array(a, dtype=np.int64), np.array(b, dtype=np.int64))
    # float labels at the ends of int64: scikit-learn calls 2**63 continuous, -2**63 not
    for edge, dtype in [(2.0**63, np.float64), (2.0**63, np.float32), (-(2.0**63), np.float64), (1e300, np.float64)]:
        _check(np.array([edge, 0.0, edge], dtype=dtype), np.array([1, 1, 0]))


def test_text_labels_take_sklearns_path():
    a = np.array(["cat", "dog", "cat", "bird", "dog", "cat"])
    b = np.array(["x", "x", "y", "y", "z", "z"])
    _check(a, b, forms=[(a, b), (a.tolist(), b.tolist()), (rt.Series(a), rt.Series(b)), (rt.Series(a), b)])
    codes = np.array([0, 1, 0, 2, 1, 0])
    _check(a, codes, forms=[(a, codes), (rt.Series(a), rt.Series(codes)), (a.tolist(), rt.Series(codes))])
    objects = np.array(["a", "b", "b", "c", "a", "a"], dtype=object)
    _check(objects, codes, forms=[(objects, codes), (objects, rt.Series(codes)), (pd.Series(objects), codes)])


@pytest.mark.parametrize("name", NAMES)
def test_bad_input_raises_sklearns_error(name):
    three, two = np.array([0, 1, 1]), np.array([0, 1])
    _raises_like_sklearn(name, three, two)
    _raises_like_sklearn(name, three.tolist(), two.tolist())
    _raises_like_sklearn(name, rt.Series(three), rt.Series(two))
    _raises_like_sklearn(name, rt.Series(three), two)
    _raises_like_sklearn(name, _device.to_device(three), _device.to_device(two))
    square = np.array([[0, 1], [1, 0], [1, 1]])
    _raises_like_sklearn(name, square, three)
    _raises_like_sklearn(name, three, square[:, :1])  # a column vector is not 1-D either
    _raises_like_sklearn(name, _device.to_device(square), rt.Series(three))
    _raises_like_sklearn(name, rt.DataFrame({"a": three, "b": three}), rt.Series(three))
    _raises_like_sklearn(name, np.zeros((3, 1, 1)), three)
    nan = np.array([0.0, np.nan, 1.0])
    _raises_like_sklearn(name, nan, three)
    _raises_like_sklearn(name, three, rt.Series(nan))
    _raises_like_sklearn(name, three, np.array([0.0, np.inf, 1.0]))
    _raises_like_sklearn(name, 5, three)  # not array-like: scikit-learn's parameter check
    _raises_like_sklearn(name, three, "abc")
    _raises_like_sklearn(name, [1 + 2j, 3, 4], three)
    _raises_like_sklearn(name, [[1, 2], [3]], two)
    _raises_like_sklearn(name, np.array(["a", 1, 2], dtype=object), rt.Series(three))  # unorderable labels
