"""``perfguard merge``: the shards of one run (or any measurement files) as one file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .inputs import check_format, check_writable, load

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
            f"merged {self.files} files: {self.kernels} kernels, {self.points} points "
            f"-> {self.output}"
        )

    def exit_code(self) -> int:
        return 0


def merge(inputs: tuple[Path, ...], output: Path, format: str | None = None) -> MergeOutcome:
    """Read every input, join them (duplicates are an error) and write measurements@1."""
    from ..collection.merge import merge_sets
    from ..formats.native import save

    check_format(format)
    check_writable(output)
    sets = [(str(path), load(path, format)) for path in inputs]
    merged = merge_sets(sets)
    save(merged, output)
    points = sum(len(k.points) for k in merged.kernels)
    notes = tuple(note for _, mset in sets for note in mset.notes)
    return MergeOutcome(len(inputs), len(merged.kernels), points, output, notes)
