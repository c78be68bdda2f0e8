"""CUDA kernels of the device Parquet decoder (:mod:`riptide.io.parquet_device`), as one source.

The source is written so that it also compiles as plain C++ (g++), where the test suite runs it on the CPU:
``RT_HOST`` defined, :data:`HOST_PRELUDE` first. Kernels use only

* ``threadIdx.x`` / ``blockIdx.x`` / ``blockDim.x``, and warp-cooperative helpers whose lanes are ``WARP`` wide
  (32 on the device; the host build picks 1 for speed, or 4 with one OS thread per lane, to exercise the
  cross-lane logic): ``warp_bcast`` (a shuffle from one lane), ``warp_sync`` (``__syncwarp``, also the memory
  fence between the lanes) and ``warp_sum``;
* ``__shared__`` arrays indexed by the warp within the block (``WPB`` warps per block), and for the kernels whose
  warps share a page (``pq_snappy_index``, ``pq_byte_arrays``) a ``Chain`` per block: ``block_sync``
  (``__syncthreads``) and turn counters in shared memory that a warp's lane 0 waits on and hands on after a
  ``__threadfence_block`` (a host block is one warp: it never waits);
* every scalar parameter is ``long long`` and every array a pointer, so a generic host harness can call any
  kernel from a list of 64-bit words.

The kernels (the module docstring of :mod:`riptide.io.parquet_device` describes the data flow):

``pq_walk``            one thread per column chunk: walks the Thrift page headers (compact protocol), counting the
                       pages (``fill=0``) or writing one row of the page table per page (``fill=1``).
``pq_snappy_index``    one block per page of more than one Snappy block: where each block's tags start in the input.
``pq_decompress``      one warp per page or Snappy block: Snappy (lane 0 parses a batch of tags, the lanes write its bytes in parallel,
                       following copies of copies back to bytes already in place; see ``snappy_warp``), or a copy;
                       a data page v2's levels are copied as they are (they are never compressed).
``pq_levels``          one warp per data page: definition levels (RLE / bit-packed hybrid, bit width 1) to the
                       row validity bytes; counts the page's values; finds where its values start.
``pq_byte_arrays``     one block per page: PLAIN ``BYTE_ARRAY`` values (dictionary pages of string
                       columns) to (position, length) pairs.
``pq_values``          one warp per data page: PLAIN values (copied), PLAIN / RLE booleans, dictionary indices
                       (hybrid, bit width from the first byte) gathered from the dictionary page, string values as
                       (position, length) pairs, categorical codes through the dictionary -> category map.
``pq_gather_strings``  one thread per string: copies its bytes to the column's chars at its offset.
"""

from __future__ import annotations

__all__ = ["HOST_PRELUDE", "KERNELS", "PF", "CF", "SNAPPY_BLOCK", "SOURCE"]

# Page table: one row of PF int64 per page. pq_walk writes fields 0..11, the host the rest.
PF = 20
(P_TYPE, P_CHUNK, P_DATA, P_CSIZE, P_USIZE, P_NVALUES, P_ENC, P_DEFENC, P_NNULLS, P_DEFLEN, P_REPLEN, P_ISCOMP,
 P_CODEC, P_OUT, P_COL, P_MAXDEF, P_MASK, P_DICT, P_DICTBASE, P_COLFIRST) = range(PF)  # fmt: skip

# Column table: one row of CF int64 per decoded column (pointers are device addresses).
CF = 8
C_KIND, C_WIDTH, C_OUT, C_POS, C_LEN, C_MAP = range(6)
KIND_FIXED, KIND_BOOL, KIND_STRING, KIND_CATEGORY = range(4)

SNAPPY_BLOCK = 65536  # Snappy compresses its input in blocks of this size (see pq_snappy_index)

KERNELS = ("pq_walk", "pq_snappy_index", "pq_decompress", "pq_levels", "pq_byte_arrays", "pq_values", "pq_gather_strings")

