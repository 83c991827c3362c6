"""The sentences of a check: each reason and note a person reads, from the numbers.

``check.py`` judges (probabilities, held-out sizes, bends, ranges); this module words what
it found -- a bound's violation and where to look, a growth against the baseline over the
sizes both runs measured, what would decide an inconclusive verdict, and the kernels
nothing judged -- so the verdicts and their wording can change apart.
"""

from __future__ import annotations

import difflib
import functools
import math
from collections.abc import Collection, Sequence

import numpy as np

from .. import numbers
from ..measurements import MeasurementSet
from ..modeling.analysis import DECIDING_POINTS, LineEvidence
from ..modeling.evidence import SPACE, Evidence
from ..modeling.growth import misfit
from ..modeling.pmnf import Model
from .batch import Comparison
from .bound_test import DRAWS
from .classes import GrowthClass, Order
from .evidence import CLASSES
from .expectation import Expectation, ExpectationRule
from .verdicts import Verdict

__all__ = [
    "MAX_ADVISED_REPETITIONS",
    "QUIET_NOISE",
    "advice",
    "bound_message",
    "class_text",
    "misfit_message",
    "missing_notes",
    "grew_no_faster",
    "pair_message",
    "percent",
    "shown_class",
    "test_message",
    "unit_text",
    "unjudged_notes",
]

QUIET_NOISE = 0.03  # per-repetition noise at which six doubling sizes separate close classes
MAX_ADVISED_REPETITIONS = 50


def unjudged_notes(
    verdicts: Sequence[Verdict],
    rules: Sequence[ExpectationRule],
    ceiling: Expectation | None,
    compared: bool = False,
) -> tuple[str, ...]:
    """A note naming the kernels nothing judged (no bound, no baseline), so that a mistyped
    rule or a baseline of another suite does not read as a pass; rules that match no kernel
    are named with the kernel they most likely meant.  ``compared``: a baseline was given."""
    names = list(
        dict.fromkeys(
            v.kernel
            for v in verdicts
            if ceiling is None
            and v.expectation is None
            and v.baseline_model is None
            and v.verdict != "error"
        )
    )
    notes = []
    if names:
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        them = "it" if len(names) == 1 else "them"
        bounds = "bounds under expect: in perfguard.yml (or --expect 'GLOB=<= n log n')"
        alone = f"to judge {them} on {'its' if len(names) == 1 else 'their'} own"
        # other kernels met their baseline: these are new since it, not a sign of another suite
        if compared and any(v.baseline_model is not None for v in verdicts):
            where = (
                f"new since the baseline, which has no kernel of that name; declare {bounds} "
                + alone
            )
        elif compared:
            where = (
                f"the baseline has no kernel of that name and no bound covers {them}; is the "
                f"baseline a run of the same benchmarks? Declare {bounds} {alone}"
            )
        else:
            where = f"declare {bounds}, or give --baseline a run to compare with"
        notes.append(
            f"{numbers.counted(len(names), 'kernel')} had no expectation and no baseline, so "
            f"nothing judged {them} (modelled only): {shown}; {where}"
        )
    everyone = list(dict.fromkeys(v.kernel for v in verdicts))
    unmatched = [
        (r, difflib.get_close_matches(r.pattern, everyone, n=1, cutoff=0.5))
        for r in rules
        if not any(r.matches(k) for k in everyone)
    ]
    if not names:
        # every kernel judged: one config serves files of other kernels, so only a rule
        # that looks like a typo of a kernel here is worth a note -- or one typed for this
        # check (--expect), which a typo must not turn into a silent pass
        unmatched = [(r, near) for r, near in unmatched if near or r.source.startswith("--")]
    for rule, near in unmatched[:5]:
        # a rule also matches the kernel its text spells, brackets and all
        hint = f"; did you mean {near[0]!r}?" if near else ""
        notes.append(f"{rule.source}: {rule.pattern!r} matches no kernel here{hint}")
    if len(unmatched) > 5:
        more = len(unmatched) - 5
        verb = "matches" if more == 1 else "match"
        notes.append(f"{numbers.counted(more, 'more rule')} {verb} no kernel here")
    notes += _shadowed(rules, everyone)
    return tuple(notes)


def _shadowed(rules: Sequence[ExpectationRule], kernels: Sequence[str]) -> list[str]:
    """A --expect that matches kernels an earlier rule judges first: it judged nothing, and
    `--expect '*=<= n^2' --expect 'quad=<= n'` passed quad against n^2 without a word."""
    out = []
    for i, rule in enumerate(rules):
        if not rule.source.startswith("--"):
            continue  # a config's rules: one file's order, read as written
        matched = [k for k in kernels if rule.matches(k)]
        first = [next(j for j, r in enumerate(rules) if r.matches(k)) for k in matched]
        if matched and all(j < i for j in first):
            earlier = rules[min(first)]
            out.append(
                f"{rule.source}: judged no kernel: {earlier.source} ({earlier.pattern!r}) "
                f"matches {'it' if len(matched) == 1 else 'them'} first; give the narrower "
                "rule first"
            )
    return out


