"""Importers, one per foreign format, registered by name and auto-detected from content."""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import FormatError, UsageError
from ..measurements import MeasurementSet
from ..registry import Registry

__all__ = ["Importer", "register", "names", "detect", "parse", "load"]


@dataclass(frozen=True)
class Importer:
    """A named format: ``sniff`` says whether text looks like it, ``parse`` reads it."""

    name: str
    sniff: Callable[[str], bool]
    parse: Callable[[str, str], MeasurementSet]


_REGISTRY: Registry[Importer] = Registry("format")


def register(importer: Importer) -> Importer:
    """Add an importer under its name (names are unique)."""
    return _REGISTRY.add(importer.name, importer)


def names() -> list[str]:
    """Registered format names, in registration order."""
    return list(_REGISTRY)


def detect(text: str, path: str) -> str:
    """The name of the first registered format whose sniffer accepts the text."""
    for importer in _REGISTRY.values():
        if importer.sniff(text):
            return importer.name
    if not text.strip():
        # a tool that failed before writing (a bad flag, a crash) leaves an empty file
        raise FormatError("the file is empty: did the tool that writes it fail?", path)
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(("{", "["))), None)
    if start:  # a tool's JSON after lines of other text (a warning printed to the same stream)
        first = lines[0].strip()[:60]
        rest = "\n".join(lines[start:])
        how = (
            " (Google Benchmark: --benchmark_out=FILE --benchmark_out_format=json)"
            if '"context"' in rest and '"benchmarks"' in rest
            else " (pytest-benchmark: --benchmark-json=FILE)"
            if '"machine_info"' in rest
            else ""
        )
        raise FormatError(
            f"lines of text come before the JSON that starts on line {start + 1} (line 1: "
            f"{first!r}): write the JSON to a file of its own{how}, or send the tool's other "
            "output elsewhere",
            path,
        )
    if any(line.split()[:4] == ["Benchmark", "Time", "CPU", "Iterations"] for line in lines):
        raise FormatError(
            "this is Google Benchmark's console table, which perfguard does not read; "
            "run it with --benchmark_out=FILE --benchmark_out_format=json (or "
            "--benchmark_format=json) and give perfguard that file",
            path,
        )
    raise FormatError(
        f"cannot tell the format of this file; pass --format ({', '.join(names())})", path
    )


def parse(text: str, path: str, format: str | None = None) -> MeasurementSet:
    """Parse text in the given (or detected) format; errors name ``path``."""

    def read() -> MeasurementSet:
        name = format or detect(text, path)
        if name not in _REGISTRY:
            raise FormatError(f"unknown format {name!r}; known: {', '.join(names())}", path)
        return _REGISTRY[name].parse(text, path)

    return _unbroken(read, path)


def is_native(path: str | Path) -> bool:
    """Whether ``path`` is a file of perfguard's own measurements@ (unreadable: False)."""
    from .native import sniff

    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return sniff(handle.read())
    except OSError:
        return False


def load(
    path: str | Path,
    format: str | None = None,
    scaling: str | None = None,
    inclusive: bool = False,
) -> MeasurementSet:
    """Read a measurement file of any registered format, an Extra-P experiment (``.extra-p``)
    or a folder of Score-P experiments.

    ``scaling`` (weak, the default, weak_threaded or strong) says how a Score-P
    experiment's values per process become values per point, ``inclusive`` whether a call
    path's values include its callees' (exclusive by default); both apply to such folders.
    On a file, ``strong`` (or ``strong=PARAMETER``) multiplies every value by the process
    count, Extra-P's strong-scaling conversion (strong_scaling.py).
    """
    from . import strong_scaling
    from .modellable import modellable

    kind, parameter = strong_scaling.parse(scaling)
    p = Path(path)
    if p.is_dir():
        if parameter is not None:
            raise UsageError(
                f"--scaling {scaling}: a folder of Score-P experiments sums each profile's "
                "processes; write --scaling strong"
            )
        return modellable(_load_directory(p, format, kind, inclusive), str(path))
    if kind not in (None, "strong"):
        raise UsageError(
            f"--scaling {kind} applies to folders of Score-P experiments, and {path} is a file "
            "(a file takes --scaling strong: each value times the process count)"
        )
    if inclusive:
        raise UsageError(
            f"--inclusive applies to folders of Score-P experiments, and {path} is a file"
        )
    mset = _load_file(p, format)
    _check_text(mset, str(path))
    if kind == "strong":
        mset = strong_scaling.total_effort(mset, parameter, str(path))
    return modellable(mset, str(path))


