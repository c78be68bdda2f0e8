"""riptide.graph.community against NetworkX: Louvain and Leiden (modularity within 0.01 of NetworkX's; the same
result type), label propagation (the same sets in the same order) and modularity (the same value, the same errors).
"""

from __future__ import annotations

import functools

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riptide.graph as rg
from riptide import _device
from riptide.graph import community as C
from riptide.graph.exceptions import NetworkXError, NetworkXNotImplemented
from riptide_nx_info import FUNCTIONS

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _is_partition(H: nx.Graph, communities: list) -> bool:
    return isinstance(communities, list) and all(isinstance(c, set) for c in communities) and \
        nx.community.is_partition(H, communities) and all(communities)  # fmt: skip


@functools.cache
def _nx_reference(name: str) -> float:
    return _nx_best(GRAPHS[name]())


def _nx_best(H: nx.Graph, **kwargs) -> float:
    """NetworkX's Louvain modularity: the mean over 4 seeds (its answer is random too)."""
    resolution = kwargs.get("resolution", 1)
    weight = kwargs.get("weight", "weight")
    return np.mean([nx.community.modularity(H, nx.community.louvain_communities(H, seed=s, **kwargs),
                                            weight=weight, resolution=resolution) for s in range(4)])  # fmt: skip


def _power_law_graph(edges: int, seed: int) -> nx.Graph:
    from riptide.benchmarks.cases_graph import power_law_edges

    src, dst = power_law_edges(np.random.default_rng(seed), edges // 10, edges)
    H = nx.Graph()
    H.add_edges_from(zip(src.tolist(), dst.tolist()))
    return H


GRAPHS = {
    "karate": lambda: nx.karate_club_graph(),
    "les_miserables": lambda: nx.les_miserables_graph(),
    "planted": lambda: nx.planted_partition_graph(10, 30, 0.3, 0.02, seed=1),
    "planted_many": lambda: nx.planted_partition_graph(40, 15, 0.5, 0.01, seed=2),
    "powerlaw_cluster": lambda: nx.powerlaw_cluster_graph(1000, 3, 0.1, seed=1),
    "barabasi_albert": lambda: nx.barabasi_albert_graph(1000, 4, seed=1),
    "power_law": lambda: _power_law_graph(10000, 0),
    "directed_gnp": lambda: nx.gnp_random_graph(400, 0.02, seed=3, directed=True),
}


# ---------------------------------------------------------------------- Louvain


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_louvain_modularity_is_within_001_of_networkx(name):
    H = GRAPHS[name]()
    G = rg.from_networkx(H)
    ours = C.louvain_communities(G)
    assert _is_partition(H, ours)
    assert nx.community.modularity(H, ours) >= _nx_reference(name) - 0.01
    assert C.modularity(G, ours) == pytest.approx(nx.community.modularity(H, ours), abs=1e-9)


@pytest.mark.parametrize("kwargs", [{"weight": None}, {"resolution": 0.5}, {"resolution": 2.0},
                                    {"weight": "weight", "resolution": 1.3}])  # fmt: skip
def test_louvain_parameters(kwargs):
    H = nx.karate_club_graph()  # weighted: the "weight" attribute holds interaction counts
    ours = C.louvain_communities(rg.from_networkx(H), **kwargs)
    assert _is_partition(H, ours)
    resolution = kwargs.get("resolution", 1)
    got = nx.community.modularity(H, ours, weight=kwargs.get("weight", "weight"), resolution=resolution)
    assert got >= _nx_best(H, **kwargs) - 0.01


def test_louvain_on_a_networkx_graph_and_string_ids():
    H = nx.relabel_nodes(nx.planted_partition_graph(4, 10, 0.8, 0.02, seed=5), lambda v: f"node-{v}é")
    ours = C.louvain_communities(H, seed=3)  # a NetworkX graph is converted
    assert _is_partition(H, ours)
    assert sorted(sorted(c) for c in ours) == sorted(sorted(c) for c in nx.community.louvain_communities(H, seed=3))


def test_louvain_finds_planted_cliques():
    H = nx.ring_of_cliques(8, 6)
    ours = C.louvain_communities(rg.from_networkx(H))
    assert sorted(sorted(c) for c in ours) == [list(range(6 * k, 6 * k + 6)) for k in range(8)]


def test_louvain_partitions_levels_and_max_level():
    H = GRAPHS["planted_many"]()
    G = rg.from_networkx(H)
    levels = C.louvain_partitions(G)
    assert not isinstance(levels, list) and hasattr(levels, "__next__")  # a generator, as NetworkX's
    levels = list(levels)
    assert len(levels) >= 1
    qualities = [nx.community.modularity(H, p) for p in levels]
    assert all(_is_partition(H, p) for p in levels)
    assert all(b > a for a, b in zip(qualities, qualities[1:]))
    sizes = [len(p) for p in levels]
    assert sizes == sorted(sizes, reverse=True)
    assert C.louvain_communities(G) == levels[-1]
    assert C.louvain_communities(G, max_level=1) == levels[0]
    with pytest.raises(ValueError, match="max_level"):
        C.louvain_communities(G, max_level=0)
    # a high threshold stops after the first level
    assert C.louvain_communities(G, threshold=1.0) == levels[0]


def test_louvain_seed_is_deterministic():
    G = rg.from_networkx(GRAPHS["barabasi_albert"]())
    assert C.louvain_communities(G, seed=7) == C.louvain_communities(G, seed=7)
    assert C.louvain_communities(G) == C.louvain_communities(G, seed=None)
    import random

    assert _is_partition(G.to_networkx(), C.louvain_communities(G, seed=random.Random(4)))


def test_louvain_edge_cases():
    assert C.louvain_communities(rg.Graph()) == nx.community.louvain_communities(nx.Graph()) == []
    H = nx.empty_graph(3)
    assert C.louvain_communities(rg.from_networkx(H)) == nx.community.louvain_communities(H) == [{0}, {1}, {2}]
    H = nx.Graph([(0, 1)])
    assert C.louvain_communities(rg.from_networkx(H)) == [{0, 1}]
    H = nx.Graph([(0, 0), (1, 1), (0, 1)])  # self loops act as communities reduced already
    assert _is_partition(H, C.louvain_communities(rg.from_networkx(H)))
    H = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (0, 3)])
    assert sorted(sorted(c) for c in C.louvain_communities(rg.from_networkx(H))) == [[0, 1, 2], [3, 4, 5]]


