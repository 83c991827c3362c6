"""``perfguard report``: a saved check rendered again, nothing measured or modelled."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .inputs import check_writable, load, write_text

if TYPE_CHECKING:
    from ..checking.verdicts import CheckReport
    from ..measurements import MeasurementSet

__all__ = ["ReportOutcome", "report"]


@dataclass(frozen=True)
class ReportOutcome:
    """The saved report; ``written`` is the markdown file, or None for the terminal table."""

    report: CheckReport
    written: Path | None
    current: MeasurementSet | None = None  # the measurements given, for their units

    def exit_code(self) -> int:
        return 0


def report(
    verdicts: Path,
    markdown: Path | None = None,
    current: Path | None = None,
    baseline: Path | None = None,
) -> ReportOutcome:
    """Read verdicts@1; with ``markdown``, write the report (charts when measurements given)."""
    from ..checking.verdicts_json import load_report

    saved = load_report(verdicts)
    now = load(current) if current is not None else None
    if markdown is None:
        return ReportOutcome(saved, None, now)
    from ..reporting.markdown import render_report

    before = load(baseline) if baseline is not None else None
    check_writable(markdown, "--markdown")
    write_text(markdown, render_report(saved, now, before), "--markdown")
    return ReportOutcome(saved, markdown, now)
