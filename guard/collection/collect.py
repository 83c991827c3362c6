"""From a validated perfguard.yml to a measurement set: choose benchmarks, run, record where."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from ..config import Config, RunConfig
from ..errors import UsageError
from ..measurements import MeasurementSet, RunInfo
from .environment import git_state, machine_info, now_iso
from .executors import Executor, RoutingExecutor
from .runner import RunEvent, run_benchmarks
from .spec import BenchmarkSpec, resolve_benchmarks, select_shard

__all__ = ["plan_benchmarks", "run_options", "collect", "run_info"]


def plan_benchmarks(
    config: Config, names: Sequence[str] | None = None, shard: tuple[int, int] | None = None
) -> list[BenchmarkSpec]:
    """The benchmarks this invocation runs: all, the named ones, or one shard of them."""
    specs = resolve_benchmarks(config, names)
    if shard is not None:
        specs = select_shard(specs, *shard)
        if not specs:
            raise UsageError(
                f"shard {shard[0]}/{shard[1]} has no benchmarks (there are fewer benchmarks "
                "than shards); lower N"
            )
    return specs


def run_options(config: Config, budget: float | None = None, seed: int | None = None) -> RunConfig:
    """The ``run:`` section with the command line's overrides."""
    run = config.run
    return replace(
        run,
        budget=run.budget if budget is None else budget,
        seed=run.seed if seed is None else seed,
    )


def run_info(config: Config) -> RunInfo:
    """The commit, branch, dirty flag and machine, for the project the config lives in."""
    git = git_state(config.path.absolute().parent)
    return RunInfo(
        commit=git.commit,
        branch=git.branch,
        started=now_iso(),
        machine=machine_info(),
        dirty=git.dirty,
    )


def collect(
    config: Config,
    specs: Sequence[BenchmarkSpec],
    options: RunConfig,
    executor: Executor | None = None,
    on_event: Callable[[RunEvent], None] = lambda event: None,
    checkpoint: Callable[[MeasurementSet], None] = lambda mset: None,
) -> MeasurementSet:
    """Run the benchmarks and return the measurements with the run's environment."""
    info = run_info(config)
    executor = executor or RoutingExecutor(min_time=options.min_time)
    return run_benchmarks(specs, executor, options, info, on_event=on_event, checkpoint=checkpoint)
