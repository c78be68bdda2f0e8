"""Group rows and reduce their values in one pass over a GPU hash table, or a dense table (CuPy only).

``groupby(k).v.sum()`` by :func:`~riptide.core.kernels.hashing.hash_group` followed by a scatter
reads the rows three times and writes a group number per row. Here each row finds (or claims) its
key's slot in the table and adds its values into per-slot accumulators straight away: one read of
the keys and values, no per-row output. Group numbers are computed later only if something asks
for them.

The table is tried at growing sizes (:data:`_STAGES`): first a small one whose accumulators live
in each block's shared memory, so that a few hundred groups over millions of rows do not all
contend for the same global atomics; then one sized to stay in the H200's L2 cache; then the full
size for the row count. A stage whose table fills up stops early (the kernel flags the overflow and
every thread leaves at its next new key, or within 8 probe steps) and the next stage starts over. Threads that checked the
flag just before it was raised may still claim slots past the load limit, even every slot, and a new
key would then probe for ever: so a probe longer than :data:`_PROBE_STEPS` raises the flag too (the
last stage allows the whole table, which its load limit keeps half empty).

One string key: the first, shared-memory stage keeps each block's cache of short keys; every stage without that
cache (the larger ones, and the first when the accumulators leave no room for it) keeps every slot's key *packed*
in two words beside the table (keys of up to 15 bytes whole, a longer key's length), so a
row compares its key with the table's words, in the L2 cache, not with the owner row's bytes, a random read of the
key column (:func:`~riptide.core.kernels.hashing.packed_string_slot_source`); and when no key is longer, those
words also sort the groups (:meth:`AggregatedTable.packed_key_rank`: one radix sort when the keys differ within 64
bits) and give the groups' keys (:meth:`AggregatedTable.packed_keys`), with no sort or random read of the strings.

Integer keys within small ranges (``id`` columns, codes, a year and a month) need no hashing: a
:class:`DenseLayout` numbers the slots by the keys themselves (a perfect hash), found by one pass that
reads each key's range. Its rows skip the probe and the key compare, its accumulators are the whole table
(a hash table also stores a key and a row per slot, and must be half empty), and its occupied slots come out
in key order, so a sorted groupby sorts nothing. :func:`dense_layout` says whether the keys qualify.

Accumulator kinds (:data:`KINDS`), one row of 64-bit words (one per slot) per requested (values, kind), all rows
in one allocation with the table and its status words, set to their starting values by one kernel
(:func:`~riptide.core.kernels.hashing.table_memory`):

* ``sum``: float64 for floats (NaN skipped), int64 for ints and bools, uint64 for uints (wrapping);
* ``fsum``: the values' float64 sum (a mean of ints);
* ``count``: the values that are not NaN; ``size``: the rows;
* ``min`` / ``max``: floats as order-preserving int64 words (NaN skipped), ints as int64, uints as uint64;
* ``first_row``: the smallest row (first appearance, for ``sort=False``).

``size`` and ``first_row`` read no values: their values pointer is null. The per-group results are read from
the rows in one gather at the groups' slots (:meth:`AggregatedTable.at_slots`), or placed in group order with the
slots and owners by one launch (:meth:`AggregatedTable.in_group_order`; for a small table of one string key, a
single-block kernel queued before the key count is read, :meth:`AggregatedTable.sorted_string_groups`).

The kernel source is generated per key layout and accumulator list and compiled once by CuPy. The
NumPy path groups by sorting and reduces by scatter (:mod:`riptide.core.ops.group_reduce`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from riptide._device import namespace_of, to_host
from riptide.core.kernels import hashing
from riptide.core.kernels.hashing import _PRELUDE, HashTable, KeyWords
from riptide.core.kernels.scatter import from_ordered_int, ordered_int
from riptide.core.kernels.sort import inverse_permutation, lexsort, stable_argsort_with_values

__all__ = ["KINDS", "AggregatedTable", "DenseLayout", "aggregate_rows", "dense_layout", "supports"]

KINDS = ("sum", "fsum", "count", "size", "min", "max", "first_row")

# Table sizes tried in turn (slots; each also capped by the row count's own size). 1024 slots keep one
# accumulator in 8 KiB of shared memory; 2**21 pairs (32 MiB) and their accumulators stay in the L2 cache.
_SHARED_SLOTS = 1024
_STAGES = (_SHARED_SLOTS, 1 << 21)
_SHARED_BYTES = 48 * 1024  # the most dynamic shared memory a launch gets without opting in
_PACKED_BYTES = 15  # the longest string key a table keeps whole in its packed words
# blocks of the packed keys' sort numbers: each warp ORs its keys' differing bits into one word with an atomic
_SPREAD_BLOCKS = 1024

_C_TYPES = {
    np.dtype(np.float64): "double", np.dtype(np.float32): "float",
    np.dtype(np.int64): "long long", np.dtype(np.int32): "int", np.dtype(np.int16): "short",
    np.dtype(np.int8): "signed char", np.dtype(np.uint64): "unsigned long long", np.dtype(np.uint32): "unsigned int",
    np.dtype(np.uint16): "unsigned short", np.dtype(np.uint8): "unsigned char", np.dtype(np.bool_): "unsigned char",
}  # fmt: skip


def supports(values: Any, kind: str) -> bool:
    """Whether :func:`aggregate_rows` can accumulate ``kind`` over the array ``values``."""
    return kind in KINDS and values.dtype in _C_TYPES


def _word_dtype(values_dtype: np.dtype, kind: str) -> np.dtype:
    """The accumulator's 64-bit word while the kernel runs (floats' min/max: order-preserving int64)."""
    if kind in ("count", "size", "first_row"):
        return np.dtype(np.int64)
    if kind == "fsum" or (kind == "sum" and values_dtype.kind == "f"):
        return np.dtype(np.float64)
    if values_dtype.kind == "u" and (kind == "sum" or values_dtype.itemsize == 8):
        return np.dtype(np.uint64)
    return np.dtype(np.int64)


def _identity(values_dtype: np.dtype, kind: str) -> Any:
    """The accumulator's starting value, as a NumPy scalar of its word dtype."""
    word = _word_dtype(values_dtype, kind)
    if kind in ("sum", "fsum", "count", "size"):
        return word.type(0)
    if kind == "first_row":
        return np.int64(np.iinfo(np.int64).max)
    if values_dtype.kind == "f":
        return ordered_int(np.array(np.inf if kind == "min" else -np.inf), np)[()]
    info = np.iinfo(word)
    return word.type(info.max if kind == "min" else info.min)


def _literal(value: Any) -> str:
    """A 64-bit NumPy scalar as a CUDA ``long long`` literal of the same bits."""
    return f"(i64){int(np.array(value).view(np.uint64))}ULL"


def _identity_bits(values_dtype: np.dtype, kind: str) -> np.int64:
    """:func:`_identity` as the int64 word of the same bits (0 for the sums and counts)."""
    return np.array(_identity(values_dtype, kind)).view(np.int64)[()]


