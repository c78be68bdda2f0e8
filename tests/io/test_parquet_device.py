"""The device Parquet decoder, run on the CPU: its CUDA source compiled by g++ (a host build that runs each block's
lanes as threads), the decoder's Python on NumPy, compared with pyarrow's reading of files pyarrow wrote.

Skipped without g++. On the GPU host, ``test_gpu_matches_pyarrow`` runs the same files through CuPy."""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import riptide as rt
from riptide import _device
from riptide.io import parquet_device, parquet_kernels
from riptide.io.parquet_device import read_parquet_device

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to build the kernels for the host")


def _harness_source() -> str:
    """The kernels with the host prelude, and one ``run_<kernel>(grid, block, args)`` per kernel."""
    parts = [parquet_kernels.HOST_PRELUDE, parquet_kernels.SOURCE]
    for m in re.finditer(r'extern "C" __global__ void (\w+)\(([^)]*)\)', parquet_kernels.SOURCE):
        name, params = m.group(1), [p.strip() for p in m.group(2).split(",")]
        casts = ", ".join(f"({p.rsplit(' ', 1)[0]})a[{i}]" for i, p in enumerate(params))
        parts.append(f'extern "C" void run_{name}(long long grid, long long block, const long long* a) '
                     f"{{ rt_launch(grid, block, [&] {{ {name}({casts}); }}); }}")  # fmt: skip
    return "\n".join(parts)


class HostLauncher:
    """Runs the host build of the kernels on NumPy arrays (pointers are the arrays' addresses)."""

    warps_per_block = 1

    def __init__(self, lib: ctypes.CDLL, warp: int):
        self.lib, self.warp = lib, warp
        self.launches: list[str] = []

    def __call__(self, name: str, grid: int, block: int, *args) -> None:
        words = [a.ctypes.data if isinstance(a, np.ndarray) else int(a) for a in args]
        self.launches.append(name)
        getattr(self.lib, f"run_{name}")(ctypes.c_longlong(grid), ctypes.c_longlong(block),
                                        (ctypes.c_longlong * len(words))(*words))  # fmt: skip

    @staticmethod
    def ptr(array: np.ndarray) -> int:
        return array.ctypes.data


_BUILDS: dict[int, ctypes.CDLL] = {}


