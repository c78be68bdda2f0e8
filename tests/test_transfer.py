"""Tests of riptide._transfer: host<->device copies.

The first block runs anywhere (no CuPy needed). The ``gpu`` block needs CuPy
and a CUDA device and skips cleanly without them; it shrinks the staging
chunks to a few bytes so that tiny arrays already cross many chunk and thread
boundaries.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from riptide import _transfer

# --------------------------------------------------------------------------- CPU-only


def test_imports_without_cupy():
    code = "import sys; sys.modules['cupy'] = None; import riptide._transfer as t; print(sorted(t.H2D_STRATEGIES))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "staged" in out.stdout


def test_strategy_tables():
    assert {"cupy", "staged", "staged_threads", "registered"} <= set(_transfer.H2D_STRATEGIES)
    assert {"cupy", "pinned_result", "staged", "staged_threads", "registered"} <= set(_transfer.D2H_STRATEGIES)
    s = _transfer.get_settings()
    assert s.h2d in _transfer.H2D_STRATEGIES
    assert s.d2h in _transfer.D2H_STRATEGIES
    assert all(callable(f) for f in [*_transfer.H2D_STRATEGIES.values(), *_transfer.D2H_STRATEGIES.values()])


def test_settings_context_restores():
    before = _transfer.get_settings()
    with _transfer.settings(chunk_bytes=64, n_threads=3) as s:
        assert s.chunk_bytes == 64 and s.n_threads == 3
        assert _transfer.get_settings() is s
    assert _transfer.get_settings() == before


@pytest.mark.parametrize(
    "changes",
    [
        {"chunk_bytes": 0},
        {"n_threads": 0},
        {"n_buffers": 1},
        {"small_bytes": -1},
        {"chunk_bytes": 1.5},
        {"h2d": "nope"},
        {"d2h": "nope"},
    ],
)
def test_configure_rejects_bad_values(changes):
    before = _transfer.get_settings()
    with pytest.raises(ValueError):
        _transfer.configure(**changes)
    assert _transfer.get_settings() == before


def test_configure_rejects_unknown_field():
    with pytest.raises(TypeError):
        _transfer.configure(no_such_setting=1)


@pytest.mark.parametrize("n", [0, 1, 7, 64, 1000, 1001])
@pytest.mark.parametrize("step", [1, 3, 64, 5000])
def test_ranges_cover_exactly(n, step):
    pieces = _transfer._ranges(n, step, start=5)
    flat = [i for lo, hi in pieces for i in range(lo, hi)]
    assert flat == list(range(5, 5 + n))
    assert all(0 < hi - lo <= step for lo, hi in pieces)


@pytest.mark.parametrize("n", [0, 1, 7, 1000, 4097])
@pytest.mark.parametrize("parts", [1, 2, 3, 8])
@pytest.mark.parametrize("align", [1, 64])
def test_split_covers_exactly(n, parts, align):
    pieces = _transfer._split(n, parts, align)
    flat = [i for lo, hi in pieces for i in range(lo, hi)]
    assert flat == list(range(n))
    assert len(pieces) <= parts
    assert all(lo % align == 0 for lo, _ in pieces)


# --------------------------------------------------------------------------- GPU


@pytest.fixture(scope="module")
def cp():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
    except Exception as exc:  # no driver
        pytest.skip(f"no usable CUDA driver: {exc}")
    return cupy


@pytest.fixture
def tiny(cp):
    """Staging chunks of 64 bytes, 3 threads, no small-array shortcut: every path gets exercised."""
    with _transfer.settings(chunk_bytes=64, n_threads=3, n_buffers=3, small_bytes=0):
        yield
    _transfer.release_pinned_memory()


DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]  # fmt: skip
SIZES = [0, 1, 2, 7, 8, 9, 63, 1001]
H2D = sorted(_transfer.H2D_STRATEGIES)
D2H = sorted(_transfer.D2H_STRATEGIES)


def random_array(n, dtype, seed=0):
    """Random values covering every bit pattern (NaN payloads too); bools are 0/1."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    raw = rng.integers(0, 256, size=n * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).copy()


