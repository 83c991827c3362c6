"""Multi-parameter PMNF models: lines per parameter, then additive / multiplicative combinations.

Seed 004 (Sec. III) and Extra-P's multi-parameter modeler: every parameter is first
modelled on its own, on a *line* of at least five points along which only that
parameter varies; the growing terms found on the lines are then combined into
multi-parameter hypotheses whose coefficients are fitted on all points, and the
hypothesis with the smallest cross-validated SMAPE wins.

* **Lines.** For parameter p the points are grouped by the values of the other
  parameters; the group with the most distinct values of p is p's line (ties: the
  smallest fixed values, where Extra-P measures its lines). Every other group over the
  same values of p is a *parallel* line (a full grid has one per combination of the
  other parameters' values).
* **Sparse designs.** A parameter without a line of :data:`MIN_LINE_POINTS` points but
  with that many values (a diagonal, scattered points) is fitted on the points ordered
  by it, at each value the one with the smallest other coordinates; where other
  parameters have lines their fitted lines are divided out (a product) and subtracted
  (a sum) first, each giving candidate shapes. The model's ``combination`` says what
  that assumes (``design`` "sparse", or "diagonal" where every parameter changes between
  any two points); where no parameter varies alone the simplest combination that fits
  best is taken, the first-listed parameter on a tie. A parameter with fewer values
  cannot be modelled.
* **Line values.** How to combine parallel lines depends on the unknown form. In a sum
  (``c1·f(x) + c2·g(y)``) every x-line is ``g`` plus its own offset ``c1·f(x)`` and
  relative noise scales with that offset, so a plain average of the lines adds the mean
  offset and can bury a small ``g`` (the smallest line does not); in a product the
  lines are ``g`` scaled by ``f(x)`` and the large lines carry it best. The default,
  ``lines="candidates"``, fits *several* combinations (:data:`LINE_VARIANTS`): the
  smallest line; the lines weighted by ``1/level^2`` (inverse variance under relative
  noise, the best estimate of ``g`` in a sum); the lines weighted by ``amplitude/level^2``
  (a matched filter: each line's amplitude is its projection on the inverse-weighted
  centred mean, the best estimate in a product); and the plain average. Every weighted
  average of ``a_i + h_i·g`` is again ``a + h·g``, so each has g's shape. Seed-004 style
  benchmark, seed 0 (600 functions per noise level, full grids): lines with
  d <= 1/4 at 2% noise 72% -> 88% (two parameters), 42% -> 75% (three).
  ``lines="average"`` and ``lines="smallest"`` use that one combination only.
* **Shapes.** The single-parameter modeler fits every line variant (kernels sharing a
  line's x-values in one vectorised call). A *shape* is a fitted model's growing terms
  with their ratios frozen, lead term scaled to one (``x^2 + 0.3·x``); each parameter
  keeps its distinct shapes as candidates, and one whose every variant is constant drops
  out of the model. Under the default modeler (``evidence=True``) each measured line
  also gets the evidence engine's model of its repetitions as a candidate: the line
  modeler keeps a constant unless a term cuts its residuals tenfold, the repetitions
  can show that a step no term fits is still growth (seed-004 protocol, seeds 0 and 1,
  m = 2 and 3: d <= 1/4 the same or up by up to 8.7 points in 25 of 28 cells, down by
  0.6 to 2.0 -- one to three functions of 150 -- in 3, all m = 3 at 2-20% noise;
  RELeARN's cross predicting P+: 26.3% -> 13.2% mean error).
* **Hypotheses.** For the a parameters that matter (a >= 2 needs a point off the lines,
  or additive and multiplicative cannot be told apart): every set partition of them
  into products, each optionally extended by pairwise-disjoint proper sub-products of
  its groups, with at most a terms in all (:func:`combination_hypotheses`; for two and
  three parameters these are exactly Extra-P's 4 and 23 forms), plus the same forms over
  every non-empty proper subset of the parameters (a parameter that looked like it
  mattered on its line may not across the grid) -- each with every choice of candidate
  shape for its parameters.
* **Fit.** ``c0 + sum C_j * prod(shape_p)`` by least squares with relative (1/y^2)
  weights on all points, one batched solve per term count; a negative c0 is refitted
  through the origin, and a hypothesis counts only if every C_j > 0.
* **Choice.** Leave-one-out SMAPE over all P points (exact hat-matrix LOO). Hypotheses
  within ``best * (NEAR_TIE_RELATIVE + NEAR_TIE_POINTS / P) + NEAR_TIE_ABSOLUTE`` of the
  best are near-ties (0.1 + 1/P relative: 0.2 on the 10-point two-parameter minimum,
  0.14 on a 5x5 grid); among them the fewest terms, then fewest factors, then the
  smallest LOO SMAPE, then the first candidate (all parameters before subsets,
  :func:`combination_hypotheses` order, then the order of the shapes) wins.
* **Refit.** With ``lines="candidates"``, once a hypothesis is chosen every parameter
  whose terms leave others out gets one more candidate shape: its lines are refitted
  with the fitted other terms subtracted (``y - c2·g(y)`` for x in ``x + y``), weighted as
  above; then the choice is made again. Removing the other terms' offsets lets the line
  model see a small effect next to a dominant one (seed 0, 2% noise: 88% -> 90% with two
  parameters, 75% -> 81% with three).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import statistics
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

import numpy as np

from .. import numbers
from ..measurements import Kernel, Point, kernel_problems
from .analysis import fits_of, line_evidence
from .fitting import fit_batch, smape
from .interaction import DECISIVE, interactions
from .lines import Line
from .noise import range_of_relative_deviation, rrd_batch
from .pmnf import Factor, Model, Term
from .result import CONSTANT_ORDER, Fitted
from .single_term import fit_constant

if TYPE_CHECKING:
    from . import Modeler

__all__ = [
    "LINE_VARIANTS",
    "MIN_LINE_POINTS",
    "NEAR_TIE_ABSOLUTE",
    "NEAR_TIE_POINTS",
    "NEAR_TIE_RELATIVE",
    "combination_hypotheses",
    "model_multi_parameter",
]

MIN_LINE_POINTS = 3  # lines of 3-4 points are modelled too (wider; the gate does not fail on them)
# Nested hypotheses (x·y versus x + x·y) tie up to noise; a larger one must beat a
# simpler one by more than this to be chosen. Non-nested wrong forms miss far points
# by tens of percent at low noise, so the margin costs no accuracy there. Simulated
# 2- and 3-parameter grids at 1-5% noise: 0.1 to 0.25 best, 0 and 0.5 worse; with
# candidate shapes (seed-004 benchmark, seed 0) 0.05 to 0.2 and 0 to 3 points tie.
NEAR_TIE_RELATIVE = 0.10
NEAR_TIE_POINTS = 1.0  # plus this over the number of points: LOO scatters more with few
NEAR_TIE_ABSOLUTE = 0.01  # percentage points of SMAPE, for (nearly) exact data

# Ways of combining a parameter's parallel lines into the values its line model is
# fitted to, with lines="candidates" (see the module docstring). Dropping the plain
# average costs about one point of the d <= 1/4 share with three parameters at 50-100%
# noise; the largest line or a shifted inverse average add nothing.
LINE_VARIANTS = ("smallest", "inverse", "matched", "average")
_CHUNK = 4_000_000  # design-matrix elements per batched solve (bounds the memory)

LineMode = Literal["candidates", "average", "smallest"]
Hypothesis = tuple[tuple[int, ...], ...]  # terms, each a product of parameter positions
Shape = tuple[tuple[float, Fraction, Fraction], ...]  # (ratio, exponent, log exponent)
Choice = tuple[int, ...]  # per parameter position, the index of its candidate shape


@dataclass(frozen=True)
class _Fit:
    """The chosen hypothesis of one kernel, its shapes and coefficients [c0, C_1..C_t]."""

    hypothesis: Hypothesis
    shapes: tuple[Shape, ...]  # per parameter position (() where unused)
    coef: np.ndarray
    smape: float  # in-sample


def combination_hypotheses(count: int) -> list[Hypothesis]:
    """Ways to combine ``count`` parameters, each term a tuple of parameter positions.

    Set partitions into products, each with optional pairwise-disjoint proper
    sub-products of its groups, at most ``count`` terms in all, simplest first.
    """
    seen: dict[Hypothesis, None] = {}
    for groups in _set_partitions(tuple(range(count))):
        subproducts = [s for g in groups for s in _proper_subsets(g)]
        for extra in range(count - len(groups) + 1):
            for extras in itertools.combinations(subproducts, extra):
                if _disjoint(extras):
                    seen.setdefault(_canonical(groups + list(extras)), None)
    return sorted(seen, key=lambda h: (*_complexity(h), h))


def model_multi_parameter(
    kernels: Sequence[Kernel],
    parameters: tuple[str, ...],
    modeler: Modeler,
    *,
    lines: LineMode = "candidates",
    evidence: bool = False,
    errors: Sequence[float | None] | None = None,
) -> list[Model | tuple[str, ...]]:
    """For each kernel in order, its multi-parameter model or the reasons it has none.

    ``evidence``: each measured line also gets the evidence engine's model from its
    repetitions (the default modeler's, as a one-parameter kernel on those points gets)
    as one more candidate shape. ``errors``: each kernel's relative per-point error; where
    a grid's corners prove two parameters interact at it (interaction.py), only
    hypotheses with a product of the two are chosen from (the fewest-terms rule preferred
    a sum its SMAPE barely told apart, while the corners were 10 errors from one).
    """
    if lines not in ("candidates", "average", "smallest"):
        raise ValueError(f"lines must be 'candidates', 'average' or 'smallest', not {lines!r}")
    out: list[Model | tuple[str, ...]] = []
    prepared: dict[int, _Prepared] = {}  # position in ``kernels`` -> modellable kernel
    line_cache: dict[tuple[tuple[float, ...], ...], tuple[_Line, ...] | tuple[str, ...]] = {}
    for i, kernel in enumerate(kernels):
        item = _prepare(kernel, parameters, line_cache)
        out.append(item if isinstance(item, tuple) else ())
        if isinstance(item, _Prepared):
            prepared[i] = item
    variants = LINE_VARIANTS if lines == "candidates" else (lines,)
    shapes = _line_shapes(prepared, len(parameters), modeler, variants)
    if evidence:
        _evidence_shapes(prepared, shapes, parameters)
    if lines == "candidates":
        _separated_shapes(prepared, shapes, modeler)
    todo: list[int] = []
    crosses: dict[int, str] = {}  # kernels whose combination the data cannot tell
    sparse: set[int] = set()  # kernels with a parameter that never varies alone
    for i, item in prepared.items():
        active = tuple(p for p, s in enumerate(shapes[i]) if s)
        if any(item.lines[p].projected for p in active):
            sparse.add(i)
        elif len(active) >= 2 and not item.off_line:
            crosses[i] = _cross_note(item, active, parameters)
        if not active:
            out[i] = _constant_model(item, parameters)
        else:
            todo.append(i)
    required = _interacting(kernels, parameters, errors, todo)
    fits = _fit_kernels(prepared, shapes, todo, required)
    if lines == "candidates":
        again = _refit_shapes(prepared, shapes, fits, modeler)
        fits.update(_fit_kernels(prepared, shapes, again, required))
    for i, fit in fits.items():
        model = _build_model(prepared[i], parameters, fit)
        if i in crosses:
            combination = {"note": crosses[i], "design": "cross"}
        elif i in sparse and fit.hypothesis:
            combination = _sparse_combination(prepared[i], fit, parameters)
        else:
            combination = None
        if combination is not None:
            model = dataclasses.replace(model, extras={"combination": combination})
        out[i] = model
    return out


# --- preparing kernels: medians, lines ---------------------------------------------------


@dataclass(frozen=True)
class _Line:
    """The points (indices into the sorted points) along which one parameter varies."""

    parameter: int
    fixed: tuple[float, ...]  # the other parameters' values, in parameter order
    indices: tuple[int, ...]  # ordered by increasing value of the parameter
    x: tuple[float, ...]
    parallel: tuple[tuple[int, ...], ...]  # every line over the same x (indices, in x order)
    projected: bool = False  # no line: all points ordered by this parameter (a sparse design)


@dataclass(frozen=True)
class _Prepared:
    kernel: Kernel
    at: np.ndarray  # (P, m) coordinates, sorted
    y: np.ndarray  # (P,) medians of the repetitions
    values: tuple[tuple[float, ...], ...]  # (P,) the repetitions, in the order of ``at``
    noise: float | None
    lines: tuple[_Line, ...]

    @property
    def off_line(self) -> bool:
        on = {i for line in self.lines for i in line.indices}
        return len(on) < len(self.y)


def _prepare(
    kernel: Kernel,
    parameters: tuple[str, ...],
    cache: dict[tuple[tuple[float, ...], ...], tuple[_Line, ...] | tuple[str, ...]],
) -> _Prepared | tuple[str, ...]:
    wrong = [p.at for p in kernel.points if len(p.at) != len(parameters)]
    if wrong:
        return (
            f"point {wrong[0]} has {len(wrong[0])} coordinates, expected {len(parameters)} "
            f"({', '.join(parameters)})",
        )
    problems = kernel_problems(kernel)
    points = sorted(kernel.points, key=lambda p: p.at)
    coords = tuple(dict.fromkeys(p.at for p in points))
    if coords not in cache:
        cache[coords] = _find_lines(coords, parameters)
    lines = cache[coords]
    if problems or isinstance(lines[0], str):
        return tuple(problems) + tuple(r for r in lines if isinstance(r, str))
    y, noise = _medians_and_noise(points)
    return _Prepared(
        kernel=kernel,
        at=np.array([p.at for p in points], dtype=float),
        y=y,
        values=tuple(p.values for p in points),
        noise=noise,
        lines=tuple(line for line in lines if isinstance(line, _Line)),
    )


def _medians_and_noise(points: Sequence[Point]) -> tuple[np.ndarray, float | None]:
    """Median of each point's repetitions, and the kernel's seed-004 rrd."""
    if len({len(p.values) for p in points}) == 1:  # the common case: one array
        values = np.array([p.values for p in points], dtype=float)
        rrd = float(rrd_batch(values[None])[0])
        return np.median(values, axis=1), None if np.isnan(rrd) else rrd
    medians = np.array([statistics.median(p.values) for p in points], dtype=float)
    return medians, range_of_relative_deviation([p.values for p in points])


def _find_lines(
    coords: tuple[tuple[float, ...], ...], parameters: tuple[str, ...]
) -> tuple[_Line, ...] | tuple[str, ...]:
    """Each parameter's line, or a reason per parameter without one."""
    lines: list[_Line] = []
    reasons: list[str] = []
    for p, name in enumerate(parameters):
        by_fixed: dict[tuple[float, ...], list[int]] = defaultdict(list)
        for i, at in enumerate(coords):
            by_fixed[at[:p] + at[p + 1 :]].append(i)
        fixed, indices = min(by_fixed.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        if len(indices) < MIN_LINE_POINTS:
            projected = _projected_line(coords, p)
            if projected is None:
                reasons.append(_line_reason(name, parameters, p, fixed, len(indices)))
            else:
                lines.append(projected)
            continue
        indices.sort(key=lambda i: coords[i][p])
        x = tuple(coords[i][p] for i in indices)
        parallel = [
            tuple(sorted(group, key=lambda i: coords[i][p]))
            for group in by_fixed.values()
            if sorted(coords[i][p] for i in group) == list(x)
        ]
        lines.append(_Line(p, fixed, tuple(indices), x, tuple(parallel)))
    return tuple(reasons) if reasons else tuple(lines)


def _projected_line(coords: tuple[tuple[float, ...], ...], p: int) -> _Line | None:
    """A sparse design's stand-in for p's missing line: one point per value of p.

    Where no MIN_LINE_POINTS points vary p alone (a diagonal, a scattered design) but p
    takes at least that many values, p's candidate shapes are fitted on the points
    ordered by p, at each value the point with the smallest other coordinates (the
    others change along too, so p's shape is confounded with theirs; the combination
    step on all points and the model's note say so). None if p has too few values.
    """
    first: dict[float, int] = {}
    for i in sorted(range(len(coords)), key=lambda i: coords[i][:p] + coords[i][p + 1 :]):
        first.setdefault(coords[i][p], i)
    if len(first) < MIN_LINE_POINTS:
        return None
    x = tuple(sorted(first))
    indices = tuple(first[v] for v in x)
    return _Line(p, (), indices, x, (indices,), projected=True)


def _line_reason(
    name: str, parameters: tuple[str, ...], p: int, fixed: tuple[float, ...], count: int
) -> str:
    others = [q for q in parameters if q != name]
    where = ", at " + ", ".join(numbers.at(q, v) for q, v in zip(others, fixed)) if others else ""
    return (
        f"no line of {MIN_LINE_POINTS} points varying only {name} with the others fixed "
        f"(at most {count}{where}); measure {MIN_LINE_POINTS - count} more value(s) of "
        f"{name} there"
    )


def _cross_note(item: _Prepared, active: tuple[int, ...], parameters: tuple[str, ...]) -> str:
    """What a model of a cross without a point off its lines assumes, and what settles it."""
    names = [parameters[p] for p in active]
    suggestion = item.at[item.lines[0].indices[0]].tolist()
    for p in active:
        suggestion[p] = item.lines[p].x[-1]
    at = "(" + ", ".join(numbers.size(v) for v in suggestion) + ")"
    return (
        f"{' and '.join(names)} each change the value, but no point lies off the lines: "
        "additive and multiplicative combinations fit them alike, and the simpler of the "
        "tied ones is taken (an assumption, not a measurement); predictions away from the "
        f"lines are that uncertain. Measure a point away from the lines, e.g. at {at}, to "
        "settle it"
    )


def _sparse_combination(item: _Prepared, fit: _Fit, parameters: tuple[str, ...]) -> dict[str, str]:
    """What a model of a design where some parameter never varies alone assumes.

    ``design`` is "diagonal" when every parameter changes between any two measured points,
    else "sparse".
    """
    confounded = [p for p, line in enumerate(item.lines) if line.projected]
    names = _listed([parameters[p] for p in confounded])
    # a diagonal: every parameter changes from each measured point to the next
    diagonal = all(len(set(item.at[:, p])) == len(item.at) for p in range(len(parameters)))
    if diagonal:
        head = f"{names} change together at every measured point: their effects are not told apart"
    elif len(confounded) == len(parameters):
        head = (
            f"no {MIN_LINE_POINTS} points vary any of {names} alone: their effects are not "
            "told apart"
        )
    else:
        verb = "changes" if len(confounded) == 1 else "change"
        head = (
            f"no {MIN_LINE_POINTS} points vary {names} alone: {names} {verb} only together "
            "with other parameters, so the terms in it rest on the combination assumed"
        )
    used = _listed([parameters[p] for p in sorted({q for term in fit.hypothesis for q in term})])
    base = item.at[0]  # the smallest point: vary each confounded parameter alone from there
    settle = []
    for p in confounded:
        at = base.tolist()
        at[p] = item.lines[p].x[-1]
        settle.append("(" + ", ".join(numbers.size(v) for v in at) + ")")
    which = names if len(confounded) == 1 else "each of them"
    note = (
        f"{head}. The model gives the change to {used}, the simplest combination that fits "
        "all points best (on a tie the first-listed parameter; an assumption, not a "
        "measurement); predictions away from the measured points are that uncertain. "
        f"Measure {which} alone, e.g. at {_listed(settle)}, to separate them"
    )
    return {"note": note, "design": "diagonal" if diagonal else "sparse"}


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# --- single-parameter models on the lines ------------------------------------------------


def _line_shapes(
    prepared: dict[int, _Prepared], count: int, modeler: Modeler, variants: tuple[str, ...]
) -> dict[int, list[tuple[Shape, ...]]]:
    """Per kernel and parameter, the distinct growing shapes of its line variants."""
    shapes: dict[int, list[tuple[Shape, ...]]] = {k: [() for _ in range(count)] for k in prepared}
    for p in range(count):
        rows: dict[tuple[float, ...], list[tuple[int, np.ndarray]]] = defaultdict(list)
        for k, item in prepared.items():
            values = _line_variants(item, p, variants)
            for v, row in enumerate(values):
                if not any(np.array_equal(row, values[u]) for u in range(v)):
                    rows[item.lines[p].x].append((k, row))
        _add_shapes(prepared, shapes, p, rows, modeler)
    return shapes


def _add_shapes(
    prepared: dict[int, _Prepared],
    shapes: dict[int, list[tuple[Shape, ...]]],
    p: int,
    rows: dict[tuple[float, ...], list[tuple[int, np.ndarray]]],
    modeler: Modeler,
) -> set[int]:
    """Fit the rows (kernel, line values) of parameter p, one call per x; add new shapes.

    Returns the kernels that gained a shape.
    """
    gained: set[int] = set()
    for x, entries in rows.items():
        y = np.stack([row for _, row in entries])
        noise = np.array([_nan_if_none(prepared[k].noise) for k, _ in entries])
        for (k, _), fit in zip(entries, modeler.fit(np.array(x), y, noise)):
            shape = _shape(fit)
            if shape and shape not in shapes[k][p]:
                shapes[k][p] += (shape,)
                gained.add(k)
    return gained


def _line_variants(item: _Prepared, p: int, variants: tuple[str, ...]) -> list[np.ndarray]:
    """Values along p's line for each way of combining its parallel lines (in x order)."""
    line = item.lines[p]
    smallest = item.y[list(line.indices)]
    if len(line.parallel) < 2:
        return [smallest] * len(variants)
    lines = item.y[np.array(line.parallel)]  # (L, n)
    out = []
    for variant in variants:
        if variant == "smallest":
            out.append(smallest)
        elif variant == "average":
            out.append(lines.mean(axis=0))
        else:
            out.append(_weighted(lines, lines, matched=variant == "matched"))
    return out


def _weighted(lines: np.ndarray, scale: np.ndarray, matched: bool) -> np.ndarray:
    """Weighted mean of ``lines`` (L, n), each line's noise proportional to its ``scale``.

    Weights ``1/level^2`` (inverse variance; level: the mean |value| of the line in
    ``scale``), times each line's amplitude if ``matched``: the projection of the centred
    line on the inverse-weighted centred mean (negative amplitudes count as zero). Falls
    back to the plain mean where the weights are unusable (zero or non-finite levels).
    """
    level = np.abs(scale).mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        w = 1.0 / level**2
        if matched:
            centred = lines - lines.mean(axis=1, keepdims=True)
            mean = w @ centred / w.sum()
            amplitude = centred @ mean
            if amplitude.sum() < 0:
                amplitude = -amplitude
            w = w * np.clip(amplitude, 0.0, None)
        total = w.sum()
        values = w @ lines / total
    if not (np.isfinite(total) and total > 0 and np.isfinite(values).all()):
        return lines.mean(axis=0)
    return values


def _refit_shapes(
    prepared: dict[int, _Prepared],
    shapes: dict[int, list[tuple[Shape, ...]]],
    fits: dict[int, _Fit],
    modeler: Modeler,
) -> list[int]:
    """Line models of each parameter with the chosen hypothesis' other terms removed.

    For parameter p, the terms without p (fitted on all points) are subtracted; the
    parallel lines of the rest are combined as in :func:`_weighted` (amplitude-matched
    if p's terms have other factors), noise scaled by the measured values. New shapes
    join p's candidates; returns the kernels that gained one (to be fitted again).
    """
    rows: dict[int, dict[tuple[float, ...], list[tuple[int, np.ndarray]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for k, fit in fits.items():
        item = prepared[k]
        terms = [
            fit.coef[j + 1] * _term_values(term, fit.shapes, item.at)
            for j, term in enumerate(fit.hypothesis)
        ]
        for p in sorted({q for term in fit.hypothesis for q in term}):
            line = item.lines[p]
            without = [j for j, term in enumerate(fit.hypothesis) if p not in term]
            if not without or len(line.parallel) < 2:
                continue
            rest = item.y - sum(terms[j] for j in without)
            index = np.array(line.parallel)
            matched = any(len(term) > 1 for term in fit.hypothesis if p in term)
            values = _weighted(rest[index], item.y[index], matched)
            if (values > 0).all():  # like measurements (noise can push the rest below 0)
                rows[p][line.x].append((k, values))
    gained: set[int] = set()
    for p, by_x in rows.items():
        gained |= _add_shapes(prepared, shapes, p, by_x, modeler)
    return sorted(gained)


def _evidence_shapes(
    prepared: dict[int, _Prepared],
    shapes: dict[int, list[tuple[Shape, ...]]],
    parameters: tuple[str, ...],
) -> None:
    """Each measured line's model under the evidence engine, from its repetitions.

    The line modeler sees one value per point; the evidence engine sees the repetitions
    (a robust per-point noise pooled over the lines, as for one-parameter kernels), so a
    growth far beyond the repetitions' noise is growth even where no single PMNF term cuts
    the residuals of the constant tenfold (a step between two sizes). Its shape joins the
    parameter's candidates; the combination on all points decides as before.
    """
    found: list[tuple[int, int]] = []
    lines: list[Line] = []
    for k, item in prepared.items():
        for p, line in enumerate(item.lines):
            if not line.projected:
                found.append((k, p))
                values = tuple(item.values[i] for i in line.indices)
                lines.append(Line(parameters[p], (), line.x, values))
    for (k, p), le in zip(found, line_evidence(lines)):
        ev = le.evidence
        shape = _shape(fits_of(ev, ev.best)[0])
        if shape and shape not in shapes[k][p]:
            shapes[k][p] += (shape,)


def _separated_shapes(
    prepared: dict[int, _Prepared], shapes: dict[int, list[tuple[Shape, ...]]], modeler: Modeler
) -> None:
    """More candidates for parameters without a line, with the lined parameters taken out.

    In a sparse design p's stand-in line moves the others too: along a diagonal through
    the x-line, ``x·y`` looks like ``y^2``. Each lined parameter q's first shape is scaled
    to its line (``a + b·shape``, relative least squares); p's values are then divided by
    the product of those fits (the product case) and, separately, lowered by their growing
    parts (the sum case). Shapes fitted to either join p's candidates.
    """
    rows: dict[int, dict[tuple[float, ...], list[tuple[int, np.ndarray]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for k, item in prepared.items():
        lined = [q for q, line in enumerate(item.lines) if not line.projected and shapes[k][q]]
        if not lined:
            continue
        for p, line in enumerate(item.lines):
            if not line.projected:
                continue
            index = np.array(line.indices)
            product, growth = np.ones(len(index)), np.zeros(len(index))
            for q in lined:
                a, b = _scaled(item, q, shapes[k][q][0])
                part = b * _shape_values(shapes[k][q][0], item.at[index, q])
                product, growth = product * (a + part), growth + part
            for values in (item.y[index] / product, item.y[index] - growth):
                if np.isfinite(values).all() and (values > 0).all():
                    rows[p][line.x].append((k, values))
    for p, by_x in rows.items():
        _add_shapes(prepared, shapes, p, by_x, modeler)


def _scaled(item: _Prepared, q: int, shape: Shape) -> tuple[float, float]:
    """(a, b) of ``a + b·shape`` fitted to q's line (weights 1/y^2)."""
    line = item.lines[q]
    x = np.array(line.x)
    design = np.stack([np.ones(len(x)), _shape_values(shape, x)], axis=-1)[None]
    a, b = fit_batch(design, item.y[list(line.indices)][None], loo=False).coefficients[0, 0]
    return float(a), float(b)


def _nan_if_none(value: float | None) -> float:
    return float("nan") if value is None else value


def _shape(fit: Fitted) -> Shape:
    """Growing terms with their ratio to the lead (highest-order) term, lead first."""
    growing = [
        (c, Fraction(a), Fraction(b))
        for c, a, b in fit.terms
        if c > 0 and np.isfinite(c) and (a, b) > CONSTANT_ORDER
    ]
    if not growing:
        return ()
    growing.sort(key=lambda t: (t[1], t[2]), reverse=True)
    lead = growing[0][0]
    return tuple((c / lead, a, b) for c, a, b in growing)


def _shape_values(shape: Shape, x: np.ndarray) -> np.ndarray:
    total = np.zeros_like(x)
    for ratio, a, b in shape:
        total = total + ratio * Factor("_", a, b).evaluate(x)
    return total


def _term_values(term: tuple[int, ...], shapes: Sequence[Shape], at: np.ndarray) -> np.ndarray:
    out = np.ones(len(at))
    for p in term:
        out = out * _shape_values(shapes[p], at[:, p])
    return out


# --- combining the shapes on all points --------------------------------------------------


def _interacting(
    kernels: Sequence[Kernel],
    parameters: tuple[str, ...],
    errors: Sequence[float | None] | None,
    which: list[int],
) -> dict[int, frozenset[tuple[int, int]]]:
    """The pairs of parameter positions each kernel's grid proves to interact."""
    out: dict[int, frozenset[tuple[int, int]]] = {}
    for i in which:
        error = errors[i] if errors is not None else None
        if error is None or not math.isfinite(error) or error <= 0:
            continue
        found = interactions(kernels[i], parameters, error)
        pairs = frozenset(
            (parameters.index(a), parameters.index(b))
            for (a, b), test in found.items()
            if test.decisive(*DECISIVE)
        )
        if pairs:
            out[i] = pairs
    return out


def _fit_kernels(
    prepared: dict[int, _Prepared],
    shapes: dict[int, list[tuple[Shape, ...]]],
    which: list[int],
    required: Mapping[int, frozenset[tuple[int, int]]] | None = None,
) -> dict[int, _Fit]:
    """The chosen fit of each kernel in ``which``; kernels sharing their points, their
    numbers of candidate shapes per parameter and their proven products are fitted
    together."""
    need = required or {}
    groups: dict[tuple[bytes, tuple[int, ...], frozenset[tuple[int, int]]], list[int]]
    groups = defaultdict(list)
    for i in which:
        key = (prepared[i].at.tobytes(), tuple(map(len, shapes[i])), need.get(i, frozenset()))
        groups[key].append(i)
    out: dict[int, _Fit] = {}
    for (_, _, pairs), members in groups.items():
        fitted = _fit_combinations(
            [prepared[i] for i in members], [shapes[i] for i in members], pairs
        )
        out.update(zip(members, fitted))
    return out


def _fit_combinations(
    items: list[_Prepared],
    shapes: list[list[tuple[Shape, ...]]],
    pairs: frozenset[tuple[int, int]] = frozenset(),
) -> list[_Fit]:
    """Best hypothesis and shapes per kernel (sharing points and numbers of candidates);
    with ``pairs``, among the hypotheses with a term holding each pair."""
    at = items[0].at
    widths = tuple(map(len, shapes[0]))
    count = len(widths)
    y = np.stack([item.y for item in items])
    cache: dict[tuple[Shape, int], np.ndarray] = {}  # kernels often share shapes
    columns: dict[int, np.ndarray] = {}  # parameter -> (K, V_p, P): each candidate's values
    for p, width in enumerate(widths):
        if width:
            for s in shapes:
                for shape in s[p]:
                    if (shape, p) not in cache:
                        cache[(shape, p)] = _shape_values(shape, at[:, p])
            columns[p] = np.stack([[cache[(shape, p)] for shape in s[p]] for s in shapes])
    hypotheses = _choices(widths)
    by_terms: dict[int, list[int]] = defaultdict(list)
    for h, (hyp, _) in enumerate(hypotheses):
        by_terms[len(hyp)].append(h)
    k, n_h = len(items), len(hypotheses)
    cv = np.full((k, n_h), np.inf)
    fit_smape = np.full((k, n_h), np.inf)
    coef = np.zeros((k, n_h, max(by_terms) + 1))
    for t, hs in by_terms.items():
        step = max(1, _CHUNK // (len(hs) * len(at) * (t + 1)))
        for lo in range(0, k, step):
            rows = slice(lo, lo + step)
            design = _design(columns, [hypotheses[h] for h in hs], rows)  # (K, H_t, P, t)
            c, pred, loo = _fit_nonnegative_constant(design, y[rows])
            feasible = np.isfinite(c).all(-1) & (c[..., 1:] > 0).all(-1)
            measured = y[rows, None, :]
            cv[rows, hs] = np.where(feasible, smape(measured, loo), np.inf)
            fit_smape[rows, hs] = np.where(feasible, smape(measured, pred), np.inf)
            coef[rows, hs, : t + 1] = np.where(feasible[..., None], c, 0.0)
    if pairs:
        lacking = [
            h
            for h, (hyp, _) in enumerate(hypotheses)
            if not all(any(a in term and b in term for term in hyp) for a, b in pairs)
        ]
        masked = cv.copy()
        masked[:, lacking] = np.inf
        # where no hypothesis with the product fits at all, the choice stays free
        cv = np.where(np.isfinite(masked).any(axis=1, keepdims=True), masked, cv)
    best = _choose(cv, np.array([_complexity(hyp) for hyp, _ in hypotheses]), y.shape[1])
    out: list[_Fit] = []
    for i, h in enumerate(best):
        if h < 0:  # no hypothesis with growing terms fits: the constant model
            value, _, sm = fit_constant(y[i : i + 1])
            out.append(_Fit((), ((),) * count, np.array([value[0]]), float(sm[0])))
        else:
            hyp, choice = hypotheses[h]
            chosen = tuple(shapes[i][p][v] if shapes[i][p] else () for p, v in enumerate(choice))
            out.append(_Fit(hyp, chosen, coef[i, h, : len(hyp) + 1], float(fit_smape[i, h])))
    return out


@functools.lru_cache(maxsize=256)
def _choices(widths: tuple[int, ...]) -> list[tuple[Hypothesis, Choice]]:
    """Every hypothesis over the parameters with candidates, with every choice of shapes.

    ``widths``: the number of candidate shapes per parameter (0: constant, not used).
    """
    active = tuple(p for p, w in enumerate(widths) if w)
    out: list[tuple[Hypothesis, Choice]] = []
    for hyp in _candidates(active):
        used = sorted({p for term in hyp for p in term})
        for picks in itertools.product(*(range(widths[p]) for p in used)):
            choice = [0] * len(widths)
            for p, v in zip(used, picks):
                choice[p] = v
            out.append((hyp, tuple(choice)))
    return out


def _design(
    columns: dict[int, np.ndarray], hypotheses: list[tuple[Hypothesis, Choice]], rows: slice
) -> np.ndarray:
    """Design matrices (K, H, P, t) of hypotheses with t terms, for the kernels in rows."""
    products: dict[tuple[tuple[int, int], ...], np.ndarray] = {}  # terms recur across forms
    first = columns[next(iter(columns))][rows, 0]
    t = len(hypotheses[0][0])
    design = np.empty((first.shape[0], len(hypotheses), first.shape[1], t))
    for h, (hyp, choice) in enumerate(hypotheses):
        for j, term in enumerate(hyp):
            key = tuple((p, choice[p]) for p in term)
            if key not in products:
                value = columns[term[0]][rows, choice[term[0]]]
                for p in term[1:]:
                    value = value * columns[p][rows, choice[p]]
                products[key] = value
            design[:, h, :, j] = products[key]
    return design


def _fit_nonnegative_constant(
    design: np.ndarray, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coefficients [c0, C...], fitted and LOO values; c0 < 0 refitted through the origin.

    A negative offset would let a too-steep product mimic a flatter sum.
    """
    ones = np.ones(design.shape[:-1] + (1,))
    with_c0 = fit_batch(np.concatenate([ones, design], -1), y)
    origin = fit_batch(design, y)
    negative = (with_c0.coefficients[..., 0] < 0)[..., None]
    origin_coef = np.concatenate([np.zeros_like(ones[:, :, 0]), origin.coefficients], -1)
    coef = np.where(negative, origin_coef, with_c0.coefficients)
    pred = np.where(negative, origin.predicted, with_c0.predicted)
    loo = np.where(negative, origin.loo_predicted, with_c0.loo_predicted)
    return coef, pred, loo


def _choose(cv: np.ndarray, complexity: np.ndarray, points: int) -> np.ndarray:
    """Index of the chosen hypothesis per kernel (-1 if none is feasible)."""
    best = cv.min(axis=1, keepdims=True)
    margin = best * (NEAR_TIE_RELATIVE + NEAR_TIE_POINTS / points) + NEAR_TIE_ABSOLUTE
    near = np.isfinite(cv) & (cv <= best + margin)
    # complexity is sorted ascending by construction; rank it into one integer
    rank = complexity[:, 0] * 1000 + complexity[:, 1]
    simplest = np.where(near, rank[None, :], np.iinfo(np.int64).max).min(axis=1, keepdims=True)
    pick = near & (rank[None, :] == simplest)
    # Rounded: fits equal up to float error (x^2 and y^2 on a diagonal y = x/100) tie
    # exactly, and the first candidate -- the first-listed parameter -- wins.
    chosen = np.where(pick, np.round(cv, 6), np.inf).argmin(axis=1)
    return np.where(np.isfinite(best[:, 0]), chosen, -1)


def _candidates(active: tuple[int, ...]) -> list[Hypothesis]:
    """Combinations of all active parameters, then of every non-empty proper subset."""
    out: list[Hypothesis] = []
    for size in range(len(active), 0, -1):
        for subset in itertools.combinations(active, size):
            out += [
                tuple(tuple(subset[i] for i in term) for term in hyp)
                for hyp in combination_hypotheses(size)
            ]
    return out


def _complexity(hypothesis: Hypothesis) -> tuple[int, int]:
    """(terms, factors): what a near-tie is broken by."""
    return (len(hypothesis), sum(len(term) for term in hypothesis))


def _set_partitions(items: tuple[int, ...]) -> Iterator[list[tuple[int, ...]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in _set_partitions(rest):
        yield [(first,)] + partition
        for i in range(len(partition)):
            yield partition[:i] + [(first,) + partition[i]] + partition[i + 1 :]


def _proper_subsets(group: tuple[int, ...]) -> list[tuple[int, ...]]:
    return [s for r in range(1, len(group)) for s in itertools.combinations(group, r)]


def _disjoint(terms: Sequence[tuple[int, ...]]) -> bool:
    flat = [p for term in terms for p in term]
    return len(flat) == len(set(flat))


def _canonical(terms: list[tuple[int, ...]]) -> Hypothesis:
    return tuple(sorted((tuple(sorted(t)) for t in terms), key=lambda t: (len(t), t)))


# --- results -----------------------------------------------------------------------------


def _build_model(item: _Prepared, parameters: tuple[str, ...], fit: _Fit) -> Model:
    terms: list[Term] = []
    for c, term in zip(fit.coef[1:], fit.hypothesis):
        for combo in itertools.product(*(fit.shapes[p] for p in term)):
            ratio = float(np.prod([r for r, _, _ in combo]))
            factors = tuple(Factor(parameters[p], a, b) for p, (_, a, b) in zip(term, combo))
            terms.append(Term(float(c) * ratio, factors))
    return Model(
        kernel=item.kernel.name,
        metric=item.kernel.metric,
        parameters=parameters,
        constant=float(fit.coef[0]),
        terms=tuple(terms),
        smape=round(fit.smape, 6),
        noise=item.noise,
    )


def _constant_model(item: _Prepared, parameters: tuple[str, ...]) -> Model:
    value, _, sm = fit_constant(item.y[None, :])
    return Model(
        kernel=item.kernel.name,
        metric=item.kernel.metric,
        parameters=parameters,
        constant=float(value[0]),
        smape=round(float(sm[0]), 6),
        noise=item.noise,
    )
