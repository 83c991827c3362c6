"""The ``perfguard`` command line: the only module that prints, reads argv and picks exit codes."""

from __future__ import annotations

import fnmatch
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape

from . import __version__, numbers
from .defaults import FORMAT_NAMES, HISTORY_PATH, MODELER_NAMES
from .errors import ModelingError, PerfguardError, UsageError

if TYPE_CHECKING:  # the rest of the package loads with the verb that needs it
    from .checking.check import CheckOptions, ExpectationRule
    from .checking.verdicts import CheckReport
    from .config import Config
    from .measurements import MeasurementSet
    from .modeling import ModelingResult
    from .modeling.analytical import AnalyticalModel

__all__ = ["app", "main"]

app = typer.Typer(
    name="perfguard",
    help="Catch scalability bugs before they merge: fit empirical performance models "
    "(PMNF) to benchmark measurements and check their asymptotic class.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: fast to start, and what a CI log shows anyway
)
_state: dict[str, bool] = {"debug": False}
SCALING_HELP = (
    "Score-P/CUBE folders: weak (every process's value is a repetition; default), "
    "weak_threaded (the same without locations that recorded 0) or strong (a profile's "
    "processes summed)."
)

INCLUSIVE_HELP = (
    "Score-P/CUBE folders: a call path's inclusive values (its callees' included), "
    "as Extra-P's 'use inclusive measurements'; exclusive by default."
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"perfguard {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    _state["debug"] = debug


@app.command("model")
def model_cmd(
    inputs: list[Path] = typer.Argument(
        ..., metavar="FILE", help="Measurement files (format auto-detected).", show_default=False
    ),
    format: str | None = typer.Option(
        None, "--format", "-f", help=f"Force the input format: {', '.join(FORMAT_NAMES)}."
    ),
    modeler: str = typer.Option(
        "default", "--modeler", "-m", help=f"Modeler: {', '.join(MODELER_NAMES)}."
    ),
    predict: str | None = typer.Option(
        None,
        "--predict",
        "-p",
        help="Predict every single-parameter model at this size (e.g. 4096 or n=4096), "
        "with an interval.",
        show_default=False,
    ),
    level: float = typer.Option(0.9, "--level", help="Coverage of the prediction interval."),
    as_json: bool = typer.Option(False, "--json", help="Print perfguard/models@1 JSON."),
    scaling: str | None = typer.Option(None, "--scaling", help=SCALING_HELP, show_default=False),
    inclusive: bool = typer.Option(False, "--inclusive", help=INCLUSIVE_HELP),
) -> None:
    """Fit a PMNF model to every kernel and metric and print them.

    An input may be a folder of Score-P experiment folders (app.p64n1000.r1/profile.cubex).
    """
    from .modeling import get_modeler, model_measurements
    from .reporting.jsonl import dump_document

    impl = get_modeler(modeler)  # fail on a bad option before reading anything
    _check_format(format)
    if not 0 < level < 1:
        raise UsageError(f"--level must lie between 0 and 1, got {level}")
    name, at = _parse_predict(predict)
    results = []
    label: str | None = None
    for path in inputs:
        mset = _load(path, format, scaling, inclusive)
        if name is not None and mset.parameters != (name,):
            raise UsageError(
                f"--predict names {name!r} but {path} has parameters {', '.join(mset.parameters)}"
            )
        label = label or (None if at is None else numbers.at(name or mset.parameters[0], at))
        results.append((str(path), model_measurements(mset, impl, predict_at=at, level=level)))
    _report_skipped(results)
    if not any(r.models for _, r in results):
        raise ModelingError("no kernel could be modelled (see the reasons above)")
    if as_json:
        dump_document(_models_json(results), "models", sys.stdout)
    else:
        _print_models_table(results, label)
        _print_advice(results)


def _load(
    path: Path, format: str | None = None, scaling: str | None = None, inclusive: bool = False
) -> MeasurementSet:
    """A measurement file in any registered format (the registry loads on first use)."""
    from .formats import load

    return load(path, format, scaling, inclusive)


def _check_format(format: str | None) -> None:
    """Fail on a bad --format before any file is read."""
    if format is not None and format not in FORMAT_NAMES:
        raise UsageError(f"unknown format {format!r}; choose one of: {', '.join(FORMAT_NAMES)}")


def _parse_predict(text: str | None) -> tuple[str | None, float | None]:
    """``4096`` or ``n=4096`` -> (parameter name or None, positive value)."""
    if text is None:
        return None, None
    name, _, value = text.rpartition("=")
    try:
        at = float(value)
    except ValueError:
        at = float("nan")
    if not at > 0 or at == float("inf"):
        raise UsageError(f"--predict wants a positive size such as 4096 or n=4096, got {text!r}")
    return (name.strip() or None), at


def _models_json(results: list[tuple[str, ModelingResult]]) -> dict[str, Any]:
    from .modeling.pmnf import MODELS_SCHEMA

    models = []
    skipped = []
    for path, result in results:
        models += [{**m.to_json(), "input": path} for m in result.models]
        skipped += [
            {"kernel": s.kernel, "metric": s.metric, "reasons": list(s.reasons), "input": path}
            for s in result.skipped
        ]
    return {"schema": MODELS_SCHEMA, "models": models, "skipped": skipped}


def _report_skipped(results: list[tuple[str, ModelingResult]]) -> None:
    err = Console(stderr=True, highlight=False)
    for path, result in results:
        for s in result.skipped:
            err.print(
                "[yellow]skipped[/] "
                + escape(f"{path}: kernel {s.kernel!r} metric {s.metric!r}: ")
                + escape("; ".join(s.reasons)),
                markup=True,
                soft_wrap=True,
            )


def _print_models_table(results: list[tuple[str, ModelingResult]], predicted: str | None) -> None:
    from .reporting.models import models_table
    from .reporting.tables import table_width

    width = table_width()
    Console(highlight=False, width=width).print(models_table(results, predicted, width))


def _print_advice(results: list[tuple[str, ModelingResult]]) -> None:
    """One line per model whose class is unsure or whose noise is high, saying what to do."""
    from .reporting.models import advice_lines

    err = Console(stderr=True, highlight=False)
    for line in advice_lines(results):
        err.print(line, soft_wrap=True)


@app.command("check")
def check_cmd(
    current: Path | None = typer.Argument(
        None,
        help="Measurements of the commit under test (any supported format).",
        show_default=False,
    ),
    baseline: Path | None = typer.Option(
        None, "--baseline", "-b", help="Measurements of the baseline commit.", show_default=False
    ),
    expect: list[str] = typer.Option(
        [],
        "--expect",
        "-e",
        metavar="GLOB=EXPR",
        help="GLOB=EXPR, e.g. 'sort*=<= n log n' (repeatable; first match wins).",
    ),
    config: Path | None = typer.Option(
        None,
        "--config",
        "-c",
        help="perfguard.yml (default: ./perfguard.yml when present).",
        show_default=False,
    ),
    format: str | None = typer.Option(
        None, "--format", "-f", help=f"Force the input format: {', '.join(FORMAT_NAMES)}."
    ),
    modeler: str = typer.Option(
        "default", "--modeler", "-m", help=f"Modeler: {', '.join(MODELER_NAMES)}."
    ),
    target: list[str] = typer.Option(
        [],
        "--target",
        "-t",
        metavar="PARAM=VALUE",
        help="Rank and compare at this scale, e.g. n=1e6 (repeatable).",
    ),
    max_class: str | None = typer.Option(
        None, "--max-class", help="Flag any kernel above this class, e.g. 'n'.", show_default=False
    ),
    max_slowdown: float | None = typer.Option(
        None,
        "--max-slowdown",
        help="Also fail when x this much slower than the baseline at the target.",
        show_default=False,
    ),
    confidence: float | None = typer.Option(
        None, "--confidence", help="How sure a failure must be (default 0.99).", show_default=False
    ),
    strict: bool = typer.Option(False, "--strict", help="Inconclusive verdicts fail the build."),
    as_json: bool = typer.Option(False, "--json", help="Print perfguard/verdicts@1 JSON."),
    markdown: Path | None = typer.Option(
        None, "--markdown", help="Also write a markdown report to this file.", show_default=False
    ),
    scaling: str | None = typer.Option(None, "--scaling", help=SCALING_HELP, show_default=False),
    inclusive: bool = typer.Option(False, "--inclusive", help=INCLUSIVE_HELP),
) -> None:
    """Verdicts: pass, fail or inconclusive against declared bounds and the baseline.

    Without CURRENT, the benchmarks of perfguard.yml are measured first (perfguard run).

    Exit codes: 0 pass (inconclusive passes unless --strict), 1 a scalability bug,
    2 usage, config or input error, 3 a benchmark failed to execute.
    """
    from .checking.check import check as run_check
    from .checking.check import parse_rules
    from .checking.verdicts import exit_code
    from .config import analytical_models
    from .modeling import get_modeler
    from .reporting.jsonl import dump_document

    get_modeler(modeler)
    _check_format(format)
    if markdown is not None and not markdown.parent.exists():
        raise UsageError(f"--markdown: folder {markdown.parent} does not exist")
    cfg = _load_check_config(config)
    if current is None and cfg is None:
        raise UsageError(
            "give the measurements to check (perfguard check CURRENT), or a perfguard.yml "
            "with benchmarks (-c) to measure them first"
        )
    options = _check_options(
        cfg, expect, modeler, target, max_class, max_slowdown, confidence, strict
    )
    parse_rules(options)  # a malformed expectation fails before any file is read
    base_path = baseline or (cfg.check.baseline if cfg is not None else None)
    base_set = _load(base_path, format, scaling, inclusive) if base_path is not None else None
    if current is None:
        current_set = _collect_for_check(cfg)  # type: ignore[arg-type]
    else:
        current_set = _load(current, format, scaling, inclusive)
    report = run_check(current_set, base_set, options)
    if markdown is not None:
        from .reporting.markdown import render_report  # jinja2: only for --markdown

        models = analytical_models(cfg, current_set.parameters) if cfg is not None else {}
        text = render_report(report, current_set, base_set, analytical=models)
        markdown.write_text(text, encoding="utf-8")
    if as_json:
        dump_document(report.to_json(), "kernels", sys.stdout)
    else:
        _print_check(report)
    code = exit_code(report)
    if code == 0 and current_set.run.errors:
        code = 3  # a benchmark that did not run cannot pass
    raise typer.Exit(code)


def _collect_for_check(cfg: Config) -> MeasurementSet:
    """``perfguard check`` without CURRENT: run the config's benchmarks first."""
    from .collection.collect import collect, plan_benchmarks, run_options
    from .reporting.progress import RunProgress

    specs = plan_benchmarks(cfg)
    options = run_options(cfg)
    with _sigterm_as_interrupt(), RunProgress(options.budget, len(specs)) as progress:
        mset = collect(cfg, specs, options, on_event=progress)
    if mset.run.interrupted:
        raise typer.Exit(130)
    return mset


def _load_check_config(path: Path | None) -> Config | None:
    from .config import load_config

    if path is not None:
        return load_config(path)
    default = Path("perfguard.yml")
    return load_config(default) if default.is_file() else None


def _check_options(
    cfg: Config | None,
    expect: list[str],
    modeler: str,
    target: list[str],
    max_class: str | None,
    max_slowdown: float | None,
    confidence: float | None,
    strict: bool,
) -> CheckOptions:
    """Command-line values first, then perfguard.yml's, then the defaults."""
    from .checking.check import CheckOptions, ExpectationRule
    from .config import expectation_rules

    rules = [_expect_rule(text) for text in expect]
    check_cfg = cfg.check if cfg is not None else None
    if cfg is not None:
        rules += [
            ExpectationRule(r.pattern, r.expectation, r.source) for r in expectation_rules(cfg)
        ]
    targets = dict(check_cfg.target) if check_cfg is not None else {}
    targets.update(_parse_target(t) for t in target)
    source = "--max-class"
    if max_class is None and check_cfg is not None and check_cfg.max_class is not None:
        max_class = check_cfg.max_class
        source = f"{cfg.path}:{check_cfg.max_class_line}: check.max_class"  # type: ignore[union-attr]
    conf = confidence if confidence is not None else (check_cfg.confidence if check_cfg else 0.99)
    if not 0.5 < conf < 1:
        raise UsageError(f"--confidence must lie between 0.5 and 1, got {conf}")
    slowdown = (
        max_slowdown
        if max_slowdown is not None
        else (check_cfg.max_slowdown if check_cfg else None)
    )
    if slowdown is not None and not slowdown > 1:
        raise UsageError(f"--max-slowdown must be greater than 1, got {slowdown}")
    return CheckOptions(
        rules=tuple(rules),
        max_class=max_class,
        max_class_source=source,
        confidence=conf,
        strict=strict or bool(check_cfg and check_cfg.strict),
        target=targets,
        max_slowdown=slowdown,
        modeler=modeler,
    )


def _expect_rule(text: str) -> ExpectationRule:
    """``GLOB=EXPR``; an expression alone (starting with <, = or ≤) applies to every kernel."""
    from .checking.check import ExpectationRule

    if text.lstrip()[:1] in ("<", "=", "≤"):
        return ExpectationRule("*", text.strip(), "--expect")
    glob, sep, expr = text.partition("=")
    if not sep or not glob.strip() or not expr.strip():
        raise UsageError(f"--expect wants GLOB=EXPR such as 'sort*=<= n log n', got {text!r}")
    return ExpectationRule(glob.strip(), expr.strip(), f"--expect {text!r}")


def _parse_target(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    try:
        at = float(value)
    except ValueError:
        at = float("nan")
    if not sep or not name.strip() or not at > 0 or at == float("inf"):
        raise UsageError(f"--target wants NAME=SIZE such as n=1e6, got {text!r}")
    return name.strip(), at


def _print_check(report: CheckReport) -> None:
    from .reporting.summary import counts_sentence, shown_reasons
    from .reporting.tables import table_width
    from .reporting.terminal import STYLES, verdict_table

    width = table_width()
    console = Console(highlight=False, width=width)
    console.print(verdict_table(report, width))
    for v in report.verdicts:
        for line in shown_reasons(v):
            style = STYLES[v.verdict]
            console.print(
                f"[{style}]{v.verdict}[/] {escape(v.kernel)}: {escape(line)}", soft_wrap=True
            )
    for note in report.notes:
        console.print(f"[yellow]note[/] {escape(note)}", soft_wrap=True)
    style = STYLES[report.status]
    console.print(f"[{style}]perfguard check: {report.status}[/] ({counts_sentence(report)})")


@app.command("report")
def report_cmd(
    verdicts: Path = typer.Argument(
        ...,
        metavar="VERDICTS",
        help="A verdicts@1 file: perfguard check --json, or a report folder's verdicts.json.",
        show_default=False,
    ),
    markdown: Path | None = typer.Option(
        None, "--markdown", help="Write the markdown report here instead of printing the table."
    ),
    current: Path | None = typer.Option(
        None, "--current", help="The checked measurements: adds their charts to --markdown."
    ),
    baseline: Path | None = typer.Option(
        None, "--baseline", "-b", help="The baseline's measurements, for the charts."
    ),
) -> None:
    """Render a saved check again: the terminal table, or the markdown report.

    Nothing is measured or modelled again: the verdicts and models are the file's. Exit
    codes: 0 rendered, 2 a missing or invalid file.
    """
    from .checking.verdicts_json import load_report

    report = load_report(verdicts)
    if markdown is None:
        _print_check(report)
        return
    from .reporting.markdown import render_report

    now = _load(current) if current is not None else None
    before = _load(baseline) if baseline is not None else None
    _check_writable(markdown)
    markdown.write_text(render_report(report, now, before), encoding="utf-8")
    Console(highlight=False).print(f"perfguard report: wrote {escape(str(markdown))}")


@app.command("predict")
def predict_cmd(
    inputs: list[Path] = typer.Argument(
        None,
        metavar="FILE",
        help="Measurement files (any supported format); without them the benchmarks of "
        "perfguard.yml are measured first.",
        show_default=False,
    ),
    config: Path | None = typer.Option(
        None,
        "--config",
        "-c",
        help="perfguard.yml with the analytical: models (default: ./perfguard.yml when present).",
        show_default=False,
    ),
    at: list[str] = typer.Option(
        [],
        "--at",
        metavar="POINT",
        help="Predict here, e.g. n=4096,block=32 (repeatable).",
        show_default=False,
    ),
    grid: list[str] = typer.Option(
        [],
        "--grid",
        metavar="PARAM=VALUES",
        help="Predict over the product of PARAM=VALUES, e.g. n=64..256+64 or bx=8,16 "
        "(one per parameter).",
        show_default=False,
    ),
    kernel: list[str] = typer.Option(
        [], "--kernel", "-k", metavar="GLOB", help="Only kernels matching this glob (repeatable)."
    ),
    analytical: list[str] = typer.Option(
        [],
        "--analytical",
        "-a",
        metavar="GLOB=EXPR",
        help="GLOB=EXPR: an analytical model for matching kernels, e.g. 'sweep=n^3*(1+2/bx)' "
        "(repeatable; overrides perfguard.yml).",
        show_default=False,
    ),
    format: str | None = typer.Option(
        None, "--format", "-f", help=f"Force the input format: {', '.join(FORMAT_NAMES)}."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the trees and the folds."),
    as_json: bool = typer.Option(False, "--json", help="Print perfguard/predictions@1 JSON."),
) -> None:
    """Predict across the configuration space with a hybrid analytical + ML model.

    Extremely randomized trees (scikit-learn, pip install 'perfguard[ml]') learn from the
    measured configurations, stacked on the benchmark's analytical: model and bagged with
    it where it is representative. Prints each prediction with its spread, and how far
    the measurements depart from the analytical model.
    """
    from .collection.merge import merge_sets
    from .config import parse_range

    # Verb-specific imports load with the verb: every other command starts faster.
    from .modeling.hybrid import require_sklearn
    from .modeling.predict import (
        parse_grid,
        parse_point,
        predict_rows,
        predictions_json,
        train_predictors,
    )
    from .reporting.predictions import model_summary, predictions_table

    require_sklearn()  # fail before measuring anything
    _check_format(format)
    if at and grid:
        raise UsageError("give either --at points or a --grid, not both")
    overrides = [_analytical_rule(text) for text in analytical]
    cfg = _load_check_config(config)
    if not inputs and cfg is None:
        raise UsageError(
            "give the measurements to learn from (perfguard predict FILE), or a perfguard.yml "
            "with benchmarks (-c) to measure them first"
        )
    mset = None
    if inputs:
        sets = [(str(path), _load(path, format)) for path in inputs]
        mset = sets[0][1] if len(sets) == 1 else merge_sets(sets)
    # Points and models are checked before anything is measured: a typo must not cost a run.
    parameters = mset.parameters if mset is not None else tuple(cfg.parameters)  # type: ignore[union-attr]
    points = [parse_point(text, parameters) for text in at]
    if grid:
        points = parse_grid(grid, parameters, parse_range)
    lookup = _analytical_lookup(cfg, overrides, parameters)
    if mset is None:
        mset = _collect_for_check(cfg)  # type: ignore[arg-type]
    err = Console(stderr=True, highlight=False)
    with err.status("training the hybrid models") as status:
        predictors = train_predictors(
            mset,
            lookup,
            kernel,
            seed,
            progress=lambda name: status.update(f"training the hybrid model of {name}"),
        )
    results = [(p, predict_rows(p, points)) for p in predictors]
    if as_json:
        doc = predictions_json(results)
        sys.stdout.write(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        return
    out = Console(highlight=False)
    for predictor, rows in results:
        out.print(escape(model_summary(predictor)))
        if rows:
            out.print(predictions_table(predictor, rows))
    if not points:
        err.print("add --at n=...,... or --grid PARAM=VALUES to predict at new configurations")


def _analytical_rule(text: str) -> tuple[str, str]:
    glob, sep, expr = text.partition("=")
    if not sep or not glob.strip() or not expr.strip():
        raise UsageError(f"--analytical {text!r}: expected GLOB=EXPR, e.g. 'sweep=n^3'")
    return glob.strip(), expr.strip()


def _analytical_lookup(
    cfg: Config | None, overrides: list[tuple[str, str]], parameters: tuple[str, ...]
) -> Callable[[str], AnalyticalModel | None]:
    """Kernel name -> its analytical model: --analytical first, then perfguard.yml."""
    from .config import analytical_models
    from .modeling.analytical import AnalyticalError, parse_analytical

    from_config = analytical_models(cfg, parameters) if cfg is not None else {}
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


@app.command("init")
def init_cmd(
    directory: Path = typer.Argument(
        Path("."), help="The project's root folder (the repository root)."
    ),
    force: bool = typer.Option(
        False, "--force", help="Overwrite perfguard.yml and the workflow if they exist."
    ),
    workflow: str = typer.Option(
        "check",
        "--workflow",
        help="check: your benchmark tool, then perfguard check (no token); pull-request: the "
        "perfguard action with a comment; fork-safe: the measure/comment pair for forks.",
    ),
    shards: int | None = typer.Option(
        None,
        "--shards",
        help="Write the matrix workflow instead: N measuring jobs (2-256), one gate, and "
        "the GitHub Pages site of the history (perfguard-pages.yml).",
        show_default=False,
    ),
    action_ref: str | None = typer.Option(
        None,
        "--action-ref",
        help="The perfguard commit SHA the workflows pin (default: the one perfguard was "
        "installed from, when it can tell).",
        show_default=False,
    ),
) -> None:
    """Write a commented perfguard.yml and GitHub Actions workflow(s) for DIR.

    Detects pytest-benchmark and asv benchmarks by reading files; nothing is imported
    or run. Exit codes: 0 written, 2 a file already exists (pass --force) or DIR is not
    a folder.
    """
    if not directory.is_dir():
        raise UsageError(f"{directory} is not a folder; give the project's root folder")
    from .scaffold import detect_project, render_project, write_init

    if shards is not None and workflow != "check":
        raise UsageError("--shards writes the matrix workflow; leave out --workflow")
    project = detect_project(directory)
    files = render_project(project, workflow, action_ref, shards)
    written = write_init(directory, files, force=force)
    console = Console(highlight=False)
    console.print(f"perfguard init: {escape(project.describe())}", soft_wrap=True)
    for path in written:
        console.print(f"[green]wrote[/] {escape(str(path))}")
    for note in project.notes:
        console.print(f"[yellow]note[/] {escape(note)}", soft_wrap=True)
    console.print(
        "next: replace the placeholder expectations in perfguard.yml, then commit both files"
    )


@app.command("run")
def run_cmd(
    config: Path = typer.Option(
        Path("perfguard.yml"), "--config", "-c", help="The perfguard.yml declaring the benchmarks."
    ),
    output: Path = typer.Option(
        Path("measurements.json"),
        "--output",
        "-o",
        help="Where to write perfguard/measurements@1 (kept valid during the run).",
    ),
    budget: float | None = typer.Option(
        None,
        "--budget",
        help="Seconds for the whole run (default: run.budget).",
        show_default=False,
    ),
    shard: str | None = typer.Option(
        None,
        "--shard",
        help="Run shard i of N (1-based, e.g. 2/4) for a CI matrix; join with perfguard merge.",
        show_default=False,
    ),
    benchmark: list[str] = typer.Option(
        [], "--benchmark", "-k", metavar="NAME", help="Run only this benchmark (repeatable)."
    ),
    seed: int | None = typer.Option(
        None,
        "--seed",
        help="Seed of the measurement order (default: run.seed).",
        show_default=False,
    ),
) -> None:
    """Measure the benchmarks of perfguard.yml at growing sizes, within a time budget.

    Exit codes: 0 measured, 2 config or usage error, 3 a benchmark failed to execute
    (the others are still measured and written), 130 interrupted (what was measured is
    written).
    """
    from .collection.collect import collect, plan_benchmarks, run_options
    from .collection.spec import parse_shard
    from .config import load_config
    from .formats.native import save as save_measurements
    from .reporting.progress import RunProgress

    cfg = load_config(config)
    if budget is not None and not budget > 0:
        raise UsageError(f"--budget must be a positive number of seconds, got {budget:g}")
    specs = plan_benchmarks(cfg, benchmark or None, parse_shard(shard) if shard else None)
    _check_writable(output)
    options = run_options(cfg, budget, seed)

    def checkpoint(partial: MeasurementSet) -> None:
        save_measurements(partial, output)

    with _sigterm_as_interrupt(), RunProgress(options.budget, len(specs)) as progress:
        mset = collect(cfg, specs, options, on_event=progress, checkpoint=checkpoint)
    save_measurements(mset, output)
    _print_run_summary(mset, output)
    if mset.run.interrupted:
        raise typer.Exit(130)
    raise typer.Exit(3 if mset.run.errors else 0)


@app.command("merge")
def merge_cmd(
    inputs: list[Path] = typer.Argument(
        ...,
        metavar="SHARD",
        help="Measurement files to join (e.g. the shards of one run).",
        show_default=False,
    ),
    output: Path = typer.Option(
        ..., "--output", "-o", help="Where to write the joined measurements@1.", show_default=False
    ),
    format: str | None = typer.Option(
        None, "--format", "-f", help=f"Force the input format: {', '.join(FORMAT_NAMES)}."
    ),
) -> None:
    """Join measurement files into one perfguard/measurements@1 file."""
    from .collection.merge import merge_sets
    from .formats.native import save as save_measurements

    _check_writable(output)
    sets = [(str(path), _load(path, format)) for path in inputs]
    merged = merge_sets(sets)
    save_measurements(merged, output)
    points = sum(len(k.points) for k in merged.kernels)
    Console(stderr=True, highlight=False).print(
        f"merged {len(inputs)} files: {len(merged.kernels)} kernels, {points} points -> {output}"
    )


@app.command("history")
def history_cmd(
    kernel: str | None = typer.Argument(
        None, help="A kernel name or glob (default: every kernel).", show_default=False
    ),
    db: Path = typer.Option(HISTORY_PATH, "--db", help="The history database."),
    metric: str | None = typer.Option(
        None, "--metric", help="Only this metric, e.g. time.", show_default=False
    ),
    limit: int = typer.Option(20, "--limit", "-n", help="Show each kernel's last N runs."),
) -> None:
    """Each kernel's class, verdict and predicted value over the recorded commits."""
    from .history import History
    from .reporting.tables import table_width
    from .reporting.timeline import timeline_table

    if limit < 1:
        raise UsageError(f"--limit must be at least 1, got {limit}")
    with History.open(db, create=False) as history:
        rows = history.timeline(kernel, metric, limit)
        empty = not rows and not history.runs(limit=1)
    if empty:
        typer.echo(f"{db}: no runs recorded yet")
        return
    if not rows:
        which = f"kernel {kernel!r}" if kernel is not None else "kernel"
        raise UsageError(
            f"{db}: no recorded {which}" + (f" with metric {metric!r}" if metric else "")
        )
    width = table_width()
    Console(highlight=False, width=width).print(timeline_table(rows, width))


@app.command("site")
def site_cmd(
    db: Path = typer.Option(HISTORY_PATH, "--db", help="The history database."),
    output: Path = typer.Option(
        ...,
        "--output",
        "-o",
        help="The folder to write (new, empty, or an earlier perfguard site).",
        show_default=False,
    ),
    branch: str | None = typer.Option(
        None, "--branch", help="Only runs recorded on this branch.", show_default=False
    ),
    limit: int = typer.Option(100, "--limit", "-n", help="The newest N runs."),
    repo_url: str | None = typer.Option(
        None,
        "--repo-url",
        help="Link commits to REPO_URL/commit/SHA (default in GitHub Actions: this repository).",
        show_default=False,
    ),
    title: str = typer.Option("perfguard history", "--title", help="The site's title."),
) -> None:
    """A static site of the history: every kernel's class, verdict and models over commits.

    Plain HTML and inline SVG, no script and no request outside the folder: it opens from
    GitHub Pages, an artifact or file://. Exit codes: 0 written, 2 a bad history, branch
    or output folder (nothing is changed).
    """
    from .site.build import SiteOptions, build_site

    options = SiteOptions(branch=branch, limit=limit, repo_url=repo_url, title=title)
    typer.echo(build_site(db, output, options).sentence())


@app.command("ci")
def ci_cmd(
    config: Path = typer.Option(
        Path("perfguard.yml"), "--config", "-c", help="The perfguard.yml to run and check."
    ),
    baseline: Path | None = typer.Option(
        None, "--baseline", "-b", help="Compare with this measurement file.", show_default=False
    ),
    baseline_ref: str | None = typer.Option(
        None,
        "--baseline-ref",
        help="Compare with the history's run of the merge base with this branch "
        "(default in a pull request: its target branch).",
        show_default=False,
    ),
    baseline_commit: str | None = typer.Option(
        None,
        "--baseline-commit",
        help="Also measure this commit (in a temporary git worktree) in the same job and "
        "compare with it: same-runner A/B.",
        show_default=False,
    ),
    comment: str = typer.Option(
        "always", "--comment", help="Pull-request comment: always, on-failure or never."
    ),
    fail_on: str = typer.Option(
        "any", "--fail-on", help="What fails the step: expectation, regression, any or never."
    ),
    db: Path = typer.Option(HISTORY_PATH, "--db", help="The SQLite history to read and extend."),
    store: bool = typer.Option(True, "--store/--no-store", help="Record the run in the history."),
    measurements: Path | None = typer.Option(
        None,
        "--measurements",
        help="Check this measurement file instead of running the benchmarks.",
        show_default=False,
    ),
    strict: bool = typer.Option(False, "--strict", help="Inconclusive verdicts fail the step."),
    publish: Path | None = typer.Option(
        None,
        "--publish",
        help="Only comment the report folder another workflow uploaded (fork-safe pattern).",
        show_default=False,
    ),
) -> None:
    """Run, check, report, comment and store: perfguard's whole job in a CI step.

    In GitHub Actions it writes the job summary, step outputs and ::error annotations
    and upserts one pull-request comment. Exit codes: 0 pass, 1 a scalability bug of
    the kind --fail-on names, 2 usage/config/input error, 3 a benchmark failed to run.
    """
    from .checking.check import parse_rules
    from .checking.verdicts import exit_code
    from .ci import CiOptions, run_ci
    from .ci import publish as publish_report
    from .config import load_config
    from .github import actions_context

    context = actions_context(os.environ)
    console = Console(highlight=False)
    if publish is not None:
        console.print(escape(publish_report(publish, context, os.environ, comment)))
        return
    cfg = load_config(config)
    options = CiOptions(
        comment=comment,
        fail_on=fail_on,
        baseline=baseline,
        baseline_ref=baseline_ref,
        baseline_commit=baseline_commit,
        db=db,
        store=store,
    )
    check_options = _check_options(cfg, [], "default", [], None, None, None, strict)
    parse_rules(check_options)

    def current(which: Config) -> MeasurementSet:
        if measurements is not None and which is cfg:
            return _load(measurements)
        return _collect_for_check(which)

    result = run_ci(
        cfg, options, check_options, current, context, os.environ, lambda line: print(line)
    )
    _print_check(result.report)
    console.print(escape(f"perfguard ci: report in {result.markdown}"))
    code = exit_code(result.report, fail_on)
    if code == 0 and result.current.run.errors:
        code = 3
    raise typer.Exit(code)


def _check_writable(path: Path) -> None:
    """Fail before a long run, not after it, when the output cannot be written."""
    if path.is_dir():
        raise UsageError(f"{path} is a directory; give a file name for the measurements")
    folder = path.parent
    if not folder.is_dir():
        raise UsageError(f"folder {folder} does not exist; create it or choose another --output")
    try:
        probe = folder / f".{path.name}.perfguard-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"cannot write to {folder}: {exc.strerror or exc}") from None


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """A cancelled CI job gets SIGTERM: treat it like Ctrl-C so measurements are kept."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _print_run_summary(mset: MeasurementSet, output: Path) -> None:
    from .reporting.runs import error_lines, run_table
    from .reporting.tables import table_width

    width = table_width()
    console = Console(stderr=True, highlight=False, width=width)
    console.print(run_table(mset, width))
    for line in error_lines(mset):
        console.print(line, soft_wrap=True)
    state = "interrupted; kept" if mset.run.interrupted else "wrote"
    console.print(escape(f"perfguard run: {state} {len(mset.kernels)} kernels to {output}"))


def _at_text(mset: MeasurementSet, at: tuple[float, ...]) -> str:
    from .collection.spec import format_at

    return format_at(mset.parameters, at)


def _is_click_error(exc: Exception) -> bool:
    # By class name: typer >= 0.23 raises its vendored copy (typer._click), older ones
    # click's own, and click itself may not be installed at all.
    return any(cls.__name__ == "ClickException" for cls in type(exc).__mro__)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning perfguard errors into one line and an exit code."""
    try:
        code = app(args=argv, prog_name="perfguard", standalone_mode=False)
    except PerfguardError as exc:
        if _state["debug"]:
            raise
        Console(stderr=True, highlight=False).print(
            f"[red]perfguard: error:[/] {escape(str(exc))}", soft_wrap=True
        )
        return exc.exit_code
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        Console(stderr=True).print("[red]perfguard: aborted[/]")
        return 130
    except Exception as exc:  # click's usage errors
        if _is_click_error(exc):
            exc.show()  # type: ignore[attr-defined]
            return 2
        raise
    return code if isinstance(code, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
