"""Google Benchmark's JSON, as written by ``--benchmark_format=json`` or ``--benchmark_out``.

Shape: ``{"context": {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu", ...},
"benchmarks": [{"name": "BM_Sort/1024", "run_name", "run_type": "iteration", "repetitions",
"repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit": "ns"},
...]}``.

Sizes come from the range arguments in the run name (``run_name``, else ``name``):
``BM_Sort/1024`` has the parameter ``n``; positional arguments are named ``n``, ``m``,
``k``, then ``arg3``, ``arg4``, ... by position, and arguments named with ``ArgNames``
(``BM_X/rows:64/cols:8``) keep their names. A file's kernels share one set of parameters
(the one ``_session`` keeps: the fewest, then the most families); a binary's benchmarks without
arguments, and families over other arguments, are left out with a note each (see
``_session``), while a family over those arguments and more is read with the others in its
kernels' names (``BM_Mat/m:8``), with a note; a file where no benchmark has an argument is
an error. The setting segments ``repeats:``, ``min_time:``, ``min_warmup_time:``,
``iterations:``, ``real_time``, ``process_time`` and ``manual_time`` are dropped, while
``threads:N`` stays in the kernel name so runs on different thread counts stay apart.

Each family gives two kernels: metric ``time`` from ``real_time`` and metric ``cpu`` from
``cpu_time``, converted from ``time_unit`` to seconds (unit ``s``). Iteration rows are
read, one value per repetition; aggregates (mean, median, stddev, cv) are left out, and so
are runs that were skipped or failed (``error_occurred``), with a note naming them and the
benchmark's message. A family written with
``--benchmark_report_aggregates_only`` has no iteration rows: its median rows (else its
mean rows) are read instead, one value a size, with a note. User counters are ignored.
Google Benchmark's own ``Complexity()`` fit (the ``_BigO`` and ``_RMS`` rows) is carried on
the family's kernels as ``reported`` (see ``_google_complexity``), shown beside perfguard's
class; it does not enter the measurements.
The run info takes the start from ``context.date`` and a few context fields as the machine,
with ``context.caches`` as ``run.machine.caches`` (check's memory rule reads them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..collection.caches import in_order
from ..measurements import MeasurementSet, RunInfo
from . import Importer, register
from . import _session as session
from ._common import SNIFF_BYTES, KernelTable, top_level_keys
from ._google_complexity import ComplexityRows, complexity_kind
from ._json_lines import JsonFile, shown

__all__: list[str] = []

_SECONDS = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}
_SETTING = re.compile(
    r"(?:repeats|min_time|min_warmup_time|iterations):[^/]*|real_time|process_time|manual_time"
)
_THREADS = re.compile(r"threads:[0-9]+")
_ARGUMENT = re.compile(r"(?:([^/:]+):)?(-?[0-9]+)")
_POSITIONAL = ("n", "m", "k")
_MACHINE_KEYS = ("host_name", "executable", "num_cpus", "mhz_per_cpu", "library_build_type")
_FOREIGN_KEYS = ("machine_info", "commit_info", "results", "schema")
_HOW_TO_SIZE = "register it with ->Arg(n), ->Range(lo, hi) or ->Args({...})"
_CACHE_LEVELS = {"1": "L1d", "2": "L2", "3": "L3"}  # context.caches' levels, as check names them
_STAND_INS = ("median", "mean")  # a family's aggregates read where it has no iteration rows


def _sniff(text: str) -> bool:
    keys = top_level_keys(text)
    if any(k in keys for k in _FOREIGN_KEYS):
        return False
    if keys.get("context") == "{":
        return True
    return keys.get("benchmarks") == "[" and '"real_time"' in text.lstrip()[:SNIFF_BYTES]


def _split_name(name: str) -> tuple[str, list[tuple[str, str]]]:
    """The kernel name and the (parameter, value) arguments of a run name."""
    parts = name.split("/")
    threads = ""
    while len(parts) > 1 and (_SETTING.fullmatch(parts[-1]) or _THREADS.fullmatch(parts[-1])):
        last = parts.pop()
        threads = threads or (f"/{last}" if _THREADS.fullmatch(last) else "")
    found: list[tuple[str | None, str]] = []
    while len(parts) > 1 and (match := _ARGUMENT.fullmatch(parts[-1])):
        found.insert(0, (match.group(1), match.group(2)))
        parts.pop()
    args = [(label or _positional(j), value) for j, (label, value) in enumerate(found)]
    return "/".join(parts) + threads, args


def _nonpositive(digits: str) -> bool:
    """An argument (``-?[0-9]+``, any length) of 0 or less."""
    return digits.startswith("-") or not digits.strip("0")


def _positional(index: int) -> str:
    return _POSITIONAL[index] if index < len(_POSITIONAL) else f"arg{index}"


def _failed(row: dict[str, Any]) -> bool:
    return row.get("error_occurred") is True or row.get("skipped") is True


def _aggregate(row: dict[str, Any]) -> str | None:
    """The aggregate a row holds ("mean", "median", ...; "" if unnamed), None for a run."""
    if row.get("run_type") != "aggregate" and "aggregate_name" not in row:
        return None
    name = row.get("aggregate_name")
    return name if isinstance(name, str) else ""


@dataclass(frozen=True)
class _Run:
    """An iteration row (or a median or mean aggregate): its index, the key its name came
    from, its name and kernel, its (parameter, value) arguments, the row, the aggregate."""

    index: int
    key: str
    name: str
    kernel: str
    args: list[tuple[str, str]]
    row: dict[str, Any]
    aggregate: str | None = None


class _Reader:
    """Reads iteration rows over the parameters ``choose`` settled."""

    def __init__(self, doc: JsonFile):
        self.doc = doc
        self.parameters: list[str] = []
        self.own: dict[int, str] = {}  # row index -> its size's name, where not the file's
        self.table = KernelTable()
        self.complexity = ComplexityRows(_SECONDS)
        self.failed: dict[str, list[str]] = {}  # message -> names of the runs it stopped

    def survey(self, i: int, row: Any) -> _Run | None:
        """An iteration row's (or a median or mean aggregate's) name and arguments; None for
        the other rows (``Complexity()`` rows are kept aside, the rest of the aggregates and
        failed runs dropped)."""
        at: list[str | int] = ["benchmarks", i]
        row = self.doc.obj(row, at)
        kind = complexity_kind(row)
        if kind is not None:
            self.complexity.add(row, kind, lambda name: _split_name(name)[0])
            return None
        aggregate = _aggregate(row)
        if _failed(row) and aggregate is None:
            self.note_failed(row)
        if _failed(row) or aggregate not in (None, *_STAND_INS):
            return None
        key = "run_name" if "run_name" in row else "name"
        name = self.doc.text_value(self.doc.member(row, at, key), [*at, key])
        kernel, args = _split_name(name)
        if not kernel:
            raise self.doc.fail([*at, key], f"{name} has no benchmark name before its arguments")
        names = [p for p, _ in args]
        repeated = sorted({p for p in names if names.count(p) > 1})
        if repeated:
            raise self.doc.fail([*at, key], f"{name} names the argument {repeated[0]} twice")
        return _Run(i, key, name, kernel, args, row, aggregate)

    def note_failed(self, row: dict[str, Any]) -> None:
        """Keep a failed or skipped run's name under its message, for ``failed_note``."""
        name = row.get("run_name", row.get("name"))
        message = row.get("error_message", row.get("skip_message"))
        text = message.strip() if isinstance(message, str) and message.strip() else "no message"
        names = self.failed.setdefault(text, [])
        if isinstance(name, str) and name not in names:
            names.append(name)

    def failed_note(self) -> list[str]:
        """One note naming the runs the benchmark itself reported as failed or skipped."""
        if not self.failed:
            return []
        shown = "; ".join(
            f"{', '.join(names[:4])}{f' and {len(names) - 4} more' if len(names) > 4 else ''}"
            f" ({message})"
            for message, names in self.failed.items()
        )
        return [
            f"{self.doc.path}: left out the runs Google Benchmark reports as failed or "
            f"skipped: {shown}"
        ]

    def stand_in(self, runs: list[_Run]) -> tuple[list[_Run], list[str]]:
        """The iteration runs; for a family that has none (``--benchmark_report_aggregates_
        only``), its medians (else means) as one value a size, with a note."""
        measured = {r.kernel for r in runs if r.aggregate is None}
        out = [r for r in runs if r.aggregate is None]
        standing: dict[str, list[str]] = {}
        for aggregate in _STAND_INS:
            chosen = {r.kernel for r in runs if r.aggregate == aggregate} - measured
            out += [r for r in runs if r.aggregate == aggregate and r.kernel in chosen]
            if chosen:
                standing[aggregate] = sorted(chosen)
            measured |= chosen
        notes = [
            f"{self.doc.path}: {', '.join(kernels)} {'has' if len(kernels) == 1 else 'have'} "
            f"no iteration rows (--benchmark_report_aggregates_only, or "
            "--benchmark_display_aggregates_only with the JSON on stdout): each size's "
            f"{aggregate} over the repetitions is read as one value, so the noise between "
            "repetitions is unknown to the verdict; drop --benchmark_report_aggregates_only "
            "(with --benchmark_display_aggregates_only, read the file --benchmark_out writes "
            "instead of stdout) to give it every repetition"
            for aggregate, kernels in standing.items()
        ]
        return sorted(out, key=lambda r: r.index), notes

    def choose(self, runs: list[_Run]) -> tuple[set[int], list[str]]:
        """Settle the parameters; the rows to read, and notes on those left out."""
        sized = [
            session.Sized(
                r.index, r.kernel, tuple(p for p, _ in r.args), tuple(v for _, v in r.args)
            )
            for r in runs
            if r.args
        ]
        if not sized:
            first = runs[0]
            raise self.doc.fail(
                ["benchmarks", first.index, first.key],
                f"{first.name} has no numeric argument to use as the size; {_HOW_TO_SIZE}",
            )
        parameters, others = session.choose_parameters(sized)
        self.parameters = list(parameters)
        # a family over these arguments and more: the others name its kernels (BM_Mat/m:8)
        named, others = session.named_groups(others, parameters)
        alike, others = session.sized_alike(others, parameters)
        self.own = {s.index: s.parameters[0] for group in alike for s in group}
        keep = {s.index for s in sized if set(s.parameters) == set(parameters)}
        keep |= {s.index for group in [*named, *alike] for s in group}
        # BM_X/0 (->Range(0, n), an empty input) is a real run no class can model: left out
        at_zero = [
            r
            for r in runs
            if r.index in keep and any(_nonpositive(v) for p, v in r.args if p in self.names(r))
        ]
        keep -= {r.index for r in at_zero}
        notes = session.left_out_notes(
            self.doc.path,
            parameters,
            list(dict.fromkeys(r.name for r in runs if not r.args)),  # repetitions once
            others,
            _HOW_TO_SIZE.replace("register it", "register them"),
            "--benchmark_filter={test}",
        )
        notes += session.named_by_notes(
            self.doc.path, parameters, named, "--benchmark_filter={test}"
        )
        notes += session.read_as_notes(
            self.doc.path, parameters, alike, "--benchmark_filter={test}"
        )
        at = [(r.kernel, ", ".join(f"{p}={v}" for p, v in r.args)) for r in at_zero]
        return keep, notes + session.nonpositive_note(self.doc.path, at)

    def names(self, run: _Run) -> list[str]:
        """The arguments that size a run, in the file's order of parameters."""
        return [self.own[run.index]] if run.index in self.own else self.parameters

    def kernel(self, run: _Run) -> str:
        """The family's kernel, with the arguments beyond the file's parameters in its name
        before any ``/threads:N`` (``BM_Mat/m:8``)."""
        extra = "".join(f"/{p}:{v}" for p, v in run.args if p not in self.names(run))
        if not extra:
            return run.kernel
        base, threads, count = run.kernel.rpartition("/threads:")
        return f"{base}{extra}/threads:{count}" if threads else run.kernel + extra

    def add(self, run: _Run) -> None:
        at: list[str | int] = ["benchmarks", run.index]
        values = dict(run.args)
        point = tuple(float(values[p]) for p in self.names(run))
        scale = self.scale(run.index, run.row)
        for field, metric in (("real_time", "time"), ("cpu_time", "cpu")):
            value = self.doc.number(self.doc.member(run.row, at, field), [*at, field])
            self.table.add((self.kernel(run), metric), point, [value / scale])

    def scale(self, i: int, row: dict[str, Any]) -> float:
        unit = row.get("time_unit", "ns")
        if not isinstance(unit, str) or unit not in _SECONDS:
            raise self.doc.fail(
                ["benchmarks", i, "time_unit"],
                f"expected one of {', '.join(_SECONDS)}, got {shown(unit)}",
            )
        return _SECONDS[unit]


