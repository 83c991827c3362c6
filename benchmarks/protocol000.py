"""Synthetic functions of seed 000's evaluation (Reisert et al., Fig. 3), deterministic.

Seven classes -- constant; common, rare, exotic terms with one and two terms --
coefficients 10^U[-2,3], x-sets of five doubling points, +-2% uniform noise.
The lead-order term of a two-term function is the one contributing more at 4*x_max.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F

import numpy as np

COMMON = [(F(1), F(0)), (F(2), F(0)), (F(3), F(0)), (F(0), F(1))]
RARE = (
    [(F(i, 2), F(0)) for i in (1, 3, 5)]
    + [(F(i, 3), F(0)) for i in (1, 2, 4, 5, 7, 8)]
    + [(F(0), F(2))]
)
EXOTIC = (
    [(F(i, 4), F(0)) for i in (1, 3, 5, 7, 9, 11)]
    + [(F(i, 5), F(0)) for i in range(1, 15) if i not in (5, 10)]
    + [(F(0), F(1, 2)), (F(0), F(3, 2))]
)
CLASSES = ["constant", "common-1", "common-2", "rare-1", "rare-2", "exotic-1", "exotic-2"]
XSETS = {
    "2..32": [2, 4, 8, 16, 32],
    "8..128": [8, 16, 32, 64, 128],
    "32..512": [32, 64, 128, 256, 512],
    "128..2048": [128, 256, 512, 1024, 2048],
}


@dataclass(frozen=True)
class Function:
    """c0 + sum c_k x^a_k log2^b_k(x), with the lead-order term named."""

    c0: float
    terms: tuple[tuple[float, F, F], ...]  # (coefficient, alpha, beta)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        y = np.full_like(x, self.c0)
        for c, a, b in self.terms:
            y = y + c * x ** float(a) * np.log2(x) ** float(b)
        return y

    def lead(self, x_eval: float) -> tuple[F, F]:
        """Exponents of the term contributing most at x_eval; (0, 0) if constant."""
        if not self.terms:
            return (F(0), F(0))
        contrib = [c * x_eval ** float(a) * np.log2(x_eval) ** float(b) for c, a, b in self.terms]
        c, a, b = self.terms[int(np.argmax(contrib))]
        return (a, b)


def _pick_terms(cls: str, rng: np.random.Generator) -> list[tuple[F, F]]:
    kind, _, count = cls.partition("-")
    if kind == "constant":
        return []
    own = {"common": COMMON, "rare": RARE, "exotic": EXOTIC}[kind]
    pool = {"common": COMMON, "rare": COMMON + RARE, "exotic": COMMON + RARE + EXOTIC}[kind]
    first = own[rng.integers(len(own))]
    if count == "1":
        return [first]
    while True:  # a second, different term from the class's pool
        second = pool[rng.integers(len(pool))]
        if second != first:
            return [first, second]


def functions(cls: str, count: int, seed: int) -> list[Function]:
    """``count`` random functions of a class, reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        chosen = _pick_terms(cls, rng)
        coeffs = 10.0 ** rng.uniform(-2, 3, size=1 + len(chosen))
        out.append(
            Function(
                float(coeffs[0]), tuple((float(c), a, b) for c, (a, b) in zip(coeffs[1:], chosen))
            )
        )
    return out


def noisy_values(
    fn: Function, xs: list[int], rng: np.random.Generator, noise: float = 0.02, reps: int = 1
) -> np.ndarray:
    """Values at xs (shape points x reps), each times (1 + U[-noise, noise])."""
    clean = fn(np.array(xs, dtype=float))
    factors = 1.0 + rng.uniform(-noise, noise, size=(len(xs), reps))
    return clean[:, None] * factors
