"""duplicated / drop_duplicates / unique / value_counts against pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import ALL_DTYPES, assert_frame_equal, assert_series_equal, make_values

KEEPS = ["first", "last", False]


def _series(seed: int, dtype: str, n: int, null_frac: float) -> pd.Series:
    return make_values(np.random.default_rng(seed), dtype, n, null_frac=null_frac, small=True).rename("x")


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from(ALL_DTYPES), n=st.sampled_from([0, 1, 5, 60]),
       null_frac=st.sampled_from([0.0, 0.3, 1.0]))  # fmt: skip
def test_series_sets_match_pandas(seed, dtype, n, null_frac):
    s = _series(seed, dtype, n, null_frac)
    r = rt.Series(s)
    for keep in KEEPS:
        assert_series_equal(r.duplicated(keep=keep), s.duplicated(keep=keep))
        assert_series_equal(r.drop_duplicates(keep=keep), s.drop_duplicates(keep=keep))
    got = r.unique()
    got = got.get() if hasattr(got, "get") else got
    expected = s.unique()
    if isinstance(expected, np.ndarray):
        np.testing.assert_array_equal(np.asarray(got), expected)
    else:
        pd.testing.assert_extension_array_equal(got, expected)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from(ALL_DTYPES), n=st.sampled_from([0, 1, 5, 60]),
       null_frac=st.sampled_from([0.0, 0.3]), normalize=st.booleans(), sort=st.booleans(), ascending=st.booleans(),
       dropna=st.booleans())  # fmt: skip
def test_value_counts_matches_pandas(seed, dtype, n, null_frac, normalize, sort, ascending, dropna):
    s = _series(seed, dtype, n, null_frac)
    kwargs = dict(normalize=normalize, sort=sort, ascending=ascending, dropna=dropna)
    assert_series_equal(rt.Series(s).value_counts(**kwargs), s.value_counts(**kwargs))


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dtypes=st.lists(st.sampled_from(ALL_DTYPES), min_size=1, max_size=3),
       n=st.sampled_from([0, 1, 8, 60]), keep=st.sampled_from(KEEPS), ignore_index=st.booleans())  # fmt: skip
def test_frame_duplicates_match_pandas(seed, dtypes, n, keep, ignore_index):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"c{i}": make_values(rng, d, n, null_frac=0.2, small=True) for i, d in enumerate(dtypes)})
    r = rt.DataFrame(df)
    assert_series_equal(r.duplicated(keep=keep), df.duplicated(keep=keep))
    assert_frame_equal(r.drop_duplicates(keep=keep, ignore_index=ignore_index),
                       df.drop_duplicates(keep=keep, ignore_index=ignore_index))  # fmt: skip
    assert_series_equal(r.duplicated(subset=["c0"], keep=keep), df.duplicated(subset=["c0"], keep=keep))
    assert_series_equal(r.duplicated(subset="c0"), df.duplicated(subset="c0"))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([1, 8, 60]), normalize=st.booleans(), sort=st.booleans(),
       dropna=st.booleans())  # fmt: skip
def test_frame_value_counts_matches_pandas(seed, n, normalize, sort, dropna):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": make_values(rng, "int64", n, small=True), "b": make_values(rng, "str", n, 0.2, small=True)})
    kwargs = dict(normalize=normalize, sort=sort, dropna=dropna)
    assert_series_equal(rt.DataFrame(df).value_counts(**kwargs), df.value_counts(**kwargs))
    assert_series_equal(rt.DataFrame(df).value_counts(subset=["b"], **kwargs), df.value_counts(subset=["b"], **kwargs))


def test_nan_and_null_are_each_one_value():
    s = pd.Series([1.0, np.nan, np.nan, -0.0, 0.0])
    assert_series_equal(rt.Series(s).duplicated(), s.duplicated())
    m = pd.Series([1, None, None], dtype="Int64")
    assert_series_equal(rt.Series(m).value_counts(dropna=False), m.value_counts(dropna=False))


def test_unicode_values():
    s = pd.Series(["é", "e", "é", "中文", "😀", "😀"], dtype="str")
    assert_series_equal(rt.Series(s).value_counts(), s.value_counts())
    assert_series_equal(rt.Series(s).drop_duplicates(), s.drop_duplicates())


def test_inplace_and_empty_frame():
    df = pd.DataFrame({"a": [1, 1, 2]})
    r = rt.DataFrame(df)
    assert r.drop_duplicates(inplace=True) is None
    assert_frame_equal(r, df.drop_duplicates())
    assert_frame_equal(rt.DataFrame().drop_duplicates(), pd.DataFrame().drop_duplicates())


@pytest.mark.parametrize("keep", ["middle", None, True])
def test_bad_keep_raises(keep):
    with pytest.raises(ValueError, match="keep must be either"):
        pd.Series([1, 1]).duplicated(keep=keep)
    with pytest.raises(ValueError, match="keep must be either"):
        rt.Series([1, 1]).duplicated(keep=keep)


def test_missing_subset_column_raises_key_error():
    with pytest.raises(KeyError):
        pd.DataFrame({"a": [1]}).drop_duplicates(subset=["zz"])
    with pytest.raises(KeyError, match="zz"):
        rt.DataFrame({"a": [1]}).drop_duplicates(subset=["zz"])


@pytest.mark.parametrize("subset", ["b", ["b"], "s", ["b", "s"]])
def test_frame_value_counts_of_one_label_has_a_flat_index(subset):
    frame = pd.DataFrame({"b": [1, 1, 2, 2, 2], "s": pd.Series(["x", None, "x", "é", "é"], dtype="str")})
    for kwargs in ({}, {"dropna": False, "normalize": True}):
        assert_series_equal(rt.from_pandas(frame).value_counts(subset=subset, **kwargs),
                            frame.value_counts(subset=subset, **kwargs))  # fmt: skip


def test_value_counts_with_bins_has_an_unnamed_index():
    s = pd.Series([1.0, 2.0, 2.5, np.nan, 10.0], name="v")
    got = rt.from_pandas(s).value_counts(bins=3).to_pandas()
    expected = s.value_counts(bins=3)
    assert got.index.name is None and expected.index.name is None
    assert got.tolist() == expected.tolist() and got.index.astype(str).tolist() == expected.index.astype(str).tolist()