def missing_notes(
    baseline: MeasurementSet | None, now: Collection[tuple[str, str]]
) -> tuple[str, ...]:
    """The baseline's kernels the current run lacks: each by name, or where the two share no
    kernel at all, one note that says so (a baseline of another suite compares nothing)."""
    if baseline is None:
        return ()
    missing = [k for k in baseline.kernels if k.key not in now]
    if missing and len(missing) == len(baseline.kernels):
        names = list(dict.fromkeys(k.name for k in missing))
        shown = ", ".join(names[:5])
        more = f" and {len(names) - 5} more" if len(names) > 5 else ""
        # the same names of another metric (time against custom) compare nothing either
        named = {name for name, _ in now} & set(names)
        metrics = sorted({k.metric for k in missing})
        ours = sorted({metric for name, metric in now if name in named})
        other = (
            f"; {', '.join(sorted(named))} {'is' if len(named) == 1 else 'are'} there, but of "
            f"metric {', '.join(metrics)} where these are {', '.join(ours)}"
            if named
            else ""
        )
        return (
            f"the baseline shares no kernel with the current measurements, so nothing was "
            f"compared (the baseline has {shown}{more}{other}): compare with a run of the "
            "same benchmarks",
        )
    return tuple(
        f"{k.name} ({k.metric}) is in the baseline but not in the current measurements"
        for k in missing
    )


def misfit_message(model: Model) -> str | None:
    """Why a model no class fits cannot pass its bound or baseline quietly (growth.misfit):
    the class it shows was the least bad of bad fits."""
    if not misfit(model.smape, model.extras):
        return None
    segments = model.extra("segments") or []
    where = (
        f"; {segments[-1]['sentence']}: judge the sizes beyond the change (measure more "
        "there), or model each side separately"
        if segments
        else "; look at the values for a step or a peak inside the range"
    )
    return (
        f"no class fits the measured values: the model misses them by "
        f"{model.smape:.0f}% (SMAPE), so its class, {model.complexity()}, says nothing about "
        f"the bound or the baseline{where}"
    )


def percent(p: float) -> str:
    return numbers.probability(p)


@functools.lru_cache(maxsize=1024)
def class_text(parameter: str, h: int) -> str:
    return GrowthClass.from_orders({parameter: CLASSES[h]}).text()


def unit_text(parameter: str, order: Order) -> str:
    return GrowthClass.from_orders({parameter: order}).text()


def shown_class(ev: Evidence | LineEvidence) -> int:
    """The class a person reads: the evidence's likeliest (the model's own)."""
    if isinstance(ev, LineEvidence):
        return ev.shown_class
    return int(ev.shown_class[0])


def bound_message(
    le: LineEvidence, admitted: np.ndarray, expectation: Expectation, p: float, kind: str
) -> str:
    param, ev = le.line.parameter, le.evidence
    shown = shown_class(le)
    what = "expected" if kind == "expectation" else "allowed by max_class"
    if admitted[shown]:  # the class shown is inside: say why a violation is still likely
        text = (
            f"{along(le)}{class_text(param, shown)} measured, within {expectation.describe()} "
            f"{what}, "
            f"yet {percent(p)} likely above it: the measurements do not rule out a faster "
            "class"
        )
    else:
        text = (
            f"{along(le)}{class_text(param, shown)} measured, {expectation.describe()} {what}; "
            f"{percent(p)} confident"
        )
    # the bound's own class (the highest it admits), fitted as well as it can be
    top = int(np.flatnonzero(admitted)[-1]) if admitted.any() else 0
    allowed = np.where((SPACE.lead == top) & np.isfinite(ev.rss[0]), ev.rss[0], np.inf)
    best = int(np.argmin(allowed))
    if np.isfinite(allowed[best]):
        ratio = ev.y[0] / ev.fitted(0, best)
        i = int(np.argmax(ratio))
        if ratio[i] > 1.0:
            closest = class_text(param, int(SPACE.lead[best]))
            curve = _best_curve(closest)
            if closest == "1" and le.line.at and not admitted[shown]:
                # <= n^2 on a kernel of p and n: read as "n^2 <= n^2", it puzzled
                curve = (
                    f"above the best constant: {expectation.describe()} does not name "
                    f"{param}, so it allows no growth in {param} (write it with {param}, "
                    f"e.g. {expectation.describe()} {class_text(param, shown)}, to allow it)"
                )
            text += f"; see {numbers.at(param, ev.x[i])}: {numbers.factor(ratio[i])} {curve}"
    return text


