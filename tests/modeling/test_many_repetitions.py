"""Statistics over thousands of repetitions per point (pytest-benchmark keeps 10,000 rounds).

The order-statistic interval of a median, the range-based noise estimates and the
segment search must hold for any repetition count: no float overflow, no estimate that
grows with the count alone.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from guard.measurements import Kernel, MeasurementSet, Point
from guard.modeling import model_measurements
from guard.modeling.noise import (
    RANGE_REPETITIONS,
    noise_batch,
    point_spreads,
    range_of_relative_deviation,
    representative,
    robust_noise,
)
from guard.modeling.segments import _median_interval, _median_se, detect_segments

X = 2.0 ** np.arange(8, 16)


def exact_interval(r: int) -> tuple[int, float]:
    """(k, coverage) in exact arithmetic: the largest k whose interval covers >= 50%."""
    best, below = (1, 0.0), 0  # below = sum of comb(r, i) for i < k
    for k in range(1, r // 2 + 1):
        below += math.comb(r, k - 1)
        coverage = 1 - Fraction(2 * below, 2**r)
        if coverage >= Fraction(1, 2) and r - k + 1 > k:
            best = (k, float(coverage))
    return best


@pytest.mark.parametrize("r", [2, 3, 4, 5, 9, 10, 33, 100, 1023, 1024, 1025, 3283])
def test_median_interval_matches_exact_arithmetic(r: int) -> None:
    k, coverage = _median_interval(r)
    exact_k, exact_coverage = exact_interval(r)
    assert k == exact_k
    assert coverage == pytest.approx(exact_coverage, abs=1e-9)


@pytest.mark.parametrize("r", [10_000, 100_000, 1_000_000])
def test_median_interval_for_huge_counts_is_near_the_normal_limit(r: int) -> None:
    k, coverage = _median_interval(r)
    # The 50% interval of the median: k ~ r/2 - 0.6745 * sqrt(r) / 2.
    assert abs(k - (r / 2 - 0.6745 * math.sqrt(r) / 2)) <= 2
    assert 0.5 <= coverage < 0.5 + 10 / math.sqrt(r)


def test_median_standard_error_shrinks_with_the_square_root_of_the_count() -> None:
    rng = np.random.default_rng(3)
    for r in (5_000, 50_000):
        logs = rng.normal(0.0, 0.1, r)
        # The median of normal draws has standard error sd * sqrt(pi / 2) / sqrt(r).
        expected = 0.1 * math.sqrt(math.pi / 2) / math.sqrt(r)
        assert _median_se(logs) == pytest.approx(expected, rel=0.15)


def timings(rng: np.random.Generator, medians: np.ndarray, r: int) -> np.ndarray:
    """(P, r) lognormal timings with 0.5% of rounds hit by a pause of 20-500x (GC, interrupts)."""
    values = medians[:, None] * rng.lognormal(0.0, 0.03, (len(medians), r))
    paused = rng.random(values.shape) < 0.005
    return np.where(paused, values * rng.uniform(20, 500, values.shape), values)


def test_range_estimates_do_not_grow_with_the_repetition_count() -> None:
    rng = np.random.default_rng(4)
    medians = 1e-6 * X
    few = [timings(rng, medians, RANGE_REPETITIONS) for _ in range(100)]
    typical_rrd = np.median([range_of_relative_deviation(v) for v in few])
    typical_robust = np.median([robust_noise(v) for v in few])
    for r in (2_000, 20_000):
        many = timings(rng, medians, r)
        # Quantiles stand for the draws' expected places; the extreme of 8 points' draws
        # lies beyond them, so rrd reads lower than 15 real rounds (measured: 0.63x).
        assert 0.5 * typical_rrd < range_of_relative_deviation(many) < typical_rrd
        assert 0.75 * typical_robust < robust_noise(many) < 1.05 * typical_robust
        assert max(s for s in point_spreads(many) if s is not None) < 0.3
        # Before, the pauses made the range of these rounds hundreds of times the median.
        assert (many.max() - many.min()) / np.median(many) > 50


def test_robust_noise_still_estimates_a_uniform_band_from_many_repetitions() -> None:
    rng = np.random.default_rng(5)
    values = 1.0 + rng.uniform(-0.05, 0.05, (6, 50_000))
    assert robust_noise(values) == pytest.approx(0.1, rel=0.02)


def test_few_repetitions_are_used_as_they_are() -> None:
    values = np.array([[1.0, 1.2, 0.9], [2.0, 2.1, 2.2]])
    assert np.array_equal(representative(values), values)
    assert range_of_relative_deviation(values) == pytest.approx(
        max(((v - v.mean()) / v.mean()).max() for v in values)
        - min(((v - v.mean()) / v.mean()).min() for v in values)
    )


def test_batch_and_per_kernel_noise_agree_with_many_repetitions() -> None:
    rng = np.random.default_rng(6)
    values = np.stack([timings(rng, 1e-6 * X, 3_000) for _ in range(3)])
    batch = noise_batch(values)
    for i, kernel in enumerate(values):
        assert batch["rrd"][i] == pytest.approx(range_of_relative_deviation(kernel))
        assert batch["robust"][i] == pytest.approx(robust_noise(kernel))
        assert batch["spreads"][i] == pytest.approx(point_spreads(kernel))


def test_segments_with_many_repetitions_find_a_step_and_stay_quiet_without_one() -> None:
    rng = np.random.default_rng(7)
    smooth = 1e-8 * X * np.log2(X)
    stepped = smooth * np.where(X > X[3], 1.6, 1.0)
    values = [timings(rng, smooth, 20_000), timings(rng, stepped, 20_000)]
    quiet, step = detect_segments(X, values)
    assert quiet is None
    assert step is not None and (step.below, step.above) == (X[3], X[4])
    assert step.step == pytest.approx(1.6, rel=0.05)


def test_model_measurements_with_many_rounds_reads_the_class_and_a_sane_noise() -> None:
    rng = np.random.default_rng(8)
    kernels = []
    for name, medians in (("linear", 1e-8 * X), ("quadratic", 1e-11 * X**2)):
        reps = timings(rng, medians, 10_000)
        points = tuple(Point((x,), tuple(r)) for x, r in zip(X, reps))
        kernels.append(Kernel(name, "time", points))
    result = model_measurements(MeasurementSet(("n",), tuple(kernels)))
    assert [m.complexity() for m in result.models] == ["O(n)", "O(n^2)"]
    assert all(m.noise is not None and m.noise < 0.3 for m in result.models)
