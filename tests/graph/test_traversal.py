"""riptide.graph's breadth-first searches against NetworkX: bfs_edges/tree/predecessors/successors,
descendants_at_distance (same edges in the same discovery order, same errors)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riptide.graph as rg
from riptide.graph import traversal
from riptide.graph.exceptions import NetworkXError

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def graphs(draw, directed=None):
    """A NetworkX G(n, p) graph (ids shuffled ints or strings) and its riptide twin."""
    n = draw(st.integers(1, 20))
    p = draw(st.sampled_from([0.05, 0.15, 0.3]))
    seed = draw(st.integers(0, 2**31 - 1))
    directed = draw(st.booleans()) if directed is None else directed
    rng = np.random.default_rng(seed)
    src, dst = np.nonzero(rng.random((n, n)) < p)
    order = rng.permutation(src.size)
    names = rng.permutation(n).tolist() if draw(st.booleans()) else [f"n{i}" for i in range(n)]
    edges = [(names[a], names[b]) for a, b in zip(src[order], dst[order])] or [(names[0], names[-1])]
    # From the same edge list, so that adjacency (and discovery) order is NetworkX's (see riptide.graph.classes)
    H = nx.from_edgelist(edges, create_using=nx.DiGraph if directed else nx.Graph)
    return rg.from_edgelist(edges, create_using=rg.DiGraph if directed else rg.Graph), H


@SETTINGS
@given(graphs(), st.sampled_from([None, 0, 1, 2]), st.booleans(), st.data())
def test_bfs_family_matches_networkx(pair, depth_limit, reverse, data):
    G, H = pair
    source = data.draw(st.sampled_from(list(H)))
    expected = list(nx.bfs_edges(H, source, reverse=reverse, depth_limit=depth_limit))
    assert list(rg.bfs_edges(G, source, reverse=reverse, depth_limit=depth_limit)) == expected
    T, TH = rg.bfs_tree(G, source, reverse, depth_limit), nx.bfs_tree(H, source, reverse, depth_limit)
    assert T.is_directed() and list(T) == list(TH) and T.edges() == list(TH.edges())
    assert list(rg.bfs_predecessors(G, source, depth_limit)) == list(nx.bfs_predecessors(H, source, depth_limit))
    assert list(rg.bfs_successors(G, source, depth_limit)) == list(nx.bfs_successors(H, source, depth_limit))
    for distance in (0, 1, 3):
        assert rg.descendants_at_distance(G, source, distance) == nx.descendants_at_distance(H, source, distance)


@SETTINGS
@given(graphs(), st.data())
def test_sort_neighbors_orders_each_row(pair, data):
    G, H = pair
    source = data.draw(st.sampled_from(list(H)))
    for sort in (sorted, lambda it: sorted(it, key=str, reverse=True)):
        assert list(rg.bfs_edges(G, source, sort_neighbors=sort)) == list(nx.bfs_edges(H, source, sort_neighbors=sort))
        assert list(rg.bfs_edges(G, source, True, 2, sort)) == list(nx.bfs_edges(H, source, True, 2, sort))
        assert list(rg.bfs_successors(G, source, sort_neighbors=sort)) == \
            list(nx.bfs_successors(H, source, sort_neighbors=sort))  # fmt: skip


def test_bfs_tree_keeps_label_kinds_and_levels():
    H = nx.Graph([(("a", 1), 3), (3, "x"), ("x", ("a", 1))])  # mixed ids: host-numbered labels
    G = rg.from_networkx(H)
    assert list(rg.bfs_tree(G, 3)) == list(nx.bfs_tree(H, 3))
    assert list(rg.bfs_layers(G, 3)) == list(nx.bfs_layers(H, 3))  # host-numbered labels: found on the host
    source = ("a", 1)
    assert dict(rg.single_source_shortest_path_length(G, source)) == nx.single_source_shortest_path_length(H, source)
    G2 = rg.from_edgelist([(10**12, 5), (5, 7), (10**12, 7)])
    assert list(rg.bfs_tree(G2, 10**12).edges()) == [(10**12, 5), (10**12, 7)]
    levels = [(f.tolist(), p.tolist()) for f, p in traversal.bfs_tree_levels(G2, G2.xp.asarray([1]))]
    assert levels == [([1], [-1]), ([0, 2], [1, 1])]


def test_bfs_errors_match_networkx():
    G, H = rg.from_edgelist([(1, 2)], create_using=rg.DiGraph), nx.DiGraph([(1, 2)])
    for func in (rg.bfs_edges, nx.bfs_edges):  # DiGraph.neighbors' message, as NetworkX
        with pytest.raises(NetworkXError, match="The node 9 is not in the digraph"):
            list(func(G if func is rg.bfs_edges else H, 9))
    with pytest.raises(NetworkXError, match="The node 9 is not in the graph"):
        list(rg.bfs_edges(G.to_undirected(), 9))
    gen = rg.bfs_edges(G, 9)  # a generator: nothing raised before the first next(), as NetworkX
    with pytest.raises(NetworkXError, match="not in the digraph"):
        list(rg.bfs_edges(G, 9, reverse=True))
    with pytest.raises(NetworkXError):
        next(gen)
    with pytest.raises(NetworkXError, match="The node 9 is not in the graph"):
        rg.descendants_at_distance(G, 9, 1)
    with pytest.raises(NetworkXError):
        rg.bfs_tree(G, 9)
    assert list(rg.bfs_successors(G, 2)) == [(2, [])] == list(nx.bfs_successors(H, 2))
    assert list(rg.bfs_edges(G, 1, depth_limit=-1)) == []
    assert rg.descendants_at_distance(G, 1, -1) == set() == nx.descendants_at_distance(H, 1, -1)
