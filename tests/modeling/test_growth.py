"""Growth beyond the model space: an exponential blow-up never passes as a polynomial class."""

from __future__ import annotations

import dataclasses
import io
import json

import numpy as np
import pytest
from rich.console import Console

from guard.checking.check import CheckOptions, ExpectationRule, check
from guard.checking.verdicts_json import read_report
from guard.errors import FormatError
from guard.measurements import Kernel, MeasurementSet, Point
from guard.modeling import model_measurements
from guard.modeling.evidence import CLASSES
from guard.modeling.growth import beyond_polynomial, predicts_nothing
from guard.reporting.markdown import render_report
from guard.reporting.models import advice_lines, models_table

LINEAR = np.arange(10, 21, dtype=float)  # a backtracking regex is measured at n, n+1, ...
DOUBLING = 1000 * 2.0 ** np.arange(6)


def measured(curve: np.ndarray, sizes: np.ndarray, seed: int, jitter: float = 0.03):
    rng = np.random.default_rng(seed)
    points = tuple(
        Point((float(x),), tuple(v * (1 + jitter * rng.standard_normal(5))))
        for x, v in zip(sizes, curve)
    )
    return MeasurementSet(("n",), (Kernel("parse", "time", points),))


def vulnerable(seed: int = 1) -> MeasurementSet:
    """0.3 ms at n=10 to 0.9 s at n=20, x2.5 per step at the end (a ReDoS)."""
    return measured(2.7e-4 + 1e-8 * 2.5**LINEAR, LINEAR, seed)


def fixed(seed: int = 2) -> MeasurementSet:
    return measured(2.6e-4 * (1 + LINEAR / 50), LINEAR, seed)


@pytest.mark.parametrize("seed", range(5))
def test_an_exponential_candidate_fails_against_its_linear_fix(seed):
    report = check(vulnerable(seed), fixed(seed + 100))
    v = report.verdicts[0]
    assert v.verdict == "fail" and v.regression
    assert v.model.complexity() == "exponential-like"
    growth = json.loads(json.dumps(v.model.to_json()))["growth"]
    assert growth["kind"] == "exponential-like" and growth["step"] == {"n": [19.0, 20.0]}
    assert 2.0 < growth["factor_per_step"] < 3.0
    assert "exponential-like" in v.reasons[0].message


@pytest.mark.parametrize("seed", range(5))
def test_the_fix_passes_against_the_exponential_baseline(seed):
    v = check(fixed(seed), vulnerable(seed + 100)).verdicts[0]
    assert v.verdict == "pass" and not v.regression
    assert any(r.kind == "improvement" for r in v.reasons)
    assert v.baseline_model.complexity() == "exponential-like"


def test_an_exponential_kernel_exceeds_any_declared_bound():
    for bound in ("<= n", "<= n^3", "== n^2"):
        opts = CheckOptions(rules=(ExpectationRule("*", bound),))
        v = check(vulnerable(), None, opts).verdicts[0]
        assert v.verdict == "fail" and v.violates_expectation, bound


def test_both_runs_exponential_is_no_class_change():
    v = check(vulnerable(1), vulnerable(2)).verdicts[0]
    assert not v.regression and v.verdict == "pass"


@pytest.mark.parametrize(
    "sizes, curve",
    [
        (LINEAR, 1e-6 * LINEAR**3),
        (LINEAR, 1e-9 * LINEAR**3 * np.log2(LINEAR) ** 2),
        (LINEAR, 1e-9 * LINEAR**5),
        (DOUBLING, 1e-20 * DOUBLING**5),
        (DOUBLING, 1e-12 * DOUBLING**3),
        # a cache level left at the top size: one step x8 on top of n
        (DOUBLING, 1e-9 * DOUBLING * np.where(DOUBLING > 16000, 8.0, 1.0)),
    ],
)
def test_polynomials_and_one_steep_step_are_not_exponential_like(sizes, curve):
    rng = np.random.default_rng(7)
    y = curve[None, :] * (1 + 0.05 * rng.standard_normal((200, len(sizes))))
    beyond = beyond_polynomial(sizes, y, np.full((200, 1), 0.05), CLASSES)
    assert (beyond.probability < 0.99).all()


def test_beyond_needs_enough_sizes():
    beyond = beyond_polynomial(
        LINEAR[:3], np.array([[1.0, 10.0, 100.0]]), np.full((1, 1), 0.01), CLASSES
    )
    assert beyond.probability.tolist() == [0.0]


def test_the_change_of_an_exponential_kernel_is_the_measured_ratio():
    v = check(vulnerable(), fixed(101)).verdicts[0]
    change = next(r.message for r in v.reasons if r.kind == "change")
    assert "as measured" in change and "n=20" in change
    assert v.change > 1000  # 0.9 s against 0.36 ms at n=20, not a PMNF curve's guess


