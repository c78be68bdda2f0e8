"""CUDA kernels of the device Parquet decoder (:mod:`riptide.io.parquet_device`), as one source.

The source is written so that it also compiles as plain C++ (g++), where the test suite runs it on the CPU:
``RT_HOST`` defined, :data:`HOST_PRELUDE` first. Kernels use only

* ``threadIdx.x`` / ``blockIdx.x`` / ``blockDim.x``, and warp-cooperative helpers whose lanes are ``WARP`` wide
  (32 on the device; the host build picks 1 for speed, or 4 with one OS thread per lane, to exercise the
  cross-lane logic): ``warp_bcast`` (a shuffle from one lane), ``warp_sync`` (``__syncwarp``, also the memory
  fence between the lanes) and ``warp_sum``;
* ``__shared__`` arrays indexed by the warp within the block (``WPB`` warps per block);
* every scalar parameter is ``long long`` and every array a pointer, so a generic host harness can call any
  kernel from a list of 64-bit words.

The kernels (the module docstring of :mod:`riptide.io.parquet_device` describes the data flow):

``pq_walk``            one thread per column chunk: walks the Thrift page headers (compact protocol), counting the
                       pages (``fill=0``) or writing one row of the page table per page (``fill=1``).
``pq_decompress``      one warp per page: Snappy (lane 0 decodes a batch of up to ``WARP`` tags, the lanes copy them,
                       one tag per lane where no tag of the batch reads bytes another one writes), or a plain copy;
                       a data page v2's levels are copied as they are (they are never compressed).
``pq_levels``          one warp per data page: definition levels (RLE / bit-packed hybrid, bit width 1) to the
                       row validity bytes; counts the page's values; finds where its values start.
``pq_byte_arrays``     one warp per page (lane 0 walks): PLAIN ``BYTE_ARRAY`` values (dictionary pages of string
                       columns) to (position, length) pairs.
``pq_values``          one warp per data page: PLAIN values (copied), PLAIN / RLE booleans, dictionary indices
                       (hybrid, bit width from the first byte) gathered from the dictionary page, string values as
                       (position, length) pairs, categorical codes through the dictionary -> category map.
``pq_gather_strings``  one thread per string: copies its bytes to the column's chars at its offset.
"""

from __future__ import annotations

__all__ = ["HOST_PRELUDE", "KERNELS", "PF", "CF", "SOURCE"]

# Page table: one row of PF int64 per page. pq_walk writes fields 0..11, the host the rest.
PF = 20
(P_TYPE, P_CHUNK, P_DATA, P_CSIZE, P_USIZE, P_NVALUES, P_ENC, P_DEFENC, P_NNULLS, P_DEFLEN, P_REPLEN, P_ISCOMP,
 P_CODEC, P_OUT, P_COL, P_MAXDEF, P_MASK, P_DICT, P_DICTBASE, P_COLFIRST) = range(PF)  # fmt: skip

# Column table: one row of CF int64 per decoded column (pointers are device addresses).
CF = 8
C_KIND, C_WIDTH, C_OUT, C_POS, C_LEN, C_MAP = range(6)
KIND_FIXED, KIND_BOOL, KIND_STRING, KIND_CATEGORY = range(4)

KERNELS = ("pq_walk", "pq_decompress", "pq_levels", "pq_byte_arrays", "pq_values", "pq_gather_strings")

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
#define LONG_TAG 64

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

