"""What every measurement file goes through after it is read: the points and parameters
no class can be fitted over leave, each with a note, instead of the kernel or the file.

* A point at a parameter value of 0 or less (an empty input: a fair measurement) is left
  out: every class is a function of positive sizes (log 0 is not a number), and one such
  point made the whole kernel unmodellable.  A kernel with no other point is kept whole
  (its error says why).
* A parameter with one value at every point is dropped (as a folder of Score-P
  experiments drops it): ``p = 64`` throughout a study over n has no effect to model, and
  as a parameter it left no line of three sizes to model n on.
"""

from __future__ import annotations

import math
from dataclasses import replace

from .. import numbers
from ..measurements import MeasurementSet

__all__ = ["modellable"]


def modellable(mset: MeasurementSet, path: str) -> MeasurementSet:
    """``mset`` without the points at sizes of 0 or less and the parameters that do not vary."""
    return _without_fixed_parameters(_without_nonpositive_sizes(mset, path), path)


def _without_nonpositive_sizes(mset: MeasurementSet, path: str) -> MeasurementSet:
    """The set without its points at a parameter value of 0 or less, with a note."""

    def positive(at: tuple[float, ...]) -> bool:
        return all(0 < a < math.inf for a in at)  # NaN is not either

    left = [(k.name, p.at) for k in mset.kernels for p in k.points if not positive(p.at)]
    if not left:
        return mset
    kernels = tuple(
        replace(k, points=tuple(p for p in k.points if positive(p.at)))
        if any(positive(p.at) for p in k.points)
        else k
        for k in mset.kernels
    )
    where = ", ".join(
        dict.fromkeys(
            f"{name} at " + ", ".join(numbers.at(q, a) for q, a in zip(mset.parameters, at))
            for name, at in left
        )
    )
    note = (
        f"{path}: left out {numbers.counted(len(left), 'point')} at a parameter value of 0 or "
        f"less, or not finite ({where}): the classes are functions of positive values"
    )
    return replace(mset, kernels=kernels, notes=(*mset.notes, note))


def _without_fixed_parameters(mset: MeasurementSet, path: str) -> MeasurementSet:
    """The set without the parameters that have one value at every point, with a note."""
    at = [p.at for k in mset.kernels for p in k.points]
    fixed = [i for i in range(len(mset.parameters)) if len({a[i] for a in at}) == 1]
    if not at or not fixed or len(fixed) == len(mset.parameters):
        return mset
    keep = [i for i in range(len(mset.parameters)) if i not in fixed]
    kernels = tuple(
        replace(k, points=tuple(replace(p, at=tuple(p.at[i] for i in keep)) for p in k.points))
        for k in mset.kernels
    )
    held = ", ".join(numbers.at(mset.parameters[i], at[0][i]) for i in fixed)
    kept = ", ".join(mset.parameters[i] for i in keep)
    note = (
        f"{path}: {held} at every point: modelled over {kept} (a parameter that does not "
        "vary has no effect to model)"
    )
    return replace(
        mset,
        parameters=tuple(mset.parameters[i] for i in keep),
        kernels=kernels,
        notes=(*mset.notes, note),
        held=(*mset.held, *((mset.parameters[i], at[0][i]) for i in fixed)),
    )
