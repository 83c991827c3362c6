"""Measuring from a terminal: ``collection.collect`` with the progress display, and a
SIGTERM (a cancelled CI job) treated like Ctrl-C so what was measured is kept.

This is the ``Measure`` collaborator the command line hands to ``guard.app``.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .collection.spec import BenchmarkSpec
    from .config import Config, RunConfig
    from .measurements import MeasurementSet

__all__ = ["measure"]


def measure(
    config: Config,
    specs: Sequence[BenchmarkSpec],
    options: RunConfig,
    checkpoint: Callable[[MeasurementSet], None],
) -> MeasurementSet:
    """Run the benchmarks, showing the budget used and what is being measured."""
    from .collection.collect import collect
    from .reporting.progress import RunProgress

    with _sigterm_as_interrupt(), RunProgress(options.budget, len(specs)) as progress:
        return collect(config, specs, options, on_event=progress, checkpoint=checkpoint)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
