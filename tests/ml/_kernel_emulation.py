"""Shared harness for running riptide's CUDA sources on the CPU: g++ with one host thread per CUDA thread."""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import tempfile

# A std::barrier for __syncthreads, one per warp for the warp collectives (__syncwarp, __ballot_sync, __any_sync:
# every lane of the warp takes part, as the kernels' full-warp masks require), dynamic shared memory poisoned with
# NaN; blocks run one after another.
EMU_SHIM = r"""
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstddef>
#include <functional>
#include <memory>
#include <thread>
#include <vector>
struct riptide_emu_dim3 { unsigned int x, y, z; };
static thread_local riptide_emu_dim3 threadIdx, blockIdx;
static riptide_emu_dim3 blockDim, gridDim;
static std::barrier<>* riptide_emu_barrier;
static double* riptide_emu_shared;
#define __global__
#define __device__
#define __forceinline__ inline
#define __syncthreads() riptide_emu_barrier->arrive_and_wait()
#define RIPTIDE_DYNAMIC_SHARED(name) double* name = riptide_emu_shared
// A warp: its lanes' barrier and two rows of exchange slots. A collective writes the lane's slot in one row, waits,
// reads the row; the next collective uses the other row, so one barrier per collective is enough (a lane can only
// write a row again after every lane has passed the barrier in between, i.e. has finished reading it).
struct riptide_emu_warp { std::barrier<>* barrier; unsigned lanes; unsigned slot[2][32]; };
static riptide_emu_warp* riptide_emu_warps;
static thread_local unsigned riptide_emu_row;
static inline riptide_emu_warp& riptide_emu_my_warp() { return riptide_emu_warps[threadIdx.x / 32]; }
static inline void __syncwarp(unsigned = 0xFFFFFFFFu) { riptide_emu_my_warp().barrier->arrive_and_wait(); }
static inline unsigned __ballot_sync(unsigned, int predicate) {
    riptide_emu_warp& warp = riptide_emu_my_warp();
    unsigned* row = warp.slot[riptide_emu_row ^= 1u];
    row[threadIdx.x % 32] = predicate != 0;
    warp.barrier->arrive_and_wait();
    unsigned bits = 0;
    for (unsigned lane = 0; lane < warp.lanes; ++lane) bits |= row[lane] << lane;
    return bits;
}
static inline int __any_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }
static inline int __popc(unsigned v) { return __builtin_popcount(v); }
static inline double __dadd_rn(double a, double b) { return a + b; }  // (x86-64 rounds each operation)
static inline double __dmul_rn(double a, double b) { return a * b; }
static void riptide_emu_launch(unsigned grid, unsigned block, size_t shared_bytes, std::function<void()> body) {
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    std::vector<double> shared(shared_bytes / 8 + 1);
    for (unsigned b = 0; b < grid; ++b) {
        std::fill(shared.begin(), shared.end(), NAN);
        riptide_emu_shared = shared.data();
        std::barrier<> barrier(block);
        riptide_emu_barrier = &barrier;
        std::vector<riptide_emu_warp> warps((block + 31) / 32);
        std::vector<std::unique_ptr<std::barrier<>>> warp_barriers;
        for (unsigned w = 0; w < warps.size(); ++w) {
            warps[w].lanes = std::min(32u, block - 32 * w);
            warp_barriers.push_back(std::make_unique<std::barrier<>>(warps[w].lanes));
            warps[w].barrier = warp_barriers.back().get();
        }
        riptide_emu_warps = warps.data();
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < block; ++t)
            threads.emplace_back([=] { threadIdx = {t, 0, 0}; blockIdx = {b, 0, 0}; body(); });
        for (auto& t : threads) t.join();
    }
}
"""


def compile_library(text: str, prefix: str) -> ctypes.CDLL:
    """Compile ``text`` (C++20) to a shared library cached by content hash in the temp directory, and load it."""
    directory = os.path.join(tempfile.gettempdir(), "riptide_kernel_emulation")
    os.makedirs(directory, exist_ok=True)
    library = os.path.join(directory, f"{prefix}_{hashlib.sha1(text.encode()).hexdigest()[:16]}.so")
    if not os.path.exists(library):
        path = library[:-3] + ".cpp"
        with open(path, "w") as f:
            f.write(text)
        partial = f"{library}.{os.getpid()}"
        done = subprocess.run(["g++", "-O1", "-std=c++20", "-pthread", "-shared", "-fPIC", "-w", "-o", partial, path],
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        os.replace(partial, library)
    return ctypes.CDLL(library)


def ctypes_args(args: tuple) -> list:
    """A kernel launch's arguments as the emulated entry point takes them: arrays (C-contiguous) as pointers, NumPy
    int64/int32 as C integers, anything else as a C double."""
    import numpy as np

    converted = []
    for a in args:
        if isinstance(a, np.ndarray):
            assert a.flags.c_contiguous
            converted.append(ctypes.c_void_p(a.ctypes.data))
        elif isinstance(a, np.int64):
            converted.append(ctypes.c_longlong(int(a)))
        elif isinstance(a, np.int32):
            converted.append(ctypes.c_int(int(a)))
        else:
            converted.append(ctypes.c_double(float(a)))
    return converted
