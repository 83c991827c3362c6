"""pytest-benchmark's JSON, as written by ``pytest --benchmark-json=FILE``.

Shape: ``{"machine_info": {...}, "commit_info": {"id", "branch", ...}, "benchmarks":
[{"name": "test_sort[list-1024]", "fullname", "params": {"kind": "list", "n": 1024},
"stats": {"median", ..., "data": [...]}}, ...], "datetime", "version"}``.

Sizes come from the parametrization: the numeric entries of ``params`` are the
measurement parameters. A file's kernels share one set of parameters (the one
``_session`` keeps: the fewest parameters, then the most tests), named in the order of the
first benchmark that has it. pytest-benchmark writes the whole session into one file, so a suite's
unparametrized benchmarks, and tests parametrized over other names, are left out with a
note (``MeasurementSet.notes``) rather than refusing the file; a test over those parameters
and more (a grid over n and k in a suite over n) is read with the extra numbers in its
kernel's name, ``test_grid[k=8]``, with a note; a file where nothing has a
numeric parameter is an error. A number is a JSON number, a number written as text
(``"1024"``) or a numpy scalar pytest-benchmark could not serialise
(``"UNSERIALIZABLE[np.int64(1024)]"``, from ``np.geomspace(..., dtype=int)``). A benchmark
that has the parameters but a non-numeric value of one is an error (``n="big"`` beside
``n=256`` is a typo more often than a design).
The kernel is the test ``name`` without its ``[...]`` id, followed by the non-numeric
params, so ``test_sort[kind=list]`` and ``test_sort[kind=array]`` are separate kernels
(several non-numeric params are joined with commas; an object's label drops its memory
address, which changes every run, ``<function mysorted at 0x7f..>`` reading ``mysorted``).
Tests of the same name in different classes or modules are named by the end of their
``fullname`` that tells them apart (``TestA::test_scan``, ``TestB::test_scan``); a name that
is still shared (the same test twice) is an error.

Values are the per-round times in ``stats.data`` (written with ``--benchmark-save-data``),
in seconds. Without them each point has the single value ``stats.median``, so the noise
estimate sees one value per point. Metric ``time``, unit ``s``. The run info takes commit
and branch from ``commit_info``, the start from ``datetime`` and the node, processor,
machine, Python version, CPU brand and cache sizes (py-cpuinfo's, in order, as
``run.machine.caches``) from ``machine_info``; metadata of an unexpected type is left out
rather than refused.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from typing import Any

from .. import numbers
from ..collection.caches import cache_sizes, in_order, measured_here
from ..errors import FormatError
from ..measurements import MeasurementSet, RunInfo
from . import Importer, register
from ._common import DEFAULT_METRIC, SNIFF_BYTES, KernelTable, top_level_keys
from ._json_lines import JsonFile
from ._session import (
    Sized,
    choose_parameters,
    left_out_notes,
    named_by_notes,
    named_groups,
    nonpositive_note,
    read_as_notes,
    sized_alike,
)

__all__: list[str] = []

_MACHINE_KEYS = ("node", "processor", "machine", "python_version")
# py-cpuinfo's cache sizes in machine_info.cpu: check's memory rule reads them (memory.py)
_CPUINFO_CACHES = (("L1d", "l1_data_cache_size"), ("L2", "l2_cache_size"), ("L3", "l3_cache_size"))
_FOREIGN_KEYS = ("context", "results", "schema")


def _sniff(text: str) -> bool:
    keys = top_level_keys(text)
    if any(k in keys for k in _FOREIGN_KEYS):
        return False
    if "machine_info" in keys or "commit_info" in keys:
        return True
    # Files written with sorted keys open with a long "benchmarks" list.
    return keys.get("benchmarks") == "[" and '"fullname"' in text.lstrip()[:SNIFF_BYTES]


# pytest-benchmark writes a value json cannot take as "UNSERIALIZABLE[repr]"
_UNSERIALIZABLE = re.compile(r"UNSERIALIZABLE\[(.*)\]", re.DOTALL)
_NUMPY_SCALAR = re.compile(r"(?:np|numpy)\.(?:u?int|float)\d*\((.*)\)")
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_CALLABLE = re.compile(r"<(?:built-in )?(?:function|method|class) '?([\w.<>]+?)'?>")


def _size(value: Any) -> float | None:
    """``value`` as a size, if it is a number: JSON, text or a numpy scalar's repr."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        return None
    inner = _UNSERIALIZABLE.fullmatch(value)
    text = inner.group(1) if inner else value
    scalar = _NUMPY_SCALAR.fullmatch(text)
    text = scalar.group(1) if scalar else text
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _kind(value: Any) -> str:
    """What a parameter holds, in a few words: "is a list", "is text"."""
    if isinstance(value, list):
        return "is a list"
    if isinstance(value, dict):
        return "is a mapping"
    if value is None or isinstance(value, bool):
        return f"is {value}"
    return "is text"


