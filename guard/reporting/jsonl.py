"""JSON documents written the way large ones stay fast and readable: one entry per line.

``json.dumps(..., indent=...)`` runs the pure-Python encoder (the C encoder only knows
compact output), which took seconds for a few thousand kernels.  Here the document's
top-level keys are laid out one per line and the entries of its one long list (kernels,
models) each encoded compactly by the C encoder on a line of their own, streamed to the
output: still valid JSON, diffable line by line, and linear in the entries.  NaN and
infinities are written as null (JSON has no such numbers).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TextIO

from ..numbers import json_text

__all__ = ["dump_document", "encode_document"]


def encode_document(doc: Mapping[str, Any], long_key: str) -> Iterator[str]:
    """The document as text chunks; ``doc[long_key]`` (an iterable) one entry per line."""
    keys = list(doc)
    yield "{\n"
    for i, key in enumerate(keys):
        end = ",\n" if i < len(keys) - 1 else "\n"
        name = json.dumps(key, ensure_ascii=False)
        if key == long_key:
            yield f" {name}: "
            yield from _entries(doc[key])
            yield end
        else:
            yield f" {name}: {json_text(doc[key])}{end}"
    yield "}\n"


def _entries(items: Iterable[Any]) -> Iterator[str]:
    first = True
    for item in items:
        yield ("[\n  " if first else ",\n  ") + json_text(item)
        first = False
    yield "[]" if first else "\n ]"


def dump_document(doc: Mapping[str, Any], long_key: str, stream: TextIO) -> None:
    """Write ``encode_document`` to a text stream."""
    for chunk in encode_document(doc, long_key):
        stream.write(chunk)
