"""How strongly measurements support each growth class: the one engine behind models and verdicts.

Every kernel is fitted with every hypothesis of one space (``SPACE``): the constant, each
single term ``c0 + c1 * x^alpha * log2(x)^beta`` of the default term set (seed 004's set E
and the finer powers of seed 000), and pairs of integer terms (``c0 + a*n + b*n^2``),
c0 >= 0 and every coefficient > 0.  A hypothesis's class is its highest term.  Its weight is

* a Student-t marginal likelihood of the relative residuals,
  ``-(nu + P) / 2 * log(nu * s^2 + RSS + P * fit_floor^2)``: the per-point error ``s``
  expected from the repetitions (the point value's standard error, a per-size drift in
  proportion to the repetition noise that repetitions cannot average away, and a floor) is
  trusted as if it came from ``nu`` points, so a misfit far beyond it is heavy-tailed
  evidence, not certainty; where even the best hypothesis misses the point values by more
  than ``misfit_ratio`` times what ``s`` allows (a shape no class has: ``log2(p) - 4`` needs
  a negative constant), ``nu`` shrinks in proportion, so the least bad class is not called
  certain.  Without repetitions nothing is known of ``s`` (``nu = 0``): the
  profile likelihood of seed 000's modelers, with a floor for the model's own form;
* minus half a log(P) per coefficient (the Occam factor of a coefficient);
* plus a prior that prefers simple classes (the term cost of seed 000's "simpler fraction"
  preference), gives the constant a fixed share and charges pairs extra.

A single-term class is judged by a term that grows at least ``visible`` per-point errors
over the measured range: where its best fit grows less (or does not grow), the coefficient
is fixed at that smallest visible size and the constant refitted.  A term too small to see
fits flat data at any exponent and would otherwise let "n^3 with a tiny coefficient" claim a
flat kernel; dropping such classes instead would make flat-looking data *certainly*
constant even when its growth is just below the threshold.  A pair whose top term is
invisible is no hypothesis at all (its class would be decided by noise).

Each point's value is the mean of its repetitions after those further than ``clip``
repetition-noise units from the point are set aside (``point_values``): as robust to an
outlier repetition as the median, and less noisy.  The same values feed the model a
person reads, the class probabilities and every verdict.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .fitting import fit_batch, power_log_basis
from .growth import Beyond, beyond_polynomial
from .penalized import default_terms, integer_terms, term_cost
from .single_term import SingleTermFits, fit_constant, fit_single_terms, relative_rss

__all__ = [
    "SPACE",
    "Evidence",
    "EvidenceSettings",
    "HypothesisSpace",
    "FEW_POINTS",
    "FEW_POINTS_QUANTILE",
    "Order",
    "class_evidence",
    "drift_excess",
    "plain_fits",
    "single_basis",
    "pooled_drift",
    "pooled_noise",
    "point_variance",
    "shown_classes",
    "evidence_from_points",
    "evidence_from_values",
    "pad_values",
    "point_values",
    "repetition_stats",
]

Order = tuple[Fraction, Fraction]
_ZERO: Order = (Fraction(0), Fraction(0))
_SHARE_CLIP = 8.0
_SD_CLIP = 4.0  # repetitions further than this many robust sds are outliers for the sd
_SPREAD_TOLERANCE = 2.0  # a point's own spread beyond this many pooled sds is not sampling
_CLIP_ROUNDS = 4
_SELECTION_DOF = 3.6  # residual degrees of freedom the choice of the best fit uses up


@dataclass(frozen=True)
class EvidenceSettings:
    """The noise model and priors of the evidence (see the module docstring)."""

    drift: float | None = None  # per-size drift sd / repetition sd; None: estimated
    drift_prior: float = 0.65  # the drift ratio assumed before any kernel is seen
    drift_weight: float = 5.0  # how many kernels' worth that assumption is
    floor: float = 0.002
    fit_floor: float = 3e-3
    clip: float = 4.0
    held_out: float = 0.6
    held_out_level: float = 0.25  # the bound test's p-value, with any one size left out
    prior_dof: float = 30.0
    visible: float = 3.0
    simplicity: float = 0.25
    constant_prior: float = 0.2
    pair_cost: float = 7.0
    free_simplicity: float = 1.0  # the prior's weight without repetitions
    constant_ratio: float = 10.0  # ... and how much a growing term must beat the constant
    coupling: float = 0.3
    kept_share: float = 0.999
    misfit_ratio: float = 30.0  # a best fit this many times its expected misfit
    # (RSS over P - 2 per-point errors squared) trusts the repetitions' error less
    tie: float = 0.0  # log-weight gap within which the simpler class is the one shown
    violation_prior: float = 0.4  # P(a kernel exceeds its declared bound) before measuring
    regression_prior: float = 0.4  # P(a change made a kernel's class grow) before measuring


@dataclass(frozen=True)
class HypothesisSpace:
    """The constant, the single terms and the integer pairs, with their classes and costs."""

    singles: tuple[Order, ...]
    pairs: tuple[tuple[Order, Order], ...]

    @property
    def size(self) -> int:
        return 1 + len(self.singles) + len(self.pairs)

    # Cached: sorting ~60 Fractions costs ~1 ms, and a check's sentences read these per kernel.
    @functools.cached_property
    def classes(self) -> tuple[Order, ...]:
        """Every class a hypothesis can have, ascending; classes[0] is the constant."""
        return tuple(sorted({_ZERO, *self.singles}))

    @functools.cached_property
    def lead(self) -> np.ndarray:
        """Class index (into ``classes``) of every hypothesis (H,), read-only."""
        index = {c: i for i, c in enumerate(self.classes)}
        tops = [_ZERO, *self.singles, *(hi for _, hi in self.pairs)]
        out = np.array([index[o] for o in tops])
        out.setflags(write=False)
        return out

    def cost(self, pair_cost: float) -> np.ndarray:
        """Prior cost of every hypothesis (H,); the constant's is 0."""
        return _cost(self, pair_cost)

    def terms(self, h: int) -> tuple[Order, ...]:
        """The orders of hypothesis h's growing terms, lowest first."""
        if h == 0:
            return ()
        if h <= len(self.singles):
            return (self.singles[h - 1],)
        return self.pairs[h - 1 - len(self.singles)]


