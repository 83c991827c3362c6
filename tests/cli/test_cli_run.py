"""`perfguard run` and `perfguard merge` end to end: real config files, benchmarks run as real
subprocesses by the executors, the CLI itself in process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support import perfguard

from guard.errors import UsageError
from guard.formats import load
from guard.measurements import Kernel, MeasurementSet, Point, RunInfo

PY = sys.executable

# A deterministic benchmark: its "custom" value is a known function of n, so the
# measurements of different runs can be compared value for value.
VALUE = textwrap.dedent(
    """
    import sys
    n, power = int(sys.argv[1]), float(sys.argv[2])
    print(n ** power)
    """
)
HANG = textwrap.dedent(
    """
    import os, pathlib, sys, time
    n = int(sys.argv[1])
    if n >= 64:
        pathlib.Path("hanging").write_text(str(os.getpid()))
        time.sleep(60)
    print(n)
    """
)


def project(tmp_path: Path, benchmarks: str, run: str = "budget: 60") -> Path:
    (tmp_path / "value.py").write_text(VALUE)
    (tmp_path / "hang.py").write_text(HANG)
    config = tmp_path / "perfguard.yml"
    config.write_text(
        "version: 1\nparameters:\n  n: [8, 16, 32, 64, 128, 256]\n"
        f"run:\n  {run}\nbenchmarks:\n" + textwrap.indent(textwrap.dedent(benchmarks), "  ")
    )
    return config


CUSTOM = f"""
linear:
  command: ["{PY}", "value.py", "{{n}}", "1"]
  metric: custom
  repetitions: 2
  warmup: 0
square:
  command: ["{PY}", "value.py", "{{n}}", "2"]
  metric: custom
  repetitions: 2
  warmup: 0
root:
  command: ["{PY}", "value.py", "{{n}}", "0.5"]
  metric: custom
  repetitions: 2
  warmup: 0
"""


def test_run_writes_measurements_that_check_reads(tmp_path: Path) -> None:
    config = project(tmp_path, CUSTOM)
    out = tmp_path / "m.json"
    done = perfguard("run", "-c", config, "-o", out)
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    assert doc["schema"] == "perfguard/measurements@1"
    assert doc["parameters"] == ["n"]
    assert {"commit", "machine", "started"} <= set(doc["run"]) or "machine" in doc["run"]
    assert doc["run"]["machine"]["cores"] == os.cpu_count()
    mset = load(out)
    square = mset.kernel("square", "custom")
    assert [p.at[0] for p in square.points] == [8, 16, 32, 64, 128, 256]
    assert all(p.values == (p.at[0] ** 2,) * 2 for p in square.points)
    assert "wrote 3 kernels" in done.stderr
    checked = perfguard("check", out, "--expect", "square=<= n", "--expect", "*=<= n")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "fail" in checked.stdout and "square" in checked.stdout


def test_hanging_and_crashing_benchmarks_are_reported_and_exit_3(tmp_path: Path) -> None:
    config = project(
        tmp_path,
        CUSTOM
        + f"""
hangs:
  command: ["{PY}", "hang.py", "{{n}}"]
  metric: custom
  timeout: 1
crashes:
  command: ["{PY}", "-c", "import sys; sys.exit('cannot parse n={{n}}')"]
""",
    )
    out = tmp_path / "m.json"
    done = perfguard("run", "-c", config, "-o", out)
    assert done.returncode == 3, done.stderr
    assert "timeout hangs at n=64: killed after the 1 s timeout" in done.stderr
    assert "crash crashes at n=8: exit code 1: cannot parse n=8" in done.stderr
    mset = load(out)
    assert {k.name for k in mset.kernels} == {"linear", "square", "root", "hangs"}
    assert [p.at[0] for p in mset.kernel("hangs", "custom").points] == [8, 16, 32]
    kinds = {e.benchmark: e.kind for e in mset.run.errors}
    assert kinds == {"hangs": "timeout", "crashes": "crash"}
    assert len(mset.kernel("square", "custom").points) == 6  # the others went on


def test_interrupt_leaves_a_valid_file_with_what_was_measured(tmp_path: Path) -> None:
    config = project(
        tmp_path,
        f"""
