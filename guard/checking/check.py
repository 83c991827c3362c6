"""``perfguard check``'s logic: expectations and the baseline, turned into verdicts.

Fail only on strong evidence: a declared bound (the kernel's expectation or the global
``max_class``) exceeded, or a class above the baseline's, each with posterior probability
at least ``confidence``; weaker evidence (``suggestive`` or more) is inconclusive and says
what would decide it.  A bound's violation must also not hinge on one size: with any one
size left out it must stay at least ``EvidenceSettings.held_out`` likely, or the verdict is
inconclusive and names the size to re-measure.  Multi-parameter kernels are judged one
parameter at a time along their longest line of points (the others fixed), against the
bound's order in that parameter.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import UsageError
from ..measurements import MeasurementSet
from ..modeling import KernelAnalysis, analyze
from ..modeling.analysis import MIN_LINE_POINTS, LineEvidence
from ..modeling.evidence import SPACE, Evidence, EvidenceSettings, class_evidence
from ..modeling.pmnf import Model
from .classes import GrowthClass
from .evidence import CLASSES, RunComparison, compare_runs, leave_one_out
from .evidence import probability_outside as _outside
from .expectation import Expectation, ExpectationError, parse_class, parse_expectation
from .ranking import rank_kernels
from .verdicts import CheckReport, Reason, Verdict

__all__ = ["CheckOptions", "ExpectationRule", "check", "parse_rules"]

QUIET_NOISE = 0.03  # per-repetition noise at which six doubling sizes separate close classes
MAX_ADVISED_REPETITIONS = 50


@dataclass(frozen=True)
class ExpectationRule:
    """``pattern`` (a kernel-name glob) is expected to satisfy ``text``; ``source`` for errors."""

    pattern: str
    text: str
    source: str = "--expect"


@dataclass(frozen=True)
class CheckOptions:
    """Everything a check needs besides the measurements."""

    rules: tuple[ExpectationRule, ...] = ()
    max_class: str | None = None
    max_class_source: str = "--max-class"
    confidence: float = 0.99
    suggestive: float = 0.8
    strict: bool = False
    target: Mapping[str, float] = field(default_factory=dict)
    max_slowdown: float | None = None
    modeler: str = "default"
    settings: EvidenceSettings = field(default_factory=EvidenceSettings)


def parse_rules(
    options: CheckOptions, parameters: Sequence[str] | None = None
) -> tuple[list[tuple[ExpectationRule, Expectation]], Expectation | None]:
    """Parse every rule and the max_class bound; errors name where the text came from."""
    parsed = []
    for rule in options.rules:
        try:
            parsed.append((rule, parse_expectation(rule.text, parameters)))
        except ExpectationError as e:
            raise UsageError(f"{rule.source}: {rule.pattern}: {e}") from None
    ceiling = None
    if options.max_class is not None:
        try:
            ceiling = Expectation(
                "<=", parse_class(options.max_class, parameters), options.max_class
            )
        except ExpectationError as e:
            raise UsageError(f"{options.max_class_source}: {e}") from None
    return parsed, ceiling


def check(
    current: MeasurementSet,
    baseline: MeasurementSet | None = None,
    options: CheckOptions | None = None,
) -> CheckReport:
    """Verdicts for every kernel of ``current``."""
    opts = options or CheckOptions()
    rules, ceiling = parse_rules(opts, current.parameters)
    if baseline is not None and tuple(baseline.parameters) != tuple(current.parameters):
        raise UsageError(
            f"the baseline's parameters ({', '.join(baseline.parameters)}) differ from the "
            f"current measurements' ({', '.join(current.parameters)})"
        )
    unknown = sorted(set(opts.target) - set(current.parameters))
    if unknown:
        raise UsageError(
            f"target parameter {unknown[0]!r} is not one of the measurements' parameters "
            f"({', '.join(current.parameters)})"
        )
    now = _analyses(current, opts)
    before = _analyses(baseline, opts) if baseline is not None else {}
    judge = _Judge(current.parameters, opts, rules, ceiling)
    verdicts = [judge.verdict(a, before.get(a.kernel.key)) for a in now.values()]
    ranked = rank_kernels(verdicts, current.parameters, opts.target)
    notes = tuple(
        f"{k.name} ({k.metric}) is in the baseline but not in the current measurements"
        for k in (baseline.kernels if baseline is not None else ())
        if k.key not in now
    )
    return CheckReport(tuple(ranked), opts.strict, opts.confidence, dict(opts.target), notes)


def _analyses(mset: MeasurementSet, opts: CheckOptions) -> dict[tuple[str, str], KernelAnalysis]:
    """The one analysis of every kernel, by (name, metric), in the set's order."""
    at = opts.target.get(mset.parameters[0]) if len(mset.parameters) == 1 else None
    analyses = analyze(mset, opts.modeler, predict_at=at, settings=opts.settings)
    return {a.kernel.key: a for a in analyses}


