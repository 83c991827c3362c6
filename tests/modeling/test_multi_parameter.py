"""Multi-parameter models recover known additive / multiplicative PMNF functions (seed 004)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard import formats
from guard.measurements import Kernel, Point
from guard.modeling.multi_parameter import (
    LINE_VARIANTS,
    LineMode,
    combination_hypotheses,
    model_multi_parameter,
)
from guard.modeling.noise import range_of_relative_deviation
from guard.modeling.penalized import PenalizedModeler
from guard.modeling.pmnf import Model
from guard.modeling.result import Fitted

VALUES = {"x": [4.0, 8, 16, 32, 64], "y": [10.0, 20, 40, 80, 160], "z": [2.0, 4, 8, 16, 32]}
MODELER = PenalizedModeler()

Function = Callable[..., float]
# A term as {parameter: (exponent, log exponent)}; a model's structure as a set of terms.
Structure = frozenset[frozenset[tuple[str, F, F]]]


def grid(names: tuple[str, ...]) -> list[tuple[float, ...]]:
    return list(itertools.product(*(VALUES[n] for n in names)))


def minimal(names: tuple[str, ...]) -> list[tuple[float, ...]]:
    """Extra-P's minimum: one line per parameter at the others' smallest values + a far point."""
    base = tuple(VALUES[n][0] for n in names)
    points = {base, tuple(VALUES[n][-1] for n in names)}
    for p, name in enumerate(names):
        points |= {base[:p] + (v,) + base[p + 1 :] for v in VALUES[name]}
    return sorted(points)


def make_kernel(
    f: Function,
    points: list[tuple[float, ...]],
    noise: float = 0.0,
    seed: int = 0,
    name: str = "k",
    repetitions: int = 3,
) -> Kernel:
    rng = np.random.default_rng(seed)
    out = []
    for at in points:
        clean = f(*at)
        values = clean * (1 + rng.uniform(-noise, noise, size=repetitions))
        out.append(Point(at, tuple(float(v) for v in values)))
    return Kernel(name, "time", tuple(out))


def structure(model: Model | tuple[str, ...]) -> Structure:
    assert isinstance(model, Model), model
    return frozenset(
        frozenset((f.parameter, f.exponent, f.log_exponent) for f in t.factors) for t in model.terms
    )


def expect(*terms: dict[str, tuple[int | F, int | F]]) -> Structure:
    return frozenset(frozenset((p, F(a), F(b)) for p, (a, b) in term.items()) for term in terms)


def log2(v: float) -> float:
    return math.log2(v)


# (parameters, function, expected structure): every combination form of Extra-P.
CASES = {
    "x^2 + y log y": (
        ("x", "y"),
        lambda x, y: 3 + 0.5 * x**2 + 4 * y * log2(y),
        expect({"x": (2, 0)}, {"y": (1, 1)}),
    ),
    "x log x * y^(1/2)": (
        ("x", "y"),
        lambda x, y: 2 + 0.05 * x * log2(x) * y**0.5,
        expect({"x": (1, 1), "y": (F(1, 2), 0)}),
    ),
    "x + x*y": (
        ("x", "y"),
        lambda x, y: 5 + 2 * x + 0.1 * x * y,
        expect({"x": (1, 0)}, {"x": (1, 0), "y": (1, 0)}),
    ),
    "log^2 y + x^(3/2) log^2 y": (
        ("x", "y"),
        lambda x, y: 5 + 3 * log2(y) ** 2 + 0.01 * x**1.5 * log2(y) ** 2,
        expect({"y": (0, 2)}, {"x": (F(3, 2), 0), "y": (0, 2)}),
    ),
    "x + y^2 + z log z": (
        ("x", "y", "z"),
        lambda x, y, z: 4 + x + 0.01 * y**2 + z * log2(z),
        expect({"x": (1, 0)}, {"y": (2, 0)}, {"z": (1, 1)}),
    ),
    "x*y*z^2": (
        ("x", "y", "z"),
        lambda x, y, z: 5 + 0.01 * x * y * z**2,
        expect({"x": (1, 0), "y": (1, 0), "z": (2, 0)}),
    ),
    "x*y + z^(3/2)": (
        ("x", "y", "z"),
        lambda x, y, z: 5 + 0.1 * x * y + z**1.5,
        expect({"x": (1, 0), "y": (1, 0)}, {"z": (F(3, 2), 0)}),
    ),
    "x + x*y*z": (
        ("x", "y", "z"),
        lambda x, y, z: 5 + 2 * x + 0.01 * x * y * z,
        expect({"x": (1, 0)}, {"x": (1, 0), "y": (1, 0), "z": (1, 0)}),
    ),
    "x^2 + log y * z": (
        ("x", "y", "z"),
        lambda x, y, z: 5 + 0.5 * x**2 + 0.2 * log2(y) * z,
        expect({"x": (2, 0)}, {"y": (0, 1), "z": (1, 0)}),
    ),
}


@pytest.mark.parametrize("noise", [0.0, 0.005], ids=["exact", "noise0.5%"])
@pytest.mark.parametrize("layout", [grid, minimal], ids=["grid", "lines+1"])
@pytest.mark.parametrize("case", list(CASES), ids=str)
def test_recovers_known_function(case: str, layout: Callable, noise: float) -> None:
    names, f, expected = CASES[case]
    points = layout(names)
    (model,) = model_multi_parameter([make_kernel(f, points, noise, seed=3)], names, MODELER)
    assert structure(model) == expected
    assert isinstance(model, Model)
    far = {n: 2 * VALUES[n][-1] for n in names}  # extrapolation beyond every measurement
    assert float(model.evaluate(far)) == pytest.approx(f(*far.values()), rel=0.05)


def test_model_fields_follow_models_contract() -> None:
    kernel = make_kernel(lambda x, y: 2 + 0.1 * x * y, grid(("x", "y")), noise=0.01, seed=1)
    kernel = Kernel("solve", "visits", kernel.points, unit="count")
    (model,) = model_multi_parameter([kernel], ("x", "y"), MODELER)
    assert isinstance(model, Model)
    assert (model.kernel, model.metric, model.parameters) == ("solve", "visits", ("x", "y"))
    assert model.noise == pytest.approx(
        range_of_relative_deviation([p.values for p in kernel.points])
    )
    assert 0 <= model.smape < 2
    assert [[f.parameter for f in t.factors] for t in model.terms] == [["x", "y"]]
    entry = model.to_json()
    assert entry["complexity"] == "O(x y)"
    assert entry["terms"][0]["factors"][1] == {
        "parameter": "y",
        "exponent": "1",
        "log_exponent": "0",
    }


def test_no_repetitions_means_no_noise_estimate() -> None:
    kernel = make_kernel(lambda x, y: 1 + x + y, grid(("x", "y")), repetitions=1)
    (model,) = model_multi_parameter([kernel], ("x", "y"), MODELER)
    assert isinstance(model, Model) and model.noise is None


def test_constant_parameter_drops_out() -> None:
    kernel = make_kernel(lambda x, y: 5 + 0.3 * x**2, grid(("x", "y")), noise=0.01)
    (model,) = model_multi_parameter([kernel], ("x", "y"), MODELER)
    assert structure(model) == expect({"x": (2, 0)})
    assert isinstance(model, Model) and model.parameters == ("x", "y")


def test_constant_everywhere_is_a_constant_model() -> None:
    kernel = make_kernel(lambda x, y, z: 7.0, minimal(("x", "y", "z")), noise=0.01)
    (model,) = model_multi_parameter([kernel], ("x", "y", "z"), MODELER)
    assert isinstance(model, Model)
    assert model.terms == () and model.constant == pytest.approx(7.0, rel=0.02)


def test_a_line_of_four_points_is_modelled() -> None:
    points = [p for p in grid(("x", "y")) if p[1] != 160]  # only four values of y
    (model,) = model_multi_parameter(
        [make_kernel(lambda x, y: 1 + x * y, points)], ("x", "y"), MODELER
    )
    assert isinstance(model, Model) and "x·y" in model.formula()


def test_missing_line_gives_the_reason() -> None:
    ys = sorted({p[1] for p in grid(("x", "y"))})
    points = [p for p in grid(("x", "y")) if p[1] in ys[:2]]  # only two values of y
    (reasons,) = model_multi_parameter(
        [make_kernel(lambda x, y: 1 + x * y, points)], ("x", "y"), MODELER
    )
    assert reasons == (
        "no line of 3 points varying only y with the others fixed (at most 2, at x=4); "
        "measure 1 more value(s) of y there",
    )


def test_a_cross_without_an_extra_point_is_modelled_with_its_assumption_named() -> None:
    lines_only = [p for p in minimal(("x", "y")) if p != (64, 160)]
    both, only_x = model_multi_parameter(
        [
            make_kernel(lambda x, y: 1 + x + y, lines_only, name="both"),
            make_kernel(lambda x, y: 1 + x**2, lines_only, name="only_x"),
        ],
        ("x", "y"),
        MODELER,
    )
    assert isinstance(both, Model)
    note = both.extra("combination")["note"]
    assert "additive and multiplicative" in note and "(64, 160)" in note
    # on the lines themselves the model is right, whichever combination it took
    for x, y in lines_only:
        assert float(both.evaluate({"x": x, "y": y})) == pytest.approx(1 + x + y, rel=0.05)
    assert structure(only_x) == expect({"x": (2, 0)})
    assert only_x.extra("combination") is None


def test_unusable_kernels_report_their_problems() -> None:
    nan = Kernel("nan", "time", tuple(Point(at, (float("nan"),)) for at in grid(("x", "y"))))
    short = Kernel("short", "time", (Point((1.0,), (1.0,)),))
    reasons_nan, reasons_short = model_multi_parameter([nan, short], ("x", "y"), MODELER)
    assert reasons_nan == ("NaN value at (4, 10)",)
    assert reasons_short == ("point (1.0,) has 1 coordinates, expected 2 (x, y)",)


def test_batch_equals_one_at_a_time() -> None:
    xy = ("x", "y")
    kernels = [
        make_kernel(f, layout(xy), noise=0.02, seed=i, name=f"k{i}")
        for i, (f, layout) in enumerate(
            itertools.product(
                [
                    lambda x, y: 3 + x**2 + y,
                    lambda x, y: 1 + 0.1 * x * y,
                    lambda x, y: 5 + 2 * x + 0.1 * x * y,
                    lambda x, y: 4 + log2(x),
                    lambda x, y: 9.0,
                ],
                [grid, minimal],
            )
        )
    ]
    kernels.insert(3, make_kernel(lambda x, y: x, [(1.0, 1.0)], name="too-few"))
    batch = model_multi_parameter(kernels, xy, MODELER)
    assert batch == [model_multi_parameter([k], xy, MODELER)[0] for k in kernels]
    assert isinstance(batch[3], tuple)


class RecordingModeler:
    """Wraps the default modeler and records each fit call's shapes and noise."""

    name = "recording"

    def __init__(self) -> None:
        self.calls: list[tuple[tuple[float, ...], int, np.ndarray | None]] = []
        self.rows: list[np.ndarray] = []

    def fit(self, x: np.ndarray, y: np.ndarray, noise: np.ndarray | None = None) -> list[Fitted]:
        self.calls.append((tuple(x), len(y), noise))
        self.rows.append(np.array(y))
        return MODELER.fit(x, y, noise)