// n bytes from s to d by the lanes of a warp; 4-byte stores where d is aligned.
DEV void warp_copy(const u8* s, u8* d, i64 n) {
    int lane = lane_id();
    if ((((u64)d) & 3) == 0) {
        i64 nw = n >> 2;
        for (i64 j = lane; j < nw; j += WARP) ((u32*)d)[j] = load_u32(s + 4 * j);
        for (i64 j = (nw << 2) + lane; j < n; j += WARP) d[j] = s[j];
    } else {
        for (i64 j = lane; j < n; j += WARP) d[j] = s[j];
    }
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
extern "C" __global__ void pq_walk(const u8* buf, const i64* chunks, i64 n_chunks, i64 fill, i64* counts,
                                   i64* pages, int* error) {
    i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_chunks) return;
    i64 pos = chunks[4 * c], end = chunks[4 * c + 1], want = chunks[4 * c + 2], base = chunks[4 * c + 3];
    i64 seen = 0, k = 0;
    i64 row[PF];
    while (pos < end && seen < want) {
        TR r = {buf + pos, buf + end, 0};
        parse_page_header(r, row);
        if (r.bad || row[P_CSIZE] < 0 || row[P_USIZE] < 0 || row[P_NVALUES] < 0) { fail(error, 1); return; }
        i64 data = (i64)(r.p - buf);
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
DEV void snappy_warp(const u8* src, i64 n, u8* dst, i64 expect, int* error) {
    __shared__ i64 s_dst[WPB][WARP];
    __shared__ i64 s_src[WPB][WARP];
    __shared__ int s_len[WPB][WARP];
    __shared__ int s_copy[WPB][WARP];
    int w = threadIdx.x / WARP, lane = lane_id();
    if (n == 0) { if (expect != 0 && lane == 0) fail(error, 2); return; }
    i64 ip = 0, op = 0;
    int bad = 0;
    if (lane == 0) {
        u64 total = read_uleb(src, n, ip, bad);
        if ((i64)total != expect) bad = 1;
    }
    if (warp_bcast(bad, 0)) { if (lane == 0) fail(error, 2); return; }
    while (true) {
        int nt = 0;
        if (lane == 0) {  // decode up to WARP tags
            while (nt < WARP && ip < n) {
                u32 tag = src[ip++];
                int kind = (int)(tag & 3);
                i64 len, from;
                if (kind == 0) {
                    len = (tag >> 2) + 1;
                    if (len > 60) {
                        int nb = (int)len - 60;
                        if (ip + nb > n) { bad = 1; break; }
                        len = 0;
                        for (int j = 0; j < nb; j++) len |= (i64)src[ip + j] << (8 * j);
                        len += 1;
                        ip += nb;
                    }
                    from = ip;
                    ip += len;
                    if (ip > n) { bad = 1; break; }
                } else if (kind == 1) {
                    if (ip + 1 > n) { bad = 1; break; }
                    len = 4 + ((tag >> 2) & 7);
                    from = ((i64)(tag >> 5) << 8) | src[ip];
                    ip += 1;
                } else if (kind == 2) {
                    if (ip + 2 > n) { bad = 1; break; }
                    len = (tag >> 2) + 1;
                    from = (i64)src[ip] | ((i64)src[ip + 1] << 8);
                    ip += 2;
                } else {
                    if (ip + 4 > n) { bad = 1; break; }
                    len = (tag >> 2) + 1;
                    from = (i64)load_u32(src + ip);
                    ip += 4;
                }
                if ((kind != 0 && (from <= 0 || from > op)) || op + len > expect) { bad = 1; break; }
                s_dst[w][nt] = op;
                s_src[w][nt] = from;  // literal: input position; copy: distance back
                s_len[w][nt] = (int)len;
                s_copy[w][nt] = kind != 0;
                op += len;
                nt++;
            }
        }
        nt = (int)warp_bcast(nt, 0);
        bad = (int)warp_bcast(bad, 0);
        warp_sync();  // the batch in shared memory is visible to every lane
        if (bad) { if (lane == 0) fail(error, 2); return; }
        if (nt == 0) break;
        int t = 0;
        while (t < nt) {
            i64 d = s_dst[w][t];
            int len = s_len[w][t];
            if (len > LONG_TAG) {  // one long tag: all lanes
                if (!s_copy[w][t]) {
                    warp_copy(src + s_src[w][t], dst + d, len);
                } else {
                    i64 off = s_src[w][t];  // byte i repeats the pattern of the off bytes before d
                    for (i64 i = lane; i < len; i += WARP) dst[d + i] = dst[d - off + (i % off)];
                }
                warp_sync();
                t++;
                continue;
            }
            // A group of short tags, one per lane: it ends before a copy that reads bytes the group writes.
            int g = t + 1;
            while (g < nt && s_len[w][g] <= LONG_TAG) {
                if (s_copy[w][g]) {
                    i64 off = s_src[w][g];
                    i64 read_end = s_dst[w][g] - off + imin(s_len[w][g], off);
                    if (read_end > d) break;
                }
                g++;
            }
            if (lane < g - t) {
                int k = t + lane;
                i64 dd = s_dst[w][k];
                int l = s_len[w][k];
                if (!s_copy[w][k]) {
                    const u8* s2 = src + s_src[w][k];
                    for (int i = 0; i < l; i++) dst[dd + i] = s2[i];
                } else {
                    i64 off = s_src[w][k];
                    for (int i = 0; i < l; i++) dst[dd + i] = dst[dd - off + i];  // forward: overlaps repeat
                }
            }
            warp_sync();
            t = g;
        }
    }
    if (lane == 0 && op != expect) fail(error, 2);
}

extern "C" __global__ void pq_decompress(const u8* in, const i64* pages, const i64* list, i64 n, u8* out,
                                         int* error) {
    i64 item = warp_item();
    if (item >= n) return;
    const i64* P = pages + list[item] * PF;
    i64 type = P[P_TYPE];
    const u8* src = in + P[P_DATA];
    u8* dst = out + P[P_OUT];
    i64 cs = P[P_CSIZE], us = P[P_USIZE];
    i64 pre = type == 3 ? P[P_DEFLEN] + P[P_REPLEN] : 0;
    if (pre < 0 || pre > cs || pre > us) { if (lane_id() == 0) fail(error, 2); return; }
    warp_copy(src, dst, pre);
    int compressed = P[P_CODEC] == 1 && !(type == 3 && P[P_ISCOMP] == 0);
    if (compressed) {
        snappy_warp(src + pre, cs - pre, dst + pre, us - pre, error);
    } else if (cs != us) {
        if (lane_id() == 0) fail(error, 2);
    } else {
        warp_copy(src + pre, dst + pre, cs - pre);
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

// PLAIN BYTE_ARRAY values: (position in dec, length) of `count` values from [p, end); lane 0 walks.
DEV int walk_byte_arrays(const u8* dec, const u8* p, const u8* end, i64 count, i64* pos, int* len) {
    if (lane_id() != 0) return 0;
    for (i64 i = 0; i < count; i++) {
        if (end - p < 4) return 1;
        u32 l = load_u32(p);
        if ((i64)l > end - p - 4) return 1;
        pos[i] = (i64)(p + 4 - dec);
        len[i] = (int)l;
        p += 4 + l;
    }
    return 0;
}

// Dictionary pages of string columns -> entries (position, length) at the page's P_DICTBASE.
extern "C" __global__ void pq_byte_arrays(const u8* dec, const i64* pages, const i64* list, i64 n, i64* dpos,
                                          int* dlen, int* error) {
    i64 item = warp_item();
    if (item >= n) return;
    const i64* P = pages + list[item] * PF;
    const u8* base = dec + P[P_OUT];
    i64 b = P[P_DICTBASE];
    if (walk_byte_arrays(dec, base, base + P[P_USIZE], P[P_NVALUES], dpos + b, dlen + b)) fail(error, 4);
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
            if (walk_byte_arrays(dec, data, end, count, (i64*)(u64)C[C_POS] + off, (int*)(u64)C[C_LEN] + off))
                fail(error, 5);
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
