"""Issue 7's cases: riptide.graph on power-law graphs, against NetworkX where the issue quotes it.

Sizes at ``--rows 1e8`` follow the issue's Performance section; a smaller ``--rows`` scales every graph down with
it (edges are a share of ``rows``, nodes a tenth of the edges, so the mean degree stays 10):

* ``pagerank_1e7``: PageRank of a 1e6-node / 1e7-edge directed graph (``rows / 10`` edges), goal <= 15 ms;
* ``pagerank_nx``: PageRank of a 1e6-edge directed graph (``rows / 100`` edges), against NetworkX's own
  ``pagerank`` (2.6 s on the issue's host), goal >= 500x NetworkX;
* ``bfs_1e7``: ``single_source_shortest_path_length`` from one node of the 1e7-edge directed graph, <= 20 ms;
* ``wcc_1e8``: the weakly connected components of a 1e8-edge directed graph (``rows`` edges), <= 100 ms: the
  labelling and its count, ``number_weakly_connected_components`` (listing 1e7 nodes as Python sets is host work);
* ``graph_build_str``: ``from_pandas_edgelist`` (the default, undirected ``Graph``) of 1e8 edges whose endpoints
  are strings (``"user-123"``), i.e. renumbering and CSR construction, <= 2 s.

Graphs: both endpoints of each edge are drawn from one power law over the nodes (node of rank ``k`` drawn with
probability proportional to ``k ** -0.8``, i.e. a degree distribution with exponent about 2.25, as in web and
social graphs), and ranks are shuffled over the ids so that hubs are not the smallest ids. Repeated edges and self
loops are kept in the edge list; the graph classes collapse them, as NetworkX's do.

Only the algorithm is timed: the graphs (and, for ``graph_build_str``, the string columns) are built on the device
before the clock starts, and the per-node answers are :class:`~riptide.graph.results.NodeMap` objects, which stay
on the device until read, so the timings hold no host dict building.

Peak memory: every riptide thunk is marked with the bytes of its graph's CSR (:func:`csr_bytes`), so the
table's footer gives the call's peak device memory beyond what was live before it (the graph and the caches
its earlier calls built) as a multiple of the CSR, against the issue's 2.5x.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from riptide.benchmarks.harness import Case, Context, Reference, fmt_count, register, with_footprint

MS = 1e-3
MEAN_DEGREE = 10  # edges per node
EXPONENT = 0.8  # P(node of rank k) ~ k ** -EXPONENT
CSR_MEMORY_GOAL = 2.5  # issue 7: peak device memory <= 2.5x the CSR size


def power_law_edges(rng: np.random.Generator, nodes: int, edges: int) -> tuple[np.ndarray, np.ndarray]:
    """``(source, target)`` int64 arrays of ``edges`` edges over ids ``0..nodes-1``, both ends power-law drawn.

    >>> src, dst = power_law_edges(np.random.default_rng(0), 100, 1000)
    >>> src.shape, bool(src.max() < 100), bool(np.bincount(src).max() > 30)
    ((1000,), True, True)
    """
    rank_to_id = rng.permutation(nodes)

    def draw() -> np.ndarray:
        # Inverse CDF of the continuous power law x ** -a on [1, nodes + 1), floored to ranks 0..nodes-1.
        u = rng.random(edges)
        top = (nodes + 1.0) ** (1.0 - EXPONENT) - 1.0
        ranks = np.floor((top * u + 1.0) ** (1.0 / (1.0 - EXPONENT))).astype(np.int64) - 1
        return rank_to_id[np.minimum(ranks, nodes - 1)]

    return draw(), draw()


def _edge_frame(src: np.ndarray, dst: np.ndarray) -> Any:
    """A riptide DataFrame (source, target) with the columns on the device."""
    import riptide as rt
    from riptide import _device

    return rt.DataFrame({"source": _device.to_device(src), "target": _device.to_device(dst)})


def csr_bytes(G: Any, weighted: bool = False) -> int:
    """The bytes of ``G``'s CSR: row offsets and column indices, plus a float64 weight per arc when ``weighted``."""
    arcs = G._indices.shape[0]
    return G._offsets.nbytes + G._indices.nbytes + (8 * arcs if weighted else 0)


def measured_on_csr(fn: Callable[[], Any], G: Any, weighted: bool = False) -> Callable[[], Any]:
    """``fn`` marked for the peak-memory report, against the CSR of ``G``."""
    return with_footprint(fn, csr_bytes(G, weighted), "CSR", CSR_MEMORY_GOAL)


def _riptide_digraph(data: dict[str, Any]) -> Any:
    import riptide.graph as rg

    return rg.from_pandas_edgelist(_edge_frame(data["source"], data["target"]), create_using=rg.DiGraph)


def networkx_graph(data: dict[str, Any], directed: bool = True) -> Any:
    """The same edge list as a NetworkX DiGraph (or Graph), built on the host."""
    import networkx as nx

    H = nx.DiGraph() if directed else nx.Graph()
    H.add_edges_from(zip(data["source"].tolist(), data["target"].tolist()))
    return H


