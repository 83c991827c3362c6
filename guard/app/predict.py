"""``perfguard predict``: hybrid analytical + ML predictions across the configuration space.

Two steps, so a long measurement (with its own progress display) finishes before training
(with its spinner) starts: ``prepare`` checks every option, reads or measures; ``predict``
trains and predicts.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .inputs import check_format, load, load_optional_config, naming_held
from .run import Measure, measure_config
from .settings import glob_rule

if TYPE_CHECKING:
    from ..config import Config
    from ..measurements import MeasurementSet
    from ..modeling.analytical import AnalyticalModel
    from ..modeling.predict import PredictionRow, Predictor

__all__ = ["PredictRequest", "PredictPlan", "PredictOutcome", "prepare", "predict"]


@dataclass(frozen=True)
class PredictRequest:
    """What ``perfguard predict`` was asked to do."""

    inputs: Sequence[Path] = ()
    config: Path | None = None
    at: Sequence[str] = ()
    grid: Sequence[str] = ()
    kernels: Sequence[str] = ()
    analytical: Sequence[str] = ()  # GLOB=EXPR, before perfguard.yml's
    format: str | None = None
    seed: int = 0


@dataclass(frozen=True)
class PredictPlan:
    """The measurements, the points to predict and each kernel's analytical model."""

    measurements: MeasurementSet
    points: tuple[dict[str, float], ...]
    analytical_for: Callable[[str], AnalyticalModel | None]
    kernels: tuple[str, ...]
    seed: int


@dataclass(frozen=True)
class PredictOutcome:
    """Each trained predictor with its rows at the requested points."""

    results: tuple[tuple[Predictor, list[PredictionRow]], ...]
    asked: bool  # whether any point was given
    skipped: tuple[str, ...] = ()  # kernels left out, each with why
    failed_to_run: bool = False  # a benchmark measured for it crashed or timed out

    def exit_code(self) -> int:
        """0, or 3 where a benchmark it measured failed to execute (as run and check)."""
        return 3 if self.failed_to_run else 0

    def to_json(self) -> dict[str, Any]:
        """The ``perfguard/predictions@1`` document."""
        from ..modeling.predict import predictions_json

        return predictions_json(list(self.results))


def prepare(request: PredictRequest, measure: Measure) -> PredictPlan:
    """Check every option, then read the inputs or measure the config's benchmarks."""
    from ..collection.merge import merge_sets
    from ..config import parse_range
    from ..modeling.hybrid import require_sklearn
    from ..modeling.predict import parse_grid, parse_point

    require_sklearn()  # fail before measuring anything
    check_format(request.format)
    if request.at and request.grid:
        raise UsageError("give either --at points or a --grid, not both")
    overrides = [_analytical_rule(text) for text in request.analytical]
    cfg = load_optional_config(request.config)
    mset = None
    if request.inputs:
        sets = [(str(path), load(path, request.format)) for path in request.inputs]
        mset = sets[0][1] if len(sets) == 1 else merge_sets(sets)
    elif cfg is None:
        raise UsageError(
            "give the measurements to learn from (perfguard predict FILE), or a perfguard.yml "
            "with benchmarks (-c) to measure them first"
        )
    # Points and models are checked before anything is measured: a typo must not cost a run.
    parameters = mset.parameters if mset is not None else _config_parameters(cfg)
    with naming_held(mset):
        points = [parse_point(text, parameters) for text in request.at]
        if request.grid:
            points = parse_grid(list(request.grid), parameters, parse_range)
        names = {k.name for k in mset.kernels} if mset is not None else None
        lookup = _analytical_lookup(cfg, overrides, parameters, names)
    if mset is None:
        assert cfg is not None  # checked above
        mset = measure_config(cfg, measure)
    return PredictPlan(mset, tuple(points), lookup, tuple(request.kernels), request.seed)


def predict(plan: PredictPlan, progress: Callable[[str], None]) -> PredictOutcome:
    """Train a hybrid model per kernel (``progress`` hears each name) and predict."""
    from ..modeling.predict import predict_rows, train_predictors

    mset = plan.measurements
    if not mset.kernels and mset.run.errors:  # "no kernel matches (kernels: none)", exit 2
        from ..errors import CollectionError

        failed = "; ".join(e.sentence() for e in mset.run.errors[:3])
        raise CollectionError(f"no benchmark ran to the end, nothing to predict: {failed}")
    skipped: list[str] = []
    predictors = train_predictors(
        plan.measurements,
        plan.analytical_for,
        list(plan.kernels),
        plan.seed,
        progress=progress,
        skipped=None if plan.kernels else skipped,  # a kernel asked for by name must train
    )
    results = tuple((p, predict_rows(p, list(plan.points))) for p in predictors)
    errors = bool(plan.measurements.run.errors)
    return PredictOutcome(results, bool(plan.points), tuple(skipped), errors)


def _config_parameters(cfg: Config | None) -> tuple[str, ...]:
    return tuple(cfg.parameters) if cfg is not None else ()


def _analytical_rule(text: str) -> tuple[str, str]:
    rule = glob_rule(text)
    if rule is None:
        raise UsageError(f"--analytical {text!r}: expected GLOB=EXPR, e.g. 'sweep=n^3'")
    return rule


def _analytical_lookup(
    cfg: Config | None,
    overrides: Sequence[tuple[str, str]],
    parameters: tuple[str, ...],
    names: set[str] | None = None,
) -> Callable[[str], AnalyticalModel | None]:
    """Kernel name -> its analytical model: --analytical first, then perfguard.yml (only
    of the kernels ``names`` holds, when known)."""
    from ..config import analytical_models
    from ..modeling.analytical import AnalyticalError, parse_analytical

    from_config = analytical_models(cfg, parameters, names) if cfg is not None else {}
    parsed: dict[str, AnalyticalModel] = {}
    for glob, expr in overrides:
        try:
            parsed[glob] = parse_analytical(expr, parameters, Path.cwd())
        except AnalyticalError as exc:
            raise UsageError(f"--analytical {glob}={expr}: {exc}") from None

    def lookup(name: str) -> AnalyticalModel | None:
        glob = next((g for g, _ in overrides if fnmatch.fnmatchcase(name, g)), None)
        return parsed[glob] if glob is not None else from_config.get(name)

    return lookup
