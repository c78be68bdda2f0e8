"""pivot, pivot_table and crosstab against pandas: random long-format frames, every option combination that
riptide supports, and pandas' errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riptide as rt
from tests.conftest import assert_frame_equal, assert_series_equal, check_same_outcome, documented, stable_id


def compare(got, expected) -> None:
    if isinstance(expected, pd.DataFrame):
        assert_frame_equal(got, documented(expected), check_exact=False, rtol=1e-9)
    elif isinstance(expected, pd.Series):
        assert_series_equal(got, documented(expected), check_exact=False, rtol=1e-9)
    else:
        assert got == expected


def long_frame(seed: int, n: int = 40, nulls: bool = False) -> pd.DataFrame:
    """Long-format data: string keys a/b (few values), an int key c, float and int values."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "a": pd.array(rng.choice(["p", "q", "r"], n), dtype="str"),
        "b": pd.array(rng.choice(["x", "y", "z", "w"], n), dtype="str"),
        "c": rng.integers(0, 3, n),
        "v": rng.integers(-20, 20, n) / 4,
        "w": rng.integers(0, 10, n),
    })  # fmt: skip
    if nulls:
        frame.loc[rng.random(n) < 0.15, "v"] = np.nan
        frame.loc[rng.random(n) < 0.1, "b"] = None
    return frame


FRAME = long_frame(0)


# --------------------------------------------------------------------------- pivot


@pytest.mark.parametrize("kwargs", [
    dict(index="a", columns="b", values="v"), dict(index="a", columns="b"), dict(index="a", columns="b", values=["v"]),
    dict(index=["a", "c"], columns="b", values="v"), dict(index="v", columns=["a", "b"], values="w"),
    dict(index="c", columns="b", values=["v", "w"]),
])  # fmt: skip
def test_pivot_unique_pairs(kwargs):
    keys = [kwargs[k] if isinstance(kwargs[k], list) else [kwargs[k]] for k in ("index", "columns")]
    unique = FRAME.drop_duplicates(keys[0] + keys[1])
    r = rt.from_pandas(unique)
    compare(r.pivot(**kwargs), unique.pivot(**kwargs))
    compare(rt.pivot(r, **kwargs), pd.pivot(unique, **kwargs))


def test_pivot_on_existing_index():
    unique = FRAME.drop_duplicates(["a", "b"]).set_index("a")
    compare(rt.from_pandas(unique).pivot(columns="b", values="v"), unique.pivot(columns="b", values="v"))
    compare(rt.from_pandas(unique).pivot(columns="b"), unique.pivot(columns="b"))


def test_pivot_doc_example_shape():
    df = pd.DataFrame({"day": [1, 1, 2], "city": ["x", "y", "x"], "t": [10.0, 20.0, 30.0]})
    compare(rt.from_pandas(df).pivot(index="day", columns="city", values="t"),
            df.pivot(index="day", columns="city", values="t"))  # fmt: skip


@pytest.mark.parametrize("call", [
    lambda m, d: d.pivot(index="a", columns="b", values="v"),  # duplicate entries
    lambda m, d: d.pivot(index="a", columns="nope", values="v"),
    lambda m, d: d.pivot(index="a", values="v"),
    lambda m, d: m.pivot(d, index="a", columns="b", values="zz"),
])  # fmt: skip
def test_pivot_errors(call):
    check_same_outcome(lambda: call(rt, rt.from_pandas(FRAME)), lambda: call(pd, FRAME), compare)


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1), st.integers(0, 60))
def test_pivot_random(seed, n):
    frame = long_frame(seed, n, nulls=True).drop_duplicates(["a", "b"])
    compare(rt.from_pandas(frame).pivot(index="a", columns="b", values="v"),
            frame.pivot(index="a", columns="b", values="v"))  # fmt: skip


# --------------------------------------------------------------------------- pivot_table


PIVOT_TABLE_CASES = [
    dict(values="v", index="a", columns="b"),
    dict(values="v", index=["a", "c"], columns="b"),
    dict(values="v", index="a", columns=["b", "c"]),
    dict(values=["v", "w"], index="a", columns="b"),
    dict(index="a", columns="b"),
    dict(values="w", index="a", columns="b", aggfunc="sum", fill_value=0),
    dict(values="w", index="a", columns="b", aggfunc="count"),
    dict(values="w", index="a", columns="b", aggfunc=len),
    dict(values="v", index="a", columns="b", aggfunc=["sum", "mean"]),
    dict(values="v", index="a", aggfunc="sum"),
    dict(values=["v", "w"], index=["a", "b"], aggfunc="max"),
    dict(values="v", columns="b", aggfunc="sum"),
    dict(values="v", index="a", columns="b", aggfunc={"v": "max"}),
    dict(values="v", index="a", columns="b", sort=False),
    dict(values="v", index="a", columns="b", margins=True),
    dict(values="w", index="a", columns="b", aggfunc="sum", margins=True),
    dict(values=["v", "w"], index="a", columns="b", margins=True, aggfunc="sum"),
    dict(values="w", index="a", columns="b", aggfunc="sum", margins=True, margins_name="Total"),
    dict(values="v", index="a", columns="b", dropna=False),
    dict(values="v", index="b", columns="a", dropna=False),  # a missing row key: its row comes last, as in pandas
    dict(values="w", index="b", columns="a", aggfunc="sum", dropna=False, margins=True),
    dict(values="v", index="a", columns="b", aggfunc="median"),
    dict(values="w", index="a", columns="b", aggfunc=np.sum),
    dict(values="v", index="a", columns="b", aggfunc="std"),
]