class _Judge:
    """Turns one kernel's evidence into a verdict under the check's options."""

    def __init__(
        self,
        parameters: tuple[str, ...],
        opts: CheckOptions,
        rules: list[tuple[ExpectationRule, Expectation]],
        ceiling: Expectation | None,
    ) -> None:
        self.parameters = parameters
        self.opts = opts
        self.rules = rules
        self.ceiling = ceiling

    def expectation_for(self, name: str) -> Expectation | None:
        for rule, expectation in self.rules:
            if fnmatch.fnmatchcase(name, rule.pattern):
                return expectation
        return None

    def verdict(self, now: KernelAnalysis, before: KernelAnalysis | None) -> Verdict:
        kernel = now.kernel
        expectation = self.expectation_for(kernel.name)
        text = None if expectation is None else expectation.describe()
        model = now.model
        if model is None:
            why = "; ".join(now.problems) or "no model"
            reason = Reason("error", f"cannot be modelled: {why}")
            return Verdict(kernel.name, kernel.metric, "error", text, reasons=(reason,))
        lines = list(now.lines)
        base = before.model if before is not None else None
        base_lines = _paired(lines, before)
        findings = _Findings(self.opts.confidence, self.opts.suggestive)
        probabilities: dict[str, float] = {}
        if expectation is not None:
            p = self._bound(lines, expectation, "expectation", findings)
            probabilities["violation"] = p
        if self.ceiling is not None:
            p = self._bound(lines, self.ceiling, "max_class", findings)
            probabilities["max_class"] = p
        if base_lines:
            reg, imp = self._regression(base_lines, findings)
            probabilities.update(regression=reg, improvement=imp)
        change = self._change(model, base, lines, base_lines, findings)
        if before is not None and base is None:
            why = "; ".join(before.problems) or "no model"
            findings.note(Reason("error", f"the baseline cannot be modelled: {why}"))
        if findings.undecided and not findings.failed:
            findings.note(Reason("inconclusive", _advice(lines)))
        return Verdict(
            kernel=kernel.name,
            metric=kernel.metric,
            verdict=findings.verdict,
            expectation=text,
            violates_expectation=findings.violates,
            regression=findings.regression,
            reasons=tuple(findings.reasons),
            model=model,
            baseline_model=base,
            probabilities=probabilities,
            change=change,
        )

    # ------------------------------------------------------------------ bounds

    def _admitted(self, parameter: str, expectation: Expectation) -> np.ndarray:
        if len(self.parameters) == 1:
            classes = [GrowthClass.from_orders({parameter: o}) for o in CLASSES]
            return np.array([expectation.admits(c) for c in classes])
        bound = expectation.bound.order(parameter)
        if expectation.op == "==":
            return np.array([o == bound for o in CLASSES])
        return np.array([o <= bound for o in CLASSES])

    def _bound(
        self, lines: list[LineEvidence], expectation: Expectation, kind: str, findings: _Findings
    ) -> float:
        """P(the bound is exceeded) along the most damning line; adds the finding.

        A line that exceeds the bound with ``confidence`` fails it only if the violation stays
        at least ``settings.held_out`` likely with any one of its sizes left out.  Otherwise
        the finding is inconclusive, names the size it hinges on, and that held-out
        probability is returned.
        """
        if not lines:
            findings.undecide(Reason(kind, f"too few points to test {expectation.describe()}"))
            return math.nan
        scored = []
        for le in lines:
            admitted = self._admitted(le.line.parameter, expectation)
            scored.append((float(_outside(le.evidence, admitted)[0]), le, admitted))
        scored.sort(key=lambda item: -item[0])  # stable: ties keep the lines' order
        hinge = None
        for p, le, admitted in scored:
            if not p >= self.opts.confidence:
                break
            if admitted[_shown(le.evidence)]:
                continue  # decisive mass outside, yet the class a person reads is inside
            held, at = _held_out(le, admitted, self.opts.settings)
            if held >= self.opts.settings.held_out:
                findings.add(kind, p, _bound_message(le, admitted, expectation, p, kind))
                return p
            if hinge is None:
                hinge = (p, le, admitted, held, at)
        if hinge is not None:
            p, le, admitted, held, at = hinge
            size = f"{le.line.parameter}={at:g}"
            message = (
                f"{_bound_message(le, admitted, expectation, p, kind)}; but it hinges on "
                f"{size}: without it {_percent(held)} (not enough to fail; re-measure {size})"
            )
            findings.undecide(Reason(kind, message))
            return held
        p, le, admitted = scored[0]
        message = _bound_message(le, admitted, expectation, p, kind)
        shown_outside = [s for s in scored if not s[2][_shown(s[1].evidence)]]
        if p >= self.opts.confidence or (p < self.opts.suggestive and shown_outside):
            # A class that reads above the bound never passes quietly, and a decisive
            # probability whose likeliest class is inside never fails.
            p, le, admitted = (shown_outside or scored)[0]
            message = _bound_message(le, admitted, expectation, p, kind)
            findings.undecide(Reason(kind, f"{message} (not enough to fail)"))
            return p
        findings.add(kind, p, message)
        return p

    # ------------------------------------------------------------------ baseline

    def _regression(
        self,
        pairs: list[tuple[LineEvidence, LineEvidence]],
        findings: _Findings,
    ) -> tuple[float, float]:
        """P(the class grew) along the most damning line, and the best P(improved).

        A decisive growth must not hinge on one size either: with any size both runs share
        left out it must stay at least ``settings.held_out`` likely, else it is
        inconclusive and names that size.
        """
        settings = self.opts.settings
        results = [compare_runs(b.evidence, c.evidence, settings) for c, b in pairs]
        regs = [float(r.regression[0]) for r in results]
        imps = [float(r.improvement[0]) for r in results]
        i = int(np.argmax(regs))
        p = regs[i]
        message = _pair_message(pairs[i], results[i], p, "regression")
        if p >= self.opts.confidence and not _classes_grew(results[i]):
            # Decisive odds but the two runs' own classes read the same: say so, do not fail.
            findings.undecide(Reason("regression", f"{message} (not enough to fail)"))
        elif p >= self.opts.confidence:
            held, at = _held_out_pair(pairs[i], settings)
            if held >= settings.held_out:
                findings.add("regression", p, message)
            else:
                size = f"{pairs[i][0].parameter}={at:g}"
                findings.undecide(
                    Reason(
                        "regression",
                        f"{message}; but it hinges on {size}: without it {_percent(held)} "
                        f"(not enough to fail; re-measure {size})",
                    )
                )
                p = held
        elif p < self.opts.suggestive and _classes_grew(results[i]):
            # The classes a person reads grew, the evidence is weak: never a quiet pass.
            findings.undecide(Reason("regression", f"{message} (not enough to fail)"))
        else:
            findings.add("regression", p, message)
        j = int(np.argmax(imps))
        if imps[j] >= self.opts.confidence:
            findings.note(
                Reason("improvement", _pair_message(pairs[j], results[j], imps[j], "improvement"))
            )
        return p, imps[j]

    def _change(
        self,
        model: Model,
        base: Model | None,
        lines: list[LineEvidence],
        pairs: list[tuple[LineEvidence, LineEvidence]],
        findings: _Findings,
    ) -> float | None:
        """Candidate / baseline at the target (runner speed included); opt-in slowdown failure."""
        if base is None:
            return None
        at = _target_point(model, self.opts.target, lines)
        ratio = float(model.evaluate(at) / base.evaluate(at))
        if not math.isfinite(ratio) or ratio <= 0:
            return None
        where = ", ".join(f"{p}={v:g}" for p, v in at.items())
        findings.note(
            Reason(
                "change",
                f"x{ratio:.2f} the baseline at {where} (includes any difference in runner speed)",
            )
        )
        limit = self.opts.max_slowdown
        if limit is not None and ratio >= limit:
            sigma = math.hypot(*(float(le.evidence.sigma[0]) for le in (pairs[0] if pairs else ())))
            sure = ratio / math.exp(2.33 * sigma) >= limit
            message = f"x{ratio:.2f} slower than the baseline at {where}, the limit is x{limit:g}"
            findings.add("slowdown", 1.0 if sure else self.opts.suggestive, message)
        return ratio


