"""pytest-benchmark run for real (a test dependency), its JSON fed to ``model`` and ``check``.

The benchmarks keep over 1,024 rounds a point, where the median's interval overflowed a
float; ``model`` must exit 0, ``check`` 0 or 1 by its verdict, neither with a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support import perfguard

SUM = """
import pytest

SIZES = [2**k for k in range(4, 10)]


@pytest.mark.parametrize("n", SIZES)
def test_sum(benchmark, n):
    data = list(range(n))
    benchmark(sum, data)
"""
BENCHMARKS = (
    SUM
    + """

@pytest.mark.parametrize("order", ["ascending", "descending"])
@pytest.mark.parametrize("n", SIZES)
def test_sorted(benchmark, n, order):
    data = list(range(n)) if order == "ascending" else list(range(n, 0, -1))
    benchmark(sorted, data)
"""
)
KERNELS = {"test_sum", "test_sorted[order=ascending]", "test_sorted[order=descending]"}
ROUNDS = 1100


def python(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    # The outer run's options and xdist worker are not the inner run's (pytest-benchmark
    # turns itself off when it sees PYTEST_XDIST_WORKER).
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}
    env.pop("PYTEST_ADDOPTS", None)
    env["COLUMNS"] = "200"
    return subprocess.run(
        [sys.executable, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def benchmark_json(tmp_path: Path, source: str, *options: str) -> Path:
    """pytest-benchmark's JSON of the benchmarks ``source``, run for real."""
    (tmp_path / "test_live.py").write_text(source, encoding="utf-8")
    out = tmp_path / "pb.json"
    run = python(
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "test_live.py",
        f"--benchmark-json={out}",
        "--benchmark-max-time=0.0001",
        *options,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def test_live_pytest_benchmark_json_is_modelled_and_checked(tmp_path: Path) -> None:
    out = benchmark_json(
        tmp_path, BENCHMARKS, f"--benchmark-min-rounds={ROUNDS}", "--benchmark-disable-gc"
    )
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert len(doc["benchmarks"]) == 18
    assert all(len(b["stats"]["data"]) >= ROUNDS for b in doc["benchmarks"])

    model = perfguard("model", out, "--json", cwd=tmp_path)
    assert model.returncode == 0, model.stderr
    models = json.loads(model.stdout)["models"]
    assert {m["kernel"] for m in models} == KERNELS

    check = perfguard("check", out, "--expect", "*=<= n log n", "--json", cwd=tmp_path)
    assert "Traceback" not in check.stderr
    verdicts = json.loads(check.stdout)
    assert check.returncode == (1 if verdicts["status"] == "fail" else 0), check.stderr
    assert {k["kernel"] for k in verdicts["kernels"]} == KERNELS


SESSION = (
    SUM
    + """

def test_startup(benchmark):
    benchmark(sum, [])


@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize("n", [16, 32, 64])
def test_grid(benchmark, n, k):
    benchmark(sum, list(range(n * k)))


@pytest.mark.parametrize(("n", "k"), [(16, 1), (32, 2)])
def test_zip(benchmark, n, k):
    benchmark(sum, list(range(n * k)))
"""
)


def test_live_session_file_checks_what_it_can_and_says_what_it_left_out(tmp_path: Path) -> None:
    # A user's whole suite in one --benchmark-json: an unparametrized benchmark, a grid over
    # n and k, and a zipped (n, k) beside the sized ones; no refusal (exit 2), the grid
    # modelled per k, a note for each group.
    out = benchmark_json(tmp_path, SESSION)
    assert len(json.loads(out.read_text(encoding="utf-8"))["benchmarks"]) == 18

    model = perfguard("model", out, "--json", cwd=tmp_path)
    assert model.returncode == 0, model.stderr
    grid = [f"test_grid[k={k}]" for k in (1, 2, 4)]
    assert [m["kernel"] for m in json.loads(model.stdout)["models"]] == ["test_sum", *grid]
    assert "left out 1 benchmark without a numeric parameter" in model.stderr
    assert "left out 2 benchmarks measured over n, k (test_zip)" in model.stderr
    assert "test_grid measured over n, k: modelled over n" in model.stderr

    check = perfguard("check", out, "--expect", "*=<= n log n", "--json", cwd=tmp_path)
    assert "Traceback" not in check.stderr
    verdicts = json.loads(check.stdout)
    assert check.returncode == (1 if verdicts["status"] == "fail" else 0), check.stderr
    assert sorted(k["kernel"] for k in verdicts["kernels"]) == [*grid, "test_sum"]
    assert [n.split(": ", 1)[1][:40] for n in verdicts["notes"]] == [
        "left out 1 benchmark without a numeric p",
        "left out 2 benchmarks measured over n, k",
        "test_grid measured over n, k: modelled o",
    ]
