"""``perfguard init``: see how a project benchmarks, then scaffold perfguard.yml and a workflow.

Detection only reads files (``detect``: one detector per project kind, registered).
Test modules, ``setup.py`` and asv benchmarks are parsed with ``ast`` and never imported,
so none of the project's code runs (``pyast``). Rendering fills the templates in the
repository's ``templates/`` folder and returns text (``render_config``, ``workflows``);
only ``write_init`` writes.
"""

from __future__ import annotations

from pathlib import Path

from .detect import detect_project
from .project import FoundBenchmark, InitFile, Kind, Parameter, ProjectKind
from .render_config import CONFIG_PATH, render_config
from .workflows import (
    MATRIX_PATH,
    MAX_SHARDS,
    PAGES_PATH,
    WORKFLOW_PATH,
    WORKFLOWS,
    action_reference,
    render_action_workflows,
    render_matrix_workflows,
    render_workflow,
)
from .write import write_init

__all__ = [
    "CONFIG_PATH",
    "MATRIX_PATH",
    "MAX_SHARDS",
    "PAGES_PATH",
    "WORKFLOW_PATH",
    "WORKFLOWS",
    "Kind",
    "Parameter",
    "FoundBenchmark",
    "ProjectKind",
    "InitFile",
    "action_reference",
    "detect_project",
    "render_action_workflows",
    "render_project",
    "render_init",
    "render_matrix_workflows",
    "write_init",
]


def render_project(
    project: ProjectKind,
    workflow: str = "check",
    action_ref: str | None = None,
    shards: int | None = None,
) -> list[InitFile]:
    """perfguard.yml and the GitHub Actions workflow(s) for a detected project.

    With ``shards``, the matrix workflow and the Pages workflow it calls, whatever
    ``workflow`` says.
    """
    config = InitFile(CONFIG_PATH, render_config(project))
    if shards is not None:
        return [config, *render_matrix_workflows(shards, action_ref)]
    if workflow == "check":
        return [config, InitFile(WORKFLOW_PATH, render_workflow(project, action_ref))]
    return [config, *render_action_workflows(workflow, action_ref)]


def render_init(root: Path) -> list[InitFile]:
    """The files ``perfguard init`` would write for the project at ``root``; writes nothing."""
    return render_project(detect_project(root))


def _register_builtin() -> None:
    # The detectors register on import (detect.py holds the registry, they import it); the
    # order is precedence among equals: pytest-benchmark tests before asv, and the plain
    # scaffold, found everywhere, last.
    from . import pytest_benchmark  # noqa: F401, I001
    from . import asv  # noqa: F401
    from . import plain  # noqa: F401


_register_builtin()