SOURCE = r"""
typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned char u8;

#ifndef RT_HOST
#define WARP 32
#define WPB 4
#define DEV __device__ __forceinline__
#define DEVR __device__
__device__ __forceinline__ i64 warp_bcast(i64 v, int src) { return __shfl_sync(0xffffffffu, v, src); }
__device__ __forceinline__ void warp_sync() { __syncwarp(); }
#endif

#define PF 20
enum { P_TYPE, P_CHUNK, P_DATA, P_CSIZE, P_USIZE, P_NVALUES, P_ENC, P_DEFENC, P_NNULLS, P_DEFLEN, P_REPLEN,
       P_ISCOMP, P_CODEC, P_OUT, P_COL, P_MAXDEF, P_MASK, P_DICT, P_DICTBASE, P_COLFIRST };
#define CF 8
enum { C_KIND, C_WIDTH, C_OUT, C_POS, C_LEN, C_MAP };
enum { KIND_FIXED, KIND_BOOL, KIND_STRING, KIND_CATEGORY };

DEV int lane_id() { return (int)(threadIdx.x % WARP); }
DEV i64 warp_item() { return (i64)blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP; }
DEV i64 imin(i64 a, i64 b) { return a < b ? a : b; }
DEV void fail(int* error, int code) { *error = code; }

DEV i64 warp_sum(i64 v) {
    __shared__ i64 s_sum[WPB][WARP];
    int w = threadIdx.x / WARP, lane = lane_id();
    s_sum[w][lane] = v;
    warp_sync();
    i64 t = 0;
    for (int k = 0; k < WARP; k++) t += s_sum[w][k];
    warp_sync();
    return t;
}

// Whether v is nonzero in any lane (also a barrier of the warp).
#ifndef RT_HOST
DEV int warp_any(int v) { return __any_sync(0xffffffffu, v); }
#else
DEV int warp_any(int v) { return warp_sum(v != 0) != 0; }
#endif

// Exclusive prefix sum of v over the lanes of a warp, and the warp's total.
#ifndef RT_HOST
DEV i64 warp_exclusive_sum(i64 v, i64& total) {
    int lane = lane_id();
    i64 x = v;
    for (int d = 1; d < WARP; d <<= 1) {
        i64 y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d) x += y;
    }
    total = __shfl_sync(0xffffffffu, x, WARP - 1);
    return x - v;
}
#else
DEV i64 warp_exclusive_sum(i64 v, i64& total) {
    __shared__ i64 s_scan[WPB][WARP];
    int w = threadIdx.x / WARP, lane = lane_id();
    s_scan[w][lane] = v;
    warp_sync();
    i64 before = 0, t = 0;
    for (int k = 0; k < WARP; k++) {
        if (k < lane) before += s_scan[w][k];
        t += s_scan[w][k];
    }
    warp_sync();
    total = t;
    return before;
}
#endif

DEV u32 load_u32(const u8* p) { return (u32)p[0] | ((u32)p[1] << 8) | ((u32)p[2] << 16) | ((u32)p[3] << 24); }

// ULEB128 varint at p[ip] (ip < n), at most 6 bytes (a Snappy length, a hybrid run header); bad = 1 when truncated.
DEV u64 read_uleb(const u8* p, i64 n, i64& ip, int& bad) {
    u64 v = 0;
    for (int s = 0;; s += 7) {
        if (ip >= n || s > 35) { bad = 1; return v; }
        u32 b = p[ip++];
        v |= (u64)(b & 0x7f) << s;
        if (!(b & 0x80)) return v;
    }
}

// n bytes from s to d (distinct buffers) by the lanes of a warp, as 4-byte words. A lane keeps COPY_UNROLL loads in
// flight before it stores: a copy is latency-bound otherwise (one load round trip per 128 bytes of a warp).
// An unaligned source is read as aligned words and shifted (never past its last byte; at most 3 bytes before
// its first, inside the same allocation since allocations are word-aligned).
#define COPY_UNROLL 4
DEV void warp_copy(const u8* s, u8* d, i64 n) {
    int lane = lane_id();
    i64 head = (i64)((4 - ((u64)d & 3)) & 3);
    if (head > n) head = n;
    for (i64 j = lane; j < head; j += WARP) d[j] = s[j];
    s += head;
    d += head;
    n -= head;
    i64 nw = n >> 2;
    int sa = (int)((u64)s & 3);
    const u32* sw = (const u32*)(s - sa);
    u32* dw = (u32*)d;
    i64 body = nw > 0 ? nw - 1 : 0;  // words that may read the aligned word after them; the last one does not
    for (i64 j0 = 0; j0 < body; j0 += (i64)WARP * COPY_UNROLL) {
        u32 lo[COPY_UNROLL], hi[COPY_UNROLL];
        for (int u = 0; u < COPY_UNROLL; u++) {
            i64 j = j0 + lane + (i64)u * WARP;
            lo[u] = j < body ? sw[j] : 0;
            hi[u] = (j < body && sa) ? sw[j + 1] : 0;
        }
        for (int u = 0; u < COPY_UNROLL; u++) {
            i64 j = j0 + lane + (i64)u * WARP;
            if (j < body) dw[j] = sa ? (u32)((((u64)hi[u] << 32) | lo[u]) >> (8 * sa)) : lo[u];
        }
    }
    if (nw > 0 && lane == 0) dw[nw - 1] = load_u32(s + 4 * (nw - 1));
    for (i64 j = (nw << 2) + lane; j < n; j += WARP) d[j] = s[j];
}

// ------------------------------------------------------------------ Thrift compact protocol (page headers)
struct TR { const u8* p; const u8* e; int bad; };

DEV u32 tr_byte(TR& r) {
    if (r.p >= r.e) { r.bad = 1; return 0; }
    return *r.p++;
}
DEV u64 tr_varint(TR& r) {
    u64 v = 0;
    for (int s = 0; s < 64; s += 7) {
        u32 b = tr_byte(r);
        if (r.bad) return 0;
        v |= (u64)(b & 0x7f) << s;
        if (!(b & 0x80)) return v;
    }
    r.bad = 1;
    return 0;
}
DEV i64 tr_zigzag(TR& r) { u64 v = tr_varint(r); return (i64)(v >> 1) ^ -(i64)(v & 1); }

// Next field of a struct: 0 at its end (STOP); the field id and type otherwise.
DEV int tr_field(TR& r, int& id, int& type) {
    u32 h = tr_byte(r);
    if (r.bad || h == 0) return 0;
    type = (int)(h & 15);
    int delta = (int)(h >> 4);
    id = delta ? id + delta : (int)tr_zigzag(r);
    return !r.bad;
}

DEVR void tr_skip(TR& r, int type, int depth);
DEVR void tr_skip_struct(TR& r, int depth) {
    int id = 0, type = 0;
    while (tr_field(r, id, type)) tr_skip(r, type, depth + 1);
}
DEVR void tr_skip(TR& r, int type, int depth) {
    if (depth > 16) { r.bad = 1; return; }
    switch (type) {
    case 1: case 2: return;  // a bool field holds its value in the type
    case 3: tr_byte(r); return;
    case 4: case 5: case 6: tr_varint(r); return;
    case 7: if (r.e - r.p < 8) r.bad = 1; else r.p += 8; return;
    case 8: {
        u64 n = tr_varint(r);
        if (r.bad || n > (u64)(r.e - r.p)) r.bad = 1; else r.p += n;
        return;
    }
    case 9: case 10: {
        u32 h = tr_byte(r);
        u64 n = h >> 4;
        int et = (int)(h & 15);
        if (n == 15) n = tr_varint(r);
        for (u64 i = 0; i < n && !r.bad; i++) {
            if (et == 1 || et == 2) tr_byte(r); else tr_skip(r, et, depth + 1);
        }
        return;
    }
    case 11: {
        u64 n = tr_varint(r);
        if (n == 0 || r.bad) return;
        u32 kv = tr_byte(r);
        for (u64 i = 0; i < n && !r.bad; i++) {
            int kt = (int)(kv >> 4), vt = (int)(kv & 15);
            if (kt == 1 || kt == 2) tr_byte(r); else tr_skip(r, kt, depth + 1);
            if (vt == 1 || vt == 2) tr_byte(r); else tr_skip(r, vt, depth + 1);
        }
        return;
    }
    case 12: tr_skip_struct(r, depth + 1); return;
    default: r.bad = 1;
    }
}

// One PageHeader: the fields pq_walk records (out[0..11] as in the page table; P_CHUNK and P_DATA by the caller).
DEV void parse_page_header(TR& r, i64* out) {
    out[P_TYPE] = -1; out[P_CSIZE] = -1; out[P_USIZE] = -1; out[P_NVALUES] = 0; out[P_ENC] = -1;
    out[P_DEFENC] = -1; out[P_NNULLS] = -1; out[P_DEFLEN] = 0; out[P_REPLEN] = 0; out[P_ISCOMP] = 1;
    int id = 0, type = 0;
    while (tr_field(r, id, type)) {
        if (type == 5 && id >= 1 && id <= 3) {
            i64 v = tr_zigzag(r);
            out[id == 1 ? P_TYPE : id == 2 ? P_USIZE : P_CSIZE] = v;
        } else if (type == 12 && (id == 5 || id == 7 || id == 8)) {
            int id2 = 0, t2 = 0;
            while (tr_field(r, id2, t2)) {
                if (t2 == 5) {
                    i64 v = tr_zigzag(r);
                    if (id2 == 1) out[P_NVALUES] = v;
                    else if (id == 5 && id2 == 2) out[P_ENC] = v;
                    else if (id == 5 && id2 == 3) out[P_DEFENC] = v;
                    else if (id == 7 && id2 == 2) out[P_ENC] = v;
                    else if (id == 8 && id2 == 2) out[P_NNULLS] = v;
                    else if (id == 8 && id2 == 4) out[P_ENC] = v;
                    else if (id == 8 && id2 == 5) out[P_DEFLEN] = v;
                    else if (id == 8 && id2 == 6) out[P_REPLEN] = v;
                } else if (id == 8 && id2 == 7 && (t2 == 1 || t2 == 2)) {
                    out[P_ISCOMP] = t2 == 1;
                } else {
                    tr_skip(r, t2, 1);
                }
            }
        } else {
            tr_skip(r, type, 0);
        }
    }
}

// chunks: [n][4] = start, end (offsets into buf), num_values, first page row (fill only).
#define HEAD_BYTES 96  // a page header without statistics is 20-40 bytes, with short ones 60-80
extern "C" __global__ void pq_walk(const u8* buf, const i64* chunks, i64 n_chunks, i64 fill, i64* counts,
                                   i64* pages, int* error) {
    i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_chunks) return;
    i64 pos = chunks[4 * c], end = chunks[4 * c + 1], want = chunks[4 * c + 2], base = chunks[4 * c + 3];
    i64 seen = 0, k = 0;
    i64 row[PF];
    while (pos < end && seen < want) {
        // the header's first HEAD_BYTES bytes in one round trip (independent loads), parsed from there; a longer
        // header (large statistics) is parsed again from global memory
        u8 head[HEAD_BYTES];
        i64 avail = imin(HEAD_BYTES, end - pos);
#pragma unroll
        for (int j = 0; j < HEAD_BYTES; j++) head[j] = j < avail ? buf[pos + j] : 0;
        TR r = {head, head + avail, 0};
        parse_page_header(r, row);
        i64 used = (i64)(r.p - head);
        if (r.bad && avail == HEAD_BYTES) {
            TR g = {buf + pos, buf + end, 0};
            parse_page_header(g, row);
            r.bad = g.bad;
            used = (i64)(g.p - (buf + pos));
        }
        if (r.bad || row[P_CSIZE] < 0 || row[P_USIZE] < 0 || row[P_NVALUES] < 0) { fail(error, 1); return; }
        i64 data = pos + used;
        if (data + row[P_CSIZE] > end) { fail(error, 1); return; }
        if (fill) {
            row[P_CHUNK] = c;
            row[P_DATA] = data;
            i64* out = pages + (base + k) * PF;
            for (int f = 0; f <= P_ISCOMP; f++) out[f] = row[f];
        }
        if (row[P_TYPE] == 0 || row[P_TYPE] == 3) seen += row[P_NVALUES];
        k++;
        pos = data + row[P_CSIZE];
    }
    if (!fill) counts[c] = k;
}

// ------------------------------------------------------------------ Snappy, one warp per page
// A page's output is written in batches of consecutive short tags (at most SNAPPY_BYTES output bytes), or one long
// literal (copied by the whole warp as words). Within a batch:
//  1. parse: each lane decodes the tag that would start at its byte of a WARP-byte window of the input; a walk
//     from the window's first byte (one broadcast per tag) finds the real tags, their output positions and the
//     batch's end. The lane of each real tag then writes, per output byte, a code in shared memory: the byte's
//     value when it is known (a literal's input byte, or a copy's source byte from before the batch), else the
//     index in the batch of the earlier byte it repeats;
//  2. resolve: pointer jumping (each pending code replaced by the code it points to) until every byte is known:
//     log2 of the longest chain of copies rounds, however the batch's copies overlap;
//  3. write the batch's bytes, lanes side by side.
// A page's dictionary can be a megabyte of short copies; one warp still decodes it, so the per-tag work is small.
#define SNAPPY_BYTES (WARP >= 8 ? 64 * WARP : 512)
#define LONG_LITERAL 128  // <= SNAPPY_BYTES, as a copy (64 bytes at most) is: every short tag fits an empty batch

// Streams whose items (Snappy tags, PLAIN byte arrays) can only be found one after the other are cut into fixed
// windows of STAGED input bytes, and walk_chain hands them to the warps of a block in turn (window i to warp
// i % warps). For each of its windows a warp
//  1. copies the window's bytes (and 8 more, zeros past the input) into shared memory, and stores where the item
//     that would start at each byte ends (`next`; -1: none can start there);
//  2. builds `jump` by JUMP_ROUNDS doubling rounds: where the chain from each byte is after JUMP items, when they
//     all start and end in the window (-1 otherwise);
// in parallel with the other warps, since none of this depends on where the chain enters the window. Then, in
// window order (a turn counter in shared memory), it
//  3. takes the chain's entry point and item count from the previous window; lane 0 follows the chain, JUMP items
//     per dependent shared-memory load (one at a time near the window's end), recording each step's first item (an
//     anchor), and hands the chain on;
//  4. sums its items' weights over the lanes (a prefix sum), takes the weights before the window from the previous
//     window's warp and hands the total on (a second turn counter), and emits the items in order.
// A megabyte dictionary page of short strings holds a hundred thousand values, and its Snappy stream twice as many
// tags: only step 3 is in order, everything else is spread over the lanes and the warps.
#define STAGED 1024
#define JUMP_ROUNDS 3
#define JUMP (1 << JUMP_ROUNDS)
struct Staged {
    u8 bytes[STAGED + 8];
    int next[STAGED];
    short jump[2][STAGED];  // doubling rounds alternate between the two; positions fit a short
    short anchor[STAGED];   // p: JUMP items from byte p; -1 - p: one item at byte p
};

DEV Staged& staged_window() {
    __shared__ Staged s_window[WPB];  // 4 x 11 KB
    return s_window[threadIdx.x / WARP];
}

#ifndef RT_HOST
DEV void block_sync() { __syncthreads(); }
#else
DEV void block_sync() { warp_sync(); }  // a host block is one warp
#endif

// Steps 1 and 2 for the window src[at, at + STAGED) of an input of n bytes; size_at(bytes, x): the size of the
// item that would start at input position x (its bytes from there: `bytes`), 0 when none can.
template <class SizeAt> DEV void stage_window(Staged& s, const u8* src, i64 n, i64 at, SizeAt size_at) {
    int lane = lane_id();
    // Each phase loads everything it needs for the lane's bytes before it stores anything: a store between two
    // loads keeps the compiler from overlapping them, and the latency is what a warp's window costs.
    const int per_lane = (STAGED + 8 + WARP - 1) / WARP;
    u8 staged[per_lane];
#pragma unroll
    for (int j = 0; j < per_lane; j++) {
        i64 i = lane + (i64)j * WARP;
        staged[j] = (i < STAGED + 8 && at + i < n) ? src[at + i] : 0;
    }
#pragma unroll
    for (int j = 0; j < per_lane; j++) {
        int i = lane + j * WARP;
        if (i < STAGED + 8) s.bytes[i] = staged[j];
    }
    warp_sync();
    const int positions = STAGED / WARP;  // this lane's window bytes: lane, lane + WARP, ...
    short jump[positions];
    {
        int size[positions];
#pragma unroll
        for (int j = 0; j < positions; j++) {
            int p = lane + j * WARP;
            size[j] = at + p < n ? (int)size_at(s.bytes + p, at + p) : 0;
        }
#pragma unroll
        for (int j = 0; j < positions; j++) {
            int p = lane + j * WARP, a = size[j];
            s.next[p] = a > 0 ? p + a : -1;
            jump[j] = (short)(a > 0 && p + a < STAGED ? p + a : -1);
            s.jump[0][p] = jump[j];
        }
    }
    warp_sync();
    for (int r = 1; r <= JUMP_ROUNDS; r++) {  // jump[p] <- jump[jump[p]]: 2^r items
        const short* from = s.jump[(r - 1) & 1];
        short* to = s.jump[r & 1];
#pragma unroll
        for (int j = 0; j < positions; j++) jump[j] = jump[j] >= 0 ? from[jump[j]] : (short)-1;
#pragma unroll
        for (int j = 0; j < positions; j++) to[lane + j * WARP] = jump[j];
        warp_sync();
    }
}

struct Walked {
    i64 step;     // the window byte where the chain's next item starts (may be past the window)
    int anchors;  // steps of lane 0, in `anchor`
    i64 items;    // items found
};

// Step 3's walk (lane 0), from window byte `entry`, before byte `limit` and for at most `items` items; the result
// is the same in every lane. `bad`: the chain met a byte where no item can start.
DEV Walked walk_window(Staged& s, i64 entry, i64 limit, i64 items, int& bad) {
    Walked w = {entry, 0, 0};
    int wrong = 0;
    if (lane_id() == 0) {
        const short* jumps = s.jump[JUMP_ROUNDS & 1];
        i64 pos = entry, count = 0;
        int m = 0;
        while (pos < limit && count < items) {
            int j = jumps[pos];
            if (j >= 0 && count + JUMP <= items) {
                s.anchor[m++] = (short)pos;
                count += JUMP;
                pos = j;
                continue;
            }
            int e = s.next[pos];
            if (e < 0) { wrong = 1; break; }
            s.anchor[m++] = (short)(-1 - pos);
            count++;
            pos = e;
        }
        w.step = pos;
        w.anchors = m;
        w.items = count;
    }
    w.step = warp_bcast(w.step, 0);
    w.anchors = (int)warp_bcast(w.anchors, 0);
    w.items = warp_bcast(w.items, 0);
    if (warp_bcast(wrong, 0)) bad = 1;
    warp_sync();  // the anchors are visible to every lane
    return w;
}

// f(k) for each item start k (window byte) of this lane's share of the anchors (consecutive ones), in order.
template <class F> DEV void for_each_item(const Staged& s, const Walked& w, F f) {
    int per = (w.anchors + WARP - 1) / WARP, lo = lane_id() * per, hi = (int)imin(lo + per, w.anchors);
    for (int a = lo; a < hi; a++) {
        int p = s.anchor[a];
        if (p < 0) { f(-1 - p); continue; }
        int item[JUMP];  // the chain first, then the work: f's stores would stall the chain's loads
        for (int i = 0; i < JUMP; i++) { item[i] = p; p = i + 1 < JUMP ? s.next[p] : p; }
        for (int i = 0; i < JUMP; i++) f(item[i]);
    }
}

// The chain's state between windows, in shared memory. Two hand-offs, so that only the walk is in window order:
// `turn` is the window whose walk may run (after it: pos, items), `out_turn` the window whose weights may be added
// to `out` (their sum over the window is taken in parallel with the next windows' walks).
struct Chain {
    i64 pos;    // input position where the next item starts
    i64 items;  // items so far
    i64 out;    // weights so far (item indices, or output bytes)
    int turn;
    int out_turn;
    int bad;
    int varying;  // walk_byte_arrays: the values are not all of one length
};

DEV void chain_start(volatile Chain& c, i64 pos) {
    c.pos = pos; c.items = 0; c.out = 0; c.turn = 0; c.out_turn = 0; c.bad = 0; c.varying = 0;
}

// Lane 0 waits until `turn` reaches window i (another warp advances it; a host block is one warp, never waiting).
DEV void wait_turn(volatile int& turn, i64 i) {
    if (lane_id() == 0) {
        while (turn < i) {}
        __threadfence_block();
    }
}

// Lane 0 hands `turn` on to window i + 1, after everything this warp wrote to the chain before it.
DEV void pass_turn(volatile int& turn, i64 i) {
    if (lane_id() == 0) {
        __threadfence_block();
        turn = (int)(i + 1);
    }
}

// Walks the items of src[0, n) from the chain's position, at most `items` of them, with `warps` warps (this one
// is number `rank`) sharing `c` (started by chain_start and a barrier of those warps). weight(k, x) is item k's
// (window byte k, input position x) weight; emit(k, x, before) gets each item in order with the weights of all
// items before it. When every warp has returned (a barrier), `c` holds the chain's end, items and weight total.
template <class SizeAt, class Weight, class Emit>
DEV void walk_chain(const u8* src, i64 n, i64 items, volatile Chain& c, int warps, int rank, SizeAt size_at,
                    Weight weight, Emit emit) {
    Staged& s = staged_window();
    int lane = lane_id();
    i64 windows = (n + STAGED - 1) / STAGED;
    for (i64 i = rank; i < windows; i += warps) {
        i64 at = i * STAGED;
        // the window's tables, unless the chain is known to have passed it (a long literal) or ended
        int skip = 0;
        if (lane == 0) skip = c.turn == i && (c.bad || c.pos >= at + STAGED || c.pos >= n || c.items >= items);
        if (!warp_bcast(skip, 0)) stage_window(s, src, n, at, size_at);
        wait_turn(c.turn, i);
        i64 pos = 0, done = 0;
        int bad = 0;
        if (lane == 0) { pos = c.pos; done = c.items; bad = c.bad; }
        pos = warp_bcast(pos, 0);
        done = warp_bcast(done, 0);
        bad = (int)warp_bcast(bad, 0);
        Walked w = {0, 0, 0};
        int walks = !bad && pos < at + STAGED && pos < n && done < items;
        if (walks) {
            w = walk_window(s, pos - at, imin(STAGED, n - at), items - done, bad);
            if (lane == 0) {
                c.pos = at + w.step;
                c.items = done + w.items;
                if (bad) c.bad = 1;
            }
        }
        pass_turn(c.turn, i);
        i64 mine = 0, total = 0;
        if (walks) for_each_item(s, w, [&](int k) { mine += weight(k, at + k); });
        i64 before = warp_exclusive_sum(mine, total);
        wait_turn(c.out_turn, i);
        i64 out = 0;
        if (lane == 0) {
            out = c.out;
            c.out = out + total;
        }
        pass_turn(c.out_turn, i);
        before += warp_bcast(out, 0);
        if (walks) {
            for_each_item(s, w, [&](int k) {
                i64 x = at + k;
                emit(k, x, before);
                before += weight(k, x);
            });
        }
        warp_sync();  // the window's bytes are read before the next window is staged
    }
}

// The Snappy tag whose bytes h holds, at input position x (x < n; h has the 5 bytes from x where the input does):
// kind (0 literal, else a copy), output length, source (a literal's input position,
// a copy's offset back), size in the input (with a literal's bytes); ok = 0 when it runs past the input.
DEV void snappy_tag(const u8* h, i64 x, i64 n, int& kind, i64& len, i64& from, i64& size, int& ok) {
    u32 tag = h[0];
    kind = (int)(tag & 3);
    if (kind == 0) {
        len = (tag >> 2) + 1;
        i64 head = 1;
        ok = 1;
        if (len > 60) {
            int nb = (int)len - 60;
            if (x + 1 + nb > n) ok = 0;
            len = 0;
            for (int j = 0; ok && j < nb; j++) len |= (i64)h[1 + j] << (8 * j);
            len += 1;
            head += nb;
        }
        from = x + head;
        size = head + len;
        if (from + len > n) ok = 0;
    } else if (kind == 1) {
        ok = x + 2 <= n;
        len = 4 + ((tag >> 2) & 7);
        from = ok ? (((i64)(tag >> 5) << 8) | h[1]) : 0;
        size = 2;
    } else if (kind == 2) {
        ok = x + 3 <= n;
        len = (tag >> 2) + 1;
        from = ok ? ((i64)h[1] | ((i64)h[2] << 8)) : 0;
        size = 3;
    } else {
        ok = x + 5 <= n;
        len = (tag >> 2) + 1;
        from = ok ? (i64)load_u32(h + 1) : 0;
        size = 5;
    }
}

// The output length of the Snappy tag whose bytes h holds (at least 5 readable), without branching on its loads:
// the walks evaluate it at every byte of a window.
DEV i64 snappy_tag_length(const u8* h) {
    u32 t = h[0], v = (u32)h[1] | ((u32)h[2] << 8) | ((u32)h[3] << 16) | ((u32)h[4] << 24);
    u32 code = t >> 2;
    if ((t & 3) == 1) return 4 + (code & 7);
    if ((t & 3) != 0 || code < 60) return (i64)code + 1;
    int nb = (int)code - 59;  // a long literal: its length - 1 in the next nb bytes
    return (i64)(nb == 4 ? v : v & ((1u << (8 * nb)) - 1)) + 1;
}

// The input size of the Snappy tag at input position x (h: its bytes, at least 5 readable), 0 when it runs past the
// input's n bytes: snappy_tag's size and ok.
DEV i64 snappy_tag_size(const u8* h, i64 x, i64 n) {
    u32 t = h[0], code = t >> 2;
    i64 size;
    if ((t & 3) == 0) size = code < 60 ? 1 + (i64)code + 1 : 1 + ((i64)code - 59) + snappy_tag_length(h);
    else size = (t & 3) == 1 ? 2 : (t & 3) == 2 ? 3 : 5;
    return x + size <= n ? size : 0;
}

DEV void snappy_warp(const u8* src, i64 n, u8* dst, i64 expect, int header, int* error) {
    __shared__ int s_code[WPB][SNAPPY_BYTES];  // >= 0: index of the byte it repeats; < 0: -1 - the byte's value
    int* code = s_code[threadIdx.x / WARP];
    int lane = lane_id();
    if (n == 0) { if (expect != 0 && lane == 0) fail(error, 2); return; }
    i64 ip = 0, op = 0;  // the same in every lane
    int bad = 0;
    if (lane == 0 && header) {
        u64 total = read_uleb(src, n, ip, bad);
        if ((i64)total != expect) bad = 1;
    }
    ip = warp_bcast(ip, 0);
    if (warp_bcast(bad, 0)) { if (lane == 0) fail(error, 2); return; }
    while (ip < n) {
        i64 start = op, long_from = -1, long_len = 0;
        int done = 0;
        while (!done && ip < n) {  // 1. one window of the input per round
            i64 x = ip + lane, len = 0, from = 0, size = 1;
            int kind = 0, ok = 0;
            if (x < n) snappy_tag(src + x, x, n, kind, len, from, size, ok);
            i64 mine = -1;  // this lane's tag's output position, when its tag is a real one of the batch
            i64 pos = 0;
            while (pos < WARP && ip < n) {
                int p = (int)pos;
                int t_ok = (int)warp_bcast(ok, p), t_kind = (int)warp_bcast(kind, p);
                i64 t_len = warp_bcast(len, p), t_size = warp_bcast(size, p);
                if (!t_ok || op + t_len > expect) { bad = 1; done = 1; break; }
                if (t_kind == 0 && t_len >= LONG_LITERAL) {  // a batch of its own, or the end of this one
                    if (op == start) {
                        long_from = warp_bcast(from, p);
                        long_len = t_len;
                        op += t_len;
                        ip += t_size;
                    }
                    done = 1;
                    break;
                }
                if (op - start + t_len > SNAPPY_BYTES) { done = 1; break; }
                if (lane == p) mine = op;
                op += t_len;
                ip += t_size;
                pos += t_size;
            }
            int wrong = 0;
            if (mine >= 0) {
                i64 at = mine - start;
                if (kind == 0) {
                    for (i64 i = 0; i < len; i++) code[at + i] = -1 - (int)src[from + i];
                } else if (from <= 0 || from > mine) {
                    wrong = 1;
                } else {
                    for (i64 i = 0; i < len; i++) {
                        i64 q = mine + i - from;  // forward: a copy may repeat its own first bytes
                        code[at + i] = q >= start ? (int)(q - start) : -1 - (int)dst[q];
                    }
                }
            }
            if (warp_sum(wrong)) bad = 1;  // also the barrier after the codes' writes
            if (bad) { if (lane == 0) fail(error, 2); return; }
        }
        if (long_from >= 0) {
            warp_copy(src + long_from, dst + start, long_len);
            warp_sync();
            continue;
        }
        i64 total = op - start;
        while (true) {  // 2. resolve
            int pending = 0;
            for (i64 j = lane; j < total; j += WARP) {
                int c = code[j];
                if (c >= 0) {
                    int c2 = code[c];  // another lane may be updating code[c]: either value points the same way
                    code[j] = c2;
                    pending |= c2 >= 0;
                }
            }
            if (!warp_sum(pending)) break;
        }
        for (i64 j = lane; j < total; j += WARP) dst[start + j] = (u8)(-1 - code[j]);  // 3. write
        warp_sync();  // the batch's bytes are in place for the next batch's copies
    }
    if (lane == 0 && op != expect) fail(error, 2);
}

// Snappy's compressor works in blocks of SNAPPY_BLOCK input bytes: no copy reaches back before its block's start,
// and a tag starts at every block boundary of the output. pq_snappy_index (one block per large page) finds, for each
// block, the input position of the tag that starts it, so that pq_decompress gives each block its own warp. The
// walk checks what it relies on: a page where a copy crosses a block start or a tag spans a block boundary (another
// compressor) gets index -1 at its first block and is decoded by one warp. walk_chain finds the tags from the size
// of the tag that would start at each byte (snappy_tag_size), a prefix sum of their lengths gives their output
// positions, and each real tag is decoded whole (snappy_tag) for the checks.
#define SNAPPY_BLOCK 65536

DEV void snappy_index_block(const u8* src, i64 n, i64 expect, i64* index, int* error) {
    __shared__ Chain s_chain;
    __shared__ int s_unsplit;
    volatile Chain& c = s_chain;
    int lane = lane_id(), rank = threadIdx.x / WARP, warps = blockDim.x / WARP;
    if (threadIdx.x == 0) {
        i64 ip = 0;
        int bad = 0;
        u64 total = read_uleb(src, n, ip, bad);
        chain_start(c, ip);
        c.bad = bad || (i64)total != expect;
        s_unsplit = 0;
        index[0] = ip;
    }
    block_sync();
    auto tag_size = [&](const u8* h, i64 x) -> i64 { return snappy_tag_size(h, x, n); };
    Staged& s = staged_window();
    auto tag_length = [&](int k, i64 x) -> i64 { return snappy_tag_length(s.bytes + k); };
    int unsplit = 0, bad = 0;
    auto check = [&](int k, i64 x, i64 at) {  // the tag at input x writes output [at, at + len)
        int kind, ok;
        i64 len, from, size;
        snappy_tag(s.bytes + k, x, n, kind, len, from, size, ok);
        if (at + len > expect || (kind != 0 && (from <= 0 || from > at))) {
            bad = 1;
        } else {
            if (kind != 0 && at - from < (at & ~(i64)(SNAPPY_BLOCK - 1))) unsplit = 1;
            if (at / SNAPPY_BLOCK != (at + len - 1) / SNAPPY_BLOCK) unsplit = 1;
            if (at % SNAPPY_BLOCK == 0) index[at / SNAPPY_BLOCK] = x;
        }
    };
    walk_chain(src, n, n, c, warps, rank, tag_size, tag_length, check);
    if (warp_any(unsplit) && lane == 0) s_unsplit = 1;
    if (warp_any(bad) && lane == 0) c.bad = 1;
    block_sync();
    if (threadIdx.x == 0) {
        if (c.bad || c.pos != n || c.out != expect) fail(error, 2);
        else if (s_unsplit) index[0] = -1;
    }
}

// A page's bytes before its (maybe compressed) values: a data page v2's levels, never compressed; -1 when they do
// not fit the page.
DEV i64 page_prefix(const i64* P) {
    i64 pre = P[P_TYPE] == 3 ? P[P_DEFLEN] + P[P_REPLEN] : 0;
    return (pre < 0 || pre > P[P_CSIZE] || pre > P[P_USIZE]) ? -1 : pre;
}

// One block per page (all its threads return together: the block synchronizes).
extern "C" __global__ void pq_snappy_index(const u8* in, const i64* pages, const i64* list, i64 n, i64* index,
                                           const i64* base, int* error) {
    i64 page = list[blockIdx.x];
    const i64* P = pages + page * PF;
    i64 pre = page_prefix(P);
    if (pre < 0) { if (threadIdx.x == 0) fail(error, 2); return; }
    snappy_index_block(in + P[P_DATA] + pre, P[P_CSIZE] - pre, P[P_USIZE] - pre, index + base[page], error);
}

// One warp per work item: a page (block -1), or one Snappy block of a page that pq_snappy_index split.
extern "C" __global__ void pq_decompress(const u8* in, const i64* pages, const i64* items, const i64* blocks, i64 n,
                                         u8* out, const i64* index, const i64* base, int* error) {
    i64 item = warp_item();
    if (item >= n) return;
    i64 page = items[item], block = blocks[item];
    const i64* P = pages + page * PF;
    i64 type = P[P_TYPE];
    const u8* src = in + P[P_DATA];
    u8* dst = out + P[P_OUT];
    i64 cs = P[P_CSIZE], us = P[P_USIZE];
    i64 pre = page_prefix(P);
    if (pre < 0) { if (lane_id() == 0) fail(error, 2); return; }
    const i64* starts = block >= 0 ? index + base[page] : 0;
    if (block > 0 && starts[0] < 0) return;  // not split after all: block 0 decodes the whole page
    if (block <= 0) warp_copy(src, dst, pre);
    int compressed = P[P_CODEC] == 1 && !(type == 3 && P[P_ISCOMP] == 0);
    if (!compressed) {
        if (cs != us) { if (lane_id() == 0) fail(error, 2); }
        else warp_copy(src + pre, dst + pre, cs - pre);
    } else if (block < 0 || starts[0] < 0) {
        snappy_warp(src + pre, cs - pre, dst + pre, us - pre, 1, error);
    } else {
        i64 blocks_in_page = (us - pre + SNAPPY_BLOCK - 1) / SNAPPY_BLOCK;
        i64 from = starts[block], to = block + 1 < blocks_in_page ? starts[block + 1] : cs - pre;
        i64 at = block * SNAPPY_BLOCK;
        if (from < 0 || to < from || to > cs - pre) { if (lane_id() == 0) fail(error, 2); return; }
        snappy_warp(src + pre + from, to - from, dst + pre + at, imin(SNAPPY_BLOCK, us - pre - at), 0, error);
    }
}

// ------------------------------------------------------------------ RLE / bit-packed hybrid, one warp
DEV u32 unpack_bits(const u8* p, i64 i, int bw) {
    if (bw == 0) return 0;
    i64 bit = i * bw;
    const u8* q = p + (bit >> 3);
    int sh = (int)(bit & 7);
    int nb = (sh + bw + 7) >> 3;
    u64 x = 0;
    for (int j = 0; j < nb; j++) x |= (u64)q[j] << (8 * j);
    return (u32)((x >> sh) & ((bw == 32) ? 0xffffffffull : ((1ull << bw) - 1)));
}

// Decodes `count` values of bit width bw from [p, p + len), calling sink(i, value) from the lanes in parallel.
// Returns nonzero (the same in every lane) when the stream is malformed.
template <class F> DEV int hybrid_warp(const u8* p, i64 len, int bw, i64 count, F sink) {
    int lane = lane_id();
    if (bw < 0 || bw > 32) return 1;
    int vbytes = (bw + 7) / 8;
    i64 q = 0, done = 0;
    while (done < count) {
        i64 packed = 0, n = 0, value = 0, start = 0;
        int bad = 0;
        if (lane == 0) {
            u64 h = read_uleb(p, len, q, bad);
            if (!bad && (h & 1)) {
                packed = 1;
                n = (i64)(h >> 1) * 8;
                i64 used = imin(n, count - done);
                if ((used * bw + 7) / 8 > len - q) bad = 1;
                start = q;
                q += imin((i64)(h >> 1) * bw, len - q);
            } else if (!bad) {
                n = (i64)(h >> 1);
                if (q + vbytes > len) bad = 1;
                else {
                    for (int j = 0; j < vbytes; j++) value |= (i64)p[q + j] << (8 * j);
                    q += vbytes;
                }
            }
        }
        if (warp_bcast(bad, 0)) return 1;
        packed = warp_bcast(packed, 0);
        n = warp_bcast(n, 0);
        value = warp_bcast(value, 0);
        start = warp_bcast(start, 0);
        i64 m = imin(n, count - done);
        for (i64 i = lane; i < m; i += WARP) sink(done + i, packed ? unpack_bits(p + start, i, bw) : (u32)value);
        done += m;
    }
    return 0;
}

// Definition levels (max level 0 or 1) -> row validity; values per page; where the page's values start.
extern "C" __global__ void pq_levels(const u8* dec, const i64* pages, const i64* list, i64 n, u8* mask,
                                     i64* valid, i64* vstart, int* error) {
    i64 item = warp_item();
    if (item >= n) return;
    i64 pg = list[item];
    const i64* P = pages + pg * PF;
    const u8* base = dec + P[P_OUT];
    i64 us = P[P_USIZE], nv = P[P_NVALUES], type = P[P_TYPE];
    int lane = lane_id();
    if (P[P_MAXDEF] == 0) {
        if (lane == 0) { valid[pg] = nv; vstart[pg] = type == 3 ? P[P_REPLEN] + P[P_DEFLEN] : 0; }
        return;
    }
    const u8* lv;
    i64 lvlen, vs;
    if (type == 3) {
        lv = base + P[P_REPLEN];
        lvlen = P[P_DEFLEN];
        vs = P[P_REPLEN] + P[P_DEFLEN];
    } else {
        if (P[P_DEFENC] != 3 || us < 4) { if (lane == 0) fail(error, 3); return; }
        lvlen = (i64)load_u32(base);
        lv = base + 4;
        vs = 4 + lvlen;
    }
    if (vs > us) { if (lane == 0) fail(error, 3); return; }
    u8* m = mask + P[P_MASK];
    i64 count = 0;
    int bad = hybrid_warp(lv, lvlen, 1, nv, [&](i64 i, u32 v) { m[i] = (u8)(v == 1); count += v == 1; });
    count = warp_sum(count);
    if (lane == 0) {
        if (bad || (type == 3 && P[P_NNULLS] >= 0 && P[P_NNULLS] != nv - count)) fail(error, 3);
        valid[pg] = count;
        vstart[pg] = vs;
    }
}

// PLAIN BYTE_ARRAY values: (position in dec, length) of `count` values from [p, end), by `warps` warps sharing
// chain `c` (this one is number `rank`; all the block's warps when there are several). Each value is a 4-byte
// length and its bytes, so where one starts depends on all before it: walk_chain finds them (a megabyte
// dictionary page holds a hundred thousand). Values all of one length (ids, codes, hashes) are checked for and
// placed in parallel first: the page is then count values of 4 + L bytes, each length field saying L. Once the
// warps have passed a barrier, c.bad or c.items != count says the values run past the end.
DEV void walk_byte_arrays(const u8* dec, const u8* p, const u8* end, i64 count, i64* pos, int* len,
                          volatile Chain& c, int warps, int rank) {
    Staged& s = staged_window();
    i64 n = end - p;
    i64 width = n >= 4 && count > 0 ? 4 + (i64)load_u32(p) : 0;
    if (width > 0 && n % width == 0 && n / width == count) {  // (a product could wrap for a corrupt count)
        int lane = lane_id(), varying = 0;
        for (i64 k = (i64)rank * WARP + lane; k < count; k += (i64)warps * WARP) {
            varying |= (i64)load_u32(p + k * width) != width - 4;
        }
        if (warp_any(varying) && lane == 0) c.varying = 1;
        if (warps > 1) block_sync(); else warp_sync();
        if (!c.varying) {
            for (i64 k = (i64)rank * WARP + lane; k < count; k += (i64)warps * WARP) {
                pos[k] = (i64)(p + k * width + 4 - dec);
                len[k] = (int)(width - 4);
            }
            if (rank == 0 && lane == 0) { c.items = count; c.pos = n; }
            return;
        }
    }
    auto value_size = [&](const u8* h, i64 x) -> i64 {
        if (x + 4 > n) return 0;
        i64 length = (i64)load_u32(h);
        return length <= n - x - 4 ? 4 + length : 0;
    };
    auto one = [&](int k, i64 x) -> i64 { return 1; };
    auto emit = [&](int k, i64 x, i64 i) {
        pos[i] = (i64)(p + x + 4 - dec);
        len[i] = (int)load_u32(s.bytes + k);
    };
    walk_chain(p, n, count, c, warps, rank, value_size, one, emit);
}

// Dictionary pages of string columns -> entries (position, length) at the page's P_DICTBASE; one block per page.
// The entries must fill the page exactly: the host sizes the dictionaries' bytes from the pages' sizes.
extern "C" __global__ void pq_byte_arrays(const u8* dec, const i64* pages, const i64* list, i64 n, i64* dpos,
                                          int* dlen, int* error) {
    __shared__ Chain s_chain;
    volatile Chain& c = s_chain;
    const i64* P = pages + list[blockIdx.x] * PF;
    const u8* base = dec + P[P_OUT];
    i64 b = P[P_DICTBASE];
    if (threadIdx.x == 0) chain_start(c, 0);
    block_sync();
    walk_byte_arrays(dec, base, base + P[P_USIZE], P[P_NVALUES], dpos + b, dlen + b, c, blockDim.x / WARP,
                     threadIdx.x / WARP);  // fmt: skip
    block_sync();
    if (threadIdx.x == 0 && (c.bad || c.items != P[P_NVALUES] || c.pos != P[P_USIZE])) fail(error, 4);
}

extern "C" __global__ void pq_values(const u8* dec, const i64* pages, const i64* list, i64 n, const i64* cols,
                                     const i64* valid, const i64* vstart, const i64* voff, const i64* dpos,
                                     const int* dlen, const int* dmap, int* error) {
    i64 item = warp_item();
    if (item >= n) return;
    i64 pg = list[item];
    const i64* P = pages + pg * PF;
    const i64* C = cols + P[P_COL] * CF;
    int lane = lane_id();
    i64 kind = C[C_KIND], width = C[C_WIDTH], count = valid[pg], off = voff[pg], enc = P[P_ENC];
    const u8* data = dec + P[P_OUT] + vstart[pg];
    const u8* end = dec + P[P_OUT] + P[P_USIZE];
    i64 avail = end - data;
    if (count == 0) return;
    if (enc == 0) {  // PLAIN
        if (kind == KIND_FIXED) {
            if (count * width > avail) { if (lane == 0) fail(error, 5); return; }
            warp_copy(data, (u8*)(u64)C[C_OUT] + off * width, count * width);
        } else if (kind == KIND_BOOL) {
            if ((count + 7) / 8 > avail) { if (lane == 0) fail(error, 5); return; }
            u8* out = (u8*)(u64)C[C_OUT] + off;
            for (i64 i = lane; i < count; i += WARP) out[i] = (data[i >> 3] >> (i & 7)) & 1;
        } else if (kind == KIND_STRING) {
            __shared__ Chain s_chains[WPB];
            volatile Chain& c = s_chains[threadIdx.x / WARP];
            if (lane == 0) chain_start(c, 0);
            warp_sync();
            walk_byte_arrays(dec, data, end, count, (i64*)(u64)C[C_POS] + off, (int*)(u64)C[C_LEN] + off, c, 1, 0);
            if (lane == 0 && (c.bad || c.items != count)) fail(error, 5);
        } else {
            if (lane == 0) fail(error, 5);
        }
        return;
    }
    if (enc == 3 && kind == KIND_BOOL) {  // RLE booleans: 4-byte length, then the hybrid stream
        if (avail < 4) { if (lane == 0) fail(error, 5); return; }
        i64 l = (i64)load_u32(data);
        if (l > avail - 4) { if (lane == 0) fail(error, 5); return; }
        u8* out = (u8*)(u64)C[C_OUT] + off;
        if (hybrid_warp(data + 4, l, 1, count, [&](i64 i, u32 v) { out[i] = (u8)v; })) {
            if (lane == 0) fail(error, 5);
        }
        return;
    }
    if ((enc != 2 && enc != 8) || kind == KIND_BOOL || P[P_DICT] < 0 || avail < 1) {
        if (lane == 0) fail(error, 5);
        return;
    }
    const i64* D = pages + P[P_DICT] * PF;
    u32 dn = (u32)D[P_NVALUES];
    const u8* dict = dec + D[P_OUT];
    i64 dbase = P[P_DICTBASE];
    int bw = data[0];
    int oob = 0;
    int bad;
    if (kind == KIND_FIXED && width == 8) {
        u64* out = (u64*)(u64)C[C_OUT] + off;
        bad = hybrid_warp(data + 1, avail - 1, bw, count, [&](i64 i, u32 k) {
            if (k < dn) out[i] = ((const u64*)dict)[k]; else oob = 1; });
    } else if (kind == KIND_FIXED) {
        u32* out = (u32*)(u64)C[C_OUT] + off;
        bad = hybrid_warp(data + 1, avail - 1, bw, count, [&](i64 i, u32 k) {
            if (k < dn) out[i] = ((const u32*)dict)[k]; else oob = 1; });
    } else if (kind == KIND_STRING) {
        i64* pos = (i64*)(u64)C[C_POS] + off;
        int* len = (int*)(u64)C[C_LEN] + off;
        bad = hybrid_warp(data + 1, avail - 1, bw, count, [&](i64 i, u32 k) {
            if (k < dn) { pos[i] = dpos[dbase + k]; len[i] = dlen[dbase + k]; } else oob = 1; });
    } else {
        int* codes = (int*)(u64)C[C_OUT] + off;
        bad = hybrid_warp(data + 1, avail - 1, bw, count, [&](i64 i, u32 k) {
            if (k < dn) codes[i] = dmap[dbase + k]; else oob = 1; });
    }
    if (bad || oob) fail(error, 6);
}

// Thread per string: its bytes from dec + pos[i] to chars + offsets[i].
extern "C" __global__ void pq_gather_strings(const u8* dec, const i64* pos, const i64* offsets, i64 n, u8* chars) {
    i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    i64 s = offsets[i], l = offsets[i + 1] - s;
    const u8* from = dec + pos[i];
    for (i64 j = 0; j < l; j++) chars[s + j] = from[j];
}
"""