#: What a kind that reads no values is handed as its values array: a null pointer.
_NO_VALUES = np.uint64(0)
_READS_NO_VALUES = ("size", "first_row")


# --- kernel source --------------------------------------------------------------------------------------------


def _accumulate(k: int, dtype: np.dtype, kind: str, masked: bool = False) -> str:
    """CUDA statement adding row ``i``'s value of input ``k`` into accumulator ``A{k}[slot]``.

    NaN is a missing value of a plain float column (skipped); in a masked column only the mask says what is
    missing, and a NaN under a valid mask is a value (it makes the sum NaN), as the column's ``isna`` says.
    """
    value = f"v{k}[i]"
    is_float = dtype.kind == "f"
    nan_is_missing = is_float and not masked
    if kind in ("sum", "fsum") and (is_float or kind == "fsum"):
        guard = "if (!isnan(x)) " if nan_is_missing else ""
        return f"{{ const double x = (double){value}; {guard}atomicAdd((double*)&A{k}[slot], x); }}"
    if kind == "sum":
        return f"atomicAdd((u64*)&A{k}[slot], (u64)(i64){value});"
    if kind == "count":
        if nan_is_missing:
            return f"if (!isnan((double){value})) atomicAdd((u64*)&A{k}[slot], 1ULL);"
        return f"atomicAdd((u64*)&A{k}[slot], 1ULL);"
    if kind == "size":
        return f"atomicAdd((u64*)&A{k}[slot], 1ULL);"
    if kind == "first_row":
        return f"atomicMin((i64*)&A{k}[slot], (i64)i);"
    op = "atomicMin" if kind == "min" else "atomicMax"
    if is_float:
        return (f"{{ const double x = (double){value}; if (!isnan(x)) {{ i64 b = __double_as_longlong(x); "
                f"{op}((i64*)&A{k}[slot], b ^ ((b >> 63) & 0x7FFFFFFFFFFFFFFFLL)); }} }}")  # fmt: skip
    if dtype.kind == "u" and dtype.itemsize == 8:
        return f"{op}((u64*)&A{k}[slot], (u64){value});"
    return f"{op}((i64*)&A{k}[slot], (i64){value});"


def _flush(k: int, dtype: np.dtype, kind: str) -> str:
    """CUDA statement merging a block's shared accumulator ``S{k}[s]`` into the global ``A{k}[s]``."""
    word = _word_dtype(dtype, kind)
    target = f"&A{k}[s]"
    if kind in ("sum", "fsum", "count", "size"):
        merge = (f"atomicAdd((double*){target}, __longlong_as_double(x));" if word.kind == "f"
                 else f"atomicAdd((u64*){target}, (u64)x);")  # fmt: skip
    else:
        op = "atomicMin" if kind in ("min", "first_row") else "atomicMax"
        merge = f"{op}((u64*){target}, (u64)x);" if word.kind == "u" else f"{op}((i64*){target}, x);"
    return f"{{ const i64 x = S{k}[s]; if (x != {_literal(_identity(dtype, kind))}) {merge} }}"


@functools.cache
def _kernel(word_types: tuple[str, ...], n_strings: int, has_valid: bool, specs: tuple[tuple[str, str, bool], ...],
            shared: bool, dense: bool = False, key_cache: bool = False, count_bytes: bool = False,
            packed: bool = False, records: bool = False) -> Any:  # fmt: skip
    """The aggregating insert for one key layout and one list of (values dtype, kind) accumulators."""
    import cupy as cp

    source = _source(word_types, n_strings, has_valid, specs, shared, dense, key_cache, count_bytes, packed, records)
    return cp.RawKernel(source, "dense_aggregate" if dense else "hash_aggregate")


def _source(word_types: tuple[str, ...], n_strings: int, has_valid: bool, specs: tuple[tuple[str, str, bool], ...],
            shared: bool, dense: bool = False, key_cache: bool = False, count_bytes: bool = False,
            packed: bool = False, records: bool = False) -> str:  # fmt: skip
    """The kernel's source: a hash table's probe (``dense=False``) or a dense table's slot arithmetic finds each
    row's slot; the accumulation, in shared or global memory, is the same. ``key_cache`` (a hash table of one string
    key, with ``shared``): each block keeps the slots' short keys in one more shared-memory word per slot;
    ``count_bytes``: the claiming rows add their string keys' lengths to the status words after the first two
    (:func:`~riptide.core.kernels.hashing.find_slot_source`); ``packed`` (a hash table of one string key, without
    the key cache): the table keeps each slot's key packed in two words, and a status word after those flags a
    key longer than 15 bytes (:func:`~riptide.core.kernels.hashing.packed_string_slot_source`); ``records`` (packed,
    without ``shared``): each slot's packed key, owner and first accumulator are one 32-byte record of ``records``
    (:func:`~riptide.core.kernels.hashing.table_memory`), read through :data:`_STRIDED`."""
    if key_cache and (dense or not shared or not hashing.key_cache_usable(word_types, n_strings)):
        raise ValueError("the key cache is a shared-memory hash stage's, for one string key")
    if packed and (dense or key_cache or not hashing.key_cache_usable(word_types, n_strings)):
        raise ValueError("packed keys are a hash table's, for one string key, without the key cache")
    if records and (not packed or shared or not specs):
        raise ValueError("records are a packed table's, with global accumulators")
    dtypes_kinds = [(np.dtype(d), kind) for d, kind, _ in specs]
    values = "".join(f"const {_C_TYPES[d]}* __restrict__ v{k}, " for k, (d, kind) in enumerate(dtypes_kinds))
    # A masked column's validity: a row whose value is missing adds nothing.
    values += "".join(f"const bool* __restrict__ m{k}, " for k, (_, _, masked) in enumerate(specs) if masked)
    # The accumulators are rows of one block: A{k} is row k, n_slots words each.
    rows = "\n    ".join(f"i64* A{k} = accumulators + {k}LL * n_slots;" for k in range(len(specs)))
    if records:  # the table, the packed keys and the first accumulator are the records' words 2, 0-1 and 3
        rows = rows.replace("i64* A0 = accumulators + 0LL * n_slots;", "const Strided A0 = {records + 3, 4};")
        rows = "const Strided table = {records + 2, 4}; u64* packed = (u64*)records;\n    " + rows
    valid_param = "const bool* __restrict__ valid, " if has_valid else ""
    skip = "if (!valid[i]) continue;" if has_valid else ""
    keys = hashing._params("", word_types, n_strings)
    if dense:
        name = "dense_aggregate"
        table = _dense_params(len(word_types))
        status = ""
        find_slot = f"const i64 slot = {_dense_slot(len(word_types))};"
        stop_if_full = ""
    else:
        name = "hash_aggregate"
        table = f"i64* {'records' if records else 'table'}, const i64 mask, u64* status, const u64 limit, " \
                "const i64 max_steps"  # fmt: skip
        table += ", u64* packed" if packed and not records else ""
        # status[0]: keys claimed, status[1]: the table is full, then (count_bytes) each string key's distinct
        # bytes, then (packed) the long keys; each accumulator has a word for every slot and for the one-word
        # tables' reserved key.
        status = ("u64* claimed = status; volatile u64* overflow = status + 1; u64* key_bytes = status + 2; "
                  f"u64* long_keys = key_bytes + {n_strings if count_bytes else 0}; const i64 n_slots = mask + 2;")
        if packed:
            find_slot = hashing.packed_string_slot_source(count_bytes, record_words=4 if records else 2)
        else:
            find_slot = hashing.find_slot_source(word_types, n_strings, count_bytes=count_bytes, key_cache=key_cache)
        find_slot += "\n        if (slot < 0) break;"
        stop_if_full = "if (*overflow) return;"
    body = "\n            ".join(f"if (m{k}[i]) {_accumulate(k, d, kind, masked=True)}" if specs[k][2] else
                                  _accumulate(k, d, kind) for k, (d, kind) in enumerate(dtypes_kinds))  # fmt: skip
    if shared:
        # Each block accumulates into its own copy in shared memory (the same slot numbers), then merges it.
        setup = ["extern __shared__ long long shared_words[];"]
        for k, (d, kind) in enumerate(dtypes_kinds):
            setup.append(f"long long* S{k} = shared_words + {k} * n_slots;")
            setup.append(f"for (i64 s = threadIdx.x; s < n_slots; s += blockDim.x) S{k}[s] = {_literal(_identity(d, kind))};")
        if key_cache:  # the block's cache of the slots' keys, after the accumulators
            setup.append(f"u64* key_cache = (u64*)(shared_words + {len(specs)} * n_slots);")
            setup.append(f"for (i64 s = threadIdx.x; s < n_slots; s += blockDim.x) key_cache[s] = {hashing.KEY_UNKNOWN};")
        setup.append("__syncthreads();")
        local_body = body
        for k in range(len(specs)):
            local_body = local_body.replace(f"&A{k}[slot]", f"&S{k}[slot]")
        flush = "\n        ".join(_flush(k, d, kind) for k, (d, kind) in enumerate(dtypes_kinds))
        prologue, accumulate = "\n    ".join(setup), local_body
        epilogue = f"""
    __syncthreads();
    {stop_if_full}
    for (i64 s = threadIdx.x; s < n_slots; s += blockDim.x) {{
        {flush}
    }}"""
    else:
        prologue, accumulate, epilogue = "", body, ""
    return _PRELUDE + (_STRIDED if records else "") + f"""
extern "C" __global__ void {name}({keys}, {valid_param}const i64 n, {table}, {values}i64* accumulators) {{
    {status}
    {rows}
    {prologue}
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {{
        {skip}
        {find_slot}
        {accumulate}
    }}
    {epilogue}
}}
"""