def test_kernels_sharing_a_line_share_one_fit_call() -> None:
    f = lambda x, y: 1 + x * y  # noqa: E731
    kernels = [make_kernel(f, grid(("x", "y")), noise=0.01, seed=s, name=f"g{s}") for s in range(4)]
    kernels += [make_kernel(f, minimal(("x", "y")), noise=0.01, seed=9, name="m")]
    recorder = RecordingModeler()
    model_multi_parameter(kernels, ("x", "y"), recorder)
    # one call per parameter: the minimal layout's lines have the same x-values as the
    # grid's; each grid kernel brings one row per way of combining its parallel lines,
    # the minimal layout (one line per parameter) one row. (Refit calls may follow, for
    # kernels whose chosen hypothesis has terms without some parameter.)
    rows = len(LINE_VARIANTS)
    assert [(x, k) for x, k, _ in recorder.calls[:2]] == [
        (tuple(VALUES["x"]), 4 * rows + 1),
        (tuple(VALUES["y"]), 4 * rows + 1),
    ]
    noise = recorder.calls[0][2]
    assert noise is not None
    expected = [range_of_relative_deviation([p.values for p in k.points]) for k in kernels]
    np.testing.assert_allclose(noise, np.repeat(expected, [rows] * 4 + [1]))


@settings(max_examples=25, deadline=None)
@given(order=st.permutations(range(25)), seed=st.integers(0, 2**32 - 1))
def test_point_order_does_not_matter(order: list[int], seed: int) -> None:
    kernel = make_kernel(lambda x, y: 2 + x * log2(x) + 3 * y, grid(("x", "y")), 0.02, seed)
    shuffled = Kernel(kernel.name, kernel.metric, tuple(kernel.points[i] for i in order))
    first = model_multi_parameter([kernel], ("x", "y"), MODELER)
    assert model_multi_parameter([shuffled], ("x", "y"), MODELER) == first
    assert model_multi_parameter([kernel], ("x", "y"), MODELER) == first


