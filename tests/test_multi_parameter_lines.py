"""The default modeler's multi-parameter lines also get the evidence engine's model.

The line modeler sees one value per point and keeps a constant unless a PMNF term cuts the
constant's residuals tenfold; the evidence engine sees the repetitions. A tenfold step
between two sizes (RELeARN's ``Insert branch nodes`` at 64 -> 128 ranks) fits no single
term well, yet the repetitions show it is no noise: the default modeler's model grows.
"""

from __future__ import annotations

import numpy as np
import pytest

from guard.measurements import Kernel, MeasurementSet, Point
from guard.modeling import model_measurements
from guard.modeling.multi_parameter import model_multi_parameter
from guard.modeling.penalized import PenalizedModeler
from guard.modeling.pmnf import Model

P = [32.0, 64, 128, 256, 512]
N = [5000.0, 6000, 7000, 8000, 9000]
CROSS = [(p, 5000.0) for p in P] + [(32.0, n) for n in N[1:]]
FAR = {"p": 512.0, "n": 9000.0}


def kernel(f, seed: int, repetitions: int = 2, outlier: bool = False) -> Kernel:
    rng = np.random.default_rng(seed)
    points = []
    for i, at in enumerate(CROSS):
        values = f(*at) * (1 + rng.uniform(-0.05, 0.05, repetitions))
        if outlier and i == 1:
            values[-1] *= 3  # one repetition three times the others, as in RELeARN
        points.append(Point(at, tuple(float(v) for v in values)))
    return Kernel("k", "time", tuple(points))


def default_model(k: Kernel) -> Model:
    (model,) = model_measurements(MeasurementSet(("p", "n"), (k,))).models
    return model


def step(p: float, n: float) -> float:
    return 4e-6 * (1 if p <= 64 else 12)


@pytest.mark.parametrize("seed", range(4))
def test_a_step_beyond_the_repetitions_noise_is_growth(seed: int) -> None:
    k = kernel(step, seed, outlier=True)
    (line_only,) = model_multi_parameter([k], ("p", "n"), PenalizedModeler())
    assert isinstance(line_only, Model) and line_only.terms == ()  # what it was before
    model = default_model(k)
    assert {f.parameter for t in model.terms for f in t.factors} == {"p"}
    assert float(model.evaluate(FAR)) == pytest.approx(step(512, 9000), rel=0.5)


@pytest.mark.parametrize("seed", range(4))
def test_a_pmnf_cross_is_still_recovered_along_its_lines(seed: int) -> None:
    # (off the lines a cross cannot tell a sum from a product: see test_multi_parameter)
    def f(p: float, n: float) -> float:
        return 2 + 0.5 * p * np.log2(p) + 0.01 * n

    model = default_model(kernel(f, seed, repetitions=5))
    for at in ({"p": 1024.0, "n": 5000.0}, {"p": 32.0, "n": 12000.0}):
        assert float(model.evaluate(at)) == pytest.approx(f(at["p"], at["n"]), rel=0.1)


def test_a_flat_kernel_stays_flat() -> None:
    model = default_model(kernel(lambda p, n: 3e-3, 5, repetitions=5))
    assert model.terms == ()
