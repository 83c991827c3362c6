"""What every single-parameter modeler returns for one kernel."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Fitted", "constant_fit"]


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