def test_smallest_line_option() -> None:
    kernel = make_kernel(lambda x, y: 5 + 2 * x + 0.1 * x * y, grid(("x", "y")), noise=0.005)
    (model,) = model_multi_parameter([kernel], ("x", "y"), MODELER, lines="smallest")
    assert structure(model) == expect({"x": (1, 0)}, {"x": (1, 0), "y": (1, 0)})
    with pytest.raises(ValueError, match="lines must be"):
        model_multi_parameter([kernel], ("x", "y"), MODELER, lines="all")  # type: ignore[arg-type]


# Sums where one parameter's term dwarfs another's on the whole grid: every x-line of
# 10 + 2x^3 + 30y^(1/2) is 30y^(1/2) on top of an offset 2x^3 of up to 500,000, so the
# average of the lines buries y under the mean offset; the smallest line and the
# inverse-variance weighted lines keep it.
DOMINATED = {
    "x^3 + small y^(1/2)": (
        ("x", "y"),
        lambda x, y: 10 + 2 * x**3 + 30 * y**0.5,
        expect({"x": (3, 0)}, {"y": (F(1, 2), 0)}),
    ),
    "small x + y^2 log y": (
        ("x", "y"),
        lambda x, y: 20 + 30 * x + 0.5 * y**2 * log2(y),
        expect({"x": (1, 0)}, {"y": (2, 1)}),
    ),
    "x*y^2 + small z": (
        ("x", "y", "z"),
        lambda x, y, z: 10 + 0.2 * x * y**2 + 30 * z,
        expect({"x": (1, 0), "y": (2, 0)}, {"z": (1, 0)}),
    ),
}
# Products under a large constant: the smallest line barely rises above the constant, the
# lines weighted by their amplitude (or their plain average) carry the product.
OFFSET_PRODUCTS = {
    "500 + x^(1/2) y": (
        ("x", "y"),
        lambda x, y: 500 + 0.5 * x**0.5 * y,
        expect({"x": (F(1, 2), 0), "y": (1, 0)}),
    ),
    "3000 + x log x * z + y": (
        ("x", "y", "z"),
        lambda x, y, z: 3000 + 0.2 * x * log2(x) * z + 10 * y,
        expect({"x": (1, 1), "z": (1, 0)}, {"y": (1, 0)}),
    ),
}


