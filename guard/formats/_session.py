"""One set of parameters for a benchmark tool's whole-session file.

pytest-benchmark and Google Benchmark write every benchmark of a run into one file: a
suite's unparametrized benchmarks and its tests over other parameters sit beside the
sized ones.  A measurement set has one set of parameters, so the importers keep one set and
leave the rest out with a note each, instead of refusing the file (a benchmark over those
parameters and more is kept, the extra ones naming its kernel).  The set kept is the
one with the fewest parameters (then the most tests, then the most benchmarks, then the
first seen): a pull request that adds a grid test over (n, k) to a suite of tests over n
must not switch the file to (n, k), or its check could no longer meet the baseline's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..numbers import counted

__all__ = [
    "MIN_NAMED_SIZES",
    "Sized",
    "choose_parameters",
    "left_out_notes",
    "named_by_notes",
    "named_groups",
    "nonpositive_note",
    "read_as_notes",
    "sized_alike",
]


MIN_NAMED_SIZES = 3  # sizes each kernel a grid's extra parameters name must have


@dataclass(frozen=True)
class Sized:
    """A benchmark with sizes: its index in the file, its test, its parameters in order and
    their values."""

    index: int
    test: str
    parameters: tuple[str, ...]
    values: tuple[object, ...] = ()


def named_groups(
    groups: Sequence[Sequence[Sized]], parameters: Sequence[str]
) -> tuple[list[list[Sized]], list[list[Sized]]]:
    """Of the groups over other parameters, the parts over ``parameters`` and more that are
    read with the rest in their kernels' names, and the parts left out.  A test is read so
    only where every kernel it makes has ``MIN_NAMED_SIZES`` sizes or more: a zipped
    parametrization (n and k = n / 16 together) would make one kernel a size, and is left
    out whole, as a test over other parameters is."""
    named, left = [], []
    for group in groups:
        sizes: dict[tuple[str, tuple[tuple[str, object], ...]], set[tuple[object, ...]]] = {}
        for s in group:
            if not set(parameters) <= set(s.parameters):
                continue
            values = dict(zip(s.parameters, s.values))
            label = tuple((p, v) for p, v in values.items() if p not in parameters)
            sizes.setdefault((s.test, label), set()).add(tuple(values[p] for p in parameters))
        thin = {test for (test, _), points in sizes.items() if len(points) < MIN_NAMED_SIZES}
        read = {test for test, _ in sizes} - thin
        named.append([s for s in group if s.test in read])
        left.append([s for s in group if s.test not in read])
    return [g for g in named if g], [g for g in left if g]


def sized_alike(
    groups: Sequence[Sequence[Sized]], parameters: Sequence[str]
) -> tuple[list[list[Sized]], list[list[Sized]]]:
    """Of the groups over other parameters, those read over the file's one parameter, and
    those left out.  Where the file's kernels have one size each, a test whose one numeric
    parameter is named otherwise (``size`` beside ``n``: tests written by different hands)
    is sized by it all the same: leaving it out let a quadratic ``test_dedupe[size]`` pass
    a check unseen.  Groups over several parameters stay left out."""
    alike: list[list[Sized]] = []
    left: list[list[Sized]] = []
    for group in groups:
        one = len(parameters) == 1 and len(group[0].parameters) == 1
        (alike if one and _names_a_size(group[0].parameters[0]) else left).append(list(group))
    return alike, left


# a number that names a run, not a size: a test over these is left out as before (a seed
# read as n failed "n^2 measured, <= n expected" on work that only depends on the seed)
_NOT_SIZES = re.compile(
    r"(random_?)?seed|rng|reps?|repeats?|repetitions?|trials?|runs?|rounds?|iter(ation)?s?"
    r"|cases?|ids?|idx|index|i|k?th",
    re.IGNORECASE,
)


def _names_a_size(name: str) -> bool:
    return _NOT_SIZES.fullmatch(name) is None


def read_as_notes(
    path: str, parameters: Sequence[str], groups: Sequence[Sequence[Sized]], how_to_select: str
) -> list[str]:
    """A note per group read over the file's one parameter under its own name's place."""
    notes = []
    for group in groups:
        tests = [s.test for s in group]
        own, kept = group[0].parameters[0], parameters[0]
        notes.append(
            f"{path}: {_tests(tests)} measured over {own}: read as {kept} (a file's kernels "
            f"share one set of parameters), so bounds and reasons name it {kept}; to keep "
            f"{own}, give them a file of their own ({how_to_select.format(test=tests[0])})"
        )
    return notes


def choose_parameters(sized: Sequence[Sized]) -> tuple[tuple[str, ...], list[list[Sized]]]:
    """The parameters kept (in the order of their first benchmark) and the groups of
    benchmarks over other sets, first seen first.  ``sized`` must not be empty."""
    groups: dict[frozenset[str], list[Sized]] = {}
    for s in sized:
        groups.setdefault(frozenset(s.parameters), []).append(s)

    def weight(key: frozenset[str]) -> tuple[int, bool, int, int]:
        sizes = all(_names_a_size(name) for name in key)  # over a seed: last
        return -len(key), sizes, len({s.test for s in groups[key]}), len(groups[key])

    chosen = max(groups, key=weight)  # max keeps the first seen of equals
    return groups[chosen][0].parameters, [g for k, g in groups.items() if k != chosen]


def left_out_notes(
    path: str,
    parameters: Sequence[str],
    unsized: Sequence[str],
    others: Sequence[Sequence[Sized]],
    how_to_size: str,
    how_to_select: str,
) -> list[str]:
    """A note on the benchmarks without sizes (their tests ``unsized``), and one per group
    over other parameters.  ``how_to_select`` is formatted with ``test``."""
    notes = []
    if unsized:
        notes.append(
            f"{path}: left out {_count(len(unsized))} without a numeric parameter to use as "
            f"the size ({_tests(unsized)}); {how_to_size}, to model them"
        )
    for group in others:
        tests = [s.test for s in group]
        # a benchmark is a test at one point: repeated rows (Google Benchmark's
        # --benchmark_repetitions) count once
        count = len({(s.test, s.values) for s in group}) if group[0].values else len(group)
        notes.append(
            f"{path}: left out {_count(count)} measured over "
            f"{', '.join(group[0].parameters)} ({_tests(tests)}): a file's kernels share one "
            f"set of parameters, here {', '.join(parameters)}; to model them, give them a "
            f"file of their own ({how_to_select.format(test=tests[0])})"
        )
    return notes


def named_by_notes(
    path: str,
    parameters: Sequence[str],
    groups: Sequence[Sequence[Sized]],
    how_to_select: str,
) -> list[str]:
    """A note per group measured over the file's parameters and more: the extra ones name
    its kernels (``test_grid[k=8]``), each modelled over the file's parameters."""
    notes = []
    for group in groups:
        tests = [s.test for s in group]
        extra = [p for p in group[0].parameters if p not in parameters]
        notes.append(
            f"{path}: {_tests(tests)} measured over {', '.join(group[0].parameters)}: "
            f"modelled over {', '.join(parameters)} (the file's parameters) with "
            f"{', '.join(extra)} in the kernel names; for one model over "
            f"{', '.join(group[0].parameters)}, give them a file of their own "
            f"({how_to_select.format(test=tests[0])})"
        )
    return notes


def nonpositive_note(path: str, left: Sequence[tuple[str, str]]) -> list[str]:
    """A note on the benchmarks left out at a size of 0 or less (their test and where, as
    ``n=0``): every class is a function of positive sizes (log 0 is not a number)."""
    if not left:
        return []
    where = ", ".join(dict.fromkeys(f"{test} at {at}" for test, at in left))
    return [
        f"{path}: left out {_count(len(left))} at a size of 0 or less ({where}): the classes "
        "are functions of positive sizes, so those points cannot be modelled"
    ]


def _count(n: int) -> str:
    return counted(n, "benchmark")


def _tests(tests: Sequence[str], most: int = 4) -> str:
    """The distinct tests, the first ``most`` of them."""
    distinct = list(dict.fromkeys(tests))
    shown = ", ".join(distinct[:most])
    return shown + (f" and {len(distinct) - most} more" if len(distinct) > most else "")
