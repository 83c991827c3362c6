"""Rounds as blocks: take the machine's speed in each round out of the timings.

On shared runners the speed of the whole machine drifts in phases of seconds (a
neighbour on the host, a frequency change), which makes repetitions bimodal: a point
measured mostly in slow phases looks slower than its neighbours, and a class can
change. Every round of ``perfguard run`` visits all points of all benchmarks in a
few seconds, so within a round they share the machine's state. As in a randomized
block design, each round's speed is estimated as the median, over its points, of
value / the point's typical value, and each value is divided by its round's speed.
The correction multiplies all sizes of a round alike, so it cannot create or hide
growth; deterministic metrics (custom, memory, instructions) are left alone.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

__all__ = ["MIN_BLOCK_POINTS", "round_speeds", "rescale"]

MIN_BLOCK_POINTS = 5  # fewer points in a round give too shaky a speed: it stays 1

Series = Sequence[tuple[Sequence[float], Sequence[int]]]  # per point: values, their rounds


def round_speeds(series: Series, iterations: int = 3) -> dict[int, float]:
    """The relative speed of each round (median 1 over the rounds that have one)."""
    blocks = _blocks(series)
    series = [(values, [blocks[r] for r in rs]) for values, rs in series]
    speeds = _block_speeds(series, iterations)
    return {r: speeds[b] for r, b in blocks.items()}


def _blocks(series: Series) -> dict[int, int]:
    """Round -> block: the last rounds, which revisit only a few noisy points, join the
    round before them, so that every block holds enough points to estimate a speed."""
    counts: dict[int, int] = {}
    for _, rs in series:
        for r in rs:
            counts[r] = counts.get(r, 0) + 1
    blocks: dict[int, int] = {}
    current, size = None, 0
    for r in sorted(counts):
        if current is None or size >= MIN_BLOCK_POINTS:
            current, size = r, 0
        blocks[r] = current
        size += counts[r]
    return blocks


def _block_speeds(series: Series, iterations: int) -> dict[int, float]:
    rounds = sorted({r for _, rs in series for r in rs})
    speeds = {r: 1.0 for r in rounds}
    for _ in range(iterations):
        typical = [_typical(values, rs, speeds) for values, rs in series]
        ratios: dict[int, list[float]] = {r: [] for r in rounds}
        for (values, rs), center in zip(series, typical):
            if center > 0:
                for value, r in zip(values, rs):
                    ratios[r].append(value / center)
        speeds = {
            r: statistics.median(q) if len(q) >= MIN_BLOCK_POINTS else 1.0
            for r, q in ratios.items()
        }
    return _centered(speeds)


def rescale(
    values: Sequence[float], rounds: Sequence[int], speeds: Mapping[int, float]
) -> list[float]:
    """Each value divided by its round's speed."""
    return [v / speeds.get(r, 1.0) for v, r in zip(values, rounds)]


def _typical(values: Sequence[float], rounds: Sequence[int], speeds: Mapping[int, float]) -> float:
    return statistics.median(rescale(values, rounds, speeds)) if values else 0.0


def _centered(speeds: dict[int, float]) -> dict[int, float]:
    estimated = [s for s in speeds.values() if s > 0]
    if not estimated:
        return speeds
    center = statistics.median(estimated)
    return {r: (s / center if s > 0 else 1.0) for r, s in speeds.items()}
