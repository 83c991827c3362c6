"""``perfguard check``'s logic: expectations and the baseline, turned into verdicts.

Fail only on strong evidence: a declared bound (the kernel's expectation or the global
``max_class``) exceeded, or a class above the baseline's, each with posterior probability
at least ``confidence``; weaker evidence (``suggestive`` or more) is inconclusive and says
what would decide it.  A bound's violation must also not hinge on one size: with any one
size left out it must stay at least ``EvidenceSettings.held_out`` likely, or the verdict is
inconclusive and names the size to re-measure.  A likely violation the posterior does not
fail gets the bound test (bound_test.py) at level ``1 - confidence``, which must also hold
(at ``held_out_level``) with any one size left out.  Multi-parameter kernels are judged one
parameter at a time along their longest line of points (the others fixed), against the
bound's order in that parameter.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .. import numbers
from ..collection.caches import recorded_caches
from ..defaults import CONFIDENCE, SUGGESTIVE
from ..errors import UsageError
from ..measurements import Kernel, MeasurementSet, RunError
from ..modeling import KernelAnalysis, analyze, point_error
from ..modeling.analysis import DECIDING_POINTS, LineEvidence
from ..modeling.details import DriftDetail, PredictionDetail
from ..modeling.evidence import EvidenceSettings
from ..modeling.growth import misfit_model, predicts_nothing
from ..modeling.interaction import DECISIVE, Interaction, interaction
from ..modeling.pmnf import Model
from .batch import (
    BoundNumbers,
    Comparison,
    HeldOut,
    bound_numbers,
    bound_probabilities,
    compare_pairs,
)
from .classes import GrowthClass, Monomial
from .evidence import CLASSES
from .expectation import (
    Expectation,
    ExpectationError,
    ExpectationRule,
    parse_class,
    parse_expectation,
)
from .memory import (
    TIMED_METRICS,
    MemoryExcess,
    beyond_allowance,
    memory_excess,
    relative_excess,
)
from .products import products_beyond
from .ranking import rank_kernels
from .same_statistic import same_statistic
from .sentences import (
    advice,
    bound_message,
    class_text,
    grew_no_faster,
    misfit_message,
    missing_notes,
    no_faster_message,
    pair_message,
    percent,
    shown_class,
    test_message,
    unit_text,
    unjudged_notes,
)
from .verdicts import SAME_GROWTH, CheckReport, Reason, Verdict, VerdictName

__all__ = ["CheckOptions", "ExpectationRule", "check", "parse_rules", "same_parameters"]


@dataclass(frozen=True)
class CheckOptions:
    """Everything a check needs besides the measurements."""

    rules: tuple[ExpectationRule, ...] = ()
    max_class: str | None = None
    max_class_source: str = "--max-class"
    confidence: float = CONFIDENCE
    suggestive: float = SUGGESTIVE
    strict: bool = False
    target: Mapping[str, float] = field(default_factory=dict)
    # target parameters a file may lack (the config's, for files of other parameters):
    # left out with a note naming target_source, where any other is an error
    optional_target: frozenset[str] = frozenset()
    target_source: str = "--target"
    max_slowdown: float | None = None
    modeler: str = "default"
    settings: EvidenceSettings = field(default_factory=EvidenceSettings)


def parse_rules(
    options: CheckOptions,
    parameters: Sequence[str] | None = None,
    names: Iterable[str] | None = None,
) -> tuple[list[tuple[ExpectationRule, Expectation]], Expectation | None]:
    """Parse every rule and the max_class bound; errors name where the text came from.

    With ``names`` (the kernels judged), only the rules that decide some kernel's bound
    (its first match) must be written in ``parameters``: one perfguard.yml serves files of
    other parameters (pytest-benchmark writes one file per set), and a rule for kernels a
    file does not hold is only read for its syntax."""
    deciding: dict[int | None, str] = {}  # rule index -> the first kernel it decides
    for name in names or ():
        deciding.setdefault(_first_match(options.rules, name), name)
    parsed = []
    for i, rule in enumerate(options.rules):
        over = parameters if names is None or i in deciding else None
        try:
            parsed.append((rule, parse_expectation(rule.text, over)))
        except ExpectationError as e:
            kernel = f" (the bound of {deciding[i]})" if i in deciding else ""
            raise UsageError(f"{rule.source}: {rule.pattern}{kernel}: {e}") from None
    ceiling = None
    if options.max_class is not None:
        try:
            ceiling = Expectation(
                "<=", parse_class(options.max_class, parameters), options.max_class
            )
        except ExpectationError as e:
            raise UsageError(f"{options.max_class_source}: {e}") from None
    return parsed, ceiling


def _first_match(rules: Sequence[ExpectationRule], name: str) -> int | None:
    return next((i for i, r in enumerate(rules) if r.matches(name)), None)


def same_parameters(
    baseline: Sequence[str], current: Sequence[str], whose: str = "the current measurements'"
) -> None:
    """Refuse a baseline of other parameters (``whose``: where the current ones come from,
    e.g. the config's, checked before anything is measured)."""
    if tuple(baseline) != tuple(current):
        raise UsageError(
            f"the baseline's parameters ({', '.join(baseline)}) differ from {whose} "
            f"({', '.join(current)})"
        )


def check(
    current: MeasurementSet,
    baseline: MeasurementSet | None = None,
    options: CheckOptions | None = None,
) -> CheckReport:
    """Verdicts for every kernel of ``current``."""
    opts = options or CheckOptions()
    judged = [k.name for m in (current, baseline) if m is not None for k in m.kernels]
    rules, ceiling = parse_rules(opts, current.parameters, judged)
    if baseline is not None:
        same_parameters(baseline.parameters, current.parameters)
    unknown = sorted(set(opts.target) - set(current.parameters))
    if set(unknown) - opts.optional_target:
        raise UsageError(
            f"target parameter {unknown[0]!r} is not one of the measurements' parameters "
            f"({', '.join(current.parameters)})"
        )
    notes: tuple[str, ...] = ()
    if unknown:
        opts = dataclasses.replace(
            opts, target={p: v for p, v in opts.target.items() if p not in unknown}
        )
        notes = (
            f"{opts.target_source}: {', '.join(unknown)} is not a parameter of these "
            f"measurements ({', '.join(current.parameters)}); "
            + ("ranked without it" if not opts.target else "left out of the target"),
        )
    cut: dict[tuple[str, str], _CutShort] = {}
    if baseline is not None:
        current, baseline, medians = same_statistic(current, baseline)
        notes += medians
        whole = baseline
        baseline, cut = _common_range(current, baseline)
        cut = _with_whole_classes(cut, whole, opts)
    now = _analyses(current, opts)
    before = _analyses(baseline, opts) if baseline is not None else {}
    judge = _Judge(current.parameters, opts, rules, ceiling)
    judge.cut = cut
    judge.caches = recorded_caches(current.run.machine)
    for error in current.run.errors:
        judge.errors.setdefault(error.benchmark, []).append(error)
    judge.numbers = _prepare(now, before, judge)
    judge.bends = _bends(current, now, judge)
    verdicts = [judge.verdict(a, before.get(a.kernel.key)) for a in now.values()]
    largest = {
        k.key: {q: max(p.at[i] for p in k.points) for i, q in enumerate(current.parameters)}
        for k in current.kernels
        if k.points
    }
    ranked = rank_kernels(verdicts, current.parameters, opts.target, largest)
    unnamed = [q for q in current.parameters if opts.target and q not in opts.target]
    if unnamed:
        tops = {q: sorted({v[q] for v in largest.values()}) for q in unnamed}
        where = ", ".join(
            numbers.at(q, xs[0]) if len(xs) == 1 else f"{q} at each kernel's largest"
            for q, xs in tops.items()
        )
        notes += (
            f"the target names {', '.join(opts.target)} only: the rest is taken at the "
            f"largest measured value ({where}); add --target {unnamed[0]}=... to choose",
        )
    notes += (*current.notes, *(baseline.notes if baseline is not None else ()))
    # a benchmark with kernels says so in their reasons; one that measured nothing, here
    measured = {name for name, _ in now}
    notes += tuple(
        f"benchmark {e.kind}: {e.sentence()}"
        for e in current.run.errors
        if e.benchmark not in measured
    )
    notes += missing_notes(baseline, set(now))
    notes += unjudged_notes(verdicts, [rule for rule, _ in rules], ceiling, baseline is not None)
    not_run = tuple(dict.fromkeys(e.benchmark for e in current.run.errors))
    return CheckReport(
        tuple(ranked), opts.strict, opts.confidence, dict(opts.target), notes, not_run
    )


@dataclass(frozen=True)
class _CutShort:
    """A candidate measured to a smaller largest size than its baseline."""

    parameter: str
    largest: float  # the candidate's largest size: the largest both measured
    baseline_largest: float
    baseline_class: str | None = None  # the baseline's class over all its sizes


_MIN_COMMON = 3  # sizes a baseline cut to the candidate's range keeps at least


def _common_range(
    current: MeasurementSet, baseline: MeasurementSet
) -> tuple[MeasurementSet, dict[tuple[str, str], _CutShort]]:
    """The baseline cut to each candidate's range where the candidate's is narrower.

    Classes fitted over different ranges are not the same question: a baseline measured
    four times further (or from smaller sizes) would be judged on sizes the candidate never
    reached.  One-parameter sets only; the kernels cut short at the top are returned with
    the ratio at the largest common size.  A cut that would leave fewer than
    ``_MIN_COMMON`` sizes is not made.
    """
    if len(current.parameters) != 1:
        return baseline, {}
    mine = {k.key: k for k in current.kernels}
    kernels, cut = [], {}
    for k in baseline.kernels:
        c = mine.get(k.key)
        sizes = [p.at[0] for p in c.points] if c is not None else []
        lo, top = min(sizes, default=0.0), max(sizes, default=0.0)
        kept = tuple(p for p in k.points if lo <= p.at[0] <= top)
        if c is None or len(kept) == len(k.points) or len(kept) < _MIN_COMMON:
            kernels.append(k)
            continue
        if not top < max(p.at[0] for p in k.points):  # cut at the bottom only
            kernels.append(dataclasses.replace(k, points=kept))
            continue
        base_top = max(p.at[0] for p in k.points)
        cut[k.key] = _CutShort(current.parameters[0], top, base_top)
        kernels.append(dataclasses.replace(k, points=kept))
    return dataclasses.replace(baseline, kernels=tuple(kernels)), cut


def _with_whole_classes(
    cut: dict[tuple[str, str], _CutShort], whole: MeasurementSet, opts: CheckOptions
) -> dict[tuple[str, str], _CutShort]:
    """Each cut baseline's class over all its sizes, as its own run's table, the history
    and the site show it: the class a cut baseline reads can differ (O(n) over 16..2^20,
    n^(2/3) log^2 n over 16..16384), and a reader matching the two must be told."""
    if not cut:
        return cut
    kept = tuple(k for k in whole.kernels if k.key in cut)
    analysed = _analyses(dataclasses.replace(whole, kernels=kept), opts)
    return {
        key: dataclasses.replace(
            c, baseline_class=a.model.complexity() if (a := analysed.get(key)) and a.model else None
        )
        for key, c in cut.items()
    }


BEND_UPPER_SIZES = 5  # sizes beyond a bend that can judge a bound by themselves
TAIL_SIZES = 8  # a count measured at this many sizes is judged at its largest five too
_TAIL_WITHIN = 0.2  # ... where they are at most this likely to exceed the bound
_BENDING_METRICS = ("time", "cpu")  # metrics where a cache level bends the curve


@dataclass(frozen=True)
class _Bend:
    """A change of behaviour found inside the range, and the sizes beyond it analysed."""

    parameter: str
    below: float
    above: float
    beyond: KernelAnalysis | None  # None: fewer than BEND_UPPER_SIZES sizes beyond it
    before: KernelAnalysis | None  # the same for the sizes before it
    tail: bool = False  # no bend found: a count's largest BEND_UPPER_SIZES sizes, levelled off


def _bends(
    current: MeasurementSet,
    now: dict[tuple[str, str], KernelAnalysis],
    judge: _Judge,
) -> dict[tuple[str, str], _Bend]:
    """Every kernel that would fail a declared bound and bends inside its range.

    Where the working set leaves a cache level, time steps up or grows faster over a few
    sizes and then grows as before; over the whole range the class reads higher than the
    algorithm is.  Where the segment detector found such a change (a time-like metric,
    one parameter), the bound is judged on the sizes beyond it -- or, with too few there,
    not judged at all.
    """
    if len(current.parameters) != 1:
        return {}
    failing = {
        key
        for (key, _k, _p), b in judge.numbers.bounds.items()
        if b.confident(judge.opts.confidence) or b.fails(judge.opts.confidence, judge.opts.settings)
    }
    found: dict[tuple[str, str], tuple[float, float]] = {}
    sides: dict[str, list[Kernel]] = {"beyond": [], "before": []}
    tails: set[tuple[str, str]] = set()
    for key in failing:
        a = now[key]
        segments = a.model.extra("segments") if a.model is not None else None
        if a.kernel.metric not in _BENDING_METRICS and len(a.kernel.points) >= TAIL_SIZES:
            # a count that grows over its small sizes and levels off (a set's lookups go
            # through small-int fast paths up to n=4096, then 33,058 instructions flat over
            # seven doublings): its largest sizes judge the bound by themselves
            xs = sorted({p.at[0] for p in a.kernel.points})
            found[key] = (xs[-BEND_UPPER_SIZES - 1], xs[-BEND_UPPER_SIZES])
            tails.add(key)
            top = tuple(p for p in a.kernel.points if p.at[0] >= xs[-BEND_UPPER_SIZES])
            sides["beyond"].append(dataclasses.replace(a.kernel, points=top))
            continue
        if a.kernel.metric not in _BENDING_METRICS or not segments:
            continue
        below, above = (float(v) for v in segments[-1]["between"])
        found[key] = (below, above)
        parts = {
            "beyond": tuple(p for p in a.kernel.points if p.at[0] >= above),
            # the size just before the break may already be part of the step: left out
            "before": tuple(p for p in a.kernel.points if p.at[0] < below),
        }
        for side, points in parts.items():
            if len(points) >= BEND_UPPER_SIZES:
                sides[side].append(dataclasses.replace(a.kernel, points=points))
    opts = dataclasses.replace(judge.opts, target={})
    analysed = {
        side: _analyses(MeasurementSet(current.parameters, tuple(ks)), opts) if ks else {}
        for side, ks in sides.items()
    }
    param = current.parameters[0]
    return {
        key: _Bend(
            param, lo, hi, analysed["beyond"].get(key), analysed["before"].get(key), key in tails
        )
        for key, (lo, hi) in found.items()
    }


def _analyses(mset: MeasurementSet, opts: CheckOptions) -> dict[tuple[str, str], KernelAnalysis]:
    """The one analysis of every kernel, by (name, metric), in the set's order."""
    at = opts.target.get(mset.parameters[0]) if len(mset.parameters) == 1 else None
    analyses = analyze(mset, opts.modeler, predict_at=at, settings=opts.settings)
    return {a.kernel.key: a for a in analyses}


_BoundKey = tuple[tuple[str, str], str, str]  # (kernel key, kind, parameter)


class _Scored(NamedTuple):
    """One line of a kernel scored against a bound."""

    line: LineEvidence
    admitted: np.ndarray  # (C,) the classes the bound admits
    numbers: BoundNumbers

    @property
    def p(self) -> float:
        return self.numbers.p


@dataclass(frozen=True)
class _Numbers:
    """The batched statistics of a check (batch.py), looked up by kernel and line."""

    bounds: dict[_BoundKey, BoundNumbers]
    comparisons: dict[tuple[tuple[str, str], str], Comparison]


def _prepare(
    now: dict[tuple[str, str], KernelAnalysis],
    before: dict[tuple[str, str], KernelAnalysis],
    judge: _Judge,
) -> _Numbers:
    """Bound probabilities, held-out sizes and baseline comparisons for every kernel."""
    keys: list[_BoundKey] = []
    lines: list[LineEvidence] = []
    masks: list[np.ndarray] = []
    pairs: list[tuple[LineEvidence, LineEvidence]] = []
    pair_keys: list[tuple[tuple[str, str], str]] = []
    for key, a in now.items():
        if a.model is None:
            continue
        for kind, bound in judge.bounds_for(a.kernel.name):
            for le in a.lines:
                keys.append((key, kind, le.parameter))
                lines.append(le)
                masks.append(judge.admitted(le.parameter, bound))
        for cand, base in _paired(list(a.lines), before.get(key)):
            pairs.append((cand, base))
            pair_keys.append((key, cand.parameter))
    settings = judge.opts.settings
    admitted = np.array(masks).reshape(len(masks), len(CLASSES))
    opts = judge.opts
    numbers = bound_numbers(lines, admitted, settings, opts.confidence, opts.suggestive)
    bounds = dict(zip(keys, numbers))
    compared = compare_pairs(pairs, settings, opts.confidence)
    return _Numbers(bounds, dict(zip(pair_keys, compared)))


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
        self.numbers = _Numbers({}, {})
        self.cut: dict[tuple[str, str], _CutShort] = {}
        self.bends: dict[tuple[str, str], _Bend] = {}
        self.caches: dict[str, int] = {}  # the measuring machine's, run.machine.caches
        self.errors: dict[str, list[RunError]] = {}  # benchmark name -> its run.errors
        self._admitted_cache: dict[tuple[str, str, str], np.ndarray] = {}

    def bounds_for(self, name: str) -> list[tuple[str, Expectation]]:
        """The kernel's declared bound and the global ceiling, with their kinds."""
        found = [("expectation", self.expectation_for(name)), ("max_class", self.ceiling)]
        return [(kind, bound) for kind, bound in found if bound is not None]

    def expectation_for(self, name: str) -> Expectation | None:
        i = _first_match([rule for rule, _ in self.rules], name)
        return None if i is None else self.rules[i][1]

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
        sizes = [len(le.group.x) for le in lines + [b for _, b in base_lines]]
        if sizes and min(sizes) < DECIDING_POINTS:
            findings.weak = (
                f"only {min(sizes)} sizes: too few to fail on; measure at least "
                f"{DECIDING_POINTS} to decide"
            )
        if len(self.parameters) == 1 and misfit_model(model):
            # a model no class fits says nothing: a bound or baseline its class exceeds is not
            # exceeded by the kernel (the misfit reason replaces these findings, _misfit)
            findings.weak = findings.weak or "no class fits the measured values"
        probabilities: dict[str, float] = {}
        fast = _fastest(lines)
        for kind, bound in self.bounds_for(kernel.name):
            if fast.probability >= self.opts.confidence:
                # no class fits, the bound is above none of them: exceeded whatever it is
                message = f"{fast.describe()}, above {bound.describe()}"
                findings.add(kind, fast.probability, message)
                p = fast.probability
            else:
                p = self._bound(kernel.key, lines, bound, kind, findings)
            probabilities["violation" if kind == "expectation" else kind] = p
        if base_lines and findings.violates:
            self._exceeded_before(kernel.name, base_lines, findings)
        if base_lines:
            reg, imp = self._growth_pair(fast, _fastest([b for _, b in base_lines]), findings)
            if math.isnan(reg):
                reg, imp = self._regression(kernel.key, base_lines, findings, (model, base))
            probabilities.update(regression=reg, improvement=imp)
        if len(self.parameters) > 1:
            self._products(now, before, findings, probabilities)
        change = self._change(model, base, lines, base_lines, findings)
        self._misfit(kernel.name, model, bool(base_lines), findings)
        if kernel.key in self.cut:
            cut = _cut_message(self.cut[kernel.key], findings.regression)
            if findings.regression:  # decided on the sizes both measured: nothing to re-measure
                findings.note(Reason("regression", cut))
            else:
                findings.undecide(Reason("regression", cut))
        if before is not None and base is None:
            why = "; ".join(before.problems) or "no model"
            findings.note(Reason("error", f"the baseline cannot be modelled: {why}"))
        for error in self.errors.get(kernel.name, ()):
            # a crash or timeout at a larger size: the sizes measured may pass, the kernel
            # has not (a fail on them stands)
            findings.errored = True
            findings.note(Reason("error", f"the benchmark {error.ending()}: {error.sentence()}"))
        if findings.undecided and not findings.failed:
            several = len(self.parameters) > 1
            remeasure = _remeasure(model, base, findings.hinges)
            findings.note(Reason("inconclusive", advice(lines, base_lines, several, remeasure)))
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

    def _exceeded_before(
        self,
        name: str,
        base_lines: list[tuple[LineEvidence, LineEvidence]],
        findings: _Findings,
    ) -> None:
        """A note where a bound the kernel fails is one its baseline's class exceeds too: the
        change under review did not bring it (a reviewer read the fail as its doing)."""
        for kind, bound in self.bounds_for(name):
            if kind not in findings.decided:
                continue
            for _, b in base_lines:
                shown = shown_class(b)
                if not self.admitted(b.parameter, bound)[shown]:
                    findings.note(
                        Reason(
                            "change",
                            f"the baseline exceeds {bound.describe()} too "
                            f"({class_text(b.parameter, shown)} there): not brought by this "
                            "change",
                        )
                    )
                    break

    def _products(
        self,
        now: KernelAnalysis,
        before: KernelAnalysis | None,
        findings: _Findings,
        probabilities: dict[str, float],
    ) -> None:
        """A product of parameters the model shows and no line can see (``p n`` against
        ``<= p + n``, or against a baseline ``p + n``): judged on the grid's corners
        (interaction.py), or inconclusive where the design has none."""
        assert now.model is not None
        shown = GrowthClass.from_model(now.model)
        for kind, bound in self.bounds_for(now.kernel.name):
            beyond = products_beyond(shown, bound.bound)
            if beyond and kind not in findings.decided:
                said = f"{_class_text(now.model)} measured, {bound.describe()} expected"
                p = self._product(now, None, beyond, said, kind, findings)
                key = "violation" if kind == "expectation" else kind
                probabilities[key] = max(probabilities.get(key, 0.0), p)
        if before is None or before.model is None:
            return
        base = GrowthClass.from_model(before.model)
        beyond = products_beyond(shown, base)
        if beyond and "regression" not in findings.decided:
            said = f"{_class_text(now.model)} now, {_class_text(before.model)} in the baseline"
            p = self._product(now, before, beyond, said, "regression", findings)
            probabilities["regression"] = max(probabilities.get("regression", 0.0), p)

    def _product(
        self,
        now: KernelAnalysis,
        before: KernelAnalysis | None,
        beyond: list[Monomial],
        said: str,
        kind: str,
        findings: _Findings,
    ) -> float:
        """The finding on the products ``beyond``: decisive where every pair in them
        interacts on the grid (and, against a baseline, did not there); its probability."""
        tests: list[tuple[Interaction | None, Interaction | None]] = []
        for monomial in beyond:
            names = [q for q, _, _ in monomial.factors]
            for i, a in enumerate(names):
                for b in names[i + 1 :]:
                    then = None if before is None else _interaction(before, self.parameters, a, b)
                    tests.append((_interaction(now, self.parameters, a, b), then))
        if any(t is None for t, _ in tests):
            why = (
                "without repetitions the grid's corners cannot be weighed against a sum "
                "(not enough to fail; measure each point several times)"
                if point_error(now.lines) is None
                else "no rectangle of the grid is measured at all four corners to show "
                "whether the parameters interact (not enough to fail; measure a grid, or "
                "the far corner)"
            )
            within = f"{said}: each parameter's lines stay within, and {why}"
            findings.undecide(Reason(kind, within))
            return math.nan
        decisive = all(
            t is not None and t.decisive(*DECISIVE) and (b is None or b.z < DECISIVE[1])
            for t, b in tests
        )
        weakest = min((t for t, _ in tests if t is not None), key=lambda t: t.z)
        p = 0.5 * (1 + math.erf(weakest.z / math.sqrt(2)))
        earlier = [b for _, b in tests if b is not None]
        was = (
            f"; in the baseline ×{earlier[0].ratio:.3g} ({earlier[0].z:.1f} errors)"
            if earlier
            else ""
        )
        message = f"{said}; {weakest.describe()}{was}"
        # lines of one parameter read a product as its parts: their findings say nothing
        if decisive:
            findings.reasons = [r for r in findings.reasons if r.kind != kind]
        findings.add(kind, p, message, decisive=decisive)
        if not decisive and p < findings.suggestive:
            # the shown class is above what it is judged against: never a quiet pass
            findings.undecide(Reason(kind, f"{message} (not enough to fail)"))
        return p

    def _misfit(self, name: str, model: Model, compared: bool, findings: _Findings) -> None:
        """A model no class fits makes what it is judged against inconclusive, not a pass;
        its class's own undecided findings ("1 measured ... likely above it") go: they
        would read the class the misfit reason says means nothing."""
        judged = bool(self.bounds_for(name)) or compared
        if judged and not findings.failed and len(self.parameters) == 1:
            gap = misfit_message(model)
            if gap is not None:
                findings.reasons = [r for r in findings.reasons if r.kind not in _CLASS_KINDS]
                findings.undecide(Reason("misfit", gap))

    # ------------------------------------------------------------------ bounds

    def admitted(self, parameter: str, expectation: Expectation) -> np.ndarray:
        key = (parameter, expectation.op, expectation.describe())
        if key not in self._admitted_cache:
            self._admitted_cache[key] = self._admits(parameter, expectation)
        return self._admitted_cache[key]

    def _admits(self, parameter: str, expectation: Expectation) -> np.ndarray:
        if len(self.parameters) == 1:
            classes = [GrowthClass.from_orders({parameter: o}) for o in CLASSES]
            return np.array([expectation.admits(c) for c in classes])
        bound = expectation.bound.order(parameter)
        if expectation.op == "==":
            return np.array([o == bound for o in CLASSES])
        return np.array([o <= bound for o in CLASSES])

    def _bound(
        self,
        key: tuple[str, str],
        lines: list[LineEvidence],
        expectation: Expectation,
        kind: str,
        findings: _Findings,
    ) -> float:
        """P(the bound is exceeded) along the most damning line; adds the finding.

        A line that exceeds the bound with ``confidence`` fails it only if the violation stays
        at least ``settings.held_out`` likely with any one of its sizes left out.  Otherwise
        the finding is inconclusive, names the size it hinges on, and that held-out
        probability is returned.
        """
        if not lines:
            what = f"too few points to test {expectation.describe()}"
            if len(self.parameters) > 1:  # e.g. n and k grew together at every point
                what += ": no four sizes vary one parameter with the others held"
            findings.undecide(Reason(kind, what))
            return math.nan
        scored = sorted(
            (self._score(key, le, expectation, kind) for le in lines),
            key=lambda item: -item.p,  # stable: ties keep the lines' order
        )
        decided = self._decisive(key, scored, expectation, kind, findings)
        if decided is not None:
            return decided
        return self._undecided_bound(scored, expectation, kind, findings)

    def _score(
        self, key: tuple[str, str], le: LineEvidence, expectation: Expectation, kind: str
    ) -> _Scored:
        numbers = self.numbers.bounds[key, kind, le.parameter]
        return _Scored(le, self.admitted(le.line.parameter, expectation), numbers)

    def _decisive(
        self,
        key: tuple[str, str],
        scored: list[_Scored],
        expectation: Expectation,
        kind: str,
        findings: _Findings,
    ) -> float | None:
        """The first line that fails the bound -- confident and still so without any one
        size, or failing the bound test (bound_test.py) likewise -- fails it (unless a bend
        explains it); else the first confident line hinging on one size makes the finding
        inconclusive; None when no line with its class outside is either."""
        hinge: tuple[_Scored, HeldOut] | None = None
        for item in scored:
            if item.admitted[shown_class(item.line)]:
                continue  # decisive mass outside, yet the class a person reads is inside
            if item.numbers.fails(self.opts.confidence, self.opts.settings):
                message = bound_message(item.line, item.admitted, expectation, item.p, kind)
                message += test_message(item.numbers.tested, item.p, self.opts.confidence)
                bend = self._excused(key, item.admitted, expectation, item.line)
                if bend is not None:
                    findings.undecide(Reason(kind, f"{message}; {bend}"))
                else:
                    message += self._beyond_the_caches(key, expectation, item.line)
                    findings.add(kind, item.p, message, decisive=True)
                return item.p
            if hinge is None and item.numbers.held_out is not None:
                hinge = (item, item.numbers.held_out)
        if hinge is None:
            return None
        item, held = hinge
        size = numbers.at(item.line.line.parameter, held.size)
        message = (
            f"{bound_message(item.line, item.admitted, expectation, item.p, kind)}; but it "
            f"hinges on {size}: without it {percent(held.probability)} (not enough to fail; "
            f"re-measure {size})"
        )
        findings.undecide(Reason(kind, message))
        findings.hinges.append(size)
        return held.probability

    def _beyond_the_caches(
        self, key: tuple[str, str], expectation: Expectation, le: LineEvidence
    ) -> str:
        """What a timed fail adds where its rise is beyond the caches' allowance yet within
        its square -- as far as random access can go (L1 to memory latency is x50-100), not
        a gap of n over the range: that the other metric tells the readings apart."""
        memory = self._memory(key, expectation, le)
        if memory is None or not (memory.whole or memory.climb):
            return ""
        return f"; {beyond_allowance(memory)}" if memory.rise <= memory.explainable**2 else ""

    def _undecided_bound(
        self, scored: list[_Scored], expectation: Expectation, kind: str, findings: _Findings
    ) -> float:
        """No line fails the bound outright: pass, or inconclusive when a class reads above
        it or the probability is decisive while the class a person reads is inside."""
        first = scored[0]
        shown_outside = [s for s in scored if not s.admitted[shown_class(s.line)]]
        if first.p >= self.opts.confidence or (first.p < self.opts.suggestive and shown_outside):
            # A class that reads above the bound never passes quietly, and a decisive
            # probability whose likeliest class is inside never fails.
            item = (shown_outside or scored)[0]
            message = bound_message(item.line, item.admitted, expectation, item.p, kind)
            findings.undecide(Reason(kind, f"{message} (not enough to fail)"))
            return item.p
        message = bound_message(first.line, first.admitted, expectation, first.p, kind)
        findings.add(kind, first.p, message)
        return first.p

    def _bend(self, key: tuple[str, str], admitted: np.ndarray, le: LineEvidence) -> str | None:
        """Why a bound failed over the whole range is not decided by the sizes beyond a bend
        inside it, or None: no bend, or the sizes before or beyond it fail the bound too."""
        bend = self.bends.get(key)
        if bend is None:
            return None
        if bend.tail:
            return self._tail(bend, admitted, le)

        def side(analysis: KernelAnalysis | None) -> tuple[LineEvidence | None, float]:
            return self._side(analysis, admitted, le)

        if side(bend.before)[1] >= self.opts.confidence:
            return None  # the sizes before the bend exceed the bound by themselves
        lo, hi = (numbers.at(bend.parameter, v) for v in (bend.below, bend.above))
        where = (
            f"the curve bends between {lo} and {hi}, as where the working set leaves a cache level"
        )
        advice = f"measure more sizes beyond {hi}, or the instructions metric, to decide"
        u, p = side(bend.beyond)
        if u is None:
            return f"but {where}, and fewer than {BEND_UPPER_SIZES} sizes lie beyond it: {advice}"
        if p >= self.opts.confidence:
            return None
        top = numbers.at(le.parameter, float(np.max(u.group.x)))
        beyond = (
            f"but {where}, and from {hi} to {top} it grows as "
            f"{class_text(le.parameter, shown_class(u))} ({percent(p)} sure that part exceeds "
            "the bound"
        )
        if p >= _WEAK_PASS:  # as likely over the bound there as not: not "not a class"
            return (
                f"{beyond}, not enough to fail): measure sizes beyond {top}, or the "
                "instructions metric, to decide"
            )
        # enough sizes beyond it, within the bound by themselves: more of them would not
        # decide what only another metric can (a step or a class over the whole range)
        return f"{beyond}): a step on this metric, not a class; the instructions metric decides"

    def _side(
        self, analysis: KernelAnalysis | None, admitted: np.ndarray, le: LineEvidence
    ) -> tuple[LineEvidence | None, float]:
        """A part of the range's line along le's parameter and P(it exceeds the bound by
        itself); (None, nan) without one."""
        own = [u for u in (analysis.lines if analysis else ()) if u.parameter == le.parameter]
        if not own:
            return None, math.nan
        return own[0], float(bound_probabilities(own, admitted[None, :], self.opts.settings)[0])

    def _tail(self, bend: _Bend, admitted: np.ndarray, le: LineEvidence) -> str | None:
        """Why a count that exceeds its bound over the whole range is not decided, where its
        largest sizes stay within it by themselves: the growth below them does not go on."""
        top_line, p = self._side(bend.beyond, admitted, le)
        if top_line is None or p > _TAIL_WITHIN:
            return None
        largest = float(np.max(top_line.group.x))
        lo, top = (numbers.at(le.parameter, v) for v in (bend.above, largest))
        shown = shown_class(top_line)
        grows = f"grows as {class_text(le.parameter, shown)}" if shown else "does not grow"
        return (
            f"but over its largest {BEND_UPPER_SIZES} sizes, {lo} to {top}, it {grows} "
            f"({percent(p)} sure that part exceeds the bound): the growth of the smaller sizes "
            "does not go on; measure larger sizes to decide"
        )

    def _excused(
        self, key: tuple[str, str], admitted: np.ndarray, expectation: Expectation, le: LineEvidence
    ) -> str | None:
        """Why a bound failed over the whole range is not decided on this metric -- a bend in
        the range, or the memory hierarchy (memory.py) -- or None.  Where the machine's cache
        sizes are known, neither excuses more rise than the levels the range can span --
        unless the sizes beyond the bend are enough to judge the bound by themselves and
        do not exceed it: then the rise is a step (std::sort of one input repeated: ×9 per
        element where the branch predictor stops holding it, n log n on both sides), not
        a class the caches would have to explain."""
        memory = self._memory(key, expectation, le)
        bend = self._bend(key, admitted, le)
        judged_beyond = bend is not None and self.bends[key].beyond is not None
        if memory is not None and not memory.explained and not judged_beyond:
            return None
        if bend is not None:
            return bend
        return memory.describe() if memory is not None and memory.excuses else None

    def _memory(
        self, key: tuple[str, str], expectation: Expectation, le: LineEvidence
    ) -> MemoryExcess | None:
        """The excess of a timed kernel over the bound against the measuring machine's cache
        levels (run.machine.caches), or None: not timed, no cache sizes, no rise."""
        if key[1] not in TIMED_METRICS or not self.caches:
            return None
        order = expectation.bound.order(le.parameter)
        unit = "call" if not any(order) else unit_text(le.parameter, order)
        ev, row = le.group, le.row
        fixed = float(ev.coef[row, ev.best[row], 0])  # the shown model's constant
        return memory_excess(le.parameter, le.line.x, _medians(le), order, unit, self.caches, fixed)

    def _memory_pair(
        self, key: tuple[str, str], pair: tuple[LineEvidence, LineEvidence]
    ) -> MemoryExcess | None:
        """How much a timed candidate's time relative to the baseline's rises over the sizes
        both measured, against the measuring machine's cache levels (memory.py), or None."""
        if key[1] not in TIMED_METRICS or not self.caches:
            return None
        (now, before), common = pair, np.intersect1d(pair[0].line.x, pair[1].line.x)
        here, there = (_medians(le)[np.isin(le.line.x, common)] for le in (now, before))
        return relative_excess(now.parameter, common, here, there, self.caches)

    # ------------------------------------------------------------------ baseline

    def _regression(
        self,
        key: tuple[str, str],
        pairs: list[tuple[LineEvidence, LineEvidence]],
        findings: _Findings,
        models: tuple[Model, Model | None],
    ) -> tuple[float, float]:
        """P(the class grew) along the most damning line, and the best P(improved).

        A decisive growth must not hinge on one size either: with any size both runs share
        left out it must stay at least ``settings.held_out`` likely, else it is
        inconclusive and names that size.
        """
        settings = self.opts.settings
        results = [self.numbers.comparisons[key, c.parameter] for c, _ in pairs]
        regs = [r.regression for r in results]
        imps = [r.improvement for r in results]
        i = int(np.argmax(regs))
        p = regs[i]
        message = pair_message(pairs[i], results[i], p, "regression")
        if grew_no_faster(pairs[i], results[i]):
            # the baseline's class, and no more growth over the sizes both measured: only
            # the class posteriors' lean would point to a regression (an A/A of equal counts
            # read "grew x175, less than the baseline's x176; ... 87.5%"): nothing to decide,
            # but a high P(worse) beside a pass is explained
            if p >= self.opts.suggestive:
                findings.note(Reason("regression", no_faster_message(pairs[i], results[i], p)))
        elif p >= self.opts.confidence and not _classes_grew(results[i]):
            # Decisive odds but the two runs' own classes read the same: say so, do not fail.
            findings.undecide(Reason("regression", f"{message} (not enough to fail)"))
        elif p >= self.opts.confidence:
            held_out = results[i].held_out or HeldOut(1.0, math.nan)
            held, at = held_out.probability, held_out.size
            memory = self._memory_pair(key, pairs[i])
            ahead = self._ahead_at_target(models, [c for c, _ in pairs])
            if memory is not None and memory.excuses:
                findings.undecide(Reason("regression", f"{message}; {memory.describe()}"))
            elif ahead is not None:
                findings.undecide(
                    Reason("regression", f"{message}; but {ahead} (not enough to fail)")
                )
            elif held >= settings.held_out:
                findings.add("regression", p, message)
            else:
                size = numbers.at(pairs[i][0].parameter, at)
                findings.undecide(
                    Reason(
                        "regression",
                        f"{message}; but it hinges on {size}: without it {percent(held)} "
                        f"(not enough to fail; re-measure {size})",
                    )
                )
                findings.hinges.append(size)
                p = held
        elif p < self.opts.suggestive and _classes_grew(results[i]):
            # The classes a person reads grew, the evidence is weak: never a quiet pass.
            findings.undecide(Reason("regression", f"{message} (not enough to fail)"))
        else:
            findings.add("regression", p, message)
        # Each direction is weighed against no change, so both can lean the same run; a
        # line at most 1 - P(grew) likely to have improved reads as one, and only where the
        # classes a person reads fell.
        better = [min(imp, 1.0 - reg) for imp, reg in zip(imps, regs)]
        j = int(np.argmax(better))
        if better[j] >= self.opts.confidence and results[j].cand_class < results[j].base_class:
            findings.note(
                Reason("improvement", pair_message(pairs[j], results[j], better[j], "improvement"))
            )
        return p, better[j]

    def _ahead_at_target(
        self, models: tuple[Model, Model | None], lines: list[LineEvidence]
    ) -> str | None:
        """Where a target is given and the candidate's model is still below the baseline's
        there, why a class regression does not fail: the classes part beyond the scale the
        user cares about (n^(2/3) log^2 n -> n at a tenth of the cost overtakes at 2^29)."""
        model, base = models
        if (
            not self.opts.target
            or base is None
            or predicts_nothing(model)
            or predicts_nothing(base)
        ):
            return None
        at = _target_point(model, self.opts.target, lines)
        ratio = float(model.evaluate(at) / base.evaluate(at))
        if not (math.isfinite(ratio) and 0 < ratio < 1):
            return None
        where = ", ".join(numbers.at(p, v) for p, v in at.items())
        factor = numbers.factor(ratio)
        cross = _crossing(model, base, at, self.opts.target)
        beyond = (
            f"; the two cross near {', '.join(numbers.at(p, v) for p, v in cross.items())}: "
            "a --target there judges that scale"
            if cross
            else ""
        )
        return f"it stays faster than the baseline up to the target ({factor} at {where}{beyond})"

    def _growth_pair(self, now: _Fast, base: _Fast, findings: _Findings) -> tuple[float, float]:
        """The baseline comparison when either run grows faster than any class.

        Their classes would then compare least-bad fits: exponential-like against a class
        is a regression (or an improvement the other way round), both exponential-like is
        no class change.  NaN, NaN when neither is: the classes decide.
        """
        sure = self.opts.confidence
        if now.probability >= sure and not base.probability >= sure:
            p = now.probability * (1 - base.probability)
            message = f"{now.describe()}; the baseline grows as a class does"
            findings.add("regression", p, message)
            return p, 0.0
        if base.probability >= sure and not now.probability >= sure:
            p = base.probability * (1 - now.probability)
            message = f"the baseline {base.describe()}; the candidate grows as a class does"
            findings.note(Reason("improvement", f"{message} ({percent(p)} sure)"))
            return 0.0, p
        if now.probability >= sure:
            findings.note(Reason("regression", f"{now.describe()}{SAME_GROWTH}"))
            return 0.0, 0.0
        return math.nan, math.nan

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
        # where no class describes the values, no model predicts beyond them: the measured ratio
        why = (
            "no class describes exponential growth"
            if "exponential-like" in (model.complexity(), base.complexity())
            else "no class fits these values"
            if any(misfit_model(m) for m in (model, base))
            else None
        )
        # without a target the largest size measured is read, and where both runs measured it
        # the change is measured: two models read there can differ from what both measured
        if why is not None or (not self.opts.target and _top_measured_by_both(lines, pairs)):
            change = _measured_change(pairs, findings, why)
            # known as well as its two points: their repetitions and a size's drift as
            # assumed (the fitted drift also holds a class's misfit, e.g. exponential growth)
            errors = [_measured_error(le) for le in (pairs[0] if pairs else ())]
        else:
            change = self._modelled_change(model, base, lines, findings)
            errors = [float(le.evidence.sigma[0]) for le in (pairs[0] if pairs else ())]
        if change is None:
            return None
        self._slowdown(*change, errors, findings)
        return change[0]

    def _modelled_change(
        self, model: Model, base: Model, lines: list[LineEvidence], findings: _Findings
    ) -> tuple[float, str] | None:
        """Candidate / baseline as the two models predict at the target, and where (a note)."""
        at = _target_point(model, self.opts.target, lines)
        ratio = float(model.evaluate(at) / base.evaluate(at))
        if not math.isfinite(ratio) or ratio <= 0:
            return None
        where = ", ".join(numbers.at(p, v) for p, v in at.items())
        fewest = min((len(le.group.x) for le in lines), default=DECIDING_POINTS)
        # a class picked from two to four sizes, read far beyond them (x991 from 3 sizes
        # beside x468 from 2 of the same data): say what the figure rests on
        few = f"read from {fewest} sizes, " if fewest < DECIDING_POINTS else ""
        findings.note(
            Reason(
                "change",
                f"{numbers.factor(ratio)} the baseline at {where} ({few}includes any "
                f"difference in runner speed){_change_range(model, base, at)}",
            )
        )
        return ratio, where

    def _slowdown(
        self, ratio: float, where: str, errors: Sequence[float], findings: _Findings
    ) -> None:
        """The opt-in ``max_slowdown`` failure on the change, however it was read; ``errors``:
        the relative errors of the candidate's and the baseline's value there."""
        limit = self.opts.max_slowdown
        if limit is None or ratio < limit:
            return
        sure = ratio / math.exp(2.33 * math.hypot(*errors)) >= limit
        message = (
            f"{numbers.factor(ratio)} the baseline's time at {where}, above the limit of "
            f"{numbers.factor(limit)}"
        )
        findings.add("slowdown", 1.0 if sure else self.opts.suggestive, message)


def _medians(le: LineEvidence) -> np.ndarray:
    """The median of each size's repetitions, in the line's order of sizes."""
    return np.array([float(np.median(v)) for v in le.line.values])


def _measured_ratio(pairs: list[tuple[LineEvidence, LineEvidence]]) -> tuple[float, float] | None:
    """Candidate / baseline point value at the largest size both runs have, and that size."""
    if not pairs:
        return None
    cand, base = pairs[0]
    common = np.intersect1d(cand.group.x, base.group.x)
    if not len(common):
        return None
    top = float(common.max())
    now = float(cand.group.y[cand.row][cand.group.x == top][0])
    before = float(base.group.y[base.row][base.group.x == top][0])
    ratio = now / before if before > 0 else math.nan
    return (ratio, top) if math.isfinite(ratio) and ratio > 0 else None


def _measured_change(
    pairs: list[tuple[LineEvidence, LineEvidence]], findings: _Findings, why: str | None = None
) -> tuple[float, str] | None:
    """Candidate / baseline as measured at the largest size both runs have, and where (a note;
    ``why`` no model's prediction is used, where that is the reason)."""
    measured = _measured_ratio(pairs)
    if measured is None:
        return None
    ratio, top = measured
    where = numbers.at(pairs[0][0].parameter, top)
    because = f"{why}, so no model predicts beyond it; " if why else ""
    findings.note(
        Reason(
            "change",
            f"{numbers.factor(ratio)} the baseline at {where}, as measured ({because}includes "
            "any difference in runner speed)",
        )
    )
    return ratio, where


def _measured_error(le: LineEvidence) -> float:
    """The relative error of a line's value at one size: its repetitions' and the assumed
    per-size drift (``Evidence.assumed_error``); the evidence's own where none were repeated."""
    error = float(le.group.assumed_error[le.row])
    return error if math.isfinite(error) else float(le.group.sigma[le.row])


def _top_measured_by_both(
    lines: list[LineEvidence], pairs: list[tuple[LineEvidence, LineEvidence]]
) -> bool:
    """A one-parameter kernel whose largest size the baseline measured too."""
    if len(lines) != 1 or len(pairs) != 1:
        return False
    cand, base = pairs[0]
    return max(cand.line.x) in set(base.line.x)


def _paired(
    lines: list[LineEvidence], before: KernelAnalysis | None
) -> list[tuple[LineEvidence, LineEvidence]]:
    """Each line with the baseline's line along the same parameter, where it has one."""
    if before is None or before.model is None:
        return []
    base = {le.parameter: le for le in before.lines}
    return [(le, base[le.parameter]) for le in lines if le.parameter in base]


def _cut_message(cut: _CutShort, regressed: bool) -> str:
    """Why the classes were compared over fewer sizes (the change reason gives the ratio at
    the top size both measured: one figure, not a second statistic of it here); after a
    regression that failed on them, the shorter reach is one more sign of it."""
    top = numbers.at(cut.parameter, cut.largest)
    whole = f" (where it reads {cut.baseline_class})" if cut.baseline_class else ""
    head = (
        f"measured only up to {top}, the baseline up to "
        f"{numbers.at(cut.parameter, cut.baseline_largest)}{whole}: "
    )
    if regressed:
        return (
            head + f"the candidate reached its time limit sooner, as a kernel that grows faster "
            f"does; the classes above are compared up to {top}"
        )
    return (
        head + "the candidate reached its time limit sooner, or was given a smaller budget; "
        f"classes compared up to {top} (re-measure with the baseline's sizes to decide)"
    )


@dataclass(frozen=True)
class _Fast:
    """How sure it is that a kernel grows faster than any class, along its steepest line."""

    probability: float
    parameter: str = ""
    factor: float = math.nan
    step: tuple[float, float] = (math.nan, math.nan)

    def describe(self) -> str:
        lo, hi = (numbers.at(self.parameter, x) for x in self.step)
        return (
            f"grows faster than any class at its top sizes: {numbers.factor(self.factor)} from "
            f"{lo} to {hi} (exponential-like, {percent(self.probability)} sure)"
        )


def _fastest(lines: list[LineEvidence]) -> _Fast:
    """The line most surely growing faster than any class (probability 0 without lines)."""
    best = _Fast(0.0)
    for le in lines:
        beyond, row = le.group.beyond, le.row
        p = float(beyond.probability[row])
        if p > best.probability:
            step = (float(beyond.step_from[row]), float(beyond.step_to[row]))
            best = _Fast(p, le.parameter, float(beyond.factor[row]), step)
    return best


def _classes_grew(result: Comparison) -> bool:
    """The candidate's own likeliest class is above the baseline's."""
    return result.grew


def _class_text(model: Model) -> str:
    """``p n``: the class as the table shows it, without its O( )."""
    text = model.complexity()
    return text[2:-1] if text.startswith("O(") and text.endswith(")") else text


def _interaction(
    analysis: KernelAnalysis, parameters: tuple[str, ...], a: str, b: str
) -> Interaction | None:
    """Parameters a and b's interaction on the kernel's grid, with its lines' point error
    (None without repetitions to weigh it, or without a whole rectangle)."""
    error = point_error(analysis.lines)
    if error is None:
        return None
    return interaction(analysis.kernel, parameters, a, b, error)


def _crossing(
    model: Model, base: Model, at: Mapping[str, float], target: Mapping[str, float]
) -> dict[str, float] | None:
    """Where, scaling the target's parameters up together from ``at``, the candidate's model
    first reaches the baseline's (in steps of 2^(1/4), up to 2^60 times): None if never."""
    steps = 2.0 ** (np.arange(1, 241) / 4)
    for step in steps:
        point = {p: v * step if p in target else v for p, v in at.items()}
        ratio = float(model.evaluate(point) / base.evaluate(point))
        if not math.isfinite(ratio):
            return None
        if ratio >= 1:
            return {p: v for p, v in point.items() if p in target}
    return None


def _remeasure(model: Model | None, base: Model | None, hinges: Sequence[str] = ()) -> list[str]:
    """Re-measuring a size a finding hinges on, or whose values are far off the model the
    others fit (a whole point slowed, or sped up, by the machine), decides more than any
    other tip: a suite's one kernel -53% off at n=16384 read "n^5 now, log n in the
    baseline; 94.1%" and ranked first at the target, its advice silent on the size."""
    tips, named = [], set()
    for m, whose in ((model, ""), (base, " in the baseline")):
        drift = m.extra("drift") if m is not None and not misfit_model(m) else None
        if isinstance(drift, DriftDetail):
            where = numbers.at(drift.parameter, drift.at)
            tips.append(f"re-measure {where}{whose} ({drift.sentence()})")
            named.add(where)
    tips += [
        f"re-measure {size} (the finding hinges on it)"
        for size in dict.fromkeys(hinges)
        if size not in named
    ]
    return tips


_WIDE_CHANGE = 4.0  # a change read beyond the sizes whose interval spans more than this


def _change_range(model: Model, base: Model, at: Mapping[str, float]) -> str:
    """Where the two runs' prediction intervals at the target leave the change uncertain by
    more than ``_WIDE_CHANGE`` (a class only 57% likely, read x30 beyond its sizes: x236,707
    where the truth was x225), the range they allow; else nothing."""
    now, before = (m.extra("prediction") for m in (model, base))
    if not (isinstance(now, PredictionDetail) and isinstance(before, PredictionDetail)):
        return ""
    if {now.parameter: now.prediction.at} != dict(at) or now.prediction.at != before.prediction.at:
        return ""
    (lo, hi), (b_lo, b_hi) = ((d.prediction.low, d.prediction.high) for d in (now, before))
    if not all(math.isfinite(v) and v > 0 for v in (lo, hi, b_lo, b_hi)):
        return ""
    low, high = lo / b_hi, hi / b_lo
    if high / low <= _WIDE_CHANGE:
        return ""
    return f"; the runs' 90% intervals there allow {numbers.factor(low)} to {numbers.factor(high)}"


def _target_point(
    model: Model, target: Mapping[str, float], lines: list[LineEvidence]
) -> dict[str, float]:
    """The target, with the largest measured value for any parameter it does not name."""
    largest = {le.line.parameter: max(le.line.x) for le in lines}
    return {p: float(target.get(p, largest.get(p, 1.0))) for p in model.parameters}


_CLASS_KINDS = ("expectation", "max_class", "regression")
_WEAK_PASS = 0.5  # on too few sizes, a class finding at least this likely is inconclusive


class _Findings:
    """Collects reasons and what they mean for the verdict."""

    def __init__(self, confidence: float, suggestive: float) -> None:
        self.confidence, self.suggestive = confidence, suggestive
        self.reasons: list[Reason] = []
        self.failed = self.undecided = self.violates = self.regression = False
        self.decided: set[str] = set()  # the kinds a finding failed on
        self.errored = False  # its benchmark crashed or timed out at some size
        self.weak: str | None = None  # why class findings cannot fail (too few sizes)
        self.hinges: list[str] = []  # sizes a finding hinges on ("n=32768"): re-measure them

    def add(self, kind: str, p: float, message: str, decisive: bool | None = None) -> None:
        """A finding of probability p; ``decisive`` overrides p >= confidence (a test)."""
        decisive = p >= self.confidence if decisive is None else decisive
        if self.weak and kind in _CLASS_KINDS and (decisive or p >= _WEAK_PASS):
            # too few sizes to fail on, and as likely over the bound as not: no pass either
            # (three sizes of log^2 p read "pass, <= log p, 52%", silently)
            self.undecide(Reason(kind, f"{message} ({self.weak})"))
        elif decisive:
            self.failed = True
            self.decided.add(kind)
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
    def verdict(self) -> VerdictName:
        if self.failed:
            return "fail"
        if self.errored:
            return "error"
        return "inconclusive" if self.undecided else "pass"