hangs:
  command: ["{PY}", "hang.py", "{{n}}"]
  metric: custom
  timeout: 100
  warmup: 0
""",
    )
    out = tmp_path / "m.json"
    proc, marker = run_until_it_hangs(config, out)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "interrupted; kept 1 kernel in" in stderr
    mset = load(out)
    assert mset.run.interrupted
    assert [p.at[0] for p in mset.kernel("hangs", "custom").points] == [8, 16, 32]
    # the command it cut short (in a session of its own) does not outlive it
    pid = int(marker.read_text())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), f"the interrupted benchmark (pid {pid}) is still running"


def run_until_it_hangs(config: Path, out: Path) -> tuple[subprocess.Popen[str], Path]:
    """``perfguard run`` as a real process, returned once its benchmark wrote the file
    ``hanging`` (its pid) beside the config and sleeps."""
    proc = subprocess.Popen(
        [PY, "-m", "guard.cli", "run", "-c", str(config), "-o", str(out)],
        cwd=config.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        # A shell without job control ("cmd &", nohup) starts its children with SIGINT
        # ignored, and Python then never raises KeyboardInterrupt: give it back.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    marker = config.parent / "hanging"
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), "the benchmark never reached its hanging size"
    return proc, marker


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_shards_merged_equal_one_run(tmp_path: Path) -> None:
    config = project(tmp_path, CUSTOM)
    whole = tmp_path / "whole.json"
    assert perfguard("run", "-c", config, "-o", whole).returncode == 0
    shards = []
    for i in (1, 2):
        shard = tmp_path / f"shard{i}.json"
        done = perfguard("run", "-c", config, "-o", shard, "--shard", f"{i}/2")
        assert done.returncode == 0, done.stderr
        shards.append(shard)
    assert {k.name for k in load(shards[0]).kernels} == {"linear", "root"}
    assert {k.name for k in load(shards[1]).kernels} == {"square"}
    merged = tmp_path / "merged.json"
    done = perfguard("merge", *shards, "-o", merged)
    assert done.returncode == 0, done.stderr
    assert "merged 2 files: 3 kernels, 18 points" in done.stderr
    one, joined = load(whole), load(merged)
    assert joined.parameters == one.parameters
    assert sorted(joined.kernels, key=lambda k: k.name) == sorted(one.kernels, key=lambda k: k.name)
    assert joined.run.commit == one.run.commit


def test_merge_refuses_different_parameters(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text('{"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": []}')
    b.write_text('{"schema": "perfguard/measurements@1", "parameters": ["p"], "kernels": []}')
    done = perfguard("merge", a, b, "-o", tmp_path / "c.json")
    assert done.returncode == 2
    assert "has parameters (p) but" in done.stderr
    assert not (tmp_path / "c.json").exists()


def test_merge_refuses_the_same_file_twice(tmp_path: Path) -> None:
    """Pooling a shard with itself (given twice, or downloaded twice under two names) would
    count every repetition twice: a noise of zero and verdicts far too sure."""
    a = tmp_path / "a.json"
    a.write_text(
        '{"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": [{"name": "k",'
        ' "metric": "time", "points": [{"at": {"n": 1}, "values": [1.0, 1.1]}]}]}'
    )
    copy = tmp_path / "copy.json"
    copy.write_bytes(a.read_bytes())
    for twice in ((a, a), (a, copy)):
        done = perfguard("merge", *twice, "-o", tmp_path / "m.json")
        assert done.returncode == 2
        assert f"{twice[0]} and {twice[1]} are the same measurements" in done.stderr
        assert not (tmp_path / "m.json").exists()


def test_merge_refuses_a_file_that_holds_anothers_measurements(tmp_path: Path) -> None:
    """A merged file beside one of its shards (a re-run job), or a reformatted copy, counted
    every repetition twice: only byte-identical files were caught."""
    from guard.collection.merge import merge_sets

    def mset(values: tuple[float, ...], commit: str = "c" * 40, dirty: bool | None = None):
        points = (Point((1.0,), values), Point((2.0,), tuple(2 * v for v in values)))
        run = RunInfo(commit=commit, dirty=dirty)
        return MeasurementSet(("n",), (Kernel("k", "time", points),), run)

    shard, other = mset((1.0, 1.1)), mset((1.05, 1.2))
    merged = merge_sets([("s1.json", shard), ("s2.json", other)])
    with pytest.raises(UsageError, match="s1.json repeats merged.json's measurements of k"):
        merge_sets([("merged.json", merged), ("s1.json", shard)])
    assert len(merged.kernels[0].points[0].values) == 4  # two real runs still pool
    # a clean and a dirty run of one commit are two source trees
    with pytest.raises(UsageError, match="with and without uncommitted changes"):
        merge_sets([("a.json", mset((1.0,), dirty=False)), ("b.json", mset((1.3,), dirty=True))])


def test_merge_pools_two_runs_of_a_deterministic_count() -> None:
    """Two runs of a count agree at every point by nature: they were refused as a copy, and
    two commits' counts were refused for it rather than for their commits."""
    from guard.collection.merge import merge_sets

    def mset(commit: str, started: str) -> MeasurementSet:
        points = (Point((1.0,), (7.0, 7.0)), Point((2.0,), (14.0, 14.0)))
        run = RunInfo(commit=commit, started=started)
        return MeasurementSet(("n",), (Kernel("k", "custom", points),), run)

    first, second = (
        mset("c" * 40, "2026-11-26T17:25:20+00:00"),
        mset("c" * 40, "2026-11-26T17:26:00+00:00"),
    )
    merged = merge_sets([("a.json", first), ("b.json", second)])
    assert merged.kernels[0].points[0].values == (7.0, 7.0, 7.0, 7.0)
    with pytest.raises(UsageError, match="measured different commits"):
        merge_sets([("a.json", first), ("b.json", mset("d" * 40, "2026-11-26T17:26:00+00:00"))])