#: A view of every ``stride``-th word: ``a[s]`` is the word of slot ``s`` in a table of records, so the generated
#: statements (``table[slot]``, ``&A0[slot]``) read the same whichever layout holds the words.
_STRIDED = r"""
struct Strided {
    long long* words; long long stride;
    __device__ __forceinline__ long long& operator[](long long s) const { return words[s * stride]; }
};
"""


# --- driver ---------------------------------------------------------------------------------------------------


@dataclass
class DenseLayout:
    """Slots addressed by the keys themselves: small integer keys, each within ``[low, low + span)``, give row i the
    slot ``sum((key_j[i] - low_j) * stride_j)``, the keys' mixed-radix number (the first key most significant).

    No probing, no stored keys, no collisions: a perfect hash. Slots ascend as the keys do, so the occupied slots
    are already in sorted key order, and a slot's number gives its keys back (:meth:`key_values`).

    >>> DenseLayout(lows=(10, 0), spans=(3, 4)).strides, DenseLayout(lows=(10, 0), spans=(3, 4)).n_slots
    ((4, 1), 12)
    """

    lows: tuple[int, ...]
    spans: tuple[int, ...]

    @property
    def strides(self) -> tuple[int, ...]:
        return tuple(int(np.prod(self.spans[k + 1 :], dtype=object)) for k in range(len(self.spans)))

    @property
    def n_slots(self) -> int:
        return int(np.prod(self.spans, dtype=object))

    def kernel_args(self, keys: KeyWords) -> tuple:
        """The arguments every dense kernel starts with: the key words (and validity), the row count, the slot count
        and each word's low and stride (:func:`_dense_params`)."""
        placement = [np.int64(x) for pair in zip(self.lows, self.strides, strict=True) for x in pair]
        return (*keys.words, *([keys.valid] if keys.valid is not None else []), np.int64(keys.n),
                np.int64(self.n_slots), *placement)  # fmt: skip

    def lookup(self, keys: KeyWords, per_slot: Any) -> Any:
        """``per_slot`` (int64, a value per slot and one more, read by the rows ``keys.valid`` leaves out) at each
        row's slot, in one pass over the key words."""
        import cupy as cp

        out = cp.empty(keys.n, dtype=np.int64)
        args = (*self.kernel_args(keys), per_slot, out)
        hashing.launch(_dense_lookup_kernel(keys.word_types, keys.valid is not None), keys.n, args)
        return out

    def key_values(self, slots: Any) -> list[Any]:
        """The keys (int64 arrays, one per key word) of the rows that land in ``slots``."""
        return [(slots // stride) % span + low for low, span, stride in zip(self.lows, self.spans, self.strides,
                                                                            strict=True)]  # fmt: skip


def _dense_params(n_words: int) -> str:
    return "const i64 n_slots, " + ", ".join(f"const i64 low{k}, const i64 stride{k}" for k in range(n_words))


def _dense_slot(n_words: int) -> str:
    """CUDA expression of row ``i``'s slot in a dense table (key words ``w0``.., ``low``/``stride`` per word)."""
    return " + ".join(f"((i64)w{k}[i] - low{k}) * stride{k}" for k in range(n_words))


def _dense_lookup_source(word_types: tuple[str, ...], has_valid: bool) -> str:
    valid_param = "const bool* __restrict__ valid, " if has_valid else ""
    left_out = "if (!valid[i]) { out[i] = per_slot[n_slots]; continue; }" if has_valid else ""
    return _PRELUDE + f"""
extern "C" __global__ void dense_lookup({hashing._params("", word_types, 0)}, {valid_param}const i64 n,
        {_dense_params(len(word_types))}, const i64* __restrict__ per_slot, i64* __restrict__ out) {{
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {{
        {left_out}
        out[i] = per_slot[{_dense_slot(len(word_types))}];
    }}
}}
"""


@functools.cache
def _dense_lookup_kernel(word_types: tuple[str, ...], has_valid: bool) -> Any:
    import cupy as cp

    return cp.RawKernel(_dense_lookup_source(word_types, has_valid), "dense_lookup")


# A dense table is used when its slots are no more than this many (2**22 int64 accumulators, 32 MiB, stay in the
# H200's L2 cache) and no more than twice the rows (the hash table for the same rows would be about as large).
_DENSE_MAX_SLOTS = 1 << 22


