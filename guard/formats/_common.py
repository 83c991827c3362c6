"""Helpers shared by the importers: JSON decoding, sniffing, number checks, accumulation."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from ..errors import FormatError
from ..measurements import Kernel, MeasurementSet, Point

__all__ = [
    "DEFAULT_CALLPATH",
    "DEFAULT_METRIC",
    "SNIFF_BYTES",
    "KernelTable",
    "build_set",
    "decode_json",
    "json_number",
    "json_values",
    "plain_numbers",
    "require_every_point",
    "top_level_keys",
]

DEFAULT_METRIC = "time"
DEFAULT_CALLPATH = "<root>"
SNIFF_BYTES = 4096


def decode_json(text: str, path: str) -> Any:
    """Decode a whole JSON document; errors become FormatError naming path:line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        ends = ""
        if exc.msg == "Extra data":  # a whole document, then more (a log line after it)
            ends = ": text follows the JSON; write the JSON to a file of its own"
        elif exc.pos >= len(text.rstrip()):  # nothing wrong but that it stops
            ends = (
                ": the file ends before its JSON does (cut short: a run that crashed or was "
                "killed while writing it?)"
            )
        raise FormatError(
            f"invalid JSON: {exc.msg} (column {exc.colno}){ends}", path, exc.lineno
        ) from None
    except RecursionError:
        raise FormatError("invalid JSON: nested too deeply", path) from None
    except ValueError as exc:  # e.g. an integer literal of more than 4300 digits
        raise FormatError(f"invalid JSON: {exc}", path) from None


# A JSON string (possibly cut off by the sniff window), a structural character, or a scalar.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[{}\[\]:,;]|[^\s{}\[\]:,;"]+')


def top_level_keys(text: str) -> dict[str, str]:
    """Top-level keys of the JSON object opening ``text``, each with its value's first character.

    Looks at the first few KB only, tolerates ``;`` as separator (TaLPas) and a cut-off
    tail, and never fails; an empty dict means the text does not open with an object.
    """
    tokens = _TOKEN.findall(text.lstrip()[:SNIFF_BYTES])
    if not tokens or tokens[0] != "{":
        return {}
    keys: dict[str, str] = {}
    depth = 0
    for i, tok in enumerate(tokens):
        if tok in ("{", "["):
            depth += 1
        elif tok in ("}", "]"):
            depth -= 1
            if depth == 0:
                break
        elif tok == ":" and depth == 1 and 0 < i < len(tokens) - 1:
            keys[tokens[i - 1].strip('"')] = tokens[i + 1][0]
    return keys


def json_number(
    value: Any, where: str, path: str, line: int | None = None, allow_null: bool = True
) -> float:
    """A JSON number (``null`` counts as NaN where allowed); anything else is a FormatError."""
    if value is None and allow_null:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError(f"{where}: expected a number, got {json.dumps(value)}", path, line)
    return float(value)


_NUMBER_TYPES = frozenset((int, float))  # exact types: a JSON true is a bool, not a number


def plain_numbers(items: list[Any]) -> list[float] | None:
    """Every item as a float when all are JSON numbers, else None (check them one by one).

    The fast path for lists of 100,000 timings: one pass in C instead of a check each.
    """
    if not set(map(type, items)) <= _NUMBER_TYPES:
        return None
    try:
        return list(map(float, items))
    except OverflowError:  # an integer beyond float range: let the slow path name it
        return None


def json_values(value: Any, where: str, path: str, line: int | None = None) -> list[float]:
    """Repetitions given as one number or a list of numbers."""
    if isinstance(value, list):
        return [json_number(v, f"{where}[{i}]", path, line) for i, v in enumerate(value)]
    return [json_number(value, where, path, line)]


class KernelTable:
    """Values per (callpath, metric) and point, accumulated in first-seen order."""

    def __init__(self) -> None:
        self._data: dict[tuple[str, str], dict[tuple[float, ...], list[float]]] = {}

    def add(self, key: tuple[str, str], at: tuple[float, ...], values: list[float]) -> None:
        """Append repetitions at a point of a kernel, creating either on first sight."""
        self._data.setdefault(key, {}).setdefault(at, []).extend(values)

    def kernels(self) -> tuple[Kernel, ...]:
        """The accumulated kernels as immutable objects."""
        return tuple(
            Kernel(name, metric, tuple(Point(at, tuple(vals)) for at, vals in points.items()))
            for (name, metric), points in self._data.items()
        )


def build_set(
    parameters: list[str], kernels: tuple[Kernel, ...], path: str, line: int | None = None
) -> MeasurementSet:
    """A MeasurementSet, with the model's own validation turned into a FormatError.

    A file of Extra-P's formats without a single kernel is refused (``line``: where its
    last declaration was): a gate given a cut or empty profile must not pass on nothing."""
    try:
        mset = MeasurementSet(tuple(parameters), kernels)
    except ValueError as exc:
        raise FormatError(str(exc), path) from None
    if not kernels:
        raise FormatError(
            "the file holds no measurements (no kernel with values): was it cut short, or "
            "written before the run finished?",
            path,
            line,
        )
    return mset


def require_every_point(
    kernels: tuple[Kernel, ...], path: str, lines: Mapping[tuple[str, str], int] | None = None
) -> None:
    """Extra-P's rule for its own formats: every kernel has values at every point of the file.

    Extra-P refuses a file that breaks it (its tests' ``talpas_10_neg.txt``); a kernel that
    lacks a point the others have is more often a cut or mangled file than a design.
    ``lines`` gives the line where each kernel first appears, for the error.
    """
    every = list(dict.fromkeys(p.at for k in kernels for p in k.points))
    for kernel in kernels:
        have = {p.at for p in kernel.points}
        missing = [at for at in every if at not in have]
        if missing:
            shown = ", ".join(format_point(at) for at in missing[:3])
            more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
            raise FormatError(
                f"kernel {kernel.name!r} metric {kernel.metric!r} has no values at {shown}"
                f"{more}; every kernel needs values at each of the file's {len(every)} points "
                "(Extra-P refuses such a file too)",
                path,
                None if lines is None else lines.get(kernel.key),
            )


def format_point(at: tuple[float, ...]) -> str:
    """``(4, 16)`` for a point, integers without ``.0``."""
    return "(" + ", ".join(str(int(a)) if a.is_integer() else repr(a) for a in at) + ")"


def shown(value: Any) -> str:
    """A value as JSON for a message, cut to 40 characters ("null", not "NoneType")."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 40 else text[:37] + "..."


def lone_surrogate(text: str) -> str | None:
    """``\\ud800`` where ``text`` holds a lone surrogate (JSON's "\\ud800" decodes to one,
    and no terminal, JSON output or report can write it), else None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"\\u{ord(text[exc.start]):04x}"
    return None
