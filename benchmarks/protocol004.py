"""Synthetic functions of seed 004's evaluation (Ritter et al., noise resilience, Sec. V).

One term per parameter, exponents from the 43 classes of the set E (Eq. 2), coefficients
U[0.001, 1000]; five repetitions per point, each times 1 + U[-n/200, n/200] for a noise
level of n percent; five values per parameter (the full 5^m grid) for modeling and four
evaluation points P+1..P+4 continuing every parameter's series, outside the data.

With several parameters the per-parameter terms are combined by a partition of the
parameters into multiplicative groups, e.g. c0 + c1*f1*f2 + c2*f3.  Everything here is
pure and deterministic given a numpy Generator; the driver writes the files.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F
from itertools import product
from typing import Any

import numpy as np

from guard.measurements import Kernel, MeasurementSet, Point
from guard.modeling.synthetic import CLASSES

__all__ = [
    "CLASSES_E",
    "NOISE_LEVELS",
    "REPETITIONS",
    "SERIES",
    "COMBOS",
    "PARTITIONS",
    "Series",
    "Function",
    "single_parameter_functions",
    "multi_parameter_functions",
    "grid",
    "plus_points",
    "noisy_values",
]

# Eq. 2 in the order of the paper's DNN classes (and of extrap-adaptive-modeler's _TERMS);
# one list for the benchmark, the training data and the classifier.
CLASSES_E: tuple[tuple[F, F], ...] = CLASSES

NOISE_LEVELS = (2, 5, 10, 20, 50, 75, 100)  # percent; n% = up to +-n/2 % around the value
REPETITIONS = 5
COEFFICIENTS = (0.001, 1000.0)


@dataclass(frozen=True)
class Series:
    """Five modeling values of one parameter and four continuation values (P+1..P+4)."""

    points: tuple[int, ...]
    plus: tuple[int, ...]


# The paper's kinds of parameter series: doubling, linear, Kripke-like cubic (x8),
# small linear and an irregular ("uniformly distributed") one, continued by its mean step.
SERIES: dict[str, Series] = {
    "doubling": Series((4, 8, 16, 32, 64), (128, 256, 512, 1024)),
    "linear": Series((10, 20, 30, 40, 50), (60, 70, 80, 90)),
    "cubic": Series((8, 64, 512, 4096, 32768), (262144, 2097152, 16777216, 134217728)),
    "small-linear": Series((2, 4, 6, 8, 10), (12, 14, 16, 18)),
    "irregular": Series((3, 7, 12, 26, 40), (50, 60, 70, 80)),
}

# Series per parameter for m > 1: a cyclic Latin design (all five rows put each kind once in
# every parameter position), its rows ordered so that any first three cover all five kinds.
_KINDS = tuple(SERIES)
_ROWS = (0, 2, 4, 1, 3)
COMBOS: dict[int, tuple[tuple[str, ...], ...]] = {
    1: tuple((k,) for k in _KINDS),
    2: tuple((_KINDS[i], _KINDS[(i + 1) % 5]) for i in _ROWS),
    3: tuple((_KINDS[i], _KINDS[(i + 1) % 5], _KINDS[(i + 2) % 5]) for i in _ROWS),
}

# Partitions of the parameters into multiplicative groups (terms of the sum).
PARTITIONS: dict[int, tuple[tuple[tuple[int, ...], ...], ...]] = {
    1: (((0,),),),
    2: (((0,), (1,)), ((0, 1),)),
    3: (
        ((0,), (1,), (2,)),
        ((0, 1), (2,)),
        ((0, 2), (1,)),
        ((1, 2), (0,)),
        ((0, 1, 2),),
    ),
}


@dataclass(frozen=True)
class Function:
    """c0 + sum over groups g of c_g * prod_{l in g} x_l^alpha_l * log2(x_l)^beta_l."""

    c0: float
    exponents: tuple[tuple[F, F], ...]  # (alpha, beta) per parameter
    groups: tuple[tuple[int, ...], ...]  # a partition of the parameter indices
    coefficients: tuple[float, ...]  # one per group

    def __call__(self, at: np.ndarray) -> np.ndarray:
        """Values at points ``at`` of shape (P, m)."""
        at = np.asarray(at, dtype=float)
        factors = [
            at[:, j] ** float(a) * np.log2(at[:, j]) ** float(b)
            for j, (a, b) in enumerate(self.exponents)
        ]
        y = np.full(len(at), self.c0)
        for c, group in zip(self.coefficients, self.groups):
            y = y + c * np.prod([factors[j] for j in group], axis=0)
        return y

    def to_json(self) -> dict[str, Any]:
        return {
            "c0": self.c0,
            "exponents": [[str(a), str(b)] for a, b in self.exponents],
            "groups": [list(g) for g in self.groups],
            "coefficients": list(self.coefficients),
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Function:
        return cls(
            float(doc["c0"]),
            tuple((F(a), F(b)) for a, b in doc["exponents"]),
            tuple(tuple(g) for g in doc["groups"]),
            tuple(float(c) for c in doc["coefficients"]),
        )


def _coefficients(rng: np.random.Generator, count: int) -> tuple[float, ...]:
    return tuple(float(c) for c in rng.uniform(*COEFFICIENTS, size=count))


def single_parameter_functions(per_class: int, rng: np.random.Generator) -> list[Function]:
    """A balanced design: ``per_class`` functions of each class of E, class-major order."""
    out = []
    for cls in CLASSES_E:
        for _ in range(per_class):
            c0, c1 = _coefficients(rng, 2)
            out.append(Function(c0, (cls,), ((0,),), (c1,)))
    return out


def multi_parameter_functions(m: int, count: int, rng: np.random.Generator) -> list[Function]:
    """``count`` functions of m parameters; each parameter's class cycles through E, shuffled."""
    reps = -(-count // len(CLASSES_E))
    classes = [rng.permutation(np.tile(np.arange(len(CLASSES_E)), reps))[:count] for _ in range(m)]
    partitions = PARTITIONS[m]
    out = []
    for i in range(count):
        groups = partitions[rng.integers(len(partitions))]
        c0, *cs = _coefficients(rng, 1 + len(groups))
        exponents = tuple(CLASSES_E[classes[j][i]] for j in range(m))
        out.append(Function(c0, exponents, groups, tuple(cs)))
    return out


def grid(kinds: tuple[str, ...]) -> np.ndarray:
    """The full grid of modeling points (5^m, m), lexicographic in the parameters."""
    return np.array(list(product(*(SERIES[k].points for k in kinds))), dtype=float)


def plus_points(kinds: tuple[str, ...]) -> np.ndarray:
    """P+1..P+4 (4, m): every parameter at its k-th continuation value."""
    return np.array([[SERIES[k].plus[i] for k in kinds] for i in range(4)], dtype=float)


def noisy_values(
    fn: Function, at: np.ndarray, level: float, rng: np.random.Generator
) -> np.ndarray:
    """Repetitions (P, 5): each value times 1 + U[-level/200, level/200], drawn independently."""
    half = level / 200.0
    factors = 1.0 + rng.uniform(-half, half, size=(len(at), REPETITIONS))
    return fn(at)[:, None] * factors


def design_set(
    fns: list[Function],
    kinds: tuple[str, ...],
    design: str,
    level: float,
    reps: int,
    rng: np.random.Generator,
    parameters: tuple[str, ...] = ("x1", "x2"),
) -> MeasurementSet:
    """Kernels ``f0``, ``f1``, ... of ``fns`` measured on the full grid of ``kinds`` or
    (``design="cross"``) on the lines through its first corner, ``reps`` repetitions each."""
    at = grid(kinds)
    if design == "cross":
        at = at[(at[:, 0] == at[0, 0]) | (at[:, 1] == at[0, 1])]
    kernels = tuple(
        Kernel(
            f"f{i}",
            "time",
            tuple(
                Point(tuple(a), tuple(v))
                for a, v in zip(at, noisy_values(fn, at, level, rng)[:, :reps])
            ),
        )
        for i, fn in enumerate(fns)
    )
    return MeasurementSet(parameters, kernels)
