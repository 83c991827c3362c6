"""The iterative-refinement modeler of seed 000 (Reisert et al.), vectorised across kernels.

Simplified PMNF ``c0 + c1 * x^alpha * log2^beta(x)`` searched along four slices
(beta = 0, 1, 2 with alpha free; alpha = 0 with beta free).  Each slice starts at its
best integer exponent with the neighbours as bounds and walks the Stern-Brocot tree:
the mediants between the best and each bound are tried; the better one replaces the
best and cuts the search space, or, if neither wins, both become the new bounds.
Within a slice hypotheses are compared by (relative) RSS; across slices by SMAPE.
A refined candidate is accepted when it improves SMAPE by ``acceptance`` (1.5); the
search stops when no slice improved its SMAPE by ``termination`` (2); the final model
must beat the constant model's SMAPE by ``non_constancy`` (2).  Every kernel walks its
own path, but all walks advance in lockstep as one batched fit per iteration.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .result import Fitted, constant_fit
from .single_term import fit_constant, fit_single_terms

__all__ = ["RefiningModeler"]

_FIXED_BETA = np.array([0, 1, 2, 0])  # slice s: beta fixed for s < 3
_ALPHA_SLICE = 3  # the slice with alpha = 0 and beta free


@dataclass(frozen=True)
class _Eval:
    rss: np.ndarray
    smape: np.ndarray
    c0: np.ndarray
    c1: np.ndarray


@dataclass(frozen=True)
class RefiningModeler:
    """Seed 000's modeler with its published thresholds."""

    acceptance: float = 1.5
    termination: float = 2.0
    non_constancy: float = 2.0
    max_alpha: int = 5
    max_beta: int = 2
    max_iterations: int = 8
    name: str = "refining"

    def _evaluate(self, x: np.ndarray, y: np.ndarray, num: np.ndarray, den: np.ndarray) -> _Eval:
        """Fit the exponents num/den (K, S*) placed on slices cyclically (column % 4)."""
        value = num / den
        slice_of = np.arange(num.shape[1]) % 4
        alpha = np.where(slice_of == _ALPHA_SLICE, 0.0, value)
        beta = np.where(slice_of == _ALPHA_SLICE, value, _FIXED_BETA[slice_of])
        fits = fit_single_terms(x, y, alpha, beta, nonnegative_constant=False)
        degenerate = (alpha == 0) & (beta == 0)
        return _Eval(
            np.where(degenerate, np.inf, fits.rss),
            np.where(degenerate, np.inf, fits.smape),
            fits.c0,
            fits.c1,
        )

    def _integer_start(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, _Eval]:
        """Best integer exponent per slice (K, 4) and its fit."""
        k = len(y)
        candidates = np.arange(0, self.max_alpha + 1)
        best_val = np.zeros((k, 4))
        best_rss = np.full((k, 4), np.inf)
        for c in candidates:
            value = np.full((k, 4), float(c))
            if c > self.max_beta:
                value[:, _ALPHA_SLICE] = np.nan  # beta only goes to max_beta
            ev = self._evaluate(x, y, np.nan_to_num(value, nan=0.0), np.ones((k, 4)))
            rss = np.where(np.isnan(value), np.inf, ev.rss)
            better = rss < best_rss
            best_val = np.where(better, value, best_val)
            best_rss = np.where(better, rss, best_rss)
        return best_val, self._evaluate(x, y, best_val, np.ones((k, 4)))

    def fit(self, x: np.ndarray, y: np.ndarray, noise: np.ndarray | None = None) -> list[Fitted]:
        """Model every row of y (K, P) measured at x (P,); ``noise`` (K,) is not used here."""
        k = len(y)
        start, ev = self._integer_start(x, y)
        best_n, best_d = start.astype(np.int64), np.ones((k, 4), dtype=np.int64)
        upper = np.array([self.max_alpha + 1] * 3 + [self.max_beta + 1])
        lo_n, lo_d = np.maximum(best_n - 1, 0), np.ones_like(best_n)
        hi_n, hi_d = np.minimum(best_n + 1, upper), np.ones_like(best_n)
        best_rss, best_smape = ev.rss, ev.smape
        best_c0, best_c1 = ev.c0, ev.c1
        acc = np.argmin(best_smape, axis=1)
        rows = np.arange(k)
        acc_n, acc_d, acc_s = best_n[rows, acc], best_d[rows, acc], acc
        acc_smape = best_smape[rows, acc]
        acc_c0, acc_c1 = best_c0[rows, acc], best_c1[rows, acc]
        active = np.isfinite(acc_smape)
        for _ in range(self.max_iterations):
            if not active.any():
                break
            ln, ld = lo_n + best_n, lo_d + best_d  # left mediant
            rn, rd = best_n + hi_n, best_d + hi_d  # right mediant
            ev = self._evaluate(x, y, np.concatenate([ln, rn], 1), np.concatenate([ld, rd], 1))
            l_rss, r_rss = ev.rss[:, :4], ev.rss[:, 4:]
            l_rss = np.where(ln * best_d == best_n * ld, np.inf, l_rss)  # mediant equals best
            take_l = (l_rss < best_rss) & (l_rss <= r_rss) & active[:, None]
            take_r = (r_rss < best_rss) & ~take_l & active[:, None]
            shrink = ~take_l & ~take_r & active[:, None]
            old_smape = best_smape
            new_smape = np.where(
                take_l, ev.smape[:, :4], np.where(take_r, ev.smape[:, 4:], best_smape)
            )
            best_rss = np.where(take_l, l_rss, np.where(take_r, r_rss, best_rss))
            best_c0 = np.where(take_l, ev.c0[:, :4], np.where(take_r, ev.c0[:, 4:], best_c0))
            best_c1 = np.where(take_l, ev.c1[:, :4], np.where(take_r, ev.c1[:, 4:], best_c1))
            hi_n, hi_d = (
                np.where(take_l, best_n, np.where(shrink, rn, hi_n)),
                np.where(take_l, best_d, np.where(shrink, rd, hi_d)),
            )
            lo_n, lo_d = (
                np.where(take_r, best_n, np.where(shrink, ln, lo_n)),
                np.where(take_r, best_d, np.where(shrink, ld, lo_d)),
            )
            best_n = np.where(take_l, ln, np.where(take_r, rn, best_n))
            best_d = np.where(take_l, ld, np.where(take_r, rd, best_d))
            best_smape = new_smape
            cand = np.argmin(best_smape, axis=1)
            cand_smape = best_smape[rows, cand]
            accept = active & (acc_smape >= self.acceptance * cand_smape)
            acc_n = np.where(accept, best_n[rows, cand], acc_n)
            acc_d = np.where(accept, best_d[rows, cand], acc_d)
            acc_s = np.where(accept, cand, acc_s)
            acc_smape = np.where(accept, cand_smape, acc_smape)
            acc_c0 = np.where(accept, best_c0[rows, cand], acc_c0)
            acc_c1 = np.where(accept, best_c1[rows, cand], acc_c1)
            with np.errstate(divide="ignore", invalid="ignore"):
                improved = (old_smape / best_smape >= self.termination).any(axis=1)
            active &= improved
        c_value, _, c_smape = fit_constant(y)
        out = []
        for i in range(k):
            if not np.isfinite(acc_smape[i]) or c_smape[i] < self.non_constancy * acc_smape[i]:
                out.append(constant_fit(c_value[i], c_smape[i]))
                continue
            value = Fraction(int(acc_n[i]), int(acc_d[i]))
            s = int(acc_s[i])
            alpha, beta = (
                (Fraction(0), value)
                if s == _ALPHA_SLICE
                else (value, Fraction(int(_FIXED_BETA[s])))
            )
            out.append(
                Fitted(float(acc_c0[i]), ((float(acc_c1[i]), alpha, beta),), float(acc_smape[i]))
            )
        return out
