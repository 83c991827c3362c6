"""What ``perfguard run`` prints when it is done: one row per benchmark, then the errors."""

from __future__ import annotations

import statistics

from rich.console import RenderableType
from rich.markup import escape

from .. import numbers
from ..collection.timing import relative_spread
from ..measurements import Kernel, MeasurementSet
from .tables import Column, fit

__all__ = ["error_lines", "run_table"]


def run_table(mset: MeasurementSet, width: int = 80) -> RenderableType:
    """Sizes, points, repetitions and noise of every measured benchmark."""
    ks = mset.kernels
    columns = [
        Column("benchmark", tuple(k.name for k in ks)),
        Column("metric", tuple(k.metric for k in ks), drop=1),
        Column("sizes", tuple(_sizes(mset, k) for k in ks)),
        Column("points", tuple(str(len(k.points)) for k in ks), numeric=True),
        Column("repetitions", tuple(_repetitions(k) for k in ks), numeric=True),
        Column("noise", tuple(_noise(k) for k in ks), numeric=True),
    ]
    return fit(columns, width)


def _sizes(mset: MeasurementSet, kernel: Kernel) -> str:
    first, last = kernel.points[0].at, kernel.points[-1].at

    def text(at: tuple[float, ...]) -> str:
        return ", ".join(numbers.at(p, v) for p, v in zip(mset.parameters, at))

    return f"{text(first)} .. {text(last)}"


def _repetitions(kernel: Kernel) -> str:
    reps = [len(p.values) for p in kernel.points]
    return f"{min(reps)}-{max(reps)}" if min(reps) != max(reps) else str(reps[0])


def _noise(kernel: Kernel) -> str:
    """One repetition's relative noise, the median over its sizes: what check's advice
    calls "noise is 23% per repetition" (this column read the median's standard error,
    6.4% of the same run)."""
    noise = statistics.median(relative_spread(p.values) for p in kernel.points)
    return "-" if noise == float("inf") else numbers.percent(noise)


def error_lines(mset: MeasurementSet) -> list[str]:
    """Rich-markup lines for the benchmarks that failed to run."""
    return [f"[red]{error.kind}[/] " + escape(error.sentence()) for error in mset.run.errors]
