"""Point values, leave-one-out evidence and bounds that hinge on one size."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from guard.checking.batch import held_out_bounds
from guard.checking.check import CheckOptions, ExpectationRule, check
from guard.checking.evidence import leave_one_out
from guard.measurements import Kernel, MeasurementSet, Point
from guard.modeling.analysis import line_evidence
from guard.modeling.evidence import CLASSES as ORDERS
from guard.modeling.evidence import EvidenceSettings, evidence_from_points, point_values
from guard.modeling.lines import Line

SIZES = 256.0 * 2.0 ** np.arange(6)


def kernel(values, sizes=SIZES) -> MeasurementSet:
    points = tuple(Point((x,), tuple(v)) for x, v in zip(sizes, values))
    return MeasurementSet(("n",), (Kernel("k", "time", points),))


def expect(text: str, **settings) -> CheckOptions:
    s = dataclasses.replace(EvidenceSettings(), **settings)
    return CheckOptions(rules=(ExpectationRule("*", text),), settings=s)


def flat_with_a_broken_top_size(seed: int = 3) -> np.ndarray:
    """A constant kernel, 1% noise; every repetition of the largest size ran 8% slow."""
    rng = np.random.default_rng(seed)
    values = 1e-3 * (1 + rng.uniform(-0.01, 0.01, (len(SIZES), 5)))
    values[-1] *= 1.2
    return values


def test_a_size_whose_repetitions_disagree_is_discounted():
    """Three of the top size's five repetitions ~2.5x: its value is known to its spread only."""
    rng = np.random.default_rng(3)
    values = 1e-3 * (1 + rng.uniform(-0.01, 0.01, (len(SIZES), 5)))
    values[-1, :3] *= np.array([2.2, 2.5, 2.8])
    (v,) = check(kernel(values), None, expect("<= 1", held_out=0.0)).verdicts
    assert v.verdict == "pass", v.reasons
    assert v.model is not None and v.model.complexity() == "O(1)"


# ---------------------------------------------------------------------------- point values


def test_point_value_sets_an_outlier_repetition_aside():
    values = np.array([[1.0, 1.01, 0.99, 1.0, 3.0], [2.0, 2.02, 1.98, 2.0, 2.01]])
    y = point_values(values, np.array(0.01), clip=4.0)
    np.testing.assert_allclose(y, [1.0, 2.002], rtol=1e-12)


def test_point_value_is_the_mean_without_outliers_and_the_median_without_noise():
    values = np.array([[1.0, 1.02, 0.97, 1.01, 0.99]])
    assert point_values(values, np.array(0.02), clip=4.0)[0] == pytest.approx(values.mean())
    for noise, clip in ((np.nan, 4.0), (0.0, 4.0), (0.02, 0.0)):
        assert point_values(values, np.array(noise), clip)[0] == 1.0  # the median


def test_point_values_take_points_with_different_repetition_counts():
    values = [[1.0, 1.01, 0.99], [2.0, 2.02, 1.98, 2.0, 6.0], [4.0]]
    ev = evidence_from_points([1.0, 2.0, 4.0, 8.0], [*values, [8.0, 8.08]])
    np.testing.assert_allclose(ev.y[0], [1.0, 2.0, 4.0, 8.04], rtol=1e-12)


def test_point_values_are_batched_over_kernels():
    rng = np.random.default_rng(1)
    values = 1 + 0.05 * rng.standard_normal((3, 6, 5))
    noise = np.array([0.05, 0.04, 0.06])
    batched = point_values(values, noise, clip=4.0)
    for k in range(3):
        np.testing.assert_array_equal(batched[k], point_values(values[k], noise[k], clip=4.0))


# ---------------------------------------------------------------------------- leave one out


