"""``to_csv`` formatted by riptide (riptide/io/csv_write_device.py): byte-identical to pandas, no host fallback."""

from __future__ import annotations

import io
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import frame_st

COVERED = ["int8", "int32", "int64", "uint8", "uint64", "float32", "float64", "bool", "Int64",
           "Float64", "boolean", "str", "category"]  # fmt: skip


def same_csv(source: pd.DataFrame | pd.Series, fallback: bool = False, **options) -> None:
    """riptide writes pandas' bytes; without a HostFallbackWarning unless ``fallback``."""
    expected = source.to_csv(**options)
    obj = rt.DataFrame(source) if isinstance(source, pd.DataFrame) else rt.Series(source)
    # the fallback warning is said once per reason, so the calls themselves are recorded
    with mock.patch("riptide.io.csv.warn_host_fallback") as warn:
        got = obj.to_csv(**options)
    assert got == expected
    assert warn.called == fallback, warn.call_args


OPTIONS = st.fixed_dictionaries({}, optional={
    "index": st.booleans(), "header": st.booleans(), "sep": st.sampled_from([",", "\t", ";", "|", "."]),
    "na_rep": st.sampled_from(["", "NA", "a,b", '"']), "lineterminator": st.sampled_from(["\n", "\r\n", "X"]),
})  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(frame_st(dtypes=COVERED, min_cols=1, max_cols=5), OPTIONS)
def test_random_frames_match_pandas(frame, options):
    same_csv(frame, **options)


TRICKY = ["a,b", 'say "hi"', "line\nbreak", "cr\rhere", "", "tab\there", "üñí😀", "X marks", ".dot", None]


@pytest.mark.parametrize("sep", [",", "\t", "X", "."])
@pytest.mark.parametrize("lineterminator", ["\n", "\r\n", "X"])
def test_quoting_of_strings(sep, lineterminator):
    frame = pd.DataFrame({"s": TRICKY, "n": np.arange(len(TRICKY), dtype=np.float64) / 4})
    same_csv(frame, sep=sep, lineterminator=lineterminator)
    same_csv(frame, sep=sep, lineterminator=lineterminator, na_rep="N,A", index=False)


def test_one_field_rows_write_empty_as_quotes():
    frame = pd.DataFrame({"s": ["", "x", None]})
    same_csv(frame, index=False)
    same_csv(frame, index=False, na_rep="NA")
    same_csv(pd.DataFrame({"": [1, 2]}), index=False)
    same_csv(pd.DataFrame({"f": [np.nan, 1.0]}), index=False)


def test_empty_and_one_row():
    same_csv(pd.DataFrame(), fallback=True)  # no columns: pandas' writer
    same_csv(pd.DataFrame(index=[1, 2]), fallback=True)
    same_csv(pd.DataFrame({"a": pd.Series([], dtype="float64"), "b": pd.Series([], dtype="str")}))
    same_csv(pd.DataFrame({"a": [1.5], "b": ["x"]}))
    same_csv(pd.DataFrame({"a": [1.5], "b": ["x"]}), header=False, index=False)


def test_index_kinds_and_labels():
    frame = pd.DataFrame({"a": [1.5, 2.5, np.nan]}, index=pd.Index(["x", "y,z", None], name="key"))
    same_csv(frame)
    same_csv(frame, index_label="L")
    same_csv(frame, header=["A"])
    same_csv(pd.DataFrame({"a": [1, 2]}, index=pd.Index([0.5, 1e20])))
    same_csv(pd.DataFrame({"a": [1, 2]}, index=pd.RangeIndex(10, 30, 10, name="r")))
    multi = pd.DataFrame({"v": [1.0, 2.0]}, index=pd.MultiIndex.from_arrays([["a", "b"], [1, 2]], names=["k", None]))
    same_csv(multi)
    same_csv(pd.DataFrame({1: [1], 2.5: [2]}))  # float column labels: written as pandas formats them


