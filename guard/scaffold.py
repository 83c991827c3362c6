"""``perfguard init``: see how a project benchmarks, then scaffold perfguard.yml and a workflow.

Detection only reads files. Test modules, ``setup.py`` and asv benchmarks are parsed with
``ast`` and never imported, so none of the project's code runs; literal values (sizes in
``@pytest.mark.parametrize`` or asv's ``params``) are evaluated by a small interpreter
of constants, lists, arithmetic, ``range`` and simple comprehensions. Rendering fills
the templates in ``guard/templates`` and returns text; only ``write_init`` writes.
"""

from __future__ import annotations

import ast
import configparser
import json
import operator
import os
import re
import string
import tempfile
import textwrap
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Literal

from .errors import UsageError
from .git import git

__all__ = [
    "CONFIG_PATH",
    "WORKFLOW_PATH",
    "Parameter",
    "FoundBenchmark",
    "ProjectKind",
    "InitFile",
    "detect_project",
    "render_project",
    "render_init",
    "render_matrix_workflows",
    "write_init",
]

CONFIG_PATH = PurePosixPath("perfguard.yml")
WORKFLOW_PATH = PurePosixPath(".github/workflows/perfguard.yml")

Kind = Literal["plain", "pytest-benchmark", "asv"]

# A cheap scan: enough for any real project, bounded for a home folder given by mistake.
_MAX_FILES = 5000
_MAX_DIRS = 20_000
_MAX_BYTES = 1_000_000
_MAX_VALUES = 10_000
_MIN_SIZES = 5  # what a model needs per parameter (guard.collection.runner.MIN_POINTS)
_SKIP_DIRS = {"node_modules", "site-packages", "__pycache__", "build", "dist", "venv", "env"}
_ASV_PREFIXES = {"time_": "time", "peakmem_": "memory"}
_DEFAULT_BUDGET = 120  # seconds: a CI-sized run (the schema's default is 300)
_PYTHON_VERSION = "3.12"
_NOTE_WIDTH = 88


@dataclass(frozen=True)
class Parameter:
    """A benchmark parameter as the project writes it: its name and literal values, if known."""

    name: str
    values: tuple[object, ...] = ()

    @property
    def sizes(self) -> tuple[float, ...] | None:
        """The values as sizes (all positive numbers), or None when they are not (or unknown)."""
        if not self.values or not all(_is_size(v) for v in self.values):
            return None
        return tuple(float(v) for v in self.values if isinstance(v, (int, float)))

    @property
    def maybe_numeric(self) -> bool:
        """True unless the values are known and some are not sizes (text, zero, ...)."""
        return not self.values or self.sizes is not None


@dataclass(frozen=True)
class FoundBenchmark:
    """A benchmark found in the project's files: a pytest-benchmark test or an asv benchmark.

    ``name`` is what perfguard will call the kernel (the test's name, or asv's dotted
    ``module.Class.method``); ``path`` is the file relative to the project root.
    For asv, ``module`` is the import path, ``call`` the function or ``Class.method``
    and ``setup`` whether the class has a ``setup`` method to call first.
    """

    name: str
    path: str
    line: int
    parameters: tuple[Parameter, ...] = ()
    metric: str = "time"
    module: str = ""
    call: str = ""
    setup: bool = False

    def numeric(self) -> tuple[Parameter, ...]:
        """The parameters that are (or may be) sizes."""
        return tuple(p for p in self.parameters if p.maybe_numeric)


