"""Noise estimates from repetitions.

The range statistics (rrd, robust, point spreads) come from seed 004, whose points have
five repetitions.  The range of R draws widens with R without bound for real timings
(10,000 pytest-benchmark rounds hold GC pauses and interrupts hundreds of times the
median), so beyond RANGE_REPETITIONS a point is represented by that many evenly spaced
quantiles -- where that many draws would fall on average -- and the ranges estimate the
same noise band at any repetition count, in linear time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = [
    "RANGE_REPETITIONS",
    "median_error",
    "noise_batch",
    "point_spreads",
    "range_of_relative_deviation",
    "repetition_noise",
    "robust_noise",
    "rrd_batch",
    "representative",
]

# perfguard run's max_repetitions: up to it, ranges are taken over the values themselves,
# as before; with more, over this many quantiles (so the estimate is continuous in R).
RANGE_REPETITIONS = 15


def representative(values: npt.ArrayLike) -> np.ndarray:
    """Repetitions (..., R) as at most RANGE_REPETITIONS values with the same spread.

    The i-th of m draws lies at the i/(m+1) quantile on average, so these quantiles
    stand for m repetitions; outliers rarer than 1/(m+1) of the values do not move them.
    """
    values = np.asarray(values, dtype=float)
    if values.shape[-1] <= RANGE_REPETITIONS:
        return values
    levels = np.arange(1, RANGE_REPETITIONS + 1) / (RANGE_REPETITIONS + 1)
    return np.moveaxis(np.quantile(values, levels, axis=-1), 0, -1)


def range_of_relative_deviation(repetitions: Sequence[npt.ArrayLike]) -> float | None:
    """Seed 004's rrd: max minus min of all (v - mean) / mean; None without repetitions."""
    deviations = []
    for values in repetitions:
        v = representative(values)
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
    values = representative(values)
    dev = (values - values.mean(-1, keepdims=True)) / values.mean(-1, keepdims=True)
    flat = dev.reshape(values.shape[0], -1)
    return flat.max(-1) - flat.min(-1)


def point_spreads(repetitions: Sequence[npt.ArrayLike]) -> list[float | None]:
    """Each point's relative range (max - min) / median; None for a single value."""
    out: list[float | None] = []
    for values in repetitions:
        v = representative(values)
        out.append(float((v.max() - v.min()) / np.median(v)) if v.size >= 2 else None)
    return out


def robust_noise(repetitions: Sequence[npt.ArrayLike]) -> float | None:
    """Full width of the noise band, from the median point's relative range.

    rrd takes the extreme deviation over all points, so one outlier repetition sets it;
    the median over points ignores a few bad points.  The range of R uniform draws
    covers (R - 1) / (R + 1) of the band on average, which is scaled back here so the
    result estimates the same quantity as rrd (n = 10% means +-5%).
    """
    scaled = []
    for values in repetitions:
        v = representative(values)
        if v.size >= 2:
            spread = (v.max() - v.min()) / np.median(v)
            scaled.append(spread * (v.size + 1) / (v.size - 1))
    return float(np.median(scaled)) if scaled else None


def repetition_noise(repetitions: Sequence[npt.ArrayLike]) -> tuple[float, float] | None:
    """Relative sd of one repetition pooled over points, and the typical repetition count.

    The spread is the median absolute deviation (robust to one outlier repetition),
    scaled to a standard deviation; None when no point has two values.
    """
    deviations, counts = [], []
    for values in repetitions:
        v = np.asarray(values, dtype=float)
        if v.size >= 2:
            med = np.median(v)
            deviations.append(1.4826 * np.median(np.abs(v - med)) / med)
            counts.append(v.size)
    if not deviations:
        return None
    return float(np.median(deviations)), float(np.median(counts))


def median_error(repetitions: Sequence[npt.ArrayLike]) -> float | None:
    """Relative standard error of a point's median, pooled over points (None without repeats).

    sqrt(pi/2) / sqrt(R) is the median's efficiency on the repetition noise.
    """
    pooled = repetition_noise(repetitions)
    if pooled is None:
        return None
    sd, count = pooled
    return sd * np.sqrt(np.pi / 2) / np.sqrt(count)


def noise_batch(values: np.ndarray) -> dict[str, np.ndarray]:
    """rrd, robust, median_error (K,) and point spreads (K, P) for values (K, P, R).

    The vectorised form of the per-kernel functions above (NaN where R < 2).
    """
    k, p, r = values.shape
    med = np.median(values, axis=-1)
    if r < 2:
        nan = np.full(k, np.nan)
        return {"rrd": nan, "robust": nan, "median_error": nan, "spreads": np.full((k, p), np.nan)}
    mad = 1.4826 * np.median(np.abs(values - med[..., None]), axis=-1) / med
    kept = representative(values)
    m = kept.shape[-1]
    spreads = (kept.max(-1) - kept.min(-1)) / med
    return {
        "rrd": rrd_batch(kept),
        "robust": np.median(spreads, axis=1) * (m + 1) / (m - 1),
        "median_error": np.median(mad, axis=1) * np.sqrt(np.pi / 2) / np.sqrt(r),
        "spreads": spreads,
    }
