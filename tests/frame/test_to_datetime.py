"""``rt.to_datetime`` vs ``pandas.to_datetime``: ISO 8601 strings in every layout the device parses (dates
1677..2262 and beyond, fractions of 1..9 digits, missing values, NaT spellings, irregular and invalid rows with
errors="raise"/"coerce"), integer and float epochs with ``unit=``, host fallbacks, lists and scalars."""

from __future__ import annotations

import re
import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from conftest import assert_index_equal, assert_series_equal
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from riptide.frame import to_datetime as module

LAYOUTS = [
    "date",
    "T-minute",
    " -minute",
    "T-second",
    " -second",
    "T-fraction",
    " -fraction",
]
# Rows pandas rejects or tolerates in unusual spellings: each one goes down the host path for irregular rows.
ODD_ROWS = ["2020-13-01", "2020-02-30", "2019-02-29", "abc", "NaT", "", "nan", "2020-1-2", " 2020-01-02",
            "2020-01-02 ", "None", "2020-01-02 25:00", "2021-06-07T08:09:60"]  # fmt: skip


def _text(rng: np.random.Generator, layout: str, lo: int, hi: int) -> str:
    seconds = int(rng.integers(lo, hi))
    stamp = pd.Timestamp(seconds, unit="s")
    date = f"{stamp.year:04d}-{stamp.month:02d}-{stamp.day:02d}"  # strftime does not pad years before 1000
    if layout == "date":
        return date
    sep, last = layout.split("-")
    text = f"{date}{sep}{stamp.hour:02d}:{stamp.minute:02d}"
    if last in ("second", "fraction"):
        text += f":{stamp.second:02d}"
    if last == "fraction":
        digits = int(rng.integers(1, 10))
        text += "." + "".join(str(d) for d in rng.integers(0, 10, digits))
    return text


def _compare(rt_fn, pd_fn, index: bool = False) -> None:
    """Both raise the same type with the same key words, or give equal results (values, dtype, index, name)."""
    try:
        expected = pd_fn()
    except Exception as error:  # noqa: BLE001 - the oracle's error is the expectation
        with pytest.raises(type(error)) as caught:
            rt_fn()
        key = re.findall(r'"[^"]*"|month|day|second|Out of bounds', str(error))[:1]
        for word in key:
            assert word in str(caught.value)
        return
    got = rt_fn()
    if index:
        assert_index_equal(got, expected)
    else:
        assert_series_equal(got, expected)


def _check_strings(values: list, errors: str = "raise", **kwargs) -> None:
    source = pd.Series(
        values, dtype="str", name="when", index=pd.RangeIndex(len(values)) * 2
    )
    rt_source = rt.from_pandas(source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _compare(lambda: rt.to_datetime(rt_source, errors=errors, **kwargs),
                 lambda: pd.to_datetime(source, errors=errors, **kwargs))  # fmt: skip


# 1677-09-22 .. 2262-04-10 in seconds (inside the ns range) and 0001 .. 9999 (the us range of ISO text).
NS_RANGE = (-9_223_286_400, 9_223_286_400)
WIDE_RANGE = (-62_135_596_800, 253_402_300_799)


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), layout=st.sampled_from(LAYOUTS), n=st.integers(1, 60),
       null_frac=st.sampled_from([0.0, 0.2, 1.0]), wide=st.booleans())  # fmt: skip
def test_valid_iso_strings(seed, layout, n, null_frac, wide):
    rng = np.random.default_rng(seed)
    lo, hi = WIDE_RANGE if wide else NS_RANGE
    values = [
        None if rng.random() < null_frac else _text(rng, layout, lo, hi)
        for _ in range(n)
    ]
    _check_strings(values)
    if not wide:  # inside the ns range every row is regular: pandas is never called
        source = pd.Series(values, dtype="str")
        expected = pd.to_datetime(source)
        rt_source = rt.from_pandas(source)
        with mock.patch.object(
            pd, "to_datetime", side_effect=AssertionError("host parse")
        ):
            got = rt.to_datetime(rt_source)
        assert_series_equal(got, expected)


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), layout=st.sampled_from(LAYOUTS), n=st.integers(1, 30),
       errors=st.sampled_from(["raise", "coerce"]), odd=st.sampled_from(ODD_ROWS), where=st.integers(0, 29))  # fmt: skip