def _is_number(value: Any) -> bool:
    return _size(value) is not None


def _nonpositive(value: Any) -> bool:
    size = _size(value)
    return size is not None and size <= 0


def _label(value: Any) -> str:
    """A non-numeric param as a kernel name shows it: as pytest's id would, without the
    memory address an object's repr carries (it changes every run)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if not isinstance(value, str):
        return json.dumps(value, sort_keys=True)
    inner = _UNSERIALIZABLE.fullmatch(value)
    if inner is None:
        return value
    # a function or class by its name; another object keeps its address, the only thing
    # that tells two instances of one class apart (Cfg(1), Cfg(2))
    named = _CALLABLE.fullmatch(_ADDRESS.sub("", inner.group(1)))
    return named.group(1) if named else inner.group(1)


def _fmt_point(parameters: list[str], at: tuple[float, ...]) -> str:
    return ", ".join(numbers.at(p, a) for p, a in zip(parameters, at))


class _Reader:
    """Accumulates benchmarks one by one, over the parameters ``choose`` settled."""

    def __init__(self, doc: JsonFile):
        self.doc = doc
        self.parameters: list[str] = []
        self.table = KernelTable()
        self.seen: dict[tuple[str, tuple[float, ...]], int] = {}
        self.tests: dict[int, str] = {}  # benchmark index -> its test's name in kernel names
        self.own: dict[int, str] = {}  # benchmark index -> its size's name, where not the file's

    def choose(self, benchmarks: list[Any]) -> tuple[list[int], list[str]]:
        """Settle the parameters; the benchmarks to read, and notes on those left out."""
        found = []  # (index, name, params, numeric parameter names) of every benchmark
        owners: list[str] = []  # each benchmark's fullname (module, class and test)
        for i, bench in enumerate(benchmarks):
            at: list[str | int] = ["benchmarks", i]
            bench = self.doc.obj(bench, at)
            name = self.doc.text_value(self.doc.member(bench, at, "name"), [*at, "name"])
            params = bench.get("params")
            params = {} if params is None else self.doc.obj(params, [*at, "params"])
            found.append((i, name, params, [k for k, v in params.items() if _is_number(v)]))
            fullname = bench.get("fullname")
            owners.append(fullname if isinstance(fullname, str) else name)
        self.tests = _test_names([name for _, name, _, _ in found], owners)
        sized = [
            Sized(i, self.tests[i], tuple(num), tuple(_size(params[k]) for k in num))
            for i, name, params, num in found
            if num
        ]
        if not sized:
            raise self._unsized_error(*found[0][:3])
        parameters, others = choose_parameters(sized)
        self.parameters = list(parameters)
        # numbers beyond the file's parameters name the kernel, as text does (test_grid[k=8])
        named, others = named_groups(others, parameters)
        alike, others = sized_alike(others, parameters)
        self.own = {s.index: s.parameters[0] for group in alike for s in group}
        read = {s.index for group in [*named, *alike] for s in group}
        # every parameter there and a number; a test parametrized over n with True, None or a
        # list among its values is left out with the unsized ones (the file was refused)
        keep = [i for i, _, _, num in found if set(num) == set(parameters) or i in read]
        # a size that is not a number (True, None, "big"): that benchmark is left out, named
        not_numbers = [
            (name, p, params[p])
            for i, name, params, num in found
            if i not in keep and set(num) <= set(parameters) <= set(params)
            for p in parameters
            if p not in num
        ]
        bad = {name for name, _, _ in not_numbers}
        unsized = [
            self.tests[i]
            for i, name, _, num in found
            if not num and i not in keep and name not in bad
        ]
        notes = left_out_notes(
            self.doc.path,
            parameters,
            unsized,
            others,
            'parametrize them, e.g. @pytest.mark.parametrize("n", [256, 1024, 4096])',
            "pytest -k {test} --benchmark-json=FILE",
        )
        if not_numbers:
            shown = ", ".join(
                f"{name} ({p} = {json.dumps(v)[:40]})" for name, p, v in not_numbers[:5]
            )
            more = f" and {len(not_numbers) - 5} more" if len(not_numbers) > 5 else ""
            count = numbers.counted(len(not_numbers), "benchmark")
            notes.append(
                f"{self.doc.path}: left out {count} whose size is not a number: {shown}{more}"
            )
        notes += named_by_notes(
            self.doc.path, parameters, named, "pytest -k {test} --benchmark-json=FILE"
        )
        notes += read_as_notes(
            self.doc.path, parameters, alike, "pytest -k {test} --benchmark-json=FILE"
        )
        # a size of 0 (an empty input) is a real benchmark no class can model: left out
        at_zero = [i for i in keep if any(_nonpositive(v) for v in found[i][2].values())]
        zero_notes = nonpositive_note(
            self.doc.path,
            [
                (
                    self.tests[i],
                    _fmt_point(self.parameters, tuple(_size(params[p]) or 0.0 for p in names)),
                )
                for i, _, params, _ in (found[i] for i in at_zero)
                for names in [self.names(i)]
            ],
        )
        return [i for i in keep if i not in at_zero], notes + zero_notes

    def _unsized_error(self, i: int, name: str, params: dict[str, Any]) -> FormatError:
        if not params:
            return self.doc.fail(
                ["benchmarks", i],
                f"{name} is not parametrized; perfguard needs a numeric parameter as the "
                'size, e.g. @pytest.mark.parametrize("n", [256, 1024, 4096])',
            )
        kinds = ", ".join(f"{p} {_kind(v)}" for p, v in list(params.items())[:3])
        return self.doc.fail(
            ["benchmarks", i, "params"],
            f"{name} has no numeric parameter to use as the size ({kinds}); parametrize the "
            'size itself, e.g. @pytest.mark.parametrize("n", [256, 1024, 4096]), and build '
            "the input from it",
        )

    def add(self, i: int, bench: Any) -> None:
        at: list[str | int] = ["benchmarks", i]
        bench = self.doc.obj(bench, at)
        name = self.doc.text_value(self.doc.member(bench, at, "name"), [*at, "name"])
        params = self.doc.obj(bench["params"], [*at, "params"])
        point = tuple(self._number(params[p], [*at, "params", p]) for p in self.names(i))
        kernel = self.kernel(self.tests.get(i, _test(name)), params, self.names(i))
        if (kernel, point) in self.seen:
            raise self.doc.fail(
                at,
                f"{kernel} at {_fmt_point(self.parameters, point)} is already measured by "
                f"benchmarks[{self.seen[kernel, point]}]; kernels are named after the test "
                "(and its class or module where names repeat), so the same test cannot be "
                "measured twice in one file",
            )
        self.seen[kernel, point] = i
        self.table.add((kernel, DEFAULT_METRIC), point, self.values(i, bench))

    def _number(self, value: Any, at: list[str | int]) -> float:
        size = _size(value)
        return self.doc.number(value, at) if size is None else size

    def names(self, i: int) -> list[str]:
        """The params that size benchmark i, in the file's order of parameters."""
        return [self.own[i]] if i in self.own else self.parameters

    def kernel(self, test: str, params: dict[str, Any], sizes: list[str]) -> str:
        labels = [f"{k}={_label(v)}" for k, v in params.items() if k not in sizes]
        return f"{test}[{','.join(labels)}]" if labels else test

    def values(self, i: int, bench: dict[str, Any]) -> list[float]:
        at: list[str | int] = ["benchmarks", i, "stats"]
        stats = self.doc.obj(self.doc.member(bench, at[:2], "stats"), at)
        if stats.get("data") is not None:
            return self.doc.numbers(stats["data"], [*at, "data"])
        return [self.doc.number(self.doc.member(stats, at, "median"), [*at, "median"])]