def along(le: LineEvidence) -> str:
    """``along p: `` where the kernel has other parameters: its line names the class in this
    one (``p measured`` beside a table's ``O(n p)`` read as a different class)."""
    return f"along {le.line.parameter}: " if le.line.at else ""


def test_message(tested: float, p: float, confidence: float) -> str:
    """What the bound test adds to a violation's sentence (nothing where it did not run):
    where the classes' probability ``p`` is below ``confidence``, that the test decided --
    a fail reading "94.8% confident" alone looked like one below the gate's 99%."""
    if not tested < 1:
        return ""
    closer = round((1 - tested) * (DRAWS + 1))
    test = (
        f"redrawn {DRAWS} times with this kernel's noise, the bound's best fit misses by "
        f"less than the measured values {closer} times (p = {tested:.3g})"
    )
    if p >= confidence:
        return f"; {test}"
    level = f"{1 - confidence:.2g}"
    short = f"{percent(p)} is short of {percent(confidence)}"
    return f"; decided by a test at the {level} level, as {short}: {test}"


def _best_curve(closest: str) -> str:
    """What the measurement is compared with: the bound's own class, fitted at its best."""
    if closest == "1":
        return "above the best constant (the bound allows no growth)"
    return f"above the best {closest} curve (the most the bound allows)"


def grew_no_faster(pair: tuple[LineEvidence, LineEvidence], result: Comparison) -> bool:
    """The candidate shows the baseline's class and grew no more than it over the sizes both
    measured, beyond what the four point values' errors allow (two standard errors of the
    ratio of growths): what a person reads holds no regression, whatever the posteriors
    lean (equal instruction counts grew x140.27 against x140.15, "88.3%")."""
    if result.cand_class != result.base_class:
        return False
    _, _, grown, grown_before = _growths(*pair)
    error = math.sqrt(2 * sum(float(le.group.sigma[le.row]) ** 2 for le in pair))
    return grown <= grown_before * math.exp(2 * error)


def _growths(cand: LineEvidence, base: LineEvidence) -> tuple[float, float, float, float]:
    """(lo, hi, candidate's growth, baseline's growth): each line's value at the largest
    size both measured over its value at the smallest, so that the two factors a sentence
    sets side by side span the same sizes (each line's own ends if they share fewer than 2)."""
    xc, xb = np.asarray(cand.group.x), np.asarray(base.group.x)
    common = np.sort(xc) if np.array_equal(xc, xb) else np.intersect1d(xc, xb)  # equal: usual
    if len(common) < 2:
        return (
            float(xc.min()),
            float(xc.max()),
            _rise(cand, xc.min(), xc.max()),
            _rise(base, xb.min(), xb.max()),
        )
    lo, hi = float(common[0]), float(common[-1])
    return lo, hi, _rise(cand, lo, hi), _rise(base, lo, hi)


def _rise(le: LineEvidence, lo: float, hi: float) -> float:
    """The line's value at ``hi`` over its value at ``lo`` (both among its sizes)."""
    x, y = np.asarray(le.group.x), le.group.y[le.row]
    return float(y[x == hi][0] / y[x == lo][0])


def pair_message(
    pair: tuple[LineEvidence, LineEvidence],
    result: Comparison,
    p: float,
    kind: str,
) -> str:
    cand, base = pair
    param = cand.line.parameter
    now = class_text(param, result.cand_class)
    before = class_text(param, result.base_class)
    if kind == "improvement":
        return (
            f"scales better: {along(cand)}{now} now, {before} in the baseline "
            f"({percent(p)} confident)"
        )
    lo, hi, grown, grown_before = _growths(cand, base)
    span = f"from {numbers.at(param, lo)} to {numbers.size(hi)}"
    if result.shared is not None:  # the sizes both runs measured decided the odds
        xb = base.group.x
        span = (
            f"judged over the sizes both measured (the baseline's {numbers.at(param, min(xb))}"
            f"..{numbers.size(max(xb))}; {numbers.counted(len(cand.group.x), 'size')} now); " + span
        )
    # "its class": where the shown classes or the measured growths do not say it grew
    what = "its class" if grown < grown_before or not result.grew else "it"
    if result.cand_class == result.base_class:  # the odds lean where the classes shown do not
        head = f"{along(cand)}{now} now and in the baseline, yet {percent(p)} likely that {what}"
    elif result.cand_class < result.base_class:
        head = (
            f"{along(cand)}{now} now, {before} in the baseline (each run's likeliest class), "
            f"yet {percent(p)} likely that {what}"
        )
    else:
        head = (
            f"{along(cand)}{now} now, {before} in the baseline; {percent(p)} confident that {what}"
        )
    if grown < grown_before:
        # a class above the baseline's that grew less over these sizes: its fixed cost is
        # larger, or its term overtakes only further out; say which way each points
        return (
            f"{head} grows faster; {span} it grew {numbers.factor(grown)}, less than the "
            f"baseline's {numbers.factor(grown_before)}: a faster class would overtake only "
            "beyond the sizes measured"
        )
    return (
        f"{head} grows faster; {span} it grows {numbers.factor(grown)}, the baseline "
        f"{numbers.factor(grown_before)}"
    )


