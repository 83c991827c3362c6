"""Progress of ``perfguard run`` on stderr: a live bar on a terminal, plain lines in CI logs."""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from ..collection.runner import RunEvent
from .tables import one_line

__all__ = ["RunProgress"]


class RunProgress:
    """Feed it RunEvents; it shows the time budget used and what is being measured."""

    def __init__(self, budget: float, benchmarks: int, console: Console | None = None):
        self.console = console or Console(stderr=True, highlight=False)
        self.budget = budget
        self.benchmarks = benchmarks
        self.started = time.monotonic()
        self.live = self.console.is_terminal
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
        )
        self.task = self.progress.add_task("pilot", total=budget, status="")
        self.pilots = 0
        self.rounds = 0

    def __enter__(self) -> RunProgress:
        if self.live:
            self.progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.live:
            self.progress.stop()

    def __call__(self, event: RunEvent) -> None:
        """Show one event."""
        elapsed = time.monotonic() - self.started
        if event.kind == "start":
            self.pilots += 1
            self._line(
                escape(one_line(f"sizing {event.benchmark} ({self.pilots}/{self.benchmarks})"))
            )
        elif event.kind == "measured":
            self._update(elapsed, escape(one_line(f"{event.benchmark} {event.point}")))
        elif event.kind == "error":
            self.console.print(
                "[red]error[/] "
                + escape(one_line(f"{event.benchmark} at {event.point}: {event.message}")),
                soft_wrap=True,
            )
        elif event.kind == "round":
            self.rounds += 1
            # In a CI log one line per round would bury the rest: print every tenth.
            if self.live or self.rounds % 10 == 1 or event.finished == event.active:
                self._line(f"round {self.rounds}: {event.finished}/{event.active} points done")
        self._update(elapsed, None)

    def _line(self, text: str) -> None:
        if self.live:
            self.progress.update(self.task, description=text)
        else:
            self.console.print(text, soft_wrap=True)

    def _update(self, elapsed: float, status: str | None) -> None:
        if not self.live:
            return
        completed = min(elapsed, self.budget)
        if status is None:
            self.progress.update(self.task, completed=completed)
        else:  # rich passes unknown keywords to the columns as task fields
            self.progress.update(self.task, completed=completed, status=status)
