"""How sure a model is: a posterior over lead-order classes and a prediction interval.

The reference ensemble is the default modeler's hypothesis space (every single term
``c0 + c1 * x^a * log2^b(x)``, the constant, and the kernel's chosen model).  Each
hypothesis gets the energy the default modeler minimises -- ``P * log(RSS/P + s^2)`` plus
twice its prior cost -- where ``s^2`` adds the noise seen between repetitions to the
modeler's floor: residuals inside the measured noise are no evidence for or against a
class.  Weights are ``exp(-(E - E_min) / (2 T))``; the temperature ``T`` is calibrated
so that stated probabilities match observed frequencies on seeded synthetic data
(benchmarks/confidence_calibration.py, docs/benchmarks.md).

The prediction interval at a point is the ensemble's mixture of log-normal predictive
distributions: each hypothesis contributes its own extrapolation (with its
least-squares standard error and the measurement noise) by its weight, so a model that
is unsure between n and n^1.5 gets a wide interval at 16x the largest size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .fitting import power_log_basis
from .penalized import PenalizedModeler, term_cost
from .result import Fitted, evaluate_fits
from .single_term import (
    SingleTermFits,
    as_fractions,
    fit_constant,
    fit_single_terms,
    relative_rss,
)

__all__ = ["ClassProbability", "Confidence", "Prediction", "assess", "TEMPERATURE"]

TEMPERATURE = 1.25
_MIN_REPORTED = 0.01
_Order = tuple[Fraction, Fraction]


@dataclass(frozen=True)
class ClassProbability:
    """Posterior probability of one lead-order class ``x^alpha * log2^beta(x)``."""

    order: _Order
    probability: float


@dataclass(frozen=True)
class Confidence:
    """The model's own class probability and every class at or above 1%, most likely first."""

    probability: float
    classes: tuple[ClassProbability, ...]


@dataclass(frozen=True)
class Prediction:
    """The model's value at ``at`` and a central interval of the ensemble at ``level``."""

    at: float
    value: float
    low: float
    high: float
    level: float


def lead_of(fit: Fitted) -> _Order:
    """Highest (alpha, beta) among a fit's growing terms; (0, 0) for a constant."""
    growing = [(a, b) for c, a, b in fit.terms if c > 0 and (a, b) > (0, 0)]
    return max(growing, default=(Fraction(0), Fraction(0)))


def assess(
    x: np.ndarray,
    y: np.ndarray,
    fits: Sequence[Fitted],
    sigma: np.ndarray | None = None,
    at: float | None = None,
    level: float = 0.9,
    reference: PenalizedModeler | None = None,
    temperature: float = TEMPERATURE,
    singles: SingleTermFits | None = None,
) -> list[tuple[Confidence, Prediction | None]]:
    """Confidence (and a prediction at ``at``) for each kernel row of y (K, P).

    ``sigma`` (K,) is the relative standard error of each kernel's aggregated values
    (NaN or None when there are no repetitions).  ``singles`` are the reference's own
    single-term fits of y when the caller already has them.
    """
    ref = reference or PenalizedModeler()
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    k, p = y.shape
    s2 = np.full(k, ref.floor**2)
    if sigma is not None:
        s2 = s2 + np.nan_to_num(np.asarray(sigma, dtype=float), nan=0.0) ** 2
    ens = _Ensemble.build(x, y, fits, ref, s2, singles)
    energy = ens.energy
    weights = np.exp(-(energy - energy.min(axis=1, keepdims=True)) / (2 * temperature))
    weights = np.where(np.isfinite(energy), weights, 0.0)
    weights /= weights.sum(axis=1, keepdims=True)
    predictions = _predict(ens, weights, at, level, s2) if at is not None else [None] * k
    confidences = _confidences(ens.orders[:-1], weights, [lead_of(f) for f in fits])
    return list(zip(confidences, predictions))


