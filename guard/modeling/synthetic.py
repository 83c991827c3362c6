"""Seeded synthetic single-term PMNF data: the training distribution of seed 004's DNN.

A sample is ``c0 + c1 * x^alpha * log2(x)^beta`` with (alpha, beta) one of the 43 classes
of the exponent set E (seed 004, Eq. 2), c0 and c1 uniform in [0.001, 1000], measured at
5..11 points of one of several kinds of series, each repetition multiplied by
``1 + U[-n/2, n/2]`` for a noise level n uniform in [0, 1] (n = 1.0 is "100 %"), and up to
five repetitions reduced to their median.  The same generator, given a fixed x series and
a noise range, makes the task-specific data of domain adaptation.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F

import numpy as np

__all__ = [
    "CLASSES",
    "MAX_POINTS",
    "SERIES_KINDS",
    "Synthetic",
    "class_alpha",
    "class_beta",
    "clean_values",
    "generate",
    "sample_series",
]

# Seed 004's Eq. 2 in the order of its DNN's 43 output classes.
_EQ2: list[tuple[int | str, int | str]] = [
    (0, 0), (0, 1), (0, 2), ("1/4", 0), ("1/3", 0), ("1/4", 1), ("1/3", 1), ("1/4", 2),
    ("1/3", 2), ("1/2", 0), ("1/2", 1), ("1/2", 2), ("2/3", 0), ("3/4", 0), ("2/3", 1),
    ("3/4", 1), ("4/5", 0), ("2/3", 2), ("3/4", 2), (1, 0), (1, 1), (1, 2), ("5/4", 0),
    ("5/4", 1), ("4/3", 0), ("4/3", 1), ("3/2", 0), ("3/2", 1), ("3/2", 2), ("5/3", 0),
    ("7/4", 0), (2, 0), (2, 1), (2, 2), ("9/4", 0), ("7/3", 0), ("5/2", 0), ("5/2", 1),
    ("5/2", 2), ("8/3", 0), ("11/4", 0), (3, 0), (3, 1),
]  # fmt: skip
CLASSES: tuple[tuple[F, F], ...] = tuple((F(a), F(b)) for a, b in _EQ2)

MAX_POINTS = 11
COEFFICIENTS = (0.001, 1000.0)
SERIES_KINDS = ("doubling", "linear", "small-linear", "exponential", "irregular")


def class_alpha() -> np.ndarray:
    """Float alpha of every class (43,)."""
    return np.array([float(a) for a, _ in CLASSES])


def class_beta() -> np.ndarray:
    """Float beta of every class (43,)."""
    return np.array([float(b) for _, b in CLASSES])


@dataclass(frozen=True)
class Synthetic:
    """N samples; x and y are (N, 11), padded with NaN after each sample's points."""

    x: np.ndarray
    y: np.ndarray  # medians of the repetitions
    label: np.ndarray  # (N,) index into CLASSES
    noise: np.ndarray  # (N,) noise level n (fraction; 1.0 = +-50 %)
    rrd: np.ndarray  # (N,) range of relative deviation of the repetitions; NaN for one
    c0: np.ndarray
    c1: np.ndarray

    @property
    def points(self) -> np.ndarray:
        """Number of points of each sample (N,)."""
        return np.isfinite(self.x).sum(-1)


def clean_values(x: np.ndarray, label: np.ndarray, c0: np.ndarray, c1: np.ndarray) -> np.ndarray:
    """Noise-free ``c0 + c1 * x^alpha * log2(x)^beta`` for x (N, P) and per-sample classes."""
    alpha = class_alpha()[label][:, None]
    beta = class_beta()[label][:, None]
    with np.errstate(invalid="ignore"):
        term = x**alpha * np.where(beta == 0, 1.0, np.log2(x) ** beta)
    return np.where(np.isnan(x), np.nan, c0[:, None] + c1[:, None] * term)  # NaN**0 is 1


