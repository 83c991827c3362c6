"""What a person reads of the evidence: class probabilities and prediction intervals.

The class probabilities are the evidence's posterior (modeling/evidence.py) merged by
class.  The prediction interval at a point is the posterior's mixture of log-normal
predictive distributions: each hypothesis contributes its own extrapolation (with its
weighted least-squares standard error and the per-point error) by its weight, so a model
that is unsure between n and n^1.5 gets a wide interval at 16x the largest size.

Without repetitions the per-point error is not measured, and three or four single values
leave almost nothing of the residual to estimate it from: weighing the hypotheses with
the best fit's residual as the error makes the near-exact fits of any class look certain
(stated 90% intervals covered 57-86% of seed 004's functions at 3 sizes).  There the error
is integrated out instead (``_unknown_noise``): a log-uniform prior over 2-20% per point,
each hypothesis weighed by its prior and ``sigma^-(P - m) exp(-rss / 2 sigma^2)`` at every
grid value, its prediction spread by that sigma -- a Student-t-like mixture that is wide
exactly where the values cannot say how noisy they are.  The prior starts at 2%, not lower:
three values that happen to line up would otherwise pull the error down to a fraction of a
percent (at +-10% noise such intervals covered 80.5% of seed 004's functions, 88.6-89.3%
from 2%), and a single measured time rarely carries less.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from .evidence import CLASSES, SPACE, Evidence
from .fitting import _inverse, power_log_basis
from .result import CONSTANT_ORDER, Fitted

__all__ = [
    "ClassProbability",
    "Confidence",
    "Prediction",
    "confidences",
    "lead_of",
    "predictions",
]

_MIN_REPORTED = 0.01
_Order = tuple[Fraction, Fraction]


@dataclass(frozen=True)
class ClassProbability:
    """Posterior probability of one lead-order class ``x^alpha * log2^beta(x)``."""

    order: _Order
    probability: float
    index: int = -1  # into modeling.evidence.CLASSES, where the class is one of them


@dataclass(frozen=True)
class Confidence:
    """The model's own class probability and every class at or above 1%, most likely first."""

    probability: float
    classes: tuple[ClassProbability, ...]


@dataclass(frozen=True)
class Prediction:
    """The model's value at ``at`` and a central interval of the posterior at ``level``."""

    at: float
    value: float
    low: float
    high: float
    level: float


def lead_of(fit: Fitted) -> _Order:
    """Highest (alpha, beta) among a fit's growing terms; (0, 0) for a constant."""
    growing = [(a, b) for c, a, b in fit.terms if c > 0 and (a, b) > CONSTANT_ORDER]
    return max(growing, default=CONSTANT_ORDER)


def confidences(ev: Evidence, own: Sequence[_Order]) -> list[Confidence]:
    """Each kernel's probability of its own class, and the classes of 1% or more."""
    probs = np.round(ev.class_probabilities, 4)
    index = {(float(a), float(b)): i for i, (a, b) in enumerate(CLASSES)}  # floats hash fast
    own_i = np.array([index.get((float(a), float(b)), -1) for a, b in own], dtype=int)
    shown = (probs >= _MIN_REPORTED) | (np.arange(len(CLASSES))[None, :] == own_i[:, None])
    rows = probs.tolist()
    out = []
    for k, i in enumerate(own_i):
        listed = sorted(np.flatnonzero(shown[k]).tolist(), key=lambda j: (-rows[k][j], j))
        classes = tuple(_class_probability(j, rows[k][j]) for j in listed)
        out.append(Confidence(rows[k][i] if i >= 0 else 0.0, classes))
    return out


def _class_probability(j: int, p: float) -> ClassProbability:
    return ClassProbability(CLASSES[j], p, j)


def predictions(ev: Evidence, value: np.ndarray, at: float, level: float) -> list[Prediction]:
    """Mixture of every hypothesis's log-normal prediction at ``at`` (value: the models').

    The interval is widened to hold the model's own value where that lies outside: the
    class shown can be slower than the posterior's bulk (a flat model of values that
    rise ×1.4 read 1.09 ms at n=1e6 beside an interval of 1.13 ms to 209 s), and a value
    outside its own interval -- or a change outside "the runs' intervals allow" -- reads
    as a contradiction.  (Several parameters do the same: point_prediction.py.)"""
    mu, sd, spread, m = _hypothesis_predictions(ev, at)
    tail = (1 - level) / 2
    if len(ev.x) == 2:
        low, high = _envelope(ev, mu, sd, spread, tail)
    else:
        low, high = _mixture_interval(ev, mu, sd, spread, m, tail)
    with np.errstate(invalid="ignore"):
        low, high = np.fmin(low, value), np.fmax(high, value)
    return [
        Prediction(float(at), float(v), float(lo), float(hi), level)
        for v, lo, hi in zip(value, low, high)
    ]


