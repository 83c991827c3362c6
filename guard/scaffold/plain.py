"""A project without a benchmark tool perfguard reads: perfguard runs the benchmarks itself."""

from __future__ import annotations

from pathlib import Path

from .detect import FALLBACK, Detector, Finding, register

__all__ = ["DETECTOR"]


def _find(root: Path) -> Finding:
    """Always found, never decisive: what every project is when no other kind is."""
    return Finding(FALLBACK)


DETECTOR = register(Detector("plain", _find, found_as="", checks="perfguard's own benchmarks"))
