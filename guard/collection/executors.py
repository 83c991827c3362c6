"""Executing one repetition of a benchmark at one point: a real subprocess per command,
or a long-lived worker subprocess per in-process callable.

The runner talks to an ``Executor`` only (hyperfine's executor seam): tests inject a
fake one and the real ones stay small. Every execution is bounded by the benchmark's
timeout; a hanging command is killed with its whole process group, a crash becomes an
``ExecutionError`` that names the exit code or signal and the last line of stderr.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from ..defaults import MIN_TIME
from ..errors import ExecutionError
from .counters import (
    DUMP_ENV,
    CounterChoice,
    cachegrind_argv,
    callgrind_prefix,
    counting_environment,
    dump_base,
    perf_argv,
    read_cachegrind,
    read_perf,
)
from .spec import BenchmarkSpec, command_argv, keyword_arguments

__all__ = [
    "ExecutionError",
    "Executor",
    "CommandExecutor",
    "CallableExecutor",
    "RoutingExecutor",
    "parse_custom_value",
]


class Executor(Protocol):
    """Runs one repetition and returns its value in the metric's unit."""

    def measure(self, spec: BenchmarkSpec, point: tuple[float, ...], warmup: int) -> float: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class _Finished:
    status: int
    seconds: float
    cpu: float
    max_rss: int


# ---------------------------------------------------------------- commands


class CommandExecutor:
    """A real subprocess per repetition, in the config's folder, without a shell unless asked."""

    def __init__(self, counters: CounterChoice | None = None):
        self.counters = counters or CounterChoice()

    def measure(self, spec: BenchmarkSpec, point: tuple[float, ...], warmup: int) -> float:
        """Run ``warmup`` discarded executions, then one measured one."""
        for _ in range(warmup):
            self._execute(spec, point)
        return self._execute(spec, point)

    def close(self) -> None:
        """Nothing stays running between repetitions."""

    def _execute(self, spec: BenchmarkSpec, point: tuple[float, ...]) -> float:
        argv = command_argv(spec, point)
        counter = None
        if spec.metric == "instructions":
            counter = self.counters.choose(spec.instruction_counter, "command")
        with tempfile.TemporaryDirectory(prefix="perfguard-") as tmp:
            out_path, err_path = Path(tmp, "stdout"), Path(tmp, "stderr")
            counts = Path(tmp, "counts")
            counts.mkdir()
            if counter == "perf":
                argv = perf_argv(argv, counts / "perf", spec.shell)
            elif counter == "valgrind":
                argv = cachegrind_argv(argv, counts, spec.shell)
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                done = _run(argv, spec, out, err)
            if done.status != 0:
                raise ExecutionError("crash", _crash_message(done.status, err_path))
            if counter == "perf":
                return read_perf(counts / "perf")
            if counter == "valgrind":
                return read_cachegrind(counts)
            return _value(spec.metric, done, out_path)


_CREDENTIAL = re.compile(r"TOKEN|SECRET|PASSWORD|CREDENTIAL|PRIVATE_KEY", re.IGNORECASE)