def _stats_without_data(bench: Any) -> bool:
    stats = bench.get("stats") if isinstance(bench, dict) else None
    return isinstance(stats, dict) and stats.get("data") is None


def _test(name: str) -> str:
    """The test a benchmark belongs to: its name without the parametrization's id."""
    return name.partition("[")[0] or name


def _test_names(names: list[str], fullnames: list[str]) -> dict[int, str]:
    """Each benchmark's test as kernels name it: the bare test name, or where tests of one
    name live in several classes or modules, the shortest end of their fullnames
    (``Class::test``, then ``module.py::Class::test``) that tells them apart."""
    tests = [_test(n) for n in names]
    owners = [_test(f).split("::") for f in fullnames]
    places: dict[str, set[tuple[str, ...]]] = {}
    for test, owner in zip(tests, owners):
        places.setdefault(test, set()).add(tuple(owner))
    out = {}
    for i, (test, owner) in enumerate(zip(tests, owners)):
        if len(places[test]) == 1:
            out[i] = test
            continue
        for depth in range(2, len(owner) + 1):
            ends = {tuple(o[-depth:]) for o in places[test]}
            if len(ends) == len(places[test]):
                break
        out[i] = "::".join(owner[-depth:]) if len(owner) > 1 else test
    return out


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _run(root: dict[str, Any]) -> RunInfo:
    commit = root.get("commit_info")
    commit = commit if isinstance(commit, dict) else {}
    info = root.get("machine_info")
    info = info if isinstance(info, dict) else {}
    machine = {k: info[k] for k in _MACHINE_KEYS if _text(info.get(k))}
    cpu = info.get("cpu")
    if isinstance(cpu, dict) and _text(cpu.get("brand_raw", cpu.get("brand"))):
        machine["cpu"] = cpu.get("brand_raw", cpu.get("brand"))
    if isinstance(cpu, dict):
        caches = in_order({level: cpu.get(key) for level, key in _CPUINFO_CACHES})
        if measured_here(info.get("node"), machine.get("cpu")):
            caches = cache_sizes() or caches  # as `perfguard run` and the plugin read them
        if caches:
            machine["caches"] = caches
    return RunInfo(
        commit=_text(commit.get("id")),
        branch=_text(commit.get("branch")),
        started=_text(root.get("datetime")),
        machine=machine,
    )


def _parse(text: str, path: str) -> MeasurementSet:
    doc = JsonFile(text, path)
    root = doc.obj(doc.root, [])
    benchmarks = doc.arr(doc.member(root, [], "benchmarks"), ["benchmarks"])
    if not benchmarks:
        raise doc.fail(["benchmarks"], "no benchmarks; did the pytest run select any?")
    reader = _Reader(doc)
    keep, notes = reader.choose(benchmarks)
    for i in keep:
        reader.add(i, benchmarks[i])
    medians_only = [i for i in keep if _stats_without_data(benchmarks[i])]
    if medians_only:
        notes.append(
            f"{path}: {len(medians_only)} of {len(keep)} benchmarks hold only their rounds' "
            "statistics, so each size's median is read as one value and the noise between "
            "rounds is unknown to the verdicts; pytest-benchmark saves every round with "
            "--benchmark-save-data (its --benchmark-json output has them already)"
        )
    kernels = tuple(replace(k, unit="s") for k in reader.table.kernels())
    return doc.measurement_set(reader.parameters, kernels, _run(root), notes)


register(Importer("pytest-benchmark", _sniff, _parse))
