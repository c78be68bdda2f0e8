"""Chains of elementwise operators fused into one GPU kernel.

Why
---
An elementwise kernel on a GPU is bound by memory traffic, not arithmetic. Eagerly, ``a * b + a`` on
two 1e8-row float64 columns runs two CuPy kernels: ``t = a * b`` reads 1.6 GB and writes 0.8 GB, then
``t + a`` reads 1.6 GB and writes 0.8 GB again — 4.8 GB in all. One fused kernel reads ``a`` and ``b``
once and writes the result once: 2.4 GB, half the time. Every further operator in a chain saves another
read and write of a full column.

What is fused
-------------
:func:`try_defer` is called by :func:`riptide.core.ops.binary.binary_op` before its eager path. It returns
a :class:`DeferredColumn` — a :class:`NumericColumn` whose values are not computed yet — when *all* hold:

* the columns live on the GPU (CuPy); on the CPU NumPy runs eagerly, as before;
* ``left`` (and ``right`` when it is a column) is an unmasked column of int8..int64, uint8..uint64,
  float32 or float64 (no bool, datetime, nullable or float16 dtype), of equal length;
* ``right`` is such a column, a Python ``int`` / ``float`` (not ``bool``) or a NumPy integer/float scalar;
* the operator is ``+ - * /`` or a comparison. ``//``, ``%`` and ``**`` stay eager: pandas gives them
  special rules for zero and negative operands.

Anything else returns None, and the eager path runs unchanged. An operand that is itself a deferred
column extends its expression tree instead of being computed: that is the fusion.

A deferred column's values are computed (materialized) the first time anything reads ``.data`` —
a reduction, a filter, ``to_pandas``, an operator that is not fused, ``repr`` of the Series. The array
is then kept and the tree dropped, so the input arrays it held can be freed; later reads reuse it.
``dtype``, ``size``, ``xp`` and ``nbytes`` do not materialize.

How it computes
---------------
* A tree of one operator runs the plain CuPy ufunc on the original operands: no compilation, and
  exactly the eager result.
* A larger tree runs a ``cupy.ElementwiseKernel`` generated from the tree (:func:`generate_source`).
  Every node converts its operands to the node's computation type and the result to the node's
  dtype explicitly, as the eager ufunc sequence does, so results are bit for bit the eager ones:
  integers wrap (computed in unsigned arithmetic of the same width, so overflow is never undefined
  behaviour the compiler could exploit), float ``+ - * /`` are single IEEE operations (compiled with
  ``--fmad=false``: a contracted ``a*b + c`` would round once instead of twice), comparisons with NaN
  are False (``!=`` True), and int / int divides in float64.
* Result dtypes follow CuPy 14 / NumPy 2 promotion (NEP 50): :func:`resolve_types`. Python scalars
  are weak (``int8 + 1`` is int8, ``float32 * 0.5`` is float32, ``int + 0.5`` is float64); NumPy
  scalars are strong (``binary_op`` turns a NumPy number into a Python one for arithmetic, as pandas
  does, so only comparisons meet them here). A Python int that does not fit the column's dtype
  (``int8 + 1000``), a float that overflows float32, and comparisons of signed with uint64 integers
  (CuPy compares those exactly with special loops) are left to the eager path.
* Kernels are cached by the tree's signature: its shape, operators, dtypes and which leaves are the
  same array. Scalars are kernel arguments, not part of the source, so ``s * 2 + 1`` and ``s * 2 + 2``
  share one kernel; an array used twice (``a * b + a``) is passed, and read, once.

The cap
-------
A tree holds at most :data:`MAX_ARRAYS` distinct input arrays and :data:`MAX_NODES` operators. An
operation that would exceed it materializes the deferred operand(s) first and starts a new tree, so a
loop like ``for _ in range(100): s = s + 1`` compiles a bounded set of kernels (trees of 2..16 nodes),
never an ever-growing one, and a tree never pins more than 8 input columns in memory.

Differences from eager evaluation (see docs)
--------------------------------------------
* A deferred column reads its inputs when it is materialized, not when it was built. riptide never
  writes into a column's buffer, but a user who mutates an input CuPy array in place (through
  ``Series.to_cupy()`` or ``__cuda_array_interface__``) between building and reading a result sees
  the mutation in the result; eager pandas would not.
* A deferred column embedded in a larger tree is recomputed there (``c = a * b; d = c + 1``:
  materializing both computes ``a * b`` twice, in two kernels) — arithmetic is cheap; memory is not.
* Memory: a deferred column keeps its input arrays alive until it is materialized (at most 8).

Set ``fusion.ENABLED = False`` (or the environment variable ``RIPTIDE_FUSION=0`` before import) to
turn fusion off, e.g. to compare with the eager path.
"""

