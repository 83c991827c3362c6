"""Every number a check's verdicts need, computed in batches before a sentence is written.

The analysis already holds kernels in batches that share their sizes; the verdicts' own
statistics -- P(a bound is exceeded), the bound test's p-value, P(the class grew), and the
same with each size left out -- are computed here over whole batches too, so ``check``
costs a few milliseconds per kernel whatever the number of kernels (a Score-P profile has
thousands of call paths).
check.py turns the numbers into verdicts and sentences.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from ..modeling.analysis import DECIDING_POINTS, LineEvidence, by_group
from ..modeling.evidence import Evidence, EvidenceSettings
from .bound_test import DRIFT_KERNELS, HELD_OUT_DRAWS, bound_p_values, evidence_p_values
from .evidence import ClassView, compare_runs, probability_outside

__all__ = [
    "BoundNumbers",
    "Comparison",
    "HeldOut",
    "bound_numbers",
    "bound_probabilities",
    "compare_pairs",
    "held_out_bounds",
    "held_out_tests",
]


@dataclass(frozen=True)
class HeldOut:
    """The worst value with one size left out -- the smallest probability, or the largest
    p-value of the bound test -- and that size (nan: none left out)."""

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
    # where the candidate measured sizes the baseline lacks (classes fitted over different
    # ranges differ by themselves) and P(grew) over only the sizes both measured is smaller
    # than over all: that P, which ``regression`` then is
    shared: float | None = None

    @property
    def grew(self) -> bool:
        """The candidate's shown class is above the baseline's."""
        return self.cand_class > self.base_class


class BoundNumbers(NamedTuple):
    """One line against one bound: the posterior and the bound test (bound_test.py)."""

    p: float  # P(the line's class exceeds the bound)
    held_out: HeldOut | None = None  # P with the most telling size left out (p decisive)
    tested: float = math.nan  # the bound test's p-value (NaN: not run)
    held_test: HeldOut | None = None  # the largest p-value with one size left out

    def confident(self, confidence: float) -> bool:
        """The posterior is decisive (it may still hinge on one size)."""
        return self.p >= confidence

    def fails(self, confidence: float, settings: EvidenceSettings) -> bool:
        """Decisive without hinging on one size: by the posterior (still ``held_out`` likely
        with any size left out), or by the test at level 1 - confidence (still under
        ``held_out_level`` with any size left out)."""
        by_posterior = (
            self.confident(confidence)
            and self.held_out is not None
            and self.held_out.probability >= settings.held_out
        )
        by_test = (
            self.tested < 1 - confidence
            and self.held_test is not None
            and self.held_test.probability < settings.held_out_level
        )
        return by_posterior or by_test


def bound_numbers(
    lines: Sequence[LineEvidence],
    admitted: np.ndarray,
    settings: EvidenceSettings,
    confidence: float,
    suggestive: float,
) -> list[BoundNumbers]:
    """The posterior of every line's violation; where it is decisive, the same with each
    size left out; where it is likely but does not fail, the bound test (and its held-out
    p-values where it is significant)."""
    p = bound_probabilities(lines, admitted, settings)
    shown = [le.shown_class for le in lines]
    outside = [i for i in range(len(lines)) if not admitted[i, shown[i]]]
    numbers = [BoundNumbers(float(v)) for v in p]
    sure = [i for i in outside if numbers[i].confident(confidence)]
    for i, h in zip(sure, held_out_bounds([lines[i] for i in sure], admitted[sure])):
        numbers[i] = numbers[i]._replace(held_out=h)
    likely = [
        i for i in outside if p[i] >= suggestive and not numbers[i].fails(confidence, settings)
    ]
    tested = bound_p_values([lines[i] for i in likely], admitted[likely], 1 - confidence)
    for i, t in zip(likely, tested):
        numbers[i] = numbers[i]._replace(tested=float(t))
    significant = [i for i in likely if numbers[i].tested < 1 - confidence]
    held = held_out_tests(
        [lines[i] for i in significant], admitted[significant], settings.held_out_level
    )
    for i, h in zip(significant, held):
        numbers[i] = numbers[i]._replace(held_test=h)
    return numbers


def bound_probabilities(
    lines: Sequence[LineEvidence], admitted: np.ndarray, settings: EvidenceSettings
) -> np.ndarray:
    """P(outside the admitted classes) of every line (L,); admitted (L, C)."""
    if not len(lines):
        return np.zeros(0)
    return probability_outside(ClassView.of(lines, settings), admitted)


def held_out_bounds(lines: Sequence[LineEvidence], admitted: np.ndarray) -> list[HeldOut]:
    """For each line, P(outside) with one size left out, at its worst size; batched per batch."""

    def p_outside(ev: Evidence, members: list[int]) -> np.ndarray:
        return probability_outside(ev, admitted[members])

    return _worst_without_a_size(lines, p_outside, worst=np.less)


def held_out_tests(
    lines: Sequence[LineEvidence], admitted: np.ndarray, level: float = 1.0
) -> list[HeldOut]:
    """For each line, the bound test's largest p-value with one size left out, and that size
    (p-values of ``level`` or more are lower bounds: see ``evidence_p_values``)."""

    def p_value(ev: Evidence, members: list[int]) -> np.ndarray:
        p = evidence_p_values(ev, admitted[members], level, HELD_OUT_DRAWS)
        return np.where(np.isfinite(p), p, 1.0)

    return _worst_without_a_size(lines, p_value, np.greater, DRIFT_KERNELS, one_more=True)


def _worst_without_a_size(
    lines: Sequence[LineEvidence],
    score: Callable[[Evidence, list[int]], np.ndarray],
    worst: Callable[[np.ndarray, np.ndarray], np.ndarray],
    drift_kernels: float = 0.0,
    one_more: bool = False,
) -> list[HeldOut]:
    """The worst ``score`` of each line with one size left out (``worst(a, b)``: a is worse
    than b), and that size; batched.

    Lines shorter than DECIDING_POINTS sizes (``one_more``: than one size more, so that one
    left out keeps DECIDING_POINTS), or in a run whose drift was read off fewer than
    ``drift_kernels`` kernels, get HeldOut(1.0, nan).
    """
    out = [HeldOut(1.0, math.nan)] * len(lines)
    for members in by_group(lines).values():
        first = lines[members[0]]
        if len(first.group.x) < DECIDING_POINTS + one_more or first.drift_kernels < drift_kernels:
            continue
        rows = first.group.rows([lines[i].row for i in members])
        found = np.full(len(members), np.nan)
        where = np.full(len(members), np.nan)
        for x in np.sort(first.group.x):
            value = score(_without(rows, x), members)
            replace = np.isnan(found) | worst(value, found)
            found, where = np.where(replace, value, found), np.where(replace, x, where)
        for j, i in enumerate(members):
            out[i] = HeldOut(float(found[j]), float(where[j]))
    return out


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
    # where the candidate measured sizes the baseline did not, its growth counts only as far
    # as the sizes both measured show it too
    shared = _shared_sizes_pairs(pairs, settings)
    out = [
        Comparison(float(r), float(i), int(b), int(c), None)
        if p is None or p >= r
        else Comparison(p, float(i), int(b), int(c), None, p)
        for r, i, b, c, p in zip(
            result.regression, result.improvement, result.base_class, result.cand_class, shared
        )
    ]
    decisive = [k for k, c in enumerate(out) if c.regression >= confidence and c.grew]
    held = _held_out_pairs([pairs[k] for k in decisive], settings)
    for k, h in zip(decisive, held):
        out[k] = replace(out[k], held_out=h)
    return out


def _shared_sizes_pairs(
    pairs: Sequence[tuple[LineEvidence, LineEvidence]], settings: EvidenceSettings
) -> list[float | None]:
    """P(grew) over only the sizes both runs measured, for pairs whose candidate measured
    sizes the baseline did not (None for the others, and where fewer than DECIDING_POINTS
    sizes are shared); noise and drift kept, batched."""
    out: list[float | None] = [None] * len(pairs)
    for members, cand, _, shared in _pair_batches(pairs):
        if len(shared) == len(cand.group.x) or len(shared) < DECIDING_POINTS:
            continue
        c_rows, b_rows = _pair_rows(pairs, members)
        within = compare_runs(_keeping(b_rows, shared), _keeping(c_rows, shared), settings)
        for j, i in enumerate(members):
            out[i] = float(within.regression[j])
    return out


def _held_out_pairs(
    pairs: Sequence[tuple[LineEvidence, LineEvidence]], settings: EvidenceSettings
) -> list[HeldOut]:
    """P(grew) with one shared size left out of both runs, at the worst size; batched."""
    out: list[HeldOut] = [HeldOut(1.0, math.nan)] * len(pairs)
    for members, cand, base, shared in _pair_batches(pairs):
        if min(len(cand.group.x), len(base.group.x)) < DECIDING_POINTS or not len(shared):
            continue
        c_rows, b_rows = _pair_rows(pairs, members)
        worst = np.full(len(members), np.inf)
        where = np.full(len(members), np.nan)
        for x in shared:
            p = compare_runs(_without(b_rows, x), _without(c_rows, x), settings).regression
            better = p < worst
            worst, where = np.where(better, p, worst), np.where(better, x, where)
        for j, i in enumerate(members):
            out[i] = HeldOut(float(worst[j]), float(where[j]))
    return out


def _pair_batches(
    pairs: Sequence[tuple[LineEvidence, LineEvidence]],
) -> Iterator[tuple[list[int], LineEvidence, LineEvidence, np.ndarray]]:
    """The pairs grouped by their two batches, first seen first: (the pairs' indices, the
    first pair's candidate and baseline lines, the sizes both batches measured)."""
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i, (c, b) in enumerate(pairs):
        groups[id(c.group), id(b.group)].append(i)
    for members in groups.values():
        cand, base = pairs[members[0]]
        yield members, cand, base, np.intersect1d(cand.group.x, base.group.x)


def _pair_rows(
    pairs: Sequence[tuple[LineEvidence, LineEvidence]], members: list[int]
) -> tuple[Evidence, Evidence]:
    """The candidates' and the baselines' evidence of these pairs (of one pair batch)."""
    cand, base = pairs[members[0]]
    return (
        cand.group.rows([pairs[i][0].row for i in members]),
        base.group.rows([pairs[i][1].row for i in members]),
    )


def _without(ev: Evidence, x: float) -> Evidence:
    """The same kernels' evidence without the size x (noise, drift and settings kept)."""
    return _keeping(ev, ev.x[ev.x != x])


def _keeping(ev: Evidence, sizes: np.ndarray) -> Evidence:
    """The same kernels' evidence at only these of its sizes (noise, drift, settings kept)."""
    return ev.at_sizes(np.isin(ev.x, sizes))