def _recovered(case: tuple, lines: LineMode, seeds: range = range(6)) -> list[bool]:
    """Per seed (1% noise, full grid), whether the structure is recovered exactly."""
    names, f, expected = case
    kernels = [make_kernel(f, grid(names), 0.01, seed=s, name=f"s{s}") for s in seeds]
    models = model_multi_parameter(kernels, names, MODELER, lines=lines)
    return [structure(m) == expected for m in models]


@pytest.mark.parametrize("case", list(DOMINATED), ids=str)
def test_small_additive_term_next_to_a_dominant_one(case: str) -> None:
    assert all(_recovered(DOMINATED[case], "candidates"))
    assert all(_recovered(DOMINATED[case], "smallest"))


def test_averaged_lines_bury_a_dominated_term() -> None:
    assert not any(_recovered(DOMINATED["x^3 + small y^(1/2)"], "average"))


@pytest.mark.parametrize("case", list(OFFSET_PRODUCTS), ids=str)
def test_product_under_a_large_constant(case: str) -> None:
    assert all(_recovered(OFFSET_PRODUCTS[case], "candidates"))
    assert not any(_recovered(OFFSET_PRODUCTS[case], "smallest"))


def test_refit_removes_the_other_terms() -> None:
    """Once x^3 + y^(1/2) is chosen, y's lines are refitted with 2x^3 subtracted."""
    f = lambda x, y: 10 + 2 * x**3 + 30 * y**0.5  # noqa: E731
    recorder = RecordingModeler()
    (model,) = model_multi_parameter([make_kernel(f, grid(("x", "y")))], ("x", "y"), recorder)
    assert structure(model) == expect({"x": (3, 0)}, {"y": (F(1, 2), 0)})
    assert [(x, k) for x, k, _ in recorder.calls[2:]] == [
        (tuple(VALUES["x"]), 1),
        (tuple(VALUES["y"]), 1),
    ]
    refit_y = recorder.rows[3][0]
    np.testing.assert_allclose(refit_y, [10 + 30 * v**0.5 for v in VALUES["y"]], rtol=1e-6)
    refit_x = recorder.rows[2][0]
    np.testing.assert_allclose(refit_x, [10 + 2 * v**3 for v in VALUES["x"]], rtol=1e-6)


