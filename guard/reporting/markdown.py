"""A markdown summary of a check (the PR comment's core; issue 6 adds charts and history)."""

from __future__ import annotations

import html

from ..checking.verdicts import CheckReport, Verdict
from .summary import counts_sentence, decisive_probability, shown_reasons

__all__ = ["escape", "render_markdown"]

_ICONS = {"pass": "✅", "fail": "❌", "inconclusive": "⚠️", "error": "💥"}
_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]|~"})


def escape(text: str) -> str:
    """User text safe inside a markdown table cell: no HTML, no markup, no line breaks."""
    return html.escape(text, quote=False).translate(_SPECIAL).replace("\n", " ")


def render_markdown(report: CheckReport) -> str:
    """Status line, one table row per kernel, then the reasons of every non-pass."""
    lines = [
        f"## perfguard: {_ICONS[report.status]} {report.status} ({counts_sentence(report)})",
        "",
        "| kernel | metric | verdict | expected | class | baseline | change | P(worse) |",
        "|---|---|---|---|---|---|---:|---:|",
    ]
    lines += [_row(v) for v in report.verdicts]
    details = [v for v in report.verdicts if v.verdict != "pass"]
    if details:
        lines += ["", "### Why"]
    for v in details:
        lines.append(f"- **{escape(v.kernel)}** ({escape(v.metric)}): {v.verdict}")
        lines += [f"  - {escape(r)}" for r in shown_reasons(v)]
    lines += [f"- note: {escape(n)}" for n in report.notes]
    return "\n".join(lines) + "\n"


def _row(v: Verdict) -> str:
    p = decisive_probability(v)
    cells = [
        escape(v.kernel),
        escape(v.metric),
        f"{_ICONS[v.verdict]} {v.verdict}",
        escape(v.expectation or "-"),
        escape(v.model.complexity()) if v.model is not None else "-",
        escape(v.baseline_model.complexity()) if v.baseline_model is not None else "-",
        "-" if v.change is None else f"×{v.change:.2f}",
        "-" if p is None else f"{p:.1%}",
    ]
    return "| " + " | ".join(cells) + " |"
