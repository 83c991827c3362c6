"""``perfguard site``: read the history, render the pages, put the folder in place whole.

The site is built in a sibling folder and swapped in by two renames, so a reader (or a
Pages upload) never sees half a site, and a failure leaves the previous one as it was.
The output folder must be new, empty, or an earlier perfguard site (it holds the
``MARKER`` file): anything else -- a file, someone's documents -- is refused untouched.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..errors import UsageError
from ..numbers import counted
from .data import commit_base_url, load_site
from .pages import render_site

__all__ = ["MARKER", "SiteOptions", "SiteResult", "build_site"]

MARKER = ".perfguard-site"  # hidden: actions/upload-pages-artifact leaves it out of Pages
_MARKER_DOC = {"generator": "perfguard site", "version": 1}


@dataclass(frozen=True)
class SiteOptions:
    """What ``perfguard site`` was asked for."""

    branch: str | None = None
    limit: int = 100
    repo_url: str | None = None
    title: str = "perfguard history"


@dataclass(frozen=True)
class SiteResult:
    """What was written, for the one line the CLI prints."""

    index: Path
    kernels: int
    commits: int  # distinct commits (a re-run of one counts once)
    files: int
    branch: str | None = None  # the branch drawn when none was asked for, of several
    runs: int = 0

    def sentence(self) -> str:
        """``perfguard site: 20 kernels, 30 commits, 22 files -> site/index.html``."""
        if not self.commits:
            return f"perfguard site: no runs recorded yet; an empty-state page -> {self.index}"
        on = f" on {self.branch} (--branch for another)" if self.branch else ""
        runs = f"{counted(self.runs, 'run')} of " if self.runs > self.commits else ""
        return (
            f"perfguard site: {counted(self.kernels, 'kernel')}, {runs}"
            f"{counted(self.commits, 'commit')}{on}, {counted(self.files, 'file')} -> "
            f"{self.index}"
        )


def build_site(
    db: Path, out: Path, options: SiteOptions, environ: Mapping[str, str] = os.environ
) -> SiteResult:
    """Build the site of ``db`` into ``out``; UsageError/HistoryError (exit 2) change nothing."""
    out = Path(out)
    _check_output(out)
    repo_url = commit_base_url(options.repo_url, environ)
    data = load_site(db, options.branch, options.limit, repo_url)
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    files = render_site(data, options.title, generated)
    files[MARKER] = json.dumps(_MARKER_DOC) + "\n"
    _write_swapped(out, files)
    chosen = data.branch if options.branch is None else None  # said only where not asked for
    return SiteResult(
        out / "index.html",
        len(data.kernels),
        data.commit_count,
        len(files),
        chosen,
        len(data.commits),
    )


def _check_output(out: Path) -> None:
    """Refuse a file, a link, or a non-empty folder that is not an earlier perfguard site."""
    if out.is_symlink():
        raise UsageError(f"-o {out}: a symbolic link; give a real folder")
    if out.exists() and not out.is_dir():
        raise UsageError(f"-o {out}: a file, not a folder; refusing to replace it")
    if out.is_dir() and not (out / MARKER).is_file() and any(out.iterdir()):
        raise UsageError(
            f"-o {out}: a folder with files that is not an earlier perfguard site; "
            "give a new or empty folder"
        )


def _write_swapped(out: Path, files: Mapping[str, str]) -> None:
    """Write every file into a sibling folder, then swap it in place of ``out``."""
    parent = out.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=parent))
    except OSError as exc:
        raise UsageError(f"-o {out}: cannot create a folder beside it ({exc.strerror})") from None
    try:
        for relative, text in files.items():
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="\n")
        staging.chmod(0o755)
        _swap(staging, out.absolute())
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise UsageError(f"-o {out}: cannot write the site ({exc.strerror or exc})") from None


def _swap(staging: Path, out: Path) -> None:
    """``staging`` becomes ``out``; the old ``out`` (if any) is removed after the swap."""
    if not out.exists():
        os.rename(staging, out)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    os.rename(out, retired / "site")
    try:
        os.rename(staging, out)
    except OSError:
        os.rename(retired / "site", out)  # put the old site back
        retired.rmdir()
        raise
    shutil.rmtree(retired, ignore_errors=True)
