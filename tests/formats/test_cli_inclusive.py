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
from support import Ran, perfguard

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


def complexities(done: Ran) -> dict[str, str]:
    assert done.returncode == 0, done.stderr
    return {m["kernel"]: m["complexity"] for m in json.loads(done.stdout)["models"]}


def test_model_reads_inclusive_values_when_asked(tmp_path: Path) -> None:
    root = experiment(tmp_path / "exp")
    exclusive = complexities(perfguard("model", root, "--json"))
    inclusive = complexities(perfguard("model", root, "--json", "--inclusive"))
    assert exclusive == {"main": "O(1)", "main->solve": "O(p)"}
    assert inclusive == {"main": "O(p)", "main->solve": "O(p)"}


def test_check_reads_inclusive_values_when_asked(tmp_path: Path) -> None:
    root = experiment(tmp_path / "exp")
    assert perfguard("check", root, "--expect", "main=O(1)").returncode == 0
    done = perfguard("check", root, "--expect", "main=O(1)", "--inclusive")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "main" in done.stdout


def test_inclusive_on_a_file_is_a_usage_error(tmp_path: Path) -> None:
    text = tmp_path / "m.txt"
    text.write_text("PARAMETER n\nPOINTS 1 2 3 4 5\nDATA 1\nDATA 2\nDATA 3\nDATA 4\nDATA 5\n")
    done = perfguard("model", text, "--inclusive")
    assert done.returncode == 2
    assert "--inclusive applies to folders of Score-P experiments" in done.stderr
    assert "Traceback" not in done.stderr
