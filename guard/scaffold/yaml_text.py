"""Text for the YAML ``perfguard init`` writes: quoted scalars, flow lists and comments."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterable

__all__ = ["comment_block", "commented", "flow_list", "one_line", "quoted"]

_NOTE_WIDTH = 88


def one_line(text: str) -> str:
    """Text safe inside a YAML comment: control characters (newlines too) become spaces."""
    return re.sub(r"[\x00-\x1f\x7f]", " ", text)


def quoted(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def commented(text: str) -> str:
    """``text`` with every YAML line commented out at column 0 (one uncomment restores it)."""
    lines = text.splitlines()
    return "\n".join(line if not line or line.startswith("#") else f"# {line}" for line in lines)


def comment_block(sentences: Iterable[str], first: str = "#   - ", rest: str = "#     ") -> str:
    """Sentences as wrapped YAML comment bullets."""
    lines = []
    for sentence in sentences:
        lines += textwrap.wrap(
            one_line(sentence),
            _NOTE_WIDTH,
            initial_indent=first,
            subsequent_indent=rest,
            break_on_hyphens=False,
            break_long_words=False,
        )
    return "\n".join(lines)


def _number_text(value: object) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value) if isinstance(value, (int, float)) else quoted(str(value))


def flow_list(values: Iterable[object]) -> str:
    """``[256, 1024, "big"]``: values as a YAML flow sequence."""
    return "[" + ", ".join(_number_text(v) for v in values) + "]"
