"""riptide partitions on a distributed cluster (CPU LocalCluster): the operations of test_backend.py through a
scheduler and workers, shuffles by tasks and p2p, errors raised on workers, and one cluster of processes where a
worker dies in the middle of a computation and Dask's retries still give the right answer."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import riptide as rt  # noqa: E402
import riptide.dask  # noqa: E402,F401
from riptide.dask import LocalCluster  # noqa: E402
from riptide.dask.validation import MetaMismatchError, validate_meta  # noqa: E402


def _data(n: int = 400, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "k": rng.integers(0, 20, n),
        "s": pd.array(rng.choice(["x", "y", "zz", None], n), dtype="str"),
        "v": rng.normal(size=n),
        "w": rng.integers(0, 100, n),
    })


@pytest.fixture(scope="module")
def client():
    with dask.config.set({"dataframe.convert-string": False}):
        with LocalCluster(2, gpu=False, processes=False, dashboard_address=":0") as cluster:
            with distributed.Client(cluster) as c:
                yield c


def _frames(npartitions=5):
    pdf = _data()
    return pdf, dd.from_pandas(rt.from_pandas(pdf), npartitions=npartitions)


def _canonical(df):
    df = df.to_frame() if isinstance(df, pd.Series) else df
    df = df.reset_index()
    return df.sort_values(list(df.columns), kind="stable").reset_index(drop=True)


def test_local_cluster_helper_without_gpu_is_a_distributed_cluster(client):
    assert isinstance(client.cluster, distributed.LocalCluster)
    assert len(client.scheduler_info()["workers"]) == 2


def test_local_cluster_helper_options():
    import importlib.util

    from riptide.dask.cluster import _with_riptide

    assert _with_riptide(None) == ["riptide.dask"]
    assert _with_riptide("mymod") == ["mymod", "riptide.dask"]
    assert _with_riptide(["riptide.dask"]) == ["riptide.dask"]
    if importlib.util.find_spec("dask_cuda") is None:
        with pytest.raises(ImportError, match="dask-cuda"):
            LocalCluster(1, gpu=True)


def test_setup_workers_registers_a_worker_plugin(client):
    from riptide.dask import setup_workers

    setup_workers(client)
    plugins = client.run(lambda dask_worker: sorted(dask_worker.plugins))
    assert all("riptide-dask" in names for names in plugins.values())


@pytest.mark.parametrize("method", ["tasks", "p2p"])
def test_groupby_and_merge_on_the_cluster(client, method):
    pdf, r = _frames()
    with dask.config.set({"dataframe.shuffle.method": method}):
        got = r.groupby("k").agg({"v": "mean", "w": ["sum", "max"]}, split_out=3).compute()
        assert isinstance(got, rt.DataFrame)
        expected = pdf.groupby("k").agg({"v": "mean", "w": ["sum", "max"]})
        pd.testing.assert_frame_equal(got.to_pandas().sort_index(), expected)
        right = r.groupby("s").w.sum().rename("t").reset_index()
        merged = r.merge(right, on="s", how="inner").compute().to_pandas()
        expected = pdf.merge(pdf.groupby("s").w.sum().rename("t").reset_index(), on="s", how="inner")
        pd.testing.assert_frame_equal(_canonical(merged.reset_index(drop=True)),
                                      _canonical(expected.reset_index(drop=True)))  # fmt: skip


def test_sort_set_index_dedup_value_counts_on_the_cluster(client):
    pdf, r = _frames()
    pd.testing.assert_frame_equal(r.sort_values("v").compute().to_pandas(), pdf.sort_values("v"))
    got = r.set_index("w").compute().to_pandas()
    pd.testing.assert_frame_equal(_canonical(got), _canonical(pdf.set_index("w")))
    got = r.drop_duplicates(["k", "s"]).compute().to_pandas()
    assert len(got) == len(pdf.drop_duplicates(["k", "s"]))
    got = r.s.value_counts().compute().to_pandas()
    pd.testing.assert_series_equal(got.sort_index(), pdf.s.value_counts().sort_index())
    assert r.k.nunique().compute() == pdf.k.nunique()


def test_persist_keeps_riptide_partitions_on_the_workers(client):
    pdf, r = _frames()
    persisted = r.persist()
    distributed.wait(persisted)
    types = client.run(lambda dask_worker: sorted({type(v).__name__ for v in dask_worker.data.values()}))
    assert any("DataFrame" in names for names in types.values())
    assert persisted.v.sum().compute() == pytest.approx(pdf.v.sum())
    assert len(persisted.repartition(npartitions=2)) == len(pdf)


def test_scatter_and_submit_riptide_objects(client):
    df = rt.from_pandas(_data(20))
    future = client.scatter(df)
    total = client.submit(lambda d: int(d["w"].sum()), future).result()
    assert total == int(_data(20)["w"].sum())


def test_meta_mismatch_on_a_worker_names_partition_and_column(client):
    _, r = _frames(4)

    def text_in_partition_3(df, partition_info=None):
        return df.assign(k=df.k.astype("str")) if partition_info["number"] == 3 else df

    bad = validate_meta(r.map_partitions(text_in_partition_3, meta=r._meta))
    with pytest.raises(MetaMismatchError, match=r"partition 3 does not match the meta: column 'k' has dtype str"):
        bad.compute()


def _die_once(df, marker, partition_info=None):
    """Kill this worker process the first time partition 1 is computed (a marker file says it happened)."""
    if partition_info and partition_info["number"] == 1 and not os.path.exists(marker):
        with open(marker, "w") as f:
            f.write("killed")
        os._exit(1)
    return df.assign(w=df.w + 1)


def test_worker_killed_mid_computation_is_retried(tmp_path):
    pdf = _data(300, seed=5)
    marker = str(tmp_path / "killed")
    with dask.config.set({"dataframe.convert-string": False, "distributed.scheduler.allowed-failures": 3}):
        with LocalCluster(2, gpu=False, processes=True, dashboard_address=":0") as cluster:
            with distributed.Client(cluster) as client:
                # the helper preloads riptide.dask in each worker process (its registrations live there too)
                assert all(client.run(lambda: "riptide.dask" in __import__("sys").modules).values())
                r = dd.from_pandas(rt.from_pandas(pdf), npartitions=4)
                bumped = r.map_partitions(_die_once, marker, meta=r._meta)
                result = bumped.groupby("k").w.sum(split_out=2).compute()
                assert os.path.exists(marker)  # a worker did die
                assert isinstance(result, rt.Series)
                expected = pdf.assign(w=pdf.w + 1).groupby("k").w.sum()
                pd.testing.assert_series_equal(result.to_pandas().sort_index(), expected)
                client.wait_for_workers(2, timeout=120)  # the nanny restarted the dead worker


def test_distributed_benchmark_runs_and_reports(tmp_path):
    import io
    import json

    from riptide.benchmarks.distributed import run_distributed

    out = io.StringIO()
    with dask.config.set({"dataframe.convert-string": False}):
        result = run_distributed(20_000, workers=[1], only="groupby_q1,groupby_q3,join_q2", gpu=False,
                                 processes=False, baseline=True, json_path=str(tmp_path / "d.json"), out=out)
    assert not result.errors
    assert [t.question for t in result.timings] == ["groupby_q1", "groupby_q3", "join_q2"]
    assert all(t.median_s > 0 and t.plain_s and t.overhead for t in result.timings)
    assert "groupby_q3" in out.getvalue()
    assert json.loads((tmp_path / "d.json").read_text())["rows"] == 20_000
    with pytest.raises(KeyError, match="no distributed question"):
        run_distributed(1000, workers=[1], only="nothing*", gpu=False, processes=False, out=io.StringIO())
