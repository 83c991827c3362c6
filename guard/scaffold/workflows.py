"""The GitHub Actions workflows ``perfguard init`` writes, pinned to perfguard's commit."""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from ..errors import UsageError
from ..git import git
from ..templating import fill, templates_folder
from .project import InitFile, ProjectKind

__all__ = [
    "MATRIX_PATH",
    "MAX_SHARDS",
    "PAGES_PATH",
    "WORKFLOWS",
    "WORKFLOW_PATH",
    "action_reference",
    "render_action_workflows",
    "render_matrix_workflows",
    "render_workflow",
]

WORKFLOW_PATH = PurePosixPath(".github/workflows/perfguard.yml")

_PYTHON_VERSION = "3.12"


def _install_command(project: ProjectKind) -> str:
    parts = []
    if project.requirements:
        parts.append("-r requirements.txt")
    if project.installable:
        parts.append("-e .")
    if project.kind == "pytest-benchmark":
        parts.append("pytest pytest-benchmark")
    if not parts:
        return "true"
    return "python -m pip install " + " ".join(parts)


def render_workflow(project: ProjectKind, action_ref: str | None = None) -> str:
    """The ``check`` workflow: the project's benchmarks measured, then perfguard check."""
    if project.kind == "pytest-benchmark":
        measure = 'python -m pytest --benchmark-only --benchmark-json="$OUT"'
    else:
        measure = 'perfguard run -c perfguard.yml -o "$OUT"'
    text = fill(
        "workflow.yml.tmpl",
        python_version=_PYTHON_VERSION,
        install=_install_command(project),
        measure=measure,
        action_at="@" + action_reference(action_ref),
    )
    return text + "\n"


WORKFLOWS = {
    "check": None,  # the project's own benchmark tool, then perfguard check (no token)
    "pull-request": ("workflow-pull-request.yml",),
    "fork-safe": ("workflow-fork-measure.yml", "workflow-fork-comment.yml"),
}


_FORK_NAMES = {
    "workflow-pull-request.yml": "perfguard.yml",
    "workflow-fork-measure.yml": "perfguard-measure.yml",
    "workflow-fork-comment.yml": "perfguard-comment.yml",
}


def render_action_workflows(kind: str, action_ref: str | None = None) -> list[InitFile]:
    """The workflows that use the perfguard action: one for pull requests, or the pair."""
    names = WORKFLOWS.get(kind)
    if not names:
        raise UsageError(f"--workflow must be one of {', '.join(WORKFLOWS)}")
    ref = action_reference(action_ref)
    return [
        InitFile(
            PurePosixPath(".github/workflows") / _FORK_NAMES[name],
            fill(name, action_at="@" + ref) + "\n",
        )
        for name in names
    ]


MAX_SHARDS = 256  # GitHub Actions runs at most 256 jobs of one matrix
MATRIX_PATH = WORKFLOW_PATH  # the matrix workflow takes the single workflow's place
PAGES_PATH = PurePosixPath(".github/workflows/perfguard-pages.yml")


def render_matrix_workflows(shards: int, action_ref: str | None = None) -> list[InitFile]:
    """The matrix workflow over ``shards`` runners, and the Pages workflow its site job calls."""
    if not 2 <= shards <= MAX_SHARDS:
        raise UsageError(
            f"--shards {shards}: give 2 to {MAX_SHARDS} (one runner needs no matrix; "
            f"GitHub runs at most {MAX_SHARDS} jobs of one matrix)"
        )
    at = "@" + action_reference(action_ref)
    matrix = fill(
        "workflow-matrix.yml",
        action_at=at,
        count=shards,
        shards=", ".join(str(i) for i in range(1, shards + 1)),
    )
    pages = fill("workflow-pages.yml", action_at=at)
    return [InitFile(MATRIX_PATH, matrix + "\n"), InitFile(PAGES_PATH, pages + "\n")]


_SHA = re.compile(r"[0-9a-f]{40}")
UNPINNED = "v0"  # the release tag written where perfguard cannot tell its own commit


def action_reference(explicit: str | None = None) -> str:
    """What follows ``perfguard/perfguard@`` in a written workflow.

    A 40-hex commit: given, or the commit perfguard itself was installed from when that is
    a git checkout (an editable install, the action's own folder).  Otherwise the release
    tag and a comment to pin it (``UNPINNED``); init says so too.  The tag is no ignore of
    zizmor's unpinned-uses audit: a tag can move, and a privileged comment job runs it.
    """
    sha = (explicit or "").strip().lower() or _own_commit()
    if explicit and not _SHA.fullmatch(sha):
        raise UsageError(f"--action-ref {explicit!r}: give a full 40-hex commit SHA")
    if sha and _SHA.fullmatch(sha):
        return f"{sha} # perfguard's commit"
    return f"{UNPINNED} # pin: replace v0 with a commit SHA of perfguard/perfguard"


def _own_commit() -> str:
    """The commit of the git checkout perfguard runs from, if it is one and its code and
    templates (``guard/``, ``templates/``) are clean."""
    package = Path(__file__).resolve().parents[1]
    head, _ = git(package, "rev-parse", "HEAD")
    shipped = (".", os.path.relpath(templates_folder(), package))
    status, _ = git(package, "status", "--porcelain", "--untracked-files=no", "--", *shipped)
    return head if head and status == "" else ""