@dataclass(frozen=True)
class _Ensemble:
    """Hypotheses (H singles, the constant, each kernel's own model) for K kernels."""

    orders: list[_Order]  # (H + 2,), the last entry is a placeholder for "own model"
    energy: np.ndarray  # (K, H + 2)
    x: np.ndarray
    y: np.ndarray
    c0: np.ndarray  # (K, H)
    c1: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    constant: np.ndarray  # (K,)
    fits: Sequence[Fitted]
    own_rss: np.ndarray  # (K,)
    own_params: np.ndarray  # (K,)

    @classmethod
    def build(
        cls,
        x: np.ndarray,
        y: np.ndarray,
        fits: Sequence[Fitted],
        ref: PenalizedModeler,
        s2: np.ndarray,
        singles: SingleTermFits | None = None,
    ) -> _Ensemble:
        p = len(x)
        terms = list(ref.terms)
        alpha = as_fractions([a for a, _ in terms])
        beta = as_fractions([b for _, b in terms])
        cost = np.array([term_cost(a, b) for a, b in terms])
        if singles is None:
            singles = fit_single_terms(x, y, alpha, beta)
        c_value, c_rss, _ = fit_constant(y)
        known = set(terms)
        duplicate = np.array([_is_single(f, known) for f in fits])
        own_rss, own_energy_cost, own_params = _own(x, y, fits, ref, duplicate)
        floor = s2[:, None]

        def score(rss: np.ndarray) -> np.ndarray:
            with np.errstate(divide="ignore"):
                return p * np.log(rss / p + floor)

        single_e = score(singles.rss) + ref.prior_weight * cost
        const_e = score(c_rss[:, None])[:, 0] - p * np.log(ref.constant_ratio)
        own_e = score(own_rss[:, None])[:, 0] + own_energy_cost
        # A single-term own model is already in the ensemble: do not count it twice.
        own_e = np.where(duplicate, np.inf, own_e)
        energy = np.column_stack([single_e, const_e, own_e])
        orders = list(terms) + [(Fraction(0), Fraction(0)), (Fraction(-1), Fraction(0))]
        return cls(
            orders=orders,
            energy=energy,
            x=x,
            y=y,
            c0=singles.c0,
            c1=singles.c1,
            alpha=alpha,
            beta=beta,
            constant=c_value,
            fits=fits,
            own_rss=own_rss,
            own_params=own_params,
        )


def _is_single(fit: Fitted, known: set[tuple[Fraction, Fraction]]) -> bool:
    return not fit.terms or (len(fit.terms) == 1 and tuple(fit.terms[0][1:]) in known)


