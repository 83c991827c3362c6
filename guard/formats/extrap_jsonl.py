"""Extra-P's JSON Lines input: one ``{"params": {...}, "callpath", "metric", "value"}`` per line.

``callpath`` defaults to ``<root>`` (as in Extra-P) and ``metric`` to ``time``; ``value``
is one number or a list of repetitions, and records at the same point accumulate.
"""

from __future__ import annotations

from ..measurements import MeasurementSet
from . import Importer, register
from ._common import top_level_keys
from ._records import parse_records

__all__: list[str] = []


def _sniff(text: str) -> bool:
    return top_level_keys(text).get("params") == "{"


def _parse(text: str, path: str) -> MeasurementSet:
    return parse_records(text, path, "params")


register(Importer("extrap-jsonl", _sniff, _parse))