def _paired(
    lines: list[LineEvidence], before: KernelAnalysis | None
) -> list[tuple[LineEvidence, LineEvidence]]:
    """Each line with the baseline's line along the same parameter, where it has one."""
    if before is None or before.model is None:
        return []
    base = {le.parameter: le for le in before.lines}
    return [(le, base[le.parameter]) for le in lines if le.parameter in base]


def _classes_grew(result: RunComparison) -> bool:
    """The candidate's own likeliest class is above the baseline's."""
    return bool(result.cand_class[0] > result.base_class[0])


def _held_out_pair(
    pair: tuple[LineEvidence, LineEvidence], settings: EvidenceSettings
) -> tuple[float, float]:
    """The smallest P(the class grew) with one shared size left out of both runs, and it.

    (1.0, nan) when no shared size can be left out without leaving too few points.
    """
    cand, base = pair[0].evidence, pair[1].evidence
    shared = np.intersect1d(cand.x, base.x)
    if min(len(cand.x), len(base.x)) <= MIN_LINE_POINTS or not len(shared):
        return 1.0, math.nan
    held = []
    for x in shared:
        c = _without(cand, x)
        b = _without(base, x)
        held.append(float(compare_runs(b, c, settings).regression[0]))
    i = int(np.argmin(held))
    return held[i], float(shared[i])


