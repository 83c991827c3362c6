"""write_atomic: readers see the old file or the new one, never half, and no temp file stays."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from guard.atomic import write_atomic


def test_an_interrupted_write_leaves_the_old_file_whole_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "verdicts.json"
    target.write_text("old\n", encoding="utf-8")

    def interrupted(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, "new\n" * 1000)
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["verdicts.json"]


def test_a_symlink_is_written_through_and_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "report.md"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8") == "new"


def test_a_new_file_gets_the_mode_open_would_give(tmp_path: Path) -> None:
    mask = os.umask(0o022)
    try:
        write_atomic(tmp_path / "pr.json", "{}\n")
    finally:
        os.umask(mask)
    assert (tmp_path / "pr.json").stat().st_mode & 0o777 == 0o644
