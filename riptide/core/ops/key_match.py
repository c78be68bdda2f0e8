"""The contract between a join and its key matcher: for each probe row, the equal build rows.

:func:`riptide.core.ops.join.match_keys` (sorting both sides) and
:func:`riptide.core.ops.hash_match.match_keys_hashed` (a GPU hash table) both answer with a
:class:`KeyMatch`; the join's assembly reads only this.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide._device import namespace_of

__all__ = ["KeyMatch"]


class KeyMatch:
    """For each probe row, the build rows with an equal key (the contract of :func:`match_keys`).

    The build rows equal to probe row ``i`` are ``build_order[starts[i] : starts[i] + counts[i]]``, in
    build-row order. ``starts[i]`` is arbitrary when ``counts[i]`` is 0.

    Attributes
    ----------
    counts : int64 array, one per probe row
    starts : int64 array, one per probe row
    build_order : int64 array, a permutation of the build rows that keeps equal keys together, stably
    build_matched : bool array, one per build row: whether some probe row equals it
    probe_rank, build_rank : int64 arrays or None
        The rank of each row's key in pandas' sort order, on one scale for both sides. A matcher that
        does not order keys (a hash table) leaves them None; they are computed when needed.
    owner : int64 array or None
        Set when no two build rows are equal (a lookup table): the one build row equal to each probe
        row, or -1. The arrays above then follow from it, computed on first use (a join that can use
        ``owner`` directly never computes them).
    """

    def __init__(self, counts: Any = None, starts: Any = None, build_order: Any = None, build_matched: Any = None,
                 probe_rank: Any = None, build_rank: Any = None, owner: Any = None, n_build: int = 0):  # fmt: skip
        self._counts, self._starts, self._build_order, self._build_matched = counts, starts, build_order, build_matched
        self.probe_rank, self.build_rank = probe_rank, build_rank
        self.owner = owner
        self._n_build = n_build

    @classmethod
    def of_unique_build(cls, owner: Any, n_build: int) -> KeyMatch:
        """The match of a build side without equal rows, from each probe row's build row (-1: none)."""
        return cls(owner=owner, n_build=n_build)

    @property
    def counts(self) -> Any:
        if self._counts is None:
            self._counts = (self.owner >= 0).astype(np.int64)
        return self._counts

    @property
    def starts(self) -> Any:
        if self._starts is None:
            self._starts = namespace_of(self.owner).maximum(self.owner, 0)
        return self._starts

    @property
    def build_order(self) -> Any:
        if self._build_order is None:
            self._build_order = namespace_of(self.owner).arange(self._n_build, dtype=np.int64)
        return self._build_order

    @property
    def build_matched(self) -> Any:
        if self._build_matched is None:
            xp = namespace_of(self.owner)
            hit = xp.zeros(self._n_build + 1, dtype=bool)
            hit[xp.where(self.owner >= 0, self.owner, self._n_build)] = True
            self._build_matched = hit[: self._n_build]
        return self._build_matched
