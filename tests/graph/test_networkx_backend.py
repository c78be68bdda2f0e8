"""NetworkX dispatches to riptide: ``nx.pagerank(G, backend="riptide")`` and ``NETWORKX_BACKEND_PRIORITY=riptide``.

NetworkX reads its backends from installed entry points when it is imported. An installed riptide (CI's
``pip install '.[test]'``) has them; an older editable install may not, so the dispatch test runs in a fresh
interpreter which, in that case only, sees a minimal distribution carrying the same entry points as pyproject.toml.
"""

from __future__ import annotations

import importlib
import inspect
import os
import subprocess
import sys
import textwrap
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import networkx as nx
from networkx.utils.backends import _registered_algorithms  # NetworkX's dispatchable functions by name
import pytest

from riptide_nx_info import FUNCTIONS, get_info
from riptide.graph.backend import BackendInterface

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
GROUPS = ("networkx.backends", "networkx.backend_info")


def _declared_entry_points() -> dict[str, dict[str, str]]:
    if PYPROJECT.exists():
        return tomllib.loads(PYPROJECT.read_text())["project"]["entry-points"]
    return {group: {ep.name: ep.value for ep in entry_points(group=group)} for group in GROUPS}


def test_entry_points_resolve_to_the_backend():
    declared = _declared_entry_points()
    for group in GROUPS:
        module, _, attr = declared[group]["riptide"].partition(":")
        assert getattr(importlib.import_module(module), attr) is not None
    assert declared["networkx.backends"]["riptide"] == "riptide.graph.backend:BackendInterface"
    assert set(get_info()["functions"]) == set(FUNCTIONS)
    for name in FUNCTIONS:  # every advertised function exists with NetworkX's parameters
        assert callable(getattr(BackendInterface, name))
        ours = list(inspect.signature(getattr(BackendInterface, name)).parameters)
        theirs = list(inspect.signature(_registered_algorithms[name].orig_func).parameters)
        assert ours == theirs, name


def test_backend_interface_conversions():
    H = nx.DiGraph([(1, 2, {"weight": 3.0}), (2, 3, {})])
    G = BackendInterface.convert_from_nx(H, edge_attrs={"weight": 1}, preserve_edge_attrs=False)
    assert G.__networkx_backend__ == "riptide" and G.number_of_edges() == 2
    assert dict(G.out_degree(weight="weight")) == {1: 3.0, 2: 1.0, 3: 0.0}
    expected = nx.DiGraph([(1, 2, {"weight": 3.0}), (2, 3, {"weight": 1})])
    assert nx.utils.graphs_equal(BackendInterface.convert_to_nx(G), expected)
    assert BackendInterface.convert_to_nx({1: 0.5}) == {1: 0.5}
    assert BackendInterface.can_run("pagerank", (H,), {}) is True
    assert isinstance(BackendInterface.can_run("pagerank", (nx.MultiGraph(),), {}), str)
    assert isinstance(BackendInterface.can_run("not_an_algorithm", (H,), {}), str)


_DISPATCH_SCRIPT = textwrap.dedent("""
    import networkx as nx
    from riptide.graph.backend import BackendInterface
    assert "riptide" in nx.utils.backends.backends, nx.utils.backends.backends
    calls = []
    original = BackendInterface.pagerank
    BackendInterface.pagerank = staticmethod(lambda *a, **k: calls.append(1) or original(*a, **k))
    H = nx.gnp_random_graph(50, 0.1, seed=4, directed=True)
    for u, v in H.edges:
        H[u][v]["weight"] = (u + v) % 4 + 1
    expected = nx.pagerank(H, backend="networkx")
    got = nx.pagerank(H, backend="riptide")
    assert calls == [1] and got.keys() == expected.keys() and type(got) is dict  # NetworkX's result type
    assert max(abs(got[k] - expected[k]) for k in got) < 1e-9
    assert nx.config.backend_priority.algos == ["riptide"]  # NETWORKX_BACKEND_PRIORITY=riptide: no argument needed
    nx.pagerank(H, weight=None)
    assert calls == [1, 1], calls
    U = nx.Graph([(1, 2), (3, 4), (4, 5)])
    assert list(nx.connected_components(U, backend="riptide")) == [{1, 2}, {3, 4, 5}]
    assert nx.single_source_shortest_path_length(U, 3, backend="riptide") == {3: 0, 4: 1, 5: 2}
    assert type(nx.degree_centrality(U, backend="riptide")) is dict
    W = nx.gnp_random_graph(30, 0.15, seed=3, directed=True)
    for i, (u, v) in enumerate(W.edges):
        if i % 3:  # the others default to weight 1, as NetworkX's d.get(weight, 1)
            W[u][v]["weight"] = (u + 2 * v) % 7 + 1
    assert nx.single_source_dijkstra(W, 0, backend="riptide") == nx.single_source_dijkstra(W, 0, backend="networkx")
    got = nx.betweenness_centrality(W, k=7, seed=2, weight="weight", backend="riptide")
    expected = nx.betweenness_centrality(W, k=7, seed=2, weight="weight", backend="networkx")
    assert type(got) is dict and max(abs(got[k] - expected[k]) for k in got) < 1e-12
    assert isinstance(nx.bfs_tree(W, 0, backend="riptide"), nx.DiGraph)
    print("dispatch ok")
""")


