"""The hybrid analytical + extra-trees model: determinism, weighting, spread, errors."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from guard.errors import UsageError
from guard.modeling.hybrid import (
    WEIGHTS,
    HybridModel,
    HybridPrediction,
    MissingExtra,
    mape,
    require_sklearn,
)

pytest.importorskip("sklearn.ensemble")

TREES = 20


def traffic(x: np.ndarray) -> np.ndarray:
    """The known smooth model of the synthetic data: n^2 (1 + 16/b)."""
    return x[:, 0] ** 2 * (1.0 + 16.0 / x[:, 1])


def configurations() -> np.ndarray:
    n = [16, 24, 32, 48, 64, 96, 128, 192, 256]
    b = [1, 2, 4, 8, 16, 32]
    return np.array([(i, j) for i in n for j in b], dtype=float)


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """54 configurations, y = 3e-6 * model * 3% seeded log-normal noise, a held-out mask."""
    x = configurations()
    noise = np.exp(np.random.default_rng(1).normal(0.0, 0.03, len(x)))
    y = 3e-6 * traffic(x) * noise
    held_out = np.arange(len(x)) % 4 == 1
    return x, y, held_out


def fit(x, y, a=None, seed=0):
    return HybridModel.fit(x, y, a, seed=seed, trees=TREES)


def same(p: HybridPrediction, q: HybridPrediction) -> bool:
    return all(
        np.array_equal(getattr(p, f), getattr(q, f)) for f in ("value", "low", "high", "stacked")
    )


def test_same_seed_gives_identical_models_and_predictions(data):
    x, y, _ = data
    a = traffic(x)
    first, second = fit(x, y, a), fit(x, y, a)
    assert first.weight == second.weight and first.scale == second.scale
    assert first.cv_mape == second.cv_mape
    assert first.residual_range == second.residual_range
    p, q = first.predict(x[:7], a[:7]), second.predict(x[:7], a[:7])
    assert same(p, q)
    np.testing.assert_array_equal(p.analytical, q.analytical)


def test_another_seed_gives_other_trees(data):
    x, y, held_out = data
    train, test = ~held_out, held_out
    zero = fit(x[train], y[train], seed=0)
    one = fit(x[train], y[train], seed=1)
    p, q = zero.predict(x[test]), one.predict(x[test])
    assert not np.array_equal(p.stacked, q.stacked)  # between the training points
    assert zero.cv_mape != one.cv_mape  # the folds differ too
    assert same(fit(x[train], y[train], seed=1).predict(x[test]), q)


def test_representative_model_is_weighted_and_beats_pure_trees_on_held_out_points(data):
    x, y, held_out = data
    train, test = ~held_out, held_out
    a = traffic(x)
    hybrid = fit(x[train], y[train], a[train])
    trees = fit(x[train], y[train])
    assert hybrid.weight > 0 and hybrid.weight in WEIGHTS
    assert hybrid.scale == pytest.approx(3e-6, rel=0.05)
    assert set(hybrid.cv_mape) == {"analytical", "stacked", "hybrid"}
    assert hybrid.cv_mape["hybrid"] <= min(hybrid.cv_mape["analytical"], hybrid.cv_mape["stacked"])
    assert hybrid.cv_mape["hybrid"] < trees.cv_mape["extra trees"]
    p = hybrid.predict(x[test], a[test])
    q = trees.predict(x[test])
    hybrid_error, trees_error = mape(p.value, y[test]), mape(q.value, y[test])
    assert hybrid_error < trees_error
    assert hybrid_error < 10.0  # the noise is 3%: the analytical part carries it
    np.testing.assert_allclose(p.analytical, hybrid.scale * a[test])


def test_uncorrelated_analytical_model_gets_no_weight(data):
    x, y, _ = data
    garbage = np.random.default_rng(7).lognormal(0.0, 2.0, len(y))
    model = fit(x, y, garbage)
    assert model.weight == 0.0
    assert model.cv_mape["hybrid"] == model.cv_mape["stacked"]
    assert model.cv_mape["analytical"] > 10 * model.cv_mape["stacked"]
    p = model.predict(x[:5], garbage[:5])
    np.testing.assert_allclose(p.value, p.stacked, rtol=1e-12)


def test_without_analytical_model_it_is_extra_trees_alone(data):
    x, y, _ = data
    model = fit(x, y)
    assert model.weight == 0.0 and model.scale is None
    assert set(model.cv_mape) == {"extra trees"}
    assert model.training_size == len(y)
    p = model.predict(x)
    assert p.analytical is None
    np.testing.assert_allclose(p.value, p.stacked, rtol=1e-12)
    # fully grown trees reproduce the points they were trained on
    np.testing.assert_allclose(p.value, y, rtol=1e-9)


@pytest.mark.parametrize("with_model", [True, False])
def test_spread_brackets_the_prediction(data, with_model):
    x, y, held_out = data
    a = traffic(x) if with_model else None
    model = fit(x[~held_out], y[~held_out], None if a is None else a[~held_out])
    low, high = model.residual_range
    assert low <= high
    p = model.predict(x, a)
    assert p.value.shape == p.low.shape == p.high.shape == (len(x),)
    assert np.all(p.low <= p.value) and np.all(p.value <= p.high)
    assert np.all(p.low > 0) and np.all(p.high < np.inf)
    assert np.any(p.low < p.value) and np.any(p.value < p.high)


def test_single_configuration_as_a_flat_row(data):
    x, y, _ = data
    a = traffic(x)
    model = fit(x, y, a)
    one = model.predict(x[3], a[3:4])
    many = model.predict(x[:5], a[:5])
    assert one.value.shape == (1,)
    assert one.value[0] == pytest.approx(many.value[3], rel=1e-12)


def test_predict_needs_the_analytical_model_exactly_when_fit_had_it(data):
    x, y, _ = data
    a = traffic(x)
    with pytest.raises(ValueError, match="exactly when fit had it"):
        fit(x, y, a).predict(x[:3])
    with pytest.raises(ValueError, match="exactly when fit had it"):
        fit(x, y).predict(x[:3], a[:3])


@pytest.mark.parametrize("count", [0, 1, 2])
def test_fewer_than_three_points_is_a_usage_error(count):
    x = np.array([[1.0, 2.0], [2.0, 2.0]])[:count]
    with pytest.raises(UsageError, match=f"at least 3 measured points, got {count}"):
        HybridModel.fit(x, np.ones(count), seed=0, trees=TREES)


def test_three_points_are_enough():
    x = np.array([[1.0], [2.0], [4.0]])
    y = np.array([1.0, 2.0, 4.0])
    model = HybridModel.fit(x, y, y, seed=0, trees=TREES)
    assert model.training_size == 3 and model.scale == pytest.approx(1.0)
    assert np.all(model.predict(x, y).value > 0)


def test_mape_is_in_percent():
    assert mape(np.array([110.0, 90.0]), np.array([100.0, 100.0])) == pytest.approx(10.0)
    assert mape(np.array([1.0]), np.array([2.0])) == pytest.approx(50.0)


def test_weights_run_from_zero_to_one():
    assert WEIGHTS[0] == 0.0 and WEIGHTS[-1] == 1.0 and list(WEIGHTS) == sorted(WEIGHTS)


# ---------------------------------------------------------------- scikit-learn missing


@pytest.fixture
def no_sklearn(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.ensemble", None)


def test_require_sklearn_names_the_extra(no_sklearn):
    with pytest.raises(MissingExtra) as info:
        require_sklearn()
    assert isinstance(info.value, UsageError) and info.value.exit_code == 2
    assert "perfguard[ml]" in str(info.value)


def test_fit_without_sklearn_raises_missing_extra(no_sklearn, data):
    x, y, _ = data
    with pytest.raises(MissingExtra, match=r"perfguard\[ml\]"):
        fit(x, y)


def test_require_sklearn_returns_the_regressor():
    regressor = require_sklearn()
    assert regressor.__name__ == "ExtraTreesRegressor"
