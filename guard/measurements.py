"""Immutable measurement data model: kernels x metrics x points x repetitions.

Objects are validated once on construction and never mutated afterwards, so the
same set can be shared by modelers, checkers and reporters (pyperf's ``Run``).
Values are kept as given, including NaN or negative ones: deciding whether a
kernel can be modelled is the modeler's job, which reports and skips bad kernels
instead of refusing a whole file.
"""

from __future__ import annotations

import collections
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from . import numbers

__all__ = [
    "SCHEMA",
    "Point",
    "Kernel",
    "ReportedComplexity",
    "RunError",
    "RunInfo",
    "MeasurementSet",
    "kernel_problems",
    "format_at",
    "plain_number",
]

SCHEMA = "perfguard/measurements@1"


@dataclass(frozen=True)
class Point:
    """One measurement point: coordinates (in parameter order) and its repetitions."""

    at: tuple[float, ...]
    values: tuple[float, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "at", tuple(float(a) for a in self.at))
        object.__setattr__(self, "values", tuple(map(float, self.values)))


@dataclass(frozen=True)
class ReportedComplexity:
    """A benchmark tool's own asymptotic fit of a kernel, carried as the file gave it.

    Google Benchmark's ``Complexity()`` writes ``BM_Sort_BigO`` (``big_o`` "NlgN" and a
    coefficient: time ~ coefficient * f(N)) and ``BM_Sort_RMS`` (the fit's relative RMS
    error). ``N`` is the tool's complexity N (``SetComplexityN``), which need not be one
    of the measurement parameters, so the class keeps the tool's letter.
    """

    tool: str
    big_o: str  # as the tool wrote it: "NlgN", "N^2", "(1)", "f(N)"
    complexity: str  # the same in Big-O notation: "O(N log N)"
    coefficient: float | None = None  # in the kernel's unit per unit of f(N)
    unit: str | None = None
    rms: float | None = None  # relative RMS error of the tool's fit (0.14 is 14%)

    def to_json(self) -> dict[str, Any]:
        """The ``reported_complexity`` field of a models@1 entry."""
        out: dict[str, Any] = {"tool": self.tool, "big_o": self.big_o}
        out["complexity"] = self.complexity
        for key in ("coefficient", "unit", "rms"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass(frozen=True)
class Kernel:
    """The measurements of one kernel (call path, benchmark) for one metric.

    ``reported`` is a tool's own complexity fit, when the file carries one: an annotation,
    not a measurement, so it is not part of the kernel's equality nor of measurements@1.
    """

    name: str
    metric: str
    points: tuple[Point, ...]
    unit: str | None = None
    reported: ReportedComplexity | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("kernel name must not be empty")
        if not self.metric:
            raise ValueError(f"kernel {self.name!r}: metric must not be empty")
        object.__setattr__(self, "points", tuple(self.points))

    @property
    def key(self) -> tuple[str, str]:
        """Identity of the kernel within a measurement set."""
        return (self.name, self.metric)


@dataclass(frozen=True)
class RunError:
    """A benchmark that failed to execute: ``kind`` is timeout, crash, error, too-few-sizes
    or interrupted (the run was stopped before it finished)."""

    benchmark: str
    kind: str
    message: str
    at: Mapping[str, float] | None = None

    def __post_init__(self) -> None:
        if self.at is not None:
            at = {str(k): float(v) for k, v in self.at.items()}
            object.__setattr__(self, "at", MappingProxyType(at))

    def sentence(self) -> str:
        """``sort at n=65536: timeout after 60 s``: which benchmark, where, and why."""
        where = ""
        if self.at is not None:
            where = " at " + ", ".join(numbers.at(p, v) for p, v in self.at.items())
        return f"{self.benchmark}{where}: {self.message}"

    def ending(self) -> str:
        """How the benchmark ended early: the size limit stops one that runs fine (and
        sooner one that got slower); a crash or a timeout did not run to the end."""
        if self.kind == "too-few-sizes":
            return "stopped at the size limit before enough sizes"
        return "did not run to the end"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"benchmark": self.benchmark, "kind": self.kind}
        if self.at is not None:
            out["at"] = {k: _number_json(v) for k, v in self.at.items()}
        out["message"] = self.message
        return out


