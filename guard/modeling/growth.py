"""Growth beyond the model space: kernels whose top sizes grow faster than any PMNF class.

PMNF's fastest classes here are n^5 and n^3 log^2 n; a kernel that multiplies its time at every step
(a regular expression backtracking exponentially, a recursion without memoisation) fits no
class, and the least bad fit can read as anything, O(1) included.  Such growth shows in the
local exponent of the last steps, d log y / d log x, which for any polynomial class stays at
its exponent (plus a log term's 1 / ln x) while for c * b^x it is x ln b and keeps rising.

A kernel is *exponential-like* when its last two steps are both steeper than the fastest
class by more than one power of x, each with the given confidence given the per-point error
(a step's log ratio has the error of both its points).  One steep step alone (a cache level left
at the top size) is not enough.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, SupportsFloat

import numpy as np

from ..defaults import CONFIDENCE

if TYPE_CHECKING:
    from .pmnf import Model

MARGIN = 1.0  # steeper than the fastest class by at least one power of x
STEPS = 2  # the last steps that must all be that steep
DECISIVE = CONFIDENCE  # a model reads exponential-like from here (the gate's default)


@dataclass(frozen=True)
class Beyond:
    """Per kernel (K,): P(faster than any class), the growth per step at the top, and that
    step's sizes."""

    probability: np.ndarray
    factor: np.ndarray
    step_from: np.ndarray
    step_to: np.ndarray


def beyond_polynomial(
    x: np.ndarray,
    y: np.ndarray,
    error: np.ndarray,
    classes: Sequence[tuple[SupportsFloat, SupportsFloat]],
) -> Beyond:
    """How sure it is that each kernel (rows of y (K, P) at sizes x (P,)) grows faster than
    any of ``classes`` ((exponent, log exponent) pairs) at its top sizes; ``error`` (K, P) is
    each point's relative error."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    k, p = y.shape
    order = np.argsort(x)
    x, y = x[order], y[:, order]
    error = np.broadcast_to(np.asarray(error, dtype=float), y.shape)[:, order]
    if p < STEPS + 2 or np.any(x <= 0):
        nothing = np.full(k, np.nan)
        return Beyond(np.zeros(k), nothing, nothing, nothing)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        logs = np.log(y)
        steps = np.diff(logs, axis=1)  # (K, P-1)
        span = np.diff(np.log(x))  # (P-1,)
        alpha = np.array([float(a) for a, _ in classes])[:, None]
        beta = np.array([float(b) for _, b in classes])[:, None]
        # a class's local exponent at x is alpha + beta / ln x: the fastest at each step
        fastest = (alpha + beta / np.log(np.maximum(x[:-1], math.e))[None, :]).max(axis=0)
        limit = (fastest + MARGIN) * span  # (P-1,) the most log growth a class gives a step
        # Each window of the last m steps (m = STEPS .. P-1): its growth beyond the limit,
        # in units of its two end points' error.  Longer windows see through noise that
        # hides two steps; every step of the window must itself grow faster than any class.
        best = np.full(k, -np.inf)
        for m in range(STEPS, p):
            excess = logs[:, -1] - logs[:, -1 - m] - limit[-m:].sum()
            err = np.hypot(error[:, -1], error[:, -1 - m])
            steep = (steps[:, -m:] > fastest[-m:] * span[-m:]).all(axis=1)
            z = np.where(steep & (err > 0), excess / err, -np.inf)
            best = np.maximum(best, np.where(np.isfinite(z), z, -np.inf))
    windows = max(p - STEPS, 1)
    # the best of several windows: its one-sided p-value times their number (Bonferroni)
    probability = np.clip(1.0 - windows * (1.0 - _normal_cdf(best)), 0.0, 1.0)
    return Beyond(probability, np.exp(steps[:, -1]), np.full(k, x[-2]), np.full(k, x[-1]))


def _normal_cdf(z: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf, otypes=[float])
    return 0.5 * (1.0 + erf(np.asarray(z, dtype=float) / math.sqrt(2.0)))


def growth_json(beyond: Beyond, row: int, parameter: str) -> dict[str, object] | None:
    """The models@1 ``growth`` field of one kernel, when it is decisively exponential-like."""
    p = float(beyond.probability[row])
    if not p >= DECISIVE:
        return None
    return {
        "kind": "exponential-like",
        "probability": p,
        "factor_per_step": float(beyond.factor[row]),
        "step": {parameter: [float(beyond.step_from[row]), float(beyond.step_to[row])]},
    }


FALLING = 0.5  # a line falls when its values drop at every step, by this factor or more overall


def falling(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Which rows of ``y`` (K, P) at sizes ``x`` (P,) drop at every step and by FALLING or
    more overall (K,): a strong-scaling study's times, which no class describes."""
    order = np.argsort(x)
    ys = np.asarray(y, dtype=float)[:, order]
    if ys.shape[1] < 2:
        return np.zeros(len(ys), dtype=bool)
    with np.errstate(invalid="ignore"):
        return np.all(np.diff(ys, axis=1) < 0, axis=1) & (ys[:, -1] <= FALLING * ys[:, 0])


def falls_json(x: np.ndarray, y: np.ndarray, parameter: str) -> dict[str, object] | None:
    """The models@1 ``falls`` field of one line (point values ``y`` at sizes ``x``), when it
    falls (see ``falling``)."""
    order = np.argsort(x)
    xs, ys = np.asarray(x, dtype=float)[order], np.asarray(y, dtype=float)[order]
    if not falling(xs, ys[None, :])[0]:
        return None
    return {
        "parameter": parameter,
        "factor": float(ys[-1] / ys[0]),
        "from": float(xs[0]),
        "to": float(xs[-1]),
    }


MISFIT_SMAPE = 50.0  # a model this far off its own values has no class to go by


def misfit(smape: float, extras: Mapping[str, object] | None = None) -> bool:
    """Whether no class fits a model's values (a step of x10 and more inside
    the range, a peak): its SMAPE is MISFIT_SMAPE or more.  Falling and exponential-like
    values (``falls``, ``growth`` in ``extras``) misfit too, and are said so on their own."""
    marked = extras or {}
    return smape >= MISFIT_SMAPE and not (marked.get("falls") or marked.get("growth"))


def misfit_model(model: Model) -> bool:
    """``misfit`` for a model: its class, and any value it predicts, say nothing about the
    kernel (a model of several parameters too: ``2^(p/32) n`` fitted as ``p^5 n`` at 50%)."""
    return misfit(model.smape, model.extras)


def exploding(model: Model) -> bool:
    """Whether the model's values grow faster than any class (its ``growth`` mark)."""
    return model.complexity() == "exponential-like"


def predicts_nothing(model: Model) -> bool:
    """No value of the model's formula means anything: no class fits its values (misfit),
    or none grows fast enough (exponential-like; its formula is the least bad class fit)."""
    return misfit_model(model) or exploding(model)
