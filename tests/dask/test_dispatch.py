"""Dask's dispatch functions on riptide objects (riptide.dask.dispatch / hashing / serialization / validation).

Each dispatch is checked against what Dask's pandas registration gives for the pandas twin, or against the
property Dask relies on (equal rows hash equally across partitions; a split keeps every row once, in order).
"""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask")
pytest.importorskip("distributed")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import riptide as rt
from riptide import _device  # noqa: E402
import riptide.dask  # noqa: E402,F401
from dask.array.dispatch import percentile_lookup  # noqa: E402
from dask.dataframe.dispatch import (  # noqa: E402
    concat,
    group_split_dispatch,
    hash_object_dispatch,
    is_categorical_dtype,
    make_meta,
    meta_nonempty,
    pyarrow_schema_dispatch,
    to_pandas_dispatch,
    tolist,
    union_categoricals,
)
from dask.dataframe.dispatch import from_pyarrow_table_dispatch, to_pyarrow_table_dispatch  # noqa: E402
from dask.sizeof import sizeof  # noqa: E402
from riptide.dask.dispatch import to_riptide_dispatch  # noqa: E402
from riptide.dask.serialization import deserialize_riptide, serialize_riptide  # noqa: E402
from riptide.dask.validation import MetaMismatchError, check_partition  # noqa: E402
from conftest import ALL_DTYPES, frame_st  # noqa: E402


def _sample() -> pd.DataFrame:
    return pd.DataFrame({
        "i": np.arange(6, dtype=np.int64),
        "f": [1.5, np.nan, -0.0, 0.0, 2.5, 1.5],
        "s": pd.array(["a", None, "ßü", "", "a", "中文"], dtype="str"),
        "c": pd.Categorical(["x", "y", None, "x", "y", "x"]),
        "m": pd.array([1, None, 3, 4, None, 6], dtype="Int64"),
        "t": pd.to_datetime(["2020-01-01", None, "2021-05-06", "2020-01-01", "1999-12-31", "2000-01-01"]),
        "b": [True, False, True, True, False, True],
    })


# --------------------------------------------------------------------------- meta


def test_make_meta_is_empty_riptide_with_same_dtypes():
    df = rt.from_pandas(_sample())
    meta = make_meta(df)
    assert isinstance(meta, rt.DataFrame) and len(meta) == 0
    pd.testing.assert_series_equal(meta.dtypes, _sample().dtypes)
    assert isinstance(make_meta(df["s"]), rt.Series) and make_meta(df["s"]).dtype == df["s"].dtype
    index = make_meta(df.index)
    assert isinstance(index, rt.Index) and len(index) == 0


def test_meta_nonempty_matches_dask_pandas_rules():
    pdf = _sample().iloc[:0]
    got = meta_nonempty(rt.from_pandas(pdf))
    assert isinstance(got, rt.DataFrame)
    pd.testing.assert_frame_equal(got.to_pandas(), meta_nonempty(pdf))
    s = meta_nonempty(rt.from_pandas(pdf)["c"])
    assert isinstance(s, rt.Series) and len(s) == 2 and s.dtype == pdf["c"].dtype


def test_make_meta_from_description_with_riptide_parent():
    parent = rt.DataFrame({"a": [1]})
    meta = make_meta({"x": "i8", "y": "f8"}, parent_meta=parent)
    assert isinstance(meta, rt.DataFrame)
    assert list(meta.columns) == ["x", "y"] and [str(d) for d in meta.dtypes] == ["int64", "float64"]
    s = make_meta(("z", "f8"), parent_meta=parent)
    assert isinstance(s, rt.Series) and s.name == "z"


def test_to_backend_dispatch_round_trip():
    pdf = _sample()
    r = to_riptide_dispatch(pdf)
    assert isinstance(r, rt.DataFrame)
    assert to_riptide_dispatch(r) is r
    pd.testing.assert_frame_equal(to_pandas_dispatch(r), pdf)
    with pytest.raises(ValueError, match="unsupported keyword"):
        to_riptide_dispatch(pdf, nan_as_null=True)


# --------------------------------------------------------------------------- hashing


def _hash(obj):
    return hash_object_dispatch(obj, index=False).to_numpy()


