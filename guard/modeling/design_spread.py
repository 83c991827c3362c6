"""What a design that cannot tell combinations apart allows at a point off its points.

A cross (lines through one centre, no point off them) fits an additive and a multiplicative
combination alike; a diagonal (every parameter changes at every step) cannot say which
parameter the change belongs to.  The model takes one of them (an assumption its note
states), and its interval from redrawn data varies the noise, not that assumption: on a
diagonal, a point off it read 81.0 [78.6..82.6] where the truth was 10.4 (an HPC probe).
The values the other readings give there widen the interval, so that it is as uncertain
as the note says the prediction is:

* cross: the model along each line through the centre, combined as a sum and as a product
  (both pass through every point of the lines);
* diagonal: the model at the measured curve's point with each parameter's target value in
  turn (the whole change given to that parameter), the other coordinates read off the
  curve in log space (extended along its end segments).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .pmnf import Model

__all__ = ["readings"]


def readings(
    model: Model, design: str, coords: np.ndarray, point: Mapping[str, float]
) -> list[float]:
    """The values the other readings of the design give at ``point`` (finite, positive);
    ``coords`` (N, P) are the measured points in the model's parameter order."""
    params = model.parameters
    target = np.array([float(point[p]) for p in params])
    if design == "cross":
        values = _cross(model, coords, target)
    elif design == "diagonal":
        values = _diagonal(model, coords, target)
    else:
        return []
    return [v for v in values if np.isfinite(v) and v > 0]


def _value(model: Model, at: Sequence[float] | np.ndarray) -> float:
    return model.value_at(dict(zip(model.parameters, at)))


def _cross(model: Model, coords: np.ndarray, target: np.ndarray) -> list[float]:
    """The sum and the product of the model's lines through the centre, at ``target``."""
    centre = np.array([_mode(coords[:, j]) for j in range(coords.shape[1])])
    v0 = _value(model, centre)
    if not (np.isfinite(v0) and v0 > 0):
        return []
    lines = []
    for j in range(len(target)):
        at = centre.copy()
        at[j] = target[j]
        lines.append(_value(model, at))
    k = len(lines)
    added = sum(lines) - (k - 1) * v0
    multiplied = float(np.prod(np.asarray(lines) / v0) * v0)
    return [added, multiplied]


def _diagonal(model: Model, coords: np.ndarray, target: np.ndarray) -> list[float]:
    """The model on the measured curve where each parameter has its target value."""
    logs = np.log(coords)
    out = []
    for j in range(coords.shape[1]):
        order = np.argsort(logs[:, j])
        along = logs[order, j]
        if len(np.unique(along)) < 2:
            continue
        at = np.array(
            [_extended(np.log(target[j]), along, logs[order, i]) for i in range(coords.shape[1])]
        )
        out.append(_value(model, np.exp(at)))
    return out


def _extended(x: float, xs: np.ndarray, ys: np.ndarray) -> float:
    """ys at x: linear between the points, along the end segments beyond them."""
    if xs[0] <= x <= xs[-1]:
        return float(np.interp(x, xs, ys))
    i = (0, 1) if x < xs[0] else (-2, -1)
    run = xs[i[1]] - xs[i[0]]
    slope = (ys[i[1]] - ys[i[0]]) / run if run > 0 else 0.0
    return float(ys[i[0]] + slope * (x - xs[i[0]]))


def _mode(values: np.ndarray) -> float:
    """The most frequent value (the lines' common coordinate); the smallest of equals."""
    found, counts = np.unique(values, return_counts=True)
    return float(found[int(np.argmax(counts))])
