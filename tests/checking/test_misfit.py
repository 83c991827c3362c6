"""A model no class fits (a x100 step inside the range) never passes a bound quietly."""

from __future__ import annotations

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


def test_a_real_cache_step_reads_misfit_in_the_table_not_a_confident_class():
    # Google Benchmark's std::sort on this machine, one value a size: ×6.8 from 4096 to
    # 8192 where two copies of the data leave L1.  The least bad class is the constant;
    # the table must not present it, or its probability, as a finding.
    from support import perfguard

    recorded = Path(__file__).parents[1] / "data/formats/recorded/google_benchmark_single.json"
    ran = perfguard("model", recorded)
    assert ran.returncode == 0, ran.stderr
    rows = [line for line in ran.stdout.splitlines() if "BM_Sort" in line]
    assert rows and all("(misfit;" in row and row.rstrip(" │").endswith("-") for row in rows)
    assert "no class fits its values" in ran.stderr
    assert "re-measure" not in ran.stderr and "likely" not in ran.stderr
    popfront = [line for line in ran.stdout.splitlines() if "BM_PopFront" in line]
    assert popfront and not any("misfit" in row for row in popfront)


def test_check_marks_the_misfit_in_its_table_and_its_report(tmp_path):
    from support import perfguard

    recorded = Path(__file__).parents[1] / "data/formats/recorded/google_benchmark_single.json"
    report = tmp_path / "report.md"
    ran = perfguard("check", recorded, "--expect", "*=<= n log n", "--markdown", report)
    assert ran.returncode == 1, ran.stderr  # BM_PopFront is n^2
    assert "(misfit;" in ran.stdout
    rows = [line for line in report.read_text().splitlines() if line.startswith("| BM\\_Sort")]
    assert len(rows) == 2 and all("O(1) (misfit)" in row and "inconclusive" in row for row in rows)


def test_a_misfit_predicts_nothing_and_its_change_is_the_measured_ratio():
    from guard import formats

    recorded = Path(__file__).parents[1] / "data/formats/recorded/google_benchmark_single.json"
    mset = formats.load(recorded)
    report = check(mset, mset, CheckOptions(target={"n": 1e6}))
    by_kernel = {(v.kernel, v.metric): v for v in report.verdicts}
    sort, popfront = by_kernel["BM_Sort", "time"], by_kernel["BM_PopFront", "time"]
    assert sort.predicted is None and popfront.predicted is not None  # 1.4e-5 s was shown
    assert sort.change == 1.0  # the same values: the measured ratio, not a model's
    (change,) = [r.message for r in sort.reasons if r.kind == "change"]
    assert "as measured" in change and "n=32768" in change


def test_a_misfit_keeps_no_sentence_that_reads_its_class():
    # the same file as both runs: "1 now, 1 in the baseline; 97.9% confident that it grows
    # faster" contradicted itself; the misfit reason is what the verdict rests on
    from guard import formats

    recorded = Path(__file__).parents[1] / "data/formats/recorded/google_benchmark_single.json"
    mset = formats.load(recorded)
    opts = CheckOptions(rules=(ExpectationRule("*", "<= n log n"),))
    for v in check(mset, mset, opts).verdicts:
        kinds = {r.kind for r in v.reasons}
        if v.kernel == "BM_Sort":
            assert v.verdict == "inconclusive" and "misfit" in kinds
            assert not kinds & {"regression", "expectation"}, v.reasons
        else:
            assert v.verdict == "fail" and "expectation" in kinds and "misfit" not in kinds
