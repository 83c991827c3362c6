"""What a run was measured on: the machine, the Python, and the commit of the project.

Captured once per run and stored in ``measurements@1`` under ``run``, so a report can
say when baseline and candidate came from different machines. Git is asked through
real subprocesses; in GitHub Actions the event's own variables win (a pull request's
checkout is a detached merge commit, whose branch git cannot name).
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .. import __version__
from ..git import git
from .caches import cache_sizes

__all__ = ["GitState", "git_state", "machine_info", "now_iso"]


@dataclass(frozen=True)
class GitState:
    """The commit, branch and whether the work tree has uncommitted changes."""

    commit: str | None = None
    branch: str | None = None
    dirty: bool | None = None


def now_iso() -> str:
    """The current time as ISO-8601 in UTC, to the second."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def machine_info() -> dict[str, Any]:
    """CPU, core count, OS and Python of this machine (stable keys, JSON-ready values), and
    its data cache sizes in bytes under ``caches`` where the machine reports any."""
    info: dict[str, Any] = {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "arch": platform.machine(),
        "os": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "hostname": platform.node(),
        "perfguard": __version__,
    }
    caches = cache_sizes()
    if caches:
        info["caches"] = caches
    return info


def git_state(folder: Path, environ: Mapping[str, str] | None = None) -> GitState:
    """The project's git state at ``folder``; GitHub Actions variables take precedence."""
    env = os.environ if environ is None else environ
    commit = _git(folder, "rev-parse", "HEAD")
    branch = _git(folder, "rev-parse", "--abbrev-ref", "HEAD")
    status = _git(folder, "status", "--porcelain", "--untracked-files=no")
    if env.get("GITHUB_ACTIONS") == "true":
        commit = env.get("GITHUB_SHA") or commit
        branch = env.get("GITHUB_HEAD_REF") or env.get("GITHUB_REF_NAME") or branch
    return GitState(
        commit=commit,
        branch=None if branch == "HEAD" else branch,
        dirty=None if status is None else bool(status.strip()),
    )


def _git(folder: Path, *args: str) -> str | None:
    return git(folder, *args, timeout=10)[0]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or sys.platform
