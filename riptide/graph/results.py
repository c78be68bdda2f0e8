"""Per-node results that stay on the device until they are read: :class:`NodeMap`.

NetworkX returns per-node answers (PageRank, degree centrality, BFS distances) as a ``dict`` keyed by node. On the
GPU the answer is a device array over the dense vertex ids; turning it into a Python dict means reading the array
and the graph's original ids back to the host and building a million-entry dict, which takes ~100 ms for 1e6 nodes,
ten times the PageRank itself. A :class:`NodeMap` holds the device array (and which dense ids it covers) and builds
the host dict **once, on first use** of a dict feature: ``[]``, ``in``, iteration, ``items()``, ``==``, ``repr``.
Code that stays on the device never pays for it: :meth:`NodeMap.to_series` is a riptide Series indexed by node id
(no host copy) and :meth:`NodeMap.values_array` is the device array itself. ``len`` needs no host dict either.

It behaves as the dict NetworkX returns: same keys in the same order (NetworkX's node order; for
``single_source_shortest_path_length`` breadth-first discovery order), same values as Python numbers, ``len``, ``get``, ``in``,
``keys()/values()/items()`` (dict views), ``==`` with any mapping, ``dict(result)``, ``pd.Series(result)``,
``sorted(result.items(), key=...)``, ``max(result, key=result.get)``, ``reversed``, ``copy()`` and ``|`` (giving
dicts), assignment and deletion (the answer then lives on the host only), pickling (as its host dict) and a repr
identical to the dict's.

**Why not a dict subclass.** A ``dict`` subclass passes ``isinstance(x, dict)``, but its dict storage would be
empty until materialized, and C code reads that storage directly: ``json.dumps``, ``{**x}``, ``dict.__eq__``,
``copy.copy`` and CPython's ``PyDict_*`` calls in extensions would silently see an empty dict, which is a wrong
answer. Filling the storage eagerly would remove the point of the type. So ``NodeMap`` is a
:class:`collections.abc.MutableMapping` (``isinstance(x, Mapping)`` holds, ``isinstance(x, dict)`` does not), and
code that truly needs a dict calls ``dict(result)``. Where NetworkX's contract is a real dict, riptide gives one:
the NetworkX backend (:mod:`riptide.graph.backend`) hands dispatched calls ``dict(result)``, as other NetworkX
backends return plain dicts, so ``NETWORKX_BACKEND_PRIORITY=riptide`` changes no result type, and NetworkX's own
test suite (whose ``convert_to_nx`` hook receives the result) sees dicts too. The riptide API
(``riptide.graph.pagerank`` ...) returns the ``NodeMap``, which is what keeps a 1e6-node PageRank at GPU speed.

>>> from riptide.graph import from_edgelist
>>> from riptide.graph.results import NodeMap
>>> G = from_edgelist([("a", "b"), ("b", "c")])
>>> m = NodeMap.over_nodes(G, G._degrees("both"))
>>> len(m), m["b"], m == {"a": 1, "b": 2, "c": 1}
(3, 2, True)
>>> m
{'a': 1, 'b': 2, 'c': 1}
>>> m.to_series().to_pandas().to_dict()
{'a': 1, 'b': 2, 'c': 1}
"""

from __future__ import annotations

import weakref
from collections.abc import (
    ItemsView,
    Iterator,
    KeysView,
    Mapping,
    MutableMapping,
    ValuesView,
)
from typing import Any

import numpy as np

from riptide import _device

__all__ = ["NodeMap"]


