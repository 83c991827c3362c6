"""A timed kernel's excess over its bound that the measuring machine's caches can explain
is inconclusive, not a fail; a gap of n^1 is not explained (issue 16, memory.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

from guard.checking.check import CheckOptions, ExpectationRule, check
from guard.checking.memory import memory_excess
from guard.formats import load
from guard.measurements import Kernel, MeasurementSet, Point, RunInfo

FINDINGS = Path(__file__).resolve().parents[2] / "benchmarks" / "realcode" / "findings"
CACHES = {"L1d": 32 << 10, "L2": 1 << 20, "L3": 32 << 20}  # this machine's
SIZES = 2.0 ** np.arange(8, 21)


def measured(
    curve: np.ndarray, seed: int, caches=CACHES, metric: str = "time", sizes=SIZES
) -> MeasurementSet:
    rng = np.random.default_rng(seed)
    points = tuple(
        Point((float(x),), tuple(v * (1 + 0.03 * rng.standard_normal(5))))
        for x, v in zip(sizes, curve)
    )
    machine = {"cpu": "test"} | ({"caches": dict(caches)} if caches is not None else {})
    run = RunInfo(machine=MappingProxyType(machine))
    return MeasurementSet(("n",), (Kernel("k", metric, points),), run)


def gradual_sort(sizes=SIZES) -> np.ndarray:
    """n log n whose time per element rises x4 as the working set leaves L1, L2 and L3:
    one sharp step (x1.8 around 2^12.5) and a gradual climb over the next seven doublings --
    the shape sorted() of random floats has on this machine."""
    lx = np.log2(sizes)
    step = 1 + 0.8 / (1 + np.exp(-(lx - 12.5) / 0.3))
    climb = 2.0 ** (np.clip(lx - 13, 0, 7) * 0.15)
    return 1e-8 * sizes * lx * step * climb


def verdict(mset: MeasurementSet, bound: str):
    (v,) = check(mset, None, CheckOptions(rules=(ExpectationRule("*", bound),))).verdicts
    return v


@pytest.mark.parametrize("seed", range(4))
def test_a_gradual_cache_climb_is_inconclusive_and_names_the_levels(seed):
    v = verdict(measured(gradual_sort(), seed), "<= n log n")
    assert v.verdict == "inconclusive" and not v.violates_expectation
    message = " ".join(r.message for r in v.reasons)
    assert "the time per n log n rises only ×" in message
    assert "can span 3 cache levels" in message and "L2 1 MiB" in message
    assert "between n=4096 and n=8192" in message  # the steepest step, where it is
    assert "metric: instructions" in message


def test_without_recorded_caches_the_same_curve_still_fails():
    v = verdict(measured(gradual_sort(), 0, caches=None), "<= n log n")
    assert v.verdict == "fail" and v.violates_expectation


def test_counted_metrics_are_not_excused():
    v = verdict(measured(gradual_sort(), 0, metric="instructions"), "<= n log n")
    assert v.verdict == "fail"


@pytest.mark.parametrize(
    ("curve", "bound"),
    [
        (1e-9 * SIZES**2, "<= n"),  # a gap of n^1
        (1e-8 * SIZES * np.log2(SIZES), "<= log n"),  # n log n declared log n
        (1e-6 * np.ones_like(SIZES) + 1e-9 * SIZES, "<= 1"),  # O(n) with an overhead
    ],
)
def test_a_gap_of_n_or_more_is_not_explained(curve, bound):
    v = verdict(measured(curve, 1), bound)
    assert v.verdict == "fail" and v.violates_expectation


def test_a_quadratic_in_chunks_over_two_levels_still_fails():
    # Werkzeug 3.0.0's parser: linear plus n^2 / 4096, n = 2^12..2^21 (x512: two levels)
    sizes = 2.0 ** np.arange(12, 22)
    v = verdict(measured(2e-8 * sizes + 1e-12 * sizes**2, 2, sizes=sizes), "<= n")
    assert v.verdict == "fail"


def test_rise_ignores_one_slow_point_and_needs_a_range_that_holds_a_climb():
    x = 2.0 ** np.arange(4, 16)  # x2048: L1d..L3 (x1024) fits, three levels
    flat = np.full(len(x), 1e-6)
    stepped = np.where(np.arange(len(x)) >= 5, 3e-6, 1e-6)
    e = memory_excess("n", x, stepped, (0, 0), "call", CACHES)
    assert e is not None and e.rise == pytest.approx(3.0)
    assert [name for name, _ in e.levels] == ["L1d", "L2", "L3"]
    assert e.explainable == pytest.approx(2.5**3)
    assert (e.steep_below, e.steep_above) == (256.0, 512.0)
    assert e.explained and e.whole and e.excuses
    spiked = flat.copy()
    spiked[3] *= 20  # one slow point, not held by the larger sizes: no rise at all
    assert memory_excess("n", x, spiked, (0, 0), "call", CACHES) is None
    linear = memory_excess("n", x, flat * x / x[0], (0, 0), "call", CACHES)
    assert linear is not None and linear.rise == pytest.approx(2048) and not linear.explained
    assert memory_excess("n", x, stepped, (0, 0), "call", {}) is None  # no caches known
    narrow = slice(0, 10)  # x512: cannot hold L1d..L3, but L1d..L2 (x32 apart) with room
    short = memory_excess("n", x[narrow], stepped[narrow], (0, 0), "call", CACHES)
    assert short is not None and short.explained and not short.whole
    assert short.climb and short.excuses  # a climb across two levels (sorted() of 2^8..2^14)
    tight = x[:6]  # x32: L1d..L2 and no room to spare: one bend, the bend rule's
    step = np.where(np.arange(6) >= 3, 3e-6, 1e-6)
    bend = memory_excess("n", tight, step, (0, 0), "call", CACHES)
    assert bend is not None and bend.explained and not bend.climb and not bend.excuses
    two = {"L1d": CACHES["L1d"], "L2": CACHES["L2"]}  # ... but L1d..L2 where only those exist
    assert memory_excess("n", tight, step, (0, 0), "call", two).excuses


def test_one_fast_small_size_does_not_inflate_the_rise():
    # sorted() of floats in a loaded round: per n log n 1.00, 0.49 (n=512, one fast size),
    # 0.92, 0.97, then the climb to x4 through the caches; the rise is the climb, x4.4
    x = 2.0 ** np.arange(8, 21)
    per = np.array([1.0, 0.49, 0.92, 0.97, 2.77, 2.85, 3.23, 2.85, 3.9, 4.17, 4.13, 4.79, 4.07])
    e = memory_excess("n", x, per * x * np.log2(x), (1, 1), "n log n", CACHES)
    assert e is not None and e.rise == pytest.approx(4.07 / 0.92, rel=0.1)
    assert e.excuses
    slow = per.copy()
    slow[1] = 2.0  # ... nor one slow one
    assert memory_excess("n", x, slow * x * np.log2(x), (1, 1), "n log n", CACHES).excuses


def test_a_bend_cannot_excuse_more_rise_than_the_levels_explain():
    # urllib3 1.25.7 (CVE-2020-7212, n^2) declared <= n, measured in this branch's rounds:
    # 64..8192 (x128, two levels at most) with a bend the segment detector finds between
    # 1024 and 2048; the time per n rises x25, which no two cache levels explain
    recorded = load(FINDINGS / "time-urllib3_percent_encoding-1.25.7.json")
    assert recorded.run.machine["caches"] == CACHES
    bent = verdict(recorded, "<= n")
    assert bent.verdict == "fail" and bent.violates_expectation
    machine = {k: v for k, v in recorded.run.machine.items() if k != "caches"}
    without = dataclasses.replace(recorded, run=RunInfo(machine=MappingProxyType(machine)))
    excused = verdict(without, "<= n")  # the bend rule alone, as before
    assert excused.verdict == "inconclusive"
    assert "bends between n=1024 and n=2048" in excused.reasons[0].message


def test_a_narrow_range_keeps_a_log_factor_decidable():
    # the gate benchmark's kind of case: n -> n log n over six doubling sizes (x32)
    sizes = 1024.0 * 2.0 ** np.arange(6)
    v = verdict(measured(1e-8 * sizes * np.log2(sizes), 3, sizes=sizes), "<= n")
    assert v.verdict == "fail"


# ---------------------------------------------------------------- against a baseline

WIDE = 2.0 ** np.arange(4, 21)  # 16..2^20: holds L1d..L3 (x1024) with room


def climb(low: float, high: float, up: float, sizes=WIDE) -> np.ndarray:
    """log n whose time per call rises ×``up`` as the working set moves from 2^low to
    2^high: where a heap's bends fall differs between two runs of the same code."""
    lx = np.log2(sizes)
    return 1e-7 * lx * up ** (np.clip(lx - low, 0, high - low) / (high - low))


