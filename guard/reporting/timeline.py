"""The rich table ``perfguard history`` prints: each kernel's class over commits."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.text import Text

from .. import numbers
from ..history import TimelineRow
from .tables import Column, fit, one_line
from .terminal import STYLES

__all__ = ["timeline_table"]


def timeline_table(rows: Sequence[TimelineRow], width: int = 80) -> RenderableType:
    """One row per kernel and commit, oldest first; a class that changed is highlighted."""
    cells: list[list[Text]] = []
    known: str | None = None  # the kernel's last known class, to highlight a change
    for i, row in enumerate(rows):
        first = i == 0 or _key(rows[i - 1]) != _key(row)
        known = None if first else known
        changed = None not in (known, row.complexity) and known != row.complexity
        cells.append(_cells(row, first=first, changed=changed))
        known = row.complexity or known
    headers = ("kernel", "metric", "commit", "branch", "date", "class", "verdict", "at target")
    columns = [
        Column(
            name,
            tuple(r[j] for r in cells),
            numeric=name == "at target",
            drop={"metric": 2, "branch": 1}.get(name, 0),
        )
        for j, name in enumerate(headers)
    ]
    return fit(columns, width)


def _key(row: TimelineRow) -> tuple[str, str]:
    return (row.kernel, row.metric)


def _cells(row: TimelineRow, first: bool, changed: bool) -> list[Text]:
    """Kernel and metric only on a kernel's first row; user text never read as markup."""
    return [
        Text(one_line(row.kernel) if first else ""),
        Text(one_line(row.metric) if first else ""),
        Text((row.commit[:7] + ("+" if row.dirty else "")) if row.commit else "-"),
        Text(one_line(row.branch or "-")),
        Text(row.measured_at[:10]),
        Text(row.complexity or "-", style="bold yellow" if changed else ""),
        Text(row.verdict or "-", style=STYLES.get(row.verdict or "", "dim")),
        Text(numbers.quantity(row.predicted_at_target, row.unit)),
    ]
