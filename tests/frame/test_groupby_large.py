"""groupby on frames large enough for the GPU's hash paths (over 2**14 rows), against pandas.

On the GPU, ``sum/mean/count/size/min/max`` (and ``agg`` of them) group and reduce in one kernel pass
(:func:`riptide.core.ops.grouping.group_rows_aggregating`); a few hundred groups accumulate in shared
memory, more in the L2-sized or the full-sized table. Everything else (and the CPU) groups first. These
cases cover the key layouts (one int64 word, floats with NaN, strings, several keys, small integer ranges that
address a dense table), the value dtypes, both table stages and what runs after such a grouping (group numbers
computed on demand).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import riptide as rt
from tests.conftest import assert_frame_equal, assert_series_equal, make_values

N = 40_000
_EMPTY_KEY = np.uint64(0x5BD1E9955BD1E995).view(np.int64)  # the value the one-word table reserves


def _frame(n_groups: int, key_dtypes: list[str], seed: int = 0, null_frac: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    data: dict[str, object] = {}
    for i, dtype in enumerate(key_dtypes):
        codes = rng.integers(0, n_groups, N)
        if dtype == "dense":  # a small range of ints, negative ones too: the GPU's directly addressed table
            values = pd.Series(codes * 2 - 1001)
        elif dtype == "int64":
            values = pd.Series(codes * 7919 - 3)
            values[rng.integers(0, N, 5)] = _EMPTY_KEY  # rows holding the reserved key take the extra slot
        elif dtype == "float64":
            values = pd.Series(codes / 4.0)
            values[rng.random(N) < null_frac] = np.nan
        elif dtype == "str":
            labels = np.array([f"k{c:05d}é" for c in range(n_groups)], dtype=object)
            values = pd.Series(labels[codes], dtype="str")
            values[rng.random(N) < null_frac] = None
        else:
            values = pd.Series(codes).astype(dtype)
        data[f"k{i}"] = values
    data["f"] = make_values(rng, "float64", N, null_frac=0.1)
    data["g"] = make_values(rng, "float32", N)
    data["i"] = make_values(rng, "int8", N)
    data["u"] = make_values(rng, "uint64", N)
    data["b"] = make_values(rng, "bool", N)
    data["m"] = make_values(rng, "Int64", N, null_frac=0.1)  # masked: a missing value adds nothing
    data["h"] = make_values(rng, "Float64", N, null_frac=0.1)
    return pd.DataFrame(data)


_LAYOUTS = [
    pytest.param(100, ["int64"], id="int64-100"),  # shared-memory stage
    pytest.param(5000, ["int64"], id="int64-5000"),  # past the shared stage
    pytest.param(300, ["str"], id="str-300"),
    pytest.param(3000, ["float64"], id="float-3000"),
    pytest.param(40, ["int64", "str"], id="int64-str-40"),
    pytest.param(2000, ["int32", "str"], id="int32-str-2000"),
    pytest.param(100, ["dense"], id="dense-100"),  # a dense table in shared memory
    pytest.param(3000, ["dense"], id="dense-3000"),  # a dense table in global memory
    pytest.param(30, ["int8", "uint16"], id="int8-uint16-30"),  # two keys: one mixed-radix slot number
]


# Float sums differ in the last digits between summation orders (GPU atomics add in any order; pandas sums float32
# in float32, riptide in float64): compare to ~1e-6 of the values' scale.
_TOLERANCE = {"rtol": 1e-5, "atol": 1e-2}


@pytest.mark.parametrize("n_groups, key_dtypes", _LAYOUTS)
@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("op", ["sum", "mean", "count", "min", "max", "size"])
def test_reductions_match_pandas(n_groups, key_dtypes, sort, op):
    pdf = _frame(n_groups, key_dtypes, null_frac=0.05)
    keys = [c for c in pdf if c.startswith("k")]
    df = rt.from_pandas(pdf)
    got = getattr(df.groupby(keys, sort=sort, dropna=False), op)()
    expected = getattr(pdf.groupby(keys, sort=sort, dropna=False), op)()
    if op == "size":
        assert_series_equal(got, expected, check_exact=True)
    else:
        assert_frame_equal(got, expected, **_TOLERANCE)


@pytest.mark.parametrize("n_groups, key_dtypes", _LAYOUTS[:4])
def test_agg_spec_and_what_follows(n_groups, key_dtypes):
    """One agg spec of several reductions; then scans and transforms need each row's group."""
    pdf = _frame(n_groups, key_dtypes, seed=1, null_frac=0.05)
    df = rt.from_pandas(pdf)
    spec = {"f": ["sum", "mean", "max"], "i": "sum", "u": ["min", "count"], "b": "mean"}
    gb, pgb = df.groupby("k0"), pdf.groupby("k0")
    assert_frame_equal(gb.agg(spec), pgb.agg(spec), **_TOLERANCE)
    assert_frame_equal(gb.agg(lo=("g", "min"), n=("g", "count")), pgb.agg(lo=("g", "min"), n=("g", "count")))
    assert_frame_equal(gb[["f", "i"]].cumsum(), pgb[["f", "i"]].cumsum(), **_TOLERANCE)
    assert_series_equal(gb["f"].transform("sum"), pgb["f"].transform("sum"), **_TOLERANCE)


