"""TaLPas input: one ``{"parameters":{...};"metric":...;"callpath":...;"value":v}`` per line.

Keys are separated by semicolons; commas are accepted too. Only semicolons outside
strings are separators, so call paths such as ``"a;b"`` survive (Extra-P replaces every
semicolon). Otherwise the rules of the JSON Lines format apply, and one of Extra-P's:
every kernel needs values at every point of the file (Extra-P's tests call a file that
breaks it, ``talpas_10_neg.txt``, invalid).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..measurements import MeasurementSet
from . import Importer, register
from ._common import top_level_keys
from ._records import parse_records

__all__: list[str] = []

_STRING_OR_SEMICOLON = re.compile(r'"(?:[^"\\]|\\.)*"|;')


def _sniff(text: str) -> bool:
    return top_level_keys(text).get("parameters") == "{"


def _decode(line: str) -> Any:
    """Decode one line after turning separating semicolons into commas."""
    plain = _STRING_OR_SEMICOLON.sub(lambda m: "," if m.group() == ";" else m.group(), line)
    try:
        return json.loads(plain)
    except json.JSONDecodeError as exc:
        raise json.JSONDecodeError(exc.msg.replace("','", "';'"), exc.doc, exc.pos) from None


def _parse(text: str, path: str) -> MeasurementSet:
    return parse_records(text, path, "parameters", _decode, every_point=True)


register(Importer("talpas", _sniff, _parse))
