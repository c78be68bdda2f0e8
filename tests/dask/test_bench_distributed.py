"""``riptide bench --distributed``'s SVD questions and answer checks (riptide/benchmarks/distributed.py) on CPU
LocalClusters of threads: the svd questions are timed and checked against the Gram-matrix route, ``check=True``
verifies the groupby answers with the bincount oracle, and each check catches a wrong answer (a missing group, a
wrong sum, a slightly wrong mean, a repeated key, wrong singular values), which the CLI reports with exit code 1.
The helper-level tests run on Dask's synchronous scheduler."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

from riptide import _device
from riptide.benchmarks import distributed as bench
from riptide.cli import main


@pytest.fixture(autouse=True)
def _plain_strings():
    with dask.config.set({"dataframe.convert-string": False}):
        yield


@pytest.fixture
def sync():
    with dask.config.set({"scheduler": "sync"}):
        yield


def _run(**options):
    out = io.StringIO()
    result = bench.run_distributed(gpu=False, processes=False, out=out, **options)
    return result, out.getvalue()


def _question(name):
    return next(q for q in bench.QUESTIONS if q.name == name)


# --- end to end on a LocalCluster of threads ------------------------------------------------------------------------


def _one_blas_thread():
    """Threaded workers each calling a multi-threaded BLAS oversubscribe a small CI machine (seconds lost)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(1)


def test_svd_questions_are_timed_and_checked(tmp_path):
    path = tmp_path / "svd.json"
    with _one_blas_thread():
        result, text = _run(workers=[1, 2], only="svd*", svd_rows=6_000, svd_cols=12, json_path=str(path))
    assert not result.errors
    assert result.right is True
    assert [(t.question, t.workers) for t in result.timings] == [("svd", 1), ("svd_compressed", 1), ("svd", 2),
                                                                 ("svd_compressed", 2)]  # fmt: skip
    for t in result.timings:
        assert t.right is True and "s_max" in t.check
        assert t.data_bytes == 6_000 * 12 * 4
        passes = 2 * bench.SVD_POWER_ITER + 2 if t.question == "svd_compressed" else 1
        assert t.throughput == pytest.approx(t.data_bytes * passes / t.median_s)
        assert t.plain_s is None and t.goal is None and t.time_goal_s is None  # no speed-up goal; time goal on GPUs
    assert all(t.speedup is not None for t in result.timings if t.workers == 2)
    assert "svd: 6,000 x 12 float32" in text
    assert "right answer: yes (4 of 4" in text
    saved = json.loads(path.read_text())
    assert saved["right"] is True and saved["svd_shape"] == [6_000, 12]
    assert saved["timings"][0]["check"].startswith("max |s - s_gram|")


def test_check_verifies_groupby_answers():
    result, text = _run(rows=12_000, workers=[2], only="groupby_q2,groupby_q3,groupby_q4", check=True)
    assert not result.errors
    assert result.checked and result.right is True
    assert [t.question for t in result.timings] == ["groupby_q2", "groupby_q3", "groupby_q4"]
    for t in result.timings:
        assert t.right is True and "groups, max relative error" in t.check
        assert t.data_bytes == 12_000 * 9 * 8  # nine 8-byte columns
        assert t.throughput == pytest.approx(t.data_bytes / t.median_s)
        assert t.spilled == 0  # CPU workers: distributed's spill buffer, nothing on disk at this size
    assert "right answer: yes (3 of 3" in text
    assert "12,000 rows" in text


def test_without_check_groupby_and_join_answers_are_not_judged():
    result, text = _run(rows=4_000, workers=[1], only="groupby_q1,join_q1")
    assert not result.errors
    assert [t.right for t in result.timings] == [None, None]
    assert result.right is None
    assert "right answer" not in text
    assert result.timings[1].data_bytes == 4_000 * 4 * 8 + 10 * 2 * 8  # x and the small table


def _double_v1(frame):
    return frame.assign(v1=frame["v1"] * 2)


def test_a_wrong_answer_is_reported_and_the_cli_fails(monkeypatch, capsys, tmp_path):
    good = _question("groupby_q1")
    bad = dataclasses.replace(good, name="groupby_bad",
                              run=lambda t, so: good.run(t, so).map_partitions(_double_v1))  # fmt: skip
    monkeypatch.setattr(bench, "QUESTIONS", [*bench.QUESTIONS, bad])
    real_cluster = bench._cluster
    monkeypatch.setattr(bench, "_cluster", lambda n, gpu, limit, processes: real_cluster(n, False, limit, False))
    path = tmp_path / "bad.json"
    code = main(["bench", "--distributed", "--rows", "4000", "--workers", "1", "--only", "groupby_bad", "--check",
                 "--json", str(path)])  # fmt: skip
    text = capsys.readouterr().out
    assert code == 1
    assert "right answer: no (0 of 1" in text
    assert "groupby_bad@1: wrong answer: 100 groups missing from the data or with wrong values" in text
    assert json.loads(path.read_text())["right"] is False