def _without(ev: Evidence, x: float) -> Evidence:
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


def _held_out(
    le: LineEvidence, admitted: np.ndarray, settings: EvidenceSettings
) -> tuple[float, float]:
    """The smallest P(outside the admitted classes) with one size left out, and that size.

    (1.0, nan) when leaving a size out would leave fewer than MIN_LINE_POINTS.
    """
    if len(le.line.x) <= MIN_LINE_POINTS:
        return 1.0, math.nan
    held = [float(_outside(ev, admitted)[0]) for ev in leave_one_out(le.evidence)]
    i = int(np.argmin(held))
    return held[i], float(np.sort(le.evidence.x)[i])


def _target_point(
    model: Model, target: Mapping[str, float], lines: list[LineEvidence]
) -> dict[str, float]:
    """The target, with the largest measured value for any parameter it does not name."""
    largest = {le.line.parameter: max(le.line.x) for le in lines}
    return {p: float(target.get(p, largest.get(p, 1.0))) for p in model.parameters}


class _Findings:
    """Collects reasons and what they mean for the verdict."""

    def __init__(self, confidence: float, suggestive: float) -> None:
        self.confidence, self.suggestive = confidence, suggestive
        self.reasons: list[Reason] = []
        self.failed = self.undecided = self.violates = self.regression = False

    def add(self, kind: str, p: float, message: str) -> None:
        if p >= self.confidence:
            self.failed = True
            self.violates |= kind in ("expectation", "max_class")
            self.regression |= kind == "regression"
            self.reasons.append(Reason(kind, message))
        elif p >= self.suggestive:
            self.undecide(Reason(kind, f"{message} (not enough to fail)"))

    def undecide(self, reason: Reason) -> None:
        self.undecided = True
        self.reasons.append(reason)

    def note(self, reason: Reason) -> None:
        self.reasons.append(reason)

    @property
    def verdict(self) -> str:
        if self.failed:
            return "fail"
        return "inconclusive" if self.undecided else "pass"


