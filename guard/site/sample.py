"""Seeded synthetic histories for tests and benchmarks, made the way users make theirs.

Each commit's measurements are generated from known PMNF functions with seeded noise,
judged by the real ``check`` (expectations, and the previous commit as the baseline) and
stored by the real ``History.record``: a site built from such a history reads exactly
what a real one holds.  A few kernels change class part-way (a scalability bug that
lands, then is fixed), so class changes and failing verdicts appear on the site.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..checking.check import CheckOptions, ExpectationRule
from ..checking.check import check as run_check
from ..history import History
from ..measurements import Kernel, MeasurementSet, Point, RunInfo

__all__ = ["Shape", "SHAPES", "SampleSpec", "commit_sha", "sample_set", "write_sample"]


@dataclass(frozen=True)
class Shape:
    """A cost function ``c0 + c1 * n^alpha * log2(n)^beta`` and the bound expected of it."""

    alpha: float
    beta: float
    expect: str


SHAPES = (
    Shape(0, 0, "<= 1"),
    Shape(0, 1, "<= log n"),
    Shape(1, 0, "<= n"),
    Shape(1, 1, "<= n log n"),
    Shape(2, 0, "<= n^2"),
)
_WORSE = Shape(2, 0, "")  # what a changed kernel turns into while its bug is in


@dataclass(frozen=True)
class SampleSpec:
    """How big a history to make, and how noisy."""

    commits: int = 5
    kernels: int = 3
    sizes: tuple[float, ...] = tuple(2.0**k for k in range(4, 13))
    repetitions: int = 5
    noise: float = 0.03
    seed: int = 0
    branch: str = "main"
    changed_every: int = 4  # every k-th kernel has its class changed part-way (0: none)


def commit_sha(seed: int, index: int) -> str:
    """A stable 40-hex commit id for commit ``index`` of history ``seed``."""
    return hashlib.sha1(f"perfguard-sample-{seed}-{index}".encode()).hexdigest()


def _shape(spec: SampleSpec, kernel: int, commit: int) -> Shape:
    shape = SHAPES[kernel % len(SHAPES)]
    if spec.changed_every and kernel % spec.changed_every == spec.changed_every - 1:
        start, end = spec.commits // 2, spec.commits // 2 + max(1, spec.commits // 4)
        if start <= commit < end:
            return Shape(_WORSE.alpha, _WORSE.beta, shape.expect)
    return shape


def _growth(shape: Shape, n: np.ndarray) -> np.ndarray:
    return n**shape.alpha * np.log2(n) ** shape.beta


def _kernel_name(index: int) -> str:
    return f"kernel{index:02d}"


def sample_set(spec: SampleSpec, commit: int) -> MeasurementSet:
    """The measurements of commit ``commit`` (0 = oldest): seeded, the same on every call."""
    rng = np.random.default_rng([spec.seed, commit])
    n = np.asarray(spec.sizes, dtype=float)
    kernels = []
    for k in range(spec.kernels):
        # The kernel's own growing term ends at 5..35x its constant, so every class shows
        # clearly; a changed kernel keeps that coefficient on its worse term.
        c0 = 1e-6 * (1 + k % 3)
        usual = _growth(SHAPES[k % len(SHAPES)], n)
        c1 = 0.0 if usual[-1] == usual[0] else c0 * (5 + 5 * (k % 7)) / usual[-1]
        clean = c0 + c1 * _growth(_shape(spec, k, commit), n)
        noise = 1 + spec.noise * rng.standard_normal((len(n), spec.repetitions))
        values = clean[:, None] * noise
        points = tuple(Point((x,), tuple(row)) for x, row in zip(n, values))
        kernels.append(Kernel(_kernel_name(k), "time", points, unit="s"))
    day = 1 + commit % 28
    run = RunInfo(
        commit=commit_sha(spec.seed, commit),
        branch=spec.branch,
        started=f"2025-{1 + commit // 28 % 12:02d}-{day:02d}T12:00:00+00:00",
        machine={"os": "synthetic"},
    )
    return MeasurementSet(("n",), tuple(kernels), run)


def _options(spec: SampleSpec) -> CheckOptions:
    rules = tuple(
        ExpectationRule(_kernel_name(k), SHAPES[k % len(SHAPES)].expect, "sample")
        for k in range(spec.kernels)
    )
    return CheckOptions(rules=rules, target={"n": 1e6})


def write_sample(db: Path, spec: SampleSpec, commits: Sequence[int] | None = None) -> list[int]:
    """Check and record the commits of ``spec`` (all by default) into ``db``; the run ids."""
    options = _options(spec)
    ids = []
    previous: MeasurementSet | None = None
    with History.open(db) as history:
        for commit in commits if commits is not None else range(spec.commits):
            current = sample_set(spec, commit)
            report = run_check(current, previous, options)
            ids.append(history.record(current, report, event="push"))
            previous = current
    return ids