class _GraphCase(Case):
    """A power-law directed graph of ``rows / share`` edges (at least 100) and a tenth as many nodes."""

    bound = "none"
    share = 10

    def edges(self, ctx: Context) -> int:
        return max(ctx.rows // self.share, 100)

    def nodes(self, ctx: Context) -> int:
        return max(self.edges(ctx) // MEAN_DEGREE, 10)

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(self.nodes(ctx))} n, {fmt_count(self.edges(ctx))} e"

    def data(self, ctx: Context) -> dict[str, Any]:
        src, dst = power_law_edges(ctx.rng(), self.nodes(ctx), self.edges(ctx))
        return {"source": src, "target": dst}


@register
class PageRank(_GraphCase):
    name = "pagerank_1e7"
    title = "pagerank (power law)"
    reference = Reference(pandas=None, cudf=None, goal=15 * MS, note="1e6 nodes / 1e7 edges, directed")

    def riptide(self, data: dict[str, Any]) -> Callable[[], Any]:
        import riptide.graph as rg

        G = _riptide_digraph(data)
        return measured_on_csr(lambda: rg.pagerank(G), G)


@register
class PageRankVsNetworkX(PageRank):
    """pagerank_1e7's riptide code on a smaller graph, against NetworkX's."""

    name = "pagerank_nx"
    title = "pagerank vs networkx"
    share = 100
    reference = Reference(pandas=None, cudf=None, goal=None, min_speedup=(("networkx", 500),),
                          note="1e6 edges, directed; networkx 2.6 s on the issue's host")  # fmt: skip

    def networkx(self, data: dict[str, Any]) -> Callable[[], Any]:
        import networkx as nx

        H = networkx_graph(data)
        return lambda: nx.pagerank(H, backend="networkx")  # NetworkX's own code even if a backend is preferred


@register
class ShortestPathLengths(_GraphCase):
    name = "bfs_1e7"
    title = "sssp length (BFS)"
    reference = Reference(pandas=None, cudf=None, goal=20 * MS,
                          note="single_source_shortest_path_length, 1e7 edges, directed")  # fmt: skip

    def riptide(self, data: dict[str, Any]) -> Callable[[], Any]:
        import riptide.graph as rg

        G = _riptide_digraph(data)
        source = source_node(data)
        return measured_on_csr(lambda: rg.single_source_shortest_path_length(G, source), G)


def source_node(data: dict[str, Any]) -> int:
    """The BFS source: the source of the first edge (a node with out-arcs, drawn from the power law)."""
    return int(data["source"][0])


@register
class WeaklyConnectedComponents(_GraphCase):
    name = "wcc_1e8"
    title = "weakly conn. components"
    share = 1
    reference = Reference(pandas=None, cudf=None, goal=100 * MS,
                          note="number_weakly_connected_components, 1e8 edges, directed")  # fmt: skip

    def riptide(self, data: dict[str, Any]) -> Callable[[], Any]:
        import riptide.graph as rg

        G = _riptide_digraph(data)
        return measured_on_csr(lambda: rg.number_weakly_connected_components(G), G)


@register
class BuildFromStrings(_GraphCase):
    name = "graph_build_str"
    title = "from_pandas_edgelist str"
    share = 1
    reference = Reference(pandas=None, cudf=None, goal=2.0,
                          note="1e8 string-id edges: renumbering + CSR, undirected Graph")  # fmt: skip

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(self.edges(ctx))} str edges"

    def riptide(self, data: dict[str, Any]) -> Callable[[], Any]:
        import riptide.graph as rg

        frame = string_edge_frame(data)
        built = rg.from_pandas_edgelist(frame, "source", "target")  # once, for the size of the CSR it builds
        nbytes = csr_bytes(built)
        del built
        return with_footprint(lambda: rg.from_pandas_edgelist(frame, "source", "target"), nbytes, "CSR built",
                              CSR_MEMORY_GOAL)  # fmt: skip


def string_edge_frame(data: dict[str, Any]) -> Any:
    """The edge list with ids as strings ``"user-<id>"``: a riptide DataFrame of two device string columns, made
    by gathering a vocabulary of one string per node on the device (no 1e8 Python strings)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from riptide import _device
    from riptide.core.column import as_column
    from riptide.frame.dataframe import DataFrame
    from riptide.frame.index import default_index

    src, dst = data["source"], data["target"]
    nodes = int(max(src.max(), dst.max())) + 1
    names = pc.binary_join_element_wise("user-", pc.cast(pa.array(np.arange(nodes)), pa.string()), "")
    vocabulary = as_column(names)
    xp = vocabulary.xp
    columns = {"source": vocabulary.take(_device.to_device(src, xp)),
               "target": vocabulary.take(_device.to_device(dst, xp))}  # fmt: skip
    return DataFrame._from_columns(columns, default_index(src.shape[0], xp))
