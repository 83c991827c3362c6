"""The statistics of verdicts, read off the analysis's evidence: bounds, held-out sizes, runs.

* ``probability_outside``: the posterior mass of the classes a bound does not admit.
* ``leave_one_out``: the same kernels' evidence with each size left out in turn.  A single
  run judged against a declared bound has no anchor, and one high point value (a size whose
  drift or outlier repetitions the noise estimate does not cover) is enough for a steep
  class to explain it; so a bound is failed only when its violation stays at least
  ``held_out`` likely with any one size left out (see check.py).
* ``compare_runs``: the joint posterior over (baseline class, candidate class).  The two
  runs' posteriors are independent but for one piece of prior knowledge: a change that keeps
  the class rarely changes the kernel's cost relative to its fixed overhead by much, so for
  the *same* class in both runs the log term/overhead ratios at the smallest size differ by
  about ``coupling`` at most -- with a tail of ``coupling_tail`` for changes that do (an
  optimisation of the constant factor).  Pairs of different classes are not coupled: a class
  change may move the crossover with the overhead anywhere (new code as fast at small sizes
  and slower only at the top).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..modeling.analysis import LineEvidence
from ..modeling.evidence import (
    CLASSES,
    Evidence,
    EvidenceSettings,
)

_SHARE_ERROR = 1.2  # sd of a log share per unit of 1 / (growth in per-point errors)

_CHUNK = 64  # kernel pairs per joint posterior: its (K, C, C) temporaries stay ~2 MB each

__all__ = [
    "CLASSES",
    "ClassPosterior",
    "ClassView",
    "RunComparison",
    "compare_runs",
    "leave_one_out",
    "probability_outside",
]


class ClassPosterior(Protocol):
    """What verdicts read of an analysis: class-level arrays (K, C) and the settings."""

    # Read-only members, so frozen dataclasses (ClassView, Evidence) satisfy the protocol.
    @property
    def kernels(self) -> int: ...
    @property
    def class_log_weight(self) -> np.ndarray: ...
    @property
    def class_probabilities(self) -> np.ndarray: ...
    @property
    def class_prior(self) -> np.ndarray: ...
    @property
    def class_shares(self) -> tuple[np.ndarray, np.ndarray]: ...
    @property
    def settings(self) -> EvidenceSettings: ...
    @property
    def shown_class(self) -> np.ndarray: ...


@dataclass(frozen=True)
class ClassView:
    """The class-level posterior of lines from any batches, stacked (K, C) each, and the
    class each line's analysis shows (K,)."""

    class_log_weight: np.ndarray
    class_probabilities: np.ndarray
    class_prior: np.ndarray
    class_shares: tuple[np.ndarray, np.ndarray]
    settings: EvidenceSettings
    shown_class: np.ndarray

    @property
    def kernels(self) -> int:
        return len(self.class_log_weight)

    @classmethod
    def of(cls, lines: Sequence[LineEvidence], settings: EvidenceSettings) -> ClassView:
        """Gather the lines' rows from their batches' (cached) class arrays."""

        def gather(name: str) -> np.ndarray:
            return np.array([getattr(le.group, name)[le.row] for le in lines]).reshape(
                len(lines), len(CLASSES)
            )

        shares = np.array([le.group.class_shares[0][le.row] for le in lines])
        growth = np.array([le.group.class_shares[1][le.row] for le in lines])
        return cls(
            gather("class_log_weight"),
            gather("class_probabilities"),
            gather("class_prior"),
            (shares.reshape(len(lines), -1), growth.reshape(len(lines), -1)),
            settings,
            np.array([le.shown_class for le in lines], dtype=int),
        )


def probability_outside(evidence: ClassPosterior, admitted: np.ndarray) -> np.ndarray:
    """Posterior probability (K,) that the class is not admitted; admitted (C,) or (K, C).

    The class prior puts more mass above a low bound the more classes there are above it;
    a declared bound is itself prior knowledge, so the prior odds of a violation are reset
    to ``violation_prior`` (the measurements' likelihood ratio is kept).
    """
    admitted = np.broadcast_to(np.asarray(admitted, dtype=bool), (evidence.kernels, len(CLASSES)))
    posterior = np.where(admitted, 0.0, evidence.class_probabilities).sum(axis=1)
    prior = np.where(admitted, 0.0, evidence.class_prior).sum(axis=1)
    return rebalance(posterior, prior, evidence.settings.violation_prior)


