"""pytest-benchmark's JSON, as written by ``pytest --benchmark-json=FILE``.

Shape: ``{"machine_info": {...}, "commit_info": {"id", "branch", ...}, "benchmarks":
[{"name": "test_sort[list-1024]", "fullname", "params": {"kind": "list", "n": 1024},
"stats": {"median", ..., "data": [...]}}, ...], "datetime", "version"}``.

Sizes come from the parametrization: the numeric entries of ``params`` are the
measurement parameters. The first benchmark fixes their names and order, and every
benchmark must have the same ones, so an unparametrized test in the file is an error.
The kernel is the test ``name`` without its ``[...]`` id, followed by the non-numeric
params, so ``test_sort[kind=list]`` and ``test_sort[kind=array]`` are separate kernels
(several non-numeric params are joined with commas). Two tests of the same name (in
different modules or classes) would mix their measurements, which is an error.

Values are the per-round times in ``stats.data`` (written with ``--benchmark-save-data``),
in seconds. Without them each point has the single value ``stats.median``, so the noise
estimate sees one value per point. Metric ``time``, unit ``s``. The run info takes commit
and branch from ``commit_info``, the start from ``datetime`` and the node, processor,
machine, Python version and CPU brand from ``machine_info``; metadata of an unexpected
type is left out rather than refused.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from .. import numbers
from ..measurements import MeasurementSet, RunInfo
from . import Importer, register
from ._common import DEFAULT_METRIC, SNIFF_BYTES, KernelTable, top_level_keys
from ._json_lines import JsonFile

__all__: list[str] = []

_MACHINE_KEYS = ("node", "processor", "machine", "python_version")
_FOREIGN_KEYS = ("context", "results", "schema")
# One file per set of parameters: pytest-benchmark writes the whole session into one.
_SELECT = "select the tests of one file with pytest -k, one --benchmark-json each"


def _sniff(text: str) -> bool:
    keys = top_level_keys(text)
    if any(k in keys for k in _FOREIGN_KEYS):
        return False
    if "machine_info" in keys or "commit_info" in keys:
        return True
    # Files written with sorted keys open with a long "benchmarks" list.
    return keys.get("benchmarks") == "[" and '"fullname"' in text.lstrip()[:SNIFF_BYTES]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _fmt_point(parameters: list[str], at: tuple[float, ...]) -> str:
    return ", ".join(numbers.at(p, a) for p, a in zip(parameters, at))


class _Reader:
    """Accumulates benchmarks one by one."""

    def __init__(self, doc: JsonFile):
        self.doc = doc
        self.parameters: list[str] = []
        self.first = 0  # the benchmark that fixed the parameters
        self.table = KernelTable()
        self.seen: dict[tuple[str, tuple[float, ...]], int] = {}

    def add(self, i: int, bench: Any) -> None:
        at: list[str | int] = ["benchmarks", i]
        bench = self.doc.obj(bench, at)
        name = self.doc.text_value(self.doc.member(bench, at, "name"), [*at, "name"])
        params = self.params(i, bench, name)
        point = self.point(i, name, params)
        kernel = self.kernel(name, params)
        if (kernel, point) in self.seen:
            raise self.doc.fail(
                at,
                f"{kernel} at {_fmt_point(self.parameters, point)} is already measured by "
                f"benchmarks[{self.seen[kernel, point]}]; kernels are named after the test, "
                "so two tests of this name cannot share a file",
            )
        self.seen[kernel, point] = i
        self.table.add((kernel, DEFAULT_METRIC), point, self.values(i, bench))

    def params(self, i: int, bench: dict[str, Any], name: str) -> dict[str, Any]:
        params = bench.get("params")
        if params is None or params == {}:
            raise self.doc.fail(
                ["benchmarks", i],
                f"{name} is not parametrized; perfguard needs a numeric parameter as the "
                'size, e.g. @pytest.mark.parametrize("n", [256, 1024, 4096]), or leave the '
                f"test out of this file ({_SELECT})",
            )
        return self.doc.obj(params, ["benchmarks", i, "params"])

    def point(self, i: int, name: str, params: dict[str, Any]) -> tuple[float, ...]:
        at: list[str | int] = ["benchmarks", i, "params"]
        numeric = [k for k, v in params.items() if _is_number(v)]
        if not self.parameters:
            if not numeric:
                raise self.doc.fail(
                    at, f"{name} has no numeric parameter to use as the size (all are text)"
                )
            self.parameters, self.first = numeric, i
        expected = ", ".join(self.parameters)
        for p in self.parameters:
            if p not in params:
                raise self.doc.fail(
                    at,
                    f"{name} has no {p}, but benchmarks[{self.first}] has; every benchmark "
                    f"needs the numeric parameters {expected} ({_SELECT})",
                )
        extra = [k for k in numeric if k not in self.parameters]
        if extra:
            raise self.doc.fail(
                [*at, extra[0]],
                f"{name} has the numeric parameter {extra[0]}, but benchmarks[{self.first}] "
                f"has only {expected}; every benchmark needs the same numeric parameters "
                f"({_SELECT})",
            )
        return tuple(self.doc.number(params[p], [*at, p]) for p in self.parameters)

    def kernel(self, name: str, params: dict[str, Any]) -> str:
        base = name.partition("[")[0] or name
        labels = [f"{k}={_label(v)}" for k, v in params.items() if k not in self.parameters]
        return f"{base}[{','.join(labels)}]" if labels else base

    def values(self, i: int, bench: dict[str, Any]) -> list[float]:
        at: list[str | int] = ["benchmarks", i, "stats"]
        stats = self.doc.obj(self.doc.member(bench, at[:2], "stats"), at)
        if stats.get("data") is not None:
            return self.doc.numbers(stats["data"], [*at, "data"])
        return [self.doc.number(self.doc.member(stats, at, "median"), [*at, "median"])]


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
    for i, bench in enumerate(benchmarks):
        reader.add(i, bench)
    kernels = tuple(replace(k, unit="s") for k in reader.table.kernels())
    return doc.measurement_set(reader.parameters, kernels, _run(root))


register(Importer("pytest-benchmark", _sniff, _parse))
