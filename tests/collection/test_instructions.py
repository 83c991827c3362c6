"""metric: instructions counted by real valgrind: only the timed call, exactly, and clear
errors when nothing can count.

Valgrind runs programs 20-100x slower, so the sizes here are tiny and the callgrind
workers are shared by the tests of this module. Without valgrind these tests skip,
unless PERFGUARD_VALGRIND_REQUIRED=1 (set by .ci/run, which installs it).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from support import Ran, perfguard

from guard.collection.counters import CounterChoice, read_dump_total
from guard.collection.executors import CallableExecutor, CommandExecutor, ExecutionError
from guard.collection.spec import BenchmarkSpec

PY = sys.executable
HAVE_VALGRIND = shutil.which("valgrind") is not None
needs_valgrind = pytest.mark.skipif(
    not HAVE_VALGRIND and os.environ.get("PERFGUARD_VALGRIND_REQUIRED") != "1",
    reason="valgrind is not installed (apt-get install valgrind)",
)

BENCHES = textwrap.dedent(
    """
    import random

    def build(n):
        # A heavy setup next to the O(n) timed call: sorting 20,000 random floats.
        rng = random.Random(1)
        sorted(rng.random() for _ in range(20000))
        return list(range(n))

    def linear(n):
        data = list(range(n))
        return lambda: sum(data)

    def heavy_setup(n):
        data = build(n)
        return lambda: sum(data)

    def setup_only(n):
        return lambda: build(n)

    def uses_ctypes(n):
        import ctypes
        ctypes.CDLL(None).abs(-n)  # ctypes in the setup, outside the marker
        buffer = ctypes.create_string_buffer(n)
        return lambda: ctypes.memset(buffer, 0, n)  # and in the timed call
    """
)
SIZES = (1000, 2000, 4000, 8000)


def spec(target, folder: Path, kind: str = "callable", shell: bool = False, counter="auto"):
    return BenchmarkSpec(
        name=f"{kind}:{target}",
        kind=kind,  # type: ignore[arg-type]
        target=target,
        shell=shell,
        metric="instructions",
        unit="instructions",
        repetitions=1,
        timeout=120,
        warmup=1,
        parameters=("n",),
        points=tuple((float(n),) for n in SIZES),
        folder=folder,
        instruction_counter=counter,
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("instructions")
    (path / "benches.py").write_text(BENCHES)
    return path


@pytest.fixture(scope="module")
def counts(folder: Path) -> Iterator[dict[str, list[float]]]:
    """Each callable at every size, twice at the largest, from one executor's workers."""
    if not HAVE_VALGRIND:
        pytest.fail("valgrind is required here: apt-get install valgrind")
    executor = CallableExecutor()
    try:
        out = {}
        for name in ("linear", "heavy_setup", "setup_only"):
            bench = spec(f"benches:{name}", folder)
            out[name] = [executor.measure(bench, (float(n),), 1) for n in (*SIZES, SIZES[-1])]
        yield out
    finally:
        executor.close()


@needs_valgrind
def test_an_o_n_callable_counts_grow_linearly(counts: dict[str, list[float]]) -> None:
    values = np.array(counts["linear"][: len(SIZES)])
    slope, intercept = np.polyfit(SIZES, values, 1)
    residuals = values - (slope * np.array(SIZES) + intercept)
    assert 5 < slope < 500  # instructions per element added by sum()
    assert np.max(np.abs(residuals)) < 0.005 * values.max()  # a straight line
    assert 0 <= intercept < 0.2 * values[0]  # only the call's own constant remains


@needs_valgrind
def test_a_heavy_setup_is_not_counted(counts: dict[str, list[float]]) -> None:
    setup = counts["setup_only"][0]
    assert setup > 1e6  # what building the input costs when it is what is timed
    for light, heavy in zip(counts["linear"], counts["heavy_setup"]):
        # the same timed call, the same count but for the allocator's state after the
        # setup: a few hundred instructions (291 of 213,347 seen in CI, 0.14%)
        assert abs(heavy - light) <= 0.005 * light
        assert heavy < setup / 50


@needs_valgrind
def test_repeated_counts_agree_within_and_across_workers(
    folder: Path, counts: dict[str, list[float]]
) -> None:
    # The allocator's state differs a little between calls (a fresh pool, a free list):
    # a few hundred instructions, under 1% of this tiny call.
    again = counts["linear"][-1]
    assert abs(again - counts["linear"][len(SIZES) - 1]) <= 0.01 * again
    fresh = CallableExecutor()
    try:
        other = fresh.measure(spec("benches:linear", folder), (float(SIZES[0]),), 1)
    finally:
        fresh.close()
    assert abs(other - counts["linear"][0]) <= 0.01 * other


@needs_valgrind
def test_ctypes_in_the_setup_and_in_the_timed_call_is_counted(folder: Path) -> None:
    executor = CallableExecutor()
    try:
        bench = spec("benches:uses_ctypes", folder)
        sizes = (1 << 12, 1 << 14, 1 << 16)
        small, middle, large = (executor.measure(bench, (float(n),), 1) for n in sizes)
    finally:
        executor.close()
    # memset's work inside the call grows linearly with the bytes, above ctypes' constant.
    assert large - middle > 1 << 14
    assert 3.6 < (large - middle) / (middle - small) < 4.4