def _run(root: dict[str, Any]) -> RunInfo:
    context = root.get("context")
    context = context if isinstance(context, dict) else {}
    machine = {
        k: context[k]
        for k in _MACHINE_KEYS
        if isinstance(context.get(k), (str, int, float)) and not isinstance(context[k], bool)
    }
    caches = in_order(_context_caches(context.get("caches")))
    if caches:
        machine["caches"] = caches
    date = context.get("date")
    return RunInfo(started=date if isinstance(date, str) else None, machine=machine)


def _context_caches(entries: Any) -> dict[str, object]:
    """``context.caches`` (``[{"type": "Data", "level": 1, "size": 32768}, ...]``) by level:
    L1d is the level-1 data cache, L2 and L3 the level-2 and level-3 ones that hold data."""
    found: dict[str, object] = {}
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or entry.get("type") not in ("Data", "Unified"):
            continue
        name = _CACHE_LEVELS.get(str(entry.get("level")))
        if name is not None:
            found.setdefault(name, entry.get("size"))
    return found


def _parse(text: str, path: str) -> MeasurementSet:
    doc = JsonFile(text, path)
    root = doc.obj(doc.root, [])
    rows = doc.arr(doc.member(root, [], "benchmarks"), ["benchmarks"])
    reader = _Reader(doc)
    runs = [run for i, row in enumerate(rows) if (run := reader.survey(i, row)) is not None]
    runs, stand_in_notes = reader.stand_in(runs)
    if not runs:
        raise doc.fail(
            ["benchmarks"], "no benchmark runs (only failed runs, or aggregates without a median)"
        )
    keep, notes = reader.choose(runs)
    notes = reader.failed_note() + stand_in_notes + notes
    for run in runs:
        if run.index in keep:
            reader.add(run)
    kernels = tuple(
        replace(k, unit="s", reported=reader.complexity.reported(k.name, k.metric))
        for k in reader.table.kernels()
    )
    return doc.measurement_set(reader.parameters, kernels, _run(root), notes)


register(Importer("google-benchmark", _sniff, _parse))
