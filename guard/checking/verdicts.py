"""Verdicts per kernel and metric, and the ``verdicts@1`` document."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..defaults import CONFIDENCE
from ..modeling.pmnf import Model

__all__ = ["FAIL_ON", "SCHEMA", "CheckReport", "Reason", "Verdict", "VerdictName", "exit_code"]

FAIL_ON = ("expectation", "regression", "any", "never")

SCHEMA = "perfguard/verdicts@1"
VerdictName = Literal["pass", "fail", "inconclusive", "error"]


@dataclass(frozen=True)
class Reason:
    """Why a verdict is what it is, in a sentence a person can act on.

    ``kind``: expectation, max_class, regression, slowdown, improvement, change,
    inconclusive, error.
    """

    kind: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "message": self.message}


SAME_GROWTH = ", as the baseline did"  # ends a regression reason that finds no change


@dataclass(frozen=True)
class Verdict:
    """One kernel and metric: pass, fail, inconclusive or error, with the evidence."""

    kernel: str
    metric: str
    verdict: VerdictName
    expectation: str | None = None
    violates_expectation: bool = False
    regression: bool = False
    reasons: tuple[Reason, ...] = ()
    model: Model | None = None
    baseline_model: Model | None = None
    probabilities: Mapping[str, float] = field(default_factory=dict)
    rank: int | None = None
    predicted: float | None = None
    change: float | None = None

    def to_json(self) -> dict[str, Any]:
        """One ``verdicts@1`` kernel entry (the DESIGN.md fields first, then added ones)."""
        return {
            "kernel": self.kernel,
            "metric": self.metric,
            "verdict": self.verdict,
            "expectation": self.expectation,
            "violates_expectation": self.violates_expectation,
            "regression": self.regression,
            "reasons": [r.to_json() for r in self.reasons],
            "model": None if self.model is None else self.model.to_json(),
            "baseline_model": None
            if self.baseline_model is None
            else self.baseline_model.to_json(),
            "probabilities": {k: round(v, 6) for k, v in self.probabilities.items()},
            "rank": self.rank,
            "predicted_at_target": self.predicted,
            "change_at_target": self.change,
        }


@dataclass(frozen=True)
class CheckReport:
    """Every verdict of one check, and the settings that produced them."""

    verdicts: tuple[Verdict, ...]
    strict: bool = False
    confidence: float = CONFIDENCE
    target: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    not_run: tuple[str, ...] = ()  # benchmarks that failed to execute (run.errors)

    @property
    def status(self) -> VerdictName:
        """fail: a kernel fails (or, strict, is inconclusive); else error (a kernel, or a
        benchmark that did not run: exit 3), inconclusive, pass."""
        names = {v.verdict for v in self.verdicts}
        if "fail" in names or (self.strict and "inconclusive" in names):
            return "fail"
        if self.not_run:
            return "error"
        undecided: tuple[VerdictName, ...] = ("error", "inconclusive")
        for name in undecided:
            if name in names:
                return name
        return "pass"

    def to_json(self) -> dict[str, Any]:
        """The ``perfguard/verdicts@1`` document."""
        doc = {
            "schema": SCHEMA,
            "status": self.status,
            "strict": self.strict,
            "confidence": self.confidence,
            "target": dict(self.target),
            "kernels": [v.to_json() for v in self.verdicts],
            "notes": list(self.notes),
        }
        if self.not_run:  # benchmarks that failed to execute: the status is error, exit 3
            doc["not_run"] = list(self.not_run)
        return doc


def exit_code(report: CheckReport, fail_on: str = "any") -> int:
    """The one exit rule of ``check``, ``ci`` and the pytest plugin.

    1: a verdict of the kind ``fail_on`` names failed (``any`` failure, an exceeded bound
    for ``expectation``, a class regression for ``regression``, none for ``never``); with
    ``strict`` an inconclusive verdict counts as failed too (except for ``never``);
    2: otherwise, a kernel could not be judged (an ``error`` verdict: unusable input);
    0: otherwise.  Nothing but a failed verdict is ever 1.
    """
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")

    def counts(v: Verdict) -> bool:
        if fail_on == "never":
            return False
        if v.verdict == "fail":
            if fail_on == "any":
                return True
            return v.violates_expectation if fail_on == "expectation" else v.regression
        return report.strict and v.verdict == "inconclusive"

    if any(counts(v) for v in report.verdicts):
        return 1
    return 2 if any(v.verdict == "error" for v in report.verdicts) else 0
