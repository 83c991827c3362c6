"""Reading a project's files for ``perfguard init``: bounded, and never running anything."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["read_text", "python_files", "relative"]

# A cheap scan: enough for any real project, bounded for a home folder given by mistake.

_MAX_FILES = 5000
_MAX_DIRS = 20_000
_MAX_BYTES = 1_000_000
_SKIP_DIRS = {"node_modules", "site-packages", "__pycache__", "build", "dist", "venv", "env"}


def read_text(path: Path) -> str | None:
    """A text file's content, or None if it is missing, too large or unreadable."""
    try:
        if not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _skipped_dir(name: str) -> bool:
    return name.startswith(".") or name in _SKIP_DIRS or name.endswith(".egg-info")


def python_files(top: Path, wanted: Callable[[str], bool]) -> list[Path]:
    """Files under ``top`` whose name is ``wanted``, sorted, skipping virtualenvs and VCS dirs."""
    found: list[Path] = []
    for visited, (folder, dirs, files) in enumerate(os.walk(top)):
        if "pyvenv.cfg" in files:  # a virtualenv, whatever its name
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not _skipped_dir(d))
        found.extend(Path(folder) / f for f in sorted(files) if wanted(f))
        if len(found) >= _MAX_FILES or visited >= _MAX_DIRS:
            break
    return found[:_MAX_FILES]


def relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` in POSIX form, or as it is when outside it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
