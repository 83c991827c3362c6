"""Noise estimates from repetitions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["range_of_relative_deviation"]


def range_of_relative_deviation(repetitions: Sequence[Sequence[float]]) -> float | None:
    """Seed 004's rrd: max minus min of all (v - mean) / mean; None without repetitions."""
    deviations = []
    for values in repetitions:
        v = np.asarray(values, dtype=float)
        if v.size >= 2:
            deviations.append((v - v.mean()) / v.mean())
    if not deviations:
        return None
    d = np.concatenate(deviations)
    return float(d.max() - d.min())
