"""Running git: one place for the subprocess call, its timeout and its failure message."""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["git"]


def git(folder: Path, *args: str, timeout: float = 120) -> tuple[str | None, str]:
    """``git ARGS`` in ``folder``: (stdout stripped, "") on success, else (None, why not)."""
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"cannot run git: {exc}"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return None, lines[-1] if lines else f"git {args[0]} failed"
    return done.stdout.strip(), ""
