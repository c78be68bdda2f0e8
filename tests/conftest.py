"""Shared helpers for the differential tests: pandas is the oracle.

* ``assert_series_equal`` / ``assert_frame_equal`` / ``assert_index_equal`` turn a riptide
  result into pandas (``.to_pandas()``) and compare it with pandas' result through
  ``pandas.testing`` with ``check_dtype=True``: dtypes must match pandas exactly.
* ``assert_scalar_equal`` compares reduction results: value (floats to rtol 1e-9), missing-ness
  and the type family (``np.int64`` vs ``np.float64``, ``pd.Timestamp``, ``pd.NA``, ...).
* ``series_st`` / ``frame_st`` are hypothesis strategies of random *pandas* objects over every
  dtype riptide supports (nulls included); a test builds the riptide twin with ``rt.from_pandas``.
  Values are drawn from a NumPy generator seeded by hypothesis, so 1000-row inputs stay cheap.
* ``@pytest.mark.gpu`` tests are skipped unless riptide runs on a GPU.
"""

from __future__ import annotations

import math
import re
import string as _string
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import riptide as rt
from riptide import _device

# --------------------------------------------------------------------------- hypothesis profile

settings.register_profile(
    "riptide",
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    derandomize=False,
    print_blob=True,
)
settings.load_profile("riptide")

# --------------------------------------------------------------------------- gpu marker



