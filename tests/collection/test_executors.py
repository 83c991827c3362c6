"""Real subprocesses: commands and callable workers, their values, crashes and timeouts."""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest

from guard.collection.counters import read_perf
from guard.collection.executors import (
    CallableExecutor,
    CommandExecutor,
    ExecutionError,
    parse_custom_value,
)
from guard.collection.spec import BenchmarkSpec
from guard.collection.timing import calibrate_loops, measure_once, relative_uncertainty

PY = sys.executable


def command(target, folder: Path, metric: str = "custom", timeout: float = 20, shell=False):
    return BenchmarkSpec(
        name="b",
        kind="command",
        target=target,
        shell=shell,
        metric=metric,
        unit=None,
        repetitions=1,
        timeout=timeout,
        warmup=0,
        parameters=("n",),
        points=((8.0,),),
        folder=folder,
    )


def callable_spec(target: str, folder: Path, metric: str = "custom", timeout: float = 20):
    return BenchmarkSpec(
        name=target,
        kind="callable",
        target=target,
        shell=False,
        metric=metric,
        unit=None,
        repetitions=1,
        timeout=timeout,
        warmup=1,
        parameters=("n",),
        points=((8.0,),),
        folder=folder,
    )


def test_command_custom_value_gets_the_size_substituted(tmp_path: Path) -> None:
    spec = command(
        [PY, "-c", "import sys; print('log'); print(int(sys.argv[1]) ** 2)", "{n}"], tmp_path
    )
    assert CommandExecutor().measure(spec, (12.0,), 0) == 144.0


def test_command_string_is_split_without_a_shell(tmp_path: Path) -> None:
    spec = command(f'{PY} -c "import sys; print(len(sys.argv))" "a b" {{n}}', tmp_path)
    assert CommandExecutor().measure(spec, (3.0,), 0) == 3.0  # -c, "a b" and 3 stay apart


def test_shell_true_runs_through_a_shell(tmp_path: Path) -> None:
    spec = command("echo {n} | wc -c", tmp_path, shell=True)
    assert CommandExecutor().measure(spec, (1000.0,), 0) == 5.0


def test_command_runs_in_the_config_folder(tmp_path: Path) -> None:
    (tmp_path / "size.txt").write_text("41\n")
    spec = command([PY, "-c", "print(int(open('size.txt').read()) + 1)"], tmp_path)
    assert CommandExecutor().measure(spec, (1.0,), 0) == 42.0


@pytest.mark.parametrize("metric", ["time", "cpu", "memory"])
def test_command_metrics_are_positive(tmp_path: Path, metric: str) -> None:
    spec = command([PY, "-c", "x = [0] * 10**6; sum(x)"], tmp_path, metric=metric)
    value = CommandExecutor().measure(spec, (1.0,), 0)
    assert value > 0
    if metric == "memory":
        assert value > 8e6  # the list alone holds 8 MB


def test_crash_names_the_exit_code_and_stderr(tmp_path: Path) -> None:
    spec = command([PY, "-c", "import sys; sys.exit('bad input for n')"], tmp_path)
    with pytest.raises(ExecutionError) as info:
        CommandExecutor().measure(spec, (1.0,), 0)
    assert info.value.kind == "crash"
    assert str(info.value) == "exit code 1: bad input for n"


@pytest.mark.parametrize("metric", ["time", "memory"])  # memory: through the launcher
def test_a_hanging_command_is_killed_with_its_children_at_the_timeout(
    tmp_path: Path, metric: str
) -> None:
    pids = tmp_path / "pids"
    script = f"sleep 60 & echo $! > {pids}; echo $$ >> {pids}; wait"
    spec = command(script, tmp_path, metric=metric, timeout=0.5, shell=True)
    with pytest.raises(ExecutionError) as info:
        CommandExecutor().measure(spec, (1.0,), 0)
    assert info.value.kind == "timeout"
    assert "0.5 s timeout" in str(info.value)
    for pid in map(int, pids.read_text().split()):
        assert not _alive(pid), f"process {pid} survived the timeout"


