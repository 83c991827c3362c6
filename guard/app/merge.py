"""``perfguard merge``: the shards of one run (or any measurement files) as one file."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..measurements import MeasurementSet
from ..numbers import counted
from .inputs import check_format, check_replaceable, check_writable, load

__all__ = ["MergeOutcome", "merge"]


@dataclass(frozen=True)
class MergeOutcome:
    files: int
    kernels: int
    points: int
    output: Path
    notes: tuple[str, ...] = ()  # what reading the inputs left out (see MeasurementSet.notes)

    def sentence(self) -> str:
        return (
            f"merged {counted(self.files, 'file')}: {counted(self.kernels, 'kernel')}, "
            f"{counted(self.points, 'point')} "
            f"-> {self.output}"
        )

    def exit_code(self) -> int:
        return 0


def _refuse_twice(inputs: tuple[Path, ...]) -> None:
    """The same file given twice (by two names, or an artifact downloaded twice) would pool
    every repetition with itself: a noise of zero, and verdicts far too sure."""
    seen: dict[tuple[str, object], Path] = {}
    for path in inputs:
        try:
            keys = [("file", path.resolve()), ("bytes", hashlib.sha256(path.read_bytes()).digest())]
        except OSError:
            continue  # load names the problem
        for key in keys:
            if key in seen:
                raise UsageError(
                    f"{seen[key]} and {path} are the same measurements: merging them would "
                    "count every repetition twice; give each file once"
                )
            seen[key] = path


def merge(inputs: tuple[Path, ...], output: Path, format: str | None = None) -> MergeOutcome:
    """Read every input, join them (duplicates are an error) and write measurements@1."""
    from ..collection.merge import merge_sets
    from ..formats.native import save

    check_format(format)
    check_writable(output)
    check_replaceable(output)
    _refuse_twice(inputs)
    sets = [(str(path), load(path, format)) for path in inputs]
    merged = merge_sets(sets)
    save(merged, output)
    points = sum(len(k.points) for k in merged.kernels)
    notes = tuple(note for _, mset in sets for note in mset.notes) + _shared_kernels(sets)
    return MergeOutcome(len(inputs), len(merged.kernels), points, output, notes)


def _shared_kernels(sets: list[tuple[str, MeasurementSet]]) -> tuple[str, ...]:
    """A note on kernels more than one file measured: their repetitions were joined, which
    is right for repeated runs and wrong for a shard given twice (a retried matrix job)."""
    where: dict[tuple[str, str], list[str]] = {}
    for path, mset in sets:
        for kernel in mset.kernels:
            where.setdefault(kernel.key, []).append(path)
    shared = [(key, paths) for key, paths in where.items() if len(paths) > 1]
    if not shared:
        return ()
    (name, metric), paths = shared[0]
    more = f" and {len(shared) - 1} more" if len(shared) > 1 else ""
    return (
        f"{name} ({metric}){more} measured in {' and '.join(paths)}: their repetitions were "
        "joined; shards of one run share no kernel, so if a shard was given twice, give it once",
    )
