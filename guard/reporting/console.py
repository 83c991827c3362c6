"""What each verb prints on the terminal, from finished data: tables, reasons, notes.

stdout carries the result (a table or JSON); stderr carries what a person reads beside
it (skipped kernels, advice, progress, the run summary).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from .tables import one_line

if TYPE_CHECKING:
    from ..app.init import InitOutcome
    from ..checking.verdicts import CheckReport
    from ..history import TimelineRow
    from ..measurements import MeasurementSet
    from ..modeling import ModelingResult
    from ..modeling.predict import PredictionRow, Predictor

__all__ = [
    "out",
    "err",
    "print_document",
    "print_check",
    "print_models",
    "print_skipped",
    "print_run_summary",
    "print_predictions",
    "print_init",
    "print_timeline",
    "print_error",
    "print_aborted",
]


def out(width: int | None = None) -> Console:
    """The result stream (stdout), plain: no highlighting of numbers and paths."""
    return Console(highlight=False, width=width)


def err(width: int | None = None) -> Console:
    """The stream beside the result (stderr).  What stdout holds is flushed first: in a CI
    log (both streams on one pipe, stdout block-buffered) a note began on the table's
    bottom border line."""
    sys.stdout.flush()
    return Console(stderr=True, highlight=False, width=width)


def print_document(doc: dict[str, Any], key: str | None = None) -> None:
    """A JSON document on stdout; with ``key``, one entry of that list per line (jsonl.py)."""
    if key is None:
        from ..numbers import json_safe

        text = json.dumps(json_safe(doc), indent=1, ensure_ascii=False, allow_nan=False)
        sys.stdout.write(text + "\n")
        return
    from .jsonl import dump_document

    dump_document(doc, key, sys.stdout)


def print_check(report: CheckReport, measured: MeasurementSet | None = None) -> None:
    """The verdict table, each shown reason and note, and the status line; ``measured``
    gives the table its kernels' units."""
    from .summary import by_verdict, counts_sentence, standing_reasons
    from .tables import table_width
    from .terminal import STYLES, verdict_table

    width = table_width()
    console = out(width)
    units = {k.key: k.unit for k in measured.kernels} if measured is not None else None
    # failures first, as the markdown report: in a long suite they lead, not drown
    report = dataclasses.replace(report, verdicts=tuple(by_verdict(report.verdicts)))
    if report.verdicts:  # none: every benchmark failed to run, its notes say so
        console.print(verdict_table(report, width, units))
    several = len({v.metric for v in report.verdicts}) > 1  # name the metric then
    for v in report.verdicts:
        name = f"{v.kernel} ({v.metric})" if several else v.kernel
        for standing, line in standing_reasons(v):
            text = f"{one_line(name)}: {one_line(line)}"
            style = STYLES.get(standing, "yellow")  # a note: as the report's notes are
            console.print(f"[{style}]{standing}[/] {escape(text)}", soft_wrap=True)
    for note in report.notes:
        console.print(f"[yellow]note[/] {escape(one_line(note))}", soft_wrap=True)
    style = STYLES[report.status]
    console.print(f"[{style}]perfguard check: {report.status}[/] ({counts_sentence(report)})")


def print_skipped(results: Sequence[tuple[str, ModelingResult]]) -> None:
    """One stderr line per kernel that could not be modelled, with the reasons."""
    console = err()
    for path, result in results:
        for s in result.skipped:
            console.print(
                "[yellow]skipped[/] "
                + escape(f"{path}: kernel {s.kernel!r} metric {s.metric!r}: ")
                + escape("; ".join(s.reasons)),
                markup=True,
                soft_wrap=True,
            )


def print_notes(notes: Sequence[str]) -> None:
    """One stderr line per note."""
    console = err()
    for note in notes:
        console.print(f"[yellow]note[/] {escape(one_line(note))}", soft_wrap=True)


def print_models(
    results: Sequence[tuple[str, ModelingResult]], predicted: str | None, scaled: bool = False
) -> None:
    """The models table (stdout), then advice for unsure or noisy models (stderr)."""
    from .models import advice_lines, models_table
    from .tables import table_width

    width = table_width()
    out(width).print(models_table(results, predicted, width))
    console = err()
    for line in advice_lines(results, scaled, predicted):
        console.print(line, soft_wrap=True)


def print_run_summary(mset: MeasurementSet, output: Path) -> None:
    """What ``perfguard run`` measured, its errors, and where it went (stderr)."""
    from ..numbers import counted
    from .runs import error_lines, run_table
    from .tables import table_width

    width = table_width()
    console = err(width)
    if mset.kernels:  # every benchmark failed: its errors below say it all
        console.print(run_table(mset, width))
    for line in error_lines(mset):
        console.print(line, soft_wrap=True)
    kernels = counted(len(mset.kernels), "kernel")
    done = f"interrupted; kept {kernels} in" if mset.run.interrupted else f"wrote {kernels} to"
    console.print(escape(one_line(f"perfguard run: {done} {output}")), soft_wrap=True)


def print_predictions(
    results: Sequence[tuple[Predictor, list[PredictionRow]]], asked: bool
) -> None:
    """Each hybrid model's summary and its predictions; a hint when no point was asked."""
    from .predictions import model_summary, predictions_table

    console = out()
    for predictor, rows in results:
        for line in model_summary(predictor).split("\n"):
            console.print(escape(one_line(line)), soft_wrap=True)
        if rows:
            console.print(predictions_table(predictor, rows))
    if not asked:
        err().print("add --at n=...,... or --grid PARAM=VALUES to predict at new configurations")


def print_init(outcome: InitOutcome) -> None:
    """What ``perfguard init`` found and wrote, its notes and the next step (stdout)."""
    console = out()
    console.print(f"perfguard init: {escape(outcome.description)}", soft_wrap=True)
    for path in outcome.written:
        console.print(f"[green]wrote[/] {escape(str(path))}")
    for note in outcome.notes:
        console.print(f"[yellow]note[/] {escape(one_line(note))}", soft_wrap=True)
    console.print(outcome.next_step, soft_wrap=True)


def print_timeline(db: Path, rows: Sequence[TimelineRow]) -> None:
    """``perfguard history``'s table; a plain line when nothing was recorded yet."""
    from .tables import table_width
    from .timeline import timeline_table

    if not rows:
        out().print(f"{db}: no runs recorded yet", markup=False, soft_wrap=True)
        return
    width = table_width()
    out(width).print(timeline_table(rows, width))
    if any(r.dirty for r in rows):
        out().print(
            "+ measured with uncommitted changes on top of that commit",
            markup=False,
            soft_wrap=True,
        )


def print_error(message: str) -> None:
    """``perfguard: error: MESSAGE`` on stderr: one line, whatever the message holds."""
    err().print(f"[red]perfguard: error:[/] {escape(one_line(message))}", soft_wrap=True)


def print_aborted() -> None:
    Console(stderr=True).print("[red]perfguard: aborted[/]")
