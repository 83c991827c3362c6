"""A test of a declared bound at a stated level: the bound's best fit, redrawn.

The posterior of a bound's violation (``probability_outside``) fails at ``confidence``
(0.99).  On a nested question -- does a kernel measured at six sizes grow faster than its
bound allows, or does the bound's own class, fitted at its best, explain the values -- a
fixed posterior threshold is stricter than the level it seems to state: a 99% posterior
asks for a Bayes factor of about 150 against the bound, where the misfit of a kernel that
keeps its bound exceeds a given size in 1 of 100 measurements at far less.  The posterior
also spends the prior over every class above the bound.  So a line the posterior makes
likely but not decisive gets a frequentist second look, at the level ``1 - confidence``:

* the statistic is the bound's misfit: the best least-squares fit (relative residuals, each
  point weighted as the analysis weighs it) among the classes the bound admits, less the
  best among the classes above it, in units of the line's per-point error;
* its distribution under the bound is drawn: the best admitted fit, times
  ``1 + error * eps`` at each size, refitted ``DRAWS`` times (a parametric bootstrap whose
  error is the analysis's own -- repetition noise, the run's per-size drift, the floor);
* the line fails the bound when fewer than ``1 - confidence`` of the draws misfit as much
  as the measured values do.

The draws are the same standard normal numbers for every line (seeded): a line's verdict
does not depend on which other kernels share its run or in what order.  Only lines with
measured repetition noise and at least ``DECIDING_POINTS`` sizes, in a run whose per-size
drift was read off at least ``DRIFT_KERNELS`` kernels, are tested: without these the
per-point error is not known well enough to state a level (a run of one kernel leans on
the drift assumed in ``EvidenceSettings``, and on a benchmark whose drift is larger the
test would reject far more than 1%).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..modeling.analysis import DECIDING_POINTS, LineEvidence, by_group
from ..modeling.evidence import SPACE, Evidence, plain_fits, single_basis

__all__ = ["DRAWS", "HELD_OUT_DRAWS", "bound_p_values", "evidence_p_values"]

DRAWS = 400  # redraws of the bound's best fit per line: p-values in steps of 1 / 401
DRIFT_KERNELS = 20  # the run's drift must be read off this many kernels (4x its prior's weight)
HELD_OUT_DRAWS = 100  # enough to tell a p-value from ``held_out_level`` (0.25)
_SEED = 20261126
_ROWS_PER_CHUNK = 2_048  # (rows, terms, sizes) temporaries of the refits stay ~6 MB
_BLOCKS = 8  # draws are made in blocks of DRAWS / _BLOCKS; rows stop once p >= level

_LEAD = SPACE.lead[: 1 + len(SPACE.singles)]  # class of the constant and each single term


def bound_p_values(
    lines: Sequence[LineEvidence], admitted: np.ndarray, level: float = 1.0
) -> np.ndarray:
    """Each line's p-value under its bound (L,); admitted (L, C).  NaN where not testable
    (no repetition noise, too few sizes, or a bound that admits every class).  p-values of
    ``level`` or more are only known to be at least that (see ``evidence_p_values``)."""
    out = np.full(len(lines), np.nan)
    for members in by_group(lines).values():
        first = lines[members[0]]
        if len(first.group.x) < DECIDING_POINTS or first.drift_kernels < DRIFT_KERNELS:
            continue
        ev = first.group.rows([lines[i].row for i in members])
        out[members] = evidence_p_values(ev, np.asarray(admitted)[members], level)
    return out


def evidence_p_values(
    ev: Evidence, admitted: np.ndarray, level: float = 1.0, draws: int = DRAWS
) -> np.ndarray:
    """p-values of one batch's rows (K,) against their admitted classes (K, C), from the
    first ``draws`` of the DRAWS common draws.

    The draws are made in blocks; a row whose draws have already exceeded its misfit often
    enough for p >= ``level`` is not drawn further (its p-value is then a lower bound, at
    least ``level``).  Below ``level`` the p-values are exactly those of all DRAWS draws.
    """
    top = np.where(admitted.any(1), admitted.shape[1] - 1 - np.argmax(admitted[:, ::-1], 1), -1)
    inside = _LEAD[None, :] <= top[:, None]
    positive = (ev.y > 0).all(1) & np.isfinite(ev.variance).all(1)  # relative residuals
    testable = np.isfinite(ev.noise) & positive & inside.any(1) & ~inside.all(1)
    out = np.full(ev.kernels, np.nan)
    if not testable.any():
        return out
    rss, null_fit = _fits(ev.x, ev.y[testable], ev.variance[testable], inside[testable])
    observed = _misfit(rss, inside[testable]) / ev.sigma[testable] ** 2
    # a misfit that is not a number (no admitted or no higher class fits at all) is not tested
    rows = np.flatnonzero(testable)[np.isfinite(observed)]
    null_fit, observed = null_fit[np.isfinite(observed)], observed[np.isfinite(observed)]
    v, error2 = ev.variance[rows], ev.sigma[rows] ** 2
    inside = inside[rows]
    spread = ev.sigma[rows][:, None] * np.sqrt(v)  # (K, P) each point's relative error
    eps = np.random.default_rng(_SEED).standard_normal((DRAWS, len(ev.x)))[:draws]
    enough = level * (1 + draws) - 1  # this many exceedances put p at level or above
    exceed = np.zeros(len(rows))
    for block in np.array_split(eps, _BLOCKS):
        open_ = np.flatnonzero(exceed < enough)
        for part in np.array_split(open_, max(1, len(open_) * len(block) // _ROWS_PER_CHUNK)):
            if not len(part):
                continue
            drawn = null_fit[part, None, :] * (1 + spread[part, None, :] * block[None])
            flat = drawn.reshape(len(part) * len(block), -1)
            d_rss, _ = _fits(ev.x, flat, np.repeat(v[part], len(block), 0), None)
            null = _misfit(d_rss, np.repeat(inside[part], len(block), 0))
            null = (null / np.repeat(error2[part], len(block))).reshape(len(part), len(block))
            exceed[part] += (null >= observed[part, None]).sum(1)
    out[rows] = (1 + exceed) / (1 + draws)
    return out


def _fits(
    x: np.ndarray, y: np.ndarray, v: np.ndarray, inside: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Relative RSS of the constant and every single term (K, 1 + S), and (when ``inside``
    is given) the best admitted hypothesis's fitted values (K, P)."""
    c, c_rss, singles = plain_fits(x, y, v)
    rss = np.column_stack([c_rss, singles.rss])
    if inside is None:
        return rss, np.empty(0)
    best = np.argmin(np.where(inside, rss, np.inf), 1)
    k = np.arange(len(y))
    c0 = np.where(best == 0, c, singles.c0[k, np.maximum(best - 1, 0)])
    c1 = np.where(best == 0, 0.0, singles.c1[k, np.maximum(best - 1, 0)])
    t = single_basis(x)[np.maximum(best - 1, 0)]  # (K, P)
    return rss, c0[:, None] + c1[:, None] * t


def _misfit(rss: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """Best admitted RSS less the best RSS above the bound (K,)."""
    return np.where(inside, rss, np.inf).min(1) - np.where(~inside, rss, np.inf).min(1)
