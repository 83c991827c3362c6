"""``perfguard init``: perfguard.yml and the workflows for a project, from reading its files."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import UsageError

__all__ = ["InitOutcome", "init"]


@dataclass(frozen=True)
class InitOutcome:
    """What was detected (one sentence), the files written and what the user should know."""

    description: str
    written: tuple[Path, ...]
    notes: tuple[str, ...]
    next_step: str = (
        "next: replace the placeholder expectations in perfguard.yml, then commit the files"
    )

    def exit_code(self) -> int:
        return 0


def init(
    directory: Path,
    workflow: str = "check",
    shards: int | None = None,
    action_ref: str | None = None,
    force: bool = False,
) -> InitOutcome:
    """Detect the project's benchmarks (nothing is imported or run) and write the files."""
    if not directory.is_dir():
        raise UsageError(f"{directory} is not a folder; give the project's root folder")
    from ..scaffold import detect_project, render_project, write_init
    from ..scaffold.workflows import UNPINNED

    if shards is not None and workflow != "check":
        raise UsageError("--shards writes the matrix workflow; leave out --workflow")
    project = detect_project(directory)
    if project.kind == "pytest-benchmark" and (shards is not None or workflow != "check"):
        # those workflows measure with `perfguard run`, which reads perfguard.yml's
        # benchmarks: section, and pytest measures this project's benchmarks
        flag = f"--shards {shards}" if shards is not None else f"--workflow {workflow}"
        raise UsageError(
            f"{flag} measures with `perfguard run`, and this project's benchmarks are "
            "pytest-benchmark tests: use the default --workflow check (pytest measures, "
            "perfguard checks), or declare the benchmarks in perfguard.yml first"
        )
    files = render_project(project, workflow, action_ref, shards)
    written = write_init(directory, files, force=force)
    notes = list(project.notes)
    if any(f"perfguard/perfguard@{UNPINNED} " in f.text for f in files):
        notes.append(
            f"the workflows use perfguard/perfguard@{UNPINNED}, a tag that can move, where "
            "perfguard could not tell its own commit: pin it to a full commit SHA "
            "(--action-ref SHA) before you commit them; zizmor's unpinned-uses audit says so"
        )
    outcome = InitOutcome(project.describe(), tuple(written), tuple(notes))
    if project.kind == "asv":  # its benchmark blocks are suggestions, commented out
        step = (
            "next: uncomment the suggested benchmarks in perfguard.yml, put their adapters in "
            "perfguard_asv.py, replace the placeholder expectations, then commit the files"
        )
        outcome = replace(outcome, next_step=step)
    return outcome
