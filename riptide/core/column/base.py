"""The Column base class: a length, a dtype and an optional validity mask.

A column owns device (or host) buffers in an Arrow-compatible layout. Each subclass
holds one layout (fixed-width values, strings, categoricals) and the few operations
whose code depends on that layout: gather (``take``), ``slice``, missing-value
bookkeeping and conversion to Arrow / pandas. Everything else (arithmetic,
reductions, scans, casts) lives in :mod:`riptide.core.ops` as plain functions.

Validity is kept as one bool per row (True = valid), not Arrow's packed bitmap:
elementwise kernels read it without bit twiddling, and it is packed into a bitmap
only when a column is exported to Arrow.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from riptide import _device

__all__ = ["Column"]


class Column:
    """Base of all column layouts. Subclasses: NumericColumn, StringColumn, CategoricalColumn.

    Attributes
    ----------
    mask : bool array or None
        True where the row is valid; None when no row is masked out. Only dtypes that
        pandas stores with a mask (nullable numerics, ``str``) use it; the others mark
        missing values in their data (NaN, NaT, code -1).
    """

    __slots__ = ("mask",)

    mask: Any

    # --- facts -------------------------------------------------------------------------
    @property
    def dtype(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def size(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def __len__(self) -> int:
        return self.size

    @property
    def xp(self) -> types.ModuleType:
        """numpy or cupy: where this column's buffers live."""
        return _device.namespace_of(self._primary_buffer())

    def _primary_buffer(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def nbytes(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def _mask_nbytes(self) -> int:
        return 0 if self.mask is None else int(self.mask.nbytes)

    # --- missing values ----------------------------------------------------------------
    def isna(self) -> Any:
        """Bool array, True where the value is missing (null, NaN, NaT or code -1)."""
        xp = self.xp
        if self.mask is None:
            return xp.zeros(self.size, dtype=bool)
        return ~self.mask

    def notna(self) -> Any:
        return ~self.isna()

    def can_hold_missing(self) -> bool:
        """Whether this dtype can represent a missing value without changing dtype."""
        return True

    def set_missing(self, missing: Any) -> Column:  # pragma: no cover - abstract
        """A column with the rows where ``missing`` is True made missing.

        Dtypes that cannot hold a missing value change as pandas changes them
        (int64 becomes float64 with NaN).
        """
        raise NotImplementedError

    def _combined_mask(self, missing: Any) -> Any:
        valid = ~missing
        return valid if self.mask is None else self.mask & valid

    # --- layout operations -------------------------------------------------------------
    def take(self, indices: Any) -> Column:  # pragma: no cover - abstract
        """Gather rows: ``indices`` is an integer array of in-bounds, non-negative positions."""
        raise NotImplementedError

    def deferred_take(self) -> tuple[Column, Any] | None:
        """``(source, positions)`` when this column is ``source.take(positions)`` not gathered yet, else None.

        An operation that reads the rows once (a sort key) can read them from the source in place of the
        gathered copy."""
        return None

    def take_or_missing(self, indices: Any) -> Column:
        """Gather rows where ``indices`` may hold -1, meaning "a missing value here" (reindexing)."""
        xp = self.xp
        missing = indices < 0
        if not bool(missing.any()):  # one scalar read: with every row found, the dtype must not change
            return self.take(indices)
        if self.size == 0:
            # Only missing rows can come from an empty column: gather from a one-row placeholder.
            return _placeholder_row(self).take(xp.zeros(len(indices), dtype=np.int64)).set_missing(missing)
        gathered = self.take(xp.where(missing, 0, indices))
        return gathered.set_missing(missing)

    def slice(self, start: int, stop: int, step: int = 1) -> Column:  # pragma: no cover - abstract
        """Rows ``start:stop:step`` (bounds already normalized by ``slice.indices``)."""
        raise NotImplementedError

    def filter(self, keep: Any) -> Column:
        """Rows where the bool array ``keep`` is True."""
        return self.take(self.xp.flatnonzero(keep))

    def copy(self) -> Column:  # pragma: no cover - abstract
        raise NotImplementedError

    def to_device(self, xp: types.ModuleType) -> Column:  # pragma: no cover - abstract
        """The same column with its buffers in namespace ``xp`` (no copy if already there)."""
        raise NotImplementedError

    # --- conversion --------------------------------------------------------------------
    def to_arrow(self) -> Any:  # pragma: no cover - abstract
        """A ``pyarrow.Array`` with the same values and nulls."""
        raise NotImplementedError

    def to_pandas_array(self) -> Any:  # pragma: no cover - abstract
        """A NumPy array or pandas ExtensionArray with the dtype ``self.dtype``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} dtype={self.dtype} size={self.size} on {self.xp.__name__}>"


def _placeholder_row(column: Column) -> Column:
    """A one-row column of the same dtype (its value is never shown: it is made missing)."""
    from riptide.core.column.build import full

    return full(1, None, column.dtype, xp=column.xp)
