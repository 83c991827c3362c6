"""Noise estimates from repetitions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["range_of_relative_deviation", "rrd_batch"]


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


def rrd_batch(values: np.ndarray) -> np.ndarray:
    """rrd for kernels whose points share a repetition count: values (K, P, R) -> (K,)."""
    if values.shape[-1] < 2:
        return np.full(values.shape[0], np.nan)
    dev = (values - values.mean(-1, keepdims=True)) / values.mean(-1, keepdims=True)
    flat = dev.reshape(values.shape[0], -1)
    return flat.max(-1) - flat.min(-1)