def test_merge_says_what_a_tools_session_file_left_out(tmp_path: Path) -> None:
    bench = [
        {"name": f"test_sum[{n}]", "params": {"n": n}, "stats": {"median": n * 1e-9}}
        for n in (256, 512)
    ] + [{"name": "test_startup", "params": None, "stats": {"median": 1e-6}}]
    source = tmp_path / "pb.json"
    source.write_text(json.dumps({"machine_info": {}, "benchmarks": bench}))
    done = perfguard("merge", source, "-o", tmp_path / "m.json")
    assert done.returncode == 0, done.stderr
    assert "left out 1 benchmark without a numeric parameter" in done.stderr
    assert "(test_startup)" in done.stderr
    assert "merged 1 file: 1 kernel, 2 points" in done.stderr


def test_merge_refuses_different_commits(tmp_path: Path) -> None:
    docs = []
    for name, commit in (("a", "1" * 40), ("b", "2" * 40)):
        path = tmp_path / f"{name}.json"
        path.write_text(
            json.dumps(
                {
                    "schema": "perfguard/measurements@1",
                    "parameters": ["n"],
                    "run": {"commit": commit},
                    "kernels": [],
                }
            )
        )
        docs.append(path)
    done = perfguard("merge", *docs, "-o", tmp_path / "c.json")
    assert done.returncode == 2
    assert "measured different commits" in done.stderr


