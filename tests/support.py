"""Helpers the test modules share: paths, and ``perfguard`` run in process or as a process.

``perfguard(...)`` runs the CLI's entry point (``guard.cli.main``) inside the test process,
under typer's ``CliRunner`` isolation, and returns what a subprocess would have: the exit
code, stdout and stderr. It reproduces what differs from a fresh interpreter where a test
can see it:
- a 200-column environment and the working folder;
- Python's default warning filters (a warning is printed on stderr, not raised as pytest's
  ``error`` filter would);
- an unexpected exception printed as a traceback, with exit code 1;
- WARNING log records on stderr, as a process without logging handlers prints them;
- modules a run imports from a project folder are forgotten afterwards.

``perfguard_process(...)`` is the real thing, ``python -m guard.cli``: for tests whose
subject is the process itself (start-up imports, signals, what a child's environment
holds, determinism across interpreters with different hash seeds).
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import subprocess
import sys
import traceback
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
EXAMPLES = ROOT / "examples"
COLUMNS = "200"


@dataclass(frozen=True)
class Ran:
    """The outcome of one ``perfguard`` invocation, named as ``CompletedProcess`` names it."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


def perfguard(
    *args: str | Path, cwd: Path | None = None, env: Mapping[str, str | None] | None = None
) -> Ran:
    """``perfguard ARGS`` in this process; ``env`` adds (or with None removes) variables."""
    from guard.cli import main

    argv = [str(arg) for arg in args]
    runner = _runner()
    modules = set(sys.modules)
    with (
        runner.isolation(env={"COLUMNS": COLUMNS, **(env or {})}) as streams,
        _working_folder(cwd),
        _as_a_fresh_interpreter(),
    ):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception:
            traceback.print_exc()
            code = 1
        finally:
            _forget_user_modules(modules)
        sys.stdout.flush()
        sys.stderr.flush()
        return Ran(argv, code, _text(streams[0]), _text(streams[1]))


def perfguard_process(
    *args: str | Path, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m guard.cli ARGS`` as a real subprocess (``env`` replaces the environment)."""
    environ = {**os.environ, "COLUMNS": COLUMNS} if env is None else dict(env)
    return subprocess.run(
        [sys.executable, "-m", "guard.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env=environ,
    )


def _runner() -> CliRunner:
    """Separate stdout and stderr: the default of typer's own runner, an option of click 8.1's
    (typer before 0.23 used click's)."""
    if "mix_stderr" in inspect.signature(CliRunner.__init__).parameters:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    return CliRunner()


def _forget_user_modules(before: set[str]) -> None:
    """Drop modules the run imported from a project folder (a benchmark's ``module:function``):
    the next run, like a new process, imports its own ``benches.py``, not this one's."""
    installed = (sys.prefix, sys.base_prefix, str(ROOT / "guard"))
    for name in set(sys.modules) - before:
        path = getattr(sys.modules[name], "__file__", None) or ""
        if path and not path.startswith(installed):
            del sys.modules[name]


def _text(stream: object) -> str:
    return stream.getvalue().decode("utf-8", "replace")  # type: ignore[attr-defined]


@contextlib.contextmanager
def _working_folder(cwd: Path | None) -> Iterator[None]:
    if cwd is None:
        yield
        return
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(previous)


@contextlib.contextmanager
def _as_a_fresh_interpreter() -> Iterator[None]:
    """Python's default warning filters, and WARNING records printed on stderr."""
    handler = logging.StreamHandler(sys.stderr)  # the isolated stream of this invocation
    handler.setLevel(logging.WARNING)
    logger = logging.getLogger("guard")
    logger.addHandler(handler)
    try:
        with warnings.catch_warnings():
            warnings.resetwarnings()
            warnings.simplefilter("default")
            for category in (
                DeprecationWarning,
                PendingDeprecationWarning,
                ImportWarning,
                ResourceWarning,
            ):
                warnings.simplefilter("ignore", category)
            yield
    finally:
        logger.removeHandler(handler)


def failed_run_file(path: Path, message: str = "exit code 3") -> Path:
    """A measurements@1 file of a run whose only benchmark crashed: no kernels, one error."""
    import json

    error = {"benchmark": "crash", "kind": "crash", "message": message}
    doc = {
        "schema": "perfguard/measurements@1",
        "parameters": ["n"],
        "run": {"errors": [error]},
        "kernels": [],
    }
    path.write_text(json.dumps(doc))
    return path
