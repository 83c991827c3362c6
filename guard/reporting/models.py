"""What ``perfguard model`` prints: the models table and a line of advice per unsure model."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from rich.console import RenderableType
from rich.markup import escape

from .. import numbers
from ..defaults import PREDICTION_LEVEL
from ..modeling import ModelingResult
from ..modeling.details import (
    ClassConfidence,
    DriftDetail,
    NoiseDetail,
    ParameterConfidence,
    PredictionDetail,
)
from ..modeling.evidence import FEW_POINTS, FEW_POINTS_QUANTILE
from ..modeling.growth import misfit_model, predicts_nothing
from ..modeling.lines import Line
from ..modeling.pmnf import Model
from .summary import class_text, formula_text
from .tables import Column, fit

__all__ = ["UNSURE", "advice_lines", "falling_note", "models_table"]

UNSURE = 0.8  # below this class probability, say what would settle it
FAINT = 0.05  # a parameter moving its line's value less than this (or 3 noises) is unseen
NOISY = 0.2  # a robust noise band wider than this is worth a warning on its own


def models_table(
    results: Sequence[tuple[str, ModelingResult]], predicted: str | None, width: int = 80
) -> RenderableType:
    """One row per model: formula, class, fit, noise, how sure, and the prediction."""
    rows = [(path, m) for path, result in results for m in result.models]
    models = [m for _, m in rows]
    columns = [
        Column("kernel", tuple(m.kernel for m in models)),
        # kept where a kernel has several metrics: its rows could not be told apart
        Column("metric", tuple(m.metric for m in models), drop=0 if _repeated(models) else 2),
        Column("model", tuple(_formula(m) for m in models)),
        Column("class", tuple(class_text(m) for m in models)),
        Column("SMAPE %", tuple(f"{m.smape:.2f}" for m in models), numeric=True, drop=3),
        Column("spread", tuple(_noise(m) for m in models), numeric=True, drop=1),
        Column("sure", tuple(_sure(m) for m in models), numeric=True),
    ]
    if len(results) > 1:
        columns.insert(0, Column("input", tuple(path for path, _ in rows)))
    if predicted:
        level = _level_of(models)
        columns.append(
            Column(
                f"{predicted} ({level:.0%})",
                tuple(_prediction(m) for m in models),
            )
        )
    return fit(columns, width)


def _repeated(models: Sequence[Model]) -> bool:
    """Whether a kernel name stands on several rows (one per metric)."""
    names = [m.kernel for m in models]
    return len(set(names)) < len(names)


def _formula(m: Model) -> str:
    # break points for a narrow column between the terms, never inside one
    return formula_text(m).replace(" + ", " +\u00a0").replace(" - ", " -\u00a0")


def _steep_step(growth: dict[str, Any]) -> str:
    """``×4.17 from n=14 to n=16``: an exponential-like model's top step (growth.growth_json)."""
    (parameter, (lo, hi)), *_ = growth["step"].items()
    return (
        f"{numbers.factor(growth['factor_per_step'])} from {numbers.at(parameter, lo)} to "
        f"{numbers.at(parameter, hi)}"
    )


def _noise(m: Model) -> str:
    return "-" if m.noise is None else numbers.percent(m.noise)


def _sure(m: Model) -> str:
    """How sure the class is, in whole percents cut as check cuts them: never rounded up,
    so never 100% (``>99%``; check's reasons say ``>99.9%`` or the digit)."""
    growth = m.extra("growth")
    conf: ClassConfidence | None = m.extra("confidence")
    each: ParameterConfidence | None = m.extra("parameter_confidence")
    if growth:
        return _percent(growth["probability"])
    if misfit_model(m):
        return "-"
    if conf is not None:
        return _percent(conf.probability)
    if each is not None:  # several parameters: each one's line
        return ", ".join(f"{c.parameter} {_percent(c.probability)}" for c in each.parameters)
    return "-"


def _percent(p: float) -> str:
    """A probability in whole percents, cut, never rounded up: ``>99%``, ``<1%``."""
    if p >= 0.99:
        return ">99%"
    return "<1%" if p < 0.01 else f"{math.floor(p * 100)}%"


def _prediction(m: Model) -> str:
    """The value and interval at --predict's size; none where the model's formula means
    nothing there: no class fits, it grows beyond every class, or it falls (the constant
    shown is only the least bad class of a kernel that keeps falling: its interval spanned
    eighty orders of magnitude)."""
    detail: PredictionDetail | None = m.extra("prediction")
    if detail is None or predicts_nothing(m) or m.extra("falls"):
        return "-"
    p = detail.prediction
    value, low, high = (numbers.compact(v) for v in (p.value, p.low, p.high))
    return f"{value} [{low}..{high}]"


def _level_of(models: Sequence[Model]) -> float:
    for m in models:
        detail: PredictionDetail | None = m.extra("prediction")
        if detail is not None:
            return detail.prediction.level
    return PREDICTION_LEVEL