def test_leave_one_out_drops_each_size_in_turn_and_keeps_the_noise():
    rng = np.random.default_rng(2)
    values = (SIZES[:, None] / SIZES[0]) * (1 + rng.uniform(-0.02, 0.02, (len(SIZES), 5)))
    ev = evidence_from_points(SIZES[::-1], values[::-1])  # point order must not matter
    dropped = leave_one_out(ev)
    assert len(dropped) == len(SIZES)
    for size, other in zip(SIZES, dropped):
        assert size not in other.x and len(other.x) == len(SIZES) - 1
        np.testing.assert_array_equal(other.noise, ev.noise)
        np.testing.assert_array_equal(other.repetitions, ev.repetitions)


# ---------------------------------------------------------------------------- check


def test_a_violation_that_hinges_on_one_size_is_inconclusive_and_names_it():
    values = flat_with_a_broken_top_size()
    (strict,) = check(kernel(values), None, expect("<= 1", held_out=0.0)).verdicts
    assert strict.verdict == "fail"  # the whole run alone: a steep term explains the top size
    (v,) = check(kernel(values), None, expect("<= 1")).verdicts
    assert (v.verdict, v.violates_expectation) == ("inconclusive", False)
    assert v.probabilities["violation"] < 0.99
    message = v.reasons[0].message
    assert v.reasons[0].kind == "expectation"
    assert "hinges on n=8192" in message and "re-measure n=8192" in message
    # and the advice says so first: it spoke of noise and larger sizes only (a verify probe)
    (advice,) = [r.message for r in v.reasons if r.kind == "inconclusive"]
    assert advice.startswith("to decide: re-measure n=8192 (")


def test_a_violation_seen_at_every_size_still_fails():
    rng = np.random.default_rng(4)
    n2 = 1e-6 * (1 + (SIZES / SIZES[0]) ** 2)
    values = n2[:, None] * (1 + rng.uniform(-0.02, 0.02, (len(SIZES), 5)))
    (v,) = check(kernel(values), None, expect("<= n log n")).verdicts
    assert (v.verdict, v.violates_expectation) == ("fail", True)
    assert v.probabilities["violation"] >= 0.99
    assert "hinges" not in v.reasons[0].message


def test_five_sizes_leave_four_and_a_clear_violation_still_fails():
    rng = np.random.default_rng(5)
    sizes = SIZES[:5]
    n2 = 1e-6 * (1 + (sizes / sizes[0]) ** 2)
    values = n2[:, None] * (1 + rng.uniform(-0.01, 0.01, (len(sizes), 5)))
    (v,) = check(kernel(values, sizes), None, expect("<= n")).verdicts
    assert (v.verdict, v.violates_expectation) == ("fail", True)


def test_a_line_of_four_sizes_is_not_held_out():
    sizes = SIZES[:4]
    values = (1 + (sizes / sizes[0]) ** 2)[:, None] * np.ones((len(sizes), 3))
    line = Line("n", (), tuple(sizes), tuple(tuple(v) for v in values))
    (le,) = line_evidence([line])
    admitted = np.array([o <= (1, 0) for o in ORDERS])
    (held,) = held_out_bounds([le], admitted[None, :])
    assert held.probability == 1.0 and np.isnan(held.size)


def test_max_class_is_held_out_the_same_way():
    values = flat_with_a_broken_top_size()
    opts = CheckOptions(max_class="1")
    (v,) = check(kernel(values), None, opts).verdicts
    assert v.verdict == "inconclusive"
    assert v.reasons[0].kind == "max_class" and "hinges on n=8192" in v.reasons[0].message


def test_verdicts_are_deterministic():
    values = flat_with_a_broken_top_size(seed=7)
    first = check(kernel(values), None, expect("<= 1")).to_json()
    assert check(kernel(values), None, expect("<= 1")).to_json() == first


