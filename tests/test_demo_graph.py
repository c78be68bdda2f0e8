"""The demo's graph stage: a zone-to-zone trip graph, riptide.graph against NetworkX."""

from __future__ import annotations

import io
import sys

import numpy as np
import pandas as pd
import pytest

import riptide
from riptide.demo import STEPS, Trips, compare, make_trips, run_demo, run_pipeline
from riptide.demo.data import make_zones
from riptide.demo.pipeline import zone_graph
from riptide.demo.runner import compare_graph

pytest.importorskip("networkx")

# every step up to the graph (the model and the Parquet writer are not needed here)
UP_TO_GRAPH = [s for s in STEPS if s.stage not in ("model", "write")]


@pytest.fixture(scope="module")
def runs():
    source = make_trips(6_000, seed=5)
    return {lib.__name__: run_pipeline(lib, source, UP_TO_GRAPH) for lib in (pd, riptide)}


def test_graph_step_is_registered_after_the_model():
    names = [s.name for s in STEPS]
    assert names.index("graph") == names.index("model") + 1
    assert next(s for s in STEPS if s.name == "graph").stage == "graph"


def test_networkx_results_are_what_the_step_promises(runs):
    run = runs["pandas"]
    assert run.ok, run.error
    g, df = run.trips.graph, run.trips.df
    zones = set(df["PULocationID"]) | set(df["DOLocationID"])
    assert set(g["pagerank"]) == zones and sum(g["pagerank"].values()) == pytest.approx(1.0)
    busiest = df["PULocationID"].value_counts()
    assert busiest[g["source"]] == busiest.max() and g["source"] == busiest[busiest == busiest.max()].index.min()
    assert g["minutes"][g["source"]] == 0 and all(v >= 0 for v in g["minutes"].values())
    assert sorted(z for c in g["communities"] for z in c) == sorted(zones)
    pairs = df.groupby(["PULocationID", "DOLocationID"]).size()
    assert run.trips.summary["zone graph: edges"] == len(pairs)
    assert run.trips.summary["busiest pickup zone"] == g["source"]


def test_riptide_agrees_with_networkx(runs):
    mine, theirs = runs["riptide"], runs["pandas"]
    assert mine.ok, mine.error
    assert compare(mine.trips, theirs.trips) == []
    assert compare_graph(mine.trips.graph, theirs.trips.graph) == []
    assert mine.trips.graph["source"] == theirs.trips.graph["source"]
    assert mine.trips.graph["minutes"].keys() == theirs.trips.graph["minutes"].keys()


def test_louvain_finds_the_boroughs():
    # most generated trips stay in their pickup borough, so the communities are the boroughs
    run = run_pipeline(pd, make_trips(30_000, seed=1), UP_TO_GRAPH)
    borough = dict(zip(make_zones()["LocationID"], make_zones()["borough"]))
    communities = run.trips.graph["communities"]
    purity = sum(pd.Series([borough[z] for z in c]).value_counts().iloc[0] for c in communities) / 263
    assert purity > 0.95 and run.trips.graph["modularity"] > 0.4


def test_trips_mostly_stay_in_their_borough():
    cols = make_trips(50_000, seed=2)
    borough = make_zones()["borough"]
    same = borough[cols["PULocationID"] - 1] == borough[cols["DOLocationID"] - 1]
    assert 0.65 < same.mean() < 0.85
    counts = np.bincount(cols["PULocationID"], minlength=266)[1:]
    assert counts.max() > 5 * np.median(counts)  # busy hubs, not a uniform city


def _graph_results():
    return {
        "pagerank": {1: 0.25, 2: 0.25, 3: 0.5},
        "communities": [{1, 2}, {3}],
        "modularity": 0.3,
        "source": 1,
        "minutes": {1: 0.0, 2: 1.5, 3: 4.25},
    }


def test_compare_graph_accepts_what_each_algorithm_promises():
    want = _graph_results()
    got = _graph_results() | {
        "pagerank": {1: 0.25 + 1e-7, 2: 0.25 - 1e-7, 3: 0.5},  # within n * 1e-6 (L1)
        "communities": [{3}, {2, 1}],  # another labelling
        "modularity": 0.295,  # Louvain: within 0.01 below NetworkX
        "minutes": {np.int64(3): np.float64(4.25), 1: 0.0, 2: 1.5},
    }
    assert compare_graph(got, want) == []
    assert compare_graph(got | {"modularity": 0.5}, want) == []  # better communities are fine


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"pagerank": {1: 0.2, 2: 0.3, 3: 0.5}}, "PageRank differs"),
        ({"pagerank": {1: 0.5, 3: 0.5}}, "PageRank ranks 2 zones"),
        ({"minutes": {1: 0.0, 2: 1.5, 3: 4.3}}, "shortest path lengths differ at 1 zones, e.g. zone 3"),
        ({"minutes": {1: 0.0, 2: 1.5}}, "shortest paths reach 2 zones"),
        ({"communities": [{1, 2}, {2, 3}]}, "not a partition"),
        ({"communities": [{1, 2}]}, "not a partition"),
        ({"modularity": 0.28}, "modularity"),
    ],
)
def test_compare_graph_reports_differences(change, words):
    (problem,) = compare_graph(_graph_results() | change, _graph_results())
    assert words in problem


def test_compare_graph_needs_riptide_results():
    assert compare_graph({}, _graph_results()) == ["graph: riptide has no graph results (NetworkX has)"]


def test_graph_step_is_skipped_without_networkx(monkeypatch):
    monkeypatch.setitem(sys.modules, "networkx", None)  # `import networkx` raises ImportError
    source = make_trips(500, seed=3)
    graph_only = [s for s in STEPS if s.name in ("load", "duration", "filter", "graph")]
    for lib in (pd, riptide):
        run = run_pipeline(lib, source, graph_only)
        assert run.ok, run.error
        assert run.trips.graph == {} and "NetworkX is not installed" in run.trips.skipped["graph"]


@pytest.mark.parametrize("lib", [pd, riptide], ids=["pandas", "riptide"])
def test_graph_step_on_no_trips(lib):
    source = make_trips(0)
    t = Trips(source, df=lib.DataFrame(source).assign(duration_min=np.zeros(0)))
    zone_graph(lib, t)
    assert t.graph == {} and t.skipped["graph"] == "no trips left to build the graph from"
    assert t.summary["zone graph: edges"] == 0


def test_demo_report_shows_the_graph():
    out = io.StringIO()
    assert run_demo(2_000, seed=4, progress=False, out=out) == 0
    text = out.getvalue()
    assert "zone graph (riptide: riptide.graph, pandas: NetworkX)" in text
    assert "Louvain communities (seed 42)" in text and "modularity" in text
    assert "the zone graph against NetworkX" in text
    assert "\ngraph " in text.split("timings")[1]  # a timing row


def test_demo_report_names_skipped_steps(monkeypatch):
    monkeypatch.setitem(sys.modules, "networkx", None)
    out = io.StringIO()
    assert run_demo(1_000, seed=4, progress=False, out=out) == 0
    text = out.getvalue()
    assert "step 'graph' skipped: NetworkX is not installed" in text
    assert "zone graph (" not in text
    row = next(line for line in text.split("timings")[1].splitlines() if line.startswith("graph "))
    assert "(skipped, see above)" in row and row.split()[-3:] == ["-", "-", "-"]  # no times, no ratio