def benchmark_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a benchmark runs with: everything but credentials.

    Benchmarks are the pull request's code.  Whatever holds a token -- GITHUB_TOKEN,
    GH_TOKEN, PERFGUARD_TOKEN, the action input INPUT_GITHUB-TOKEN, ACTIONS_RUNTIME_TOKEN
    and the OIDC request pair, any *SECRET* or *PASSWORD* -- every ACTIONS_* runner
    channel (cache, results and runtime URLs), and the files through which a step sets
    the next steps' environment, PATH, outputs and summary (GITHUB_ENV, GITHUB_PATH, ...:
    a benchmark writing BASH_ENV there would run code in the step that holds the token)
    are left out.  This is hygiene, not a wall: a benchmark runs as the same user as
    perfguard and can read its parent's environment; what keeps a token from a pull
    request's code is that the process measuring it holds none (docs/security.md).
    """
    return {
        name: value
        for name, value in environ.items()
        if not _CREDENTIAL.search(name)
        and not name.upper().startswith("ACTIONS_")
        and name.upper() not in _STEP_FILES
    }


# the runner's files a step writes to change later steps (environment, PATH, outputs)
_STEP_FILES = frozenset(
    ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY")
)


def _environment(metric: str) -> dict[str, str]:
    env = benchmark_environment(os.environ)
    return counting_environment(env) if metric == "instructions" else env


# Linux's peak memory of a process (ru_maxrss) includes the memory of the process it was
# started from: exec records the old address space's high-water mark, and a forked or
# vforked child's old address space is perfguard's (40 MB and more), so every command
# smaller than perfguard would read as perfguard.  For ``metric: memory`` a lean launcher
# (python -S -I, ~5 MB) forks the command, waits for it and writes its peak and status to a
# pipe; a forked process starts with a zero peak, so the reading is the command's own
# (floored at the launcher's ~5 MB).
_LAUNCHER = """\
import os, sys
fd = int(sys.argv[1])
os.set_inheritable(fd, False)
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    except OSError as exc:
        os.write(fd, b"x %d " % exc.errno)
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
os.write(fd, b"%d %d" % (usage.ru_maxrss, status))
"""


def _run(argv: list[str] | str, spec: BenchmarkSpec, out: IO[bytes], err: IO[bytes]) -> _Finished:
    if spec.metric != "memory":
        return _spawn(argv, spec, out, err)
    command = ["/bin/sh", "-c", argv] if isinstance(argv, str) else argv
    read, write = os.pipe()
    try:
        launcher = [sys.executable, "-S", "-I", "-c", _LAUNCHER, str(write), *command]
        done = _spawn(launcher, dataclasses.replace(spec, shell=False), out, err, (write,))
        os.close(write)
        write = -1
        report = b"".join(iter(lambda: os.read(read, 256), b"")).split()
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)
    if report[:1] == [b"x"]:
        raise ExecutionError("error", f"cannot start {_show(argv)}: {os.strerror(int(report[1]))}")
    if len(report) != 2:  # the launcher itself failed: its own status says how
        return done
    peak, status = (int(v) for v in report)
    code = os.waitstatus_to_exitcode(status)
    return dataclasses.replace(done, status=code, max_rss=peak * 1024)


def _spawn(
    argv: list[str] | str,
    spec: BenchmarkSpec,
    out: IO[bytes],
    err: IO[bytes],
    keep: tuple[int, ...] = (),
) -> _Finished:
    start = time.perf_counter()
    try:
        proc = subprocess.Popen(
            argv,
            cwd=spec.folder,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            shell=spec.shell,
            env=_environment(spec.metric),
            start_new_session=True,  # one process group to kill, and Ctrl-C stays ours
            pass_fds=keep,
        )
    except OSError as exc:
        raise ExecutionError(
            "error", f"cannot start {_show(argv)}: {exc.strerror or exc}"
        ) from None
    result: dict[str, Any] = {}
    waiter = threading.Thread(target=_reap, args=(proc.pid, result), daemon=True)
    waiter.start()
    try:
        waiter.join(spec.timeout)
    finally:
        # not reaped: timed out, or interrupted (Ctrl-C, SIGTERM) inside the join, after
        # which Python 3.11 can report the waiter dead while it still waits: the command,
        # in a session of its own, would outlive perfguard
        if "status" not in result:
            _kill_group(proc.pid)
            waiter.join()
        proc.returncode = result.get("status", -signal.SIGKILL)  # reaped by wait4 already
    if "timed_out" in result or "end" not in result or result["end"] - start > spec.timeout:
        raise ExecutionError("timeout", f"killed after the {spec.timeout:g} s timeout")
    usage = result["usage"]
    return _Finished(
        status=result["status"],
        seconds=result["end"] - start,
        cpu=usage.ru_utime + usage.ru_stime,
        max_rss=usage.ru_maxrss * 1024,  # Linux reports kilobytes
    )


def _reap(pid: int, result: dict[str, Any]) -> None:
    # wait4 gives this child's own resource usage (cpu, peak memory), which Popen hides.
    _, status, usage = os.wait4(pid, 0)
    result["end"] = time.perf_counter()
    result["usage"] = usage
    result["status"] = os.waitstatus_to_exitcode(status)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _value(metric: str, done: _Finished, out_path: Path) -> float:
    if metric == "time":
        return done.seconds
    if metric == "cpu":
        return done.cpu
    if metric == "memory":
        return float(done.max_rss)
    return parse_custom_value(out_path.read_text(encoding="utf-8", errors="replace"))


def parse_custom_value(stdout: str) -> float:
    """The last non-empty stdout line as a JSON number or ``{"value": x}``."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        raise ExecutionError(
            "error", 'metric custom: the command printed nothing; print a number or {"value": x}'
        )
    try:
        doc = json.loads(lines[-1])
    except (ValueError, RecursionError):  # not JSON, too deep, a 5000-digit integer
        doc = None
    value = doc.get("value") if isinstance(doc, dict) else doc
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExecutionError(
            "error",
            f'metric custom: the last line of stdout must be a number or {{"value": x}}, '
            f"got {lines[-1][:60]!r}",
        )
    if not (math.isfinite(value) and value >= 0):  # json reads NaN and Infinity too
        raise ExecutionError(
            "error",
            "metric custom: the value must be a finite number of 0 or more (a count, a "
            f"size, a time), got {lines[-1][:60]!r}",
        )
    return float(value)


def _crash_message(status: int, err_path: Path) -> str:
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        head = f"killed by {name}"
    else:
        head = f"exit code {status}"
    tail = _last_line(err_path)
    return f"{head}: {tail}" if tail else head


def _last_line(path: Path) -> str:
    try:
        lines = [x for x in path.read_text(errors="replace").splitlines() if x.strip()]
    except OSError:
        return ""
    return lines[-1].strip()[:200] if lines else ""


def _show(argv: list[str] | str) -> str:
    return argv if isinstance(argv, str) else " ".join(argv)


# ---------------------------------------------------------------- callables


