"""Dask expressions that riptide partitions need in a form of their own: the variance reduction.

Dask's ``Var`` reduction (behind ``std``, ``var`` and ``describe``) reads ``partition.values`` and computes
per-partition moments (count, sum, sum of squared deviations) with NumPy calls, then combines them with more NumPy
calls. On the GPU riptide's ``.values`` is a CuPy array, NumPy's functions defer to CuPy for it, and the final
result comes out as a CuPy 0-d array where pandas-backed Dask gives a float.

The fix keeps Dask's algorithm (the parallel Welford/Chan combination, so the numbers are those of pandas-backed
Dask) and changes one thing: each partition's moments are computed on the device and then moved to the host. They
are a few numbers per column, so the transfer is negligible, and the combine and aggregate steps then run on NumPy
exactly as they do for pandas. dask_cudf solves the same problem the same way in spirit (it replaces ``Expr.var``
with its own reduction for cuDF metas); here ``Expr.var`` is wrapped so that only expressions whose meta is a
riptide object get :class:`RiptideVar`, and every other backend keeps Dask's own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from dask.dataframe.dask_expr._expr import Expr
from dask.dataframe.dask_expr._reductions import Var

from riptide import _device
from riptide.frame import DataFrame, Index, Series

__all__ = ["RiptideVar", "install"]

_RIPTIDE_TYPES = (DataFrame, Series, Index)


def _moments_to_host(moments: Any) -> Any:
    """The chunk's moments (a dict of small arrays) with every array as NumPy."""
    if isinstance(moments, dict):
        return {key: np.asarray(_device.to_host(value)) for key, value in moments.items()}
    return moments


class RiptideVar(Var):
    """Dask's ``Var`` for riptide partitions: moments computed on the partition's device, combined on the host."""

    @classmethod
    def reduction_chunk(cls, x: Any, skipna: bool) -> Any:
        return _moments_to_host(super().reduction_chunk(x, skipna))


_DASK_VAR = Expr.var


def _var(self: Any, axis: Any = 0, skipna: bool = True, ddof: int = 1, numeric_only: bool = False,
         split_every: Any = False) -> Any:  # fmt: skip
    """``Expr.var``: :class:`RiptideVar` for a riptide meta along the rows, else Dask's own."""
    if axis == 0 and isinstance(self._meta, _RIPTIDE_TYPES):
        return RiptideVar(self, skipna, ddof, numeric_only, split_every)
    return _DASK_VAR(self, axis, skipna, ddof, numeric_only, split_every)


_var._riptide_dask = True  # marks the wrapper, so that installing twice keeps one


def install() -> None:
    """Route ``Expr.var`` of riptide-backed expressions to :class:`RiptideVar` (idempotent)."""
    if not getattr(Expr.var, "_riptide_dask", False):
        Expr.var = _var


install()
