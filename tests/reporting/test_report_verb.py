"""`perfguard report`: a saved check rendered again, identical to what check printed."""

from __future__ import annotations

from pathlib import Path

from support import perfguard

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "check"


def test_report_prints_the_table_and_writes_the_markdown_check_did(tmp_path):
    cand, cfg = EXAMPLE / "cand.json", EXAMPLE / "perfguard.yml"
    saved = perfguard("check", cand, "-c", cfg, "--json", cwd=tmp_path)
    assert saved.returncode == 1  # the example holds a regression
    (tmp_path / "v.json").write_text(saved.stdout, encoding="utf-8")
    shown = perfguard("check", cand, "-c", cfg, "--markdown", tmp_path / "m1.md", cwd=tmp_path)
    again = perfguard("report", "v.json", "--current", cand, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout == shown.stdout
    # without the measurements the saved verdicts hold no units: the same table without them
    bare = perfguard("report", "v.json", cwd=tmp_path)
    assert " s │" in shown.stdout and " s │" not in bare.stdout

    def words(text: str) -> list[str]:
        return [line for line in text.splitlines() if line[:1] not in "┏┃┡│└"]

    assert words(bare.stdout) == words(shown.stdout)
    md = perfguard(
        "report", "v.json", "--markdown", "m2.md", "--current", cand, "-b", EXAMPLE / "base.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert md.returncode == 0, md.stderr
    assert (tmp_path / "m2.md").read_text() == (tmp_path / "m1.md").read_text()


def test_report_refuses_a_missing_or_invalid_file_with_exit_2(tmp_path):
    missing = perfguard("report", tmp_path / "nope.json")
    assert missing.returncode == 2 and "nope.json: cannot read" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "perfguard/verdicts@1", "kernels": [{"kernel": 1}]}')
    invalid = perfguard("report", bad)
    assert invalid.returncode == 2 and "kernels[0]" in invalid.stderr
    assert "Traceback" not in invalid.stderr
