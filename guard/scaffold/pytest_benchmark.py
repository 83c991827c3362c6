"""pytest-benchmark projects: tests that take the ``benchmark`` fixture, or the dependency.

Test modules and ``setup.py`` are parsed, never imported; the sizes come from literal
``@pytest.mark.parametrize`` values.
"""

from __future__ import annotations

import ast
import configparser
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from .detect import BENCHMARKS, DEPENDENCY, Detector, Finding, register
from .files import python_files, read_text, relative
from .project import FoundBenchmark, Parameter, few_sizes_notes, listed, located
from .pyast import UNKNOWN, Function, dotted, module_constants, parse_python, try_literal

__all__ = ["DETECTOR"]


def _find(root: Path) -> Finding | None:
    """The tests that use the fixture (decisive), else the dependency alone (a hint)."""
    tests, test_notes = _benchmark_tests(root)
    dependencies = _dependency_evidence(root)
    if not tests and not dependencies:
        return None
    return Finding(
        BENCHMARKS if tests else DEPENDENCY,
        evidence=tuple(dependencies) + _test_evidence(tests),
        benchmarks=tests,
        notes=tuple(test_notes + _pytest_notes(tests)),
    )


DETECTOR = register(
    Detector(
        "pytest-benchmark",
        _find,
        found_as="pytest-benchmark tests",
        checks="the pytest-benchmark tests",
    )
)


_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_MENTION = re.compile(r"(?<![\w.-])pytest[-_.]benchmark(?![\w-])", re.IGNORECASE)


def _is_pytest_benchmark(requirement: str) -> bool:
    """Whether a requirement such as "pytest-benchmark[histogram]>=4" names pytest-benchmark."""
    match = _REQUIREMENT.match(requirement)
    return match is not None and re.sub(r"[-_.]+", "-", match[1]).lower() == "pytest-benchmark"


def _without_hash_comments(text: str) -> str:
    return "\n".join(line.partition("#")[0] for line in text.splitlines())


def _toml_mentions(text: str) -> bool:
    if sys.version_info >= (3, 11):
        import tomllib

        try:
            return any(_is_pytest_benchmark(s) for s in _toml_strings(tomllib.loads(text)))
        except tomllib.TOMLDecodeError:
            pass
    # Python 3.10 (no tomllib) or TOML that does not parse: a plain scan, comments removed
    return bool(_MENTION.search(_without_hash_comments(text)))


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
    tree = parse_python(text)
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
        text = read_text(path)
        if text is not None and mentions(text):
            found.append(f"{relative(path, root)} lists pytest-benchmark")
    return found


def _is_test_file(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def _benchmark_tests(root: Path) -> tuple[tuple[FoundBenchmark, ...], list[str]]:
    """Tests that take the ``benchmark`` fixture, and notes on files that could not be read."""
    found: list[FoundBenchmark] = []
    notes = []
    for path in python_files(root, _is_test_file):
        text = read_text(path)
        if text is None or "benchmark" not in text:
            continue
        tree = parse_python(text)
        if tree is None:
            notes.append(f"{relative(path, root)} is not valid Python; its tests were skipped")
            continue
        found.extend(_tests_in(tree, relative(path, root)))
    return tuple(found), notes


def _tests_in(tree: ast.Module, path: str) -> Iterator[FoundBenchmark]:
    env = module_constants(tree)
    for func, decorators in _test_functions(tree.body, ()):
        if "benchmark" in _argument_names(func):
            parameters = _parametrized(decorators + tuple(func.decorator_list), env)
            yield FoundBenchmark(func.name, path, func.lineno, parameters)


def _test_functions(
    body: Iterable[ast.stmt], decorators: tuple[ast.expr, ...]
) -> Iterator[tuple[Function, tuple[ast.expr, ...]]]:
    """pytest's test functions (``test*``, also in ``Test*`` classes) with class decorators."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name.startswith("test"):
                yield node, decorators
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            yield from _test_functions(node.body, decorators + tuple(node.decorator_list))


def _argument_names(func: Function) -> set[str]:
    args = func.args
    return {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}


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
        if not (isinstance(dec, ast.Call) and dotted(dec.func).endswith("parametrize")):
            continue
        names = _argnames(_call_argument(dec, 0, "argnames"), env)
        rows = _argvalues(_call_argument(dec, 1, "argvalues"), len(names), env)
        for k, name in enumerate(names):
            out.append(Parameter(name, tuple(row[k] for row in rows) if rows else ()))
    return tuple(out)


def _argnames(node: ast.expr | None, env: Mapping[str, object]) -> list[str]:
    value = try_literal(node, env) if node is not None else None
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
        literal = try_literal(node, env)
        values = literal if isinstance(literal, list) else None
    if values is None or any(v is UNKNOWN for v in values):
        return None
    if width == 1:
        return [(v,) for v in values]
    rows = [tuple(v) for v in values if isinstance(v, list) and len(v) == width]
    return rows if len(rows) == len(values) else None


def _param_value(node: ast.expr, env: Mapping[str, object]) -> object:
    """A parametrize entry, seeing through ``pytest.param(value, ..., id=...)``."""
    if isinstance(node, ast.Call) and dotted(node.func).split(".")[-1] == "param":
        values = [try_literal(a, env, UNKNOWN) for a in node.args]
        if any(v is UNKNOWN for v in values):
            return UNKNOWN
        return values[0] if len(values) == 1 else values
    return try_literal(node, env, UNKNOWN)


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
    flat = [located(t) for t in tests if not t.numeric()]
    if flat:
        notes.append(
            "no numeric parameter, and perfguard takes the sizes from the parametrization "
            '(e.g. @pytest.mark.parametrize("n", [256, 1024, 4096, 16384, 65536])), so it '
            f"leaves these out of the JSON file it reads, with a note: {listed(flat)}"
        )
    notes += few_sizes_notes(tests)
    names = {tuple(p.name for p in t.numeric()) for t in tests if t.numeric()}
    if len(names) > 1:
        shown = ", ".join(sorted("/".join(n) for n in names))
        notes.append(
            f"the tests use different numeric parameters ({shown}); a JSON file's kernels "
            "share one set, so perfguard reads the tests over the fewest parameters and "
            "leaves the others out with a note: rename them or run them separately"
        )
    return notes