def no_faster_message(pair: tuple[LineEvidence, LineEvidence], result: Comparison, p: float) -> str:
    """Why a kernel that shows the baseline's class and grew no faster passes, though the
    class probabilities lean toward a faster class by ``p`` (see ``grew_no_faster``)."""
    cand, base = pair
    param = cand.line.parameter
    lo, hi, grown, grown_before = _growths(cand, base)
    return (
        f"{along(cand)}{class_text(param, result.cand_class)} now and in the baseline; from "
        f"{numbers.at(param, lo)} to {numbers.size(hi)} it grew {numbers.factor(grown)}, the "
        f"baseline {numbers.factor(grown_before)}: no faster beyond what the point values' "
        f"errors allow, so the {percent(p)} the class probabilities give a faster class is "
        "not read as a regression"
    )


def advice(
    lines: list[LineEvidence],
    pairs: Sequence[tuple[LineEvidence, LineEvidence]] = (),
    several: bool = False,
    remeasure: Sequence[str] = (),
) -> str:
    """What would decide an inconclusive verdict; ``several``: the kernel has several
    parameters; ``remeasure``: sizes to measure again, first."""
    if not lines and several:
        return "measure each parameter at four sizes or more while the others stay fixed"
    if not lines:
        return "measure at least four sizes"
    tips = list(remeasure)
    for cand, base in pairs:
        lo, hi = cand.line.x[0], cand.line.x[-1]
        if lo < base.line.x[0] or hi > base.line.x[-1]:
            at = numbers.at(cand.line.parameter, lo)
            tips.append(
                f"measure the baseline at {at}..{numbers.size(hi)} too (it has "
                f"{numbers.size(base.line.x[0])}..{numbers.size(base.line.x[-1])})"
            )
    few = [o for o in lines if len(o.line.x) < DECIDING_POINTS]
    if few:  # the gate fails on no fewer sizes: nothing else can decide it
        for o in few:
            x = np.asarray(o.line.x, dtype=float)
            tips.append(
                f"measure at least {DECIDING_POINTS} sizes of {o.line.parameter} (now "
                f"{len(x)}), e.g. up to {numbers.size(_further(x))}"
            )
        return "to decide: " + "; ".join(tips)
    le = max(lines, key=lambda le: float(np.nan_to_num(le.evidence.noise[0], nan=1.0)))
    noise = float(le.evidence.noise[0])
    reps = int(np.median([len(v) for v in le.line.values]))
    if not math.isfinite(noise):
        tips.append("repeat each size at least 5 times (each size holds one value)")
    elif noise > QUIET_NOISE:
        more = min(MAX_ADVISED_REPETITIONS, math.ceil(reps * (noise / QUIET_NOISE) ** 2))
        if more >= 2 * reps:  # "from 189 to 190" would not change a thing
            tips.append(
                f"noise is {noise:.0%} per repetition: raise repetitions from {reps} to "
                f"{more} or use a quieter metric (instructions)"
            )
        else:
            tips.append(
                f"noise is {noise:.0%} per repetition: quiet the machine or use a quieter "
                "metric (instructions)"
            )
    for other in lines:
        if len(other.line.x) < 6:
            tips.append(f"measure more sizes of {other.line.parameter} (now {len(other.line.x)})")
    top = max(lines, key=lambda le: le.line.x[-1] / le.line.x[0])
    if max(float(le.group.beyond.probability[le.row]) for le in lines) >= 0.5:
        tips.append(
            "it may grow exponentially at its top sizes, where larger sizes cost more than "
            "they are worth: repeat the top sizes more often"
        )
    else:
        tips.append(
            f"extend {top.line.parameter} beyond {numbers.size(top.line.x[-1])} "
            f"(e.g. to {numbers.size(_further(np.asarray(top.line.x, dtype=float)))})"
        )
    return "to decide: " + "; ".join(tips)


def _further(x: np.ndarray) -> float:
    """A size worth measuring beyond ``x``: four times the top for sizes that grow by a
    factor, three more steps for evenly spaced ones (n = 2..16 +2: 22, not 64, which for a
    kernel that may grow exponentially would cost 2^48 times the top size)."""
    steps = np.diff(x)
    if len(steps) >= 2 and np.allclose(steps, steps[0]) and x[-1] / x[0] < 16:
        return float(x[-1] + 3 * steps[0])
    return float(4 * x[-1])