def test_hash_equal_rows_hash_equally_across_partitions():
    pdf = _sample()
    whole = _hash(rt.from_pandas(pdf))
    pieces = np.concatenate([_hash(rt.from_pandas(pdf.iloc[a:b])) for a, b in [(0, 2), (2, 3), (3, 6)]])
    np.testing.assert_array_equal(whole, pieces)
    assert whole.dtype == np.uint64


def test_hash_ignores_integer_width_and_nullability_and_zero_sign():
    a = _hash(rt.Series(np.array([5, -1, 7], dtype=np.int32)))
    b = _hash(rt.Series(pd.array([5, -1, 7], dtype="Int64")))
    np.testing.assert_array_equal(a, b)
    f = _hash(rt.Series([0.0, -0.0, np.nan, float("nan")]))
    assert f[0] == f[1] and f[2] == f[3]


def test_hash_categorical_equals_hash_of_its_values():
    values = ["b", "a", None, "c", "a"]
    cat1 = rt.Series(pd.Categorical(values, categories=["a", "b", "c"]))
    cat2 = rt.Series(pd.Categorical(values, categories=["c", "b", "a", "zz"]))
    text = rt.Series(pd.array(values, dtype="str"))
    np.testing.assert_array_equal(_hash(cat1), _hash(cat2))
    np.testing.assert_array_equal(_hash(cat1), _hash(text))


def test_hash_strings_distinguish_content_and_sliced_buffers():
    s = rt.Series(pd.array(["ab", "ba", "a", "b", "", "ab", "abab"], dtype="str"))
    h = _hash(s)
    assert len(set(h[[0, 1, 2, 3, 4, 6]].tolist())) == 6 and h[0] == h[5]
    np.testing.assert_array_equal(_hash(s.iloc[3:]), h[3:])


def test_hash_index_option_includes_labels():
    df = rt.DataFrame({"a": [1, 1]}, index=[10, 20])
    assert len(set(hash_object_dispatch(df, index=True).to_numpy().tolist())) == 2
    assert len(set(hash_object_dispatch(df, index=False).to_numpy().tolist())) == 1
    assert hash_object_dispatch(rt.Index([3, 3, 4])).to_numpy()[0] == hash_object_dispatch(rt.Index([3])).to_numpy()[0]


@settings(max_examples=25)
@given(frame_st(min_cols=1, max_cols=3, max_size=60), st.integers(1, 59))
def test_hash_is_partition_independent(pdf, cut):
    pdf = pdf.reset_index(drop=True)
    cut = min(cut, len(pdf))
    whole = _hash(rt.from_pandas(pdf))
    parts = np.concatenate([_hash(rt.from_pandas(pdf.iloc[:cut])), _hash(rt.from_pandas(pdf.iloc[cut:]))])
    np.testing.assert_array_equal(whole, parts)
    # rows pandas groups together (equal values, missing alike) hash alike
    groups = pdf.groupby(list(pdf.columns), dropna=False, sort=False, observed=True).ngroup().to_numpy()
    first_hash = {}
    for group, h in zip(groups.tolist(), whole.tolist()):
        assert first_hash.setdefault(group, h) == h


# --------------------------------------------------------------------------- splitting


@pytest.mark.parametrize("ignore_index", [False, True])
def test_group_split_keeps_each_row_once_in_order(ignore_index):
    pdf = _sample()
    target = np.array([2, 0, 2, 1, 0, 2])
    parts = group_split_dispatch(rt.from_pandas(pdf), target, 4, ignore_index=ignore_index)
    assert sorted(parts) == [0, 1, 2, 3]
    for k in range(4):
        expected = pdf[target == k]
        if ignore_index:
            expected = expected.reset_index(drop=True)
        pd.testing.assert_frame_equal(parts[k].to_pandas(), expected)
    assert len(parts[3]) == 0


def test_group_split_accepts_a_riptide_series_of_targets():
    df = rt.DataFrame({"x": [1, 2, 3]})
    parts = group_split_dispatch(df, rt.Series(np.array([1, 1, 0], dtype=np.int32)), 2)
    assert parts[0]["x"].tolist() == [3] and parts[1]["x"].tolist() == [1, 2]


# --------------------------------------------------------------------------- concat / categoricals


