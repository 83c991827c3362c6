"""Load ``perfguard.yml`` into frozen config objects; every error names file:line and key.

Values are read from PyYAML's node tree (``yaml.compose`` with the safe loader)
rather than from ``yaml.safe_load``: the nodes carry line numbers, so each message
can point at the offending key or value, and duplicate keys, which ``safe_load``
silently collapses into the last one, can be caught. Expectation strings are only
checked to be non-empty here; parsing them is the expectations module's job.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, TypeVar

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.reader import ReaderError

from .defaults import CONFIDENCE, MIN_TIME
from .errors import ConfigError
from .modeling.analytical import AnalyticalError, AnalyticalModel, parse_analytical

__all__ = [
    "SUPPORTED_VERSIONS",
    "METRICS",
    "INSTRUCTION_COUNTERS",
    "DEFAULT_CONFIDENCE",
    "MAX_RANGE_VALUES",
    "BenchmarkConfig",
    "ExpectRule",
    "CheckConfig",
    "RunConfig",
    "Config",
    "load_config",
    "parse_range",
    "expectation_rules",
    "analytical_models",
]

SUPPORTED_VERSIONS = (1,)
METRICS = ("time", "cpu", "memory", "instructions", "custom")
DEFAULT_CONFIDENCE = CONFIDENCE
# A typo such as "1..1e9 +1" should fail fast instead of planning a billion runs.
MAX_RANGE_VALUES = 10_000

_TOP_KEYS = ("version", "parameters", "run", "benchmarks", "expect", "check")
_BENCHMARK_KEYS = (
    "expect",
    "metric",
    "command",
    "callable",
    "repetitions",
    "timeout",
    "warmup",
    "shell",
    "parameters",
    "analytical",
)
_RUN_KEYS = (
    "budget",
    "benchmark_budget",
    "size_limit",
    "repetitions",
    "min_repetitions",
    "max_repetitions",
    "noise_target",
    "min_time",
    "timeout",
    "warmup",
    "seed",
    "round_correction",
    "instruction_counter",
)
INSTRUCTION_COUNTERS = ("auto", "perf", "valgrind")
_CHECK_KEYS = ("baseline", "target", "max_class", "max_slowdown", "confidence", "strict")
_TAG = "tag:yaml.org,2002:"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+\Z")
_CALLABLE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z")
_NUM = r"\d+\^[+-]?\d+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"
_RANGE = re.compile(rf"\s*({_NUM})\s*\.\.\s*({_NUM})\s*(?:([x*+])\s*({_NUM}))?\s*\Z")
_RANGE_SYNTAX = (
    '"2^i..2^j" (doubling), "a..b xF" (geometric, factor F) or "a..b +S" (arithmetic, step S)'
)
_COLLECTION = object()  # what _scalar returns for a mapping or list: fails every type test

T = TypeVar("T")


@dataclass(frozen=True)
class BenchmarkConfig:
    """One entry of ``benchmarks:``; ``line`` is where its name is written (1-based)."""

    name: str
    expect: str | None
    metric: str
    command: tuple[str, ...] | str | None
    callable: str | None
    repetitions: int | Literal["auto"] | None
    timeout: float | None
    warmup: int | None
    shell: bool
    line: int
    expect_line: int | None = None
    parameters: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    lines: Mapping[str, int] = field(default_factory=dict, compare=False)
    analytical: str | None = None

    def line_of(self, key: str) -> int:
        """The line of this benchmark's ``key`` (the benchmark's own line if absent)."""
        return self.lines.get(key, self.line)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lines", MappingProxyType(dict(self.lines)))
        if isinstance(self.command, list):
            object.__setattr__(self, "command", tuple(self.command))
        params = {str(k): tuple(float(v) for v in vs) for k, vs in self.parameters.items()}
        object.__setattr__(self, "parameters", MappingProxyType(params))


@dataclass(frozen=True)
class RunConfig:
    """The ``run:`` section: how ``perfguard run`` spends its time; every field has a default.

    ``budget`` bounds the whole run and ``benchmark_budget`` each benchmark (seconds);
    sizes stop growing once one measurement at a size takes longer than ``size_limit``.
    ``repetitions`` is the default for benchmarks that do not set their own: a number,
    or "auto" (between ``min_repetitions`` and ``max_repetitions``, stopping once the
    median's relative uncertainty is below ``noise_target``). In-process callables are
    looped until one repetition lasts ``min_time`` seconds. ``round_correction`` divides
    timings by the machine's speed in their round (see ``collection/blocking.py``).
    ``instruction_counter`` says what counts ``metric: instructions``: ``perf`` (hardware
    counters, commands only), ``valgrind``, or ``auto`` (perf where it counts, else valgrind).
    """

    budget: float = 300.0
    benchmark_budget: float | None = None
    size_limit: float = 1.0
    repetitions: int | Literal["auto"] = "auto"
    min_repetitions: int = 3
    max_repetitions: int = 15
    noise_target: float = 0.03
    min_time: float = MIN_TIME
    timeout: float = 60.0
    warmup: int = 1
    seed: int = 0
    round_correction: bool = True
    instruction_counter: str = "auto"


@dataclass(frozen=True)
class ExpectRule:
    """A kernel-name glob and the expectation for kernels it matches; ``source`` is file:line."""

    pattern: str
    expectation: str
    line: int
    source: str
    literal: bool = False  # a benchmark's own expect: its name, not a glob


@dataclass(frozen=True)
class CheckConfig:
    """The ``check:`` section; every field has the documented default."""

    baseline: Path | None = None
    target: Mapping[str, float] = field(default_factory=dict)
    max_class: str | None = None
    max_class_line: int | None = None
    max_slowdown: float | None = None
    confidence: float = DEFAULT_CONFIDENCE
    strict: bool = False

    def __post_init__(self) -> None:
        target = {str(k): float(v) for k, v in self.target.items()}
        object.__setattr__(self, "target", MappingProxyType(target))


@dataclass(frozen=True)
class Config:
    """A validated ``perfguard.yml``; ``path`` is the file as it was given to ``load_config``."""

    path: Path
    version: int
    parameters: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    benchmarks: tuple[BenchmarkConfig, ...] = ()
    expect: tuple[ExpectRule, ...] = ()
    check: CheckConfig = field(default_factory=CheckConfig)
    run: RunConfig = field(default_factory=RunConfig)

    def __post_init__(self) -> None:
        params = {str(k): tuple(float(v) for v in vs) for k, vs in self.parameters.items()}
        object.__setattr__(self, "parameters", MappingProxyType(params))
        object.__setattr__(self, "benchmarks", tuple(self.benchmarks))
        object.__setattr__(self, "expect", tuple(self.expect))


class _Invalid(Exception):
    """A problem at one node; ``load_config`` adds the file name and turns it into ConfigError."""

    def __init__(self, node: Node, key: str, message: str):
        self.line = node.start_mark.line + 1
        super().__init__(f"{key}: {message}" if key else message)


# ---------------------------------------------------------------- public functions


def load_config(path: str | Path) -> Config:
    """Read and validate a perfguard.yml; raise ConfigError naming file:line:key on any problem."""
    path = Path(path)
    display = str(path)
    root = _compose(_read_text(path, display), display)
    if root is None:
        raise ConfigError('file is empty; a config needs at least "version: 1"', display)
    try:
        return _config(root, path)
    except _Invalid as exc:
        raise ConfigError(str(exc), display, exc.line) from None


def parse_range(text: str) -> tuple[float, ...]:
    """Expand "2^i..2^j", "a..b xF" or "a..b +S" into its values; ValueError if malformed."""
    match = _RANGE.match(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"bad range {_quote(text)}: expected {_RANGE_SYNTAX}")
    start, stop = _range_number(match[1], text), _range_number(match[2], text)
    if start <= 0:
        raise ValueError(f"bad range {_quote(text)}: values must be > 0")
    if start > stop:
        raise ValueError(
            f"bad range {_quote(text)}: the start {match[1]} exceeds the end {match[2]}"
        )
    if match[3] is None:
        return _doubling(start, stop, text)
    step = _range_number(match[4], text)
    if match[3] == "+":
        return _arithmetic(start, stop, step, text)
    return _geometric(start, stop, step, text)


def analytical_models(
    config: Config, parameters: tuple[str, ...], names: Collection[str] | None = None
) -> dict[str, AnalyticalModel]:
    """Each benchmark's ``analytical:`` model over these (the measurements') parameters;
    with ``names``, only of those benchmarks (the kernels a file holds: one perfguard.yml
    serves files of other kernels and parameters, as ``check``'s rules do).

    Raises :class:`ConfigError` at the model's line when it names a parameter the
    measurements do not have, or its callable cannot be imported.
    """
    out = {}
    for bench in config.benchmarks:
        if bench.analytical is None or (names is not None and bench.name not in names):
            continue
        try:
            out[bench.name] = parse_analytical(bench.analytical, parameters, config.path.parent)
        except AnalyticalError as exc:
            line = bench.line_of("analytical")
            key = f"benchmarks.{bench.name}.analytical"
            raise ConfigError(f"{key}: {exc}", str(config.path), line) from None
    return out


def expectation_rules(config: Config) -> tuple[ExpectRule, ...]:
    """Benchmark ``expect``s (pattern = exact name) first, then the ``expect:`` globs in order."""
    own = []
    for bench in config.benchmarks:
        if bench.expect is not None:
            line = bench.expect_line if bench.expect_line is not None else bench.line
            own.append(ExpectRule(bench.name, bench.expect, line, f"{config.path}:{line}", True))
    return tuple(own) + config.expect


# ---------------------------------------------------------------- reading the file


def _read_text(path: Path, display: str) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        hint = (
            " (`perfguard init` writes one for a project)" if path.name == "perfguard.yml" else ""
        )
        raise ConfigError(f"no such file{hint}", display) from None
    except IsADirectoryError:
        raise ConfigError("is a directory, expected a YAML file", display) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", display) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError("not UTF-8 text", display, line) from None


def _compose(text: str, display: str) -> Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise ConfigError(f"invalid YAML: {_yaml_problem(exc)}", display, line) from None
    except ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise ConfigError(f"invalid YAML: {exc.reason}", display, line) from None
    except RecursionError:
        raise ConfigError("invalid YAML: nested too deeply", display) from None


def _yaml_problem(exc: yaml.MarkedYAMLError) -> str:
    """PyYAML's context and problem as one sentence, e.g. "while parsing ..., expected ..."."""
    text = ", ".join(part for part in (exc.context, exc.problem) if part)
    start, end = exc.context_mark, exc.problem_mark
    if start is not None and end is not None and start.line != end.line:
        text += f" (started on line {start.line + 1})"
    if exc.context == "while scanning an alias":
        text += '; a glob such as * must be quoted: "*"'
    return text


# ---------------------------------------------------------------- sections


def _config(root: Node, path: Path) -> Config:
    if not isinstance(root, MappingNode):
        raise _Invalid(root, "", f"expected a mapping at the top level, got {_show(root)}")
    top = _entries(root, "")
    version = _version(top, root)
    _check_keys(top, "", _TOP_KEYS)
    parameters = _parameters(_get(top, "parameters"))
    return Config(
        path=path,
        version=version,
        parameters=parameters,
        benchmarks=_benchmarks(_get(top, "benchmarks"), parameters),
        expect=_expect_section(_get(top, "expect"), str(path)),
        check=_check_section(_get(top, "check"), path.absolute().parent),
        run=_run_section(_get(top, "run")),
    )


def _version(top: dict[str, tuple[Node, Node]], root: Node) -> int:
    supported = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
    if "version" not in top:
        raise _Invalid(
            root, "version", f'missing required key; add "version: 1" (supported: {supported})'
        )
    node = top["version"][1]
    value = _scalar(node, "version")
    if not _is_int(value):
        raise _Invalid(
            node,
            "version",
            f"expected an integer, got {_show(node)}; supported versions: {supported}",
        )
    if value not in SUPPORTED_VERSIONS:
        raise _Invalid(
            node, "version", f"unsupported version {value}; supported versions: {supported}"
        )
    return value


def _parameters(
    node: Node | None, prefix: str = "parameters", known: Mapping[str, Any] | None = None
) -> dict[str, tuple[float, ...]]:
    out = {}
    for name, (key_node, value_node) in _entries(node, prefix).items():
        key = _join(prefix, name)
        _check_name(key_node, name, key, "parameter")
        if known is not None and name not in known:
            declared = ", ".join(known) or "none"
            raise _Invalid(
                key_node,
                key,
                f"not a parameter of the top-level parameters: section (declared: {declared}); "
                "a benchmark may only narrow the values of declared parameters",
            )
        out[name] = _parameter_values(value_node, key)
    return out


def _parameter_values(node: Node, key: str) -> tuple[float, ...]:
    if isinstance(node, SequenceNode):
        return _number_list(node, key)
    value = _scalar(node, key)
    if isinstance(value, str):
        try:
            return parse_range(value)
        except ValueError as exc:
            raise _Invalid(node, key, str(exc)) from None
    raise _Invalid(
        node,
        key,
        f'expected a list of positive numbers or a range like "2^10..2^16", got {_show(node)}',
    )


def _number_list(node: SequenceNode, key: str) -> tuple[float, ...]:
    if not node.value:
        raise _Invalid(node, key, "expected at least one value, got an empty list")
    values: list[float] = []
    for i, item in enumerate(node.value):
        value = _positive(item, f"{key}[{i}]")
        if value in values:
            raise _Invalid(item, f"{key}[{i}]", f"duplicate value {_show(item)}")
        values.append(value)
    return tuple(values)


def _benchmarks(node: Node | None, parameters: Mapping[str, Any]) -> tuple[BenchmarkConfig, ...]:
    entries = _entries(node, "benchmarks")
    return tuple(_benchmark(name, k, v, parameters) for name, (k, v) in entries.items())


def _benchmark(
    name: str, key_node: Node, node: Node, parameters: Mapping[str, Any]
) -> BenchmarkConfig:
    key = _join("benchmarks", name)
    if not name.strip():
        raise _Invalid(key_node, key, "a benchmark name must not be empty")
    fields = _entries(node, key)
    _check_keys(fields, key, _BENCHMARK_KEYS)
    _exclusive(fields, key, "command", "callable")
    metric = _field(fields, key, "metric", _metric)
    shell = _field(fields, key, "shell", _flag)
    return BenchmarkConfig(
        name=name,
        expect=_field(fields, key, "expect", _text),
        metric="time" if metric is None else metric,
        command=_field(fields, key, "command", _command),
        callable=_field(fields, key, "callable", _callable),
        repetitions=_field(fields, key, "repetitions", _repetitions),
        timeout=_field(fields, key, "timeout", _positive),
        warmup=_field(fields, key, "warmup", _non_negative_int),
        shell=False if shell is None else shell,
        line=_line(key_node),
        expect_line=_line(fields["expect"][1]) if "expect" in fields else None,
        parameters=_parameters(_get(fields, "parameters"), _join(key, "parameters"), parameters),
        lines={name: _line(value) for name, (_, value) in fields.items()},
        analytical=_analytical(_get(fields, "analytical"), _join(key, "analytical"), parameters),
    )


def _analytical(node: Node | None, key: str, parameters: Mapping[str, Any]) -> str | None:
    """An expression over the parameters (checked now) or "module:function" (imported later)."""
    if node is None:
        return None
    text = _text(node, key)
    if _CALLABLE.match(text.strip()):
        return text.strip()
    try:
        parse_analytical(text, tuple(parameters))
    except AnalyticalError as exc:
        raise _Invalid(node, key, str(exc)) from None
    return text


def _run_section(node: Node | None) -> RunConfig:
    fields = _entries(node, "run")
    _check_keys(fields, "run", _RUN_KEYS)
    values: dict[str, Any] = {}
    readers: dict[str, Callable[[Node, str], Any]] = {
        "budget": _positive,
        "benchmark_budget": _positive,
        "size_limit": _positive,
        "repetitions": _repetitions,
        "min_repetitions": _positive_int,
        "max_repetitions": _positive_int,
        "noise_target": _fraction,
        "min_time": _positive,
        "timeout": _positive,
        "warmup": _non_negative_int,
        "seed": _non_negative_int,
        "round_correction": _flag,
        "instruction_counter": _instruction_counter,
    }
    for name, reader in readers.items():
        value = _field(fields, "run", name, reader)
        if value is not None:
            values[name] = value
    run = RunConfig(**values)
    if run.min_repetitions > run.max_repetitions:
        # The defaults agree, so the file gives at least one of the two: point at it.
        _, culprit = fields.get("min_repetitions") or fields["max_repetitions"]
        raise _Invalid(
            culprit,
            "run.min_repetitions",
            f"{run.min_repetitions} exceeds run.max_repetitions ({run.max_repetitions})",
        )
    return run


def _expect_section(node: Node | None, display: str) -> tuple[ExpectRule, ...]:
    rules = []
    for pattern, (key_node, value_node) in _entries(node, "expect").items():
        key = _join("expect", pattern)
        if not pattern.strip():
            raise _Invalid(key_node, key, "a kernel-name pattern must not be empty")
        expectation = _text(value_node, key)
        line = _line(value_node)
        rules.append(ExpectRule(pattern, expectation, line, f"{display}:{line}"))
    return tuple(rules)


def _check_section(node: Node | None, folder: Path) -> CheckConfig:
    fields = _entries(node, "check")
    _check_keys(fields, "check", _CHECK_KEYS)
    baseline = _field(fields, "check", "baseline", _text)
    confidence = _field(fields, "check", "confidence", _confidence)
    strict = _field(fields, "check", "strict", _flag)
    return CheckConfig(
        baseline=None if baseline is None else folder / Path(baseline).expanduser(),
        target=_target(_get(fields, "target")),
        max_class=_field(fields, "check", "max_class", _text),
        max_class_line=_line(fields["max_class"][1]) if "max_class" in fields else None,
        max_slowdown=_field(fields, "check", "max_slowdown", _slowdown),
        confidence=DEFAULT_CONFIDENCE if confidence is None else confidence,
        strict=False if strict is None else strict,
    )


def _target(node: Node | None) -> dict[str, float]:
    out = {}
    for name, (key_node, value_node) in _entries(node, "check.target").items():
        key = _join("check.target", name)
        _check_name(key_node, name, key, "parameter")
        out[name] = _positive(value_node, key)
    return out


# ---------------------------------------------------------------- mappings and keys


def _entries(node: Node | None, key: str) -> dict[str, tuple[Node, Node]]:
    """A mapping's entries by key name, in file order; null counts as an empty mapping."""
    if node is None or _is_null(node):
        return {}
    if not isinstance(node, MappingNode):
        raise _Invalid(node, key, f"expected a mapping, got {_show(node)}")
    own: dict[str, tuple[Node, Node]] = {}
    merged: dict[str, tuple[Node, Node]] = {}
    for key_node, value_node in node.value:
        if key_node.tag == _TAG + "merge":
            for name, pair in _merged(value_node, key).items():
                merged.setdefault(name, pair)
            continue
        name = _key_name(key_node, key)
        if name in own:
            first = _line(own[name][0])
            raise _Invalid(key_node, _join(key, name), f"duplicate key (first on line {first})")
        own[name] = (key_node, value_node)
    return {**merged, **own}


def _merged(node: Node, key: str) -> dict[str, tuple[Node, Node]]:
    """Entries pulled in by a YAML merge key (``<<: *defaults``); earlier mappings win."""
    if isinstance(node, MappingNode):
        return _entries(node, key)
    if isinstance(node, SequenceNode) and all(isinstance(n, MappingNode) for n in node.value):
        out: dict[str, tuple[Node, Node]] = {}
        for item in node.value:
            for name, pair in _entries(item, key).items():
                out.setdefault(name, pair)
        return out
    raise _Invalid(node, key, f"<< expects a mapping or a list of mappings, got {_show(node)}")


def _key_name(node: Node, key: str) -> str:
    if not isinstance(node, ScalarNode):
        raise _Invalid(node, key, f"keys must be plain text, got {_show(node)} as a key")
    return node.value


def _check_keys(
    entries: Mapping[str, tuple[Node, Node]], key: str, allowed: tuple[str, ...]
) -> None:
    for name, (key_node, _) in entries.items():
        if name not in allowed:
            close = difflib.get_close_matches(name, allowed, n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            where = f"under {key}" if key else "at the top level"
            raise _Invalid(
                key_node,
                _join(key, name),
                f"unknown key{hint}; allowed {where}: {', '.join(allowed)}",
            )


def _check_name(node: Node, name: str, key: str, what: str) -> None:
    if not _NAME.match(name):
        raise _Invalid(
            node, key, f"a {what} name must be letters, digits and _ (not starting with a digit)"
        )


def _exclusive(fields: Mapping[str, tuple[Node, Node]], key: str, first: str, second: str) -> None:
    if first in fields and second in fields:
        a, b = sorted((first, second), key=lambda name: _line(fields[name][0]))
        raise _Invalid(
            fields[b][0],
            _join(key, b),
            f'cannot be combined with "{a}" (line {_line(fields[a][0])}): '
            f"{first} and {second} are mutually exclusive; keep one",
        )


def _get(entries: Mapping[str, tuple[Node, Node]], name: str) -> Node | None:
    return entries[name][1] if name in entries else None


def _field(
    entries: Mapping[str, tuple[Node, Node]],
    prefix: str,
    name: str,
    reader: Callable[[Node, str], T],
) -> T | None:
    if name not in entries:
        return None
    return reader(entries[name][1], _join(prefix, name))


def _join(prefix: str, name: str) -> str:
    part = name if _PLAIN_KEY.match(name) else json.dumps(name)
    return f"{prefix}.{part}" if prefix else part


def _line(node: Node) -> int:
    return node.start_mark.line + 1


# ---------------------------------------------------------------- scalar readers


def _text(node: Node, key: str) -> str:
    value = _scalar(node, key)
    if isinstance(value, str) and value.strip():
        return value
    hint = ' (quote placeholders: "{n}")' if _is_flow_mapping(node) else ""
    raise _Invalid(node, key, f"expected a non-empty string, got {_show(node)}{hint}")


def _command(node: Node, key: str) -> str | tuple[str, ...]:
    if isinstance(node, SequenceNode):
        if not node.value:
            raise _Invalid(node, key, "expected at least one string, got an empty list")
        return tuple(_text(item, f"{key}[{i}]") for i, item in enumerate(node.value))
    if isinstance(_scalar(node, key), str):
        return _text(node, key)
    hint = ' (quote placeholders: "{n}")' if _is_flow_mapping(node) else ""
    raise _Invalid(node, key, f"expected a string or a list of strings, got {_show(node)}{hint}")


def _callable(node: Node, key: str) -> str:
    value = _text(node, key)
    if not _CALLABLE.match(value):
        raise _Invalid(node, key, f'expected "module:function", got {_show(node)}')
    return value


def _metric(node: Node, key: str) -> str:
    value = _scalar(node, key)
    if not isinstance(value, str) or value not in METRICS:
        raise _Invalid(node, key, f"expected one of {', '.join(METRICS)}, got {_show(node)}")
    return value


def _instruction_counter(node: Node, key: str) -> str:
    value = _scalar(node, key)
    if not isinstance(value, str) or value not in INSTRUCTION_COUNTERS:
        raise _Invalid(
            node, key, f"expected one of {', '.join(INSTRUCTION_COUNTERS)}, got {_show(node)}"
        )
    return value


def _repetitions(node: Node, key: str) -> int | Literal["auto"]:
    value = _scalar(node, key)
    if value == "auto":
        return "auto"
    if _is_int(value) and value > 0:
        return value
    raise _Invalid(node, key, f'expected a positive integer or "auto", got {_show(node)}')


def _non_negative_int(node: Node, key: str) -> int:
    value = _scalar(node, key)
    if _is_int(value) and value >= 0:
        return value
    raise _Invalid(node, key, f"expected a non-negative integer, got {_show(node)}")


def _positive_int(node: Node, key: str) -> int:
    value = _scalar(node, key)
    if _is_int(value) and value > 0:
        return value
    raise _Invalid(node, key, f"expected a positive integer, got {_show(node)}")


def _fraction(node: Node, key: str) -> float:
    value = _number(_scalar(node, key))
    if value is None or not 0 < value < 1:
        raise _Invalid(
            node, key, f"expected a number between 0 and 1 (both excluded), got {_show(node)}"
        )
    return value


def _flag(node: Node, key: str) -> bool:
    value = _scalar(node, key)
    if isinstance(value, bool):
        return value
    raise _Invalid(node, key, f"expected true or false, got {_show(node)}")


def _positive(node: Node, key: str) -> float:
    value = _number(_scalar(node, key))
    if value is None or value <= 0:
        raise _Invalid(node, key, f"expected a positive number, got {_show(node)}")
    return value


def _slowdown(node: Node, key: str) -> float:
    value = _number(_scalar(node, key))
    if value is None or value <= 1:
        raise _Invalid(node, key, f"expected a number greater than 1, got {_show(node)}")
    return value


def _confidence(node: Node, key: str) -> float:
    value = _number(_scalar(node, key))
    if value is None or not 0.5 < value < 1:
        raise _Invalid(
            node, key, f"expected a number between 0.5 and 1 (both excluded), got {_show(node)}"
        )
    return value


def _scalar(node: Node, key: str) -> Any:
    """The Python value of a scalar node, or ``_COLLECTION`` for a mapping or list."""
    if not isinstance(node, ScalarNode):
        return _COLLECTION
    try:
        return SafeConstructor().construct_object(node)
    except ConstructorError:
        raise _Invalid(node, key, f"unsupported YAML tag {node.tag}") from None
    except ValueError:  # an integer of thousands of digits (Python's conversion limit)
        raise _Invalid(node, key, "a number too long to read") from None


def _number(value: Any) -> float | None:
    """A finite float from a YAML number or a numeric string such as "1e6", else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_null(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.tag == _TAG + "null"


def _is_flow_mapping(node: Node) -> bool:
    return isinstance(node, MappingNode) and bool(node.flow_style)


def _show(node: Node) -> str:
    """A short rendering of a value for messages: strings quoted, other scalars as written."""
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    if _is_null(node):
        return "null"
    text = json.dumps(node.value) if node.tag == _TAG + "str" else node.value
    return text if len(text) <= 40 else text[:37] + "..."


# ---------------------------------------------------------------- ranges


def _range_number(token: str, text: str) -> float:
    try:
        if "^" in token:
            base, exponent = token.split("^")
            value = float(base) ** int(exponent)
        else:
            value = float(token)
    except (OverflowError, ZeroDivisionError):
        value = math.inf
    if not math.isfinite(value):
        raise ValueError(f"bad range {_quote(text)}: {token} is out of range")
    return value


def _doubling(start: float, stop: float, text: str) -> tuple[float, ...]:
    (m1, e1), (m2, e2) = math.frexp(start), math.frexp(stop)
    if m1 != 0.5 or m2 != 0.5:
        raise ValueError(
            f"bad range {_quote(text)}: without a step both ends must be powers of two "
            '(like "2^10..2^16"); add " xF" or " +S" for other ranges'
        )
    return _checked_count(e2 - e1 + 1, text, lambda k: math.ldexp(1.0, e1 - 1 + k))


def _geometric(start: float, stop: float, factor: float, text: str) -> tuple[float, ...]:
    if factor <= 1:
        raise ValueError(f"bad range {_quote(text)}: the factor must be greater than 1")
    steps = math.log(stop / start) / math.log(factor)  # inf where stop / start overflows
    count = math.floor(steps + 1e-9) + 1 if math.isfinite(steps) else MAX_RANGE_VALUES + 1
    return _checked_count(count, text, lambda k: _tidy(start * factor**k))


def _arithmetic(start: float, stop: float, step: float, text: str) -> tuple[float, ...]:
    if step <= 0:
        raise ValueError(f"bad range {_quote(text)}: the step must be greater than 0")
    steps = (stop - start) / step  # inf for a step that is tiny beside the span
    count = math.floor(steps + 1e-9) + 1 if math.isfinite(steps) else MAX_RANGE_VALUES + 1
    return _checked_count(count, text, lambda k: _tidy(start + k * step))


def _checked_count(count: int, text: str, value: Callable[[int], float]) -> tuple[float, ...]:
    if count > MAX_RANGE_VALUES:
        raise ValueError(
            f"bad range {_quote(text)}: {count} values, more than the limit of {MAX_RANGE_VALUES}"
        )
    return tuple(value(k) for k in range(count))


def _tidy(value: float) -> float:
    # 0.1 + 2 * 0.1 is 0.30000000000000004; fifteen digits keep what the user meant. A whole
    # number stays as it is: 16 * 16^13 is 2^56 exactly, and fifteen digits would pass the
    # benchmark 72057594037927904 (a value with 51 bits set) instead.
    return value if value.is_integer() else float(f"{value:.15g}")


def _quote(text: object) -> str:
    return json.dumps(text) if isinstance(text, str) else repr(text)