def test_irregular_and_invalid_rows(seed, layout, n, errors, odd, where):
    rng = np.random.default_rng(seed)
    values = [_text(rng, layout, *NS_RANGE) for _ in range(n)]
    values.insert(min(where, n), odd)
    _check_strings(values, errors=errors)


@pytest.mark.parametrize(
    "values",
    [
        [],
        [None],
        [None, None],
        ["2020-01-02"],
        ["2020-01-02T03:04:05.123456789"],
        ["2020-01-02T03:04:05.1234567", "2020-01-02T03:04:05.1"],
        ["2020-01-02T03:04:05.1230000"],
        ["2020-01-02", "2020-01-02 03:04"],  # mixed layouts: pandas raises
        ["2020-01-02T03:04", "2020-01-02 03:04"],
        ["2020-01-02T03:04:05", "2020-01-02T03:04:05.5"],
        ["NaT", "2020-01-02 03:04"],
        ["", None, "nan", "2020-01-02"],
        ["NaT", "nan"],
        ["1500-01-02T03:04:05.1234567"],  # out of the ns range: pandas raises
        ["2020-01-02T03:04:05.1234567", "1500-01-02"],
        ["0000-01-02", "9999-12-31"],
        ["2000-02-29", "1900-02-29"],
        ["2020-01-02T03:04:05.1234567891"],  # ten digits: pandas truncates, on the host
        ["02/01/2020"],  # not ISO: host fallback
        ["2020-01-02Z"],
    ],
)
@pytest.mark.parametrize("errors", ["raise", "coerce"])
def test_edge_strings(values, errors):
    _check_strings(values, errors=errors)


def test_device_path_needs_no_host_parse(monkeypatch):
    """Regular rows never call pandas: the device parser alone gives pandas' values."""
    source = pd.Series(
        ["2020-01-02 03:04:05.25", None, "1999-12-31 23:59:59.5"], dtype="str"
    )
    expected = pd.to_datetime(source)

    def forbidden(*args, **kwargs):
        raise AssertionError("pandas.to_datetime called")

    rt_source = rt.from_pandas(source)
    monkeypatch.setattr(module.pd, "to_datetime", forbidden)
    assert_series_equal(rt.to_datetime(rt_source), expected)


@pytest.mark.parametrize(
    "fmt", ["%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S.%f"]
)
@pytest.mark.parametrize("errors", ["raise", "coerce"])
def test_iso_format_argument(fmt, errors):
    values = ["2020-01-02", "2020-01-02 03:04:05", "2020-01-02T03:04:05.5", None]
    for value in values:
        _check_strings([value, "2021-05-06"], errors=errors, format=fmt)