from __future__ import annotations

import collections
import contextlib
import os
import types
import warnings
from typing import Any

import numpy as np

from riptide.core.column.numeric import NumericColumn

__all__ = [
    "ENABLED",
    "MAX_ARRAYS",
    "MAX_NODES",
    "FUSABLE_OPS",
    "DeferredColumn",
    "try_defer",
    "resolve_types",
    "signature",
    "generate_source",
    "kernel_for",
    "stats",
]

#: Fusion on or off (``RIPTIDE_FUSION=0`` turns it off at import; tests and benchmarks flip this flag).
ENABLED: bool = os.environ.get("RIPTIDE_FUSION", "1").strip().lower() not in ("0", "false", "off", "no")
#: At most this many distinct input arrays in one fused kernel.
MAX_ARRAYS = 8
#: At most this many operators in one fused kernel.
MAX_NODES = 16
#: Kernels kept (least recently used ones are dropped beyond this; CuPy also caches compiled code on disk).
MAX_KERNELS = 256

ARITHMETIC_OPS = ("add", "sub", "mul", "truediv")
COMPARISON_OPS = ("eq", "ne", "lt", "le", "gt", "ge")
FUSABLE_OPS = ARITHMETIC_OPS + COMPARISON_OPS

_UFUNCS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide", "eq": "equal",
    "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
}  # fmt: skip
_C_OPERATORS = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">",
    "ge": ">=",
}  # fmt: skip

#: The dtypes a fused kernel handles, with their C names (as CuPy spells them).
C_TYPES = {
    np.dtype(np.int8): "signed char", np.dtype(np.int16): "short", np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long", np.dtype(np.uint8): "unsigned char", np.dtype(np.uint16): "unsigned short",
    np.dtype(np.uint32): "unsigned int", np.dtype(np.uint64): "unsigned long long", np.dtype(np.float32): "float",
    np.dtype(np.float64): "double", np.dtype(np.bool_): "bool",
}  # fmt: skip
_OPERAND_DTYPES = frozenset(d for d in C_TYPES if d.kind in "iuf")
_FLOAT64 = np.dtype(np.float64)
_BOOL = np.dtype(np.bool_)
_EXACT_INT_IN_FLOAT = 2**53  # larger Python ints meeting a float column go eager (rounding paths could differ)

#: Test hook: build deferred columns over NumPy arrays too (materialized operator by operator with NumPy).
_ALLOW_HOST = False

_KERNELS: collections.OrderedDict[tuple, Any] = collections.OrderedDict()
_FAILED: set[tuple] = set()  # signatures whose kernel did not compile (evaluated operator by operator instead)
_STATS = {"deferred": 0, "ufunc_launches": 0, "fused_launches": 0, "kernels_built": 0, "fallbacks": 0}


def stats() -> dict[str, int]:
    """Counters since import: columns deferred, single-op ufunc launches, fused launches, kernels built,
    fallbacks to operator-by-operator evaluation (a kernel that failed to compile)."""
    return dict(_STATS)


# --- expression trees ---------------------------------------------------------------------------------------------
class _Array:
    """A leaf: a device array (a materialized column's buffer)."""

    __slots__ = ("array",)
    n_nodes = 0

    def __init__(self, array: Any):
        self.array = array

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self.array.dtype)

    @property
    def arrays(self) -> tuple[Any, ...]:
        return (self.array,)


