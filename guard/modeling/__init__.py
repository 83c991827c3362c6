"""Fitting PMNF models to measurements: modelers by name and the batching driver."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..errors import UsageError
from ..measurements import Kernel, MeasurementSet, kernel_problems
from .exhaustive import ExhaustiveModeler
from .multi_parameter import model_multi_parameter
from .noise import range_of_relative_deviation, rrd_batch
from .penalized import PenalizedModeler
from .pmnf import Factor, Model, Term
from .refining import RefiningModeler
from .result import Fitted

__all__ = ["MODELERS", "Modeler", "Skipped", "ModelingResult", "get_modeler", "model_measurements"]


class Modeler(Protocol):
    name: str

    def fit(self, x: np.ndarray, y: np.ndarray, noise: np.ndarray | None = None) -> list[Fitted]:
        """Model every row of y (K, P) measured at x (P,).

        ``noise`` (K,) is each kernel's seed-004 range of relative deviation (NaN where a
        kernel has no repetitions); modelers that adapt to noise read it, others ignore it.
        """
        ...


MODELERS: dict[str, Callable[[], Modeler]] = {
    "default": PenalizedModeler,
    "refining": RefiningModeler,
    "exhaustive": ExhaustiveModeler,
}


def get_modeler(name: str) -> Modeler:
    """A modeler by name; UsageError listing the known names otherwise."""
    try:
        return MODELERS[name]()
    except KeyError:
        raise UsageError(
            f"unknown modeler {name!r}; choose one of: {', '.join(MODELERS)}"
        ) from None


@dataclass(frozen=True)
class Skipped:
    """A kernel that could not be modelled, and why."""

    kernel: str
    metric: str
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class ModelingResult:
    models: tuple[Model, ...]
    skipped: tuple[Skipped, ...]


def model_measurements(mset: MeasurementSet, modeler: str | Modeler = "default") -> ModelingResult:
    """Model every kernel that can be modelled; report the others with their reasons."""
    impl = get_modeler(modeler) if isinstance(modeler, str) else modeler
    if len(mset.parameters) > 1:
        return _model_multi(mset, impl)
    skipped: list[Skipped] = []
    groups: dict[tuple[float, ...], list[Kernel]] = defaultdict(list)
    for kernel in mset.kernels:
        problems = kernel_problems(kernel)
        if problems:
            skipped.append(Skipped(kernel.name, kernel.metric, tuple(problems)))
            continue
        xs = tuple(sorted(p.at[0] for p in kernel.points))
        groups[xs].append(kernel)
    fitted: dict[tuple[str, str], Model] = {}
    for xs, kernels in groups.items():
        y, noise = _aggregate(kernels)
        rrd = np.array([np.nan if n is None else n for n in noise])
        for kernel, fit, nz in zip(kernels, impl.fit(np.array(xs), y, rrd), noise):
            fitted[kernel.key] = _to_model(kernel, mset.parameters[0], fit, nz)
    ordered = tuple(fitted[k.key] for k in mset.kernels if k.key in fitted)
    return ModelingResult(ordered, tuple(skipped))


def _model_multi(mset: MeasurementSet, impl: Modeler) -> ModelingResult:
    """Several parameters: lines of points per parameter, then their combinations."""
    models: list[Model] = []
    skipped: list[Skipped] = []
    results = model_multi_parameter(mset.kernels, tuple(mset.parameters), impl)
    for kernel, result in zip(mset.kernels, results):
        if isinstance(result, Model):
            models.append(result)
        else:
            skipped.append(Skipped(kernel.name, kernel.metric, tuple(result)))
    return ModelingResult(tuple(models), tuple(skipped))


def _aggregate(kernels: list[Kernel]) -> tuple[np.ndarray, list[float | None]]:
    """Medians of the repetitions (K, P) in increasing x order, and each kernel's rrd."""
    ordered = [sorted(k.points, key=lambda p: p.at[0]) for k in kernels]
    counts = {len(p.values) for points in ordered for p in points}
    if len(counts) == 1:  # the common case: one array, vectorised statistics
        values = np.array([[p.values for p in points] for points in ordered])
        rrd = rrd_batch(values)
        noise = [None if np.isnan(r) else float(r) for r in rrd]
        return np.median(values, axis=-1), noise
    medians = np.array([[statistics.median(p.values) for p in points] for points in ordered])
    return medians, [range_of_relative_deviation([p.values for p in pts]) for pts in ordered]


def _to_model(kernel: Kernel, parameter: str, fit: Fitted, noise: float | None) -> Model:
    terms = tuple(Term(c, (Factor(parameter, a, b),)) for c, a, b in fit.terms)
    return Model(
        kernel=kernel.name,
        metric=kernel.metric,
        parameters=(parameter,),
        constant=fit.constant,
        terms=terms,
        smape=round(fit.smape, 6),
        noise=noise,
    )
