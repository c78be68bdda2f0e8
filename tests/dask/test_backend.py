"""The "riptide" Dask DataFrame backend: registration, creation functions, readers/writers, and Dask's operations
compared with the same operations on a pandas-backed Dask DataFrame (``.compute().to_pandas()`` against the pandas
result). Runs on Dask's synchronous scheduler; tests/dask/test_distributed.py covers distributed clusters."""

from __future__ import annotations

import importlib.metadata
import os

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

import riptide as rt  # noqa: E402
import riptide.dask  # noqa: E402,F401
from riptide.dask.backends import RiptideBackendEntrypoint  # noqa: E402
from riptide.dask.validation import MetaMismatchError, validate_meta  # noqa: E402

RIPTIDE = (rt.DataFrame, rt.Series, rt.Index)


@pytest.fixture(autouse=True)
def _sync_scheduler():
    # pandas-backed Dask converts text to string[pyarrow] by default; riptide keeps pandas' "str": compare like
    # with like by turning the conversion off for both.
    with dask.config.set({"scheduler": "sync", "dataframe.convert-string": False}):
        yield


def _data(n: int = 240, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "k": rng.integers(0, 12, n),
        "s": pd.array(rng.choice(["a", "b", "ß", "中", None], n), dtype="str"),
        "v": rng.normal(size=n),
        "w": rng.integers(0, 1000, n),
        "m": pd.array(np.where(rng.random(n) < 0.2, None, rng.integers(0, 5, n)), dtype="Int64"),
    })


@pytest.fixture(scope="module")
def frames():
    pdf = _data()
    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_pandas(pdf, npartitions=4), dd.from_pandas(rt.from_pandas(pdf), npartitions=4)


def _computed(x):
    return x.compute() if hasattr(x, "compute") else x


def _canonical(x, ignore_index=False):
    """Rows in a fixed order (for operations whose row order Dask does not define)."""
    frame = x.to_frame() if isinstance(x, pd.Series) else x
    frame = frame.reset_index(drop=ignore_index)
    return frame.sort_values(list(frame.columns), kind="stable").reset_index(drop=True)


def _compare(op, frames, *, ordered=True, exact=False, ignore_index=False):
    p, r = frames
    expected = _computed(op(p))
    got = _computed(op(r))
    if isinstance(expected, (pd.DataFrame, pd.Series, pd.Index)):
        assert isinstance(got, RIPTIDE), f"expected a riptide result, got {type(got).__name__}"
        got = got.to_pandas()
        if not ordered:
            # ignore_index: a hash join numbers its output rows per partition, so labels depend on the partitioning
            got, expected = _canonical(got, ignore_index), _canonical(expected, ignore_index)
        if isinstance(expected, pd.DataFrame):
            pd.testing.assert_frame_equal(got, expected, check_exact=exact)
        elif isinstance(expected, pd.Series):
            pd.testing.assert_series_equal(got, expected, check_exact=exact)
        else:
            pd.testing.assert_index_equal(got, expected, exact=True)
    else:
        assert got == pytest.approx(expected)


# --------------------------------------------------------------------------- registration and creation


def test_entry_points_name_the_backend_in_both_groups():
    for group in ("dask.dataframe.backends", "dask_expr.dataframe.backends"):
        names = {ep.name: ep.value for ep in importlib.metadata.entry_points(group=group)}
        assert names.get("riptide") == "riptide.dask.backends:RiptideBackendEntrypoint"
    from dask.dataframe.backends import dataframe_creation_dispatch as legacy
    from dask.dataframe.dask_expr._backends import dataframe_creation_dispatch

    assert isinstance(dataframe_creation_dispatch.dispatch("riptide"), RiptideBackendEntrypoint)
    assert isinstance(legacy.dispatch("riptide"), RiptideBackendEntrypoint)


