"""Zero values are data (visits, bytes, counters): modelled, never NaN; negatives still refused."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from guard.measurements import Kernel, MeasurementSet, Point, kernel_problems
from guard.modeling import MODELERS, model_measurements

XS = (16, 32, 64, 128, 256, 512)


def kernel(name: str, values: dict, metric: str = "visits") -> Kernel:
    return Kernel(
        name,
        metric,
        tuple(Point(at if isinstance(at, tuple) else (at,), tuple(v)) for at, v in values.items()),
    )


def single(name: str, values: dict) -> MeasurementSet:
    return MeasurementSet(("n",), (kernel(name, values),))


def finite_json(result) -> list[dict]:
    """Every model as models@1 JSON, which must hold no NaN or infinity."""
    return json.loads(json.dumps([m.to_json() for m in result.models], allow_nan=False))


def test_zeros_are_not_a_problem_but_negatives_nan_and_infinities_are() -> None:
    assert kernel_problems(kernel("k", {x: [0.0, 0.0] for x in XS})) == []
    assert kernel_problems(kernel("k", {x: [0.0, float(x)] for x in XS})) == []
    for bad, reason in ((-1.0, "negative value -1"), (math.nan, "NaN"), (math.inf, "infinite")):
        values = {x: [float(x)] for x in XS} | {64: [bad]}
        assert any(reason in p for p in kernel_problems(kernel("k", values)))


@pytest.mark.parametrize("modeler", sorted(MODELERS))
@pytest.mark.parametrize("repetitions", [1, 3])
def test_a_kernel_of_zeros_is_the_constant_zero(modeler: str, repetitions: int) -> None:
    mset = single("idle", {x: [0.0] * repetitions for x in XS})
    result = model_measurements(mset, modeler, predict_at=4096)
    (model,) = result.models
    assert model.constant == 0.0 and model.terms == () and model.complexity() == "O(1)"
    assert model.smape == 0.0
    (entry,) = finite_json(result)
    assert entry["zero_values"]["zeros"] == len(XS) * repetitions
    assert entry["prediction"]["value"] == 0.0 and entry["prediction"]["low"] == 0.0


@pytest.mark.parametrize("modeler", sorted(MODELERS))
def test_zeros_at_some_points_give_a_finite_growing_model(modeler: str) -> None:
    """Calls that start at n = 32: 0 at 16, then 2n (with a little spread)."""
    values = {x: ([0.0, 0.0] if x == 16 else [2.0 * x * 0.99, 2.0 * x * 1.01]) for x in XS}
    result = model_measurements(single("MPI_Send", values), modeler, predict_at=1024)
    (model,) = result.models
    (entry,) = finite_json(result)
    assert model.lead_order()[0] >= 0.5  # it grows
    fitted = model.evaluate({"n": np.array(XS[1:], dtype=float)})
    np.testing.assert_allclose(fitted, [2.0 * x for x in XS[1:]], rtol=0.35)
    assert entry["prediction"]["value"] > 0 and 0 <= entry["smape"] < 200
    assert entry["drift"] is None and entry["segments"] == []


def test_one_zero_repetition_among_others() -> None:
    values = {x: ([0.0, float(x), float(x)] if x == 64 else [float(x), x * 1.02]) for x in XS}
    (model,) = model_measurements(single("k", values)).models
    assert model.complexity() == "O(n)"


def test_zeros_with_several_parameters() -> None:
    """A 5 x 5 grid where one parameter's smallest value gives no work: 0 there."""
    ps, ns = (1, 2, 4, 8, 16), (10, 20, 40, 80, 160)
    values = {
        (p, n): [0.0 if p == 1 else (p - 1) * n * f for f in (0.99, 1.01)] for p in ps for n in ns
    }
    mset = MeasurementSet(("p", "n"), (kernel("halo", values),))
    result = model_measurements(mset)
    (model,) = result.models
    finite_json(result)
    grid = {"p": np.array([8.0, 16.0]), "n": np.array([160.0, 160.0])}
    assert np.all(np.isfinite(model.evaluate(grid)))
    assert all(t.order("n") > (0, 0) for t in model.lead_terms())


def test_positive_kernels_are_untouched() -> None:
    values = {x: [float(x) * 0.99, float(x) * 1.01] for x in XS}
    (model,) = model_measurements(single("k", values)).models
    assert "zero_values" not in model.to_json()