def test_other_format_falls_back_with_one_warning():
    # week-number directives are not parsed on the device: pandas parses them, with one warning
    source = pd.Series(["2020 05 1", "1999 51 3"], dtype="str")
    module._WARNED.clear()
    with pytest.warns(UserWarning, match="format="):
        got = rt.to_datetime(rt.from_pandas(source), format="%Y %U %w")
    assert_series_equal(got, pd.to_datetime(source, format="%Y %U %w"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rt.to_datetime(rt.from_pandas(source), format="%Y %U %w")  # warned once already


def test_day_first_format_is_parsed_on_the_device_without_a_warning():
    source = pd.Series(["02/01/2020", "31/12/1999", None], dtype="str")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = rt.to_datetime(rt.from_pandas(source), format="%d/%m/%Y")
    assert_series_equal(got, pd.to_datetime(source, format="%d/%m/%Y"))


@pytest.mark.parametrize(
    "kwargs", [{"dayfirst": True}, {"utc": False, "yearfirst": True}]
)
def test_dayfirst_yearfirst_fall_back(kwargs):
    _check_strings(["2020-01-02", "2021-03-04"], **kwargs)


@settings(max_examples=50)
@given(seed=st.integers(0, 2**32 - 1), unit=st.sampled_from(["D", "h", "m", "s", "ms", "us", "ns", None]),
       dtype=st.sampled_from(["int64", "int32", "uint16", "uint64", "Int64", "float64", "float32", "Float64"]),
       n=st.integers(0, 40), errors=st.sampled_from(["raise", "coerce"]), big=st.booleans())  # fmt: skip
def test_numeric_epochs(seed, unit, dtype, n, errors, big):
    rng = np.random.default_rng(seed)
    scale = 10 ** int(rng.integers(0, 19 if big else 9))
    if dtype.startswith(("float", "Float")):
        values = rng.uniform(-1, 1, n) * scale
        values[rng.random(n) < 0.1] = np.nan
        if dtype == "float32":
            values = values.astype(np.float32)
    else:
        info = np.iinfo(dtype.lower())
        values = rng.integers(
            max(info.min, -scale),
            min(info.max, scale),
            n,
            dtype=dtype.lower(),
            endpoint=True,
        )
    source = pd.Series(values, dtype=dtype, name="t")
    if dtype in ("Int64", "Float64") and n:
        source[rng.random(n) < 0.2] = pd.NA
    rt_source = rt.from_pandas(source)
    kwargs = {} if unit is None else {"unit": unit}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _compare(lambda: rt.to_datetime(rt_source, errors=errors, **kwargs),
                 lambda: pd.to_datetime(source, errors=errors, **kwargs))  # fmt: skip
    if not big and unit not in (
        "D",
        "h",
        "m",
    ):  # epochs well inside the range never reach pandas
        expected = pd.to_datetime(source, errors=errors, **kwargs)
        with mock.patch.object(
            pd, "to_datetime", side_effect=AssertionError("host parse")
        ):
            got = rt.to_datetime(rt_source, errors=errors, **kwargs)
        assert_series_equal(got, expected)


@pytest.mark.parametrize(
    "values, kwargs",
    [
        ([np.iinfo(np.int64).min, 5], {"unit": "s"}),
        ([np.iinfo(np.int64).min + 1, 5], {"unit": "ns"}),
        ([2**62], {"unit": "s"}),
        ([2**62], {"unit": "s", "errors": "coerce"}),
        ([1.123456789123, -1.5, 1.1], {"unit": "s"}),
        ([1e10], {"unit": "s"}),
        ([np.inf], {"unit": "s"}),
        ([np.inf, 1.0], {"unit": "s", "errors": "coerce"}),
        ([True, False], {"unit": "s"}),
        ([1, 2], {"unit": "bogus"}),
    ],
)
def test_numeric_edges(values, kwargs):
    source = pd.Series(values)
    _compare(
        lambda: rt.to_datetime(rt.from_pandas(source), **kwargs),
        lambda: pd.to_datetime(source, **kwargs),
    )


def test_datetime_input_is_returned_unchanged():
    source = pd.Series(pd.to_datetime(["2020-01-01", None]).astype("M8[s]"), name="d")
    assert_series_equal(rt.to_datetime(rt.from_pandas(source)), pd.to_datetime(source))


def test_list_array_and_index_inputs_give_an_index():
    values = ["2020-01-02", None, "2021-03-04"]
    assert_index_equal(rt.to_datetime(values), pd.to_datetime(values))
    assert_index_equal(
        rt.to_datetime(np.array([1, 2])), pd.to_datetime(np.array([1, 2]))
    )
    index = pd.Index(["2020-01-02", "2021-03-04"], name="x")
    assert_index_equal(rt.to_datetime(index), pd.to_datetime(index))
    assert_index_equal(rt.to_datetime(rt.Index(index)), pd.to_datetime(index))


def test_pandas_series_input():
    source = pd.Series(["2020-01-02", "2021-03-04"], name="s")
    assert_series_equal(rt.to_datetime(source), pd.to_datetime(source))


@pytest.mark.parametrize(
    "value, kwargs", [("2020-01-02", {}), (5, {"unit": "s"}), (None, {}), ("abc", {})]
)
def test_scalars_as_pandas(value, kwargs):
    try:
        expected = pd.to_datetime(value, **kwargs)
    except Exception as error:  # noqa: BLE001
        with pytest.raises(type(error)):
            rt.to_datetime(value, **kwargs)
        return
    got = rt.to_datetime(value, **kwargs)
    assert (got is None and expected is None) or got is expected or got == expected


def test_bad_errors_argument():
    with pytest.raises(ValueError, match="errors"):
        rt.to_datetime(rt.Series(["2020-01-02"]), errors="ignore")


def test_top_level_export():
    assert rt.to_datetime is module.to_datetime
    assert "to_datetime" in rt.__all__
