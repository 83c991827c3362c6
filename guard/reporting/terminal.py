"""The table ``perfguard check`` prints, fitted to the width it gets (tables.py)."""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import RenderableType
from rich.text import Text

from .. import numbers
from ..checking.verdicts import CheckReport, Verdict
from .summary import class_text, decisive_probability
from .tables import Column, fit, one_line

__all__ = ["STYLES", "verdict_table"]

STYLES = {"pass": "green", "fail": "bold red", "inconclusive": "yellow", "error": "magenta"}


def verdict_table(
    report: CheckReport, width: int = 80, units: Mapping[tuple[str, str], str | None] | None = None
) -> RenderableType:
    """One row per kernel: verdict, expectation, classes now and before, evidence.
    ``units``: each kernel's unit by (kernel, metric), from its measurements; without them
    the predicted values have none (a saved report)."""
    vs = report.verdicts
    metrics = len({v.metric for v in vs}) > 1
    columns = [
        Column("kernel", tuple(Text(one_line(v.kernel)) for v in vs)),
        Column("verdict", tuple(Text(v.verdict, style=STYLES[v.verdict]) for v in vs)),
        Column("expected", tuple(v.expectation or "-" for v in vs)),
        Column(
            "class",
            tuple(class_text(v.model) for v in vs),
            short=tuple(class_text(v.model, short=True) for v in vs),
        ),
        Column(
            "baseline",
            tuple(class_text(v.baseline_model) for v in vs),
            drop=1,
            short=tuple(class_text(v.baseline_model, short=True) for v in vs),
        ),
        Column(
            "change",
            tuple(_change(v, short=False) for v in vs),
            numeric=True,
            short=tuple(_change(v, short=True) for v in vs),
        ),
        Column("P(worse)", tuple(_probability(v) for v in vs), numeric=True, drop=2),
    ]
    if metrics:
        columns.insert(1, Column("metric", tuple(Text(one_line(v.metric)) for v in vs)))
    if report.target:
        where = ", ".join(numbers.at(k, x) for k, x in report.target.items())
        columns.append(
            Column(
                f"at {where}",
                tuple(
                    numbers.quantity(v.predicted, (units or {}).get((v.kernel, v.metric)))
                    for v in vs
                ),
                numeric=True,
                short=tuple(numbers.quantity(v.predicted, None, 2) for v in vs),
            )
        )
        ranks = tuple(str(v.rank or "-") for v in vs)
        columns.append(Column("rank", ranks, numeric=True, drop=3))
    return fit(columns, width)


def _change(v: Verdict, short: bool) -> str:
    return "-" if v.change is None else numbers.factor(v.change, short=short)


def _probability(v: Verdict) -> str:
    p = decisive_probability(v)
    return "-" if p is None else numbers.probability(p)
