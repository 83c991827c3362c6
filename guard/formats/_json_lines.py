"""Line numbers of elements inside a JSON text, so structural errors can name file:line.

``json`` decodes without positions. The importers of benchmark tools' JSON decode the whole
document first and, only when they find a problem, walk the text again along the path of
the offending element (object keys and list indices). The walk uses
:meth:`json.JSONDecoder.raw_decode` to read keys and skip sibling values, so strings
containing brackets or commas need no tokenizer of our own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ..errors import FormatError
from ..measurements import Kernel, MeasurementSet, RunInfo
from ._common import decode_json, plain_numbers, shown

__all__ = ["JsonPath", "JsonFile", "describe", "locate", "shown"]

JsonPath = Sequence[str | int]

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def locate(text: str, path: JsonPath) -> int:
    """The line where the element at ``path`` starts (else its deepest ancestor); never fails."""
    pos = _skip_space(text, 0)
    for step in path:
        try:
            found = _child(text, pos, step)
        except (ValueError, RecursionError):  # not valid JSON after all: keep what we have
            found = None
        if found is None:
            break
        pos = found
    return text.count("\n", 0, pos) + 1


def describe(path: JsonPath) -> str:
    """A path as readers write it: ``benchmarks[2].params.n`` (``document`` when empty)."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif _IDENTIFIER.fullmatch(step):
            out += f".{step}" if out else step
        else:
            out += f"[{json.dumps(step, ensure_ascii=False)}]"
    return out or "document"


def _skip_space(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


def _child(text: str, pos: int, step: str | int) -> int | None:
    """Where the member ``step`` of the object, or item ``step`` of the array, at pos starts."""
    if isinstance(step, str) and text.startswith("{", pos):
        return _member(text, pos, step)
    if isinstance(step, int) and text.startswith("[", pos):
        return _item(text, pos, step)
    return None


def _member(text: str, pos: int, key: str) -> int | None:
    found = None  # the last occurrence wins, as in json.loads
    pos = _skip_space(text, pos + 1)
    while not text.startswith("}", pos):
        name, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_space(text, pos)
        if not text.startswith(":", pos):
            return found
        pos = _skip_space(text, pos + 1)
        if name == key:
            found = pos
        pos = _next(text, pos)
    return found


def _item(text: str, pos: int, index: int) -> int | None:
    pos = _skip_space(text, pos + 1)
    count = 0
    while not text.startswith("]", pos):
        if count == index:
            return pos
        pos = _next(text, pos)
        count += 1
    return None


def _next(text: str, pos: int) -> int:
    """Skip the value at pos and the comma after it; raises ValueError at the end of input."""
    _, pos = _DECODER.raw_decode(text, pos)
    pos = _skip_space(text, pos)
    if text.startswith(",", pos):
        return _skip_space(text, pos + 1)
    if pos >= len(text):
        raise ValueError("unexpected end of JSON text")
    return pos


class JsonFile:
    """A decoded JSON document whose checks raise FormatErrors naming file:line and path."""

    def __init__(self, text: str, path: str):
        self.text = text
        self.path = path
        self.root = decode_json(text, path)

    def fail(self, at: JsonPath, message: str) -> FormatError:
        """An error about the element at ``at``: ``file:line: path: message``."""
        return FormatError(f"{describe(at)}: {message}", self.path, locate(self.text, at))

    def obj(self, value: Any, at: JsonPath) -> dict[str, Any]:
        """``value`` if it is a JSON object."""
        if not isinstance(value, dict):
            raise self.fail(at, f"expected an object, got {shown(value)}")
        return value

    def arr(self, value: Any, at: JsonPath) -> list[Any]:
        """``value`` if it is a JSON array."""
        if not isinstance(value, list):
            raise self.fail(at, f"expected a list, got {shown(value)}")
        return value

    def member(self, obj: dict[str, Any], at: JsonPath, key: str) -> Any:
        """The member ``key`` of the object at ``at``, which must be present."""
        if key not in obj:
            raise self.fail(at, f"missing {json.dumps(key)}")
        return obj[key]

    def text_value(self, value: Any, at: JsonPath) -> str:
        """``value`` if it is a non-empty string."""
        if not isinstance(value, str) or not value:
            raise self.fail(at, f"expected a non-empty string, got {shown(value)}")
        return value

    def number(self, value: Any, at: JsonPath) -> float:
        """``value`` as a float if it is a JSON number (not a boolean, not null)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(at, f"expected a number, got {shown(value)}")
        try:
            return float(value)
        except OverflowError:
            raise self.fail(at, f"number {shown(value)} is too large") from None

    def numbers(self, value: Any, at: JsonPath) -> list[float]:
        """``value`` if it is a list of JSON numbers."""
        items = self.arr(value, at)
        fast = plain_numbers(items)
        if fast is not None:
            return fast
        return [self.number(v, [*at, i]) for i, v in enumerate(items)]

    def measurement_set(
        self,
        parameters: Sequence[str],
        kernels: tuple[Kernel, ...],
        run: RunInfo,
        notes: Sequence[str] = (),
    ) -> MeasurementSet:
        """A MeasurementSet, with the model's own validation turned into a FormatError."""
        try:
            return MeasurementSet(tuple(parameters), kernels, run, tuple(notes))
        except ValueError as exc:
            raise FormatError(str(exc), self.path) from None
