"""forceatlas2_layout against NetworkX's: the same iteration from the same seed, so positions agree to float32
rounding for as long as the dynamics stay stable (ForceAtlas2's adaptive speed is chaotic: rounding differences
can grow after some tens of iterations, so long runs are compared on layout quality instead)."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest

from riptide.graph import classes as rgc
from riptide.graph import layout


def _max_diff(a, b):
    assert list(a) == list(b)
    return max(float(np.abs(a[k] - b[k]).max()) for k in b)


CASES = [
    (nx.karate_club_graph(), {}),
    (nx.karate_club_graph(), {"linlog": True, "weight": "weight"}),
    (nx.gnp_random_graph(50, 0.1, seed=1, directed=True), {"strong_gravity": True, "distributed_action": True}),
    (nx.path_graph(6), {"node_size": {0: 2.0, 3: 0.5}, "node_mass": {1: 5.0}}),
    (nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 2), (3, 4)]), {"scaling_ratio": 5.0, "gravity": 0.5}),
    (nx.gnp_random_graph(40, 0.1, seed=2), {"dim": 3, "jitter_tolerance": 0.5}),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_networkx_iteration(case, monkeypatch):
    H, kwargs = CASES[case]
    monkeypatch.setattr(layout, "BLOCK_PAIRS", 100)  # several repulsion blocks
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NetworkX's LinLog divides 0 by 0 on its diagonal
        want = nx.forceatlas2_layout(H, seed=3, max_iter=20, **kwargs)
    got = layout.forceatlas2_layout(rgc.from_networkx(H), seed=3, max_iter=20, **kwargs)
    assert got[next(iter(got))].dtype == want[next(iter(want))].dtype
    scale = max(float(np.abs(p).max()) for p in want.values())
    assert _max_diff(got, want) <= 1e-4 * max(scale, 1.0)


def test_given_positions_and_long_runs():
    H = nx.les_miserables_graph()
    full = nx.random_layout(H, seed=1)
    want = nx.forceatlas2_layout(H, pos=full, max_iter=15, seed=2)
    got = layout.forceatlas2_layout(rgc.from_networkx(H), pos=full, max_iter=15, seed=2)
    assert _max_diff(got, want) <= 1e-3
    partial = dict(list(full.items())[:10])
    want = nx.forceatlas2_layout(H, pos=partial, max_iter=10, seed=np.random.RandomState(5))
    got = layout.forceatlas2_layout(rgc.from_networkx(H), pos=partial, max_iter=10, seed=np.random.RandomState(5))
    assert _max_diff(got, want) <= 1e-3
    # 100 iterations: compare the layouts' quality (edges short relative to the spread of the nodes)
    ours = layout.forceatlas2_layout(H, seed=7)
    theirs = nx.forceatlas2_layout(H, seed=7)

    def ratio(pos):
        edge = np.mean([np.linalg.norm(pos[u] - pos[v]) for u, v in H.edges])
        spread = np.mean([np.linalg.norm(p - np.mean(list(pos.values()), axis=0)) for p in pos.values()])
        return edge / spread

    assert all(np.isfinite(p).all() for p in ours.values())
    assert ratio(ours) < 1.5 * ratio(theirs) + 0.05


def test_edge_cases():
    assert layout.forceatlas2_layout(rgc.Graph()) == {}
    one = layout.forceatlas2_layout(rgc.from_networkx(nx.empty_graph(1)), seed=0)
    assert list(one) == [0] and np.isfinite(one[0]).all()
    H = nx.path_graph(3)
    layout.forceatlas2_layout(H, seed=1, max_iter=5, store_pos_as="pos")  # a NetworkX graph: stored, as NetworkX
    assert set(nx.get_node_attributes(H, "pos")) == {0, 1, 2}
    with pytest.raises(ValueError, match="store_pos_as"):
        layout.forceatlas2_layout(rgc.from_networkx(H), store_pos_as="pos")
