"""Seeded baseline/candidate pairs with what CI does to timings: the regression benchmark.

Each case is one kernel measured twice -- the baseline commit and the candidate -- at six
doubling sizes with five repetitions, on two runners of different speed.  A value is

    speed * (overhead + a * g(n)) * drift(n) * jitter * outlier

* ``g`` is the kernel's class; ``overhead`` is 1-3x the kernel's own time at the smallest
  size, so it dominates small sizes;
* ``speed`` is 1 for the baseline and U[0.7, 1.4] for the candidate's runner;
* ``drift(n)`` is systematic per size and shared by that size's repetitions, so they
  cannot average it away: ``exp(d * z_k + t * k / 5)`` for the k-th size with z_k ~ N(0, 1)
  and a trend t ~ U[-d, d] over the run, d = jitter / 2;
* ``jitter`` multiplies each repetition by exp(N(0, j)) -- a coefficient of variation of
  about j -- for the noise level j;
* ``outlier``: each repetition is multiplied by U[1.5, 3] with probability 5%.

Regressions change the class (1 -> log n, log n -> sqrt n, n -> n log n, n -> n^2,
n log n -> n^1.5), with the candidate's kernel 0.8-1.25x the baseline's at the smallest
size.  Non-regressions keep the class and make the kernel 10-30% slower, keep it as fast
or faster, or lower the class (an improvement).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F

import numpy as np

__all__ = [
    "CLASSES",
    "LEVELS",
    "REGRESSIONS",
    "Case",
    "NoiseModel",
    "generate",
    "same_class_factor",
]

Order = tuple[F, F]
CLASSES: dict[str, Order] = {
    "1": (F(0), F(0)),
    "log n": (F(0), F(1)),
    "sqrt n": (F(1, 2), F(0)),
    "n": (F(1), F(0)),
    "n log n": (F(1), F(1)),
    "n^1.5": (F(3, 2), F(0)),
    "n^2": (F(2), F(0)),
}
REGRESSIONS = (("1", "log n"), ("log n", "sqrt n"), ("n", "n log n"), ("n", "n^2"),
               ("n log n", "n^1.5"))  # fmt: skip
IMPROVEMENTS = (("log n", "1"), ("sqrt n", "log n"), ("n", "sqrt n"), ("n log n", "n"),
                ("n^1.5", "n log n"), ("n^2", "n log n"))  # fmt: skip
LEVELS = (0.01, 0.03, 0.05, 0.10, 0.20, 0.35)
SIZES, REPETITIONS = 6, 5
START_SIZES = (64, 256, 1024, 4096)


@dataclass(frozen=True)
class NoiseModel:
    """How CI disturbs timings; ``drift_ratio`` is the per-size drift's scale per jitter."""

    drift_ratio: float = 0.5
    outlier_rate: float = 0.05
    outlier_range: tuple[float, float] = (1.5, 3.0)
    speed_range: tuple[float, float] = (0.7, 1.4)
    jitter: str = "lognormal"  # or "uniform": 1 + U[-j/2, j/2] (seed 004's noise levels)


@dataclass(frozen=True)
class Case:
    """One baseline/candidate pair; values are (sizes, repetitions) arrays."""

    id: str
    kind: str  # "regression" | "slower" | "same-or-faster" | "improvement"
    base_class: str
    cand_class: str
    sizes: np.ndarray
    baseline: np.ndarray
    candidate: np.ndarray
    speed: float

    @property
    def regression(self) -> bool:
        return self.kind == "regression"


def _g(name: str, n: np.ndarray) -> np.ndarray:
    alpha, beta = CLASSES[name]
    return n ** float(alpha) * np.log2(n) ** float(beta)


def _measure(rng, clean: np.ndarray, level: float, speed: float, noise: NoiseModel) -> np.ndarray:
    d = level * noise.drift_ratio
    k = np.arange(len(clean))
    drift = np.exp(d * rng.standard_normal(len(clean)) + rng.uniform(-d, d) * k / (len(k) - 1))
    if noise.jitter == "uniform":
        jitter = 1 + rng.uniform(-level / 2, level / 2, (len(clean), REPETITIONS))
    else:
        jitter = np.exp(level * rng.standard_normal((len(clean), REPETITIONS)))
    hit = rng.random((len(clean), REPETITIONS)) < noise.outlier_rate
    outlier = np.where(hit, rng.uniform(*noise.outlier_range, hit.shape), 1.0)
    return speed * clean[:, None] * drift[:, None] * jitter * outlier


def same_class_factor(
    rng: np.random.Generator, kind: str, factors: tuple[float, float] | None
) -> float:
    """The kernel's constant factor for a class kept: 1.1-1.3 slower or 0.7-1.0 faster, or
    with ``factors`` (lo, hi) lo-hi slower or 1/hi-1/lo faster (one draw either way)."""
    lo, hi = factors or (1.1, 1.3)
    if kind == "slower":
        return float(rng.uniform(lo, hi))
    return float(rng.uniform(0.7, 1.0) if factors is None else rng.uniform(1 / hi, 1 / lo))


def _pair(rng, kind: str, factors: tuple[float, float] | None = None) -> tuple[str, str, float]:
    """(base class, candidate class, candidate kernel scale at the smallest size)."""
    names = list(CLASSES)
    if kind == "regression":
        base, cand = REGRESSIONS[rng.integers(len(REGRESSIONS))]
        return base, cand, float(np.exp(rng.uniform(np.log(0.8), np.log(1.25))))
    if kind == "improvement":
        base, cand = IMPROVEMENTS[rng.integers(len(IMPROVEMENTS))]
        return base, cand, float(np.exp(rng.uniform(np.log(0.8), np.log(1.25))))
    base = names[rng.integers(len(names))]
    return base, base, same_class_factor(rng, kind, factors)


def _case(
    rng, index: int, kind: str, level: float, noise: NoiseModel, factors: tuple[float, float] | None
) -> Case:
    base, cand, scale = _pair(rng, kind, factors)
    n = START_SIZES[rng.integers(len(START_SIZES))] * 2.0 ** np.arange(SIZES)
    a = float(np.exp(rng.uniform(np.log(1e-9), np.log(1e-6))))
    g_base, g_cand = _g(base, n), _g(cand, n)
    overhead = a * g_base[0] * float(np.exp(rng.uniform(0.0, np.log(3.0))))
    a_cand = a * g_base[0] * scale / g_cand[0]
    speed = float(rng.uniform(*noise.speed_range))
    baseline = _measure(rng, overhead + a * g_base, level, 1.0, noise)
    candidate = _measure(rng, overhead + a_cand * g_cand, level, speed, noise)
    return Case(f"{kind}-{index}", kind, base, cand, n, baseline, candidate, speed)


KIND_SHARES = (("regression", 0.4), ("slower", 0.25), ("same-or-faster", 0.2),
               ("improvement", 0.15))  # fmt: skip


def generate(
    level: float,
    count: int,
    seed: int,
    noise: NoiseModel | None = None,
    factors: tuple[float, float] | None = None,
) -> list[Case]:
    """``count`` cases at one jitter level, reproducible from (seed, level); ``factors``: the
    constant factors of the same-class cases (see ``same_class_factor``)."""
    noise = noise or NoiseModel()
    rng = np.random.default_rng([seed, int(round(level * 1000))])
    kinds = [k for k, share in KIND_SHARES for _ in range(int(round(share * count)))]
    return [_case(rng, i, kind, level, noise, factors) for i, kind in enumerate(kinds)]
