"""Kernels with zero values (counts such as visits or bytes) for a relative-error engine.

perfguard's modelers weigh every point by its relative error, which a value of 0 makes
infinite. A PMNF model's constant absorbs any offset, though: a model of ``y + d`` is a
model of ``y`` with ``d`` taken from its constant. So a kernel whose values are finite and
non-negative with at least one zero is modelled as ``y + d``, where ``d`` is the median of
its positive values (1 when every value is 0), and the model is shifted back. Relative to
``y + d`` a zero point weighs like a typical one, instead of infinitely, and a kernel that
is 0 everywhere becomes the constant model 0.

What the shift changes is said in the model's ``zero_values`` field: the noise figures are
relative to the shifted values (so they read low), and the drift and segment checks, which
compare sizes by ratios, are not run. The SMAPE is recomputed on the kernel's own values
(a point where both the value and the model are 0 counts as no error).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from ..measurements import Kernel, MeasurementSet, Point
from .details import PredictionDetail
from .pmnf import Model

__all__ = ["zero_offsets", "shifted_set", "shift_back", "with_zeros"]

T = TypeVar("T")


def zero_offsets(mset: MeasurementSet) -> dict[tuple[str, str], float]:
    """The offset of every kernel whose values are finite, non-negative and include a 0."""
    offsets = {}
    for kernel in mset.kernels:
        values = np.fromiter((v for p in kernel.points for v in p.values), dtype=float)
        if values.size and bool((values >= 0).all()) and not bool(values.all()):
            if np.isfinite(values).all():
                positive = values[values > 0]
                offsets[kernel.key] = float(np.median(positive)) if positive.size else 1.0
    return offsets


def shifted_set(mset: MeasurementSet, offsets: dict[tuple[str, str], float]) -> MeasurementSet:
    """The set with each offset kernel's values raised by its offset."""
    return dataclasses.replace(
        mset,
        kernels=tuple(_shifted(k, offsets[k.key]) if k.key in offsets else k for k in mset.kernels),
    )


def _shifted(kernel: Kernel, offset: float) -> Kernel:
    points = tuple(Point(p.at, tuple(v + offset for v in p.values)) for p in kernel.points)
    return dataclasses.replace(kernel, points=points)


def shift_back(model: Model, kernel: Kernel, offset: float) -> Model:
    """The model of the shifted kernel as a model of the kernel itself."""
    constant = model.constant - offset
    if abs(constant) <= 1e-9 * offset:  # the rounding of a constant fit of offset + 0
        constant = 0.0
    model = dataclasses.replace(model, constant=constant)
    zeros = sum(1 for p in kernel.points for v in p.values if v == 0)
    extras = dict(model.extras)
    if "prediction" in extras:
        extras["prediction"] = _lowered(extras["prediction"], offset)
    extras.update(
        drift=None,
        segments=[],
        zero_values={
            "zeros": zeros,
            "offset": offset,
            "note": f"{zeros} values are 0: modelled as value + {offset:.6g} (so the noise "
            "figures are relative to the raised values); drift and segments not checked",
        },
    )
    return dataclasses.replace(model, smape=_smape(model, kernel), extras=extras)


def _lowered(detail: PredictionDetail, offset: float) -> PredictionDetail:
    p = detail.prediction
    lowered = dataclasses.replace(
        p,
        value=max(p.value - offset, 0.0),
        low=max(p.low - offset, 0.0),
        high=max(p.high - offset, 0.0),
    )
    return dataclasses.replace(detail, prediction=lowered)


def _smape(model: Model, kernel: Kernel) -> float:
    at = np.array([p.at for p in kernel.points], dtype=float)
    y = np.array([np.median(p.values) for p in kernel.points])
    f = np.asarray(model.evaluate({n: at[:, i] for i, n in enumerate(model.parameters)}))
    f = np.broadcast_to(f, y.shape)
    scale = (np.abs(y) + np.abs(f)) / 2
    safe = np.where(scale > 0, scale, 1.0)
    return round(float(np.mean(np.where(scale > 0, np.abs(y - f) / safe, 0.0)) * 100), 6)


def with_zeros(
    mset: MeasurementSet,
    run: Callable[[MeasurementSet], Sequence[T]],
    rebuild: Callable[[T, Kernel, float], T],
) -> list[T]:
    """``run`` on the set with zero kernels raised, each result ``rebuild``-t for its kernel."""
    offsets = zero_offsets(mset)
    if not offsets:
        return list(run(mset))
    results = run(shifted_set(mset, offsets))
    return [
        rebuild(r, k, offsets[k.key]) if k.key in offsets else r
        for r, k in zip(results, mset.kernels)
    ]
