"""Who counts ``metric: instructions``: perf's hardware counters or valgrind, and how.

``perf stat`` reads the CPU's counters at native speed, but most CI virtual machines
give no access to them (``<not supported>``). Valgrind counts the same user-space
instructions on any Linux machine by running the program on a simulated CPU, 20-100x
slower. ``auto`` uses perf where it counts and valgrind otherwise.

A command is counted whole (its interpreter's start-up included), by either tool.
A callable's worker runs under callgrind with collection off; ``marker.py`` wraps the
timed call in libffi's ``ffi_call``, on whose entry and exit callgrind switches
collection and writes one dump, so the setup that builds the input is never counted.
Perf cannot single out one call of a running process, so callables need valgrind.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import ExecutionError

__all__ = [
    "MARKER_FUNCTION",
    "DUMP_ENV",
    "CounterChoice",
    "perf_argv",
    "read_perf",
    "cachegrind_argv",
    "read_cachegrind",
    "callgrind_prefix",
    "dump_base",
    "read_dump_total",
    "counting_environment",
]

MARKER_FUNCTION = "ffi_call"  # libffi's entry point: ctypes calls every foreign function with it
DUMP_ENV = "PERFGUARD_CALLGRIND_OUT"  # tells the worker where callgrind writes its dumps

_INSTALL_VALGRIND = "install valgrind (apt-get install valgrind)"
_PERF_UNAVAILABLE = (
    "perf cannot count instructions here (not installed, or a VM without PMU access or "
    "perf_event_paranoid too high)"
)


class CounterChoice:
    """Resolves ``run.instruction_counter`` to the tool that counts, probing perf once."""

    def __init__(self) -> None:
        self._perf_counts: bool | None = None

    def choose(self, requested: str, kind: str) -> str:
        """``perf`` or ``valgrind`` for a benchmark of ``kind``; an ExecutionError if neither."""
        valgrind = shutil.which("valgrind") is not None
        if requested == "valgrind" or kind == "callable":
            if not valgrind:
                who = (
                    "valgrind, which counts a callable's timed call,"
                    if kind == "callable"
                    else "valgrind"
                )
                raise ExecutionError(
                    "error", f"metric instructions: {who} is not installed; {_INSTALL_VALGRIND}"
                )
            return "valgrind"
        if requested == "perf" or self.perf_counts():
            return "perf"
        if valgrind:
            return "valgrind"
        raise ExecutionError(
            "error",
            f"metric instructions: {_PERF_UNAVAILABLE} and valgrind is not installed; "
            f"{_INSTALL_VALGRIND}, or run where perf counts",
        )

    def perf_counts(self) -> bool:
        """Whether ``perf stat`` gives a number of user-space instructions on this machine."""
        if self._perf_counts is None:
            self._perf_counts = _probe_perf()
        return self._perf_counts


def _probe_perf() -> bool:
    if shutil.which("perf") is None:
        return False
    with tempfile.TemporaryDirectory(prefix="perfguard-") as tmp:
        out = Path(tmp, "perf")
        try:
            subprocess.run(
                perf_argv(["true"], out, shell=False),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=10,
                check=False,
            )
            return read_perf(out) > 0
        except (OSError, subprocess.TimeoutExpired, ExecutionError):
            return False


# ---------------------------------------------------------------- perf


def perf_argv(argv: Sequence[str] | str, out: Path, shell: bool) -> list[str] | str:
    """The command under ``perf stat``, its count of user-space instructions written to ``out``."""
    head = ["perf", "stat", "-x", ",", "-e", "instructions:u", "-o", str(out), "--"]
    if shell:
        return " ".join(head) + " sh -c " + _quote(str(argv))
    return head + list(argv)


def read_perf(out: Path) -> float:
    """The instruction count perf wrote, or an ExecutionError saying perf could not count."""
    try:
        text = out.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("instructions"):
            try:
                return float(fields[0])
            except ValueError:
                break
    raise ExecutionError(
        "error",
        f"metric instructions: perf could not count instructions on this machine "
        f"({_PERF_UNAVAILABLE.partition('(')[2]}; set run.instruction_counter: valgrind "
        "(or auto), or use metric: time",
    )


# ---------------------------------------------------------------- valgrind


def cachegrind_argv(argv: Sequence[str] | str, folder: Path, shell: bool) -> list[str] | str:
    """The command under cachegrind without cache simulation: one count file per process."""
    head = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--trace-children=yes",  # like perf stat, every process the command starts counts
        f"--cachegrind-out-file={folder / 'cachegrind.%p'}",
        f"--log-file={folder / 'valgrind.%p'}",
    ]
    if shell:
        return " ".join(_quote(part) for part in head) + " sh -c " + _quote(str(argv))
    return head + list(argv)


def read_cachegrind(folder: Path) -> float:
    """The instructions of every process cachegrind followed, added up."""
    files = sorted(folder.glob("cachegrind.*"))
    if not files:
        raise ExecutionError(
            "error", f"metric instructions: valgrind wrote no counts; {_tail(folder)}"
        )
    return float(sum(read_dump_total(path) for path in files))


def dump_base(folder: Path) -> Path:
    """Where callgrind writes a worker's dumps: ``base.1``, ``base.2``, ... one per call."""
    return folder / "callgrind.out"


def callgrind_prefix(folder: Path) -> list[str]:
    """Callgrind with collection off except inside the marker function, dumping on its exit."""
    return [
        "valgrind",
        "--quiet",
        "--tool=callgrind",
        f"--callgrind-out-file={dump_base(folder)}",
        "--collect-atstart=no",
        f"--toggle-collect={MARKER_FUNCTION}",
        f"--dump-after={MARKER_FUNCTION}",
        "--dump-line=no",
    ]


def read_dump_total(path: Path) -> int:
    """The total instructions (``summary:`` or ``totals:``) of a cachegrind or callgrind file."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith(("summary:", "totals:")):
                    return int(line.split()[1])
    except (OSError, IndexError, ValueError):
        pass
    raise ExecutionError("error", f"metric instructions: no total in valgrind's file {path.name}")


def _tail(folder: Path) -> str:
    for log in sorted(folder.glob("valgrind.*")):
        lines = [x for x in log.read_text(errors="replace").splitlines() if x.strip()]
        if lines:
            return lines[-1].lstrip("=0123456789 ")[:200]
    return "is it installed for this architecture?"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def counting_environment(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with Python's string hashing fixed (unless set), so counts repeat exactly."""
    return {**env, "PYTHONHASHSEED": env.get("PYTHONHASHSEED", "0")}