def test_min_count_dropna_and_all_missing_groups():
    pdf = _frame(500, ["float64"], seed=2, null_frac=0.2)
    pdf.loc[pdf["k0"] == 1.25, "f"] = np.nan  # a group without values
    df = rt.from_pandas(pdf)
    for dropna in (True, False):
        assert_series_equal(df.groupby("k0", dropna=dropna)["f"].sum(min_count=1),
                            pdf.groupby("k0", dropna=dropna)["f"].sum(min_count=1), **_TOLERANCE)  # fmt: skip
        assert_series_equal(df.groupby("k0", dropna=dropna)["f"].max(), pdf.groupby("k0", dropna=dropna)["f"].max())
    all_missing = pd.DataFrame({"k": pd.Series([np.nan] * N), "v": np.arange(N, dtype=np.float64)})
    assert_series_equal(rt.from_pandas(all_missing).groupby("k")["v"].sum(), all_missing.groupby("k")["v"].sum())


def test_signed_zero_keys_show_the_first_seen():
    values = np.where(np.arange(N) % 3 == 0, -0.0, 0.0)
    pdf = pd.DataFrame({"k": values, "v": np.arange(N, dtype=np.int64)})
    got = rt.from_pandas(pdf).groupby("k")["v"].sum()
    expected = pdf.groupby("k")["v"].sum()
    assert_series_equal(got, expected)
    assert np.signbit(got.index.to_pandas()[0]) == np.signbit(expected.index[0])


@pytest.mark.parametrize("dropna", [True, False])
@pytest.mark.parametrize("sort", [True, False])
def test_small_integer_keys_with_missing_values(monkeypatch, dropna, sort):
    """Keys of a small range take the dense table on the GPU unless a missing key is kept as a value (a masked
    key's flag word, NaT's tick at the bottom of the int64 range): masked ints, datetimes, a bool and an int."""
    from riptide import _device
    from riptide.core.kernels import hash_aggregate

    layouts = []
    real = hash_aggregate.dense_layout
    monkeypatch.setattr(hash_aggregate, "dense_layout", lambda keys: layouts.append(real(keys)) or layouts[-1])
    rng = np.random.default_rng(7)
    codes = rng.integers(-20, 20, N)
    pdf = pd.DataFrame({
        "masked": pd.array(codes, dtype="Int64"),
        "when": pd.Series(codes + 100, dtype="datetime64[s]"),  # ticks one apart: a small range too
        "flag": codes % 3 == 0,
        "small": codes.astype(np.int32) * 5,
        "v": make_values(rng, "float64", N, null_frac=0.1),
        "w": make_values(rng, "int16", N),
    })  # fmt: skip
    pdf.loc[rng.random(N) < 0.05, "masked"] = pd.NA
    pdf.loc[rng.random(N) < 0.05, "when"] = pd.NaT
    df = rt.from_pandas(pdf)
    for keys, dense in ((["masked"], dropna), (["when"], dropna), (["flag", "small"], True)):
        layouts.clear()
        gb, pgb = df.groupby(keys, sort=sort, dropna=dropna), pdf.groupby(keys, sort=sort, dropna=dropna)
        spec = {"v": ["sum", "mean", "min", "count"], "w": ["max", "sum"]}
        assert_frame_equal(gb.agg(spec), pgb.agg(spec), **_TOLERANCE)
        assert_series_equal(gb.size(), pgb.size(), check_exact=True)
        assert_series_equal(gb["w"].cumsum(), pgb["w"].cumsum())  # each row's group, from the finished table
        if _device.xp() is not np:
            assert any(layout is not None for layout in layouts) == dense, (keys, layouts)