def test_backend_config_alone_loads_riptide_dask(tmp_path):
    """The entry point makes the backend work in a process that never imports riptide.dask itself."""
    import subprocess
    import sys

    script = (
        "import sys, dask, dask.dataframe as dd\n"
        "dask.config.set({'dataframe.backend': 'riptide', 'scheduler': 'sync'})\n"
        "ddf = dd.from_dict({'a': [1, 2, 3], 'b': ['x', 'y', 'x']}, npartitions=2)\n"
        "print(type(ddf._meta).__module__, 'riptide.dask' in sys.modules,\n"
        "      ddf.groupby('b').a.sum(split_out=2).compute().to_pandas().sort_index().tolist())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["riptide.frame.dataframe", "True", "[4,", "2]"]


@pytest.mark.parametrize("orient", ["columns", "index"])
def test_from_dict_gives_riptide_partitions(orient):
    data = {"a": [1, 2, 3, 4], "b": ["x", None, "z", "w"]} if orient == "columns" else \
        {"r1": {"a": 1, "b": 2}, "r2": {"a": 3, "b": 4}}  # fmt: skip
    with dask.config.set({"dataframe.backend": "riptide"}):
        ddf = dd.from_dict(data, npartitions=2, orient=orient)
    assert isinstance(ddf._meta, rt.DataFrame)
    expected = dd.from_dict(data, npartitions=2, orient=orient).compute()
    got = ddf.compute()
    assert isinstance(got, rt.DataFrame)
    pd.testing.assert_frame_equal(got.to_pandas(), expected)


def test_from_pandas_of_a_riptide_frame_and_to_backend_round_trip():
    pdf = _data(50)
    p = dd.from_pandas(pdf, npartitions=3)
    r = p.to_backend("riptide")
    assert isinstance(r._meta, rt.DataFrame) and r.divisions == p.divisions
    assert isinstance(r.compute(), rt.DataFrame)
    back = r.to_backend("pandas")
    assert isinstance(back._meta, pd.DataFrame)
    pd.testing.assert_frame_equal(back.compute(), pdf)
    assert r.to_backend("riptide").optimize().expr._name == r.optimize().expr._name  # already riptide: no step
    direct = dd.from_pandas(rt.from_pandas(pdf), npartitions=3)
    assert direct.divisions == p.divisions
    pd.testing.assert_frame_equal(direct.compute().to_pandas(), pdf)


def test_series_collections_and_index():
    r = dd.from_pandas(rt.from_pandas(_data(30)), npartitions=3)
    assert isinstance(r.v._meta, rt.Series)
    assert isinstance(r.index._meta, rt.Index)
    assert isinstance(r.v.compute(), rt.Series)
    assert r.index.compute().tolist() == list(range(30))


# --------------------------------------------------------------------------- operations against pandas-backed Dask

GROUPBY = {
    "sum": lambda d: d.groupby("k").v.sum(),
    "mean_text_key": lambda d: d.groupby("s").w.mean(),
    "count": lambda d: d.groupby("k").count(),
    "min_max": lambda d: d.groupby("k").agg({"v": "min", "w": "max"}),
    "std_var": lambda d: d.groupby("k").agg({"v": ["std", "var"], "w": "std"}),
    "size": lambda d: d.groupby("k").size(),
    "nunique": lambda d: d.groupby("k").w.nunique(),
    "masked": lambda d: d.groupby("k").m.sum(),
    "two_keys": lambda d: d.groupby(["k", "s"]).agg({"v": ["mean", "count"], "w": "sum"}),
    "dropna_false": lambda d: d.groupby("s", dropna=False).v.sum(),
    "split_out": lambda d: d.groupby("k").v.sum(split_out=3),
    "split_out_agg": lambda d: d.groupby(["k", "s"]).agg({"v": "mean", "w": "max"}, split_out=2),
    "split_out_shuffle_method": lambda d: d.groupby("s").agg({"w": "sum"}, split_out=3, shuffle_method="tasks"),
    "categorical_key": lambda d: d.astype({"s": "category"}).groupby("s", observed=True).w.sum(),
    "std_two_keys": lambda d: d.groupby(["k", "s"]).v.std(),
    "first_last": lambda d: d.groupby("s").agg({"v": "first", "w": "last"}),
    "named_agg": lambda d: d.groupby("k").agg(x=("v", "sum"), y=("w", "max")),
    "median_shuffle": lambda d: d.groupby("k").v.median(),
}


@pytest.mark.parametrize("name", list(GROUPBY))
def test_groupby_matches_pandas_backend(frames, name):
    _compare(GROUPBY[name], frames, ordered=False)


def _right(d):
    return d.groupby("k").w.max().rename("w2").reset_index()


MERGES = {
    "hash_inner": lambda d: d.merge(_right(d), on="k", how="inner", shuffle_method="tasks"),
    "hash_left_on_right_on": lambda d: d.merge(_right(d).rename(columns={"k": "kk"}), left_on="k", right_on="kk",
                                               how="left", shuffle_method="tasks"),
    "broadcast": lambda d: d.merge(_right(d), on="k", how="inner", broadcast=True),
    "text_key_outer": lambda d: d.merge(d.dropna(subset=["s"]).groupby("s").w.sum().rename("t").reset_index(),
                                        on="s", how="outer", shuffle_method="tasks"),
    "many_to_many": lambda d: d[["k", "w"]].merge(d[["k", "v"]], on="k", shuffle_method="tasks"),
    "index_join": lambda d: d.set_index("k").join(_right(d).set_index("k"), how="inner"),
    "right": lambda d: d.merge(_right(d), on="k", how="right", shuffle_method="tasks"),
}


@pytest.mark.parametrize("name", list(MERGES))
def test_merge_matches_pandas_backend(frames, name):
    _compare(MERGES[name], frames, ordered=False, ignore_index=name != "index_join")


def test_sort_values_and_set_index(frames):
    _compare(lambda d: d.sort_values("v"), frames, exact=True)
    _compare(lambda d: d.sort_values("v", ascending=False), frames, exact=True)
    _compare(lambda d: d.sort_values(["s", "v"]), frames, exact=True)
    _compare(lambda d: d.set_index("w"), frames, ordered=False)
    _compare(lambda d: d.dropna(subset=["s"]).set_index("s"), frames, ordered=False)


def test_set_index_divisions_hold(frames):
    r = frames[1].set_index("w")
    divisions = r.divisions
    assert all(a <= b for a, b in zip(divisions, divisions[1:]))
    for i, part in enumerate(r.partitions):
        index = part.compute().index.to_numpy()
        if len(index):
            assert index.min() >= divisions[i] and index.max() <= divisions[i + 1]
            assert (np.diff(index) >= 0).all()


OTHERS = {
    "drop_duplicates": (lambda d: d.drop_duplicates(["k", "s"]), False),
    "drop_duplicates_all": (lambda d: d[["k", "s"]].drop_duplicates(), False),
    "value_counts": (lambda d: d.s.value_counts(), False),
    "value_counts_split_out": (lambda d: d.k.value_counts(split_out=2), False),
    "nunique": (lambda d: d.k.nunique(), True),
    "concat": (lambda d: dd.concat([d, d[d.v > 0]]), True),
    "map_partitions": (lambda d: d.map_partitions(lambda x: x.assign(z=x.v * 2 + x.w)), True),
    "repartition": (lambda d: d.repartition(npartitions=2), True),
    "repartition_up": (lambda d: d.repartition(npartitions=7), True),
    "head": (lambda d: d.head(7, npartitions=2), True),
    "len": (lambda d: len(d), True),
    "describe": (lambda d: d[["v", "w"]].describe(), True),
    "reductions": (lambda d: d[["v", "w"]].mean(), True),
    "std": (lambda d: d.v.std(), True),
    "filter_assign": (lambda d: d[d.v > 0].assign(z=lambda x: x.w - x.k), True),
    "isin": (lambda d: d[d.k.isin([1, 2, 3])], True),
    "cumsum": (lambda d: d.w.cumsum(), True),
    "quantile": (lambda d: d.w.quantile(0.5), True),
    "nlargest": (lambda d: d.nlargest(5, "v"), True),
    "shuffle": (lambda d: d.shuffle("k"), False),
    "persist": (lambda d: d.persist().v.sum(), True),
    "index_max": (lambda d: d.set_index("w").index.max(), True),
    "idxmax": (lambda d: d.v.idxmax(), True),
    "clip_where": (lambda d: d.w.clip(10, 20) + d.w.where(d.w > 50, 0), True),
    "str_accessor": (lambda d: d.s.str.upper(), True),
    "rolling_diff": (lambda d: d.w.rolling(3).sum() + d.w.diff(), True),
    "apply_rows": (lambda d: d[["v", "w"]].apply(lambda r: r.v + r.w, axis=1, meta=("x", "f8")), True),
    "loc_divisions": (lambda d: d.set_index("w").loc[100:500], False),
    "corr": (lambda d: d[["v", "w"]].corr(), True),
}


# std/describe on the GPU: riptide.dask.expressions.RiptideVar moves each partition's moments to the host, so
# the results are NumPy scalars as with pandas (tests/dask/test_expressions.py emulates the device)
_GPU_DEVIATIONS: dict = {}


@pytest.mark.parametrize("name", [pytest.param(n, marks=_GPU_DEVIATIONS.get(n, ())) for n in OTHERS])
def test_other_operations_match_pandas_backend(frames, name):
    op, ordered = OTHERS[name]
    _compare(op, frames, ordered=ordered)


def test_disk_shuffle_matches(frames):
    with dask.config.set({"dataframe.shuffle.method": "disk"}):
        _compare(lambda d: d.shuffle("s"), frames, ordered=False)
        _compare(lambda d: d.groupby("k").v.sum(split_out=2), frames, ordered=False)


def test_empty_partitions_and_one_row():
    pdf = _data(9)
    r = dd.from_pandas(rt.from_pandas(pdf), npartitions=3)
    empty = r[r.v > 100]
    assert len(empty.compute()) == 0 and isinstance(empty.compute(), rt.DataFrame)
    assert len(empty.groupby("k").v.sum().compute()) == 0
    one = dd.from_pandas(rt.from_pandas(pdf.iloc[:1]), npartitions=1)
    pd.testing.assert_series_equal(one.groupby("k").v.sum(split_out=2).compute().to_pandas(),
                                   pdf.iloc[:1].groupby("k").v.sum())  # fmt: skip


# --------------------------------------------------------------------------- readers and writers


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("riptide_dask_io")
    pdf = _data(90).drop(columns="m")
    with dask.config.set({"dataframe.convert-string": False}):
        p = dd.from_pandas(pdf, npartitions=3)
        p.to_parquet(str(root / "pq"), write_index=False)
        p.to_csv(str(root / "csv" / "*.csv"), index=False)
        p.to_json(str(root / "json" / "*.json"))
    import pyarrow as pa
    import pyarrow.orc as orc

    os.makedirs(root / "orc")
    for i, (a, b) in enumerate([(0, 40), (40, 90)]):
        orc.write_table(pa.Table.from_pandas(pdf.iloc[a:b], preserve_index=False), str(root / "orc" / f"{i}.orc"))
    return root, pdf


READERS = {
    "parquet": lambda root: dd.read_parquet(str(root / "pq")),
    "parquet_columns": lambda root: dd.read_parquet(str(root / "pq"), columns=["k", "v"]),
    "csv": lambda root: dd.read_csv(str(root / "csv" / "*.csv")),
    "csv_blocks": lambda root: dd.read_csv(str(root / "csv" / "*.csv"), blocksize=250),
    "json": lambda root: dd.read_json(str(root / "json" / "*.json")),
    "orc": lambda root: dd.read_orc(str(root / "orc")),
}


@pytest.mark.parametrize("name", list(READERS))
def test_readers_give_riptide_partitions_equal_to_pandas(files, name):
    root, _ = files
    with dask.config.set({"dataframe.backend": "riptide"}):
        ddf = READERS[name](root)
    assert isinstance(ddf._meta, rt.DataFrame)
    expected = READERS[name](root).compute().reset_index(drop=True)
    if name.startswith("parquet"):
        # pandas-backed Dask reads Arrow text as string[pyarrow] whatever convert-string says; riptide gives what
        # pandas.read_parquet gives ("str"), which is the oracle here
        expected = pd.read_parquet(root / "pq", columns=list(expected.columns))
    got = ddf.compute()
    assert isinstance(got, rt.DataFrame)
    pd.testing.assert_frame_equal(got.to_pandas().reset_index(drop=True), expected)


def test_csv_blocks_split_the_files(files):
    root, _ = files
    with dask.config.set({"dataframe.backend": "riptide"}):
        ddf = dd.read_csv(str(root / "csv" / "*.csv"), blocksize=250)
    assert ddf.npartitions > 3


def test_parquet_column_projection_reaches_the_reader(files, monkeypatch):
    root, pdf = files
    seen = []
    original = rt.read_parquet

    def spy(path, *args, columns=None, **kwargs):
        seen.append(columns)
        return original(path, *args, columns=columns, **kwargs)

    monkeypatch.setattr(rt, "read_parquet", spy)
    with dask.config.set({"dataframe.backend": "riptide"}):
        ddf = dd.read_parquet(str(root / "pq"))
    seen.clear()
    got = ddf["v"].sum().compute()
    assert got == pytest.approx(pdf["v"].sum())
    assert seen and all(cols == ["v"] for cols in seen)


def test_writers_round_trip(files, tmp_path):
    _, pdf = files
    r = dd.from_pandas(rt.from_pandas(pdf), npartitions=3)
    r.to_parquet(str(tmp_path / "out_pq"), write_index=False)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "out_pq"), pdf)
    r.to_csv(str(tmp_path / "out_csv" / "*.csv"), index=False)
    back = pd.concat([pd.read_csv(tmp_path / "out_csv" / f"{i}.csv") for i in range(3)], ignore_index=True)
    pd.testing.assert_frame_equal(back, pd.read_csv(_csv_of(pdf, tmp_path)))


