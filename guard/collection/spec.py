"""Benchmarks resolved from perfguard.yml into what the runner executes.

A ``BenchmarkSpec`` is a benchmark with every default filled in, its points listed in
growing size order and its command template checked against the parameters, so
errors surface before anything runs, naming the config line.
"""

from __future__ import annotations

import itertools
import math
import shlex
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..config import BenchmarkConfig, Config
from ..errors import ConfigError, UsageError
from ..measurements import format_at  # re-exported: the runner and the CLI label points
from .timing import UNITS

__all__ = [
    "BenchmarkSpec",
    "resolve_benchmarks",
    "select_shard",
    "parse_shard",
    "format_at",
    "command_argv",
    "keyword_arguments",
]


@dataclass(frozen=True)
class BenchmarkSpec:
    """One benchmark ready to run: how to execute it and at which points (smallest first)."""

    name: str
    kind: Literal["command", "callable"]
    target: tuple[str, ...] | str
    shell: bool
    metric: str
    unit: str | None
    repetitions: int | Literal["auto"]
    timeout: float
    warmup: int
    parameters: tuple[str, ...]
    points: tuple[tuple[float, ...], ...]
    folder: Path
    instruction_counter: str = "auto"  # for metric instructions: auto, perf or valgrind

    def at(self, point: tuple[float, ...]) -> dict[str, float]:
        """The point as a parameter mapping."""
        return dict(zip(self.parameters, point))


def resolve_benchmarks(config: Config, names: Sequence[str] | None = None) -> list[BenchmarkSpec]:
    """Every runnable benchmark of the config (or only ``names``), in config order."""
    if not config.parameters and not config.benchmarks:  # bounds only: pytest-benchmark's
        raise ConfigError(
            "no benchmarks: section to measure; give the measurements instead, e.g. "
            "pytest-benchmark's: pytest --benchmark-json=bench.json, then perfguard check "
            "bench.json (or perfguard ci --measurements bench.json)",
            str(config.path),
        )
    if not config.parameters:
        raise ConfigError(
            'no parameters: section; declare the sizes, e.g. parameters: {n: "2^8..2^16"}',
            str(config.path),
        )
    chosen = list(config.benchmarks)
    if names is not None:
        unknown = sorted(set(names) - {b.name for b in chosen})
        if unknown:
            raise UsageError(
                f"no benchmark named {unknown[0]!r} in {config.path}; "
                f"known: {', '.join(b.name for b in chosen) or 'none'}"
            )
        chosen = [b for b in chosen if b.name in names]
    if not chosen:
        raise ConfigError(
            "no benchmarks: section to run; add one with a command or a callable",
            str(config.path),
        )
    return [_spec(config, bench) for bench in chosen]


def parse_shard(text: str) -> tuple[int, int]:
    """``"i/N"`` (1-based, as in a GitHub Actions matrix) -> (i, N)."""
    index, _, count = text.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        i = n = 0
    if n < 1 or not 1 <= i <= n:
        raise UsageError(f"--shard wants i/N with 1 <= i <= N, e.g. 2/4; got {text!r}")
    return i, n


def select_shard(specs: Sequence[BenchmarkSpec], index: int, count: int) -> list[BenchmarkSpec]:
    """The benchmarks of shard ``index`` of ``count``: every count-th one in config order."""
    return [spec for k, spec in enumerate(specs) if k % count == index - 1]


def _spec(config: Config, bench: BenchmarkConfig) -> BenchmarkSpec:
    where = f"benchmarks.{bench.name}"
    if bench.command is None and bench.callable is None:
        raise ConfigError(
            f'{where}: nothing to run; add "command" (e.g. "python bench.py --n {{n}}") '
            'or "callable" ("module:function")',
            str(config.path),
            bench.line,
        )
    run = config.run
    parameters = tuple(config.parameters)
    values = [bench.parameters.get(p, config.parameters[p]) for p in parameters]
    if bench.command is not None:
        _check_placeholders(bench, parameters, str(config.path))
    metric = bench.metric
    if (
        bench.callable is not None
        and metric == "instructions"
        and run.instruction_counter == "perf"
    ):
        raise ConfigError(
            f"{where}.metric: instructions of a callable's timed call are counted by valgrind; "
            "perf counts whole processes, so set run.instruction_counter: valgrind or auto",
            str(config.path),
            bench.line_of("metric"),
        )
    return BenchmarkSpec(
        name=bench.name,
        kind="command" if bench.command is not None else "callable",
        target=bench.command if bench.command is not None else str(bench.callable),
        shell=bench.shell,
        metric=metric,
        unit=UNITS.get(metric),
        repetitions=bench.repetitions if bench.repetitions is not None else run.repetitions,
        timeout=bench.timeout if bench.timeout is not None else run.timeout,
        warmup=bench.warmup if bench.warmup is not None else run.warmup,
        parameters=parameters,
        points=_grid(values),
        folder=config.path.absolute().parent,
        instruction_counter=run.instruction_counter,
    )


def _grid(values: Sequence[Sequence[float]]) -> tuple[tuple[float, ...], ...]:
    # Growing "size" order lets the runner stop at the first size that is too slow;
    # for several parameters the product of the values stands in for the size.
    points = itertools.product(*(sorted(v) for v in values))
    return tuple(sorted(points, key=lambda p: (math.prod(p), p)))


def _check_placeholders(bench: BenchmarkConfig, parameters: tuple[str, ...], path: str) -> None:
    template = bench.command
    parts = [template] if isinstance(template, str) else list(template or ())
    for part in parts:
        try:
            fields = [f for _, f, _, _ in string.Formatter().parse(part) if f is not None]
        except ValueError as exc:
            raise ConfigError(
                f"benchmarks.{bench.name}.command: {exc} in {part!r}; write braces as {{{{ }}}}",
                path,
                bench.line_of("command"),
            ) from None
        for name in fields:
            if name not in parameters:
                raise ConfigError(
                    f"benchmarks.{bench.name}.command: unknown placeholder {{{name}}}; "
                    f"the parameters are {', '.join('{' + p + '}' for p in parameters)}",
                    path,
                    bench.line_of("command"),
                )


def command_argv(spec: BenchmarkSpec, point: tuple[float, ...]) -> list[str] | str:
    """The command for one point: argv (no shell), or one string for ``shell: true``."""
    values = {p: _plain(v) for p, v in zip(spec.parameters, point)}
    if isinstance(spec.target, str):
        text = spec.target.format_map(values)
        return text if spec.shell else shlex.split(text)
    argv = [part.format_map(values) for part in spec.target]
    return shlex.join(argv) if spec.shell else argv


def _plain(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def keyword_arguments(spec: BenchmarkSpec, point: tuple[float, ...]) -> Mapping[str, float | int]:
    """The point as keyword arguments: whole numbers as int, so range(n) works."""
    return {
        p: int(v) if float(v).is_integer() else float(v) for p, v in zip(spec.parameters, point)
    }
