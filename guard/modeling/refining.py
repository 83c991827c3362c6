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
class _Walk:
    """Each kernel's search in each slice (K, 4): the best exponent n/d and its bounds."""

    best_n: np.ndarray
    best_d: np.ndarray
    lo_n: np.ndarray
    lo_d: np.ndarray
    hi_n: np.ndarray
    hi_d: np.ndarray
    rss: np.ndarray  # of the best exponent
    smape: np.ndarray
    c0: np.ndarray
    c1: np.ndarray


@dataclass(frozen=True)
class _Accepted:
    """Each kernel's accepted model (K,): exponent n/d in one slice, its SMAPE and fit."""

    n: np.ndarray
    d: np.ndarray
    slice: np.ndarray
    smape: np.ndarray
    c0: np.ndarray
    c1: np.ndarray

    @classmethod
    def best_of(cls, w: _Walk) -> _Accepted:
        """The slice with the lowest SMAPE, per kernel."""
        rows = np.arange(len(w.smape))
        best = np.argmin(w.smape, axis=1)
        return cls(
            w.best_n[rows, best],
            w.best_d[rows, best],
            best,
            w.smape[rows, best],
            w.c0[rows, best],
            w.c1[rows, best],
        )


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
        walk = self._start(x, y)
        accepted = _Accepted.best_of(walk)
        active = np.isfinite(accepted.smape)
        for _ in range(self.max_iterations):
            if not active.any():
                break
            before = walk.smape
            walk = self._step(x, y, walk, active)
            accepted = self._accept(accepted, walk, active)
            with np.errstate(divide="ignore", invalid="ignore"):
                improved = (before / walk.smape >= self.termination).any(axis=1)
            active = active & improved
        return self._fitted(accepted, y)

    def _start(self, x: np.ndarray, y: np.ndarray) -> _Walk:
        """Every slice at its best integer exponent, bounded by the integer neighbours."""
        start, ev = self._integer_start(x, y)
        best_n = start.astype(np.int64)
        upper = np.array([self.max_alpha + 1] * 3 + [self.max_beta + 1])
        return _Walk(
            best_n=best_n,
            best_d=np.ones((len(y), 4), dtype=np.int64),
            lo_n=np.maximum(best_n - 1, 0),
            lo_d=np.ones_like(best_n),
            hi_n=np.minimum(best_n + 1, upper),
            hi_d=np.ones_like(best_n),
            rss=ev.rss,
            smape=ev.smape,
            c0=ev.c0,
            c1=ev.c1,
        )

    def _step(self, x: np.ndarray, y: np.ndarray, w: _Walk, active: np.ndarray) -> _Walk:
        """One Stern-Brocot step of every active slice: a mediant wins, or the bounds close."""
        ln, ld = w.lo_n + w.best_n, w.lo_d + w.best_d  # left mediant
        rn, rd = w.best_n + w.hi_n, w.best_d + w.hi_d  # right mediant
        ev = self._evaluate(x, y, np.concatenate([ln, rn], 1), np.concatenate([ld, rd], 1))
        l_rss, r_rss = ev.rss[:, :4], ev.rss[:, 4:]
        l_rss = np.where(ln * w.best_d == w.best_n * ld, np.inf, l_rss)  # mediant equals best
        take_l = (l_rss < w.rss) & (l_rss <= r_rss) & active[:, None]
        take_r = (r_rss < w.rss) & ~take_l & active[:, None]
        shrink = ~take_l & ~take_r & active[:, None]

        def pick(left: np.ndarray, right: np.ndarray, kept: np.ndarray) -> np.ndarray:
            return np.where(take_l, left, np.where(take_r, right, kept))

        return _Walk(
            best_n=pick(ln, rn, w.best_n),
            best_d=pick(ld, rd, w.best_d),
            lo_n=np.where(take_r, w.best_n, np.where(shrink, ln, w.lo_n)),
            lo_d=np.where(take_r, w.best_d, np.where(shrink, ld, w.lo_d)),
            hi_n=np.where(take_l, w.best_n, np.where(shrink, rn, w.hi_n)),
            hi_d=np.where(take_l, w.best_d, np.where(shrink, rd, w.hi_d)),
            rss=pick(l_rss, r_rss, w.rss),
            smape=pick(ev.smape[:, :4], ev.smape[:, 4:], w.smape),
            c0=pick(ev.c0[:, :4], ev.c0[:, 4:], w.c0),
            c1=pick(ev.c1[:, :4], ev.c1[:, 4:], w.c1),
        )

    def _accept(self, accepted: _Accepted, w: _Walk, active: np.ndarray) -> _Accepted:
        """The best slice replaces the accepted model where it improves SMAPE enough."""
        candidate = _Accepted.best_of(w)
        better = active & (accepted.smape >= self.acceptance * candidate.smape)

        def keep(new: np.ndarray, old: np.ndarray) -> np.ndarray:
            return np.where(better, new, old)

        return _Accepted(
            keep(candidate.n, accepted.n),
            keep(candidate.d, accepted.d),
            keep(candidate.slice, accepted.slice),
            keep(candidate.smape, accepted.smape),
            keep(candidate.c0, accepted.c0),
            keep(candidate.c1, accepted.c1),
        )

    def _fitted(self, accepted: _Accepted, y: np.ndarray) -> list[Fitted]:
        """The accepted models, or the constant where they do not beat it clearly."""
        c_value, _, c_smape = fit_constant(y)
        out = []
        for i in range(len(y)):
            smape = accepted.smape[i]
            if not np.isfinite(smape) or c_smape[i] < self.non_constancy * smape:
                out.append(constant_fit(c_value[i], c_smape[i]))
                continue
            value = Fraction(int(accepted.n[i]), int(accepted.d[i]))
            s = int(accepted.slice[i])
            alpha, beta = (
                (Fraction(0), value)
                if s == _ALPHA_SLICE
                else (value, Fraction(int(_FIXED_BETA[s])))
            )
            term = (float(accepted.c1[i]), alpha, beta)
            out.append(Fitted(float(accepted.c0[i]), (term,), float(smape)))
        return out
