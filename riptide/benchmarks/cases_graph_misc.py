"""Issue 7's link prediction and spanning tree cases: riptide.graph on power-law graphs, against NetworkX on smaller
copies.

Sizes at ``--rows 1e8`` (a smaller ``--rows`` scales every graph down with it; mean degree 10, graphs from
:func:`riptide.benchmarks.cases_graph.power_law_edges`):

* ``jaccard_1e6``: ``jaccard_coefficient`` of every edge's endpoints (the pairs given as a DataFrame, cuGraph's
  ``vertex_pair`` style, so no Python tuple per pair) on an undirected 1e6-edge graph (``rows / 100`` edges);
* ``jaccard_nx``: the same on a 1e5-edge graph (``rows / 1000``) against NetworkX's generator (consumed);
* ``mst_1e7``: ``minimum_spanning_tree`` of an undirected 1e7-edge graph (``rows / 10``) with integer weights
  1..100 (many ties: Kruskal's order decides), building the tree graph on the device;
* ``mst_nx``: the same on a 1e5-edge graph against NetworkX's Kruskal.

The issue gives no figures for these; the NetworkX cases report the speedup. Graphs and pair frames are built
before the clock starts; the riptide answers stay on the device (a DataFrame, a riptide graph).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from riptide.benchmarks.cases_graph import _GraphCase, measured_on_csr, power_law_edges
from riptide.benchmarks.harness import Context, Reference, register


class _UndirectedCase(_GraphCase):
    """A power-law undirected graph of ``rows / share`` edges (at least 100), with integer weights 1..100."""

    share = 100

    def data(self, ctx: Context) -> dict[str, Any]:
        rng = ctx.rng()
        src, dst = power_law_edges(rng, self.nodes(ctx), self.edges(ctx))
        return {"source": src, "target": dst, "weight": rng.integers(1, 101, src.shape[0]).astype(np.float64)}


def riptide_graph(data: dict[str, Any]) -> Any:
    """The undirected riptide Graph of the edge list (weights kept), built on the device."""
    import riptide as rt
    import riptide.graph as rg
    from riptide import _device

    frame = rt.DataFrame({name: _device.to_device(values) for name, values in data.items()})
    return rg.from_pandas_edgelist(frame, edge_attr="weight")


def networkx_graph(data: dict[str, Any]) -> Any:
    """The same graph in NetworkX (repeated edges collapse to the last weight, as in riptide)."""
    import networkx as nx

    H = nx.Graph()
    H.add_weighted_edges_from(zip(data["source"].tolist(), data["target"].tolist(), data["weight"].tolist()))
    return H


def edge_pairs(data: dict[str, Any]) -> Any:
    """The endpoints of every non-loop edge as a riptide DataFrame of pairs (on the device)."""
    import riptide as rt
    from riptide import _device

    keep = data["source"] != data["target"]
    return rt.DataFrame({"u": _device.to_device(data["source"][keep]), "v": _device.to_device(data["target"][keep])})


@register
class Jaccard(_UndirectedCase):
    name = "jaccard_1e6"
    title = "jaccard (edge pairs)"
    reference = Reference(pandas=None, cudf=None, goal=None, note="jaccard_coefficient of 1e6 edge pairs, undirected")

    def riptide(self, data: dict[str, Any]) -> Callable[[], Any]:
        from riptide.graph.link_prediction import jaccard_coefficient

        G, pairs = riptide_graph(data), edge_pairs(data)
        return measured_on_csr(lambda: jaccard_coefficient(G, pairs), G)  # the scores read no weights


@register
class JaccardVsNetworkX(Jaccard):
    """jaccard_1e6's riptide code on a graph ten times smaller, against NetworkX's."""

    name = "jaccard_nx"
    title = "jaccard vs networkx"
    share = 1000
    reference = Reference(pandas=None, cudf=None, goal=None, note="1e5 edge pairs; networkx's generator consumed")

    def networkx(self, data: dict[str, Any]) -> Callable[[], Any]:
        import networkx as nx

        H = networkx_graph(data)
        keep = data["source"] != data["target"]
        pairs = list(zip(data["source"][keep].tolist(), data["target"][keep].tolist()))
        return lambda: list(nx.jaccard_coefficient(H, pairs, backend="networkx"))


@register
class MinimumSpanningTree(_UndirectedCase):
    name = "mst_1e7"
    title = "minimum spanning tree"
    share = 10
    reference = Reference(pandas=None, cudf=None, goal=None, note="Boruvka, 1e7 edges, integer weights (ties)")

    def riptide(self, data: dict[str, Any]) -> Callable[[], Any]:
        from riptide.graph.tree import minimum_spanning_tree

        G = riptide_graph(data)
        return measured_on_csr(lambda: minimum_spanning_tree(G), G, weighted=True)


@register
class MinimumSpanningTreeVsNetworkX(MinimumSpanningTree):
    """mst_1e7's riptide code on a 1e5-edge graph, against NetworkX's Kruskal."""

    name = "mst_nx"
    title = "mst vs networkx"
    share = 1000
    reference = Reference(pandas=None, cudf=None, goal=None, note="1e5 edges; networkx Kruskal")

    def networkx(self, data: dict[str, Any]) -> Callable[[], Any]:
        import networkx as nx

        H = networkx_graph(data)
        return lambda: nx.minimum_spanning_tree(H, backend="networkx")