def regression(now: np.ndarray, before: np.ndarray, seed: int, caches=CACHES, sizes=WIDE):
    base = measured(before, seed, caches=caches, sizes=sizes)
    cand = measured(now, seed + 10, caches=caches, sizes=sizes)
    (v,) = check(cand, base, CheckOptions()).verdicts
    return v


@pytest.mark.parametrize("seed", range(3))
def test_bends_at_other_sizes_are_no_regression_where_the_caches_explain_them(seed):
    # The same x3 climb, gradual in the baseline, steep in the candidate: the fitted
    # classes differ (a fail without cache sizes), the candidate/baseline ratio does not
    # rise beyond what three levels explain.
    now, before = climb(12, 15, 3), climb(6, 20, 3)
    assert regression(now, before, seed, caches=None).verdict == "fail"
    v = regression(now, before, seed)
    assert v.verdict == "inconclusive" and not v.regression
    message = " ".join(r.message for r in v.reasons)
    assert "the candidate's time relative to the baseline's" in message
    assert "can span 3 cache levels" in message and "metric: instructions" in message


@pytest.mark.parametrize("seed", range(3))
def test_a_class_change_past_the_caches_still_fails(seed):
    # log n -> sqrt(n) over the same climb: the ratio rises x256, far past x8.
    before = climb(6, 20, 3)
    now = before * np.sqrt(WIDE) / np.log2(WIDE)
    v = regression(now, before, seed)
    assert v.verdict == "fail" and v.regression