def outliers_sentence(outliers: Sequence[Mapping[str, Any]]) -> str:
    """The values left out of a model's fit (``_without_outliers``), to be re-measured."""
    shown = "; ".join(
        f"{', '.join(numbers.at(p, v) for p, v in o['at'].items())}: {o['value']:.3g} where "
        f"the model gives {o['model']:.3g}"
        for o in outliers[:4]
    )
    more = f" and {len(outliers) - 4} more" if len(outliers) > 4 else ""
    count = numbers.counted(len(outliers), "value")
    return (
        f"{count} far off every class fit of the others left out of its fit ({shown}{more}); "
        "with them no class fits: re-measure those points"
    )


def advice_lines(
    results: Sequence[tuple[str, ModelingResult]],
    scaled: bool = False,
    predicted: str | None = None,
) -> list[str]:
    """Rich-markup lines: unsure classes, noisy points, changes of behaviour, shifted sizes,
    falling kernels (``scaled``: already converted by ``--scaling strong``; ``predicted``:
    the point --predict asked for, which a falling kernel is not predicted at)."""
    out = []
    several = len({m.metric for _, r in results for m in r.models}) > 1  # name the metric
    for path, result in results:
        falling = falling_note(path, result.models, scaled, predicted)
        if falling:
            out.append(f"[yellow]note[/] {escape(falling)}")
        for m in result.models:
            if m.extra("falls"):
                continue  # the falling note says what the class cannot
            name = escape(f"{m.kernel} ({m.metric})" if several else m.kernel)
            growth = m.extra("growth")
            if growth:
                out.append(
                    f"[yellow]note[/] {name}: grows faster than any class, "
                    f"{escape(_steep_step(growth))} (exponential-like): no model describes it "
                    "or predicts beyond its sizes; the formula in --json is the least bad "
                    "class fit and means nothing"
                )
                continue
            unfit = misfit_model(m)
            if unfit:
                out.append(f"[yellow]note[/] {name}: {escape(_misfit(m))}")
            outliers = m.extra("outliers")
            if outliers:
                out.append(f"[yellow]note[/] {name}: {escape(outliers_sentence(outliers))}")
            line = None if unfit else _advice(m)  # no probability to raise where none fits
            if line:
                out.append(f"[yellow]note[/] {name}: {line}")
            for seg in m.extra("segments") or []:
                out.append(
                    f"[yellow]note[/] {name}: {escape(seg['sentence'])}; one model "
                    "over the whole range misleads: model each side separately or measure "
                    "past the change"
                )
            zeros = m.extra("zero_values")
            if zeros is not None and (m.terms or m.constant != 0):  # not a kernel of zeros
                out.append(
                    f"[yellow]note[/] {escape(m.kernel)} {escape(m.metric)}: "
                    + escape(zeros["note"])
                )
            combination = m.extra("combination")
            if combination is not None:
                out.append(
                    f"[yellow]note[/] {escape(m.kernel)} {escape(m.metric)}: "
                    + escape(combination["note"])
                )
            drift: DriftDetail | None = m.extra("drift")
            if drift is not None and not unfit:  # no size is off a model that fits none
                out.append(f"[yellow]note[/] {name}: {drift.sentence()}; re-measure that size")
    return out


def falling_note(
    source: str, models: Sequence[Model], scaled: bool, predicted: str | None = None
) -> str | None:
    """One plain-text line for a source's kernels whose values fall at every step (see
    modeling/growth.py), with the way to model them; ``scaled``: already total effort;
    ``predicted``: the --predict point, where no falling kernel gets a value."""
    falling = [m for m in models if m.extra("falls")]
    if not falling:
        return None
    m = min(falling, key=lambda m: m.extra("falls")["factor"])
    f = m.extra("falls")
    p = f["parameter"]
    span = (
        f"{numbers.factor(1 / f['factor']).replace('×', '÷')} from {numbers.at(p, f['from'])} "
        f"to {numbers.at(p, f['to'])}"
    )
    if len(falling) > 1:
        who = f"{len(falling)} kernels fall as {p} grows (e.g. {m.kernel} ({m.metric}): {span})"
    else:
        who = f"{m.kernel} ({m.metric}) falls {span}"
    text = (
        f"{source + ': ' if source else ''}{who}; the classes describe growth, so a falling "
        "kernel is modelled as the nearest constant and no verdict can see it lose scalability"
    )
    if predicted is not None:  # the column or the value is missing: say why, not nothing
        text += f", nor is it predicted at {predicted}"
    if scaled:
        return f"{text}, here even as total effort: it scales better than linearly"
    return (
        f"{text}; for a strong-scaling study use --scaling strong: the total effort (each "
        f"value times {p}), as Extra-P converts strong-scaling experiments"
    )


