"""Sparse and diagonal designs (issue 18): modelled from the points that exist, with a note.

Synthetic truth, 2% uniform noise, five repetitions. A *diagonal* moves every parameter at
once, so no measurement can tell their effects apart: the model must say so, pick by its
stated prior (the simplest combination that fits best, the first-listed parameter on a
tie) and still predict the diagonal itself. A *sparse* design has a line for x but y only
changes together with x: y's terms come from the points off the x-line with x's fitted
line taken out, and must recover sums and products alike.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from guard.measurements import Kernel, Point
from guard.modeling.multi_parameter import model_multi_parameter
from guard.modeling.penalized import PenalizedModeler
from guard.modeling.pmnf import Model

MODELER = PenalizedModeler()
XS = [4.0, 8, 16, 32, 64]
YS = [10.0, 20, 40, 80, 160]
DIAGONAL = list(zip(XS, YS))  # y = 2.5 x: both double at each step
# x-line at y = 10, then y only together with x
SPARSE = [(x, 10.0) for x in XS] + DIAGONAL[1:]


def kernel(
    f: Callable[[float, float], float], points: list[tuple[float, float]], seed: int
) -> Kernel:
    rng = np.random.default_rng(seed)
    return Kernel(
        "k",
        "time",
        tuple(
            Point(at, tuple(float(v) for v in f(*at) * (1 + rng.uniform(-0.02, 0.02, 5))))
            for at in points
        ),
    )


def model_of(k: Kernel, names: tuple[str, str] = ("x", "y")) -> Model:
    (m,) = model_multi_parameter([k], names, MODELER)
    assert isinstance(m, Model), m
    return m


def parameters_used(m: Model) -> set[str]:
    return {f.parameter for t in m.terms for f in t.factors}


@pytest.mark.parametrize("seed", range(3))
def test_a_diagonal_is_modelled_and_says_its_parameters_cannot_be_told_apart(seed: int) -> None:
    m = model_of(kernel(lambda x, y: 3 + x**2, DIAGONAL, seed))
    combination = m.extra("combination")
    assert combination["design"] == "diagonal"
    note = combination["note"]
    assert "x and y change together" in note and "not told apart" in note
    assert "(64, 10) and (4, 160)" in note  # the points that would separate them
    # x^2 and y^2 fit alike (y = 2.5 x): the stated prior takes the first-listed one
    assert parameters_used(m) == {"x"}
    for x in (128.0, 256.0):  # on the diagonal, beyond the measured range
        assert float(m.evaluate({"x": x, "y": 2.5 * x})) == pytest.approx(3 + x**2, rel=0.05)


def test_the_tie_on_a_diagonal_goes_to_the_first_listed_parameter() -> None:
    k = kernel(lambda x, y: 3 + x**2, DIAGONAL, 0)
    swapped = Kernel(k.name, k.metric, tuple(Point(p.at[::-1], p.values) for p in k.points))
    m = model_of(swapped, ("y", "x"))
    assert parameters_used(m) == {"y"}  # y is listed first now
    assert float(m.evaluate({"y": 320.0, "x": 128.0})) == pytest.approx(3 + 128**2, rel=0.05)


def test_a_diagonal_picks_the_parameter_that_fits() -> None:
    # x doubles, y steps by 10: 1 + 2·y is linear in y, but not a PMNF term in x alone
    points = [(4.0, 10.0), (8.0, 20.0), (16.0, 30.0), (32.0, 40.0), (64.0, 50.0), (128.0, 60.0)]
    m = model_of(kernel(lambda x, y: 1 + 2 * y**2, points, 1))
    assert parameters_used(m) == {"y"}
    assert m.extra("combination")["design"] == "diagonal"
    assert float(m.evaluate({"x": 256.0, "y": 70.0})) == pytest.approx(1 + 2 * 70**2, rel=0.05)


def test_a_constant_on_a_diagonal_has_no_note() -> None:
    m = model_of(kernel(lambda x, y: 7.0, DIAGONAL, 2))
    assert m.terms == () and m.constant == pytest.approx(7.0, rel=0.02)
    assert m.extra("combination") is None


FUNCTIONS = {
    "x only": lambda x, y: 1 + x**2,
    "y only": lambda x, y: 5 + y,
    "sum": lambda x, y: 1 + x**2 + 30 * y,
    "product": lambda x, y: 1 + x * y,
    "product with logs": lambda x, y: 2 + x * np.log2(x) * y**0.5,
}


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("seed", range(3))
def test_a_sparse_design_predicts_away_from_its_points(name: str, seed: int) -> None:
    f = FUNCTIONS[name]
    m = model_of(kernel(f, SPARSE, seed))
    combination = m.extra("combination")
    assert combination["design"] == "sparse"
    assert "no 3 points vary y alone" in combination["note"]
    assert "(4, 160)" in combination["note"]
    # off the measured points: beyond the x-line, beyond the diagonal, and both
    for at in ((128.0, 10.0), (4.0, 320.0), (128.0, 320.0)):
        assert float(m.evaluate(dict(zip("xy", at)))) == pytest.approx(f(*at), rel=0.1), (
            name,
            at,
            m.formula(),
        )


def test_a_parameter_with_two_values_is_still_refused() -> None:
    points = [(x, 10.0) for x in XS] + [(8.0, 20.0)]  # y takes two values only
    (reasons,) = model_multi_parameter([kernel(lambda x, y: 1 + x, points, 0)], ("x", "y"), MODELER)
    assert isinstance(reasons, tuple) and "no line of 3 points varying only y" in reasons[0]


def test_scattered_points_without_any_line_are_sparse_not_diagonal() -> None:
    # (4, 10) -> (64, 10) varies x alone, but two points are no line
    points = [(4.0, 10.0), (64.0, 10.0), (8.0, 20.0), (16.0, 40.0), (32.0, 80.0)]
    m = model_of(kernel(lambda x, y: 2 + y, points, 3))
    combination = m.extra("combination")
    assert combination["design"] == "sparse"
    assert combination["note"].startswith("no 3 points vary any of x and y alone")
    # (64, 10) is as low as (4, 10): the growth is y's, whichever parameter was listed first
    assert parameters_used(m) == {"y"}
    assert float(m.evaluate({"x": 4.0, "y": 160.0})) == pytest.approx(162.0, rel=0.05)
