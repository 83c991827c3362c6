"""What a person reads in a CI log: 80 and 120 columns, no terminal.

Golden outputs for ``model``, ``check`` with and without a baseline, ``run``'s summary and
``history``'s table, rendered as a CI log renders them, and the properties the goldens keep:
no line wider than the log, every header word whole, no number cut by an ellipsis, no
``e+0`` in a size or a factor.  Regenerate the goldens after an intended change with
``PERFGUARD_UPDATE_GOLDEN=1 python -m pytest tests/reporting/test_readable.py``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from rich.console import Console
from support import perfguard

from guard.history import TimelineRow
from guard.measurements import Kernel, MeasurementSet, Point
from guard.reporting.runs import run_table
from guard.reporting.timeline import timeline_table

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parents[1] / "data" / "readable"
UPDATE = os.environ.get("PERFGUARD_UPDATE_GOLDEN") == "1"
WIDTHS = (80, 120)
HEADERS = {
    "check": ("kernel", "verdict", "expected", "class", "change"),
    "check-alone": ("kernel", "verdict", "expected", "class"),  # no baseline: no change
    "model": ("kernel", "model", "class", "sure"),
    "run": ("benchmark", "sizes", "points", "repetitions", "noise"),
    "history": ("kernel", "commit", "date", "class", "verdict", "target"),
}


def cli(width: int, *args: str) -> str:
    done = perfguard(*args, cwd=ROOT, env={"COLUMNS": str(width), "GITHUB_ACTIONS": None})
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def rendered(renderable: object, width: int) -> str:
    console = Console(width=width, highlight=False, color_system=None, force_terminal=False)
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


def run_summary(width: int) -> str:
    points = lambda f: tuple(  # noqa: E731
        Point((float(n),), tuple(f(n) * (1 + 0.01 * j) for j in range(5)))
        for n in (2**k for k in range(4, 17))
    )
    mset = MeasurementSet(
        ("n",),
        (
            Kernel("lookup", "time", points(lambda n: 3e-8), "s"),
            Kernel("sort[kind=merge]", "time", points(lambda n: 2e-8 * n * n.bit_length()), "s"),
        ),
    )
    return rendered(run_table(mset, width), width)


def history(width: int) -> str:
    def row(i: int, kernel: str, cls: str, verdict: str, value: float) -> TimelineRow:
        sha = f"{i:x}" * 40
        return TimelineRow(i, sha[:40], "main", f"2026-11-{10 + i}", kernel, "time", "s",
                           verdict, cls, value)  # fmt: skip

    rows = [
        row(1, "parse", "O(n)", "pass", 0.0123),
        row(2, "parse", "O(n)", "pass", 0.0125),
        row(3, "parse", "O(n^2)", "fail", 1234.5),
        row(1, "main->solve->MPI_Allreduce", "O(log p)", "pass", 1.5e-5),
    ]
    return rendered(timeline_table(rows, width), width)


CASES = {
    "check": lambda w: cli(
        w,
        "check",
        "examples/check/cand.json",
        "-c",
        "examples/check/perfguard.yml",
        "--target",
        "n=1e6",
    ),  # fmt: skip
    "check-alone": lambda w: cli(w, "check", "examples/check/cand.json", "--expect", "*=<= n^2"),
    "model": lambda w: cli(w, "model", "examples/python-kernels.json", "--predict", "n=1e6"),
    "run": run_summary,
    "history": history,
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_ci_log_output_matches_golden(name: str, width: int) -> None:
    text = CASES[name](width)
    path = GOLDEN / f"{name}-{width}.txt"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs (see the docstring)"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_tables_fit_and_keep_headers_and_numbers_whole(name: str, width: int) -> None:
    text = (GOLDEN / f"{name}-{width}.txt").read_text(encoding="utf-8")
    table = [line for line in text.splitlines() if line and line[0] in "┏┃┡│└"]
    if not table:  # too narrow for any table: one block of "header: value" lines per row
        blocks = text.splitlines()
        assert max(len(line) for line in blocks) <= width
        labels = {line.strip().split(":")[0] for line in blocks if ": " in line}
        assert set(HEADERS[name]) - {"kernel"} <= labels | {"target"} and "at target" in labels
        return
    assert max(len(line) for line in table) <= width
    headers = " ".join(line for line in table if line.startswith("┃"))
    for word in HEADERS[name]:
        assert re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", headers), word
    for line in table:
        for cell in line.strip("┃│").split("│" if line.startswith("│") else "┃"):
            assert not re.search(r"\d…|…\d", cell), cell  # no number cut short
    assert not re.search(r"e\+0", text), "sizes and factors never read e+0"
    assert "0.0e0 +" not in text


def test_the_readme_shows_the_80_column_check_as_it_prints():
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert (GOLDEN / "check-80.txt").read_text(encoding="utf-8").rstrip() in readme


@pytest.mark.parametrize("width", [80, 100, 120])
def test_an_optional_column_goes_before_a_class_is_wrapped(width: int) -> None:
    # at 100 columns "O(n log n)" broke over two lines that 80 (dropping columns) kept whole
    text = cli(width, "check", "examples/check/cand.json", "-c", "examples/check/perfguard.yml",
               "--target", "n=1e6")  # fmt: skip
    rows = [line for line in text.splitlines() if line.startswith("│ sort ")]
    assert len(rows) == 1 and "n log n" in rows[0]
    assert not any(line.startswith("│        │") for line in text.splitlines())
