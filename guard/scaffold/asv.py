"""asv (airspeed velocity) projects: ``asv.conf.json`` and its ``time_*``/``peakmem_*``
benchmarks, read with ``ast`` (never imported), with their literal ``params``."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .detect import BENCHMARKS, Detector, Finding, register
from .files import python_files, read_text, relative
from .project import (
    FoundBenchmark,
    Parameter,
    few_sizes_notes,
    listed,
    located,
    sized_together,
)
from .pyast import Function, assignments, module_constants, parse_python, try_literal
from .yaml_text import quoted

__all__ = ["DETECTOR"]


def _find(root: Path) -> Finding | None:
    """An ``asv.conf.json`` decides; its benchmarks are what the scaffold suggests."""
    asv = _asv_project(root)
    if asv is None:
        return None
    return Finding(BENCHMARKS, asv.evidence, asv.benchmarks, asv.directory, asv.notes)


DETECTOR = register(Detector("asv", _find, found_as="asv.conf.json", checks="the asv benchmarks"))


_ASV_PREFIXES = {"time_": "time", "peakmem_": "memory"}


@dataclass(frozen=True)
class _Asv:
    directory: str
    evidence: tuple[str, ...]
    benchmarks: tuple[FoundBenchmark, ...]
    notes: tuple[str, ...]


_JSON_NOISE = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.DOTALL)


def _strip_json_comments(text: str) -> str:
    """JSON with ``//`` and ``/* */`` comments and trailing commas (as asv allows) made plain."""
    return _JSON_NOISE.sub(lambda m: m[0] if m[0].startswith('"') else "", text)


def _asv_settings(text: str) -> tuple[dict[str, object], str | None]:
    """asv.conf.json's settings, or {} and why not."""
    try:
        data = json.loads(_strip_json_comments(text))
    except json.JSONDecodeError as exc:
        return {}, f"asv.conf.json is not valid JSON (line {exc.lineno}: {exc.msg})"
    except (ValueError, RecursionError) as exc:
        return {}, f"asv.conf.json is not usable JSON ({exc})"
    if not isinstance(data, dict):
        return {}, "asv.conf.json is not a JSON object"
    return data, None


def _asv_project(root: Path) -> _Asv | None:
    conf = root / "asv.conf.json"
    if not conf.is_file():
        return None
    settings, problem = _asv_settings(read_text(conf) or "")
    notes = [f"{problem}; assuming the default benchmark_dir"] if problem else []
    directory = settings.get("benchmark_dir", "benchmarks")
    if not isinstance(directory, str) or not directory.strip():
        notes.append('asv.conf.json: benchmark_dir is not a folder name; using "benchmarks"')
        directory = "benchmarks"
    folder = root / directory
    if not folder.is_dir():
        notes.append(f"asv.conf.json: benchmark_dir {quoted(directory)} does not exist")
    found = _asv_benchmarks(root, folder) if folder.is_dir() else []
    parametrized = [b for b in found if b.parameters]
    evidence = (
        f"asv.conf.json (benchmark_dir {quoted(directory)}): {len(found)} benchmark"
        f"{'' if len(found) == 1 else 's'}, {len(parametrized)} parametrized",
    )
    notes += _asv_notes(found)
    other = _other_kinds(folder) if folder.is_dir() else []
    if other:
        notes.append(
            "asv mem_* (object sizes) and track_* (values it returns) benchmarks have no "
            f"perfguard metric, so not suggested: {listed(other)}"
        )
    return _Asv(relative(folder, root), evidence, tuple(found), tuple(notes))


def _other_kinds(folder: Path) -> list[str]:
    """The ``mem_*`` and ``track_*`` benchmarks of the folder (module.name, module.Class.name):
    asv kinds perfguard does not measure, named so they are not dropped without a word."""
    out = []
    for path in python_files(folder, lambda name: name.endswith(".py")):
        text = read_text(path)
        tree = parse_python(text) if text is not None else None
        module = ".".join(path.relative_to(folder).with_suffix("").parts)
        for node in tree.body if tree is not None else ():
            members = node.body if isinstance(node, ast.ClassDef) else [node]
            prefix = f"{module}.{node.name}." if isinstance(node, ast.ClassDef) else f"{module}."
            out += [
                prefix + m.name
                for m in members
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                and m.name.startswith(_OTHER_KINDS)
            ]
    return out


_OTHER_KINDS = ("mem_", "track_")


