"""PageRank by NetworkX's power iteration, one sparse matrix-vector product per step on the device.

NetworkX (``_pagerank_scipy``) iterates ``x <- alpha * (x @ A + sum(x[dangling]) * d) + (1 - alpha) * p`` with
``A`` the row-normalized weight matrix, and stops when the L1 change is below ``N * tol``. The same iteration,
the same start, personalization and dangling vectors and the same stopping rule run here, so the results agree
to rounding (the products are summed in another order). ``x @ A`` is a weighted bincount of the arcs'
targets: each arc (u, v, w) carries ``x[u] * w / outweight[u]`` to ``v``.

One scalar read per iteration (the error, to decide whether to stop), as NetworkX.

HITS: NetworkX takes the leading singular vectors of the adjacency matrix ``A`` (weights from the "weight"
attribute) with ARPACK's ``svds``; here the authority vector is the power iteration ``a <- A^T (A a)`` (scaled by
its maximum each step) and the hubs are ``A a``, both normalized to sum 1 as NetworkX. That is the same vector
when the leading singular value is simple (a connected graph); the iteration runs until the L1 change is below
``tol``, allowing ``100 * max_iter`` products (NetworkX's ``max_iter`` counts ARPACK restarts, each many
products). With ``normalized=False`` NetworkX returns ARPACK's unit vector, whose sign is arbitrary; riptide
returns the non-negative one (unit length).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide.core.kernels.numpy_compat import where
from riptide.graph._arrays import bincount
from riptide.graph._checks import as_riptide_graph
from riptide.graph.exceptions import PowerIterationFailedConvergence

__all__ = ["pagerank", "hits"]


def pagerank(G: Any, alpha: float = 0.85, personalization: dict | None = None, max_iter: int = 100,
             tol: float = 1.0e-6, nstart: dict | None = None, weight: str | None = "weight",
             dangling: dict | None = None) -> Any:  # fmt: skip
    """The PageRank of each node (NetworkX's ``pagerank``: same parameters, same results).

    The answer is a :class:`~riptide.graph.results.NodeMap`: it reads as NetworkX's dict, and its values stay on
    the device until it is read (``.to_series()`` keeps them there).

    >>> from riptide.graph import from_edgelist, DiGraph
    >>> pr = pagerank(from_edgelist([(1, 2), (2, 3), (3, 1)], create_using=DiGraph))
    >>> [round(v, 6) for v in pr.values()]
    [0.333333, 0.333333, 0.333333]
    """
    G = as_riptide_graph(G)
    n = G.number_of_nodes()
    if n == 0:
        return G._result_dict(G.xp.zeros(0, dtype=float))
    xp = G.xp
    arc_src, arc_dst = G._arc_src, G._indices
    # Memory: at most two arrays of one number per arc besides the graph (issue 7: peak <= 2.5x the CSR). Without
    # weights every arc of a row carries the same share, so the shares are per node and no arc array is kept.
    weighted = weight is not None and weight in G._edge_attrs
    if weighted:
        transition = G._arc_weights(weight)  # a fresh gather: row-normalized in place below
        out_weight = bincount(arc_src, n, xp, weights=transition)
    else:
        transition = None
        out_weight = xp.diff(G._offsets).astype(np.float64)  # the CSR's row lengths: each out-arc weighs 1
    has_out = out_weight != 0
    inverse = where(xp, has_out, 1.0 / where(xp, has_out, out_weight, 1.0), 0.0)
    if weighted:
        transition *= inverse[arc_src]  # A's entries, row-normalized, one per arc
    is_dangling = xp.flatnonzero(~has_out)

    if nstart is None:
        x = xp.full(n, 1.0 / n)
    else:
        x = G._vector_from_dict(nstart)
        x /= x.sum()
    if personalization is None:
        p = xp.full(n, 1.0 / n)
    else:
        p = G._vector_from_dict(personalization)
        total = float(p.sum())  # one scalar read: NetworkX raises on an all-zero personalization
        if total == 0:
            raise ZeroDivisionError
        p /= total
    if dangling is None:
        dangling_weights = p
    else:
        dangling_weights = G._vector_from_dict(dangling)
        dangling_weights /= dangling_weights.sum()

    for _ in range(max_iter):
        xlast = x
        if transition is None:
            sent = (x * inverse)[arc_src]  # what each arc carries: its source's share (the same bits as w = 1)
        else:
            sent = x[arc_src]
            sent *= transition
        spread = bincount(arc_dst, n, xp, weights=sent)  # x @ A
        del sent
        x = alpha * (spread + x[is_dangling].sum() * dangling_weights) + (1 - alpha) * p
        err = float(xp.absolute(x - xlast).sum())  # one scalar read per iteration: the convergence test
        if err < n * tol:
            return G._result_dict(x)
    raise PowerIterationFailedConvergence(max_iter)


def hits(G: Any, max_iter: int = 100, tol: float = 1.0e-8, nstart: dict | None = None,
         normalized: bool = True) -> tuple[Any, Any]:  # fmt: skip
    """``(hubs, authorities)``: HITS scores of each node (see the module docstring).

    >>> from riptide.graph import from_edgelist, DiGraph
    >>> hubs, authorities = hits(from_edgelist([(1, 2), (1, 3), (2, 3)], create_using=DiGraph))
    >>> {k: round(v, 4) for k, v in hubs.items()}, {k: round(v, 4) for k, v in authorities.items()}
    ({1: 0.618, 2: 0.382, 3: 0.0}, {1: 0.0, 2: 0.382, 3: 0.618})
    """
    G = as_riptide_graph(G)
    n = G.number_of_nodes()
    if n == 0:
        return {}, {}
    if max_iter <= 0:
        raise PowerIterationFailedConvergence(max_iter)
    xp = G.xp
    w = G._arc_weights("weight")
    arc_src, arc_dst = G._arc_src, G._indices

    def times_a(x: Any) -> Any:  # (A x)[u] = sum over arcs u -> v of w * x[v]
        return bincount(arc_src, n, xp, weights=x[arc_dst] * w)

    def times_at(x: Any) -> Any:  # (A^T x)[v] = sum over arcs u -> v of w * x[u]
        return bincount(arc_dst, n, xp, weights=x[arc_src] * w)

    if nstart is None:
        a = xp.full(n, 1.0 / n)
    else:
        a = G._vector_from_dict(nstart)
        a /= a.sum()
    for _ in range(100 * max_iter):
        alast = a
        a = times_at(times_a(alast))
        top = xp.absolute(a).max()
        a = a / where(xp, top > 0, top, 1.0)
        if float(xp.absolute(a - alast).sum()) < tol:  # one scalar read per iteration
            break
    else:
        raise PowerIterationFailedConvergence(max_iter)
    h = times_a(a)
    if normalized:
        h = h / h.sum()
        a = a / a.sum()
    else:
        a = a / xp.sqrt((a * a).sum())
        h = times_a(a)
    return G._result_dict(h), G._result_dict(a)
