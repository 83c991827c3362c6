"""A user's analytical model of a benchmark: a safe expression or a Python callable.

``analytical:`` in ``perfguard.yml`` is either an arithmetic expression over the
benchmark's parameters, such as ``ceil(n/bx) * (bx + 2) * n^2``, or ``"module:function"``
naming a callable in the config's folder that takes the parameters as keyword
arguments. Expressions are parsed with :mod:`ast` and evaluated by walking a whitelist
of nodes over numpy arrays, never with ``eval``: numbers, parameter names, ``pi`` and
``e``, ``+ - * / // % ** ^``, and the functions in :data:`FUNCTIONS`.

The model's unit is the user's (bytes moved, flops, cache misses): :func:`calibrate`
fits the one factor that turns it into the metric, and :func:`departure` says how far
the measurements depart from the calibrated model, point by point.
"""

from __future__ import annotations

import ast
import importlib
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import numbers
from ..errors import AnalyticalError
from ..measurements import plain_number

__all__ = [
    "FUNCTIONS",
    "AnalyticalError",
    "AnalyticalModel",
    "Departure",
    "parse_analytical",
    "calibrate",
    "departure",
]

_Array = np.ndarray
FUNCTIONS: Mapping[str, Callable[..., _Array]] = {
    "log": np.log,
    "ln": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "sqrt": np.sqrt,
    "exp": np.exp,
    "ceil": np.ceil,
    "floor": np.floor,
    "abs": np.abs,
    "min": np.minimum,
    "max": np.maximum,
}
_ARITY = {"min": (2, None), "max": (2, None)}
_CONSTANTS = {"pi": math.pi, "e": math.e}
_BINARY: Mapping[type, Callable[[_Array, _Array], _Array]] = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.Div: np.divide,
    ast.FloorDiv: np.floor_divide,
    ast.Mod: np.mod,
    ast.Pow: np.power,
}
_CALLABLE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z")
_ALLOWED = "numbers, the parameters ({params}), pi, e, + - * / // % ^ ** and " + ", ".join(
    f"{name}()" for name in FUNCTIONS
)


@dataclass(frozen=True)
class AnalyticalModel:
    """A parsed ``analytical:`` entry, evaluated over arrays of parameter values."""

    source: str
    parameters: tuple[str, ...]
    _evaluate: Callable[[Mapping[str, _Array]], _Array]
    is_callable: bool = False

    def evaluate(self, values: Mapping[str, Sequence[float] | _Array]) -> _Array:
        """The model at each point; ``values`` maps every parameter to an array.

        Raises :class:`AnalyticalError` unless every prediction is finite and positive.
        """
        missing = [p for p in self.parameters if p not in values]
        if missing:
            raise AnalyticalError(f"no value for parameter {', '.join(missing)}")
        arrays = {p: np.asarray(values[p], dtype=float) for p in self.parameters}
        with np.errstate(all="ignore"):
            out = np.asarray(self._evaluate(arrays), dtype=float)
        size = max((a.size for a in arrays.values()), default=1)
        out = np.broadcast_to(out, (size,)).copy()
        bad = ~(np.isfinite(out) & (out > 0))
        if bad.any():
            i = int(np.argmax(bad))
            at = ", ".join(numbers.at(p, arrays[p].reshape(-1)[i]) for p in self.parameters)
            raise AnalyticalError(
                f"{self.source!r} gives {out[i]:g} at {at}; "
                "an analytical model must be positive and finite"
            )
        return out


def parse_analytical(
    source: str, parameters: Sequence[str], folder: str | Path | None = None
) -> AnalyticalModel:
    """Parse an expression, or resolve ``"module:function"`` from ``folder``."""
    text = " ".join(source.split())  # YAML block scalars may fold it over several lines
    params = tuple(parameters)
    if not text:
        raise AnalyticalError("empty; write an expression such as n * log2(n)")
    if _CALLABLE.match(text):
        return AnalyticalModel(text, params, _callable(text, params, folder), is_callable=True)
    # "n^2" as a person writes it: a power, binding like ** (Python's ^ binds looser
    # than + and *, which would turn "2 * n^3" into "(2*n) ^ 3").
    python = text.replace("^", "**")
    _check_size(text)
    try:
        tree = ast.parse(python, mode="eval")
        compiled = _compile(tree.body, params)
    except (MemoryError, RecursionError, OverflowError) as exc:
        # CPython's parser gives up on very deep nesting with one of these
        raise AnalyticalError(f"too deeply nested to read ({type(exc).__name__})") from None
    except SyntaxError as exc:
        column = _source_column(text, exc.offset)
        raise AnalyticalError(f"not an expression ({exc.msg})", column) from None
    except AnalyticalError as exc:
        raise AnalyticalError(exc.message, _source_column(text, exc.column)) from None
    return AnalyticalModel(text, params, compiled)


_MAX_LENGTH = 2000
_MAX_DEPTH = 50


def _check_size(text: str) -> None:
    """Refuse expressions no model needs and CPython's parser may not survive."""
    if len(text) > _MAX_LENGTH:
        raise AnalyticalError(f"{len(text)} characters; an expression may have {_MAX_LENGTH}")
    depth = 0
    for column, char in enumerate(text, start=1):
        depth += (char == "(") - (char == ")")
        if depth > _MAX_DEPTH:
            raise AnalyticalError(f"parentheses nested over {_MAX_DEPTH} deep", column)


