"""``--inclusive``: a call path's values with its callees', as Extra-P's CUBE reader offers.

Profiles written by ``cube_writer``: ``main`` spends a constant 0.1 s itself and calls
``solve``, which takes 0.01·p s. Exclusive (the default) ``main`` is flat; inclusive it
carries solve's growth. Files other than Score-P folders refuse the flag.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cube_writer import CubeMetric, write_cubex

from guard.cli import main

pytest.importorskip("pycubexr")


def experiment(root: Path) -> Path:
    for p in (2, 4, 8, 16, 32):
        for r in (1, 2, 3):
            solve = [0.01 * p * (1 + 0.002 * r + 0.001 * rank) for rank in range(p)]
            main = [0.1 + s for s in solve]  # stored inclusive, as Score-P stores time
            write_cubex(
                root / f"app.p{p}.r{r}" / "profile.cubex",
                {"main": {"solve": {}}},
                [CubeMetric("time", "INCLUSIVE")],
                {"time": {"main": main, "main->solve": solve}},
                p,
            )
    return root


def perfguard(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """The CLI's exit code, stdout and stderr (in this process: main() returns the code)."""
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def complexities(done: tuple[int, str, str]) -> dict[str, str]:
    code, out, err = done
    assert code == 0, err
    return {m["kernel"]: m["complexity"] for m in json.loads(out)["models"]}


def test_model_reads_inclusive_values_when_asked(tmp_path: Path, capsys) -> None:
    root = experiment(tmp_path / "exp")
    exclusive = complexities(perfguard(capsys, "model", root, "--json"))
    inclusive = complexities(perfguard(capsys, "model", root, "--json", "--inclusive"))
    assert exclusive == {"main": "O(1)", "main->solve": "O(p)"}
    assert inclusive == {"main": "O(p)", "main->solve": "O(p)"}


def test_check_reads_inclusive_values_when_asked(tmp_path: Path, capsys) -> None:
    root = experiment(tmp_path / "exp")
    assert perfguard(capsys, "check", root, "--expect", "main=O(1)")[0] == 0
    code, out, err = perfguard(capsys, "check", root, "--expect", "main=O(1)", "--inclusive")
    assert code == 1, out + err
    assert "main" in out


def test_inclusive_on_a_file_is_a_usage_error(tmp_path: Path, capsys) -> None:
    text = tmp_path / "m.txt"
    text.write_text("PARAMETER n\nPOINTS 1 2 3 4 5\nDATA 1\nDATA 2\nDATA 3\nDATA 4\nDATA 5\n")
    code, _, err = perfguard(capsys, "model", text, "--inclusive")
    assert code == 2
    assert "--inclusive applies to folders of Score-P experiments" in err
    assert "Traceback" not in err