@SETTINGS
@given(st.integers(5, 60), st.sampled_from([0.05, 0.1, 0.3]), st.integers(0, 2**31 - 1), st.booleans())
def test_louvain_random_graphs(n, p, seed, directed):
    H = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    rng = np.random.default_rng(seed)
    for u, v in H.edges:
        H[u][v]["weight"] = float(rng.integers(1, 5))
    ours = C.louvain_communities(rg.from_networkx(H))
    assert _is_partition(H, ours)
    if H.number_of_edges():
        got = nx.community.modularity(H, ours)
        assert got >= nx.community.modularity(H, [{v} for v in H]) - 1e-12  # never worse than the start
        if n >= 30:  # on a handful of nodes one move is worth a lot (see the known deviation below)
            ref = nx.community.modularity(H, nx.community.louvain_communities(H, seed=seed))
            assert got >= ref - 0.05


@pytest.mark.parametrize("name, resolution", [("karate", 1.0), ("directed_gnp", 1.0), ("planted", 0.7),
                                              ("power_law", 1.3)])  # fmt: skip
def test_sweep_returns_the_modularity_and_totals_of_its_partition(name, resolution):
    level, m = C._base_level(rg.from_networkx(GRAPHS[name]()), "weight")
    com = level.xp.arange(level.n)
    totals = level.totals(com)
    for draw in range(6):  # from singletons, then from each sweep's partition
        new_com, moves, quality, new_totals = C._sweep(level, com, totals, m, resolution, 104729 * draw, False)
        assert moves == int((new_com != com).sum()) > 0
        assert quality == pytest.approx(level.modularity(new_com, m, resolution), abs=1e-12)
        for got, want in zip(new_totals, level.totals(new_com)):
            np.testing.assert_allclose(_device.to_host(got), _device.to_host(want), rtol=1e-12, atol=1e-12)
        com, totals = new_com, new_totals


