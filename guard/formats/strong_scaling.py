"""Strong-scaling studies: a fixed problem on more and more processes, values that fall.

perfguard's classes describe growth, so a time that falls as the process count p grows
(``t = 100 / p``) is modelled as the nearest constant and judged by nothing.  Extra-P
converts such an experiment before modelling: each value times the process count, the
total effort over all processes (its GUI's strong-scaling conversion; for Score-P folders
``--scaling strong`` sums a profile's processes, the same total).  Perfect strong scaling
is then a constant, a serial part or communication that grows shows as growth, and the
gate can tell when a change lost scalability.

``--scaling strong`` on a file does that conversion; ``--scaling strong=p`` names the
parameter that counts the processes.  With one parameter it is that one; with several, the
one along which the summed time falls at every step (as Extra-P's detection reads it), or
an error that asks for the name.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from ..errors import UsageError
from ..measurements import Kernel, MeasurementSet, Point
from .cube import SCALINGS

__all__ = ["falling_parameters", "parse", "total_effort"]


def parse(scaling: str | None) -> tuple[str | None, str | None]:
    """(kind, parameter) of a ``--scaling`` value: ``strong=p`` names the parameter."""
    if scaling is None:
        return None, None
    kind, sep, name = scaling.partition("=")
    if kind not in SCALINGS or (sep and (kind != "strong" or not name)):
        raise UsageError(
            f"--scaling must be weak, weak_threaded, strong or strong=PARAMETER, got {scaling!r}"
        )
    return kind, name or None


def total_effort(mset: MeasurementSet, parameter: str | None, source: str) -> MeasurementSet:
    """Every value times its point's value of the process-count ``parameter`` (None: the only
    parameter, or the one the values fall along)."""
    name = parameter or _scaling_parameter(mset, source)
    if name not in mset.parameters:
        raise UsageError(
            f"--scaling strong={name}: {source} has parameters {', '.join(mset.parameters)}"
        )
    i = mset.parameters.index(name)
    kernels = tuple(
        Kernel(
            k.name,
            k.metric,
            tuple(Point(p.at, tuple(v * p.at[i] for v in p.values)) for p in k.points),
            k.unit,
            k.reported,
        )
        for k in mset.kernels
    )
    return MeasurementSet(mset.parameters, kernels, mset.run)


def _scaling_parameter(mset: MeasurementSet, source: str) -> str:
    if len(mset.parameters) == 1:
        return mset.parameters[0]
    falling = falling_parameters(mset)
    if len(falling) == 1:
        return falling[0]
    found = (
        f"the values fall along {', '.join(falling)}" if falling else "no parameter's values fall"
    )
    raise UsageError(
        f"--scaling strong: {source} has parameters {', '.join(mset.parameters)} and {found}; "
        f"name the one that counts the processes, e.g. --scaling strong={mset.parameters[0]}"
    )


def falling_parameters(mset: MeasurementSet) -> list[str]:
    """Parameters along which the kernels' summed time (or, without a ``time`` metric, their
    summed values) falls at every step of its longest line, the others held fixed."""
    metrics = {k.metric for k in mset.kernels}
    chosen = [k for k in mset.kernels if k.metric == "time"] if "time" in metrics else mset.kernels
    total: dict[tuple[float, ...], float] = defaultdict(float)
    for k in chosen:
        for p in k.points:
            if p.values:
                total[p.at] += float(np.median(p.values))
    out = []
    for i, name in enumerate(mset.parameters):
        lines: dict[tuple[float, ...], list[tuple[float, float]]] = defaultdict(list)
        for at, value in total.items():
            lines[at[:i] + at[i + 1 :]].append((at[i], value))
        longest = max(lines.values(), key=len, default=[])
        values = [v for _, v in sorted(longest)]
        if len(values) >= 2 and all(b < a for a, b in zip(values, values[1:])):
            out.append(name)
    return out
