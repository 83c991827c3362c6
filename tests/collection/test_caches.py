"""The machine's data cache sizes, recorded with the measurements (issue 16)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support import perfguard

from guard.collection.caches import SYSFS, cache_sizes, recorded_caches
from guard.collection.environment import machine_info


def _index(root: Path, i: int, level: str, kind: str, size: str) -> None:
    folder = root / f"index{i}"
    folder.mkdir(parents=True)
    (folder / "level").write_text(level + "\n")
    (folder / "type").write_text(kind + "\n")
    (folder / "size").write_text(size + "\n")


def _no_getconf(name: str) -> None:
    raise AssertionError(f"getconf asked for {name} although sysfs had every level")


def test_sysfs_levels_in_bytes_instruction_cache_left_out(tmp_path):
    _index(tmp_path, 0, "1", "Data", "48K")
    _index(tmp_path, 1, "1", "Instruction", "32K")
    _index(tmp_path, 2, "2", "Unified", "2048K")
    _index(tmp_path, 3, "3", "Unified", "32M")
    got = cache_sizes(tmp_path, getconf=_no_getconf)
    assert got == {"L1d": 48 << 10, "L2": 2 << 20, "L3": 32 << 20}


def test_getconf_fills_only_what_sysfs_lacks_and_absent_levels_are_omitted(tmp_path):
    _index(tmp_path, 0, "1", "Data", "32K")
    asked = []

    def getconf(name: str) -> str | None:
        asked.append(name)
        return {"LEVEL2_CACHE_SIZE": "1048576", "LEVEL3_CACHE_SIZE": "0"}.get(name)

    got = cache_sizes(tmp_path, getconf=getconf)
    assert got == {"L1d": 32 << 10, "L2": 1 << 20}  # L3 "0": unknown, not recorded
    assert asked == ["LEVEL2_CACHE_SIZE", "LEVEL3_CACHE_SIZE"]


def test_nothing_reported_is_an_empty_mapping(tmp_path):
    _index(tmp_path, 0, "1", "Data", "garbage")
    assert cache_sizes(tmp_path / "missing", getconf=lambda name: None) == {}
    assert cache_sizes(tmp_path, getconf=lambda name: "") == {}


@pytest.mark.skipif(not SYSFS.is_dir(), reason="no sysfs cache information on this machine")
def test_this_machine_records_what_its_sysfs_says():
    caches = machine_info()["caches"]
    level = (SYSFS / "index0" / "level").read_text().strip()
    assert level == "1" and caches["L1d"] > 0
    assert list(caches) == [k for k in ("L1d", "L2", "L3") if k in caches]


def test_recorded_caches_reads_back_and_ignores_what_is_not_a_size():
    machine = {"caches": {"L1d": 32768, "L2": "1M", "L3": True, "L4": 5}}
    assert recorded_caches(machine) == {"L1d": 32768}
    assert recorded_caches({"caches": [1, 2]}) == {}
    assert recorded_caches({}) == {}


def test_a_run_file_carries_the_caches(tmp_path):
    (tmp_path / "value.py").write_text("import sys\nprint(int(sys.argv[1]))\n")
    (tmp_path / "perfguard.yml").write_text(
        "version: 1\nparameters:\n  n: [8, 16, 32, 64, 128]\nrun:\n  budget: 30\n"
        "benchmarks:\n  linear:\n"
        f"    command: ['{sys.executable}', 'value.py', '{{n}}']\n"
        "    metric: custom\n    repetitions: 2\n    warmup: 0\n"
    )
    out = tmp_path / "m.json"
    done = perfguard("run", "-c", tmp_path / "perfguard.yml", "-o", out)
    assert done.returncode == 0, done.stderr
    machine = json.loads(out.read_text())["run"]["machine"]
    assert recorded_caches(machine) == cache_sizes()
    assert machine.get("caches") or not SYSFS.is_dir()
