"""Catwalk's ranking: kernels by their predicted value at a target scale, or asymptotically."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..modeling.growth import exploding, predicts_nothing
from .verdicts import Verdict

__all__ = ["rank_kernels"]

FAR = 2.0**20  # where kernels of one class are told apart when no target is given


def rank_kernels(
    verdicts: Sequence[Verdict],
    parameters: Sequence[str],
    target: Mapping[str, float],
    largest: Mapping[tuple[str, str], Mapping[str, float]] | None = None,
) -> list[Verdict]:
    """The verdicts in input order, each with its rank (1 = the most expensive at scale)
    among the kernels of its metric (seconds and bytes are not compared).

    With a target every model is evaluated there (parameters the target leaves out at
    the kernel's ``largest`` measured value, as its change at the target is) and ranked by
    that value; without one, exponential-like kernels first, then by lead class, then by
    the value at ``FAR``.  Kernels
    without a model get no rank.
    """
    keyed = []
    for i, v in enumerate(verdicts):
        if v.model is None:
            continue
        fill = (largest or {}).get((v.kernel, v.metric), {}) if target else {}
        at = {p: float(target.get(p, fill.get(p, FAR))) for p in v.model.parameters}
        # grows faster than any class: above every model at scale, whatever its fit says
        value = math.inf if exploding(v.model) else float(np.asarray(v.model.evaluate(at)))
        lead = max(v.model.lead_order(p) for p in v.model.parameters)
        keyed.append((i, value, lead))
    if target:
        order = sorted(keyed, key=lambda t: (-t[1], t[0]))
    else:
        # exponential-like first (its lead class is only the least bad fit), then by class
        order = sorted(
            keyed, key=lambda t: (t[1] != math.inf, tuple(-x for x in t[2]), -t[1], t[0])
        )
    out = list(verdicts)
    ranks: dict[str, int] = {}
    for i, value, _ in order:
        rank = ranks[verdicts[i].metric] = ranks.get(verdicts[i].metric, 0) + 1
        # a model no class fits predicts nothing (growth.misfit), nor one beyond every class
        model = verdicts[i].model
        shown = target and model is not None and not predicts_nothing(model)
        predicted = value if shown else None
        out[i] = dataclasses.replace(out[i], rank=rank, predicted=predicted)
    return out
