"""What NetworkX learns about the "riptide" backend without importing it (the ``networkx.backend_info`` entry point).

NetworkX calls :func:`get_info` while it is itself being imported, for every installed backend. This is a separate
top-level package so that it imports nothing of riptide (not even ``riptide/__init__``, which imports pandas):
``import networkx`` stays as fast as without riptide installed.

:data:`ALGORITHMS` is the one registry of the algorithms riptide runs for NetworkX: dispatch name -> the module of
:mod:`riptide.graph` that defines a function of that name (module names as strings; nothing is imported here).
``riptide.graph`` exports each of them lazily and :class:`riptide.graph.backend.BackendInterface` resolves them
from it, so adding an algorithm to the backend is one entry here.
"""

from __future__ import annotations

__all__ = ["get_info", "FUNCTIONS", "ALGORITHMS", "MULTIGRAPH_ALGORITHMS", "UNDIRECTED_ALGORITHMS"]

# NetworkX dispatch name -> module under riptide.graph defining the function (same name, NetworkX's signature).
ALGORITHMS = {
    "pagerank": "link_analysis",
    "hits": "link_analysis",
    "connected_components": "components",
    "number_connected_components": "components",
    "is_connected": "components",
    "weakly_connected_components": "components",
    "number_weakly_connected_components": "components",
    "is_weakly_connected": "components",
    "strongly_connected_components": "components",
    "number_strongly_connected_components": "components",
    "is_strongly_connected": "components",
    "single_source_shortest_path_length": "traversal",
    "bfs_layers": "traversal",
    "bfs_edges": "traversal",
    "bfs_tree": "traversal",
    "bfs_predecessors": "traversal",
    "bfs_successors": "traversal",
    "descendants_at_distance": "traversal",
    "degree_centrality": "centrality",
    "betweenness_centrality": "centrality",
    "edge_betweenness_centrality": "centrality",
    "closeness_centrality": "centrality",
    "katz_centrality": "centrality",
    "eigenvector_centrality": "centrality",
    "single_source_shortest_path": "shortest_paths",
    "all_pairs_shortest_path": "shortest_paths",
    "all_pairs_shortest_path_length": "shortest_paths",
    "single_source_dijkstra": "shortest_paths",
    "single_source_dijkstra_path": "shortest_paths",
    "single_source_dijkstra_path_length": "shortest_paths",
    "dijkstra_path": "shortest_paths",
    "dijkstra_path_length": "shortest_paths",
    "all_pairs_dijkstra_path": "shortest_paths",
    "all_pairs_dijkstra_path_length": "shortest_paths",
    "bellman_ford_path_length": "shortest_paths",
    "bellman_ford_path": "shortest_paths",
    "single_source_bellman_ford_path": "shortest_paths",
    "single_source_bellman_ford_path_length": "shortest_paths",
    "bidirectional_shortest_path": "shortest_paths",
    "shortest_path": "shortest_paths",
    "shortest_path_length": "shortest_paths",
    "has_path": "shortest_paths",
    "jaccard_coefficient": "link_prediction",
    "adamic_adar_index": "link_prediction",
    "resource_allocation_index": "link_prediction",
    "preferential_attachment": "link_prediction",
    "common_neighbor_centrality": "link_prediction",
    "minimum_spanning_tree": "tree",
    "maximum_spanning_tree": "tree",
    "minimum_spanning_edges": "tree",
    "maximum_spanning_edges": "tree",
    "forceatlas2_layout": "layout",
    "to_scipy_sparse_array": "classes",
    "louvain_communities": "community",
    "louvain_partitions": "community",
    "leiden_communities": "community",
    "leiden_partitions": "community",
    "label_propagation_communities": "community",
    "asyn_lpa_communities": "community",
    "modularity": "community",
    "triangles": "cluster",
    "clustering": "cluster",
    "average_clustering": "cluster",
    "transitivity": "cluster",
    "square_clustering": "cluster",
    "core_number": "cores",
    "k_core": "cores",
    "k_shell": "cores",
    "k_crust": "cores",
    "k_corona": "cores",
    "k_truss": "cores",
    "onion_layers": "cores",
}

# The dispatch names, in registry order.
FUNCTIONS = tuple(ALGORITHMS)

# The algorithms (of ALGORITHMS) that also take a MultiGraph/MultiDiGraph; the backend leaves multigraphs to
# NetworkX for every other one.
MULTIGRAPH_ALGORITHMS: frozenset[str] = frozenset({
    "louvain_communities", "louvain_partitions", "leiden_communities", "leiden_partitions", "modularity", "triangles",
    "betweenness_centrality", "edge_betweenness_centrality",
})

# The algorithms riptide runs on undirected graphs only; NetworkX runs them on directed ones itself.
UNDIRECTED_ALGORITHMS: frozenset[str] = frozenset({"square_clustering"})


def get_info() -> dict:
    """The backend's metadata for NetworkX (names, summary, and the functions it can run).

    >>> info = get_info()
    >>> info["backend_name"], "pagerank" in info["functions"]
    ('riptide', True)
    """
    return {
        "backend_name": "riptide",
        "project": "riptide",
        "package": "riptide",
        "short_summary": "GPU graph analytics over a device CSR (CuPy), with a NumPy fallback.",
        "functions": {name: {} for name in FUNCTIONS},
        "default_config": {},
    }