def _build(warp: int, tmp_path_factory) -> HostLauncher:
    """The host build with ``warp`` lanes per warp (compiled once per test session)."""
    if shutil.which("g++") is None:
        pytest.skip("needs g++ to build the kernels for the host")
    if warp not in _BUILDS:
        d = tmp_path_factory.mktemp(f"pqk{warp}")
        src = d / "k.cpp"
        src.write_text(_harness_source())
        lib = d / "k.so"
        done = subprocess.run(["g++", "-O1", "-std=c++17", "-DRT_HOST", f"-DWARP={warp}", "-shared", "-fPIC",
                               "-pthread", "-o", str(lib), str(src)], capture_output=True, text=True,
                              timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        _BUILDS[warp] = ctypes.CDLL(str(lib))
    return HostLauncher(_BUILDS[warp], warp)


@pytest.fixture
def launcher(tmp_path_factory):
    """One lane per warp: every kernel runs as a plain sequential program (fast)."""
    return _build(1, tmp_path_factory)


@pytest.fixture
def launcher4(tmp_path_factory):
    """Four lanes per warp, one OS thread each: the cross-lane logic (broadcasts, batches of Snappy tags split
    among lanes, lane-strided loops) runs as on the device, with real concurrency."""
    return _build(4, tmp_path_factory)


def _decode(path, launcher, columns=None):
    return read_parquet_device(str(path), columns, xp=np, launcher=launcher)


def _check(path, launcher, columns=None):
    """The device decoder's frame equals the pyarrow path's (riptide's CPU reader, itself tested against pandas)."""
    got = _decode(path, launcher, columns)
    assert got is not None, "the device path declined the file"
    expected = rt.read_parquet(path, columns=columns)
    pd.testing.assert_frame_equal(got.to_pandas(), expected.to_pandas())
    return got


def _frame(n, seed=0, nulls=True):
    rng = np.random.default_rng(seed)
    words = np.array(["", "a", "héllo", "ünïcödé ✓", "x" * 70, "tail", "日本語"], dtype=object)
    strings = words[rng.integers(0, len(words), n)]
    ints = rng.integers(-1000, 1000, n)
    floats = rng.standard_normal(n)
    bools = rng.integers(0, 2, n).astype(bool)
    frame = pd.DataFrame({
        "i64": ints, "i32": ints.astype(np.int32), "i8": (ints % 100).astype(np.int8),
        "u32": np.abs(ints).astype(np.uint32), "f64": floats, "f32": floats.astype(np.float32), "b": bools,
        "s": pd.array(strings, dtype="str"),
        "ts": pd.to_datetime(ints, unit="s").astype("datetime64[us]"),
        "cat": pd.Categorical(strings),
        "wide": rng.integers(0, 1 << 40, n),  # many distinct values: plain pages after the dictionary overflows
    })  # fmt: skip
    if nulls and n:
        holes = rng.random(n) < 0.2
        frame["f64n"] = np.where(holes, np.nan, floats)
        frame["i64n"] = pd.array(np.where(holes, None, ints), dtype="Int64")
        frame["sn"] = pd.array(np.where(holes, None, strings), dtype="str")
        frame["bn"] = pd.array(np.where(holes, None, bools), dtype="boolean")
        frame["catn"] = pd.Categorical(np.where(holes, None, strings))
    return frame


WRITE_OPTIONS = {
    "snappy_v1": dict(compression="snappy", data_page_version="1.0"),
    "snappy_v2": dict(compression="snappy", data_page_version="2.0"),
    "none_v1": dict(compression="none", data_page_version="1.0"),
    "none_v2_plain": dict(compression="none", data_page_version="2.0", use_dictionary=False),
    "snappy_plain": dict(compression="snappy", use_dictionary=False),
    "small_pages": dict(compression="snappy", data_page_size=1000, dictionary_pagesize_limit=2000),
}


@needs_gxx
@pytest.mark.parametrize("options", sorted(WRITE_OPTIONS))
def test_matches_pyarrow(tmp_path, launcher, options):
    path = tmp_path / "t.parquet"
    _frame(3000).to_parquet(path, row_group_size=1100, **WRITE_OPTIONS[options])
    _check(path, launcher)


@needs_gxx
@pytest.mark.parametrize("options", ["snappy_v1", "snappy_v2", "none_v2_plain"])
def test_matches_pyarrow_four_lanes(tmp_path, launcher4, options):
    path = tmp_path / "t.parquet"
    _frame(1500).to_parquet(path, row_group_size=600, **WRITE_OPTIONS[options])
    _check(path, launcher4)


@needs_gxx
def test_columns_selection_and_index(tmp_path, launcher):
    path = tmp_path / "t.parquet"
    frame = _frame(500).set_index("i32")
    frame.to_parquet(path, row_group_size=200)
    _check(path, launcher, columns=["s", "f64", "i64n"])
    _check(path, launcher)


@needs_gxx
@pytest.mark.parametrize("n", [0, 1])
def test_tiny_files(tmp_path, launcher, n):
    path = tmp_path / "t.parquet"
    _frame(n, nulls=False).to_parquet(path)
    _check(path, launcher)


@needs_gxx
def test_all_null_columns(tmp_path, launcher):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"f": [np.nan] * 50, "s": pd.array([None] * 50, dtype="str"),
                  "i": pd.array([None] * 50, dtype="Int64"), "k": range(50)}).to_parquet(path)  # fmt: skip
    _check(path, launcher)


