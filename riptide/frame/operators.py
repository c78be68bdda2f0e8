"""Python's operator protocol for Series and DataFrame, written out once.

Each class implements ``_binary(other, op, reflected=False)``; these methods only name the
operator. ``__eq__`` and friends are elementwise, so instances are unhashable, as in pandas.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OperatorMethods"]


class OperatorMethods:
    """``+ - * / // % ** == != < <= > >= & | ^`` and their reflected forms, through ``self._binary``."""

    __slots__ = ()

    def _binary(self, other: Any, op: str, reflected: bool = False) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def __add__(self, other): return self._binary(other, "add")
    def __radd__(self, other): return self._binary(other, "add", reflected=True)
    def __sub__(self, other): return self._binary(other, "sub")
    def __rsub__(self, other): return self._binary(other, "sub", reflected=True)
    def __mul__(self, other): return self._binary(other, "mul")
    def __rmul__(self, other): return self._binary(other, "mul", reflected=True)
    def __truediv__(self, other): return self._binary(other, "truediv")
    def __rtruediv__(self, other): return self._binary(other, "truediv", reflected=True)
    def __floordiv__(self, other): return self._binary(other, "floordiv")
    def __rfloordiv__(self, other): return self._binary(other, "floordiv", reflected=True)
    def __mod__(self, other): return self._binary(other, "mod")
    def __rmod__(self, other): return self._binary(other, "mod", reflected=True)
    def __pow__(self, other): return self._binary(other, "pow")
    def __rpow__(self, other): return self._binary(other, "pow", reflected=True)
    def __eq__(self, other): return self._binary(other, "eq")  # type: ignore[override]
    def __ne__(self, other): return self._binary(other, "ne")  # type: ignore[override]
    def __lt__(self, other): return self._binary(other, "lt")
    def __le__(self, other): return self._binary(other, "le")
    def __gt__(self, other): return self._binary(other, "gt")
    def __ge__(self, other): return self._binary(other, "ge")
    def __and__(self, other): return self._binary(other, "and")
    def __rand__(self, other): return self._binary(other, "and", reflected=True)
    def __or__(self, other): return self._binary(other, "or")
    def __ror__(self, other): return self._binary(other, "or", reflected=True)
    def __xor__(self, other): return self._binary(other, "xor")
    def __rxor__(self, other): return self._binary(other, "xor", reflected=True)

    __hash__ = None  # type: ignore[assignment]
