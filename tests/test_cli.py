"""The ``riptide`` command (info, demo, bench), the demo's pieces and the benchmark harness."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from riptide.benchmarks import harness
from riptide.benchmarks.harness import Case, Context, Timing, measure, self_timed
from riptide.cli import format_info, main, parse_count
from riptide.demo import STEPS, make_trips, run_pipeline
from riptide.demo.progress import Progress


def _run_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``riptide ARGS`` in a fresh interpreter, with this process's environment (so RIPTIDE_DEVICE carries over)."""
    return subprocess.run(
        [sys.executable, "-m", "riptide.cli", *args], capture_output=True, text=True, timeout=timeout, check=False
    )


# --- argument parsing ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "value"), [("2000", 2000), ("1_000_000", 1_000_000), ("1e6", 1_000_000), ("0", 0)])
def test_parse_count(text, value):
    assert parse_count(text) == value


@pytest.mark.parametrize("text", ["-1", "1.5", "ten", "1e-3"])
def test_parse_count_rejects(text):
    with pytest.raises(argparse.ArgumentTypeError):
        parse_count(text)


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2
    assert "usage: riptide" in capsys.readouterr().err


# --- riptide info ------------------------------------------------------------------------------------------------


def test_info_prints_device_and_versions(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    for word in ("riptide", "device", "gpu", "numpy", "pandas", "pyarrow"):
        assert word in out


def test_info_json_is_device_info(capsys):
    from riptide import _device

    assert main(["info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["device"] == _device.device_info()["device"]
    assert info["numpy"] == np.__version__


def test_info_formats_a_gpu():
    text = format_info(
        {
            "device": "gpu",
            "device_option": "auto",
            "numpy": "2.4",
            "pandas": "3.1",
            "pyarrow": "26.0",
            "gpu": "NVIDIA H200",
            "gpu_count": 1,
            "compute_capability": "9.0",
            "memory_total_bytes": 150 * 2**30,
            "memory_free_bytes": 149 * 2**30,
            "cupy": "13.6.0",
            "cuda_runtime": 13000,
            "cuda_driver": 13010,
            "memory_limit": None,
        }
    )
    assert "NVIDIA H200, compute capability 9.0" in text
    assert "150.0 GiB total, 149.0 GiB free, pool limit none" in text
    assert "runtime 13.0, driver 13.1" in text
    assert "cupy 13.6.0" in text


def test_info_in_a_fresh_process():
    done = _run_cli("info")
    assert done.returncode == 0, done.stderr
    assert "device" in done.stdout and "versions" in done.stdout


# --- riptide demo ------------------------------------------------------------------------------------------------


def test_demo_runs_and_agrees_with_pandas():
    done = _run_cli("demo", "--rows", "2000")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert "riptide demo: 2,000 trips" in out
    assert "check: riptide and pandas agree" in out
    for s in STEPS:
        assert f"\n{s.name} " in out  # one timing row per step
    assert "speed-up" in out and "total" in out


def test_demo_without_pandas(capsys):
    assert main(["demo", "--rows", "500", "--no-pandas", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "check: skipped" in out
    assert "pandas" not in out.split("timings")[1].splitlines()[1]  # no pandas column in the timing table


def test_demo_distributed_in_a_fresh_process():
    pytest.importorskip("distributed")
    done = _run_cli("demo", "--distributed", "--workers", "1", "--rows", "3000", "--no-progress")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "1 CPU worker process," in done.stdout or "1 GPU worker (dask-cuda)," in done.stdout
    assert "check: riptide (dask) and pandas agree" in done.stdout


def test_trips_have_the_warts_the_pipeline_cleans():
    cols = make_trips(20_000, seed=1)
    assert all(len(v) == 20_000 for v in cols.values())
    assert cols["pickup"].dtype == np.dtype("datetime64[ns]")
    assert np.isnan(cols["passenger_count"]).any()
    assert np.isnan(cols["trip_distance"]).any() and (cols["trip_distance"] <= 0).any()
    assert (cols["fare_amount"] < 0).any()
    assert (cols["dropoff"] < cols["pickup"]).any()
    assert any(v is None for v in cols["payment_type"])
    assert cols["PULocationID"].min() >= 1 and cols["PULocationID"].max() <= 265
    np.testing.assert_array_equal(make_trips(100, seed=1)["fare_amount"], make_trips(100, seed=1)["fare_amount"])


def test_pipeline_with_pandas_cleans_the_trips():
    run = run_pipeline(pd, make_trips(5_000, seed=2), library="pandas")
    assert run.ok, run.error
    df = run.trips.df
    assert list(run.seconds) == [s.name for s in STEPS]
    assert (df["trip_distance"] > 0).all() and (df["duration_min"] > 0).all()
    assert df["payment_type"].notna().all() and df["passenger_count"].dtype == np.int64
    assert run.trips.summary["trips"] == len(df)
    assert list(run.trips.describe.columns) == ["trip_distance", "duration_min", "speed_mph", "fare_amount", "tip_pct"]


def test_pipeline_records_the_failing_step():
    class Broken:
        __name__ = "broken"

        def DataFrame(self, data):  # noqa: N802 - stands in for a module's DataFrame
            raise TypeError("no frames here")

    run = run_pipeline(Broken(), make_trips(10))
    assert not run.ok and run.failed_step == "load" and isinstance(run.error, TypeError)
    assert run.seconds == {}


# --- progress bar ------------------------------------------------------------------------------------------------


def test_progress_draws_only_for_slow_steps():
    stream = io.StringIO()
    bar = Progress(total=2, stream=stream, enabled=True, delay=0.05, interval=0.01)
    with bar.step("quick"):
        pass
    assert stream.getvalue() == ""
    with bar.step("slow one"):
        time.sleep(0.3)
    text = stream.getvalue()
    assert "slow one" in text and "2/2" in text and "[##########----------]" in text
    assert text.endswith("\r")  # the line is wiped when the step ends
    assert bar.done == 2


def test_progress_off_the_terminal_writes_nothing():
    stream = io.StringIO()  # not a tty
    bar = Progress(total=1, stream=stream, delay=0.0, interval=0.01)
    with bar.step("slow"):
        time.sleep(0.05)
    assert stream.getvalue() == "" and bar.done == 1


# --- benchmark harness --------------------------------------------------------------------------------------------


class FakeClock:
    """Each fn call advances the clock by the next of ``durations``."""

    def __init__(self, durations):
        self.now = 0.0
        self.durations = list(durations)
        self.calls = 0

    def __call__(self):
        return self.now

    def fn(self):
        self.now += self.durations[self.calls]
        self.calls += 1


def test_measure_warms_up_then_takes_median_min_max():
    clock = FakeClock([100.0, 100.0, 3.0, 1.0, 2.0, 5.0, 4.0])  # the two slow warm-up calls are not counted
    syncs = []
    t = measure(clock.fn, repeat=5, warmup=2, sync=lambda: syncs.append(clock.calls), clock=clock)
    assert clock.calls == 7
    assert t.times == [3.0, 1.0, 2.0, 5.0, 4.0]
    assert (t.median, t.min, t.max) == (3.0, 1.0, 5.0)
    assert syncs.count(2) >= 1 and len(syncs) == 2 + 2 * 5  # after each warm-up, before and after each run


def test_measure_divides_by_calls_and_trusts_self_timed_thunks():
    clock = FakeClock([8.0, 8.0])
    assert measure(clock.fn, repeat=2, warmup=0, calls=4, clock=clock).times == [2.0, 2.0]
    seconds = iter([9.0, 0.5, 0.25, 0.75])
    t = measure(self_timed(lambda: next(seconds)), repeat=3, warmup=1, warmup_seconds=0)
    assert t.times == [0.5, 0.25, 0.75] and t.median == 0.5


def test_measure_warms_up_for_a_minimum_time():
    """Calls shorter than the warm-up time: more warm-up calls until it has passed after the first call, which may
    compile kernels (none when warmup is 0)."""
    clock = FakeClock([0.125] * 4 + [1.0, 2.0])  # (binary fractions: exact clock sums)
    t = measure(clock.fn, repeat=2, warmup=1, clock=clock, warmup_seconds=0.4)
    assert clock.calls == 6 and t.times == [1.0, 2.0]
    clock = FakeClock([5.0, 1.0, 2.0])  # a slow peer: its one slow warm-up call is enough
    assert measure(clock.fn, repeat=2, warmup=1, clock=clock, warmup_seconds=0.4).times == [1.0, 2.0]
    clock = FakeClock([5.0] + [0.125] * 4 + [1.0, 2.0])  # compiles: the first call does not count towards the time
    t = measure(clock.fn, repeat=2, warmup=1, clock=clock, warmup_seconds=0.4, compiles=True)
    assert clock.calls == 7 and t.times == [1.0, 2.0]
    clock = FakeClock([0.125, 0.25])
    assert measure(clock.fn, repeat=2, warmup=0, clock=clock, warmup_seconds=10).times == [0.125, 0.25]


def test_measure_needs_a_repeat():
    with pytest.raises(ValueError, match="repeat"):
        measure(lambda: None, repeat=0)


def test_timing_median_of_an_even_count():
    assert Timing([4.0, 1.0, 3.0, 2.0]).median == 2.5


class Tiny(Case):
    name = "tiny"
    title = "a + 1"

    def data(self, ctx):
        return ctx.rng().random(ctx.rows)

    def bytes_moved(self, a):
        return 2 * a.nbytes

    def riptide(self, a):
        import riptide as rt

        s = rt.Series(a)
        return lambda: s + 1

    def pandas(self, a):
        s = pd.Series(a)
        return lambda: s + 1

    def polars(self, a):
        raise RuntimeError("polars left out on purpose")


def test_run_cases_times_each_library_and_records_failures():
    results = harness.run_cases([Tiny()], Context(rows=1_000, repeat=3), libraries=("riptide", "pandas", "polars"))
    (r,) = results
    assert set(r.timings) == {"riptide", "pandas"}
    assert all(len(t.times) == 3 and t.median > 0 for t in r.timings.values())
    assert r.bytes_moved == 16_000 and r.bandwidth() > 0 and r.speedup("pandas") > 0
    assert r.errors == {"polars": "RuntimeError: polars left out on purpose"}
    assert r.goal_met() is None  # no reference figures


def test_peer_repeat_times_peers_once_each_without_warm_up():
    calls = {"riptide": 0, "pandas": 0}

    class Counted(Tiny):
        def riptide(self, a):
            def thunk():
                calls["riptide"] += 1

            return thunk

        def pandas(self, a):
            def thunk():
                calls["pandas"] += 1

            return thunk

    (r,) = harness.run_cases([Counted()], Context(rows=10, repeat=3), libraries=("riptide", "pandas"), warmup=1,
                             peer_repeat=2)  # fmt: skip
    assert len(r.timings["riptide"].times) == 3 and calls["riptide"] >= 4  # warm-up, then the repeats
    assert len(r.timings["pandas"].times) == 2 and calls["pandas"] == 2  # no warm-up at all


def test_peer_limit_stops_a_slow_peer_and_gives_a_lower_bound():
    import time

    class Slow(Tiny):
        def riptide(self, a):
            return lambda: None

        def pandas(self, a):
            def forever():
                while True:  # Python code: the limit's signal interrupts it
                    time.sleep(0.001)

            return forever

    out = io.StringIO()
    printer = harness._TablePrinter(out, ["pandas"], 1e9, 1, with_reference=False)
    (r,) = harness.run_cases([Slow()], Context(rows=10, repeat=3), libraries=("riptide", "pandas"), warmup=0,
                             peer_repeat=2, peer_limit=0.05, on_result=printer.row)  # fmt: skip
    t = r.timings["pandas"]
    assert t.cut_off and len(t.times) == 1 and 0.05 <= t.times[0] < 1.0  # one call, stopped at the limit
    assert r.cut_off("pandas") and not r.cut_off("riptide") and r.speedup("pandas") > 0
    import re

    assert re.search(r"> 5\d\.\d ms .*> [\d.,]+x", out.getvalue())  # the time and the ratio are lower bounds


def test_peer_limit_restores_the_signal_handler_and_is_not_swallowed():
    import signal
    import time

    before = signal.getsignal(signal.SIGALRM)

    def swallowing():
        while True:
            try:
                time.sleep(0.001)
            except Exception:  # a peer's own broad handler must not catch the cut-off
                return "swallowed"

    assert harness._limited_call(swallowing, 0.05) == (None, True)
    assert harness._limited_call(lambda: 7, 5.0) == (7, False)
    assert signal.getsignal(signal.SIGALRM) is before
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="positive number of seconds"):
            harness._limited_call(lambda: None, bad)
        assert signal.getsignal(signal.SIGALRM) is before
    with pytest.raises(SystemExit):
        main(["bench", "--peer-limit", "0"])


def test_a_peer_cut_off_below_the_goal_ratio_cannot_judge_the_goal():
    ref = harness.Reference(pandas=None, cudf=None, goal=None, min_speedup=(("networkx", 300),), rows=None)
    case = Tiny()
    case.reference = ref
    r = harness.CaseResult(case, 10, "10", None, timings={"riptide": Timing([1.0]),
                                                           "networkx": Timing([60.0], cut_off=True)})  # fmt: skip
    assert r.speedup("networkx") == 60.0 and r.goal_met() is None  # the true ratio may still be >= 300
    r.timings["networkx"] = Timing([600.0], cut_off=True)
    assert r.goal_met() is True  # a lower bound past the goal meets it
    r.timings["networkx"] = Timing([60.0])
    assert r.goal_met() is False


def test_peak_memory_is_reported_against_a_footprint():
    class Allocates(Tiny):
        def riptide(self, a):
            from riptide import _device

            xp = _device.xp()  # what peak_memory watches: the device's pool on a GPU, tracemalloc on the CPU
            return harness.with_footprint(lambda: xp.ones(1_000_000), 4_000_000, "input", 3.0)

    out = io.StringIO()
    printer = harness._TablePrinter(out, [], 1e9, 1, with_reference=False)
    (r,) = harness.run_cases([Allocates()], Context(rows=10, repeat=1), libraries=("riptide",), warmup=0,
                             on_result=printer.row)  # fmt: skip
    printer.footer([r])
    assert r.peak_bytes >= 8_000_000 and r.footprint == (4_000_000, "input", 3.0)
    assert 2.0 <= r.peak_ratio() < 2.5
    assert "= 2." in out.getvalue() and "the input (4 MB) (goal <= 3x: yes)" in out.getvalue()


def test_cases_are_registered_and_selected_by_name_or_glob():
    cases = harness.load_cases()
    assert {"mul_add", "sum", "filter", "from_pandas", "to_pandas", "small_add", "import"} <= set(cases)
    assert [c.name for c in harness.select_cases(cases, "sum, *_pandas")] == ["sum", "from_pandas", "to_pandas"]
    with pytest.raises(KeyError, match="nope"):
        harness.select_cases(cases, "nope")


def test_formatting():
    assert harness.fmt_count(100_000_000) == "1e8"
    assert harness.fmt_count(123_456) == "123,456"
    assert harness.fmt_seconds(0.000082) == "82.0 us"
    assert harness.fmt_seconds(0.00328) == "3.28 ms"
    assert harness.fmt_seconds(0.521) == "521 ms"
    assert harness.fmt_seconds(2.2) == "2.20 s"


def test_bench_command_writes_json(tmp_path, capsys):
    path = tmp_path / "bench.json"
    argv = ["bench", "--rows", "2000", "--repeat", "2", "--calls", "10", "--peers", "pandas", "--json", str(path)]
    assert main([*argv, "--only", "mul_add,sum,filter,small_add,to_pandas,from_pandas"]) == 0
    out = capsys.readouterr().out
    assert "device copy rate" in out and "a*b + a" in out
    report = json.loads(path.read_text())
    assert report["settings"]["rows"] == 2000 and report["copy_rate"]["bytes_per_s"] > 0
    by_name = {c["name"]: c for c in report["cases"]}
    assert set(by_name) == {"mul_add", "sum", "filter", "small_add", "to_pandas", "from_pandas"}
    mul_add = by_name["mul_add"]
    assert mul_add["bytes_moved"] == 3 * 8 * 2000
    assert mul_add["results"]["riptide"]["median_s"] > 0 and len(mul_add["results"]["riptide"]["times_s"]) == 2
    assert 0 < mul_add["results"]["riptide"]["fraction_of_copy_rate"]
    assert mul_add["speedup"]["pandas"] > 0
    assert by_name["small_add"]["calls_per_thunk"] == 10
    assert "pandas" not in by_name["from_pandas"]["results"]  # pandas has nothing to time there


def test_bench_rejects_an_unknown_case(capsys):
    assert main(["bench", "--only", "no_such_case"]) == 2
    assert "no benchmark case matches 'no_such_case'" in capsys.readouterr().err


def test_bench_lists_cases(capsys):
    assert main(["bench", "--list"]) == 0
    assert "import riptide" in capsys.readouterr().out


def test_python_dash_m_benchmarks_is_riptide_bench():
    done = subprocess.run(
        [sys.executable, "-m", "riptide.benchmarks", "--list"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "mul_add" in done.stdout


def test_import_case_times_a_fresh_interpreter():
    from riptide.benchmarks.cases_core import _import_seconds

    assert 0 < _import_seconds("json") < 5
    with pytest.raises(RuntimeError, match="no_such_module"):
        _import_seconds("no_such_module")


@pytest.mark.skipif(os.name != "posix", reason="bash script")
def test_ci_script_is_executable_and_finds_the_readme_command():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = os.path.join(root, ".ci", "run")
    if not os.path.exists(script):  # e.g. tests run from an installed copy
        pytest.skip("no .ci/run beside the tests")
    assert os.access(script, os.X_OK)
    with open(os.path.join(root, "README.md")) as f:
        readme = f.read()
    block = readme.split("<!-- test-command")[1].split("```")[1]  # "sh\n<the command>\n"
    (command,) = block.strip().splitlines()[1:]
    assert "python3 -m venv" in command and "pytest" in command


def test_goal_is_judged_only_at_the_reference_size():
    from riptide.benchmarks.harness import CaseResult, Reference

    class Ref(Case):
        name = "ref"
        reference = Reference(pandas=1.0, cudf=0.1, goal=0.01)

    def result(rows, seconds):
        return CaseResult(Ref(), rows, "", None, timings={"riptide": Timing([seconds])})

    assert result(100_000_000, 0.005).goal_met() is True
    assert result(100_000_000, 0.02).goal_met() is False
    assert result(1_000, 0.005).goal_met() is None
