"""riptide.graph's shortest paths against NetworkX: distances, paths (the same tie-breaking as NetworkX's heap),
key order, cutoffs, the generic shortest_path/shortest_path_length entry points and their errors."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riptide.graph as rg
from riptide.graph.exceptions import NodeNotFound
from riptide.graph.exceptions import NetworkXNoPath, NetworkXUnbounded
from riptide.graph.shortest_paths import sssp_distances

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def weighted_graphs(draw, weights=("int", "float", "zero", "none")):
    """A G(n, p) edge list with weights drawn as small ints (many ties), floats, ints with zeros, or absent."""
    n = draw(st.integers(1, 18))
    p = draw(st.sampled_from([0.08, 0.2, 0.4]))
    seed = draw(st.integers(0, 2**31 - 1))
    directed = draw(st.booleans())
    kind = draw(st.sampled_from(weights))
    rng = np.random.default_rng(seed)
    src, dst = np.nonzero(rng.random((n, n)) < p)
    order = rng.permutation(src.size)
    names = rng.permutation(n).tolist() if draw(st.booleans()) else [f"n{i}" for i in range(n)]
    edges = []
    for a, b in zip(src[order], dst[order]):
        if kind == "int":
            data = {"weight": int(rng.integers(1, 4))}
        elif kind == "float":
            data = {"weight": float(np.round(rng.random() * 3, 2)) + 0.01}
        elif kind == "zero":
            data = {"weight": int(rng.integers(0, 3))}
        else:
            data = {}
        edges.append((names[a], names[b], data))
    edges = edges or [(names[0], names[-1], {})]
    H = nx.from_edgelist(edges, create_using=nx.DiGraph if directed else nx.Graph)
    return rg.from_edgelist(edges, create_using=rg.DiGraph if directed else rg.Graph), H


def _close(got, expected):
    assert list(got) == list(expected)
    for key in expected:
        assert math.isclose(got[key], expected[key], rel_tol=1e-12, abs_tol=1e-12), key


@SETTINGS
@given(weighted_graphs(), st.sampled_from([None, 1, 2.5]), st.data())
def test_dijkstra_matches_networkx(pair, cutoff, data):
    G, H = pair
    source = data.draw(st.sampled_from(list(H)))
    dist, paths = rg.single_source_dijkstra(G, source, cutoff=cutoff)
    xdist, xpaths = nx.single_source_dijkstra(H, source, cutoff=cutoff)
    _close(dist, xdist)  # same keys in the same (heap pop) order
    assert list(paths.items()) == list(xpaths.items())  # same tie-breaking, keys in pop order
    got = rg.single_source_dijkstra_path_length(G, source, cutoff=cutoff)
    assert dict(got) == pytest.approx(nx.single_source_dijkstra_path_length(H, source, cutoff=cutoff))
    assert list(got.values()) == sorted(got.values())  # documented order: by distance
    assert all(type(got[k]) is type(xdist[k]) for k in xdist if k != source)  # ints for int weights, as NetworkX
    assert rg.single_source_dijkstra_path(G, source, cutoff=cutoff) == xpaths
    target = data.draw(st.sampled_from(list(H)))
    try:
        expected = nx.single_source_dijkstra(H, source, target)
    except nx.NetworkXNoPath:
        with pytest.raises(NetworkXNoPath, match="No path to"):
            rg.single_source_dijkstra(G, source, target)
        with pytest.raises(NetworkXNoPath, match="not reachable from"):
            rg.dijkstra_path_length(G, source, target)
        assert not rg.has_path(G, source, target)
    else:
        length, path = rg.single_source_dijkstra(G, source, target)
        assert length == pytest.approx(expected[0]) and path == expected[1]
        assert rg.dijkstra_path(G, source, target) == nx.dijkstra_path(H, source, target)
        assert rg.dijkstra_path_length(G, source, target) == pytest.approx(nx.dijkstra_path_length(H, source, target))
        assert rg.bellman_ford_path_length(G, source, target) == \
            pytest.approx(nx.bellman_ford_path_length(H, source, target))  # fmt: skip
        assert rg.has_path(G, source, target)


@SETTINGS
@given(weighted_graphs(weights=("none",)), st.sampled_from([None, 0, 1, 2]), st.data())
def test_unweighted_paths_match_networkx(pair, cutoff, data):
    G, H = pair
    source = data.draw(st.sampled_from(list(H)))
    assert list(rg.single_source_shortest_path(G, source, cutoff).items()) == \
        list(nx.single_source_shortest_path(H, source, cutoff).items())  # fmt: skip
    assert {k: dict(v) for k, v in rg.all_pairs_shortest_path_length(G, cutoff)} == \
        dict(nx.all_pairs_shortest_path_length(H, cutoff))  # fmt: skip
    assert dict(rg.all_pairs_shortest_path(G, cutoff)) == dict(nx.all_pairs_shortest_path(H, cutoff))


@SETTINGS
@given(weighted_graphs(), st.sampled_from([None, "weight"]), st.sampled_from(["dijkstra", "bellman-ford"]),
       st.data())  # fmt: skip
def test_generic_entry_points_match_networkx(pair, weight, method, data):
    G, H = pair
    source, target = data.draw(st.sampled_from(list(H))), data.draw(st.sampled_from(list(H)))
    kw = {"weight": weight, "method": method}
    assert dict(rg.shortest_path_length(G, source, **kw)) == pytest.approx(nx.shortest_path_length(H, source, **kw))
    assert dict(rg.shortest_path_length(G, target=target, **kw)) == \
        pytest.approx(nx.shortest_path_length(H, target=target, **kw))  # fmt: skip
    assert {k: dict(v) for k, v in rg.shortest_path_length(G, **kw)} == \
        pytest.approx({k: pytest.approx(v) for k, v in nx.shortest_path_length(H, **kw)})  # fmt: skip
    if method == "dijkstra":  # NetworkX's Bellman-Ford picks its own paths among ties
        assert rg.shortest_path(G, source, **kw) == nx.shortest_path(H, source, **kw)
        assert rg.shortest_path(G, target=target, **kw) == nx.shortest_path(H, target=target, **kw)
        assert dict(rg.shortest_path(G, **kw)) == dict(nx.shortest_path(H, **kw))
    try:
        expected_length = nx.shortest_path_length(H, source, target, **kw)
    except nx.NetworkXNoPath:
        with pytest.raises(NetworkXNoPath):
            rg.shortest_path(G, source, target, **kw)
        with pytest.raises(NetworkXNoPath):
            rg.shortest_path_length(G, source, target, **kw)
        return
    assert rg.shortest_path_length(G, source, target, **kw) == pytest.approx(expected_length)
    path = rg.shortest_path(G, source, target, **kw)
    if weight is None:  # NetworkX's bidirectional breadth-first search, level by level: the same path
        assert path == nx.shortest_path(H, source, target)
    # weighted: a shortest path (NetworkX's bidirectional Dijkstra may pick another among ties)
    assert path[0] == source and path[-1] == target
    cost = sum(H.edges[u, v].get(weight, 1) if weight else 1 for u, v in zip(path, path[1:]))
    assert cost == pytest.approx(expected_length)


def test_errors_match_networkx():
    H = nx.DiGraph([(1, 2, {"weight": 2}), (2, 3, {"weight": -1})])
    G = rg.from_networkx(H)
    for func, match in [(rg.single_source_dijkstra, "Node 9 not found in graph"),
                        (rg.single_source_dijkstra_path_length, "Node 9 not found in graph"),
                        (rg.single_source_shortest_path, "Source 9 not in G")]:  # fmt: skip
        with pytest.raises(NodeNotFound, match=match):
            func(G, 9)
    with pytest.raises(NodeNotFound, match="Source 9 is not in G"):
        rg.shortest_path(G, 9, 1)
    with pytest.raises(NodeNotFound, match="Target 9 is not in G"):
        rg.shortest_path(G, 1, 9)
    with pytest.raises(NodeNotFound):
        rg.has_path(G, 1, 9)
    # negative weights: no negative cycle -> the true distances, as NetworkX whenever it finds no contradiction
    assert dict(rg.single_source_dijkstra_path_length(G, 1)) == nx.single_source_dijkstra_path_length(H, 1)
    assert rg.single_source_dijkstra(G, 1) == nx.single_source_dijkstra(H, 1)
    cycle = nx.DiGraph([(1, 2, {"weight": 1}), (2, 3, {"weight": 1}), (3, 1, {"weight": -3}), (3, 4, {})])
    for func in (rg.single_source_dijkstra_path_length, rg.single_source_dijkstra, nx.single_source_dijkstra):
        with pytest.raises(ValueError, match="Contradictory paths found"):
            func(cycle, 1)
    zero = nx.DiGraph([(0, 1, {"weight": 1}), (1, 2, {"weight": 1}), (2, 3, {"weight": 1}), (3, 1, {"weight": -2})])
    assert rg.dijkstra_path(zero, 1, 3) == nx.dijkstra_path(zero, 1, 3)  # NetworkX's zero-cycle smoke test
    assert rg.shortest_path(zero, 1, 3, weight="weight", method="bellman-ford") == [1, 2, 3]
    with pytest.raises(NetworkXUnbounded):
        rg.shortest_path(cycle, 1, 4, weight="weight", method="bellman-ford")
    with pytest.raises(ValueError, match="method not supported: bfs"):
        rg.shortest_path(G, 1, 2, method="bfs")
    assert rg.bellman_ford_path_length(G, 1, 3) == 1 == nx.bellman_ford_path_length(H, 1, 3)
    with pytest.raises(NetworkXUnbounded, match="Negative cycle"):
        rg.bellman_ford_path_length(rg.from_networkx(H.to_undirected()), 1, 3)
    with pytest.raises(TypeError, match="weight functions"):
        rg.single_source_dijkstra(G, 1, weight=lambda u, v, d: 1)
    assert rg.single_source_dijkstra(G, 1, 1) == (0, [1]) and rg.dijkstra_path_length(G, 1, 1) == 0
    assert rg.shortest_path(G, 1, 1) == [1] and rg.shortest_path_length(G, 1, 1) == 0


def test_float_distances_and_large_ids():
    rng = np.random.default_rng(3)
    H = nx.gnp_random_graph(200, 0.04, seed=5, directed=True)
    H = nx.relabel_nodes(H, {i: i * 10**12 for i in H})
    for u, v in H.edges:
        H[u][v]["w"] = float(rng.random())
    G = rg.from_networkx(H)
    dist, paths = rg.single_source_dijkstra(G, 0, weight="w")
    xdist, xpaths = nx.single_source_dijkstra(H, 0, weight="w")
    _close(dist, xdist)
    assert paths == xpaths
    arc = G._arc_weights("w")
    assert sssp_distances(G, 0, arc, cutoff=0.0).tolist().count(0.0) >= 1


def test_benchmark_cases_agree_with_networkx():
    from riptide.benchmarks import cases_graph_paths
    from riptide.benchmarks.cases_graph import networkx_graph, source_node
    from riptide.benchmarks.harness import CASES, Context, load_cases
    from riptide.graph.results import NodeMap

    load_cases()
    ctx = Context(rows=20_000, repeat=1)
    case = CASES["sssp_1e7"]
    assert case.reference.goal == pytest.approx(0.020) and case.edges(Context(rows=10**8)) == 10**7
    data = case.data(ctx)
    got = case.riptide(data)()
    assert isinstance(got, NodeMap) and got._host is None  # the timed call reads nothing back
    H = networkx_graph(data)
    for u, v, w in zip(data["source"].tolist(), data["target"].tolist(), data["weight"].tolist()):
        H[u][v]["weight"] = w  # the last repeat wins, as in the riptide graph
    expected = nx.single_source_dijkstra_path_length(H, source_node(data), backend="networkx")
    assert dict(got) == pytest.approx(expected, rel=1e-12)
    case = CASES["betweenness_k100"]
    assert case.reference.min_speedup == (("networkx", 300),) and case.edges(Context(rows=10**8)) == 10**6
    data = case.data(Context(rows=200_000))
    got, expected = case.riptide(data)(), case.networkx(data)()
    assert got.keys() == expected.keys() and got == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert cases_graph_paths.SAMPLED_SOURCES == 100


@SETTINGS
@given(st.integers(2, 16), st.integers(0, 2**31 - 1), st.data())
def test_negative_weights_match_networkx(n, seed, data):
    """A DAG (arcs from lower to higher ids) with negative weights: no negative cycle."""
    rng = np.random.default_rng(seed)
    src, dst = np.nonzero(np.triu(rng.random((n, n)) < 0.3, 1))
    edges = [(int(a), int(b), {"weight": int(rng.integers(-3, 4))}) for a, b in zip(src, dst)] or [(0, 1, {})]
    H = nx.DiGraph(edges)
    G = rg.from_edgelist(edges, create_using=rg.DiGraph)
    source, target = data.draw(st.sampled_from(list(H))), data.draw(st.sampled_from(list(H)))
    lengths = rg.single_source_bellman_ford_path_length(G, source)
    assert dict(lengths) == nx.single_source_bellman_ford_path_length(H, source)
    assert dict(rg.single_source_dijkstra_path_length(G, source)) == dict(lengths)  # the true distances
    paths = rg.single_source_bellman_ford_path(G, source)
    assert paths.keys() == nx.single_source_bellman_ford_path(H, source).keys()
    for node, path in paths.items():  # each a shortest path (ties may be broken otherwise than NetworkX)
        assert path[0] == source and path[-1] == node
        assert sum(H.edges[u, v].get("weight", 1) for u, v in zip(path, path[1:])) == lengths[node]
    if target in paths:
        assert rg.bellman_ford_path(G, source, target) == paths[target]
        assert rg.bellman_ford_path_length(G, source, target) == nx.bellman_ford_path_length(H, source, target)
    elif target != source:
        with pytest.raises(NetworkXNoPath, match="not reachable from"):
            rg.bellman_ford_path(G, source, target)
    with pytest.raises(NodeNotFound):
        rg.bidirectional_shortest_path(G, source, "missing")


@pytest.mark.parametrize("directed", [False, True])
def test_graph_without_edges(directed):
    """Nodes but no edges: each weighted search reaches its source alone (no arc to read a predecessor from)."""
    H = (nx.DiGraph if directed else nx.Graph)()
    H.add_nodes_from([0, "x"])
    G = rg.from_networkx(H)
    assert rg.single_source_dijkstra(G, 0) == nx.single_source_dijkstra(H, 0)
    assert rg.single_source_dijkstra_path(G, "x") == nx.single_source_dijkstra_path(H, "x")
    assert dict(rg.shortest_path(G, weight="weight")) == dict(nx.shortest_path(H, weight="weight"))
    assert dict(rg.all_pairs_dijkstra_path(G)) == dict(nx.all_pairs_dijkstra_path(H))
    with pytest.raises(NetworkXNoPath):
        rg.dijkstra_path(G, 0, "x")