@pytest.mark.parametrize("kwargs", PIVOT_TABLE_CASES, ids=stable_id)
@pytest.mark.parametrize("nulls", [False, True])
def test_pivot_table(kwargs, nulls):
    frame = long_frame(1, 50, nulls)[["a", "b", "c", "v", "w"]]
    check_same_outcome(lambda: rt.pivot_table(rt.from_pandas(frame), **kwargs),
                       lambda: pd.pivot_table(frame, **kwargs), compare)  # fmt: skip
    check_same_outcome(lambda: rt.from_pandas(frame).pivot_table(**kwargs), lambda: frame.pivot_table(**kwargs),
                       compare)  # fmt: skip


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1), st.integers(1, 80), st.sampled_from(["mean", "sum", "min", "max", "count"]),
       st.booleans())  # fmt: skip
def test_pivot_table_random(seed, n, aggfunc, nulls):
    frame = long_frame(seed, n, nulls)
    kwargs = dict(values="v", index="a", columns="b", aggfunc=aggfunc)
    compare(rt.pivot_table(rt.from_pandas(frame), **kwargs), pd.pivot_table(frame, **kwargs))


def test_pivot_table_errors():
    r = rt.from_pandas(FRAME)
    with pytest.raises(KeyError):
        rt.pivot_table(r, values="zz", index="a", columns="b")
    with pytest.raises(KeyError):
        pd.pivot_table(FRAME, values="zz", index="a", columns="b")
    with pytest.raises(ValueError, match="Conflicting name"):
        rt.pivot_table(r, values="v", index="a", columns="b", margins=True, margins_name="p")
    with pytest.raises(ValueError, match="Conflicting name"):
        pd.pivot_table(FRAME, values="v", index="a", columns="b", margins=True, margins_name="p")


def test_pivot_table_margins_on_int_labels_refused():
    # pandas puts "All" among int labels: an object index, which riptide does not have.
    with pytest.raises(TypeError, match="object"):
        rt.pivot_table(rt.from_pandas(FRAME), values="v", index="c", columns="b", margins=True)


# --------------------------------------------------------------------------- crosstab


CROSSTAB_CASES = [
    lambda m, d: m.crosstab(d["a"], d["b"]),
    lambda m, d: m.crosstab(d["a"], [d["b"], d["c"]]),
    lambda m, d: m.crosstab([d["a"], d["c"]], d["b"]),
    lambda m, d: m.crosstab(d["a"], d["b"], values=d["v"], aggfunc="sum"),
    lambda m, d: m.crosstab(d["a"], d["b"], values=d["v"], aggfunc="mean"),
    lambda m, d: m.crosstab(d["a"], d["b"], normalize=True),
    lambda m, d: m.crosstab(d["a"], d["b"], normalize="index"),
    lambda m, d: m.crosstab(d["a"], d["b"], normalize="columns"),
    lambda m, d: m.crosstab(d["a"], d["b"], normalize=1),
    lambda m, d: m.crosstab(d["a"], d["b"], margins=True),
    lambda m, d: m.crosstab(d["a"], d["b"], rownames=["r"], colnames=["c"]),
    lambda m, d: m.crosstab(d["a"].to_numpy(), d["b"].to_numpy()),
    lambda m, d: m.crosstab(d["a"], d["b"], aggfunc="sum"),
    lambda m, d: m.crosstab(d["a"], d["b"], values=d["v"]),
    lambda m, d: m.crosstab(d["a"], d["b"], normalize="bad"),
    lambda m, d: m.crosstab(d["a"], d["b"], normalize=True, margins=True),
    lambda m, d: m.crosstab(d["a"], d["b"], normalize="index", margins=True),
    lambda m, d: m.crosstab(d["a"], d["b"], normalize="columns", margins=True, margins_name="T"),
    lambda m, d: m.crosstab(d["a"], d["b"], values=d["v"], aggfunc="sum", normalize="index"),
    lambda m, d: m.crosstab(d["a"], d["b"], values=d["v"], aggfunc="sum", normalize="all", margins=True),
    lambda m, d: m.crosstab(d["b"], d["a"], dropna=False),
    lambda m, d: m.crosstab(d["b"], d["a"], dropna=False, normalize=0, margins=True),
]


@pytest.mark.parametrize("call", CROSSTAB_CASES)
@pytest.mark.parametrize("nulls", [False, True])
def test_crosstab(call, nulls):
    frame = long_frame(2, 50, nulls)
    check_same_outcome(lambda: call(rt, rt.from_pandas(frame)), lambda: call(pd, frame), compare)


def test_crosstab_doc_example():
    a, b = pd.Series(["x", "x", "y"], name="a"), pd.Series([1, 2, 1], name="b")
    compare(rt.crosstab(rt.from_pandas(a), rt.from_pandas(b)), pd.crosstab(a, b))