def stable_id(value: Any) -> str:
    """A parametrize id from ``repr`` without object addresses (``<function <lambda> at 0x...>``), so that every
    pytest-xdist worker collects the same test names."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))

def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (skipped without one)")


def _short_failure(excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
    return f"{excinfo.typename}: {excinfo.value}"[:2000]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # An expected failure (a known riptide bug, xfail strict) is reported in one line: pytest's full traceback
    # rendering through pandas costs ~0.1 s per test, which hundreds of xfail cases turn into minutes.
    # `pytest --runxfail` shows the full tracebacks.
    if not config.option.runxfail:
        for item in items:
            if item.get_closest_marker("xfail") is not None:
                item.repr_failure = _short_failure  # type: ignore[method-assign]
    if _device.is_gpu():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU: riptide runs on the CPU (NumPy) here")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


# --------------------------------------------------------------------------- dtypes

INT_DTYPES = ["int8", "int16", "int32", "int64"]
UINT_DTYPES = ["uint8", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float32", "float64"]
NUMPY_NUMERIC_DTYPES = INT_DTYPES + UINT_DTYPES + FLOAT_DTYPES
TEMPORAL_DTYPES = ["datetime64[ns]", "timedelta64[ns]"]
MASKED_DTYPES = ["Int64", "Float64", "boolean"]
ALL_DTYPES = NUMPY_NUMERIC_DTYPES + ["bool"] + TEMPORAL_DTYPES + MASKED_DTYPES + ["str", "category"]
#: dtypes whose values are numbers (numpy or masked), bool excluded
NUMERIC_DTYPES = NUMPY_NUMERIC_DTYPES + ["Int64", "Float64"]

#: a few characters that are more than one UTF-8 byte, plus ASCII
_ALPHABET = list(_string.ascii_letters + _string.digits + " ") + ["é", "ß", "ü", "Ω", "中", "文", "😀", "🚀", "\u00a0"]


def pandas_dtype(name: str) -> Any:
    """The pandas dtype object for one of the names in ``ALL_DTYPES``."""
    if name == "str":
        return pd.StringDtype(na_value=np.nan)
    if name == "category":
        return pd.CategoricalDtype()
    return pd.api.types.pandas_dtype(name)


def make_values(rng: np.random.Generator, dtype: str, n: int, null_frac: float = 0.0, small: bool = False) -> pd.Series:
    """``n`` random values of ``dtype`` with about ``null_frac`` of them missing (a pandas Series)."""
    missing = rng.random(n) < null_frac if null_frac > 0 else np.zeros(n, dtype=bool)
    if dtype in INT_DTYPES + UINT_DTYPES:
        info = np.iinfo(dtype)
        if small:
            lo, hi = max(info.min, -20), min(info.max, 20)
        else:
            lo, hi = int(info.min), int(info.max)
        values = rng.integers(lo, hi, size=n, dtype=dtype, endpoint=True)
        if n and not small and rng.random() < 0.5:  # extremes show up often enough to matter
            values[rng.integers(0, n)] = info.min
            values[rng.integers(0, n)] = info.max
        s = pd.Series(values, dtype=dtype)
        if missing.any():  # numpy ints cannot hold a missing value: pandas would give float64
            s = s.astype("float64")
            s[missing] = np.nan
        return s
    if dtype in FLOAT_DTYPES:
        if small:
            values = rng.integers(-20, 20, size=n).astype(dtype) / 4
        else:
            values = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 6, size=n)).astype(dtype)
            if n and rng.random() < 0.3:
                specials = np.array([np.inf, -np.inf, -0.0, 0.0], dtype=dtype)
                k = rng.integers(0, n, size=min(n, 3))
                values[k] = rng.choice(specials, size=len(k))
        values[missing] = np.nan
        return pd.Series(values, dtype=dtype)
    if dtype == "bool":
        return pd.Series(rng.random(n) < 0.5, dtype=bool)
    if dtype == "datetime64[ns]":
        base = np.datetime64("2000-01-01", "ns").astype(np.int64)
        step = 86_400 * 10**9 if small else 1
        ints = base + rng.integers(-10**4, 10**4, size=n) * step * (1 if small else 10**12)
        values = ints.view("datetime64[ns]").copy()
        values[missing] = np.datetime64("NaT")
        return pd.Series(values, dtype="datetime64[ns]")
    if dtype == "timedelta64[ns]":
        ints = rng.integers(-10**5, 10**5, size=n) * (3_600 * 10**9 if small else 10**9 + 7)
        values = ints.view("timedelta64[ns]").copy()
        values[missing] = np.timedelta64("NaT")
        return pd.Series(values, dtype="timedelta64[ns]")
    if dtype == "Int64":
        values = rng.integers(-20, 20, size=n) if small else rng.integers(-(2**40), 2**40, size=n)
        return pd.Series(pd.arrays.IntegerArray(values.astype(np.int64), missing.copy()))
    if dtype == "Float64":
        values = rng.integers(-20, 20, size=n) / 4 if small else rng.standard_normal(n) * 1e3
        return pd.Series(pd.arrays.FloatingArray(values.astype(np.float64), missing.copy()))
    if dtype == "boolean":
        return pd.Series(pd.arrays.BooleanArray(rng.random(n) < 0.5, missing.copy()))
    if dtype in ("str", "category"):
        pool_size = 8 if small else max(1, min(50, n))
        pool = [random_text(rng) for _ in range(pool_size)]
        values = np.array([pool[i] for i in rng.integers(0, pool_size, size=n)] if n else [], dtype=object)
        values[missing] = None
        s = pd.Series(values, dtype="str")
        return s.astype("category") if dtype == "category" else s
    raise ValueError(f"unknown dtype name {dtype!r}")


def random_text(rng: np.random.Generator) -> str:
    length = int(rng.choice([0, 1, 2, 3, 5, 8, 13]))
    return "".join(_ALPHABET[i] for i in rng.integers(0, len(_ALPHABET), size=length))


_SIZES = st.one_of(st.integers(0, 4), st.integers(0, 40), st.integers(0, 1000))
_NULL_FRACS = st.sampled_from([0.0, 0.0, 0.1, 0.5, 1.0])


@st.composite
def series_st(draw: Any, dtypes: list[str] | None = None, min_size: int = 0, max_size: int = 1000,
              nulls: bool = True, small: bool | None = None, index: str | None = None, name: bool = True) -> pd.Series:
    """A random pandas Series of one of ``dtypes`` (default: every supported dtype)."""
    dtype = draw(st.sampled_from(dtypes or ALL_DTYPES))
    n = draw(_SIZES.filter(lambda k: min_size <= k <= max_size) if (min_size, max_size) != (0, 1000) else _SIZES)
    null_frac = draw(_NULL_FRACS) if nulls else 0.0
    small = draw(st.booleans()) if small is None else small
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    s = make_values(rng, dtype, n, null_frac, small)
    s.index = draw(index_st(n, index))
    if name:
        s.name = draw(st.sampled_from([None, "x", "values"]))
    return s


def index_st(n: int, kind: str | None = None) -> st.SearchStrategy[pd.Index]:
    """An index of length ``n``: a RangeIndex, shuffled unique ints, or unique strings."""
    kinds = [kind] if kind is not None else ["range", "range", "int", "str"]

    @st.composite
    def build(draw: Any) -> pd.Index:
        chosen = draw(st.sampled_from(kinds))
        if chosen == "range":
            return pd.RangeIndex(n)
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        if chosen == "int":
            return pd.Index(rng.permutation(n * 2)[:n].astype(np.int64))
        return pd.Index([f"r{i}" for i in rng.permutation(n * 2)[:n]], dtype="str")

    return build()


@st.composite
def frame_st(draw: Any, dtypes: list[str] | None = None, min_cols: int = 0, max_cols: int = 6,
             max_size: int = 1000, nulls: bool = True, small: bool | None = None, index: str | None = None) -> pd.DataFrame:
    """A random pandas DataFrame with columns of ``dtypes`` (string labels, unique)."""
    n_cols = draw(st.integers(min_cols, max_cols))
    n = draw(_SIZES.filter(lambda k: k <= max_size))
    small = draw(st.booleans()) if small is None else small
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    columns = {}
    for i in range(n_cols):
        dtype = draw(st.sampled_from(dtypes or ALL_DTYPES))
        null_frac = draw(_NULL_FRACS) if nulls else 0.0
        columns[f"c{i}"] = make_values(rng, dtype, n, null_frac, small)
    frame = pd.DataFrame(columns, index=pd.RangeIndex(n))
    frame.index = draw(index_st(n, index))
    return frame


# --------------------------------------------------------------------------- comparisons


def to_pandas(obj: Any) -> Any:
    """A riptide object as pandas (``.to_pandas()``); anything else unchanged."""
    if isinstance(obj, rt.Series | rt.DataFrame | rt.Index):
        return obj.to_pandas()
    return obj


def assert_series_equal(rt_obj: Any, pd_obj: pd.Series, **kwargs: Any) -> None:
    """``rt_obj`` is a riptide Series equal to ``pd_obj``: values, dtype, index and name."""
    assert isinstance(rt_obj, rt.Series), f"expected a riptide Series, got {type(rt_obj).__name__}"
    kwargs.setdefault("check_dtype", True)
    pdt.assert_series_equal(rt_obj.to_pandas(), pd_obj, **kwargs)


def assert_frame_equal(rt_obj: Any, pd_obj: pd.DataFrame, **kwargs: Any) -> None:
    """``rt_obj`` is a riptide DataFrame equal to ``pd_obj``: values, dtypes, index and columns."""
    assert isinstance(rt_obj, rt.DataFrame), f"expected a riptide DataFrame, got {type(rt_obj).__name__}"
    kwargs.setdefault("check_dtype", True)
    pdt.assert_frame_equal(rt_obj.to_pandas(), pd_obj, **kwargs)


def assert_index_equal(rt_obj: Any, pd_obj: pd.Index, **kwargs: Any) -> None:
    assert isinstance(rt_obj, rt.Index), f"expected a riptide Index, got {type(rt_obj).__name__}"
    kwargs.setdefault("exact", True)
    pdt.assert_index_equal(rt_obj.to_pandas(), pd_obj, **kwargs)


def _documented_series(s: pd.Series, source_dtype: Any = None) -> pd.Series:
    if s.dtype != object:
        return s
    valid = s.dropna()
    if source_dtype == np.dtype(bool) or (len(valid) and all(isinstance(v, bool | np.bool_) for v in valid)):
        return s.astype("boolean")
    if len(valid) == 0:
        return s.astype("float64")
    return s


def documented(expected: Any, source: Any = None) -> Any:
    """pandas' result with riptide's *documented* dtype differences applied (riptide has no object dtype).

    * bool values with missing ones: pandas ``object`` -> riptide ``boolean`` (core/column/numeric.py);
    * a column of nothing but missing values that pandas keeps as ``object`` -> ``float64`` NaN
      (``boolean`` when the ``source`` column it came from was bool).
    """
    if isinstance(expected, pd.Series):
        return _documented_series(expected, getattr(source, "dtype", None))
    if isinstance(expected, pd.DataFrame):
        out = expected.copy()
        for i in range(out.shape[1]):
            col = out.iloc[:, i]
            label = out.columns[i]
            source_dtype = source[label].dtype if isinstance(source, pd.DataFrame) and label in source else None
            fixed = _documented_series(col, source_dtype)
            if fixed is not col:
                out.isetitem(i, fixed)
        return out
    return expected


def _family(value: Any) -> str:
    """The kind of scalar a reduction returned, as far as a user can tell them apart."""
    if value is pd.NA:
        return "NA"
    if value is pd.NaT:
        return "NaT"
    if isinstance(value, pd.Timestamp):
        return "Timestamp"
    if isinstance(value, pd.Timedelta):
        return "Timedelta"
    if isinstance(value, bool | np.bool_):
        return "bool"
    if isinstance(value, np.integer):
        return f"np.{np.dtype(type(value)).kind}"  # np.int* vs np.uint*
    if isinstance(value, float | np.floating):
        return "float"  # np.float64 is a Python float; pandas itself mixes them for NaN results
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "str"
    return type(value).__name__


def assert_scalar_equal(got: Any, expected: Any, rtol: float = 1e-9, atol: float = 0.0, check_type: bool = True) -> None:
    """A riptide scalar result equals pandas': same missing-ness, same value, same type family."""
    if check_type:
        assert _family(got) == _family(expected), (
            f"type differs: riptide {got!r} ({type(got).__name__}), pandas {expected!r} ({type(expected).__name__})")
    if expected is pd.NA or expected is pd.NaT:
        assert got is expected, f"riptide {got!r}, pandas {expected!r}"
        return
    if isinstance(expected, float | np.floating) and math.isnan(expected):
        assert isinstance(got, float | np.floating) and math.isnan(got), f"riptide {got!r}, pandas {expected!r}"
        return
    if isinstance(expected, pd.Timestamp | pd.Timedelta):
        assert got == expected, f"riptide {got!r}, pandas {expected!r}"
        return
    if isinstance(expected, float | np.floating):
        ok = got == expected or math.isclose(float(got), float(expected), rel_tol=rtol, abs_tol=atol)
        assert ok, f"riptide {got!r}, pandas {expected!r}"
        return
    assert got == expected, f"riptide {got!r}, pandas {expected!r}"


