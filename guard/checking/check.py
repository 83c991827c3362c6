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
from ..measurements import Kernel, MeasurementSet
from ..modeling import model_measurements
from ..modeling.pmnf import Model
from .classes import GrowthClass
from .evidence import (
    ORDERS,
    ClassEvidence,
    EvidenceSettings,
    RunComparison,
    compare_runs,
    evidence_from_points,
    leave_one_out,
)
from .evidence import probability_outside as _outside
from .expectation import Expectation, ExpectationError, parse_class, parse_expectation
from .lines import Line, kernel_line
from .ranking import rank_kernels
from .verdicts import CheckReport, Reason, Verdict

__all__ = ["CheckOptions", "ExpectationRule", "check", "parse_rules"]

MIN_LINE_POINTS = 4
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
    models = _models(current, opts)
    base_models = _models(baseline, opts) if baseline is not None else {}
    judge = _Judge(current.parameters, opts, rules, ceiling)
    verdicts = []
    for kernel in current.kernels:
        base_kernel = _find(baseline, kernel)
        verdicts.append(
            judge.verdict(kernel, models.get(kernel.key), base_kernel, base_models.get(kernel.key))
        )
    ranked = rank_kernels(verdicts, current.parameters, opts.target)
    notes = tuple(
        f"{k.name} ({k.metric}) is in the baseline but not in the current measurements"
        for k in (baseline.kernels if baseline is not None else ())
        if k.key not in {c.key for c in current.kernels}
    )
    return CheckReport(tuple(ranked), opts.strict, opts.confidence, dict(opts.target), notes)


def _models(mset: MeasurementSet | None, opts: CheckOptions) -> dict[tuple[str, str], Model | str]:
    """Each kernel's model, or the sentence saying why it has none."""
    if mset is None:
        return {}
    at = opts.target.get(mset.parameters[0]) if len(mset.parameters) == 1 else None
    result = model_measurements(mset, opts.modeler, predict_at=at)
    out: dict[tuple[str, str], Model | str] = {(m.kernel, m.metric): m for m in result.models}
    for s in result.skipped:
        out[(s.kernel, s.metric)] = "; ".join(s.reasons)
    return out


def _find(mset: MeasurementSet | None, kernel: Kernel) -> Kernel | None:
    if mset is None:
        return None
    try:
        return mset.kernel(*kernel.key)
    except KeyError:
        return None


