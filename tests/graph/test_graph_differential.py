"""riptide.graph against NetworkX on random graphs: construction, renumbering, degrees and the algorithms.

Graphs are G(n, p) edge lists with int ids (small and beyond int32), or string ids, plus self loops, repeated and
reversed edges (collapsed as NetworkX's Graph/DiGraph collapse them: the last row's attributes win) and isolated
vertices (through a NetworkX graph, since an edge list cannot hold them).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riptide as rt
import riptide.graph as rg
from riptide.graph.exceptions import NetworkXError, NetworkXNotImplemented, NetworkXPointlessConcept, NodeNotFound

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _ids(kind: str, raw: np.ndarray) -> list:
    if kind == "int":
        return raw.tolist()
    if kind == "big":
        return (raw * 10**12 - 7).tolist()
    return [f"v{r}é" for r in raw.tolist()]


@st.composite
def edge_frames(draw):
    """A pandas edge list (source, target, weight) with repeats, self loops and the id kind drawn."""
    n = draw(st.integers(1, 25))
    p = draw(st.sampled_from([0.0, 0.05, 0.15, 0.4]))
    seed = draw(st.integers(0, 2**31 - 1))
    kind = draw(st.sampled_from(["int", "big", "str"]))
    rng = np.random.default_rng(seed)
    src, dst = np.nonzero(rng.random((n, n)) < p)
    order = rng.permutation(src.size)
    src, dst = src[order], dst[order]
    if src.size and draw(st.booleans()):  # repeated and reversed edges: NetworkX collapses them
        k = rng.integers(1, src.size + 1)
        pick = rng.integers(0, src.size, k)
        flip = rng.random(k) < 0.5
        src, dst = np.concatenate([src, np.where(flip, dst[pick], src[pick])]), \
            np.concatenate([dst, np.where(flip, src[pick], dst[pick])])  # fmt: skip
    if draw(st.booleans()):  # self loops
        loops = rng.integers(0, n, 2)
        src, dst = np.concatenate([src, loops]), np.concatenate([dst, loops])
    if src.size == 0:
        src, dst = np.array([0]), np.array([n - 1])
    weights = rng.integers(1, 6, src.size).astype(np.float64)
    return pd.DataFrame({"source": _ids(kind, src), "target": _ids(kind, dst), "weight": weights}), kind


def _pair(df: pd.DataFrame, directed: bool, riptide_frame: bool = False, extra_nodes: list | None = None):
    create = nx.DiGraph if directed else nx.Graph
    H = nx.from_pandas_edgelist(df, edge_attr="weight", create_using=create)
    if extra_nodes:
        H.add_nodes_from(extra_nodes)
        return rg.from_networkx(H), H
    frame = rt.from_pandas(df) if riptide_frame else df
    return rg.from_pandas_edgelist(frame, edge_attr="weight", create_using=create), H


def _assert_close(got: dict, expected: dict, tol: float = 1e-9) -> None:
    assert list(got) == list(expected)
    worst = max((abs(got[k] - expected[k]) for k in expected), default=0.0)
    assert worst <= tol, worst


# ---------------------------------------------------------------------- construction


@SETTINGS
@given(edge_frames(), st.booleans(), st.booleans())
def test_construction_matches_networkx(case, directed, riptide_frame):
    df, _ = case
    G, H = _pair(df, directed, riptide_frame)
    assert G.is_directed() is H.is_directed()
    assert G.number_of_nodes() == H.number_of_nodes()
    assert G.number_of_edges() == H.number_of_edges()
    assert list(G) == list(H)  # renumbering keeps NetworkX's node order
    assert dict(G.degree) == dict(H.degree)
    assert dict(G.degree(weight="weight")) == pytest.approx(dict(H.degree(weight="weight")))
    if directed:
        assert dict(G.in_degree) == dict(H.in_degree)
        assert dict(G.out_degree) == dict(H.out_degree)
    assert nx.utils.graphs_equal(G.to_networkx(), H)  # edges and the last row's weight per collapsed edge
    # CSR rows follow NetworkX's adjacency order (insertion order): edges, neighbours, conversions
    assert G.edges() == list(H.edges())
    assert all(list(G.neighbors(node)) == list(H.neighbors(node)) for node in H)
    assert list(G.to_networkx().adj.items()) == list(H.adj.items())
    if directed:
        assert all(list(G.predecessors(node)) == list(H.predecessors(node)) for node in H)
        assert G.to_undirected().edges() == list(H.to_undirected().edges())
        assert G.reverse().edges() == list(H.reverse().edges())
        assert rg.from_networkx(H).edges() == list(H.edges())
    else:
        assert G.to_directed().edges() == list(H.to_directed().edges())
    u, v = df["source"].iloc[0], df["target"].iloc[-1]
    assert G.has_edge(u, v) == H.has_edge(u, v)
    assert G.has_node(u) and not G.has_node("missing-node") and not G.has_node([1])


def test_renumbering_of_wide_and_string_ids():
    df = pd.DataFrame({"a": [2**62, -(2**62), 2**62], "b": [5, 2**62, 0]})
    G = rg.from_pandas_edgelist(df, "a", "b")
    assert list(G) == [2**62, 5, -(2**62), 0]
    assert G.degree[2**62] == 3 and G.number_of_edges() == 3
    S = rg.from_edgelist([("ß", "東京"), ("東京", "")])
    assert list(S) == ["ß", "東京", ""] and dict(S.degree) == {"ß": 1, "東京": 2, "": 1}


@pytest.mark.parametrize("create", ["Graph", "DiGraph", "MultiDiGraph"])
@pytest.mark.parametrize("riptide_frame", [False, True])
def test_renumbering_of_ids_spanning_several_columns(create, riptide_frame):
    """``source=[...]``/``target=[...]``: each vertex is the tuple of its columns' values, as a NetworkX graph
    built from those tuples; results are keyed by the tuples, and the edge list splits them back into columns."""
    df = pd.DataFrame({"sc": ["NY", "NY", "SF", "NY", "SF"], "sz": [1, 2, 1, 1, 1],
                       "tc": ["NY", "SF", "NY", "SF", "SF"], "tz": [2, 1, 1, 1, 1], "w": [1.0, 2.0, 3.0, 4.0, 0.5]})
    H = getattr(nx, create)()
    for row in df.itertuples():
        H.add_edge((row.sc, row.sz), (row.tc, row.tz), w=row.w)
    source = rt.DataFrame(df) if riptide_frame else df
    G = rg.from_pandas_edgelist(source, ["sc", "sz"], ["tc", "tz"], edge_attr=True, create_using=getattr(rg, create))
    assert list(G.nodes) == list(H.nodes) and list(G.edges(data=True)) == list(H.edges(data=True))
    assert dict(G.degree) == dict(H.degree) and G.has_node(("SF", 1)) and not G.has_node(("SF", 2))
    assert rg.pagerank(G, weight="w") == pytest.approx(nx.pagerank(H, weight="w"))
    assert rg.single_source_dijkstra(G, ("NY", 1), weight="w") == nx.single_source_dijkstra(H, ("NY", 1), weight="w")
    edges = rg.to_pandas_edgelist(G, source=["sc", "sz"], target=["tc", "tz"]).to_pandas()
    expected = nx.to_pandas_edgelist(H)
    assert list(zip(edges.sc, edges.sz)) == list(expected.source)
    assert list(zip(edges.tc, edges.tz)) == list(expected.target)
    with pytest.raises(NetworkXError, match="as many id columns"):
        rg.from_pandas_edgelist(df, ["sc"], ["tc", "tz"])
    with pytest.raises(KeyError):
        rg.from_pandas_edgelist(df, ["sc", "nope"], ["tc", "tz"])
    with pytest.raises(KeyError):  # NetworkX's DegreeView is a dict look-up
        G.degree[("SF", 2)]


@pytest.mark.parametrize("riptide_frame", [False, True])
def test_categorical_id_columns_with_different_categories(riptide_frame):
    """Source and target columns read as categoricals (Parquet dictionaries) rarely share their categories: the
    ids are the values, as NetworkX sees them."""
    df = pd.DataFrame({"source": pd.Categorical(["x", "y", "x"]), "w": [1.0, 2.0, 3.0],
                       "target": pd.Categorical(["y", "z", "z"], categories=["z", "y"])})
    H = nx.from_pandas_edgelist(df, edge_attr="w", create_using=nx.DiGraph)
    G = rg.from_pandas_edgelist(rt.DataFrame(df) if riptide_frame else df, edge_attr="w", create_using=rg.DiGraph)
    assert list(G.nodes) == list(H.nodes) and list(G.edges(data=True)) == list(H.edges(data=True))
    assert rg.pagerank(G, weight="w") == pytest.approx(nx.pagerank(H, weight="w"))


def test_from_networkx_keeps_isolated_nodes_and_mixed_ids():
    H = nx.Graph([(("a", 1), 3), (3, "x")])
    H.add_nodes_from([frozenset({1}), 2.5])
    G = rg.from_networkx(H)
    assert list(G) == list(H) and G.number_of_edges() == 2
    assert [sorted(map(str, c)) for c in rg.connected_components(G)] == \
        [sorted(map(str, c)) for c in nx.connected_components(H)]  # fmt: skip


def test_empty_and_constructor_edge_cases():
    G = rg.Graph()
    assert G.number_of_nodes() == 0 and rg.pagerank(G) == {} and list(rg.connected_components(G)) == []
    with pytest.raises(NetworkXPointlessConcept):
        rg.is_connected(G)
    with pytest.raises(KeyError):
        rg.from_pandas_edgelist(pd.DataFrame({"source": [1], "target": [2]}), edge_attr="nope")
    D = rg.DiGraph([(1, 2), (2, 3)])
    assert D.is_directed() and sorted(D.edges()) == [(1, 2), (2, 3)]
    assert list(D.predecessors(2)) == [1] and list(D.successors(2)) == [3]


# ---------------------------------------------------------------------- algorithms


@SETTINGS
@given(edge_frames(), st.booleans(), st.booleans(), st.data())
def test_pagerank_matches_networkx(case, directed, isolated, data):
    df, kind = case
    extra = _ids(kind, np.array([1000, 1001])) if isolated else None
    G, H = _pair(df, directed, extra_nodes=extra)
    _assert_close(rg.pagerank(G), nx.pagerank(H))
    _assert_close(rg.pagerank(G, weight=None, alpha=0.6), nx.pagerank(H, weight=None, alpha=0.6))
    nodes = list(H)
    chosen = data.draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=4))
    personal = {node: float(i + 1) for i, node in enumerate(chosen)} | {"not-a-node": 5.0}
    dangling = {nodes[-1]: 1.0, nodes[0]: 2.0}
    nstart = {node: 1.0 + (i % 3) for i, node in enumerate(nodes)}
    kwargs = {"personalization": personal, "dangling": dangling, "nstart": nstart, "tol": 1e-10, "max_iter": 500}
    _assert_close(rg.pagerank(G, **kwargs), nx.pagerank(H, **kwargs))


def test_pagerank_errors_match_networkx():
    H = nx.gnp_random_graph(30, 0.2, seed=1, directed=True)
    G = rg.from_networkx(H)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        rg.pagerank(G, max_iter=1)
    with pytest.raises(ZeroDivisionError):
        rg.pagerank(G, personalization={"absent": 1})


@SETTINGS
@given(edge_frames(), st.booleans())
def test_components_match_networkx(case, isolated):
    df, kind = case
    extra = _ids(kind, np.array([1000, 1001])) if isolated else None
    G, H = _pair(df, False, extra_nodes=extra)
    assert list(rg.connected_components(G)) == list(nx.connected_components(H))  # same sets, same order
    assert rg.number_connected_components(G) == nx.number_connected_components(H)
    assert rg.is_connected(G) == nx.is_connected(H)
    D, HD = _pair(df, True, extra_nodes=extra)
    assert list(rg.weakly_connected_components(D)) == list(nx.weakly_connected_components(HD))
    assert rg.number_weakly_connected_components(D) == nx.number_weakly_connected_components(HD)
    assert rg.is_weakly_connected(D) == nx.is_weakly_connected(HD)
    with pytest.raises(NetworkXNotImplemented, match="directed"):
        rg.connected_components(D)
    with pytest.raises(NetworkXNotImplemented, match="undirected"):
        rg.weakly_connected_components(G)


def test_components_of_a_long_path_in_shuffled_order():
    rng = np.random.default_rng(0)
    perm = rng.permutation(3000)
    H = nx.Graph()
    H.add_nodes_from(perm.tolist())
    H.add_edges_from(zip(range(2999), range(1, 3000)))
    H.add_edges_from([(5000, 5001)])
    G = rg.from_networkx(H)
    assert list(rg.connected_components(G)) == list(nx.connected_components(H))


@SETTINGS
@given(edge_frames(), st.booleans(), st.sampled_from([None, 0, 1, 2]), st.data())
def test_bfs_matches_networkx(case, directed, cutoff, data):
    df, _ = case
    G, H = _pair(df, directed)
    source = data.draw(st.sampled_from(list(H)))
    # same items in the same (discovery) order: CSR rows follow NetworkX's adjacency order
    assert list(rg.single_source_shortest_path_length(G, source, cutoff).items()) == \
        list(nx.single_source_shortest_path_length(H, source, cutoff).items())  # fmt: skip
    sources = data.draw(st.lists(st.sampled_from(list(H)), min_size=1, max_size=3))
    assert list(rg.bfs_layers(G, sources)) == list(nx.bfs_layers(H, sources))
    assert next(iter(rg.bfs_layers(G, source))) == [source]
    assert rg.degree_centrality(G) == pytest.approx(nx.degree_centrality(H))


def test_bfs_errors_match_networkx():
    G = rg.from_edgelist([(1, 2)])
    with pytest.raises(NodeNotFound, match="Source 9 is not in G"):
        rg.single_source_shortest_path_length(G, 9)
    with pytest.raises(NetworkXError, match="The node 9 is not in the graph"):
        list(rg.bfs_layers(G, [1, 9]))
    assert rg.degree_centrality(rg.from_networkx(nx.empty_graph(1))) == {0: 1}


def test_algorithms_accept_networkx_graphs():
    H = nx.karate_club_graph()
    got = rg.pagerank(H)
    assert math.isclose(sum(got.values()), 1.0) and got == pytest.approx(nx.pagerank(H), abs=1e-9)
