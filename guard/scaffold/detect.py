"""Which kind of project ``perfguard init`` is looking at: one detector per kind, registered.

Every detector reads the project's files and says what it found and how strongly: the
project's own benchmarks decide, a dependency alone only hints, and the plain scaffold is
what is left. The strongest finding wins, the first registered among equals; a decisive
finding that loses is named in the notes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..registry import Registry
from .files import read_text
from .project import FoundBenchmark, Kind, ProjectKind

__all__ = [
    "BENCHMARKS",
    "DEPENDENCY",
    "FALLBACK",
    "Detector",
    "Finding",
    "detect_project",
    "kinds",
    "register",
]

BENCHMARKS = 2  # the project's own benchmarks (tests using the fixture, asv.conf.json)
DEPENDENCY = 1  # only a dependency on the tool
FALLBACK = 0  # nothing: the plain scaffold


@dataclass(frozen=True)
class Finding:
    """What one detector found: how strongly, why, the benchmarks and notes for the user."""

    strength: int
    evidence: tuple[str, ...] = ()
    benchmarks: tuple[FoundBenchmark, ...] = ()
    benchmark_dir: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Detector:
    """A project kind: ``find`` reads a project's files (never runs them) and reports.

    ``found_as`` names the evidence when another kind wins; ``checks`` what this kind's
    scaffold checks.
    """

    kind: Kind
    find: Callable[[Path], Finding | None]
    found_as: str
    checks: str


_REGISTRY: Registry[Detector] = Registry("project kind")


def register(detector: Detector) -> Detector:
    """Add a detector under its kind (kinds are unique); earlier ones win ties."""
    return _REGISTRY.add(detector.kind, detector)


def kinds() -> list[str]:
    """Registered project kinds, in registration order."""
    return list(_REGISTRY)


def detect_project(root: Path) -> ProjectKind:
    """Classify the project at ``root`` as pytest-benchmark, asv or plain, reading files only.

    Tests that use the ``benchmark`` fixture win (their JSON can be checked as it is),
    then an ``asv.conf.json``, then a pytest-benchmark dependency without such tests.
    """
    root = Path(root)
    if not root.is_dir():
        raise UsageError(f"{root}: not a directory; perfguard init needs the project's folder")
    found = [(d, f) for d in _REGISTRY.values() if (f := d.find(root)) is not None]
    winner, finding = max(found, key=lambda pair: pair[1].strength)  # the first of the best
    also = tuple(
        f"{d.found_as} was found too; this scaffold checks {winner.checks}"
        for d, f in found
        if d is not winner and f.strength == BENCHMARKS
    )
    return ProjectKind(
        winner.kind,
        finding.evidence,
        finding.benchmarks,
        finding.benchmark_dir,
        installable=_installable(root),
        requirements=(root / "requirements.txt").is_file(),
        notes=finding.notes + also,
    )


def _installable(root: Path) -> bool:
    """Whether ``pip install -e .`` can install the project (setup.py/cfg or a build table)."""
    if (root / "setup.py").is_file() or (root / "setup.cfg").is_file():
        return True
    text = read_text(root / "pyproject.toml") or ""
    return bool(re.search(r"^\s*\[(project|build-system|tool\.poetry)\]", text, re.MULTILINE))
