"""Fixtures shared across tests/: runs of the bundled examples that many tests only read.

Helpers that are plain functions (``perfguard``, ``perfguard_process``, the paths) live in
``tests/support.py``, importable from every folder (``pythonpath`` in pyproject.toml).
A new test file goes in the folder that mirrors the module it tests (``guard/modeling/`` ->
``tests/modeling/``); one for a top-level module (``guard/config.py``) stays in ``tests/``.
"""

from __future__ import annotations

import pytest
from support import EXAMPLES, ROOT, Ran, perfguard


@pytest.fixture(scope="session")
def example_models() -> Ran:
    """``perfguard model examples/python-kernels.json --json``, run once for the session."""
    return perfguard("model", EXAMPLES / "python-kernels.json", "--json")


@pytest.fixture(scope="session")
def example_check() -> Ran:
    """``perfguard check`` of the bundled regression example (one failing kernel), as JSON."""
    return perfguard(
        "check",
        "examples/check/cand.json",
        "-c",
        "examples/check/perfguard.yml",
        "--json",
        cwd=ROOT,
    )
