"""The added fields of a one-parameter model, typed until a document is written.

The modeling step attaches these frozen objects to ``Model.extras`` under their models@1
keys (``noise_detail``, ``confidence``, ``drift``, ``prediction``); readers use their
attributes, and ``to_json`` runs only when models@1 is written, so bulk modeling builds no
JSON nobody reads. This module is the one place their JSON shape is spelled out.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .. import numbers
from .confidence import Confidence, Prediction
from .evidence import CLASSES
from .lines import Line
from .pmnf import Factor, fraction_text

__all__ = [
    "NoiseDetail",
    "ClassConfidence",
    "ParameterConfidence",
    "DriftDetail",
    "PredictionDetail",
]


@dataclass(frozen=True)
class NoiseDetail:
    """Noise statistics of the repetitions: overall and each size's spread."""

    parameter: str
    sizes: tuple[float, ...]
    rrd: float | None
    robust: float | None
    median_error: float | None
    spreads: tuple[float | None, ...]

    def worst(self) -> tuple[float, float] | None:
        """(size, spread) of the noisiest size, or None when no size has a spread."""
        known = [(s, x) for x, s in zip(self.sizes, self.spreads) if s is not None]
        if not known:
            return None
        spread, size = max(known, key=lambda pair: pair[0])  # the first of equal spreads
        return size, spread

    def to_json(self) -> dict[str, Any]:
        return {
            "rrd": self.rrd,
            "robust": self.robust,
            "median_error": self.median_error,
            "points": [
                {"at": {self.parameter: x}, "spread": s} for x, s in zip(self.sizes, self.spreads)
            ],
        }


@dataclass(frozen=True)
class ClassConfidence:
    """How sure the model's class is, and the other likely classes (most likely first)."""

    parameter: str
    confidence: Confidence

    @property
    def probability(self) -> float:
        return self.confidence.probability

    def shares(self) -> list[tuple[str, float]]:
        """(complexity such as "O(n log n)", probability) of every class at or above 1%."""
        return [
            (self._entry(c.index, c.order)["complexity"], c.probability)
            for c in self.confidence.classes
        ]

    def others(self, order: tuple[Fraction, Fraction]) -> list[tuple[str, float]]:
        """``shares`` without the class of ``order`` (the one a model shows)."""
        shown = _order_json(self.parameter, order)["complexity"]
        return [(c, p) for c, p in self.shares() if c != shown]

    def _entry(self, index: int, order: tuple[Fraction, Fraction]) -> dict[str, str]:
        if index >= 0:
            return _class_table(self.parameter)[index]
        return _order_json(self.parameter, order)

    def to_json(self) -> dict[str, Any]:
        return {
            "probability": self.probability,
            "classes": [
                {**self._entry(c.index, c.order), "probability": c.probability}
                for c in self.confidence.classes
            ],
        }


@dataclass(frozen=True)
class ParameterConfidence:
    """A model of several parameters: how sure its class is in each parameter, read off
    that parameter's line (the probability of the model's class there, and the others)."""

    parameters: tuple[ClassConfidence, ...]
    lines: tuple[Line, ...]  # the line each was read off, in the same order

    def to_json(self) -> dict[str, Any]:
        return {
            c.parameter: {**c.to_json(), "line": {"at": dict(line.at), "sizes": list(line.x)}}
            for c, line in zip(self.parameters, self.lines)
        }


@dataclass(frozen=True)
class DriftDetail:
    """One size whose values are ``deviation`` (relative) off the model the others fit."""

    parameter: str
    at: float
    deviation: float

    def to_json(self) -> dict[str, Any]:
        return {"at": {self.parameter: self.at}, "deviation": self.deviation}

    def sentence(self) -> str:
        """``the values at n=16384 are -53% off the model while the other sizes fit``."""
        where = numbers.at(self.parameter, self.at)
        return (
            f"the values at {where} are {self.deviation:+.0%} off the model while the other "
            "sizes fit"
        )


@dataclass(frozen=True)
class PredictionDetail:
    """``perfguard model --predict``: the value at a size and its interval."""

    parameter: str
    prediction: Prediction
    point: Mapping[str, float] | None = None  # several parameters: the whole point

    def to_json(self) -> dict[str, Any]:
        p = self.prediction
        return {
            "at": dict(self.point) if self.point is not None else {self.parameter: p.at},
            "value": p.value,
            "low": p.low,
            "high": p.high,
            "level": p.level,
        }


@functools.lru_cache(maxsize=4096)
def _order_json(parameter: str, order: tuple[Fraction, Fraction]) -> dict[str, str]:
    body = Factor(parameter, *order).big_o()
    return {
        "complexity": f"O({body})" if body else "O(1)",
        "exponent": fraction_text(order[0]),
        "log_exponent": fraction_text(order[1]),
    }


@functools.lru_cache(maxsize=64)
def _class_table(parameter: str) -> tuple[dict[str, str], ...]:
    """The models@1 class entry of every class the evidence knows, by index."""
    return tuple(_order_json(parameter, order) for order in CLASSES)
