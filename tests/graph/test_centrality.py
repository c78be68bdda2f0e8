"""riptide.graph's centralities against NetworkX: betweenness (node and edge; exact, k-sampled with the same
seed, normalized, endpoints, weighted), closeness, Katz, eigenvector and HITS."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riptide.graph as rg
from riptide.graph import centrality
from riptide.graph.exceptions import NetworkXError, NetworkXNotImplemented, NetworkXPointlessConcept, NodeNotFound, \
    PowerIterationFailedConvergence  # fmt: skip

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def graphs(draw, weighted=True):
    """A G(n, p) edge list (ids shuffled ints or strings) with int or float weights, and its two graphs."""
    n = draw(st.integers(1, 16))
    p = draw(st.sampled_from([0.1, 0.25, 0.5]))
    seed = draw(st.integers(0, 2**31 - 1))
    directed = draw(st.booleans())
    kind = draw(st.sampled_from(["int", "float"])) if weighted else "int"
    rng = np.random.default_rng(seed)
    src, dst = np.nonzero(rng.random((n, n)) < p)
    names = rng.permutation(n).tolist() if draw(st.booleans()) else [f"n{i}" for i in range(n)]
    edges = []
    for a, b in zip(src, dst):
        w = int(rng.integers(1, 4)) if kind == "int" else float(rng.integers(1, 8)) / 4
        edges.append((names[a], names[b], {"weight": w}))
    edges = edges or [(names[0], names[-1], {"weight": 1})]
    H = nx.from_edgelist(edges, create_using=nx.DiGraph if directed else nx.Graph)
    return rg.from_edgelist(edges, create_using=rg.DiGraph if directed else rg.Graph), H


def _close(got, expected, tol=1e-9):
    assert list(got) == list(expected)
    for key in expected:
        assert got[key] == pytest.approx(expected[key], rel=tol, abs=tol, nan_ok=True), key


@SETTINGS
@given(graphs(), st.booleans(), st.booleans(), st.sampled_from([None, "weight"]))
def test_betweenness_matches_networkx(pair, normalized, endpoints, weight):
    G, H = pair
    kw = {"normalized": normalized, "endpoints": endpoints, "weight": weight}
    _close(rg.betweenness_centrality(G, **kw), nx.betweenness_centrality(H, **kw))
    ekw = {"normalized": normalized, "weight": weight}
    _close(rg.edge_betweenness_centrality(G, **ekw), nx.edge_betweenness_centrality(H, **ekw))


@SETTINGS
@given(graphs(weighted=False), st.integers(1, 16), st.integers(0, 10**6), st.booleans(), st.booleans())
def test_k_sampled_betweenness_uses_networkx_sample(pair, k, seed, normalized, endpoints):
    G, H = pair
    k = min(k, len(H))
    kw = {"k": k, "normalized": normalized, "endpoints": endpoints}
    _close(rg.betweenness_centrality(G, seed=seed, **kw), nx.betweenness_centrality(H, seed=seed, **kw))
    # a random.Random instance is drawn from exactly as NetworkX draws from it
    _close(rg.betweenness_centrality(G, seed=random.Random(seed), **kw),
           nx.betweenness_centrality(H, seed=random.Random(seed), **kw))  # fmt: skip
    _close(rg.edge_betweenness_centrality(G, k=k, seed=seed), nx.edge_betweenness_centrality(H, k=k, seed=seed))


@SETTINGS
@given(graphs(), st.booleans(), st.sampled_from([None, "weight"]), st.data())
def test_closeness_matches_networkx(pair, wf_improved, distance, data):
    G, H = pair
    _close(rg.closeness_centrality(G, distance=distance, wf_improved=wf_improved),
           nx.closeness_centrality(H, distance=distance, wf_improved=wf_improved))  # fmt: skip
    u = data.draw(st.sampled_from(list(H)))
    assert rg.closeness_centrality(G, u, distance) == pytest.approx(nx.closeness_centrality(H, u, distance))


@SETTINGS
@given(graphs(), st.sampled_from([None, "weight"]), st.booleans())
def test_katz_and_eigenvector_match_networkx(pair, weight, normalized):
    G, H = pair
    kw = {"alpha": 0.05, "weight": weight, "normalized": normalized, "tol": 1e-10}
    try:
        expected = nx.katz_centrality(H, **kw)
    except nx.PowerIterationFailedConvergence:  # alpha above 1 / the largest eigenvalue: both diverge
        with pytest.raises(PowerIterationFailedConvergence):
            rg.katz_centrality(G, **kw)
    else:
        _close(rg.katz_centrality(G, **kw), expected, 1e-8)
    try:
        expected = nx.eigenvector_centrality(H, weight=weight, max_iter=300)
    except nx.PowerIterationFailedConvergence:
        with pytest.raises(PowerIterationFailedConvergence):
            rg.eigenvector_centrality(G, weight=weight, max_iter=300)
    else:
        _close(rg.eigenvector_centrality(G, weight=weight, max_iter=300), expected, 1e-8)


def test_batches_and_larger_graphs():
    H = nx.gnm_random_graph(300, 900, seed=4, directed=True)
    G = rg.from_networkx(H)
    old = centrality._state_budget
    centrality._state_budget = lambda xp: 2000  # force many batches of a few sources
    try:
        _close(rg.betweenness_centrality(G), nx.betweenness_centrality(H))
        _close(rg.betweenness_centrality(G, k=37, seed=3, endpoints=True),
               nx.betweenness_centrality(H, k=37, seed=3, endpoints=True))  # fmt: skip
        _close(rg.closeness_centrality(G), nx.closeness_centrality(H))
    finally:
        centrality._state_budget = old
    U = nx.karate_club_graph()
    _close(rg.betweenness_centrality(U, weight="weight"), nx.betweenness_centrality(U, weight="weight"))
    _close(rg.edge_betweenness_centrality(U), nx.edge_betweenness_centrality(U))
    _close(rg.eigenvector_centrality(U), nx.eigenvector_centrality(U), 1e-8)


def test_katz_and_eigenvector_options_and_errors():
    H = nx.DiGraph([(1, 2), (2, 3), (3, 1), (3, 4)])
    G = rg.from_networkx(H)
    beta = {1: 1.0, 2: 0.5, 3: 2.0, 4: 1.0}
    nstart = {1: 1.0, 2: 2.0, 3: 0.5, 4: 1.0}
    _close(rg.katz_centrality(G, beta=beta, nstart=nstart), nx.katz_centrality(H, beta=beta, nstart=nstart), 1e-8)
    with pytest.raises(NetworkXError, match="beta dictionary must have a value for every node"):
        rg.katz_centrality(G, beta={1: 1.0})
    with pytest.raises(PowerIterationFailedConvergence):
        rg.katz_centrality(G, max_iter=1)
    assert rg.katz_centrality(rg.DiGraph()) == {}
    with pytest.raises(NetworkXPointlessConcept, match="null graph"):
        rg.eigenvector_centrality(rg.DiGraph())
    with pytest.raises(NetworkXError, match="all zero"):
        rg.eigenvector_centrality(G, nstart={1: 0, 2: 0, 3: 0, 4: 0})
    U = nx.karate_club_graph()
    start = {v: (v % 3) + 1.0 for v in U}
    _close(rg.eigenvector_centrality(U, nstart=start), nx.eigenvector_centrality(U, nstart=start), 1e-8)
    with pytest.raises(NodeNotFound):
        rg.closeness_centrality(G, 99)
    assert rg.betweenness_centrality(rg.DiGraph()) == {} == rg.closeness_centrality(rg.DiGraph())
    with pytest.raises(ValueError):  # as random.sample: more sources than nodes
        rg.betweenness_centrality(G, k=10, seed=1)


@pytest.mark.parametrize("make", [
    lambda: nx.karate_club_graph(),
    lambda: nx.gnp_random_graph(60, 0.1, seed=8, directed=True),
    lambda: nx.DiGraph([(1, 2, {"weight": 3.0}), (1, 3, {}), (2, 3, {"weight": 0.5}), (3, 1, {})]),
])  # fmt: skip
def test_hits_matches_networkx(make):
    H = make()
    hubs, authorities = rg.hits(H)
    xh, xa = nx.hits(H)
    _close(hubs, xh, 1e-6)
    _close(authorities, xa, 1e-6)
    raw_h, raw_a = rg.hits(H, normalized=False)  # unit authority vector, sign fixed non-negative
    assert sum(v * v for v in raw_a.values()) == pytest.approx(1.0)
    ratio = sum(raw_h.values()) / sum(hubs.values())
    assert all(raw_h[k] == pytest.approx(hubs[k] * ratio, abs=1e-9) for k in hubs)


def test_hits_edge_cases():
    assert rg.hits(rg.DiGraph()) == ({}, {})
    with pytest.raises(PowerIterationFailedConvergence):
        rg.hits(nx.path_graph(3), max_iter=0)
    K = nx.karate_club_graph()  # (a bipartite graph has a double leading singular value: the answer then depends
    start = {v: 1.0 + v for v in K}  # on the start vector, in ARPACK as here)
    _close(rg.hits(K, nstart=start)[0], nx.hits(K, nstart=start)[0], 1e-6)


@pytest.mark.parametrize("directed", [False, True])
def test_zero_weight_edges_count_each_shortest_path_once(directed):
    """A zero-weight edge is a tight arc both ways: its endpoints must not be counted as intermediates. Where
    NetworkX's counts are path counts (a zero-weight edge between two endpoints), the results are NetworkX's; a
    zero-weight path gets the betweenness of the same graph with a weight so small that no tie changes."""
    edges = [(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0), (3, 4, 0.0)] + ([(4, 3, 0.0)] if directed else [])
    cls, ncls = (rg.DiGraph, nx.DiGraph) if directed else (rg.Graph, nx.Graph)
    G = rg.from_edgelist([(u, v, {"weight": w}) for u, v, w in edges], create_using=cls)
    H = nx.from_edgelist([(u, v, {"weight": w}) for u, v, w in edges], create_using=ncls)
    _close(rg.betweenness_centrality(G, weight="weight"), nx.betweenness_centrality(H, weight="weight"))
    path = [(0, 1, 0.0), (1, 2, 0.0), (0, 2, 1.0), (2, 3, 0.0)]
    tiny = [(u, v, {"weight": w if w else 1e-9}) for u, v, w in path]
    G = rg.from_edgelist([(u, v, {"weight": w}) for u, v, w in path], create_using=cls)
    H = nx.from_edgelist(tiny, create_using=ncls)
    for normalized in (True, False):
        _close(rg.betweenness_centrality(G, weight="weight", normalized=normalized),
               nx.betweenness_centrality(H, weight="weight", normalized=normalized))
        _close(rg.edge_betweenness_centrality(G, weight="weight", normalized=normalized),
               nx.edge_betweenness_centrality(H, weight="weight", normalized=normalized))


def test_negative_weights():
    """Directed negative arcs without a negative cycle: NetworkX's values; an undirected negative edge (a negative
    cycle) raises Dijkstra's ValueError instead of relaxing forever."""
    edges = [(0, 1, {"weight": -1.0}), (1, 2, {"weight": 2.0}), (0, 2, {"weight": 3.0}), (3, 4, {"weight": 1.0})]
    G, H = rg.from_edgelist(edges, create_using=rg.DiGraph), nx.from_edgelist(edges, create_using=nx.DiGraph)
    _close(rg.betweenness_centrality(G, weight="weight"), nx.betweenness_centrality(H, weight="weight"))
    _close(rg.edge_betweenness_centrality(G, weight="weight"), nx.edge_betweenness_centrality(H, weight="weight"))
    _close(rg.closeness_centrality(G, distance="weight"), nx.closeness_centrality(H, distance="weight"))
    G, H = rg.from_edgelist(edges), nx.from_edgelist(edges)
    with pytest.raises(ValueError, match="negative weights"):
        nx.closeness_centrality(H, distance="weight")
    for call in (lambda: rg.closeness_centrality(G, distance="weight"),
                 lambda: rg.betweenness_centrality(G, weight="weight"),
                 lambda: rg.edge_betweenness_centrality(G, weight="weight")):
        with pytest.raises(ValueError, match="negative weights"):
            call()