@dataclass(frozen=True)
class ProjectKind:
    """What ``detect_project`` found: the kind, why, the benchmarks and what to tell the user."""

    kind: Kind
    evidence: tuple[str, ...] = ()
    benchmarks: tuple[FoundBenchmark, ...] = ()
    benchmark_dir: str | None = None
    installable: bool = False
    requirements: bool = False
    notes: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line for the terminal: the kind and the evidence for it."""
        if self.kind == "plain":
            return "a project without pytest-benchmark or asv benchmarks"
        return f"a {self.kind} project ({'; '.join(self.evidence)})"


@dataclass(frozen=True)
class InitFile:
    """A file for ``perfguard init`` to write: its path relative to the project root and text."""

    path: PurePosixPath
    text: str


# ---------------------------------------------------------------- public functions


def detect_project(root: Path) -> ProjectKind:
    """Classify the project at ``root`` as pytest-benchmark, asv or plain, reading files only.

    Tests that use the ``benchmark`` fixture win (their JSON can be checked as it is),
    then an ``asv.conf.json``, then a pytest-benchmark dependency without such tests.
    """
    root = Path(root)
    if not root.is_dir():
        raise UsageError(f"{root}: not a directory; perfguard init needs the project's folder")
    tests, test_notes = _benchmark_tests(root)
    dependencies = _dependency_evidence(root)
    asv = _asv_project(root)
    common = {
        "installable": _installable(root),
        "requirements": (root / "requirements.txt").is_file(),
    }
    if tests or (dependencies and asv is None):
        evidence = tuple(dependencies) + _test_evidence(tests)
        notes = list(test_notes) + _pytest_notes(tests)
        if asv is not None:
            notes.append(
                "asv.conf.json was found too; this scaffold checks the pytest-benchmark tests"
            )
        return ProjectKind("pytest-benchmark", evidence, tests, notes=tuple(notes), **common)
    if asv is not None:
        return ProjectKind(
            "asv", asv.evidence, asv.benchmarks, asv.directory, notes=asv.notes, **common
        )
    return ProjectKind("plain", **common)


def render_project(
    project: ProjectKind,
    workflow: str = "check",
    action_ref: str | None = None,
    shards: int | None = None,
) -> list[InitFile]:
    """perfguard.yml and the GitHub Actions workflow(s) for a detected project.

    With ``shards``, the matrix workflow and the Pages workflow it calls, whatever
    ``workflow`` says.
    """
    config = InitFile(CONFIG_PATH, _render_config(project))
    if shards is not None:
        return [config, *render_matrix_workflows(shards, action_ref)]
    if workflow == "check":
        return [config, InitFile(WORKFLOW_PATH, _render_workflow(project, action_ref))]
    return [config, *render_action_workflows(workflow, action_ref)]


def render_init(root: Path) -> list[InitFile]:
    """The files ``perfguard init`` would write for the project at ``root``; writes nothing."""
    return render_project(detect_project(root))


def write_init(root: Path, files: Sequence[InitFile], force: bool) -> list[Path]:
    """Write ``files`` under ``root`` atomically; refuse before writing any if one exists."""
    root = Path(root)
    targets = [_target(root, f.path) for f in files]
    for target in targets:
        if target.is_dir():
            raise UsageError(f"{target} is a directory; remove it or run init elsewhere")
        if not force and (target.exists() or target.is_symlink()):
            raise UsageError(f"{target} already exists; pass --force to overwrite")
    for target, file in zip(targets, files):
        _write_atomic(target, file.text)
    return targets


# ---------------------------------------------------------------- reading files


def _read_text(path: Path) -> str | None:
    """A text file's content, or None if it is missing, too large or unreadable."""
    try:
        if not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _skipped_dir(name: str) -> bool:
    return name.startswith(".") or name in _SKIP_DIRS or name.endswith(".egg-info")


def _python_files(top: Path, wanted: Callable[[str], bool]) -> list[Path]:
    """Files under ``top`` whose name is ``wanted``, sorted, skipping virtualenvs and VCS dirs."""
    found: list[Path] = []
    for visited, (folder, dirs, files) in enumerate(os.walk(top)):
        if "pyvenv.cfg" in files:  # a virtualenv, whatever its name
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not _skipped_dir(d))
        found.extend(Path(folder) / f for f in sorted(files) if wanted(f))
        if len(found) >= _MAX_FILES or visited >= _MAX_DIRS:
            break
    return found[:_MAX_FILES]


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


# ---------------------------------------------------------------- pytest-benchmark


_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_MENTION = re.compile(r"(?<![\w.-])pytest[-_.]benchmark(?![\w-])", re.IGNORECASE)


def _is_pytest_benchmark(requirement: str) -> bool:
    """Whether a requirement such as "pytest-benchmark[histogram]>=4" names pytest-benchmark."""
    match = _REQUIREMENT.match(requirement)
    return match is not None and re.sub(r"[-_.]+", "-", match[1]).lower() == "pytest-benchmark"


def _without_hash_comments(text: str) -> str:
    return "\n".join(line.partition("#")[0] for line in text.splitlines())


def _toml_mentions(text: str) -> bool:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: a plain scan, comments removed
        return bool(_MENTION.search(_without_hash_comments(text)))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return bool(_MENTION.search(_without_hash_comments(text)))
    return any(_is_pytest_benchmark(s) for s in _toml_strings(data))


