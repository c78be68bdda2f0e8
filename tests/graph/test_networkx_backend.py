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
        theirs = list(inspect.signature(getattr(nx, name).orig_func).parameters)
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
    assert isinstance(BackendInterface.can_run("betweenness_centrality", (H,), {}), str)


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