def test_katz_and_eigenvector_refuse_multigraphs_as_networkx():
    H = nx.MultiGraph([(0, 1), (0, 1), (1, 2)])
    for name in ("katz_centrality", "eigenvector_centrality"):
        with pytest.raises(nx.NetworkXNotImplemented, match="multigraph"):
            getattr(nx, name)(H)
        for graph in (rg.from_networkx(H), rg.from_networkx(nx.MultiDiGraph(H))):
            with pytest.raises(NetworkXNotImplemented, match="multigraph"):
                getattr(rg, name)(graph)


def test_zero_weights_count_the_paths_of_fewest_hops():
    """On random graphs with zero and distinct positive weights: NetworkX's betweenness with each zero weight
    made tiny (1e-9), i.e. among zero-length stretches the paths of fewest hops."""
    rng = random.Random(5)
    for _ in range(40):
        n, directed = rng.randint(2, 9), rng.random() < 0.5
        edges, tiny = [], []
        for _ in range(rng.randint(1, 2 * n)):
            u, v = rng.randrange(n), rng.randrange(n)
            if u != v:
                w = 0.0 if rng.random() < 0.4 else round(rng.random() * 10, 6) + 0.01
                edges.append((u, v, {"weight": w}))
                tiny.append((u, v, {"weight": w or 1e-9}))
        cls, ncls = (rg.DiGraph, nx.DiGraph) if directed else (rg.Graph, nx.Graph)
        G, H = rg.from_edgelist(edges, create_using=cls), nx.from_edgelist(tiny, create_using=ncls)
        if not edges:
            continue
        _close(rg.betweenness_centrality(G, weight="weight"), nx.betweenness_centrality(H, weight="weight"), 1e-6)
        _close(rg.edge_betweenness_centrality(G, weight="weight"), nx.edge_betweenness_centrality(H, weight="weight"),
               1e-6)


