"""``perfguard predict``'s pure part: train a hybrid model per kernel, predict at points.

Each kernel's points become one training row each (its configuration and the median
of its repetitions). A kernel with an analytical model gets the hybrid of
:mod:`~guard.modeling.hybrid`; one without gets extra trees alone, and says so.
"""

from __future__ import annotations

import fnmatch
import itertools
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from ..errors import UsageError
from ..measurements import Kernel, MeasurementSet, plain_number
from .analytical import AnalyticalError, AnalyticalModel, Departure, departure
from .hybrid import HybridModel, HybridPrediction

__all__ = [
    "PREDICTIONS_SCHEMA",
    "PredictionRow",
    "Predictor",
    "kernel_rows",
    "train_predictors",
    "predict_rows",
    "parse_point",
    "parse_grid",
    "predictions_json",
]

PREDICTIONS_SCHEMA = "perfguard/predictions@1"
MIN_POINTS = 4


@dataclass(frozen=True)
class Predictor:
    """One kernel's trained model and, with an analytical model, its departure."""

    kernel: str
    metric: str
    unit: str | None
    parameters: tuple[str, ...]
    model: HybridModel
    analytical: AnalyticalModel | None
    departure: Departure | None
    bounds: tuple[tuple[float, float], ...] = ()

    def outside(self, point: Mapping[str, float]) -> list[str]:
        """The parameters of ``point`` beyond the measured range: trees do not extrapolate."""
        return [
            p
            for p, (low, high) in zip(self.parameters, self.bounds, strict=True)
            if not low <= point[p] <= high
        ]

    def predict(self, points: np.ndarray) -> HybridPrediction:
        """The hybrid model's predictions at ``points`` (one configuration per row)."""
        return self.model.predict(points, self._analytical(points))

    def _analytical(self, points: np.ndarray) -> np.ndarray | None:
        if self.analytical is None:
            return None
        columns = {p: points[:, i] for i, p in enumerate(self.parameters)}
        try:
            return self.analytical.evaluate(columns)
        except AnalyticalError as exc:
            raise UsageError(f"{self.kernel}: analytical model: {exc}") from None


def kernel_rows(kernel: Kernel) -> tuple[np.ndarray, np.ndarray]:
    """Configurations (one row per point) and the median of each point's repetitions."""
    points = [p for p in kernel.points if p.values]
    x = np.array([p.at for p in points], dtype=float)
    y = np.array([statistics.median(p.values) for p in points], dtype=float)
    return x, y


def train_predictors(
    mset: MeasurementSet,
    analytical_for: Callable[[str], AnalyticalModel | None],
    kernels: Sequence[str] = (),
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    skipped: list[str] | None = None,
) -> list[Predictor]:
    """A predictor for every kernel whose name matches one of ``kernels`` (all if empty).

    With ``skipped``, a kernel of too few configurations is left out with its reason there
    (one small kernel refused the whole file); without, it is an error."""
    chosen = [
        k
        for k in mset.kernels
        if not kernels or any(fnmatch.fnmatchcase(k.name, g) for g in kernels)
    ]
    if not chosen:
        names = ", ".join(sorted({k.name for k in mset.kernels})) or "none"
        raise UsageError(f"no kernel matches {', '.join(kernels)} (kernels: {names})")
    out = []
    too_few: list[str] = []
    for kernel in chosen:
        if progress is not None:
            progress(kernel.name)
        x, y = kernel_rows(kernel)
        why = None
        if len(y) < MIN_POINTS:
            why = (
                f"{kernel.name}: {len(y)} measured configurations; the hybrid model needs "
                f"at least {MIN_POINTS}"
            )
        elif not np.all(np.isfinite(y) & (y > 0)):
            why = f"{kernel.name}: predictions need positive measured values"
        if why is not None:
            if skipped is None:
                raise UsageError(why)
            too_few.append(why)
            continue
        model = analytical_for(kernel.name)
        a = None
        if model is not None:
            columns = {p: x[:, i] for i, p in enumerate(mset.parameters)}
            try:
                a = model.evaluate(columns)
            except AnalyticalError as exc:
                raise UsageError(f"{kernel.name}: analytical model: {exc}") from None
        out.append(
            Predictor(
                kernel=kernel.name,
                metric=kernel.metric,
                unit=kernel.unit,
                parameters=mset.parameters,
                model=HybridModel.fit(x, y, a, seed=seed),
                analytical=model,
                departure=None if a is None else departure(a, y),
                bounds=tuple((float(lo), float(hi)) for lo, hi in zip(x.min(0), x.max(0))),
            )
        )
    if too_few and not out:  # nothing to predict with: the first reason is the error
        raise UsageError(too_few[0])
    if skipped is not None:
        skipped.extend(too_few)
    return out


