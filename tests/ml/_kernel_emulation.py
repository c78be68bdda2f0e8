"""Shared harness for running riptide's CUDA sources on the CPU: g++ with one host thread per CUDA thread."""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import tempfile

# A std::barrier for __syncthreads, dynamic shared memory poisoned with NaN; blocks run one after another.
EMU_SHIM = r"""
#include <barrier>
#include <cmath>
#include <cstddef>
#include <functional>
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
static void riptide_emu_launch(unsigned grid, unsigned block, size_t shared_bytes, std::function<void()> body) {
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    std::vector<double> shared(shared_bytes / 8 + 1);
    for (unsigned b = 0; b < grid; ++b) {
        std::fill(shared.begin(), shared.end(), NAN);
        riptide_emu_shared = shared.data();
        std::barrier<> barrier(block);
        riptide_emu_barrier = &barrier;
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