class _Const:
    """A leaf: a scalar operand; ``value`` as the user gave it, ``dtype`` the type it enters the kernel as."""

    __slots__ = ("value", "dtype")
    n_nodes = 0
    arrays: tuple[Any, ...] = ()

    def __init__(self, value: Any, dtype: np.dtype):
        self.value, self.dtype = value, dtype

    def kernel_value(self) -> Any:
        return self.dtype.type(self.value)


class _Node:
    """An operator: ``left <op> right`` computed in ``compute``, giving ``dtype``."""

    __slots__ = ("op", "left", "right", "compute", "dtype", "n_nodes", "arrays")

    def __init__(self, op: str, left: Any, right: Any, compute: np.dtype, dtype: np.dtype):
        self.op, self.left, self.right, self.compute, self.dtype = op, left, right, compute, dtype
        self.n_nodes = 1 + left.n_nodes + right.n_nodes
        self.arrays = _merge_arrays(left.arrays, right.arrays)


def _merge_arrays(first: tuple[Any, ...], second: tuple[Any, ...]) -> tuple[Any, ...]:
    """Distinct arrays (by identity) of both, in order of first appearance."""
    extra = tuple(a for a in second if not any(a is b for b in first))
    return first + extra if extra else first


# --- dtype rules ------------------------------------------------------------------------------------------------
def resolve_types(op: str, left: Any, right: Any) -> tuple[np.dtype, np.dtype] | None:
    """``(computation dtype, result dtype)`` of ``left <op> right``, or None where fusion leaves it to the eager path.

    ``left`` / ``right`` are NumPy dtypes (arrays, NumPy scalars: strong) or the Python types ``int`` /
    ``float`` (weak scalars, NEP 50). Mirrors CuPy 14's ufunc loop selection, which agrees with NumPy 2.

    >>> resolve_types("add", np.dtype("int8"), int)
    (dtype('int8'), dtype('int8'))
    >>> resolve_types("truediv", np.dtype("int32"), np.dtype("int32"))
    (dtype('float64'), dtype('float64'))
    >>> resolve_types("lt", np.dtype("float32"), float)
    (dtype('float32'), dtype('bool'))
    """
    if op not in FUSABLE_OPS:
        return None
    weak_left, weak_right = _is_weak(left), _is_weak(right)
    if weak_left and weak_right:
        return None
    if weak_left or weak_right:
        array, weak = (right, left) if weak_left else (left, right)
        if array not in _OPERAND_DTYPES:
            return None
        common = array if (weak is int or array.kind == "f") else _FLOAT64
    else:
        if left not in _OPERAND_DTYPES or right not in _OPERAND_DTYPES:
            return None
        common = np.result_type(left, right)
        if op in COMPARISON_OPS and common.kind == "f" and left.kind in "iu" and right.kind in "iu":
            return None  # int64 vs uint64: CuPy compares exactly (its qQ loops), not through float64
    if common not in _OPERAND_DTYPES:
        return None
    if op in COMPARISON_OPS:
        return common, _BOOL
    if op == "truediv" and common.kind in "iu":
        return _FLOAT64, _FLOAT64
    return common, common


def _scalar_type(value: Any) -> Any:
    """``int`` / ``float`` for a weak Python scalar, the dtype of a NumPy scalar, None for anything else."""
    if type(value) is int or type(value) is float:  # bool, and int/float subclasses, go eager
        return type(value)
    if isinstance(value, np.integer | np.floating) and np.dtype(type(value)) in _OPERAND_DTYPES:
        return np.dtype(type(value))
    return None


def _const_fits(value: Any, weak: Any, target: np.dtype) -> bool:
    """Whether scalar ``value`` converts to ``target`` the way the eager ufunc converts it (no overflow)."""
    if weak is int:
        if target.kind in "iu":
            info = np.iinfo(target)
            return info.min <= value <= info.max
        return abs(value) <= _EXACT_INT_IN_FLOAT
    if weak is float and target == np.float32 and np.isfinite(value):
        with np.errstate(over="ignore"):
            return bool(np.isfinite(np.float32(value)))
    return True


