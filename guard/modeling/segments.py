"""Segmented behaviour: find where a kernel changes behaviour inside the measured range.

A cache level overflowing or an algorithm switching at some size makes one PMNF model
over all points a compromise that describes neither side (seed 000, section 2.1, after
Ilyas et al.).  Per kernel, this module asks whether two pieces describe the medians
much better than one smooth model can, relative to the spread between repetitions.

Everything happens in log space, where timing noise is additive.  The smooth family is
``c0 + c1 * x^a * log2(x)^b``: ``a`` continuous in [-1, 5] (a grid of eighths, then
Levenberg-Marquardt), ``b`` in halves up to 2, ``c0, c1 >= 0``; the modeler's own fit
over all points joins the family, so shapes it knows (``n^2 + n``) count as smooth.
Two pieces at a break between x[j] and x[j+1] share one such shape: below, it gets a
level; above, a level and a line in ``ln x`` -- a step at the gap's geometric middle
and a change of the growth exponent.  A side of fewer than three points gets a step
only, no growth change, and no say in the shape.  For a given shape every break costs
a few weighted sums, so all breaks and shapes are fitted at once.

Noise: each point's median has a standard error read off its repetitions' order
statistics (exact for uniform noise, 4% high for normal noise, robust to one wild
repetition), at least the median over points (five repetitions can agree by luck) and
a 1% floor.  Evidence: ``F = (RSS_one - RSS_two) / 2`` in those units, against
F(2, nu) with nu half the repetitions' degrees of freedom, times the number of breaks
tried (Bonferroni).  Points that scatter around the two pieces more than their
repetitions allow (chi-square, 99%) raise the noise scale to that scatter.  A break is
reported when it is significant (``alpha``), large enough to matter (``min_step`` or
``min_growth``), and not made by one point: both points of a two-point side must show
the step, and the break must stay significant at 5% when any other point is dropped.
Without repetitions the two-pieces' residual is the only noise scale, with
``alpha_without_repetitions``: only glaring breaks in eight or more points pass.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import numbers
from .noise import range_of_relative_deviation
from .penalized import PenalizedModeler
from .pmnf import Factor, Model, Term
from .result import Fitted

if TYPE_CHECKING:
    from . import Modeler

__all__ = ["Segment", "Segmentation", "detect_segments"]

# The smooth family: c0 + c1 * x^a * log2(x)^b, a in [-1, 5] (then continuous), b by halves.
_POWER_GRID = np.linspace(-1.0, 5.0, 49)
_LOG_EXPONENTS = np.array([0.0, 0.5, 1.0, 1.5, 2.0])
# rho = c0 / (c1 * T), T the term's geometric mean over x; searched as log10(rho).
_RHO_GRID = np.concatenate([[-np.inf], np.linspace(-4.0, 4.0, 17)])  # -inf: c0 = 0
_LAM_MIN = -60.0  # ln(c0 / c1) this low is c0 = 0
_NEWTON_STEPS = 12
_SHAPE_PARAMETERS = 5  # level, rho, the term choice, step, growth change
_FLOOR = 0.01  # no point's median is credited with less relative noise than this
_LINE_POINTS = 3  # a side needs this many points for a growth change (else: a step only)
_MIN_POINTS = 6  # two sides and a shape: fewer points leave the two pieces nothing to test
_JACKKNIFE_SIDE = 3  # points of sides this long or longer are dropped one at a time
_SURVIVAL_LEVEL = 0.05  # the p-value a break must keep when any one point is dropped


@dataclass(frozen=True)
class Segment:
    """The measured points on one side of a break and how they grow."""

    first: float
    last: float
    points: int
    exponent: float  # log-log slope of a power law through the segment's medians
    model: Fitted | None  # the modeler's fit, when the segment has enough points

    def describe(self, parameter: str = "n") -> str:
        """``O(n log n)`` from the model, else ``~n^1.96 (3 points)``."""
        if self.model is not None:
            return _fitted_model(self.model, parameter).complexity()
        if abs(self.exponent) < 0.05:
            return f"~constant ({self.points} points)"
        return f"~{parameter}^{self.exponent:.2f} ({self.points} points)"

    def to_json(self, parameter: str = "n") -> dict[str, Any]:
        """The segment within a models@1 ``segments`` entry."""
        out: dict[str, Any] = {
            "from": self.first,
            "to": self.last,
            "points": self.points,
            "exponent": round(self.exponent, 4),
            "description": self.describe(parameter),
        }
        if self.model is not None:
            model = _fitted_model(self.model, parameter)
            out["formula"] = model.formula()
            out["complexity"] = model.complexity()
        return out


@dataclass(frozen=True)
class Segmentation:
    """A change of behaviour between two measured x values, and the evidence for it."""

    below: float  # last measured x before the change
    above: float  # first measured x after it
    step: float  # level factor above vs below, at the gap's geometric middle (1: none)
    growth_change: float  # change of the log-log growth exponent above the break (0: none)
    misfit_one: float  # one smooth model's squared misses, in units of the noise
    misfit_two: float  # the two-piece description's, same units
    p_value: float  # of "one model suffices", corrected for the breakpoints tried
    noise: float  # relative noise of one point's median that the misfits are measured in
    segments: tuple[Segment, Segment]
    # the measured medians' ratio from ``below`` to ``above``, and the ratio the sizes below
    # predict there (their log-log slope); NaN: not known
    across: float = math.nan
    expected: float = math.nan

    def sentence(self, parameter: str = "n", metric: str = "time") -> str:
        """``behaviour changes between n=2048 and n=4096: time grows ×2.96 from one to the
        other, where the sizes below predict ×2.10; below: ...``.

        What the sentence states is measured: the medians' ratio across the gap against the
        growth below it, and whether the sides' own slopes differ.  (``step`` and
        ``growth_change`` are the two-piece fit's parameters: where the growth changes too,
        its step sits at an extrapolation between the sides and can read "steps down"
        across a gap the medians rise over.)"""
        low, high = self.segments
        changes = []
        if math.isfinite(self.across) and math.isfinite(self.expected):
            moved = (
                f"grows ×{self.across:.2f}" if self.across >= 1 else f"falls ÷{1 / self.across:.2f}"
            )
            changes.append(
                f"{metric} {moved} from one to the other, where the sizes below predict "
                f"×{self.expected:.2f}"
            )
        if abs(high.exponent - low.exponent) >= 0.1:
            changes.append(f"grows {'faster' if high.exponent > low.exponent else 'slower'} above")
        return (
            f"behaviour changes between {numbers.at(parameter, self.below)} and "
            f"{numbers.at(parameter, self.above)}: {', and '.join(changes)}; "
            f"below: {low.describe(parameter)}, above: {high.describe(parameter)}"
        )

    def to_json(self, parameter: str = "n", metric: str = "time") -> dict[str, Any]:
        """One entry of a models@1 ``segments`` list."""
        return {
            "between": [self.below, self.above],
            "step": round(self.step, 4),
            "growth_change": round(self.growth_change, 4),
            "misfit_one": round(self.misfit_one, 3),
            "misfit_two": round(self.misfit_two, 3),
            "p_value": float(f"{self.p_value:.3g}"),
            "noise": round(self.noise, 6),
            "segments": [s.to_json(parameter) for s in self.segments],
            "sentence": self.sentence(parameter, metric),
        }


def detect_segments(
    x: np.ndarray,
    values: Sequence[Any] | np.ndarray,
    modeler: Modeler | None = None,
    *,
    alpha: float = 1e-3,
    alpha_without_repetitions: float = 1e-4,
    min_side: int = 2,
    min_step: float = 1.1,
    min_growth: float = 0.25,
    min_model_points: int = 5,
) -> list[Segmentation | None]:
    """One Segmentation (or None: one model suffices, or the data cannot tell) per kernel.

    ``x`` (P,) are increasing positive sizes.  ``values`` holds each kernel's repetitions:
    a (K, P, R) array, or a sequence of per-kernel (P, R) arrays or of P sequences of
    repetitions (counts may differ).  Values must be positive.  ``modeler`` fits the
    segments that have ``min_model_points`` points (default: the default modeler).
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or not np.all(np.diff(x) > 0) or not np.all(x > 0):
        raise ValueError("x must be a strictly increasing 1-D array of positive sizes")
    if min_side < 2:
        raise ValueError(f"min_side must be at least 2, got {min_side}")
    fitter = modeler if modeler is not None else PenalizedModeler()
    settings = _Settings(alpha, alpha_without_repetitions, min_step, min_growth)
    # Column 0: one model (every point below); then every break with min_side a side.
    splits = np.concatenate([[len(x)], np.arange(min_side, len(x) - min_side + 1)])
    design = _Design.of(x, splits)
    kernels = _per_point(values, len(x))
    enough = len(x) >= max(_MIN_POINTS, 2 * min_side)
    usable = [enough and _positive(reps) for reps in kernels]
    whole = iter(_whole_fits(x, [k for k, ok in zip(kernels, usable) if ok], fitter))
    out: list[Segmentation | None] = []
    for reps, ok in zip(kernels, usable):
        found = _test_kernel(design, reps, next(whole), settings) if ok else None
        out.append(
            None if found is None else _segmentation(x, reps, found, fitter, min_model_points)
        )
    return out


