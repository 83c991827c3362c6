"""Fitting ``c0 + c1 * x^alpha * log2(x)^beta`` for many kernels and exponent pairs at once."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
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
    feasible: np.ndarray  # (K, H)
    y: np.ndarray = field(repr=False)  # (K, P) the values fitted
    t: np.ndarray = field(repr=False)  # (H, P) or (K, H, P) the terms at x

    @functools.cached_property
    def smape(self) -> np.ndarray:
        """(K, H) in percent; inf where infeasible.  Computed when first read: the evidence
        and the bound test fit thousands of rows and read only the RSS."""
        with np.errstate(invalid="ignore", over="ignore"):
            pred = self.c0[..., None] + self.c1[..., None] * self.t
        return np.where(self.feasible, smape(self.y[:, None, :], pred), np.inf)


def relative_rss(
    y: np.ndarray, predicted: np.ndarray, variance: np.ndarray | None = None
) -> np.ndarray:
    """Sum over points of ((y - f) / y)^2, each point divided by its variance factor (K, P)."""
    r2 = ((y[:, None, :] - predicted) / y[:, None, :]) ** 2
    if variance is not None:
        r2 = r2 / variance[:, None, :]
    return r2.sum(-1)


def fit_single_terms(
    x: np.ndarray,
    y: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    nonnegative_constant: bool = True,
    variance: np.ndarray | None = None,
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
    else:
        k, h = np.shape(alpha)
        t = power_log_basis(x, np.ravel(alpha), np.ravel(beta)).reshape(k, h, -1)
    c0, c1, c1_origin, valid = _weighted_lines(t, y, variance)
    if nonnegative_constant:
        neg = c0 < 0
        c0 = np.where(neg, 0.0, c0)
        c1 = np.where(neg, c1_origin, c1)
    with np.errstate(invalid="ignore", over="ignore"):
        pred = c0[..., None] + c1[..., None] * t
    feasible = valid & (c1 > 0) & np.isfinite(pred).all(-1)
    rss = np.where(feasible, relative_rss(y, pred, variance), np.inf)
    return SingleTermFits(c0=c0, c1=c1, rss=rss, feasible=feasible, y=y, t=t)


def _weighted_lines(
    t: np.ndarray, y: np.ndarray, variance: np.ndarray | None = None
) -> tuple[np.ndarray, ...]:
    """Closed-form relative-weighted fits of y ~ c0 + c1*t and y ~ c1*t for all (K, H).

    t is (H, P) shared by all kernels or (K, H, P).  The five weighted sums of the 2x2
    normal equations are matrix products, so this is BLAS work instead of K*H solves.
    Columns and values are scaled to at most 1 first, for the conditioning.
    """
    t_max = np.max(np.abs(t), axis=-1, keepdims=True)
    t_max = np.where(t_max > 0, t_max, 1.0)
    ts = t / t_max
    y_max = np.max(y, axis=-1, keepdims=True)
    ys = y / y_max
    w = 1.0 / ys**2 if variance is None else 1.0 / (ys**2 * variance)
    wy = w * ys
    if ts.ndim == 2:
        s1, s2, sty = w @ ts.T, w @ (ts * ts).T, wy @ ts.T
    else:
        s1 = np.einsum("kp,khp->kh", w, ts)
        s2 = np.einsum("kp,khp->kh", w, ts * ts)
        sty = np.einsum("kp,khp->kh", wy, ts)
    s0, sy = w.sum(-1, keepdims=True), wy.sum(-1, keepdims=True)
    det = s0 * s2 - s1 * s1
    valid = det > 1e-12 * s0 * s2
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = y_max / t_max[..., 0]  # (K, H) for shared and per-kernel terms alike
        c1 = (s0 * sty - s1 * sy) / det * scale
        c0 = (s2 * sy - s1 * sty) / det * y_max
        c1_origin = sty / s2 * scale
    return c0, c1, c1_origin, valid


def fit_constant(
    y: np.ndarray, variance: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best constant per kernel under relative weights: (value, relative RSS, SMAPE)."""
    fit = fit_batch(np.ones((1, y.shape[1], 1)), y, loo=False, variance=variance)
    return (
        fit.coefficients[:, 0, 0],
        relative_rss(y, fit.predicted, variance)[:, 0],
        smape(y, fit.predicted[:, 0, :]),
    )


def as_fractions(values: list[Fraction]) -> np.ndarray:
    """Float array of exponents (for numpy)."""
    return np.array([float(v) for v in values], dtype=float)
