"""riptide.graph.cluster against NetworkX: triangles, clustering (unweighted / weighted, undirected / directed),
average_clustering and transitivity on random graphs with self loops, plus NetworkX's nbunch handling and errors.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riptide.graph as rg
from riptide.graph import cluster as K
from riptide.graph.exceptions import NetworkXError, NetworkXNotImplemented
from riptide_nx_info import FUNCTIONS

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def random_graphs(draw, directed=None):
    n = draw(st.integers(1, 35))
    p = draw(st.sampled_from([0.0, 0.05, 0.2, 0.5, 0.9]))
    seed = draw(st.integers(0, 2**31 - 1))
    if directed is None:
        directed = draw(st.booleans())
    H = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    rng = np.random.default_rng(seed)
    if draw(st.booleans()):  # self loops never make triangles, nor count as neighbours
        H.add_edges_from((int(v), int(v)) for v in rng.integers(0, n, 3))
    for u, v in H.edges:
        if rng.random() < 0.85:  # the rest keep NetworkX's default weight 1
            H[u][v]["weight"] = float(rng.integers(1, 9))
    if draw(st.booleans()):
        H = nx.relabel_nodes(H, {v: f"n{v}" for v in H})
    return H


def _assert_close(got, expected, tol=1e-12):
    assert list(got) == list(expected)
    assert all(abs(got[k] - expected[k]) <= tol for k in expected), \
        [(k, got[k], expected[k]) for k in expected if abs(got[k] - expected[k]) > tol][:5]  # fmt: skip


@SETTINGS
@given(random_graphs(directed=False), st.data())
def test_triangles_match_networkx(H, data):
    G = rg.from_networkx(H)
    assert K.triangles(G) == nx.triangles(H)
    nodes = list(H)
    node = data.draw(st.sampled_from(nodes))
    assert K.triangles(G, node) == nx.triangles(H, node)
    assert isinstance(K.triangles(G, node), int)
    some = data.draw(st.lists(st.sampled_from(nodes), max_size=5)) + ["not-a-node"]
    assert dict(K.triangles(G, some)) == nx.triangles(H, some)
    assert list(K.triangles(G, some)) == list(nx.triangles(H, some))


@SETTINGS
@given(random_graphs(), st.sampled_from([None, "weight"]), st.data())
def test_clustering_matches_networkx(H, weight, data):
    G = rg.from_networkx(H)
    _assert_close(K.clustering(G, weight=weight), nx.clustering(H, weight=weight))
    node = data.draw(st.sampled_from(list(H)))
    assert K.clustering(G, node, weight=weight) == pytest.approx(nx.clustering(H, node, weight=weight), abs=1e-12)
    some = data.draw(st.lists(st.sampled_from(list(H)), max_size=4))
    _assert_close(K.clustering(G, some, weight=weight), nx.clustering(H, some, weight=weight))
    for count_zeros in (True, False):
        try:
            expected = nx.average_clustering(H, weight=weight, count_zeros=count_zeros)
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                K.average_clustering(G, weight=weight, count_zeros=count_zeros)
            continue
        assert K.average_clustering(G, weight=weight, count_zeros=count_zeros) == pytest.approx(expected, abs=1e-12)
    if some:
        assert K.average_clustering(G, some, weight=weight) == \
            pytest.approx(nx.average_clustering(H, some, weight=weight), abs=1e-12)  # fmt: skip
    assert K.transitivity(G) == pytest.approx(nx.transitivity(H), abs=1e-12)


def test_named_graphs():
    for H in (nx.karate_club_graph(), nx.les_miserables_graph(), nx.complete_graph(7), nx.petersen_graph(),
              nx.powerlaw_cluster_graph(400, 4, 0.3, seed=1)):  # fmt: skip
        G = rg.from_networkx(H)
        assert K.triangles(G) == nx.triangles(H)
        _assert_close(K.clustering(G, weight="weight"), nx.clustering(H, weight="weight"))
        assert K.transitivity(G) == pytest.approx(nx.transitivity(H), abs=1e-12)
        assert K.average_clustering(G) == pytest.approx(nx.average_clustering(H), abs=1e-12)


def test_batches_of_wedges_give_the_same_counts(monkeypatch):
    H = nx.powerlaw_cluster_graph(300, 5, 0.5, seed=2)
    G = rg.from_networkx(H)
    expected = nx.triangles(H)
    monkeypatch.setattr(K, "_WEDGE_BATCH", 7)  # many batches; arcs with more wedges form a batch of their own
    assert K.triangles(G) == expected
    assert K.transitivity(G.to_directed()) == pytest.approx(nx.transitivity(H.to_directed()))


def test_enumerate_triangles_lists_each_triangle_once():
    H = nx.complete_graph(6)
    a, b = zip(*H.edges)
    batches = list(K.enumerate_triangles(6, np.array(a), np.array(b), np))
    found = sorted(tuple(sorted(t)) for batch in batches for t in zip(*(x.tolist() for x in batch[:3])))
    assert found == sorted(tuple(sorted(t)) for t in nx.enumerate_all_cliques(H) if len(t) == 3)


def test_results_and_errors_as_networkx():
    G = rg.Graph()
    assert K.triangles(G) == {} and K.clustering(G) == {} and K.transitivity(G) == nx.transitivity(nx.Graph()) == 0
    with pytest.raises(ZeroDivisionError):
        K.average_clustering(G)
    D = rg.from_networkx(nx.DiGraph([(0, 1), (1, 2), (2, 0)]))
    with pytest.raises(NetworkXNotImplemented, match="directed"):
        K.triangles(D)
    P = rg.from_networkx(nx.path_graph(4))
    with pytest.raises(NetworkXError, match="nbunch"):
        K.triangles(P, 3.5)
    assert K.triangles(P, [99]) == nx.triangles(nx.path_graph(4), [99]) == {}
    result = K.triangles(rg.from_networkx(nx.complete_graph(4)))
    assert isinstance(result.values_array(), type(rg.Graph().xp.zeros(1)))  # stays an array until read
    assert K.triangles(nx.complete_graph(4)) == nx.triangles(nx.complete_graph(4))  # a NetworkX graph is converted


@pytest.mark.skipif("triangles" not in FUNCTIONS, reason="not registered with the backend yet")
def test_backend_dispatch():
    H = nx.karate_club_graph()
    assert nx.triangles(H, backend="riptide") == nx.triangles(H)
    assert nx.clustering(H, weight="weight", backend="riptide") == pytest.approx(nx.clustering(H, weight="weight"))
    assert nx.transitivity(H, backend="riptide") == pytest.approx(nx.transitivity(H))
    assert nx.average_clustering(H, backend="riptide") == pytest.approx(nx.average_clustering(H))


def test_multigraphs_are_refused_as_networkx():
    H = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 0)])
    G = rg.from_networkx(H)
    assert K.triangles(G) == nx.triangles(H) == {0: 1, 1: 1, 2: 1}  # NetworkX counts them for all nodes only
    with pytest.raises(NetworkXNotImplemented, match="multigraph"):
        K.triangles(G, [0])
    for func in (K.clustering, K.transitivity, K.average_clustering):
        with pytest.raises(NetworkXNotImplemented, match="multigraph"):
            func(G)
        with pytest.raises(nx.NetworkXNotImplemented, match="multigraph"):
            getattr(nx, func.__name__)(H)


@SETTINGS
@given(random_graphs(directed=False), st.data())
def test_square_clustering_matches_networkx(H, data):
    G = rg.from_networkx(H)
    _assert_close(K.square_clustering(G), nx.square_clustering(H))
    node = data.draw(st.sampled_from(list(H)))
    assert K.square_clustering(G, node) == pytest.approx(nx.square_clustering(H, node), abs=1e-12)
    some = data.draw(st.lists(st.sampled_from(list(H)), max_size=4))
    _assert_close(K.square_clustering(G, some), nx.square_clustering(H, some))


def test_square_clustering_named_graphs_and_directed():
    for H in (nx.karate_club_graph(), nx.grid_2d_graph(4, 5), nx.complete_bipartite_graph(3, 4)):
        _assert_close(K.square_clustering(rg.from_networkx(H)), nx.square_clustering(H))
    with pytest.raises(NetworkXNotImplemented, match="directed"):
        K.square_clustering(rg.from_networkx(nx.DiGraph([(0, 1)])))


def test_square_clustering_of_a_multigraph_as_networkx():
    """NetworkX computes it on a MultiGraph (its neighbour sets do not see parallel edges), so riptide does too."""
    H = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 3), (3, 0), (3, 0), (2, 2), (1, 4)])
    H.add_node("iso")
    G = rg.from_networkx(H)
    _assert_close(K.square_clustering(G), nx.square_clustering(H))
    assert K.square_clustering(G, 1) == pytest.approx(nx.square_clustering(H, 1))
