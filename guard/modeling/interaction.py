"""Whether two parameters interact: the evidence for a product term such as ``p·n``.

The gate judges each parameter on its lines (one parameter varies, the others are held),
and along every line ``p·n`` is just ``p``: a loop nested inside another reads as a sum of
two linear effects, ``<= p + n`` passed it, and a baseline ``p + n`` against ``p·n`` read
"the same class". On a grid the product shows as the difference of differences of four
corner points, ``f(p1, n1) - f(p0, n1) - f(p1, n0) + f(p0, n0)``: zero for any sum
``g(p) + h(n)`` whatever g and h are, ``(g(p1) - g(p0)) · (h(n1) - h(n0))`` for a product.
It is divided by its error (each corner's median with the kernel's per-point error, drift
included, from its lines' evidence) and must hold at the largest rectangle of the grid and
at the next one inward (the top corner left out), as the posterior's findings must hold
with any one size left out.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ..measurements import Kernel

__all__ = ["Interaction", "interaction", "interactions", "point_medians", "DECISIVE"]

MATERIAL = 1.25  # the least change of one parameter's effect across the other's range
DECISIVE = (4.0, 2.0)  # errors at the largest rectangle, and at the next one inward
# (additive truths, 5x5 grids, 1-35% noise, drift up to 1.15x the noise, 400 kernels a
# level: the largest z seen 3.0, the largest held 2.7, never both over these)


@dataclass(frozen=True)
class Interaction:
    """The difference of differences of ``first`` and ``second`` on a grid, in errors."""

    first: str
    second: str
    z: float  # at the largest rectangle
    held: float  # at the next rectangle inward (the top corner left out)
    ratio: float  # first's effect at second's top value over its effect at the bottom
    low: float  # second's bottom and top values, for the sentence
    high: float

    def decisive(self, z: float, held: float) -> bool:
        """Many errors from a sum, also one rectangle inward, and large enough to be a
        product: one parameter's effect changes by ``MATERIAL`` or more across the other's
        range (a run that slows 15% from its first point to its last bends a sum by 3-14%)."""
        material = not (1 / MATERIAL < self.ratio < MATERIAL)  # NaN: none or the other sign
        return self.z >= z and self.held >= held and material

    def describe(self) -> str:
        z = f"({self.z:.1f} errors from a sum's none)"
        if math.isfinite(self.ratio) and self.ratio > 0:
            return (
                f"{self.first} and {self.second} interact: {self.first}'s effect at "
                f"{self.second}={self.high:g} is ×{self.ratio:.3g} its effect at "
                f"{self.second}={self.low:g} {z}"
            )
        return (
            f"{self.first} and {self.second} interact: {self.first} has an effect at "
            f"{self.second}={self.high:g} and none, or the opposite, at "
            f"{self.second}={self.low:g} {z}"
        )


def interaction(
    kernel: Kernel,
    parameters: tuple[str, ...],
    first: str,
    second: str,
    error: float,
    medians: dict[tuple[float, ...], float] | None = None,
) -> Interaction | None:
    """The pair's interaction on the kernel's grid (``error``: relative per-point error), or
    None where no grid of 3 x 3 values or more has the corners of its largest rectangle and
    of the next one inward measured.
    ``medians``: each point's median, where the caller has them (point -> value)."""
    values = medians if medians is not None else point_medians(kernel)
    i, j = parameters.index(first), parameters.index(second)
    rest = [k for k in range(len(parameters)) if k not in (i, j)]
    grids: dict[tuple[float, ...], dict[tuple[float, float], float]] = defaultdict(dict)
    for at, value in values.items():
        grids[tuple(at[k] for k in rest)][at[i], at[j]] = value
    for held in sorted(grids):  # the smallest values of the others first, as lines are
        found = _rectangles(grids[held], error)
        if found is not None:
            z, z_in, ratio, low, high = found
            return Interaction(first, second, z, z_in, ratio, low, high)
    return None


def interactions(
    kernel: Kernel, parameters: tuple[str, ...], error: float
) -> dict[tuple[str, str], Interaction]:
    """Every pair of parameters' interaction where the grid has one."""
    values = point_medians(kernel)
    out = {}
    for a, b in combinations(parameters, 2):
        found = interaction(kernel, parameters, a, b, error, values)
        if found is not None:
            out[a, b] = found
    return out


def point_medians(kernel: Kernel) -> dict[tuple[float, ...], float]:
    """Each point's median (of a few repetitions: plain Python beats numpy's overhead)."""
    return {p.at: statistics.median(p.values) for p in kernel.points if p.values}


def _rectangles(
    grid: dict[tuple[float, float], float], error: float
) -> tuple[float, float, float, float, float] | None:
    xs = sorted({a for a, _ in grid})
    ys = sorted({b for _, b in grid})
    # the corners the two rectangles read: an interior point may be missing
    needed = [(x, y) for x in (xs[0], *xs[-2:]) for y in (ys[0], *ys[-2:])]
    if len(xs) < 3 or len(ys) < 3 or any(c not in grid for c in needed):
        return None
    outer = _z(grid, (xs[0], xs[-1]), (ys[0], ys[-1]), error)
    inner = _z(grid, (xs[0], xs[-2]), (ys[0], ys[-2]), error)
    low = grid[xs[-1], ys[0]] - grid[xs[0], ys[0]]
    high = grid[xs[-1], ys[-1]] - grid[xs[0], ys[-1]]
    # an effect within two errors of none is none: "×187" of a noise-sized effect misleads
    noise = 2 * error * math.hypot(grid[xs[-1], ys[0]], grid[xs[0], ys[0]])
    ratio = high / low if low > noise else math.nan
    return outer, inner, ratio, ys[0], ys[-1]


def _z(
    grid: dict[tuple[float, float], float],
    xs: tuple[float, float],
    ys: tuple[float, float],
    error: float,
) -> float:
    corners = np.array([grid[x, y] for x in xs for y in ys])  # 00, 01, 10, 11
    dod = corners[3] - corners[2] - corners[1] + corners[0]
    sd = error * float(np.sqrt(np.sum(corners**2)))
    return float(dod / sd) if sd > 0 else math.inf