def sample_series(rng: np.random.Generator, count: int, points: tuple[int, int]) -> np.ndarray:
    """``count`` sorted x series (count, 11), NaN-padded, of random kind and length."""
    n_points = rng.integers(points[0], points[1] + 1, size=count)
    kind = rng.integers(len(SERIES_KINDS), size=count)
    i = np.arange(MAX_POINTS)[None, :].astype(float)
    u = rng.random((count, 4))  # per-sample draws shared by the kinds below
    x = np.empty((count, MAX_POINTS))
    # doubling: base * 2^i, base 1..128
    base = 2.0 ** np.floor(u[:, 0] * 8)
    x = np.where((kind == 0)[:, None], base[:, None] * 2.0**i, x)
    # linear: (m + i) * step, with steps of typical parameter sweeps
    steps = np.array([1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, 128, 250, 500, 1000])
    step = steps[np.floor(u[:, 1] * len(steps)).astype(int)]
    start = 1 + np.floor(u[:, 2] * 4)
    x = np.where((kind == 1)[:, None], (start[:, None] + i) * step[:, None], x)
    # small linear: start + i * step, step 1 or 2, start 1..8
    small_step = 1 + np.floor(u[:, 1] * 2)
    small_start = 1 + np.floor(u[:, 2] * 8)
    x = np.where((kind == 2)[:, None], small_start[:, None] + i * small_step[:, None], x)
    # exponential: b^(s+i) for b in 3..16, or cubic (s+i)^3 (Kripke's process counts)
    bases = np.array([3.0, 4.0, 8.0, 10.0, 16.0])
    b = bases[np.floor(u[:, 1] * len(bases)).astype(int)]
    s = 1 + np.floor(u[:, 2] * 2)
    power = b[:, None] ** (s[:, None] + i)
    cubic = (s[:, None] + i) ** 3
    x = np.where((kind == 3)[:, None], np.where((u[:, 3] < 0.5)[:, None], power, cubic), x)
    # irregular: sorted random points between lo and lo * 2^(3..12), log- or linearly uniform
    lo = 2.0 ** (u[:, 0] * 8)
    hi = lo * 2.0 ** (3 + u[:, 1] * 9)
    r = np.sort(rng.random((count, MAX_POINTS)), axis=1)
    r = (r - r[:, :1]) / np.maximum(r[:, -1:] - r[:, :1], 1e-12)  # end points at lo and hi
    log_uniform = lo[:, None] * (hi / lo)[:, None] ** r
    lin_uniform = lo[:, None] + (hi - lo)[:, None] * r
    irregular = np.where((u[:, 3] < 0.5)[:, None], log_uniform, lin_uniform)
    x = np.where((kind == 4)[:, None], irregular, x)
    # a shorter irregular series keeps its end points: take the last n of the sorted values
    x = _keep_points(x, n_points, keep_end=(kind == 4))
    return x


def _keep_points(x: np.ndarray, n_points: np.ndarray, keep_end: np.ndarray) -> np.ndarray:
    """The first n points of regular series; for irregular ones spread the n over the 11."""
    cols = np.arange(MAX_POINTS)[None, :]
    out = np.where(cols < n_points[:, None], x, np.nan)
    # irregular: pick n evenly spaced of the 11 sorted values, first and last included
    pick = np.round(cols * (MAX_POINTS - 1) / np.maximum(n_points[:, None] - 1, 1)).astype(int)
    pick = np.minimum(pick, MAX_POINTS - 1)
    spread = np.take_along_axis(x, pick, axis=1)
    spread = np.where(cols < n_points[:, None], spread, np.nan)
    return np.where(keep_end[:, None], spread, out)


def generate(
    rng: np.random.Generator,
    count: int,
    *,
    x: np.ndarray | None = None,
    points: tuple[int, int] = (5, MAX_POINTS),
    noise: tuple[float, float] = (0.0, 1.0),
    repetitions: tuple[int, int] = (1, 5),
    labels: np.ndarray | None = None,
) -> Synthetic:
    """``count`` samples; a fixed series ``x`` (P,) is used for all when given.

    ``noise`` and ``repetitions`` are inclusive ranges drawn per sample; ``labels``
    fixes the classes (else uniform over the 43).
    """
    if labels is None:
        labels = rng.integers(len(CLASSES), size=count)
    labels = np.asarray(labels)
    c0 = rng.uniform(*COEFFICIENTS, size=count)
    c1 = rng.uniform(*COEFFICIENTS, size=count)
    if x is None:
        xs = sample_series(rng, count, points)
    else:
        xs = np.full((count, MAX_POINTS), np.nan)
        xs[:, : len(x)] = np.asarray(x, dtype=float)
    level = rng.uniform(noise[0], noise[1], size=count)
    reps = rng.integers(repetitions[0], repetitions[1] + 1, size=count)
    factors = 1.0 + level[:, None, None] * (rng.random((count, MAX_POINTS, 5)) - 0.5)
    values = clean_values(xs, labels, c0, c1)[..., None] * factors
    used = np.arange(5)[None, None, :] < reps[:, None, None]
    values = np.where(used, values, np.nan)
    return Synthetic(
        x=xs,
        y=_masked_median(values, reps),
        label=labels,
        noise=level,
        rrd=_masked_rrd(values, reps),
        c0=c0,
        c1=c1,
    )


def _masked_median(values: np.ndarray, reps: np.ndarray) -> np.ndarray:
    """Median of the first ``reps`` repetitions (NaN-padded last axis)."""
    ordered = np.sort(values, axis=-1)  # NaN sorts last
    lo = ((reps - 1) // 2)[:, None, None]
    hi = (reps // 2)[:, None, None]
    a = np.take_along_axis(ordered, np.broadcast_to(lo, values.shape[:2] + (1,)), -1)
    b = np.take_along_axis(ordered, np.broadcast_to(hi, values.shape[:2] + (1,)), -1)
    return ((a + b) / 2)[..., 0]


def _masked_rrd(values: np.ndarray, reps: np.ndarray) -> np.ndarray:
    """Seed 004's rrd over all points and repetitions; NaN for single measurements."""
    finite = np.isfinite(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, values, 0.0).sum(-1, keepdims=True) / finite.sum(-1, keepdims=True)
        dev = (values - mean) / mean
    flat = dev.reshape(len(values), -1)
    finite = np.isfinite(flat)
    top = np.where(finite, flat, -np.inf).max(-1)
    bottom = np.where(finite, flat, np.inf).min(-1)
    return np.where(reps >= 2, top - bottom, np.nan)