# What the host build puts before SOURCE (g++ -DRT_HOST -DWARP=<1|4>): CUDA's built-in names as C++, one OS
# thread per lane when WARP > 1 (blocks run one after another, so ``__shared__`` can be a plain ``static``).
HOST_PRELUDE = r"""
#include <cstdint>
#include <atomic>
#include <thread>
#include <mutex>
#include <condition_variable>
#ifndef WARP
#define WARP 1
#endif
#define WPB 1
#define __global__
#define __shared__ static
#define DEV static inline
#define DEVR static
#define __threadfence_block() std::atomic_thread_fence(std::memory_order_seq_cst)
struct rt_dim3 { unsigned x; };
static thread_local rt_dim3 threadIdx;
static rt_dim3 blockIdx, blockDim, gridDim;

struct rt_barrier {  // all WARP lanes of the (one) warp of a block
    std::mutex m; std::condition_variable cv; int waiting = 0; long generation = 0;
    void wait() {
        std::unique_lock<std::mutex> lock(m);
        long g = generation;
        if (++waiting == WARP) { waiting = 0; generation++; cv.notify_all(); }
        else cv.wait(lock, [&] { return generation != g; });
    }
};
static rt_barrier rt_warp_barrier;
static long long rt_slots[WARP];
static inline void warp_sync() { if (WARP > 1) rt_warp_barrier.wait(); }
static inline long long warp_bcast(long long v, int src) {
    if (WARP == 1) return v;
    rt_slots[threadIdx.x % WARP] = v;
    rt_warp_barrier.wait();
    long long r = rt_slots[src];
    rt_warp_barrier.wait();
    return r;
}
template <class K> static void rt_launch(long long grid, long long block, K kernel) {
    gridDim.x = (unsigned)grid;
    blockDim.x = (unsigned)block;
    for (long long b = 0; b < grid; b++) {
        blockIdx.x = (unsigned)b;
        if (block == 1) { threadIdx.x = 0; kernel(); continue; }
        std::thread lanes[WARP];
        for (int t = 0; t < (int)block; t++) lanes[t] = std::thread([&, t] { threadIdx.x = t; kernel(); });
        for (int t = 0; t < (int)block; t++) lanes[t].join();
    }
}
"""