@pytest.mark.parametrize("name", ["karate", "planted"])  # a small level (34 vertices) and a large one (300)
def test_local_moving_confirms_convergence_in_one_draw(name, monkeypatch):
    level, m = C._base_level(rg.from_networkx(GRAPHS[name]()), "weight")
    monkeypatch.setattr(C, "_SWEEP_GAIN", 0.0)  # sweep to convergence
    com, moved, quality = C._local_moving(level, m, 1.0, 0)
    assert moved and quality == pytest.approx(level.modularity(com, m, 1.0), abs=1e-12)
    calls = []
    sweep = C._sweep
    monkeypatch.setattr(C, "_sweep", lambda *a, **k: calls.append(1) or sweep(*a, **k))
    again, moved, _ = C._local_moving(level, m, 1.0, 5, com, quality=quality)
    assert not moved and bool((again == com).all())
    # a small level decides for both halves in one sweep; a large one sweeps the drawn half and its complement
    assert len(calls) == (1 if level.n <= C._SMALL_LEVEL else 2)


@pytest.mark.parametrize("host_arcs", [0, 1 << 40])
@pytest.mark.parametrize("name", ["planted_many", "power_law"])
def test_levels_on_the_device_or_the_host(name, host_arcs, monkeypatch):
    # On a GPU, levels of at most _HOST_ARCS arcs run on the host: 0 keeps every level on the device, 1 << 40
    # moves the whole graph to the host at once. On NumPy both are the same run.
    monkeypatch.setattr(C, "_HOST_ARCS", host_arcs)
    H = GRAPHS[name]()
    G = rg.from_networkx(H)
    ours = C.louvain_communities(G, seed=2)
    assert _is_partition(H, ours) and ours == C.louvain_communities(G, seed=2)
    assert nx.community.modularity(H, ours) >= _nx_reference(name) - 0.01
    leiden = C.leiden_communities(G, seed=2)
    assert _is_partition(H, leiden) and all(nx.is_connected(H.subgraph(c)) for c in leiden)
    assert nx.community.modularity(H, leiden) >= _nx_reference(name) - 0.01


@pytest.mark.xfail(strict=True, reason="simultaneous moves on a 5-node tree: vertex 3 joins vertex 1's community "
                   "as vertex 1 leaves it, and the level ends in one community (modularity 0; NetworkX 0.142)")
def test_louvain_known_deviation_on_a_tiny_tree():
    H = nx.Graph()
    H.add_nodes_from(range(5))
    H.add_weighted_edges_from([(0, 4, 2.0), (1, 2, 1.0), (1, 3, 3.0), (1, 4, 3.0)])
    assert nx.community.modularity(H, C.louvain_communities(rg.from_networkx(H))) >= 0.142 - 0.01


# ---------------------------------------------------------------------- Leiden


@pytest.mark.parametrize("name", ["karate", "planted", "powerlaw_cluster", "power_law"])
def test_leiden_communities_are_connected_and_good(name):
    H = GRAPHS[name]()
    ours = C.leiden_communities(rg.from_networkx(H))
    assert _is_partition(H, ours)
    assert all(nx.is_connected(H.subgraph(c)) for c in ours)
    assert nx.community.modularity(H, ours) >= _nx_reference(name) - 0.01


def test_leiden_errors_and_levels():
    with pytest.raises(NetworkXNotImplemented, match="directed"):
        C.leiden_communities(rg.from_networkx(nx.DiGraph([(0, 1)])))
    with pytest.raises(ValueError, match="max_level"):
        C.leiden_communities(rg.from_networkx(nx.path_graph(3)), max_level=-1)
    G = rg.from_networkx(GRAPHS["planted"]())
    levels = list(C.leiden_partitions(G))
    assert C.leiden_communities(G, max_level=1) == levels[0]


