"""Facts about a check that every renderer shows the same way."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .. import numbers
from ..checking.verdicts import SAME_GROWTH, CheckReport, Reason, Verdict, VerdictName
from ..modeling.growth import misfit_model
from ..modeling.pmnf import Model

__all__ = [
    "ORDER",
    "class_text",
    "counts_sentence",
    "decisive_probability",
    "formula_text",
    "reported_class",
    "shown_reasons",
    "standing_reasons",
]

ORDER: tuple[VerdictName, ...] = ("fail", "error", "inconclusive", "pass")
TOOL_NAMES = {"google-benchmark": "Google Benchmark"}


def counts_sentence(report: CheckReport) -> str:
    """``2 fail, 1 inconclusive, 7 pass`` (verdicts in ORDER, zeros left out)."""
    counts = Counter(v.verdict for v in report.verdicts)
    parts = [f"{counts[name]} {name}" for name in ORDER if counts[name]]
    if report.not_run:
        n = len(report.not_run)
        parts.append(f"{n} benchmark{'s' if n > 1 else ''} failed to run")
    return ", ".join(parts) or "no kernels"


def decisive_probability(v: Verdict) -> float | None:
    """The largest probability of a failing finding (violation, max_class, regression)."""
    probs = [v.probabilities.get(k) for k in ("violation", "max_class", "regression")]
    finite = [p for p in probs if p is not None and p == p]
    return max(finite) if finite else None


def shown_reasons(v: Verdict) -> list[str]:
    """Reasons worth a line: everything except the informational change on a pass."""
    return [_line(r) for r in _shown(v)]


def _line(r: Reason) -> str:
    """``kind: message``; the advice of an undecided kernel is its message alone ("to
    decide: ..."), where the verdict beside it already says inconclusive."""
    return r.message if r.kind == "inconclusive" else f"{r.kind}: {r.message}"


def standing_reasons(v: Verdict) -> list[tuple[str, str]]:
    """``shown_reasons`` each with what it stands for: the kernel's verdict, except that in
    a failing kernel a finding of a kind it did not fail on is inconclusive (a regression
    line "... but ... to decide" beside the bound that failed must not read "fail"), and a
    line that only informs (the change, an improvement) is a ``note``."""
    return [(_standing(v, r), _line(r)) for r in _shown(v)]


def _shown(v: Verdict) -> list[Reason]:
    return [r for r in v.reasons if not (v.verdict == "pass" and r.kind == "change")]


def _standing(v: Verdict, r: Reason) -> str:
    if v.verdict != "fail":
        return v.verdict
    if r.kind in ("change", "improvement"):
        return "note"
    if r.kind == "regression" and r.message.endswith(SAME_GROWTH):
        return "note"  # exponential-like in both runs: no change to judge
    if r.kind == "regression" and not v.regression:
        return "inconclusive"
    if r.kind in ("expectation", "max_class") and not v.violates_expectation:
        return "inconclusive"
    return v.verdict


def formula_text(model: Model) -> str:
    """The formula a table shows: ``none (×4.17 a step)`` for a model whose values grow faster
    than any class (growth.growth_json), whose least bad class fit means nothing."""
    growth = model.extra("growth")
    if growth:
        return f"none ({numbers.factor(growth['factor_per_step'])} a step)"
    return model.formula()


def class_text(model: Model | None, short: bool = False) -> str:
    """The class a table shows, with the benchmark tool's own where its file carried one;
    ``short`` drops the O( ) around it (``n log n``) where a narrow log needs the room.  The
    class of a model no class fits (``growth.misfit``: a step inside the range) is marked
    ``misfit``, the kind of the reason that says why it means nothing."""
    if model is None:
        return "-"
    text = model.complexity()
    if short and text.startswith("O(") and text.endswith(")"):
        text = text[2:-1]
    notes = [n for n in ("misfit" if misfit_model(model) else None, reported_class(model)) if n]
    return f"{text} ({'; '.join(notes)})" if notes else text


def reported_class(model: Model | None) -> str | None:
    """``Google Benchmark: O(N log N), RMS 14%``: the tool's own class, if its file had one."""
    data = None if model is None else model.extra("reported_complexity")
    if not isinstance(data, dict):
        return None
    tool = str(data.get("tool", "the tool"))
    rms = data.get("rms")
    rms_text = f", RMS {rms:.0%}" if isinstance(rms, (int, float)) else ""
    return f"{TOOL_NAMES.get(tool, tool)}: {data.get('complexity', '?')}{rms_text}"


def by_verdict(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """Fails first, then errors, inconclusive, passes; the report's order within each."""
    return sorted(verdicts, key=lambda v: ORDER.index(v.verdict))
