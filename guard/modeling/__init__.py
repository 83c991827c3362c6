"""Fitting PMNF models to measurements: modelers by name and the batching driver."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from ..errors import UsageError
from ..measurements import Kernel, MeasurementSet, kernel_problems
from .adaptive import AdaptiveModeler
from .confidence import Confidence, Prediction, assess
from .drift import Drift, find_drift
from .exhaustive import ExhaustiveModeler
from .multi_parameter import model_multi_parameter
from .noise import (
    median_error,
    noise_batch,
    point_spreads,
    range_of_relative_deviation,
    robust_noise,
)
from .penalized import PenalizedModeler
from .pmnf import Deferred, Factor, Model, Term, fraction_text
from .refining import RefiningModeler
from .result import Fitted, evaluate_fits
from .segments import Segmentation, detect_segments

MIN_SEGMENT_POINTS = 6  # two sides of three points: fewer cannot show a change of growth
SEGMENT_MISFIT = 4.0
REFERENCE = PenalizedModeler()  # the confidence's hypothesis space; its fits can be reused

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
    "adaptive": AdaptiveModeler,
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


def model_measurements(
    mset: MeasurementSet,
    modeler: str | Modeler = "default",
    predict_at: float | None = None,
    level: float = 0.9,
) -> ModelingResult:
    """Model every kernel that can be modelled; report the others with their reasons.

    Single-parameter models carry their noise details, the confidence in their class and,
    with ``predict_at``, a prediction with its interval at that parameter value.
    """
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
    param = mset.parameters[0]
    fitted: dict[tuple[str, str], Model] = {}
    for xs, kernels in groups.items():
        x = np.array(xs)
        stats = _kernels_noise(kernels)
        y = np.array([s.medians for s in stats])
        rrd = np.array([np.nan if s.rrd is None else s.rrd for s in stats])
        sigma = np.array([np.nan if s.sigma is None else s.sigma for s in stats])

        if isinstance(impl, PenalizedModeler) and impl == REFERENCE:
            fits, singles = impl.fit_with_singles(x, y)
        else:
            fits, singles = impl.fit(x, y, rrd), None
        drifts = find_drift(x, y, fits, sigma)
        segmentations = _segments(x, y, kernels, fits, sigma, impl)
        assessed = assess(x, y, fits, sigma, at=predict_at, level=level, singles=singles)
        rows = zip(kernels, fits, drifts, segmentations, stats, assessed)
        for kernel, fit, drift, seg, st, (conf, pred) in rows:
            extras: dict[str, Any] = {
                "noise_detail": Deferred(_noise_json, param, xs, st),
                "confidence": Deferred(_confidence_json, param, conf),
                "drift": None if drift is None else _drift_json(param, xs, drift),
                "segments": [] if seg is None else [seg.to_json(param, kernel.metric)],
            }
            if pred is not None:
                extras["prediction"] = Deferred(_prediction_json, param, pred)
            fitted[kernel.key] = _to_model(kernel, param, fit, st.rrd, extras)
    ordered = tuple(fitted[k.key] for k in mset.kernels if k.key in fitted)
    return ModelingResult(ordered, tuple(skipped))


def _segments(
    x: np.ndarray,
    y: np.ndarray,
    kernels: list[Kernel],
    fits: list[Fitted],
    sigma: np.ndarray,
    impl: Modeler,
) -> list[Segmentation | None]:
    """Changes of behaviour inside the range, for kernels the model misfits.

    The search costs ~10 ms a kernel, so it runs only where the model misses the medians
    by more than SEGMENT_MISFIT times their noise (mean squared, in noise units): on
    seeded steps of x1.3-x2 in 6-10 sizes every detected break passed this filter.
    """
    out: list[Segmentation | None] = [None] * len(kernels)
    if len(x) < MIN_SEGMENT_POINTS:
        return out
    pred = evaluate_fits(fits, x)
    noise = np.maximum(np.nan_to_num(sigma, nan=0.0), 0.01)
    with np.errstate(invalid="ignore", divide="ignore"):
        misfit = (((y - pred) / pred / noise[:, None]) ** 2).mean(axis=1)
    rows = np.flatnonzero(~(misfit <= SEGMENT_MISFIT))
    reps = [[p.values for p in sorted(kernels[i].points, key=lambda p: p.at[0])] for i in rows]
    for i, seg in zip(rows, detect_segments(x, reps, impl) if len(rows) else []):
        out[i] = seg
    return out


@dataclass(frozen=True)
class _KernelNoise:
    medians: np.ndarray  # (P,) in increasing x order
    rrd: float | None
    robust: float | None
    sigma: float | None
    spreads: list[float | None]


def _kernels_noise(kernels: list[Kernel]) -> list[_KernelNoise]:
    """Noise statistics of kernels sharing their points; vectorised when repetitions match."""
    ordered = [sorted(k.points, key=lambda p: p.at[0]) for k in kernels]
    counts = {len(p.values) for points in ordered for p in points}
    if len(counts) != 1:
        return [_kernel_noise(k) for k in kernels]
    r = counts.pop()
    flat = itertools.chain.from_iterable(p.values for points in ordered for p in points)
    values = np.fromiter(flat, dtype=float, count=len(ordered) * len(ordered[0]) * r)
    values = values.reshape(len(ordered), len(ordered[0]), r)
    stats = noise_batch(values)
    medians = np.median(values, axis=-1)

    def listed(a: np.ndarray) -> list:
        return np.where(np.isnan(a), None, a).tolist()

    rrd, robust, sigma = (listed(stats[k]) for k in ("rrd", "robust", "median_error"))
    spreads = listed(stats["spreads"])
    return [
        _KernelNoise(medians[i], rrd[i], robust[i], sigma[i], spreads[i])
        for i in range(len(kernels))
    ]


def _kernel_noise(kernel: Kernel) -> _KernelNoise:
    reps = [p.values for p in sorted(kernel.points, key=lambda p: p.at[0])]
    return _KernelNoise(
        medians=np.array([statistics.median(v) for v in reps]),
        rrd=range_of_relative_deviation(reps),
        robust=robust_noise(reps),
        sigma=median_error(reps),
        spreads=point_spreads(reps),
    )


def _noise_json(param: str, xs: tuple[float, ...], st: _KernelNoise) -> dict[str, Any]:
    return {
        "rrd": st.rrd,
        "robust": st.robust,
        "median_error": st.sigma,
        "points": [{"at": {param: x}, "spread": s} for x, s in zip(xs, st.spreads)],
    }


def _drift_json(param: str, xs: tuple[float, ...], drift: Drift) -> dict[str, Any]:
    return {"at": {param: xs[drift.index]}, "deviation": drift.deviation}


@functools.lru_cache(maxsize=4096)
def _order_json(param: str, order: tuple[Fraction, Fraction]) -> dict[str, str]:
    body = Factor(param, *order).big_o()
    return {
        "complexity": f"O({body})" if body else "O(1)",
        "exponent": fraction_text(order[0]),
        "log_exponent": fraction_text(order[1]),
    }


def _confidence_json(param: str, conf: Confidence) -> dict[str, Any]:
    return {
        "probability": conf.probability,
        "classes": [
            {**_order_json(param, c.order), "probability": c.probability} for c in conf.classes
        ],
    }


def _prediction_json(param: str, pred: Prediction) -> dict[str, Any]:
    return {
        "at": {param: pred.at},
        "value": pred.value,
        "low": pred.low,
        "high": pred.high,
        "level": pred.level,
    }


def _model_multi(mset: MeasurementSet, impl: Modeler) -> ModelingResult:
    """Several parameters: lines of points per parameter, then their combinations."""
    models: list[Model] = []
    skipped: list[Skipped] = []
    results = model_multi_parameter(mset.kernels, tuple(mset.parameters), impl)
    for kernel, result in zip(mset.kernels, results):
        if isinstance(result, Model):
            # The same added fields as one-parameter models; the per-class confidence,
            # drift and segment checks are one-parameter analyses (null / empty here).
            extras = {"noise_detail": None, "confidence": None, "drift": None, "segments": []}
            models.append(dataclasses.replace(result, extras={**extras, **result.extras}))
        else:
            skipped.append(Skipped(kernel.name, kernel.metric, tuple(result)))
    return ModelingResult(tuple(models), tuple(skipped))


def _to_model(
    kernel: Kernel,
    parameter: str,
    fit: Fitted,
    noise: float | None,
    extras: dict[str, Any] | None = None,
) -> Model:
    terms = tuple(Term(c, (Factor(parameter, a, b),)) for c, a, b in fit.terms)
    return Model(
        kernel=kernel.name,
        metric=kernel.metric,
        parameters=(parameter,),
        constant=fit.constant,
        terms=terms,
        smape=round(fit.smape, 6),
        noise=noise,
        extras=extras or {},
    )