# ---------------------------------------------------------------------- modularity


@st.composite
def graphs_and_partitions(draw):
    n = draw(st.integers(1, 30))
    p = draw(st.sampled_from([0.05, 0.2, 0.5]))
    seed = draw(st.integers(0, 2**31 - 1))
    directed = draw(st.booleans())
    H = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    rng = np.random.default_rng(seed)
    if draw(st.booleans()):
        H.add_edges_from((int(v), int(v)) for v in rng.integers(0, n, 2))
    for u, v in H.edges:
        if rng.random() < 0.8:
            H[u][v]["weight"] = float(rng.integers(1, 6))
    k = draw(st.integers(1, n))
    labels = rng.integers(0, k, n)
    parts = [set(np.flatnonzero(labels == j).tolist()) for j in range(k)]
    return H, [c for c in parts if c]


@SETTINGS
@given(graphs_and_partitions(), st.sampled_from([None, "weight"]), st.sampled_from([1, 0.5, 2.5]))
def test_modularity_matches_networkx(case, weight, resolution):
    H, parts = case
    G = rg.from_networkx(H)
    try:
        expected = nx.community.modularity(H, parts, weight=weight, resolution=resolution)
    except ZeroDivisionError:
        with pytest.raises(ZeroDivisionError):
            C.modularity(G, parts, weight=weight, resolution=resolution)
        return
    got = C.modularity(G, iter(parts), weight=weight, resolution=resolution)  # any iterable of sets
    assert got == pytest.approx(expected, abs=1e-12)


def test_modularity_rejects_what_is_not_a_partition():
    H = nx.path_graph(4)
    G = rg.from_networkx(H)
    for bad in ([{0, 1}, {1, 2, 3}], [{0, 1}, {2}], [{0, 1}, {2, 3, 99}], [{0, 1, 2, 3}, {[1][0]}]):
        with pytest.raises(C.NotAPartition, match="not a valid partition"):
            C.modularity(G, bad)
        with pytest.raises(nx.algorithms.community.quality.NotAPartition):
            nx.community.modularity(H, bad)
    assert issubclass(C.NotAPartition, NetworkXError)
    assert C.modularity(G, [{0, 1}, {2, 3}]) == pytest.approx(nx.community.modularity(H, [{0, 1}, {2, 3}]))


# ---------------------------------------------------------------------- label propagation


@SETTINGS
@given(st.integers(1, 60), st.sampled_from([0.02, 0.08, 0.2]), st.integers(0, 2**31 - 1), st.booleans())
def test_label_propagation_matches_networkx(n, p, seed, loops):
    H = nx.gnp_random_graph(n, p, seed=seed)
    if loops:
        H.add_edges_from((int(v), int(v)) for v in np.random.default_rng(seed).integers(0, n, 2))
    got = C.label_propagation_communities(rg.from_networkx(H))
    expected = nx.community.label_propagation_communities(H)
    assert type(got) is type(expected)  # dict_values
    assert list(got) == list(expected)  # the same sets in the same order


@pytest.mark.parametrize("name", ["karate", "les_miserables", "barabasi_albert", "planted"])
def test_label_propagation_named_graphs(name):
    H = GRAPHS[name]()
    assert list(C.label_propagation_communities(rg.from_networkx(H))) == \
        list(nx.community.label_propagation_communities(H))  # fmt: skip


def test_label_propagation_edge_cases():
    assert list(C.label_propagation_communities(rg.Graph())) == []
    H = nx.relabel_nodes(nx.path_graph(30), str)
    assert list(C.label_propagation_communities(H)) == list(nx.community.label_propagation_communities(H))
    with pytest.raises(NetworkXNotImplemented, match="directed"):
        C.label_propagation_communities(rg.from_networkx(nx.DiGraph([(0, 1)])))