def test_usage_and_config_errors_exit_2_before_running(tmp_path: Path) -> None:
    config = project(tmp_path, CUSTOM)
    bad = perfguard("run", "-c", config, "--shard", "3/2", "-o", tmp_path / "x.json")
    assert bad.returncode == 2 and "--shard wants i/N" in bad.stderr
    missing_folder = perfguard("run", "-c", config, "-o", tmp_path / "no" / "x.json")
    assert missing_folder.returncode == 2 and "does not exist" in missing_folder.stderr
    unknown = perfguard("run", "-c", config, "-k", "nope", "-o", tmp_path / "x.json")
    assert unknown.returncode == 2 and "no benchmark named 'nope'" in unknown.stderr
    placeholder = project(tmp_path, 'a:\n  command: "echo {size}"\n')
    done = perfguard("run", "-c", placeholder, "-o", tmp_path / "x.json")
    assert done.returncode == 2
    assert f"{placeholder}:8: benchmarks.a.command: unknown placeholder {{size}}" in done.stderr
    assert not (tmp_path / "x.json").exists()


def test_init_writes_a_config_that_run_accepts_and_refuses_to_overwrite(tmp_path: Path) -> None:
    done = perfguard("init", tmp_path)
    assert done.returncode == 0, done.stderr
    config = tmp_path / "perfguard.yml"
    assert config.is_file() and (tmp_path / ".github" / "workflows" / "perfguard.yml").is_file()
    from guard.config import load_config

    assert load_config(config).version == 1
    before = config.read_text()
    again = perfguard("init", tmp_path)
    assert again.returncode == 2
    assert "already exists; pass --force to overwrite" in again.stderr
    assert config.read_text() == before
    assert perfguard("init", tmp_path, "--force").returncode == 0
    assert perfguard("init", tmp_path / "missing").returncode == 2


def test_a_bound_with_a_typo_fails_before_anything_is_measured(tmp_path: Path) -> None:
    # `expect: "<= n lgo n"` measured the whole suite, then exited 2 at the check
    config = project(
        tmp_path,
        CUSTOM.replace("  metric: custom\n", '  metric: custom\n  expect: "<= n lgo n"\n', 1),
    )
    out = tmp_path / "m.json"
    done = perfguard("run", "-c", config, "-o", out)
    assert done.returncode == 2, done.stderr
    assert "unknown parameter 'lgo' at column 6" in done.stderr and "perfguard.yml:" in done.stderr
    assert not out.exists()


def test_an_output_symlink_is_written_through_not_replaced(tmp_path: Path) -> None:
    """-o link.json replaced the link with a file (and, as root, -o /dev/stdout replaced the
    system's /dev/stdout)."""
    source = tmp_path / "a.json"
    source.write_text(
        '{"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": [{"name": "k",'
        ' "metric": "time", "points": [{"at": {"n": 1}, "values": [1.0, 1.1]}]}]}'
    )
    real, link = tmp_path / "real.json", tmp_path / "link.json"
    real.write_text('{"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": []}')
    link.symlink_to(real)
    done = perfguard("merge", source, "-o", link)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and json.loads(real.read_text())["kernels"][0]["name"] == "k"


def test_a_symlink_into_a_missing_folder_is_refused_before_running(tmp_path: Path) -> None:
    """The run measured everything, then a FileNotFoundError traceback lost it."""
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "nodir" / "run.json")
    done = perfguard("run", "-c", project(tmp_path, CUSTOM), "-o", link)
    assert done.returncode == 2 and "nodir does not exist" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_benchmark_stopped_short_by_the_size_limit_is_named_once(tmp_path: Path) -> None:
    # "error slow at n=32: measured 3 of 6 sizes ..." during the run, then the same sentence
    # again as "too-few-sizes slow: ..." in the summary
    (tmp_path / "slow.py").write_text("import sys, time\ntime.sleep(int(sys.argv[1]) / 1000)\n")
    config = project(
        tmp_path,
        f'slow:\n  command: ["{PY}", "slow.py", "{{n}}"]\n  repetitions: 2\n  warmup: 0\n',
        "{budget: 60, size_limit: 0.05}",
    )
    done = perfguard("run", "-c", config, "-o", tmp_path / "m.json")
    assert done.returncode == 3, done.stderr
    assert done.stderr.count("are needed to tell classes apart") == 1
    assert "too-few-sizes slow: measured" in done.stderr


