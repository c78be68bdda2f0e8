"""The pandas object protocol: what libraries built on pandas read from a Series/DataFrame besides its data.

Dask, pyarrow's ``from_pandas`` and pandas-subclassing code ask an object for its constructors
(``_constructor``, ``_constructor_sliced``, ``_constructor_expanddim``: the classes that rebuild it, its rows and
its expansion), its user metadata (``attrs``) and ask it to ``infer_objects()``. None of these touch the rows.

``attrs`` is a per-object dict, as in pandas, kept beside the object (riptide's objects have fixed slots) and
dropped with it. Deviation: pandas copies ``attrs`` into the results of most operations; riptide does not carry
them through operations, so a result starts with an empty ``attrs``.

``infer_objects()`` has nothing to infer: riptide has no object dtype, so every column already has its own dtype;
it returns a shallow copy, as pandas does for an object without object columns.

>>> import riptide as rt
>>> s = rt.Series([1, 2])
>>> s._constructor is rt.Series, s._constructor_expanddim is rt.DataFrame
(True, True)
>>> s.attrs["source"] = "sensor"
>>> s.attrs
{'source': 'sensor'}
"""

from __future__ import annotations

import weakref
from typing import Any

__all__ = ["SeriesProtocolMethods", "FrameProtocolMethods"]

_ATTRS: dict[int, dict] = {}  # id(object) -> its attrs; the entry goes when the object is collected


def _attrs_of(obj: Any) -> dict:
    key = id(obj)
    found = _ATTRS.get(key)
    if found is None:
        found = _ATTRS[key] = {}
        weakref.finalize(obj, _ATTRS.pop, key, None)
    return found


class _ProtocolMethods:
    __slots__ = ()

    @property
    def _constructor(self) -> type:
        return type(self)

    @property
    def attrs(self) -> dict:
        """User metadata of this object (a dict; not carried into the results of operations)."""
        return _attrs_of(self)

    @attrs.setter
    def attrs(self, value: Any) -> None:
        attrs = _attrs_of(self)
        attrs.clear()
        attrs.update(dict(value))

    def infer_objects(self, copy: Any = None) -> Any:
        """A shallow copy: riptide has no object columns, so there is nothing to infer."""
        return self.copy(deep=False)


class SeriesProtocolMethods(_ProtocolMethods):
    """Constructors, ``attrs`` and ``infer_objects`` of :class:`riptide.Series`."""

    __slots__ = ()

    @property
    def _constructor_expanddim(self) -> type:
        from riptide.frame.dataframe import DataFrame

        return DataFrame


class FrameProtocolMethods(_ProtocolMethods):
    """Constructors, ``attrs`` and ``infer_objects`` of :class:`riptide.DataFrame`."""

    __slots__ = ()

    @property
    def _constructor_sliced(self) -> type:
        from riptide.frame.series import Series

        return Series
