"""hyperfine's JSON, as written by ``hyperfine --export-json FILE`` with parameters.

Shape: ``{"results": [{"command": "sort -n data_1000.txt", "mean", "stddev", "median",
"user", "system", "min", "max", "times": [...], "exit_codes": [...], "parameters":
{"n": "1000"}}, ...]}``; the parameters come from ``--parameter-scan n 1000 8000`` or
``-L n 1000,2000``. Results without parameters are an error: without a size there is
nothing to model.

hyperfine writes parameter values as strings. A parameter whose value in the first result
is a number is a measurement parameter, and must then be a number in every result; the
other parameters (``-L impl gnu,busybox``) tell variants apart. The kernel is the command
with the numeric values put back as ``{name}``: ``sort -n data_{n}.txt``. A value is only
put back where it stands on its own (``1`` is not replaced inside ``10`` or ``0.1``), and
where the same digits occur in the command by coincidence (``--threads 1`` at ``n=1``),
the template shared by most results wins. Where that leaves one variant's results under
several names (a value glued to other digits, ``q.py {n}00``), the template that every one
of their commands fills back is used. When results of different non-numeric values
still share a kernel name (the command does not use them, e.g. they only feed
``--prepare``), the values are appended: ``./sorter --size {n} [impl=merge]``. With
``--command-name``, ``command`` holds the name, and the same rules apply to it.

A result at a size of 0 or less (``-P n 0 8``: the empty input) is left out with a note:
no class is a function there. Runs that exited non-zero (kept by ``hyperfine -i``) are
read as they are, with a note naming the sizes, and recorded as the run's errors (so
``check`` reads that kernel as an ``error``, exit 3): the time of a command that failed
early is not the time of the work.

Values are ``times`` in seconds, or ``[mean]`` when a file has no ``times``. Metric
``time``, unit ``s``. hyperfine records no commit or machine, so the run info is empty.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from ..measurements import MeasurementSet, RunError, RunInfo
from . import Importer, register
from ._common import DEFAULT_METRIC, SNIFF_BYTES, KernelTable, top_level_keys
from ._json_lines import JsonFile, shown
from ._session import nonpositive_note

__all__: list[str] = []

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# A value standing on its own: no digit, and no decimal point with a digit, on either side.
_ALONE = r"(?<![0-9])(?<![0-9]\.){}(?![0-9])(?!\.[0-9])"
_MAX_TEMPLATES = 256
_FOREIGN_KEYS = ("machine_info", "commit_info", "context", "benchmarks", "schema")


def _sniff(text: str) -> bool:
    keys = top_level_keys(text)
    if any(k in keys for k in _FOREIGN_KEYS):
        return False
    return keys.get("results") == "[" and '"command"' in text.lstrip()[:SNIFF_BYTES]


@dataclass(frozen=True)
class _Result:
    """One result: its command, parameter values as written, and repetitions."""

    command: str
    parameters: dict[str, str]
    values: list[float]
    failed: tuple[int, ...] = ()  # the non-zero exit codes of its runs (hyperfine -i)


def _templates(command: str, values: dict[str, str]) -> list[str]:
    """Ways to put ``{name}`` back for the numeric values in a command, fullest first."""
    spans: dict[tuple[int, int], list[str | None]] = {}
    for name, value in values.items():
        for match in re.finditer(_ALONE.format(re.escape(value)), command):
            spans.setdefault(match.span(), []).append(name)
    kept: list[tuple[tuple[int, int], list[str | None]]] = []
    for span, names in sorted(spans.items()):
        if not kept or span[0] >= kept[-1][0][1]:  # overlaps ("-5" and "5") keep the first
            kept.append((span, [*names, None]))
    options = [names for _, names in kept]
    if math.prod(len(names) for names in options) > _MAX_TEMPLATES:
        options = [names[:1] for names in options]  # too many to weigh: replace them all
    choices = list(itertools.product(*options))
    choices.sort(key=lambda choice: sum(c is None for c in choice))
    return [_fill(command, [s for s, _ in kept], choice) for choice in choices]


def _fill(command: str, spans: list[tuple[int, int]], names: tuple[str | None, ...]) -> str:
    out, last = [], 0
    for (start, end), name in zip(spans, names):
        if name is not None:
            out += [command[last:start], "{" + name + "}"]
            last = end
    return "".join(out) + command[last:]


def _kernel_names(results: list[_Result], numeric: list[str]) -> list[str]:
    """The kernel of each result: its most widely shared template, plus labels if needed."""
    options = [_templates(r.command, {p: r.parameters[p] for p in numeric}) for r in results]
    shared = Counter(t for templates in options for t in set(templates))
    names = [max(templates, key=lambda t: shared[t]) for templates in options]
    labels = [
        ",".join(f"{k}={v}" for k, v in r.parameters.items() if k not in numeric) for r in results
    ]
    # a value glued to other digits ("{n}00") is never put back on its own: where a variant's
    # results did not come out as one kernel each command gets the template that gives back
    # the most of them ('seq {n}' beside 'seq {n}0' made five kernels of the second)
    for label in set(labels):
        members = [i for i, other in enumerate(labels) if other == label]
        if len({names[i] for i in members}) > 1:
            for template, group in _by_template([results[i] for i in members], numeric):
                for j in group:
                    names[members[j]] = template or names[members[j]]
    variants: dict[str, set[str]] = {}
    for name, label in zip(names, labels):
        variants.setdefault(name, set()).add(label)
    return [
        f"{name} [{label}]" if len(variants[name]) > 1 else name
        for name, label in zip(names, labels)
    ]


def _by_template(results: list[_Result], numeric: list[str]) -> list[tuple[str | None, list[int]]]:
    """The results grouped by command: the first result left's template that gives back the
    most of the others' commands (built from the occurrences, standalone or not, of its
    values; of equals the one replacing the most), with the results it gives back; None
    where no template gives back even its own."""
    left = list(range(len(results)))
    out: list[tuple[str | None, list[int]]] = []
    while left:
        best: tuple[str | None, list[int]] = (None, [left[0]])
        for template in _templates_of(results[left[0]], numeric):
            group = [
                i for i in left if _filled(template, results[i].parameters) == results[i].command
            ]
            if len(group) > len(best[1]) or best[0] is None and group:
                best = (template, group)
        out.append(best)
        left = [i for i in left if i not in best[1]]
    return out


def _templates_of(result: _Result, numeric: list[str]) -> Iterator[str]:
    """Templates of one command, from the most replaced occurrences of its values down."""
    spans = sorted(
        (m.span(), name)
        for name in numeric
        for m in re.finditer(re.escape(result.parameters[name]), result.command)
    )
    if not spans or len(spans) > 12:  # nothing to try, or too many ways to try them
        return
    for count in range(len(spans), 0, -1):
        for chosen in itertools.combinations(spans, count):
            if any(a[0][1] > b[0][0] for a, b in itertools.pairwise(chosen)):
                continue  # overlapping occurrences
            yield _fill(
                result.command, [span for span, _ in chosen], tuple(name for _, name in chosen)
            )


def _filled(template: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), template)


class _Reader:
    """Checks results one by one."""

    def __init__(self, doc: JsonFile):
        self.doc = doc
        self.numeric: list[str] = []
        self.names: list[str] = []  # every parameter name, as in the first result

    def result(self, i: int, raw: Any) -> _Result:
        at: list[str | int] = ["results", i]
        raw = self.doc.obj(raw, at)
        command = self.doc.text_value(self.doc.member(raw, at, "command"), [*at, "command"])
        params = self.parameters(i, raw)
        if i == 0:
            self.names = list(params)
            self.numeric = [p for p, v in params.items() if _NUMBER.fullmatch(v)]
            if not self.numeric:
                raise self.doc.fail(
                    [*at, "parameters"],
                    "no parameter is a number, so there is no size; scan one with "
                    "--parameter-scan n 1000 8000 or -L n 1000,2000,4000",
                )
        self.check_names(i, params)
        codes = raw.get("exit_codes")
        failed = tuple(
            sorted({c for c in codes if isinstance(c, int) and not isinstance(c, bool) and c})
            if isinstance(codes, list)
            else ()
        )
        return _Result(command, params, self.values(i, raw), failed)

    def parameters(self, i: int, raw: dict[str, Any]) -> dict[str, str]:
        at: list[str | int] = ["results", i, "parameters"]
        params = raw.get("parameters")
        if not params:
            raise self.doc.fail(
                at[:2],
                'no "parameters"; run hyperfine with --parameter-scan or -L so that every '
                "command has a size",
            )
        params = self.doc.obj(params, at)
        return {k: self.parameter_value(v, [*at, k]) for k, v in params.items()}

    def parameter_value(self, value: Any, at: list[str | int]) -> str:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return json.dumps(value)
        if not isinstance(value, str):
            raise self.doc.fail(at, f"expected a string, got {shown(value)}")
        return value

    def check_names(self, i: int, params: dict[str, str]) -> None:
        at: list[str | int] = ["results", i, "parameters"]
        if set(params) != set(self.names):
            raise self.doc.fail(
                at,
                f"names {', '.join(params)} but results[0] names {', '.join(self.names)}; "
                "every result needs the same parameters",
            )
        for p in self.numeric:
            if not _NUMBER.fullmatch(params[p]):
                raise self.doc.fail(
                    [*at, p],
                    f"expected a number, got {shown(params[p])} (results[0] has a number)",
                )

    def values(self, i: int, raw: dict[str, Any]) -> list[float]:
        at: list[str | int] = ["results", i]
        if raw.get("times") is not None:
            return self.doc.numbers(raw["times"], [*at, "times"])
        return [self.doc.number(self.doc.member(raw, at, "mean"), [*at, "mean"])]


def _parse(text: str, path: str) -> MeasurementSet:
    doc = JsonFile(text, path)
    root = doc.obj(doc.root, [])
    raw = doc.arr(doc.member(root, [], "results"), ["results"])
    if not raw:
        raise doc.fail(["results"], "no results")
    reader = _Reader(doc)
    results = [reader.result(i, r) for i, r in enumerate(raw)]
    table = KernelTable()
    at_zero: list[tuple[str, str]] = []  # -P n 0 8: the empty input, which no class can model
    failed: dict[str, list[str]] = {}  # kernel -> where its runs exited non-zero (hyperfine -i)
    errors: dict[str, RunError] = {}  # kernel -> its first failed point, as a run error
    for name, result in zip(_kernel_names(results, reader.numeric), results):
        at = tuple(float(result.parameters[p]) for p in reader.numeric)
        where = ", ".join(f"{p}={result.parameters[p]}" for p in reader.numeric)
        if result.failed:
            codes = ", ".join(map(str, result.failed))
            failed.setdefault(name, []).append(f"{where} (exit code {codes})")
            point = dict(zip(reader.numeric, at))
            message = f"exited non-zero (exit code {codes}); hyperfine -i timed it anyway"
            errors.setdefault(name, RunError(name, "crash", message, point))
        if min(at) <= 0:
            at_zero.append((name, where))
            continue
        table.add((name, DEFAULT_METRIC), at, result.values)
    kernels = tuple(replace(k, unit="s") for k in table.kernels())
    # hyperfine subtracts the shell's start-up: a command faster than that reads 0 (or less,
    # clamped): all 0 is nothing measured, which modelled as a constant would pass any bound
    unmeasured = [k.name for k in kernels if all(v == 0 for p in k.points for v in p.values)]
    kernels = tuple(k for k in kernels if k.name not in unmeasured)
    notes = (
        nonpositive_note(path, at_zero)
        + [
            f"{path}: left out {name}, 0 s at every size: shorter than the shell start-up "
            "hyperfine subtracts, so nothing was measured; give it more work (larger sizes) "
            "or run hyperfine with -N (--shell=none)"
            for name in unmeasured
        ]
        + [
            f"{path}: {name} exited non-zero at {', '.join(where)}; hyperfine -i timed those runs "
            "as they are, so check that they did the work"
            for name, where in failed.items()
        ]
    )
    # a command that failed is a benchmark that did not run: check reads its kernel as an
    # error (exit 3), as perfguard run's own crashes, not the time of a failure as a class
    run = RunInfo(errors=tuple(errors.values()))
    return doc.measurement_set(reader.numeric, kernels, run, notes)


register(Importer("hyperfine", _sniff, _parse))