@needs_gxx
def test_long_snappy_literals_and_runs(tmp_path, launcher, launcher4):
    rng = np.random.default_rng(3)
    for n, runner in ((40_000, launcher), (6_000, launcher4)):
        frame = pd.DataFrame({
            "noise": rng.standard_normal(n),  # incompressible: long literals
            "runs": np.repeat(rng.integers(0, 5, n // 1000), 1000),  # long overlapping copies
            "text": pd.array(np.where(rng.random(n) < 0.5, "abcabcabcabc" * 9, "z"), dtype="str"),
        })  # fmt: skip
        path = tmp_path / f"t{n}.parquet"
        frame.to_parquet(path, compression="snappy", use_dictionary=False)
        _check(path, runner)


@needs_gxx
def test_snappy_copies_of_copies(tmp_path, launcher, launcher4):
    """Periodic text of every period from 1 to 80 bytes, in runs of varying length next to random bytes: Snappy
    writes chains of overlapping copies (a copy of bytes another copy of the same batch writes), periodic runs of
    same-offset copies, and short literals between them."""
    rng = np.random.default_rng(11)
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz0123456789", dtype=np.uint8)
    for n, runner in ((3_000, launcher), (800, launcher4)):
        values = []
        for _ in range(n):
            period = int(rng.integers(1, 81))
            unit = bytes(letters[rng.integers(0, len(letters), period)])
            noise = bytes(letters[rng.integers(0, len(letters), int(rng.integers(0, 6)))])
            values.append((unit * int(rng.integers(1, 400)))[: int(rng.integers(1, 2000))] + noise)
        frame = pd.DataFrame({"text": pd.array([v.decode() for v in values], dtype="str")})
        path = tmp_path / f"c{n}.parquet"
        frame.to_parquet(path, compression="snappy", use_dictionary=False)
        _check(path, runner)


def _many_windows_frame(n: int) -> pd.DataFrame:
    """Dictionary pages of tens of thousands of short entries (the db-benchmark's id3), values of varying lengths,
    and page headers longer than pq_walk's prefetch."""
    rng = np.random.default_rng(8)
    ids = np.array([f"id{k:010d}" for k in range(n // 2)], dtype=object)
    return pd.DataFrame({
        "id3": pd.Categorical(ids[rng.integers(0, len(ids), n)], categories=ids),
        "s": pd.array(ids[rng.integers(0, len(ids), n)], dtype="str"),
        "id6": rng.integers(0, n // 2, n),
        "var": pd.Categorical([f"v{k}" for k in rng.integers(0, n, n)]),  # values of 2 to 7 bytes
        # page headers longer than pq_walk's prefetch: their statistics hold 160-byte minima and maxima
        "long": pd.array(np.char.add("L" * 150, ids[rng.integers(0, len(ids), n)].astype(str)), dtype="str"),
    })  # fmt: skip


@needs_gxx
def test_dictionary_pages_of_many_windows(tmp_path, launcher, launcher4):
    """The walks through the entries and through the Snappy tags cross many windows, and the page is split into
    Snappy blocks (the host build runs one warp per block: the GPU test below hands windows between warps)."""
    for n, runner in ((60_000, launcher), (3_000, launcher4)):
        path = tmp_path / f"d{n}.parquet"
        _many_windows_frame(n).to_parquet(path, compression="snappy", row_group_size=n // 2)
        _check(path, runner)


ONE_LENGTH_OR_NOT = {
    "same": ["abcd", "efgh", "ijkl"],
    "sized alike": ["aaaa", "aaa", "aaaaa"],  # 8 + 7 + 9 bytes: a multiple of the first value's 8
    "empty values": ["", "", "x"],
}


@needs_gxx
def test_byte_arrays_of_one_length_or_not(tmp_path, launcher, launcher4):
    """Values of one length are placed without a walk; lengths that differ while the page's size is still a
    multiple of the first value's go through the walk."""
    for name, values in ONE_LENGTH_OR_NOT.items():
        frame = pd.DataFrame({"s": pd.array(values * 7, dtype="str")})
        for use_dictionary in (True, False):
            path = tmp_path / f"{name}{use_dictionary}.parquet"
            frame.to_parquet(path, use_dictionary=use_dictionary)
            for runner in (launcher, launcher4):
                _check(path, runner)


def _snappy(size: int, *tags) -> bytes:
    """A raw Snappy stream of ``size`` output bytes from ("lit", bytes) and ("copy", offset, length) tags."""
    out = bytearray()
    v = size
    while True:
        out.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
        v >>= 7
        if not v:
            break
    for tag in tags:
        if tag[0] == "lit":
            data = tag[1]
            if len(data) <= 60:
                out.append((len(data) - 1) << 2)
            else:
                extra = ((len(data) - 1).bit_length() + 7) // 8
                out.append((59 + extra) << 2)
                out += (len(data) - 1).to_bytes(extra, "little")
            out += data
        else:
            _, offset, length = tag
            out.append(((length - 1) << 2) | 3)
            out += offset.to_bytes(4, "little")
    return bytes(out)


def _decompress_page(launcher, stream: bytes, size: int):
    """One Snappy data page through the decoder's decompression step: (output bytes, error code)."""
    K = parquet_kernels
    pt = np.zeros((1, K.PF), dtype=np.int64)
    pt[0, [K.P_TYPE, K.P_DATA, K.P_CSIZE, K.P_USIZE, K.P_CODEC, K.P_OUT]] = [0, 0, len(stream), size, 1, 0]
    decoder = parquet_device._Decoder.__new__(parquet_device._Decoder)
    decoder.xp, decoder.launch = np, launcher
    out, error = np.zeros(size + 8, dtype=np.uint8), np.zeros(1, dtype=np.int32)
    decoder._decompress(np.frombuffer(stream, dtype=np.uint8).copy(), pt.copy(), pt, np.array([0]), out, error)
    return bytes(out[:size]), int(error[0])


@needs_gxx
def test_snappy_blocks_decoded_apart_only_when_independent(launcher, launcher4):
    """A page of several 64 KB blocks is decoded one warp per block when every block starts with a tag and no copy
    reaches into an earlier block (what Snappy's compressor writes); otherwise one warp decodes the page."""
    block = parquet_kernels.SNAPPY_BLOCK
    r = np.random.default_rng(5).integers(0, 256, block + 200, dtype=np.uint8).tobytes()
    cases = {  # name: (stream, expected output)
        "independent blocks": (_snappy(block + 50, ("lit", r[:block]), ("lit", b"abcdefghij"), ("copy", 5, 40)),
                               r[:block] + b"abcdefghij" + b"fghij" * 8),
        "copy into the previous block": (_snappy(block + 20, ("lit", r[:block]), ("copy", 100, 20)),
                                         r[:block] + r[block - 100:block - 80]),
        "tag across the boundary": (_snappy(block - 6 + 64, ("lit", r[:block - 6]), ("copy", block - 6, 64)),
                                    r[:block - 6] + r[:64]),
    }
    for runner in (launcher, launcher4):
        for name, (stream, want) in cases.items():
            got, error = _decompress_page(runner, stream, len(want))
            assert error == 0 and got == want, name
        _, error = _decompress_page(runner, _snappy(block + 20, ("lit", r[:block]), ("copy", block + 1, 20)),
                                    block + 20)  # fmt: skip
        assert error == 2  # a copy from before the start of the output: corrupt


@needs_gxx
def test_unsupported_columns_go_to_pyarrow(tmp_path, launcher):
    path = tmp_path / "t.parquet"
    table = pa.table({"a": [1, 2, 3], "z": pa.array([1.5, 2.5, None]), "d": [7, 8, 9],
                      "t": pa.array([1, 2, 3], pa.timestamp("ns"))})  # fmt: skip
    pq.write_table(table, path, compression={"a": "snappy", "z": "zstd", "d": "snappy", "t": "snappy"},
                   use_dictionary=False, column_encoding={"d": "DELTA_BINARY_PACKED"},
                   use_deprecated_int96_timestamps=True)  # fmt: skip
    decoded = []
    real = parquet_device._assemble
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parquet_device, "_assemble", lambda pf, schema, cols, xp: decoded.extend(cols) or real(
            pf, schema, cols, xp))
        got = _decode(path, launcher)
    assert decoded == ["a"]
    pd.testing.assert_frame_equal(got.to_pandas(), rt.read_parquet(path).to_pandas())


@needs_gxx
def test_nested_file_declined(tmp_path, launcher):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"l": [[1], [2, 3]], "a": [1, 2]}), path)
    assert _decode(path, launcher) is None


@needs_gxx
def test_corrupt_page_declined(tmp_path, launcher):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"a": np.arange(1000)}).to_parquet(path, compression="snappy", use_dictionary=False)
    data = bytearray(path.read_bytes())
    start = pq.ParquetFile(path).metadata.row_group(0).column(0).data_page_offset
    data[start + 40 : start + 60] = b"\xff" * 20  # inside the first page's compressed values
    path.write_bytes(bytes(data))
    assert _decode(path, launcher) is None


@needs_gxx
def test_g1_like_launches(tmp_path, launcher):
    """A file like the db-benchmark one: categorical ids, int64 ids and values, a float column; the kernels run
    once per step for all columns (no launch per page or per column, but the string gathers)."""
    rng = np.random.default_rng(0)
    n = 30_000
    ids = np.array([f"id{i:03d}" for i in range(1, 101)])
    frame = pd.DataFrame({"id1": pd.Categorical(ids[rng.integers(0, 100, n)]),
                          "id4": rng.integers(1, 101, n), "v3": rng.random(n).round(6)})  # fmt: skip
    path = tmp_path / "t.parquet"
    frame.to_parquet(path, index=False, row_group_size=7000)
    launcher.launches.clear()
    _check(path, launcher)
    counts = pd.Series(launcher.launches).value_counts().to_dict()
    assert counts == {"pq_walk": 2, "pq_decompress": 1, "pq_levels": 1, "pq_byte_arrays": 1, "pq_values": 1,
                      "pq_gather_strings": 1}  # fmt: skip


def test_read_parquet_uses_device_path_on_gpu(tmp_path, monkeypatch):
    """read_parquet asks the device decoder on the GPU (or when forced) and gives pyarrow's frame either way."""
    path = tmp_path / "t.parquet"
    _frame(300).to_parquet(path)
    calls = []
    real = parquet_device.read_parquet_device
    monkeypatch.setattr(parquet_device, "read_parquet_device", lambda *a, **k: calls.append(a) or None)
    monkeypatch.setenv("RIPTIDE_PARQUET_DEVICE", "1")
    got = rt.read_parquet(path)
    assert len(calls) == 1
    pd.testing.assert_frame_equal(got.to_pandas(), pd.read_parquet(path))
    monkeypatch.setenv("RIPTIDE_PARQUET_DEVICE", "0")
    rt.read_parquet(path)
    assert len(calls) == 1
    monkeypatch.setattr(parquet_device, "read_parquet_device", real)


@pytest.mark.skipif(not _device.is_gpu(), reason="needs a GPU")
@pytest.mark.parametrize("options", sorted(WRITE_OPTIONS))
def test_gpu_matches_pyarrow(tmp_path, monkeypatch, options):
    path = tmp_path / "t.parquet"
    _frame(30_000).to_parquet(path, row_group_size=11_000, **WRITE_OPTIONS[options])
    got = read_parquet_device(str(path))
    assert got is not None
    monkeypatch.setenv("RIPTIDE_PARQUET_DEVICE", "0")
    pd.testing.assert_frame_equal(got.to_pandas(), rt.read_parquet(path).to_pandas())


@pytest.mark.skipif(not _device.is_gpu(), reason="needs a GPU")
@pytest.mark.parametrize("n", [60_000, 400_000])
def test_gpu_walks_of_many_windows(tmp_path, monkeypatch, n):
    """The warps of a block hand a page's windows on to each other (pages of many windows, Snappy pages over 64 KB);
    values of one length and pages sized alike go through the parallel check."""
    frames = {"many": _many_windows_frame(n)}
    frames.update({name: pd.DataFrame({"s": pd.array(values * (n // 3), dtype="str")})
                   for name, values in ONE_LENGTH_OR_NOT.items()})  # fmt: skip
    for name, frame in frames.items():
        path = tmp_path / f"{name}.parquet"
        frame.to_parquet(path, compression="snappy", row_group_size=n // 2)
        got = read_parquet_device(str(path))
        assert got is not None, name
        with monkeypatch.context() as m:
            m.setenv("RIPTIDE_PARQUET_DEVICE", "0")
            pd.testing.assert_frame_equal(got.to_pandas(), rt.read_parquet(path).to_pandas())


@needs_gxx
def test_categories_differ_between_row_groups(tmp_path, launcher):
    """Row groups with their own dictionaries: the categories are in order of first appearance over them (what
    pyarrow's unified dictionary gives), with missing values."""
    chunks = [pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 1], pa.int32()), pa.array(["b", "a"])),
              pa.DictionaryArray.from_arrays(pa.array([2, 0, 1], pa.int32()), pa.array(["c", "a", "é"])),
              pa.DictionaryArray.from_arrays(pa.array([0], pa.int32()), pa.array(["b"]))]  # fmt: skip
    batches = [pa.record_batch({"k": chunk, "x": pa.array(range(len(chunk)))}) for chunk in chunks]
    path = tmp_path / "t.parquet"
    with pq.ParquetWriter(path, batches[0].schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    got = _check(path, launcher)
    assert list(got["k"].cat.categories) == ["b", "a", "c", "é"]


@needs_gxx
@pytest.mark.parametrize("second", [["a", "b"], ["b", "c"], ["b", "a"]])
def test_dictionaries_of_one_size(tmp_path, launcher, second):
    """Row groups whose dictionaries have one size are taken to share one dictionary and checked afterwards: when
    they differ (other order, other values of the same byte count), the entries are numbered by first appearance."""
    chunks = [pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 1], pa.int32()), pa.array(["b", "a"])),
              pa.DictionaryArray.from_arrays(pa.array([1, 0, 1], pa.int32()), pa.array(second))]  # fmt: skip
    batches = [pa.record_batch({"k": chunk}) for chunk in chunks]
    path = tmp_path / "t.parquet"
    with pq.ParquetWriter(path, batches[0].schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    got = _check(path, launcher)
    assert list(got["k"].cat.categories) == list(dict.fromkeys(["b", "a", *second]))
