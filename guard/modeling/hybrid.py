"""Hybrid analytical + machine-learning prediction (seed 003): stacking, then bagging.

Training (:meth:`HybridModel.fit`), on configurations ``X`` (one column per parameter)
with measured values ``y`` and, when the user wrote one, the analytical model's value
``a`` at each configuration:

1. *Calibrate* the analytical model: one factor turns its units (bytes, flops) into
   the metric (:func:`~guard.modeling.analytical.calibrate`).
2. *Stack*: the features are the standardized parameters plus the standardized log of
   the calibrated analytical prediction; an extremely-randomized-trees regressor learns
   ``log y`` from them (log, so that every configuration counts by its relative error).
3. *Bag*: the final prediction aggregates the stacked and the analytical predictions,
   ``exp((1 - w) log stacked + w log analytical)``. How much the analytical model gets,
   ``w``, is chosen by k-fold cross-validation on the training set from
   :data:`WEIGHTS`: ``w = 0`` where the analytical model is not representative of the
   measurements, more where it is.

Prediction runs the same steps on new configurations. Without an analytical model the
hybrid is the pure extra-trees model on the standardized parameters. The spread of a
prediction is the 5-95% range over the trees of the forest, aggregated the same way.

scikit-learn is an optional extra (``pip install 'perfguard[ml]'``); importing this
module works without it, and fitting raises :class:`MissingExtra` with the hint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import MissingExtra, UsageError
from .analytical import calibrate

__all__ = [
    "WEIGHTS",
    "MissingExtra",
    "HybridModel",
    "HybridPrediction",
    "require_sklearn",
    "mape",
]

WEIGHTS = tuple(round(0.1 * i, 1) for i in range(11))
TREES = 200
FOLDS = 5
SPREAD = (5.0, 95.0)


def require_sklearn() -> Any:
    """Import scikit-learn's pieces, or say how to install them."""
    try:
        from sklearn.ensemble import ExtraTreesRegressor
    except ImportError:
        raise MissingExtra(
            "perfguard predict needs scikit-learn, which is not installed; "
            "install perfguard[ml] (pip install 'perfguard[ml]')"
        ) from None
    return ExtraTreesRegressor


def mape(predicted: np.ndarray, measured: np.ndarray) -> float:
    """Mean absolute percentage error, in percent."""
    p, y = np.asarray(predicted, dtype=float), np.asarray(measured, dtype=float)
    return float(100.0 * np.mean(np.abs(p - y) / np.abs(y)))


@dataclass(frozen=True)
class HybridPrediction:
    """Predictions at configurations: the value, its 5-95% spread over the trees, the
    stacked model alone and the calibrated analytical model alone (None without one)."""

    value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    stacked: np.ndarray
    analytical: np.ndarray | None


@dataclass
class _Forest:
    """Standardization + extremely randomized trees on log targets."""

    mean: np.ndarray
    std: np.ndarray
    trees: Any

    @classmethod
    def fit(cls, features: np.ndarray, log_y: np.ndarray, seed: int, trees: int) -> _Forest:
        regressor = require_sklearn()
        mean = features.mean(axis=0)
        std = features.std(axis=0)
        std[std == 0] = 1.0
        model = regressor(n_estimators=trees, random_state=seed, n_jobs=1)
        model.fit((features - mean) / std, log_y)
        return cls(mean, std, model)

    def per_tree(self, features: np.ndarray) -> np.ndarray:
        """Log predictions, one row per tree."""
        z = (features - self.mean) / self.std
        return np.stack([tree.predict(z) for tree in self.trees.estimators_])

    def predict(self, features: np.ndarray) -> np.ndarray:
        return np.asarray(self.trees.predict((features - self.mean) / self.std))


def _features(x: np.ndarray, log_a: np.ndarray | None) -> np.ndarray:
    return x if log_a is None else np.column_stack([x, log_a])