def test_dense_and_hashed_tables_agree_at_the_size_limit(monkeypatch):
    """Just inside and just outside the dense table's limit of twice the rows: the same groups either way."""
    from riptide import _device
    from riptide.core.kernels import hash_aggregate

    layouts = []
    real = hash_aggregate.dense_layout
    monkeypatch.setattr(hash_aggregate, "dense_layout", lambda keys: layouts.append(real(keys)) or layouts[-1])
    for span in (2 * N, 2 * N + 1):
        layouts.clear()
        keys = np.random.default_rng(span).integers(0, span - 2, N)
        keys[:2] = [0, span - 1]  # the range's ends
        pdf = pd.DataFrame({"k": keys, "v": np.arange(N, dtype=np.float64)})
        df = rt.from_pandas(pdf)
        assert_series_equal(df.groupby("k")["v"].sum(), pdf.groupby("k")["v"].sum())
        assert_series_equal(df.groupby("k", sort=False)["v"].max(), pdf.groupby("k", sort=False)["v"].max())
        if _device.xp() is not np:
            assert layouts and all((layout is not None) == (span == 2 * N) for layout in layouts), (span, layouts)


def test_kept_nat_keys_sort_last_near_the_smallest_timestamp():
    """NaT kept as a key (dropna=False) is the smallest int64 tick: keys just above it must not put it first."""
    rng = np.random.default_rng(4)
    keys = pd.Series(pd.Timestamp.min + pd.to_timedelta(rng.integers(0, 50, N), unit="ns"))
    keys[rng.random(N) < 0.1] = pd.NaT
    pdf = pd.DataFrame({"k": keys, "v": np.arange(N, dtype=np.float64)})
    df = rt.from_pandas(pdf)
    for sort in (True, False):
        assert_series_equal(df.groupby("k", sort=sort, dropna=False)["v"].sum(),
                            pdf.groupby("k", sort=sort, dropna=False)["v"].sum())  # fmt: skip
        assert_series_equal(df.groupby("k", sort=sort, dropna=False)["v"].median(),
                            pdf.groupby("k", sort=sort, dropna=False)["v"].median())  # fmt: skip


def test_grouping_without_aggregation_on_small_integer_keys():
    """Operations that need each row's group (no reduction to fuse): on the GPU the dense table numbers the rows."""
    rng = np.random.default_rng(11)
    pdf = pd.DataFrame({"k": rng.integers(0, 900, N) - 450, "j": rng.integers(0, 3, N).astype(np.uint8),
                        "v": make_values(rng, "float64", N, null_frac=0.05)})  # fmt: skip
    df = rt.from_pandas(pdf)
    for sort in (True, False):
        gb, pgb = df.groupby(["k", "j"], sort=sort), pdf.groupby(["k", "j"], sort=sort)
        assert_frame_equal(gb.head(2), pgb.head(2))
        assert_series_equal(gb.cumcount(), pgb.cumcount())
        assert_series_equal(gb["v"].median(), pgb["v"].median())
        assert_series_equal(gb["v"].nunique(), pgb["v"].nunique())
    assert_frame_equal(df.drop_duplicates(["k", "j"]), pdf.drop_duplicates(["k", "j"]))
    assert_series_equal(df["k"].value_counts(), pdf["k"].value_counts())
    sorted_pdf = pdf.sort_values("v", ascending=False)
    assert_frame_equal(rt.from_pandas(sorted_pdf).groupby("k", sort=False).head(2), sorted_pdf.groupby("k", sort=False).head(2))


@pytest.mark.parametrize("n_groups", [5, 300, 600])  # the shared-memory stage (one block numbers the keys), and past it
@pytest.mark.parametrize("sort", [True, False])
def test_string_keys_alike_in_their_first_bytes(n_groups, sort):
    """One string key (missing values dropped): keys that differ only past their 8th byte, by a NUL byte or by their
    length, unicode and the empty string, in pandas' order with pandas' sums and means. (The GPU's hash table and
    its one-block numbering run on the GPU host; without a GPU this checks the sort-based path, and the kernels'
    logic is checked by test_kernel_emulation's string cases.)"""
    rng = np.random.default_rng(n_groups)
    special = ["", "a", "a\x00", "12345678", "12345678\x00", "123456789", "12345678a", "\u00e9", "e\u0301"]
    labels = np.array(special + [f"id{i:03d}" * (1 + i % 3) for i in range(n_groups)], dtype=object)[:n_groups]
    keys = pd.Series(labels[rng.integers(0, n_groups, N)], dtype="str")
    keys[rng.random(N) < 0.02] = None
    pdf = pd.DataFrame({"k": keys, "v": rng.standard_normal(N)})
    df = rt.from_pandas(pdf)
    for op in ("sum", "mean", "size"):
        got, expected = getattr(df.groupby("k", sort=sort)["v"], op)(), getattr(pdf.groupby("k", sort=sort)["v"], op)()
        assert_series_equal(got, expected, **({} if op == "size" else _TOLERANCE))
