"""MultiGraph / MultiDiGraph, graph views, subgraphs and sparse/pandas conversions against NetworkX.

Edge lists are random with repeated pairs (parallel edges in a multigraph), reversed pairs, self loops and
optional explicit keys (with repeated (pair, key) rows, which NetworkX collapses to one edge with the last row's
data), built through pandas frames, Python tuples and NetworkX graphs.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riptide import _device
import riptide as rt
from riptide.graph import classes as rgc
from riptide.graph.exceptions import NetworkXError

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NX_CLASSES = {(False, False): nx.Graph, (True, False): nx.DiGraph, (False, True): nx.MultiGraph,
              (True, True): nx.MultiDiGraph}  # fmt: skip


@st.composite
def multi_frames(draw):
    """A pandas edge list with repeats, reversals and self loops; ids int or str; a small-int key column."""
    n = draw(st.integers(1, 12))
    m = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    kind = draw(st.sampled_from(["int", "str"]))
    ids = (lambda a: a.tolist()) if kind == "int" else (lambda a: [f"n{x}" for x in a.tolist()])
    return pd.DataFrame({"source": ids(src), "target": ids(dst), "weight": rng.integers(1, 9, m).astype(float),
                         "key": rng.integers(0, 3, m)})  # fmt: skip


def _check_same(G, H, adjacency_order=True):
    """Every view riptide offers equals NetworkX's, in NetworkX's order (``adjacency_order=False``: a graph read
    from NetworkX, whose per-node neighbour order riptide does not keep, see riptide.graph.classes)."""
    assert G.is_directed() == H.is_directed() and G.is_multigraph() == H.is_multigraph()
    assert list(G) == list(H) and G.nodes == list(H.nodes)
    assert G.number_of_nodes() == H.number_of_nodes() and G.number_of_edges() == H.number_of_edges()
    assert list(G.edges) == list(H.edges)
    assert G.edges() == list(H.edges())
    assert G.edges(data=True) == list(H.edges(data=True))
    assert G.edges(data="weight", default=-1) == list(H.edges(data="weight", default=-1))
    if H.is_multigraph():
        assert G.edges(keys=True, data=True) == list(H.edges(keys=True, data=True))
    assert dict(G.degree) == dict(H.degree)
    assert dict(G.degree(weight="weight")) == pytest.approx(dict(H.degree(weight="weight")))
    for node in H if adjacency_order else []:
        assert list(G.neighbors(node)) == list(H.neighbors(node))
        if H.is_directed():
            assert list(G.predecessors(node)) == list(H.predecessors(node))
    nodes = list(H)
    for u in nodes[:4]:
        for v in nodes[-4:]:
            assert G.number_of_edges(u, v) == H.number_of_edges(u, v)
            assert G.has_edge(u, v) == H.has_edge(u, v)
            assert G.get_edge_data(u, v) == H.get_edge_data(u, v)
            if H.is_multigraph():
                assert G.has_edge(u, v, 1) == H.has_edge(u, v, 1)
    converted = G.to_networkx()
    assert type(converted) is type(H) and nx.utils.graphs_equal(converted, H)
    if adjacency_order:
        assert list(converted.adj.items()) == list(H.adj.items())


@SETTINGS
@given(multi_frames(), st.booleans(), st.booleans(), st.booleans())
def test_multigraph_from_pandas_matches_networkx(df, directed, keyed, riptide_frame):
    create = nx.MultiDiGraph if directed else nx.MultiGraph
    key = "key" if keyed else None
    H = nx.from_pandas_edgelist(df, edge_attr="weight", create_using=create, edge_key=key)
    G = rgc.from_pandas_edgelist(rt.from_pandas(df) if riptide_frame else df, edge_attr="weight",
                                 create_using=create, edge_key=key)  # fmt: skip
    _check_same(G, H)
    # conversions keep the class, keys and attributes
    _check_same(G.to_directed(), H.to_directed())
    if directed:
        _check_same(G.to_undirected(), H.to_undirected())
        _check_same(G.reverse(), H.reverse())
        assert nx.utils.graphs_equal(G.to_undirected(reciprocal=True).to_networkx(),
                                     H.to_undirected(reciprocal=True))  # fmt: skip
    _check_same(rgc.from_networkx(H), H, adjacency_order=False)
    _check_same(G.copy(), H)


@SETTINGS
@given(multi_frames(), st.sampled_from(list(NX_CLASSES)), st.data())
def test_subgraphs_and_nbunch_edges_match_networkx(df, kind, data):
    create = NX_CLASSES[kind]
    H = nx.from_pandas_edgelist(df, edge_attr="weight", create_using=create)
    G = rgc.from_pandas_edgelist(df, edge_attr="weight", create_using=create)
    nodes = list(H)
    chosen = data.draw(st.lists(st.sampled_from(nodes), max_size=6, unique=True))
    sub, hsub = G.subgraph(chosen + ["absent"]), H.subgraph(chosen)
    assert type(sub) is type(G) and set(sub) == set(hsub)
    assert nx.utils.graphs_equal(sub.to_networkx(), hsub)
    assert list(sub) == [n for n in H if n in set(chosen)]  # riptide keeps the graph's node order
    # edges(nbunch): NetworkX's order, each undirected edge once from the first listed endpoint
    assert G.edges(chosen, data=True) == list(H.edges(chosen, data=True))
    if H.is_multigraph():
        assert G.edges(chosen, keys=True) == list(H.edges(chosen, keys=True))
    picked = data.draw(st.lists(st.sampled_from(list(H.edges)), max_size=5))
    esub, hesub = G.edge_subgraph(picked), H.edge_subgraph(picked)
    assert nx.utils.graphs_equal(esub.to_networkx(), hesub)
    assert set(esub) == set(hesub)


def test_keys_as_networkx_assigns_them():
    M = rgc.from_edgelist([(1, 2), (2, 1, "x"), (1, 2), (1, 2, 0, {"w": 5}), (2, 2, {"w": 1})],
                          create_using=nx.MultiGraph)  # fmt: skip
    H = nx.MultiGraph([(1, 2), (2, 1, "x"), (1, 2), (1, 2, 0, {"w": 5}), (2, 2, {"w": 1})])
    assert list(M.edges) == list(H.edges) and M.edges[1, 2, 0] == {"w": 5}
    assert M.get_edge_data(1, 2) == H.get_edge_data(1, 2)
    assert M.get_edge_data(1, 2, "x") == {} and M.get_edge_data(1, 3, default="none") == "none"
    assert (1, 2, "x") in M.edges and (1, 2, "y") not in M.edges and (1, 2) in M.edges
    with pytest.raises(KeyError):
        M.edges[1, 2, 7]
    assert len(M.edges) == 4 and M.edges == set(H.edges)


def test_graph_views_match_networkx():
    H = nx.Graph([("a", "b", {"weight": 2.0}), ("b", "c", {}), ("c", "c", {"weight": 1.5})])
    G = rgc.from_networkx(H)
    assert G.nodes(data=True) == list(H.nodes(data=True)) and G.nodes() == list(H.nodes())
    assert G.nodes(data="x", default=0) == list(H.nodes(data="x", default=0))
    assert "a" in G.nodes and "z" not in G.nodes and G.nodes[1] == "b"
    assert [e for e in G.edges] == list(H.edges) and len(G.edges) == 3
    assert ("b", "a") in G.edges and ("a", "c") not in G.edges and ("a",) not in G.edges
    assert G.edges["b", "a"] == {"weight": 2.0} and G.edges["b", "c"] == {}
    assert G.edges("b", data=True) == list(H.edges("b", data=True))
    assert G.edges(["c", "a"], data="weight", default=1) == list(H.edges(["c", "a"], data="weight", default=1))
    with pytest.raises(NetworkXError, match="not a valid node"):
        G.edges("zz")
    with pytest.raises(KeyError):
        G.edges["a", "c"]
    assert G.get_edge_data("a", "b") == {"weight": 2.0} and G.get_edge_data("a", "c", 0) == 0
    assert G.to_undirected().edges() == G.edges() and G.copy() is not G
    D = rgc.from_networkx(nx.DiGraph([(1, 2), (2, 1), (2, 3)]))
    assert sorted(D.to_undirected(reciprocal=True).edges()) == [(1, 2)]


def test_from_pandas_edgelist_errors_and_edge_key_on_simple_graph():
    df = pd.DataFrame({"source": [1, 1], "target": [2, 2], "k": [5, 6], "w": [1.0, 2.0]})
    with pytest.raises(NetworkXError, match="Invalid edge_attr argument"):
        rgc.from_pandas_edgelist(df, edge_attr="nope")
    with pytest.raises(KeyError):  # also a KeyError, as the frame lookup's
        rgc.from_pandas_edgelist(df, edge_attr=["w", "nope"])
    with pytest.raises(NetworkXError, match="Invalid edge_attr argument: No columns"):
        rgc.from_pandas_edgelist(df, edge_attr=[])
    with pytest.raises(NetworkXError, match="Invalid edge_key argument"):
        rgc.from_pandas_edgelist(df, edge_attr="w", create_using=nx.MultiGraph, edge_key="zz")
    G = rgc.from_pandas_edgelist(df, edge_attr="w", edge_key="k")  # ignored for a Graph, as NetworkX
    assert G.edges(data=True) == [(1, 2, {"w": 2.0})]
    M = rgc.from_pandas_edgelist(df, edge_attr=True, create_using=rgc.MultiGraph, edge_key="k")
    H = nx.from_pandas_edgelist(df, edge_attr=True, create_using=nx.MultiGraph, edge_key="k")
    assert M.edges(keys=True, data=True) == list(H.edges(keys=True, data=True))


@pytest.mark.parametrize("kind", list(NX_CLASSES))
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_scipy_sparse_round_trip(kind, fmt):
    rng = np.random.default_rng(sum(kind) * 7 + len(fmt))
    dense = rng.integers(0, 3, (7, 7)) * (rng.random((7, 7)) < 0.5)
    dense[2, 3] = 0
    A = sp.csr_array(dense).asformat(fmt)
    create = NX_CLASSES[kind]
    for parallel in (False, True):
        H = nx.from_scipy_sparse_array(A, parallel_edges=parallel, create_using=create)
        G = rgc.from_scipy_sparse_array(A, parallel_edges=parallel, create_using=create)
        assert list(G) == list(H) and G.edges(data=True) == list(H.edges(data=True))
        for nodelist in (None, [6, 0, 3]):
            for weight in ("weight", None):
                for form in ("csr", "coo"):
                    got = rgc.to_scipy_sparse_array(G, nodelist=nodelist, weight=weight, format=form)
                    want = nx.to_scipy_sparse_array(H, nodelist=nodelist, weight=weight, format=form)
                    assert got.format == want.format and got.dtype == want.dtype
                    assert (got.toarray() == want.toarray()).all()
    floats = sp.coo_array(np.array([[0.5, 0.0], [2.0, 0.0]]))
    G, H = rgc.from_scipy_sparse_array(floats, edge_attribute="w"), nx.from_scipy_sparse_array(floats,
                                                                                               edge_attribute="w")
    assert G.edges(data=True) == list(H.edges(data=True))
    on_device = rgc.to_cupyx_sparse_array(G, weight="w")
    assert (_device.to_host(on_device.toarray()) == nx.to_scipy_sparse_array(H, weight="w").toarray()).all()
    assert rgc.Graph(floats).number_of_edges() == 2  # the constructor takes a sparse matrix too


def test_sparse_errors_match_networkx():
    with pytest.raises(NetworkXError, match="not square"):
        rgc.from_scipy_sparse_array(sp.csr_array(np.ones((2, 3))))
    G = rgc.from_edgelist([(1, 2)])
    with pytest.raises(NetworkXError, match="no nodes or edges"):
        rgc.to_scipy_sparse_array(rgc.Graph())
    with pytest.raises(NetworkXError, match="Node 9 in nodelist is not in G"):
        rgc.to_scipy_sparse_array(G, nodelist=[1, 9])
    with pytest.raises(NetworkXError, match="duplicates"):
        rgc.to_scipy_sparse_array(G, nodelist=[1, 1])
    with pytest.raises(NetworkXError, match="nodelist has no nodes"):
        rgc.to_scipy_sparse_array(G, nodelist=[])
    with pytest.raises(NetworkXError, match="Unknown sparse matrix format"):
        rgc.to_scipy_sparse_array(G, format="nope")


@SETTINGS
@given(multi_frames(), st.sampled_from(list(NX_CLASSES)), st.booleans())
def test_to_pandas_edgelist_matches_networkx(df, kind, with_nodelist):
    create = NX_CLASSES[kind]
    H = nx.from_pandas_edgelist(df, edge_attr=["weight"], create_using=create)
    G = rgc.from_pandas_edgelist(df, edge_attr=["weight"], create_using=create)
    nodelist = list(H)[:3] if with_nodelist else None
    # (NetworkX pairs nodelist's edges with every edge's key, a length mismatch: no edge_key with a nodelist)
    key = "ekey" if H.is_multigraph() and nodelist is None else None
    got = rgc.to_pandas_edgelist(G, nodelist=nodelist, edge_key=key).to_pandas()
    want = nx.to_pandas_edgelist(H, nodelist=nodelist, edge_key=key)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)


def test_to_pandas_edgelist_errors():
    G = rgc.from_edgelist([(1, 2, {"source": 1.0})])
    with pytest.raises(NetworkXError, match="Source name 'source' is an edge attr name"):
        rgc.to_pandas_edgelist(G)
    M = rgc.from_edgelist([(1, 2, {"k": 1.0})], create_using=rgc.MultiGraph)
    with pytest.raises(NetworkXError, match="Edge key name 'k' is an edge attr name"):
        rgc.to_pandas_edgelist(M, edge_key="k")
    assert rgc.to_pandas_edgelist(M, edge_key="key").to_pandas()["key"].tolist() == [0]


def test_mixed_type_ids_and_keys():
    H = nx.MultiGraph()
    H.add_edge(("t", 1), 2, key="a")
    H.add_edge(2, ("t", 1), key=3)
    H.add_edge(2.5, 2)
    G = rgc.from_networkx(H)
    _check_same(G, H, adjacency_order=False)
    assert G.subgraph([2, ("t", 1)]).number_of_edges() == 2
    with pytest.raises(TypeError, match="mixed"):
        rgc.to_pandas_edgelist(G)


def test_empty_multigraphs():
    for cls in (rgc.MultiGraph, rgc.MultiDiGraph):
        G = cls()
        assert G.number_of_edges() == 0 and list(G.edges) == [] and G.is_multigraph()
        assert type(G.to_networkx()) is NX_CLASSES[(G.is_directed(), True)]
    E = rgc.from_pandas_edgelist(pd.DataFrame({"source": pd.Series([], dtype="int64"),
                                               "target": pd.Series([], dtype="int64")}), create_using=nx.MultiGraph)
    assert E.number_of_nodes() == 0 and E.subgraph([]).number_of_nodes() == 0


def test_subgraph_of_device_ids():
    import riptide as rt

    H = nx.gnm_random_graph(30, 80, seed=1)
    G = rgc.from_networkx(H)
    chosen = [3, 7, 7, 11, 29, 99]
    want = H.subgraph([3, 7, 11, 29])
    for nodes in (np.array(chosen), rt.Series(chosen)):
        sub = G.subgraph(nodes)
        assert list(sub) == [n for n in H if n in {3, 7, 11, 29}] and nx.utils.graphs_equal(sub.to_networkx(), want)
    assert G.subgraph(np.array(["x"], dtype=object)).number_of_nodes() == 0


def test_edge_subgraph_keys_of_other_types():
    edges = [(1, 2), (1, 2, "x"), (2, 3)]
    M, H = rgc.from_edgelist(edges, create_using=rgc.MultiGraph), nx.MultiGraph(edges)
    picked = [(1, 2, "x"), (2, 1, 0), (2, 3, "x"), (2, 3, [1])[:2] + (0,)]
    assert nx.utils.graphs_equal(M.edge_subgraph(picked).to_networkx(), H.edge_subgraph(picked))
    for create in (rgc.MultiGraph, rgc.MultiDiGraph):
        for keyed in ([(1, 2, "a"), (1, 2, "b"), (2, 3, "a")], [(1, 2, 5), (1, 2, 7), (2, 3, 5)]):
            G = rgc.from_edgelist(keyed, create_using=create)
            E = nx.MultiGraph(keyed) if create is rgc.MultiGraph else nx.MultiDiGraph(keyed)
            query = [(1, 2, "b"), (2, 3, 5), (3, 2, "a"), (1, 2, 7.0), (9, 9, 0)]
            assert nx.utils.graphs_equal(G.edge_subgraph(query).to_networkx(), E.edge_subgraph(query))
