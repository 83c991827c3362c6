"""One analysis per kernel: the evidence, the model and the class every view reads.

Kernels are analysed in batches: every line of points (one parameter varying, the others
fixed) that shares its sizes with others is one row of one ``Evidence``.  A
single-parameter kernel's model *is* its evidence's most likely hypothesis (of its most
likely class), so the class in the table, the probabilities in the JSON and the classes in
a verdict's reasons cannot disagree.  A multi-parameter kernel gets its model from the
multi-parameter modeler and one line of evidence per parameter for the gate.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..measurements import Kernel
from .evidence import (
    CLASSES,
    Evidence,
    EvidenceSettings,
    class_evidence,
    drift_excess,
    pad_values,
    point_values,
    point_variance,
    pooled_drift,
    pooled_noise,
    repetition_stats,
)
from .growth import beyond_polynomial, falling
from .lines import Line, kernel_line
from .result import CONSTANT_ORDER, Fitted

__all__ = [
    "DECIDING_POINTS",
    "LineEvidence",
    "by_group",
    "MIN_LINE_POINTS",
    "fits_of",
    "line_evidence",
    "kernel_lines",
]

MIN_LINE_POINTS = 2  # a line this short is modelled; below 5 points the class shown is a quantile
DECIDING_POINTS = 5  # ... but the gate decides (fails) only on lines of this many sizes


@dataclass(frozen=True)
class LineEvidence:
    """One line of one kernel and its row of a batch's evidence."""

    line: Line
    group: Evidence
    row: int
    drift_kernels: float = 0.0  # kernels the run's drift was read off (inf: set explicitly)
    shown: int | None = None  # the class the kernel's model shows in this parameter, where
    # it is not the line's own likeliest: a model of several parameters fits every point

    @property
    def point_error(self) -> float | None:
        """The relative error of one measured point, where repetitions measured it (None:
        without them the error is the fit's own, which cannot weigh a departure from it)."""
        noise = float(self.group.noise[self.row])
        if not (math.isfinite(noise) and noise > 0):
            return None
        return float(self.group.sigma[self.row])

    @property
    def shown_class(self) -> int:
        """The class a person reads for this line (an index into the evidence's classes)."""
        return int(self.group.shown_class[self.row]) if self.shown is None else self.shown

    @functools.cached_property
    def evidence(self) -> Evidence:
        """This line's evidence alone (K = 1)."""
        return self.group.rows([self.row])

    @property
    def parameter(self) -> str:
        return self.line.parameter


def by_group(lines: Sequence[LineEvidence]) -> dict[int, list[int]]:
    """The indices of ``lines`` by the batch (``group``) their evidence is a row of."""
    groups: dict[int, list[int]] = defaultdict(list)
    for i, le in enumerate(lines):
        groups[id(le.group)].append(i)
    return groups


def kernel_lines(kernel: Kernel, parameters: tuple[str, ...]) -> list[Line]:
    """The longest line along each parameter with at least MIN_LINE_POINTS points."""
    out = []
    for parameter in parameters:
        line = kernel_line(kernel, parameters, parameter)
        if line is not None and len(line.x) >= MIN_LINE_POINTS:
            out.append(line)
    return out


@dataclass(frozen=True)
class _Batch:
    """Lines that share their sizes, stacked: one class_evidence call."""

    x: np.ndarray  # (P,)
    members: list[int]  # each row's index in the caller's lines
    y: np.ndarray  # (K, P) point values
    noise: np.ndarray  # (K,) each row's own repetition noise
    reps: np.ndarray
    dof: np.ndarray  # (K,) degrees of freedom of that noise
    values: np.ndarray  # (K, P, R) the repetitions, NaN-padded


def _batches(lines: Sequence[Line], s: EvidenceSettings) -> list[_Batch]:
    """The lines grouped by their sizes, in first-seen order."""
    groups: dict[tuple[float, ...], list[int]] = defaultdict(list)
    for i, line in enumerate(lines):
        groups[line.x].append(i)
    out = []
    for xs, members in groups.items():
        width = max(len(v) for i in members for v in lines[i].values)
        values = np.stack([pad_values(lines[i].values, width) for i in members])
        noise, reps = repetition_stats(values)
        y = point_values(values, noise, s.clip)
        dof = (np.isfinite(values).sum(-1) - 1).clip(min=0).sum(-1)
        out.append(_Batch(np.array(xs), members, y, noise, reps, dof, values))
    return out


