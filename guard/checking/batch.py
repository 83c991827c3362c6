"""Every number a check's verdicts need, computed in batches before a sentence is written.

The analysis already holds kernels in batches that share their sizes; the verdicts' own
statistics -- P(a bound is exceeded), P(the class grew), and the same with each size left
out -- are computed here over whole batches too, so ``check`` costs a few milliseconds per
kernel whatever the number of kernels (a Score-P profile has thousands of call paths).
check.py turns the numbers into verdicts and sentences.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..modeling.analysis import DECIDING_POINTS, LineEvidence
from ..modeling.evidence import Evidence, EvidenceSettings, class_evidence
from .evidence import ClassView, compare_runs, probability_outside

__all__ = ["Comparison", "HeldOut", "bound_probabilities", "compare_pairs", "held_out_bounds"]


@dataclass(frozen=True)
class HeldOut:
    """The smallest probability with one size left out, and that size (nan: none left out)."""

    probability: float
    size: float


@dataclass(frozen=True)
class Comparison:
    """One line against the baseline's: P(grew), P(improved), each side's shown class."""

    regression: float
    improvement: float
    base_class: int
    cand_class: int
    held_out: HeldOut | None = None  # only for a decisive growth the shown classes agree on

    @property
    def grew(self) -> bool:
        """The candidate's shown class is above the baseline's."""
        return self.cand_class > self.base_class


def bound_probabilities(
    lines: Sequence[LineEvidence], admitted: np.ndarray, settings: EvidenceSettings
) -> np.ndarray:
    """P(outside the admitted classes) of every line (L,); admitted (L, C)."""
    if not len(lines):
        return np.zeros(0)
    return probability_outside(ClassView.of(lines, settings), admitted)


def held_out_bounds(lines: Sequence[LineEvidence], admitted: np.ndarray) -> list[HeldOut]:
    """For each line, P(outside) with one size left out, at its worst size; batched per batch."""
    out: list[HeldOut | None] = [None] * len(lines)
    for members in _by_group(lines).values():
        first = lines[members[0]]
        rows = [lines[i].row for i in members]
        if len(first.group.x) < DECIDING_POINTS:
            for i in members:
                out[i] = HeldOut(1.0, math.nan)
            continue
        worst = np.full(len(members), np.inf)
        where = np.full(len(members), np.nan)
        for x in np.sort(first.group.x):
            ev = _without(first.group.rows(rows), x)
            p = probability_outside(ev, admitted[members])
            better = p < worst
            worst, where = np.where(better, p, worst), np.where(better, x, where)
        for j, i in enumerate(members):
            out[i] = HeldOut(float(worst[j]), float(where[j]))
    return [h if h is not None else HeldOut(1.0, math.nan) for h in out]


def compare_pairs(
    pairs: Sequence[tuple[LineEvidence, LineEvidence]],
    settings: EvidenceSettings,
    confidence: float,
) -> list[Comparison]:
    """Every (candidate line, baseline line) pair; decisive growths get their held-out P."""
    if not pairs:
        return []
    cands = [c for c, _ in pairs]
    bases = [b for _, b in pairs]
    result = compare_runs(ClassView.of(bases, settings), ClassView.of(cands, settings), settings)
    out = [
        Comparison(float(r), float(i), int(b), int(c))
        for r, i, b, c in zip(
            result.regression, result.improvement, result.base_class, result.cand_class
        )
    ]
    decisive = [k for k, c in enumerate(out) if c.regression >= confidence and c.grew]
    held = _held_out_pairs([pairs[k] for k in decisive], settings)
    for k, h in zip(decisive, held):
        c = out[k]
        out[k] = Comparison(c.regression, c.improvement, c.base_class, c.cand_class, h)
    return out


def _held_out_pairs(
    pairs: Sequence[tuple[LineEvidence, LineEvidence]], settings: EvidenceSettings
) -> list[HeldOut]:
    """P(grew) with one shared size left out of both runs, at the worst size; batched."""
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i, (c, b) in enumerate(pairs):
        groups[id(c.group), id(b.group)].append(i)
    out: list[HeldOut] = [HeldOut(1.0, math.nan)] * len(pairs)
    for members in groups.values():
        cand, base = pairs[members[0]]
        shared = np.intersect1d(cand.group.x, base.group.x)
        if min(len(cand.group.x), len(base.group.x)) < DECIDING_POINTS or not len(shared):
            continue
        c_rows = cand.group.rows([pairs[i][0].row for i in members])
        b_rows = base.group.rows([pairs[i][1].row for i in members])
        worst = np.full(len(members), np.inf)
        where = np.full(len(members), np.nan)
        for x in shared:
            p = compare_runs(_without(b_rows, x), _without(c_rows, x), settings).regression
            better = p < worst
            worst, where = np.where(better, p, worst), np.where(better, x, where)
        for j, i in enumerate(members):
            out[i] = HeldOut(float(worst[j]), float(where[j]))
    return out


def _by_group(lines: Sequence[LineEvidence]) -> dict[int, list[int]]:
    groups: dict[int, list[int]] = defaultdict(list)
    for i, le in enumerate(lines):
        groups[id(le.group)].append(i)
    return groups


def _without(ev: Evidence, x: float) -> Evidence:
    """The same kernels' evidence without the size x (noise, drift and settings kept)."""
    keep = ev.x != x
    return class_evidence(
        ev.x[keep],
        ev.y[:, keep],
        ev.noise,
        ev.repetitions,
        ev.settings,
        ev.variance[:, keep],
        ev.drift,
    )
