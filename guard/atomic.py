"""Writing a file so that readers see the old contents or the new, never half of them."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8, newlines as given) through a temporary file in the same folder
    and ``os.replace`` it into place; an interruption leaves the old file whole.

    A symlink is written through (its target replaced, the link kept); a special file (a
    pipe, /dev/stdout) is written into as it is, since it cannot be replaced.  Raises
    OSError; the temporary file never stays behind.
    """
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():
        with open(target, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        return
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(temp, _created_mode())  # mkstemp's 0600, else: as any file written here
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _created_mode() -> int:
    """The mode ``open()`` would give a new file under the process's umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