def _pooled_noises(batches: Sequence[_Batch]) -> list[np.ndarray]:
    """Each batch's noise shrunk toward the whole run's (pooled across every batch)."""
    if not batches:
        return []
    shrunk = pooled_noise(
        np.concatenate([b.noise for b in batches]), np.concatenate([b.dof for b in batches])
    )
    return np.split(shrunk, np.cumsum([len(b.members) for b in batches]))[: len(batches)]


def line_evidence(
    lines: Sequence[Line], settings: EvidenceSettings | None = None
) -> list[LineEvidence]:
    """Evidence for every line, batched by shared sizes (same order as ``lines``)."""
    s = settings or EvidenceSettings()
    batches = _batches(lines, s)
    noises = _pooled_noises(batches)
    variances = [point_variance(b.values, n) for b, n in zip(batches, noises)]
    # The run's drift is read off the kernels the classes can describe: a falling kernel
    # (strong scaling) misfits every class, and a run of them would pass its misfit on to all.
    excess = np.concatenate(
        [
            np.where(_described(b, n), drift_excess(b.x, b.y, n, b.reps, v), np.nan)
            for b, n, v in zip(batches, noises, variances)
        ]
        or [np.empty(0)]
    )
    read_off = float(np.isfinite(excess).sum()) if s.drift is None else math.inf
    out: list[LineEvidence | None] = [None] * len(lines)
    for b, noise, variance in zip(batches, noises, variances):
        drift = pooled_drift(excess, noise, s)
        ev = class_evidence(b.x, b.y, noise, b.reps, s, variance, drift)
        for row, i in enumerate(b.members):
            out[i] = LineEvidence(lines[i], ev, row, read_off)
    return [le for le in out if le is not None]


_OUTGROWN = 0.9  # P(a line grows faster than any class) that keeps it off the run's drift


def _described(b: _Batch, noise: np.ndarray) -> np.ndarray:
    """Which rows the classes can describe (K,): not falling at every step (strong
    scaling), not growing faster than any class at their top sizes by the repetitions'
    own error (an exponential: a backtracking regex beside naive fib at n = 10..18 lent
    fib its misfit as the run's drift, and fib's x45 rise read "O(1), misfit", exit 0)."""
    error = np.nan_to_num(noise / np.sqrt(np.maximum(b.reps, 1)), nan=0.0)[:, None]
    outgrown = beyond_polynomial(b.x, b.y, error, CLASSES).probability >= _OUTGROWN
    return ~falling(b.x, b.y) & ~outgrown


def fits_of(ev: Evidence, hypotheses: np.ndarray) -> list[Fitted]:
    """The fits of one hypothesis per kernel, as modelers return them."""
    out = []
    for k, h in enumerate(hypotheses):
        terms = tuple((c, a, b) for c, a, b in ev.terms(k, int(h)))
        pred = ev.fitted(k, int(h))
        y = ev.y[k]
        smape = float(np.mean(np.abs(y - pred) / ((np.abs(y) + np.abs(pred)) / 2)) * 100)
        out.append(Fitted(float(ev.coef[k, h, 0]), terms, smape))
    return out


def lead(fit: Fitted) -> tuple[Fraction, Fraction]:
    """Highest (alpha, beta) among a fit's growing terms; (0, 0) for a constant."""
    growing = [(a, b) for c, a, b in fit.terms if c > 0 and (a, b) > CONSTANT_ORDER]
    return max(growing, default=CONSTANT_ORDER)


@dataclass(frozen=True)
class EvidenceModeler:
    """The default modeler: each kernel's most likely hypothesis under the evidence.

    ``fit`` sees only point values (no repetitions), so the noise is left to the profile
    likelihood; ``analyze`` feeds the evidence the repetitions instead.
    """

    settings: EvidenceSettings = EvidenceSettings()
    name: str = "default"

    def fit(self, x: np.ndarray, y: np.ndarray, noise: np.ndarray | None = None) -> list[Fitted]:
        """Model every row of y (K, P) measured at x (P,)."""
        y = np.asarray(y, dtype=float)
        k = len(y)
        ev = class_evidence(x, y, np.full(k, np.nan), np.ones(k), self.settings)
        return fits_of(ev, ev.best)
