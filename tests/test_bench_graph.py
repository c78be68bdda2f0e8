"""The graph benchmark cases (riptide/benchmarks/cases_graph.py) build and run at tiny sizes, and riptide's
answers agree with NetworkX's on the same edge lists."""

from __future__ import annotations

import io

import networkx as nx
import numpy as np
import pytest

from riptide.benchmarks import cases_graph
from riptide.benchmarks.harness import (
    CASES,
    PEERS,
    Context,
    load_cases,
    run_bench,
    run_cases,
)
from riptide.graph.results import NodeMap

NAMES = ["pagerank_1e7", "pagerank_nx", "bfs_1e7", "wcc_1e8", "graph_build_str"]
CTX = Context(rows=20_000, repeat=1)


def test_cases_are_registered_with_the_issue_goals():
    load_cases()
    assert all(name in CASES for name in NAMES) and "networkx" in PEERS
    assert CASES["pagerank_1e7"].reference.goal == pytest.approx(0.015)
    assert CASES["pagerank_nx"].reference.min_speedup == (("networkx", 500),)
    assert CASES["bfs_1e7"].reference.goal == pytest.approx(0.020)
    assert CASES["wcc_1e8"].reference.goal == pytest.approx(0.100)
    assert CASES["graph_build_str"].reference.goal == pytest.approx(2.0)
    # sizes at --rows 1e8 follow the issue
    big = Context(rows=10**8)
    assert (CASES["pagerank_1e7"].nodes(big), CASES["pagerank_1e7"].edges(big)) == (10**6, 10**7)
    assert CASES["pagerank_nx"].edges(big) == 10**6 and CASES["bfs_1e7"].edges(big) == 10**7
    assert CASES["wcc_1e8"].edges(big) == 10**8 and CASES["graph_build_str"].edges(big) == 10**8


def test_power_law_edges_are_skewed_and_in_range():
    src, dst = cases_graph.power_law_edges(np.random.default_rng(1), 1000, 20_000)
    assert src.dtype == np.int64 and src.min() >= 0 and max(src.max(), dst.max()) < 1000
    degrees = np.sort(np.bincount(np.concatenate([src, dst]), minlength=1000))[::-1]
    assert degrees[0] > 10 * np.median(degrees)  # hubs: a heavy tail, not a uniform graph
    assert not np.array_equal(np.argsort(np.bincount(src, minlength=1000))[-10:], np.arange(990, 1000))


def test_pagerank_cases_agree_with_networkx():
    for name in ("pagerank_1e7", "pagerank_nx"):
        case = CASES[name]
        data = case.data(CTX)
        got = case.riptide(data)()
        assert isinstance(got, NodeMap) and got._host is None  # the timed call reads nothing back
        expected = nx.pagerank(cases_graph.networkx_graph(data), backend="networkx")
        assert got.keys() == expected.keys() and got == pytest.approx(expected, abs=1e-9)
    case = CASES["pagerank_nx"]
    assert case.networkx(data)() == pytest.approx(expected, abs=1e-12)


def test_bfs_case_agrees_with_networkx():
    case = CASES["bfs_1e7"]
    data = case.data(CTX)
    got = case.riptide(data)()
    expected = nx.single_source_shortest_path_length(cases_graph.networkx_graph(data), cases_graph.source_node(data))
    assert isinstance(got, NodeMap) and got == expected and len(expected) > 100


def test_wcc_case_agrees_with_networkx():
    case = CASES["wcc_1e8"]
    data = case.data(CTX)
    assert case.riptide(data)() == nx.number_weakly_connected_components(cases_graph.networkx_graph(data))


def test_string_build_case_agrees_with_networkx():
    case = CASES["graph_build_str"]
    data = case.data(CTX)
    G = case.riptide(data)()
    H = cases_graph.networkx_graph({k: np.char.add("user-", data[k].astype(str)) for k in ("source", "target")}, False)
    assert G.number_of_nodes() == H.number_of_nodes() and G.number_of_edges() == H.number_of_edges()
    assert list(G)[:50] == list(H)[:50] and G.degree["user-" + str(data["source"][0])] == H.degree[next(iter(H))]


def test_cases_run_through_the_harness():
    load_cases()
    cases = [CASES[name] for name in NAMES]
    results = run_cases(cases, Context(rows=2_000, repeat=1), libraries=("riptide", "networkx"), warmup=0)
    for r in results:
        assert not r.errors, (r.case.name, r.errors)
        assert "riptide" in r.timings
    assert [r.case.name for r in results if "networkx" in r.timings] == ["pagerank_nx"]
    out = io.StringIO()
    assert run_bench(rows=2_000, repeat=1, warmup=0, only="pagerank_nx", peers=("networkx",), out=out) == 0
    assert "networkx" in out.getvalue() and "vs networkx" in out.getvalue()
