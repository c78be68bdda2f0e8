"""Python functions translated to the IR of :mod:`riptide.core.udf.ir`.

Why the source and not the bytecode
-----------------------------------
The translator reads the function's source (``ast``), not its bytecode (``dis``): the AST is stable across Python
versions, keeps ``a < b < c``, ``and``/``or`` and ``x if c else y`` as the structures they are (bytecode turns them
into jumps that would have to be re-assembled into expressions), and its nodes carry positions that name the
construct in the fallback warning. The source comes from ``linecache`` (files, and IPython cells, which it
registers), parsed whole so that a lambda in the middle of a multi-line call parses. A ``def`` is found by name and
first line; a lambda by its first line and, when a line holds several lambdas, by the source positions Python 3.11+
records for each instruction of the code object (the lambda whose span holds them all, the innermost one).
A function without source (built with ``exec``, or in a plain ``python -c``) takes the fallback.

What is translated
------------------
Arguments, numeric constants, numbers (and ``math``, ``numpy``) read from globals and closures *at compile time*
(the cache key includes their values), ``+ - * / // % **``, unary ``- + ~ not``, ``& | ^``, comparisons (chained
too), ``and``/``or`` (short-circuiting: the right side's errors count only where it is evaluated), ``x if c else
y``, ``if``/``elif``/``else`` with returns anywhere, local assignments (``=``, ``+=``), ``import math``,
``import numpy as np`` and ``from math import ...`` inside the function, ``math`` functions and constants, ``abs``,
``min``/``max`` of scalars, ``round`` (banker's rounding; any constant ``ndigits``, correctly rounded as CPython
does), ``float``, ``int``, ``bool``, ``pow``, NumPy's scalar functions (``np.sqrt``, ``np.log``, ``np.floor``,
``np.minimum``, ``np.isnan``, ``np.float64(...)``, ...: see :data:`NP_FLOAT1`; they return NumPy scalars, which
compute with NumPy's rules from then on) and, in ``DataFrame.apply(axis=1)``, ``row["a"]`` and ``row.a``.
Anything else raises :class:`Unsupported` naming it: loops, calls of other functions, strings, attribute access,
``None`` in arithmetic, ``np.where`` (it returns an array).

Values that are ints on some rows and floats on others
------------------------------------------------------
``min(x, 10)`` of a float ``x`` is the int 10 on some rows and the float ``x`` on others, and Python keeps that
difference: ``max(min(x, 10), -10) // 3`` floors an int on one row and a float on another, and pandas infers the
result's dtype from the types of the values returned (int64 when every row returned an int). Such a value is a
:class:`_Num`: the value as a float64 node (exact: an int beyond 2**53 entering one raises the row's error flag and
the function re-runs on the host) and a bool node, whether the row holds an int. Every operation on a ``_Num``
*splits*: it is translated once with the int (a node of the int type) and once with the float, and the two results
are joined by a ``select`` on the row's bit (two types again make a ``_Num``). So every operation keeps its exact
Python semantics per row (int ``//`` and ``%``, true division, exact comparisons), at the price of computing both
versions in the array back end (the CUDA kernel branches). ``int ** int`` with an exponent that is not a constant
is such a value too: an int where the exponent is >= 0, a float where it is negative.

A function may *return* different types on different paths (``x if x > 0 else 0.5``, ``None`` on one path): the
result is then a :class:`Result` with a per-row kind, and pandas' inference over the kinds actually returned
decides the dtype (see :mod:`riptide.core.udf.compiler`).

``if`` statements whose branches do not return merge their variables into ``select`` nodes; an ``if`` whose
branches return continues each branch with the rest of the function (at most :data:`MAX_PATHS` paths).
"""

from __future__ import annotations

import ast
import builtins
import dis
import linecache
import math
import operator
import textwrap
import types
from typing import Any, NamedTuple

import numpy as np

from riptide.core.udf import ir
from riptide.core.udf.ir import BOOL, FLOAT, INT, NONE, NP_FLOAT, Node, Type, Unsupported
from riptide.core.udf.ops import MATH1, MATH2

__all__ = ["Result", "RowArg", "translate", "translate_builtin", "MAX_PATHS"]

#: At most this many paths through a function (each ``if`` whose branches return doubles the code after it).
MAX_PATHS = 64
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
           ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "and_", ast.BitOr: "or_", ast.BitXor: "xor"}  # fmt: skip
_CMPOPS = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
_PY_OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
           "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "and_": operator.and_,
           "or_": operator.or_, "xor": operator.xor, "eq": operator.eq, "ne": operator.ne, "lt": operator.lt,
           "le": operator.le, "gt": operator.gt, "ge": operator.ge}  # fmt: skip
_MATH_CONSTANTS = {"pi", "e", "tau", "inf", "nan"}
_NP_CONSTANTS = {"pi", "e", "inf", "nan", "euler_gamma"}
_KIND_CODES = {"bool": 0, "int": 1, "float": 2, "none": 3}
_MATH_BY_NP_NAME = {np_name: name for name, (np_name, _) in MATH1.items() if np_name is not None}
#: NumPy functions of one number returning a float64 (int arguments are converted): name -> math table name
NP_FLOAT1 = dict(_MATH_BY_NP_NAME)
#: NumPy functions of two numbers returning a float64: name -> math table name
NP_FLOAT2 = {"arctan2": "atan2", "hypot": "hypot", "copysign": "copysign"}
#: NumPy functions translated by rules of their own
NP_OTHER = {"abs", "absolute", "floor", "ceil", "trunc", "rint", "sign", "square", "minimum", "maximum",
            "fmin", "fmax", "power", "isnan", "isinf", "isfinite", "float64", "int64", "bool_", "round", "around",
            "degrees", "radians"}  # fmt: skip


class RowArg:
    """The row argument of ``DataFrame.apply(axis=1)``: ``columns`` maps label -> argument type."""

    def __init__(self, columns: dict[Any, Type]):
        self.columns = columns
        self.used: list[Any] = []  # labels read, in argument order

    def column(self, label: Any) -> Node:
        if label not in self.columns:
            raise Unsupported(f"reads row[{label!r}], which is not a column")
        if label not in self.used:
            self.used.append(label)
        return ir.arg(self.used.index(label), self.columns[label])