def dense_layout(keys: KeyWords) -> DenseLayout | None:
    """The dense table for these keys, or None: the keys must be their own integers in key order
    (``keys.own_integers``), and their ranges' product at most :data:`_DENSE_MAX_SLOTS` slots and at most twice the
    rows (any range fits in 1024 slots). One pass over each key word finds its range; the ranges are read back
    together (one sync)."""
    import cupy as cp

    if not keys.own_integers or keys.n == 0:
        return None
    n_words = len(keys.words)
    bounds = cp.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min] * n_words, dtype=np.int64)
    blocks = 8 * _multiprocessors(cp.cuda.runtime.getDevice())
    valid = _NO_VALUES if keys.valid is None else keys.valid
    for k, word in enumerate(keys.words):
        hashing.launch(_key_range_kernel(keys.word_types[k]), keys.n,
                       (word, valid, np.int64(keys.n), bounds[2 * k :]), max_blocks=blocks)  # fmt: skip
    found = [int(x) for x in to_host(bounds)]
    lows, highs = found[0::2], found[1::2]
    if any(high < low for low, high in zip(lows, highs, strict=True)):  # every row left out
        return None
    layout = DenseLayout(tuple(lows), tuple(high - low + 1 for low, high in zip(lows, highs, strict=True)))
    return layout if layout.n_slots <= max(_SHARED_SLOTS, min(_DENSE_MAX_SLOTS, 2 * keys.n)) else None


KEY_RANGE_SOURCE = r"""
extern "C" __global__ void riptide_key_range(const WORD_T* __restrict__ word, const bool* __restrict__ valid,
                                             const long long n, long long* bounds) {
    // bounds[0] = the smallest word of a valid row, bounds[1] the largest (pre-set to the int64 extremes).
    long long low = 0x7FFFFFFFFFFFFFFFLL, high = -0x7FFFFFFFFFFFFFFFLL - 1;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        if (valid != nullptr && !valid[i]) continue;
        const long long x = (long long)word[i];
        low = min(low, x);
        high = max(high, x);
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        low = min(low, __shfl_xor_sync(0xffffffffu, low, offset));
        high = max(high, __shfl_xor_sync(0xffffffffu, high, offset));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMin(bounds, low);
        atomicMax(bounds + 1, high);
    }
}
"""


@functools.cache
def _key_range_kernel(word_type: str) -> Any:
    import cupy as cp

    return cp.RawKernel(KEY_RANGE_SOURCE, "riptide_key_range", options=(f"-DWORD_T={word_type}",))


@dataclass
class AggregatedTable:
    """A filled table and the accumulators of the requests: row k of ``words`` (int64, one word per slot) is
    request k's, in the raw bits of its word dtype; ``specs`` are the requests' (values dtype, kind, masked), the
    first ``n_requested`` of them asked for by the caller (a dense table adds a ``size`` to find its occupied slots).

    ``table`` is a :class:`~riptide.core.kernels.hashing.HashTable` or a :class:`DenseLayout`."""

    table: HashTable | DenseLayout
    words: Any
    specs: tuple[tuple[str, str, bool], ...]
    n_distinct: int
    n_requested: int
    _occupied: Any = None  # a dense table's occupied slots, in ascending order
    # a hash table's: the bytes of each string key's distinct values (those of the rows that claimed the slots)
    key_bytes: tuple[int, ...] = ()
    _numbered: Any = None  # a small one-string-key table's groups in key order (_sorted_string_groups' rows)
    # a one-string-key table's packed keys when none is long: a row per slot starting with its two words (the
    # packed words alone, or the table's records)
    _packed: Any = None

    @property
    def dense(self) -> bool:
        return isinstance(self.table, DenseLayout)

    @property
    def owners(self) -> Any:
        """The row that claimed each slot (-1: empty); a hash table's only."""
        if self.dense:
            raise TypeError("a dense table keeps no rows: its slots give the keys back (DenseLayout.key_values)")
        return self.table.table

    def raw(self, k: int) -> Any:
        """Request ``k``'s accumulator words per slot (int64 bits, not decoded)."""
        return self.words[k]

    def at_slots(self, slots: Any) -> list[Any]:
        """Each request's result at ``slots`` (an int64 array of slot numbers), in its word dtype, floats' min/max
        decoded to float64 (+-inf where a slot saw no value): one gather of every accumulator at once."""
        picked = _gather_rows(self.words, self.n_requested, slots)
        return [_decoded(picked[k], np.dtype(d), kind) for k, (d, kind, _) in enumerate(self.specs[: self.n_requested])]

    def in_group_order(self, occupied: Any, owners: Any, group_of: Any) -> tuple[Any, Any, list[Any]]:
        """Given each occupied slot's group number (``group_of``, aligned with :meth:`occupied_slots`' two arrays;
        a hash table's), the slot and the owner row of each group and each request's result per group, as
        ``at_slots`` gives them: in one launch, where a scatter, a take and a gather take three."""
        import cupy as cp

        m, n_rows = int(occupied.shape[0]), self.n_requested
        placed = cp.empty((2 + n_rows, m), dtype=np.int64)
        if m:
            group_of = cp.ascontiguousarray(group_of, dtype=np.int64)
            hashing.launch(_place_groups_kernel(), (2 + n_rows) * m,
                           (self.words, np.int64(self.words.shape[1]), np.int64(n_rows), occupied, owners, group_of,
                            np.int64(m), placed))  # fmt: skip
        results = [_decoded(placed[2 + k], np.dtype(d), kind) for k, (d, kind, _) in enumerate(self.specs[:n_rows])]
        return placed[0], placed[1], results

    def sorted_string_groups(self) -> tuple[Any, Any, list[Any], Any, Any] | None:
        """For a small table of one string key filled with ``sort_strings`` (else None), its groups in the keys'
        sorted order: each group's slot, its owner row, each request's result (as :meth:`at_slots`), and where each
        group's key starts in the key column's bytes with the offsets of the groups' keys (d + 1)."""
        if self._numbered is None:
            return None
        d, n_rows = self.n_distinct, self.n_requested
        rows = self._numbered
        results = [_decoded(rows[2 + k, :d], np.dtype(t), kind) for k, (t, kind, _) in enumerate(self.specs[:n_rows])]
        return rows[0, :d], rows[1, :d], results, rows[2 + n_rows, :d], rows[3 + n_rows, : d + 1]

    def packed_key_rank(self, occupied: Any) -> tuple[Any, int] | None:
        """The rank (int64) of each of the ``occupied`` slots' keys in sorted order, from the table's packed keys
        (one string key of at most 15 bytes per group), and the keys' bytes; None when the table has none.

        A key's bytes sort as two big-endian numbers: its first 8 bytes, then bytes 8 to 14 with its length in the
        lowest byte (past the end the bytes read as zeros, so of two keys alike up to the shorter's end the
        shorter comes first): UTF-8's byte order, the code point order pandas sorts strings in. When the keys
        differ only within 64 consecutive bits of those 128 (ids with a common prefix and one length, such as
        db-benchmark's ``id0000012345``), the groups sort by those bits alone: one radix sort, not two.
        """
        if self._packed is None:
            return None
        xp = namespace_of(occupied)
        m = int(occupied.shape[0])
        if m == 0:
            return xp.zeros(0, dtype=np.int64), 0
        numbers = xp.empty((2, m), dtype=np.uint64)  # each key's two numbers, where they differ, their bytes
        spread = xp.zeros(3, dtype=np.uint64)
        occupied = xp.ascontiguousarray(occupied, dtype=np.int64)
        hashing.launch(_packed_keys_kernel("riptide_packed_sort_numbers"), m,
                       (self._packed, np.int64(self._packed.shape[1]), occupied, np.int64(m), numbers, spread),
                       max_blocks=_SPREAD_BLOCKS)  # fmt: skip
        differ_high, differ_low, n_bytes = (int(x) for x in to_host(spread))
        key = varying_bits(numbers[0], numbers[1], (differ_high << 64) | differ_low, xp)
        if key is None:
            order = lexsort([numbers[0], numbers[1]], xp)
        else:
            order = stable_argsort_with_values(key, xp, overwrite=True)[0]
        return inverse_permutation(order, xp), n_bytes

    def packed_keys(self, slots: Any, n_bytes: int) -> tuple[Any, Any]:
        """The keys at ``slots`` as string offsets and bytes, written from the table's packed words (a table that
        has them, none long: see :meth:`packed_key_rank`, which counts ``n_bytes``), where a take of the owner rows'
        strings would read the key column at random."""
        xp = namespace_of(slots)
        m = int(slots.shape[0])
        offsets = xp.zeros(m + 1, dtype=np.int64)
        chars = xp.empty(n_bytes, dtype=np.uint8)
        if m:
            slots = xp.ascontiguousarray(slots, dtype=np.int64)
            stride = np.int64(self._packed.shape[1])
            hashing.launch(_packed_keys_kernel("riptide_packed_key_lengths"), m,
                           (self._packed, stride, slots, np.int64(m), offsets[1:]))  # fmt: skip
            xp.cumsum(offsets, out=offsets)
            hashing.launch(_packed_keys_kernel("riptide_unpack_keys"), m,
                           (self._packed, stride, slots, np.int64(m), offsets, chars))  # fmt: skip
        return offsets, chars

    def occupied_slots(self) -> tuple[Any, Any]:
        """The slots holding a key and the row that claimed each (two int64 arrays of ``n_distinct``; a hash table's
        in no particular order, a dense table's ascending, with None for the rows: it keeps none).

        A hash table's are found in one pass that writes only the result, where flatnonzero would write a prefix
        sum over every slot (the table is sized for the row count, often far more slots than keys)."""
        import cupy as cp

        if self.dense:
            return self._occupied, None
        owner = self.table.table
        n_slots = owner.shape[0]
        n_distinct = self.n_distinct
        out = cp.zeros(2 * n_distinct + 1, dtype=np.int64)  # the slots, their owners, and the kernel's counter
        stride = owner.strides[0] // owner.itemsize  # 2 in a one-word table's (key, owner) pairs
        hashing.launch(_occupied_kernel(), n_slots,
                       (owner, np.int64(stride), np.int64(n_slots), np.int64(n_distinct), out))  # fmt: skip
        return out[:n_distinct], out[n_distinct : 2 * n_distinct]

    def lookup(self, keys: KeyWords, per_slot: Any) -> Any:
        """``per_slot`` at the slot of each row of ``keys`` (the keys that filled the table): an int64 array with a
        value per slot and one more after them, which the rows left out read."""
        if self.dense:
            return self.table.lookup(keys, per_slot)
        return per_slot.take(hashing.probe_table(self.table, keys))  # a left-out row's slot -1 reads the last value