def _alive(pid: int) -> bool:
    for _ in range(50):  # the kernel may need a moment to reap a killed grandchild
        try:
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().split(")")[-1].split()[0] == "Z":
                    return False
        except FileNotFoundError:
            return False
        time.sleep(0.02)
    return True


def test_a_missing_program_is_an_error(tmp_path: Path) -> None:
    spec = command(["no-such-program-perfguard", "{n}"], tmp_path)
    with pytest.raises(ExecutionError, match="cannot start no-such-program-perfguard 1"):
        CommandExecutor().measure(spec, (1.0,), 0)


@pytest.mark.parametrize(
    ("stdout", "value"),
    [("12\n", 12.0), ('noise\n{"value": 2.5}\n\n', 2.5), ("1e3", 1000.0)],
)
def test_custom_values(stdout: str, value: float) -> None:
    assert parse_custom_value(stdout) == value


@pytest.mark.parametrize("stdout", ["", "done\n", '{"v": 1}', "true"])
def test_bad_custom_values_say_what_to_print(stdout: str) -> None:
    with pytest.raises(ExecutionError, match="metric custom"):
        parse_custom_value(stdout)


@pytest.mark.parametrize("stdout", ["NaN\n", "Infinity", '{"value": -Infinity}', "-256\n"])
def test_custom_values_that_are_no_measurement_are_refused_when_measured(stdout: str) -> None:
    """json reads NaN and Infinity: they were stored (as null, Infinity lost), the run
    exited 0, and check later called them 'NaN' and 'did not run to the end'."""
    with pytest.raises(ExecutionError, match="finite number of 0 or more"):
        parse_custom_value(stdout)


def test_perf_output_is_parsed(tmp_path: Path) -> None:
    out = tmp_path / "perf"
    out.write_text("# started on Sat\n\n123456,,instructions:u,1000,100.00,,\n")
    assert read_perf(out) == 123456.0
    out.write_text("<not supported>,,instructions:u,0,100.00,,\n")
    with pytest.raises(ExecutionError, match="perf could not count instructions"):
        read_perf(out)


# ---------------------------------------------------------------- callables


@pytest.fixture()
def module(tmp_path: Path) -> Path:
    (tmp_path / "benches.py").write_text(
        textwrap.dedent(
            """
            import os, time
            def square(n):
                print("setup chatter on stdout")
                return lambda: n * n
            def broken(n):
                def run():
                    raise ValueError(f"no good at {n}")
                return run
            def hang(n):
                return lambda: time.sleep(60)
            def not_callable(n):
                return 42
            def die(n):
                return lambda: os._exit(7)
            def exits(n):
                def run():
                    raise SystemExit(4)
                return run
            def quick(n):
                data = list(range(n))
                return lambda: sum(data)
            """
        )
    )
    return tmp_path


def test_callable_values_come_from_a_worker(module: Path) -> None:
    executor = CallableExecutor()
    try:
        spec = callable_spec("benches:square", module)
        assert [executor.measure(spec, (n,), 0) for n in (3.0, 4.0, 3.0)] == [9.0, 16.0, 9.0]
        timed = callable_spec("benches:quick", module, metric="time")
        assert 0 < executor.measure(timed, (1000.0,), 1) < 1
    finally:
        executor.close()


def test_callable_exception_is_reported_as_a_crash(module: Path) -> None:
    executor = CallableExecutor()
    try:
        with pytest.raises(ExecutionError) as info:
            executor.measure(callable_spec("benches:broken", module), (5.0,), 0)
        assert info.value.kind == "crash"
        assert str(info.value) == "ValueError: no good at 5"
        with pytest.raises(ExecutionError, match="must return the zero-argument callable"):
            executor.measure(callable_spec("benches:not_callable", module), (5.0,), 0)
        with pytest.raises(ExecutionError, match="ModuleNotFoundError"):
            executor.measure(callable_spec("missing:thing", module), (5.0,), 0)
    finally:
        executor.close()


