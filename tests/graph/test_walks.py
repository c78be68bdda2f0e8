"""Random walks: every path follows arcs, ends only where it must, and steps with the right probabilities
(uniform, weight-biased, node2vec's p/q biases), checked statistically over many walkers with a fixed seed."""

from __future__ import annotations

import itertools
from collections import Counter

import networkx as nx
import numpy as np
import pytest

from riptide.graph import classes as rgc
from riptide.graph import walks


def _paths(paths, sizes):
    flat = paths.to_pandas().tolist()
    out, at = [], 0
    for size in sizes.to_pandas().tolist():
        out.append(flat[at:at + size])
        at += size
    return out


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("kind", ["uniform", "biased", "node2vec"])
def test_paths_follow_arcs_and_end_only_at_sinks(directed, kind):
    H = nx.gnp_random_graph(40, 0.06, seed=2, directed=directed)
    for u, v in H.edges:
        H[u][v]["weight"] = float((u * 7 + v) % 5 + 1)
    H = nx.relabel_nodes(H, {i: f"v{i}" for i in H})
    G = rgc.from_networkx(H)
    starts = list(H)[:25] * 2
    if kind == "node2vec":
        paths, weights, sizes = walks.node2vec(G, starts, max_depth=6, p=0.7, q=3.0, seed=4)
    else:
        paths, weights, sizes = walks.random_walks(G, kind, starts, 6, seed=4)
    assert paths.name == "vertex_paths" and sizes.to_pandas().dtype == np.int64
    walked = _paths(paths, sizes)
    assert [p[0] for p in walked] == starts
    flat_weights = weights.to_pandas().tolist()
    expected_weights = []
    for path in walked:
        assert 1 <= len(path) <= 6
        for a, b in itertools.pairwise(path):
            assert H.has_edge(a, b)
            expected_weights.append(H[a][b]["weight"])
        if len(path) < 6:  # ended early: no way out
            assert H.out_degree(path[-1]) == 0 if directed else H.degree(path[-1]) == 0
    assert flat_weights == expected_weights


def test_uniform_and_biased_step_frequencies():
    H = nx.Graph()
    H.add_weighted_edges_from([(0, 1, 1.0), (0, 2, 3.0), (0, 3, 6.0), (0, 4, 0.0)])
    G = rgc.from_networkx(H)
    k = 20000
    for kind, probabilities in (("uniform", [0.25] * 4), ("biased", [0.1, 0.3, 0.6, 0.0])):
        paths, _, sizes = walks.random_walks(G, kind, [0] * k, 2, seed=11)
        counts = Counter(p[1] for p in _paths(paths, sizes))
        for node, prob in zip([1, 2, 3, 4], probabilities):
            assert abs(counts[node] / k - prob) < 0.02, (kind, node, counts)


def test_node2vec_second_step_frequencies():
    # walkers go 0 -> 1, then from 1 choose among 0 (return: 1/p), 2 (a neighbour of 0: 1) and 3 (1/q)
    H = nx.Graph([(0, 1), (0, 2), (1, 2), (1, 3)])
    G = rgc.from_networkx(nx.Graph([(0, 1), (0, 2), (1, 2), (1, 3)]))
    p, q, k = 0.5, 4.0, 30000
    paths, _, sizes = walks.node2vec(G, [0] * k, max_depth=3, p=p, q=q, seed=3)
    second = Counter(path[2] for path in _paths(paths, sizes) if path[1] == 1)
    alpha = {0: 1 / p, 2: 1.0, 3: 1 / q}
    total = sum(alpha.values())
    n = sum(second.values())
    assert n > 0.4 * k
    for node, a in alpha.items():
        assert abs(second[node] / n - a / total) < 0.02, second
    assert H.number_of_edges() == 4


def test_padding_seed_and_errors():
    G = rgc.from_edgelist([("a", "b"), ("b", "c")], create_using=rgc.DiGraph)
    paths, weights, sizes = walks.random_walks(G, start_vertices=["a", "c"], max_depth=3, use_padding=True)
    assert sizes is None
    host = paths.to_pandas()
    assert host[:4].tolist() == ["a", "b", "c", "c"] and host.isna().tolist() == [False] * 4 + [True] * 2
    assert weights.to_pandas().isna().tolist() == [False, False, True, True]
    paths, _, sizes = walks.node2vec(G, ["a"], max_depth=2, compress_result=False)
    assert paths.to_pandas().tolist() == ["a", "b"] and sizes is None
    U = rgc.from_networkx(nx.karate_club_graph())
    one = walks.random_walks(U, start_vertices=[0, 5], max_depth=8, seed=9)[0].to_pandas().tolist()
    assert one == walks.random_walks(U, start_vertices=[0, 5], max_depth=8, seed=9)[0].to_pandas().tolist()
    everyone = walks.random_walks(U, max_depth=1)[0].to_pandas().tolist()
    assert everyone == list(range(34))  # start_vertices=None: every node once
    with pytest.raises(nx.NodeNotFound, match="Node zz not in G"):
        walks.random_walks(G, start_vertices=["zz"], max_depth=2)
    with pytest.raises(ValueError, match="random_walks_type"):
        walks.random_walks(G, "node2vec", ["a"], 2)
    with pytest.raises(TypeError, match="max_depth"):
        walks.random_walks(G, start_vertices=["a"])
    with pytest.raises(ValueError, match="at least 1"):
        walks.node2vec(G, ["a"], max_depth=0)
    with pytest.raises(ValueError, match="positive"):
        walks.node2vec(G, ["a"], max_depth=2, p=0)
    negative = rgc.from_edgelist([(1, 2, {"weight": -1.0})])
    with pytest.raises(ValueError, match="non-negative"):
        walks.random_walks(negative, "biased", [1], 3)
    assert walks.random_walks(negative, "uniform", [1], 3)[1].to_pandas().tolist() == [-1.0, -1.0]
    assert walks.random_walks(rgc.from_edgelist([(1, 2)]), start_vertices=rgc.from_edgelist([(1, 2)]).nodes[:1],
                              max_depth=2)[2].to_pandas().tolist() == [2]  # fmt: skip


def test_start_vertices_as_device_arrays_and_series():
    import pandas as pd

    import riptide as rt

    G = rgc.from_edgelist([("a", "b"), ("b", "c")], create_using=rgc.DiGraph)
    for starts in (pd.Series(["c", "a"]), rt.Series(["c", "a"]), np.array(["c", "a"], dtype=object)):
        paths, _, sizes = walks.random_walks(G, start_vertices=starts, max_depth=3)
        assert paths.to_pandas().tolist() == ["c", "a", "b", "c"] and sizes.to_pandas().tolist() == [1, 3]
    with pytest.raises(nx.NodeNotFound, match="Node q not in G"):
        walks.random_walks(G, start_vertices=rt.Series(["a", "q"]), max_depth=3)
    with pytest.raises(nx.NodeNotFound, match="not in G"):
        walks.random_walks(G, start_vertices=np.array([1, 2]), max_depth=3)
    N = rgc.from_edgelist([(10, 20), (20, 30)])
    paths, _, _ = walks.random_walks(N, start_vertices=np.array([30, 10], dtype=np.int32), max_depth=1)
    assert paths.to_pandas().tolist() == [30, 10]
