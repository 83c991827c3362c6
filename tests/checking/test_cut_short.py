"""A candidate that stopped at a smaller size than its baseline: evidence, not a silent pass."""

from __future__ import annotations

import numpy as np

from guard.checking.check import check
from guard.measurements import Kernel, MeasurementSet, Point

SIZES = 256.0 * 2.0 ** np.arange(9)


def measured(curve, sizes, seed: int) -> MeasurementSet:
    rng = np.random.default_rng(seed)
    points = tuple(
        Point((float(x),), tuple(v * (1 + 0.02 * rng.standard_normal(5))))
        for x, v in zip(sizes, curve)
    )
    return MeasurementSet(("n",), (Kernel("k", "time", points),))


def test_a_candidate_cut_short_is_inconclusive_and_says_where_and_how_much():
    base = measured(1e-6 * SIZES, SIZES, 1)
    cand = measured(3e-6 * SIZES[:6], SIZES[:6], 2)
    v = check(cand, base).verdicts[0]
    assert v.verdict == "inconclusive"
    message = next(r.message for r in v.reasons if "measured only up to" in r.message)
    assert "n=8192" in message and "n=65536" in message
    # the baseline's class over all its sizes, as its own run showed it, is named
    assert "the baseline up to n=65536 (where it reads O(n))" in message
    # the ratio at n=8192 is the change reason's, one figure (the cut named a second one,
    # of medians, that could differ from it: x542,343 beside x538,613)
    (change,) = [r.message for r in v.reasons if r.kind == "change"]
    assert "the baseline at n=8192" in change and "×" not in message
    assert change.startswith("×2.9") or change.startswith("×3")
    # the classes were compared over the same sizes: the baseline's model ends at 8192 too
    assert v.baseline_model.extra("noise_detail").sizes[-1] == 8192.0


def test_a_class_change_seen_before_the_cut_still_fails():
    base = measured(1e-6 * SIZES, SIZES, 3)
    cand = measured(1e-6 * SIZES[:6] ** 2 / SIZES[0], SIZES[:6], 4)
    v = check(cand, base).verdicts[0]
    assert v.verdict == "fail" and v.regression
    # decided: the shorter reach is one more sign, with nothing left to re-measure
    (cut,) = [r.message for r in v.reasons if "measured only up to" in r.message]
    assert "as a kernel that grows faster does" in cut
    assert "to decide" not in cut and "smaller budget" not in cut


def test_same_sizes_are_not_cut_short():
    base = measured(1e-6 * SIZES, SIZES, 5)
    cand = measured(1e-6 * SIZES, SIZES, 6)
    v = check(cand, base).verdicts[0]
    assert v.verdict == "pass"
    assert not any("measured only up to" in r.message for r in v.reasons)


def test_a_candidate_that_starts_at_larger_sizes_is_compared_over_the_sizes_both_measured():
    # The same linear code behind a large overhead, the baseline measured from n=256 and
    # the candidate (its sizes moved up in a pull request) from n=1024: over 256..65536 the
    # overhead bends the baseline's curve and its class reads lower, and comparing the two
    # ranges failed 4 of these 30 pairs and left the other 26 inconclusive (none passed).
    curve = 1e-4 + 1e-9 * SIZES
    verdicts = [
        check(measured(curve[2:], SIZES[2:], 100 + seed), measured(curve, SIZES, seed)).verdicts[0]
        for seed in range(30)
    ]
    assert not any(v.regression for v in verdicts)
    assert [v.verdict for v in verdicts].count("pass") >= 20  # 25 when written
    assert {v.baseline_model.extra("noise_detail").sizes[0] for v in verdicts} == {1024.0}


def test_the_growth_a_regression_names_spans_the_same_sizes_for_both():
    base = measured(1e-6 * SIZES, SIZES, 9)
    cand = measured(1e-9 * SIZES[1:] ** 2, SIZES[1:], 10)
    v = check(cand, base).verdicts[0]
    assert v.verdict == "fail" and v.regression
    message = next(r.message for r in v.reasons if r.kind == "regression")
    # from 512 to 65536 a linear baseline grows x128 (not x256, its own 256..65536)
    assert "from n=512 to 65536" in message and "the baseline ×12" in message


def test_a_candidate_measured_over_more_sizes_is_judged_over_the_sizes_both_measured():
    # The same n log n code behind an overhead; the pull request adds two smaller sizes to
    # the benchmark.  Classes fitted over 256..65536 and 1024..65536 differ by themselves:
    # judged on that, 3 of these 30 unchanged pairs failed and 20 were inconclusive.
    curve = 1e-4 + 1e-10 * SIZES * np.log2(SIZES)
    verdicts = [
        check(measured(curve, SIZES, 100 + seed), measured(curve[2:], SIZES[2:], seed)).verdicts[0]
        for seed in range(30)
    ]
    assert not any(v.regression for v in verdicts)
    assert [v.verdict for v in verdicts].count("pass") >= 20  # 25 when written
    # a real class change seen over the shared sizes still fails, and says how it was judged
    quadratic = 1e-4 + 1e-14 * SIZES**2
    v = check(measured(quadratic, SIZES, 1), measured(1e-4 + 1e-9 * SIZES[2:], SIZES[2:], 2))
    verdict = v.verdicts[0]
    assert verdict.verdict == "fail" and verdict.regression
    message = next(r.message for r in verdict.reasons if r.kind == "regression")
    assert "judged over the sizes both measured (the baseline's n=1024..65536" in message
    assert "from n=1024 to 65536" in message


def test_a_growth_only_beyond_the_baselines_sizes_asks_for_the_baseline_there():
    quadratic = 1e-4 + 1e-14 * SIZES**2
    linear = 1e-4 + 1e-9 * SIZES
    v = check(measured(quadratic, SIZES, 100), measured(linear[:7], SIZES[:7], 0)).verdicts[0]
    assert v.verdict == "inconclusive"
    advice = next(r.message for r in v.reasons if r.kind == "inconclusive")
    assert "measure the baseline at n=256..65536 too (it has 256..16384)" in advice


def test_a_candidate_inside_the_baselines_range_is_compared_over_its_own_sizes():
    # started two sizes higher and stopped two sizes sooner: the baseline is cut at both
    # ends, and the stop at the top is named
    base = measured(1e-6 * SIZES, SIZES, 11)
    cand = measured(1e-6 * SIZES[2:7], SIZES[2:7], 12)
    v = check(cand, base).verdicts[0]
    assert v.verdict == "inconclusive" and not v.regression
    assert v.baseline_model.extra("noise_detail").sizes == tuple(SIZES[2:7])
    assert any("measured only up to n=16384" in r.message for r in v.reasons)