def test_dtypes_and_missing_values():
    frame = pd.DataFrame({
        "f": [1.5, np.nan, 1e-5, 1e16, -0.0, np.inf], "f32": np.array([0.1, np.nan, 1e6, 1e-4, 2.5, -np.inf], np.float32),
        "i": pd.array([1, None, 3, 4, 5, 6], dtype="Int64"), "b": [True, False, True, True, False, False],
        "nb": pd.array([True, None, False, True, None, False], dtype="boolean"),
        "F": pd.array([1.25, None, 3.0, 4.0, 5.0, 6.0], dtype="Float64"),
        "t": pd.to_datetime(["2020-01-01", None, "2021-02-03 04:05:06.5", "2020-01-01", "2020-01-01", "1999-12-31"], format="mixed"),
        "d": pd.to_datetime(["2020-01-01", None, "2021-02-03", "2020-01-01", "2020-01-01", "1999-12-31"], format="mixed"),
        "c": pd.Categorical(["a", None, "b,c", "a", "a", "b,c"]), "s": ["x", None, "", "é", "中文", "q"],
    })  # fmt: skip
    same_csv(frame)
    same_csv(frame, na_rep="NA", sep="\t")
    same_csv(frame["f"])
    same_csv(frame["s"].rename(None), header=False)


def test_targets(tmp_path):
    source = pd.DataFrame({"a": [1.5, None], "b": ["x", "y"]})
    frame = rt.DataFrame(source)
    path = tmp_path / "out.csv"
    assert frame.to_csv(path) is None
    assert path.read_bytes() == source.to_csv().encode()
    text, binary = io.StringIO(), io.BytesIO()
    frame.to_csv(text)
    frame.to_csv(binary)
    assert text.getvalue() == source.to_csv() and binary.getvalue() == source.to_csv().encode()
    gz = tmp_path / "out.csv.gz"
    frame.to_csv(gz)
    assert pd.read_csv(gz).equals(pd.read_csv(io.StringIO(source.to_csv())))


@pytest.mark.parametrize("options", [dict(float_format="%.2f"), dict(decimal=","), dict(quoting=1),
                                     dict(date_format="%Y"), dict(encoding="latin-1")])  # fmt: skip
def test_uncovered_options_fall_back(options, tmp_path):
    source = pd.DataFrame({"a": [1.5, None], "t": pd.to_datetime(["2020-01-01", None])})
    if "encoding" in options:
        rt_path, pd_path = tmp_path / "r.csv", tmp_path / "p.csv"
        with mock.patch("riptide.io.csv.warn_host_fallback") as warn:
            rt.DataFrame(source).to_csv(rt_path, **options)
        assert warn.called
        source.to_csv(pd_path, **options)
        assert rt_path.read_bytes() == pd_path.read_bytes()
    else:
        same_csv(source, fallback=True, **options)


def test_nanosecond_datetimes_on_the_device():
    same_csv(pd.DataFrame({"t": pd.to_datetime(["2020-01-01 00:00:00.000000001", None]).astype("datetime64[ns]")}))


def test_timedelta_falls_back():
    same_csv(pd.DataFrame({"d": pd.to_timedelta([1, 2], unit="s")}), fallback=True)


def test_g1_like_table():
    rng = np.random.default_rng(0)
    n = 20_000
    frame = pd.DataFrame({
        "id1": rng.choice([f"id{i:03d}" for i in range(1, 101)], n), "id3": rng.choice([f"id{i:010d}" for i in range(1, 201)], n),
        "id4": rng.integers(1, 101, n), "v1": rng.integers(1, 6, n), "v3": np.round(rng.random(n) * 100, 6),
    })  # fmt: skip
    same_csv(frame, index=False)


def test_row_blocks(monkeypatch):
    from riptide.io import csv_write_device

    monkeypatch.setattr(csv_write_device, "_ROW_BLOCK", 7)
    frame = pd.DataFrame({"a": np.arange(30) / 3, "s": [f"s{i}" if i % 4 else None for i in range(30)]})
    same_csv(frame)