def test_a_narrow_range_judges_the_classes_as_without_caches():
    # six doublings cannot hold every level: the rule stays out of crossover cases
    sizes = 1000.0 * 2.0 ** np.arange(6)
    before, now = 3e-4 + 3e-8 * sizes, 2.5e-4 + 1.4e-12 * sizes**2
    with_caches = regression(now, before, 0, sizes=sizes)
    assert with_caches.verdict == regression(now, before, 0, caches=None, sizes=sizes).verdict
    assert with_caches.verdict == "fail"


# ---------------------------------------------------------------- a command's start-up

# `perfguard run` command benchmarks (python3 -c ...), timed here (L1d 48 KiB, L2 1 MiB,
# L3 32 MiB): each value carries ~78 ms of interpreter start-up.
STARTED_SORT = {  # a.sort() of n random floats, declared <= n log n
    16384: (0.078954, 0.082308, 0.081059),
    32768: (0.081764, 0.082886, 0.081762),
    65536: (0.089443, 0.089421, 0.091702),
    131072: (0.10399, 0.10407, 0.10883, 0.10258),
    262144: (0.13036, 0.13337, 0.13677, 0.13641),
    524288: (0.21807, 0.21221, 0.2086),
    1048576: (0.3778, 0.37453, 0.36372),
}
STARTED_PAIRS = {  # (n/512)^2 steps, declared <= n
    16384: (0.077934, 0.077923, 0.078456),
    32768: (0.08807, 0.077612, 0.084001, 0.077652, 0.078436, 0.077972),
    65536: (0.078004, 0.079208, 0.084256, 0.079961, 0.077814),
    131072: (0.079827, 0.080463, 0.079646),
    262144: (0.096806, 0.10058, 0.082161, 0.082917, 0.081968, 0.082818),
    524288: (0.11175, 0.10158, 0.098302, 0.099402, 0.098429, 0.10093),
    1048576: (0.16449, 0.15666, 0.16415),
}
HERE = {"L1d": 48 << 10, "L2": 1 << 20, "L3": 32 << 20}


def test_a_fixed_start_up_does_not_hide_the_cache_climb():
    # The start-up falls per n log n and hid the sort's climb (x1.3 past L2): the rule saw
    # no rise at all and the sort failed its bound at 99.0%.  Read without the model's
    # constant, the growing part rises within what two levels explain.
    kernels = tuple(
        Kernel(name, "time", tuple(Point((float(n),), v) for n, v in values.items()))
        for name, values in (("sort", STARTED_SORT), ("pairs", STARTED_PAIRS))
    )
    mset = MeasurementSet(("n",), kernels, RunInfo(machine=MappingProxyType({"caches": HERE})))
    rules = (ExpectationRule("sort", "<= n log n"), ExpectationRule("pairs", "<= n"))
    sort, pairs = check(mset, None, CheckOptions(rules=rules)).verdicts
    assert sort.kernel == "sort" and sort.verdict == "inconclusive"
    assert "can span 2 cache levels" in " ".join(r.message for r in sort.reasons)
    # a quadratic behind the same start-up rises far beyond any level: it still fails
    assert pairs.kernel == "pairs" and pairs.verdict == "fail"