@needs_valgrind
def test_a_shell_command_is_counted_whole_and_exactly(tmp_path: Path) -> None:
    loop = 'i=0; while [ "$i" -lt {n} ]; do i=$((i+1)); done'
    bench = spec(loop, tmp_path, kind="command", shell=True, counter="valgrind")
    executor = CommandExecutor()
    small, again = (executor.measure(bench, (100.0,), 0) for _ in range(2))
    large = executor.measure(bench, (1000.0,), 0)
    assert small == again  # the same process, the same instructions
    assert large - small > 900 * 10  # every iteration of the loop counts


def test_a_missing_valgrind_is_named_with_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # neither perf nor valgrind can be found
    choice = CounterChoice()
    for kind, requested in (("command", "auto"), ("command", "valgrind"), ("callable", "auto")):
        with pytest.raises(ExecutionError, match=r"install valgrind \(apt-get install valgrind\)"):
            choice.choose(requested, kind)
    assert not choice.perf_counts()


def test_perf_is_used_only_where_it_counts() -> None:
    choice = CounterChoice()
    if HAVE_VALGRIND:
        expected = "perf" if choice.perf_counts() else "valgrind"
        assert choice.choose("auto", "command") == expected
        assert choice.choose("auto", "callable") == "valgrind"
    assert choice.choose("perf", "command") == "perf"  # forced: its own error if it cannot


def test_a_count_file_without_a_total_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "c").write_text("events: Ir\nsummary: 1234\n")
    assert read_dump_total(tmp_path / "c") == 1234
    (tmp_path / "c").write_text("events: Ir\n")
    with pytest.raises(ExecutionError, match="no total"):
        read_dump_total(tmp_path / "c")


# ---------------------------------------------------------------- end to end


def write_project(tmp_path: Path, run: str = "") -> Path:
    (tmp_path / "benches.py").write_text(BENCHES)
    config = tmp_path / "perfguard.yml"
    config.write_text(
        textwrap.dedent(
            """\
            version: 1
            parameters:
              n: [4000, 8000, 16000, 32000, 64000]
            run:
              budget: 200
              timeout: 120
            benchmarks:
              total:
                callable: "benches:heavy_setup"
                metric: instructions
                expect: "<= n"
            """
        ).replace("timeout: 120", "timeout: 120" + run)
    )
    return config


def run_cli(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> Ran:
    return perfguard(*args, cwd=cwd, env=env)


@needs_valgrind
def test_perfguard_run_counts_a_callable_and_check_finds_o_n(tmp_path: Path) -> None:
    write_project(tmp_path)
    done = run_cli(["run", "-o", "m.json"], tmp_path)
    assert done.returncode == 0, done.stderr
    kernel = json.loads((tmp_path / "m.json").read_text())["kernels"][0]
    assert kernel["metric"] == "instructions" and len(kernel["points"]) == 5
    for point in kernel["points"]:
        values = point["values"]
        assert len(values) == 3  # auto stops at the minimum: the spread is far below target
        assert max(values) - min(values) <= 0.01 * max(values)
    check = run_cli(["check", "m.json", "--json"], tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    verdict = json.loads(check.stdout)["kernels"][0]
    assert verdict["verdict"] == "pass", verdict
    assert verdict["model"]["complexity"] == "O(n)"  # the setup's sort left no trace


def test_neither_counter_is_a_run_error_with_exit_3(tmp_path: Path) -> None:
    write_project(tmp_path)
    bare = tmp_path / "bin"
    bare.mkdir()
    done = run_cli(["run", "-o", "m.json"], tmp_path, env={"PATH": str(bare)})
    assert done.returncode == 3, done.stderr
    lines = {x for x in done.stderr.splitlines() if "install valgrind" in x}
    assert len(lines) == 1 and "Traceback" not in done.stderr  # one message (shown twice)


def test_perf_for_a_callable_is_a_config_error(tmp_path: Path) -> None:
    config = write_project(tmp_path, run="\n  instruction_counter: perf")
    done = run_cli(["run", "-o", "m.json"], tmp_path)
    assert done.returncode == 2
    assert f"{config.name}:" in done.stderr and "run.instruction_counter: valgrind" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_an_unknown_counter_names_the_choices(tmp_path: Path) -> None:
    write_project(tmp_path, run="\n  instruction_counter: papi")
    done = run_cli(["run", "-o", "m.json"], tmp_path)
    assert done.returncode == 2
    assert "run.instruction_counter" in done.stderr and "auto, perf, valgrind" in done.stderr


def test_forced_perf_counts_or_says_to_use_valgrind(tmp_path: Path) -> None:
    bench = spec(["true"], tmp_path, kind="command", counter="perf")
    executor = CommandExecutor()
    if executor.counters.perf_counts():
        assert executor.measure(bench, (1.0,), 0) > 0
    else:
        with pytest.raises(ExecutionError, match="set run.instruction_counter: valgrind"):
            executor.measure(bench, (1.0,), 0)