def _own(
    x: np.ndarray,
    y: np.ndarray,
    fits: Sequence[Fitted],
    ref: PenalizedModeler,
    duplicate: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Relative RSS, prior cost and parameter count of each kernel's own model.

    Own models that duplicate an ensemble member are not scored (their energy is inf).
    """
    k = len(fits)
    rss, cost = np.full(k, np.inf), np.zeros(k)
    params = np.array([1 + len(f.terms) for f in fits], dtype=float)
    rows = np.flatnonzero(~duplicate)
    if len(rows):
        pred = evaluate_fits([fits[i] for i in rows], x)
        with np.errstate(invalid="ignore"):
            r = relative_rss(y[rows], pred[:, None, :])[:, 0]
        rss[rows] = np.where(np.isfinite(r), r, np.inf)
        for i in rows:
            f = fits[i]
            cost[i] = ref.prior_weight * sum(term_cost(a, b) for _, a, b in f.terms)
            cost[i] += ref.pair_penalty if len(f.terms) > 1 else 0.0
    return rss, cost, params


def _confidences(shared: list[_Order], weights: np.ndarray, own: list[_Order]) -> list[Confidence]:
    """Merge hypothesis weights (K, H + 2) by lead class; the last column is the own model."""
    ids = {order: i for i, order in enumerate(dict.fromkeys(shared))}
    base = np.array([ids[o] for o in shared])
    # Fractions hash slowly; equal small-denominator exponents have equal floats.
    by_float = {(float(a), float(b)): i for (a, b), i in ids.items()}
    own_ids = np.empty(len(own), dtype=int)
    for i, o in enumerate(own):
        key = (float(o[0]), float(o[1]))
        if key not in by_float:
            by_float[key] = ids[o] = len(ids)
        own_ids[i] = by_float[key]
    classes = list(ids)
    rank = np.array([sorted(classes).index(o) for o in classes])
    k, c = len(own), len(classes)
    cols = np.concatenate([np.broadcast_to(base, (k, len(base))), own_ids[:, None]], axis=1)
    flat = (np.arange(k)[:, None] * c + cols).ravel()
    merged = np.bincount(flat, weights=weights.ravel(), minlength=k * c).reshape(k, c)
    keep = (merged >= _MIN_REPORTED) | (np.arange(c)[None, :] == own_ids[:, None])
    rows, cols_kept = np.nonzero(keep)
    probs = merged[rows, cols_kept]
    order = np.lexsort((rank[cols_kept], -probs, rows))
    rows, cols_kept, probs = rows[order], cols_kept[order], np.round(probs[order], 4)
    bounds = np.searchsorted(rows, np.arange(k + 1))
    listed = [ClassProbability(classes[j], float(p)) for j, p in zip(cols_kept, probs)]
    own_p = np.round(merged[np.arange(k), own_ids], 4)
    out = [Confidence(float(own_p[i]), tuple(listed[bounds[i] : bounds[i + 1]])) for i in range(k)]
    return out


def _predict(
    ens: _Ensemble, weights: np.ndarray, at: float, level: float, s2: np.ndarray
) -> list[Prediction]:
    """Mixture of log-normal predictions of every hypothesis at ``at``."""
    mu, sd = _single_predictions(ens, at, s2)
    const_mu = np.log(np.maximum(ens.constant, 1e-300))
    const_sd = np.sqrt(s2 * (1 + 1 / len(ens.x)))
    own_value = evaluate_fits(ens.fits, np.array([at]))[:, 0]
    own_ok = own_value > 0
    own_mu = np.log(np.where(own_ok, own_value, 1.0))
    dof = np.maximum(len(ens.x) - ens.own_params, 1.0)
    own_sd = np.sqrt(np.maximum(ens.own_rss / dof, s2) + s2)
    mus = np.column_stack([mu, const_mu, own_mu])
    sds = np.column_stack([sd, const_sd, own_sd])
    w = weights.copy()
    w[:, -1] = np.where(own_ok, w[:, -1], 0.0)
    w = np.where(np.isfinite(mus) & np.isfinite(sds), w, 0.0)
    w /= w.sum(axis=1, keepdims=True)
    tail = (1 - level) / 2
    low = _mixture_quantile(mus, sds, w, tail)
    high = _mixture_quantile(mus, sds, w, 1 - tail)
    return [
        Prediction(float(at), float(v), float(lo), float(hi), level)
        for v, lo, hi in zip(own_value, np.exp(low), np.exp(high))
    ]


def _single_predictions(ens: _Ensemble, at: float, s2: np.ndarray) -> tuple[np.ndarray, ...]:
    """Log prediction and its log-scale standard deviation for every single term (K, H)."""
    t = power_log_basis(ens.x, ens.alpha, ens.beta)  # (H, P)
    t_at = power_log_basis(np.array([at]), ens.alpha, ens.beta)[:, 0]  # (H,)
    scale = np.max(np.abs(t), axis=1)
    scale = np.where(scale > 0, scale, 1.0)
    ts, ts_at = t / scale[:, None], t_at / scale
    w = 1.0 / ens.y**2  # relative weights
    s00 = w.sum(axis=1, keepdims=True)
    s01 = w @ ts.T
    s11 = w @ (ts * ts).T
    det = s00 * s11 - s01 * s01
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        lev = (s11 - 2 * s01 * ts_at + s00 * ts_at**2) / det  # g' M^-1 g with g = (1, t*)
        value = ens.c0 + ens.c1 * t_at
        p = len(ens.x)
        resid = relative_rss(ens.y, ens.c0[..., None] + ens.c1[..., None] * t[None])
        var_fit = np.maximum(resid / max(p - 2, 1), s2[:, None])
        sd = np.sqrt(var_fit * lev / value**2 + s2[:, None])
        mu = np.log(np.where(value > 0, value, np.nan))
    return mu, sd


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