def rebalance(posterior: np.ndarray, prior: np.ndarray, target: float) -> np.ndarray:
    """The posterior of an event whose prior probability is ``target`` instead of ``prior``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        odds = posterior / (1 - posterior) * ((1 - prior) / prior) * (target / (1 - target))
        out = odds / (1 + odds)
    out = np.where(posterior >= 1, 1.0, out)
    return np.where((posterior <= 0) | (prior <= 0), 0.0, out)


def leave_one_out(evidence: Evidence) -> list[Evidence]:
    """The same kernels' evidence with each point left out in turn (P entries, in x order).

    Point values and the repetition noise stay those of the whole run; only the fit loses
    the point.
    """
    every = np.arange(len(evidence.x))
    return [evidence.at_sizes(every != i) for i in np.argsort(evidence.x, kind="stable")]


@dataclass(frozen=True)
class RunComparison:
    """P(candidate's class above / below the baseline's) and each side's likeliest class (K,)."""

    regression: np.ndarray
    improvement: np.ndarray
    base_class: np.ndarray  # index into CLASSES
    cand_class: np.ndarray


def _share_penalty(base: ClassPosterior, cand: ClassPosterior, s: EvidenceSettings) -> np.ndarray:
    """log p(share gap | the class pair keeps the kernel) for every class pair (K, C, C).

    A kernel that keeps its class keeps its cost relative to the fixed overhead: the log
    shares at the smallest size differ by about ``coupling``, with a small chance
    (1 - ``kept_share``) of any difference (an optimisation of the constant factor).  A
    constant has no share to keep: a pair with one is not penalised.
    """
    (sb, gb), (sc, gc) = base.class_shares, cand.class_shares  # (K, C), NaN: constant
    gap = sc[:, None, :] - sb[:, :, None]
    # a share is only known as well as its term is seen: about 1.2 / growth (in errors)
    with np.errstate(invalid="ignore", divide="ignore"):
        width2 = (
            s.coupling**2
            + (_SHARE_ERROR / gb[:, :, None]) ** 2
            + (_SHARE_ERROR / gc[:, None, :]) ** 2
        )
        kept = np.exp(-(gap**2) / (2 * width2))
    kept = np.nan_to_num(kept, nan=1.0)
    return np.log(s.kept_share * kept + (1 - s.kept_share))


def _share(joint: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The posterior mass of the masked class pairs (K,)."""
    flat = joint.reshape(len(joint), -1)
    top = flat.max(axis=1)
    w = np.exp(joint - np.where(np.isfinite(top), top, 0.0)[:, None, None])
    total = w.sum(axis=(1, 2))
    return (w * mask).sum(axis=(1, 2)) / np.where(total > 0, total, 1.0)


def compare_runs(
    base: ClassPosterior, cand: ClassPosterior, settings: EvidenceSettings | None = None
) -> RunComparison:
    """Joint posterior over (baseline class, candidate class) pairs, kernels paired by row."""
    s = settings or EvidenceSettings()
    parts = [_compare(_slice(base, i), _slice(cand, i), s) for i in range(0, base.kernels, _CHUNK)]
    return RunComparison(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))


_FIELDS = ("regression", "improvement", "base_class", "cand_class")


def _slice(view: ClassPosterior, start: int) -> ClassView:
    rows = slice(start, start + _CHUNK)
    share, growth = view.class_shares
    return ClassView(
        view.class_log_weight[rows],
        view.class_probabilities[rows],
        view.class_prior[rows],
        (share[rows], growth[rows]),
        view.settings,
        view.shown_class[rows],
    )


def _compare(base: ClassView, cand: ClassView, s: EvidenceSettings) -> RunComparison:
    lb, lc = base.class_log_weight, cand.class_log_weight  # (K, C)
    joint = lb[:, :, None] + lc[:, None, :]
    penalty = _share_penalty(base, cand, s)
    idx = np.arange(len(CLASSES))
    above = idx[None, :] > idx[:, None]  # candidate index > baseline index
    # Each change is weighed against the explanations without it, which must keep the share.
    regression = _share(joint + np.where(above, 0.0, penalty), above)
    improvement = _share(joint + np.where(above.T, 0.0, penalty), above.T)
    prior = base.class_prior[:, :, None] * cand.class_prior[:, None, :]
    regression = rebalance(regression, (prior * above).sum(axis=(1, 2)), s.regression_prior)
    improvement = rebalance(improvement, (prior * above.T).sum(axis=(1, 2)), s.regression_prior)
    return RunComparison(
        regression=regression,
        improvement=improvement,
        base_class=base.shown_class,
        cand_class=cand.shown_class,
    )
