"""A model no class fits (a x100 step inside the range) never passes a bound quietly."""

from __future__ import annotations

import json
from pathlib import Path

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


# One value a size, x100 from n=4096 to 8192 and flat on either side (a Google Benchmark run
# without repetitions over a cache or algorithm switch): no class fits its values.
STEP_N = 2.0 ** np.arange(10, 16)
STEP = np.array([1.0e-5, 1.02e-5, 0.99e-5, 1.0e-3, 1.01e-3, 0.98e-3])


def step_set() -> MeasurementSet:
    points = tuple(Point((n,), (v,)) for n, v in zip(STEP_N, STEP))
    other = tuple(Point((n,), (2e-6 + 3e-11 * n**2,)) for n in STEP_N)
    return MeasurementSet(
        ("n",), (Kernel("BM_Step", "time", points), Kernel("BM_PopFront", "time", other))
    )


def write_step(path: Path) -> Path:
    path.write_text(json.dumps(step_set().to_json()))
    return path


def test_a_step_of_single_values_reads_misfit_in_the_table_not_a_confident_class(tmp_path):
    from support import perfguard

    ran = perfguard("model", write_step(tmp_path / "step.json"))
    assert ran.returncode == 0, ran.stderr
    rows = [line for line in ran.stdout.splitlines() if "BM_Step" in line]
    assert rows and all("(misfit)" in row and row.rstrip(" │").endswith("-") for row in rows)
    assert "no class fits its values" in ran.stderr
    assert "re-measure" not in ran.stderr and "likely" not in ran.stderr
    popfront = [line for line in ran.stdout.splitlines() if "BM_PopFront" in line]
    assert popfront and not any("misfit" in row for row in popfront)


def test_check_marks_the_misfit_in_its_table_and_its_report(tmp_path):
    from support import perfguard

    report = tmp_path / "report.md"
    step = write_step(tmp_path / "step.json")
    ran = perfguard("check", step, "--expect", "*=<= n log n", "--markdown", report)
    assert ran.returncode == 1, ran.stderr  # BM_PopFront is n^2
    assert "(misfit)" in ran.stdout
    rows = [line for line in report.read_text().splitlines() if line.startswith("| BM\\_Step")]
    assert len(rows) == 1 and "(misfit)" in rows[0] and "inconclusive" in rows[0]


def test_a_misfit_predicts_nothing_and_its_change_is_the_measured_ratio():
    mset = step_set()
    report = check(mset, mset, CheckOptions(target={"n": 1e6}))
    by_kernel = {v.kernel: v for v in report.verdicts}
    step, popfront = by_kernel["BM_Step"], by_kernel["BM_PopFront"]
    assert step.predicted is None and popfront.predicted is not None
    assert step.change == 1.0  # the same values: the measured ratio, not a model's
    (change,) = [r.message for r in step.reasons if r.kind == "change"]
    assert "as measured" in change and "n=32768" in change


def test_a_misfit_keeps_no_sentence_that_reads_its_class():
    # the same file as both runs: "1 now, 1 in the baseline; 97.9% confident that it grows
    # faster" contradicted itself; the misfit reason is what the verdict rests on
    mset = step_set()
    opts = CheckOptions(rules=(ExpectationRule("*", "<= n log n"),))
    for v in check(mset, mset, opts).verdicts:
        kinds = {r.kind for r in v.reasons}
        if v.kernel == "BM_Step":
            assert v.verdict == "inconclusive" and "misfit" in kinds
            assert not kinds & {"regression", "expectation"}, v.reasons
        else:
            assert v.verdict == "fail" and "expectation" in kinds and "misfit" not in kinds


def test_a_misfit_that_exceeds_its_bound_is_inconclusive_not_a_fail():
    # the step's least bad class, n^3, is far above n log n with >99.9%: it still says
    # nothing, so the bound is not failed on it (it was, once rising single values stopped
    # reading as a constant)
    opts = CheckOptions(rules=(ExpectationRule("BM_Step", "<= n log n"),))
    (v,) = [v for v in check(step_set(), None, opts).verdicts if v.kernel == "BM_Step"]
    assert v.model is not None and v.model.complexity() != "O(1)"
    assert v.verdict == "inconclusive" and [r.kind for r in v.reasons][0] == "misfit"


# Google Benchmark's BM_Big, one value a size: 256 ns per 1024 elements, x4 a step
BIG_N = 4.0 ** np.arange(5, 13)
LINEAR = 2.5e-10 * BIG_N
RISING = np.array([1.93e-9, 1.59e-8, 2.18e-7, 2.20e-6, 8.19e-6])  # x4,200 at n = 8..32768


def single(values: np.ndarray, sizes: np.ndarray, name: str = "k") -> MeasurementSet:
    points = tuple(Point((float(n),), (float(v),)) for n, v in zip(sizes, values))
    return MeasurementSet(("n",), (Kernel(name, "time", points),))


def test_single_values_that_rise_x4000_are_never_modelled_as_a_constant():
    # a relative residual of a constant cannot pass 1, so the constant cost these values
    # at most one a point and was shown, "O(1) (misfit)", where c*n misses them by 26%
    (m,) = model_measurements(single(RISING, 8.0 ** np.arange(1, 6))).models
    assert m.complexity() == "O(n)" and m.smape < 50


def test_an_n_to_n2_regression_of_single_values_fails():
    # BM_Big's real values times n/1024 against the linear baseline: it passed, "improvement:
    # scales better: 1 now, n in the baseline", because the candidate read as a misfit constant
    rng = np.random.default_rng(0)
    grown = LINEAR * BIG_N / 1024 * (1 + rng.uniform(-0.3, 0.3, len(BIG_N)))
    opts = CheckOptions(rules=(ExpectationRule("*", "<= n"),))
    (v,) = check(single(grown, BIG_N), single(LINEAR, BIG_N), opts).verdicts
    assert v.verdict == "fail" and v.regression and v.violates_expectation
    assert v.model is not None and v.model.complexity().startswith("O(n^2")
    assert not any(r.kind == "improvement" for r in v.reasons)


def test_falling_single_values_keep_the_constant_as_their_least_bad_class():
    # per-process time of a strong-scaling kernel: no growing class follows it
    (m,) = model_measurements(single(8.0 / 2.0 ** np.arange(6), 2.0 ** np.arange(6, 12))).models
    assert m.complexity() == "O(1)"