class Result(NamedTuple):
    """What a translated function computes: ``value`` when every path returns one type; otherwise ``value`` is
    None and ``as_float``, ``as_int`` and ``kind`` (0 bool, 1 int, 2 float, 3 None per row) describe it."""

    value: Node | None
    as_float: Node | None = None
    as_int: Node | None = None
    kind: Node | None = None

    def outputs(self) -> list[Node]:
        return [self.value] if self.value is not None else [self.as_float, self.as_int, self.kind]


class _Ref(NamedTuple):
    """A compile-time value that is not a number: a module, a builtin, math or NumPy function."""

    what: str  # "module", "function"
    name: str  # "math", "numpy", "abs", "math.sqrt", "np.sqrt"


class _Num(NamedTuple):
    """A value that is an int on some rows and a float on others (see the module docstring): ``value`` holds it
    as a float (exactly), ``isint`` whether the row's value is an int; ``int_type`` and ``float_type`` are the two
    types (Python's or NumPy's)."""

    isint: Node
    value: Node
    int_type: Type
    float_type: Type

    @property
    def type(self) -> Type:
        return Type("num")


_UNBOUND = object()


def translate(func: Any, arg_types: list[Type | RowArg], bound: dict[str, Any]) -> Result:
    """Translate ``func`` whose leading parameters receive ``arg_types`` (one :class:`Type` per element argument,
    or one :class:`RowArg`) and whose other parameters are ``bound`` to compile-time values."""
    tree = _function_node(func)
    return _Translator(func, tree, arg_types, bound).run()


def translate_builtin(func: Any, arg_type: Type) -> Result:
    """``s.apply(math.sqrt)``, ``s.apply(abs)``, ...: a builtin of one argument called on the element."""
    name = _builtin_name(func)
    if name is None:
        raise Unsupported(f"calls {getattr(func, '__name__', type(func).__name__)!r}, which is not a math function")
    t = _Translator.__new__(_Translator)
    t.func, t.locals_ = func, set()
    return Result(t.call_named(name, [ir.arg(0, arg_type)]))


def _builtin_name(func: Any) -> str | None:
    for name in ("abs", "round", "float", "int", "bool", "min", "max", "pow"):
        if func is getattr(builtins, name):
            return name
    name = getattr(func, "__name__", "")
    if isinstance(name, str) and (name in NP_FLOAT1 or name in NP_FLOAT2 or name in NP_OTHER):
        if getattr(np, name, None) is func:
            return f"np.{name}"
    if getattr(func, "__module__", None) == "math" or func is getattr(math, getattr(func, "__name__", ""), None):
        name = getattr(func, "__name__", "")
        if getattr(math, name, None) is func:
            return f"math.{name}"
    return None


# --- finding the source ----------------------------------------------------------------------------------------------
def _function_node(func: Any) -> ast.FunctionDef | ast.Lambda:
    code = func.__code__
    lines = linecache.getlines(code.co_filename, func.__globals__)
    if not lines:
        raise Unsupported("has no source code riptide can read")
    try:
        module = ast.parse("".join(lines))
    except SyntaxError:
        module = None
    if code.co_name == "<lambda>":
        if module is None:
            raise Unsupported("has source code that does not parse")
        candidates = [n for n in ast.walk(module) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno]
        return _pick_lambda(candidates, code)
    if module is not None:
        for n in ast.walk(module):
            if isinstance(n, ast.FunctionDef) and n.name == code.co_name:
                first = min([n.lineno] + [d.lineno for d in n.decorator_list])
                if first == code.co_firstlineno or n.lineno == code.co_firstlineno:
                    return n
    # the file changed since, or holds other code: the function's own lines, dedented
    try:
        import inspect

        source = textwrap.dedent(inspect.getsource(func))
        for n in ast.walk(ast.parse(source)):
            if isinstance(n, ast.FunctionDef) and n.name == code.co_name:
                return n
    except (OSError, TypeError, SyntaxError):
        pass
    raise Unsupported("has no source code riptide can read")


def _pick_lambda(candidates: list[ast.Lambda], code: types.CodeType) -> ast.Lambda:
    params = list(code.co_varnames[: code.co_argcount])
    candidates = [n for n in candidates if [a.arg for a in n.args.args] == params]
    if len(candidates) == 1:
        return candidates[0]
    positions = []
    for instruction in dis.get_instructions(code):
        p = instruction.positions
        if p is None or p.lineno is None or p.col_offset is None or p.end_lineno is None or p.end_col_offset is None:
            continue
        if (p.end_lineno, p.end_col_offset) > (p.lineno, p.col_offset):  # (RESUME, RETURN_VALUE have no span)
            positions.append((p.lineno, p.col_offset, p.end_lineno, p.end_col_offset))
    if candidates and positions:
        start = min((p[0], p[1]) for p in positions)
        end = max((p[2], p[3]) for p in positions)
        holding = [n for n in candidates
                   if (n.lineno, n.col_offset) <= start and end <= (n.end_lineno, n.end_col_offset)]  # fmt: skip
        if holding:
            return min(holding, key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset))
    raise Unsupported("is a lambda riptide cannot tell apart from the others on its line")