def test_cli_options(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--distributed", "--svd-rows", "0"])
    assert "must be >= 1" in capsys.readouterr().err
    assert main(["bench", "--distributed", "--workers", "1,0"]) == 2
    assert "--workers: must be >= 1" in capsys.readouterr().err
    assert main(["bench", "--distributed", "--workers", "two"]) == 2
    assert "--workers: not a count" in capsys.readouterr().err
    with pytest.raises(ValueError, match="worker counts must be >= 1"):
        bench.run_distributed(1000, workers=[0], gpu=False, processes=False, out=io.StringIO())
    assert main(["bench", "--distributed", "--only", "nothing*"]) == 2
    assert "no distributed question" in capsys.readouterr().err


# --- the checks themselves (synchronous scheduler) -------------------------------------------------------------------


ROWS, PARTS, SEED = 3_000, 3, 4


def _groupby_answer(name, perturb=None):
    tables = {"x": bench.generate_groupby(ROWS, PARTS, SEED)}
    result = _question(name).run(tables, 2)
    if perturb is not None:
        result = result.map_partitions(perturb, meta=result._meta)
    return bench._check_groupby(_question(name), result, ROWS, PARTS, SEED)


def _drop_first(frame):
    return frame.iloc[1:]


def _add_one(frame):
    return frame.assign(v1=frame["v1"] + 1)


def _add_one_to_the_first(frame):
    if len(frame) == 0:
        return frame
    import riptide as rt

    bump = np.zeros(len(frame), dtype=np.int64)
    bump[0] = 1
    return frame.assign(v1=frame["v1"] + rt.Series(bump, index=frame.index))


def _mean_off(relative):
    def perturb(frame):
        return frame.assign(v3=frame["v3"] * (1.0 + relative))

    return perturb


def _repeat_first_drop_second(frame):
    if len(frame) < 2:
        return frame
    return frame.iloc[np.r_[0, 0, 2 : len(frame)]]


@pytest.mark.parametrize("name", ["groupby_q1", "groupby_q2", "groupby_q3", "groupby_q4", "groupby_q5"])
def test_groupby_check_accepts_the_right_answers(sync, name):
    right, detail = _groupby_answer(name)
    assert right, detail


@pytest.mark.parametrize(
    ("name", "perturb", "message"),
    [
        ("groupby_q3", _drop_first, "groups, expected"),
        ("groupby_q5", _add_one, "wrong values"),
        ("groupby_q2", _add_one, "wrong values"),
        ("groupby_q1", _add_one_to_the_first, "1 groups missing from the data or with wrong values"),
        ("groupby_q3", _mean_off(1e-6), "wrong values"),
        ("groupby_q4", _mean_off(1e-6), "wrong values"),
        ("groupby_q1", _repeat_first_drop_second, "set of group keys differs"),
    ],
)
def test_groupby_check_catches_wrong_answers(sync, name, perturb, message):
    right, detail = _groupby_answer(name, perturb)
    assert not right
    assert message in detail


def test_groupby_check_tolerates_rounding(sync):
    right, detail = _groupby_answer("groupby_q3", _mean_off(1e-12))
    assert right, detail


def test_svd_check(sync):
    X = bench.generate_svd(2_000, 8, 500, seed=3)
    tables = {"X": X}
    s = da.linalg.svd(X)[1]
    assert bench._check_svd(s, tables)[0]
    assert "svd-reference" in tables  # computed once, shared by the svd questions
    wrong, detail = bench._check_svd(s * 1.001, tables)
    assert not wrong and "tolerance" in detail
    short, detail = bench._check_svd(s[:5], tables)
    assert short  # svd_compressed's k values are compared with the k largest
    assert not bench._check_svd(s * np.nan, tables)[0]


def test_generate_svd_chunks(sync):
    X = bench.generate_svd(1_050, 6, 300, seed=1)
    assert X.shape == (1_050, 6) and X.dtype == np.float32
    assert X.chunks == ((263, 263, 262, 262), (6,))
    assert isinstance(X._meta, _device.xp().ndarray)  # the workers' array type: CuPy on a GPU
    first, again = _device.to_host(X.compute()), _device.to_host(X.compute())
    np.testing.assert_array_equal(first, again)  # each chunk from its own seed: the same array every time
    assert not np.array_equal(first[:262], first[263:525])
    scale = np.abs(first).mean(axis=0)
    assert scale[2] > 4 * scale[3]  # the planted gap: min(10, cols // 2) = 3 columns scaled by 10
    assert not np.array_equal(first, _device.to_host(bench.generate_svd(1_050, 6, 300, seed=2).compute()))


def test_key_code_and_hash():
    code, valid = bench._key_code([np.array([1, 100, 0, 3]), np.array([1, 2, 5, 101])], (100, 100), np)
    assert valid.tolist() == [True, True, False, False]
    assert code.tolist() == [1 * 101 + 1, 100 * 101 + 2, 0, 0]
    hashed = bench._mix(np.arange(100_000), np)
    assert hashed.dtype == np.uint64 and np.unique(hashed).size == 100_000


def test_svd_chunks_are_placed_round_robin():
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:  # fmt: skip
        lazy = bench.generate_svd(400, 6, chunk_rows=50, seed=3)
        X = bench.place_svd(client, lazy, seed=3).persist()
        distributed.wait(X)
        holders = client.who_has(X)
        per_worker = {}
        for key, where in holders.items():
            assert len(where) == 1, key
            per_worker[where[0]] = per_worker.get(where[0], 0) + 1
        assert sorted(per_worker.values()) == [4, 4]
        # the same chunks, placed
        np.testing.assert_array_equal(_device.to_host(X.compute()), _device.to_host(lazy.compute(scheduler="sync")))