def same_bytes(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


@pytest.mark.gpu
@pytest.mark.parametrize("strategy", H2D)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_h2d_round_trip(cp, tiny, strategy, dtype, n):
    host = random_array(n, dtype, seed=n)
    dev = _transfer.H2D_STRATEGIES[strategy](host)
    assert isinstance(dev, cp.ndarray)
    assert same_bytes(cp.asnumpy(dev), host)


@pytest.mark.gpu
@pytest.mark.parametrize("strategy", D2H)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_d2h_round_trip(cp, tiny, strategy, dtype, n):
    host = random_array(n, dtype, seed=n + 1)
    out = _transfer.D2H_STRATEGIES[strategy](cp.asarray(host))
    assert isinstance(out, np.ndarray)
    assert same_bytes(out, host)


@pytest.mark.gpu
@pytest.mark.parametrize("strategy", H2D)
def test_h2d_zero_dim(cp, tiny, strategy):
    host = np.array(3.25)
    dev = _transfer.H2D_STRATEGIES[strategy](host)
    assert dev.shape == () and float(dev) == 3.25


@pytest.mark.gpu
@pytest.mark.parametrize("strategy", D2H)
def test_d2h_zero_dim(cp, tiny, strategy):
    out = _transfer.D2H_STRATEGIES[strategy](cp.asarray(np.int64(-7)))
    assert out.shape == () and out.dtype == np.int64 and int(out) == -7


def non_contiguous_hosts():
    base = random_array(3 * 5 * 41, "float64", seed=11)
    cube = base.reshape(3, 5, 41)
    return {
        "strided_1d": base[::3],
        "reversed_1d": base[::-1],
        "fortran_2d": np.asfortranarray(base.reshape(15, 41)),
        "column_of_c_block": base.reshape(15, 41)[:, 4],
        "sliced_3d": cube[:, 1:4, ::2],
        "transposed_3d": cube.transpose(2, 0, 1),
    }


@pytest.mark.gpu
@pytest.mark.parametrize("strategy", H2D)
@pytest.mark.parametrize("case", sorted(non_contiguous_hosts()))
def test_h2d_non_contiguous(cp, tiny, strategy, case):
    host = non_contiguous_hosts()[case]
    dev = _transfer.H2D_STRATEGIES[strategy](host)
    assert dev.shape == host.shape
    np.testing.assert_array_equal(cp.asnumpy(dev), host)


@pytest.mark.gpu
@pytest.mark.parametrize("strategy", D2H)
@pytest.mark.parametrize("case", sorted(non_contiguous_hosts()))
def test_d2h_non_contiguous(cp, tiny, strategy, case):
    host = non_contiguous_hosts()[case]
    # The same view taken on the device, so the device array is non-contiguous too.
    base = cp.asarray(host.base if host.base is not None else host)
    dev = {
        "strided_1d": lambda: base[::3],
        "reversed_1d": lambda: base[::-1],
        "fortran_2d": lambda: cp.asfortranarray(cp.asarray(host)),
        "column_of_c_block": lambda: base.reshape(15, 41)[:, 4],
        "sliced_3d": lambda: base.reshape(3, 5, 41)[:, 1:4, ::2],
        "transposed_3d": lambda: base.reshape(3, 5, 41).transpose(2, 0, 1),
    }[case]()
    out = _transfer.D2H_STRATEGIES[strategy](dev)
    np.testing.assert_array_equal(out, host)


@pytest.mark.gpu
def test_layout_kept_for_fortran_arrays(cp, tiny):
    host = np.asfortranarray(random_array(6 * 7, "int32").reshape(6, 7))
    for strategy in H2D:
        if strategy != "cupy":
            assert _transfer.H2D_STRATEGIES[strategy](host).flags.f_contiguous
    dev = cp.asfortranarray(cp.asarray(host))
    for strategy in D2H:
        if strategy != "cupy":
            assert _transfer.D2H_STRATEGIES[strategy](dev).flags.f_contiguous


@pytest.mark.gpu
def test_datetimes_travel_as_int64(cp, tiny):
    stamps = np.array(["1969-07-20T20:17", "2000-01-01", "NaT", "2262-04-11"], dtype="datetime64[ns]")
    stamps = np.repeat(stamps, 25)
    for h2d in H2D:
        dev = _transfer.H2D_STRATEGIES[h2d](stamps.view("int64"))
        for d2h in D2H:
            back = _transfer.D2H_STRATEGIES[d2h](dev).view("datetime64[ns]")
            np.testing.assert_array_equal(back, stamps)


@pytest.mark.gpu
def test_all_strategies_give_identical_bytes(cp, tiny):
    host = random_array(4099, "float64", seed=5)  # NaN payloads and signed zeros included
    devs = {name: fn(host) for name, fn in _transfer.H2D_STRATEGIES.items()}
    ref = cp.asnumpy(devs["cupy"]).tobytes()
    assert all(cp.asnumpy(d).tobytes() == ref for d in devs.values())
    outs = {name: fn(devs["cupy"]) for name, fn in _transfer.D2H_STRATEGIES.items()}
    assert all(o.tobytes() == ref for o in outs.values())


@pytest.mark.gpu
@pytest.mark.parametrize("strategy", H2D)
def test_h2d_source_reusable_on_return(cp, tiny, strategy):
    host = random_array(3000, "int64", seed=2)
    keep = host.copy()
    dev = _transfer.H2D_STRATEGIES[strategy](host)
    host[:] = -1  # the caller may reuse its buffer at once
    del host
    assert same_bytes(cp.asnumpy(dev), keep)


@pytest.mark.gpu
@pytest.mark.parametrize("strategy", D2H)
def test_d2h_sees_pending_work_of_other_stream(cp, strategy):
    """The source is still being computed on the caller's (non-blocking) stream when we are called."""
    with _transfer.settings(chunk_bytes=1 << 20, small_bytes=0):
        n = 20_000_000
        with cp.cuda.Stream(non_blocking=True):
            x = cp.arange(n, dtype=cp.float64)
            for _ in range(5):  # queue enough work that a missing wait would read stale data
                x = x * 2.0 + 1.0
            out = _transfer.D2H_STRATEGIES[strategy](x)
    expected = np.arange(n, dtype=np.float64)
    for _ in range(5):
        expected = expected * 2.0 + 1.0
    np.testing.assert_array_equal(out, expected)


@pytest.mark.gpu
@pytest.mark.parametrize("strategy", H2D)
def test_h2d_result_ordered_for_callers_stream(cp, strategy):
    with _transfer.settings(chunk_bytes=1 << 20, small_bytes=0):
        host = np.random.default_rng(9).random(6_000_000, dtype=np.float32)  # finite values: the sum is checked
        with cp.cuda.Stream(non_blocking=True):
            for _ in range(3):  # memory freed and reused on the caller's stream between transfers
                dev = _transfer.H2D_STRATEGIES[strategy](host)
                total = float(dev.astype(cp.float64).sum())
                del dev
    assert total == pytest.approx(float(host.astype(np.float64).sum()), rel=1e-9)


@pytest.mark.gpu
def test_entry_points_small_and_large(cp):
    with _transfer.settings(chunk_bytes=1 << 20):
        for n in (0, 5, 100_000, 3_000_001):  # below and above small_bytes (8 MiB of float64 ~ 1M rows)
            host = random_array(n, "float64", seed=n)
            dev = _transfer.host_to_device(host)
            assert same_bytes(cp.asnumpy(dev), host)
            assert same_bytes(_transfer.device_to_host(dev), host)
            for name in _transfer.D2H_STRATEGIES:
                assert same_bytes(_transfer.device_to_host(dev, strategy=name), host)
            for name in _transfer.H2D_STRATEGIES:
                assert same_bytes(cp.asnumpy(_transfer.host_to_device(host, strategy=name)), host)
    _transfer.release_pinned_memory()


@pytest.mark.gpu
def test_pinned_host_array_goes_direct(cp):
    with _transfer.settings(small_bytes=0):
        host = random_array(100_003, "int32", seed=4)
        pinned = _transfer.D2H_STRATEGIES["pinned_result"](cp.asarray(host))
        assert _transfer._is_page_locked(cp, pinned.ctypes.data)
        assert not _transfer._is_page_locked(cp, host.ctypes.data)
        assert same_bytes(cp.asnumpy(_transfer.host_to_device(pinned)), host)
        # registered strategy on already pinned memory falls back to a plain DMA
        assert same_bytes(cp.asnumpy(_transfer.H2D_STRATEGIES["registered"](pinned)), host)
    _transfer.release_pinned_memory()


@pytest.mark.gpu
def test_device_to_host_accepts_cuda_array_interface(cp):
    class Wrapper:
        def __init__(self, arr):
            self._arr = arr
            self.__cuda_array_interface__ = arr.__cuda_array_interface__

    dev = cp.arange(1_000_000, dtype=cp.int64)
    with _transfer.settings(small_bytes=0, chunk_bytes=4096):
        np.testing.assert_array_equal(_transfer.device_to_host(Wrapper(dev)), np.arange(1_000_000))


@pytest.mark.gpu
@pytest.mark.parametrize("strategy", H2D)
def test_h2d_rejects_object_dtype(cp, tiny, strategy):
    with pytest.raises((TypeError, ValueError)):
        _transfer.H2D_STRATEGIES[strategy](np.array(["a", None], dtype=object))


@pytest.mark.gpu
def test_random_shapes_and_settings(cp):
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")

    @hypothesis.settings(max_examples=60, deadline=None)
    @hypothesis.given(
        n=st.integers(0, 3000),
        dtype=st.sampled_from(DTYPES),
        step=st.sampled_from([1, 1, 2, -1, 5]),
        chunk=st.integers(1, 512),
        threads=st.integers(1, 5),
        h2d=st.sampled_from(H2D),
        d2h=st.sampled_from(D2H),
    )
    def check(n, dtype, step, chunk, threads, h2d, d2h):
        host = random_array(n, dtype, seed=n)[::step]
        with _transfer.settings(chunk_bytes=chunk, n_threads=threads, small_bytes=0):
            dev = _transfer.H2D_STRATEGIES[h2d](host)
            assert same_bytes(cp.asnumpy(dev), host)
            assert same_bytes(_transfer.D2H_STRATEGIES[d2h](dev), host)

    check()
    _transfer.release_pinned_memory()


@pytest.mark.gpu
@pytest.mark.parametrize("n", [2_500_003, 700_001])
def test_per_thread_adaptive_chunks(cp, n):
    """Ranges larger than four 1 MiB steps: the per-thread pipelines pick a step between 1 MiB and chunk_bytes."""
    host = random_array(n, "float64", seed=n)
    with _transfer.settings(chunk_bytes=8 << 20, n_threads=3, small_bytes=0):
        dev = _transfer.H2D_STRATEGIES["staged_threads"](host)
        assert same_bytes(cp.asnumpy(dev), host)
        assert same_bytes(_transfer.D2H_STRATEGIES["staged_threads"](dev), host)
        # the staging chunks made for this size serve a smaller transfer too
        assert same_bytes(_transfer.device_to_host(dev[:12345]), host[:12345])
    _transfer.release_pinned_memory()