# --- the translator -----------------------------------------------------------------------------------------------
class _Translator:
    def __init__(self, func: Any, tree: ast.FunctionDef | ast.Lambda, arg_types: list[Any], bound: dict[str, Any]):
        self.func = func
        self.tree = tree
        self.arg_types = arg_types
        self.bound = bound
        code = func.__code__
        self.locals_ = set(code.co_varnames)
        self.closure = {}
        for name, cell in zip(code.co_freevars, func.__closure__ or ()):
            try:
                self.closure[name] = cell.cell_contents
            except ValueError:
                self.closure[name] = _UNBOUND
        self.paths = 1

    def run(self) -> Result:
        args = self.tree.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise Unsupported("takes *args, **kwargs or keyword-only parameters")
        names = [a.arg for a in args.args]
        env: dict[str, Any] = {}
        for i, name in enumerate(names):
            if i < len(self.arg_types):
                t = self.arg_types[i]
                env[name] = t if isinstance(t, RowArg) else ir.arg(i, t)
            elif name in self.bound:
                env[name] = self.value_of(self.bound[name], name)
            else:
                raise Unsupported(f"has a parameter {name!r} without a value")
        if isinstance(self.tree, ast.Lambda):
            ret = self.ret_expr(self.tree.body, env)
        else:
            ret = self.block(list(self.tree.body), env)
        return _finish(ret)

    # --- values from outside ---------------------------------------------------------------------------------------
    def value_of(self, value: Any, name: str) -> Any:
        if isinstance(value, bool | np.bool_):
            return ir.const(bool(value), BOOL)
        if isinstance(value, int | np.integer):
            if not _INT64_MIN <= int(value) <= _INT64_MAX:
                raise Unsupported(f"uses {name} = {value}, beyond int64")
            return ir.const(int(value), INT)
        if isinstance(value, float | np.floating):
            return ir.const(float(value), FLOAT)
        if value is None:
            return ir.const(None, NONE)
        if value is math:
            return _Ref("module", "math")
        if value is np:
            return _Ref("module", "numpy")
        builtin = _builtin_name(value) if callable(value) else None
        if builtin is not None:
            return _Ref("function", builtin)
        if value is _UNBOUND:
            raise Unsupported(f"reads {name!r} before it is assigned")
        raise Unsupported(f"uses {name!r}, a {type(value).__name__} (only numbers and math can be compiled)")

    def lookup(self, name: str, env: dict[str, Any]) -> Any:
        if name in env:
            value = env[name]
            if value is _UNBOUND:
                raise Unsupported(f"reads {name!r}, which may be unassigned on some path")
            return value
        if name in self.locals_:
            raise Unsupported(f"reads {name!r} before it is assigned")
        if name in self.closure:
            return self.value_of(self.closure[name], name)
        if name in self.func.__globals__:
            return self.value_of(self.func.__globals__[name], name)
        if hasattr(builtins, name):
            return self.value_of(getattr(builtins, name), name)
        raise Unsupported(f"reads {name!r}, which is not defined")

    # --- statements --------------------------------------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt], env: dict[str, Any]) -> Any:
        """The return value (a node, or a ``("select", cond, then, else)`` tree of differently typed returns)."""
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Return):
                return ir.const(None, NONE) if stmt.value is None else self.ret_expr(stmt.value, env)
            if isinstance(stmt, ast.If):
                cond = self.truth(self.expr(stmt.test, env))
                rest = stmts[i + 1:]
                if cond.op == "const":
                    return self.block(list(stmt.body if cond.value else stmt.orelse) + rest, env)
                if _returns(stmt.body) or _returns(stmt.orelse):
                    self.paths += 1
                    if self.paths > MAX_PATHS:
                        raise Unsupported(f"has more than {MAX_PATHS} paths")
                    then = self.block(list(stmt.body) + rest, dict(env))
                    other = self.block(list(stmt.orelse) + rest, dict(env))
                    return _ret_select(cond, then, other)
                then_env, else_env = dict(env), dict(env)
                self.statements(stmt.body, then_env)
                self.statements(stmt.orelse, else_env)
                self.merge(cond, then_env, else_env, env)
                continue
            self.statement(stmt, env)
        return ir.const(None, NONE)  # falling off the end returns None

    def statements(self, stmts: list[ast.stmt], env: dict[str, Any]) -> None:
        """Statements without a return (the branches of an ``if`` that does not return)."""
        for stmt in stmts:
            if isinstance(stmt, ast.If):
                cond = self.truth(self.expr(stmt.test, env))
                if cond.op == "const":
                    self.statements(stmt.body if cond.value else stmt.orelse, env)
                    continue
                then_env, else_env = dict(env), dict(env)
                self.statements(stmt.body, then_env)
                self.statements(stmt.orelse, else_env)
                self.merge(cond, then_env, else_env, env)
            else:
                self.statement(stmt, env)

    def merge(self, cond: Node, then_env: dict, else_env: dict, env: dict) -> None:
        for name in set(then_env) | set(else_env):
            a, b = then_env.get(name, _UNBOUND), else_env.get(name, _UNBOUND)
            if a is _UNBOUND or b is _UNBOUND:
                env[name] = _UNBOUND
            elif a is b:
                env[name] = a
            elif isinstance(a, Node | _Num) and isinstance(b, Node | _Num):
                env[name] = self.select(cond, a, b, f"variable {name!r}")
            else:
                raise Unsupported(f"assigns {name!r} different kinds of values on different paths")

    def statement(self, stmt: ast.stmt, env: dict[str, Any]) -> None:
        if isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value, env)
            for target in stmt.targets:
                self.assign(target, value, stmt.value, env)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            current = self.lookup(stmt.target.id, env)
            env[stmt.target.id] = self.binop(_op_name(_BINOPS, stmt.op), current, self.expr(stmt.value, env))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            env[stmt.target.id] = self.expr(stmt.value, env)
        elif isinstance(stmt, ast.Import) and all(a.name in ("math", "numpy") for a in stmt.names):
            for alias in stmt.names:
                env[alias.asname or alias.name] = _Ref("module", alias.name)
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "math" and not stmt.level:
            for alias in stmt.names:
                if alias.name in _MATH_CONSTANTS:
                    env[alias.asname or alias.name] = ir.const(float(getattr(math, alias.name)), FLOAT)
                elif alias.name != "*" and hasattr(math, alias.name):
                    env[alias.asname or alias.name] = _Ref("function", f"math.{alias.name}")
                else:
                    raise Unsupported(f"imports {alias.name!r} from math")
        elif isinstance(stmt, ast.Pass):
            pass
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            pass  # a docstring
        else:
            raise Unsupported(f"has a {type(stmt).__name__.lower()} statement (line {stmt.lineno})")

    def assign(self, target: ast.expr, value: Any, value_node: ast.expr, env: dict[str, Any]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        else:
            raise Unsupported("assigns to something other than a name")

    # --- expressions ------------------------------------------------------------------------------------------------
    def ret_expr(self, e: ast.expr, env: dict[str, Any]) -> Any:
        """A returned expression: ``x if c else y`` may mix types here (each row's result has its own type)."""
        if isinstance(e, ast.IfExp):
            cond = self.truth(self.expr(e.test, env))
            if cond.op == "const":
                return self.ret_expr(e.body if cond.value else e.orelse, env)
            return _ret_select(cond, self.ret_expr(e.body, env), self.ret_expr(e.orelse, env))
        return self.node(self.expr(e, env), e)

    def node(self, value: Any, e: ast.expr) -> Any:
        """The node (or :class:`_Num`) of an expression's value; anything else is unsupported."""
        if isinstance(value, Node | _Num):
            return value
        if isinstance(value, RowArg):
            raise Unsupported("uses the row itself (only row['column'] and row.column are compiled)")
        raise Unsupported(f"uses {ast.unparse(e)!r}, which is not a number")

    def expr(self, e: ast.expr, env: dict[str, Any]) -> Any:
        if isinstance(e, ast.Constant):
            if isinstance(e.value, bool | int | float) or e.value is None:
                return self.value_of(e.value, repr(e.value))
            raise Unsupported(f"uses the constant {e.value!r}")
        if isinstance(e, ast.Name):
            return self.lookup(e.id, env)
        if isinstance(e, ast.Attribute):
            base = self.expr(e.value, env)
            if isinstance(base, RowArg):
                import pandas as pd

                if hasattr(pd.Series, e.attr):
                    raise Unsupported(f"reads row.{e.attr}, a Series attribute")
                return base.column(e.attr)
            if isinstance(base, _Ref) and base.name == "math":
                if e.attr in _MATH_CONSTANTS:
                    return ir.const(float(getattr(math, e.attr)), FLOAT)
                if hasattr(math, e.attr):
                    return _Ref("function", f"math.{e.attr}")
            if isinstance(base, _Ref) and base.name == "numpy":
                if e.attr in _NP_CONSTANTS:
                    return ir.const(float(getattr(np, e.attr)), FLOAT)
                if e.attr in NP_FLOAT1 or e.attr in NP_FLOAT2 or e.attr in NP_OTHER:
                    return _Ref("function", f"np.{e.attr}")
                raise Unsupported(f"calls np.{e.attr}, which is not compiled")
            raise Unsupported(f"reads the attribute {ast.unparse(e)!r}")
        if isinstance(e, ast.Subscript):
            base = self.expr(e.value, env)
            if isinstance(base, RowArg) and isinstance(e.slice, ast.Constant):
                return base.column(e.slice.value)
            raise Unsupported(f"indexes {ast.unparse(e)!r}")
        if isinstance(e, ast.BinOp):
            op = _op_name(_BINOPS, e.op)
            return self.binop(op, self.node(self.expr(e.left, env), e.left), self.node(self.expr(e.right, env), e.right))
        if isinstance(e, ast.UnaryOp):
            operand = self.node(self.expr(e.operand, env), e.operand)
            if isinstance(e.op, ast.Not):
                return self.fold(ir.node("not", self.truth(operand), type_=BOOL))
            return self.unary({ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert"}[type(e.op)], operand)
        if isinstance(e, ast.BoolOp):
            result = self.node(self.expr(e.values[0], env), e.values[0])
            for value_expr in e.values[1:]:
                value = self.node(self.expr(value_expr, env), value_expr)
                cond = self.truth(result)
                if isinstance(e.op, ast.And):
                    result = self.select(cond, value, result, "'and'")
                else:
                    result = self.select(cond, result, value, "'or'")
            return result
        if isinstance(e, ast.Compare):
            left = self.node(self.expr(e.left, env), e.left)
            result = None
            for op, right_expr in zip(e.ops, e.comparators):
                right = self.node(self.expr(right_expr, env), right_expr)
                if type(op) not in _CMPOPS:
                    raise Unsupported(f"uses the operator {type(op).__name__!r}")
                c = self.compare(_CMPOPS[type(op)], left, right)
                result = c if result is None else self.select(result, c, result, "a chained comparison")
                left = right
            return result
        if isinstance(e, ast.IfExp):
            cond = self.truth(self.expr(e.test, env))
            if cond.op == "const":
                return self.expr(e.body if cond.value else e.orelse, env)
            a = self.node(self.expr(e.body, env), e.body)
            b = self.node(self.expr(e.orelse, env), e.orelse)
            return self.select(cond, a, b, f"{ast.unparse(e)!r}")
        if isinstance(e, ast.Call):
            func = self.expr(e.func, env)
            if e.keywords:
                raise Unsupported(f"calls {ast.unparse(e.func)!r} with keyword arguments")
            if not isinstance(func, _Ref) or func.what != "function":
                raise Unsupported(f"calls {ast.unparse(e.func)!r}, which is not a math function")
            args = [self.node(self.expr(a, env), a) for a in e.args]
            return self.call_named(func.name, args)
        if isinstance(e, ast.Tuple):
            raise Unsupported("builds a tuple")
        raise Unsupported(f"uses {type(e).__name__} ({ast.unparse(e)!r})")

    # --- typing rules ---------------------------------------------------------------------------------------------------
    def fold(self, n: Node) -> Node:
        """Fold an operation on Python constants (computed with Python now; left alone if it raises)."""
        if not n.args or any(a.op != "const" or a.type.numpy for a in n.args):
            return n
        values = [a.value for a in n.args]
        try:
            if n.op in _PY_OPS:
                out = _PY_OPS[n.op](*values)
            elif n.op == "not":
                out = not values[0]
            elif n.op in ("bool_to_int", "same"):
                out = int(values[0]) if n.type.kind == "int" else values[0]
            elif n.op in ("to_float", "to_float_exact"):
                if n.op == "to_float_exact" and abs(values[0]) > 2**53:
                    return n  # (keeps the row's error: Python would not round it)
                out = float(values[0])
            elif n.op == "truth":
                out = bool(values[0])
            elif n.op == "neg":
                out = -values[0]
            else:
                return n
        except (ArithmeticError, ValueError, TypeError):
            return n
        if n.type.kind == "int" and isinstance(out, int) and not isinstance(out, bool):
            if _INT64_MIN <= out <= _INT64_MAX:
                return ir.const(out, n.type)
        elif n.type.kind == "float" and isinstance(out, float):
            return ir.const(out, n.type)
        elif n.type.kind == "bool" and isinstance(out, bool):
            return ir.const(out, n.type)
        return n

    # --- values that are ints on some rows and floats on others ------------------------------------------------------
    def split(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` where some arguments may be :class:`_Num`: translated once with each ``_Num``'s int and
        once with its float, joined by a ``select`` on the row's bit (see the module docstring)."""
        u = next((a for a in args if isinstance(a, _Num)), None)
        if u is None:
            return fn(*args)
        as_int = self.fold(ir.node("num_int", u.value, type_=u.int_type))
        ints = [as_int if a is u else a for a in args]
        floats = [u.value if a is u else a for a in args]
        return self.select(u.isint, self.split(fn, *ints), self.split(fn, *floats), "a value")

    def num_select(self, cond: Node, a: Any, b: Any, what: str) -> _Num:
        """``a`` where ``cond`` holds, else ``b``: an int on one side and a float on the other make a :class:`_Num`."""
        int_types = {t for v in (a, b) for t in self._num_types(v, "int")}
        float_types = {t for v in (a, b) for t in self._num_types(v, "float")}
        if None in int_types or None in float_types or len(int_types) != 1 or len(float_types) != 1:
            raise Unsupported(f"{what} is {_a(a.type)} on one path and {_a(b.type)} on another")
        (int_type,), (float_type,) = int_types, float_types

        def parts(v: Any) -> tuple[Node, Node]:
            if isinstance(v, _Num):
                return v.isint, v.value
            if v.type.kind == "int":  # exactly: an int beyond 2**53 flags the row (Python never rounds it)
                return ir.const(True, BOOL), self.fold(ir.node("to_float_exact", v, type_=float_type))
            return ir.const(False, BOOL), v

        (ia, va), (ib, vb) = parts(a), parts(b)
        if ia.op == ib.op == "const" and ia.value != ib.value:
            isint = cond if ia.value else ir.node("not", cond, type_=BOOL)
        else:
            isint = ir.select(cond, ia, ib)
        return _Num(isint, ir.select(cond, va, vb), int_type, float_type)

    @staticmethod
    def _num_types(v: Any, kind: str) -> list[Any]:
        """The int (or float) types ``v`` brings to a :class:`_Num`; None marks a value that cannot join one."""
        if isinstance(v, _Num):
            return [v.int_type if kind == "int" else v.float_type]
        if v.type.kind not in ("int", "float"):
            return [None]
        return [v.type] if v.type.kind == kind else []

    # --- typing rules ------------------------------------------------------------------------------------------------
    def select(self, cond: Node, a: Any, b: Any, what: str) -> Any:
        if cond.op == "const":
            return a if cond.value else b
        if isinstance(a, Node) and isinstance(b, Node):
            if a.type == b.type:
                return ir.select(cond, a, b)
            if a.type.kind == b.type.kind == "bool":
                return ir.select(cond, self.retype(a, BOOL), self.retype(b, BOOL))
        return self.num_select(cond, a, b, what)

    def retype(self, n: Node, t: Type) -> Node:
        return n if n.type == t else self.fold(ir.node("same", n, type_=t))

    def truth(self, value: Any) -> Node:
        if isinstance(value, _Num):
            return self.split(self.truth, value)
        n = self.node(value, ast.Constant(value=None)) if not isinstance(value, Node) else value
        if n.type.kind == "bool":
            return self.retype(n, BOOL)
        if n.type.kind == "none":
            return ir.const(False, BOOL)
        return self.fold(ir.node("truth", n, type_=BOOL))

    def to_int(self, n: Node) -> Node:
        """A bool as the int Python computes with (``True + 1``)."""
        if n.type.kind != "bool":
            return n
        if n.type.numpy:
            raise Unsupported("does arithmetic on NumPy booleans")
        return self.fold(ir.node("bool_to_int", n, type_=INT))

    def to_float(self, n: Node, numpy: bool, exact: bool = False) -> Node:
        if n.type.kind == "float":
            return self.retype(n, Type("float", numpy))
        n = self.to_int(n)
        return self.fold(ir.node("to_float_exact" if exact else "to_float", n, type_=Type("float", numpy)))

    def int_pair(self, a: Node, b: Node) -> tuple[Node, Node, Type]:
        """Two int operands in their common type, as NumPy promotes them (a Python int is 'weak': it takes the
        NumPy operand's type, ``np.int32(1) + 1`` is an ``np.int32``; a constant out of its range raises in NumPy,
        a value that may be is unsupported)."""
        numpy = a.type.numpy or b.type.numpy
        narrow = [x for x in (a, b) if x.type.numpy and x.type.bits < 64]
        if not narrow:
            t = Type("int", numpy)
            return self.retype(a, t), self.retype(b, t), t
        bits = max(x.type.bits for x in narrow)
        for x in (a, b):
            if x.type.numpy:
                bits = max(bits, x.type.bits)
                continue
            fits = x.op == "bool_to_int" or (x.op == "const" and -(2 ** (bits - 1)) <= x.value < 2 ** (bits - 1))
            if not fits:
                raise Unsupported(f"mixes a NumPy int{bits} with a Python int that may not fit it (NumPy raises)")
        t = Type("int", True, bits)
        return self.retype(a, t), self.retype(b, t), t

    def wrapped(self, op: str, args: list[Node], t: Type, value: Any = None) -> Node:
        """``op`` on NumPy ints of type ``t``: computed in int64, wrapped to ``t``'s width."""
        if t.bits == 64:
            return self.fold(ir.node(op, *args, type_=t, value=value))
        wide = Type("int", True)
        inner = ir.node(op, *[self.retype(a, wide) for a in args], type_=wide, value=value)
        return ir.node("wrap", inner, type_=t, value=t.bits)

    def binop(self, op: str, a: Any, b: Any) -> Any:
        if isinstance(a, _Num) or isinstance(b, _Num):
            return self.split(lambda x, y: self.binop(op, x, y), a, b)
        if a.type.kind == "none" or b.type.kind == "none":
            raise Unsupported(f"uses None in arithmetic ({op})")
        numpy = a.type.numpy or b.type.numpy
        if op in ("and_", "or_", "xor"):
            if a.type.kind == "float" or b.type.kind == "float":
                raise Unsupported(f"uses the bitwise {op.rstrip('_')} of a float")
            if a.type.kind == b.type.kind == "bool":
                return self.fold(ir.node(op, self.retype(a, BOOL), self.retype(b, BOOL), type_=BOOL))
            a, b = self.to_int(a), self.to_int(b)
            a, b, t = self.int_pair(a, b)
            return self.wrapped(op, [a, b], t)
        a, b = self.to_int(a), self.to_int(b)
        if a.type.kind == "float" or b.type.kind == "float":
            t = Type("float", numpy)
            return self.fold(ir.node(op, self.to_float(a, numpy), self.to_float(b, numpy), type_=t))
        if op == "truediv":
            exact = not numpy
            return self.fold(ir.node(op, self.to_float(a, numpy, exact), self.to_float(b, numpy, exact),
                                     type_=Type("float", numpy)))  # fmt: skip
        a, b, t = self.int_pair(a, b)
        if op == "pow":
            if b.op != "const":
                if numpy:
                    return self.wrapped("pow", [a, b], t)
                # Python: an int where the exponent is >= 0; float(a) ** float(b) (a float) where it is negative
                as_int = ir.node("pow", a, b, type_=INT)
                as_float = self.binop("pow", self.to_float(a, False), self.to_float(b, False))
                return self.select(self.compare("ge", b, ir.const(0, INT)), as_int, as_float, "int ** int")
            if b.value < 0:
                if numpy:
                    raise Unsupported("raises a NumPy int to a negative power (NumPy raises ValueError)")
                return self.fold(ir.node("pow", self.to_float(a, False), ir.const(float(b.value), FLOAT),
                                         type_=FLOAT))  # fmt: skip
            return self.wrapped("pow", [a, b], t, value=int(b.value))
        return self.wrapped(op, [a, b], t)

    def unary(self, op: str, a: Any) -> Any:
        if isinstance(a, _Num):
            return self.split(lambda x: self.unary(op, x), a)
        if a.type.kind == "none":
            raise Unsupported(f"uses None in arithmetic ({op})")
        if op == "invert" and a.type == ir.NP_BOOL:
            return ir.node("not", self.retype(a, BOOL), type_=ir.NP_BOOL)
        a = self.to_int(a)
        if op == "pos":
            return a
        if a.type.kind == "int":
            return self.wrapped(op, [a], a.type)
        return self.fold(ir.node(op, a, type_=a.type))

    def compare(self, op: str, a: Any, b: Any) -> Any:
        if isinstance(a, _Num) or isinstance(b, _Num):
            return self.split(lambda x, y: self.compare(op, x, y), a, b)
        if a.type.kind == "none" or b.type.kind == "none":
            raise Unsupported("compares with None")
        numpy = a.type.numpy or b.type.numpy
        out = Type("bool", numpy)
        if a.type.kind == b.type.kind == "bool":
            return self.fold(ir.node(op, self.retype(a, BOOL), self.retype(b, BOOL), type_=out))
        a, b = self.to_int(a), self.to_int(b)
        if a.type.kind == "float" or b.type.kind == "float":
            exact = not numpy
            a, b = self.to_float(a, numpy, exact), self.to_float(b, numpy, exact)
        else:  # (exact, whatever the widths: NumPy compares an int32 with any Python int exactly)
            a, b = self.retype(a, Type("int", numpy)), self.retype(b, Type("int", numpy))
        return self.fold(ir.node(op, a, b, type_=out))

    def as_python_float(self, n: Any) -> Node:
        if isinstance(n, _Num):
            return self.retype(n.value, FLOAT)  # (exact: the int of a _Num is within 2**53)
        if n.type.kind == "none":
            raise Unsupported("passes None to a math function")
        return self.to_float(n, False)

    def call_named(self, name: str, args: list[Any]) -> Any:
        def arity(*counts: int) -> None:
            if len(args) not in counts:
                raise Unsupported(f"calls {name} with {len(args)} arguments")

        if name not in ("min", "max") and any(isinstance(a, _Num) for a in args):
            return self.split(lambda *xs: self.call_named(name, list(xs)), *args)
        if name.startswith("np."):
            return self.np_call(name[3:], args)
        if name.startswith("math."):
            fn = name[5:]
            if fn in MATH1:
                arity(1)
                return ir.node(f"m1_{fn}", self.as_python_float(args[0]), type_=FLOAT)
            if fn in MATH2:
                arity(2)
                x, y = (self.as_python_float(a) for a in args)
                return ir.node(f"m2_{fn}", x, y, type_=FLOAT)
            if fn == "log":
                arity(1, 2)
                num = ir.node("m1_log", self.as_python_float(args[0]), type_=FLOAT)
                if len(args) == 1:
                    return num
                den = ir.node("m1_log", self.as_python_float(args[1]), type_=FLOAT)
                return ir.node("truediv", num, den, type_=FLOAT)
            if fn in ("floor", "ceil", "trunc"):
                arity(1)
                return self.to_python_int(args[0], f"{fn}_int")
            if fn in ("isnan", "isinf", "isfinite"):
                arity(1)
                if args[0].type.kind != "float":
                    self.as_python_float(args[0])  # checks the argument
                    return ir.const(fn == "isfinite", BOOL)
                return ir.node(fn, args[0], type_=BOOL)
            if fn in ("degrees", "radians"):
                arity(1)
                factor = 180.0 / math.pi if fn == "degrees" else math.pi / 180.0
                return ir.node("mul", self.as_python_float(args[0]), ir.const(factor, FLOAT), type_=FLOAT)
            raise Unsupported(f"calls {name}, which is not compiled")
        if name == "abs":
            arity(1)
            a = self.to_int(args[0])
            if a.type.kind == "none":
                raise Unsupported("calls abs(None)")
            return self.unary("abs", a)
        if name == "float":
            arity(1)
            return self.as_python_float(args[0])
        if name == "int":
            arity(1)
            return self.to_python_int(args[0], "trunc_int")
        if name == "bool":
            arity(1)
            return self.truth(args[0])
        if name == "round":
            arity(1, 2)
            x = args[0]
            if x.type.kind == "none":
                raise Unsupported("calls round(None)")
            if len(args) == 1 or (args[1].op == "const" and args[1].value is None):
                return self.to_python_int(x, "round_int")
            ndigits = args[1]
            if ndigits.op != "const" or ndigits.type.kind not in ("int", "bool") or ndigits.type.numpy:
                raise Unsupported("calls round with an ndigits that is not a constant int")
            return self.round_digits(x, int(ndigits.value))
        if name in ("min", "max"):
            if len(args) < 2:
                raise Unsupported(f"calls {name} of one argument (an iterable)")
            result = args[0]
            for v in args[1:]:
                better = self.compare("gt" if name == "max" else "lt", v, result)
                result = self.select(self.retype(better, BOOL), v, result, f"{name}(...)")
            return result
        if name == "pow":
            arity(2)
            return self.binop("pow", args[0], args[1])
        raise Unsupported(f"calls {name!r}, which is not a math function")

    def round_digits(self, x: Node, n: int) -> Node:
        """``round(x, n)``: Python's for Python numbers, NumPy's (scale, ``rint``, unscale) for NumPy floats."""
        if x.type.kind == "bool":
            x = self.to_int(x)
        if x.type.kind == "int":
            if n >= 0:
                return x
            if x.type.numpy:
                raise Unsupported("rounds a NumPy int to a negative ndigits")
            return self.round_int_digits(x, -n)
        if x.type.numpy:
            if abs(n) > 22:
                raise Unsupported(f"rounds a NumPy float to {n} digits")
            scale = ir.const(10.0 ** abs(n), FLOAT)
            if n >= 0:
                scaled = self.binop("mul", x, scale)
                return self.binop("truediv", ir.node("round_float", scaled, type_=scaled.type), scale)
            scaled = self.binop("truediv", x, scale)
            return self.binop("mul", ir.node("round_float", scaled, type_=scaled.type), scale)
        if n == 0:
            return ir.node("round_float", x, type_=FLOAT)
        return ir.node("round_digits", x, type_=FLOAT, value=n)

    def round_int_digits(self, x: Node, k: int) -> Node:
        """``round(x, -k)`` of a Python int: the multiple of 10**k nearest ``x``, ties to the even multiple."""
        if k >= 19:
            if k == 19:  # (a row may round to 10**19, beyond int64)
                raise Unsupported("rounds an int to -19 digits")
            return ir.const(0, INT)
        p = ir.const(10**k, INT)
        q, rem = self.binop("floordiv", x, p), self.binop("mod", x, p)  # rem >= 0 (p > 0)
        twice = self.binop("mul", rem, ir.const(2, INT))
        odd = self.compare("eq", self.binop("mod", q, ir.const(2, INT)), ir.const(1, INT))
        tie_up = self.binop("and_", self.compare("eq", twice, p), odd)
        up = self.binop("or_", self.compare("gt", twice, p), tie_up)
        m = self.select(up, self.binop("add", q, ir.const(1, INT)), q, "round")
        return self.binop("mul", m, p)

    def np_call(self, fn: str, args: list[Node]) -> Node:
        """NumPy's function ``fn`` of scalars: NumPy's result type (a NumPy scalar) and semantics (no errors)."""
        if len(args) != (2 if fn in NP_FLOAT2 or fn in ("minimum", "maximum", "fmin", "fmax", "power") else 1):
            if not (fn in ("round", "around") and len(args) == 2):
                raise Unsupported(f"calls np.{fn} with {len(args)} arguments")
        for a in args:
            if a.type.kind == "none":
                raise Unsupported(f"passes None to np.{fn}")

        def as_float(n: Node) -> Node:
            if n.type.kind == "bool":
                raise Unsupported(f"calls np.{fn} on a bool (NumPy computes in float16)")
            return self.to_float(n, True)

        def as_numpy(n: Node) -> Node:
            """The NumPy scalar of ``n``'s own kind (a Python int becomes an np.int64)."""
            if n.type.kind == "bool":
                raise Unsupported(f"calls np.{fn} on a bool")
            if n.type.numpy:
                return n
            return self.retype(n, Type(n.type.kind, True))

        x = args[0]
        if fn in NP_FLOAT1:
            return ir.node(f"m1_{NP_FLOAT1[fn]}", as_float(x), type_=NP_FLOAT)
        if fn in NP_FLOAT2:
            return ir.node(f"m2_{NP_FLOAT2[fn]}", as_float(x), as_float(args[1]), type_=NP_FLOAT)
        if fn in ("degrees", "radians"):
            factor = 180.0 / math.pi if fn == "degrees" else math.pi / 180.0
            return ir.node("mul", as_float(x), ir.const(factor, NP_FLOAT), type_=NP_FLOAT)
        if fn in ("abs", "absolute"):
            return self.unary("abs", as_numpy(x))
        if fn in ("floor", "ceil", "trunc", "rint"):
            if x.type.kind != "float" and fn != "rint":
                return as_numpy(x)  # NumPy 2 keeps an int an int
            return ir.node(f"np1_{fn}", as_float(x), type_=NP_FLOAT)
        if fn == "square":
            x = as_numpy(x)
            return self.binop("mul", x, x)
        if fn == "sign":
            x = as_numpy(x)
            zero = ir.const(0.0 if x.type.kind == "float" else 0, x.type)
            one, minus_one = (ir.const(v if x.type.kind == "int" else float(v), x.type) for v in (1, -1))
            is_zero = self.retype(self.compare("eq", x, zero), BOOL)
            inner = ir.select(is_zero, zero, x)  # (NaN stays NaN; -0.0 gives 0.0)
            inner = ir.select(self.retype(self.compare("lt", x, zero), BOOL), minus_one, inner)
            return ir.select(self.retype(self.compare("gt", x, zero), BOOL), one, inner)
        if fn in ("minimum", "maximum", "fmin", "fmax"):
            a, b = args
            if a.type.kind == "float" or b.type.kind == "float":
                a, b = as_float(a), as_float(b)
            else:
                a, b, _ = self.int_pair(as_numpy(a), as_numpy(b))
            # NumPy: maximum/minimum give b when equal and propagate a NaN; fmax/fmin give a when equal and
            # ignore a NaN
            cmp = {"maximum": "gt", "minimum": "lt", "fmax": "ge", "fmin": "le"}[fn]
            take_a = self.retype(self.compare(cmp, a, b), BOOL)
            if a.type.kind == "float":
                nan = ir.node("isnan", a if fn in ("maximum", "minimum") else b, type_=BOOL)
                take_a = ir.node("or_", take_a, nan, type_=BOOL)
            return ir.select(take_a, a, b)
        if fn == "power":
            a, b = args
            if a.type.kind == "float" or b.type.kind == "float":
                return ir.node("m2_pow", as_float(a), as_float(b), type_=NP_FLOAT)
            a, b, _ = self.int_pair(as_numpy(a), as_numpy(b))
            return self.binop("pow", a, b)
        if fn in ("isnan", "isinf", "isfinite"):
            if x.type.kind != "float":
                return ir.const(fn == "isfinite", ir.NP_BOOL)
            return ir.node(fn, x, type_=ir.NP_BOOL)
        if fn == "float64":
            return self.to_float(x, True)
        if fn == "int64":
            if x.type.kind == "float":
                return ir.node("trunc_int", x, type_=ir.NP_INT)  # NaN: ValueError; beyond int64: OverflowError
            return self.retype(self.to_int(x), ir.NP_INT)
        if fn == "bool_":
            return self.retype(self.truth(x), ir.NP_BOOL)
        if fn in ("round", "around"):
            decimals = args[1] if len(args) == 2 else ir.const(0, INT)
            if decimals.op != "const" or decimals.type.kind != "int":
                raise Unsupported(f"calls np.{fn} with decimals that are not a constant int")
            x = as_numpy(x)
            if x.type.kind == "float" and decimals.value == 0:
                return ir.node("round_float", x, type_=x.type)
            return self.round_digits(x, int(decimals.value))
        raise Unsupported(f"calls np.{fn}, which is not compiled")

    def to_python_int(self, n: Any, op: str) -> Any:
        if isinstance(n, _Num):
            return self.split(lambda x: self.to_python_int(x, op), n)
        if n.type.kind == "none":
            raise Unsupported("converts None to an int")
        if n.type.kind in ("bool", "int"):
            return self.retype(self.to_int(n), INT)
        return ir.node(op, n, type_=INT)


def _a(t: Type) -> str:
    text = str(t)
    return f"an {text}" if text[0] in "aeiou" else f"a {text}"


def _op_name(table: dict, op: ast.AST) -> str:
    name = table.get(type(op))
    if name is None:
        raise Unsupported(f"uses the operator {type(op).__name__!r}")
    return name


def _returns(stmts: list[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


def _ret_select(cond: Node, then: Any, other: Any) -> Any:
    if isinstance(then, Node) and isinstance(other, Node):
        if then.type == other.type:
            return ir.select(cond, then, other)
        if then.type.kind == other.type.kind == "bool":
            return ir.select(cond, _same(then, BOOL), _same(other, BOOL))
    return ("select", cond, then, other)


def _same(n: Node, t: Type) -> Node:
    return n if n.type == t else ir.node("same", n, type_=t)


def _leaves(ret: Any) -> list[Any]:
    if isinstance(ret, Node | _Num):
        return [ret]
    return _leaves(ret[2]) + _leaves(ret[3])


def _finish(ret: Any) -> Result:
    if isinstance(ret, Node):
        return Result(ret)
    leaves = _leaves(ret)
    if all(isinstance(leaf, Node) and leaf.type.kind == "bool" for leaf in leaves):
        return Result(_build(ret, lambda leaf: _same(leaf, BOOL)))
    for leaf in leaves:
        t = leaf.int_type if isinstance(leaf, _Num) else leaf.type
        if t.kind == "int" and t.bits != 64:
            raise Unsupported(f"returns {_a(t)} on some paths and other types on others")

    def as_float(leaf: Any) -> Node:
        if isinstance(leaf, _Num):
            return _same(leaf.value, FLOAT)
        if leaf.type.kind == "none":
            return ir.const(math.nan, FLOAT)
        if leaf.type.kind == "float":
            return _same(leaf, FLOAT)
        return ir.node("to_float", leaf if leaf.type.kind == "int" else ir.node("bool_to_int", leaf, type_=INT),
                       type_=FLOAT)  # fmt: skip

    def as_int(leaf: Any) -> Node:
        if isinstance(leaf, _Num):
            return ir.node("num_int", leaf.value, type_=INT)
        if leaf.type.kind in ("none", "float"):
            return ir.const(0, INT)
        return _same(leaf, INT) if leaf.type.kind == "int" else ir.node("bool_to_int", leaf, type_=INT)

    def kind(leaf: Any) -> Node:
        if isinstance(leaf, _Num):
            return ir.select(leaf.isint, ir.const(_KIND_CODES["int"], INT), ir.const(_KIND_CODES["float"], INT))
        return ir.const(_KIND_CODES[leaf.type.kind], INT)

    return Result(None, _build(ret, as_float), _build(ret, as_int), _build(ret, kind))


def _build(ret: Any, leaf_fn: Any) -> Node:
    if isinstance(ret, Node | _Num):
        return leaf_fn(ret)
    _, cond, then, other = ret
    a, b = _build(then, leaf_fn), _build(other, leaf_fn)
    return ir.select(cond, a, b)
