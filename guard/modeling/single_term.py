"""Fitting ``c0 + c1 * x^alpha * log2(x)^beta`` for many kernels and exponent pairs at once."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .fitting import fit_batch, power_log_basis, smape

__all__ = ["SingleTermFits", "fit_single_terms", "fit_constant", "relative_rss"]


@dataclass(frozen=True)
class SingleTermFits:
    """Per kernel (K) and exponent pair (H): coefficients, errors and feasibility."""

    c0: np.ndarray  # (K, H)
    c1: np.ndarray  # (K, H)
    rss: np.ndarray  # (K, H) relative residual sum of squares; inf where infeasible
    smape: np.ndarray  # (K, H)


def relative_rss(y: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Sum over points of ((y - f) / y)^2."""
    return (((y[:, None, :] - predicted) / y[:, None, :]) ** 2).sum(-1)


def fit_single_terms(
    x: np.ndarray,
    y: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    nonnegative_constant: bool = True,
) -> SingleTermFits:
    """Fit every kernel row of y (K, P) against every (alpha, beta) pair (H).

    alpha/beta are (H,) shared by all kernels or (K, H) per kernel (used by refinement).
    A term must grow the value (c1 > 0); with ``nonnegative_constant`` a fit whose
    constant comes out negative is redone through the origin, because a negative
    offset lets a too-steep term mimic a flatter one.
    """
    shared = np.ndim(alpha) == 1
    if shared:
        t = power_log_basis(x, alpha, beta)  # (H, P)
        design2 = np.stack([np.ones_like(t), t], -1)
    else:
        k, h = np.shape(alpha)
        t = power_log_basis(x, np.ravel(alpha), np.ravel(beta)).reshape(k, h, -1)
        design2 = np.stack([np.ones_like(t), t], -1)
    full = fit_batch(design2, y, loo=False)
    c0, c1 = full.coefficients[..., 0], full.coefficients[..., 1]
    pred = full.predicted
    if nonnegative_constant:
        origin = fit_batch(design2[..., 1:], y, loo=False)
        neg = c0 < 0
        c0 = np.where(neg, 0.0, c0)
        c1 = np.where(neg, origin.coefficients[..., 0], c1)
        pred = np.where(neg[..., None], origin.predicted, pred)
    feasible = full.valid & (c1 > 0) & np.isfinite(pred).all(-1)
    rss = np.where(feasible, relative_rss(y, pred), np.inf)
    return SingleTermFits(
        c0=c0,
        c1=c1,
        rss=rss,
        smape=np.where(feasible, smape(y[:, None, :], pred), np.inf),
    )


def fit_constant(y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best constant per kernel under relative weights: (value, relative RSS, SMAPE)."""
    fit = fit_batch(np.ones((1, y.shape[1], 1)), y, loo=False)
    return (
        fit.coefficients[:, 0, 0],
        relative_rss(y, fit.predicted)[:, 0],
        smape(y, fit.predicted[:, 0, :]),
    )


def as_fractions(values: list[Fraction]) -> np.ndarray:
    """Float array of exponents (for numpy)."""
    return np.array([float(v) for v in values], dtype=float)
