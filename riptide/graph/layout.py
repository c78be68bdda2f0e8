"""ForceAtlas2 layout (NetworkX's ``forceatlas2_layout``): the same iteration, on the device, with sparse attraction.

NetworkX (3.4+) runs ForceAtlas2 on dense n x n arrays: attraction ``-sum_j A_ij (x_i - x_j)`` (``A`` the
weighted adjacency; LinLog scales each term by ``log(1 + d_ij) / d_ij``), repulsion ``scaling_ratio * sum_j
m_i m_j (x_i - x_j) / d_ij^2`` over all pairs, gravity towards the centroid, and Jacomy et al.'s adaptive speed
(global swing and traction decide the step). This module runs the same iteration step for step:

* **attraction** over the arcs only (a weighted ``bincount`` of ``w * (x_v - x_u)`` onto ``u``), O(m), where
  NetworkX multiplies by the dense matrix; parallel edges add up as NetworkX's summed matrix entries;
* **repulsion** exactly over all pairs, in row blocks of ``BLOCK_PAIRS`` pairs so memory stays bounded: O(n^2)
  work per iteration. There is no Barnes-Hut approximation, so this suits moderate graphs (up to ~1e5 nodes on
  a GPU: 1e10 pair terms per iteration); the answer is NetworkX's, not an approximation of it;
* the speed control is the same host arithmetic on two scalars per iteration (swing and traction, one read),
  plus one read for NetworkX's convergence test.

Start positions are NetworkX's: with ``pos=None``, ``random_layout``'s draw from the same ``seed`` (float32, as
there, and positions stay float32 through the iteration as NetworkX's in-place updates keep them); so with the
same seed the layouts agree with NetworkX's up to floating-point summation order (the tests compare them).
The result is ``{node: numpy array of dim coordinates}``, as NetworkX's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide import _device
from riptide.graph._arrays import bincount
from riptide.graph._checks import as_riptide_graph

__all__ = ["forceatlas2_layout"]

BLOCK_PAIRS = 1 << 22  # pair terms per repulsion block


def _random_state(seed: Any) -> Any:
    """NetworkX's ``np_random_state`` handling of ``seed`` (None, an int or a RandomState)."""
    try:
        from networkx.utils import create_random_state
    except ImportError:  # pragma: no cover - networkx is installed wherever the tests run
        return np.random.RandomState(seed) if not isinstance(seed, np.random.RandomState) else seed
    return create_random_state(seed)


def forceatlas2_layout(G: Any, pos: dict | None = None, *, max_iter: int = 100, jitter_tolerance: float = 1.0,
                       scaling_ratio: float = 2.0, gravity: float = 1.0, distributed_action: bool = False,
                       strong_gravity: bool = False, node_mass: dict | None = None, node_size: dict | None = None,
                       weight: str | None = None, linlog: bool = False, seed: Any = None, dim: int = 2,
                       store_pos_as: str | None = None) -> dict:  # fmt: skip
    """Node positions by ForceAtlas2 (NetworkX's ``forceatlas2_layout``: same parameters, same iteration).

    >>> import networkx as nx
    >>> from riptide.graph import from_networkx
    >>> pos = forceatlas2_layout(from_networkx(nx.path_graph(4)), seed=1, max_iter=50)
    >>> sorted(pos), pos[0].shape
    ([0, 1, 2, 3], (2,))
    """
    original = G
    G = as_riptide_graph(G)
    n = G.number_of_nodes()
    if n == 0:
        return {}
    xp = G.xp
    nodes = G._host_labels()
    state = _random_state(seed)
    positions = _start_positions(G, nodes, pos, state, dim)
    dim = positions.shape[1]
    x = _device.to_device(positions, xp)
    degree = G._degrees("both")
    mass = (degree + 1).astype(np.float64)
    if node_mass:
        mass = _override(G, mass, node_mass)
    adjust_sizes = node_size is not None
    size = _override(G, xp.ones(n), node_size) if adjust_sizes else xp.ones(n)
    u, v, w = G._arc_src, G._indices, G._arc_weights(weight)
    # An undirected graph's CSR holds both arcs of each edge: the arcs are the nonzeros of NetworkX's symmetric A.
    off_diagonal = xp.flatnonzero(u != v)  # self loops: A_ii (x_i - x_i) = 0; LinLog zeroes the diagonal
    u, v, w = u[off_diagonal], v[off_diagonal], w[off_diagonal]

    speed, speed_efficiency, swing, traction = 1.0, 1.0, 1.0, 1.0
    for _ in range(max_iter):
        diff = x[u] - x[v]  # x_i - x_j per arc, in the positions' dtype as NetworkX's diff
        if linlog:
            distance = xp.sqrt((diff * diff).sum(axis=1))
            scale = -xp.log(1 + distance) / distance * w
        else:
            scale = -w
        attraction = xp.stack([bincount(u, n, xp, weights=diff[:, k] * scale) for k in range(dim)], axis=1)
        if distributed_action:
            attraction /= mass[:, None]
        repulsion = _repulsion(x, mass, size if adjust_sizes else None, scaling_ratio, xp)
        centered = x - x.mean(axis=0)
        if strong_gravity:
            gravities = -gravity * mass[:, None] * centered
        else:
            norm = xp.sqrt((centered * centered).sum(axis=1))
            unit = centered / xp.where(norm == 0, 1, norm)[:, None]  # NetworkX: 0/0 -> nan -> 0
            gravities = -gravity * mass[:, None] * unit
        update = attraction + repulsion + gravities
        sums = xp.stack([(mass * _norm(x - update, xp)).sum(), (0.5 * mass * _norm(x + update, xp)).sum()])
        swing_step, traction_step = _device.to_host(sums).tolist()  # one read per iteration: the speed control
        swing += swing_step
        traction += traction_step
        speed, speed_efficiency = _estimate_factor(n, swing, traction, speed, speed_efficiency, jitter_tolerance)
        df = _norm(update, xp)
        swinging = mass * df
        if adjust_sizes:
            factor = 0.1 * speed / (1 + xp.sqrt(speed * swinging))
            factor = xp.minimum(factor * df, 10.0) / df
        else:
            factor = speed / (1 + xp.sqrt(speed * swinging))
        step = update * factor[:, None]
        x += step.astype(x.dtype, copy=False)
        if float(xp.abs(step).sum()) < 1e-10:  # one scalar read: NetworkX's convergence test
            break
    host = _device.to_host(x)
    result = dict(zip(nodes, host))
    if store_pos_as is not None:
        if original is G:
            raise ValueError("store_pos_as needs a NetworkX graph: riptide graphs hold no node attributes")
        import networkx as nx

        nx.set_node_attributes(original, result, store_pos_as)
    return result


