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
        "next: replace the placeholder expectations in perfguard.yml, then commit both files"
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

    if shards is not None and workflow != "check":
        raise UsageError("--shards writes the matrix workflow; leave out --workflow")
    project = detect_project(directory)
    files = render_project(project, workflow, action_ref, shards)
    written = write_init(directory, files, force=force)
    outcome = InitOutcome(project.describe(), tuple(written), tuple(project.notes))
    if project.kind == "asv":  # its benchmark blocks are suggestions, commented out
        step = (
            "next: uncomment the suggested benchmarks in perfguard.yml, put their adapters in "
            "perfguard_asv.py, replace the placeholder expectations, then commit the files"
        )
        outcome = replace(outcome, next_step=step)
    return outcome
