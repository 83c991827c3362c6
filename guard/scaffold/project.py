"""What ``perfguard init`` finds in a project and writes: the data, and notes about it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from ..collection.runner import MIN_POINTS
from .pyast import is_size

__all__ = [
    "sized_together",
    "Kind",
    "Parameter",
    "FoundBenchmark",
    "ProjectKind",
    "InitFile",
    "located",
    "listed",
    "few_sizes_notes",
]

Kind = Literal["plain", "pytest-benchmark", "asv"]


@dataclass(frozen=True)
class Parameter:
    """A benchmark parameter as the project writes it: its name and literal values, if known."""

    name: str
    values: tuple[object, ...] = ()

    @property
    def sizes(self) -> tuple[float, ...] | None:
        """The values as sizes (all positive numbers), or None when they are not (or unknown)."""
        if not self.values or not all(is_size(v) for v in self.values):
            return None
        return tuple(float(v) for v in self.values if isinstance(v, (int, float)))

    @property
    def maybe_numeric(self) -> bool:
        """True unless the values are known and some are not sizes (text, zero, ...)."""
        return not self.values or self.sizes is not None


@dataclass(frozen=True)
class FoundBenchmark:
    """A benchmark found in the project's files: a pytest-benchmark test or an asv benchmark.

    ``name`` is what perfguard will call the kernel (the test's name, or asv's dotted
    ``module.Class.method``); ``path`` is the file relative to the project root.
    For asv, ``module`` is the import path, ``call`` the function or ``Class.method``
    and ``setup`` whether the class has a ``setup`` method to call first.
    """

    name: str
    path: str
    line: int
    parameters: tuple[Parameter, ...] = ()
    metric: str = "time"
    module: str = ""
    call: str = ""
    setup: bool = False

    def numeric(self) -> tuple[Parameter, ...]:
        """The parameters that are (or may be) sizes."""
        return tuple(p for p in self.parameters if p.maybe_numeric)


@dataclass(frozen=True)
class ProjectKind:
    """What ``detect_project`` found: the kind, why, the benchmarks and what to tell the user."""

    kind: Kind
    evidence: tuple[str, ...] = ()
    benchmarks: tuple[FoundBenchmark, ...] = ()
    benchmark_dir: str | None = None
    installable: bool = False
    requirements: bool = False
    notes: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line for the terminal: the kind and the evidence for it."""
        if self.kind == "plain":
            return "a project without pytest-benchmark or asv benchmarks"
        article = "an" if self.kind == "asv" else "a"
        return f"{article} {self.kind} project ({'; '.join(self.evidence)})"


@dataclass(frozen=True)
class InitFile:
    """A file for ``perfguard init`` to write: its path relative to the project root and text."""

    path: PurePosixPath
    text: str


def located(bench: FoundBenchmark) -> str:
    """``name (path:line)``: where a note sends the reader."""
    return f"{bench.name} ({bench.path}:{bench.line})"


def listed(items: Sequence[str], limit: int = 5) -> str:
    """``a, b, c and 4 more``: a list that stays short in a comment."""
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def few_sizes_notes(found: Sequence[FoundBenchmark]) -> list[str]:
    """A note naming the benchmarks with fewer sizes than a model needs, if any."""
    few = [
        located(b)
        for b in found
        if any(p.sizes is not None and len(set(p.sizes)) < MIN_POINTS for p in b.parameters)
    ]
    if not few:
        return []
    return [
        f"fewer than {MIN_POINTS} sizes: modelled, but too few to fail a build on (add more, "
        f"and wider: a factor of 64 or more): {listed(few)}"
    ]


def sized_together(found: Sequence[FoundBenchmark]) -> tuple[str, ...] | None:
    """The numeric parameter names most of the sized benchmarks share (then the first seen):
    a config's benchmarks share one set of parameters (every benchmark gets every top-level
    one), so benchmarks over another set need a config of their own. None: none sized."""
    sets = [tuple(p.name for p in b.numeric()) for b in found if b.numeric()]
    return max(dict.fromkeys(sets), key=sets.count) if sets else None