def test_evidence_in_batches_equals_one_batch(monkeypatch):
    """Check at scale batches kernels to bound memory; every number must stay the same."""
    import guard.checking.evidence as judged
    import guard.modeling.evidence as modeled
    from guard.checking.evidence import compare_runs
    from guard.modeling.evidence import class_evidence, drift_excess

    rng = np.random.default_rng(11)
    k = 300
    growth = SIZES[None, :] ** rng.choice([0.0, 1.0, 2.0], k)[:, None]
    values = (1.0 + growth / growth[:, -1:])[:, :, None] * (1 + 0.03 * rng.normal(size=(k, 6, 5)))
    y = values.mean(-1)
    noise, reps = np.full(k, 0.03), np.full(k, 5.0)

    def run():
        ev = class_evidence(SIZES, y, noise, reps, drift=np.full(k, 1e-4))
        other = class_evidence(SIZES, y[::-1], noise, reps, drift=np.full(k, 1e-4))
        cmp = compare_runs(ev, other, EvidenceSettings())
        return ev, drift_excess(SIZES, y, noise, reps), cmp

    monkeypatch.setattr(modeled, "_KERNELS_PER_BATCH", 10**6)
    monkeypatch.setattr(judged, "_CHUNK", 10**6)
    whole = run()
    monkeypatch.setattr(modeled, "_KERNELS_PER_BATCH", 64)
    monkeypatch.setattr(judged, "_CHUNK", 7)
    parts = run()
    for f in dataclasses.fields(whole[0]):
        if f.name != "settings":
            np.testing.assert_array_equal(getattr(whole[0], f.name), getattr(parts[0], f.name))
    np.testing.assert_array_equal(whole[1], parts[1])
    for name in ("regression", "improvement", "base_class", "cand_class"):
        np.testing.assert_array_equal(getattr(whole[2], name), getattr(parts[2], name))


def test_an_exponential_behind_start_up_does_not_pass_beside_another_exponential():
    # `python3 subsets.py {n}`: 80 ms of interpreter start-up, then 2^n subsets (x3 per +2
    # at n = 12..16), beside an exponential callable at n = 1..9 whose misfit of every class
    # was read as the run's drift: the command's rise became noise and `<= n^2` passed, O(1)
    rng = np.random.default_rng(5)
    n = np.arange(2.0, 18.0, 2.0)
    early = 0.0796 + 16.7e-3 * 2.0 ** (n - 16)
    small = np.arange(1.0, 10.0)
    blowup = 1e-6 * 2.0**small

    def points(sizes, values, noise):
        return tuple(
            Point((x,), tuple(v * (1 + noise * rng.standard_normal(3))))
            for x, v in zip(sizes, values)
        )

    run = MeasurementSet(
        ("n",),
        (
            Kernel("cmd_subsets", "time", points(n, early, 0.015)),
            Kernel("subsets", "time", points(small, blowup, 0.01)),
        ),
    )
    verdicts = {v.kernel: v for v in check(run, None, expect("<= n^2")).verdicts}
    assert verdicts["cmd_subsets"].verdict != "pass", verdicts["cmd_subsets"].reasons
    alone = MeasurementSet(("n",), run.kernels[:1])
    assert check(alone, None, expect("<= n^2")).verdicts[0].verdict == "fail"


def test_evenly_spaced_sizes_are_advised_a_few_more_steps_not_four_times_the_top():
    # n = 2..16 +2 of a kernel that may be exponential: "extend n beyond 16 (e.g. to 64)"
    # asked for 2^48 times the top size's work
    rng = np.random.default_rng(1)
    n = np.arange(2.0, 18.0, 2.0)
    values = 1e-3 * (1 + 0.05 * rng.standard_normal((len(n), 5)))
    values[-1] *= 1.2
    run = MeasurementSet(
        ("n",), (Kernel("k", "time", tuple(Point((x,), tuple(v)) for x, v in zip(n, values))),)
    )
    (v,) = check(run, None, expect("<= 1")).verdicts
    advice = " ".join(r.message for r in v.reasons if r.kind == "inconclusive")
    assert "extend n beyond 16 (e.g. to 22)" in advice, v.reasons
