"""Seeded crossover regressions: new code as fast at small sizes, slower only at the top.

The second generator of the gate benchmark (the first, benchmarks/regression_cases.py,
matches the candidate's kernel to the baseline's at the *smallest* size, so its
regressions are 10-30x slower at the top and easy to see).  Here the candidate is matched
at the *largest* measured size, 0.8-2.5x the baseline there, so a class change shows only
as a different curvature -- the question a complexity guard exists to answer before a
ratio rule can.  Each case is one kernel measured on the baseline's runner and on the
candidate's, at six doubling sizes 1000..32000 with five repetitions.  A value is

    speed * (overhead + kernel(n)) * drift(n) * jitter * outlier

* ``overhead`` is 5-60% of the baseline's time at the largest size and the same in both
  runs (the code around the kernel did not change);
* the baseline's kernel fills the rest of its top-size time; the candidate's kernel is
  scaled so that the candidate's top-size time is ``top`` x the baseline's;
* ``speed`` is 1 for the baseline, U[0.7, 1.4] for the candidate's runner;
* ``drift(n)`` is systematic per size and shared by that size's repetitions:
  exp(d * z_k) with z_k ~ N(0, 1) and d = drift_ratio * jitter;
* ``jitter`` multiplies each repetition by exp(N(0, j)) (lognormal, the shape of real
  timing noise) for the noise level j;
* ``outlier``: a repetition is multiplied by U[1.5, 3] with probability 5%.

Regressions (``top`` U[0.8, 2.5]) are the issue's pairs: 1->log n, 1->n, log n->n,
log n->sqrt n, sqrt n->n, n->n log n, n->n^1.5, n->n^2, n log n->n^1.5, n log n->n^2,
n^2->n^3, n^2->n^2 log n.  Non-regressions are those of the first generator -- the same
class with the kernel 10-30% slower or 0-30% faster -- and improvements (the pairs
reversed, ``top`` U[0.4, 1.25]).
"""

from __future__ import annotations

import numpy as np
from regression_cases import REPETITIONS, Case, same_class_factor

__all__ = ["CLASSES", "KIND_SHARES", "LEVELS", "REGRESSIONS", "generate"]

CLASSES: dict[str, tuple[float, int]] = {
    "1": (0.0, 0),
    "log n": (0.0, 1),
    "sqrt n": (0.5, 0),
    "n": (1.0, 0),
    "n log n": (1.0, 1),
    "n^1.5": (1.5, 0),
    "n^2": (2.0, 0),
    "n^2 log n": (2.0, 1),
    "n^3": (3.0, 0),
}
REGRESSIONS = (
    ("1", "log n"), ("1", "n"), ("log n", "n"), ("log n", "sqrt n"), ("sqrt n", "n"),
    ("n", "n log n"), ("n", "n^1.5"), ("n", "n^2"), ("n log n", "n^1.5"), ("n log n", "n^2"),
    ("n^2", "n^3"), ("n^2", "n^2 log n"),
)  # fmt: skip
IMPROVEMENTS = tuple((cand, base) for base, cand in REGRESSIONS)
LEVELS = (0.01, 0.03, 0.05, 0.10, 0.20, 0.35)
SIZES = 1000.0 * 2.0 ** np.arange(6)
KIND_SHARES = (("regression", 0.4), ("slower", 0.25), ("same-or-faster", 0.2),
               ("improvement", 0.15))  # fmt: skip
DRIFT_RATIO = 0.5


def _shape(name: str) -> np.ndarray:
    """The class's curve at SIZES, 1 at the largest size."""
    alpha, beta = CLASSES[name]
    g = SIZES**alpha * np.log2(SIZES) ** beta
    return g / g[-1]


def _measure(
    rng: np.random.Generator, clean: np.ndarray, level: float, speed: float, drift_ratio: float
) -> np.ndarray:
    drift = np.exp(drift_ratio * level * rng.standard_normal(len(clean)))
    jitter = np.exp(level * rng.standard_normal((len(clean), REPETITIONS)))
    hit = rng.random((len(clean), REPETITIONS)) < 0.05
    outlier = np.where(hit, rng.uniform(1.5, 3.0, hit.shape), 1.0)
    return speed * clean[:, None] * drift[:, None] * jitter * outlier


def _pair(
    rng: np.random.Generator, kind: str, factors: tuple[float, float] | None = None
) -> tuple[str, str, float]:
    """(baseline class, candidate class, candidate's kernel factor or top-size ratio)."""
    if kind == "regression":
        base, cand = REGRESSIONS[rng.integers(len(REGRESSIONS))]
        return base, cand, float(rng.uniform(0.8, 2.5))
    if kind == "improvement":
        base, cand = IMPROVEMENTS[rng.integers(len(IMPROVEMENTS))]
        return base, cand, float(rng.uniform(0.4, 1.25))
    names = list(CLASSES)
    base = names[rng.integers(len(names))]
    return base, base, same_class_factor(rng, kind, factors)


def _case(
    rng: np.random.Generator,
    index: int,
    kind: str,
    level: float,
    factors: tuple[float, float] | None = None,
    drift_ratio: float = DRIFT_RATIO,
) -> Case:
    base, cand, factor = _pair(rng, kind, factors)
    scale = float(np.exp(rng.uniform(np.log(1e-5), np.log(1e-2))))  # top-size time, seconds
    overhead = float(rng.uniform(0.05, 0.6))
    kernel = 1.0 - overhead
    baseline = overhead + kernel * _shape(base)
    if base == cand:  # the same class, its kernel `factor` x slower or faster
        candidate = overhead + factor * kernel * _shape(cand)
    else:  # matched at the top: the candidate's top-size time is `factor` x the baseline's
        candidate = overhead + max(factor - overhead, 0.02) * _shape(cand)
    speed = float(rng.uniform(0.7, 1.4))
    return Case(
        f"{kind}-{index}",
        kind,
        base,
        cand,
        SIZES,
        _measure(rng, scale * baseline, level, 1.0, drift_ratio),
        _measure(rng, scale * candidate, level, speed, drift_ratio),
        speed,
    )


def generate(
    level: float,
    count: int,
    seed: int,
    factors: tuple[float, float] | None = None,
    drift_ratio: float = DRIFT_RATIO,
) -> list[Case]:
    """``count`` cases at one jitter level, reproducible from (seed, level); ``factors`` as in
    regression_cases.same_class_factor; ``drift_ratio`` the per-size drift's sd over the
    jitter's."""
    rng = np.random.default_rng([seed, 15, int(round(level * 1000))])
    kinds = [k for k, share in KIND_SHARES for _ in range(int(round(share * count)))]
    return [_case(rng, i, kind, level, factors, drift_ratio) for i, kind in enumerate(kinds)]
