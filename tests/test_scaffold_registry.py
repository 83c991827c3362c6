"""perfguard init's project kinds: one detector each, registered, the strongest finding wins."""

from __future__ import annotations

from pathlib import Path

import pytest

from guard.scaffold import detect_project
from guard.scaffold.detect import BENCHMARKS, Detector, Finding, kinds, register

PLAIN = {"README.md": "# demo\n"}
TESTS_ONLY = {
    "tests/test_perf.py": (
        "import pytest\n\n"
        '@pytest.mark.parametrize("n", [256, 1024, 4096, 16384, 65536])\n'
        "def test_sort(benchmark, n):\n"
        "    pass\n"
    )
}
DEPENDENCY_ONLY = {"requirements.txt": "pytest-benchmark>=4\n"}
ASV = {
    "asv.conf.json": '{"version": 1, "benchmark_dir": "benchmarks"}',
    "benchmarks/bench.py": "def time_sum(n):\n    pass\n\ntime_sum.params = [1, 2, 4, 8, 16]\n",
}


def make(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    return root


def test_kinds_are_registered_in_precedence_order() -> None:
    assert kinds() == ["pytest-benchmark", "asv", "plain"]


def test_a_kind_registers_once() -> None:
    twin = Detector("asv", lambda root: Finding(BENCHMARKS), found_as="x", checks="y")
    with pytest.raises(ValueError, match="registered twice"):
        register(twin)
    assert kinds() == ["pytest-benchmark", "asv", "plain"]


@pytest.mark.parametrize(
    ("files", "kind", "too"),
    [
        pytest.param(PLAIN, "plain", False, id="nothing: plain"),
        pytest.param(DEPENDENCY_ONLY, "pytest-benchmark", False, id="a dependency beats plain"),
        pytest.param({**DEPENDENCY_ONLY, **ASV}, "asv", False, id="asv beats a hint"),
        pytest.param({**TESTS_ONLY, **ASV}, "pytest-benchmark", True, id="tests win"),
    ],
)
def test_the_strongest_finding_wins(tmp_path: Path, files: dict, kind: str, too: bool) -> None:
    project = detect_project(make(tmp_path, files))
    assert project.kind == kind
    note = "asv.conf.json was found too; this scaffold checks the pytest-benchmark tests"
    assert (note in project.notes) is too