def _toml_strings(value: object) -> Iterator[str]:
    """Every key and string value of parsed TOML (requirements are strings, poetry's are keys)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _toml_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _toml_strings(item)


def _cfg_mentions(text: str) -> bool:
    parser = configparser.RawConfigParser()
    try:
        parser.read_string(text)
    except configparser.Error:
        return bool(_MENTION.search(_without_hash_comments(text)))
    values = (parser.get(s, o) or "" for s in parser.sections() for o in parser.options(s))
    return any(_is_pytest_benchmark(line) for v in values for line in v.splitlines())


def _setup_py_mentions(text: str) -> bool:
    tree = _parse(text)
    if tree is None:
        return bool(_MENTION.search(_without_hash_comments(text)))
    strings = (n.value for n in ast.walk(tree) if isinstance(n, ast.Constant))
    return any(isinstance(s, str) and _is_pytest_benchmark(s) for s in strings)


def _requirements_mention(text: str) -> bool:
    return any(_is_pytest_benchmark(line) for line in _without_hash_comments(text).splitlines())


def _dependency_evidence(root: Path) -> list[str]:
    """Sentences naming each file that lists pytest-benchmark as a dependency."""
    checks: list[tuple[Path, Callable[[str], bool]]] = [
        (root / "pyproject.toml", _toml_mentions),
        (root / "setup.cfg", _cfg_mentions),
        (root / "setup.py", _setup_py_mentions),
    ]
    requirements = sorted(root.glob("requirements*.txt")) + sorted(root.glob("requirements/*.txt"))
    checks += [(path, _requirements_mention) for path in requirements]
    found = []
    for path, mentions in checks:
        text = _read_text(path)
        if text is not None and mentions(text):
            found.append(f"{_relative(path, root)} lists pytest-benchmark")
    return found


def _is_test_file(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def _benchmark_tests(root: Path) -> tuple[tuple[FoundBenchmark, ...], list[str]]:
    """Tests that take the ``benchmark`` fixture, and notes on files that could not be read."""
    found: list[FoundBenchmark] = []
    notes = []
    for path in _python_files(root, _is_test_file):
        text = _read_text(path)
        if text is None or "benchmark" not in text:
            continue
        tree = _parse(text)
        if tree is None:
            notes.append(f"{_relative(path, root)} is not valid Python; its tests were skipped")
            continue
        found.extend(_tests_in(tree, _relative(path, root)))
    return tuple(found), notes


def _tests_in(tree: ast.Module, path: str) -> Iterator[FoundBenchmark]:
    env = _module_constants(tree)
    for func, decorators in _test_functions(tree.body, ()):
        if "benchmark" in _argument_names(func):
            parameters = _parametrized(decorators + tuple(func.decorator_list), env)
            yield FoundBenchmark(func.name, path, func.lineno, parameters)


_Function = ast.FunctionDef | ast.AsyncFunctionDef


def _test_functions(
    body: Iterable[ast.stmt], decorators: tuple[ast.expr, ...]
) -> Iterator[tuple[_Function, tuple[ast.expr, ...]]]:
    """pytest's test functions (``test*``, also in ``Test*`` classes) with class decorators."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name.startswith("test"):
                yield node, decorators
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            yield from _test_functions(node.body, decorators + tuple(node.decorator_list))


def _argument_names(func: _Function) -> set[str]:
    args = func.args
    return {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}


