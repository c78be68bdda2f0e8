"""CUDA sources that riptide hands to CuPy compile with nvcc, where nvcc is installed (no GPU needed).

CI has no GPU, so a RawKernel's source is otherwise only compiled on the GPU host; this catches syntax and type
errors earlier. It does not run the kernels: their results are checked against the xp twins on the GPU host."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest

from riptide.core.kernels import datetime_kernels, strings
from riptide.core.ops import format_float
from riptide.core.regex import captures, match
from riptide.ml import _kernels as ml_kernels
from riptide.io import csv_device, parquet_kernels
from riptide.core.kernels import union_find
from riptide.graph import _frontier

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc (CUDA toolkit) to compile")

SOURCES = {"regex_first": match._FIRST, "regex_scan": match._SCAN, "regex_starts": match._STARTS,
           "regex_captures": captures._CAPTURES, "riptide_round_ticks": datetime_kernels.ROUND_SOURCE,
           "riptide_str_contains": strings.SEARCH_SOURCE, "riptide_ascii_case_map": strings.BYTES_SOURCE}  # fmt: skip
DEFINES = {"regex_captures": ["-DKMAX=8", "-DNREG=4"]}  # compiled per table size
SOURCES.update({name: parquet_kernels.SOURCE for name in parquet_kernels.KERNELS})  # one module, six kernels
SOURCES["csv_match_words"] = csv_device._MATCH_WORDS
SOURCES["csv_fast_numbers"] = csv_device._FAST_NUMBERS
SOURCES["riptide_format_float"] = SOURCES["riptide_compact_slots"] = format_float.FORMAT_SOURCE

# Sources compiled per set of defines: "<kernel name>:<variant>" -> defines.
_NAN = "-DNAT_VALUE=__longlong_as_double(0x7ff8000000000000LL)"
for _code, _out in ((0, ["-DOUT_T=int"]), (8, ["-DOUT_T=i64"]), (9, ["-DOUT_T=double", _NAN]),
                    (14, ["-DOUT_T=bool", "-DNAT_VALUE=false"]), (23, ["-DOUT_T=double", _NAN])):  # fmt: skip
    SOURCES[f"riptide_datetime_field:{_code}"] = datetime_kernels.FIELD_SOURCE
    DEFINES[f"riptide_datetime_field:{_code}"] = [f"-DFIELD={_code}", "-DPER_SECOND=1000000LL", *_out]

# riptide.ml's kernels, per data type.
for _c_type, _dtype in (("double", "float64"), ("float", "float32")):
    for _kernel, _source in (("riptide_kmeans_step", ml_kernels.KMEANS_SOURCE),
                             ("riptide_kmeans_reduce", ml_kernels.KMEANS_SOURCE),
                             ("riptide_kmeans_finalize", ml_kernels.KMEANS_SOURCE),
                             ("riptide_column_sums", ml_kernels.COLUMN_SUMS_SOURCE),
                             *((name, ml_kernels.COLUMN_STATS_SOURCE) for name in (
                                 "riptide_column_counts", "riptide_column_sq_deviations",
                                 "riptide_column_extrema"))):  # fmt: skip
        SOURCES[f"{_kernel}:{_c_type}"] = _source
        DEFINES[f"{_kernel}:{_c_type}"] = list(ml_kernels.compile_options(_dtype))

# riptide.ml.cluster's all-pairs passes (k-th neighbour distances, Boruvka's lightest edges).
from riptide.ml.cluster import _neighbourhood as cluster_pairs  # noqa: E402

for _kernel in ("riptide_knn_kth", "riptide_boruvka_rowmin"):
    SOURCES[_kernel] = cluster_pairs.PAIRS_SOURCE
    DEFINES[_kernel] = [f"-DMAX_FEATURES={cluster_pairs.MAX_FEATURES}", f"-DMAX_K={cluster_pairs.MAX_K}",
                        f"-DTILE={cluster_pairs.TILE}"]  # fmt: skip

# riptide.ml.neighbors' k-nearest selection kernel, per value type.
from riptide.ml.neighbors import _kernels as neighbors_kernels  # noqa: E402

for _c_type in ("double", "float"):
    for _kernel in ("riptide_knn_select", "riptide_knn_select_values"):
        SOURCES[f"{_kernel}:{_c_type}"] = neighbors_kernels.SELECT_SOURCE
        DEFINES[f"{_kernel}:{_c_type}"] = [f"-DVAL_T={_c_type}", f"-DBUFFER={neighbors_kernels.BUFFER}",
                                           f"-DLOAD_BYTES={neighbors_kernels.LOAD_BYTES}"]  # fmt: skip
SOURCES["riptide_knn_rerank"] = neighbors_kernels.RERANK_SOURCE
DEFINES["riptide_knn_rerank"] = [f"-DRERANK_MAX={neighbors_kernels.RERANK_MAX}"]


# Grouping, ranking and gathering strings: the hash-aggregate kernel for one string key (its prelude holds the string
# hashing shared by every hash-table kernel), the pairwise rank of distinct strings, the segment copy.
from riptide.core.kernels import factorize, hash_aggregate, hashing, segments  # noqa: E402

SOURCES["hash_aggregate"] = hash_aggregate._source((), 1, False, (("float64", "sum", False),), True)
SOURCES["hash_aggregate:two_strings_masked"] = hash_aggregate._source(
    ("long long",), 2, True, (("int32", "min", True), ("float64", "count", False)), False
)
SOURCES["dense_aggregate"] = hash_aggregate._source(("long long", "unsigned char"), 0, True,
                                                    (("float64", "sum", True), ("int64", "size", False)), False, True)
SOURCES["dense_aggregate:shared"] = hash_aggregate._source(("int",), 0, False, (("int16", "max", False),), True, True)
SOURCES["dense_lookup"] = hash_aggregate._dense_lookup_source(("short", "unsigned char"), True)
for _word in ("long long", "unsigned char"):
    SOURCES[f"riptide_key_range:{_word}"] = hash_aggregate.KEY_RANGE_SOURCE
    DEFINES[f"riptide_key_range:{_word}"] = [f"-DWORD_T={_word}"]
SOURCES["rank_distinct_strings"] = factorize._RANK_STRINGS
SOURCES["riptide_gather_segments"] = segments._GATHER_SEGMENTS
SOURCES["riptide_take_spans"] = segments._TAKE_SPANS
SOURCES["riptide_take_spans_small"] = segments.SMALL_TAKE_SOURCE
SOURCES["riptide_gather_rows"] = hash_aggregate.GATHER_ROWS_SOURCE
SOURCES["riptide_place_groups"] = hash_aggregate.PLACE_GROUPS_SOURCE
SOURCES["riptide_packed_sort_numbers"] = hash_aggregate.PACKED_SORT_NUMBERS_SOURCE
for _name in ("riptide_hook_edges", "riptide_point_at_roots"):
    SOURCES[_name] = union_find.UNION_FIND_SOURCE
for _name in ("riptide_bfs_claim", "riptide_bfs_count", "riptide_bfs_emit", "riptide_sssp_relax"):
    SOURCES[_name] = _frontier.FRONTIER_SOURCE
SOURCES["riptide_sorted_string_groups"] = hash_aggregate.SORTED_STRING_GROUPS_SOURCE
SOURCES["hash_aggregate:cached_keys_counted"] = hash_aggregate._source((), 1, True, (("int64", "size", False),), True,
                                                                   key_cache=True, count_bytes=True)
SOURCES["riptide_table_init"] = hashing.init_source((0, -(2**63), 2**63 - 1), True)
SOURCES["riptide_table_init:records"] = hashing.init_source((-(2**63), 0), False, records=True)
SOURCES["hash_aggregate:records"] = hash_aggregate._source((), 1, False, (("float64", "sum", False), ("int32", "min", True)),
                                                           False, packed=True, records=True)
DEFINES["riptide_gather_segments"] = ["-DSEGMENT_T=unsigned char"]


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_kernel_compiles(name):
    source = SOURCES[name]
    kernel = name.split(":")[0]
    assert f'extern "C" __global__ void {kernel}(' in source  # CuPy looks the kernel up by this unmangled name
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, f"{kernel}.cu")
        with open(path, "w") as f:
            f.write(source)
        done = subprocess.run(["nvcc", "-ptx", "-arch=sm_90", *DEFINES.get(name, []), "-o", os.path.join(d, "k.ptx"), path],
                              capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_kmeans_step_fits_its_registers(dtype):
    """The Lloyd step holds the next tile in registers: at the register cap that sets its occupancy (three blocks
    an SM) ptxas must not spill them to local memory, which would share the L1 with the tile in shared memory."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "kmeans.cu")
        with open(path, "w") as f:
            f.write(ml_kernels.KMEANS_SOURCE)
        done = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", *ml_kernels.compile_options(dtype),
                               f"--maxrregcount={ml_kernels.REGISTERS}", "-Xptxas", "-v", "-o",
                               os.path.join(d, "k.cubin"), path], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = done.stderr.split("Compiling entry function 'riptide_kmeans_step'", 1)[1]
    assert " 0 bytes spill stores, 0 bytes spill loads" in report.split("Compile time", 1)[0], report[:600]


def test_every_kernel_is_in_its_source():
    """The names riptide launches are defined in the sources compiled above."""
    for source, names in ((strings.SEARCH_SOURCE, ("riptide_str_contains", "riptide_str_contains_warp",
                                                   "riptide_str_affixes")),
                          (strings.BYTES_SOURCE, ("riptide_any_high_byte", "riptide_ascii_case_map"))):  # fmt: skip
        for name in names:
            assert f'extern "C" __global__ void {name}(' in source
