"""NodeMap, the per-node answer that stays on the device until read, against the dict NetworkX returns.

Each algorithm with a per-node answer (pagerank, degree_centrality, single_source_shortest_path_length) runs on
random graphs with NetworkX on the same graph, and every common dict use is compared: len, [], get, in, iteration
order, views, ==, dict(), pd.Series(), sorting, max by value, reversed, copy, |, pickling, repr, mutation.
"""

from __future__ import annotations

import copy
import gc
import json
import pickle
from collections.abc import Mapping

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riptide as rt
import riptide.graph as rg
from riptide import _device
from riptide.graph.backend import BackendInterface
from riptide.graph.results import NodeMap

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def graphs(draw):
    """A (riptide graph, NetworkX graph) pair: G(n, p) over int or string ids, possibly with isolated nodes."""
    n = draw(st.integers(1, 20))
    p = draw(st.sampled_from([0.0, 0.1, 0.3]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    src, dst = np.nonzero(rng.random((n, n)) < p)
    order = rng.permutation(src.size)
    src, dst = src[order], dst[order]
    if src.size == 0:
        src, dst = np.array([0]), np.array([n - 1])
    kind = draw(st.sampled_from(["int", "str"]))
    ids = (lambda a: a.tolist()) if kind == "int" else (lambda a: [f"n{x}é" for x in a.tolist()])
    df = pd.DataFrame({"source": ids(src), "target": ids(dst)})
    directed = draw(st.booleans())
    H = nx.from_pandas_edgelist(df, create_using=nx.DiGraph if directed else nx.Graph)
    if draw(st.booleans()):  # isolated nodes: through a NetworkX graph (an edge list cannot hold them)
        H.add_nodes_from(ids(np.array([100, 101])))
        return rg.from_networkx(H), H, directed  # an undirected one may order a node's later neighbours otherwise
    frame = rt.from_pandas(df) if draw(st.booleans()) else df
    return rg.from_pandas_edgelist(frame, create_using=rg.DiGraph if directed else rg.Graph), H, True


def _answers(G, H, source, exact_order):
    yield rg.pagerank(G), nx.pagerank(H), True
    yield rg.degree_centrality(G), nx.degree_centrality(H), True
    yield rg.single_source_shortest_path_length(G, source), nx.single_source_shortest_path_length(H, source), \
        exact_order  # fmt: skip


def _close(a, b):
    return a == pytest.approx(b, rel=1e-9, abs=1e-12)


@SETTINGS
@given(graphs(), st.data())
def test_node_map_reads_as_the_networkx_dict(pair, data):
    G, H, exact_order = pair
    source = data.draw(st.sampled_from(list(H)))
    for got, expected, node_order in _answers(G, H, source, exact_order):
        assert isinstance(got, NodeMap) and isinstance(got, Mapping) and not isinstance(got, dict)
        assert got._host is None  # nothing read yet
        assert len(got) == len(expected)
        series = got.to_series("v").to_pandas()  # straight from the device
        assert got._host is None
        assert series.name == "v" and _close(series.to_dict(), expected) and list(series.index) == list(got)
        assert _device.namespace_of(got.values_array()) is G.xp
        # iteration order: NetworkX's (node order; BFS discovery order for distances)
        if node_order:
            assert list(got) == list(expected)
        else:
            assert set(got) == set(expected) and list(got.values()) == sorted(expected.values())
        assert _close(got, expected) and _close(dict(got), expected)
        for node in expected:
            assert node in got and _close(got[node], expected[node]) and _close(got.get(node), expected[node])
        assert "missing" not in got and got.get("missing", -1) == -1
        with pytest.raises(KeyError):
            got["missing"]
        with pytest.raises(TypeError):  # as a dict
            got[[1]]
        with pytest.raises(TypeError):
            [1] in got  # noqa: B015
        assert got.keys() == expected.keys() and len(got.items()) == len(expected)
        assert all(type(v) in (int, float) for v in got.values())  # Python numbers, as NetworkX gives
        assert type(dict(got)) is dict and type(got.copy()) is dict
        exact = dict(got)
        assert got == exact and exact == got and (got != exact) is False and got == NodeMap._from_dict(dict(exact))
        assert got != {**exact, "extra": 1} and got != [1] and (got == 5) is False
        assert repr(got) == repr(exact) and str(got) == str(exact)
        assert list(reversed(got)) == list(reversed(exact))
        assert sorted(got.items(), key=lambda kv: (kv[1], str(kv[0]))) == \
            sorted(exact.items(), key=lambda kv: (kv[1], str(kv[0])))  # fmt: skip
        best = max(got, key=got.get)
        assert _close(got[best], max(expected.values()))
        pd.testing.assert_series_equal(pd.Series(got), pd.Series(exact))
        assert (got | {"z": 1}) == {**exact, "z": 1} and ({"z": 1} | got) == {"z": 1, **exact}
        loaded = pickle.loads(pickle.dumps(got))
        assert type(loaded) is NodeMap and loaded == exact and list(loaded) == list(exact)
        assert copy.deepcopy(got) == exact and json.dumps(dict(got)) == json.dumps(exact)


def test_json_and_isinstance_dict_are_loud_not_silent():
    pr = rg.pagerank(rg.from_edgelist([(1, 2), (2, 3)]))
    with pytest.raises(TypeError, match="not JSON serializable"):
        json.dumps(pr)  # a dict subclass would have dumped "{}" here: see the module docstring
    with pytest.raises(TypeError, match="unhashable"):
        hash(pr)


def test_mutation_moves_the_answer_to_the_host():
    G = rg.from_edgelist([("a", "b"), ("b", "c")])
    d = rg.degree_centrality(G)
    d["a"] = 7.0
    del d["c"]
    d.update({"x": 1.5})
    assert d == {"a": 7.0, "b": 1.0, "x": 1.5} and list(d) == ["a", "b", "x"] and len(d) == 3
    assert d.to_series().to_pandas().to_dict() == {"a": 7.0, "b": 1.0, "x": 1.5}
    assert _device.to_host(d.values_array()).tolist() == [7.0, 1.0, 1.5]
    assert d.pop("x") == 1.5 and d.setdefault("q", 2.0) == 2.0 and d == {"a": 7.0, "b": 1.0, "q": 2.0}
    d |= {"r": 0.0}
    assert d == {"a": 7.0, "b": 1.0, "q": 2.0, "r": 0.0} and isinstance(d, NodeMap)
    d.clear()
    assert d == {} and len(d) == 0


def test_answer_outlives_its_graph():
    G = rg.from_edgelist([("a", "b"), ("b", "c"), ("d", "e")], create_using=rg.DiGraph)
    pr = rg.pagerank(G)
    hops = rg.single_source_shortest_path_length(G, "b")
    del G
    gc.collect()
    assert list(pr) == ["a", "b", "c", "d", "e"] and hops == {"b": 0, "c": 1}
    assert hops.to_series().to_pandas().to_dict() == {"b": 0, "c": 1}


def test_empty_and_one_node_answers():
    empty = rg.pagerank(rg.Graph())
    assert empty == {} and len(empty) == 0 and list(empty) == [] and repr(empty) == "{}"
    assert len(empty.to_series()) == 0
    one = rg.degree_centrality(rg.from_networkx(nx.empty_graph(1)))
    assert one == {0: 1} and type(one[0]) is int
    assert rg.degree_centrality(rg.Graph()) == nx.degree_centrality(nx.Graph()) == {}


def test_mixed_ids_keep_host_labels():
    H = nx.Graph([(("a", 1), 3), (3, "x")])
    got = rg.degree_centrality(rg.from_networkx(H))
    assert got == nx.degree_centrality(H) and list(got) == list(H)
    assert got.to_series().to_pandas().to_dict() == {("a", 1): 0.5, 3: 1.0, "x": 0.5}


def test_backend_hands_networkx_plain_dicts():
    H = nx.gnp_random_graph(30, 0.2, seed=3, directed=True)
    G = BackendInterface.convert_from_nx(H, edge_attrs={"weight": 1})
    for name, args in [("pagerank", ()), ("degree_centrality", ()), ("single_source_shortest_path_length", (0,))]:
        got = getattr(BackendInterface, name)(G, *args)
        assert type(got) is dict, name
        assert _close(got, getattr(nx, name)(H, *args, backend="networkx"))
    assert type(BackendInterface.convert_to_nx(rg.pagerank(G))) is dict
