"""A product of parameters (a loop nested in another) that no line of one parameter sees:
``p n`` passed ``<= p + n`` and read as the same class as a baseline ``p + n``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from guard.checking.check import CheckOptions, check
from guard.checking.classes import GrowthClass, Monomial
from guard.checking.expectation import ExpectationRule, parse_class
from guard.checking.products import products_beyond
from guard.measurements import Kernel, MeasurementSet, Point
from guard.modeling.interaction import DECISIVE, interaction

P = (64, 128, 256, 512, 1024)
N = (1000, 2000, 4000, 8000, 16000)


def grid(f, seed: int, noise: float = 0.02, points=None) -> MeasurementSet:
    rng = np.random.default_rng(seed)
    at = points or list(itertools.product(P, N))
    kernel = Kernel(
        "assemble",
        "time",
        tuple(Point((p, n), tuple(f(p, n) * (1 + rng.uniform(-noise, noise, 5)))) for p, n in at),
    )
    return MeasurementSet(("p", "n"), (kernel,))


def additive(p, n):
    return 10 + 0.5 * p + 0.05 * n


def product(p, n):
    return 10 + 5e-4 * p * n


def test_the_corners_tell_a_product_from_a_sum() -> None:
    summed = interaction(grid(additive, 0).kernels[0], ("p", "n"), "p", "n", 0.01)
    multiplied = interaction(grid(product, 0).kernels[0], ("p", "n"), "p", "n", 0.01)
    assert summed is not None and multiplied is not None
    assert not summed.decisive(*DECISIVE) and abs(summed.z) < 3
    assert multiplied.decisive(*DECISIVE) and multiplied.ratio == pytest.approx(16, rel=0.1)
    # a cross (one line per parameter) has no rectangle to read
    cross = [(p, N[0]) for p in P] + [(P[0], n) for n in N[1:]]
    assert (
        interaction(grid(product, 0, points=cross).kernels[0], ("p", "n"), "p", "n", 0.01) is None
    )


def test_only_an_excess_a_product_makes_counts() -> None:
    def beyond(shown: str, allowed: str) -> list[Monomial]:
        return products_beyond(parse_class(shown, ("p", "n")), parse_class(allowed, ("p", "n")))

    assert [m.text() for m in beyond("p n", "p + n")] == ["n p"]
    assert beyond("p n", "p n log n") == []  # within
    assert beyond("p^2 n", "p + n") == []  # p's own order is over: the p-lines see it
    assert beyond("p + n", "p + n") == []
    assert GrowthClass.of([Monomial((("p", 1, 0), ("n", 1, 0)))]).text() == "n p"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_sum_bound_fails_a_product_and_passes_a_sum(seed: int) -> None:
    bound = CheckOptions(rules=(ExpectationRule("*", "<= p + n"),))
    (failed,) = check(grid(product, seed), options=bound).verdicts
    assert failed.verdict == "fail" and failed.violates_expectation
    (reason,) = [r.message for r in failed.reasons if r.kind == "expectation"]
    assert reason.startswith("p n measured, <= n + p expected; n and p interact")
    assert failed.probabilities["violation"] > 0.99
    (passed,) = check(grid(additive, seed), options=bound).verdicts
    assert passed.verdict == "pass", passed.reasons


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_baseline_sum_against_a_product_is_a_regression(seed: int) -> None:
    (verdict,) = check(grid(product, seed), grid(additive, seed + 10)).verdicts
    assert verdict.verdict == "fail" and verdict.regression
    (reason,) = [r.message for r in verdict.reasons if r.kind == "regression"]
    assert reason.startswith("p n now, p + n in the baseline; n and p interact")
    assert "; in the baseline ×" in reason  # the baseline's own corners, for comparison
    (same,) = check(grid(additive, seed), grid(additive, seed + 10)).verdicts
    assert not same.regression


def test_a_cross_cannot_show_a_product_and_does_not_pass_it_quietly() -> None:
    cross = [(p, N[0]) for p in P] + [(P[0], n) for n in N[1:]] + [(P[-1], N[-1])]
    mset = grid(product, 0, points=cross)
    (verdict,) = check(
        mset, options=CheckOptions(rules=(ExpectationRule("*", "<= p + n"),))
    ).verdicts
    # the off-line corner lets the model show the product, but no rectangle is whole
    assert verdict.model is not None and verdict.model.complexity() == "O(p n)"
    assert verdict.verdict == "inconclusive"
    (reason,) = [r.message for r in verdict.reasons if r.kind == "expectation"]
    assert "no rectangle of the grid is measured at all four corners" in reason


def test_a_target_naming_one_parameter_takes_the_rest_where_the_change_does() -> None:
    """The table's "at p=4096" evaluated n at 2^20 while the change read n=16000."""
    report = check(grid(additive, 0), options=CheckOptions(target={"p": 4096}))
    (verdict,) = report.verdicts
    assert verdict.model is not None and verdict.predicted == pytest.approx(
        float(verdict.model.evaluate({"p": 4096, "n": 16000})), rel=1e-9
    )
    assert (
        "the target names p only: the rest is taken at the largest measured value (n=16000)"
        in " ".join(report.notes)
    )


