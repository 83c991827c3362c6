"""``perfguard model``: every kernel and metric of the inputs, fitted."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import numbers
from ..defaults import PREDICTION_LEVEL
from ..errors import ModelingError, UsageError
from .inputs import check_format, load
from .settings import parse_point, point_for

if TYPE_CHECKING:
    from ..modeling import ModelingResult

__all__ = ["ModelRequest", "ModelOutcome", "model"]


@dataclass(frozen=True)
class ModelRequest:
    """What ``perfguard model`` was asked to do."""

    inputs: tuple[Path, ...]
    format: str | None = None
    modeler: str = "default"
    predict: str | None = None  # "4096", "n=4096" or "p=512,n=9000"
    level: float = PREDICTION_LEVEL
    scaling: str | None = None
    inclusive: bool = False  # CUBE: inclusive values


@dataclass(frozen=True)
class ModelOutcome:
    """Each input's models and skipped kernels; ``predicted`` labels the predicted size."""

    results: tuple[tuple[str, ModelingResult], ...]
    predicted: str | None
    notes: tuple[str, ...] = ()  # about an input as a whole, e.g. how to read its threads
    scaled: bool = False  # --scaling strong made the values total effort

    @property
    def empty(self) -> bool:
        return not any(r.models for _, r in self.results)

    def exit_code(self) -> int:
        """2 when no kernel could be modelled (``raise_if_empty`` says why), else 0."""
        return ModelingError.exit_code if self.empty else 0

    def raise_if_empty(self) -> None:
        if self.empty and not any(r.skipped for _, r in self.results):
            names = ", ".join(path for path, _ in self.results)
            raise ModelingError(f"{names}: no kernels in the input; nothing to model")
        if self.empty:
            raise ModelingError("no kernel could be modelled (see the reasons above)")

    def to_json(self) -> dict[str, Any]:
        """The ``perfguard/models@1`` document: every model and skipped kernel, with its input."""
        from ..modeling.pmnf import MODELS_SCHEMA

        models: list[dict[str, Any]] = []
        skipped: list[dict[str, Any]] = []
        for path, result in self.results:
            models += [{**m.to_json(), "input": path} for m in result.models]
            skipped += [
                {"kernel": s.kernel, "metric": s.metric, "reasons": list(s.reasons), "input": path}
                for s in result.skipped
            ]
        return {"schema": MODELS_SCHEMA, "models": models, "skipped": skipped}


def model(request: ModelRequest) -> ModelOutcome:
    """Fit every input; options are checked before any file is read."""
    from ..modeling import get_modeler, model_measurements

    impl = get_modeler(request.modeler)
    check_format(request.format)
    if not 0 < request.level < 1:
        raise UsageError(f"--level must lie between 0 and 1, got {request.level}")
    point = parse_point(request.predict)
    results = []
    notes: list[str] = []
    label: str | None = None
    for path in request.inputs:
        mset = load(path, request.format, request.scaling, request.inclusive)
        notes += mset.notes
        if not mset.kernels and len(request.inputs) > 1:  # alone, the error says it
            notes.append(f"{path}: holds no kernels; nothing to model in it")
        at = None if point is None else point_for(point, mset.parameters, path)
        if at is not None and label is None:
            named = at if isinstance(at, dict) else {mset.parameters[0]: at}
            label = ", ".join(numbers.at(q, v) for q, v in named.items())
        fitted = model_measurements(mset, impl, predict_at=at, level=request.level)
        results.append((str(path), fitted))
    scaled = (request.scaling or "").startswith("strong")
    return ModelOutcome(tuple(results), label, tuple(notes), scaled)
