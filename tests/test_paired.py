"""The paired convexity test: the candidate's time against the baseline's, no class needed."""

from __future__ import annotations

import numpy as np

from guard.checking.paired import convexity_z, held_out_z

SIZES = 1000.0 * 2.0 ** np.arange(6)


def curve(alpha: float, beta: float = 0.0) -> np.ndarray:
    g = SIZES**alpha * np.log2(SIZES) ** beta
    return g / g[-1]


def noisy(clean: np.ndarray, sd: float, rng: np.random.Generator) -> np.ndarray:
    return clean * np.exp(sd * rng.standard_normal(clean.shape))


def pairs(base: np.ndarray, cand: np.ndarray, sd: float, seed: int) -> tuple[np.ndarray, ...]:
    """(yc, yb, sdc, sdb) of many noisy copies of one clean pair of curves (K, 6)."""
    rng = np.random.default_rng(seed)
    yb, yc = noisy(base, sd, rng), noisy(cand, sd, rng)
    return yc, yb, sd * yc, sd * yb


def test_no_change_of_speed_overhead_or_constant_factor_is_convex() -> None:
    """Same class, any overheads, runner speeds and constant factors: C is affine in B."""
    rng = np.random.default_rng(1)
    for alpha, beta in ((0.5, 0), (1, 0), (1, 1), (2, 0), (3, 0)):
        for _ in range(20):
            o_b, o_c = rng.uniform(0.05, 0.6, 2)
            speed, factor = rng.uniform(0.7, 1.4), rng.uniform(0.3, 3.0)
            base = o_b + (1 - o_b) * curve(alpha, beta)
            cand = speed * (o_c + factor * (1 - o_b) * curve(alpha, beta))
            z = convexity_z(cand[None], base[None], 1e-3 * cand[None], 1e-3 * base[None])
            assert abs(z[0]) < 1e-3, (alpha, beta, z)


def test_a_class_that_grew_is_convex_and_one_that_fell_concave() -> None:
    """n -> n^2 matched at the top (faster below it) is convex; n^2 -> n concave."""
    base = 0.3 + 0.7 * curve(1)
    cand = 0.3 + 0.9 * curve(2)
    yc, yb, sdc, sdb = pairs(np.tile(base, (200, 1)), np.tile(cand, (200, 1)), 0.02, 2)
    assert np.mean(convexity_z(yc, yb, sdc, sdb) > 3) > 0.95
    assert np.mean(held_out_z(yc, yb, sdc, sdb) > 2) > 0.9
    assert np.mean(convexity_z(yb, yc, sdb, sdc) < -3) > 0.95


def test_the_null_rarely_reaches_three() -> None:
    """Same class, 5% noise on both runs with its errors known: z >= 3 is rare."""
    base = 0.4 + 0.6 * curve(1, 1)
    cand = 1.2 * (0.4 + 1.25 * 0.6 * curve(1, 1))
    yc, yb, sdc, sdb = pairs(np.tile(base, (4000, 1)), np.tile(cand, (4000, 1)), 0.05, 3)
    z = convexity_z(yc, yb, sdc, sdb)
    assert np.isfinite(z).all()
    assert np.mean(z >= 3) < 0.01
    assert np.mean(held_out_z(yc, yb, sdc, sdb) >= 3) <= np.mean(z >= 3)


def test_flat_runs_and_fewer_sizes_give_numbers_or_nan_without_warnings() -> None:
    flat = np.ones((1, 6))
    z = convexity_z(flat, flat, 0.01 * flat, 0.01 * flat)
    assert z.shape == (1,) and (np.isnan(z[0]) or abs(z[0]) < 1e-6)
    five = flat[:, :5]
    assert held_out_z(five, five, 0.01 * five, 0.01 * five).shape == (1,)