def test_reasons_on_a_grid_name_the_classes_the_table_shows() -> None:
    """Reasons read each line's own likeliest class: "regression: n log n now, n in the
    baseline" beside a table reading O(n) in both columns (an unchanged kernel, 5% noise)."""
    from guard.checking.evidence import CLASSES
    from guard.modeling import analyze

    rng = np.random.default_rng(501)

    def measured() -> MeasurementSet:
        truths = {
            "halo": lambda p, n: 10 + 50 * np.log2(p) + 0.002 * n * np.log2(n),
            "solve": lambda p, n: 5 + 0.02 * np.log2(p) * n,
            "io": lambda p, n: 100 + 0.001 * n * np.log2(n),
        }
        kernels = tuple(
            Kernel(
                name,
                "time",
                tuple(
                    Point((p, n), tuple(f(p, n) * (1 + rng.uniform(-0.05, 0.05, 5))))
                    for p, n in itertools.product(P, N)
                ),
            )
            for name, f in truths.items()
        )
        return MeasurementSet(("p", "n"), kernels)

    base, cand = measured(), measured()
    for analysis in analyze(cand):
        assert analysis.model is not None
        for le in analysis.lines:
            order = analysis.model.lead_order(le.parameter)
            if order in CLASSES:
                assert CLASSES[le.shown_class] == order
    said = 0
    for verdict in check(cand, base).verdicts:
        assert verdict.model is not None and verdict.baseline_model is not None
        for reason in verdict.reasons:
            if reason.kind == "regression" and " now, " in reason.message:
                # a line's class is the model's order in that line's parameter
                # on a grid the line says which parameter it is along
                assert reason.message.startswith(("along p: ", "along n: ")), reason.message
                param = reason.message[len("along ")]
                now, _, rest = reason.message[len("along p: ") :].partition(" now, ")
                then = rest.partition(" in the baseline")[0]
                for text, model in ((now, verdict.model), (then, verdict.baseline_model)):
                    named = parse_class(text, ("p", "n"))
                    assert set(named.parameters()) <= {param}, (text, param)
                    assert named.order(param) == model.lead_order(param), (text, model)
                said += 1
    assert said  # the unchanged kernels' lines lean, and say so


def test_a_product_the_corners_prove_is_in_the_model() -> None:
    """p + n + a small p n at 1% noise: the fewest-terms rule chose the sum (its SMAPE is
    within the near-tie margin), though the corners are many errors from a sum."""
    from guard.modeling import analyze

    def truth(p, n):
        return 1 + 0.5 * p / 1024 + 0.5 * n / 16000 + 0.15 * (p / 1024) * (n / 16000)

    mset = grid(truth, 3, noise=0.01)
    (analysis,) = analyze(mset)
    assert analysis.model is not None
    assert analysis.model.complexity() in ("O(p n)", "O(p + n + p n)", "O(n p)")
    (verdict,) = check(
        mset, options=CheckOptions(rules=(ExpectationRule("*", "<= p + n"),))
    ).verdicts
    assert verdict.verdict == "fail" and "interact" in verdict.reasons[0].message


def test_an_effect_only_on_some_lines_is_described_without_infinity() -> None:
    """An effect of n that is none at p=64 read "×inf its effect at p=64"."""
    from guard.modeling.interaction import interaction as corners

    def gated(p, n):
        return 1.0 if p == 64 else 1 + 0.5 * p / 1024 + 0.5 * n / 16000

    found = corners(grid(gated, 0, noise=0.01).kernels[0], ("p", "n"), "n", "p", 0.01)
    assert found is not None and found.decisive(*DECISIVE)
    text = found.describe()
    assert "inf" not in text and "n has an effect at p=1024 and none, or the opposite" in text


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_run_that_slows_down_does_not_make_a_sum_a_product(seed: int) -> None:
    """A 20% slowdown from the first point to the last bends a sum by a few percent, many
    errors at 1% noise: it failed `<= p + n` as "p and n interact"."""
    rng = np.random.default_rng(seed)
    points = []
    for order, (p, n) in enumerate(itertools.product(P, N)):
        slow = 1 + 0.2 * order / (len(P) * len(N) - 1)
        value = additive(p, n) * slow
        points.append(Point((p, n), tuple(value * (1 + rng.uniform(-0.01, 0.01, 5)))))
    mset = MeasurementSet(("p", "n"), (Kernel("assemble", "time", tuple(points)),))
    (verdict,) = check(
        mset, options=CheckOptions(rules=(ExpectationRule("*", "<= p + n"),))
    ).verdicts
    assert not verdict.violates_expectation, verdict.reasons


def test_one_value_a_point_cannot_prove_a_product() -> None:
    """Without repetitions the point error fell to its floor and sums read as products."""
    from guard.modeling import analyze

    rng = np.random.default_rng(4)
    points = tuple(
        Point((p, n), (additive(p, n) * (1 + rng.uniform(-0.05, 0.05)),))
        for p, n in itertools.product(P, N)
    )
    (analysis,) = analyze(MeasurementSet(("p", "n"), (Kernel("k", "time", points),)))
    assert analysis.model is not None and " p n" not in f" {analysis.model.complexity()[2:-1]}"


def test_a_missing_interior_point_leaves_the_corners_to_read() -> None:
    """One interior point missing turned the test off: "no rectangle ... at all four
    corners", although every corner was measured."""
    points = [(p, n) for p, n in itertools.product(P, N) if (p, n) != (256, 4000)]
    mset = grid(product, 0, points=points)
    (verdict,) = check(
        mset, options=CheckOptions(rules=(ExpectationRule("*", "<= p + n"),))
    ).verdicts
    assert verdict.verdict == "fail" and "interact" in verdict.reasons[0].message