@dataclass(frozen=True)
class RunInfo:
    """Where and when the measurements were taken; every field optional.

    ``errors`` lists benchmarks that failed to execute and ``interrupted`` marks a run
    stopped early (Ctrl-C, time budget aside): the kernels hold what was measured.
    ``round_speed`` is the machine's relative speed in each round of ``perfguard run``
    (round 0 is the pilot); timings were divided by it.
    """

    commit: str | None = None
    branch: str | None = None
    started: str | None = None
    machine: Mapping[str, Any] = field(default_factory=dict)
    dirty: bool | None = None
    errors: tuple[RunError, ...] = ()
    interrupted: bool = False
    round_speed: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "machine", MappingProxyType(dict(self.machine)))
        object.__setattr__(self, "errors", tuple(self.errors))
        object.__setattr__(self, "round_speed", tuple(float(s) for s in self.round_speed))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in ("commit", "branch", "started", "dirty"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        out["machine"] = dict(self.machine)
        if self.errors:
            out["errors"] = [e.to_json() for e in self.errors]
        if self.interrupted:
            out["interrupted"] = True
        if self.round_speed:
            out["round_speed"] = list(self.round_speed)
        return out


@dataclass(frozen=True)
class MeasurementSet:
    """A whole measurement file: named parameters and the kernels measured over them.

    ``notes`` are what reading the file left out and why (a tool's benchmark without a
    size, say), for the verbs to show; ``held``, the parameters it dropped for having one
    value at every point, with that value, for errors that name them. Neither is part of
    measurements@1.
    """

    parameters: tuple[str, ...]
    kernels: tuple[Kernel, ...]
    run: RunInfo = field(default_factory=RunInfo)
    notes: tuple[str, ...] = field(default=(), compare=False)
    held: tuple[tuple[str, float], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        params = tuple(self.parameters)
        object.__setattr__(self, "parameters", params)
        object.__setattr__(self, "kernels", tuple(self.kernels))
        object.__setattr__(self, "notes", tuple(self.notes))
        if not params:
            raise ValueError("a measurement set needs at least one parameter")
        if len(set(params)) != len(params):
            raise ValueError(f"parameter names repeat: {', '.join(params)}")
        seen: set[tuple[str, str]] = set()
        for kernel in self.kernels:
            if kernel.key in seen:
                raise ValueError(f"kernel {kernel.name!r} metric {kernel.metric!r} appears twice")
            seen.add(kernel.key)
            for point in kernel.points:
                if len(point.at) != len(params):
                    raise ValueError(
                        f"kernel {kernel.name!r}: point {point.at} has {len(point.at)} "
                        f"coordinates, expected {len(params)} ({', '.join(params)})"
                    )

    def kernel(self, name: str, metric: str) -> Kernel:
        """The kernel with this name and metric (KeyError if absent)."""
        for k in self.kernels:
            if k.key == (name, metric):
                return k
        raise KeyError((name, metric))

    def to_json(self) -> dict[str, Any]:
        """The ``perfguard/measurements@1`` document; non-finite values become null."""
        return {
            "schema": SCHEMA,
            "parameters": list(self.parameters),
            "run": self.run.to_json(),
            "kernels": [_kernel_json(k, self.parameters) for k in self.kernels],
        }


def _number_json(value: float) -> float | int | None:
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _kernel_json(kernel: Kernel, parameters: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": kernel.name, "metric": kernel.metric}
    if kernel.unit is not None:
        out["unit"] = kernel.unit
    out["points"] = [
        {
            "at": {p: _number_json(a) for p, a in zip(parameters, point.at)},
            "values": [None if not math.isfinite(v) else v for v in point.values],
        }
        for point in kernel.points
    ]
    return out


# Nonzero values a fit by relative error can hold: weights of 1/y^2 overflow beyond ~1e154
# either way, and no metric of seconds, bytes or counts comes near these.
VALUE_RANGE = (1e-100, 1e100)


def kernel_problems(kernel: Kernel, min_points: int = 2) -> list[str]:
    """Reasons this kernel cannot be modelled, as sentences; empty when it can.

    Two distinct points are modelled (every class passes through both: the model says so
    and the gate never fails on it); one point is not.
    """
    problems: list[str] = []
    coords = [p.at for p in kernel.points]
    dupes = sorted(c for c, count in collections.Counter(coords).items() if count > 1)
    if dupes:
        problems.append(f"duplicate points {', '.join(_fmt_at(c) for c in dupes)}")
    empty = [p.at for p in kernel.points if not p.values]
    if empty:
        problems.append(f"no values at {', '.join(_fmt_at(c) for c in empty)}")
    bad = _bad_values(kernel.points)
    if bad:
        problems.append(bad)
    nonpositive = [p.at for p in kernel.points if any(a <= 0 or not math.isfinite(a) for a in p.at)]
    if nonpositive:
        problems.append(
            "parameter values that are not positive numbers at "
            + ", ".join(_fmt_at(c) for c in nonpositive)
        )
    distinct = len(set(coords))
    if distinct < min_points:
        noun = "point" if distinct == 1 else "points"
        problems.append(f"only {distinct} distinct {noun}, at least {min_points} are needed")
    return problems


def _bad_values(points: Iterable[Point]) -> str:
    """NaN, infinite or negative values; zeros are data (a count such as visits or bytes)."""
    points = tuple(points)
    every = np.fromiter(itertools.chain.from_iterable(p.values for p in points), dtype=float)
    if bool((every >= 0).all()) and bool((every <= VALUE_RANGE[1]).all()):
        nonzero = every[every > 0]
        if bool((nonzero >= VALUE_RANGE[0]).all()):
            return ""  # the common case, one pass over the kernel's values
    for point in points:
        v = np.asarray(point.values, dtype=float)
        bad = np.flatnonzero(~(v >= 0) | np.isinf(v))  # NaN fails v >= 0
        if bad.size == 0:
            out = np.flatnonzero((v > VALUE_RANGE[1]) | ((v > 0) & (v < VALUE_RANGE[0])))
            if out.size:
                return (
                    f"value {float(v[out[0]]):g} at {_fmt_at(point.at)} is outside "
                    f"{VALUE_RANGE[0]:g}..{VALUE_RANGE[1]:g}, the range a fit by relative error "
                    "can hold"
                )
            continue
        first = float(v[bad[0]])
        if math.isnan(first):
            return f"NaN value at {_fmt_at(point.at)}"
        if math.isinf(first):
            return f"infinite value at {_fmt_at(point.at)}"
        return f"negative value {first:g} at {_fmt_at(point.at)}"
    return ""


def plain_number(value: float) -> float | int:
    """An int when the value is integral (``1024``, not ``1024.0``), else the float."""
    value = float(value)
    return int(value) if value.is_integer() else value


def format_at(parameters: Sequence[str], point: Sequence[float]) -> str:
    """``n=1024`` or ``n=64, p=8``: a point as people write it."""
    return ", ".join(f"{p}={plain_number(v)!r}" for p, v in zip(parameters, point, strict=True))


def _fmt_at(at: tuple[float, ...]) -> str:
    return "(" + ", ".join(str(plain_number(a)) for a in at) + ")"
