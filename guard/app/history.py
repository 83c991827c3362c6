"""``perfguard history``: each kernel's recorded runs, read from the SQLite history."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from ..history import TimelineRow

__all__ = ["timeline"]


def timeline(db: Path, kernel: str | None, metric: str | None, limit: int) -> list[TimelineRow]:
    """The kernels' last ``limit`` runs; [] for an empty history, an error for no match."""
    from ..history import History

    if limit < 1:
        raise UsageError(f"--limit must be at least 1, got {limit}")
    with History.open(db, create=False) as history:
        rows = history.timeline(kernel, metric, limit)
        empty = not rows and not history.runs(limit=1)
    if rows or empty:
        return rows
    which = f"kernel {kernel!r}" if kernel is not None else "kernel"
    raise UsageError(f"{db}: no recorded {which}" + (f" with metric {metric!r}" if metric else ""))
