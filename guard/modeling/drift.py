"""Resistance to per-size drift: one size whose repetitions all ran slow (or fast).

The median guards against one bad repetition, not against a whole point shifted by a
noisy neighbour or a frequency change during that size's runs.  With six or more points,
a point whose relative residual is far outside both the repetition noise and the other
points' residuals is reported, so the user can re-measure that size.

Refitting without the point was measured and rejected (docs/benchmarks.md): on 8-point
series with one point shifted +15..60%, the refit gained at most 3 points of exact-class
accuracy at 2% noise and lost up to 2.6 points at 10% noise, where a 7-point refit
overfits.  The model is therefore left as fitted; its class confidence already drops
when the points disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .result import Fitted, evaluate_fits

__all__ = ["MIN_POINTS", "Drift", "find_drift", "misfits"]

MIN_POINTS = 6  # with fewer, dropping a point leaves too little to choose a class
_OUTSIDE = 4.0  # residual, in robust scales, that marks a point as shifted


@dataclass(frozen=True)
class Drift:
    """Point ``index`` deviates by ``deviation`` (relative) from the refitted model."""

    index: int
    deviation: float


def misfits(
    x: np.ndarray, y: np.ndarray, fits: list[Fitted], sigma: np.ndarray, floor: float = 3e-3
) -> np.ndarray:
    """Kernels whose worst point lies far outside the noise and the other residuals (K,)."""
    k, p = y.shape
    if p < MIN_POINTS:
        return np.zeros(k, dtype=bool)
    pred = evaluate_fits(fits, x)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.abs((y - pred) / pred)
    r = np.where(np.isfinite(r), r, 0.0)
    worst = np.argmax(r, axis=1)
    rest = r.copy()
    rest[np.arange(k), worst] = np.nan
    scale = 1.4826 * np.nanmedian(rest, axis=1)
    scale = np.maximum(scale, np.nan_to_num(sigma, nan=0.0))
    scale = np.maximum(scale, floor)
    return r[np.arange(k), worst] > _OUTSIDE * scale


def find_drift(
    x: np.ndarray, y: np.ndarray, fits: list[Fitted], sigma: np.ndarray
) -> list[Drift | None]:
    """The shifted point of each misfitting kernel, measured against its own fit."""
    flagged = misfits(x, y, fits, sigma)
    out: list[Drift | None] = []
    for i, fit in enumerate(fits):
        if not flagged[i]:
            out.append(None)
            continue
        pred = evaluate_fits([fit], x)[0]
        r = (y[i] - pred) / pred
        j = int(np.argmax(np.abs(r)))
        out.append(Drift(j, float(r[j])))
    return out
