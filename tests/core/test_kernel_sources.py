"""CUDA sources that riptide hands to CuPy compile with nvcc, where nvcc is installed (no GPU needed).

CI has no GPU, so a RawKernel's source is otherwise only compiled on the GPU host; this catches syntax and type
errors earlier. It does not run the kernels: their results are checked against the xp twins on the GPU host."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest

from riptide.core.regex import captures, match

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc (CUDA toolkit) to compile")

SOURCES = {"regex_first": match._FIRST, "regex_scan": match._SCAN, "regex_starts": match._STARTS,
           "regex_captures": captures._CAPTURES}  # fmt: skip
DEFINES = {"regex_captures": ["-DKMAX=8", "-DNREG=4"]}  # compiled per table size


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_kernel_compiles(name):
    source = SOURCES[name]
    assert f'extern "C" __global__ void {name}(' in source  # CuPy looks the kernel up by this unmangled name
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, f"{name}.cu")
        with open(path, "w") as f:
            f.write(source)
        done = subprocess.run(["nvcc", "-ptx", "-arch=sm_90", *DEFINES.get(name, []), "-o", os.path.join(d, "k.ptx"), path],
                              capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
