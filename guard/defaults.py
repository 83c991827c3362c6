"""Names and defaults the command line shows before anything heavy is imported.

``perfguard --help`` and ``perfguard --version`` must start fast, so the option texts read
these plain values instead of importing the format registry or the modelers; tests hold
them equal to the registries they mirror (tests/test_startup.py).
"""

from __future__ import annotations

from pathlib import Path

HISTORY_PATH = Path(".perfguard/history.sqlite")  # the embedded SQLite history
FORMAT_NAMES = (
    "perfguard",
    "extrap-json",
    "extrap-jsonl",
    "talpas",
    "extrap-text",
    "pytest-benchmark",
    "google-benchmark",
    "hyperfine",
)
MODELER_NAMES = ("default", "penalized", "adaptive", "refining", "exhaustive")
