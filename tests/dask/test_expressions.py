"""riptide.dask.expressions: Dask's variance reduction (std, var, describe) on riptide partitions.

Without a GPU a device is emulated: ``.values`` of riptide objects is made to return an array type that,
like CuPy, stays itself through every NumPy function and ufunc (and is refused by riptide's constructors, as a CuPy
0-d array in a host list would be). Without :class:`RiptideVar` the results come out as that type, as on the GPU.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

import riptide as rt  # noqa: E402
from riptide import _device  # noqa: E402
import riptide.dask  # noqa: E402,F401
from riptide.dask import expressions  # noqa: E402
from riptide.frame import DataFrame, Series  # noqa: E402


class _DeviceLike(np.ndarray):
    """An array that NumPy's functions and ufuncs return as itself (as they return CuPy arrays for CuPy input)."""

    def __array_function__(self, func, types, args, kwargs):
        return _wrap(super().__array_function__(func, types, args, kwargs))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(np.asarray(i) if isinstance(i, _DeviceLike) else i for i in inputs)
        return _wrap(getattr(ufunc, method)(*inputs, **kwargs))


def _wrap(out):
    if isinstance(out, tuple):
        return tuple(_wrap(o) for o in out)
    if isinstance(out, (np.ndarray, np.generic)) and not isinstance(out, _DeviceLike):
        return np.asarray(out).view(_DeviceLike)
    return out


@pytest.fixture
def device_values(monkeypatch):
    """The array type ``.values`` returns: CuPy's on a GPU, else the emulation installed here."""
    if _device.is_gpu():
        import cupy

        device_type = cupy.ndarray
    else:
        series_values, frame_values = Series.values, DataFrame.values
        monkeypatch.setattr(Series, "values", property(lambda self: series_values.fget(self).view(_DeviceLike)))
        monkeypatch.setattr(DataFrame, "values", property(lambda self: frame_values.fget(self).view(_DeviceLike)))
        device_type = _DeviceLike
    with dask.config.set({"scheduler": "sync", "dataframe.convert-string": False}):
        yield device_type


def _frames():
    rng = np.random.default_rng(3)
    pdf = pd.DataFrame({"v": rng.normal(size=50), "w": rng.integers(0, 100, 50)})
    pdf.loc[[3, 17], "v"] = np.nan
    return pdf, dd.from_pandas(pdf, npartitions=4), dd.from_pandas(rt.from_pandas(pdf), npartitions=4)


def test_emulation_reproduces_the_gpu_failure(device_values, monkeypatch):
    # the emulation must show the problem the fix solves, or the tests below prove nothing
    from dask.dataframe.dask_expr._expr import Expr

    monkeypatch.setattr(Expr, "var", expressions._DASK_VAR)
    _, _, rdf = _frames()
    assert isinstance(rdf.v.std().compute(), device_values)


@pytest.mark.parametrize("ddof", [0, 1])
def test_std_var_are_host_scalars(device_values, ddof):
    pdf, pddf, rdf = _frames()
    for method in ("std", "var"):
        got = getattr(rdf.v, method)(ddof=ddof).compute()
        assert type(got) is type(getattr(pddf.v, method)(ddof=ddof).compute())  # noqa: E721
        assert got == pytest.approx(getattr(pdf.v, method)(ddof=ddof))
    got = rdf.std(ddof=ddof).compute()
    pd.testing.assert_series_equal(got.to_pandas(), pdf.std(ddof=ddof))


def test_std_skipna_false(device_values):
    pdf, _, rdf = _frames()
    assert np.isnan(rdf.v.std(skipna=False).compute())
    assert rdf.w.std(skipna=False).compute() == pytest.approx(pdf.w.std(skipna=False))


def test_describe_with_device_values(device_values):
    pdf, _, rdf = _frames()
    got = rdf.describe().compute().to_pandas()
    expected = pdf.describe()
    pd.testing.assert_frame_equal(got.loc[["count", "mean", "std", "min", "max"]],
                                  expected.loc[["count", "mean", "std", "min", "max"]])  # fmt: skip


def test_pandas_backend_keeps_dask_var():
    _, pddf, rdf = _frames()
    assert type(pddf.v.var().expr) is not expressions.RiptideVar
    assert type(rdf.v.var().expr) is expressions.RiptideVar
    expressions.install()  # idempotent: still one wrapper
    assert expressions._DASK_VAR is not expressions._var