@dataclass(frozen=True)
class _Settings:
    alpha: float
    alpha_without_repetitions: float
    min_step: float
    min_growth: float


@dataclass(frozen=True)
class _Found:
    split: int  # number of points below the break
    step: float
    growth_change: float
    misfit_one: float
    misfit_two: float
    p_value: float
    noise: float
    # Of each side too short to drop a point from: its points' log distances from the
    # other side's description.
    short_sides: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class _Design:
    """Per x and per column (a break, or none: one model), who is below the break.

    A column may also leave points out (``present``): the jackknife drops a point from a
    pair of columns (one model, two pieces) and fits all the pairs at once.
    """

    x: np.ndarray  # (P,)
    u: np.ndarray  # (P,) ln x
    splits: np.ndarray  # (C,) points below each column's break; P for one model
    below: np.ndarray  # (C, P) bool
    present: np.ndarray  # (C, P) bool
    du: np.ndarray  # (C, P) ln x minus the gap's middle, above the break; 0 below
    short: np.ndarray  # (C, P) bool: the points of a side too short for a growth change

    @classmethod
    def of(
        cls,
        x: np.ndarray,
        splits: np.ndarray,
        present: np.ndarray | None = None,
        line_points: int = _LINE_POINTS,
    ) -> _Design:
        """Columns for the given splits; sides of fewer than ``line_points`` are short."""
        p = len(x)
        u = np.log(x)
        present = np.ones((len(splits), p), bool) if present is None else present
        below = np.arange(p)[None, :] < splits[:, None]
        inner = np.clip(splits, 1, p - 1)
        middle = (u[inner - 1] + u[inner]) / 2.0
        n_below = (below & present).sum(-1, keepdims=True)
        n_above = (~below & present).sum(-1, keepdims=True)
        short = np.where(below, n_below, n_above) < line_points
        short &= present & (n_above > 0)  # one model has no sides
        du = (u[None, :] - middle[:, None]) * ~below
        return cls(x, u, splits, below, present, du, short)


