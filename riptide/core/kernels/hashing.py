"""GPU hash tables over the rows of key columns: group rows, and look rows up (CuPy only).

Sorting 1e8 keys to find equal ones costs ~10 ms on an H200; hashing them costs one pass. The
table stores, per slot, the row that claimed it (open addressing, linear probing, claimed with
``atomicCAS``); a row whose key equals the claimant's joins that slot. Equality is exact: rows are
compared word by word, and strings eight bytes at a time, never by hash alone.

Keys reach the kernels as :class:`KeyWords`: for each key column either one integer word per row
(integers, bools, datetimes and categorical codes in their own width, floats as int64 with ``-0.0``
folded into ``0.0`` and every NaN into one pattern) or a string's offsets + bytes, plus a word that flags missing values where
missing must be a value of its own. :func:`key_words` builds them from columns.

* :func:`hash_group` numbers the distinct keys (in slot order) and names one row of each.
* :func:`build_table` / :func:`probe_table` find, for each probe row, the slot of the equal build row.

The kernel source is generated per key layout (the word columns' integer types, how many string
columns) and compiled once per layout by CuPy. Words are hashed and compared as 64-bit integers, so a
join's two sides may hold a key in different widths. The NumPy path of every caller sorts instead (``factorize``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from riptide._device import to_host
from riptide.core import dtypes
from riptide.core.column import CategoricalColumn, Column, NumericColumn, StringColumn

__all__ = ["KeyWords", "key_words", "hash_group", "HashTable", "build_table", "probe_table", "final_capacity",
           "TableMemory", "table_memory", "find_slot_source", "packed_string_slot_source", "launch", "stage_limits",
           "MAX_ROWS"]

MAX_ROWS = 2**31 - 1  # slots and rows are int32 in the kernels' per-row outputs
# A grouping's first table fits the H200's L2 (2**22 slots). Keys with more distinct values than half of it make the
# kernel stop early and the table is rebuilt at twice the row count. A join's build side, whose keys are usually
# distinct, starts at that size (``expect_distinct``).
_FIRST_CAPACITY = 2**22
_MAX_LOAD = 0.5
_FINAL_LOAD = 0.65  # linear probing stays short up to here (about 2 probes for a key present, 5 for a new one)
# Threads that read the overflow flag just before it was raised may still claim slots past the load limit, even
# every slot; a new key would then probe for ever. So a probe this long gives up the table too (a half-empty table
# never needs it); the last, full-sized table allows a walk of the whole table.
_PROBE_STEPS = 64


@dataclass
class KeyWords:
    """Key columns as the kernels read them."""

    words: list[Any]  # integer arrays (any width), one per fixed-width key (and per missing-flag)
    strings: list[tuple[Any, Any]]  # (offsets int64, chars uint8) per string key
    valid: Any  # bool array or None: rows with False take no part (a missing key with dropna)
    n: int
    # Each key is one word holding its own value, ordered as the keys sort (ints, bools, datetimes, none of them
    # missing-as-a-value nor uint64): what a directly addressed table needs to give the groups in key order.
    own_integers: bool = False

    @property
    def layout(self) -> tuple[int, int, bool]:
        return len(self.words), len(self.strings), self.valid is not None

    @property
    def word_types(self) -> tuple[str, ...]:
        """The C type of each word array (part of a kernel's signature)."""
        return tuple(_C_INTEGERS[np.dtype(w.dtype)] for w in self.words)

    def arrays(self) -> list[Any]:
        out = list(self.words)
        for offsets, chars in self.strings:
            out += [offsets, chars]
        return out


def key_words(columns: list[Column], dropna: bool) -> KeyWords:
    """Kernel inputs for ``columns``: with ``dropna`` a row with any missing key is left out, else missing is a
    value (equal to other missing values of its column, different from every non-missing value)."""
    import cupy as cp

    n = columns[0].size
    words: list[Any] = []
    strings: list[tuple[Any, Any]] = []
    valid = None
    own_integers = True
    for column in columns:
        missing = column.isna() if _may_be_missing(column) else None
        if missing is not None and dropna:
            valid = ~missing if valid is None else valid & ~missing
        # NaT kept as a key is INT64_MIN, first in word order where pandas sorts it last; a kept masked key adds a flag
        own_integers &= (isinstance(column, NumericColumn) and column.kind in "iubmM" and column.data.dtype != np.uint64
                         and (dropna or not (dtypes.is_masked(column.dtype) or column.kind in "mM")))  # fmt: skip
        if isinstance(column, StringColumn):
            if not dropna:  # flagged even without missing values: a join's two sides need the same layout
                strings.append(_missing_emptied(column, missing))
                words.append(missing.view(np.uint8) if missing is not None else cp.zeros(n, dtype=np.uint8))
            else:
                strings.append((column.offsets, column.chars))
            continue
        if isinstance(column, CategoricalColumn):
            words.append(column.codes)  # a missing code (-1) is already a value of its own
            continue
        assert isinstance(column, NumericColumn)
        data = column.data
        if data.dtype.kind == "f":
            # +0.0 folds -0.0 into 0.0; every NaN gets one bit pattern, so NaN keys are equal to each other.
            canonical = cp.where(cp.isnan(data), np.nan, data.astype(np.float64) + 0.0)
            words.append(canonical.view(np.int64))
        elif data.dtype == np.bool_:
            words.append(data.view(np.uint8))
        else:
            words.append(data)  # ints (and datetime ticks) in their own width
        if dtypes.is_masked(column.dtype) and not dropna:
            # A masked row's data is arbitrary: zero it and flag it. (Flagged even without a mask, so that two
            # masked columns always give the same layout, which a join's two sides need.)
            mask = column.mask if column.mask is not None else cp.ones(n, dtype=bool)
            words[-1] = _zeroed_where_missing(words[-1], mask)
            words.append((~mask).view(np.uint8))
    return KeyWords(words, strings, valid, n, own_integers)


def _zeroed_where_missing(data: Any, mask: Any) -> Any:
    """``data`` with 0 where ``mask`` is False: ``data`` itself when it already is, as Arrow and pandas leave it.

    The check (one scalar read, two byte-wide temporaries) spares the copy of a key column: 2.4 GB for db-benchmark
    q10's three masked int keys at 1e8 rows with 5% missing.
    """
    import cupy as cp

    if not bool(cp.any((data != 0) > mask)):  # a nonzero value under a missing row (True > False)
        return data
    return cp.where(mask, data, 0).astype(data.dtype, copy=False)


def _missing_emptied(column: StringColumn, missing: Any) -> tuple[Any, Any]:
    """The column's offsets and bytes with its missing rows empty: a missing row keeps whatever bytes it had under
    the mask, and missing keys kept as a value must hash and compare equal whatever those were."""
    import cupy as cp

    from riptide.core.kernels import segments

    if missing is None:
        return column.offsets, column.chars
    new_offsets = cp.zeros(column.size + 1, dtype=np.int64)
    cp.cumsum(cp.where(missing, 0, column.lengths()), out=new_offsets[1:])
    return new_offsets, segments.gather_segments(column.chars, column.offsets[:-1], new_offsets, cp)


def _may_be_missing(column: Column) -> bool:
    """Whether a row of ``column`` may be missing: a string (or masked) column without a validity array has none."""
    if not column.can_hold_missing():
        return False
    if isinstance(column, StringColumn) or (isinstance(column, NumericColumn) and dtypes.is_masked(column.dtype)):
        return column.mask is not None
    return True


# --- kernel source --------------------------------------------------------------------------------------------

_PRELUDE = r"""
typedef long long i64;
typedef unsigned long long u64;

__device__ __forceinline__ u64 mix64(u64 h) {
    h ^= h >> 33; h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33; return h;
}
__device__ __forceinline__ u64 combine(u64 h, u64 v) {
    return mix64(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}
// A table has mask + 1 slots, any number of them (not only powers of two): the hash's high bits pick the home
// slot (multiply-shift), and probing wraps from the last slot to the first.
__device__ __forceinline__ i64 home_slot(u64 h, i64 mask) { return (i64)__umul64hi(h, (u64)(mask + 1)); }
__device__ __forceinline__ i64 next_slot(i64 slot, i64 mask) { return slot == mask ? 0 : slot + 1; }
// Bytes [k, k + 8) of the string p[0, len) as one little-endian word, zero past its end (k < len, k a multiple of 8).
// Read as one or two aligned 8-byte loads: an aligned word holding a byte of the string lies in the same 8-byte
// block as that byte, so it never reaches another page. Strings are hashed and compared a word at a time: a key's
// bytes are one or two loads instead of one load per byte, whatever their alignment in the chars buffer.
//
// STREAMED: the bytes are read once (a row's own key), so their loads are marked evict-first (__ldcs): streaming
// 1e8 keys through the L2 cache would otherwise push out the hash table that every row probes.
template <bool STREAMED = false>
__device__ __forceinline__ u64 string_word(const unsigned char* p, i64 k, i64 len) {
    const u64 address = (u64)(p + k);
    const unsigned int skip = (unsigned int)(address & 7);  // bytes of the first aligned word before p + k
    const u64* aligned = (const u64*)(address - skip);
    u64 word = (STREAMED ? __ldcs(aligned) : aligned[0]) >> (8 * skip);
    const i64 left = len - k;  // bytes of this word that belong to the string
    if (skip && left > (i64)(8 - skip)) word |= (STREAMED ? __ldcs(aligned + 1) : aligned[1]) << (64 - 8 * skip);
    return left < 8 ? word & ((1ULL << (8 * left)) - 1) : word;
}
template <bool STREAMED = false>
__device__ __forceinline__ u64 hash_bytes(const unsigned char* p, i64 len) {
    u64 h = 0xcbf29ce484222325ULL ^ (u64)len;
    for (i64 k = 0; k < len; k += 8) h = combine(h, string_word<STREAMED>(p, k, len));
    return h;
}
// A 16-byte load of a hash table's slot past the L1 cache (as __ldcg), its line kept in the L2 cache before
// others (evict-last): the table is what every row reads again. (g++'s emulation reads it plainly.)
__device__ __forceinline__ ulonglong2 load_kept(const ulonglong2* p) {
#ifdef __CUDA_ARCH__
    ulonglong2 r;
    u64 policy;
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    asm volatile("ld.global.L1::no_allocate.L2::cache_hint.v2.u64 {%0, %1}, [%2], %3;"
                 : "=l"(r.x), "=l"(r.y) : "l"(p), "l"(policy));
    return r;
#else
    return __ldcg(p);
#endif
}
// The number of this claim among all of a table's (counted in *claimed), one atomic per group of lanes of a warp
// that claim together: a million new keys counting on one word one by one queue on it for milliseconds
// (groupby on db-benchmark's id3), and most claims come early, from whole warps at once.
__device__ __forceinline__ u64 count_claim(u64* claimed) {
    const unsigned int together = __activemask();
    const int leader = __ffs(together) - 1, lane = threadIdx.x & 31;
    u64 first = 0;
    if (lane == leader) first = atomicAdd(claimed, (u64)__popc(together));
    first = __shfl_sync(together, first, leader);
    return first + (u64)__popc(together & ((1u << lane) - 1u));
}
__device__ __forceinline__ bool same_bytes(const unsigned char* a, i64 la, const unsigned char* b, i64 lb) {
    if (la != lb) return false;
    for (i64 k = 0; k < la; k += 8) if (string_word(a, k, la) != string_word(b, k, lb)) return false;
    return true;
}
"""


_C_INTEGERS = {
    np.dtype(np.int64): "long long", np.dtype(np.int32): "int", np.dtype(np.int16): "short",
    np.dtype(np.int8): "signed char", np.dtype(np.uint64): "unsigned long long", np.dtype(np.uint32): "unsigned int",
    np.dtype(np.uint16): "unsigned short", np.dtype(np.uint8): "unsigned char",
}  # fmt: skip


def _params(prefix: str, word_types: tuple[str, ...], n_strings: int) -> str:
    parts = [f"const {t}* __restrict__ {prefix}w{k}" for k, t in enumerate(word_types)]
    for s in range(n_strings):
        parts += [f"const i64* __restrict__ {prefix}o{s}", f"const unsigned char* __restrict__ {prefix}c{s}"]
    return ", ".join(parts)


def _hash_expr(prefix: str, row: str, n_words: int, n_strings: int) -> str:
    lines = ["u64 h = 0x2545F4914F6CDD1DULL;"]
    lines += [f"h = combine(h, (u64)(i64){prefix}w{k}[{row}]);" for k in range(n_words)]
    lines += [f"h = combine(h, hash_bytes({prefix}c{s} + {prefix}o{s}[{row}], {prefix}o{s}[{row} + 1] - "
              f"{prefix}o{s}[{row}]));" for s in range(n_strings)]  # fmt: skip
    return "\n        ".join(lines)


def _equal_expr(a: str, ra: str, b: str, rb: str, n_words: int, n_strings: int) -> str:
    terms = [f"(i64){a}w{k}[{ra}] == (i64){b}w{k}[{rb}]" for k in range(n_words)]
    terms += [f"same_bytes({a}c{s} + {a}o{s}[{ra}], {a}o{s}[{ra} + 1] - {a}o{s}[{ra}], "
              f"{b}c{s} + {b}o{s}[{rb}], {b}o{s}[{rb} + 1] - {b}o{s}[{rb}])" for s in range(n_strings)]  # fmt: skip
    return " && ".join(terms) or "true"


# A probe gives up past max_steps (see _PROBE_STEPS), and every 8 steps once another thread has found the table
# full: an overflowing stage is thrown away, and without this its late rows probe a full table for max_steps each
# (groupby on 1e6 distinct strings: the 1024-slot first stage took 420 us so, comparing bytes at every step).
_GIVE_UP = ("if (++steps > max_steps) { *overflow = 1; slot = -1; break; }  "
            "if ((steps & 7) == 0 && *overflow) { slot = -1; break; }")

# The one-word table keeps the keys themselves, so that probing reads only the (L2-resident) table, not the key
# column at the owner's row. One key value is reserved to mark empty slots; rows holding it use the extra slot
# ``capacity``.
_EMPTY_KEY = 0x5BD1E9955BD1E995


def find_slot_source(word_types: tuple[str, ...], n_strings: int, *, count_bytes: bool = False,
                     key_cache: bool = False) -> str:  # fmt: skip
    """CUDA statements setting ``slot`` to row ``i``'s slot, claiming an empty one for a new key (and counting it in
    ``claimed``); ``slot = -1`` when the table is full (``*overflow`` raised): the caller's thread then stops.

    Shared by every kernel that fills a table (:func:`build_table` here, the aggregating insert of
    :mod:`riptide.core.kernels.hash_aggregate`). Expects ``table`` (pairs for one-word keys), ``mask``,
    ``claimed``, ``limit``, ``max_steps``, ``overflow`` and the key arrays in scope.

    ``count_bytes``: a claiming row also adds its string keys' lengths to ``key_bytes[s]`` (u64, one per string
    key), so the distinct keys' total size is known with the key count. ``key_cache`` (one string key and no
    word; see :func:`key_cache_usable`): ``key_cache[slot]`` (u64, in shared memory, ``KEY_UNKNOWN`` at first)
    holds each slot's key as this block has seen it, packed with its length when shorter than 8 bytes; a row
    whose short key is there needs no read of the table nor of the owner's bytes.
    """
    if key_cache:
        if not key_cache_usable(word_types, n_strings):
            raise ValueError("the key cache takes one string key and no word")
        return _cached_string_slot_source(count_bytes)
    n_words = len(word_types)
    if (n_words, n_strings) == (1, 0):
        return f"""
        const i64 EMPTY = (i64){_EMPTY_KEY}ULL;
        const i64 key = (i64)w0[i];
        i64 slot;
        if (key == EMPTY) {{
            if (table[2 * (mask + 1) + 1] < 0 &&
                    atomicCAS((u64*)&table[2 * (mask + 1) + 1], (u64)-1LL, (u64)i) == (u64)-1LL) atomicAdd(claimed, 1ULL);
            slot = mask + 1;
        }} else {{
            slot = home_slot(combine(0x2545F4914F6CDD1DULL, (u64)key), mask);
            i64 steps = 0;
            while (true) {{
                i64 current = table[2 * slot];
                if (current == key) break;
                if (current == EMPTY) {{
                    if (*overflow) {{ slot = -1; break; }}
                    current = (i64)atomicCAS((u64*)&table[2 * slot], (u64)EMPTY, (u64)key);
                    if (current == EMPTY) {{
                        table[2 * slot + 1] = i;
                        if (count_claim(claimed) >= limit) *overflow = 1;
                        break;
                    }}
                    if (current == key) break;
                }}
                {_GIVE_UP}
                slot = next_slot(slot, mask);
            }}
        }}"""
    claim = _claim_or_match_source(_equal_expr("", "owner", "", "i", n_words, n_strings),
                                   _count_bytes_source(n_strings) if count_bytes else "")  # fmt: skip
    return f"""
        {_hash_expr("", "i", n_words, n_strings)}
        i64 slot = home_slot(h, mask);
        i64 steps = 0;
        while (true) {{
            {claim}
            {_GIVE_UP}
            slot = next_slot(slot, mask);
        }}"""


def _claim_or_match_source(equal: str, on_claim: str, on_found: str = "") -> str:
    """The probe's step at ``slot`` of a table of owner rows: claim it if empty (count the key, run ``on_claim``),
    or stop if its owner's key is row ``i``'s (``equal``); ``on_found`` runs either way before the loop ends."""
    return f"""i64 owner = table[slot];
            if (owner < 0) {{
                if (*overflow) {{ slot = -1; break; }}
                owner = (i64)atomicCAS((u64*)&table[slot], (u64)-1LL, (u64)i);
                if (owner < 0) {{
                    if (count_claim(claimed) >= limit) *overflow = 1;
                    {on_claim} {on_found}
                    break;
                }}
            }}
            if ({equal}) {{ {on_found} break; }}"""


#: An unknown slot in a block's key cache; a packed key (length < 8 in the top byte) never has this value.
KEY_UNKNOWN = "0xFFFFFFFFFFFFFFFFULL"


def key_cache_usable(word_types: tuple[str, ...], n_strings: int) -> bool:
    """Whether the keys are one string column and no word: what a block's cache of the slots' keys
    (:func:`find_slot_source`) and a table's packed keys (:func:`packed_string_slot_source`) take."""
    return (len(word_types), n_strings) == (0, 1)


def _one_string_key_source() -> str:
    """The start of a probe for one string key: row ``i``'s ``key`` and ``key_length``, its hash ``h``, its home
    ``slot`` and the ``steps`` counter."""
    return f"""
        const i64 key_start = __ldcs(o0 + i), key_length = __ldcs(o0 + i + 1) - key_start;
        const unsigned char* key = c0 + key_start;
        const u64 h = combine(0x2545F4914F6CDD1DULL, hash_bytes<true>(key, key_length));  // (_hash_expr's hash)
        i64 slot = home_slot(h, mask);
        i64 steps = 0;"""


def _count_bytes_source(n_strings: int) -> str:
    return " ".join(f"atomicAdd(key_bytes + {s}, (u64)(o{s}[i + 1] - o{s}[i]));" for s in range(n_strings))


def _cached_string_slot_source(count_bytes: bool) -> str:
    """:func:`find_slot_source` for one string key with a block's ``key_cache`` of the slots' keys.

    Keys of fewer than 8 bytes (codes, ids, flags: the usual low-cardinality keys) are packed as
    ``(length << 56) | bytes``, so one shared-memory word says whether a slot holds the row's key, holds another
    key (probe on), or is not known to this block yet (then the table and the owner's bytes decide, as without
    the cache, and the slot's word is noted). A slot's word is written only with the key the table holds there,
    so every block's cache agrees with the table; the hash and the table are those of the uncached source.
    """
    claim = _claim_or_match_source("same_bytes(c0 + o0[owner], o0[owner + 1] - o0[owner], key, key_length)",
                                   _count_bytes_source(1) if count_bytes else "",
                                   on_found=f"if (packed != {KEY_UNKNOWN}) key_cache[slot] = packed;")  # fmt: skip
    return f"""{_one_string_key_source()}
        const u64 packed = key_length < 8 ? (((u64)key_length << 56) | (key_length ? string_word<true>(key, 0, key_length) : 0ULL))
                                          : {KEY_UNKNOWN};
        while (true) {{
            // a long key (packed unknown) always asks the table
            const u64 known = packed == {KEY_UNKNOWN} ? {KEY_UNKNOWN} : key_cache[slot];
            if (known != {KEY_UNKNOWN}) {{
                if (known == packed) break;  // else the slot holds another key: probe on
            }} else {{
                {claim}
            }}
            {_GIVE_UP}
            slot = next_slot(slot, mask);
        }}"""


#: A slot's packed key not published yet (every word of a fresh table is -1): the key cache's unknown word.
PACKED_UNKNOWN = KEY_UNKNOWN
#: A packed key's second word for a key of more than 15 bytes: this tag, then the key's length.
PACKED_LONG = "0xFE00000000000000ULL"


def packed_string_slot_source(count_bytes: bool = False, record_words: int = 2) -> str:
    """:func:`find_slot_source` for one string key in a table that also keeps each slot's key *packed*: two u64
    words per slot in ``packed`` (``PACKED_UNKNOWN`` at first), the key's first 8 bytes, then bytes 8 to 14 with
    the length in the top byte (keys of up to 15 bytes: ids, codes, names); a longer key's second word is
    ``PACKED_LONG | length``. ``record_words``: the words from one slot's pair to the next's (4 in a table of
    records, :func:`table_memory`).

    Without them a row compares its key with the bytes of the slot's owner row, a random read of the key column
    for every row (groupby on 1e8 rows of 1e6 distinct 12-byte keys: 11.9 ms in the kernel); with them the compare
    reads the table alone, which stays in the L2 cache. The claiming row publishes its packed key after claiming
    the slot, both words in one 16-byte store; a row reads both in one 16-byte load past the L1 cache. A slot whose
    words are not both published (or a long key of the row's length) is decided as without them, by its owner's
    bytes. Each word goes from all bits set to its final value once, and a second word never has all bits set;
    a first word of all bits set is taken as unpublished (a key of eight 0xFF bytes, never UTF-8, then always
    compares by its owner's bytes). So a load that saw half the store still gives the right answer, and no row
    waits for another. A claiming row of a long key sets ``*long_keys``: the packed words order the keys
    (:meth:`~riptide.core.kernels.hash_aggregate.AggregatedTable.packed_key_rank`) only when none is long.
    """
    # (a flag, not a count: a million long keys adding to one word would queue on it)
    publish = (f"__stcg((ulonglong2*)(packed + {record_words} * slot), make_ulonglong2(k0, k1)); "
               "if (key_length > 15 && *(volatile u64*)long_keys == 0) *long_keys = 1;")
    claim = _claim_or_match_source("same_bytes(c0 + o0[owner], o0[owner + 1] - o0[owner], key, key_length)",
                                   publish + (_count_bytes_source(1) if count_bytes else ""))  # fmt: skip
    return f"""{_one_string_key_source()}
        const u64 k0 = key_length ? string_word<true>(key, 0, key_length) : 0ULL;
        const u64 k1 = key_length > 15 ? ({PACKED_LONG} | (u64)key_length)
                                       : (((u64)key_length << 56) | (key_length > 8 ? string_word<true>(key, 8, key_length) : 0ULL));
        while (true) {{
            const ulonglong2 seen = load_kept((const ulonglong2*)(packed + {record_words} * slot));
            const bool published = seen.x != {PACKED_UNKNOWN} && seen.y != {PACKED_UNKNOWN};
            if (published && seen.y < {PACKED_LONG}) {{
                if (seen.x == k0 && seen.y == k1) break;  // else another key: probe on
            }} else if (!(published && seen.y != k1)) {{  // (a published long key of another length: probe on)
                {claim}
            }}
            {_GIVE_UP}
            slot = next_slot(slot, mask);
        }}"""


@functools.cache
def _insert_kernel(word_types: tuple[str, ...], n_strings: int, has_valid: bool) -> Any:
    """Insert every row; ``row_slot[i]`` = its key's slot (-1 if invalid), ``table[slot]`` = the row that claimed it
    (one-word tables: the pair of key and row)."""
    import cupy as cp

    valid_param = "const bool* __restrict__ valid, " if has_valid else ""
    skip = "if (!valid[i]) { row_slot[i] = -1; continue; }" if has_valid else ""
    source = _PRELUDE + f"""
extern "C" __global__ void hash_insert({_params("", word_types, n_strings)}, {valid_param}
        const i64 n, i64* table, const i64 mask, int* row_slot,
        u64* claimed, const u64 limit, const i64 max_steps, volatile u64* overflow) {{
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {{
        {skip}
        {find_slot_source(word_types, n_strings)}
        if (slot < 0) return;
        row_slot[i] = (int)slot;
    }}
}}
"""
    return cp.RawKernel(source, "hash_insert")


@functools.cache
def _probe_kernel(probe_types: tuple[str, ...], build_types: tuple[str, ...], n_strings: int, has_valid: bool,
                  owner: bool) -> Any:  # fmt: skip
    """For each probe row, the slot of the equal build row, or -1."""
    import cupy as cp

    n_words = len(probe_types)
    valid_param = "const bool* __restrict__ valid, " if has_valid else ""
    skip = "if (!valid[i]) { out[i] = -1; continue; }" if has_valid else ""
    out_type, emit = ("i64", "found >= 0 ? table[found] : -1") if owner else ("int", "(int)found")
    source = _PRELUDE + f"""
extern "C" __global__ void hash_probe({_params("p", probe_types, n_strings)}, {_params("b", build_types, n_strings)},
        {valid_param} const i64 n, const i64* __restrict__ table, const i64 mask, {out_type}* out) {{
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {{
        {skip}
        {_hash_expr("p", "i", n_words, n_strings)}
        i64 slot = home_slot(h, mask);
        i64 found = -1;
        while (true) {{
            i64 owner = table[slot];
            if (owner < 0) break;
            if ({_equal_expr("b", "owner", "p", "i", n_words, n_strings)}) {{ found = slot; break; }}
            slot = next_slot(slot, mask);
        }}
        out[i] = {emit};
    }}
}}
"""
    return cp.RawKernel(source, "hash_probe")


@functools.cache
def _probe_one_word_kernel(word_type: str, has_valid: bool, owner: bool) -> Any:
    import cupy as cp

    valid_param = "const bool* __restrict__ valid, " if has_valid else ""
    skip = "if (!valid[i]) { out[i] = -1; continue; }" if has_valid else ""
    out_type, emit = ("i64", "found >= 0 ? pairs[2 * found + 1] : -1") if owner else ("int", "(int)found")
    source = _PRELUDE + f"""
extern "C" __global__ void hash_probe_one_word(const {word_type}* __restrict__ w0, {valid_param} const i64 n,
        const i64* __restrict__ pairs, const i64 mask, {out_type}* out) {{
    const i64 EMPTY = (i64){_EMPTY_KEY}ULL;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {{
        {skip}
        const i64 k = (i64)w0[i];
        i64 found = -1;
        if (k == EMPTY) {{
            if (pairs[2 * (mask + 1) + 1] >= 0) found = mask + 1;
        }} else {{
            i64 slot = home_slot(combine(0x2545F4914F6CDD1DULL, (u64)k), mask);
            while (true) {{
                const i64 current = pairs[2 * slot];
                if (current == k) {{ found = slot; break; }}
                if (current == EMPTY) break;
                slot = next_slot(slot, mask);
            }}
        }}
        out[i] = {emit};
    }}
}}
"""
    return cp.RawKernel(source, "hash_probe_one_word")


def launch(kernel: Any, n: int, args: tuple, max_blocks: int = 65536, shared_mem: int = 0) -> None:
    """Run a grid-stride ``kernel`` over ``n`` items: 256 threads a block, at most ``max_blocks`` blocks."""
    threads = 256
    blocks = max(1, min((n + threads - 1) // threads, max_blocks))
    kernel((blocks,), (threads,), args, shared_mem=shared_mem)


def stage_limits(capacity: int, final: bool, n_rows: int) -> tuple[np.uint64, np.int64]:
    """(keys claimed before a table counts as full, probe steps before a thread gives up) for a table of
    ``capacity`` slots: the final table holds every row's key and allows a walk of the whole table; an earlier,
    smaller one overflows past ``_MAX_LOAD`` or after ``_PROBE_STEPS``."""
    if final:
        return np.uint64(n_rows), np.int64(capacity)
    return np.uint64(int(capacity * _MAX_LOAD)), np.int64(_PROBE_STEPS)


def final_capacity(n_rows: int) -> int:
    """Slots of a table sure to hold the keys of ``n_rows`` rows: filled to at most ``_FINAL_LOAD`` even when every
    row's key is new (tables are sized before the number of distinct keys is known)."""
    return max(1024, int(np.ceil(n_rows / _FINAL_LOAD)))


def _capacity_for(n_keys: int) -> int:
    return 1 << max(10, int(np.ceil(np.log2(max(2 * n_keys, 2)))))


# --- grouping -------------------------------------------------------------------------------------------------


@dataclass
class HashTable:
    """A filled table: ``table[slot]`` = the row that owns the slot (-1 empty), ``row_slot`` per inserted row;
    one-word tables also keep the key of each slot (``stored``) and one extra slot for the reserved key."""

    keys: KeyWords
    table: Any
    row_slot: Any
    stored: Any
    n_distinct: int

    @property
    def mask(self) -> int:
        """The last slot's number (slots are 0..mask; one-word tables keep the reserved key in slot mask + 1)."""
        return self.table.shape[0] - 2


def build_table(keys: KeyWords, expect_distinct: bool = False) -> HashTable:
    """Insert all rows of ``keys`` (see ``_FIRST_CAPACITY`` for how the table is sized)."""
    import cupy as cp

    if keys.n > MAX_ROWS:
        raise ValueError(f"hash tables take at most {MAX_ROWS} rows, got {keys.n}")
    n_words, n_strings, has_valid = keys.layout
    one_word = (n_words, n_strings) == (1, 0)
    kernel = _insert_kernel(keys.word_types, n_strings, has_valid)
    final = _capacity_for(keys.n) if expect_distinct else final_capacity(keys.n)
    capacity = final if expect_distinct else min(_FIRST_CAPACITY, final)
    while True:
        memory = table_memory(capacity, one_word)
        table, stored, status = memory.table, memory.stored, memory.status  # status: read back together
        row_slot = cp.empty(keys.n, dtype=np.int32)
        # The one-word kernel reads and writes the pairs; the general one only the owner of each slot.
        args = (*keys.arrays(), *([keys.valid] if has_valid else []), np.int64(keys.n), stored if one_word else table,
                np.int64(capacity - 1), row_slot, status[0:1], *stage_limits(capacity, capacity == final, keys.n), status[1:2])  # fmt: skip
        launch(kernel, keys.n, args)
        n_distinct, overflowed = (int(x) for x in to_host(status))  # one read: the key count, and whether they fit
        if not overflowed:
            return HashTable(keys, table, row_slot, stored, n_distinct)
        del memory, table, stored, row_slot
        capacity = final


@dataclass
class TableMemory:
    """A table's device memory, one allocation set up by one kernel launch (allocating and filling each part with
    CuPy costs a few calls each, which a groupby of a few million rows notices).

    ``table``: the owner row of each slot (-1: empty), a view of ``stored``'s second column for one-word keys;
    ``stored``: one-word keys' (key, owner) pairs (else empty); ``accumulators``: a row of int64 words per
    identity, each word at it; ``status``: keys claimed, the overflow flag, and as many more words as asked for
    (uint64), zeroed."""

    table: Any
    stored: Any
    accumulators: Any
    status: Any
    packed: Any = None  # with ``packed``: each slot's packed key, two u64 words (see packed_string_slot_source)
    # with ``records``: the (slots, 4) int64 records [packed key word 0, word 1, owner, first accumulator]
    records: Any = None


def table_memory(capacity: int | None, one_word: bool, identities: tuple[int, ...] = (),
                 accumulator_slots: int = 0, extra_status: int = 0, packed: bool = False,
                 records: bool = False) -> TableMemory:  # fmt: skip
    """The :class:`TableMemory` of a table of ``capacity`` slots plus one (for one-word keys, the reserved key's;
    ``None``: no table, accumulators alone) and ``accumulator_slots`` words per accumulator, each starting at its
    ``identities`` entry (int64 bits); ``extra_status`` more zeroed status words after the two; ``packed``: two
    more words per slot for its packed key, unpublished (all bits set).

    ``records`` (with ``packed``): each slot's packed key, owner and first accumulator side by side in one 32-byte
    record (one memory sector), so that a row's compare and its addition read one sector, not two in two arrays:
    a table of a million keys does not stay in the L2 cache, and each row's sectors come from memory (groupby on
    db-benchmark's id3). The first accumulator row is then only the place its results are copied to."""
    import cupy as cp

    if packed and one_word:
        raise ValueError("packed keys are a string table's; one-word tables keep their keys already")
    if records:
        if not packed or capacity is None or not identities:
            raise ValueError("records are a packed table's, with an accumulator")
        return _record_memory(capacity + 1, identities, accumulator_slots, extra_status)
    table_slots = 0 if capacity is None else capacity + 1
    # (key, owner row) pairs side by side, so a probe reads one memory sector; else the owners alone.
    table_words = (2 if one_word else 1) * table_slots
    # -1 too, set up with the owners; from a 16-byte boundary (a slot's two words are read and written together)
    packed_words = 2 * table_slots + table_words % 2 if packed else 0
    n_status = 2 + extra_status
    n_words = table_words + packed_words + len(identities) * accumulator_slots + n_status
    memory = cp.empty(n_words, dtype=np.int64)
    launch(_init_kernel(identities, one_word), max(table_words + packed_words, accumulator_slots, n_status),
           (memory, np.int64(table_words + packed_words), np.int64(accumulator_slots), np.int64(n_status)))  # fmt: skip
    accumulators = memory[table_words + packed_words : n_words - n_status].reshape(len(identities), accumulator_slots)
    stored = memory[:table_words].reshape(table_slots, 2) if one_word else memory[:0]
    table = stored[:, 1] if one_word else memory[:table_words]
    packed_keys = memory[table_words + packed_words - 2 * table_slots : table_words + packed_words].view(np.uint64) if (
        packed) else None
    return TableMemory(table, stored, accumulators, memory[n_words - n_status :].view(np.uint64), packed_keys)


def _record_memory(table_slots: int, identities: tuple[int, ...], accumulator_slots: int,
                   extra_status: int) -> TableMemory:  # fmt: skip
    """:func:`table_memory` with ``records``: the records (every word unpublished or empty, all bits set, but the
    first accumulator at its identity), then the accumulator rows and the status words."""
    import cupy as cp

    record_words = 4 * table_slots
    n_status = 2 + extra_status
    n_words = record_words + len(identities) * accumulator_slots + n_status
    memory = cp.empty(n_words, dtype=np.int64)
    launch(_init_kernel(identities, False, records=True), max(record_words, accumulator_slots, n_status),
           (memory, np.int64(record_words), np.int64(accumulator_slots), np.int64(n_status)))  # fmt: skip
    slots = memory[:record_words].reshape(table_slots, 4)
    accumulators = memory[record_words : n_words - n_status].reshape(len(identities), accumulator_slots)
    return TableMemory(slots[:, 2], memory[:0], accumulators, memory[n_words - n_status :].view(np.uint64),
                       records=slots)  # (the packed keys are the records' first two words)


def init_source(identities: tuple[int, ...], pairs: bool, records: bool = False) -> str:
    """The set-up kernel of :func:`table_memory`: empty slots (``pairs``: alternate empty keys and owners;
    ``records``: every fourth word, a record's first accumulator, at its identity), each accumulator row at its
    identity, ``n_status`` zero status words."""
    empty = f"(t & 1) ? -1LL : (long long){_EMPTY_KEY}ULL" if pairs else "-1LL"
    if records:
        empty = f"(t & 3) == 3 ? (long long){identities[0] % 2**64}ULL : -1LL"
    rows = "\n        ".join(f"accumulators[{k}LL * n_slots + t] = (long long){v % 2**64}ULL;"
                            for k, v in enumerate(identities))  # fmt: skip
    return f"""
extern "C" __global__ void riptide_table_init(long long* memory, const long long table_words, const long long n_slots,
                                              const long long n_status) {{
    long long* accumulators = memory + table_words;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < table_words; t += stride) memory[t] = {empty};
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < n_slots; t += stride) {{
        {rows}
    }}
    // the status words: keys claimed, overflow, and the caller's others
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < n_status; t += stride) {{
        accumulators[{len(identities)}LL * n_slots + t] = 0;
    }}
}}
"""


@functools.cache
def _init_kernel(identities: tuple[int, ...], pairs: bool, records: bool = False) -> Any:
    import cupy as cp

    return cp.RawKernel(init_source(identities, pairs, records), "riptide_table_init")


def hash_group(keys: KeyWords) -> tuple[Any, Any, Any, int]:
    """Group the rows of ``keys`` in a hash table.

    Returns ``(row_slot, owners, slot_group, n_groups)``: the slot of each row (int32, -1 for rows left out), one
    row of each group (groups numbered in slot order), the group of each table slot (-1 for an empty one), and the
    number of groups.
    """
    import cupy as cp

    built = build_table(keys)
    occupied = built.table >= 0
    slot_group = cp.cumsum(occupied, dtype=np.int64) - 1
    n_groups = int(slot_group[-1]) + 1  # one scalar read: the number of groups sizes every result
    slot_group = cp.where(occupied, slot_group, -1)
    return built.row_slot, built.table[occupied], slot_group, n_groups


def probe_table(built: HashTable, probe: KeyWords, owners: bool = False) -> Any:
    """For each row of ``probe``, the slot of ``built`` holding an equal key (int32), or with ``owners`` the build
    row that claimed that slot (int64); -1 where no build key is equal."""
    import cupy as cp

    n_words, n_strings, has_valid = probe.layout
    if built.keys.layout[:2] != (n_words, n_strings):
        raise ValueError("probe keys must have the layout of the build keys")
    out = cp.empty(probe.n, dtype=np.int64 if owners else np.int32)
    if built.stored.shape[0]:  # a one-word table: compare against the stored keys
        kernel = _probe_one_word_kernel(probe.word_types[0], has_valid, owners)
        args = (*probe.arrays(), *([probe.valid] if has_valid else []), np.int64(probe.n), built.stored,
                np.int64(built.mask), out)  # fmt: skip
    else:
        kernel = _probe_kernel(probe.word_types, built.keys.word_types, n_strings, has_valid, owners)
        args = (*probe.arrays(), *built.keys.arrays(), *([probe.valid] if has_valid else []), np.int64(probe.n),
                built.table, np.int64(built.mask), out)  # fmt: skip
    launch(kernel, probe.n, args)
    return out
