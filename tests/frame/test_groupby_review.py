"""Review of the reduce-while-grouping machinery on the CPU.

The aggregating grouping (:func:`riptide.core.ops.grouping.group_rows_aggregating`) runs on the GPU only;
here its partial results are injected into a CPU grouping exactly as the kernel would leave them (NaN and
missing values skipped, +-inf / the int extremes where a group saw no value), and :func:`group_reduce` must
finish them into the same column as when it reads the rows itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import riptide as rt
from riptide import _device
from riptide.core import dtypes
from riptide.core.column import as_column
from riptide.core.ops import group_reduce as gr
from riptide.core.ops.grouping import group_rows
from tests.conftest import assert_frame_equal, assert_series_equal


def _kernel_partial(column, groups, kind):
    """What the GPU kernel leaves for ``kind`` (see hash_aggregate's module docstring), computed on the host."""
    data = _device.to_host(column.data)
    valid = ~_device.to_host(column.isna()) if column.can_hold_missing() else np.ones(column.size, dtype=bool)
    ids = _device.to_host(groups.ids)
    rows = valid & (ids >= 0)
    n = groups.n_groups
    is_float, is_uint = data.dtype.kind == "f", data.dtype.kind == "u"
    if kind == "count":
        return np.bincount(ids[rows], minlength=n).astype(np.int64)
    if kind == "fsum" or (kind == "sum" and is_float):
        return np.bincount(ids[rows], weights=data[rows].astype(np.float64), minlength=n)
    if kind == "sum":
        out = np.zeros(n, dtype=np.uint64 if is_uint else np.int64)
        np.add.at(out, ids[rows], data[rows].astype(out.dtype))
        return out
    word = np.float64 if is_float else (np.uint64 if is_uint and data.dtype.itemsize == 8 else np.int64)
    start = (np.inf if kind == "min" else -np.inf) if is_float else (
        np.iinfo(word).max if kind == "min" else np.iinfo(word).min)  # fmt: skip
    out = np.full(n, start, dtype=word)
    (np.minimum if kind == "min" else np.maximum).at(out, ids[rows], data[rows].astype(word))
    return out


_DTYPES = ["int8", "int64", "uint8", "uint64", "float32", "float64", "bool", "Int64", "Float64", "boolean"]
_OPS = [("sum", {}), ("sum", {"min_count": 2}), ("mean", {}), ("min", {}), ("max", {}), ("count", {}),
        ("min", {"min_count": 2}), ("sum", {"skipna": False}), ("max", {"skipna": False})]  # fmt: skip


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("op,options", _OPS)
def test_partials_finish_like_the_rows(dtype, op, options):
    rng = np.random.default_rng(_DTYPES.index(dtype))
    n = 60
    keys_host = rng.integers(0, 9, n).astype(np.float64)
    keys_host[rng.random(n) < 0.1] = np.nan
    keys = as_column(keys_host)
    if dtype in ("bool", "boolean"):
        values = pd.array(rng.random(n) < 0.5, dtype=dtype)
    elif dtype in ("float32", "float64", "Float64"):
        values = pd.array(rng.integers(-50, 50, n).astype(np.float64) / 4, dtype=dtype)
    else:
        info = np.iinfo(dtype.lower())
        values = pd.array(rng.integers(max(info.min, -100), min(info.max, 100), n, endpoint=True), dtype=dtype)
    missing = rng.random(n) < 0.2
    missing[:7] = True  # group of all-missing values somewhere, probably
    if dtypes.is_masked(values.dtype) or dtype.startswith("float"):
        values[missing] = None
    column = as_column(values)
    expected_groups = group_rows([keys], sort=True, dropna=True)
    expected = gr.group_reduce(column, expected_groups, op, **options)

    kinds = gr.partial_kinds(column, op, skipna=options.get("skipna", True), min_count=options.get("min_count", 0))
    if kinds is None:
        assert not options.get("skipna", True) and (dtype.startswith("float") or dtypes.is_masked(column.dtype))
        return
    groups = group_rows([keys], sort=True, dropna=True)
    for kind in kinds:
        groups.set_partial(column, kind, _device.to_device(_kernel_partial(column, groups, kind), column.xp))
    got = gr.group_reduce(column, groups, op, **options)
    for kind in kinds:
        assert groups.partial(column, kind) is not None
    pd.testing.assert_series_equal(_host(got), _host(expected))
    pd.testing.assert_series_equal(_host(got), _host(gr.group_reduce(column, group_rows([keys]), op, **options)))


def _host(column):
    from riptide.frame.series import Series

    return Series._from_column(column, None, None).to_pandas()


def test_partials_are_found_by_column_identity():
    keys = as_column(np.array([1, 1, 2]))
    a, b = as_column(np.array([1.0, 2.0, 3.0])), as_column(np.array([1.0, 2.0, 3.0]))
    groups = group_rows([keys])
    groups.set_partial(a, "sum", np.array([100.0, 200.0]))
    assert groups.partial(a, "sum").tolist() == [100.0, 200.0]
    assert groups.partial(b, "sum") is None  # an equal column is not the same column
    assert gr.group_reduce(b, groups, "sum").data.tolist() == [3.0, 3.0]


def test_partial_kinds():
    floats, ints = as_column(np.array([1.5])), as_column(np.array([1], dtype=np.int16))
    assert gr.partial_kinds(floats, "sum") == ("sum",)
    assert gr.partial_kinds(floats, "sum", min_count=1) == ("sum", "count")
    assert gr.partial_kinds(floats, "sum", skipna=False) is None
    assert gr.partial_kinds(ints, "sum", skipna=False) == ("sum",)
    assert gr.partial_kinds(ints, "mean") == ("fsum", "count")
    assert gr.partial_kinds(None, "size") == ("size",)
    assert gr.partial_kinds(as_column(np.array(["a"], dtype=object)), "min") is None
    assert gr.partial_kinds(as_column(np.array(["2020-01-01"], dtype="M8[ns]")), "min") is None
    assert gr.partial_kinds(floats, "std") is None


@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("dropna", [True, False])
def test_float_keys_show_the_first_row_seen(sort, dropna):
    """0.0 and -0.0 are one key; pandas shows the one of the group's first row."""
    pdf = pd.DataFrame({"k": [-0.0, 1.0, 0.0, np.nan, -0.0], "s": ["a", "b", "a", "c", "a"], "v": [1, 2, 3, 4, 5]})
    df = rt.from_pandas(pdf)
    for keys in ("k", ["s", "k"]):
        got = df.groupby(keys, sort=sort, dropna=dropna).v.sum()
        expected = pdf.groupby(keys, sort=sort, dropna=dropna).v.sum()
        assert_series_equal(got, expected)
        signs = np.signbit(np.asarray(got.index.to_pandas().get_level_values(-1), dtype=float))
        assert signs.tolist() == np.signbit(np.asarray(expected.index.get_level_values(-1), dtype=float)).tolist()


@pytest.mark.parametrize("select", [None, ["b", "a"], ["a", "c"]])
def test_narrow_int_sums_by_block(select):
    """A block of int8 columns stays int8 only when every column's sums fit (one overflowing column widens it)."""
    pdf = pd.DataFrame({"k": [1, 1, 2], "a": np.array([100, 100, 1], dtype=np.int8),
                        "b": np.array([1, 2, 3], dtype=np.int8), "x": [1.0, 2.0, 3.0],
                        "c": np.array([1, 1, 1], dtype=np.int8)})  # fmt: skip
    df = rt.from_pandas(pdf)
    grouped, pgrouped = df.groupby("k"), pdf.groupby("k")
    if select is not None:
        grouped, pgrouped = grouped[select], pgrouped[select]
    assert_frame_equal(grouped.sum(), pgrouped.sum())
    assert_frame_equal(grouped.prod(), pgrouped.prod())


def test_agg_named_requests_with_options():
    """Named aggregations (the ones computed while grouping on the GPU) with NamedAgg options and callables."""
    pdf = pd.DataFrame({"k": [1, 1, 2, 2], "v": [1.0, np.nan, 3.0, 4.0], "w": [1, 2, 3, 4]})
    df = rt.from_pandas(pdf)
    spec = {"s": ("v", "sum"), "n": ("v", "count"), "m": ("w", "mean"), "lo": ("w", "min"), "size": ("w", "size")}
    assert_frame_equal(df.groupby("k").agg(**spec), pdf.groupby("k").agg(**spec))
    assert_frame_equal(df.groupby("k").agg({"v": ["sum", "max"], "w": "min"}),
                       pdf.groupby("k").agg({"v": ["sum", "max"], "w": "min"}))
    assert_frame_equal(df.groupby("k", as_index=False).agg(["sum", "mean"]),
                       pdf.groupby("k", as_index=False).agg(["sum", "mean"]))