def _per_point(values: Sequence[Any] | np.ndarray, points: int) -> list[list[np.ndarray]]:
    """Each kernel as P arrays of repetitions."""
    if isinstance(values, np.ndarray):
        if values.ndim == 2:  # one value per point
            values = values[..., None]
        if values.ndim != 3 or values.shape[1] != points:
            raise ValueError(f"values must be (K, {points}, R), got {values.shape}")
        return [[np.asarray(v, dtype=float) for v in kernel] for kernel in values]
    kernels = []
    for kernel in values:
        reps = [np.atleast_1d(np.asarray(v, dtype=float)) for v in kernel]
        if len(reps) != points:
            raise ValueError(f"every kernel needs {points} points of repetitions")
        kernels.append(reps)
    return kernels


def _median_se(logs: np.ndarray) -> float:
    """Standard error of the median of one point's log repetitions, from order statistics.

    The interval between the k-th smallest and k-th largest of R draws covers the true
    median with a probability known for any continuous distribution (binomial); its
    half-width over the matching normal quantile estimates the median's standard error.
    It is right for uniform noise, 4% high for normal noise, and follows the core of
    heavy-tailed timings instead of their tail; one wild repetition barely moves it.
    """
    r = len(logs)
    k, coverage = _median_interval(r)
    ordered = np.sort(logs)
    return float(ordered[r - k] - ordered[k - 1]) / (2.0 * NormalDist().inv_cdf((1 + coverage) / 2))


