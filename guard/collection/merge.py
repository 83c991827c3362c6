"""Joining measurement sets, e.g. the shards of a GitHub Actions matrix, into one.

Kernels are matched by (name, metric); the same point in two sets pools its
repetitions. Sets must share their parameters and, when they name one, their
commit: joining two commits' measurements would make a regression out of nothing; nor may
a clean and a dirty run of that commit (two source trees) be pooled. A kernel whose every
repetition another set already holds (a merged file beside one of its shards, a
reformatted copy) is refused: its repetitions would count twice, and the noise read off
them would be too small. A deterministic count, equal at every point in both, is pooled.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import UsageError
from ..measurements import Kernel, MeasurementSet, Point, RunInfo

__all__ = ["merge_sets"]


def merge_sets(sets: Sequence[tuple[str, MeasurementSet]]) -> MeasurementSet:
    """One set from several (each with the path it came from, for messages)."""
    if not sets:
        raise UsageError("nothing to merge; give at least one measurement file")
    first_path, first = sets[0]
    for path, mset in sets[1:]:
        if mset.parameters != first.parameters:
            raise UsageError(
                f"{path} has parameters ({', '.join(mset.parameters)}) but {first_path} has "
                f"({', '.join(first.parameters)}); only measurements over the same "
                "parameters can be merged"
            )
    run = _run(sets)  # which runs may be pooled at all, before what they hold
    return MeasurementSet(first.parameters, _kernels(sets), run)


def _kernels(sets: Sequence[tuple[str, MeasurementSet]]) -> tuple[Kernel, ...]:
    table: dict[tuple[str, str], dict[tuple[float, ...], list[float]]] = {}
    units: dict[tuple[str, str], str | None] = {}
    owner: dict[tuple[str, str], str] = {}  # the first file of each kernel
    for path, mset in sets:
        for kernel in mset.kernels:
            if kernel.key in table and _repeated(kernel, table[kernel.key]):
                raise UsageError(
                    f"{path} repeats {owner[kernel.key]}'s measurements of {kernel.name} "
                    f"({kernel.metric}): every repetition is already there (a merged file "
                    "beside one of its shards, or a copy); merging would count them twice"
                )
            owner.setdefault(kernel.key, path)
            points = table.setdefault(kernel.key, {})
            units.setdefault(kernel.key, kernel.unit)
            for point in kernel.points:
                points.setdefault(point.at, []).extend(point.values)
    return tuple(
        Kernel(name, metric, tuple(Point(at, tuple(v)) for at, v in points.items()), units[key])
        for key, points in table.items()
        for name, metric in [key]
    )


def _repeated(kernel: Kernel, known: dict[tuple[float, ...], list[float]]) -> bool:
    """Whether every repetition of ``kernel``, at every point, is among those already read
    for it: two independent timings never agree to the last digit at every point. A
    deterministic count (one value at each point, in both files) agrees by nature, and
    pooling it changes neither its values nor its noise: it is not read as a copy."""
    if all(
        len(set(point.values)) == 1 and len(set(known.get(point.at, ()))) == 1
        for point in kernel.points
    ):
        return False
    return all(
        point.at in known and set(point.values) <= set(known[point.at]) for point in kernel.points
    )


def _run(sets: Sequence[tuple[str, MeasurementSet]]) -> RunInfo:
    commits = {(path, m.run.commit) for path, m in sets if m.run.commit is not None}
    distinct = sorted({c for _, c in commits})
    if len(distinct) > 1:
        where = ", ".join(f"{p}: {c[:12]}" for p, c in sorted(commits))
        raise UsageError(
            f"the files measured different commits ({where}); merge the runs of one commit"
        )
    runs = [m.run for _, m in sets]
    starts = sorted(r.started for r in runs if r.started is not None)
    dirty = [r.dirty for r in runs if r.dirty is not None]
    if distinct and len(set(dirty)) > 1:
        where = ", ".join(f"{p}: {'dirty' if m.run.dirty else 'clean'}" for p, m in sets)
        raise UsageError(
            f"the files measured {distinct[0][:12]} with and without uncommitted changes "
            f"({where}); merge runs of one source tree"
        )
    return RunInfo(
        commit=distinct[0] if distinct else None,
        branch=next((r.branch for r in runs if r.branch is not None), None),
        started=starts[0] if starts else None,
        machine=runs[0].machine,
        dirty=any(dirty) if dirty else None,
        errors=tuple(e for r in runs for e in r.errors),
        interrupted=any(r.interrupted for r in runs),
    )
