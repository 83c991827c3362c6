"""One-measurement-per-line JSON records, shared by the JSON Lines and TaLPas importers.

Each non-blank line is an object with a parameters object, an optional ``callpath``
(default ``<root>``), an optional ``metric`` (default ``time``) and a ``value`` that is
a number or a list of numbers. The first line fixes the parameter order; every later
line must name the same parameters. Values at the same kernel and point accumulate as
repetitions, kernels and points keep their first-seen order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..errors import FormatError
from ..measurements import MeasurementSet
from ._common import (
    DEFAULT_CALLPATH,
    DEFAULT_METRIC,
    KernelTable,
    build_set,
    json_number,
    json_values,
    require_every_point,
    shown,
)

__all__ = ["parse_records"]


class _Records:
    """Accumulates records line by line."""

    def __init__(self, path: str, params_key: str, every_point: bool):
        self.path = path
        self.params_key = params_key
        self.every_point = every_point
        self.parameters: list[str] | None = None
        self.first_line = 0
        self.table = KernelTable()
        self.kernel_lines: dict[tuple[str, str], int] = {}

    def add(self, line: int, record: Any) -> None:
        if not isinstance(record, dict):
            raise FormatError(f"expected a JSON object, got {shown(record)}", self.path, line)
        at = self.point(line, record.get(self.params_key))
        callpath = self.name(line, record, "callpath", DEFAULT_CALLPATH)
        metric = self.name(line, record, "metric", DEFAULT_METRIC)
        if "value" not in record:
            raise FormatError('missing "value" (a number or a list of numbers)', self.path, line)
        self.kernel_lines.setdefault((callpath, metric), line)
        self.table.add(
            (callpath, metric), at, json_values(record["value"], "value", self.path, line)
        )

    def point(self, line: int, params: Any) -> tuple[float, ...]:
        key = self.params_key
        if not isinstance(params, dict) or not params:
            raise FormatError(
                f'expected "{key}": {{"n": 4, ...}} naming the parameters', self.path, line
            )
        if self.parameters is None:
            self.parameters, self.first_line = list(params), line
        elif set(params) != set(self.parameters):
            raise FormatError(
                f"{key} names {', '.join(params)} but line {self.first_line} named "
                f"{', '.join(self.parameters)}; every line needs the same parameters",
                self.path,
                line,
            )
        return tuple(
            json_number(params[p], f"{key}.{p}", self.path, line, allow_null=False)
            for p in self.parameters
        )

    def name(self, line: int, record: dict[str, Any], key: str, default: str) -> str:
        value = record.get(key, default)
        if not isinstance(value, str) or not value:
            raise FormatError(
                f'"{key}" must be a non-empty string, got {json.dumps(value)}', self.path, line
            )
        return value

    def result(self) -> MeasurementSet:
        if self.parameters is None:
            raise FormatError("no records; expected one JSON object per line", self.path)
        kernels = self.table.kernels()
        if self.every_point:
            require_every_point(kernels, self.path, self.kernel_lines)
        return build_set(self.parameters, kernels, self.path)


def parse_records(
    text: str,
    path: str,
    params_key: str,
    decode: Callable[[str], Any] = json.loads,
    every_point: bool = False,
) -> MeasurementSet:
    """Parse one JSON record per line; ``decode`` may rewrite a dialect before decoding.

    ``every_point`` refuses a kernel without values at a point other kernels have.
    """
    records = _Records(path, params_key, every_point)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = decode(line)
        except json.JSONDecodeError as exc:
            raise FormatError(
                f"invalid JSON: {exc.msg} (column {exc.colno})", path, number
            ) from None
        except RecursionError:
            raise FormatError("invalid JSON: nested too deeply", path, number) from None
        except ValueError as exc:  # e.g. an integer literal of more than 4300 digits
            raise FormatError(f"invalid JSON: {exc}", path, number) from None
        records.add(number, record)
    return records.result()