@dataclass
class HybridModel:
    """A fitted hybrid model; see the module docstring for the algorithm.

    ``weight`` is the bagging weight of the analytical model (0 without one), ``scale``
    the calibration factor, and ``cv_mape`` the cross-validated error on the training
    set of each part: ``analytical``, ``stacked`` and ``hybrid`` (percent).
    """

    forest: _Forest
    scale: float | None
    weight: float
    cv_mape: dict[str, float] = field(default_factory=dict)
    training_size: int = 0
    residual_range: tuple[float, float] = (0.0, 0.0)

    @classmethod
    def fit(
        cls,
        x: np.ndarray,
        y: np.ndarray,
        analytical: np.ndarray | None = None,
        *,
        seed: int = 0,
        trees: int = TREES,
        folds: int = FOLDS,
    ) -> HybridModel:
        """Train on configurations ``x`` (m x d), values ``y`` and the analytical ``a``."""
        y = np.asarray(y, dtype=float)
        if len(y) < 3:
            raise UsageError(f"the hybrid model needs at least 3 measured points, got {len(y)}")
        x = np.asarray(x, dtype=float).reshape(len(y), -1)
        a = None if analytical is None else np.asarray(analytical, dtype=float)
        scale = None if a is None else calibrate(a, y)
        log_a = None if a is None or scale is None else np.log(scale * a)
        forest = _Forest.fit(_features(x, log_a), np.log(y), seed, trees)
        weight, cv_mape, residuals = _cross_validate(x, y, a, seed, trees, folds)
        low, high = np.percentile(residuals, SPREAD)
        return cls(forest, scale, weight, cv_mape, len(y), (float(low), float(high)))

    def predict(self, x: np.ndarray, analytical: np.ndarray | None = None) -> HybridPrediction:
        """Predict at configurations ``x``; ``analytical`` is the user's model there."""
        x = np.asarray(x, dtype=float)
        x = x.reshape(1, -1) if x.ndim == 1 else x
        if (analytical is None) != (self.scale is None):
            raise ValueError("predict needs the analytical model exactly when fit had it")
        log_a = None if analytical is None else np.log(self.scale * np.asarray(analytical))
        logs = self.forest.per_tree(_features(x, log_a))
        stacked = logs.mean(axis=0)
        if log_a is not None:
            logs = (1.0 - self.weight) * logs + self.weight * log_a
        center = logs.mean(axis=0)
        low, high = np.percentile(logs, SPREAD, axis=0)
        low = np.minimum(low, center + self.residual_range[0])
        high = np.maximum(high, center + self.residual_range[1])
        return HybridPrediction(
            value=np.exp(center),
            low=np.exp(low),
            high=np.exp(high),
            stacked=np.exp(stacked),
            analytical=None if log_a is None else np.exp(log_a),
        )


def _cross_validate(
    x: np.ndarray, y: np.ndarray, a: np.ndarray | None, seed: int, trees: int, folds: int
) -> tuple[float, dict[str, float], np.ndarray]:
    """k-fold out-of-fold predictions of each part; the bagging weight that fits them best.

    Returns the weight, the cross-validated MAPE of each part and the out-of-fold log
    residuals of the chosen model (they widen its prediction spread).
    """
    m = len(y)
    k = min(folds, m)
    order = np.random.default_rng(seed).permutation(m)
    log_stacked = np.empty(m)
    log_analytical = np.zeros(m)
    for fold in range(k):
        test = order[fold::k]
        train = np.setdiff1d(order, test)
        train_a = test_a = None
        if a is not None:
            scale = calibrate(a[train], y[train])
            train_a, test_a = np.log(scale * a[train]), np.log(scale * a[test])
            log_analytical[test] = test_a
        forest = _Forest.fit(_features(x[train], train_a), np.log(y[train]), seed, trees)
        log_stacked[test] = forest.predict(_features(x[test], test_a))
    if a is None:
        return 0.0, {"extra trees": mape(np.exp(log_stacked), y)}, np.log(y) - log_stacked
    blends = {w: (1 - w) * log_stacked + w * log_analytical for w in WEIGHTS}
    errors = {w: mape(np.exp(blend), y) for w, blend in blends.items()}
    best = min(WEIGHTS, key=lambda w: (round(errors[w], 9), w))
    cv = {"analytical": errors[1.0], "stacked": errors[0.0], "hybrid": errors[best]}
    return best, cv, np.log(y) - blends[best]
