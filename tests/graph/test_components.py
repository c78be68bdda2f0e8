"""riptide.graph's strongly connected components against NetworkX (the same sets; riptide orders them by their
first node, NetworkX by its depth-first search)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riptide.graph as rg
from riptide.graph.exceptions import NetworkXNotImplemented, NetworkXPointlessConcept

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _sets(components) -> set:
    return {frozenset(c) for c in components}


@SETTINGS
@given(st.integers(1, 30), st.sampled_from([0.02, 0.06, 0.12, 0.3]), st.integers(0, 2**31 - 1), st.booleans())
def test_scc_matches_networkx(n, p, seed, isolated):
    H = nx.gnp_random_graph(n, p, seed=seed, directed=True)
    rng = np.random.default_rng(seed)
    H.add_edges_from((int(a), int(a)) for a in rng.integers(0, n, 2))  # self loops join nothing
    if isolated:
        H.add_nodes_from(["x", "y"])
    G = rg.from_networkx(H)
    got = list(rg.strongly_connected_components(G))
    expected = list(nx.strongly_connected_components(H))
    assert _sets(got) == _sets(expected) and len(got) == len(expected)
    order = list(H)
    assert [min(order.index(v) for v in c) for c in got] == sorted(min(order.index(v) for v in c) for c in got)
    assert rg.number_strongly_connected_components(G) == nx.number_strongly_connected_components(H)
    assert rg.is_strongly_connected(G) == nx.is_strongly_connected(H)


def test_scc_of_structured_graphs():
    cases = [
        nx.DiGraph(nx.path_graph(300)),  # every edge both ways: one SCC
        nx.path_graph(300, create_using=nx.DiGraph),  # a chain: 300 singletons (trimming)
        nx.cycle_graph(257, create_using=nx.DiGraph),
    ]
    ring = nx.DiGraph()  # cycles chained by one-way arcs, and a cycle with a tail into it
    for k in range(20):
        nx.add_cycle(ring, [(k, i) for i in range(5)])
        ring.add_edge((k, 0), (k + 1, 3))
    ring.add_edges_from([("t0", "t1"), ("t1", (3, 2))])
    cases.append(ring)
    rng = np.random.default_rng(7)
    big = nx.gnm_random_graph(2000, 2600, seed=3, directed=True)
    big = nx.relabel_nodes(big, dict(zip(big, rng.permutation(2000).tolist())))
    cases.append(big)
    for H in cases:
        G = rg.from_networkx(H)
        assert _sets(rg.strongly_connected_components(G)) == _sets(nx.strongly_connected_components(H))
        assert rg.number_strongly_connected_components(G) == nx.number_strongly_connected_components(H)


def test_scc_errors():
    with pytest.raises(NetworkXNotImplemented, match="not implemented for undirected type"):
        list(rg.strongly_connected_components(rg.from_edgelist([(1, 2)])))
    with pytest.raises(NetworkXPointlessConcept, match="null graph"):
        rg.is_strongly_connected(rg.DiGraph())
    assert list(rg.strongly_connected_components(rg.DiGraph())) == []
    assert rg.number_strongly_connected_components(rg.DiGraph()) == 0
    assert list(rg.strongly_connected_components(nx.DiGraph([(1, 1)]))) == [{1}]