def test_concat_frames_and_indexes():
    a, b = _sample().iloc[:3], _sample().iloc[3:]
    got = concat([rt.from_pandas(a), rt.from_pandas(b)])
    pd.testing.assert_frame_equal(got.to_pandas(), _sample())
    idx = concat([rt.Index([1, 2]), rt.Index([3])])
    assert isinstance(idx, rt.Index) and idx.tolist() == [1, 2, 3]
    got = concat([rt.from_pandas(a), rt.from_pandas(b)], ignore_index=True)
    assert got.index.tolist() == list(range(6))


def test_concat_unions_differing_categories():
    a = pd.DataFrame({"c": pd.Categorical(["x", "y"]), "v": [1, 2]})
    b = pd.DataFrame({"c": pd.Categorical(["z", None]), "v": [3, 4]})
    got = concat([rt.from_pandas(a), rt.from_pandas(b)]).to_pandas()
    expected = concat([a, b])
    pd.testing.assert_frame_equal(got, expected)
    s = concat([rt.from_pandas(a)["c"], rt.from_pandas(b)["c"]]).to_pandas()
    pd.testing.assert_series_equal(s, concat([a["c"], b["c"]]))


def test_union_categoricals_and_categorical_checks():
    a = rt.Series(pd.Categorical(["b", "a"]))
    b = rt.Series(pd.Categorical(["c", "a"]))
    got = union_categoricals([a, b])
    expected = pd.api.types.union_categoricals([pd.Categorical(["b", "a"]), pd.Categorical(["c", "a"])])
    assert list(got.dtype.categories) == list(expected.categories)
    assert got.to_pandas().tolist() == list(expected)
    assert is_categorical_dtype(a) and not is_categorical_dtype(rt.Series([1]))
    with pytest.raises(TypeError):
        union_categoricals([a, rt.Series([1, 2])])


def test_tolist():
    assert tolist(rt.Series([1, 2])) == [1, 2]
    assert tolist(rt.Index(["a", "b"])) == ["a", "b"]


# --------------------------------------------------------------------------- percentiles


@pytest.mark.parametrize("values", [
    np.random.default_rng(3).integers(0, 100, 57),
    np.random.default_rng(4).normal(size=40),
    np.array([3.0, np.nan, 1.0, 2.0]),
    np.array([7]),
])
def test_percentile_matches_numpy(values):
    q = np.array([0, 12.5, 25, 50, 75, 100.0])
    got, n = percentile_lookup(rt.Series(values), q)
    present = values[~np.isnan(values)] if values.dtype.kind == "f" else values
    assert n == len(values)
    np.testing.assert_allclose(got, np.percentile(present, q))


