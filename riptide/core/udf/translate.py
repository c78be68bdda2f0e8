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
Arguments, numeric constants, numbers (and ``math``) read from globals and closures *at compile time* (the cache
key includes their values), ``+ - * / // % **``, unary ``- + ~ not``, ``& | ^``, comparisons (chained too),
``and``/``or`` (short-circuiting: the right side's errors count only where it is evaluated), ``x if c else y``,
``if``/``elif``/``else`` with returns anywhere, local assignments (``=``, ``+=``), ``import math`` and
``from math import ...`` inside the function,
``math`` functions and constants, ``abs``, ``min``/``max`` of scalars, ``round`` (banker's rounding; ``ndigits``
0 or None), ``float``, ``int``, ``bool``, ``pow`` and, in ``DataFrame.apply(axis=1)``, ``row["a"]`` and ``row.a``.
Anything else raises :class:`Unsupported` naming it: loops, calls of other functions, strings, attribute access,
``None`` in arithmetic, a variable whose type depends on the branch taken (an ``int`` in one, a ``float`` in the
other), ``int ** int`` with a non-constant exponent (its type depends on the exponent's sign).

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
from riptide.core.udf.ir import BOOL, FLOAT, INT, NONE, Node, Type, Unsupported
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
_KIND_CODES = {"bool": 0, "int": 1, "float": 2, "none": 3}


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
    """A compile-time value that is not a number: a module, a builtin or math function."""

    what: str  # "module", "function"
    name: str  # "math", "abs", "math.sqrt"


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
            elif isinstance(a, Node) and isinstance(b, Node):
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
        elif isinstance(stmt, ast.Import) and all(a.name == "math" for a in stmt.names):
            for alias in stmt.names:
                env[alias.asname or "math"] = _Ref("module", "math")
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

    def node(self, value: Any, e: ast.expr) -> Node:
        if isinstance(value, Node):
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

    def select(self, cond: Node, a: Node, b: Node, what: str) -> Node:
        if cond.op == "const":
            return a if cond.value else b
        if a.type != b.type:
            if a.type.kind == b.type.kind == "bool":
                a, b = self.retype(a, BOOL), self.retype(b, BOOL)
            else:
                raise Unsupported(f"{what} is {_a(a.type)} on one path and {_a(b.type)} on another")
        return ir.select(cond, a, b)

    def retype(self, n: Node, t: Type) -> Node:
        return n if n.type == t else self.fold(ir.node("same", n, type_=t))

    def truth(self, value: Any) -> Node:
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

    def binop(self, op: str, a: Node, b: Node) -> Node:
        if a.type.kind == "none" or b.type.kind == "none":
            raise Unsupported(f"uses None in arithmetic ({op})")
        numpy = a.type.numpy or b.type.numpy
        if op in ("and_", "or_", "xor"):
            if a.type.kind == "float" or b.type.kind == "float":
                raise Unsupported(f"uses the bitwise {op.rstrip('_')} of a float")
            if a.type.kind == b.type.kind == "bool":
                return self.fold(ir.node(op, self.retype(a, BOOL), self.retype(b, BOOL), type_=BOOL))
            a, b = self.to_int(a), self.to_int(b)
            return self.fold(ir.node(op, a, b, type_=Type("int", numpy)))
        a, b = self.to_int(a), self.to_int(b)
        if a.type.kind == "float" or b.type.kind == "float":
            t = Type("float", numpy)
            return self.fold(ir.node(op, self.to_float(a, numpy), self.to_float(b, numpy), type_=t))
        t = Type("int", numpy)
        a, b = self.retype(a, t), self.retype(b, t)
        if op == "truediv":
            exact = not numpy
            return self.fold(ir.node(op, self.to_float(a, numpy, exact), self.to_float(b, numpy, exact),
                                     type_=Type("float", numpy)))  # fmt: skip
        if op == "pow":
            if b.op != "const":
                if numpy:
                    return ir.node("pow", a, b, type_=t)
                raise Unsupported("raises an int to a non-constant int power (an int or a float by its sign)")
            if b.value < 0:
                if numpy:
                    raise Unsupported("raises a NumPy int to a negative power (NumPy raises ValueError)")
                return self.fold(ir.node("pow", self.to_float(a, False), ir.const(float(b.value), FLOAT),
                                         type_=FLOAT))  # fmt: skip
            return self.fold(ir.node("pow", a, b, type_=t, value=int(b.value)))
        return self.fold(ir.node(op, a, b, type_=t))

    def unary(self, op: str, a: Node) -> Node:
        if a.type.kind == "none":
            raise Unsupported(f"uses None in arithmetic ({op})")
        if op == "invert" and a.type == ir.NP_BOOL:
            return ir.node("not", self.retype(a, BOOL), type_=ir.NP_BOOL)
        a = self.to_int(a)
        if op == "pos":
            return a
        return self.fold(ir.node(op, a, type_=a.type))

    def compare(self, op: str, a: Node, b: Node) -> Node:
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
        else:
            a, b = self.retype(a, Type("int", numpy)), self.retype(b, Type("int", numpy))
        return self.fold(ir.node(op, a, b, type_=out))

    def as_python_float(self, n: Node) -> Node:
        if n.type.kind == "none":
            raise Unsupported("passes None to a math function")
        return self.to_float(n, False)

    def call_named(self, name: str, args: list[Node]) -> Node:
        def arity(*counts: int) -> None:
            if len(args) not in counts:
                raise Unsupported(f"calls {name} with {len(args)} arguments")

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
            return self.fold(ir.node("abs", a, type_=a.type))
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
            if len(args) == 1:
                return self.to_python_int(x, "round_int")
            ndigits = args[1]
            if ndigits.op != "const" or ndigits.type.kind not in ("int", "none"):
                raise Unsupported("calls round with a non-constant ndigits")
            if ndigits.value is None:
                return self.to_python_int(x, "round_int")
            if x.type.kind in ("int", "bool") and ndigits.value >= 0:
                return self.retype(self.to_int(x), Type("int", x.type.numpy))
            if x.type.kind == "float" and ndigits.value == 0:
                return ir.node("round_float", x, type_=x.type)
            raise Unsupported("calls round with ndigits other than 0 or None")
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

    def to_python_int(self, n: Node, op: str) -> Node:
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


def _leaves(ret: Any) -> list[Node]:
    if isinstance(ret, Node):
        return [ret]
    return _leaves(ret[2]) + _leaves(ret[3])


def _finish(ret: Any) -> Result:
    if isinstance(ret, Node):
        return Result(ret)
    leaves = _leaves(ret)
    if {leaf.type.kind for leaf in leaves} == {"bool"}:
        return Result(_build(ret, lambda leaf: _same(leaf, BOOL)))

    def as_float(leaf: Node) -> Node:
        if leaf.type.kind == "none":
            return ir.const(math.nan, FLOAT)
        if leaf.type.kind == "float":
            return _same(leaf, FLOAT)
        return ir.node("to_float", leaf if leaf.type.kind == "int" else ir.node("bool_to_int", leaf, type_=INT),
                       type_=FLOAT)  # fmt: skip

    def as_int(leaf: Node) -> Node:
        if leaf.type.kind in ("none", "float"):
            return ir.const(0, INT)
        return _same(leaf, INT) if leaf.type.kind == "int" else ir.node("bool_to_int", leaf, type_=INT)

    def kind(leaf: Node) -> Node:
        return ir.const(_KIND_CODES[leaf.type.kind], INT)

    return Result(None, _build(ret, as_float), _build(ret, as_int), _build(ret, kind))


def _build(ret: Any, leaf_fn: Any) -> Node:
    if isinstance(ret, Node):
        return leaf_fn(ret)
    _, cond, then, other = ret
    a, b = _build(then, leaf_fn), _build(other, leaf_fn)
    return ir.select(cond, a, b)
