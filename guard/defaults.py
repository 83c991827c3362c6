"""Names and defaults the command line shows before anything heavy is imported.

``perfguard --help`` and ``perfguard --version`` must start fast, so the option texts read
these plain values instead of importing the format registry or the modelers; tests hold
them equal to the registries they mirror (tests/test_startup.py).
"""

from __future__ import annotations

from pathlib import Path

# Every default perfguard applies, in one table. Settings resolve once, in this order:
# the command line, then perfguard.yml, then these values (``app.settings``).
CONFIG_PATH = Path("perfguard.yml")
HISTORY_PATH = Path(".perfguard/history.sqlite")  # the embedded SQLite history
REPORT_DIR = Path(".perfguard/report")  # what ``perfguard ci`` writes for the Action
MEASUREMENTS_PATH = Path("measurements.json")  # ``perfguard run -o``
CONFIDENCE = 0.99  # how sure a failure must be
SUGGESTIVE = 0.8  # how sure a finding must be to be mentioned as a likely change
MIN_TIME = 0.01  # seconds one repetition of an in-process callable lasts at least
SCALING_MIN_TIME = 0.005  # the same for @pytest.mark.scaling: a test suite waits for it
PREDICTION_LEVEL = 0.9  # coverage of ``perfguard model --predict``'s interval
HISTORY_ROWS = 20  # ``perfguard history -n``
SITE_RUNS = 100  # ``perfguard site -n``
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
