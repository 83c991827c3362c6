"""A class-free paired test: is the candidate's time a convex function of the baseline's?

Two runs of a kernel whose class did not change differ by the runner's speed ``s``, the
fixed overhead and the kernel's constant factor: with the baseline ``B(n) = o + k f(n)`` the
candidate is ``C(n) = s (o' + c k f(n))``, so ``C = p + q B`` -- an *affine* function of the
baseline's time, whatever ``f`` is and whatever the overheads.  A class that grew makes
``C`` a convex function of ``B`` (``g(n) / f(n)`` grows with ``B``); one that fell, concave.
The test needs neither run's class, so the baseline's own class uncertainty (six sizes, a
large overhead) does not weaken it, and no difference in overheads, speeds or constant
factors -- which bend the *ratio* C / B up or down -- can imitate it.

Both runs' point values carry errors (each point's per-point error from the analysis:
repetitions, drift allowance, its own scatter), so the fits are errors-in-variables: for a
line ``C = p + q B`` the weighted residual of a point is ``(c - p - q b)^2 / (sd_c^2 + q^2
sd_b^2)`` (the latent baseline value profiled out), minimised by reweighted least squares.
The alternative adds ``r (B - mean B)^2``; ``z = sign(r) sqrt(chi2 drop)`` is the one-sided
statistic.  A z that one size carries is no evidence: ``held_out_z`` is the smallest z with
any one size left out.
"""

from __future__ import annotations

import numpy as np

__all__ = ["convexity_z", "held_out_z"]

_ROUNDS = 6  # reweighting rounds: the slope settles within a few


def _weighted_fit(
    design: np.ndarray, c: np.ndarray, sdc: np.ndarray, sdb: np.ndarray, slope
) -> tuple[np.ndarray, np.ndarray]:
    """Errors-in-variables fit of c on the design (K, P, m); its coefficients and chi2 (K,)."""
    w = 1.0 / sdc**2
    coef = np.zeros(design.shape[::2])
    for _ in range(_ROUNDS):
        xw = design * w[..., None]
        a = np.einsum("kpi,kpj->kij", xw, design)
        b = np.einsum("kpi,kp->ki", xw, c)
        ok = np.linalg.det(a) > 0
        safe = np.where(ok[:, None, None], a, np.eye(a.shape[-1]))
        coef = np.where(ok[:, None], np.linalg.solve(safe, b[..., None])[..., 0], 0.0)
        w = 1.0 / (sdc**2 + slope(coef) ** 2 * sdb**2)
    resid = c - np.einsum("kpi,ki->kp", design, coef)
    return coef, (w * resid**2).sum(-1)


def convexity_z(yc: np.ndarray, yb: np.ndarray, sdc: np.ndarray, sdb: np.ndarray) -> np.ndarray:
    """One-sided z (K,) that the candidate's values yc (K, P) are convex in the baseline's yb.

    sdc, sdb (K, P): each point value's error (absolute).  NaN where a fit is degenerate.
    """
    sc = yc.mean(-1, keepdims=True)
    sb = yb.mean(-1, keepdims=True)
    c, b, ec, eb = yc / sc, yb / sb, sdc / sc, sdb / sb
    one = np.ones_like(c)
    bent = (b - b.mean(-1, keepdims=True)) ** 2
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        _, affine = _weighted_fit(np.stack([one, b], -1), c, ec, eb, lambda k: k[:, 1:2])
        centre = b.mean(-1, keepdims=True)
        coef, convex = _weighted_fit(
            np.stack([one, b, bent], -1),
            c,
            ec,
            eb,
            lambda k: k[:, 1:2] + 2 * k[:, 2:3] * (b - centre),
        )
        z = np.sign(coef[:, 2]) * np.sqrt(np.maximum(affine - convex, 0.0))
    return np.where(np.isfinite(z), z, np.nan)


def held_out_z(yc: np.ndarray, yb: np.ndarray, sdc: np.ndarray, sdb: np.ndarray) -> np.ndarray:
    """The smallest convexity z (K,) with any one size left out; NaN where any is NaN."""
    p = yc.shape[-1]
    worst = np.full(len(yc), np.inf)
    for i in range(p):
        keep = np.arange(p) != i
        worst = np.minimum(worst, convexity_z(yc[:, keep], yb[:, keep], sdc[:, keep], sdb[:, keep]))
    return worst