def pandas_result(fn: Any) -> tuple[Any, BaseException | None]:
    """Run ``fn()`` (a pandas computation): its result, or the exception it raised."""
    try:
        return fn(), None
    except Exception as exc:  # noqa: BLE001 - the oracle's error is data here
        return None, exc


def check_same_outcome(rt_fn: Any, pd_fn: Any, compare: Any) -> None:
    """Either both raise (riptide with the same exception *family* as pandas) or both return equal results.

    ``compare(rt_result, pd_result)`` asserts equality of the results.
    """
    expected, error = pandas_result(pd_fn)
    if error is not None:
        with pytest.raises(_error_family(error)):
            rt_fn()
        return
    compare(rt_fn(), expected)


def check_same_outcome_exactly(rt_fn: Any, pd_fn: Any, compare: Any = None) -> None:
    """Both raise the same exception type with the same message, or both return equal results
    (``compare``, :func:`assert_series_equal` by default); warnings from either side are ignored."""
    compare = assert_series_equal if compare is None else compare
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = pd_fn()
        except Exception as error:  # noqa: BLE001 - the oracle's error is the expectation
            with pytest.raises(type(error)) as raised:
                rt_fn()
            assert type(raised.value) is type(error) and str(raised.value) == str(error)
            return
        got = rt_fn()
    compare(got, expected)


def _error_family(error: BaseException) -> type[BaseException] | tuple[type[BaseException], ...]:
    """Exception types riptide may raise where pandas raised ``error``.

    pandas raises a few subclasses (``IndexingError``, ``InvalidIndexError``,
    ``IntCastingNaNError``); riptide must raise the same builtin base class.
    """
    for base in (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError, OverflowError, NotImplementedError):
        if isinstance(error, base):
            return base
    return type(error)