def test_percentile_datetimes_strings_categoricals_and_empty():
    t = pd.Series(pd.to_datetime(["2020-01-01", "2020-01-03", None, "2020-01-02"]))
    got, n = percentile_lookup(rt.Series(t), [0, 50, 100])
    assert n == 4 and list(pd.to_datetime(got)) == list(pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03"]))
    s = rt.Series(pd.array(["d", "a", "c", "b", None], dtype="str"))
    got, n = percentile_lookup(s, [0, 50, 100])
    assert list(got) == ["a", "b", "d"] or list(got) == ["a", "c", "d"]
    c = rt.Series(pd.Categorical(["b", "a", "b"], categories=["a", "b"], ordered=True))
    got, _ = percentile_lookup(c, [0, 100])
    assert list(got) == ["a", "b"]
    assert percentile_lookup(rt.Series([], dtype="float64"), [50]) == (None, 0)


# --------------------------------------------------------------------------- Arrow / sizeof


def test_arrow_round_trip_and_schema():
    pdf = _sample()
    df = rt.from_pandas(pdf)
    table = to_pyarrow_table_dispatch(df, preserve_index=False)
    back = from_pyarrow_table_dispatch(df.iloc[:0], table)
    assert isinstance(back, rt.DataFrame)
    pd.testing.assert_frame_equal(back.to_pandas(), pdf)
    schema = pyarrow_schema_dispatch(df.iloc[:0], preserve_index=False)
    assert schema.names == list(pdf.columns)


def test_sizeof_counts_buffers():
    df = rt.DataFrame({"a": np.zeros(100_000), "b": np.arange(100_000)})
    assert 1_600_000 <= sizeof(df) < 1_700_000
    assert 800_000 <= sizeof(df["a"]) < 900_000


# --------------------------------------------------------------------------- serialization


@settings(max_examples=20)
@given(frame_st(dtypes=ALL_DTYPES, min_cols=0, max_cols=4, max_size=50))
def test_serialize_round_trip(pdf):
    df = rt.from_pandas(pdf)
    header, frames = serialize_riptide(df)
    assert all(isinstance(f, memoryview) for f in frames)
    back = deserialize_riptide(header, [bytes(f) for f in frames])  # as bytes, as they arrive from the network
    pd.testing.assert_frame_equal(back.to_pandas(), pdf)


def test_distributed_serialize_and_pickle_round_trip():
    from distributed.protocol import deserialize, serialize

    pdf = _sample()
    for obj in (rt.from_pandas(pdf), rt.from_pandas(pdf)["s"], rt.Index([1, 2, 3], name="x"), rt.RangeIndex(2, 9, 3)):
        header, frames = serialize(obj, serializers=["dask"])
        assert header["serializer"] == "dask"
        back = deserialize(header, frames)
        assert type(back) is type(obj)
        assert back.to_pandas().equals(obj.to_pandas())
        assert pickle.loads(pickle.dumps(obj)).to_pandas().equals(obj.to_pandas())


def test_serialized_frames_are_the_column_buffers():
    values = np.arange(1000, dtype=np.float64)
    header, frames = serialize_riptide(rt.Series(values))
    assert any(bytes(f) == values.tobytes() for f in frames)
    assert len(header["tree"]) < 2000  # the tree is metadata only


def test_host_copy_kept_while_the_object_is_unchanged():
    """An object brought onto the device from host frames hands the same frames back when serialized again (a
    second spill copies nothing), until its tree or an array changes; the copy goes with the object."""
    from riptide.dask import serialization

    df = rt.DataFrame({"a": np.arange(5.0), "s": ["x", "y", None, "z", "w"]})
    header, frames = serialize_riptide(df)
    back = deserialize_riptide(header, frames)
    if not serialization._on_device(back):
        assert serialization._kept_host_copy(back) is None  # nothing came onto a device: nothing kept
        serialization._keep_host_copy(back, header, frames)  # as a load onto the device does
    again_header, again = serialize_riptide(back)
    assert len(again) == len(frames) and all(a is b for a, b in zip(again, frames, strict=True))
    assert again_header == header and again_header is not header
    back["b"] = back["a"] * 2  # a new column: a new layout, serialized afresh
    changed_header, changed = serialize_riptide(back)
    assert len(changed) > len(frames)
    pd.testing.assert_frame_equal(deserialize_riptide(changed_header, changed).to_pandas(), back.to_pandas())
    assert serialization._kept_host_copy(back) is None
    serialization._keep_host_copy(back, changed_header, changed)
    key = id(back)
    del back
    assert key not in serialization._host_copies


@pytest.mark.gpu
def test_spilled_partition_is_copied_to_the_host_once():
    """On the device: a partition loaded from host frames is serialized back to those same frames (no copy), and
    distributed's own round trip of it gives the values back."""
    from distributed.protocol import deserialize, serialize

    from riptide.dask import serialization

    df = rt.DataFrame({"a": _device.to_device(np.arange(1000.0)), "s": ["p", "q"] * 500})
    header, frames = serialize_riptide(df)
    on_device = deserialize_riptide(header, frames)
    assert serialization._on_device(on_device)
    _, again = serialize_riptide(on_device)
    assert all(a is b for a, b in zip(again, frames, strict=True))
    wire_header, wire = serialize(on_device, serializers=["dask"])
    pd.testing.assert_frame_equal(deserialize(wire_header, wire).to_pandas(), df.to_pandas())


# --------------------------------------------------------------------------- validation


def test_check_partition_names_partition_and_column():
    meta = rt.DataFrame({"a": [1], "b": ["x"]}).iloc[:0]
    ok = rt.DataFrame({"a": [2], "b": ["y"]})
    assert check_partition(ok, meta, 0) is ok
    with pytest.raises(MetaMismatchError, match=r"partition 4 .*column 'b' has dtype int64, the meta has str"):
        check_partition(rt.DataFrame({"a": [2], "b": [1]}), meta, 4)
    with pytest.raises(MetaMismatchError, match=r"partition 2 .*column 'b' is missing"):
        check_partition(rt.DataFrame({"a": [2]}), meta, 2)
    with pytest.raises(MetaMismatchError, match=r"partition 1 .*column 'z' is not in the meta"):
        check_partition(rt.DataFrame({"a": [2], "b": ["y"], "z": [0]}), meta, 1)
    with pytest.raises(MetaMismatchError, match=r"partition 3 .*Series 'v' has dtype float64"):
        check_partition(rt.Series([1.0]), rt.Series([1], name="v").iloc[:0], 3)


def test_check_partition_casts_numeric_when_asked():
    meta = rt.DataFrame({"a": [1.0]}).iloc[:0]
    got = check_partition(rt.DataFrame({"a": [1, 2]}), meta, 0, cast_numeric=True)
    assert str(got.dtypes["a"]) == "float64"
    meta = rt.DataFrame({"a": [1]}).iloc[:0]
    with pytest.raises(MetaMismatchError, match=r"partition 7"):
        check_partition(rt.DataFrame({"a": [1.0, np.nan]}), meta, 7, cast_numeric=True)


# --------------------------------------------------------------------------- pandas methods Dask calls (riptide/frame;
# tests/frame/test_dask_methods.py tests them against pandas)


def test_shim_searchsorted_any_dtype():
    divisions = rt.Series(pd.array(["b", "d", "f"], dtype="str"))
    values = rt.Series(pd.array(["a", "b", "c", "f", "z"], dtype="str"))
    expected = pd.Series(["b", "d", "f"]).searchsorted(["a", "b", "c", "f", "z"], side="right")
    np.testing.assert_array_equal(_device.to_host(divisions.searchsorted(values, side="right")), expected)
    assert rt.Series([1, 3, 5]).searchsorted(3) == 1
    assert rt.Index([1, 3, 5]).get_slice_bound(3, "right") == 2


def test_shim_groupby_unique_and_select_dtypes_and_to_frame():
    pdf = pd.DataFrame({"k": [1, 2, 1, 1], "v": [5, 6, 5, 7]})
    got = rt.from_pandas(pdf).groupby("k").v.unique().explode()
    expected = pdf.groupby("k").v.unique().explode().astype("int64")
    pd.testing.assert_series_equal(got.to_pandas().astype("int64"), expected)
    df = rt.from_pandas(_sample())
    assert list(df.select_dtypes(include="category").columns) == ["c"]
    assert list(df.select_dtypes(include="number").columns) == list(_sample().select_dtypes(include="number").columns)
    frame = rt.Index([1, 2], name="x").to_frame()
    assert list(frame.columns) == ["x"] and frame.index.tolist() == [1, 2]


def test_shim_frame_quantile_text_nearest_rank():
    values = pd.array(["d", "a", "c", "b"], dtype="str")
    qs = [0.0, 0.5, 1.0]
    got = rt.DataFrame({"s": values}).quantile(qs, interpolation="nearest", numeric_only=False, method="table")
    expected = pd.DataFrame({"s": values}).quantile(qs, interpolation="nearest", numeric_only=False, method="table")
    assert got["s"].tolist() == expected["s"].tolist()
    # missing values rank last, as in pandas (DataFrame.quantile is riptide/frame's now, no Dask shim)
    values = pd.array(["d", "a", None, "c", "b"], dtype="str")
    got = rt.DataFrame({"s": values}).quantile(qs, interpolation="nearest", method="table")["s"].tolist()
    expected = pd.DataFrame({"s": values}).quantile(qs, interpolation="nearest", method="table")["s"].tolist()
    assert got[:2] == expected[:2] == ["a", "c"] and pd.isna(got[2]) and pd.isna(expected[2])


def test_only_dask_specific_attributes_are_patched_in():
    # every pandas method Dask calls is riptide/frame's own; riptide.dask adds only GroupBy.grouper (not pandas 3 API)
    from riptide.dask import _shims
    from riptide.frame.groupby import GroupBy

    assert set(_shims.INSTALLED) <= {"GroupBy.grouper"} and hasattr(GroupBy, "grouper")
    df = rt.DataFrame({"k": [1, 2, 1], "v": [1.0, 2.0, 4.0]})
    keys = df.groupby("k").grouper
    pd.testing.assert_series_equal(keys.to_pandas(), pd.Series([1, 2, 1], name="k"))
    assert [s.name for s in df.groupby(["k"]).grouper] == ["k"]