class NodeMap(MutableMapping):
    """``{node: value}`` over a device array of per-node values; the host dict is built on first dict access.

    Build one with :meth:`over_nodes` (a value for every node, in node order) or :meth:`over_ids` (values for the
    dense ids in ``ids``, in that order).
    """

    __slots__ = ("_values", "_ids", "_labels", "_label_list", "_graph_ref", "_host", "__weakref__")

    def __init__(self) -> None:
        self._values: Any = None  # device array, one value per entry (None once the answer is host-only)
        self._ids: Any = None  # device int64 dense ids of the entries, or None: every node in dense order
        self._labels: Any = None  # the graph's Column of original ids in dense order (None: host-numbered ids)
        self._label_list: list | None = None  # the same ids as Python objects, when known
        self._graph_ref: Any = None  # weak reference to the graph, to share its cached host labels
        self._host: dict | None = None

    # ------------------------------------------------------------------ construction

    @classmethod
    def over_nodes(cls, graph: Any, values: Any) -> NodeMap:
        """One entry per node of ``graph``, in node order; ``values`` is a device array over the dense ids."""
        return cls._make(graph, values, None)

    @classmethod
    def over_ids(cls, graph: Any, ids: Any, values: Any) -> NodeMap:
        """Entries for the dense ids ``ids`` (a device int64 array, distinct), in that order."""
        return cls._make(graph, values, ids)

    @classmethod
    def _make(cls, graph: Any, values: Any, ids: Any) -> NodeMap:
        out = cls()
        out._values, out._ids = values, ids
        out._labels, out._label_list = graph._labels, graph._label_list
        out._graph_ref = weakref.ref(graph)
        return out

    @classmethod
    def _from_dict(cls, host: dict) -> NodeMap:
        out = cls()
        out._host = host
        return out

    # ------------------------------------------------------------------ the host dict, built once

    def _dict(self) -> dict:
        if self._host is None:
            values = _device.to_host(self._values).tolist()  # one transfer: the answer becomes Python numbers
            self._host = dict(zip(self._keys(), values))
        return self._host

    def _all_labels(self) -> list:
        """Every node's original id in dense order (the graph's cached list while the graph is alive)."""
        graph = self._graph_ref() if self._graph_ref is not None else None
        if graph is not None:
            return graph._host_labels()
        if self._label_list is None:
            self._label_list = self._labels.to_arrow().to_pylist()
        return self._label_list

    def _keys(self) -> list:
        if self._ids is None:
            return self._all_labels()
        graph = self._graph_ref() if self._graph_ref is not None else None
        cached = self._label_list if self._label_list is not None else getattr(graph, "_label_list", None)
        if cached is None and self._labels is not None:  # read only the ids this answer covers
            return self._labels.take(self._ids).to_arrow().to_pylist()
        labels = cached if cached is not None else self._all_labels()
        return [labels[i] for i in _device.to_host(self._ids).tolist()]

    # ------------------------------------------------------------------ device access (no host dict)

    def values_array(self) -> Any:
        """The values as one array (a CuPy array on the GPU), in iteration order; no copy while on the device."""
        if self._values is None:
            host = np.asarray(list(self._dict().values()))
            return _device.to_device(host)
        return self._values

    def to_series(self, name: Any = None) -> Any:
        """A riptide Series of the values indexed by node id (on the device; nothing is read to the host).

        >>> from riptide.graph import from_edgelist, pagerank, DiGraph
        >>> s = pagerank(from_edgelist([(1, 2), (2, 1)], create_using=DiGraph)).to_series("pagerank")
        >>> s.to_pandas().round(3).to_dict(), s.name
        ({1: 0.5, 2: 0.5}, 'pagerank')
        """
        from riptide.core.column import as_column
        from riptide.frame.index import Index
        from riptide.frame.series import Series

        if self._values is not None and self._labels is not None:
            labels = self._labels if self._ids is None else self._labels.take(self._ids)
            return Series._from_column(as_column(self._values), Index._from_column(labels), name)
        host = self._dict()
        return Series(list(host.values()), index=Index(list(host)), name=name)

    # ------------------------------------------------------------------ the dict protocol

    def __len__(self) -> int:
        if self._host is None:
            return int(self._values.shape[0])
        return len(self._host)

    def __getitem__(self, node: Any) -> Any:
        # Hot: dict(result) and pd.Series(result) call this once per key. Before the host dict exists,
        # ``None[node]`` raises TypeError and the slow path builds it (an unhashable key raises it again there).
        try:
            return self._host[node]  # type: ignore[index]
        except TypeError:
            return self._dict()[node]

    def get(self, node: Any, default: Any = None) -> Any:
        return self._dict().get(node, default)

    def __contains__(self, node: Any) -> bool:
        return node in self._dict()

    def __iter__(self) -> Iterator:
        return iter(self._dict())

    def __reversed__(self) -> Iterator:
        return reversed(self._dict())

    def keys(self) -> KeysView:
        return self._dict().keys()

    def values(self) -> ValuesView:
        return self._dict().values()

    def items(self) -> ItemsView:
        return self._dict().items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NodeMap):
            return self._dict() == other._dict()
        if isinstance(other, dict):
            return self._dict() == other
        if isinstance(other, Mapping):
            return self._dict() == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a dict

    def __setitem__(self, node: Any, value: Any) -> None:
        self._dict()[node] = value
        self._values = None  # the host dict is now the answer; the device copy is stale

    def __delitem__(self, node: Any) -> None:
        del self._dict()[node]
        self._values = None

    def clear(self) -> None:
        self._host, self._values = {}, None

    def copy(self) -> dict:
        """A plain dict with the same items (what ``dict.copy`` of NetworkX's answer gives)."""
        return dict(self._dict())

    def __or__(self, other: Any) -> Any:
        if not isinstance(other, Mapping):
            return NotImplemented
        return self._dict() | dict(other.items())

    def __ror__(self, other: Any) -> Any:
        if not isinstance(other, Mapping):
            return NotImplemented
        return dict(other.items()) | self._dict()

    def __ior__(self, other: Any) -> NodeMap:
        self.update(other)
        return self

    def __repr__(self) -> str:
        return repr(self._dict())

    def __reduce__(self) -> tuple:
        # Pickled as its host dict: device arrays do not travel, and the copy loads without a GPU.
        return (_rebuild, (self._dict(),))


def _rebuild(host: dict) -> NodeMap:
    return NodeMap._from_dict(host)