# ---------------------------------------------------------------------- sentences


def _percent(p: float) -> str:
    return ">99.9%" if p > 0.999 else f"{math.floor(p * 1000) / 10:.1f}%"


def _class_text(parameter: str, h: int) -> str:
    return GrowthClass.from_orders({parameter: CLASSES[h]}).text()


def _shown(ev: Evidence) -> int:
    """The class a person reads: the evidence's likeliest (the model's own)."""
    return int(np.argmax(ev.class_log_weight[0]))


def _bound_message(
    le: LineEvidence, admitted: np.ndarray, expectation: Expectation, p: float, kind: str
) -> str:
    param, ev = le.line.parameter, le.evidence
    shown = _shown(ev)
    what = "expected" if kind == "expectation" else "allowed by max_class"
    sure = "likely above it" if admitted[shown] else "confident"
    text = (
        f"{_class_text(param, shown)} measured, {expectation.describe()} {what}; "
        f"{_percent(p)} {sure}"
    )
    # the bound's own class (the highest it admits), fitted as well as it can be
    top = int(np.flatnonzero(admitted)[-1]) if admitted.any() else 0
    allowed = np.where((SPACE.lead == top) & np.isfinite(ev.rss[0]), ev.rss[0], np.inf)
    best = int(np.argmin(allowed))
    if np.isfinite(allowed[best]):
        ratio = ev.y[0] / ev.fitted(0, best)
        i = int(np.argmax(ratio))
        if ratio[i] > 1.0:
            closest = _class_text(param, int(SPACE.lead[best]))
            text += (
                f"; see {param}={ev.x[i]:g}, {ratio[i]:.2f}x the closest allowed curve ({closest})"
            )
    return text


def _growth(ev: Evidence) -> float:
    return float(ev.y[0, -1] / ev.y[0, 0])


def _pair_message(
    pair: tuple[LineEvidence, LineEvidence], result: RunComparison, p: float, kind: str
) -> str:
    cand, base = pair
    param = cand.line.parameter
    now = _class_text(param, int(result.cand_class[0]))
    before = _class_text(param, int(result.base_class[0]))
    if kind == "improvement":
        return f"scales better: {now} now, {before} in the baseline ({_percent(p)} confident)"
    lo, hi = cand.line.x[0], cand.line.x[-1]
    return (
        f"{now} now, {before} in the baseline; {_percent(p)} confident that it grows faster; "
        f"from {param}={lo:g} to {hi:g} it grows x{_growth(cand.evidence):.2f}, "
        f"the baseline x{_growth(base.evidence):.2f}"
    )


def _advice(lines: list[LineEvidence]) -> str:
    """What would decide an inconclusive verdict."""
    if not lines:
        return "measure at least four sizes per parameter"
    tips = []
    le = max(lines, key=lambda le: float(np.nan_to_num(le.evidence.noise[0], nan=1.0)))
    noise = float(le.evidence.noise[0])
    reps = int(np.median([len(v) for v in le.line.values]))
    if not math.isfinite(noise):
        tips.append("repeat each size at least 5 times (there are no repetitions)")
    elif noise > QUIET_NOISE:
        more = min(MAX_ADVISED_REPETITIONS, math.ceil(reps * (noise / QUIET_NOISE) ** 2))
        tips.append(
            f"noise is {noise:.0%} per repetition: raise repetitions from {reps} to "
            f"{max(more, reps + 1)} or use a quieter metric (instructions)"
        )
    for other in lines:
        if len(other.line.x) < 6:
            tips.append(f"measure more sizes of {other.line.parameter} (now {len(other.line.x)})")
    top = max(lines, key=lambda le: le.line.x[-1] / le.line.x[0])
    tips.append(
        f"extend {top.line.parameter} beyond {top.line.x[-1]:g} (e.g. to {4 * top.line.x[-1]:g})"
    )
    return "to decide: " + "; ".join(tips)