def aggregate_rows(keys: KeyWords, requests: list[tuple[Any, str, Any]], dense: DenseLayout | None = None,
                   sort_strings: bool = False) -> AggregatedTable:  # fmt: skip
    """Insert every row of ``keys`` and reduce ``requests`` per slot: triples of a values array (one per row; None
    for the kinds that read none, ``size`` and ``first_row``), a kind of :data:`KINDS` and the values' validity (a
    bool array, or None when every value counts). ``requests`` must satisfy :func:`supports`.

    With ``dense`` (from :func:`dense_layout` of the same keys) the rows go to a directly addressed table, else to
    a hash table. ``sort_strings``: when the keys are one string column and fit the shared-memory stage, also number
    the groups in the keys' sorted order before the key count is read (:meth:`AggregatedTable.sorted_string_groups`)."""
    if keys.n > hashing.MAX_ROWS:
        raise ValueError(f"hash tables take at most {hashing.MAX_ROWS} rows, got {keys.n}")
    specs = tuple(("int64" if values is None else str(values.dtype), kind, valid is not None)
                  for values, kind, valid in requests)  # fmt: skip
    values = [_NO_VALUES if v is None or kind in _READS_NO_VALUES else v for v, kind, _ in requests]
    valids = [valid for _, _, valid in requests if valid is not None]
    if dense is not None:
        return _aggregate_dense(keys, specs, values, valids, dense)
    return _aggregate_hashed(keys, specs, values, valids, sort_strings)


@functools.cache
def _identities(specs: tuple[tuple[str, str, bool], ...]) -> tuple[int, ...]:
    """Each request's starting accumulator word (int64 bits), worked out once per list of requests."""
    return tuple(int(_identity_bits(np.dtype(d), kind)) for d, kind, _ in specs)


def _fits_shared(n_slots: int, n_words: int) -> bool:
    """Whether ``n_words`` shared-memory words per slot (accumulators, a key cache) fit a block."""
    return n_slots <= _SHARED_SLOTS + 1 and 8 * n_slots * n_words <= _SHARED_BYTES


