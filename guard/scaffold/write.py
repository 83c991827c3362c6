"""Writing ``perfguard init``'s files: all or none, each atomically, inside the project."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from ..atomic import write_atomic
from ..errors import UsageError
from .project import InitFile

__all__ = ["write_init"]


def write_init(root: Path, files: Sequence[InitFile], force: bool) -> list[Path]:
    """Write ``files`` under ``root`` atomically; refuse before writing any if one exists."""
    root = Path(root)
    targets = [_target(root, f.path) for f in files]
    for target in targets:
        if target.is_dir():
            raise UsageError(f"{target} is a directory; remove it or run init elsewhere")
        if not force and (target.exists() or target.is_symlink()):
            raise UsageError(f"{target} already exists; pass --force to overwrite")
    for target, file in zip(targets, files):
        _write_atomic(target, file.text)
    return targets


def _target(root: Path, relative: PurePosixPath) -> Path:
    if relative.is_absolute() or ".." in relative.parts:
        raise UsageError(f"{relative}: init only writes inside the project folder")
    return root / relative


def _write_atomic(target: Path, text: str) -> None:
    """Write whole or not at all (see ``write_atomic``), naming the file if that fails."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, text)
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