def test_networkx_dispatches_to_riptide(tmp_path):
    env = dict(os.environ, NETWORKX_BACKEND_PRIORITY="riptide")
    installed = {ep.name for ep in entry_points(group="networkx.backends")}
    if "riptide" not in installed:
        # A minimal distribution with pyproject's entry points, visible to the child interpreter only.
        dist = tmp_path / "riptide_nx_entry_points-0.0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: riptide-nx-entry-points\nVersion: 0.0\n")
        declared = _declared_entry_points()
        lines = [f"[{group}]\nriptide = {declared[group]['riptide']}\n" for group in GROUPS]
        (dist / "entry_points.txt").write_text("\n".join(lines))
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    result = subprocess.run([sys.executable, "-c", _DISPATCH_SCRIPT], env=env, capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "dispatch ok" in result.stdout


@pytest.mark.parametrize("name", ["connected_components", "weakly_connected_components"])
def test_dispatched_errors_are_networkx_errors(name):
    graph = nx.DiGraph([(1, 2)]) if name == "connected_components" else nx.Graph([(1, 2)])
    with pytest.raises(nx.NetworkXNotImplemented):
        getattr(BackendInterface, name)(BackendInterface.convert_from_nx(graph))


def test_backend_resolves_the_registry_and_converts_results():
    from riptide_nx_info import ALGORITHMS

    import riptide.graph as rg

    assert set(ALGORITHMS) <= set(dir(BackendInterface)) and set(ALGORITHMS) <= set(rg.__all__)
    with pytest.raises(AttributeError):
        BackendInterface.not_an_algorithm  # noqa: B018
    H = nx.DiGraph([(1, 2, {"weight": 2}), (2, 3, {"weight": 1}), (1, 3, {"weight": 5})])
    G = BackendInterface.convert_from_nx(H, edge_attrs={"weight": 1})
    dist, paths = BackendInterface.single_source_dijkstra(G, 1)
    assert type(dist) is dict and dist == {1: 0, 2: 2, 3: 3} and paths == {1: [1], 2: [1, 2], 3: [1, 2, 3]}
    tree = BackendInterface.bfs_tree(G, 1)
    assert isinstance(tree, nx.DiGraph) and list(tree.edges) == list(nx.bfs_tree(H, 1).edges)
    pairs = BackendInterface.all_pairs_shortest_path_length(G)
    assert all(type(d) is dict for _, d in pairs)
    positional_function = (H, 1, None, None, lambda u, v, d: 1)  # weight given positionally
    assert isinstance(BackendInterface.can_run("single_source_dijkstra", positional_function, {}), str)
    assert isinstance(BackendInterface.can_run("dijkstra_path", (H, 1, 2), {"weight": len}), str)
    assert BackendInterface.can_run("dijkstra_path", (H, 1, 2), {"weight": "weight"}) is True


@pytest.mark.parametrize("name", ["single_source_dijkstra_path_length", "shortest_path_length", "bfs_edges",
                                  "strongly_connected_components", "betweenness_centrality"])
def test_dispatched_results_equal_networkx(name):
    if name not in FUNCTIONS:
        pytest.skip(f"{name} is not registered")
    H = nx.gnp_random_graph(30, 0.15, seed=2, directed=True)
    for u, v in H.edges:
        H[u][v]["weight"] = (u * v) % 5 + 1
    args = {"single_source_dijkstra_path_length": (0,), "shortest_path_length": (0,), "bfs_edges": (0,)}.get(name, ())
    got = getattr(BackendInterface, name)(BackendInterface.convert_from_nx(H, edge_attrs={"weight": 1}), *args)
    expected = getattr(nx, name)(H, *args, backend="networkx")
    if name == "strongly_connected_components":
        assert {frozenset(c) for c in got} == {frozenset(c) for c in expected}
    elif name == "bfs_edges":
        assert list(got) == list(expected)
    else:
        assert type(got) is dict and got == pytest.approx(expected)