@dataclass(frozen=True)
class _LineEvidence:
    line: Line
    evidence: ClassEvidence


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

    def verdict(
        self,
        kernel: Kernel,
        model: Model | str | None,
        base_kernel: Kernel | None,
        base_model: Model | str | None,
    ) -> Verdict:
        expectation = self.expectation_for(kernel.name)
        text = None if expectation is None else expectation.describe()
        if not isinstance(model, Model):
            reason = Reason("error", f"cannot be modelled: {model or 'no model'}")
            return Verdict(kernel.name, kernel.metric, "error", text, reasons=(reason,))
        lines = self._evidence(kernel)
        base_lines = self._base_evidence(base_kernel, lines)
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
        base = base_model if isinstance(base_model, Model) else None
        change = self._change(model, base, lines, base_lines, findings)
        if base_kernel is not None and base is None:
            findings.note(Reason("error", f"the baseline cannot be modelled: {base_model}"))
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

    # ------------------------------------------------------------------ evidence

    def _evidence(self, kernel: Kernel) -> list[_LineEvidence]:
        out = []
        for parameter in self.parameters:
            line = kernel_line(kernel, self.parameters, parameter)
            if line is not None and len(line.x) >= MIN_LINE_POINTS:
                ev = evidence_from_points(line.x, line.values, self.opts.settings)
                out.append(_LineEvidence(line, ev))
        return out

    def _base_evidence(
        self, base_kernel: Kernel | None, lines: list[_LineEvidence]
    ) -> list[tuple[_LineEvidence, _LineEvidence]]:
        if base_kernel is None:
            return []
        out = []
        for le in lines:
            line = kernel_line(base_kernel, self.parameters, le.line.parameter, le.line.at)
            if line is None or len(line.x) < MIN_LINE_POINTS:
                line = kernel_line(base_kernel, self.parameters, le.line.parameter)
            if line is not None and len(line.x) >= MIN_LINE_POINTS:
                ev = evidence_from_points(line.x, line.values, self.opts.settings)
                out.append((le, _LineEvidence(line, ev)))
        return out

    # ------------------------------------------------------------------ bounds

    def _admitted(self, parameter: str, expectation: Expectation) -> np.ndarray:
        if len(self.parameters) == 1:
            classes = [GrowthClass.from_orders({parameter: o}) for o in ORDERS]
            return np.array([expectation.admits(c) for c in classes])
        bound = expectation.bound.order(parameter)
        if expectation.op == "==":
            return np.array([o == bound for o in ORDERS])
        return np.array([o <= bound for o in ORDERS])

    def _bound(
        self, lines: list[_LineEvidence], expectation: Expectation, kind: str, findings: _Findings
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
        findings.add(kind, p, _bound_message(le, admitted, expectation, p, kind))
        return p

    # ------------------------------------------------------------------ baseline

    def _regression(
        self,
        pairs: list[tuple[_LineEvidence, _LineEvidence]],
        findings: _Findings,
    ) -> tuple[float, float]:
        results = [compare_runs(b.evidence, c.evidence, self.opts.settings) for c, b in pairs]
        regs = [float(r.regression[0]) for r in results]
        imps = [float(r.improvement[0]) for r in results]
        i = int(np.argmax(regs))
        findings.add(
            "regression", regs[i], _pair_message(pairs[i], results[i], regs[i], "regression")
        )
        j = int(np.argmax(imps))
        if imps[j] >= self.opts.confidence:
            message = _pair_message(pairs[j], results[j], imps[j], "improvement")
            findings.note(Reason("improvement", message))
        reg, best_imp = regs[i], imps[j]
        return reg, best_imp

    def _change(
        self,
        model: Model,
        base: Model | None,
        lines: list[_LineEvidence],
        pairs: list[tuple[_LineEvidence, _LineEvidence]],
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


def _held_out(
    le: _LineEvidence, admitted: np.ndarray, settings: EvidenceSettings
) -> tuple[float, float]:
    """The smallest P(outside the admitted classes) with one size left out, and that size.

    (1.0, nan) when leaving a size out would leave fewer than MIN_LINE_POINTS.
    """
    if len(le.line.x) <= MIN_LINE_POINTS:
        return 1.0, math.nan
    held = [float(_outside(ev, admitted)[0]) for ev in leave_one_out(le.evidence, settings)]
    i = int(np.argmin(held))
    return held[i], float(np.sort(le.evidence.x)[i])


def _target_point(
    model: Model, target: Mapping[str, float], lines: list[_LineEvidence]
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
    return GrowthClass.from_orders({parameter: ORDERS[h]}).text()


def _likeliest(ev: ClassEvidence, mask: np.ndarray | None = None) -> int:
    w = ev.log_weight[0].copy()
    if mask is not None:
        w = np.where(mask, w, -np.inf)
    return int(np.argmax(w))


def _bound_message(
    le: _LineEvidence, admitted: np.ndarray, expectation: Expectation, p: float, kind: str
) -> str:
    param, ev = le.line.parameter, le.evidence
    measured = _class_text(param, _likeliest(ev, ~admitted if (~admitted).any() else None))
    what = "expected" if kind == "expectation" else "allowed by max_class"
    text = f"{measured} measured, {expectation.describe()} {what}; {_percent(p)} confident"
    best = int(np.argmin(np.where(admitted, ev.rss[0], np.inf)))
    if np.isfinite(ev.rss[0, best]):
        ratio = ev.y[0] / ev.fitted(0, best)
        i = int(np.argmax(ratio))
        if ratio[i] > 1.0:
            closest = _class_text(param, best)
            text += (
                f"; see {param}={ev.x[i]:g}, {ratio[i]:.2f}x the closest allowed curve ({closest})"
            )
    return text


def _growth(ev: ClassEvidence) -> float:
    return float(ev.y[0, -1] / ev.y[0, 0])


def _pair_message(
    pair: tuple[_LineEvidence, _LineEvidence], result: RunComparison, p: float, kind: str
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


def _advice(lines: list[_LineEvidence]) -> str:
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