def _is_weak(typ: Any) -> bool:
    return typ is int or typ is float  # identity: np.dtype("int64") == int is True


def _make_node(op: str, left: Any, right: Any) -> _Node | None:
    """A node for ``left <op> right``; each side is a tree or a raw scalar. None where fusion does not apply."""
    operands = (left, right)
    types_ = [x.dtype if isinstance(x, _Array | _Node) else _scalar_type(x) for x in operands]
    if types_[0] is None or types_[1] is None:
        return None
    resolved = resolve_types(op, types_[0], types_[1])
    if resolved is None:
        return None
    compute, dtype = resolved
    sides = []
    for i, operand in enumerate(operands):
        if isinstance(operand, _Array | _Node):
            sides.append(operand)
            continue
        typ, other = types_[i], types_[1 - i]
        # A weak int must fit the integer column it meets (NumPy raises, and CuPy may wrap, where it does not);
        # in a division it then enters as float64, exactly.
        target = other if (typ is int and other.kind in "iu") else compute
        if _is_weak(typ) and not _const_fits(operand, typ, target):
            return None
        sides.append(_Const(operand, compute))
    return _Node(op, sides[0], sides[1], compute, dtype)


# --- signatures and code generation -----------------------------------------------------------------------------
def signature(tree: _Node) -> tuple[tuple, list[Any], list[Any]]:
    """``(signature, arrays, scalars)`` of a tree: the kernel cache key and the kernel's arguments.

    The signature names operators, dtypes and leaf positions only — ``("a", i, dtype)`` for the i-th
    distinct array, ``("c", j, dtype)`` for the j-th scalar, ``(op, compute, dtype, left, right)`` for a
    node — so trees that differ only in their scalars' values, or in which arrays they read, share it.
    """
    arrays: list[Any] = []
    scalars: list[Any] = []
    position: dict[int, int] = {}

    def walk(node: Any) -> tuple:
        if isinstance(node, _Array):
            key = id(node.array)
            if key not in position:
                position[key] = len(arrays)
                arrays.append(node.array)
            return ("a", position[key], node.dtype.name)
        if isinstance(node, _Const):
            scalars.append(node.kernel_value())
            return ("c", len(scalars) - 1, node.dtype.name)
        left = walk(node.left)
        right = walk(node.right)
        return (node.op, node.compute.name, node.dtype.name, left, right)

    return walk(tree), arrays, scalars


def _leaf_params(sig: tuple, found: dict[tuple[str, int], str]) -> None:
    if sig[0] in ("a", "c"):
        found[(sig[0], sig[1])] = sig[2]
        return
    _leaf_params(sig[3], found)
    _leaf_params(sig[4], found)


def _expression(sig: tuple) -> str:
    if sig[0] == "a":
        return f"a{sig[1]}"
    if sig[0] == "c":
        return f"c{sig[1]}"
    op, compute, dtype = sig[0], np.dtype(sig[1]), np.dtype(sig[2])
    c_type, out_type = C_TYPES[compute], C_TYPES[dtype]
    left, right, symbol = _expression(sig[3]), _expression(sig[4]), _C_OPERATORS[op]
    if op in ARITHMETIC_OPS and compute.kind in "iu":
        # Wrap-around integer arithmetic without signed overflow (undefined in C++): compute in the unsigned
        # type of at least 32 bits, then convert back; the low bits are those of the eager ufunc's result.
        wide = "unsigned long long" if compute.itemsize == 8 else "unsigned int"
        return f"(({out_type})(({wide})(({c_type})({left})) {symbol} ({wide})(({c_type})({right}))))"
    if op in ARITHMETIC_OPS:
        return f"(({out_type})(({c_type})({left}) {symbol} ({c_type})({right})))"
    return f"(({c_type})({left}) {symbol} ({c_type})({right}))"


