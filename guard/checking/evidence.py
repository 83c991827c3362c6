"""How strongly repeated measurements support each growth class: the statistics of verdicts.

Each point's value is the mean of its repetitions after those further than ``clip``
repetition-noise units from the point are set aside (``point_values``): as robust to an
outlier repetition as the median, and less noisy.  Every kernel is fitted with each
single-term class ``c + a * x^alpha * log2(x)^beta`` of seed 004's set E (43 classes,
c >= 0, a > 0).  A class's weight is

* a Student-t marginal likelihood of the relative residuals,
  ``-(nu + P) / 2 * log(nu * s^2 + RSS)``: the per-point error ``s`` expected from the
  repetitions (the point value's standard error, a systematic per-size drift in proportion to
  the repetition noise that repetitions cannot average away, and a floor) is trusted as if it
  came from ``nu`` points, so a misfit far beyond it is heavy-tailed evidence, not certainty;
* minus half a log(P) per coefficient (the Occam factor of the term's coefficient);
* plus a prior that prefers simple classes (the default modeler's term cost) and gives the
  constant a fixed share.

A class is judged by a term that grows at least ``visible`` per-point errors over the
measured range: where its best fit grows less (or does not grow), the coefficient is fixed
at that smallest visible size and the constant refitted.  A term too small to see fits flat
data at any exponent, and would otherwise let "n^3 with a tiny coefficient" claim a flat
kernel; dropping such classes instead would make flat-looking data *certainly* constant
even when its growth is just below the threshold, and a candidate run with the same growth
just above it a certain regression.

Comparing two runs (baseline and candidate) adds one more piece of prior knowledge: a
change that keeps the class rarely changes the kernel's cost relative to its fixed
overhead by much, so the pair's log kernel/overhead ratios at the smallest size differ by
about ``coupling`` (log scale) at most.  Without it a baseline whose growth hides under its
overhead could be any class, and no candidate could ever be shown to grow faster.
A single run judged against a declared bound has no such anchor, and one high point value
(a size whose drift or outlier repetitions the noise estimate does not cover) is enough for
a steep class to explain it.  So a bound is failed only when its violation stays at least
``held_out`` likely with any one size left out (``leave_one_out``; see check.py).

The defaults were tuned on seed 0 of benchmarks/regression_gate.py; docs/benchmarks.md
reports them on other seeds and other noise models.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..modeling.fitting import power_log_basis
from ..modeling.noise import repetition_noise
from ..modeling.penalized import term_cost
from ..modeling.single_term import fit_constant, fit_single_terms
from ..modeling.synthetic import CLASSES

__all__ = [
    "ORDERS",
    "ClassEvidence",
    "EvidenceSettings",
    "RunComparison",
    "class_evidence",
    "compare_runs",
    "evidence_from_points",
    "leave_one_out",
    "point_values",
    "probability_outside",
]

Order = tuple[Fraction, Fraction]
ORDERS: tuple[Order, ...] = tuple(sorted(CLASSES))  # ascending; ORDERS[0] is the constant
_ALPHA = np.array([float(a) for a, _ in ORDERS[1:]])
_BETA = np.array([float(b) for _, b in ORDERS[1:]])
_COST = np.array([0.0] + [term_cost(a, b) for a, b in ORDERS[1:]])
_SHARE_CLIP = 8.0
_CLIP_ROUNDS = 4


@dataclass(frozen=True)
class EvidenceSettings:
    """The noise model and priors of the class evidence (see the module docstring)."""

    drift: float = 0.65
    floor: float = 0.01
    clip: float = 4.0
    held_out: float = 0.7
    prior_dof: float = 6.0
    visible: float = 3.0
    simplicity: float = 1.0
    constant_prior: float = 0.2
    coupling: float = 0.3
    assumed_noise: float = 0.05  # per-repetition noise assumed when there are no repetitions


@dataclass(frozen=True)
class ClassEvidence:
    """Log weights of every class in ORDERS for K kernels measured at the points x."""

    x: np.ndarray  # (P,)
    y: np.ndarray  # (K, P) value per point (see point_values)
    noise: np.ndarray  # (K,) relative sd of one repetition; NaN without repetitions
    sigma: np.ndarray  # (K,) relative per-point error the likelihood expects
    log_weight: np.ndarray  # (K, H); -inf for classes that are infeasible or invisible
    rss: np.ndarray  # (K, H) relative residual sum of squares of each class's fit
    c0: np.ndarray  # (K, H) fitted constant of each class
    c1: np.ndarray  # (K, H) fitted coefficient of each class's term
    log_share: np.ndarray  # (K, H) log(term / constant) at the smallest x; NaN for ORDERS[0]
    repetitions: np.ndarray  # (K,) typical number of repetitions behind each point value

    @property
    def probabilities(self) -> np.ndarray:
        """Posterior probability of each class (K, H)."""
        w = self.log_weight - self.log_weight.max(axis=1, keepdims=True)
        p = np.exp(w)
        return p / p.sum(axis=1, keepdims=True)

    def fitted(self, k: int, h: int) -> np.ndarray:
        """Class h's fitted values at x for kernel k."""
        t = power_log_basis(self.x, *_alpha_beta(h))[0]
        return self.c0[k, h] + (self.c1[k, h] * t if h else 0.0)