def _holds_most_frequent_labels(H, communities, weight=None) -> bool:
    """Every node with neighbours is in one of its neighbours' most frequent communities (NetworkX's stopping rule)."""
    community_of = {v: i for i, c in enumerate(communities) for v in c}
    for node in H:
        if not H[node]:
            continue
        freq: dict = {}
        for _, v, wt in H.edges(node, data=weight, default=1):
            freq[community_of[v]] = freq.get(community_of[v], 0) + (1 if weight is None else wt)
        if freq.get(community_of[node], None) != max(freq.values()):
            return False
    return True


@SETTINGS
@given(st.integers(1, 50), st.sampled_from([0.03, 0.1, 0.3]), st.integers(0, 2**31 - 1), st.booleans(),
       st.sampled_from([None, "weight"]))  # fmt: skip
def test_asyn_lpa_gives_a_label_propagation_fixpoint(n, p, seed, directed, weight):
    H = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    rng = np.random.default_rng(seed)
    for u, v in H.edges:
        H[u][v]["weight"] = float(rng.integers(1, 4))
    got = C.asyn_lpa_communities(rg.from_networkx(H), weight=weight, seed=seed)
    assert hasattr(got, "__next__")  # a generator-like iterator, as NetworkX's
    got = list(got)
    assert nx.community.is_partition(H, got) and all(isinstance(c, set) for c in got)
    assert _holds_most_frequent_labels(H, got, weight)
    assert [min(c, key=list(H).index) for c in got] == sorted((min(c, key=list(H).index) for c in got),
                                                              key=list(H).index)  # fmt: skip


def test_asyn_lpa_ends_where_whole_colour_classes_cycle():
    # the directed 4-cycle 9 -> 6 -> 5 -> 15 -> 9 is 2-coloured: updating whole classes swaps two labels for ever
    H = nx.gnp_random_graph(16, 0.1, seed=395632436, directed=True)
    got = list(C.asyn_lpa_communities(rg.from_networkx(H), weight=None, seed=395632436))
    assert nx.community.is_partition(H, got) and _holds_most_frequent_labels(H, got, None)
    assert any({9, 6, 5, 15} <= c for c in got)


def test_asyn_lpa_on_clear_structure():
    H = nx.disjoint_union_all([nx.complete_graph(5), nx.complete_graph(4), nx.empty_graph(2)])
    expected = list(nx.community.asyn_lpa_communities(H, seed=1))
    assert list(C.asyn_lpa_communities(rg.from_networkx(H), seed=1)) == expected
    assert C.asyn_lpa_communities(rg.from_networkx(H), seed=3) is not None
    assert list(C.asyn_lpa_communities(rg.Graph())) == []


# ---------------------------------------------------------------------- through NetworkX's dispatch


@pytest.mark.skipif("louvain_communities" not in FUNCTIONS, reason="not registered with the backend yet")
def test_backend_dispatch():
    H = nx.karate_club_graph()
    got = nx.community.louvain_communities(H, seed=0, backend="riptide")
    assert _is_partition(H, got) and nx.community.modularity(H, got) >= _nx_best(H) - 0.01
    assert nx.community.modularity(H, got, backend="riptide") == pytest.approx(nx.community.modularity(H, got))
    assert list(nx.community.label_propagation_communities(H, backend="riptide")) == \
        list(nx.community.label_propagation_communities(H))  # fmt: skip


def test_multigraphs():
    H = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 3), (3, 4), (4, 2), (4, 2)])
    G = rg.from_networkx(H)
    parts = [{0, 1}, {2, 3, 4}]
    assert C.modularity(G, parts) == pytest.approx(nx.community.modularity(H, parts), abs=1e-12)
    ours = C.louvain_communities(G)
    assert _is_partition(H, ours)
    assert nx.community.modularity(H, ours) >= _nx_best(H) - 0.01
    with pytest.raises(NetworkXNotImplemented, match="multigraph"):
        C.label_propagation_communities(G)