def _asv_benchmarks(root: Path, folder: Path) -> list[FoundBenchmark]:
    found = []
    # Adapters import from the config's folder (the root): benchmarks.bench_sort.
    package = [p for p in relative(folder, root).split("/") if p not in ("", ".", "..")]
    for path in python_files(folder, lambda name: name.endswith(".py")):
        parts = list(path.relative_to(folder).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        text = read_text(path)
        tree = parse_python(text) if text is not None else None
        if not parts or tree is None:
            continue
        found += _asv_in_module(
            tree, ".".join(parts), ".".join(package + parts), relative(path, root)
        )
    return found


def _asv_in_module(tree: ast.Module, name: str, module: str, path: str) -> list[FoundBenchmark]:
    """asv benchmarks of one file: ``time_*``/``peakmem_*`` functions and methods."""
    env = module_constants(tree)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    attributes = _function_attributes(tree)
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _asv_metric(node.name):
            attrs = attributes.get(node.name, {})
            params = _asv_parameters(attrs.get("params"), attrs.get("param_names"), env)
            found.append(_asv_found(f"{name}.{node.name}", path, node, params, module))
        elif isinstance(node, ast.ClassDef):
            found += _asv_class(node, classes, env, name, module, path)
    return found


def _asv_class(
    cls: ast.ClassDef,
    classes: Mapping[str, ast.ClassDef],
    env: Mapping[str, object],
    name: str,
    module: str,
    path: str,
) -> list[FoundBenchmark]:
    members = _class_members(cls, classes, frozenset())
    params = _asv_parameters(members.get("params"), members.get("param_names"), env)
    found = []
    for member, node in members.items():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _asv_metric(member):
            found.append(
                _asv_found(
                    f"{name}.{cls.name}.{member}",
                    path,
                    node,
                    params,
                    module,
                    call=f"{cls.name}.{member}",
                    setup="setup" in members,
                )
            )
    return found


def _asv_found(
    name: str,
    path: str,
    node: Function,
    params: tuple[Parameter, ...],
    module: str,
    call: str = "",
    setup: bool = False,
) -> FoundBenchmark:
    return FoundBenchmark(
        name=name,
        path=path,
        line=node.lineno,
        parameters=params,
        metric=_asv_metric(node.name) or "time",
        module=module,
        call=call or node.name,
        setup=setup,
    )


def _asv_metric(name: str) -> str | None:
    return next((m for prefix, m in _ASV_PREFIXES.items() if name.startswith(prefix)), None)


def _class_members(
    cls: ast.ClassDef, classes: Mapping[str, ast.ClassDef], seen: frozenset[str]
) -> dict[str, ast.AST]:
    """Methods and class attributes by name, those of same-file base classes first."""
    members: dict[str, ast.AST] = {}
    seen = seen | {cls.name}
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in classes and base.id not in seen:
            members.update(_class_members(classes[base.id], classes, seen))
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            members[stmt.name] = stmt
        for target, value in assignments(stmt):
            if isinstance(target, ast.Name):
                members[target.id] = value
    return members


def _function_attributes(tree: ast.Module) -> dict[str, dict[str, ast.expr]]:
    """``time_f.params = ...`` and ``time_f.param_names = ...`` at module level."""
    out: dict[str, dict[str, ast.expr]] = {}
    for stmt in tree.body:
        for target, value in assignments(stmt):
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                out.setdefault(target.value.id, {})[target.attr] = value
    return out


def _asv_parameters(
    params: ast.AST | None, names: ast.AST | None, env: Mapping[str, object]
) -> tuple[Parameter, ...]:
    """asv's ``params`` (one list, or a list of lists) named by ``param_names`` (or param1...)."""
    if not isinstance(params, ast.expr):
        return ()
    value = try_literal(params, env)
    given = try_literal(names, env) if isinstance(names, ast.expr) else None
    labels = [str(n) for n in given] if isinstance(given, list) else []
    if not isinstance(value, list):  # not literal: the names, if any, without values
        return tuple(Parameter(n) for n in _parameter_names(labels, max(1, len(labels))))
    groups = value if value and all(isinstance(v, list) for v in value) else [value]
    return tuple(
        Parameter(n, tuple(g)) for n, g in zip(_parameter_names(labels, len(groups)), groups)
    )


def _parameter_names(labels: Sequence[str], count: int) -> list[str]:
    """asv's names where they are identifiers and fit the count, else param1, param2, ..."""
    if len(labels) != count:
        labels = [""] * count
    return [n if n.isidentifier() else f"param{k + 1}" for k, n in enumerate(labels)]


def _asv_notes(found: Sequence[FoundBenchmark]) -> list[str]:
    """Which asv benchmarks cannot be modelled as they are, and why."""
    groups: list[tuple[str, list[str]]] = [
        ("not parametrized, so measured at one size only and not suggested", []),
        ("no numeric parameter, so nothing to model", []),
        ("params that are not literal values: fill in the sizes", []),
    ]
    for bench in found:
        if not bench.parameters:
            groups[0][1].append(bench.name)
        elif not bench.numeric():
            groups[1][1].append(located(bench))
        elif any(not p.values for p in bench.parameters):
            groups[2][1].append(located(bench))
    notes = [f"{why}: {listed(names)}" for why, names in groups if names]
    together = sized_together(found)
    apart = [
        located(b) for b in found if b.numeric() and tuple(p.name for p in b.numeric()) != together
    ]
    if together is not None and apart:
        notes.append(
            f"over other parameters than {', '.join(together)}, so not suggested (a config's "
            f"benchmarks share one set of parameters; give them a perfguard.yml of their "
            f"own): {listed(apart)}"
        )
    return notes + few_sizes_notes(found)
