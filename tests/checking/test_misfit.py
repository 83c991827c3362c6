"""A model no class fits (a x100 step inside the range) never passes a bound quietly."""

from __future__ import annotations

import numpy as np
import pytest

from guard.checking.check import CheckOptions, ExpectationRule, check
from guard.measurements import Kernel, MeasurementSet, Point
from guard.modeling import model_measurements
from guard.reporting.models import advice_lines

# Extra-P's text/one_parameter_segmented_2.txt: log2 p up to p = 20, then p^2; five equal
# repetitions a point.  The whole-range model was the constant 2.9, "100% sure", and
# `<= log p` passed at 0.0%.
P = np.arange(4, 44, 4, dtype=float)
VALUES = np.where(P <= 20, np.log2(P), P**2)


def segmented(noise: float = 0.0, seed: int = 0) -> MeasurementSet:
    rng = np.random.default_rng(seed)
    points = tuple(
        Point((p,), tuple(v * (1 + noise * rng.uniform(-0.5, 0.5, 5)))) for p, v in zip(P, VALUES)
    )
    return MeasurementSet(("p",), (Kernel("main", "runtime", points),))


@pytest.mark.parametrize("noise", [0.0, 0.02])
def test_a_step_of_x100_inside_the_range_is_inconclusive_not_a_pass(noise):
    opts = CheckOptions(rules=(ExpectationRule("*", "<= log p"),))
    v = check(segmented(noise), None, opts).verdicts[0]
    assert v.verdict == "inconclusive"
    (reason,) = [r for r in v.reasons if r.kind == "misfit"]
    assert "no class fits the measured values" in reason.message
    assert "behaviour changes between p=20 and p=24" in reason.message
    assert "above: O(p^2)" in reason.message


def test_against_a_baseline_that_fits_it_is_inconclusive_too():
    flat = MeasurementSet(
        ("p",), (Kernel("main", "runtime", tuple(Point((p,), (2.0,) * 5) for p in P)),)
    )
    v = check(segmented(), flat).verdicts[0]
    assert v.verdict == "inconclusive" and any(r.kind == "misfit" for r in v.reasons)


def test_the_model_says_no_class_fits_and_blames_no_single_size():
    result = model_measurements(segmented())
    (m,) = result.models
    assert m.smape > 50 and m.extra("drift") is None  # no "re-measure p=40"
    notes = advice_lines([("s.txt", result)])
    assert any("no class fits its values" in n for n in notes)
    assert not any("re-measure" in n for n in notes)


def test_a_model_that_fits_is_judged_as_before():
    clean = MeasurementSet(
        ("p",),
        (Kernel("main", "runtime", tuple(Point((p,), (p**2,) * 5) for p in P)),),
    )
    v = check(clean, None, CheckOptions(rules=(ExpectationRule("*", "<= log p"),))).verdicts[0]
    assert v.verdict == "fail" and not any(r.kind == "misfit" for r in v.reasons)
