"""``riptide demo --distributed``: the demo's clean, join and groupby stages on a Dask cluster of riptide workers."""

from __future__ import annotations

import io
import os
import sys

import numpy as np
import pandas as pd
import pytest

from riptide import _device
from riptide.cli import main
from riptide.demo import make_trips
from riptide.demo.distributed import (
    STAGES,
    MissingDask,
    compare_reports,
    run_distributed_demo,
    write_trip_parts,
)

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")


#: one worker per GPU, and a GPU test host may have only one
WORKERS = 1 if _device.is_gpu() else 2


@pytest.fixture(scope="module")
def report():
    out = io.StringIO()
    code = run_distributed_demo(8_000, workers=WORKERS, seed=1, processes=False, progress=False, out=out)
    return code, out.getvalue()


def test_distributed_demo_agrees_with_pandas(report):
    code, text = report
    assert code == 0, text[-3000:]
    header = text.splitlines()[0]
    assert header.startswith("riptide demo --distributed: 8,000 trips in "), header
    workers = "1 GPU worker (dask-cuda)" if _device.is_gpu() else "2 CPU worker threads"
    assert f"Parquet files, {workers}, seed 1" in header
    assert "check: riptide (dask) and pandas agree (3 reports, rtol 1e-09)" in text
    timings = text.split("timings")[1]
    for s in STAGES:
        assert f"\n{s.name} " in timings
    assert "riptide (dask)" in timings and "speed-up" in timings


def test_distributed_demo_prints_the_reports(report):
    _, text = report
    for name in ("by borough", "trips per zone", "zone pairs"):
        assert f"\n{name} (riptide (dask); " in text


def test_distributed_demo_without_pandas():
    out = io.StringIO()
    assert run_distributed_demo(2_000, workers=1, with_pandas=False, processes=False, progress=False, out=out) == 0
    text = out.getvalue()
    assert "check: skipped (--no-pandas)" in text
    assert "pandas" not in text.split("timings")[1].splitlines()[1]


def test_write_trip_parts_splits_the_rows(tmp_path):
    source = make_trips(103, seed=2)
    paths = write_trip_parts(source, str(tmp_path), 4)
    assert [os.path.basename(p) for p in paths] == [f"part-{i:03d}.parquet" for i in range(4)]
    back = pd.read_parquet(tmp_path)
    assert [len(pd.read_parquet(p)) for p in paths] == [25, 26, 26, 26]
    np.testing.assert_array_equal(back["trip_id"].to_numpy(), source["trip_id"])
    np.testing.assert_array_equal(back["fare_amount"].to_numpy(), source["fare_amount"])


def test_compare_reports_sorts_rows_and_finds_differences():
    want = {"r": pd.DataFrame({"n": [1, 2, 3]}, index=pd.Index(["a", "b", "c"], name="k"))}
    shuffled = {"r": want["r"].iloc[[2, 0, 1]]}
    assert compare_reports(shuffled, want) == []
    wrong = {"r": want["r"].assign(n=[1, 2, 4])}
    (problem,) = compare_reports(wrong, want)
    assert problem.startswith("report 'r':") and "n" in problem
    (problem,) = compare_reports({}, want)
    assert "missing" in problem


def test_bad_worker_count():
    with pytest.raises(ValueError, match="workers"):
        run_distributed_demo(100, workers=0, processes=False, out=io.StringIO())


def test_missing_dask_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` raises ImportError
    with pytest.raises(MissingDask, match=r"needs dask and distributed .*pip install 'riptide\[dask\]'"):
        run_distributed_demo(100, out=io.StringIO())
    assert main(["demo", "--distributed", "--rows", "100"]) == 2
    err = capsys.readouterr().err
    assert "riptide demo: error: riptide demo --distributed needs dask and distributed" in err


def test_cli_workers_needs_distributed(capsys):
    assert main(["demo", "--workers", "2", "--rows", "100"]) == 2
    assert "--workers goes with --distributed" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["demo", "--distributed", "--workers", "0"])