def test_flat_lines_fall_back_to_the_plain_mean() -> None:
    """Exact data constant in y: no y-line has an amplitude to weight by."""
    f = lambda x, y: 5 + 0.3 * x**2  # noqa: E731
    recorder = RecordingModeler()
    (model,) = model_multi_parameter([make_kernel(f, grid(("x", "y")))], ("x", "y"), recorder)
    assert structure(model) == expect({"x": (2, 0)})
    y_rows = recorder.rows[1]  # the matched lines fell back to the average: one row less
    assert len(y_rows) == len(LINE_VARIANTS) - 1
    mean = 5 + 0.3 * np.mean([v**2 for v in VALUES["x"]])
    np.testing.assert_allclose(y_rows[LINE_VARIANTS.index("matched")], mean)


def _terms(text: str) -> frozenset[tuple[int, ...]]:
    """'xyz+x' -> {(0, 1, 2), (0,)}."""
    return frozenset(tuple(sorted("xyz".index(c) for c in term)) for term in text.split("+"))


# Extra-P's multi-parameter modeler, read from its source (4.x): f1·f2, f1+f2, and for
# two parameters f1·f2+f1, f1·f2+f2; for three the 23 forms below.
EXTRAP_TWO = ["xy", "x+y", "xy+x", "xy+y"]
EXTRAP_THREE = (
    "xyz x+y+z xyz+x xyz+y xyz+z xyz+xy xyz+yz xyz+xz xyz+xy+z xyz+yz+x xyz+xz+y "
    "xyz+x+y xyz+x+z xyz+y+z xy+z xy+z+y xy+z+x xz+y xz+y+x xz+y+z yz+x yz+x+y yz+x+z"
).split()