def test_an_exponential_kernel_hidden_in_noise_is_seen_over_more_steps():
    """20% noise per repetition hides two steps of x2.5; eight such steps do not hide."""
    noisy = measured(2.7e-4 + 1e-8 * 2.5**LINEAR, LINEAR, 5, jitter=0.2)
    v = check(noisy, fixed(6)).verdicts[0]
    assert v.verdict == "fail" and v.model.complexity() == "exponential-like"


def test_an_exponential_kernel_states_no_class_probability_or_prediction():
    """Its least bad class fit can be a constant: models@1 must not carry "O(1), 100%"
    or a value predicted from it beyond the sizes."""
    (m,) = model_measurements(vulnerable(), predict_at=40.0).models
    out = json.loads(json.dumps(m.to_json()))
    assert out["complexity"] == "exponential-like"
    assert out["confidence"] is None and "prediction" not in out
    assert out["drift"] is None and out["segments"] == []
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(models_table([("a.json", model_measurements(vulnerable()))], None, 120))
    text = console.export_text()
    assert "none (×" in text and "exponential-like" in text
    notes = advice_lines([("a.json", model_measurements(vulnerable()))])
    (note,) = notes
    assert "grows faster than any class" in note and "from n=19 to n=20" in note


def test_an_exponential_kernel_ranks_first_at_the_target_with_no_value_shown():
    cheap = fixed(3)
    both = MeasurementSet(
        ("n",),
        (
            dataclasses.replace(vulnerable().kernels[0], name="regex"),
            dataclasses.replace(
                cheap.kernels[0],
                points=tuple(
                    Point(p.at, tuple(1e3 * v for v in p.values)) for p in cheap.kernels[0].points
                ),
            ),
        ),
    )
    report = check(both, None, CheckOptions(target={"n": 1e6}))
    by = {v.kernel: v for v in report.verdicts}
    assert by["regex"].rank == 1 and by["regex"].predicted is None
    assert by["parse"].rank == 2 and by["parse"].predicted > 0
    # without a target too: its least bad class fit does not rank it below a cubic
    cubic = measured(1e-3 * (LINEAR / 10.0) ** 3, LINEAR, 5).kernels[0]
    three = MeasurementSet(("n",), (*both.kernels, dataclasses.replace(cubic, name="cube")))
    by = {v.kernel: v for v in check(three, None, CheckOptions()).verdicts}
    assert by["cube"].model.complexity() == "O(n^3)"
    assert [by[k].rank for k in ("regex", "cube", "parse")] == [1, 2, 3]


def test_a_saved_check_reads_back_exponential_like_not_a_misfit_constant():
    """`perfguard report` and the fork-safe comment render from verdicts@1: the mark that
    makes the class must survive the round trip, and a damaged one is named."""
    opts = CheckOptions(rules=(ExpectationRule("*", "<= n^2"),), target={"n": 1e6})
    report = check(vulnerable(), None, opts)
    doc = json.loads(json.dumps(report.to_json()))
    again = read_report(doc, "verdicts.json")
    (v,) = again.verdicts
    assert v.model.complexity() == "exponential-like" and predicts_nothing(v.model)
    text = render_report(again, vulnerable())
    row = next(line for line in text.splitlines() if line.startswith("| parse"))
    assert "exponential-like" in row and "misfit" not in row and "none (×" in row
    assert "line: model" not in text  # no curve drawn for the least bad fit of nothing
    doc["kernels"][0]["model"]["growth"]["step"] = {"n": [19.0]}
    with pytest.raises(FormatError, match=r"kernels\[0\]\.model\.growth\.step\.n"):
        read_report(doc, "verdicts.json")


def test_an_exponential_beside_another_does_not_lend_it_its_misfit_as_drift():
    # naive fib at n = 10..18 (x45) beside a backtracking regex at n = 8..22 (perfguard run,
    # a real-code probe): the regex's misfit of every class was read as the run's drift,
    # and fib's rise became "O(1), misfit", P(worse) 0%, exit 0; alone it fails <= n^3
    from pathlib import Path

    from guard.formats import load

    mset = load(Path(__file__).parents[1] / "data" / "real" / "fib_beside_regex.json")
    rules = (ExpectationRule("fib*", "<= n^3"),)
    verdicts = {v.kernel: v for v in check(mset, None, CheckOptions(rules=rules)).verdicts}
    fib = verdicts["fib_naive"]
    assert fib.verdict == "fail" and fib.violates_expectation
    assert fib.model is not None and fib.model.complexity() != "O(1)"