class CallableExecutor:
    """One worker subprocess per callable benchmark, kept alive across repetitions."""

    def __init__(
        self,
        python: str = sys.executable,
        min_time: float = MIN_TIME,
        counters: CounterChoice | None = None,
    ):
        self.python = python
        self.min_time = min_time
        self.counters = counters or CounterChoice()
        self._workers: dict[str, _Worker] = {}

    def measure(self, spec: BenchmarkSpec, point: tuple[float, ...], warmup: int) -> float:
        """Ask the benchmark's worker for one repetition (it warms up and loops itself)."""
        worker = self._workers.get(spec.name)
        if worker is None or not worker.alive():
            counted = spec.metric == "instructions"
            if counted:  # an ExecutionError naming what to install when valgrind is missing
                self.counters.choose(spec.instruction_counter, "callable")
            worker = self._workers[spec.name] = _Worker(self.python, spec.folder, counted)
        request = {
            "target": spec.target,
            "kwargs": keyword_arguments(spec, point),
            "metric": spec.metric,
            "warmup": warmup,
            "min_time": self.min_time,
        }
        try:
            reply = worker.ask(request, spec.timeout)
        except ExecutionError:
            worker.stop()
            del self._workers[spec.name]
            raise
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM mid-call: the worker is busy, not
            # waiting for a polite end (a second signal then orphaned it, still running)
            worker.stop(now=True)
            del self._workers[spec.name]
            raise
        if "error" in reply:
            raise ExecutionError(str(reply.get("kind", "error")), str(reply["error"]))
        return float(reply["value"])

    def close(self) -> None:
        """Stop every worker."""
        for worker in self._workers.values():
            worker.stop()
        self._workers.clear()


class _Worker:
    """The parent's end of ``python -m guard.collection.worker``: JSON lines both ways.

    A worker that counts instructions runs under callgrind, which writes its dumps to a
    folder of its own (see ``counters.py`` and ``marker.py``).
    """

    def __init__(self, python: str, folder: Path, counted: bool = False):
        env = _environment("instructions" if counted else "time")
        # The worker must import guard from wherever this process imported it.
        package_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        argv = [python, "-m", "guard.collection.worker", str(folder)]
        self.dumps: tempfile.TemporaryDirectory[str] | None = None
        if counted:
            self.dumps = tempfile.TemporaryDirectory(prefix="perfguard-callgrind-")
            argv = callgrind_prefix(Path(self.dumps.name)) + argv
            env[DUMP_ENV] = str(dump_base(Path(self.dumps.name)))
        # stderr goes to a file: a chatty benchmark must not fill a pipe nobody drains.
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            argv,
            cwd=folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            start_new_session=True,
        )
        self._buffer = b""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def ask(self, request: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise ExecutionError("crash", self._death()) from None
        line = self._read_line(timeout)
        reply = json.loads(line)
        if not isinstance(reply, dict):
            raise ExecutionError("error", "the worker sent a malformed reply")
        return reply

    def _read_line(self, timeout: float) -> bytes:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise ExecutionError("timeout", f"killed after the {timeout:g} s timeout")
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise ExecutionError("crash", self._death())
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _death(self) -> str:
        try:  # its own exit status, before the kill below would replace it with SIGKILL
            status = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            status = None
        self.kill()
        status = self.proc.returncode if status is None else status
        self.stderr.seek(0)
        lines = [x for x in self.stderr.read().decode(errors="replace").splitlines() if x.strip()]
        tail = lines[-1].strip()[:200] if lines else ""
        head = f"the worker exited with code {status}" if status is not None else "worker died"
        if status is not None and status < 0:
            head = f"the worker was killed by {signal.Signals(-status).name}"
        return f"{head}: {tail}" if tail else head

    def kill(self) -> None:
        _kill_group(self.proc.pid)
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()

    def stop(self, now: bool = False) -> None:
        """End the worker: politely (stdin closed, a second to exit) unless ``now``; it is
        killed in any case, even if a second interrupt cuts the polite wait short."""
        try:
            if self.alive() and not now:
                assert self.proc.stdin is not None
                try:
                    self.proc.stdin.close()
                    self.proc.wait(timeout=1)
                except (BrokenPipeError, subprocess.TimeoutExpired):
                    pass
        finally:
            self.kill()
            self.stderr.close()
            if self.dumps is not None:
                self.dumps.cleanup()


class RoutingExecutor:
    """Commands to a CommandExecutor, callables to a CallableExecutor."""

    def __init__(self, min_time: float = MIN_TIME):
        counters = CounterChoice()  # perf is probed once per run, for both kinds
        self.commands = CommandExecutor(counters)
        self.callables = CallableExecutor(min_time=min_time, counters=counters)

    def measure(self, spec: BenchmarkSpec, point: tuple[float, ...], warmup: int) -> float:
        """Run one repetition with the executor for the benchmark's kind."""
        impl = self.commands if spec.kind == "command" else self.callables
        return impl.measure(spec, point, warmup)

    def close(self) -> None:
        """Stop the callable workers."""
        self.callables.close()
