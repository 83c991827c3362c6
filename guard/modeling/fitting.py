"""Batched weighted least squares: every kernel x every hypothesis in one solve.

A hypothesis is a design matrix over the measurement points (a constant column plus one
column per term).  Kernels that share their points share the design, so fitting K
kernels against H hypotheses is one batched (K, H, m, m) solve, not a Python loop.
Weights are 1/y^2: the fit minimises *relative* squared error, which matches the
multiplicative noise of timings and makes errors comparable across kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["BatchFit", "fit_batch", "smape", "power_log_basis"]


def power_log_basis(x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """Columns x^alpha * log2(x)^beta, shape (H, P) for H exponent pairs."""
    x = np.asarray(x, dtype=float)[None, :]
    a = np.asarray(alpha, dtype=float)[:, None]
    b = np.asarray(beta, dtype=float)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        logx = np.log2(x)
        logs = np.where(b == 0, 1.0, np.abs(logx) ** b * np.sign(logx))
        return x**a * logs


@dataclass(frozen=True)
class BatchFit:
    """Coefficients (K, H, m), fitted values and leave-one-out predictions (K, H, P)."""

    coefficients: np.ndarray
    predicted: np.ndarray
    loo_predicted: np.ndarray
    valid: np.ndarray  # (K, H): the system was solvable and finite


def fit_batch(
    design: np.ndarray, y: np.ndarray, loo: bool = True, variance: np.ndarray | None = None
) -> BatchFit:
    """Fit y (K, P) against designs (H, P, m) or per-kernel designs (K, H, P, m).

    ``loo=False`` skips the leave-one-out predictions (returned as NaN) for speed;
    ``variance`` (K, P) scales each point's relative error (1 everywhere by default).
    """
    y = np.asarray(y, dtype=float)
    if design.ndim == 3:
        design = design[None]
    w = 1.0 / y**2 if variance is None else 1.0 / (y**2 * variance)
    root = np.sqrt(w)
    # Weighted rows, then unit-norm columns: the normal matrix gets a unit diagonal, so
    # relative weights spanning many decades do not make the solve ill-conditioned.
    xw = design * root[:, None, :, None]
    norm = np.sqrt(np.einsum("khpi,khpi->khi", xw, xw))
    norm = np.where(norm > 0, norm, 1.0)
    xw = xw / norm[..., None, :]
    yw = y * root
    xwt = np.swapaxes(xw, -1, -2)
    normal = xwt @ xw
    rhs = (xwt @ yw[:, None, :, None])[..., 0]
    m = normal.shape[-1]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        inverse = _inverse(normal + 1e-13 * np.eye(m))
        coef = (inverse @ rhs[..., None])[..., 0] / norm
        pred = (design @ coef[..., None])[..., 0]
        if loo:
            leverage = np.einsum("khpi,khpi->khp", xw @ inverse, xw)
            loo_pred = y[:, None, :] - (y[:, None, :] - pred) / (1.0 - leverage)
        else:
            loo_pred = np.full_like(pred, np.nan)
    valid = np.isfinite(coef).all(-1) & np.isfinite(pred).all(-1)
    return BatchFit(coef, pred, loo_pred, valid)


def _inverse(a: np.ndarray) -> np.ndarray:
    """Batched inverse; closed-form adjugates for the 1x1 to 3x3 systems PMNF fits produce."""
    m = a.shape[-1]
    if m == 1:
        return 1.0 / a
    if m == 2:
        p, q, r, s = a[..., 0, 0], a[..., 0, 1], a[..., 1, 0], a[..., 1, 1]
        det = p * s - q * r
        return np.stack([np.stack([s, -q], -1), np.stack([-r, p], -1)], -2) / det[..., None, None]
    if m == 3:
        cof = np.empty_like(a)
        for i in range(3):
            for j in range(3):
                r0, r1 = [k for k in range(3) if k != i]
                c0, c1 = [k for k in range(3) if k != j]
                minor = a[..., r0, c0] * a[..., r1, c1] - a[..., r0, c1] * a[..., r1, c0]
                cof[..., j, i] = (-1) ** (i + j) * minor  # transposed: the adjugate
        det = (a[..., 0, :] * cof[..., :, 0]).sum(-1)
        return cof / det[..., None, None]
    return np.linalg.inv(a)


def smape(y: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Symmetric mean absolute percentage error over the last axis, in percent."""
    y = np.broadcast_to(y, predicted.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.abs(y - predicted) / ((np.abs(y) + np.abs(predicted)) / 2.0)
    ratio = np.where(np.isfinite(ratio), ratio, 2.0)
    return 100.0 * ratio.mean(axis=-1)