@functools.lru_cache(maxsize=8)
def _cost(space: HypothesisSpace, pair_cost: float) -> np.ndarray:
    single = [term_cost(a, b) for a, b in space.singles]
    pair = [term_cost(*lo) + term_cost(*hi) + pair_cost for lo, hi in space.pairs]
    out = np.array([0.0, *single, *pair])
    out.flags.writeable = False
    return out


def _space() -> HypothesisSpace:
    singles = tuple(sorted(set(default_terms())))
    pairs = tuple(itertools.combinations(sorted(integer_terms()), 2))
    return HypothesisSpace(singles, pairs)


SPACE = _space()
CLASSES = SPACE.classes
_LEAD = SPACE.lead
_N_SINGLE = len(SPACE.singles)
_S_ALPHA = np.array([float(a) for a, _ in SPACE.singles])
_S_BETA = np.array([float(b) for _, b in SPACE.singles])
_P_LO = np.array([SPACE.singles.index(lo) for lo, _ in SPACE.pairs])
_P_HI = np.array([SPACE.singles.index(hi) for _, hi in SPACE.pairs])
# the hypothesis that is each class: the constant, then the single term of that order
_TOP_ALPHA = np.array([float(CLASSES[c][0]) for c in _LEAD])  # (H,) each hypothesis's class
FEW_POINTS = 5  # lines shorter than this get the classes up to _FEW_POINTS_MAX_ALPHA only
_FEW_POINTS_MAX_ALPHA = 3.0
FEW_POINTS_QUANTILE = 0.2  # their shown class: the posterior's 20% quantile in growth order
_CLASS_BASE = np.array([0] + [1 + SPACE.singles.index(c) for c in CLASSES[1:]])
_CLASS_COST = np.array([0.0] + [term_cost(a, b) for a, b in CLASSES[1:]])