def _aggregate_hashed(keys: KeyWords, specs: tuple, values: list[Any], valids: list[Any],
                      sort_strings: bool = False) -> AggregatedTable:  # fmt: skip
    import cupy as cp

    n_words, n_strings, has_valid = keys.layout
    one_word = (n_words, n_strings) == (1, 0)
    full = hashing.final_capacity(keys.n)
    one_string = hashing.key_cache_usable(keys.word_types, n_strings)
    # one string key, short on average (at most the 15 bytes packed): the larger tables keep the keys packed
    packable = one_string and keys.strings[0][1].shape[0] <= _PACKED_BYTES * keys.n
    stages = sorted({min(stage, full) for stage in _STAGES} | {full})
    for capacity in stages:
        shared = _fits_shared(capacity + 1, len(specs))
        # the key cache takes one more shared word per slot: only where it fits beside the accumulators
        key_cache = shared and one_string and _fits_shared(capacity + 1, len(specs) + 1)
        # The accumulators have a word for every slot and for the one-word tables' reserved key.
        # The claiming rows count their keys' bytes where the table is small (the keys' take then needs no size
        # read); in a large table a million claims adding to one word cost milliseconds (groupby on id3: +3.3 ms).
        count_bytes = capacity <= _NUMBERED_MAX
        # one string key without the key cache: the table keeps the keys packed (compares stay in the table),
        # unless they are long on average (more than the 15 bytes packed: every probe would read the owner's too)
        packed = packable and not key_cache
        # without shared accumulators, a packed table keeps each slot's words in one record (table_memory)
        records = packed and not shared
        memory = hashing.table_memory(capacity, one_word, _identities(specs), capacity + 1,
                                      extra_status=(n_strings if count_bytes else 0) + int(packed), packed=packed,
                                      records=records)  # fmt: skip
        table, stored, words, status = memory.table, memory.stored, memory.accumulators, memory.status
        kernel = _kernel(keys.word_types, n_strings, has_valid, specs, shared, key_cache=key_cache,
                         count_bytes=count_bytes, packed=packed, records=records)  # fmt: skip
        table_arg = memory.records if records else stored if one_word else table
        args = (*keys.arrays(), *([keys.valid] if has_valid else []), np.int64(keys.n), table_arg,
                np.int64(capacity - 1), status, *hashing.stage_limits(capacity, capacity == full, keys.n),
                *([memory.packed] if packed and not records else []), *values, *valids, words)  # fmt: skip
        _launch(kernel, keys.n, args, shared, capacity + 1, len(specs) + int(key_cache), row_per_thread=True)
        if records:  # the owners and the first accumulator as every other table keeps them: contiguous
            table = cp.ascontiguousarray(table)
            words[0] = memory.records[:, 3]
        # A small table of one string key is numbered in key order by one more launch, queued before the read below
        # (it reads the count on the device), so that the host has little left to do once the count is known. (A
        # stage that overflows has launched it for nothing: the kernel sees the flag and stops at once.)
        numbered = (_sorted_string_groups(keys, table, capacity, status, words, len(specs))
                    if sort_strings and one_string and capacity <= _NUMBERED_MAX else None)  # fmt: skip
        # one read: the key count, whether they fit, the string keys' distinct bytes, and whether a key is long
        n_distinct, overflowed, *counted = (int(x) for x in to_host(status))
        if not overflowed:
            key_bytes = counted[: n_strings if count_bytes else 0]
            # the packed keys order the groups when none is longer than they hold
            packed_keys = None if not packed or counted[-1] else memory.records if records else \
                memory.packed.reshape(-1, 2)  # fmt: skip
            return AggregatedTable(HashTable(keys, table, None, stored, n_distinct), words, specs, n_distinct,
                                   len(specs), key_bytes=tuple(key_bytes), _numbered=numbered,
                                   _packed=packed_keys)  # fmt: skip
    raise AssertionError("the last stage's table holds every row")  # pragma: no cover


def _aggregate_dense(keys: KeyWords, specs: tuple, values: list[Any], valids: list[Any],
                     layout: DenseLayout) -> AggregatedTable:  # fmt: skip
    import cupy as cp

    n_requested = len(specs)
    # The occupied slots are those whose size is not zero, or whose first row is not the identity: a request of
    # either tells them, else a size is added.
    marker = next((k for k, (_, kind, _) in enumerate(specs) if kind in ("size", "first_row")), None)
    if marker is None:
        specs, values, marker = (*specs, ("int64", "size", False)), [*values, _NO_VALUES], len(specs)
    n_slots = layout.n_slots
    shared = _fits_shared(n_slots, len(specs))
    words = hashing.table_memory(None, False, _identities(specs), n_slots).accumulators
    kernel = _kernel(keys.word_types, 0, keys.valid is not None, specs, shared, dense=True)
    args = (*layout.kernel_args(keys), *values, *valids, words)
    _launch(kernel, keys.n, args, shared, n_slots, len(specs))
    unoccupied = _identity_bits(np.dtype(np.int64), specs[marker][1])
    occupied = cp.flatnonzero(words[marker] != unoccupied)  # ascending, so in key order (reads the count: one sync)
    return AggregatedTable(layout, words, specs, int(occupied.shape[0]), n_requested, occupied)