def generate_source(sig: tuple) -> tuple[str, str, str]:
    """``(in_params, out_params, operation)`` of the ``cupy.ElementwiseKernel`` computing signature ``sig``.

    Inputs are ``a0, a1, ...`` (distinct arrays) then ``c0, c1, ...`` (scalars); the output is ``y``.

    >>> generate_source(("mul", "float32", "float32", ("a", 0, "float32"), ("c", 0, "float32")))
    ('float32 a0, float32 c0', 'float32 y', 'y = ((float)((float)(a0) * (float)(c0)));')
    """
    leaves: dict[tuple[str, int], str] = {}
    _leaf_params(sig, leaves)
    arrays = sorted((i, t) for (kind, i), t in leaves.items() if kind == "a")
    consts = sorted((i, t) for (kind, i), t in leaves.items() if kind == "c")
    in_params = ", ".join([f"{t} a{i}" for i, t in arrays] + [f"{t} c{i}" for i, t in consts])
    return in_params, f"{sig[2]} y", f"y = {_expression(sig)};"


def kernel_for(column: Any) -> Any:
    """The cached ``cupy.ElementwiseKernel`` a deferred column runs (built now if needed); None for a
    single-operator tree (it runs the CuPy ufunc) or a column that is not deferred."""
    if not isinstance(column, DeferredColumn) or column._tree is None or column._tree.n_nodes < 2:
        return None
    return _kernel(signature(column._tree)[0], column._xp)


def _kernel(sig: tuple, xp: types.ModuleType) -> Any:
    kernel = _KERNELS.get(sig)
    if kernel is not None:
        _KERNELS.move_to_end(sig)
        return kernel
    in_params, out_params, operation = generate_source(sig)
    kernel = xp.ElementwiseKernel(in_params, out_params, operation, name=f"riptide_fused_{_STATS['kernels_built']}",
                                  options=("--fmad=false",))  # fmt: skip
    _STATS["kernels_built"] += 1
    _KERNELS[sig] = kernel
    if len(_KERNELS) > MAX_KERNELS:
        _KERNELS.popitem(last=False)
    return kernel


# --- evaluation ---------------------------------------------------------------------------------------------------
def _evaluate(node: Any, xp: types.ModuleType) -> Any:
    """Operator by operator with the ufuncs, on the operands as given: exactly the eager path's values."""
    if isinstance(node, _Array):
        return node.array
    if isinstance(node, _Const):
        return node.value
    left, right = _evaluate(node.left, xp), _evaluate(node.right, xp)
    return getattr(xp, _UFUNCS[node.op])(left, right)


def _materialize(tree: _Node, size: int, xp: types.ModuleType) -> Any:
    if xp is np:  # the host test hook: NumPy, operator by operator
        with np.errstate(all="ignore"):
            return _evaluate(tree, xp)
    if tree.n_nodes == 1 or size == 0:
        _STATS["ufunc_launches"] += tree.n_nodes
        return _evaluate(tree, xp)
    sig, arrays, scalars = signature(tree)
    if sig in _FAILED:
        _STATS["fallbacks"] += 1
        return _evaluate(tree, xp)
    try:
        kernel = _kernel(sig, xp)
        with _device_of(arrays[0]):
            result = kernel(*arrays, *scalars)
    except _compile_errors() as exc:  # never expected: fall back to the eager sequence, loudly, once per signature
        _STATS["fallbacks"] += 1
        _FAILED.add(sig)
        warnings.warn(f"riptide could not compile a fused kernel ({type(exc).__name__}: {exc}); "
                      "running its operators one by one", RuntimeWarning, stacklevel=3)  # fmt: skip
        return _evaluate(tree, xp)
    _STATS["fused_launches"] += 1
    return result


def _device_of(array: Any) -> Any:
    """The CuPy device of ``array`` as a context manager (launch where the data is), else a no-op."""
    device = getattr(array, "device", None)
    return device if hasattr(device, "__enter__") else contextlib.nullcontext()


def _compile_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = []
    try:
        from cupy.cuda.compiler import CompileException

        errors.append(CompileException)
    except Exception:  # pragma: no cover - CuPy layout changed
        pass
    try:
        from cupy_backends.cuda.libs.nvrtc import NVRTCError

        errors.append(NVRTCError)
    except Exception:  # pragma: no cover
        pass
    return tuple(errors) or (RuntimeError,)