def _check_text(mset: MeasurementSet, path: str) -> None:
    """Refuse a name that is not Unicode text: JSON's "\\ud800" decodes to a lone surrogate,
    which no terminal, JSON output or report can write."""
    for name in mset.parameters:
        _unicode(name, f"parameter {name!r}", path)
    for i, kernel in enumerate(mset.kernels):
        for what, text in (("name", kernel.name), ("metric", kernel.metric), ("unit", kernel.unit)):
            if text is not None:
                _unicode(text, f"kernel {i + 1} ({kernel.name!r}): {what}", path)


def _unicode(text: str, where: str, path: str) -> None:
    from ._common import lone_surrogate

    bad = lone_surrogate(text)
    if bad is not None:
        raise FormatError(f"{where} holds {bad}, a lone surrogate, not text", path)


MAX_FILE = 2**30  # bytes of one measurement file: more is not a study, and would fill memory


def _load_file(p: Path, format: str | None) -> MeasurementSet:
    path = str(p)
    try:
        data = _read_capped(p)
    except FileNotFoundError:
        raise FormatError("no such file", str(path)) from None
    except IsADirectoryError:
        raise FormatError("is a directory, expected a measurement file", str(path)) from None
    except OSError as exc:
        raise FormatError(exc.strerror or str(exc), str(path)) from None
    kind = _binary_kind(data[:32])
    if kind is not None:
        return _unbroken(lambda: _load_experiment(data, path, format, kind), path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(f"not UTF-8 text (byte {exc.start})", str(path)) from None
    return parse(text.removeprefix("\ufeff"), str(path), format)


def _read_capped(p: Path) -> bytes:
    """The file's bytes, read once (a pipe such as <(...) cannot be read twice), and at most
    MAX_FILE of them (/dev/zero or a runaway log would fill the memory)."""
    with p.open("rb") as fh:
        data = fh.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise FormatError(
            f"is larger than the {MAX_FILE / 2**30:g} GiB a measurement file is read up to",
            str(p),
        )
    return data


def _unbroken(read: Callable[[], MeasurementSet], path: str) -> MeasurementSet:
    """What a reader raised that it did not mean to, as a FormatError naming the file: a
    number too large for a float, a field of the wrong type deep in a tool's file, a
    damaged archive. The readers name the line where they can; this is the net."""
    try:
        return read()
    except (OverflowError, ValueError, TypeError, KeyError, IndexError, struct.error) as exc:
        raise FormatError(f"cannot be read: {_reason(exc)}", path) from None
    except zipfile.BadZipFile as exc:
        raise FormatError(f"not a readable Extra-P experiment: {exc}", path) from None
    except MemoryError:
        raise FormatError("cannot be read: it asks for more memory than there is", path) from None


def _reason(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if isinstance(exc, OverflowError) or "too large" in text or "Exceeds the limit" in text:
        return f"a number is too large ({text})"
    return text[:200]


def _binary_kind(head: bytes) -> str | None:
    """ "zip" (Extra-P's ``.extra-p``), "extrap3" (Extra-P 3's binary experiment) or None."""
    from .extrap3_experiment import is_extrap3
    from .extrap_experiment import ZIP_MAGIC

    if head.startswith(ZIP_MAGIC):
        return "zip"
    return "extrap3" if is_extrap3(head) else None


def _load_experiment(data: bytes, path: str, format: str | None, kind: str) -> MeasurementSet:
    """Extra-P's saved experiment (``.extra-p``, a zip) or an Extra-P 3 experiment."""
    from . import extrap3_experiment, extrap_experiment

    what = "an Extra-P experiment (zip)" if kind == "zip" else "an Extra-P 3 experiment"
    if format is not None:
        raise UsageError(f"--format {format} reads text; {path} is {what}")
    if kind == "zip":
        return extrap_experiment.load_bytes(data, path)
    return extrap3_experiment.load_bytes(data, path)


def _load_directory(
    path: Path, format: str | None, scaling: str | None, inclusive: bool
) -> MeasurementSet:
    from . import cube

    if not cube.is_experiment_directory(path):
        saved = sorted(path.glob("*/[0-9][0-9][0-9][0-9]_*.json"))  # pytest-benchmark's
        hint = f"; give one of its files, e.g. {saved[-1]}" if saved else ""
        raise FormatError(
            "is a directory, expected a measurement file or a folder of Score-P experiment "
            f"folders ({cube.PROFILES}){hint}",
            str(path),
        )
    if format is not None:
        raise UsageError(
            f"--format {format} reads files; {path} is a folder of Score-P experiments"
        )
    return cube.load(path, scaling or "weak", inclusive)


def _register_builtin() -> None:
    # Registration happens on import; "perfguard" must come first in names(), hence the
    # unsorted order. The sniffers exclude one another (the JSON ones by their top-level
    # keys), so detection does not depend on the order of the others.
    from . import native  # noqa: F401, I001
    from . import extrap_json, extrap_jsonl, talpas, extrap_text  # noqa: F401
    from . import pytest_benchmark, google_benchmark, hyperfine  # noqa: F401


_register_builtin()