# ---------------------------------------------------------------------- multigraphs

CLASSES = [(rg.Graph, nx.Graph), (rg.DiGraph, nx.DiGraph), (rg.MultiGraph, nx.MultiGraph),
           (rg.MultiDiGraph, nx.MultiDiGraph)]  # fmt: skip


@st.composite
def multigraphs(draw):
    """A small edge list with parallel edges (equal and unequal weights, some without one), reversed pairs and
    self loops, and the riptide and NetworkX graphs of one of the four classes built from it."""
    n = draw(st.integers(1, 9))
    m = draw(st.integers(1, 24))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    names = rng.permutation(n).tolist() if draw(st.booleans()) else [f"n{i}" for i in range(n)]
    rcls, ncls = draw(st.sampled_from(CLASSES))
    # edges without a weight (1) in multigraphs only: a Graph/DiGraph collapses a repeated pair to its last row's
    # attributes, where NetworkX merges the rows' dicts (a weight given earlier stays)
    missing = 0.15 if ncls.is_multigraph(ncls) else 0.0
    edges = []
    for a, b in zip(rng.integers(0, n, m).tolist(), rng.integers(0, n, m).tolist()):
        edges.append((names[a], names[b], {} if rng.random() < missing else {"weight": int(rng.integers(1, 4))}))
        if rng.random() < 0.3:  # a parallel edge (a reversed one in an undirected graph)
            edges.append((names[b], names[a], {"weight": int(rng.integers(1, 4))}))
    return rg.from_edgelist(edges, create_using=rcls), nx.from_edgelist(edges, create_using=ncls)