# --- the deferred column ----------------------------------------------------------------------------------------------
class DeferredColumn(NumericColumn):
    """A NumericColumn whose values are an elementwise expression computed on first read of ``data``.

    ``dtype``, ``size``, ``xp``, ``nbytes`` and ``mask`` (always None) are known without computing;
    everything else reads ``data``, which materializes once and caches the array.
    """

    __slots__ = ("_data", "_tree", "_size", "_xp")

    def __init__(self, tree: _Node, size: int, xp: types.ModuleType):
        self._tree: _Node | None = tree
        self._data: Any = None
        self._dtype = tree.dtype
        self._size = size
        self._xp = xp
        self.mask = None

    @property  # type: ignore[override]
    def data(self) -> Any:
        """The values (computed now, once, if they have not been)."""
        data = self._data
        if data is None:
            data = _materialize(self._tree, self._size, self._xp)
            self._data, self._tree = data, None  # drop the tree: its input arrays can be freed
        return data

    @data.setter
    def data(self, value: Any) -> None:
        self._data, self._tree = value, None

    @property
    def is_deferred(self) -> bool:
        """True until the values have been computed."""
        return self._tree is not None

    @property
    def xp(self) -> types.ModuleType:
        return self._xp

    @property
    def size(self) -> int:
        return self._size

    @property
    def nbytes(self) -> int:
        return self._size * self._dtype.itemsize

    @classmethod
    def from_arrow(cls, array: Any, xp: types.ModuleType) -> NumericColumn:
        return NumericColumn.from_arrow(array, xp)

    def __reduce__(self) -> Any:
        return NumericColumn, (self.data, self._dtype)

    def __repr__(self) -> str:
        state = f"deferred, {self._tree.n_nodes} ops" if self._tree is not None else "materialized"
        return f"<DeferredColumn dtype={self._dtype} size={self._size} on {self._xp.__name__} ({state})>"


# --- the hook ---------------------------------------------------------------------------------------------------------
def _fusable_column(column: Any) -> bool:
    return (
        isinstance(column, NumericColumn)
        and column.mask is None
        and isinstance(column.dtype, np.dtype)
        and column.dtype in _OPERAND_DTYPES
    )


def _tree_of(column: NumericColumn) -> Any:
    if isinstance(column, DeferredColumn) and column._tree is not None:
        return column._tree
    return _Array(column.data)


def _fits_cap(node: _Node) -> bool:
    return node.n_nodes <= MAX_NODES and len(node.arrays) <= MAX_ARRAYS


def try_defer(left: Any, right: Any, op: str, reflected: bool) -> DeferredColumn | None:
    """A deferred column for ``left <op> right`` (``right <op> left`` when ``reflected``), or None for the eager path.

    See the module docstring for when it applies.
    """
    if not ENABLED or op not in FUSABLE_OPS or not _fusable_column(left):
        return None
    xp = left.xp
    if xp is np and not _ALLOW_HOST:
        return None
    right_is_column = isinstance(right, NumericColumn)
    if right_is_column:
        if not _fusable_column(right) or right.size != left.size or right.xp is not xp:
            return None
    elif _scalar_type(right) is None:
        return None

    def build() -> _Node | None:
        lhs = _tree_of(left)
        rhs = _tree_of(right) if right_is_column else right
        return _make_node(op, rhs, lhs) if reflected else _make_node(op, lhs, rhs)

    node = build()
    if node is None:
        return None
    if not _fits_cap(node):
        # Too big for one kernel: compute the deferred operands first (right, then left) and start a new tree.
        for operand in (right, left):
            if isinstance(operand, DeferredColumn) and operand.is_deferred:
                operand.data  # noqa: B018 - materializes
                node = build()
                if node is None or _fits_cap(node):
                    break
        if node is None:
            return None
    _STATS["deferred"] += 1
    return DeferredColumn(node, left.size, xp)