@pytest.mark.parametrize("count,forms", [(2, EXTRAP_TWO), (3, EXTRAP_THREE)], ids=["2", "3"])
def test_hypotheses_are_extrap_forms(count: int, forms: list[str]) -> None:
    ours = [frozenset(h) for h in combination_hypotheses(count)]
    assert len(ours) == len(set(ours)) == len(forms)
    assert set(ours) == {_terms(f) for f in forms}


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_hypotheses_use_every_parameter_simplest_first(count: int) -> None:
    hypotheses = combination_hypotheses(count)
    assert hypotheses[0] == (tuple(range(count)),)  # the pure product
    for h in hypotheses:
        assert {p for term in h for p in term} == set(range(count))
        assert len(h) <= count
    sizes = [(len(h), sum(map(len, h))) for h in hypotheses]
    assert sizes == sorted(sizes)


def test_extrap_text_multi_parameter_file_models(tmp_path: Path) -> None:
    points = grid(("x", "y"))
    functions = {
        "add": lambda x, y: 2 + 0.5 * x**2 + 3 * y,
        "mul": lambda x, y: 1 + 0.02 * x * log2(x) * y,
    }
    lines = ["PARAMETER x", "PARAMETER y"]
    lines += ["POINTS " + " ".join(f"( {x:g} {y:g} )" for x, y in points), "METRIC time"]
    rng = np.random.default_rng(0)
    for region, f in functions.items():
        lines.append(f"REGION {region}")
        for at in points:
            values = f(*at) * (1 + rng.uniform(-0.01, 0.01, size=3))
            lines.append("DATA " + " ".join(f"{v:.9g}" for v in values))
    path = tmp_path / "multi.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    mset = formats.load(path)
    assert mset.parameters == ("x", "y")
    add, mul = model_multi_parameter(mset.kernels, mset.parameters, MODELER)
    assert isinstance(add, Model) and add.kernel == "add"
    assert structure(add) == expect({"x": (2, 0)}, {"y": (1, 0)})
    assert structure(mul) == expect({"x": (1, 1), "y": (1, 0)})


def test_a_few_values_far_off_are_left_out_of_the_fit_and_named() -> None:
    # Extra-P's json_test_input3: x^3 y^2 + z on a 5x5x5 grid, two values 10x low; the
    # model was a misfit "4.8e3 + 0.42 x^3 y^2" (76% SMAPE), where Extra-P keeps x^3 y^2
    import itertools

    from guard.measurements import Kernel, MeasurementSet, Point
    from guard.modeling import model_measurements

    grid = list(
        itertools.product((4, 8, 16, 32, 64), (10, 20, 30, 40, 50), (100, 200, 300, 400, 500))
    )
    bad = {(16, 10, 400), (16, 10, 500)}

    def value(x: float, y: float, z: float) -> float:
        v = x**3 * y**2 + z
        return v / 10 if (x, y, z) in bad else v

    points = tuple(Point(tuple(map(float, at)), (value(*at),)) for at in grid)
    mset = MeasurementSet(("x", "y", "z"), (Kernel("k", "time", points),))
    (m,) = model_measurements(mset).models
    assert m.smape < 1 and "x^3·y^2" in m.formula()
    assert sorted(tuple(o["at"].values()) for o in m.extra("outliers")) == sorted(
        tuple(map(float, b)) for b in bad
    )
    # a step over a fifth of the grid is no outlier: the misfit stands, nothing left out
    stepped = tuple(
        Point(p.at, (float((x**3 * y**2 + z) * (10 if x == 64 else 1)),))
        for p, (x, y, z) in zip(points, grid)
    )
    (m,) = model_measurements(
        MeasurementSet(("x", "y", "z"), (Kernel("k", "time", stepped),))
    ).models
    assert m.extra("outliers") is None