def test_a_rise_that_rounds_to_one_reads_as_none():
    # bisect of 10..100000 ints: a fixed call cost dominates, the time per log n stays put
    from guard.checking.memory import MemoryExcess

    flat = MemoryExcess(
        "n",
        "the time per log n",
        10,
        1e5,
        1.003,
        (("L1d", 96 << 10), ("L2", 2 << 20)),
        1e4,
        1e5,
        1.003,
        False,
        True,
    )
    assert "does not rise over n=10..100000" in flat.describe()
    assert "×1.00" not in flat.describe()
    rising = dataclasses.replace(flat, rise=1.6, steep=1.3)
    assert "rises only ×1.60 over n=10..100000, steepest ×1.30" in rising.describe()


@pytest.mark.parametrize("seed", range(3))
def test_random_access_within_the_allowance_is_inconclusive_and_beyond_it_fails(seed):
    """A set intersection or a numpy gather of random indexes is O(n), yet its time per n
    climbs x11-16 across the hierarchy (x2 a level, the streaming allowance, failed it on
    `time`; so did a dict built and probed, x4-4.8 over two levels, in 2 runs of 3): within
    x2.5 a level it is inconclusive.  A steeper climb fails, saying that random access can
    rise further and naming the metric that leaves the caches out; a gap of n^1 (x4096 over
    this range) is not told so."""
    lx = np.log2(SIZES)
    random_access = 1e-8 * SIZES * 2.0 ** (np.clip(lx - 10, 0, 10) * 0.37)  # x13 per n
    v = verdict(measured(random_access, seed), "<= n")
    assert v.verdict == "inconclusive" and not v.violates_expectation
    assert "can explain up to ×15.6 (×2.5 a level)" in " ".join(r.message for r in v.reasons)
    steeper = 1e-8 * SIZES * 2.0 ** (np.clip(lx - 10, 0, 10) * 0.5)  # x32 per n
    v = verdict(measured(steeper, seed), "<= n")
    assert v.verdict == "fail" and v.violates_expectation
    (reason,) = [r.message for r in v.reasons if r.kind == "expectation"]
    assert (
        "the time per n rises ×3" in reason and "more than the ×15.6 its 3 cache levels" in reason
    )
    assert reason.endswith("metric: instructions tells the two apart")
    quadratic = verdict(measured(1e-9 * SIZES**2, seed), "<= n")
    assert quadratic.verdict == "fail"
    assert not any("miss the caches" in r.message for r in quadratic.reasons)


# sorted() of 2^8..2^14 floats timed by pytest-benchmark on a machine with 48 KiB of L1d,
# 2 MiB of L2 (x43 apart) and 260 MiB of L3: ns per n log2 n at each size.
WIDE_L2 = {"L1d": 48 << 10, "L2": 2 << 20, "L3": 260 << 20}
SORT_PER_NLOGN = np.array([2.97, 3.11, 4.62, 7.35, 8.28, 8.58, 8.84]) * 1e-9


def test_a_climb_through_l1d_and_a_large_l2_over_seven_doublings_is_excused():
    # The climb rule asked for a window half as wide as the range to hold L1d and L2: on a
    # core with 2 MiB of L2, 2^8..2^14 (x64, the pytest plugin's example range) was not
    # excused, and sorted() failed `<= n log n` there ("n^(4/3) measured, >99.9%").  Seven
    # doublings that can hold both levels now suffice; six (x32) still leave a class gap
    # decidable, and a quadratic outgrows the two levels' x4.
    sizes = 2.0 ** np.arange(8, 15)
    curve = SORT_PER_NLOGN * sizes * np.log2(sizes)
    seven = memory_excess("n", sizes, curve, (1, 1), "n log n", WIDE_L2)
    assert seven is not None and seven.climb and seven.excuses
    assert [name for name, _ in seven.levels] == ["L1d", "L2"]
    six = memory_excess("n", sizes[1:], curve[1:], (1, 1), "n log n", WIDE_L2)
    assert six is not None and not six.climb and not six.excuses
    quadratic = memory_excess("n", sizes, curve * sizes / 256, (1, 1), "n log n", WIDE_L2)
    assert quadratic is not None and quadratic.climb and not quadratic.excuses
    for seed in range(3):
        v = verdict(measured(curve, seed, WIDE_L2, sizes=sizes), "<= n log n")
        assert v.verdict == "inconclusive" and not v.violates_expectation
