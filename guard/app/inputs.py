"""Reading what a verb was pointed at: measurement files, perfguard.yml, output paths."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import write_atomic
from ..defaults import CONFIG_PATH, FORMAT_NAMES
from ..errors import FormatError, PerfguardError, UsageError

if TYPE_CHECKING:
    from ..config import Config
    from ..measurements import MeasurementSet

__all__ = [
    "load",
    "check_format",
    "check_replaceable",
    "check_writable",
    "load_optional_config",
    "naming_held",
    "write_text",
]


def load(
    path: Path, format: str | None = None, scaling: str | None = None, inclusive: bool = False
) -> MeasurementSet:
    """A measurement file in any registered format (the registry loads on first use)."""
    from ..formats import load as load_any

    return load_any(path, format, scaling, inclusive)


def require_kernels(mset: MeasurementSet, path: Path) -> MeasurementSet:
    """``mset`` read from ``path``, refused when it holds no kernel: a gate must not pass
    on nothing."""
    if not mset.kernels and not mset.run.errors:  # a run whose every benchmark failed
        # says why itself, and is exit 3 as its own run was
        if mset.notes:  # what the reader left out, and why (hyperfine's 0 s, unsized tests)
            why = "; ".join(note.removeprefix(f"{path}: ") for note in mset.notes)
            raise FormatError(f"holds no kernels: {why}", str(path))
        raise FormatError(
            "holds no kernels: nothing to judge or compare with, and a gate must not pass on "
            "nothing (was it written by a run that selected no benchmark, or is it one shard "
            "of several? merge the shards first)",
            str(path),
        )
    return mset


@contextmanager
def naming_held(*sets: MeasurementSet | None) -> Iterator[None]:
    """An error that names a parameter reading dropped (one value at every point) says so:
    "unknown parameter 'n'" alone reads as a typo of a parameter the file has."""
    try:
        yield
    except PerfguardError as exc:
        text = str(exc)
        for name, value in dict(h for s in sets if s is not None for h in s.held).items():
            if f"'{name}'" in text:
                exc.explain(
                    f"{name} was left out of the measurements: it is {value:g} at every point, "
                    "and a parameter that does not vary has no effect to model"
                )
        raise


def check_format(format: str | None) -> None:
    """Fail on a bad --format before any file is read."""
    if format is not None and format not in FORMAT_NAMES:
        raise UsageError(f"unknown format {format!r}; choose one of: {', '.join(FORMAT_NAMES)}")


def load_optional_config(path: Path | None) -> Config | None:
    """The config given, else ./perfguard.yml when present, else None."""
    from ..config import load_config

    if path is not None:
        return load_config(path)
    return load_config(CONFIG_PATH) if CONFIG_PATH.is_file() else None


def check_writable(path: Path, option: str = "--output") -> None:
    """Fail before a long run, not after it, when the output cannot be written."""
    real = Path(os.path.realpath(path))
    if real.exists() and not real.is_file() and not real.is_dir():  # a pipe, /dev/stdout
        if not os.access(real, os.W_OK):
            raise UsageError(f"{option} {path}: cannot be written (permission denied)")
        return
    if path.is_dir():
        raise UsageError(f"{option} {path} is a directory; give a file name")
    folder = real.parent  # a symlink is written through: its target's folder must exist
    if not folder.is_dir():
        raise UsageError(f"{option}: folder {folder} does not exist; create it or choose another")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {path}: the file cannot be written (permission denied)")
    try:
        probe = folder / f".{real.name}.perfguard-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"{option}: cannot write to {folder}: {exc.strerror or exc}") from None


def check_replaceable(path: Path, option: str = "--output") -> None:
    """A measurements output may replace an earlier measurements file, nothing else: `-o`
    mixed up with `-c` wrote JSON over perfguard.yml."""
    from ..formats import is_native

    real = Path(os.path.realpath(path))
    if not real.is_file():
        return
    blank = real.stat().st_size <= 4096 and not real.read_bytes().strip()  # `echo > m.json`
    if not blank and not is_native(real):
        raise UsageError(
            f"{option} {path}: the file exists and is not a perfguard measurements file "
            "(a config, a script?); choose another name, or remove it first"
        )


def write_text(path: Path, text: str, option: str) -> None:
    """Write an output file whole or not at all; what still goes wrong (a full disk) is one
    line naming it."""
    try:
        write_atomic(path, text)
    except OSError as exc:
        raise UsageError(f"{option} {path}: {exc.strerror or exc}") from None