def parse_point(text: str, parameters: Sequence[str]) -> dict[str, float]:
    """``n=4096,block=32`` -> {"n": 4096.0, "block": 32.0}; every parameter once."""
    values: dict[str, float] = {}
    for part in text.split(","):
        name, sep, raw = part.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"--at {text!r}: expected NAME=VALUE pairs such as n=4096,block=32")
        if name not in parameters:
            raise UsageError(
                f"--at {text!r}: unknown parameter {name!r} (parameters: {', '.join(parameters)})"
            )
        if name in values:
            raise UsageError(f"--at {text!r}: {name} given twice")
        values[name] = _positive(raw, f"--at {text!r}: {name}")
    missing = [p for p in parameters if p not in values]
    if missing:
        raise UsageError(f"--at {text!r}: give a value for {', '.join(missing)} too")
    return values


def parse_grid(
    items: Sequence[str], parameters: Sequence[str], parse_range: Callable[[str], tuple[float, ...]]
) -> list[dict[str, float]]:
    """``--grid n=64..256+64 --grid bx=8,16`` -> the product of the values, in order."""
    axes: dict[str, tuple[float, ...]] = {}
    for text in items:
        name, sep, raw = text.partition("=")
        name = name.strip()
        if not sep or name not in parameters:
            raise UsageError(
                f"--grid {text!r}: expected PARAMETER=VALUES with one of {', '.join(parameters)}"
            )
        if name in axes:
            raise UsageError(f"--grid {text!r}: {name} given twice")
        if ".." in raw:
            try:
                axes[name] = parse_range(raw)
            except ValueError as exc:
                raise UsageError(f"--grid {text!r}: {exc}") from None
        else:
            axes[name] = tuple(_positive(v, f"--grid {text!r}") for v in raw.split(","))
    missing = [p for p in parameters if p not in axes]
    if missing:
        raise UsageError(f"--grid: give values for {', '.join(missing)} too")
    combos = itertools.product(*(axes[p] for p in parameters))
    return [dict(zip(parameters, combo, strict=True)) for combo in combos]


def _positive(raw: str, where: str) -> float:
    try:
        value = float(raw.strip())
    except ValueError:
        raise UsageError(f"{where}: {raw.strip()!r} is not a number") from None
    if not np.isfinite(value) or value <= 0:
        raise UsageError(f"{where}: expected a positive number, got {raw.strip()}")
    if value > _LARGEST:  # the trees read single precision: 1e60 is infinite to them
        raise UsageError(f"{where}: {raw.strip()} is too large to predict at (at most 1e30)")
    return value


_LARGEST = 1e30


class PredictionRow(TypedDict):
    """One predicted configuration, as ``predictions@1`` writes it."""

    at: dict[str, float | int]
    value: float
    low: float
    high: float
    analytical: float | None
    outside_measured: list[str]


def predict_rows(
    predictor: Predictor, points: Sequence[Mapping[str, float]]
) -> list[PredictionRow]:
    """One row per point: its coordinates, the prediction, spread and analytical value."""
    if not points:
        return []
    x = np.array([[pt[p] for p in predictor.parameters] for pt in points], dtype=float)
    out = predictor.predict(x)
    analytical = out.analytical
    return [
        PredictionRow(
            at={p: plain_number(pt[p]) for p in predictor.parameters},
            value=float(out.value[i]),
            low=float(out.low[i]),
            high=float(out.high[i]),
            analytical=None if analytical is None else float(analytical[i]),
            outside_measured=predictor.outside(pt),
        )
        for i, pt in enumerate(points)
    ]


def predictions_json(
    results: Sequence[tuple[Predictor, list[PredictionRow]]],
) -> dict[str, object]:
    """The ``perfguard/predictions@1`` document."""
    kernels = []
    for predictor, rows in results:
        model = predictor.model
        kernels.append(
            {
                "kernel": predictor.kernel,
                "metric": predictor.metric,
                "unit": predictor.unit,
                "parameters": list(predictor.parameters),
                "training_points": model.training_size,
                "analytical": None if predictor.analytical is None else predictor.analytical.source,
                "analytical_scale": model.scale,
                "analytical_weight": model.weight,
                "cross_validated_mape": {k: round(v, 3) for k, v in model.cv_mape.items()},
                "analytical_mape": None
                if predictor.departure is None
                else round(predictor.departure.mape, 3),
                "predictions": rows,
            }
        )
    return {"schema": PREDICTIONS_SCHEMA, "kernels": kernels}
