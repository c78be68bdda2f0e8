"""Spanning trees against NetworkX's Kruskal: the same forest (same edges, data and keys; ties broken the same
way), the same adjacency order, the same total weight for every ``algorithm``; NaN handling and errors."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riptide.graph import classes as rgc
from riptide.graph import tree

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def weighted(draw):
    """Random (multi)graph with few distinct weights (ties), missing weights and self loops."""
    multi = draw(st.booleans())
    n = draw(st.integers(1, 30))
    m = draw(st.integers(0, 80))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    H = nx.MultiGraph() if multi else nx.Graph()
    H.add_nodes_from(rng.permutation(n).tolist())
    for u, v, w, missing in zip(rng.integers(0, n, m).tolist(), rng.integers(0, n, m).tolist(),
                                rng.integers(-3, 4, m).tolist(), (rng.random(m) < 0.1).tolist()):  # fmt: skip
        H.add_edge(u, v, **({} if missing else {"weight": float(w) if w % 2 else w}), tag=u + v)
    return H


def _same_graph(T, E):
    assert type(T.to_networkx()) is type(E)
    assert list(T) == list(E)
    assert nx.utils.graphs_equal(T.to_networkx(), E)
    assert list(T.to_networkx().adj.items()) == list(E.adj.items())  # insertion (Kruskal) order kept


@SETTINGS
@given(weighted(), st.sampled_from(["kruskal", "prim", "boruvka"]))
def test_spanning_trees_match_networkx(H, algorithm):
    G = rgc.from_networkx(H)
    if algorithm == "boruvka" and H.is_multigraph():
        with pytest.raises(nx.NetworkXNotImplemented, match="not implemented for multigraph type"):
            nx.minimum_spanning_tree(H, algorithm=algorithm)
        with pytest.raises(nx.NetworkXNotImplemented, match="not implemented for multigraph type"):
            tree.minimum_spanning_tree(G, algorithm=algorithm)
        return
    for ours, theirs in ((tree.minimum_spanning_tree, nx.minimum_spanning_tree),
                         (tree.maximum_spanning_tree, nx.maximum_spanning_tree)):  # fmt: skip
        T = ours(G, algorithm=algorithm)
        E = theirs(H, algorithm=algorithm)
        assert math.isclose(T.size(weight="weight"), E.size(weight="weight"))
        assert T.number_of_edges() == E.number_of_edges()
        if algorithm == "kruskal":
            _same_graph(T, E)
        assert nx.utils.graphs_equal(ours(G, weight=None).to_networkx(), theirs(H, weight=None))
    for ours, theirs in ((tree.minimum_spanning_edges, nx.minimum_spanning_edges),
                         (tree.maximum_spanning_edges, nx.maximum_spanning_edges)):  # fmt: skip
        for keys in (True, False):
            for data in (True, False):
                assert list(ours(G, keys=keys, data=data)) == list(theirs(H, keys=keys, data=data))


def test_nan_weights():
    H = nx.Graph()
    H.add_edge(1, 2, weight=float("nan"))
    H.add_edge(2, 3, weight=1.0)
    H.add_edge(1, 3, weight=2.0)
    G = rgc.from_networkx(H)
    with pytest.raises(ValueError, match=r"NaN found as an edge weight. Edge \(1, 2, \{'weight': nan\}\)"):
        tree.minimum_spanning_tree(G)
    _same_graph(tree.minimum_spanning_tree(G, ignore_nan=True), nx.minimum_spanning_tree(H, ignore_nan=True))
    _same_graph(tree.maximum_spanning_tree(G, ignore_nan=True), nx.maximum_spanning_tree(H, ignore_nan=True))


def test_errors_and_edge_cases():
    with pytest.raises(nx.NetworkXNotImplemented, match="not implemented for directed type"):
        tree.minimum_spanning_tree(rgc.DiGraph([(1, 2)]))
    with pytest.raises(ValueError, match="nope is not a valid choice for an algorithm"):
        tree.maximum_spanning_tree(rgc.Graph([(1, 2)]), algorithm="nope")
    with pytest.raises(ValueError, match="not a valid choice"):
        tree.minimum_spanning_edges(rgc.Graph([(1, 2)]), algorithm="nope")
    assert tree.minimum_spanning_tree(rgc.Graph()).number_of_nodes() == 0
    T = tree.minimum_spanning_tree(nx.path_graph(4))  # a NetworkX graph is accepted
    assert sorted(T.edges()) == [(0, 1), (1, 2), (2, 3)]


def test_large_forest_matches_networkx():
    H = nx.gnm_random_graph(3000, 9000, seed=5)
    rng = np.random.default_rng(5)
    for (u, v), w in zip(H.edges, rng.integers(0, 50, H.number_of_edges()).tolist()):
        H[u][v]["weight"] = w
    H.add_nodes_from(range(3000, 3010))  # isolated nodes: a forest
    G = rgc.from_networkx(H)
    _same_graph(tree.minimum_spanning_tree(G), nx.minimum_spanning_tree(H))
