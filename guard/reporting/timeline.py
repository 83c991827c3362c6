"""The rich table ``perfguard history`` prints: each kernel's class over commits."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from ..history import TimelineRow
from .terminal import STYLES

__all__ = ["timeline_table"]


def timeline_table(rows: Sequence[TimelineRow]) -> Table:
    """One row per kernel and commit, oldest first; a class that changed is highlighted."""
    table = Table(header_style="bold")
    for name in ("kernel", "metric", "commit", "branch", "date", "class", "verdict"):
        table.add_column(name, overflow="fold", no_wrap=name in ("commit", "date", "verdict"))
    table.add_column("at target", justify="right", no_wrap=True)
    known: str | None = None  # the kernel's last known class, to highlight a change
    for i, row in enumerate(rows):
        first = i == 0 or _key(rows[i - 1]) != _key(row)
        last = i + 1 == len(rows) or _key(rows[i + 1]) != _key(row)
        known = None if first else known
        changed = None not in (known, row.complexity) and known != row.complexity
        table.add_row(*_cells(row, first=first, changed=changed), end_section=last)
        known = row.complexity or known
    return table


def _key(row: TimelineRow) -> tuple[str, str]:
    return (row.kernel, row.metric)


def _cells(row: TimelineRow, first: bool, changed: bool) -> list[Text]:
    """Kernel and metric only on a kernel's first row; user text never read as markup."""
    return [
        Text(row.kernel if first else ""),
        Text(row.metric if first else ""),
        Text(row.commit[:7] if row.commit else "-"),
        Text(row.branch or "-"),
        Text(row.recorded_at[:10]),
        Text(row.complexity or "-", style="bold yellow" if changed else ""),
        Text(row.verdict or "-", style=STYLES.get(row.verdict or "", "dim")),
        Text(_predicted(row)),
    ]


def _predicted(row: TimelineRow) -> str:
    if row.predicted_at_target is None:
        return "-"
    unit = f" {row.unit}" if row.unit else ""
    return f"{row.predicted_at_target:.4g}{unit}"