def _source_column(text: str, column: int | None) -> int | None:
    """A 1-based column of the rewritten text (each ^ became **) in the user's text.

    An offset past the end, or 0 (what CPython reports for an unexpected end), points
    just after the last character.
    """
    if column is None:
        return None
    starts = []  # where each character of the rewritten text came from
    for i, char in enumerate(text):
        starts.extend([i + 1, i + 1] if char == "^" else [i + 1])
    if column < 1 or column > len(starts):
        return len(text) + 1
    return starts[column - 1]


def _compile(node: ast.AST, params: tuple[str, ...]) -> Callable[[Mapping[str, _Array]], _Array]:
    column = getattr(node, "col_offset", -1) + 1 or None
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise AnalyticalError(f"{node.value!r} is not a number", column)
        value = float(node.value)
        return lambda env: np.asarray(value)
    if isinstance(node, ast.Name):
        name = node.id
        if name in params:
            return lambda env: env[name]
        if name in _CONSTANTS:
            const = _CONSTANTS[name]
            return lambda env: np.asarray(const)
        raise AnalyticalError(f"unknown name {name!r}; allowed: {_allowed(params)}", column)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        op = _BINARY[type(node.op)]
        left, right = _compile(node.left, params), _compile(node.right, params)
        return lambda env: op(left(env), right(env))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _compile(node.operand, params)
        if isinstance(node.op, ast.USub):
            return lambda env: np.negative(operand(env))
        return operand
    if isinstance(node, ast.Call):
        return _compile_call(node, params, column)
    what = type(node).__name__ if not isinstance(node, (ast.BinOp, ast.UnaryOp)) else "operator"
    raise AnalyticalError(f"{what} is not allowed; allowed: {_allowed(params)}", column)


def _compile_call(
    node: ast.Call, params: tuple[str, ...], column: int | None
) -> Callable[[Mapping[str, _Array]], _Array]:
    if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
        name = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
        known = ", ".join(FUNCTIONS)
        raise AnalyticalError(f"unknown function {name!r}; known: {known}", column)
    name = node.func.id
    if node.keywords:
        raise AnalyticalError(f"{name}() takes no keyword arguments", column)
    low, high = _ARITY.get(name, (1, 1))
    count = len(node.args)
    if count < low or (high is not None and count > high):
        wanted = f"{low}" if low == high else f"at least {low}"
        raise AnalyticalError(f"{name}() takes {wanted} argument(s), got {count}", column)
    fn = FUNCTIONS[name]
    args = [_compile(arg, params) for arg in node.args]
    if len(args) == 1:
        (only,) = args
        return lambda env: fn(only(env))

    def fold(env: Mapping[str, _Array]) -> _Array:
        out = args[0](env)
        for arg in args[1:]:
            out = fn(out, arg(env))
        return out

    return fold


def _allowed(params: tuple[str, ...]) -> str:
    return _ALLOWED.format(params=", ".join(params) or "none")


def _callable(
    target: str, params: tuple[str, ...], folder: str | Path | None
) -> Callable[[Mapping[str, _Array]], _Array]:
    module_name, _, attr = target.partition(":")
    added = folder is not None and str(folder) not in sys.path
    if added:
        sys.path.insert(0, str(folder))
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except Exception as exc:  # importing runs the user's module: any error is theirs
        raise AnalyticalError(f"cannot import {target}: {exc!r}") from None
    finally:
        if added:
            sys.path.remove(str(folder))
    if not callable(obj):
        raise AnalyticalError(f"{target} is not callable")
    fn = obj

    def evaluate(env: Mapping[str, _Array]) -> _Array:
        size = max((a.size for a in env.values()), default=1)
        columns = {p: np.broadcast_to(env[p], (size,)) for p in params}
        out = np.empty(size)
        for i in range(size):
            kwargs = {p: plain_number(columns[p][i]) for p in params}
            try:
                out[i] = float(fn(**kwargs))
            except Exception as exc:  # the user's code: report, do not crash
                raise AnalyticalError(f"{target}({_kwargs_text(kwargs)}) raised {exc!r}") from None
        return out

    return evaluate


def _kwargs_text(kwargs: Mapping[str, float | int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in kwargs.items())


# ---------------------------------------------------------------- calibration, departure


def calibrate(analytical: _Array, measured: _Array) -> float:
    """The factor that best turns model units into the metric: geometric mean of ratios.

    Fitted in log space so that every point counts by its relative error, whatever its
    size; the same factor minimises the squared error of ``log(measured / (c*model))``.
    """
    a = np.asarray(analytical, dtype=float)
    y = np.asarray(measured, dtype=float)
    if a.size == 0:
        raise AnalyticalError("no points to calibrate the analytical model on")
    return float(np.exp(np.mean(np.log(y) - np.log(a))))


@dataclass(frozen=True)
class Departure:
    """How far measurements depart from the calibrated analytical model.

    ``ratios`` are measured / calibrated model per point (1 = the model is right there);
    ``mape`` is the mean absolute percentage error of the calibrated model.
    """

    scale: float
    ratios: tuple[float, ...]
    mape: float

    def worst(self, count: int = 3) -> list[int]:
        """Indices of the ``count`` points furthest from the model (by |log ratio|)."""
        logs = np.abs(np.log(np.asarray(self.ratios)))
        order = np.argsort(-logs, kind="stable")
        return [int(i) for i in order[:count]]


def departure(analytical: _Array, measured: _Array) -> Departure:
    """Calibrate the model on all points and measure how far each point departs from it."""
    a = np.asarray(analytical, dtype=float)
    y = np.asarray(measured, dtype=float)
    scale = calibrate(a, y)
    ratios = y / (scale * a)
    mape = float(100.0 * np.mean(np.abs(1.0 / ratios - 1.0)))
    return Departure(scale, tuple(float(r) for r in ratios), mape)
