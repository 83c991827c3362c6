"""How far the measurements depart from the user's analytical models, as report lines.

Evaluating an analytical model may run the user's ``module:function``: it happens here,
before rendering, so the report renderers only ever format finished data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..measurements import Kernel, format_at
from ..modeling.analytical import AnalyticalError, AnalyticalModel, departure
from ..modeling.predict import kernel_rows

if TYPE_CHECKING:
    from ..config import Config
    from ..measurements import MeasurementSet

__all__ = ["analytical_facts", "departure_lines"]


def analytical_facts(cfg: Config, mset: MeasurementSet) -> dict[tuple[str, str], tuple[str, ...]]:
    """(kernel, metric) -> lines about the kernel's analytical model (absent without one)."""
    from ..config import analytical_models

    models = analytical_models(cfg, mset.parameters)
    return {
        (k.name, k.metric): tuple(departure_lines(models[k.name], k, mset.parameters))
        for k in mset.kernels
        if k.name in models
    }


def departure_lines(
    model: AnalyticalModel, kernel: Kernel, parameters: Sequence[str], worst: int = 3
) -> list[str]:
    """The model, and how far the kernel's medians depart from it (its furthest points)."""
    x, medians = kernel_rows(kernel)
    if not len(medians):
        return []
    head = f"analytical model: {model.source}"
    try:
        predicted = model.evaluate({name: x[:, i] for i, name in enumerate(parameters)})
    except AnalyticalError as exc:
        return [head, f"the analytical model could not be evaluated: {exc}"]
    if not np.all(medians > 0):
        return [head]
    dep = departure(predicted, medians)
    furthest = "; ".join(
        f"{format_at(parameters, x[i])}: {dep.ratios[i]:.2f}× the model" for i in dep.worst(worst)
    )
    return [
        head,
        f"the measurements depart from it by {dep.mape:.1f}% on average "
        f"(after one calibration factor, over {len(medians)} points); furthest: {furthest}",
    ]
