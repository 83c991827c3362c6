"""Python source read with ``ast``, never imported: names, assignments and literal values.

Literal values (sizes in ``@pytest.mark.parametrize`` or asv's ``params``) are evaluated
by a small interpreter of constants, lists, arithmetic, ``range`` and simple
comprehensions; anything else is not a literal.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterator, Mapping

__all__ = [
    "UNKNOWN",
    "Function",
    "assignments",
    "dotted",
    "is_size",
    "module_constants",
    "parse_python",
    "try_literal",
]

Function = ast.FunctionDef | ast.AsyncFunctionDef

_MAX_VALUES = 10_000


def parse_python(text: str) -> ast.Module | None:
    """The module's syntax tree, or None when it is not valid Python."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def dotted(node: ast.AST) -> str:
    """``pytest.mark.parametrize`` for that attribute chain, "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        prefix = dotted(node.value)
        return f"{prefix}.{node.attr}" if prefix else ""
    return ""


def assignments(stmt: ast.stmt) -> Iterator[tuple[ast.expr, ast.expr]]:
    """(target, value) of a plain or annotated assignment with a value; nothing otherwise."""
    if isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            yield target, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        yield stmt.target, stmt.value


class _NotLiteral(Exception):
    """An expression that ``_literal`` does not evaluate."""


UNKNOWN = object()


def _power(base: object, exponent: object) -> object:
    b, e = _number(base), _number(exponent)
    if abs(e) > 64 or abs(b) > 2**32:
        raise _NotLiteral
    return b**e


_BINARY: dict[type[ast.operator], Callable[[object, object], object]] = {
    ast.Add: lambda a, b: _number(a) + _number(b),
    ast.Sub: lambda a, b: _number(a) - _number(b),
    ast.Mult: lambda a, b: _number(a) * _number(b),
    ast.Div: lambda a, b: operator.truediv(_number(a), _number(b)),
    ast.FloorDiv: lambda a, b: operator.floordiv(_number(a), _number(b)),
    ast.Pow: _power,
}


def _number(value: object) -> int | float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    raise _NotLiteral


def is_size(value: object) -> bool:
    """Whether ``value`` can be a size: a positive, finite number, not a boolean."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e300


def try_literal(node: ast.AST | None, env: Mapping[str, object], default: object = None) -> object:
    """The literal value of ``node`` (see ``_literal``), or ``default`` when it has none."""
    if node is None:
        return default
    try:
        return _literal(node, env)
    except (_NotLiteral, ArithmeticError, RecursionError):
        return default


def _literal(node: ast.AST, env: Mapping[str, object]) -> object:
    """The value of a constant expression: numbers, text, lists, arithmetic, range, [f(k) for k]."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e, env) for e in node.elts]
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _number(_literal(node.operand, env))
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_literal(node.left, env), _literal(node.right, env))
    if isinstance(node, ast.Call) and dotted(node.func) in ("range", "list", "tuple"):
        return _call(node, env)
    if isinstance(node, ast.ListComp):
        return _comprehension(node, env)
    raise _NotLiteral


def _call(node: ast.Call, env: Mapping[str, object]) -> list[object]:
    if node.keywords:
        raise _NotLiteral
    args = [_literal(a, env) for a in node.args]
    if dotted(node.func) != "range":
        if len(args) != 1 or not isinstance(args[0], list):
            raise _NotLiteral
        return args[0]
    ints = [a for a in args if isinstance(a, int)]
    if not 1 <= len(ints) == len(args) <= 3:
        raise _NotLiteral
    values = range(*ints)
    if len(values) > _MAX_VALUES:
        raise _NotLiteral
    return list(values)


def _comprehension(node: ast.ListComp, env: Mapping[str, object]) -> list[object]:
    """``[2**k for k in range(8, 17)]``: one ``for`` over a literal, no conditions."""
    if len(node.generators) != 1:
        raise _NotLiteral
    gen = node.generators[0]
    items = _literal(gen.iter, env)
    if gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name):
        raise _NotLiteral
    if not isinstance(items, list) or len(items) > _MAX_VALUES:
        raise _NotLiteral
    return [_literal(node.elt, {**env, gen.target.id: item}) for item in items]


def module_constants(tree: ast.Module) -> dict[str, object]:
    """Module-level ``NAME = literal`` assignments, in order (``SIZES = [2**k for ...]``)."""
    env: dict[str, object] = {}
    for stmt in tree.body:
        for target, value in assignments(stmt):
            if isinstance(target, ast.Name):
                literal = try_literal(value, env, UNKNOWN)
                if literal is UNKNOWN:
                    env.pop(target.id, None)
                else:
                    env[target.id] = literal
    return env
