"""One-parameter lines through multi-parameter measurements, for per-parameter evidence."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ..measurements import Kernel

__all__ = ["Line", "kernel_line"]


@dataclass(frozen=True)
class Line:
    """The points of a kernel where only ``parameter`` varies; the others are fixed at ``at``."""

    parameter: str
    at: tuple[tuple[str, float], ...]
    x: tuple[float, ...]
    values: tuple[tuple[float, ...], ...]


def kernel_line(
    kernel: Kernel,
    parameters: tuple[str, ...],
    parameter: str,
    at: tuple[tuple[str, float], ...] | None = None,
) -> Line | None:
    """The line along ``parameter`` with the most points (ties: the largest other values).

    With ``at`` the line through those fixed values, or None if the kernel has none there.
    """
    i = parameters.index(parameter)
    groups: dict[tuple[tuple[str, float], ...], dict[float, tuple[float, ...]]] = defaultdict(dict)
    for point in kernel.points:
        fixed = tuple((p, v) for j, (p, v) in enumerate(zip(parameters, point.at)) if j != i)
        groups[fixed][point.at[i]] = point.values
    if at is not None:
        chosen = groups.get(at)
        key = at
    else:
        if not groups:
            return None
        key = max(groups, key=lambda g: (len(groups[g]), tuple(v for _, v in g)))
        chosen = groups[key]
    if not chosen:
        return None
    xs = tuple(sorted(chosen))
    return Line(parameter, key, xs, tuple(chosen[x] for x in xs))
