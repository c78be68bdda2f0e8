"""Regression tests for small reported bugs, each against pandas: categorical concatenation, the cached
categorical dtype, NumPy's reduction keywords, pandas' NumPy-backed arrays, NaN labels in lookups, ``None`` and
mixed-kind labels, and ``info()`` of a MultiIndex."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from conftest import assert_frame_equal, assert_index_equal, assert_series_equal

import riptide as rt
from riptide import _device
from riptide.core.column import CategoricalColumn, as_column, concat_columns
from riptide.frame.reductions import check_numpy_arguments


def _outcome(fn: Any) -> Any:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - the error is the outcome here
        return exc


# --------------------------------------------------------------------------- 1. concat of categoricals


@pytest.mark.parametrize("second", [["x", "y"], ["y", "x"]])
def test_concat_columns_recodes_categories_in_another_order(second: list[str]) -> None:
    a = pd.Series(pd.Categorical(["x", "y", None, "x"], categories=["x", "y"]))
    b = pd.Series(pd.Categorical(["y", "x", "y", None], categories=second))
    expected = pd.concat([a, b], ignore_index=True)
    got = concat_columns([as_column(a), as_column(b)])
    assert got.dtype == expected.dtype
    assert list(got.dtype.categories) == list(expected.dtype.categories)
    assert got.to_pandas_array().tolist() == expected.tolist()


def test_concat_columns_refuses_ordered_categories_in_another_order() -> None:
    a = as_column(pd.Categorical(["x", "y"], categories=["x", "y"], ordered=True))
    b = as_column(pd.Categorical(["x", "y"], categories=["y", "x"], ordered=True))
    with pytest.raises(TypeError, match="same categories"):
        concat_columns([a, b])


def test_lookup_in_a_categorical_index_with_categories_in_another_order() -> None:
    s = pd.Series([1, 2, 3], index=pd.CategoricalIndex(["x", "y", "z"], categories=["x", "y", "z"]))
    target = pd.CategoricalIndex(["z", "x"], categories=["z", "y", "x"])
    assert rt.from_pandas(s).reindex(rt.Index(target)).tolist() == s.reindex(target).tolist()


# --------------------------------------------------------------------------- 2. the categorical dtype is built once


def test_categorical_dtype_is_cached_and_shared() -> None:
    column = as_column(pd.Categorical(["b", "a", None, "b"]))
    assert isinstance(column, CategoricalColumn)
    dtype = column.dtype
    assert column.dtype is dtype
    assert column.take(column.xp.asarray([0, 1])).dtype is dtype
    assert column.slice(1, 3).dtype is dtype
    assert column.set_missing(column.xp.asarray([True, False, False, False])).dtype is dtype
    assert dtype == pd.CategoricalDtype(["a", "b"])
    with pytest.raises(AttributeError):
        column.categories = as_column(["z"])  # type: ignore[misc]
    with pytest.raises(AttributeError):
        column.ordered = True  # type: ignore[misc]
    s = rt.Series(pd.Categorical(["b", "a", "b"], categories=["b", "a"], ordered=True))
    assert s.dtype is s.dtype and s.dtype == pd.CategoricalDtype(["b", "a"], ordered=True)


# --------------------------------------------------------------------------- 3. NumPy's reduction keywords


_NUMPY_CALLS = [
    ("sum", {}), ("sum", {"out": None, "keepdims": False, "dtype": None}), ("sum", {"keepdims": True}),
    ("sum", {"out": np.zeros(1)}), ("sum", {"dtype": "int64"}), ("sum", {"initial": 1}), ("sum", {"where": True}),
    ("sum", {"foo": 1}), ("prod", {"initial": None}), ("mean", {"dtype": None, "out": None}),
    ("mean", {"dtype": "float32"}), ("median", {"overwrite_input": False}), ("median", {"overwrite_input": True}),
    ("min", {"keepdims": False}), ("min", {"initial": 5}), ("max", {"out": np.zeros(1)}), ("std", {"dtype": None}),
    ("var", {"keepdims": True}), ("sem", {"out": None}), ("any", {"out": None, "keepdims": False}),
    ("all", {"keepdims": True}), ("any", {"dtype": None}),
]  # fmt: skip


@pytest.mark.parametrize("op, kwargs", _NUMPY_CALLS)
def test_numpy_arguments_are_validated_as_pandas(op: str, kwargs: dict[str, Any]) -> None:
    expected = _outcome(lambda: getattr(pd.Series([1.0, 2.0]), op)(**kwargs))
    got = _outcome(lambda: check_numpy_arguments(op, None, kwargs))
    if isinstance(expected, Exception):
        assert type(got) is type(expected) and str(got) == str(expected)
    else:
        assert got is None


@pytest.mark.parametrize("axis", [None, 0, "index", 1, "columns"])
def test_series_reduction_axis_is_validated_as_pandas(axis: Any) -> None:
    expected = _outcome(lambda: pd.Series([1.0]).sum(axis=axis))
    got = _outcome(lambda: check_numpy_arguments("sum", axis, {}))
    assert (type(got), str(got)) == (type(expected), str(expected)) if isinstance(expected, Exception) else got is None


@pytest.mark.parametrize("function", [np.sum, np.mean, np.min, np.max, np.prod, np.std, np.var, np.any, np.all])
def test_numpy_reductions_of_a_series(function: Any) -> None:
    s = pd.Series([1.0, 2.0, 4.0])
    assert function(rt.from_pandas(s)) == function(s)


def test_groupby_agg_with_builtins_and_numpy_functions() -> None:
    df = pd.DataFrame({"k": [1, 1, 2], "v": [1.0, 2.0, 4.0]})
    r = rt.from_pandas(df)
    for func in (len, np.sum, np.mean, "sum", max):
        assert_series_equal(r.groupby("k")["v"].agg(func), df.groupby("k")["v"].agg(func))


# --------------------------------------------------------------------------- 4. pandas' NumpyExtensionArray


@pytest.mark.parametrize(
    "array",
    [
        pd.Series([1, 2, 3]).array,
        pd.Series([1.5, np.nan]).array,
        pd.Series([True, False]).array,
        pd.Series(np.array([1, 2], dtype=np.int8)).array,
        pd.arrays.NumpyExtensionArray(np.array([1.0, 2.0])),
        pd.arrays.NumpyExtensionArray(np.array(["a", None], dtype=object)),
        pd.array(np.array([1, 2]), dtype=np.dtype("int64")),
    ],
    ids=["int64", "float64", "bool", "int8", "wrapped-float", "wrapped-text", "pd.array-numpy-dtype"],
)
def test_numpy_extension_arrays(array: Any) -> None:
    assert isinstance(array, pd.arrays.NumpyExtensionArray)
    expected = pd.Series(array)
    if expected.dtype == object:
        expected = expected.astype("str")  # riptide has no object columns: text is str
    assert_series_equal(rt.Series(array), expected)
    assert as_column(array).dtype == expected.dtype
    assert_series_equal(rt.Series(pd.Series(array)), expected)


# --------------------------------------------------------------------------- 5. NaN labels match NaN labels


def test_get_indexer_matches_nan() -> None:
    index = pd.Index([1.0, np.nan, 3.0])
    for target in ([np.nan, 3.0, 5.0], [np.nan], [2.0]):
        got = rt.Index(index).get_indexer(rt.Index(target))
        np.testing.assert_array_equal(_device.to_host(got), index.get_indexer(target))
    text = pd.Index(["a", None, "c"])
    got = rt.Index(text).get_indexer(rt.Index(["c", None]))
    np.testing.assert_array_equal(_device.to_host(got), text.get_indexer(["c", None]))


def test_nan_labels_in_reindex_loc_drop_and_alignment() -> None:
    s = pd.Series([1, 2, 3], index=[1.0, np.nan, 3.0])
    r = rt.from_pandas(s)
    assert_series_equal(r.reindex([np.nan, 1.0, 7.0]), s.reindex([np.nan, 1.0, 7.0]))
    assert r.loc[np.nan] == s.loc[np.nan]
    assert_series_equal(r.drop(np.nan), s.drop(np.nan))
    a = pd.Series([1.0, 2.0], index=["a", None])
    b = pd.Series([10.0, 20.0], index=[None, "a"])
    assert_series_equal(rt.from_pandas(a) + rt.from_pandas(b), a + b)


# --------------------------------------------------------------------------- 6. None and mixed-kind labels


def test_none_column_label() -> None:
    for data in ({None: [1.0, 2.0]}, {None: [1.0, 2.0], "a": [3.0, 5.0]}):
        p, r = pd.DataFrame(data), rt.DataFrame(data)
        pdt.assert_index_equal(r.columns, p.columns)
        pdt.assert_index_equal(r.to_pandas().columns, p.columns)
        assert_series_equal(r.sum(), p.sum())
        assert_series_equal(r.count(), p.count())
        pdt.assert_frame_equal(r.corr().to_pandas(), p.corr())
    assert_index_equal(rt.Index([None]), pd.Index([None]))
    assert_index_equal(rt.Index(pd.Index([None, None])), pd.Index([None, None]))


def test_labels_of_mixed_kinds() -> None:
    p = pd.DataFrame({1: [1.0, 2.0], "a": [3.0, 5.0]})
    r = rt.from_pandas(p)
    assert_series_equal(r.sum(), p.sum())
    assert_series_equal(r.mean(), p.mean())
    pdt.assert_frame_equal(r.corr().to_pandas(), p.corr())
    index = rt.Index([1, "a", None])
    assert_index_equal(index, pd.Index([1, "a", None]))
    assert index.get_loc("a") == 1 and index.is_unique and len(index) == 3
    np.testing.assert_array_equal(_device.to_host(index.get_indexer(rt.Index(["a", 2, None]))), [1, -1, 2])
    s = rt.Series([1.0, 2.0, 3.0], index=index)
    assert s["a"] == 2.0
    assert_series_equal(s.reindex(["a", 1]), pd.Series([1.0, 2.0, 3.0], index=[1, "a", None]).reindex(["a", 1]))


# --------------------------------------------------------------------------- 7. info() with a MultiIndex


def _info(obj: Any) -> str:
    buf = io.StringIO()
    obj.info(buf=buf)
    return buf.getvalue()


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [1, 2, 3]},
                     index=pd.MultiIndex.from_arrays([["a", "a", "b"], [1, 2, 1]], names=["k", "n"])),
        pd.DataFrame({"x": [1.0, 2.0, np.nan]},
                     index=pd.MultiIndex.from_arrays([pd.to_datetime(["2020", "2021", "2020"]),
                                                      pd.Categorical(["u", "v", "u"])])),
        pd.DataFrame({"x": np.arange(300.0)},
                     index=pd.MultiIndex.from_arrays([np.arange(300) % 7, np.arange(300).astype(str)])),
        pd.DataFrame({("a", "b"): [1], ("a", "c"): [2.0]}),
    ],
    ids=["text-and-ints", "dates-and-categories", "300-rows", "tuple-columns"],
)  # fmt: skip
def test_info_with_a_multiindex(frame: pd.DataFrame) -> None:
    # pandas counts a MultiIndex's lookup tables once a lookup has built them: read its text before riptide
    # converts the objects (which looks things up), as a fresh pandas object prints it
    series = frame.iloc[:, 0]
    expected_frame = _info(frame).replace("<class 'pandas.", "<class 'riptide.")
    expected_series = _info(series).replace("<class 'pandas.", "<class 'riptide.")
    assert _info(rt.from_pandas(frame)).rsplit("data on:", 1)[0] == expected_frame
    assert _info(rt.from_pandas(series)).rsplit("data on:", 1)[0] == expected_series


def test_missing_strings_kept_as_keys_ignore_their_hidden_bytes():
    """Strings made missing by ``where`` keep their bytes under the mask; kept as keys (groupby dropna=False, a
    merge's null keys) they are one key whatever those bytes were (the GPU hash tables once split them; this runs
    them on the GPU host, and test_kernel_emulation's string cases run their kernels on the CPU)."""
    n = 40_000  # past the hash tables' row threshold
    p = pd.Series(np.array(["a", "bb", "ccc", "dd"], dtype=object)[np.arange(n) % 4], dtype="str")
    s = rt.Series(p)
    masked, p_masked = s.where(s != "bb").where(s != "ccc"), p.where(p != "bb").where(p != "ccc")
    assert_series_equal(masked.groupby(masked, dropna=False).size(), p_masked.groupby(p_masked, dropna=False).size())
    values = np.arange(n, dtype=np.float64)
    got = rt.Series(values).groupby(masked, dropna=False).sum()
    assert_series_equal(got, pd.Series(values).groupby(p_masked, dropna=False).sum())
    left = rt.DataFrame({"k": masked, "v": values})
    right = rt.DataFrame({"k": rt.Series(pd.Series(["a", None], dtype="str")), "w": [1.0, 2.0]})
    expected = pd.DataFrame({"k": p_masked, "v": values}).merge(right.to_pandas(), on="k")
    assert_frame_equal(left.merge(right, on="k"), expected)