@dataclass(frozen=True)
class Evidence:
    """Log weights of every hypothesis of SPACE for K kernels measured at the points x."""

    x: np.ndarray  # (P,)
    y: np.ndarray  # (K, P) value per point (see point_values)
    noise: np.ndarray  # (K,) relative sd of one repetition; NaN without repetitions
    repetitions: np.ndarray  # (K,) typical number of repetitions behind each point value
    sigma: np.ndarray  # (K,) relative per-point error the likelihood expects
    log_weight: np.ndarray  # (K, H); -inf for hypotheses that are infeasible or invisible
    rss: np.ndarray  # (K, H) relative residual sum of squares
    coef: np.ndarray  # (K, H, 3) constant, then the coefficients of terms(h), lowest first
    log_share: np.ndarray  # (K, H) log(terms / constant) at the smallest x; NaN for h = 0
    growth: np.ndarray  # (K, H) the terms' growth over the range, in per-point errors
    settings: EvidenceSettings
    drift: np.ndarray  # (K,) per-size drift variance the likelihood allowed for
    hypothesis_prior: np.ndarray  # (K, H) log prior of every hypothesis (unnormalised)
    variance: np.ndarray  # (K, P) each point's error relative to the others' (>= 1)

    @property
    def kernels(self) -> int:
        return len(self.y)

    @functools.cached_property
    def class_log_weight(self) -> np.ndarray:
        """Log weight of every class (K, C): its hypotheses' weights added."""
        top = self.log_weight.max(axis=1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        w = np.exp(self.log_weight - top)
        merged = np.zeros((self.kernels, len(CLASSES)))
        np.add.at(merged.T, _LEAD, w.T)
        with np.errstate(divide="ignore"):
            return np.log(merged) + top

    @functools.cached_property
    def class_probabilities(self) -> np.ndarray:
        """Posterior probability of every class (K, C)."""
        return _normalise(self.class_log_weight)

    @functools.cached_property
    def class_prior(self) -> np.ndarray:
        """Prior probability of every class (K, C), before any measurement."""
        w = np.exp(self.hypothesis_prior - self.hypothesis_prior.max(axis=1, keepdims=True))
        merged = np.zeros((self.kernels, len(CLASSES)))
        np.add.at(merged.T, _LEAD, w.T)
        return merged / merged.sum(axis=1, keepdims=True)

    @functools.cached_property
    def best(self) -> np.ndarray:
        """The most likely hypothesis of the shown class, per kernel (K,)."""
        inside = _LEAD[None, :] == self.shown_class[:, None]
        return np.argmax(np.where(inside, self.log_weight, -np.inf), axis=1)

    @functools.cached_property
    def shown_class(self) -> np.ndarray:
        """The class a person reads (K,): the likeliest, or a simpler one it barely beats.

        Classes within ``settings.tie`` of the likeliest (in log weight) are a tie the data
        cannot break -- over six sizes n and n^0.75 log^2 n can differ by a few hundredths;
        the one with the smallest prior cost is shown, the likelier of equals first.

        Three or four sizes spread the posterior over neighbouring classes that their
        near-exact fits cannot tell apart; there the class shown is the slowest-growing
        one that keeps ``FEW_POINTS_QUANTILE`` of the posterior at or below it (CLASSES
        ascend in growth): on seed 004's functions and Extra-P's MPI series, fitted on 3-4
        sizes and predicted beyond them, it is closer than the likeliest class in every
        cell measured (``benchmarks/few_points_study.py``).
        """
        if len(self.x) < FEW_POINTS:
            cumulative = np.cumsum(self.class_probabilities, axis=1)
            return np.argmax(cumulative >= FEW_POINTS_QUANTILE - 1e-12, axis=1)
        return shown_classes(self.class_log_weight, self.settings.tie)

    @functools.cached_property
    def best_in_class(self) -> np.ndarray:
        """The most likely hypothesis of every class (K, C); -1 where a class has none.

        Every class is the constant or one single term, so it starts as that hypothesis; a
        pair with the same top term takes over where it weighs more (21 vectorised steps).
        """
        k = self.kernels
        out = np.broadcast_to(_CLASS_BASE, (k, len(CLASSES))).copy()
        best = self.log_weight[:, _CLASS_BASE]
        for h in range(1 + _N_SINGLE, SPACE.size):
            c = _LEAD[h]
            better = self.log_weight[:, h] > best[:, c]
            out[better, c] = h
            best[better, c] = self.log_weight[better, h]
        return np.where(np.isfinite(best), out, -1)

    @functools.cached_property
    def class_shares(self) -> tuple[np.ndarray, np.ndarray]:
        """log(terms / constant) at the smallest x of each class's best hypothesis, and its
        growth over the range in per-point errors (K, C) each; NaN for the constant."""
        best = self.best_in_class
        rows = np.arange(self.kernels)[:, None]
        share = self.log_share[rows, np.maximum(best, 0)]
        growth = self.growth[rows, np.maximum(best, 0)]
        return np.where(best >= 0, share, np.nan), np.where(best >= 0, growth, np.nan)

    @functools.cached_property
    def beyond(self) -> Beyond:
        """Growth faster than any class at the top sizes (see growth.py), per kernel.

        A point's error is its repetitions' with the drift the settings assume, not the
        drift fitted: where no class fits, the fitted drift takes up the misfit itself.
        """
        sigma = np.nan_to_num(self.assumed_error, nan=_UNREPEATED_ERROR)
        error = sigma[:, None] * np.sqrt(self.variance)
        return beyond_polynomial(self.x, self.y, error, CLASSES)

    @functools.cached_property
    def assumed_error(self) -> np.ndarray:
        """A point value's relative error from its repetitions and the drift the settings
        assume, not the drift fitted (which also holds a class's misfit) (K,); NaN without
        repetitions."""
        s = self.settings
        known = np.isfinite(self.noise) & (self.noise > 0)
        noise = np.where(known, self.noise, 0.0)
        reps = np.maximum(self.repetitions, 1)
        repeated = np.sqrt(noise**2 / reps + (s.drift_prior * noise) ** 2 + s.floor**2)
        return np.where(known, repeated, np.nan)

    def terms(self, k: int, h: int) -> tuple[tuple[float, Fraction, Fraction], ...]:
        """(coefficient, alpha, beta) of hypothesis h's terms for kernel k, lowest first."""
        return tuple(
            (float(self.coef[k, h, 1 + i]), a, b) for i, (a, b) in enumerate(SPACE.terms(h))
        )

    def fitted(self, k: int, h: int) -> np.ndarray:
        """Hypothesis h's fitted values at x for kernel k."""
        out = np.full(len(self.x), self.coef[k, h, 0])
        for c, a, b in self.terms(k, h):
            out = out + c * power_log_basis(self.x, np.array([float(a)]), np.array([float(b)]))[0]
        return out

    def at_sizes(self, keep: np.ndarray) -> Evidence:
        """The same kernels' evidence refitted at only the sizes ``keep`` marks (a boolean
        mask over x); their noise, repetitions, drift and settings stay the whole run's."""
        return class_evidence(
            self.x[keep],
            self.y[:, keep],
            self.noise,
            self.repetitions,
            self.settings,
            self.variance[:, keep],
            self.drift,
        )

    def rows(self, index: np.ndarray | Sequence[int]) -> Evidence:
        """The evidence of some kernels only."""
        i = np.asarray(index, dtype=int)
        return Evidence(
            x=self.x,
            y=self.y[i],
            noise=self.noise[i],
            repetitions=self.repetitions[i],
            sigma=self.sigma[i],
            log_weight=self.log_weight[i],
            rss=self.rss[i],
            coef=self.coef[i],
            log_share=self.log_share[i],
            growth=self.growth[i],
            settings=self.settings,
            drift=self.drift[i],
            hypothesis_prior=self.hypothesis_prior[i],
            variance=self.variance[i],
        )


def shown_classes(class_log_weight: np.ndarray, tie: float) -> np.ndarray:
    """The shown class of every row (K, C) -> (K,): see ``Evidence.shown_class``."""
    lw = class_log_weight
    tied = lw >= lw.max(axis=1, keepdims=True) - tie
    cost = np.where(tied, _CLASS_COST[None, :], np.inf)
    simplest = cost == cost.min(axis=1, keepdims=True)
    return np.argmax(np.where(simplest & tied, lw, -np.inf), axis=1)


def _normalise(log_weight: np.ndarray) -> np.ndarray:
    top = log_weight.max(axis=1, keepdims=True)
    p = np.exp(log_weight - np.where(np.isfinite(top), top, 0.0))
    total = p.sum(axis=1, keepdims=True)
    return p / np.where(total > 0, total, 1.0)


def class_evidence(
    x: np.ndarray,
    y: np.ndarray,
    noise: np.ndarray,
    repetitions: np.ndarray,
    settings: EvidenceSettings | None = None,
    variance: np.ndarray | None = None,
    drift: np.ndarray | None = None,
) -> Evidence:
    """Hypothesis weights for point values y (K, P) at x (P,) with per-repetition noise (K,).

    ``repetitions`` (K,) is the typical number of repetitions behind each point value;
    ``variance`` (K, P) how much less a point is to be trusted than the others (see
    ``point_variance``; 1 everywhere by default); ``drift`` (K,) each kernel's per-size drift
    variance (see ``pooled_drift``; by default ``settings``' assumption).
    """
    s = settings or EvidenceSettings()
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if len(y) <= _KERNELS_PER_BATCH:
        return _batch_evidence(x, y, noise, repetitions, s, variance, drift)

    # Rows are independent: batches bound the (K, H, P) temporaries, not the result.
    def part(r: slice) -> Evidence:
        return _batch_evidence(
            x,
            y[r],
            np.asarray(noise, dtype=float)[r],
            np.asarray(repetitions, dtype=float)[r],
            s,
            None if variance is None else np.asarray(variance, dtype=float)[r],
            None if drift is None else np.asarray(drift, dtype=float)[r],
        )

    return _stacked([part(r) for r in _batches(len(y))])


@dataclass(frozen=True)
class _PointError:
    """What repetitions tell of a point value's error, per kernel (K,) each."""

    known: np.ndarray  # whether the kernel has a repetition noise at all
    sigma2: np.ndarray  # a point value's error variance where known
    drift: np.ndarray  # the per-size drift variance (0 where not known)
    dof: np.ndarray  # the prior's degrees of freedom behind sigma2


def _point_error(
    noise: np.ndarray, repetitions: np.ndarray, drift: np.ndarray | None, s: EvidenceSettings
) -> _PointError:
    """Repetition noise over the repetitions, plus drift and the floor, squared."""
    known = np.isfinite(noise)
    reps = np.where(known, np.maximum(np.asarray(repetitions, dtype=float), 1), 1)
    rep_noise = np.where(known, noise, 0.0)
    if drift is None:
        drift = pooled_drift(np.full(len(noise), np.nan), rep_noise, s)
    drift = np.where(known, np.asarray(drift, dtype=float), 0.0)
    sigma2 = rep_noise**2 / reps + drift + s.floor**2
    return _PointError(known, sigma2, drift, np.where(known, s.prior_dof, 0.0))


def _batch_evidence(
    x: np.ndarray,
    y: np.ndarray,
    noise: np.ndarray,
    repetitions: np.ndarray,
    s: EvidenceSettings,
    variance: np.ndarray | None,
    drift: np.ndarray | None,
) -> Evidence:
    """``class_evidence`` of up to _KERNELS_PER_BATCH kernels: every hypothesis fitted."""
    k, p = y.shape
    noise = np.asarray(noise, dtype=float)
    error = _point_error(noise, repetitions, drift, s)
    t = single_basis(x)  # (S, P)
    lo, hi = int(np.argmin(x)), int(np.argmax(x))

    v = np.ones_like(y) if variance is None else np.asarray(variance, dtype=float)
    const, const_rss, singles = plain_fits(x, y, v)
    pair_coef, pair_rss = _fit_pairs(x, y, t, v)
    # without repetitions the per-point error for visibility comes from the best fit itself
    best_rss = np.minimum(np.min(singles.rss, axis=1), const_rss)
    fit_error = np.maximum(best_rss / max(p - 2, 1), s.fit_floor**2)
    sigma2 = np.where(error.known, error.sigma2, fit_error)
    sigma = np.sqrt(sigma2)

    c0, c1, srss, visible = _pin_invisible(
        y, v, t, (lo, hi), (singles.c0, singles.c1, singles.rss), sigma, s
    )
    pair_ok = _pairs_visible(pair_coef, t, (lo, hi), y, sigma, s)
    rss = np.column_stack(
        [
            _constant_misfit(x, y, v, const_rss, error.known),
            srss,
            np.where(pair_ok, pair_rss, np.inf),
        ]
    )
    coef = _coefficients(const, c0, c1, pair_coef)
    log_weight, prior = _log_weight(rss, sigma2, _trusted_dof(error, best_rss, p, s), p, s)
    return Evidence(
        x=x,
        y=y,
        noise=noise,
        repetitions=np.asarray(repetitions, dtype=float),
        sigma=sigma,
        log_weight=_admitted(log_weight, visible, p),
        rss=rss,
        coef=coef,
        log_share=_log_share(coef, t[:, lo]),
        growth=_growth(coef, t, (lo, hi), y[:, hi] * sigma),
        settings=s,
        drift=error.drift,
        hypothesis_prior=prior,
        variance=v,
    )


def _constant_misfit(
    x: np.ndarray, y: np.ndarray, v: np.ndarray, const_rss: np.ndarray, known: np.ndarray
) -> np.ndarray:
    """The constant's relative RSS, or for rising single values its RSS in log space where
    that is larger (K,).

    A relative residual ``(y - c) / y`` of a constant below the values cannot pass 1, so
    values that rise x4,000 would cost the constant at most one per point, and a growing
    class that follows them within 30% would not beat it by ``constant_ratio``. In log
    space the residuals keep growing with the spread; for values near one level the two
    agree to second order. Falling values keep the relative RSS: no growing class follows
    them, and the constant is their least bad class. Zero values keep it too, and so do
    repeated values: their measured noise already rules the constant out of a rise, and
    one size's outlier must not weigh more than its relative error."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(y)
        w = 1.0 / v
        centre = (w * logs).sum(-1, keepdims=True) / w.sum(-1, keepdims=True)
        log_rss = (w * (logs - centre) ** 2).sum(-1)
        rising = (w * (logs - centre) * (np.log(x) - np.log(x).mean())).sum(-1) > 0
    use = rising & np.isfinite(log_rss) & ~known
    return np.where(use, np.maximum(const_rss, log_rss), const_rss)


def _pairs_visible(
    pair_coef: np.ndarray,
    t: np.ndarray,
    ends: tuple[int, int],
    y: np.ndarray,
    sigma: np.ndarray,
    s: EvidenceSettings,
) -> np.ndarray:
    """Whether each pair's top term grows by ``s.visible`` point errors over the range (K, H2)."""
    lo, hi = ends
    span = (t[:, hi] - t[:, lo])[None, :]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        top_growth = pair_coef[:, :, 2] * span[:, _P_HI] / y[:, hi : hi + 1]
    return top_growth >= s.visible * sigma[:, None]


def _coefficients(
    const: np.ndarray, c0: np.ndarray, c1: np.ndarray, pair_coef: np.ndarray
) -> np.ndarray:
    """Every hypothesis's (constant, first, second) coefficients in SPACE order (K, H, 3)."""
    coef = np.zeros((len(const), SPACE.size, 3))
    coef[:, 0, 0] = const
    coef[:, 1 : 1 + _N_SINGLE, 0] = c0
    coef[:, 1 : 1 + _N_SINGLE, 1] = c1
    coef[:, 1 + _N_SINGLE :, :] = pair_coef
    return coef


def _admitted(log_weight: np.ndarray, visible: np.ndarray, p: int) -> np.ndarray:
    """The log weights with what the sizes cannot support ruled out (-inf), in place."""
    if p < FEW_POINTS:
        # Three or four sizes cannot tell n^4 from a step at the top size; n^3 is where
        # Extra-P's own search ends, and where a short line's classes end here.
        log_weight[:, _TOP_ALPHA > _FEW_POINTS_MAX_ALPHA] = -np.inf
    log_weight[:, 1 : 1 + _N_SINGLE] = np.where(visible, log_weight[:, 1 : 1 + _N_SINGLE], -np.inf)
    log_weight[:, 0] = np.where(np.isfinite(log_weight[:, 0]), log_weight[:, 0], -1e300)
    return log_weight


_UNREPEATED_ERROR = 0.05  # a single measurement's relative error, where none is known
_KERNELS_PER_BATCH = 512  # its (K, H, P) temporaries stay a few MB each


def _batches(k: int) -> list[slice]:
    return [slice(i, i + _KERNELS_PER_BATCH) for i in range(0, k, _KERNELS_PER_BATCH)]


def _stacked(parts: Sequence[Evidence]) -> Evidence:
    """One Evidence of the kernels of ``parts`` (same x and settings), in order."""
    first = parts[0]
    per_kernel = {
        f.name: np.concatenate([getattr(e, f.name) for e in parts])
        for f in dataclasses.fields(Evidence)
        if f.name not in ("x", "settings")
    }
    return Evidence(x=first.x, settings=first.settings, **per_kernel)


def _fit_pairs(
    x: np.ndarray, y: np.ndarray, t: np.ndarray, v: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every integer pair c0 + a*lo + b*hi (K, Hp, 3) and its relative RSS (inf if infeasible)."""
    k = len(y)
    if len(x) < 5 or not len(_P_LO):
        return np.zeros((k, len(_P_LO), 3)), np.full((k, len(_P_LO)), np.inf)
    design = np.stack([np.ones((len(_P_LO), len(x))), t[_P_LO], t[_P_HI]], -1)
    fit = fit_batch(design, y, loo=False, variance=v)
    coef = fit.coefficients
    feasible = fit.valid & (coef[..., 1:] > 0).all(-1) & (coef[..., 0] >= 0)
    with np.errstate(invalid="ignore", over="ignore"):
        rss = np.where(feasible, relative_rss(y, fit.predicted, v), np.inf)
    return np.where(feasible[..., None], coef, 0.0), rss


def _pin_invisible(
    y: np.ndarray,
    v: np.ndarray,
    t: np.ndarray,
    ends: tuple[int, int],
    fits: tuple[np.ndarray, np.ndarray, np.ndarray],
    sigma: np.ndarray,
    s: EvidenceSettings,
) -> tuple[np.ndarray, ...]:
    """Single-term fits whose term is invisible, refitted at their smallest visible term.

    Returns c0, c1, RSS and whether the class can be judged at all (K, S) each.
    """
    lo, hi = ends
    c0, c1, rss = fits
    span = (t[:, hi] - t[:, lo])[None, :]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        growth = c1 * span / y[:, hi : hi + 1]
        invisible = ~(growth >= s.visible * sigma[:, None]) | ~np.isfinite(rss)
        a_min = s.visible * sigma[:, None] * y[:, hi : hi + 1] / span
        w = 1.0 / (y**2 * v)
        resid = y[:, None, :] - a_min[:, :, None] * t[None, :, :]
        c0_min = np.maximum((w[:, None, :] * resid).sum(-1) / w.sum(-1)[:, None], 0.0)
        pred = c0_min[:, :, None] + a_min[:, :, None] * t[None, :, :]
        rss_min = relative_rss(y, pred, v)
    use = invisible & np.isfinite(rss_min) & (a_min > 0)
    return (
        np.where(use, c0_min, c0),
        np.where(use, a_min, c1),
        np.where(use, rss_min, rss),
        ~(invisible & ~use) & np.isfinite(np.where(use, rss_min, rss)),
    )


def _trusted_dof(
    error: _PointError, best_rss: np.ndarray, p: int, s: EvidenceSettings
) -> np.ndarray:
    """How many points' worth the repetitions' per-point error is trusted (K,): ``prior_dof``,
    shrunk where even the best fit misses the point values by more than ``misfit_ratio``
    times what that error allows. There no class of the family fits (a negative constant,
    a step, a sum the single terms cannot follow), and a likelihood that trusts the error
    would still call the least bad class certain."""
    expected = max(p - 2, 1) * error.sigma2 * s.misfit_ratio
    with np.errstate(divide="ignore", invalid="ignore"):
        shrink = np.where(best_rss > expected, expected / best_rss, 1.0)
    return error.dof * np.nan_to_num(shrink, nan=1.0)


def _log_weight(
    rss: np.ndarray, sigma2: np.ndarray, nu: np.ndarray, p: int, s: EvidenceSettings
) -> tuple[np.ndarray, np.ndarray]:
    """Log weight (likelihood, Occam factors, prior) and log prior of every hypothesis (K, H).

    Kernels without repetitions (``nu`` 0) get seed 000's penalised profile likelihood: its
    residual scale is estimated from the same residuals, which overfits five points, so the
    prior is stronger there (``free_simplicity``) and a growing term must cut the
    constant's residuals by ``constant_ratio``.
    """
    cost = SPACE.cost(s.pair_cost)
    prior = np.exp(-s.simplicity * cost[1:])
    log_prior = np.log(
        np.concatenate([[s.constant_prior], (1 - s.constant_prior) * prior / prior.sum()])
    )
    scale = nu[:, None] * sigma2[:, None] + p * s.fit_floor**2
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = -(nu[:, None] + p) / 2 * np.log(scale + rss)
    coefficients = np.array([0] + [1] * _N_SINGLE + [2] * len(SPACE.pairs))
    known_prior = log_prior - 0.5 * np.log(p) * coefficients
    # Two terms can bend to follow a cache step; with repetitions to judge by, the classes
    # are single terms (pairs recover seed 000's two-term sums from single values).
    known_prior[1 + _N_SINGLE :] = -np.inf
    free_prior = -s.free_simplicity * cost
    free_prior[0] += p / 2 * np.log(s.constant_ratio)
    prior = np.where(nu[:, None] > 0, known_prior[None, :], free_prior[None, :])
    return ll + prior, prior


def _growth(
    coef: np.ndarray, t: np.ndarray, ends: tuple[int, int], error: np.ndarray
) -> np.ndarray:
    """How much each hypothesis's terms grow from the smallest to the largest x (K, H), in
    units of ``error`` (K,), the per-point error at the largest x; NaN for the constant."""
    lo, hi = ends
    span = t[:, hi] - t[:, lo]
    k = len(coef)
    rise = np.zeros((k, SPACE.size))
    rise[:, 1 : 1 + _N_SINGLE] = coef[:, 1 : 1 + _N_SINGLE, 1] * span[None, :]
    pairs = slice(1 + _N_SINGLE, None)
    rise[:, pairs] = coef[:, pairs, 1] * span[_P_LO] + coef[:, pairs, 2] * span[_P_HI]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = rise / error[:, None]
    out[:, 0] = np.nan
    return out


def _log_share(coef: np.ndarray, t_lo: np.ndarray) -> np.ndarray:
    """log(growing terms / constant) at the smallest x, clipped (K, H); NaN for the constant."""
    k = len(coef)
    terms = np.zeros((k, SPACE.size))
    terms[:, 1 : 1 + _N_SINGLE] = coef[:, 1 : 1 + _N_SINGLE, 1] * t_lo[None, :]
    pairs = slice(1 + _N_SINGLE, None)
    terms[:, pairs] = coef[:, pairs, 1] * t_lo[_P_LO] + coef[:, pairs, 2] * t_lo[_P_HI]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        share = np.log(terms / coef[:, :, 0])
    share = np.clip(np.nan_to_num(share, nan=_SHARE_CLIP), -_SHARE_CLIP, _SHARE_CLIP)
    share[:, 0] = np.nan
    return share


def single_basis(x: np.ndarray) -> np.ndarray:
    """Every single term of the space at x (S, P), in ``SPACE.singles`` order."""
    return power_log_basis(np.asarray(x, dtype=float), _S_ALPHA, _S_BETA)


def plain_fits(
    x: np.ndarray, y: np.ndarray, variance: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, SingleTermFits]:
    """The constant (value and relative RSS, (K,) each) and every single term fitted by
    plain weighted least squares -- before any visibility pinning (``_pin_invisible``)."""
    const, const_rss, _ = fit_constant(y, variance)
    return const, const_rss, fit_single_terms(x, y, _S_ALPHA, _S_BETA, variance=variance)


def drift_excess(
    x: np.ndarray,
    y: np.ndarray,
    noise: np.ndarray,
    reps: np.ndarray,
    variance: np.ndarray | None = None,
) -> np.ndarray:
    """Each kernel's per-point relative variance beyond its repetitions (K,).

    The best single-term fit's mean squared relative residual, less the point value's own
    variance (noise^2 / repetitions): an estimate of the per-size drift's variance (noisy,
    can be negative).  The best of sixty fits overfits: on seeded drift its residual sum's
    median is (P - 3.6) per-point variances (P = 5..14), not P - 2.  NaN for kernels without
    repetition noise or with fewer than 5 points.
    """
    k, p = y.shape
    if p < 5:
        return np.full(k, np.nan)
    if k > _KERNELS_PER_BATCH:
        v = None if variance is None else np.asarray(variance)
        noise, reps = np.asarray(noise), np.asarray(reps)
        return np.concatenate(
            [
                drift_excess(x, y[r], noise[r], reps[r], None if v is None else v[r])
                for r in _batches(k)
            ]
        )
    _, const_rss, singles = plain_fits(x, y, variance)
    best = np.minimum(singles.rss.min(axis=1), const_rss)
    with np.errstate(invalid="ignore", divide="ignore"):
        excess = best / max(p - _SELECTION_DOF, 1.0) - noise**2 / np.maximum(reps, 1)
    return np.where(np.isfinite(noise) & (noise > 0), excess, np.nan)


def pooled_noise(noise: np.ndarray, dof: np.ndarray) -> np.ndarray:
    """Each kernel's repetition noise, shrunk toward the run's typical noise (K,).

    A noise estimated from five repetitions at six sizes is off by a third for one kernel in
    twenty, and a kernel whose noise is underestimated gets confident about its curvature.
    Empirical Bayes in log space: the spread of the kernels' log noises beyond their
    sampling error (1 / (2 dof) each) is how much kernels really differ; the less they do,
    the more each estimate moves toward the median.
    """
    ok = np.isfinite(noise) & (noise > 0) & (dof > 0)
    if ok.sum() < 3:
        return noise
    log_n = np.log(noise[ok])
    se2 = 1.0 / (2.0 * dof[ok])
    tau2 = max(float(np.var(log_n)) - float(np.mean(se2)), 0.0)
    weight = tau2 / (tau2 + se2)
    out = noise.copy()
    out[ok] = np.exp(weight * log_n + (1 - weight) * float(np.median(log_n)))
    return out


def pooled_drift(excess: np.ndarray, noise: np.ndarray, settings: EvidenceSettings) -> np.ndarray:
    """Each kernel's drift variance (K,): the run's, shrunk toward ``drift_prior`` x its noise.

    A run's sizes drift together (a machine phase, a frequency step, a cache level), so the
    kernels' median excess (``drift_excess``) is the run's drift variance; with few kernels
    it is shrunk toward the assumption ``(drift_prior * noise)^2``, worth ``drift_weight``
    kernels.  An explicit ``settings.drift`` (a ratio to the repetition noise) overrides.
    """
    assumed = (settings.drift_prior * noise) ** 2
    if settings.drift is not None:
        return (settings.drift * noise) ** 2
    z = excess[np.isfinite(excess)]
    if not len(z):
        return assumed
    w = settings.drift_weight
    return (len(z) * _scale_median(z) + w * assumed) / (len(z) + w)


def _scale_median(z: np.ndarray) -> float:
    """The median of variances, >= 0; of an even count the geometric mean of the middle two
    (a variance's scale is logarithmic): of two kernels, one that no class fits (an
    exponential at n = 1..9 misses every class by 20%) must not lend half its misfit to the
    other as the run's drift, which blurred a command's exponential rise into a pass."""
    z = np.sort(z)
    mid = len(z) // 2
    if len(z) % 2:
        return max(float(z[mid]), 0.0)
    low, high = float(z[mid - 1]), float(z[mid])
    if low > 0:
        return math.sqrt(low * high)
    return max((low + high) / 2, 0.0)


def point_values(values: np.ndarray, noise: np.ndarray, clip: float) -> np.ndarray:
    """Each point's value: the mean of its repetitions within ``clip`` noise of the point.

    values (..., P, R), NaN where a point has fewer repetitions; noise (...,) the pooled
    relative sd of one repetition.  Starting from the median, repetitions further than
    ``clip * noise`` (relative) from the current value are set aside and the rest averaged,
    a few times over.  The clip, with a scale pooled over all points, sets aside outlier
    repetitions as the median does, and the mean of the rest is less noisy than the median
    (for normal noise its variance is about 2/pi of the median's).  Without a usable noise
    (no repetitions, none that differ, or clip 0) the median is kept.
    """
    v = np.asarray(values, dtype=float)
    med = _median(v) if v.shape[-1] > 1 else v[..., 0]
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


def point_variance(values: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """How much less each point is to be trusted than the others (K, P), at least 1.

    A point whose own repetitions scatter far more than the run's pooled noise (several
    outliers at one size, a machine phase change in its rounds) has a value that is only
    known to about its own spread: its variance grows by (spread / (tolerance * noise))^2.
    Spreads within ``_SPREAD_TOLERANCE`` times the pooled noise are sampling variation.
    """
    v = np.asarray(values, dtype=float)
    if v.shape[-1] < 2:
        return np.ones(v.shape[:-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # points with one value: NaN spread
        med = _median(v)
        spread = 1.4826 * _median(np.abs(v - med[..., None])) / med
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = spread / (_SPREAD_TOLERANCE * np.asarray(noise, dtype=float)[:, None])
    return np.maximum(np.nan_to_num(ratio, nan=0.0, posinf=0.0) ** 2, 1.0)


def _median(v: np.ndarray) -> np.ndarray:
    """Median over the last axis, ignoring NaN padding (numpy's nanmedian loops in Python)."""
    if not np.isnan(v).any():
        return np.median(v, axis=-1)
    return np.nanmedian(v, axis=-1)


def pad_values(points: Sequence[Sequence[float]], width: int | None = None) -> np.ndarray:
    """Repetitions of P points as a (P, R) array, NaN-padded to the largest count."""
    r = width or max(len(v) for v in points)
    out = np.full((len(points), r), np.nan)
    for i, v in enumerate(points):
        out[i, : len(v)] = v
    return out


def repetition_stats(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pooled relative sd of one repetition and the typical repetition count (K,) each.

    values (K, P, R), NaN-padded.  The spread of a point is its median absolute deviation
    scaled to a standard deviation (robust to one outlier repetition); the pooled noise is
    the median over the points that have two or more repetitions (NaN where none has).
    Cost is linear in the number of repetitions.
    """
    v = np.asarray(values, dtype=float)
    count = np.isfinite(v).sum(-1)  # (K, P)
    if v.shape[-1] < 2:
        return np.full(len(v), np.nan), np.median(count, axis=-1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        med = _median(v)
        spread = 1.4826 * _median(np.abs(v - med[..., None])) / med * _mad_factor(count)
    spread = np.where((count >= 2) & np.isfinite(spread), spread, np.nan)
    has = np.isfinite(spread).any(-1)
    pooled = np.full(len(v), np.nan)
    if has.any():
        pooled[has] = np.nanmedian(spread[has], axis=-1)
    reps = np.median(count, axis=-1).astype(float)
    if has.any():
        pooled = _clipped_sd(v, med, np.where(has, pooled, np.nan), _SD_CLIP)
    return np.where(has, pooled, np.nan), reps


# The MAD of few values is biased low (of three, one deviation is 0 and the median is the
# smaller of the other two): its small-sample factors for normal data (Croux & Rousseeuw
# 1992), n / (n - 0.8) beyond nine.
_MAD_FACTORS = np.array([1.0, 1.0, 1.196, 1.495, 1.363, 1.206, 1.200, 1.140, 1.129, 1.107])


def _mad_factor(count: np.ndarray) -> np.ndarray:
    n = np.asarray(count, dtype=float)
    small = _MAD_FACTORS[np.clip(n, 0, len(_MAD_FACTORS) - 1).astype(int)]
    return np.where(n < len(_MAD_FACTORS), small, n / np.maximum(n - 0.8, 1.0))


def _clipped_sd(v: np.ndarray, med: np.ndarray, robust: np.ndarray, clip: float) -> np.ndarray:
    """Pooled relative sd of the repetitions within ``clip`` robust sds of their median.

    The MAD finds the outliers; the sd of the rest is the efficient estimate (the MAD
    overstates uniform noise by 28%).  Pooled over points as a variance, not a median.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        kept = np.abs(v - med[..., None]) <= clip * robust[:, None, None] * med[..., None]
        n = kept.sum(-1)
        mean = np.where(kept, v, 0.0).sum(-1) / np.maximum(n, 1)
        dev = np.where(kept, (v - mean[..., None]) / mean[..., None], 0.0)
        ss = (dev**2).sum(axis=(-1, -2))
        dof = np.maximum(n - 1, 0).sum(-1)
        out = np.sqrt(ss / dof)
    return np.where(np.isfinite(out) & (dof > 0), out, robust)


def evidence_from_values(
    x: np.ndarray, values: np.ndarray, settings: EvidenceSettings | None = None
) -> Evidence:
    """Evidence for K kernels from their repetitions (K, P, R), NaN-padded, at x (P,)."""
    s = settings or EvidenceSettings()
    noise, reps = repetition_stats(values)
    y = point_values(values, noise, s.clip)
    return class_evidence(x, y, noise, reps, s, point_variance(values, noise))


def evidence_from_points(
    x: Sequence[float],
    values: Sequence[Sequence[float]],
    settings: EvidenceSettings | None = None,
) -> Evidence:
    """Evidence for one kernel from its points' repetitions (counts may differ per point)."""
    return evidence_from_values(np.asarray(x, dtype=float), pad_values(values)[None], settings)