def _csv_of(pdf, tmp_path):
    path = tmp_path / "whole.csv"
    pdf.to_csv(path, index=False)
    return path


# --------------------------------------------------------------------------- partitions that disagree with the meta


def test_parquet_file_with_another_dtype_names_partition_file_and_column(tmp_path):
    os.makedirs(tmp_path / "mixed")
    pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}).to_parquet(tmp_path / "mixed" / "part.0.parquet")
    pd.DataFrame({"a": [3, 4], "b": [1.5, 2.5]}).to_parquet(tmp_path / "mixed" / "part.1.parquet")
    with dask.config.set({"dataframe.backend": "riptide"}):
        ddf = dd.read_parquet(str(tmp_path / "mixed"))
    with pytest.raises(MetaMismatchError, match=r"partition 1 \(.*part\.1\.parquet\).*column 'b' has dtype float64"):
        ddf.compute()


def test_parquet_numeric_width_differences_are_cast(tmp_path):
    os.makedirs(tmp_path / "widths")
    pd.DataFrame({"a": [1.5, 2.0]}).to_parquet(tmp_path / "widths" / "part.0.parquet")
    pd.DataFrame({"a": np.array([3, 4], dtype=np.int32)}).to_parquet(tmp_path / "widths" / "part.1.parquet")
    with dask.config.set({"dataframe.backend": "riptide"}):
        got = dd.read_parquet(str(tmp_path / "widths")).compute()
    assert got["a"].tolist() == [1.5, 2.0, 3.0, 4.0] and str(got["a"].dtype) == "float64"


def test_validate_meta_names_the_partition_and_column():
    r = dd.from_pandas(rt.from_pandas(_data(40)), npartitions=4)

    def sometimes_float(df, partition_info=None):
        return df.assign(w=df.w * 1.5) if partition_info["number"] == 2 else df

    bad = r.map_partitions(sometimes_float, meta=r._meta)
    with pytest.raises(MetaMismatchError, match=r"partition 2 does not match the meta: column 'w' has dtype float64"):
        validate_meta(bad).compute()
    pd.testing.assert_frame_equal(validate_meta(r).compute().to_pandas(), _data(40))