def test_a_hanging_callable_is_killed_at_the_timeout(module: Path) -> None:
    executor = CallableExecutor()
    spec = callable_spec("benches:hang", module, metric="time", timeout=0.5)
    try:
        with pytest.raises(ExecutionError) as info:
            executor.measure(spec, (5.0,), 0)
        assert info.value.kind == "timeout"
        assert executor.measure(callable_spec("benches:square", module), (2.0,), 0) == 4.0
    finally:
        executor.close()


def test_sys_exit_in_a_callable_is_a_crash_that_says_so(module: Path) -> None:
    """A benchmarked CLI main() whose argparse fails raises SystemExit: it read 'the
    worker was killed by SIGKILL'."""
    executor = CallableExecutor()
    try:
        with pytest.raises(ExecutionError) as info:
            executor.measure(callable_spec("benches:exits", module), (5.0,), 0)
        assert info.value.kind == "crash" and str(info.value).startswith("SystemExit(4)")
        assert executor.measure(callable_spec("benches:square", module), (2.0,), 0) == 4.0
    finally:
        executor.close()


def test_a_dying_worker_is_a_crash_with_its_exit_code(module: Path) -> None:
    executor = CallableExecutor()
    try:
        with pytest.raises(ExecutionError) as info:
            executor.measure(callable_spec("benches:die", module), (5.0,), 0)
        assert info.value.kind == "crash"
        assert str(info.value).startswith("the worker exited with code 7")
    finally:
        executor.close()


# ---------------------------------------------------------------- timing helpers


def test_loops_are_calibrated_to_the_minimum_time() -> None:
    loops = calibrate_loops(lambda: None, "time", 0.002)
    assert loops > 100
    assert calibrate_loops(lambda: None, "custom", 0.002) == 1
    assert measure_once(lambda: 7, "custom") == 7.0
    assert measure_once(lambda: bytearray(10**6), "memory") >= 10**6


def test_relative_uncertainty() -> None:
    assert relative_uncertainty([1.0]) == float("inf")
    assert relative_uncertainty([2.0, 2.0, 2.0]) == 0.0
    # two of three agreeing must not look certain
    assert relative_uncertainty([1.0, 1.0, 1.5]) > 0.1
    many = [1.0] * 10 + [100.0]  # one outlier in eleven barely moves the MAD estimate
    assert relative_uncertainty(many) == 0.0


def test_command_memory_is_the_commands_own_not_perfguards(tmp_path: Path) -> None:
    """Linux's ru_maxrss of a child includes the address space it was started from: a
    command smaller than perfguard read as perfguard (every size the same 40 MB).  With
    300 MB held here, a 20 MB command must read about 20 MB, and a missing program, a crash
    and a signal are still named."""
    held = bytearray(300 * 2**20)
    held[::4096] = b"\x01" * len(held[::4096])  # touched: resident

    def memory(target, size: float = 1.0, shell: bool = False) -> float:
        spec = command(target, tmp_path, metric="memory", shell=shell)
        return CommandExecutor().measure(spec, (size,), 0)

    script = "import sys; x = bytearray(int(sys.argv[1]) << 20); x[::4096] = b'1' * (len(x) >> 12)"
    small, large = memory([PY, "-c", script, "{n}"], 20), memory([PY, "-c", script, "{n}"], 80)
    assert 20 * 2**20 < small < 60 * 2**20, small
    assert 55 * 2**20 < large - small < 65 * 2**20, (small, large)
    shell = memory(f'{PY} -c "{script}" {{n}}', 20, shell=True)
    assert 20 * 2**20 < shell < 60 * 2**20, shell
    with pytest.raises(ExecutionError, match="cannot start no-such-program-perfguard 1"):
        memory(["no-such-program-perfguard", "{n}"])
    crash = "import sys; print('bad n', file=sys.stderr); sys.exit(3)"
    with pytest.raises(ExecutionError, match="exit code 3: bad n"):
        memory([PY, "-c", crash])
    with pytest.raises(ExecutionError, match="killed by SIGKILL"):
        memory([PY, "-c", "import os; os.kill(os.getpid(), 9)"])
    assert held[4096] == 1