def _dotted(node: ast.AST) -> str:
    """``pytest.mark.parametrize`` for that attribute chain, "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        prefix = _dotted(node.value)
        return f"{prefix}.{node.attr}" if prefix else ""
    return ""


def _call_argument(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _parametrized(
    decorators: Iterable[ast.expr], env: Mapping[str, object]
) -> tuple[Parameter, ...]:
    """The parameters of every ``@pytest.mark.parametrize`` among ``decorators``."""
    out: list[Parameter] = []
    for dec in decorators:
        if not (isinstance(dec, ast.Call) and _dotted(dec.func).endswith("parametrize")):
            continue
        names = _argnames(_call_argument(dec, 0, "argnames"), env)
        rows = _argvalues(_call_argument(dec, 1, "argvalues"), len(names), env)
        for k, name in enumerate(names):
            out.append(Parameter(name, tuple(row[k] for row in rows) if rows else ()))
    return tuple(out)


def _argnames(node: ast.expr | None, env: Mapping[str, object]) -> list[str]:
    value = _try_literal(node, env) if node is not None else None
    if isinstance(value, str):
        names = [part.strip() for part in value.split(",")]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        names = [str(v).strip() for v in value]
    else:
        return []
    return [n for n in names if n.isidentifier()]


def _argvalues(
    node: ast.expr | None, width: int, env: Mapping[str, object]
) -> list[tuple[object, ...]] | None:
    """One row per parameter set (``pytest.param`` unwrapped), or None if not literal."""
    if node is None or width == 0:
        return None
    items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else None
    values = [_param_value(e, env) for e in items] if items is not None else None
    if values is None:
        literal = _try_literal(node, env)
        values = literal if isinstance(literal, list) else None
    if values is None or any(v is _UNKNOWN for v in values):
        return None
    if width == 1:
        return [(v,) for v in values]
    rows = [tuple(v) for v in values if isinstance(v, list) and len(v) == width]
    return rows if len(rows) == len(values) else None


def _param_value(node: ast.expr, env: Mapping[str, object]) -> object:
    """A parametrize entry, seeing through ``pytest.param(value, ..., id=...)``."""
    if isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] == "param":
        values = [_try_literal(a, env, _UNKNOWN) for a in node.args]
        if any(v is _UNKNOWN for v in values):
            return _UNKNOWN
        return values[0] if len(values) == 1 else values
    return _try_literal(node, env, _UNKNOWN)


def _test_evidence(tests: Sequence[FoundBenchmark]) -> tuple[str, ...]:
    by_file: dict[str, int] = {}
    for test in tests:
        by_file[test.path] = by_file.get(test.path, 0) + 1
    return tuple(
        f"{path}: {count} test{'s' if count > 1 else ''} use{'' if count > 1 else 's'} "
        "the benchmark fixture"
        for path, count in by_file.items()
    )


def _pytest_notes(tests: Sequence[FoundBenchmark]) -> list[str]:
    """What would stop perfguard from reading these tests' JSON, and how to fix it."""
    notes = []
    flat = [_where(t) for t in tests if not t.numeric()]
    if flat:
        notes.append(
            "no numeric parameter, and perfguard takes the sizes from the parametrization "
            '(e.g. @pytest.mark.parametrize("n", [256, 1024, 4096, 16384, 65536])), so it '
            f"refuses a JSON file with these: {_listed(flat)}"
        )
    notes += _few_sizes(tests)
    names = {tuple(p.name for p in t.numeric()) for t in tests if t.numeric()}
    if len(names) > 1:
        shown = ", ".join(sorted("/".join(n) for n in names))
        notes.append(
            f"the tests use different numeric parameters ({shown}); every benchmark in one "
            "JSON file needs the same ones, so rename them or run them separately"
        )
    return notes


def _few_sizes(found: Sequence[FoundBenchmark]) -> list[str]:
    few = [
        _where(b)
        for b in found
        if any(p.sizes is not None and len(set(p.sizes)) < _MIN_SIZES for p in b.parameters)
    ]
    if not few:
        return []
    return [
        f"fewer than {_MIN_SIZES} sizes, too few for a model (add more, and wider: a factor "
        f"of 64 or more): {_listed(few)}"
    ]


def _where(bench: FoundBenchmark) -> str:
    return f"{bench.name} ({bench.path}:{bench.line})"


def _listed(items: Sequence[str], limit: int = 5) -> str:
    """``a, b, c and 4 more``: a list that stays short in a comment."""
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


# ---------------------------------------------------------------- asv


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
    settings, problem = _asv_settings(_read_text(conf) or "")
    notes = [f"{problem}; assuming the default benchmark_dir"] if problem else []
    directory = settings.get("benchmark_dir", "benchmarks")
    if not isinstance(directory, str) or not directory.strip():
        notes.append('asv.conf.json: benchmark_dir is not a folder name; using "benchmarks"')
        directory = "benchmarks"
    folder = root / directory
    if not folder.is_dir():
        notes.append(f"asv.conf.json: benchmark_dir {_quoted(directory)} does not exist")
    found = _asv_benchmarks(root, folder) if folder.is_dir() else []
    parametrized = [b for b in found if b.parameters]
    evidence = (
        f"asv.conf.json (benchmark_dir {_quoted(directory)}): {len(found)} benchmark"
        f"{'' if len(found) == 1 else 's'}, {len(parametrized)} parametrized",
    )
    notes += _asv_notes(found)
    return _Asv(_relative(folder, root), evidence, tuple(found), tuple(notes))