def test_betweenness_on_multigraphs_matches_networkx():
    """NetworkX's betweenness sees a multigraph's parallel edges as one neighbour (of the least weight), and
    splits an edge pair's betweenness evenly among its edges of least weight, keyed ``(u, v, key)``."""
    edges = [(0, 1, {"weight": 2}), (0, 1, {"weight": 1}), (1, 0, {"weight": 1}), (1, 2, {"weight": 1}),
             (0, 2, {"weight": 3}), (2, 2, {"weight": 1}), (2, 2, {}), (2, 3, {}), (0, 3, {"weight": 5}),
             (3, 4, {"weight": 2}), (3, 4, {"weight": 2}), (4, 0, {})]  # fmt: skip
    for rcls, ncls in CLASSES:
        G, H = rg.from_edgelist(edges, create_using=rcls), nx.from_edgelist(edges, create_using=ncls)
        for weight in (None, "weight"):
            for normalized in (True, False):
                for endpoints in (True, False):
                    kw = {"normalized": normalized, "endpoints": endpoints, "weight": weight}
                    _close(rg.betweenness_centrality(G, **kw), nx.betweenness_centrality(H, **kw))
                    kw = {"normalized": normalized, "weight": weight, "k": 3, "seed": 7, "endpoints": endpoints}
                    _close(rg.betweenness_centrality(G, **kw), nx.betweenness_centrality(H, **kw))
                kw = {"normalized": normalized, "weight": weight}
                _close(rg.edge_betweenness_centrality(G, **kw), nx.edge_betweenness_centrality(H, **kw))
                _close(rg.edge_betweenness_centrality(G, k=2, seed=3, **kw),
                       nx.edge_betweenness_centrality(H, k=2, seed=3, **kw))  # fmt: skip
    # a graph read from NetworkX (its edges may be listed in another order: compare as dicts)
    H = nx.MultiDiGraph(edges)
    G = rg.from_networkx(H)
    assert dict(rg.betweenness_centrality(G, weight="weight")) == pytest.approx(
        nx.betweenness_centrality(H, weight="weight"))  # fmt: skip
    assert rg.edge_betweenness_centrality(G) == pytest.approx(nx.edge_betweenness_centrality(H))


@SETTINGS
@given(multigraphs(), st.booleans(), st.booleans(), st.sampled_from([None, "weight"]), st.data())
def test_betweenness_on_random_multigraphs_matches_networkx(pair, normalized, endpoints, weight, data):
    G, H = pair
    kw = {"normalized": normalized, "endpoints": endpoints, "weight": weight}
    _close(rg.betweenness_centrality(G, **kw), nx.betweenness_centrality(H, **kw))
    ekw = {"normalized": normalized, "weight": weight}
    _close(rg.edge_betweenness_centrality(G, **ekw), nx.edge_betweenness_centrality(H, **ekw))
    k = data.draw(st.integers(1, len(H)))
    seed = data.draw(st.integers(0, 10**6))
    _close(rg.betweenness_centrality(G, k=k, seed=seed, **kw), nx.betweenness_centrality(H, k=k, seed=seed, **kw))
    _close(rg.edge_betweenness_centrality(G, k=k, seed=seed, **ekw),
           nx.edge_betweenness_centrality(H, k=k, seed=seed, **ekw))  # fmt: skip
