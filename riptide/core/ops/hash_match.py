"""Match a join's probe rows against its build rows in a GPU hash table.

The contract is :func:`riptide.core.ops.join.match_keys`' (a :class:`~riptide.core.ops.key_match.KeyMatch`):
for each probe row, how many build rows have an equal key and where they start in a build-row order
that keeps equal keys together. Here the build keys go into a hash table (one pass), every probe row
looks its key up (one pass), and only the build side is sorted — by slot, to make equal keys
contiguous. The sort-based matcher instead sorts both sides together, which for a 1e8-row probe side
costs more than the whole hash join.

Missing keys match each other (pandas), because the hash keys treat missing as a value of its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide.core.column import Column
from riptide.core.kernels import hashing
from riptide.core.kernels.scatter import scatter_add
from riptide.core.kernels.sort import stable_argsort
from riptide.core.ops.key_match import KeyMatch

__all__ = ["match_keys_hashed"]


def match_keys_hashed(probe: list[Column], build: list[Column]) -> Any:
    """A KeyMatch of ``probe`` against ``build`` (both on the GPU, comparable key dtypes), or None when the two
    sides' keys do not have the same hash layout (then the caller matches by sorting)."""
    xp = probe[0].xp
    build_words = hashing.key_words(build, dropna=False)
    probe_words = hashing.key_words(probe, dropna=False)
    if build_words.layout != probe_words.layout:
        return None
    table = hashing.build_table(build_words, expect_distinct=True)
    n_build = build[0].size
    if table.n_distinct == n_build:
        # Unique build keys (a lookup table): each probe row matches at most the one build row owning its slot.
        return KeyMatch.of_unique_build(hashing.probe_table(table, probe_words, owners=True), n_build)
    n_slots = table.table.shape[0]
    build_slot = table.row_slot.astype(np.int64)
    probe_slot = hashing.probe_table(table, probe_words).astype(np.int64)
    per_slot = xp.zeros(n_slots, dtype=np.int64)
    scatter_add(per_slot, build_slot, xp.ones(build_slot.shape[0], dtype=np.int64), xp)
    slot_start = xp.cumsum(per_slot) - per_slot
    found = probe_slot >= 0
    safe_slot = xp.maximum(probe_slot, 0)
    counts = xp.where(found, per_slot[safe_slot], 0)
    starts = slot_start[safe_slot]
    # Build rows ordered by slot, stably: equal keys become contiguous, in build-row order, as the contract asks.
    build_order = stable_argsort(build_slot, xp)
    hit = xp.zeros(n_slots + 1, dtype=bool)
    hit[xp.where(found, probe_slot, n_slots)] = True
    return KeyMatch(counts=counts, starts=starts, build_order=build_order, build_matched=hit[build_slot])
