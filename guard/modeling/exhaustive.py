"""Exhaustive search over a configurable PMNF hypothesis space with leave-one-out CV.

The classic Extra-P default: up to ``max_terms`` terms ``x^i * log2^j(x)`` with i from I
and j from J, every combination fitted (one batched solve per number of terms) and the
hypothesis with the smallest leave-one-out SMAPE kept; the constant model competes too.
Terms must have positive coefficients, and a hypothesis gets at most P - 4 terms for P
points, so that every leave-one-out fold keeps a residual degree of freedom (with five
points, two-term hypotheses fit the four training points exactly and LOO picks noise).
Leave-one-out predictions come from the hat matrix, so no refitting per left-out point.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction as F

import numpy as np

from .fitting import fit_batch, power_log_basis, smape
from .result import CONSTANT_ORDER, Fitted, constant_fit

__all__ = ["ExhaustiveModeler", "classic_exponents"]


def classic_exponents() -> tuple[tuple[F, ...], tuple[F, ...]]:
    """Extra-P's classic default sets: I = {0, 1/4, ..., 12/4}, J = {0, 1, 2}."""
    return tuple(F(i, 4) for i in range(13)), (F(0), F(1), F(2))


@dataclass(frozen=True)
class ExhaustiveModeler:
    """Every combination of up to ``max_terms`` terms from I x J, chosen by LOO SMAPE."""

    poly_exponents: tuple[F, ...] = field(default_factory=lambda: classic_exponents()[0])
    log_exponents: tuple[F, ...] = field(default_factory=lambda: classic_exponents()[1])
    max_terms: int = 2
    chunk: int = 256
    name: str = "exhaustive"

    def _terms(self) -> list[tuple[F, F]]:
        pairs = itertools.product(self.poly_exponents, self.log_exponents)
        return [(F(a), F(b)) for a, b in pairs if (a, b) != CONSTANT_ORDER]

    def fit(self, x: np.ndarray, y: np.ndarray, noise: np.ndarray | None = None) -> list[Fitted]:
        """Model every row of y (K, P) measured at x (P,); ``noise`` (K,) is not used here."""
        terms = self._terms()
        basis = power_log_basis(
            x, np.array([float(a) for a, _ in terms]), np.array([float(b) for _, b in terms])
        )
        # Each leave-one-out fold must keep a residual degree of freedom: with P points
        # a hypothesis may have at most P - 3 coefficients (constant + P - 4 terms).
        usable = max(1, min(self.max_terms, len(x) - 4))
        combos = [
            c for n in range(1, usable + 1) for c in itertools.combinations(range(len(terms)), n)
        ]
        best_score = np.full(len(y), np.inf)
        best = [constant_fit(0.0, np.inf)] * len(y)
        for n in range(1, usable + 1):
            group = [c for c in combos if len(c) == n]
            idx = np.array(group)
            design = np.concatenate(
                [np.ones((len(group), len(x), 1)), basis[idx].transpose(0, 2, 1)], -1
            )
            for start in range(0, len(y), self.chunk):
                rows = slice(start, start + self.chunk)
                fit = fit_batch(design, y[rows])
                coef = fit.coefficients
                ok = fit.valid & (coef[..., 1:] > 0).all(-1)  # growth terms only
                score = np.where(ok, smape(y[rows][:, None, :], fit.loo_predicted), np.inf)
                h = np.argmin(score, axis=1)
                for k, hk in enumerate(h):
                    gk = start + k
                    if score[k, hk] < best_score[gk]:
                        best_score[gk] = score[k, hk]
                        fitted_smape = float(smape(y[gk], fit.predicted[k, hk]))
                        best[gk] = Fitted(
                            float(coef[k, hk, 0]),
                            tuple(
                                (float(coef[k, hk, 1 + j]), *terms[t])
                                for j, t in enumerate(group[hk])
                            ),
                            fitted_smape,
                        )
        const = fit_batch(np.ones((1, len(x), 1)), y)
        c_loo = smape(y[:, None, :], const.loo_predicted)[:, 0]
        c_fit = smape(y, const.predicted[:, 0, :])
        return [
            constant_fit(const.coefficients[k, 0, 0], c_fit[k])
            if c_loo[k] <= best_score[k]
            else best[k]
            for k in range(len(y))
        ]
