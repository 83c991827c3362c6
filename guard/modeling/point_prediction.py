"""Models of several parameters predicted at a point, with an interval from redrawn data.

A one-parameter model's interval weighs the posterior over its classes
(``confidence.predictions``). A model of several parameters is chosen from line shapes
and their combinations by leave-one-out error (``multi_parameter``), with no posterior to
weigh, so its interval comes from the data instead: each kernel is measured again,
``DRAWS`` times, as its model and its noise say it would be, and modelled again in one
batch with the same modeler; the interval is the central ``level`` of those models'
values at the point (the model's own value stays the prediction).

The noise of a redraw, relative and log-normal:

* with repetitions, the larger of their pooled spread and the model's misfit per point
  (a point's median misses the model by its noise over the repetitions, and by any shape
  the model lacks), the misfit counted ``MISFIT_WEIGHT`` times;
* with one value a point, the misfit alone (``MISFIT_WEIGHT`` times), at least
  ``FLOOR`` -- a single measured time rarely carries less (as the one-parameter interval's
  prior, ``confidence``).

``MISFIT_WEIGHT`` = 2 was chosen on seed 004's two-parameter functions (seed 1; full grids
and the nine-point cross, 1, 2 and 5 repetitions, 2-50% noise): the chosen model's
residuals understate the noise, because the model was chosen to fit them. Stated 90%
intervals then cover 85-100% of the true values at P+1..P+4 (docs/benchmarks.md).

The draws are seeded by the kernel's name and metric: the same input gives the same
interval, whatever else the file holds.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping

import numpy as np

from ..measurements import Kernel, MeasurementSet, Point
from .confidence import Prediction
from .pmnf import Model

__all__ = ["DRAWS", "FLOOR", "MISFIT_WEIGHT", "point_predictions"]

DRAWS = 100
FLOOR = 0.02
MISFIT_WEIGHT = 2.0

Refit = Callable[
    [MeasurementSet, Mapping[tuple[str, str], float | None]], dict[tuple[str, str], Model]
]


def point_predictions(
    mset: MeasurementSet,
    models: Mapping[tuple[str, str], Model],
    errors: Mapping[tuple[str, str], float | None],
    at: Mapping[str, float],
    level: float,
    refit: Refit,
) -> dict[tuple[str, str], Prediction]:
    """Each modelled kernel's value at ``at`` and its interval at ``level``.

    ``refit(redrawn set, errors by key)`` models a set of kernels as the originals were
    (it returns models by key). Kernels whose model is not positive at their points get no
    prediction.
    """
    params = tuple(mset.parameters)
    point = {p: np.array([float(at[p])]) for p in params}
    redrawn: list[Kernel] = []
    origin: dict[tuple[str, str], tuple[str, str]] = {}
    for kernel in mset.kernels:
        model = models.get(kernel.key)
        draws = None if model is None else _redraws(kernel, model, params)
        if draws is None:
            continue
        for d in draws:
            redrawn.append(d)
            origin[d.key] = kernel.key
    if not redrawn:
        return {}
    refitted = refit(
        MeasurementSet(params, tuple(redrawn)), {key: errors.get(o) for key, o in origin.items()}
    )
    values: dict[tuple[str, str], list[float]] = {}
    for key, o in origin.items():
        m = refitted.get(key)
        value = m.value_at(point) if m is not None else math.nan
        values.setdefault(o, []).append(value)
    out: dict[tuple[str, str], Prediction] = {}
    tail = (1.0 - level) / 2
    for key, found in values.items():
        own = models[key].value_at(point)
        v = np.array(found)
        v = v[np.isfinite(v) & (v > 0)]
        if not (math.isfinite(own) and own > 0) or len(v) < DRAWS // 2:
            continue
        low, high = np.exp(np.quantile(np.log(v), [tail, 1.0 - tail]))
        first = params[0]
        out[key] = Prediction(
            float(at[first]), own, min(float(low), own), max(float(high), own), level
        )
    return out


def _redraws(kernel: Kernel, model: Model, params: tuple[str, ...]) -> list[Kernel] | None:
    """DRAWS copies of the kernel, measured again from its model with its noise."""
    at = np.array([p.at for p in kernel.points], dtype=float)
    fitted = np.broadcast_to(
        np.asarray(model.evaluate({q: at[:, j] for j, q in enumerate(params)}), dtype=float),
        (len(at),),
    )
    medians = np.array([np.median(p.values) for p in kernel.points], dtype=float)
    if not (np.isfinite(fitted).all() and (fitted > 0).all() and (medians > 0).all()):
        return None
    counts = [len(p.values) for p in kernel.points]
    terms = len(model.terms) + 1
    misfit = float(np.sum(np.log(medians / fitted) ** 2)) / max(len(at) - terms, 1)
    reps = int(np.median(counts))
    if reps > 1:
        logs = [
            np.log(np.asarray(p.values, dtype=float)) for p in kernel.points if len(p.values) > 1
        ]
        spread = sum(float(((x - x.mean()) ** 2).sum()) for x in logs) / sum(
            len(x) - 1 for x in logs
        )
        sigma = math.sqrt(max(spread, reps * misfit * MISFIT_WEIGHT))
    else:
        sigma = math.sqrt(max(misfit * MISFIT_WEIGHT, FLOOR**2))
    rng = np.random.default_rng(zlib.crc32(f"{kernel.name}\0{kernel.metric}".encode()))
    total = sum(counts)
    out = []
    for b in range(DRAWS):
        noise = np.exp(sigma * rng.standard_normal(total))
        points, start = [], 0
        for p, y, n in zip(kernel.points, fitted, counts):
            points.append(Point(p.at, tuple(float(v) for v in y * noise[start : start + n])))
            start += n
        out.append(Kernel(f"{kernel.name}\0{b}", kernel.metric, tuple(points)))
    return out
