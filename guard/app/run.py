"""``perfguard run``, and the measuring every verb without a measurement file starts with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..defaults import CONFIG_PATH, MEASUREMENTS_PATH
from ..errors import Interrupted, UsageError
from .inputs import check_replaceable, check_writable
from .settings import CheckFlags, check_options

if TYPE_CHECKING:
    from ..collection.spec import BenchmarkSpec
    from ..config import Config, RunConfig
    from ..measurements import MeasurementSet

__all__ = ["Measure", "RunRequest", "RunOutcome", "run", "measure_config", "measured_exit"]


class Measure(Protocol):
    """How benchmarks get measured: ``collection.collect`` with a progress display, in the CLI."""

    def __call__(
        self,
        config: Config,
        specs: Sequence[BenchmarkSpec],
        options: RunConfig,
        checkpoint: Callable[[MeasurementSet], None],
    ) -> MeasurementSet: ...


@dataclass(frozen=True)
class RunRequest:
    """What ``perfguard run`` was asked to do."""

    config: Path = CONFIG_PATH
    output: Path = MEASUREMENTS_PATH
    budget: float | None = None
    shard: str | None = None
    benchmarks: Sequence[str] = ()
    seed: int | None = None


@dataclass(frozen=True)
class RunOutcome:
    """The measurements, written to ``output``."""

    measurements: MeasurementSet
    output: Path

    def exit_code(self) -> int:
        """130 interrupted (what was measured is kept), 3 a benchmark failed, else 0."""
        if self.measurements.run.interrupted:
            return Interrupted.exit_code
        return measured_exit(0, self.measurements)


def measured_exit(code: int, measurements: MeasurementSet) -> int:
    """A verdict's exit code, except that a benchmark that did not run cannot pass (3): its
    kernels' ``error`` verdicts are that, not unusable input (2)."""
    return 3 if code in (0, 2) and measurements.run.errors else code


def run(request: RunRequest, measure: Measure) -> RunOutcome:
    """Measure the config's benchmarks, keeping ``output`` a valid file all along."""
    from ..collection.collect import plan_benchmarks, run_options
    from ..collection.spec import parse_shard
    from ..config import load_config
    from ..formats.native import save

    cfg = load_config(request.config)
    check_options(cfg, CheckFlags())  # a bound's typo fails now, not after the measuring
    if request.budget is not None and not request.budget > 0:
        raise UsageError(f"--budget must be a positive number of seconds, got {request.budget:g}")
    shard = parse_shard(request.shard) if request.shard else None
    specs = plan_benchmarks(cfg, request.benchmarks or None, shard)
    check_writable(request.output)
    check_replaceable(request.output)
    options = run_options(cfg, request.budget, request.seed)
    mset = measure(cfg, specs, options, lambda partial: save(partial, request.output))
    save(mset, request.output)
    return RunOutcome(mset, request.output)


def measure_config(cfg: Config, measure: Measure) -> MeasurementSet:
    """Every benchmark of the config with its own run settings; interrupted -> ``Interrupted``."""
    from ..collection.collect import plan_benchmarks, run_options

    mset = measure(cfg, plan_benchmarks(cfg), run_options(cfg), lambda partial: None)
    if mset.run.interrupted:
        raise Interrupted(
            "interrupted while measuring: nothing was checked or stored (perfguard run -o FILE "
            "keeps what a run measured)"
        )
    return mset