def _launch(kernel: Any, n: int, args: tuple, shared: bool, n_slots: int, n_shared_words: int,
            row_per_thread: bool = False) -> None:  # fmt: skip
    """Launch an aggregating insert. ``row_per_thread`` (a hash table in global memory): a thread for every row,
    not a grid of 65536 blocks striding over them. A row's probe is a chain of dependent loads (its offsets, its
    bytes, a slot of a table larger than the L2 cache) that only more rows in flight hide: groupby on db-benchmark's
    id3 (1e8 rows, 1e6 keys) measured 5.15 ms so, 5.59 ms striding."""
    import cupy as cp

    if shared:
        # Few blocks, each over many rows: fewer shared-to-global merges. Yet twice the blocks an SM holds at once
        # (up to 8 of 256 threads, as the kernel's registers allow), so that a last, partial wave is short: for 1e7
        # string keys 8 blocks per SM measured 183 us, 16 per SM 175 us.
        hashing.launch(kernel, n, args, max_blocks=16 * _multiprocessors(cp.cuda.runtime.getDevice()),
                       shared_mem=8 * n_slots * n_shared_words)  # fmt: skip
    else:
        hashing.launch(kernel, n, args, max_blocks=-(-n // 256) if row_per_thread else 65536)


@functools.cache
def _multiprocessors(device: int) -> int:
    """The SM count of GPU ``device``, read once: CuPy's ``Device.attributes`` queries every device attribute
    (a hundred driver calls) each time it is read."""
    import cupy as cp

    return int(cp.cuda.Device(device).attributes["MultiProcessorCount"])


GATHER_ROWS_SOURCE = r"""
extern "C" __global__ void riptide_gather_rows(const long long* __restrict__ words, const long long n_slots,
        const long long n_rows, const long long* __restrict__ slots, const long long m, long long* __restrict__ out) {
    // out[k][j] = words[k][slots[j]] for the first n_rows rows of words (n_slots words a row).
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < n_rows * m; t += (long long)gridDim.x * blockDim.x) {
        const long long k = t / m;
        out[t] = words[k * n_slots + slots[t - k * m]];
    }
}
"""


def _gather_rows(words: Any, n_rows: int, slots: Any) -> Any:
    """``words[:n_rows].take(slots, axis=1)`` in one launch (CuPy's take along an axis costs several calls)."""
    import cupy as cp

    m = int(slots.shape[0])
    out = cp.empty((n_rows, m), dtype=np.int64)
    if m and n_rows:
        slots = cp.ascontiguousarray(slots, dtype=np.int64)
        hashing.launch(_gather_rows_kernel(), n_rows * m,
                       (words, np.int64(words.shape[1]), np.int64(n_rows), slots, np.int64(m), out))  # fmt: skip
    return out


@functools.cache
def _gather_rows_kernel() -> Any:
    import cupy as cp

    return cp.RawKernel(GATHER_ROWS_SOURCE, "riptide_gather_rows")


PLACE_GROUPS_SOURCE = r"""
extern "C" __global__ void riptide_place_groups(const long long* __restrict__ words, const long long n_slots,
        const long long n_rows, const long long* __restrict__ occupied, const long long* __restrict__ owners,
        const long long* __restrict__ group_of, const long long m, long long* __restrict__ out) {
    // Occupied slot p belongs to group g = group_of[p]. Out (rows of m words): row 0 the slot of each group, row 1
    // its owner row, row 2 + k request k's accumulator at that slot.
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < (n_rows + 2) * m; t += (long long)gridDim.x * blockDim.x) {
        const long long row = t / m, p = t - row * m, slot = occupied[p];
        out[row * m + group_of[p]] = row == 0 ? slot : row == 1 ? owners[p] : words[(row - 2) * n_slots + slot];
    }
}
"""


@functools.cache
def _place_groups_kernel() -> Any:
    import cupy as cp

    return cp.RawKernel(PLACE_GROUPS_SOURCE, "riptide_place_groups")


#: The most slots :data:`SORTED_STRING_GROUPS_SOURCE` numbers in its one block (the first stage's table).
_NUMBERED_MAX = _SHARED_SLOTS

SORTED_STRING_GROUPS_SOURCE = hashing._PRELUDE + f"#define NUMBERED_MAX {_NUMBERED_MAX}\n" + r"""
__device__ __forceinline__ unsigned long long big_endian_prefix(const unsigned char* p, long long len) {
    // The first 8 bytes as one number that orders as the bytes do (zero past the end).
    const unsigned long long little = len > 0 ? string_word(p, 0, len) : 0ULL;
    unsigned long long big = 0;
    for (int k = 0; k < 8; ++k) big = (big << 8) | ((little >> (8 * k)) & 0xFFULL);
    return big;
}
extern "C" __global__ void riptide_sorted_string_groups(const long long* __restrict__ offsets,
        const unsigned char* __restrict__ chars, const long long* __restrict__ table, const long long n_slots,
        const unsigned long long* __restrict__ status, const long long* __restrict__ words, const long long stride,
        const long long n_rows, const long long width, long long* __restrict__ out) {
    // One block numbers the occupied slots of a table of one string key (at most NUMBERED_MAX slots) in the keys'
    // sorted order (bytes, then length: UTF-8's code point order). Out, rows of `width` words: 0 each group's
    // slot, 1 its owner row, 2 + k request k's accumulator there, 2 + n_rows where its key starts in `chars`,
    // 3 + n_rows the offsets of the groups' keys (d + 1).
    __shared__ long long slot_at[NUMBERED_MAX], owner_at[NUMBERED_MAX];
    __shared__ unsigned long long prefix_at[NUMBERED_MAX];
    __shared__ unsigned int found;
    if (status[1] != 0) return;  // the table overflowed: a larger stage follows
    if (threadIdx.x == 0) found = 0;
    __syncthreads();
    for (long long s = threadIdx.x; s < n_slots; s += blockDim.x) {
        const long long owner = table[s];
        if (owner >= 0) {
            const unsigned int p = atomicAdd(&found, 1u);
            slot_at[p] = s;
            owner_at[p] = owner;
            prefix_at[p] = big_endian_prefix(chars + offsets[owner], offsets[owner + 1] - offsets[owner]);
        }
    }
    __syncthreads();
    const long long d = found;
    long long* starts = out + (2 + n_rows) * width;
    long long* key_offsets = out + (3 + n_rows) * width;
    for (long long i = threadIdx.x; i < d; i += blockDim.x) {
        const long long ri = owner_at[i], start = offsets[ri], la = offsets[ri + 1] - start;
        const unsigned long long pa = prefix_at[i];
        long long g = 0;  // the keys before this one
        for (long long j = 0; j < d; ++j) {
            const unsigned long long pb = prefix_at[j];
            if (pb != pa) { g += pb < pa; continue; }
            if (j == i) continue;
            const long long rj = owner_at[j], lb = offsets[rj + 1] - offsets[rj];
            // the next 8 bytes at a time, as the prefixes (a string's end reads as zeros); equal to the shorter's
            // end, the shorter is first
            const unsigned char* a = chars + start;
            const unsigned char* b = chars + offsets[rj];
            const long long common = la < lb ? la : lb;
            int order = 0;
            for (long long k = 8; k < common && order == 0; k += 8) {
                const unsigned long long wa = big_endian_prefix(a + k, la - k), wb = big_endian_prefix(b + k, lb - k);
                order = wa == wb ? 0 : (wb < wa ? 1 : -1);
            }
            g += order != 0 ? order > 0 : lb < la;
        }
        out[g] = slot_at[i];
        out[width + g] = ri;
        for (long long r = 0; r < n_rows; ++r) out[(2 + r) * width + g] = words[r * stride + slot_at[i]];
        starts[g] = start;
        key_offsets[g + 1] = la;  // each key's length, summed below
    }
    __syncthreads();
    if (threadIdx.x == 0) {  // at most NUMBERED_MAX lengths
        long long total = 0;
        key_offsets[0] = 0;
        for (long long g = 1; g <= d; ++g) { total += key_offsets[g]; key_offsets[g] = total; }
    }
}
"""


@functools.cache
def _sorted_string_groups_kernel() -> Any:
    import cupy as cp

    return cp.RawKernel(SORTED_STRING_GROUPS_SOURCE, "riptide_sorted_string_groups")


def _sorted_string_groups(keys: KeyWords, table: Any, capacity: int, status: Any, words: Any, n_rows: int) -> Any:
    """Launch :data:`SORTED_STRING_GROUPS_SOURCE` over a filled one-string-key table; its rows (see the kernel)."""
    import cupy as cp

    if capacity > _NUMBERED_MAX:
        raise ValueError(f"one block numbers at most {_NUMBERED_MAX} slots, got {capacity}")
    (offsets, chars), width = keys.strings[0], capacity + 1
    out = cp.empty((4 + n_rows, width), dtype=np.int64)
    kernel = _sorted_string_groups_kernel()
    # as many threads as slots, or as the kernel's registers allow (its loops stride by the block's size)
    threads = min(_NUMBERED_MAX, getattr(kernel, "max_threads_per_block", _NUMBERED_MAX))
    kernel((1,), (threads,), (offsets, chars, table, np.int64(capacity), status, words, np.int64(words.shape[1]),
                              np.int64(n_rows), np.int64(width), out))
    return out


_OCCUPIED = r"""
extern "C" __global__ void occupied_slots(const long long* owner, const long long stride, const long long n,
        const long long n_occupied, long long* out) {
    // out[p] = the p-th occupied slot found, out[n_occupied + p] = its owner row; out[2 * n_occupied] (zeroed) counts.
    unsigned long long* counter = (unsigned long long*)(out + 2 * n_occupied);
    // Warp-aggregated compaction: one atomic per warp reserves room for the warp's occupied slots.
    for (long long base = (long long)blockIdx.x * blockDim.x; base < n; base += (long long)gridDim.x * blockDim.x) {
        const long long i = base + threadIdx.x;
        const bool occupied = i < n && owner[i * stride] >= 0;
        const unsigned int ballot = __ballot_sync(0xffffffffu, occupied);
        const int lane = threadIdx.x & 31;
        unsigned long long first = 0;
        if (lane == 0 && ballot) first = atomicAdd(counter, (unsigned long long)__popc(ballot));
        first = __shfl_sync(0xffffffffu, first, 0);
        if (occupied) {
            const unsigned long long p = first + __popc(ballot & ((1u << lane) - 1u));
            out[p] = i;
            out[n_occupied + p] = owner[i * stride];
        }
    }
}
"""


@functools.cache
def _occupied_kernel() -> Any:
    import cupy as cp

    return cp.RawKernel(_OCCUPIED, "occupied_slots")


PACKED_SORT_NUMBERS_SOURCE = r"""
__device__ __forceinline__ unsigned long long big_endian(unsigned long long x) {
    // the bytes reversed: little-endian string bytes as a number that orders as the bytes
    x = ((x & 0x00FF00FF00FF00FFULL) << 8) | ((x >> 8) & 0x00FF00FF00FF00FFULL);
    x = ((x & 0x0000FFFF0000FFFFULL) << 16) | ((x >> 16) & 0x0000FFFF0000FFFFULL);
    return (x << 32) | (x >> 32);
}
__device__ __forceinline__ unsigned long long second_number(unsigned long long word) {
    return big_endian(word & 0x00FFFFFFFFFFFFFFULL) | (word >> 56);  // bytes 8 to 14, then the length
}
__device__ __forceinline__ unsigned long long warp_or(unsigned long long x) {  // (every lane must call it)
    const unsigned low = __reduce_or_sync(0xFFFFFFFFu, (unsigned)x);
    const unsigned high = __reduce_or_sync(0xFFFFFFFFu, (unsigned)(x >> 32));
    return ((unsigned long long)high << 32) | low;
}
extern "C" __global__ void riptide_packed_sort_numbers(const unsigned long long* __restrict__ packed,
        const long long stride, const long long* __restrict__ slots, const long long m,
        unsigned long long* __restrict__ out, unsigned long long* __restrict__ spread) {
    // out[0][t], out[1][t]: the two numbers of slot slots[t]'s packed key (its pair of words at packed + stride * slot);
    // spread[0], spread[1]: the bits in which some key's numbers differ from the first key's (OR of the XORs);
    // spread[2]: the keys' bytes
    const unsigned long long* first = packed + slots[0] * stride;
    const unsigned long long first_high = big_endian(first[0]), first_low = second_number(first[1]);
    unsigned long long differ_high = 0, differ_low = 0;
    unsigned int n_bytes = 0;  // (a thread's keys: at most 15 bytes each, a few per thread)
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < m; t += (long long)gridDim.x * blockDim.x) {
        const unsigned long long* pair = packed + slots[t] * stride;
        const unsigned long long high = big_endian(pair[0]), low = second_number(pair[1]);
        out[t] = high;
        out[m + t] = low;
        differ_high |= high ^ first_high;
        differ_low |= low ^ first_low;
        n_bytes += (unsigned int)(pair[1] >> 56);
    }
    differ_high = warp_or(differ_high);  // every lane gets here: one atomic per warp
    differ_low = warp_or(differ_low);
    n_bytes = __reduce_add_sync(0xFFFFFFFFu, n_bytes);
    if ((threadIdx.x & 31) == 0) {
        if (differ_high) atomicOr(&spread[0], differ_high);
        if (differ_low) atomicOr(&spread[1], differ_low);
        atomicAdd(&spread[2], (unsigned long long)n_bytes);
    }
}

extern "C" __global__ void riptide_packed_key_lengths(const unsigned long long* __restrict__ packed,
        const long long stride, const long long* __restrict__ slots, const long long m, long long* __restrict__ ends) {
    // ends[t]: the length of slot slots[t]'s key (the top byte of its second packed word); a scan makes them ends
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < m; t += (long long)gridDim.x * blockDim.x)
        ends[t] = (long long)(packed[slots[t] * stride + 1] >> 56);
}

extern "C" __global__ void riptide_unpack_keys(const unsigned long long* __restrict__ packed, const long long stride,
        const long long* __restrict__ slots, const long long m, const long long* __restrict__ offsets,
        unsigned char* __restrict__ chars) {
    // the bytes of slot slots[t]'s key at chars[offsets[t]:offsets[t + 1]], from its packed words (little-endian)
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < m; t += (long long)gridDim.x * blockDim.x) {
        const unsigned long long* pair = packed + slots[t] * stride;
        const unsigned long long words[2] = {pair[0], pair[1]};
        const long long start = offsets[t], length = offsets[t + 1] - start;
        for (long long k = 0; k < length; ++k) chars[start + k] = (unsigned char)(words[k >> 3] >> (8 * (k & 7)));
    }
}
"""


@functools.cache
def _packed_keys_kernel(name: str) -> Any:
    """One of :data:`PACKED_SORT_NUMBERS_SOURCE`'s kernels: ``riptide_packed_sort_numbers``,
    ``riptide_packed_key_lengths`` or ``riptide_unpack_keys``."""
    import cupy as cp

    return cp.RawKernel(PACKED_SORT_NUMBERS_SOURCE, name)


def varying_bits(high: Any, low: Any, differing: int, xp: Any) -> Any:
    """The bits of the 128-bit numbers ``high * 2**64 + low`` (two uint64 arrays) in which they differ, as one
    unsigned array that orders as the numbers do (uint32 when 32 bits hold them); None when the differing bits
    (``differing``: the OR of each number XOR one of them) span more than 64.

    Bits above the highest differing one are the same in every number, and so are those below the lowest: dropping
    both keeps the order.

    >>> high, low = np.array([7, 7, 7], dtype=np.uint64), np.array([5 << 40, 1 << 40, 9 << 40], dtype=np.uint64)
    >>> key = varying_bits(high, low, (5 ^ 1 | 5 ^ 9) << 40, np)
    >>> key.dtype.name, np.argsort(key).tolist()
    ('uint32', [1, 0, 2])
    """
    if differing == 0:
        return xp.zeros(high.shape[0], dtype=np.uint8)
    top, bottom = differing.bit_length() - 1, (differing & -differing).bit_length() - 1
    if top - bottom >= 64:
        return None
    if bottom >= 64:
        key = high >> np.uint64(bottom - 64)
    elif bottom == 0:
        key = low.copy()  # (top < 64: the high numbers are all alike)
    else:
        key = (low >> np.uint64(bottom)) | (high << np.uint64(64 - bottom))
    return key.astype(np.uint32) if top - bottom < 32 else key


def _decoded(words: Any, dtype: np.dtype, kind: str) -> Any:
    """Raw int64 accumulator words as their word dtype (:func:`_word_dtype`); a float column's min/max back from
    order-preserving words to float64 (+-inf where a slot saw no value)."""
    if dtype.kind == "f" and kind in ("min", "max"):
        return from_ordered_int(words, namespace_of(words))
    word = _word_dtype(dtype, kind)
    return words if word == np.int64 else words.view(word)