def _norm(a: Any, xp: Any) -> Any:
    return xp.sqrt((a * a).sum(axis=1))


def _override(G: Any, values: Any, mapping: dict) -> Any:
    """``values`` with the entries of ``mapping`` (keyed by node) put in (a host dict of the user's)."""
    host = _device.to_host(values).astype(np.float64)
    index = G._index()
    for node, value in mapping.items():
        i = index.get(node)
        if i is not None:
            host[i] = value
    return _device.to_device(host, G.xp)


def _start_positions(G: Any, nodes: list, pos: dict | None, state: Any, dim: int) -> np.ndarray:
    """NetworkX's start: ``random_layout`` (float32) when ``pos`` is None, the given positions when they cover
    every node, else random positions within their bounding box for the nodes not given."""
    n = len(nodes)
    if pos is None:
        return np.asarray(state.rand(n, dim)).astype(np.float32)  # random_layout's draw and dtype
    if len(pos) == n:
        return np.array([np.array(pos[node]).copy() for node in nodes])
    given = np.array(list(pos.values()))
    high, low = given.max(axis=0), given.min(axis=0)
    out = low + state.rand(n, high.size) * (high - low)
    for i, node in enumerate(nodes):
        if node in pos:
            out[i] = np.array(pos[node]).copy()
    return out


def _repulsion(x: Any, mass: Any, size: Any, scaling_ratio: float, xp: Any) -> Any:
    """``scaling_ratio * sum_j m_i m_j (x_i - x_j) / d_ij^2`` over all pairs j != i (distances reduced by the
    node sizes when given), in blocks of rows."""
    n, dim = x.shape
    out = xp.zeros((n, dim))
    rows = max(1, BLOCK_PAIRS // max(n, 1))
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        diff = x[start:stop, None, :] - x[None, :, :]
        distance = xp.sqrt((diff * diff).sum(axis=-1))
        if size is not None:
            distance = distance - size[start:stop, None] - size[None, :]
        d2 = distance * distance
        local = xp.arange(stop - start)
        d2[local, start + local] = 1  # NetworkX fills the diagonal: no self-interaction
        weight = mass[start:stop, None] * mass[None, :]
        weight[local, start + local] = 0
        factor = weight / d2 * scaling_ratio
        out[start:stop] = (diff * factor[:, :, None]).sum(axis=1)
    return out


def _estimate_factor(n: int, swing: float, traction: float, speed: float, speed_efficiency: float,
                     jitter_tolerance: float) -> tuple[float, float]:  # fmt: skip
    """ForceAtlas2's adaptive speed (Jacomy et al.), host arithmetic on the iteration's two scalars."""
    opt_jitter = 0.05 * np.sqrt(n)
    min_jitter = np.sqrt(opt_jitter)
    max_jitter = 10
    min_speed_efficiency = 0.05
    other = min(max_jitter, opt_jitter * traction / n**2)
    jitter = jitter_tolerance * max(min_jitter, other)
    if swing / traction > 2.0:
        if speed_efficiency > min_speed_efficiency:
            speed_efficiency *= 0.5
        jitter = max(jitter, jitter_tolerance)
    target_speed = np.inf if swing == 0 else jitter * speed_efficiency * traction / swing
    if swing > jitter * traction:
        if speed_efficiency > min_speed_efficiency:
            speed_efficiency *= 0.7
    elif speed < 1000:
        speed_efficiency *= 1.3
    max_rise = 0.5
    speed = speed + min(target_speed - speed, max_rise * speed)
    return speed, speed_efficiency
