"""riptide.ml.compose.ColumnTransformer on riptide DataFrames against scikit-learn's on the pandas form of the frame."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

import scipy.sparse as sp  # noqa: E402
import sklearn.compose as skc  # noqa: E402
import sklearn.impute as ski  # noqa: E402
import sklearn.pipeline as skpipe  # noqa: E402
import sklearn.preprocessing as skp  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import KFold  # noqa: E402

import riptide as rt  # noqa: E402
from riptide.ml import compose as rtc  # noqa: E402
from riptide.ml import pipeline as rtpipe  # noqa: E402
from riptide.ml.impute import SimpleImputer  # noqa: E402
from riptide.ml.preprocessing import MinMaxScaler, OneHotEncoder, StandardScaler  # noqa: E402
from tests.ml._support import host as _host  # noqa: E402

RNG = np.random.default_rng(0)
N = 40
PDF = pd.DataFrame({
    "a": RNG.normal(size=N),
    "b": RNG.normal(size=N) * 3 + 1,
    "city": np.array(["x", "y", "z"])[RNG.integers(0, 3, N)],
    "n": RNG.integers(0, 5, N),
    "flag": RNG.random(N) > 0.5,
})  # fmt: skip
NUMERIC = PDF[["a", "b", "n"]]


def _scaler(lib):
    return StandardScaler() if lib == "riptide" else skp.StandardScaler()


def _minmax(lib):
    return MinMaxScaler() if lib == "riptide" else skp.MinMaxScaler()


def _onehot(lib, **params):
    return OneHotEncoder(**params) if lib == "riptide" else skp.OneHotEncoder(**params)


def _ct(lib, transformers, **params):
    cls = rtc.ColumnTransformer if lib == "riptide" else skc.ColumnTransformer
    return cls(transformers, **params)


def _dense(M):
    if sp.issparse(M) or type(M).__module__.startswith("cupyx"):
        return M.toarray() if sp.issparse(M) else M.get().toarray()
    return np.asarray(_host(M))


def _on_device(M):
    return type(M).__module__.split(".")[0] in ("cupy", "cupyx")


def _assert_same_array(ours, theirs):
    is_sparse = sp.issparse(ours) or type(ours).__module__.startswith("cupyx.scipy.sparse")
    assert is_sparse == sp.issparse(theirs)
    a, b = _dense(ours), _dense(theirs)
    assert a.shape == b.shape
    if _on_device(ours) and b.dtype == object and not any(isinstance(x, str) for x in b.ravel()):
        # numbers of several dtypes passed through: stacked on the device in their common dtype, where
        # scikit-learn's pandas path makes an object array (riptide.ml.compose's documented difference)
        assert a.dtype == np.float64
        b = b.astype(np.float64)
    assert a.dtype == b.dtype
    if a.dtype != object:
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        return
    for j in range(a.shape[1]):  # text passed through: numbers to tolerance, text exactly
        if isinstance(b[0, j], str):
            assert (a[:, j] == b[:, j]).all()
        else:
            np.testing.assert_allclose(a[:, j].astype(float), b[:, j].astype(float), rtol=1e-12, atol=1e-12)


def _assert_same(build, data=PDF, transform_data=None):
    """build(lib) -> ColumnTransformer; fitted on the riptide / pandas form of ``data``, compared on everything
    scikit-learn exposes."""
    transform_data = data if transform_data is None else transform_data
    ours, theirs = build("riptide"), build("sklearn")
    _assert_same_array(ours.fit_transform(rt.DataFrame(data)), theirs.fit_transform(data))
    _assert_same_array(ours.transform(rt.DataFrame(transform_data)), theirs.transform(transform_data))
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())
    assert ours.n_features_in_ == theirs.n_features_in_
    assert hasattr(ours, "feature_names_in_") == hasattr(theirs, "feature_names_in_")
    if hasattr(theirs, "feature_names_in_"):
        assert list(ours.feature_names_in_) == list(theirs.feature_names_in_)
    assert ours.output_indices_ == theirs.output_indices_
    assert ours.sparse_output_ == theirs.sparse_output_
    assert repr(ours.transformers_) == repr(theirs.transformers_)
    assert ours._transformer_to_input_indices == theirs._transformer_to_input_indices
    return ours, theirs


@pytest.mark.parametrize("num, cat", [
    (["a", "b"], ["city"]),
    ([0, 1], [2]),
    ([0, -4], [-3]),
    ([True, True, False, False, False], [False, False, True, False, False]),
    (slice("a", "b"), slice("city", "city")),
    (slice(0, 2), slice(2, 3)),
    (lambda X: ["a", "b"], lambda X: [c for c in X.columns if c == "city"]),
    (rtc.make_column_selector(dtype_include=np.number), rtc.make_column_selector(dtype_include="string")),
    (rtc.make_column_selector(pattern="^[ab]$"), rtc.make_column_selector(dtype_exclude=[np.number, bool])),
    ([], ["city"]),
])  # fmt: skip
@pytest.mark.parametrize("remainder", ["drop", "passthrough", "scaler"])
def test_selectors_and_remainder_match_sklearn(num, cat, remainder):
    def build(lib):
        rest = _minmax(lib) if remainder == "scaler" else remainder
        return _ct(lib, [("num", _scaler(lib), num), ("cat", _onehot(lib, sparse_output=False), cat)],
                   remainder=rest)  # fmt: skip

    _assert_same(build)


@pytest.mark.parametrize("sparse_threshold", [0.0, 0.3, 0.8, 1.0])
@pytest.mark.parametrize("remainder", ["drop", "passthrough"])
def test_sparse_threshold_matches_sklearn(sparse_threshold, remainder):
    def build(lib):
        return _ct(lib, [("num", _scaler(lib), ["a", "b"]), ("cat", _onehot(lib), ["city", "n"])],
                   remainder=remainder, sparse_threshold=sparse_threshold)  # fmt: skip

    _assert_same(build, NUMERIC.assign(city=PDF["city"]))


@pytest.mark.parametrize("verbose_feature_names_out", [True, False, "{feature_name}@{transformer_name}",
                                                       lambda name, feature: f"{name.upper()}:{feature}"])  # fmt: skip
def test_feature_names_out_match_sklearn(verbose_feature_names_out):
    def build(lib):
        return _ct(lib, [("num", _scaler(lib), ["a"]), ("cat", _onehot(lib), ["city"])], remainder="passthrough",
                   verbose_feature_names_out=verbose_feature_names_out)  # fmt: skip

    _assert_same(build)
    clash = rtc.ColumnTransformer([("s1", StandardScaler(), ["a"]), ("s2", MinMaxScaler(), ["a"])],
                                  verbose_feature_names_out=False).fit(rt.DataFrame(PDF))  # fmt: skip
    with pytest.raises(ValueError, match=r"Output feature names: \['a'\] are not unique"):
        clash.get_feature_names_out()


def test_transform_selects_by_name_like_sklearn():
    def build(lib):
        return _ct(lib, [("num", _scaler(lib), ["a", "b"]), ("cat", _onehot(lib), ["city"]), ("d", "drop", ["n"])])

    # extra and reordered columns at transform time, and a dropped column that may be absent
    _assert_same(build, transform_data=PDF[["city", "flag", "b", "a"]])
    ours, theirs = build("riptide").fit(rt.DataFrame(PDF)), build("sklearn").fit(PDF)
    with pytest.raises(ValueError, match="columns are missing: {'a'}") as raised:
        ours.transform(rt.DataFrame(PDF.drop(columns=["a"])))
    with pytest.raises(ValueError, match=str(raised.value)):
        theirs.transform(PDF.drop(columns=["a"]))
    # fitted on one kind of frame, transforming the other
    np.testing.assert_allclose(_dense(ours.transform(PDF)), _dense(theirs.transform(PDF)), rtol=1e-12)
    np.testing.assert_allclose(_dense(build("riptide").fit(PDF).transform(rt.DataFrame(PDF))),
                               _dense(theirs.transform(PDF)), rtol=1e-12)  # fmt: skip


def test_passthrough_weights_and_integer_labels():
    def build(lib):
        return _ct(lib, [("num", _scaler(lib), ["a"]), ("keep", "passthrough", ["b", "n"])], remainder="drop",
                   transformer_weights={"num": 2.0, "keep": 0.5})  # fmt: skip

    ours, _ = _assert_same(build)
    assert type(ours.named_transformers_["keep"]).__name__ == "FunctionTransformer"
    assert isinstance(ours.named_transformers_["keep"], skp.FunctionTransformer)
    unnamed = pd.DataFrame(RNG.normal(size=(N, 4)))  # integer labels: no feature_names_in_, positions only

    def build_positions(lib):
        return _ct(lib, [("num", _scaler(lib), [0, 2])], remainder="passthrough")

    _assert_same(build_positions, unnamed)
    with pytest.raises(ValueError, match="X has 3 features, but ColumnTransformer is expecting 4"):
        build_positions("riptide").fit(rt.DataFrame(unnamed)).transform(rt.DataFrame(unnamed.iloc[:, :3]))


def test_errors_match_sklearn():
    cases = [
        [("num", StandardScaler(), ["a", "missing"])],
        [("num", StandardScaler(), [0, 9])],
        [("num", StandardScaler(), ["a"]), ("num", MinMaxScaler(), ["b"])],
        [("num", StandardScaler(), "a")],  # a scalar selector hands the transformer 1-D data
        [("num", "nonsense", ["a"])],
    ]
    for transformers in cases:
        with pytest.raises((ValueError, TypeError)) as theirs:
            skc.ColumnTransformer([(n, clone(t) if hasattr(t, "fit") else t, c) for n, t, c in transformers]
                                  ).fit_transform(PDF)  # fmt: skip
        with pytest.raises(type(theirs.value)) as ours:
            rtc.ColumnTransformer(transformers).fit_transform(rt.DataFrame(PDF))
        assert str(ours.value).split("\n")[0][:60] == str(theirs.value).split("\n")[0][:60]


def test_transformers_that_do_not_read_riptide_get_pandas():
    # scikit-learn transformers (and pipelines starting with one) are handed the pandas form of their columns;
    # riptide's are handed riptide frames; y follows the same rule
    y = PDF["a"].to_numpy() * 2 + 1

    def build(lib):
        riptide_steps = lib == "riptide"
        numeric = (rtpipe.make_pipeline(SimpleImputer(), StandardScaler()) if riptide_steps
                   else skpipe.make_pipeline(ski.SimpleImputer(), skp.StandardScaler()))  # fmt: skip
        return _ct(lib, [("num", numeric, ["a", "b"]),
                         ("sk", skpipe.make_pipeline(ski.SimpleImputer(strategy="most_frequent"), skp.OneHotEncoder()),
                          ["city"]),
                         ("te", skp.TargetEncoder(target_type="continuous", cv=KFold(2)), ["city"]),
                         ("fn", skp.FunctionTransformer(lambda frame: frame * 2, feature_names_out="one-to-one"),
                          ["n"])])  # fmt: skip

    ours, theirs = build("riptide"), build("sklearn")
    _assert_same_array(ours.fit_transform(rt.DataFrame(PDF), rt.Series(y)), theirs.fit_transform(PDF, y))
    _assert_same_array(ours.transform(rt.DataFrame(PDF)), theirs.transform(PDF))
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())
    # both kinds saw the column names: the riptide imputer in the riptide frame, the scikit-learn encoder in pandas
    assert list(ours.named_transformers_["num"][0].feature_names_in_) == ["a", "b"]
    assert list(ours.named_transformers_["te"].feature_names_in_) == ["city"]


@pytest.mark.parametrize("output", ["pandas", "riptide"])
@pytest.mark.parametrize("remainder", ["drop", "passthrough"])
def test_set_output_matches_sklearn(output, remainder):
    ours = rtc.ColumnTransformer([("num", StandardScaler(), ["a", "b"]), ("cat", OneHotEncoder(sparse_output=False),
                                                                          ["city"])], remainder=remainder)
    theirs = skc.ColumnTransformer([("num", skp.StandardScaler(), ["a", "b"]),
                                    ("cat", skp.OneHotEncoder(sparse_output=False), ["city"])], remainder=remainder)
    ours.set_output(transform=output)
    theirs.set_output(transform="pandas")
    frame = rt.DataFrame(PDF)
    for got, expected in [(ours.fit_transform(frame), theirs.fit_transform(PDF)),
                          (ours.transform(frame), theirs.transform(PDF))]:  # fmt: skip
        assert isinstance(got, pd.DataFrame if output == "pandas" else rt.DataFrame)
        got = got if output == "pandas" else got.to_pandas()
        pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-12)


def test_make_column_transformer_clone_pickle_and_n_jobs():
    ours = rtpipe.make_column_transformer((StandardScaler(), ["a", "b"]), (OneHotEncoder(), ["city"]),
                                          remainder="passthrough", sparse_threshold=0.0, n_jobs=2,
                                          verbose_feature_names_out=False)  # fmt: skip
    theirs = skc.make_column_transformer((skp.StandardScaler(), ["a", "b"]), (skp.OneHotEncoder(), ["city"]),
                                         remainder="passthrough", sparse_threshold=0.0, n_jobs=2,
                                         verbose_feature_names_out=False)  # fmt: skip
    assert type(ours) is rtc.ColumnTransformer and rtpipe.make_column_transformer is rtc.make_column_transformer
    assert ours.get_params(deep=False).keys() == theirs.get_params(deep=False).keys()
    assert [name for name, _, _ in ours.transformers] == [name for name, _, _ in theirs.transformers]
    frame = rt.DataFrame(PDF)
    _assert_same_array(ours.fit_transform(frame), theirs.fit_transform(PDF))
    assert type(clone(ours)) is rtc.ColumnTransformer
    again = pickle.loads(pickle.dumps(ours))
    _assert_same_array(again.transform(frame), ours.transform(frame))
    assert list(again.get_feature_names_out()) == list(theirs.get_feature_names_out())


def test_numpy_and_pandas_input_take_sklearns_path():
    def build(lib):
        return _ct(lib, [("num", _scaler(lib), [0, 1]), ("cat", _onehot(lib), [2])], remainder="passthrough")

    X = PDF.to_numpy()
    ours, theirs = build("riptide"), build("sklearn")
    _assert_same_array(ours.fit_transform(X), theirs.fit_transform(X))
    ours, theirs = build("riptide"), build("sklearn")
    _assert_same_array(ours.fit_transform(PDF), theirs.fit_transform(PDF))
    assert repr(ours.transformers_) == repr(theirs.transformers_)


@pytest.mark.gpu
def test_riptide_frame_on_the_gpu_stays_on_the_device():
    import cupy
    import cupyx.scipy.sparse as csp

    frame = rt.DataFrame(NUMERIC.assign(city=PDF["city"]))
    assert frame._xp() is cupy
    for threshold, sparse_type in [(0.0, cupy.ndarray), (1.0, csp.csr_matrix)]:
        def build(lib):
            return _ct(lib, [("num", _scaler(lib), ["a", "b"]), ("cat", _onehot(lib), ["city"])],
                       remainder="passthrough", sparse_threshold=threshold)  # fmt: skip

        ours, theirs = build("riptide"), build("sklearn")
        got = ours.fit_transform(frame)
        assert isinstance(got, sparse_type)
        np.testing.assert_allclose(_dense(got), _dense(theirs.fit_transform(frame.to_pandas())), rtol=1e-10)
        assert isinstance(ours.transform(frame), sparse_type)
    text = rtc.ColumnTransformer([("num", StandardScaler(), ["a"])], remainder="passthrough").fit_transform(frame)
    assert isinstance(text, np.ndarray) and text.dtype == object  # text passed through: the host's object array
