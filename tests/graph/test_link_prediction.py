"""Link prediction scores against NetworkX: same triples for a given ebunch (same order), same set of triples for
ebunch=None (riptide lists non-edges in node order, NetworkX in a set's order), NetworkX's errors."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riptide.graph import classes as rgc
from riptide.graph import link_prediction as lp

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ["jaccard_coefficient", "adamic_adar_index", "resource_allocation_index", "preferential_attachment",
         "common_neighbor_centrality"]  # fmt: skip


@st.composite
def graphs(draw):
    n = draw(st.integers(2, 18))
    p = draw(st.sampled_from([0.1, 0.3, 0.6]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    H = nx.Graph()
    H.add_nodes_from(rng.permutation(n).tolist())
    src, dst = np.nonzero(np.triu(rng.random((n, n)) < p))
    H.add_edges_from(zip(src.tolist(), dst.tolist()))  # self loops included (the diagonal)
    return H


def _close(got, want):
    assert len(got) == len(want)
    for (u, v, p), (x, y, q) in zip(got, want):
        assert (u, v) == (x, y) and type(p) is type(q) or (isinstance(p, float) and isinstance(q, float)), (p, q)
        assert math.isclose(p, q, rel_tol=1e-12, abs_tol=1e-12), (u, v, p, q)


@SETTINGS
@given(graphs(), st.sampled_from(NAMES), st.data())
def test_scores_match_networkx(H, name, data):
    G = rgc.from_networkx(H)
    nodes = list(H)
    ebunch = data.draw(st.lists(st.tuples(st.sampled_from(nodes), st.sampled_from(nodes)), max_size=12))
    if name == "common_neighbor_centrality":
        ebunch = [(u, v) for u, v in ebunch if u != v]
    ours, theirs = getattr(lp, name), getattr(nx, name)
    try:
        want = list(theirs(H, ebunch))
    except ZeroDivisionError:  # adamic_adar with u == v and a degree-1 neighbour
        with pytest.raises(ZeroDivisionError):
            list(ours(G, ebunch))
        return
    _close(list(ours(G, ebunch)), want)
    # every non-edge: the same triples (order differs)
    got_all = sorted(ours(G), key=lambda t: (nodes.index(t[0]), nodes.index(t[1])))
    want_all = sorted(((u, v, p) if nodes.index(u) < nodes.index(v) else (v, u, p) for u, v, p in theirs(H)),
                      key=lambda t: (nodes.index(t[0]), nodes.index(t[1])))  # fmt: skip
    _close(got_all, want_all)


def test_common_neighbor_centrality_alpha_one_and_unreachable():
    H = nx.Graph([(0, 1), (1, 2), (3, 4)])
    G = rgc.from_networkx(H)
    pairs = [(0, 2), (0, 3), (2, 4)]
    for alpha in (1, 0.5, 0.0):
        _close(list(lp.common_neighbor_centrality(G, pairs, alpha=alpha)),
               list(nx.common_neighbor_centrality(H, pairs, alpha=alpha)))  # fmt: skip
    with pytest.raises(nx.NetworkXAlgorithmError, match="Self loops are not supported"):
        list(lp.common_neighbor_centrality(G, [(0, 0)]))


@pytest.mark.parametrize("name", NAMES + ["overlap_coefficient", "sorensen_coefficient"])
def test_errors_match_networkx(name):
    func = getattr(lp, name)
    with pytest.raises(nx.NetworkXNotImplemented, match="not implemented for directed type"):
        func(rgc.from_edgelist([(1, 2)], create_using=rgc.DiGraph))
    with pytest.raises(nx.NetworkXNotImplemented, match="not implemented for multigraph type"):
        func(rgc.from_edgelist([(1, 2)], create_using=rgc.MultiGraph))
    with pytest.raises(nx.NodeNotFound, match="Node 9 not in G."):
        func(rgc.from_edgelist([(1, 2)]), [(1, 9)])  # checked at call time, as NetworkX
    assert list(func(rgc.from_edgelist([(1, 2)]), [])) == []
    assert list(func(rgc.Graph())) == []


def test_overlap_and_sorensen_definitions():
    H = nx.karate_club_graph()
    G = rgc.from_networkx(H)
    pairs = list(nx.non_edges(H))[:200] + [(0, 1), (5, 5)]
    for (u, v, o), (_, _, s) in zip(lp.overlap_coefficient(G, pairs), lp.sorensen_coefficient(G, pairs)):
        common = len(nx.common_neighbors(H, u, v))
        a, b = len(set(H[u])), len(set(H[v]))
        assert math.isclose(o, common / min(a, b)) and math.isclose(s, 2 * common / (a + b))
    isolated = rgc.from_networkx(nx.empty_graph(2))
    assert list(lp.overlap_coefficient(isolated)) == [(0, 1, 0)] == list(lp.sorensen_coefficient(isolated))


def test_batches_and_blocks_give_the_same_answer(monkeypatch):
    H = nx.gnp_random_graph(60, 0.2, seed=3)
    G = rgc.from_networkx(H)
    pairs = list(nx.non_edges(H))[:500]
    want = list(lp.resource_allocation_index(G, pairs))
    all_want = list(lp.jaccard_coefficient(G))
    monkeypatch.setattr(lp, "BATCH_ELEMENTS", 7)
    monkeypatch.setattr(lp, "NON_EDGE_BLOCK", 50)
    _close(list(lp.resource_allocation_index(G, pairs)), want)
    _close(list(lp.jaccard_coefficient(G)), all_want)
    monkeypatch.setattr(lp, "NON_EDGE_WARNING", 10)
    with pytest.warns(RuntimeWarning, match="non-edges"):
        next(lp.preferential_attachment(G))


def test_accepts_networkx_graphs_and_generators():
    H = nx.path_graph(5)
    got = list(lp.jaccard_coefficient(H, ((u, u + 2) for u in range(3))))
    _close(got, list(nx.jaccard_coefficient(H, [(u, u + 2) for u in range(3)])))


@pytest.mark.parametrize("name", NAMES + ["overlap_coefficient", "sorensen_coefficient"])
def test_dataframe_ebunch_gives_a_device_frame(name):
    import pandas as pd

    import riptide as rt

    H = nx.relabel_nodes(nx.karate_club_graph(), {i: f"n{i}" for i in range(34)})
    G = rgc.from_networkx(H)
    rng = np.random.default_rng(1)
    pairs = [(f"n{a}", f"n{b}") for a, b in rng.integers(0, 34, (200, 2)).tolist() if a != b]
    func = getattr(lp, name)
    want = list(func(G, pairs))
    frame = pd.DataFrame(pairs, columns=["a", "b"])
    for ebunch in (frame, rt.from_pandas(frame)):
        got = func(G, ebunch).to_pandas()
        assert got.columns[:2].tolist() == ["first", "second"] and len(got.columns) == 3
        assert list(zip(got["first"], got["second"])) == [(u, v) for u, v, _ in want]
        assert np.allclose(got.iloc[:, 2].to_numpy(dtype=float), [p for _, _, p in want])
    with pytest.raises(nx.NodeNotFound, match="Node zz not in G."):
        func(G, pd.DataFrame({"a": ["n1", "n2"], "b": ["n3", "zz"]}))
    with pytest.raises(nx.NodeNotFound, match="not in G"):
        func(G, pd.DataFrame({"a": [1], "b": [2]}))