def test_merge_says_when_files_share_a_kernel(tmp_path: Path) -> None:
    # a shard uploaded twice by a retried matrix job doubled its repetitions without a word
    doc = (
        '{{"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": [{{"name": '
        '"k", "metric": "time", "points": [{{"at": {{"n": 1}}, "values": [{0}, 1.1]}}]}}]}}'
    )
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(doc.format(1.0))
    b.write_text(doc.format(1.05))
    done = perfguard("merge", a, b, "-o", tmp_path / "m.json")
    assert done.returncode == 0, done.stderr
    assert f"k (time) measured in {a} and {b}: their repetitions were joined" in done.stderr


def test_output_never_replaces_a_file_that_is_not_measurements(tmp_path: Path) -> None:
    """`-o` mixed up with `-c` wrote the measurements over perfguard.yml itself."""
    config = project(tmp_path, CUSTOM)
    before = config.read_text()
    done = perfguard("run", "-c", config, "-o", config)
    assert done.returncode == 2 and "not a perfguard measurements file" in done.stderr
    assert config.read_text() == before
    out = tmp_path / "m.json"  # an earlier run's file is replaced, as before
    assert perfguard("run", "-c", config, "-o", out).returncode == 0
    assert perfguard("run", "-c", config, "-o", out).returncode == 0
    merged = perfguard("merge", out, "-o", config)
    assert merged.returncode == 2 and config.read_text() == before
    blank = tmp_path / "blank.json"  # `echo > blank.json`: as good as empty
    blank.write_text("\n")
    assert perfguard("merge", out, "-o", blank).returncode == 0


def test_a_run_where_every_benchmark_failed_prints_no_empty_table(tmp_path: Path) -> None:
    config = project(tmp_path, 'missing:\n  command: ["no-such-program-perfguard", "{n}"]\n')
    done = perfguard("run", "-c", config, "-o", tmp_path / "m.json")
    assert done.returncode == 3
    assert "cannot start no-such-program-perfguard" in done.stderr
    assert "┏" not in done.stderr and "benchmark ┃" not in done.stderr


def test_two_interrupts_leave_no_callable_running_and_keep_the_file(tmp_path: Path) -> None:
    """Ctrl-C twice: the first waited a second for a busy worker to end politely, the
    second cut that wait short -- the worker ran on (parent pid 1), the file was lost."""
    (tmp_path / "slow.py").write_text(
        textwrap.dedent(
            """
            import os, pathlib, time
            def kernel(n):
                def run():
                    if n >= 64:
                        pathlib.Path("hanging").write_text(str(os.getpid()))
                        time.sleep(60)
                return run
            """
        )
    )
    config = project(tmp_path, "slow:\n  callable: slow:kernel\n  timeout: 100\n  warmup: 0\n")
    out = tmp_path / "m.json"
    proc, marker = run_until_it_hangs(config, out)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    pid = int(marker.read_text())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), f"the interrupted worker (pid {pid}) is still running"
    assert load(out).run.interrupted  # what was measured is kept


def test_an_interrupted_process_ignores_a_further_ctrl_c_while_it_exits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a second Ctrl-C during teardown, after the first was handled and 130 chosen, killed
    # the process by SIGINT instead (seen under load as a returncode other than 130)
    from guard import cli

    before = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(cli, "app", lambda **kwargs: 130)
    monkeypatch.setattr(sys, "argv", ["perfguard", "run"])
    try:
        assert cli.main() == 130
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        signal.signal(signal.SIGINT, before)
        assert cli.main(["run"]) == 130  # called with arguments (embedded, tests): untouched
        assert signal.getsignal(signal.SIGINT) is before
    finally:
        signal.signal(signal.SIGINT, before)