def _mixture_interval(
    ev: Evidence, mu: np.ndarray, sd: np.ndarray, spread: np.ndarray, m: np.ndarray, tail: float
) -> tuple[np.ndarray, np.ndarray]:
    """Each kernel's central interval of the hypotheses' mixture (three sizes or more)."""
    low, high = np.empty(ev.kernels), np.empty(ev.kernels)
    # identical repetitions (a count: visits, bytes) are a measured error of 0, not none
    unrepeated = ~np.isfinite(ev.noise)
    rows = np.flatnonzero(~unrepeated)
    if len(rows):
        lw = ev.log_weight[rows]
        w = _normalised(mu[rows], sd[rows], np.exp(lw - lw.max(axis=1, keepdims=True)))
        low[rows], high[rows] = _interval(mu[rows], sd[rows], w, tail)
    rows = np.flatnonzero(unrepeated)
    if len(rows):
        low[rows], high[rows] = _interval(
            *_unknown_noise(ev.rows(rows), mu[rows], spread[rows], m), tail
        )
    return low, high


def _interval(
    mu: np.ndarray, sd: np.ndarray, w: np.ndarray, tail: float
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's central interval of its log-normal mixture, leaving ``tail`` on each side."""
    return np.exp(_mixture_quantile(mu, sd, w, tail)), np.exp(
        _mixture_quantile(mu, sd, w, 1 - tail)
    )


_TWO_POINT_SUPPORT = 2.0  # log-likelihood below the best that still counts as fitting
_UNREPEATED_ERROR = 0.05  # a single value's relative error where none can be estimated


def _envelope(
    ev: Evidence, mu: np.ndarray, sd: np.ndarray, spread: np.ndarray, tail: float
) -> tuple[np.ndarray, np.ndarray]:
    """Two sizes: from the lowest to the highest prediction of the hypotheses that fit.

    A constant and one term pass through any two rising points, so which of them holds is
    a matter of the prior alone, and a mixture weighed by the prior covers only the classes
    the prior favours (75% of true values at 2x the top size, seeded).  The interval is the
    union of every fitting hypothesis's own interval: wide, and honest about it.
    """
    z = NormalDist().inv_cdf(1 - tail)
    repeated = np.isfinite(ev.noise)[:, None]
    with np.errstate(invalid="ignore"):
        loglik = np.where(ev.log_weight > -1e299, ev.log_weight - ev.hypothesis_prior, -np.inf)
        fits = loglik >= loglik.max(axis=1, keepdims=True) - _TWO_POINT_SUPPORT
        # single values: every hypothesis within the error a value may carry unmeasured
        within = (ev.log_weight > -1e299) & (ev.rss <= len(ev.x) * _UNREPEATED_ERROR**2)
        fits = np.where(repeated, fits, within)
        sd = np.where(repeated, sd, _UNREPEATED_ERROR * np.sqrt(1.0 + spread))
        ok = fits & np.isfinite(mu) & np.isfinite(sd)
        low = np.where(ok, mu - z * sd, np.inf).min(axis=1)
        high = np.where(ok, mu + z * sd, -np.inf).max(axis=1)
    return np.exp(low), np.exp(high)


_SIGMA_GRID = np.geomspace(0.02, 0.2, 25)  # unrepeated values' error, log-uniform prior


def _unknown_noise(
    ev: Evidence, mu: np.ndarray, spread: np.ndarray, m: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Components (K, H * J) of the prediction with the per-point error integrated over
    ``_SIGMA_GRID``: each hypothesis at each sigma, weighed by its prior and likelihood."""
    admitted = ev.log_weight > -1e299  # what the sizes can support (evidence._admitted)
    sigma = _SIGMA_GRID[None, None, :]
    dof = np.maximum(len(ev.x) - m, 0)[None, :, None]
    with np.errstate(invalid="ignore"):
        log_w = (
            ev.hypothesis_prior[:, :, None]
            - dof * np.log(sigma)
            - ev.rss[:, :, None] / (2 * sigma**2)
        )
    log_w = np.where(admitted[:, :, None] & np.isfinite(log_w), log_w, -np.inf)
    top = log_w.max(axis=(1, 2), keepdims=True)
    w = np.exp(log_w - np.where(np.isfinite(top), top, 0.0))
    sd = sigma * np.sqrt(1.0 + spread[:, :, None])
    k = len(mu)
    mu_j = np.broadcast_to(mu[:, :, None], w.shape).reshape(k, -1)
    sd_j = np.broadcast_to(sd, w.shape).reshape(k, -1)
    return mu_j, sd_j, _normalised(mu_j, sd_j, w.reshape(k, -1))


def _normalised(mu: np.ndarray, sd: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Mixture weights with the components that cannot be evaluated left out, summing to 1."""
    w = np.where(np.isfinite(mu) & np.isfinite(sd) & np.isfinite(w), w, 0.0)
    total = w.sum(axis=1, keepdims=True)
    return w / np.where(total > 0, total, 1.0)


def _hypothesis_predictions(
    ev: Evidence, at: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Log prediction and its log-scale sd for every hypothesis (K, H), the fit's relative
    variance at ``at`` per unit of per-point error variance (K, H), and each hypothesis's
    number of coefficients (H,)."""
    design, point = _designs(ev.x, at)  # (H, P, 3), (H, 3)
    w = 1.0 / (ev.y**2 * ev.variance)
    scale = np.max(np.abs(design), axis=1)  # (H, 3): scaled columns for the conditioning
    scale = np.where(scale > 0, scale, 1.0)
    d, g = design / scale[:, None, :], point / scale
    m = np.array([1 + len(SPACE.terms(h)) for h in range(SPACE.size)])
    mask = np.arange(3)[None, :] < m[:, None]  # (H, 3) columns in use
    normal = np.einsum("kp,hpi,hpj->khij", w, d, d)
    normal = normal + np.where(mask[:, :, None] & mask[:, None, :], 0.0, np.eye(3))[None]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        inv = _inverse(normal)
        lev = np.einsum("hi,khij,hj->kh", g * mask, inv, g * mask)
        value = np.einsum("khm,hm->kh", ev.coef, point)
        p = len(ev.x)
        s2 = ev.sigma[:, None] ** 2
        var_fit = np.maximum(ev.rss / np.maximum(p - m, 1)[None, :], s2)
        spread = lev / value**2
        sd = np.sqrt(var_fit * spread + s2)
        mu = np.log(np.where(value > 0, value, np.nan))
    return mu, sd, spread, m


def _designs(x: np.ndarray, at: float) -> tuple[np.ndarray, np.ndarray]:
    """Every hypothesis's columns at x (H, P, 3) and at ``at`` (H, 3), zero-padded."""
    xs = np.append(np.asarray(x, dtype=float), at)
    out = np.zeros((SPACE.size, len(xs), 3))
    out[:, :, 0] = 1.0
    for h in range(1, SPACE.size):
        for i, (a, b) in enumerate(SPACE.terms(h)):
            out[h, :, 1 + i] = power_log_basis(xs, np.array([float(a)]), np.array([float(b)]))[0]
    return out[:, :-1, :], out[:, -1, :]


def _mixture_quantile(mu: np.ndarray, sd: np.ndarray, w: np.ndarray, q: float) -> np.ndarray:
    """Quantile q of each row's Gaussian mixture (K, M) by bisection (deterministic)."""
    finite = np.isfinite(mu) & np.isfinite(sd) & (w > 0)
    m = np.where(finite, mu, 0.0)
    s = np.where(finite, np.maximum(sd, 1e-12), 1.0)
    lo = np.where(finite, m - 10 * s, np.inf).min(axis=1)
    hi = np.where(finite, m + 10 * s, -np.inf).max(axis=1)
    for _ in range(60):
        mid = (lo + hi) / 2
        cdf = (np.where(finite, w, 0.0) * _normal_cdf((mid[:, None] - m) / s)).sum(axis=1)
        lo = np.where(cdf < q, mid, lo)
        hi = np.where(cdf < q, hi, mid)
    return (lo + hi) / 2


def _normal_cdf(z: np.ndarray) -> np.ndarray:
    """Standard normal CDF (Abramowitz & Stegun 7.1.26, absolute error < 1.5e-7)."""
    u = np.abs(z) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * u)
    poly = 1.061405429
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly = coefficient + t * poly
    poly = t * poly
    erf = 1.0 - poly * np.exp(-u * u)
    return 0.5 * (1.0 + np.sign(z) * erf)