def _asv_benchmarks(root: Path, folder: Path) -> list[FoundBenchmark]:
    found = []
    # Adapters import from the config's folder (the root): benchmarks.bench_sort.
    package = [p for p in _relative(folder, root).split("/") if p not in ("", ".", "..")]
    for path in _python_files(folder, lambda name: name.endswith(".py")):
        parts = list(path.relative_to(folder).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        text = _read_text(path)
        tree = _parse(text) if text is not None else None
        if not parts or tree is None:
            continue
        found += _asv_in_module(
            tree, ".".join(parts), ".".join(package + parts), _relative(path, root)
        )
    return found


def _asv_in_module(tree: ast.Module, name: str, module: str, path: str) -> list[FoundBenchmark]:
    """asv benchmarks of one file: ``time_*``/``peakmem_*`` functions and methods."""
    env = _module_constants(tree)
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
    node: _Function,
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
        for target, value in _assignments(stmt):
            if isinstance(target, ast.Name):
                members[target.id] = value
    return members


def _assignments(stmt: ast.stmt) -> Iterator[tuple[ast.expr, ast.expr]]:
    if isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            yield target, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        yield stmt.target, stmt.value


def _function_attributes(tree: ast.Module) -> dict[str, dict[str, ast.expr]]:
    """``time_f.params = ...`` and ``time_f.param_names = ...`` at module level."""
    out: dict[str, dict[str, ast.expr]] = {}
    for stmt in tree.body:
        for target, value in _assignments(stmt):
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                out.setdefault(target.value.id, {})[target.attr] = value
    return out


def _asv_parameters(
    params: ast.AST | None, names: ast.AST | None, env: Mapping[str, object]
) -> tuple[Parameter, ...]:
    """asv's ``params`` (one list, or a list of lists) named by ``param_names`` (or param1...)."""
    if not isinstance(params, ast.expr):
        return ()
    value = _try_literal(params, env)
    given = _try_literal(names, env) if isinstance(names, ast.expr) else None
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
    groups = [
        ("not parametrized, so measured at one size only and not suggested", []),
        ("no numeric parameter, so nothing to model", []),
        ("params that are not literal values: fill in the sizes", []),
    ]
    for bench in found:
        if not bench.parameters:
            groups[0][1].append(bench.name)
        elif not bench.numeric():
            groups[1][1].append(_where(bench))
        elif any(not p.values for p in bench.parameters):
            groups[2][1].append(_where(bench))
    notes = [f"{why}: {_listed(names)}" for why, names in groups if names]
    return notes + _few_sizes(found)


# ---------------------------------------------------------------- literal values


class _NotLiteral(Exception):
    """An expression that ``_literal`` does not evaluate."""


_UNKNOWN = object()


def _power(base: object, exponent: object) -> object:
    b, e = _number(base), _number(exponent)
    if abs(e) > 64 or abs(b) > 2**32:
        raise _NotLiteral
    return b**e


_BINARY: dict[type[ast.operator], Callable[[object, object], object]] = {
    ast.Add: lambda a, b: _number(a) + _number(b),
    ast.Sub: lambda a, b: _number(a) - _number(b),
    ast.Mult: lambda a, b: _number(a) * _number(b),
    ast.Div: lambda a, b: operator.truediv(_number(a), _number(b)),
    ast.FloorDiv: lambda a, b: operator.floordiv(_number(a), _number(b)),
    ast.Pow: _power,
}


def _number(value: object) -> int | float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    raise _NotLiteral


def _is_size(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e300


def _try_literal(node: ast.AST | None, env: Mapping[str, object], default: object = None) -> object:
    if node is None:
        return default
    try:
        return _literal(node, env)
    except (_NotLiteral, ArithmeticError, RecursionError):
        return default


def _literal(node: ast.AST, env: Mapping[str, object]) -> object:
    """The value of a constant expression: numbers, text, lists, arithmetic, range, [f(k) for k]."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e, env) for e in node.elts]
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _number(_literal(node.operand, env))
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_literal(node.left, env), _literal(node.right, env))
    if isinstance(node, ast.Call) and _dotted(node.func) in ("range", "list", "tuple"):
        return _call(node, env)
    if isinstance(node, ast.ListComp):
        return _comprehension(node, env)
    raise _NotLiteral


def _call(node: ast.Call, env: Mapping[str, object]) -> list[object]:
    if node.keywords:
        raise _NotLiteral
    args = [_literal(a, env) for a in node.args]
    if _dotted(node.func) != "range":
        if len(args) != 1 or not isinstance(args[0], list):
            raise _NotLiteral
        return args[0]
    ints = [a for a in args if isinstance(a, int)]
    if not 1 <= len(ints) == len(args) <= 3:
        raise _NotLiteral
    values = range(*ints)
    if len(values) > _MAX_VALUES:
        raise _NotLiteral
    return list(values)


def _comprehension(node: ast.ListComp, env: Mapping[str, object]) -> list[object]:
    """``[2**k for k in range(8, 17)]``: one ``for`` over a literal, no conditions."""
    if len(node.generators) != 1:
        raise _NotLiteral
    gen = node.generators[0]
    items = _literal(gen.iter, env)
    if gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name):
        raise _NotLiteral
    if not isinstance(items, list) or len(items) > _MAX_VALUES:
        raise _NotLiteral
    return [_literal(node.elt, {**env, gen.target.id: item}) for item in items]


def _module_constants(tree: ast.Module) -> dict[str, object]:
    """Module-level ``NAME = literal`` assignments, in order (``SIZES = [2**k for ...]``)."""
    env: dict[str, object] = {}
    for stmt in tree.body:
        for target, value in _assignments(stmt):
            if isinstance(target, ast.Name):
                literal = _try_literal(value, env, _UNKNOWN)
                if literal is _UNKNOWN:
                    env.pop(target.id, None)
                else:
                    env[target.id] = literal
    return env


# ---------------------------------------------------------------- project facts


def _installable(root: Path) -> bool:
    """Whether ``pip install -e .`` can install the project (setup.py/cfg or a build table)."""
    if (root / "setup.py").is_file() or (root / "setup.cfg").is_file():
        return True
    text = _read_text(root / "pyproject.toml") or ""
    return bool(re.search(r"^\s*\[(project|build-system|tool\.poetry)\]", text, re.MULTILINE))


# ---------------------------------------------------------------- rendering


class _Template(string.Template):
    """``@@{name}`` placeholders: ``$`` is everywhere in shell and GitHub expressions."""

    delimiter = "@@"


def _template(name: str) -> str:
    return (resources.files("guard") / "templates" / name).read_text(encoding="utf-8")


def _fill(template: str, /, **values: object) -> str:
    """A template with every placeholder filled (KeyError for a missing one), no final newline."""
    return _Template(_template(template)).substitute(values).rstrip("\n")


def _one_line(text: str) -> str:
    """Text safe inside a YAML comment: control characters (newlines too) become spaces."""
    return re.sub(r"[\x00-\x1f\x7f]", " ", text)


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def _commented(text: str) -> str:
    """``text`` with every YAML line commented out at column 0 (one uncomment restores it)."""
    lines = text.splitlines()
    return "\n".join(line if not line or line.startswith("#") else f"# {line}" for line in lines)


def _comment_block(sentences: Iterable[str], first: str = "#   - ", rest: str = "#     ") -> str:
    """Sentences as wrapped YAML comment bullets."""
    lines = []
    for sentence in sentences:
        lines += textwrap.wrap(
            _one_line(sentence),
            _NOTE_WIDTH,
            initial_indent=first,
            subsequent_indent=rest,
            break_on_hyphens=False,
            break_long_words=False,
        )
    return "\n".join(lines)


def _number_text(value: object) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value) if isinstance(value, (int, float)) else _quoted(str(value))


def _flow_list(values: Iterable[object]) -> str:
    return "[" + ", ".join(_number_text(v) for v in values) + "]"


def _render_config(project: ProjectKind) -> str:
    param, known = _main_parameter(project)
    about = _about(project)
    if project.notes:
        about += "\n#\n# Notes from perfguard init:\n" + _comment_block(project.notes)
    sections = {
        "parameters": _fill("section-parameters.tmpl", entries=_parameter_entries(project)),
        "run": _fill("section-run.tmpl", budget=_DEFAULT_BUDGET),
        "benchmarks": _fill("section-benchmarks.tmpl", entries=_benchmark_entries(project)),
    }
    if project.kind == "pytest-benchmark":  # measured by pytest, not by perfguard run
        sections = {key: _commented(text) for key, text in sections.items()}
    text = _fill(
        "perfguard.yml.tmpl",
        about=about,
        expect=_fill("section-expect.tmpl", rules=_expect_rules(project, param, known)),
        check=_fill("section-check.tmpl", param=param, param_known="" if known else "# "),
        **sections,
    )
    return text + "\n"


def _about(project: ProjectKind) -> str:
    if project.kind == "plain":
        return _fill("about-plain.tmpl")
    evidence = _comment_block(project.evidence)
    return _fill(f"about-{project.kind}.tmpl", evidence=evidence)


def _main_parameter(project: ProjectKind) -> tuple[str, bool]:
    """The size parameter to write expectations in, and whether it came from the project."""
    if project.kind == "plain":
        return "n", True
    for bench in project.benchmarks:
        numeric = bench.numeric()
        if numeric:
            return numeric[0].name, True
    return "n", False


def _parameter_entries(project: ProjectKind) -> str:
    """``parameters:`` lines: the detected asv sizes (union per name), else an example range."""
    sizes: dict[str, set[float]] = {}
    for bench in project.benchmarks if project.kind == "asv" else ():
        for p in bench.numeric():
            sizes.setdefault(p.name, set()).update(p.sizes or ())
    if not sizes:
        return '  n: "2^8..2^16" # 256, 512, ..., 65536: nine sizes'
    lines = []
    for name, values in sizes.items():
        if len(values) >= _MIN_SIZES:
            lines.append(f"  {name}: {_flow_list(sorted(values))}")
        elif values:
            lines.append(
                f"  {name}: {_flow_list(sorted(values))} # from asv: add sizes, a model needs "
                f"{_MIN_SIZES}"
            )
        else:
            lines.append(f'  {name}: "2^8..2^16" # asv\'s values are not literal: set them')
    if len(sizes) > 1:
        lines.insert(0, "  # every benchmark gets every parameter: keep the ones you use")
    return "\n".join(lines)


def _benchmark_entries(project: ProjectKind) -> str:
    if project.kind != "asv":
        return _fill("benchmark-example.tmpl")
    suggestions = [_asv_suggestion(b) for b in project.benchmarks if b.numeric()]
    if not suggestions:
        return "  # (no parametrized asv benchmark was found: add benchmarks here)"
    return "\n\n".join(suggestions)


def _asv_suggestion(bench: FoundBenchmark) -> str:
    """One asv benchmark as a commented perfguard benchmark with its adapter."""
    adapter = re.sub(r"\W", "_", bench.name)
    sizes = ", ".join(
        f"{p.name}: {_flow_list(p.values) if p.sizes else _quoted('2^8..2^16')}"
        for p in bench.numeric()
    )
    what = "method" if "." in bench.call else "function"
    return _fill(
        "benchmark-asv.tmpl",
        name=_one_line(bench.name),
        what=what,
        where=_one_line(f"{bench.path}:{bench.line}"),
        adapter=adapter,
        adapter_code=_adapter_code(bench, adapter),
        metric=bench.metric,
        parameters="{" + sizes + "}",
    )


def _adapter_code(bench: FoundBenchmark, adapter: str) -> str:
    """The adapter to write, as comment lines: perfguard's callable contract around asv's."""
    numeric = [p.name for p in bench.numeric()]
    args = ", ".join(_cast(p) if p.name in numeric else repr(p.values[0]) for p in bench.parameters)
    owner, _, method = bench.call.rpartition(".")
    lines = [f"from {bench.module} import {owner or bench.call}"]
    lines.append(f"def {adapter}({', '.join(numeric)}):")
    if owner:
        lines.append(f"    bench = {owner}()")
        if bench.setup:
            lines.append(f"    bench.setup({args})")
        lines.append(f"    return lambda: bench.{method}({args})")
    else:
        lines.append(f"    return lambda: {bench.call}({args})")
    fixed = [p.name for p in bench.parameters if p.name not in numeric]
    if fixed:
        lines.append(f"# {', '.join(fixed)}: fixed to asv's first value; add a benchmark per value")
    return "\n".join(f"  #     {_one_line(line)}" for line in lines)


def _cast(p: Parameter) -> str:
    """perfguard passes sizes as floats; asv's integer values get int() back."""
    integral = bool(p.values) and all(isinstance(v, int) for v in p.values)
    return f"int({p.name})" if integral or not p.values else p.name


def _expect_rules(project: ProjectKind, param: str, known: bool) -> str:
    """``expect:`` lines: a placeholder per detected benchmark, then a catch-all."""
    rules = _placeholder_rules(project)
    lines = ["  # Placeholders: replace each with the class you expect."] if rules else []
    rules.append(("*", f"<= {param}^2", "any other kernel: at worst quadratic"))
    keys = [_quoted(pattern) + ":" for pattern, _, _ in rules]
    values = [_quoted(expectation) for _, expectation, _ in rules]
    key_width, value_width = max(map(len, keys)), max(map(len, values))
    for key, value, (_, _, comment) in zip(keys, values, rules):
        line = f"  {key:<{key_width}} {value:<{value_width}}  # {comment}"
        lines.append(line if known else _commented(line))
    if not known:
        lines.insert(0, "  # No size parameter was found: write yours in these rules.")
    return "\n".join(lines)


def _placeholder_rules(project: ProjectKind) -> list[tuple[str, str, str]]:
    """(glob, expectation, comment) per detected benchmark with a size; exact names first."""
    exact, globs = [], []
    seen = set()
    for bench in project.benchmarks:
        numeric = bench.numeric()
        if not numeric or bench.name in seen:
            continue
        seen.add(bench.name)
        where = _one_line(f"{bench.path}:{bench.line}")
        expectation = f"<= {numeric[0].name}^2"
        if project.kind == "pytest-benchmark" and len(numeric) < len(bench.parameters):
            # Text parameters become part of the kernel's name: test_sort[kind=list].
            pattern = f"{bench.name}[[]*"
            globs.append((pattern, expectation, f"{where}; {bench.name}[kind=...]"))
        else:
            exact.append((bench.name, expectation, where))
    # A longer glob first, so test_sort[[]* cannot take test_sort_fast[...]'s kernels.
    globs.sort(key=lambda rule: -len(rule[0]))
    return exact + globs


def _install_command(project: ProjectKind) -> str:
    parts = []
    if project.requirements:
        parts.append("-r requirements.txt")
    if project.installable:
        parts.append("-e .")
    if project.kind == "pytest-benchmark":
        parts.append("pytest pytest-benchmark")
    if not parts:
        return "true"
    return "python -m pip install " + " ".join(parts)


def _render_workflow(project: ProjectKind, action_ref: str | None = None) -> str:
    if project.kind == "pytest-benchmark":
        measure = 'python -m pytest --benchmark-only --benchmark-json="$OUT"'
    else:
        measure = 'perfguard run -c perfguard.yml -o "$OUT"'
    text = _fill(
        "workflow.yml.tmpl",
        python_version=_PYTHON_VERSION,
        install=_install_command(project),
        measure=measure,
        action_at="@" + action_reference(action_ref),
    )
    return text + "\n"


WORKFLOWS = {
    "check": None,  # the project's own benchmark tool, then perfguard check (no token)
    "pull-request": ("workflow-pull-request.yml",),
    "fork-safe": ("workflow-fork-measure.yml", "workflow-fork-comment.yml"),
}
_FORK_NAMES = {
    "workflow-pull-request.yml": "perfguard.yml",
    "workflow-fork-measure.yml": "perfguard-measure.yml",
    "workflow-fork-comment.yml": "perfguard-comment.yml",
}


def render_action_workflows(kind: str, action_ref: str | None = None) -> list[InitFile]:
    """The workflows that use the perfguard action: one for pull requests, or the pair."""
    names = WORKFLOWS.get(kind)
    if not names:
        raise UsageError(f"--workflow must be one of {', '.join(WORKFLOWS)}")
    ref = action_reference(action_ref)
    return [
        InitFile(
            PurePosixPath(".github/workflows") / _FORK_NAMES[name],
            _fill(name, action_at="@" + ref) + "\n",
        )
        for name in names
    ]


MAX_SHARDS = 256  # GitHub Actions runs at most 256 jobs of one matrix
MATRIX_PATH = PurePosixPath(".github/workflows/perfguard.yml")
PAGES_PATH = PurePosixPath(".github/workflows/perfguard-pages.yml")


def render_matrix_workflows(shards: int, action_ref: str | None = None) -> list[InitFile]:
    """The matrix workflow over ``shards`` runners, and the Pages workflow its site job calls."""
    if not 2 <= shards <= MAX_SHARDS:
        raise UsageError(
            f"--shards {shards}: give 2 to {MAX_SHARDS} (one runner needs no matrix; "
            f"GitHub runs at most {MAX_SHARDS} jobs of one matrix)"
        )
    at = "@" + action_reference(action_ref)
    matrix = _fill(
        "workflow-matrix.yml",
        action_at=at,
        count=shards,
        shards=", ".join(str(i) for i in range(1, shards + 1)),
    )
    pages = _fill("workflow-pages.yml", action_at=at)
    return [InitFile(MATRIX_PATH, matrix + "\n"), InitFile(PAGES_PATH, pages + "\n")]


_SHA = re.compile(r"[0-9a-f]{40}")


def action_reference(explicit: str | None = None) -> str:
    """What follows ``perfguard/perfguard@`` in a written workflow.

    A 40-hex commit: given, or the commit perfguard itself was installed from when that is
    a git checkout (an editable install, the action's own folder).  Otherwise the release
    tag, with an inline ignore for zizmor's unpinned-uses audit and the reason: pin it.
    """
    sha = (explicit or "").strip().lower() or _own_commit()
    if explicit and not _SHA.fullmatch(sha):
        raise UsageError(f"--action-ref {explicit!r}: give a full 40-hex commit SHA")
    if sha and _SHA.fullmatch(sha):
        return f"{sha} # perfguard's commit"
    return (
        "v0 # zizmor: ignore[unpinned-uses] perfguard could not tell its own commit: "
        "replace v0 with a commit SHA of perfguard/perfguard"
    )


def _own_commit() -> str:
    """The commit of the git checkout perfguard runs from, if it is one and clean."""
    package = Path(__file__).resolve().parent
    head, _ = git(package, "rev-parse", "HEAD")
    status, _ = git(package, "status", "--porcelain", "--untracked-files=no", "--", ".")
    return head if head and status == "" else ""


# ---------------------------------------------------------------- writing


def _target(root: Path, relative: PurePosixPath) -> Path:
    if relative.is_absolute() or ".." in relative.parts:
        raise UsageError(f"{relative}: init only writes inside the project folder")
    return root / relative


def _write_atomic(target: Path, text: str) -> None:
    """Write through a temporary file in the same folder and ``os.replace`` it into place."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(temp, 0o644)
        os.replace(temp, target)
    except OSError as exc:
        Path(temp).unlink(missing_ok=True)
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