@functools.lru_cache(maxsize=64)
def _median_interval(r: int) -> tuple[int, float]:
    """(k, coverage) of the narrowest order-statistic interval covering the median >= 50%.

    [X_(k), X_(r-k+1)] misses the median when fewer than k of the r draws fall on one
    side: coverage = 1 - 2 P(Bin(r, 1/2) < k).  Linear in r, exact to rounding for any r.
    """
    if r < 2:
        return 1, 0.0
    ks = np.arange(1, r // 2 + 1)
    coverage = 1.0 - 2.0 * _half_binomial_cdf(r)[ks - 1]
    valid = (coverage >= 0.5) & (r - ks + 1 > ks)
    k = int(ks[valid][-1])  # k = 1 always qualifies for r >= 2
    return k, float(coverage[k - 1])


def _half_binomial_cdf(r: int) -> np.ndarray:
    """P(Bin(r, 1/2) <= i) for i = 0 .. r // 2, without the float overflow of 2^r.

    Log probabilities are built outward from the centre (ratios of neighbours), so no
    term is ever larger than the centre's; the tail far below it underflows to 0 harmlessly.
    """
    i = np.arange(r + 1, dtype=float)
    centre = r // 2
    # log pmf(i) - log pmf(i + 1) = log((i + 1) / (r - i)), summed down from the centre.
    steps = np.log((i[:centre] + 1.0) / (r - i[:centre]))
    log_pmf = np.zeros(r + 1)
    log_pmf[:centre] = np.cumsum(steps[::-1])[::-1]
    log_pmf[centre + 1 :] = log_pmf[: r - centre][::-1]  # symmetric: pmf(i) = pmf(r - i)
    pmf = np.exp(log_pmf)
    return np.cumsum(pmf[: centre + 1]) / pmf.sum()


def _point_variances(logs: list[np.ndarray]) -> tuple[np.ndarray, float] | None:
    """Variance of each point's median log value and its degrees of freedom; None: no reps."""
    counts = np.array([len(v) for v in logs])
    if counts.max() < 2:
        return None
    own = np.array([_median_se(v) ** 2 if len(v) > 1 else np.nan for v in logs])
    # A point varies at least as much as a typical point (five repetitions can agree by
    # luck), and more when its own spread says so -- discounted by half, as five
    # repetitions can also disagree by luck.  (Measured: all-typical weights raise false
    # breaks on noise that shrinks with size to 1.5%; this keeps them at 0.25%.)
    variance = np.fmax(own / 2.0, np.nanmedian(own))  # NaN (one repetition) -> typical
    nu = counts[counts > 1] - 1
    # Half the pooled degrees of freedom: a median of spreads is about half as efficient.
    return np.maximum(variance, _FLOOR**2), max(1.0, 0.5 * float(nu.sum()))


def _positive(reps: list[np.ndarray]) -> bool:
    return all(v.size > 0 and np.all(np.isfinite(v) & (v > 0)) for v in reps)


def _whole_fits(x: np.ndarray, kernels: list[list[np.ndarray]], modeler: Modeler) -> list[Fitted]:
    """The modeler's own one-model fits over all points, batched: the null may use them."""
    if not kernels:
        return []
    medians = np.array([[np.median(v) for v in reps] for reps in kernels])
    rrd = [range_of_relative_deviation(reps) for reps in kernels]
    return modeler.fit(x, medians, np.array([np.nan if r is None else r for r in rrd]))


def _fitted_rss(fit: Fitted, d: _Design, z: np.ndarray, proj: _Projector) -> float:
    """Weighted log-space RSS of a modeler's fit over all points (inf if it is not positive)."""
    with np.errstate(all="ignore"):
        value = fit.constant + sum(
            c * d.x ** float(a) * np.log2(d.x) ** float(b) for c, a, b in fit.terms
        )
        if not np.all(np.isfinite(value) & (value > 0)):
            return math.inf
        return float(proj.fits((z - np.log(value))[None, :])[0][0])


def _test_kernel(d: _Design, reps: list[np.ndarray], whole: Fitted, s: _Settings) -> _Found | None:
    logs = [np.log(v) for v in reps]
    level = s.alpha if max(len(v) for v in logs) > 1 else s.alpha_without_repetitions
    found = _judge(d, logs, whole)
    if found is None or found.p_value >= level:
        return None
    if abs(math.log(found.step)) < math.log(s.min_step) and abs(found.growth_change) < s.min_growth:
        return None
    # One odd point is not a break.  On a side of two points, both must sit at least
    # min_step beyond the other side's level; on a longer side, the evidence must
    # survive dropping any one of its points.
    for side in found.short_sides:
        far = np.abs(side) >= math.log(s.min_step)
        if max(np.sum(far & (side > 0)), np.sum(far & (side < 0))) < 2:
            return None
    return found if _survives(d.x, logs, found.split) else None


def _judge(d: _Design, logs: list[np.ndarray], whole: Fitted) -> _Found | None:
    """The best break of a design (column 0: one model) and its evidence.

    None when nothing can be judged (no repetitions and too few points for a residual).
    """
    z, variance, nu = _medians(logs)
    proj = _Projector.of(d, 1.0 / variance)
    # A side of two points gets its own level but no say in the shape: else the shape
    # bends to make one odd point look like a step shared by both.
    fits = _fit_columns(z, _Projector.of(d, ~d.short / variance), proj, d)
    # The modeler may know shapes the smooth family lacks (n^2 + n).
    rss_one = min(fits.rss[0], _fitted_rss(whole, d, z, proj))
    best = 1 + int(np.argmin(fits.rss[1:]))
    p_value, inflation = _p_values(rss_one, fits.rss[best], len(d.x), nu, len(d.splits) - 1)
    if not np.isfinite(p_value):
        return None
    return _Found(
        split=int(d.splits[best]),
        step=math.exp(fits.step[best]),
        growth_change=float(fits.growth[best]),
        misfit_one=float(rss_one / inflation),
        misfit_two=float(fits.rss[best] / inflation),
        p_value=float(p_value),
        noise=float(math.sqrt(np.median(variance) * inflation)),
        short_sides=_short_sides(d, fits, best),
    )


def _survives(x: np.ndarray, logs: list[np.ndarray], split: int) -> bool:
    """Whether the break stays significant (at 5%) when any one point is dropped.

    Only points of sides of _JACKKNIFE_SIDE or more are dropped.  Without an odd point,
    a break it made is unremarkable.  All drops are fitted at once, a pair of columns each.
    """
    p = len(x)
    drops = [i for i in range(p) if (split if i < split else p - split) >= _JACKKNIFE_SIDE]
    if not drops:
        return True
    present = np.ones((2 * len(drops), p), bool)
    present[np.arange(2 * len(drops)), np.repeat(drops, 2)] = False
    # A side left with two points keeps its growth change: a change of growth that three
    # points showed should still be seen in two.
    d = _Design.of(x, np.tile([p, split], len(drops)), present, line_points=2)
    z, variance, nu = _medians(logs)
    fits = _fit_columns(z, _Projector.of(d, ~d.short / variance), _Projector.of(d, 1 / variance), d)
    if np.isfinite(nu):
        reps = np.array([len(v) for v in logs])[drops]
        nu = np.maximum(1.0, nu - 0.5 * np.maximum(reps - 1, 0))
    p_value, _ = _p_values(fits.rss[0::2], fits.rss[1::2], p - 1, nu, 1)
    return bool(np.all(p_value < _SURVIVAL_LEVEL))


def _medians(logs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, Any]:
    """Median log value per point, its variance, and the noise's degrees of freedom.

    Without repetitions: the floor as the variance and nu = inf (the residual decides).
    """
    z = np.array([np.median(v) for v in logs])
    noise = _point_variances(logs)
    if noise is None:
        return z, np.full(len(z), _FLOOR**2), math.inf
    return z, noise[0], noise[1]


def _p_values(
    rss_one: Any, rss_two: Any, points: int, nu: Any, tried: int
) -> tuple[np.ndarray, np.ndarray]:
    """p-value of "one model suffices" (Bonferroni over ``tried`` breaks), and the inflation.

    If the points scatter around two pieces more than their repetitions vary (99%), the
    break is judged against that scatter instead.  Without repetitions (nu = inf) the
    scatter is the only scale; NaN when there is none to measure.
    """
    rss_one, rss_two = np.asarray(rss_one, float), np.asarray(rss_two, float)
    dof = points - _SHAPE_PARAMETERS
    if dof < 1:
        inflation = np.ones_like(rss_two)
    else:
        inflation = np.where(rss_two > _chi2_upper(dof), rss_two / dof, 1.0)
    nu = np.where(np.isinf(nu), dof if dof >= 1 else np.nan, nu)
    f_stat = np.maximum(0.0, rss_one - rss_two) / 2.0 / inflation
    with np.errstate(invalid="ignore"):
        p_value = np.minimum(1.0, tried * (1.0 + 2.0 * f_stat / nu) ** (-nu / 2.0))
    return p_value, inflation


def _short_sides(d: _Design, fits: _Columns, column: int) -> tuple[np.ndarray, ...]:
    """Log distances of a short side's points from the other side's description."""
    split = int(d.splits[column])
    r, level = fits.residual[column], fits.level[column]
    step, growth = fits.step[column], fits.growth[column]
    upper = level + step + growth * (d.u - (d.u[split - 1] + d.u[split]) / 2.0)
    sides = []
    if split < _JACKKNIFE_SIDE:
        sides.append(r[:split] - upper[:split])
    if len(d.x) - split < _JACKKNIFE_SIDE:
        sides.append(r[split:] - level)
    return tuple(sides)


def _chi2_upper(dof: int) -> float:
    """99th percentile of chi-square with dof degrees of freedom (Wilson-Hilferty)."""
    c = 2.0 / (9.0 * dof)
    return dof * (1.0 - c + 2.326 * math.sqrt(c)) ** 3


@dataclass(frozen=True)
class _Columns:
    rss: np.ndarray  # (C,) best weighted RSS; column 0: one model, column c: split c-1
    step: np.ndarray  # (C,) log level step at the gap's middle
    growth: np.ndarray  # (C,) change of log-log slope above the break
    residual: np.ndarray  # (C, P) log values minus the best smooth shape
    level: np.ndarray  # (C,) the level of those residuals below the break


@dataclass(frozen=True)
class _Projector:
    """Weighted inner products once a level below and a line in ln x above are fitted.

    Per column (C) of a design; arrays of residuals are (..., C, P), or (..., 1, P) when
    every column sees the same residuals (then the sums are matrix products).
    """

    wl: np.ndarray  # (C, P) weights below the break
    wr: np.ndarray  # (C, P) weights above
    wrdu: np.ndarray  # (C, P) weights above times ln x minus the gap's middle; 0: no line
    sw: np.ndarray  # (C,) 1 where nothing is below (a short side left out of a search)
    tw: np.ndarray  # (C,) 1 where nothing is above (column 0)
    tu: np.ndarray  # (C,)
    suu: np.ndarray  # (C,) 1 where there is no line
    above: np.ndarray  # (C,) bool

    @classmethod
    def of(cls, d: _Design, w: np.ndarray) -> _Projector:
        wl, wr = w * d.below * d.present, w * ~d.below * d.present
        above = wr.sum(-1) > 0
        # A growth change needs sides that are not short; else the upper side gets a
        # level step only.
        line = ~d.short.any(-1) & (d.present & ~d.below).any(-1)
        wrdu = wr * d.du * line[:, None]
        tw = np.where(above, wr.sum(-1), 1.0)
        tu = wrdu.sum(-1)
        suu = np.where(line, (wrdu * d.du).sum(-1) - tu * tu / tw, 1.0)
        sw = wl.sum(-1)
        return cls(wl, wr, wrdu, np.where(sw > 0, sw, 1.0), tw, tu, suu, above)

    def _moments(self, f: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return _sum(f, self.wl), _sum(f, self.wr), _sum(f, self.wrdu)

    def inner(self, f: np.ndarray, g: np.ndarray) -> np.ndarray:
        """<f, g> of what the level and the line leave over, per column."""
        (fl, fr, fu), (gl, gr, gu) = self._moments(f), self._moments(g)
        left = _sum(f * g, self.wl) - fl * gl / self.sw
        fu, gu = fu - self.tu * fr / self.tw, gu - self.tu * gr / self.tw
        right = _sum(f * g, self.wr) - fr * gr / self.tw - fu * gu / self.suu
        return left + np.where(self.above, right, 0.0)

    def fits(self, r: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(RSS, log step at the gap's middle, growth change) of residuals r, per column.

        Non-finite residuals (an unusable term) score an infinite RSS.
        """
        bad = ~np.all(np.isfinite(r), -1)
        r = np.where(bad[..., None], 0.0, r)
        rl, rr, ru = self._moments(r)
        growth = (ru - self.tu * rr / self.tw) / self.suu  # 0 without a line: ru = tu = 0
        step = np.where(self.above, (rr - growth * self.tu) / self.tw - rl / self.sw, 0.0)
        rss = np.maximum(self.inner(r, r), 0.0)
        return np.where(bad, np.inf, rss), step, growth


def _sum(f: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Sum over points of m * f per column."""
    if f.shape[-2] == 1:
        return f[..., 0, :] @ m.T
    return np.einsum("...cp,cp->...c", f, m)


def _fit_columns(z: np.ndarray, proj: _Projector, full: _Projector, d: _Design) -> _Columns:
    """Best smooth shape per column: a grid of (a, b, rho), then Gauss-Newton on (a, rho).

    The shape is searched with ``proj``'s weights and judged with ``full``'s.
    """
    nb, na = len(_LOG_EXPONENTS), len(_POWER_GRID)
    t, scale = _terms(
        d.x, np.tile(_POWER_GRID, nb)[:, None], np.repeat(_LOG_EXPONENTS, na)[:, None]
    )
    grid = _RHO_GRID[:, None, None]
    with np.errstate(invalid="ignore"):  # rho = 0 stays -inf
        lam = np.log(10.0) * grid + np.log(scale)  # (G, N, 1): ln(c0 / c1)
    rss = proj.fits(z - _log_shape(lam, t))[0]  # (G, N, C)
    rss = (
        rss.reshape(len(_RHO_GRID), nb, na, -1).transpose(1, 0, 2, 3).reshape(nb, -1, rss.shape[-1])
    )
    g, k = np.divmod(np.argmin(rss, axis=1), na)  # (B, C): best rho and a per log exponent
    b = np.broadcast_to(_LOG_EXPONENTS[:, None], k.shape)
    # Start no lower than c0 = 1e-3 * c1 * T: at c0 = 0 the derivative in c0 vanishes.
    floor = np.log(scale[k + na * np.arange(nb)[:, None], 0]) - 3.0 * np.log(10.0)
    lam0 = np.maximum(lam[g, k + na * np.arange(nb)[:, None], 0], floor)
    a, lam = _gauss_newton(z, proj, d, _POWER_GRID[k], b, lam0)
    residual = z - _log_shape(lam, _terms(d.x, a, b)[0])  # (B, C, P)
    term = np.argmin(proj.fits(residual)[0], axis=0)
    cols = np.arange(len(term))
    rss, step, growth = full.fits(residual[term, cols])
    best = residual[term, cols]
    level = np.einsum("cp,cp->c", best, full.wl) / full.sw
    return _Columns(rss, step, growth, best, level)


def _terms(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x^a log2(x)^b for a, b (N, C|1) -> (N, C|1, P), NaN where unusable; geometric means."""
    with np.errstate(all="ignore"):
        t = x ** a[..., None] * np.log2(x) ** b[..., None]
        usable = np.all(np.isfinite(t) & (t >= 0), -1) & np.any(t > 0, -1)
        t = np.where(usable[..., None], t, np.nan)
        scale = np.exp(np.mean(np.log(np.where(t > 0, t, 1.0)), -1))
    return t, scale


def _log_shape(lam: np.ndarray, t: np.ndarray) -> np.ndarray:
    """ln(e^lam + t) for lam = ln(c0 / c1) (..., C|1) and terms t (..., C|1, P)."""
    with np.errstate(all="ignore"):
        return np.logaddexp(lam[..., None], np.log(t))


def _gauss_newton(
    z: np.ndarray, proj: _Projector, d: _Design, a: np.ndarray, b: np.ndarray, lam: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Levenberg-Marquardt on (a, ln c0/c1) of every (candidate, column); linear parts profiled."""
    rss = proj.fits(z - _log_shape(lam, _terms(d.x, a, b)[0]))[0]
    damping = np.full(a.shape, 1e-3)
    for _ in range(_NEWTON_STEPS):
        shape = _log_shape(lam, _terms(d.x, a, b)[0])
        share = np.exp(lam[..., None] - shape)  # c0's share of the value at each point
        jl, ja, r = share, (1.0 - share) * d.u, z - shape  # d shape / d lam, d shape / d a
        hll, hla, haa = proj.inner(jl, jl), proj.inner(jl, ja), proj.inner(ja, ja)
        gl, ga = proj.inner(jl, r), proj.inner(ja, r)
        hll, haa = hll * (1.0 + damping) + 1e-12, haa * (1.0 + damping) + 1e-12
        det = hll * haa - hla * hla
        with np.errstate(all="ignore"):
            dl, da = (haa * gl - hla * ga) / det, (hll * ga - hla * gl) / det
        new_a = np.clip(a + np.nan_to_num(da), _POWER_GRID[0] - 1.0, _POWER_GRID[-1] + 1.0)
        new_lam = np.clip(lam + np.nan_to_num(dl), _LAM_MIN, -_LAM_MIN)
        new_rss = proj.fits(z - _log_shape(new_lam, _terms(d.x, new_a, b)[0]))[0]
        better = new_rss < rss
        a, lam = np.where(better, new_a, a), np.where(better, new_lam, lam)
        rss = np.where(better, new_rss, rss)
        damping = np.where(better, damping / 4.0, damping * 8.0)
    return a, lam


def _segmentation(
    x: np.ndarray, reps: list[np.ndarray], found: _Found, modeler: Modeler, min_points: int
) -> Segmentation:
    sides = (slice(0, found.split), slice(found.split, len(x)))
    segments = tuple(_segment(x[side], reps[side], modeler, min_points) for side in sides)
    lo, hi = found.split - 1, found.split
    return Segmentation(
        below=float(x[found.split - 1]),
        above=float(x[found.split]),
        step=found.step,
        growth_change=found.growth_change,
        misfit_one=found.misfit_one,
        misfit_two=found.misfit_two,
        p_value=found.p_value,
        noise=found.noise,
        segments=(segments[0], segments[1]),
        across=float(np.median(reps[hi]) / np.median(reps[lo])),
        expected=float((x[hi] / x[lo]) ** segments[0].exponent),
    )


def _segment(x: np.ndarray, reps: list[np.ndarray], modeler: Modeler, min_points: int) -> Segment:
    medians = np.array([np.median(v) for v in reps])
    exponent = float(np.polyfit(np.log(x), np.log(medians), 1)[0])
    model = None
    if len(x) >= min_points:
        rrd = range_of_relative_deviation(reps)
        noise = np.array([np.nan if rrd is None else rrd])
        model = modeler.fit(x, medians[None, :], noise)[0]
    return Segment(float(x[0]), float(x[-1]), len(x), exponent, model)


def _fitted_model(fit: Fitted, parameter: str) -> Model:
    """A Fitted as a pmnf Model, for its formula and Big-O rendering."""
    terms = tuple(Term(c, (Factor(parameter, Fraction(a), Fraction(b)),)) for c, a, b in fit.terms)
    return Model("", "", (parameter,), fit.constant, terms, fit.smape)
