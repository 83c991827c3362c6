"""The rich table ``perfguard check`` prints."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from ..checking.verdicts import CheckReport, Verdict
from .summary import decisive_probability

__all__ = ["STYLES", "verdict_table"]

STYLES = {"pass": "green", "fail": "bold red", "inconclusive": "yellow", "error": "magenta"}


def verdict_table(report: CheckReport) -> Table:
    """One row per kernel: verdict, expectation, classes now and before, evidence."""
    table = Table(header_style="bold")
    metrics = len({v.metric for v in report.verdicts}) > 1
    for col in ("kernel", "metric", "verdict", "expected", "class", "baseline"):
        if col != "metric" or metrics:
            table.add_column(col, overflow="fold")
    table.add_column("change", justify="right")
    table.add_column("P(worse)", justify="right")
    if report.target:
        where = ", ".join(f"{k}={v:g}" for k, v in report.target.items())
        table.add_column(f"at {where}", justify="right")
        table.add_column("rank", justify="right")
    for v in report.verdicts:
        row = _row(v, bool(report.target))
        table.add_row(*(row if metrics else row[:1] + row[2:]))
    return table


def _row(v: Verdict, target: bool) -> list[str | Text]:
    p = decisive_probability(v)
    row: list[str | Text] = [
        Text(v.kernel),
        Text(v.metric),
        Text(v.verdict, style=STYLES[v.verdict]),
        v.expectation or "-",
        v.model.complexity() if v.model is not None else "-",
        v.baseline_model.complexity() if v.baseline_model is not None else "-",
        "-" if v.change is None else f"x{v.change:.2f}",
        "-" if p is None else f"{p:.1%}",
    ]
    if target:
        row += ["-" if v.predicted is None else f"{v.predicted:.3g}", str(v.rank or "-")]
    return row
