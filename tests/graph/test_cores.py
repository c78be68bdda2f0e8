"""riptide.graph.cores against NetworkX: core_number, k_core / k_shell / k_crust / k_corona, k_truss and
onion_layers on random graphs (undirected and directed, with isolated nodes), and NetworkX's errors.

NetworkX's subgraph functions return ``G.subgraph(nodes).copy()``, whose node order is a Python set's iteration
order (an implementation detail); riptide keeps the input graph's node order, so node *sets* are compared.
"""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riptide.graph as rg
from riptide.graph import cores as R
from riptide.graph.exceptions import NetworkXNotImplemented
from riptide_nx_info import FUNCTIONS

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def random_graphs(draw, directed=None):
    n = draw(st.integers(1, 40))
    p = draw(st.sampled_from([0.0, 0.03, 0.1, 0.3, 0.7]))
    seed = draw(st.integers(0, 2**31 - 1))
    if directed is None:
        directed = draw(st.booleans())
    H = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    if draw(st.booleans()):
        H.add_nodes_from([1000, 1001])  # isolated
    if draw(st.booleans()):
        H = nx.relabel_nodes(H, {v: f"v{v}" for v in H})
    for u, v in H.edges:
        H[u][v]["weight"] = 2.5
    return H


def _same_graph(got, expected):
    assert got.is_directed() == expected.is_directed()
    assert set(got.nodes) == set(expected.nodes)
    key = (lambda e: tuple(e)) if expected.is_directed() else (lambda e: tuple(sorted(e, key=repr)))
    assert sorted(map(key, got.edges()), key=repr) == sorted(map(key, expected.edges()), key=repr)
    for u, v, d in got.to_networkx().edges(data=True):
        assert d == expected[u][v]  # edge attributes kept


@SETTINGS
@given(random_graphs(), st.integers(0, 4))
def test_cores_match_networkx(H, k):
    G = rg.from_networkx(H)
    core = R.core_number(G)
    assert core == nx.core_number(H)
    kept = set(R.k_core(G, k).nodes)
    assert list(R.k_core(G, k).nodes) == [v for v in H if v in kept]  # riptide keeps the input's node order
    assert list(core) == list(nx.core_number(H))
    _same_graph(R.k_core(G), nx.k_core(H))
    _same_graph(R.k_core(G, k), nx.k_core(H, k))
    _same_graph(R.k_shell(G), nx.k_shell(H))
    _same_graph(R.k_shell(G, k), nx.k_shell(H, k))
    _same_graph(R.k_crust(G), nx.k_crust(H))
    _same_graph(R.k_crust(G, k), nx.k_crust(H, k))
    _same_graph(R.k_corona(G, k), nx.k_corona(H, k))
    # a user-given core_number dict is used as given
    given_core = {v: (c + 1) % 3 for v, c in nx.core_number(H).items()}
    _same_graph(R.k_core(G, 1, core_number=given_core), nx.k_core(H, 1, core_number=given_core))


@SETTINGS
@given(random_graphs(directed=False), st.integers(1, 6))
def test_k_truss_and_onion_layers_match_networkx(H, k):
    G = rg.from_networkx(H)
    _same_graph(R.k_truss(G, k), nx.k_truss(H, k))
    assert R.onion_layers(G) == nx.onion_layers(H)


def test_named_graphs():
    for H in (nx.karate_club_graph(), nx.les_miserables_graph(), nx.petersen_graph(),
              nx.powerlaw_cluster_graph(500, 4, 0.4, seed=1)):  # fmt: skip
        G = rg.from_networkx(H)
        assert R.core_number(G) == nx.core_number(H)
        for k in (3, 4, 5):
            _same_graph(R.k_truss(G, k), nx.k_truss(H, k))
        assert R.onion_layers(G) == nx.onion_layers(H)
    H = nx.path_graph(300)  # one vertex peeled per end each round: many rounds
    assert R.core_number(rg.from_networkx(H)) == nx.core_number(H)
    assert R.onion_layers(rg.from_networkx(H)) == nx.onion_layers(H)


def test_errors_as_networkx():
    loops = rg.from_networkx(nx.Graph([(0, 1), (1, 1)]))
    for func in (R.core_number, lambda G: R.k_truss(G, 3), R.k_core):
        with pytest.raises(NetworkXNotImplemented, match="self loops which is not permitted"):
            func(loops)
    with pytest.raises(NetworkXNotImplemented, match="contains self loops"):
        R.onion_layers(loops)
    directed = rg.from_networkx(nx.DiGraph([(0, 1)]))
    for func in (lambda G: R.k_truss(G, 3), R.onion_layers):
        with pytest.raises(NetworkXNotImplemented, match="directed"):
            func(directed)
    assert R.core_number(rg.Graph()) == nx.core_number(nx.Graph()) == {}
    with pytest.raises(ValueError):
        nx.k_core(nx.Graph())
    with pytest.raises(ValueError):
        R.k_core(rg.Graph())
    assert R.core_number(nx.path_graph(3)) == {0: 1, 1: 1, 2: 1}  # a NetworkX graph is converted


@pytest.mark.skipif("core_number" not in FUNCTIONS, reason="not registered with the backend yet")
def test_backend_dispatch():
    H = nx.karate_club_graph()
    assert nx.core_number(H, backend="riptide") == nx.core_number(H)
    assert set(nx.k_truss(H, 4, backend="riptide")) == set(nx.k_truss(H, 4))


def test_multigraphs_are_refused_as_networkx():
    H = nx.MultiGraph([(0, 1), (0, 1), (1, 2)])
    G = rg.from_networkx(H)
    for name in ("core_number", "k_core", "onion_layers"):
        with pytest.raises(NetworkXNotImplemented, match="multigraph"):
            getattr(R, name)(G)
        with pytest.raises(nx.NetworkXNotImplemented, match="multigraph"):
            getattr(nx, name)(H)
    with pytest.raises(NetworkXNotImplemented, match="multigraph"):
        R.k_truss(G, 3)