def _misfit(m: Model) -> str:
    where = (
        "see its change of behaviour below"
        if m.extra("segments")
        else "look at the values for a step or a peak inside the range"
    )
    return (
        f"no class fits its values (the model misses them by {m.smape:.0f}%, "
        f"SMAPE): the class shown and its probability say nothing; {where}"
    )


def _advice(m: Model) -> str | None:
    each: ParameterConfidence | None = m.extra("parameter_confidence")
    if each is not None:
        return _parameter_advice(m, each)
    conf: ClassConfidence | None = m.extra("confidence")
    detail: NoiseDetail | None = m.extra("noise_detail")
    noise = detail.robust if detail is not None else None
    noisy = noise is not None and noise > NOISY
    sizes = len(detail.sizes) if detail is not None else FEW_POINTS
    # two sizes tell no class apart however the probabilities fall: a constant and one term
    # pass through any two rising points
    unsure = conf is not None and (conf.probability < UNSURE or sizes == 2)
    if not (noisy or unsure):
        return None
    complexity = m.complexity()
    parts = []
    few = unsure and sizes < FEW_POINTS  # the shown class is a quantile there (evidence.py)
    if unsure and conf is not None:
        others = [f"{c} {_percent(p)}" for c, p in conf.shares() if c != complexity][:3]
        if few:
            told = (
                "2 sizes cannot tell classes apart (the probabilities are mostly the prior's)"
                if sizes == 2
                else f"{sizes} sizes cannot tell neighbouring classes apart"
            )
            held = f"{1 - FEW_POINTS_QUANTILE:.0%} of the probability"
            shown = (  # every class is at or above the constant: say what put it there
                f"{complexity} ({_percent(conf.probability)}) is shown, as the growing classes "
                f"together hold less than {held}"
                if complexity == "O(1)"
                else f"{complexity} ({_percent(conf.probability)}) is the slowest class with "
                f"{held} at or above it"
            )
            parts.append(f"{told}: {shown}")
        else:
            parts.append(f"{complexity} is only {_percent(conf.probability)} likely")
        if others:
            parts.append(f"({', '.join(others)});")
    if few:
        if not parts[-1].endswith(";"):  # no other class listed: "... of the probability;"
            parts[-1] += ";"
        parts.append(f"measure {FEW_POINTS} or more sizes, each repeated, to decide")
        return " ".join(parts)
    if noisy and detail is not None:
        # the range (seed 004's rrd), about 2.3 sd for five repetitions: check's per
        # repetition figure of the same runs is the smaller one
        parts.append(f"repetitions spread {noise:.0%} of their value{_worst(detail)};")
    parts.append(
        "raise the repetitions (4x halves the noise of the medians), quiet the machine, "
        "or measure a wider range of sizes"
    )
    return " ".join(parts)


def _parameter_advice(m: Model, each: ParameterConfidence) -> str | None:
    """The parameters of a model of several whose class their line leaves unsure."""
    unsure = [(c, line) for c, line in zip(each.parameters, each.lines) if c.probability < UNSURE]
    if not unsure:
        return None
    parts = []
    hidden = []
    for c, line in unsure:
        others = [f"{name} {_percent(p)}" for name, p in c.others(m.lead_order(c.parameter))][:3]
        told = f" ({', '.join(others)})" if others else ""
        at = ", ".join(numbers.at(p, v) for p, v in line.at)
        span = f"{numbers.size(line.x[0])}..{numbers.size(line.x[-1])}"
        text = (
            f"its class in {c.parameter} is only {_percent(c.probability)} likely{told} on "
            f"its longest line of {c.parameter} ({len(line.x)} sizes, {span}, at {at})"
        )
        rise = _line_rise(m, c.parameter, line)
        if rise < max(FAINT, 3 * (m.noise or 0.0)):
            hidden.append(c.parameter)
            moved = "<0.1%" if rise < 0.001 else numbers.percent(rise)
            text += (
                f", where the model's {c.parameter} terms move the value by only {moved}: "
                f"that line cannot show {c.parameter}'s class (the model's coefficient comes "
                "from every point); a line where the other parameters weigh less would"
            )
        parts.append(text)
    names = " and ".join(c.parameter for c, _ in unsure if c.parameter not in hidden)
    if not names:
        return "; ".join(parts)
    return (
        "; ".join(parts)
        + f": measure more sizes of {names}, over a wider range, each repeated, to decide"
    )


def _line_rise(m: Model, parameter: str, line: Line) -> float:
    """How much the model's value changes along ``line`` (max / min - 1)."""
    values = np.asarray(m.evaluate({**dict(line.at), parameter: np.array(line.x)}), dtype=float)
    low = float(values.min())
    return float(values.max()) / low - 1 if low > 0 else math.inf


def _worst(detail: NoiseDetail) -> str:
    worst = detail.worst()
    if worst is None:
        return ""
    size, spread = worst
    return f", worst at {numbers.at(detail.parameter, size)} ({spread:.0%})"
