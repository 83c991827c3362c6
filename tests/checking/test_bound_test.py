"""The bound test: a likely violation the posterior leaves undecided is tested at 1 - confidence."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from guard.checking.batch import held_out_tests
from guard.checking.bound_test import DRAWS, bound_p_values, evidence_p_values
from guard.checking.check import CheckOptions, ExpectationRule, check
from guard.checking.evidence import CLASSES
from guard.formats import load
from guard.measurements import Kernel, MeasurementSet, Point
from guard.modeling.analysis import kernel_lines, line_evidence

SIZES = 1000.0 * 2.0 ** np.arange(6)
LINEAR = CLASSES.index((1, 0))


def _run(curves: np.ndarray, jitter: float, seed: int, reps: int = 5) -> MeasurementSet:
    """One kernel per row of curves (K, P) at SIZES, lognormal jitter per repetition."""
    rng = np.random.default_rng(seed)
    kernels = tuple(
        Kernel(
            f"k{i}",
            "time",
            tuple(
                Point((x,), tuple(v * np.exp(jitter * rng.standard_normal(reps))))
                for x, v in zip(SIZES, curve)
            ),
        )
        for i, curve in enumerate(curves)
    )
    return MeasurementSet(("n",), kernels)


def _lines(mset: MeasurementSet):
    return line_evidence([ln for k in mset.kernels for ln in kernel_lines(k, mset.parameters)])


def _with_run(curves: np.ndarray, seed: int = 99) -> np.ndarray:
    """The curves, then 24 linear kernels under an overhead: a run whose drift can be read."""
    share = np.random.default_rng(seed).uniform(0.05, 0.6, 24)[:, None]
    return np.vstack([curves, share + (1 - share) * SIZES / SIZES[-1]])


def _up_to(cls: int, k: int) -> np.ndarray:
    return np.broadcast_to(np.arange(len(CLASSES)) <= cls, (k, len(CLASSES)))


def test_kernels_within_their_bound_are_rejected_at_about_its_level():
    """300 linear kernels under an overhead of 5-60%, 10% jitter: p < 0.01 for about 1%."""
    rng = np.random.default_rng(7)
    share = rng.uniform(0.05, 0.6, 300)[:, None]
    curves = share + (1 - share) * SIZES / SIZES[-1]
    p = bound_p_values(_lines(_run(curves, 0.1, seed=8)), _up_to(LINEAR, 300))
    assert np.isfinite(p).all()
    assert np.mean(p < 0.01) <= 0.03  # 1% expected; 3% is over 3 binomial sds
    assert 0.05 <= np.mean(p < 0.2) <= 0.35  # neither anti-conservative nor never rejecting


def test_a_clear_violation_gets_the_smallest_p_value():
    curves = _with_run(np.array([0.2 + (SIZES / SIZES[-1]) ** 2]))
    p = bound_p_values(_lines(_run(curves, 0.05, seed=1)), _up_to(LINEAR, 25))
    assert p[0] == pytest.approx(1 / (DRAWS + 1))


def test_a_run_too_small_to_read_its_drift_off_is_not_tested():
    """One kernel (or 19): the drift is mostly the assumption, so no level can be stated."""
    curves = np.array([0.2 + (SIZES / SIZES[-1]) ** 2])
    assert np.isnan(bound_p_values(_lines(_run(curves, 0.05, seed=1)), _up_to(LINEAR, 1))).all()
    few = _with_run(curves)[:19]
    assert np.isnan(bound_p_values(_lines(_run(few, 0.05, seed=1)), _up_to(LINEAR, 19))).all()


def test_lines_the_test_cannot_judge_get_no_p_value():
    curves = _with_run(np.array([1 + SIZES / SIZES[-1]]))
    single = _lines(_run(curves, 0.05, seed=2, reps=1))  # no repetition noise
    short = _lines(_run(curves[:, :4], 0.05, seed=2))  # four sizes
    everything = np.ones((25, len(CLASSES)), dtype=bool)
    assert np.isnan(bound_p_values(single, _up_to(LINEAR, 25))).all()
    assert np.isnan(bound_p_values(short, _up_to(LINEAR, 25))).all()
    assert np.isnan(bound_p_values(_lines(_run(curves, 0.05, 2)), everything)).all()
    assert np.isfinite(bound_p_values(_lines(_run(curves, 0.05, 2)), _up_to(LINEAR, 25))).all()
    # a count that is 0 at some size (all its repetitions): relative residuals cannot judge it
    group = _lines(_run(curves, 0.05, 2))[0].group
    y = group.y.copy()
    y[0, 0] = 0.0
    p = evidence_p_values(dataclasses.replace(group, y=y), _up_to(LINEAR, 25))
    assert np.isnan(p[0]) and np.isfinite(p[1:]).all()


def test_a_lines_p_value_does_not_depend_on_the_others_in_its_batch():
    rng = np.random.default_rng(3)
    curves = _with_run(0.3 + rng.uniform(0.5, 1, (6, 1)) * (SIZES / SIZES[-1]) ** 1.2)
    (group,) = {id(le.group): le.group for le in _lines(_run(curves, 0.08, seed=4))}.values()
    together = evidence_p_values(group, _up_to(LINEAR, 30))
    alone = [evidence_p_values(group.rows([k]), _up_to(LINEAR, 1))[0] for k in range(30)]
    np.testing.assert_array_equal(together, alone)
    assert np.isfinite(together).all()


def test_a_likely_violation_the_posterior_leaves_undecided_fails_at_the_tests_level():
    """Crossover generator, seed 0, 10% jitter: a constant under its overhead became log n."""
    current = load(Path(__file__).parents[1] / "data" / "gate" / "bound_test_log_n.txt")
    report = check(current, None, CheckOptions(rules=(ExpectationRule("k", "<= 1"),)))
    (v,) = [v for v in report.verdicts if v.kernel == "k"]
    assert v.verdict == "fail" and v.violates_expectation
    assert 0.8 <= v.probabilities["violation"] < 0.99  # the posterior alone: inconclusive
    assert v.model is not None and v.model.complexity() == "O(log n)"  # the class shown
    (reason,) = [r for r in v.reasons if r.kind == "expectation"]
    assert "redrawn 400 times with this kernel's noise" in reason.message
    # a fail stating a probability below the gate's says what decided it
    assert "% confident; " in reason.message
    assert "decided by a test at the 0.01 level, as " in reason.message
    assert "% is short of 99.0%: redrawn" in reason.message
    # at a stricter confidence the same evidence is not enough
    strict = CheckOptions(rules=(ExpectationRule("k", "<= 1"),), confidence=0.999)
    assert [v.verdict for v in check(current, None, strict).verdicts if v.kernel == "k"] == [
        "inconclusive"
    ]


def test_a_violation_one_size_carries_stays_inconclusive():
    """A constant with one high size: the test rejects it, but not with that size left out."""
    curves = np.ones((1, 6))
    curves[0, -1] = 1.25
    run = _run(_with_run(curves), 0.03, seed=5)
    lines = _lines(run)[:1]
    assert bound_p_values(lines, _up_to(0, 1))[0] < 0.01  # the whole line: rejected
    (held,) = held_out_tests(lines, _up_to(0, 1))
    assert held.size == SIZES[-1] and held.probability >= 0.25  # ... but not without n=32000
    report = check(run, None, CheckOptions(rules=(ExpectationRule("k0", "<= 1"),)))
    v = report.verdicts[[r.kernel for r in report.verdicts].index("k0")]
    assert v.verdict == "inconclusive"
    assert any("hinges on n=32000" in r.message for r in v.reasons)
