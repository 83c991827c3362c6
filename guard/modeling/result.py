"""What every single-parameter modeler returns for one kernel."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["CONSTANT_ORDER", "Fitted", "constant_fit", "evaluate_fits"]

# (alpha, beta) of a term that does not grow: a growing term's order compares above it.
CONSTANT_ORDER: tuple[Fraction, Fraction] = (Fraction(0), Fraction(0))


@dataclass(frozen=True)
class Fitted:
    """``constant + sum(coefficient * x^alpha * log2(x)^beta)`` with its SMAPE (percent)."""

    constant: float
    terms: tuple[tuple[float, Fraction, Fraction], ...]
    smape: float

    @property
    def is_constant(self) -> bool:
        return not self.terms


def constant_fit(value: float, smape: float) -> Fitted:
    """A model with no terms."""
    return Fitted(float(value), (), float(smape))


def evaluate_fits(fits: Sequence[Fitted], x: np.ndarray) -> np.ndarray:
    """Every fit's value at x (K, P): the terms padded into arrays, added in their order."""
    width = max((len(f.terms) for f in fits), default=0)
    k = len(fits)
    coef, alpha, beta = np.zeros((k, width)), np.zeros((k, width)), np.zeros((k, width))
    for i, f in enumerate(fits):
        for j, (c, a, b) in enumerate(f.terms):
            coef[i, j], alpha[i, j], beta[i, j] = c, a, b
    x = np.asarray(x, dtype=float)
    out = np.repeat(np.array([f.constant for f in fits], dtype=float)[:, None], len(x), axis=1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        logx = np.log2(x)[None, None, :]
        logs = np.where(beta[..., None] == 0, 1.0, np.abs(logx) ** beta[..., None] * np.sign(logx))
        terms = coef[..., None] * x[None, None, :] ** alpha[..., None] * logs
    for j in range(width):  # term by term, as a fit is written: same rounding as by hand
        out = out + terms[:, j, :]
    return out
