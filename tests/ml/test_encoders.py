"""OneHotEncoder, OrdinalEncoder, LabelEncoder and LabelBinarizer against scikit-learn."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import scipy.sparse as sp  # noqa: E402
import sklearn.preprocessing as skp  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml import preprocessing as rtp  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402

# --------------------------------------------------------------------------- helpers


def _dense(result):
    if sp.issparse(result):
        return result.toarray()
    if hasattr(result, "get") and hasattr(result, "toarray"):  # cupyx sparse
        return result.get().toarray()
    return _host(result)


def _same_categories(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        assert a.dtype == b.dtype, (a.dtype, b.dtype)
        assert pd.Series(a).equals(pd.Series(b)), (a, b)


def _outcome(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return fn(), [str(w.message) for w in caught if w.category is UserWarning]
        except (ValueError, TypeError) as exc:
            return type(exc), str(exc).split("\n")[0][:40]


def _compare(make_ours, make_theirs, fit_ours, fit_theirs, probe_ours, probe_theirs):
    a = _outcome(lambda: make_ours().fit(fit_ours))
    b = _outcome(lambda: make_theirs().fit(fit_theirs))
    if isinstance(b[0], type):
        assert a[0] is b[0], (a, b)
        return
    ours, theirs = a[0], b[0]
    _same_categories(ours.categories_, theirs.categories_)
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())
    ta, tb = _outcome(lambda: ours.transform(probe_ours)), _outcome(lambda: theirs.transform(probe_theirs))
    if isinstance(tb[0], type):
        assert ta[0] is tb[0] and ta[1][:20] == tb[1][:20], (ta, tb)
        return
    assert type(ta[0]).__name__ == type(tb[0]).__name__
    np.testing.assert_array_equal(_dense(ta[0]), _dense(tb[0]))
    assert _dense(ta[0]).dtype == _dense(tb[0]).dtype
    assert len(ta[1]) == len(tb[1])


# --------------------------------------------------------------------------- numeric input

small_ints = st.lists(st.lists(st.integers(0, 4), min_size=3, max_size=3), min_size=1, max_size=25)

OHE_PARAMS = st.fixed_dictionaries({
    "drop": st.sampled_from([None, "first", "if_binary"]),
    "handle_unknown": st.sampled_from(["error", "ignore", "infrequent_if_exist"]),
    "min_frequency": st.sampled_from([None, 2, 0.2]),
    "max_categories": st.sampled_from([None, 2, 3]),
    "sparse_output": st.booleans(),
})


@settings(max_examples=60, deadline=None)
@given(rows=small_ints, probe=small_ints, params=OHE_PARAMS, as_float=st.booleans(), nan=st.booleans())
def test_one_hot_matches_numeric(rows, probe, params, as_float, nan):
    X, P = np.array(rows), np.array(probe) + 1  # the probe has unknown values (5)
    if as_float:
        X, P = X.astype(float), P.astype(float)
        if nan:
            X[X == 0] = np.nan
            P[P == 1] = np.nan
    _compare(lambda: rtp.OneHotEncoder(**params), lambda: skp.OneHotEncoder(**params), X, X, P, P)


ORD_PARAMS = st.fixed_dictionaries({
    "handle_unknown": st.sampled_from(["error", "use_encoded_value"]),
    "unknown_value": st.sampled_from([None, -1, np.nan]),
    "encoded_missing_value": st.sampled_from([np.nan, -2]),
    "min_frequency": st.sampled_from([None, 2]),
    "max_categories": st.sampled_from([None, 2]),
})


@settings(max_examples=60, deadline=None)
@given(rows=small_ints, probe=small_ints, params=ORD_PARAMS, nan=st.booleans())
def test_ordinal_matches_numeric(rows, probe, params, nan):
    X, P = np.array(rows, dtype=float), np.array(probe, dtype=float) + 1
    if nan:
        X[X == 0] = np.nan
        P[P == 1] = np.nan
    _compare(lambda: rtp.OrdinalEncoder(**params), lambda: skp.OrdinalEncoder(**params), X, X, P, P)


# --------------------------------------------------------------------------- riptide frames with strings

WORDS = ["a", "b", "é", "zz", "", None]


@settings(max_examples=40, deadline=None)
@given(a=st.lists(st.sampled_from(WORDS), min_size=1, max_size=20), data=st.data(),
       params=OHE_PARAMS, categorical=st.booleans())  # fmt: skip
def test_one_hot_matches_on_string_frames(a, data, params, categorical):
    n = len(a)
    b = data.draw(st.lists(st.sampled_from([1.0, 2.5, np.nan]), min_size=n, max_size=n))
    c = data.draw(st.lists(st.sampled_from(["x", "y", "w"]), min_size=n, max_size=n))
    probe_a = data.draw(st.lists(st.sampled_from(WORDS + ["new"]), min_size=n, max_size=n))
    pdf = pd.DataFrame({"a": pd.array(a, dtype="str"), "b": b,
                        "c": pd.Categorical(c) if categorical else pd.array(c, dtype="str")})  # fmt: skip
    probe = pdf.assign(a=pd.array(probe_a, dtype="str"))
    _compare(lambda: rtp.OneHotEncoder(**params), lambda: skp.OneHotEncoder(**params), rt.DataFrame(pdf), pdf,
             rt.DataFrame(probe), probe)  # fmt: skip


@settings(max_examples=30, deadline=None)
@given(a=st.lists(st.sampled_from(WORDS), min_size=1, max_size=20), data=st.data(), params=ORD_PARAMS)
def test_ordinal_matches_on_string_frames(a, data, params):
    probe_a = data.draw(st.lists(st.sampled_from(WORDS + ["new"]), min_size=len(a), max_size=len(a)))
    pdf = pd.DataFrame({"a": pd.array(a, dtype="str")})
    probe = pd.DataFrame({"a": pd.array(probe_a, dtype="str")})
    _compare(lambda: rtp.OrdinalEncoder(**params), lambda: skp.OrdinalEncoder(**params), rt.DataFrame(pdf), pdf,
             rt.DataFrame(probe), probe)  # fmt: skip


def test_user_categories():
    X = np.array([[1, 2], [3, 2]])
    cats = [[1, 3, 5], [2, 4]]
    ours, theirs = rtp.OneHotEncoder(categories=cats).fit(X), skp.OneHotEncoder(categories=cats).fit(X)
    _same_categories(ours.categories_, theirs.categories_)
    np.testing.assert_array_equal(ours.transform(X).toarray(), theirs.transform(X).toarray())
    with pytest.raises(ValueError, match="Found unknown categories"):
        rtp.OneHotEncoder(categories=[[1], [2]]).fit(X)
    with pytest.raises(ValueError, match="Unsorted categories"):
        rtp.OneHotEncoder(categories=[[3, 1], [2]]).fit(X)
    with pytest.raises(ValueError, match="duplicate"):
        rtp.OneHotEncoder(categories=[[1, 1, 3], [2]]).fit(X)
    with pytest.raises(ValueError, match="Shape mismatch"):
        rtp.OneHotEncoder(categories=[[1, 3]]).fit(X)
    frame = rt.DataFrame({"s": ["u", "v", "u"]})
    enc = rtp.OneHotEncoder(categories=[["u", "v", "w"]], sparse_output=False).fit(frame)
    assert enc.transform(frame).tolist() == [[1, 0, 0], [0, 1, 0], [1, 0, 0]]


def test_object_input_takes_the_host_path():
    X = np.array([["a", 1], ["b", 2]], dtype=object)
    ours, theirs = rtp.OneHotEncoder().fit(X), skp.OneHotEncoder().fit(X)
    _same_categories(ours.categories_, theirs.categories_)
    np.testing.assert_array_equal(ours.transform(X).toarray(), theirs.transform(X).toarray())
    mixed = pd.DataFrame({"s": ["a", "b"], "n": [1, 2]})
    np.testing.assert_array_equal(rtp.OrdinalEncoder().fit_transform(mixed), skp.OrdinalEncoder().fit_transform(mixed))


def test_errors_match():
    enc = rtp.OneHotEncoder()
    with pytest.raises(NotFittedError):
        enc.transform(np.array([[1]]))
    enc.fit(np.array([[1, 2]]))
    with pytest.raises(ValueError, match="X has 1 features"):
        enc.transform(np.array([[1]]))
    with pytest.raises(ValueError, match="infinity|inf"):
        rtp.OneHotEncoder().fit(np.array([[np.inf]]))
    with pytest.raises(ValueError, match="0 sample"):
        rtp.OneHotEncoder().fit(np.zeros((0, 2)))
    with pytest.raises(ValueError, match="Expected 2D"):
        rtp.OrdinalEncoder().fit(np.array([1.0, 2.0]))


def test_feature_names_and_inverse():
    pdf = pd.DataFrame({"city": ["x", "y", "x"], "n": [1.0, 2.0, 1.0]})
    frame = rt.DataFrame(pdf)
    enc = rtp.OneHotEncoder(sparse_output=False).fit(frame)
    assert list(enc.feature_names_in_) == ["city", "n"]
    assert list(enc.get_feature_names_out()) == ["city_x", "city_y", "n_1.0", "n_2.0"]
    back = enc.inverse_transform(enc.transform(frame))
    np.testing.assert_array_equal(back, skp.OneHotEncoder(sparse_output=False).fit(pdf).inverse_transform(
        _host(enc.transform(frame))))  # fmt: skip
    ordinal = rtp.OrdinalEncoder().fit(frame)
    assert ordinal.inverse_transform(ordinal.transform(frame)).tolist() == [["x", 1.0], ["y", 2.0], ["x", 1.0]]


def test_output_follows_input_and_set_output():
    X = np.array([[1.0, 2.0], [3.0, 2.0]])
    enc = rtp.OneHotEncoder(sparse_output=False).fit(X)
    assert isinstance(enc.transform(X), np.ndarray)
    out = rtp.OneHotEncoder(sparse_output=False).set_output(transform="pandas").fit(X).transform(X)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["x0_1.0", "x0_3.0", "x1_2.0"]
    with pytest.raises(ValueError, match="does not support sparse"):
        rtp.OneHotEncoder().set_output(transform="pandas").fit(X).transform(X)
    frame = rt.DataFrame({"s": ["a", "b"]})
    got = rtp.OneHotEncoder(sparse_output=False).set_output(transform="riptide").fit(frame).transform(frame)
    assert isinstance(got, rt.DataFrame) and list(got.columns) == ["s_a", "s_b"]


def test_pickle_round_trip():
    frame = rt.DataFrame({"s": ["a", "b", None], "n": [1, 2, 3]})
    enc = rtp.OneHotEncoder(sparse_output=False).fit(frame)
    again = pickle.loads(pickle.dumps(enc))
    np.testing.assert_array_equal(_host(again.transform(frame)), _host(enc.transform(frame)))


# --------------------------------------------------------------------------- labels


@settings(max_examples=40, deadline=None)
@given(y=st.lists(st.integers(-3, 3), min_size=1, max_size=20), probe=st.lists(st.integers(-3, 4), max_size=10),
       as_float=st.booleans(), neg=st.sampled_from([0, -1]), pos=st.sampled_from([1, 2]))  # fmt: skip
def test_labels_match(y, probe, as_float, neg, pos):
    y, probe = np.array(y), np.array(probe, dtype=int)
    if as_float:
        y, probe = y.astype(float), probe.astype(float)
    ours, theirs = rtp.LabelEncoder().fit(y), skp.LabelEncoder().fit(y)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    a, b = _outcome(lambda: ours.transform(probe)), _outcome(lambda: theirs.transform(probe))
    if isinstance(b[0], type):
        assert a == b
    else:
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(ours.inverse_transform(a[0]), theirs.inverse_transform(b[0]))
    ours, theirs = rtp.LabelBinarizer(neg_label=neg, pos_label=pos).fit(y), \
        skp.LabelBinarizer(neg_label=neg, pos_label=pos).fit(y)  # fmt: skip
    assert ours.y_type_ == theirs.y_type_
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    if probe.size:
        A, B = ours.transform(probe), theirs.transform(probe)
        np.testing.assert_array_equal(A, B)
        np.testing.assert_array_equal(ours.inverse_transform(B), theirs.inverse_transform(B))


def test_label_encoder_on_riptide_strings():
    y = rt.Series(["b", "a", "c", "a"])
    enc = rtp.LabelEncoder().fit(y)
    assert enc.classes_.tolist() == ["a", "b", "c"]
    assert _host(enc.transform(y)).tolist() == [1, 0, 2, 0]
    with pytest.raises(ValueError, match="previously unseen labels"):
        enc.transform(rt.Series(["z"]))
    assert rtp.LabelEncoder().fit(["x", "y"]).transform(["y"]).tolist() == [1]
    with pytest.raises(ValueError, match="previously unseen labels"):
        rtp.LabelEncoder().fit([1, 2]).inverse_transform(np.array([5]))


# --------------------------------------------------------------------------- scikit-learn's own checks

ESTIMATORS = [rtp.OneHotEncoder(), rtp.OneHotEncoder(handle_unknown="ignore", sparse_output=False, drop="first"),
              rtp.OrdinalEncoder(), rtp.OrdinalEncoder(min_frequency=2, handle_unknown="use_encoded_value",
                                                       unknown_value=-1)]  # fmt: skip


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
