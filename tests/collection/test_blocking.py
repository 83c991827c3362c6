"""Round blocking: the machine's speed per round is estimated and divided out."""

from __future__ import annotations

import random

import pytest

from guard.collection.blocking import MIN_BLOCK_POINTS, rescale, round_speeds


def synthetic(speeds: list[float], sizes: list[float], seed: int = 0, jitter: float = 0.0):
    """Per point: values = n * speed of the round * small jitter, one value per round."""
    rng = random.Random(seed)
    series = []
    for n in sizes:
        rounds = list(range(len(speeds)))
        values = [n * speeds[r] * (1 + rng.uniform(-jitter, jitter)) for r in rounds]
        series.append((values, rounds))
    return series


def test_speeds_are_recovered_and_growth_is_untouched() -> None:
    speeds = [1.0, 0.62, 1.0, 1.05, 0.63, 0.98, 1.0]
    sizes = [16.0 * 2**k for k in range(10)]
    series = synthetic(speeds, sizes)
    found = round_speeds(series)
    assert [found[r] for r in range(len(speeds))] == pytest.approx(speeds, rel=1e-9)
    for (values, rounds), n in zip(series, sizes):
        assert rescale(values, rounds, found) == pytest.approx([n] * len(speeds))


def test_a_slow_phase_no_longer_moves_a_median() -> None:
    # Point A got its repetitions mostly in slow rounds, B mostly in fast ones: their
    # raw medians differ by 1.6x although both cost the same.
    fast, slow = 1.0, 1.6
    speeds = [fast, slow, slow, fast, slow, fast, fast]
    a = ([10 * speeds[r] for r in (1, 2, 4)], [1, 2, 4])
    b = ([10 * speeds[r] for r in (0, 3, 5)], [0, 3, 5])
    others = [([5.0 * speeds[r] for r in range(7)], list(range(7))) for _ in range(6)]
    found = round_speeds([a, b, *others])
    assert rescale(*a, found) == pytest.approx([10.0] * 3)
    assert rescale(*b, found) == pytest.approx([10.0] * 3)


def test_rounds_with_too_few_points_keep_speed_one() -> None:
    series = [([2.0, 4.0], [0, 1]) for _ in range(MIN_BLOCK_POINTS - 1)]
    assert round_speeds(series) == {0: 1.0, 1: 1.0}


def test_deterministic_values_are_unchanged() -> None:
    series = [([float(n)] * 3, [0, 1, 2]) for n in range(1, 9)]
    found = round_speeds(series)
    assert found == {0: 1.0, 1: 1.0, 2: 1.0}


def test_jitter_alone_gives_speeds_near_one() -> None:
    series = synthetic([1.0] * 8, [2.0**k for k in range(12)], seed=3, jitter=0.05)
    assert all(abs(s - 1) < 0.05 for s in round_speeds(series).values())