def _alpha_beta(h: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = ORDERS[h]
    return np.array([float(a)]), np.array([float(b)])


def class_evidence(
    x: np.ndarray,
    y: np.ndarray,
    noise: np.ndarray,
    repetitions: np.ndarray,
    settings: EvidenceSettings | None = None,
) -> ClassEvidence:
    """Class weights for point values y (K, P) at x (P,) with per-repetition noise (K,).

    ``repetitions`` (K,) is the typical number of repetitions behind each point value.
    """
    s = settings or EvidenceSettings()
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    k, p = y.shape
    known = np.isfinite(noise)
    rep_noise = np.where(known, noise, s.assumed_noise)
    reps = np.where(known, np.maximum(repetitions, 1), 1)
    sigma2 = rep_noise**2 / reps + (s.drift * rep_noise) ** 2
    sigma2 = sigma2 + s.floor**2
    fits = fit_single_terms(x, y, _ALPHA, _BETA)
    const, const_rss, _ = fit_constant(y)
    t = power_log_basis(x, _ALPHA, _BETA)  # (H - 1, P)
    order = np.argsort(x)
    lo, hi = order[0], order[-1]
    c0, c1, frss = fits.c0, fits.c1, fits.rss
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        growth = c1 * (t[:, hi] - t[:, lo])[None, :] / y[:, hi : hi + 1]
    invisible = ~(growth >= s.visible * np.sqrt(sigma2)[:, None]) | ~np.isfinite(frss)
    # judge such a class by its smallest visible term: c1 fixed, c0 refitted
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        a_min = (
            s.visible
            * np.sqrt(sigma2)[:, None]
            * y[:, hi : hi + 1]
            / (t[:, hi] - t[:, lo])[None, :]
        )
        w = 1.0 / y**2  # (K, P)
        resid = y[:, None, :] - a_min[:, :, None] * t[None, :, :]
        c0_min = np.maximum((w[:, None, :] * resid).sum(-1) / w.sum(-1)[:, None], 0.0)
        pred = c0_min[:, :, None] + a_min[:, :, None] * t[None, :, :]
        rss_min = (((y[:, None, :] - pred) / y[:, None, :]) ** 2).sum(-1)
    use = invisible & np.isfinite(rss_min) & (a_min > 0)
    c0 = np.where(use, c0_min, c0)
    c1 = np.where(use, a_min, c1)
    frss = np.where(use, rss_min, frss)
    invisible = invisible & ~use
    rss = np.column_stack([const_rss, frss])
    prior = np.exp(-s.simplicity * _COST[1:])
    log_prior = np.log(
        np.concatenate([[s.constant_prior], (1 - s.constant_prior) * prior / prior.sum()])
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = -(s.prior_dof + p) / 2 * np.log(s.prior_dof * sigma2[:, None] + rss)
    ll = ll + log_prior[None, :]
    ll[:, 1:] -= 0.5 * np.log(p)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        share = np.log(c1 * t[:, lo][None, :] / c0)
    ll[:, 1:] = np.where(invisible | ~np.isfinite(frss), -np.inf, ll[:, 1:])
    ll[:, 0] = np.where(np.isfinite(ll[:, 0]), ll[:, 0], -1e300)
    nan = np.full((k, 1), np.nan)
    return ClassEvidence(
        x=x,
        y=y,
        noise=np.asarray(noise, dtype=float),
        sigma=np.sqrt(sigma2),
        log_weight=ll,
        rss=rss,
        c0=np.column_stack([const, c0]),
        c1=np.column_stack([np.zeros(k), c1]),
        log_share=np.column_stack(
            [nan, np.clip(np.nan_to_num(share, nan=_SHARE_CLIP), -_SHARE_CLIP, _SHARE_CLIP)]
        ),
        repetitions=np.asarray(repetitions, dtype=float),
    )


def point_values(values: np.ndarray, noise: np.ndarray, clip: float) -> np.ndarray:
    """Each point's value: the mean of its repetitions within ``clip`` noise of the point.

    values (..., P, R), NaN where a point has fewer repetitions; noise (...,) the pooled
    relative sd of one repetition.  Starting from the median, repetitions further than
    ``clip * noise`` (relative) from the current value are set aside and the rest averaged,
    a few times over.  The clip, with a scale pooled over all points, sets aside outlier
    repetitions as the median does, and the mean of the rest is less noisy than the median
    (for normal noise its variance is about 2/pi of the median's; less still for noise with
    lighter tails).  Without a usable noise (no repetitions, none that differ, or clip 0)
    the median is kept.
    """
    v = np.asarray(values, dtype=float)
    med = np.nanmedian(v, axis=-1)
    scale = clip * np.asarray(noise, dtype=float)[..., None] * med
    usable = np.isfinite(scale) & (scale > 0)
    m = med
    for _ in range(_CLIP_ROUNDS):
        with np.errstate(invalid="ignore"):
            kept = np.abs(v - m[..., None]) <= scale[..., None]
        count = kept.sum(-1)
        total = np.where(kept, v, 0.0).sum(-1)
        m = np.where(usable & (count > 0), total / np.maximum(count, 1), med)
    return m


def evidence_from_points(
    x: Sequence[float],
    values: Sequence[Sequence[float]],
    settings: EvidenceSettings | None = None,
) -> ClassEvidence:
    """Evidence for one kernel from its points' repetitions (counts may differ per point)."""
    s = settings or EvidenceSettings()
    width = max(len(v) for v in values)
    padded = np.full((len(values), width), np.nan)
    for i, v in enumerate(values):
        padded[i, : len(v)] = v
    pooled = repetition_noise(values)
    noise = np.nan if pooled is None else pooled[0]
    y = point_values(padded, np.array(noise), s.clip)
    reps = float(np.median([len(v) for v in values]))
    return class_evidence(
        np.asarray(x, dtype=float), y[None, :], np.array([noise]), np.array([reps]), s
    )


def leave_one_out(
    evidence: ClassEvidence, settings: EvidenceSettings | None = None
) -> list[ClassEvidence]:
    """The same kernels' evidence with each point left out in turn (P entries, in x order).

    Point values and the repetition noise stay those of the whole run; only the fit loses
    the point.  A bound is failed only when its violation does not hinge on one size.
    """
    out = []
    for i in np.argsort(evidence.x, kind="stable"):
        keep = np.arange(len(evidence.x)) != i
        out.append(
            class_evidence(
                evidence.x[keep],
                evidence.y[:, keep],
                evidence.noise,
                evidence.repetitions,
                settings,
            )
        )
    return out


def probability_outside(evidence: ClassEvidence, admitted: np.ndarray) -> np.ndarray:
    """Posterior probability (K,) that the class is not one of the admitted (H,) classes."""
    return evidence.probabilities[:, ~np.asarray(admitted, dtype=bool)].sum(axis=1)


@dataclass(frozen=True)
class RunComparison:
    """P(candidate's class above / below the baseline's) and the likeliest pair, (K,) each."""

    regression: np.ndarray
    improvement: np.ndarray
    base_class: np.ndarray  # index into ORDERS
    cand_class: np.ndarray


def compare_runs(
    base: ClassEvidence, cand: ClassEvidence, settings: EvidenceSettings | None = None
) -> RunComparison:
    """Joint posterior over (baseline class, candidate class) pairs, kernels paired by row."""
    s = settings or EvidenceSettings()
    joint = base.log_weight[:, :, None] + cand.log_weight[:, None, :]  # (K, Hb, Hc)
    gap = cand.log_share[:, None, :] - base.log_share[:, :, None]
    joint = joint - np.where(np.isnan(gap), 0.0, gap**2 / (2 * s.coupling**2))
    flat = joint.reshape(len(joint), -1)
    joint = joint - flat.max(axis=1)[:, None, None]
    w = np.exp(joint)
    h = len(ORDERS)
    above = np.arange(h)[None, :] > np.arange(h)[:, None]  # candidate index > baseline index
    total = w.sum(axis=(1, 2))
    best = flat.argmax(axis=1)
    return RunComparison(
        regression=(w * above).sum(axis=(1, 2)) / total,
        improvement=(w * above.T).sum(axis=(1, 2)) / total,
        base_class=best // h,
        cand_class=best % h,
    )
