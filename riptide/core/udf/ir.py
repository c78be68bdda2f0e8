"""The typed intermediate representation a user-defined function is translated into.

A compiled function is one expression DAG per output: :class:`Node` objects whose ``op`` names an operation of
:mod:`riptide.core.udf.ops` and whose ``type`` is a :class:`Type`. There are no statements: the translator
(:mod:`riptide.core.udf.translate`) turns ``if``/``elif``/``else``, ``x if c else y``, ``and``/``or`` and ``min``/
``max`` into ``select`` nodes (``select(c, a, b)``: ``a`` where ``c`` holds, else ``b``), and local variables into
the nodes they were bound to. Each back end decides how a ``select`` runs: the array evaluator computes both sides
for every row and picks (masking the errors of the side not taken), the CUDA generator emits ``if``/``else``.

A :class:`Type` is a Python scalar kind (``bool``, ``int``, ``float``, ``none``) and a *flavour*: whether the value
is a Python scalar or a NumPy scalar (``np.int64``, ``np.float64``, ``np.bool_``). The flavour matters because the
two compute differently: a Python ``int`` never overflows and ``1 // 0`` raises, a NumPy ``int64`` wraps and
``1 // 0`` is 0. ``Series.apply`` passes Python scalars; ``DataFrame.apply(axis=1)`` over a frame of one numeric
dtype passes NumPy scalars, and ``np.sqrt(x)`` & co. return them. A NumPy int may be narrower than 64 bits
(``bits``: ``np.int32`` rows of an int32 frame); it is held in int64 and wrapped to its width after every operation
(``wrap``), which gives exactly NumPy's wrapping arithmetic since 2**bits divides 2**64.

Values are held as ``int64`` (Python ints: an operation whose exact result leaves int64 raises the row's error
flag, see :mod:`riptide.core.udf.ops`), ``float64`` and ``bool``.

A value that is an ``int`` on some rows and a ``float`` on others (``min(x, 10)`` of a float ``x``) is not a node
type: the translator carries it as a pair of nodes (see ``_Num`` in :mod:`riptide.core.udf.translate`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

__all__ = ["Type", "Node", "Unsupported", "BOOL", "INT", "FLOAT", "NONE", "NP_BOOL", "NP_INT", "NP_FLOAT",
           "arg", "const", "node", "select"]  # fmt: skip


class Unsupported(Exception):
    """The function uses something the compiler does not translate; the message names it (for the warning)."""


class Type(NamedTuple):
    """A scalar type: ``kind`` is ``"bool"``, ``"int"``, ``"float"`` or ``"none"``; ``numpy`` is the flavour."""

    kind: str
    numpy: bool = False
    bits: int = 64  # a NumPy int's width (held in int64, wrapped to this width)

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype values of this type are held in."""
        return _DTYPES[self.kind]

    @property
    def c_type(self) -> str:
        """The C type values of this type are held in."""
        return _C_TYPES[self.kind]

    def __str__(self) -> str:
        names = {"bool": "bool_", "int": f"int{self.bits}", "float": "float64"}
        return f"numpy.{names[self.kind]}" if self.numpy else self.kind

    @property
    def result_dtype(self) -> np.dtype:
        """The dtype of a column of values of this type (``np.int32`` values make an int32 column)."""
        return np.dtype(f"int{self.bits}") if self.kind == "int" and self.bits != 64 else self.dtype


_DTYPES = {"bool": np.dtype(np.bool_), "int": np.dtype(np.int64), "float": np.dtype(np.float64),
           "none": np.dtype(np.float64)}  # fmt: skip
_C_TYPES = {"bool": "bool", "int": "long long", "float": "double", "none": "double"}

BOOL, INT, FLOAT, NONE = Type("bool"), Type("int"), Type("float"), Type("none")
NP_BOOL, NP_INT, NP_FLOAT = Type("bool", True), Type("int", True), Type("float", True)


class Node:
    """One operation of the DAG: ``op`` applied to ``args`` (nodes), giving ``type``; ``value`` holds the
    argument number of an ``arg`` node, the constant of a ``const`` node, or an operation's static parameter."""

    __slots__ = ("op", "args", "type", "value", "_key")

    def __init__(self, op: str, args: tuple[Node, ...], type_: Type, value: Any = None):
        self.op, self.args, self.type, self.value = op, args, type_, value
        self._key: tuple | None = None

    @property
    def key(self) -> tuple:
        """A structural key: equal keys compute equal values (used for caching and common subexpressions)."""
        if self._key is None:
            value = self.value
            if isinstance(value, float):
                value = ("f", value.hex()) if value == value else ("f", "nan")  # -0.0 != 0.0, nan == nan here
            self._key = (self.op, self.type, value, tuple(a.key for a in self.args))
        return self._key

    def __repr__(self) -> str:
        if self.op == "arg":
            return f"x{self.value}"
        if self.op == "const":
            return repr(self.value)
        inner = ", ".join(repr(a) for a in self.args)
        extra = "" if self.value is None else f"; {self.value!r}"
        return f"{self.op}({inner}{extra})"


def arg(index: int, type_: Type) -> Node:
    return Node("arg", (), type_, index)


def const(value: Any, type_: Type) -> Node:
    return Node("const", (), type_, value)


def node(op: str, *args: Node, type_: Type, value: Any = None) -> Node:
    return Node(op, tuple(args), type_, value)


def select(cond: Node, a: Node, b: Node) -> Node:
    """``a`` where ``cond`` (a bool node) holds, else ``b``; ``a`` and ``b`` must have one type."""
    if a.type != b.type:
        raise AssertionError(f"select of {a.type} and {b.type}")
    if a.key == b.key:
        return a
    return Node("select", (cond, a, b), a.type)
