"""``perfguard check``: measurements (read or measured) -> verdicts, and the markdown report."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from .inputs import (
    check_format,
    check_writable,
    load,
    load_optional_config,
    naming_held,
    require_kernels,
    write_text,
)
from .run import Measure, measure_config, measured_exit
from .settings import CheckFlags, check_options

if TYPE_CHECKING:
    from ..checking.verdicts import CheckReport
    from ..measurements import MeasurementSet

__all__ = ["CheckRequest", "CheckOutcome", "check"]


@dataclass(frozen=True)
class CheckRequest:
    """What ``perfguard check`` was asked to do; ``current=None`` measures the config first."""

    current: Path | None = None
    baseline: Path | None = None
    config: Path | None = None
    flags: CheckFlags = field(default_factory=CheckFlags)
    format: str | None = None
    scaling: str | None = None
    markdown: Path | None = None
    inclusive: bool = False  # CUBE: inclusive values


@dataclass(frozen=True)
class CheckOutcome:
    """The verdicts and the measurements they judged."""

    report: CheckReport
    current: MeasurementSet

    def exit_code(self, fail_on: str = "any") -> int:
        """0 pass, 1 a scalability bug (of the kind ``fail_on`` names), 2 unusable input,
        3 a benchmark that failed to execute."""
        from ..checking.verdicts import exit_code

        return measured_exit(exit_code(self.report, fail_on), self.current)


def check(request: CheckRequest, measure: Measure) -> CheckOutcome:
    """Judge the current measurements against their bounds and the baseline."""
    from ..checking.check import check as judge
    from ..checking.sentences import missing_notes
    from ..modeling import get_modeler

    get_modeler(request.flags.modeler)  # a bad option fails before anything is read
    check_format(request.format)
    if request.markdown is not None:
        check_writable(request.markdown, "--markdown")
    cfg = load_optional_config(request.config)
    if request.current is None and cfg is None:
        raise UsageError(
            "give the measurements to check (perfguard check CURRENT), or a perfguard.yml "
            "with benchmarks (-c) to measure them first"
        )
    options = check_options(cfg, request.flags)
    base_path = request.baseline or (cfg.check.baseline if cfg is not None else None)
    reading = (request.format, request.scaling, request.inclusive)
    baseline = (
        require_kernels(load(base_path, *_baseline_reading(base_path, reading)), base_path)
        if base_path
        else None
    )
    if request.current is not None:
        current = require_kernels(load(request.current, *reading), request.current)
    else:
        assert cfg is not None  # checked above
        if baseline is not None:  # before the suite is measured, not after
            from ..checking.check import same_parameters

            same_parameters(baseline.parameters, tuple(cfg.parameters), f"{cfg.path}'s")
        current = measure_config(cfg, measure)
    if baseline is not None and not {k.key for k in current.kernels} & {
        k.key for k in baseline.kernels
    }:
        # a gate given another suite's file as its baseline compares nothing: not a pass
        (why,) = missing_notes(baseline, {k.key for k in current.kernels})
        raise UsageError(f"{base_path}: {why}")
    with naming_held(current, baseline):
        report = judge(current, baseline, options)
    report = _with_falling_note(report, request)
    if request.config is None and cfg is not None:  # the same data judged elsewhere differs
        note = f"bounds and settings from ./{cfg.path.name} (found here; -c names another)"
        report = dataclasses.replace(report, notes=(*report.notes, note))
    if request.markdown is not None:
        from ..reporting.markdown import render_report
        from .departures import analytical_facts

        facts = analytical_facts(cfg, current) if cfg is not None else {}
        text = render_report(report, current, baseline, facts=facts)
        write_text(request.markdown, text, "--markdown")
    return CheckOutcome(report, current)


def _baseline_reading(
    path: Path, reading: tuple[str | None, str | None, bool]
) -> tuple[str | None, str | None, bool]:
    """How to read the baseline: as CURRENT is (``-f``), unless it is perfguard's own file
    (a tool's output checked against a history or ``ci`` run: the natural CI pairing)."""
    from ..formats import is_native

    format, scaling, inclusive = reading
    return (None if format is not None and is_native(path) else format, scaling, inclusive)


def _with_falling_note(report: CheckReport, request: CheckRequest) -> CheckReport:
    """The report, with a note where kernels fall as a parameter grows (in either run: a
    candidate that lost scalability may no longer fall)."""
    from ..reporting.models import falling_note

    scaled = (request.scaling or "").startswith("strong")
    falling = [
        next((m for m in (v.model, v.baseline_model) if m is not None and m.extra("falls")), None)
        for v in report.verdicts
    ]
    note = falling_note("", [m for m in falling if m is not None], scaled)
    return report if note is None else dataclasses.replace(report, notes=(*report.notes, note))
