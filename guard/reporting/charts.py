"""Mermaid ``xychart-beta`` blocks (GitHub renders them) for measurements against a model."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

__all__ = [
    "MAX_POINTS",
    "PALETTE",
    "compact_number",
    "legend",
    "label",
    "pick_points",
    "stride_of",
    "scale_values",
    "xychart",
]

MAX_POINTS = 16  # doubling sizes 2^6..2^21 all shown
# (hex for mermaid, a square of that colour for the markdown legend), in plotting order
PALETTE = (("#1f77b4", "🟦"), ("#ff7f0e", "🟧"), ("#2ca02c", "🟩"), ("#9467bd", "🟪"))
_PREFIXES = ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"))
# ; ends a mermaid statement; %%{...}%% is a directive anywhere in the diagram's text; the
# bidirectional overrides and marks would make a kernel's name read backwards in the chart
_UNSAFE = re.compile(
    r"[`<>;%{}\\\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
_LABEL_LENGTH = 60


def label(text: str) -> str:
    """User text safe inside a quoted mermaid label: no quotes, backticks, brackets, breaks."""
    clean = " ".join(_UNSAFE.sub(" ", text.replace('"', "'")).split())
    return clean if len(clean) <= _LABEL_LENGTH else clean[: _LABEL_LENGTH - 1] + "…"


def compact_number(value: float) -> str:
    """``8192``, ``16.4k``, ``1.05M``: plain below 10,000, else three digits and a prefix."""
    if not math.isfinite(value) or abs(value) < 1e4:
        return f"{value:g}"
    for factor, prefix in _PREFIXES:
        if abs(value) >= factor:
            return f"{value / factor:.3g}{prefix}"
    return f"{value:g}"  # pragma: no cover - the loop always returns for |value| >= 1e4


def pick_points(count: int, most: int = MAX_POINTS) -> list[int]:
    """At most ``most`` indexes out of ``count``: every k-th, the last included.  A chart's
    x axis is categorical, so the sizes it shows must keep one stride (15 doubling sizes
    thinned unevenly to 12 drew 128 -> 512 as one step, a bend in the wrong place)."""
    stride = stride_of(count, most)
    return list(range(count - 1, -1, -stride))[::-1]


def stride_of(count: int, most: int = MAX_POINTS) -> int:
    """The k of ``pick_points``: 1 when every point fits."""
    return 1 if count <= most else -(-count // most)


def scale_values(values: Sequence[float], unit: str | None) -> tuple[float, str]:
    """A factor bringing the largest value into [1, 1000) and the unit it makes (``µs``).

    Only one-letter units (s, B) take a prefix; others read ``×1000 instructions``.
    """
    peak = max((abs(v) for v in values if math.isfinite(v)), default=0.0)
    if peak == 0.0:
        return 1.0, unit or ""
    factor, prefix = next((fp for fp in _PREFIXES if peak >= fp[0]), _PREFIXES[-1])
    if factor == 1.0:
        return factor, unit or ""
    if unit and len(unit) == 1:
        return factor, prefix + unit
    return factor, f"×{factor:g} {unit or ''}".rstrip()


def xychart(
    title: str,
    x_labels: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    x_label: str = "",
    y_label: str = "",
    bars: Sequence[str] = (),
) -> str:
    """A fenced ``mermaid`` block: one line (or bar, if named in ``bars``) per series.

    Values are written with four significant digits and no exponent (mermaid's number
    syntax has none), so scale them first (``scale_values``). Series are drawn in the
    order given, coloured from ``PALETTE``; ``legend`` names them.
    """
    for name, values in series.items():
        if len(values) != len(x_labels):
            raise ValueError(f"series {name!r} has {len(values)} values for {len(x_labels)} labels")
    colours = ", ".join(hex_ for hex_, _ in PALETTE)
    every = [v for values in series.values() for v in values]
    low = min([0.0, *every])
    high = max(every, default=1.0)
    lines = [
        "```mermaid",
        f'%%{{init: {{"themeVariables": {{"xyChart": {{"plotColorPalette": "{colours}"}}}}}}}}%%',
        "xychart-beta",
        f'    title "{label(title)}"',
        f'    x-axis "{label(x_label)}" [' + ", ".join(f'"{label(x)}"' for x in x_labels) + "]",
        f'    y-axis "{label(y_label)}" {_plain(low)} --> {_plain(_headroom(high))}',
    ]
    for name, values in series.items():
        kind = "bar" if name in bars else "line"
        lines.append(f"    {kind} [" + ", ".join(_plain(v) for v in values) + "]")
    lines.append("```")
    return "\n".join(lines)


def legend(series: Sequence[str], bars: Sequence[str] = ()) -> str:
    """``🟦 bars: measured · 🟧 line: model``: which colour is which series (escape names first)."""
    parts = []
    for (_, square), name in zip(PALETTE, series):
        parts.append(f"{square} {'bars' if name in bars else 'line'}: {name}")
    return " · ".join(parts)


def _plain(value: float) -> str:
    """Four significant digits, never an exponent: ``0.001234``, ``1234``, ``-2.5``."""
    if not math.isfinite(value) or value == 0:
        return "0"
    digits = max(0, 3 - math.floor(math.log10(abs(value))))
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _headroom(value: float) -> float:
    """A round number a little above ``value``: the top of the y axis."""
    if not math.isfinite(value) or value <= 0:
        return 1.0
    step = 10.0 ** math.floor(math.log10(value))
    return math.ceil(value * 1.05 / step * 2) * step / 2
